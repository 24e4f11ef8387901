r"""The optimistic bilevel tuning MILP: Eq. (21) of the pessimistic bilevel tuning paper, with the inner
LP-SVM replaced by its KKT conditions and complementarity linearised by big-M binaries.

Outer level (leader)::

    min_{w_bar, w, b}  (1/|V|) sum_{k in V} g_k
    s.t.  g_k >= 1 - y_k (x_k^T w - b),  g_k >= 0                      (validation hinge, k in V)
          w_bar_lb <= w_bar <= w_bar_ub
          (w, b) in argmin { (1/|T|) sum_i xi_i : xi_i >= 1 - y_i (x_i^T w - b), xi_i >= 0,
                             -w_bar <= w <= w_bar }                      (inner LP-SVM)

KKT system of the inner LP (duals ``beta_i`` of the margin rows, ``mu+_j, mu-_j`` of the box rows)::

    primal:         xi_i >= 1 - y_i (x_i^T w - b),  xi_i >= 0,  -w_bar <= w <= w_bar
    stationarity:   -sum_i beta_i y_i x_ij + mu+_j - mu-_j = 0   (w_j)
                    sum_i beta_i y_i = 0                          (b)
                    0 <= beta_i <= 1/|T|                          (xi_i)
    complementarity beta_i (xi_i + y_i (x_i^T w - b) - 1) = 0,   (1/|T| - beta_i) xi_i = 0,
                    mu+_j (w_bar_j - w_j) = 0,   mu-_j (w_bar_j + w_j) = 0

Each complementarity pair gets one binary (:func:`bilevel.kkt.add_complementarity`) with the constants of
:func:`bilevel.bigm.optimistic_big_m`.
"""
from __future__ import annotations

import time

import numpy as np
import pyomo.environ as pyo

from .bigm import optimistic_big_m, stationarity_scale
from .hinge_highs import hinge_lp_highs as hinge_lp
from .kkt import add_complementarity
from .pause_gc import gc_paused
from .validation import check_positive, check_scale, check_w_bar_bounds, check_xy


def margin_expr(model: pyo.ConcreteModel, x: np.ndarray, w="w", b="b"):
    """The linear expression ``x^T w - b`` for a data row ``x`` (p,), on the model's variables."""
    wv, bv = model.component(w), model.component(b)
    return pyo.quicksum(float(x[j]) * wv[j] for j in range(len(x)) if x[j] != 0.0) - bv


def add_lp_svm_duals(m: pyo.ConcreteModel, X_t: np.ndarray, y_t: np.ndarray, M, tag: str = ""):
    """Declare the LP-SVM duals ``beta{tag}[i]`` in ``[0, 1/|T|]`` (dual feasibility of ``xi``),
    ``mu_plus{tag}[j]``, ``mu_minus{tag}[j]`` in ``[0, M.mu_j]`` and the stationarity rows
    ``stationarity_w{tag}[j]: -sum_i beta_i y_i x_ij + mu+_j - mu-_j = 0`` and
    ``stationarity_b{tag}: sum_i beta_i y_i = 0`` of the KKT conditions of the LP-SVM (Eq. (20), the
    inner problem of Eq. (21)). Returns the three dual variables.
    With ``M.mu_scale`` (p,) (item 12 of :mod:`bilevel.bigm`) the row in ``w_j`` is divided by ``s_j`` and the
    ``mu`` variables are ``mu+-_j / s_j``."""
    n_t, p = X_t.shape
    J, T = range(p), range(n_t)
    yt = y_t.tolist()
    s = _row_scale(M, p)
    beta = pyo.Var(T, bounds=(0.0, M.beta))
    mu_plus = pyo.Var(J, bounds=lambda _, j: (0.0, float(M.mu[j])))
    mu_minus = pyo.Var(J, bounds=lambda _, j: (0.0, float(M.mu[j])))
    m.add_component(f"beta{tag}", beta)
    m.add_component(f"mu_plus{tag}", mu_plus)
    m.add_component(f"mu_minus{tag}", mu_minus)
    m.add_component(f"stationarity_w{tag}", pyo.Constraint(
        J,
        rule=lambda _, j: -pyo.quicksum(float(yt[i] * X_t[i, j] / s[j]) * beta[i] for i in T if X_t[i, j] != 0.0)
        + mu_plus[j] - mu_minus[j] == 0,
    ))
    m.add_component(f"stationarity_b{tag}", pyo.Constraint(expr=pyo.quicksum(yt[i] * beta[i] for i in T) == 0))
    return beta, mu_plus, mu_minus


def _row_scale(M, p: int) -> list:
    """The divisors ``s_j`` of the stationarity rows (item 12 of :mod:`bilevel.bigm`), ``M.mu_scale`` or 1.0."""
    return [1.0] * p if M.mu_scale is None else [float(v) for v in M.mu_scale]


def add_lp_svm_kkt(m: pyo.ConcreteModel, X_t: np.ndarray, y_t: np.ndarray, M, tag: str = "") -> None:
    """Add the KKT system of the LP-SVM (Eq. (20) of the pessimistic bilevel tuning paper) over the model's
    variables ``w{tag}``, ``b{tag}``, ``xi{tag}`` and box ``w_bar`` (all already declared, with the bounds
    of :class:`bilevel.bigm.OptimisticBigM` ``M``): primal rows ``margin{tag}``, ``box_upper{tag}``,
    ``box_lower{tag}``; duals ``beta{tag}``, ``mu_plus{tag}``, ``mu_minus{tag}``; stationarity
    ``stationarity_w{tag}``, ``stationarity_b{tag}``; complementarity ``z_*{tag}`` / ``cs_*{tag}_p|q``.
    The optimistic model uses it for the follower (``tag=""``), the pessimistic model for a
    training-optimal replica (``tag="_hat"``). ``X_t`` (|T|, p), ``y_t`` (|T|,)."""
    n_t, p = X_t.shape
    J, T = range(p), range(n_t)
    yt = y_t.tolist()
    w, b, xi, w_bar = (m.component(n) for n in (f"w{tag}", f"b{tag}", f"xi{tag}", "w_bar"))
    beta, mu_plus, mu_minus = add_lp_svm_duals(m, X_t, y_t, M, tag)
    f_t = [margin_expr(m, X_t[i], f"w{tag}", f"b{tag}") for i in T]
    # Primal feasibility.
    m.add_component(f"margin{tag}", pyo.Constraint(T, rule=lambda _, i: xi[i] >= 1 - yt[i] * f_t[i]))
    m.add_component(f"box_upper{tag}", pyo.Constraint(J, rule=lambda _, j: w[j] <= w_bar[j]))
    m.add_component(f"box_lower{tag}", pyo.Constraint(J, rule=lambda _, j: -w_bar[j] <= w[j]))
    # Complementarity by big-M.
    add_complementarity(m, f"beta{tag}", T, lambda i: beta[i], M.beta, lambda i: xi[i] + yt[i] * f_t[i] - 1, M.slack)
    add_complementarity(m, f"xi{tag}", T, lambda i: M.beta - beta[i], M.beta, lambda i: xi[i], M.xi)
    add_complementarity(m, f"mu_plus{tag}", J, lambda j: mu_plus[j], M.mu, lambda j: w_bar[j] - w[j], M.box)
    add_complementarity(m, f"mu_minus{tag}", J, lambda j: mu_minus[j], M.mu, lambda j: w_bar[j] + w[j], M.box)
    fix_decided_points(m, f"beta{tag}", f"xi{tag}", list(T), M.outside, M.inside)


def fix_decided_points(m: pyo.ConcreteModel, dual: str, hinge: str, index: list, outside, inside) -> None:
    """Fix the two binaries of each point whose side of the margin is decided (item 10 of
    :mod:`bilevel.bigm`): ``z_<dual>`` (its margin dual may be positive) and ``z_<hinge>`` (its hinge value
    must vanish) are ``(0, 1)`` for a point outside the margin (dual 0, hinge 0) and ``(1, 0)`` for one
    inside (hinge positive, dual at its upper bound). ``index``: the points' indices in the model, aligned
    with the boolean arrays ``outside`` and ``inside`` (``None``: nothing decided)."""
    z_dual, z_hinge = m.component(f"z_{dual}"), m.component(f"z_{hinge}")
    for mask, state in ((outside, (0, 1)), (inside, (1, 0))):
        for k in np.flatnonzero(mask) if mask is not None else ():
            z_dual[index[k]].fix(state[0])
            z_hinge[index[k]].fix(state[1])


def add_least_loss_cut(m: pyo.ConcreteModel, xi: str, n_t: int, bound: float) -> None:
    """Valid inequality ``(1/|T|) sum_i xi_i <= bound`` named ``least_loss_cut_<xi>``.

    With ``bound = (1 + epsilon) v*(w_bar_lb)`` it holds at every training optimum (``epsilon = 0``) or
    epsilon-optimum, because the least training loss ``v*(w_bar)`` of the LP-SVM is non-increasing in
    ``w_bar`` (a larger box only enlarges the feasible set) and ``w_bar >= w_bar_lb``. It cuts off
    fractional points of the LP relaxation (about halving the solve time at |T| = |V| = 100 on cancer)."""
    var = m.component(xi)
    m.add_component(f"least_loss_cut_{xi}",
                    pyo.Constraint(expr=pyo.quicksum(var[i] for i in range(n_t)) / n_t <= bound))


@gc_paused
def build_optimistic_model(X_train, y_train, X_val, y_val, w_bar_bounds=(0.0, 1.0),
                           objective_cutoff: float | None = None) -> pyo.ConcreteModel:
    """Build the optimistic KKT + big-M MILP of Eq. (21) of the pessimistic bilevel tuning paper.

    Parameters
    ----------
    X_train : (|T|, p) training features; y_train : (|T|,) labels in {-1, +1}, both classes present.
    X_val : (|V|, p) validation features; y_val : (|V|,) labels in {-1, +1}.
    w_bar_bounds : ``(lb, ub)``, scalars or (p,) arrays with ``0 <= lb <= ub``.
    objective_cutoff : optional ``U`` (mean-hinge units), the objective of a known bilevel-feasible point,
        e.g. a MIP start (:func:`bilevel.warmstart.kkt_start`). The model then keeps only the solutions with
        objective ``<= U`` (row ``objective_cutoff``; every optimum is among them), and its big-M constants
        are tightened, and the binaries of the training points whose margin is decided fixed, over that
        set (item 10 of :mod:`bilevel.bigm`). Same optimum, a tighter MILP.

    Returns
    -------
    A ``pyomo.environ.ConcreteModel`` named ``optimistic_bilevel_svm`` with variables ``w_bar[j]``,
    ``w[j]``, ``b``, ``xi[i]``, ``g[k]``, ``beta[i]``, ``mu_plus[j]``, ``mu_minus[j]`` (for a tiny feature ``j`` the box
    multipliers divided by ``s_j = bilevel_info["big_m"].mu_scale[j]``, item 12 of :mod:`bilevel.bigm`) and binaries
    ``z_beta[i]``, ``z_xi[i]``, ``z_mu_plus[j]``, ``z_mu_minus[j]``; the objective ``validation_hinge`` is the
    mean validation hinge loss. ``model.bilevel_info`` holds the data, the big-M constants and
    ``lp_seconds``, the time of the build's LPs (the least training loss and the bound tightening of items 9-10
    of :mod:`bilevel.bigm`; about 0 when the ranges were cached).

    Raises
    ------
    InputError for wrong shapes, NaN/inf, labels other than +-1, one class in the training set, or
    infeasible ``w_bar`` bounds, or an ``objective_cutoff`` that is not a finite number >= 0 or is below every
    achievable validation hinge (InfeasibleCutoff).
    """
    X_t, y_t = check_xy(X_train, y_train, "train")
    p = X_t.shape[1]
    X_v, y_v = check_xy(X_val, y_val, "val", p=p, both_classes=False, columns_of=(X_train, "X_train"))
    lb, ub = check_w_bar_bounds(w_bar_bounds, p)
    check_scale([X_t, X_v], ub)
    # Copies: bilevel_info keeps the data of the model (MIP starts, verification, tune's check of an optimistic
    # result), which the caller's arrays, changed in place later, would otherwise replace.
    X_t, y_t, X_v, y_v = (np.array(a) for a in (X_t, y_t, X_v, y_v))
    if objective_cutoff is not None:
        objective_cutoff = check_positive(objective_cutoff, "objective_cutoff (a mean hinge value)", allow_zero=True)
    t_lp = time.perf_counter()
    least = hinge_lp(lb, (X_t, y_t)).value
    M = optimistic_big_m(X_t, y_t, X_v, ub, least_loss_bound=least, y_val=y_v, cutoff=objective_cutoff,
                         mu_scale=stationarity_scale([X_t, X_v]))
    lp_seconds = time.perf_counter() - t_lp
    n_t, n_v = len(y_t), len(y_v)
    J, T, V = range(p), range(n_t), range(n_v)
    yv, lb_l, ub_l = y_v.tolist(), lb.tolist(), ub.tolist()

    m = pyo.ConcreteModel(name="optimistic_bilevel_svm")
    # Outer (hyperparameters) and inner primal variables.
    m.w_bar = pyo.Var(J, bounds=lambda _, j: (lb_l[j], ub_l[j]))
    m.w = pyo.Var(J, bounds=lambda _, j: (-ub_l[j], ub_l[j]))
    m.b = pyo.Var(bounds=(-M.b, M.b))
    m.xi = pyo.Var(T, bounds=lambda _, i: (0.0, float(M.xi[i])))
    m.g = pyo.Var(V, bounds=lambda _, k: (0.0, float(M.g[k])))
    f_v = [margin_expr(m, X_v[k]) for k in V]
    # Outer objective: mean validation hinge loss of the inner solution.
    m.validation_hinge = pyo.Objective(expr=pyo.quicksum(m.g[k] for k in V) / n_v, sense=pyo.minimize)
    m.outer_hinge = pyo.Constraint(V, rule=lambda _, k: m.g[k] >= 1 - yv[k] * f_v[k])
    if objective_cutoff is not None:
        m.objective_cutoff = pyo.Constraint(expr=pyo.quicksum(m.g[k] for k in V) / n_v <= float(objective_cutoff))
    # Inner LP-SVM replaced by its KKT system.
    add_lp_svm_kkt(m, X_t, y_t, M)
    add_least_loss_cut(m, "xi", n_t, least)

    m.bilevel_info = {
        "mode": "optimistic",
        "X_train": X_t, "y_train": y_t, "X_val": X_v, "y_val": y_v,
        "w_bar_lb": lb, "w_bar_ub": ub, "big_m": M, "objective_cutoff": objective_cutoff, "lp_seconds": lp_seconds,
    }
    return m
