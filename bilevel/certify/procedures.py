"""Multiple-testing procedures on a vector of p-values.

Every procedure takes ``p_values`` (a 1-D array, one entry per null hypothesis "candidate ``j`` has
risk > alpha") and the error level ``delta`` in (0, 1), and returns a boolean rejection mask of the
same length (``True`` = null rejected = candidate certified).

* FWER (probability of at least one false rejection <= delta): :func:`bonferroni`, :func:`holm`,
  :func:`fixed_sequence` with ``fdr=False``.
* FDR (expected share of false rejections among the rejections <= delta, Eq. (8) of the RG-PT
  paper): :func:`benjamini_hochberg` (independent or positively dependent p-values),
  :func:`benjamini_yekutieli` (any dependence), :func:`fixed_sequence` with ``fdr=True`` (Eq. (14) of
  the RG-PT paper, any dependence), and DAGGER in :mod:`bilevel.certify.dagger`.

Ties: every comparison is ``p <= threshold``, as in ``statsmodels.stats.multitest.multipletests``.

The claims "any dependence" are checked exactly on small instances: ``tests/test_arbitrary_dependence.py``
computes the worst-case FWER or FDR over all joint laws of the p-values by a linear program.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..validation import (as_float_array, check_count, check_flag, check_open_unit, is_boolean, is_integer,
                          value_text)
from .p_values import MAX_N

__all__ = [
    "bonferroni",
    "holm",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "fixed_sequence",
    "fixed_sequence_thresholds",
    "check_p_values",
    "check_delta",
]


def check_delta(delta) -> float:
    """Return ``delta`` as a float after checking it lies strictly between 0 and 1.

    Raises
    ------
    InputError
        ``delta`` not a number, NaN, or outside (0, 1).
    """
    return check_open_unit(delta, "delta (error level)")


def check_p_values(p_values, *, allow_empty: bool = False) -> np.ndarray:
    """Return ``p_values`` as a 1-D float array after validation.

    Raises
    ------
    InputError
        Not numeric (booleans included), not 1-D, empty (unless ``allow_empty``), NaN, or values outside [0, 1].
    """
    if is_boolean(p_values):  # a rejection mask is no p-values: True would be read as p = 1
        raise InputError("p_values must be numbers in [0, 1], not booleans")
    p = as_float_array(p_values, "p_values", "a 1-D array of p-values in [0, 1]")
    if p.ndim != 1:
        raise InputError(f"p_values must be a 1-D array, got shape {p.shape}")
    if p.size == 0:
        if allow_empty:
            return p
        raise InputError("p_values is empty: there is no candidate to test")
    if np.any(np.isnan(p)):
        raise InputError("p_values contain NaN")
    if p.min() < 0.0 or p.max() > 1.0:
        raise InputError(f"p_values must lie in [0, 1]; got range [{p.min()}, {p.max()}]")
    return p


def bonferroni(p_values, delta) -> np.ndarray:
    """Bonferroni correction (FWER): reject ``H_j`` when ``p_j <= delta / m``.

    The Bonferroni correction of App. A of the RG-PT paper (its reference [23]).

    Parameters: ``p_values`` shape (m,), ``delta`` in (0, 1). Returns a bool mask of shape (m,).
    Valid under any dependence. Raises ``InputError`` on bad p-values or ``delta``.
    """
    p = check_p_values(p_values)
    d = check_delta(delta)
    return p <= d / p.size


def holm(p_values, delta) -> np.ndarray:
    """Holm's step-down procedure (FWER, any dependence; Holm, 1979, not in the three papers; rejects at
    least what :func:`bonferroni` rejects; LTT's FWER default here).

    With ``p_(1) <= ... <= p_(m)``, reject ``H_(1), ..., H_(k)`` where ``k`` is the largest index with
    ``p_(i) <= delta / (m - i + 1)`` for all ``i <= k``. Shapes, errors: as :func:`bonferroni`.
    """
    p = check_p_values(p_values)
    d = check_delta(delta)
    m = p.size
    order = np.argsort(p, kind="stable")
    ok = p[order] <= d / np.arange(m, 0, -1)
    n_reject = m if ok.all() else int(np.argmin(ok))
    mask = np.zeros(m, dtype=bool)
    mask[order[:n_reject]] = True
    return mask


def _step_up(p: np.ndarray, level: float, divisor: float = 1.0) -> np.ndarray:
    """Step-up rule: reject the ``k`` smallest p-values, ``k`` the largest ``i`` with ``p_(i) <= (i / m) /
    divisor * level``, evaluated in this order, as statsmodels does, so that a p-value equal to its
    statsmodels cutoff is rejected here too."""
    m = p.size
    order = np.argsort(p, kind="stable")
    below = p[order] <= np.arange(1, m + 1) / m / divisor * level
    mask = np.zeros(m, dtype=bool)
    if below.any():
        k = int(np.nonzero(below)[0].max()) + 1
        mask[order[:k]] = True
    return mask


def benjamini_hochberg(p_values, delta) -> np.ndarray:
    """Benjamini-Hochberg step-up procedure (FDR; independent or PRDS p-values).

    With ``p_(1) <= ... <= p_(m)``, let ``k`` be the largest ``i`` with ``p_(i) <= i delta / m``;
    reject ``H_(1), ..., H_(k)``. Controls the FDR of Eq. (8) of the RG-PT paper at
    ``delta * m0 / m``. Shapes, errors: as :func:`bonferroni`.
    """
    p = check_p_values(p_values)
    return _step_up(p, check_delta(delta))


def benjamini_yekutieli(p_values, delta) -> np.ndarray:
    """Benjamini-Yekutieli procedure (FDR under arbitrary dependence).

    Benjamini-Hochberg at level ``delta / sum_{i=1}^m 1/i`` (Benjamini & Yekutieli, 2001, cited as the
    BY procedure in App. A of the RG-PT paper). Shapes, errors: as :func:`bonferroni`.
    """
    p = check_p_values(p_values)
    d = check_delta(delta)
    harmonic = float(np.sum(1.0 / np.arange(1, p.size + 1)))
    return _step_up(p, d, harmonic)


def _check_max_failures(max_failures) -> int:
    if not is_integer(max_failures) or max_failures < 1:
        raise InputError(f"max_failures must be a positive integer, got {value_text(max_failures)}")
    return int(max_failures)


def fixed_sequence_thresholds(m: int, delta, *, fdr: bool = False, max_failures: int = 1) -> np.ndarray:
    """Critical values ``delta_i`` of fixed-sequence testing at positions ``i = 1..m``.

    * ``fdr=True``: Eq. (14) of the RG-PT paper (Lynch, Guo, Sarkar & Finner, 2017, arbitrary
      dependence), with ``k = max_failures``: ``delta_i = delta / k`` for ``i <= k`` and
      ``delta_i = (m - k + 1) delta / ((m - i + 1) k)`` for ``i > k``.
    * ``fdr=False`` (FWER): ``delta_i = delta / k`` for every ``i``. With ``k = 1`` this is classic
      fixed-sequence testing (Pareto testing, Alg. C.1 of the Pareto-testing paper). For ``k > 1``:
      a false rejection at the ``t``-th true null in the order means the ``t - 1`` earlier true nulls
      were tested and not rejected, i.e. were failures, so ``t <= k``; a union bound over the first
      ``k`` true nulls gives FWER <= ``k * delta / k``.

    ``k`` larger than ``m`` is replaced by ``m`` (the procedure then never stops early either way).

    Returns an array of shape (m,). Raises ``InputError`` for bad ``delta``, ``m`` not an integer in [1, 2**53]
    (a float, a bool, NaN) or too large for its array to fit in memory, ``max_failures`` not an integer >= 1 or
    ``fdr`` not a bool.
    """
    d = check_delta(delta)
    k = _check_max_failures(max_failures)
    fdr = check_flag(fdr, "fdr")  # a truthy string such as "no" or "fwer" meant FDR
    m = check_count(m, "m (number of hypotheses)", 1, MAX_N)  # 10**400: numpy's "Maximum allowed dimension exceeded"
    k = min(k, m)
    try:
        if not fdr:
            return np.full(m, d / k)
        i = np.arange(1, m + 1)
        return np.where(i <= k, d / k, (m - k + 1) * d / ((m - i + 1) * k))
    except MemoryError:  # m = 10**12: numpy's "Unable to allocate 7.28 TiB"
        raise InputError(f"m (number of hypotheses) = {m}: its {m} thresholds do not fit in memory") from None


def fixed_sequence_details(p_values, delta, *, fdr: bool = False, max_failures: int = 1):
    """Fixed-sequence testing that also reports which hypotheses were examined.

    Returns ``(rejected, tested)``, two bool masks in the given order. See :func:`fixed_sequence`.
    """
    p = check_p_values(p_values)
    thresholds = fixed_sequence_thresholds(p.size, delta, fdr=fdr, max_failures=max_failures)
    k = _check_max_failures(max_failures)
    rejected = np.zeros(p.size, dtype=bool)
    tested = np.zeros(p.size, dtype=bool)
    failures = 0
    for i in range(p.size):
        tested[i] = True
        if p[i] <= thresholds[i]:
            rejected[i] = True
        else:
            failures += 1
            if failures >= k:
                break
    return rejected, tested


def fixed_sequence(p_values, delta, fdr: bool = False, max_failures: int = 1) -> np.ndarray:
    """Fixed-sequence testing in the given order (FWER, or FDR via Eq. (14) of the RG-PT paper).

    The hypotheses are tested one by one in the order of ``p_values``; ``H_i`` is rejected when
    ``p_i <= delta_i`` (see :func:`fixed_sequence_thresholds`). A non-rejection is a failure; testing
    stops for good at the ``max_failures``-th failure (it never skips ahead), so hypotheses after the
    stopping point are not rejected whatever their p-values. App. A of the RG-PT paper; with
    ``fdr=False, max_failures=1`` the procedure of Pareto testing.

    Parameters
    ----------
    p_values : array_like, shape (m,)
        p-values already in test order (most promising first).
    delta : float in (0, 1)
    fdr : bool
        ``False``: FWER control; ``True``: FDR control under arbitrary dependence (Eq. (14)).
    max_failures : int >= 1
        ``k`` in Eq. (14): the number of failures tolerated before testing stops.

    Returns
    -------
    ndarray of bool, shape (m,), in the given order.

    Raises
    ------
    InputError
        Bad p-values, ``delta`` or ``max_failures``, or an ``fdr`` that is not a bool (e.g. a string).
    """
    return fixed_sequence_details(p_values, delta, fdr=fdr, max_failures=max_failures)[0]
