"""``tune(..., solver="gurobi" | "cplex")`` and :func:`bilevel.other_solvers.solve_other`: the same optima as
HiGHS (an independent solver on the same models), verified; honest statuses under limits; clear errors."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel import other_solvers
from bilevel.cli import main
from bilevel.errors import InputError, SolverError
from bilevel.other_solvers import solve_other, unavailable_reason
from bilevel.solve import InfeasibleModelError, _proven
from bilevel.verify import verify_model
from bilevel.warmstart import kkt_start
from experiments.bench_milp import benchmark_split

OTHER = [pytest.param(name, marks=pytest.mark.skipif(unavailable_reason(name) is not None,
                                                      reason=f"{name} cannot run here"))
         for name in ("gurobi", "cplex")]


def _tune(split, solver, **kw):
    return bilevel.tune(split.X_train, split.y_train, split.X_val, split.y_val, solver=solver, **kw)


def _same_optimum(a, b):
    """Two proven solutions of one MILP: objectives within the solvers' default gaps (relative 1e-4 or absolute
    1e-6: HiGHS with random_seed 1 proved 0.479202 where Gurobi and CPLEX proved 0.479171), and each objective at
    or above the other solver's dual bound, which holds for every feasible point."""
    assert a.objective == pytest.approx(b.objective, rel=1e-4, abs=1e-6)
    assert a.objective >= b.best_bound - 1e-6 and b.objective >= a.best_bound - 1e-6


@pytest.mark.parametrize("solver", OTHER)
@pytest.mark.parametrize("data, n, seed", [("cancer", 12, 0), ("diabetes", 10, 1), ("diabetes", 12, 2)])
def test_same_optima_as_highs_in_both_modes(solver, data, n, seed):
    split = benchmark_split(data, n, seed)
    highs_opt = _tune(split, "highs")
    other_opt = _tune(split, solver)
    assert other_opt.solver == solver and highs_opt.solver == "highs"
    assert other_opt.optimal and other_opt.verified
    _same_optimum(other_opt, highs_opt)
    assert other_opt.to_dict()["solver"] == solver
    for kw in (dict(epsilon=0.2, flip="all"), dict(epsilon=0.0, flip="margin")):
        highs_pes = _tune(split, "highs", mode="pessimistic", optimistic=highs_opt, **kw)
        other_pes = _tune(split, solver, mode="pessimistic", optimistic=other_opt, **kw)
        assert other_pes.optimal and other_pes.verified, other_pes.verification.messages
        # the flipped sets come from the two optimistic hyperplanes, which may be different tied optima
        if np.array_equal(highs_pes.flipped, other_pes.flipped) and highs_pes.lambda_bound == other_pes.lambda_bound:
            _same_optimum(other_pes, highs_pes)


@pytest.mark.parametrize("solver", OTHER)
def test_the_box_search_runs_first_and_the_model_is_rebuilt_around_its_value(solver):
    # cancer 50/50 split 1: the box search beats the MIP start at w_bar_ub (0.306), so the model solved is the one
    # rebuilt around the search's value, and the answer is still the optimum HiGHS proves
    split = benchmark_split("cancer", 50, 1)
    plain = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    start_value = float(np.mean([value for var, value in kkt_start(plain) if var.parent_component() is plain.g]))
    res = _tune(split, solver)
    cutoff = res.model.bilevel_info["objective_cutoff"]
    assert cutoff is not None and res.objective <= cutoff < start_value - 1e-3
    assert res.optimal and res.verified
    _same_optimum(res, _tune(split, "highs"))
    off = _tune(split, solver, cutoff_restarts=False)  # the search still runs, the model stays plain
    assert off.model.bilevel_info["objective_cutoff"] is None
    _same_optimum(off, res)


@pytest.mark.parametrize("solver", OTHER)
def test_a_time_limit_stops_the_solve_with_an_unproven_incumbent(solver):
    split = benchmark_split("cancer", 50, 1)
    model = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    start = kkt_start(model)
    info = solve_other(model, solver, time_limit=0.01, mip_start=start)
    assert info.status == "time_limit"
    # the start (0.306; without it Gurobi stopped at 0.96) was handed in: the incumbent is at least as good
    assert info.objective <= np.mean([value for var, value in start if var.parent_component() is model.g]) + 1e-9
    assert info.objective >= info.best_bound - 1e-9 and not _proven(info.objective, info.best_bound)
    assert verify_model(model).verified  # the incumbent loaded is bilevel feasible (at worst the start)
    assert info.options[other_solvers._ARGUMENT_OPTIONS[solver]["time_limit"]] == 0.01
    full = solve_other(model, solver, mip_start=start)
    assert full.status == "optimal" and full.objective <= info.objective + 1e-9
    assert _proven(full.objective, full.best_bound) and full.nodes > 0


@pytest.mark.parametrize("solver", OTHER)
def test_a_large_mip_gap_is_not_reported_optimal(solver):
    split = benchmark_split("cancer", 50, 1)
    model = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    info = solve_other(model, solver, mip_gap=0.5, mip_start=kkt_start(model))
    assert info.status == ("optimal" if _proven(info.objective, info.best_bound) else "gap_limit")
    assert info.gap <= 0.5 + 1e-9


@pytest.mark.parametrize("solver", OTHER)
def test_an_infeasible_model_is_reported(solver):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Binary)
    m.y = pyo.Var(bounds=(0, 1))
    m.c = pyo.Constraint(expr=m.x + m.y >= 3)
    m.o = pyo.Objective(expr=m.x + m.y)
    with pytest.raises(InfeasibleModelError, match=solver):
        solve_other(m, solver)


@pytest.mark.parametrize("solver", OTHER)
def test_infeasible_or_unbounded_is_told_apart(solver):
    # free integer and continuous variables: Gurobi's presolve answers "infeasible or unbounded" here, and the
    # solve is repeated without dual reductions to tell which
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers)
    m.y = pyo.Var()
    m.c = pyo.Constraint(expr=m.x + m.y >= 3)
    m.d = pyo.Constraint(expr=m.x + m.y <= 2)
    m.o = pyo.Objective(expr=m.x - m.y)
    with pytest.raises(InfeasibleModelError, match="infeasible"):
        solve_other(m, solver)
    m.d.deactivate()
    with pytest.raises(SolverError, match="unbounded"):
        solve_other(m, solver)


@pytest.mark.parametrize("solver", OTHER)
def test_a_refused_parameter_is_an_input_error_and_leaves_the_values(solver):
    split = benchmark_split("cancer", 8, 0)
    model = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    start = kkt_start(model)
    for var, value in start:
        var.set_value(value, skip_validation=True)
    before = {var.name: var.value for var in model.component_data_objects(pyo.Var)}
    with pytest.raises(InputError, match="no_such_parameter"):
        solve_other(model, solver, options={"no_such_parameter": 1}, mip_start=start)
    assert {var.name: var.value for var in model.component_data_objects(pyo.Var)} == before
    with pytest.raises(InputError, match="no_such_parameter"):
        _tune(split, solver, solver_options={"no_such_parameter": 1})


@pytest.mark.parametrize("solver", OTHER)
def test_a_seed_parameter_reaches_the_solver(solver):
    split = benchmark_split("cancer", 50, 1)
    model = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    seed = {"gurobi": "Seed", "cplex": "randomseed"}[solver]
    nodes, objectives = set(), []
    for s in (1, 2, 3):
        info = solve_other(model, solver, threads=1, options={seed: s})
        assert info.options[seed] == s and info.optimal
        nodes.add(info.nodes)
        objectives.append(info.objective)
    assert len(nodes) > 1  # the search changed with the seed ...
    assert max(objectives) - min(objectives) < 1e-6  # ... the optimum did not


def test_cplex_above_the_community_size_limits_is_a_solver_error():
    if unavailable_reason("cplex") is not None:
        pytest.skip("cplex cannot run here")
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(1200)
    m.x = pyo.Var(m.I, domain=pyo.Binary)
    m.c = pyo.Constraint(m.I, rule=lambda m, i: m.x[i] + m.x[i % 1200 + 1] >= 1)
    m.o = pyo.Objective(expr=sum(m.x[i] for i in m.I))
    try:
        info = solve_other(m, "cplex")
    except SolverError as exc:
        assert "size limits" in str(exc)
    else:  # a full CPLEX license: the model solves (every other x is 1)
        assert info.optimal and info.objective == pytest.approx(600)


@pytest.mark.parametrize("kw, message", [
    (dict(solver="scip"), "solver must be one of"),
    (dict(solver=None), "solver must be one of"),
    (dict(solver_options={"Seed": 1}), "solver_options are for solver="),
    (dict(solver="gurobi", race=2), "race: HiGHS only"),
    (dict(solver="cplex", highs_options={"random_seed": 1}), "highs_options: HiGHS only"),
    (dict(solver="gurobi", clock="nodes"), "clock='nodes': HiGHS only"),
    (dict(solver="gurobi", solver_options={"TimeLimit": 5}), "with the argument time_limit"),
    (dict(solver="cplex", solver_options={"mip_tolerances_mipgap": 0.1}), "with the argument mip_gap"),
    (dict(solver="gurobi", solver_options={"Seed": float("nan")}), "Seed must be a number or a string"),
    (dict(solver="gurobi", solver_options={"Seed": True}), "Seed must be a number or a string"),
    (dict(solver="gurobi", solver_options=[("Seed", 1)]), "must be a mapping"),
    (dict(solver="gurobi", solver_options={1: 1}), "names must be strings"),
    (dict(solver="cplex", mip_gap=1.5), "mip_gap"),
    (dict(solver="cplex", threads=-1), "threads"),
])
def test_bad_solver_settings_are_refused(kw, message):
    split = benchmark_split("cancer", 6, 0)
    with pytest.raises(InputError, match=message):
        _tune(split, **{"solver": "highs", **kw})


def test_a_solver_that_cannot_run_is_named(monkeypatch):
    split = benchmark_split("cancer", 6, 0)

    class Missing:
        def available(self, exception_flag=False):
            return False
    monkeypatch.setattr(other_solvers.pyo, "SolverFactory", lambda name: Missing())
    assert "pip install gurobipy" in unavailable_reason("gurobi")
    with pytest.raises(InputError, match="solver 'gurobi' cannot run: .*pip install gurobipy"):
        _tune(split, "gurobi")
    with pytest.raises(InputError, match="pip install cplex"):
        solve_other(bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val), "cplex")
    assert unavailable_reason("highs") is None


def test_an_interface_that_fails_on_the_probe_model_is_named(monkeypatch):
    """Pyomo 6.7.2-6.8.0's gurobi_direct passed sense= to gurobipy 13's addConstr: available, but every solve raised.
    The one-row probe turns that into an unavailable solver whose reason names the Pyomo release and the error,
    and for Gurobi the releases that work."""
    class Broken:
        def available(self, exception_flag=False):
            return True

        def solve(self, model, **kw):
            raise TypeError("addConstr() got an unexpected keyword argument 'sense'")
    monkeypatch.setattr(other_solvers.pyo, "SolverFactory", lambda name: Broken())
    other_solvers._probe_failure.cache_clear()
    try:
        gurobi, cplex = unavailable_reason("gurobi"), unavailable_reason("cplex")
    finally:
        other_solvers._probe_failure.cache_clear()  # the real interfaces are probed again by later tests
    assert f"Pyomo {other_solvers.pyomo_version}'s gurobi_direct fails" in gurobi and "'sense'" in gurobi
    assert "pyomo>=6.8.1" in gurobi and "pyomo>=6.8.1" not in cplex and "cplex_direct fails" in cplex


def test_solve_other_refuses_highs_and_hooks():
    split = benchmark_split("cancer", 6, 0)
    model = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    with pytest.raises(InputError, match="bilevel.solve_model"):
        solve_other(model, "highs")
    with pytest.raises(InputError, match="interrupt_when is a HiGHS hook"):
        solve_other(model, "gurobi", interrupt_when=lambda objective, elapsed: False)


@pytest.mark.parametrize("solver", OTHER)
def test_cli_solver_flag(solver, tmp_path, capsys):
    out = tmp_path / "r.json"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        code = main(["tune", "--data", "diabetes", "--n-train", "10", "--n-val", "10", "--mode", "both",
                     "--epsilon", "0.2", "--solver", solver, "--json", str(out)])
    assert code == 0
    result = json.loads(out.read_text())
    assert result["solver"] == solver and result["highs_options"] is None
    assert {r["solver"] for r in result["results"].values()} == {solver}
    assert main(["tune", "--data", "diabetes", "--n-train", "10", "--n-val", "10", "--mode", "optimistic",
                 "--json", str(tmp_path / "h.json")]) == 0
    highs = json.loads((tmp_path / "h.json").read_text())["results"]["optimistic"]
    assert result["results"]["optimistic"]["objective"] == pytest.approx(highs["objective"], rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("flags, named", [(["--race", "2"], "--race"),
                                          (["--highs-option", "random_seed=1"], "--highs-option"),
                                          (["--clock", "nodes"], "--clock nodes")])
def test_cli_refuses_highs_only_flags_with_another_solver(flags, named, capsys):
    assert main(["tune", "--data", "cancer", "--solver", "gurobi", *flags]) == 2
    assert f"{named}: HiGHS only; --solver gurobi" in capsys.readouterr().err


@pytest.mark.parametrize("solver", OTHER)
def test_the_tiny_feature_warning_names_the_solver_and_promises_no_presolve_change(solver):
    """A feature of size 1e-6 next to one of 1e3 (the fuzz instance of test_kkt_enumeration, where HiGHS's presolve
    proved 1.089 "optimal" against the optimum 1.0): tune warns, naming the solver that runs, and does not say that
    it turns HiGHS's presolve off, which it does only for HiGHS; the answer is the optimum HiGHS proves with presolve
    off (the KKT enumeration's value there)."""
    Xt = np.array([[-647.1553073079773, -8.059507881768076e-07], [1023.4259411215874, 6.535044104724449e-07],
                   [1918.6938516041346, -1.7086864892926478e-06], [1034.0157110508783, -6.19169985974195e-08]])
    yt = np.array([-1.0, -1.0, 1.0, 1.0])
    Xv = np.array([[-574.0741282932896, 1.5361069305317784e-06], [-344.77207705400974, -1.2961952282601431e-06]])
    yv = np.array([1.0, -1.0])
    with pytest.warns(UserWarning, match=r"feature\(s\) \[1\] have values") as caught:
        res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 0.01), solver=solver)
    text = " ".join(str(w.message) for w in caught)
    name = {"gurobi": "Gurobi", "cplex": "CPLEX"}[solver]
    assert f"{name}'s absolute tolerances" in text and "presolve" not in text
    assert not any("presolve" in m for m in res.verification.messages)
    with pytest.warns(UserWarning, match="HiGHS's presolve off"):
        highs = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 0.01))
    assert res.optimal and res.verified
    _same_optimum(res, highs)


@pytest.mark.parametrize("solver", OTHER)
def test_certify_candidates_from_another_solver_match_highs(solver, capsys):
    """milp_candidates(solver=...) and `bilevel certify --data --solver`: every candidate proven optimal and
    verified; the optimistic candidates reach HiGHS's optimal validation hinge loss, recomputed from their (w, b)
    (the bilevel objective: the inner optimum's validation loss); the CLI runs the grid with that solver."""
    from bilevel.certify.cli import main as certify_main
    from bilevel.certify.milp import milp_candidates

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 10, 10, n_cal=60, seed=1)
    grid = dict(epsilons=(0.0, 0.2), w_bar_ubs=(0.5, 1.0))
    other = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, solver=solver, **grid)
    highs = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, **grid)
    assert [c.name for c in other] == [c.name for c in highs]
    for a, b in zip(other, highs):
        assert a.status == "optimal" and a.verified, a.name
        if a.mode == "optimistic":
            loss_a, loss_b = (np.mean(np.maximum(0.0, 1 - s.y_val * (s.X_val @ c.w - c.b))) for c in (a, b))
            assert loss_a == pytest.approx(loss_b, rel=1e-4, abs=1e-6), a.name
    code = certify_main(["--data", "diabetes", "--n-train", "10", "--n-val", "10", "--n-cal", "60", "--seed", "1",
                         "--epsilons", "0", "--w-bar-ubs", "1", "--solver", solver, "--alpha", "0.4"])
    assert code == 0 and "opt_ub1" in capsys.readouterr().out


def test_certify_refuses_solver_settings_no_milp_could_run(monkeypatch, capsys):
    from bilevel.certify.cli import main as certify_main
    from bilevel.certify.milp import milp_candidates

    split = benchmark_split("cancer", 6, 0)
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: "no license (a test)")
    with pytest.raises(InputError, match="solver 'gurobi' cannot run: no license"):
        milp_candidates(split.X_train, split.y_train, split.X_val, split.y_val, solver="gurobi")
    assert certify_main(["--data", "cancer", "--n-cal", "40", "--solver", "cplex"]) == 2
    assert "solver 'cplex' cannot run: no license" in capsys.readouterr().err
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: None)
    with pytest.raises(InputError, match="clock 'nodes' is HiGHS only; solver 'cplex'"):
        milp_candidates(split.X_train, split.y_train, split.X_val, split.y_val, solver="cplex", clock="nodes")
    with pytest.raises(InputError, match="solver must be one of"):
        milp_candidates(split.X_train, split.y_train, split.X_val, split.y_val, solver="scip")
    assert certify_main(["--losses", "x.csv", "--solver", "gurobi"]) == 2
    assert "--solver applies to the --data route" in capsys.readouterr().err


@pytest.mark.parametrize("solver", OTHER)
def test_a_ctrl_c_during_the_solve_raises_keyboard_interrupt_at_once(solver):
    """Gurobi and CPLEX catch a Ctrl-C themselves and end the solve with a user-abort status, which Pyomo calls an
    error: solve_other raises KeyboardInterrupt then. Oracle: the market-split MILP of test_highs_interrupt runs into
    a 3 s limit without the signal (checked here), and with a SIGINT 0.5 s in, the call ends well before its 30 s
    limit."""
    import os
    import signal
    import threading
    import time

    from test_highs_interrupt import _market_split_model

    assert solve_other(_market_split_model(), solver, time_limit=3, threads=1).status == "time_limit"
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match=f"{solver} caught a Ctrl-C"):
            solve_other(_market_split_model(), solver, time_limit=30, threads=1)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 10
