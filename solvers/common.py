"""The part every runner shares: the result record, the solver registry, solution files, the agreement
rule against the manifest, and the comparison table.

A runner is a module of this package with ``NAME``, ``available() -> bool``, ``version() -> str`` and
``solve(path, time_limit=None, mip_gap=None) -> RunResult``; it only translates between one solver's API
and :class:`RunResult`.
"""
from __future__ import annotations

import csv
import importlib
import importlib.util
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from bilevel.errors import InputError

#: Runner modules by solver name.
RUNNERS = {"highs": "solvers.highs", "scip": "solvers.scip", "cbc": "solvers.cbc"}

#: Normalised statuses a runner reports.
STATUSES = ("optimal", "time_limit", "infeasible", "unbounded", "infeasible_or_unbounded", "no_solution", "error",
            "unavailable", "missing")


@dataclass
class RunResult:
    """One solve of one instance file by one solver.

    ``status``: one of :data:`STATUSES` (``time_limit`` may come with or without an incumbent);
    ``objective``: the incumbent's objective (for the library's models the mean validation hinge loss,
    dimensionless) or ``None``; ``bound``: the solver's proven bound (lower when minimising, upper when
    maximising) or ``None``; ``seconds``: wall-clock seconds of the whole
    adapter call (reading the file and solving); ``solver_seconds``: the time the solver reports;
    ``nodes``: branch-and-bound nodes (``None`` if unknown); ``solution``: ``{column name: value}`` of the
    incumbent with the names of the file (may omit zeros); ``message``: free text (errors)."""

    solver: str
    path: str
    status: str
    objective: float | None = None
    bound: float | None = None
    seconds: float | None = None
    solver_seconds: float | None = None
    nodes: int | None = None
    solution: dict = field(default_factory=dict, repr=False)
    message: str = ""


def get_runner(name: str):
    """The runner module of solver ``name`` (``highs``, ``scip``, ``cbc``). Raises InputError for an
    unknown name."""
    key = name.lower()
    if key not in RUNNERS:
        raise InputError(f"unknown solver {name!r}; known: {', '.join(RUNNERS)}")
    return importlib.import_module(RUNNERS[key])


def check_instance_path(path) -> Path:
    """``path`` as a Path; raises InputError unless it is an existing ``.mps`` or ``.lp`` file."""
    path = Path(path)
    if path.suffix.lower() not in (".mps", ".lp"):
        raise InputError(f"{str(path)!r}: instance files must end in .mps or .lp")
    if not path.is_file():
        raise InputError(f"instance file {str(path)!r} not found")
    return path


def is_maximisation(path) -> bool:
    """Whether the instance file at ``path`` (``.mps`` or ``.lp``) maximises its objective: an MPS
    ``OBJSENSE`` section (or line) whose entry starts with ``MAX``, read up to the ``ROWS`` section, or an
    LP file whose first line that is not a comment (``\\``) starts with ``max`` (max, maximize, maximise,
    maximum). The package's own models all minimise; CBC 2.10 ignores ``OBJSENSE`` in MPS files (it
    minimises a maximisation model) and prints its search's objective values in minimisation sense, so
    :mod:`solvers.cbc` needs this. Raises InputError as :func:`check_instance_path`."""
    path = check_instance_path(path)
    with path.open(errors="replace") as fh:
        if path.suffix.lower() == ".lp":
            for line in fh:
                text = line.strip()
                if text and not text.startswith("\\"):
                    return text.lower().startswith("max")
            return False
        expect_sense = False
        for line in fh:
            tokens = line.split()
            if not tokens or line.startswith("*"):
                continue
            if expect_sense:
                return tokens[0].upper().startswith("MAX")
            head = tokens[0].upper()
            if head == "ROWS":
                return False
            if head == "OBJSENSE":
                if len(tokens) > 1:
                    return tokens[1].upper().startswith("MAX")
                expect_sense = True
    return False


def finite_or_none(value) -> float | None:
    """``float(value)`` when finite and below 1e20 in magnitude (solvers' infinity), else ``None``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and abs(v) < 1e20 else None


# ------------------------------------------------------------------------------------ solution files

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$", re.IGNORECASE)
_OBJ_PATTERNS = [
    re.compile(r"objective\s+value\s*[:=]\s*(\S+)", re.IGNORECASE),  # SCIP "objective value: x", Gurobi
    re.compile(r"objective\s+value\s+(\S+)", re.IGNORECASE),  # CBC "Optimal - objective value x"
    re.compile(r"^\s*objective\s*[:=,]?\s*(\S+)\s*$", re.IGNORECASE),  # "objective, x" in a CSV
]


def read_solution_file(path) -> tuple[dict, float | None]:
    """Read a solution file: returns ``({variable name: value}, claimed objective or None)``.

    Accepted, detected line by line: CSV ``name,value`` (with or without a header row; a row
    ``objective,<x>`` gives the claimed objective); SCIP ``.sol`` (``objective value: x`` then
    ``name value (obj:c)``); CBC ``-solution`` output (``Optimal - objective value x`` then
    ``index name value reduced_cost``, infeasible rows marked ``**``); Gurobi ``.sol``
    (``# Objective value = x`` then ``name value``); HiGHS ``writeSolution`` files (only the primal column
    values, ``# Columns n`` after ``# Primal solution values``; ``Objective x``), and their "pretty" style (a
    ``Columns`` table of ``Index [Status] Lower Upper Primal [Dual] Type Name``; values rounded to 6 significant
    digits); and any other ``name value``
    lines. ``#`` lines are comments. Solvers omit zero values; callers decide what an absent variable means.

    A claimed objective of 1e20 or more in magnitude (a solver's infinity) counts as no claim.

    Raises InputError when the file is missing, holds no ``name value`` line, gives a variable or the
    objective a value that is not finite (``nan``, ``inf``), gives one variable two different values, or is
    CBC's report of an infeasible or unbounded model (first line ``Infeasible - ...``, ``Integer infeasible -
    ...``, ``Unbounded - ...``: the values it lists are no solution)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"solution file {str(path)!r} not found")
    lines = path.read_text(errors="replace").splitlines()
    first = next((line.strip() for line in lines if line.strip()), "")
    if re.match(r"(integer )?(infeasible|unbounded)\b", first, re.IGNORECASE):
        raise InputError(f"{str(path)!r} says {first.split(' - ')[0]!r}: it holds no solution")
    if any(line.strip() == "# Primal solution values" for line in lines):
        return _read_highs_solution(path, lines)
    if first == "Columns":
        return _read_highs_pretty(path, lines)
    values, objective = {}, None
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        for pat in _OBJ_PATTERNS:
            m = pat.search(line)
            if m and _NUMBER.match(m.group(1).rstrip(",")):
                objective = _claimed_objective(path, m.group(1).rstrip(","))
                break
        else:
            m = None
        if m or line.startswith("#") or line.lower().startswith(("solution status", "model status")):
            continue
        tokens = [t.strip("\"'") for t in re.split(r"[,\s]+", line.replace("**", " ")) if t.strip("\"'")]
        if len(tokens) >= 3 and tokens[0].isdigit() and _NUMBER.match(tokens[2]):  # CBC
            _store(values, tokens[1], tokens[2], path)
        elif len(tokens) >= 2 and _NUMBER.match(tokens[1]):  # name value [(obj:c)]
            _store(values, tokens[0], tokens[1], path)
    if not values:
        raise InputError(f"{str(path)!r} holds no 'name value' lines: not a solution file")
    return values, objective


def _store(values: dict, name: str, text: str, path: Path) -> None:
    """``values[name] = float(text)``; InputError for a value that is not finite or a second, different
    value of the same name."""
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{str(path)!r} gives variable {name!r} the value {text!r}: not a finite number")
    if name in values and values[name] != value:
        raise InputError(f"{str(path)!r} gives variable {name!r} two values, {values[name]!r} and {value!r}")
    values[name] = value


def _claimed_objective(path: Path, text: str) -> float | None:
    """The claimed objective ``text`` as a float, None for a solver's infinity (1e20 or more); InputError
    for ``nan`` or ``inf``."""
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{str(path)!r} claims the objective {text!r}: not a finite number")
    return finite_or_none(value)


def _read_highs_solution(path: Path, lines: list) -> tuple[dict, float | None]:
    """The primal column values and objective of a HiGHS ``writeSolution`` file (its row values, duals and
    basis hold ``name value`` lines too and are skipped)."""
    k = next(k for k, line in enumerate(lines) if line.strip() == "# Primal solution values")
    values, objective, in_columns = {}, None, False
    for raw in lines[k + 1:]:
        line = raw.strip()
        if line.startswith("# Columns"):
            in_columns = True
        elif line.startswith("#"):
            if in_columns:
                break  # "# Rows": the column values are done
        elif in_columns and line:
            tokens = line.split()
            if len(tokens) == 2 and _NUMBER.match(tokens[1]):
                _store(values, tokens[0], tokens[1], path)
        elif line.startswith("Objective") and len(line.split()) == 2 and _NUMBER.match(line.split()[1]):
            objective = _claimed_objective(path, line.split()[1])
    if not values:
        raise InputError(f"{str(path)!r} holds no primal column values: not a solution file")
    return values, objective


def _read_highs_pretty(path: Path, lines: list) -> tuple[dict, float | None]:
    """The primal column values and objective of a HiGHS "pretty" solution file (``writeSolution(file, 1)``,
    ``--write_solution_style 1``): a ``Columns`` table ``Index [Status] Lower Upper Primal [Dual] Type Name``,
    a ``Rows`` table, ``Model status: ...`` and ``Objective value: x``. Its values have 6 significant digits.
    InputError when a column has no primal value (HiGHS had no solution to write, e.g. an infeasible model)."""
    k = next(k for k, line in enumerate(lines) if line.strip() == "Columns") + 1
    header = lines[k].split() if k < len(lines) else []
    if header[:1] != ["Index"] or "Primal" not in header or header[-1:] != ["Name"]:
        raise InputError(f"{str(path)!r} starts with 'Columns' but not with a HiGHS column table: not a solution file")
    status = next((line.split(":", 1)[1].strip() for line in lines if line.lower().startswith("model status:")), "?")
    last = -2 if "Type" in header else -1  # a MIP's table has a Type column before the Name
    values, objective = {}, None
    for raw in lines[k + 1:]:
        tokens = raw.split()
        if not tokens or not tokens[0].isdigit():
            break  # "Rows": the column values are done
        numbers = [t for t in tokens[1:last] if _NUMBER.match(t)]  # Lower, Upper, Primal[, Dual]; no Status
        if len(numbers) < 3:
            raise InputError(f"{str(path)!r} is a HiGHS solution file without primal values (model status: "
                             f"{status}): it holds no solution")
        _store(values, tokens[-1], numbers[2], path)
    for raw in lines:
        m = re.match(r"\s*objective value:\s*(\S+)\s*$", raw, re.IGNORECASE)
        if m and _NUMBER.match(m.group(1)):
            objective = _claimed_objective(path, m.group(1))
    if not values:
        raise InputError(f"{str(path)!r} holds no primal column values: not a solution file")
    return values, objective


def write_solution_csv(result: RunResult, path) -> Path:
    """Write a run's incumbent as CSV: ``objective,<x>`` then ``name,value`` rows (17 significant digits).
    Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["name", "value"])
        if result.objective is not None:
            w.writerow(["objective", repr(float(result.objective))])
        for name, value in result.solution.items():
            w.writerow([name, repr(float(value))])
    return path


# ------------------------------------------------------------------------------------------ agreement


def close(a: float, b: float, rtol: float, atol: float) -> bool:
    """``|a - b| <= atol + rtol * max(|a|, |b|)``."""
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def agreement(row: dict, result: RunResult, rtol: float = 1e-4, atol: float = 1e-6,
              maximise: bool = False) -> str:
    """Compare a run with the manifest row's HiGHS result (objective ``highs_objective``, bound
    ``highs_best_bound``, status ``highs_status``). ``maximise``: the instance maximises (see
    :func:`is_maximisation`), so a proven bound lies above the objective; "below" and "better" below read
    in the minimisation sense, and a maximisation instance is compared with every value negated. Returns
    one word:

    ``agree``    both proved optimality and the objectives agree (``|a - b| <= atol + rtol max(|a|, |b|)``);
    ``consistent`` at least one side is not optimal and the intervals [bound, objective] overlap;
    ``closes``   the manifest instance is open (HiGHS not optimal) and this solver proved an optimum
                 inside HiGHS's [bound, incumbent] interval;
    ``DISAGREE`` the answers contradict each other (different optima, or one side's objective below the
                 other's proven bound);
    ``n/a``      nothing to compare (no manifest result, or the run failed).
    """
    if result.status in ("error", "unavailable", "missing"):
        return "n/a"
    m_status, m_obj, m_bound = row.get("highs_status"), row.get("highs_objective"), row.get("highs_best_bound")
    if m_status is None:
        return "n/a"
    if result.status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        return "DISAGREE" if m_obj is not None else "n/a"
    s_obj, s_bound = result.objective, result.bound
    if maximise:  # the same rule on the negated objective: max f = -min(-f)
        s_obj, s_bound, m_obj, m_bound = (None if v is None else -v for v in (s_obj, s_bound, m_obj, m_bound))
    s_opt, m_opt = result.status == "optimal", m_status == "optimal"
    if s_opt and s_bound is None:
        s_bound = s_obj
    if m_opt and m_bound is None:
        m_bound = m_obj

    def below(obj, bound):  # obj is below a proven bound beyond tolerance
        return obj is not None and bound is not None and obj < bound and not close(obj, bound, rtol, atol)

    if below(s_obj, m_bound) or below(m_obj, s_bound):
        return "DISAGREE"
    if s_opt and m_opt:
        return "agree" if s_obj is not None and m_obj is not None and close(s_obj, m_obj, rtol, atol) else "DISAGREE"
    if s_opt and not m_opt:
        if m_obj is not None and s_obj is not None and s_obj > m_obj and not close(s_obj, m_obj, rtol, atol):
            return "DISAGREE"  # HiGHS's incumbent is better than this solver's "optimum"
        return "closes"
    return "consistent"


# -------------------------------------------------------------------------------------------- table


def _num(v, digits: int = 6) -> str:
    return "-" if v is None else f"{v:.{digits}g}"


def format_table(records: list[dict]) -> str:
    """Render comparison records (dicts with ``instance``, ``format``, ``solver``, ``status``,
    ``objective``, ``bound``, ``seconds``, ``manifest_status``, ``manifest_objective``, ``agreement`` and
    optionally ``check``) as a Markdown table."""
    has_check = any(r.get("check") for r in records)
    head = ["instance", "file", "solver", "status", "objective", "bound", "time [s]", "HiGHS (manifest)", "agreement"]
    if has_check:
        head.append("solution check")
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for r in records:
        manifest = (f"{_num(r['manifest_objective'])} ({r['manifest_status']})" if r.get("manifest_status")
                    else "-")
        cells = [r["instance"], r["format"], r["solver"], r["status"], _num(r["objective"]), _num(r["bound"]),
                 "-" if r["seconds"] is None else f"{r['seconds']:.2f}", manifest, r["agreement"]]
        if has_check:
            cells.append(r.get("check") or "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def importable(module: str) -> bool:
    """True when ``module`` can be imported here (a solver's Python interface is installed)."""
    return importlib.util.find_spec(module) is not None
