r"""The instance library: a fixed, documented set of tuning MILPs exported for other solvers.

Every instance is one bilevel tuning MILP (:func:`bilevel.build_optimistic_model` or
:func:`bilevel.build_pessimistic_model`) on a stratified split (:func:`bilevel.split_dataset`) of a
built-in data set, fully determined by an :class:`InstanceSpec` (data set, mode, epsilon, sizes, seed,
flip rule, replica, lambda bound, box bounds). For each instance the library writes, into one folder:

``<id>.mps``
    **fixed MPS** with short generated names (columns ``C0, C1, ...``, rows ``R0, R1, ...``, objective
    ``OBJ``; at most 8 characters, no spaces), every field in its fixed column and every number in at
    most 12 characters (the fixed-MPS field width; precision in :func:`mps_number`),
    integer columns between ``MARKER`` lines with explicit bounds, minimisation, no objective constant.
    HiGHS, SCIP and CBC read it (as fixed or free MPS); so should any MPS reader.
``<id>.lp``
    CPLEX LP written by :func:`bilevel.write_model` (Pyomo, readable names such as ``w_bar(3)``,
    ``c_u_outer_hinge(0)_``; full double precision).
``<id>.names.csv``
    the name map ``kind,short,name`` (``kind`` = ``col``, ``row`` or ``obj``) from the short MPS names to
    the readable Pyomo names (``w_bar[3]``, ``outer_hinge[0]``); the solution checker uses it to map a
    foreign solver's answer back to ``w_bar``, ``w`` and ``b``.

A manifest (``manifest.csv``, see :data:`MANIFEST_COLUMNS`) lists every instance with its parameters,
sizes (rows / columns / binaries / non-zeros of the MPS matrix), SHA-256 checksums of the three files,
and what HiGHS (through :func:`bilevel.solve_model`) reported: status, objective, best bound, gap,
seconds, nodes, and whether the solution passed :func:`bilevel.verify_model`.

Generation is deterministic: the same package version (with the same HiGHS, numpy and scipy) writes the
same bytes. A changed formulation (new rows, other big-M constants) changes the files;
:func:`instance_differences` tells a formulation change (re-run ``bilevel export-library``) from last-digit
round-off.
"""
from __future__ import annotations

import csv
import fnmatch
import hashlib
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .datasets import BUILTIN, load_builtin, split_dataset
from .errors import InputError
from .export import replace_atomically, write_model
from .highs_run import MANIFEST_STATUS_WORDS, check_infeasible_without_presolve, run_interruptibly, silent_highs
from .library_defaults import DATASETS, MIP_GAP, MODES, SEED, SIZES, SMALL_MAX, TIME_LIMIT
from .optimistic import build_optimistic_model
from .pessimistic import build_pessimistic_model
from .solve import compile_model, lp_matrix
from .validation import (as_number, as_path, check_count, check_flag, check_mip_gap, check_positive,
                         check_regular_file, repeated_values, value_text)
from .verify import verify_model

#: Columns of the manifest CSV, in order.
MANIFEST_COLUMNS = [
    "id", "data", "mode", "epsilon", "flip", "replica", "lambda_bound", "lambda_max", "w_bar_lb", "w_bar_ub",
    "n_train", "n_val", "seed", "test_fraction", "n_flipped", "committed",
    "rows", "columns", "binaries", "nonzeros",
    "mps", "lp", "names", "mps_sha256", "lp_sha256", "names_sha256",
    "highs_status", "highs_objective", "highs_best_bound", "highs_gap", "highs_seconds", "highs_nodes",
    "time_limit", "mip_gap", "verified", "lambda_at_bound", "highs_version",
]
_INT_COLUMNS = ("n_train", "n_val", "seed", "n_flipped", "rows", "columns", "binaries", "nonzeros", "highs_nodes")
_FLOAT_COLUMNS = ("epsilon", "test_fraction", "lambda_bound", "lambda_max", "w_bar_lb", "w_bar_ub", "highs_objective",
                  "highs_best_bound", "highs_gap", "highs_seconds", "time_limit", "mip_gap")
_BOOL_COLUMNS = ("committed", "verified", "lambda_at_bound")


@dataclass(frozen=True)
class InstanceSpec:
    """Everything that determines one library instance.

    Raises InputError for an unknown data set or mode, another flip rule or replica, or ``epsilon < 0``.

    ``data``: built-in data set name; ``mode``: ``"optimistic"`` (Eq. 21) or ``"pessimistic"`` (Eq. 25);
    ``epsilon`` >= 0 (pessimistic only, relative training-loss slack); ``n_train`` = |T|, ``n_val`` = |V|;
    ``seed`` of :func:`bilevel.split_dataset`; ``flip``: only ``"all"`` (every
    validation point is in V_f, so the instance does not depend on an optimistic solve); ``replica``:
    only ``"optimal"`` (the training-optimal replica, budget ``(1 + epsilon) v*(w_bar)``);
    ``lambda_bound``: the bound on the dual of the epsilon constraint (default 1000, the starting bound
    of :func:`bilevel.tune`; fixed, not enlarged as
    :func:`bilevel.tune` does); ``w_bar_lb``, ``w_bar_ub``: the box of every ``w_bar_j``;
    ``test_fraction``: rows held out as test set before drawing T and V (default
    :func:`default_test_fraction`: 1/2 as in the paper, 1/10 when |T| + |V| > 200, which the data sets
    cannot supply from half their rows).
    """

    data: str
    mode: str
    epsilon: float
    n_train: int
    n_val: int
    seed: int = SEED
    flip: str = "all"
    replica: str = "optimal"
    lambda_bound: float = 1000.0
    w_bar_lb: float = 0.0
    w_bar_ub: float = 1.0
    test_fraction: float | None = None

    def __post_init__(self):
        if self.test_fraction is None:
            object.__setattr__(self, "test_fraction", default_test_fraction(self.n_train, self.n_val))
        if self.data not in BUILTIN:
            raise InputError(f"library data set must be one of {', '.join(BUILTIN)}; got {value_text(self.data)}")
        if self.mode not in ("optimistic", "pessimistic"):
            raise InputError(f"mode must be 'optimistic' or 'pessimistic'; got {value_text(self.mode)}")
        if self.flip != "all":
            raise InputError(f"library instances use flip='all' (deterministic V_f); got {value_text(self.flip)}")
        if self.replica != "optimal":
            raise InputError("library instances use the training-optimal replica; "
                             f"got replica={value_text(self.replica)}")
        if not (np.isfinite(self.epsilon) and self.epsilon >= 0):
            raise InputError(f"epsilon must be >= 0; got {self.epsilon}")
        if self.mode == "optimistic" and self.epsilon != 0:  # Eq. (21) has no epsilon: one instance, one spec
            raise InputError(f"an optimistic instance has no epsilon; got epsilon={self.epsilon} (use 0)")

    @property
    def id(self) -> str:
        """File-name-safe identifier, e.g. ``cancer-opt-n5-s0`` or ``diabetes-pes-e0.2-n10-s0``."""
        tag = "opt" if self.mode == "optimistic" else f"pes-e{self.epsilon:g}"
        size = f"n{self.n_train}" if self.n_train == self.n_val else f"t{self.n_train}-v{self.n_val}"
        return f"{self.data}-{tag}-{size}-s{self.seed}"

    @property
    def small(self) -> bool:
        """True when the instance belongs to the committed set (both sizes <= :data:`SMALL_MAX`)."""
        return max(self.n_train, self.n_val) <= SMALL_MAX

    @property
    def folder(self) -> str:
        """Subfolder of the library folder: ``""`` for committed instances, ``"large"`` otherwise."""
        return "" if self.small else "large"

    @classmethod
    def from_row(cls, row: dict) -> "InstanceSpec":
        """The spec of a manifest row (a dict from :func:`read_manifest`). Raises InputError for a bad row."""
        try:
            return cls(
                data=row["data"], mode=row["mode"], epsilon=float(row["epsilon"]), n_train=int(row["n_train"]),
                n_val=int(row["n_val"]), seed=int(row["seed"]), flip=row.get("flip") or "all",
                replica=row.get("replica") or "optimal",
                lambda_bound=1000.0 if row.get("lambda_bound") is None else float(row["lambda_bound"]),
                w_bar_lb=float(row["w_bar_lb"]),
                w_bar_ub=float(row["w_bar_ub"]),
                test_fraction=None if row.get("test_fraction") is None else float(row["test_fraction"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"manifest row {row.get('id', '?')!r} is not a valid instance: {exc}") from None


def default_test_fraction(n_train: int, n_val: int) -> float:
    """Test fraction of the library's splits: 0.5 (Section 5.1 of the paper) while ``n_train + n_val <=
    200``, else 0.1 (cancer keeps 225 and diabetes 266 non-test rows at 0.5, too few for |T| = |V| = 200).
    Raises InputError when ``n_train`` or ``n_val`` is not an integer >= 1."""
    n_train, n_val = check_count(n_train, "n_train", 1), check_count(n_val, "n_val", 1)
    return 0.5 if n_train + n_val <= 200 else 0.1


def library_specs(sizes=SIZES, datasets=DATASETS, modes=MODES, seed: int = SEED) -> list[InstanceSpec]:
    """The library's instances: every data set x (mode, epsilon) x size (|T| = |V|), ordered by size,
    then data set, then mode. Defaults give the documented 36 instances. Raises InputError for ``sizes``,
    ``datasets`` or ``modes`` that are not sequences (of integers >= 2, of data set names, of ``(mode,
    epsilon)`` pairs; a raw TypeError or ValueError before) and for a spec :class:`InstanceSpec` refuses."""
    for name, values in (("sizes", sizes), ("datasets", datasets), ("modes", modes)):
        if isinstance(values, (str, bytes)) or not np.iterable(values):  # "cancer" was read as c, a, n, ...
            raise InputError(f"{name} must be a sequence; got {value_text(values, limit=80)}")
    sizes = [check_count(n, "sizes[...] (|T| = |V|)", 2) for n in sizes]
    if not all(isinstance(m, (tuple, list)) and len(m) == 2 for m in modes):  # a raw unpacking error before
        raise InputError(f"modes must be (mode, epsilon) pairs; got {value_text(modes, limit=80)}")
    modes = [(mode, as_number(eps, f"the epsilon of mode {value_text(mode)}")) for mode, eps in modes]
    return [InstanceSpec(data, mode, eps, n, n, seed) for n in sizes for data in datasets for mode, eps in modes]


@dataclass
class BuiltInstance:
    """A built library instance: the Pyomo ``model``, the data ``split`` and ``flipped`` (indices of V_f
    into the validation set, empty for the optimistic mode)."""

    spec: InstanceSpec
    model: object
    split: object
    flipped: np.ndarray


def _check_spec(spec, name: str = "spec") -> None:
    """InputError unless ``spec`` is an :class:`InstanceSpec` (a number or a dict was an AttributeError "'int'
    object has no attribute 'data'" from inside)."""
    if not isinstance(spec, InstanceSpec):
        raise InputError(f"{name} must be an InstanceSpec (see library_specs); got {type(spec).__name__}")


def build_instance(spec: InstanceSpec) -> BuiltInstance:
    """Build the Pyomo MILP of ``spec`` (no solve). Deterministic: same spec, same model.

    Raises InputError when the sizes do not fit the data set, or for a ``spec`` that is not an InstanceSpec."""
    _check_spec(spec)
    data = load_builtin(spec.data)  # spec.data is a built-in name (InstanceSpec): never a file of that name
    split = split_dataset(data.X, data.y, spec.n_train, spec.n_val, test_fraction=spec.test_fraction, seed=spec.seed)
    bounds = (spec.w_bar_lb, spec.w_bar_ub)
    if spec.mode == "optimistic":
        model = build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val, bounds)
        flipped = np.array([], dtype=int)
    else:
        flipped = np.arange(len(split.y_val))
        model = build_pessimistic_model(split.X_train, split.y_train, split.X_val, split.y_val, flipped,
                                        spec.epsilon, bounds, spec.lambda_bound, spec.replica)
    return BuiltInstance(spec, model, split, flipped)


# --------------------------------------------------------------------------------------------- MPS


def mps_number(value: float) -> str:
    """Format a finite float in at most 12 characters (the width of a fixed-MPS number field).

    Uses the shortest round-trip representation when it fits, otherwise the most significant digits that
    fit (``%.Ng``, exponent without padding): at least 5 significant digits for any double; 10 for
    positive numbers in [0.1, 1e4) (relative round-off <= 5e-10), fewer for negative ones (the sign) and
    below 0.1 (leading zeros), e.g. 8 for ``-0.0106...`` (1e-8). Measured over the committed instances:
    relative round-off at most 1.0e-8 (cancer) and 7.8e-9 (diabetes). Raises InputError for inf / NaN and for
    a ``value`` that is not a number (None, a bool, an array)."""
    v = as_number(value, "value (an MPS number)")
    if not math.isfinite(v):
        raise InputError(f"cannot write {v} in an MPS number field")
    if v == int(v) and abs(v) < 1e11:
        return str(int(v))
    text = repr(v)
    if len(text) <= 12:
        return text
    for digits in range(12, 0, -1):
        text = _compact(f"{v:.{digits}g}")
        if len(text) <= 12:
            return text
    raise AssertionError(v)  # pragma: no cover - 1 digit always fits


def _compact(text: str) -> str:
    if "e" in text:
        mant, exp = text.split("e")
        sign = "-" if exp.startswith("-") else ""
        text = f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return text


def _field(text: str, width: int) -> str:
    if len(text) > width:
        raise InputError(f"{text!r} does not fit a fixed-MPS field of {width} characters")
    return text.ljust(width)


def _entry(f1: str, f2: str, f3: str, f4: str = "") -> str:
    """A fixed-MPS data line: field 1 in columns 2-3, field 2 in 5-12, field 3 in 15-22, field 4 in 25-36."""
    return (" " + _field(f1, 2) + " " + _field(f2, 8) + "  " + _field(f3, 8) + "  " + _field(f4, 12)).rstrip()


@dataclass
class MpsModel:
    """A linear (MI)LP in the arrays the MPS writer needs. ``A`` (rows x columns) scipy CSC; ``cost``,
    ``col_lower``, ``col_upper`` (columns,); ``row_lower``, ``row_upper`` (rows,), ``-inf``/``inf`` for
    absent sides; ``integer`` (columns,) bool; ``col_names`` / ``row_names`` the readable Pyomo names."""

    A: object
    cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    row_lower: np.ndarray
    row_upper: np.ndarray
    integer: np.ndarray
    col_names: list
    row_names: list
    objective_name: str


def mps_model(model) -> MpsModel:
    """Compile a linear Pyomo model with :func:`bilevel.solve.compile_model` (the arrays HiGHS is given by
    :func:`bilevel.solve_model`) and collect the readable column and row names.

    Raises InputError for a maximisation model or an objective constant (the library's MILPs have
    neither; MPS readers disagree on both)."""
    import pyomo.environ as pyo
    from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler

    cm = compile_model(model)
    lp = cm.lp
    if cm.sense != 1:
        raise InputError("the library writes minimisation models only")
    if float(lp.offset_) != 0.0:
        raise InputError("the objective has a constant term, which MPS readers interpret differently")
    repn = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    if len(repn.rows) != lp.num_row_ or len(repn.columns) != lp.num_col_:
        raise AssertionError("compile_model and the standard-form compiler disagree")  # pragma: no cover
    row_names, seen = [], {}
    for r in repn.rows:
        name = r.constraint.name
        seen[name] = seen.get(name, 0) + 1
        row_names.append(name)
    for i, r in enumerate(repn.rows):  # a ranged constraint split into two rows: tell them apart
        if seen[row_names[i]] > 1:
            row_names[i] += "#up" if r.bound_type > 0 else "#lo"  # Pyomo: +1 is the row of the upper bound
    A = lp_matrix(lp).tocsc()
    import highspy

    integer = np.zeros(lp.num_col_, dtype=bool)
    if len(lp.integrality_):
        integer = np.array([t == highspy.HighsVarType.kInteger for t in lp.integrality_])
    obj = next(model.component_data_objects(pyo.Objective, active=True))
    return MpsModel(
        A=A, cost=np.asarray(lp.col_cost_, dtype=float), col_lower=np.asarray(lp.col_lower_, dtype=float),
        col_upper=np.asarray(lp.col_upper_, dtype=float), row_lower=np.asarray(lp.row_lower_, dtype=float),
        row_upper=np.asarray(lp.row_upper_, dtype=float), integer=integer,
        col_names=[v.name for v in repn.columns], row_names=row_names, objective_name=obj.name,
    )


def short_names(prefix: str, n: int) -> list[str]:
    """``[prefix + "0", ..., prefix + str(n - 1)]``; raises InputError when a name would exceed 8 characters,
    ``prefix`` is not a str or ``n`` not an integer >= 0 (a negative ``n`` gave no names)."""
    n = check_count(n, "n (number of names)")
    if not isinstance(prefix, str):
        raise InputError(f"prefix must be a str; got {value_text(prefix, limit=80)}")
    if n and len(f"{prefix}{n - 1}") > 8:
        raise InputError(f"{n} names do not fit 8 characters with prefix {prefix!r}")
    return [f"{prefix}{i}" for i in range(n)]


def write_fixed_mps(mm: MpsModel, path, title: str = "BILEVEL", comments=()) -> dict:
    """Write ``mm`` as fixed-format MPS with short names ``C<j>`` (columns), ``R<i>`` (rows), ``OBJ``.

    Conventions (each chosen so that every common reader agrees): names <= 8 characters without spaces;
    fields in their fixed columns; numbers <= 12 characters (:func:`mps_number`); minimisation (no
    ``OBJSENSE`` section); no objective constant; rows ``L``/``G``/``E`` (a row with two finite sides is
    ``L`` with a ``RANGES`` entry); integer columns between ``'MARKER' 'INTORG'``/``'INTEND'`` lines and
    always with an explicit finite upper bound (``UP 1`` for a binary; some readers give a bound-less integer
    column the bounds [0, 1], HiGHS's fixed-format parser even one marked ``PL``, ``MI`` or ``FR``); a lower
    bound is written whenever it is not 0 and also before a negative upper bound (readers differ on ``UP < 0``
    alone); free (continuous) columns ``FR``, ``-inf`` lower bounds ``MI``.
    ``comments`` become ``*`` lines after ``NAME`` (the library writes none: HiGHS 1.15's fixed-format
    parser misreads a file with comment lines).

    Returns the name map ``{"col": [...], "row": [...], "obj": name}`` of readable names by position.
    The file is written to a temporary file and renamed (:func:`bilevel.export.replace_atomically`).
    Raises InputError for a free row, an infeasible bound pair, an integer column without a finite upper bound
    (HiGHS's fixed-format parser reads it as [lower, 1]: ``k >= 2.5`` integer was infeasible), a number that
    cannot be written, or a file that cannot be written (``path`` not a str or Path included); also for an ``mm``
    that is not an :class:`MpsModel`, a ``title`` that is not 1-8 printable ASCII characters without spaces, and
    ``comments`` that are not a list of one-line strings (a line break in either started a new line of the file,
    read as a section: ``comments=["x\\nROWS"]``; a str as ``comments`` wrote one comment per character)."""
    path = as_path(path, "path (the MPS file)")
    if not isinstance(mm, MpsModel):
        raise InputError(f"mm must be an MpsModel (from mps_model(model)); got {type(mm).__name__}")
    if not (isinstance(title, str) and 1 <= len(title) <= 8 and title.isascii() and title.isprintable()
            and " " not in title):
        raise InputError("title must be 1-8 printable ASCII characters without spaces; "
                         f"got {value_text(title, limit=80)}")
    if isinstance(comments, (str, bytes)) or not isinstance(comments, (list, tuple)) or not all(
            isinstance(c, str) and c.isprintable() for c in comments):
        raise InputError("comments must be a list of one-line strings (printable, no line breaks); got "
                         f"{value_text(comments, limit=150)}")
    n_row, n_col = mm.A.shape
    cols, rows = short_names("C", n_col), short_names("R", n_row)
    lines = [f"NAME          {_field(title, 8).rstrip()}"]
    lines += [f"* {c}" for c in comments]
    lines.append("ROWS")
    lines.append(" N  OBJ")
    kinds, rhs, ranges = [], {}, {}
    for i in range(n_row):
        lo, up = mm.row_lower[i], mm.row_upper[i]
        if lo == up:
            kind, rhs[i] = "E", lo
        elif np.isfinite(lo) and np.isfinite(up):
            if lo > up:
                raise InputError(f"row {mm.row_names[i]} has lower bound {lo} > upper bound {up}")
            kind, rhs[i], ranges[i] = "L", up, up - lo
        elif np.isfinite(up):
            kind, rhs[i] = "L", up
        elif np.isfinite(lo):
            kind, rhs[i] = "G", lo
        else:
            raise InputError(f"row {mm.row_names[i]} is free; the library writes no free rows")
        kinds.append(kind)
        lines.append(f" {kind}  {rows[i]}")
    lines.append("COLUMNS")
    A = mm.A.tocsc()
    A.sort_indices()
    marker, in_int = 0, False
    for j in range(n_col):
        if mm.integer[j] != in_int:
            tag = "'INTORG'" if mm.integer[j] else "'INTEND'"
            lines.append(f"    {_field(_marker_name(marker), 8)}  'MARKER'                 {tag}")
            marker += 1
            in_int = bool(mm.integer[j])
        if mm.cost[j] != 0.0:
            lines.append(_entry("", cols[j], "OBJ", mps_number(mm.cost[j])))
        for k in range(A.indptr[j], A.indptr[j + 1]):
            if A.data[k] != 0.0:
                lines.append(_entry("", cols[j], rows[A.indices[k]], mps_number(A.data[k])))
        if mm.cost[j] == 0.0 and not np.any(A.data[A.indptr[j]:A.indptr[j + 1]] != 0.0):  # stored zeros are skipped
            lines.append(_entry("", cols[j], "OBJ", "0"))  # a column must appear in COLUMNS
    if in_int:
        lines.append(f"    {_field(_marker_name(marker), 8)}  'MARKER'                 'INTEND'")
    lines.append("RHS")
    for i in range(n_row):
        if rhs[i] != 0.0:
            lines.append(_entry("", "RHS", rows[i], mps_number(rhs[i])))
    if ranges:
        lines.append("RANGES")
        for i, r in sorted(ranges.items()):
            lines.append(_entry("", "RNG", rows[i], mps_number(r)))
    lines.append("BOUNDS")
    for j in range(n_col):
        lo, up = mm.col_lower[j], mm.col_upper[j]
        if lo > up:
            raise InputError(f"column {mm.col_names[j]} has lower bound {lo} > upper bound {up}")
        c = cols[j]
        if mm.integer[j] and not np.isfinite(up):  # PL, MI, FR: [lo, 1] to HiGHS's fixed parser
            raise InputError(f"integer column {mm.col_names[j]} has no finite upper bound, which MPS readers disagree "
                             "on (HiGHS's fixed-format parser reads it as at most 1): give it one")
        if lo == up:
            lines.append(_entry("FX", "BND", c, mps_number(lo)))
            continue
        if not np.isfinite(lo) and not np.isfinite(up):
            lines.append(_entry("FR", "BND", c))
            continue
        if not np.isfinite(lo):
            lines.append(_entry("MI", "BND", c))
        elif lo != 0.0 or (np.isfinite(up) and up < 0):
            lines.append(_entry("LO", "BND", c, mps_number(lo)))
        if np.isfinite(up):
            lines.append(_entry("UP", "BND", c, mps_number(up)))
    lines.append("ENDATA")
    text = "\n".join(lines) + "\n"
    replace_atomically(path, lambda temp: temp.write_text(text, newline="\n"))  # never half-written
    return {"col": list(zip(cols, mm.col_names)), "row": list(zip(rows, mm.row_names)),
            "obj": ("OBJ", mm.objective_name)}


def _marker_name(k: int) -> str:
    """Name of the ``k``-th ``'MARKER'`` line: ``MARKER00`` to ``MARKER99``, then ``M100``, ``M101``, ... (8
    characters; ``MARKER100`` did not fit, so a model whose integer and continuous columns alternate more than
    99 times was refused)."""
    return f"MARKER{k:02d}" if k < 100 else f"M{k}"


def _is_name_map(names) -> bool:
    """Whether ``names`` has the shape of :func:`write_fixed_mps`'s name map (pairs of strings)."""
    def pair(x) -> bool:
        return isinstance(x, (tuple, list)) and len(x) == 2 and all(isinstance(v, str) for v in x)
    return (isinstance(names, dict) and pair(names.get("obj"))
            and all(isinstance(names.get(k), (list, tuple)) and all(pair(x) for x in names[k]) for k in ("col", "row")))


def write_name_map(names: dict, path) -> Path:
    """Write the name map of :func:`write_fixed_mps` as CSV ``kind,short,name`` (through a temporary file, like
    the model: an interrupted write leaves the old map whole). Returns the path. A utility of the instance
    library; raises InputError when the file cannot be written (``path`` not a str or Path included) or
    ``names`` is not such a map (a KeyError or TypeError before)."""
    path = as_path(path, "path (the name map)")
    if not _is_name_map(names):  # a KeyError / TypeError from inside the write before
        raise InputError("names must be the name map write_fixed_mps returns: {'obj': (short, name), 'col': "
                         f"[(short, name), ...], 'row': [(short, name), ...]}}; got {value_text(names, limit=80)}")

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as fh:  # the locale's encoding could not hold a name
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["kind", "short", "name"])
            w.writerow(["obj", *names["obj"]])
            for kind in ("col", "row"):
                for short, name in names[kind]:
                    w.writerow([kind, short, name])

    replace_atomically(path, write)  # an interrupted write leaves the old map, not a truncated one
    return path


def read_name_map(path) -> dict:
    """Read a name map CSV (UTF-8, as :func:`write_name_map` writes it; a byte-order mark is skipped): returns
    ``{short_name: (kind, readable_name)}``. Raises InputError for a missing file, one that is not UTF-8 CSV text,
    a header other than ``kind,short,name``, a row without exactly three cells, or a short name given twice (the
    later row replaced the earlier one without a word), and for a ``path`` that is not a str or Path."""
    path = as_path(path, "path (the name map)")
    check_regular_file(path, "name map")
    out = {}
    try:
        # utf-8-sig, as the manifest: a map saved by a spreadsheet starts with a byte-order mark, which made the
        # header "\ufeffkind" and the map "not a name map"
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh)
            if next(reader, None) != ["kind", "short", "name"]:
                raise InputError(f"{str(path)!r} is not a name map (header kind,short,name)")
            for row in reader:
                if len(row) != 3:
                    raise InputError(f"{str(path)!r}, line {reader.line_num}: expected 3 cells (kind,short,name); "
                                     f"got {len(row)}")
                if row[1] in out:
                    raise InputError(f"{str(path)!r}, line {reader.line_num}: the short name {row[1]!r} is given twice")
                out[row[1]] = (row[0], row[2])
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{str(path)!r} is not a UTF-8 CSV name map: {exc}") from None
    return out


def sha256(path) -> str:
    """Hex SHA-256 of a file's bytes. A utility of the instance library. Raises InputError for a ``path`` that
    is not a str or Path (an int was read as a file descriptor: ``sha256(0)`` hashed stdin and closed it), a
    missing file or one that cannot be read."""
    path = as_path(path, "path (the file to hash)")
    if not path.is_file():
        raise InputError(f"cannot hash {str(path)!r}: not a file")
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:  # no permission
        raise InputError(f"cannot hash {str(path)!r}: {exc.strerror or exc}") from None
    return h.hexdigest()


# ------------------------------------------------------------------------------------------ export


def write_instance(spec: InstanceSpec, out_dir, built: BuiltInstance | None = None) -> dict:
    """Write ``<id>.mps``, ``<id>.lp`` and ``<id>.names.csv`` of ``spec`` into ``out_dir/spec.folder``
    (no solve) and return the manifest fields that describe the files: parameters, sizes, relative paths
    and checksums. ``built`` reuses an already built model. Raises InputError for bad sizes, an ``out_dir``
    that is not a str or Path, a ``spec`` that is not an InstanceSpec or a ``built`` that is not a BuiltInstance
    (or None)."""
    _check_spec(spec)
    if built is not None and not isinstance(built, BuiltInstance):
        raise InputError(f"built must be the BuiltInstance of build_instance(spec) or None; got {type(built).__name__}")
    out_dir = as_path(out_dir, "out_dir")
    built = built or build_instance(spec)
    folder = out_dir / spec.folder
    folder.mkdir(parents=True, exist_ok=True)
    mm = mps_model(built.model)
    base = folder / spec.id
    names = write_fixed_mps(mm, Path(f"{base}.mps"), "BILEVEL")  # no comments: HiGHS's fixed parser rejects them
    write_name_map(names, Path(f"{base}.names.csv"))
    write_model(built.model, Path(f"{base}.lp"))
    rel = (Path(spec.folder) / spec.id).as_posix()
    row = {
        "id": spec.id, "data": spec.data, "mode": spec.mode, "epsilon": spec.epsilon,
        "flip": spec.flip if spec.mode == "pessimistic" else "",
        "replica": spec.replica if spec.mode == "pessimistic" else "", "lambda_bound": spec.lambda_bound,
        "w_bar_lb": spec.w_bar_lb, "w_bar_ub": spec.w_bar_ub, "n_train": spec.n_train, "n_val": spec.n_val,
        "seed": spec.seed, "test_fraction": spec.test_fraction, "n_flipped": len(built.flipped),
        "committed": spec.small,
        "rows": mm.A.shape[0], "columns": mm.A.shape[1], "binaries": int(mm.integer.sum()),
        "nonzeros": int(mm.A.count_nonzero()),
        "mps": f"{rel}.mps", "lp": f"{rel}.lp", "names": f"{rel}.names.csv",
    }
    for kind in ("mps", "lp", "names"):
        row[f"{kind}_sha256"] = sha256(out_dir / row[kind])
    row["lambda_max"] = lambda_max_of(built)
    if spec.mode == "optimistic":
        row["lambda_bound"] = ""
    return row


def lambda_max_of(built: BuiltInstance):
    """``Lambda*`` of item 11 of :mod:`bilevel.bigm` for a pessimistic instance: every follower optimum has
    ``lambda <= Lambda*``, so an instance with ``lambda_bound >= Lambda*`` cuts off no bilevel-feasible
    point and its optimum is the pessimistic bilevel optimum. A float (``inf`` for epsilon = 0 or a training
    set the box separates: no such bound); ``""`` for an optimistic instance (no ``lambda``). Raises InputError
    when ``built`` is not a :class:`BuiltInstance`."""
    if not isinstance(built, BuiltInstance):
        raise InputError(f"lambda_max_of needs a BuiltInstance (library.build_instance); got {type(built).__name__}")
    if built.spec.mode == "optimistic":
        return ""
    return float(built.model.bilevel_info["lambda_max"])


def _check_solve_settings(time_limit, mip_gap) -> tuple[float | None, float]:
    """``(time_limit, mip_gap)`` of :func:`solve_instance` as floats; InputError naming a bad one."""
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit (seconds)", allow_inf=True)
    return time_limit, check_mip_gap(mip_gap)


def solve_instance(built: BuiltInstance, time_limit: float | None = TIME_LIMIT, mip_gap: float = MIP_GAP) -> dict:
    """Solve a built instance with HiGHS and return the ``highs_*`` manifest fields.

    The model is compiled by :func:`bilevel.solve.compile_model` (the arrays :func:`bilevel.solve_model`
    hands to HiGHS) and solved with ``time_limit`` seconds and relative gap ``mip_gap``; unlike
    :func:`bilevel.solve_model`, a solve that stops without any feasible solution still reports its
    status and best bound (objective empty, status ``time_limit``). HiGHS's "infeasible" is checked by a second
    run with presolve off in the time left, whose answer is recorded (HiGHS's presolve calls some feasible tuning
    MILPs infeasible; :func:`bilevel.solve_model` checks it alike); ``highs_seconds`` covers both runs (HiGHS's
    run time in seconds, rounded to milliseconds). An incumbent is loaded into the Pyomo variables, its binaries
    rounded to 0 or 1, and checked by :func:`bilevel.verify_model` (``verified``, ``lambda_at_bound``). Fields
    with no value are empty strings (CSV's empty cell): the objective, gap, ``verified`` and ``lambda_at_bound``
    without an incumbent, the best bound when HiGHS has none (an infinite bound), ``time_limit`` when None.

    Raises InputError for a ``built`` that is not a :class:`BuiltInstance`, a ``time_limit`` that is not a
    number > 0 (or None), or a ``mip_gap`` outside [0, 1) (HiGHS rejected such options with a warning only and
    solved with its defaults, while the manifest recorded the bad values)."""
    time_limit, mip_gap = _check_solve_settings(time_limit, mip_gap)
    if not isinstance(built, BuiltInstance):
        raise InputError(f"solve_instance needs a BuiltInstance (library.build_instance); got {type(built).__name__}")
    cm = compile_model(built.model)
    h = silent_highs()
    if time_limit is not None:
        h.setOptionValue("time_limit", time_limit)
    h.setOptionValue("mip_rel_gap", mip_gap)
    h.passModel(cm.lp)
    run_interruptibly(h)  # a Ctrl-C waited for the solve's end (60 s per instance by default)
    check_infeasible_without_presolve(h, time_limit)  # the manifest recorded presolve's wrong "infeasible"
    status_enum = h.getModelStatus()
    status = MANIFEST_STATUS_WORDS.get(status_enum, h.modelStatusToString(status_enum))
    info = h.getInfo()
    out = {"time_limit": "" if time_limit is None else float(time_limit), "mip_gap": mip_gap,
           "highs_version": h.version(), "highs_status": status, "highs_seconds": round(h.getRunTime(), 3),
           "highs_nodes": int(info.mip_node_count), "highs_best_bound": float(info.mip_dual_bound),
           "highs_objective": "", "highs_gap": "", "verified": "", "lambda_at_bound": ""}
    if info.primal_solution_status == 2:
        values = np.asarray(h.getSolution().col_value)
        for var, val in zip(cm.columns, values):
            var.set_value(float(round(val)) if var.is_integer() else float(val), skip_validation=True)
        ver = verify_model(built.model)
        obj = float(info.objective_function_value)
        out.update(highs_objective=obj, highs_gap=float(info.mip_gap), verified=ver.verified,
                   lambda_at_bound="" if ver.lambda_at_bound is None else ver.lambda_at_bound)
    if not np.isfinite(out["highs_best_bound"]):
        out["highs_best_bound"] = ""
    return out


def export_library(
    out_dir="models",
    specs=None,
    time_limit: float | None = TIME_LIMIT,
    mip_gap: float = MIP_GAP,
    solve: bool = True,
    log=print,
) -> list[dict]:
    """Regenerate the instances ``specs`` (default :func:`library_specs`) into ``out_dir`` and update
    ``out_dir/manifest.csv``: rows of regenerated instances are replaced, rows of other instances kept
    (so ``--only-small`` keeps the measurements of the large ones); columns the library does not write (added
    by hand) are kept, empty in the regenerated rows (their values described the old files). With ``solve``
    each instance is solved by HiGHS with ``time_limit`` seconds and relative gap ``mip_gap``; without it the
    HiGHS fields of the regenerated rows are left empty. ``log`` receives one progress line per instance.

    Returns the manifest rows written (typed as :func:`read_manifest` returns them). Raises InputError when two
    different specs have the same :attr:`InstanceSpec.id` (a spec given twice is written once), or an ``out_dir``
    that is not a str or Path, and (with ``solve``) a bad ``time_limit`` or ``mip_gap`` (as :func:`solve_instance`),
    ``specs`` that is not a sequence of InstanceSpec, a ``log`` that is not callable, or an existing manifest with
    a row without an id or an id listed twice, before any instance is built."""
    out_dir = as_path(out_dir, "out_dir")
    if check_flag(solve, "solve"):
        time_limit, mip_gap = _check_solve_settings(time_limit, mip_gap)
    if not callable(log):
        raise InputError(f"log must be a callable (print, for one line per instance); got {type(log).__name__}")
    if specs is not None and (isinstance(specs, InstanceSpec) or not np.iterable(specs)):
        raise InputError(f"specs must be a sequence of InstanceSpec (see library_specs); got {type(specs).__name__}")
    specs = library_specs() if specs is None else list(specs)
    for spec in specs:
        _check_spec(spec, "each of specs")
    by_id: dict = {}
    for spec in specs:  # the id names the files and the manifest row: two specs sharing one would overwrite
        other = by_id.setdefault(spec.id, spec)  # each other (it leaves out lambda_bound, the box, the test
        if other != spec:  # fraction, and prints epsilon to 6 significant digits)
            raise InputError(f"two instances share the id {spec.id!r} (their files would overwrite each other): "
                             f"{other} and {spec}")
    specs = list(by_id.values())
    manifest = out_dir / "manifest.csv"
    old = _existing_rows(manifest)
    new = {}
    for spec in specs:
        t0 = time.perf_counter()
        built = build_instance(spec)
        row = write_instance(spec, out_dir, built)
        if solve:
            row.update(solve_instance(built, time_limit, mip_gap))
        new[spec.id] = row
        _write_merged(manifest, old, new)  # after every instance: an interrupted run keeps what it did
        # logged once the manifest lists the files: a standard output closed by its reader (| head -1) stops the
        # command at this line, which left the instance's new files beside no (or the old) manifest row
        if solve:
            obj, bound = (_short(row[k]) for k in ("highs_objective", "highs_best_bound"))
            log(f"{spec.id:32s} {row['rows']:6d} rows {row['columns']:6d} cols {row['binaries']:5d} bin  "
                f"{row['highs_status']:10s} obj {obj}  bound {bound}  {time.perf_counter() - t0:.1f} s")
        else:
            log(f"{spec.id:32s} {row['rows']:6d} rows {row['columns']:6d} cols {row['binaries']:5d} bin  written")
    return read_manifest(manifest)


def _existing_rows(manifest: Path) -> dict:
    """The rows of an existing ``manifest`` by id ({} when there is none); InputError, before anything is written,
    for a row without an id or an id listed twice (the last row of an id replaced the others without a word, and a
    row without one stopped the merge with a TypeError after the instance files were written)."""
    if not manifest.exists():
        return {}
    rows = read_manifest(manifest)  # (refuses a row without an id, naming its line)
    check_unique_ids(manifest, rows, "keep one row per id before exporting into this folder")
    return {r["id"]: r for r in rows}


def _write_merged(manifest: Path, old: dict, new: dict) -> None:
    order = {s.id: k for k, s in enumerate(library_specs())}
    merged = {**old, **new}
    rows = sorted(merged.values(), key=lambda r: (order.get(r["id"], len(order)), r["id"]))
    write_manifest(rows, manifest)


# ---------------------------------------------------------------------------------------- manifest


def _short(value) -> str:
    return "-" if value is None or value == "" else f"{value:.6g}"


def _cell(value) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return str(value)


def _manifest_rows(rows) -> list[dict]:
    """``rows`` (any iterable of dicts: manifest rows, as :func:`read_manifest` gives) as a list; InputError for
    a string, a dict, a number or rows that are not dicts, which raised TypeError or AttributeError ("'int'
    object has no attribute 'get'") from inside the caller."""
    try:
        listed = None if isinstance(rows, (str, bytes, Mapping)) else list(rows)
    except TypeError:  # not iterable
        listed = None
    if listed is None or not all(isinstance(r, Mapping) for r in listed):
        kind = f"a {type(rows).__name__}" if listed is None else "rows that are not all dicts"
        raise InputError(f"rows must be a list of manifest rows (dicts, as read_manifest gives); got {kind}")
    return listed


def write_manifest(rows, path) -> Path:
    """Write manifest rows (dicts with the keys of :data:`MANIFEST_COLUMNS`; missing keys are empty) as
    CSV. Other keys (columns added to a manifest by hand, which :func:`read_manifest` reads as strings) are
    kept as columns after those of :data:`MANIFEST_COLUMNS`, in the order they first appear in ``rows``
    (they were dropped: re-exporting part of the library lost a column such as ``cplex_objective``). Floats
    are written with full precision, booleans as ``true``/``false``. The CSV is written under a
    temporary name in the same folder and renamed to ``path`` only when complete, so a write that fails or
    is interrupted (a bad row, a full disk, Ctrl-C) leaves an existing manifest unchanged; a symbolic link is
    written through (the link stays) and an existing file keeps its permissions. UTF-8. Returns the path.
    Raises InputError for ``rows`` that are not a list of dicts, a column name that is not a string, or when the
    folder or the file cannot be written (``path`` not a str or Path included)."""
    path = as_path(path, "path (the manifest)")
    rows = _manifest_rows(rows)  # all rows before the header: a column may first appear in the last row
    known = set(MANIFEST_COLUMNS)
    extra = list(dict.fromkeys(k for r in rows for k in r if k not in known))
    if any(not isinstance(k, str) for k in extra):
        raise InputError(f"manifest column names must be strings; got {[k for k in extra if not isinstance(k, str)]}")
    columns = MANIFEST_COLUMNS + extra

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(columns)
            for r in rows:
                w.writerow([_cell(r.get(c, "")) for c in columns])

    replace_atomically(path, write)
    return path


def read_manifest(path) -> list[dict]:
    """Read a manifest CSV into dicts with typed values: ints for sizes and counts, floats for
    parameters and HiGHS numbers, bools for ``committed``/``verified``/``lambda_at_bound``, ``None`` for
    empty cells, strings otherwise (also in columns not in :data:`MANIFEST_COLUMNS`, which are kept). Raises
    InputError for a missing file or a folder, a file that is not UTF-8 CSV text, missing columns, a column named
    twice in the header, a row with more or fewer cells than the header, a size, count or number cell that does not
    parse (digits grouped by ``_`` included), or a ``committed``/``verified``/``lambda_at_bound`` cell other than
    ``true`` or ``false`` (any case) or empty, and for a ``path`` that is not a str or Path."""
    path = as_path(path, "path (the manifest)")
    # a folder was "not found", though it is there (export-library --out X with a folder X/manifest.csv)
    check_regular_file(path, "manifest")
    try:
        return _read_manifest_rows(path)
    except (UnicodeDecodeError, csv.Error) as exc:  # raw tracebacks from the csv module and the decoder
        raise InputError(f"{str(path)!r} is not a readable CSV manifest (UTF-8 text): {exc}") from None


def _read_manifest_rows(path: Path) -> list[dict]:
    # utf-8-sig: a manifest saved by a spreadsheet starts with a byte-order mark, which made the first column
    # "\ufeffid" and the file "not an instance manifest (missing columns ['id'])"
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in ("id", "data", "mode", "mps") if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{str(path)!r} is not an instance manifest (missing columns {missing})")
        twice = sorted({c for c in reader.fieldnames if reader.fieldnames.count(c) > 1})
        if twice:  # csv keeps the last cell of a repeated column and drops the others without a word
            raise InputError(f"{str(path)!r}: column(s) {twice} appear more than once in the header")
        rows = []
        for raw in reader:
            line = reader.line_num  # the file's line (a record counter named line 3 for a row after two blank lines)
            if None in raw:  # csv keeps the cells past the header under the key None: columns out of step
                raise InputError(f"{str(path)!r}, line {line}: more cells than the header has columns "
                                 f"({len(raw[None])} more)")
            short = [k for k, v in raw.items() if v is None]
            if short:  # csv gives the missing cells None, which read as empty cells without a word
                raise InputError(f"{str(path)!r}, line {line}: fewer cells than the header has columns "
                                 f"({len(short)} missing, from {short[0]!r})")
            row = {}
            for k, v in raw.items():
                if v == "":
                    row[k] = None
                elif k in _INT_COLUMNS or k in _FLOAT_COLUMNS:
                    try:
                        if "_" in v:  # Python's int and float read "1_0" as 10
                            raise ValueError(v)
                        row[k] = int(v) if k in _INT_COLUMNS else float(v)
                    except ValueError:
                        kind = "an integer" if k in _INT_COLUMNS else "a number"
                        raise InputError(f"{str(path)!r}, line {line}: column {k!r} must hold {kind}, "
                                         f"got {v!r}") from None
                elif k in _BOOL_COLUMNS:
                    word = v.strip().lower()
                    if word not in ("true", "false"):  # "1", "yes", "TRUE." were read as False without a word
                        raise InputError(f"{str(path)!r}, line {line}: column {k!r} must hold true or false, "
                                         f"got {v!r}")
                    row[k] = word == "true"
                else:
                    row[k] = v
            _check_id_cell(path, line, raw["id"])
            rows.append(row)
    return rows


def _check_id_cell(path: Path, line: int, cell: str) -> None:
    """InputError naming the file's ``line`` for an ``id`` cell that is empty, only spaces, or starts or ends with
    a space: the id names the instance's files and is matched exactly (" a" was an instance no pattern ``a``
    selected, and an empty id stopped ``export-library``'s merge with a TypeError)."""
    if not cell.strip():
        raise InputError(f"{str(path)!r}, line {line}: the row has no id")
    if cell != cell.strip():
        raise InputError(f"{str(path)!r}, line {line}: the id {cell!r} starts or ends with a space")


def check_unique_ids(manifest, rows, advice: str) -> None:
    """InputError when two of the manifest ``rows`` (dicts from :func:`read_manifest` of the file ``manifest``)
    share an id, naming the ids and ending with ``advice`` (what to do). Used by ``export-library``, whose merge kept
    only the last row of an id without a word, and by ``solvers.compare``, which wrote one row's solution over the
    other's. No equation."""
    twice = repeated_values(row.get("id") for row in rows)
    if twice:
        raise InputError(f"{str(manifest)!r} lists the instance id(s) {', '.join(map(repr, twice))} more than once; "
                         f"{advice}")


def select_rows(rows, patterns=(), max_size: int | None = None, committed_only: bool = False) -> list[dict]:
    """Manifest rows whose id matches any of the shell ``patterns`` (all when empty), with
    ``max(n_train, n_val) <= max_size`` and, with ``committed_only``, only committed instances. Raises
    InputError for a row without an id (with ``patterns``) or without integer sizes (with ``max_size``), as
    :func:`read_manifest` reads empty cells (a raw TypeError or KeyError before), for ``patterns`` that are not a
    list of strings (a lone string was read as one pattern per character: ``"c*"`` matched every id), a
    ``max_size`` that is not an integer (or None), a ``committed_only`` that is not a bool, or ``rows`` that are
    not a list of dicts."""
    rows = _manifest_rows(rows)
    if isinstance(patterns, (str, bytes)) or not isinstance(patterns, (list, tuple, set, frozenset)) \
            or not all(isinstance(p, str) for p in patterns):
        raise InputError(f"patterns must be a list of shell patterns (strings); got {value_text(patterns, limit=80)}")
    if max_size is not None:
        max_size = check_count(max_size, "max_size")
    committed_only = check_flag(committed_only, "committed_only")
    out = []
    for r in rows:
        if patterns and not isinstance(r.get("id"), str):
            raise InputError(f"a manifest row has no id to match {list(patterns)} against: {r!r:.100}")
        if patterns and not any(fnmatch.fnmatch(r["id"], p) for p in patterns):
            continue
        sizes = (r.get("n_train"), r.get("n_val"))
        if max_size is not None and not all(isinstance(v, int) and not isinstance(v, bool) for v in sizes):
            raise InputError(f"manifest row {r.get('id')!r} has no integer n_train and n_val (needed by the size "
                             f"limit); got {sizes}")
        if max_size is not None and max(sizes) > max_size:
            continue
        if committed_only and not r.get("committed"):
            continue
        out.append(r)
    return out


# -------------------------------------------------------------------------------- file comparison


def _check_complete(path: Path) -> None:
    """InputError when the ``.mps`` / ``.lp`` file ``path`` (plain or gzip) does not end with its closing line,
    ``ENDATA`` / ``end``: HiGHS 1.15 read an MPS file cut inside its COLUMNS section (e.g. after ``    C6``) as
    a model of the first columns only, and an LP file cut inside its first comment as an empty model, without a
    warning. Other suffixes are left to HiGHS."""
    import gzip

    suffixes = [s.lower() for s in path.suffixes]
    kind = suffixes[-2] if suffixes[-1:] == [".gz"] and len(suffixes) > 1 else suffixes[-1] if suffixes else ""
    closing = {".mps": "ENDATA", ".lp": "end"}.get(kind)
    comment = {".mps": "*", ".lp": "\\"}.get(kind)
    if closing is None:
        return
    with open(path, "rb") as fh:
        packed = fh.read(2) == b"\x1f\x8b"
    last = ""
    try:
        with (gzip.open(path, "rt", errors="replace") if packed else open(path, errors="replace")) as fh:
            for line in fh:
                text = line.strip()
                if text and not text.startswith(comment):
                    last = text  # the last line that is neither blank nor a comment
    except (OSError, EOFError) as exc:  # a cut-off gzip stream: "Compressed file ended before the end-of-stream"
        raise InputError(f"{str(path)!r} cannot be read to its end ({exc}): the file is truncated or damaged") from None
    if last.lower() != closing.lower():
        raise InputError(f"{str(path)!r} does not end with {closing} (its last line is {last[:40]!r}): the file is "
                         "truncated or damaged")


def read_instance_arrays(path) -> dict:
    """Read an ``.mps`` or ``.lp`` file with HiGHS and return its arrays: ``cost``, ``col_lower``,
    ``col_upper``, ``row_lower``, ``row_upper`` (numpy), ``integer`` (bool), ``A`` (scipy CSR, rows x
    columns), ``col_names``, ``row_names``. Raises InputError when HiGHS cannot read the file, or when an ``.mps``
    / ``.lp`` file (``.gz`` too) does not end with ``ENDATA`` / ``end`` (cut short: HiGHS read some such files as
    a smaller model), and for a ``path`` that is not a str or Path."""
    import highspy

    path = as_path(path, "path (the instance file)")
    check_regular_file(path, "instance file")
    _check_complete(path)
    h = silent_highs()
    if h.readModel(str(path)) == highspy.HighsStatus.kError:
        raise InputError(f"HiGHS cannot read {str(path)!r}")
    lp = h.getLp()
    n_col = lp.num_col_
    A = lp_matrix(lp).tocsr()
    integ = np.zeros(n_col, dtype=bool)
    if len(lp.integrality_):
        integ = np.array([t == highspy.HighsVarType.kInteger for t in lp.integrality_])
    return {
        "cost": np.asarray(lp.col_cost_, dtype=float), "offset": float(lp.offset_),
        "sense": "max" if lp.sense_ == highspy.ObjSense.kMaximize else "min",
        "col_lower": np.asarray(lp.col_lower_, dtype=float), "col_upper": np.asarray(lp.col_upper_, dtype=float),
        "row_lower": np.asarray(lp.row_lower_, dtype=float), "row_upper": np.asarray(lp.row_upper_, dtype=float),
        "integer": integ, "A": A, "col_names": list(lp.col_names_), "row_names": list(lp.row_names_),
    }


def _close(a: np.ndarray, b: np.ndarray, rtol: float) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        return (a == b) | (np.abs(a - b) <= rtol * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b))))


def instance_differences(expected, actual, rtol: float = 1e-9) -> list[str]:
    """Compare two instance files (``.mps`` or ``.lp``) as models, not as bytes: dimensions, names,
    integrality, bounds, costs and matrix entries (values within relative ``rtol``, scaled by
    ``max(1, |value|)``). Returns human-readable differences, empty when the files encode the same model
    up to round-off. Raises InputError when a file cannot be read."""
    a, b = read_instance_arrays(expected), read_instance_arrays(actual)
    diffs = []
    shape_a, shape_b = a["A"].shape, b["A"].shape
    if shape_a != shape_b:
        return [f"size differs: {shape_a[0]} rows x {shape_a[1]} columns expected, {shape_b[0]} x {shape_b[1]} found"]
    for key in ("col_names", "row_names"):
        if a[key] != b[key]:
            k = next((i for i, (x, y) in enumerate(zip(a[key], b[key])) if x != y), None)
            diffs.append(f"{key} differ (first at position {k}: {a[key][k]!r} vs {b[key][k]!r})")
    if a["sense"] != b["sense"] or a["offset"] != b["offset"]:
        diffs.append("objective sense or constant differs")
    if not np.array_equal(a["integer"], b["integer"]):
        diffs.append(f"integrality differs in {int(np.sum(a['integer'] != b['integer']))} columns")
    for key in ("cost", "col_lower", "col_upper", "row_lower", "row_upper"):
        bad = ~_close(a[key], b[key], rtol)
        if bad.any():
            k = int(np.nonzero(bad)[0][0])
            diffs.append(f"{key} differs in {int(bad.sum())} entries (first at {k}: {a[key][k]!r} vs {b[key][k]!r})")
    A, B = a["A"].tocoo(), b["A"].tocoo()
    pa = set(zip(A.row.tolist(), A.col.tolist()))
    pb = set(zip(B.row.tolist(), B.col.tolist()))
    if pa != pb:
        diffs.append(f"matrix pattern differs: {len(pa - pb)} entries only in the expected file, "
                     f"{len(pb - pa)} only in the new one")
    else:
        da, db = a["A"].toarray() if A.nnz < 4_000_000 else None, b["A"].toarray() if B.nnz < 4_000_000 else None
        if da is not None and db is not None:
            bad = ~_close(da, db, rtol)
            if bad.any():
                diffs.append(f"matrix values differ in {int(bad.sum())} entries")
    return diffs
