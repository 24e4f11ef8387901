r"""Baselines a user would otherwise pick: grid search of one regularisation constant, selected on the
validation set (the same training / validation split the bilevel MILPs see).

- :func:`linear_svc_grid`: scikit-learn's ``LinearSVC`` (hinge loss, ``(1/2)(||w||^2 + b^2) + C sum_i hinge``:
  liblinear fits the intercept as the weight of a constant feature of value ``intercept_scaling = 1``, so it
  penalises ``b`` like the weights, unlike the textbook SVM and the LP-SVM, whose ``b`` is free) over a
  logarithmic grid of ``C``;
- :func:`lp_svm_box_grid`: the package's own LP-SVM (Eq. (20) of the pessimistic bilevel tuning paper,
  ``min mean hinge s.t. -c <= w_j <= c``) with a *uniform* box ``w_bar = c 1`` over a grid of ``c``: the
  bilevel problem restricted to one hyperparameter and solved by enumeration.

Selection rule (both): the largest validation accuracy; ties broken by the smaller mean validation hinge
loss, then by the smaller constant (the simpler model). Test data are never looked at.

Inputs are checked as the MILPs' are (:func:`bilevel.validation.check_xy`): labels must be -1 and +1 (0/1
labels were scored against predictions in {-1, +1}: a silently wrong validation accuracy), the training set
needs both classes (the LP-SVM of one class returned a constant classifier), the validation set at least one
row (an empty one gave NaN scores), and the grid at least one constant.
"""
from __future__ import annotations

import warnings

import numpy as np

import bilevel
from bilevel.errors import InputError
from bilevel.validation import as_float_array, check_xy

#: Default grids.
SVC_C_GRID = tuple(float(c) for c in np.logspace(-3, 3, 13))
BOX_GRID = tuple(float(c) for c in np.round(np.linspace(0.05, 1.0, 20), 4))


def _select(candidates):
    # candidates: list of (const, w, b, val_acc, val_hinge); best accuracy, then hinge, then const.
    return min(candidates, key=lambda c: (-c[3], c[4], c[0]))


def _checked(X_train, y_train, X_val, y_val, grid, name: str, allow_zero: bool):
    """The baselines' inputs as float arrays, after the checks of the module docstring; InputError otherwise."""
    X_t, y_t = check_xy(X_train, y_train, "train")
    X_v, y_v = check_xy(X_val, y_val, "val", p=X_t.shape[1], both_classes=False)
    g = as_float_array(grid, name, "a 1-D sequence of constants")
    if g.ndim != 1 or g.size == 0 or not np.isfinite(g).all() or (g < 0).any() or (not allow_zero and (g == 0).any()):
        raise InputError(f"{name} must be a non-empty 1-D sequence of finite constants "
                         f"{'>= 0' if allow_zero else '> 0'}; got {grid!r}")
    return X_t, y_t, X_v, y_v, g


def _val_scores(X_v, y_v, w, b):
    f = X_v @ w - b
    acc = float(np.mean(np.where(f >= 0, 1.0, -1.0) == y_v))
    return acc, float(np.mean(np.maximum(0.0, 1.0 - y_v * f)))


def linear_svc_grid(X_train, y_train, X_val, y_val, C_grid=SVC_C_GRID, seed: int = 0) -> dict:
    """Grid search of ``LinearSVC(C, loss="hinge")`` selected on the validation set (module docstring).

    Shapes: ``X_train`` (|T|, p), ``y_train`` (|T|,), ``X_val`` (|V|, p), ``y_val`` (|V|,), labels in
    {-1, +1}. ``C_grid``: positive constants. Returns ``{"C", "w" (p,), "b", "val_acc", "val_hinge",
    "converged", "unconverged_C"}`` with ``f(x) = x^T w - b``: ``converged`` is False when liblinear stopped
    at ``max_iter`` for the chosen ``C`` (its ConvergenceWarning), ``unconverged_C`` lists every such ``C`` of
    the grid (a tuple, empty when all converged). Raises InputError (a ValueError) for the inputs of the module
    docstring: labels other than -1 and +1, one class in the training set, an empty validation set, NaN, other
    shapes, or a ``C_grid`` that is empty or holds a constant <= 0."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    X_t, y_t, X_v, y_v, C_grid = _checked(X_train, y_train, X_val, y_val, C_grid, "C_grid", allow_zero=False)
    cands, unconverged = [], []
    for C in C_grid:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)  # recorded, not printed: returned per C instead
            svc = LinearSVC(C=float(C), loss="hinge", dual=True, max_iter=100_000, random_state=seed).fit(X_t, y_t)
        if any(issubclass(c.category, ConvergenceWarning) for c in caught):
            unconverged.append(float(C))
        w, b = svc.coef_.ravel().astype(float), -float(svc.intercept_[0])
        if svc.classes_[1] != 1.0:
            w, b = -w, -b
        cands.append((float(C), w, b, *_val_scores(X_v, y_v, w, b)))
    C, w, b, acc, hng = _select(cands)
    return {"C": C, "w": w, "b": b, "val_acc": acc, "val_hinge": hng, "converged": C not in unconverged,
            "unconverged_C": tuple(unconverged)}


def lp_svm_box_grid(X_train, y_train, X_val, y_val, grid=BOX_GRID) -> dict:
    """Grid search of the LP-SVM with a uniform box ``w_bar = c 1`` (module docstring), each fit by
    :func:`bilevel.hinge_lp`. Shapes as :func:`linear_svc_grid`; ``grid``: constants >= 0. Returns ``{"c",
    "w" (p,), "b", "val_acc", "val_hinge"}``. Raises InputError as :func:`linear_svc_grid` (a ``grid`` that is
    empty or holds a constant < 0), bilevel.SolverError if an LP fails."""
    X_t, y_t, X_v, y_v, grid = _checked(X_train, y_train, X_val, y_val, grid, "grid", allow_zero=True)
    cands = []
    for c in grid:
        fit = bilevel.hinge_lp(np.full(X_t.shape[1], float(c)), (X_t, y_t))
        cands.append((float(c), fit.w, fit.b, *_val_scores(X_v, y_v, fit.w, fit.b)))
    c, w, b, acc, hng = _select(cands)
    return {"c": c, "w": w, "b": b, "val_acc": acc, "val_hinge": hng}
