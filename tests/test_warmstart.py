"""The MIP start from LPs at w_bar = w_bar_ub satisfies every row of the MILP (checked by evaluating the
Pyomo constraints, independently of HiGHS) and is bilevel-feasible (checked by the verification)."""
import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel.warmstart import kkt_start


def _max_violation(model) -> float:
    worst = 0.0
    for c in model.component_data_objects(pyo.Constraint, active=True):
        body = pyo.value(c.body)
        if c.has_ub():
            worst = max(worst, body - pyo.value(c.upper))
        if c.has_lb():
            worst = max(worst, pyo.value(c.lower) - body)
    for v in model.component_data_objects(pyo.Var):
        if v.lb is not None:
            worst = max(worst, v.lb - v.value)
        if v.ub is not None:
            worst = max(worst, v.value - v.ub)
    return worst


@pytest.mark.parametrize("data,seed", [("cancer", 0), ("diabetes", 1)])
@pytest.mark.parametrize("kind", ["optimistic", "pes0", "pes0.2", "pes0.2-margin"])
def test_start_is_feasible_and_verified(data, seed, kind):
    d = bilevel.load_dataset(data)
    s = bilevel.split_dataset(d.X, d.y, 12, 10, seed=seed)
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    else:
        eps = 0.0 if kind == "pes0" else 0.2
        flipped = np.arange(10) if "margin" not in kind else np.array([0, 3, 7])
        model = bilevel.build_pessimistic_model(s.X_train, s.y_train, s.X_val, s.y_val, flipped, eps, (0, 1), 1e3)
    start = kkt_start(model)
    assert start is not None
    for var, value in start:
        var.set_value(value, skip_validation=True)
    assert all(v.value is not None for v in model.component_data_objects(pyo.Var))  # a complete point
    assert _max_violation(model) <= 1e-6
    assert bilevel.verify_model(model).verified


def test_time_limited_solve_returns_the_incumbent():
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all",
                       time_limit=1.0)
    assert res.status in ("time_limit", "optimal") and res.verified
    assert res.best_bound <= res.objective + 1e-9
