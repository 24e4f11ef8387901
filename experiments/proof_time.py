"""How long HiGHS takes to *prove* a tuning MILP's optimum once it holds it: a bound on what a better primal
heuristic could still gain.

Solves an instance with ``bilevel.tune``, then re-solves its last MILP (same data, flipped set and ``lambda``
bound) started at the optimum, once as built without a cutoff and once built around the optimum
(``objective_cutoff``, item 10 of ``bilevel/bigm.py``: the tightest model the cutoff restarts can reach),
under ``--random-seeds`` HiGHS seeds with the package's HiGHS options. If these re-solves take as long as the
tune call, the solve is bound-limited and no incumbent, however early, makes it much faster.

    python experiments/proof_time.py --data cancer --n 20 --seed 0 --epsilon 0.2
"""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.tune import HIGHS_OPTIONS, padded_cutoff  # noqa: E402
from bilevel.warmstart import loaded_start, start_by_name  # noqa: E402
from experiments.bench_milp import benchmark_split  # noqa: E402


def proof_times(data: str, n: int, seed: int, epsilon: float, random_seeds: int = 2, time_limit: float = 60.0):
    """The tune result of the pessimistic instance (every validation label flipped) and a list of
    ``(cutoff or None, HiGHS seed, SolveInfo)`` of the re-solves started at its optimum."""
    s = benchmark_split(data, n, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=time_limit)
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=epsilon, flip="all",
                           optimistic=opt, time_limit=time_limit)
    if res.status != "optimal":
        raise SystemExit(f"tune did not prove the instance optimal ({res.status}); no optimum to start from")
    info, pairs = res.model.bilevel_info, loaded_start(res.model)
    out = []
    for rs in range(random_seeds):
        for cutoff in (None, padded_cutoff(res.objective)):
            m = bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, info["flipped"], epsilon,
                                                (info["w_bar_lb"], info["w_bar_ub"]), info["lambda_bound"],
                                                objective_cutoff=cutoff)
            solved = bilevel.solve_model(m, mip_start=start_by_name(pairs, m), time_limit=time_limit,
                                         options={**HIGHS_OPTIONS, "random_seed": rs})
            out.append((cutoff, rs, solved))
    return res, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", choices=("cancer", "diabetes"), required=True)
    ap.add_argument("--n", type=int, required=True, help="|T| = |V|")
    ap.add_argument("--seed", type=int, default=0, help="split seed")
    ap.add_argument("--epsilon", type=float, default=0.2)
    ap.add_argument("--random-seeds", type=int, default=2, help="HiGHS random seeds of the re-solves")
    ap.add_argument("--time-limit", type=float, default=60.0)
    args = ap.parse_args(argv)
    res, out = proof_times(args.data, args.n, args.seed, args.epsilon, args.random_seeds, args.time_limit)
    print(f"tune: {res.status} {res.objective:.6f} in {res.total_seconds:.2f} s, {res.nodes} nodes, "
          f"{len(res.restarts)} cutoff restart(s)")
    for cutoff, rs, info in out:
        label = "built around the optimum" if cutoff is not None else "plain model"
        print(f"started at the optimum, {label}, HiGHS seed {rs}: {info.status} {info.objective:.6f} "
              f"in {info.seconds:.2f} s, {info.nodes} nodes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
