"""The LPs behind verification: hinge-loss LPs over a box-constrained linear model, solved with
``scipy.optimize.linprog`` (HiGHS dual simplex), independently of the MILP.

All are instances of one LP (Eq. (20) of the pessimistic bilevel tuning paper, generalised)::

    min_{w, b}  mean_{k in O} max(0, 1 - y_k (x_k^T w - b))
    s.t.        mean_{i in C_r} max(0, 1 - y_i (x_i^T w - b)) <= rhs_r      (r = 1..R)
                -w_bar <= w <= w_bar
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

from .errors import InputError, SolverError
from .validation import as_float_array, as_number, check_hyperplane, check_xy, is_boolean


def hinge(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """Per-point hinge loss ``max(0, 1 - y_k (x_k^T w - b))`` (dimensionless), the loss of the outer objective of
    Eq. (21) of the pessimistic bilevel tuning paper (its mean over ``V``). Shapes: X (n, p), y (n,) in {-1, +1},
    w (p,), b a number -> (n,). Raises InputError for other shapes, labels, NaN/inf values, or booleans as ``w``."""
    X, y = check_xy(X, y, "hinge", both_classes=False)
    w, b = check_hyperplane(w, b, X.shape[1])
    return unchecked_hinge(X, y, w, b)


def unchecked_hinge(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """:func:`hinge` without its input checks, for arrays the caller has checked (the MIP starts' inner loop)."""
    return np.maximum(0.0, 1.0 - y * (X @ w - b))


@dataclass
class HingeLP:
    """Optimal value and an optimal ``(w, b)`` of :func:`hinge_lp`, with optimal dual values: ``hinge_duals``
    (one (n_k,) array per block, objective block first: the multipliers of ``h_k >= 1 - y_k f_k``, >= 0),
    ``budget_duals`` (R,) of the mean-hinge constraints (>= 0), ``mu_plus`` / ``mu_minus`` (p,) of
    ``w <= w_bar`` / ``-w_bar <= w`` (>= 0), in the units of the objective (mean hinge)."""

    value: float
    w: np.ndarray
    b: float
    hinge_duals: list
    budget_duals: np.ndarray
    mu_plus: np.ndarray
    mu_minus: np.ndarray


def hinge_lp(w_bar, objective, constraints=()) -> HingeLP:
    """Solve the hinge LP of the module docstring (Eq. (20) of the pessimistic bilevel tuning paper with mean-hinge
    budget rows, e.g. the epsilon constraint of Eq. (24)).

    Parameters
    ----------
    w_bar : (p,) box half-widths, >= 0.
    objective : ``(X, y)`` with X (n, p), y (n,) in {-1, +1}: the mean hinge loss to minimise.
    constraints : list or tuple of ``(X, y, rhs)``: mean hinge loss of each block <= rhs (mean-hinge units).

    Returns a :class:`HingeLP`: the optimal ``value`` (mean hinge), ``w`` (p,), ``b`` and the duals.

    Raises InputError for a ``w_bar`` that is not a finite (p,) array >= 0, an ``objective`` that is not an
    ``(X, y)`` pair, ``constraints`` not a list or tuple, or a constraint that is not an ``(X, y, rhs)``
    triple with a finite ``rhs``, and for blocks of other shapes, with NaN or labels outside {-1, +1};
    SolverError when the LP is infeasible (a constraint below the block's least hinge loss) or the solver
    fails, also when re-solved without presolve.
    """
    if is_boolean(w_bar):  # [True, True] was read as the box 1 (check_w_bar_bounds refuses it too)
        raise InputError(f"w_bar must hold numbers, not booleans; got {w_bar!r}")
    w_bar = as_float_array(w_bar, "w_bar", "a 1-D array of box half-widths")
    if w_bar.ndim != 1 or w_bar.size == 0 or not np.isfinite(w_bar).all() or (w_bar < 0).any():
        raise InputError(f"w_bar must be a non-empty 1-D array of finite numbers >= 0; got {w_bar!r}")
    p = len(w_bar)
    if not (isinstance(objective, (tuple, list)) and len(objective) == 2):
        raise InputError("objective must be a pair (X, y) of features (n, p) and labels (n,)")
    if not isinstance(constraints, (tuple, list)):  # e.g. 5: a raw TypeError from iterating it
        raise InputError(f"constraints must be a list of triples (X, y, rhs); got {type(constraints).__name__}")
    if not all(isinstance(c, (tuple, list)) and len(c) == 3 for c in constraints):
        raise InputError("each constraint must be a triple (X, y, rhs): mean hinge of (X, y) <= rhs")
    objective = check_xy(*objective, "objective", p=p, both_classes=False, p_from="w_bar")
    constraints = [(*check_xy(X, y, f"constraint{r}", p=p, both_classes=False, p_from="w_bar"),
                    as_number(rhs, f"rhs of constraint {r}")) for r, (X, y, rhs) in enumerate(constraints)]
    if not all(np.isfinite(c[2]) for c in constraints):
        raise InputError("the right-hand sides of the constraints must be finite")
    blocks = [(objective[0], objective[1])] + [(c[0], c[1]) for c in constraints]
    sizes = [len(bl[1]) for bl in blocks]
    n_h = sum(sizes)
    n = p + 1 + n_h
    c = np.zeros(n)
    c[p + 1 : p + 1 + sizes[0]] = 1.0 / sizes[0]
    rows, rhs = [], []
    offset = p + 1
    for X, y in blocks:  # -y_k x_k^T w + y_k b - h_k <= -1
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        k = len(y)
        rows.append(sparse.hstack([
            sparse.csr_matrix(-y[:, None] * X), sparse.csr_matrix(y[:, None]),
            sparse.csr_matrix((k, offset - p - 1)), -sparse.identity(k, format="csr"),
            sparse.csr_matrix((k, n - offset - k)),
        ]))
        rhs.append(-np.ones(k))
        offset += k
    offset = p + 1 + sizes[0]
    for (X, y, r), k in zip(constraints, sizes[1:]):
        row = np.zeros(n)
        row[offset : offset + k] = 1.0 / k
        rows.append(sparse.csr_matrix(row))
        rhs.append([float(r)])
        offset += k
    bounds = [(-wb, wb) for wb in w_bar] + [(None, None)] + [(0, None)] * n_h
    lp = dict(A_ub=sparse.vstack(rows).tocsr(), b_ub=np.concatenate(rhs), bounds=bounds, method="highs")
    res = linprog(c, **lp)
    if res.status != 0:
        # HiGHS's presolve has called feasible LPs infeasible: a budget equal to its block's least hinge loss
        # (epsilon = 0) at a w_bar read back from another solver's 8-digit output solved with presolve off
        # and not with it, even with the budget raised by 1e-9.
        res = linprog(c, **lp, options={"presolve": False})
    if res.status != 0:
        raise SolverError(f"hinge LP failed: {res.message}")
    rows = -np.asarray(res.ineqlin.marginals)  # scipy: d(objective)/d(b_ub) <= 0 for "<=" rows
    cuts = np.cumsum(sizes)
    return HingeLP(
        float(res.fun), res.x[:p].copy(), float(res.x[p]),
        hinge_duals=np.split(rows[: n_h], cuts[:-1]), budget_duals=rows[n_h:],
        mu_plus=-np.asarray(res.upper.marginals[:p]), mu_minus=np.asarray(res.lower.marginals[:p]),
    )


def relaxed_hinge_lp(w_bar, outer, constraints, slacks, solve=hinge_lp):
    """``(solve(w_bar, outer, constraints'), value + s)``, where ``constraints'`` is ``constraints`` (as for
    :func:`hinge_lp`) with the limit ``value`` of the last one raised by the first slack ``s`` of ``slacks``
    (absolute, mean-hinge units, increasing) whose set the LP solver does not call empty. A limit at a least
    loss itself can be called infeasible by round-off. ``solve``: :func:`hinge_lp` or
    :func:`bilevel.hinge_highs.hinge_lp_highs`. Raises the last slack's SolverError when every one fails."""
    *others, (X_c, y_c, value) = constraints
    for k, slack in enumerate(slacks):
        try:
            return solve(w_bar, outer, [*others, (X_c, y_c, value + slack)]), value + slack
        except SolverError:
            if k == len(slacks) - 1:
                raise
