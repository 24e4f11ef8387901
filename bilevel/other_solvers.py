"""Solve a tuning MILP with Gurobi or CPLEX instead of HiGHS, through Pyomo's direct interfaces (optional).

HiGHS (:func:`bilevel.solve_model`) is the package's solver. On the optimistic cancer |T| = |V| = 100 models,
Gurobi and CPLEX prove in seconds what takes HiGHS tens of seconds (experiments/PERFORMANCE.md, *Another solver
on the same MILPs*), so :func:`bilevel.tune` can hand its MILPs to them (``tune(..., solver="gurobi")``). They
need their Python packages (``gurobipy``, ``cplex``; in the ``test`` extra) and a license; the pip packages bring
size-limited ones (Gurobi: 2000 variables and 2000 rows; CPLEX Community Edition: 1000 of each), above which the
solve raises SolverError naming the limit. HiGHS's callbacks (the box search inside the run, cutoff restarts
while it runs, races) have no counterpart here: :func:`bilevel.tune` runs the box search before the solve instead.
"""
from __future__ import annotations

import contextlib
import functools
import io
import math
import time
import warnings
from collections.abc import Mapping

import pyomo.environ as pyo
from pyomo.version import version as pyomo_version
from pyomo.opt import TerminationCondition

from .errors import InputError, SolverError
from .solve import InfeasibleModelError, NoSolutionError, SolveInfo, _proven, _relative_gap
from .validation import SOLVERS, check_count, check_mip_gap, check_positive, is_choice, value_text

_PYOMO_NAME = {"gurobi": "gurobi_direct", "cplex": "cplex_direct"}
#: The Python package of each solver other than HiGHS (pip install it, plus a license).
PACKAGES = {"gurobi": "gurobipy", "cplex": "cplex"}
#: The solvers' own parameter for the arguments of :func:`solve_other` (Pyomo's option names: CPLEX's with ``_``
#: for the dots of its parameter path).
_ARGUMENT_OPTIONS = {"gurobi": {"time_limit": "TimeLimit", "mip_gap": "MIPGap", "threads": "Threads"},
                     "cplex": {"time_limit": "timelimit", "mip_gap": "mip_tolerances_mipgap", "threads": "threads"}}
#: CPLEX statuses of a MIP stopped by a limit without a feasible solution (time, node, memory).
_CPLEX_NO_SOLUTION = (108, 106, 112)
#: The statuses of a solve a Ctrl-C stopped: Gurobi ``INTERRUPTED``; CPLEX ``CPX_STAT_ABORT_USER``,
#: ``CPXMIP_ABORT_FEAS``, ``CPXMIP_ABORT_INFEAS``.
_USER_ABORT = {"gurobi": (11,), "cplex": (13, 113, 114)}
#: Parameters that make a solver tell an infeasible model from an unbounded one (no dual presolve reductions).
_PRIMAL_REDUCTIONS_ONLY = {"gurobi": {"DualReductions": 0}, "cplex": {"preprocessing_reduce": 1}}


def check_solver(solver) -> str:
    """Return ``solver`` after checking it is one of :data:`SOLVERS`; InputError naming it otherwise."""
    if not is_choice(solver, SOLVERS):
        raise InputError(f"solver must be one of {', '.join(map(repr, SOLVERS))}; got {value_text(solver)}")
    return solver


def check_solver_runs(solver, clock: str = "seconds") -> str:
    """Return ``solver`` after checking that a study or candidate grid can run every MILP with it: one of
    :data:`SOLVERS` (:func:`check_solver`), with ``clock`` ``"seconds"`` unless it is HiGHS (the node clock counts
    HiGHS's nodes), and able to run here (:func:`unavailable_reason`). Raises InputError naming the problem, before
    any MILP is built."""
    if check_solver(solver) != "highs":
        if clock != "seconds":
            raise InputError(f"clock {clock!r} is HiGHS only; solver {solver!r} runs with clock='seconds'")
        if (reason := unavailable_reason(solver)) is not None:
            raise InputError(f"solver {solver!r} cannot run: {reason}")
    return solver


def unavailable_reason(solver: str) -> str | None:
    """Why ``solver`` (``"gurobi"`` or ``"cplex"``) cannot run here (its package missing, no license), or
    ``None`` when Pyomo's direct interface reports it available (about 2 ms after the first call). HiGHS is always
    available. Raises InputError for a name not in :data:`SOLVERS` (:func:`check_solver`)."""
    if check_solver(solver) == "highs":
        return None
    with _quiet():
        opt = pyo.SolverFactory(_PYOMO_NAME[solver])
        ok = opt.available(exception_flag=False)
    if not ok:
        return f"Pyomo's {_PYOMO_NAME[solver]} interface is unavailable (pip install {PACKAGES[solver]}, and a license)"
    return _probe_failure(solver)


#: What a solver's probe failure adds, measured with gurobipy 13.0.0: Pyomo 6.7.2 to 6.8.0 pass ``sense=`` to its
#: ``addConstr``; 6.8.1 (which calls ``addLConstr``), 6.8.2, 6.9.0 and 6.10.1 solve the tuning MILPs.
_NEWER_PYOMO = {"gurobi": " (with gurobipy 13, Pyomo 6.8.1 and newer do: pip install 'pyomo>=6.8.1')"}


@functools.lru_cache(maxsize=None)
def _probe_failure(solver: str) -> str | None:
    """Why Pyomo's interface fails to solve a one-row model with ``solver`` (e.g. Pyomo 6.7's ``gurobi_direct``
    passes ``sense=`` to gurobipy 13's ``addConstr``, which no longer takes it), or ``None``; once per process."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x >= 0)
    m.o = pyo.Objective(expr=m.x)
    try:
        with _quiet():
            pyo.SolverFactory(_PYOMO_NAME[solver]).solve(m, load_solutions=False, tee=False)
    except Exception as exc:  # noqa: BLE001 - whatever the interface raises
        text = " ".join(str(exc).split())[:200]
        return (f"Pyomo {pyomo_version}'s {_PYOMO_NAME[solver]} fails on a one-row model ({text}); a newer "
                "Pyomo may work with this solver release" + _NEWER_PYOMO.get(solver, ""))
    return None


def check_solver_options(solver: str, options) -> dict:
    """Return ``options`` (the solver's own parameters by name, as Pyomo's direct interface takes them, e.g.
    ``{"Seed": 1}`` for Gurobi, ``{"randomseed": 1}`` for CPLEX; ``None``: none) as a dict, after checking it is a
    mapping of strings to numbers or strings, without NaN, and sets no parameter an argument of
    :func:`solve_other` sets (``TimeLimit``, ``MIPGap``, ``Threads``; CPLEX ``timelimit``,
    ``mip_tolerances_mipgap``, ``threads``). Raises InputError naming what is wrong; an unknown parameter name or
    a value the solver refuses raises InputError when the solve starts."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InputError(f"solver_options must be a mapping of {solver} parameter names to values; "
                         f"got {value_text(options)}")
    taken = {name.lower(): arg for arg, name in _ARGUMENT_OPTIONS[solver].items()}
    for key, value in options.items():
        if not isinstance(key, str):
            raise InputError(f"solver_options: parameter names must be strings; got {value_text(key)}")
        if key.lower() in taken:
            raise InputError(f"solver_options: set {key} with the argument {taken[key.lower()]}, not here")
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) or (
                isinstance(value, float) and math.isnan(value)):
            raise InputError(f"solver_options: {key} must be a number or a string; got {value_text(value)}")
    return dict(options)


@contextlib.contextmanager
def _quiet():
    """Silence what the solvers' libraries print (CPLEX writes its errors to stdout) and warn while running."""
    with (warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()),
          contextlib.redirect_stderr(io.StringIO())):
        warnings.simplefilter("ignore")
        yield


def solve_other(model: pyo.ConcreteModel, solver: str, time_limit: float | None = None, mip_gap: float | None = None,
                threads: int | None = None, mip_start=None, options: dict | None = None,
                interrupt_when=None) -> SolveInfo:
    """Solve the linear Pyomo (MI)LP ``model`` with Gurobi or CPLEX (Pyomo's ``gurobi_direct`` or
    ``cplex_direct``) and load the incumbent into its variables, binaries rounded, as :func:`bilevel.solve_model`
    does with HiGHS. A utility (no equation of the papers); for this package's models the objective is a mean
    hinge loss.

    ``time_limit`` seconds (the solver's wall clock; ``None``: none), ``mip_gap`` relative gap (``None``: the
    solver's default 1e-4), ``threads`` (``None`` or 0: the solver's default, every core), ``mip_start`` the
    ``(VarData, value)`` pairs of a feasible point handed to the solver (variables not given get no start value:
    the solver completes the rest), ``options`` the solver's own parameters (:func:`check_solver_options`).
    ``interrupt_when`` must be ``None`` (a HiGHS hook; accepted so that callers pass one set of arguments).

    Returns a :class:`bilevel.solve.SolveInfo` in the units of :func:`bilevel.solve_model`'s: status
    ``"optimal"`` only when the solver's bound proves the incumbent within HiGHS's default tolerances (relative
    1e-4 or absolute 1e-6; a solve stopped at a larger ``mip_gap`` is ``"gap_limit"``), ``"time_limit"`` with the
    incumbent otherwise; ``seconds`` the solver's time, ``compile_seconds`` the rest of the call (Pyomo's
    translation), ``nodes`` its branch-and-bound nodes, ``options`` the parameters set.

    Raises InputError for a bad argument, an unknown solver parameter or a value the solver refuses, or a solver
    that is not installed or has no license (:func:`unavailable_reason`); SolverError for a model above the
    license's size limits or another solver failure; InfeasibleModelError when the solver proves the model
    infeasible; NoSolutionError when it stops without any feasible solution."""
    if check_solver(solver) == "highs":
        raise InputError("solve_other is for Gurobi and CPLEX; solve with HiGHS through bilevel.solve_model")
    if interrupt_when is not None:
        raise InputError("interrupt_when is a HiGHS hook; Gurobi and CPLEX run without it")
    if (reason := unavailable_reason(solver)) is not None:
        raise InputError(f"solver {solver!r} cannot run: {reason}")
    given = check_solver_options(solver, options)
    names = _ARGUMENT_OPTIONS[solver]
    if time_limit is not None:
        given[names["time_limit"]] = check_positive(time_limit, "time_limit (seconds)")
    if mip_gap is not None:
        given[names["mip_gap"]] = check_mip_gap(mip_gap)
    if threads is not None and check_count(threads, "threads") > 0:
        given[names["threads"]] = threads
    free = [v for v in model.component_data_objects(pyo.Var, descend_into=True) if not v.fixed]
    before = [v.value for v in free]
    if mip_start is not None:  # the start alone: values left from an earlier solve would be handed in too
        pairs = list(mip_start.items()) if isinstance(mip_start, Mapping) else list(mip_start)
        for var in free:
            var.set_value(None, skip_validation=True)
        for var, value in pairs:
            var.set_value(float(value), skip_validation=True)
    t0 = time.perf_counter()
    try:
        opt, results = _run(model, solver, given, mip_start is not None)
        condition, seconds = results.solver.termination_condition, 0.0
        if condition == TerminationCondition.infeasibleOrUnbounded:  # solve again to tell the two apart
            seconds = float(results.solver.wallclock_time or 0.0)
            opt, results = _run(model, solver, {**given, **_PRIMAL_REDUCTIONS_ONLY[solver]}, mip_start is not None)
            condition = results.solver.termination_condition
    except BaseException:
        _restore(free, before)
        raise
    wall = time.perf_counter() - t0
    seconds += float(results.solver.wallclock_time or wall)
    native = opt._solver_model  # Pyomo's handle of the solver's own model: status, nodes and solution count
    problem = None
    if solver == "cplex" and native.solution.get_status() in _CPLEX_NO_SOLUTION:  # Pyomo calls these "error"
        problem = NoSolutionError(f"cplex stopped without a feasible solution ({native.solution.get_status_string()})")
    elif condition == TerminationCondition.infeasible:
        problem = InfeasibleModelError(f"{solver} reports the model infeasible")
    elif condition not in (TerminationCondition.optimal, TerminationCondition.maxTimeLimit):
        problem = SolverError(f"{solver} stopped with termination condition {condition}")
    elif not _has_solution(solver, native):
        problem = NoSolutionError(f"{solver} stopped ({condition}) without a feasible solution")
    if problem is not None:
        _restore(free, before)
        raise problem
    with _quiet():
        opt.load_vars()
    for var in free:
        if var.is_integer() and var.value is not None:
            var.set_value(float(round(var.value)), skip_validation=True)
    objective = float(pyo.value(next(model.component_data_objects(pyo.Objective, active=True))))
    minimise = next(model.component_data_objects(pyo.Objective, active=True)).sense == pyo.minimize
    bound = results.problem.lower_bound if minimise else results.problem.upper_bound
    bound = (float("-inf") if minimise else float("inf")) if bound is None else float(bound)
    status = "time_limit" if condition == TerminationCondition.maxTimeLimit else (
        "optimal" if _proven(objective, bound) else "gap_limit")
    binaries = sum(1 for v in free if v.is_integer())
    rows = sum(1 for _ in model.component_data_objects(pyo.Constraint, active=True))
    return SolveInfo(status=status, objective=objective, best_bound=bound, gap=_relative_gap(objective, bound),
                     seconds=seconds, nodes=_nodes(solver, native), compile_seconds=max(0.0, wall - seconds),
                     n_variables=len(free), n_binaries=binaries, n_constraints=rows, options=given)


def _run(model, solver: str, given: dict, warmstart: bool):
    """One solve through Pyomo's direct interface: ``(solver object, results)``. Raises KeyboardInterrupt when the
    solver caught a Ctrl-C (the command stops, not only this solve), else as :func:`_translated`."""
    opt = pyo.SolverFactory(_PYOMO_NAME[solver])
    opt.options.update(given)
    try:
        with _quiet():
            results = opt.solve(model, load_solutions=False, warmstart=warmstart, tee=False)
    except Exception as exc:  # noqa: BLE001 - the solvers raise their own exception classes, AttributeError too
        raise _translated(solver, exc, given) from None
    native = opt._solver_model
    code = native.Status if solver == "gurobi" else native.solution.get_status()
    if code in _USER_ABORT[solver]:  # Pyomo calls these "error"
        raise KeyboardInterrupt(f"{solver} caught a Ctrl-C")
    return opt, results


def _restore(free: list, values: list) -> None:
    """Put back the variable values a failed solve found (the MIP start had replaced them)."""
    for var, value in zip(free, values):
        var.set_value(value, skip_validation=True)


def _has_solution(solver: str, native) -> bool:
    """Whether the solver holds a feasible solution (Gurobi's ``SolCount``, CPLEX's primal feasibility)."""
    if solver == "gurobi":
        return native.SolCount > 0
    return bool(native.solution.is_primal_feasible())


def _nodes(solver: str, native) -> int:
    """The solver's branch-and-bound node count (0 for an LP)."""
    if solver == "gurobi":
        return int(native.NodeCount) if native.IsMIP else 0
    return int(native.solution.progress.get_num_nodes_processed())


def _translated(solver: str, exc: Exception, given: dict) -> Exception:
    """The package's error for an exception from inside a solve: the license's size limits and other solver
    failures are SolverError; an unknown parameter or a refused value InputError naming the parameters set."""
    text = " ".join(str(exc).split())
    if "size" in text.lower() and "limit" in text.lower() or "1016" in text:
        return SolverError(f"{solver}: the model is above the license's size limits ({text}); use a full license "
                           "or solver='highs'")
    if isinstance(exc, AttributeError) or "parameter" in text.lower():
        return InputError(f"{solver} refused a parameter of {sorted(given)}: {text}")
    return SolverError(f"{solver} failed: {text}")
