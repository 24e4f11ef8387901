"""Ranking tools used to build the reliability graph of RG-PT.

* :func:`bradley_terry` -- maximum-likelihood Bradley-Terry scores from pairwise win counts, Eq. (12)
  of the RG-PT paper (Farzaneh & Simeone).
* :func:`rgpt_win_counts` -- the RG-PT pairwise counts ``w_ij = n_opt p_ij + n_p eta_ij``,
  Eqs. (10)-(11).
* :func:`nonnegative_lasso` -- the non-negative Lasso of Eq. (13), solved as a convex QP with HiGHS and
  polished by an exact active-set method (or, with ``loss="absolute"``, as an LP).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy import optimize
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, logsumexp

from .errors import InputError, SolverError
from .validation import (as_float_array, as_number, check_aligned, check_count, check_flag, check_positive, is_boolean,
                         is_choice)

__all__ = ["bradley_terry", "bradley_terry_log_likelihood", "rgpt_win_counts", "nonnegative_lasso"]


# --------------------------------------------------------------------------------------------------
# Bradley-Terry
# --------------------------------------------------------------------------------------------------


def _check_wins(wins) -> np.ndarray:
    if is_boolean(wins):  # a True read as one win without a word (booleans given as numbers are refused elsewhere)
        raise InputError("wins must hold counts of wins, not booleans; write a beat-at-least-once matrix as numbers "
                         "(wins.astype(float)) if one win per True is meant")
    w = as_float_array(wins, "wins", "a square (m, m) matrix of win counts")
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise InputError(f"wins must be a square (m, m) matrix, got shape {w.shape}")
    if w.shape[0] == 0:
        raise InputError("wins is empty: there is no item to score")
    if not np.all(np.isfinite(w)):
        raise InputError("wins contains NaN or infinite values")
    if w.min() < 0:
        raise InputError("wins must be non-negative (counts of wins)")
    w = w.copy()
    np.fill_diagonal(w, 0.0)  # Eq. (12): w_ii = 0, an item never plays itself
    return w


def bradley_terry_log_likelihood(wins, scores=None, *, log_scores=None) -> float:
    """Log-likelihood of Eq. (12): ``sum_ij w_ij log(s_i / (s_i + s_j))`` (diagonal ignored), in nats.

    ``wins`` shape (m, m); give exactly one of ``scores`` shape (m,) positive, or ``log_scores`` shape (m,)
    finite, ``theta = log s`` as :func:`bradley_terry` returns with ``return_log=True`` (scores whose ratios
    leave the float range, e.g. RG-PT p-values hundreds of orders of magnitude apart, underflow to 0 and are
    refused as scores). Raises ``InputError`` on bad input, or when neither or both of them are given.
    """
    w = _check_wins(wins)
    if (scores is None) == (log_scores is None):
        raise InputError("give exactly one of scores and log_scores")
    if scores is not None:
        s = as_float_array(scores, "scores", "a positive vector with one entry per item")
        if s.shape != (w.shape[0],) or np.any(~np.isfinite(s)) or np.any(s <= 0):
            raise InputError("scores must be a positive vector with one entry per item")
        theta = np.log(s)
    else:
        theta = as_float_array(log_scores, "log_scores", "a finite vector with one entry per item")
        if theta.shape != (w.shape[0],) or np.any(~np.isfinite(theta)):
            raise InputError("log_scores must be a finite vector with one entry per item")
    diff = theta[:, None] - theta[None, :]
    return float(-np.sum(w * np.logaddexp(0.0, -diff)))


def _strongly_connected(w: np.ndarray) -> bool:
    n_comp, _ = connected_components(w > 0, directed=True, connection="strong")
    return n_comp == 1


def _bt_log_ratio_start(w: np.ndarray) -> np.ndarray:
    """Newton's starting point: the least-squares solution of ``theta_i - theta_j = log(w_ij / w_ji)`` over
    the pairs with both counts positive (minimum norm; zeros without such pairs). It is the maximiser
    itself when the counts fit the Bradley-Terry model exactly (``w_ij / w_ji = s_i / s_j``), as the RG-PT
    counts of Eq. (11) do with ``n_p = 0``; from ``theta = 0`` Newton needs about one iteration per unit of
    log-score gap there, and groups of tied items far apart leave the Hessian numerically singular."""
    m = w.shape[0]
    both = (w > 0) & (w.T > 0)
    if not both.any():
        return np.zeros(m)
    # The least-squares problem min ||D theta - r|| over the pairs (D: one row +1/-1 per pair) has the normal
    # equations L theta = b, L = D^T D the graph Laplacian of the pairs, b_i = sum_j r_ij; its minimum-norm
    # solution (mean 0 on each connected component) is L^+ b = D^+ r. Solved with the (m, m) Laplacian, not the
    # (pairs, m) design matrix: that one had m^3 / 2 entries for the dense RG-PT counts (2 GB at m = 800) and
    # lstsq took O(m^4) time (15 s at m = 400, 98% of the fit).
    with np.errstate(divide="ignore", invalid="ignore"):  # log 0 = -inf off the pairs, masked out
        log_w = np.log(w)
        r = np.where(both, log_w - log_w.T, 0.0)  # antisymmetric, r_ij = log(w_ij / w_ji)
    lap = -both.astype(float)
    np.fill_diagonal(lap, both.sum(axis=1))
    theta = np.linalg.lstsq(lap, r.sum(axis=1), rcond=None)[0]
    return theta - theta.mean()


_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # ln 2 = hi + lo, hi of 32 bits


def _bt_times_prob(w: np.ndarray, diff: np.ndarray) -> np.ndarray:
    """``w * expit(diff)`` (m, m) elementwise, to a few eps also where ``expit(diff)`` is below the normal float
    range (``diff < -700``; it is 0 below -745): there ``w e^diff = 2^q (w e^r)``, ``diff = q ln 2 + r``.

    Why: a count of 1e150 times a win probability of e^-800 is 1e-197, a float, though the probability is not.
    Formed as ``w * expit(diff)`` it was 0: a pair whose log-score gap at the maximiser exceeds ~745 (counts
    1e150 against 1e-180) then had no gradient term and no curvature, and Newton raised SolverError ("the scores
    span more orders of magnitude than a float can resolve") on a maximiser whose log-scores are floats. The
    split of ``ln 2`` (fdlibm's) keeps ``q ln 2`` exact, so the product is as accurate as ``w * expit(diff)``."""
    out = w * expit(diff)
    low = (diff < -700.0) & (diff > -2000.0) & (w > 0.0)  # below -2000 the product is 0 for every float w
    if np.any(low):
        d = diff[low]
        q = np.round(d / np.log(2.0))
        r = (d - q * _LN2_HI) - q * _LN2_LO  # |r| <= ln 2 / 2; q * _LN2_HI is exact (|q| < 2^12)
        out[low] = np.ldexp(w[low] * np.exp(r), q.astype(np.int32))
    return out


def _bt_pair_gradient(w: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairwise terms of the gradient of the negative log-likelihood, and the log-score differences.

    ``d_ij = w_ji P_ij - w_ij P_ji`` with ``P_ij = P(i beats j) = expit(theta_i - theta_j)``; ``d`` (m, m) is
    antisymmetric and the gradient is ``grad_i = sum_j d_ij``. Each ``d_ij`` is a difference of two products
    of the same pair only, so pairs whose counts differ by many orders of magnitude do not swamp each other;
    the products are formed by :func:`_bt_times_prob` (no underflow of ``P_ij`` alone). ``diff`` (m, m) is
    ``theta_i - theta_j``.
    """
    diff = theta[:, None] - theta[None, :]
    return _bt_times_prob(w.T, diff) - _bt_times_prob(w, -diff), diff


def _grounded_laplacian_solve(cond: np.ndarray, ref: int, flows: np.ndarray) -> np.ndarray:
    """Solve ``L x = b`` with ``b_i = sum_j flows_ij`` and ``x[ref] = 0``, for the graph Laplacian ``L`` of
    the symmetric non-negative conductances ``cond`` (m, m) (``L_ii = sum_j cond_ij``, ``L_ij = -cond_ij``),
    dropping the equation of node ``ref``. ``flows`` (m, m) is antisymmetric. Returns ``x`` (m,).

    Gaussian elimination in the Grassmann-Taksar-Heyman form: the pivots and the eliminated conductances
    (including each node's conductance to the grounded node ``ref``) are formed from sums and products of
    non-negative numbers only, so they keep full relative accuracy however many orders of magnitude the
    conductances span. The right-hand side is carried as the pairwise flows rather than as node sums: a
    flow between two nodes that elimination merges cancels exactly instead of leaving a rounding error, which
    divided by a tiny conductance would swamp the result (a dense solver, even after diagonal scaling, mixes
    rounding errors of large entries into the tiny ones). Raises SolverError on a zero pivot (a node left
    numerically disconnected because its comparison probabilities underflowed)."""
    keep = np.arange(cond.shape[0]) != ref
    c = cond[np.ix_(keep, keep)].copy()  # the diagonals of c and f_in are never read
    ground = cond[keep, ref].copy()
    f_in = flows[np.ix_(keep, keep)].copy()
    f_ground = flows[keep, ref].copy()
    n = ground.size
    pivot, rhs = np.empty(n), np.empty(n)
    for k in range(n):
        rest = slice(k + 1, None)
        pivot[k] = ground[k] + c[k, rest].sum()
        if not pivot[k] > 0.0:
            raise SolverError("Bradley-Terry (newton): the scores span more orders of magnitude than a float "
                              "can resolve (comparison probabilities underflowed); try pseudo_count > 0")
        rhs[k] = f_in[k, rest].sum() + f_ground[k]
        share = c[rest, k] / pivot[k]  # node k's flows and conductances are passed on in these shares
        to_ground = ground[k] / pivot[k]
        c[rest, rest] += np.outer(share, c[k, rest])
        ground[rest] += share * ground[k]
        f_ground[rest] += share * f_ground[k] + to_ground * f_in[rest, k]
        f_in[rest, rest] += np.outer(share, f_in[k, rest]) + np.outer(f_in[rest, k], share)
    y = np.zeros(n)
    for k in range(n - 1, -1, -1):
        y[k] = (rhs[k] + c[k, k + 1:] @ y[k + 1:]) / pivot[k]
    x = np.zeros(cond.shape[0])
    x[keep] = y
    return x


_EPS = float(np.finfo(float).eps)
_BT_NOISE_CAP = 1e-6  # Newton accepts a step within tol plus its rounding floor only up to this floor


def _bt_step_floor(theta: np.ndarray, curv: np.ndarray, ref: int, products: np.ndarray) -> np.ndarray:
    """Rounding floor (m,) of each entry of the Newton step of :func:`_bt_newton`: each pair term of the gradient
    carries an error of a few eps times the magnitude ``products`` (m, m) of the terms it is formed from, which
    the grounded inverse Laplacian (entrywise non-negative) carries over to the step; plus the rounding of
    ``theta`` itself."""
    noise = _grounded_laplacian_solve(curv, ref, 4.0 * _EPS * products)
    return noise + 4.0 * _EPS * np.max(np.abs(theta))


def _bt_step_at_floor(step: np.ndarray, floor: np.ndarray, tol: float) -> bool:
    """Newton's stopping test: every ``|step_i| <= tol + floor_i`` (whether the floors are small enough to
    trust the point, ``_BT_NOISE_CAP``, is the caller's next question)."""
    return bool(np.all(np.abs(step) <= tol + floor))


def _bt_exact_counts(w: np.ndarray) -> np.ndarray:
    """``w`` (m, m) as exact Python integers, in units of 2^-1074 (object array), for :func:`_bt_count_flows`."""
    exact = np.zeros(w.shape, dtype=object)
    for i, j in zip(*np.nonzero(w)):
        num, den = float(w[i, j]).as_integer_ratio()  # den is a power of 2, at most 2^1074
        exact[i, j] = num * ((1 << 1074) // den)
    return exact


def _max_spanning_tree(cond: np.ndarray) -> tuple[list, np.ndarray]:
    """Prim's maximum spanning tree of the conductances ``cond`` (m, m): the items in the order they joined
    the tree (item 0 first) and each item's ``parent`` (m,) (the item it joined through)."""
    m = cond.shape[0]
    joined = np.zeros(m, dtype=bool)
    best, parent, order = cond[0].copy(), np.zeros(m, dtype=int), [0]
    joined[0] = True
    for _ in range(m - 1):
        k = int(np.argmax(np.where(joined, -np.inf, best)))
        joined[k] = True
        order.append(k)
        closer = ~joined & (cond[k] > best)
        best[closer], parent[closer] = cond[k, closer], k
    return order, parent


def _bt_count_flows(exact: np.ndarray, diff: np.ndarray, curv: np.ndarray) -> np.ndarray:
    """The count part of the gradient of :func:`_bt_pair_gradient` as flows (m, m) along a maximum spanning tree
    of the conductances ``curv``, summed exactly from ``exact`` (:func:`_bt_exact_counts`).

    For ``theta_i > theta_j`` the pair term is ``d_ij = w_ji - N_ij P_ji``: the count of upsets ``w_ji`` (the
    lower item's wins) less their expected number. Where the upsets are far more than expected (an item between
    two others far apart, beating the upper one and losing to the lower one once each: ``[[0, 1e30, 1], [1, 0, 1],
    [1, 1, 0]]``) the terms ``+-1`` of its two pairs cancel in its gradient, and formed pair by pair they left a
    rounding error (~1e-16) of the size of its curvature (~1e-16 there): its log-score was undetermined by ~0.3
    and Newton refused it. Each item's (or subtree's) sum of upsets is exact here (integers), and is carried by
    the tree edge that joins the subtree to the rest, which has the largest conductance across that cut."""
    node = (np.where(diff > 0, exact.T, 0) - np.where(diff < 0, exact, 0)).sum(axis=1)
    order, parent = _max_spanning_tree(curv)
    flows = np.zeros(diff.shape)
    for k in reversed(order[1:]):  # children before parents: node[k] becomes the sum over k's subtree
        node[parent[k]] += node[k]
        flows[k, parent[k]] = node[k] / (1 << 1074)  # int / int: correctly rounded
        flows[parent[k], k] = -flows[k, parent[k]]
    return flows


def _bt_gradient(w: np.ndarray, n_pair: np.ndarray, theta: np.ndarray, exact=None):
    """The pair terms ``d_ij`` (m, m) of the gradient (:func:`_bt_pair_gradient`; with ``exact``
    (:func:`_bt_exact_counts`) their count part summed exactly by :func:`_bt_count_flows` and only the expected
    part formed in floats), the Hessian's conductances ``curv = N_ij P_ij P_ji`` (m, m) and the magnitude (m, m)
    of the terms each ``d_ij`` is formed from (for :func:`_bt_step_floor`)."""
    pair_grad, diff = _bt_pair_gradient(w, theta)
    gap = np.abs(diff)
    curv = _bt_times_prob(n_pair * expit(gap), -gap)  # N_ij P_ij P_ji, the smaller probability last
    if exact is None:
        return pair_grad, curv, _bt_times_prob(w.T, diff) + _bt_times_prob(w, -diff)
    tie = diff == 0.0
    expected = _bt_times_prob(n_pair, -gap)  # N_ij P(the lower item wins)
    counts = _bt_count_flows(exact, diff, curv)
    pair_grad = counts + np.where(tie, pair_grad, np.where(diff > 0, -expected, expected))
    return pair_grad, curv, np.abs(counts) + np.where(tie, 0.5 * n_pair, expected)


def _bt_newton_step(w: np.ndarray, n_pair: np.ndarray, theta: np.ndarray, exact=None):
    """The Newton step (m,) of :func:`_bt_newton` at ``theta`` (``exact``: see :func:`_bt_gradient`), with the
    gradient's pair flows (m, m) it solved for (``-d_ij``), the Hessian's conductances ``curv`` (m, m) and the
    step's rounding floor (m,) (:func:`_bt_step_floor`)."""
    pair_grad, curv, products = _bt_gradient(w, n_pair, theta, exact)
    ref = int(np.argmax(curv.sum(axis=1)))
    floor = _bt_step_floor(theta, curv, ref, products)
    return _grounded_laplacian_solve(curv, ref, -pair_grad), -pair_grad, curv, floor


def _bt_damped_step(flows: np.ndarray, curv: np.ndarray, newton: np.ndarray, cap: float) -> np.ndarray:
    """The Levenberg-Marquardt step (m,) of :func:`_bt_newton`, ``(H + lam I) delta = -grad``, with the smallest
    ``lam`` (to a factor of 1.2, by bisection on ``log lam``) that keeps every ``|delta_i| <= cap``; ``newton``
    (m,) is the Newton step (``lam = 0``), longer than ``cap``, ``flows`` (m, m) the gradient's pair flows it
    solved for.

    Why not the Newton step scaled down to ``cap``: when some items are compared only through tiny counts (a
    pseudo_count of 1e-30) the Hessian's curvature along them is ~1e-30 and their Newton step ~1e+11, so the
    scaled step moved those items alone and left the others where they were; the next step pulled them back,
    and Newton zig-zagged to max_iter (10 of 300 random sparse graphs). ``lam`` only shortens the directions
    whose curvature is below it. ``H + lam I`` is the Laplacian with one more node, joined to every item by the
    conductance ``lam`` and pinned, so :func:`_grounded_laplacian_solve` keeps its accuracy. Each
    ``|delta_i| <= max_i sum_j |d_ij| / lam`` (``H + lam I`` is an M-matrix with row sums ``lam``), which sets
    the largest ``lam`` tried."""
    m = newton.size
    lam_hi = float(np.max(np.abs(flows).sum(axis=1))) / cap
    if not lam_hi > 1e-290:  # a gradient this small: no room to search lam below it; scale the step instead
        return newton * (cap / np.max(np.abs(newton)))
    cond, grounded = np.zeros((m + 1, m + 1)), np.zeros((m + 1, m + 1))
    cond[:m, :m], grounded[:m, :m] = curv, flows

    def solve(log_lam):  # node m: the extra node, pinned
        cond[:m, m] = cond[m, :m] = np.exp(log_lam)
        return _grounded_laplacian_solve(cond, m, grounded)[:m]

    hi = np.log(lam_hi)
    lo = max(hi - 700.0, np.log(1e-300))
    best = solve(hi)
    while hi - lo > 0.2:
        mid = 0.5 * (lo + hi)
        step = solve(mid)
        if np.max(np.abs(step)) <= cap:
            hi, best = mid, step
        else:
            lo = mid
    return best


def _bt_newton(w: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, bool, int]:
    """Newton's method on the convex negative log-likelihood of Eq. (12) in ``theta = log s``.

    Starts from :func:`_bt_log_ratio_start`. The Hessian is the graph Laplacian with conductances
    ``N_ij P_ij P_ji`` (``N = w + w^T``); the Newton step ``delta`` solves ``H delta = -grad`` with one node
    pinned (:func:`_grounded_laplacian_solve`, accurate when the scores span hundreds of orders of
    magnitude). Convergence is judged on stationarity, before any step is taken: ``|delta_i| <= tol + f_i``
    for every item, where ``f_i`` is the rounding floor of ``delta_i`` (:func:`_bt_step_floor`; about eps for
    ordinary counts) and every ``f_i <= max(1e-6, tol)``. An item whose comparisons are all nearly decided, or far
    smaller counts than the rest's (only a tiny pseudo count), has a floor of 3e-6 (item 2 of ``[[0, 1e20, 1], [1, 0,
    1], [1, 1, 0]]``) to 1e+14 (``1e87`` there) or more with the gradient formed pair by pair: its upsets (``+-1``
    there) cancel in its gradient. A step within its floor with some ``f_i > max(1e-6, tol)`` switches, for the rest
    of the fit, to the gradient whose count part is summed exactly (:func:`_bt_count_flows`; floor ~1e-14 there);
    only where that floor too exceeds ``max(1e-6, tol)`` is SolverError raised at once (further iterations would only
    wander inside the floor).
    Near the maximiser the Newton step is the remaining error of ``theta``, item by item, whatever the scale
    of the counts, so the exact start of exactly fitting counts is accepted at once. (A test on the gradient
    itself, absolute or relative to the number of comparisons, cannot see the error of items whose
    comparisons are all very unlikely: their gradient entries are tiny however wrong their scores are.)
    Otherwise the step (where the Newton step moves some log-score by more than 50, the Levenberg-Marquardt
    step of :func:`_bt_damped_step`) is shortened by a bisection on the directional derivative (which needs no
    likelihood values), but never below the length that changes no compared pair's difference by more than 1.
    A vanishing step never ends the iteration; the point after the last of ``max_iter`` steps gets the same
    test. Returns ``(theta, converged, iterations)``; raises SolverError
    from the linear solve (underflow) or when a step is within a rounding floor above ``max(1e-6, tol)`` with the
    count part summed exactly (floating point cannot resolve the maximiser).
    """
    n_pair = w + w.T
    theta = _bt_log_ratio_start(w)
    exact = None
    # max_iter steps and max_iter + 1 stationarity tests: the point after the last step may be the maximiser
    for it in range(1, max_iter + 2):
        step, flows, curv, floor = _bt_newton_step(w, n_pair, theta, exact)
        if exact is None and _bt_step_at_floor(step, floor, tol) and floor.max() > max(_BT_NOISE_CAP, tol):
            exact = _bt_exact_counts(w)  # from here on the count part of the gradient is summed exactly
            step, flows, curv, floor = _bt_newton_step(w, n_pair, theta, exact)
        biggest = np.max(np.abs(step))
        if _bt_step_at_floor(step, floor, tol):
            if floor.max() > max(_BT_NOISE_CAP, tol):  # a floor within tol is an answer to tol (the message says so)
                _bt_unresolved(tol, floor)
            theta = theta + step  # at the maximiser up to tol: take this last (tiny) Newton step and stop
            return theta - theta.mean(), True, min(it, max_iter)
        if it > max_iter:
            break
        if biggest > 50.0:  # trust region: one step moves no log-score by more than 50
            step = _bt_damped_step(flows, curv, step, 50.0)

        def slope(t):  # derivative along the step at theta + t step: sum over pairs of d_ij (step_i - step_j)
            pair = _bt_gradient(w, n_pair, theta + t * step, exact)[0]
            return 0.5 * float(np.sum(pair * (step[:, None] - step[None, :])))

        t = 1.0
        if slope(1.0) > 0.0:  # convex along the line: bisect for the zero of the derivative
            lo, hi = 0.0, 1.0
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if slope(mid) > 0.0:
                    hi = mid
                else:
                    lo = mid
            t = lo  # the derivative is <= 0 on [0, lo]: the objective does not increase
        # The derivative is dominated by the pairs with the most comparisons; when rounding makes it useless
        # for the others (t = 0), fall back to a step that changes no compared pair's difference by more than 1:
        # it decreases the objective because the curvature of log(1 + e^x) changes by at most a factor e^|dx|.
        moved = np.abs(step[:, None] - step[None, :])[n_pair > 0].max()
        t = max(t, 1.0 / max(moved, 1.0))
        theta = theta + t * step
        theta -= theta.mean()
    return theta, False, max_iter


def _bt_unresolved(tol: float, floor: np.ndarray):
    """Raise the SolverError of :func:`_bt_newton` for a step within a rounding floor ``floor`` (m,) above
    ``max(1e-6, tol)``."""
    step = 10.0 ** (np.floor(np.log10(floor.max())) - 1.0)  # the floor rounded up to two digits: enough as tol
    enough = np.ceil(floor.max() / step) * step
    raise SolverError(
        f"Bradley-Terry (newton): floating point cannot resolve every log-score to within tol={tol:g}: rounding "
        f"in the likelihood's gradient moves some by up to {floor.max():.3g} (items whose only comparisons are "
        "far smaller counts than the others', e.g. from a tiny pseudo_count); use a "
        "larger pseudo_count" + (f" or a tol of at least {enough:.2g}" if enough <= 0.01 else ""))


def _bt_mm(w: np.ndarray, tol: float, max_iter: int) -> tuple[np.ndarray, bool, int]:
    """Hunter's (2004) MM iteration ``s_i <- W_i / sum_j N_ij / (s_i + s_j)``, in logs: ``theta_i <- log W_i -
    logsumexp_j(log N_ij - logaddexp(theta_i, theta_j))``, then ``theta -= logsumexp(theta)``. (In scores,
    ``s_i`` below 1e-308 underflowed to 0 and ``N_ij / (s_i + s_j)`` gave inf and NaN.) It stops once an
    iteration changes no ``theta_i`` by ``tol`` or more *and* the point passes :func:`_bt_newton`'s stationarity
    test (the Newton step, near the maximiser the remaining error, within ``tol`` plus its rounding floor):
    MM converges linearly, and where its rate is close to 1 a change below ``tol`` left log-scores 475 times
    ``tol`` from the maximiser (tol 1e-10, five items, counts of 34 to 4341, pseudo count 0.5)."""
    m = w.shape[0]
    n_pair = w + w.T
    log_won = np.log(w.sum(axis=1))
    theta = np.full(m, -np.log(m))
    for it in range(1, max_iter + 1):
        new = log_won - logsumexp(-np.logaddexp(theta[:, None], theta[None, :]), axis=1, b=n_pair)
        new -= logsumexp(new)
        if np.max(np.abs(new - theta)) < tol:
            step, _, _, floor = _bt_newton_step(w, n_pair, new)
            if _bt_step_at_floor(step, floor, tol):
                return new, True, it
        theta = new
    return theta, False, max_iter


def bradley_terry(
    wins,
    *,
    pseudo_count: float = 0.0,
    method: str = "newton",
    tol: float = 1e-10,
    max_iter: int | None = None,
    return_log: bool = False,
) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry scores, Eq. (12) of the RG-PT paper.

    Under the Bradley-Terry model item ``i`` beats item ``j`` with probability ``s_i / (s_i + s_j)``.
    The scores maximise ``sum_ij w_ij log(s_i / (s_i + s_j))`` and are normalised to sum to 1.

    Parameters
    ----------
    wins : array_like, shape (m, m)
        ``wins[i, j]`` = (possibly fractional) number of times ``i`` beat ``j``. The diagonal is
        ignored (``w_ii = 0``). Pairs never compared (``wins[i, j] = wins[j, i] = 0``) are allowed.
    pseudo_count : float >= 0
        Regularisation: adds ``pseudo_count`` to every off-diagonal entry, i.e. a virtual
        ``pseudo_count : pseudo_count`` draw between every pair. This shrinks the scores towards equality
        and always makes the maximiser finite and unique. Where a tiny pseudo count (1e-30, say) is all that
        links some items, their log-scores run to ~log(1 / pseudo_count) apart and Newton still finds them
        (tested down to 1e-200; the win counts of each item are summed exactly, so an item compared only through
        the pseudo count is placed between the others to ~1e-9). Items far apart in a flat stretch of the
        likelihood can need more than the default ``max_iter`` (Newton moves them ~1 in log-score per step there):
        SolverError "did not converge ... try a larger max_iter", never an unconverged answer.
    method : {"newton", "mm"}
        ``"newton"``: damped Newton on the (concave) log-likelihood in ``theta = log s``; fast and
        accurate even when the scores span hundreds of orders of magnitude. ``"mm"``: Hunter's (2004)
        minorise-maximise iteration (monotone but slow when scores are far apart).
    tol : float > 0
        Convergence tolerance on ``log s``. Newton stops at a stationary point: when its next step (near the
        maximiser, the remaining error of ``log s``) moves no ``log s_i`` by more than ``tol``; a start that
        is already stationary is returned after one check. MM stops when an iteration changes no ``log s_i``
        by more than ``tol`` (up to the common normalisation, that change is ``log`` of the item's wins over
        its expected wins) and Newton's stationarity test holds there too (MM's change alone can be far smaller
        than its remaining error). Newton's ``tol`` is widened, item by item, by the step's rounding floor (about
        1e-14 for log-scores of order 100) when that floor is at most ``max(1e-6, tol)``; a larger floor is a
        SolverError, not an answer. Nearly certain outcomes are no obstacle: item 2 of ``[[0, W, 1], [1, 0, 1], [1,
        1, 0]]`` (score ratios to its neighbours ~sqrt(W)) is found to ~1e-13 in log-score for W from 1e20 to
        1e200. The step is the remaining error only near the maximiser (far from it, about 1 per item): a ``tol``
        of 0.5 or more can stop far from it (``tol=1`` gave ``W = 1e20`` a log-score gap of 31.7 against 45.36),
        so keep ``tol`` small.
    max_iter : int >= 1, optional
        Default 500 (Newton) or 100000 (MM).
    return_log : bool
        Return ``log s`` (normalised so that ``sum(exp(log s)) = 1``) instead of ``s``. Use it when the
        scores span more orders of magnitude than a float can hold: the log-scores are computed in logs
        throughout (win probabilities below 1e-308 included) and can be ~1400 apart (score ratios of ~1e600;
        plain scores hold ratios up to ~1e308).

    Returns
    -------
    ndarray, shape (m,): positive scores summing to 1 (or their logarithms). A score below the normal float
    range (``log s < -708``) is 0 or a subnormal: a RuntimeWarning then names ``return_log=True``.

    Raises
    ------
    InputError
        ``wins`` not numeric, not square, empty, negative or non-finite; ``pseudo_count`` not a number or ``< 0``; an
        unknown ``method``; ``tol`` not a finite number ``> 0``; ``max_iter`` not an integer ``>= 1``; ``return_log``
        not a bool; positive counts spanning more than about 473 orders of magnitude with the largest above 1e150 (they
        are scaled down to at most 1e150; counts all below 1, subnormal ones included, are scaled up by a power of 2);
        or **no finite maximiser exists**. By Ford's (1957) condition a finite maximiser exists (and is unique up to
        scale) iff the directed graph with an edge ``i -> j`` whenever ``wins[i, j] > 0`` is strongly connected:
        otherwise some group of items never loses to the rest, and its scores run off to infinity. The error names the
        problem and suggests ``pseudo_count > 0``.
    SolverError
        The iteration did not converge within ``max_iter`` (or, Newton, the scores span more than a float
        can resolve, or rounding leaves some log-score undetermined by more than ``max(1e-6, tol)`` even with the
        win counts summed exactly); never an unconverged answer.
    """
    w = _check_wins(wins)
    m = w.shape[0]
    c = as_number(pseudo_count, "pseudo_count")
    if not np.isfinite(c) or c < 0:
        raise InputError(f"pseudo_count must be a finite non-negative number, got {pseudo_count!r}")
    if not is_choice(method, ("newton", "mm")):
        raise InputError(f"method must be 'newton' or 'mm', got {method!r}")
    tol = check_positive(tol, "tol")
    if max_iter is None:
        max_iter = 500 if method == "newton" else 100_000
    max_iter = check_count(max_iter, "max_iter", 1)
    return_log = check_flag(return_log, "return_log")  # "no" would be truthy: log-scores returned as scores
    if m == 1:
        return np.zeros(1) if return_log else np.ones(1)
    if c > 0:
        w = w + c * (1.0 - np.eye(m))
    if not _strongly_connected(w):
        raise InputError(
            "Bradley-Terry: no finite maximum-likelihood scores exist, because the comparison graph is not "
            "strongly connected (some items never lose to, or never play, the others); "
            "pass pseudo_count > 0 to regularise"
        )
    if w.max() > 1e150:
        # Eq. (12) times a constant has the same maximiser; counts near the float limit overflowed w + w^T
        # (1e308 + 1e308) and the iteration failed with a misleading message. Scaled by a power of 2 down to
        # at most 1e150 (not to 1, which turned counts below 1e-158 into 0)
        scaled = np.ldexp(w, -int(np.ceil(np.log2(w.max() / 1e150))))
        if np.any((scaled > 0) != (w > 0)):
            raise InputError("Bradley-Terry: the positive counts span more orders of magnitude than a float can "
                             f"hold once scaled (from {w[w > 0].min():.3g} to {w.max():.3g})")
        w = scaled
    elif w.max() < 1.0:
        # the same for counts below the normal float range (5e-324 both ways, or every count times 1e-315): Newton
        # raised SolverError ("comparison probabilities underflowed") or ran to max_iter; scaled up by a power of 2
        # (exact) to a largest count in [1, 2)
        w = np.ldexp(w, -int(np.frexp(w.max())[1]) + 1)
    if method == "newton":
        theta, ok, _ = _bt_newton(w, tol, max_iter)
    else:
        theta, ok, _ = _bt_mm(w, tol, max_iter)
    if not ok:
        hint = "a larger max_iter" if c > 0 else "pseudo_count > 0 or a larger max_iter"
        if method == "mm":  # MM converges linearly, and slowly where scores are far apart (Newton: quadratically)
            hint += ", or method='newton'"
        raise SolverError(f"Bradley-Terry ({method}) did not converge within max_iter={max_iter}; try {hint}")
    log_s = theta - logsumexp(theta)
    if return_log:
        return log_s
    scores = np.exp(log_s)
    lost = int(np.sum(scores < np.finfo(float).tiny))
    if lost:  # exp(-745) is 0: "positive scores" would be silently false, and their order lost
        warnings.warn(f"Bradley-Terry: {lost} of {m} scores are below the float range (log-scores down to "
                      f"{log_s.min():.4g}) and came out as 0 or subnormal; use return_log=True",
                      RuntimeWarning, stacklevel=2)
    return scores


def rgpt_win_counts(p_values_opt, n_opt: int, *, eta=None, n_p: float = 0.0) -> np.ndarray:
    """RG-PT pairwise counts ``w_ij = n_opt * p_ij + n_p * eta_ij``, Eqs. (10)-(11) of the RG-PT paper.

    ``p_ij`` is the data-driven probability that candidate ``i`` is *more reliable* than ``j``. The paper
    prints ``p_ij = p_i / (p_i + p_j)`` with ``p_i`` the p-value of ``i`` on the optimisation split,
    which would make the *less* reliable candidate (larger p-value) win and put it at the root of the
    graph, contradicting Sec. 3.2.1 ("Lambda_1 contains the hyperparameters with the highest expected
    reliability") and Pareto testing, which tests small p-values first. We therefore use
    ``p_ij = p_j / (p_i + p_j)``: with ``n_p = 0`` the Bradley-Terry scores are then proportional to
    ``1 / p_i``, i.e. the same ordering as the p-values, most reliable first. ``p_ij`` is computed in log
    space (``expit(log p_j - log p_i)``) and p-values are floored at 1e-300, so underflow cannot create
    pairs that are never lost.

    Parameters
    ----------
    p_values_opt : array_like, shape (m,)
        p-values on the optimisation split, in [0, 1].
    n_opt : int
        Size of the optimisation split, ``|Z_OPT|``.
    eta : array_like, shape (m, m), optional
        Prior probabilities ``eta_ij`` that ``i`` is more reliable than ``j``, in [0, 1], with
        ``eta_ij + eta_ji = 1`` off the diagonal (checked to 1e-6). Checked also when ``n_p == 0`` (as
        :func:`bilevel.certify.rg_pt` checks it), where it adds nothing to the counts.
    n_p : float >= 0
        Pseudo-count giving the strength of the prior (a finite number, fractional allowed; not a bool).

    Returns
    -------
    ndarray, shape (m, m), zero diagonal.

    Raises
    ------
    InputError
        Bad p-values (booleans included), ``n_opt`` not a positive integer, ``n_p`` not a finite number
        ``>= 0`` (a bool, a string or ``None`` included), ``eta`` not numeric, of the wrong shape, outside [0, 1] or not
        complementary, ``n_p > 0`` without ``eta``.
    """
    if is_boolean(p_values_opt):  # a rejection mask is no p-values: True would be read as p = 1 (as in procedures)
        raise InputError(f"p_values_opt must be p-values in [0, 1], not booleans; got {p_values_opt!r}")
    p = as_float_array(p_values_opt, "p_values_opt", "a 1-D array of p-values in [0, 1]")
    if p.ndim != 1 or p.size == 0 or np.any(~np.isfinite(p)) or p.min() < 0 or p.max() > 1:
        raise InputError("p_values_opt must be a non-empty 1-D array of p-values in [0, 1]")
    n_opt_f = as_number(n_opt, "n_opt")
    if not np.isfinite(n_opt_f) or n_opt_f != round(n_opt_f) or n_opt_f < 1:
        raise InputError(f"n_opt must be a positive integer, got {n_opt!r}")
    n_opt = int(n_opt_f)
    n_p = check_positive(n_p, "n_p (prior pseudo-count)", allow_zero=True)
    log_p = np.log(np.maximum(p, 1e-300))
    prob = expit(log_p[None, :] - log_p[:, None])  # prob[i, j] = p_j / (p_i + p_j)
    w = int(n_opt) * prob
    if n_p > 0 and eta is None:
        raise InputError("n_p > 0 needs a prior matrix eta")
    if eta is not None:  # a wrong eta at n_p = 0 was ignored without a word, where rg_pt refused it
        e = check_eta(eta, p.size)
        if n_p > 0:
            w = w + n_p * np.where(~np.eye(p.size, dtype=bool), e, 0.0)
    np.fill_diagonal(w, 0.0)
    return w


# --------------------------------------------------------------------------------------------------
# Non-negative Lasso
# --------------------------------------------------------------------------------------------------


def check_eta(eta, m: int) -> np.ndarray:
    """Return the prior matrix ``eta`` (m, m) of Eq. (11) of the RG-PT paper, as used by :func:`rgpt_win_counts`
    (``eta_ij``: prior probability that
    candidate ``i`` is more reliable than ``j``) as floats after checking it: off the diagonal (which is
    ignored) probabilities in [0, 1], no NaN, with ``eta_ij + eta_ji = 1`` to 1e-6. Raises InputError, also
    when ``m`` is not an integer >= 0 (``m=True`` or ``2.5`` asked for the shape ``(True, True)``)."""
    m = check_count(m, "m (number of candidates)", 0)
    e = as_float_array(eta, "eta", f"a numeric ({m}, {m}) matrix of prior probabilities")
    if e.shape != (m, m):
        raise InputError(f"eta must have shape ({m}, {m}) (one row and column per candidate), got {e.shape}")
    off = ~np.eye(m, dtype=bool)
    vals = e[off]
    if not (np.all(vals >= 0.0) and np.all(vals <= 1.0)):  # False for NaN too
        raise InputError("eta must hold probabilities in [0, 1] off the diagonal (no NaN)")
    if np.any(np.abs((e + e.T)[off] - 1.0) > 1e-6):
        raise InputError("eta must satisfy eta_ij + eta_ji = 1 for i != j")
    return e


def _check_xy(X, y) -> tuple[np.ndarray, np.ndarray]:
    check_aligned(X, y)
    x = as_float_array(X, "X", "a numeric 2-D (n, k) matrix")
    v = as_float_array(y, "y", "a numeric 1-D array")
    if x.ndim != 2:
        raise InputError(f"X must be a 2-D (n, k) matrix, got shape {x.shape}")
    if v.ndim != 1 or v.shape[0] != x.shape[0]:
        raise InputError(f"y must have shape ({x.shape[0]},), got {v.shape}")
    if x.shape[0] == 0:
        raise InputError("X has no rows")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(v))):
        raise InputError("X and y must be finite (no NaN)")
    return x, v


_QP_ITERATION_LIMIT = 100_000  # HiGHS's active-set QP can cycle on degenerate 0/1 designs; then try the other form
# qp_regularization_value, tried in turn: 0 made HiGHS stop at points violating the KKT conditions on some random
# designs; 1e-10 made it declare the QP "non-convex" (status Not Set) or cycle when X has more columns than
# rows (the beta directions in the null space of X have no other curvature); 1e-7 is HiGHS's default
_QP_REGULARIZATIONS = (1e-10, 1e-7)
_REFINEMENTS = 3  # rounds of iterative refinement after both QP forms missed the KKT conditions (one was enough)


def _nnls_qp_highs(x: np.ndarray, v: np.ndarray, tau) -> np.ndarray:
    """Eq. (13) with HiGHS's QP solver; ``x`` (n, k), ``v`` (n,), ``tau`` a number or one finite penalty per
    column (k,); returns ``beta`` (k,).

    When every ``tau_j >= 2 x_j^T v`` the KKT conditions hold at ``beta = 0``, which is returned without a
    solve. Otherwise the problem is rewritten with unit-norm columns and target (:func:`_scaled_problem`, an
    equivalent problem), so that HiGHS's absolute tolerances mean the same whatever the units of the data
    (unscaled, a single column of norm 0.01 made HiGHS report the residual form "unbounded"). It is solved
    in residual form over a thin QR factor (:func:`_residual_qp`) and, if that run fails or its point
    violates the KKT conditions (:func:`_kkt_residual`), in Gram form (:func:`_gram_qp`). HiGHS 1.15
    mis-solved the Gram form on rank-deficient 0/1 designs (non-optimal points marked optimal, or
    "unbounded") and cycled on the residual form of degenerate ones, so neither form alone is enough. Both
    forms run first with HiGHS's Hessian regularisation lowered to 1e-10, then with its default 1e-7
    (``_QP_REGULARIZATIONS``): with more columns than rows 1e-10 made HiGHS call both forms "non-convex"
    (status "Not Set") or cycle, on about 5% of random designs. When no point meets the KKT conditions, the
    best one (``beta = 0`` if all runs failed) is refined: the correction ``beta + s u`` (``s`` its KKT
    residual) solves the same problem for the residual target ``(v - x beta) / s``, the penalty ``tau / s``
    and ``u >= -beta / s``, in which the remaining error is of size 1 again. (With ``tau`` just below
    ``2 max_j x_j^T v`` the optimum is a small ``beta`` whose gradient terms are ~1e-4 of the data: HiGHS
    returned ``beta = 0`` as optimal, or "unbounded", for both forms.) Raises SolverError when neither these
    rounds nor the polish below give a point that meets the KKT conditions.

    HiGHS's point is then polished by an exact active-set method (:func:`_active_set_polish`): HiGHS's Hessian
    regularisation puts ``regularization * beta`` into the gradient, which with more columns than rows and
    ``tau`` of that size or below outweighs the penalty, and its accepted point had another support (off by O(1)
    on 38 of 200 random designs with ``n < k`` and ``tau = 1e-12..1e-4``). When the polish cannot certify a
    point, HiGHS's is returned. When every HiGHS run fails, the polish from the best point (or 0) is tried before
    raising SolverError."""
    if np.all(tau >= 2.0 * (x.T @ v)):
        return np.zeros(x.shape[1])
    xs, vs, penalty, unscale = _scaled_problem(x, v, tau)
    failures = []
    beta, scale = np.zeros(xs.shape[1]), 1.0
    for attempt in range(1 + _REFINEMENTS):
        best = None
        for regularization, form in itertools.product(_QP_REGULARIZATIONS, (_residual_qp, _gram_qp)):
            name = f"{form.__name__.lstrip('_')} (regularisation {regularization:.0e})"
            try:
                step = form(xs, (vs - xs @ beta) / scale, penalty / scale, -beta / scale, regularization)
            except SolverError as exc:
                failures.append(f"{name}: {exc}")
                continue
            candidate = np.maximum(beta + scale * step, 0.0)
            residual, tol = _kkt_residual(xs, vs, penalty, candidate)
            if residual <= tol:
                polished = _active_set_polish(xs, vs, penalty, candidate)
                return unscale(candidate if polished is None else polished)
            failures.append(f"{name}: KKT conditions violated by {residual:.2e} "
                            f"(scaled problem, tolerance {tol:.1e})")
            if best is None or residual < best[1]:
                best = (candidate, residual)
        if best is not None:
            beta = best[0]
        scale = _kkt_residual(xs, vs, penalty, beta)[0]
        if not scale > 0.0:
            break
    polished = _active_set_polish(xs, vs, penalty, beta)  # from the best point HiGHS found, else beta = 0
    if polished is not None:
        return unscale(polished)
    raise SolverError("non-negative Lasso QP: " + "; ".join(failures))


def _passive_solve(a: np.ndarray, v: np.ndarray, pen: np.ndarray):
    """Minimiser ``z`` (p,) of ``||v - a z||^2 + pen^T z`` over all of R^p for ``a`` (n, p), from an SVD of ``a``:
    ``(z, None)``; or, when ``a`` is numerically rank deficient, ``(None, d)`` with ``a d = 0`` (a null vector)."""
    n, p = a.shape
    u, sv, vt = np.linalg.svd(a, full_matrices=p > n)  # all of V^T when p > n (a null vector), U only thin
    if sv.size < p or sv[-1] <= sv[0] * p * _EPS * 64:
        return None, vt[-1]
    vt = vt[:sv.size]
    z = vt.T @ ((u[:, :sv.size].T @ v) / sv - (vt @ pen) / (2.0 * sv ** 2))  # a^T a z = a^T v - pen / 2
    return z, None


def _active_set_polish(x: np.ndarray, v: np.ndarray, pen: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The minimiser (k,) of ``||v - x beta||^2 + pen^T beta`` over ``beta >= 0`` (the scaled problem of
    :func:`_scaled_problem`: ``x`` (n, k), ``v`` (n,), ``pen`` (k,)) to rounding, by a primal active-set method
    (Lawson and Hanson's NNLS algorithm, 1974, with the linear term) started from a point ``beta >= 0`` (k,)
    from HiGHS, which meets the KKT conditions to about 1e-6 only; None when it cannot certify a point.

    Why: HiGHS adds ``qp_regularization_value`` (1e-10 or 1e-7) times ``beta`` to the gradient. With more columns
    than rows and a penalty of that size or smaller, this ridge term outweighs the Lasso penalty in the null
    space of ``x``, and HiGHS's point lay on another face: another support, coefficients off by O(1), all within
    the 1e-6 tolerance. On a fixed support P the minimiser solves ``x_P^T x_P z = x_P^T v - pen_P / 2``; a
    support with dependent columns is first reduced along a null vector ``d`` of ``x_P`` (the objective changes
    by ``pen^T d``: the sign that does not increase it). The point is returned when the gradient
    ``g = 2 x^T (x beta - v) + pen`` is >= ``-t`` off the support, with ``t = 8 eps (1 + 2 ||x beta|| + 2 ||v||)``
    (its rounding floor), and within ``16 t max(1, max beta)`` of 0 on it; None after a cycle (``3 k + 10``
    rounds) or on a support too ill-conditioned to meet that."""
    n, k = x.shape
    if n > k:  # x = Q R: the same gradient x^T (x b - v) = R^T (R b - Q^T v), with k rows instead of n
        q, x = np.linalg.qr(x, mode="reduced")
        v = q.T @ v
    b = beta.copy()
    passive = b > 0.0
    for _ in range(3 * k + 10):
        for _ in range(3 * k + 10):  # inner loop: the minimiser on the passive set, kept feasible
            cols = np.flatnonzero(passive)
            if cols.size == 0:
                break
            z, null = _passive_solve(x[:, cols], v, pen[cols])
            if z is not None and np.all(z > 0.0):
                b[cols] = z
                break
            if z is None:  # dependent columns: move along the null vector, in the direction with pen^T d <= 0
                d = null if pen[cols] @ null < 0.0 or (pen[cols] @ null == 0.0 and null.min() < 0.0) else -null
                neg = d < 0.0
                ratios = b[cols][neg] / -d[neg]
            else:  # towards z until the first coordinate reaches 0
                d = z - b[cols]
                neg = z <= 0.0
                ratios = b[cols][neg] / (b[cols][neg] - z[neg])
            hit = cols[neg][np.argmin(ratios)]
            b[cols] = np.maximum(b[cols] + ratios.min() * d, 0.0)
            b[hit] = 0.0
            passive = b > 0.0
        else:
            return None
        fitted = x @ b
        g = 2.0 * (x.T @ (fitted - v)) + pen
        tol = 8.0 * _EPS * (1.0 + 2.0 * (_norm(fitted) + _norm(v)))
        if np.any(np.abs(g[passive]) > 16.0 * tol * max(1.0, float(np.max(b)))):
            return None  # the support's system is too ill-conditioned to trust
        g[passive] = np.inf
        j = int(np.argmin(g))
        if g[j] >= -tol:
            return b
        passive[j] = True
    return None


def _norm(a: np.ndarray, axis=None) -> np.ndarray | float:
    """Euclidean norm(s) of ``a`` (along ``axis``) that neither overflow nor underflow for entries of any finite
    size: ``np.linalg.norm`` squares the entries, so 1e155 gave inf and 1e-170 gave 0. Each vector is divided by
    its largest absolute entry first."""
    big = np.max(np.abs(a), axis=axis, initial=0.0)
    safe = np.where(big > 0.0, big, 1.0)
    scaled = a / (safe if axis is None else np.expand_dims(safe, axis))
    return big * np.linalg.norm(scaled, axis=axis)


def _scaled_problem(x: np.ndarray, v: np.ndarray, tau):
    """Eq. (13) in scaled variables: with the column norms ``c_j = ||x_j||`` and ``sigma = ||v|| > 0``,
    ``beta_j = sigma b_j / c_j`` turns ``||v - x beta||^2 + tau sum(beta)`` into ``sigma^2 (||v / sigma -
    sum_j b_j x_j / c_j||^2 + sum_j tau / (sigma c_j) b_j)``: unit-norm columns, a unit-norm target and
    the per-column penalties ``tau / (sigma c_j)`` (``tau`` a number or one per column). Zero columns are
    dropped (their ``beta_j = 0`` is optimal). Meant for the data of :func:`_binary_rescale` (every ``c_j`` and
    ``sigma`` at least 0.5): with 1e-170 in ``x`` and ``v`` the product ``sigma c_j`` underflowed to 0 and
    ``tau = 0`` gave the penalty NaN. Returns ``(xs, vs, penalty, unscale)``; ``unscale(b)`` gives ``beta`` (k,)."""
    norms = _norm(x, axis=0)
    used = norms > 0.0
    sigma = float(_norm(v))
    factor = sigma / norms[used]

    def unscale(b: np.ndarray) -> np.ndarray:
        beta = np.zeros(x.shape[1])
        beta[used] = b * factor
        return beta

    tau_used = np.broadcast_to(tau, (x.shape[1],))[used]
    return x[:, used] / norms[used], v / sigma, tau_used / (sigma * norms[used]), unscale


def _run_qp(lp, hess, what: str, regularization: float) -> np.ndarray:
    """Solve the QP ``(lp, hess)`` with HiGHS within ``_QP_ITERATION_LIMIT`` iterations; its column values.

    HiGHS adds ``qp_regularization_value`` (default 1e-7) to the Hessian's diagonal, which biases the
    solution by about that much relative to the curvature of the data; it is set to ``regularization`` (one of
    ``_QP_REGULARIZATIONS``: 1e-10 first, which is not always enough for HiGHS on semidefinite Hessians)."""
    import highspy

    from .highs_run import run_to_optimality, silent_highs

    model = highspy.HighsModel()
    model.lp_ = lp
    model.hessian_ = hess
    h = silent_highs()
    h.setOptionValue("qp_iteration_limit", _QP_ITERATION_LIMIT)
    h.setOptionValue("qp_regularization_value", regularization)
    run_to_optimality(h, model, what)
    return np.asarray(h.getSolution().col_value, dtype=float)


def _residual_qp(x: np.ndarray, v: np.ndarray, tau, lower=0.0,
                 regularization: float = _QP_REGULARIZATIONS[0]) -> np.ndarray:
    """``min ||r||^2 + tau^T beta  s.t.  r + R beta = Q^T v,  beta >= lower`` over a thin QR factor
    ``x = Q R``: Eq. (13) minus the constant ``||v||^2 - ||Q^T v||^2``, with ``min(n, k)`` residuals and the
    Hessian ``2 I`` on ``r``; ``tau`` and ``lower`` numbers or one per column; ``regularization`` as in
    :func:`_run_qp`. Returns ``beta`` (k,)."""
    import highspy

    k = x.shape[1]
    q, r_mat = np.linalg.qr(x, mode="reduced")  # r_mat: (d, k), d = min(n, k)
    d = r_mat.shape[0]
    inf = highspy.kHighsInf
    target = q.T @ v
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = k + d, d
    lp.col_cost_ = np.concatenate([np.broadcast_to(tau, (k,)), np.zeros(d)])
    lp.col_lower_ = np.concatenate([np.broadcast_to(lower, (k,)), np.full(d, -inf)])
    lp.col_upper_ = np.full(k + d, inf)
    lp.row_lower_ = target
    lp.row_upper_ = target.copy()
    a = np.hstack([r_mat, np.eye(d)])  # column-wise: beta columns, then the residuals' identity
    nz = a != 0.0
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = k + d, d
    lp.a_matrix_.start_ = np.concatenate([[0], np.cumsum(nz.sum(axis=0))]).astype(np.int32)
    lp.a_matrix_.index_ = np.nonzero(nz.T)[1].astype(np.int32)
    lp.a_matrix_.value_ = a.T[nz.T]
    hess = highspy.HighsHessian()
    hess.dim_ = k + d
    hess.format_ = highspy.HessianFormat.kTriangular  # lower triangle, column-wise: 2 on the residuals
    hess.start_ = np.concatenate([np.zeros(k + 1), np.arange(1, d + 1)]).astype(np.int32)
    hess.index_ = np.arange(k, k + d, dtype=np.int32)
    hess.value_ = np.full(d, 2.0)
    return np.maximum(_run_qp(lp, hess, "non-negative Lasso QP (residual form)", regularization)[:k], lower)


def _gram_qp(x: np.ndarray, v: np.ndarray, tau, lower=0.0,
             regularization: float = _QP_REGULARIZATIONS[0]) -> np.ndarray:
    """``min beta^T (x^T x) beta + (tau - 2 x^T v)^T beta,  beta >= lower``: Eq. (13) minus ``||v||^2``, Hessian
    ``2 x^T x``; ``tau`` and ``lower`` numbers or one per column; ``regularization`` as in :func:`_run_qp`.
    Returns ``beta`` (k,)."""
    import highspy

    k = x.shape[1]
    gram = 2.0 * (x.T @ x)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = k, 0
    lp.col_cost_ = tau - 2.0 * (x.T @ v)
    lp.col_lower_ = np.broadcast_to(lower, (k,)).astype(float)
    lp.col_upper_ = np.full(k, highspy.kHighsInf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = k, 0
    lp.a_matrix_.start_ = np.zeros(k + 1, dtype=np.int32)
    hess = highspy.HighsHessian()
    hess.dim_ = k
    hess.format_ = highspy.HessianFormat.kTriangular  # lower triangle, column-wise
    rows, cols = np.tril_indices(k)
    order = np.lexsort((rows, cols))
    rows, cols = rows[order], cols[order]
    values = gram[rows, cols]
    keep = values != 0.0
    rows, cols, values = rows[keep], cols[keep], values[keep]
    hess.start_ = np.searchsorted(cols, np.arange(k + 1)).astype(np.int32)
    hess.index_ = rows.astype(np.int32)
    hess.value_ = values
    return np.maximum(_run_qp(lp, hess, "non-negative Lasso QP (Gram form)", regularization), lower)


def _kkt_residual(x: np.ndarray, v: np.ndarray, tau, beta: np.ndarray) -> tuple[float, float]:
    """``(residual, tolerance)`` of the KKT conditions of Eq. (13) at ``beta`` (``tau`` a number or one
    penalty per column): with the gradient ``g = 2 x^T (x beta - v) + tau``, the residual is
    ``max_j |min(beta_j, g_j)|`` (zero iff ``g >= 0``, ``beta >= 0`` and ``g_j = 0`` where ``beta_j > 0``).
    The tolerance, ``1e-6 (1 + max|tau| + 2 max_j ||x_j|| (||x beta|| + ||v||))``, bounds the size of the
    terms of ``g``; it is meant for the scaled problem of :func:`_scaled_problem` (unit-norm columns and
    ``v``), where the absolute tolerances of HiGHS are relative ones."""
    fitted = x @ beta
    g = 2.0 * (x.T @ (fitted - v)) + tau
    residual = float(np.max(np.abs(np.minimum(beta, g)))) if beta.size else 0.0
    size = float(np.max(np.linalg.norm(x, axis=0), initial=0.0)) * (np.linalg.norm(fitted) + np.linalg.norm(v))
    return residual, 1e-6 * (1.0 + float(np.max(np.abs(tau), initial=0.0)) + 2.0 * size)


def _nn_lad_lp(x: np.ndarray, v: np.ndarray, tau) -> np.ndarray:
    """``min ||v - x beta||_1 + tau sum(beta)`` over ``beta >= 0`` (``x`` (n, k), ``v`` (n,)) as an LP for HiGHS.

    It is solved in the units of :func:`_scaled_problem`: with ``beta_j = sigma b_j / c_j`` (``c_j = ||x_j||``,
    ``sigma = ||v||``) the objective is ``sigma (||v / sigma - sum_j b_j x_j / c_j||_1 + sum_j (tau / c_j) b_j)``,
    so HiGHS's absolute tolerances mean the same whatever the units (unscaled, entries of 1e-10 fell below
    HiGHS's matrix tolerance and ``beta = 0`` came back for an exact fit). ``tau`` a number or one per column."""
    if not np.any(v):
        return np.zeros(x.shape[1])  # beta = 0 fits exactly at no penalty
    xs, vs, _, unscale = _scaled_problem(x, v, tau)
    norms = _norm(x, axis=0)
    used = norms > 0.0  # the columns _scaled_problem keeps
    penalty = np.broadcast_to(tau, norms.shape)[used] / norms[used]
    n, k = xs.shape
    # variables: b (k), u (n), w (n) with xs b + u - w = vs, all >= 0; min penalty^T b + sum(u + w)
    cost = np.concatenate([penalty, np.ones(2 * n)])
    a_eq = np.hstack([xs, np.eye(n), -np.eye(n)])
    res = optimize.linprog(cost, A_eq=a_eq, b_eq=vs, bounds=(0, None), method="highs")
    if res.status != 0:
        raise SolverError(f"HiGHS did not solve the non-negative absolute-error Lasso LP: {res.message}")
    return unscale(np.asarray(res.x[:k], dtype=float))


def _binary_rescale(x: np.ndarray, v: np.ndarray, tau: float, loss: str):
    """Eq. (13) (or its absolute-loss variant) with each column ``x_j`` (n,) and ``v`` (n,) multiplied by a power of
    2 that brings its largest absolute entry into [0.5, 1): ``x_j = 2^c_j x'_j``, ``v = 2^a v'`` and
    ``beta_j = 2^(a - c_j) b_j`` turn the objective into ``4^a (||v' - x' b||^2 + sum_j tau 2^(-a - c_j) b_j)``
    (``2^a (||v' - x' b||_1 + sum_j tau 2^(-c_j) b_j)``). Exact (powers of 2), so the test ``tau_j >= 2 x_j^T v``
    for ``beta = 0`` keeps its exact ties. Returns ``(x', v', penalties (k,), shift (k,))``, ``beta_j =
    ldexp(b_j, shift_j)``; a penalty may be ``inf`` (``tau`` overflowed; see :func:`_unused_columns`).

    Why: in the data's own units products of small or large entries left the float range: with ``x`` and ``y``
    of 1e-170, ``x_j^T y`` underflowed to 0 and ``tau = 0 >= 0`` returned ``beta = 0`` for an exact fit, or the
    penalty came out NaN and the active-set method raised a bare ValueError; with ``y`` of 1e308 its norm was inf
    and a finite optimum was refused as overflowing."""
    ex = np.frexp(np.max(np.abs(x), axis=0))[1]  # 0 for a zero column
    ev = int(np.frexp(np.max(np.abs(v)))[1])
    with np.errstate(over="ignore", under="ignore"):
        penalty = np.ldexp(tau, -(ex + ev) if loss == "squared" else -ex)
    return np.ldexp(x, -ex), np.ldexp(v, -ev), penalty, ev - ex


def _unused_columns(x: np.ndarray, v: np.ndarray, penalty: np.ndarray, loss: str) -> np.ndarray:
    """Mask (k,) of the columns whose penalty alone rules them out, ``penalty_j > 2 ||x_j|| ||v||`` (squared loss)
    or ``penalty_j > ||x_j||_1`` (absolute loss), ``inf`` included: every minimiser has ``beta_j = 0`` there.
    (Squared: at a minimiser ``||v - x beta|| <= ||v||``, so the KKT condition of a ``beta_j > 0``,
    ``penalty_j = 2 x_j^T (v - x beta)``, cannot hold; absolute: lowering ``beta_j`` by ``d`` raises the loss by at
    most ``d ||x_j||_1``.) Why: such penalties, divided by column norms below 1, overflowed to inf and reached
    HiGHS (``linprog``'s bare ValueError "c must not contain values inf" from ``tau = 1e300``, absolute loss and a
    column of 1e-10)."""
    if loss == "squared":
        bound = 2.0 * _norm(x, axis=0) * _norm(v)
    else:
        bound = np.sum(np.abs(x), axis=0)
    return penalty > bound


def nonnegative_lasso(X, y, tau: float, *, loss: str = "squared") -> np.ndarray:
    """Non-negative Lasso without intercept, Eq. (13) of the RG-PT paper, solved exactly with HiGHS.

    ``loss="squared"`` (Eq. (13))::

        minimise_{beta >= 0}  ||y - X beta||_2^2 + tau * sum(beta)

    a convex QP solved by HiGHS' QP solver on an equivalent problem with unit-norm columns and target (so the result
    does not depend on the units of ``X`` and ``y``; each column and ``y`` are first scaled by exact powers of 2, so
    entries from 1e-300 to 1e308 neither underflow nor overflow in products), in residual form over a thin QR factor of
    ``X``, then, if that fails, in Gram form (see :func:`_nnls_qp_highs`), its solution checked against the KKT
    conditions, then polished by an exact active-set method on its support: the support and coefficients are those of
    the exact minimiser wherever the KKT conditions separate it by more than ~1e-14 of the data (with ``n < k`` they
    were another support's, off by O(1), for ``tau`` below ~1e-6 in the units of unit-norm columns and ``y``). With
    ``tau = 0`` and ``n < k`` the minimiser need not be unique: one of them.
    ``loss="absolute"`` replaces the squared error by ``||y - X beta||_1`` (a robust LP variant, solved by
    HiGHS through ``scipy.optimize.linprog``).

    Scaling of ``tau``: the loss is a *sum* over the ``n`` rows, not a mean, so for a fixed ``tau`` the
    penalty weakens as ``n`` grows. scikit-learn's ``Lasso(alpha=a, positive=True, fit_intercept=False)``
    minimises ``||y - X beta||^2 / (2 n) + a * sum(beta)``; the two agree when ``tau = 2 * n * a``. In
    RG-PT the rows are the examples of the optimisation split (times the number of controlled risks), so
    ``tau = 0.1`` (the paper's Table 1) is a weak penalty.

    Parameters
    ----------
    X : array_like, shape (n, k)
    y : array_like, shape (n,)
    tau : float >= 0
    loss : {"squared", "absolute"}

    Returns
    -------
    ndarray, shape (k,), entries >= 0 (solver round-off, ``beta_j < 1e-12 ||y|| / ||X[:, j]||``, is set to 0).

    Raises
    ------
    InputError
        ``X`` or ``y`` not numeric, shapes disagree, pandas ``X`` and ``y`` with other row indexes, ``X`` has no
        rows, NaN, ``tau`` not a finite number
        ``>= 0`` (a bool included), unknown ``loss``, an optimum beyond the float range.
    SolverError
        HiGHS fails, or (squared loss) its solution violates the KKT conditions of Eq. (13).
    """
    x, v = _check_xy(X, y)
    t = check_positive(tau, "tau", allow_zero=True)
    if not is_choice(loss, ("squared", "absolute")):
        raise InputError(f"loss must be 'squared' or 'absolute', got {loss!r}")
    if x.shape[1] == 0:
        return np.zeros(0)
    x, v, penalty, shift = _binary_rescale(x, v, t, loss)
    b = np.zeros(x.shape[1])
    used = ~_unused_columns(x, v, penalty, loss)  # the others have beta_j = 0
    if np.any(used):  # loss is one of the two, checked above
        solver = _nnls_qp_highs if loss == "squared" else _nn_lad_lp
        b[used] = solver(x[:, used], v, penalty[used])
    with np.errstate(divide="ignore", invalid="ignore"):  # zero columns have beta_j = 0 already
        unit = _norm(v) / _norm(x, axis=0)  # the size of b_j that fits v with column j
    b[b < 1e-12 * unit] = 0.0
    with np.errstate(over="ignore", under="ignore"):
        beta = np.ldexp(b, shift)
    if not np.all(np.isfinite(beta)):  # e.g. X = [[1e-300]], y = [1e300]: the optimum 1e600 is no float
        raise InputError("the non-negative Lasso optimum overflows a float (columns of X tiny against y); "
                         "rescale X or y")
    return beta
