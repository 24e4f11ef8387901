"""Input checks shared by the model builders, :func:`bilevel.tune` and the CLI. Every failure is an
:class:`bilevel.errors.InputError` (a ``ValueError``) whose message names the problem."""
from __future__ import annotations

import numpy as np

from .errors import InputError


def check_xy(X, y, name: str, p: int | None = None, both_classes: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Return ``X`` (n, p) and ``y`` (n,) as float64 after checking ``X`` (:func:`check_features`), ``y``'s
    shape and labels in {-1, +1} (both present when ``both_classes``). Raises InputError otherwise."""
    X = check_features(X, name, p)
    y = as_float_array(y, f"y_{name}", "a 1-D array of the labels -1 and +1")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y_{name} must be 1-D with one label per row of X_{name}; got X {X.shape}, y {y.shape}")
    if not np.isfinite(y).all():
        raise InputError(f"y_{name} contains NaN or inf; it must contain only the labels -1 and +1")
    other = np.setdiff1d(y, (-1.0, 1.0))
    if other.size:
        shown = ", ".join(f"{v:g}" for v in other[:5]) + (", ..." if other.size > 5 else "")
        raise InputError(f"y_{name} must contain only the labels -1 and +1; it also holds {shown}")
    if both_classes and len(np.unique(y)) < 2:
        raise InputError(f"the {name} set has one class only (label {y[0]:+.0f}); both classes are needed")
    return X, y


def check_features(X, name: str, p: int | None = None) -> np.ndarray:
    """Return the features ``X_<name>`` as a float64 (n, p) array after checking that they are numeric,
    2-D, with at least one row and one column, ``p`` columns when ``p`` is given, and finite. Raises
    InputError naming the problem otherwise."""
    X = as_float_array(X, f"X_{name}", "a numeric 2-D array (n, p)")
    if X.ndim != 2:
        raise InputError(f"X_{name} must be a 2-D array (n, p); got shape {X.shape}")
    if X.shape[0] == 0:
        raise InputError(f"X_{name} has no rows: the {'validation' if name == 'val' else name} set is empty")
    if X.shape[1] == 0:
        raise InputError(f"X_{name} has no feature columns")
    if p is not None and X.shape[1] != p:
        raise InputError(f"X_{name} has {X.shape[1]} features but the training set has {p}")
    if not np.isfinite(X).all():
        raise InputError(f"X_{name} contains NaN or inf")
    return X


def as_number(value, name: str) -> float:
    """``float(value)``; InputError naming ``name`` when ``value`` is not a number (a bool included)."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number, got {value!r}") from None


def check_mip_gap(value, name: str = "mip_gap") -> float:
    """Return the relative MIP gap ``value`` as a float; InputError naming ``name`` unless it lies in
    [0, 1)."""
    gap = as_number(value, name)
    if not 0 <= gap < 1:
        raise InputError(f"{name} must lie in [0, 1); got {value}")
    return gap


def as_float_array(values, name: str, what: str) -> np.ndarray:
    """``values`` as a float64 array; InputError naming ``name`` when they are not numbers (strings, an
    object array, ragged nested lists)."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        raise InputError(f"{name} must be {what}; got an array of Python objects")
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {what}") from None


def check_w_bar_bounds(bounds, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(w_bar_lb, w_bar_ub)`` as (p,) arrays from scalars or length-p sequences; raise InputError
    when they are not finite, negative, or ``lb > ub``."""
    try:
        lb, ub = bounds
    except (TypeError, ValueError):
        raise InputError(f"w_bar_bounds must be a pair (lb, ub); got {bounds!r}") from None
    lb = as_float_array(lb, "w_bar_lb", f"a number or one number per feature ({p})")
    ub = as_float_array(ub, "w_bar_ub", f"a number or one number per feature ({p})")
    if lb.shape not in ((), (p,)) or ub.shape not in ((), (p,)):
        raise InputError(f"w_bar bounds must be scalars or have one entry per feature ({p}); got shapes "
                         f"{lb.shape} and {ub.shape}")
    lb, ub = np.broadcast_to(lb, (p,)).copy(), np.broadcast_to(ub, (p,)).copy()
    if not (np.isfinite(lb).all() and np.isfinite(ub).all()):
        raise InputError("w_bar bounds must be finite")
    if (lb < 0).any():
        raise InputError(f"w_bar_lb must be >= 0 (it bounds |w|); got min {lb.min()}")
    if (lb > ub).any():
        j = int(np.argmax(lb > ub))
        raise InputError(f"infeasible bounds: w_bar_lb > w_bar_ub (feature {j}: {lb[j]} > {ub[j]})")
    return lb, ub


#: What the hooks of :func:`bilevel.solve_model` and :func:`bilevel.tune` count (their ``clock``): HiGHS run
#: time, or branch-and-bound nodes.
CLOCKS = ("seconds", "nodes")


def check_clock(clock) -> str:
    """Return ``clock``; raise InputError unless it is one of :data:`CLOCKS`."""
    if clock not in CLOCKS:
        raise InputError(f"clock must be one of {', '.join(map(repr, CLOCKS))}; got {clock!r}")
    return clock


def check_epsilon(epsilon) -> float:
    """Return ``epsilon`` as float; raise InputError unless it is finite and >= 0."""
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise InputError(f"epsilon must be a number; got {epsilon!r}") from None
    if not np.isfinite(eps) or eps < 0:
        raise InputError(f"epsilon must be finite and >= 0 (relative suboptimality of the training loss); got {epsilon}")
    return eps


def check_open_unit(value, name: str) -> float:
    """Return ``value`` as a float after checking it lies strictly between 0 and 1 (a risk limit ``alpha`` or
    an error level ``delta``); raise InputError naming ``name`` otherwise (not a number, NaN, outside (0, 1))."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a number in (0, 1), got {value!r}") from None
    if not np.isfinite(v) or not 0.0 < v < 1.0:
        raise InputError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return v
