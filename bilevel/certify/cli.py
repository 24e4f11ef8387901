"""The ``certify`` sub-command: certify candidates from a loss CSV or from the tuning MILPs.

``add_parser(subparsers)`` registers the sub-command on an ``argparse`` sub-parsers object and
``run(args)`` executes it, returning the exit code (0 = success, 2 = bad input, 1 = solver failure; the
message is one line on stderr). ``python -m bilevel.certify.cli ...`` runs it stand-alone.

Two routes for the candidates:

* ``--losses PATH.csv`` -- a CSV of per-example losses, header = candidate names (see
  :mod:`bilevel.certify.losses`), optional ``--aux PATH.csv``.
* ``--data NAME`` -- the MILP route: ``run`` imports ``certify_from_data`` from :mod:`bilevel.certify.milp`
  only then (it needs Pyomo and HiGHS); it receives the parsed ``args`` (``--data``, ``--label``,
  ``--n-train``, ``--n-val``, ``--n-cal``, ``--epsilons``, ``--w-bar-ubs``, ``--time-limit``, ``--seed``),
  solves the optimistic and pessimistic MILPs of the grid, prints one line per candidate (MILP status,
  verified or not, ``||w_bar||_1``, calibration and test error) and returns ``(losses, aux, names)``:
  0-1 losses of shape (n_cal, m) on the calibration rows, aux ``||w_bar||_1`` of shape (m,), and m
  candidate names. Every option that needs no data is checked before the MILPs run.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

import numpy as np

from ..cli import SUBCOMMANDS
from ..datasets import BUILTIN
from ..errors import InputError
from ..help_format import has_empty_item, integer, path_text, plain_number, real, shown
from ..option_checks import check_options, count, each, fraction, nonempty_path, number
from ..validation import (CLOCKS, MAX_W_BAR_UB, SOLVERS, check_count, check_epsilon, check_open_unit, check_positive,
                          check_seed)
from .losses import load_aux_csv, load_losses_csv, validate_aux, validate_losses

__all__ = ["add_parser", "build_parser", "run", "main", "candidates_from_data"]

_DEFAULT_CONTROL = {"ltt": "fdr", "pt": "fwer", "rgpt": "fdr"}
#: The --procedure choices that control each error rate (bilevel.certify.pipelines.procedure_name's).
_PROCEDURES = {"fdr": ("bh", "by"), "fwer": ("holm", "bonferroni")}
_P_VALUES = {"hoeffding": "hoeffding", "bentkus": "bentkus", "hb": "hb", "binomial": "binomial"}


def _float_list(text: str) -> list[float]:
    """The numbers of one ``--epsilons`` / ``--w-bar-ubs`` argument, separated by commas or spaces; a blank
    argument is no number (the empty grid, which run refuses naming the option). Raises
    argparse.ArgumentTypeError for a non-number or an empty comma item (``"0.1,,0.2"``, ``"0.5,"``: a typo, read
    as ``"0.1,0.2"`` and ``"0.5"`` without a word, as the other command-line tools no longer do)."""
    if text.strip() and has_empty_item(text):
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas or spaces without empty items, "
                                         f"got {shown(text)}")
    try:
        return [plain_number(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas or spaces, got {shown(text)}") from None


def _configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    src = parser.add_argument_group("candidates (give exactly one of --losses / --data)")
    src.add_argument(
        "--losses",
        type=path_text,
        metavar="PATH.csv",
        help="CSV of per-example losses in [0, 1]: header row = one name per candidate, then one row per "
        "calibration example (e.g. 0/1 errors)",
    )
    src.add_argument(
        "--aux",
        type=path_text,
        metavar="PATH.csv",
        help="auxiliary objective (smaller is better) with the same column names as --losses: either ONE "
        "row (a constant cost per candidate, e.g. ||w_bar||_1) or as many rows as --losses (a per-example "
        "auxiliary loss, averaged on the optimisation split). Shapes the Pareto front and picks the chosen "
        "candidate; without it the chosen one is the certified candidate with the smallest estimated risk",
    )
    src.add_argument("--data", type=path_text, metavar="NAME",
                     help="data set to tune on with the bilevel MILPs (a built-in name: cancer or diabetes, or a CSV "
                     "path); the candidates' 0-1 errors on the calibration rows are the losses and ||w_bar||_1 the "
                     "auxiliary cost")
    milp = parser.add_argument_group("MILP route (--data)")
    milp.add_argument("--label", help="label column of a CSV data set (default: its last column; the built-in "
                      "data sets have their own)")
    milp.add_argument("--n-train", type=integer, help="training rows (default: 10)")
    milp.add_argument("--n-val", type=integer, help="validation rows, seen by the tuner (default: 10)")
    milp.add_argument("--n-cal", type=integer, help="calibration rows, never seen by the tuner; at least 10 (default: "
                      "all rows that are not test, training or validation rows)")
    milp.add_argument("--test-fraction", type=real, help="fraction of the rows held out as the test set, in [0, 1); "
                      "only the reported test errors use it (each candidate's in the table, the chosen one's below "
                      "it), never the certificate (default: 0.5)")
    # action="extend": "--epsilons 0 --epsilons 0.2" is the grid 0, 0.2 (argparse's "store" kept the last one)
    milp.add_argument("--epsilons", type=_float_list, nargs="+", action="extend", metavar="EPS",
                      help="grid of epsilon values of the pessimistic MILP; given twice, the grids are joined "
                      "(default: 0 0.1 0.2 0.4)")
    milp.add_argument("--w-bar-ubs", type=_float_list, nargs="+", action="extend", metavar="UB",
                      help="grid of upper bounds on w_bar: one optimistic MILP and one pessimistic MILP per EPS "
                      "for each (default: 0.25 0.5 1)")
    milp.add_argument("--time-limit", type=real, help="time limit per MILP, seconds; a candidate stopped by it "
                      "is still tested, its status shown (default: none)")
    milp.add_argument("--clock", choices=CLOCKS, default=None,
                      help="when each MILP's box search and cutoff restarts start (bilevel.tune's clock): after HiGHS "
                      "time ('seconds', the default) or after branch-and-bound nodes ('nodes': the same candidates on "
                      "any machine and under any load, without --time-limit)")
    milp.add_argument("--solver", choices=SOLVERS, default=None,
                      help="MILP solver: HiGHS (the default), or Gurobi or CPLEX through Pyomo's direct interfaces "
                      "(needs gurobipy or cplex and a license; --clock nodes is HiGHS only)")

    test = parser.add_argument_group("testing")
    test.add_argument("--method", choices=["ltt", "pt", "rgpt"], default="ltt",
                      help="ltt = Learn-then-Test on all data; pt = Pareto Testing; rgpt = reliability-graph "
                      "Pareto testing (default: %(default)s)")
    test.add_argument("--alpha", type=real, default=0.1,
                      help="risk limit: certify candidates with risk <= alpha (default: %(default)s)")
    test.add_argument("--delta", type=real, default=0.1, help="FWER/FDR level (default: %(default)s)")
    test.add_argument("--control", choices=["fdr", "fwer"], default=None,
                      help="error rate to control (default: fdr for ltt and rgpt, fwer for pt; rgpt supports fdr only)")
    test.add_argument("--procedure", choices=["bh", "by", "holm", "bonferroni"], default=None,
                      help="LTT procedure (default: bh for fdr, holm for fwer)")
    test.add_argument("--p-value", choices=sorted(_P_VALUES), default="hb",
                      help="hoeffding = Eq. (6); bentkus; hb = Hoeffding-Bentkus; binomial = exact, 0/1 losses only "
                      "(default: %(default)s)")
    test.add_argument("--seed", type=integer, default=None,
                      help="seed of the optimisation/testing split of pt and rgpt and, with --data, of the "
                      "train/validation/calibration/test split (default: 0)")
    test.add_argument("--opt-fraction", type=real, default=None,
                      help="share of calibration rows used to build the front/order/graph for pt and rgpt "
                      "(default: 0.5)")
    test.add_argument("--max-failures", type=integer, default=None,
                      help="pt: failures tolerated before fixed-sequence testing stops (default: 1)")
    test.add_argument("--levels", type=integer, default=None,
                      help="rgpt: number of depth levels D (default: ceil(sqrt(front size))); at most one level per "
                      "candidate of the front: a D above the front size gives one candidate per level, a chain")
    test.add_argument("--tau", type=real, default=None,
                      help="rgpt: non-negative Lasso penalty, Eq. (13) (default: 0.1)")
    test.add_argument("--reshaping", choices=["identity", "by"], default=None,
                      help="rgpt: DAGGER reshaping; by = valid under arbitrary dependence (default: identity)")
    parser.set_defaults(func=run)
    return parser


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register the ``certify`` sub-command on ``subparsers`` (from ``ArgumentParser.add_subparsers``).

    Sets ``func=run`` as the default so that a top-level CLI can dispatch with ``args.func(args)``.
    Returns the new sub-parser.
    """
    parser = subparsers.add_parser(
        "certify",
        help=SUBCOMMANDS["certify"][1],
        description="Certify candidate hyperparameters on calibration data: LTT, Pareto Testing or RG-PT.",
    )
    return _configure(parser)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser for ``python -m bilevel.certify.cli``."""
    return _configure(argparse.ArgumentParser(prog="bilevel certify", description="Certify candidate hyperparameters."))


def candidates_from_data(args: argparse.Namespace):
    """The ``--data`` route: ``(losses, aux, names)`` from :func:`bilevel.certify.milp.certify_from_data`, after
    flattening ``--epsilons``/``--w-bar-ubs`` (shapes in the module docstring).

    Raises ``InputError`` for bad data or grid options (and when the module or the function cannot be
    imported), ``SolverError`` when a MILP fails.
    """
    try:
        from .milp import certify_from_data
    except ModuleNotFoundError as exc:
        if exc.name in (__package__ + ".milp", "bilevel.certify.milp"):
            raise InputError(
                "--data needs the MILP candidate generator (bilevel/certify/milp.py), which is not available yet; "
                "use --losses PATH.csv"
            ) from None
        raise
    except ImportError:
        raise InputError("bilevel.certify.milp has no certify_from_data(args); use --losses PATH.csv") from None
    _flatten_grids(args)
    losses, aux, names = certify_from_data(args)
    return losses, aux, list(names)


def _flatten_grids(args: argparse.Namespace) -> None:
    """``--epsilons 0.1,0.2 0.3`` (a list per argument) -> ``[0.1, 0.2, 0.3]``, on ``args``; a flat list stays."""
    for attr in ("epsilons", "w_bar_ubs"):
        value = getattr(args, attr, None)
        if value is not None:
            setattr(args, attr, [x for chunk in value for x in (chunk if isinstance(chunk, list) else [chunk])])


#: The checks of the --data route's options (:mod:`bilevel.option_checks`), made before the data set is loaded:
#: the library's named its arguments ("need n_train >= 2", "an epsilon is given twice", "the candidate grid is empty:
#: give at least one epsilon and one w_bar_ub" for a blank --epsilons).
_DATA_CHECKS = {"n_train": count(2), "n_val": count(1), "n_cal": count(10), "test_fraction": fraction,
                "epsilons": each(check_epsilon, empty=False),
                "w_bar_ubs": each(number(maximum=MAX_W_BAR_UB), empty=False),
                "time_limit": number(allow_inf=True)}


#: Options of one method (or one route), with the methods they apply to: given with another, they are refused
#: rather than silently ignored. Their defaults are None so that "not given" can be told apart.
_METHOD_OPTIONS = {"opt_fraction": ("--opt-fraction", ("pt", "rgpt")), "max_failures": ("--max-failures", ("pt",)),
                   "levels": ("--levels", ("rgpt",)),
                   "tau": ("--tau", ("rgpt",)), "reshaping": ("--reshaping", ("rgpt",))}
_DATA_OPTIONS = {"label": "--label", "n_train": "--n-train", "n_val": "--n-val", "n_cal": "--n-cal",
                 "test_fraction": "--test-fraction", "epsilons": "--epsilons", "w_bar_ubs": "--w-bar-ubs",
                 "time_limit": "--time-limit", "clock": "--clock",
                 "solver": "--solver"}


def _refuse_unused_options(args: argparse.Namespace) -> None:
    for dest, (option, methods) in _METHOD_OPTIONS.items():
        if getattr(args, dest, None) is not None and args.method not in methods:
            raise InputError(f"{option} applies to --method {' or '.join(methods)} only, not {args.method}")
    if args.losses is not None and args.method == "ltt" and args.seed is not None:
        # LTT tests every candidate on all calibration rows: no split to seed (--seed 5 was accepted and ignored)
        check_seed(args.seed, "--seed")  # (-3 is no seed at all: said first)
        raise InputError("--seed seeds the optimisation/testing split of --method pt or rgpt and the split of "
                         "--data; --method ltt with --losses has nothing to seed: drop it")
    if args.losses is not None:
        given = [option for dest, option in _DATA_OPTIONS.items() if getattr(args, dest, None) is not None]
        if given:
            raise InputError(f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to the --data route (the "
                             "MILP candidates) only, not to --losses")


def _check_testing_options(args: argparse.Namespace) -> None:
    """The checks of the testing options that need no losses, so that a bad one fails before the MILPs of
    ``--data`` run (they were made by the pipelines, after every MILP of the grid was solved). Raises
    InputError naming the option."""
    check_seed(args.seed, "--seed")
    if args.opt_fraction is not None:
        check_open_unit(args.opt_fraction, "--opt-fraction (share of the optimisation split)")
    for value, option in ((args.max_failures, "--max-failures"), (args.levels, "--levels")):
        if value is not None:
            check_count(value, option, 1)
    if args.tau is not None:
        check_positive(args.tau, "--tau", allow_zero=True)


def _method_kwargs(args: argparse.Namespace, control: str) -> dict:
    kwargs: dict = {"control": control, "p_value": _P_VALUES[args.p_value]}
    if args.method == "ltt":
        if args.procedure is not None:
            fits = _PROCEDURES[control]
            if args.procedure not in fits:  # (procedure_name's message named its arguments, "procedure 'holm'")
                other = "fwer" if control == "fdr" else "fdr"
                raise InputError(f"--procedure {args.procedure} does not control the {control.upper()} (--control "
                                 f"{control}{'' if args.control else ', the default of --method ltt'}); "
                                 f"use --procedure {' or '.join(fits)}, or --control {other}")
            from .pipelines import procedure_name

            kwargs["procedure"] = procedure_name(control, args.procedure)  # refused before any MILP of --data
        return kwargs
    if args.procedure is not None:
        raise InputError("--procedure applies to --method ltt only (pt uses fixed-sequence testing, rgpt DAGGER)")
    kwargs.update(opt_fraction=0.5 if args.opt_fraction is None else args.opt_fraction,
                  seed=0 if args.seed is None else args.seed)
    if args.method == "pt":
        kwargs["max_failures"] = 1 if args.max_failures is None else args.max_failures
    else:
        kwargs.update(n_levels=args.levels, tau=0.1 if args.tau is None else args.tau,
                      reshaping=args.reshaping or "identity")
    return kwargs


def certify(*args, **kwargs):
    """:func:`bilevel.certify.pipelines.certify` (same arguments, result and errors), imported at the first call:
    the pipelines load SciPy, about half a second, which ``bilevel certify --help`` and a refused option need not
    wait for."""
    from .pipelines import certify as certify_candidates

    return certify_candidates(*args, **kwargs)


def run(args: argparse.Namespace) -> int:
    """Execute ``certify`` and print the result; returns 0. Bad input raises InputError and a solver failure
    SolverError, which :func:`bilevel.cli.main` turns into one line on stderr and exit code 2 or 1."""
    # before anything else: Path("") is the working directory ("cannot read .: [Errno 21] Is a directory")
    check_options(args, {"losses": nonempty_path("a CSV file of losses"),
                         "aux": nonempty_path("a CSV file of auxiliary costs"),
                         "data": nonempty_path(f"a built-in data set name ({', '.join(BUILTIN)}) or a CSV file")})
    if (args.losses is None) == (args.data is None):
        raise InputError("give exactly one of --losses PATH.csv or --data NAME")
    _refuse_unused_options(args)
    check_open_unit(args.alpha, "--alpha (risk limit)")  # before the MILPs of --data run
    check_open_unit(args.delta, "--delta (FWER/FDR level)")
    _check_testing_options(args)
    _flatten_grids(args)
    check_options(args, _DATA_CHECKS)
    control = args.control or _DEFAULT_CONTROL[args.method]
    if args.method == "rgpt" and control == "fwer":
        raise InputError("--method rgpt controls the FDR only (DAGGER); use --method pt or ltt with --control fwer")
    kwargs = _method_kwargs(args, control)
    if args.data is not None:
        if args.aux is not None:
            raise InputError("--aux goes with --losses; with --data the MILPs provide the auxiliary costs")
        losses, aux, names = candidates_from_data(args)
        losses = validate_losses(losses)
        if len(names) != losses.shape[1]:
            raise InputError(f"the MILP route returned {len(names)} names for {losses.shape[1]} candidates")
        aux = None if aux is None else validate_aux(aux, losses.shape[0], losses.shape[1])
    else:
        table = load_losses_csv(args.losses)
        losses, names = table.losses, table.names
        aux = None if args.aux is None else load_aux_csv(args.aux, names, losses.shape[0])
        if args.p_value == "binomial" and not np.isin(losses, (0.0, 1.0)).all():  # (named 'hb', not the option)
            other = losses[~np.isin(losses, (0.0, 1.0))].flat[0]
            raise InputError(f"--p-value binomial needs 0/1 losses, and --losses {args.losses!r} holds others (e.g. "
                             f"{other:g}); use --p-value hb (Hoeffding-Bentkus) for losses in [0, 1]")
        if args.method != "ltt":  # certify's split named opt_fraction (--data checks it before its MILPs)
            from .pipelines import split_calibration

            split_calibration(losses.shape[0], kwargs["opt_fraction"], name="--opt-fraction")
    result = certify(losses, args.alpha, args.delta, method=args.method, aux=aux, **kwargs)
    print(result.summary(names))
    if result.chosen is not None:
        j = result.chosen
        details = [f"estimated risk {np.max(result.risk_opt[j]):.4g}"]
        if result.aux_opt is not None:
            details.append(f"aux {result.aux_opt[j, 0]:.4g}")
        where = "all calibration rows" if result.method == "ltt" else "the optimisation split"
        print(f"chosen details: {', '.join(details)} (on {where})")
        test_errors = getattr(args, "_test_errors", None)
        if test_errors:  # None: the --losses route; empty: --test-fraction 0 left no test rows
            print(f"chosen {names[j]}: test error {test_errors[names[j]]:.4f} (held-out test rows, never used above)")
        status, verified = getattr(args, "_milp_status", {}).get(names[j], ("optimal", True))
        if status != "optimal" or not verified:  # certified all the same: its risk is tested, not its optimality
            print(f"note: the chosen candidate's MILP ended {status!r}"
                  f"{'' if verified else ' and its solution failed verification'}: it is certified as a classifier, "
                  "but it is not a proven optimum of its tuning problem")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m bilevel.certify.cli --losses L.csv ...`` (same as
    ``bilevel certify ...``, with the same one-line error handling)."""
    from ..cli import main as bilevel_main

    return bilevel_main(["certify", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
