"""Mutation study 21 of the tuning driver (bilevel/tune.py: ``tune``, which builds, solves and verifies the optimistic
Eq. (21) or pessimistic Eq. (25) MILP; ``TuneResult`` and its ``to_dict`` / ``plain_model``; ``finite_or_none``; the
pessimistic MIP start boxes; the objective-cutoff restarts and their trigger; the lambda-bound steps; ``tuning_options``
and ``starting_lambda_bound``). Each test kills a mutant of tune.py that passed the tests that exercise it
(tests/test_tune.py, test_input_errors.py, test_lambda_max.py, and for the restart and box-search mutants
test_cutoff.py and test_clock.py), checking the documented behaviour (the docstrings) against an independent
oracle: scipy's linprog LPs of tests/oracles.py (``lp``, ``optimistic_value``), the exact KKT enumeration of
tests/kkt_enumeration.py, the SolveInfo HiGHS reported (seen through a wrapper of ``solve_model``), or the
docstrings' own formulas (the start-box list, the cutoff padding, the restart trigger, the starting bound).
80 mutants: 65 run against those tests, 28 killed, 37 survived; of these 30 are killed here, 6 are equivalent
(speed or history only: a looser box-search acceptance, time_limit=inf kept as inf, the start search not stopping at
the floor, the objective floor row dropped from the model, the ceiling kept after a step-down, escalating a bound
already at lambda_max) and 1 was left (the "equals its lower bound" note compared without the tolerance, m72), killed
here since by a faked objective within the tolerance of its floor. Of the 15
not run against those tests for lack of time, 5 are killed here (the restart cap, trigger and reference, the start
value), 5 are speed-only and 5 (restart time limit, failed restart dropped or its status, restart time total,
recorded cutoff) are killed by test_cutoff.py, run after the study (the time total since test_cutoff's
restarts-with-decreasing-cutoffs test checks total_seconds against the last restart's time plus the final solve)."""
from __future__ import annotations

import dataclasses
import importlib
import types

import numpy as np
import pytest

import bilevel
from bilevel.warmstart import kkt_start
from kkt_enumeration import optimistic_optimum
from oracles import lp, optimistic_value, pessimistic_value, tiny_instance

tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
verify_module = importlib.import_module("bilevel.verify")  # tune verifies through its verify_model


def _tiny(seed=0):
    return tiny_instance(seed, n_t=5, n_v=4, p=2)


# --------------------------------------------------------------------------------------------------
# TuneResult.to_dict and finite_or_none
# --------------------------------------------------------------------------------------------------


def test_to_dict_reports_the_replica_and_lambda_max_of_a_pessimistic_result():
    """``to_dict`` is the JSON summary of the result's fields: ``w_hat`` is the replica (a training optimum at
    ``w_bar``: its mean training hinge is the least one, oracle linprog), not the follower ``w``, and ``lambda_max``
    is there (None when inf). Kills the mutants reporting ``w`` as ``w_hat`` and dropping ``lambda_max``."""
    Xt, yt, Xv, yv = _tiny(3)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.5, flip="all")
    out = res.to_dict()
    assert out["w_hat"] == pytest.approx(res.w_hat.tolist()) and out["b_hat"] == pytest.approx(res.b_hat)
    least = lp(np.asarray(out["w_bar"]), (Xt, yt))
    replica = np.maximum(0.0, 1.0 - yt * (Xt @ np.asarray(out["w_hat"]) - out["b_hat"])).mean()
    assert replica == pytest.approx(least, abs=1e-6)
    assert "lambda_max" in out
    assert out["lambda_max"] == (res.lambda_max if np.isfinite(res.lambda_max) else None)


def test_finite_or_none_turns_tuples_into_lists_and_numpy_infinities_into_none():
    """finite_or_none: every float that is inf or NaN at any depth, numpy floats included, becomes None, and tuples
    become lists (its docstring). Kills the mutants that skip tuples and that test ``float`` only (np.float32 is
    not a ``float``)."""
    got = tune_module.finite_or_none({"a": (1.0, float("inf")), "b": [np.float32("nan"), np.float32(2.0)],
                                      "c": np.float32("-inf")})
    assert got == {"a": [1.0, None], "b": [None, 2.0], "c": None}
    assert isinstance(got["a"], list)


# --------------------------------------------------------------------------------------------------
# The fields HiGHS reports
# --------------------------------------------------------------------------------------------------


def test_best_bound_and_nodes_are_the_final_solves(monkeypatch):
    """``best_bound`` and ``nodes`` are HiGHS's report of the final solve (TuneResult's docstring); the oracle is
    the SolveInfo the solve returned, seen through a wrapper that marks it. Kills the mutants reporting the
    objective as the best bound and 0 nodes."""
    real = tune_module.solve_model
    seen = []

    def marked(*args, **kw):
        info = real(*args, **kw)
        info = dataclasses.replace(info, best_bound=info.best_bound - 0.125, nodes=info.nodes + 1000 + len(seen))
        seen.append(info)
        return info

    monkeypatch.setattr(tune_module, "solve_model", marked)
    res = bilevel.tune(*_tiny(1), cutoff_restarts=False)
    assert res.best_bound == seen[-1].best_bound and res.nodes == seen[-1].nodes
    assert res.best_bound < res.objective


def test_random_seed_is_the_highs_option():
    """``random_seed`` is HiGHS's ``random_seed`` of the winning run: with ``race=1`` the seed in ``highs_options``
    (TuneResult's docstring). Kills the mutant reporting 0."""
    assert bilevel.tune(*_tiny(1), highs_options={"random_seed": 7}).random_seed == 7


# --------------------------------------------------------------------------------------------------
# Start boxes, tuning_options, starting_lambda_bound
# --------------------------------------------------------------------------------------------------


def test_the_start_boxes_are_the_documented_list_in_order():
    """_start_boxes: the optimistic ``w_bar``, the tightest box ``|w|``, ``w_bar_ub``, then ``|w|`` and ``w_bar_ub``
    shrunk by ``_START_SCALES`` (0.75, 0.5, 0.35, 0.25, 0.15), in this order (the tie-break; its docstring). Kills
    the mutants that reorder the list, drop the absolute value and drop the shrunk boxes."""
    opt = types.SimpleNamespace(w_bar=np.array([0.3, 0.9]), w=np.array([-0.2, 0.6]))
    boxes = tune_module._start_boxes(opt, (0.0, np.array([1.0, 2.0])))
    tight, ub = np.array([0.2, 0.6]), np.array([1.0, 2.0])
    want = [opt.w_bar, tight, ub] + [t * box for box in (tight, ub) for t in (0.75, 0.5, 0.35, 0.25, 0.15)]
    assert len(boxes) == len(want)
    for got, expected in zip(boxes, want):
        np.testing.assert_allclose(got, expected)


def test_tuning_options_keep_a_presolve_override_and_take_any_mapping():
    """tuning_options: presolve is turned off for tiny features "unless overrides sets it", and overrides may be
    any mapping (its docstring). Kills the mutants that ignore a presolve override and that accept dicts only."""
    X = np.array([[1.0, 1e-9], [2.0, 2e-9]])
    assert tune_module.tuning_options(None, [X])["presolve"] == "off"
    assert tune_module.tuning_options({"presolve": "on"}, [X])["presolve"] == "on"
    got = tune_module.tuning_options(types.MappingProxyType({"random_seed": 3}))
    assert got == {**tune_module.HIGHS_OPTIONS, "random_seed": 3}


def test_starting_lambda_bound_is_capped_by_max_lambda_bound_and_feasible_replicas_start_low():
    """starting_lambda_bound: ``max_lambda_bound`` when epsilon = 0 with ``replica="optimal"``, else
    ``min(1e3, max_lambda_bound)`` (its docstring; replica="feasible" is not degenerate). Kills the mutants that
    drop the cap and that call every epsilon = 0 degenerate."""
    assert tune_module.starting_lambda_bound(0.0, "optimal", 5e3) == 5e3
    assert tune_module.starting_lambda_bound(0.1, "optimal", 50.0) == 50.0
    assert tune_module.starting_lambda_bound(0.0, "feasible", 1e4) == 1e3


# --------------------------------------------------------------------------------------------------
# Cutoffs and restarts
# --------------------------------------------------------------------------------------------------


def test_padded_cutoff_pads_by_one_millionth_of_one_plus_the_value():
    """padded_cutoff: ``value + 1e-6 (1 + |value|)`` (its docstring): a value of 0 gets 1e-6. Kills the mutant
    padding by ``1e-6 |value|``."""
    assert tune_module.padded_cutoff(0.0) == pytest.approx(1e-6, rel=1e-12)
    assert tune_module.padded_cutoff(-2.0) == pytest.approx(-2.0 + 3e-6, rel=1e-12)


def test_the_initial_model_is_built_around_the_start_only_when_enabled_and_above_the_floor():
    """_initial_model: with restarts enabled and a start more than 1e-6 above the floor, ``rebuild`` around the
    start's padded objective; otherwise (start within 1e-6 of the floor, restarts off, no start) ``rebuild(None)``
    (its docstring). Kills the mutants that compare against ``floor - 1e-6`` and that ignore ``enabled``."""
    calls = []

    def rebuild(cutoff):
        calls.append(cutoff)
        return cutoff

    assert tune_module._initial_model(rebuild, ([], 0.5 + 5e-7), 0.5, True) is None
    assert tune_module._initial_model(rebuild, ([], 0.75), 0.5, False) is None
    assert tune_module._initial_model(rebuild, None, 0.5, True) is None
    assert tune_module._initial_model(rebuild, ([], 0.75), 0.5, True) == tune_module.padded_cutoff(0.75)
    assert calls == [None, None, None, tune_module.padded_cutoff(0.75)]


def test_without_cutoff_restarts_the_pessimistic_model_has_no_cutoff():
    """cutoff_restarts=False: the pessimistic MILP is not built around its start (tune's docstring), so the model
    carries no cutoff and is its own plain model; same optimum as with restarts. Kills the mutant of
    _initial_model that ignores ``enabled``."""
    Xt, yt, Xv, yv = _tiny(2)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip="all", cutoff_restarts=False)
    assert res.model.bilevel_info["objective_cutoff"] is None and res.plain_model() is res.model


def test_the_start_value_is_the_mean_validation_hinge_of_the_start():
    """_start_value: the outer objective (mean validation hinge) of a MIP start, inf without one (its docstring).
    Oracle: the optimistic value at ``w_bar_ub`` by linprog (the optimistic start sits at that box). Kills the
    mutant summing the hinges."""
    Xt, yt, Xv, yv = _tiny(4)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    start = kkt_start(model)
    assert tune_module._start_value(model, start) == pytest.approx(optimistic_value(np.ones(2), Xt, yt, Xv, yv),
                                                                   abs=1e-5)
    assert tune_module._start_value(model, None) == np.inf


@pytest.mark.parametrize("clock,after", [("seconds", 2.0), ("nodes", 4000)])
def test_the_restart_trigger_waits_and_needs_a_fifth_better_incumbent(clock, after):
    """_restart_trigger: true once the run has lasted 2 s (``clock="nodes"``: 4,000 nodes) with an incumbent at
    most 0.8 times the reference (its docstring). Kills the mutants that drop the ratio and the nodes clock."""
    trigger = tune_module._restart_trigger(1.0, clock)
    assert trigger(0.8, after) and not trigger(0.85, after) and not trigger(0.5, 0.999 * after)


def test_the_box_search_hook_returns_a_start_that_beats_the_incumbent():
    """_box_improver: the ``improve`` hook searches boxes by the MIP start's LPs and returns the best start when it
    beats HiGHS's incumbent. Oracle: linprog's optimistic value at the returned box, and the exact optimum by KKT
    enumeration as its lower limit. Kills the mutant that hands search_box ``(queue, objective)`` swapped."""
    Xt, yt, Xv, yv = _tiny(5)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    hook = tune_module._box_improver(model, [np.ones(2)], 0.0, 1e-3)
    assert hook["improve_after"] >= 1.0
    pairs = hook["improve"](np.inf, 0.0, None)
    w_bar = np.array([x for v, x in pairs if v.parent_component() is model.w_bar])
    value = tune_module._start_value(model, pairs)
    assert value == pytest.approx(optimistic_value(w_bar, Xt, yt, Xv, yv), abs=1e-6)
    assert value >= optimistic_optimum(Xt, yt, Xv, yv)[0] - 1e-6
    assert hook["improve"](value - 1e-12, 0.0, None) is None


def test_restarts_stop_at_five_and_each_run_is_judged_against_its_own_cutoff(monkeypatch):
    """Cutoff restarts: at most 5 (``_MAX_RESTARTS``), and each run's trigger compares the incumbent with the value
    its model was built around: the start's, then each restart's objective, whose padded value is the rebuilt
    model's ``objective_cutoff`` (_solve_with_cutoffs' docstring). With a trigger that fires at any incumbent no
    worse than the reference every run restarts until the cap; with one that needs a strictly better incumbent the
    second run is judged against the first restart's value. Oracle: the optimum by KKT enumeration. Kills the
    mutants allowing a sixth restart and keeping the start's value as the reference."""
    Xt, yt, Xv, yv = _tiny(0)
    want = optimistic_optimum(Xt, yt, Xv, yv)[0]
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    real, references = tune_module._restart_trigger, []

    def recording(reference, clock="seconds"):
        references.append(reference)
        return real(reference, clock)

    monkeypatch.setattr(tune_module, "_restart_trigger", recording)
    for ratio in (1.0, 0.999):
        monkeypatch.setattr(tune_module, "_RESTART_RATIO", ratio)
        references.clear()
        res = bilevel.tune(Xt, yt, Xv, yv)
        assert 1 <= len(res.restarts) <= 5
        assert res.objective == pytest.approx(want, abs=1e-6)
        assert len(references) >= len(res.restarts) + (ratio < 1)
        for restart, reference in zip(res.restarts, references[1:]):
            assert restart["cutoff"] == pytest.approx(tune_module.padded_cutoff(reference), rel=1e-12, abs=1e-15)


def test_the_pessimistic_floor_is_the_optimistic_best_bound_not_its_objective():
    """With epsilon = 0 the floor of Eq. (25) is the optimistic result's best bound (tune's docstring, parameter
    ``optimistic``: "its best bound is the floor"), not its objective: an optimistic result stopped by its time
    limit at the MIP start (objective above the optimistic optimum) must not keep the pessimistic answer above
    it. Oracle: the pessimistic optimum by KKT enumeration (flip="all": every validation point). Kills the mutant
    using the optimistic objective as the floor."""
    from kkt_enumeration import pessimistic_optimum

    Xt, yt, Xv, yv = _tiny(0)
    opt = bilevel.tune(Xt, yt, Xv, yv, time_limit=1e-4, cutoff_restarts=False)
    want = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(len(yv)), 0.0)[0]
    if opt.objective < want + 1e-3:
        pytest.skip("HiGHS solved the optimistic MILP within the time limit")
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", optimistic=opt)
    assert res.objective == pytest.approx(want, abs=1e-6)


def test_the_presolve_note_follows_the_rule_tuning_options_applies():
    """Tiny features: the verification messages say HiGHS's presolve was turned off (tune, both modes) unless
    ``highs_options`` sets presolve, when it is not turned off and nothing is noted (tuning_options' rule).
    Kills the mutants dropping the note of the optimistic result and noting it whatever highs_options say."""
    Xt, yt, Xv, yv = (a.copy() for a in _tiny(1))
    Xt[:, 1] *= 1e-6
    Xv[:, 1] *= 1e-6
    with pytest.warns(UserWarning, match="tiny|at most"):
        res = bilevel.tune(Xt, yt, Xv, yv)
    assert any("presolve off" in m for m in res.verification.messages)
    with pytest.warns(UserWarning, match="tiny|at most"):
        res = bilevel.tune(Xt, yt, Xv, yv, highs_options={"presolve": "on"})
    assert not any("presolve" in m for m in res.verification.messages)


def test_the_plain_pessimistic_model_keeps_the_objective_floor():
    """plain_model: a pessimistic model built around its MIP start is rebuilt without the cutoff row but with the
    same objective floor (its docstring; cancer 6/5, split seed 5, epsilon = 0, flip="all": the optimistic best
    bound is a positive floor and the start is above it), and it has the same optimum. Kills the mutant that
    rebuilds without the floor."""
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 6, 5, seed=5)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all")
    floor = res.model.component("objective_floor")
    assert res.model.bilevel_info["objective_cutoff"] is not None and floor is not None
    plain = res.plain_model()
    assert plain.bilevel_info["objective_cutoff"] is None
    assert plain.component("objective_floor") is not None
    assert plain.component("objective_floor").lower == floor.lower == res.optimistic.best_bound
    assert bilevel.solve_model(plain).objective == pytest.approx(res.objective, abs=1e-6)


def test_a_solution_that_fails_verification_issues_the_runtime_warning(monkeypatch):
    """tune's docstring (Returns): a failed verification also issues a RuntimeWarning (message
    ``VERIFICATION_WARNING``). A wrapper of ``solve_model`` spoils HiGHS's answer (the follower no longer a
    training optimum; oracle: linprog's least training hinge at the box is below the follower's). Kills the mutant
    that drops the warning."""
    Xt, yt, Xv, yv = _tiny(3)
    real = tune_module.solve_model

    def spoiled(model, *args, **kw):
        info = real(model, *args, **kw)
        model.w[0].set_value(model.w[0].value * 0.5 + 0.3)
        return info

    monkeypatch.setattr(tune_module, "solve_model", spoiled)
    with pytest.warns(RuntimeWarning, match=tune_module.VERIFICATION_WARNING):
        res = bilevel.tune(Xt, yt, Xv, yv, cutoff_restarts=False)
    assert not res.verified
    follower = np.maximum(0.0, 1.0 - yt * (Xt @ res.w - res.b)).mean()
    assert follower > lp(res.w_bar, (Xt, yt)) + 1e-5


def test_a_bound_below_a_smaller_lambda_max_is_re_solved_at_lambda_max_itself():
    """lambda_bound below a finite ``lambda_max <= max_lambda_bound`` with the solution below its bound: re-solved
    once with the bound ``min(lambda_max, max_lambda_bound)`` = ``lambda_max`` (tune's docstring, parameter
    ``lambda_bound``; tiny seed 0, epsilon 0.3, lambda_max about 47, first bound lambda_max / 3). Oracle: the
    pessimistic value at the returned box by linprog's three LPs (oracles.pessimistic_value). Kills the mutant that
    re-solves at ``max_lambda_bound`` instead."""
    Xt, yt, Xv, yv = _tiny(0)
    opt = bilevel.tune(Xt, yt, Xv, yv)
    kw = dict(mode="pessimistic", epsilon=0.3, flip="all", optimistic=opt)
    lambda_max = bilevel.tune(Xt, yt, Xv, yv, **kw).lambda_max
    assert 1.0 < lambda_max < tune_module.MAX_LAMBDA_BOUND
    res = bilevel.tune(Xt, yt, Xv, yv, **kw, lambda_bound=lambda_max / 3)
    assert res.lambda_history == pytest.approx([lambda_max / 3, lambda_max], rel=1e-12)
    assert res.lambda_bound == pytest.approx(lambda_max, rel=1e-12)
    want = pessimistic_value(res.w_bar, Xt, yt, Xv, yv, np.arange(len(yv)), 0.3)
    assert res.verified and res.objective == pytest.approx(want, abs=1e-6)


def test_no_lambda_note_when_the_objective_meets_its_floor():
    """epsilon = 0, flip="all", tiny seed 0: the pessimistic optimum equals the optimistic one (oracle: the KKT
    enumeration's optimistic optimum), i.e. the objective meets its floor, so no lambda bound can improve it and
    the note on a bound below lambda_max (here inf) is left out (tune's docstring, parameter ``lambda_bound``).
    Kills the mutant that notes a bound below lambda_max whatever the objective."""
    Xt, yt, Xv, yv = _tiny(0)
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all")
    assert res.objective == pytest.approx(optimistic_optimum(Xt, yt, Xv, yv)[0], abs=1e-6)
    assert res.verified and not any("lambda" in m for m in res.verification.messages)


def test_an_objective_within_the_tolerance_of_its_floor_meets_it(monkeypatch):
    """At the lambda bound, an objective within ``tolerance`` of its floor counts as meeting it: the note says no
    larger bound can improve it, not that one might (tune.py compares ``objective <= floor + tolerance``, the
    tolerance the verification uses; HiGHS reports optima of 0 as round-off above 0). Cancer 4/4, split seed 0,
    epsilon = 0.2, flip="all", whose optimum is 0 (oracle: tests/oracles.pessimistic_value, three linprog LPs at
    the returned w_bar). Two wrappers make the case whatever HiGHS's path: ``solve_model`` adds half the tolerance
    (5e-6) to the objective HiGHS reports, and ``at_lambda_bound`` says lambda touches its bound (with HiGHS seed 1
    the solution's lambda is below it). Kills study 21's mutant m72, which compares the note's objective with the
    floor alone."""
    real_solve = tune_module.solve_model

    def solve(model, **kw):
        info = real_solve(model, **kw)
        return dataclasses.replace(info, objective=info.objective + 5e-6) if info.objective is not None else info

    monkeypatch.setattr(tune_module, "solve_model", solve)
    monkeypatch.setattr(tune_module, "at_lambda_bound", lambda model: True)
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 4, 4, seed=0)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all", epsilon=0.2)
    want = pessimistic_value(res.w_bar, s.X_train, s.y_train, s.X_val, s.y_val, np.arange(4), 0.2)
    assert want == pytest.approx(0.0, abs=1e-6) and res.objective == pytest.approx(5e-6, abs=1e-6)
    assert res.lambda_history == [1e3] and res.lambda_bound == 1e3 and res.lambda_max == np.inf
    assert any("equals its lower bound" in m for m in res.verification.messages)
    assert not any("might allow" in m for m in res.verification.messages)


def test_a_lambda_step_down_counts_its_solve_and_start_time(monkeypatch):
    """A solution at the starting bound 1e4 that fails verification (made to here; cancer 8/8, split seed 2, where
    lambda is at its bound) is re-solved at 1e3; that
    solve counts in ``total_seconds`` and its MIP start's LPs in ``start_seconds`` (TuneResult's docstring). The
    durations are marked, not measured: the wrappers add 100 s to the HiGHS time and 50 s to the start time of
    the runs at bound 1e3. Kills the mutants that leave either out."""
    real_verify, real_solve, real_start = verify_module.verify_model, tune_module.solve_model, tune_module._timed_start

    def at_1e3(model):
        return model.bilevel_info.get("lambda_bound") == 1e3

    def flaky(model, **kw):
        ver = real_verify(model, **kw)
        ver.verified = ver.verified and model.bilevel_info.get("lambda_bound") != 1e4
        return ver

    def solve(model, **kw):
        info = real_solve(model, **kw)
        return dataclasses.replace(info, seconds=info.seconds + 100.0) if at_1e3(model) else info

    def timed_start(model, warm_start, **kw):
        start, seconds = real_start(model, warm_start, **kw)
        return start, seconds + (50.0 if at_1e3(model) else 0.0)

    monkeypatch.setattr(verify_module, "verify_model", flaky)
    monkeypatch.setattr(tune_module, "solve_model", solve)
    monkeypatch.setattr(tune_module, "_timed_start", timed_start)
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, seed=2)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all")
    assert res.lambda_history[:2] == [1e4, 1e3] and res.lambda_bound == 1e3 and res.verified
    assert res.solve_seconds >= 100.0 and res.total_seconds >= res.solve_seconds
    assert res.start_seconds >= 50.0


def test_a_pessimistic_result_is_refused_as_the_optimistic_one():
    """``optimistic`` must be the TuneResult of ``mode="optimistic"`` on the same data (InputError, tune's
    docstring): a pessimistic result of the same data and bounds is refused (its best bound is no floor of
    Proposition 1). Kills the mutant that checks the type only."""
    Xt, yt, Xv, yv = _tiny(1)
    pes = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip="all")
    with pytest.raises(bilevel.InputError, match="optimistic must be"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", optimistic=pes)


def test_an_optimistic_result_passed_to_an_optimistic_tune_is_refused():
    """A pessimistic setting with ``mode="optimistic"`` raises InputError (tune's docstring, Raises), ``optimistic``
    among them, named in the message. Kills the mutant that leaves ``optimistic`` out of the settings checked."""
    Xt, yt, Xv, yv = _tiny(1)
    opt = bilevel.tune(Xt, yt, Xv, yv)
    with pytest.raises(bilevel.InputError, match="optimistic only applies to mode='pessimistic'"):
        bilevel.tune(Xt, yt, Xv, yv, optimistic=opt)


def test_with_positive_epsilon_the_floor_is_zero_and_the_pessimistic_value_may_beat_the_optimistic_one():
    """The floor of Eq. (25) is the optimistic best bound only when epsilon = 0 with a training-optimal replica,
    else 0 (tune's docstring: "the optimistic objective when epsilon = 0, else 0"): with epsilon 2 the follower may
    leave the training optima, and on tiny seed 4 with V_f = {1} the pessimistic optimum (0.618, oracle: the KKT
    enumeration) lies below the optimistic one (1.0). Kills the mutant that uses the optimistic best bound as the
    floor for every epsilon."""
    from kkt_enumeration import pessimistic_optimum

    Xt, yt, Xv, yv = _tiny(4)
    want = pessimistic_optimum(Xt, yt, Xv, yv, np.array([1]), 2.0)[0]
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=2.0, flip=[1])
    assert want < res.optimistic.best_bound - 1e-3  # the instance tells the two floors apart
    assert res.verified and res.objective == pytest.approx(want, abs=1e-6)


def _failing_verification(bounds):
    """``tune``'s ``verify_model``, made to fail for every model whose lambda bound is in ``bounds``."""
    real = verify_module.verify_model

    def flaky(model, **kw):
        ver = real(model, **kw)
        ver.verified = ver.verified and model.bilevel_info.get("lambda_bound") not in bounds
        return ver

    return flaky


def test_a_failed_solution_below_its_bound_is_returned_flagged_at_that_bound(monkeypatch):
    """A first solution that fails verification with lambda below its bound is not stepped down: a smaller bound
    would only cut off its lambda; it is returned, flagged, with a RuntimeWarning (tune's docstring, *Starting
    bound*: "a first solution that fails verification with lambda at its bound steps the bound down"). Tiny seed 0,
    epsilon 0.3: lambda_max is about 47, so at the first bound 1e3 lambda is below it; the verification is made to
    fail there. Kills the mutant that steps down whether or not lambda is at its bound."""
    monkeypatch.setattr(verify_module, "verify_model", _failing_verification({1e3}))
    Xt, yt, Xv, yv = _tiny(0)
    opt = bilevel.tune(Xt, yt, Xv, yv)
    with pytest.warns(RuntimeWarning, match=tune_module.VERIFICATION_WARNING):
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip="all", optimistic=opt)
    assert res.lambda_max < 1e3 and res.lambda_history == [1e3] and res.lambda_bound == 1e3
    assert not res.verified


def test_the_degenerate_budget_steps_down_no_further_than_1e3(monkeypatch):
    """epsilon = 0, training-optimal replica: a solution at the starting bound that fails verification steps the
    bound down by lambda_growth "down to 1e3" (tune's docstring, *Starting bound*), not to 1 as with epsilon > 0.
    Cancer 8/8, split seed 2 (lambda at its bound), verification made to fail at every bound: the bounds tried are
    1e4 and 1e3 only, and the answer is flagged. Kills the mutant that steps a degenerate budget down to 1."""
    monkeypatch.setattr(verify_module, "verify_model", _failing_verification({1e4, 1e3, 1e2, 1e1, 1.0}))
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, seed=2)
    with pytest.warns(RuntimeWarning, match=tune_module.VERIFICATION_WARNING):
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all")
    assert min(res.lambda_history) == 1e3 and res.lambda_history[:2] == [1e4, 1e3] and not res.verified


def test_an_escalation_that_fails_verification_reports_the_bound_of_the_solution_kept(monkeypatch):
    """A re-solve at a larger lambda bound whose answer fails verification is dropped: the solution of the previous
    bound is kept, and so is that bound (``lambda_bound``, and the model's), with a note (tune's docstring: the
    bounds tried are in ``lambda_history``). Instance of test_lambda_max (lambda_max about 2.9e4: the solution
    below the first bound 1e3 is re-solved at 1e4), verification made to fail at 1e4. Kills the mutant that keeps
    the solution but reports the larger bound."""
    monkeypatch.setattr(verify_module, "verify_model", _failing_verification({1e4}))
    Xt = np.array([[1.0, 2e-3], [-1.0, -3e-3], [0.5, -2e-3], [-0.3, 1e-3]])
    yt = np.array([1.0, -1.0, -1.0, 1.0])
    Xv, yv = np.array([[0.8, 20.0], [-0.6, -15.0]]), np.array([1.0, -1.0])
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=1e-3, flip="all")
    assert res.lambda_history == [1e3, 1e4]
    assert res.lambda_bound == 1e3 and res.model.bilevel_info["lambda_bound"] == 1e3
    assert any("kept the solution with bound 1000" in m for m in res.verification.messages)
