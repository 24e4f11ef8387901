"""The objective cutoff of the optimistic MILP (bilevel/bigm.py item 10) and tune's cutoff restarts: the
cutoff ranges against independent scipy LPs, the same optimum as the plain model (and brute force on tiny
instances), an enforced cutoff, HiGHS interrupted on request, and restarts that keep the answer and the
time limit."""
import importlib
import time

import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import linprog

import bilevel
from bilevel import bigm
from bilevel.errors import InputError, SolverError
from oracles import grid, margin_range, optimistic_value, pessimistic_value, tiny_instance

tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a failed verification fails the test


def _split(data, n, seed):
    d = bilevel.load_dataset(data)
    return bilevel.split_dataset(d.X, d.y, n, n, seed=seed)


def test_cutoff_ranges_agree_with_linprog_and_are_tighter():
    s = _split("cancer", 15, 4)
    ub, budget, cutoff = np.ones(s.X_train.shape[1]), 0.9, 0.1
    rows = np.vstack([s.X_train[:6], s.X_val[:3]])
    lo, hi = bigm.margin_ranges(s.X_train, s.y_train, ub, budget, rows, (s.X_val, s.y_val, cutoff))
    plain_lo, plain_hi = bigm.margin_ranges(s.X_train, s.y_train, ub, budget, rows)
    for k, x in enumerate(rows):
        ref_lo, ref_hi = margin_range(s.X_train, s.y_train, ub, budget, x, (s.X_val, s.y_val, cutoff))
        assert lo[k] <= ref_lo <= lo[k] + 3e-6 * (1 + abs(ref_lo))
        assert hi[k] - 3e-6 * (1 + abs(ref_hi)) <= ref_hi <= hi[k]
    assert np.all(lo >= plain_lo - 1e-12) and np.all(hi <= plain_hi + 1e-12)
    assert np.sum(hi - lo) < 0.8 * np.sum(plain_hi - plain_lo)  # the cutoff is what made them tighter


def test_a_cutoff_no_hyperplane_reaches_is_rejected_by_name():
    s = _split("diabetes", 50, 0)
    Xt, yt, Xv, yv = s.X_train, s.y_train, s.X_val, s.y_val
    # The least mean validation hinge of any hyperplane in the box (an LP, written directly for linprog).
    n, p = Xv.shape
    least = linprog(np.r_[np.zeros(p + 1), np.full(n, 1.0 / n)],
                    A_ub=np.hstack([-yv[:, None] * Xv, yv[:, None], -np.eye(n)]), b_ub=-np.ones(n),
                    bounds=[(-1, 1)] * p + [(None, None)] + [(0, None)] * n, method="highs").fun
    assert least > 0.05
    with pytest.raises(InputError, match="validation hinge <= "):
        bilevel.build_optimistic_model(Xt, yt, Xv, yv, objective_cutoff=0.5 * least)
    for bad in (float("nan"), -0.1):
        with pytest.raises(InputError, match="objective_cutoff"):
            bilevel.build_optimistic_model(Xt, yt, Xv, yv, objective_cutoff=bad)


@pytest.mark.parametrize("seed,n_t,n_v", [(0, 6, 5), (1, 8, 6), (3, 8, 6), (0, 4, 8)])
def test_cutoff_model_matches_brute_force(seed, n_t, n_v):
    """The model built around a cutoff at the grid's best value keeps the optimum. With more validation than
    training points (4/8), the cutoff row's mean over the validation points is pinned (mutation testing: 1/|T| in
    place of 1/|V| passed, every other case having |V| <= |T|, and rejected the cutoff as unreachable here)."""
    Xt, yt, Xv, yv = tiny_instance(seed, n_t, n_v)
    best_grid = min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2))
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, objective_cutoff=best_grid + 1e-6)
    info = bilevel.solve_model(model)
    assert info.optimal and bilevel.verify_model(model).verified
    assert info.objective <= best_grid + 1e-6
    assert info.objective == pytest.approx(bilevel.tune(Xt, yt, Xv, yv, cutoff_restarts=False).objective, abs=1e-6)


@pytest.mark.parametrize("seed,epsilon,flipped", [(0, 0.0, "all"), (1, 0.3, "all"), (4, 0.5, [1, 3, 4])])
def test_pessimistic_cutoff_model_matches_brute_force(seed, epsilon, flipped):
    Xt, yt, Xv, yv = tiny_instance(seed, 7, 5)
    Vf = np.arange(len(yv)) if flipped == "all" else np.array(flipped)
    best_grid = min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, epsilon) for wb in grid(2))
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, Vf, epsilon, objective_cutoff=best_grid + 1e-6)
    info = bilevel.solve_model(model)
    assert info.optimal and bilevel.verify_model(model).verified
    assert info.objective <= best_grid + 1e-6
    plain = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=epsilon, flip=Vf, cutoff_restarts=False)
    assert info.objective == pytest.approx(plain.objective, abs=1e-6)


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
def test_pessimistic_cutoff_decides_follower_points_and_keeps_the_optimum(epsilon):
    s = _split("cancer", 12, 3)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    Vf = np.arange(len(s.y_val))
    plain = bilevel.tune(*args, mode="pessimistic", epsilon=epsilon, flip=Vf, cutoff_restarts=False)
    model = bilevel.build_pessimistic_model(*args, Vf, epsilon, lambda_bound=plain.lambda_bound,
                                            objective_cutoff=plain.objective + 1e-6)
    M = model.bilevel_info["big_m"]
    n_t = len(s.y_train)
    assert M.outside[:n_t].sum() + M.inside[:n_t].sum() >= 1  # training points of the follower
    assert M.inside[n_t:].sum() >= 1  # flipped points: a good model on true labels errs on flipped ones
    start = bilevel.kkt_start(model, w_bar=plain.w_bar)  # the optimum's box: a start within the cutoff
    assert start is not None
    info = bilevel.solve_model(model, mip_start=start, time_limit=60)
    assert info.optimal and bilevel.verify_model(model).verified
    assert info.objective == pytest.approx(plain.objective, abs=1e-6)


@pytest.mark.parametrize("data,n,seed", [("cancer", 20, 0), ("diabetes", 20, 2), ("cancer", 15, 1)])
def test_cutoff_keeps_the_optimum_fixes_points_and_is_enforced(data, n, seed):
    s = _split(data, n, seed)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    plain = bilevel.tune(*args, cutoff_restarts=False)
    start = bilevel.kkt_start(plain.model)
    start_value = float(np.mean([v for var, v in start if var.parent_component() is plain.model.g]))
    fixed = []
    for cutoff in (plain.objective + 1e-6, 1.5 * plain.objective + 1e-3, start_value + 1e-6):
        model = bilevel.build_optimistic_model(*args, objective_cutoff=cutoff)
        M = model.bilevel_info["big_m"]
        fixed.append(int(M.outside.sum() + M.inside.sum()))
        info = bilevel.solve_model(model)
        assert info.optimal and bilevel.verify_model(model).verified
        assert info.objective == pytest.approx(plain.objective, abs=1e-6)
    assert fixed[0] >= 1  # a cutoff at the optimum decides some points on every instance here
    # Below the optimum (but above what a hyperplane alone can reach) the MILP has no solution at all.
    with pytest.raises((SolverError, InputError)):
        bilevel.solve_model(bilevel.build_optimistic_model(*args, objective_cutoff=0.8 * plain.objective))


@pytest.mark.parametrize("race", [1, 2])
def test_interrupt_when_stops_highs_with_its_incumbent(race):
    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    seen = []

    def stop(objective, seconds):
        seen.append((objective, seconds))
        return True

    info = bilevel.solve_model(model, mip_start=bilevel.kkt_start(model), race=race, interrupt_when=stop)
    assert info.status == "interrupted" and not info.optimal
    assert seen and np.isfinite(seen[0][0])
    assert info.objective == pytest.approx(pyo.value(model.validation_hinge))  # the incumbent is loaded
    exact = bilevel.solve_model(model, interrupt_when=lambda objective, seconds: False)
    assert exact.optimal and exact.objective <= info.objective + 1e-9


def test_an_error_in_interrupt_when_is_raised_after_the_solve():
    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)

    def broken(objective, seconds):
        raise ZeroDivisionError("inside the hook")

    with pytest.raises(ZeroDivisionError, match="inside the hook"):
        bilevel.solve_model(model, mip_start=bilevel.kkt_start(model), interrupt_when=broken)


def test_restarts_keep_the_optimum_with_decreasing_cutoffs(monkeypatch):
    s = _split("diabetes", 20, 0)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    plain = bilevel.tune(*args, cutoff_restarts=False)
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)  # restart at every 1% improvement
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", 0.99)
    res = bilevel.tune(*args)
    assert res.optimal and res.verified
    assert res.objective == pytest.approx(plain.objective, abs=1e-6)
    cutoffs = [r["cutoff"] for r in res.restarts]
    assert 1 <= len(cutoffs) <= tune_module._MAX_RESTARTS
    assert all(a > b for a, b in zip(cutoffs, cutoffs[1:]))
    assert res.model.bilevel_info["objective_cutoff"] == cutoffs[-1]
    # total_seconds counts every solve: the time up to the last restart and the final solve after it (a total
    # restarted at each solve, which kept the final solve's time only, passed the bare >= restarts[-1]["seconds"]
    # whenever that solve was the longer: mutation study 21's m34)
    assert res.total_seconds >= res.restarts[-1]["seconds"] + res.solve_seconds - 1e-9
    # What the CLI exports is the plain Eq. (21) model: no cutoff row, no fixed binaries, same optimum.
    plain_model = res.plain_model()
    assert plain_model.component("objective_cutoff") is None
    assert not any(v.fixed for v in plain_model.component_data_objects(pyo.Var))
    assert bilevel.solve_model(plain_model).objective == pytest.approx(plain.objective, abs=1e-6)
    # A pessimistic tune passes the setting on to its optimistic solve.
    pes = bilevel.tune(*args, mode="pessimistic", flip="all", cutoff_restarts=False)
    assert pes.optimistic.restarts == []


@pytest.mark.parametrize("epsilon", [0.0, 0.2])
def test_pessimistic_model_is_built_around_its_start(epsilon):
    s = _split("cancer", 12, 3)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args, cutoff_restarts=False)
    kw = dict(mode="pessimistic", epsilon=epsilon, flip="all", optimistic=opt)
    plain = bilevel.tune(*args, **kw, cutoff_restarts=False)
    res = bilevel.tune(*args, **kw)
    assert plain.model.bilevel_info["objective_cutoff"] is None
    cutoff = res.model.bilevel_info["objective_cutoff"]
    floor = opt.best_bound if epsilon == 0 else 0.0
    if cutoff is None:  # only when the start already met the floor, and then it is the answer
        assert res.objective == pytest.approx(floor, abs=1e-6)
    else:
        assert cutoff >= res.objective - 1e-9
    assert res.optimal and res.verified
    assert res.objective == pytest.approx(plain.objective, abs=1e-6)


def test_pessimistic_restarts_keep_the_optimum(monkeypatch):
    s = _split("cancer", 10, 1)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args, cutoff_restarts=False)
    kw = dict(mode="pessimistic", epsilon=0.2, flip="all", optimistic=opt)
    plain = bilevel.tune(*args, **kw, cutoff_restarts=False)
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", 0.99)
    res = bilevel.tune(*args, **kw)
    assert res.optimal and res.verified and plain.optimal
    assert res.restarts and res.model.bilevel_info["objective_cutoff"] == res.restarts[-1]["cutoff"]
    assert res.objective == pytest.approx(plain.objective, abs=1e-6)
    exported = res.plain_model()
    assert exported.component("objective_cutoff") is None
    assert bilevel.solve_model(exported).objective == pytest.approx(plain.objective, abs=1e-6)


def test_a_failed_rebuild_falls_back_to_the_model_in_hand(monkeypatch):
    s = _split("diabetes", 20, 0)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    plain = bilevel.tune(*args, cutoff_restarts=False)
    real = tune_module.build_optimistic_model

    def failing(*a, objective_cutoff=None, **kw):
        if objective_cutoff is not None:
            raise bigm.InfeasibleCutoff("simulated")
        return real(*a, **kw)

    monkeypatch.setattr(tune_module, "build_optimistic_model", failing)
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", 0.99)
    res = bilevel.tune(*args)
    assert res.optimal and res.verified and res.restarts == []
    assert res.objective == pytest.approx(plain.objective, abs=1e-6)


def test_restarts_honour_the_time_limit(monkeypatch):
    s = _split("cancer", 50, 2)  # about 15 s to optimality
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", 0.999)
    calls = []  # (time limit given, HiGHS seconds used) of each solve
    real = tune_module.solve_model

    def recording(*a, **kw):
        info = real(*a, **kw)
        calls.append((kw["time_limit"], info.seconds))
        return info

    monkeypatch.setattr(tune_module, "solve_model", recording)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=1.5)
    assert res.status == "time_limit" and not res.optimal
    assert len(calls) == len(res.restarts) + 1  # HiGHS seed 0: a restart; seeds 1 and 2: none within 1.5 s
    # every solve gets at most what the earlier ones left (no timing bound: the machine's load does not matter)
    for k, (limit, _) in enumerate(calls):
        assert limit <= 1.5 - sum(used for _, used in calls[:k]) + 1e-9
    assert res.verified  # the incumbent is a true lower-level optimum



def test_a_rebuild_that_uses_up_the_time_left_returns_the_incumbent(monkeypatch):
    """The time left is checked after the rebuild too: a slow rebuild used to pass a negative time limit to
    the next solve (InputError) instead of returning the incumbent as a time-limit result."""
    s = _split("diabetes", 20, 0)
    real, rebuilds = tune_module.build_optimistic_model, []

    def slow(*a, objective_cutoff=None, **kw):
        if objective_cutoff is not None:
            rebuilds.append(objective_cutoff)
            time.sleep(1.5)
        return real(*a, objective_cutoff=objective_cutoff, **kw)

    monkeypatch.setattr(tune_module, "build_optimistic_model", slow)
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    # any incumbent triggers the restart (the MIP start's at the first interrupt check): with a ratio below 1
    # the test needed HiGHS to find a better one within the 1 s limit, which a loaded machine missed
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", float("inf"))
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=1.0)
    assert len(rebuilds) == 1  # a restart was triggered, and its rebuild outlasted the limit
    assert res.status == "time_limit" and res.verified
    assert res.model.bilevel_info["objective_cutoff"] is None  # the model whose incumbent is loaded


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_a_restart_that_finds_no_solution_returns_the_incumbent_in_hand(monkeypatch, mode):
    """HiGHS can reject the incumbent carried over to a rebuilt model (a pessimistic follower with lambda = 0
    may hold xi above its hinge, beyond the rebuilt model's tighter bound on xi) and then stop at the time limit
    without any solution (NoSolutionError, seen with the time left short). The restarts used to pass that on
    as a SolverError although the interrupted run had a verified incumbent. Simulated: every solve of a model
    rebuilt by a restart finds nothing. Oracle: the exact KKT enumeration (a valid incumbent is never below it)."""
    from kkt_enumeration import optimistic_optimum, pessimistic_optimum
    from bilevel.solve import NoSolutionError

    Xt, yt, Xv, yv = tiny_instance(1, 5, 3)
    opt = bilevel.tune(Xt, yt, Xv, yv, cutoff_restarts=False)
    real, restarted = tune_module.solve_model, []

    def nothing_after_a_restart(model, **kw):
        if any(model is r for r in restarted):
            raise NoSolutionError("HiGHS stopped (time_limit) before finding a feasible solution")
        return real(model, **kw)

    def rebuilt_around(rebuild, value, pairs):
        out = real_rebuilt(rebuild, value, pairs)
        if out is not None:
            restarted.append(out[0])
        return out

    real_rebuilt = tune_module._rebuilt_around
    monkeypatch.setattr(tune_module, "solve_model", nothing_after_a_restart)
    monkeypatch.setattr(tune_module, "_rebuilt_around", rebuilt_around)
    monkeypatch.setattr(tune_module, "_RESTART_AFTER", 0.0)
    monkeypatch.setattr(tune_module, "_RESTART_RATIO", float("inf"))  # the first incumbent triggers a restart
    if mode == "optimistic":
        res = bilevel.tune(Xt, yt, Xv, yv, time_limit=30)
        exact = optimistic_optimum(Xt, yt, Xv, yv)[0]
    else:
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.2, flip="all", optimistic=opt, time_limit=30)
        exact = pessimistic_optimum(Xt, yt, Xv, yv, res.flipped, 0.2)[0]
    assert restarted  # a restart was triggered, and its solve found nothing
    assert res.status == "time_limit" and res.verified
    assert not any(res.model is r for r in restarted)  # the model whose incumbent is loaded
    # the only restart failed: it is not listed (restarts[-1]["cutoff"] named the failed rebuild's cutoff, not
    # the returned model's)
    assert res.restarts == []
    assert res.objective == pytest.approx(pyo.value(res.model.validation_hinge))
    assert res.objective >= exact - 1e-6 and res.best_bound <= exact + 1e-6


@pytest.mark.parametrize("race", [1, 2])
def test_an_error_in_improve_stops_the_runs_and_is_raised(monkeypatch, race):
    """An exception in ``improve`` stops HiGHS (it let every run go on to the end, here seconds of search, only to
    raise then), as one in ``interrupt_when`` does. Oracle: HiGHS's own status of each run (interrupted, not
    optimal), and no thread left behind."""
    import threading

    import highspy

    import bilevel.solve as S

    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    real, runs = S._configured_highs, []

    def recording(*args, **kwargs):
        runs.append(real(*args, **kwargs))
        return runs[-1]

    def broken(incumbent, dual_bound, deadline):
        raise ZeroDivisionError("inside improve")

    monkeypatch.setattr(S, "_configured_highs", recording)
    before = threading.active_count()
    with pytest.raises(ZeroDivisionError, match="inside improve"):
        bilevel.solve_model(model, improve=broken, improve_after=0.0, race=race)
    assert len(runs) == race
    assert [h.getModelStatus() for h in runs] == [highspy.HighsModelStatus.kInterrupt] * race
    assert threading.active_count() == before


@pytest.mark.parametrize("hook", ["improve", "interrupt_when"])
def test_a_base_exception_in_a_raced_hook_is_raised_as_itself(hook):
    """A hook that raises SystemExit (or KeyboardInterrupt: not an Exception) in a raced run: it unwound through
    HiGHS inside the run's thread, was only printed there, and the solve raised "HiGHS did not run the model"
    instead. Oracle: the hook's own exception, and no thread left behind."""
    import threading

    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)

    def leave(*args):
        raise SystemExit(3)

    kw = {"improve": leave, "improve_after": 0.0} if hook == "improve" else {"interrupt_when": leave}
    before = threading.active_count()
    with pytest.raises(SystemExit):
        bilevel.solve_model(model, race=2, **kw)
    assert threading.active_count() == before
