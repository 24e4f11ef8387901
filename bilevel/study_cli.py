"""``bilevel study``: reproduce the small-data UCI studies of the pessimistic bilevel tuning paper
(Section 5.1, Appendices A-B): pessimistic vs optimistic over training / validation sizes and under
perturbed test data, with the optimistic tie spread and grid-search baselines, in parallel and resumable.

A thin layer over :mod:`experiments.uci_study`, which lives in the repository's ``experiments/`` folder
(not in the installed package): :func:`load_study_module` finds it next to the ``bilevel`` package
directory (a source checkout, ``pip install -e .``), or in the folder named by the environment variable
``BILEVEL_EXPERIMENTS_ROOT`` (the folder that *contains* ``experiments/``).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

from .cli import SUBCOMMANDS
from .datasets import LabelColumnError
from .errors import InputError
from .highs_options import MAX_CONCURRENCY
from .option_checks import check_options, count, each, nonempty_path, number
from .validation import CLOCKS, SOLVERS, check_epsilon, check_seed, check_writable_folder
from .help_format import (DefaultsHelpFormatter, comma_items, has_empty_item, integer, integer_list, path_text,
                          plain_number, real, shown)


def load_study_module():
    """Import and return :mod:`experiments.uci_study` from the repository that holds this package.

    Looks in ``$BILEVEL_EXPERIMENTS_ROOT`` (if set), then in the parent of the ``bilevel`` package
    directory; that folder is put first on ``sys.path``. Raises InputError when no ``experiments/uci_study.py``
    is found, or when another module named ``experiments`` is already imported from elsewhere."""
    candidates = []
    if os.environ.get("BILEVEL_EXPERIMENTS_ROOT"):
        candidates.append(Path(os.environ["BILEVEL_EXPERIMENTS_ROOT"]).expanduser().resolve())
    candidates.append(Path(__file__).resolve().parent.parent)
    root = next((c for c in candidates if (c / "experiments" / "uci_study.py").is_file()), None)
    if root is None:
        raise InputError(
            "bilevel study needs the experiments/ folder of the bilevel source repository (experiments/uci_study.py), "
            f"looked in: {', '.join(str(c) for c in candidates)}; install bilevel from a checkout with "
            "'pip install -e .' or set BILEVEL_EXPERIMENTS_ROOT to the folder that contains experiments/"
        )
    loaded = sys.modules.get("experiments")
    if loaded is not None:
        where = Path(getattr(loaded, "__file__", "") or "").resolve()
        if root not in where.parents:
            raise InputError(f"another module named 'experiments' is already imported ({where}); "
                             f"cannot load {root / 'experiments'}")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module("experiments.uci_study")


def _floats(text: str) -> tuple:
    try:
        return tuple(plain_number(x) for x in comma_items(text, "numbers"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {shown(text)}") from None


def _ints(text: str) -> tuple:
    return tuple(integer_list(text))


def add_parser(sub) -> None:
    """Register ``study`` on the ``bilevel`` subparsers ``sub``."""
    p = sub.add_parser(
        "study",
        help=SUBCOMMANDS["study"][1],
        description="Run the limited-data study (Section 5.1.1, Table A1: optimistic vs pessimistic, epsilon = 0, "
        "over |V|, |T|, with the spread over tied optimistic optima and LinearSVC / LP-SVM grid baselines) and/or "
        "the perturbed-data study (Section 5.1.2, Tables A2-A3: closed-form max-confidence attack on test and "
        "validation points, over rho and epsilon). Runs in parallel on the local cores (or a Dask cluster with "
        "--scheduler), writes every finished run at once under OUT/runs (an interrupted study resumes, a "
        "finished one is not recomputed), then writes CSVs, Markdown summaries and PNG plots into OUT.",
        formatter_class=DefaultsHelpFormatter,
    )
    p.add_argument("--data", action="append", default=None, type=path_text, metavar="NAME",
                   help="data set(s): built-in cancer, diabetes or a CSV path; repeat or comma-separate (the path of "
                   "an existing file is one data set, commas and all) (default: cancer and diabetes; cancer "
                   "with --quick)")
    p.add_argument("--study", choices=["limited", "perturbed", "both"], default="both", help="which study to run")
    p.add_argument("--out", default="out/study", type=path_text, help="output folder (resumes the study found there)")
    p.add_argument("--quick", action="store_true",
                   help="reduced grid (cancer; |V|, |T| in {5,10}; 2 runs; small perturbed grid at |T| = |V| = 6; "
                   "20 s per solve): under two minutes on 2 cores. Explicit options below override it")
    p.add_argument("--runs", type=integer, default=None,
                   help="random splits per limited-data cell (default 10; quick 2); a study has at most 1,000,000 "
                   "runs in all (runs x cells x data sets, both studies)")
    p.add_argument("--perturbed-runs", type=integer, default=None,
                   help="random splits per perturbed cell (default 5; quick 1); counts toward the "
                   "1,000,000 runs of a study")
    p.add_argument("--val-sizes", type=_ints, default=None, metavar="LIST", help="|V| grid (default 5,10,15,20)")
    p.add_argument("--train-sizes", type=_ints, default=None, metavar="LIST", help="|T| grid (default 5,10,15,20)")
    p.add_argument("--perturbed-size", type=_ints, default=None, metavar="T[,V]",
                   help="|T| and |V| of the perturbed study (default 10,10; quick 6,6)")
    p.add_argument("--epsilons", type=_floats, default=None, metavar="LIST",
                   help="epsilon grid of the perturbed study (default 0,0.2,0.4,0.6; quick 0,0.2)")
    p.add_argument("--rho-test", type=_floats, default=None, metavar="LIST",
                   help="l2 attack budgets on test points, in [0, 100] standardised feature units (default "
                   "0,0.1,...,0.6; quick 0,0.3,0.6)")
    p.add_argument("--rho-val", type=_floats, default=None, metavar="LIST",
                   help="l2 attack budgets on validation points, in [0, 100], one setting each (default 0,0.3; "
                   "quick the same)")
    p.add_argument("--flip", choices=["appendix", "margin", "all"], default="appendix",
                   help="flipped validation points of the pessimistic MILP: Appendix A's rule, margin, or all")
    p.add_argument("--tie-criteria", default=None, metavar="LIST",
                   help="secondary criteria for the optimistic tie spread of the limited study (comma list of "
                   "sum_w_bar, val_margin; default both)")
    p.add_argument("--label", default=None, metavar="TEXT",
                   help="free text naming this study run, stored in study.json and heading the summaries (it does "
                   "not change the settings checked on resume; unlike tune's --label, it is not a label column: "
                   "--label-column is)")
    p.add_argument("--label-column", default=None, metavar="COL",
                   help="label column of every CSV file in --data (default: each file's last column); refused when "
                   "--data names built-in data sets only (they have their own label columns) or a CSV lacks the "
                   "column. Part of the settings checked on resume: a study computed with another label column is "
                   "refused (a file's last column named is the default)")
    p.add_argument("--seed", type=integer, default=0,
                   help="seed of all random splits (the whole study is reproducible)")
    p.add_argument("--time-limit", type=real, default=None, help="seconds per MILP solve (default 60; quick 20)")
    p.add_argument("--threads", type=integer, default=1, help="solver threads per solve")
    p.add_argument("--solver", choices=SOLVERS, default="highs",
                   help="MILP solver of the optimistic and pessimistic solves and the tie re-solves: HiGHS, or Gurobi "
                   "or CPLEX through Pyomo's direct interfaces (needs gurobipy or cplex and a license; the box search "
                   "then runs before each solve; --clock nodes is HiGHS only; the Eq. (A1) LPs stay on HiGHS). Part "
                   "of the settings checked on resume")
    p.add_argument("--clock", choices=CLOCKS, default="seconds",
                   help="when each solve's box search and cutoff restarts start (bilevel.tune's clock): after "
                   "seconds, or after node counts (the same solutions on every machine, for the solves that end "
                   "before the time limit)")
    p.add_argument("--jobs", type=integer, default=-1, help="parallel local worker processes (-1: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address (e.g. tcp://host:8786): run on that cluster (needs dask[distributed]; "
                   "workers need bilevel and scikit-learn installed)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="a progress bar on stderr (default: only when stderr is a terminal; --progress draws it "
                   "into a pipe or file too, --no-progress never)")
    p.set_defaults(func=run)


#: The options of one study's grid (flag, argparse name): refused with ``--study`` naming the other study alone.
_STUDY_OPTIONS = {
    # (the tie spread is the limited study's: the perturbed study re-solves no tie, and its tie criteria were
    # accepted with --study perturbed and ignored without a word)
    "limited": (("--runs", "runs"), ("--val-sizes", "val_sizes"), ("--train-sizes", "train_sizes"),
                ("--tie-criteria", "tie_criteria")),
    "perturbed": (("--perturbed-runs", "perturbed_runs"), ("--perturbed-size", "perturbed_size"),
                  ("--epsilons", "epsilons"), ("--rho-test", "rho_test"), ("--rho-val", "rho_val")),
}


def _rho_budget(value, option) -> None:
    """A checker (:mod:`bilevel.option_checks`) of an l2 attack budget of ``--rho-test`` / ``--rho-val``: a finite
    number in [0, ``experiments.attack.MAX_RHO``] (100; standardised feature units, Section 5.1.2 of the paper).
    ``--rho-val 1e300`` was accepted: the units with an attacked validation point failed (bilevel.tune's feature
    scale limit) and the test attack's scores stop changing far below it. Raises InputError naming ``option``."""
    number(allow_zero=True)(value, option)
    limit = load_study_module().attack_mod.MAX_RHO  # (imported already: _config runs after load_study_module)
    if value > limit:
        raise InputError(f"{option} must be at most {limit:g} (an l2 budget in standardised feature units: a point "
                         f"moved further has left the data; the paper's budgets run to 0.6); got {value!r}")


def _one_line(value, option) -> None:
    """A checker of ``--label``: one line of printable text, not blank (it heads the Markdown summaries); StudyConfig's
    check said ``label must be one line of printable text``, naming its field. Raises InputError naming ``option``."""
    if not value.strip() or any(not c.isprintable() for c in value):
        raise InputError(f"{option} must be one line of printable text; got {value!r}")


#: The checks of the numeric options and of --label (:mod:`bilevel.option_checks`): StudyConfig's named its fields
#: ("runs must be >= 1", "rho_tests must be ...", "training sizes must be >= 2").
_OPTION_CHECKS = {"runs": count(1), "perturbed_runs": count(1), "val_sizes": each(count(1)),
                  "train_sizes": each(count(2)), "epsilons": each(check_epsilon), "rho_test": each(_rho_budget),
                  "rho_val": each(_rho_budget), "seed": check_seed,
                  "time_limit": number(allow_inf=True), "threads": count(1, MAX_CONCURRENCY),
                  "label": _one_line}


#: How check_data names the largest split of each study that the data cannot supply: by the options (it said "|T| =
#: 300, |V| = 10: n_train + n_val = 310 exceeds ...", split_dataset's argument names).
_SIZE_OPTIONS = {"limited": "--train-sizes (largest {T}) and --val-sizes (largest {V})",
                 "perturbed": "--perturbed-size {T},{V}"}


def _config(args, mod):
    datasets = None
    if args.data:
        # a CSV file whose path holds a comma ("runs, 2024.csv") is one data set, not two names that do not exist
        datasets = tuple(d.strip() for item in args.data
                         for d in ([item] if os.path.isfile(item) else item.split(",")) if d.strip())
        if not datasets:  # "--data ," ran the default data sets
            raise InputError(f"--data names no data set: {', '.join(map(repr, args.data))}")
        empty = [item for item in args.data if not os.path.isfile(item) and has_empty_item(item)]
        if empty:  # "cancer,,diabetes": a typo, read as "cancer,diabetes" without a word
            raise InputError(f"--data has an empty item: {', '.join(map(repr, empty))}")
        each()(datasets, "--data")
    over = {}
    if datasets:
        over["datasets"] = datasets
    over["studies"] = ("limited", "perturbed") if args.study == "both" else (args.study,)
    if args.study != "both":  # a grid option of the study not run was ignored without a word (like tune's --epsilon)
        other = "perturbed" if args.study == "limited" else "limited"
        given = [flag for flag, name in _STUDY_OPTIONS[other] if getattr(args, name) is not None]
        if given:
            verb = "applies" if len(given) == 1 else "apply"
            raise InputError(f"{' and '.join(given)} {verb} only to the {other} study, and --study {args.study} runs "
                             f"the {args.study} one alone; drop it or use --study {other} or both")
    check_options(args, _OPTION_CHECKS)
    for name, key in (("runs", "runs"), ("perturbed_runs", "perturbed_runs"), ("val_sizes", "val_sizes"),
                      ("train_sizes", "train_sizes"), ("epsilons", "epsilons"), ("rho_test", "rho_tests"),
                      ("rho_val", "rho_vals"), ("time_limit", "time_limit")):
        if getattr(args, name) is not None:
            over[key] = getattr(args, name)
    if args.perturbed_size is not None:
        size = args.perturbed_size
        if len(size) not in (1, 2):
            raise InputError(f"--perturbed-size takes T or T,V; got {size}")
        count(2)(size[0], "--perturbed-size (T)")
        count(1)(size[-1], "--perturbed-size (V)")
        over["perturbed_n_train"], over["perturbed_n_val"] = size[0], size[-1]
    if args.tie_criteria is not None:  # (default: StudyConfig's, sum_w_bar and val_margin)
        over["tie_criteria"] = tuple(c.strip() for c in args.tie_criteria.split(",") if c.strip())
        if not over["tie_criteria"]:  # "--tie-criteria ," ran without the tie spread, as if asked to
            raise InputError(f"--tie-criteria names no criterion: {args.tie_criteria!r}")
        if has_empty_item(args.tie_criteria):  # "sum_w_bar,,val_margin": a typo
            raise InputError(f"--tie-criteria has an empty item: {args.tie_criteria!r}")
        each()(over["tie_criteria"], "--tie-criteria")
        from .ties import CRITERIA

        unknown = [c for c in over["tie_criteria"] if c not in CRITERIA]
        if unknown:  # (StudyConfig's check names its field, tie_criteria)
            raise InputError(f"--tie-criteria names unknown criteria {unknown}; choose from {', '.join(CRITERIA)}")
    if args.label_column is not None:
        if not args.label_column:
            raise InputError("--label-column is empty; give the name of the CSV files' label column")
        names = datasets or (("cancer",) if args.quick else mod.StudyConfig().datasets)
        if all(mod.builtin_name(d) for d in names):  # it would be ignored without a word
            raise InputError(f"--label-column names the label column of CSV files in --data, and --data names built-in "
                             f"data sets only ({', '.join(names)}), which have their own label columns; "
                             "drop it or give a CSV file")
        over["label_column"] = args.label_column
    over.update(flip=args.flip, seed=args.seed, threads=args.threads, clock=args.clock, label=args.label,
                solver=args.solver)
    _check_unit_count(mod, over, args.quick)
    try:
        return mod.StudyConfig.quick(**over) if args.quick else mod.StudyConfig(**over)
    except TypeError as exc:
        raise InputError(str(exc)) from None


#: The options that multiply into the number of runs of a study (:func:`_check_unit_count`), by StudyConfig field.
_COUNT_OPTIONS = {"runs": "--runs", "perturbed_runs": "--perturbed-runs", "val_sizes": "--val-sizes",
                  "train_sizes": "--train-sizes", "rho_vals": "--rho-val", "epsilons": "--epsilons",
                  "datasets": "--data"}


def _check_unit_count(mod, over: dict, quick: bool) -> None:
    """Raise InputError naming ``--runs`` or ``--perturbed-runs`` (the one whose study has more runs) when the study
    of the options ``over`` (StudyConfig fields; the others from the defaults, of ``--quick`` when ``quick``) has
    more than ``experiments.uci_study.MAX_UNITS`` (10**6) runs, before any data set is loaded: ``--runs
    1000000000`` was accepted and then built a list of 3.2e10 tasks with no output (StudyConfig's own check
    names its fields, ``runs``)."""
    from types import SimpleNamespace

    base = (mod.StudyConfig.quick() if quick else mod.StudyConfig()).to_dict()
    cfg = SimpleNamespace(**{**base, **over})
    counts = mod.unit_counts(cfg)
    if sum(counts.values()) <= mod.MAX_UNITS:
        return
    field = max(counts, key=counts.get)  # "limited" or "perturbed"
    field = "runs" if field == "limited" else "perturbed_runs"
    option = _COUNT_OPTIONS[field]
    raise InputError(f"{option} {getattr(cfg, field)} gives the study {mod.units_text(cfg, counts, _COUNT_OPTIONS)}; "
                     f"a study has at most {mod.MAX_UNITS:,} runs (each solves MILPs, at least 0.25 s, and writes a "
                     f"file into OUT/runs); lower {option}")


def _check_scheduler(address: str, option: str = "--scheduler") -> None:
    """Raise InputError naming ``option`` unless dask.distributed is installed and ``address`` reads as a Dask
    scheduler address of a known scheme, with a port in 1-65535 for a tcp, tls or ws(s) one (``tcp://host:8786``,
    ``host:8786``; ``inproc://`` and ``ucx://`` addresses are left to Dask): ``--scheduler ''`` printed the
    study line, then a ValueError traceback (``missing port number in address ''``, exit 1), after the data sets were
    loaded; ``--scheduler tcp://host:99999`` waited 30 s for a connection that cannot be made. Whether a scheduler
    listens there is known only when the study connects."""
    try:
        from distributed.comm.addressing import get_address_host_port, parse_address
    except ImportError:
        raise InputError(f"{option} needs dask.distributed: pip install 'dask[distributed]'") from None
    if not address.strip():
        raise InputError(f"{option} is empty; give a Dask scheduler address (e.g. tcp://host:8786), or leave "
                         f"{option} out to run on the local cores")
    try:
        scheme = parse_address(address)[0]  # (no scheme: tcp)
        if scheme in ("inproc", "ucx"):  # (a cluster in this process; UCX): no host:port to read
            return
        port = get_address_host_port(address)[1]
    except ValueError as exc:
        raise InputError(f"{option} {address!r} is not a Dask scheduler address ({exc}); "
                         "e.g. tcp://host:8786") from None
    if not 1 <= port <= 65535:
        raise InputError(f"{option} {address!r} has port {port}, outside 1-65535; e.g. tcp://host:8786")


def run(args) -> int:
    """Run the selected studies (Section 5.1 and Table A1 of the pessimistic bilevel tuning paper) and write
    their tables and plots under ``args.out``; returns 0, or 1 when a run ended with an error. Raises
    InputError for missing study dependencies, bad ``--jobs``, ``--scheduler`` (:func:`_check_scheduler`) or
    ``--out`` (empty, a file, not writable), an
    option of the grid of the study that ``--study`` leaves out, an unknown data set or sizes the data cannot
    supply (checked before any run starts)."""
    missing = [name for name in ("sklearn", "joblib", "matplotlib") if importlib.util.find_spec(name) is None]
    if missing:
        raise InputError(f"bilevel study needs {', '.join(missing)}: pip install 'bilevel[study]'")
    mod = load_study_module()
    cfg = _config(args, mod)
    if args.scheduler is not None:
        _check_scheduler(args.scheduler)
    if args.jobs == 0 or args.jobs < -1:
        raise InputError(f"--jobs must be a positive number of processes or -1 (all cores); got {args.jobs}")
    # Path("") is the working directory: the study was written into it
    nonempty_path("a folder name, or leave --out out (out/study)")(args.out, "--out")
    check_writable_folder(args.out, "--out")
    try:
        mod.check_data(cfg, _SIZE_OPTIONS)  # fail fast on a bad data set name or file, or sizes the data cannot supply
    except LabelColumnError as exc:  # named load_dataset's label argument, not the option
        raise InputError(exc.for_option("--label-column")) from None
    mod.check_resume(cfg, args.out)  # a folder of other settings is refused before the study line (run_study again)
    mod.check_no_study_running(args.out)  # so is a folder another study is running into (run_study again)
    scheduler = args.scheduler
    n_units = sum(mod.unit_counts(cfg).values())  # (run_study builds the tasks)
    if cfg.label is not None:
        print(f"label       : {cfg.label}")
    print(f"study       : {', '.join(cfg.studies)} on {', '.join(cfg.datasets)}: {n_units} runs, seed {cfg.seed}, "
          f"time limit {mod.limit_text(cfg.time_limit)}, "
          + (f"Dask scheduler {scheduler}" if scheduler
             else f"{args.jobs if args.jobs > 0 else os.cpu_count()} local jobs"))
    res = mod.run_study(cfg, args.out, jobs=None if args.jobs == -1 else args.jobs, scheduler=scheduler,
                        progress=args.progress)
    print(f"runs        : {res.n_computed} computed now, {res.n_reused} reused from {Path(args.out) / 'runs'}, "
          f"{res.n_errors} with errors; {res.seconds:.1f} s")
    if res.n_failed_steps:
        print(f"failed steps: {res.n_failed_steps} runs with a failed tie re-solve or worst-case LP "
              "(tie_*_error / opt_eval_error in the runs CSV)")
    for name, path in res.files.items():
        print(f"  {name:<24s}: {path}")
    return 1 if res.n_errors else 0
