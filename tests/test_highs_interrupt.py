"""A Ctrl-C during a HiGHS MILP solve ends it at once. ``Highs.run`` returns to Python only at its end, so without
a callback a Ctrl-C waited for the whole solve (up to the time limit): ``bilevel.solve_model`` without
``interrupt_when``/``improve`` (tie re-solves, the lambda re-solves of ``tune``), ``library.solve_instance``
(``bilevel export-library``, 60 s per instance) and the ``solvers.highs`` runner (``solvers.compare``)."""
from __future__ import annotations

import os
import signal
import threading

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel import library
from solvers import get_runner

M, N = 5, 40


def _weights():
    A = np.random.default_rng(0).integers(0, 100, size=(M, N))
    return A, A.sum(axis=1) // 2


def _market_split_model():
    """A market-split MILP (Cornuejols-Dawande): tiny, and far from solved within seconds."""
    A, rhs = _weights()
    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(N), domain=pyo.Binary)
    m.sp = pyo.Var(range(M), bounds=(0, 1e4))
    m.sn = pyo.Var(range(M), bounds=(0, 1e4))
    m.obj = pyo.Objective(expr=sum(m.sp[i] + m.sn[i] for i in range(M)))
    m.rows = pyo.Constraint(range(M), rule=lambda m, i: sum(int(A[i, j]) * m.x[j] for j in range(N))
                            + m.sp[i] - m.sn[i] == int(rhs[i]))
    return m


@pytest.fixture
def sigint_during_run(monkeypatch):
    """Patch ``highspy.Highs.run`` to send this process a SIGINT 0.3 s into every run and to record the model
    status each run ended with."""
    statuses = []
    original = highspy.Highs.run

    def run(self, *args, **kwargs):
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        timer.start()
        try:
            return original(self, *args, **kwargs)
        finally:
            timer.cancel()
            statuses.append(self.modelStatusToString(self.getModelStatus()))

    monkeypatch.setattr(highspy.Highs, "run", run)
    return statuses


def _assert_interrupted(statuses):
    assert statuses, "HiGHS did not run"
    # older: HiGHS ran on to its time limit and the KeyboardInterrupt came after it ("Time limit reached"); then the
    # KeyboardInterrupt was raised inside highspy's callback wrapper and unwound through HiGHS ("Not Set"). HiGHS
    # is now stopped by its callback, and the KeyboardInterrupt raised after the run.
    assert statuses[-1] == "Interrupted by user", statuses


def test_solve_model_without_hooks_stops_at_ctrl_c(sigint_during_run):
    with pytest.raises(KeyboardInterrupt):
        bilevel.solve_model(_market_split_model(), time_limit=8)
    _assert_interrupted(sigint_during_run)


def test_library_solve_instance_stops_at_ctrl_c(sigint_during_run):
    built = library.BuiltInstance(spec=None, model=_market_split_model(), split=None, flipped=np.array([], int))
    with pytest.raises(KeyboardInterrupt):
        library.solve_instance(built, time_limit=8)
    _assert_interrupted(sigint_during_run)


def test_highs_runner_stops_at_ctrl_c(sigint_during_run, tmp_path):
    path = tmp_path / "ms.lp"
    bilevel.write_model(_market_split_model(), path)
    with pytest.raises(KeyboardInterrupt):
        get_runner("highs").solve(path, time_limit=8)
    _assert_interrupted(sigint_during_run)


def test_an_uninterrupted_solve_is_unchanged(tmp_path):
    """The callback stops nothing by itself: the runner still ends at the time limit with HiGHS's incumbent."""
    path = tmp_path / "ms.lp"
    bilevel.write_model(_market_split_model(), path)
    r = get_runner("highs").solve(path, time_limit=0.5)
    assert r.status == "time_limit"
