"""The box search before HiGHS's first solve on large optimistic MILPs (``bilevel.tune._SEARCH_FIRST_POINTS``): when
it runs, what HiGHS is handed, and that the answer is the optimum the in-run search reaches."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import bilevel
from bilevel.warmstart import kkt_start
from experiments.bench_milp import benchmark_split

tune_module = importlib.import_module("bilevel.tune")


def _first_solves(monkeypatch, split, **kw):
    """``tune`` on ``split``, recording for each HiGHS solve the model's cutoff and whether the box search hook was
    handed in."""
    calls = []
    real = tune_module.solve_model

    def spy(model, **solve_kw):
        calls.append({"cutoff": model.bilevel_info["objective_cutoff"], "mode": model.bilevel_info["mode"],
                      "hook": "improve" in solve_kw})
        return real(model, **solve_kw)
    monkeypatch.setattr(tune_module, "solve_model", spy)
    res = bilevel.tune(split.X_train, split.y_train, split.X_val, split.y_val, **kw)
    return res, calls


def test_large_optimistic_models_are_searched_first_and_built_around_the_value(monkeypatch):
    # cancer 50/50 split 1 (100 points): the box search beats the MIP start at w_bar_ub (0.306)
    split = benchmark_split("cancer", 50, 1)
    plain = bilevel.build_optimistic_model(split.X_train, split.y_train, split.X_val, split.y_val)
    start_value = float(np.mean([v for var, v in kkt_start(plain) if var.parent_component() is plain.g]))
    res, calls = _first_solves(monkeypatch, split)
    assert calls[0]["cutoff"] is not None and calls[0]["cutoff"] < start_value - 1e-3
    assert not any(c["hook"] for c in calls)  # the search ran once, before: HiGHS gets no second one
    assert res.optimal and res.verified
    monkeypatch.setattr(tune_module, "_SEARCH_FIRST_POINTS", 10**9)  # the in-run search alone
    inside, inside_calls = _first_solves(monkeypatch, split)
    assert inside_calls[0]["cutoff"] is None and inside_calls[0]["hook"]
    assert res.objective == pytest.approx(inside.objective, rel=1e-4, abs=1e-6)  # HiGHS's default gaps


def test_small_and_pessimistic_models_keep_the_search_inside_highs(monkeypatch):
    small = benchmark_split("cancer", 20, 0)  # 40 points
    _, calls = _first_solves(monkeypatch, small)
    assert calls[0]["cutoff"] is None and calls[0]["hook"]
    large = benchmark_split("diabetes", 50, 2)  # 100 points
    opt = bilevel.tune(large.X_train, large.y_train, large.X_val, large.y_val)
    res, calls = _first_solves(monkeypatch, large, mode="pessimistic", flip="all", optimistic=opt, time_limit=60)
    assert calls[0]["mode"] == "pessimistic" and calls[0]["hook"]
    assert res.verified


def test_a_time_limit_covers_the_search_before_the_solve():
    split = benchmark_split("cancer", 100, 1)
    res = bilevel.tune(split.X_train, split.y_train, split.X_val, split.y_val, time_limit=0.5)
    assert res.status == "time_limit" and res.verified
    assert res.total_seconds < 0.5 + 1.0  # the search stops at the limit; the rebuild and HiGHS's 0.01 s follow
