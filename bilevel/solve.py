"""Solve a linear Pyomo model (LP or MILP) with HiGHS through ``highspy``, honestly.

The model is compiled to sparse matrices with Pyomo's ``LinearStandardFormCompiler`` and passed to
``highspy.Highs`` directly, so that time limits, gaps, threads and MIP starts are under our control and
the full solver report (status, objective, best bound, gap, time, nodes) comes back. The solution values
are loaded into the Pyomo variables, so any (modified) linear Pyomo model can be solved this way.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import highspy
import numpy as np
import pyomo.environ as pyo
from pyomo.common.errors import InfeasibleConstraintException
from pyomo.repn.plugins.standard_form import LinearStandardFormCompiler
from scipy.sparse import csc_matrix, csr_matrix

from .errors import InputError, SolverError
from .export import bound_conflicts, first_five
from .highs_options import ARGUMENT_OPTIONS, MAX_CONCURRENCY, UNSAFE_OPTIONS
from .highs_run import ctrl_c_pending, sigint_as_flag, silent_highs
from .pause_gc import gc_paused
from .validation import check_clock, check_count, check_mip_gap, check_positive, is_integer, value_text

_STATUS = {
    highspy.HighsModelStatus.kOptimal: "optimal",
    highspy.HighsModelStatus.kTimeLimit: "time_limit",
    highspy.HighsModelStatus.kIterationLimit: "iteration_limit",
    highspy.HighsModelStatus.kSolutionLimit: "solution_limit",
    highspy.HighsModelStatus.kInterrupt: "interrupted",
    highspy.HighsModelStatus.kMemoryLimit: "memory_limit",
    highspy.HighsModelStatus.kObjectiveBound: "objective_bound",
    highspy.HighsModelStatus.kObjectiveTarget: "objective_target",
    highspy.HighsModelStatus.kInfeasible: "infeasible",
    highspy.HighsModelStatus.kUnbounded: "unbounded",
    highspy.HighsModelStatus.kUnboundedOrInfeasible: "unbounded_or_infeasible",
    # no column: every variable fixed or in no row or objective term, each row's constant checked by the compiler
    # (InfeasibleModelError) and the bounds by bound_conflicts; the objective's constant is its optimum
    highspy.HighsModelStatus.kModelEmpty: "optimal",
}


class NoSolutionError(SolverError):
    """The solver stopped (time limit, interrupt, ...) before finding any feasible solution."""


class InfeasibleModelError(SolverError):
    """HiGHS proved the model infeasible."""


@dataclass
class SolveInfo:
    """What HiGHS reported. ``objective`` and ``best_bound`` are in the model's own objective units
    (for our models: mean hinge loss); ``gap`` is HiGHS's relative MIP gap ``|obj - bound| / |obj|``
    (for an LP: 0 when optimal; an LP stopped early has no bound, ``best_bound`` -inf (minimisation) or inf and
    ``gap`` inf); ``seconds`` is HiGHS's run time; ``nodes`` the branch-and-bound node count (both summed over
    the runs of a solve that :func:`solve_model` solves again); ``compile_seconds`` the wall time (seconds) of
    compiling the model for HiGHS (:func:`compile_model`), summed over the compiles of such a solve (a check
    without presolve, or without a failing MIP start, compiles the model again; the re-solve after a stale
    solution does not). ``options`` are the HiGHS options that repeat the
    solve: those of the run whose solution is returned (with ``presolve="off"`` when a re-solve set it), the
    ``time_limit`` (seconds) and ``mip_max_nodes`` the caller gave (not what was left of them for a re-solve: the
    runs of one solve share the caller's limits), and the ``random_seed`` HiGHS held in that run (an int) whenever
    one was set or it is not HiGHS's default 0: after a race (``solve_model(race=k)``) the winning run's, so that
    ``solve_model(model, options=info.options)`` repeats that run (:attr:`random_seed`)."""

    status: str
    objective: float
    best_bound: float
    gap: float
    seconds: float
    nodes: int
    compile_seconds: float
    n_variables: int
    n_binaries: int
    n_constraints: int
    options: dict = field(default_factory=dict)

    def __post_init__(self):
        # + 0.0 turns -0.0 into 0.0: an optimum of 0 came back as -0.0 (Pyomo's sum of the objective's terms) and
        # was printed "-0.000000", for HiGHS and the other solvers alike; a mean hinge loss has no sign
        self.objective += 0.0
        self.best_bound += 0.0

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    @property
    def random_seed(self):
        """HiGHS's ``random_seed`` of the run whose solution is returned, as HiGHS held it (an int; a race's
        winner's; HiGHS's default 0 when nothing set it)."""
        return self.options.get("random_seed", 0)


@dataclass
class CompiledModel:
    """A linear Pyomo model as a ``highspy.HighsLp`` plus the column / objective bookkeeping."""

    lp: highspy.HighsLp
    columns: list
    sense: int
    n_binaries: int
    n_rows: int
    seconds: float


@gc_paused
def compile_model(model: pyo.ConcreteModel) -> CompiledModel:
    """Compile a linear Pyomo model with one active objective into a ``highspy.HighsLp``.

    Raises InputError when ``model`` is not a Pyomo model (an AttributeError from inside before, e.g. from
    :func:`bilevel.library.mps_model`), is not linear or has no / several active objectives;
    InfeasibleModelError when a row holds no free variable and its constant breaks it (e.g. ``0 * x >= 1``, or
    ``y >= 1`` with ``y`` fixed at 0: Pyomo's compiler refuses it before HiGHS sees the model), or when the
    variable bounds alone are infeasible (:func:`bilevel.export.bound_conflicts`: bounds that cross, a value fixed
    outside them or an integer fixed at a fraction, which the compiler would drop or take as a constant)."""
    t0 = time.perf_counter()
    if not isinstance(model, pyo.Block):
        raise InputError(f"expected a Pyomo model; got {type(model).__name__}")
    objectives = list(model.component_data_objects(pyo.Objective, active=True))
    if len(objectives) != 1:
        raise InputError(f"the model must have exactly one active objective; it has {len(objectives)}")
    conflicts = bound_conflicts(model)
    if conflicts:  # the compiler makes a fixed variable a constant and leaves out one in no row: solved "optimal"
        raise InfeasibleModelError(f"the model is infeasible by its variable bounds alone ({first_five(conflicts)})")
    try:
        repn = LinearStandardFormCompiler().write(model, mixed_form=True, set_sense=None)
    except (ValueError, TypeError) as exc:  # nonlinear expressions and the like
        raise InputError(f"the model is not a linear (MI)LP Pyomo can compile: {exc}") from None
    except InfeasibleConstraintException as exc:  # raised a raw Pyomo exception from solve_model and mps_model
        raise InfeasibleModelError(f"the model is infeasible: {exc} (a row without free variables)") from None
    except NameError as exc:  # Pyomo 6.7's compiler, at the same row, names an exception it does not import
        if "InfeasibleError" not in str(exc):
            raise
        raise InfeasibleModelError("the model is infeasible: it has a row without free variables that its constant "
                                   "breaks") from None
    A = repn.A.tocsc()
    n_col, n_row = A.shape[1], A.shape[0]
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n_col, n_row
    lp.col_cost_ = np.asarray(repn.c.toarray()[0] if repn.c.shape[0] else np.zeros(n_col), dtype=float)
    try:
        lp.offset_ = float(repn.c_offset[0]) if len(repn.c_offset) else 0.0
    except ValueError:  # pyomo's InvalidNumber of a NaN constant in the objective (InvalidValueError)
        raise InputError("the model has a NaN or infinite objective coefficient") from None
    inf = highspy.kHighsInf
    lower = np.array([-inf if v.lb is None else v.lb for v in repn.columns], dtype=float)
    upper = np.array([inf if v.ub is None else v.ub for v in repn.columns], dtype=float)
    lp.col_lower_, lp.col_upper_ = lower, upper
    rhs = np.asarray(repn.rhs, dtype=float)
    kinds = np.array([r.bound_type for r in repn.rows], dtype=int)
    lp.row_lower_ = np.where(kinds >= 0, np.where(kinds == 0, rhs, -inf), rhs)
    lp.row_upper_ = np.where(kinds <= 0, np.where(kinds == 0, rhs, inf), rhs)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr.astype(np.int32)
    lp.a_matrix_.index_ = A.indices.astype(np.int32)
    lp.a_matrix_.value_ = A.data.astype(float)
    integer = [v.is_integer() for v in repn.columns]
    if any(integer):
        lp.integrality_ = [highspy.HighsVarType.kInteger if k else highspy.HighsVarType.kContinuous for k in integer]
    for what, values in (("objective", np.append(lp.col_cost_, lp.offset_)), ("constraint", A.data),
                         ("right-hand side", rhs)):
        if np.isnan(values).any() or (what != "right-hand side" and np.isinf(values).any()):
            raise InputError(f"the model has a NaN or infinite {what} coefficient")
    if np.isnan(lower).any() or np.isnan(upper).any():
        raise InputError("the model has a NaN variable bound")
    sense = objectives[0].sense
    lp.sense_ = highspy.ObjSense.kMaximize if sense == pyo.maximize else highspy.ObjSense.kMinimize
    return CompiledModel(lp, list(repn.columns), int(sense), sum(integer), n_row, time.perf_counter() - t0)


def solve_model(
    model: pyo.ConcreteModel,
    time_limit: float | None = None,
    mip_gap: float | None = None,
    threads: int | None = None,
    mip_start=None,
    options: dict | None = None,
    race: int = 1,
    improve=None,
    improve_after: float = 1.0,
    interrupt_when=None,
    clock: str = "seconds",
) -> SolveInfo:
    """Solve a linear Pyomo (MI)LP with HiGHS and load the incumbent into the model's variables.

    A utility (no equation of the papers); for this package's models the objective is a mean hinge loss.

    Parameters
    ----------
    time_limit : seconds of HiGHS run time (``None``: no limit). Honoured: a solve that stops early
        returns status ``"time_limit"`` and the incumbent, never ``"optimal"``.
    mip_gap : relative MIP gap at which HiGHS stops (HiGHS default 1e-4; ``None`` keeps it). A solve that
        stops at a larger ``mip_gap`` with its gap above HiGHS's default tolerances (relative 1e-4, absolute
        1e-6) has status ``"gap_limit"``, not ``"optimal"`` (HiGHS reports both as optimal).
    threads : HiGHS threads, an int in [0, :data:`MAX_CONCURRENCY`] (``None`` or 0: HiGHS's default, half the
        cores; ``options={"threads": ...}`` is checked alike). HiGHS 1.15 searches a MILP's tree in parallel
        only with ``threads >= 2`` and the option ``parallel="on"`` (``options={"parallel": "on"}``). The HiGHS
        runs of a thread share that thread's task scheduler (HiGHS's "global scheduler", held per thread), which
        any HiGHS run may have created with another count: a solve given ``threads`` re-creates it first (not
        from inside an ``improve`` or ``interrupt_when`` hook of a running solve; there it must match).
    mip_start : optional feasible assignment handed to HiGHS as a MIP start: a sequence of
        ``(VarData, value)`` pairs or a Pyomo ``ComponentMap`` over ``model``'s own variables (variables not given
        get 0 clipped to their bounds; a name, a number or another model's variable as a key is an InputError).
    options : further HiGHS options by name, e.g. ``{"presolve": "on"}``. Those in :data:`UNSAFE_OPTIONS`
        are refused at any value but HiGHS's default (they give wrong answers on these MILPs).
    race : number of HiGHS runs (1 to :data:`MAX_CONCURRENCY`) started concurrently on the same MILP, in
        threads, with random seeds ``(random_seed + k) mod 2**31`` (``k = 0..race-1``; HiGHS's run time on the tuning
        MILPs varies several-fold with the seed alone). The first run to finish stops the others (one stopped
        by a limit every run has, ``time_limit``, ``mip_max_nodes``, an iteration limit, does not: each run
        reaches it, and the result is the run with the best incumbent, or one that proved an incumbent as
        good within HiGHS's default tolerances); the result is that run's, with the best dual bound of all runs
        (each is valid). ``nodes`` and ``seconds`` are the winner's, and so is the ``random_seed`` the result's
        ``options`` record (not the caller's, unless the first run won). This is how a MILP uses more than one
        core besides HiGHS's own parallel search (``threads``), and on these MILPs the faster of the two (README,
        *Performance*); 1 (default) is one plain run. LPs are never raced.
    improve : optional primal heuristic, called at most once per call of this function (a re-solve below gets it
        only when no run before it called it), from inside HiGHS's run (its user-solution callback), when a MILP is
        still running after ``improve_after`` (on ``clock``; a re-solve's own clock starts at 0):
        ``improve(incumbent, dual_bound, deadline)`` with HiGHS's current objective values and the
        ``time.perf_counter()`` value at which the time limit falls (``None``: no limit) returns ``(VarData,
        value)`` pairs of a better solution, or ``None``. HiGHS checks the solution and keeps it if it is feasible
        and better. Solves that finish sooner never call it; its time counts in ``seconds``. An exception it raises
        (any, ``KeyboardInterrupt`` too) stops the runs and is re-raised after the solve.
    interrupt_when : optional ``(objective, elapsed) -> bool``, called at HiGHS's interrupt checks (at least
        once per branch-and-bound node) once a MILP run has an incumbent, with the incumbent's objective
        and the run's ``clock`` so far; when it returns True every run stops and the result has status
        ``"interrupted"`` with the best incumbent (e.g. to rebuild a tighter model around it, as
        :func:`bilevel.tune` does). An exception it raises (any, ``KeyboardInterrupt`` too) stops the runs and is
        re-raised after the solve. In a race the hooks are called from the runs' threads.
    clock : what ``improve_after`` and ``interrupt_when``'s ``elapsed`` count: ``"seconds"`` (default), the
        run's HiGHS time, or ``"nodes"``, its branch-and-bound node count. With ``"nodes"`` the hooks run at
        the same point of HiGHS's search on any machine and under any load, so a solve without a time limit
        and without ``race`` (single-threaded HiGHS) returns the same solution every time; with
        ``"seconds"`` a faster or busier machine can send HiGHS down another path (to another tied optimum).

    Returns
    -------
    :class:`SolveInfo`. Each re-solve below gets what is left of ``time_limit`` and of the option
    ``mip_max_nodes`` after the runs before it (the runs share both limits), and the result's ``seconds`` and
    ``nodes`` sum all the runs; "no time left" below means either limit used up, whose status is then
    ``"time_limit"`` (or ``"solution_limit"``, HiGHS's status at ``mip_max_nodes``). When the values HiGHS
    returns miss the objective it reports and a ``mip_start`` or ``improve`` solution was handed in (HiGHS
    1.16.0 can return the start's values; README, "Dependency versions"), the model is solved again without
    them (raced again when ``race`` > 1, as every re-solve below is). When that re-solve stops without a better
    solution (or no time is left for it) and the first run's values satisfy the model (bounds, integrality, rows
    within 1e-6), those values come back, with the
    re-solve's status and bound (no time left: ``"time_limit"`` and an infinite bound). When HiGHS ends a MILP
    "optimal" without a finite dual bound (its presolve, given a MIP start, can call a feasible model infeasible
    and stop at the start), nothing is proven: the model is solved again with the option ``presolve="off"``
    (reported in ``options``) (no time left: status ``"time_limit"`` and an infinite bound); so is a MILP that
    ends "optimal" at the root (node count 0 or 1) with the MIP start's objective (HiGHS 1.15.1's presolve has
    cut off a better point there), solved again from the start. A report of infeasibility is checked the same
    way: the model is solved again with ``presolve="off"``, and only that run's infeasibility raises; in a race,
    a claim of infeasibility that another run's incumbent (values that satisfy the model) disproves never
    raises InfeasibleModelError: the check starts from the best such incumbent (not the caller's
    ``mip_start``), so its result is at least as good, and unless it proves its result the best bound is the
    tightest of the check's and of the runs that made no such claim; with no time left to check it the result
    is that incumbent, status ``"time_limit"``, with the dual bounds of the runs that made no such claim (with
    presolve off, or a check that repeats the claim, a SolverError). A run given a ``mip_start`` that HiGHS ends in a
    solve error is solved again without the start (HiGHS 1.15.1 has ended a tie re-solve so, from its start only).

    Raises
    ------
    InputError for a ``model`` that is not a Pyomo model, an ``improve`` or ``interrupt_when`` that is not
    callable, a negative or NaN ``improve_after``, a bad ``time_limit``, ``mip_gap``, ``threads``, ``race``,
    ``clock``, an option whose name is not a string, an option :func:`check_highs_option` refuses (NaN, one of
    :data:`UNSAFE_OPTIONS`, or rejected by HiGHS), a ``large_matrix_value`` option at or below the model's largest
    matrix entry (HiGHS then refuses to load the model), ``time_limit``, ``mip_gap`` or ``threads`` given also as
    the option ``time_limit``, ``mip_rel_gap`` or ``threads``, or a ``mip_start`` (or an
    ``improve`` return value, raised after the solve) that is not ``(variable, number)`` pairs or a mapping, that
    gives a variable NaN or an infinite value, or (``mip_start``) is keyed by names, numbers or another model's
    variables;
    InfeasibleModelError (a SolverError) for bounds that make the model infeasible alone (bounds that cross, a
    variable fixed outside them, an integer fixed at a fraction), for a row without free variables that its constant
    breaks (Pyomo's
    compiler refuses it, :func:`compile_model`);
    SolverError when HiGHS reports the model infeasible (InfeasibleModelError; a plain SolverError when a
    re-solve reports it after the first run returned values that satisfy the model, or a raced run held
    some) or unbounded, fails, does
    not run it, or returns values that miss its reported objective without a start to blame (or that violate
    the model, with no time left to solve again);
    NoSolutionError (a SolverError) when it stops before finding a feasible solution.
    """
    if not isinstance(model, pyo.Block):  # e.g. 5: an AttributeError from inside the compile
        raise InputError(f"model must be a Pyomo model; got {type(model).__name__}")
    for name, hook in (("improve", improve), ("interrupt_when", interrupt_when)):
        if hook is not None and not callable(hook):  # else a TypeError from inside HiGHS's callback, mid-solve
            raise InputError(f"{name} must be a callable or None; got {hook!r}")
    # checked with or without ``improve``: the docstring refuses a negative or NaN improve_after, and
    # solve_model(m, improve_after=-1) ran as if it were valid when no hook was given
    check_positive(improve_after, "improve_after", allow_zero=True, allow_inf=True)
    if options is not None and not isinstance(options, Mapping):
        raise InputError(f"options must be a mapping of HiGHS option names to values; got {options!r}")
    # numpy scalars as Python numbers: highspy refuses a np.float32 (or float16) for a double option, which was
    # reported as "HiGHS rejected option mip_heuristic_effort=np.float32(0.1)"
    opts = {key: value.item() if isinstance(value, np.generic) else value for key, value in (options or {}).items()}
    bad_keys = [key for key in opts if not isinstance(key, str)]
    if bad_keys:  # highspy raised a raw TypeError
        raise InputError(f"HiGHS option names must be strings; got {bad_keys[0]!r}")
    for key, value in opts.items():  # before the compile, as the CLI checks them before loading the data
        check_highs_option(key, value)
    given = {"time_limit": time_limit, "mip_gap": mip_gap, "threads": threads}
    for arg, key in ARGUMENT_OPTIONS.items():
        if given[arg] is not None and key in opts:  # the argument won without a word, and a record of both misled
            raise InputError(f"{arg}={given[arg]!r} and the HiGHS option {key}={opts[key]!r} set the same thing; "
                             f"give it once")
    cm = compile_model(model)
    if time_limit is not None and check_positive(time_limit, "time_limit (seconds)", allow_inf=True) < np.inf:
        opts["time_limit"] = float(time_limit)
    if mip_gap is not None:
        opts["mip_rel_gap"] = check_mip_gap(mip_gap)
    if threads is not None:
        opts["threads"] = threads
    if "threads" in opts:  # std::bad_alloc, or an abort, from HiGHS's scheduler at 10**5 threads
        opts["threads"] = check_count(opts["threads"], "threads (0: HiGHS's choice)", 0, MAX_CONCURRENCY)
    race = check_count(race, "race (concurrent HiGHS runs)", 1, MAX_CONCURRENCY)
    check_clock(clock)
    _match_scheduler(opts)
    start = _start_vector(cm, mip_start, model=model) if _given(mip_start) else None
    # a stopper for every MILP: an exception in improve interrupts the runs through it, and its callback, run at
    # every node, stops HiGHS after a Ctrl-C (highs_run.sigint_as_flag; without a callback, HiGHS held a Ctrl-C
    # until the solve ended: up to the time limit, e.g. every tie re-solve of bilevel study and each lambda re-solve
    # of a pessimistic tune)
    stopper = _Stopper(interrupt_when, clock) if cm.n_binaries else None
    injector = (_Injector(cm, improve, improve_after, opts.get("time_limit"), clock, stopper)
                if improve and cm.n_binaries else None)
    # the node limit a first run and its re-solves share, as they share the time limit (a re-solve was given the
    # caller's whole mip_max_nodes again: a node limit of 5 spent 10 nodes and reported 5)
    node_limit = _highs_option_value("mip_max_nodes", opts["mip_max_nodes"]) if "mip_max_nodes" in opts else None
    rescue = None  # a race whose winner claims infeasibility: the raced run holding the best feasible incumbent
    if race == 1 or not cm.n_binaries:
        h = _configured_highs(cm, opts, start, injector, stopper=stopper)
        _run(h)
        bound_override = None
    else:
        # the caller's random_seed was recorded after a race that another seed won: re-running with the recorded
        # options (race=1) did not repeat the winning run (diabetes 14/14 optimistic, race=2: 13 nodes won by seed
        # 1, recorded as the caller's {} = seed 0, which takes 33); _recorded reads the winner's seed back
        h, bound_override, _, rescue = _race(cm, opts, start, race, injector, stopper)
    recorded = _recorded(opts, h)  # the options of the run whose values are returned (a race's winner's seed)
    for hook in (injector, stopper):
        if hook is not None and hook.error is not None:
            raise hook.error

    def left(seconds: float, nodes: int) -> tuple[float | None, int | None, str | None]:
        """What is left of the time limit and of the node limit after ``seconds`` and ``nodes`` (None: no such
        limit), and the status of a limit used up (``"time_limit"``, or ``"solution_limit"``, HiGHS's status at
        ``mip_max_nodes``), None when both have some left."""
        seconds_left = opts["time_limit"] - seconds if "time_limit" in opts else None
        nodes_left = node_limit - nodes if node_limit is not None else None
        spent = ("time_limit" if seconds_left is not None and seconds_left <= 0 else
                 "solution_limit" if nodes_left is not None and nodes_left <= 0 else None)
        return seconds_left, nodes_left, spent

    def limited(again_opts: dict, seconds_left: float | None, nodes_left: int | None) -> dict:
        """``again_opts`` with the time and node limits left."""
        if seconds_left is not None:
            again_opts = {**again_opts, "time_limit": seconds_left}
        if nodes_left is not None:
            again_opts = {**again_opts, "mip_max_nodes": nodes_left}
        return again_opts

    earlier_seconds, earlier_nodes = 0.0, 0
    stale = _stale_solution(h, cm)
    kept = None  # the stale run's values when they satisfy the model: kept if the re-solve finds nothing better
    if stale and (start is not None or injector is not None):
        # HiGHS 1.16.0 can end "optimal" with the MIP start's values instead of the solution whose objective
        # it reports (seen when presolve alone solves a tie re-solve); the same model without the start (or
        # the solutions the injector hands in) returns the right one (README, "Dependency versions"). The
        # re-solve gets what is left of the time limit.
        kept = _feasible_values(h, cm)
        earlier_seconds, earlier_nodes = float(h.getRunTime()), _node_count(h, cm)
        seconds_left, nodes_left, spent = left(earlier_seconds, earlier_nodes)
        if spent is None:
            stopper = _Stopper(interrupt_when, clock) if stopper is not None else None  # the first run's may be set
            again_opts = limited(opts, seconds_left, nodes_left)
            if race == 1 or not cm.n_binaries:
                h = _configured_highs(cm, again_opts, None, stopper=stopper)
                _run(h)
                bound_override, rescue = None, None
            else:  # raced again, as every other re-solve is (it was a single run, whatever race asked for)
                h, bound_override, _, rescue = _race(cm, again_opts, None, race, None, stopper)
            recorded = _recorded(opts, h)
            if stopper is not None and stopper.error is not None:
                raise stopper.error
            stale = _stale_solution(h, cm)
        elif kept is not None:  # no time (or node) left to solve again: those values, without a bound
            objective = _load_values(model, cm, kept)
            no_bound = -np.inf if cm.sense == pyo.minimize else np.inf
            return _info(cm, spent, objective, no_bound, np.inf, earlier_seconds, earlier_nodes, recorded)
    if stale:
        raise SolverError("HiGHS returned a solution whose objective differs from the objective it reports")
    status_enum = h.getModelStatus()
    if status_enum == highspy.HighsModelStatus.kNotset:
        raise SolverError("HiGHS did not run the model (it rejected an option at run time)")
    status = _STATUS.get(status_enum, h.modelStatusToString(status_enum))
    info = h.getInfo()
    if status == "infeasible" and kept is not None:  # not InfeasibleModelError: callers act on that one
        raise SolverError("HiGHS reports the model infeasible after returning values that satisfy it (a HiGHS fault)")

    def solve_again(seconds: float, nodes: int, again_start, again_opts: dict) -> SolveInfo | None:
        """The model solved again from ``again_start`` with ``again_opts`` in what is left of the time and node
        limits after ``seconds`` and ``nodes`` (summed into the result's ``seconds`` and ``nodes``); None when
        either is used up."""
        seconds_left, nodes_left, spent = left(seconds, nodes)
        if spent is not None:
            return None
        # again_opts holds this run's time limit, gap and threads already; improve only if no run called it yet
        # (it is called once per solve: the check of a claim of infeasibility called tune's box search again)
        unused = improve if injector is None or injector.state == "waiting" else None
        again = solve_model(model, mip_start=again_start, options=limited(again_opts, seconds_left, nodes_left),
                            race=race, improve=unused, improve_after=improve_after, interrupt_when=interrupt_when,
                            clock=clock)
        again.seconds += seconds
        again.nodes += nodes
        again.compile_seconds += cm.seconds  # each re-solve compiles the model again
        # the caller's limits, which repeat the whole solve, not the ones left for this run (SolveInfo.options:
        # the record gave a 30 s solve whose re-check ran 20 s the time_limit 20)
        again.options = {**again.options, **{key: opts[key] for key in _SHARED_LIMITS if key in opts}}
        return again

    def without_presolve(seconds: float, nodes: int, again_start=mip_start) -> SolveInfo | None:
        """:func:`solve_again` from ``again_start`` (the same start unless given) with ``presolve="off"``."""
        return solve_again(seconds, nodes, again_start, {**opts, "presolve": "off"})

    if status == "infeasible" and opts.get("presolve", "choose") != "off":
        # HiGHS 1.15.1's presolve has called feasible tuning MILPs infeasible (a pessimistic 7/2 model without a
        # MIP start; 1/15 with presolve off): the claim is checked once without presolve, in the time left. In a
        # race, from the best incumbent another run held that satisfies the model (the check started from the
        # caller's start, none or worse: a check stopped early raised NoSolutionError, or returned a worse point,
        # where the race had a feasible one)
        check_start = mip_start if rescue is None else list(zip(cm.columns, _feasible_values(rescue, cm)))
        try:
            again = without_presolve(earlier_seconds + float(h.getRunTime()), earlier_nodes + _node_count(h, cm),
                                     check_start)
        except InfeasibleModelError:
            if rescue is None:
                raise
            # the check repeats a claim the raced incumbent disproves (it raised InfeasibleModelError, on which
            # callers act): a HiGHS fault
            raise SolverError("HiGHS reports the model infeasible (with presolve off) while another raced run held a "
                              "feasible solution (a HiGHS fault)") from None
        if again is not None and bound_override is not None and again.status != "optimal":
            # the dual bounds of the raced runs that made no claim are valid, as with no time left to check it (a
            # check stopped early reported -inf where the other run held 0.27, incumbent 0.6)
            tighter = _tighter(cm, bound_override, again.best_bound, again.objective)
            if tighter != again.best_bound:
                again.best_bound, again.gap = tighter, _relative_gap(again.objective, tighter)
        if again is not None:
            return again
    if status == "infeasible" and rescue is not None:
        # another raced run holds a feasible incumbent, which disproves the claim (a race stopped by a run whose
        # presolve called the model infeasible raised InfeasibleModelError with no time left to check it, although
        # the other run had a solution)
        if opts.get("presolve", "choose") == "off":  # not InfeasibleModelError: callers act on that one
            raise SolverError("HiGHS reports the model infeasible (with presolve off) while another raced run holds a "
                              "feasible solution (a HiGHS fault)")
        # no time (or node) left to check the claim: that incumbent, unproven, with the bounds of the runs that did
        # not claim infeasibility (below); its seconds and nodes, as a race reports its winner's
        status = left(earlier_seconds + float(h.getRunTime()), earlier_nodes + _node_count(h, cm))[2] or "time_limit"
        h = rescue
        recorded = _recorded(opts, h)
        status_enum, info = h.getModelStatus(), h.getInfo()
    if status == "infeasible" and opts.get("presolve", "choose") == "off":
        raise InfeasibleModelError("HiGHS reports the model infeasible (with presolve off)")
    if status == "infeasible":  # no time left to check it without presolve
        raise InfeasibleModelError("HiGHS reports the model infeasible (its presolve has reported feasible tuning "
                                   "MILPs infeasible, e.g. HiGHS issue #3307: options={'presolve': 'off'} confirms)")
    if status in ("unbounded", "unbounded_or_infeasible"):
        raise SolverError(f"HiGHS reports the model {status.replace('_', ' ')}")
    if status_enum == highspy.HighsModelStatus.kSolveError and start is not None:
        # HiGHS 1.15.1, handed a MIP start, has ended a tie re-solve (|T| = 3, |V| = 2, max of a linear criterion,
        # presolve off) in a solve error ("MIP solver claims optimality, but with ... primal infeasibilities" of
        # 1e-6, its own feasibility tolerance); without the start it solves. Solved again without it, in the time left.
        again = solve_again(earlier_seconds + float(h.getRunTime()), earlier_nodes + _node_count(h, cm), None, opts)
        if again is not None:
            return again
    if status_enum in (highspy.HighsModelStatus.kSolveError, highspy.HighsModelStatus.kModelError,
                       highspy.HighsModelStatus.kLoadError, highspy.HighsModelStatus.kPresolveError,
                       highspy.HighsModelStatus.kPostsolveError):
        raise SolverError(f"HiGHS failed: {h.modelStatusToString(status_enum)}")
    solution = h.getSolution()
    # A MILP's values without HiGHS's "feasible" status count only when they satisfy the model: stopped at a
    # 1e-4 s time limit after rejecting an infeasible MIP start, HiGHS 1.15.1 returned that start's values, which
    # broke rows by 6.6, and they came back as a time_limit incumbent of objective 0
    has_solution = info.primal_solution_status == 2 or (
        cm.n_binaries and np.isfinite(info.objective_function_value) and solution.value_valid
        and _feasible_values(h, cm) is not None)
    seconds = earlier_seconds + float(h.getRunTime())
    values = solution.col_value if solution.value_valid and has_solution else None
    if kept is not None and (values is None or _better(cm, _objective_of(cm, kept), _objective_of(cm, values))):
        values = kept  # the re-solve found nothing better than the first run's values, which are feasible
    if values is None and status_enum == highspy.HighsModelStatus.kModelEmpty and not cm.columns:
        values = np.zeros(0)  # "HiGHS stopped (Empty) before finding a feasible solution" for min 5.0 s.t. x in [0, 1]
    if values is None:
        raise NoSolutionError(f"HiGHS stopped ({status}) before finding a feasible solution")
    objective = _load_values(model, cm, values)
    if cm.n_binaries:
        bound, gap, run_nodes = float(info.mip_dual_bound), float(info.mip_gap), _node_count(h, cm)
        nodes = earlier_nodes + run_nodes  # with a stale first run's, as seconds
        if values is kept or np.isnan(gap) or not np.isfinite(bound):
            # HiGHS's gap is the re-solve's for kept values, and NaN for a maximisation stopped before any dual
            # bound (+inf - inf); a minimisation's was inf there
            gap = _relative_gap(objective, bound)
        if bound_override is not None and status != "optimal":  # every racer's dual bound is valid
            if _tighter(cm, bound_override, bound, objective) != bound:
                bound = _tighter(cm, bound_override, bound, objective)
                gap = _relative_gap(objective, bound)
        if status == "optimal" and opts.get("presolve", "choose") != "off" and (
                not np.isfinite(bound)
                or (values is not kept and _start_unimproved_at_root(cm, start, objective, run_nodes))):
            # HiGHS 1.15.1's presolve, handed a MIP start, can call a feasible MILP infeasible and still end
            # "optimal" at the start, with no dual bound and no node: nothing is proven; or end "optimal" at the
            # start at the root where a better point exists (_start_unimproved_at_root). Solve it again
            # without presolve, from the same start, within what is left of the time limit.
            again = without_presolve(seconds, nodes)
            if again is not None:
                return again
            # no time (or node) left to check it: the incumbent stands, but the bound of that run proves nothing (it
            # was the start's 0.1636 on the model of _start_unimproved_at_root, above the optimum 0.1341)
            status, bound, gap = left(seconds, nodes)[2], (-np.inf if cm.sense == pyo.minimize else np.inf), np.inf
        if status == "optimal" and not _proven(objective, bound):  # stopped at a mip_gap above the defaults
            status = "gap_limit"
    elif status == "optimal":
        bound, gap, nodes = objective, 0.0, 0
    else:
        # an LP stopped early (time or iteration limit): its primal point proves no bound (primal simplex stopped
        # at a simplex_iteration_limit of 3 returned 2.658 as its best bound, with gap 0, on a maximisation of
        # optimum 2.691), so none is reported
        bound, gap, nodes = (-np.inf if cm.sense == pyo.minimize else np.inf), np.inf, 0
    return _info(cm, status, objective, bound, gap, seconds, nodes, recorded)


def _node_count(h: highspy.Highs, cm: CompiledModel) -> int:
    """The branch-and-bound node count of run ``h`` (0 for an LP, or a run that reports none)."""
    return max(0, int(h.getInfo().mip_node_count)) if cm.n_binaries else 0


def _recorded(opts: dict, h: highspy.Highs) -> dict:
    """``opts`` with the ``random_seed`` run ``h`` holds, as HiGHS holds it (an int: the string "3" was recorded
    as given), whenever the caller set one or HiGHS holds another than its default 0 (a seed set below
    :func:`solve_model`, e.g. by a test harness, was recorded as 0); a race's runs hold their own seeds."""
    held = int(_held_option(h, "random_seed"))
    return {**opts, "random_seed": held} if "random_seed" in opts or held != 0 else opts


def _info(cm: CompiledModel, status: str, objective: float, bound: float, gap: float, seconds: float,
          nodes: int, opts: dict) -> SolveInfo:
    return SolveInfo(
        status=status, objective=objective, best_bound=bound, gap=gap, seconds=seconds,
        nodes=nodes, compile_seconds=cm.seconds, n_variables=len(cm.columns), n_binaries=cm.n_binaries,
        n_constraints=cm.n_rows, options=opts,
    )


def _load_values(model: pyo.ConcreteModel, cm: CompiledModel, values) -> float:
    """Load column values into the model's variables (integers rounded); returns the model's objective there (the
    compiled objective's value where a variable of the objective has no value: one whose coefficients are all 0
    is no column, and keeps the value it had, None if it had none)."""
    loaded = np.asarray(values, dtype=float).copy()
    for k, var in enumerate(cm.columns):
        if var.is_integer():
            loaded[k] = round(loaded[k])
        var.set_value(float(loaded[k]), skip_validation=True)
    value = pyo.value(next(model.component_data_objects(pyo.Objective, active=True)), exception=False)
    # (an objective term 0 * y with y never set was Pyomo's "No value for uninitialized ScalarVar object y")
    return float(_objective_of(cm, loaded) if value is None else value)


def _relative_gap(objective: float, bound: float) -> float:
    """HiGHS's relative MIP gap ``|objective - bound| / |objective|`` (inf for an infinite bound)."""
    if objective == 0:
        return 0.0 if bound == 0 else np.inf
    return abs(objective - bound) / abs(objective)


def _better(cm: CompiledModel, objective: float, than: float) -> bool:
    """Whether ``objective`` is strictly better than ``than`` in the compiled model's sense."""
    return objective < than if cm.sense == pyo.minimize else objective > than


def _tighter(cm: CompiledModel, other: float, bound: float, objective: float) -> float:
    """The tighter of two valid dual bounds ``other`` and ``bound`` in the compiled model's sense (minimisation: the
    larger), never past the incumbent ``objective`` (each bound holds for the optimum, which ``objective`` is not
    better than); ``bound`` itself when ``other`` is not tighter."""
    if cm.sense == pyo.minimize:
        return min(other, objective) if other > bound else bound
    return max(other, objective) if other < bound else bound


def _objective_of(cm: CompiledModel, values) -> float:
    """The compiled model's objective at column values ``values``."""
    return float(np.dot(np.asarray(cm.lp.col_cost_), np.asarray(values, dtype=float)) + cm.lp.offset_)


def lp_matrix(lp: highspy.HighsLp) -> csc_matrix | csr_matrix:
    """The row matrix of a HiGHS LP, shape (``num_row_``, ``num_col_``), as a scipy sparse matrix in the layout
    HiGHS holds it: CSC when column-wise (as :func:`compile_model` writes it), CSR when row-wise (as a file
    read by HiGHS may come). Raises nothing of its own."""
    a = lp.a_matrix_
    parts, shape = (np.asarray(a.value_), np.asarray(a.index_), np.asarray(a.start_)), (lp.num_row_, lp.num_col_)
    if a.format_ == highspy.MatrixFormat.kRowwise:
        return csr_matrix(parts, shape=shape)
    return csc_matrix(parts, shape=shape)


def _feasible_values(h: highspy.Highs, cm: CompiledModel, tolerance: float = 1e-6) -> np.ndarray | None:
    """The column values ``h`` returns when they satisfy the compiled model (bounds, integrality and rows,
    each within ``tolerance`` relative to ``max(1, |bound|)``), else None."""
    solution = h.getSolution()
    x = np.asarray(solution.col_value, dtype=float)
    if not solution.value_valid or len(x) != len(cm.columns) or not np.all(np.isfinite(x)):
        return None
    lp = cm.lp

    def within(value, lower, upper) -> bool:
        lower, upper = np.asarray(lower, dtype=float), np.asarray(upper, dtype=float)
        slack_low = tolerance * np.maximum(1.0, np.where(np.isfinite(lower), np.abs(lower), 1.0))
        slack_up = tolerance * np.maximum(1.0, np.where(np.isfinite(upper), np.abs(upper), 1.0))
        return bool(np.all(value >= lower - slack_low) and np.all(value <= upper + slack_up))

    integer = np.array([v.is_integer() for v in cm.columns], dtype=bool)
    if np.any(np.abs(x[integer] - np.round(x[integer])) > tolerance):
        return None
    rows = lp_matrix(lp) @ x
    if not (within(x, lp.col_lower_, lp.col_upper_) and within(rows, lp.row_lower_, lp.row_upper_)):
        return None
    return x


def _stale_solution(h: highspy.Highs, cm: CompiledModel) -> bool:
    """Whether the values ``h`` returns miss the objective value it reports (beyond 1e-6, relative to
    ``max(1, |objective|)``); False when it returns no values or no finite objective."""
    solution, reported = h.getSolution(), float(h.getInfo().objective_function_value)
    if not solution.value_valid or not np.isfinite(reported) or len(solution.col_value) != len(cm.columns):
        return False
    value = _objective_of(cm, solution.col_value)
    return abs(value - reported) > 1e-6 * max(1.0, abs(reported))


def _proven(objective: float, bound: float) -> bool:
    """Whether ``bound`` proves ``objective`` optimal within HiGHS's default tolerances (``mip_abs_gap``
    1e-6 or ``mip_rel_gap`` 1e-4; 1% slack for the objective recomputed from the loaded values)."""
    gap = abs(objective - bound)
    return gap <= 1.01e-6 or gap <= 1.01e-4 * abs(objective)


_in_highs = threading.local()  # .depth: how many HiGHS runs of solve_model this thread is inside (hooks nest)


def _run(h: highspy.Highs) -> None:
    """``h.run()``, counted in this thread's :data:`_in_highs` depth while it runs (a hook may solve again)."""
    _in_highs.depth = getattr(_in_highs, "depth", 0) + 1
    try:
        with sigint_as_flag():  # a Ctrl-C stops HiGHS through the stopper's callback, then raises here
            h.run()
    finally:
        _in_highs.depth -= 1


def _match_scheduler(opts: dict) -> None:
    """HiGHS runs on a task scheduler held per calling thread (``thread_local`` in HiGHS), created by the first
    run of that thread, with ``threads = 0`` meaning half the cores; a later run there whose ``threads`` option
    differs from it does not run at all (HiGHS returns an error and leaves the model unsolved). Any HiGHS run
    of the thread can create it (the package's own LPs at ``threads = 0``, a raced solve's runs in their own
    threads do not), so a solve that sets ``threads`` re-creates this thread's scheduler first, unless the
    thread is inside a HiGHS run of :func:`solve_model` (an ``improve`` or ``interrupt_when`` hook solving
    again), whose scheduler must not be destroyed under it."""
    threads = opts.get("threads", 0)
    if not is_integer(threads):
        return  # HiGHS rejects it when the option is set (InputError there)
    if threads > 0 and not getattr(_in_highs, "depth", 0):
        highspy.Highs.resetGlobalScheduler(True)


def _start_vector(cm: CompiledModel, mip_start, what: str = "mip_start", model=None) -> list:
    """A full column vector for ``Highs.setSolution`` from ``(VarData, value)`` pairs or a ComponentMap;
    columns not given (or given ``None``) get 0 clipped to their bounds. Raises InputError, naming ``what``,
    for anything else (a number, pairs whose value is not a number, a NaN or infinite value, a key that is not a
    Pyomo variable or, given ``model``, a variable of another model: each was ignored, and the start with it)."""
    pos = {id(v): j for j, v in enumerate(cm.columns)}
    values, bad = np.full(len(cm.columns), np.nan), None
    try:
        for var, val in (mip_start.items() if hasattr(mip_start, "items") else mip_start):
            j = pos.get(id(var))
            if j is None:  # a variable of the model in no row or fixed is no column; anything else is an error
                _check_start_key(var, model, what)
            if j is not None and val is not None:  # None: not given, like a column left out
                values[j] = float(val)
                if not np.isfinite(values[j]):  # NaN was read as "not given" (0 clipped to the bounds)
                    bad = bad or (var.name, values[j])
    except InputError:  # a key _check_start_key refused
        raise
    except (TypeError, ValueError):  # raw tracebacks: 'int' object is not iterable, unpacking, float('x')
        raise InputError(f"{what} must be (variable, value) pairs or a mapping of variables to numbers; got "
                         f"{value_text(mip_start, limit=80)}") from None
    if bad:
        raise InputError(f"{what} gives {bad[0]} the value {bad[1]}, not a finite number")
    if np.isnan(values).any():
        lo, up = np.asarray(cm.lp.col_lower_), np.asarray(cm.lp.col_upper_)
        values = np.where(np.isnan(values), np.clip(0.0, lo, up), values)
    return values.tolist()


def _check_start_key(var, model, what: str) -> None:
    """InputError naming ``what`` when ``var``, a key of a MIP start that is no column of the compiled model, is not
    a Pyomo variable (a name, a number) or, given ``model``, is a variable of another model (e.g. of a clone):
    the start's values for it were dropped without a word."""
    if getattr(var, "ctype", None) is not pyo.Var or not hasattr(var, "parent_block"):
        raise InputError(f"{what} keys must be the model's Pyomo variables; got {value_text(var, limit=60)}")
    if model is None:
        return
    block = var.parent_block()
    while block is not None and block is not model:
        block = block.parent_block()
    if block is None:
        raise InputError(f"{what} gives {var.name!r}, a variable of another model (e.g. a clone): map the start onto "
                         "this model's variables first")


def _given(pairs) -> bool:
    """Whether a MIP start (pairs or a mapping) is given: not ``None`` and not of length 0 (truth-testing it
    raised a raw ValueError for a numpy array of pairs). Objects without a length (a generator; a number, which
    :func:`_start_vector` refuses) count as given."""
    if pairs is None:
        return False
    try:
        return len(pairs) > 0
    except TypeError:
        return True


def _elapsed(out, clock: str) -> float:
    """A HiGHS callback's run time (``clock="seconds"``) or branch-and-bound node count (``"nodes"``)."""
    return float(out.running_time) if clock == "seconds" else float(out.mip_node_count)


class _Injector:
    """Runs ``improve`` once, in the first HiGHS user-solution callback after ``after`` (on ``clock``, see
    :func:`_elapsed`), and hands its solution to every raced run (each run's callback passes it on once). An
    exception ``improve`` raises is kept in ``error`` and sets ``stopper.stop``, which interrupts every run."""

    def __init__(self, cm: CompiledModel, improve, after: float, time_limit, clock: str = "seconds",
                 stopper: _Stopper | None = None):
        self.cm, self.improve, self.after, self.time_limit = cm, improve, float(after), time_limit
        self.clock, self.stopper = clock, stopper
        self.lock = threading.Lock()
        self.state = "waiting"  # -> "done"
        self.vector = None
        self.error = None
        self.given: set = set()

    def callback(self, event, run: int) -> None:
        out = event.data_out
        if self.state == "waiting" and _elapsed(out, self.clock) >= self.after:
            with self.lock:
                if self.state == "waiting":
                    deadline = None
                    if self.time_limit is not None:
                        deadline = time.perf_counter() + self.time_limit - out.running_time
                    try:
                        pairs = self.improve(float(out.mip_primal_bound), float(out.mip_dual_bound), deadline)
                        if _given(pairs):
                            self.vector = np.asarray(_start_vector(self.cm, pairs, "improve's return value"),
                                                     dtype=float)
                    except BaseException as exc:  # noqa: BLE001 - re-raised after the solve, never inside HiGHS
                        self.error = exc  # (BaseException: a KeyboardInterrupt or SystemExit unwound through HiGHS)
                        if self.stopper is not None:
                            self.stopper.stop.set()
                    self.state = "done"
        if self.vector is not None and run not in self.given:
            self.given.add(run)
            event.data_in.setSolution(self.vector)
            event.data_in.user_has_solution = True


class _Stopper:
    """Interrupts every run once ``stop`` is set: by a raced run that ended (:func:`_race`), or when
    ``interrupt_when(incumbent objective, elapsed on clock)`` (optional) holds in one of them (checked at
    HiGHS's interrupt checks, i.e. at least once per node)."""

    def __init__(self, interrupt_when=None, clock: str = "seconds"):
        self.interrupt_when, self.clock = interrupt_when, clock
        self.stop = threading.Event()
        self.error = None

    def interrupt(self, event) -> None:
        try:
            out = event.data_out
            if self.interrupt_when is not None and not self.stop.is_set() and np.isfinite(out.mip_primal_bound):
                if self.interrupt_when(float(out.mip_primal_bound), _elapsed(out, self.clock)):
                    self.stop.set()
        except BaseException as exc:  # noqa: BLE001 - re-raised after the solve, never inside HiGHS
            if self.error is None:
                self.error = exc
            self.stop.set()
        if self.stop.is_set() or ctrl_c_pending():  # a Ctrl-C during the run (highs_run.sigint_as_flag)
            event.interrupt()


def _set_option(h: highspy.Highs, key: str, value) -> None:
    """``h.setOptionValue(key, value)``; InputError when HiGHS rejects it (or highspy refuses the value's type,
    e.g. a list: a raw TypeError "incompatible function arguments" before)."""
    try:
        status = h.setOptionValue(key, value)
    except TypeError:
        status = None
    if status != highspy.HighsStatus.kOk:
        raise InputError(f"HiGHS rejected option {key}={value_text(value)}")


def check_highs_option(key: str, value, name: str = "HiGHS option"):
    """Check one user HiGHS option, as :func:`solve_model` (``options``) and ``bilevel tune --highs-option`` do;
    return the value HiGHS holds once it is set (e.g. the int 3 for ``"3"``). A utility: no equation.

    key : the HiGHS option name, e.g. ``"mip_rel_gap"``; value : its value (a bool, int, float or str; a numpy
    scalar is checked as its number); name : how the messages name where the option came from, e.g.
    ``"--highs-option"`` (the default, ``"HiGHS option"``, for a library argument).

    Raises InputError, naming ``name`` and ``key=value``, in this order, for a NaN value (HiGHS takes NaN for any
    double option: no range check fails on it), an option of :data:`UNSAFE_OPTIONS` at a value other than the
    one allowed (HiGHS's default), and an option HiGHS rejects (an unknown name, a value of the wrong type or
    out of its range)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and np.isnan(value):
        raise InputError(f"{name} {key}=nan is not a number")
    if key in UNSAFE_OPTIONS and value != UNSAFE_OPTIONS[key][0]:
        allowed, why = UNSAFE_OPTIONS[key]
        raise InputError(f"{name} {key}={value_text(value)} is refused (only HiGHS's default, {allowed!r}, is "
                         f"accepted): {why}")
    try:
        return _highs_option_value(key, value)
    except InputError:
        raise InputError(f"{name} {key}={value_text(value)}: HiGHS rejects it (an unknown option, or a value of the "
                         "wrong type or out of its range)") from None


def _highs_option_value(key: str, value):
    """The value HiGHS holds for option ``key`` once set to ``value`` (e.g. the int 3 for ``"3"``); InputError when
    it rejects ``value``."""
    h = silent_highs()
    _set_option(h, key, value)
    return _held_option(h, key)


def _held_option(h: highspy.Highs, key: str):
    """The value ``h`` holds for HiGHS option ``key``."""
    held = h.getOptionValue(key)  # (status, value) on some highspy releases
    return held[1] if isinstance(held, tuple) else held


def _configured_highs(cm: CompiledModel, opts: dict, start, injector: _Injector | None = None,
                      run: int = 0, stopper: _Stopper | None = None) -> highspy.Highs:
    """A silent ``highspy.Highs`` holding the compiled model, the options, the MIP start, the
    improvement callback and the interrupt of ``stopper``."""
    h = silent_highs()
    for key, value in opts.items():
        _set_option(h, key, value)
    if h.passModel(cm.lp) == highspy.HighsStatus.kError:
        # a large_matrix_value HiGHS accepts as an option (any >= 1) but then refuses the model with: the caller's
        # input, not a solver fault
        largest = float(np.max(np.abs(cm.lp.a_matrix_.value_), initial=0.0))
        if "large_matrix_value" in opts and largest >= (held := _held_option(h, "large_matrix_value")):
            raise InputError(f"HiGHS option large_matrix_value={value_text(held)} refuses this model: HiGHS loads no "
                             f"model with a matrix entry of that size or more, and this one's largest is "
                             f"{largest:.6g} (HiGHS's default is 1e15)")
        raise SolverError("HiGHS could not load the model")
    if start is not None:
        sol = highspy.HighsSolution()
        sol.col_value = start
        sol.value_valid = True
        h.setSolution(sol)
    if injector is not None:
        h.cbMipUserSolution += lambda event: injector.callback(event, run)
    if stopper is not None:
        h.cbMipInterrupt += stopper.interrupt
    return h


def _start_unimproved_at_root(cm: CompiledModel, start, objective: float, nodes: int) -> bool:
    """Whether a MILP ended at the root (node count 0, or 1: HiGHS counts the root node once it enters its tree)
    with its MIP start's objective, which :func:`solve_model` then checks by a solve without presolve: HiGHS
    1.15.1's presolve, handed a MIP start, has ended "optimal" at the start at the root with the start's value as
    its dual bound, where a better point exists (a pessimistic 4/2 model built around its start: 0.1636
    "optimal", 0.1341 without presolve or without the start, at node 0; the min of sum_w_bar of an optimistic
    tie re-solve, tests/test_ties.py: 6.0 "optimal" with bound 6.0 at node 1, against 2.6)."""
    return (start is not None and nodes <= 1
            and abs(_objective_of(cm, start) - objective) <= 1e-9 * max(1.0, abs(objective)))


#: The HiGHS options the runs of one :func:`solve_model` call share (a re-solve gets what is left of them).
_SHARED_LIMITS = ("time_limit", "mip_max_nodes")

_SEED_RANGE = 2**31  # HiGHS's random_seed lies in [0, 2**31 - 1]


def _race(cm: CompiledModel, opts: dict, start, race: int, injector: _Injector | None = None,
          stopper: _Stopper | None = None) -> tuple[highspy.Highs, float, int, highspy.Highs | None]:
    """Run ``race`` HiGHS instances with consecutive random seeds in threads (``Highs.run`` releases the
    GIL); the first to finish interrupts the others through HiGHS's MIP interrupt callback. Returns the
    winner, the tightest dual bound over the runs that do not claim the model infeasible (minimisation: the
    largest), the winner's random seed and, when the winner claims the model infeasible, the run holding the best
    incumbent that satisfies the model (None when none does)."""
    stopper = stopper or _Stopper()
    # the caller's seed as HiGHS reads it, refused by its own value as a plain run refuses it: int() made 3.5 and True
    # the seeds 3 and 1 (a plain run refuses them, check_highs_option), and raised a raw ValueError or TypeError
    # for "abc" or None
    seed = _highs_option_value("random_seed", opts["random_seed"]) if "random_seed" in opts else 0
    # HiGHS takes seeds 0..2**31 - 1: the racers' seeds wrap there, so that a valid seed near the top is not turned
    # into a rejected one the user never gave
    seeds = [(seed + k) % _SEED_RANGE for k in range(race)]
    runs = [_configured_highs(cm, {**opts, "random_seed": s}, start, injector, k, stopper) for k, s in enumerate(seeds)]
    finished: list[int] = []  # run indices in the order they ended (list.append is atomic)
    ended = [threading.Event() for _ in range(race)]  # set once run k has left HiGHS
    interrupted = highspy.HighsModelStatus.kInterrupt
    # a limit every run has (time, nodes: HiGHS's "solution limit", iterations) ends each run by itself: a run that
    # reached it must not stop the others, whose incumbents count (race=2 with mip_max_nodes=1 on the optimistic
    # diabetes 20/20 MILP: seed 1 ended first without a solution and stopped seed 0, whose 0.7 was lost:
    # NoSolutionError where race=1 returned 0.7)
    inconclusive = (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kSolutionLimit,
                    highspy.HighsModelStatus.kIterationLimit, interrupted)

    go, abandon = threading.Event(), threading.Event()
    errors: list = []  # what a run raised (a hook's exception outside Exception, unwound through HiGHS): re-raised

    def work(k: int) -> None:
        go.wait()  # no run enters HiGHS before every thread has started (see below)
        if abandon.is_set():
            ended[k].set()
            return
        try:
            _run(runs[k])
        except BaseException as exc:  # noqa: BLE001 - lost in the thread (only printed) and the run left unsolved
            errors.append(exc)
            stopper.stop.set()
        finally:
            try:
                finished.append(k)
                if runs[k].getModelStatus() not in inconclusive:  # a limit ends every run by itself
                    stopper.stop.set()
            finally:
                ended[k].set()  # whatever happened: an interrupted main thread waits for it

    workers = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(race)]
    try:
        for t in workers:
            t.start()
        go.set()
        for t in workers:
            t.join()
    except BaseException:
        # Ctrl-C (KeyboardInterrupt) reaches the waiting main thread, not the runs: stop them and wait until they
        # have left HiGHS before it propagates (waiting on events: Python 3.11's Thread.join, interrupted, can
        # mark a running thread stopped). Left running, a run met the interpreter's exit inside HiGHS and the
        # process aborted (`bilevel tune --race 2`: "terminate called without an active exception", exit -6).
        # Before ``go``, the started threads wait outside HiGHS (a Ctrl-C or "can't start new thread" while
        # the threads start): they leave without running. After it, every thread has started and sets its event.
        launched = go.is_set()
        abandon.set()
        stopper.stop.set()
        go.set()
        if launched:
            for event in ended:
                event.wait()
        raise
    if errors:
        raise errors[0]
    order = [k for k in finished if runs[k].getModelStatus() != interrupted] or finished
    winner = runs[order[0]]
    if winner.getModelStatus() in inconclusive:  # all stopped at a limit or by interrupt_when: best incumbent
        sign = -1.0 if cm.sense == pyo.maximize else 1.0

        def incumbent(h):  # the run's incumbent as a minimisation's value; inf (last) without one, in either sense
            info = h.getInfo()  # (sign * inf made a maximisation's run without a solution the best: NoSolutionError)
            return sign * info.objective_function_value if info.primal_solution_status == 2 else np.inf
        winner = min(runs, key=incumbent)
        # unless a run that ended after the limited one proved an incumbent as good, within HiGHS's default
        # tolerances (a limit does not stop the others): on a tie min() kept the limited run, reported
        # "solution_limit" with gap 0 where the other run had proved it optimal (diabetes 10/10 optimistic,
        # mip_max_nodes=16, seeds 4 and 5)
        proved = [runs[k] for k in order if runs[k].getModelStatus() == highspy.HighsModelStatus.kOptimal]
        if proved and np.isfinite(incumbent(proved[0])) and _proven(incumbent(proved[0]), incumbent(winner)):
            winner = proved[0]
    won_seed = seeds[runs.index(winner)]
    claims = (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible)
    # a run that claims infeasibility proves no bound (its +inf would have made an incumbent "proven")
    bounds = [float(h.getInfo().mip_dual_bound) for h in runs if h.getModelStatus() not in claims]
    bounds = [b for b in bounds if np.isfinite(b)]
    best = (min(bounds) if cm.sense == pyo.maximize else max(bounds)) if bounds else None
    rescue = None
    if winner.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
        # a raced run with an incumbent that satisfies the model disproves the winner's claim: the best of them
        holders = [h for h in runs if h.getModelStatus() not in claims and h.getInfo().primal_solution_status == 2
                   and _feasible_values(h, cm) is not None]
        if holders:
            sign = -1.0 if cm.sense == pyo.maximize else 1.0
            rescue = min(holders, key=lambda h: sign * h.getInfo().objective_function_value)
    return winner, best, won_seed, rescue
