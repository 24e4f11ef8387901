r"""Ties in the optimistic solution: how far apart are the optimal answers of the optimistic MILP?

With few training points the optimistic bilevel problem, Eq. (21) of *Hyperparameter Tuning Through
Pessimistic Bilevel Optimization* (Ustun, Xu, Zeng, Qian), usually has many optimal ``(w_bar, w, b)``: the
very non-uniqueness the paper is about. Which one a MILP solver returns is an accident of its search, and
so is the test accuracy of "the optimistic solution". :func:`optimistic_tie_range` measures the spread.

Given a solved optimistic model with optimal value ``F*`` (mean validation hinge loss), it solves the
lexicographic second stage twice::

    min / max   c(w_bar, w, b)
    s.t.        all constraints of the optimistic KKT + big-M MILP (Eq. (21), bilevel.optimistic)
                (1/|V|) sum_k g_k <= F* + tolerance                      (outer objective kept optimal)

where the secondary criterion ``c`` never looks at test data:

- ``"sum_w_bar"``: ``sum_j w_bar_j``, the size of the tuned box (smallest / largest optimal box);
- ``"val_margin"``: ``(1/|V|) sum_k y_k (x_k^T w - b)``, the mean signed validation margin of the
  follower's model (least / most confident optimal model on the validation points);
- a callable ``model -> linear Pyomo expression`` over the model's variables.

``sum_w_bar`` moves the hyperparameters, but a box bound that is not active at ``(w, b)`` can grow without
changing the model, so its two extremes often predict alike; ``val_margin`` moves ``(w, b)`` itself. Both are
solved with :func:`bilevel.solve_model` (HiGHS; or Gurobi / CPLEX through :func:`bilevel.other_solvers.solve_other`,
by default the solver of the result), starting from the returned optimum (a MIP start), and each
extreme is re-verified independently (:func:`bilevel.verify_model`: ``(w, b)`` must be a training optimum at
its ``w_bar``, within the verification tolerance).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numvalue import NumericValue
from pyomo.core.expr.visitor import identify_variables

from .errors import InputError
from .inner import hinge
from .optimistic import build_optimistic_model
from .other_solvers import check_solver, solve_other
from .solve import InfeasibleModelError, check_highs_option, solve_model
from .tune import LinearClassifier, _other_solver_kw, refuse_solver_options, tuning_options
from .validation import SOLVER_NAMES, check_positive, value_text
from .verify import Verification, solution_w_bar, verify_model
from .warmstart import loaded_start, start_by_name

#: Built-in secondary criteria (see the module docstring).
CRITERIA = ("sum_w_bar", "val_margin")


@dataclass
class TieSolution(LinearClassifier):
    """One extreme of the optimal set. ``sense`` is ``"min"`` or ``"max"``; ``criterion_value`` the value of
    the secondary criterion; ``w_bar`` (p,), ``w`` (p,), ``b`` the model (``f(x) = x^T w - b``);
    ``objective`` its mean validation hinge loss (the outer objective, within ``tolerance`` of the optimum);
    ``status`` the solver's status of this solve (``"optimal"``, ``"time_limit"``, ...); ``best_bound`` its
    bound on the criterion (``<= criterion_value`` for ``"min"``, ``>=`` for ``"max"``; criterion units, +-inf
    when none); ``gap`` its relative gap ``|criterion_value - best_bound| / |criterion_value|``;
    ``nodes`` the branch-and-bound node count; ``seconds`` solver time (all from :class:`bilevel.SolveInfo`);
    ``verification`` the independent check of the solution."""

    sense: str
    criterion_value: float
    w_bar: np.ndarray
    w: np.ndarray
    b: float
    objective: float
    status: str
    seconds: float
    verification: Verification
    best_bound: float
    gap: float
    nodes: int


@dataclass
class TieRange:
    """The two extremes of the optimal set of an optimistic solve under one secondary criterion.

    ``low`` minimises and ``high`` maximises the criterion (so ``low.criterion_value <=
    high.criterion_value`` when both solves are optimal); ``reference_objective`` is the optimum ``F*`` that
    was fixed and ``tolerance`` the allowance above it. Unpacks as ``low, high = tie_range``."""

    criterion: str
    tolerance: float
    reference_objective: float
    low: TieSolution
    high: TieSolution

    def __iter__(self) -> Iterator[TieSolution]:
        return iter((self.low, self.high))


def _values(var) -> np.ndarray:
    return np.array([var[k].value for k in var], dtype=float)


def _around_optimum(model: pyo.ConcreteModel, cutoff: float):
    """The optimistic MILP of ``model``'s data and ``w_bar`` bounds built around the objective ``cutoff``
    (:func:`bilevel.build_optimistic_model` with ``objective_cutoff``, item 10 of :mod:`bilevel.bigm`): its row
    ``objective_cutoff`` is the tie row, and every bilevel-feasible ``(w_bar, w, b)`` with objective
    ``<= cutoff`` stays feasible, so the extremes of a criterion on ``(w_bar, w, b)`` are those of the plain
    model with the tie row; its big-Ms are tighter and the training points the cutoff decides are fixed.
    ``None`` when the build fails (round-off put the optimum outside its own cutoff set)."""
    info = model.bilevel_info
    try:
        return build_optimistic_model(info["X_train"], info["y_train"], info["X_val"], info["y_val"],
                                      (info["w_bar_lb"], info["w_bar_ub"]), objective_cutoff=cutoff)
    except InputError:
        return None


def _exact_outer_hinge(model: pyo.ConcreteModel) -> None:
    """Set each ``g_k`` of the solution loaded in ``model`` to the validation hinge of its ``(w, b)``, so that the
    extreme's reported objective (the mean of ``g``) is its true validation hinge. With the outer objective
    deactivated nothing presses ``g_k`` down to the hinge: HiGHS may leave it anywhere up to the tie row's
    allowance (the objective was then above the true validation hinge and failed verification). It may also leave
    ``g_k`` below the hinge by its feasibility tolerance: with ``tolerance=0`` the ``val_margin`` maximum on a
    4/2-point instance reported the optimum ``F*`` itself where its validation hinge was ``F* + 2.5e-7``. The
    tie row ``mean(g) <= F* + tolerance`` then shows that excess rather than hiding it (``g`` appears only in the
    rows ``g_k >= hinge``, ``g_k >= 0`` and the tie row)."""
    info = model.bilevel_info
    exact = hinge(info["X_val"], info["y_val"], _values(model.w), float(model.b.value))
    for k, value in zip(model.g, exact):
        if model.g[k].value is not None:
            model.g[k].set_value(float(value), skip_validation=True)


def _criterion_expr(model: pyo.ConcreteModel, criterion):
    if callable(criterion):
        expr = criterion(model)
        if isinstance(expr, bool) or not isinstance(expr, (int, float, NumericValue)):
            # None, a string or an indexed component gave a raw Pyomo error (and logged lines) in the Objective
            raise InputError(f"the criterion must return a linear Pyomo expression (or a number); got "
                             f"{type(expr).__name__}: {expr!r:.60}")
        if isinstance(expr, NumericValue):
            for var in identify_variables(expr, include_fixed=True):
                if var.model() is not model:
                    # e.g. result.model's own w_bar: HiGHS solved it as a free column in its bounds (a w_bar range
                    # [0, 1] where the optimal set's is [0.5, 1]) and loaded its value into result.model
                    raise InputError(f"the criterion uses the variable {var.name!r}, which is not a variable of the "
                                     f"model it is given (use the argument's variables, not result.model's)")
        return expr
    if criterion == "sum_w_bar":
        return pyo.quicksum(model.w_bar[j] for j in model.w_bar)
    if criterion == "val_margin":
        X_v, y_v = model.bilevel_info["X_val"], model.bilevel_info["y_val"]
        n_v, p = X_v.shape
        return pyo.quicksum(
            float(y_v[k]) * (pyo.quicksum(float(X_v[k, j]) * model.w[j] for j in range(p)) - model.b)
            for k in range(n_v)
        ) / n_v
    raise InputError(f"criterion must be one of {', '.join(CRITERIA)} or a callable; got {value_text(criterion)}")


def optimistic_tie_range(
    result,
    criterion: str | Callable = "sum_w_bar",
    tolerance: float = 1e-6,
    time_limit: float | None = None,
    threads: int | None = None,
    mip_gap: float | None = None,
    verify_tolerance: float = 1e-5,
    highs_options: dict | None = None,
    solver: str | None = None,
    solver_options: dict | None = None,
) -> TieRange:
    """The two extremes, under a secondary criterion, of the optimal set of a solved optimistic MILP.

    Implements the lexicographic re-solve of the module docstring: the optimistic KKT + big-M MILP of
    Eq. (21) with the extra row ``validation_hinge <= result.objective + tolerance`` and the objective
    replaced by ``min`` and then ``max`` of the criterion. For the built-in criteria (functions of
    ``(w_bar, w, b)`` only) the MILP is built anew around that value (``objective_cutoff``, item 10 of
    :mod:`bilevel.bigm`: the same extremes, a tighter model; 0.65 of the time summed over 36 re-solve pairs at
    |T| = |V| = 10-30, values equal within HiGHS's default relative gap 1e-4); for a callable criterion,
    which may look at any variable, it is ``result.model`` cloned. ``result.model`` is never modified. Both
    solves start from the returned optimum, so each has an incumbent. A solve that HiGHS ends "optimal" at
    the root (node count 0 or 1) with presolve on is solved again with ``presolve="off"`` from the same start, in
    the time left (HiGHS 1.15.1's presolve has ended one so with a wrong bound and a non-extreme point); its
    ``seconds`` and ``nodes`` then sum both runs; with no time (or ``mip_max_nodes``) left for that check it is
    reported unproven, as :func:`bilevel.solve_model` reports one: status ``"time_limit"`` (or
    ``"solution_limit"``), an infinite bound and gap.

    Parameters
    ----------
    result : a :class:`bilevel.TuneResult` of ``mode="optimistic"`` (its ``model`` holds the solution).
    criterion : ``"sum_w_bar"`` (sum of the p box bounds, units of ``w``), ``"val_margin"`` (mean signed
        validation margin ``y_k (x_k^T w - b)``, units of the decision function) or a callable
        ``model -> linear Pyomo expression`` over the variables of the model it is given (a copy of
        ``result.model``). None of them uses test data.
    tolerance : absolute allowance (mean-hinge units, >= 0) above the optimal outer objective.
    time_limit : seconds per solve (two solves); a solve that stops early keeps the best solution found
        and reports a non-optimal ``status``. threads, mip_gap : HiGHS options (see :func:`bilevel.solve_model`).
    verify_tolerance : tolerance of :func:`bilevel.verify_model` for each extreme.
    highs_options : HiGHS options by name over :data:`bilevel.HIGHS_OPTIONS`, the options
        :func:`bilevel.tune` solves the optimistic MILP with (cuts at the root only, less strong
        branching, and RENS off: the re-solves start from an optimum, and RENS mostly re-finds it: the 1280
        re-solves of the Table A1 grid took 4.7 min summed instead of 8.5, see the README's *Run time measured
        here*). HiGHS only.
    solver : ``"highs"``, ``"gurobi"`` or ``"cplex"``: the MILP solver of both re-solves; ``None`` (default): the
        solver of ``result`` (:attr:`bilevel.TuneResult.solver`; HiGHS for a result without one). Gurobi and
        CPLEX solve the same models through :func:`bilevel.other_solvers.solve_other` (wall-clock ``time_limit``,
        their own presolve: the HiGHS root check below is HiGHS's alone).
    solver_options : Gurobi or CPLEX parameters by name (:func:`bilevel.other_solvers.check_solver_options`),
        only with such a ``solver``.

    Returns
    -------
    :class:`TieRange` with ``low`` (minimum of the criterion) and ``high`` (maximum), each a
    :class:`TieSolution` with ``w_bar`` (p,), ``w`` (p,), ``b``, objective, status, best bound, gap, nodes
    and verification.

    Raises
    ------
    InputError when ``result`` is not an optimistic result with a model and status ``"optimal"`` (a time-limited
    or gap-limited solve's objective is only an upper bound on the optimum: the range would reach beyond the optimal
    set), the criterion is unknown or not
    linear (or uses a variable of another model, e.g. ``result.model``'s own), ``tolerance`` is not a number
    >= 0 or ``verify_tolerance`` not one > 0, or for a bad ``time_limit``, ``threads``, ``mip_gap`` or
    ``highs_options`` (as :func:`bilevel.solve_model`: a rejected or unsafe option), an unknown ``solver``,
    ``highs_options`` with Gurobi or CPLEX or ``solver_options`` with HiGHS, a parameter the solver refuses, or a
    solver that cannot run here (not installed, no license);
    SolverError (incl. NoSolutionError) when the solver fails; InfeasibleModelError (a SolverError) naming
    ``tolerance`` when the solver finds no point within it of ``result.objective`` (the result's own solution off
    its rows by more than the solver's tolerances: a larger ``tolerance`` includes it).
    """
    if getattr(result, "mode", None) != "optimistic" or getattr(result, "model", None) is None:
        raise InputError("optimistic_tie_range needs the TuneResult of an optimistic solve (mode='optimistic')")
    tolerance = check_positive(tolerance, "tolerance", allow_zero=True)
    verify_tolerance = check_positive(verify_tolerance, "verify_tolerance")
    if not (callable(criterion) or (isinstance(criterion, str) and criterion in CRITERIA)):  # an array was a
        # ValueError ("truth value of an array is ambiguous") from criterion == "sum_w_bar"
        raise InputError(f"criterion must be one of {', '.join(CRITERIA)} or a callable; got {value_text(criterion)}")
    if result.objective is None or not np.isfinite(result.objective):
        raise InputError("the optimistic result has no finite objective value")
    if getattr(result, "status", None) != "optimal":  # its objective is only an upper bound on the optimum
        raise InputError(f"optimistic_tie_range needs a proven optimum; the optimistic result's status is "
                         f"{getattr(result, 'status', None)!r}, so the points within tolerance of its objective "
                         "need not be optima: solve it to optimality first (a longer time_limit, the default mip_gap)")
    solver = check_solver(getattr(result, "solver", "highs") if solver is None else solver)
    if solver == "highs":
        refuse_solver_options(solver_options)
    else:  # tune's checks of the other solver's settings, and its solve arguments
        other_kw = _other_solver_kw(solver, solver_options, dict(time_limit=time_limit, mip_gap=mip_gap,
                                                                 threads=threads, race=1), highs_options, "seconds")
        del other_kw["solver"]  # (passed by position below)
    name = criterion if isinstance(criterion, str) else getattr(criterion, "__name__", "custom")
    reference = float(result.objective)
    model = _around_optimum(result.model, reference + tolerance) if isinstance(criterion, str) else None
    if model is None:
        model = result.model.clone()
        model.tie_objective = pyo.Constraint(expr=model.validation_hinge.expr <= reference + tolerance)
    start = start_by_name(loaded_start(result.model), model)
    model.validation_hinge.deactivate()
    expr = _criterion_expr(model, criterion)
    model.tie_criterion = pyo.Objective(expr=expr, sense=pyo.minimize)
    if solver == "highs":
        options = tuning_options(highs_options, [model.bilevel_info["X_train"], model.bilevel_info["X_val"]])
    out = {}
    for sense in ("min", "max"):
        model.tie_criterion.sense = pyo.minimize if sense == "min" else pyo.maximize
        try:
            if solver == "highs":
                info = solve_model(model, time_limit=time_limit, mip_gap=mip_gap, threads=threads, mip_start=start,
                                   options=options)
            else:
                info = solve_other(model, solver, mip_start=start, **other_kw)
        except InfeasibleModelError:
            # the tie row left no point: the result's own solution is off its rows by more than HiGHS's tolerance
            # (features 1e-3 beside 270: its objective 3.5e-6 below the KKT enumeration's optimum, its cs_beta_q
            # row off by 1.2e-5) and the bare "HiGHS reports the model infeasible" named no way out
            label = SOLVER_NAMES[solver]
            raise InfeasibleModelError(
                f"{label} finds no point of the optimistic MILP within tolerance={tolerance:g} of the result's "
                f"objective {reference:.10g}: the result's solution is not feasible to {label}'s tolerances (e.g. "
                "features far smaller than others); retry with a larger tolerance") from None
        if (solver == "highs" and info.status == "optimal" and info.nodes <= 1
                and info.options.get("presolve", "choose") != "off"):
            # HiGHS 1.15.1's presolve has ended a tie re-solve "optimal" at the root with a wrong bound: the min of
            # sum_w_bar 0.3636 on a 5/4 model built around its optimum, where the KKT enumeration gives 0.3071
            # (presolve off finds it). A root-solved re-solve (node count 0, or 1: HiGHS counts the root once it
            # enters its tree) is cheap: it is checked without presolve, from the same start, in the time (and
            # the mip_max_nodes) left (144 re-solves of sizes 5-20: 29 at the root, 0.22 s more in all).
            left = None if time_limit is None else time_limit - info.seconds
            nodes_left = (check_highs_option("mip_max_nodes", options["mip_max_nodes"]) - info.nodes
                          if "mip_max_nodes" in options else None)
            if (left is None or left > 0) and (nodes_left is None or nodes_left > 0):
                again_options = {**options, "presolve": "off"}
                if nodes_left is not None:
                    again_options["mip_max_nodes"] = nodes_left
                again = solve_model(model, time_limit=left, mip_gap=mip_gap, threads=threads, mip_start=start,
                                    options=again_options)
                again.seconds += info.seconds
                again.nodes += info.nodes
                info = again
            else:
                # no time left to check it: the point stands, unproven, as solve_model reports an unchecked root
                # optimum (kept "optimal" here, the 5/4 model's min of sum_w_bar was 0.3636 with bound 0.3636)
                no_bound = -np.inf if sense == "min" else np.inf
                info = dataclasses.replace(info, status="time_limit" if nodes_left is None or nodes_left > 0
                                           else "solution_limit", best_bound=no_bound, gap=np.inf)
        _exact_outer_hinge(model)
        out[sense] = TieSolution(
            sense=sense, criterion_value=float(pyo.value(model.tie_criterion)), w_bar=solution_w_bar(model),
            w=_values(model.w), b=float(model.b.value), objective=float(pyo.value(model.validation_hinge.expr)),
            status=info.status, seconds=info.seconds, verification=verify_model(model, tolerance=verify_tolerance),
            best_bound=info.best_bound, gap=info.gap, nodes=info.nodes,
        )
        out[sense].feature_names = getattr(result, "feature_names", None)  # the result's training columns
    return TieRange(name, float(tolerance), reference, out["min"], out["max"])
