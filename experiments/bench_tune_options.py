"""Benchmark: ``bilevel.tune`` with its HiGHS options against an alternative set, whole pipeline included.

:mod:`experiments.bench_options` times option sets on the bare MILPs; this script times what a user runs,
``bilevel.tune`` (MIP start, box search, cutoff restarts, lambda escalation), once with the package's options
(:data:`bilevel.HIGHS_OPTIONS`) and once with ``--options`` on top, on the same instances, under ``--random-seeds``
HiGHS seeds, the two settings in turn (the package's first in every pair). Before every timed solve the package's LP
caches (the bound-tightening ranges of :mod:`bilevel.bigm` and the loaded hinge LPs of :mod:`bilevel.hinge_highs`)
are emptied, so each side pays for its own LPs: with the caches kept, the second of two identical settings found the
first's ranges at the same cutoffs solved and took 0.95 of its time on optimistic cancer 100/100 (0.5-1.1 s less), a
bias in the alternative's favour in the runs before this change (at sizes 10-20 a build's LPs take 4-43 ms,
experiments/PERFORMANCE.md). Pessimistic instances flip every validation label and share one optimistic solve
(package options) for ``V_f``; the time is ``total_seconds`` of the timed solve. Prints every pair and the geometric
mean of time(alternative) / time(package) overall and per mode (time-limited solves count at the limit, so a ratio
that involves one is a bound); writes ``tune_options.csv`` (also nodes and cutoff restarts of each solve, which tell
two paths apart) and ``tune_options.md`` into ``--out``.

``--python PATH`` runs the alternative in another interpreter instead, e.g. a virtual environment with another
HiGHS release (``--options`` then optional, on top as before): each of its solves runs in a fresh process of
that interpreter (``--worker``; the import is not timed), which solves the pessimistic instances' optimistic
MILP again itself. The table's header names the ``highspy`` release of either side.

``--clock nodes`` gives the alternative ``bilevel.tune(clock="nodes")`` (box search and cutoff restarts after
a node count, not a time).

``--search-first-points N`` gives the alternative the rule that runs the box search before HiGHS's first solve on
optimistic MILPs of at least N training and validation points (``bilevel.tune``'s ``_SEARCH_FIRST_POINTS``, 100):
``0`` searches first on every optimistic MILP, a huge N never (the search then runs inside HiGHS's run only).

``--solver gurobi|cplex`` solves the alternative with that solver instead (``bilevel.tune(solver=...)``, one thread,
the seed parameter ``SEED_PARAMETERS`` names set to the HiGHS seed's number), the package side with HiGHS as always.

The default instances are those of ``bench_small_gc`` (``experiments/bench_milp.py --sizes 10 20``) that the
package proves in 0.1-25 s; ``--sizes 50`` runs all 18 instances of that size instead; ``--data`` and
``--modes`` keep a subset of either.

    python experiments/bench_tune_options.py --options mip_allow_cut_separation_at_nodes=true \\
        --out experiments/results/bench_tune_nodecuts
    python experiments/bench_tune_options.py --python /tmp/v116/bin/python --sizes 100 --data cancer \\
        --modes opt --random-seeds 3 --time-limit 120 --out experiments/results/bench_tune_highs116_100
    python experiments/bench_tune_options.py --search-first-points 1000000 --sizes 50 100 --data cancer \\
        --modes opt --random-seeds 2 --time-limit 120 --out experiments/results/bench_tune_search_first
    python experiments/bench_tune_options.py --solver gurobi --sizes 100 --data cancer --modes opt \\
        --random-seeds 3 --time-limit 120 --out experiments/results/bench_tune_gurobi_100
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.metadata
import json
import subprocess
import sys
import warnings
from datetime import date
from pathlib import Path

from scipy.stats import gmean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel import bigm, hinge_highs  # noqa: E402
from bilevel.other_solvers import PACKAGES  # noqa: E402
from bilevel.tune import HIGHS_OPTIONS  # noqa: E402
from bilevel.tune_cli import _highs_option  # noqa: E402
from bilevel.validation import CLOCKS  # noqa: E402
from experiments.bench_milp import benchmark_split, check_splits  # noqa: E402
from experiments.bench_args import (highs_seed_count, integer_at_least, positive_seconds, refuse_repeats,  # noqa: E402
                                    writable_out)

# (data, mode, |T| = |V|, split seed): bench_small_gc's instances proven in 0.1-25 s.
INSTANCES = [
    ("cancer", "opt", 20, 0), ("cancer", "pes0", 10, 0), ("cancer", "pes0", 10, 1), ("cancer", "pes0", 10, 2),
    ("cancer", "pes0", 20, 0), ("cancer", "pes0", 20, 1), ("cancer", "pes0", 20, 2), ("cancer", "pes0.2", 10, 0),
    ("cancer", "pes0.2", 10, 1), ("cancer", "pes0.2", 10, 2), ("cancer", "pes0.2", 20, 0),
    ("cancer", "pes0.2", 20, 1), ("cancer", "pes0.2", 20, 2), ("diabetes", "opt", 10, 1), ("diabetes", "opt", 10, 2),
    ("diabetes", "opt", 20, 0), ("diabetes", "opt", 20, 1), ("diabetes", "opt", 20, 2), ("diabetes", "pes0", 10, 0),
    ("diabetes", "pes0", 10, 1), ("diabetes", "pes0.2", 10, 0), ("diabetes", "pes0.2", 10, 1),
    ("diabetes", "pes0.2", 10, 2),
]


#: The seed parameter of each solver ``--solver`` takes (``bilevel.tune(solver_options=...)``).
SEED_PARAMETERS = {"gurobi": "Seed", "cplex": "randomseed"}


def _solve(s, mode: str, optimistic, time_limit: float, options: dict, clock: str = "seconds", solver: str = "highs"):
    if solver == "highs":
        kw = dict(time_limit=time_limit, highs_options=options, clock=clock)
    else:  # one thread, as HiGHS's tree search is serial; the HiGHS seed's number as the solver's seed
        kw = dict(time_limit=time_limit, solver=solver, threads=1,
                  solver_options={SEED_PARAMETERS[solver]: options["random_seed"]})
    if mode == "opt":
        return bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, **kw)
    return bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=float(mode[3:]),
                        flip="all", optimistic=optimistic, **kw)


def _solve_fields(data: str, mode: str, n: int, seed: int, random_seed: int, time_limit: float, options: dict,
                  optimistic=None, clock: str = "seconds", split=None, solver: str = "highs",
                  search_first_points: int | None = None) -> dict:
    """One timed ``tune`` call on ``split`` (``None``: the split of ``(data, n, seed)`` is made here; the
    optimistic solve behind a pessimistic one likewise when not given), with ``bilevel.tune``'s
    ``_SEARCH_FIRST_POINTS`` set to ``search_first_points`` during the call (``None``: the package's)."""
    s = benchmark_split(data, n, seed) if split is None else split
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if mode != "opt" and optimistic is None:
            optimistic = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=time_limit)
        forget_cached_lps()
        with _search_first_points(search_first_points):
            res = _solve(s, mode, optimistic, time_limit, {**options, "random_seed": random_seed}, clock, solver)
    return {"status": res.status, "seconds": res.total_seconds, "objective": res.objective,
            "verified": res.verified, "nodes": res.nodes, "restarts": len(res.restarts)}


@contextlib.contextmanager
def _search_first_points(points: int | None):
    """``bilevel.tune``'s rule of the box search before HiGHS's first solve at ``points`` (``None``: unchanged)
    inside the block, restored after it."""
    tune_module = importlib.import_module("bilevel.tune")  # (the module: ``bilevel.tune`` is the function)
    before = tune_module._SEARCH_FIRST_POINTS
    if points is not None:
        tune_module._SEARCH_FIRST_POINTS = points
    try:
        yield
    finally:
        tune_module._SEARCH_FIRST_POINTS = before


def forget_cached_lps() -> None:
    """Empty this process's LP caches (:mod:`bilevel.bigm`'s bound-tightening ranges, this thread's loaded
    :mod:`bilevel.hinge_highs` LPs), so that the next solve pays for all its LPs itself."""
    bigm._RANGE_CACHE.clear()
    hinge_highs._LOCAL.__dict__.clear()


def _highspy_release(python: str | None) -> str:
    if python is None:
        return importlib.metadata.version("highspy")
    code = "import importlib.metadata as m; print(m.version('highspy'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def _solver_version(solver: str) -> str:
    """``"<solver> <version>"`` of the installed ``gurobipy`` or ``cplex`` package."""
    return f"{solver} {importlib.metadata.version(PACKAGES[solver])}"


def _solve_in(python: str, spec: dict) -> dict:
    """:func:`_solve_fields` in a fresh process of the interpreter ``python`` (``--worker``)."""
    proc = subprocess.run([python, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{python} failed on {spec}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    if argv is None and sys.argv[1:2] == ["--worker"]:  # one solve for another interpreter's main()
        print(json.dumps(_solve_fields(**json.loads(sys.argv[2]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", type=_highs_option, nargs="+", default=[], metavar="NAME=VALUE",
                    help="the alternative HiGHS options, over bilevel.HIGHS_OPTIONS")
    ap.add_argument("--python", default=None, metavar="PATH",
                    help="interpreter that runs the alternative (e.g. a venv with another HiGHS release)")
    ap.add_argument("--clock", choices=CLOCKS, default="seconds",
                    help="the alternative's bilevel.tune(clock=...): what its box search and cutoff restarts wait "
                         "for (the package side keeps seconds)")
    ap.add_argument("--solver", choices=tuple(SEED_PARAMETERS), default=None,
                    help="the alternative solves with this solver (bilevel.tune(solver=...)) on one thread")
    ap.add_argument("--search-first-points", type=integer_at_least(0), default=None, metavar="N",
                    help="the alternative runs the box search before HiGHS's first solve on optimistic MILPs of at "
                         "least N training and validation points (the package: 100; 0: always; 1000000: never)")
    ap.add_argument("--sizes", type=integer_at_least(2), nargs="*", default=None,
                    help="run every instance of these sizes (both data sets, all modes, seeds 0-2) instead")
    ap.add_argument("--data", nargs="+", choices=("cancer", "diabetes"), default=None,
                    help="keep only the instances of these data sets")
    ap.add_argument("--modes", nargs="+", choices=("opt", "pes0", "pes0.2"), default=None,
                    help="keep only the instances of these modes")
    ap.add_argument("--random-seeds", type=highs_seed_count, default=2, help="HiGHS random seeds per instance")
    ap.add_argument("--time-limit", type=positive_seconds, default=30.0, help="seconds per MILP solve")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if (not args.options and args.python is None and args.clock == "seconds" and args.solver is None
            and args.search_first_points is None):
        ap.error("give --options, --python, --clock nodes, --search-first-points or --solver: the alternative must "
                 "differ from the package's setting")
    if args.solver is not None and (args.options or args.python is not None or args.clock != "seconds"
                                    or args.search_first_points is not None):
        ap.error("--solver runs the alternative with another solver: --options, --python, --clock and "
                 "--search-first-points are HiGHS's")
    alternative = dict(args.options)
    releases = {"package": _highspy_release(None), "alternative": _highspy_release(args.python)}
    instances = INSTANCES if not args.sizes else [
        (d, m, n, s) for d in ("cancer", "diabetes") for m in ("opt", "pes0", "pes0.2") for n in args.sizes
        for s in (0, 1, 2)]
    instances = [i for i in instances if (args.data is None or i[0] in args.data)
                 and (args.modes is None or i[1] in args.modes)]
    if not instances:
        ap.error("no instance left after --data / --modes")
    refuse_repeats(ap, args, "sizes", "data", "modes")
    check_splits(ap, dict.fromkeys((i[0], i[2]) for i in instances))
    out = writable_out(ap, args.out)
    rows = []
    for data, mode, n, seed in instances:
        s = benchmark_split(data, n, seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            optimistic = None if mode == "opt" else bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val,
                                                                 time_limit=args.time_limit)
        for rs in range(args.random_seeds):
            row = dict(data=data, mode=mode, n=n, seed=seed, random_seed=rs)
            for label, extra, clock, solver, points in (
                    ("package", {}, "seconds", "highs", None),
                    ("alternative", alternative, args.clock, args.solver or "highs", args.search_first_points)):
                spec = dict(data=data, mode=mode, n=n, seed=seed, random_seed=rs, time_limit=args.time_limit,
                            options=extra, clock=clock, **({} if solver == "highs" else {"solver": solver}),
                            **({} if points is None else {"search_first_points": points}))
                if label == "alternative" and args.python is not None:
                    fields = _solve_in(args.python, spec)
                else:
                    fields = _solve_fields(**spec, optimistic=optimistic, split=s)
                row.update({f"{label}_{key}": value for key, value in fields.items()})
            row["ratio"] = row["alternative_seconds"] / max(row["package_seconds"], 1e-3)
            rows.append(row)
            print(f"{data:<8} {mode:<6} n={n:<3} s={seed} rs={rs}  package {row['package_status']:<10} "
                  f"{row['package_seconds']:7.2f}s  alternative {row['alternative_status']:<10} "
                  f"{row['alternative_seconds']:7.2f}s  ratio {row['ratio']:.2f}", flush=True)
    with open(out / "tune_options.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    groups = {label: [r["ratio"] for r in rows if keep(r)] for label, keep in (
        ("all", lambda r: True), ("optimistic", lambda r: r["mode"] == "opt"),
        ("pessimistic", lambda r: r["mode"] != "opt"))}
    summary = {label: gmean(ratios) for label, ratios in groups.items() if ratios}
    other = f"{alternative} over `HIGHS_OPTIONS`" if alternative else "the same options"
    if args.clock != "seconds":
        other += f", `clock={args.clock!r}`"
    if args.search_first_points is not None:
        other += f", the box search before HiGHS's first solve from {args.search_first_points} points"
    if args.python is not None:
        other += f", run by `{args.python}`"
    if args.solver is not None:
        seed_name = SEED_PARAMETERS[args.solver]
        other = f"`solver={args.solver!r}` ({_solver_version(args.solver)}, one thread, `{seed_name}` = the HiGHS seed)"
    release = "" if args.solver is not None else f" (highspy {releases['alternative']})"
    lines = [f"`bilevel.tune` with {other}{release} against `HIGHS_OPTIONS` = "
             f"{HIGHS_OPTIONS} (highspy {releases['package']}), run {date.today()}, time limit "
             f"{args.time_limit:g} s, HiGHS seeds 0-{args.random_seeds - 1}, the two settings in turn: total "
             "seconds of each solve.", "",
             "| data | mode | n | seed | HiGHS seed | package s | alternative s | alternative / package |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['data']} | {r['mode']} | {r['n']} | {r['seed']} | {r['random_seed']} | "
                     f"{r['package_seconds']:.2f} ({r['package_status']}) | "
                     f"{r['alternative_seconds']:.2f} ({r['alternative_status']}) | {r['ratio']:.2f} |")
    lines += ["", "Geometric mean of alternative / package: " + ", ".join(
        f"{label} **{value:.2f}**" for label, value in summary.items()) + f" ({len(rows)} pairs)."]
    (out / "tune_options.md").write_text("\n".join(lines) + "\n")
    print(lines[-1])
    print(f"wrote {out / 'tune_options.csv'} and {out / 'tune_options.md'}")
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/bench_tune_options.py"))
