"""Mutation study 20, continued: the mutants of bilevel/solve.py that study 20 wrote but never ran (42 of its 137):
each test kills a mutant that passed the tests that exercise solve.py (tests/test_solve_honesty.py,
test_highs_faults.py, test_unsafe_options.py, test_option_names.py, test_input_errors.py, test_input_types.py,
test_highs_seed.py, test_mutation_study20.py, test_race.py, test_highs_interrupt.py, test_cutoff.py, test_clock.py;
five slow tests of test_cutoff.py and test_race.py deselected), against the documented behaviour (the docstrings
of solve_model, SolveInfo, _race, _feasible_values, _load_values, _node_count, _start_unimproved_at_root,
_Injector and check_highs_option) and an independent oracle (scipy.optimize.milp's optimum of the same small
MILP, a value worked by hand, or a HiGHS run faked through tests/highs_fakes.Faked). Of the 42, 26 were
killed by the existing tests and 16 survived: 14 are killed here and 2 are equivalent (i04: the rescue's status
fallback "time_limit" is reached only when no time or node is left, so ``left()`` never returns None there; b01:
on a tie the stale run's values and the re-solve's have the same objective and bound)."""
from __future__ import annotations

import time
from types import SimpleNamespace

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

import bilevel.solve as S
from bilevel.errors import InputError, SolverError
from highs_fakes import Faked
from test_mutation_study20 import _hooked, _milp, _tiny


def _zeros(m) -> list:
    """The all-zero point of a :func:`test_mutation_study20._milp` model as ``(VarData, value)`` pairs: feasible
    there (``A 0 = 0 <= b``, 0 within every bound)."""
    return [(v, 0.0) for v in m.component_data_objects(pyo.Var)]


def test_a_first_run_that_used_up_the_time_limit_exactly_is_not_solved_again(monkeypatch):
    """"No time left" means the time limit used up (solve_model's Returns): a stale first run (faked: its values
    miss its objective) of a solve given a MIP start, whose run time equals ``time_limit`` (30 s, faked), leaves no
    time for a re-solve: its values, which satisfy the model, come back as they are, status "time_limit", without a
    bound, ``seconds`` 30. Mutation testing: ``seconds_left < 0`` in place of ``<= 0`` (l01) passed the suite (it
    solved again with a time limit of 0). Oracle: the run count; scipy.optimize.milp's optimum, which the first
    run (really run to its end) holds."""
    m, optimum = _milp(3)
    real_configured, real_stale, runs = S._configured_highs, S._stale_solution, []

    def configured(*args, **kwargs):
        runs.append(real_configured(*args, **kwargs))
        return Faked(runs[-1], getRunTime=lambda: 30.0) if len(runs) == 1 else runs[-1]

    monkeypatch.setattr(S, "_configured_highs", configured)
    monkeypatch.setattr(S, "_stale_solution", lambda h, cm: getattr(h, "h", h) is runs[0] or real_stale(h, cm))
    info = S.solve_model(m, mip_start=_zeros(m), time_limit=30.0)
    assert len(runs) == 1  # no re-solve
    assert info.status == "time_limit" and info.seconds == 30.0
    assert info.best_bound == -np.inf and info.gap == np.inf
    assert info.objective == pytest.approx(optimum, abs=1e-6)


def test_a_stale_run_given_an_improve_solution_is_solved_again_without_it(monkeypatch):
    """When the values HiGHS returns miss the objective it reports and an ``improve`` solution was handed in (no
    ``mip_start``), the model is solved again without it (solve_model's Returns) and that run's optimum comes back,
    no SolverError. The first run is faked stale; ``improve`` hands in the feasible all-zero point. Mutation testing:
    the re-solve only for a ``mip_start`` (k01) passed the suite (SolverError "objective differs"). Oracle:
    scipy.optimize.milp's optimum."""
    m, optimum = _hooked(2)
    real_configured, real_stale, runs, calls = S._configured_highs, S._stale_solution, [], []

    def configured(*args, **kwargs):
        runs.append(real_configured(*args, **kwargs))
        return runs[-1]

    def improve(incumbent, bound, deadline):
        calls.append(incumbent)
        return _zeros(m)

    monkeypatch.setattr(S, "_configured_highs", configured)
    monkeypatch.setattr(S, "_stale_solution", lambda h, cm: h is runs[0] or real_stale(h, cm))
    info = S.solve_model(m, improve=improve, improve_after=0, clock="nodes", options={"presolve": "off"})
    assert len(calls) == 1 and len(runs) == 2
    assert info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)


def test_a_re_check_without_presolve_keeps_the_clock_of_the_hooks(monkeypatch):
    """``interrupt_when`` gets the run's ``clock`` in every run of a solve, its re-checks included (with
    ``clock="nodes"`` the hooks run at the same point of the search on any machine): a MILP whose first run is
    re-checked without presolve (the root check of a MIP start, forced) reads the node count in the re-check too.
    Mutation testing: the re-solve given ``clock="seconds"`` (a08) passed the suite. Oracle: the clock each
    ``_elapsed`` call was asked for, recorded; scipy.optimize.milp's optimum."""
    m, optimum = _hooked(3)
    re_solving, clocks, real_elapsed = [], [], S._elapsed

    def forced(*args):
        re_solving.append(True)
        return True

    def recording(out, clock):
        clocks.append((bool(re_solving), clock))
        return real_elapsed(out, clock)

    monkeypatch.setattr(S, "_start_unimproved_at_root", forced)
    monkeypatch.setattr(S, "_elapsed", recording)
    info = S.solve_model(m, mip_start=_zeros(m), interrupt_when=lambda objective, elapsed: False, clock="nodes")
    assert re_solving and info.options.get("presolve") == "off"
    assert any(again for again, _ in clocks) and {clock for _, clock in clocks} == {"nodes"}
    assert info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)


def _returning(cm, values):
    """A run of :func:`test_mutation_study20._tiny`'s compiled model (solved by HiGHS) whose ``getSolution``
    returns the column ``values`` (ordered as ``cm.columns``, by name here), else HiGHS's own."""
    h = S._configured_highs(cm, {}, None)
    h.run()
    solution = h.getSolution()
    solution.col_value = [values[v.name] for v in cm.columns]
    return Faked(h, getSolution=lambda: solution)


def test_feasible_values_refuse_an_infinite_value():
    """Values that are not all finite satisfy no model (``_feasible_values`` returns None), even where no bound
    or row is finite on their side: ``x = inf`` in ``x + z >= 0.5`` with ``x >= 0`` and no upper bound. Mutation
    testing: the finiteness check dropped (fv6) passed the suite. Oracle: the docstring (values that satisfy the
    model: real numbers)."""
    m = _tiny()
    m.x.setub(None)
    cm = S.compile_model(m)
    assert S._feasible_values(_returning(cm, {"x": 0.5, "z": 0.0}), cm) is not None
    assert S._feasible_values(_returning(cm, {"x": np.inf, "z": 0.0}), cm) is None


def test_loaded_integer_values_are_rounded():
    """``_load_values`` loads column values into the model's variables with the integers rounded, and returns the
    model's objective there: a binary HiGHS returns at 1 - 1e-7 (within its integrality tolerance) is loaded as 1.
    Mutation testing: no rounding (lv1) passed the suite. Oracle: the objective x + 2 z of ``_tiny`` by hand at
    x = 0.25, z = 1: 2.25."""
    m = _tiny()
    cm = S.compile_model(m)
    objective = S._load_values(m, cm, [{"x": 0.25, "z": 1 - 1e-7}[v.name] for v in cm.columns])
    assert m.z.value == 1.0 and m.x.value == 0.25 and objective == 2.25


def test_a_start_improved_at_the_root_is_not_re_checked():
    """``_start_unimproved_at_root`` holds only for the MIP start's own objective (1e-9 relative, a float's
    rounding): an objective 1e-4 better than the start's (0.9999 against 1.0, at node 0) is an improvement, not
    re-checked. Mutation testing: a 1e-3 tolerance (su2) passed the suite. Oracle: the objective x + 2 z of
    ``_tiny`` by hand at the start x = 1, z = 0: 1.0."""
    cm = S.compile_model(_tiny())
    start = [{"x": 1.0, "z": 0.0}[v.name] for v in cm.columns]
    assert S._start_unimproved_at_root(cm, start, 1.0, 0)
    assert not S._start_unimproved_at_root(cm, start, 0.9999, 0)


def test_check_highs_option_checks_a_numpy_scalar_as_its_number():
    """``check_highs_option`` checks a numpy scalar as its number (its docstring) and returns what HiGHS holds: a
    ``np.float32(0.25)`` gap is 0.25 (highspy itself refuses a float32), a ``np.float32`` NaN is "not a number".
    Mutation testing: the numpy scalar passed on as it is (co1) passed the suite. Oracle: the docstring; 0.25 is
    exact in float32."""
    assert S.check_highs_option("mip_rel_gap", np.float32(0.25)) == 0.25
    with pytest.raises(InputError, match="not a number"):
        S.check_highs_option("mip_rel_gap", np.float32("nan"))


def test_improves_deadline_is_where_the_time_limit_falls():
    """``improve(incumbent, dual_bound, deadline)`` gets the ``time.perf_counter()`` value at which the time limit
    falls: a run 20 s into a 30 s limit (a HiGHS callback faked) has 10 s left, so the deadline is 10 s after the
    call. Mutation testing: the deadline ``now + time_limit``, ignoring the run time (in2), passed the suite.
    Oracle: 30 - 20 by hand."""
    cm = S.compile_model(_tiny())
    deadlines: list = []
    injector = S._Injector(cm, lambda incumbent, bound, deadline: deadlines.append(deadline), 0.0, 30.0)
    out = SimpleNamespace(running_time=20.0, mip_node_count=5, mip_primal_bound=1.0, mip_dual_bound=0.5)
    before = time.perf_counter()
    injector.callback(SimpleNamespace(data_out=out, data_in=None), 0)
    after = time.perf_counter()
    assert len(deadlines) == 1 and before + 10.0 <= deadlines[0] <= after + 10.0


def test_a_solve_error_without_a_start_is_a_solver_error(monkeypatch):
    """A run HiGHS ends in a solve error, without a MIP start to blame, raises SolverError ("HiGHS failed"; the
    docstring's Raises: SolverError when HiGHS fails), whatever values it holds. The run's status is faked; HiGHS
    really solved it. Mutation testing: kSolveError left out of the failures (i08) passed the suite (it returned the
    values). Oracle: the docstring."""
    m, _ = _milp(5)
    real = S._configured_highs

    def failing(*args, **kwargs):
        return Faked(real(*args, **kwargs), getModelStatus=lambda: highspy.HighsModelStatus.kSolveError)

    monkeypatch.setattr(S, "_configured_highs", failing)
    with pytest.raises(SolverError, match="HiGHS failed"):
        S.solve_model(m)


def test_a_milp_stopped_at_a_large_gap_reports_that_gap():
    """``gap`` is the relative MIP gap ``|obj - bound| / |obj|`` (SolveInfo): a MILP stopped at ``mip_gap=0.9`` above
    its optimum reports at least ``(objective - optimum) / |objective|``, which its valid bound (at most the optimum)
    implies, and agrees with its own objective and bound. Mutation testing: HiGHS's gap read as 0 (h06) passed the
    suite. Oracle: scipy.optimize.milp's optimum."""
    stopped = 0
    for seed in range(6):
        m, optimum = _milp(seed, n_x=3, n_z=12, rows=6)
        info = S.solve_model(m, mip_gap=0.9, options={"presolve": "off"})
        assert info.best_bound <= optimum + 1e-6 <= info.objective + 2e-6
        if info.objective > optimum + 1e-6:
            stopped += 1
            assert info.gap >= (info.objective - optimum) / abs(info.objective) - 1e-9 > 0
            assert info.gap == pytest.approx(abs(info.objective - info.best_bound) / abs(info.objective), rel=1e-6)
    assert stopped, "HiGHS proved every MILP optimal at mip_gap=0.9: the instances no longer test this"


def test_a_run_that_reports_no_node_count_counts_zero_nodes(monkeypatch):
    """``nodes`` is the branch-and-bound node count, 0 for a run that reports none (``_node_count``): HiGHS's
    "no count" is -1 (its HighsInfo::invalidate and zeroHighsIterationCounts), faked here on a MILP HiGHS really
    solves; the result counts 0 nodes, never -1, and keeps the optimum. Mutation testing: the count taken as it is,
    without ``max(0, ...)`` (n01), passed the suite. Oracle: scipy.optimize.milp's optimum; HiGHS's -1 from its
    source."""
    m, optimum = _milp(1)
    real = S._configured_highs

    def uncounted(*args, **kwargs):
        h = real(*args, **kwargs)
        return Faked(h, getInfo=lambda: Faked(h.getInfo(), mip_node_count=-1))

    monkeypatch.setattr(S, "_configured_highs", uncounted)
    info = S.solve_model(m)
    assert info.nodes == 0 and info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)


def test_a_raced_claim_of_infeasibility_returns_the_best_incumbent_of_the_other_runs(monkeypatch):
    """In a race, a claim of infeasibility that other runs' incumbents disprove never raises; with no time left to
    check it the result is the BEST such incumbent (solve_model's Returns; ``_race``: "the run holding the best
    incumbent"), status "time_limit". A knapsack (maximise) raced three ways, every run faked: run 0 claims
    infeasibility at once with the time limit used up, run 1 holds item 1 (value 7), run 2 items 0 and 2 (value
    22); both stopped (interrupted) with a valid bound 30. The result is run 2's 22. Mutation testing: the first
    holder taken instead of the best (rc11) passed the suite (7). Oracle: the two points' values by hand and
    scipy's milp for the optimum 25, which the bound 30 holds."""
    weights, values = np.array([5, 4, 6, 3, 7, 2.0]), np.array([10, 7, 12, 5, 13, 3.0])
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(6), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(weights[i] * m.z[i] for i in range(6)) <= 13)
    m.o = pyo.Objective(expr=sum(values[i] * m.z[i] for i in range(6)), sense=pyo.maximize)
    points = {1: np.array([0, 1, 0, 0, 0, 0.0]), 2: np.array([1, 0, 1, 0, 0, 0.0])}
    configured = S._configured_highs

    def faked(cm, opts, start, injector=None, run=0, stopper=None):
        h = configured(cm, opts, start, injector, run, stopper)
        if run == 0:
            info = SimpleNamespace(objective_function_value=np.inf, primal_solution_status=0, mip_dual_bound=np.inf,
                                   mip_gap=np.inf, mip_node_count=0)
            return Faked(h, run=lambda: None, getRunTime=lambda: 1e6, getInfo=lambda: info,
                         getModelStatus=lambda: highspy.HighsModelStatus.kInfeasible,
                         getSolution=highspy.HighsSolution)
        solution = highspy.HighsSolution()
        solution.col_value, solution.value_valid = [points[run][int(v.index())] for v in cm.columns], True
        info = SimpleNamespace(objective_function_value=float(values @ points[run]), primal_solution_status=2,
                               mip_dual_bound=30.0, mip_gap=np.inf, mip_node_count=0)
        return Faked(h, run=lambda: None, getRunTime=lambda: 0.5, getInfo=lambda: info, getSolution=lambda: solution,
                     getModelStatus=lambda: highspy.HighsModelStatus.kInterrupt)

    monkeypatch.setattr(S, "_configured_highs", faked)
    info = S.solve_model(m, race=3, time_limit=30.0)
    optimum = -milp(-values, constraints=LinearConstraint(weights[None, :], ub=13), integrality=np.ones(6),
                    bounds=Bounds(0, 1)).fun
    assert optimum == pytest.approx(25.0) and info.status == "time_limit"
    assert info.objective == pytest.approx(22.0) and [m.z[i].value for i in range(6)] == list(points[2])
    assert info.best_bound == 30.0 >= optimum


def test_raced_seeds_wrap_at_2_to_the_31(monkeypatch):
    """The raced runs get the seeds ``(random_seed + k) mod 2**31`` (solve_model's ``race``): from the largest
    seed HiGHS takes, 2**31 - 1, a race of two runs 2**31 - 1 and 0, and the result records the winner's, one of
    them. Mutation testing: the seeds wrapped at 2**31 - 1 (rc13: 0 and 1) passed the suite. Oracle: the
    docstring's formula by hand; scipy's milp for the optimum."""
    m, optimum = _milp(2)
    real, seeds = S._configured_highs, []

    def recording(cm, opts, *args, **kwargs):
        seeds.append(opts.get("random_seed"))
        return real(cm, opts, *args, **kwargs)

    monkeypatch.setattr(S, "_configured_highs", recording)
    info = S.solve_model(m, race=2, options={"random_seed": 2**31 - 1})
    assert sorted(seeds) == [0, 2**31 - 1] and info.random_seed in (0, 2**31 - 1)
    assert info.objective == pytest.approx(optimum, abs=1e-6)


def test_a_raced_run_that_raises_stops_the_others(monkeypatch):
    """A raced run that ends by raising stops the others, as any run that finishes does (``_race``: "the first to
    finish interrupts the others"), and its exception is re-raised: run 0 raises at once, its HiGHS status
    "interrupted" (faked: as a run a Ctrl-C stopped, then raised by ``sigint_as_flag``), which alone would not stop
    the others (a limit every run has is not a finish), run 1 (a MILP
    HiGHS solves in its tree, presolve off) starts once the race's stop is set, or after 2 s without it, and is
    interrupted at its first check instead of solved to its end. Mutation testing: the error not setting the stop
    (rc12) passed the suite (run 1 ran to "optimal"). Oracle: HiGHS's own model status of run 1."""
    m, _ = _hooked(1)
    real, runs = S._configured_highs, {}

    def failing(*args):
        raise RuntimeError("run 0 failed")

    def configured(cm, opts, start, injector=None, run=0, stopper=None):
        h = real(cm, opts, start, injector, run, stopper)
        runs[run] = h
        if run == 0:
            return Faked(h, run=failing, getModelStatus=lambda: highspy.HighsModelStatus.kInterrupt)

        def after_the_stop():
            stopper.stop.wait(2.0)
            return h.run()

        return Faked(h, run=after_the_stop)

    monkeypatch.setattr(S, "_configured_highs", configured)
    with pytest.raises(RuntimeError, match="run 0 failed"):
        S.solve_model(m, race=2, options={"presolve": "off"})
    assert runs[1].getModelStatus() == highspy.HighsModelStatus.kInterrupt
