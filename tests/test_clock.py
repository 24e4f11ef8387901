"""`clock="nodes"`: the box search and the cutoff restarts wait for node counts, not seconds, so a solve
follows the same path on a slow or a busy machine (bilevel/solve.py, bilevel/tune.py)."""
import importlib
import json
import time

import numpy as np
import pytest

import bilevel
import bilevel.solve as solve
tune_mod = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
from bilevel.errors import InputError
from test_cutoff import _split  # one |T| = |V| = n split of a built-in data set


def test_interrupt_when_gets_the_node_count():
    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    seen = []

    def stop(objective, elapsed):
        seen.append(elapsed)
        return elapsed >= 40

    start = bilevel.kkt_start(model)  # an incumbent from the start: the rule is checked from node 0 on
    info = bilevel.solve_model(model, mip_start=start, interrupt_when=stop, clock="nodes")
    assert info.status == "interrupted" and info.nodes >= 40
    assert all(float(e).is_integer() for e in seen) and seen == sorted(seen) and seen[0] < 40 <= seen[-1]
    # The same rule on the seconds clock never fires here (the solve takes well under 40 s).
    exact = bilevel.solve_model(model, mip_start=start, interrupt_when=stop, clock="seconds")
    assert exact.optimal and exact.nodes > info.nodes


def test_improve_waits_for_the_node_count():
    s = _split("diabetes", 20, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    start = bilevel.kkt_start(model)  # an incumbent from the start, so interrupt_when records every check
    plain = bilevel.solve_model(model, mip_start=start)
    assert plain.nodes > 100  # the test needs a solve that branches
    nodes_at_call = []

    def record(objective, elapsed):  # interrupt_when sees every check; it never stops the run
        nodes_at_call.append(elapsed)
        return False

    def improve(incumbent, dual_bound, deadline):
        calls.append(nodes_at_call[-1])
        return None

    for after in (50, plain.nodes + 10):
        calls, nodes_at_call[:] = [], []
        info = bilevel.solve_model(model, mip_start=start, improve=improve, improve_after=after, interrupt_when=record,
                                   clock="nodes")
        assert info.optimal and info.objective == pytest.approx(plain.objective, abs=1e-7)
        if after < plain.nodes:
            assert len(calls) == 1 and calls[0] >= after - 5  # after the 50th node, not at its start
        else:
            assert calls == []  # a solve that ends sooner never runs it


def test_an_unknown_clock_is_refused():
    s = _split("cancer", 10, 0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    with pytest.raises(InputError, match="clock must be one of 'seconds', 'nodes'; got 'steps'"):
        bilevel.solve_model(model, clock="steps")
    with pytest.raises(InputError, match="clock must be one of 'seconds', 'nodes'; got 'wall'"):
        bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, clock="wall")


def _slowed(monkeypatch) -> list:
    """Run HiGHS at about half speed, as on a slower or busier machine: every interrupt check sleeps as long as
    HiGHS worked since the previous check (at most 0.2 s). Returns the list of the sleeps' lengths."""
    interrupt, slept, last = solve._Stopper.interrupt, [], [None]

    def slow(self, event):
        if last[0] is not None:
            slept.append(min(time.perf_counter() - last[0], 0.2))
            time.sleep(slept[-1])
        result = interrupt(self, event)
        last[0] = time.perf_counter()
        return result
    monkeypatch.setattr(solve._Stopper, "interrupt", slow)
    return slept


def test_node_clock_gives_the_same_path_on_a_slower_machine(monkeypatch):
    s = _split("diabetes", 20, 0)
    searches = []
    search_box = tune_mod.search_box

    def counted(*args, **kwargs):
        searches.append(1)
        return search_box(*args, **kwargs)
    monkeypatch.setattr(tune_mod, "search_box", counted)
    # Thresholds low enough that both hooks fire on this instance under any HiGHS seed (the test suite also
    # runs with --highs-seed 1).
    monkeypatch.setattr(tune_mod, "_SEARCH_AFTER_NODES", 100)
    monkeypatch.setattr(tune_mod, "_NODES_PER_EVALUATION", 0.1)
    monkeypatch.setattr(tune_mod, "_RESTART_AFTER_NODES", 150)

    def run():
        searches.clear()
        r = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, clock="nodes")
        return r, len(searches)

    fast, fast_searches = run()
    with monkeypatch.context() as m:
        slept = _slowed(m)
        slow, slow_searches = run()
    assert fast.optimal and slow.optimal
    assert fast_searches == 1 and fast.restarts  # both hooks fired
    # The slowdown added at least a third of the plain run's time ...
    assert sum(slept) > fast.total_seconds / 3
    # ... but did not change the path:
    assert (slow.nodes, slow_searches) == (fast.nodes, fast_searches)
    assert [r["cutoff"] for r in slow.restarts] == [r["cutoff"] for r in fast.restarts]
    np.testing.assert_array_equal(slow.w_bar, fast.w_bar)
    assert slow.objective == fast.objective


def test_cli_and_study_pass_the_clock(tmp_path, monkeypatch, capsys):
    from bilevel.cli import main
    from bilevel.study_cli import load_study_module

    clocks = []
    real = importlib.import_module("bilevel.tune").tune

    def spy(*args, **kwargs):
        clocks.append(kwargs.get("clock"))
        return real(*args, **kwargs)
    monkeypatch.setattr(importlib.import_module("bilevel.tune"), "tune", spy)
    out = tmp_path / "r.json"
    assert main(["tune", "--data", "cancer", "--n-train", "10", "--n-val", "10", "--clock", "nodes",
                 "--json", str(out)]) == 0
    assert clocks == ["nodes", "nodes"] and json.loads(out.read_text())["clock"] == "nodes"
    us = load_study_module()
    base = us.StudyConfig.quick()
    assert base.clock == "seconds"
    assert us.StudyConfig.quick(clock="nodes").result_hash() != base.result_hash()
    with pytest.raises(InputError, match="clock must be one of"):
        us.StudyConfig.quick(clock="wall")
    with pytest.raises(SystemExit):
        main(["study", "--clock", "wall"])
    assert "invalid choice: 'wall'" in capsys.readouterr().err
