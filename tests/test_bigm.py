"""Bound tightening by LPs (bilevel/bigm.py item 9): the ranges against independent scipy LPs, and
values that do not depend on what the process computed before (the MILP, and so which of several tied
optima HiGHS returns, must not change with the order of earlier solves)."""
import numpy as np
import pytest

import bilevel
from bilevel import bigm
from oracles import margin_range


@pytest.fixture(scope="module")
def split():
    data = bilevel.load_dataset("cancer")
    return bilevel.split_dataset(data.X, data.y, 15, 10, seed=4)


def test_margin_ranges_agree_with_linprog_and_are_widened_outwards(split):
    ub, budget = np.ones(split.X_train.shape[1]), 0.6
    rows = np.vstack([split.X_train[:5], split.X_val[:5]])
    lo, hi = bigm.margin_ranges(split.X_train, split.y_train, ub, budget, rows)
    for k, x in enumerate(rows):
        ref_lo, ref_hi = margin_range(split.X_train, split.y_train, ub, budget, x)
        assert lo[k] <= ref_lo <= lo[k] + 3e-6 * (1 + abs(ref_lo))
        assert hi[k] - 3e-6 * (1 + abs(ref_hi)) <= ref_hi <= hi[k]


def test_margin_ranges_do_not_depend_on_earlier_requests(split):
    ub, budget = np.ones(split.X_train.shape[1]), 0.6
    train_rows = split.X_train
    bigm._RANGE_CACHE.clear()
    first = bigm.margin_ranges(split.X_train, split.y_train, ub, budget, train_rows)
    bigm._RANGE_CACHE.clear()
    # A larger request over the same LP first (its warm-started sequence passes through other bases) ...
    bigm.margin_ranges(split.X_train, split.y_train, ub, budget, np.vstack([split.X_val, train_rows]))
    again = bigm.margin_ranges(split.X_train, split.y_train, ub, budget, train_rows)
    # ... must not change the answer to the smaller one, not even in the last bit.
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])
    # A cached answer is a copy: changing it does not change the cache.
    again[0][:] = 0.0
    assert np.array_equal(bigm.margin_ranges(split.X_train, split.y_train, ub, budget, train_rows)[0], first[0])


def _sparse_feature_data():
    """Feature 1 is one value of 2e-3 among zeros: not a tiny feature (bilevel.bigm item 12 flags a largest |x_ij|
    below 1e-4), yet its stationarity bound (1/|T|) sum_i |x_i1| = 5e-4 lies below the floor."""
    Xt = np.array([[0.8, 0.0], [-1.1, 2e-3], [0.3, 0.0], [-0.5, 0.0]])
    yt = np.array([1.0, -1.0, 1.0, -1.0])
    Xv = np.array([[0.6, 0.0], [-0.9, 0.0], [0.1, 0.0]])
    yv = np.array([1.0, -1.0, -1.0])
    return Xt, yt, Xv, yv


def test_box_multiplier_bounds_are_the_stationarity_bound_floored_at_1e_3():
    """The box multipliers mu+-_j are bounded by S_j = (1/|T|) sum_i |x_ij| (bilevel.bigm item 4; for the
    pessimistic model max(S^F_j, S^T_j), item 8, S^F over the flipped validation points), raised to at least
    MU_FLOOR = 1e-3 (the module docstring's floor: a bound below HiGHS's feasibility tolerance once cut off the
    optimum). Oracle: the sums written with numpy from the docstring; the floor set to 0 passed the other tests."""
    Xt, yt, Xv, yv = _sparse_feature_data()
    s_t = np.abs(Xt).sum(axis=0) / len(yt)
    assert s_t[1] < 1e-3 < s_t[0]
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    for mu in (model.mu_plus, model.mu_minus):
        assert [mu[j].ub for j in range(2)] == pytest.approx(np.maximum(s_t, 1e-3), rel=1e-12)
    flipped = [0, 1]
    s_f = np.abs(Xv[flipped]).sum(axis=0) / len(flipped)
    assert s_f[0] > s_t[0]  # the flipped points' bound is the larger one
    pes = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, 0.1)
    for mu in (pes.mu_plus, pes.mu_minus):
        assert [mu[j].ub for j in range(2)] == pytest.approx(np.maximum(np.maximum(s_f, s_t), 1e-3), rel=1e-12)
