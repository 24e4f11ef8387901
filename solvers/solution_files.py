"""Solution files: reading another solver's answer (CSV, SCIP, CBC, Gurobi, HiGHS raw and pretty styles, CPLEX
XML) into ``{variable name: value}`` and a claimed objective, and writing a run's incumbent as CSV."""
from __future__ import annotations

import csv
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from bilevel.errors import InputError
from bilevel.export import replace_atomically
from bilevel.validation import as_path, check_regular_file, check_utf8_text

from .common import LP_SENSE, RunResult, finite_or_none, lp_lines

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$", re.IGNORECASE)
_OBJ_PATTERNS = [
    # SCIP "objective value: x", Gurobi "# Objective value = x", a CSV row "objective value,x" (was dropped: its
    # name "objective value" is no variable and its claim went unchecked)
    re.compile(r"objective\s+value\s*[:=,]\s*(\S+)", re.IGNORECASE),
    re.compile(r"objective\s+value\s+(\S+)", re.IGNORECASE),  # CBC "Optimal - objective value x"
    # "objective, x" in a CSV (and "objective: x", "objective = x"); not "objective x", the line of a column named
    # objective in a "name value" file (a Gurobi .sol: it was taken for a second claim, or the column was dropped)
    re.compile(r"^\s*objective\s*[:=,]\s*(\S+)\s*$", re.IGNORECASE),
]
#: The first line of a CBC ``-solution`` file: ``<status> - objective value <x>``.
_CBC_HEADER = re.compile(r"^(?P<status>[a-z].*?)\s+-\s+objective\s+value\s+\S+\s*$", re.IGNORECASE)
#: CBC statuses whose values are a solution: a proven optimum (also within the gap tolerance) and the incumbent of
#: a branch and bound stopped by its time limit (CBC 2.10 writes "Stopped on time" only from a branch and bound,
#: and adds "(no integer solution - continuous used)" when it has no incumbent). Not "Stopped on iterations": CBC
#: 2.10 writes it both for a branch and bound's incumbent (node or solution limit) and for Clp's current iterate
#: when the linear solve stops on its time or iteration limit, without that mark (the infeasible point (0, 0) of
#: min x + 2 y, x + y >= 1; y = 0.5 for an integer y), so the file cannot say which; nor "Stopped on
#: difficulties", "Stopped on ctrl-c" (the same two cases) or "Status unknown".
_CBC_SOLUTION_STATUSES = ("optimal", "optimal (within gap tolerance)", "stopped on time")


def read_solution_file(path) -> tuple[dict, float | None]:
    """Read a solution file: returns ``({variable name: value}, claimed objective or None)``.

    Accepted, detected line by line: CSV ``name,value`` (with or without a header row; a row
    ``objective,<x>`` or ``objective value,<x>`` gives the claimed objective; a file whose header is exactly
    ``name,value``, as :func:`write_solution_csv` writes, is read as CSV, so quoted names keep their commas
    and quotes; ``objective: x`` and ``objective = x`` lines claim it too, while ``objective x`` is the value of a
    column named objective, as in a Gurobi ``.sol``); SCIP ``.sol``
    (``objective value: x`` then ``name value (obj:c)``); CBC ``-solution`` output (``Optimal - objective value x`` then
    ``index name value reduced_cost``, infeasible rows marked ``**``); Gurobi ``.sol``
    (``# Objective value = x`` then ``name value``); HiGHS ``writeSolution`` files (only the primal column
    values, ``# Columns n`` after ``# Primal solution values``; ``Objective x``), and their "pretty" style (a
    ``Columns`` table of ``Index [Status] Lower Upper Primal [Dual] Type Name``; values rounded to 6 significant
    digits); CPLEX's XML ``.sol`` (``<CPLEXSolution>``: ``objectiveValue`` in its header, ``<variable name=...
    value=.../>``; of a ``<CPLEXSolutions>`` pool, the incumbent, ``solutionIndex="-1"``, else the first); and
    any other ``name value`` (or ``name: value``) lines. ``#`` lines are comments. Solvers omit zero values;
    callers decide what an absent variable means.

    A claimed objective of 1e20 or more in magnitude (a solver's infinity) counts as no claim.

    Raises InputError when the file is missing or a folder, is UTF-16 or UTF-32 text, is an LP or MPS model file
    (:func:`_model_file_kind`: an instance file given for its solution), holds no ``name value`` line, gives a
    variable or the objective a value that is not finite (``nan``, ``inf``), has a CSV row without a value (``C5,``,
    ``objective,``) or with two numbers after the name (``C5,1,5``: a decimal comma) or of one field (``C5``), a
    number with a comma in a whitespace-separated line (``C5 1,5``, ``C5 1,000``), a ``;`` in a CSV row (a
    semicolon-separated file; named also where no line holds a value, ``C5;1``), a missing-value marker as a value
    (``C5,NA``, ``C5 ?``, ``C5,.``), gives one variable two different values or claims two different objectives
    (``objective value: 0.25`` and later ``0.5``: the last was checked), or is CBC's report of an infeasible or
    unbounded model or of a run stopped without an integer point (first line ``Infeasible - ...``, ``Integer
    infeasible - ...``, ``Unbounded - ...``, ``Stopped on time (no integer solution - continuous used) - ...``: the
    values it lists are no solution) or of a status other than ``Optimal``, ``Optimal (within gap tolerance)`` or
    ``Stopped on time`` (``Stopped on iterations``, ``Stopped on difficulties``, ``Stopped on ctrl-c``, ``Status
    unknown``: CBC writes them also for Clp's current point, which need not be feasible, see
    :data:`_CBC_SOLUTION_STATUSES`), or a HiGHS raw-style file whose primal status is ``None`` or ``Infeasible``
    (e.g. an LP stopped by its iteration limit), or a CPLEX solution whose header says ``primalFeasible="0"``, or
    XML that is not a CPLEX solution, and when ``path`` is not a path (:func:`bilevel.validation.as_path`)."""
    path = as_path(path, "solution file")
    check_regular_file(path, "solution file")  # a folder was "not found"; /dev/null is not a regular file
    check_utf8_text(path, "solution file")  # UTF-16 was read as replacement characters: "no 'name value' lines"
    # utf-8-sig: a byte-order mark (Notepad, Excel) made the first name "\ufeffC0", an unknown name, and C0 then 0
    lines = path.read_text(encoding="utf-8-sig", errors="replace").splitlines()
    if (kind := _model_file_kind(lines)) is not None:  # an .lp was "gives variable '<=' two values, -1.0 and 0.0"
        raise InputError(f"{str(path)!r} is {kind}, not a solution file: expected {SOLUTION_KINDS}")
    first = next((line.strip() for line in lines if line.strip()), "")
    if re.match(r"(integer )?(infeasible|unbounded)\b", first, re.IGNORECASE) or "no integer solution" in first:
        # the second: CBC stopped before any integer point and wrote the linear relaxation's values
        raise InputError(f"{str(path)!r} says {first.split(' - ')[0]!r}: it holds no solution")
    cbc = _CBC_HEADER.match(first)
    if cbc and " ".join(cbc.group("status").lower().split()) not in _CBC_SOLUTION_STATUSES:
        raise InputError(f"{str(path)!r} says {cbc.group('status')!r}: CBC writes this status also for a stopped "
                         "linear solve's current point, so its values are not known to be a solution (CBC's "
                         "solutions are marked 'Optimal' or 'Stopped on time'; solve again without the limit)")
    if any(line.strip() == "# Primal solution values" for line in lines):
        return _read_highs_solution(path, lines)
    if first == "Columns":
        return _read_highs_pretty(path, lines)
    if first.startswith("<?xml") or first.startswith("<CPLEXSolution"):
        return _read_cplex_solution(path)
    if next(csv.reader([first]), None) == ["name", "value"]:  # write_solution_csv's header (or quoted)
        return _read_name_value_csv(path)
    values, objective = {}, None
    # a CSV file (a line other than a comment holds a comma): a line of one field is a row that lost its value
    is_csv = any("," in line for line in lines if not line.strip().startswith("#"))
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        plain = line.replace('"', "").replace("'", "")  # a CSV writer may quote every field: "objective","0.5"
        for pat in _OBJ_PATTERNS:
            m = pat.search(plain)
            if m and _NUMBER.match(m.group(1).rstrip(",")):
                objective = _claimed_objective(path, m.group(1).rstrip(","), objective)
                break
            if m and _malformed(m.group(1).rstrip(",")):  # was dropped: the claim went unchecked
                raise InputError(f"{str(path)!r} claims the objective {m.group(1)!r}: not a number")
        else:
            m = None
        if m or line.startswith("#") or line.lower().startswith(("solution status", "model status")):
            continue
        if is_csv and re.fullmatch(r"[A-Za-z_][\w\[\]().]*", plain):  # a name alone, "C5", was skipped: C5 then 0
            raise InputError(f"{str(path)!r} gives no value in the line {line!r} (a CSV row of one field)")
        if "," in plain:  # a CSV row (no other format uses commas): "C5," (its value lost) was skipped, C5 then 0,
            # and "C5,1,5" (a decimal comma) was read as C5 = 1; "objective," dropped the claim
            fields = [f.strip() for f in plain.split(",")]
            if len(fields) == 2 and fields[0] and not fields[1]:
                raise InputError(f"{str(path)!r} gives no value in the line {line!r}")
            if len(fields) >= 3 and _NUMBER.match(fields[1]) and _NUMBER.match(fields[2]):
                raise InputError(f"{str(path)!r} has two numbers after the name in the line {line!r}: a decimal "
                                 "comma? (write CSV values with a decimal point)")
            if ";" in fields[0]:  # "C0;1,5" was read as a variable "C0;1" = 5 (C0 then 0)
                raise InputError(f"{str(path)!r} has a ';' in the line {line!r}: a semicolon-separated file? "
                                 "(write 'name,value' with a decimal point)")
        # a number with a comma inside a whitespace-separated line: "C0 1,5" (a decimal comma) and "C0 1,000" (a
        # thousands separator) were read as C0 = 1, the comma taken for a separator
        spaced = plain.replace("**", " ").split()
        if any(re.match(r"^[+-]?(\d+\.?\d*|\.\d+),\d", t) for t in spaced[1:]):
            raise InputError(f"{str(path)!r} has a number with a comma in the line {line!r}: a decimal comma or a "
                             "thousands separator? (write values with a decimal point and no grouping)")
        tokens = [t.strip("\"'") for t in re.split(r"[,\s]+", line.replace("**", " ")) if t.strip("\"'")]
        if len(tokens) >= 3 and tokens[0].isdigit() and _NUMBER.match(tokens[2]):  # CBC
            _store(values, tokens[1], tokens[2], path)
        elif len(tokens) >= 2 and _NUMBER.match(tokens[1]):  # name value [(obj:c)], or name: value
            # "C0: 1.5" stored a variable "C0:", reported only as an unknown name, and C0 then counted as 0
            name = tokens[0][:-1] if len(tokens[0]) > 1 and tokens[0].endswith(":") else tokens[0]
            _store(values, name, tokens[1], path)
        elif _malformed(value := tokens[2] if len(tokens) >= 3 and tokens[0].isdigit() else tokens[1]
                        if len(tokens) >= 2 else ""):  # "C52 0.18x" was skipped, so C52 counted as 0
            raise InputError(f"{str(path)!r} has a malformed value in the line {line!r}")
        elif value.lower() in _MISSING:  # "C5,NA", "C5 ?" were skipped, so C5 counted as 0
            raise InputError(f"{str(path)!r} gives no numeric value in the line {line!r} ({value!r})")
        elif any(_NUMBER.match(t) for t in tokens[1:]):  # "C52 = 0.9" was skipped: C52 kept another line's value
            raise InputError(f"{str(path)!r} has a line that is not 'name value': {line!r}")
    if not values:
        semicolon = next((raw.strip() for raw in lines if ";" in raw and not raw.strip().startswith("#")), None)
        hint = (f" (the line {semicolon!r} has a ';': a semicolon-separated file? write 'name,value' with a decimal "
                "point)") if semicolon else ""  # "C0;1" lines gave no hint
        raise InputError(f"{str(path)!r} holds no 'name value' lines: not a solution file{hint}")
    return values, objective


#: What :func:`read_solution_file` reads, for messages.
SOLUTION_KINDS = "CSV name,value, a SCIP, Gurobi, HiGHS or CPLEX .sol file or CBC -solution output"

#: An LP file's section keyword alone on its line (no solution line is a lone keyword).
_LP_SECTION = re.compile(r"subject\s+to|such\s+that|st|s\.t\.|bounds?|generals?|integers?|binary|binaries|end",
                         re.IGNORECASE)


def _model_file_kind(lines: list) -> str | None:
    """``"an LP model file"`` when ``lines`` start (after comments) with an objective sense and hold a section
    keyword alone on a line (``s.t.``, ``bounds``, ``end``, ...), ``"an MPS model file"`` when they hold the
    section lines ``ROWS`` and ``COLUMNS`` or ``ENDATA``, else None: an instance file given where its solution
    was meant is read as ``name value`` lines of its rows (``<= -1``)."""
    texts = [text for text in lp_lines(lines) if text]
    if texts and LP_SENSE.match(texts[0]) and any(_LP_SECTION.fullmatch(text) for text in texts[1:]):
        return "an LP model file"
    sections = {line.strip() for line in lines if not line.startswith("*")}
    if "ROWS" in sections and sections & {"COLUMNS", "ENDATA"}:
        return "an MPS model file"
    return None


#: Values that say "no value" (spreadsheets' and R's missing values, UCI's ``?``): a line giving one names a
#: variable without its value, which was skipped (the variable counted as 0).
_MISSING = frozenset({"na", "n/a", "#n/a", "null", "none", "nil", "?", ".", "missing", "undefined"})


def _read_name_value_csv(path: Path) -> tuple[dict, float | None]:
    """The values and claimed objective of a CSV file with the header ``name,value`` (what
    :func:`write_solution_csv` writes), read as CSV: a name the writer quoted (one holding a comma or a quote, legal
    in LP and free MPS names, ``x,1``, ``a"b``) or starting with ``#`` is that name. Read line by line, ``"x,1",2.0``
    was refused as a decimal comma, ``"a""b",3`` read as a variable ``ab`` and ``#h,4`` skipped as a comment: the
    package's own solution file did not read back as the incumbent it holds. A row ``objective value,<x>`` is the
    claimed objective, and so is ``objective,<x>`` in a file without such a row (a file with one, as
    :func:`write_solution_csv` writes, keeps ``objective`` for a column of that name); a row of one cell starting
    with ``#`` is a comment."""
    import io

    text = path.read_bytes().decode("utf-8-sig", errors="replace")
    values, objective = {}, None
    rows = list(csv.reader(io.StringIO(text, newline="")))[1:]  # after the header
    # write_solution_csv writes the claim as "objective value" (no LP or MPS name holds a space), so a column
    # named "objective" stays a variable; in a file without such a row (older files, other writers), "objective"
    # is the claim
    claims = ("objective value",) if any(c and c[0].strip().lower() == "objective value" for c in rows) else (
        "objective", "objective value")
    for cells in rows:
        line = ",".join(cells)
        if not cells or all(not c.strip() for c in cells):
            continue
        cells = [c.strip() for c in cells]
        name = cells[0]
        if name.startswith("#") and not (len(cells) == 2 and _NUMBER.match(cells[1])):
            continue  # a comment
        if name.lower() in ("solution status", "model status"):
            continue
        if len(cells) == 1:
            raise InputError(f"{str(path)!r} gives no value in the line {line!r} (a CSV row of one field)")
        if len(cells) > 2:
            if _NUMBER.match(cells[1]) and _NUMBER.match(cells[2]):
                raise InputError(f"{str(path)!r} has two numbers after the name in the line {line!r}: a decimal "
                                 "comma? (write CSV values with a decimal point)")
            raise InputError(f"{str(path)!r} has {len(cells)} cells in the line {line!r}; expected 2 (name,value)")
        value = cells[1]
        if not value:
            raise InputError(f"{str(path)!r} gives no value in the line {line!r}")
        if name.lower() in claims:
            if not _NUMBER.match(value):
                raise InputError(f"{str(path)!r} claims the objective {value!r}: not a number")
            objective = _claimed_objective(path, value, objective)
            continue
        if value.lower() in _MISSING:
            raise InputError(f"{str(path)!r} gives no numeric value in the line {line!r} ({value!r})")
        if not _NUMBER.match(value):
            raise InputError(f"{str(path)!r} has a malformed value in the line {line!r}")
        _store(values, name, value, path)
    if not values:
        raise InputError(f"{str(path)!r} holds no 'name value' lines: not a solution file")
    return values, objective


def _malformed(text: str) -> bool:
    """Whether ``text`` starts like a number (a digit, or a sign or point before one; the sign also U+2212, the
    typographic minus a word processor writes) but is not one, e.g. a damaged ``0.18x`` or ``\u22120.5``."""
    return bool(re.match(r"^[+\-\u2212]?\.?\d", text)) and not _NUMBER.match(text)


def _store(values: dict, name: str, text: str, path: Path) -> None:
    """``values[name] = float(text)``; InputError for a value that is not finite or a second, different
    value of the same name."""
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{str(path)!r} gives variable {name!r} the value {text!r}: not a finite number")
    if name in values and values[name] != value:
        raise InputError(f"{str(path)!r} gives variable {name!r} two values, {values[name]!r} and {value!r}")
    values[name] = value


def _claimed_objective(path: Path, text: str, earlier: float | None = None) -> float | None:
    """The claimed objective ``text`` as a float, None for a solver's infinity (1e20 or more), ``earlier`` (the
    file's earlier claim) for that or when they are equal; InputError for ``nan`` or ``inf``, and for a value
    other than ``earlier`` (two claims: the last was checked, the first ignored)."""
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"{str(path)!r} claims the objective {text!r}: not a finite number")
    value = finite_or_none(value)
    if value is None:
        return earlier
    if earlier is not None and value != earlier:
        raise InputError(f"{str(path)!r} claims two objectives, {earlier!r} and {value!r}")
    return value


def _highs_model_status(lines: list) -> str:
    """The text of the line after ``Model status`` in a HiGHS raw-style solution file, ``?`` when there is none."""
    k = next((k for k, line in enumerate(lines) if line.strip() == "Model status"), None)
    return lines[k + 1].strip() if k is not None and k + 1 < len(lines) else "?"


def _read_highs_solution(path: Path, lines: list) -> tuple[dict, float | None]:
    """The primal column values and objective of a HiGHS ``writeSolution`` file (its row values, duals and
    basis hold ``name value`` lines too and are skipped). InputError naming the file for a primal status
    ``None`` or ``Infeasible`` (e.g. an LP stopped by its iteration limit), and naming the line number for a
    column line other than ``name value``, a ``# Columns`` line without its count, or an ``Objective`` line
    whose value is not a number."""
    k = next(k for k, line in enumerate(lines) if line.strip() == "# Primal solution values")
    primal = lines[k + 1].strip() if k + 1 < len(lines) else ""
    if primal in ("None", "Infeasible"):  # "Infeasible" values were read and judged as if HiGHS had found them
        model = _highs_model_status(lines)
        what = "no primal values" if primal == "None" else "primal values it marks infeasible"
        raise InputError(f"{str(path)!r} is a HiGHS solution file with {what} (model status: {model}): "
                         "it holds no solution")
    values, objective, in_columns, declared = {}, None, False, None
    for number, raw in enumerate(lines[k + 1:], start=k + 2):
        line = raw.strip()
        tokens = line.split()
        where = f"{str(path)!r} line {number}"
        if line.startswith("# Columns"):
            in_columns = True
            count = tokens[2:]
            if len(count) != 1 or not count[0].isdigit():  # "# Columns" cut or garbled: no count to check
                raise InputError(f"{where}: a malformed column count line {line!r}: not '# Columns N'")
            declared = int(count[0])
        elif line.startswith("#"):
            if in_columns:
                break  # "# Rows": the column values are done
        elif in_columns and line:
            if len(tokens) != 2 or not _NUMBER.match(tokens[1]):  # was skipped: the column counted as 0
                raise InputError(f"{where}: a malformed column line {line!r}: not 'name value'")
            _store(values, tokens[0], tokens[1], path)
        elif tokens[:1] == ["Objective"]:
            if len(tokens) != 2 or not _NUMBER.match(tokens[1]):  # "Objective 0.25x": the claim was dropped
                raise InputError(f"{where}: a malformed objective line {line!r}: not 'Objective x'")
            objective = _claimed_objective(path, tokens[1], objective)
    if not values:
        raise InputError(f"{str(path)!r} holds no primal column values: not a solution file")
    if declared is not None and len(values) != declared:  # a truncated file: its missing columns counted as 0
        raise InputError(f"{str(path)!r} declares {declared} columns but gives {len(values)} values: the file is "
                         "truncated or damaged")
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
    values, objective, ended = {}, None, False
    for raw in lines[k + 1:]:
        tokens = raw.split()
        if not tokens or not tokens[0].isdigit():
            ended = raw.strip() == "Rows"
            break  # "Rows": the column values are done
        if any(_malformed(t) for t in tokens[1:last]):  # "1,5" was left out: the Dual then read as the Primal
            raise InputError(f"{str(path)!r} has a malformed value in the column line {raw.strip()!r}")
        numbers = [t for t in tokens[1:last] if _NUMBER.match(t)]  # Lower, Upper, Primal[, Dual]; no Status
        if len(numbers) < 3:
            raise InputError(f"{str(path)!r} is a HiGHS solution file without primal values (model status: "
                             f"{status}): it holds no solution")
        _store(values, tokens[-1], numbers[2], path)
    for raw in lines:
        m = _OBJ_PATTERNS[0].search(raw)  # "Objective value: x"
        if m and _NUMBER.match(m.group(1)):
            objective = _claimed_objective(path, m.group(1), objective)
    if not values:
        raise InputError(f"{str(path)!r} holds no primal column values: not a solution file")
    if not ended:  # the column table runs to the end of the file: cut short, its missing columns counted as 0
        raise InputError(f"{str(path)!r} ends inside its column table (no 'Rows' table follows): the file is "
                         "truncated or damaged")
    return values, objective


def _read_cplex_solution(path: Path) -> tuple[dict, float | None]:
    """The variable values and ``objectiveValue`` of a CPLEX XML solution file (``<CPLEXSolution>``, or the
    incumbent of a ``<CPLEXSolutions>`` pool)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise InputError(f"{str(path)!r} is not well-formed XML ({exc}): not a solution file") from None
    if root.tag == "CPLEXSolutions":
        pool = root.findall("CPLEXSolution")
        incumbent = [sol for sol in pool if sol.find("header[@solutionIndex='-1']") is not None]
        root = (incumbent or pool or [None])[0]
    if root is None or root.tag != "CPLEXSolution":
        raise InputError(f"{str(path)!r} is XML but holds no <CPLEXSolution>: not a solution file")
    header = root.find("header")
    header = {} if header is None else header.attrib
    if header.get("primalFeasible") == "0":
        raise InputError(f"{str(path)!r} says {header.get('solutionStatusString', 'primalFeasible=0')!r}: "
                         "it holds no feasible solution")
    values = {}
    for var in root.iter("variable"):
        name, text = var.get("name"), var.get("value")
        if name is None or text is None or not _NUMBER.match(text.strip()):
            raise InputError(f"{str(path)!r}: a <variable> without a name or a numeric value: {var.attrib}")
        _store(values, name, text.strip(), path)
    if not values:
        raise InputError(f"{str(path)!r} holds no <variable> values: not a solution file")
    text = header.get("objectiveValue")
    objective = _claimed_objective(path, text.strip()) if text is not None and _NUMBER.match(text.strip()) else None
    return values, objective


def write_solution_csv(result: RunResult, path) -> Path:
    """Write a run's incumbent as CSV: ``objective value,<x>`` then ``name,value`` rows (17 significant digits),
    through a temporary file renamed into place (an interrupted write left a file cut short, whose missing
    variables a check then took as 0). Returns the path; InputError when ``path`` is not a path."""
    path = as_path(path, "solution file")
    path.parent.mkdir(parents=True, exist_ok=True)

    def write(temp: Path) -> None:
        # UTF-8, as read_solution_file reads it, whatever the locale (an ASCII locale could not write a name such
        # as x_é; a cp1252 one wrote bytes the reader decodes as other names)
        with open(temp, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["name", "value"])
            if result.objective is not None:
                # not "objective": a column of that name (legal in LP and MPS) was read back as the claim, and
                # the claim lost; no LP or MPS name holds a space
                w.writerow(["objective value", repr(float(result.objective))])
            for name, value in result.solution.items():
                w.writerow([name, repr(float(value))])

    replace_atomically(path, write)
    return path
