"""The part every runner shares: the result record, the solver registry, the agreement rule against the
manifest, and the comparison table (solution files: :mod:`solvers.solution_files`).

A runner is a module of this package with ``NAME``, ``available() -> bool``, ``version() -> str`` and
``solve(path, time_limit=None, mip_gap=None, seed=None) -> RunResult``; it only translates between one solver's API
and :class:`RunResult`.
"""
from __future__ import annotations

import importlib
import importlib.util
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from bilevel.errors import InputError
from bilevel.export import markdown_cell
from bilevel.validation import as_number, as_path, check_count, check_regular_file, value_text

#: Runner modules by solver name.
RUNNERS = {"highs": "solvers.highs", "scip": "solvers.scip", "cbc": "solvers.cbc", "cplex": "solvers.cplex",
           "gurobi": "solvers.gurobi", "xpress": "solvers.xpress"}

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


def check_solver_name(name: str, option: str | None = None) -> str:
    """``name`` in lower case when it names a runner of :data:`RUNNERS` (any case); else InputError, naming the
    command-line ``option`` when given (``--solver 'foo' is not a known solver; ...``: ``solvers.compare`` said
    ``unknown solver 'foo'``, without the option, and only after its manifest was read)."""
    key = name.lower() if isinstance(name, str) else None  # an int was an AttributeError from name.lower()
    if key not in RUNNERS:
        if option is not None:
            raise InputError(f"{option} {value_text(name, limit=80)} is not a known solver; "
                             f"choose from {', '.join(RUNNERS)}")
        raise InputError(f"unknown solver {value_text(name, limit=80)}; known: {', '.join(RUNNERS)}")
    return key


def get_runner(name: str):
    """The runner module of solver ``name`` (``highs``, ``scip``, ``cbc``, ``cplex``, ``gurobi``, ``xpress``; any
    case). Raises InputError for an unknown name."""
    return importlib.import_module(RUNNERS[check_solver_name(name)])


def interrupted(solver: str, status) -> KeyboardInterrupt:
    """The ``KeyboardInterrupt`` a runner raises when its solver reports that Ctrl-C stopped the solve. SCIP,
    Gurobi, CPLEX and Xpress catch SIGINT themselves while they solve and return a status ("userinterrupt",
    INTERRUPTED, 13/113/114, stop type ctrl-c; for Xpress 9.9.1, which would end the process, the runner sets the
    handler itself, see solvers.xpress._CtrlC), so Python never saw the Ctrl-C: the runner reported status
    ``error`` and ``solvers.compare`` went on with the next solve, wrote its ``--csv`` as if complete and exited 0
    ("everything agrees"). Raised instead, the Ctrl-C ends the command (exit code 130, no table, no CSV)."""
    return KeyboardInterrupt(f"{solver} was interrupted by Ctrl-C (its status {status})")


def run_main(prog: str, main) -> int:
    """Run a command's ``main()`` and return its exit code, with the endings every command of ``solvers`` shares:
    Ctrl-C prints ``<prog>: interrupted`` on stderr and returns 130 (a Python traceback before, and a solver that
    caught the Ctrl-C was reported as status ``error``: :func:`interrupted`); an operating-system error (a full
    disk) prints one line on stderr and returns 2, the code of an error, where 1 is the command's verdict
    (disagreement, rejected solution). A standard output closed by its reader (``... | head -1``) stops the command
    quietly with exit code 141, as every command line of the repository (:func:`bilevel.closed_output.run_command`;
    it was "error: [Errno 32] Broken pipe ..." and exit code 2, and a BrokenPipeError traceback with exit code 1,
    the verdict, before that)."""
    import sys

    from bilevel.closed_output import is_closed_output, run_command

    def guarded() -> int:
        try:
            return main()
        except KeyboardInterrupt:
            print(f"{prog}: interrupted", file=sys.stderr)
            return 130
        except InputError as exc:  # e.g. a full disk while writing --csv (bilevel.export.replace_atomically)
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            if is_closed_output(exc):  # run_command stops the command quietly
                raise
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2

    return run_command(guarded)


def check_instance_path(path) -> Path:
    """``path`` as a Path; raises InputError unless it is an existing ``.mps`` or ``.lp`` file: also for a ``path``
    that is not a str or Path (``solve(None)`` was pathlib's TypeError), a folder (it was "not found") and a pipe or
    device named like an instance file (:func:`bilevel.validation.check_regular_file`)."""
    path = as_path(path, "path (the instance file)")
    if path.suffix.lower() not in (".mps", ".lp"):
        raise InputError(f"{str(path)!r}: instance files must end in .mps or .lp")
    check_regular_file(path, "instance file")
    return path


def lp_lines(fh):
    """The lines of an LP file without their comments (``\\`` to the end of the line, or a ``\\* ... *\\``
    block, which may span lines), stripped, one string per line of ``fh`` (an open text file or any iterable of
    str; a line that is all comment gives ``""``). A generator; raises nothing itself (only what reading ``fh``
    raises). A utility of the LP readers here and of :mod:`solvers.solution_files`."""
    in_block = False  # inside a \* ... *\ comment
    for line in fh:
        text, kept = line.strip(), []
        while text:
            if in_block:
                end = text.find("*\\")
                in_block, text = end < 0, "" if end < 0 else text[end + 2:].lstrip()
            elif (start := text.find("\\")) < 0:
                kept.append(text)
                text = ""
            else:  # a comment starts: to the end of the line, or a block that goes on after its "*\\"
                kept.append(text[:start])
                in_block = text.startswith("\\*", start)
                text = text[start + 2:] if in_block else ""
        yield " ".join(k.strip() for k in kept if k.strip())


#: Where an LP file's objective ends: its constraint (or a later) section's keyword at the start of a line.
_LP_AFTER_OBJECTIVE = re.compile(r"^(subject\s+to|such\s+that|st|s\.t\.|bounds?|general|generals|gen|integers?|"
                                 r"binary|binaries|bin|semi-continuous|semis?|sos|end)(\s|:|$)", re.IGNORECASE)
#: An LP file's objective sense at the start of a line (of :func:`lp_lines`): ``minimize``, ``maximize``,
#: ``minimum``, ``maximum``, ``min`` or ``max``, any case, alone or before whitespace (``minimise`` is none).
LP_SENSE = re.compile(r"^(minimize|maximize|minimum|maximum|min|max)(\s+|$)", re.IGNORECASE)
_LP_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<op>[-+])|(?P<sym>[\[\]/^*])"
                       r"|(?P<name>[^\s+\-\[\]/^*:<>=]+)|(?P<colon>:))")


def lp_sense_error(path) -> str | None:
    """For an LP file whose first text that is not a comment is not an objective sense (``minimize``,
    ``minimum``, ``min``, ``maximize``, ``maximum``, ``max``, any case), a message saying so; else ``None``
    (and for an MPS file). HiGHS 1.15 and SCIP 10 read ``minimise obj: 2 x + 3 y ...`` as a model with the
    objective 0 and report it optimal; CPLEX and CBC refuse it. Raises InputError as :func:`check_instance_path`."""
    path = check_instance_path(path)
    if path.suffix.lower() != ".lp":
        return None
    with path.open(errors="replace") as fh:
        first = next((text for text in lp_lines(fh) if text), "")
    if LP_SENSE.match(first):
        return None
    return f"the LP file does not start with an objective sense (minimize, maximize, ...): it starts {first[:40]!r}"


def lp_comment_error(path) -> str | None:
    """For an LP file with text after the ``*\\`` that ends a ``\\* ... *\\`` block comment on its line, or
    a block comment over more than one line that holds text, a message naming the first such line; else ``None``
    (and for an MPS file). The solvers read such lines differently: HiGHS 1.15, SCIP 10 and CPLEX 22.2 take a
    ``\\`` to the end of its line as the whole comment, CBC 2.10 (and :func:`lp_lines`) the block, and Gurobi and
    Xpress refuse the file; HiGHS and SCIP minimised ``\\* a note *\\ maximize`` (the sense lies in their
    comment) and reported the optimum of another model. A block that ends on its own line (Pyomo's
    ``\\* Source Pyomo model ... *\\``) is read alike by all. Raises InputError as :func:`check_instance_path`."""
    path = check_instance_path(path)
    if path.suffix.lower() != ".lp":
        return None
    with path.open(errors="replace") as fh:
        raw, lines = itertools.tee(fh)
        for number, (text, line) in enumerate(zip(lp_lines(lines), raw), start=1):
            if text != line.split("\\", 1)[0].strip():  # what a reader of line comments alone keeps
                return (f"line {number} of the LP file is read differently by the solvers: text after the end of a "
                        "\\* ... *\\ block comment on its line, or a block comment over several lines (HiGHS, SCIP "
                        "and CPLEX take a \\ to the end of its line as the comment, CBC the block); start each line "
                        "of a comment with \\")
    return None


def end_marker_error(path) -> str | None:
    """For a file that does not end with its format's closing keyword (``ENDATA`` for MPS, ``end`` for LP,
    any case; blank lines and comments after it are allowed), a message saying it looks cut short; else
    ``None``. HiGHS 1.15.1 read an ``.mps`` cut to 1000 bytes inside its COLUMNS section as a 2-column model
    and reported it optimal 0, and SCIP 10 reads an LP file cut at a line boundary inside its constraints
    as the part before the cut (optimal 0 on 20 of 63 cuts of a library file). Raises InputError as
    :func:`check_instance_path`."""
    path = check_instance_path(path)
    last = ""
    with path.open(errors="replace") as fh:
        if path.suffix.lower() == ".lp":
            for text in lp_lines(fh):
                last = text or last
            marker = "end"
        else:
            for line in fh:
                text = line.strip()
                if text and not line.startswith("*"):  # an MPS comment line starts with "*"
                    last = text
            marker = "ENDATA"
    if last.lower() == marker.lower():
        return None
    return f"the file does not end with {marker} (cut short?): its last line is {last[:40]!r}"


#: Largest time limit handed to a solver, in seconds: SCIP's largest ``limits/time`` (CPLEX takes up to 1e75,
#: HiGHS and CBC any finite one). No solve lasts that long: :func:`check_limits` reads a longer one as none.
MAX_TIME_LIMIT = 1e20


def check_limits(time_limit, mip_gap) -> tuple[float | None, float | None]:
    """The limits every runner's ``solve`` takes, checked before the solver sees them: ``time_limit`` in
    seconds (``None``, ``inf`` or anything above :data:`MAX_TIME_LIMIT`: no limit, returned as ``None``; 0 stops
    at once), ``mip_gap`` a relative gap (``None``: the solver's default). Returns both as floats or ``None``.

    Raises InputError for a NaN or negative ``time_limit`` and a NaN, negative or infinite ``mip_gap``, or a
    value that is not a number. Before this check the runners disagreed on such values: HiGHS ignored a
    negative time limit and solved to "optimal", CBC stopped at once, SCIP raised its own ValueError after
    printing to stderr, Gurobi and Xpress read a NaN gap as none, and CPLEX called ``inf`` an error."""
    limit = gap = None
    if time_limit is not None:
        limit = as_number(time_limit, "time_limit")
        if not limit >= 0:
            raise InputError(f"time_limit must be >= 0 seconds (None or inf: no limit); got {time_limit!r}")
        if limit > MAX_TIME_LIMIT:
            limit = None
    if mip_gap is not None:
        gap = as_number(mip_gap, "mip_gap")
        if not 0 <= gap < math.inf:
            raise InputError(f"mip_gap must be a finite number >= 0 (None: the solver's default); got {mip_gap!r}")
    return limit, gap


#: The largest random seed every runner accepts: HiGHS, SCIP, Gurobi, CPLEX, Xpress and CBC all take a C int.
MAX_SEED = 2**31 - 1


def check_seed(seed) -> int | None:
    """The ``seed`` every runner's ``solve`` takes, checked before the solver sees it: ``None`` (the solver's own
    default seed) or an integer in [0, :data:`MAX_SEED`], returned as an int. Each runner hands it to its solver's
    random-seed parameter (HiGHS ``random_seed``, SCIP ``randomization/randomseedshift``, Gurobi ``Seed``, CPLEX
    ``randomseed``, Xpress ``randomseed``, CBC ``-randomCbcSeed``), which changes the search's path (branching
    ties, heuristics) and so its time and nodes, but not the optimum. Raises InputError for a bool, a float, a
    negative or a larger integer: solvers refuse some of these in their own ways, or read them modulo 2**32."""
    if seed is None:
        return None
    return check_count(seed, "seed", 0, MAX_SEED)


def file_error(path) -> str | None:
    """:func:`lp_comment_error`, :func:`lp_sense_error` or else :func:`end_marker_error`: why a solver that would
    read ``path`` as some other model must not be handed it, or ``None``."""
    return lp_comment_error(path) or lp_sense_error(path) or end_marker_error(path)


def refusal(solver: str, path: Path, unavailable: str | None) -> RunResult | None:
    """What a runner returns before reading ``path`` (already checked by :func:`check_instance_path`): status
    ``unavailable`` with the reason ``unavailable`` when that is not ``None``, else status ``error`` when
    :func:`file_error` objects to the file, else ``None`` (go ahead)."""
    if unavailable is not None:
        return RunResult(solver, str(path), "unavailable", message=unavailable)
    if (problem := file_error(path)) is not None:
        return RunResult(solver, str(path), "error", message=problem)
    return None


def lp_objective_constant(path) -> float:
    """The constant term of the objective of the LP file at ``path`` (0.0 when it has none, or for an MPS
    file): the sum of the numbers, with their signs, that multiply no variable outside ``[ ... ]``
    (``obj: 2 x + 3 y + 5`` gives 5; a label ``obj:`` is skipped). CBC 2.10 drops such a constant without a
    diagnostic, so :mod:`solvers.cbc` refuses such files. Raises InputError as :func:`check_instance_path`."""
    path = check_instance_path(path)
    if path.suffix.lower() != ".lp":
        return 0.0
    parts = []
    with path.open(errors="replace") as fh:
        for text in lp_lines(fh):
            if not parts:
                if text:
                    sense = LP_SENSE.match(text)
                    if sense is None:
                        return 0.0
                    parts.append(text[sense.end():])
            elif _LP_AFTER_OBJECTIVE.match(text):
                break
            else:
                parts.append(text)
    text = " ".join(parts)
    label = re.match(r"\s*[^\s:+\-\[\]]+\s*:", text)
    tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _LP_TOKEN.finditer(text[label.end() if label else 0:])]
    constant, sign, depth = 0.0, 1.0, 0
    for i, (kind, value) in enumerate(tokens):
        if kind == "sym":
            depth += {"[": 1, "]": -1}.get(value, 0)
        if kind == "op":
            sign = -sign if value == "-" else sign
            continue
        after = tokens[i + 1][0] if i + 1 < len(tokens) else None
        before = tokens[i - 1][1] if i else None
        if kind == "num" and depth == 0 and before not in ("/", "^") and after not in ("name", "sym"):
            constant += sign * float(value)
        sign = 1.0
    return constant


def is_maximisation(path) -> bool:
    """Whether the instance file at ``path`` (``.mps`` or ``.lp``) maximises its objective: an MPS
    ``OBJSENSE`` section (or line) whose entry starts with ``MAX``, read up to the ``ROWS`` section, or an
    LP file whose first text that is not a comment (``\\`` to the end of the line, or a ``\\* ... *\\`` block,
    which may span lines) starts with ``max`` (max, maximize, maximise, maximum). The package's own models all
    minimise; CBC 2.10 ignores ``OBJSENSE`` in MPS files (it minimises a maximisation model) and prints its
    search's objective values in minimisation sense, so :mod:`solvers.cbc` needs this. Raises InputError as
    :func:`check_instance_path`."""
    path = check_instance_path(path)
    with path.open(errors="replace") as fh:
        if path.suffix.lower() == ".lp":
            return next((text.lower().startswith("max") for text in lp_lines(fh) if text), False)
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


def sense_error(solver: str, read_maximise: bool, path) -> str | None:
    """A message when ``solver`` (its name, for the message) read the instance file at ``path`` with another
    objective sense than the file's (:func:`is_maximisation`; ``read_maximise``: whether the solver's model
    maximises), else ``None``. HiGHS 1.15-1.16 read a one-line ``OBJSENSE MAXIMIZE`` of an MPS file (not
    ``OBJSENSE MAX``) as no sense, and CPLEX 22.2 reads no one-line ``OBJSENSE`` entry at all: both minimised ``max x``
    with ``x <= 4`` to "optimal" 0, not 4. All read ``MAX`` or ``MAXIMIZE`` on the line after ``OBJSENSE``. Raises
    InputError as :func:`check_instance_path`."""
    if read_maximise == is_maximisation(path):
        return None
    sense = ("maximise", "minimise")
    return (f"{solver} read the objective as one to {sense[not read_maximise]}, but the file's objective sense is "
            f"{sense[read_maximise]} (not every solver reads an OBJSENSE entry on the OBJSENSE line: write MAX on "
            "the line after it)")


def finite_or_none(value) -> float | None:
    """``float(value)`` when finite and below 1e20 in magnitude (solvers' infinity), else ``None``."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and abs(v) < 1e20 else None


# ------------------------------------------------------------------------------------------ agreement


def close(a: float, b: float, rtol: float, atol: float) -> bool:
    """``|a - b| <= atol + rtol * max(|a|, |b|)`` for finite numbers; an infinite one is close only to itself (0.04
    was "close" to inf: inf <= atol + rtol * inf, and a manifest bound of +inf agreed with every optimum)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a == b
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


_EITHER = {"unbounded_or_infeasible": "infeasible_or_unbounded"}  # bilevel.solve's name for HiGHS's status


def manifest_statuses() -> dict[str, str]:
    """Every value a manifest's ``highs_status`` may hold, mapped to the runners' word for it (:data:`STATUSES`):
    the words :func:`bilevel.library.solve_instance` writes (``optimal``, ``time_limit``, ``infeasible``,
    ``unbounded``, ``unbounded_or_infeasible``, and ``infeasible_or_unbounded``), and every HiGHS status string as
    the installed highspy spells it (:func:`bilevel.highs_run.manifest_status_words`): "Infeasible" written by hand
    was read as an open instance ("closes") rather than a proof of infeasibility. Strings with no runner word
    ("Interrupted by user") map to themselves. Raises nothing."""
    from bilevel.highs_run import manifest_status_words  # (highspy loads here: the runners need it no sooner)
    words = manifest_status_words()
    out = {raw: _EITHER.get(word, word) for raw, word in words.items()}
    out.update({word: _EITHER.get(word, word) for word in (*words.values(), *_EITHER.values())})
    return out


def manifest_status(status) -> str | None:
    """A manifest's ``highs_status`` cell in the runners' words (:data:`STATUSES`: HiGHS's "Optimal" is ``optimal``,
    "Primal infeasible or unbounded" ``infeasible_or_unbounded``), other known HiGHS strings unchanged, None for an
    empty cell. Raises InputError for anything not in :func:`manifest_statuses` (``"bogus"`` was an open instance,
    and an optimum found for it "closed" it). A utility of :func:`agreement`, no equation."""
    if status is None:
        return None
    statuses = manifest_statuses()
    if status not in statuses:
        raise InputError(f"highs_status {status!r} is not a status a manifest holds (one of optimal, time_limit, "
                         "infeasible, unbounded, unbounded_or_infeasible or another HiGHS status string)")
    return statuses[status]


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
    ``DISAGREE`` the answers contradict each other (different optima, one side's objective below the
                 other's proven bound, or a feasible point or optimum where the other side proved the model
                 infeasible or unbounded);
    ``n/a``      nothing to compare (no manifest result, or the run failed).

    Proofs without an optimum: both sides infeasible (or unbounded) is ``agree``, and so is an
    "infeasible or unbounded" on either side against an infeasible, unbounded or "infeasible or unbounded"
    on the other; a run stopped without a proof against such a manifest status is ``consistent``, unless it
    found a feasible point where HiGHS proved infeasibility. Raises InputError for a ``highs_status`` that is not a
    manifest status (:func:`manifest_status`).
    """
    if result.status in ("error", "unavailable", "missing"):
        return "n/a"
    m_status, m_obj, m_bound = row.get("highs_status"), row.get("highs_objective"), row.get("highs_best_bound")
    m_status = manifest_status(m_status)
    if m_status is None:
        return "n/a"
    no_optimum = ("infeasible", "unbounded", "infeasible_or_unbounded")
    if m_status in no_optimum:
        if result.status in no_optimum:
            same = m_status == result.status or "infeasible_or_unbounded" in (m_status, result.status)
            return "agree" if same else "DISAGREE"
        # an optimum contradicts either proof; a feasible point contradicts a proof of infeasibility
        if result.status == "optimal" or (m_status == "infeasible" and result.objective is not None):
            return "DISAGREE"
        return "consistent"
    if result.status in no_optimum:
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
    optionally ``check``) as a Markdown table, each cell through :func:`bilevel.export.markdown_cell` (a ``|`` in
    a solver's status or a check's reason split the cell)."""
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
        lines.append("| " + " | ".join(markdown_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def importable(module: str) -> bool:
    """True when ``module`` can be imported here (a solver's Python interface is installed)."""
    return importlib.util.find_spec(module) is not None
