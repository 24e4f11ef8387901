"""Gurobi runner: read an instance file with ``gurobipy`` and solve it on one thread.

``pip install gurobipy`` brings a size-limited license (at most 2000 variables and 2000 linear constraints,
for non-production use, valid about a year from the release): the library's committed instances fit, a larger
model gives status ``error`` with Gurobi's message. A full license (``GRB_LICENSE_FILE``, a ``gurobi.lic`` in
a standard place) lifts the limit; without any usable license the runner reports ``unavailable``.
"""
from __future__ import annotations

import functools
import time

from .common import (RunResult, check_instance_path, check_limits, check_seed, finite_or_none, importable, interrupted,
                     refusal, sense_error)

NAME = "gurobi"

#: Gurobi's optimisation status names -> the runners' statuses; any other status is ``error``.
_STATUS = {"OPTIMAL": "optimal", "TIME_LIMIT": "time_limit", "INFEASIBLE": "infeasible", "UNBOUNDED": "unbounded",
           "INF_OR_UNBD": "infeasible_or_unbounded"}


@functools.lru_cache(maxsize=1)
def _license_problem() -> str | None:
    """Why no Gurobi environment starts (no gurobipy, no usable license), or ``None`` when one does."""
    if not importable("gurobipy"):
        return "pip install gurobipy"
    import gurobipy

    try:
        silent_env().dispose()
    except gurobipy.GurobiError as exc:
        return f"Gurobi cannot start: {exc}"
    return None


def available() -> bool:
    """True when ``gurobipy`` imports and a Gurobi environment starts (a license works); computed once."""
    return _license_problem() is None


def version() -> str:
    """Gurobi version string, e.g. ``13.0.3``."""
    import gurobipy

    return ".".join(map(str, gurobipy.gurobi.version()))


def silent_env():
    """A started ``gurobipy.Env`` that prints nothing (not even the license banner). Raises GurobiError when no
    license works, ImportError without gurobipy."""
    import gurobipy

    env = gurobipy.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.setParam("LogToConsole", 0)
    env.start()
    return env


def solve(path, time_limit: float | None = None, mip_gap: float | None = None, seed: int | None = None) -> RunResult:
    """Read ``path`` (``.mps`` fixed or free, or ``.lp``) with Gurobi and solve it on one thread.

    ``time_limit`` seconds (Gurobi ``TimeLimit``, wall clock; ``None`` or ``inf``: none), ``mip_gap`` relative
    MIP gap (``MIPGap``; ``None``: Gurobi's default 1e-4), ``seed`` Gurobi's ``Seed`` (``None``: its default 0;
    :func:`solvers.common.check_seed`). Returns a :class:`RunResult` whose solution uses the
    file's column names; objective and bound are in the file's sense. Status ``error`` for an LP file that
    does not start with an objective sense or a file without its closing ``ENDATA`` / ``end``
    (:func:`solvers.common.file_error`), a file Gurobi cannot read or reads with another objective sense than the
    file's (:func:`solvers.common.sense_error`), a model above the license's size limits,
    or a Gurobi status other than optimal, time limit, infeasible, unbounded or infeasible-or-unbounded; status
    ``unavailable`` without gurobipy or a usable license. Raises InputError for a missing file, another
    suffix or a bad limit (:func:`solvers.common.check_limits`)."""
    path = check_instance_path(path)
    time_limit, mip_gap = check_limits(time_limit, mip_gap)
    seed = check_seed(seed)
    if (refused := refusal(NAME, path, _license_problem())) is not None:
        return refused
    import gurobipy
    from gurobipy import GRB

    t0 = time.perf_counter()
    env = model = None
    try:
        env = silent_env()
        model = gurobipy.read(str(path), env)
        if (problem := sense_error("Gurobi", model.ModelSense == GRB.MAXIMIZE, path)) is not None:
            return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=problem)
        model.setParam("Threads", 1)
        if time_limit is not None:
            model.setParam("TimeLimit", float(time_limit))
        if mip_gap is not None:
            model.setParam("MIPGap", float(mip_gap))
        if seed is not None:
            model.setParam("Seed", seed)
        model.optimize()
        code = model.Status
        names = {getattr(GRB.Status, key): key for key in dir(GRB.Status) if key.isupper()}
        if names.get(code) == "INTERRUPTED":  # Gurobi caught a Ctrl-C: end the command, not only this solve
            raise interrupted(NAME, "INTERRUPTED")
        status = _STATUS.get(names.get(code, ""), "error")
        is_mip = bool(model.IsMIP)
        result = RunResult(NAME, str(path), status, seconds=None, solver_seconds=float(model.Runtime),
                           nodes=int(model.NodeCount) if is_mip else 0,
                           message="" if status != "error" else f"Gurobi status {names.get(code, code)}")
        if model.SolCount > 0 and status in ("optimal", "time_limit"):
            result.objective = finite_or_none(model.ObjVal)
            variables = model.getVars()
            result.solution = dict(zip(model.getAttr("VarName", variables), map(float, model.getAttr("X", variables))))
        if is_mip and status in ("optimal", "time_limit"):
            result.bound = finite_or_none(model.ObjBound)
        elif status == "optimal":  # an LP's bound is its optimum
            result.bound = result.objective
    except gurobipy.GurobiError as exc:  # unreadable file, the license's size limits, a bad parameter
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=f"Gurobi: {exc}")
    finally:
        if model is not None:
            model.dispose()
        if env is not None:
            env.dispose()
    result.seconds = time.perf_counter() - t0
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result
