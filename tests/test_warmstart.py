"""The MIP start from LPs at w_bar = w_bar_ub satisfies every row of the MILP (checked by evaluating the
Pyomo constraints, independently of HiGHS) and is bilevel-feasible (checked by the verification)."""
import dataclasses

import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel.errors import InputError
from bilevel.warmstart import kkt_start, start_at
from oracles import lp as oracle_lp, tiny_instance


def _max_violation(model) -> float:
    worst = 0.0
    for c in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(c.body)
        if c.has_ub():
            worst = max(worst, body - pyo.value(c.upper))
        if c.has_lb():
            worst = max(worst, pyo.value(c.lower) - body)
    for v in model.component_data_objects(pyo.Var):
        if v.lb is not None:
            worst = max(worst, v.lb - v.value)
        if v.ub is not None:
            worst = max(worst, v.value - v.ub)
    return worst


@pytest.mark.parametrize("data,seed", [("cancer", 0), ("diabetes", 1)])
@pytest.mark.parametrize("kind", ["optimistic", "pes0", "pes0.2", "pes0.2-margin", "pes0-feasible",
                                  "pes0.2-feasible"])
def test_start_is_feasible_and_verified(data, seed, kind):
    d = bilevel.load_dataset(data)
    s = bilevel.split_dataset(d.X, d.y, 12, 10, seed=seed)
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    else:
        eps = 0.0 if kind == "pes0" else 0.2
        flipped = np.arange(10) if "margin" not in kind else np.array([0, 3, 7])
        replica = "feasible" if "feasible" in kind else "optimal"  # Eq. (24) as printed: no start until 2026-11
        model = bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, flipped, eps, (0, 1), 1e3,
                                                replica)
    start = kkt_start(model)
    assert start is not None
    for var, value in start:
        var.set_value(value, skip_validation=True)
    assert all(v.value is not None for v in model.component_data_objects(pyo.Var))  # a complete point
    assert _max_violation(model) <= 1e-6
    assert bilevel.verify_model(model).verified


def test_time_limited_solve_returns_the_incumbent():
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all",
                       time_limit=1.0)
    assert res.status in ("time_limit", "optimal") and res.verified
    assert res.best_bound <= res.objective + 1e-9


def _objective(start) -> float:
    return float(np.mean([value for var, value in start if var.parent_component().name == "g"]))


def _load(model, start):
    for var, value in start:
        var.set_value(value, skip_validation=True)


@pytest.mark.parametrize("data,eps", [("cancer", 0.0), ("diabetes", 0.0), ("cancer", 0.2)])
def test_candidate_boxes_give_the_least_objective_and_the_best_tie(data, eps):
    d = bilevel.load_dataset(data)
    s = bilevel.split_dataset(d.X, d.y, 14, 10, seed=3)
    p = d.X.shape[1]
    model = bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, np.arange(10), eps, (0, 1), 1e4)
    rng = np.random.default_rng(0)
    boxes = [np.ones(p), np.full(p, 0.5), np.full(p, 0.2), rng.uniform(0, 1, p), np.full(p, 0.05)]
    single = []
    for box in boxes:  # each box alone: a feasible point whose (w, b) is the best follower optimum there
        start = kkt_start(model, w_bar=box)
        if start is None:
            continue
        _load(model, start)
        assert _max_violation(model) <= 1e-6
        ver = bilevel.verify_model(model)
        assert ver.verified
        tight = bilevel.verify_model(model, tolerance=1e-8)  # best tie over follower optima within 1e-8
        assert tight.objective_recomputed <= tight.best_objective_at_w_bar + 1e-5
        single.append(_objective(start))
    assert len(single) >= 3
    best = kkt_start(model, w_bar=boxes[0], candidates=boxes[1:])
    assert _objective(best) == pytest.approx(min(single), abs=1e-9)
    first = kkt_start(model, w_bar=boxes[0], candidates=boxes[1:], stop_at=np.inf)  # stops at the first box
    assert _objective(first) == pytest.approx(single[0], abs=1e-9)


@pytest.mark.parametrize("tie", ["as_returned", "widened"])
def test_pessimistic_start_at_the_optimistic_floor_is_proven_optimal_at_once(tie):
    # diabetes 20/20 seed 0, epsilon 0: the optimistic box, or the tight box |w| around the optimistic
    # hyperplane (the first two boxes tried), leaves the follower no worse tie, so the start meets the
    # optimistic floor (Proposition 1), HiGHS closes the gap without branching, and the returned pessimistic
    # optimum is one of those two boxes. (Which one depends on the optimistic tie HiGHS returns: w_bar_j may
    # sit above an inactive |w_j|, and the follower's worst tie at that larger box can be worse.)
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    if tie == "widened":  # the optimistic tie a CI run got: w_bar_5 = 1 above |w_5| = 0.205, same objective
        w_bar = opt.w_bar.copy()
        w_bar[5] = 1.0
        assert start_at(opt.model, w_bar)[1] == pytest.approx(opt.objective, abs=1e-6)  # an optimistic optimum too
        opt = dataclasses.replace(opt, w_bar=w_bar)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all", optimistic=opt)
    assert res.optimal and res.verified
    assert res.objective == pytest.approx(opt.objective, abs=1e-6)
    # without branching: at most the root of each run; solve_model sums the nodes of its check of a root optimum
    # without presolve (f807e8f), so two runs of one node each count 2
    assert res.nodes <= 2 and res.start_seconds > 0
    # Which of the two boxes comes back is not pinned: the two starts can tie to within round-off (of order
    # 1e-9 above the floor), and HiGHS's root heuristics and the box search may land on either one.
    boxes = [opt.w_bar, np.abs(opt.w)]
    assert any(np.allclose(res.w_bar, box, atol=1e-7) for box in boxes), res.w_bar
    # Independent of HiGHS: the KKT start (its own LPs) at the returned box reaches the optimistic floor.
    at_returned = start_at(res.model, res.w_bar)
    assert at_returned is not None and at_returned[1] <= opt.best_bound + 1e-6


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
def test_start_computed_before_the_build_fits_the_plain_and_the_cutoff_model(epsilon):
    """tune computes the pessimistic start from the data alone (pessimistic_info) and builds the model around
    its value afterwards: expanded on the plain model it must be kkt_start's start, value for value; expanded
    on the model built around its objective it must be a complete feasible point there (the variables that
    model fixes keep their fixed values and satisfy every row with the rest)."""
    from bilevel.pessimistic import pessimistic_info
    from bilevel.warmstart import best_start, start_pairs

    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 14, 12, seed=2)
    args = (s.X_train, s.y_train, s.X_val, s.y_val, np.arange(12), epsilon, (0, 1), 1e3)
    boxes = [np.full(d.X.shape[1], t) for t in (1.0, 0.5, 0.2)]
    queued = best_start(pessimistic_info(*args), w_bar=boxes[0], candidates=boxes[1:])
    plain = bilevel.build_pessimistic_model(*args)
    expected = kkt_start(plain, w_bar=boxes[0], candidates=boxes[1:])
    got = start_pairs(queued[0], plain)
    assert [(v.name, x) for v, x in got] == [(v.name, x) for v, x in expected]
    assert queued[1] == pytest.approx(_objective(expected), abs=1e-12)
    around = bilevel.build_pessimistic_model(*args, objective_cutoff=queued[1] + 1e-6)
    pairs = start_pairs(queued[0], around)
    assert any(v.fixed for v in around.component_data_objects(pyo.Var))  # the cutoff decides some points
    assert not any(v.fixed for v, _ in pairs)
    for var, value in pairs:
        var.set_value(value, skip_validation=True)
    assert all(v.value is not None for v in around.component_data_objects(pyo.Var))
    assert _max_violation(around) <= 1e-6


def test_a_box_whose_follower_lp_round_off_calls_infeasible_still_starts_the_solve(monkeypatch):
    """At this box HiGHS called the follower LP under the budget v* + 1e-9 infeasible: kkt_start, and with it the
    pessimistic tune after a time-limited optimistic one (which stops at this start's box), raised SolverError.
    The LP now gets a round-off slack; a box whose LPs still fail gives no start, as in the box search."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 13, 6, seed=8)
    box = np.array([1.0, 1.0, 1.0, 0.39247512695338355, 1.0, 0.24671928665029413, 0.24551067217155298])
    model = bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, [0, 2, 3, 5], 0.0, (0, 1), 1e4)
    start = kkt_start(model, w_bar=box)
    assert start is not None
    _load(model, start)
    assert _max_violation(model) <= 1e-5  # the slack's trace in the duals (HiGHS checks a start itself)
    # Any LP failure at one box: that box is skipped and the other candidate starts the solve.
    import bilevel.warmstart as warmstart

    real = warmstart.hinge_lp
    monkeypatch.setattr(warmstart, "hinge_lp", lambda w_bar, *a, **k: (_ for _ in ()).throw(bilevel.SolverError(
        "infeasible")) if np.array_equal(w_bar, box) else real(w_bar, *a, **k))
    with pytest.raises(bilevel.SolverError):
        start_at(model, box)
    other = np.ones(len(box))
    assert _objective(kkt_start(model, w_bar=box, candidates=[other])) == pytest.approx(
        _objective(kkt_start(model, w_bar=other)))
    assert kkt_start(model, w_bar=box) is None


@pytest.mark.parametrize("kind", ["optimistic", "pes0", "pes0.2"])
def test_start_after_the_caller_changes_its_arrays_in_place_fits_the_model(kind):
    """The model's bilevel_info held the caller's arrays, so a start computed after the caller changed them
    in place came from other data than the model's rows (max row violation 0.57 on diabetes 12/10 seed 0)."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 12, 10, seed=0)
    Xt, yt, Xv, yv = s.X_train.copy(), s.y_train.copy(), s.X_val.copy(), s.y_val.copy()
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    else:
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, np.arange(10), float(kind[3:]), (0, 1), 1e3)
    Xt[:, 0] += 1.0
    Xv *= 0.5
    yt[0], yv[0] = -yt[0], -yv[0]
    start = kkt_start(model)
    assert start is not None
    _load(model, start)
    assert _max_violation(model) <= 1e-6
    assert bilevel.verify_model(model).verified


def _tiny_feature_instance(seed):
    rng = np.random.default_rng(seed)
    X_t, X_v = rng.normal(size=(10, 4)) * 1e-3, rng.normal(size=(8, 4)) * 1e-3
    y_t = np.where(rng.random(10) < 0.5, -1.0, 1.0)
    y_t[:2] = 1.0, -1.0
    return X_t, y_t, X_v, np.where(rng.random(8) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("kind,seed", [("optimistic", 6), ("optimistic", 9), ("pes0", 19), ("pes0.2", 10)])
def test_start_keeps_w_on_its_active_bounds_with_tiny_features(kind, seed):
    """Features of order 1e-3 make the box duals mu_j small (6e-6), and the tie LP's training-loss slack of
    1e-10 let w_j leave the bound its mu_j makes active by 1e-10 / mu_j: the start broke cs_mu_* by up to
    3.4e-5, above HiGHS's feasibility tolerance 1e-6, and HiGHS rejected it (its repair LP found no point).
    Oracle: the Pyomo rows at the loaded start; the box complementarity rows hold to 1e-9, every row to 1e-6."""
    X_t, y_t, X_v, y_v = _tiny_feature_instance(seed)
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    else:
        model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, np.arange(8), float(kind[3:]), (0, 1), 1e3)
    start = kkt_start(model)
    assert start is not None
    _load(model, start)
    box_rows = [c for c in model.component_data_objects(pyo.Constraint, active=True)
                if c.parent_component().name.startswith(("cs_mu_", "box_"))]
    assert len(box_rows) >= 16
    for c in box_rows:
        body = pyo.value(c.body)
        assert (body - pyo.value(c.upper) if c.has_ub() else -np.inf) <= 1e-9, c.name
        assert (pyo.value(c.lower) - body if c.has_lb() else -np.inf) <= 1e-9, c.name
    assert _max_violation(model) <= 1e-6
    assert bilevel.verify_model(model).verified


def test_holding_w_on_an_active_bound_keeps_the_start_on_the_followers_face():
    """Separable data, box 0.03-0.04, Eq. (24) replica: the follower's box dual on w_3 is 1.6e-4, so the tie LP's
    slack of 1e-10 let w_3 leave its bound by 1.4e-6; moving it back afterwards shifted every training margin, and
    the start broke the epsilon budget row by 2.9e-6 (above HiGHS's feasibility tolerance 1e-6). Oracle: scipy's
    linprog (tests/oracles.py) for the least training loss and the follower's optimum at the box, and the Pyomo
    rows at the loaded start."""
    eps = 0.2
    X_t, y_t, X_v, y_v = tiny_instance(775131, 5, 6, 3, overlap=0.1)
    X_t, X_v = X_t * 0.1 + 2 * y_t[:, None], X_v * 0.1 + 2 * y_v[:, None]
    box = np.array([0.03436274296873571, 0.02319068442530936, 0.03873411874913882])
    flipped = np.arange(6)
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, flipped, eps, (0, 0.05), 1e4, "feasible")
    pairs, value = start_at(model, box)
    _load(model, pairs)
    w, b = np.array([model.w[j].value for j in model.w]), model.b.value
    budget = (1 + eps) * oracle_lp(box, (X_t, y_t))
    X_f, y_f = X_v[flipped], -y_v[flipped]
    follower = oracle_lp(box, (X_f, y_f), [(X_t, y_t, budget)])
    def mean_hinge(X, y):
        return np.maximum(0.0, 1.0 - y * (X @ w - b)).mean()

    assert mean_hinge(X_t, y_t) <= budget + 1e-8
    assert mean_hinge(X_f, y_f) <= follower + 1e-8
    assert value == pytest.approx(mean_hinge(X_v, y_v), abs=1e-12)
    assert _max_violation(model) <= 1e-6


@pytest.mark.parametrize("box", [[-1.0, 1.0], [2.0, 2.0], [0.5, 1.1]])
def test_a_start_box_outside_the_model_bounds_is_refused_not_clipped(box):
    """kkt_start(m, w_bar=[2, 2]) on a model with w_bar in [0, 1] quietly started at [1, 1], another box than asked
    for (found by an audit of the public API). A box on the bounds is taken."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [0.5, -1.0], [-0.5, 0.5]])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    model = bilevel.build_optimistic_model(X, y, X[:4] + 0.1, y[:4])
    with pytest.raises(InputError, match=r"w_bar\[\d\] = .* lies outside the model's w_bar bounds \[0, 1\]"):
        kkt_start(model, w_bar=box)
    assert kkt_start(model, w_bar=[0.0, 1.0]) is not None
