"""Mutation study 10 of the CPLEX, Gurobi and Xpress runners (solvers/cplex.py, solvers/gurobi.py,
solvers/xpress.py) and of solvers.common.lp_comment_error and solvers.common.sense_error: each test kills a mutant
that passed the rest of the suite, against the documented behaviour (the modules' docstrings, solvers/README.md),
with an oracle of its own (a hand-checkable model, a knapsack solved by dynamic programming, HiGHS through
highspy). The tests of a solver skip without its package or a working license."""
from __future__ import annotations

import importlib
import os
import random
import signal
import threading
import types
import warnings
from pathlib import Path

import pytest

from solvers import common

#: min x + 2 y s.t. x + y >= 1, x - y <= 0.5, 0 <= x, y <= 4: an LP with the optimum 1.25 at (0.75, 0.25)
#: (y >= 0.25 from the two rows, and x = 1 - y is cheaper than more y).
LP_TEXT = ("minimize\n obj: x + 2 y\nsubject to\n c1: x + y >= 1\n c2: x - y <= 0.5\nbounds\n 0 <= x <= 4\n"
           " 0 <= y <= 4\nend\n")
#: min -x - y s.t. x - y <= 1, x, y >= 0, x integer: unbounded ((k + 1, k) is feasible for every k, worth -2k - 1).
UNBOUNDED_MILP_TEXT = ("minimize\n obj: - x - y\nsubject to\n c1: x - y <= 1\nbounds\n x >= 0\n y >= 0\ngeneral\n x\n"
                       "end\n")


def _runner(name: str):
    """The runner module ``name`` (cplex, gurobi, xpress), or skip without its package or a working license."""
    importlib.import_module("pyomo.environ")  # first: Pyomo 6.10 fails to import it after gurobipy < 12
    with warnings.catch_warnings():  # Pyomo's hook on `import xpress` calls Xpress's deprecated getversion
        warnings.simplefilter("ignore")
        pytest.importorskip({"cplex": "cplex", "gurobi": "gurobipy", "xpress": "xpress"}[name])
    runner = common.get_runner(name)
    if not runner.available():
        pytest.skip(f"{name} is not available here")
    return runner


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _knapsack(path: Path, seed: int, n: int, big: bool) -> tuple[Path, float]:
    """A 0-1 knapsack ``max v x`` s.t. ``a x <= sum(a) // 2`` written as an LP file, and its optimum by dynamic
    programming over the (integer) capacity. ``big``: values about 1000 times the weights, so that a relative gap
    of 1e-4 (the solvers' default) leaves room for a worse point."""
    rnd = random.Random(seed)
    if big:
        a = [rnd.randint(20, 60) for _ in range(n)]
        v = [1000 * w + rnd.randint(0, 999) for w in a]
    else:
        a = [rnd.randint(10, 60) for _ in range(n)]
        v = [w + rnd.randint(-5, 15) for w in a]
    cap = sum(a) // 2
    best = [0] * (cap + 1)
    for w, value in zip(a, v):
        for c in range(cap, w - 1, -1):
            best[c] = max(best[c], best[c - w] + value)
    cols = [f"x{i}" for i in range(n)]
    _write(path, "maximize\n obj: " + " + ".join(f"{value} {x}" for value, x in zip(v, cols)) + "\nsubject to\n c1: "
           + " + ".join(f"{w} {x}" for w, x in zip(a, cols)) + f" <= {cap}\nbinary\n " + " ".join(cols) + "\nend\n")
    return path, float(best[cap])


def _multi_knapsack(path: Path) -> tuple[Path, list[int], list[list[int]], list[int]]:
    """A 0-1 multidimensional knapsack (150 columns, 15 rows) that CPLEX needs about half a second for, and finds a
    first feasible point of within milliseconds: the file, the values, the rows and their capacities."""
    rnd = random.Random(3)
    n, m = 150, 15
    rows = [[rnd.randint(10, 100) for _ in range(n)] for _ in range(m)]
    v = [rnd.randint(10, 100) for _ in range(n)]
    caps = [sum(r) // 2 for r in rows]
    text = "maximize\n obj: " + " + ".join(f"{v[i]} x{i}" for i in range(n)) + "\nsubject to\n"
    for k, r in enumerate(rows):
        text += f" c{k}: " + " + ".join(f"{r[i]} x{i}" for i in range(n)) + f" <= {caps[k]}\n"
    text += "binary\n " + " ".join(f"x{i}" for i in range(n)) + "\nend\n"
    return _write(path, text), v, rows, caps


# ---------------------------------------------------------------------------------------------- CPLEX


def test_cplex_optimal_within_the_gap_is_optimal(tmp_path):
    """solvers.cplex.solve: CPLEX's status 102, "optimal within the relative MIP gap", is ``optimal`` as the other
    runners call it. With ``mip_gap`` 0.1 CPLEX stops on this knapsack at 102; the objective is feasible (at most
    the optimum by dynamic programming), the bound at least the optimum, and the two within the gap."""
    cplex = _runner("cplex")
    path, optimum = _knapsack(tmp_path / "k.lp", seed=1, n=40, big=False)
    c = cplex.silent_cplex()
    c.read(str(path))
    c.parameters.mip.tolerances.mipgap.set(0.1)
    c.solve()
    if c.solution.get_status() != 102:
        pytest.skip(f"this CPLEX stops with status {c.solution.get_status()}, not 102")
    result = cplex.solve(path, mip_gap=0.1)
    assert result.status == "optimal", result
    assert result.objective <= optimum + 1e-6 <= result.bound + 2e-6
    assert result.bound - result.objective <= 0.1 * abs(result.bound) + 1e-6


def test_cplex_time_limit_keeps_the_incumbent_and_the_bound(tmp_path):
    """solvers.cplex.solve: a solve stopped by ``time_limit`` with a feasible point (CPLEX's status 107) is
    ``time_limit`` with that point's objective and solution (by the file's column names) and the proven bound,
    an upper one of this maximisation. CPLEX finds a first point of this multidimensional knapsack within
    milliseconds and needs about 0.5 s to prove an optimum; the point is checked by hand against the rows."""
    cplex = _runner("cplex")
    path, v, rows, caps = _multi_knapsack(tmp_path / "mkp.lp")
    result = cplex.solve(path, time_limit=0.2)
    assert result.status in ("time_limit", "optimal"), result
    assert result.objective is not None and result.bound is not None, result
    x = [result.solution[f"x{i}"] for i in range(len(v))]
    assert all(min(abs(xi), abs(xi - 1)) <= 1e-6 for xi in x)
    assert all(sum(r[i] * x[i] for i in range(len(v))) <= cap + 1e-6 for r, cap in zip(rows, caps))
    assert result.objective == pytest.approx(sum(vi * xi for vi, xi in zip(v, x)), abs=1e-6)
    assert result.bound >= result.objective - 1e-6


def test_cplex_unbounded_milp_is_unbounded(tmp_path):
    """solvers.cplex.solve: CPLEX's "integer unbounded" (118) is ``unbounded``, not "infeasible or unbounded":
    ``min -x - y`` s.t. ``x - y <= 1``, ``x, y >= 0``, x integer, has the feasible points (k + 1, k) worth
    -2k - 1 for every k."""
    cplex = _runner("cplex")
    result = cplex.solve(_write(tmp_path / "u.lp", UNBOUNDED_MILP_TEXT), time_limit=60)
    assert result.status == "unbounded", result


def test_cplex_lp_bound_is_its_optimum_and_it_has_no_nodes(tmp_path):
    """solvers.cplex.solve: an LP's bound is its optimum, and an LP takes no branch-and-bound nodes (0, a known
    count, not ``None``): ``min x + 2 y`` with ``x + y >= 1``, ``x - y <= 0.5`` has the optimum 1.25 at (0.75,
    0.25)."""
    cplex = _runner("cplex")
    result = cplex.solve(_write(tmp_path / "lp.lp", LP_TEXT), time_limit=60)
    assert result.status == "optimal" and result.objective == pytest.approx(1.25) == result.bound, result
    assert result.solution == pytest.approx({"x": 0.75, "y": 0.25}) and result.nodes == 0


def test_cplex_mip_gap_zero_reaches_the_exact_optimum(tmp_path):
    """solvers.cplex.solve: ``mip_gap`` is CPLEX's ``mip.tolerances.mipgap``. With 0 the runner returns the
    knapsack's exact optimum (dynamic programming); CPLEX's default 1e-4 stops 7 below it on this one."""
    cplex = _runner("cplex")
    path, optimum = _knapsack(tmp_path / "k.lp", seed=2, n=40, big=True)
    result = cplex.solve(path, mip_gap=0.0)
    assert result.status == "optimal" and result.objective == pytest.approx(optimum, abs=1e-6), (optimum, result)


def test_cplex_solves_on_one_thread(tmp_path, monkeypatch):
    """solvers.cplex.solve: "solve it on one thread": the ``cplex.Cplex`` the runner solves with has CPLEX's
    ``threads`` parameter at 1 (0, CPLEX's default, lets it use every core)."""
    cplex = _runner("cplex")
    made = []

    def recording():
        made.append(silent())
        return made[-1]
    silent = cplex.silent_cplex
    monkeypatch.setattr(cplex, "silent_cplex", recording)
    assert cplex.solve(_write(tmp_path / "lp.lp", LP_TEXT)).status == "optimal"
    assert len(made) == 1 and made[0].parameters.threads.get() == 1


def _market_split_without_slack(path: Path) -> Path:
    """``A x = sum(A) // 2`` over 30 binaries and 4 rows (a market split without slack columns): no solver finds a
    feasible point, or proves there is none, within seconds."""
    rnd = random.Random(0)
    n, m = 30, 4
    A = [[rnd.randint(0, 99) for _ in range(n)] for _ in range(m)]
    text = "minimize\n obj: " + " + ".join(f"x{i}" for i in range(n)) + "\nsubject to\n"
    for k in range(m):
        text += f" c{k}: " + " + ".join(f"{A[k][i]} x{i}" for i in range(n)) + f" = {sum(A[k]) // 2}\n"
    return _write(path, text + "binary\n " + " ".join(f"x{i}" for i in range(n)) + "\nend\n")


def test_cplex_ctrl_c_before_a_feasible_point_ends_the_run(tmp_path):
    """solvers.cplex.solve and solvers.common.interrupted: a Ctrl-C that CPLEX catches is raised as
    KeyboardInterrupt for each of its "aborted by the user" statuses, also CPXMIP_ABORT_INFEAS (114), a MILP
    aborted before any feasible point (tests/test_solver_interrupts.py has one with a point, 113)."""
    cplex = _runner("cplex")
    path = _market_split_without_slack(tmp_path / "ms.lp")
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cplex.solve(path, time_limit=30)
    finally:
        timer.cancel()


def test_cplex_time_limit_zero_stops_an_lp_at_once(tmp_path):
    """solvers.cplex.solve and solvers.common.check_limits: a ``time_limit`` of 0 "stops at once"; for an LP
    CPLEX then says "time limit exceeded" (its status 11), which is ``time_limit`` without an incumbent ("no
    feasible solution found"), not ``error``."""
    cplex = _runner("cplex")
    result = cplex.solve(_write(tmp_path / "lp.lp", LP_TEXT), time_limit=0)
    assert result.status == "time_limit" and result.objective is None, result
    assert result.message == "no feasible solution found"


# --------------------------------------------------------------------------------------------- Gurobi


def test_gurobi_solves_on_one_thread_with_the_requested_gap(tmp_path, monkeypatch):
    """solvers.gurobi.solve: "solve it on one thread" with ``mip_gap`` as Gurobi's ``MIPGap``: the model the runner
    optimises has ``Threads`` 1 (Gurobi's default 0 uses every core) and ``MIPGap`` the requested 0.25 (read
    just before the runner disposes of it)."""
    gurobi = _runner("gurobi")
    import gurobipy

    seen = []
    read = gurobipy.read

    class Recording:
        def __init__(self, model):
            self._model = model

        def __getattr__(self, name):
            return getattr(self._model, name)

        def dispose(self):
            seen.append((self._model.Params.Threads, self._model.Params.MIPGap))
            self._model.dispose()
    monkeypatch.setattr(gurobipy, "read", lambda *args, **kw: Recording(read(*args, **kw)))
    path, optimum = _knapsack(tmp_path / "k.lp", seed=2, n=40, big=True)
    result = gurobi.solve(path, mip_gap=0.25)
    assert result.status == "optimal" and result.objective <= optimum + 1e-6, result
    assert seen == [(1, 0.25)]


# --------------------------------------------------------------------------------------------- Xpress


def _recording_xpress_problems(monkeypatch) -> list:
    """Replace ``xpress.problem`` by one that keeps each problem it makes in the returned list."""
    import xpress

    made, problem = [], xpress.problem

    def recording(*args, **kw):
        made.append(problem(*args, **kw))
        return made[-1]
    monkeypatch.setattr(xpress, "problem", recording)
    return made


def test_xpress_solves_on_one_thread(tmp_path, monkeypatch):
    """solvers.xpress.solve: "solve it on one thread": the problem the runner optimises has Xpress's ``threads``
    control at 1 (Xpress's default -1 lets it choose), and ``mipaddcutoff`` at 0 as the docstring says."""
    xpress = _runner("xpress")
    made = _recording_xpress_problems(monkeypatch)
    result = xpress.solve(_write(tmp_path / "lp.lp", LP_TEXT))
    assert result.status == "optimal" and result.objective == pytest.approx(1.25) == result.bound, result
    assert len(made) == 1 and made[0].controls.threads == 1 and made[0].controls.mipaddcutoff == 0


def test_xpress_time_limit_keeps_the_incumbent_and_the_bound(tmp_path):
    """solvers.xpress.solve: ``time_limit`` "with or without an incumbent": a solve stopped by its time limit after
    a feasible point (Xpress's solution status "feasible") keeps that point's objective, and its bound once the root
    LP is solved (an upper one of this maximisation), and the point itself under the file's column names: a
    feasible 0-1 vector worth the objective. Xpress finds a first point of this multidimensional knapsack within
    milliseconds and needs about 0.7 s to prove an optimum. (A stopped solve leaves Xpress's presolved model in
    place, 89 of the 150 columns, otherwise named: the runner paired those names with the 150 values, and returned
    a point worth 2575 for the objective 5444.)"""
    xpress = _runner("xpress")
    path, v, rows, caps = _multi_knapsack(tmp_path / "mkp.lp")
    result = xpress.solve(path, time_limit=0.2)
    assert result.status in ("time_limit", "optimal"), result
    assert result.objective is not None and result.bound is not None and result.solution, result
    assert result.bound >= result.objective - 1e-6 and result.objective <= sum(v)
    assert set(result.solution) <= {f"x{i}" for i in range(len(v))}
    x = [round(result.solution.get(f"x{i}", 0.0)) for i in range(len(v))]  # (a solution may omit zeros)
    assert all(sum(r[i] * x[i] for i in range(len(v))) <= cap for r, cap in zip(rows, caps))
    assert sum(v[i] * x[i] for i in range(len(v))) == pytest.approx(result.objective)


def test_xpress_reporting_a_ctrl_c_raises(tmp_path, monkeypatch):
    """solvers.xpress.solve and solvers.common.interrupted: when Xpress reports that a Ctrl-C stopped the solve
    (solve status "stopped", stop status "ctrl-c") the runner raises KeyboardInterrupt, not status ``error``. A
    fake ``xpress.problem`` reports it (tests/test_solver_interrupts.py sends a real one)."""
    xpress_runner = _runner("xpress")
    import xpress

    attributes = types.SimpleNamespace(solvestatus=1, solstatus=0, stopstatus=2, cols=2, mipents=2, sets=0, objval=0.0,
                                       objsense=1.0, bestbound=0.0, mipstatus=0, nodes=7, time=0.5)

    class Stopped:
        def __init__(self, *args, **kw):
            self.controls, self.attributes = types.SimpleNamespace(), attributes

        def readProb(self, path):
            pass

        def addCheckTimeCallback(self, *args):
            pass

        def optimize(self):
            pass

        def getNameList(self, kind, first, last):
            return ["x", "y"]

        def getSolution(self):
            return [0.0, 0.0]
    monkeypatch.setattr(xpress, "problem", Stopped)
    with pytest.raises(KeyboardInterrupt, match="ctrl-c"):
        xpress_runner.solve(_write(tmp_path / "lp.lp", LP_TEXT), time_limit=60)


def test_xpress_counts_an_sos_model_as_a_mip(tmp_path):
    """solvers.xpress.solve: a model with special ordered sets but no integer columns is a MIP (Xpress branches on
    the sets), so the runner reports Xpress's branch-and-bound nodes, not the 0 of an LP: ``max x1 + 2 x2 + 3 x3``
    with ``x1 + x2 + x3 <= 2``, ``0 <= x <= 1`` and SOS1 {x1, x2, x3} has the optimum 3 at x3 = 1 (its LP relaxation
    5 at x2 = x3 = 1)."""
    xpress = _runner("xpress")
    path = _write(tmp_path / "sos.lp", "maximize\n obj: x1 + 2 x2 + 3 x3\nsubject to\n c1: x1 + x2 + x3 <= 2\nbounds\n"
                  " 0 <= x1 <= 1\n 0 <= x2 <= 1\n 0 <= x3 <= 1\nsos\n s1: S1:: x1:1 x2:2 x3:3\nend\n")
    result = xpress.solve(path, time_limit=60)
    assert result.status == "optimal" and result.objective == pytest.approx(3.0) == result.bound, result
    assert result.solution == pytest.approx({"x1": 0.0, "x2": 0.0, "x3": 1.0}) and result.nodes >= 1


# --------------------------------------------------------------------------------------------- common


def test_lp_comment_error_leaves_mps_files_alone(tmp_path):
    """solvers.common.lp_comment_error: ``None`` for an MPS file ("and for an MPS file"), whose comment lines start
    with ``*`` and may hold ``\\* ... *\\`` text, which is no LP comment there; HiGHS (the oracle) reads this file as
    ``min -x`` with ``x <= 4`` and reports -4."""
    highspy = pytest.importorskip("highspy")
    path = _write(tmp_path / "note.mps", "* a note \\* about *\\ the model\nNAME m\nROWS\n N obj\n L c1\nCOLUMNS\n"
                  "    x obj -1 c1 1\nRHS\n    rhs c1 4\nBOUNDS\n UP BND x 10\nENDATA\n")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(-4.0)
    assert common.lp_comment_error(path) is None and common.file_error(path) is None


def test_cplex_model_without_rows_in_an_upper_case_mps_file(tmp_path):
    """solvers.cplex.benign_read_warnings and solve: CPLEX's warning about the empty RHS section is benign for "an
    MPS file (``suffix`` ``.mps``, any case)" without rows, so ``B.MPS`` (a bounds-only model: ``min 2 x`` with
    ``-2 <= x <= 3``, optimum -4 at x = -2) is solved, not an ``error``."""
    cplex = _runner("cplex")
    path = _write(tmp_path / "B.MPS", "NAME b\nROWS\n N obj\nCOLUMNS\n    xcol obj 2\nRHS\nBOUNDS\n LO BND xcol -2\n"
                  " UP BND xcol 3\nENDATA\n")
    result = cplex.solve(path, time_limit=60)
    assert result.status == "optimal" and result.objective == pytest.approx(-4.0) == result.bound, result
    assert result.solution == pytest.approx({"xcol": -2.0})
    assert cplex.benign_read_warnings(cplex.EMPTY_RHS_WARNING, ".MPS", 0)


def test_cplex_time_limit_is_in_seconds(tmp_path):
    """solvers.cplex.solve: ``time_limit`` is seconds of wall clock (CPLEX ``timelimit``): a MILP no solver
    finishes within seconds stops after about 0.25 s at ``time_limit`` 0.25, well before 2 s."""
    cplex = _runner("cplex")
    result = cplex.solve(_market_split_without_slack(tmp_path / "ms.lp"), time_limit=0.25)
    assert result.status == "time_limit" and result.seconds < 2.0, result


def test_xpress_with_xpauth_path_uses_that_license(tmp_path):
    """solvers.xpress: "with ``XPAUTH_PATH`` set, Xpress finds its license as usual" (the runner starts it with the
    Community license only without it): in a fresh process whose XPAUTH_PATH names a file without a license,
    Xpress does not start, :func:`available` is false and ``solve`` returns ``unavailable`` with Xpress's reason."""
    _runner("xpress")
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    bogus = _write(tmp_path / "xpauth.xpr", "not a license\n")
    lp = _write(tmp_path / "lp.lp", LP_TEXT)
    code = ("from solvers import xpress\nr = xpress.solve(" + repr(str(lp)) + ")\n"
            "print(xpress.available(), r.status, r.message)\n")
    env = {**os.environ, "XPAUTH_PATH": str(bogus), "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, env=env,
                         cwd=root, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False unavailable Xpress cannot start:"), out.stdout
