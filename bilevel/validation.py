"""Input checks shared by the model builders, :func:`bilevel.tune` and the CLI. Every failure is an
:class:`bilevel.errors.InputError` (a ``ValueError``) whose message names the problem."""
from __future__ import annotations

import collections
import contextlib
import errno
import math
import os
import tempfile
import warnings
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from .errors import InputError


def check_xy(X, y, name: str, p: int | None = None, both_classes: bool = True,
             p_from: str = "the training set", columns_of=None) -> tuple[np.ndarray, np.ndarray]:
    """Return ``X`` (n, p) and ``y`` (n,) as float64 after checking ``X`` (:func:`check_features`), ``y``'s
    shape and labels in {-1, +1} (both present when ``both_classes``), that pandas ``X`` and ``y`` share
    their row index (:func:`check_aligned`), and, given ``columns_of = (X_ref, ref_name)``, that a DataFrame ``X``
    has the columns of a DataFrame ``X_ref`` in the same order (:func:`check_columns`). Raises InputError
    otherwise."""
    check_aligned(X, y, f"X_{name}", f"y_{name}")
    if columns_of is not None:
        check_columns(columns_of[0], X, columns_of[1], f"X_{name}")
    X = check_features(X, name, p, p_from)
    if is_boolean(y):  # all-True labels were read as all +1 (a mixed mask was refused for its 0s)
        raise InputError(f"y_{name} must contain the labels -1 and +1, not booleans")
    y = as_float_array(y, f"y_{name}", "a 1-D array of the labels -1 and +1")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise InputError(f"y_{name} must be 1-D with one label per row of X_{name}; got X {X.shape}, y {y.shape}")
    if not np.isfinite(y).all():
        raise InputError(f"y_{name} contains NaN or inf; it must contain only the labels -1 and +1")
    other = np.setdiff1d(y, (-1.0, 1.0))
    if other.size:
        shown = ", ".join(f"{v:.17g}" for v in other[:5]) + (", ..." if other.size > 5 else "")
        raise InputError(f"y_{name} must contain only the labels -1 and +1; it also holds {shown}")
    if both_classes and len(np.unique(y)) < 2:
        raise InputError(f"the {name} set has one class only (label {y[0]:+.0f}); both classes are needed")
    return X, y


def check_aligned(X, y, x_name: str = "X", y_name: str = "y") -> None:
    """Raise InputError when ``X`` and ``y`` are both pandas objects (DataFrame / Series) whose row indexes
    differ: their rows are paired by position, so a ``y`` shuffled, sorted or filtered apart from ``X`` would pair
    each row with another row's label without a word (pandas itself would align them by index). Raises nothing
    otherwise (arrays, lists, one pandas object, a pandas Index, which has no row labels, or a pandas scalar)."""
    # only a DataFrame or Series has row labels: a pandas scalar (pd.NA) or an Index raised AttributeError
    if not all(_is_pandas_container(v) and hasattr(v, "index") for v in (X, y)):
        return
    x_index, y_index = X.index, y.index
    if len(x_index) == len(y_index) and not x_index.equals(y_index):  # other lengths: the shape check names them
        raise InputError(f"{x_name} and {y_name} are pandas objects with different row indexes: rows are paired by "
                         f"position, not by index label; align them first (e.g. {y_name}.loc[{x_name}.index]) or "
                         "pass arrays (.to_numpy())")


def feature_names(X) -> tuple | None:
    """The column labels of a pandas DataFrame ``X`` as a tuple, None for anything else (arrays, lists). Utility of
    :func:`check_columns`; raises nothing."""
    if _is_pandas_container(X) and hasattr(X, "columns"):
        return tuple(X.columns)
    return None


def label_difference(ref, labels) -> str | None:
    """How the label sequence ``labels`` differs from ``ref`` when both have one length: None when they are equal
    (or their lengths differ: a shape check names that), ``""`` when they hold the same labels in another order, and
    otherwise the labels of ``labels`` that ``ref`` lacks, quoted (the first five, then "..."), or, when it lacks
    none, the labels ``labels`` repeats more often than ``ref`` ("'a' repeated"). For the checks that pandas labels
    are paired by position (:func:`check_columns`, the auxiliary objectives of the certification pipelines). No
    equation."""
    ref, labels = list(ref), list(labels)
    if len(ref) != len(labels) or ref == labels:
        return None
    known, have = collections.Counter(ref), collections.Counter(labels)
    if known == have:
        return ""
    only = [repr(c) for c in have if c not in known] or [f"{c!r} repeated" for c in have if have[c] > known[c]]
    return ", ".join(only[:5]) + (", ..." if len(only) > 5 else "")


def check_columns(X_ref, X, ref_name: str, name: str) -> None:
    """Raise InputError when ``X`` is a pandas DataFrame whose column labels differ from ``X_ref``'s, which are a
    DataFrame's columns or a tuple of labels (:func:`feature_names`), in the same number: the package pairs the
    features of two matrices by position, so the validation set's columns in another order, or other columns, were
    used as the training set's without a word (pandas itself would align them by name). Raises nothing otherwise:
    arrays or lists on either side, or other numbers of columns (the shape check names those). Input check
    (utility), no equation."""
    ref = X_ref if isinstance(X_ref, tuple) else feature_names(X_ref)
    cols = feature_names(X)
    if ref is None or cols is None:
        return
    difference = label_difference(ref, cols)
    if difference is None:
        return
    if not difference:
        what = "the same columns in another order"
        fix = f"select them in {ref_name}'s order first ({name}[list({ref_name}.columns)])"
    else:
        what = f"columns other than {ref_name}'s ({difference})"
        fix = (f"give it {ref_name}'s column names, or pass arrays (.to_numpy()) if its columns are the same features "
               "in the same order")
    raise InputError(f"{name} is a DataFrame with {what}: features are paired by position, not by column name; "
                     f"{fix}")


def check_features(X, name: str, p: int | None = None, p_from: str = "the training set") -> np.ndarray:
    """Return the features ``X_<name>`` as a float64 (n, p) array after checking that they are numeric,
    2-D, with at least one row and one column, ``p`` columns when ``p`` is given (the number of features of
    ``p_from``, named in the message), and finite. Raises InputError naming the problem otherwise."""
    X = as_float_array(X, f"X_{name}", "a numeric 2-D array (n, p)")
    if X.ndim != 2:
        raise InputError(f"X_{name} must be a 2-D array (n, p); got shape {X.shape}")
    if X.shape[0] == 0:
        raise InputError(f"X_{name} has no rows: the {'validation' if name == 'val' else name} set is empty")
    if X.shape[1] == 0:
        raise InputError(f"X_{name} has no feature columns")
    if p is not None and X.shape[1] != p:
        raise InputError(f"X_{name} has {X.shape[1]} features but {p_from} has {p}")
    if not np.isfinite(X).all():
        raise InputError(f"X_{name} contains NaN or inf")
    return X


def finite_number(text: str) -> float | None:
    """``text`` (a CSV field) as a finite float, or None when it is not a number or not finite. Raises nothing."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def as_number(value, name: str, what: str = "a number") -> float:
    """``float(value)``; InputError naming ``name`` ("``name`` must be ``what``, got ...") when ``value`` is not
    a number: a bool (np.True_ too) and a string or bytes included, which float() reads as 1.0 and as the number
    they spell (``epsilon="0.2"`` was accepted where ``race="2"`` was refused); numpy scalars are numbers."""
    if isinstance(value, (bool, np.bool_)) or is_text(value):
        raise InputError(f"{name} must be {what}, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {what}, got {value_text(value)}") from None
    except OverflowError:  # an int beyond the float range, e.g. 10**400 (its 401 digits were printed in full)
        raise InputError(f"{name} is too large for a float: {value_text(value, limit=40)}") from None


def _digits(value: int) -> int:
    """The number of decimal digits of the int ``value`` (not 0), without ``str(value)``, which raises ValueError
    beyond 4300 digits (Python's ``sys.get_int_max_str_digits``)."""
    n = int(math.log10(abs(value))) + 1  # log10 of an int is exact enough up to one digit
    return n - 1 if abs(value) < 10 ** (n - 1) else n


def header_separator(fields) -> str | None:
    """``"semicolons"`` or ``"tabs"`` when the header row ``fields`` (its field texts, as a comma-separated reader
    split them) is one field holding that other separator, else None: a file exported with another separator
    (a spreadsheet's CSV in many locales), for a hint in the message that refuses it. A utility; raises nothing."""
    if len(fields) == 1:
        for sep, name in ((";", "semicolons"), ("\t", "tabs")):
            if sep in str(fields[0]):
                return name
    return None


def value_text(value, spec: str | None = None, limit: int | None = None) -> str:
    """``repr(value)`` (``format(value, spec)`` with ``spec``, e.g. ``","``) for an error message, except for a
    Python int of more than 256 bits (about 77 digits): ``"an integer of N digits"``. ``repr`` of an int beyond 4300
    digits raises ValueError ("Exceeds the limit ... for integer string conversion"), which replaced the message
    meant (``n=10**5000``), and below that printed every digit; a list holding such an int is named by its type.
    With ``limit``, a text longer than ``limit`` characters is cut to them and ends in ``...``. Raises what
    ``repr(value)`` raises otherwise."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return f"an integer of {_digits(value)} digits"
    try:
        text = repr(value) if spec is None else format(value, spec)
    except ValueError:  # an int beyond 4300 digits inside a list, tuple, array of objects
        return f"a {type(value).__name__} holding an integer of more than 4300 digits"
    return text if limit is None or len(text) <= limit else text[:limit] + "..."


def check_flag(value, name: str) -> bool:
    """Return ``value`` as a bool after checking it is ``True`` or ``False`` (a numpy bool included); raise
    InputError naming ``name`` otherwise: a string such as ``"no"`` or a number would be read as its truth value."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name} must be True or False; got {value_text(value)}")
    return bool(value)


def check_mip_gap(value, name: str = "mip_gap") -> float:
    """Return the relative MIP gap ``value`` as a float; InputError naming ``name`` unless it lies in
    [0, 1)."""
    gap = as_number(value, name)
    if not 0 <= gap < 1:
        raise InputError(f"{name} must lie in [0, 1); got {value}")
    return gap


def is_complex(values) -> bool:
    """Whether ``values`` (an array or nested sequence) holds complex numbers; False when numpy cannot read it
    as one array (ragged lists), which the float conversion then refuses."""
    try:
        return bool(np.iscomplexobj(values))
    except (TypeError, ValueError):
        return False


def _pandas_columns(values) -> list:
    """The columns of the pandas DataFrame ``values`` as Series, or ``[values]`` for a Series or Index."""
    return [col for _, col in values.items()] if hasattr(values, "columns") else [values]


def _is_pandas_container(values) -> bool:
    """Whether ``values`` is a pandas DataFrame, Series or Index (with a ``dtype`` per column), not one of pandas'
    scalars (``pd.NA``, ``pd.NaT``, ``pd.Timestamp``, ...), which have none: ``epsilon=pd.NA`` raised
    AttributeError "'NAType' object has no attribute 'dtype'"."""
    return type(values).__module__.startswith("pandas") and (hasattr(values, "columns") or hasattr(values, "dtype"))


def is_text(values) -> bool:
    """Whether ``values`` (a scalar, an array, a nested sequence or a pandas object) holds strings or bytes, which
    ``float()`` and the float conversion read as the numbers they spell; False when numpy cannot read it as one
    array (ragged lists), which that conversion refuses. A pandas categorical column is judged by its categories
    (its values): one of the strings ``"1"``, ``"-1"`` was read as those numbers. Raises nothing."""
    if isinstance(values, (str, bytes, bytearray)):
        return True
    if _is_pandas_container(values):  # a column of strings is object dtype, read as numbers
        import pandas as pd
        columns = _pandas_columns(values)
        columns = [pd.Series(col.dtype.categories) if isinstance(col.dtype, pd.CategoricalDtype) else col
                   for col in columns]
        return any(any(isinstance(x, (str, bytes)) for x in col) if col.dtype == object
                   else pd.api.types.is_string_dtype(col.dtype) for col in columns)
    try:
        return np.asarray(values).dtype.kind in "US"
    except (TypeError, ValueError):
        return False


def is_temporal(values) -> bool:
    """Whether ``values`` (an array, a nested sequence or a pandas object) holds dates or durations (numpy's
    datetime64 / timedelta64, pandas' datetime and timedelta columns), which the float conversion reads as counts
    of their storage unit: the durations 1 s, 2 s, 3 s became the features 1, 2, 3 stored in seconds and 1000, 2000,
    3000 stored in milliseconds. False when numpy cannot read it as one array. Raises nothing."""
    if _is_pandas_container(values):
        import pandas as pd
        columns = _pandas_columns(values)
        return any(pd.api.types.is_datetime64_any_dtype(col.dtype) or pd.api.types.is_timedelta64_dtype(col.dtype)
                   for col in columns)
    try:
        return np.asarray(values).dtype.kind in "mM"
    except (TypeError, ValueError):
        return False


def is_boolean(values) -> bool:
    """Whether ``values`` (a bool, an array or nested sequence) holds booleans, which the float conversion would
    read as 0 and 1; False when numpy cannot read it as one array (ragged lists), which that conversion refuses."""
    if isinstance(values, (bool, np.bool_)):
        return True
    try:
        return np.asarray(values).dtype == bool
    except (TypeError, ValueError):
        return False


def refuse_masked(values, name: str) -> None:
    """InputError naming ``name`` when ``values`` is a numpy masked array with masked entries: ``np.asarray``
    drops the mask, so the hidden values under it were used as numbers."""
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        raise InputError(f"{name} has {int(np.ma.count_masked(values))} masked entries; fill them "
                         "(e.g. .filled()) or drop them")


def as_float_array(values, name: str, what: str) -> np.ndarray:
    """``values`` as a float64 array; InputError naming ``name`` when they are not numbers (strings, an
    object array, ragged nested lists, dates or durations, :func:`is_temporal`) or hold an int too large for a
    float. The missing values (``pd.NA``) of pandas' nullable columns become NaN, so that the callers' NaN checks
    name them; a numpy masked array with masked entries is an InputError (``np.asarray`` drops the mask, so they
    were used as numbers)."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        raise InputError(f"{name} must be {what}; got an array of Python objects")
    if is_complex(values):  # float64 conversion would drop the imaginary parts with a warning only
        raise InputError(f"{name} must be {what}; got complex numbers")
    if is_text(values):  # read as the numbers they spell: w_bar_bounds=("0", "1") was accepted
        raise InputError(f"{name} must be {what}; got strings")
    if is_temporal(values):  # counts of the storage unit (ns, ms, s, days): the same dates as other numbers
        raise InputError(f"{name} must be {what}; got dates or durations (convert them to numbers in a unit first)")
    refuse_masked(values, name)
    try:
        if _is_pandas_container(values):  # pd.NA of a nullable column -> NaN,
            return values.to_numpy(dtype=np.float64, na_value=np.nan)  # which the callers name (was "not numeric")
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {what}") from None
    except OverflowError:  # a Python int beyond the float range, e.g. 10**400 (as in as_number)
        raise InputError(f"{name} holds a number too large for a float") from None


def check_w_bar_bounds(bounds, p: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(w_bar_lb, w_bar_ub)`` as (p,) arrays from scalars or length-p sequences; raise InputError
    when they are not finite, negative, or ``lb > ub``, or ``bounds`` is a dict or a set (unpacked, a dict gave its
    keys: ``{0: 0.3, 1: 0.8}`` was the box [0, 1]; a set its elements in hash order)."""
    if isinstance(bounds, (Mapping, set, frozenset)):
        raise InputError(f"w_bar_bounds must be a pair (lb, ub), e.g. a tuple; got a {type(bounds).__name__}: "
                         f"{bounds!r}")
    try:
        lb, ub = bounds
    except (TypeError, ValueError):
        raise InputError(f"w_bar_bounds must be a pair (lb, ub); got {value_text(bounds)}") from None
    if any(is_boolean(v) for v in (lb, ub)):
        raise InputError(f"w_bar bounds must be numbers, not booleans; got {bounds!r}")
    lb = as_float_array(lb, "w_bar_lb", f"a number or one number per feature ({p})")
    ub = as_float_array(ub, "w_bar_ub", f"a number or one number per feature ({p})")
    if lb.shape not in ((), (p,)) or ub.shape not in ((), (p,)):
        raise InputError(f"w_bar bounds must be scalars or have one entry per feature ({p}); got shapes "
                         f"{lb.shape} and {ub.shape}")
    # + 0.0: a bound of -0.0 came back in the tuned w_bar as -0.0 (as epsilon = -0.0 did, check_epsilon)
    lb, ub = np.broadcast_to(lb, (p,)) + 0.0, np.broadcast_to(ub, (p,)) + 0.0
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
#: The MILP solvers :func:`bilevel.tune` takes: HiGHS (:func:`bilevel.solve_model`), Gurobi and CPLEX
#: (:mod:`bilevel.other_solvers`).
SOLVERS = ("highs", "gurobi", "cplex")
SOLVER_NAMES = {"highs": "HiGHS", "gurobi": "Gurobi", "cplex": "CPLEX"}  # each of SOLVERS as its vendor spells it


def is_choice(value, choices) -> bool:
    """Whether ``value`` is a string among the strings ``choices``. ``value in choices`` itself raises numpy's
    "truth value of an array is ambiguous" for an array. Raises nothing."""
    return isinstance(value, str) and value in choices


def check_clock(clock) -> str:
    """Return ``clock``; raise InputError unless it is one of :data:`CLOCKS`."""
    if not is_choice(clock, CLOCKS):
        raise InputError(f"clock must be one of {', '.join(map(repr, CLOCKS))}; got {value_text(clock)}")
    return clock


MAX_EPSILON = 1e6
"""Largest ``epsilon`` accepted. The budget row of Eq. (25) multiplies the least training loss by ``1 + epsilon``,
beside coefficients ``1/|T|``; measured on diabetes 8/8 (splits 0-2): up to 1e6 every answer verified, at 1e8 two
of three failed verification, and at 1e11 HiGHS returned a point 0.84 as optimal where 0.4353 is reachable."""

MAX_W_BAR_UB = 1e4
"""Largest ``w_bar_ub`` accepted (see :func:`check_scale`)."""

MAX_SCALE = 1e5
"""Largest ``||x||_1 * w_bar_ub`` over the rows accepted (see :func:`check_scale`)."""


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """Return ``epsilon`` as float (``-0.0`` as ``0.0``: it was printed and recorded as -0.0); raise InputError
    naming ``name`` (e.g. ``"--epsilon"``) unless it is finite, >= 0 and at most :data:`MAX_EPSILON`."""
    eps = as_number(epsilon, name)
    if not np.isfinite(eps) or eps < 0:
        raise InputError(f"{name} must be finite and >= 0 (relative suboptimality of the training loss); got {epsilon}")
    if eps > MAX_EPSILON:
        raise InputError(f"{name} must be at most {MAX_EPSILON:g}, got {epsilon}: beyond it the budget row's "
                         "coefficient 1 + epsilon puts the MILP outside HiGHS's numerical range")
    return eps + 0.0  # -0.0 + 0.0 is 0.0


def check_open_unit(value, name: str) -> float:
    """Return ``value`` as a float after checking it lies strictly between 0 and 1 (a risk limit ``alpha`` or
    an error level ``delta``); raise InputError naming ``name`` otherwise (not a number, NaN, outside (0, 1))."""
    v = as_number(value, name, "a number in (0, 1)")
    if not np.isfinite(v) or not 0.0 < v < 1.0:
        raise InputError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    return v


def check_positive(value, name: str, *, allow_zero: bool = False, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking it is a number (not a bool), not NaN, > 0 (>= 0 with
    ``allow_zero``) and finite (unless ``allow_inf``); raise InputError naming ``name`` otherwise."""
    v = as_number(value, name)
    if np.isnan(v) or v < 0 or (v == 0 and not allow_zero) or (np.isinf(v) and not allow_inf):
        what = ">= 0" if allow_zero else "> 0"
        raise InputError(f"{name} must be a {'' if allow_inf else 'finite '}number {what}; got {value!r}")
    return v


def is_integer(value) -> bool:
    """Whether ``value`` is a Python or numpy integer that is neither a bool nor a numpy duration
    (``np.timedelta64`` is a subclass of ``np.integer``: ``int()`` of one in days raised a bare TypeError, and one
    without a unit passed as a count). A utility: no equation; raises nothing."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.timedelta64))


def check_count(value, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """Return ``value`` as an int after checking it is an integer (a Python or numpy int, not a bool, not a
    float) of at least ``minimum`` and, when ``maximum`` is given, at most ``maximum``; raise InputError naming
    ``name`` otherwise."""
    span = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    if not is_integer(value):
        raise InputError(f"{name} must be an integer {span}; got {value_text(value)}")
    if value < minimum or (maximum is not None and value > maximum):
        raise InputError(f"{name} must be an integer {span}; got {value_text(int(value))}")
    return int(value)


def repeated_values(values) -> list[str]:
    """The values that occur more than once in the sequence ``values`` (equal as Python values, so 0 and 0.0
    are one), as sorted strings; ``[]`` when all differ. For grids and lists of options, where a repeated
    value would run the same work twice and count it twice."""
    values = list(values)
    return sorted({str(v) for v in values if values.count(v) > 1})


def check_seed(seed, name: str = "seed"):
    """Return ``seed`` for ``numpy.random.default_rng``: ``None``, a ``numpy.random.Generator`` (as is) or an
    integer >= 0; raise InputError naming ``name`` otherwise (a negative number, a float, a bool, a string)."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    return check_count(seed, name, 0)


def check_indices(values, n: int, name: str, rows=None, rows_name: str = "X") -> np.ndarray:
    """Return the sorted distinct indices into ``range(n)`` that ``values`` names: integers (Python or numpy;
    floats only when integral, e.g. 2.0) or a boolean mask of length ``n``. Raise InputError naming ``name``
    for NaN or fractional numbers, strings, out-of-range indices or a mask of another length, and for a pandas
    mask whose row index differs from that of the pandas data ``rows`` (named ``rows_name``) it selects from (it
    is read by position, :func:`check_aligned`). A set of indices is read as its sorted elements (numpy made it a
    0-d object array, refused as "got shape ()")."""
    if is_boolean(values):  # a pandas mask is paired with the rows by position, as y is with X
        check_aligned(rows, values, rows_name, name.split(" (")[0])  # "flip", not "flip (explicit ...)": a code hint
    if isinstance(values, (set, frozenset)):
        values = list(values)
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):  # ragged nested lists
        raise InputError(f"{name} must be a 1-D array of indices or a boolean mask of length {n}") from None
    if arr.ndim != 1:
        raise InputError(f"{name} must be a 1-D array of indices or a boolean mask of length {n}; "
                         f"got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape[0] != n:
            raise InputError(f"{name}: a boolean mask must have length {n}; got {arr.shape[0]}")
        return np.nonzero(arr)[0]
    if arr.size and arr.dtype.kind not in "iu":  # not "m": durations go to as_float_array, which refuses them
        num = as_float_array(arr, name, f"an array of integer indices or a boolean mask of length {n}")
        if not (np.isfinite(num).all() and (num == np.round(num)).all()):
            raise InputError(f"{name} must hold integer indices; got {values!r}")
        arr = num
    idx = np.unique(arr.astype(np.int64))
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise InputError(f"{name} must be indices in 0..{n - 1}; got {idx.min() if idx.min() < 0 else idx.max()}")
    return idx


def check_scale(X_list, w_bar_ub, name: str = "w_bar_ub", rescale: bool = True) -> None:
    """Raise InputError when ``max(w_bar_ub)`` exceeds :data:`MAX_W_BAR_UB` (1e4) or the largest
    ``||x||_1 * max(w_bar_ub)`` over the rows of the arrays in ``X_list`` exceeds :data:`MAX_SCALE` (1e5). The
    message names the bound ``name`` (a command-line tool passes its option, ``"--w-bar-ub"``) and, with
    ``rescale``, advises rescaling the features too (a tool that standardises them passes False: rescaling its
    input cannot help).

    The big-M constants of the MILPs are of these sizes (``2 w_bar_ub`` for the box, the largest margin
    ``x^T w - b`` for the hinge pairs), and HiGHS accepts a binary within 1e-6 of 0 or 1, so a constant M lets
    a complementarity pair slip by about ``1e-6 M``. Measured (random 7/4 instances, two features, 15 seeds,
    both modes): every answer verified at ``w_bar_ub`` up to 1e5 with features of size 1 and at 1e4 with
    features of size 1e-4; 3-5 of 30 failed verification from ``w_bar_ub = 1e6`` on, 3 at ``w_bar_ub = 1e5``
    with features of size 1e-5, and 1 with features of size 100 and ``w_bar_ub = 1e3`` (``||x||_1 w_bar_ub``
    up to about 4e5)."""
    ub = float(np.max(w_bar_ub))
    if ub > MAX_W_BAR_UB:
        raise InputError(f"{name} reaches {ub:.3g}; above {MAX_W_BAR_UB:g} the MILP's big-M constants "
                         "(2 w_bar_ub for the box) are beyond HiGHS's integrality tolerance: "
                         + (f"rescale the features (larger features need smaller weights) and lower {name}" if rescale
                            else f"lower {name}"))
    scale = max(float(np.abs(X).sum(axis=1).max()) for X in X_list) * ub
    if scale > MAX_SCALE:
        raise InputError(f"the features times {name} reach {scale:.2e} (largest row ||x||_1 * w_bar_ub); above "
                         f"{MAX_SCALE:g} the MILP's big-M constants are beyond HiGHS's integrality tolerance: "
                         + (f"rescale the features or lower {name}" if rescale else
                            f"lower {name} (the features are standardised: rescaling the data cannot help)"))


TINY_FEATURE = 1e-4  # a feature whose largest |x_ij| is below this times max(1, the largest feature's) is warned of
TINY_FEATURE_WARNING = r"feature\(s\) \[[0-9, ]*\] have values of at most"
"""The start of the message (a regular expression for ``warnings.filterwarnings``) of the UserWarning
:func:`warn_tiny_features` issues."""


def warn_tiny_features(X_list, solver: str = "highs") -> list[int]:
    """Warn (UserWarning) of the features whose largest ``|x_ij|`` over the arrays (n_k, p) in ``X_list`` is
    positive but below ``TINY_FEATURE`` (1e-4) times ``max(1, the largest |x_ij| of any feature)``; return their
    indices. The coefficients of such a feature in the MILPs' stationarity rows are then of the size of HiGHS's
    absolute tolerances (feasibility 1e-6) or far below the other rows': differential fuzzing against KKT
    enumeration found, with one feature of size 1e-7..1e-6 next to one of size 1..1e3, about 1 answer in 1000
    proven "optimal" and verified but worse than the bilevel optimum (HiGHS's presolve, or its feasibility
    tolerance on the box multipliers), and a few in 1000 left unverified (flagged); :func:`bilevel.tune` then
    solves with presolve off (:func:`bilevel.tuning_options`). ``solver`` (``"highs"``, ``"gurobi"`` or
    ``"cplex"``, the solver :func:`bilevel.tune` runs) names the solver in the message, which speaks of HiGHS's
    presolve only for HiGHS: Gurobi and CPLEX run with their own presolve (not fuzzed on such data). Standardised
    features (:func:`bilevel.split_dataset`'s default) are never affected. Raises nothing."""
    tiny, col_max, limit = _tiny_features(X_list)
    if tiny:
        warnings.warn(
            f"feature(s) {tiny} have values of at most {col_max[tiny].max():.1e}, below {limit:.1e} "
            f"({TINY_FEATURE:g} times max(1, the largest feature value {col_max.max():.1e})): "
            f"{SOLVER_NAMES.get(solver, 'the solver')}'s absolute tolerances can then cut off the bilevel optimum "
            "or leave the answer unverified; standardize the features (bilevel.split_dataset does by default) or "
            "drop these" + ("; bilevel.tune solves with HiGHS's presolve off then, unless highs_options sets presolve"
                            if solver == "highs" else ""), UserWarning, stacklevel=3)
    return tiny


def tiny_features(X_list) -> list[int]:
    """The indices :func:`warn_tiny_features` would warn of, without the warning. Raises nothing."""
    return _tiny_features(X_list)[0]


def _tiny_features(X_list) -> tuple[list[int], np.ndarray, float]:
    col_max = np.max([np.abs(np.asarray(X, dtype=float)).max(axis=0) for X in X_list], axis=0)
    limit = TINY_FEATURE * max(1.0, float(col_max.max()))
    return [int(j) for j in np.flatnonzero((col_max > 0) & (col_max < limit))], col_max, limit


_CREATED_FOLDERS: list[Path] = []  # the folders check_writable_folder created, for removed_if_empty_on_failure
_OPEN_BLOCKS = [0]  # removed_if_empty_on_failure blocks now open: outside them nothing is recorded (the list grew)


@contextlib.contextmanager
def removed_if_empty_on_failure():
    """Within the block, remember the folders :func:`check_writable_folder` creates; when the block raises
    (bad input found after the output checks, a solver error, Ctrl-C), remove those of them that are still
    empty, deepest first, and re-raise, so that a command that fails leaves no empty output folder behind.
    A folder that holds anything is kept. A utility of the command-line tools; raises nothing itself."""
    mark = len(_CREATED_FOLDERS)
    _OPEN_BLOCKS[0] += 1
    try:
        yield
    except BaseException:
        for path in sorted(set(_CREATED_FOLDERS[mark:]), key=lambda p: len(p.absolute().parts), reverse=True):
            with contextlib.suppress(OSError):
                path.rmdir()  # only an empty folder
        raise
    finally:
        _OPEN_BLOCKS[0] -= 1
        del _CREATED_FOLDERS[mark:]


def as_path(path, name: str) -> Path:
    """``path`` as a Path; InputError naming ``name`` unless it is a str or an ``os.PathLike`` (pathlib's
    TypeError for None or a list, and an int, which ``open`` reads as a file descriptor: ``open(1)`` reads
    stdout and closes it), and when it is empty (``Path("")`` is the working directory), holds a NUL character
    (``open`` raised ValueError "embedded null byte") or is a str that starts with ``~``, which Python does not
    expand to a home folder (``write_model(m, "~/m.lp")`` wrote ``./~/m.lp``, a folder named ``~`` in the working
    directory; the command line refuses such paths too, :func:`bilevel.help_format.path_text`)."""
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"{name} must be a path (str or Path); got {value_text(path, limit=80)}")
    text = os.fspath(path)
    if not isinstance(text, str):  # an os.PathLike whose __fspath__ gives bytes
        raise InputError(f"{name} must be a path (str or Path); got one of bytes {text!r:.80}")
    if not text:
        raise InputError(f"{name} is an empty path")
    if "\x00" in text:
        raise InputError(f"{name} {text!r:.80} holds a NUL character")
    if isinstance(path, str) and text.startswith("~"):  # (not a Path: Path("./~/x") prints as "~/x")
        raise InputError(f"{name} {text!r:.80} starts with '~', which is not expanded to a home folder here: pass "
                         f"os.path.expanduser({text!r:.80}), or './{text:.80}' for a folder named '~' in the working "
                         "directory")
    return Path(text)


def check_regular_file(path: Path, what: str) -> None:
    """InputError naming ``what`` (e.g. "manifest") and ``path`` unless ``path`` is an existing regular file: "not
    found" when nothing is there, "is a folder" for a folder, and "not a regular file" for a device, pipe or socket
    (``/dev/null`` was reported "not found", though it exists). Input check (utility), no equation."""
    if path.is_file():
        return
    if path.is_dir():
        raise InputError(f"{what} {str(path)!r} is a folder, not a file")
    if path.exists():
        raise InputError(f"{what} {str(path)!r} is not a regular file (a device, pipe or socket)")
    raise InputError(f"{what} {str(path)!r} not found")


def check_utf8_text(path: Path, what: str) -> None:
    """InputError naming ``what`` when the existing file ``path`` is UTF-16 or UTF-32 text: a byte-order mark, or
    NUL bytes in a quarter or more of its first 4 KiB (the same text without a mark; a NUL inside a UTF-8 field, a
    label ``'yes\\x00'``, is legal). Read as UTF-8 such a file gave a decoding error about byte 0xff, or columns
    named ``'\\x00a\\x00'``, or rows "with 1 field". Also when it is compressed (:func:`compression_of`: a gzip
    file gave "'utf-8' codec can't decode byte 0x8b") or a binary table or archive (:func:`binary_format_of`)."""
    packed, binary = compression_of(path), binary_format_of(path)
    if packed or binary:
        what_it_is = f"a {packed} file" if packed else binary
        raise InputError(f"{what} {str(path)!r} is {what_it_is}, not text; "
                         + ("decompress it first" if packed else "save it as a UTF-8 text file first"))
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{what} {str(path)!r} is UTF-16 or UTF-32 text (it starts with that byte-order mark); "
                         "save it as UTF-8")
    if head and 4 * head.count(b"\x00") >= len(head):
        raise InputError(f"{what} {str(path)!r} looks like UTF-16 or UTF-32 text without a byte-order mark (NUL "
                         "bytes make up a quarter or more of its start); save it as UTF-8")


_MAGIC = {b"\x1f\x8b": "gzip", b"PK\x03\x04": "zip", b"PK\x05\x06": "zip", b"BZh": "bzip2",
          b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}


#: Binary table and archive formats a data file may be by mistake: (offset, magic, what).
_BINARY_FORMATS = ((0, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Excel .xls (OLE2) file"),
                   (0, b"SQLite format 3\x00", "an SQLite database"), (0, b"\x93NUMPY", "a NumPy .npy file"),
                   (0, b"%PDF-", "a PDF file"), (257, b"ustar", "a tar archive"))
#: Formats that start and end with their magic (a CSV header may start with "PAR1" or "ARROW1", not also end so).
_BINARY_ENDS = ((b"PAR1", "a Parquet file"), (b"ARROW1", "an Arrow/Feather file"))


def binary_format_of(path: Path) -> str | None:
    """What the existing file ``path`` is, by its magic number (``"an Excel .xls (OLE2) file"``), when it is one of
    :data:`_BINARY_FORMATS` or :data:`_BINARY_ENDS`; else None. Raises OSError when it cannot be read."""
    with open(path, "rb") as fh:
        head = fh.read(264)
        fh.seek(max(0, path.stat().st_size - 6))
        tail = fh.read(6)
    found = [what for offset, magic, what in _BINARY_FORMATS if head[offset:offset + len(magic)] == magic]
    found += [what for magic, what in _BINARY_ENDS if head.startswith(magic) and tail.endswith(magic)]
    return found[0] if found else None


def compression_of(path: Path) -> str | None:
    """The compression format (``"gzip"``, ``"zip"``, ``"bzip2"``, ``"xz"``, ``"zstd"``) whose magic number the existing
    file ``path`` starts with, or None. Raises OSError when it cannot be read."""
    with open(path, "rb") as fh:
        head = fh.read(6)
    return next((name for magic, name in _MAGIC.items() if head.startswith(magic)), None)


def _refusal(exc: OSError, folder: Path) -> str:
    """Why creating a file or folder in ``folder`` failed with ``exc``, in words: the system's reason
    (``Permission denied``, ``Read-only file system``), unless that is ``No such file or directory`` for a
    ``folder`` that exists: the answer of a virtual file system such as ``/proc`` (to root) to a new entry.
    ``bilevel tune --json /proc/r.json`` said ``cannot write into the folder '/proc': No such file or
    directory`` (the reason of the temporary file tried there), which reads as a missing folder. Raises
    nothing."""
    try:
        exists = folder.is_dir()
    except OSError:
        exists = False
    if exc.errno == errno.ENOENT and exists:
        return (f"the file system of {str(folder)!r} does not allow new files or folders in it (it answered "
                f"'{exc.strerror}' although the folder exists, as a virtual file system such as /proc does)")
    return exc.strerror or str(exc)


def check_writable_folder(folder, what: str) -> Path:
    """Create ``folder`` (and its parents) if needed and check that a file can be created in it, so that a
    command fails before its solves rather than after; return it as a Path. Raises InputError naming
    ``what`` (e.g. ``"--export"``) when it is a file or cannot be created or written to, with the system's
    reason (:func:`_refusal`), and when it is not a str or ``os.PathLike``, is empty (``Path("")`` is the working
    directory) or holds a NUL (:func:`as_path`)."""
    folder = as_path(folder, what)
    try:  # exists() raises OSError for a name the file system refuses (over 255 bytes: "File name too long")
        if folder.exists() and not folder.is_dir():
            raise InputError(f"{what} {str(folder)!r} is a file, not a folder")
        new = [path for path in (folder, *folder.parents) if not path.exists()]
    except OSError as exc:
        raise InputError(f"{what}: cannot use the folder {str(folder)!r}: {exc.strerror or exc}") from None
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # the reason is of the deepest folder that exists (mkdir's errors name no path)
        parent = next((path for path in folder.parents if path not in new), folder.parent)
        raise InputError(f"{what}: cannot create the folder {str(folder)!r}: {_refusal(exc, parent)}") from None
    if _OPEN_BLOCKS[0]:
        _CREATED_FOLDERS.extend(new)
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise InputError(f"{what}: cannot write into the folder {str(folder)!r}: {_refusal(exc, folder)}") from None
    return folder


def check_writable_file(path, what: str) -> Path:
    """``path`` as a Path after creating its folder if needed and checking that it can be written, so that a
    command fails before its solves rather than after; InputError naming ``what`` (e.g. ``"--csv"``) when it is
    a folder, its folder cannot be created or written to, or it exists read-only, or is not a path
    (:func:`as_path`)."""
    path = as_path(path, what)
    # a parent that is a file is named as the path's folder: for --json a.csv/r.json the message was "the JSON
    # result file 'a.csv' is a file, not a folder", naming neither the option nor the path given
    try:
        parent_is_file = path.parent.exists() and not path.parent.is_dir()
    except OSError:  # a name the file system refuses: check_writable_folder names the problem
        parent_is_file = False
    if parent_is_file:
        raise InputError(f"{what} {str(path)!r}: its folder {str(path.parent)!r} is a file, not a folder")
    check_writable_folder(path.parent, what)
    try:  # exists() raises OSError for a name the file system refuses (over 255 bytes: "File name too long")
        if path.is_dir():
            raise InputError(f"{what} {str(path)!r} is a folder, not a file")
        if path.exists() and not os.access(path, os.W_OK):
            raise InputError(f"{what}: cannot write to {str(path)!r}")
    except OSError as exc:
        raise InputError(f"{what}: cannot write to {str(path)!r}: {exc.strerror or exc}") from None
    return path


def check_hyperplane(w, b, p: int) -> tuple[np.ndarray, float]:
    """Return a linear model ``(w, b)`` as a finite (p,) float64 array and a finite float; raise InputError
    naming the problem otherwise (another shape, NaN or inf, booleans, a ``b`` that is not a number)."""
    if is_boolean(w):  # [True, False] was read as the weights 1, 0 (as_number refuses a boolean b)
        raise InputError(f"w must be {p} numeric weights, not booleans; got {w!r}")
    w = as_float_array(w, "w", f"a 1-D array of {p} weights")
    if w.shape != (p,):
        raise InputError(f"w must have shape ({p},), one weight per feature; got {w.shape}")
    b = as_number(b, "b")
    if not (np.isfinite(w).all() and np.isfinite(b)):
        raise InputError("w and b must be finite (no NaN or inf)")
    return w, b


def check_bilevel_model(model, caller: str) -> dict:
    """Return ``model.bilevel_info`` after checking that ``model`` was built by
    :func:`bilevel.build_optimistic_model` or :func:`bilevel.build_pessimistic_model`; raise InputError naming
    ``caller`` otherwise (a plain Pyomo model, another object)."""
    info = getattr(model, "bilevel_info", None)
    if not isinstance(info, dict) or info.get("mode") not in ("optimistic", "pessimistic"):
        raise InputError(f"{caller} needs a model built by bilevel.build_optimistic_model or "
                         "bilevel.build_pessimistic_model")
    return info
