"""The tuning MILPs against an exact oracle: the KKT system's complementarity states enumerated, one
scipy LP per state combination (tests/kkt_enumeration.py: no big-M, no bound on lambda, no MIP solver).
The grid oracle of tests/test_milp_bruteforce.py only bounds the optimum from above; this one is exact,
so an optimum the MILP's big-M constants, its lambda bound or HiGHS's search wrongly cut off shows here."""
import re

import numpy as np
import pytest

import bilevel
import kkt_enumeration
from bilevel.tune import tuning_options
from kkt_enumeration import optimistic_optimum, optimistic_tie_extremes, pessimistic_optimum
from oracles import grid, optimistic_value, pessimistic_value, tiny_instance

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a failed verification fails the test

BOUNDS = {
    "unit": (0.0, 1.0),
    "lower 0.3": (0.3, 2.0),
    "per feature": (np.array([0.0, 0.2]), np.array([3.0, 0.5])),
    "one fixed": (np.array([0.2, 0.0]), np.array([0.2, 1.0])),
}


def _close(a, b):
    return abs(a - b) <= 1e-6 * (1 + abs(b))


@pytest.fixture
def lps_from_scratch(monkeypatch):
    """The oracle with every LP solved from scratch by scipy's linprog (the path it takes where the warm-started
    HiGHS model, ``_WarmLP``, ends neither optimal nor infeasible)."""
    monkeypatch.setattr(kkt_enumeration._WarmLP, "solve", lambda self: (None, None, None))


@pytest.mark.parametrize("seed", [0, 1])
def test_the_enumeration_is_exact_where_the_grid_can_check_it(seed):
    """The oracle itself: its value is attained at its w_bar (re-evaluated by the independent LPs of
    tests/oracles.py) and no grid point does better."""
    Xt, yt, Xv, yv = tiny_instance(seed, 5, 4)
    value, w_bar, _ = optimistic_optimum(Xt, yt, Xv, yv)
    assert optimistic_value(w_bar, Xt, yt, Xv, yv) == pytest.approx(value, abs=1e-7)
    assert value <= min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2)) + 1e-7
    Vf = np.arange(3)
    Xt, yt, Xv, yv = tiny_instance(seed, 4, 3)
    value, w_bar, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.3)
    assert pessimistic_value(w_bar, Xt, yt, Xv, yv, Vf, 0.3) == pytest.approx(value, abs=1e-7)
    assert value <= min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, 0.3) for wb in grid(2, steps=7)) + 1e-7


@pytest.mark.parametrize("bounds", list(BOUNDS))
@pytest.mark.parametrize("seed,n_t,n_v,overlap", [(0, 5, 4, 1.0), (3, 6, 5, 1.0), (4, 6, 3, 0.3), (5, 5, 5, 2.0)])
def test_optimistic_milp_reaches_the_exact_optimum(seed, n_t, n_v, overlap, bounds):
    Xt, yt, Xv, yv = tiny_instance(seed, n_t, n_v, overlap=overlap)
    value, _, _ = optimistic_optimum(Xt, yt, Xv, yv, BOUNDS[bounds])
    res = bilevel.tune(Xt, yt, Xv, yv, mode="optimistic", w_bar_bounds=BOUNDS[bounds])
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)
    assert res.best_bound <= value + 1e-6


@pytest.mark.parametrize("bounds", ["unit", "per feature"])
@pytest.mark.parametrize("seed,epsilon,flipped", [(0, 0.0, "all"), (1, 0.3, "all"), (2, 0.1, [0, 2]), (6, 1.0, [1])])
def test_pessimistic_milp_reaches_the_exact_optimum(seed, epsilon, flipped, bounds):
    Xt, yt, Xv, yv = tiny_instance(seed, 4, 3)
    Vf = np.arange(len(yv)) if flipped == "all" else np.array(flipped)
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, epsilon, BOUNDS[bounds])
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf, w_bar_bounds=BOUNDS[bounds])
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)
    assert res.best_bound <= value + 1e-6


def test_pessimistic_with_validation_features_larger_than_the_training_ones():
    """The follower's box multipliers are bounded by the larger of the flipped validation points' and the training
    points' feature sums (bilevel/bigm.py, mu): validation features 6 times the training ones make the validation
    sum the larger (mutation testing: that sum divided by 10 passed, and made this MILP infeasible)."""
    Xt, yt, Xv, yv = tiny_instance(3, 4, 3)
    Xv = 6.0 * Xv
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(3), 0.3)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip="all")
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)


def test_a_far_misclassified_flipped_point_at_a_fixed_box():
    """A flipped validation point far on the wrong side of every training hyperplane, at a fixed box with epsilon = 0
    (the follower's set is the one training optimum): its margin slack reaches its largest value, so the slack's
    big-M must be at least that margin minus 1 (mutation testing: minus 1.1 passed, and made this MILP
    infeasible). Oracle: the pessimistic value at the box, by LPs."""
    Xt, yt, Xv, yv = tiny_instance(0, 6, 3)
    Xv, yv = np.vstack([Xv, [-3.0, -3.0]]), np.r_[yv, 1.0]
    box = np.full(2, 0.8)
    value = pessimistic_value(box, Xt, yt, Xv, yv, np.array([3]), 0.0)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip=[3], w_bar_bounds=(box, box))
    assert res.optimal and res.verified
    # 4.9e-6 above the oracle, measured: the oracle pads the follower's budget by TOL = 1e-8 (tests/oracles.py),
    # and this value falls by about 493 per unit of budget
    assert res.objective == pytest.approx(value, rel=1e-5, abs=0)


def test_a_lambda_bound_that_may_cut_off_the_optimum_is_noted_without_lambda_max():
    """epsilon = 0: no bound lambda_max on the follower's lambda exists, and the valid lambdas of a point form a
    half-line, so a solution below its bound certifies nothing. Training features 1000 times smaller than the
    validation ones: the optimum (0, the enumeration with lambda unbounded) needs lambda about 1.6e4, above
    the bound 1e4; tune returned 0.6667 (lambda 9787, below its bound), optimal and verified, with no note."""
    Xt, yt = np.array([[0.003], [0.0001], [-0.0016], [-0.0017]]), np.array([1.0, -1.0, -1.0, -1.0])
    Xv, yv = np.array([[-9.0], [2.5], [-23.0]]), np.array([-1.0, 1.0, -1.0])
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(3), 0.0)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all")
    assert res.verified and res.lambda_max == np.inf
    noted = any(re.search(r"larger (lambda )?bound might allow a better objective", m)
                for m in res.verification.messages)
    assert noted or res.objective <= value + 1e-6, (res.objective, value, res.verification.messages)
    assert not any("lambda_max = inf" in m and "inf: epsilon = 0)" not in m for m in res.verification.messages)
    # the bound is what stood between: with a larger one the MILP reaches the optimum
    big = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", lambda_bound=1e5, max_lambda_bound=1e5,
                       optimistic=res.optimistic)
    assert big.verified and _close(big.objective, value), (big.objective, value)


def test_one_feature_three_points():
    """p = 1, the smallest non-trivial case: both modes against the enumeration."""
    Xt, yt, Xv, yv = tiny_instance(7, 3, 3, p=1)
    value, _, _ = optimistic_optimum(Xt, yt, Xv, yv)
    assert _close(bilevel.tune(Xt, yt, Xv, yv, mode="optimistic").objective, value)
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(3), 0.2)
    assert _close(bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.2, flip="all").objective, value)


def test_tie_ranges_are_the_exact_extremes_of_the_optimal_set():
    """bilevel.optimistic_tie_range against the enumeration, with the same ceiling F* + tolerance: both
    extremes of both criteria, within HiGHS's default relative gap (1e-4). Some of these optimal sets are
    wide (the box sum spans 0.67-1.0 on one), so the extremes are not all the returned optimum."""
    widths = []
    for seed in range(6):
        Xt, yt, Xv, yv = tiny_instance(seed, 5, 4, overlap=2.0 if seed % 2 else 1.0)
        if seed >= 3:
            Xt, Xv = np.round(Xt), np.round(Xv)
        res = bilevel.tune(Xt, yt, Xv, yv, mode="optimistic")
        for criterion in ("sum_w_bar", "val_margin"):
            tie = bilevel.optimistic_tie_range(res, criterion)
            assert tie.low.status == tie.high.status == "optimal"
            low, high = optimistic_tie_extremes(Xt, yt, Xv, yv, criterion, tie.reference_objective + tie.tolerance)
            assert tie.low.criterion_value == pytest.approx(low, rel=1e-4, abs=1e-5), (seed, criterion)
            assert tie.high.criterion_value == pytest.approx(high, rel=1e-4, abs=1e-5), (seed, criterion)
            widths.append(high - low)
    assert max(widths) > 0.3


def _random_case(rng):
    """A random tiny instance: p in {1, 2, 3}; integer-valued features (ties, degenerate LPs) in 40% of
    cases; a duplicated training point, half the time with the other label, in 20%; boxes from [0, 1] to
    per-feature and fixed ones; for the pessimistic mode epsilon in {0, 0.1, 0.3, 1} and a random V_f or
    margin flipping."""
    p = int(rng.choice([1, 2, 3]))
    mode = str(rng.choice(["optimistic", "pessimistic"]))
    n_t, n_v = (int(rng.integers(3, 7)), int(rng.integers(2, 6))) if mode == "optimistic" else \
        (int(rng.integers(3, 5)), int(rng.integers(2, 4)))
    Xt, yt, Xv, yv = tiny_instance(int(rng.integers(10**6)), n_t, n_v, p=p, overlap=float(rng.choice([1.0, 2.0, 3.0])))
    if rng.random() < 0.4:
        Xt, Xv = np.round(Xt), np.round(Xv)
    if rng.random() < 0.2:
        Xt[-1], yt[-1] = Xt[0], yt[0] * rng.choice([-1.0, 1.0])
        if len(set(yt)) < 2:
            yt[1] = -yt[0]
    lo = rng.choice([0.0, 0.2], size=p)
    bounds = [(0.0, 1.0), (0.3, 2.0), (lo, lo + rng.choice([0.0, 0.5, 1.0, 3.0], size=p))][int(rng.integers(3))]
    kw = dict(mode=mode, w_bar_bounds=bounds)
    if mode == "pessimistic":
        flip = ("margin" if rng.random() < 0.4
                else np.sort(rng.choice(n_v, int(rng.integers(1, n_v + 1)), replace=False)))
        kw.update(epsilon=float(rng.choice([0.0, 0.1, 0.3, 1.0])), flip=flip)
    return (Xt, yt, Xv, yv), kw


def _oracle_value(data, kw, flipped):
    """The enumeration's optimum of a case of _random_case; flipped is the pessimistic V_f (unused when
    optimistic)."""
    if kw["mode"] == "optimistic":
        return optimistic_optimum(*data, kw["w_bar_bounds"])[0]
    return pessimistic_optimum(*data, np.asarray(flipped), kw["epsilon"], kw["w_bar_bounds"])[0]


@pytest.mark.slow
def test_random_instances_match_the_enumeration():
    """40 random tiny instances (a throwaway run of 520 such instances, 409 with a non-zero optimum, found
    no mismatch either; on 2026-12-07 a throwaway run of 700 larger ones, with p up to 4, |T| up to 8, features
    rounded or scaled by 1e-3 to 1e2 and epsilon up to 3, on HiGHS 1.15.1 and 1.16.0, agreed on all 681 that
    the oracle finished within 30 s)."""
    rng = np.random.default_rng(2026)
    for case in range(40):
        data, kw = _random_case(rng)
        res = bilevel.tune(*data, **kw)
        assert res.optimal and res.verified, (case, kw)
        # V_f as tune drew it (margin flipping uses the optimistic hyperplane tune found)
        value = _oracle_value(data, kw, res.flipped)
        assert _close(res.objective, value), (case, kw, res.objective, value)


def test_the_warm_started_search_matches_one_that_solves_every_lp_from_scratch(request):
    """The oracle's LPs are re-solved in one HiGHS model from the last basis (``_WarmLP``); here every LP is
    also solved from scratch by scipy's ``linprog``, as before that change, on random tiny instances of both
    modes: the same optimum each time (a throwaway run against the oracle before the change found no mismatch
    either, on the instances of 200 such that the new one solves within 3 s, about 180)."""
    rng = np.random.default_rng(11)
    cases = [_random_case(rng) for _ in range(12)]
    assert {kw["mode"] for _, kw in cases} == {"optimistic", "pessimistic"}
    # Without tune's optimistic hyperplane there is no margin V_f; a case with flip="margin" flips every
    # validation point instead, which serves a comparison of two searches of one problem as well.
    flips = [np.arange(len(data[3])) if isinstance(kw.get("flip"), str) else kw.get("flip") for data, kw in cases]
    warm = [_oracle_value(data, kw, flipped) for (data, kw), flipped in zip(cases, flips)]
    request.getfixturevalue("lps_from_scratch")
    fresh = [_oracle_value(data, kw, flipped) for (data, kw), flipped in zip(cases, flips)]
    assert np.allclose(warm, fresh, rtol=1e-7, atol=1e-9), (warm, fresh)


@pytest.mark.parametrize("seed", [0, 3, 5])
def test_the_benchmarks_textbook_formulation_reaches_the_exact_optimum(seed):
    """experiments/textbook.py, the reference of the speed-up ratios (two binaries per pair, unnormalised
    multipliers, lambda <= 1e3), against the enumeration too, so the benchmark's "same objective" check
    compares two exact models."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from experiments.textbook import textbook_optimistic, textbook_pessimistic

    Xt, yt, Xv, yv = tiny_instance(seed, 4, 3, overlap=2.0)
    value, _, _ = optimistic_optimum(Xt, yt, Xv, yv)
    info = bilevel.solve_model(textbook_optimistic(Xt, yt, Xv, yv))
    assert info.status == "optimal" and _close(info.objective, value), (info.objective, value)
    Vf = np.arange(len(yv))
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.3)
    info = bilevel.solve_model(textbook_pessimistic(Xt, yt, Xv, yv, Vf, 0.3, 1e3))
    assert info.status == "optimal" and _close(info.objective, value), (info.objective, value)


@pytest.mark.parametrize("seed,epsilon,p", [(0, 0.3, 2), (1, 0.1, 1), (2, 1.0, 3)])
def test_the_printed_eq24_replica_reaches_the_exact_optimum(seed, epsilon, p):
    """replica="feasible" (Eq. (24) as printed: the leader may inflate the replica's loss, and with it the
    budget) against the enumeration with the replica's KKT states dropped (a one-off run of 40 random such
    instances found no mismatch either)."""
    Xt, yt, Xv, yv = tiny_instance(seed, 3, 3, p=p, overlap=2.0)
    Vf = np.arange(3)
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, epsilon, replica="feasible")
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf, replica="feasible")
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)
    # Every point of the training-optimal replica's problem is one of this relaxation's.
    assert value <= pessimistic_optimum(Xt, yt, Xv, yv, Vf, epsilon)[0] + 1e-7


def test_the_printed_eq24_replica_is_not_capped_below_a_better_follower():
    """The replica's hinge cap 1 + R_i + B (B from the training points only) capped the follower's budget, and
    with it its intercept, at b <= 3.05 here, where the leader's best follower tie needs b near 6 (validation
    points at 5 and 7): the MILP returned 0.7517, "optimal" and verified, against the optimum 0.6364 of a
    budget of 4 or more. Only the replica is free (w_bar fixed to 1). Closed form: the flipped point (x = 0)
    has hinge 0 iff b >= 1; then the leader's mean hinge (1 + b + 5 (1 + 5 w - b)_+ + 5 (1 - 7 w + b)_+) / 11
    is least at w = 1, b = 6: 7/11."""
    Xt = np.array([[0.01], [-0.01], [0.01], [-0.01]])
    yt = np.array([1.0, 1.0, -1.0, -1.0])
    Xv = np.array([[0.0]] + [[5.0]] * 5 + [[7.0]] * 5)
    yv = np.array([1.0] + [-1.0] * 5 + [1.0] * 5)
    Vf = np.array([0])
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.0, w_bar_bounds=(1.0, 1.0), replica="feasible")
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip=Vf, w_bar_bounds=(1.0, 1.0),
                       replica="feasible", mip_gap=0.0)
    assert res.optimal and res.verified
    assert _close(value, 7 / 11) and _close(res.objective, value), (res.objective, value)


def test_a_feature_of_tiny_values_does_not_cut_off_the_optimum():
    """Feature 0 of size 1e-7..1e-6 next to feature 1 of size 10: the box multipliers of feature 0 were bounded
    by their stationarity bound, about 9e-7, below HiGHS's feasibility tolerance; HiGHS then treated them as
    fixed to 0 and the stationarity row in w_0 forced the duals in it to 0. The pessimistic MILP built around
    the MIP start proved 0.5095 "optimal" (verified) against the optimum 0 at w_bar = 0 (w = 0, b = -1: the
    validation point at f = 1), and the model with w_bar fixed to 0 was called infeasible."""
    Xt = np.array([[1.5e-7, 20.0], [-2.1e-6, -1.4], [5.8e-7, 13.2]])
    yt = np.array([1.0, -1.0, 1.0])
    Xv = np.array([[-2.3e-7, 8.7]])
    yv = np.array([1.0])
    bounds = (np.zeros(2), np.array([0.0, 0.3]))
    Vf = np.array([0])
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.0, bounds)
    assert _close(value, 0.0)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip=Vf, w_bar_bounds=bounds)
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, 0.0, bounds)
    for j in model.w_bar:
        model.w_bar[j].fix(0.0)
    assert _close(bilevel.solve_model(model).objective, 0.0)


def test_tiny_features_are_warned_of():
    """A feature of size 1e-7..1e-6 (absolute, or next to one of size 1e3) puts the MILPs' stationarity rows at
    the size of HiGHS's tolerances: tune warns, and solves with presolve off. On the instance below (found by
    differential fuzzing) HiGHS's presolve proved 1.08937 "optimal" (verified), and tune returned it, while the
    bilevel optimum is 1.0 at w_bar = 0 (w = 0; the enumeration's and a by-hand value); presolve off finds 1.0."""
    Xt = np.array([[-647.1553073079773, -8.059507881768076e-07], [1023.4259411215874, 6.535044104724449e-07],
                   [1918.6938516041346, -1.7086864892926478e-06], [1034.0157110508783, -6.19169985974195e-08]])
    yt = np.array([-1.0, -1.0, 1.0, 1.0])
    Xv = np.array([[-574.0741282932896, 1.5361069305317784e-06], [-344.77207705400974, -1.2961952282601431e-06]])
    yv = np.array([1.0, -1.0])
    bounds = (0.0, 0.01)
    try:
        value, _, _ = optimistic_optimum(Xt, yt, Xv, yv, bounds)
    except RuntimeError as exc:  # scipy 1.11's linprog ends with status 4 on these features of 1e-6
        pytest.skip(f"the enumeration oracle's LPs failed at this scipy version: {exc}")
    assert _close(value, 1.0)
    with pytest.warns(UserWarning, match=r"feature\(s\) \[1\] have values of at most 1\.7e-06"):
        res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=bounds)
    assert res.optimal and res.verified and _close(res.objective, value), res.objective
    assert any("presolve off" in m for m in res.verification.messages)
    plain = bilevel.build_optimistic_model(Xt, yt, Xv, yv, bounds)
    assert _close(bilevel.solve_model(plain, options={"presolve": "off"}).objective, value)
    with pytest.warns(UserWarning):  # the user's own presolve setting stands
        res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=bounds, highs_options={"presolve": "on"})
    assert res.objective >= value - 1e-6 and not any("presolve off" in m for m in res.verification.messages)
    assert tuning_options(None, [Xt, Xv])["presolve"] == "off"
    assert "presolve" not in tuning_options(None, [Xt * [1.0, 1e6]])


def test_a_pessimistic_call_warns_of_tiny_features_once():
    """A pessimistic tune warned of the tiny features, then its own optimistic solve warned again, word for word.
    Oracle: the warnings recorded, against the one an optimistic call gives; a message the optimistic solve adds
    (not the tiny-feature one) is not filtered: the filter matches the tiny-feature message only."""
    import warnings

    rng = np.random.default_rng(3)
    Xt, Xv = rng.normal(size=(6, 2)) * [1.0, 1e-6], rng.normal(size=(4, 2)) * [1.0, 1e-6]
    yt, yv = np.array([1.0, -1.0] * 3), np.array([1.0, -1.0] * 2)
    for mode in ("optimistic", "pessimistic"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            bilevel.tune(Xt, yt, Xv, yv, mode=mode, **({"flip": "all"} if mode == "pessimistic" else {}))
        tiny = [w for w in caught if re.match(bilevel.validation.TINY_FEATURE_WARNING, str(w.message))]
        assert len(tiny) == 1 and issubclass(tiny[0].category, UserWarning), (mode, [str(w.message) for w in caught])
        assert "feature(s) [1]" in str(tiny[0].message)


def test_tiny_feature_stationarity_rows_are_rescaled():
    """The stationarity row in w_j of a tiny feature is divided by s_j = max_i |x_ij| and its box multipliers
    are mu+-_j / s_j in the model (item 12 of bilevel.bigm; an exact reformulation). Before, on this
    pessimistic instance (epsilon = 0, V_f = {1}; found by differential fuzzing, a feature of size 1e-7..1e-6
    next to one of size 1e3) HiGHS proved 0.66667 "optimal" with presolve off, and it was verified, while the
    bilevel optimum (the KKT enumeration) is 0.53754. Standardised data keep scale 1 (byte-identical models)."""
    Xt = np.array([[1090.0836917872539, -3.417426711182704e-07], [2174.019706561512, 5.120115948726936e-07],
                   [-1069.5010461601846, -2.4491416138973176e-07], [-45.731581923021096, -2.486124340156864e-08]])
    yt = np.array([1.0, 1.0, -1.0, -1.0])
    Xv = np.array([[281.637886349719, 2.0155563363013306e-07], [-1588.0078848322491, -1.8929721115466112e-07],
                   [157.22648471776998, 1.0561395920551287e-06]])
    yv = np.array([1.0, -1.0, 1.0])
    bounds, Vf = (0.0, 0.09437192552363605), np.array([1])
    try:
        value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.0, bounds)
    except RuntimeError:  # scipy 1.11's linprog ends with status 4 on features of 1e-7: the same bilevel problem
        c = np.abs(np.vstack([Xt, Xv])).max(axis=0)  # in unit-scale data, x_j / c_j with boxes c_j w_bar_j
        try:
            value, _, _ = pessimistic_optimum(Xt / c, yt, Xv / c, yv, Vf, 0.0, (np.zeros(2), bounds[1] * c))
        except RuntimeError as exc:
            pytest.skip(f"the enumeration oracle's LPs failed at this scipy version: {exc}")
    assert _close(value, 0.537542544456032), value
    with pytest.warns(UserWarning, match=r"feature\(s\) \[1\]"):
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip=Vf, w_bar_bounds=bounds)
    assert res.optimal and res.verified and _close(res.objective, value), res.objective
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, 0.0, bounds)
    scale = model.bilevel_info["big_m"].mu_scale
    assert scale[0] == 1.0 and scale[1] == np.abs(np.vstack([Xt, Xv])[:, 1]).max()
    assert bilevel.build_pessimistic_model(Xt * [1.0, 1e6], yt, Xv * [1.0, 1e6], yv, Vf, 0.0,
                                           bounds).bilevel_info["big_m"].mu_scale.tolist() == [1.0, 1.0]


def test_standardised_data_are_not_warned_of_tiny_features():
    import warnings

    data = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(data.X, data.y, 8, 8, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    assert bilevel.validation.warn_tiny_features([np.array([[1e-3, 2.0], [0.0, -1.0]])]) == []
    with pytest.warns(UserWarning, match=r"\[0\]"):  # absolute: every feature tiny
        assert bilevel.validation.warn_tiny_features([np.array([[1e-6, 0.0], [-2e-6, 0.0]])]) == [0]


def test_the_presolve_benchmark_runs_both_settings_on_scaled_data(capsys):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from experiments import bench_tiny_features

    assert bench_tiny_features.main(["--datasets", "cancer", "--sizes", "5", "--seeds", "0"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("cancer")]
    assert [r[3] for r in rows] == ["optimistic", "pessimistic"]
    # each row: data size seed mode, then per presolve setting "<time> s <objective> <status> ver=<verified>"
    assert all(r[5] == r[10] == "s" and r[8] == r[13] == "ver=True" for r in rows)
    assert all(abs(float(r[6]) - float(r[11])) <= 1e-4 for r in rows)  # the same optimum, presolve on and off
    assert "geometric mean" in out


def test_the_note_of_an_unknown_lambda_max_names_its_cause():
    """lambda_max is inf for exactly three causes (item 11 of bilevel.bigm): epsilon = 0, replica='feasible', or a
    least training loss v*(w_bar_ub) of 0; the note named all three at once. Training points separable by a
    unit-box hyperplane (oracle: scipy's linprog on the LP-SVM at w_bar_ub gives 0), epsilon = 0.2."""
    from scipy.optimize import linprog

    Xt, yt = np.array([[2.0], [1.5], [-2.0], [-1.2]]), np.array([1.0, 1.0, -1.0, -1.0])
    Xv, yv = np.array([[0.3], [-0.2], [1.0]]), np.array([-1.0, 1.0, 1.0])
    # LP-SVM at w_bar_ub = 1 over (w, b, xi): min mean xi s.t. xi_i >= 1 - y_i (x_i w - b), xi >= 0, |w| <= 1
    n = len(yt)
    A = np.hstack([-(yt * Xt[:, 0])[:, None], yt[:, None], -np.eye(n)])
    lp = linprog(np.r_[0.0, 0.0, np.ones(n) / n], A_ub=A, b_ub=-np.ones(n),
                 bounds=[(-1, 1), (None, None)] + [(0, None)] * n)
    assert lp.status == 0 and lp.fun <= 1e-12
    for kwargs, cause in (({"epsilon": 0.2}, "separable inside the box"), ({"epsilon": 0.0}, "epsilon = 0"),
                          ({"epsilon": 0.2, "replica": "feasible"}, "replica='feasible'")):
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", lambda_bound=0.1, max_lambda_bound=0.1,
                           **kwargs)
        assert res.lambda_max == np.inf
        messages = res.verification.messages
        # the objective is far above its floor: a note either way (lambda at its bound, or below it with the cause)
        assert any(re.search(r"larger (lambda )?bound might allow a better objective", m) for m in messages), messages
        notes = [m for m in messages if "lambda_max = inf" in m]
        others = {"separable inside the box", "epsilon = 0", "replica='feasible'"} - {cause}
        assert all(cause in m and not any(o in m for o in others) for m in notes), (kwargs, notes)


def test_a_single_flipped_point_at_epsilon_0_keeps_the_follower_training_optimal():
    """epsilon = 0, training-optimal replica: the follower is its own replica and its training-LP duals share the
    follower's complementarity binaries (shared_p of bilevel.kkt.add_complementarity). With V_f = {0} the
    flipped objective does not oppose the validation objective everywhere, so a model without those shared rows
    (mutants of kkt.py and pessimistic.py) lets the follower leave the training optima and reaches 0.5947
    (solve_model on the bare model), below the exact optimum; with V_f the whole set, as on the other instances,
    the leader gains nothing from it."""
    Xt, yt, Xv, yv = tiny_instance(0, 5, 4)
    Vf = np.array([0])
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, Vf, 0.0)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip=Vf)
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)
    # The bare model, without tune's objective floor (the optimistic bound) that hides the relaxation. With V_f
    # the whole set its optimum is right, but with mu_plus_hat and mu_minus_hat sharing the wrong binaries (a
    # mutant) the solution's follower is not training-optimal (verify_model).
    for flipped in (Vf, np.arange(len(yv))):
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, 0.0)
        objective = bilevel.solve_model(model).objective
        assert _close(objective, pessimistic_optimum(Xt, yt, Xv, yv, flipped, 0.0)[0])
        ver = bilevel.verify_model(model)
        assert ver.verified, ver.messages


def test_a_pessimistic_solve_from_an_unfinished_optimistic_result_keeps_the_optimum():
    """With epsilon = 0 the optimistic *best bound* is the pessimistic floor (Proposition 1), never its objective:
    an optimistic result stopped at its MIP start (a 1e-9 s time limit: objective 2.16, no bound) must not lift
    the pessimistic floor to 2.16 above the pessimistic optimum 1.0 (oracle: the exact enumeration; mutation
    testing: the floor taken from the optimistic objective passed every test)."""
    Xt, yt, Xv, yv = tiny_instance(4, 5, 4)
    opt = bilevel.tune(Xt, yt, Xv, yv, time_limit=1e-9)
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(4), 0.0)
    if opt.status == "optimal":
        pytest.skip("this machine proved the optimistic optimum within 1e-9 s")
    assert opt.objective > value + 0.5  # the case: the unfinished optimistic objective lies above the optimum
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip="all", optimistic=opt)
    assert res.optimal and res.verified
    assert res.objective == pytest.approx(value, abs=1e-6)
    assert res.best_bound <= value + 1e-6


@pytest.mark.filterwarnings("ignore:.*tiny:UserWarning")
@pytest.mark.parametrize("mode,seed,n_t,n_v", [("optimistic", 5, 6, 5), ("pessimistic", 2, 5, 4)])
def test_a_tiny_feature_with_a_wide_box_against_the_enumeration(mode, seed, n_t, n_v):
    """tiny_instance(seed, n_t, n_v) with its second feature scaled by c = 3e-5 (a tiny feature, item 12 of
    bilevel.bigm: its stationarity rows divided by s_j = max |x_ij|) and w_bar_2 in [0, 1e4], so that x_2 w_2
    reaches margins of order 1 and the feature matters (pessimistic: epsilon 0.2, V_f all). Oracle: the
    enumeration on the same instance unscaled with w_bar_2 in [0, 1e4 c] (w_2 -> c w_2 maps one onto the other;
    scipy's LPs fail on the 3e-5 coefficients themselves). Mutation testing: the rows multiplied by s_j instead
    (coefficients of 1e-10, so w_2 escaped the inner optimality) passed every test; tune returned 0.3271
    (optimistic, against 0.4297) and 0.1840 (pessimistic follower rows, against 0.2628), flagged unverified."""
    c, ub = 3e-5, 1e4
    Xt, yt, Xv, yv = tiny_instance(seed, n_t, n_v)
    if mode == "optimistic":
        value, _, _ = optimistic_optimum(Xt, yt, Xv, yv, (np.zeros(2), np.array([1.0, ub * c])))
    else:
        value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(n_v), 0.2, (np.zeros(2), np.array([1.0, ub * c])))
    Xt[:, 1] *= c
    Xv[:, 1] *= c
    assert bilevel.validation.tiny_features([Xt, Xv]) == [1]
    kw = dict(mode="pessimistic", epsilon=0.2, flip="all") if mode == "pessimistic" else {}
    res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(np.zeros(2), np.array([1.0, ub])), **kw)
    assert res.optimal and res.verified
    assert _close(res.objective, value), (res.objective, value)


def test_a_follower_optimal_at_the_exact_budget_is_verified_despite_a_feasibility_tolerance():
    """Pessimistic, epsilon = 0, w_bar fixed at (0.1, 0.1): HiGHS returns a follower whose training loss lies 8.4e-8
    (within its feasibility tolerance) above the least one, so the budget (the follower's own loss: the replica is
    shared) is inflated by that much, and with the budget's multiplier lambda = 252 the follower's least loss at
    the inflated budget is 2.1e-5 lower. The follower is optimal at the exact budget and the objective is the
    oracle's optimum, but verify_model judged it at the inflated budget only: an inner gap of 2.1e-5 > 1e-5,
    "optimal", unverified, with a RuntimeWarning."""
    Xt = np.array([[-0.27558199777309367, 1.2071823742909036], [0.2794486762779101, -0.572399330793998],
                   [0.2845411882726251, -2.1173564564370517]])
    yt = np.array([1.0, 1.0, -1.0])
    Xv, yv = np.array([[-0.7031478189990268, 1.1038161828688586]]), np.array([1.0])
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", w_bar_bounds=(0.1, 0.1))
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, res.flipped, 0.0, (0.1, 0.1))
    assert res.optimal and res.verified, res.verification.messages
    assert _close(res.objective, value), (res.objective, value)


def _mixed_scale_instance():
    """Seed 27 of a fuzz over tiny Gaussian instances (p = 2, feature 1 of training and validation scaled by
    10^U(-6, -2); the box [0, 1]): the HiGHS simplex of scipy 1.17.1 ended one LP of the oracle's search on it in
    "model status unknown" (status 4) with epsilon = 0 and two with epsilon = 0.2, which stopped the oracle."""
    rng = np.random.default_rng(27)
    nt, nv = rng.integers(3, 6), rng.integers(2, 5)
    Xt, Xv = rng.normal(size=(nt, 2)), rng.normal(size=(nv, 2))
    yt = np.where(rng.random(nt) < 0.5, -1.0, 1.0)
    yt[0], yt[1] = 1.0, -1.0
    yv = np.where(rng.random(nv) < 0.5, -1.0, 1.0)
    scale = 10 ** rng.uniform(-6, -2)
    Xt[:, 1] *= scale
    Xv[:, 1] *= scale
    return Xt, yt, Xv, yv


def test_least_violation_closed_form():
    from kkt_enumeration import _least_violation

    # x, y in [0, 1]: -x <= -2 is violated by 1 at best, x + y = 3 by 1 at best: 2 in all
    A_ub, b_ub = np.array([[-1.0, 0.0]]), np.array([-2.0])
    A_eq, b_eq = np.array([[1.0, 1.0]]), np.array([3.0])
    assert _least_violation(A_ub, b_ub, A_eq, b_eq, [(0.0, 1.0)] * 2) == pytest.approx(2.0)
    assert _least_violation(A_ub, b_ub, np.zeros((0, 2)), np.zeros(0), [(0.0, 1.0)] * 2) == pytest.approx(1.0)
    assert _least_violation(A_ub, b_ub, A_eq, b_eq, [(0.0, 3.0)] * 2) == pytest.approx(0.0, abs=1e-9)


def test_an_lp_ended_in_status_unknown_counts_as_infeasible_only_when_its_rows_cannot_hold(monkeypatch, request):
    """Every infeasible LP of the search reported as status 4 instead (as HiGHS's simplex did on mixed-scale
    rows): the oracle's value is unchanged, since the phase-1 LP shows those LPs infeasible; a feasible LP reported
    as status 4 still stops the oracle."""
    Xt, yt, Xv, yv = tiny_instance(0, 4, 3)
    exact, _, _ = optimistic_optimum(Xt, yt, Xv, yv)
    request.getfixturevalue("lps_from_scratch")
    real = kkt_enumeration.linprog
    turned = [0]

    def status_unknown_for_infeasible(*args, **kwargs):
        res = real(*args, **kwargs)
        if res.status == 2:
            turned[0] += 1
            res.status = 4
        return res

    monkeypatch.setattr(kkt_enumeration, "linprog", status_unknown_for_infeasible)
    value, _, _ = optimistic_optimum(Xt, yt, Xv, yv)
    assert turned[0] > 0 and value == pytest.approx(exact, abs=1e-9)

    def status_unknown_for_the_first_feasible(*args, **kwargs):
        res = real(*args, **kwargs)
        if res.status == 0 and len(turned) == 1:  # the search's first LP (the phase-1 LP comes after it)
            turned.append(1)
            res.status = 4
        return res

    monkeypatch.setattr(kkt_enumeration, "linprog", status_unknown_for_the_first_feasible)
    with pytest.raises(RuntimeError, match="status 4"):
        optimistic_optimum(Xt, yt, Xv, yv)


@pytest.mark.filterwarnings("ignore:feature\\(s\\) \\[1\\] have values:UserWarning")
def test_pessimistic_milp_on_a_mixed_scale_instance_reaches_the_oracle():
    Xt, yt, Xv, yv = _mixed_scale_instance()
    for epsilon in (0.0, 0.2):
        value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(len(yv)), epsilon)
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip="all")
        assert res.optimal and res.verified
        assert _close(res.objective, value), (epsilon, res.objective, value)
