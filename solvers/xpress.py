"""FICO Xpress runner: read an instance file with the ``xpress`` package and solve it on one thread.

``pip install xpress`` brings FICO's Community license (models of at most 5000 rows and columns together): the
library's committed instances fit, a larger model gives status ``error`` with Xpress's message. Without
``XPAUTH_PATH`` in the environment the runner starts Xpress with that Community license file (found inside the
installed ``xpresslibs`` package, or next to ``xpress`` in older releases), which also silences the
LicenseWarning Xpress emits otherwise; with ``XPAUTH_PATH`` set, Xpress finds its license as usual.
"""
from __future__ import annotations

import functools
import glob
import math
import os
import time
import warnings

from .common import RunResult, check_instance_path, finite_or_none, importable, refusal

NAME = "xpress"


def _community_license() -> str | None:
    """Path of the Community license file shipped with the pip packages, or ``None``."""
    folders = []
    for module in ("xpresslibs", "xpress"):
        if importable(module):
            folders.append(os.path.dirname(__import__(module).__file__))
    for folder in folders:
        found = sorted(glob.glob(os.path.join(folder, "**", "community-xpauth.xpr"), recursive=True))
        if found:
            return found[0]
    return None


@functools.lru_cache(maxsize=1)
def _license_problem() -> str | None:
    """Why Xpress cannot start (not installed, no license), or ``None`` once it has started; runs once."""
    if not importable("xpress"):
        return "pip install xpress"
    import xpress

    licence = None if os.environ.get("XPAUTH_PATH") else _community_license()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the LicenseWarning when no license file is named
            if licence:
                xpress.init(licence)
            else:
                xpress.init()
    except Exception as exc:  # xpress raises InterfaceError or SolverError when no license works
        return f"Xpress cannot start: {exc}"
    return None


def available() -> bool:
    """True when ``xpress`` imports and starts with a license; computed once."""
    return _license_problem() is None


def version() -> str:
    """Xpress optimizer version string, e.g. ``47.01.02``."""
    import xpress

    get = getattr(xpress, "getVersion", None) or xpress.getversion
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return str(get())


def solve(path, time_limit: float | None = None, mip_gap: float | None = None) -> RunResult:
    """Read ``path`` (``.mps`` or ``.lp``) with Xpress and solve it on one thread.

    ``time_limit`` seconds (Xpress ``timelimit``, wall clock; ``None`` or ``inf``: none), ``mip_gap`` relative
    MIP gap (``miprelstop``; ``None``: Xpress's default 1e-4; the cutoff offset ``mipaddcutoff`` is set to 0,
    as Xpress's default -1e-5 stops with the bound 1e-5 below the optimum whatever the gap). Returns a :class:`RunResult` whose solution uses
    the file's column names; objective and bound are in the file's sense. Status ``error`` for an LP file that
    does not start with an objective sense or a file without its closing ``ENDATA`` / ``end``
    (:func:`solvers.common.file_error`), a file Xpress cannot read, a model above the license's size, or any
    outcome other than optimal, a time-limit stop, infeasible or unbounded; status ``unavailable`` without the
    ``xpress`` package or a license. Raises InputError for a missing file or another suffix."""
    path = check_instance_path(path)
    if (refused := refusal(NAME, path, _license_problem())) is not None:
        return refused
    import xpress

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            p = xpress.problem()
            p.controls.outputlog = 0
            read = getattr(p, "readProb", None) or p.read
            read(str(path))
            p.controls.threads = 1
            if time_limit is not None and math.isfinite(float(time_limit)):
                p.controls.timelimit = float(time_limit)
            p.controls.mipaddcutoff = 0.0  # Xpress's default -1e-5 stops 1e-5 short of a proven optimum
            if mip_gap is not None:
                p.controls.miprelstop = float(mip_gap)
            p.optimize()
            a = p.attributes
            solve_status, sol_status, stop = int(a.solvestatus), int(a.solstatus), int(a.stopstatus)
            is_mip = int(a.mipents) > 0 or int(a.sets) > 0
            names = p.getNameList(xpress.Namespaces.COLUMN, 0, int(a.cols) - 1) if a.cols else []
            values = list(map(float, p.getSolution())) if sol_status in (1, 2) else []
            objective, bound = float(a.objval), float(a.bestbound)
            nodes, solver_seconds = int(a.nodes), float(a.time)
    except (xpress.SolverError, xpress.ModelError, xpress.InterfaceError) as exc:  # unreadable file, size limit
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=f"Xpress: {exc}".strip())
    seconds = time.perf_counter() - t0
    # solvestatus 3 = completed, 1 = stopped; solstatus 1 optimal, 2 feasible, 3 infeasible, 4 unbounded;
    # stopstatus 1 = time limit.
    if solve_status == 3 and sol_status in (1, 3, 4):
        status = {1: "optimal", 3: "infeasible", 4: "unbounded"}[sol_status]
    elif solve_status == 1 and stop == 1 and sol_status in (0, 2):
        status = "time_limit"
    else:
        status = "error"
    result = RunResult(NAME, str(path), status, seconds=seconds, solver_seconds=solver_seconds,
                       nodes=nodes if is_mip else 0,
                       message="" if status != "error" else
                       f"Xpress solve status {solve_status}, solution status {sol_status}, stop status {stop}")
    if status in ("optimal", "time_limit") and values:
        result.objective = finite_or_none(objective)
        result.solution = dict(zip(names, values))
    if is_mip and status in ("optimal", "time_limit"):
        result.bound = finite_or_none(bound)
    elif status == "optimal":  # an LP's bound is its optimum
        result.bound = result.objective
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result
