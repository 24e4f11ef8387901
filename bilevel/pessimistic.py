r"""The pessimistic bilevel tuning MILP: Eqs. (23)-(25) of the pessimistic bilevel tuning paper.

The leader chooses ``w_bar`` and a *replica* ``(w_hat, b_hat, xi_hat)`` of the training problem; the
follower minimises the mean hinge loss on the flipped validation points ``V_f`` (labels ``ybar = -y``)
among the models whose training loss is within ``(1 + epsilon)`` of the replica's::

    min   (1/|V|) sum_{k in V} g_k
    s.t.  g_k >= 1 - y_k (x_k^T w - b),  g_k >= 0                                (k in V, true labels)
          w_bar_lb <= w_bar <= w_bar_ub,   -w_bar <= w_hat <= w_bar
          xi_hat_i >= 1 - y_i (x_i^T w_hat - b_hat),  xi_hat_i >= 0             (i in T)
          (w, b, v, xi) in argmin { (1/|V_f|) sum_{k in V_f} v_k :
                 v_k >= 1 - ybar_k (x_k^T w - b), v_k >= 0,                     (dual alpha_k)
                 xi_i >= 1 - y_i (x_i^T w - b),  xi_i >= 0,                      (dual beta_i)
                 -w_bar <= w <= w_bar,                                           (duals mu+, mu-)
                 (1/|T|) sum_i xi_i <= (1 + epsilon) (1/|T|) sum_i xi_hat_i }    (dual lambda)

The inner LP is replaced by its KKT system, Eq. (25), written with *normalised* multipliers: every
multiplier of Eq. (25) is divided by ``1 + lambda``, and the objective's own multiplier
``kappa = 1/(1 + lambda)`` becomes a variable with ``kappa + lam = 1`` (``lam = lambda/(1 + lambda)``).
This is the same system (multiply back by ``1 + lambda``), but every multiplier now lies in ``[0, 1]``:
the big-M constants no longer grow with the bound on ``lambda``, which only enters as
``kappa >= 1/(1 + lambda_bound)``::

    normalisation   kappa + lam = 1,   kappa >= 1/(1 + lambda_bound)
    stationarity    -sum_{V_f} alpha_k ybar_k x_kj - sum_T beta_i y_i x_ij + mu+_j - mu-_j = 0   (w_j)
                    sum_{V_f} alpha_k ybar_k + sum_T beta_i y_i = 0                              (b)
                    0 <= alpha_k <= kappa/|V_f|        <- a constraint                           (v_k)
                    0 <= beta_i <= lam/|T|             <- a constraint                           (xi_i)
    complementarity (kappa/|V_f| - alpha_k) v_k = 0,    alpha_k (v_k + ybar_k (x_k^T w - b) - 1) = 0
                    beta_i (xi_i + y_i (x_i^T w - b) - 1) = 0,   (lam/|T| - beta_i) xi_i = 0
                    mu+_j (w_bar_j - w_j) = 0,   mu-_j (w_bar_j + w_j) = 0
                    lam ((1+epsilon)/|T| sum xi_hat_i - (1/|T|) sum xi_i) = 0

``beta_i <= lam/|T|`` (Eq. (25)'s ``beta_i <= lambda/|T|``) has no variable bound to carry it and must be
stated as the row ``dual_xi[i]``; without it the model returns "optimal" answers that are not
bilevel-feasible. ``lambda = lam/kappa`` has no a-priori bound: it gets the bound ``lambda_bound``;
:func:`bilevel.tune` detects a solution touching it (``kappa`` at its lower bound), enlarges it and
re-solves. All other constants: :func:`bilevel.bigm.pessimistic_big_m`.

By default (``replica="optimal"``) the replica is also required to be a training optimum at ``w_bar``
through the KKT system of the LP-SVM, the inner problem of Eq. (21) (:func:`bilevel.optimistic.add_lp_svm_kkt`,
variables ``beta_hat``, ``mu_plus_hat``, ``mu_minus_hat``), so that the budget is exactly ``(1 + epsilon) v*(w_bar)``;
``replica="feasible"`` keeps Eq. (24) as printed.

``V_f`` (the flipped set) comes from the optimistic hyperplane, see :func:`flipped_set`.
"""
from __future__ import annotations

import time

import numpy as np
import pyomo.environ as pyo

from .bigm import optimistic_big_m, pessimistic_big_m, stationarity_scale
from .errors import InputError
from .hinge_highs import hinge_lp_highs as hinge_lp
from .kkt import add_complementarity
from .optimistic import add_least_loss_cut, add_lp_svm_duals, add_lp_svm_kkt, fix_decided_points, margin_expr
from .pause_gc import gc_paused
from .validation import (as_number, check_epsilon, check_hyperplane, check_indices, check_positive, check_scale,
                         check_w_bar_bounds, check_xy, is_choice)


def flipped_set(X_val, y_val, w, b, flip="margin") -> tuple[np.ndarray, str]:
    """Indices of the validation points whose labels are flipped, and the rule actually used.

    ``flip="margin"`` (Corollary 4 and Section 4.2 of the pessimistic bilevel tuning paper): the points
    the optimistic hyperplane ``(w, b)`` misclassifies or places inside its margin, ``y_k (x_k^T w - b) < 1``,
    tested as ``< 1 - 1e-9`` (dimensionless margin units) so that a point the MILP solution puts on its margin,
    up to rounding, is not flipped.
    ``flip="all"``: every validation point (Appendix A, small sets). An explicit index array is used as is.

    **Empty ``V_f``.** When the optimistic hyperplane classifies every validation point correctly and
    outside its margin, margin flipping has nothing to flip and the inner objective would vanish, which
    would turn the pessimistic model into an optimistic one over the epsilon-enlarged set. We then flip
    all validation points (the rule Appendix A uses for small sets) and return the rule
    ``"all (V_f empty under margin)"``.

    An explicit ``flip`` is an array of indices into the validation set or a boolean mask of length |V|.

    Shapes: ``X_val`` (|V|, p), ``y_val`` (|V|,) in {-1, +1}, ``w`` (p,), ``b`` a number. Raises InputError
    for an unknown rule, indices that are out of range, fractional or empty, a mask of another length, and
    bad shapes, labels or NaN/inf in the data or ``(w, b)`` (booleans as ``w`` included).
    """
    X_given = X_val  # check_flip pairs a pandas mask with the given X_val's row index
    X_val, y_val = check_xy(X_val, y_val, "val", both_classes=False)  # first: len(y_val) of a scalar was a TypeError
    explicit = check_flip(flip, X_given, len(y_val))
    w, b = check_hyperplane(w, b, X_val.shape[1])
    n_v = len(y_val)
    if isinstance(flip, str):
        if flip == "all":
            return np.arange(n_v), "all"
        margins = y_val * (X_val @ w - b)
        idx = np.nonzero(margins < 1.0 - 1e-9)[0]
        if len(idx) == 0:
            return np.arange(n_v), "all (V_f empty under margin)"
        return idx, "margin"
    return explicit, "explicit"


def check_flip(flip, X_val, n_val: int) -> np.ndarray | None:
    """Check the ``flip`` argument of :func:`flipped_set` before any solve: ``None`` for the rules ``"margin"``
    and ``"all"``, else the sorted distinct validation indices it names (an index array, a set or a boolean mask
    of length ``n_val``; a pandas mask must share ``X_val``'s row index, :func:`check_aligned`). Raises InputError
    for another string, ``None``, indices out of ``0..n_val-1``, fractional or none at all, or a mask of another
    length or index."""
    if flip is None or (isinstance(flip, str) and flip not in ("all", "margin")):
        raise InputError("flip must be 'margin', 'all', an index array or a boolean mask over the validation set; "
                         f"got {flip!r}")
    if isinstance(flip, str):
        return None
    idx = check_indices(flip, n_val, "flip (explicit indices of V_f)", rows=X_val, rows_name="X_val")
    if len(idx) == 0:
        raise InputError(f"explicit flip indices must be a non-empty subset of 0..{n_val - 1}")
    return idx


def lambda_value(model: pyo.ConcreteModel) -> float:
    """Eq. (25)'s dual ``lambda = lam / kappa`` of the epsilon constraint, from a solved pessimistic model."""
    return float(model.lam.value) / float(model.kappa.value)


def at_lambda_bound(model: pyo.ConcreteModel, rel: float = 1e-6) -> bool:
    """True when the solved pessimistic model's ``kappa`` sits at its lower bound ``1/(1 + lambda_bound)``,
    i.e. ``lambda`` touches ``lambda_bound`` and a larger bound might allow a better solution."""
    return float(model.kappa.value) <= model.kappa.lb * (1 + rel)


def set_lambda_bound(model: pyo.ConcreteModel, lambda_bound: float) -> None:
    """Change the bound on Eq. (25)'s ``lambda`` of a built pessimistic model in place: only the bounds of
    ``kappa`` and ``lam`` depend on it (the normalised big-M constants do not), so a solution of the model
    with a smaller bound stays feasible and can serve as a MIP start."""
    lambda_bound = check_positive(lambda_bound, "lambda_bound")
    kappa_min = 1.0 / (1.0 + float(lambda_bound))
    model.kappa.setlb(kappa_min)
    model.lam.setub(1.0 - kappa_min)
    model.bilevel_info["lambda_bound"] = float(lambda_bound)


@gc_paused
def build_pessimistic_model(
    X_train,
    y_train,
    X_val,
    y_val,
    flipped,
    epsilon: float = 0.0,
    w_bar_bounds=(0.0, 1.0),
    lambda_bound: float = 1000.0,
    replica: str = "optimal",
    objective_floor: float | None = None,
    objective_cutoff: float | None = None,
) -> pyo.ConcreteModel:
    """Build the pessimistic KKT + big-M MILP of Eq. (25) of the pessimistic bilevel tuning paper.

    Parameters
    ----------
    X_train : (|T|, p); y_train : (|T|,) in {-1, +1}, both classes present.
    X_val : (|V|, p); y_val : (|V|,) in {-1, +1}.
    flipped : indices (into the validation set) of ``V_f``, non-empty; see :func:`flipped_set`.
    epsilon : relative suboptimality of the training loss allowed to the follower, ``>= 0``.
    w_bar_bounds : ``(lb, ub)``, scalars or (p,) arrays with ``0 <= lb <= ub``.
    lambda_bound : the bound ``Lambda > 0`` on the dual ``lambda`` of the epsilon constraint.
    replica : ``"optimal"`` (default) adds the LP-SVM KKT system for the replica
        (:func:`bilevel.optimistic.add_lp_svm_kkt`), so the replica is a training optimum at ``w_bar`` and
        the budget is exactly ``(1 + epsilon) v*(w_bar)``, the intent of Eqs. (10) and (19) and what
        Propositions 1 and 5 assume. ``"feasible"`` is Eq. (24) as printed: the replica only has to be
        feasible, so the leader may choose a worse replica to enlarge the follower's set (the replica gap
        in the verification shows by how much).
    objective_floor : optional valid lower bound on the optimal objective, added as the row
        ``objective_floor: mean validation hinge >= objective_floor``. With ``epsilon = 0`` and a
        training-optimal replica the optimistic optimum is one (Proposition 1); pass the optimistic
        MILP's *best bound*, which is <= its optimum even when that solve stopped early.
    objective_cutoff : optional objective ``U`` of a known feasible point (a MIP start): the model keeps only
        solutions with objective ``<= U`` (row ``objective_cutoff``; every optimum is among them), and with
        ``replica="optimal"`` its big-Ms are tightened and the follower's decided training and flipped
        points fixed over that set (item 10 of :mod:`bilevel.bigm`). Same optimum, a tighter MILP.

    Returns
    -------
    A ``ConcreteModel`` named ``pessimistic_bilevel_svm``: leader variables ``w_bar``, replica ``w_hat``,
    ``b_hat``, ``xi_hat``; follower ``w``, ``b``, ``xi``, ``v``; outer hinge ``g``; duals ``alpha``,
    ``beta``, ``kappa``, ``lam``, ``mu_plus``, ``mu_minus`` (normalised, see the module docstring;
    :func:`lambda_value` gives Eq. (25)'s ``lambda``; for a tiny feature ``j`` the box multipliers, here and in
    the replica's ``mu_plus_hat``, ``mu_minus_hat``, are also divided by ``s_j = bilevel_info["big_m"].mu_scale[j]``,
    item 12 of :mod:`bilevel.bigm`); binaries ``z_*``; objective ``validation_hinge``.
    ``model.bilevel_info`` holds the data, ``V_f``, the big-M constants, ``lp_seconds`` (the time of the build's
    LPs, as in :func:`bilevel.build_optimistic_model`) and ``lambda_max``: with epsilon > 0 and
    ``replica="optimal"``, the bound ``Lambda*`` of item 11 of :mod:`bilevel.bigm` on ``lambda`` at every
    follower optimum (``inf`` otherwise); a ``lambda_bound >= lambda_max`` cuts off no bilevel-feasible point.

    Raises
    ------
    InputError for bad shapes/values, ``epsilon < 0``, infeasible bounds, an empty or out-of-range
    ``flipped`` set, ``lambda_bound <= 0``, an unknown ``replica``, an ``objective_floor`` that is not a finite
    number, or an ``objective_cutoff`` that is negative or below every
    achievable validation hinge (InfeasibleCutoff).
    """
    info = pessimistic_info(X_train, y_train, X_val, y_val, flipped, epsilon, w_bar_bounds, lambda_bound, replica)
    if objective_cutoff is not None:
        objective_cutoff = check_positive(objective_cutoff, "objective_cutoff (a mean hinge value)", allow_zero=True)
    if objective_floor is not None:
        objective_floor = as_number(objective_floor, "objective_floor")
        if not np.isfinite(objective_floor):
            raise InputError(f"objective_floor must be a finite mean hinge value; got {objective_floor}")
    X_t, y_t, X_v, y_v, lb, ub, Vf, eps = (info[k] for k in (
        "X_train", "y_train", "X_val", "y_val", "w_bar_lb", "w_bar_ub", "flipped", "epsilon"))
    p = X_t.shape[1]
    t_lp = time.perf_counter()
    least = hinge_lp(lb, (X_t, y_t)).value if replica == "optimal" else None
    least_ub = None  # v*(w_bar_ub), for lambda_max: the same LP as v*(w_bar_lb) when the box is fixed
    if replica == "optimal" and eps > 0:
        least_ub = least if np.array_equal(lb, ub) else hinge_lp(ub, (X_t, y_t)).value
    scale = stationarity_scale([X_t, X_v])  # item 12 of bilevel.bigm: 1.0 but for tiny features
    M = pessimistic_big_m(X_t, y_t, X_v, Vf, eps, ub, lambda_bound, least_loss_bound=least, y_val=y_v,
                          cutoff=objective_cutoff, least_loss_ub=least_ub, mu_scale=scale)
    M_train = optimistic_big_m(X_t, y_t, X_v, ub, least_loss_bound=least, mu_scale=scale)
    s = scale.tolist()
    lp_seconds = time.perf_counter() - t_lp
    n_t, n_v, n_f = len(y_t), len(y_v), len(Vf)
    J, T, V, F = range(p), range(n_t), range(n_v), Vf.tolist()
    yt, yv, lb_l, ub_l = y_t.tolist(), y_v.tolist(), lb.tolist(), ub.tolist()
    ybar = {k: -yv[k] for k in F}
    mv = dict(zip(F, M.v.tolist()))

    # epsilon = 0 with a training-optimal replica: the follower itself is a training optimum, so it can
    # serve as the replica (any training optimum gives the same budget v*(w_bar)); its training-LP KKT
    # system then lives on the follower's own variables and shares their complementarity binaries.
    shared = info["shared_replica"]
    m = pyo.ConcreteModel(name="pessimistic_bilevel_svm")
    # Leader: hyperparameters and (unless shared) the replica of the training problem.
    m.w_bar = pyo.Var(J, bounds=lambda _, j: (lb_l[j], ub_l[j]))
    if not shared:
        m.w_hat = pyo.Var(J, bounds=lambda _, j: (-ub_l[j], ub_l[j]))
        m.b_hat = pyo.Var(bounds=(-M.b_hat, M.b_hat))
        m.xi_hat = pyo.Var(T, bounds=lambda _, i: (0.0, float(M.xi_hat[i])))
    # Follower primal variables and the outer hinge epigraph.
    m.w = pyo.Var(J, bounds=lambda _, j: (-ub_l[j], ub_l[j]))
    m.b = pyo.Var(bounds=(-M.b_lo, M.b_hi))
    m.xi = pyo.Var(T, bounds=lambda _, i: (0.0, float(M.xi[i])))
    m.v = pyo.Var(F, bounds=lambda _, k: (0.0, mv[k]))
    m.g = pyo.Var(V, bounds=lambda _, k: (0.0, float(M.g[k])))
    # Follower duals.
    m.kappa = pyo.Var(bounds=(M.kappa_min, 1.0))
    m.lam = pyo.Var(bounds=(0.0, 1.0 - M.kappa_min))
    m.alpha = pyo.Var(F, bounds=(0.0, M.alpha))
    m.beta = pyo.Var(T, bounds=(0.0, M.beta))
    m.mu_plus = pyo.Var(J, bounds=lambda _, j: (0.0, float(M.mu[j])))
    m.mu_minus = pyo.Var(J, bounds=lambda _, j: (0.0, float(M.mu[j])))

    f_t = [margin_expr(m, X_t[i]) for i in T]
    f_v = {k: margin_expr(m, X_v[k]) for k in V}
    train_mean = pyo.quicksum(m.xi[i] for i in T) / n_t

    # Outer level, Eq. (24): objective and the leader's constraints.
    m.validation_hinge = pyo.Objective(expr=pyo.quicksum(m.g[k] for k in V) / n_v, sense=pyo.minimize)
    m.outer_hinge = pyo.Constraint(V, rule=lambda _, k: m.g[k] >= 1 - yv[k] * f_v[k])
    if shared:  # training-LP duals on the follower's variables; complementarity shared below
        beta_hat, mu_plus_hat, mu_minus_hat = add_lp_svm_duals(m, X_t, y_t, M_train, tag="_hat")
    elif replica == "optimal":  # the replica solves the training LP at w_bar (its KKT system, tag "_hat")
        add_lp_svm_kkt(m, X_t, y_t, M_train, tag="_hat")
    else:  # Eq. (24): the replica is only feasible
        f_hat = [margin_expr(m, X_t[i], "w_hat", "b_hat") for i in T]
        m.box_upper_hat = pyo.Constraint(J, rule=lambda _, j: m.w_hat[j] <= m.w_bar[j])
        m.box_lower_hat = pyo.Constraint(J, rule=lambda _, j: -m.w_bar[j] <= m.w_hat[j])
        m.margin_hat = pyo.Constraint(T, rule=lambda _, i: m.xi_hat[i] >= 1 - yt[i] * f_hat[i])
    # Follower primal feasibility.
    m.flipped_margin = pyo.Constraint(F, rule=lambda _, k: m.v[k] >= 1 - ybar[k] * f_v[k])
    m.margin = pyo.Constraint(T, rule=lambda _, i: m.xi[i] >= 1 - yt[i] * f_t[i])
    m.box_upper = pyo.Constraint(J, rule=lambda _, j: m.w[j] <= m.w_bar[j])
    m.box_lower = pyo.Constraint(J, rule=lambda _, j: -m.w_bar[j] <= m.w[j])
    if not shared:  # (shared: the follower is training-optimal, so the budget row holds with equality)
        budget = (1 + eps) * pyo.quicksum(m.xi_hat[i] for i in T) / n_t
        m.epsilon_budget = pyo.Constraint(expr=train_mean <= budget)
    if objective_floor is not None:
        m.objective_floor = pyo.Constraint(expr=m.validation_hinge.expr >= float(objective_floor))
    if objective_cutoff is not None:
        m.objective_cutoff = pyo.Constraint(expr=m.validation_hinge.expr <= float(objective_cutoff))
    if replica == "optimal":  # valid inequalities, see bilevel.optimistic.add_least_loss_cut
        add_least_loss_cut(m, "xi", n_t, (1 + eps) * least)
        if not shared:
            add_least_loss_cut(m, "xi_hat", n_t, least)
    # Stationarity and dual feasibility.
    m.stationarity_w = pyo.Constraint(
        J,
        rule=lambda _, j: -pyo.quicksum(float(ybar[k] * X_v[k, j] / s[j]) * m.alpha[k] for k in F if X_v[k, j] != 0.0)
        - pyo.quicksum(float(yt[i] * X_t[i, j] / s[j]) * m.beta[i] for i in T if X_t[i, j] != 0.0)
        + m.mu_plus[j] - m.mu_minus[j] == 0,
    )
    m.stationarity_b = pyo.Constraint(
        expr=pyo.quicksum(ybar[k] * m.alpha[k] for k in F) + pyo.quicksum(yt[i] * m.beta[i] for i in T) == 0
    )
    m.normalisation = pyo.Constraint(expr=m.kappa + m.lam == 1)
    m.dual_v = pyo.Constraint(F, rule=lambda _, k: m.alpha[k] <= m.kappa / n_f)
    m.dual_xi = pyo.Constraint(T, rule=lambda _, i: m.beta[i] <= m.lam / n_t)
    # Complementarity by big-M (shared: the training-LP duals use the same binaries).
    add_complementarity(m, "v", F, lambda k: m.kappa / n_f - m.alpha[k], M.alpha, lambda k: m.v[k], M.v)
    add_complementarity(
        m, "alpha", F, lambda k: m.alpha[k], M.alpha, lambda k: m.v[k] + ybar[k] * f_v[k] - 1, M.slack_f
    )
    sh = shared
    add_complementarity(m, "beta", T, lambda i: m.beta[i], M.beta, lambda i: m.xi[i] + yt[i] * f_t[i] - 1, M.slack_t,
                        shared_p=[(lambda i: beta_hat[i], M_train.beta)] if sh else ())
    add_complementarity(m, "xi", T, lambda i: m.lam / n_t - m.beta[i], M.beta, lambda i: m.xi[i], M.xi,
                        shared_p=[(lambda i: M_train.beta - beta_hat[i], M_train.beta)] if sh else ())
    add_complementarity(m, "mu_plus", J, lambda j: m.mu_plus[j], M.mu, lambda j: m.w_bar[j] - m.w[j], M.box,
                        shared_p=[(lambda j: mu_plus_hat[j], M_train.mu)] if sh else ())
    add_complementarity(m, "mu_minus", J, lambda j: m.mu_minus[j], M.mu, lambda j: m.w_bar[j] + m.w[j], M.box,
                        shared_p=[(lambda j: mu_minus_hat[j], M_train.mu)] if sh else ())
    if not shared:
        add_complementarity(m, "lam", [0], lambda _: m.lam, M.lam, lambda _: budget - train_mean, M.budget)
    # The follower's points whose side of the margin the cutoff decides (item 10 of bilevel.bigm).
    for dual, hinge, index, part in (("beta", "xi", list(T), slice(0, n_t)), ("alpha", "v", F, slice(n_t, None))):
        fix_decided_points(m, dual, hinge, index,
                           *(None if mask is None else mask[part] for mask in (M.outside, M.inside)))

    m.bilevel_info = {**info, "big_m": M, "objective_cutoff": objective_cutoff, "lambda_max": M.lambda_max,
                      "lp_seconds": lp_seconds}
    return m


def pessimistic_info(X_train, y_train, X_val, y_val, flipped, epsilon: float = 0.0, w_bar_bounds=(0.0, 1.0),
                     lambda_bound: float = 1000.0, replica: str = "optimal") -> dict:
    """The checked data and settings of a pessimistic model (arguments as :func:`build_pessimistic_model`),
    as the dict its ``bilevel_info`` starts from, without building anything: ``mode``, ``X_train``,
    ``y_train``, ``X_val``, ``y_val``, ``w_bar_lb``, ``w_bar_ub`` ((p,) arrays), ``flipped`` (sorted unique
    indices of ``V_f``), ``epsilon``, ``lambda_bound``, ``replica`` and ``shared_replica`` (epsilon = 0 with a
    training-optimal replica: the follower serves as its own replica). Enough for a MIP start
    (:func:`bilevel.warmstart.queued_start`) before the model is built. Raises InputError as the builder."""
    X_t, y_t = check_xy(X_train, y_train, "train")
    p = X_t.shape[1]
    X_v, y_v = check_xy(X_val, y_val, "val", p=p, both_classes=False, columns_of=(X_train, "X_train"))
    lb, ub = check_w_bar_bounds(w_bar_bounds, p)
    check_scale([X_t, X_v], ub)
    eps = check_epsilon(epsilon)
    lambda_bound = check_positive(lambda_bound, "lambda_bound")
    Vf = check_indices(flipped, len(y_v), "flipped (the set V_f)", rows=X_val, rows_name="X_val")
    if len(Vf) == 0:
        raise InputError(f"the flipped set V_f must be a non-empty subset of 0..{len(y_v) - 1}")
    if not is_choice(replica, ("optimal", "feasible")):
        raise InputError(f"replica must be 'optimal' or 'feasible'; got {replica!r}")
    X_t, y_t, X_v, y_v = (np.array(a) for a in (X_t, y_t, X_v, y_v))  # copies, as build_optimistic_model's
    return {
        "mode": "pessimistic",
        "X_train": X_t, "y_train": y_t, "X_val": X_v, "y_val": y_v, "w_bar_lb": lb, "w_bar_ub": ub,
        "flipped": Vf, "epsilon": eps, "lambda_bound": float(lambda_bound), "replica": replica,
        "shared_replica": replica == "optimal" and eps == 0.0,
    }
