"""From the tuning MILPs to a certificate: solve the optimistic and pessimistic MILPs over a grid of
candidates, evaluate each candidate's 0-1 error on calibration rows the tuner never saw, and hand the
loss matrix to LTT / Pareto Testing / RG-PT (:mod:`bilevel.certify.pipelines`)."""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..datasets import LabelColumnError, check_split_sizes, load_dataset, split_dataset
from ..errors import InputError
from ..other_solvers import check_solver_runs
from ..pessimistic import check_flip
from ..tune import VERIFICATION_WARNING, LinearClassifier, tune
from ..validation import as_number, check_clock, check_epsilon, check_scale, check_xy
from .pipelines import split_calibration


@dataclass
class Candidate(LinearClassifier):
    """One tuned configuration: ``name``, ``mode``, ``epsilon``, ``w_bar_ub``, the tuned ``w_bar`` (p,),
    the follower's ``w`` (p,) and ``b``, the MILP status, whether it was verified, and the tuning's notes (its
    verification messages, e.g. on the pessimistic ``lambda`` bound; ``bilevel tune`` prints them too)."""

    name: str
    mode: str
    epsilon: float
    w_bar_ub: float
    w_bar: np.ndarray
    w: np.ndarray
    b: float
    status: str
    verified: bool
    notes: tuple = ()


def _number(x: float) -> str:
    """``x`` in a candidate name: 15 significant digits when they read back as ``x``, else in full (``repr``)."""
    short = f"{x:.15g}"
    return short if float(short) == x else repr(x)


def _grid(values, name: str) -> list:
    """The values of one grid argument of :func:`milp_candidates` as a list. Raises InputError for a str or bytes
    (iterated, ``"25"`` was the grid 2, 5 and ``"0.4"`` an error about ``"."``), a mapping (its keys were the grid),
    or a single number or anything else that is not a collection of values (``epsilons=0.2`` was Python's
    TypeError "'float' object is not iterable")."""
    if isinstance(values, (str, bytes, Mapping, numbers.Number, np.generic)) or (isinstance(values, np.ndarray)
                                                                               and values.ndim == 0):
        raise InputError(f"{name} must be a list of numbers (the grid), e.g. [0.2]; got {values!r:.80}")
    try:
        return list(values)
    except TypeError:
        raise InputError(f"{name} must be a list of numbers (the grid), e.g. [0.2]; got {values!r:.80}") from None


def milp_candidates(X_train, y_train, X_val, y_val, epsilons=(0.0, 0.1, 0.2, 0.4), w_bar_ubs=(0.25, 0.5, 1.0),
                    flip="margin", time_limit=None, clock="seconds", solver="highs") -> list[Candidate]:
    """Solve the optimistic MILP (Eq. (21)) for each ``w_bar_ub`` and the pessimistic MILP (Eq. (25)) for
    each ``(epsilon, w_bar_ub)`` of the pessimistic bilevel tuning paper, with ``w_bar`` in
    ``[0, w_bar_ub]^p``. Returns ``len(w_bar_ubs) * (1 + len(epsilons))`` candidates.

    Candidates are named ``opt_ub<w_bar_ub>`` and ``pes_e<epsilon>_ub<w_bar_ub>``, each number to 15 significant
    digits when that reads back as the same float and in full (Python's ``repr``) otherwise, so distinct values
    get distinct names (0.1 and 0.1000001, and 0.1 and 0.10000000000000002, the next float); ``-0`` is named 0.

    ``time_limit`` (seconds per MILP) and ``clock`` are passed to each :func:`bilevel.tune`; with
    ``clock="nodes"`` and no ``time_limit`` the candidates are the same on any machine and under any load (with the
    default ``"seconds"``, a MILP that runs longer than about 1 s can end at another tied optimum). ``solver``
    (``"highs"``, ``"gurobi"`` or ``"cplex"``) solves every MILP, as :func:`bilevel.tune`'s ``solver``.

    Shapes as in :func:`bilevel.tune`. Raises InputError for a grid that is not a collection of numbers (a single
    number, a str, a mapping), an empty grid, a value given twice, an ``epsilon``
    that is not finite or < 0 (or above 1e6), a bad ``clock``, a ``solver`` that is unknown, cannot run here or is
    given with ``clock="nodes"`` (:func:`bilevel.other_solvers.check_solver_runs`), a ``w_bar_ub`` that is not
    finite or <= 0 or that the MILPs' big-M constants cannot take (:func:`bilevel.validation.check_scale`), a bad
    ``flip`` (:func:`bilevel.pessimistic.check_flip`), all before any MILP is solved;
    SolverError when a MILP fails."""
    X_t, _ = check_xy(X_train, y_train, "train")
    X_v, y_v = check_xy(X_val, y_val, "val", p=X_t.shape[1], both_classes=False, columns_of=(X_train, "X_train"))
    check_clock(clock)
    check_solver_runs(solver, clock)
    check_flip(flip, X_val, len(y_v))  # a bad flip was refused by the first pessimistic tune, after its MILP
    # the whole grid is checked here: tune() checked each value only when its MILP came, after the MILPs of the
    # values before it had been solved (minutes on a real grid), and named -0.0 "-0"
    epsilons = [check_epsilon(e) for e in _grid(epsilons, "epsilons")]
    ubs = [as_number(u, "w_bar_ub") + 0.0 for u in _grid(w_bar_ubs, "w_bar_ubs")]
    if not epsilons or not ubs:
        raise InputError("the candidate grid is empty: give at least one epsilon and one w_bar_ub")
    bad = [u for u in ubs if not (np.isfinite(u) and u > 0)]
    if bad:
        raise InputError(f"every w_bar_ub must be finite and > 0; got {bad[0]} in {ubs}")
    for ub in ubs:
        check_scale([X_t, X_v], ub)
    for name, values in (("epsilon", epsilons), ("w_bar_ub", ubs)):
        if len(set(values)) < len(values):  # two candidates of one name: their losses and test errors mixed up
            raise InputError(f"an {name} is given twice: {values}")
    out = []
    with warnings.catch_warnings():
        # unverified candidates are recorded, not hidden; other RuntimeWarnings (numpy's, HiGHS's) still show
        warnings.filterwarnings("ignore", VERIFICATION_WARNING, RuntimeWarning)
        for ub in ubs:
            opt = tune(X_train, y_train, X_val, y_val, "optimistic", w_bar_bounds=(0.0, ub), time_limit=time_limit,
                       clock=clock, solver=solver)
            out.append(Candidate(f"opt_ub{_number(ub)}", "optimistic", 0.0, ub, opt.w_bar, opt.w, opt.b, opt.status,
                                 opt.verified, tuple(opt.verification.messages)))
            for eps in epsilons:
                pes = tune(X_train, y_train, X_val, y_val, "pessimistic", epsilon=eps, w_bar_bounds=(0.0, ub),
                           flip=flip, optimistic=opt, time_limit=time_limit, clock=clock,
                           solver=solver)
                out.append(Candidate(f"pes_e{_number(eps)}_ub{_number(ub)}", "pessimistic", eps, ub,
                                     pes.w_bar, pes.w, pes.b, pes.status, pes.verified,
                                     tuple(pes.verification.messages)))
    return out


def certify_from_data(args):
    """The ``bilevel certify --data NAME`` route: split the data (stratified; test = ``--test-fraction`` of the
    rows, half by default, then ``--n-train``, ``--n-val`` and ``--n-cal`` rows, ``None`` = all remaining), solve
    the candidate grid on train/validation, and return ``(losses, aux, names)``: 0-1 losses (n_cal, m) on the
    calibration rows, the auxiliary cost ``||w_bar||_1`` (m,), and the candidate names. Test errors are kept on
    ``args._test_errors`` (empty without test rows) and each candidate's ``(MILP status, verified)`` on
    ``args._milp_status`` for the report. Only calibration rows enter the certificate. Raises InputError,
    before any MILP, for fewer than 10 calibration rows or (``--method pt``/``rgpt``) an ``--opt-fraction`` that
    leaves a part of their optimisation/testing split empty."""
    # (getattr: a namespace built by a caller of an earlier release has no solver)
    solver = getattr(args, "solver", None) or "highs"
    check_solver_runs(solver, getattr(args, "clock", None) or "seconds")  # named before the data loads
    try:
        data = load_dataset(args.data, label=args.label)
    except LabelColumnError as exc:  # named the label argument, not the option
        raise InputError(exc.for_option("--label")) from None
    n_train, n_val = 10 if args.n_train is None else args.n_train, 10 if args.n_val is None else args.n_val
    test_fraction = 0.5 if args.test_fraction is None else args.test_fraction
    # (split_dataset's message named its arguments, "n_train + n_val + n_cal = 312 exceeds ...")
    sizes = {"--n-train": n_train, "--n-val": n_val, **({"--n-cal": args.n_cal} if args.n_cal else {})}
    check_split_sizes(len(data.y), sizes, test_fraction, "--test-fraction")
    split = split_dataset(data.X, data.y, n_train, n_val, n_cal=args.n_cal, test_fraction=test_fraction,
                          seed=args.seed if args.seed is not None else 0)
    if len(split.y_cal) < 10:
        # (only without --n-cal, which count(10) and check_split_sizes hold to 10 rows or more: "use a larger
        # --n-cal" was advice that could not help)
        raise InputError(f"only {len(split.y_cal)} calibration rows are left (those neither test, training nor "
                         "validation rows; at least 10 needed): use a smaller --n-train, --n-val or --test-fraction")
    if getattr(args, "method", None) in ("pt", "rgpt"):  # both parts of the pt/rgpt split need a row: known now,
        # before the MILPs (--n-cal 10 --opt-fraction 0.01 was refused by the pipeline after the whole grid was solved)
        opt_fraction = 0.5 if getattr(args, "opt_fraction", None) is None else args.opt_fraction
        split_calibration(len(split.y_cal), opt_fraction, name="--opt-fraction")  # (named opt_fraction)
    for ub in args.w_bar_ubs or ():  # the big-M limit (milp_candidates' message named w_bar_ub)
        check_scale([split.X_train, split.X_val], ub, "--w-bar-ubs", rescale=False)
    grid = {k: v for k, v in (("epsilons", args.epsilons), ("w_bar_ubs", args.w_bar_ubs)) if v is not None}
    cands = milp_candidates(split.X_train, split.y_train, split.X_val, split.y_val, time_limit=args.time_limit,
                            clock=args.clock or "seconds", solver=solver,
                            **grid)  # not given: milp_candidates' default grid
    losses = np.column_stack([c.errors(split.X_cal, split.y_cal) for c in cands])
    aux = np.array([float(np.sum(c.w_bar)) for c in cands])
    # no test rows (--test-fraction 0): no test error (the mean of none was NaN, with numpy's RuntimeWarning)
    args._test_errors = {c.name: float(c.errors(split.X_test, split.y_test).mean()) for c in cands
                         } if len(split.y_test) else {}
    args._milp_status = {c.name: (c.status, bool(c.verified)) for c in cands}
    print(f"candidates: {len(cands)} MILP solutions on {args.data} (|T| = {len(split.y_train)}, "
          f"|V| = {len(split.y_val)}, calibration {len(split.y_cal)}, test {len(split.y_test)})")
    for c, col in zip(cands, losses.T):
        test = f"{args._test_errors[c.name]:.3f}" if args._test_errors else "-"
        print(f"  {c.name:<18} {c.status:<10} verified {'yes' if c.verified else 'NO ':<3}  ||w_bar||_1 "
              f"{np.sum(c.w_bar):6.3f}  calibration error {col.mean():.3f}  test error {test}")
        for note in c.notes:  # e.g. "a larger lambda bound might allow a better objective": was not shown
            print(f"      note: {note}")
    return losses, aux, [c.name for c in cands]
