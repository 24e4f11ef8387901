"""CPLEX runner: read an instance file with IBM's ``cplex`` Python package and solve it.

``pip install cplex`` installs the Community Edition, which solves models of at most 1000 variables and
1000 constraints: the library's committed instances (sizes 5 and 10) fit, larger ones give status ``error``
with CPLEX's message. A full CPLEX installation's ``cplex`` package lifts the limit.
"""
from __future__ import annotations

import io
import time

from .common import (RunResult, check_instance_path, check_limits, check_seed, finite_or_none, importable, interrupted,
                     sense_error)

NAME = "cplex"

#: CPLEX solution status codes (``Cplex.solution.status``) -> the runners' statuses. 102 is "optimal within
#: the relative MIP gap", which the other runners call optimal too; anything else is ``error``.
_STATUS = {1: "optimal", 101: "optimal", 102: "optimal", 11: "time_limit", 107: "time_limit", 108: "time_limit",
           3: "infeasible", 103: "infeasible", 2: "unbounded", 118: "unbounded", 4: "infeasible_or_unbounded",
           119: "infeasible_or_unbounded"}
#: CPLEX's "aborted by the user" statuses (CPX_STAT_ABORT_USER, CPXMIP_ABORT_FEAS, CPXMIP_ABORT_INFEAS): a Ctrl-C,
#: which CPLEX catches itself during a solve.
_ABORTED_BY_USER = (13, 113, 114)


def available() -> bool:
    """True when ``cplex`` imports."""
    return importable("cplex")


def version() -> str:
    """CPLEX version string."""
    import cplex

    return cplex.Cplex().get_version()


def silent_cplex():
    """A new ``cplex.Cplex`` with its log, results, warning and error streams off. Requires the ``cplex``
    package (ImportError otherwise)."""
    import cplex

    c = cplex.Cplex()
    for stream in (c.set_log_stream, c.set_results_stream, c.set_warning_stream, c.set_error_stream):
        stream(None)
    return c


#: CPLEX 22.2's one warning for an MPS file whose RHS section is empty ("RHS" followed by no entry), which Pyomo
#: writes for a model without rows (a variable, its bounds and the objective): such a file has no right-hand side
#: to give, so the warning is benign there, and only there.
EMPTY_RHS_WARNING = "Warning:  Blank RHS name changed to 'rhs'."


def benign_read_warnings(text: str, suffix: str, rows: int) -> bool:
    """Whether CPLEX's reading warnings ``text`` are only :data:`EMPTY_RHS_WARNING`, for an MPS file (``suffix``
    ``.mps``, any case) that CPLEX read with ``rows`` = 0 linear constraints. Any other warning, or that one for
    a file with rows (whose empty RHS section may be a cut or damaged one), is not benign."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines == [EMPTY_RHS_WARNING] and suffix.lower() == ".mps" and rows == 0


def read_warnings(text: str) -> str:
    """CPLEX's warnings while reading a file (``text``, its warning stream) as one line. CPLEX reads a truncated
    file without an error: it only warns ("Unfinished constraint is discarded.", "'End' missing.", "'ENDATA'
    missing.") and solves the part it read; it also drops the bounds of a variable in no row ("Name 'z' does
    not exist.", so crossed bounds 5 <= z <= 4 gave "optimal" where the file is infeasible). So any reading
    warning makes the run an ``error`` (the package's exported files are read without one), except CPLEX's warning
    about the empty RHS section of an MPS file without rows (:func:`benign_read_warnings`)."""
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())[:200]


def solve(path, time_limit: float | None = None, mip_gap: float | None = None, seed: int | None = None) -> RunResult:
    """Read ``path`` (``.mps`` or ``.lp``) with CPLEX and solve it on one thread.

    ``time_limit`` seconds (CPLEX ``timelimit``, wall clock; ``None`` or ``inf``: none), ``mip_gap`` relative gap
    (``mip.tolerances.mipgap``; ``None``: CPLEX default 1e-4), ``seed`` CPLEX's ``randomseed`` (``None``: its
    default, which depends on the CPLEX version; :func:`solvers.common.check_seed`). Returns a :class:`RunResult`
    whose solution uses the file's column names; a file CPLEX cannot read or reads with a warning (a truncated file: see
    :func:`read_warnings`; not the warning about the empty RHS section of an MPS file without rows,
    :func:`benign_read_warnings`), one above the Community Edition's size limits, or a parameter CPLEX refuses gives
    status ``error`` with CPLEX's message, and so does a file CPLEX reads with another objective sense than the
    file's (:func:`solvers.common.sense_error`). Raises InputError for a missing file, another suffix or a bad limit
    (:func:`solvers.common.check_limits`); returns status ``unavailable`` when the ``cplex`` package is not
    installed."""
    path = check_instance_path(path)
    time_limit, mip_gap = check_limits(time_limit, mip_gap)
    seed = check_seed(seed)
    if not available():
        return RunResult(NAME, str(path), "unavailable", message="pip install cplex")
    from cplex.exceptions import CplexError

    t0 = time.perf_counter()
    c = silent_cplex()
    c.parameters.threads.set(1)
    try:
        if time_limit is not None:
            c.parameters.timelimit.set(float(time_limit))  # at most 1e20: CPLEX refuses above 1e75
        if mip_gap is not None:
            c.parameters.mip.tolerances.mipgap.set(float(mip_gap))
        if seed is not None:
            c.parameters.randomseed.set(seed)
        warnings = io.StringIO()
        c.set_warning_stream(warnings)
        c.read(str(path))
        c.set_warning_stream(None)
        if warnings.getvalue().strip() and not benign_read_warnings(warnings.getvalue(), path.suffix,
                                                                    c.linear_constraints.get_num()):
            return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0,
                             message="CPLEX read the file with warnings: " + read_warnings(warnings.getvalue()))
        maximise = c.objective.get_sense() == c.objective.sense.maximize
        if (problem := sense_error("CPLEX", maximise, path)) is not None:  # a one-line OBJSENSE: see there
            return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=problem)
        start = c.get_time()
        c.solve()
    except CplexError as exc:  # unreadable file, the Community Edition's size limits (error 1016), a bad parameter
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=str(exc).strip())
    solver_seconds = c.get_time() - start
    seconds = time.perf_counter() - t0
    code = c.solution.get_status()
    if code in _ABORTED_BY_USER:  # CPLEX caught a Ctrl-C (the runner sets no callback that could abort)
        raise interrupted(NAME, f"{code}: {c.solution.get_status_string()}")
    status = _STATUS.get(code, "error")
    is_mip = c.get_problem_type() not in (c.problem_type.LP, c.problem_type.QP)
    result = RunResult(NAME, str(path), status, seconds=seconds, solver_seconds=solver_seconds,
                       nodes=int(c.solution.progress.get_num_nodes_processed()) if is_mip else 0,
                       message="" if status != "error" else f"CPLEX status {code}: {c.solution.get_status_string()}")
    if c.solution.is_primal_feasible():
        result.objective = finite_or_none(c.solution.get_objective_value())
        result.solution = dict(zip(c.variables.get_names(), map(float, c.solution.get_values())))
    if is_mip and status in ("optimal", "time_limit"):
        result.bound = finite_or_none(c.solution.MIP.get_best_objective())
    elif status == "optimal":  # an LP's bound is its optimum
        result.bound = result.objective
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result
