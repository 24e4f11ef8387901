"""A bilevel-feasible MIP start for the tuning MILPs, built from LPs at a fixed box ``w_bar``.

Without a start HiGHS can spend long finding any feasible point of a KKT + big-M model (on pessimistic instances of
|T| = |V| = 20 it found none in 30 s). At a fixed box (``w_bar_ub`` by default, or the best of several candidate
boxes) the follower's problem is an LP: solve it (and, for the pessimistic model, the training LP that sets the
budget) with :func:`bilevel.hinge_highs.hinge_lp_highs`, take the primal *and dual* optimal values, and set every
binary from which side of its complementarity pair is zero (at LP round-off, the smaller side). Among the follower's
optima the start takes one with the least outer objective, the best tie the MILP could choose there. By the
complementary slackness theorem the point satisfies the KKT system of the inner LP of Eq. (21) / Eq. (25) of the
pessimistic bilevel tuning paper, so it is feasible for the MILP whenever its multipliers respect the bounds
(``lambda <= lambda_bound``).
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from .bigm import stationarity_scale
from .errors import InputError, SolverError
from .hinge_highs import hinge_lp_highs as hinge_lp
from .inner import relaxed_hinge_lp, unchecked_hinge as hinge
from .validation import as_float_array, as_number, check_bilevel_model, is_boolean

_TOL = 1e-9
_ZERO = 1e-7  # a complementarity side below this counts as zero (HiGHS feasibility tolerance 1e-6)
_TIE = 1e-10  # slack on the follower's optimum in the tie-breaking LP


def _assign(values: list, name: str, array) -> None:
    """Queue ``array`` as the values of the model variable named ``name`` (indexed: in its index order;
    scalar: one number); :func:`start_pairs` expands the queue on a model, so that a start needs no model
    to be computed and the boxes a search discards never touch Pyomo's variables."""
    values.append((name, np.array(array, dtype=float)))


def start_pairs(values: list, model: pyo.ConcreteModel) -> list:
    """The ``(VarData, value)`` pairs of ``model`` for a queue of ``(variable name, values)`` (from
    :func:`queued_start` / :func:`best_start` on this model's ``bilevel_info`` or on one of the same data and
    structure), leaving out fixed variables (e.g. the points a cutoff decides). Raises AttributeError if
    the model has no variable of a queued name."""
    out = []
    for name, value in values:
        var = model.component(name)
        if var is None:
            raise AttributeError(f"the model has no variable {name!r} for the MIP start")
        if var.is_indexed():
            out.extend((v, x) for v, x in zip(var.values(), value.tolist()) if not v.fixed)
        elif not var.fixed:
            out.append((var, float(value)))
    return out


def loaded_start(model: pyo.ConcreteModel) -> list:
    """The values loaded in ``model``'s variables (e.g. its last solution) as ``(VarData, value)`` pairs, a MIP
    start for :func:`bilevel.solve_model`; variables without a value are left out."""
    return [(v, v.value) for v in model.component_data_objects(pyo.Var) if v.value is not None]


def start_by_name(pairs: list, model: pyo.ConcreteModel) -> list:
    """``(VarData, value)`` pairs of another model (e.g. :func:`loaded_start` of a model of the same data
    built around another cutoff) as pairs of ``model``'s free variables of the same names; names ``model``
    lacks, and its fixed variables, are left out."""
    values = {v.name: x for v, x in pairs}
    return [(v, values[v.name]) for v in model.component_data_objects(pyo.Var) if not v.fixed and v.name in values]


def _binaries(values: list, name: str, p_sides: list, q: np.ndarray) -> None:
    """``z_<name> = 1`` (``q <= M (1 - z)``: the q-side must vanish) where the q-side is zero or smaller than
    every p-side; else 0 (every p-side must vanish). At an exact complementary pair one side is zero; at LP
    round-off this keeps the row violation at the smaller side, ``min(max p, q)``."""
    q = np.asarray(q, dtype=float)
    p = np.max(np.vstack([np.broadcast_to(np.asarray(a, dtype=float), q.shape) for a in p_sides]), axis=0)
    _assign(values, f"z_{name}", ((q <= _ZERO) | (q <= p)).astype(float))


def _training_kkt(values, X, y, lp, tag, w, b, own_primal, scale):
    """Values of the LP-SVM duals ``beta{tag}``, ``mu_plus{tag}``, ``mu_minus{tag}`` of Eq. (20) (the box
    multipliers divided by ``scale`` (p,), :func:`bilevel.bigm.stationarity_scale`, as the model holds them)
    and, when ``own_primal``, of the primal ``w{tag}``, ``b{tag}``, ``xi{tag}``. Returns the hinge values
    (|T|,) and the p-sides of the complementarity pairs ``beta``, ``xi``, ``mu_plus``, ``mu_minus`` (a dict)."""
    xi = hinge(X, y, w, b)
    if own_primal:  # the replica's own primal variables
        _assign(values, f"w{tag}", w)
        _assign(values, f"b{tag}", b)
        _assign(values, f"xi{tag}", xi)
    beta = np.clip(lp.hinge_duals[0], 0.0, 1.0 / len(y))
    mu = (lp.mu_plus - lp.mu_minus) / scale
    _assign(values, f"beta{tag}", beta)
    _assign(values, f"mu_plus{tag}", np.maximum(mu, 0.0))
    _assign(values, f"mu_minus{tag}", np.maximum(-mu, 0.0))
    return xi, {"beta": beta, "xi": 1.0 / len(y) - beta, "mu_plus": np.maximum(mu, 0.0),
                "mu_minus": np.maximum(-mu, 0.0)}


def _best_tie(w_bar, outer, constraints, fallback, duals):
    """``(w, b)`` minimising the outer hinge over the follower's optimal face (``constraints``: mean-hinge
    budgets, the last one the follower's optimum), with ``w`` on the bounds the box duals ``duals`` make
    active (:func:`_active_bounds`). Should round-off make that LP fail, the same LP without holding ``w``
    there, then ``fallback``, each moved onto those bounds."""
    fixed = _active_bounds(w_bar, duals)
    for held in (fixed, None):
        try:
            lp = hinge_lp(w_bar, outer, [(X, y, rhs + _TIE) for X, y, rhs in constraints], fixed=held)
        except SolverError:
            continue
        w, b = lp.w, lp.b
        break
    else:
        w, b = fallback
    return np.where(np.isnan(fixed), w, fixed), b


def _active_bounds(w_bar: np.ndarray, duals) -> np.ndarray:
    """``sign(mu_j) w_bar_j`` (p,) where an LP's box dual ``mu`` (p,), ``mu_plus - mu_minus``, is above round-off
    (``_TOL`` times the largest ``|x_ij|`` of the LP's data ``X``), NaN elsewhere; ``duals`` a sequence of
    ``(mu, X)``, a later one overriding an earlier one. Complementarity (``mu+_j (w_bar_j - w_j) = 0``, the KKT
    system of Eq. (21)'s inner LP / Eq. (25)) puts every optimum of that LP on these bounds. The tie LP holds
    ``w_j`` there: with the follower's optimum relaxed by ``_TIE`` it could leave the bound by up to
    ``_TIE / |mu_j|`` (1.6e-5 with features of order 1e-3, a start HiGHS rejected), and moving ``w_j`` back afterwards
    shifted every margin by as much (a budget row violated by 2.9e-6 with ``|mu_j|`` = 1.6e-4)."""
    fixed = np.full(len(w_bar), np.nan)
    for mu, X in duals:
        active = np.abs(mu) > _TOL * np.abs(X).max(axis=0, initial=0.0)
        fixed = np.where(active, np.sign(mu) * w_bar, fixed)
    return fixed


def kkt_start(model: pyo.ConcreteModel, w_bar=None, candidates=(), stop_at: float = -np.inf):
    """A MIP start for a model of :func:`bilevel.build_optimistic_model` or
    :func:`bilevel.build_pessimistic_model`, as a list of ``(VarData, value)`` pairs for
    :func:`bilevel.solve_model`, or ``None`` when the LP point does not fit the model (its ``lambda``
    exceeds the bound, or a custom flipped set leaves nothing to start from). Never raises for a
    well-formed model; HiGHS checks the start itself and ignores it if it is infeasible.

    ``w_bar`` (p,): the box of the start, inside the model's ``w_bar`` bounds (default ``w_bar_ub``).
    Among the follower's optima at that box the start takes one with the least outer objective (a second
    LP over the follower's optimal face; the duals of the first LP stay valid for every primal optimum).
    ``candidates``: further boxes (each (p,), clipped to the model's bounds), e.g. the optimistic solution's
    ``w_bar`` for a pessimistic model; the start with the least outer objective among all boxes is returned.
    ``stop_at``: a known lower bound on the MILP's optimum; the search over the boxes stops at a start that
    reaches it (the start is then optimal).

    A heuristic of this package, not of the paper: the LPs are Eq. (20) of the pessimistic bilevel tuning paper
    (and its epsilon-budget form) at a fixed box, completed to a point of Eq. (21) or (25).

    Raises InputError when ``model`` was not built by this package, ``candidates`` is not a sequence, a box is
    not a finite (p,) array, ``w_bar`` lies outside the model's bounds ``w_bar_lb``, ``w_bar_ub`` (by more than 1e-9
    relative), or ``stop_at`` is not a number or is NaN.
    """
    info = check_bilevel_model(model, "kkt_start")
    p = len(info["w_bar_ub"])
    if w_bar is not None:
        w_bar = _checked_box(w_bar, p, "w_bar")
        lb, ub = (np.asarray(info[k], dtype=float) for k in ("w_bar_lb", "w_bar_ub"))
        outside = (w_bar < lb - 1e-9 * (1 + np.abs(lb))) | (w_bar > ub + 1e-9 * (1 + np.abs(ub)))
        if outside.any():  # [2, 2] in [0, 1] was clipped to [1, 1] without a word: a start at another box
            j = int(np.argmax(outside))
            raise InputError(f"w_bar[{j}] = {w_bar[j]:g} lies outside the model's w_bar bounds [{lb[j]:g}, {ub[j]:g}]; "
                             "the start's box must lie inside them (candidates are clipped to them)")
    if isinstance(candidates, (str, bytes)) or not np.iterable(candidates):
        raise InputError(f"candidates must be a sequence of boxes of shape ({p},); got {candidates!r}")
    if type(candidates).__module__.startswith("pandas") and getattr(candidates, "ndim", 1) == 2:
        candidates = candidates.to_numpy()  # a DataFrame iterates over its column labels, not its rows (boxes)
    candidates = [_checked_box(box, p, f"candidates[{k}]") for k, box in enumerate(candidates)]
    stop_at = as_number(stop_at, "stop_at")
    if np.isnan(stop_at):
        raise InputError("stop_at must be a lower bound on the MILP's optimum (a number or -inf); got nan")
    best = best_start(info, w_bar, candidates, stop_at)
    return None if best is None else start_pairs(best[0], model)


def _checked_box(box, p: int, name: str) -> np.ndarray:
    """``box`` as a finite (p,) float array; InputError naming ``name`` otherwise."""
    if is_boolean(box):  # [True, True] was read as the box 1 (hinge_lp and check_w_bar_bounds refuse it too)
        raise InputError(f"{name} must hold numbers, not booleans; got {box!r}")
    box = as_float_array(box, name, f"a box of {p} numbers")
    if box.shape != (p,) or not np.isfinite(box).all():
        raise InputError(f"{name} must be a finite box of shape ({p},); got {box!r}")
    return box


def best_start(info: dict, w_bar=None, candidates=(), stop_at: float = -np.inf):
    """:func:`kkt_start` on a model's ``bilevel_info`` (or :func:`bilevel.pessimistic.pessimistic_info`,
    before the model is built), with the values queued: ``(queue, outer objective)`` of the best box (expand
    the queue on a model with :func:`start_pairs`), or ``None``. A box whose LPs fail (SolverError) gives no
    start."""
    lb, ub = (np.asarray(info[k], dtype=float) for k in ("w_bar_lb", "w_bar_ub"))
    best = None
    for box in [ub if w_bar is None else w_bar, *candidates]:
        try:
            start = queued_start(info, np.clip(np.asarray(box, dtype=float), lb, ub))
        except SolverError:  # an LP at this box failed (round-off): no start from it, as in the box search
            continue
        if start is not None and (best is None or start[1] < best[1]):
            best = start
            if best[1] <= stop_at + _TOL:
                break
    return best


def start_at(model: pyo.ConcreteModel, w_bar: np.ndarray):
    """:func:`kkt_start` at one box ``w_bar`` (p,), inside the model's bounds: the KKT point of Eq. (21) /
    Eq. (25) of the pessimistic bilevel tuning paper at that box, as ``(values, outer objective)`` (values:
    ``(VarData, value)`` pairs; the objective in mean-validation-hinge units), or ``None`` when the point
    does not fit the model (``lambda`` above its bound). Raises SolverError when one of its LPs fails."""
    start = queued_start(model.bilevel_info, w_bar)
    return None if start is None else (start_pairs(start[0], model), start[1])


def queued_start(info: dict, w_bar: np.ndarray):
    """:func:`start_at` from a model's ``bilevel_info`` alone, with the values queued by variable name
    (expand them on a model with :func:`start_pairs`): what a search over boxes evaluates, paying for
    Pyomo's variables only at the box it keeps, and what a start computed before its model is built is."""
    X_t, y_t, X_v, y_v = info["X_train"], info["y_train"], info["X_val"], info["y_val"]
    scale = stationarity_scale([X_t, X_v])  # the model's box multipliers are mu+-_j / s_j (item 12 of bilevel.bigm)
    values: list = []
    _assign(values, "w_bar", w_bar)
    train = hinge_lp(w_bar, (X_t, y_t))
    if info["mode"] == "optimistic":
        w, b = _best_tie(w_bar, (X_v, y_v), [(X_t, y_t, train.value)], (train.w, train.b),
                         [(train.mu_plus - train.mu_minus, X_t)])
        xi, p_side = _training_kkt(values, X_t, y_t, train, "", w, b, own_primal=False, scale=scale)
        q_side = {"beta": xi + y_t * (X_t @ w - b) - 1, "xi": xi, "mu_plus": w_bar - w, "mu_minus": w_bar + w}
        pairs = {name: ([p_side[name]], q) for name, q in q_side.items()}
    else:
        Vf, eps = info["flipped"], info["epsilon"]
        X_f, ybar = X_v[Vf], -y_v[Vf]
        # the budget at the least training loss can be called infeasible by round-off (diabetes 13/6 split 8 at
        # one box raised SolverError from tune): a larger round-off slack, then none (best_start skips the box)
        follower, budget = relaxed_hinge_lp(w_bar, (X_f, ybar), [(X_t, y_t, (1 + eps) * train.value)],
                                            (_TOL, 1e-7 * (1 + train.value)), solve=hinge_lp)
        lam = float(follower.budget_duals[0])
        if lam > info["lambda_bound"]:
            return None
        kappa = 1.0 / (1.0 + lam)
        duals = [(follower.mu_plus - follower.mu_minus, np.vstack([X_f, X_t]))]
        if info.get("shared_replica"):  # the training duals share the follower's binaries: their bounds too
            duals.append((train.mu_plus - train.mu_minus, X_t))
        w, b = _best_tie(w_bar, (X_v, y_v), [(X_t, y_t, budget), (X_f, ybar, follower.value)],
                         (follower.w, follower.b), duals)
        xi = hinge(X_t, y_t, w, b)
        shared = {}  # p-sides of the training duals that share the follower's binaries (epsilon = 0)
        if info.get("shared_replica"):
            _, shared = _training_kkt(values, X_t, y_t, train, "_hat", w, b, own_primal=False, scale=scale)
            xi_hat = None
        elif info.get("replica") == "optimal":
            xi_hat, p_hat = _training_kkt(values, X_t, y_t, train, "_hat", train.w, train.b, own_primal=True,
                                        scale=scale)
            f_hat = X_t @ train.w - train.b
            for name, q in (("beta", xi_hat + y_t * f_hat - 1), ("xi", xi_hat),
                            ("mu_plus", w_bar - train.w), ("mu_minus", w_bar + train.w)):
                _binaries(values, f"{name}_hat", [p_hat[name]], q)
        else:  # "feasible" (Eq. (24) as printed): the training optimum is one feasible replica, without a KKT system
            xi_hat = hinge(X_t, y_t, train.w, train.b)
            _assign(values, "w_hat", train.w)
            _assign(values, "b_hat", train.b)
            _assign(values, "xi_hat", xi_hat)
        alpha, beta_f = follower.hinge_duals
        mu = follower.mu_plus - follower.mu_minus
        _assign(values, "kappa", kappa)
        _assign(values, "lam", 1.0 - kappa)
        alpha_n = np.clip(kappa * alpha, 0.0, kappa / len(Vf))
        beta_n = np.clip(kappa * beta_f, 0.0, (1.0 - kappa) / len(y_t))
        mu_p, mu_m = np.maximum(kappa * mu / scale, 0.0), np.maximum(-kappa * mu / scale, 0.0)
        for name, array in (("alpha", alpha_n), ("beta", beta_n), ("mu_plus", mu_p), ("mu_minus", mu_m)):
            _assign(values, name, array)
        v = hinge(X_f, ybar, w, b)
        _assign(values, "v", v)
        _assign(values, "xi", xi)
        p_side = {"v": kappa / len(Vf) - alpha_n, "alpha": alpha_n, "beta": beta_n,
                  "xi": (1.0 - kappa) / len(y_t) - beta_n, "mu_plus": mu_p, "mu_minus": mu_m}
        q_side = {"v": v, "alpha": v + ybar * (X_f @ w - b) - 1, "beta": xi + y_t * (X_t @ w - b) - 1, "xi": xi,
                  "mu_plus": w_bar - w, "mu_minus": w_bar + w}
        pairs = {name: ([p_side[name]] + ([shared[name]] if name in shared else []), q) for name, q in q_side.items()}
        if xi_hat is not None:
            pairs["lam"] = ([1.0 - kappa], np.array([(1 + eps) * xi_hat.mean() - xi.mean()]))
    _assign(values, "w", w)
    _assign(values, "b", b)
    if info["mode"] == "optimistic":
        _assign(values, "xi", xi)
    g = hinge(X_v, y_v, w, b)
    _assign(values, "g", g)
    for name, (p_sides, q) in pairs.items():
        _binaries(values, name, p_sides, q)
    return values, float(g.mean())
