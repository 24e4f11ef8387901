"""Mutation study 15 of the KKT + big-M formulations (bilevel/kkt.py, bilevel/optimistic.py, bilevel/pessimistic.py):
each test kills a mutant that passed the tests of those modules, against the documented behaviour (the modules'
docstrings, Corollary 4 and Sections 3-4 and Appendix A of the pessimistic bilevel tuning paper) and an independent
oracle (the flipping rule y_k (x_k^T w - b) < 1 evaluated by hand on points of known margin, scipy's linprog
re-solving the inner LPs in tests/oracles.py, the exact KKT-state enumeration of tests/kkt_enumeration.py)."""
from __future__ import annotations

import numpy as np
import pytest
import pyomo.environ as pyo

import bilevel
from bilevel.pessimistic import flipped_set


def test_margin_flipping_takes_the_misclassified_and_the_inside_margin_points_only():
    """``flip="margin"`` flips the validation points with ``y_k (x_k^T w - b) < 1`` (Corollary 4, Section 4.2:
    misclassified or inside the margin), tested as ``< 1 - 1e-9`` so a point on the margin up to rounding stays
    (flipped_set's docstring). Margins -0.5, 0.5, 1 - 1e-6 are flipped; 1, 1 - 1e-12 and 2 are not (mutation testing:
    ``margins < 0`` (misclassified only), ``margins <= 1.0`` and ``margins < 1 - 1e-3`` all passed the suite).
    Oracle: the margins, chosen by hand with w = (1,), b = 0, y = +1."""
    margins = np.array([-0.5, 0.5, 1.0, 1.0 - 1e-6, 1.0 - 1e-12, 2.0])
    idx, rule = flipped_set(margins[:, None], np.ones(6), np.array([1.0]), 0.0)
    assert rule == "margin"
    np.testing.assert_array_equal(idx, [0, 1, 3])
    # The same with negative labels: y_k (x_k^T w - b) is what counts, not x_k^T w - b.
    idx, _ = flipped_set(-margins[:, None] + 0.25, -np.ones(6), np.array([1.0]), 0.25)
    np.testing.assert_array_equal(idx, [0, 1, 3])


def test_flip_all_and_an_empty_margin_set_flip_every_validation_point():
    """``flip="all"`` flips every validation point (Appendix A, small sets), and so does ``flip="margin"`` when the
    hyperplane puts every point correctly outside its margin: an empty V_f would leave the inner objective 0
    (flipped_set's docstring, "Empty V_f"; the rule then reads ``"all (V_f empty under margin)"``). Mutation testing:
    returning the empty index set, and ``np.arange(n_v - 1)`` for "all", passed the suite. Oracle: the margins
    1.5, 2, 3, 4 of w = (1,), b = 0, y = +1 are all >= 1 by hand."""
    X, y, w = np.array([[1.5], [2.0], [3.0], [4.0]]), np.ones(4), np.array([1.0])
    idx, rule = flipped_set(X, y, w, 0.0)
    np.testing.assert_array_equal(idx, np.arange(4))
    assert rule == "all (V_f empty under margin)"
    idx, rule = flipped_set(X, y, w, 0.0, flip="all")
    np.testing.assert_array_equal(idx, np.arange(4))
    assert rule == "all"


def _tiny(seed=0, n_t=5, n_v=4):
    """Two overlapping classes in two features, both classes in each set (labels alternate)."""
    rng = np.random.default_rng(seed)
    yt, yv = np.where(np.arange(n_t) % 2 == 0, 1.0, -1.0), np.where(np.arange(n_v) % 2 == 0, 1.0, -1.0)
    return rng.normal(size=(n_t, 2)) + 0.7 * yt[:, None], yt, rng.normal(size=(n_v, 2)) + 0.7 * yv[:, None], yv


def test_set_lambda_bound_puts_kappa_at_one_over_one_plus_the_bound():
    """Eq. (25)'s ``lambda = lam / kappa`` with ``kappa + lam = 1``, so ``lambda <= Lambda`` is
    ``kappa >= 1/(1 + Lambda)`` and ``lam <= Lambda/(1 + Lambda)`` (the module docstring); set_lambda_bound must put
    exactly these bounds, as the builder does for the same Lambda (mutation testing: ``kappa_min = 1/Lambda``
    passed the suite, a bound on lambda of Lambda - 1). Oracle: the closed form, Lambda = 9 -> 0.1 and 0.9."""
    Xt, yt, Xv, yv = _tiny()
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=[0, 1], epsilon=0.2, lambda_bound=3.0)
    assert model.kappa.lb == pytest.approx(0.25) and model.lam.ub == pytest.approx(0.75)
    bilevel.pessimistic.set_lambda_bound(model, 9.0)
    assert model.kappa.lb == pytest.approx(0.1, rel=1e-12) and model.lam.ub == pytest.approx(0.9, rel=1e-12)
    assert model.bilevel_info["lambda_bound"] == 9.0
    # At that bound lambda = lam / kappa is 9 itself.
    model.kappa.set_value(model.kappa.lb)
    model.lam.set_value(1.0 - model.kappa.lb)
    assert bilevel.pessimistic.lambda_value(model) == pytest.approx(9.0, rel=1e-12)
    assert bilevel.pessimistic.at_lambda_bound(model)


@pytest.mark.parametrize("epsilon", [0.0, 0.3])
def test_the_normalised_multipliers_of_the_follower_sum_to_one(epsilon):
    """Eq. (25)'s multipliers are normalised by ``1 + lambda``: ``kappa = 1/(1 + lambda)``, ``lam = lambda/(1 +
    lambda)``, so ``kappa + lam = 1`` at every point of the model (the module docstring), which is what makes
    ``kappa`` at its lower bound mean ``lambda`` at its bound (at_lambda_bound). Minimising and maximising
    ``kappa + lam`` over the model's feasible set must give 1 both ways (mutation testing: ``kappa + lam <= 1``
    passed the suite; the KKT rows are homogeneous in the multipliers, so the answers stay, but ``kappa`` can then
    sit at its bound with ``lambda`` far inside it). Oracle: the docstring's identity."""
    Xt, yt, Xv, yv = _tiny(1)
    for sense in (1, -1):
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=[0, 1, 3], epsilon=epsilon)
        model.validation_hinge.deactivate()
        model.total = pyo.Objective(expr=sense * (model.kappa + model.lam))
        info = bilevel.solve_model(model)
        assert info.status == "optimal"
        assert model.kappa.value + model.lam.value == pytest.approx(1.0, abs=1e-7)


def test_a_flipped_point_with_positive_hinge_has_its_dual_at_kappa_over_v_f():
    """Complementarity ``(kappa/|V_f| - alpha_k) v_k = 0`` (Eq. (25), normalised): the follower's objective is a mean
    over the flipped set V_f, not over V, so a flipped point with positive hinge has ``alpha_k = kappa/|V_f|``. With
    V_f a strict subset (|V_f| = 2, |V| = 4) the MILP must reach the exact pessimistic optimum (mutation testing:
    ``kappa/|V| - alpha_k`` passed the suite; it lets the follower stop short of its optimum, and the MILP returned
    0.531 for 0.594). Oracle: the KKT-state enumeration of tests/kkt_enumeration.py (scipy LPs, no big-M)."""
    from kkt_enumeration import pessimistic_optimum

    Xt, yt, Xv, yv = _tiny(0, 4, 4)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=[0, 1], epsilon=0.3)
    assert bilevel.solve_model(model).status == "optimal"
    exact = pessimistic_optimum(Xt, yt, Xv, yv, np.array([0, 1]), 0.3)[0]
    assert model.validation_hinge() == pytest.approx(exact, abs=1e-6)


@pytest.mark.parametrize("epsilon, replica, shared", [(0.0, "optimal", True), (0.2, "optimal", False),
                                                      (0.0, "feasible", False)])
def test_the_follower_serves_as_its_own_replica_exactly_at_epsilon_0_with_an_optimal_replica(epsilon, replica, shared):
    """``shared_replica`` is documented as "epsilon = 0 with a training-optimal replica: the follower serves as its
    own replica" (pessimistic_info's docstring): then the model has no replica variables ``w_hat``, ``b_hat``,
    ``xi_hat`` and no budget row (the follower's training optimality is the budget), and otherwise it has them
    (mutation testing: never sharing passed the suite; the optimum is the same, the model twice as large and the
    documented flag wrong). Oracle: the docstrings' rule applied to the three settings by hand."""
    Xt, yt, Xv, yv = _tiny()
    info = bilevel.pessimistic.pessimistic_info(Xt, yt, Xv, yv, [0, 1], epsilon=epsilon, replica=replica)
    assert info["shared_replica"] is shared
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=[0, 1], epsilon=epsilon, replica=replica)
    assert (model.component("w_hat") is None) is shared
    assert (model.component("epsilon_budget") is None) is shared


def test_an_objective_cutoff_of_zero_is_accepted_when_a_zero_hinge_is_reachable():
    """``objective_cutoff`` must be "a finite number >= 0" (build_optimistic_model's docstring): 0 is allowed and,
    on data that the box lets the follower separate with margin, keeps the optimum 0 (mutation testing: refusing 0
    passed the suite). Oracle: by hand, w = 1, b = 0 puts the points +-2 (labels +-1) at margin 2 >= 1, so the
    training optimum and the validation hinge are 0 at w_bar = 1."""
    X, y = np.array([[2.0], [-2.0], [3.0], [-3.0]]), np.array([1.0, -1.0, 1.0, -1.0])
    model = bilevel.build_optimistic_model(X, y, X[:2], y[:2], objective_cutoff=0.0)
    assert bilevel.solve_model(model).status == "optimal"
    assert model.validation_hinge() == pytest.approx(0.0, abs=1e-9)


def test_the_optimistic_model_keeps_its_own_copy_of_the_data():
    """``model.bilevel_info`` holds the data of the model (build_optimistic_model's docstring), used later for MIP
    starts and the verification; a caller changing its arrays in place after the build must not change them
    (mutation testing: ``np.asarray`` instead of ``np.array`` passed the suite, and the model's record then
    followed the caller's edits). Oracle: copies of the arrays taken before the build."""
    Xt, yt, Xv, yv = _tiny()
    saved = [a.copy() for a in (Xt, yt, Xv, yv)]
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    for a in (Xt, yt, Xv, yv):
        a *= -3.0
    info = model.bilevel_info
    for key, a in zip(("X_train", "y_train", "X_val", "y_val"), saved):
        np.testing.assert_array_equal(info[key], a)


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_a_validation_row_too_large_for_the_big_m_constants_is_refused(mode):
    """The validation hinge rows and their big-M constants grow with ``||x_k||_1 * w_bar_ub`` over the *validation*
    rows too, so the builders check the scale of both sets (check_scale: above 1e5 the constants are beyond HiGHS's
    integrality tolerance). A validation row of norm 2e5 with small training rows is refused (mutation testing:
    checking the training rows only passed the suite). Oracle: ||(1e5, 1e5)||_1 * 1 = 2e5 > 1e5, by hand."""
    Xt, yt, Xv, yv = _tiny()
    Xv[0] = [1e5, 1e5]
    with pytest.raises(bilevel.InputError, match="features times w_bar_ub"):
        if mode == "optimistic":
            bilevel.build_optimistic_model(Xt, yt, Xv, yv)
        else:
            bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=[0, 1])


def test_the_optimistic_box_multipliers_of_a_tiny_feature_are_mu_over_s():
    """For a tiny feature j the optimistic model's stationarity row in w_j is divided by ``s_j`` and its box
    multipliers are ``mu+-_j / s_j`` (add_lp_svm_duals' docstring, item 12 of bilevel.bigm). So ``s_j`` times the
    model's ``mu+_j - mu-_j`` must satisfy Eq. (20)'s stationarity in the data's own units,
    ``sum_i beta_i y_i x_ij = mu+_j - mu-_j`` (mutation testing: ignoring ``mu_scale`` in the rows passed the suite;
    the multipliers then came out s_j times too small, in other units than documented). Oracle: the stationarity
    condition evaluated with numpy at the solution, on a feature of size 1e-6 whose box is active."""
    rng = np.random.default_rng(3)
    yt, yv = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]), np.array([1.0, -1.0, 1.0])
    Xt = np.column_stack([2.0 * rng.normal(size=6) + 0.3 * yt, 1e-6 * (yt + 0.3 * rng.normal(size=6))])
    Xv = np.column_stack([rng.normal(size=3) + yv, 1e-6 * (yv + 0.3 * rng.normal(size=3))])
    box = np.array([0.5, 300.0])  # fixed: the tiny feature's bound is active at every training optimum
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, w_bar_bounds=(box, box))
    s = model.bilevel_info["big_m"].mu_scale
    assert s[0] == 1.0 and s[1] == pytest.approx(np.abs(np.vstack([Xt, Xv])[:, 1]).max())
    assert bilevel.solve_model(model, options={"presolve": "off"}).status == "optimal"
    beta = np.array([model.beta[i].value for i in range(6)])
    for j in range(2):
        lhs = float(np.sum(beta * yt * Xt[:, j]))
        mu = s[j] * (model.mu_plus[j].value - model.mu_minus[j].value)
        assert mu == pytest.approx(lhs, rel=1e-5, abs=1e-9 * s[j])
    assert abs(np.sum(beta * yt * Xt[:, 1])) > 1e-3 * s[1]  # the tiny feature's multiplier is not 0


@pytest.mark.parametrize("flipped", [[], np.array([], dtype=int), np.zeros(4, dtype=bool)])
def test_an_empty_flipped_set_is_refused_by_the_builder(flipped):
    """V_f must be non-empty (build_pessimistic_model's docstring: InputError for "an empty ... flipped set"; with
    V_f empty the follower's objective, a mean over V_f, is undefined). An empty list, an empty index array and an
    all-false mask are refused naming V_f (mutation testing: dropping the emptiness check passed the suite).
    Oracle: the docstring."""
    Xt, yt, Xv, yv = _tiny()
    with pytest.raises(bilevel.InputError, match="V_f must be a non-empty subset"):
        bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped=flipped)


def test_a_cutoff_fixes_the_binaries_of_the_decided_training_points():
    """With ``objective_cutoff`` the optimistic builder fixes the binaries of the training points whose side of the
    margin the cutoff decides (build_optimistic_model's docstring, item 10 of bilevel.bigm): ``(z_beta, z_xi) =
    (0, 1)`` outside the margin, ``(1, 0)`` inside (fix_decided_points' docstring). Mutation testing: not fixing
    them passed the suite (the same optimum, a weaker MILP). Oracle for the cutoff: the exact optimum of the KKT-state
    enumeration (tests/kkt_enumeration.py), so the cutoff is tight and some points are decided."""
    from kkt_enumeration import optimistic_optimum

    Xt, yt, Xv, yv = _tiny(2, 6, 4)
    best = optimistic_optimum(Xt, yt, Xv, yv)[0]
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, objective_cutoff=best + 1e-6)
    M = model.bilevel_info["big_m"]
    assert M.outside.any() or M.inside.any()
    for i in range(6):
        state = (0, 1) if M.outside[i] else (1, 0) if M.inside[i] else None
        fixed = (model.z_beta[i].fixed, model.z_xi[i].fixed)
        assert fixed == ((True, True) if state else (False, False)), i
        if state:
            assert (model.z_beta[i].value, model.z_xi[i].value) == state
    assert bilevel.solve_model(model).status == "optimal"
    assert model.validation_hinge() == pytest.approx(best, abs=1e-6)
