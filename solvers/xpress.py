"""FICO Xpress runner: read an instance file with the ``xpress`` package and solve it on one thread.

``pip install xpress`` (from 9.4 on it brings ``xpresslibs``) comes with FICO's Community license: models of
at most 5000 rows and columns together. The library's committed instances fit; a larger model gives status
``error`` with Xpress's message. Without ``XPAUTH_PATH`` in the environment the runner starts Xpress with
that Community license file (inside the installed ``xpresslibs`` package, or next to ``xpress`` in older
releases), which also keeps Xpress from emitting its LicenseWarning; with ``XPAUTH_PATH`` set, Xpress finds
its license as usual. The pip releases' licenses expire (9.9.1: 2027-07-31); without a working license
:func:`available` is false and :func:`solve` returns status ``unavailable``.
"""
from __future__ import annotations

import functools
import glob
import importlib.util
import os
import signal
import threading
import time
import warnings

from .common import (RunResult, check_instance_path, check_limits, check_seed, finite_or_none, importable, interrupted,
                     refusal, sense_error)

NAME = "xpress"

# Xpress's status codes (xpress.SolveStatus, SolStatus, StopType, MIPStatus), as numbers so that they read the
# same in every release.
_COMPLETED, _STOPPED = 3, 1
_NOTFOUND, _OPTIMAL, _FEASIBLE, _INFEASIBLE, _UNBOUNDED = 0, 1, 2, 3, 4
_TIMELIMIT, _CTRLC = 1, 2
_MAXIMISE = -1  # the objsense attribute of a maximisation (1: minimisation)
_MIP_LP_OPTIMAL = 2  # mipstatus from which on the root LP has been solved (and bestbound means something)
_SOLVE_NAMES = {0: "unstarted", 1: "stopped", 2: "failed", 3: "completed"}
_SOL_NAMES = {0: "not found", 1: "optimal", 2: "feasible", 3: "infeasible", 4: "unbounded"}
_STOP_NAMES = {0: "none", 1: "time limit", 2: "ctrl-c", 3: "node limit", 4: "iteration limit", 5: "MIP gap",
               6: "solution limit", 7: "generic error", 8: "memory error", 9: "user", 10: "solve complete",
               11: "license lost", 13: "numerical error", 14: "work limit"}


def _community_license() -> str | None:
    """Path of the Community license file shipped with the pip packages, or ``None``."""
    for module in ("xpresslibs", "xpress"):
        spec = importlib.util.find_spec(module)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            found = sorted(glob.glob(os.path.join(folder, "**", "community-xpauth.xpr"), recursive=True))
            if found:
                return found[0]
    return None


@functools.lru_cache(maxsize=1)
def _license_problem() -> str | None:
    """Why Xpress cannot start (not installed, no license), or ``None`` once it has started; runs once."""
    if not importable("xpress"):
        return "pip install xpress"
    licence = None if os.environ.get("XPAUTH_PATH") else _community_license()
    try:
        with warnings.catch_warnings():
            # the LicenseWarning, and Pyomo's hook on `import xpress`, which calls the deprecated getversion
            warnings.simplefilter("ignore")
            import xpress

            if licence:
                xpress.init(licence)
            else:
                xpress.init()
    except Exception as exc:  # xpress raises InterfaceError or SolverError when no license works
        return f"Xpress cannot start: {str(exc).strip()}"
    return None


def available() -> bool:
    """True when ``xpress`` imports and starts with a license; computed once."""
    return _license_problem() is None


def version() -> str:
    """Xpress optimizer version string, e.g. ``47.01.02``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import xpress

        return str((getattr(xpress, "getVersion", None) or xpress.getversion)())


def _call(p, new: str, old: str, *args):
    """``p.new(*args)``, or ``p.old(*args)`` in releases before the rename."""
    return (getattr(p, new, None) or getattr(p, old))(*args)


class _CtrlC:
    """Ctrl-C for an Xpress solve. Xpress 9.9.1 sets the action of SIGINT to the default one while it solves (the
    handler that Python had installed is put back afterwards), so a Ctrl-C ended the whole process, killed by the
    signal: no "interrupted" line, no ``finally``, no CSV (measured 2026-12-05, with the action read by
    ``sigaction`` during a solve). Xpress calls a check-time callback on the solving thread about a thousand
    times a second (and the first time within a millisecond of the start); at its first call in each solve this
    one puts Python's action back: a handler that notes the signal and asks Xpress to stop with reason ctrl-c
    (``problem.interrupt``), or "ignore" where the process ignored SIGINT before the solve (a background job).
    :meth:`optimize` restores the action of before the solve in any case, and :attr:`caught` tells whether a
    SIGINT came. Only from the main thread (where Python lets a handler be set) and where Python's action is a
    handler or "ignore"; otherwise, and for a SIGINT before the first callback, Xpress's default action stays."""

    def __init__(self, p):
        self.p, self.caught, self._set = p, False, False
        before = signal.getsignal(signal.SIGINT)
        self.active = threading.current_thread() is threading.main_thread() and (
            callable(before) or before == signal.SIG_IGN)
        if self.active:
            self.action = signal.SIG_IGN if before == signal.SIG_IGN else self._note
            _call(p, "addCheckTimeCallback", "addcbchecktime", self._check, None, 0)

    def _note(self, signum, frame):
        self.caught = True

    def _check(self, prob, data) -> int:
        if not self._set:
            signal.signal(signal.SIGINT, self.action)
            self._set = True
        if self.caught:
            prob.interrupt(_CTRLC)
        return 0

    def optimize(self) -> None:
        """``p.optimize()`` with Python's action for SIGINT back in place during the solve, and after it."""
        if not self.active:
            self.p.optimize()
            return
        before, self._set = signal.getsignal(signal.SIGINT), False
        try:
            self.p.optimize()
        finally:
            signal.signal(signal.SIGINT, before)


def solve(path, time_limit: float | None = None, mip_gap: float | None = None, seed: int | None = None) -> RunResult:
    """Read ``path`` (``.mps`` or ``.lp``) with Xpress and solve it on one thread.

    ``time_limit``: seconds of wall clock (Xpress ``timelimit``); ``None`` or ``inf``: no limit, 0: stop at
    once (status ``time_limit``). ``mip_gap``: relative MIP gap (``miprelstop``; ``None``: Xpress's default
    1e-4). ``seed``: Xpress's ``randomseed`` (``None``: its default 1; :func:`solvers.common.check_seed`).
    ``mipaddcutoff`` is set to 0, as Xpress's default -1e-5 stops with the bound 1e-5 below the
    optimum whatever the gap. Returns a :class:`RunResult` whose solution uses the file's column names;
    objective and bound are in the file's sense, the bound only once Xpress has solved the root LP.

    Statuses: ``optimal``; ``time_limit`` (with or without an incumbent); ``infeasible``; ``unbounded``,
    ``infeasible`` or ``infeasible_or_unbounded`` after an "unbounded" verdict, by a second solve with the
    objective 0 (Xpress calls some infeasible LPs, and MILPs whose relaxation is unbounded, unbounded);
    ``error`` for an LP file that does not start with an objective sense or a file without its closing
    ``ENDATA`` / ``end`` (:func:`solvers.common.file_error`), a file Xpress cannot read or reads no column
    from or reads with another objective sense than the file's (:func:`solvers.common.sense_error`), a model above
    the license's size, or any other outcome (the message
    names Xpress's statuses); ``unavailable`` without the ``xpress`` package or a license. Raises InputError
    for a missing file, another suffix or a bad limit (:func:`solvers.common.check_limits`)."""
    path = check_instance_path(path)
    time_limit, mip_gap = check_limits(time_limit, mip_gap)
    seed = check_seed(seed)
    if (refused := refusal(NAME, path, _license_problem())) is not None:
        return refused
    import xpress

    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Xpress's deprecation warnings (FutureWarning) and LicenseWarning
            p = xpress.problem()
            p.controls.outputlog = 0
            _call(p, "readProb", "read", str(path))
            a = p.attributes
            # the columns, their names and the model's kind as read: a solve stopped by its time limit leaves the
            # presolved model in place, whose columns (89 of a 150-column knapsack) are fewer and named otherwise,
            # while getSolution() gives the values of all the file's columns
            cols, is_mip = int(a.cols), int(a.mipents) > 0 or int(a.sets) > 0
            if cols == 0:  # Xpress reads a file with only ENDATA, or text without columns, as an empty model
                return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0,
                                 message="Xpress read no columns from the file")
            if (problem := sense_error("Xpress", int(a.objsense) == _MAXIMISE, path)) is not None:
                return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=problem)
            names = list(_call(p, "getNameList", "getnamelist", 2, 0, cols - 1))  # namespace 2: columns
            p.controls.threads = 1
            if time_limit is not None:
                p.controls.timelimit = float(time_limit)
            p.controls.mipaddcutoff = 0.0
            if mip_gap is not None:
                p.controls.miprelstop = float(mip_gap)
            if seed is not None:
                p.controls.randomseed = seed
            ctrl_c = _CtrlC(p)
            ctrl_c.optimize()
            a = p.attributes
            solve_status, sol_status, stop = int(a.solvestatus), int(a.solstatus), int(a.stopstatus)
            values = list(map(float, p.getSolution())) if sol_status in (_OPTIMAL, _FEASIBLE) else []
            objective, bound, mip_status = float(a.objval), float(a.bestbound), int(a.mipstatus)
            nodes, solver_seconds = int(a.nodes), float(a.time)
            if solve_status == _COMPLETED and sol_status == _UNBOUNDED:
                sol_status = _feasibility(p, ctrl_c, cols, time_limit, time.perf_counter() - t0)
                solver_seconds += float(p.attributes.time)
    except (xpress.SolverError, xpress.ModelError, xpress.InterfaceError) as exc:  # unreadable file, size limit
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=f"Xpress: {exc}".strip())
    seconds = time.perf_counter() - t0
    if ctrl_c.caught or (solve_status == _STOPPED and stop == _CTRLC):  # a Ctrl-C ends the command, not this solve
        raise interrupted(NAME, "stopped, ctrl-c")
    if solve_status == _COMPLETED and sol_status in (_OPTIMAL, _INFEASIBLE, _UNBOUNDED, None):
        status = {_OPTIMAL: "optimal", _INFEASIBLE: "infeasible", _UNBOUNDED: "unbounded",
                  None: "infeasible_or_unbounded"}[sol_status]
    elif solve_status == _STOPPED and stop == _TIMELIMIT and sol_status in (_NOTFOUND, _FEASIBLE):
        status = "time_limit"
    else:
        status = "error"
    result = RunResult(NAME, str(path), status, seconds=seconds, solver_seconds=solver_seconds,
                       nodes=nodes if is_mip else 0)
    if status == "error":
        result.message = (f"Xpress solve status {_SOLVE_NAMES.get(solve_status, solve_status)}, solution status "
                          f"{_SOL_NAMES.get(sol_status, sol_status)}, stop status {_STOP_NAMES.get(stop, stop)}")
    if status in ("optimal", "time_limit") and values:
        result.objective = finite_or_none(objective)
        result.solution = dict(zip(names, values))
    if is_mip and status in ("optimal", "time_limit") and mip_status >= _MIP_LP_OPTIMAL:
        result.bound = finite_or_none(bound)  # before the root LP, Xpress reports a bound of 0
    elif not is_mip and status == "optimal":  # an LP's bound is its optimum
        result.bound = result.objective
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result


def _feasibility(p, ctrl_c: _CtrlC, cols: int, time_limit: float | None, spent: float) -> int | None:
    """After Xpress said "unbounded" (which it also says of some infeasible models: its dual simplex, or an
    unbounded relaxation of an infeasible MILP), solve ``p`` again with the objective 0: ``_UNBOUNDED`` when
    that finds a feasible point (with rational data a feasible MILP with an unbounded relaxation is unbounded),
    ``_INFEASIBLE`` when it proves none exists, ``None`` (either) when it stops without an answer."""
    _call(p, "chgObj", "chgobj", list(range(cols)), [0.0] * cols)
    if time_limit is not None:
        p.controls.timelimit = max(float(time_limit) - spent, 0.0)
    ctrl_c.optimize()
    a = p.attributes
    if int(a.solvestatus) != _COMPLETED:
        return None
    return {_OPTIMAL: _UNBOUNDED, _FEASIBLE: _UNBOUNDED, _INFEASIBLE: _INFEASIBLE}.get(int(a.solstatus))
