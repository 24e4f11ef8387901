"""Mutation study 20 of the HiGHS driver (bilevel/solve.py: compile_model, solve_model, SolveInfo,
check_highs_option and their helpers): each test kills a mutant that passed the tests of the module run for it
(tests/test_solve_honesty.py, test_input_errors.py, test_input_types.py, test_highs_faults.py, test_unsafe_options.py,
test_option_names.py and, by the code mutated, test_warmstart.py, test_race.py, test_highs_seed.py, test_clock.py,
test_highs_interrupt.py), against the documented behaviour (the docstrings of solve_model, SolveInfo, compile_model,
check_highs_option, _start_vector and _start_unimproved_at_root) and an independent oracle: scipy.optimize.milp /
linprog on the same small (MI)LP written out as matrices here, or a closed form worked by hand. Of 97 mutants run,
58 were killed by the existing tests and 39 survived: 32 are killed here (rc08, the dual bound of a raced run that
claims infeasibility counted, by a run faked to make that claim with a finite bound) and 7 are equivalent (c02 row
kinds, c08 NaN bounds Pyomo refuses first, st04, v08, h08, h11, cf1); two more (c03, rc07) were judged equivalent by
reading. The 42 mutants written but not run here are run in tests/test_mutation_study20b.py."""
from __future__ import annotations

import time

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

import bilevel.solve as S
from bilevel.errors import InputError
from highs_fakes import Faked


def _milp(seed: int, sense=pyo.minimize, offset: float = 0.0, n_x: int = 3, n_z: int = 3, rows: int = 3):
    """A random bounded, feasible MILP ``sense c^T v + offset`` s.t. ``A v <= b`` (``v = 0`` is feasible), continuous
    ``x`` in [0, 4] and binaries ``z``, as a Pyomo model, with its optimum by scipy's ``milp`` (the oracle)."""
    rng = np.random.default_rng(seed)
    n = n_x + n_z
    A = rng.integers(-3, 4, (rows, n)).astype(float)
    b = rng.integers(1, 6, rows).astype(float)
    c = rng.integers(-5, 4, n).astype(float) * (1 if sense == pyo.minimize else -1)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(n_x), bounds=(0, 4))
    m.z = pyo.Var(range(n_z), within=pyo.Binary)
    v = [m.x[j] for j in range(n_x)] + [m.z[j] for j in range(n_z)]
    m.rows = pyo.Constraint(range(rows), rule=lambda m, i: sum(A[i, j] * v[j] for j in range(n)) <= b[i])
    m.obj = pyo.Objective(expr=sum(c[j] * v[j] for j in range(n)) + offset, sense=sense)
    sign = 1.0 if sense == pyo.minimize else -1.0
    res = milp(sign * c, constraints=LinearConstraint(A, -np.inf, b), integrality=[0] * n_x + [1] * n_z,
               bounds=Bounds([0] * n, [4] * n_x + [1] * n_z))
    assert res.status == 0
    return m, sign * res.fun + offset


def _tiny():
    """min x + 2 z s.t. x + z >= 0.5, x in [0, 1], z binary: optimum 0.5 at x = 0.5, z = 0 (by hand)."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.z = pyo.Var(within=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x + m.z >= 0.5)
    m.o = pyo.Objective(expr=m.x + 2 * m.z)
    return m


# --------------------------------------------------------------------------------------------------
# compile_model: what HiGHS is given
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sense", [pyo.minimize, pyo.maximize])
def test_an_objective_constant_counts_in_the_best_bound(sense):
    """``objective`` and ``best_bound`` are in the model's own objective units (SolveInfo), constant included: an
    optimal MILP with an objective constant 10 has bound = objective = scipy's optimum + 10 and gap 0, status
    "optimal". Kills c04 (the constant left out of the HiGHS model: the objective, evaluated in Pyomo, kept it, the
    bound did not, and the solve was reported "gap_limit" with a bound 10 off). Oracle: scipy.optimize.milp."""
    for seed in range(3):
        m, optimum = _milp(seed, sense=sense, offset=10.0)
        info = S.solve_model(m)
        assert info.status == "optimal" and info.optimal
        assert info.objective == pytest.approx(optimum, abs=1e-6)
        assert info.best_bound == pytest.approx(optimum, abs=1e-6) and info.gap <= 1e-6


def test_infinite_coefficients_are_refused_and_an_infinite_right_hand_side_is_not():
    """An infinite objective or constraint coefficient is refused (InputError), while an infinite right-hand side (a
    row ``x + z >= -inf``, always satisfied) is a valid model: it solves to the optimum of the model without it. Kills
    c07 (the infinity check applied to the right-hand side instead of the coefficients). Oracle: the hand optimum
    0.5 of :func:`_tiny`."""
    m = _tiny()
    m.o.deactivate()
    m.o2 = pyo.Objective(expr=float("inf") * m.x + 2 * m.z)
    with pytest.raises(InputError, match="objective"):
        S.solve_model(m)
    m = _tiny()
    m.c2 = pyo.Constraint(expr=float("inf") * m.x + m.z >= 0.25)
    with pytest.raises(InputError, match="constraint"):
        S.solve_model(m)
    m = _tiny()
    m.free = pyo.Constraint(expr=m.x + m.z >= -float("inf"))
    info = S.solve_model(m)
    assert info.status == "optimal" and info.objective == pytest.approx(0.5, abs=1e-9)


def test_a_model_without_an_active_objective_is_refused():
    """compile_model (and solve_model) raise InputError for a model with no active objective, as for several
    (compile_model's docstring). Kills c09 (``len(objectives) > 1``: a model without one failed with a raw
    IndexError). Oracle: the docstring."""
    m = _tiny()
    m.o.deactivate()
    for f in (S.compile_model, S.solve_model):
        with pytest.raises(InputError, match="exactly one active objective"):
            f(m)


def test_the_size_counts_and_the_compile_time_are_reported():
    """SolveInfo's ``n_variables``, ``n_binaries`` and ``n_constraints`` count the compiled model (columns, integer
    columns, rows), and ``compile_seconds`` is the compile's (positive) wall time. Kills c11 and f02 (the column count
    reported as ``n_constraints``), c12 and f01 (``compile_seconds`` 0). Oracle: the counts of the model written
    here (6 columns, 3 of them binary, 5 rows)."""
    m, optimum = _milp(3, n_x=3, n_z=3, rows=5)
    info = S.solve_model(m)
    assert (info.n_variables, info.n_binaries, info.n_constraints) == (6, 3, 5)
    assert info.compile_seconds > 0 and S.compile_model(m).seconds > 0
    assert info.objective == pytest.approx(optimum, abs=1e-6)


# --------------------------------------------------------------------------------------------------
# solve_model: status, gap and limits
# --------------------------------------------------------------------------------------------------


def test_a_large_mip_gap_is_honoured_recorded_and_reported_as_gap_limit():
    """``mip_gap`` is the relative gap at which HiGHS stops; a solve that stops with a gap above HiGHS's default
    tolerances has status "gap_limit", not "optimal" (and so ``optimal`` is False), its bound below the optimum
    and its objective above; ``options`` record ``mip_rel_gap`` (they repeat the solve). Kills v10 (the gap not passed
    to HiGHS: every solve optimal, the record without it), s01 (``optimal`` True for "gap_limit") and h13 (no
    "gap_limit"). Oracle: scipy.optimize.milp's optimum of each MILP."""
    stopped = 0
    for seed in range(6):
        m, optimum = _milp(seed, n_x=3, n_z=12, rows=6)
        info = S.solve_model(m, mip_gap=0.9, options={"presolve": "off"})
        assert info.options["mip_rel_gap"] == 0.9
        assert info.best_bound <= optimum + 1e-6 <= info.objective + 2e-6
        assert info.gap <= 0.9
        if info.objective > optimum + 1e-6:
            stopped += 1
            assert info.status == "gap_limit" and not info.optimal
        else:
            assert info.status in ("optimal", "gap_limit")
            assert info.optimal == (info.status == "optimal")
    assert stopped, "HiGHS proved every MILP optimal at mip_gap=0.9: the instances no longer test this"


def test_a_milp_stopped_at_its_objective_target_is_not_reported_optimal():
    """HiGHS stops a MILP once its incumbent reaches the option ``objective_target``; the result's status is then
    HiGHS's "objective_target" (never "optimal" or "gap_limit": nothing stopped it at a mip_gap), with a bound
    that holds and an objective no better than the optimum. Kills st06 (kObjectiveTarget mapped to "optimal",
    reported as "gap_limit"). Oracle: scipy.optimize.milp's optimum."""
    targeted = 0
    for seed in range(6):
        m, optimum = _milp(seed, n_x=4, n_z=8, rows=5)
        info = S.solve_model(m, options={"objective_target": optimum + 5, "presolve": "off"})
        assert info.best_bound <= optimum + 1e-6 <= info.objective + 2e-6
        if info.status != "optimal":
            targeted += 1
            assert info.status == "objective_target" and not info.optimal
        else:
            assert info.objective == pytest.approx(optimum, abs=1e-6)
    assert targeted, "HiGHS never stopped at the objective target: the instances no longer test this"


def test_improve_after_zero_is_accepted():
    """``improve_after`` is refused only when negative or NaN: 0 is valid (a hook may then run from HiGHS's first
    user-solution callback). Kills v02 (``allow_zero=False``: InputError for 0). Oracle: the docstring; the solve's
    optimum against scipy.optimize.milp."""
    m, optimum = _milp(3, n_x=3, n_z=12, rows=6)
    info = S.solve_model(m, improve=lambda incumbent, bound, deadline: None, improve_after=0.0,
                         options={"presolve": "off"})
    assert info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)


@pytest.mark.parametrize("options", [[("presolve", "off")], (("presolve", "off"),), "presolve"])
def test_options_that_are_not_a_mapping_are_refused(options):
    """``options`` must be a mapping of HiGHS option names to values: a list or tuple of pairs, or a string, is an
    InputError (not a raw AttributeError from inside). Kills v03 (lists and tuples let through). Oracle: the
    docstring (Raises)."""
    with pytest.raises(InputError, match="options must be a mapping"):
        S.solve_model(_tiny(), options=options)


def _harness(request) -> dict:
    """The options ``pytest --highs-seed N`` puts under every solve that sets no seed (tests/highs_seed.py), which
    ``options`` then records: ``{"random_seed": N}``, or none without that flag."""
    seed = request.config.getoption("--highs-seed")
    return {} if seed is None else {"random_seed": seed}


@pytest.mark.parametrize("threads", [0, 1])
def test_the_arguments_are_recorded_in_options_and_threads_zero_is_valid(threads, request):
    """``options`` are the HiGHS options that repeat the solve: the ``time_limit``, ``mip_gap`` (as ``mip_rel_gap``)
    and ``threads`` the caller gave; ``threads`` 0 is valid (HiGHS's default). Kills v09 (time limit not passed),
    v10 (gap not passed), v11 (threads not passed) and v12 (threads 0 refused). Oracle: the docstrings; the optimum
    against scipy.optimize.milp."""
    m, optimum = _milp(1)
    info = S.solve_model(m, time_limit=1000, mip_gap=1e-3, threads=threads)
    assert info.options == {"time_limit": 1000.0, "mip_rel_gap": 1e-3, "threads": threads, **_harness(request)}
    assert info.objective == pytest.approx(optimum, abs=1e-6) and info.status == "optimal"


def test_a_solve_given_threads_recreates_the_schedulers_of_its_thread():
    """A solve given ``threads`` re-creates its thread's HiGHS scheduler first, so it runs whatever count an earlier
    HiGHS run of that thread created it with: HiGHS's default (half the cores), then 2, then 1. Kills v15 (no
    re-creation: HiGHS refused to run, "HiGHS did not run the model") and ms1 (``threads=1`` not re-created after a
    run with 2). Run in a fresh thread, whose scheduler the first solve creates. Oracle: scipy.optimize.milp's
    optimum."""
    import threading

    m, optimum = _milp(2)
    results: list = []

    def work():
        try:
            for threads in (None, 2, 1):
                results.append(S.solve_model(m, threads=threads).objective)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            results.append(exc)

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert results == [pytest.approx(optimum, abs=1e-6)] * 3


def test_an_lp_is_never_raced(monkeypatch, request):
    """``race`` applies to MILPs only: an LP is one plain run (race's docstring, "LPs are never raced"), whose
    result carries no racer's seed; an LP has no branch-and-bound nodes (``nodes`` 0) and, optimal, its bound is its
    objective. Kills v18 (an LP raced like a MILP) and p01 (an optimal LP reported with one node). Oracle:
    scipy.optimize.linprog's optimum; the race helper replaced by one that fails."""
    rng = np.random.default_rng(4)
    A, b, c = rng.random((4, 5)), rng.random(4) + 1, rng.random(5)
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(5), bounds=(0, None))
    m.c = pyo.Constraint(range(4), rule=lambda m, i: sum(A[i, j] * m.x[j] for j in range(5)) <= b[i])
    m.o = pyo.Objective(expr=sum(c[j] * m.x[j] for j in range(5)), sense=pyo.maximize)

    def no_race(*args, **kwargs):
        raise AssertionError("an LP was raced")

    monkeypatch.setattr(S, "_race", no_race)
    info = S.solve_model(m, race=3)
    assert info.status == "optimal" and info.objective == pytest.approx(-linprog(-c, A_ub=A, b_ub=b).fun, rel=1e-9)
    assert info.random_seed == _harness(request).get("random_seed", 0) and info.options == _harness(request)
    assert info.nodes == 0 and info.gap == 0.0 and info.best_bound == info.objective


def test_a_raced_maximisation_stopped_at_a_limit_returns_the_largest_incumbent(monkeypatch):
    """When every raced run stops at a limit, the result is the best incumbent over the runs (``_race``'s
    docstring), for a maximisation the largest: a knapsack whose two runs start at different feasible points
    (run 0 at 0, run 1 at items 0 and 2, value 22) and stop at ``mip_max_nodes=0`` holding them returns 22, run 1's
    seed, and not 0. Kills rc05 (the sign of a maximisation dropped in the choice). Oracle: the two starts'
    values by hand, and scipy's milp for the optimum 25 the limit stops short of."""
    weights, values = np.array([5, 4, 6, 3, 7, 2.0]), np.array([10, 7, 12, 5, 13, 3.0])
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(6), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(weights[i] * m.z[i] for i in range(6)) <= 13)
    m.o = pyo.Objective(expr=sum(values[i] * m.z[i] for i in range(6)), sense=pyo.maximize)
    starts = {0: np.zeros(6), 1: np.array([1, 0, 1, 0, 0, 0.0])}
    configured = S._configured_highs

    def own_start(cm, opts, start, injector=None, run=0, stopper=None):
        return configured(cm, opts, starts[run], injector, run, stopper)

    monkeypatch.setattr(S, "_configured_highs", own_start)
    info = S.solve_model(m, race=2, options={"mip_max_nodes": 0, "random_seed": 7})
    optimum = -milp(-values, constraints=LinearConstraint(weights[None, :], ub=13), integrality=np.ones(6),
                    bounds=Bounds(0, 1)).fun
    assert optimum == pytest.approx(25.0) and info.status != "optimal"
    assert info.objective == pytest.approx(values @ starts[1]) and info.random_seed == 8


def test_a_raced_run_claiming_infeasibility_proves_no_bound(monkeypatch):
    """The race's best bound is the tightest over the runs that do not claim the model infeasible (``_race``'s
    docstring): run 0 stops at ``mip_max_nodes=0`` holding its start (items 0 and 2, objective -22, no dual bound
    yet), run 1 ends after it claiming infeasibility with a (faked) finite dual bound of 100. The result keeps run
    0's incumbent with no bound (-inf, gap inf), as a single run stopped there. Kills rc08 (the claiming run's
    bound counted: best bound -22 and gap 0, a proof that nothing gave). Oracle: scipy's milp for the optimum -25,
    below -22, so no bound at -22 is valid."""
    weights, values = np.array([5, 4, 6, 3, 7, 2.0]), np.array([10, 7, 12, 5, 13, 3.0])
    m = pyo.ConcreteModel()
    m.z = pyo.Var(range(6), domain=pyo.Binary)
    m.cap = pyo.Constraint(expr=sum(weights[i] * m.z[i] for i in range(6)) <= 13)
    m.o = pyo.Objective(expr=-sum(values[i] * m.z[i] for i in range(6)))
    start = np.array([1, 0, 1, 0, 0, 0.0])
    configured, runs = S._configured_highs, []

    def claiming(cm, opts, _start, injector=None, run=0, stopper=None):
        h = configured(cm, opts, start, injector, run, stopper)
        runs.append(h)
        if run == 0:
            return h

        def after_run_0():
            while runs[0].getModelStatus() == highspy.HighsModelStatus.kNotset:
                time.sleep(0.01)
            time.sleep(0.2)  # run 0 has left HiGHS: it ends first

        return Faked(h, run=after_run_0, getModelStatus=lambda: highspy.HighsModelStatus.kInfeasible,
                     getInfo=lambda: Faked(h.getInfo(), mip_dual_bound=100.0, primal_solution_status=0))

    monkeypatch.setattr(S, "_configured_highs", claiming)
    info = S.solve_model(m, race=2, options={"mip_max_nodes": 0})
    optimum = milp(-values, constraints=LinearConstraint(weights[None, :], ub=13), integrality=np.ones(6),
                   bounds=Bounds(0, 1)).fun
    assert optimum == pytest.approx(-25.0) and info.objective == pytest.approx(-values @ start)
    assert info.objective > optimum + 1
    assert info.status == "solution_limit" and info.best_bound == -np.inf and info.gap == np.inf


# --------------------------------------------------------------------------------------------------
# solve_model: the hooks
# --------------------------------------------------------------------------------------------------


def _hooked(seed: int = 0):
    """A MILP that HiGHS (presolve off) solves in its tree: it calls both hooks (user-solution and interrupt
    callbacks), and its optimum by scipy.optimize.milp."""
    return _milp(seed, n_x=3, n_z=12, rows=6)


def test_interrupt_when_gets_only_incumbents_and_its_stop_is_reported_interrupted():
    """``interrupt_when(objective, elapsed)`` is called once a run has an incumbent (a finite objective, never better
    than the optimum); when it returns True the result has status "interrupted" with that incumbent and a valid
    bound. Kills sp1 (called before any incumbent, with an infinite objective) and st03 (kInterrupt reported as
    "time_limit"). Oracle: scipy.optimize.milp's optimum."""
    m, optimum = _hooked(0)
    seen: list = []

    def stop(objective, elapsed):
        seen.append(objective)
        return True

    info = S.solve_model(m, interrupt_when=stop, options={"presolve": "off"})
    assert seen and all(np.isfinite(seen)) and min(seen) >= optimum - 1e-6
    assert info.status == "interrupted" and not info.optimal
    assert info.best_bound <= optimum + 1e-6 <= info.objective + 2e-6


@pytest.mark.parametrize("hook", ["improve", "interrupt_when"])
def test_an_exception_from_a_hook_is_re_raised_after_the_solve(hook):
    """An exception ``improve`` or ``interrupt_when`` raises stops the runs and is re-raised after the solve (the
    docstring). Kills v19 (the hooks' errors dropped: the solve returned a result). Oracle: the docstring."""
    m, _ = _hooked(1)

    def fail(*args):
        raise ZeroDivisionError("from the hook")

    kwargs = {"improve": fail, "improve_after": 0.0} if hook == "improve" else {"interrupt_when": fail}
    start = [(var, 0.0) for var in m.component_data_objects(pyo.Var)]  # an incumbent from the first interrupt check
    with pytest.raises(ZeroDivisionError, match="from the hook"):
        S.solve_model(m, mip_start=start, options={"presolve": "off"}, **kwargs)


def test_improve_after_zero_nodes_calls_improve_with_the_incumbent_and_the_bound():
    """``improve(incumbent, dual_bound, deadline)`` runs once a MILP is still running after ``improve_after`` on
    ``clock``: with 0 nodes, in the first user-solution callback, exactly once, with HiGHS's incumbent (not better
    than the optimum) and dual bound (not above it) and no deadline without a time limit. Kills in1 (``>`` in place of
    ``>=``: not called at node 0) and in3 (incumbent and bound swapped). Oracle: scipy.optimize.milp's optimum."""
    for seed in range(3):
        m, optimum = _hooked(seed)
        calls: list = []
        info = S.solve_model(m, improve=lambda *args: calls.append(args), improve_after=0, clock="nodes",
                             options={"presolve": "off"})
        assert len(calls) == 1
        incumbent, bound, deadline = calls[0]
        assert bound <= optimum + 1e-6 and (incumbent >= optimum - 1e-6) and deadline is None
        assert info.objective == pytest.approx(optimum, abs=1e-6)


# --------------------------------------------------------------------------------------------------
# the helpers, against closed forms and brute force
# --------------------------------------------------------------------------------------------------


def test_a_start_at_the_root_is_checked_up_to_node_one():
    """``_start_unimproved_at_root``: a MILP that ends at node 0 or 1 (HiGHS counts the root once it enters its tree)
    with its MIP start's objective (within 1e-9 relative) is re-checked; node 2, another objective or no start is
    not. Kills su1 (node 1 not counted). Oracle: the objective x + 2 z of :func:`_tiny` by hand (start x = 1, z = 0:
    1.0)."""
    cm = S.compile_model(_tiny())
    start = [{"x": 1.0, "z": 0.0}[v.name] for v in cm.columns]
    assert S._start_unimproved_at_root(cm, start, 1.0, 0) and S._start_unimproved_at_root(cm, start, 1.0, 1)
    assert not S._start_unimproved_at_root(cm, start, 1.0, 2)
    assert not S._start_unimproved_at_root(cm, start, 0.5, 0) and not S._start_unimproved_at_root(cm, None, 1.0, 0)


@pytest.mark.parametrize("empty", [[], {}, np.zeros((0, 2))])
def test_an_empty_mip_start_is_no_start(empty, request):
    """A MIP start of length 0 is no start (``_given``): the solve is the one without a start, so its optimum at the
    all-zero point (which a start of zeros, 0 clipped to the bounds, would hit at the root) is not re-checked without
    presolve (no ``presolve="off"`` in ``options``). Kills gv1 (an empty start taken as a start of zeros). Oracle:
    the solve without ``mip_start``; the optimum 0 by hand (min x + 2 z, x + z >= 0, x in [0, 1], z binary)."""
    def model():
        m = _tiny()
        m.c.set_value(m.x + m.z >= 0)
        return m

    plain = S.solve_model(model())
    info = S.solve_model(model(), mip_start=empty)
    assert info.objective == plain.objective == 0.0 and info.status == plain.status == "optimal"
    assert info.options == plain.options == _harness(request)


def test_a_start_value_none_is_not_given():
    """A MIP start pair ``(variable, None)`` leaves that variable out (0 clipped to its bounds), as ``_start_vector``
    documents; it is no InputError. Kills sv1 (None read as a number: InputError). Oracle: the hand optimum 0.5 of
    :func:`_tiny`."""
    m = _tiny()
    info = S.solve_model(m, mip_start=[(m.x, None), (m.z, 1.0)])
    assert info.status == "optimal" and info.objective == pytest.approx(0.5, abs=1e-9)
    assert S._start_vector(S.compile_model(m), [(m.x, None)]) == [0.0, 0.0]


def test_check_highs_option_returns_the_value_highs_holds():
    """check_highs_option returns the value HiGHS holds once set (the int 3 for the string "3", a float for the int 1
    of a double option), and refuses NaN. Kills co3 (the given value returned) and co2 (NaN let through). Oracle:
    the docstring."""
    held = S.check_highs_option("random_seed", "3")
    assert held == 3 and isinstance(held, int)
    held = S.check_highs_option("mip_rel_gap", 1)
    assert held == 1.0 and isinstance(held, float)
    with pytest.raises(InputError, match="not a number"):
        S.check_highs_option("mip_rel_gap", float("nan"))


def test_an_unbounded_milp_is_a_solver_error_not_a_stop_or_an_infeasibility():
    """A MILP HiGHS reports unbounded (or "infeasible or unbounded", with presolve) raises SolverError, neither
    NoSolutionError (a solve stopped early) nor InfeasibleModelError, on which callers act. Kills i06 (the status
    "unbounded_or_infeasible" left to NoSolutionError). Oracle: scipy.optimize.linprog calls it unbounded with z
    fixed at 0 (status 3)."""
    from bilevel.errors import SolverError

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.z = pyo.Var(within=pyo.Binary)
    m.c = pyo.Constraint(expr=m.x + m.z >= 0.5)
    m.o = pyo.Objective(expr=-m.x + 2 * m.z)
    # z = 0 is integral and the LP over x then unbounded: so is the MILP
    assert linprog([-1.0, 2.0], A_ub=[[-1.0, -1.0]], b_ub=[-0.5], bounds=[(0, None), (0, 0)]).status == 3
    for options in ({}, {"presolve": "off"}):
        with pytest.raises(SolverError, match="unbounded") as caught:
            S.solve_model(m, options=options)
        assert not isinstance(caught.value, (S.NoSolutionError, S.InfeasibleModelError))


def test_interrupt_when_reaches_a_re_solve(monkeypatch):
    """``interrupt_when`` holds for every run of a solve, its re-solves included (each gets the hooks): a MILP whose
    first run is re-checked without presolve (here: the root check of a MIP start, forced) stops in the re-check
    when the hook says so, status "interrupted". Kills a07 (the re-solve run without ``interrupt_when``: "optimal").
    Oracle: scipy.optimize.milp's optimum bounds the interrupted result."""
    m, optimum = _hooked(3)
    re_solving = []

    def forced(*args):
        re_solving.append(True)
        return True

    monkeypatch.setattr(S, "_start_unimproved_at_root", forced)
    start = [(v, 0.0) for v in m.component_data_objects(pyo.Var)]  # the all-zero point is feasible
    info = S.solve_model(m, mip_start=start, interrupt_when=lambda objective, elapsed: bool(re_solving))
    assert re_solving and info.options.get("presolve") == "off"
    assert info.status == "interrupted" and info.best_bound <= optimum + 1e-6 <= info.objective + 2e-6


def test_a_solve_error_from_a_mip_start_is_solved_again_without_it(monkeypatch):
    """A run given a ``mip_start`` that HiGHS ends in a solve error is solved again without the start (the
    docstring; HiGHS 1.15.1 has done so on a tie re-solve), and that run's optimum comes back. Kills i07 (the re-solve
    only without a start: SolverError "HiGHS failed"). The first run's status is faked; the starts each run gets are
    recorded. Oracle: scipy.optimize.milp's optimum."""
    import highspy

    m, optimum = _milp(5)
    real, starts = S._configured_highs, []

    def configured(cm, opts, start, *args, **kwargs):
        h = real(cm, opts, start, *args, **kwargs)
        starts.append(start)
        if len(starts) == 1:
            return Faked(h, getModelStatus=lambda: highspy.HighsModelStatus.kSolveError)
        return h

    monkeypatch.setattr(S, "_configured_highs", configured)
    info = S.solve_model(m, mip_start=[(v, 0.0) for v in m.component_data_objects(pyo.Var)])
    assert starts[0] is not None and starts[1:] == [None]
    assert info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)


def test_a_stale_first_run_and_its_re_solve_sum_their_nodes(monkeypatch):
    """When the first run's values miss its reported objective and a MIP start was handed in, the model is solved
    again without it, and the result's ``nodes`` (as ``seconds``) sum both runs (SolveInfo). Kills h07 (only the
    re-solve's nodes). The first run is faked stale; the node counts are HiGHS's own for each run. Oracle:
    scipy.optimize.milp's optimum."""
    m, optimum = _hooked(0)
    real_configured, real_stale, runs = S._configured_highs, S._stale_solution, []

    def configured(*args, **kwargs):
        runs.append(real_configured(*args, **kwargs))
        return runs[-1]

    monkeypatch.setattr(S, "_configured_highs", configured)
    monkeypatch.setattr(S, "_stale_solution", lambda h, cm: h is runs[0] or real_stale(h, cm))
    info = S.solve_model(m, mip_start=[(v, 0.0) for v in m.component_data_objects(pyo.Var)],
                         options={"presolve": "off"})
    counts = [int(h.getInfo().mip_node_count) for h in runs]
    assert len(runs) == 2 and counts[0] >= 1 and info.nodes == sum(counts)
    assert info.seconds == pytest.approx(sum(h.getRunTime() for h in runs), rel=1e-9)
    assert info.status == "optimal" and info.objective == pytest.approx(optimum, abs=1e-6)

