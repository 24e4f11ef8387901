"""HiGHS options that give wrong answers on the tuning MILPs are refused (bilevel.solve.UNSAFE_OPTIONS), and
the reason is real: with ``mip_lifting_for_probing`` on, HiGHS 1.15.1 calls a feasible tuning MILP infeasible
(HiGHS issue #3307); with ``user_objective_scale`` or ``user_bound_scale`` it reports a dual bound above the
optimum; ``solve_relaxation`` and a loose ``mip_feasibility_tolerance`` made solve_model report wrong optima."""
import importlib
import re

import highspy
import pytest

import bilevel
from bilevel.errors import InputError, SolverError
from bilevel.solve import UNSAFE_OPTIONS, InfeasibleModelError, _configured_highs, compile_model
from bilevel.verify import verify_model
from oracles import grid, optimistic_value, tiny_instance

tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
solve_module = importlib.import_module("bilevel.solve")


@pytest.fixture(scope="module")
def tiny():
    Xt, yt, Xv, yv = tiny_instance(3)
    return Xt, yt, Xv, yv, bilevel.build_optimistic_model(Xt, yt, Xv, yv)


@pytest.mark.parametrize("value", [0, 1, 3])
def test_solve_model_and_tune_refuse_lifting_for_probing(tiny, value):
    Xt, yt, Xv, yv, model = tiny
    with pytest.raises(InputError, match=f"mip_lifting_for_probing={value} is refused"):
        bilevel.solve_model(model, options={"mip_lifting_for_probing": value})
    with pytest.raises(InputError, match="mip_lifting_for_probing"):
        bilevel.tune(Xt, yt, Xv, yv, highs_options={"mip_lifting_for_probing": value})


def test_the_default_value_is_allowed_and_solves_to_the_brute_force_optimum(tiny):
    Xt, yt, Xv, yv, model = tiny
    allowed = UNSAFE_OPTIONS["mip_lifting_for_probing"][0]
    info = bilevel.solve_model(model, options={"mip_lifting_for_probing": allowed})
    assert info.optimal
    best = min(optimistic_value(w, Xt, yt, Xv, yv) for w in grid(Xt.shape[1]))
    assert info.objective <= best + 1e-7  # the grid only samples the box: the MILP is at least as good
    assert verify_model(model).verified


@pytest.mark.skipif(highspy.Highs().version() != "1.15.1", reason="the refusal was measured on HiGHS 1.15.1")
def test_lifting_for_probing_calls_a_feasible_tuning_milp_infeasible(tiny):
    *_, model = tiny
    assert bilevel.solve_model(model).optimal  # feasible: HiGHS's default solves it
    statuses = {}
    for value in (-1, 1):
        h = _configured_highs(compile_model(model), {"mip_lifting_for_probing": value}, None)  # no refusal here
        h.run()
        statuses[value] = h.getModelStatus()
    assert statuses[-1] == highspy.HighsModelStatus.kOptimal
    assert statuses[1] == highspy.HighsModelStatus.kInfeasible


def test_an_infeasible_report_on_the_optimistic_milp_is_called_a_highs_failure(tiny, monkeypatch):
    Xt, yt, Xv, yv, _ = tiny

    def infeasible(*args, **kwargs):
        raise InfeasibleModelError("HiGHS reports the model infeasible")

    monkeypatch.setattr(tune_module, "solve_model", infeasible)
    with pytest.raises(SolverError, match="a HiGHS failure") as caught:
        bilevel.tune(Xt, yt, Xv, yv)
    assert not isinstance(caught.value, InfeasibleModelError)


@pytest.mark.skipif(highspy.Highs().version() != "1.15.1", reason="the refusal was measured on HiGHS 1.15.1")
def test_without_the_refusal_the_check_without_presolve_still_reaches_the_optimum(tiny, monkeypatch):
    # HiGHS calls this feasible MILP infeasible with the option (the test above); tune then raised "a HiGHS
    # failure". solve_model now checks every report of infeasibility with presolve off, which gets the optimum.
    Xt, yt, Xv, yv, model = tiny
    monkeypatch.setattr(solve_module, "UNSAFE_OPTIONS", {})
    info = bilevel.solve_model(model, options={"mip_lifting_for_probing": 1})
    assert info.optimal and info.options["presolve"] == "off"
    result = bilevel.tune(Xt, yt, Xv, yv, warm_start=False, highs_options={"mip_lifting_for_probing": 1})
    best = min(optimistic_value(w, Xt, yt, Xv, yv) for w in grid(Xt.shape[1]))
    assert result.optimal and result.verified and result.objective <= best + 1e-7


@pytest.mark.parametrize("name", ["user_objective_scale", "user_bound_scale"])
def test_objective_and_bound_scaling_are_refused_and_zero_solves_to_the_optimum(tiny, name):
    # HiGHS 1.15.1 reports the dual bound in the scaled units (next test): tune printed a best bound 32 times
    # the optimum as "gap_limit" (diabetes 6/6 split 0, optimistic: 2.70784 against 0.0846201).
    Xt, yt, Xv, yv, model = tiny
    for value in (5, -5):
        with pytest.raises(InputError, match=f"{name}={value} is refused"):
            bilevel.solve_model(model, options={name: value})
        with pytest.raises(InputError, match=name):
            bilevel.tune(Xt, yt, Xv, yv, highs_options={name: value})
    info = bilevel.solve_model(model, options={name: UNSAFE_OPTIONS[name][0]})
    assert info.optimal and info.best_bound <= info.objective + 1e-9
    assert info.objective == pytest.approx(bilevel.solve_model(model).objective, abs=1e-9)


@pytest.mark.skipif(highspy.Highs().version() != "1.15.1", reason="the refusal was measured on HiGHS 1.15.1")
@pytest.mark.parametrize("name", ["user_objective_scale", "user_bound_scale"])
def test_highs_reports_a_scaled_dual_bound_above_the_optimum(tiny, name):
    *_, model = tiny
    cm = compile_model(model)
    infos = {}
    for value in (0, 5):
        h = _configured_highs(cm, {name: value}, None)  # no refusal here
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        infos[value] = h.getInfo()
    optimum = infos[0].objective_function_value
    assert infos[5].objective_function_value == pytest.approx(optimum, abs=1e-7)
    assert infos[5].mip_dual_bound == pytest.approx(2 ** 5 * optimum, rel=1e-6)  # an invalid bound: 16.09 > 0.503


@pytest.fixture(scope="module")
def diabetes_6():
    """diabetes |T| = |V| = 6, split 0 (the benchmark split): its optimistic optimum is 0.0846201."""
    from bilevel.library import default_test_fraction
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 6, 6, seed=0, test_fraction=default_test_fraction(6, 6))
    return s.X_train, s.y_train, s.X_val, s.y_val


def test_solve_relaxation_is_refused_it_made_solve_model_report_the_lp_relaxation_optimal(diabetes_6, monkeypatch):
    model = bilevel.build_optimistic_model(*diabetes_6)
    true = bilevel.solve_model(model)
    assert true.optimal and true.objective == pytest.approx(0.0846201, abs=1e-6)
    for call in (lambda: bilevel.solve_model(model, options={"solve_relaxation": True}),
                 lambda: bilevel.tune(*diabetes_6, highs_options={"solve_relaxation": True})):
        with pytest.raises(InputError, match="solve_relaxation"):
            call()
    assert bilevel.solve_model(model, options={"solve_relaxation": False}).objective == pytest.approx(true.objective)
    monkeypatch.setattr(solve_module, "UNSAFE_OPTIONS", {})  # what it did: "optimal" at the relaxation's 0
    relaxed = bilevel.solve_model(model, options={"solve_relaxation": True})
    assert relaxed.optimal and relaxed.objective < true.objective - 0.08


def test_a_loose_mip_feasibility_tolerance_is_refused_it_made_solve_model_report_a_wrong_optimum(monkeypatch):
    # At 1e-3 HiGHS takes binaries within 1e-3 of 0 or 1 as integral; times a big-M that switches rows off.
    Xt, yt, Xv, yv = tiny_instance(6)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, list(range(len(yv))), 0.0)
    true = bilevel.solve_model(model)
    assert true.optimal and true.objective == pytest.approx(0.298788, abs=1e-6)
    allowed = UNSAFE_OPTIONS["mip_feasibility_tolerance"][0]
    for value in (1e-3, 1e-4, 1e-9):  # a tighter one too: 1e-7 and 1e-8 gave wrong answers (UNSAFE_OPTIONS)

        with pytest.raises(InputError, match=re.escape(f"mip_feasibility_tolerance={value!r} is refused (only "
                                                       f"HiGHS's default, {allowed!r}, is accepted)")):
            bilevel.solve_model(model, options={"mip_feasibility_tolerance": value})
    with pytest.raises(InputError, match="mip_feasibility_tolerance"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", highs_options={"mip_feasibility_tolerance": 1e-3})
    assert bilevel.solve_model(model, options={"mip_feasibility_tolerance": allowed}).objective == pytest.approx(
        true.objective, abs=1e-7)
    if highspy.Highs().version() == "1.15.1":  # what it did: "optimal" at 0.207959 (a point that violates the model)
        monkeypatch.setattr(solve_module, "UNSAFE_OPTIONS", {})
        loose = bilevel.solve_model(model, options={"mip_feasibility_tolerance": 1e-3})
        assert loose.optimal and loose.objective < true.objective - 0.05


@pytest.mark.parametrize("text,value", [("no_such_option=1", 1), ("random_seed=3.5", 3.5), ("presolve=abc", "abc"),
                                        ("time_limit=-1", -1), ("mip_rel_gap=nan", float("nan")),
                                        ("mip_lifting_for_probing=1", 1), ("solve_relaxation=true", True)])
def test_the_cli_and_solve_model_refuse_a_highs_option_with_the_same_message(tiny, text, value, capsys):
    """``bilevel tune --highs-option`` repeated solve_model's checks of a HiGHS option in a copy of its own, and a
    rejected option read "--highs-option no_such_option=1: HiGHS rejects it (...)" there but "HiGHS rejected option
    no_such_option=1" from solve_model. Oracle: both go through bilevel.solve.check_highs_option, so the messages
    are the same apart from how they name the option's source."""
    from bilevel.cli import main

    assert main(["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--highs-option", text]) == 2
    cli = capsys.readouterr().err.strip().removeprefix("bilevel tune: error: ")
    with pytest.raises(InputError) as refused:
        bilevel.solve_model(tiny[-1], options={text.partition("=")[0]: value})
    assert cli.startswith("--highs-option ") and cli.replace("--highs-option", "HiGHS option", 1) == str(refused.value)
