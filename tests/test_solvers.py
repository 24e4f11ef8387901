"""The runners in solvers/: HiGHS, SCIP and CBC read the committed .mps and .lp files and reach the
manifest optimum; the agreement rule; solution-file parsing; the solution checker trusts a real answer
and rejects doctored ones; the compare command."""
from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from bilevel import library
from bilevel.errors import InputError
from solvers import cbc, check_solution, common, compare, cplex, gurobi, highs, scip, solution_files, xpress

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
MANIFEST = MODELS / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}
TINY = [s.id for s in library.library_specs(sizes=(5,))]
SMALL = [r for r, row in ROWS.items() if row["committed"]]
#: The committed instance with a nonzero optimum that every solver closes in about a second.
NONTRIVIAL = "diabetes-opt-n10-s0"


def _assert_reaches_manifest(result, row):
    assert result.status == "optimal", (row["id"], result)
    assert result.objective == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
    assert result.bound == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
    assert common.agreement(row, result) == "agree"


# ---------------------------------------------------------------------------------------------- HiGHS


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_highs_runner_reads_and_solves_from_file(fmt):
    row = ROWS[NONTRIVIAL]
    result = highs.solve(MODELS / row[fmt], time_limit=60, mip_gap=1e-6)
    _assert_reaches_manifest(result, row)
    assert result.seconds > 0 and result.nodes >= 1
    names = {"mps": "C0", "lp": "w_bar(0)"}
    assert names[fmt] in result.solution and len(result.solution) == row["columns"]


def test_highs_runner_reports_a_time_limit_honestly(tmp_path):
    row = ROWS["diabetes-pes-e0.2-n10-s0"]
    result = highs.solve(MODELS / row["mps"], time_limit=0.05)
    assert result.status in ("time_limit", "optimal")
    if result.status == "time_limit":
        assert common.agreement(row, result) in ("consistent", "n/a")


def test_runners_refuse_a_bad_path(tmp_path):
    with pytest.raises(common.InputError):
        highs.solve(tmp_path / "none.mps")
    bad = tmp_path / "x.txt"
    bad.write_text("hello")
    with pytest.raises(common.InputError):
        scip.solve(bad)
    broken = tmp_path / "broken.mps"
    broken.write_text("NAME x\nROWS\n N OBJ\nCOLUMNS\n  C1 NOPE 1\nENDATA\n")
    assert highs.solve(broken).status == "error"
    with pytest.raises(common.InputError):
        common.get_runner("mosek")  # no such runner


# ----------------------------------------------------------------------------------------------- SCIP


@pytest.mark.parametrize("instance", [i for i in TINY if "-opt-" in i] + ["cancer-pes-e0.2-n5-s0", NONTRIVIAL])
@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_scip_reads_mps_and_lp_and_reaches_the_optimum(instance, fmt):
    pytest.importorskip("pyscipopt")
    row = ROWS[instance]
    _assert_reaches_manifest(scip.solve(MODELS / row[fmt], time_limit=120), row)


@pytest.mark.slow
@pytest.mark.parametrize("instance", SMALL)
@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_scip_reaches_the_optimum_of_every_committed_instance(instance, fmt):
    pytest.importorskip("pyscipopt")
    row = ROWS[instance]
    _assert_reaches_manifest(scip.solve(MODELS / row[fmt], time_limit=300), row)


# ------------------------------------------------------------------------------------------------ CBC


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_cbc_reads_mps_and_lp_and_reaches_the_optimum(fmt):
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    row = ROWS[NONTRIVIAL]
    result = cbc.solve(MODELS / row[fmt], time_limit=120, mip_gap=1e-6)
    _assert_reaches_manifest(result, row)
    assert result.solution and all(v != 0 for v in result.solution.values())  # CBC lists nonzeros only


# ---------------------------------------------------------------------------------------------- CPLEX


@pytest.mark.slow
@pytest.mark.parametrize("instance", SMALL)
@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_cplex_reaches_the_optimum_of_every_committed_instance_and_the_checker_trusts_it(instance, fmt, tmp_path):
    """Every committed instance fits the Community Edition's limits (1000 variables and constraints)."""
    pytest.importorskip("cplex")
    row = ROWS[instance]
    result = cplex.solve(MODELS / row[fmt], time_limit=120, mip_gap=1e-6)
    _assert_reaches_manifest(result, row)
    assert len(result.solution) == row["columns"]
    rep = check_solution.check_solution(MANIFEST, instance,
                                        solution_files.write_solution_csv(result, tmp_path / "s.csv"), strict=True)
    assert rep.trusted, rep.summary()


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_cplex_runner_reads_mps_and_lp_and_its_sol_files_are_trusted(fmt, tmp_path):
    """The runner reaches the manifest's optimum; CPLEX's own XML .sol of the incumbent, and of its whole
    solution pool, are read back to CPLEX's values and trusted by the checker."""
    pytest.importorskip("cplex")
    row = ROWS["diabetes-pes-e0.2-n10-s0"]
    result = cplex.solve(MODELS / row[fmt], time_limit=120, mip_gap=1e-6)
    _assert_reaches_manifest(result, row)
    assert result.nodes >= 1 and result.solver_seconds > 0
    c = cplex.silent_cplex()
    c.read(str(MODELS / row[fmt]))
    c.parameters.mip.tolerances.mipgap.set(1e-6)
    c.solve()
    exact = dict(zip(c.variables.get_names(), c.solution.get_values()))
    incumbent, pool = tmp_path / "incumbent.sol", tmp_path / "pool.sol"
    c.solution.write(str(incumbent))
    c.solution.pool.write(str(pool))
    assert "<CPLEXSolutions" in pool.read_text() and 'solutionIndex="-1"' in pool.read_text()
    for path in (incumbent, pool):
        values, claimed = solution_files.read_solution_file(path)
        assert values == pytest.approx(exact, rel=1e-15, abs=1e-15) and claimed == pytest.approx(
            c.solution.get_objective_value(), rel=1e-15)
        rep = check_solution.check_solution(MANIFEST, row["id"], path, strict=True)
        assert rep.trusted, rep.summary()


def test_cplex_runner_reports_a_time_limit_and_a_model_above_its_limits(tmp_path):
    """A solve stopped at its time limit is reported as such. The Community Edition refuses more than 1000
    variables (CPLEX error 1016): that is status "error" with CPLEX's message; a full CPLEX solves it (min of
    the sum of 1001 columns >= 1 each is 1001)."""
    pytest.importorskip("cplex")
    import pyomo.environ as pyo

    row = ROWS["diabetes-pes-e0.2-n10-s0"]
    result = cplex.solve(MODELS / row["mps"], time_limit=0.01)
    assert result.status in ("time_limit", "optimal")
    if result.status == "time_limit":
        assert common.agreement(row, result) in ("consistent", "n/a")
    m = pyo.ConcreteModel()
    m.xcol = pyo.Var(range(1001), domain=pyo.Integers, bounds=(1, 5))
    m.row = pyo.Constraint(expr=sum(m.xcol.values()) >= 0)
    m.obj = pyo.Objective(expr=sum(m.xcol.values()))
    result = cplex.solve(_write(m, tmp_path / "big.mps"), time_limit=60)
    if result.status == "error":
        assert "1016" in result.message or "limit" in result.message.lower(), result.message
    else:
        assert result.status == "optimal" and result.objective == pytest.approx(1001)


def test_cbc_output_parser_on_a_time_limit_without_solution():
    out = ("Result - Stopped on time limit\n\nNo feasible solution found\nLower bound:                    0.011\n"
           "Enumerated nodes:               4191\nTime (Wallclock seconds):       6.52\n")
    r = cbc.parse_output(out, "Stopped on time (no integer solution - continuous used) - objective value 0.0\n")
    assert (r.status, r.objective, r.bound, r.nodes, r.solver_seconds) == ("time_limit", None, 0.011, 4191, 6.52)
    assert r.solution == {}
    r = cbc.parse_output("Cbc0001I Search completed - best objective 0.0426311817047432, took 3 iterations\n"
                         "Result - Optimal solution found\nObjective value:                0.04263118\n",
                         "Optimal - objective value 0.04263118\n"
                         "      4 C4            0.36175093                       0\n")
    assert r.status == "optimal" and r.objective == r.bound == 0.0426311817047432 and r.solution == {"C4": 0.36175093}


def _tiny_maximisation(tmp_path):
    """max x + 1.5 y s.t. x + 2 y <= 4, x in [0, 3], y in {0, ..., 3}, written as .mps and .lp; its
    optimum by enumerating y (x = min(3, 4 - 2 y) is best for each feasible y). Column names of three or more
    characters: SCIP 9.0 (and CBC 2.10) take a free MPS file with shorter ones for fixed MPS."""
    import pyomo.environ as pyo

    import bilevel

    m = pyo.ConcreteModel()
    m.xcol = pyo.Var(bounds=(0, 3))
    m.ycol = pyo.Var(bounds=(0, 3), domain=pyo.Integers)
    m.row = pyo.Constraint(expr=m.xcol + 2 * m.ycol <= 4)
    m.obj = pyo.Objective(expr=m.xcol + 1.5 * m.ycol, sense=pyo.maximize)
    paths = {fmt: tmp_path / f"max.{fmt}" for fmt in ("mps", "lp")}
    for path in paths.values():
        bilevel.write_model(m, path)
    optimum = max(min(3, 4 - 2 * y) + 1.5 * y for y in range(4) if 4 - 2 * y >= 0)
    return paths, optimum


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_every_runner_reports_a_maximisation_model_in_its_own_sense(tmp_path, fmt):
    """CBC 2.10 ignores an MPS file's OBJSENSE MAX (it minimised this model to 0) and prints its search's
    values negated (it reported -3.5 for the .lp); the runners report the optimum in the file's sense."""
    paths, optimum = _tiny_maximisation(tmp_path)
    assert common.is_maximisation(paths[fmt])
    for runner in _runners():
        result = runner.solve(paths[fmt], time_limit=60)
        assert result.status == "optimal", (runner.NAME, result)
        assert result.objective == pytest.approx(optimum) and result.bound == pytest.approx(optimum), runner.NAME


def test_objective_sense_is_read_from_either_file_format(tmp_path):
    cases = {
        "a.mps": ("NAME x\nOBJSENSE\n    MAX\nROWS\n N obj\n", True),
        "b.mps": ("NAME x\nOBJSENSE MAXIMIZE\nROWS\n N obj\n", True),
        "c.mps": ("* OBJSENSE MAX in a comment\nNAME x\nOBJSENSE\n MIN\nROWS\n N obj\n", False),
        "d.mps": ("NAME x\nROWS\n N obj\nCOLUMNS\n    OBJSENSE MAX\n", False),  # a column named OBJSENSE
        "e.lp": ("\\* max in a comment *\\\n\nminimize\nobj: x\nend\n", False),
        "f.lp": ("\\ comment\nMaximize\n obj: x\nend\n", True),
        # a block comment over two lines: its second line was taken for the sense line
        "g.lp": ("\\* A maximisation model\n   with a comment over two lines *\\\nmaximize\n obj: x\nend\n", True),
        "h.lp": ("\\* first line\n maximize in a comment *\\ minimize\n obj: x\nend\n", False),
    }
    for name, (text, expected) in cases.items():
        (tmp_path / name).write_text(text)
        assert common.is_maximisation(tmp_path / name) is expected, name
    assert not common.is_maximisation(MODELS / ROWS[NONTRIVIAL]["mps"])
    assert not common.is_maximisation(MODELS / ROWS[NONTRIVIAL]["lp"])


def _write(model, path):
    import bilevel

    bilevel.write_model(model, path)
    return path


def test_every_runner_reads_pyomo_mps_files_whose_first_bound_has_no_value(tmp_path):
    """Pyomo writes " BV BOUND x" (no value) first for a model whose first column is binary, " FR BOUND a"
    for a free one; CBC 2.10 misread both as fixed MPS ("No match for column"). Optima by enumeration. The
    one-character names are what makes CBC guess fixed MPS; SCIP 9.0 (PySCIPOpt 5, the lowest allowed) cannot
    read such files at all ("Syntax error"), so SCIP runs here from release 10 on."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()  # min -x - 2y + a, x + y <= 1.5, a >= y - 0.25 (a free), x, y binary
    m.x = pyo.Var(domain=pyo.Binary)
    m.y = pyo.Var(domain=pyo.Binary)
    m.a = pyo.Var()
    m.row = pyo.Constraint(expr=m.x + m.y <= 1.5)
    m.low = pyo.Constraint(expr=m.a >= m.y - 0.25)
    m.obj = pyo.Objective(expr=-m.x - 2 * m.y + m.a)
    binary_first = _write(m, tmp_path / "binary_first.mps")
    optimum = min(-x - 2 * y + (y - 0.25) for x in (0, 1) for y in (0, 1) if x + y <= 1.5)
    f = pyo.ConcreteModel()  # min a - x, a >= 2x - 0.5, a >= -3, a free, x binary
    f.a = pyo.Var()
    f.x = pyo.Var(domain=pyo.Binary)
    f.c = pyo.Constraint(expr=f.a >= 2 * f.x - 0.5)
    f.d = pyo.Constraint(expr=f.a >= -3)
    f.obj = pyo.Objective(expr=f.a - f.x)
    free_first = _write(f, tmp_path / "free_first.mps")
    free_optimum = min(max(2 * x - 0.5, -3) - x for x in (0, 1))
    assert binary_first.read_text().split("BOUNDS")[1].split()[:3] == ["BV", "BOUND", "x"]
    runners = [r for r in _runners() if r is not scip or _scip_major() >= 10]
    for runner in runners:
        for path, expected in ((binary_first, optimum), (free_first, free_optimum)):
            result = runner.solve(path, time_limit=60)
            assert result.status == "optimal" and result.objective == pytest.approx(expected), (
                runner.NAME, path, result)


def _runners():
    return [highs, scip] + [r for r in (cbc, cplex, gurobi, xpress) if r.available()]


def _scip_major() -> int:
    """SCIP's major release (0 without PySCIPOpt)."""
    return int(scip.version().split(".")[0]) if scip.available() else 0


def test_no_runner_calls_an_integer_infeasible_model_feasible(tmp_path):
    """2x + 2y = 1 with x, y binary: the LP relaxation is feasible (x = y = 1/4), no integer point is. CBC's
    pre-processing says "infeasible or unbounded" (it printed "error" before), which is what it reports."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.acol = pyo.Var(bounds=(0, 1))
    m.xcol = pyo.Var(domain=pyo.Binary)
    m.ycol = pyo.Var(domain=pyo.Binary)
    m.row = pyo.Constraint(expr=2 * m.xcol + 2 * m.ycol + 0 * m.acol == 1)
    m.obj = pyo.Objective(expr=m.xcol + m.ycol + m.acol)
    path = _write(m, tmp_path / "infeasible.mps")
    for runner in _runners():
        result = runner.solve(path, time_limit=60)
        assert result.status in ("infeasible", "infeasible_or_unbounded") and result.objective is None, runner.NAME
    out = ("Continuous objective value is 0.5 - 0.00 seconds\nCgl0000I Cut generators found to be infeasible! "
           "(or unbounded)\nPre-processing says infeasible or unbounded\nTotal time (CPU seconds):       0.00\n")
    assert cbc.parse_output(out, "").status == "infeasible_or_unbounded"


def test_runners_never_call_an_unbounded_milp_infeasible(tmp_path):
    """min -y, i + y >= 1, i in {0, 1, 2}, y >= 0: unbounded (i = 1, y = t for every t). HiGHS's presolve and
    SCIP say "infeasible or unbounded", which the runners reported as "infeasible", CBC "Problem is
    unbounded", which was "error"."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.icol = pyo.Var(domain=pyo.Integers, bounds=(0, 2))
    m.ycol = pyo.Var(bounds=(0, None))
    m.row = pyo.Constraint(expr=m.icol + m.ycol >= 1)
    m.obj = pyo.Objective(expr=-m.ycol)
    for fmt in ("mps", "lp"):
        path = _write(m, tmp_path / f"unbounded.{fmt}")
        for runner in _runners():
            result = runner.solve(path, time_limit=60)
            assert result.status in ("unbounded", "infeasible_or_unbounded"), (runner.NAME, fmt, result)
            assert result.bound is None and (result.objective is None or abs(result.objective) < 1e20)
    lp = pyo.ConcreteModel()  # an unbounded LP: HiGHS's runner gave it the bound 0
    lp.xcol = pyo.Var(bounds=(0, None))
    lp.obj = pyo.Objective(expr=lp.xcol, sense=pyo.maximize)
    lp.row = pyo.Constraint(expr=lp.xcol >= 0)
    result = highs.solve(_write(lp, tmp_path / "unbounded_lp.mps"))
    assert result.status == "unbounded" and result.bound is None
    assert common.agreement({"highs_status": "optimal", "highs_objective": 1.0, "highs_best_bound": 1.0},
                            common.RunResult("x", "f", "infeasible_or_unbounded")) == "DISAGREE"


def test_cbc_solves_a_file_without_integer_columns(tmp_path):
    """CBC hands a file without integer columns to Clp, which prints no "Result" line: the runner said "error".
    Optima: min x + 2y, x + y >= 1, x, y >= 0 is 1 (at x = 1); with its only binary fixed by Pyomo (written as
    a constant, so the file has no integer column), min x + 3b, x + b >= 2, b = 1 is 4."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.y = pyo.Var(bounds=(0, None))
    m.obj = pyo.Objective(expr=m.x + 2 * m.y)
    m.c = pyo.Constraint(expr=m.x + m.y >= 1)
    f = pyo.ConcreteModel()
    f.x = pyo.Var(bounds=(0, None))
    f.b = pyo.Var(domain=pyo.Binary)
    f.b.fix(1)
    f.obj = pyo.Objective(expr=f.x + 3 * f.b)
    f.c = pyo.Constraint(expr=f.x + f.b >= 2)
    for model, optimum in ((m, 1.0), (f, 4.0)):
        for fmt in ("mps", "lp"):
            result = cbc.solve(_write(model, tmp_path / f"lp{optimum}.{fmt}"))
            assert result.status == "optimal" and result.objective == pytest.approx(optimum), (fmt, result)
            assert result.bound == pytest.approx(optimum) and result.solution["x"] == pytest.approx(1.0)


def test_cbc_reports_no_incumbent_when_clp_stops_on_a_file_without_integers(tmp_path):
    """Clp stopped by the time limit returns its current iterate, which need not be feasible: for min x + 2y,
    x + y >= 1, x - y <= 0.5, x, y >= 0 (optimum 1.25 at x = 0.75, y = 0.25, checked with scipy's linprog)
    and a time limit of 0 the runner reported the point (0, 0) with objective 0 as its incumbent, below the
    optimum, which made the agreement rule call a correct manifest a DISAGREE."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    import pyomo.environ as pyo
    from scipy.optimize import linprog

    optimum = linprog([1, 2], A_ub=[[-1, -1], [1, -1]], b_ub=[-1, 0.5], bounds=(0, None)).fun
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, None))
    m.y = pyo.Var(bounds=(0, None))
    m.obj = pyo.Objective(expr=m.x + 2 * m.y)
    m.c1 = pyo.Constraint(expr=m.x + m.y >= 1)
    m.c2 = pyo.Constraint(expr=m.x - m.y <= 0.5)
    row = {"highs_status": "optimal", "highs_objective": optimum, "highs_best_bound": optimum}
    for fmt in ("mps", "lp"):
        path = _write(m, tmp_path / f"clp.{fmt}")
        stopped = cbc.solve(path, time_limit=0)
        assert stopped.status in ("time_limit", "optimal"), (fmt, stopped)
        if stopped.objective is not None:  # an incumbent must be a feasible point, so never below the optimum
            assert stopped.objective >= optimum - 1e-9, (fmt, stopped)
            x, y = stopped.solution.get("x", 0.0), stopped.solution.get("y", 0.0)
            assert x + y >= 1 - 1e-9 and x - y <= 0.5 + 1e-9, (fmt, stopped)
        assert common.agreement(row, stopped) != "DISAGREE", (fmt, stopped)
        solved = cbc.solve(path)
        assert solved.status == "optimal" and solved.objective == pytest.approx(optimum), (fmt, solved)


def test_cbc_reports_the_returned_solutions_objective_after_postprocessing(tmp_path):
    """CBC printed "Cgl0014I Postprocessing changed objective from -60.683077 to -10.24" and the runner
    reported the preprocessed model's -60.68. The two equality rows fix x1 = 5 and x0 = 3.31, so the
    optimum is 3 - 4 * 3.31 = -10.24 (found by differential fuzzing against enumeration)."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x0 = pyo.Var(bounds=(1, 7))
    m.x1 = pyo.Var(domain=pyo.Integers, bounds=(1, 5))
    m.obj = pyo.Objective(expr=3 - 4 * m.x0)
    m.c0 = pyo.Constraint(expr=-2 - 0.5 * m.x0 + 2 * m.x1 >= 4)
    m.c1 = pyo.Constraint(expr=8 <= 2.5 * m.x0)
    m.c2 = pyo.Constraint(expr=-0.5 * m.x1 + 0.26 * m.x0 == -1.6394)
    m.c3 = pyo.Constraint(expr=m.x1 + 3 * m.x0 == 14.93)
    for fmt in ("mps", "lp"):
        result = cbc.solve(_write(m, tmp_path / f"post.{fmt}"))
        assert result.status == "optimal" and result.objective == pytest.approx(3 - 4 * 3.31), (fmt, result)
        assert result.solution["x0"] == pytest.approx(3.31) and result.solution["x1"] == pytest.approx(5)


def test_cbc_does_not_report_a_point_outside_the_bounds_as_an_optimum(tmp_path):
    """CBC 2.10 printed "Cgl0013I Postprocessed model is infeasible", marked x3 "**" in its solution file and
    still said "Optimal": from the .mps x3 = 5.0005e12 (x0 = -1.0001e13), from the .lp x3 = 4.5, both with
    0 <= x3 <= 3, and the runner reported that point as the optimum 8 (found by differential fuzzing against
    scipy's milp). A point the runner reports lies within the bounds and rows; the optimum by enumeration."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    import itertools

    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.xcol0 = pyo.Var(domain=pyo.Integers)  # free: Pyomo writes LI/UI bounds of -/+1e21, which CBC keeps
    m.xcol1 = pyo.Var(domain=pyo.Integers, bounds=(-1, 2))
    m.xcol2 = pyo.Var(bounds=(-1, 2))
    m.xcol3 = pyo.Var(bounds=(0, 3))
    m.row = pyo.Constraint(expr=m.xcol0 - 1.5 * m.xcol1 + m.xcol2 + 2 * m.xcol3 >= 0)
    m.obj = pyo.Objective(expr=3 * m.xcol1 + m.xcol2, sense=pyo.maximize)
    # x0 is free, so the row never binds: x1 and x2 at their upper bounds
    optimum = max(3 * x1 + x2 for x1, x2 in itertools.product(range(-1, 3), (-1, 2)))
    for fmt in ("mps", "lp"):
        result = cbc.solve(_write(m, tmp_path / f"outside.{fmt}"), time_limit=60)
        if result.status == "error":
            assert "infeasible point" in result.message and result.objective is None and not result.solution, result
            continue
        assert result.status == "optimal" and result.objective == pytest.approx(optimum), (fmt, result)
        x = {name: result.solution.get(name, 0.0) for name in ("xcol0", "xcol1", "xcol2", "xcol3")}
        assert -1 <= x["xcol1"] <= 2 and -1 <= x["xcol2"] <= 2 and 0 <= x["xcol3"] <= 3, (fmt, x)
        assert x["xcol0"] - 1.5 * x["xcol1"] + x["xcol2"] + 2 * x["xcol3"] >= -1e-6, (fmt, x)


def test_cbc_does_not_call_a_point_that_postprocessing_made_worse_optimal(tmp_path):
    """CBC 2.10 printed "Cgl0014I Postprocessing changed objective from 5 to 3" and "Optimal", and the runner
    reported the returned point's 3, with the bound 3, as the optimum of a model whose optimum is 5 (v2 = -5,
    v1 = -1; found by fuzzing against scipy's milp). Without preprocessing, CBC's advice, it finds 5. The optimum
    here by enumerating the integers (v2, continuous, at its least value for each)."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    import itertools

    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.v = pyo.Var(range(4))
    for j, lb, ub, integer in ((0, 0, None, True), (1, -3, None, True), (2, -5, 0, False), (3, 0, None, True)):
        m.v[j].setlb(lb), m.v[j].setub(ub)
        m.v[j].domain = pyo.Integers if integer else pyo.Reals
    m.r1 = pyo.Constraint(expr=0.5 * m.v[1] + 0.5 * m.v[2] + 0.5 * m.v[3] >= -3)
    m.r2 = pyo.Constraint(expr=-m.v[0] - 1.5 * m.v[1] + m.v[2] + m.v[3] <= 2)
    m.obj = pyo.Objective(expr=-m.v[0] - m.v[2] - m.v[3], sense=pyo.maximize)
    values = []
    for v0, v1, v3 in itertools.product(range(0, 8), range(-3, 8), range(0, 8)):  # larger ones only cost
        v2 = max(-5.0, -6.0 - v1 - v3)  # least v2 of row r1 and the bound
        if v2 <= 0 and v2 <= 2 + v0 + 1.5 * v1 - v3:
            values.append(-v0 - v2 - v3)
    optimum = max(values)
    for fmt in ("mps", "lp"):
        result = cbc.solve(_write(m, tmp_path / f"post.{fmt}"), time_limit=60)
        assert result.status in ("optimal", "error"), (fmt, result)
        if result.status == "optimal":
            assert result.objective == pytest.approx(optimum) and result.bound == pytest.approx(optimum), (fmt, result)


def _one_integer_column(path: Path) -> Path:
    """``min x, x in {0, 1}`` written to ``path``: a file for the CBC runner whose runs a test fakes."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1), domain=pyo.Integers)
    m.o = pyo.Objective(expr=m.x)
    return _write(m, path)


def test_cbc_runs_without_preprocessing_within_what_is_left_of_the_time_limit(tmp_path, monkeypatch):
    """The run again without preprocessing after Cgl0014I got the whole time limit a second time (a 10 s limit
    could take 20 s); it now gets what is left, and none when the first run used it all (that run's output is
    then judged as it is: an "Optimal" after Cgl0014I is an error)."""
    path = _one_integer_column(tmp_path / "m.mps")
    warned = ("Cgl0014I Postprocessing changed objective from 0 to 1 - possible tolerance issue - try without "
              "preprocessing\nResult - Optimal solution found\nObjective value:                1.00000000\n")
    calls = []

    def fake_run(exe, given, options, timeout, tmp, shown):
        calls.append(options)
        return warned, "Optimal - objective value 1.00000000\n      0 x     1     0\n", first_seconds

    monkeypatch.setattr(cbc, "binary", lambda: "cbc")
    monkeypatch.setattr(cbc, "_run", fake_run)
    first_seconds = 3.0
    cbc.solve(path, time_limit=10)
    assert calls == [["-sec", "10"], ["-sec", "7", "-preprocess", "off"]]
    calls.clear()
    cbc.solve(path)  # no limit: the rerun has none either
    assert calls == [[], ["-preprocess", "off"]]
    calls.clear()
    first_seconds = 10.5
    result = cbc.solve(path, time_limit=10)
    assert calls == [["-sec", "10"]] and result.status == "error" and "Cgl0014I" in result.message


#: A feasible MILP CBC 2.10's pre-processing calls "infeasible or unbounded" (found by differential fuzzing against
#: scipy's milp), as Pyomo writes it: min -2 v0 - 0.5 v1 - 2 v3 s.t. 0.5 v0 + 4 v1 + 1.5 v2 + 2 v3 >= 0,
#: 1.5 v1 + 4 v2 - 2 v3 = -2, v0 <= 0, v1 <= 5, v2 <= 0, -4 <= v3 <= 6, v0, v2, v3 integer (optimum -10 at v0 = 0,
#: v1 = 4, v2 = 0, v3 = 4).
PREPROCESSING_INFEASIBLE_LP = """min
obj:
-2 v(0)
-0.5 v(1)
-2 v(3)
s.t.
c_l_rows(1)_:
+0.5 v(0)
+4 v(1)
+1.5 v(2)
+2 v(3)
>= 0
c_e_rows(2)_:
+1.5 v(1)
+4 v(2)
-2 v(3)
= -2
bounds
   -inf <= v(0) <= 0
   -inf <= v(1) <= 5
   -inf <= v(2) <= 0
   -4 <= v(3) <= 6
general
  v(0)
  v(2)
  v(3)
end
"""
PREPROCESSING_INFEASIBLE_MPS = """NAME unknown
OBJSENSE
 MIN
ROWS
 N  obj
 G  c_l_rows(1)_
 E  c_e_rows(2)_
COLUMNS
     v(0) obj -2
     v(0) c_l_rows(1)_ 0.5
     v(1) obj -0.5
     v(1) c_l_rows(1)_ 4
     v(1) c_e_rows(2)_ 1.5
     v(2) c_l_rows(1)_ 1.5
     v(2) c_e_rows(2)_ 4
     v(3) obj -2
     v(3) c_l_rows(1)_ 2
     v(3) c_e_rows(2)_ -2
RHS
     RHS c_l_rows(1)_ 0
     RHS c_e_rows(2)_ -2
BOUNDS
 LI BOUND v(0) -10E20
 UI BOUND v(0) 0
 MI BOUND v(1)
 UP BOUND v(1) 5
 LI BOUND v(2) -10E20
 UI BOUND v(2) 0
 LI BOUND v(3) -4
 UI BOUND v(3) 6
ENDATA
"""


def test_cbc_solves_without_preprocessing_a_feasible_model_its_preprocessing_calls_infeasible(tmp_path):
    """CBC 2.10 printed "Cgl0000I Cut generators found to be infeasible! (or unbounded)" and "Pre-processing says
    infeasible or unbounded" for this feasible model, and the runner reported ``infeasible_or_unbounded``; with
    ``-preprocess off`` it finds the optimum. Oracle: scipy's milp on the same data."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    from scipy.optimize import Bounds, LinearConstraint, milp

    rows = LinearConstraint([[0.5, 4, 1.5, 2], [0, 1.5, 4, -2]], [0, -2], [np.inf, -2])
    oracle = milp([-2, -0.5, 0, -2], constraints=[rows], integrality=[1, 0, 1, 1],
                  bounds=Bounds([-np.inf, -np.inf, -np.inf, -4], [0, 5, 0, 6]))
    assert oracle.status == 0
    for name, text in (("pre.lp", PREPROCESSING_INFEASIBLE_LP), ("pre.mps", PREPROCESSING_INFEASIBLE_MPS)):
        path = tmp_path / name
        path.write_text(text)
        result = cbc.solve(path, time_limit=60)
        assert result.status == "optimal" and result.objective == pytest.approx(oracle.fun), (name, result)
        assert result.bound == pytest.approx(oracle.fun), (name, result)


def test_cbc_does_not_return_an_integer_column_that_preprocessing_made_fractional(tmp_path):
    """max v0 - 0.5 v1 + 4 v2 s.t. 2 v0 - 2 v1 - 2 v2 = 3, 1.5 v1 + v2 <= 2, v0, v1 >= 0, 0 <= v2 <= 1, all integer,
    has no integer point (the left side of the equality is even). CBC 2.10's pre-processing substituted v0 out
    ("processed model has 0 rows, 0 columns (0 integer ...", "Cbc3007W No integer variables - nothing to do") and
    returned v0 = 2.5 as "Optimal" 6.5 (found by differential fuzzing against scipy's milp, the oracle here);
    without preprocessing CBC finds no integer point."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    from scipy.optimize import Bounds, LinearConstraint, milp

    rows = LinearConstraint([[2, -2, -2], [0, 1.5, 1]], [3, -np.inf], [3, 2])
    oracle = milp([-1, 0.5, -4], constraints=[rows], integrality=[1, 1, 1],
                  bounds=Bounds([0, 0, 0], [np.inf, np.inf, 1]))
    assert oracle.status == 2  # infeasible
    path = tmp_path / "fractional.lp"
    path.write_text("max\nobj: +1 v(0) -0.5 v(1) +4 v(2)\ns.t.\nc_e_rows(1)_: +2 v(0) -2 v(1) -2 v(2) = 3\n"
                    "c_u_rows(2)_: +1.5 v(1) +1 v(2) <= 2\nbounds\n 0 <= v(0) <= +inf\n 0 <= v(1) <= +inf\n"
                    " 0 <= v(2) <= 1\ngeneral\n v(0)\n v(1)\n v(2)\nend\n")
    result = cbc.solve(path, time_limit=60)
    assert result.status in ("infeasible", "infeasible_or_unbounded") and result.objective is None, result


def test_cbc_checks_a_preprocessing_verdict_within_what_is_left_of_the_time_limit(tmp_path, monkeypatch):
    """After "Pre-processing says infeasible or unbounded" the rerun without preprocessing gets what is left of
    the time limit; its answer is reported, but a rerun that also finds no optimum leaves the first, weaker verdict
    (CBC 2.10 can call a feasible unbounded MILP "infeasible"); with no time left the verdict is no answer."""
    path = _one_integer_column(tmp_path / "m.mps")
    said = ("Cgl0000I Cut generators found to be infeasible! (or unbounded)\n"
            "Pre-processing says infeasible or unbounded\n")
    optimal = ("Result - Optimal solution found\nObjective value:                1.00000000\n",
               "Optimal - objective value 1.00000000\n      0 x     1     1\n")
    infeasible = ("Problem is infeasible!\n", "Integer infeasible - objective value 0.5\n")
    calls, reruns = [], []

    def fake_run(exe, given, options, timeout, tmp, shown):
        calls.append(options)
        return (said, "", first_seconds) if len(calls) == 1 else (*reruns.pop(0), 1.0)

    monkeypatch.setattr(cbc, "binary", lambda: "cbc")
    monkeypatch.setattr(cbc, "_run", fake_run)
    first_seconds = 3.0
    reruns.append(optimal)
    result = cbc.solve(path, time_limit=10)
    assert calls == [["-sec", "10"], ["-sec", "7", "-preprocess", "off"]]
    assert (result.status, result.objective, result.seconds) == ("optimal", 1.0, 4.0)
    calls.clear()
    reruns.append(infeasible)
    result = cbc.solve(path)
    assert calls == [[], ["-preprocess", "off"]]
    assert result.status == "infeasible_or_unbounded" and result.seconds == 4.0
    calls.clear()
    first_seconds = 10.5
    result = cbc.solve(path, time_limit=10)
    assert calls == [["-sec", "10"]] and result.status == "time_limit" and result.objective is None
    assert "Pre-processing says" in result.message


def test_cbc_output_parser_calls_an_optimum_changed_by_postprocessing_an_error():
    out = ("Cgl0014I Postprocessing changed objective from 5 to 3 - possible tolerance issue - try without "
           "preprocessing\n\nResult - Optimal solution found\n\nObjective value:                5.00000000\n")
    r = cbc.parse_output(out, "Optimal - objective value 3.00000000\n      0 v(2)     -3     0\n", maximise=True)
    assert r.status == "error" and "Cgl0014I" in r.message and r.objective is None and r.bound is None


def test_cbc_output_parser_refuses_a_point_cbc_calls_infeasible_after_postprocessing():
    """Cgl0013I alone (a violated row, which the solution file does not mark by default) is no optimum either."""
    out = ("Cgl0013I Postprocessed model is infeasible - possible tolerance issue - try without preprocessing\n"
           "Result - Optimal solution found\n\nObjective value:                8.00000000\n")
    r = cbc.parse_output(out, "Optimal - objective value 8.00000000\n      0 xcol1      2      3\n")
    assert r.status == "error" and "Cgl0013I" in r.message and r.objective is None and r.solution == {}


def test_cbc_run_abandoned_is_an_error():
    out = "Stopped due to errors\nResult - Run abandonedOptimal solution found\n\nObjective value: 0\n"
    r = cbc.parse_output(out, "")
    assert r.status == "error" and "abandoned" in r.message and r.objective is None


def test_cbc_output_parser_negates_a_maximisation_search_back():
    """CBC's search lines are in its minimisation sense, its summary in the model's (output of CBC 2.10.3 on
    a maximisation MILP stopped at 3 s)."""
    out = ("Cbc0005I Partial search - best objective 0.15466667 (best possible 0.13816613), took 43934 "
           "iterations and 1061 nodes (3.00 seconds)\nResult - Stopped on time limit\n\n"
           "Objective value:                -0.15466667\nGap:                            -0.12\n")
    r = cbc.parse_output(out, "Stopped on time - objective value -0.15466667\n", maximise=True)
    assert (r.status, r.objective, r.bound) == ("time_limit", -0.15466667, -0.13816613)
    r = cbc.parse_output(out.replace("-0.15466667", "0.15466667"), "")
    assert (r.objective, r.bound) == (0.15466667, 0.13816613)


# ------------------------------------------------------------------------------------------ agreement


def _res(status, obj, bound):
    return common.RunResult("x", "f", status, objective=obj, bound=bound)


def test_agreement_rule():
    opt = {"highs_status": "optimal", "highs_objective": 0.5, "highs_best_bound": 0.5}
    open_ = {"highs_status": "time_limit", "highs_objective": 0.6, "highs_best_bound": 0.4}
    none_ = {"highs_status": "time_limit", "highs_objective": None, "highs_best_bound": 0.4}
    assert common.agreement(opt, _res("optimal", 0.50001, 0.50001)) == "agree"
    assert common.agreement(opt, _res("optimal", 0.51, 0.51)) == "DISAGREE"
    assert common.agreement(opt, _res("time_limit", 0.7, 0.3)) == "consistent"
    assert common.agreement(opt, _res("time_limit", 0.7, 0.6)) == "DISAGREE"  # bound above the optimum
    assert common.agreement(opt, _res("time_limit", 0.4, 0.1)) == "DISAGREE"  # incumbent below the optimum
    assert common.agreement(open_, _res("optimal", 0.55, 0.55)) == "closes"
    assert common.agreement(open_, _res("optimal", 0.35, 0.35)) == "DISAGREE"  # below HiGHS's bound
    assert common.agreement(open_, _res("optimal", 0.65, 0.65)) == "DISAGREE"  # HiGHS found better
    assert common.agreement(none_, _res("optimal", 0.45, 0.45)) == "closes"
    assert common.agreement(opt, _res("infeasible", None, None)) == "DISAGREE"
    assert common.agreement(opt, _res("unavailable", None, None)) == "n/a"


def test_agreement_rule_when_the_manifest_proves_no_optimum():
    # a proven infeasibility against another solver's optimum was "closes", and infeasible against infeasible "n/a"
    infeasible = {"highs_status": "infeasible", "highs_objective": None, "highs_best_bound": None}
    unbounded = {"highs_status": "unbounded", "highs_objective": None, "highs_best_bound": None}
    either = {"highs_status": "unbounded_or_infeasible", "highs_objective": None, "highs_best_bound": None}
    assert common.agreement(infeasible, _res("optimal", 4 / 3, 4 / 3)) == "DISAGREE"
    assert common.agreement(infeasible, _res("time_limit", 2.0, 1.0)) == "DISAGREE"  # a feasible point
    assert common.agreement(infeasible, _res("time_limit", None, 1.0)) == "consistent"
    assert common.agreement(infeasible, _res("infeasible", None, None)) == "agree"
    assert common.agreement(infeasible, _res("infeasible_or_unbounded", None, None)) == "agree"
    assert common.agreement(infeasible, _res("unbounded", None, None)) == "DISAGREE"
    assert common.agreement(unbounded, _res("optimal", 1.0, 1.0)) == "DISAGREE"
    assert common.agreement(unbounded, _res("time_limit", 2.0, None)) == "consistent"
    assert common.agreement(unbounded, _res("unbounded", None, None)) == "agree"
    assert common.agreement(either, _res("optimal", 1.0, 1.0)) == "DISAGREE"  # bilevel.solve's name for the status
    for status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        assert common.agreement(either, _res(status, None, None)) == "agree"


def test_agreement_with_infinite_manifest_numbers_and_raw_highs_statuses():
    """Found by an audit of compare: close(0.04, inf) held (inf <= atol + rtol * inf), so a manifest bound of +inf
    or an objective of inf "agreed" with any optimum; HiGHS's raw "Infeasible" counted as an open instance
    ("closes"), and an unknown status as well."""
    assert not common.close(0.04, np.inf, 1e-4, 1e-6) and common.close(np.inf, np.inf, 1e-4, 1e-6)
    assert not common.close(-np.inf, np.inf, 1e-4, 1e-6)
    bound_inf = {"highs_status": "optimal", "highs_objective": 0.0426, "highs_best_bound": np.inf}
    assert common.agreement(bound_inf, _res("optimal", 0.0426, 0.0426)) == "DISAGREE"
    obj_inf = {"highs_status": "optimal", "highs_objective": np.inf, "highs_best_bound": -np.inf}
    assert common.agreement(obj_inf, _res("optimal", 0.0426, 0.0426)) == "DISAGREE"
    raw = {"highs_status": "Infeasible", "highs_objective": None, "highs_best_bound": None}
    assert common.agreement(raw, _res("optimal", 0.5, 0.5)) == "DISAGREE"
    assert common.agreement(raw, _res("infeasible", None, None)) == "agree"
    raw_opt = {"highs_status": "Optimal", "highs_objective": 0.5, "highs_best_bound": 0.5}
    assert common.agreement(raw_opt, _res("optimal", 0.5, 0.5)) == "agree"
    with pytest.raises(InputError, match="highs_status 'bogus' is not a status a manifest holds"):
        common.agreement({"highs_status": "bogus", "highs_objective": 3.0, "highs_best_bound": None},
                         _res("optimal", 0.5, 0.5))


@pytest.mark.parametrize("change,match", [
    ({"highs_objective": "inf"}, r"highs_objective inf, not a finite number"),
    ({"highs_objective": "nan"}, r"highs_objective nan, not a finite number"),
    ({"highs_status": "bogus"}, r"highs_status 'bogus' is not a status"),
    ({"highs_objective": ""}, r"is 'optimal' in highs_status with an empty highs_objective"),
])
def test_compare_refuses_a_manifest_row_whose_highs_result_cannot_be_compared(tmp_path, change, match):
    rows = list(csv.DictReader(MANIFEST.open()))
    row = next(r for r in rows if r["id"] == NONTRIVIAL)
    row.update(change)
    path = tmp_path / "manifest.csv"
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(row))
        writer.writeheader()
        writer.writerow(row)
    with pytest.raises(InputError, match=match):
        compare.select_instances(path)


def test_agreement_rule_maximisation():
    """A maximisation instance: the proven bound lies above the objective, so each case of the
    minimisation rule holds with every value negated (and the plain rule would call these wrong)."""
    opt = {"highs_status": "optimal", "highs_objective": -0.5, "highs_best_bound": -0.5}
    open_ = {"highs_status": "time_limit", "highs_objective": -0.6, "highs_best_bound": -0.4}
    cases = [(opt, _res("optimal", -0.50001, -0.50001), "agree"),
             (opt, _res("time_limit", -0.7, -0.3), "consistent"),
             (opt, _res("time_limit", -0.7, -0.6), "DISAGREE"),  # bound below the optimum
             (opt, _res("time_limit", -0.4, -0.1), "DISAGREE"),  # incumbent above the optimum
             (open_, _res("optimal", -0.55, -0.55), "closes"),
             (open_, _res("optimal", -0.35, -0.35), "DISAGREE"),  # above HiGHS's bound
             (open_, _res("optimal", -0.65, -0.65), "DISAGREE")]  # HiGHS found better
    for row, res, want in cases:
        assert common.agreement(row, res, maximise=True) == want
    assert common.agreement(opt, _res("time_limit", -0.7, -0.3)) == "DISAGREE"  # read as minimisation
    assert common.agreement(open_, _res("optimal", -0.55, -0.55)) == "DISAGREE"
    assert common.agreement({"highs_status": "optimal", "highs_objective": 0.0, "highs_best_bound": 0.0},
                            _res("optimal", 4e-7, 4e-7)) == "agree"


# ----------------------------------------------------------------------------------- solution files


@pytest.mark.parametrize("text,objective", [
    ("solution status: optimal solution found\nobjective value: 0.25\nw_bar(0) 1 \t(obj:0)\nb -0.5 \t(obj:0)\n", 0.25),
    ("Optimal - objective value 0.25000000\n      0 w_bar(0)   1   0\n**    7 b   -0.5   0\n", 0.25),
    ("# Objective value = 2.5e-1\nw_bar(0) 1\nb -0.5\n", 0.25),
    ("name,value\nobjective,0.25\nw_bar(0),1\nb,-0.5\n", 0.25),
    ("name,value\nobjective value,0.25\nw_bar(0),1\nb,-0.5\n", 0.25),  # was read as no claim
    ("Objective Value, 0.25\nw_bar(0),1\nb,-0.5\n", 0.25),
    ("w_bar(0),1.0\nb,-5e-1\n", None),
    ("objective: 0.25\nw_bar(0): 1\nb: -0.5\n", 0.25),  # the names were read as "w_bar(0):" and "b:"
])
def test_read_solution_file_formats(tmp_path, text, objective):
    path = tmp_path / "s.sol"
    path.write_text(text)
    values, obj = solution_files.read_solution_file(path)
    assert values == {"w_bar(0)": 1.0, "b": -0.5} and obj == objective
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())  # Windows: BOM and CRLF
    values, obj = solution_files.read_solution_file(path)
    assert values == {"w_bar(0)": 1.0, "b": -0.5} and obj == objective


def test_read_solution_file_reads_only_the_primal_values_of_a_highs_solution(tmp_path):
    """A HiGHS writeSolution file also lists row values, duals and a basis as 'name value' lines; the last one
    won, so x0 read as its basis status 1 instead of 2.73."""
    import highspy

    h = highspy.Highs()
    h.silent()
    inf = highspy.kHighsInf
    h.addVars(2, [-inf, 0.0], [inf, 10.0])
    h.passColName(0, "x0")
    h.passColName(1, "x1")
    h.addRow(1.0, 1.0, 2, [0, 1], [1.0, -1.0])  # x0 - x1 = 1
    h.changeColsCost(2, [0, 1], [0.0, 1.0])
    h.changeColBounds(0, 2.73, 2.73)
    h.run()
    path = tmp_path / "highs.sol"
    h.writeSolution(str(path), 0)
    values, objective = solution_files.read_solution_file(path)
    assert values == pytest.approx({"x0": 2.73, "x1": 1.73}) and objective == pytest.approx(1.73)


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_read_solution_file_reads_highs_pretty_style_like_its_raw_style(tmp_path, fmt):
    """HiGHS's "pretty" style (writeSolution(file, 1)) is a table with an empty Status and Dual column for a
    MIP; read, it gives the raw style's values of the same solve to its 6 significant digits, and the checker
    trusts it."""
    import highspy

    row = ROWS["cancer-pes-e0.2-n10-s0"]
    h = highspy.Highs()
    h.silent()
    h.readModel(str(MODELS / row[fmt]))
    h.run()
    raw, pretty = tmp_path / "raw.sol", tmp_path / "pretty.sol"
    h.writeSolution(str(raw), 0)
    h.writeSolution(str(pretty), 1)
    assert pretty.read_text().startswith("Columns")
    exact, objective = solution_files.read_solution_file(raw)
    rounded, claimed = solution_files.read_solution_file(pretty)
    assert rounded.keys() == exact.keys() and len(rounded) == row["columns"]
    for name, value in exact.items():
        assert rounded[name] == pytest.approx(value, rel=1e-5, abs=1e-12), name
    assert claimed == pytest.approx(objective, rel=1e-5, abs=1e-12)
    rep = check_solution.check_solution(MANIFEST, row["id"], pretty, strict=True)
    assert rep.trusted, rep.summary()


def test_read_solution_file_reads_an_lp_in_highs_pretty_style(tmp_path):
    """An LP's pretty table has basis statuses and duals, and no Type column."""
    import highspy

    h = highspy.Highs()
    h.silent()
    h.addVars(3, [0.0, 0.0, -2.0], [1.0, 3.0, highspy.kHighsInf])
    for j, name in enumerate(["x", "y", "z"]):
        h.passColName(j, name)
    h.changeColsCost(3, [0, 1, 2], [1.0, 2.0, 0.5])
    h.addRow(1.5, highspy.kHighsInf, 2, [0, 1], [1.0, 1.0])  # x + y >= 1.5
    h.addRow(-highspy.kHighsInf, 0.25, 2, [0, 2], [1.0, -1.0])  # x - z <= 0.25
    h.run()
    path = tmp_path / "pretty.sol"
    h.writeSolution(str(path), 1)
    assert "Type" not in path.read_text() and " BS " in path.read_text()
    values, objective = solution_files.read_solution_file(path)
    assert values == pytest.approx(dict(zip("xyz", h.getSolution().col_value)), rel=1e-5)
    assert objective == pytest.approx(h.getInfo().objective_function_value, rel=1e-5)
    # HiGHS leaves the Dual column blank when it has no valid duals: the primal values are still read
    lines = path.read_text().splitlines()
    end = lines[1].index("Dual") + len("Dual")
    path.write_text("\n".join(line[:end - 13] + " " * 13 + line[end:] if line[:9].strip().isdigit() else line
                              for line in lines))
    assert solution_files.read_solution_file(path)[0] == pytest.approx(values)


def test_read_solution_file_refuses_a_highs_pretty_file_without_primal_values(tmp_path):
    import highspy

    h = highspy.Highs()
    h.silent()
    h.addVars(1, [0.0], [1.0])
    h.addRow(2.0, highspy.kHighsInf, 1, [0], [1.0])  # x >= 2 with x <= 1: infeasible
    h.changeColsIntegrality(1, [0], [highspy.HighsVarType.kInteger])
    h.run()
    path = tmp_path / "pretty.sol"
    h.writeSolution(str(path), 1)
    with pytest.raises(common.InputError, match="without primal values .*Infeasible"):
        solution_files.read_solution_file(path)
    path.write_text("Columns\nnot a table\n")
    with pytest.raises(common.InputError, match="not a solution file"):
        solution_files.read_solution_file(path)


def _cplex_xml(name_values: dict, objective: float, index: int | None = None, feasible: int = 1) -> str:
    """A solution in CPLEX's XML .sol layout (as CPLEX 12.x writes it, writeLevel 1)."""
    sol_index = "" if index is None else f'\n    solutionIndex="{index}"'
    variables = "\n".join(f'   <variable name="{n}" index="{k}" value="{v!r}"/>'
                          for k, (n, v) in enumerate(name_values.items()))
    return f"""<CPLEXSolution version="1.2">
  <header
    problemName="model.lp"{sol_index}
    objectiveValue="{objective!r}"
    solutionTypeValue="3"
    solutionTypeString="primal"
    solutionStatusValue="{101 if feasible else 103}"
    solutionStatusString="{'integer optimal solution' if feasible else 'integer infeasible'}"
    solutionMethodString="mip"
    primalFeasible="{feasible}"
    writeLevel="1"/>
  <quality epInt="1.0000000000000001e-05" epRHS="9.9999999999999995e-07"/>
  <linearConstraints>
   <constraint name="c_e_x1_" index="0" slack="0"/>
  </linearConstraints>
  <variables>
{variables}
  </variables>
 </CPLEXSolution>"""


def test_read_solution_file_reads_cplex_xml_and_the_checker_trusts_it(tmp_path):
    """CPLEX writes XML: a HiGHS optimum of a committed .lp file in that layout is read back exactly and
    trusted; of a solution pool, the incumbent (solutionIndex -1) is read, wherever it stands."""
    import highspy

    row = ROWS["diabetes-pes-e0.2-n10-s0"]
    h = highspy.Highs()
    h.silent()
    h.readModel(str(MODELS / row["lp"]))
    h.run()
    lp = h.getLp()
    exact = dict(zip(lp.col_names_, h.getSolution().col_value))
    objective = h.getInfo().objective_function_value
    path = tmp_path / "cplex.sol"
    path.write_text('<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>\n' + _cplex_xml(exact, objective))
    values, claimed = solution_files.read_solution_file(path)
    assert values == exact and claimed == objective
    rep = check_solution.check_solution(MANIFEST, row["id"], path, strict=True)
    assert rep.trusted, rep.summary()
    other = {n: 0.0 for n in exact}
    path.write_text('<?xml version = "1.0" standalone="yes"?>\n<CPLEXSolutions version="1.2">\n'
                    + _cplex_xml(other, 0.0, index=0) + _cplex_xml(exact, objective, index=-1)
                    + "\n</CPLEXSolutions>\n")
    assert solution_files.read_solution_file(path) == (exact, objective)


def test_read_solution_file_refuses_cplex_xml_without_a_solution(tmp_path):
    path = tmp_path / "cplex.sol"
    path.write_text(_cplex_xml({"x": 1.0}, 1.0, feasible=0))
    with pytest.raises(common.InputError, match="integer infeasible"):
        solution_files.read_solution_file(path)
    path.write_text('<?xml version="1.0"?>\n<CPLEXSolution version="1.2"><variables>')
    with pytest.raises(common.InputError, match="not well-formed XML"):
        solution_files.read_solution_file(path)
    path.write_text('<?xml version="1.0"?>\n<root><variable name="x" value="1"/></root>\n')
    with pytest.raises(common.InputError, match="no <CPLEXSolution>"):
        solution_files.read_solution_file(path)
    path.write_text(_cplex_xml({"x": float("nan")}, 1.0))
    with pytest.raises(common.InputError, match="not a finite number"):
        solution_files.read_solution_file(path)


@pytest.mark.parametrize("first", ["Infeasible - objective value 2.50000000",
                                   "Integer infeasible - objective value 2.5",
                                   # the linear relaxation's values of a run without an integer point
                                   "Stopped on time (no integer solution - continuous used) - objective value 0.0"])
def test_read_solution_file_refuses_cbc_reports_of_infeasible_models(tmp_path, first):
    path = tmp_path / "cbc.sol"
    path.write_text(f"{first}\n**       0 x                    1.5                       0\n      1 y   1   -1\n")
    with pytest.raises(common.InputError, match="no solution"):
        solution_files.read_solution_file(path)


@pytest.mark.parametrize("first", ["Stopped on iterations - objective value 0.00000000",
                                   "Stopped on difficulties - objective value 0.00000000",
                                   "Stopped on ctrl-c - objective value 0.00000000",
                                   "Status unknown - objective value 0.00000000"])
def test_read_solution_file_refuses_cbc_statuses_that_do_not_say_solution(tmp_path, first):
    """CBC 2.10.3 writes "Stopped on iterations - objective value 0.00000000" and the point (0, 0) for min x + 2y,
    x + y >= 1 stopped by Clp's time or iteration limit (no "no integer solution" mark): the reader returned
    that infeasible point and the claim 0, below the optimum 1. The other statuses cover the same two cases
    (a branch and bound's incumbent, or Clp's current point) or none."""
    path = tmp_path / "cbc.sol"
    path.write_text(f"{first}\n      0 x                      0                       1\n"
                    "      1 y                      0                       2\n")
    with pytest.raises(common.InputError, match="not known to be a solution"):
        solution_files.read_solution_file(path)


@pytest.mark.parametrize("first, objective", [("Optimal - objective value 1.00000000", 1.0),
                                              ("Optimal (within gap tolerance) - objective value 1.5", 1.5),
                                              ("Stopped on time - objective value 2.00000000", 2.0)])
def test_read_solution_file_reads_cbc_solutions_and_stopped_incumbents(tmp_path, first, objective):
    path = tmp_path / "cbc.sol"
    path.write_text(f"{first}\n      0 x                      1                       0\n")
    assert solution_files.read_solution_file(path) == ({"x": 1.0}, objective)


def test_read_solution_file_refuses_cbcs_stopped_linear_iterate(tmp_path):
    """A real CBC run stopped by its iteration limit in the linear relaxation of min x + 2y, x + y >= 1.5,
    x - y <= 0.5, y integer writes "Stopped on iterations" and a point that is not a solution: y = 0.5 (or
    x + y < 1.5). The reader gave it back as the answer. With no limit CBC's file is read (optimum 2.5 at
    x = 0.5, y = 1, by enumerating y)."""
    import subprocess

    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    model = tmp_path / "m.lp"
    model.write_text("minimize\n obj: x + 2 y\nsubject to\n c1: x + y >= 1.5\n c2: x - y <= 0.5\ngeneral\n y\nend\n")
    optimum = min(max(1.5 - y, y - 0.5, 0) + 2 * y for y in range(5) if max(1.5 - y, 0) <= y + 0.5)
    for limit, sol in ((["-maxIt", "1"], tmp_path / "stopped.sol"), ([], tmp_path / "solved.sol")):
        subprocess.run([cbc.binary(), "-import", str(model), *limit, "-solve", "-solution", str(sol)],
                       capture_output=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
        assert sol.is_file(), limit
    lines = (tmp_path / "stopped.sol").read_text().splitlines()[1:]
    values = {t[1]: float(t[2]) for t in (line.replace("**", " ").split() for line in lines)}
    x, y = values.get("x", 0.0), values.get("y", 0.0)
    assert y != round(y) or x + y < 1.5 - 1e-9 or x - y > 0.5 + 1e-9, values  # CBC wrote no solution
    with pytest.raises(common.InputError, match="Stopped on iterations"):
        solution_files.read_solution_file(tmp_path / "stopped.sol")
    values, claimed = solution_files.read_solution_file(tmp_path / "solved.sol")
    assert claimed == pytest.approx(optimum) and values["y"] == pytest.approx(1.0)


@pytest.mark.parametrize("text", [
    "objective value: 0.25\nw_bar(0) 1\nobjective value: 0.5\n",  # SCIP style, two solutions pasted together
    "name,value\nobjective value,0.25\nobjective value,0.5\nw_bar(0),1\n",
    "w_bar(0),1\nobjective,0.25\nobjective,0.5\n",
])
def test_read_solution_file_refuses_two_different_objective_claims(tmp_path, text):
    """A file claiming two objectives was read with the last claim, and the first (here the right one for a solution
    worth 0.25) went unchecked; one claim twice, or a solver's infinity (no claim), is still read."""
    path = tmp_path / "s.sol"
    path.write_text(text)
    with pytest.raises(InputError, match="claims two objectives, 0.25 and 0.5"):
        solution_files.read_solution_file(path)
    path.write_text(text.replace("0.5", "0.25"))
    assert solution_files.read_solution_file(path) == ({"w_bar(0)": 1.0}, 0.25)
    path.write_text(text.replace("0.5", "1e+20"))
    assert solution_files.read_solution_file(path) == ({"w_bar(0)": 1.0}, 0.25)


def test_read_solution_file_rejects_garbage(tmp_path):
    path = tmp_path / "s.sol"
    path.write_text("no solution here\n")
    with pytest.raises(common.InputError):
        solution_files.read_solution_file(path)
    with pytest.raises(common.InputError):
        solution_files.read_solution_file(tmp_path / "missing.sol")


@pytest.mark.parametrize("line", ["C52 = 0.9", "C52 := 0.9", "C52 -> 0.9", "w_bar[0] is 0.9"])
def test_a_line_that_is_not_name_value_is_refused_not_skipped(tmp_path, line):
    """"C52 = 0.9" was skipped: a file giving C52 twice, once so, was trusted with the other value (and one
    giving a variable only so counted it as 0). Found by an audit of the solution checker."""
    path = tmp_path / "s.sol"
    path.write_text(f"C10 0.5\n{line}\nC11 1\n")
    with pytest.raises(common.InputError, match=r"has a line that is not 'name value'"):
        solution_files.read_solution_file(path)


def test_a_model_file_given_for_its_solution_is_named_as_such(tmp_path, capsys):
    """An instance's .lp given where its solution was meant said "gives variable '<=' two values, -1.0 and 0.0"
    (its rows read as 'name value' lines); the library's files and HiGHS's own writes of the model, LP and MPS,
    also with CRLF line ends, are called model files, not solution files."""
    import highspy

    row = ROWS[NONTRIVIAL]
    h = highspy.Highs()
    h.silent()
    h.readModel(str(MODELS / row["mps"]))
    files = {"lp": [MODELS / row["lp"]], "mps": [MODELS / row["mps"]]}
    for fmt in ("lp", "mps"):
        h.writeModel(str(tmp_path / f"highs.{fmt}"))
        crlf = tmp_path / f"crlf-{fmt}.txt"  # and a suffix that does not say it
        crlf.write_bytes(files[fmt][0].read_bytes().replace(b"\n", b"\r\n"))
        files[fmt] += [tmp_path / f"highs.{fmt}", crlf]
    for fmt, paths in files.items():
        for path in paths:
            with pytest.raises(InputError, match=f"{re.escape(repr(str(path)))} is an {fmt.upper()} model file, "
                               "not a solution file: expected CSV"):
                solution_files.read_solution_file(path)
    assert check_solution.main([str(MANIFEST), NONTRIVIAL, str(MODELS / row["lp"])]) == 2
    err = capsys.readouterr().err
    assert "is an LP model file, not a solution file" in err and "two values" not in err, err


@pytest.fixture(scope="module")
def highs_files(tmp_path_factory):
    """The raw and pretty HiGHS solution files of one solve of NONTRIVIAL, as text."""
    import highspy

    folder = tmp_path_factory.mktemp("highs_files")
    h = highspy.Highs()
    h.silent()
    h.readModel(str(MODELS / ROWS[NONTRIVIAL]["mps"]))
    h.run()
    h.writeSolution(str(folder / "raw.sol"), 0)
    h.writeSolution(str(folder / "pretty.sol"), 1)
    return (folder / "raw.sol").read_text(), (folder / "pretty.sol").read_text()


def test_a_truncated_highs_solution_file_is_refused(highs_files, tmp_path):
    """Both HiGHS styles list every column; a file cut short was read, its missing columns counted as 0, and
    the checker trusted (or rejected for a made-up reason) a vector the file does not hold."""
    raw, pretty = highs_files
    path = tmp_path / "s.sol"
    for text in (raw, pretty):
        path.write_text(text)
        assert len(solution_files.read_solution_file(path)[0]) == ROWS[NONTRIVIAL]["columns"]
    lines = raw.splitlines(keepends=True)
    first = next(k for k, line in enumerate(lines) if line.startswith("# Columns")) + 1
    path.write_text("".join(lines[:first + 20]))
    with pytest.raises(InputError, match="declares .* columns but gives 20 values"):
        solution_files.read_solution_file(path)
    path.write_text("".join(lines[:first] + ["C3\n"] + lines[first + 1:]))  # a value lost
    with pytest.raises(InputError, match="malformed column line 'C3'"):
        solution_files.read_solution_file(path)
    lines = pretty.splitlines(keepends=True)
    path.write_text("".join(lines[:25]))
    with pytest.raises(InputError, match="ends inside its column table"):
        solution_files.read_solution_file(path)


def test_a_highs_file_without_a_feasible_primal_point_is_no_solution(tmp_path):
    """HiGHS writes its primal status under ``# Primal solution values``. Values it marks ``Infeasible`` (here the
    LP relaxation of a library instance stopped after 5 simplex iterations) were read and judged as if HiGHS had
    found them; ``None`` (an infeasible model) was refused as "not a solution file". Both are now an InputError
    that gives HiGHS's model status, also through :func:`check_solution`."""
    import highspy

    h = highspy.Highs()
    h.silent()
    h.readModel(str(MODELS / ROWS[NONTRIVIAL]["mps"]))
    h.setOptionValue("solve_relaxation", True)
    h.setOptionValue("presolve", "off")
    h.setOptionValue("simplex_iteration_limit", 5)
    h.run()
    assert h.getInfo().primal_solution_status == 1  # highspy's kSolutionStatusInfeasible
    path = tmp_path / "stopped.sol"
    h.writeSolution(str(path), 0)
    with pytest.raises(InputError, match=r"primal values it marks infeasible \(model status: Iteration limit"):
        solution_files.read_solution_file(path)
    with pytest.raises(InputError, match="marks infeasible"):
        check_solution.check_solution(MANIFEST, NONTRIVIAL, path)
    lp = tmp_path / "infeasible.lp"
    lp.write_text("minimize\n obj: x\nsubject to\n c1: x >= 3\n c2: x <= 1\nend\n")
    h = highspy.Highs()
    h.silent()
    h.readModel(str(lp))
    h.run()
    h.writeSolution(str(path), 0)
    with pytest.raises(InputError, match=r"with no primal values \(model status: Infeasible\)"):
        solution_files.read_solution_file(path)


def test_a_damaged_line_of_a_highs_solution_is_refused_with_its_line_number(highs_files, tmp_path):
    """Each damage to a real HiGHS solution file is an InputError naming the file and the damaged line's number,
    never a solution missing a value: a column line garbled (``C3 0.5x``, a third field, a lost value; refused
    before, without the line number; mutation testing: skipping it passed, the count check caught it under
    another message), a ``# Columns`` line that lost its count (the count check was then off, and a column line
    lost with it went unnoticed: ``{'x1': 0.0}`` read from a file of x0 = 1, x1 = 0), and a garbled ``Objective``
    line (the claim was dropped unchecked)."""
    raw = highs_files[0]
    lines = raw.splitlines(keepends=True)
    path = tmp_path / "s.sol"
    path.write_text(raw)
    good, claim = solution_files.read_solution_file(path)
    head = next(k for k, line in enumerate(lines) if line.startswith("# Columns"))
    name, value = lines[head + 3].split()
    obj = next(k for k, line in enumerate(lines) if line.startswith("Objective"))
    assert claim == pytest.approx(ROWS[NONTRIVIAL]["highs_objective"], rel=1e-6)
    cases = [  # (line index, replacement, message)
        (head + 3, f"{name} {value}x\n", "malformed column line"),
        (head + 3, f"{name} {value} 7\n", "malformed column line"),
        (head + 3, f"{name}\n", "malformed column line"),
        (head, "# Columns\n", "malformed column count line"),
        (head, "# Columns 2x\n", "malformed column count line"),
        (obj, lines[obj].rstrip("\n") + "x\n", "malformed objective line"),
    ]
    for k, text, match in cases:
        path.write_text("".join(lines[:k] + [text] + lines[k + 1:]))
        with pytest.raises(InputError, match=f"'{re.escape(str(path))}' line {k + 1}: a {match} "):
            solution_files.read_solution_file(path)
    # the count line lost its count and a column line is lost: the old reader returned one value fewer
    path.write_text("".join(lines[:head] + ["# Columns\n"] + lines[head + 1:head + 3] + lines[head + 4:]))
    with pytest.raises(InputError, match="malformed column count line"):
        solution_files.read_solution_file(path)


@pytest.mark.parametrize("text, match", [
    ("solution status: optimal solution found\nobjective value: 0.25\nw_bar(0) 1\nb -0.5x\n", "malformed value"),
    ("Optimal - objective value 0.25\n      0 w_bar(0)   1   0\n      7 b   -.5e   0\n", "malformed value"),
    ("solution status: optimal solution found\nobjective value: 0.25x\nw_bar(0) 1\nb -0.5\n", "claims the objective"),
    ("name,value\nobjective,0.25\nw_bar(0),\nb,-0.5\n", "no value in the line 'w_bar\\(0\\),'"),
    ('"name","value"\n"objective","0.25"\n"w_bar(0)",""\n"b","-0.5"\n', "no value in the line"),
    ("name,value\nobjective,\nw_bar(0),1\nb,-0.5\n", "no value in the line 'objective,'"),
    ("name,value\nobjective,0.25\nw_bar(0),1\nb,-0,5\n", "decimal comma"),
])
def test_a_damaged_value_is_refused_not_dropped(tmp_path, text, match):
    """A value such as 0.18x was skipped (the variable counted as 0) and a damaged objective claim dropped. So were
    a CSV row's empty value (``w_bar(0),``: w_bar(0) then 0; ``objective,``: no claim), and a decimal comma
    (``b,-0,5``) was read as b = -0: the checker judged a vector the file does not hold."""
    path = tmp_path / "s.sol"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        solution_files.read_solution_file(path)


@pytest.mark.parametrize("text, match", [
    ("objective value: 0.25\nw_bar(0) 1,5\nb -0.5\n", "number with a comma"),  # read as w_bar(0) = 1
    ("objective value: 0.25\nw_bar(0) 1,000 (obj:0)\nb -0.5\n", "number with a comma"),  # thousands: 1
    ("Optimal - objective value 0.25\n      0 w_bar(0)   0,5   0\n", "number with a comma"),  # CBC: 0
    ("name;value\nw_bar(0);0,5\nb;-0.5\n", "semicolon-separated"),  # a variable 'w_bar(0);0' = 5
    ("name;value\nw_bar(0);1\nb;-0.5\n", "no 'name value' lines.*semicolon-separated"),  # no hint was given
    ("name,value\nw_bar(0),NA\nb,-0.5\n", "no numeric value"),  # skipped: w_bar(0) then 0
    ("w_bar(0) ?\nb -0.5\n", "no numeric value"),
    ("name,value\nw_bar(0),.\nb,-0.5\n", "no numeric value"),
    ("name,value\nw_bar(0),\u22120.5\nb,-0.5\n", "malformed value"),  # a typographic minus: skipped
    ("name,value\nobjective,0.25\nw_bar(0)\nb,-0.5\n", "a CSV row of one field"),  # its value and comma lost
])
def test_a_value_the_reader_cannot_take_as_written_is_refused(tmp_path, text, match):
    """Each file was read as other numbers than it holds, without a word: a decimal comma or a thousands
    separator in a whitespace-separated line as its integer part (``w_bar(0) 1,5`` as 1), a semicolon-separated
    row as a variable of another name, and a missing value (``NA``, ``?``, ``.``) or a typographic minus sign
    skipped, the variable then taken as 0."""
    path = tmp_path / "s.sol"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=match):
        solution_files.read_solution_file(path)


def test_header_rows_and_commas_outside_values_still_read(tmp_path):
    """The checks above leave a CSV header, a CSV row with spaces after its commas, CBC's index column and
    SCIP's objective coefficient alone: the values are those of Python's float on the fields."""
    path = tmp_path / "s.sol"
    path.write_text("name, value\nobjective, 0.25\nw_bar(0), 1.5\n  3 b   -0.5   0\nw(0) 2e-3 (obj:1,5)\n")
    values, objective = solution_files.read_solution_file(path)
    assert values == {"w_bar(0)": float("1.5"), "b": float("-0.5"), "w(0)": float("2e-3")}
    assert objective == float("0.25")


def test_a_malformed_value_in_a_highs_pretty_column_line_is_refused(tmp_path):
    """The pretty reader kept the tokens that are numbers and took the third as the Primal: a damaged Primal
    ("0,5") was left out and, in an LP's table (Lower Upper Primal Dual), the Dual was read as the Primal."""
    head = "Columns\n    Index Status        Lower        Upper       Primal         Dual        Name\n"
    rows = "Rows\n    Index Status        Lower        Upper       Primal         Dual        Name\n"
    tail = "\nModel status: Optimal\n\nObjective value: 1\n"
    path = tmp_path / "s.sol"
    path.write_text(head + "        0     BS           -1            1          0.5            0  C0\n" + rows + tail)
    assert solution_files.read_solution_file(path)[0] == {"C0": 0.5}
    path.write_text(head + "        0     BS           -1            1          0,5            0  C0\n" + rows + tail)
    with pytest.raises(InputError, match="malformed value in the column line"):
        solution_files.read_solution_file(path)


def _library_copy(tmp_path, instance_id: str) -> Path:
    """A manifest holding ``instance_id`` only, with copies of its files, in ``tmp_path``."""
    import csv
    import shutil

    row = ROWS[instance_id]
    for key in ("mps", "lp", "names"):
        shutil.copy(MODELS / row[key], tmp_path / row[key])
    with open(MANIFEST, newline="") as fh:
        reader = csv.DictReader(fh)
        rows = [r for r in reader if r["id"] == instance_id]
        fields = reader.fieldnames
    with open(tmp_path / "manifest.csv", "w", newline="") as fh:
        writer = csv.DictWriter(fh, fields)
        writer.writeheader()
        writer.writerows(rows)
    return tmp_path / "manifest.csv"


def test_a_missing_or_replaced_name_map_or_mps_is_named(highs_answer, tmp_path):
    """A missing map was read as empty ("the solution names no variable"), another instance's map made a right
    answer look wrong ("w leaves the box"), and the .mps of the feasibility check was never compared with the
    manifest's checksum."""
    manifest = _library_copy(tmp_path, NONTRIVIAL)
    row = ROWS[NONTRIVIAL]
    answer = dict(highs_answer.solution, objective=highs_answer.objective)
    assert check_solution.check_solution(manifest, NONTRIVIAL, answer).trusted
    names = tmp_path / row["names"]
    saved = names.read_bytes()
    names.write_bytes((MODELS / ROWS["cancer-opt-n5-s0"]["names"]).read_bytes())
    with pytest.raises(InputError, match="name map .* differs from the manifest's sha256"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)
    names.unlink()
    with pytest.raises(InputError, match="name map that the manifest lists for .* not found"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)
    names.mkdir()  # was "does not exist", though a folder is there
    with pytest.raises(InputError, match="name map that the manifest lists for .* is a folder, not a file"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)
    names.rmdir()
    names.write_bytes(saved)
    mps = tmp_path / row["mps"]
    mps.write_text(mps.read_text().replace("RHS", "RHS ", 1))
    with pytest.raises(InputError, match=r"\.mps file .* differs from the manifest's sha256"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)


def _edit_first_row(manifest: Path, changes) -> None:
    """Rewrite the CSV ``manifest`` with its first row updated by ``changes(row)`` (a dict of cells)."""
    rows = list(csv.DictReader(manifest.open()))
    rows[0].update(changes(rows[0]))
    with manifest.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_strict_needs_the_mps_and_an_mps_cell_must_name_one(highs_answer, tmp_path):
    """Found by an audit of the checker: with the .mps absent, --strict trusted a vector it could not check for MILP
    feasibility (a note only); an .lp named in the mps cell (with its checksum) was read with no column meeting the
    name map, and the zero vector was scored: a right answer REJECTED."""
    manifest = _library_copy(tmp_path, NONTRIVIAL)
    row = ROWS[NONTRIVIAL]
    answer = dict(highs_answer.solution, objective=highs_answer.objective)
    (tmp_path / row["mps"]).unlink()
    rep = check_solution.check_solution(manifest, NONTRIVIAL, answer)
    assert rep.trusted and any("MILP feasibility not checked" in n for n in rep.notes)
    with pytest.raises(InputError, match="strict: the MILP feasibility of the vector cannot be checked"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer, strict=True)
    _edit_first_row(manifest, lambda r: {"mps": row["lp"], "mps_sha256": r["lp_sha256"]})
    with pytest.raises(InputError, match=r"mps cell of .* names .*\.lp', not an \.mps file"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)


@pytest.mark.parametrize("change", [{"seed": "1"}, {"data": "cancer"}, {"w_bar_ub": "100.0"}, {"n_val": "5"}])
def test_a_row_edited_after_the_export_is_refused_against_its_file(highs_answer, tmp_path, change):
    """Found by an audit: a row whose seed, data set or box was changed beside its own checksummed .mps was checked
    against the rebuilt other instance: a right answer REJECTED (seed, data) or TRUSTED for a box the file does not
    have (w_bar_ub 100). Oracle: the unchanged row trusts the same answer."""
    manifest = _library_copy(tmp_path, NONTRIVIAL)
    answer = dict(highs_answer.solution, objective=highs_answer.objective)
    assert check_solution.check_solution(manifest, NONTRIVIAL, answer).trusted
    _edit_first_row(manifest, lambda _: change)
    with pytest.raises(InputError, match=r"the manifest row of 'diabetes-opt-n10-s0' describes another model than"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)


def test_compare_records_a_failed_check_and_goes_on(tmp_path):
    """A check error (here a missing name map) ended the whole compare run with exit 2 and no table."""
    manifest = _library_copy(tmp_path, "cancer-opt-n5-s0")
    (tmp_path / ROWS["cancer-opt-n5-s0"]["names"]).unlink()
    records = compare.compare(manifest, ["highs"], ["mps"], time_limit=30.0, check=True)
    assert len(records) == 1 and records[0]["check"].startswith("error: the name map")
    assert records[0]["status"] == "optimal"



@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_compare_does_not_solve_a_file_that_differs_from_the_manifest(tmp_path, fmt):
    """HiGHS read an .mps cut to 1000 bytes as a 2-column model and compare called it optimal 0, agree."""
    manifest = _library_copy(tmp_path, "cancer-opt-n5-s0")
    path = tmp_path / ROWS["cancer-opt-n5-s0"][fmt]
    path.write_bytes(path.read_bytes()[:1000])
    records = compare.compare(manifest, ["highs"], [fmt], time_limit=30.0)
    assert len(records) == 1 and records[0]["status"] == "error" and records[0]["objective"] is None
    assert "sha256" in records[0]["message"] and records[0]["agreement"] != "agree"


# ------------------------------------------------------------------------------------ solution checker


@pytest.fixture(scope="module")
def highs_answer():
    row = ROWS[NONTRIVIAL]
    return highs.solve(MODELS / row["mps"], time_limit=60, mip_gap=1e-6)


def test_checker_trusts_a_real_answer_from_a_file(highs_answer, tmp_path):
    path = solution_files.write_solution_csv(highs_answer, tmp_path / "s.csv")
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, path, strict=True)
    assert rep.trusted, rep.summary()
    assert rep.objective_recomputed == pytest.approx(ROWS[NONTRIVIAL]["highs_objective"], abs=1e-6)
    assert rep.inner_gap <= 1e-5 and rep.milp_violation <= 1e-6 and rep.verify_model_ok
    assert rep.n_given == ROWS[NONTRIVIAL]["columns"] and rep.unknown == []


def test_checker_reads_a_csv_whose_fields_are_all_quoted(highs_answer, tmp_path):
    # the objective row "objective","0.01" was read as a variable named objective: a wrong claim went unchecked
    import csv

    rows = list(csv.reader(solution_files.write_solution_csv(highs_answer, tmp_path / "s.csv").open()))
    assert rows[1][0] == "objective value"
    for claim, trusted in ((rows[1][1], True), ("0.01", False)):
        rows[1][1] = claim
        with (tmp_path / "q.csv").open("w", newline="") as fh:
            csv.writer(fh, quoting=csv.QUOTE_ALL).writerows(rows)
        rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, tmp_path / "q.csv", strict=True)
        assert rep.trusted is trusted and rep.objective_claimed == pytest.approx(float(claim)), rep.summary()
        assert rep.unknown == []


@pytest.mark.parametrize("text", ["", "this is not an LP file\n"])
def test_scip_runner_calls_a_file_without_a_model_an_error(tmp_path, text):
    # SCIP read these as an empty model and the runner reported optimal, objective 0
    pytest.importorskip("pyscipopt")
    path = tmp_path / "junk.lp"
    path.write_text(text)
    result = scip.solve(path)
    assert result.status == "error" and "objective sense" in result.message, result
    assert highs.solve(path).status == "error"  # as the HiGHS runner says


def test_checker_maps_lp_names_and_scip_sol_files(tmp_path):
    pytest.importorskip("pyscipopt")
    import pyscipopt

    row = ROWS[NONTRIVIAL]
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(MODELS / row["lp"]))
    m.optimize()
    sol = tmp_path / "scip.sol"
    m.writeBestSol(str(sol))  # SCIP's own .sol format, zeros omitted, Pyomo LP labels
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, sol, strict=True)
    assert rep.trusted, rep.summary()
    assert rep.objective_claimed == pytest.approx(row["highs_objective"], rel=1e-6)


def test_checker_rejects_a_follower_that_is_not_optimal(highs_answer):
    sol = _readable(highs_answer)
    sol["b"] += 0.3  # (w, b) no longer a training optimum at w_bar
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, sol)
    assert not rep.trusted and any("not a training optimum" in r for r in rep.reasons), rep.summary()


def test_checker_rejects_a_follower_whose_training_loss_is_below_the_least_at_w_bar():
    """The box test is in w-units and the follower test was one-sided: the exact optimum in the box widened by
    0.99 tolerance (found by scipy's linprog) lies within the box tolerance, yet its training loss is below
    any follower's at ``w_bar`` by 1.2 tolerances; it was TRUSTED. The exact optimum at ``w_bar`` still is."""
    from scipy.optimize import linprog

    tol = 1e-4
    split = library.build_instance(library.InstanceSpec.from_row(ROWS[NONTRIVIAL])).split
    X, y = split.X_train, split.y_train
    n, p = X.shape
    w_bar = np.full(p, 0.05)  # a box that binds: the least loss falls with it

    def follower(box):  # min mean xi s.t. xi_i >= 1 - y_i (x_i w - b), xi >= 0, |w| <= box; over (w, b, xi)
        A = np.hstack([-y[:, None] * X, y[:, None], -np.eye(n)])
        res = linprog(np.r_[np.zeros(p + 1), np.full(n, 1 / n)], A_ub=A, b_ub=-np.ones(n),
                      bounds=[(-c, c) for c in box] + [(None, None)] + [(0, None)] * n, method="highs")
        assert res.status == 0
        return {**{f"w_bar[{j}]": w_bar[j] for j in range(p)}, **{f"w[{j}]": res.x[j] for j in range(p)},
                "b": res.x[p]}, res.fun

    exact, least = follower(w_bar)
    wide, lower = follower(w_bar + 0.99 * tol)
    assert lower < least - tol  # the case: within the box tolerance, below the least loss by more than tol
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, wide, tolerance=tol)
    assert not rep.trusted and any("is below the least" in r and "outside the box" in r for r in rep.reasons), \
        rep.summary()
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, exact, tolerance=tol)
    assert rep.trusted, rep.summary()


def test_checker_rejects_a_wrong_claimed_objective_and_a_box_violation(highs_answer):
    sol = _readable(highs_answer)
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "objective": 0.001})
    assert not rep.trusted and any("claimed objective" in r for r in rep.reasons)
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "w_bar[0]": 1.5})
    assert not rep.trusted and any("w_bar leaves" in r for r in rep.reasons)


def test_checker_pessimistic_instance_trusts_highs_and_rejects_a_tampered_answer():
    row = ROWS["diabetes-pes-e0.2-n5-s0"]
    result = highs.solve(MODELS / row["mps"], time_limit=60, mip_gap=1e-6)
    rep = check_solution.check_solution(MANIFEST, row["id"], {**result.solution, "objective": result.objective},
                                        strict=True)
    assert rep.trusted and rep.budget is not None and rep.flipped_loss_min is not None, rep.summary()
    sol = _readable(result, row["id"])
    sol["w_bar[0]"] = 0.0  # shrink the box under the follower's w
    sol["w_bar[1]"] = 0.0
    rep = check_solution.check_solution(MANIFEST, row["id"], sol)
    assert not rep.trusted, rep.summary()


def test_checker_refuses_values_that_are_not_finite_or_not_one_value(highs_answer, tmp_path):
    """A claimed objective of nan or inf passed the objective test (every comparison with nan is false, and
    inf > inf is false), and a file's ``nan`` value was skipped, its variable then taken as 0: both were
    TRUSTED. Each such input is now an InputError naming the value."""
    sol = _readable(highs_answer)
    good = solution_files.write_solution_csv(highs_answer, tmp_path / "good.csv").read_text()
    check = check_solution.check_solution
    for claim in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(InputError, match="claimed objective"):
            check(MANIFEST, NONTRIVIAL, {**sol, "objective": claim})
    with pytest.raises(InputError, match="w\\[0\\]"):
        check(MANIFEST, NONTRIVIAL, {**sol, "w[0]": None})
    short = next(k for k in highs_answer.solution if check_solution.readable_name(
        k, library.read_name_map(MODELS / ROWS[NONTRIVIAL]["names"])) == "b")
    with pytest.raises(InputError, match="two values"):  # one variable under its short and readable name
        check(MANIFEST, NONTRIVIAL, {**highs_answer.solution, "b": highs_answer.solution[short] + 1})
    first = good.splitlines()[2].split(",")[0]  # the first variable row after the header and objective
    cases = {"nan value": good.replace(f"\n{first},", f"\n{first},nan\n{first}_old,"),
             "nan objective": good.replace("objective value,", "objective value,nan\nx_old,"),
             "inf objective": good.replace("objective value,", "objective value,inf\nx_old,"),
             "two values": good + f"{first},12345\n"}
    for case, text in cases.items():
        path = tmp_path / f"{case.replace(' ', '_')}.csv"
        path.write_text(text)
        with pytest.raises(InputError, match="not a finite number|two values"):
            check(MANIFEST, NONTRIVIAL, path)
    quoted = tmp_path / "quoted.csv"  # names quoted as a spreadsheet writes them
    quoted.write_text("\n".join(",".join(f'"{c}"' if k == 0 else c for k, c in enumerate(line.split(",")))
                                for line in good.splitlines()) + "\n")
    assert check(MANIFEST, NONTRIVIAL, quoted).trusted
    with pytest.raises(InputError, match="file path or a dict"):
        check(MANIFEST, NONTRIVIAL, list(sol.items()))
    for tol in (float("nan"), 0.0, -1e-5):
        with pytest.raises(InputError, match="tolerance"):
            check(MANIFEST, NONTRIVIAL, sol, tolerance=tol)


def test_checker_rejects_an_answer_that_buys_its_objective_with_the_tolerance():
    """Each test of the follower allows ``tol``: training loss within ``budget + tol``, flipped-label loss
    within ``tol`` of its least value at the budget. But the least flipped loss falls steeply as the budget
    grows (by the budget's multiplier), so a point using both allowances reached an objective 1.1e-4 below
    the proven optimum (10 times ``tol``) and was TRUSTED, with a note blaming the MILP. Such a point is now
    rejected: its objective is below the least any exact follower optimum at its ``w_bar`` reaches. The
    ``w_bar`` was found by a random search for a large budget multiplier."""
    import bilevel

    iid, tol = "diabetes-pes-e0-n10-s0", 1e-5
    built = library.build_instance(library.InstanceSpec.from_row(ROWS[iid]))
    s = built.split
    T, V, F = (s.X_train, s.y_train), (s.X_val, s.y_val), (s.X_val[built.flipped], -s.y_val[built.flipped])
    w_bar = np.array([0.0, 0.983963, 0.0, 0.996987, 0.992448, 0.976607, 0.0])
    budget = (1 + built.spec.epsilon) * bilevel.hinge_lp(w_bar, T).value
    flipped_min = bilevel.hinge_lp(w_bar, F, [(*T, budget)]).value
    lp = bilevel.hinge_lp(w_bar, V, [(*T, budget + 0.99 * tol), (*F, flipped_min + 0.99 * tol)])
    w, b = lp.w, lp.b
    assert bilevel.hinge(*T, w, b).mean() <= budget + tol and bilevel.hinge(*F, w, b).mean() <= flipped_min + tol
    objective = bilevel.hinge(*V, w, b).mean()
    assert objective < ROWS[iid]["highs_best_bound"] - 10 * tol  # better than the proven optimum
    sol = {**{f"w_bar[{j}]": w_bar[j] for j in range(len(w))}, **{f"w[{j}]": w[j] for j in range(len(w))}, "b": b}
    rep = check_solution.check_solution(MANIFEST, iid, sol, tolerance=tol)
    assert not rep.trusted and any("least any exact follower optimum" in r for r in rep.reasons), rep.summary()
    assert not any("the MILP or its solve is wrong" in n for n in rep.notes)


def test_checker_command_line_exit_codes(highs_answer, tmp_path, capsys):
    good = solution_files.write_solution_csv(highs_answer, tmp_path / "good.csv")
    assert check_solution.main([str(MANIFEST), NONTRIVIAL, str(good)]) == 0
    assert "TRUSTED" in capsys.readouterr().out
    bad = tmp_path / "bad.csv"
    bad.write_text(good.read_text().replace("objective value,", "objective value,1"))
    assert check_solution.main([str(MANIFEST), NONTRIVIAL, str(bad)]) == 1
    assert "REJECTED" in capsys.readouterr().out
    assert check_solution.main([str(MANIFEST), "no-such-instance", str(good)]) == 2
    other = tmp_path / "other.csv"
    other.write_text("foo,1\nbar,2\n")
    assert check_solution.main([str(MANIFEST), NONTRIVIAL, str(other)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 2


def _readable(result, instance=NONTRIVIAL) -> dict:
    """The run's solution with readable names (``w_bar[0]``), through the instance's name map."""
    names = library.read_name_map(MODELS / ROWS[instance]["names"])
    return {check_solution.readable_name(short, names): v for short, v in result.solution.items()}


# --------------------------------------------------------------------------------------------- compare


def test_compare_command_prints_the_table(capsys):
    code = compare.main([str(MANIFEST), "--solver", "highs", "--only", "*-opt-n5-*", "--only", NONTRIVIAL,
                         "--format", "both", "--check"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("| agree |") == 6 and out.count("trusted") == 6 and "| instance |" in out


def test_compare_flags_a_disagreement(tmp_path, capsys):
    rows = library.read_manifest(MANIFEST)
    for r in rows:
        for k in ("mps", "lp", "names"):
            r[k] = str(MODELS / r[k])
        if r["id"] == NONTRIVIAL:
            r["highs_objective"] = r["highs_best_bound"] = 0.05
    library.write_manifest(rows, tmp_path / "manifest.csv")
    code = compare.main([str(tmp_path / "manifest.csv"), "--only", NONTRIVIAL])
    assert code == 1 and "DISAGREE" in capsys.readouterr().out


def test_compare_orients_the_agreement_rule_by_the_file_sense(tmp_path):
    """A maximisation instance whose manifest row is open (incumbent 3, bound 4): HiGHS proves 3.5, which
    lies inside, so it 'closes' the instance; read as minimisation, 3.5 would be below the bound 4."""
    paths, optimum = _tiny_maximisation(tmp_path)
    row = {"id": "tiny-max", "data": "none", "mode": "optimistic", "mps": paths["mps"].name, "lp": paths["lp"].name,
           "highs_status": "time_limit", "highs_objective": 3.0, "highs_best_bound": 4.0}
    library.write_manifest([row], tmp_path / "manifest.csv")
    records = compare.compare(tmp_path / "manifest.csv", solvers=("highs",), formats=("mps", "lp"))
    assert [(r["status"], r["agreement"]) for r in records] == [("optimal", "closes")] * 2
    assert all(abs(r["objective"] - optimum) < 1e-9 for r in records)


def test_compare_exits_1_when_no_requested_solver_could_run(tmp_path, monkeypatch, capsys):
    """--solver cbc with BILEVEL_CBC naming a missing file (and a solver whose package is absent) exited 0, as if
    everything agreed; the rows and the CSV stay, one line on stderr names the unavailable solvers."""
    monkeypatch.setenv("BILEVEL_CBC", str(tmp_path / "no-cbc"))
    monkeypatch.setattr(scip, "available", lambda: False)
    out_csv = tmp_path / "c.csv"
    code = compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solver", "cbc", "--solver", "scip",
                         "--csv", str(out_csv)])
    captured = capsys.readouterr()
    assert code == 1, captured
    lines = [line for line in captured.err.splitlines() if "no solver could run" in line]
    assert len(lines) == 1 and "cbc" in lines[0] and "scip" in lines[0], captured.err
    assert captured.out.count("| unavailable |") == 2
    with open(out_csv, newline="", encoding="utf-8") as fh:
        assert [r["status"] for r in csv.DictReader(fh)] == ["unavailable"] * 2
    # one solver that runs is a comparison: exit 0, no such line
    code = compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solver", "cbc", "--solver", "highs"])
    captured = capsys.readouterr()
    assert code == 0 and "no solver could run" not in captured.err, captured


def test_compare_exits_1_when_no_row_has_a_highs_result_to_compare_with(tmp_path, capsys):
    """A library exported with --no-solve: every row n/a, and exit 0 as if all had agreed (found by an audit). One
    row with a HiGHS result beside it is a comparison: exit 0."""
    rows = [dict(r) for r in library.read_manifest(MANIFEST) if r["id"] in ("cancer-opt-n5-s0", "diabetes-opt-n5-s0")]
    for r in rows:
        for k in ("mps", "lp", "names"):
            r[k] = str(MODELS / r[k])
    kept = {k: rows[0][k] for k in ("highs_status", "highs_objective", "highs_best_bound")}
    for r in rows:
        r.update(highs_status=None, highs_objective=None, highs_best_bound=None)
    manifest = tmp_path / "manifest.csv"
    library.write_manifest(rows, manifest)
    code = compare.main([str(manifest)])
    captured = capsys.readouterr()
    assert code == 1 and "no selected instance has a HiGHS result in the manifest" in captured.err, captured
    assert captured.out.count("| n/a |") == 2
    rows[0].update(kept)
    library.write_manifest(rows, manifest)
    code = compare.main([str(manifest)])
    captured = capsys.readouterr()
    assert code == 0 and "HiGHS result" not in captured.err, captured


def test_compare_exits_1_when_every_instance_file_is_missing_or_changed(tmp_path, capsys):
    """Every selected file absent (--only 'cancer-*-n20-*' before bilevel export-library) or differing from the
    manifest's sha256 exited 0: nothing was compared. The rows and the CSV stay, one line on stderr says why; some
    files missing beside a solved one stays exit code 0."""
    rows = [dict(r) for r in library.read_manifest(MANIFEST) if r["id"] in ("cancer-opt-n5-s0", "cancer-opt-n10-s0")]
    for r in rows:
        for k in ("mps", "lp", "names"):
            r[k] = str(MODELS / r[k])
    kept, cut = rows[0]["mps"], tmp_path / "cut.mps"
    cut.write_bytes(Path(kept).read_bytes()[:1000])
    manifest, out_csv = tmp_path / "manifest.csv", tmp_path / "c.csv"
    cases = (([str(tmp_path / "none.mps")] * 2, "2 missing"), ([str(cut)] * 2, "2 differ from the manifest's sha256"),
             ([str(tmp_path / "none.mps"), str(cut)], "1 missing (regenerate with bilevel export-library) and 1 "
              "differ"))
    for paths, said in cases:
        for r, path in zip(rows, paths):
            r["mps"] = path
        library.write_manifest(rows, manifest)
        code = compare.main([str(manifest), "--csv", str(out_csv)])
        captured = capsys.readouterr()
        lines = [line for line in captured.err.splitlines() if "nothing was compared" in line]
        assert code == 1 and len(lines) == 1 and said in lines[0], captured.err
        assert captured.out.count("| highs |") == 2
        with open(out_csv, newline="", encoding="utf-8") as fh:
            assert len(list(csv.DictReader(fh))) == 2
    rows[0]["mps"], rows[1]["mps"] = kept, str(tmp_path / "none.mps")  # one solved, one missing: as before
    library.write_manifest(rows, manifest)
    code = compare.main([str(manifest)])
    captured = capsys.readouterr()
    assert code == 0 and "nothing was compared" not in captured.err and "| missing |" in captured.out, captured
    rows[1]["mps"] = str(cut)  # one solved, one changed since its export: exit code 1, the changed row counted
    library.write_manifest(rows, manifest)
    code = compare.main([str(manifest)])
    captured = capsys.readouterr()
    assert code == 1 and "nothing was compared" not in captured.err, captured
    assert "1 disagreement(s), rejected solution(s), failed check(s), solver error(s) or changed file(s)" in \
        captured.out, captured


def test_compare_exits_1_when_a_solver_ends_in_error_beside_an_agreeing_one(monkeypatch, capsys):
    """A solver's status "error" (CBC misread the file, returned an infeasible point) beside a solver that agreed
    exited 0: the error row's agreement is "n/a", which the exit code did not count."""
    monkeypatch.setattr(scip, "available", lambda: True)
    monkeypatch.setattr(scip, "solve", lambda path, **kw: common.RunResult(
        "scip", str(path), "error", message="misread the file"))
    code = compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solver", "highs", "--solver", "scip"])
    captured = capsys.readouterr()
    assert code == 1 and "| error |" in captured.out and "solver error(s)" in captured.out, captured
    code = compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solver", "highs"])
    assert code == 0, capsys.readouterr()


@pytest.mark.parametrize("cell", ["{} ", " {}"])
def test_a_file_name_with_spaces_around_it_is_named_as_such(cell, tmp_path):
    """A manifest cell ``'x.mps '`` whose file ``x.mps`` is there: compare said only "missing ... regenerate with
    bilevel export-library". The record is still ``missing`` (a file name may hold spaces, so the cell is not
    refused), with the advice to remove the spaces; without the spaces the same file is solved (the oracle)."""
    manifest = _library_copy(tmp_path, NONTRIVIAL)
    (row,) = library.read_manifest(manifest)
    library.write_manifest([dict(row, mps=cell.format(row["mps"]))], manifest)
    (rec,) = compare.compare(manifest, ["highs"], ["mps"], time_limit=30.0)
    assert rec["status"] == "missing"
    assert f"file name {cell.format(row['mps'])!r} has spaces around it; {row['mps']!r} exists" in rec["message"]
    library.write_manifest([row], manifest)
    (rec,) = compare.compare(manifest, ["highs"], ["mps"], time_limit=30.0)
    assert rec["status"] == "optimal" and rec["agreement"] == "agree", rec
    (tmp_path / row["mps"]).unlink()  # really missing: the export advice, as before
    (rec,) = compare.compare(manifest, ["highs"], ["mps"], time_limit=30.0)
    assert rec["status"] == "missing" and rec["message"] == "regenerate with bilevel export-library"


def test_an_instance_id_listed_twice_is_refused(tmp_path, capsys):
    """Two manifest rows with one id: compare wrote both rows' solutions to one file and checked the second row's
    HiGHS optimum against the first row's instance (rejected: "w leaves the box ... by 0.775"), and check_solution
    took the first row."""
    rows = library.read_manifest(MANIFEST)
    first, second = (dict(r) for r in rows if r["id"] in ("cancer-opt-n5-s0", "cancer-pes-e0-n5-s0"))
    for r in (first, second):
        for k in ("mps", "lp", "names"):
            r[k] = str(MODELS / r[k])
    second["id"] = first["id"]
    library.write_manifest([first, second], tmp_path / "manifest.csv")
    solutions = tmp_path / "solutions"
    assert compare.main([str(tmp_path / "manifest.csv"), "--check", "--solutions", str(solutions)]) == 2
    err = capsys.readouterr().err
    assert "'cancer-opt-n5-s0' more than once" in err and not list(solutions.glob("*.csv")), err
    with pytest.raises(InputError, match="'cancer-opt-n5-s0' more than once; ids must be unique"):
        check_solution.check_solution(tmp_path / "manifest.csv", "cancer-opt-n5-s0", {"b": 0.0})
    # each row alone: its own HiGHS optimum is trusted (the rows are different instances)
    for row in (first, second):
        library.write_manifest([row], tmp_path / "one.csv")
        records = compare.compare(tmp_path / "one.csv", ["highs"], ["mps"], time_limit=30.0, check=True)
        assert [r["check"] for r in records] == ["trusted"], records


@pytest.mark.parametrize("bad_id", ["sub/x", "../escaped", "ABSOLUTE", "a\\b"])
def test_an_instance_id_with_a_path_separator_is_refused(tmp_path, capsys, bad_id):
    """compare names each solution file after its id: 'sub/x' wrote into a subfolder of --solutions, '../escaped'
    and an absolute path outside it (exit 0)."""
    bad_id = str(tmp_path / "abs") if bad_id == "ABSOLUTE" else bad_id
    row = dict(ROWS["cancer-opt-n5-s0"], id=bad_id)
    for k in ("mps", "lp", "names"):
        row[k] = str(MODELS / row[k])
    good = dict(row, id="cancer-opt-n5-s0")
    library.write_manifest([good, row], tmp_path / "manifest.csv")
    solutions = tmp_path / "out" / "solutions"
    assert compare.main([str(tmp_path / "manifest.csv"), "--solutions", str(solutions)]) == 2
    err = capsys.readouterr().err
    assert f"the instance id {bad_id!r} holds a path separator" in err, err
    assert not list(tmp_path.rglob("*.highs.csv")), list(tmp_path.rglob("*"))


def test_compare_bad_input_exit_2(capsys):
    assert compare.main([str(MANIFEST), "--only", "nothing"]) == 2
    assert compare.main([str(MANIFEST), "--solver", "mosek"]) == 2
    assert compare.main([str(ROOT / "nope.csv")]) == 2
    for flags in (["--mip-gap", "-1"], ["--mip-gap", "5"], ["--rtol", "-1"], ["--atol", "-0.1"]):
        assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", *flags]) == 2, flags
        assert flags[0] in capsys.readouterr().err


def test_an_infinite_tolerance_is_refused_it_called_equal_optima_disagree(capsys):
    # --rtol inf ("any objective will do") made atol + inf * max(|0|, |0|) = nan: the optima 0 and 0 were a DISAGREE
    # (exit code 1); --rtol nan and negative tolerances reached compare() too when called directly
    for flags in (["--rtol", "inf"], ["--atol", "inf"], ["--rtol", "nan"]):
        assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", *flags]) == 2, flags
        err = capsys.readouterr().err
        assert flags[0] in err and "finite" in err, err
    for kw in ({"rtol": float("inf")}, {"atol": -1.0}, {"rtol": float("nan")}):
        with pytest.raises(InputError, match=next(iter(kw))):
            compare.compare(MANIFEST, patterns=["cancer-opt-n5-s0"], **kw)


def test_a_solver_named_twice_is_refused(tmp_path, capsys):
    # --solver highs --solver HiGHS solved every instance twice with HiGHS: two rows each, disagreements counted twice
    csv_path = tmp_path / "c.csv"
    assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solver", "highs", "--solver", "HiGHS",
                         "--csv", str(csv_path)]) == 2
    err = capsys.readouterr().err
    assert "--solver names highs more than once" in err and not csv_path.exists(), err


def test_a_manifest_cell_that_does_not_parse_is_an_input_error(tmp_path, capsys):
    # read_manifest raised a plain ValueError from int("five"), a traceback in compare and check_solution
    text = MANIFEST.read_text().splitlines()
    header = text[0].split(",")
    cells = text[1].split(",")
    cells[header.index("n_train")] = "five"
    bad = tmp_path / "manifest.csv"
    bad.write_text("\n".join([text[0], ",".join(cells)]) + "\n")
    with pytest.raises(InputError, match="'n_train' must hold an integer, got 'five'"):
        library.read_manifest(bad)
    assert compare.main([str(bad)]) == 2
    assert "n_train" in capsys.readouterr().err


def test_a_cplex_xml_solution_with_a_byte_order_mark(tmp_path):
    """"\ufeff<?xml" was not recognised as XML: the line parser found no 'name value' line."""
    values = {"w_bar(0)": 1.0, "b": -0.5}
    path = tmp_path / "cplex.sol"
    path.write_bytes(b"\xef\xbb\xbf"
                     + ('<?xml version = "1.0" encoding="UTF-8"?>\n' + _cplex_xml(values, 0.25)).encode())
    assert solution_files.read_solution_file(path) == (values, 0.25)


def test_cbc_reads_an_instance_whose_suffix_is_upper_case(tmp_path):
    """The runners take ``.LP`` and ``.MPS`` (any case); CBC 2.10 reads a file as LP only for a lower-case
    ``.lp`` and reported ``model.LP`` as "There were -2 errors on input" (status error). The same bytes under an
    upper-case suffix must reach the manifest optimum, as HiGHS's runner does on them."""
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")
    row = ROWS[NONTRIVIAL]
    for fmt in ("lp", "mps"):
        path = tmp_path / f"{NONTRIVIAL}.{fmt.upper()}"
        path.write_bytes((MODELS / row[fmt]).read_bytes())
        _assert_reaches_manifest(highs.solve(path, mip_gap=1e-9), row)
        _assert_reaches_manifest(cbc.solve(path, mip_gap=1e-9), row)


def test_write_solution_csv_failing_midway_leaves_the_earlier_file_whole(tmp_path):
    """The incumbent was written in place: a write stopped midway (here a value that is no number; a full disk,
    Ctrl-C) left a file cut short, whose missing variables a check then took as 0."""
    from solvers.common import RunResult

    path = tmp_path / "s.csv"
    path.write_text("name,value\nobjective,0.5\nC0,1.0\n")
    bad = RunResult("highs", "x.mps", "optimal", objective=0.25, solution={"C0": 2.0, "C1": "oops"})
    with pytest.raises(ValueError):
        solution_files.write_solution_csv(bad, path)
    assert solution_files.read_solution_file(path) == ({"C0": 1.0}, 0.5)
    assert [p.name for p in tmp_path.iterdir()] == ["s.csv"]
    good = RunResult("highs", "x.mps", "optimal", objective=0.25, solution={"C0": 2.0, "C1": 3.0})
    solution_files.write_solution_csv(good, path)
    assert solution_files.read_solution_file(path) == ({"C0": 2.0, "C1": 3.0}, 0.25)


def test_a_written_solution_csv_reads_back_as_the_incumbent_it_holds(tmp_path):
    """write_solution_csv quotes a name holding a comma or a quote (legal in LP and free MPS names); the reader
    took the file line by line: '"x,1",2.0' was refused as a decimal comma, '"a""b",3' read as a variable 'ab'
    and '#h,4' skipped as a comment, so the package's own --solutions file did not read back as its incumbent
    (the csv module is the oracle of what the file holds)."""
    import csv

    solution = {"x,1": 2.0, "y": 1.0, 'a"b': 3.0, "#h": 4.0, "z": 0.1 + 0.2, "w[0]": -1e-300}
    result = common.RunResult("highs", "m.lp", "optimal", objective=1.5, solution=solution)
    path = solution_files.write_solution_csv(result, tmp_path / "s.csv")
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["name", "value"] and rows[1] == ["objective value", repr(1.5)]
    assert {name: float(v) for name, v in rows[2:]} == solution
    values, objective = solution_files.read_solution_file(path)
    assert values == solution and objective == 1.5


def test_comparison_and_solution_csvs_are_utf8_whatever_the_locale(tmp_path):
    """Written in the locale's encoding, an instance id or a variable name outside ASCII raised
    UnicodeEncodeError in an ASCII locale (LC_ALL=C without UTF-8 mode) after every solve had run, and the
    reader, which reads UTF-8, could not take back what a cp1252 locale wrote."""
    from ascii_locale import run_in_ascii_locale

    code = (
        "from pathlib import Path\n"
        "from solvers import common, compare, solution_files\n"
        "out = Path(sys.argv[2])\n"
        "compare.write_csv([{'instance': '\\u03c1-1', 'status': 'optimal', 'objective': 0.5}], out / 'c.csv')\n"
        "res = common.RunResult('highs', 'm.lp', 'optimal', objective=0.5, solution={'x_\\u00e9': 1.5, 'y': 2.0})\n"
        "path = solution_files.write_solution_csv(res, out / 's.csv')\n"
        "assert solution_files.read_solution_file(path) == ({'x_\\u00e9': 1.5, 'y': 2.0}, 0.5)\n"
    )
    proc = run_in_ascii_locale(code, str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-600:]
    assert (tmp_path / "c.csv").read_text(encoding="utf-8").splitlines()[1] == "ρ-1,optimal,0.5"


def test_compare_table_keeps_a_bar_in_a_cell_within_its_column():
    # A "|" in a solver's status or a check's reason split its cell: the row had more cells than the header.
    import re

    record = dict(instance="cancer-opt-n5-s0", format="mps", solver="scip", status="error: a|b\nsecond line",
                  objective=0.5, bound=0.5, seconds=1.0, manifest_status="optimal", manifest_objective=0.5,
                  agreement="agree", check="rejected: row R3 | violated")
    lines = common.format_table([record]).splitlines()
    cells = [re.split(r"(?<!\\)\|", line) for line in lines]
    assert len(lines) == 3 and len({len(c) for c in cells}) == 1
    assert "error: a\\|b second line" in lines[2] and "rejected: row R3 \\| violated" in lines[2]


def test_agreement_tolerance_is_relative_to_the_larger_objective():
    """``|a - b| <= atol + rtol max(|a|, |b|)`` (mutation testing: a 100 times looser rtol, and min for max,
    passed the suite, whose disagreeing objectives were 2 % apart)."""
    opt = {"highs_status": "optimal", "highs_objective": 0.5, "highs_best_bound": 0.5}
    assert common.agreement(opt, _res("optimal", 0.50002, 0.50002)) == "agree"  # 4e-5 relative
    assert common.agreement(opt, _res("optimal", 0.5005, 0.5005)) == "DISAGREE"  # 1e-3 relative
    # a - b between rtol * min and rtol * max of the two
    assert common.close(1.0, 1.000100005, rtol=1e-4, atol=0.0)
    assert not common.close(1.0, 1.000100005, rtol=1e-5, atol=0.0)


def test_read_solution_file_refuses_a_highs_solution_with_fewer_columns_than_it_declares(tmp_path):
    """A HiGHS solution cut inside its column values: the missing columns would count as 0 (mutation testing: the
    count check switched off passed the suite)."""
    from oracles import highs_solution_file

    path = highs_solution_file(tmp_path / "highs.sol", 0)
    lines = path.read_text().splitlines()
    assert solution_files.read_solution_file(path)[0] == pytest.approx({"x0": 1.0, "x1": 0.0})
    cut = tmp_path / "cut.sol"
    cut.write_text("\n".join(line for line in lines if not line.startswith("x1 ")) + "\n")
    with pytest.raises(InputError, match="declares 2 columns but gives 1"):
        solution_files.read_solution_file(cut)


def test_checker_rejects_a_box_excess_and_an_inner_gap_of_ten_tolerances(highs_answer):
    """With the default tolerance 1e-5, ``w`` outside its box by 1e-4, and ``b`` moved so that the training loss
    exceeds the least (0 here) by 1e-4, are each rejected for that reason (mutation testing: either tolerance 100
    times looser passed the suite, whose tampered answers were far off)."""
    sol = _readable(highs_answer)
    assert sol["w[3]"] == pytest.approx(-1.0) and sol["w_bar[3]"] == pytest.approx(1.0)
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "w[3]": -1.0001})
    assert not rep.trusted and any(r.startswith("w leaves the box") for r in rep.reasons), rep.summary()
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "b": sol["b"] + 1e-3})
    built = library.build_instance(library.InstanceSpec.from_row(ROWS[NONTRIVIAL]))
    X, y = built.split.X_train, built.split.y_train
    w = np.array([sol.get(f"w[{j}]", 0.0) for j in range(X.shape[1])])
    loss = np.maximum(0.0, 1 - y * (X @ w - (sol["b"] + 1e-3))).mean()  # numpy (the paper: y (x^T w - b))
    assert rep.train_loss_min == pytest.approx(0.0, abs=1e-9) and loss == pytest.approx(rep.train_loss)
    assert loss > 5e-5
    assert not rep.trusted and any("not a training optimum" in r for r in rep.reasons), rep.summary()


def test_checker_rejects_a_claim_and_a_w_bar_off_by_ten_tolerances(highs_answer):
    """A claimed objective 1e-4 off the recomputed one, and ``w_bar`` 1e-4 above its box, with the default
    tolerance 1e-5 (mutation testing: both tolerances 100 times looser passed the suite, whose claim was 0.001
    against about 0.1 and whose w_bar was 1.5 in [0, 1]). The claim is also checked 3 tolerances off (rejected)
    and 0.3 off (no claim reason): the objective is about 0.04, where a relative tolerance of 1e-3 instead of
    1e-6 had let a claim 1e-4 off be rejected but 3e-5 off pass."""
    sol = _readable(highs_answer)
    true = check_solution.check_solution(MANIFEST, NONTRIVIAL, sol).objective_recomputed
    for off, rejected in ((1e-4, True), (3e-5, True), (3e-6, False)):
        rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "objective": true + off})
        assert any("claimed objective" in r for r in rep.reasons) is rejected, (off, rep.summary())
        assert rep.trusted is not rejected, (off, rep.summary())
    assert sol["w_bar[3]"] == pytest.approx(1.0)
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**sol, "w_bar[3]": 1.0001})
    assert not rep.trusted and any(r.startswith("w_bar leaves") for r in rep.reasons), rep.summary()


def test_checker_measures_a_fractional_binary_in_the_milp_vector(highs_answer):
    """A binary column at 0.5 violates integrality by 0.5: the MILP-vector check must see it, and --strict
    reject it (mutation testing: the integrality term dropped passed the suite)."""
    arrays = library.read_instance_arrays(MODELS / ROWS[NONTRIVIAL]["mps"])
    short = arrays["col_names"][int(np.nonzero(arrays["integer"])[0][0])]
    sol = {**highs_answer.solution, short: 0.5}
    rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, sol, strict=True)
    assert rep.milp_violation >= 0.5 and not rep.trusted
    assert any("violates the instance's rows/bounds/integrality" in r for r in rep.reasons), rep.summary()


def _follower_linprog(X, y, w_bar, budget=None):
    """``(w, b, least)`` minimising the mean hinge of ``(X, y)`` over ``|w| <= w_bar``, with the mean training
    hinge at most ``budget[2]`` when ``budget = (X_t, y_t, c)``: scipy's linprog, independent of the checker's
    inner LP (:func:`bilevel.hinge_lp`). Variables ``(w, b, xi, [xi_t])``."""
    from scipy import sparse
    from scipy.optimize import linprog

    n, p = X.shape
    blocks = [(X, y)] + ([budget[:2]] if budget is not None else [])
    sizes = [len(b[1]) for b in blocks]
    total = p + 1 + sum(sizes)
    rows, rhs, start = [], [], p + 1
    for (Xb, yb), m in zip(blocks, sizes):  # xi_i >= 1 - y_i (x_i w - b)
        slack = sparse.hstack([sparse.csr_matrix((m, start)), -sparse.eye(m),
                               sparse.csr_matrix((m, total - start - m))])
        rows.append(sparse.hstack([sparse.csr_matrix(-yb[:, None] * Xb), sparse.csr_matrix(yb[:, None]),
                                   sparse.csr_matrix((m, total - p - 1))]) + slack)
        rhs.append(-np.ones(m))
        start += m
    if budget is not None:  # mean xi_t <= c
        rows.append(sparse.csr_matrix(np.r_[np.zeros(p + 1 + n), np.full(sizes[1], 1 / sizes[1])][None, :]))
        rhs.append([budget[2]])
    cost = np.r_[np.zeros(p + 1), np.full(n, 1 / n), np.zeros(total - p - 1 - n)]
    res = linprog(cost, A_ub=sparse.vstack(rows), b_ub=np.concatenate(rhs),
                  bounds=[(-c, c) for c in w_bar] + [(None, None)] + [(0, None)] * (total - p - 1), method="highs")
    assert res.status == 0, res.message
    return res.x[:p], res.x[p], res.fun


def _pessimistic_case(iid="diabetes-pes-e0.2-n10-s0"):
    """The training and flipped-label blocks of ``iid``, a ``w_bar`` (about the HiGHS optimum's), the budget
    ``(1 + epsilon) v*(w_bar)``, and the follower's exact optimum there, each from scipy's linprog."""
    built = library.build_instance(library.InstanceSpec.from_row(ROWS[iid]))
    s = built.split
    T, F = (s.X_train, s.y_train), (s.X_val[built.flipped], -s.y_val[built.flipped])
    w_bar = np.array([0.0, 0.15, 0.72, 1.0, 1.0, 0.41, 0.81])
    budget = (1 + built.spec.epsilon) * _follower_linprog(*T, w_bar)[2]
    w, b, least = _follower_linprog(*F, w_bar, (*T, budget))
    return T, F, w_bar, budget, (w, b, least)


def _point(w_bar, w, b):
    return {**{f"w_bar[{j}]": w_bar[j] for j in range(len(w))}, **{f"w[{j}]": w[j] for j in range(len(w))}, "b": b}


def test_pessimistic_checker_rejects_a_budget_excess_of_ten_tolerances_and_trusts_a_tenth():
    """The follower's best flipped-label point under the budget plus ``e`` (scipy's linprog) uses all of ``e``;
    with the default tolerance 1e-5 it is rejected for the budget at ``e`` = 1e-4 and trusted at 1e-6 (mutation
    K4: the budget test's tolerance 100 times looser passed the suite)."""
    T, F, w_bar, budget, _ = _pessimistic_case()
    for excess, trusted in ((1e-4, False), (1e-6, True)):
        w, b, _ = _follower_linprog(*F, w_bar, (*T, budget + excess))
        assert np.mean(np.maximum(0, 1 - T[1] * (T[0] @ w - b))) == pytest.approx(budget + excess, abs=1e-9)
        rep = check_solution.check_solution(MANIFEST, "diabetes-pes-e0.2-n10-s0", _point(w_bar, w, b))
        assert rep.budget == pytest.approx(budget, abs=1e-9)
        assert rep.trusted is trusted, rep.summary()
        assert trusted or any("exceeds the budget" in r for r in rep.reasons), rep.summary()


def test_pessimistic_checker_rejects_an_inner_gap_of_ten_tolerances_and_trusts_a_tenth():
    """On the segment from the follower's exact optimum (flipped-label loss least under the budget) to the
    training optimum (within the budget), the points whose flipped-label loss exceeds the least by ``e`` (found by
    bisection; the training loss, convex, stays within the budget): with the default tolerance 1e-5 rejected as
    not the follower's optimum at ``e`` = 1e-4, trusted at 1e-6 (mutation K3: the pessimistic inner-gap
    tolerance 100 times looser passed the suite)."""
    from scipy.optimize import brentq

    T, F, w_bar, budget, (w0, b0, least) = _pessimistic_case()
    w1, b1, _ = _follower_linprog(*T, w_bar)
    flipped = lambda w, b: np.mean(np.maximum(0, 1 - F[1] * (F[0] @ w - b)))  # noqa: E731
    assert flipped(w1, b1) > least + 1e-3
    for gap, trusted in ((1e-4, False), (1e-6, True)):
        t = brentq(lambda t: flipped((1 - t) * w0 + t * w1, (1 - t) * b0 + t * b1) - least - gap, 0, 1, xtol=1e-15)
        w, b = (1 - t) * w0 + t * w1, (1 - t) * b0 + t * b1
        rep = check_solution.check_solution(MANIFEST, "diabetes-pes-e0.2-n10-s0", _point(w_bar, w, b))
        assert rep.inner_gap == pytest.approx(gap, rel=1e-3) and rep.train_loss <= budget + 1e-12
        assert rep.trusted is trusted, rep.summary()
        assert trusted or any("not the follower's optimum" in r for r in rep.reasons), rep.summary()


def test_strict_checker_rejects_a_milp_violation_of_ten_tolerances_and_trusts_a_tenth(highs_answer):
    """A column outside the (w_bar, w, b) the bilevel checks read (``g[0]``, at its lower bound 0 in HiGHS's
    answer) moved below 0: by 1e-4 the MILP vector violates the file by at least that and --strict rejects it;
    by 1e-7 it is trusted (mutation K9: the strict threshold 100 times looser passed the suite)."""
    names = library.read_name_map(MODELS / ROWS[NONTRIVIAL]["names"])
    short = next(s for s, (kind, name) in names.items() if name == "g[0]")
    arrays = library.read_instance_arrays(MODELS / ROWS[NONTRIVIAL]["mps"])
    assert arrays["col_lower"][arrays["col_names"].index(short)] == 0 and highs_answer.solution[short] == 0
    for below, trusted in ((1e-4, False), (1e-7, True)):
        rep = check_solution.check_solution(MANIFEST, NONTRIVIAL, {**highs_answer.solution, short: -below},
                                            strict=True)
        assert rep.milp_violation >= below
        assert rep.trusted is trusted, rep.summary()
        assert trusted or any("violates the instance's rows/bounds" in r for r in rep.reasons), rep.summary()


def test_milp_vector_check_measures_each_bound_and_row_side(tmp_path):
    """A hand-made MPS, min x + y s.t. x + y >= 1, x - y <= 1, 0 <= x <= 2, -1 <= y <= 3: each point violates
    one side by a known amount, scaled by ``1 + |side|`` (mutations K10, K13: the column-upper-bound term and
    the row-lower-side term dropped passed the suite)."""
    mps = tmp_path / "t.mps"
    mps.write_text("NAME t\nROWS\n N OBJ\n G R0\n L R1\nCOLUMNS\n    C0 OBJ 1 R0 1\n    C0 R1 1\n"
                   "    C1 OBJ 1 R0 1\n    C1 R1 -1\nRHS\n    RHS R0 1 R1 1\nBOUNDS\n UP BND C0 2\n"
                   " LO BND C1 -1\n UP BND C1 3\nENDATA\n")
    names = {"C0": ("col", "x"), "C1": ("col", "y"), "R0": ("row", "r0"), "R1": ("row", "r1")}
    row = {"id": "t", "mps": "t.mps"}
    cases = [((0.5, 0.5), 0.0),
             ((2.5, 2.0), 0.5 / 3),  # x above its upper bound 2
             ((0.25, 0.25), 0.5 / 2),  # the row x + y below its lower side 1
             ((-0.5, 2.0), 0.5 / 1),  # x below its lower bound 0
             ((1.0, 3.5), 0.5 / 4),  # y above its upper bound 3
             ((2.0, 0.4), 0.6 / 2)]  # the row x - y above its upper side 1
    for (x, y), expected in cases:
        rep = check_solution.CheckReport(instance="t", trusted=False)
        check_solution._milp_checks(rep, row, tmp_path / "manifest.csv", names, {"x": x, "y": y}, 1e-5)
        assert rep.milp_violation == pytest.approx(expected, abs=1e-12), (x, y)


def test_a_column_named_objective_reads_back_from_the_solution_csv(tmp_path):
    """A column named ``objective`` (legal in LP and MPS) was written as a second ``objective`` row after the
    claim: read back, the variable was lost (taken as 0) and its value became the claimed objective. Oracle:
    HiGHS solving the LP file min objective + y s.t. objective + y >= 3, objective >= 2."""
    lp = tmp_path / "m.lp"
    lp.write_text("minimize\n obj: objective + y\nsubject to\n c1: objective + y >= 3\nbounds\n"
                  " objective >= 2\n y >= 0\nend\n")
    result = highs.solve(lp)
    assert result.status == "optimal" and set(result.solution) == {"objective", "y"}
    path = solution_files.write_solution_csv(result, tmp_path / "s.csv")
    values, claim = solution_files.read_solution_file(path)
    assert values == result.solution and claim == result.objective
    assert claim == pytest.approx(3.0) and values["objective"] >= 2 - 1e-9
    old = tmp_path / "old.csv"  # a file as the writer wrote it before, and other writers' files: still the claim
    old.write_text("name,value\nobjective,3.0\ny,1.0\n")
    assert solution_files.read_solution_file(old) == ({"y": 1.0}, 3.0)


def test_manifest_statuses_follow_every_highs_status_of_the_installed_highspy():
    """The statuses a manifest may hold are read from highspy (they were a copied list): every
    ``HighsModelStatus``'s string is accepted, the five the library names map to the runners' words, and every
    word :func:`bilevel.library.solve_instance` writes is accepted too."""
    import highspy

    from bilevel.highs_run import MANIFEST_STATUS_WORDS, silent_highs
    h = silent_highs()
    strings = {s: h.modelStatusToString(s) for s in highspy.HighsModelStatus.__members__.values()}
    assert len(set(strings.values())) == len(strings) >= 20
    for status, text in strings.items():
        expected = {"unbounded_or_infeasible": "infeasible_or_unbounded"}.get(
            MANIFEST_STATUS_WORDS.get(status, text), MANIFEST_STATUS_WORDS.get(status, text))
        assert common.manifest_status(text) == expected
        assert common.manifest_status(MANIFEST_STATUS_WORDS.get(status, text)) == expected
    assert common.manifest_status("Primal infeasible or unbounded") == "infeasible_or_unbounded"
    assert common.manifest_status("Time limit reached") == "time_limit"
    assert set(common.manifest_statuses().values()) - set(strings.values()) <= set(common.STATUSES)
    with pytest.raises(InputError, match="is not a status a manifest holds"):
        common.manifest_status("optimal ")  # no near-misses


def test_a_name_map_whose_columns_are_not_in_the_mps_is_refused(highs_answer, tmp_path):
    """A map whose short column names the .mps lacks (here renamed C -> Z, its checksum cell emptied) met no column
    of the file: the zero vector was scored (a right answer REJECTED). Now an InputError names the mismatch; the
    same answer with the file's own map is trusted (the oracle that the check can pass)."""
    manifest = _library_copy(tmp_path, NONTRIVIAL)
    names = tmp_path / ROWS[NONTRIVIAL]["names"]
    short_map = library.read_name_map(names)
    readable = {short_map[k][1] if k in short_map else k: v for k, v in highs_answer.solution.items()}
    answer = dict(readable, objective=highs_answer.objective)
    assert check_solution.check_solution(manifest, NONTRIVIAL, answer).trusted
    renamed = {("Z" + s[1:] if kind == "col" else s): (kind, name) for s, (kind, name) in short_map.items()}
    with names.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["kind", "short", "name"])
        writer.writerows([kind, short, name] for short, (kind, name) in renamed.items())
    _edit_first_row(manifest, lambda r: {"names_sha256": ""})
    with pytest.raises(InputError, match=r"none of the solution's variables is a column of .* under the name map"):
        check_solution.check_solution(manifest, NONTRIVIAL, answer)
