"""The textbook reference formulation for the benchmark (issue: "Make the tuning MILPs fast").

A plain transcription of the KKT + big-M MILPs, Eq. (21) and Eqs. (24)-(25) of the pessimistic bilevel
tuning paper, with a training-optimal replica (its own KKT system) so that it encodes the same problem as
the package's default: **two binaries per complementarity pair** (``p <= M z1``, ``q <= M z2``,
``z1 + z2 <= 1``), the multipliers of Eq. (25) unnormalised with ``lambda <= Lambda``, no shared binaries,
no valid inequalities, no warm start. The big-M constants are the package's valid ones derived from the data
(items 1-8 of :mod:`bilevel.bigm`, without the LP bound tightening of item 9, which is one of the package's
speed-ups), scaled back to unnormalised multipliers. Variable names match the package's models
so that :func:`bilevel.verify_model` verifies its solutions too.
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from bilevel.bigm import optimistic_big_m, pessimistic_big_m
from bilevel.inner import hinge_lp


def _pair(m, name, index, p, mp, q, mq):
    idx = list(index)
    mp = dict(zip(idx, np.broadcast_to(np.asarray(mp, float), (len(idx),)).tolist()))
    mq = dict(zip(idx, np.broadcast_to(np.asarray(mq, float), (len(idx),)).tolist()))
    z1, z2 = pyo.Var(idx, domain=pyo.Binary), pyo.Var(idx, domain=pyo.Binary)
    m.add_component(f"z1_{name}", z1)
    m.add_component(f"z2_{name}", z2)
    m.add_component(f"cs_{name}_p", pyo.Constraint(idx, rule=lambda _, i: p(i) <= mp[i] * z1[i]))
    m.add_component(f"cs_{name}_q", pyo.Constraint(idx, rule=lambda _, i: q(i) <= mq[i] * z2[i]))
    m.add_component(f"cs_{name}_one", pyo.Constraint(idx, rule=lambda _, i: z1[i] + z2[i] <= 1))


def _f(m, x, w="w", b="b"):
    wv, bv = m.component(w), m.component(b)
    return sum(float(x[j]) * wv[j] for j in range(len(x))) - bv


def _training_kkt(m, X, y, M, tag):
    n, p = X.shape
    J, T = range(p), range(n)
    w, xi = m.component(f"w{tag}"), m.component(f"xi{tag}")
    m.add_component(f"beta{tag}", pyo.Var(T, bounds=(0, M.beta)))
    m.add_component(f"mu_plus{tag}", pyo.Var(J, bounds=lambda _, j: (0, float(M.mu[j]))))
    m.add_component(f"mu_minus{tag}", pyo.Var(J, bounds=lambda _, j: (0, float(M.mu[j]))))
    beta, mp, mm = m.component(f"beta{tag}"), m.component(f"mu_plus{tag}"), m.component(f"mu_minus{tag}")
    f = [_f(m, X[i], f"w{tag}", f"b{tag}") for i in T]
    m.add_component(f"margin{tag}", pyo.Constraint(T, rule=lambda _, i: xi[i] >= 1 - y[i] * f[i]))
    m.add_component(f"box_upper{tag}", pyo.Constraint(J, rule=lambda _, j: w[j] <= m.w_bar[j]))
    m.add_component(f"box_lower{tag}", pyo.Constraint(J, rule=lambda _, j: -m.w_bar[j] <= w[j]))
    m.add_component(f"stationarity_w{tag}", pyo.Constraint(
        J, rule=lambda _, j: -sum(float(y[i] * X[i, j]) * beta[i] for i in T) + mp[j] - mm[j] == 0))
    m.add_component(f"stationarity_b{tag}", pyo.Constraint(expr=sum(float(y[i]) * beta[i] for i in T) == 0))
    _pair(m, f"beta{tag}", T, lambda i: beta[i], M.beta, lambda i: xi[i] + y[i] * f[i] - 1, M.slack)
    _pair(m, f"xi{tag}", T, lambda i: M.beta - beta[i], M.beta, lambda i: xi[i], M.xi)
    _pair(m, f"mu_plus{tag}", J, lambda j: mp[j], M.mu, lambda j: m.w_bar[j] - w[j], M.box)
    _pair(m, f"mu_minus{tag}", J, lambda j: mm[j], M.mu, lambda j: m.w_bar[j] + w[j], M.box)


def textbook_optimistic(X_t, y_t, X_v, y_v, ub=1.0):
    """Eq. (21), two binaries per complementarity pair. Shapes as in :func:`bilevel.build_optimistic_model`."""
    n_t, p = X_t.shape
    ubv = np.full(p, float(ub))
    M = optimistic_big_m(X_t, y_t, X_v, ubv)
    m = pyo.ConcreteModel(name="textbook_optimistic")
    J, T, V = range(p), range(n_t), range(len(y_v))
    m.w_bar = pyo.Var(J, bounds=(0, ub))
    m.w = pyo.Var(J, bounds=(-ub, ub))
    m.b = pyo.Var(bounds=(-M.b, M.b))
    m.xi = pyo.Var(T, bounds=lambda _, i: (0, float(M.xi[i])))
    m.g = pyo.Var(V, bounds=(0, None))
    m.validation_hinge = pyo.Objective(expr=sum(m.g[k] for k in V) / len(V))
    m.outer_hinge = pyo.Constraint(V, rule=lambda _, k: m.g[k] >= 1 - y_v[k] * _f(m, X_v[k]))
    _training_kkt(m, X_t, y_t, M, "")
    m.bilevel_info = {"mode": "optimistic", "X_train": X_t, "y_train": y_t, "X_val": X_v, "y_val": y_v,
                      "w_bar_lb": np.zeros(p), "w_bar_ub": ubv, "big_m": M}
    return m


def textbook_pessimistic(X_t, y_t, X_v, y_v, flipped, epsilon, lambda_bound, ub=1.0):
    """Eqs. (24)-(25) with a training-optimal replica (KKT), unnormalised multipliers with
    ``lambda <= lambda_bound``, two binaries per complementarity pair."""
    n_t, p = X_t.shape
    ubv = np.full(p, float(ub))
    F = [int(k) for k in flipped]
    n_f = len(F)
    least = hinge_lp(np.zeros(p), (X_t, y_t)).value
    P = pessimistic_big_m(X_t, y_t, X_v, np.array(F), epsilon, ubv, lambda_bound, least_loss_bound=least)
    Mo = optimistic_big_m(X_t, y_t, X_v, ubv)
    L = float(lambda_bound)
    s_f = np.abs(X_v[F]).sum(axis=0) / n_f
    s_t = np.abs(X_t).sum(axis=0) / n_t
    m = pyo.ConcreteModel(name="textbook_pessimistic")
    J, T, V = range(p), range(n_t), range(len(y_v))
    ybar = {k: -float(y_v[k]) for k in F}
    m.w_bar = pyo.Var(J, bounds=(0, ub))
    m.w_hat = pyo.Var(J, bounds=(-ub, ub))
    m.b_hat = pyo.Var(bounds=(-P.b_hat, P.b_hat))
    m.xi_hat = pyo.Var(T, bounds=lambda _, i: (0, float(P.xi_hat[i])))
    m.w = pyo.Var(J, bounds=(-ub, ub))
    m.b = pyo.Var(bounds=(-P.b_lo, P.b_hi))
    m.xi = pyo.Var(T, bounds=lambda _, i: (0, float(P.xi[i])))
    m.v = pyo.Var(F, bounds=(0, None))
    m.g = pyo.Var(V, bounds=(0, None))
    m.kappa = pyo.Var(bounds=(1, 1))
    m.kappa.fix(1.0)
    m.lam = pyo.Var(bounds=(0, L))
    m.alpha = pyo.Var(F, bounds=(0, 1.0 / n_f))
    m.beta = pyo.Var(T, bounds=(0, L / n_t))
    m.mu_plus = pyo.Var(J, bounds=lambda _, j: (0, float(s_f[j] + L * s_t[j])))
    m.mu_minus = pyo.Var(J, bounds=lambda _, j: (0, float(s_f[j] + L * s_t[j])))
    m.validation_hinge = pyo.Objective(expr=sum(m.g[k] for k in V) / len(V))
    m.outer_hinge = pyo.Constraint(V, rule=lambda _, k: m.g[k] >= 1 - y_v[k] * _f(m, X_v[k]))
    _training_kkt(m, X_t, y_t, Mo, "_hat")
    f_t = [_f(m, X_t[i]) for i in T]
    f_v = {k: _f(m, X_v[k]) for k in F}
    train = sum(m.xi[i] for i in T) / n_t
    budget = (1 + epsilon) * sum(m.xi_hat[i] for i in T) / n_t
    m.flipped_margin = pyo.Constraint(F, rule=lambda _, k: m.v[k] >= 1 - ybar[k] * f_v[k])
    m.margin = pyo.Constraint(T, rule=lambda _, i: m.xi[i] >= 1 - y_t[i] * f_t[i])
    m.box_upper = pyo.Constraint(J, rule=lambda _, j: m.w[j] <= m.w_bar[j])
    m.box_lower = pyo.Constraint(J, rule=lambda _, j: -m.w_bar[j] <= m.w[j])
    m.epsilon_budget = pyo.Constraint(expr=train <= budget)
    m.stationarity_w = pyo.Constraint(J, rule=lambda _, j: -sum(float(ybar[k] * X_v[k, j]) * m.alpha[k] for k in F)
                                      - sum(float(y_t[i] * X_t[i, j]) * m.beta[i] for i in T)
                                      + m.mu_plus[j] - m.mu_minus[j] == 0)
    m.stationarity_b = pyo.Constraint(expr=sum(ybar[k] * m.alpha[k] for k in F)
                                      + sum(float(y_t[i]) * m.beta[i] for i in T) == 0)
    m.dual_xi = pyo.Constraint(T, rule=lambda _, i: m.beta[i] <= m.lam / n_t)
    _pair(m, "v", F, lambda k: 1.0 / n_f - m.alpha[k], 1.0 / n_f, lambda k: m.v[k], P.v)
    _pair(m, "alpha", F, lambda k: m.alpha[k], 1.0 / n_f, lambda k: m.v[k] + ybar[k] * f_v[k] - 1, P.slack_f)
    _pair(m, "beta", T, lambda i: m.beta[i], L / n_t, lambda i: m.xi[i] + y_t[i] * f_t[i] - 1, P.slack_t)
    _pair(m, "xi", T, lambda i: m.lam / n_t - m.beta[i], L / n_t, lambda i: m.xi[i], P.xi)
    _pair(m, "mu_plus", J, lambda j: m.mu_plus[j], s_f + L * s_t, lambda j: m.w_bar[j] - m.w[j], P.box)
    _pair(m, "mu_minus", J, lambda j: m.mu_minus[j], s_f + L * s_t, lambda j: m.w_bar[j] + m.w[j], P.box)
    _pair(m, "lam", [0], lambda _: m.lam, L, lambda _: budget - train, P.budget)
    m.bilevel_info = {"mode": "pessimistic", "X_train": X_t, "y_train": y_t, "X_val": X_v, "y_val": y_v,
                      "w_bar_lb": np.zeros(p), "w_bar_ub": ubv, "big_m": P, "flipped": np.array(F),
                      "epsilon": float(epsilon), "lambda_bound": L, "replica": "optimal"}
    return m
