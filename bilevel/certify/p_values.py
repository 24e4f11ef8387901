"""Valid p-values for the null hypothesis "the true risk exceeds the limit alpha".

Setting (RG-PT paper, Secs. 2.1-2.2; Pareto-testing paper, App. B): a loss bounded in [0, 1] is averaged
over ``n`` calibration points that the candidate never saw, giving the empirical risk ``r_hat``. For
the null ``H: R > alpha`` each function below returns a super-uniform p-value ``p`` (that is,
``P(p <= u) <= u`` for every ``u`` under ``H``), vectorised over ``r_hat``. All of them

* lie in [0, 1] (clipped at 1; positive unless they underflow),
* are non-decreasing in ``r_hat``,
* equal 1 once ``r_hat >= alpha`` (the exact binomial p-value is the exception: it is the binomial
  CDF itself, which is >= 1/2 there, never a rejection at any ``delta < 1/2``),
* equal their closed form at ``r_hat = 0``: ``exp(-2 n alpha^2)`` (Hoeffding), ``(1 - alpha)^n``
  (Hoeffding-KL and binomial), ``min(1, e (1 - alpha)^n)`` (Bentkus).

Naming: ``alpha`` is the risk limit, ``n`` the number of calibration points, ``r_hat`` the
empirical risk. ``delta`` (the error level of the multiple-testing procedure) does not appear here.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from scipy import special, stats

from ..errors import InputError
from ..validation import as_float_array, check_flag, check_open_unit, is_boolean, value_text

__all__ = [
    "hoeffding_p_value",
    "hoeffding_kl_p_value",
    "bentkus_p_value",
    "hoeffding_bentkus_p_value",
    "binomial_p_value",
    "combined_p_value",
    "p_values_from_losses",
    "P_VALUE_METHODS",
    "resolve_p_value_method",
]



def _as_output(x: np.ndarray):
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x


#: Largest number of calibration points accepted: above 2**53 float64 cannot represent every count of
#: points (nor ``n * r_hat``), and scipy's binomial CDF returns NaN for such ``n``.
MAX_N = 2**53


def _input_eps(r_hat) -> float:
    """Machine epsilon of the floats ``r_hat`` was given in: float32's (1.2e-7) or float16's for such an array, a
    pandas column or numpy scalar, float64's otherwise. A risk k / n given in float32 is within about 6e-8 of it
    (relative), so n * r_hat is off an integer by far more than float64's round-off: the Bentkus p-value counted
    ceil(50 * float32(0.1)) = 6 errors (0.982 instead of 0.596) and the binomial p-value refused float16 risks as
    not 0/1 losses. Raises nothing."""
    dtype = getattr(r_hat, "dtype", None)
    if not isinstance(dtype, np.dtype):
        try:
            dtype = np.asarray(r_hat).dtype  # a list of np.float32 values
        except (TypeError, ValueError):
            return float(np.finfo(float).eps)
    if dtype.kind == "f" and dtype.itemsize < 8:
        return float(np.finfo(dtype).eps)
    return float(np.finfo(float).eps)


def _n_too_large(n) -> InputError:
    """The error for a calibration size ``n`` (or one of an array) above 2**53, float64's last exact integer."""
    return InputError(f"n (number of calibration points) must be at most 2**53 = {MAX_N:.4g} (float64 cannot count "
                      f"beyond it), got {value_text(n)}")


def _check_args(r_hat, n, alpha) -> tuple[np.ndarray, np.ndarray, float]:
    if is_boolean(r_hat):  # True would be read as the risk 1.0
        raise InputError(f"r_hat must be empirical risks in [0, 1], not booleans; got {r_hat!r}")
    r = as_float_array(r_hat, "r_hat", "a number or an array of empirical risks in [0, 1]")
    if r.size and not np.all(np.isfinite(r)):
        raise InputError("r_hat contains NaN or infinite values")
    if r.size and (r.min() < 0.0 or r.max() > 1.0):
        raise InputError(f"r_hat must lie in [0, 1] (losses bounded in [0, 1]); got range [{r.min()}, {r.max()}]")
    if isinstance(n, int) and not isinstance(n, bool) and n > MAX_N:  # numpy holds it as an object, not a number
        raise _n_too_large(n)
    try:
        n_arr = np.asarray(n)
    except (TypeError, ValueError):  # ragged nested lists
        raise InputError(f"n must be a positive integer or an array of them, got {value_text(n)}") from None
    if n_arr.dtype.kind not in "iuf" or not np.all(np.isfinite(n_arr)):
        raise InputError(f"n must be a positive integer, got {value_text(n)}")
    if n_arr.dtype.kind == "f":  # float16 n: comparing with 2**53 cast 2**53 to float16 ("overflow encountered")
        n_arr = n_arr.astype(np.float64)
    if np.any(n_arr < 1) or np.any(n_arr != np.round(n_arr)):
        raise InputError(f"n (number of calibration points) must be a positive integer, got {value_text(n)}")
    if np.any(n_arr > MAX_N):
        raise _n_too_large(n)
    try:
        np.broadcast_shapes(r.shape, n_arr.shape)
    except ValueError:
        raise InputError(f"n must be one integer or broadcast against r_hat; got shapes {n_arr.shape} for n and "
                         f"{r.shape} for r_hat") from None
    n_arr = n_arr.astype(np.int64)
    a = _check_alpha(alpha)
    return r, n_arr, a


def _check_alpha(alpha) -> float:
    return check_open_unit(alpha, "alpha (risk limit)")


def _rounded_count(r: np.ndarray, n: np.ndarray, eps: float = float(np.finfo(float).eps)) -> np.ndarray:
    """``n * r_hat`` as the nearest integer ``k`` when within ``2 eps |n r_hat|`` of it (``eps``: that of the floats
    ``r_hat`` was given in, :func:`_input_eps`), else unchanged.

    ``r_hat = k / n`` stored as a float, then multiplied by ``n``, is two roundings, so ``n * r_hat`` is only within
    about ``eps k`` of ``k`` (``3 * fl(1/3)``; 1.7% of the exact counts came back above ``k`` for ``n = 1e9``). Only
    that round-off is removed: a value farther from ``k`` is a real fraction of a loss, and rounding it down would
    make the Bentkus p-value smaller than its exact value (anti-conservative). Rounding to 9 decimals, as before, did
    so for ``n r_hat = 3 + 4e-10``: 1.6e-6 instead of 1.0e-5 at ``n = 100``, ``alpha = 0.2``."""
    x = n * r
    nearest = np.rint(x)
    return np.where(np.abs(x - nearest) <= 2.0 * eps * np.abs(x), nearest, x)


def _loss_count(r: np.ndarray, n: np.ndarray, eps: float = float(np.finfo(float).eps)) -> np.ndarray:
    """ceil(n * r_hat), robust to floating-point error in n * r_hat (``eps``: as :func:`_rounded_count`)."""
    return np.ceil(_rounded_count(r, n, eps))


def hoeffding_p_value(r_hat, n, alpha, *, kl: bool = False):
    """Hoeffding p-value for ``H: R > alpha``.

    Default (``kl=False``): Eq. (6) of the RG-PT paper (Farzaneh & Simeone),
    ``p = exp(-2 n (alpha - r_hat)_+^2)``. With ``kl=True`` the sharper relative-entropy form of
    Hoeffding's inequality, ``p = exp(-n h1(min(r_hat, alpha), alpha))`` with
    ``h1(a, b) = a log(a/b) + (1-a) log((1-a)/(1-b))`` (first term of Eq. (27) of the Pareto-testing
    paper), see :func:`hoeffding_kl_p_value`.

    Parameters
    ----------
    r_hat : float or array_like, values in [0, 1]
        Empirical risk(s); any shape.
    n : int or array_like of int (broadcast against ``r_hat``)
        Number of calibration points behind each ``r_hat``, in 1 .. 2**53 (:data:`MAX_N`).
    alpha : float in (0, 1)
        Risk limit.

    Returns
    -------
    float or ndarray of the broadcast shape, values in [0, 1].

    Raises
    ------
    InputError
        ``r_hat`` not numeric, outside [0, 1] or NaN; ``n`` not a positive integer or above 2**53; shapes of
        ``r_hat`` and ``n`` that do not broadcast; ``alpha`` not in (0, 1); ``kl`` not True or False (a string
        such as ``"no"`` would be read as its truth value).
    """
    if check_flag(kl, "kl"):
        return hoeffding_kl_p_value(r_hat, n, alpha)
    r, n_arr, a = _check_args(r_hat, n, alpha)
    gap = np.maximum(a - r, 0.0)
    return _as_output(np.exp(-2.0 * n_arr * gap**2))


def _log1pmx(x: np.ndarray) -> np.ndarray:
    """``log(1 + x) - x`` for ``x > -1``, to a few eps relative also for small ``|x|`` (where the difference cancels):
    its Taylor series up to ``x^18`` for ``|x| < 0.1`` (the first term left out is below 1e-17 relative)."""
    x = np.asarray(x, dtype=float)
    small = np.abs(x) < 0.1
    xs = np.where(small, x, 0.0)
    series = np.zeros_like(xs)
    power = xs * xs
    for k in range(2, 19):
        series += (power / k) if k % 2 else (-power / k)
        power = power * xs
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log1p(x) - x
    return np.where(small, series, direct)


def _h1(a: np.ndarray, b: float) -> np.ndarray:
    # rel_entr(x, y) = x log(x / y) with the 0 log 0 = 0 convention. The second term is (1 - a) log((1 - a) /
    # (1 - b)) written with log1p: 1 - b rounded to float64 keeps only log10(1 / b) - 16 digits of b, so for
    # alpha = 1e-14 the p-value at r_hat = 0 was off by up to 2.4e-3 (relative), on either side. Here a <= b < 1.
    # The divergence is >= 0; for ``a`` a few ulps below ``b`` the two terms round to about -1e-16, which would
    # make exp(-n h1) exceed 1.
    a = np.asarray(a, dtype=float)
    far = np.maximum(special.rel_entr(a, b) + (1.0 - a) * (np.log1p(-a) - np.log1p(-b)), 0.0)
    # For a near b the two terms above (each about g = b - a) cancel down to h1 ~ g^2 / (2 b (1 - b)), with an
    # absolute error of about eps * b (the rounding of a / b and of the log1p values): times n, the KL p-value
    # at n = 2**53, alpha = 0.9 came out 0.87 of its exact value (anti-conservative), 0.99 at n = 1e15. There,
    # with x = g / b and y = g / (1 - b) (g exact by Sterbenz's lemma, as a >= b / 2), h1 = x y + a log1pmx(-x)
    # + (1 - a) log1pmx(y), whose terms are of size g^2 and cancel by a factor of 2 at most.
    g = b - a
    x = g / b
    y = g / (1.0 - b)
    near = (x <= 0.5) & (y <= 0.5)
    close = np.maximum(x * y + a * _log1pmx(-np.minimum(x, 0.5)) + (1.0 - a) * _log1pmx(np.minimum(y, 0.5)), 0.0)
    return np.where(near, close, far)


def hoeffding_kl_p_value(r_hat, n, alpha):
    """Relative-entropy Hoeffding p-value ``exp(-n h1(min(r_hat, alpha), alpha))``.

    First term of the Hoeffding-Bentkus p-value, Eq. (27) of the Pareto-testing paper (from Bates et
    al., 2021, "Distribution-free, risk-controlling prediction sets"); never larger than Eq. (6).
    At ``r_hat = 0`` it equals ``(1 - alpha)^n``. Shapes, errors: as :func:`hoeffding_p_value`.
    """
    r, n_arr, a = _check_args(r_hat, n, alpha)
    return _as_output(np.exp(-n_arr * _h1(np.minimum(r, a), a)))


def bentkus_p_value(r_hat, n, alpha):
    """Bentkus p-value ``min(1, e * P(Binomial(n, alpha) <= ceil(n r_hat)))``.

    Second term of Eq. (27) of the Pareto-testing paper (Bates et al., 2021). Valid for any loss in
    [0, 1]. So that a sum of 0/1 losses that is an integer up to floating-point error is not bumped up by one,
    a value of ``n * r_hat`` within ``2 eps n r_hat`` of an integer counts as that integer before ``ceil`` (``eps``
    that of the floats ``r_hat`` is given in, float32's for float32 risks); nothing farther is rounded down, so the
    p-value is never below that of the exact ``ceil(n r_hat)`` (up to that round-off). Once ``r_hat >= alpha`` the
    binomial CDF is at least 1/2 (the median of ``Binomial(n, alpha)`` is at most ``ceil(n alpha)``),
    so the p-value is 1 there. Shapes, errors: as :func:`hoeffding_p_value`.
    """
    r, n_arr, a = _check_args(r_hat, n, alpha)
    k = _loss_count(r, n_arr, _input_eps(r_hat))
    p = np.e * stats.binom.cdf(k, n_arr, a)
    return _as_output(np.minimum(p, 1.0))


def hoeffding_bentkus_p_value(r_hat, n, alpha):
    """Hoeffding-Bentkus p-value: the minimum of :func:`hoeffding_kl_p_value` and :func:`bentkus_p_value`.

    Eq. (27) of the Pareto-testing paper. The minimum of two valid p-values is not valid in general;
    this one is, because both terms bound the same tail probability ``P(R_hat <= r_hat)`` under the
    null (Bates et al., 2021). Shapes, errors: as :func:`hoeffding_p_value`.
    """
    return _as_output(np.minimum(hoeffding_kl_p_value(r_hat, n, alpha), bentkus_p_value(r_hat, n, alpha)))


def binomial_p_value(r_hat, n, alpha):
    """Exact binomial p-value for 0/1 losses: ``P(Binomial(n, alpha) <= n r_hat)``.

    Eq. (28) of the Pareto-testing paper (no ``e`` factor). Valid only when every loss is 0 or 1, so
    that ``n r_hat`` (the number of errors) is ~ Binomial(n, R) and ``R > alpha`` makes small counts
    less likely. It is the binomial CDF itself (not clipped to 1 when ``r_hat >= alpha``).

    Raises
    ------
    InputError
        As :func:`hoeffding_p_value`, and when ``n * r_hat`` is not an integer (the losses cannot be
        0/1).
    """
    r, n_arr, a = _check_args(r_hat, n, alpha)
    eps = _input_eps(r_hat)
    count = _rounded_count(r, n_arr, eps)
    # fl(n * fl(k / n)) is within eps * k of k (two roundings), more than 1e-6 once k passes about 4e9
    tol = np.maximum(1e-6, 2.0 * eps * np.abs(count))
    if count.size and np.any(np.abs(count - np.round(count)) > tol):
        raise InputError("the binomial p-value needs 0/1 losses: n * r_hat must be an integer number of errors")
    return _as_output(stats.binom.cdf(np.round(count), n_arr, a))


P_VALUE_METHODS: dict[str, Callable] = {
    "hoeffding": hoeffding_p_value,
    "hoeffding_kl": hoeffding_kl_p_value,
    "bentkus": bentkus_p_value,
    "hb": hoeffding_bentkus_p_value,
    "hoeffding_bentkus": hoeffding_bentkus_p_value,
    "binomial": binomial_p_value,
}


def resolve_p_value_method(method: str | Callable) -> Callable:
    """Return the p-value function for a name in :data:`P_VALUE_METHODS`, in any case (``"HB"`` is ``"hb"``), or a
    callable, unchanged.

    Raises
    ------
    InputError
        Unknown name.
    """
    if callable(method):
        return method
    try:
        return P_VALUE_METHODS[method.lower() if isinstance(method, str) else method]
    except (KeyError, TypeError):  # TypeError: an unhashable method such as a list
        raise InputError(f"unknown p-value method {value_text(method)}; "
                         f"choose one of {sorted(P_VALUE_METHODS)}") from None


def combined_p_value(r_hats, n, alphas, method: str | Callable = "hoeffding"):
    """p-value for several risk limits at once: the maximum over limits, Eq. (7) of the RG-PT paper.

    The null "some risk ``l`` exceeds ``alphas[l]``" is the union of the single-limit nulls; the
    maximum of valid p-values is a valid p-value for it (Lemma B.1 of the Pareto-testing paper).

    Parameters
    ----------
    r_hats : array_like, shape (..., L)
        Empirical risks; the last axis runs over the ``L`` controlled risks.
    n : int or array_like of int (broadcast against ``r_hats.shape[:-1]``)
        Number of calibration points.
    alphas : array_like, shape (L,)
        One risk limit per controlled risk, each in (0, 1).
    method : str or callable
        A name from :data:`P_VALUE_METHODS` or a function ``(r_hat, n, alpha) -> p`` returning one p-value in
        [0, 1] per entry of ``r_hat`` (same shape).

    Returns
    -------
    float or ndarray of shape ``r_hats.shape[:-1]``.

    Raises
    ------
    InputError
        Non-numeric (or boolean) input, shapes disagree (``n`` included), ``L == 0``, an ``alphas`` entry not in (0,
        1) (NaN included, whatever ``method``), any check of the single-limit p-value fails, or ``method`` returns
        values of another shape or outside [0, 1] (NaN included).
    """
    if is_boolean(r_hats):  # True would be read as the risk 1.0 (the single-limit p-values refuse it too)
        raise InputError(f"r_hats must be empirical risks in [0, 1], not booleans; got {r_hats!r}")
    r = as_float_array(r_hats, "r_hats", "an array of empirical risks, shape (..., L)")
    if _input_eps(r_hats) > np.finfo(float).eps:  # float32 / float16 risks: passed on in their own floats (exact),
        r = r.astype(np.asarray(r_hats).dtype)  # so that the p-value functions count errors at their precision
    if is_boolean(alphas):  # True was read as the limit 1.0 and refused as "got 1.0"
        raise InputError(f"alphas must be risk limits in (0, 1), not booleans; got {alphas!r}")
    a = np.atleast_1d(as_float_array(alphas, "alphas", "a 1-D array of risk limits in (0, 1)"))
    if a.ndim != 1 or a.size == 0:
        raise InputError("alphas must be a non-empty 1-D array of risk limits")
    if r.ndim == 0 or r.shape[-1] != a.size:
        raise InputError(f"r_hats must have a last axis of length {a.size} (one per risk limit), got shape {r.shape}")
    for l in range(a.size):  # checked here too: a custom ``method`` need not check its alpha
        _check_alpha(float(a[l]))  # (a numpy float was shown as "got np.float64(nan)")
    try:  # an n that widened the shape was blamed on the p-value function's output
        widens = np.broadcast_shapes(np.shape(n), r.shape[:-1]) != r.shape[:-1]
    except ValueError:  # ragged, or shapes that do not broadcast: the single-limit check names it
        widens = False
    if widens:
        raise InputError(f"n must be one number of calibration points, or an array of them that broadcasts against "
                         f"r_hats without its last axis, shape {r.shape[:-1]}; got shape {np.shape(n)}")
    fn = resolve_p_value_method(method)
    per_limit = [_checked_output(fn(r[..., l], n, a[l]), r.shape[:-1], method) for l in range(a.size)]
    return _as_output(np.max(np.stack(per_limit, axis=-1), axis=-1))


def _checked_output(p, shape: tuple, method) -> np.ndarray:
    """The p-values ``p`` a p-value function returned, as a float array, after checking that there is one per
    empirical risk (``shape``) and that each lies in [0, 1]: a custom callable that breaks either rule would
    otherwise certify candidates silently. Raises InputError naming the function."""
    name = method if isinstance(method, str) else getattr(method, "__name__", "custom")
    try:
        arr = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"the p-value function {name!r} (argument method / p_value) must return numbers; "
                         f"got {p!r}") from None
    if arr.shape != shape:
        raise InputError(f"the p-value function {name!r} (argument method / p_value) must return one p-value per "
                         f"empirical risk, shape {shape}; got shape {arr.shape}")
    if arr.size and not (np.all(arr >= 0.0) and np.all(arr <= 1.0)):  # False for NaN too
        bad = arr[~((arr >= 0.0) & (arr <= 1.0))].ravel()[0]
        raise InputError(f"the p-value function {name!r} (argument method / p_value) must return p-values in "
                         f"[0, 1]; got {bad}")
    return arr


def p_values_from_losses(losses, alpha, method: str | Callable = "hb") -> np.ndarray:
    """p-values of every candidate from a matrix of per-example losses.

    Parameters
    ----------
    losses : array_like, shape (n, m) or (n, m, L)
        ``losses[i, j]`` is the loss (in [0, 1]) of candidate ``j`` on calibration point ``i``; a third
        axis holds ``L`` controlled risks.
    alpha : float, or array_like of shape (L,)
        Risk limit(s); a single limit applies to every risk. With several limits the p-value is the
        maximum over limits, Eq. (7) of the RG-PT paper.
    method : str or callable
        A name from :data:`P_VALUE_METHODS` (``"binomial"`` requires 0/1 losses), or a function
        ``(r_hat, n, alpha) -> p`` returning one p-value in [0, 1] per entry of ``r_hat`` (shape (m,)).

    Returns
    -------
    ndarray, shape (m,)

    Raises
    ------
    InputError
        Empty, non-numeric, non-finite or out-of-range losses, non-binary losses with ``"binomial"``, shape
        mismatch between ``losses`` and ``alpha``, an ``alpha`` not in (0, 1), a ``method`` returning values of
        another shape or outside [0, 1].
    """
    arr = as_float_array(losses, "losses", "a numeric array of shape (n, m) or (n, m, L)")
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3:
        raise InputError(f"losses must have shape (n, m) or (n, m, L), got {np.shape(losses)}")
    n, m, n_risks = arr.shape
    if n == 0 or m == 0 or n_risks == 0:
        raise InputError(f"losses must have at least one row, one candidate and one controlled risk, got shape "
                         f"{np.shape(losses)}")
    if not np.all(np.isfinite(arr)):
        raise InputError("losses contain NaN or infinite values")
    if arr.min() < 0.0 or arr.max() > 1.0:
        raise InputError(f"losses must lie in [0, 1]; got range [{arr.min()}, {arr.max()}]")
    if is_boolean(alpha):  # True was read as the limit 1.0 and refused as "got np.float64(1.0)"
        raise InputError(f"alpha must be risk limits in (0, 1), not booleans; got {alpha!r}")
    a = np.atleast_1d(as_float_array(alpha, "alpha", "a risk limit or one per controlled risk"))
    if a.size == 1 and n_risks > 1:
        a = np.full(n_risks, a[0])
    if a.shape != (n_risks,):
        raise InputError(f"alpha (risk limit) must be a scalar or have one entry per risk ({n_risks}), got shape "
                         f"{a.shape}")
    fn = resolve_p_value_method(method)
    if fn is binomial_p_value and not np.all((arr == 0.0) | (arr == 1.0)):
        raise InputError("the binomial p-value needs 0/1 losses; use 'hb' (Hoeffding-Bentkus) for losses in [0, 1]")
    r_hat = arr.mean(axis=0)  # (m, L)
    r_hat = np.clip(r_hat, 0.0, 1.0)
    return np.atleast_1d(np.asarray(combined_p_value(r_hat, n, a, fn), dtype=float))
