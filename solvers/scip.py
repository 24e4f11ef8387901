"""SCIP runner: read an instance file with PySCIPOpt (``pip install pyscipopt``) and solve it."""
from __future__ import annotations

import time

from .common import (RunResult, check_instance_path, check_limits, check_seed, finite_or_none, importable, interrupted,
                     refusal, sense_error)

NAME = "scip"


def available() -> bool:
    """True when ``pyscipopt`` imports."""
    return importable("pyscipopt")


def version() -> str:
    """SCIP version (and PySCIPOpt version)."""
    import pyscipopt

    return f"{pyscipopt.Model().version()} (PySCIPOpt {pyscipopt.__version__})"


def solve(path, time_limit: float | None = None, mip_gap: float | None = None, seed: int | None = None) -> RunResult:
    """Read ``path`` (``.mps`` fixed or free, or ``.lp``) with SCIP and solve it.

    ``time_limit`` seconds (SCIP ``limits/time``, wall clock; ``None`` or ``inf``: none), ``mip_gap`` relative gap
    (``limits/gap``; ``None``: SCIP default 0), ``seed`` SCIP's ``randomization/randomseedshift`` (``None``: its
    default 0; :func:`solvers.common.check_seed`). Returns a :class:`RunResult` (solution with the file's column
    names). Status ``error`` for a file SCIP cannot read, one from which it reads no variable (an empty file, text
    that is no model), an LP file with a comment the solvers read differently
    (:func:`solvers.common.lp_comment_error`) or that does not start with an objective sense
    (:func:`solvers.common.lp_sense_error`), and a file that does not end with ``ENDATA`` or ``end``
    (:func:`solvers.common.end_marker_error`; cut short), or one SCIP reads with another objective sense than the
    file's (:func:`solvers.common.sense_error`). Raises InputError for a missing file, another suffix or a
    bad limit (:func:`solvers.common.check_limits`); returns status ``unavailable`` when PySCIPOpt is not
    installed."""
    path = check_instance_path(path)
    time_limit, mip_gap = check_limits(time_limit, mip_gap)
    seed = check_seed(seed)
    # SCIP reads the files file_error objects to as other models
    if (refused := refusal(NAME, path, None if available() else "pip install pyscipopt")) is not None:
        return refused
    import pyscipopt

    t0 = time.perf_counter()
    m = pyscipopt.Model()
    m.hideOutput()
    try:
        m.readProblem(str(path))
    except Exception as exc:  # SCIP raises a generic exception for a reading error
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=str(exc))
    if m.getNVars() == 0:  # SCIP reads an empty file, or text without an LP section, as an empty model
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0,
                         message="SCIP read no variable from the file: not an LP or MPS model")
    if (problem := sense_error("SCIP", m.getObjectiveSense() == "maximize", path)) is not None:
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=problem)
    if time_limit is not None:
        m.setParam("limits/time", float(time_limit))
    if mip_gap is not None:
        m.setParam("limits/gap", float(mip_gap))
    if seed is not None:
        m.setParam("randomization/randomseedshift", seed)
    m.optimize()
    seconds = time.perf_counter() - t0
    raw = m.getStatus()
    if raw == "userinterrupt":  # SCIP caught a Ctrl-C: end the command, not only this solve
        raise interrupted(NAME, raw)
    status = {"optimal": "optimal", "gaplimit": "optimal", "timelimit": "time_limit", "infeasible": "infeasible",
              "unbounded": "unbounded", "inforunbd": "infeasible_or_unbounded"}.get(raw, "error")
    result = RunResult(NAME, str(path), status, seconds=seconds, solver_seconds=m.getSolvingTime(),
                       nodes=int(m.getNNodes()), message="" if status != "error" else f"SCIP status {raw}")
    if m.getNSols() > 0:
        sol = m.getBestSol()
        result.objective = finite_or_none(m.getSolObjVal(sol))  # SCIP's infinity (1e20) when unbounded
        result.solution = {v.name: float(m.getSolVal(sol, v)) for v in m.getVars()}
    result.bound = finite_or_none(m.getDualbound())
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result
