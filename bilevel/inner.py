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

from .errors import SolverError


def hinge(X: np.ndarray, y: np.ndarray, w: np.ndarray, b: float) -> np.ndarray:
    """Per-point hinge loss ``max(0, 1 - y_k (x_k^T w - b))``. Shapes: X (n, p), y (n,), w (p,) -> (n,)."""
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
    """Solve the hinge LP of the module docstring.

    Parameters
    ----------
    w_bar : (p,) box half-widths, >= 0.
    objective : ``(X, y)`` with X (n, p), y (n,) in {-1, +1}: the mean hinge loss to minimise.
    constraints : sequence of ``(X, y, rhs)``: mean hinge loss of each block <= rhs.

    Raises SolverError when the LP is infeasible (a constraint below the block's least hinge loss) or
    the solver fails.
    """
    w_bar = np.asarray(w_bar, dtype=float)
    p = len(w_bar)
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
    res = linprog(c, A_ub=sparse.vstack(rows).tocsr(), b_ub=np.concatenate(rhs), bounds=bounds, method="highs")
    if res.status != 0:
        raise SolverError(f"hinge LP failed: {res.message}")
    rows = -np.asarray(res.ineqlin.marginals)  # scipy: d(objective)/d(b_ub) <= 0 for "<=" rows
    cuts = np.cumsum(sizes)
    return HingeLP(
        float(res.fun), res.x[:p].copy(), float(res.x[p]),
        hinge_duals=np.split(rows[: n_h], cuts[:-1]), budget_duals=rows[n_h:],
        mu_plus=-np.asarray(res.upper.marginals[:p]), mu_minus=np.asarray(res.lower.marginals[:p]),
    )
