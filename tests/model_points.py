"""Points loaded by hand into built MILPs, for the tests of the verification (tests/test_verify.py and mutation
study 19): ``(w_bar, w, b)`` and, pessimistic, the replica, with every loss variable at its hinge
``max(0, 1 - y (x^T w - b))`` (written here with numpy) and every other variable 0, so that a verdict rests on
the loaded point alone (the KKT residuals are only reported)."""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo


def _hinge(X, y, w, b) -> np.ndarray:
    return np.maximum(0.0, 1.0 - np.asarray(y) * (np.asarray(X) @ np.asarray(w) - b))


def _zero(model):
    for var in model.component_data_objects(pyo.Var):
        var.set_value(0.0, skip_validation=True)


def _set(var, values):
    for k, value in zip(var, values):
        var[k].set_value(float(value), skip_validation=True)


def load_optimistic(model, w_bar, w, b, X_v, y_v):
    """Load (w_bar, w, b) into a built optimistic model (Eq. (21)), the validation losses g at their hinges, every
    other variable 0."""
    _zero(model)
    _set(model.w_bar, w_bar)
    _set(model.w, w)
    model.b.set_value(float(b), skip_validation=True)
    _set(model.g, _hinge(X_v, y_v, w, b))


def load_pessimistic(model, w_bar, w, b, replica, X_t, y_t, X_f, ybar, X_v, y_v):
    """Load (w_bar, w, b) and the replica ``replica = (w_hat, b_hat)`` into a built pessimistic model (Eq. (25)):
    the training losses xi / xi_hat, the flipped losses v (labels ``ybar`` on ``X_f``) and the validation losses g
    at their hinges, kappa = 1, every other variable 0."""
    _zero(model)
    model.kappa.set_value(1.0, skip_validation=True)
    for prefix, (ww, bb) in (("", (w, b)), ("_hat", replica)):
        getattr(model, "b" + prefix).set_value(float(bb), skip_validation=True)
        _set(getattr(model, "w" + prefix), ww)
        _set(getattr(model, "xi" + prefix), _hinge(X_t, y_t, ww, bb))
    _set(model.w_bar, w_bar)
    _set(model.v, _hinge(X_f, ybar, w, b))
    _set(model.g, _hinge(X_v, y_v, w, b))
