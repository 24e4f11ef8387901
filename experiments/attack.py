r"""Maximum-confidence evasion attack on a linear classifier, in closed form (Section 5.1.2 of the
pessimistic bilevel tuning paper, after Biggio et al., 2013, *Evasion attacks against machine learning at
test time*, as implemented by SecML's gradient-based evasion).

**The attack.** A surrogate linear classifier ``f(x) = x^T w - b`` (a soft linear SVM trained on the
training set only, :func:`fit_surrogate_svm`) is attacked. For a point ``x`` with true label
``y in {-1, +1}`` the maximum-confidence attacker looks for the point of the ``l2`` ball of radius ``rho``
around ``x`` that the surrogate classifies as the wrong class with the largest confidence::

    x' = argmin_{x'}  y f(x')   s.t.  ||x' - x||_2 <= rho

(for a binary classifier with class scores ``(-f, f)``, SecML's objective ``max_{k != y} s_k(x') -
s_y(x')`` equals ``-2 y f(x')``: the same minimiser). The feature space is unbounded (standardised data,
no box constraint).

**Closed form.** ``y f(x') = y f(x) + y w^T (x' - x)``, a linear function of ``delta = x' - x``. By
Cauchy-Schwarz, ``y w^T delta >= -||w||_2 ||delta||_2 >= -rho ||w||_2``, with equality iff
``delta = -rho y w / ||w||_2``. Hence, for ``w != 0``::

    x' = x - rho * y * w / ||w||_2,      ||x' - x||_2 = rho,      y f(x') = y f(x) - rho ||w||_2 <= y f(x)

The gradient-based solver of Biggio et al. converges to this point (the objective is linear, its gradient
constant); the attack does *not* stop at the decision boundary, it keeps going until the budget ``rho`` is
spent (maximum confidence, not minimum distance). When ``w = 0`` every point is a minimiser and ``x`` is
returned unchanged. The SVM's confidence in the true label never increases.

**Which points.** As in the paper, only points *inside the margin of the optimistic hyperplane*
``(w_o, b_o)`` are attacked: ``|x^T w_o - b_o| < 1`` (:func:`margin_mask`).
"""
from __future__ import annotations

import numpy as np

from bilevel.errors import InputError
from bilevel.validation import check_features, check_hyperplane, check_positive, check_xy


#: Largest l2 budget ``rho`` of the perturbed study (:class:`experiments.uci_study.StudyConfig`'s ``rho_tests`` and
#: ``rho_vals``, ``bilevel study --rho-test`` / ``--rho-val``). ``rho`` is a distance in standardised feature units
#: (every feature has standard deviation 1 on the rows the tuner sees); the paper's budgets (Section 5.1.2, Tables
#: A2-A3) run from 0 to 0.6. A point moved by 100 has left the data by 100 standard deviations along one direction, no
#: longer a perturbation of it, and the scores have stopped changing long before: an attacked point ``x - rho y u``
#: is classified by ``sign(-y u^T w)`` alone once ``rho`` exceeds ``|x^T w - b| / |u^T w|`` (measured on cancer and
#: diabetes, |T| = |V| = 10, 3 runs: every model's mean test accuracy is the same at rho_test = 30, 100, 1000 and
#: 1e6). Far above it, an attacked validation row outgrows bilevel.tune's feature scale limit
#: (:data:`bilevel.validation.MAX_SCALE`, ``||x||_1 * w_bar_ub <= 1e5``; ``||x'||_2 >= rho - ||x||_2``): every unit
#: with an attacked validation point failed at rho_val = 1e5 and 1e300, which were accepted.
#: :func:`max_confidence_attack` itself takes any finite budget.
MAX_RHO = 100.0


def max_confidence_attack(X, y, w, b, rho: float, mask=None) -> np.ndarray:
    """Perturb the rows of ``X`` by the closed-form maximum-confidence evasion attack (module docstring).

    Parameters
    ----------
    X : (n, p) points (standardised feature units); y : (n,) true labels in {-1, +1}.
    w : (p,), b : float -- the attacked linear classifier ``f(x) = x^T w - b``.
    rho : l2 budget, ``>= 0`` (same units as ``X``).
    mask : optional (n,) booleans: only these rows are attacked (default: all).

    Returns
    -------
    ``X_adv`` (n, p), a new array: attacked rows are ``x - rho y w / ||w||_2`` (moved by exactly ``rho``),
    the others (and all rows when ``w = 0`` or ``rho = 0``) are unchanged.

    Raises
    ------
    InputError (a ValueError) for mismatched shapes, NaN or inf in ``X``, ``w`` or ``b`` (a NaN weight made
    every row NaN, a NaN feature its row), labels outside {-1, +1}, ``rho < 0`` / not finite, or a ``mask`` with
    values other than booleans, 0 and 1 (row indices).
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],) or w.shape != (X.shape[1],):
        raise InputError(f"need X (n, p), y (n,), w (p,); got X {X.shape}, y {y.shape}, w {w.shape}")
    X, y = check_xy(X, y, "attacked", both_classes=False)
    w, b = check_hyperplane(w, b, X.shape[1])
    rho = check_positive(rho, "rho", allow_zero=True)
    if mask is None:
        mask = np.ones(len(y), dtype=bool)
    else:
        given = np.asarray(mask)
        # an index array (np.where(m)[0]) of length n was read as booleans: [0, 1, 2] attacked rows 1 and 2, not 0
        if given.dtype != bool and not (given.dtype.kind in "iuf" and np.isin(given, (0, 1)).all()):
            raise InputError(f"mask must hold booleans (or 0 and 1), one per row, not row indices; got {mask!r}")
        mask = given.astype(bool)
    if mask.shape != y.shape:
        raise InputError(f"mask must have shape {y.shape}; got {mask.shape}")
    X_adv = X.copy()
    norm = float(np.linalg.norm(w))
    if rho == 0 or norm == 0.0:
        return X_adv
    direction = w / norm
    X_adv[mask] -= rho * y[mask, None] * direction[None, :]
    return X_adv


def margin_mask(X, w, b, width: float = 1.0) -> np.ndarray:
    """(n,) booleans: rows of ``X`` (n, p) strictly inside the margin of ``f(x) = x^T w - b``,
    ``|x^T w - b| < width`` (the paper attacks the points inside the optimistic hyperplane's margin).
    Raises InputError for NaN or inf in ``X``, ``w`` or ``b`` (a NaN weight left every row outside the
    margin, silently: no point attacked), other shapes, or ``width`` not a finite number > 0."""
    X = check_features(X, "margin")
    w, b = check_hyperplane(w, b, X.shape[1])
    width = check_positive(width, "width")
    return np.abs(X @ w - b) < width


def fit_surrogate_svm(X_train, y_train, C: float = 1.0) -> tuple[np.ndarray, float]:
    """The attacker's surrogate: a classical soft-margin linear SVM (hinge loss, ``(1/2)||w||^2 + C sum
    hinge``, libsvm via scikit-learn's ``SVC(kernel="linear")``; SecML's default ``CClassifierSVM`` has
    ``C = 1``) trained on the training set only.

    Shapes: ``X_train`` (|T|, p), ``y_train`` (|T|,) in {-1, +1} with both classes. Returns ``(w, b)`` with
    ``f(x) = x^T w - b`` (scikit-learn's intercept is ``-b``). Raises InputError (a ValueError) for one
    class, labels other than -1 and +1 (labels {1, 2} gave a ``w`` pointing to class 1, {0, 1} were fitted
    and left the attack to refuse them), NaN, or ``C`` not a finite number > 0."""
    from sklearn.svm import SVC

    X_train, y_train = check_xy(X_train, y_train, "train")
    C = check_positive(C, "C")
    # random_state fixed: libsvm uses its seed only for probability estimates (off here), but random_state=None made
    # scikit-learn draw that seed from numpy's global random state, which the study then advanced under its caller
    svc = SVC(kernel="linear", C=C, random_state=0).fit(X_train, y_train)
    w = np.asarray(svc.coef_, dtype=float).ravel()
    b = -float(svc.intercept_[0])
    if svc.classes_[1] != 1.0:  # scikit-learn's decision_function is positive for classes_[1]
        w, b = -w, -b
    return w, b
