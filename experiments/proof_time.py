"""How long HiGHS takes to *prove* a tuning MILP's optimum once it holds it: a bound on what a better primal
heuristic could still gain.

Solves an instance with ``bilevel.tune`` (optimistic, Eq. (21), or pessimistic with every validation label
flipped, Eq. (25)), then re-solves its last MILP (same data and, pessimistic, the same flipped set and
``lambda`` bound) started at the optimum: by default once as built without a cutoff and once built around the
optimum (``objective_cutoff``, item 10 of ``bilevel/bigm.py``: the tightest model the cutoff restarts can
reach); ``--cutoffs`` adds models built around other values, e.g. the cutoff a ``tune`` run restarted with,
which it prints. Each model is solved under ``--random-seeds`` HiGHS seeds with the package's HiGHS options.
If these re-solves take as long as the tune call, the solve is bound-limited and no incumbent, however
early, makes it much faster.

    python experiments/proof_time.py --data cancer --n 20 --seed 0 --epsilon 0.2
    python experiments/proof_time.py --mode optimistic --data cancer --n 100 --seed 1 --cutoffs 0.0614
"""
from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.help_format import real  # noqa: E402
from bilevel.tune import HIGHS_OPTIONS, padded_cutoff  # noqa: E402
from bilevel.warmstart import loaded_start, start_by_name  # noqa: E402
from experiments.bench_args import highs_seed_count, integer_at_least, positive_seconds, refuse_repeats  # noqa: E402
from experiments.bench_milp import benchmark_split, check_splits  # noqa: E402


def rebuild_model(s, mode: str, res, epsilon: float, cutoff):
    """The MILP of ``res`` (a tune result on split ``s``; optimistic: unused, may be ``None``) rebuilt with
    ``objective_cutoff=cutoff`` (``None``: the plain model)."""
    if mode == "optimistic":
        return bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, objective_cutoff=cutoff)
    info = res.model.bilevel_info
    return bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, info["flipped"], epsilon,
                                           (info["w_bar_lb"], info["w_bar_ub"]), info["lambda_bound"],
                                           objective_cutoff=cutoff)


def decided_points(model) -> int:
    """How many training points of the follower the model's cutoff decided (their ``z_beta`` fixed)."""
    return sum(1 for z in model.z_beta.values() if z.fixed)


def proof_times(data: str, n: int, seed: int, epsilon: float, random_seeds: int = 2, time_limit: float = 60.0,
                mode: str = "pessimistic", cutoffs=(None, "optimum"), report=None):
    """Re-solves of one benchmark instance (``data``, |T| = |V| = ``n``, split ``seed``) started at its optimum.

    ``mode``: ``"optimistic"`` or ``"pessimistic"`` (``epsilon`` >= 0, every validation label flipped; the
    optimistic solve that defines ``V_f`` runs first). ``cutoffs``: the models to re-solve, each ``None``
    (built without a cutoff), ``"optimum"`` (built around the tune call's optimum, padded as ``tune`` pads)
    or a number (mean validation hinge; at least the optimum, else the start is cut off). Returns the tune
    result and a list of ``(cutoff used, HiGHS seed, decided training points, SolveInfo)``, seed by seed in
    the order of ``cutoffs``. ``report``: called as ``report(result, None)`` once the tune call ends and as
    ``report(result, row)`` as each re-solve ends (each solve takes up to ``time_limit`` seconds: the command
    printed nothing until all had run; ``time_limit`` is in seconds, 60 by default, and bounds the tune calls
    too). Raises SystemExit when tune does not prove the instance optimal."""
    s = benchmark_split(data, n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=time_limit)
        if mode == "pessimistic":
            res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=epsilon,
                               flip="all", optimistic=res, time_limit=time_limit)
    if res.status != "optimal":
        raise SystemExit(f"tune did not prove the instance optimal ({res.status}); no optimum to start from")
    report = report or (lambda *_: None)
    report(res, None)
    pairs = loaded_start(res.model)
    out = []
    for rs in range(random_seeds):
        for cutoff in cutoffs:
            value = padded_cutoff(res.objective) if cutoff == "optimum" else cutoff
            m = rebuild_model(s, mode, res, epsilon, value)
            solved = bilevel.solve_model(m, mip_start=start_by_name(pairs, m), time_limit=time_limit,
                                         options={**HIGHS_OPTIONS, "random_seed": rs})
            out.append((value, rs, decided_points(m), solved))
            report(res, out[-1])
    return res, out


def _cutoff(text: str):
    """``--cutoffs`` entries: ``none``, ``optimum`` or a finite mean hinge value >= 0."""
    if text in ("none", "optimum"):
        return None if text == "none" else text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'none', 'optimum' or a number, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"a cutoff must be a finite mean hinge value >= 0, got {text!r}")
    return value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", choices=("cancer", "diabetes"), required=True)
    ap.add_argument("--n", type=integer_at_least(2), required=True, help="|T| = |V|")
    ap.add_argument("--seed", type=integer_at_least(0), default=0, help="split seed")
    ap.add_argument("--mode", choices=("optimistic", "pessimistic"), default="pessimistic")
    ap.add_argument("--epsilon", type=real, default=0.2, help="pessimistic only")
    ap.add_argument("--random-seeds", type=highs_seed_count, default=2, help="HiGHS random seeds of the re-solves")
    ap.add_argument("--time-limit", type=positive_seconds, default=60.0,
                    help="seconds per solve, the tune calls and each re-solve (default: 60)")
    ap.add_argument("--cutoffs", type=_cutoff, nargs="+", default=[None, "optimum"],
                    help="models to re-solve: 'none' (no cutoff), 'optimum', or a mean hinge value "
                         "(default: none optimum)")
    args = ap.parse_args(argv)
    refuse_repeats(ap, args, "cutoffs")
    check_splits(ap, [(args.data, args.n)], args.seed, "--n")
    proof_times(args.data, args.n, args.seed, args.epsilon, args.random_seeds, args.time_limit, args.mode,
                args.cutoffs, report=_print_line)
    return 0


def _print_line(res, row) -> None:
    """Print the line of the tune call ``res`` (``row`` None) or of one re-solve ``row`` (see :func:`proof_times`)
    as soon as it ends, as bench_milp prints each instance."""
    if row is None:
        restarts = ", ".join(f"{r['cutoff']:.6g}" for r in res.restarts)
        print(f"tune: {res.status} {res.objective:.6f} in {res.total_seconds:.2f} s, {res.nodes} nodes, "
              f"{len(res.restarts)} cutoff restart(s){' around ' + restarts if restarts else ''}", flush=True)
        return
    cutoff, rs, decided, info = row
    if cutoff is None:
        label = "plain model"
    elif cutoff == padded_cutoff(res.objective):
        label = "built around the optimum"
    else:
        label = f"built around {cutoff:.6g}"
    print(f"started at the optimum, {label} ({decided} points decided), HiGHS seed {rs}: {info.status} "
          f"{info.objective:.6f} in {info.seconds:.2f} s, {info.nodes} nodes", flush=True)


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/proof_time.py"))
