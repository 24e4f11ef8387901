"""Check HiGHS options for wrong answers on small tuning MILPs: each option set against HiGHS's defaults.

Builds the optimistic and pessimistic (epsilon 0 and 0.2, every validation label flipped) MILPs of both data
sets at ``--sizes`` (three splits each), solves each with plain ``highspy`` (no MIP start, no package
options) under HiGHS's defaults and under every option set, and counts the solves whose outcome contradicts
a proven default optimum: another status than a time limit, "optimal" at another value (relative 1e-4), or a
dual bound above that optimum (the MILPs minimise; with ``user_objective_scale=5`` HiGHS 1.15.1 reported
Optimal at the right value with a bound 32 times it). A time limit is not a wrong answer and is counted apart.
This is how ``bilevel.solve.UNSAFE_OPTIONS`` was found (experiments/PERFORMANCE.md, *A refused option*).

    python experiments/option_safety.py --options mip_lifting_for_probing=1 presolve=off
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.help_format import real  # noqa: E402
from bilevel.errors import InputError  # noqa: E402
from bilevel.highs_run import silent_highs  # noqa: E402
from bilevel.solve import _configured_highs, compile_model  # noqa: E402
from bilevel.tune_cli import _highs_option  # noqa: E402
from experiments.bench_args import integer_at_least  # noqa: E402
from experiments.bench_milp import benchmark_split, check_splits  # noqa: E402


#: The data sets of the instances.
DATASETS = ("cancer", "diabetes")


def instances(sizes, seeds=(0, 1, 2)):
    """``(name, CompiledModel)`` for every data set, size, split and mode."""
    out = []
    for data in DATASETS:
        for n in sizes:
            for seed in seeds:
                s = benchmark_split(data, n, seed)
                out.append((f"{data} opt {n} {seed}",
                            bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)))
                for eps in (0.0, 0.2):
                    out.append((f"{data} pes{eps:g} {n} {seed}", bilevel.build_pessimistic_model(
                        s.X_train, s.y_train, s.X_val, s.y_val, list(range(n)), eps)))
    return [(name, compile_model(m)) for name, m in out]


def run(cm, options: dict, time_limit: float) -> tuple[str, float, float]:
    """HiGHS's status string, objective and MIP dual bound for the compiled model ``cm`` under ``options`` (the
    package's silent ``Highs`` set-up, without a MIP start and without the refusal of ``UNSAFE_OPTIONS``)."""
    try:
        h = _configured_highs(cm, {"time_limit": float(time_limit), **options}, None)
    except InputError as exc:
        raise SystemExit(str(exc)) from None
    h.run()
    info = h.getInfo()
    return h.modelStatusToString(h.getModelStatus()), float(info.objective_function_value), float(info.mip_dual_bound)


def wrong(reference: tuple, outcome: tuple) -> bool:
    """Whether ``outcome`` (status, objective[, dual bound]) contradicts a proven ``reference`` optimum of a
    minimisation: a dual bound above it (whatever the status), or another status than a time limit, or
    "Optimal" at another value. Values within ``1e-4 * max(1, |reference objective|)`` count as equal: a
    relative tolerance of 1e-4, absolute 1e-4 for optima of magnitude below 1 (an optimum of 0 is common)."""
    if reference[0] != "Optimal":
        return False
    tolerance = 1e-4 * max(1.0, abs(reference[1]))
    if len(outcome) > 2 and outcome[2] > reference[1] + tolerance:  # -inf (no bound) and nan never are
        return True
    if outcome[0] == "Time limit reached":
        return False
    return outcome[0] != "Optimal" or abs(outcome[1] - reference[1]) > tolerance


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--options", type=_highs_option, nargs="+", required=True, metavar="NAME=VALUE",
                    help="option sets to check, one NAME=VALUE each")
    ap.add_argument("--sizes", type=integer_at_least(2), nargs="+", default=[6, 8], help="|T| = |V| of the instances")
    ap.add_argument("--time-limit", type=real, default=20.0, help="seconds per solve")
    args = ap.parse_args(argv)
    # a size below 2 or one a data set cannot supply ended in an InputError traceback (exit 1)
    check_splits(ap, [(data, n) for data in DATASETS for n in args.sizes], 0, "--sizes")
    models = instances(args.sizes)
    reference = {name: run(cm, {}, args.time_limit) for name, cm in models}
    proven = sum(r[0] == "Optimal" for r in reference.values())
    print(f"{len(models)} MILPs, {proven} proven optimal under HiGHS's defaults (HiGHS {silent_highs().version()})")
    failures = 0
    for key, value in args.options:
        outcomes = {name: run(cm, {key: value}, args.time_limit) for name, cm in models}
        bad = [name for name in outcomes if wrong(reference[name], outcomes[name])]
        limits = sum(o[0] == "Time limit reached" for o in outcomes.values())
        failures += bool(bad)
        print(f"{key}={value!r}: wrong on {len(bad)} of {proven}, time limit on {limits}"
              + (f" (e.g. {bad[0]}: {outcomes[bad[0]][0]} {outcomes[bad[0]][1]:.6g}, bound "
                 f"{outcomes[bad[0]][2]:.6g}, against {reference[bad[0]][1]:.6g})" if bad else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/option_safety.py"))
