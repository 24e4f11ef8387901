"""The hinge LP of :mod:`bilevel.inner`, solved by ``highspy`` directly (for speed, not for verification).

:func:`bilevel.inner.hinge_lp` goes through ``scipy.optimize.linprog``, which validates and converts its
input on every call: about 1.5 ms per LP at |T| = 20, most of it overhead. The MIP starts of
:mod:`bilevel.warmstart` solve up to three such LPs at each of about a dozen boxes, and the box search of
:mod:`bilevel.box_search` at a few hundred, so they build the same LP here as a dense array handed to
``highspy`` column-wise (about 0.4 ms at |T| = 20). Between boxes only the bounds of ``w`` and the
right-hand sides of the budget rows change, so each LP is loaded into a ``highspy.Highs`` object once and
kept (per thread, the last ``_CACHE_SIZE`` data sets); a later call with the same data changes those bounds,
clears the solver's state and re-solves from scratch, which returns the same solution as a fresh object
(tested) at about a quarter of the time at |T| = 20 (0.1 ms). Verification keeps using the scipy path, so
that it stays independent of this code.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import highspy
import numpy as np

from .errors import InputError, SolverError
from .highs_run import load_model, run_checked, silent_highs
from .inner import HingeLP

_INF = highspy.kHighsInf
_CACHE_SIZE = 16
_LOCAL = threading.local()  # .lps: OrderedDict, data key -> loaded highspy.Highs (HiGHS objects are not thread-safe)


def hinge_lp_highs(w_bar, objective, constraints=(), fixed=None) -> HingeLP:
    """Solve the hinge LP of :mod:`bilevel.inner` (Eq. (20) of the pessimistic bilevel tuning paper,
    generalised) with ``highspy``; same arguments, result and sign conventions as
    :func:`bilevel.inner.hinge_lp`.

    Columns ``(w (p), b, h (sum n_k))``; rows ``y_k (x_k^T w - b) + h_k >= 1`` for every point of every
    block, then ``mean_{k in C_r} h_k <= rhs_r``. ``w_bar`` (p,) >= 0; ``objective`` ``(X, y)``;
    ``constraints`` a sequence of ``(X, y, rhs)``. ``fixed`` (p,), optional: ``w_j`` held at ``fixed_j`` where
    that is not NaN (a value in ``[-w_bar_j, w_bar_j]``), free in its box elsewhere.

    Raises SolverError when HiGHS does not report the LP optimal (e.g. a budget below the block's
    least hinge loss makes it infeasible) or rejects the box or a budget (e.g. NaN), InputError when ``w_bar``
    is not one number per feature (only these are checked, for speed).
    """
    w_bar = np.asarray(w_bar, dtype=float)
    blocks = [objective, *((c[0], c[1]) for c in constraints)]
    blocks = [(np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float)) for X, y in blocks]
    if w_bar.ndim != 1 or any(X.ndim != 2 or X.shape[1] != w_bar.size for X, _ in blocks):
        # a cached LP would change the bounds of the first len(w_bar) columns only and misread the rest
        raise InputError(f"w_bar must be a 1-D array of one half-width per feature; got shape {w_bar.shape} for "
                         f"features of shapes {[X.shape for X, _ in blocks]}")
    p = len(w_bar)
    rhs = np.array([float(c[2]) for c in constraints])
    sizes = [len(block[1]) for block in blocks]
    n_h = sum(sizes)
    lower, upper = -w_bar, w_bar
    if fixed is not None:
        fixed = np.asarray(fixed, dtype=float)
        held = ~np.isnan(fixed)
        lower, upper = np.where(held, fixed, lower), np.where(held, fixed, upper)
    h = _loaded(blocks, lower, upper, rhs, n_h)
    run_checked(h, "hinge LP")
    solution = h.getSolution()
    x = np.asarray(solution.col_value)
    row_dual = np.asarray(solution.row_dual)
    reduced = np.asarray(solution.col_dual)[:p]  # c - A^T y on w: >= 0 at -w_bar, <= 0 at w_bar
    return HingeLP(
        float(h.getInfo().objective_function_value), x[:p].copy(), float(x[p]),
        hinge_duals=np.split(row_dual[:n_h], np.cumsum(sizes)[:-1]), budget_duals=-row_dual[n_h:],
        mu_plus=np.maximum(-reduced, 0.0), mu_minus=np.maximum(reduced, 0.0),
    )


def _loaded(blocks: list, lower: np.ndarray, upper: np.ndarray, rhs: np.ndarray, n_h: int) -> highspy.Highs:
    """A ``highspy.Highs`` holding the hinge LP of ``blocks`` (``(X, y)`` pairs: the objective's, then one per
    budget row; ``n_h`` points in all) with the bounds ``lower <= w <= upper`` and the budgets ``rhs``, ready to
    run from scratch: this thread's cached object for the same data (bounds changed, solver state cleared), or a
    new one. Raises SolverError when HiGHS rejects a new model, or the new bounds of a cached one."""
    key = hashlib.sha1(b"".join(a.tobytes() + repr(a.shape).encode() for block in blocks for a in block)).digest()
    lps = getattr(_LOCAL, "lps", None)
    if lps is None:
        lps = _LOCAL.lps = OrderedDict()
    h = lps.get(key)
    p = len(lower)
    if h is None:
        h = silent_highs()
        load_model(h, _hinge_model(blocks, lower, upper, rhs), "hinge LP")
        lps[key] = h
        if len(lps) > _CACHE_SIZE:
            lps.popitem(last=False)
        return h
    lps.move_to_end(key)
    # A box or budget HiGHS rejects (NaN, a budget of -inf) leaves the previous call's bounds in place: raise, as
    # a new object's load does, rather than solve the previous LP again.
    ok = h.changeColsBounds(p, np.arange(p, dtype=np.int32), lower, upper) != highspy.HighsStatus.kError
    if ok and len(rhs):
        ok = h.changeRowsBounds(len(rhs), np.arange(n_h, n_h + len(rhs), dtype=np.int32), np.full(len(rhs), -_INF),
                                rhs) != highspy.HighsStatus.kError
    if not ok:
        raise SolverError("hinge LP: HiGHS could not load the model (it rejected the box or a budget)")
    h.clearSolver()
    return h


def _hinge_model(blocks: list, lower: np.ndarray, upper: np.ndarray, rhs: np.ndarray) -> highspy.HighsLp:
    """The hinge LP of :func:`hinge_lp_highs` as a ``highspy.HighsLp`` (columns ``(w, b, h)``;
    ``lower <= w <= upper``)."""
    p = len(lower)
    sizes = [len(block[1]) for block in blocks]
    n_h, n_r = sum(sizes), len(rhs)
    n = p + 1 + n_h
    X = np.vstack([block[0] for block in blocks])
    y = np.concatenate([block[1] for block in blocks])
    A = np.zeros((n_h + n_r, n))
    A[:n_h, :p] = y[:, None] * X
    A[:n_h, p] = -y
    A[np.arange(n_h), p + 1 + np.arange(n_h)] = 1.0
    row_upper = np.full(n_h + n_r, _INF)
    offset = p + 1 + sizes[0]
    for r, k in enumerate(sizes[1:]):
        A[n_h + r, offset: offset + k] = 1.0 / k
        row_upper[n_h + r] = rhs[r]
        offset += k
    cost = np.zeros(n)
    cost[p + 1: p + 1 + sizes[0]] = 1.0 / sizes[0]
    cols, rows = np.nonzero(A.T)  # column-major order of the nonzeros
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, n_h + n_r
    lp.col_cost_ = cost
    lp.col_lower_ = np.concatenate([lower, [-_INF], np.zeros(n_h)])
    lp.col_upper_ = np.concatenate([upper, [_INF], np.full(n_h, _INF)])
    lp.row_lower_ = np.concatenate([np.ones(n_h), np.full(n_r, -_INF)])
    lp.row_upper_ = row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(cols, np.arange(n + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows.astype(np.int32)
    lp.a_matrix_.value_ = A.T[cols, rows]
    return lp
