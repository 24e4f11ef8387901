"""Item 11 of bilevel.bigm: the bound Lambda* on the dual lambda of the epsilon constraint, against the
multipliers scipy's HiGHS reports for the follower's LP (tests/oracles.py) and against brute force."""
import numpy as np
import pytest

import bilevel
from oracles import grid, lp, pessimistic_value, tiny_instance

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")


def _follower_lambda(w_bar, Xt, yt, Xv, yv, flipped, epsilon):
    """The budget row's multiplier of the follower's LP at w_bar (flipped labels, budget (1+eps) v*), and the
    convexity bound of item 11 at that box, phi(v*) / (epsilon v*) (phi: the follower's value at budget v*)."""
    v_star = lp(w_bar, (Xt, yt))
    obj = (Xv[flipped], -yv[flipped])
    _, lam = lp(w_bar, obj, [(Xt, yt, (1 + epsilon) * v_star)], duals=True)
    phi_at_v_star = lp(w_bar, obj, [(Xt, yt, v_star + 1e-9)])
    return float(lam[0]), phi_at_v_star / (epsilon * v_star)


@pytest.mark.parametrize("seed,epsilon", [(0, 0.05), (1, 0.1), (2, 0.3), (3, 0.02)])
def test_follower_multipliers_stay_below_lambda_max(seed, epsilon):
    Xt, yt, Xv, yv = tiny_instance(seed, 8, 6, p=3, overlap=1.5)
    Vf = np.arange(len(yv))
    m = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, epsilon)
    lam_max = m.bilevel_info["lambda_max"]
    assert np.isfinite(lam_max) and lam_max > 0
    rng = np.random.default_rng(seed)
    boxes = [np.ones(3), np.full(3, 0.05)] + [rng.uniform(0, 1, 3) ** 2 for _ in range(40)]
    lams, local = np.array([_follower_lambda(wb, Xt, yt, Xv, yv, Vf, epsilon) for wb in boxes]).T
    assert np.all(lams <= local * (1 + 1e-6) + 1e-6)  # the convexity step of item 11, box by box
    assert np.all(local <= lam_max * (1 + 1e-9) + 1e-9)  # and its data bound, uniform over the boxes
    assert lams.max() > 0  # the budget binds somewhere: the check is not vacuous


def test_lambda_max_is_the_formula_of_item_11():
    Xt, yt, Xv, yv = tiny_instance(2, 8, 6, p=3, overlap=1.5)
    Vf = np.arange(len(yv))
    m = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, 0.3)
    M = m.bilevel_info["big_m"]
    v_ub = lp(np.ones(3), (Xt, yt))
    # M.v is the tightened bound (no cutoff here), the same bound item 11 uses.
    assert m.bilevel_info["lambda_max"] == pytest.approx(M.v.mean() / (0.3 * v_ub), rel=1e-6)
    # A cutoff tightens M.v but not lambda_max (item 11 needs the bound on every training optimum).
    U = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip="all", cutoff_restarts=False).objective
    mc = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, 0.3, objective_cutoff=U + 1e-6)
    assert mc.bilevel_info["lambda_max"] == pytest.approx(m.bilevel_info["lambda_max"], rel=1e-12)


def test_no_bound_without_epsilon_or_with_a_separable_training_set():
    Xt, yt, Xv, yv = tiny_instance(0, 8, 6, p=3)
    assert bilevel.build_pessimistic_model(Xt, yt, Xv, yv, [0, 1], 0.0).bilevel_info["lambda_max"] == np.inf
    assert bilevel.build_pessimistic_model(Xt, yt, Xv, yv, [0, 1], 0.2,
                                           replica="feasible").bilevel_info["lambda_max"] == np.inf
    sep_y = np.where(Xt[:, 0] > np.median(Xt[:, 0]), 1.0, -1.0)
    Xs = Xt.copy()
    Xs[:, 0] = sep_y * 10.0  # separable with margin inside the box: v*(w_bar_ub) = 0
    assert lp(np.ones(3), (Xs, sep_y)) == pytest.approx(0.0, abs=1e-9)
    assert bilevel.build_pessimistic_model(Xs, sep_y, Xv, yv, [0, 1], 0.2).bilevel_info["lambda_max"] == np.inf


@pytest.mark.parametrize("seed,epsilon", [(1, 0.3), (4, 0.5), (6, 0.1)])
def test_milp_with_lambda_bound_at_lambda_max_matches_brute_force(seed, epsilon):
    """With lambda_bound = Lambda* (far below the default 1000) the MILP still reaches the brute-force
    optimum over a w_bar grid, and the result reports the bound as sufficient."""
    Xt, yt, Xv, yv = tiny_instance(seed, 7, 5)
    Vf = np.arange(len(yv))
    lam_max = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, epsilon).bilevel_info["lambda_max"]
    assert np.isfinite(lam_max)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf, lambda_bound=lam_max)
    assert res.optimal and res.verified
    assert res.lambda_max == pytest.approx(lam_max)
    assert res.lambda_history == [pytest.approx(lam_max)]
    best_grid = min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, epsilon) for wb in grid(2))
    assert res.objective <= best_grid + 1e-6
    assert pessimistic_value(res.w_bar, Xt, yt, Xv, yv, Vf, epsilon) == pytest.approx(res.objective, abs=1e-6)


def test_a_solution_below_a_bound_under_lambda_max_is_re_solved_at_lambda_max():
    """epsilon > 0, one feature 1e4 times smaller on the training points than on the validation ones: the follower
    optimum that reaches the bilevel optimum (0, the KKT enumeration with lambda unbounded) needs lambda of about
    1e4, above the first bound 1e3 but below lambda_max (about 2.9e4) and max_lambda_bound's 1e4 allows it. The
    solution at 1e3 (0.3016) had lambda below its bound, so the escalation, which only reacted to a solution at
    the bound, returned it: optimal, verified, with only a note. A bound below a finite lambda_max is now raised
    to min(lambda_max, max_lambda_bound) once."""
    from kkt_enumeration import pessimistic_optimum

    Xt = np.array([[1.0, 2e-3], [-1.0, -3e-3], [0.5, -2e-3], [-0.3, 1e-3]])
    yt = np.array([1.0, -1.0, -1.0, 1.0])
    Xv, yv = np.array([[0.8, 20.0], [-0.6, -15.0]]), np.array([1.0, -1.0])
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(2), 1e-3)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=1e-3, flip="all")
    assert np.isfinite(res.lambda_max) and res.lambda_max > 1e3
    assert res.verified
    assert res.objective == pytest.approx(value, abs=1e-6), (res.objective, value, res.lambda_history)
    assert pessimistic_value(res.w_bar, Xt, yt, Xv, yv, np.arange(2), 1e-3) == pytest.approx(res.objective, abs=1e-6)


def test_at_lambda_bound_is_true_exactly_when_kappa_sits_at_its_lower_bound():
    """at_lambda_bound drives tune's escalation of the bound on lambda: true when kappa = 1/(1 + lambda_bound)
    (lambda = lam/kappa at the bound, up to a relative 1e-6), false once lambda is clearly below it. A mutant
    that never reported the bound passed every test file; tune's escalation then stops at the first bound."""
    Xt, yt, Xv, yv = tiny_instance(0, 5, 4)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, np.arange(4), epsilon=0.0, lambda_bound=50.0)
    for lam in (50.0, 50.0 * (1 - 1e-8), 49.0, 0.0):  # kappa = 1/(1 + lambda), lam = lambda kappa
        model.kappa.set_value(1.0 / (1.0 + lam))
        model.lam.set_value(lam / (1.0 + lam))
        assert bilevel.pessimistic.at_lambda_bound(model) is (lam >= 50.0 * (1 - 1e-6)), lam
        assert bilevel.pessimistic.lambda_value(model) == pytest.approx(lam)
    bilevel.pessimistic.set_lambda_bound(model, 200.0)  # a larger bound: lambda 50 is well inside it
    model.kappa.set_value(1.0 / 51.0)
    assert not bilevel.pessimistic.at_lambda_bound(model)
