"""``optimistic_tie_range(..., solver="gurobi" | "cplex")``: the tie re-solves of :mod:`bilevel.ties` with another
solver reach the extremes HiGHS proves (an independent solver on the same models: the closed form of a tiny
instance, and HiGHS's range on cancer splits), verified; the solver defaults to the result's; clear errors for
settings of the other solver."""
import numpy as np
import pytest

import bilevel
import bilevel.ties
from bilevel.other_solvers import unavailable_reason
from bilevel.ties import CRITERIA, optimistic_tie_range

OTHER = [pytest.param(name, marks=pytest.mark.skipif(unavailable_reason(name) is not None,
                                                      reason=f"{name} cannot run here"))
         for name in ("gurobi", "cplex")]


def _close(a, b) -> bool:
    """Two proven extremes of one MILP agree within the solvers' default gaps (relative 1e-4, absolute 1e-6)."""
    return abs(a - b) <= max(1e-6, 1e-4 * max(abs(a), abs(b)))


@pytest.mark.parametrize("solver", OTHER)
def test_closed_form_extremes_with_another_solver(solver):
    # p = 1: training points -1 / +1, validation points -2 / +2 (tests/test_ties.py's tiny instance): the optimum 0
    # is attained for w_bar in [1/2, 1], so min / max sum(w_bar) = 0.5 / 1 and the mean validation margin 2 w
    # ranges over [1, 2].
    X_t, y_t = np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0])
    X_v, y_v = np.array([[-2.0], [2.0]]), np.array([-1.0, 1.0])
    opt = bilevel.tune(X_t, y_t, X_v, y_v, "optimistic", solver=solver)
    for criterion, (lo, hi) in (("sum_w_bar", (0.5, 1.0)), ("val_margin", (1.0, 2.0))):
        low, high = optimistic_tie_range(opt, criterion)
        assert low.criterion_value == pytest.approx(lo, abs=1e-5), criterion
        assert high.criterion_value == pytest.approx(hi, abs=1e-5), criterion
        for sol in (low, high):
            assert sol.status == "optimal" and sol.verification.verified
            assert sol.best_bound == pytest.approx(sol.criterion_value, abs=1e-4)


@pytest.mark.parametrize("solver", OTHER)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_same_extremes_as_highs_from_one_result(solver, seed, monkeypatch):
    data = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(data.X, data.y, 8, 10, seed=seed)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "optimistic", threads=1)
    assert opt.solver == "highs" and opt.status == "optimal"
    calls = []
    real = bilevel.ties.solve_other

    def spy(model, name, **kw):
        calls.append(name)
        return real(model, name, **kw)

    monkeypatch.setattr(bilevel.ties, "solve_other", spy)
    for criterion in CRITERIA:
        highs = optimistic_tie_range(opt, criterion, threads=1)
        assert calls == []  # the result's solver: HiGHS
        other = optimistic_tie_range(opt, criterion, threads=1, solver=solver)
        assert calls == [solver, solver]
        calls.clear()
        for h, o in zip(highs, other):
            assert h.status == o.status == "optimal", criterion
            assert _close(h.criterion_value, o.criterion_value), (criterion, h.sense, h.criterion_value,
                                                                   o.criterion_value)
            assert o.verification.verified
            assert o.objective <= opt.objective + 1e-6 + 1e-6  # still an optimum of the outer level
            least = bilevel.hinge_lp(o.w_bar, (s.X_train, s.y_train)).value  # the independent training LP
            assert bilevel.hinge(s.X_train, s.y_train, o.w, o.b).mean() <= least + 1e-5


@pytest.mark.parametrize("solver", OTHER)
def test_a_result_of_another_solver_re_solves_with_it(solver, monkeypatch):
    data = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(data.X, data.y, 6, 6, seed=0)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "optimistic", solver=solver, threads=1)
    assert opt.solver == solver
    calls = []
    real = bilevel.ties.solve_other
    monkeypatch.setattr(bilevel.ties, "solve_other",
                        lambda model, name, **kw: calls.append(name) or real(model, name, **kw))
    low, high = optimistic_tie_range(opt, "sum_w_bar", threads=1)
    assert calls == [solver, solver]
    on_highs = optimistic_tie_range(opt, "sum_w_bar", threads=1, solver="highs")
    assert calls == [solver, solver]
    assert _close(low.criterion_value, on_highs.low.criterion_value)
    assert _close(high.criterion_value, on_highs.high.criterion_value)


def test_settings_of_the_other_solver_are_refused_before_any_solve(monkeypatch):
    X_t, y_t = np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0])
    opt = bilevel.tune(X_t, y_t, 2 * X_t, y_t, "optimistic")

    def no_solve(*a, **kw):
        raise AssertionError("no solve expected")

    monkeypatch.setattr(bilevel.ties, "solve_model", no_solve)
    monkeypatch.setattr(bilevel.ties, "solve_other", no_solve)
    with pytest.raises(bilevel.InputError, match="solver must be one of"):
        optimistic_tie_range(opt, solver="scip")
    with pytest.raises(bilevel.InputError, match="solver_options are for solver='gurobi' or 'cplex'"):
        optimistic_tie_range(opt, solver_options={"Seed": 1})
    for name in ("gurobi", "cplex"):  # refused whether the solver is installed or not
        with pytest.raises(bilevel.InputError, match="highs_options: HiGHS only"):
            optimistic_tie_range(opt, solver=name, highs_options={"mip_rel_gap": 0.0})
        with pytest.raises(bilevel.InputError, match="solver_options: .* must be a number or a string"):
            optimistic_tie_range(opt, solver=name, solver_options={"Seed": [1]})
    monkeypatch.setattr(bilevel.other_solvers, "unavailable_reason", lambda name: "not installed (test)")
    with pytest.raises(bilevel.InputError, match="cannot run: not installed \\(test\\)"):
        optimistic_tie_range(opt, solver="cplex")
