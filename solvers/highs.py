"""HiGHS runner: read an instance file with ``highspy`` and solve it."""
from __future__ import annotations

import time
from collections.abc import Mapping

from bilevel.errors import InputError
from bilevel.validation import value_text

from .common import (RunResult, check_instance_path, check_limits, check_seed, file_error, finite_or_none, importable,
                     sense_error)

NAME = "highs"


def available() -> bool:
    """True when ``highspy`` imports."""
    return importable("highspy")


def version() -> str:
    """HiGHS version string."""
    from bilevel.highs_run import silent_highs

    return silent_highs().version()


def solve(path, time_limit: float | None = None, mip_gap: float | None = None, seed: int | None = None,
          options=None) -> RunResult:
    """Read ``path`` (``.mps`` fixed or free, or ``.lp``) with HiGHS and solve it.

    ``time_limit`` seconds (HiGHS run time; ``None`` or ``inf``: none), ``mip_gap`` relative MIP gap (``None``:
    HiGHS default 1e-4), both checked by :func:`solvers.common.check_limits`; ``seed`` HiGHS's ``random_seed``
    (``None``: HiGHS's default 0; :func:`solvers.common.check_seed`). ``options``: a mapping of further HiGHS option
    names to values, set before the three above (e.g. ``bilevel.tuning_options()``, the options the package
    solves its tuning MILPs with); ``None``: HiGHS's defaults. Raises InputError, before reading the file, for an
    ``options`` that is not a mapping, or an option that :func:`bilevel.solve.check_highs_option` refuses (named): a
    NaN value, one of ``bilevel.solve.UNSAFE_OPTIONS`` away from HiGHS's default, or a name or value HiGHS rejects.
    A HiGHS "infeasible" is checked by a second run with presolve off in the time left, whose verdict is reported
    (HiGHS 1.15.1's presolve calls some feasible tuning MILPs infeasible; ``bilevel.solve_model`` checks alike).
    Returns a :class:`RunResult` whose solution uses the file's column names. Raises InputError for a
    missing file, another suffix or a bad limit; a file HiGHS cannot read, an LP file with a comment the solvers
    read differently (:func:`solvers.common.lp_comment_error`) or that does not start with an objective sense
    (:func:`solvers.common.lp_sense_error`), any file that does not end with ``ENDATA`` or ``end``
    (:func:`solvers.common.end_marker_error`; a file cut short), or one HiGHS reads with another objective sense
    than the file's (:func:`solvers.common.sense_error`) gives status ``error``."""
    import highspy

    from bilevel.highs_run import check_infeasible_without_presolve, run_interruptibly, silent_highs
    from bilevel.solve import check_highs_option

    path = check_instance_path(path)
    time_limit, mip_gap = check_limits(time_limit, mip_gap)
    seed = check_seed(seed)
    if options is not None and not isinstance(options, Mapping):
        raise InputError(f"options must be a mapping of HiGHS option names to values; got {value_text(options)}")
    # each checked as bilevel.solve_model checks its options (NaN, the refused options, what HiGHS rejects)
    options = {name: check_highs_option(name, value, "options") for name, value in (options or {}).items()}
    if (problem := file_error(path)) is not None:  # HiGHS reads such files as other models
        return RunResult(NAME, str(path), "error", message=problem)
    t0 = time.perf_counter()
    h = silent_highs()
    if h.readModel(str(path)) == highspy.HighsStatus.kError:
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0,
                         message="HiGHS cannot read the file")
    if (problem := sense_error("HiGHS", h.getLp().sense_ == highspy.ObjSense.kMaximize, path)) is not None:
        return RunResult(NAME, str(path), "error", seconds=time.perf_counter() - t0, message=problem)
    for name, value in options.items():  # (the seed and limits below take precedence)
        h.setOptionValue(name, value)
    if seed is not None:
        h.setOptionValue("random_seed", seed)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if mip_gap is not None:
        h.setOptionValue("mip_rel_gap", float(mip_gap))
    run_interruptibly(h)  # a Ctrl-C stops HiGHS within a node (without the callback it waited up to --time-limit)
    check_infeasible_without_presolve(h, time_limit)  # (HiGHS 1.15.1's presolve: see there)
    seconds = time.perf_counter() - t0
    st = h.getModelStatus()
    M = highspy.HighsModelStatus
    status = {M.kOptimal: "optimal", M.kTimeLimit: "time_limit", M.kInfeasible: "infeasible",
              M.kUnbounded: "unbounded", M.kUnboundedOrInfeasible: "infeasible_or_unbounded"}.get(st, "error")
    info = h.getInfo()
    lp = h.getLp()
    is_mip = len(lp.integrality_) > 0 and any(t == highspy.HighsVarType.kInteger for t in lp.integrality_)
    result = RunResult(NAME, str(path), status, seconds=seconds, solver_seconds=h.getRunTime(),
                       nodes=int(info.mip_node_count) if is_mip else 0,
                       message="" if status != "error" else h.modelStatusToString(st))
    if info.primal_solution_status == 2:
        result.objective = float(info.objective_function_value)
        result.solution = dict(zip(lp.col_names_, h.getSolution().col_value))
    if is_mip:
        result.bound = finite_or_none(info.mip_dual_bound)
    elif status == "optimal":  # an LP's bound is its optimum; an unbounded or stopped LP proves none
        result.bound = result.objective
    if status == "time_limit" and result.objective is None:
        result.message = "no feasible solution found"
    return result
