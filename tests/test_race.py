"""Racing several HiGHS runs (different random seeds) on one MILP: same optimum as one run, checked
against brute force; honest status and bound when every run hits the time limit; bad input."""
import numpy as np
import pytest

import bilevel
import bilevel.solve as solve
from bilevel.errors import InputError
from oracles import grid, optimistic_value, pessimistic_value, tiny_instance

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")  # a failed verification fails the test


@pytest.mark.parametrize("seed", [0, 3])
def test_raced_optimistic_solve_matches_brute_force(seed):
    Xt, yt, Xv, yv = tiny_instance(seed, 8, 6)
    res = bilevel.tune(Xt, yt, Xv, yv, race=3)
    assert res.optimal and res.verified
    assert res.best_bound == pytest.approx(res.objective, abs=1e-6)
    best_grid = min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2))
    assert res.objective <= best_grid + 1e-6
    assert optimistic_value(res.w_bar, Xt, yt, Xv, yv) == pytest.approx(res.objective, abs=1e-6)


def test_raced_pessimistic_solve_matches_brute_force():
    Xt, yt, Xv, yv = tiny_instance(1, 7, 5)
    Vf = np.arange(len(yv))
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.3, flip=Vf, race=2)
    assert res.optimal and res.verified
    best_grid = min(pessimistic_value(wb, Xt, yt, Xv, yv, Vf, 0.3) for wb in grid(2))
    assert res.objective <= best_grid + 1e-6
    assert pessimistic_value(res.w_bar, Xt, yt, Xv, yv, Vf, 0.3) == pytest.approx(res.objective, abs=1e-6)


def test_raced_solve_at_the_time_limit_reports_time_limit_and_a_valid_bound():
    data = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(data.X, data.y, 20, 20, seed=0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    exact = bilevel.solve_model(model).objective
    info = bilevel.solve_model(model, race=2, time_limit=0.2, mip_start=bilevel.kkt_start(model))
    assert info.status == "time_limit" and not info.optimal
    assert info.best_bound <= exact + 1e-7 <= info.objective + 2e-7
    assert info.gap > 0


@pytest.mark.parametrize("race", [0, solve.MAX_CONCURRENCY + 1, 10**20])
def test_race_must_be_a_positive_integer_up_to_the_cap(race):
    """10**20 passed the check and ended in MemoryError while the runs were created."""
    Xt, yt, Xv, yv = tiny_instance(0, 6, 5)
    with pytest.raises(InputError, match=r"race .*\[1, 256\]"):
        bilevel.tune(Xt, yt, Xv, yv, race=race)


def test_threads_after_runs_with_the_default_thread_count_still_solve():
    """HiGHS's global scheduler is created by the first run (threads = 0: half the cores); a later
    ``threads=2`` or ``threads=1`` solve must still run, not come back unsolved with the MIP start."""
    Xt, yt, Xv, yv = tiny_instance(2, 8, 6)
    best_grid = min(optimistic_value(wb, Xt, yt, Xv, yv) for wb in grid(2))
    first = bilevel.tune(Xt, yt, Xv, yv)
    runs = [dict(threads=2), dict(threads=1), dict(highs_options={"threads": 2, "parallel": "on"}), dict(threads=1)]
    for kw in runs:  # the last two: HiGHS's parallel tree search, and back to one thread
        res = bilevel.tune(Xt, yt, Xv, yv, **kw)
        assert res.optimal and res.verified
        assert res.objective == pytest.approx(first.objective, abs=1e-6)
        assert res.objective <= best_grid + 1e-6


def test_a_run_highs_refuses_raises_instead_of_returning_the_start(monkeypatch):
    """With the scheduler left as it is, HiGHS refuses a run whose thread count differs from it."""
    Xt, yt, Xv, yv = tiny_instance(2, 8, 6)
    bilevel.tune(Xt, yt, Xv, yv, threads=1)  # the scheduler now has one thread
    monkeypatch.setattr(solve, "_match_scheduler", lambda opts: None)
    with pytest.raises(bilevel.SolverError, match="did not run"):
        bilevel.tune(Xt, yt, Xv, yv, threads=2)


@pytest.mark.parametrize("threads", [-1, 1.5, "2", True, solve.MAX_CONCURRENCY + 1, 10**5])
def test_threads_must_be_a_non_negative_integer_up_to_the_cap(threads):
    """10**5 threads ended in std::bad_alloc from HiGHS's scheduler (an abort under a memory limit)."""
    Xt, yt, Xv, yv = tiny_instance(0, 6, 5)
    with pytest.raises(InputError, match="threads"):
        bilevel.tune(Xt, yt, Xv, yv, threads=threads)
    with pytest.raises(InputError, match="threads"):  # the same value given as a HiGHS option
        bilevel.tune(Xt, yt, Xv, yv, highs_options={"threads": threads})


def test_the_racers_seeds_wrap_below_highs_limit():
    # random_seed 2**31 - 1 is valid, but the second racer's seed + 1 was refused as "random_seed=2147483648", a
    # value the user never gave; an invalid seed is still refused by its own value
    Xt, yt, Xv, yv = tiny_instance(0, 6, 4)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    one = bilevel.solve_model(model)
    raced = bilevel.solve_model(model, race=2, options={"random_seed": 2**31 - 1})
    assert raced.status == one.status == "optimal" and raced.objective == pytest.approx(one.objective, abs=1e-9)
    with pytest.raises(InputError, match="random_seed=-1"):
        bilevel.solve_model(model, race=2, options={"random_seed": -1})
