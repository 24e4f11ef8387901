"""Mutation study 13 of the box search and the MIP start (bilevel/box_search.py, bilevel/warmstart.py): each test
kills a mutant that passed the tests of those modules, against the documented behaviour (the modules' docstrings,
the README's sections on MIP starts and *Deterministic runs*, experiments/PERFORMANCE.md's "The MIP starts, the box
search and the cutoff restarts") and an independent oracle (a hand-counted search, scipy's linprog for the inner
LPs in tests/oracles.py, the KKT conditions and the Pyomo rows checked directly at the start)."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import linprog

import bilevel
import bilevel.box_search as box_search
import bilevel.warmstart as warmstart
from bilevel.box_search import candidate_boxes, expected_evaluations, search_box
from bilevel.warmstart import kkt_start, start_at
from oracles import lp as oracle_lp, optimistic_value, tiny_instance
from test_warmstart import _max_violation, _tiny_feature_instance as _small_feature_instance

_DOC_SHRINK = (1.0, 0.75, 0.5, 0.35, 0.25, 0.15)  # experiments/PERFORMANCE.md: |w| and w_bar_ub shrunk by these


def _load(model, pairs):
    for var, value in pairs:
        var.set_value(value, skip_validation=True)


def _best_intercept_loss(w, X, y):
    """Least mean hinge over b at a fixed w (scipy's linprog over [b, h]): the loss of the hyperplane w."""
    n = len(y)
    c = np.r_[0.0, np.full(n, 1.0 / n)]
    A = np.hstack([y[:, None], -np.eye(n)])  # h_i >= 1 - y_i (x_i w - b)  <=>  y_i b - h_i <= -1 + y_i x_i w
    res = linprog(c, A_ub=A, b_ub=-1.0 + y * (X @ w), bounds=[(None, None)] + [(0, None)] * n, method="highs")
    return res.fun


# --- bilevel/box_search.py -------------------------------------------------------------------------------------


def test_candidate_boxes_are_shrunk_hinge_minimisers_of_each_block_in_each_scaled_box():
    """Step 2 of box_search's docstring, in order: for the validation block, training plus validation and the
    training block, and for each LP scale c, the six boxes t |w| (t in 1, 0.75, 0.5, 0.35, 0.25, 0.15, the
    factors PERFORMANCE.md lists) of a hinge-loss minimiser w of that block in the box c w_bar_ub; then w_bar_ub
    shrunk by 0.75 ... 0.15. Oracle: scipy's least mean hinge of the block in c w_bar_ub (tests/oracles.py) must
    be reached by some sign pattern of the box's |w| with its best intercept (scipy again), so the check holds
    whichever of tied minimisers the package's LP returns."""
    Xt, yt, Xv, yv = tiny_instance(3, 7, 6)
    ub = np.array([1.0, 0.6])
    boxes = candidate_boxes(Xt, yt, Xv, yv, ub)
    blocks = [(Xv, yv), (np.vstack([Xt, Xv]), np.r_[yt, yv]), (Xt, yt)]
    scales = box_search._LP_SCALES
    assert len(boxes) == len(blocks) * len(scales) * 6 + 5
    signs = [np.array([s0, s1]) for s0 in (-1, 1) for s1 in (-1, 1)]
    for k, (X, y) in enumerate(blocks):
        for i, c in enumerate(scales):
            group = boxes[(k * len(scales) + i) * 6:(k * len(scales) + i + 1) * 6]
            base = group[0]
            for t, box in zip(_DOC_SHRINK, group):
                np.testing.assert_allclose(box, t * base, rtol=0, atol=1e-12)
            assert (base <= c * ub + 1e-9).all()
            best = oracle_lp(c * ub, (X, y))
            reached = min(_best_intercept_loss(s * base, X, y) for s in signs)
            assert reached == pytest.approx(best, abs=1e-7), (k, c)
    for t, box in zip(_DOC_SHRINK[1:], boxes[-5:]):
        np.testing.assert_allclose(box, t * ub, rtol=0, atol=1e-15)


def test_an_lp_failure_at_one_scale_drops_only_that_scales_boxes(monkeypatch):
    """A hinge LP that fails (SolverError) at one box c w_bar_ub removes that LP's six boxes only: the other
    scales of the same block, and the later blocks, still give theirs (as the tuning hook drops one failed
    box, not the rest of the search). Expected count by hand: 3 blocks x 4 working scales x 6 + 5."""
    Xt, yt, Xv, yv = tiny_instance(3, 7, 6)
    ub = np.array([1.0, 0.6])
    real = box_search.hinge_lp_highs
    failing = box_search._LP_SCALES[1] * ub

    def flaky(w_bar, *args, **kwargs):
        if np.allclose(w_bar, failing):
            raise bilevel.SolverError("hinge LP failed: HiGHS reports Infeasible")
        return real(w_bar, *args, **kwargs)

    monkeypatch.setattr(box_search, "hinge_lp_highs", flaky)
    boxes = candidate_boxes(Xt, yt, Xv, yv, ub)
    assert len(boxes) == 3 * (len(box_search._LP_SCALES) - 1) * 6 + 5


def test_expected_evaluations_counts_the_documented_boxes():
    """expected_evaluations's docstring: the given boxes, the candidate boxes (counted here by candidate_boxes
    itself on data with both classes in every block), and ``sweeps`` passes of six values (two bounds and the
    four steps 0.5, 0.8, 1.25, 2) per coordinate; ``sweeps`` defaults to search_box's three. The nodes clock's
    wait (README, *Deterministic runs*) is 3 x 2.5 x this number, so it must be exact, not merely large."""
    Xt, yt, Xv, yv = tiny_instance(3, 7, 6)
    n_candidates = len(candidate_boxes(Xt, yt, Xv, yv, np.ones(2)))
    for n_boxes, p in ((1, 2), (4, 30), (0, 7)):
        assert expected_evaluations(n_boxes, p) == n_boxes + n_candidates + 3 * 6 * p
        assert expected_evaluations(n_boxes, p, sweeps=1) == n_boxes + n_candidates + 6 * p
        assert expected_evaluations(n_boxes, p, sweeps=0) == n_boxes + n_candidates


def test_the_default_search_runs_three_sweeps_and_uses_the_step_two():
    """F is finite only at w = 1, 1/2, 1/4, 1/8, 1/16 (value w) and at w = 0.5 on the second example: from the
    box 1 each sweep halves w once (the steps scale the coordinate's value at the sweep's start), so the default
    three sweeps (PERFORMANCE.md: "up to three sweeps") end at exactly 1/8, not 1/2 or 1/16. Second: from 0.25
    only the step 2 reaches 0.5, the minimum (the bounds 0.1 and 1 are worse)."""
    ladder = {1.0: 1.0, 0.5: 0.5, 0.25: 0.25, 0.125: 0.125, 0.0625: 0.0625}
    found = search_box(lambda box: (ladder[box[0]], None) if box[0] in ladder else None, [np.ones(1)],
                       [0.01], [1.0])
    assert found.w_bar.tolist() == [0.125] and found.objective == 0.125
    found = search_box(lambda box: (abs(box[0] - 0.5), None), [np.array([0.25])], [0.1], [1.0], sweeps=1)
    assert found.w_bar.tolist() == [0.5] and found.objective == 0.0


def test_boxes_a_few_thousandths_apart_are_all_evaluated():
    """Every distinct box is evaluated once: from the box 0.01 the step 0.5 gives 0.005, the minimum of
    |w - 0.005| (the lower bound 0.001 and the other steps 0.008, 0.0125, 0.02 are worse). A repeat filter
    that treated boxes within a few thousandths as one would never try it."""
    evaluated = []

    def evaluate(box):
        evaluated.append(float(box[0]))
        return abs(box[0] - 0.005), None

    found = search_box(evaluate, [np.array([0.01])], [0.001], [1.0], sweeps=1)
    assert found.w_bar[0] == pytest.approx(0.005, abs=1e-15) and found.objective == pytest.approx(0.0, abs=1e-15)
    assert evaluated[:3] == pytest.approx([0.01, 0.001, 0.005])


def test_the_floor_stops_the_coordinate_search_at_once():
    """search_box's floor: "stop as soon as a box reaches this value". From the box 1, F(w) = |w - 0.5| with
    floor 0: the sweep tries the lower bound 0 and then 0.5 (step 0.5), which reaches the floor, so exactly three
    boxes are evaluated (the step 0.8 would be the fourth)."""
    seen = []

    def evaluate(box):
        seen.append(float(box[0]))
        return abs(box[0] - 0.5), None

    found = search_box(evaluate, [np.ones(1)], [0.0], [1.0], floor=0.0)
    assert seen == [1.0, 0.0, 0.5] and found.evaluations == 3 and found.objective == 0.0


def test_seconds_is_the_wall_time_and_evaluations_count_boxes_without_a_point():
    """BoxSearch's fields: ``seconds`` is the search's wall time (at least the time the evaluator slept) and
    ``evaluations`` counts the boxes tried, a box where ``evaluate`` gives no point (None) included."""
    def evaluate(box):
        time.sleep(0.02)
        return None if box[0] > 0.6 else (float(box[0]), None)

    found = search_box(evaluate, [np.ones(1), np.full(1, 0.8), np.full(1, 0.5)], [0.0], [1.0], sweeps=0)
    assert found.evaluations == 3 and found.w_bar.tolist() == [0.5]
    assert found.seconds >= 3 * 0.02
    nothing = search_box(lambda box: None, [np.ones(1), np.full(1, 0.5)], [0.0], [1.0])
    assert nothing.evaluations == 2 and nothing.w_bar is None and nothing.objective == np.inf


def test_improvements_and_the_floor_use_the_tolerance_1e_9():
    """search_box keeps every improvement (step 3) and stops at the floor "within 1e-9": a box better by 1e-6
    is kept, and a first box 1e-6 above the floor does not stop the search (the second box is still tried)."""
    values = {1.0: 1.0, 0.5: 1.0 - 1e-6}
    found = search_box(lambda box: (values[box[0]], None), [np.ones(1), np.full(1, 0.5)], [0.0], [1.0], sweeps=0)
    assert found.w_bar.tolist() == [0.5] and found.objective == 1.0 - 1e-6
    values = {1.0: 1e-6, 0.5: 0.0}
    found = search_box(lambda box: (values[box[0]], None), [np.ones(1), np.full(1, 0.5)], [0.0], [1.0], floor=0.0,
                       sweeps=0)
    assert found.evaluations == 2 and found.objective == 0.0


# --- bilevel/warmstart.py ---------------------------------------------------------------------------------------


def _tiny_feature_instance():
    Xt, yt, Xv, yv = tiny_instance(0, 10, 8, 3)
    Xt[:, 2] *= 1e-6
    Xv[:, 2] *= 1e-6  # feature 2 is flagged tiny: the model's box multipliers on it are mu_2 / s_2
    return Xt, yt, Xv, yv


def test_the_training_box_multipliers_are_divided_by_the_stationarity_scale():
    """With a tiny feature (|x_i2| ~ 1e-6) the model holds mu+-_2 / s_2 (bilevel.bigm item 12). The KKT
    stationarity of the LP-SVM, checked directly on the start's values: s_j (mu+_j - mu-_j) = sum_i beta_i y_i
    x_ij for every j, with a nonzero multiplier on the tiny feature; and every Pyomo row holds at the start."""
    Xt, yt, Xv, yv = _tiny_feature_instance()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    start = kkt_start(model)
    assert start is not None
    _load(model, start)
    s = np.max(np.abs(np.vstack([Xt, Xv])), axis=0)
    s[:2] = 1.0
    beta = np.array([model.beta[i].value for i in model.beta])
    mu = np.array([model.mu_plus[j].value - model.mu_minus[j].value for j in model.mu_plus])
    np.testing.assert_allclose(s * mu, (beta * yt) @ Xt, rtol=1e-6, atol=1e-12)
    assert abs(mu[2]) > 1e-3
    assert _max_violation(model) <= 1e-6


def test_stop_at_ends_the_search_at_the_first_start_that_reaches_it(monkeypatch):
    """kkt_start's ``stop_at``: the search over the boxes stops at a start that reaches it. On separable data
    the box w_bar_ub has a training-optimal follower with validation hinge 0 (scipy: optimistic_value 0), and 0
    is a lower bound of every mean hinge, so with stop_at=0 the candidate box is never evaluated."""
    Xt, yt, Xv, yv = tiny_instance(0, 8, 6, 2, overlap=0.1)
    assert optimistic_value(np.ones(2), Xt, yt, Xv, yv) == pytest.approx(0.0, abs=1e-9)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    calls = []
    real = warmstart.queued_start
    monkeypatch.setattr(warmstart, "queued_start", lambda info, w_bar: calls.append(w_bar) or real(info, w_bar))
    start = kkt_start(model, candidates=[np.full(2, 0.5)], stop_at=0.0)
    assert start is not None and len(calls) == 1
    assert np.mean([x for v, x in start if v.parent_component() is model.g]) == pytest.approx(0.0, abs=1e-9)


def test_candidates_outside_the_bounds_are_clipped_to_them():
    """kkt_start's ``candidates``: each box is clipped to the model's bounds. A candidate at 5 (above w_bar_ub
    = 1) is the box 1, better than the tiny given box 0.01, so the start is the one at w_bar = 1: its value is
    scipy's optimistic value there and every row and bound of the model holds."""
    Xt, yt, Xv, yv = tiny_instance(1, 8, 6, 2)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    start = kkt_start(model, w_bar=np.full(2, 0.01), candidates=[np.full(2, 5.0)])
    _load(model, start)
    assert [model.w_bar[j].value for j in model.w_bar] == [1.0, 1.0]
    assert pyo.value(model.validation_hinge) == pytest.approx(optimistic_value(np.ones(2), Xt, yt, Xv, yv),
                                                             abs=1e-6)
    assert _max_violation(model) <= 1e-6


def test_no_start_when_lambda_exceeds_its_bound():
    """kkt_start returns None when the LP point's lambda (the follower's budget multiplier) exceeds the model's
    lambda_bound. Oracle: scipy's dual of the budget row of the follower LP at w_bar_ub (tests/oracles.py),
    1.37 here; with a bound of half that there is no start, with twice that the start fits every row."""
    Xt, yt, Xv, yv = tiny_instance(0, 8, 6, 2)
    eps = 1.0
    v_star = oracle_lp(np.ones(2), (Xt, yt))
    _, lam = oracle_lp(np.ones(2), (Xv, -yv), [(Xt, yt, (1 + eps) * v_star)], duals=True)
    lam = float(lam[0])
    assert lam > 0.5
    low = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, np.arange(6), eps, (0, 1), lam / 2)
    assert kkt_start(low) is None
    high = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, np.arange(6), eps, (0, 1), 2 * lam)
    start = kkt_start(high)
    assert start is not None
    _load(high, start)
    assert _max_violation(high) <= 1e-6


def test_an_inactive_budget_gets_lambda_zero_and_a_slack_budget_row():
    """Flipped set {1}, epsilon 1: scipy says the follower's budget (1 + eps) v* is not binding (its dual is 0,
    the follower fits the flipped point at no loss). The start then has lam = 0, and its binary must let the
    budget row keep its slack ((1 + eps) mean xi_hat - mean xi > 0), so every row of the model holds."""
    Xt, yt, Xv, yv = tiny_instance(0, 8, 6, 2)
    eps, flipped = 1.0, np.array([1])
    v_star = oracle_lp(np.ones(2), (Xt, yt))
    phi, lam = oracle_lp(np.ones(2), (Xv[flipped], -yv[flipped]), [(Xt, yt, (1 + eps) * v_star)], duals=True)
    assert abs(float(lam[0])) <= 1e-9 and phi == pytest.approx(0.0, abs=1e-9)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, eps, (0, 1), 1e3)
    pairs, _ = start_at(model, np.ones(2))
    _load(model, pairs)
    assert model.lam.value == pytest.approx(0.0, abs=1e-9)
    xi = np.array([model.xi[i].value for i in model.xi])
    assert (1 + eps) * v_star - xi.mean() > 1e-3  # the budget row is slack
    assert _max_violation(model) <= 1e-6


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_the_optimistic_start_takes_the_followers_best_tie_for_the_leader(seed):
    """Among the follower's optima the start takes one with the least validation hinge (warmstart's docstring),
    so its value is the optimistic bilevel value at the box: scipy's least validation hinge over the training
    optima (oracles.optimistic_value), at several boxes of separable-ish data with many tied training optima."""
    Xt, yt, Xv, yv = tiny_instance(seed, 8, 6, 2, overlap=0.1)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    for box in (np.ones(2), np.array([1.0, 0.3]), np.array([0.2, 1.0])):
        value = start_at(model, box)[1]
        assert value == pytest.approx(optimistic_value(box, Xt, yt, Xv, yv), abs=1e-6), box


def _box_rows_worst(model) -> float:
    worst = 0.0
    for c in model.component_data_objects(pyo.Constraint, active=True):
        if c.parent_component().name.startswith(("cs_mu_", "box_")):
            body = pyo.value(c.body)
            worst = max(worst, body - pyo.value(c.upper) if c.has_ub() else 0.0,
                        pyo.value(c.lower) - body if c.has_lb() else 0.0)
    return worst


@pytest.mark.parametrize("seed", [12, 26])
def test_a_shared_replica_start_keeps_w_on_the_training_lps_active_bounds(seed):
    """epsilon = 0 with the optimal replica: the training duals share the follower's binaries, so the tie LP must
    hold w_j also on the bounds the *training* LP's box duals make active (_active_bounds: later duals override).
    Features of order 1e-3 (small box duals) make a w_j left free drift off such a bound by more than HiGHS's
    tolerance. Oracle: the Pyomo rows at the loaded start, every row within 1e-6."""
    X_t, y_t, X_v, y_v = _small_feature_instance(seed)
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, np.arange(8), 0.0, (0, 1), 1e3)
    assert model.bilevel_info["shared_replica"]
    start = kkt_start(model)
    assert start is not None
    _load(model, start)
    assert _max_violation(model) <= 1e-6


@pytest.mark.parametrize("kind,seed", [("optimistic", 6), ("pes0", 19)])
def test_a_failed_held_tie_lp_still_puts_w_on_its_active_bounds(monkeypatch, kind, seed):
    """_best_tie's fallback: should the tie LP that holds w_j on its active bounds fail (round-off), the LP
    without holding them is used and its w is moved onto those bounds. Here every held LP fails (monkeypatched
    SolverError); the start must still satisfy the box complementarity rows to 1e-9 (features of order 1e-3:
    the unheld LP leaves a bound by ~1e-5) and every row to 1e-6, as the held LP's start does."""
    real = warmstart.hinge_lp

    def held_fails(w_bar, *args, fixed=None, **kwargs):
        if fixed is not None and not np.isnan(fixed).all():
            raise bilevel.SolverError("hinge LP failed: HiGHS reports Infeasible")
        return real(w_bar, *args, fixed=fixed, **kwargs)

    monkeypatch.setattr(warmstart, "hinge_lp", held_fails)
    X_t, y_t, X_v, y_v = _small_feature_instance(seed)
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    else:
        model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, np.arange(8), 0.0, (0, 1), 1e3)
    start = kkt_start(model)
    assert start is not None
    _load(model, start)
    assert _box_rows_worst(model) <= 1e-9
    assert _max_violation(model) <= 1e-6


def test_start_by_name_leaves_out_the_fixed_variables_and_loaded_start_the_unset_ones():
    """start_by_name's docstring: the pairs of another model become pairs of ``model``'s *free* variables of the
    same names (its fixed variables, e.g. the binaries a cutoff decides, are left out); loaded_start's: variables
    without a value are left out. Oracle: Pyomo's own ``fixed`` flags and ``value`` of each variable."""
    Xt, yt, Xv, yv = tiny_instance(0, 10, 8)
    args = (Xt, yt, Xv, yv, np.arange(8), 0.2, (0, 1), 1e3)
    plain = bilevel.build_pessimistic_model(*args)
    pairs, value = start_at(plain, np.ones(2))
    _load(plain, pairs)
    loaded = warmstart.loaded_start(plain)
    assert {v.name for v, _ in loaded} == {v.name for v in plain.component_data_objects(pyo.Var)}
    around = bilevel.build_pessimistic_model(*args, objective_cutoff=value + 1e-6)
    fixed = {v.name for v in around.component_data_objects(pyo.Var) if v.fixed}
    assert fixed  # the cutoff decides some binaries
    moved = warmstart.start_by_name(loaded, around)
    assert all(v.model() is around and not v.fixed for v, _ in moved)
    assert {v.name for v, _ in moved} == {v.name for v in around.component_data_objects(pyo.Var)} - fixed
    fresh = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    fresh.b.set_value(0.25)
    fresh.w[0].set_value(-0.5)
    assert sorted((v.name, x) for v, x in warmstart.loaded_start(fresh)) == [("b", 0.25), ("w[0]", -0.5)]


def test_start_pairs_leaves_out_fixed_scalar_and_indexed_variables():
    """start_pairs's docstring: fixed variables are left out (e.g. the points a cutoff decides), scalar ones as
    well as elements of indexed ones. Fix the scalar ``b`` and the element ``w[0]``: the pairs hold every other
    variable of the model (Pyomo's own list of variables, the oracle) and neither of those two."""
    Xt, yt, Xv, yv = tiny_instance(0, 10, 8)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    queue, _ = warmstart.best_start(model.bilevel_info)
    model.b.fix(0.0)
    model.w[0].fix(0.0)
    names = [v.name for v, _ in warmstart.start_pairs(queue, model)]
    free = {v.name for v in model.component_data_objects(pyo.Var) if not v.fixed}
    assert "b" not in names and "w[0]" not in names
    assert set(names) == free and len(names) == len(free)
