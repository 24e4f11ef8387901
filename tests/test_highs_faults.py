"""Known HiGHS faults that give wrong answers, and what guards the package against them (README, "Dependency
versions"). Each check runs on whatever HiGHS is installed; CI runs the suite on HiGHS 1.15.1, 1.16.0 and the
lowest allowed release."""
from __future__ import annotations

import numpy as np
import pytest

import bilevel
from bilevel.highs_run import silent_highs
from bilevel.inner import hinge_lp


def test_installed_highs_has_no_presolve_fault_of_1_14_0():
    """HiGHS 1.14.0's presolve calls x = 0, z = 5 (objective 15) optimal for min 2x + 3z s.t. x + z >= 4.5,
    z integer, 0 <= x, z <= 10 (ERGO-Code/HiGHS#2961, fixed in 1.15.0): why pyproject.toml asks for >= 1.15.
    The optimum, x = 4.5, z = 0 (objective 9), is clear by hand: z >= 1 costs 3 per unit against 2 for x."""
    import highspy

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 2, 1
    lp.col_cost_ = np.array([2.0, 3.0])
    lp.col_lower_, lp.col_upper_ = np.zeros(2), np.full(2, 10.0)
    lp.row_lower_, lp.row_upper_ = np.array([4.5]), np.array([highspy.kHighsInf])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = np.array([0, 1, 2]), np.array([0, 0]), np.ones(2)
    lp.integrality_ = [highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger]
    h = silent_highs()
    h.passModel(lp)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(9.0, abs=1e-5)


def test_tie_resolve_gets_the_optimum_not_the_mip_start():
    """HiGHS 1.16.0 ends this tie re-solve (largest optimal box, Table A1 grid, cancer |V| = 20, |T| = 5, run 1)
    "optimal" at objective 9 but returns the MIP start's values (box sum 6.16); :func:`bilevel.solve_model`
    re-solves without the start. Oracle: the whole box ``w_bar = 1`` (sum 9, the largest possible) attains
    the optimistic optimum (the least validation hinge over the training optima at ``w_bar = 1``, an LP), so the
    largest optimal box sum is 9."""
    data = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(data.X, data.y, 5, 20, seed=1187821994)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "optimistic", time_limit=60, threads=1)
    p = s.X_train.shape[1]
    v_star = hinge_lp(np.ones(p), (s.X_train, s.y_train)).value  # least training loss at w_bar = 1
    # the optimistic value at w_bar = 1: the least validation hinge over the training optima there (an LP)
    best = hinge_lp(np.ones(p), (s.X_val, s.y_val), [(s.X_train, s.y_train, v_star + 1e-9)]).value
    assert best <= opt.objective + 1e-6
    tr = bilevel.ties.optimistic_tie_range(opt, "sum_w_bar", threads=1, time_limit=60)
    assert tr.high.status == "optimal"
    assert tr.high.criterion_value == pytest.approx(p, abs=1e-6)


def _small_model():
    data = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(data.X, data.y, 10, 10, seed=2)
    return bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)


def test_a_stale_solution_with_a_start_is_solved_again_without_it(monkeypatch):
    """The workaround's logic, on any HiGHS: the first check reports a stale solution (as 1.16.0's fault
    would), so the model is solved again without the start, within what is left of the time limit; the
    answer equals a plain solve's and ``seconds`` sums both runs."""
    import pyomo.environ as pyo

    import bilevel.solve as S

    plain = bilevel.solve_model(_small_model())
    model = _small_model()
    start = [(v, 0.0 if v.is_continuous() else 0) for v in model.component_data_objects(pyo.Var)]
    real, checks = S._stale_solution, []

    def first_stale(h, cm):
        checks.append(h)
        return len(checks) == 1 or real(h, cm)

    real_configured, limits = S._configured_highs, []

    def recording(cm, opts, *a, **k):
        limits.append(opts.get("time_limit"))
        return real_configured(cm, opts, *a, **k)

    monkeypatch.setattr(S, "_stale_solution", first_stale)
    monkeypatch.setattr(S, "_configured_highs", recording)
    again = bilevel.solve_model(model, mip_start=start, time_limit=30.0)
    assert len(checks) == 2 and checks[0] is not checks[1]  # the stale run, then the re-solve's check
    assert again.status == "optimal" and again.objective == pytest.approx(plain.objective, abs=1e-7)
    first_seconds = checks[0].getRunTime()
    assert limits[0] == 30.0 and limits[1] == pytest.approx(30.0 - first_seconds)  # what is left of the limit
    assert again.seconds == pytest.approx(first_seconds + checks[1].getRunTime())


def test_a_stale_solution_without_a_start_raises(monkeypatch):
    import bilevel.solve as S
    from bilevel.errors import SolverError

    monkeypatch.setattr(S, "_stale_solution", lambda h, cm: True)
    with pytest.raises(SolverError, match="differs from the objective it reports"):
        bilevel.solve_model(_small_model())
