"""``tune``: build, solve and verify the optimistic or pessimistic bilevel tuning MILP."""
from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pyomo.environ as pyo

from .box_search import candidate_boxes, expected_evaluations, search_box
from .errors import InputError, SolverError
from .optimistic import build_optimistic_model
from .other_solvers import check_solver, check_solver_options, check_solver_runs, solve_other
from .pessimistic import (at_lambda_bound, build_pessimistic_model, check_flip, flipped_set, pessimistic_info,
                          set_lambda_bound)
from .solve import InfeasibleModelError, NoSolutionError, SolveInfo, solve_model
from .validation import (SOLVER_NAMES, TINY_FEATURE_WARNING, check_clock, check_columns, check_count, check_epsilon,
                         check_features, check_flag, check_mip_gap, check_positive, check_scale, check_w_bar_bounds,
                         check_xy, feature_names, is_choice, tiny_features, value_text, warn_tiny_features)
from .verify import Verification, solution_w_bar, verify_tightest_box
from .warmstart import best_start, kkt_start, loaded_start, queued_start, start_by_name, start_pairs

_LAMBDA_START = 1e3  # first bound on Eq. (25)'s lambda when epsilon > 0 (see tune)
MAX_LAMBDA_BOUND = 1e4  # tune's default max_lambda_bound
VERIFICATION_WARNING = r"(optimistic|pessimistic) solution failed verification"
"""The message (a regular expression for ``warnings.filterwarnings``) of the RuntimeWarning :func:`tune` issues
for a solution that fails verification; callers that report ``verified`` themselves ignore this warning only."""
_LAMBDA_LOWEST = 1.0  # the smallest bound tune steps down to when a solution fails verification (see tune)


class LinearClassifier:
    """Prediction with a linear SVM ``f(x) = x^T w - b`` (attributes ``w`` (p,) and ``b``), as in Eq. (20)
    of the pessimistic bilevel tuning paper. Shared by every result that carries a hyperplane.

    ``feature_names``: the column labels of the training DataFrame the hyperplane was tuned on (a tuple; None for
    arrays); a DataFrame given to the methods below must then have those columns in that order."""

    feature_names = None

    def decision_function(self, X) -> np.ndarray:
        """``X @ w - b`` (n,) for X (n, p). Raises InputError unless X is a finite (n, p) array, n >= 1, or for a
        DataFrame whose columns are not ``feature_names`` in order (when the result has them)."""
        check_columns(self.feature_names, X, "X_train", "X")
        return check_features(X, "eval", p=len(self.w)) @ self.w - self.b

    def predict(self, X) -> np.ndarray:
        """Labels (n,) in {-1, +1} (ties to +1) for X (n, p); errors as :meth:`decision_function`."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)

    def errors(self, X, y) -> np.ndarray:
        """Per-row 0-1 loss (n,) on X (n, p), y (n,) in {-1, +1}. Raises InputError for other shapes,
        NaN/inf or labels other than -1 and +1 (e.g. 0/1 labels, which would count every -1 as wrong), and for a
        DataFrame whose columns are not ``feature_names`` in order."""
        check_columns(self.feature_names, X, "X_train", "X")
        X, y = check_xy(X, y, "eval", p=len(self.w), both_classes=False)
        return (self.predict(X) != y).astype(float)

    def accuracy(self, X, y) -> float:
        """Fraction of rows of X (n, p) whose predicted label equals y (n,); errors as :meth:`errors`."""
        return 1.0 - float(self.errors(X, y).mean())


@dataclass
class TuneResult(LinearClassifier):
    """A solved and verified bilevel tuning MILP.

    Attributes: ``w_bar`` (p,) the tuned box; ``w`` (p,), ``b`` the follower's linear SVM
    (``f(x) = x^T w - b``); ``objective`` the mean validation hinge loss; ``status`` HiGHS's status
    (``"optimal"`` only when proven within HiGHS's default tolerances, ``"gap_limit"`` when stopped at a
    larger ``mip_gap``, ``"time_limit"``, ...); ``best_bound``, ``gap``; ``solve_seconds`` (HiGHS time of the
    final solve only), ``total_seconds`` (all solves: cutoff restarts, their rebuilds and lambda-bound
    retries, and a box search run before the first solve with its rebuild; the solve time to quote),
    ``build_seconds`` (the first model's build), ``build_lp_seconds`` (of ``build_seconds``, the build's LPs:
    least training loss and bound tightening, items 9-10 of :mod:`bilevel.bigm`; the rest is Pyomo),
    ``start_seconds`` (the LPs of the MIP starts, :func:`bilevel.warmstart.kkt_start`);
    ``nodes`` (branch-and-bound nodes of the final solve, like ``solve_seconds``: a cutoff restart or a lambda
    retry starts counting anew); ``random_seed`` (HiGHS's ``random_seed`` of the run whose solution the final
    solve returned: with ``race > 1`` the winning run's, ``highs_options``' seed plus its index in the race);
    ``n_variables``, ``n_binaries``, ``n_constraints``; ``model`` the Pyomo model; ``solver`` the MILP solver
    (``tune``'s ``solver``: ``"highs"``, ``"gurobi"`` or ``"cplex"``; with another solver than HiGHS, "HiGHS" in
    these lines means that solver: its status, time and nodes);
    ``verification``. Pessimistic only: ``epsilon``, ``flip_rule``, ``flipped`` (validation indices of
    ``V_f``), ``w_hat``, ``b_hat`` (replica), ``lambda_bound`` and ``lambda_history`` (bounds tried),
    ``lambda_max`` (the bound ``Lambda*`` of item 11 of :mod:`bilevel.bigm` on ``lambda`` at every follower
    optimum, ``inf`` when none is known: epsilon = 0 or a separable training set; ``lambda_bound >=
    lambda_max`` proves the bound on ``lambda`` cut off no bilevel-feasible point), and ``optimistic`` (the
    optimistic result that defined ``V_f``). Both modes: ``feature_names`` (the column labels of a DataFrame
    ``X_train``, a tuple; None for arrays: :class:`LinearClassifier`), ``restarts``, one dict
    (``seconds`` of HiGHS and rebuild time so far, ``cutoff``) per cutoff restart of the first MILP solve
    (``tune``'s ``cutoff_restarts``; a restart whose rebuilt model yielded no solution is not listed: the
    interrupted run's incumbent is returned); after a restart ``model`` carries the cutoff row of the last
    restart listed (:meth:`plain_model` gives the model without it).
    """

    mode: str
    w_bar: np.ndarray
    w: np.ndarray
    b: float
    objective: float
    status: str
    best_bound: float
    gap: float
    solve_seconds: float
    total_seconds: float
    build_seconds: float
    nodes: int
    n_variables: int
    n_binaries: int
    n_constraints: int
    model: pyo.ConcreteModel
    verification: Verification
    epsilon: float | None = None
    replica: str | None = None
    flip_rule: str | None = None
    flipped: np.ndarray | None = None
    w_hat: np.ndarray | None = None
    b_hat: float | None = None
    lambda_bound: float | None = None
    lambda_history: list = field(default_factory=list)
    lambda_max: float | None = None
    optimistic: "TuneResult | None" = None
    start_seconds: float = 0.0
    restarts: list = field(default_factory=list)
    build_lp_seconds: float = 0.0
    random_seed: int = 0
    solver: str = "highs"

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    @property
    def verified(self) -> bool:
        return self.verification.verified

    def plain_model(self) -> pyo.ConcreteModel:
        """The MILP to export (:func:`bilevel.write_model`): ``model`` itself, or, when the last model solved
        carried an objective cutoff (a cutoff restart, or the pessimistic model built around its MIP start),
        the same Eq. (21) / Eq. (25) model rebuilt without the cutoff row and the binaries it fixed: same
        data and ``w_bar`` bounds, and for Eq. (25) the same ``V_f``, epsilon, lambda bound, replica and
        objective floor. Same optimum; no solution loaded in the rebuilt model."""
        info = self.model.bilevel_info
        if info.get("objective_cutoff") is None:
            return self.model
        data = (info["X_train"], info["y_train"], info["X_val"], info["y_val"])
        bounds = (info["w_bar_lb"], info["w_bar_ub"])
        if info["mode"] == "optimistic":
            return build_optimistic_model(*data, bounds)
        floor = self.model.component("objective_floor")
        return build_pessimistic_model(*data, info["flipped"], info["epsilon"], bounds, info["lambda_bound"],
                                       info["replica"], objective_floor=None if floor is None else floor.lower)

    def to_dict(self) -> dict:
        """JSON-serialisable summary (no model); numbers that are not finite (e.g. ``best_bound = -inf`` and
        ``gap = inf`` when HiGHS stopped before any dual bound, ``lambda_max = inf``) become ``None``."""
        out = {
            "mode": self.mode, "status": self.status, "objective": self.objective, "best_bound": self.best_bound,
            "gap": self.gap, "solve_seconds": self.solve_seconds, "total_seconds": self.total_seconds,
            "build_seconds": self.build_seconds, "build_lp_seconds": self.build_lp_seconds,
            "start_seconds": self.start_seconds, "nodes": self.nodes, "random_seed": self.random_seed,
            "restarts": self.restarts, "solver": self.solver,
            "n_variables": self.n_variables, "n_binaries": self.n_binaries, "n_constraints": self.n_constraints,
            "w_bar": self.w_bar.tolist(), "w": self.w.tolist(), "b": self.b,
            "verification": self.verification.to_dict(),
        }
        if self.mode == "pessimistic":
            out.update(
                epsilon=self.epsilon, replica=self.replica, flip_rule=self.flip_rule, flipped=self.flipped.tolist(),
                w_hat=self.w_hat.tolist(), b_hat=self.b_hat, lambda_bound=self.lambda_bound,
                lambda_history=self.lambda_history,
                lambda_max=self.lambda_max,
            )
        return finite_or_none(out)


def finite_or_none(obj):
    """``obj`` with every float that is inf or NaN, at any depth of dicts, lists, tuples and numpy arrays,
    replaced by None (tuples and arrays become lists), for JSON, which has no inf or NaN. A utility of this
    package (the result records of :meth:`TuneResult.to_dict` and ``bilevel tune --json``); never raises."""
    if isinstance(obj, dict):
        return {k: finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [finite_or_none(v) for v in (obj.tolist() if isinstance(obj, np.ndarray) else obj)]
    if isinstance(obj, (float, np.floating)) and not np.isfinite(obj):
        return None
    return obj


def _values(var) -> np.ndarray:
    return np.array([var[k].value for k in var], dtype=float)


def _result(mode, model, info: SolveInfo, build_seconds, total_seconds, tolerance, notes=(), verification=None,
            feature_names=None, **extra) -> TuneResult:
    ver = verification if verification is not None else verify_tightest_box(model, tolerance=tolerance)
    ver.messages.extend(notes)
    if not ver.verified:
        warnings.warn(f"{mode} solution failed verification: {'; '.join(ver.messages)}", RuntimeWarning, stacklevel=3)
    result = TuneResult(
        mode=mode, w_bar=solution_w_bar(model), w=_values(model.w), b=float(model.b.value),
        objective=info.objective, status=info.status, best_bound=info.best_bound, gap=info.gap,
        random_seed=info.random_seed, solve_seconds=info.seconds, total_seconds=total_seconds,
        build_seconds=build_seconds, nodes=info.nodes,
        n_variables=info.n_variables, n_binaries=info.n_binaries, n_constraints=info.n_constraints,
        model=model, verification=ver, **extra,
    )
    result.feature_names = feature_names  # (a LinearClassifier attribute, not a dataclass field)
    return result


_START_SCALES = (0.75, 0.5, 0.35, 0.25, 0.15)


def _start_boxes(optimistic: TuneResult, w_bar_bounds) -> list:
    """Boxes, in order, at which :func:`bilevel.warmstart.kkt_start` tries a pessimistic MIP start: the
    optimistic ``w_bar`` first; the tightest box ``|w|`` around the optimistic hyperplane, which keeps it
    training-optimal and leaves the follower fewer ties; ``w_bar_ub``; and ``|w|`` and ``w_bar_ub`` shrunk by
    ``_START_SCALES`` (small boxes often leave the follower a unique, less harmful optimum). Clipped to the
    bounds there. The order is the tie-break: the first box whose start meets the optimistic floor
    (epsilon = 0) is returned as the pessimistic optimum, so the optimistic answer is kept whenever it is
    pessimistic-optimal too, and otherwise the box closest to it in this list."""
    tight = np.abs(optimistic.w)
    ub = np.broadcast_to(np.asarray(w_bar_bounds[1], dtype=float), tight.shape)
    return [optimistic.w_bar, tight, ub] + [t * box for box in (tight, ub) for t in _START_SCALES]


# HiGHS options the tuning MILPs are solved with unless ``tune(highs_options=...)`` overrides them. HiGHS runs
# its RENS sub-MIP heuristic at the root whatever ``mip_heuristic_effort`` says; with the bilevel-feasible
# MIP start and the box search it mostly re-finds the start. Measured (experiments/bench_options.py, 17
# instances, 3 HiGHS seeds, geometric mean of the time relative to HiGHS's defaults): RENS off 0.55
# optimistic, 0.67 pessimistic; RINS and RENS off 0.46 and 0.94 (slower on the hardest optimistic instance).
# Cut separation only at the root (``mip_allow_cut_separation_at_nodes`` off; HiGHS also separates cuts at
# the nodes of the tree by default). Measured with experiments/bench_tune_options.py (the whole tune call, the
# 23 benchmark instances at sizes 10-20 that take 0.1-25 s, HiGHS seeds 0 and 1; results/bench_tune_nodecuts):
# with HiGHS's node cuts on, 1.27 times the time in geometric mean (1.20 optimistic, 1.30 pessimistic; diabetes
# pessimistic epsilon = 0.2 10/10 seed 2: 15.5 s and 14.7 s against 6.3 s and 5.9 s). At 50/50 no consistent
# difference (results/bench_tune_nodecuts50: the node cuts 0.98 of the time over the 18 instances; 1.06 over
# the six optimistic ones with three HiGHS seeds); cancer 100/100 seed 1 took 31.9 s and 25.3 s against the
# 120 s limit and 51.1 s with them (results/bench_tune_nodecuts100; experiments/PERFORMANCE.md, *Cuts at the root
# only*).
# Less strong branching: pseudo-costs trusted after 4 observations instead of HiGHS's 8
# (``mip_pscost_minreliable``). Measured the same way, against the two options above alone: 1.00 of the time
# on the 23 instances (results/bench_tune_pscost4), 0.95 on the 12 optimistic and epsilon = 0 instances at
# 50/50 (bench_tune_pscost4_50), 0.88 and 0.83 in two runs on optimistic cancer 100/100 with HiGHS seeds 0-2
# (bench_tune_pscost4_100, _100b). 16 instead went the other way at 100/100 (1.20, bench_tune_pscost16_100).
HIGHS_OPTIONS = {"mip_heuristic_run_rens": False, "mip_allow_cut_separation_at_nodes": False,
                 "mip_pscost_minreliable": 4}


def tuning_options(overrides: dict | None = None, X_list=None) -> dict:
    """The HiGHS options of a tuning MILP solve (both modes, and the tie re-solves of :mod:`bilevel.ties`):
    :data:`HIGHS_OPTIONS` with ``overrides`` (HiGHS option names to values) on top, as a new dict. Given the
    feature arrays ``X_list`` ((n_k, p) each: training and validation) with a feature far smaller than the
    others (:func:`bilevel.validation.tiny_features`), ``presolve`` is ``"off"`` unless ``overrides`` sets it:
    HiGHS's presolve proved a non-optimal point optimal on such data (README, *Python API*: the paragraph on bad
    input). Raises InputError when ``overrides`` is not a mapping; :func:`bilevel.solve_model` raises InputError
    naming an option HiGHS rejects. No equation: solver settings (a utility; README *Performance*, HiGHS options)."""
    if overrides is not None and not isinstance(overrides, Mapping):
        raise InputError("highs_options must be a mapping of HiGHS option names to values; "
                         f"got {value_text(overrides)}")
    options = {**HIGHS_OPTIONS, **(overrides or {})}
    if X_list is not None and "presolve" not in (overrides or {}) and tiny_features(X_list):
        # fuzz seed 542 (one feature of size 1e-6 next to one of 1e3): presolve proved 1.0894 optimal, the
        # optimum is 1.0; with presolve off the mixed-scale fuzz found no wrong answer
        options["presolve"] = "off"
    return options


_SEARCH_AFTER = 1.0  # seconds of HiGHS time before the box search runs, at least ...
_SEARCH_SHARE = 3.0  # ... and this many times its estimated cost, so it adds at most a third to a solve
# clock="nodes": the same rules counted in branch-and-bound nodes. Measured here on the tuning MILPs of sizes
# 10-20: HiGHS processes about 1,000-2,300 nodes per second, and one box evaluation (1.2-1.5 ms) takes the
# time of about 2-3 nodes (README, *Deterministic runs*).
_SEARCH_AFTER_NODES = 2000
_NODES_PER_EVALUATION = 2.5


def _box_improver(model, boxes, floor: float, evaluation_seconds: float, clock: str = "seconds") -> dict:
    """The ``improve`` hook of :func:`bilevel.solve_model` for a tuning MILP: :func:`bilevel.box_search.search_box`
    from ``boxes`` and the hinge-minimiser boxes, each evaluated by the MIP start's LPs at that box
    (:func:`bilevel.warmstart.queued_start`), stopping at ``max(floor, HiGHS's dual bound)``; the hook returns
    the best start if it beats HiGHS's incumbent. Returns the keyword arguments ``improve`` (the hook) and
    ``improve_after`` of :func:`bilevel.solve_model`: the hook runs after
    ``max(_SEARCH_AFTER, _SEARCH_SHARE * estimated search time)`` seconds, estimated from the time of one
    evaluation, ``evaluation_seconds`` (the MIP start's time per box: when the start stopped early it met
    the floor, the MILP ends at once and the hook never runs); with ``clock="nodes"`` after
    ``max(_SEARCH_AFTER_NODES, _SEARCH_SHARE * _NODES_PER_EVALUATION * expected evaluations)`` nodes, which
    no measured time enters."""
    info = model.bilevel_info
    n_evaluations = expected_evaluations(len(boxes), len(info["w_bar_ub"]))
    if clock == "nodes":
        after = max(_SEARCH_AFTER_NODES, _SEARCH_SHARE * _NODES_PER_EVALUATION * n_evaluations)
    else:
        after = max(_SEARCH_AFTER, _SEARCH_SHARE * evaluation_seconds * n_evaluations)

    def evaluate(w_bar):
        try:
            out = queued_start(info, w_bar)
        except SolverError:  # an LP that fails at one box only removes that box from the search
            return None
        return None if out is None else (out[1], out[0])

    def improve(incumbent: float, dual_bound: float, deadline):
        boxes_all = [*boxes, *candidate_boxes(info["X_train"], info["y_train"], info["X_val"], info["y_val"],
                                               info["w_bar_ub"])]
        found = search_box(evaluate, boxes_all, info["w_bar_lb"], info["w_bar_ub"], floor=max(floor, dual_bound),
                           deadline=deadline)
        return start_pairs(found.payload, model) if found.objective < incumbent - 1e-9 else None

    return {"improve": improve, "improve_after": after}


_RESTART_AFTER = 2.0  # seconds of HiGHS time in the current run before a cutoff restart may interrupt it ...
_RESTART_AFTER_NODES = 4000  # ... or nodes, with clock="nodes"
_RESTART_RATIO = 0.8  # ... for an incumbent at most this share of the value the current model was built around
_MAX_RESTARTS = 5


def _start_value(model: pyo.ConcreteModel, start) -> float:
    """The outer objective (mean validation hinge) of a MIP start, ``inf`` without one."""
    return float(np.mean([x for v, x in start if v.parent_component() is model.g])) if start else np.inf


def _rebuilt_around(rebuild, value: float, pairs: list):
    """``rebuild`` around the objective ``value`` (padded by ``1e-6 (1 + |value|)`` against round-off) and
    the solution ``pairs`` carried over by name: ``(model, start)``, or ``None`` when the rebuild fails
    (round-off put the point outside its own cutoff set)."""
    try:
        new = rebuild(padded_cutoff(value))
    except InputError:
        return None
    return new, start_by_name(pairs, new)


def padded_cutoff(value: float) -> float:
    """The objective ``value`` (mean-hinge units) of a known bilevel-feasible point as the ``objective_cutoff``
    :func:`tune` builds models around: padded by ``1e-6 (1 + |value|)`` against round-off, so the point stays
    feasible in a model whose cutoff row holds it (the experiments build their models the same way)."""
    return value + 1e-6 * (1.0 + abs(value))


def _initial_model(rebuild, start, floor: float, enabled: bool):
    """The pessimistic model solved first: with ``enabled`` (cutoff restarts on) built by ``rebuild`` around
    the objective of the queued MIP start ``start`` (``(queue, objective)`` or ``None``, see
    :func:`bilevel.warmstart.best_start`), unless that objective is within 1e-6 of ``floor`` (the start is
    then optimal); otherwise, or when that build fails (round-off put the start outside its own cutoff
    set), the plain model ``rebuild(None)``. Measured: geometric mean 0.78 of the time of the plain model on
    six small pessimistic instances (experiments/PERFORMANCE.md, *Objective cutoff restarts*)."""
    if enabled and start is not None and start[1] > floor + 1e-6:
        try:
            return rebuild(padded_cutoff(start[1]))
        except InputError:
            pass
    return rebuild(None)


def refuse_solver_options(solver_options) -> None:
    """Raise InputError unless ``solver_options`` is ``None``: with HiGHS, Gurobi or CPLEX parameters would be
    ignored (a utility of :func:`tune` and :func:`bilevel.optimistic_tie_range`; HiGHS takes ``highs_options``)."""
    if solver_options is not None:
        raise InputError("solver_options are for solver='gurobi' or 'cplex'; give HiGHS options as highs_options")


def _other_solver_kw(solver: str, solver_options, run_kw: dict, highs_options, clock: str) -> dict:
    """The solve arguments of :func:`tune` with ``solver`` Gurobi or CPLEX, after refusing the HiGHS-only settings
    (``race``, ``highs_options``, ``clock="nodes"``) and a solver that cannot run here (InputError)."""
    refused = [name for name, is_set in (("race", run_kw["race"] != 1), ("highs_options", highs_options is not None),
                                         ("clock='nodes'", clock != "seconds")) if is_set]
    if refused:
        raise InputError(f"{', '.join(refused)}: HiGHS only; solver={solver!r} runs without them (its own "
                         "parameters go in solver_options)")
    kw = {key: value for key, value in run_kw.items() if key != "race"}
    if kw["mip_gap"] is not None:
        check_mip_gap(kw["mip_gap"])
    if kw["threads"] is not None:
        check_count(kw["threads"], "threads")
    options = check_solver_options(solver, solver_options)  # bad settings are named first, installed or not
    check_solver_runs(solver)  # (clock="nodes" was refused above, with the other HiGHS-only settings)
    return dict(kw, solver=solver, options=options)


def _solve(model, solver: str = "highs", **kw) -> SolveInfo:
    """:func:`bilevel.solve_model` (HiGHS) or, for ``solver`` ``"gurobi"`` / ``"cplex"``,
    :func:`bilevel.other_solvers.solve_other` with the same keyword arguments."""
    return solve_model(model, **kw) if solver == "highs" else solve_other(model, solver, **kw)


def _search_first(model, start, make_search, enabled: bool, rebuild, floor: float, deadline):
    """Run the box search of ``make_search(model)`` once, before a solve: from the objective of ``start`` (``(VarData,
    value)`` pairs, or ``None``) down to ``floor`` (the objective's lower bound), stopping at the
    ``time.perf_counter()`` value ``deadline`` (``None``: no deadline); with ``enabled``, rebuild the model around
    the value it reaches (``rebuild``, as a cutoff restart rebuilds it) unless the model was built around it already
    or it meets the floor. Returns ``(model, start, ran)``: the model to solve, the best point as its MIP start, and
    whether the search ran (not without ``warm_start``, nor from a start that meets the floor)."""
    search = make_search(model)
    value = _start_value(model, start)
    if "improve" not in search or value <= floor + 1e-6:
        return model, start, False
    better = search["improve"](value, floor, deadline)
    if better is not None:
        start, value = better, _start_value(model, better)
        cutoff = model.bilevel_info.get("objective_cutoff")
        if enabled and value > floor + 1e-6 and (cutoff is None or padded_cutoff(value) < cutoff):
            rebuilt = _rebuilt_around(rebuild, value, better)
            if rebuilt is not None:
                model, start = rebuilt
    return model, start, True


#: ``|T| + |V|`` from which :func:`tune` runs the box search before HiGHS's first solve of an optimistic MILP (and
#: builds the model around its value) instead of inside HiGHS's run. Measured (experiments/PERFORMANCE.md, *The box
#: search before HiGHS, again*): at sizes 10-20 1.31 times the time in geometric mean on the optimistic instances
#: of experiments/bench_tune_options.py (1.57 on the pessimistic ones); at 50/50 0.42 on the six optimistic
#: instances, while pessimistic ones that HiGHS proves in 0.05 s took 0.6 s; at 100/100 0.62 on cancer.
_SEARCH_FIRST_POINTS = 100


def _searches_first(model) -> bool:
    """Whether HiGHS's first solve of ``model`` gets the box search before it: an optimistic model of at least
    :data:`_SEARCH_FIRST_POINTS` training and validation points."""
    info = model.bilevel_info
    return info["mode"] == "optimistic" and len(info["y_train"]) + len(info["y_val"]) >= _SEARCH_FIRST_POINTS


def _solve_with_cutoffs(model, start, make_search, solve_kw: dict, enabled: bool, rebuild, floor: float = 0.0):
    """Solve the tuning MILP ``model`` from ``start``; with ``enabled``, restart it around better
    incumbents (item 10 of :mod:`bilevel.bigm`): when a run has lasted ``_RESTART_AFTER`` seconds and HiGHS
    has a solution of objective at most ``_RESTART_RATIO`` times the value the model was built around
    (the start's, then the cutoff's), the run is interrupted, the model rebuilt by ``rebuild(cutoff)`` with
    that objective as ``objective_cutoff`` (tighter big-Ms, points fixed on their side of the margin) and
    re-solved from the incumbent, within what is left of the time limit; at most ``_MAX_RESTARTS`` times.
    A rebuild that fails keeps the model in hand and ends the restarts; a rebuilt model on which HiGHS finds
    no solution (it can reject the carried-over incumbent, and then stop at the time limit with none) gives
    back the interrupted model, its incumbent still loaded, with status ``"time_limit"``.
    ``make_search(model)`` gives the box-search keyword arguments of :func:`bilevel.solve_model` for a
    model (run until the search has run once). Returns ``(model, info, seconds, restarts)``: the final
    model, its :class:`SolveInfo`, HiGHS time plus rebuild time summed, and one dict per restart
    (``seconds``: that sum at the restart; ``cutoff``).

    On an optimistic model of at least :data:`_SEARCH_FIRST_POINTS` training and validation points, and always with
    ``solve_kw["solver"]`` other than HiGHS (Gurobi and CPLEX have no counterpart of HiGHS's callbacks), the box
    search runs before the first solve instead (:func:`_search_first`, ``floor`` the objective's lower bound; its time
    counts in the total and comes off ``time_limit``); another solver then solves once, without restarts.
    Measured on optimistic cancer 100/100: Gurobi proved the models of splits 1 and 2 built around the box search's
    value in 7.42-11.8 s and 1.83-2.99 s, the plain ones in 15.7-20.2 s and 6.57-7.03 s
    (experiments/PERFORMANCE.md, *Another solver on the same MILPs*)."""
    time_limit = solve_kw.get("time_limit")
    total, restarts, searched = 0.0, [], []
    other = solve_kw.get("solver", "highs") != "highs"
    if other or _searches_first(model):
        t0 = time.perf_counter()
        model, start, ran = _search_first(model, start, make_search, enabled, rebuild, floor,
                                          None if time_limit is None else t0 + time_limit)
        total = time.perf_counter() - t0
        searched += [1] if ran else []
        if other:
            info = _solve(model, mip_start=start, **dict(solve_kw, time_limit=_time_left(time_limit, total)))
            return model, info, total + info.seconds, []
    reference = _start_value(model, start)

    def searching(m) -> dict:  # the box search for m, until it has run once
        search = {} if searched else make_search(m)
        return {**search, "improve": _recording(search["improve"], searched)} if "improve" in search else search

    search = searching(model)
    previous = None  # (model, SolveInfo) of the interrupted run whose incumbent the current model starts from
    while True:
        trigger = _restart_trigger(reference, solve_kw["clock"]) if enabled and len(restarts) < _MAX_RESTARTS else None
        kw = dict(solve_kw, time_limit=_time_left(time_limit, total))
        t0 = time.perf_counter()
        try:
            info = _solve(model, mip_start=start, interrupt_when=trigger, **search, **kw)
        except NoSolutionError:
            if previous is None:
                raise
            # HiGHS can reject the carried-over incumbent (a pessimistic follower with lambda = 0 may hold xi
            # above its hinge, beyond the rebuilt model's tighter bound on xi) and then stop at the time limit
            # without a solution: the interrupted run's incumbent, still loaded in its model, is the answer. The
            # restart that built the failed model is dropped from the list, whose last cutoff is the returned
            # model's (its time stays in the total).
            total += time.perf_counter() - t0
            restarts.pop()
            return previous[0], replace(previous[1], status="time_limit"), total, restarts
        total += info.seconds
        if info.status != "interrupted" or trigger is None:
            return model, info, total, restarts
        if time_limit is not None and time_limit - total < 0.05:  # no time left to use a tighter model
            return model, replace(info, status="time_limit"), total, restarts
        previous = (model, info)
        t0 = time.perf_counter()
        rebuilt = _rebuilt_around(rebuild, info.objective, loaded_start(model))
        new_search = searching(rebuilt[0]) if rebuilt is not None else None
        total += time.perf_counter() - t0
        if time_limit is not None and time_limit - total < 0.05:  # the rebuild used up the time left
            return model, replace(info, status="time_limit"), total, restarts
        if rebuilt is None:  # go on with the model in hand, from its incumbent, without restarts
            enabled, start = False, loaded_start(model)
            continue
        (model, start), reference, search = rebuilt, info.objective, new_search
        restarts.append({"seconds": total, "cutoff": model.bilevel_info["objective_cutoff"]})


def _time_left(time_limit: float | None, spent: float) -> float | None:
    """What is left of ``time_limit`` (seconds; ``None``: none) after ``spent`` seconds, for the next solve: at least
    0.01 s once something was spent (a box search before the solve stops at the limit and may leave nothing, and a
    solve needs a positive limit); a limit with nothing spent yet is passed on as it is."""
    if time_limit is None:
        return None
    return max(time_limit - spent, 0.01) if spent > 0 else time_limit


def _restart_trigger(reference: float, clock: str = "seconds"):
    """The ``interrupt_when`` of a run whose model was built around ``reference``: true once the run has
    lasted ``_RESTART_AFTER`` seconds (``clock="nodes"``: ``_RESTART_AFTER_NODES`` nodes) with an incumbent
    at most ``_RESTART_RATIO * reference``."""
    after = _RESTART_AFTER_NODES if clock == "nodes" else _RESTART_AFTER

    def trigger(objective: float, elapsed: float) -> bool:
        return elapsed >= after and objective <= _RESTART_RATIO * reference
    return trigger


def _recording(improve, calls: list):
    """``improve`` that appends to ``calls`` when it runs."""
    def wrapped(*args):
        calls.append(1)
        return improve(*args)
    return wrapped


def _check_optimistic(optimistic, X_t, y_t, X_v, y_v, lb, ub) -> None:
    """Raise InputError unless ``optimistic`` is an optimistic :class:`TuneResult` solved on these data and
    ``w_bar`` bounds ``lb``, ``ub`` (p,): its hyperplane defines ``V_f`` and its best bound is the floor of
    Proposition 1."""
    if not isinstance(optimistic, TuneResult) or optimistic.mode != "optimistic":
        raise InputError("optimistic must be the TuneResult of tune(..., mode='optimistic') on the same data")
    info = optimistic.model.bilevel_info
    same = all(np.shape(a) == np.shape(b) and np.array_equal(a, b) for a, b in (
        (info["X_train"], X_t), (info["y_train"], y_t), (info["X_val"], X_v), (info["y_val"], y_v),
        (info["w_bar_lb"], lb), (info["w_bar_ub"], ub)))
    if not same:
        raise InputError("optimistic was solved on other data or other w_bar bounds; pass the optimistic "
                         "result of the same training / validation sets and w_bar_bounds, or None")


def _timed_start(model, warm_start: bool, **kw) -> tuple:
    """``(kkt_start(model, **kw) or None, seconds spent)``."""
    t0 = time.perf_counter()
    start = kkt_start(model, **kw) if warm_start else None
    return start, time.perf_counter() - t0


def _solved_from_start(model, warm_start: bool, start_kw: dict, solve_kw: dict) -> tuple:
    """Solve ``model`` from its own MIP start (:func:`bilevel.warmstart.kkt_start` with ``start_kw``):
    ``(SolveInfo, start seconds, 0.0)``, or ``(None, start seconds, seconds of the failed solve)`` when HiGHS
    finds no solution or reports the model infeasible."""
    start, seconds = _timed_start(model, warm_start, **start_kw)
    t0 = time.perf_counter()
    try:
        return _solve(model, mip_start=start, **solve_kw), seconds, 0.0
    except (NoSolutionError, InfeasibleModelError):
        return None, seconds, time.perf_counter() - t0


def starting_lambda_bound(epsilon: float, replica: str = "optimal",
                          max_lambda_bound: float = MAX_LAMBDA_BOUND) -> float:
    """The first bound on the multiplier ``lambda`` of Eq. (25) of the pessimistic bilevel tuning paper that
    :func:`tune` tries when not given one (its docstring, *Starting bound*): ``max_lambda_bound`` when the
    budget row is degenerate (``epsilon == 0`` and ``replica="optimal"``), else ``min(1e3, max_lambda_bound)``.
    A utility; its arguments are tune's, checked there."""
    return float(max_lambda_bound if _degenerate_budget(epsilon, replica) else min(_LAMBDA_START, max_lambda_bound))


def _degenerate_budget(epsilon: float, replica: str) -> bool:
    """Whether the budget row of Eq. (25) is always tight: epsilon = 0 with a training-optimal replica."""
    return epsilon == 0.0 and replica == "optimal"


def tune(
    X_train,
    y_train,
    X_val,
    y_val,
    mode: str = "optimistic",
    epsilon: float = 0.0,
    w_bar_bounds=(0.0, 1.0),
    flip="margin",
    time_limit: float | None = None,
    mip_gap: float | None = None,
    threads: int | None = None,
    race: int = 1,
    lambda_bound: float | None = None,
    max_lambda_bound: float = MAX_LAMBDA_BOUND,
    lambda_growth: float = 10.0,
    optimistic: TuneResult | None = None,
    tolerance: float = 1e-5,
    replica: str = "optimal",
    warm_start: bool = True,
    highs_options: dict | None = None,
    cutoff_restarts: bool = True,
    clock: str = "seconds",
    solver: str = "highs",
    solver_options: dict | None = None,
) -> TuneResult:
    """Tune the per-feature box ``w_bar`` of a linear LP-SVM by solving a bilevel MILP with HiGHS (or Gurobi, CPLEX).

    ``mode="optimistic"`` solves Eq. (21) of the pessimistic bilevel tuning paper; ``mode="pessimistic"``
    first solves Eq. (21) (or takes ``optimistic``), builds ``V_f`` from its hyperplane by ``flip``
    (:func:`bilevel.flipped_set`), then solves Eq. (25). If the dual ``lambda`` of the epsilon constraint
    ends at its bound ``lambda_bound`` while the objective is above its floor (the optimistic best bound
    when epsilon = 0 and ``replica="optimal"``, else 0), the bound is multiplied by ``lambda_growth`` and the
    MILP re-solved from the previous solution as a MIP start, up to ``max_lambda_bound`` (the bounds tried are in
    ``lambda_history``; a solution still at the bound is flagged in the verification messages). A bound at
    or above ``lambda_max`` (epsilon > 0: ``Lambda*`` of item 11 of :mod:`bilevel.bigm`, the largest
    ``lambda`` any follower optimum can have) is never enlarged: it already keeps every bilevel-feasible
    point.

    **Starting bound.** With epsilon > 0, or ``replica="feasible"`` (whose budget, the replica's training loss,
    need not be tight), the search starts at ``lambda_bound = 1e3``. With epsilon = 0 and ``replica="optimal"``
    the budget row ``mean(xi) <= v*(w_bar)`` is always tight and has no interior point, so the valid values of
    ``lambda`` at a solution form a half-line ``[lambda_min, inf)`` (adding any multiple of a training dual
    solution keeps the KKT system): solutions sit at whatever bound is set, and starting below
    ``max_lambda_bound`` almost always costs a second solve. So that case starts at ``max_lambda_bound``; if
    that solution fails verification (``kappa = 1/(1 + lambda)`` tiny, the KKT system ill-conditioned), the
    bound is divided by ``lambda_growth`` until one verifies (down to 1e3). Otherwise a first solution that
    fails verification with ``lambda`` at its bound steps the bound down the same way, down to 1: with
    epsilon > 0 this happens where the box separates the training set, so that the budget
    ``(1 + epsilon) v*(w_bar)`` is 0 and as degenerate as with epsilon = 0. Each step re-solves the model in
    hand; when HiGHS finds no solution there (its cutoff row, a value reached at the larger bound, can exclude
    every point of the smaller one), the model without the cutoff row is solved instead.

    Parameters
    ----------
    X_train (|T|, p), y_train (|T|,) in {-1, +1} with both classes; X_val (|V|, p), y_val (|V|,).
    epsilon : relative training-loss suboptimality, >= 0 (pessimistic only).
    w_bar_bounds : ``(lb, ub)`` scalars or (p,) arrays, ``0 <= lb <= ub``.
    flip : ``"margin"``, ``"all"``, validation indices or a boolean mask over the validation set (pessimistic
        only; see :func:`bilevel.flipped_set`).
    time_limit : seconds per MILP solve; a solve that stops early returns its incumbent with a
        non-optimal ``status``. mip_gap : relative gap; threads : HiGHS threads (HiGHS's parallel tree
        search also needs ``highs_options={"parallel": "on"}``; see :func:`bilevel.solve_model`).
    race : concurrent HiGHS runs per MILP with different random seeds, the first to finish wins
        (:func:`bilevel.solve_model`); 2 uses both cores of a 2-core machine for one MILP.
    tolerance : absolute tolerance (mean-hinge units) of the verification.
    warm_start : hand HiGHS a bilevel-feasible MIP start built from LPs at a fixed box
        (:func:`bilevel.warmstart.kkt_start`): ``w_bar_ub`` for the optimistic model; for the pessimistic
        model the best of a list of boxes starting with the optimistic ``w_bar`` (``_start_boxes``; with
        epsilon = 0 often already optimal: its objective meets the optimistic floor, and the first such box
        is returned). It never changes the optimal value, only how soon a good incumbent exists and, among
        tied optima, which one is returned; its LP time is ``start_seconds``. With it, a MILP still
        running after 1 s (and after three times the search's estimated cost; see ``clock``) also gets the
        box search of :mod:`bilevel.box_search` (local search over ``w_bar`` with the same LPs, run once
        inside HiGHS's run, its time counted in the solve time); its best point replaces HiGHS's incumbent
        when better. On an optimistic MILP of at least 100 training and validation points (``|T| + |V|``,
        ``_SEARCH_FIRST_POINTS``) the search runs before HiGHS's first solve instead, unless the start meets the
        objective's floor, and (with ``cutoff_restarts``) the model is built around the value it reaches
        (experiments/PERFORMANCE.md, *The box search before HiGHS, again*).
    highs_options : HiGHS options by name for every MILP solve, over the package's defaults
        ``HIGHS_OPTIONS`` (HiGHS's defaults except the RENS heuristic off, cuts separated at the root
        only and pseudo-costs reliable after 4 observations, not 8), e.g. ``{"mip_heuristic_run_rens": True,
        "mip_allow_cut_separation_at_nodes": True, "mip_pscost_minreliable": 8}`` to restore HiGHS's own.
        Options that give wrong answers on these MILPs (``bilevel.solve.UNSAFE_OPTIONS``, e.g.
        ``mip_lifting_for_probing``) raise InputError, and so do ``time_limit``, ``mip_rel_gap`` or ``threads``
        here together with the argument ``time_limit``, ``mip_gap`` or ``threads``.
    cutoff_restarts : build the pessimistic MILP around its MIP start's objective (as ``objective_cutoff``,
        unless the start already meets the floor; the start is computed from the data first, so this is the
        model's only build, in ``build_seconds``), and, in both modes,
        when a MILP run has lasted 2 s and HiGHS has a solution at most 0.8 times the value the model was
        built around (the MIP start's), rebuild the model with that objective as
        ``objective_cutoff`` (:func:`bilevel.build_optimistic_model`, :func:`bilevel.build_pessimistic_model`:
        same optimum, tighter big-Ms, points decided by the cutoff fixed) and re-solve from that solution,
        at most 5 times (``restarts`` lists them; the pessimistic lambda-bound re-solves run on the last
        model). Never changes the optimal value; the returned ``model`` is the last one solved (or, when HiGHS
        found no solution on a rebuilt model within the time left, the one before it, whose incumbent it holds).
        Measured with ``experiments/bench_milp.py`` (README).
    clock : when the box search (inside HiGHS's run; the search before the solve of a large optimistic MILP waits
        for nothing) and the cutoff restarts above start: ``"seconds"`` (default; after 1 s, 2 s
        of HiGHS time) or ``"nodes"`` (after 2,000 and 4,000 branch-and-bound nodes, and no measured time
        in the search's delay). With ``"nodes"`` a run without a time limit and with ``race=1`` follows the
        same path on every machine and under any load, so it returns the same solution (the same tied
        optimum) every time; with ``"seconds"`` a faster or busier machine can reach another tied optimum.
        Measured cost: README, *Deterministic runs*.
    replica : ``"optimal"`` (training-optimal replica, budget ``(1 + epsilon) v*(w_bar)``) or
        ``"feasible"`` (Eq. (24) as printed); see :func:`bilevel.build_pessimistic_model`.
    solver : the MILP solver: ``"highs"`` (default; :func:`bilevel.solve_model`), or ``"gurobi"`` or ``"cplex"``
        through Pyomo's direct interfaces (:func:`bilevel.other_solvers.solve_other`; they need ``gurobipy`` or
        ``cplex`` and a license, and the pip packages' licenses are size-limited). They have no counterpart of
        HiGHS's callbacks, so with them the box search runs once before each first solve (with ``warm_start``; its
        time counts in the solve time and comes off ``time_limit``), the model is rebuilt around the value it
        reaches (with ``cutoff_restarts``), and there are no restarts while the solver runs; ``race``,
        ``highs_options`` and ``clock="nodes"`` are refused. ``threads`` and ``mip_gap`` go to the solver, whose
        default uses every core. Measured on optimistic cancer 100/100, splits 0-2 of
        ``experiments/bench_milp.benchmark_split``, seeds 0-2, one thread: ``total_seconds`` 1.55-9.48 s (Gurobi)
        and 1.21-10.6 s (CPLEX) against 10.5-44.5 s with HiGHS (README, *Other solvers for `tune`*).
    solver_options : Gurobi or CPLEX parameters by name for every MILP solve (:func:`bilevel.other_solvers.
        check_solver_options`), e.g. ``{"Seed": 1}`` (Gurobi) or ``{"randomseed": 1}`` (CPLEX); only with such a
        ``solver``.
    optimistic : pessimistic only: the optimistic :class:`TuneResult` of the same data and ``w_bar_bounds``
        (``None``: solved here); its hyperplane defines ``V_f`` and its best bound is the floor.
    lambda_bound : first bound on Eq. (25)'s ``lambda`` (``None``: see *Starting bound*). A bound below
        ``lambda_max`` keeps only the followers with ``lambda`` up to it, which can cut off the bilevel optimum
        without the solution touching the bound: a solution below such a bound (finite ``lambda_max``, objective
        above its floor) is re-solved once with the bound ``min(lambda_max, max_lambda_bound)``, which is exact
        in ``lambda`` when ``lambda_max <= max_lambda_bound``. A bound still below ``lambda_max`` is noted in
        the verification messages, also when ``lambda_max`` is ``inf`` (no bound on ``lambda`` is then known,
        as with epsilon = 0, and a solution below the bound certifies nothing; the note is left out only when
        the objective meets its floor). A bound that makes the MILP
        infeasible is multiplied by ``lambda_growth`` until it is feasible (up to ``max_lambda_bound``).
        max_lambda_bound, lambda_growth : the escalation above.

    Returns
    -------
    :class:`TuneResult`; every solution is verified (:func:`bilevel.verify.verify_model`); one that fails is
    verified again at the tightest box around its ``(w, b)`` (and replica), which it keeps when that verifies, with
    the same objective (:func:`bilevel.verify.verify_tightest_box`); a failed verification also issues a
    ``RuntimeWarning``.

    Raises
    ------
    InputError for bad input (shapes, NaN, one class in the training set (a validation set may hold one
    class), epsilon < 0 or above 1e6, infeasible bounds, ``w_bar_ub`` above 1e4 or ``||x||_1 * w_bar_ub`` above
    1e5 (:func:`bilevel.validation.check_scale`), unknown
    mode, flip or clock, a ``tolerance``, ``time_limit``, ``lambda_bound`` or ``max_lambda_bound`` that is not a
    positive number, ``lambda_bound > max_lambda_bound``, ``warm_start`` or ``cutoff_restarts`` not a bool, a
    pessimistic setting (``epsilon != 0``, ``flip``, ``replica``, ``lambda_bound``, ``optimistic``) with
    ``mode="optimistic"``, ``lambda_growth <= 1``, ``highs_options`` that are not a mapping (or hold an option
    HiGHS rejects, one of ``bilevel.solve.UNSAFE_OPTIONS``, or a ``large_matrix_value`` that refuses the model), an
    unknown ``solver``, ``solver_options`` with HiGHS
    or that Gurobi / CPLEX refuses, HiGHS-only settings with another solver, a solver that is not installed or has
    no license, a bad ``mip_gap``, ``threads``, ``race`` or
    ``replica`` (as :func:`bilevel.solve_model`, :func:`bilevel.build_pessimistic_model`), an ``optimistic`` result
    of other data or bounds); SolverError when HiGHS reports infeasible/unbounded or stops without any solution, or
    Gurobi / CPLEX fails (a model above a size-limited license's limits included) (an
    infeasible optimistic MILP, which always has a bilevel-feasible point, is reported as a HiGHS failure; a
    pessimistic MILP infeasible at every lambda bound up to ``max_lambda_bound`` raises InfeasibleModelError
    naming the bounds tried).
    """
    if not is_choice(replica, ("optimal", "feasible")):
        raise InputError(f"replica must be 'optimal' or 'feasible'; got {value_text(replica)}")
    if not is_choice(mode, ("optimistic", "pessimistic")):
        raise InputError(f"mode must be 'optimistic' or 'pessimistic'; got {value_text(mode)}")
    check_clock(clock)
    X_t, y_t = check_xy(X_train, y_train, "train")
    X_v, y_v = check_xy(X_val, y_val, "val", p=X_t.shape[1], both_classes=False, columns_of=(X_train, "X_train"))
    names = feature_names(X_train)  # the results' feature_names: data to predict on is checked against them
    if mode == "pessimistic":
        check_flip(flip, X_val, len(y_v))  # before the optimistic solve (bad indices were refused after it)
    lb, ub = check_w_bar_bounds(w_bar_bounds, X_t.shape[1])
    check_scale([X_t, X_v], ub)
    tiny = warn_tiny_features([X_t, X_v], check_solver(solver))
    eps = check_epsilon(epsilon)
    tolerance = check_positive(tolerance, "tolerance")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit (seconds)", allow_inf=True)
        time_limit = None if time_limit == np.inf else time_limit
    max_lambda_bound = check_positive(max_lambda_bound, "max_lambda_bound")
    lambda_growth = check_positive(lambda_growth, "lambda_growth")
    if lambda_growth <= 1:
        raise InputError(f"lambda_growth must be > 1 (the factor between the lambda bounds tried); got {lambda_growth}")
    if lambda_bound is not None:
        lambda_bound = check_positive(lambda_bound, "lambda_bound")
        if lambda_bound > max_lambda_bound:
            raise InputError(f"lambda_bound {lambda_bound:g} exceeds max_lambda_bound {max_lambda_bound:g}")
    warm_start, cutoff_restarts = check_flag(warm_start, "warm_start"), check_flag(cutoff_restarts, "cutoff_restarts")
    if mode == "optimistic":  # the pessimistic MILP's settings would be ignored silently
        given = [name for name, is_set in (
            ("epsilon", eps != 0.0), ("flip", not (isinstance(flip, str) and flip == "margin")),
            ("replica", replica != "optimal"), ("lambda_bound", lambda_bound is not None),
            ("optimistic", optimistic is not None)) if is_set]
        if given:
            raise InputError(f"{', '.join(given)} only appl{'ies' if len(given) == 1 else 'y'} to mode='pessimistic'; "
                             "mode='optimistic' solves Eq. (21) alone")
    run_kw = dict(time_limit=time_limit, mip_gap=mip_gap, threads=threads, race=race)
    if check_solver(solver) == "highs":
        refuse_solver_options(solver_options)
        options = tuning_options(highs_options, [X_t, X_v])
        tiny_notes = [f"HiGHS presolve off: feature(s) {tiny} are tiny next to the others (the UserWarning)"
                      ] if tiny and "presolve" not in (highs_options or {}) else []  # the rule tuning_options applies
        solve_kw = dict(run_kw, options=options, clock=clock)
    else:
        solve_kw = _other_solver_kw(solver, solver_options, run_kw, highs_options, clock)
        tiny_notes = []

    if mode == "optimistic":
        t0 = time.perf_counter()
        model = build_optimistic_model(X_t, y_t, X_v, y_v, w_bar_bounds)
        build = time.perf_counter() - t0
        build_lp = model.bilevel_info["lp_seconds"]
        start, start_seconds = _timed_start(model, warm_start)

        def make_search(m):
            return _box_improver(m, [m.bilevel_info["w_bar_ub"]], 0.0, start_seconds, clock) if warm_start else {}

        def rebuild(cutoff):
            return build_optimistic_model(X_t, y_t, X_v, y_v, w_bar_bounds, objective_cutoff=cutoff)
        try:
            model, info, total, restarts = _solve_with_cutoffs(model, start, make_search, solve_kw, cutoff_restarts,
                                                               rebuild)
        except InfeasibleModelError:
            # Every w_bar in its bounds has an inner optimum, and the big-Ms keep one (bilevel.bigm): the MILP
            # is feasible, so the report is HiGHS's error (e.g. HiGHS issue #3307), not a property of the data.
            raise SolverError(f"{SOLVER_NAMES[solver]} reports the optimistic MILP infeasible, but it has a "
                              "bilevel-feasible point at every w_bar in its bounds (the inner LP's optimum): a "
                              f"{SOLVER_NAMES[solver]} failure" + ("; retry with the HiGHS option presolve=off"
                                                                   if solver == "highs" else "")) from None
        return _result("optimistic", model, info, build, total, tolerance, notes=tiny_notes,
                       start_seconds=start_seconds, restarts=restarts, build_lp_seconds=build_lp, solver=solver,
                       feature_names=names)

    if optimistic is None:
        with warnings.catch_warnings():
            # the tiny features were warned of above: a pessimistic call on such data warned twice, word for word
            warnings.filterwarnings("ignore", TINY_FEATURE_WARNING, UserWarning)
            optimistic = tune(X_t, y_t, X_v, y_v, "optimistic", w_bar_bounds=w_bar_bounds, tolerance=tolerance,
                              warm_start=warm_start, highs_options=highs_options, cutoff_restarts=cutoff_restarts,
                              clock=clock, solver=solver, solver_options=solver_options, **run_kw)
        optimistic.feature_names = names
    else:
        _check_optimistic(optimistic, X_t, y_t, X_v, y_v, lb, ub)
    flipped, rule = flipped_set(X_v, y_v, optimistic.w, optimistic.b, flip)
    # With epsilon = 0 and a training-optimal replica the follower is a training optimum, which the
    # optimistic leader could have chosen: the optimistic best bound is a valid floor (Proposition 1). Its
    # budget row is then degenerate (always tight), which sets the starting lambda bound (docstring).
    degenerate = _degenerate_budget(eps, replica)
    floor = optimistic.best_bound if degenerate else 0.0
    t0 = time.perf_counter()
    if lambda_bound is None:
        lambda_bound = starting_lambda_bound(eps, replica, max_lambda_bound)
    bound, history = float(lambda_bound), [float(lambda_bound)]
    boxes = _start_boxes(optimistic, w_bar_bounds)
    start_kw = dict(w_bar=boxes[0], candidates=boxes[1:], stop_at=floor)
    notes, ver = list(tiny_notes), None  # ver: verification of the solution now in the model, when already computed
    start_seconds, infeasible_seconds = 0.0, 0.0

    def make_search(m):
        return _box_improver(m, boxes, floor, start_seconds / len(boxes), clock) if warm_start else {}

    def rebuild(cutoff):
        return build_pessimistic_model(X_t, y_t, X_v, y_v, flipped, eps, w_bar_bounds, bound, replica,
                                       objective_floor=floor if floor > 0 else None, objective_cutoff=cutoff)
    while True:
        # The start's LPs need the data only, so the start comes first and the model is built once, around the
        # start's value unless the start meets the floor (item 10 of bilevel.bigm; see _initial_model).
        start = None
        if warm_start:
            start = best_start(pessimistic_info(X_t, y_t, X_v, y_v, flipped, eps, w_bar_bounds, bound, replica),
                               **start_kw)
        start_seconds += time.perf_counter() - t0
        t1 = time.perf_counter()
        model = _initial_model(rebuild, start, floor, cutoff_restarts)
        build = time.perf_counter() - t1
        build_lp = model.bilevel_info["lp_seconds"]
        pairs = None if start is None else start_pairs(start[0], model)
        try:
            model, info, total, restarts = _solve_with_cutoffs(model, pairs, make_search, solve_kw, cutoff_restarts,
                                                               rebuild, floor)
            break
        except InfeasibleModelError as exc:  # the bound leaves no follower: only a bound too small does that
            if bound * lambda_growth > max_lambda_bound * (1 + 1e-12):
                raise InfeasibleModelError(
                    f"the pessimistic MILP is infeasible with every lambda bound tried "
                    f"({', '.join(f'{b:g}' for b in history)}): the follower optima may all need a larger lambda "
                    f"(e.g. training features much smaller than the validation features); raise max_lambda_bound "
                    f"(now {max_lambda_bound:g}) [{exc}]") from None
            infeasible_seconds += time.perf_counter() - t1  # its build and solve (the start is in start_seconds)
            notes.append(f"the MILP with lambda bound {bound:g} is infeasible; "
                         f"re-solved with {bound * lambda_growth:g}")
            bound *= lambda_growth
            history.append(bound)
            t0 = time.perf_counter()
    total += infeasible_seconds
    ceiling = max_lambda_bound
    # A solution that fails verification at its bound is ill-conditioned there (kappa = 1/(1 + lambda) small):
    # step the bound down until one verifies. One that fails below its bound is not cured by a smaller bound,
    # which would only cut off its lambda and with it, possibly, the optimum (a solution with lambda 25.7 at
    # bound 1e3, failing by an inner gap of 1.7e-5, was replaced by a verified 1.0 at bound 10 against the
    # optimum 0.6017): it is returned, flagged. Degenerate budgets started high and stop at _LAMBDA_START; otherwise
    # (e.g. epsilon > 0 on a training set the box separates, where the budget (1 + epsilon) 0 is degenerate
    # too) down to _LAMBDA_LOWEST.
    lowest = _LAMBDA_START if degenerate else _LAMBDA_LOWEST
    if bound / lambda_growth >= lowest * (1 - 1e-12):
        ver = verify_tightest_box(model, tolerance=tolerance)
        while not ver.verified and at_lambda_bound(model) and bound / lambda_growth >= lowest * (1 - 1e-12):
            failed, bound = bound, bound / lambda_growth
            history.append(bound)
            set_lambda_bound(model, bound)
            solved, seconds, failed_seconds = _solved_from_start(model, warm_start, start_kw, solve_kw)
            start_seconds += seconds
            total += failed_seconds
            if solved is None and model.bilevel_info["objective_cutoff"] is not None:
                # The cutoff row (the value of a start or an incumbent at the larger bound) can exclude every
                # point the smaller bound keeps: solve the model without it before giving up.
                t1 = time.perf_counter()
                plain = rebuild(None)
                total += time.perf_counter() - t1
                solved, seconds, failed_seconds = _solved_from_start(plain, warm_start, start_kw, solve_kw)
                start_seconds += seconds
                total += failed_seconds
                model = plain if solved is not None else model
            if solved is None:  # keep the (unverified, flagged) solution of the larger bound
                bound = failed
                set_lambda_bound(model, bound)
                break
            info = solved
            total += info.seconds
            ver = verify_tightest_box(model, tolerance=tolerance)
            ceiling = bound
            notes.append(f"the solve with lambda bound {failed:g} failed verification (ill-conditioned); "
                         f"re-solved with bound {bound:g}")
    # A larger bound on lambda only enlarges the feasible set, so the objective can only improve, and
    # never below the floor. Escalate while the solution touches the bound and could still improve.
    lambda_max = model.bilevel_info["lambda_max"]  # a bound at or above it cuts off nothing (bilevel.bigm item 11)
    # A solution below its bound certifies nothing either when the bound is below a known lambda_max: the bound
    # cuts off every follower whose lambda exceeds it, and the optimum may be one (epsilon 1e-3, training
    # features 1e4 times smaller than the validation ones in one column: 0.3016 at bound 1e3, lambda below it,
    # against the optimum 0, which bound 1e4 <= max_lambda_bound reaches). Such a solution gets one re-solve at
    # min(lambda_max, ceiling): exact in lambda when lambda_max <= max_lambda_bound.
    while info.objective > floor + tolerance and bound < lambda_max and (
            bound * lambda_growth <= ceiling if at_lambda_bound(model)
            else np.isfinite(lambda_max) and bound < min(lambda_max, ceiling)):
        start = loaded_start(model)
        previous = (bound, info)
        bound = bound * lambda_growth if at_lambda_bound(model) else float(min(lambda_max, ceiling))
        history.append(bound)
        set_lambda_bound(model, bound)
        info = _solve(model, mip_start=start, **solve_kw)
        total += info.seconds
        ver = verify_tightest_box(model, tolerance=tolerance)
        if not ver.verified:
            # A large bound makes kappa = 1/(1 + lambda) tiny and the KKT system ill-conditioned: keep the
            # solution of the previous bound rather than an answer that fails verification.
            for var, value in start:
                var.set_value(value, skip_validation=True)
            bound, info, ver = *previous, None
            set_lambda_bound(model, bound)
            notes.append(f"the solve with lambda bound {history[-1]:g} failed verification (ill-conditioned); "
                         f"kept the solution with bound {bound:g}")
            break
    if at_lambda_bound(model):
        if info.objective <= floor + tolerance:
            notes.append(f"the objective equals its lower bound {floor:.6g} (0, or the optimistic best bound when "
                         "epsilon = 0, Proposition 1), so no larger lambda bound can improve it")
        elif bound >= lambda_max:
            notes.append(f"lambda touches its bound, but every follower optimum has lambda <= {lambda_max:.6g} "
                         "(item 11 of bilevel.bigm), so no larger bound can improve it")
        else:
            larger = sorted({h for h in history if h > bound})
            notes.append("a larger lambda bound might allow a better objective (see lambda_history)" + (
                f", but the solutions with the larger bound(s) tried ({', '.join(f'{h:g}' for h in larger)}) failed "
                "verification" if larger else ""))
    elif bound < lambda_max and info.objective > floor + tolerance:
        # A solution below its bound certifies nothing: the bound cuts off every point whose smallest valid lambda
        # exceeds it (with epsilon = 0 the valid lambdas of a point form a half-line, and HiGHS returns any value
        # in it up to the bound: a solution with lambda 9785 at bound 1e4 reached 0.6667 against the optimum 0,
        # which needs lambda 1.6e4). Only a bound at or above lambda_max (item 11 of bilevel.bigm) keeps them all.
        if np.isfinite(lambda_max):
            notes.append(f"lambda bound {bound:g} is below lambda_max {lambda_max:.6g}: followers with a larger "
                         "lambda were not considered, so a larger bound might allow a better objective")
        else:
            why = ("epsilon = 0" if eps == 0 else "replica='feasible'" if replica == "feasible"
                   else "the training set is separable inside the box: least training loss 0 at w_bar_ub")
            notes.append(f"lambda bound {bound:g}: no bound on lambda at the follower optima is known (lambda_max = "
                         f"inf: {why}), so followers with a larger lambda were not considered and a larger bound "
                         "might allow a better objective")
    return _result(
        "pessimistic", model, info, build, total, tolerance, notes=notes, verification=ver, epsilon=eps,
        replica=replica, flip_rule=rule, flipped=flipped,
        w_hat=_values(model.w_hat) if hasattr(model, "w_hat") else _values(model.w),
        b_hat=float(model.b_hat.value) if hasattr(model, "b_hat") else float(model.b.value),
        lambda_bound=bound, lambda_history=history,
        lambda_max=lambda_max, optimistic=optimistic, start_seconds=start_seconds, restarts=restarts,
        build_lp_seconds=build_lp, solver=solver, feature_names=names,
    )
