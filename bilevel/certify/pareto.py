"""Pareto front of candidates under several objectives (all minimised).

Eq. (2) of the Pareto-testing paper: candidate ``a`` dominates ``b`` when it is no worse in every
objective and strictly better in at least one; the Pareto front is the set of candidates no other
candidate dominates. Candidates with identical objective vectors do not dominate each other, so all
copies stay on the front.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..validation import as_float_array

__all__ = ["pareto_front", "pareto_front_mask"]


def pareto_front_mask(objectives) -> np.ndarray:
    """Boolean mask of the non-dominated rows of ``objectives``: the Pareto set of Eq. (2) of the
    Pareto-testing paper (step 2 of Pareto testing, line 4 of Alg. 2 of the RG-PT paper).

    Parameters
    ----------
    objectives : array_like, shape (m, K) or (m,)
        ``objectives[j, k]`` is objective ``k`` of candidate ``j``; smaller is better.

    Returns
    -------
    ndarray of bool, shape (m,).

    Raises
    ------
    InputError
        Non-numeric or ragged input, empty input, more than 2 dimensions, NaN or infinite values.
    """
    obj = as_float_array(objectives, "objectives", "a numeric array of shape (m, K) or (m,)")
    if obj.ndim == 1:
        obj = obj[:, None]
    if obj.ndim != 2 or obj.shape[0] == 0 or obj.shape[1] == 0:
        raise InputError(f"objectives must have shape (m, K) with m, K >= 1, got {np.shape(objectives)}")
    if not np.all(np.isfinite(obj)):
        raise InputError("objectives contain NaN or infinite values")
    m = obj.shape[0]
    mask = np.ones(m, dtype=bool)
    # O(m^2 K) with O(m K) memory per row; fine for the few thousand candidates of a grid.
    for j in range(m):
        no_worse = np.all(obj <= obj[j], axis=1)
        better = np.any(obj < obj[j], axis=1)
        if np.any(no_worse & better):
            mask[j] = False
    return mask


def pareto_front(objectives) -> np.ndarray:
    """Indices (ascending) of the Pareto-optimal candidates (Eq. (2) of the Pareto-testing paper).

    ``objectives`` shape (m, K) or (m,), smaller is better; returns an int array of shape (<= m,). Raises
    ``InputError`` as :func:`pareto_front_mask`.
    """
    return np.nonzero(pareto_front_mask(objectives))[0]
