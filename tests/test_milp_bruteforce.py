"""The MILPs against brute force on tiny instances (p = 2, |T| <= 8, |V| <= 6): a grid over w_bar,
each point evaluated by independent scipy LPs (tests/oracles.py)."""
import numpy as np
import pytest

import bilevel
from oracles import grid, lp, optimistic_value, pessimistic_value, tiny_instance

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a failed verification fails the test


@pytest.mark.parametrize("seed,n_t,n_v", [(0, 6, 5), (1, 8, 6), (2, 7, 4), (3, 8, 6)])
def test_optimistic_matches_brute_force(seed, n_t, n_v):
    Xt, yt, Xv, yv = tiny_instance(seed, n_t, n_v)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="optimistic")
    assert res.optimal and res.verified
    best_grid = min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2))
    assert res.objective <= best_grid + 1e-6
    # The MILP's own w_bar, re-evaluated independently, reproduces its objective.
    assert optimistic_value(res.w_bar, Xt, yt, Xv, yv) == pytest.approx(res.objective, abs=1e-6)


@pytest.mark.parametrize("seed,epsilon,flipped",
                         [(0, 0.0, "all"), (1, 0.3, "all"), (2, 0.0, [0, 2]), (4, 0.5, [1, 3, 4])])
def test_pessimistic_matches_brute_force(seed, epsilon, flipped):
    Xt, yt, Xv, yv = tiny_instance(seed, 7, 5)
    Vf = np.arange(len(yv)) if flipped == "all" else np.array(flipped)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf)
    assert res.optimal and res.verified
    assert res.verification.replica_gap == pytest.approx(0.0, abs=1e-6)
    best_grid = min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, epsilon) for wb in grid(2))
    assert res.objective <= best_grid + 1e-6
    assert pessimistic_value(res.w_bar, Xt, yt, Xv, yv, Vf, epsilon) == pytest.approx(res.objective, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 5])
def test_pessimistic_printed_eq24_is_a_relaxation(seed):
    """With replica="feasible" (Eq. 24 as printed) the leader may inflate the replica: the objective is
    <= the training-optimal-replica grid value, and the verification reproduces it with its own budget."""
    Xt, yt, Xv, yv = tiny_instance(seed, 6, 5)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.1, flip="all", replica="feasible")
    assert res.verified
    Vf = np.arange(len(yv))
    best_grid = min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, 0.1) for wb in grid(2, steps=9))
    assert res.objective <= best_grid + 1e-6
    v = res.verification
    assert v.replica_gap >= -1e-6
    assert v.budget == pytest.approx(1.1 * v.replica_loss)


def test_inner_lp_at_upper_bound_agrees_with_linprog():
    """Fix w_bar = w_bar_ub in the optimistic MILP: the follower's training loss is the LP-SVM optimum
    computed independently, and so is the package's own LP helper."""
    Xt, yt, Xv, yv = tiny_instance(11, 8, 6, p=3)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 0.7))
    for j in model.w_bar:
        model.w_bar[j].fix(0.7)
    bilevel.solve_model(model)
    w = np.array([model.w[j].value for j in model.w])
    train = np.maximum(0, 1 - yt * (Xt @ w - model.b.value)).mean()
    expected = lp(np.full(3, 0.7), (Xt, yt))
    assert train == pytest.approx(expected, abs=1e-7)
    assert bilevel.hinge_lp(np.full(3, 0.7), (Xt, yt)).value == pytest.approx(expected, abs=1e-9)


def test_per_feature_bounds_and_lower_bound_respected():
    Xt, yt, Xv, yv = tiny_instance(7, 8, 6, p=3)
    lb, ub = np.array([0.1, 0.0, 0.2]), np.array([0.5, 0.3, 0.9])
    res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(lb, ub))
    assert np.all(res.w_bar >= lb - 1e-9) and np.all(res.w_bar <= ub + 1e-9)
    assert np.all(np.abs(res.w) <= res.w_bar + 1e-7)
    assert res.verified


@pytest.mark.parametrize("label", [1.0, -1.0])
def test_a_validation_set_of_one_class_is_tuned_like_any_other(label):
    """Only the training set needs both classes; a validation set of one class is a valid tuning problem,
    solved like any other: both MILPs checked against brute force."""
    Xt, yt, Xv, _ = tiny_instance(1, 7, 5)
    yv = np.full(len(Xv), label)
    opt = bilevel.tune(Xt, yt, Xv, yv, mode="optimistic")
    assert opt.optimal and opt.verified
    assert opt.objective <= min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2)) + 1e-6
    assert optimistic_value(opt.w_bar, Xt, yt, Xv, yv) == pytest.approx(opt.objective, abs=1e-6)
    Vf = np.arange(len(yv))
    pes = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip=Vf, optimistic=opt)
    assert pes.optimal and pes.verified
    assert pes.objective <= min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, 0.3) for wb in grid(2)) + 1e-6
    assert pessimistic_value(pes.w_bar, Xt, yt, Xv, yv, Vf, 0.3) == pytest.approx(pes.objective, abs=1e-6)


def test_a_far_misclassified_validation_point_keeps_its_large_hinge():
    """One feature; ten validation points at +-0.5 want w = 2 (the box's top), an eleventh at 3 of the wrong
    class then has hinge 7, near the big-M cap of its g (1 + R_k + B = 9; the follower's flipped hinges
    likewise reach 2 against a cap of 3.9). On the other instances every validation and flipped hinge stays
    far below its cap, so caps of half their size (mutants of bilevel.bigm) cut off the optimum unnoticed.
    Oracle: the grid of w_bar (tests/oracles.py), which holds the optimum w_bar = 2."""
    Xt, yt = np.array([[0.5], [-0.5], [0.4], [-0.4]]), np.array([1.0, -1.0, 1.0, -1.0])
    Xv = np.r_[np.tile([[0.5], [-0.5]], (5, 1)), [[3.0]]]
    yv = np.r_[np.tile([1.0, -1.0], 5), [-1.0]]
    bounds, axis = (0.0, 2.0), [np.array([v]) for v in np.linspace(0.0, 2.0, 41)]
    res = bilevel.tune(Xt, yt, Xv, yv, mode="optimistic", w_bar_bounds=bounds)
    assert res.optimal and res.verified
    assert res.objective <= min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in axis) + 1e-6
    assert max(bilevel.hinge(Xv, yv, res.w, res.b)) > 6.0  # the outlier's hinge, above half its cap
    Vf = np.arange(len(yv))
    for epsilon, replica in ((0.0, "optimal"), (0.5, "optimal"), (0.5, "feasible")):
        pes = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf, w_bar_bounds=bounds,
                           replica=replica)
        assert pes.optimal and pes.verified
        assert pes.objective <= min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, epsilon) for wb in axis) + 1e-6
        if replica == "optimal":
            assert pessimistic_value(pes.w_bar, Xt, yt, Xv, yv, Vf, epsilon) == pytest.approx(pes.objective, abs=1e-6)
