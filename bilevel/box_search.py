"""A primal heuristic for the tuning MILPs: a local search over the box ``w_bar`` with LP evaluations.

At a fixed box the bilevel problem is an LP: the follower's optimum, and among its ties the one best for the
leader, give a bilevel-feasible point whose outer objective ``F(w_bar)`` (mean validation hinge loss) is
computed by :func:`bilevel.warmstart.kkt_start`'s LPs (Eq. (21) or Eq. (25) of the pessimistic bilevel
tuning paper at that box). The MILP's optimum is ``min F`` over the box bounds. ``F`` is piecewise
linear and discontinuous, so no local search proves anything; but a good incumbent lets HiGHS prune, and
at |T| = |V| = 50-100 the MIP start at ``w_bar_ub`` is often far from optimal (cancer 100/100 seed 2: 0.223
against the optimum 0.119). :func:`search_box` evaluates:

1. the given boxes (``w_bar_ub`` or the pessimistic start's boxes);
2. ``|w|`` of hinge-loss minimisers on the validation set, on training plus validation, and on the
   training set, each in boxes ``c w_bar_ub`` for ``c`` in ``_LP_SCALES`` and shrunk by ``_SHRINK``
   (a box that fits a hyperplane good on validation data), and ``w_bar_ub`` shrunk by ``_SHRINK``;
3. a coordinate search from the best box: each ``w_bar_j`` in turn set to its bounds or scaled by
   ``_STEPS``, keeping every improvement, for up to ``sweeps`` passes.

It stops early when a box reaches ``floor`` (a known lower bound, e.g. HiGHS's dual bound) or the deadline.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .errors import SolverError
from .hinge_highs import hinge_lp_highs

_LP_SCALES = (1.0, 0.5, 0.2, 0.1, 0.05)
_SHRINK = (1.0, 0.75, 0.5, 0.35, 0.25, 0.15)
_STEPS = (0.5, 0.8, 1.25, 2.0)
_TOL = 1e-9


@dataclass
class BoxSearch:
    """Result of :func:`search_box`: the best box ``w_bar`` (p,), its value ``objective`` (outer objective
    units, ``inf`` if no box gave a point), the evaluator's ``payload`` there, ``evaluations`` (boxes
    tried) and ``seconds`` (wall time)."""

    w_bar: np.ndarray | None
    objective: float
    payload: object
    evaluations: int
    seconds: float


def candidate_boxes(X_train, y_train, X_val, y_val, w_bar_ub) -> list:
    """Step 2 of the module docstring: boxes around hinge-loss minimisers. ``X_*`` (n, p), ``y_*`` (n,)
    in {-1, +1}, ``w_bar_ub`` (p,). Returns a list of (p,) arrays (not clipped to a lower bound).
    Blocks with one class only are skipped (their minimiser is ``w = 0``)."""
    ub = np.asarray(w_bar_ub, dtype=float)
    blocks = [(X_val, y_val), (np.vstack([X_train, X_val]), np.concatenate([y_train, y_val])), (X_train, y_train)]
    boxes = []
    for X, y in blocks:
        if len(np.unique(y)) < 2:
            continue
        for c in _LP_SCALES:
            try:
                w = np.abs(hinge_lp_highs(c * ub, (X, y)).w)
            except SolverError:
                continue
            boxes += [t * w for t in _SHRINK]
    return boxes + [t * ub for t in _SHRINK[1:]]


def expected_evaluations(n_boxes: int, p: int, sweeps: int = 3) -> int:
    """Upper estimate of the boxes :func:`search_box` evaluates: ``n_boxes`` given boxes, the
    :func:`candidate_boxes` (three blocks), and ``sweeps`` passes of six values for each of ``p`` coordinates."""
    return n_boxes + 3 * len(_LP_SCALES) * len(_SHRINK) + len(_SHRINK) - 1 + sweeps * (len(_STEPS) + 2) * p


def search_box(evaluate, boxes, w_bar_lb, w_bar_ub, floor: float = -np.inf, sweeps: int = 3,
               deadline: float | None = None) -> BoxSearch:
    """Minimise ``evaluate`` over boxes (steps 1-3 of the module docstring).

    Parameters
    ----------
    evaluate : ``w_bar (p,) -> (objective, payload)`` or ``None`` (no point at that box); boxes are clipped
        to ``[w_bar_lb, w_bar_ub]`` first.
    boxes : the boxes of steps 1-2, tried in order (the first of equal value is kept).
    w_bar_lb, w_bar_ub : (p,) bounds.
    floor : stop as soon as a box reaches this value (within 1e-9).
    sweeps : passes of the coordinate search (0: none).
    deadline : ``time.perf_counter()`` value after which no further box is evaluated.

    Returns
    -------
    :class:`BoxSearch` (``w_bar`` None and ``objective`` inf when no box gave a point). Raises nothing of
    its own; an exception from ``evaluate`` propagates.
    """
    t0 = time.perf_counter()
    lb, ub = np.asarray(w_bar_lb, dtype=float), np.asarray(w_bar_ub, dtype=float)
    best = BoxSearch(None, np.inf, None, 0, 0.0)
    seen = set()

    def done() -> bool:
        return best.objective <= floor + _TOL or (deadline is not None and time.perf_counter() > deadline)

    def consider(box) -> bool:
        box = np.clip(np.asarray(box, dtype=float), lb, ub)
        key = np.round(box, 12).tobytes()
        if key in seen:
            return False
        seen.add(key)
        best.evaluations += 1
        out = evaluate(box)
        if out is not None and out[0] < best.objective - _TOL:
            best.w_bar, best.objective, best.payload = box, float(out[0]), out[1]
            return True
        return False

    for box in boxes:
        if done():
            break
        consider(box)
    for _ in range(sweeps):
        if best.w_bar is None or done():
            break
        improved = False
        for j in range(len(ub)):
            current = best.w_bar[j]
            for value in (lb[j], *(s * current for s in _STEPS), ub[j]):
                if done():
                    break
                box = best.w_bar.copy()
                box[j] = value
                improved |= consider(box)
        if not improved:
            break
    best.seconds = time.perf_counter() - t0
    return best
