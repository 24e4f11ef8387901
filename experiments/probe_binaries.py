"""Experiment: how many binaries of a tuning MILP probing by LPs can fix, and how far one branch moves the bound.

The model is built around an objective cutoff ``U`` (item 10 of ``bilevel/bigm.py``; by default ``U`` is the
optimum found by ``bilevel.tune`` first, the tightest model the cutoff restarts can reach). Each binary still
free is fixed at 0 and at 1 in turn and the LP relaxation re-solved (HiGHS, warm-started from the last
basis). When the LP with ``z = v`` is infeasible or its bound exceeds ``U``, every solution of objective at
most ``U`` has ``z = 1 - v``, so probing could fix ``z``. Prints the root LP bound, the counts, and the
best bound one branching decision reaches (full strong branching: the largest over the binaries of the
smaller of its two branch LP bounds): if that stays near the root bound, no single branching decision moves
the bound, which is what makes these MILPs bound-limited (README, *Performance*). Writes ``probe.txt`` into
``--out``.

    python experiments/probe_binaries.py --data cancer --n 100 --seed 1 --out experiments/results/probe_binaries
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import highspy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.help_format import real  # noqa: E402
from bilevel.highs_run import silent_highs  # noqa: E402
from bilevel.solve import compile_model  # noqa: E402
from bilevel.tune import padded_cutoff  # noqa: E402
from experiments.bench_args import integer_at_least, writable_out  # noqa: E402
from experiments.bench_milp import benchmark_split, check_splits  # noqa: E402


def probe(model, cutoff: float, tolerance: float = 1e-9) -> dict:
    """Probe every free binary of the (minimisation) tuning MILP ``model`` against the objective cutoff
    ``cutoff``. Returns ``root`` (the LP relaxation's bound; ``inf`` when it is infeasible), ``binaries``,
    ``columns`` (the compiled model's Pyomo variables by column), ``free`` (column indices), ``fixed``
    (``{column: value}`` that every solution of objective <= cutoff has) and ``branch`` (per free column, the
    smaller of its two branch LP bounds, the bound of the node after branching on it; ``inf`` for an infeasible
    branch)."""
    cm = compile_model(model)
    lp = cm.lp
    integer = [k for k, kind in enumerate(lp.integrality_) if kind == highspy.HighsVarType.kInteger]
    lp.integrality_ = [highspy.HighsVarType.kContinuous] * lp.num_col_
    h = silent_highs()
    h.passModel(lp)
    h.run()
    # an infeasible LP (a cutoff below its bound) reported its last iterate's objective as the root bound
    root = h.getInfo().objective_function_value if h.getModelStatus() == highspy.HighsModelStatus.kOptimal else np.inf
    lower, upper = np.array(lp.col_lower_), np.array(lp.col_upper_)
    free = [k for k in integer if lower[k] < upper[k]]
    fixed, branch = {}, {}
    for k in free:
        bounds = []
        for value in (0.0, 1.0):
            h.changeColBounds(k, value, value)
            h.run()
            optimal = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
            bounds.append(h.getInfo().objective_function_value if optimal else np.inf)
            h.changeColBounds(k, lower[k], upper[k])
        cut = [b > cutoff + tolerance * (1 + abs(cutoff)) for b in bounds]
        if cut[0] != cut[1]:
            fixed[k] = 1.0 if cut[0] else 0.0
        branch[k] = min(bounds)
    return {"root": root, "binaries": len(integer), "columns": cm.columns, "free": free, "fixed": fixed,
            "branch": branch}


def model_around(data: str, n: int, seed: int, mode: str, cutoff: float | None):
    """The benchmark instance's model built around ``cutoff`` (``None``: its optimum, from ``bilevel.tune``),
    and that cutoff. ``mode``: ``opt``, ``pes0`` or ``pes0.2`` (all validation labels flipped)."""
    s = benchmark_split(data, n, seed)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if mode == "opt":
            if cutoff is None:
                cutoff = bilevel.tune(*args).objective
            return bilevel.build_optimistic_model(*args, objective_cutoff=padded_cutoff(cutoff)), cutoff
        epsilon = float(mode[3:])
        result = None
        if cutoff is None:
            result = bilevel.tune(*args, mode="pessimistic", epsilon=epsilon, flip="all")
            cutoff = result.objective
        model = bilevel.build_pessimistic_model(*args, np.arange(n), epsilon=epsilon,
                                                lambda_bound=1000.0 if result is None else result.lambda_bound,
                                                objective_cutoff=padded_cutoff(cutoff))
    return model, cutoff


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", choices=("cancer", "diabetes"), default="cancer")
    ap.add_argument("--n", type=integer_at_least(2), default=100, help="|T| = |V|")
    ap.add_argument("--seed", type=integer_at_least(0), default=1, help="split seed")
    ap.add_argument("--mode", choices=("opt", "pes0", "pes0.2"), default="opt")
    ap.add_argument("--cutoff", type=real, default=None, help="objective cutoff (default: the optimum)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    check_splits(ap, [(args.data, args.n)], args.seed, "--n")  # (a size too large: an InputError traceback, exit 1)
    out = writable_out(ap, args.out)  # before the probe's LPs, not after them
    model, cutoff = model_around(args.data, args.n, args.seed, args.mode, args.cutoff)
    t0 = time.perf_counter()
    res = probe(model, cutoff)
    seconds = time.perf_counter() - t0
    best = max(res["branch"].values()) if res["branch"] else float("nan")
    lines = [f"{args.data} {args.mode} {args.n}/{args.n} split {args.seed}, model built around {cutoff:.6g}:",
             f"root LP bound {res['root']:.6g}; {res['binaries']} binaries, {len(res['free'])} free after the "
             f"build's fixings; probing fixes {len(res['fixed'])} ({2 * len(res['free'])} LPs, {seconds:.2f} s); "
             f"best bound after one branching (full strong branching) {best:.6g}"]
    print("\n".join(lines))
    with open(out / "probe.txt", "a") as fh:
        fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/probe_binaries.py"))
