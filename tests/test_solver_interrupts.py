"""Ctrl-C and a closed standard output in the solvers/ commands.

SCIP, Gurobi, CPLEX and Xpress catch SIGINT themselves during a solve and return a status: the runners reported
it as status ``error``, and ``python -m solvers.compare`` went on with the next solve, wrote its ``--csv`` and
exited 0. ``... | head -1`` ended compare and check_solution with a BrokenPipeError traceback and exit code 1 (their
"disagreement" / "rejected" verdict), compare without writing its finished ``--csv`` (now a quiet stop, exit code
141)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import types
from pathlib import Path

import numpy as np
import pytest

import solvers.compare as compare_mod
from solvers import get_runner
from solvers.check_solution import main as check_main
from solvers.compare import main as compare_main

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "models" / "manifest.csv"


def _market_split(path: Path, m: int = 5, n: int = 40, seed: int = 0) -> Path:
    """A market-split MILP (Cornuejols-Dawande): tiny, and far from solved within seconds by any solver."""
    import highspy
    import scipy.sparse as sp

    A = np.random.default_rng(seed).integers(0, 100, size=(m, n))
    rhs = (A.sum(axis=1) // 2).astype(float)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n + 2 * m, m
    lp.col_cost_ = np.r_[np.zeros(n), np.ones(2 * m)]
    lp.col_lower_ = np.zeros(n + 2 * m)
    lp.col_upper_ = np.r_[np.ones(n), np.full(2 * m, 1e4)]
    lp.row_lower_, lp.row_upper_ = rhs, rhs
    C = sp.csc_matrix(np.hstack([A, np.eye(m), -np.eye(m)]))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = C.indptr, C.indices, C.data.astype(float)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n + [highspy.HighsVarType.kContinuous] * (2 * m)
    h = highspy.Highs()
    h.silent()
    h.passModel(lp)
    h.writeModel(str(path))
    return path


@pytest.mark.parametrize("name", ["gurobi", "cplex"])
def test_a_ctrl_c_that_the_solver_catches_ends_the_run(name, tmp_path):
    runner = get_runner(name)
    if not runner.available():
        pytest.skip(f"{name} is not available")
    path = _market_split(tmp_path / "ms.mps")
    timer = threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):  # old: RunResult status "error" ("INTERRUPTED", "aborted")
            runner.solve(path, time_limit=60)
    finally:
        timer.cancel()


#: Solves a market split with Xpress in a fresh process whose SIGINT action is argv[2] ("interrupt": Python's
#: KeyboardInterrupt handler, as in a terminal; "ignore": a background job) and sends itself SIGINT 1 s into the solve.
_XPRESS_SIGINT_SCRIPT = """
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler if sys.argv[2] == "interrupt" else signal.SIG_IGN)
before = signal.getsignal(signal.SIGINT)
from solvers import get_runner
runner = get_runner("xpress")
assert runner.available()
threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
t0 = time.perf_counter()
try:
    print("status", runner.solve(sys.argv[1], time_limit=float(sys.argv[3])).status)
except KeyboardInterrupt as exc:
    print("interrupted", exc)
finally:
    print("seconds", time.perf_counter() - t0)
    print("action kept", signal.getsignal(signal.SIGINT) == before)
"""


def _xpress_with_sigint(tmp_path: Path, action: str, time_limit: float) -> subprocess.CompletedProcess:
    if not get_runner("xpress").available():
        pytest.skip("xpress is not available")
    path = _market_split(tmp_path / "ms.mps", m=6, n=60)
    return subprocess.run([sys.executable, "-c", _XPRESS_SIGINT_SCRIPT, str(path), action, str(time_limit)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_xpress_ctrl_c_during_a_solve_ends_the_run(tmp_path):
    """solvers.xpress.solve: Xpress 9.9.1 sets SIGINT's action to the default during a solve, so a Ctrl-C killed
    the process (return code -2: no KeyboardInterrupt, no ``finally``). Now the solve stops at once, the runner
    raises KeyboardInterrupt (which ends ``compare`` with exit code 130), and Python's handler is back afterwards.
    The market split runs to the 20 s limit without the Ctrl-C, so the stop well before it is the Ctrl-C's."""
    done = _xpress_with_sigint(tmp_path, "interrupt", 20)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert lines[0].startswith("interrupted xpress was interrupted by Ctrl-C"), done.stdout
    assert float(lines[1].split()[1]) < 10 and lines[2] == "action kept True", done.stdout


def test_xpress_solve_in_a_process_that_ignores_sigint(tmp_path):
    """solvers.xpress.solve: a process that ignores SIGINT (a job started with ``&`` by a script) was killed by one
    during an Xpress solve, since Xpress sets the default action; now the signal stays ignored, the solve runs
    to its time limit (status ``time_limit``, no KeyboardInterrupt) and SIGINT is still ignored after it."""
    done = _xpress_with_sigint(tmp_path, "ignore", 3)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert lines[0] == "status time_limit" and float(lines[1].split()[1]) >= 2.5, done.stdout
    assert lines[2] == "action kept True", done.stdout


#: Solves argv[1] with the runner argv[2] in a process whose SIGINT action is argv[3] ("interrupt": Python's
#: KeyboardInterrupt handler, as in a terminal; "ignore": a script's background job), after printing "start".
_OUTSIDE_SIGINT_SCRIPT = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler if sys.argv[3] == "interrupt" else signal.SIG_IGN)
from solvers import get_runner
runner = get_runner(sys.argv[2])
print("start", flush=True)
t0 = time.perf_counter()
try:
    print("status", runner.solve(sys.argv[1], time_limit=20).status)
except KeyboardInterrupt as exc:
    print("interrupted", exc)
print("seconds", time.perf_counter() - t0)
"""


def _sigint_from_outside(tmp_path: Path, solver: str, action: str, group: bool) -> list[str]:
    """Run :data:`_OUTSIDE_SIGINT_SCRIPT` on a market split that takes the solver past its 20 s limit, send SIGINT
    1.5 s after "start" from this process (as a terminal does; ``group``: to the process group of a new session,
    so that a solver's own child process gets it too, and nothing else), and return the lines the script printed
    after "start" (without SCIP's "pressed CTRL-C" line). Asserts the script ended normally."""
    path = _market_split(tmp_path / "ms.mps", m=6, n=60)
    proc = subprocess.Popen([sys.executable, "-c", _OUTSIDE_SIGINT_SCRIPT, str(path), solver, action],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=group)
    try:
        assert proc.stdout.readline().strip() == "start"
        threading.Event().wait(1.5)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, (proc.returncode, err[-2000:])
    return [line for line in out.splitlines() if not line.startswith("pressed CTRL-C")]  # SCIP's own line


def test_scip_ctrl_c_from_outside_ends_the_run(tmp_path):
    """solvers.scip.solve: SCIP catches a SIGINT sent during its solve ("pressed CTRL-C 1 times"), stops with
    status "userinterrupt", and the runner raises KeyboardInterrupt. The signal comes from this process, as from a
    terminal: SCIP holds the GIL while it solves, so a timer thread inside the solving process (as for the
    other solvers above) would only send it after the solve."""
    if not get_runner("scip").available():
        pytest.skip("pyscipopt is not available")
    lines = _sigint_from_outside(tmp_path, "scip", "interrupt", group=False)
    assert lines[0] == "interrupted scip was interrupted by Ctrl-C (its status userinterrupt)", lines
    assert float(lines[1].split()[1]) < 10, lines


def test_cbc_stopped_by_a_ctrl_c_ends_the_run(tmp_path):
    """solvers.cbc.solve: CBC gets the terminal's SIGINT as well (same process group) and stops ("Result - User
    ctrl-c"); in a process that ignores SIGINT (a background job of a script) Python went on, and the runner
    reported status ``error`` and ``solvers.compare`` the next solve. Now the runner raises KeyboardInterrupt."""
    if not get_runner("cbc").available():
        pytest.skip("no CBC binary")
    lines = _sigint_from_outside(tmp_path, "cbc", "ignore", group=True)
    assert lines[0].startswith("interrupted cbc was interrupted by Ctrl-C (its status Result - User ctrl-c"), lines
    assert float(lines[1].split()[1]) < 10, lines


def test_scip_reporting_a_user_interrupt_raises(monkeypatch, tmp_path):
    """SCIP's status after it caught a Ctrl-C, with a fake PySCIPOpt model (the test above sends a real one)."""
    class FakeModel:
        def hideOutput(self): pass
        def readProblem(self, path): pass
        def getNVars(self): return 1
        def getObjectiveSense(self): return "minimize"
        def setParam(self, *a): pass
        def optimize(self): pass
        def getStatus(self): return "userinterrupt"
        def getSolvingTime(self): return 0.1
        def getNNodes(self): return 1
        def getNSols(self): return 0
        def getDualbound(self): return 0.0

    monkeypatch.setitem(sys.modules, "pyscipopt", types.SimpleNamespace(Model=FakeModel))
    monkeypatch.setattr("solvers.scip.available", lambda: True)
    path = ROOT / "models" / "cancer-opt-n5-s0.mps"
    with pytest.raises(KeyboardInterrupt):  # old: status "error", and compare went on
        get_runner("scip").solve(path, time_limit=10)


def test_compare_interrupted_exits_130_without_a_csv(monkeypatch, tmp_path, capsys):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(compare_mod, "compare", interrupted)
    csv_path = tmp_path / "c.csv"
    assert compare_main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--csv", str(csv_path)]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "compare: interrupted" and "Traceback" not in err
    assert not csv_path.exists()


def _with_closed_stdout(args: list[str]) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    os.close(r)  # every write to the standard output fails with EPIPE, as after `| head -1` has exited
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, *args], stdout=w, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=ROOT, timeout=120)
    finally:
        os.close(w)


def test_compare_and_check_solution_with_a_closed_stdout(tmp_path):
    csv_path, sols = tmp_path / "c.csv", tmp_path / "sol"
    p = _with_closed_stdout(["-m", "solvers.compare", str(MANIFEST), "--only", "cancer-opt-n5-s0", "--csv",
                             str(csv_path), "--solutions", str(sols)])
    assert "Traceback" not in p.stderr, p.stderr
    # old: 1, compare's "disagreement"; then 2 with "compare: error: ... Broken pipe"; now a quiet stop, as
    # every command line (tests/test_closed_output.py)
    assert p.returncode == 141, p.stderr
    assert "error" not in p.stderr and "Broken pipe" not in p.stderr
    assert csv_path.read_text().count("\n") == 2 and "agree" in csv_path.read_text()  # old: no CSV
    (sol,) = sols.iterdir()
    p = _with_closed_stdout(["-m", "solvers.check_solution", str(MANIFEST), "cancer-opt-n5-s0", str(sol)])
    assert "Traceback" not in p.stderr and p.returncode == 141, p.stderr  # old: traceback, exit 1 ("rejected")
    assert check_main([str(MANIFEST), "cancer-opt-n5-s0", str(sol)]) == 0  # a trusted solution
