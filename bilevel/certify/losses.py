"""Loading and validating per-example loss matrices for certification.

A *loss matrix* has one row per calibration example and one column per candidate hyperparameter:
``losses[i, j]`` is the loss, in [0, 1], of candidate ``j`` on example ``i`` (for instance its 0-1
error). A third axis may hold several controlled risks.

CSV format read by :func:`load_losses_csv` (and by ``bilevel certify --losses``)::

    cand_a,cand_b,cand_c        <- header: one unique, non-empty, one-line name per candidate
    0,1,0                       <- one row per calibration example, numbers in [0, 1]
    0.25,0,1
    ...

The auxiliary CSV read by :func:`load_aux_csv` (``--aux``) has the same column names (any order) and
either **one row** (a constant cost per candidate, e.g. ``||w_bar||_1``) or **as many rows as the
loss CSV** (a per-example auxiliary loss, averaged on the optimisation split). Its values may be any
finite numbers; smaller is better.
"""

from __future__ import annotations

import collections
import csv
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..validation import (as_float_array, as_path, check_count, check_utf8_text, finite_number, header_separator,
                          is_boolean, label_difference)

__all__ = ["LossTable", "validate_losses", "validate_aux", "load_losses_csv", "load_aux_csv"]


@dataclass(frozen=True)
class LossTable:
    """A loss matrix with candidate names: ``losses`` shape (n, m), ``names`` length m. A utility (no equation)."""

    losses: np.ndarray
    names: list[str]


def validate_losses(losses, *, name: str = "losses") -> np.ndarray:
    """Return ``losses`` as a float array of shape (n, m) or (n, m, L) after validation.

    A utility (no equation): the losses in [0, 1] whose column means are the empirical risks ``R_hat`` of
    Eq. (4) of the RG-PT paper (the p-values of its Eq. (6) take them).

    Raises
    ------
    InputError
        Not numbers (strings, complex numbers, an int too large for a float), wrong number of dimensions, no row
        or no candidate, NaN/infinite values, values outside [0, 1], a numpy masked array with masked entries;
        a ``name`` (the label the messages give the array) that is not a string.
    """
    if not isinstance(name, str):  # printed in every message below: str(10**5000) itself raises a ValueError
        raise InputError(f"name (the label of the losses in messages) must be a string, got {type(name).__name__}")
    arr = as_float_array(losses, name, "a numeric array")  # not complex, strings, masked or an int beyond floats
    if arr.ndim not in (2, 3):
        raise InputError(f"{name} must have shape (n_cal, m) or (n_cal, m, L), got {arr.shape}")
    if arr.shape[0] == 0:
        raise InputError(f"{name} has no calibration example (0 rows)")
    if arr.shape[1] == 0:
        raise InputError(f"{name} has no candidate (0 columns): the candidate set is empty")
    if arr.ndim == 3 and arr.shape[2] == 0:
        raise InputError(f"{name} has no controlled risk (third axis of length 0)")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contain NaN or infinite values")
    if arr.min() < 0.0 or arr.max() > 1.0:
        # repr, not :g: a loss of 1.0000000000000002 (a rounding error above 1) was reported as "range [0, 1]"
        raise InputError(f"{name} must lie in [0, 1] (bounded losses); got range [{float(arr.min())!r}, "
                         f"{float(arr.max())!r}]")
    return arr


def validate_aux(aux, n_cal: int, m: int, losses=None) -> list[np.ndarray]:
    """Normalise an auxiliary objective specification to a list of arrays.

    ``aux`` may be ``None``, a cost vector of shape (m,), a per-example matrix of shape (n_cal, m) (as
    an array or as nested lists), or a list/tuple of such numpy arrays (several auxiliary objectives, the
    first one being the selection criterion; a list counts as several objectives only when every element
    is a numpy array; an empty list or tuple means no auxiliary objective, as ``None`` does). Returns a
    (possibly empty) list of float arrays, each (m,) or (n_cal, m). An objective given as a pandas Series or
    DataFrame is read by position; ``losses``, the loss table as the caller gave it, makes that safe: when it is a
    DataFrame, a Series' index and a DataFrame's columns must be its column labels in order (or pandas' default
    labels 0..m-1, i.e. none), and a DataFrame's row index its row index.

    Raises
    ------
    InputError
        A shape other than (m,) or (n_cal, m), NaN or infinite values, complex numbers, strings, a list of
        exactly ``n_cal`` arrays of shape (m,) (``n_cal`` > 1): the rows of a per-example matrix or ``n_cal``
        cost vectors, which cannot be told apart; a pandas objective whose labels are not those of a DataFrame
        ``losses`` (read by position, it paired each candidate with another's cost: the chosen candidate changed).
    """
    if aux is None or (isinstance(aux, (list, tuple)) and len(aux) == 0):  # a list of no objectives
        return []
    several = isinstance(aux, (list, tuple)) and len(aux) > 0 and all(isinstance(a, np.ndarray) for a in aux)
    if several and n_cal > 1 and len(aux) == n_cal and all(np.shape(a) == (m,) for a in aux):
        # the rows of a per-example matrix built as a list of arrays were taken as n_cal cost vectors, the first
        # one (example 0's losses) the selection criterion, without a word
        raise InputError(f"aux is a list of {n_cal} arrays of shape ({m},), one per calibration example: pass a "
                         f"per-example matrix as one array of shape ({n_cal}, {m}) (np.asarray(aux)); a list of "
                         f"arrays means several auxiliary objectives, and {n_cal} of them cannot be told apart from "
                         "the rows of such a matrix")
    items = list(aux) if several else [aux]
    out = []
    for k, item in enumerate(items):
        _check_aux_labels(item, k, losses)
        if is_boolean(item):  # True read as the cost 1 without a word, as booleans given as numbers are refused
            raise InputError(f"auxiliary objective {k} holds booleans; give its costs as numbers")
        arr = as_float_array(item, f"auxiliary objective {k}", f"numeric, of shape ({m},) or ({n_cal}, {m})")
        if arr.shape not in ((m,), (n_cal, m)):
            raise InputError(
                f"auxiliary objective {k} must have shape ({m},) (a cost per candidate) or ({n_cal}, {m}) "
                f"(a loss per calibration example and candidate), got {arr.shape}"
            )
        if not np.all(np.isfinite(arr)):
            raise InputError(f"auxiliary objective {k} contains NaN or infinite values")
        out.append(arr)
    return out


def _check_aux_labels(item, k: int, losses) -> None:
    """InputError when the pandas auxiliary objective ``item`` (number ``k``) carries candidate labels (a Series'
    index, a DataFrame's columns) other than the columns of the DataFrame ``losses`` in order, or, as a DataFrame,
    another row index than ``losses``'. Pandas' default labels (a RangeIndex 0..m-1) count as none. Nothing is
    checked unless both are pandas objects."""
    if not (hasattr(losses, "columns") and type(losses).__module__.startswith("pandas")):
        return
    if not type(item).__module__.startswith("pandas"):
        return
    names = list(losses.columns)
    labels = item.columns if hasattr(item, "columns") else getattr(item, "index", None)
    # (other lengths: the shape check names them)
    difference = None if labels is None else label_difference(names, labels)
    if difference is not None and not (type(labels).__name__ == "RangeIndex"
                                       and list(labels) == list(range(len(names)))):
        what = ("the losses' candidates in another order" if not difference
                else f"labels other than the losses' candidates ({difference})")
        where, fix = ("columns hold", "aux.loc[:, list(losses.columns)]") if hasattr(item, "columns") else (
            "index holds", "aux.loc[list(losses.columns)]")
        raise InputError(f"auxiliary objective {k} is a pandas object whose {where} {what}: it is read by position, "
                         f"one value per loss column; label it with the losses' columns, in their order ({fix}), "
                         "or pass an array")
    if hasattr(item, "columns") and len(item.index) == len(losses.index) and not item.index.equals(losses.index):
        raise InputError(f"auxiliary objective {k} is a DataFrame whose row index differs from the losses': rows are "
                         "paired by position, not by index label; align it first (aux.loc[losses.index]) or pass "
                         "arrays (.to_numpy())")


_ENCODING = "utf-8-sig"  # UTF-8, with or without the byte-order mark that spreadsheet programs write


def _read_header(path: Path) -> list[str]:
    try:
        check_utf8_text(path, "loss table")
        with path.open(newline="", encoding=_ENCODING) as fh:
            header = next(csv.reader(fh), None)
    except FileNotFoundError:
        raise InputError(f"file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    except csv.Error as exc:  # e.g. a field beyond the csv module's size limit: not a loss table
        raise InputError(f"cannot parse {path} as CSV: {exc}") from None
    if header == [] and path.stat().st_size > 0:  # csv reads a blank first line as [] (was called "empty")
        raise InputError(f"{path}: its first line is blank; expected the header row with one name per candidate "
                         "there")
    if not header:
        raise InputError(f"{path} is empty: expected a header row with one name per candidate")
    names = [h.strip() for h in header]
    if any(not n for n in names):
        raise InputError(f"{path}: every column needs a non-empty candidate name in the header")
    broken = [n for n in names if len(n.splitlines()) > 1]
    if broken:  # was read as is: the report then printed "certified: a" and "b, c" on two lines, and a quote left
        # open swallowed the rows below into one name ("has a header but no data row")
        raise InputError(f"{path}: the candidate name {broken[0][:60]!r} in the header spans several lines (a quoted "
                         "line break, or a quote left open); candidate names must be one line each")
    counts = collections.Counter(names)  # names.count(n) per name was quadratic: 4 s for a header of 20,000 names
    dupes = sorted(n for n, c in counts.items() if c > 1)
    if dupes:
        raise InputError(f"{path}: duplicated candidate names in the header: {', '.join(dupes)}")
    if all(finite_number(n) is not None for n in names):
        # numbers can be names (a grid of lambdas), so this is not refused; but a file written without a header
        # (its losses finite numbers) lands here too, and its first row of losses would be lost without a word
        warnings.warn(
            f"{path}: every name in the header row ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}) is "
            "a number; it is read as the candidate names, not as data. If the file has no header row, add one, "
            "or its first row is dropped",
            UserWarning,
            stacklevel=3,
        )
    return names


def _first_ragged_row(path: Path, n_columns: int) -> tuple[int, int] | None:
    """The first data row (numbered from 1 after the header) of the CSV at ``path`` whose number of fields is not
    ``n_columns``, with that number; None when every row has ``n_columns`` fields or the file cannot be read so."""
    try:
        with path.open(newline="", encoding=_ENCODING) as fh:
            rows = csv.reader(fh, skipinitialspace=True)
            next(rows, None)  # the header
            for k, row in enumerate(rows, start=1):
                if row and len(row) != n_columns:  # (blank lines: pandas skips them too)
                    return k, len(row)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None


def _read_numeric(path: Path, names: list[str]) -> np.ndarray:
    import pandas as pd

    try:
        # compression=None: pandas would otherwise guess a compression from the name (.zip, .gz, .xz, .tar, ...)
        # and a plain CSV so named (its header already read as text) gave BadZipFile / LZMAError tracebacks
        frame = pd.read_csv(path, header=None, skiprows=1, skipinitialspace=True, encoding=_ENCODING,
                            compression=None)
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} has a header but no data row") from None
    except (pd.errors.ParserError, ValueError) as exc:  # pandas's message ends with a newline: one line kept
        ragged = _first_ragged_row(path, len(names))
        if ragged is not None:  # pandas counted from the first data row's width: "Expected 1 fields in line 3"
            raise InputError(f"{path}: data row {ragged[0]} has {ragged[1]} field(s) but the header names "
                             f"{len(names)} columns") from None
        raise InputError(f"cannot parse {path} as CSV: {' '.join(str(exc).split())}") from None
    if frame.shape[0] == 0:
        raise InputError(f"{path} has a header but no data row")
    if frame.shape[1] != len(names):
        raise InputError(f"{path}: the header names {len(names)} columns but data rows have {frame.shape[1]} fields")
    frame.columns = names
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        sep = header_separator(names)  # one column named "a;b": another separator
        hint = f" (its header is one field with {sep} in it: the loss CSV is comma-separated)" if sep else ""
        raise InputError(f"{path}: non-numeric values in column(s) {', '.join(map(str, bad[:5]))}{hint}")
    # pandas reads a column of True/False as booleans, which are numeric: they were taken as 1/0 without a word,
    # and True may as well mean "correct" (loss 0) as "an error" (loss 1)
    truth = [c for c in frame.columns if pd.api.types.is_bool_dtype(frame[c])]
    if truth:
        raise InputError(f"{path}: column(s) {', '.join(map(str, truth[:5]))} hold True/False; write the values as "
                         "numbers (for a 0-1 loss, 1 for an error and 0 otherwise)")
    values = frame.to_numpy(dtype=float)
    if np.any(np.isnan(values)):
        rows, cols = np.nonzero(np.isnan(values))
        raise InputError(f"{path}: missing or NaN value at data row {rows[0] + 1}, column {names[cols[0]]!r}")
    return values


def load_losses_csv(path) -> LossTable:
    """Read a CSV of per-example losses (header = candidate names), see the module docstring.

    Returns a :class:`LossTable` with ``losses`` of shape (n, m) in [0, 1]. A utility (no equation).

    Raises
    ------
    InputError
        ``path`` not a str or Path, missing/unreadable file, UTF-16 or UTF-32 text, empty file (or a
        blank first line), empty or duplicated names, a name with a line break in it, non-numeric or missing
        values, a column of True/False (a 0-1 loss is written 1/0), values outside [0, 1].
    """
    p = as_path(path, "path (the loss CSV)")
    names = _read_header(p)
    values = _read_numeric(p, names)
    return LossTable(losses=validate_losses(values, name=f"losses in {p}"), names=names)


def load_aux_csv(path, names: list[str], n_cal: int) -> np.ndarray:
    """Read an auxiliary-objective CSV whose columns are the candidate ``names`` (any order).

    Returns shape (m,) when the file has one data row (a cost per candidate) or (n_cal, m) when it has
    ``n_cal`` rows (a per-example auxiliary loss), columns in the order of ``names``. A utility (no equation).

    Raises
    ------
    InputError
        As :func:`load_losses_csv` (values need not lie in [0, 1] but must be finite), plus: column names
        that differ from ``names``, a number of rows other than 1 or ``n_cal``, ``names`` not a list of
        strings, ``n_cal`` not an integer >= 1.
    """
    try:
        names = None if isinstance(names, (str, bytes)) else list(names)
    except TypeError:
        names = None
    if names is None or not all(isinstance(n, str) for n in names):
        raise InputError("names must be a list of the candidate names (strings) of the loss CSV")
    n_cal = check_count(n_cal, "n_cal (rows of the loss CSV)", 1)
    p = as_path(path, "path (the auxiliary CSV)")
    header = _read_header(p)
    if set(header) != set(names):
        missing = sorted(set(names) - set(header))
        extra = sorted(set(header) - set(names))
        raise InputError(
            f"{p}: columns must match the loss CSV; missing {missing[:5] or 'none'}, unexpected {extra[:5] or 'none'}"
        )
    values = _read_numeric(p, header)
    if not np.all(np.isfinite(values)):
        raise InputError(f"{p}: auxiliary values must be finite")
    position = {n: i for i, n in enumerate(header)}  # header.index(n) per name was quadratic (6.6 s for 20,000)
    values = values[:, [position[n] for n in names]]
    if values.shape[0] == 1:
        return values[0]
    if values.shape[0] == n_cal:
        return values
    raise InputError(f"{p}: expected 1 row (costs) or {n_cal} rows (per-example values), got {values.shape[0]}")
