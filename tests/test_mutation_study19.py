"""Mutation study 19 of the verification and the tie re-solves (bilevel/verify.py: verify_model re-solves the
follower's LP at the returned w_bar and checks that the answer is a true lower-level optimum; bilevel/ties.py:
optimistic_tie_range, the lexicographic min / max of a secondary criterion over the optimistic optimal set). 110
mutants (68 of verify.py, 42 of ties.py: flipped comparisons, tolerances moved by orders of magnitude, dropped
checks and branches, swapped bounds, signs and fields); 72 were killed by the modules' tests (tests/test_verify.py,
tests/test_ties.py, the mutation studies 11 and 13, the input-error and HiGHS-fault tests) and 38 survived them
(of 7 of these also run against the degenerate-MILP, warm-start, tune and KKT-enumeration tests, 2 die in
tests/test_kkt_enumeration.py's exact-budget test, kept here as fast pins). Each test here kills one or more of 33
of the 38, against the documented behaviour (the docstrings) and an independent
oracle: scipy's linprog (tests/oracles.lp, optimistic_value), the KKT enumeration of tests/kkt_enumeration.py, and
closed forms on one- and two-feature instances of 2-6 points written out here. The other 5 are equivalent or pin
no documented behaviour: no face round-off slack (only matters when HiGHS calls the exact optimal face empty),
the NaN test of _check_solution_values dropped (NaN w_bar is still an InputError, from solution_w_bar), the
built-in criteria on the clone of result.model instead of the model built around the optimum (the same extremes,
documented as a speed-up only), best_objective_at_w_bar at the exact budget (the docstring names no budget), and
the box multipliers' complementarity not divided by their big-M (an undocumented normalisation)."""
from __future__ import annotations

import numpy as np
import pytest

import bilevel
from model_points import load_optimistic, load_pessimistic
from oracles import lp, optimistic_value, tiny_instance


def test_best_objective_at_w_bar_is_the_least_over_the_exact_training_optima():
    """``best_objective_at_w_bar`` is the least outer objective among the follower's optima at ``w_bar`` (the
    Verification docstring), at the optimal face itself and not at a face relaxed by the verification tolerance:
    a mutant giving the face ``tolerance`` of slack reported a lower value at ``tolerance=1e-2`` (and would call a
    non-existent tie better). Oracle: tests/oracles.optimistic_value (linprog: least validation hinge among the
    training optima)."""
    X_t, y_t, X_v, y_v = tiny_instance(1)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    for w_bar in (np.array([0.6, 0.4]), np.array([0.2, 0.9])):
        least = lp(w_bar, (X_t, y_t))
        point = bilevel.hinge_lp(w_bar, (X_t, y_t))
        load_optimistic(model, w_bar, point.w, point.b, X_v, y_v)
        ver = bilevel.verify_model(model, tolerance=1e-2)
        assert ver.train_loss_min == pytest.approx(least, abs=1e-8)
        assert ver.best_objective_at_w_bar == pytest.approx(optimistic_value(w_bar, X_t, y_t, X_v, y_v), abs=1e-6)


EPS = 0.2


def _steep():
    """tiny_instance(4) with 6 training and 4 validation points, the first validation point flipped, at the box
    (0.3, 0.8): the follower's least flipped loss falls with its budget by a multiplier of about 8.5, and the least
    outer objective over its optima by about 4.5 (found by a search with tests/oracles.lp). Returns the model, the
    (X, y) pairs of training, validation and flipped points, w_bar and the least training loss (linprog)."""
    X_t, y_t, X_v, y_v = tiny_instance(4, n_t=6, n_v=4)
    flipped = np.array([0])
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, flipped, epsilon=EPS)
    w_bar = np.array([0.3, 0.8])
    return model, (X_t, y_t), (X_v, y_v), (X_v[flipped], -y_v[flipped]), w_bar, lp(w_bar, (X_t, y_t))


def _raise_replica(model, n_t, excess):
    """Raise the replica's mean loss by ``excess`` (its first xi_hat; still above its hinge)."""
    model.xi_hat[0].set_value(model.xi_hat[0].value + excess * n_t, skip_validation=True)


def test_an_objective_bought_with_a_replica_within_tolerance_is_not_verified():
    """A training-optimal replica 0.9 tol above the least training loss passes its own check but inflates the
    follower's budget by 1.08 tol; the follower optimum with the least objective at that budget lies about 4.9 tol
    below the least outer objective over the exact follower optima (budget (1 + epsilon) v*(w_bar), the Verification
    docstring) and must not be verified. A mutant that re-checked at the exact budget only when the budgets differ by
    more than 1e-3 relative (in place of 1e-12) verified it. Oracle: tests/oracles.lp at the exact budget."""
    model, T, V, F, w_bar, least = _steep()
    tol = 1e-5
    replica = bilevel.hinge_lp(w_bar, T)
    budget = (1 + EPS) * (least + 0.9 * tol)
    phi = lp(w_bar, F, [(*T, budget)])
    point = bilevel.hinge_lp(w_bar, V, [(*T, budget), (*F, phi * (1 + 1e-12))])
    exact = (1 + EPS) * least
    best_exact = lp(w_bar, V, [(*T, exact * (1 + 1e-12)), (*F, lp(w_bar, F, [(*T, exact)]) + 1e-12)])
    assert point.value < best_exact - 2 * tol
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    _raise_replica(model, len(T[1]), 0.9 * tol)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.replica_gap == pytest.approx(0.9 * tol, abs=1e-9)
    assert not ver.verified
    assert any("least any exact follower optimum" in m for m in ver.messages), ver.messages


def test_an_exact_follower_optimum_with_a_replica_within_tolerance_is_verified():
    """The follower optimum with the least objective at the exact budget (1 + epsilon) v*(w_bar) is bilevel-feasible;
    with a replica 0.9 tol above the least training loss (within its tolerance) it must be verified: its flipped
    loss is judged against the exact budget too, not only the inflated one, where the least flipped loss lies about
    9 tol lower. A mutant dropping ``inner_opt = max(inner_opt, flipped_exact)`` reported an inner gap of ~9 tol and
    failed it. Oracle: tests/oracles.lp (the flipped optimum at the exact budget)."""
    model, T, V, F, w_bar, least = _steep()
    tol = 1e-5
    replica = bilevel.hinge_lp(w_bar, T)
    exact = (1 + EPS) * least
    phi_exact = lp(w_bar, F, [(*T, exact)])
    point = bilevel.hinge_lp(w_bar, V, [(*T, exact), (*F, phi_exact * (1 + 1e-12) + 1e-12)])
    assert bilevel.hinge(*F, point.w, point.b).mean() == pytest.approx(phi_exact, abs=1e-8)
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    _raise_replica(model, len(T[1]), 0.9 * tol)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.inner_optimum == pytest.approx(phi_exact, abs=1e-7)
    assert ver.inner_gap <= tol and ver.verified, ver.messages


def test_a_replica_far_below_the_least_training_loss_is_reported_with_its_true_budget():
    """A replica whose xi_hat are half the least training loss (below its hinges) gives a budget (1 + epsilon) 0.6 v*
    below the least training loss at w_bar: verify_model never raises for a failed check (its docstring), reports
    the replica infeasible, and the budget violation against the replica's own budget (1 + epsilon) mean(xi_hat).
    Mutants: the follower's LP at that budget unguarded (``budget_lp = budget``: SolverError, infeasible at every
    slack) and the budget violation against the guarded LP budget (reported about 0.4 v* too small). Oracle:
    tests/oracles.lp and the hinge recomputed here."""
    model, T, V, F, w_bar, least = _steep()
    exact = (1 + EPS) * least
    point = bilevel.hinge_lp(w_bar, V, [(*T, exact), (*F, lp(w_bar, F, [(*T, exact)]) * (1 + 1e-12) + 1e-12)])
    replica = bilevel.hinge_lp(w_bar, T)
    load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
    for i in model.xi_hat:
        model.xi_hat[i].set_value(0.5 * least, skip_validation=True)
    ver = bilevel.verify_model(model)
    train_loss = bilevel.hinge(*T, point.w, point.b).mean()
    assert ver.budget == pytest.approx((1 + EPS) * 0.5 * least, rel=1e-12)
    assert ver.budget_violation == pytest.approx(train_loss - (1 + EPS) * 0.5 * least, abs=1e-9)
    assert not ver.verified and any("replica is not feasible" in m for m in ver.messages), ver.messages


def test_a_replica_whose_xi_hat_lie_below_its_hinges_is_not_verified():
    """The replica must be feasible: its mean xi_hat not below its mean hinge loss (the Verification docstring). A
    replica (w_hat, b_hat) = (0, 0), hinge 1 at every point, with xi_hat all at the least training loss passes the
    other replica checks (its loss is the least one); a mutant dropping the hinge check verified it. Oracle:
    tests/oracles.lp and the hinge of (0, 0), 1."""
    model, T, V, F, w_bar, least = _steep()
    exact = (1 + EPS) * least
    point = bilevel.hinge_lp(w_bar, V, [(*T, exact), (*F, lp(w_bar, F, [(*T, exact)]) * (1 + 1e-12) + 1e-12)])
    load_pessimistic(model, w_bar, point.w, point.b, (np.zeros(2), 0.0), *T, *F, *V)
    for i in model.xi_hat:
        model.xi_hat[i].set_value(least, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.replica_hinge == pytest.approx(1.0, abs=1e-12) and ver.replica_gap == pytest.approx(0.0, abs=1e-7)
    assert not ver.verified and any("mean xi_hat" in m for m in ver.messages), ver.messages


def test_lambda_is_lam_over_kappa_and_touches_its_bound_within_a_relative_1e_6():
    """``lambda_value`` is Eq. (25)'s ``lambda = lam / kappa`` (the normalised multipliers of bilevel.pessimistic:
    ``kappa + lam = 1``) and ``lambda_at_bound`` says whether it touches ``lambda_bound``, with ``kappa`` at its
    lower bound ``1/(1 + lambda_bound)`` within a relative 1e-6 (bilevel.pessimistic.at_lambda_bound). Mutants:
    ``kappa = 1`` (lambda = lam) and ``lam > lambda_bound`` (a lambda 1e-8 relative below the bound not at it)."""
    model, T, V, F, w_bar, least = _steep()
    exact = (1 + EPS) * least
    point = bilevel.hinge_lp(w_bar, V, [(*T, exact), (*F, lp(w_bar, F, [(*T, exact)]) * (1 + 1e-12) + 1e-12)])
    replica = bilevel.hinge_lp(w_bar, T)
    bound = model.bilevel_info["lambda_bound"]
    for kappa, at_bound in ((0.25, False), (1.0 / (1.0 + bound) * (1 + 1e-8), True)):
        load_pessimistic(model, w_bar, point.w, point.b, (replica.w, replica.b), *T, *F, *V)
        model.kappa.set_value(kappa, skip_validation=True)
        model.lam.set_value(1.0 - kappa, skip_validation=True)
        ver = bilevel.verify_model(model)
        assert ver.lambda_value == pytest.approx((1.0 - kappa) / kappa, rel=1e-12)
        assert ver.lambda_bound == bound and ver.lambda_at_bound is at_bound


def _bisect(f, lo, hi, target):
    """x in [lo, hi] with f(x) = target for an increasing f (60 halvings)."""
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return hi


def test_a_follower_three_tolerances_above_the_least_training_loss_fails_and_reports_the_least():
    """A (w, b) whose training loss lies 3 tol above the least one at w_bar is not optimal for the follower: not
    verified, with ``inner_gap`` 3 tol, ``inner_optimum`` and ``train_loss_min`` the least training loss and
    ``train_loss`` its own (the Verification docstring). Mutants: the inner gap allowed 10 tol (verified), and the
    least loss or the follower's optimum reported as the follower's own loss. Oracle: tests/oracles.lp."""
    X_t, y_t, X_v, y_v = tiny_instance(1)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar, tol = np.array([0.6, 0.4]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    best = bilevel.hinge_lp(w_bar, (X_v, y_v), [(X_t, y_t, least * (1 + 1e-12))])
    b = _bisect(lambda b: bilevel.hinge(X_t, y_t, best.w, b).mean() - least, best.b, best.b + 1.0, 3 * tol)
    loss = bilevel.hinge(X_t, y_t, best.w, b).mean()
    assert 2.9 * tol < loss - least < 3.1 * tol
    load_optimistic(model, w_bar, best.w, b, X_v, y_v)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.train_loss == pytest.approx(loss, abs=1e-12) and ver.inner_value == pytest.approx(loss, abs=1e-12)
    assert ver.train_loss_min == pytest.approx(least, abs=1e-8) and ver.inner_optimum == pytest.approx(least, abs=1e-8)
    assert ver.inner_gap == pytest.approx(loss - least, abs=1e-8)
    assert not ver.verified and any("not optimal for the follower" in m for m in ver.messages), ver.messages


def test_a_follower_three_tolerances_below_the_least_training_loss_is_not_verified():
    """Features of scale 100: a follower w from the box grown by less than tol (so within the box tolerance) has a
    training loss 3 tol below the least at w_bar, which no point of the box reaches: not verified (the
    Verification docstring: a training loss not below the least one at w_bar), with a negative (one-sided) inner
    gap. Mutants: the check allowing 10 tol (verified), and ``inner_gap = abs(...)``. Oracle: tests/oracles.lp at
    w_bar and at the grown box."""
    X_t, y_t, X_v, y_v = tiny_instance(0)
    X_t, X_v = 100 * X_t, 100 * X_v
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    w_bar, tol = np.array([0.005, 0.002]), 1e-5
    least = lp(w_bar, (X_t, y_t))
    drop = lambda d: least - lp(w_bar + d, (X_t, y_t))  # noqa: E731
    assert drop(0.9 * tol) > 3 * tol
    d = _bisect(drop, 0.0, 0.9 * tol, 3 * tol)
    point = bilevel.hinge_lp(w_bar + d, (X_t, y_t))
    assert 2.9 * tol < least - point.value < 3.1 * tol
    load_optimistic(model, w_bar, point.w, point.b, X_v, y_v)
    ver = bilevel.verify_model(model, tolerance=tol)
    assert ver.box_violation <= tol and ver.inner_gap < 0
    assert not ver.verified and any("below the least one" in m for m in ver.messages), ver.messages


def _solved_optimistic():
    """The optimistic model of tiny_instance(1), solved, with its data."""
    X_t, y_t, X_v, y_v = tiny_instance(1)
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    bilevel.solve_model(model)
    return model, X_t, y_t


def test_residuals_of_a_solved_model_are_zero_and_a_perturbed_multiplier_shows_in_them():
    """At a solved optimistic model the KKT residuals recomputed from its values (module docstring) vanish; a box
    multiplier mu_minus_0 raised by 0.3 leaves the stationarity row of w_0, ``-(sum_i beta_i y_i x_i) + mu+ - mu-``
    (Eq. (21)'s KKT system, written out here), at -0.3 and a margin row at full dual weight (``n beta_i = 1``) with
    slack s > 1/n shows in the complementarity residual as min(1, s). Mutants: the box multipliers' sign flipped in
    stationarity, its residual as max(station) without abs (blind to -0.3), the complementarity residual as the
    least pair (0) and with beta unscaled (min(beta_i, s) = 1/n), and ``1 + n beta`` in the xi pair."""
    model, X_t, y_t = _solved_optimistic()
    ver = bilevel.verify_model(model)
    assert ver.verified and ver.max_complementarity_violation <= 1e-6 and ver.stationarity_residual <= 1e-6
    n = len(y_t)
    vals = {name: np.array([getattr(model, name)[k].value for k in getattr(model, name)], dtype=float)
            for name in ("beta", "mu_plus", "mu_minus", "w", "xi")}
    assert np.abs(vals["mu_plus"] - vals["mu_minus"]).max() > 1e-3  # an active box: the sign of mu matters
    assert (n * vals["beta"] > 1 - 1e-6).any()  # a point inside the margin at full weight: the xi pair matters
    station = -(vals["beta"] * y_t) @ X_t + vals["mu_plus"] - vals["mu_minus"]
    assert np.abs(station).max() <= 1e-6 and abs(vals["beta"] @ y_t) <= 1e-6
    model.mu_minus[0].set_value(vals["mu_minus"][0] + 0.3, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.stationarity_residual == pytest.approx(0.3, abs=1e-6)
    model.mu_minus[0].set_value(vals["mu_minus"][0], skip_validation=True)
    slack = y_t * (X_t @ vals["w"] - model.b.value) - 1 + vals["xi"]
    i = int(np.argmax(slack))
    assert slack[i] > 1.0 / n + 0.05 and vals["beta"][i] <= 1e-9
    model.beta[i].set_value(1.0 / n, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.max_complementarity_violation == pytest.approx(min(1.0, slack[i]), abs=1e-6)


@pytest.mark.parametrize("tolerance", [0.0, -1e-5])
def test_verify_model_refuses_a_tolerance_that_is_not_positive(tolerance):
    """``tolerance`` must be a positive number (InputError naming it, verify_model's docstring): a mutant accepting 0
    verified nothing but an exact answer (HiGHS's are only within its feasibility tolerances). Oracle: the
    docstring."""
    model, _, _ = _solved_optimistic()
    with pytest.raises(bilevel.InputError, match="tolerance"):
        bilevel.verify_model(model, tolerance=tolerance)


def _tiny_tie():
    """p = 1, training points -1 / +1 and validation points -2 / +2 with their signs as labels (tests/test_ties.py's
    closed form): for w_bar < 1 the training optima are w = w_bar, |b| <= 1 - w_bar; the validation hinge is 0 iff
    2 w_bar - |b| >= 1. The optimistic optimum 0 is reached exactly where |b| <= min(1 - w_bar, 2 w_bar - 1), so b
    ranges over [-1/3, 1/3] on the optimal set (at w_bar = 2/3) and over [-1, 1] on the bilevel-feasible set."""
    return np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0]), np.array([[-2.0], [2.0]]), np.array([-1.0, 1.0])


def test_a_callable_criterion_ranges_over_the_optimal_set_and_is_verified_at_verify_tolerance():
    """A callable criterion (here ``b``) is minimised and maximised over the optimal set, with the tie row
    ``validation_hinge <= F* + tolerance`` on the clone of ``result.model`` (optimistic_tie_range's docstring): b
    spans [-1/3, 1/3] (closed form of ``_tiny_tie``; the KKT enumeration at the same ceiling agrees), and each
    extreme is verified at ``verify_tolerance``. Kills a mutant verifying the extremes at max(verify_tolerance, 1e-2)
    (and, with tests/test_ties.py, those dropping or loosening the clone's tie row, which reach |b| = 1)."""
    from kkt_enumeration import optimistic_tie_extremes

    X_t, y_t, X_v, y_v = _tiny_tie()
    opt = bilevel.tune(X_t, y_t, X_v, y_v, "optimistic", threads=1)
    tie = bilevel.optimistic_tie_range(opt, lambda m: m.b, threads=1, verify_tolerance=1e-4)
    low, high = optimistic_tie_extremes(X_t, y_t, X_v, y_v, {"b": 1.0}, tie.reference_objective + tie.tolerance)
    assert (low, high) == pytest.approx((-1.0 / 3, 1.0 / 3), abs=1e-5)
    assert tie.criterion == "<lambda>" and tie.low.sense == "min" and tie.high.sense == "max"
    for sol, value in ((tie.low, low), (tie.high, high)):
        assert sol.criterion_value == pytest.approx(value, abs=1e-5) and sol.b == pytest.approx(value, abs=1e-5)
        assert sol.objective <= tie.reference_objective + tie.tolerance + 1e-9
        assert sol.status == "optimal" and sol.verification.verified and sol.verification.tolerance == 1e-4


def test_a_root_solved_re_solve_reports_the_nodes_of_both_runs(monkeypatch):
    """A re-solve that HiGHS ends "optimal" at the root (faked here: node count 1) is solved again without presolve,
    in the ``mip_max_nodes`` left (50 - 1), and its ``nodes`` then sum both runs (optimistic_tie_range's
    docstring). Mutants reporting the second run's nodes only, and giving the check the full node limit again,
    passed the suite. Oracle: the node counts and options recorded from the runs themselves, and the closed-form
    extremes 0.5 and 1 of ``_tiny_tie``."""
    import dataclasses

    import bilevel.ties as ties_module

    real, runs, limits = ties_module.solve_model, [], []

    def solve(model, **kw):
        info = real(model, **kw)
        if kw.get("options", {}).get("presolve") != "off":
            info = dataclasses.replace(info, status="optimal", nodes=1, options=dict(kw["options"]))
        runs.append(info.nodes)
        limits.append(kw["options"].get("mip_max_nodes"))
        return info

    monkeypatch.setattr(ties_module, "solve_model", solve)
    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)
    low, high = bilevel.optimistic_tie_range(opt, "sum_w_bar", threads=1, highs_options={"mip_max_nodes": 50})
    assert len(runs) == 4 and runs[0] == runs[2] == 1 and limits == [50, 49, 50, 49]
    assert (low.nodes, high.nodes) == (1 + runs[1], 1 + runs[3])
    assert (low.criterion_value, high.criterion_value) == pytest.approx((0.5, 1.0), abs=1e-5)


def test_a_result_with_a_non_finite_objective_is_refused():
    """optimistic_tie_range keeps the objective within ``tolerance`` of ``result.objective``: a result whose objective
    is NaN or infinite (no optimum to keep) is refused with an InputError before any solve. A mutant checking only
    for None went on to build and solve around it. Oracle: the docstring (a result that is not a proven optimum with
    a finite objective)."""
    import dataclasses

    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(bilevel.InputError, match="finite objective"):
            bilevel.optimistic_tie_range(dataclasses.replace(opt, objective=bad))


def test_a_root_solved_re_solve_with_no_nodes_left_is_a_solution_limit(monkeypatch):
    """With ``mip_max_nodes`` used up by the first run (faked: "optimal" at node 1 under ``mip_max_nodes=1``) the
    check without presolve cannot run, and the extreme is reported unproven as :func:`bilevel.solve_model` reports
    one: status ``"solution_limit"``, an infinite bound (-inf for the min, +inf for the max) and gap
    (optimistic_tie_range's docstring). A mutant reporting ``"time_limit"`` here passed the suite. Oracle: the
    docstring and the closed-form extremes 0.5 and 1 of ``_tiny_tie``, kept as found."""
    import dataclasses

    import bilevel.ties as ties_module

    real, runs = ties_module.solve_model, []

    def solve(model, **kw):
        runs.append(dict(kw.get("options", {})))
        return dataclasses.replace(real(model, **kw), status="optimal", nodes=1, options=dict(kw["options"]))

    monkeypatch.setattr(ties_module, "solve_model", solve)
    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)
    low, high = bilevel.optimistic_tie_range(opt, "sum_w_bar", threads=1, highs_options={"mip_max_nodes": 1})
    assert len(runs) == 2 and all(r.get("presolve") != "off" for r in runs)
    for sol, bound in ((low, -np.inf), (high, np.inf)):
        assert sol.status == "solution_limit" and sol.best_bound == bound and sol.gap == np.inf
    assert (low.criterion_value, high.criterion_value) == pytest.approx((0.5, 1.0), abs=1e-5)


def test_a_callable_criterion_returning_a_bool_is_refused():
    """A callable criterion must return a linear Pyomo expression or a number (InputError otherwise, naming the
    type); a bool, e.g. from a comparison evaluated in Python, is neither a criterion nor meant as the number 0 / 1.
    A mutant accepting bools (as ints) solved with a constant objective. Oracle: the docstring and the error's own
    wording."""
    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)
    for value in (True, False):
        with pytest.raises(bilevel.InputError, match="bool"):
            bilevel.optimistic_tie_range(opt, lambda m, value=value: value)


def test_a_pessimistic_result_and_a_zero_verify_tolerance_are_refused_before_any_solve(monkeypatch):
    """optimistic_tie_range needs an optimistic result, and ``verify_tolerance`` must be a number > 0 (InputError
    naming it, its docstring), both before any re-solve. Mutants: the mode check dropped (a pessimistic result was
    re-solved as an optimistic one), and ``verify_tolerance = 0`` accepted (an InputError about ``tolerance`` from
    verify_model after two re-solves). Oracle: the docstring."""
    import dataclasses

    import bilevel.ties as ties_module

    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)

    def no_solve(*args, **kwargs):
        raise AssertionError("a re-solve ran")

    monkeypatch.setattr(ties_module, "solve_model", no_solve)
    with pytest.raises(bilevel.InputError, match="optimistic"):
        bilevel.optimistic_tie_range(dataclasses.replace(opt, mode="pessimistic"))
    with pytest.raises(bilevel.InputError, match="verify_tolerance"):
        bilevel.optimistic_tie_range(opt, verify_tolerance=0.0)


def test_the_box_multiplier_of_a_tiny_feature_is_converted_with_its_scale():
    """The model's box multipliers of a tiny feature j are the duals divided by s_j = max |x_ij| (item 12 of
    bilevel.bigm; verify_model converts them with s_j): a model value mu+_1 = 0.5 on a feature of scale 1e-6 is the
    dual 0.5 s_1, so with every other multiplier 0 the stationarity residual is 0.5 s_1 (about 1e-6), not 0.5. A
    mutant ignoring the scale reported 0.5. Oracle: s_1 computed here from the data, and the stationarity row of
    Eq. (21)'s KKT system written out."""
    import warnings

    X_t, y_t, X_v, y_v = tiny_instance(2)
    X_t, X_v = X_t * [1.0, 1e-6], X_v * [1.0, 1e-6]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the tiny-feature warning
        model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    s_1 = np.abs(np.vstack([X_t, X_v])[:, 1]).max()
    w_bar = np.array([0.7, 0.5])
    point = bilevel.hinge_lp(w_bar, (X_t, y_t))
    load_optimistic(model, w_bar, point.w, point.b, X_v, y_v)
    model.mu_plus[1].set_value(0.5, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.stationarity_residual == pytest.approx(0.5 * s_1, rel=1e-9)


def test_the_budget_complementarity_shows_in_the_residual():
    """At a solved pessimistic model every KKT residual vanishes; lowering one follower loss xi_i (> delta) by
    delta leaves the epsilon budget row slack by delta / n while its multiplier lambda > 0: Eq. (25)'s
    complementarity ``lambda (budget - mean xi) = 0`` is violated and the residual must show it (every other pair
    still holds: row i's margin slack turns negative, and xi_i > 0 stays at full weight). A mutant dropping this
    pair reported ~0. Likewise a flipped point's margin row at full dual weight with slack s = 0.8 > 1/|V_f| shows
    as min(1, s) (a mutant with alpha unscaled by |V_f| reported 1/|V_f| = 0.5). Oracle: the complementarity
    written out here (lambda = lam / kappa, mean xi)."""
    X_t, y_t, X_v, y_v = tiny_instance(4, n_t=6, n_v=4)
    model = bilevel.build_pessimistic_model(X_t, y_t, X_v, y_v, np.array([0, 1]), epsilon=EPS)
    bilevel.solve_model(model)
    ver = bilevel.verify_model(model)
    assert ver.verified and ver.max_complementarity_violation <= 1e-6
    xi = np.array([model.xi[i].value for i in model.xi])
    lam = model.lam.value / model.kappa.value
    i, n, delta = int(np.argmax(xi)), len(xi), 0.05
    assert lam > 1e-2 and xi[i] > 2 * delta
    assert abs(ver.budget - xi.mean()) <= 1e-6  # the budget row is tight at the solution, as lambda > 0 needs
    model.xi[list(model.xi)[i]].set_value(xi[i] - delta, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.max_complementarity_violation >= 0.5 * min(lam / ver.lambda_bound, delta / n)
    model.xi[list(model.xi)[i]].set_value(xi[i], skip_validation=True)
    # A flipped point at full dual weight (|V_f| alpha_k / kappa = 1) whose loss v_k is raised by 0.8 above its
    # margin row: that row's slack s shows as min(1, s), and the pair (1 - |V_f| alpha_k / kappa) v_k stays 0.
    X_f, ybar = X_v[[0, 1]], -y_v[[0, 1]]
    w, b = np.array([model.w[j].value for j in model.w]), model.b.value
    v = np.array([model.v[k].value for k in model.v])
    slack = v + ybar * (X_f @ w - b) - 1
    k = int(np.argmax(slack))
    assert abs(slack[k]) <= 1e-6
    model.alpha[list(model.alpha)[k]].set_value(model.kappa.value / 2, skip_validation=True)
    model.v[list(model.v)[k]].set_value(v[k] + 0.8, skip_validation=True)
    ver = bilevel.verify_model(model)
    assert ver.max_complementarity_violation == pytest.approx(min(1.0, slack[k] + 0.8), abs=1e-6)


def test_a_training_optimal_follower_with_a_worse_tie_is_verified_and_names_the_better_tie():
    """``_tiny_tie`` at w_bar = 0.6: the training optima are w = 0.6, |b| <= 0.4 and the least validation hinge over
    them is 0 (|b| <= 0.2); the optimum b = 0.4 has validation hinge 0.1. It is a true follower optimum, so verified,
    with ``best_objective_at_w_bar`` 0 and a message naming the better tie (module docstring: the least outer
    objective among follower optima is reported). A mutant dropping that message passed the suite. Oracle: the
    closed form (hinges 0.2 and 0 at the validation points)."""
    X_t, y_t, X_v, y_v = _tiny_tie()
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    load_optimistic(model, np.array([0.6]), np.array([0.6]), 0.4, X_v, y_v)
    ver = bilevel.verify_model(model)
    assert ver.train_loss == pytest.approx(0.4) and ver.train_loss_min == pytest.approx(0.4, abs=1e-8)
    assert ver.objective_recomputed == pytest.approx(0.1) and ver.best_objective_at_w_bar == pytest.approx(0, abs=1e-7)
    assert ver.verified and len(ver.messages) == 1 and "did not pick the best tie" in ver.messages[0], ver.messages


def test_a_root_solved_re_solve_with_exactly_no_time_left_is_not_checked(monkeypatch):
    """A re-solve ending "optimal" at the root is checked without presolve only in the time left: with its run time
    faked at exactly the 10 s limit nothing is left, the check does not run, and the extreme is reported
    unproven (status ``"time_limit"``, infinite bound and gap; optimistic_tie_range's docstring). A mutant running
    the check while the time left is above -1 s passed the suite. Oracle: the docstring; the runs are recorded."""
    import dataclasses

    import bilevel.ties as ties_module

    real, runs = ties_module.solve_model, []

    def solve(model, **kw):
        runs.append(kw.get("time_limit"))
        info = real(model, **kw)
        return dataclasses.replace(info, status="optimal", nodes=0, seconds=10.0, options=dict(kw["options"]))

    opt = bilevel.tune(*_tiny_tie(), "optimistic", threads=1)
    monkeypatch.setattr(ties_module, "solve_model", solve)
    low, high = bilevel.optimistic_tie_range(opt, "sum_w_bar", threads=1, time_limit=10.0)
    assert runs == [10.0, 10.0]
    for sol in (low, high):
        assert sol.status == "time_limit" and sol.gap == np.inf and not np.isfinite(sol.best_bound)
