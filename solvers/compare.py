"""Solve the instances of a manifest with several solvers and print a comparison table.

``python -m solvers.compare models/manifest.csv --solver scip --solver highs [--format mps|lp|both]
[--time-limit 60] [--only 'diabetes-*'] [--max-size 10] [--rtol 1e-4] [--atol 1e-6] [--solutions DIR]
[--check] [--csv out.csv]``

For each instance whose file exists (large instances are listed in the manifest but only present after
``bilevel export-library``), each solver reads the file and solves it; the table shows status,
objective, bound, wall-clock time, the manifest's HiGHS result and the agreement word of
:func:`solvers.common.agreement`. ``--check`` re-verifies every incumbent with
:func:`solvers.check_solution.check_solution`. Exit code 0, or 1 when any row says ``DISAGREE``, a
checked solution is rejected, a solver ends in ``error`` (e.g. CBC misread the file) or an instance file differs
from the manifest's sha256, or when no solve ran
because every requested solver is unavailable (its rows say ``unavailable``) or every selected instance file is
missing or differs from the manifest's sha256 (the table and ``--csv`` are written as usual, and one line on
stderr says which), 2 for bad input.
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

from bilevel.errors import InputError
from bilevel.export import replace_atomically
from bilevel.help_format import DefaultsHelpFormatter, integer, path_text, real
from bilevel.library import check_unique_ids, read_manifest, select_rows, sha256
from bilevel.option_checks import check_options, count, nonempty_path
from bilevel.validation import (as_path, check_mip_gap, check_positive, check_writable_file, check_writable_folder,
                               repeated_values)

from .common import (MAX_SEED, MAX_TIME_LIMIT, RunResult, agreement, check_seed, check_solver_name, format_table,
                     get_runner, is_maximisation, manifest_status, run_main)
from .solution_files import write_solution_csv


def check_time_limit(value, name: str = "time_limit") -> float | None:
    """``value`` (seconds) as a float, or ``None`` for none; InputError naming ``name`` unless it is a finite
    number > 0 and at most :data:`MAX_TIME_LIMIT` (SCIP refuses more; for no limit pass ``None``)."""
    if value is None:
        return None
    limit = check_positive(value, name)
    if limit > MAX_TIME_LIMIT:
        raise InputError(f"{name} must be at most {MAX_TIME_LIMIT:g} seconds (SCIP's largest); got {value!r}")
    return limit


#: The message of a record whose file differs from the manifest's sha256 (status ``error``, not solved).
CHANGED_FILE = ("the file differs from the manifest's sha256 (changed or cut short): re-export the library or restore "
                "the file")


def select_instances(manifest, formats=("mps",), patterns=(), max_size: int | None = None) -> list[dict]:
    """The rows of the manifest at ``manifest`` to run: those whose id matches a pattern (all when
    ``patterns`` is empty) and, with ``max_size``, whose ``max(n_train, n_val)`` is at most that. Raises
    InputError when the manifest is missing, is not a manifest, lacks a column of a format in ``formats``
    (``mps``, ``lp``) or, with ``max_size``, ``n_train`` or ``n_val``, when a row lacks its id or has one holding a
    path separator (``/``, ``\\``: the id names the solution file ``<id>.<format>.<solver>.csv`` of :func:`compare`),
    when two selected rows have one id, or when a selected row has an empty cell there (``read_manifest`` reads an
    empty cell as ``None``) or a HiGHS result that cannot be compared with (:func:`_check_highs_result`), and when
    ``manifest`` is not a path (:func:`bilevel.validation.as_path`)."""
    manifest = as_path(manifest, "manifest")
    for fmt in formats:
        if fmt not in ("mps", "lp"):
            raise InputError(f"format must be mps or lp; got {fmt!r}")
    rows = read_manifest(manifest)
    columns = set().union(*(r.keys() for r in rows))
    needed = list(formats) + (["n_train", "n_val"] if max_size is not None else [])
    for column in needed:
        if rows and column not in columns:
            what = f"the .{column} file of each instance" if column in formats else "the size limit"
            raise InputError(f"{str(manifest)!r} has no column {column!r}, which {what} needs")
    for row in rows:  # (read_manifest refused a row without an id, naming its line)
        if "/" in row["id"] or "\\" in row["id"]:
            # its solution file went into a subfolder of --solutions ("a/b"), or out of it ("../x", "/tmp/x")
            raise InputError(f"{str(manifest)!r}: the instance id {row['id']!r} holds a path separator ('/' or "
                             "'\\'): ids must be plain file names")
    chosen = select_rows(rows, patterns)
    # one row's solution was written over the other's and checked against the first row's instance
    check_unique_ids(manifest, chosen, "ids must be unique")
    for row in chosen:
        for column in needed:
            if row.get(column) is None:
                what = f"the .{column} file" if column in formats else "the size limit"
                raise InputError(f"{str(manifest)!r}: instance {row['id']!r} has an empty {column!r} cell, which "
                                 f"{what} needs")
        _check_highs_result(manifest, row)
    return select_rows(chosen, (), max_size)


def _check_highs_result(manifest: Path, row: dict) -> None:
    """InputError naming the instance when its manifest row's HiGHS result cannot be compared with: an unknown
    ``highs_status``, a ``highs_objective`` that is not finite, or an ``optimal`` status without an objective (each
    was compared as if it were a result: an objective of inf "agreed" with every optimum)."""
    try:
        status = manifest_status(row.get("highs_status"))
    except InputError as exc:
        raise InputError(f"{str(manifest)!r}: instance {row['id']!r}: {exc}") from None
    objective = row.get("highs_objective")
    if objective is not None and not math.isfinite(objective):
        raise InputError(f"{str(manifest)!r}: instance {row['id']!r} has highs_objective {objective!r}, not a finite "
                         "number (leave the cell empty when HiGHS found no solution)")
    if status == "optimal" and objective is None:
        raise InputError(f"{str(manifest)!r}: instance {row['id']!r} is 'optimal' in highs_status with an empty "
                         "highs_objective")


def compare(
    manifest,
    solvers=("highs",),
    formats=("mps",),
    time_limit: float | None = 60.0,
    mip_gap: float | None = 1e-6,
    patterns=(),
    max_size: int | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-6,
    solutions_dir=None,
    check: bool = False,
    log=None,
    seed: int | None = None,
) -> list[dict]:
    """Run every solver on every selected instance file and return one record per (instance, format,
    solver): ``instance``, ``format``, ``solver``, ``status``, ``objective``, ``bound``, ``seconds``
    (wall clock), ``solver_seconds``, ``nodes``, ``manifest_status``, ``manifest_objective``,
    ``manifest_bound``, ``agreement`` and, with ``check``, ``check`` (``trusted`` / ``rejected: ...`` /
    ``error: ...`` when the check could not run, e.g. a name map the manifest lists is missing). ``rtol``, ``atol``:
    the tolerances of :func:`solvers.common.agreement`, finite numbers >= 0.

    Instances whose file is absent get status ``missing``, whose file differs from the manifest's ``mps_sha256`` /
    ``lp_sha256`` status ``error`` (not solved); unavailable solvers ``unavailable``.
    ``solutions_dir``: write each incumbent there as ``<id>.<format>.<solver>.csv`` (a file of that name from an
    earlier run is removed when this run has no incumbent, so that no stale solution stays). ``log`` receives
    each finished record. ``seed``: every solver's random seed (:func:`solvers.common.check_seed`; ``None``: each
    solver's default). Raises InputError, before any solve, for a bad manifest (see :func:`select_instances`),
    solver name, format or time limit (:func:`check_time_limit`), or a ``solutions_dir`` that cannot be written."""
    manifest = as_path(manifest, "manifest")
    # an infinite tolerance (meant as "accept any objective") made inf * 0 = nan in the test of closeness: equal
    # optima 0 and 0 were a DISAGREE; a negative one no objective ever passed
    rtol, atol = check_positive(rtol, "rtol", allow_zero=True), check_positive(atol, "atol", allow_zero=True)
    rows = select_instances(manifest, formats, patterns, max_size)
    if not rows:
        raise InputError(f"no instance of {str(manifest)!r} matches the selection")
    time_limit = check_time_limit(time_limit)
    seed = check_seed(seed)
    if solutions_dir is not None:
        check_writable_folder(solutions_dir, "the solutions folder")
    runners = [get_runner(s) for s in solvers]
    records = []
    for row in rows:
        for fmt in formats:
            path = manifest.parent / row[fmt]
            # a changed file is another model: HiGHS read an .mps cut to 1000 bytes as a 2-column model, optimal 0
            changed = path.is_file() and row.get(f"{fmt}_sha256") and sha256(path) != row[f"{fmt}_sha256"]
            for runner in runners:
                if not path.is_file():
                    result = RunResult(runner.NAME, str(path), "missing", message=missing_file_advice(path))
                elif changed:
                    result = RunResult(runner.NAME, str(path), "error", message=CHANGED_FILE)
                elif not runner.available():
                    result = RunResult(runner.NAME, str(path), "unavailable")
                else:
                    result = runner.solve(path, time_limit=time_limit, mip_gap=mip_gap, seed=seed)
                rec = {
                    "instance": row["id"], "format": fmt, "solver": runner.NAME, "status": result.status,
                    "objective": result.objective, "bound": result.bound, "seconds": result.seconds,
                    "solver_seconds": result.solver_seconds, "nodes": result.nodes,
                    "manifest_status": row.get("highs_status"), "manifest_objective": row.get("highs_objective"),
                    "manifest_bound": row.get("highs_best_bound"),
                    "agreement": agreement(row, result, rtol, atol, maximise=path.is_file() and is_maximisation(path)),
                    "message": result.message,
                }
                if solutions_dir is not None and not result.solution:
                    # an earlier run's file of this name stayed, read (and trusted by check_solution) as this run's
                    (Path(solutions_dir) / f"{row['id']}.{fmt}.{runner.NAME}.csv").unlink(missing_ok=True)
                if result.solution and (solutions_dir or check):
                    folder = Path(solutions_dir) if solutions_dir else None
                    sol_path = None
                    if folder is not None:
                        sol_path = write_solution_csv(result, folder / f"{row['id']}.{fmt}.{runner.NAME}.csv")
                    if check:
                        from .check_solution import check_solution

                        sol = dict(result.solution)
                        if result.objective is not None:
                            sol["objective"] = result.objective
                        try:
                            rep = check_solution(manifest, row["id"], sol_path or sol)
                            rec["check"] = "trusted" if rep.trusted else "rejected: " + "; ".join(rep.reasons)
                        except InputError as exc:  # e.g. a missing name map: this instance only, not the run
                            rec["check"] = f"error: {exc}"
                records.append(rec)
                if log:
                    log(rec)
    return records


def missing_file_advice(path: Path) -> str:
    """What to do about the instance file ``path`` (the manifest's folder joined with its cell) that is not there:
    re-export the library, or, when the cell's file name has spaces around it and the name without them exists,
    remove the spaces (such a cell was reported only "missing ... regenerate", though the file is there; a file
    name may hold spaces, so it is not refused). No equation."""
    stripped = path.name.strip()
    if stripped and stripped != path.name and (path.parent / stripped).is_file():
        return (f"the manifest's file name {path.name!r} has spaces around it; {stripped!r} exists: remove the "
                "spaces from the cell")
    return "regenerate with bilevel export-library"


def check_not_an_input(path, manifest, what: str) -> None:
    """InputError naming ``what`` when the output file ``path`` is the manifest ``manifest`` or one of the files
    its rows list (``mps``, ``lp``, ``names``), also through a symbolic link: ``--csv models/manifest.csv``
    replaced the library's manifest by the comparison records, without a word. A manifest that cannot be read is
    left to :func:`compare` to refuse."""
    target = as_path(path, what).resolve()
    manifest = as_path(manifest, "manifest")
    if target == manifest.resolve():
        raise InputError(f"{what} {str(path)!r} is the manifest {str(manifest)!r}; writing it would overwrite the "
                         "manifest: choose another path")
    try:
        rows = read_manifest(manifest)
    except InputError:
        return
    for row in rows:
        for column in ("mps", "lp", "names"):
            if row.get(column) and target == (manifest.parent / str(row[column])).resolve():
                raise InputError(f"{what} {str(path)!r} is the file {row[column]!r} of instance {row.get('id')!r} "
                                 f"in {str(manifest)!r}; writing it would overwrite it: choose another path")


def write_csv(records: list[dict], path) -> Path:
    """Write comparison records as CSV (one column per record key), through a temporary file renamed into place:
    an interrupted write (Ctrl-C) leaves no CSV cut short that reads as a comparison of fewer instances. InputError
    when ``path`` is not a path (:func:`bilevel.validation.as_path`)."""
    path = as_path(path, "path (the CSV)")
    keys = list(dict.fromkeys(k for r in records for k in r))

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as fh:  # whatever the locale (an id such as ρ-1 failed)
            w = csv.DictWriter(fh, keys, lineterminator="\n")
            w.writeheader()
            w.writerows(records)

    replace_atomically(path, write)  # InputError for a full disk: exit code 2, as compare's other errors
    return path


def nothing_ran(records: list[dict]) -> str:
    """Why no record of ``records`` (from :func:`compare`) was solved, in one line, or ``""`` when one was: every
    requested solver is unavailable (named), or every selected instance file is missing or differs from the
    manifest's sha256 (:data:`CHANGED_FILE`; counted). Some files missing while others are solved is not this
    (large instances are absent until ``bilevel export-library``)."""
    if any(r["status"] not in ("unavailable", "missing") and r["message"] != CHANGED_FILE for r in records):
        return ""
    unavailable = list(dict.fromkeys(r["solver"] for r in records if r["status"] == "unavailable"))
    if unavailable:
        return (f"no solver could run: {', '.join(unavailable)} unavailable (see solvers/README.md for what each "
                "needs)")
    files = {(r["instance"], r["format"]): r["status"] for r in records}  # one record per solver
    missing = sum(status == "missing" for status in files.values())
    why = ([f"{missing} missing (regenerate with bilevel export-library)"] if missing else []) + (
        [f"{len(files) - missing} differ from the manifest's sha256 (re-export the library or restore them)"]
        if len(files) > missing else [])
    return f"nothing was compared: of {len(files)} selected instance file(s), {' and '.join(why)}"


def main(argv=None) -> int:
    """Command line; exit 0 when everything agrees, 1 on a disagreement, a rejected solution or when nothing was
    solved (every solver requested is unavailable, or every selected file is missing or differs from the manifest's
    sha256: one line on stderr says which, :func:`nothing_ran`) or compared (no selected row has a HiGHS result),
    2 on bad input or an operating-system error (a full disk), 130 on Ctrl-C, 141 when the standard output was closed by
    its reader (:func:`solvers.common.run_main`)."""
    return run_main("compare", lambda: _main(argv))


def _main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m solvers.compare",
        description="Solve library instances with other solvers and compare with the manifest's HiGHS results. "
        "Exit code 0 when every solved row agrees, 1 on a disagreement, a rejected --check, a solver error, a file "
        "that differs from the manifest's sha256 or when nothing was "
        "solved (no requested solver is available, or every selected file is missing or changed), 2 on bad input.",
        formatter_class=DefaultsHelpFormatter,  # no "(default: None)" nor "(default: [])"
    )
    p.add_argument("manifest", type=path_text, help="the library manifest, e.g. models/manifest.csv")
    p.add_argument("--solver", action="append", default=[],
                   help="highs, scip, cbc, cplex, gurobi or xpress (repeatable; highs when none is given)")
    p.add_argument("--format", choices=["mps", "lp", "both"], default="mps", help="which file of each instance")
    p.add_argument("--time-limit", type=real, default=60.0,
                   help=f"seconds per solve: finite, > 0 and at most {MAX_TIME_LIMIT:g} (SCIP's largest)")
    p.add_argument("--mip-gap", type=real, default=1e-6, help="relative MIP gap given to every solver")
    p.add_argument("--seed", type=integer, default=None,
                   help="every solver's random seed, an integer in [0, 2**31 - 1] (default: each solver's own)")
    p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                   help="instance id pattern (repeatable) (default: every instance)")
    p.add_argument("--max-size", type=integer, default=None,
                   help="only instances with |T|, |V| up to this (default: no limit)")
    p.add_argument("--rtol", type=real, default=1e-4, help="relative tolerance of objective agreement")
    p.add_argument("--atol", type=real, default=1e-6, help="absolute tolerance of objective agreement")
    p.add_argument("--solutions", default=None, type=path_text, metavar="DIR",
                   help="write every incumbent as CSV into the folder DIR (created if needed)")
    p.add_argument("--check", action="store_true", help="re-verify every incumbent (solvers.check_solution)")
    p.add_argument("--csv", default=None, type=path_text,
                   help="also write the records as CSV (its folder is created if needed)")
    args = p.parse_args(argv)
    formats = ("mps", "lp") if args.format == "both" else (args.format,)
    try:
        # (Path("") is the working directory: "manifest '.' not found")
        nonempty_path("the library manifest, e.g. models/manifest.csv")(args.manifest, "manifest")
        check_time_limit(args.time_limit, "--time-limit")
        check_mip_gap(args.mip_gap, "--mip-gap")
        # (max_size: "max_size must be ..." (select_rows) named the argument, not the option)
        check_options(args, {"max_size": count(0), "seed": count(0, MAX_SEED)})
        for name in args.solver:  # "unknown solver 'foo'" (get_runner) named no option, after the manifest was read
            check_solver_name(name, "--solver")
        repeated = repeated_values([name.lower() for name in args.solver])  # (solver names: any case)
        if repeated:  # each instance was solved twice by it, its rows (and disagreements) counted twice
            raise InputError(f"--solver names {', '.join(repeated)} more than once")
        check_positive(args.rtol, "--rtol", allow_zero=True)  # finite: --rtol inf called equal optima DISAGREE
        check_positive(args.atol, "--atol", allow_zero=True)
        for option, path in (("--solutions", args.solutions), ("--csv", args.csv)):
            # --solutions '' wrote no solution (the folder '' is falsy) and removed <id>.<format>.<solver>.csv files
            # of the working directory; --csv '' was "--csv '.' is a folder"
            if path is not None:
                what = "a folder name" if option == "--solutions" else "a file name"
                nonempty_path(f"{what}, or leave {option} out")(path, option)
        if args.solutions is not None:
            check_writable_folder(args.solutions, "--solutions")
        if args.csv is not None:  # before the solves, not after them
            check_writable_file(args.csv, "--csv")
            check_not_an_input(args.csv, args.manifest, "--csv")
            if args.solutions is not None and Path(args.csv).resolve().parent == Path(args.solutions).resolve():
                # --csv sols/<id>.mps.highs.csv replaced that run's solution by the table, without a word
                raise InputError(f"--csv {args.csv!r} lies in the --solutions folder {args.solutions!r}, where compare "
                                 "writes and removes one solution file per run: choose a path outside it")
        records = compare(args.manifest, args.solver or ["highs"], formats, args.time_limit, args.mip_gap,
                          args.only, args.max_size, args.rtol, args.atol, args.solutions, args.check, seed=args.seed,
                          log=lambda r: print(f"  {r['instance']} {r['format']} {r['solver']}: {r['status']} "
                                              f"{r['agreement']}", file=sys.stderr))
    except InputError as exc:
        print(f"compare: error: {exc}", file=sys.stderr)
        return 2
    if args.csv:  # before the table: a standard output closed early (| head -1) lost the finished CSV
        write_csv(records, args.csv)
    print(format_table(records))
    if (why := nothing_ran(records)):  # was exit code 0, as if every solver had agreed
        print(f"compare: error: {why}", file=sys.stderr)
        return 1
    if all(r["manifest_status"] is None for r in records):  # every row n/a, exit 0 as if all agreed
        print("compare: error: nothing was compared: no selected instance has a HiGHS result in the manifest "
              "(exported with --no-solve?); re-export it with the HiGHS solves to compare against", file=sys.stderr)
        return 1
    # a solver's error (CBC misread the file, returned an infeasible point) or a file changed since its export is
    # a failure even beside solved rows: both exited 0
    bad = [r for r in records
           if r["agreement"] == "DISAGREE" or str(r.get("check", "")).startswith(("rejected", "error"))
           or r["status"] == "error"]
    if bad:
        print(f"\n{len(bad)} disagreement(s), rejected solution(s), failed check(s), solver error(s) or changed "
              "file(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
