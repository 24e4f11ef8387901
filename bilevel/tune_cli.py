"""``bilevel tune``: solve the optimistic and/or pessimistic MILP on a data set, print a summary, write
a JSON result file and optionally export both MILPs as ``.lp`` and ``.mps``."""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .cli import SUBCOMMANDS
from .datasets import BUILTIN, LabelColumnError, check_split_sizes, load_dataset, split_dataset
from .errors import InputError
from .help_format import DefaultsHelpFormatter, integer, path_text, plain_number, real, shown
from .highs_options import ARGUMENT_OPTIONS, MAX_CONCURRENCY, UNSAFE_OPTIONS
from .option_checks import check_options, count, fraction, nonempty_path, number
from .validation import (CLOCKS, MAX_W_BAR_UB, SOLVERS, check_epsilon, check_mip_gap, check_scale, check_seed,
                         check_writable_file, check_writable_folder)

# The modules that load Pyomo and HiGHS (bilevel.solve, bilevel.tune, bilevel.export) are imported where they are
# used: ``bilevel tune --help`` and a refused option need neither (about 0.7 s).
if TYPE_CHECKING:
    from .tune import TuneResult


def add_parser(sub) -> None:
    """Register ``tune`` (the main job) on the ``bilevel`` subparsers ``sub``."""
    p = sub.add_parser(
        "tune",
        help=SUBCOMMANDS["tune"][1],
        description="Split a data set (stratified: test = --test-fraction of the rows, then --n-train training "
        "and --n-val validation rows from the rest, standardised on the non-test rows), solve the optimistic "
        "MILP (Eq. 21) and/or the pessimistic MILP (Eq. 25) with HiGHS, verify both solutions by re-solving the "
        "inner LP, print a summary and write a JSON result.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--data", required=True, type=path_text,
                   help="built-in data set (cancer, diabetes) or path of a CSV file")
    p.add_argument("--label", default=None, help="label column of a CSV file (default: its last column)")
    p.add_argument("--n-train", type=integer, default=20, help="training set size |T|")
    p.add_argument("--n-val", type=integer, default=20, help="validation set size |V|")
    p.add_argument("--test-fraction", type=real, default=0.5, help="fraction of rows held out as test set")
    p.add_argument("--seed", type=integer, default=0, help="seed of the random split")
    p.add_argument("--mode", choices=["optimistic", "pessimistic", "both"], default="both",
                   help="which MILP to solve (pessimistic needs the optimistic one for its flipped set, so it "
                   "is always solved too)")
    # The pessimistic MILP's options default to None so that giving one with --mode optimistic (where it would
    # change nothing) is refused; run() fills in PESSIMISTIC_DEFAULTS otherwise.
    p.add_argument("--epsilon", type=real, default=None,
                   help="relative training-loss suboptimality of the pessimistic MILP (default: 0.0; refused with "
                   "--mode optimistic)")
    p.add_argument("--flip", choices=["margin", "all"], default=None,
                   help="flipped validation points of the pessimistic MILP: inside the optimistic margin or "
                   "misclassified, or all (default: margin; refused with --mode optimistic)")
    p.add_argument("--replica", choices=["optimal", "feasible"], default=None,
                   help="pessimistic replica: a training optimum (budget exactly (1+epsilon) times the least "
                   "training loss) or only feasible (Eq. 24 as printed) (default: optimal; refused with --mode "
                   "optimistic)")
    p.add_argument("--w-bar-lb", type=real, default=0.0, help="lower bound of every w_bar_j")
    p.add_argument("--w-bar-ub", type=real, default=1.0, help="upper bound of every w_bar_j")
    p.add_argument("--time-limit", type=real, default=None, help="seconds per MILP solve (default: none)")
    p.add_argument("--mip-gap", type=real, default=None, help="relative MIP gap (default: HiGHS's 1e-4)")
    p.add_argument("--threads", type=integer, default=None,
                   help="HiGHS threads (default: HiGHS's choice); its parallel tree search also needs "
                   "--highs-option parallel=on")
    p.add_argument("--race", type=integer, default=1,
                   help="concurrent HiGHS runs per MILP with different random seeds; the first to finish wins "
                   "(2 uses both cores of a 2-core machine)")
    p.add_argument("--clock", choices=CLOCKS, default="seconds",
                   help="when the box search and the cutoff restarts start: after 1 s (or three times the search's "
                   "estimated time, if longer) and 2 s of HiGHS time, or after 2,000 (or 7.5 per expected box "
                   "evaluation) and 4,000 branch-and-bound nodes (the same solution on any machine and under any "
                   "load, without --time-limit and --race)")
    p.add_argument("--highs-option", type=_highs_option, action="append", default=[], metavar="NAME=VALUE",
                   help="HiGHS option for every MILP solve, over the package's defaults (bilevel.HIGHS_OPTIONS: "
                   "HiGHS's defaults except the RENS heuristic off, cuts separated at the root only and "
                   "mip_pscost_minreliable=4); repeatable, "
                   "e.g. --highs-option mip_heuristic_run_rens=true; options known to give wrong answers on these "
                   f"MILPs (bilevel.solve.UNSAFE_OPTIONS: {', '.join(UNSAFE_OPTIONS)}) are refused")
    p.add_argument("--solver", choices=SOLVERS, default="highs",
                   help="MILP solver: HiGHS (default), or Gurobi or CPLEX through Pyomo's direct interfaces (needs "
                   "gurobipy or cplex and a license; the pip packages' licenses are size-limited; the box search "
                   "then runs before the solve; --race, --highs-option and --clock nodes are HiGHS only)")
    p.add_argument("--json", default=None, type=path_text,
                   help="JSON result file (default: EXPORT/result.json with --export, "
                   "else bilevel_result.json)")
    p.add_argument("--export", default=None, type=path_text, metavar="DIR",
                   help="write the MILPs as .lp and .mps into DIR: "
                   "optimistic.lp/.mps, and pessimistic.lp/.mps unless --mode optimistic")
    p.set_defaults(func=run)


PESSIMISTIC_DEFAULTS = {"epsilon": 0.0, "flip": "margin", "replica": "optimal"}

#: The checks of the numeric options (:mod:`bilevel.option_checks`), made before the data set is loaded: the
#: library's named its arguments ("need n_train >= 2", "time_limit (seconds) must be ..."), and --time-limit 0
#: was refused only after the data set was loaded and its line printed.
OPTION_CHECKS = {"data": nonempty_path(f"a built-in data set name ({', '.join(BUILTIN)}) or a CSV file"),
                 "n_train": count(2), "n_val": count(1), "test_fraction": fraction, "seed": check_seed,
                 "w_bar_lb": number(allow_zero=True), "w_bar_ub": number(allow_zero=True, maximum=MAX_W_BAR_UB),
                 "time_limit": number(allow_inf=True), "mip_gap": check_mip_gap,
                 "threads": count(0, MAX_CONCURRENCY), "race": count(1, MAX_CONCURRENCY)}


def _check_mode_options(args) -> None:
    """Refuse (InputError) ``--epsilon``, ``--flip`` or ``--replica`` with ``--mode optimistic``, which solves
    no pessimistic MILP and would otherwise ignore them silently; else fill in the defaults of those not given
    (:data:`PESSIMISTIC_DEFAULTS`) and check epsilon (>= 0, finite)."""
    given = [f"--{name}" for name in PESSIMISTIC_DEFAULTS if getattr(args, name) is not None]
    if args.mode == "optimistic" and given:
        verb = "applies" if len(given) == 1 else "apply"
        raise InputError(f"{' and '.join(given)} {verb} only to the pessimistic MILP, and --mode optimistic solves "
                         "the optimistic one alone; drop it or use --mode pessimistic or both")
    for name, default in PESSIMISTIC_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.mode != "optimistic":
        args.epsilon = check_epsilon(args.epsilon, "--epsilon")  # -0.0 as 0.0 in the JSON


def _check_highs_options(args) -> None:
    """Refuse (InputError) ``--highs-option`` naming an option that ``--time-limit``, ``--mip-gap`` or
    ``--threads`` also sets: the flag won, and the JSON recorded both values without saying which applied; and
    ``--highs-option`` giving one option two different values: the last won, the first dropped without a word."""
    given = {}
    for key, value in args.highs_option:
        if key in given and (given[key] != value or type(given[key]) is not type(value)):
            raise InputError(f"--highs-option {key}={given[key]} and --highs-option {key}={value} set the same "
                             "HiGHS option; give it once")
        given[key] = value
    if given:  # (bilevel.solve loads Pyomo and HiGHS)
        from .solve import check_highs_option
    for key, value in given.items():  # solve_model's checks, before the data set is loaded, naming the option
        check_highs_option(key, value, "--highs-option")
    for arg, key in ARGUMENT_OPTIONS.items():  # the flags are the arguments' names: --time-limit, --mip-gap, --threads
        value = getattr(args, arg)
        if value is not None and key in given:
            raise InputError(f"--{arg.replace('_', '-')} {value} and --highs-option {key}={given[key]} set the same "
                             "HiGHS option; give it once")


def _highs_option(text: str) -> tuple[str, object]:
    """``NAME=VALUE`` -> ``(NAME, value)`` with ``true``/``false`` as booleans and numbers as int or float.
    A value with ``_`` or non-ASCII characters stays a string (HiGHS then refuses it for a numeric option):
    Python's int/float read ``1_0`` as 10 and ``١٠`` (Arabic-Indic digits) as 10, where HiGHS's own options
    reader refuses ``random_seed = 1_0``."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip() or not raw.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, e.g. mip_heuristic_run_rens=true; got {shown(text)}")
    raw = raw.strip()
    if raw.lower() in ("true", "false"):
        return name.strip(), raw.lower() == "true"
    for cast in (int, float):
        try:  # plain_number: a typo such as 1_0 was passed to HiGHS as 10
            return name.strip(), plain_number(raw, cast)
        except ValueError:
            pass
    return name.strip(), raw


def _fmt(v) -> str:
    return "[" + ", ".join(f"{x if abs(x) >= 5e-4 else 0.0:.3f}" for x in v) + "]"  # no "-0.000" from round-off


def _test_accuracy(r: TuneResult, split) -> float | None:
    """Test accuracy, or None when ``--test-fraction 0`` left no test rows."""
    return r.accuracy(split.X_test, split.y_test) if len(split.y_test) else None


def _export_paths(args) -> list[Path]:
    """The model files ``--export`` writes: optimistic.lp/.mps, and pessimistic.lp/.mps unless
    ``--mode optimistic``; none without ``--export``."""
    if not args.export:
        return []
    names = ["optimistic"] + ([] if args.mode == "optimistic" else ["pessimistic"])
    return [Path(args.export) / f"{name}{suffix}" for name in names for suffix in (".lp", ".mps")]


def _stale_exports(args) -> list[Path]:
    """The model files of ``--export`` that this run does not write (pessimistic.lp/.mps with ``--mode
    optimistic``): any such file in the folder is an earlier run's."""
    if not args.export or args.mode != "optimistic":
        return []
    return [Path(args.export) / f"pessimistic{suffix}" for suffix in (".lp", ".mps")]


def _check_outputs(args) -> Path:
    """Check the output paths before any solve (creating their folders); return the JSON path. Raises
    InputError for a JSON path that is a folder or a read-only file, or an export or JSON folder that is a file
    or cannot be written to, an export file that is a folder or read-only, and a JSON path that is one of the
    export files or lies inside one (it would overwrite the model, or make it a folder)."""
    for flag, value in (("--json", args.json), ("--export", args.export)):
        if value is not None:
            nonempty_path(f"a file or folder name, or leave {flag} out")(value, flag)
    json_path = (Path(args.json) if args.json
                 else (Path(args.export) / "result.json" if args.export else Path("bilevel_result.json")))
    json_what = "--json" if args.json else "the JSON result file"  # a message names the option the user gave
    if args.export:
        check_writable_folder(args.export, "--export")
    exports = _export_paths(args)
    for path in exports:
        check_writable_file(path, "--export")
    target = json_path.resolve()
    for path in exports:
        if target == path.resolve() or path.resolve() in target.parents:
            raise InputError(f"the JSON result file {str(json_path)!r} is, or lies inside, the exported model "
                             f"{str(path)!r}; choose another --json path")
    if args.data not in BUILTIN and Path(args.data).is_file():  # the outputs would overwrite the data read
        data = Path(args.data).resolve()
        for what, path in [(json_what, json_path)] + [("--export", p) for p in exports]:
            if path.resolve() == data:
                raise InputError(f"{what} {str(path)!r} is the data file --data {args.data!r}; writing it would "
                                 "overwrite the data")
    return check_writable_file(json_path, json_what)


def _report(name: str, r: TuneResult, split) -> list[str]:
    v = r.verification
    test = _test_accuracy(r, split)
    lines = [
        f"== {name} MILP ({'Eq. 21' if r.mode == 'optimistic' else 'Eq. 25'})",
        f"  size        : {r.n_variables} variables, {r.n_binaries} binaries, {r.n_constraints} constraints"
        + (" (the last model solved: built around an objective cutoff, decided binaries fixed)"
           if r.model.bilevel_info.get("objective_cutoff") is not None else ""),
        f"  status      : {r.status}   objective (mean val. hinge) {r.objective:.6f}   best bound {r.best_bound:.6f}"
        f"   gap {r.gap:.2e}",
        f"  time        : solve {r.total_seconds:.2f} s, MIP start {r.start_seconds:.2f} s, "
        f"build {r.build_seconds:.2f} s (its LPs {r.build_lp_seconds:.2f} s), {r.nodes} nodes in the final solve",
        f"  w_bar       : {_fmt(r.w_bar)}",
        f"  accuracy    : validation {r.accuracy(split.X_val, split.y_val):.3f}   test "
        + ("- (no test rows)" if test is None else f"{test:.3f}"),
    ]
    if r.restarts:
        lines.insert(4, f"  restarts    : {len(r.restarts)} around better incumbents (objective cutoffs "
                        + ", ".join(f"{x['cutoff']:.4f} at {x['seconds']:.1f} s" for x in r.restarts) + ")")
    if r.mode == "pessimistic":
        lines.insert(1, f"  epsilon     : {r.epsilon}   replica {r.replica}   flipped {len(r.flipped)} of "
                        f"{len(split.y_val)} validation points ({r.flip_rule})   lambda bounds tried {r.lambda_history}"
                        + (f" (every follower optimum has lambda <= {r.lambda_max:.4g})"
                           if np.isfinite(r.lambda_max) else ""))
        lines.append(f"  replica gap : {v.replica_gap:.3g} (replica training loss {v.replica_loss:.6f} vs minimum "
                     f"{v.train_loss_min:.6f} at w_bar)")
    lines.append(
        f"  verified    : {'yes' if v.verified else 'NO'}   (inner LP gap {v.inner_gap:.1e}, complementarity "
        f"{v.max_complementarity_violation:.1e}, stationarity {v.stationarity_residual:.1e})"
    )
    lines += [f"  note        : {m}" for m in v.messages]
    return lines


def _check_solver(args) -> None:
    """Refuse (InputError) the HiGHS-only flags with ``--solver gurobi|cplex``, naming them: tune refused them
    only after the data set was loaded, by their argument names."""
    if args.solver == "highs":
        return
    given = [flag for flag, is_set in (("--race", args.race != 1), ("--highs-option", bool(args.highs_option)),
                                       ("--clock nodes", args.clock != "seconds")) if is_set]
    if given:
        raise InputError(f"{', '.join(given)}: HiGHS only; --solver {args.solver} runs without "
                         f"{'it' if len(given) == 1 else 'them'}")


def run(args) -> int:
    """Split the data set, solve the optimistic MILP (Eq. (21) of the pessimistic bilevel tuning paper) and,
    with ``--mode pessimistic|both``, the pessimistic one (Eq. (25)), print and write the verified results
    (JSON; ``--export``: the plain models as .lp and .mps); returns 0, or 1 when a solution fails
    verification. Raises InputError for bad options or data (also ``--highs-option`` setting what ``--time-limit``,
    ``--mip-gap`` or ``--threads`` sets), SolverError when HiGHS fails."""
    check_options(args, OPTION_CHECKS)
    if args.w_bar_lb > args.w_bar_ub:
        raise InputError(f"infeasible bounds: --w-bar-lb {args.w_bar_lb:g} > --w-bar-ub {args.w_bar_ub:g}")
    _check_mode_options(args)
    _check_highs_options(args)
    _check_solver(args)
    json_path = _check_outputs(args)
    from .export import replace_atomically, write_model  # (after the checks: a refused option needs neither)
    from .tune import VERIFICATION_WARNING, finite_or_none, tune, tuning_options

    try:
        data = load_dataset(args.data, label=args.label)
    except LabelColumnError as exc:  # named the label argument, not the option
        raise InputError(exc.for_option("--label")) from None
    # (split_dataset's message named its arguments, "n_train + n_val = 800 exceeds ...")
    check_split_sizes(len(data.y), {"--n-train": args.n_train, "--n-val": args.n_val}, args.test_fraction,
                      "--test-fraction")
    split = split_dataset(data.X, data.y, args.n_train, args.n_val, test_fraction=args.test_fraction, seed=args.seed)
    # the big-M limit of the standardised features (tune's message named w_bar_ub, after the data line was printed)
    check_scale([split.X_train, split.X_val], args.w_bar_ub, "--w-bar-ub", rescale=False)
    kw = dict(w_bar_bounds=(args.w_bar_lb, args.w_bar_ub), time_limit=args.time_limit, mip_gap=args.mip_gap,
              threads=args.threads, race=args.race, highs_options=dict(args.highs_option) or None, clock=args.clock,
              solver=args.solver)
    print(f"data        : {args.data}: {len(data.y)} rows, {data.X.shape[1]} features; split seed {args.seed}: "
          f"|T| = {len(split.y_train)}, |V| = {len(split.y_val)}, test = {len(split.y_test)}; "
          f"labels {data.classes[0]!r} -> -1, {data.classes[1]!r} -> +1")
    with warnings.catch_warnings():
        # failures are printed as "verified: NO"; other RuntimeWarnings (numpy's, HiGHS's) still reach the user
        warnings.filterwarnings("ignore", VERIFICATION_WARNING, RuntimeWarning)
        opt = tune(split.X_train, split.y_train, split.X_val, split.y_val, "optimistic", **kw)
        results = {"optimistic": opt}
        if args.mode in ("pessimistic", "both"):
            results["pessimistic"] = tune(split.X_train, split.y_train, split.X_val, split.y_val, "pessimistic",
                                          epsilon=args.epsilon, flip=args.flip, optimistic=opt, replica=args.replica,
                                          **kw)
    if args.mode == "pessimistic":
        results.pop("optimistic")
    for name, r in results.items():
        print("\n".join(_report(name, r, split)))
    out = {
        "data": args.data, "label": args.label, "seed": args.seed, "n_train": args.n_train, "n_val": args.n_val,
        "test_fraction": args.test_fraction, "feature_names": data.feature_names,
        # which label is +1: the signs of w cannot be read without it (a CSV's 1/2 labels: 2, the larger)
        "classes": {"-1": data.classes[0], "+1": data.classes[1]},
        "w_bar_bounds": [args.w_bar_lb, args.w_bar_ub], "clock": args.clock, "mode": args.mode,
        **({} if args.mode == "optimistic" else {name: getattr(args, name) for name in PESSIMISTIC_DEFAULTS}),
        "time_limit": args.time_limit, "mip_gap": args.mip_gap, "threads": args.threads, "race": args.race,
        # the package defaults with --highs-option on top (and presolve off for tiny features, as tune sets it)
        "solver": args.solver,
        "highs_options": tuning_options(dict(args.highs_option), [split.X_train, split.X_val])
        if args.solver == "highs" else None,
        "results": {
            name: {**r.to_dict(), "accuracy": {
                "train": r.accuracy(split.X_train, split.y_train), "val": r.accuracy(split.X_val, split.y_val),
                "test": _test_accuracy(r, split)}}
            for name, r in results.items()
        },
    }
    if args.export:
        models = {name: r.plain_model() for name, r in results.items()}
        if "pessimistic" in results and "optimistic" not in results:
            models["optimistic"] = opt.plain_model()
        try:
            written = [write_model(models[path.stem], path) for path in _export_paths(args)]
        except InputError as exc:  # the paths were checked before the solves: what is left is the system's (a
            raise OSError(str(exc)) from None  # full disk), exit code 1 like the JSON file's, not bad input
    # an infinite --time-limit or --highs-option value (time_limit=inf, HiGHS's default) as null, like the
    # results' infinite numbers: json refused it after every solve had run, and no result was written
    text = json.dumps(finite_or_none(out), indent=2, default=_json_default, allow_nan=False)
    try:
        # through a temporary file renamed into place: an interrupted or failed write left a result.json cut short
        # (or the old run's) beside this run's exported models
        replace_atomically(json_path, lambda temp: temp.write_text(text))
    except InputError as exc:  # e.g. a full disk, named with the file: exit code 1 (bilevel.cli), not bad input
        raise OSError(str(exc)) from None
    # printed once every file is written: a standard output closed by its reader (| head -3) stops the command at
    # its next print, which left this run's exported models beside the earlier run's result.json
    if args.export:
        print(f"exported    : {', '.join(sorted(str(p) for p in written))}")
        stale = [path for path in _stale_exports(args) if path.exists()]
        if stale:  # left by an earlier run: they are not this run's models, whatever the folder's result.json says
            print(f"note        : {', '.join(str(p) for p in stale)} in the --export folder are from an earlier run, "
                  "not from this one (--mode optimistic writes no pessimistic model)")
    print(f"result      : {json_path}")
    failed = [name for name, r in results.items() if not r.verified]
    if failed:  # exit code 1 with its one line on stderr, like a solver or operating-system error
        first = results[failed[0]].verification.messages
        print(f"bilevel tune: error: the {' and the '.join(failed)} solution failed verification"
              + (f": {first[0]}" if first else "") + " (see 'verified' above)", file=sys.stderr)
        return 1
    return 0


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.bool_):
        return bool(o)
    raise TypeError(f"not JSON serialisable: {type(o)}")
