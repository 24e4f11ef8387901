"""Metamorphic tests of ``tune``: the optimal mean validation hinge of Eq. (21) and Eq. (25) must not change
under transformations of the data whose effect on the MILP is known in closed form, nor under solver
settings that only change the search path. The oracle is the transformed instance's own solve: two
"optimal" results agree when each one's objective is at least the other's best bound (within ``TOL``);
HiGHS stops at its default relative gap 1e-4, so two optimal objectives may differ by up to about that.

Data transformations (``w_bar`` bounds passed per feature and transformed alike):

* permuting the training points, the validation points (``V_f`` re-indexed) or the features;
* duplicating every training point (the mean training hinge, hence the follower's optimum set and the
  epsilon budget, are unchanged) or every validation point (with ``V_f`` duplicated: both means unchanged);
* scaling feature ``j`` by ``c > 0`` with its ``w_bar`` bounds by ``1/c`` (``w_j -> w_j / c``, every margin
  unchanged);
* negating a feature (``w_j -> -w_j``, the box is symmetric);
* swapping every label (``(w, b) -> (-w, -b)``).

``V_f`` is passed explicitly (``flip="margin"`` depends on which tied optimistic optimum HiGHS returns,
which a transformation may change legitimately).
"""
import numpy as np
import pytest

import bilevel

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a failed verification fails the test

TOL = 1e-5


def _split(name, n, seed):
    d = bilevel.load_dataset(name)
    s = bilevel.split_dataset(d.X, d.y, n, n, seed=seed)
    return s.X_train, s.y_train, s.X_val, s.y_val


def _objective(data, mode="optimistic", epsilon=0.0, flip=None, **kw):
    Xt, yt, Xv, yv, lb, ub = data[:6]
    if mode == "pessimistic":
        kw.update(epsilon=epsilon, flip=flip)
    res = bilevel.tune(Xt, yt, Xv, yv, mode=mode, w_bar_bounds=(lb, ub), **kw)
    assert res.optimal and res.verified, (res.status, res.verification.messages)
    if mode == "pessimistic":
        assert res.optimistic.optimal
    return res.objective, res.best_bound


def _assert_agree(a, b, label):
    """Objectives (objective, best bound) of two optimal solves of the same optimum: neither objective is
    below the other's bound."""
    assert min(a[0], b[0]) >= max(a[1], b[1]) - TOL, (label, a, b)


# Each transformation: (Xt, yt, Xv, yv, lb, ub, V_f, rng) -> the same tuple for the transformed instance.
def _perm_train(Xt, yt, Xv, yv, lb, ub, F, rng):
    pt = rng.permutation(len(yt))
    return Xt[pt], yt[pt], Xv, yv, lb, ub, F


def _perm_val(Xt, yt, Xv, yv, lb, ub, F, rng):
    pv = rng.permutation(len(yv))
    return Xt, yt, Xv[pv], yv[pv], lb, ub, np.sort(np.argsort(pv)[F])


def _perm_features(Xt, yt, Xv, yv, lb, ub, F, rng):
    pf = rng.permutation(Xt.shape[1])
    return Xt[:, pf], yt, Xv[:, pf], yv, lb[pf], ub[pf], F


def _dup_train(Xt, yt, Xv, yv, lb, ub, F, rng):
    return np.vstack([Xt, Xt]), np.r_[yt, yt], Xv, yv, lb, ub, F


def _dup_val(Xt, yt, Xv, yv, lb, ub, F, rng):
    return Xt, yt, np.vstack([Xv, Xv]), np.r_[yv, yv], lb, ub, np.r_[F, F + len(yv)]


def _scale_feature(Xt, yt, Xv, yv, lb, ub, F, rng):
    s = np.ones(Xt.shape[1])
    s[rng.integers(len(s))] = rng.choice([0.5, 2.0, 3.0])
    return Xt * s, yt, Xv * s, yv, lb / s, ub / s, F


def _scale_all(Xt, yt, Xv, yv, lb, ub, F, rng):
    s = rng.choice([0.5, 0.8, 1.5, 2.0], size=Xt.shape[1])
    return Xt * s, yt, Xv * s, yv, lb / s, ub / s, F


def _negate_feature(Xt, yt, Xv, yv, lb, ub, F, rng):
    s = np.ones(Xt.shape[1])
    s[rng.integers(len(s))] = -1.0
    return Xt * s, yt, Xv * s, yv, lb, ub, F


def _swap_labels(Xt, yt, Xv, yv, lb, ub, F, rng):
    return Xt, -yt, Xv, -yv, lb, ub, F


TRANSFORMS = [_perm_train, _perm_val, _perm_features, _dup_train, _dup_val, _scale_feature, _scale_all,
              _negate_feature, _swap_labels]
FAST_TRANSFORMS = [_perm_val, _perm_features, _dup_train, _dup_val, _scale_all, _swap_labels]

SETTINGS = {
    "no_warm_start": dict(warm_start=False),
    "no_cutoff_restarts": dict(cutoff_restarts=False),
    "race_2": dict(race=2),
    "clock_nodes": dict(clock="nodes"),
    "threads_1": dict(threads=1),
    "highs_seed_7": dict(highs_options={"random_seed": 7}),
    "presolve_off": dict(highs_options={"presolve": "off"}),
}


def _instance(name, n, seed, ub):
    Xt, yt, Xv, yv = _split(name, n, seed)
    p = Xt.shape[1]
    return Xt, yt, Xv, yv, np.zeros(p), np.full(p, ub), np.arange(n)


def _check_transforms(inst, transforms, mode, epsilon, seed, F=None):
    F = inst[6] if F is None else F
    base = _objective(inst, mode, epsilon, flip=F)
    rng = np.random.default_rng(seed)
    for transform in transforms:
        out = transform(*inst[:6], F, rng)
        _assert_agree(_objective(out, mode, epsilon, flip=out[6]), base, transform.__name__)


@pytest.mark.parametrize("name,n,seed,ub", [("diabetes", 8, 2, 1.0), ("cancer", 10, 0, 0.1)])
def test_optimistic_optimum_is_invariant_under_the_data_transformations(name, n, seed, ub):
    _check_transforms(_instance(name, n, seed, ub), TRANSFORMS, "optimistic", 0.0, seed)


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
def test_pessimistic_optimum_is_invariant_under_the_data_transformations(epsilon):
    _check_transforms(_instance("diabetes", 6, 0, 1.0), FAST_TRANSFORMS, "pessimistic", epsilon, 0)


def test_pessimistic_optimum_with_a_margin_flipped_set_is_invariant():
    inst = _instance("diabetes", 8, 3, 1.0)
    opt = bilevel.tune(*inst[:4], w_bar_bounds=(inst[4], inst[5]))
    F, _ = bilevel.flipped_set(inst[2], inst[3], opt.w, opt.b, "margin")
    _check_transforms(inst, [_perm_val, _dup_val, _negate_feature, _swap_labels], "pessimistic", 0.3, 3, F=F)


@pytest.mark.parametrize("mode,epsilon", [("optimistic", 0.0), ("pessimistic", 0.0), ("pessimistic", 0.2)])
def test_solver_settings_do_not_change_the_optimum(mode, epsilon):
    inst = _instance("diabetes", 8, 2, 1.0) if mode == "optimistic" else _instance("diabetes", 6, 0, 1.0)
    base = _objective(inst, mode, epsilon, flip=inst[6])
    for name, kw in SETTINGS.items():
        _assert_agree(_objective(inst, mode, epsilon, flip=inst[6], **kw), base, name)


def test_flip_all_equals_the_explicit_index_array_and_scalar_bounds_equal_arrays():
    inst = _instance("diabetes", 8, 1, 1.0)
    base = _objective(inst, "pessimistic", 0.2, flip=np.arange(8))
    _assert_agree(_objective(inst, "pessimistic", 0.2, flip="all"), base, "all")
    scalar = (*inst[:4], 0.0, 1.0)
    _assert_agree(_objective(scalar, "pessimistic", 0.2, flip=np.arange(8)), base, "scalar bounds")


@pytest.mark.slow
@pytest.mark.parametrize("name,n,seed,ub", [("diabetes", 10, 1, 1.0), ("diabetes", 12, 3, 1.0),
                                            ("diabetes", 15, 4, 0.5), ("cancer", 14, 1, 0.1)])
def test_optimistic_sweep(name, n, seed, ub):
    inst = _instance(name, n, seed, ub)
    _check_transforms(inst, TRANSFORMS, "optimistic", 0.0, seed)
    base = _objective(inst)
    for label, kw in SETTINGS.items():
        _assert_agree(_objective(inst, **kw), base, label)


@pytest.mark.slow
@pytest.mark.parametrize("name,n,seed,ub,epsilon", [("diabetes", 8, 1, 1.0, 0.0), ("diabetes", 8, 3, 1.0, 0.2),
                                                    ("cancer", 10, 1, 0.1, 0.2), ("diabetes", 10, 0, 1.0, 0.2)])
def test_pessimistic_sweep(name, n, seed, ub, epsilon):
    _check_transforms(_instance(name, n, seed, ub), TRANSFORMS, "pessimistic", epsilon, seed)
