"""Benchmark: which HiGHS options (and the MIP start) pay on the tuning MILPs.

Each instance's MILP is built once (optimistic Eq. (21), or pessimistic Eq. (25) with all validation
labels flipped and ``lambda_bound = 1000``; for epsilon = 0 with the optimistic best bound as objective
floor, as :func:`bilevel.tune` does) and solved with every option set under several HiGHS random seeds,
because HiGHS's run time on these models varies several-fold with the seed alone. Prints, per instance
and option set, the geometric mean solve time over the seeds and how many seeds proved optimality, and
the geometric mean over all instances *relative to HiGHS's defaults with the MIP start* (``presolve="choose"``,
``mip_heuristic_effort=0.05``, RINS and RENS on, ``mip_pscost_minreliable=8``, ``threads=0`` = auto), per mode
(optimistic, pessimistic) and overall. :data:`bilevel.HIGHS_OPTIONS` (the options ``tune`` uses) was
chosen from this table. Writes ``options.csv`` and ``options.md`` into ``--out``.

    python experiments/bench_options.py --time-limit 30 --out experiments/results/bench_options
"""
from __future__ import annotations

import argparse
import csv
import math
import sys
import warnings
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.solve import NoSolutionError, solve_model  # noqa: E402
from bilevel.warmstart import kkt_start  # noqa: E402
from experiments.bench_args import highs_seed_count, positive_seconds, writable_out  # noqa: E402

# name -> (hand HiGHS the KKT MIP start?, HiGHS options)
OPTION_SETS = {
    "HiGHS defaults": (True, {}),
    "no MIP start": (False, {}),
    "presolve off": (True, {"presolve": "off"}),
    "mip_heuristic_effort 0.3": (True, {"mip_heuristic_effort": 0.3}),
    "mip_heuristic_effort 0": (True, {"mip_heuristic_effort": 0.0}),
    "RENS off": (True, {"mip_heuristic_run_rens": False}),
    "RINS off": (True, {"mip_heuristic_run_rins": False}),
    "RINS + RENS off": (True, {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}),
    "mip_pscost_minreliable 2": (True, {"mip_pscost_minreliable": 2}),
    "restart off": (True, {"mip_allow_restart": False}),
    "mip_detect_symmetry off": (True, {"mip_detect_symmetry": False}),
}
# (data, mode, |T| = |V|, split seed): instances that solve in about 0.1-20 s with the defaults.
INSTANCES = [
    ("diabetes", "opt", 10, 0), ("diabetes", "opt", 10, 1), ("diabetes", "opt", 10, 2), ("cancer", "opt", 20, 0),
    ("cancer", "opt", 50, 0), ("cancer", "opt", 50, 1), ("diabetes", "opt", 20, 0), ("diabetes", "opt", 20, 1),
    ("diabetes", "opt", 20, 2), ("cancer", "pes0", 20, 0), ("diabetes", "pes0", 20, 0), ("diabetes", "pes0", 20, 1),
    ("diabetes", "pes0", 20, 2), ("cancer", "pes0.2", 10, 0), ("cancer", "pes0.2", 10, 1),
    ("diabetes", "pes0.2", 10, 0), ("diabetes", "pes0.2", 10, 1),
]


def build(data: str, mode: str, n: int, seed: int):
    """The MILP of one instance (see the module docstring) as a Pyomo model."""
    X, y = bilevel.load_dataset(data)[:2]
    s = bilevel.split_dataset(X, y, n, n, seed=seed)
    if mode == "opt":
        return bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    eps = float(mode[3:])
    floor = None
    if eps == 0.0:
        floor = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val).best_bound or None
    return bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, np.arange(n), eps,
                                           lambda_bound=1000.0, objective_floor=floor)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--time-limit", type=positive_seconds, default=30.0, help="seconds per solve")
    ap.add_argument("--random-seeds", type=highs_seed_count, default=3,
                    help="HiGHS random seeds per instance and option set")
    ap.add_argument("--out", default="experiments/results/bench_options")
    args = ap.parse_args(argv)
    out = writable_out(ap, args.out)
    rows = []
    for data, mode, n, seed in INSTANCES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            model = build(data, mode, n, seed)
        start = kkt_start(model)
        for rs in range(args.random_seeds):
            for name, (use_start, opts) in OPTION_SETS.items():
                try:
                    info = solve_model(model, time_limit=args.time_limit, mip_start=start if use_start else None,
                                       options={**opts, "random_seed": rs})
                    status, seconds, obj = info.status, info.seconds, info.objective
                except NoSolutionError:
                    status, seconds, obj = "no_solution", args.time_limit, math.nan
                rows.append(dict(data=data, mode=mode, n=n, seed=seed, random_seed=rs, options=name, status=status,
                                 seconds=seconds, objective=obj))
                print(f"{data:<8} {mode:<6} n={n:<3} s={seed} rs={rs} {name:<26} {status:<11} {seconds:7.2f}s",
                      flush=True)
    with open(out / "options.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    # Geometric means over the random seeds (time-limited solves count at the limit: a lower bound).
    cell = defaultdict(list)
    for r in rows:
        cell[(r["data"], r["mode"], r["n"], r["seed"]), r["options"]].append(r)
    names = list(OPTION_SETS)
    lines = [f"HiGHS option sets on the tuning MILPs, run {date.today()}, time limit {args.time_limit:g} s, "
             f"{args.random_seeds} HiGHS random seeds each: geometric-mean solve seconds (seeds proven optimal).", "",
             "| instance | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    ratio = defaultdict(list)  # (option set, "opt" or "pes") -> log time ratios to the baseline
    for inst in dict.fromkeys(k for k, _ in cell):
        geo = {}
        for name in names:
            rs = cell[inst, name]
            geo[name] = math.exp(np.mean([math.log(max(r["seconds"], 1e-2)) for r in rs]))
            ratio[name, inst[1][:3]].append(math.log(geo[name] / geo[names[0]]))
        lines.append(f"| {inst[0]} {inst[1]} n={inst[2]} s={inst[3]} | " + " | ".join(
            f"{geo[nm]:.2f} ({sum(r['status'] == 'optimal' for r in cell[inst, nm])})" for nm in names) + " |")
    for label, modes in (("optimistic", ("opt",)), ("pessimistic", ("pes",)), ("all", ("opt", "pes"))):
        rel = {nm: math.exp(np.mean([x for md in modes for x in ratio[nm, md]] or [math.nan])) for nm in names}
        lines.append(f"| **time relative to {names[0]}, {label} (geo-mean)** | "
                     + " | ".join(f"**{rel[nm]:.2f}**" for nm in names) + " |")
    (out / "options.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-3:]))
    print(f"wrote {out / 'options.csv'} and {out / 'options.md'}")
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/bench_options.py"))
