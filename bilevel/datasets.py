"""Built-in data sets, CSV loading and the stratified train / validation / test split.

The split follows Section 5.1 of the pessimistic bilevel tuning paper: half of the data (stratified) is
held out as the test set, then ``n_train`` training and ``n_val`` validation points are drawn
(stratified) from the rest. Standardisation is fitted on the non-test, non-calibration rows only.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Hashable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:  # pandas is imported where a CSV file is read: the command line's parsers need BUILTIN only
    import pandas as pd

from .errors import InputError
from .validation import (as_float_array, as_number, binary_format_of, check_aligned, check_flag, check_seed,
                         check_utf8_text, compression_of, finite_number, header_separator, is_integer, value_text)

HUGE_FEATURE = 1e150
"""A feature column whose largest |value| (over the rows the scaling is fitted on) exceeds this, or is below
``1 / HUGE_FEATURE`` and not 0, is standardised in units of that value (:func:`split_dataset`): squares of such
values overflow, or underflow to 0."""


class LabelColumnError(InputError):
    """The label column asked for is not one of the data set's: not a column of the CSV file, or not the label
    column of a built-in set. Its message names the ``label`` argument; :meth:`for_option` words it for the command
    line option that gave the column (``bilevel study --label-column``, ``bilevel tune --label``): the message did
    not name the option, so a user of ``bilevel study --label`` (the run's free text) could not tell which option
    was meant."""

    def __init__(self, label: str, source: str, columns=None, builtin_label: str | None = None):
        self.label, self.source, self.columns, self.builtin_label = label, source, columns, builtin_label
        super().__init__(self.for_option(None))

    def __reduce__(self):  # pickled (a study's worker process) with its fields, not with the message alone
        return type(self), (self.label, self.source, self.columns, self.builtin_label)

    def for_option(self, option: str | None) -> str:
        """The message, naming ``option`` (``"--label-column"``), or the ``label`` argument when ``None``."""
        given = f"label={self.label!r}" if option is None else f"{option} {self.label!r}"
        if self.builtin_label is not None:
            return (f"the built-in data set {self.source!r} has the label column {self.builtin_label!r}; {given} "
                    "names a column of a CSV file")
        if option is None:
            return f"label column {self.label!r} not found in {self.source!r}; columns are {list(self.columns)}"
        return f"{option} {self.label!r}: no such column in {self.source!r}; its columns are {list(self.columns)}"


class LabelValuesError(LabelColumnError):
    """The label column does not hold two classes: it has missing values, or not exactly two distinct values.
    Its message names the column and the file as the library's did (``label column 'mitoses' of 'my.csv' must
    have exactly two distinct values, found 10: ...``); :meth:`for_option` words it for the command-line option
    that picks the column (``bilevel tune --label``, ``certify --label``, ``study --label-column``): a CSV's last
    column is the label column when that option is not given, and the message did not say which option picks
    another one. A subclass of :class:`LabelColumnError`, so the commands that word that error for their option
    word this one too. Fields: ``label`` (the column), ``source`` (the file or built-in name), ``problem`` (the
    text after the column, ``"has missing values"``), ``given`` (whether the caller named the column: ``False``
    for a CSV's last column taken by default, ``None`` for a built-in set, whose label column no option picks)."""

    def __init__(self, label: str, source: str, problem: str, given: bool | None):
        self.problem, self.given = problem, given
        super().__init__(label, source)

    def __reduce__(self):  # pickled (a study's worker process) with its fields, not with the message alone
        return type(self), (self.label, self.source, self.problem, self.given)

    def for_option(self, option: str | None) -> str:
        """The message, naming ``option`` (``"--label"``) for a CSV file, or the library's words when ``None``."""
        if option is None or self.given is None:
            return f"label column {self.label!r} of {self.source!r} {self.problem}"
        if self.given:
            return f"{option} {self.label!r}: the label column of {self.source!r} {self.problem}"
        return (f"label column {self.label!r} of {self.source!r} (its last column, the label column when {option} "
                f"is not given) {self.problem}; name the label column with {option}")


class OneClassTrainingError(InputError):
    """The stratified test set of :func:`split_dataset` took every row of a class (a class of one row), so no
    training set can hold both classes. Its message advises ``test_fraction=0`` (``--test-fraction 0`` of ``bilevel
    tune`` and ``certify``); :meth:`advising` words it for a caller whose test fraction is not the user's to choose
    (``bilevel study`` holds out half the rows and has no such option: it advised ``--test-fraction 0``, which the
    study refuses as an unknown option). Fields: ``missing`` (the class taken, -1.0 or +1.0), ``total`` (its rows
    in all), ``n_test`` (rows of the test set)."""

    #: The advice of the library and of the commands with a ``--test-fraction`` option.
    HOLD_OUT_FEWER = "hold out fewer test rows, e.g. test_fraction=0, --test-fraction 0 on the command line"

    def __init__(self, missing: float, total: int, n_test: int):
        self.missing, self.total, self.n_test = missing, total, n_test
        super().__init__(self.advising(self.HOLD_OUT_FEWER))

    def __reduce__(self):  # pickled (a study's worker process) with its fields, not with the message alone
        return type(self), (self.missing, self.total, self.n_test)

    def advising(self, hold_out: str | None) -> str:
        """The message, advising ``hold_out`` (how to hold out fewer test rows) besides adding rows of the class,
        or (``None``) adding rows alone, for a caller whose test fraction cannot be changed."""
        advice = "add rows of that class" + (f", or {hold_out}" if hold_out else "")
        return (f"the training set has one class only: class {self.missing:+.0f} has {self.total} row(s) in all and "
                f"the stratified test set of {self.n_test} rows took {'it' if self.total == 1 else 'them'} (a larger "
                f"size cannot help: {advice})")


#: Built-in data sets: name -> (file inside ``bilevel/data``, label column, value mapped to +1).
BUILTIN = {
    "cancer": ("cancer.csv", "class", "malignant"),
    "diabetes": ("diabetes.csv", "diabetes", "Yes"),
}


class Dataset(NamedTuple):
    """Features ``X`` (n, p) float64, labels ``y`` (n,) in {-1, +1}, the ``feature_names`` (p,), and ``classes``:
    the file's label values mapped to -1 and to +1, in that order (e.g. ``(1, 2)``, ``("malignant", "benign")``),
    so that the signs of ``w`` can be read (``()`` for a Dataset made by hand)."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    classes: tuple = ()


def load_dataset(name_or_path: str | Path, label: str | None = None, positive=None) -> Dataset:
    """Load a built-in data set (``"cancer"``, ``"diabetes"``) or a CSV file with a label column.

    The built-in sets are the UCI data of Section 5.1 (Table 1) of the pessimistic bilevel tuning paper: cancer
    (449 x 9) as there, diabetes the 532 x 7 MASS version, not the paper's 768 x 8 (``bilevel/data/PROVENANCE.md``).

    Parameters
    ----------
    name_or_path : a built-in name (a str) or the path (a str or a Path; a Path is always a file, ``Path("cancer")``
        too) of an uncompressed UTF-8 CSV file with a header row (the name's ending does not matter: a plain CSV
        named ``data.zip`` is read as a CSV, a gzip, zip, bzip2, xz or zstd file is refused, and so is an Excel .xls,
        SQLite, Parquet, NumPy .npy, PDF, Arrow or tar file, named as such). Spaces after a comma
        are skipped (``a, b, y`` names the columns ``a``, ``b``, ``y``, and ``1.5, yes`` holds the label ``yes``).
    label : the name (a str) of the label column of a CSV file (default: its last column). A built-in set has its own
        label column (``BUILTIN``); ``label`` may only name that one.
    positive : the label value mapped to +1 (default: the larger of the two values in sorted order; for a
        built-in set the value ``BUILTIN`` names, e.g. ``"malignant"`` for cancer).

    Returns
    -------
    Dataset ``(X, y, feature_names)``: ``X`` (n, p) float64, ``y`` (n,) float64 in {-1, +1}.

    Raises
    ------
    InputError (a ``ValueError``) when ``name_or_path`` is not a str or Path (or another ``os.PathLike``) or is
    empty, names both a built-in set and a file
    in the working directory (a str), ``label`` is not a str, the file is missing, not a regular file (a
    directory, a named pipe, a device) or not an uncompressed CSV table (data rows with more or fewer fields
    than the header names, a column name used twice, a column with neither a name nor a value, or no header
    row, i.e. a first line of numbers and a label value, or no data row, included),
    its first column has no name and holds the row numbers 0..n-1 (the index ``DataFrame.to_csv`` writes) or 1..n (the
    row names R's ``write.csv`` writes), the label
    column is missing (or, for a built-in set, not its own), the file is UTF-16 or UTF-32 text, ``positive`` is not
    one of the labels (``True`` for the labels 0 and 1, or 1 for ``False`` and ``True``, counts as none), the
    labels do not take exactly two values, or a feature is not numeric or not finite. A label column that is
    missing raises LabelColumnError, one with missing values or not two distinct values its subclass
    LabelValuesError (both InputError; :meth:`LabelColumnError.for_option` names a command-line option).
    """
    import pandas as pd

    if not isinstance(name_or_path, (str, os.PathLike)):  # 5 looked for a file "5"; 10**400 was an OSError
        raise InputError("name_or_path must be a data set name or a path (str or Path); "
                         f"got {value_text(name_or_path, limit=80)}")
    # os.fspath: str() of an os.PathLike other than a Path is its repr ("<P object at 0x...>", "not found")
    key = os.fspath(name_or_path)
    if not isinstance(key, str):
        raise InputError(f"name_or_path must be a data set name or a path (str or Path); got bytes {key!r:.80}")
    if not key:  # Path("") is the working directory: "data path '' is a directory"
        raise InputError("name_or_path is empty: name a built-in data set (cancer, diabetes) or a CSV file")
    if label is not None and not isinstance(label, str):  # label=2 for a header "0,1,2" was "not found"
        raise InputError(f"label must be the label column's name as a str; got {label!r} "
                         f"({type(label).__name__}): a column named {str(label)!r} is label={str(label)!r}")
    if key in BUILTIN and isinstance(name_or_path, str) and Path(key).is_file():
        # the built-in set was loaded, the user's file of that name silently ignored
        raise InputError(f"{key!r} names both a built-in data set and a file in the working directory; pass "
                         f"'./{key}' (or a Path) for the file, or rename it")
    if key in BUILTIN and isinstance(name_or_path, str):
        return load_builtin(key, label, positive)
    path = Path(key)
    try:
        exists = path.exists()
    except OSError as exc:  # a name too long for the file system: "[Errno 36] File name too long"
        raise InputError(f"data set {key[:80]!r}...: not a usable path ({exc.strerror})") from None
    if not exists and key in BUILTIN:  # a Path
        raise InputError(f"file {key!r} not found (a Path names a file; the str {key!r} names the built-in data set)")
    if not exists:
        raise InputError(
            f"data set {key!r} is neither a built-in name ({', '.join(BUILTIN)}) nor an existing file"
        )
    if path.is_dir():
        raise InputError(f"data path {key!r} is a directory, not a CSV file")
    if not path.is_file():  # a named pipe (or /dev/stdin): read several times below, the second read waited forever
        raise InputError(f"data path {key!r} is not a regular file (a pipe, socket or device); save the table to a "
                         "CSV file first")
    packed = compression_of(path)
    if packed:
        raise InputError(f"{key!r} is a {packed} file; load_dataset reads uncompressed CSV files only "
                         "(decompress it first)")
    binary = binary_format_of(path)
    if binary:  # was "looks like UTF-16 or UTF-32 text ...; save it as UTF-8", or a UTF-8 decoding error
        raise InputError(f"{key!r} is {binary}, not a CSV text file; export the table as CSV (comma-separated, "
                         "UTF-8) first")
    check_utf8_text(path, "data set")
    try:
        # compression=None: pandas guesses a compression from the name (.zip, .gz, .xz, .tar, ...), and a plain
        # CSV so named gave raw BadZipFile / LZMAError / ReadError tracebacks.
        header = pd.read_csv(path, header=None, nrows=1, dtype=str, keep_default_na=False, compression=None,
                             skipinitialspace=True)
        with warnings.catch_warnings():  # surplus fields: pandas would drop them, or make an index of them
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(path, index_col=False, compression=None, skipinitialspace=True)
    except pd.errors.ParserWarning:
        raise InputError(f"{key!r}: data rows have more fields than the header has column names"
                         f"{_separator_hint(header, ' (', ')')}") from None
    except UnicodeDecodeError:  # pandas' own message gave the byte's position within its read buffer
        raise InputError(f"{key!r} is not UTF-8 text: {_first_non_utf8(path)}; save it as UTF-8") from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{key!r} is not a readable CSV file: {exc}".splitlines()[0]) from None
    fields = [str(v) for v in header.iloc[0]]
    names = [v for v in fields if v]  # empty names become "Unnamed: k", all distinct
    no_header = (f"{key!r} has no header row: its first line {','.join(names)[:60]!r} holds numbers and a label "
                 "value (it would be read as column names and that row lost); add a header line naming the columns")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:  # pandas renames the second "y" to "y.1": a copy of the label could become a feature
        label_col = frame.columns[-1] if label is None else label
        if label_col in frame.columns and _is_data_row(frame, label_col, fields):  # UCI's .data files: a first
            raise InputError(no_header)  # line "5,1,1,1,2,1,3,1,1,2" was named a header with a repeated '1'
        raise InputError(f"{key!r} has repeated column names in its header: {repeated}")
    if frame.shape[1] < 2:
        raise InputError(f"{key!r} is not a CSV table with features and a label column (found {frame.shape[1]} "
                         f"column{_separator_hint(header, '; ')})")
    blank = [k + 1 for k, c in enumerate(frame.columns) if k < len(fields) and not fields[k] and frame[c].isna().all()]
    if blank:  # it became the label column 'Unnamed: 3' "with missing values", or a feature of NaN only
        raise InputError(f"{key!r}: column {blank[0]} of {len(fields)} has neither a name nor a value (does every "
                         "line end with a comma?); remove it")
    label_col = frame.columns[-1] if label is None else label
    if label_col not in frame.columns:
        raise LabelColumnError(label_col, key, columns=list(frame.columns))
    if len(frame) == 0:  # was "label column 'y' must have exactly two distinct values, found 0: []"
        raise InputError(f"{key!r} has a header row but no data rows")
    first = frame.iloc[:, 0]
    numbered = [start for start in (0, 1) if not fields[0] and frame.columns[0] != label_col
                and pd.api.types.is_integer_dtype(first)
                and np.array_equal(first.to_numpy(), np.arange(start, len(frame) + start))]
    if numbered:
        # DataFrame.to_csv writes the index, unnamed, as the first column (0..n-1), and R's write.csv its row
        # names "1".."n" under the name "": the row numbers became a feature "Unnamed: 0", which predicts the
        # class perfectly in a file sorted by class
        start = numbered[0]
        writer = ("the index DataFrame.to_csv writes; write with index=False" if start == 0 else
                  "the row names R's write.csv writes; write with row.names = FALSE")
        raise InputError(f"{key!r}: column 1 has no name and holds the row numbers {start}..{len(frame) - 1 + start} "
                         f"({writer}); remove it, or name it to keep it")
    if frame.iloc[:, -1].isna().any() or frame[label_col].isna().any():
        # the text as written; the python engine reads a missing field (a row shorter than the header) as NaN,
        # an empty one as "" (the C engine reads both as "")
        raw = pd.read_csv(path, index_col=False, compression=None, dtype=str, keep_default_na=False,
                          skipinitialspace=True, engine="python")
        short = np.nonzero(raw.iloc[:, -1].isna().to_numpy())[0]
        if len(short):  # its missing fields were read as missing values, e.g. of the label column
            row = int(short[0])
            count = int(raw.iloc[row].notna().sum())
            raise InputError(f"{key!r}: data row {row} (counted from 0, after the header) has {count} "
                             f"field{'s' * (count != 1)}, the header names {frame.shape[1]} columns "
                             f"({len(short)} such row{'s' * (len(short) != 1)})")
        # pandas reads "NA", "None", "null", "NaN" as missing: class names here
        if frame[label_col].isna().any() and (raw[label_col] != "").all():
            frame[label_col] = raw[label_col]
    if _is_data_row(frame, label_col, fields):  # its first data row became the column names, and was lost
        raise InputError(no_header)
    return _frame_to_dataset(frame, label_col, positive, source=key, given=label is not None)


def load_builtin(name: str, label: str | None = None, positive=None) -> Dataset:
    """The built-in data set ``name`` (a key of ``BUILTIN``), whatever files the working directory holds: for
    callers that only ever mean a built-in set (the model library's instances, whose ``data`` is checked to be
    one). Through :func:`load_dataset`, a file ``./cancer`` in the working directory made the name ambiguous
    (InputError), so ``bilevel export-library`` and ``solvers.check_solution`` failed there. ``label`` and
    ``positive`` as in :func:`load_dataset`; InputError for a name that is not built in."""
    import pandas as pd

    if name not in BUILTIN:
        raise InputError(f"{name!r} is not a built-in data set ({', '.join(BUILTIN)})")
    fname, label_col, pos = BUILTIN[name]
    if label is not None and label != label_col:
        raise LabelColumnError(label, name, builtin_label=label_col)
    with resources.files("bilevel.data").joinpath(fname).open("r") as fh:
        frame = pd.read_csv(fh)
    return _frame_to_dataset(frame, label_col, pos if positive is None else positive, source=name, given=None)


def _separator_hint(header: pd.DataFrame, before: str, after: str = "") -> str:
    """A hint, between ``before`` and ``after``, for a header row ``header`` (1, k) that is one field holding
    semicolons or tabs; "" for any other header."""
    name = header_separator(list(header.iloc[0]))
    return f"{before}its header is one field with {name} in it: load_dataset reads comma-separated files{after}" \
        if name else ""


def _is_data_row(frame: pd.DataFrame, label_col: str, fields: list[str]) -> bool:
    """Whether the header line ``fields`` (its k fields as written, one per column of ``frame``) of a CSV file
    looks like a data row: every feature name is a number, the label column's name is one of its values, and
    the names are not the column numbers 0..k-1 (or 1..k) that ``DataFrame.to_csv`` writes for a frame of k
    unnamed columns. The fields, not ``frame.columns``: pandas renames a repeated "1" to "1.1"."""
    import pandas as pd

    names = fields if len(fields) == frame.shape[1] else [str(c) for c in frame.columns]
    numbers = [finite_number(n) for n in names]
    if numbers in (list(range(len(numbers))), list(range(1, len(numbers) + 1))):
        return False
    if any(number is None for number, c in zip(numbers, frame.columns) if c != label_col):
        return False
    name = names[list(frame.columns).index(label_col)]
    as_number = finite_number(name)
    for v in pd.unique(frame[label_col].dropna()):
        v = v.item() if isinstance(v, np.generic) else v
        if str(v) == name or (as_number is not None and isinstance(v, (int, float)) and float(v) == as_number):
            return True
    return False


def _first_non_utf8(path: Path) -> str:
    """Where the file ``path`` first stops being UTF-8, in words: ``"byte 0xe9 on line 3"`` (a Latin-1 or Windows
    ``é``); pandas' decoding error named a position within its read buffer, not within the file. Raises nothing but
    OSError."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"byte 0x{data[exc.start]:02x} on line {line}"
    return "a byte sequence that is not UTF-8"


def _frame_to_dataset(frame: pd.DataFrame, label_col: str, positive, source: str,
                      given: bool | None) -> Dataset:
    """The Dataset of ``frame`` with the label column ``label_col``; ``given`` as in :class:`LabelValuesError`.
    Raises LabelValuesError (labels missing or not two), InputError (``positive``, features)."""
    import pandas as pd

    labels = frame[label_col]
    if labels.isna().any():
        raise LabelValuesError(label_col, source, "has missing values", given)
    # messages show 2, not np.int64(2)
    values = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(labels)]
    values = sorted(values, key=lambda v: (str(type(v)), v))
    if len(values) != 2:
        shown = values[:6]
        raise LabelValuesError(label_col, source, f"must have exactly two distinct values, found {len(values)}: "
                               f"{shown}{' ...' if len(values) > 6 else ''}", given)
    pos = values[1] if positive is None else positive
    if not isinstance(pos, Hashable) or pos not in values:  # an array: numpy's "truth value ... is ambiguous"
        twin = [v for v in values if str(v) == str(pos)]  # positive='1' where the labels were read as 0 and 1
        hint = f" (pass positive={twin[0]!r}: the labels were read as {type(twin[0]).__name__})" if twin else ""
        raise InputError(f"positive label {pos!r} is not one of the labels {values} of {source!r}{hint}")
    match = next(v for v in values if v == pos)
    if isinstance(pos, (bool, np.bool_)) != isinstance(match, (bool, np.bool_)):
        # True == 1 in Python: positive=True picked the label 1 of 0/1 labels, and the classes read (0, True)
        raise InputError(f"positive label {pos!r} is not one of the labels {values} of {source!r} (it equals "
                         f"{match!r} in Python only; pass positive={match!r})")
    features = frame.drop(columns=[label_col])
    bad = [c for c in features.columns if not pd.api.types.is_numeric_dtype(features[c])]
    if bad:  # name a value that is not a number: one '?' (UCI's missing value) among 500 numbers is hard to find
        raise InputError(f"feature columns of {source!r} must be numeric; not numeric: {bad} "
                         f"({', '.join(_first_non_number(features[c]) for c in bad[:3])})")
    X = features.to_numpy(dtype=np.float64)
    _check_finite(X, f"features of {source!r} contain")
    # Python's ==, as the labels were told apart above: numpy's == strips trailing NULs from a str ('yes\x00' is
    # 'yes'), so the labels 'no' and 'yes\x00' both became -1, a file of two classes silently of one
    y = np.array([1.0 if v == pos else -1.0 for v in labels.tolist()], dtype=np.float64)
    negative = next(v for v in values if v != pos)
    return Dataset(X, y, [str(c) for c in features.columns], (negative, pos))


def _first_non_number(column: pd.Series) -> str:
    """``"'b' holds '?' in row 3"``: the first value of the non-numeric ``column`` that is no number (rows
    counted from 0, as :func:`_check_finite` counts them), or its first missing value (or, when every value
    converts, such as integers beyond 64 bits, the column's type)."""
    import pandas as pd

    numbers = pd.to_numeric(column, errors="coerce").to_numpy()
    rows = np.nonzero(pd.isna(numbers))[0]
    if len(rows) == 0:
        return f"{column.name!r} was read as {column.dtype}, e.g. {column.iloc[0]!r} in row 0"
    value = column.iloc[rows[0]]
    return f"{column.name!r} holds {'a missing value' if pd.isna(value) else repr(value)} in row {rows[0]}"


def _check_finite(X: np.ndarray, what: str) -> None:
    """Raise InputError ``"<what> NaN or inf (rows [...])"`` naming the first five such rows of X (n, p)."""
    if not np.isfinite(X).all():
        rows = np.unique(np.nonzero(~np.isfinite(X))[0])
        raise InputError(f"{what} NaN or inf (rows {rows[:5].tolist()}{' ...' if len(rows) > 5 else ''})")


@dataclass
class Split:
    """A reproducible stratified split. Arrays are standardised with ``mean``/``scale`` (fitted on the
    non-test, non-calibration rows). ``*_index`` are row indices into the original data."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_val: np.ndarray
    y_val: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_cal: np.ndarray
    y_cal: np.ndarray
    train_index: np.ndarray
    val_index: np.ndarray
    test_index: np.ndarray
    cal_index: np.ndarray
    mean: np.ndarray
    scale: np.ndarray


def _stratified_take(idx: np.ndarray, y: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n`` of the rows ``idx`` keeping the class proportions of ``y[idx]`` (largest remainder
    rounding, at least one row of each class when ``n >= 2``). Returns (taken, rest)."""
    if n == 0:
        return idx[:0], idx
    classes = [idx[y[idx] == c] for c in (-1.0, 1.0)]
    sizes = np.array([len(c) for c in classes], dtype=float)
    quota = n * sizes / sizes.sum()
    take = np.floor(quota).astype(int)
    for k in np.argsort(-(quota - take), kind="stable")[: n - take.sum()]:
        take[k] += 1
    if n >= 2:
        for k in (0, 1):
            if take[k] == 0 and sizes[k] > 0:
                take[k], take[1 - k] = 1, take[1 - k] - 1
    taken, rest = [], []
    for c, t in zip(classes, take):
        perm = rng.permutation(c)
        taken.append(perm[:t])
        rest.append(perm[t:])
    return np.sort(np.concatenate(taken)), np.sort(np.concatenate(rest))


def _n_test(n_rows: int, test_fraction: float) -> int:
    """The number of test rows :func:`split_dataset` holds out of ``n_rows``, which :func:`check_split_sizes`
    counts: ``round(test_fraction * n_rows)`` (Python's round, half to even)."""
    return int(round(test_fraction * n_rows))


def check_split_sizes(n_rows: int, sizes: dict, test_fraction: float = 0.5, fraction_name: str | None = None) -> None:
    """Raise InputError when the sizes ``sizes`` (``{name: rows}``, e.g. ``{"n_train": 20, "n_val": 20}``) add up
    to more than the ``n_rows - round(test_fraction * n_rows)`` rows that :func:`split_dataset` leaves after holding
    out its test rows (the stratified draw takes exactly that many; Python's round). The message names the sizes
    by their keys, so a command-line tool passes its options (``{"--n-train": 500, "--n-val": 300}``) and the
    library its arguments; ``fraction_name`` (e.g. ``"--test-fraction"``), when given, is named with the test
    fraction. A utility of the split of Section 5.1 of the pessimistic paper; raises nothing else (the sizes and
    ``test_fraction`` are checked by the caller)."""
    n_test = _n_test(n_rows, test_fraction)
    total = sum(int(v) for v in sizes.values())
    if total > n_rows - n_test:
        held = f" ({fraction_name} {test_fraction:g} of the {n_rows} rows)" if fraction_name else ""
        raise InputError(f"{' + '.join(sizes)} = {value_text(total)} exceeds the {n_rows - n_test} rows left after "
                         f"holding out {n_test} test rows{held}")


def _check_standardised(Z, X, mean, scale) -> None:
    """Raise InputError when a standardised value of ``Z`` (n, p) overflowed: a row that the scaling was not fitted
    on (a test or calibration row) far outside the fitting rows' range, e.g. 1e308 beside values about 0.01. It
    became ``inf`` with a RuntimeWarning only, and ``bilevel tune`` failed after its MILPs with "X_eval contains
    NaN or inf", of features the file does not hold."""
    bad = np.argwhere(~np.isfinite(Z))
    if len(bad):
        row, j = (int(v) for v in bad[0])
        raise InputError(f"X's row {row} (counted from 0; a test or calibration row) has {X[row, j]:g} in feature "
                         f"{j}, which overflows when standardised with the mean {mean[j]:g} and scale {scale[j]:g} of "
                         f"the rows the scaling is fitted on ({len(bad)} such value{'s' * (len(bad) != 1)}): check "
                         "the data (a unit or a misplaced decimal point?), or split with standardize=False")


def split_dataset(
    X,
    y,
    n_train: int,
    n_val: int,
    *,
    n_cal: int | None = 0,
    test_fraction: float = 0.5,
    seed: int = 0,
    standardize: bool = True,
) -> Split:
    """Stratified test / train / validation (/ calibration) split, Section 5.1 of the pessimistic paper.

    ``round(test_fraction * n)`` rows (stratified; Python's round, half to even: 224 of the 449 cancer rows,
    where the paper's Table 1 has 225) form the test set; ``n_train`` then ``n_val`` rows are
    drawn stratified from the rest, then ``n_cal`` calibration rows (``None``: all remaining rows).
    Features are standardised to zero mean and unit variance using the non-test rows that are not
    calibration rows (the training and validation rows and, with ``n_cal = 0``, the unused rest of the
    pool): test and calibration rows never influence the tuned model, so a certificate computed on the
    calibration rows stays independent of the candidates. A constant feature keeps scale 1. The same
    ``seed`` gives the same split.

    Shapes: ``X`` (n, p) finite with p >= 1, ``y`` (n,) in {-1, +1}. Raises InputError for no feature columns,
    non-numeric, NaN or inf features, a pandas ``X`` and ``y`` whose row indexes differ (rows are paired by
    position), sizes that are not integers (``n_train``, ``n_val``; ``n_cal`` may be ``None``) or negative, a
    ``test_fraction`` outside [0, 1), a ``seed`` that is not an integer >= 0 (or ``None`` / a
    ``numpy.random.Generator``), a ``standardize`` that is not a bool, a pool too small, a training set missing a
    class, or a test or calibration row whose standardised value overflows (one far outside the fitting rows'
    range).
    """
    check_aligned(X, y)
    X = as_float_array(X, "X", "a numeric 2-D array (n, p)")
    y = as_float_array(y, "y", "a 1-D array of the labels -1 and +1")
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise InputError(f"X must be (n, p) and y (n,) with the same n; got X {X.shape}, y {y.shape}")
    if X.shape[1] == 0:
        raise InputError(f"X has no feature columns (shape {X.shape}); the split needs at least one")
    if not np.isin(y, (-1.0, 1.0)).all():
        raise InputError("labels y must be -1 or +1")
    _check_finite(X, "X contains")
    for size_name, size in (("n_train", n_train), ("n_val", n_val), ("n_cal", n_cal)):  # None: only n_cal
        if (size is not None or size_name != "n_cal") and not is_integer(size):
            raise InputError(f"{size_name} must be an integer number of rows, got {size!r}")
    test_fraction = as_number(test_fraction, "test_fraction")
    if not 0.0 <= test_fraction < 1.0:
        raise InputError(f"test_fraction must lie in [0, 1), got {test_fraction}")
    seed = check_seed(seed)
    standardize = check_flag(standardize, "standardize")  # "no" was read as True
    if n_train < 2 or n_val < 1:
        raise InputError(f"need n_train >= 2 (one point per class) and n_val >= 1; "
                         f"got n_train={n_train}, n_val={n_val}")
    rng = np.random.default_rng(seed)
    all_idx = np.arange(len(y))
    test_idx, pool = _stratified_take(all_idx, y, _n_test(len(y), test_fraction), rng)
    cal_need = 0 if n_cal is None else n_cal
    if n_cal is not None and n_cal < 0:
        raise InputError(f"n_cal must be >= 0 or None, got {n_cal}")
    check_split_sizes(len(y), {"n_train": n_train, "n_val": n_val, **({"n_cal": cal_need} if cal_need else {})},
                      test_fraction)
    train_idx, rest = _stratified_take(pool, y, n_train, rng)
    val_idx, rest = _stratified_take(rest, y, n_val, rng)
    cal_idx, _ = _stratified_take(rest, y, len(rest) if n_cal is None else n_cal, rng)
    if len(np.unique(y[train_idx])) < 2:
        # The training draw takes a row of each class the pool holds (n_train >= 2), so the pool lacks one: the
        # stratified test set took every row of a class (at least one row of each class when it has >= 2 rows).
        missing = 1.0 if (y[pool] == -1.0).all() else -1.0
        total = int((y == missing).sum())
        if total == 0:  # no test set took it: the message below blamed one, and its advice could not help
            raise InputError(f"y holds the class {-missing:+.0f} only: the training set needs rows of both classes")
        raise OneClassTrainingError(missing, total, len(test_idx))
    if standardize:  # fitted on the rows the tuner may see: neither test nor calibration rows
        fit = np.setdiff1d(pool, cal_idx)
        # Columns whose largest |value| exceeds HUGE_FEATURE are standardised in units of that value: std
        # squares the values (a column of size 1e160 had an infinite scale, so its standardised values were
        # all 0, the feature silently dropped), and a sum of values near 1e308 overflows the mean (a finite
        # column of 1e307-2e307 became -inf). The other columns keep the plain formula, bit for bit.
        # Columns whose largest |value| is below 1/HUGE_FEATURE (and not 0), likewise: their squares underflow (a
        # column of size 1e-170 had std 0, so it was taken for a constant and kept unscaled: the feature was
        # silently dropped, its standardised values all about 1e-170; at 1e-160 its std lost digits).
        big = np.abs(X[fit]).max(axis=0)
        huge = (big > HUGE_FEATURE) | ((big < 1.0 / HUGE_FEATURE) & (big > 0))
        units = np.where(huge, big, 1.0)
        U = X / units
        mean_u, scale_u = U[fit].mean(axis=0), U[fit].std(axis=0)
        # A feature constant on the fitting rows keeps scale 1 and its exact value as mean: numpy's mean and
        # std of seven 0.1's are off by one rounding step (std 1.4e-17, not 0), which scaled the column by
        # 1e16 and sent a test row of 0.2 to 4.5e14.
        const = (U[fit] == U[fit][:1]).all(axis=0) | (scale_u == 0)
        mean_u[const] = U[fit][0, const]
        scale_u[const] = 1.0 / units[const]
        with np.errstate(over="ignore"):
            Z = (U - mean_u) / scale_u
        mean, scale = mean_u * units, scale_u * units
        _check_standardised(Z, X, mean, scale)
    else:
        mean, scale = np.zeros(X.shape[1]), np.ones(X.shape[1])
        Z = X.copy()
    return Split(
        Z[train_idx], y[train_idx], Z[val_idx], y[val_idx], Z[test_idx], y[test_idx], Z[cal_idx], y[cal_idx],
        train_idx, val_idx, test_idx, cal_idx, mean, scale,
    )
