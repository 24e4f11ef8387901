"""What bilevel.solve_model reports for a solve that HiGHS stops early: no bound it has not proven."""
from __future__ import annotations

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import linprog

import bilevel


def _lp(sense):
    rng = np.random.default_rng(1)
    n, rows = 8, 5
    A, b, c = rng.random((rows, n)), rng.random(rows) + 1, rng.random(n)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(n), bounds=(0, None))
    sign = 1.0 if sense == pyo.maximize else -1.0
    m.obj = pyo.Objective(expr=sum(sign * c[j] * m.x[j] for j in range(n)), sense=sense)
    m.c = pyo.Constraint(range(rows), rule=lambda m, i: sum(A[i, j] * m.x[j] for j in range(n)) <= b[i])
    optimum = -linprog(-c, A_ub=A, b_ub=b).fun  # the oracle: scipy's LP solver
    return m, sign * optimum


@pytest.mark.parametrize("sense", [pyo.maximize, pyo.minimize])
@pytest.mark.parametrize("iterations", [1, 2, 3])
def test_lp_stopped_early_claims_no_bound(sense, iterations):
    """Primal simplex stopped by simplex_iteration_limit returns a feasible, non-optimal point. Its best bound was
    reported as that point's own objective, with gap 0 (max: 2.658 "proven" against the optimum 2.691)."""
    m, optimum = _lp(sense)
    info = bilevel.solve_model(m, options={"simplex_strategy": 4, "simplex_iteration_limit": iterations,
                                           "presolve": "off"})
    assert info.status == "iteration_limit"
    if sense == pyo.maximize:
        assert info.objective < optimum - 1e-6  # the stop left the point short of the optimum
        assert info.best_bound >= optimum - 1e-9  # a valid bound (none: +inf)
    else:
        assert info.objective > optimum + 1e-6
        assert info.best_bound <= optimum + 1e-9
    assert info.gap > 0


def test_lp_solved_to_optimality_keeps_bound_and_gap_zero():
    m, optimum = _lp(pyo.maximize)
    info = bilevel.solve_model(m)
    assert info.status == "optimal"
    assert info.objective == pytest.approx(optimum, rel=1e-9)
    assert info.best_bound == info.objective and info.gap == 0.0


def test_race_at_a_node_limit_keeps_every_runs_incumbent():
    """A race at a node limit (mip_max_nodes: HiGHS's "solution limit") let the run that reached it first stop the
    others, and took that run's result: on the optimistic diabetes 20/20 MILP at one node, seed 1 has no solution
    and stopped seed 0, which has 0.7: NoSolutionError, where race=1 returns 0.7. Every run reaches the limit by
    itself, so the race returns the best incumbent of the seeds' own runs (oracle: plain highspy runs by seed)."""
    import highspy

    from bilevel.highs_run import silent_highs
    from bilevel.solve import compile_model
    from bilevel.tune import tuning_options

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    m = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    options = {**tuning_options(), "mip_max_nodes": 1, "random_seed": 0}
    cm = compile_model(m)
    incumbents = []
    for seed in (0, 1):
        h = silent_highs()
        for key, value in {**options, "random_seed": seed}.items():
            h.setOptionValue(key, value)
        h.passModel(cm.lp)
        h.run()
        info = h.getInfo()
        assert h.getModelStatus() == highspy.HighsModelStatus.kSolutionLimit
        incumbents.append(info.objective_function_value if info.primal_solution_status == 2 else np.inf)
    assert np.isfinite(min(incumbents)), "no seed finds a solution at one node: the instance no longer tests this"
    info = bilevel.solve_model(m, options=options, race=2)
    assert info.status == "solution_limit"
    assert info.objective == pytest.approx(min(incumbents), rel=1e-9)


def test_maximising_race_at_a_limit_takes_a_run_with_a_solution():
    """A race stopped at a limit takes the run with the best incumbent; a run without one counted as +inf, which the
    sign of a maximisation turned into the best: the maximisation of minus the optimistic diabetes 20/20 objective,
    race=2 at one node, returned seed 1's run, which has no solution (NoSolutionError; seed 0 has -0.7)."""
    from bilevel.tune import tuning_options

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    options = {**tuning_options(), "mip_max_nodes": 1, "random_seed": 0}
    m = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    minimised = bilevel.solve_model(m, options=options, race=2)
    objective = next(m.component_data_objects(pyo.Objective, active=True))
    objective.deactivate()
    m.maximised = pyo.Objective(expr=-objective.expr, sense=pyo.maximize)
    maximised = bilevel.solve_model(m, options=options, race=2)
    assert maximised.status == minimised.status == "solution_limit"
    assert maximised.objective == pytest.approx(-minimised.objective, rel=1e-9)
    assert maximised.best_bound >= maximised.objective


def test_a_variable_with_only_a_zero_coefficient_leaves_the_solve_intact():
    """An objective term ``0 * y``, ``y`` in no constraint: ``y`` is no column of the compiled model, so it gets no
    value, and evaluating the model's objective raised Pyomo's "No value for uninitialized ScalarVar object y" from
    deep inside Pyomo. The solve returns the optimum (0.5, by hand: x + z >= 0.5 with z binary) and leaves y unset."""
    m = pyo.ConcreteModel()
    m.x, m.y = pyo.Var(bounds=(0, 1)), pyo.Var(bounds=(0, 1))
    m.z = pyo.Var(within=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x + m.z >= 0.5)
    m.o = pyo.Objective(expr=m.x + 2 * m.z + 0 * m.y)
    info = bilevel.solve_model(m)
    assert info.status == "optimal" and info.objective == pytest.approx(0.5, abs=1e-9)
    assert m.x.value == pytest.approx(0.5) and m.z.value == 0 and m.y.value is None


def _one_var_model(**var_kw):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(**var_kw)
    m.y = pyo.Var(bounds=(0, 1))
    return m


@pytest.mark.parametrize("case,match", [
    ("fixed outside", r"'x' is fixed at 2, outside its bounds \[0, 1\]"),
    ("crossing", r"'x' has bounds 2 > 1"),
    ("integer at a fraction", r"'x' is integer and fixed at 0.5"),
])
def test_a_model_infeasible_by_its_bounds_alone_is_not_solved_optimal(case, match):
    """Pyomo's compiler makes a fixed variable a constant and leaves out a variable in no row: each of these
    infeasible models was solved "optimal" (objective 2 for x fixed at 2 in [0, 1])."""
    if case == "fixed outside":
        m = _one_var_model(bounds=(0, 1))
        m.x.fix(2)  # (Pyomo logs a warning W1002)
    elif case == "crossing":
        m = _one_var_model(bounds=(2, 1))
    else:
        m = _one_var_model(within=pyo.Binary)
        m.x.fix(0.5)
    m.o = pyo.Objective(expr=m.x + m.y)
    m.c = pyo.Constraint(expr=m.x + m.y >= 0)
    with pytest.raises(bilevel.InfeasibleModelError, match=match):
        bilevel.solve_model(m)


@pytest.mark.parametrize("sense", [pyo.minimize, pyo.maximize])
def test_a_model_without_columns_is_solved_at_its_constant(sense):
    """No column left (x fixed in its bounds, y in no row or objective term): HiGHS's status "Empty" was
    NoSolutionError, "HiGHS stopped (Empty) before finding a feasible solution"; the optimum is the constant."""
    m = _one_var_model(bounds=(0, 1))
    m.x.fix(0.25)
    m.o = pyo.Objective(expr=4 * m.x + 1, sense=sense)
    m.c = pyo.Constraint(expr=m.x <= 0.7)
    info = bilevel.solve_model(m)
    assert info.status == "optimal" and info.objective == pytest.approx(2.0) and info.best_bound == pytest.approx(2.0)
    empty = pyo.ConcreteModel()
    empty.o = pyo.Objective(expr=5.0, sense=sense)
    assert bilevel.solve_model(empty).objective == 5.0
