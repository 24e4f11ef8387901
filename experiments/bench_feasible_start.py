"""Benchmark: the MIP start (and box search) of the pessimistic MILP with ``replica="feasible"`` (Eq. (24) of the
pessimistic bilevel tuning paper as printed), against the same ``bilevel.tune`` without it.

Until 2026-11-29 :func:`bilevel.warmstart.queued_start` returned no start for a model whose replica is only
feasible, so ``tune(..., replica="feasible")`` ran HiGHS from nothing and its box search found nothing either.
It now takes the training optimum at the box as the replica (one feasible replica of Eq. (24)). The side
"without" reproduces the old code in this process by making ``queued_start`` return ``None`` for such models,
so both sides run here, the side "without" first in every pair.

Instances: cancer and diabetes, |T| = |V| in ``--sizes`` (default 10 15 20), split seeds ``--seeds`` (default 0
1), epsilon 0.2, every validation label flipped, ``clock="nodes"`` (the same paths on any machine), a time limit
of ``--time-limit`` seconds (default 120) per ``tune`` call. Both sides share one optimistic solve. Prints each
pair (time, status, objective, verified) and the geometric mean of time(with) / time(without) over the pairs
that both sides proved optimal (time-limited pairs are listed, not averaged).

    python experiments/bench_feasible_start.py                 # about 13 minutes on 2 cores
    python experiments/bench_feasible_start.py --sizes 10 15   # about 3 minutes
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import importlib  # noqa: E402

import bilevel  # noqa: E402
from bilevel.help_format import real  # noqa: E402
from experiments.bench_args import integer_at_least  # noqa: E402
from experiments.bench_milp import check_splits, plain_split  # noqa: E402
import bilevel.warmstart as warmstart  # noqa: E402

tune_mod = importlib.import_module("bilevel.tune")  # the module: ``bilevel.tune`` is also the function tune


def _without_feasible_start(real):
    """``queued_start`` as before 2026-11-29: no start for a pessimistic model with a feasible-only replica, after
    its LPs (the old code solved them before giving up; their time sets the box search's share of a solve)."""
    def queued_start(info, w_bar):
        start = real(info, w_bar)
        return None if info["mode"] == "pessimistic" and info.get("replica") == "feasible" else start
    return queued_start


def _run(s, opt, start: bool, time_limit: float):
    real = warmstart.queued_start
    patched = real if start else _without_feasible_start(real)
    warmstart.queued_start, tune_mod.queued_start = patched, patched  # tune imports it by name
    try:
        t0 = time.perf_counter()
        r = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "pessimistic", epsilon=0.2, flip="all",
                         optimistic=opt, replica="feasible", time_limit=time_limit, clock="nodes")
        return time.perf_counter() - t0, r
    finally:
        warmstart.queued_start, tune_mod.queued_start = real, real


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=integer_at_least(2), nargs="+", default=[10, 15, 20])
    ap.add_argument("--seeds", type=integer_at_least(0), nargs="+", default=[0, 1])
    ap.add_argument("--data", nargs="+", default=["cancer", "diabetes"])
    ap.add_argument("--time-limit", type=real, default=120.0)
    args = ap.parse_args(argv)
    # a size a data set cannot supply (or an unknown data set) ended in an InputError traceback (exit 1), after the
    # instances before it had run
    check_splits(ap, [(data, n) for data in args.data for n in args.sizes], args.seeds[0], "--sizes", plain_split)
    ratios = []
    print(f"{'data':9} {'n':>3} {'seed':>4} | {'without: s':>10} {'status':>10} {'objective':>9} | "
          f"{'with: s':>8} {'status':>10} {'objective':>9} | ratio")
    for data in args.data:
        d = bilevel.load_dataset(data)
        for n in args.sizes:
            for seed in args.seeds:
                s = bilevel.split_dataset(d.X, d.y, n, n, seed=seed)
                opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "optimistic", clock="nodes")
                t_old, old = _run(s, opt, False, args.time_limit)
                t_new, new = _run(s, opt, True, args.time_limit)
                both = old.optimal and new.optimal
                if both:
                    ratios.append(t_new / t_old)
                print(f"{data:9} {n:>3} {seed:>4} | {t_old:10.2f} {old.status:>10} {old.objective:9.6f} | "
                      f"{t_new:8.2f} {new.status:>10} {new.objective:9.6f} | "
                      + (f"{t_new / t_old:.2f}" if both else "-")
                      + ("" if old.verified and new.verified else "   NOT VERIFIED"), flush=True)
    if ratios:
        gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"geometric mean time(with) / time(without) over {len(ratios)} pairs proved optimal by both: {gm:.2f} "
              f"(range {min(ratios):.2f}-{max(ratios):.2f})")
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    raise SystemExit(run_command(main, prog="experiments/bench_feasible_start.py"))
