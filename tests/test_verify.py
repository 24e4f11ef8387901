"""bilevel.verify_model on answers that use its tolerances to leave the follower's optimal set."""
from pathlib import Path

import numpy as np
import pytest
import pyomo.environ as pyo

import bilevel
from bilevel import library
from model_points import load_optimistic, load_pessimistic

MANIFEST = Path(__file__).resolve().parents[1] / "models" / "manifest.csv"


def _diabetes_pes_at_large_multiplier():
    """The library instance diabetes-pes-e0.2-n10-s0 at a w_bar with a large budget multiplier (from a random
    search; the one of tests/test_solvers.py's check_solution test): ``(built, T, V, F, w_bar, replica)`` with
    the (X, y) pairs of training, validation and flipped validation points and the training LP at w_bar."""
    row = next(r for r in library.read_manifest(MANIFEST) if r["id"] == "diabetes-pes-e0.2-n10-s0")
    built = library.build_instance(library.InstanceSpec.from_row(row))
    s = built.split
    T, V, F = (s.X_train, s.y_train), (s.X_val, s.y_val), (s.X_val[built.flipped], -s.y_val[built.flipped])
    w_bar = np.array([0.0, 0.998611, 0.730053, 1.0, 1.0, 0.418797, 0.803595])
    return built, T, V, F, w_bar, bilevel.hinge_lp(w_bar, T)


def test_an_answer_that_buys_its_objective_with_the_tolerances_is_not_verified():
    """Pessimistic epsilon = 0.2, training-optimal replica: a follower (w, b) with training loss 0.99 tol
    over the budget and flipped-label loss within 0.99 tol of the least at the budget passes each follower
    test, yet its objective is far below the least over the exact follower optima at w_bar (the least
    flipped loss falls with the budget by its multiplier). verify_model used to call it verified. The
    w_bar, from a random search for a large budget multiplier, is the one of tests/test_solvers.py's
    check_solution test."""
    built, T, V, F, w_bar, replica = _diabetes_pes_at_large_multiplier()
    s, tol = built.split, 1e-5
    budget = 1.2 * replica.value
    flipped_min = bilevel.hinge_lp(w_bar, F, [(*T, budget)]).value
    point = bilevel.hinge_lp(w_bar, V, [(*T, budget + 0.99 * tol), (*F, flipped_min + 0.99 * tol)])
    best = bilevel.hinge_lp(w_bar, V, [(*T, budget * (1 + 1e-12)), (*F, flipped_min * (1 + 1e-12))])
    assert point.value < best.value - 10 * tol
    model = built.model
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.inner_gap <= tol and ver.budget_violation <= tol and abs(ver.replica_gap) <= tol  # each test passes
    assert not ver.verified and len(ver.messages) == 1 and "least any exact follower optimum" in ver.messages[0], \
        ver.messages
    # The exact follower optimum with the least objective at the same w_bar is verified.
    load_pessimistic(model, w_bar, best.w, best.b, (replica.w, replica.b), *T, *F, *V)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.verified, ver.messages


def test_verify_reports_instead_of_raising_when_the_follower_budget_sits_at_the_least_loss():
    # With the box shrunk by 1e-8 the least training loss becomes about 1e-8, above the replica's budget 0; the
    # follower's LP at that least loss was called infeasible and verify_model raised SolverError
    import warnings

    d = bilevel.load_dataset("cancer")
    sp = bilevel.split_dataset(d.X, d.y, 6, 5, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        o = bilevel.tune(sp.X_train, sp.y_train, sp.X_val, sp.y_val, "optimistic")
        r = bilevel.tune(sp.X_train, sp.y_train, sp.X_val, sp.y_val, "pessimistic", optimistic=o, epsilon=0.3)
    assert bilevel.verify_model(r.model).verified
    for shrink in (1e-8, 1e-6):
        for j in r.model.w_bar:
            r.model.w_bar[j].set_value(r.w_bar[j] - shrink, skip_validation=True)
        report = bilevel.verify_model(r.model)  # a report, verified or not, never an exception
        assert report.verified or report.messages


def test_a_replica_whose_loss_is_below_the_least_training_loss_is_not_verified():
    """Pessimistic epsilon = 0.2, features of scale 100: a replica with w_hat 0.99 tol outside the box (within
    the box tolerance) has a training loss far below the least one at w_bar, so its budget is too small. Only
    the budget was compared with the least loss, so the replica passed, and with it a follower whose objective
    lies below the least over the exact follower optima (independent oracle: tests/oracles.lp)."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(0)
    X_t, X_v = 100 * X_t, 100 * X_v
    flipped, eps, tol = np.arange(len(y_v)), 0.2, 1e-5
    T, V, F = (X_t, y_t), (X_v, y_v), (X_v[flipped], -y_v[flipped])
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, flipped, epsilon=eps)
    w_bar = np.array([0.005, 0.002])
    replica = bilevel.hinge_lp(w_bar + 0.99 * tol, T)  # |w_hat| <= w_bar + 0.99 tol
    least = lp(w_bar, T)
    assert replica.value < least - 10 * tol
    budget = (1 + eps) * replica.value
    flipped_min = bilevel.hinge_lp(w_bar, F, [(*T, budget)]).value
    point = bilevel.hinge_lp(w_bar, V, [(*T, budget), (*F, flipped_min * (1 + 1e-12))])
    exact = (1 + eps) * least * (1 + 1e-12)  # the oracle's least objective over the exact follower optima
    best = lp(w_bar, V, [(*T, exact), (*F, lp(w_bar, F, [(*T, exact)]) * (1 + 1e-12) + 1e-12)])
    assert point.value < best - 10 * tol
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.replica_gap < -10 * tol
    assert not ver.verified
    assert any("below the least training loss" in m for m in ver.messages), ver.messages


def test_an_answer_that_lowers_the_replica_loss_within_the_tolerance_is_not_verified():
    """As the first test, but the answer uses the replica's tolerance downwards: xi_hat 0.99 tol below the
    replica's hinges (a replica loss 0.99 tol under the least, each replica test passes) shrinks the budget,
    and the best follower at that budget has an objective 7 tol below the least over the exact follower
    optima (independent oracle: tests/oracles.lp). The least objective was only recomputed at the exact budget
    when the answer's budget lay above it."""
    from oracles import lp

    built, T, V, F, w_bar, replica = _diabetes_pes_at_large_multiplier()
    s, tol = built.split, 1e-5
    budget = 1.2 * (replica.value - 0.99 * tol)
    flipped_min = bilevel.hinge_lp(w_bar, F, [(*T, budget)]).value
    point = bilevel.hinge_lp(w_bar, V, [(*T, budget), (*F, flipped_min * (1 + 1e-12))])
    exact = 1.2 * lp(w_bar, T) * (1 + 1e-12)
    best = lp(w_bar, V, [(*T, exact), (*F, lp(w_bar, F, [(*T, exact)]) * (1 + 1e-12) + 1e-12)])
    assert point.value < best - 5 * tol
    model = built.model
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    for i, h in enumerate(bilevel.hinge(*T, replica.w, replica.b)):
        model.xi_hat[i].set_value(float(h) - 0.99 * tol, skip_validation=True)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.inner_gap <= tol and ver.budget_violation <= tol and -tol <= ver.replica_gap < 0  # each test passes
    assert not ver.verified and len(ver.messages) == 1 and "least any exact follower optimum" in ver.messages[0], \
        ver.messages


def test_a_w_bar_outside_its_bounds_is_not_verified():
    """The optimistic model's w_bar lies in [0, 1]; a solution with w_bar_0 = 1.5 was checked at w_bar clipped to
    the bounds and verified without a word. The follower (w, b) here is the best training optimum (oracle:
    tests/oracles.lp) at the clipped w_bar (1, 0.5), so every other check passes."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(1)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    clipped = np.array([1.0, 0.5])
    least = lp(clipped, (X_t, y_t))
    point = bilevel.hinge_lp(clipped, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    assert bilevel.hinge(X_t, y_t, point.w, point.b).mean() <= least + 1e-8
    for var in model.component_data_objects(pyo.Var):
        var.set_value(0.0, skip_validation=True)
    for w_bar_0, expected in ((1.0, True), (1.0 + 1e-7, True), (1.5, False), (float("inf"), False)):
        for j, value in enumerate((w_bar_0, 0.5)):
            model.w_bar[j].set_value(value, skip_validation=True)
            model.w[j].set_value(float(point.w[j]), skip_validation=True)
        model.b.set_value(float(point.b), skip_validation=True)
        for k, h in zip(model.g, bilevel.hinge(X_v, y_v, point.w, point.b)):
            model.g[k].set_value(float(h), skip_validation=True)
        ver = bilevel.verify_model(model)
        assert ver.verified is expected, (w_bar_0, ver.messages)
        assert expected or any("w_bar leaves its bounds" in m for m in ver.messages), ver.messages


def test_a_missing_or_nan_value_in_a_checked_variable_is_named():
    """A pessimistic model whose kappa, lam or b_hat has no value raised a bare TypeError, g a Pyomo error,
    and NaN in xi_hat or w_hat an InputError about "right-hand sides" or "w and b"; each is now an InputError
    naming the variable (the point loaded first is verified, so the failure is the variable's)."""
    from oracles import tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(0)
    flipped = np.arange(len(y_v))
    T, V, F = (X_t, y_t), (X_v, y_v), (X_v[flipped], -y_v[flipped])
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, flipped, epsilon=0.2)
    w_bar = np.array([0.5, 0.5])
    replica = bilevel.hinge_lp(w_bar, T)
    budget = 1.2 * replica.value
    flipped_min = bilevel.hinge_lp(w_bar, F, [(*T, budget)]).value
    point = bilevel.hinge_lp(w_bar, V, [(*T, budget), (*F, flipped_min * (1 + 1e-12))])
    for name in ("kappa", "lam", "b_hat", "g", "xi_hat", "w_hat"):
        for bad in (None, float("nan")):
            load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
            assert bilevel.verify_model(model).verified
            var = getattr(model, name)
            var[next(iter(var))].set_value(bad, skip_validation=True)
            with pytest.raises(bilevel.InputError, match=rf"\b{name}\b"):
                bilevel.verify_model(model)


def test_a_nan_or_missing_kkt_multiplier_fails_the_verification_and_is_named():
    """The KKT variables (beta, mu, xi; alpha, v) do not enter the re-solve the verdict rests on, so a NaN or
    missing one only made the residuals NaN, or, through Python's max, hid it (a complementarity residual of
    0.0 with beta NaN), and the point was verified. Oracle: the same point with every value finite is verified
    (the KKT start, a point of Eq. (21) / (25) at w_bar_ub), so the failure is the variable's."""
    from oracles import tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(0)
    models = [bilevel.build_optimistic_model(X_t, y_t, X_v, y_v),
              bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, np.arange(len(y_v)), epsilon=0.2)]
    for model in models:
        names = ["beta", "mu_plus", "mu_minus", "xi"] + (["alpha", "v"] if hasattr(model, "alpha") else [])
        start = bilevel.kkt_start(model)
        for name in names:
            for bad in (float("nan"), None, float("inf")):
                for var, value in start:
                    var.set_value(value, skip_validation=True)
                assert bilevel.verify_model(model).verified
                var = getattr(model, name)
                var[next(iter(var))].set_value(bad, skip_validation=True)
                ver = bilevel.verify_model(model)  # a report, not an exception
                assert not ver.verified, (name, bad)
                assert any(f"KKT variables {name} " in m for m in ver.messages), ver.messages
                if bad is None or np.isnan(bad):  # reported as undefined, not hidden as a finite residual
                    assert np.isnan(ver.max_complementarity_violation) or np.isnan(ver.stationarity_residual)


def test_a_follower_inside_the_box_tolerance_with_a_training_loss_below_the_least_is_not_verified():
    """The box tolerance is in w's units (1e-5), the others in hinge units. With features of scale 1000 a follower
    0.99 tol outside the box (a training optimum at the enlarged box, the worst validation tie there so that its
    objective is not below the best at w_bar) has a training loss 0.014 below the least one at w_bar (independent
    oracle: tests/oracles.lp), which no point of the box reaches; it was verified. The exact best tie at w_bar is."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(1)
    X_t, X_v, tol = 1000 * X_t, 1000 * X_v, 1e-5
    T = (X_t, y_t)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar = np.array([0.5, 0.3]) / 1000
    wide = w_bar + 0.99 * tol
    outside = bilevel.hinge_lp(wide, (X_v, -y_v), [(*T, bilevel.hinge_lp(wide, T).value * (1 + 1e-12) + 1e-12)])
    least = lp(w_bar, T)
    inside = bilevel.hinge_lp(w_bar, (X_v, y_v), [(*T, least * (1 + 1e-12) + 1e-12)])
    assert bilevel.hinge(*T, outside.w, outside.b).mean() < least - 1000 * tol
    for point, expected in ((outside, False), (inside, True)):
        for var in model.component_data_objects(pyo.Var):
            var.set_value(0.0, skip_validation=True)
        for j in range(len(w_bar)):
            model.w_bar[j].set_value(float(w_bar[j]), skip_validation=True)
            model.w[j].set_value(float(point.w[j]), skip_validation=True)
        model.b.set_value(float(point.b), skip_validation=True)
        for k, h in zip(model.g, bilevel.hinge(X_v, y_v, point.w, point.b)):
            model.g[k].set_value(float(h), skip_validation=True)
        for k, h in zip(model.xi, bilevel.hinge(*T, point.w, point.b)):
            model.xi[k].set_value(float(h), skip_validation=True)
        ver = bilevel.verify_model(model, tolerance=tol)
        assert ver.box_violation <= tol and ver.objective_recomputed >= ver.best_objective_at_w_bar - tol
        assert ver.verified is expected, ver.messages
        assert expected or any("below the least one at w_bar" in m for m in ver.messages), ver.messages


def test_solution_w_bar_refuses_an_unsolved_model_or_another_object():
    # an unsolved model gave the box [nan, nan] without a word; None gave an AttributeError
    from bilevel.verify import solution_w_bar
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(4, 2)), np.array([1.0, -1.0, 1.0, -1.0])
    model = bilevel.build_optimistic_model(X, y, X, y)
    with pytest.raises(bilevel.InputError, match="no solution"):
        solution_w_bar(model)
    for other in (None, np.zeros(2), pyo.ConcreteModel()):
        with pytest.raises(bilevel.InputError, match="solution_w_bar needs a model built by"):
            solution_w_bar(other)


def test_a_follower_a_little_above_the_least_training_loss_is_not_verified():
    """The follower's optimality is the heart of the verdict: a (w, b) whose training loss lies 1e-4 (10 tol)
    above the least one at w_bar (oracle: tests/oracles.lp, sharing no code with the package) must fail, by its
    inner gap alone. No other test put a follower between the tolerance and a gross error, so a verdict
    that allowed the inner gap 100 times the tolerance (a mutant of verify_model) passed the suite."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(1)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar, tol = np.array([0.6, 0.4]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    # The follower optimum with the least validation hinge, then b moved until the training loss is 1e-4 higher.
    best = bilevel.hinge_lp(w_bar, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    load_optimistic(model, w_bar, best.w, best.b, X_v, y_v)
    assert bilevel.verify_model(model, tolerance=tol).verified
    gap = lambda b: bilevel.hinge(X_t, y_t, best.w, b).mean() - least  # noqa: E731
    lo, hi = best.b, best.b + 1.0
    assert gap(hi) > 1e-4
    for _ in range(60):  # bisection for gap(b) = 1e-4 (the loss is convex in b, minimal at best.b)
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if gap(mid) < 1e-4 else (lo, mid)
    assert 0.9e-4 < gap(hi) < 1.1e-4
    load_optimistic(model, w_bar, best.w, hi, X_v, y_v)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.inner_gap == pytest.approx(gap(hi), abs=1e-8)
    assert not ver.verified and any("not optimal for the follower" in m for m in ver.messages), ver.messages


def test_a_follower_below_the_box_in_a_feature_without_data_is_not_verified():
    """w_j < -w_bar_j is outside the box as much as w_j > w_bar_j. In a feature whose values are all 0 no loss
    changes with w_j, so only the box check can see it (the training loss cannot fall below the least): a box
    check on w - w_bar alone (a mutant of verify_model) verified w_2 = -w_bar_2 - 0.01. The steps of 3e-5 (3
    tolerances) out on either side pin the check at its own tolerance: with the steps of 0.01 alone, exactly 1e3
    tolerances, a mutant allowing the box 1e3 tolerances passed the suite, up to rounding."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(2)
    X_t, X_v = np.c_[X_t, np.zeros(len(X_t))], np.c_[X_v, np.zeros(len(X_v))]
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar = np.array([0.7, 0.5, 0.3])
    least = lp(w_bar, (X_t, y_t))
    best = bilevel.hinge_lp(w_bar, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    for w_2, expected in ((-0.3, True), (0.3, True), (0.31, False), (-0.31, False), (0.30003, False),
                          (-0.30003, False)):
        w = np.r_[best.w[:2], w_2]
        load_optimistic(model, w_bar, w, best.b, X_v, y_v)
        ver = bilevel.verify_model(model)
        assert ver.verified is expected, (w_2, ver.messages)
        assert expected or (ver.box_violation == pytest.approx(abs(w_2) - 0.3, abs=1e-12)
                            and any("leaves the box" in m for m in ver.messages)), ver.messages


def test_a_reported_objective_three_tolerances_off_the_recomputed_one_is_not_verified():
    """The model's objective (mean of the validation losses ``g``) must equal the validation hinge recomputed from
    ``(w, b)``: a ``g`` raised so that the mean moves by 3e-5 (3 tol; still ``g >= hinge``, so every row holds)
    must fail with the message naming both values, and the loaded optimum must pass. A mutant allowing this check
    1e3 tol passed the suite. Oracle: tests/oracles.lp's least training loss and the hinge recomputed here."""
    from oracles import lp, tiny_instance

    X_t, y_t, X_v, y_v = tiny_instance(2)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar, tol = np.array([0.7, 0.5]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    best = bilevel.hinge_lp(w_bar, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    recomputed = float(np.mean(bilevel.hinge(X_v, y_v, best.w, best.b)))
    for excess, expected in ((0.0, True), (3 * tol, False)):
        load_optimistic(model, w_bar, best.w, best.b, X_v, y_v)
        first = next(iter(model.g))
        model.g[first].set_value(model.g[first].value + excess * len(y_v), skip_validation=True)
        ver = bilevel.verify_model(model, tolerance=tol)
        assert ver.objective_recomputed == pytest.approx(recomputed, abs=1e-12)
        assert ver.objective_reported == pytest.approx(recomputed + excess, abs=1e-12)
        assert ver.verified is expected, (excess, ver.messages)
        assert expected or any("differs from the recomputed" in m for m in ver.messages), ver.messages


def test_a_replica_a_little_above_the_least_training_loss_is_not_verified():
    """A training-optimal replica (replica="optimal", epsilon > 0) whose loss lies 1e-4 (10 tol) above the least
    training loss at w_bar (oracle: tests/oracles.lp) must fail. The flipped points here are the training points
    with their own labels, so the follower's optimum (the training optima) does not move with its budget and
    every other check passes: only the replica check can see it, and a mutant allowing it 100 tol passed the
    suite."""
    from oracles import lp, tiny_instance

    X_t, y_t, _, _ = tiny_instance(3)
    X_v, y_v, Vf = X_t.copy(), -y_t, np.arange(len(y_t))
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, Vf, epsilon=0.3)
    w_bar, tol = np.array([0.8, 0.3]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    best = bilevel.hinge_lp(w_bar, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    for excess, expected in ((0.0, True), (1e-4, False)):
        load_pessimistic(model, w_bar, best.w, best.b, (best.w, best.b), X_t, y_t, X_v, -y_v, X_v, y_v)
        model.xi_hat[0].set_value(model.xi_hat[0].value + excess * len(y_t), skip_validation=True)  # still >= hinge
        ver = bilevel.verify_model(model, tolerance=tol)
        assert ver.replica_gap == pytest.approx(excess, abs=1e-8)
        assert ver.verified is expected, (excess, ver.messages)
        assert expected or (len(ver.messages) == 1 and "should be training-optimal" in ver.messages[0]), ver.messages


def test_a_follower_a_little_over_its_budget_or_a_replica_a_little_outside_the_box_is_not_verified():
    """Pessimistic, epsilon = 0.3, training-optimal replica. The validation set is the training set with its own
    labels, so the flipped objective opposes the training loss: a follower 1e-4 (10 tol) over its budget
    (1 + epsilon) v*(w_bar) has a lower flipped loss and a higher objective, and only the budget check can see it.
    A replica w_hat outside the box by 1e-4 in a feature whose values are all 0 changes no loss, and only the
    replica's box check can see it. Mutants allowing either 100 tol passed the suite. Oracle: tests/oracles.lp."""
    from oracles import lp, tiny_instance

    X_t, y_t, _, _ = tiny_instance(4)
    X_t = np.c_[X_t, np.zeros(len(X_t))]
    X_v, y_v, Vf = X_t.copy(), y_t.copy(), np.arange(len(y_t))
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, Vf, epsilon=0.3)
    w_bar, tol = np.array([0.8, 0.3, 0.2]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    replica = bilevel.hinge_lp(w_bar, (X_t, y_t))
    assert replica.value == pytest.approx(least, abs=1e-9)
    budget = 1.3 * least
    for excess, replica_w_2, expected, message in ((0.0, 0.2, True, None), (1e-4, 0.2, False, "exceeds the budget"),
                                                    (0.0, -0.2 - 1e-4, False, "w_hat leaves the box")):
        point = bilevel.hinge_lp(w_bar, (X_v, -y_v), [(X_t, y_t, budget + excess)])
        w_hat = np.r_[replica.w[:2], replica_w_2]
        load_pessimistic(model, w_bar, point.w, point.b, (w_hat, replica.b), X_t, y_t, X_v, -y_v, X_v, y_v)
        ver = bilevel.verify_model(model, tolerance=tol)
        assert ver.budget_violation == pytest.approx(excess, abs=1e-8)
        assert ver.verified is expected, (excess, replica_w_2, ver.messages)
        assert expected or any(message in m for m in ver.messages), ver.messages
