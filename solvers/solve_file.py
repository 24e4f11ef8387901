"""Solve one instance file with one solver's runner and print its result.

``python -m solvers.solve_file FILE [--solver highs|scip|cbc|cplex|gurobi|xpress] [--time-limit 60]
[--mip-gap G] [--seed S] [--tuning-options] [--solution OUT.csv]``

``FILE`` is an ``.mps`` or ``.lp`` file, e.g. one of ``models/`` (no manifest needed: for a library instance,
``solvers.compare`` also checks the answer against the manifest). The result of the runner's ``solve``
(:class:`solvers.common.RunResult`) is printed one field per line: solver, file, status, objective, bound,
seconds, solver seconds, nodes, and a message when there is one. ``--tuning-options`` (HiGHS only) solves with
the HiGHS options the package solves its tuning MILPs with (:func:`bilevel.tuning_options`), not HiGHS's
defaults. ``--solution`` writes the incumbent as the CSV of
:func:`solvers.solution_files.write_solution_csv`, which ``solvers.check_solution`` reads. Exit code 0 when the
solver answered (``optimal``, ``time_limit``, ``infeasible``, ``unbounded`` or ``infeasible_or_unbounded``), 1
when it could not (``error``, e.g. a file it misreads, or ``unavailable``: its package is not installed), 2 for
bad input, 130 on Ctrl-C (:func:`solvers.common.run_main`).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bilevel.errors import InputError
from bilevel.help_format import DefaultsHelpFormatter, integer, path_text, real
from bilevel.option_checks import check_options, count, nonempty_path
from bilevel.validation import check_mip_gap, check_writable_file

from .common import MAX_SEED, RunResult, check_instance_path, check_solver_name, get_runner, run_main
from .compare import check_time_limit
from .solution_files import write_solution_csv

#: The statuses that are no answer of the solver: exit code 1.
NO_ANSWER = ("error", "unavailable")


def solve_file(path, solver: str = "highs", time_limit: float | None = 60.0, mip_gap: float | None = None,
               seed: int | None = None, options=None) -> RunResult:
    """Solve the instance file ``path`` (``.mps`` or ``.lp``) with the runner of ``solver`` (a name of
    :data:`solvers.common.RUNNERS`, any case) and return its :class:`solvers.common.RunResult` (objective and bound
    in the file's own units and sense; ``seconds`` wall-clock). ``time_limit`` in seconds (``None``: none),
    ``mip_gap`` relative (``None``: the solver's default), ``seed`` the solver's random seed (``None``: its
    default). ``options``: a mapping of HiGHS options for the HiGHS runner (e.g.
    :func:`bilevel.tuning_options`); ``None``: the solver's defaults. An unavailable solver gives status
    ``unavailable``, not an exception. Raises InputError for an unknown solver, ``options`` with a solver other
    than HiGHS, a path that is not an existing ``.mps`` or ``.lp`` file, or a bad limit, seed or option (checked
    by the runner). No equation: a utility of the command line."""
    runner = get_runner(check_solver_name(solver, "solver"))
    if options is not None and runner.NAME != "highs":
        raise InputError(f"options are HiGHS options: the {runner.NAME} runner takes none")
    path = check_instance_path(path)
    if not runner.available():
        return RunResult(runner.NAME, str(path), "unavailable", message="see solvers/README.md for what it needs")
    extra = {} if options is None else {"options": options}
    return runner.solve(path, time_limit=time_limit, mip_gap=mip_gap, seed=seed, **extra)


def _value(v) -> str:
    return "-" if v is None else (f"{v:.10g}" if isinstance(v, float) else str(v))


def main(argv=None) -> int:
    """Command line; exit 0 when the solver answered, 1 for status ``error`` or ``unavailable``, 2 on bad input or
    an operating-system error (a full disk), 130 on Ctrl-C, 141 when the standard output was closed by its reader
    (:func:`solvers.common.run_main`)."""
    return run_main("solve_file", lambda: _main(argv))


def _main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m solvers.solve_file",
        description="Solve one .mps or .lp file with one solver and print its status, objective, bound, time and "
        "nodes. Exit code 0 when the solver answered, 1 when it could not (error, unavailable), 2 on bad input.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("file", type=path_text, help="the instance file, e.g. models/cancer-opt-n5-s0.mps")
    p.add_argument("--solver", default="highs", help="highs, scip, cbc, cplex, gurobi or xpress")
    p.add_argument("--time-limit", type=real, default=60.0, help="seconds: finite and > 0")
    p.add_argument("--mip-gap", type=real, default=None, help="relative MIP gap (default: the solver's own)")
    p.add_argument("--seed", type=integer, default=None,
                   help="the solver's random seed, an integer in [0, 2**31 - 1] (default: the solver's own)")
    p.add_argument("--tuning-options", action="store_true",
                   help="HiGHS only: solve with the options the package solves its tuning MILPs with "
                   "(bilevel.tuning_options), not HiGHS's defaults")
    p.add_argument("--solution", type=path_text, default=None, metavar="CSV",
                   help="write the incumbent to this CSV file (read by solvers.check_solution)")
    args = p.parse_args(argv)
    try:
        nonempty_path("the instance file, e.g. models/cancer-opt-n5-s0.mps")(args.file, "file")
        path = check_instance_path(args.file)
        solver = check_solver_name(args.solver, "--solver")
        check_time_limit(args.time_limit, "--time-limit")
        if args.mip_gap is not None:
            check_mip_gap(args.mip_gap, "--mip-gap")
        check_options(args, {"seed": count(0, MAX_SEED)})
        if args.tuning_options and solver != "highs":
            raise InputError(f"--tuning-options are HiGHS options; --solver {solver} takes none")
        options = None
        if args.tuning_options:
            from bilevel.tune import tuning_options  # (imports Pyomo: only when asked for)

            options = tuning_options()
        if args.solution is not None:
            nonempty_path("a file name, or leave --solution out")(args.solution, "--solution")
            check_writable_file(args.solution, "--solution")
            if Path(args.solution).resolve() == path.resolve():  # the model would be replaced by its solution
                raise InputError(f"--solution {args.solution!r} is the instance file: choose another path")
        result = solve_file(path, solver, args.time_limit, args.mip_gap, args.seed, options)
    except InputError as exc:
        print(f"solve_file: error: {exc}", file=sys.stderr)
        return 2
    if args.solution is not None:
        if result.solution:
            write_solution_csv(result, args.solution)
        else:  # an earlier run's file there would be read as this run's answer
            Path(args.solution).unlink(missing_ok=True)
            print(f"solve_file: no incumbent to write; {args.solution!r} not written", file=sys.stderr)
    for name, value in (("solver", result.solver), ("file", result.path), ("status", result.status),
                        ("objective", result.objective), ("bound", result.bound), ("seconds", result.seconds),
                        ("solver_seconds", result.solver_seconds), ("nodes", result.nodes)):
        print(f"{name}: {_value(value)}")
    if result.message:
        print(f"message: {result.message}")
    return 1 if result.status in NO_ANSWER else 0


if __name__ == "__main__":
    sys.exit(main())
