r"""Provably valid big-M constants for the KKT + big-M MILPs, derived from the data and the bounds.

Notation (pessimistic bilevel tuning paper, Sections 4.1-4.2): training set ``T`` with ``(x_i, y_i)``,
validation set ``V``, flipped set ``V_f`` (labels ``ybar``), decision value ``f(x) = x^T w - b``, box
``-w_bar <= w <= w_bar`` with ``w_bar`` in ``[w_bar_lb, w_bar_ub]`` (scalars or per-feature vectors).

A big-M constant is *valid* when, for every bilevel-feasible ``(w_bar, w, b)``, at least one choice of
the remaining primal and dual variables that satisfies the KKT system also satisfies the big-M bounds.
Then the MILP has exactly the bilevel-feasible ``(w_bar, w, b)`` as its projection, and its optimum is the
bilevel optimum. The derivations:

1. **Feature part of the margin.** ``|x_i^T w| <= sum_j |x_ij| w_bar_ub_j =: R_i`` (box on ``w``).

2. **Intercept, optimistic inner LP (Eq. 21).** For fixed ``w`` the training loss
   ``sum_i max(0, 1 - y_i (x_i^T w - b))`` is convex piecewise linear in ``b`` with breakpoints
   ``b = x_i^T w - y_i``. Right of every breakpoint its slope is ``n_+ > 0`` (the positive training
   points), left of every breakpoint it is ``-n_- < 0``. Hence *every* optimal ``b`` lies between the
   breakpoints: ``|b| <= max_{i in T} R_i + 1 =: B``. (Both classes must be present in ``T``.)

3. **Hinge values and slacks.** With ``F_i = R_i + B`` we have ``|f(x_i)| <= F_i``; every KKT point of
   the hinge LP has ``xi_i = max(0, 1 - y_i f_i)`` (if ``beta_i < 1/|T|`` complementarity gives
   ``xi_i = 0``; otherwise the margin row is tight), so ``xi_i <= 1 + F_i`` and the margin slack
   ``xi_i + y_i f_i - 1 = max(0, y_i f_i - 1) <= max(F_i - 1, 0)``.

4. **Duals, optimistic.** Stationarity in ``xi_i`` gives ``0 <= beta_i <= 1/|T|``. Stationarity in ``w_j``
   gives ``mu+_j - mu-_j = sum_i beta_i y_i x_ij``; choosing ``min(mu+_j, mu-_j) = 0`` (always possible:
   both multipliers of a pair may be shifted by the same amount when ``w_bar_j = 0``) gives
   ``mu+-_j <= (1/|T|) sum_{i in T} |x_ij|``. Box slacks: ``w_bar_j -+ w_j <= 2 w_bar_ub_j``.

5. **Pessimistic replica (Eq. 24).** The replica ``(w_hat, b_hat, xi_hat)`` is only required to be
   feasible, so the leader may inflate the follower's budget. With ``B_TV = max_{i in T u V} R_i + 1``, a
   follower with ``b > B_TV`` has ``f(x) < -1`` at every training and validation point, so all its hinge
   losses (training, flipped, true validation labels) are non-decreasing in ``b`` there: moving ``b`` down
   to ``B_TV`` keeps it a follower optimum (dual solutions are common to all primal optima) and loses
   nothing for the leader (``b < -B_TV`` likewise). Then the budget can shrink to
   ``max((1 + epsilon) v*, its training loss)`` (a smaller feasible set keeps an optimum optimal), and
   its training loss is at most ``mean_i (1 + R_i + B_TV)``. So we restrict the replica to
   ``|b_hat| <= B`` and ``xi_hat_i <= 1 + R_i + B_TV``: a training optimum (``|b_hat| <= B`` by 2.) with
   ``xi_hat`` inflated up to that cap reaches every budget needed. The mean-training-loss budget is then at
   most ``H = (1 + epsilon) mean_i (1 + R_i + B_TV)``. (With ``B`` in place of ``B_TV``, as before
   2026-11-25, a better follower beyond the cap was cut off: a 1-feature example with validation points at
   5 and 7 and training points at 0.01 reached 0.7517 instead of 0.6364.)

6. **Intercept, pessimistic inner LP (Eq. 24).** The budget row ``mean(xi) <= (1+epsilon) mean(xi_hat)``
   bounds ``b``: every positive point has ``xi_i >= 1 - R_i + b``, so
   ``b <= (|T| H + sum_{i in T+} R_i) / n_+ - 1``; symmetrically
   ``-b <= (|T| H + sum_{i in T-} R_i) / n_- - 1``. With ``B' = max`` of the two, ``F'_i = R_i + B'``.

7. **Pessimistic hinge values.** ``v_k`` (flipped validation hinge) and the slacks follow as in 3. with
   ``F'``. For ``xi_i``: if ``lambda > 0`` every KKT point has ``xi`` equal to the hinge; if
   ``lambda = 0`` replacing ``xi`` by the hinge keeps all KKT conditions (dual solutions are common to all
   primal optima), so ``xi_i <= min(1 + F'_i, |T| H)`` is valid.

8. **Duals, pessimistic.** The multipliers are normalised by ``1 + lambda`` (see
   :mod:`bilevel.pessimistic`): ``kappa + lam = 1``, ``alpha_k <= kappa/|V_f| <= 1/|V_f|``,
   ``beta_i <= lam/|T| <= 1/|T|``, ``lam <= Lambda/(1 + Lambda)`` where ``Lambda`` bounds Eq. (25)'s
   ``lambda`` (no a-priori bound exists; :func:`bilevel.tune` enlarges it when a solution touches it).
   Stationarity in ``w_j`` then gives ``|mu+_j - mu-_j| <= kappa S^F_j + lam S^T_j <= max(S^F_j, S^T_j)``
   with ``S^F_j = (1/|V_f|) sum_{k in V_f} |x_kj|`` and ``S^T_j = (1/|T|) sum_{i in T} |x_ij|``, and
   the budget slack is at most ``H``.

   **A floor on the multipliers' constants.** A larger constant is valid too, and ``M^mu_j`` is raised to
   at least ``MU_FLOOR = 1e-3``. For a feature of tiny values (``|x_ij|`` about 1e-6) ``S_j`` falls below
   HiGHS's feasibility tolerance (1e-6), and HiGHS then treats ``mu+-_j`` in ``[0, S_j]`` as if fixed to 0,
   so the stationarity row in ``w_j`` forces the duals in it, which have coefficients of the same tiny size,
   to 0: it cut off the bilevel optimum and proved a worse point "optimal" (a pessimistic instance with one
   feature of size 1e-7 next to one of size 10: 0.5095, best bound 0.5095, verified, against the optimum 0
   at ``w_bar = 0``; a floor of 1e-6 still did so, 3e-6 no longer). The slip a binary within HiGHS's
   integrality tolerance allows, ``1e-6 M``, is at most 1e-9 where the floor sets ``M``. That instance's tiny
   feature is now also rescaled (item 12), which alone keeps its optimum (measured with the floor set to 0); the
   floor still guards features item 12 does not flag, e.g. one value of 1e-3 among zeros in 2,000 training rows
   (``S_j = 5e-7``) beside features of values up to 10.

9. **Bound tightening by LPs.** Every training optimum at any ``w_bar >= w_bar_lb`` has mean training
   hinge ``v*(w_bar) <= v*(w_bar_lb)`` (a larger box only enlarges the LP), and an epsilon-follower at most
   ``(1 + epsilon)`` times that; and ``|w| <= w_bar_ub``. So the least and largest margin of each point,
   and the range of ``b``, over ``{|w| <= w_bar_ub, mean hinge <= budget}`` (two small LPs per point,
   :func:`margin_ranges`) bound ``xi_i <= max(0, 1 - min margin)``, the slack by ``max(0, max margin - 1)``
   and ``b``. These replace the constants above where smaller (often 3-8 times smaller).

10. **Objective cutoff.** Given the objective value ``U`` of a bilevel-feasible point (a MIP
   start), every solution the MILP still has to consider has mean validation hinge ``<= U``; the model
   states this as a row (``objective_cutoff``), which keeps every optimum. Adding it to the set of item 9
   shrinks the margin ranges further, often decisively: a training point whose least margin exceeds 1 is
   outside the margin at every such solution (``xi_i = 0``, ``beta_i = 0``: both binaries fixed), one
   whose largest margin is below 1 inside it (``beta_i = 1/|T|``). On cancer, |T| = |V| = 100, seed 1,
   a cutoff at the optimum decides 50 of the 100 points; at the MIP start's value (about twice the
   optimum), 14. The pessimistic model (Eq. 25) takes the same cutoff on its follower, whose training
   loss is at most ``(1 + epsilon) v*(w_bar_lb)``: decided training points fix ``beta_i`` and ``xi_i`` as
   above, decided flipped points ``alpha_k`` and ``v_k`` (``v_k = 0, alpha_k = 0`` outside;
   ``alpha_k = kappa/|V_f|`` inside), with ``xi`` equal to the hinge WLOG as in item 7.

11. **A bound on lambda (epsilon > 0).** Let ``phi(B)`` be the follower's least mean flipped hinge with
   mean training hinge ``<= B`` (at a fixed ``w_bar``): convex and non-increasing in ``B``, and by LP
   sensitivity the ``lambda`` of every dual optimum is a subgradient, ``-lambda in d phi(B)``. At the budget
   ``B = (1 + epsilon) v*(w_bar)`` and at ``B' = v*(w_bar)`` (feasible: the training optima),
   convexity gives ``lambda <= (phi(B') - phi(B)) / (B - B') <= phi(B') / (epsilon v*(w_bar))``. The
   flipped hinge of every follower-feasible point is at most ``M^v_k`` (item 9, without a cutoff), and
   ``v*(w_bar) >= v*(w_bar_ub)``; so ``lambda <= Lambda* = mean_k M^v_k / (epsilon v*(w_bar_ub))`` at every
   follower optimum, whatever ``w_bar``. A ``lambda_bound >= Lambda*`` therefore keeps every
   bilevel-feasible point: the MILP is exact in ``lambda``. ``Lambda* = inf`` when ``epsilon = 0`` or
   ``v*(w_bar_ub) = 0`` (training set separable inside the box).

12. **Stationarity rows of tiny features.** For a feature that :func:`bilevel.validation.tiny_features`
   flags (largest ``|x_ij|`` below 1e-4 times ``max(1, largest feature value)``) the row in ``w_j`` (items 4
   and 8) has coefficients ``y_i x_ij / |T|`` at HiGHS's absolute tolerances. Its row is divided by
   ``s_j = max_i |x_ij|`` (training and validation data) and its box multipliers substituted,
   ``mu+-_j = s_j mu'+-_j`` (:func:`stationarity_scale`): the model's ``mu_plus[j]``, ``mu_minus[j]`` are the
   ``mu'``, bounded by ``M^mu_j = max(S_j / s_j, MU_FLOOR)`` (the bound of items 4 and 8 in the new units,
   with the floor there). An exact reformulation: ``w``, ``w_bar``, ``b`` and every other row keep their
   units; :func:`bilevel.verify_model` and the MIP starts convert with ``s_j``. ``s_j = 1`` for every other
   feature, so models of ordinary (e.g. standardised) data are unchanged.
"""
from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass, replace

import highspy
import numpy as np
from scipy import sparse

from .errors import InputError, SolverError
from .highs_run import silent_highs
from .validation import tiny_features


class InfeasibleCutoff(InputError):
    """The bound-tightening set is empty: an objective cutoff below every achievable validation hinge."""


_RANGE_CACHE: OrderedDict = OrderedDict()  # (LP key, rows bytes) -> (least, largest) values of f(x)
_RANGE_CACHE_SIZE = 256


def _hinge_block(X, y, n_before: int, n_after: int):
    """Rows ``-y_i (x_i^T w - b) - h_i <= -1`` of a hinge block, over columns ``(w, b, n_before others,
    h (len(y)), n_after others)``, as a sparse matrix."""
    n = len(y)
    return sparse.hstack([sparse.csr_matrix(-y[:, None] * X), sparse.csr_matrix(y[:, None]),
                          sparse.csr_matrix((n, n_before)), -sparse.identity(n, format="csr"),
                          sparse.csr_matrix((n, n_after))])


def _range_lp(X_train, y_train, w_bar_ub, budget, cutoff=None) -> highspy.Highs:
    """The feasible set of :func:`margin_ranges` as a ``highspy`` LP over ``(w, b, h, g)`` with zero cost
    (``g``: the validation hinge values of ``cutoff``, absent without one)."""
    n, p = X_train.shape
    inf = highspy.kHighsInf
    k = 0 if cutoff is None else len(cutoff[1])
    blocks = [_hinge_block(X_train, y_train, 0, k),
              sparse.csr_matrix(np.r_[np.zeros(p + 1), np.full(n, 1.0 / n), np.zeros(k)])]
    upper = [-np.ones(n), [budget]]
    if cutoff is not None:
        X_val, y_val, value = cutoff
        blocks += [_hinge_block(X_val, y_val, n, 0), sparse.csr_matrix(np.r_[np.zeros(p + 1 + n), np.full(k, 1.0 / k)])]
        upper += [-np.ones(k), [value]]
    A = sparse.vstack(blocks).tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = np.zeros(A.shape[1])
    lp.col_lower_ = np.r_[-w_bar_ub, -inf, np.zeros(n + k)]
    lp.col_upper_ = np.r_[w_bar_ub, inf, np.full(n + k, inf)]
    lp.row_lower_ = np.full(A.shape[0], -inf)
    lp.row_upper_ = np.concatenate(upper).astype(float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    h = silent_highs()
    h.passModel(lp)
    return h


def margin_ranges(X_train, y_train, w_bar_ub, budget, X_rows, cutoff=None) -> tuple[np.ndarray, np.ndarray]:
    r"""Bound tightening by LPs (item 9 of the module docstring): the least and largest value of
    ``f(x) = x^T w - b`` for each row ``x`` of ``X_rows`` (k, p) over the set
    ``{(w, b): |w| <= w_bar_ub, (1/|T|) sum_i max(0, 1 - y_i f(x_i)) <= budget}``, intersected, given
    ``cutoff = (X_val (|V|, p), y_val (|V|,), U)``, with ``(1/|V|) sum_k max(0, 1 - y_k f(x_k)) <= U`` (item 10).
    Returns two (k,) arrays, widened by ``1e-6 (1 + |value|)`` against LP round-off. Raises
    InfeasibleCutoff (a ValueError) when the set is empty even with ``budget`` and ``U`` raised by
    ``1e-6 (1 + |value|)`` (the retry is only made when the exact set is empty), SolverError if an LP fails
    otherwise.

    One ``highspy`` LP is loaded once and re-solved with a new cost vector per row (the simplex starts
    from the previous optimal basis). A whole request is cached: the pessimistic builder's replica asks for
    exactly the optimistic model's ranges and gets them without new LPs. Every request that is solved starts
    from a fresh LP and goes through its rows in order, so the values (and the MILP built from them) do not
    depend on what was computed earlier in the process, down to the last bit."""
    X_train, y_train = np.asarray(X_train, float), np.asarray(y_train, float)
    w_bar_ub = np.asarray(w_bar_ub, float)
    X_rows = np.ascontiguousarray(X_rows, dtype=float)
    if cutoff is not None:
        cutoff = (np.asarray(cutoff[0], float), np.asarray(cutoff[1], float), float(cutoff[2]))
    extra = () if cutoff is None else cutoff[:2]
    key = hashlib.sha1(b"".join(np.ascontiguousarray(a).tobytes() for a in (X_train, y_train, w_bar_ub, X_rows, *extra))
                       + repr(float(budget)).encode() + repr(X_rows.shape).encode()
                       + repr(None if cutoff is None else (cutoff[2], cutoff[0].shape)).encode()).hexdigest()
    if key in _RANGE_CACHE:
        _RANGE_CACHE.move_to_end(key)
        lo, hi = _RANGE_CACHE[key]
        return lo.copy(), hi.copy()
    try:
        out = _solve_ranges(X_train, y_train, w_bar_ub, float(budget), X_rows, cutoff)
    except InfeasibleCutoff:
        # The budget is an LP value too (v*(w_bar_lb), or (1 + epsilon) times it): with w_bar_lb = w_bar_ub and
        # v* near 0 it can sit a round-off below the least loss this LP reaches (diabetes 8/8 split 0 at one
        # box: v* = 4.930e-8 from one LP, 4.943e-8 from a tighter one). Retry once with both limits relaxed by
        # the output pad below; a larger budget or cutoff only widens the ranges, so they stay valid.
        loose = None if cutoff is None else (cutoff[0], cutoff[1], cutoff[2] + _round_off_pad(cutoff[2]))
        out = _solve_ranges(X_train, y_train, w_bar_ub, float(budget) + _round_off_pad(float(budget)), X_rows, loose)
    pad = _round_off_pad(out)
    lo, hi = out[0] - pad[0], out[1] + pad[1]
    _RANGE_CACHE[key] = (lo, hi)
    if len(_RANGE_CACHE) > _RANGE_CACHE_SIZE:
        _RANGE_CACHE.popitem(last=False)
    return lo.copy(), hi.copy()


def _round_off_pad(value):
    """``1e-6 (1 + |value|)``: the LP round-off :func:`margin_ranges` allows for (elementwise on arrays)."""
    return 1e-6 * (1.0 + np.abs(value))


def _solve_ranges(X_train, y_train, w_bar_ub, budget: float, X_rows, cutoff) -> np.ndarray:
    """The (2, k) least and largest ``x^T w - b`` of :func:`margin_ranges`, unpadded; raises InfeasibleCutoff."""
    p = X_train.shape[1]
    out = np.empty((2, len(X_rows)))
    h = _range_lp(X_train, y_train, w_bar_ub, budget, cutoff)
    cols = np.arange(p + 1, dtype=np.int32)
    for k, x in enumerate(X_rows):
        h.changeColsCost(p + 1, cols, np.r_[x, -1.0])
        for side, sense in ((0, highspy.ObjSense.kMinimize), (1, highspy.ObjSense.kMaximize)):
            h.changeObjectiveSense(sense)
            h.run()
            if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
                raise InfeasibleCutoff("no hyperplane in the box meets the training-loss budget"
                                       + ("" if cutoff is None else f" and validation hinge <= {cutoff[2]:.6g}"))
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                raise SolverError(f"bound-tightening LP failed: {h.modelStatusToString(h.getModelStatus())}")
            out[side, k] = h.getInfo().objective_function_value
    return out


def _tightened(X_train, y_train, w_bar_ub, budget, X_rows, labels, cutoff=None):
    """Ranges of the margins ``labels_k f(x_k)`` for the rows, and of ``b``, under ``budget`` (and ``cutoff``,
    see :func:`margin_ranges`)."""
    rows = np.vstack([np.asarray(X_rows, float), np.zeros((1, np.shape(X_rows)[1]))])
    lo, hi = margin_ranges(X_train, y_train, w_bar_ub, budget, rows, cutoff)
    m_lo = np.where(labels > 0, lo[:-1], -hi[:-1])
    m_hi = np.where(labels > 0, hi[:-1], -lo[:-1])
    return m_lo, m_hi, -hi[-1], -lo[-1]  # b = -f(0)


MU_FLOOR = 1e-3  # least big-M constant of a box multiplier mu+-_j (item 8 of the module docstring)


def stationarity_scale(X_list) -> np.ndarray:
    """The divisors ``s_j`` (p,) of the stationarity rows in ``w_j`` (item 12 of the module docstring): for the
    features :func:`bilevel.validation.tiny_features` flags in the data ``X_list`` (arrays (n, p): training and
    validation features), ``s_j = max_i |x_ij|`` over them; exactly 1.0 for every other feature, whose rows and
    multipliers stay as they are. The model's box multipliers are then ``mu+-_j / s_j`` (dimensionless scale
    factors; the duals of Eq. (20) / Eq. (25) are ``s_j`` times the model's). Raises nothing."""
    X_list = [np.asarray(X, dtype=float) for X in X_list]
    scale = np.ones(X_list[0].shape[1])
    tiny = tiny_features(X_list)
    if tiny:
        scale[tiny] = np.max([np.abs(X).max(axis=0, initial=0.0) for X in X_list], axis=0)[tiny]
    return scale


def mu_big_m(sums: np.ndarray) -> np.ndarray:
    """The big-M constants (p,) of the box multipliers ``mu+-_j`` (items 4 and 8 of the module docstring):
    the bound ``sums`` (p,) of ``|mu+_j - mu-_j|`` from stationarity, raised to at least :data:`MU_FLOOR`
    (HiGHS mishandles a variable whose range is below its feasibility tolerance)."""
    return np.maximum(np.asarray(sums, dtype=float), MU_FLOOR)


def _scaled(sums: np.ndarray, mu_scale) -> np.ndarray:
    """``sums / mu_scale`` (the bound of the model's ``mu+-_j / s_j``, item 12), ``sums`` itself without a scale."""
    return sums if mu_scale is None else sums / np.asarray(mu_scale, dtype=float)


def feature_reach(X: np.ndarray, w_bar_ub: np.ndarray) -> np.ndarray:
    """``R_i = sum_j |x_ij| w_bar_ub_j``: the largest ``|x_i^T w|`` inside the box. Shape (n,)."""
    return np.abs(X) @ w_bar_ub


@dataclass(frozen=True)
class OptimisticBigM:
    """Constants for Eq. (21) (items 1-4 of the module docstring). Arrays are per point / feature."""

    b: float               # |b| <= b
    xi: np.ndarray         # (|T|,) xi_i <= xi[i]
    slack: np.ndarray      # (|T|,) margin slack of training point i
    beta: float            # beta_i <= 1/|T|
    mu: np.ndarray         # (p,) mu+-_j
    box: np.ndarray        # (p,) box slack
    g: np.ndarray          # (|V|,) validation hinge
    outside: np.ndarray | None = None  # (|T|,) bool: margin > 1 at every solution kept (beta_i = 0, xi_i = 0)
    inside: np.ndarray | None = None   # (|T|,) bool: margin < 1 at every solution kept (beta_i = 1/|T|)
    mu_scale: np.ndarray | None = None  # (p,) s_j of item 12: the model's mu+-_j are the duals / s_j (None: 1)


def optimistic_big_m(X_train, y_train, X_val, w_bar_ub, least_loss_bound: float | None = None, y_val=None,
                     cutoff: float | None = None, mu_scale=None) -> OptimisticBigM:
    """Valid big-M constants for the optimistic KKT system (the KKT reformulation of Eq. (21) of the pessimistic
    bilevel tuning paper); derivation in the module docstring (items 1-4). ``X_train`` (|T|, p), ``X_val`` (|V|, p),
    ``w_bar_ub`` (p,) the upper bound of ``w_bar``. With ``least_loss_bound = v*(w_bar_lb)`` the constants for
    ``b``, ``xi`` and the margin slacks are tightened by LPs (item 9). With ``cutoff = U`` and ``y_val`` (|V|,) too,
    the LPs keep only hyperplanes of mean validation hinge ``<= U`` (item 10) and the training points whose margin
    this decides are marked ``outside`` / ``inside``. Raises InfeasibleCutoff when no hyperplane reaches ``U``.
    ``mu_scale`` (p,), :func:`stationarity_scale`: ``M.mu`` bounds the model's ``mu+-_j / s_j`` (item 12); None: 1."""
    n_t = len(y_train)
    r_t = feature_reach(X_train, w_bar_ub)
    b = float(r_t.max() + 1.0)
    f_t = r_t + b
    M = OptimisticBigM(
        b=b,
        xi=1.0 + f_t,
        slack=np.maximum(f_t - 1.0, 0.0),
        beta=1.0 / n_t,
        mu=mu_big_m(_scaled(np.abs(X_train).sum(axis=0) / n_t, mu_scale)),
        box=2.0 * np.asarray(w_bar_ub, dtype=float),
        g=1.0 + feature_reach(X_val, w_bar_ub) + b,
        mu_scale=mu_scale,
    )
    if least_loss_bound is None:
        return M
    if cutoff is not None and y_val is None:
        raise InputError("an objective cutoff needs the validation labels y_val")
    val = None if cutoff is None else (X_val, y_val, cutoff)
    m_lo, m_hi, b_lo, b_hi = _tightened(X_train, y_train, w_bar_ub, least_loss_bound, X_train, y_train, val)
    return replace(
        M,
        b=min(M.b, max(abs(b_lo), abs(b_hi))),
        xi=np.minimum(M.xi, np.maximum(1.0 - m_lo, 0.0)),
        slack=np.minimum(M.slack, np.maximum(m_hi - 1.0, 0.0)),
        outside=None if cutoff is None else m_lo > 1.0,
        inside=None if cutoff is None else m_hi < 1.0,
    )


@dataclass(frozen=True)
class PessimisticBigM:
    """Constants for Eq. (25) (items 5-8 of the module docstring)."""

    b_hat: float           # |b_hat| <= b_hat
    xi_hat: np.ndarray     # (|T|,)
    budget: float          # H: mean training-loss budget bound
    b_lo: float            # -b <= b_lo
    b_hi: float            # b <= b_hi
    xi: np.ndarray         # (|T|,)
    slack_t: np.ndarray    # (|T|,) margin slack of training rows
    v: np.ndarray          # (|V_f|,)
    slack_f: np.ndarray    # (|V_f|,) margin slack of flipped rows
    g: np.ndarray          # (|V|,)
    alpha: float           # 1/|V_f|
    lam: float             # 1: bound of the normalised lam in its complementarity pair
    kappa_min: float       # 1/(1+Lambda)
    beta: float            # 1/|T|
    mu: np.ndarray         # (p,)
    box: np.ndarray        # (p,)
    outside: np.ndarray | None = None  # (|T| + |V_f|,) bool: follower margin > 1 at every solution kept
    inside: np.ndarray | None = None   # (|T| + |V_f|,) bool: follower margin < 1 at every solution kept
    lambda_max: float = np.inf         # Lambda* of item 11: lambda <= Lambda* at every follower optimum
    mu_scale: np.ndarray | None = None  # (p,) s_j of item 12: the model's mu+-_j are the duals / s_j (None: 1)


def pessimistic_big_m(
    X_train, y_train, X_val, flipped, epsilon, w_bar_ub, lambda_bound, least_loss_bound: float | None = None,
    y_val=None, cutoff: float | None = None, least_loss_ub: float | None = None, mu_scale=None,
) -> PessimisticBigM:
    """Valid big-M constants for the pessimistic KKT system, Eq. (25) of the pessimistic bilevel tuning
    paper; derivation in the module docstring (items 5-8). ``flipped`` are the indices of ``V_f`` in the
    validation set (non-empty); ``lambda_bound`` is the current bound ``Lambda`` on ``lambda``.

    ``least_loss_bound``: for a *training-optimal* replica, an upper bound on the least mean training
    loss over the ``w_bar`` box, e.g. ``v*(w_bar_lb)`` (``v*`` is non-increasing in ``w_bar``, since a
    larger box only enlarges the LP's feasible set). Then ``H = (1 + epsilon) least_loss_bound`` replaces
    the bound of item 5; given ``y_val`` (|V|,) too, the constants of ``b``, ``xi``, ``v`` and the margin
    slacks are tightened by LPs under that budget (item 9). With ``cutoff = U`` as well, the LPs keep only
    followers of mean validation hinge (true labels, the outer objective) ``<= U`` (item 10), and the
    training and flipped points (in this order) whose follower margin this decides are marked ``outside``
    / ``inside``; raises InfeasibleCutoff when no hyperplane reaches ``U``. With ``least_loss_ub = v*(w_bar_ub)``
    as well (mean hinge units, ``>= 0``), ``lambda_max`` is ``Lambda*`` of item 11 (``inf`` without it).
    ``mu_scale`` (p,), :func:`stationarity_scale`: ``M.mu`` bounds the model's ``mu+-_j / s_j`` (item 12);
    None: 1."""
    n_t = len(y_train)
    r_t = feature_reach(X_train, w_bar_ub)
    r_v = feature_reach(X_val, w_bar_ub)
    b0 = float(r_t.max() + 1.0)
    # A training-optimal replica's hinge is at most 1 + R_i + B (item 2); Eq. (24)'s merely feasible one
    # inflates xi_hat up to 1 + R_i + B_TV, enough for every budget a follower optimum needs (item 5).
    reach = b0 if least_loss_bound is not None else float(max(r_t.max(), r_v.max()) + 1.0)
    xi_hat = 1.0 + r_t + reach
    budget = (1.0 + epsilon) * float(xi_hat.mean() if least_loss_bound is None else least_loss_bound)
    pos, neg = y_train > 0, y_train < 0
    b_hi = float((n_t * budget + r_t[pos].sum()) / pos.sum() - 1.0)
    b_lo = float((n_t * budget + r_t[neg].sum()) / neg.sum() - 1.0)
    bb = max(b_hi, b_lo)
    f_t, f_v = r_t + bb, r_v + bb
    f_f = f_v[np.asarray(flipped, dtype=int)]
    n_f = len(f_f)
    M = PessimisticBigM(
        b_hat=b0,
        xi_hat=xi_hat,
        budget=budget,
        b_lo=b_lo,
        b_hi=b_hi,
        xi=np.minimum(1.0 + f_t, n_t * budget),
        slack_t=np.maximum(f_t - 1.0, 0.0),
        v=1.0 + f_f,
        slack_f=np.maximum(f_f - 1.0, 0.0),
        g=1.0 + f_v,
        alpha=1.0 / n_f,
        lam=1.0,  # lam = lambda/(1+lambda) < 1 whatever the bound: the model need not change with it
        kappa_min=1.0 / (1.0 + float(lambda_bound)),
        beta=1.0 / n_t,
        mu=mu_big_m(_scaled(np.maximum(np.abs(X_val[np.asarray(flipped, dtype=int)]).sum(axis=0) / n_f,
                                       np.abs(X_train).sum(axis=0) / n_t), mu_scale)),
        box=2.0 * np.asarray(w_bar_ub, dtype=float),
        mu_scale=mu_scale,
    )
    if least_loss_bound is None or y_val is None:
        return M
    # Item 9 for the follower: its training loss is at most (1 + epsilon) v*(w_bar_lb).
    F = np.asarray(flipped, dtype=int)
    rows = np.vstack([X_train, X_val[F]])
    labels = np.r_[np.asarray(y_train, float), -np.asarray(y_val, float)[F]]
    val = None if cutoff is None else (X_val, y_val, cutoff)
    m_lo, m_hi, b_lo, b_hi = _tightened(X_train, y_train, w_bar_ub, budget, rows, labels, val)
    def flipped_hinge_cap(lo):  # M^v from the least follower margins of the flipped points
        return np.minimum(M.v, np.maximum(1.0 - lo[n_t:], 0.0))

    v = flipped_hinge_cap(m_lo)
    lambda_max = np.inf
    if epsilon > 0 and least_loss_ub is not None and least_loss_ub > 0:
        # Item 11 needs M^v over every training optimum, i.e. the ranges without the cutoff (cached when the
        # model without the cutoff was built first, as bilevel.tune does).
        v_all = v if cutoff is None else flipped_hinge_cap(
            _tightened(X_train, y_train, w_bar_ub, budget, rows, labels)[0])
        lambda_max = float(v_all.mean() / (epsilon * least_loss_ub))
    return replace(
        M,
        b_lo=min(M.b_lo, -b_lo), b_hi=min(M.b_hi, b_hi),
        xi=np.minimum(M.xi, np.maximum(1.0 - m_lo[:n_t], 0.0)),
        slack_t=np.minimum(M.slack_t, np.maximum(m_hi[:n_t] - 1.0, 0.0)),
        v=v,
        slack_f=np.minimum(M.slack_f, np.maximum(m_hi[n_t:] - 1.0, 0.0)),
        outside=None if cutoff is None else m_lo > 1.0,
        inside=None if cutoff is None else m_hi < 1.0,
        lambda_max=lambda_max,
    )
