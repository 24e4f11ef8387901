"""A bilevel-feasible MIP start for the tuning MILPs, built from LPs at ``w_bar = w_bar_ub``.

Without a start HiGHS can spend long finding any feasible point of a KKT + big-M model (on pessimistic
instances of |T| = |V| = 20 it found none in 30 s). At the largest box the follower's problem is an LP:
solve it (and, for the pessimistic model, the training LP that sets the budget) with
:func:`bilevel.inner.hinge_lp`, take the primal *and dual* optimal values, and set every binary from
which side of its complementarity pair is zero. By the complementary slackness theorem the point
satisfies the KKT system of Eq. (21) / Eq. (25) of the pessimistic bilevel tuning paper, so it is
feasible for the MILP whenever its multipliers respect the bounds (``lambda <= lambda_bound``).
"""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo

from .inner import hinge, hinge_lp

_TOL = 1e-9
_ZERO = 1e-7  # a complementarity side below this counts as zero (HiGHS feasibility tolerance 1e-6)


def _assign(values: list, var, array) -> None:
    for k, idx in enumerate(var):
        values.append((var[idx], float(array[k])))


def _binaries(values: list, m, name: str, q: np.ndarray) -> None:
    """``z_<name> = 1`` where the q-side of the pair is zero (the multiplier may be positive)."""
    _assign(values, m.component(f"z_{name}"), (np.asarray(q) <= _ZERO).astype(float))


def _training_kkt(values, m, X, y, lp, tag, w, b, own_primal):
    """Values of the LP-SVM duals ``beta{tag}``, ``mu_plus{tag}``, ``mu_minus{tag}`` of Eq. (20) and, when
    ``own_primal``, of the primal ``w{tag}``, ``b{tag}``, ``xi{tag}``. Returns the hinge values (|T|,)."""
    xi = hinge(X, y, w, b)
    if own_primal:  # the replica's own primal variables
        _assign(values, m.component(f"w{tag}"), w)
        values.append((m.component(f"b{tag}"), float(b)))
        _assign(values, m.component(f"xi{tag}"), xi)
    beta = np.clip(lp.hinge_duals[0], 0.0, 1.0 / len(y))
    mu = lp.mu_plus - lp.mu_minus
    _assign(values, m.component(f"beta{tag}"), beta)
    _assign(values, m.component(f"mu_plus{tag}"), np.maximum(mu, 0.0))
    _assign(values, m.component(f"mu_minus{tag}"), np.maximum(-mu, 0.0))
    return xi


def kkt_start(model: pyo.ConcreteModel):
    """A MIP start for a model of :func:`bilevel.build_optimistic_model` or
    :func:`bilevel.build_pessimistic_model`, as a list of ``(VarData, value)`` pairs for
    :func:`bilevel.solve_model`, or ``None`` when the LP point does not fit the model (its ``lambda``
    exceeds the bound, or a custom flipped set leaves nothing to start from). Never raises for a
    well-formed model; HiGHS checks the start itself and ignores it if it is infeasible."""
    info = model.bilevel_info
    X_t, y_t, X_v, y_v = info["X_train"], info["y_train"], info["X_val"], info["y_val"]
    w_bar = np.asarray(info["w_bar_ub"], dtype=float)
    values: list = []
    _assign(values, model.w_bar, w_bar)
    train = hinge_lp(w_bar, (X_t, y_t))
    if info["mode"] == "optimistic":
        w, b = train.w, train.b
        xi = _training_kkt(values, model, X_t, y_t, train, "", w, b, own_primal=False)
        pairs = {"beta": xi + y_t * (X_t @ w - b) - 1, "xi": xi, "mu_plus": w_bar - w, "mu_minus": w_bar + w}
    else:
        Vf, eps = info["flipped"], info["epsilon"]
        X_f, ybar = X_v[Vf], -y_v[Vf]
        budget = (1 + eps) * train.value
        follower = hinge_lp(w_bar, (X_f, ybar), [(X_t, y_t, budget + _TOL)])
        lam = float(follower.budget_duals[0])
        if lam > info["lambda_bound"]:
            return None
        kappa = 1.0 / (1.0 + lam)
        w, b = follower.w, follower.b
        xi = hinge(X_t, y_t, w, b)
        if info.get("shared_replica"):
            _training_kkt(values, model, X_t, y_t, train, "_hat", w, b, own_primal=False)
            xi_hat = None
        elif info.get("replica") == "optimal":
            xi_hat = _training_kkt(values, model, X_t, y_t, train, "_hat", train.w, train.b, own_primal=True)
            f_hat = X_t @ train.w - train.b
            for name, q in (("beta_hat", xi_hat + y_t * f_hat - 1), ("xi_hat", xi_hat),
                            ("mu_plus_hat", w_bar - train.w), ("mu_minus_hat", w_bar + train.w)):
                _binaries(values, model, name, q)
        else:
            return None
        alpha, beta_f = follower.hinge_duals
        mu = follower.mu_plus - follower.mu_minus
        values += [(model.kappa, kappa), (model.lam, 1.0 - kappa)]
        _assign(values, model.alpha, np.clip(kappa * alpha, 0.0, kappa / len(Vf)))
        _assign(values, model.beta, np.clip(kappa * beta_f, 0.0, (1.0 - kappa) / len(y_t)))
        _assign(values, model.mu_plus, np.maximum(kappa * mu, 0.0))
        _assign(values, model.mu_minus, np.maximum(-kappa * mu, 0.0))
        v = hinge(X_f, ybar, w, b)
        _assign(values, model.v, v)
        _assign(values, model.xi, xi)
        pairs = {"v": v, "alpha": v + ybar * (X_f @ w - b) - 1, "beta": xi + y_t * (X_t @ w - b) - 1, "xi": xi,
                 "mu_plus": w_bar - w, "mu_minus": w_bar + w}
        if xi_hat is not None:
            pairs["lam"] = np.array([(1 + eps) * xi_hat.mean() - xi.mean()])
    _assign(values, model.w, w)
    values.append((model.b, float(b)))
    if info["mode"] == "optimistic":
        _assign(values, model.xi, xi)
    _assign(values, model.g, hinge(X_v, y_v, w, b))
    for name, q in pairs.items():
        _binaries(values, model, name, q)
    return values
