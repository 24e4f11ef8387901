"""Gurobi-specific checks of solvers/gurobi.py. The tests it shares with the Xpress runner are in
tests/test_gurobi_xpress_runners.py (the committed instances against the manifest and the checker, small LP
files, a time limit, the license's variable limit, unreadable files, silence). Here: hand-written MPS and
Pyomo-written models in both formats against enumeration and the HiGHS runner, statuses with dual reductions
off and one the runner has no name for, time limits of 0, -1 and inf, a stopped run that keeps its
incumbent, the license's constraint limit, files Gurobi would read as other models, and the ``unavailable``
path. Skipped without gurobipy or a usable license."""
from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bilevel import library
from solvers import common, gurobi, highs

# after bilevel: Pyomo 6.10 fails to import pyomo.environ when gurobipy < 12 was imported before it
pytest.importorskip("gurobipy")
if not gurobi.available():
    pytest.skip(f"Gurobi does not start: {gurobi._license_problem()}", allow_module_level=True)

MODELS = Path(__file__).resolve().parents[1] / "models"
ROWS = {r["id"]: r for r in library.read_manifest(MODELS / "manifest.csv")}
HARD = "diabetes-pes-e0.2-n10-s0"  # Gurobi needs about 1 s and hundreds of nodes

#: max x + y  s.t. 2x + 3y <= 12, x - y <= 2, x, y integer in [0, 10], as free MPS with OBJSENSE MAX.
MAX_MPS = """NAME maxm
OBJSENSE
    MAX
ROWS
 N obj
 L c1
 L c2
COLUMNS
    MARKER 'MARKER' 'INTORG'
    x obj 1 c1 2
    x c2 1
    y obj 1 c1 3
    y c2 -1
    MARKER 'MARKER' 'INTEND'
RHS
    rhs c1 12 c2 2
BOUNDS
 UP bnd x 10
 UP bnd y 10
ENDATA
"""
#: 2x + 2y = 1 with x, y binary: the LP relaxation is feasible, no integer point is.
INFEASIBLE_MPS = """NAME infm
ROWS
 N obj
 E c
COLUMNS
    x obj 1 c 2
    y obj 1 c 2
RHS
    rhs c 1
BOUNDS
 BV bnd x
 BV bnd y
ENDATA
"""
#: min -x  s.t. x - y >= 0, x, y >= 0: an LP without integers, unbounded along x = y.
UNBOUNDED_MPS = """NAME unbm
ROWS
 N obj
 G c
COLUMNS
    x obj -1 c 1
    y c -1
RHS
    rhs c 0
ENDATA
"""


def _write_text(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _write_pyomo(model, path):
    import bilevel

    bilevel.write_model(model, path)
    return path


def test_hand_written_mps_models_against_enumeration_and_highs(tmp_path):
    best = max(x + y for x, y in itertools.product(range(11), repeat=2) if 2 * x + 3 * y <= 12 and x - y <= 2)
    assert best == 5  # (3, 2); the LP relaxation's 5.2 at (3.6, 1.6) is not integer
    path = _write_text(tmp_path, "max.mps", MAX_MPS)
    result, oracle = gurobi.solve(path, mip_gap=0.0), highs.solve(path, mip_gap=0.0)
    assert (result.status, oracle.status) == ("optimal", "optimal")
    assert result.objective == pytest.approx(best) == oracle.objective  # maximised: the sense is kept
    assert result.bound == pytest.approx(best) and result.nodes >= 0
    assert set(result.solution) == {"x", "y"}
    assert result.solution["x"] + result.solution["y"] == pytest.approx(best)
    assert common.agreement({"highs_status": "optimal", "highs_objective": oracle.objective}, result,
                            maximise=common.is_maximisation(path)) == "agree"

    result = gurobi.solve(_write_text(tmp_path, "inf.mps", INFEASIBLE_MPS))
    assert result.status == "infeasible" and result.objective is None and result.bound is None
    assert highs.solve(tmp_path / "inf.mps").status == "infeasible"

    path = _write_text(tmp_path, "unb.mps", UNBOUNDED_MPS)
    result = gurobi.solve(path)
    # Gurobi 13's presolve says INF_OR_UNBD for this LP, HiGHS says unbounded; neither may say infeasible
    assert result.status in ("unbounded", "infeasible_or_unbounded") and result.objective is None
    assert result.bound is None and result.nodes == 0 and result.message == ""
    assert highs.solve(path).status in ("unbounded", "infeasible_or_unbounded")


def test_with_dual_reductions_off_gurobi_tells_unbounded_from_infeasible(tmp_path, monkeypatch):
    """Gurobi reads a gurobi.env file in the working folder even into an empty environment. DualReductions 0
    there makes it tell the two apart: UNBOUNDED for the LP above (INF_OR_UNBD by default) and INFEASIBLE for
    the MILP."""
    unbounded = _write_text(tmp_path, "unb.mps", UNBOUNDED_MPS)
    infeasible = _write_text(tmp_path, "inf.mps", INFEASIBLE_MPS)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gurobi.env").write_text("DualReductions 0\n")
    result = gurobi.solve(unbounded)
    assert result.status == "unbounded" and result.objective is None and result.bound is None
    assert gurobi.solve(infeasible).status == "infeasible"


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_pyomo_models_lp_and_maximisation_milp(fmt, tmp_path):
    """min x + 2y, x + y >= 1.5, x <= 1 is an LP with optimum 2 at (1, 0.5): bound = objective, no nodes. max
    3a + 2b, a + b <= 4.5, a - b <= 1.5, a, b integer in [0, 5] is 10 at (2, 2) only, by enumeration."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.y = pyo.Var(bounds=(0, None))
    m.c = pyo.Constraint(expr=m.x + m.y >= 1.5)
    m.obj = pyo.Objective(expr=m.x + 2 * m.y)
    path = _write_pyomo(m, tmp_path / f"lp.{fmt}")
    result, oracle = gurobi.solve(path), highs.solve(path)
    assert result.status == oracle.status == "optimal"
    assert result.objective == pytest.approx(2.0) == oracle.objective
    assert result.bound == result.objective and result.nodes == 0
    assert result.solution["x"] == pytest.approx(1.0) and result.solution["y"] == pytest.approx(0.5)
    assert set(result.solution) == set(oracle.solution)

    feasible = [(a, b) for a, b in itertools.product(range(6), repeat=2) if a + b <= 4.5 and a - b <= 1.5]
    best = max(3 * a + 2 * b for a, b in feasible)
    assert best == 10 and [p for p in feasible if 3 * p[0] + 2 * p[1] == best] == [(2, 2)]
    n = pyo.ConcreteModel()
    n.a = pyo.Var(domain=pyo.Integers, bounds=(0, 5))
    n.b = pyo.Var(domain=pyo.Integers, bounds=(0, 5))
    n.c1 = pyo.Constraint(expr=n.a + n.b <= 4.5)
    n.c2 = pyo.Constraint(expr=n.a - n.b <= 1.5)
    n.obj = pyo.Objective(expr=3 * n.a + 2 * n.b, sense=pyo.maximize)
    path = _write_pyomo(n, tmp_path / f"max.{fmt}")
    assert common.is_maximisation(path)
    result, oracle = gurobi.solve(path, mip_gap=0.0), highs.solve(path, mip_gap=0.0)
    assert result.status == oracle.status == "optimal"
    assert result.objective == pytest.approx(best) == oracle.objective
    assert result.bound == pytest.approx(best) and result.bound >= result.objective - 1e-9
    assert (round(result.solution["a"]), round(result.solution["b"])) == (2, 2)


def test_a_status_the_runner_has_no_name_for_is_an_error(tmp_path, monkeypatch):
    """SolutionLimit 1 in a gurobi.env of the working folder stops the solve with status SOLUTION_LIMIT, which
    is none of the runner's statuses."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gurobi.env").write_text("SolutionLimit 1\n")
    result = gurobi.solve(MODELS / ROWS[HARD]["mps"], time_limit=60)
    assert result.status == "error" and "SOLUTION_LIMIT" in result.message
    assert result.objective is None and result.bound is None


def test_time_limits_zero_negative_and_infinite(tmp_path, capfd):
    """A limit of 0 stops before any search (time_limit, and the bound does not pass the incumbent); a negative
    limit is an InputError before Gurobi sees it; inf is no limit (a small MILP reaches its
    optimum: min x + 2y, x + y >= 1.5, x, y integer is 2 at (2, 0))."""
    row = ROWS[HARD]
    result = gurobi.solve(MODELS / row["mps"], time_limit=0)
    assert result.status == "time_limit" and common.agreement(row, result) == "consistent"
    assert result.nodes == 0 and result.solver_seconds < 1
    if result.objective is None:
        assert result.message == "no feasible solution found" and result.solution == {}
    elif result.bound is not None:
        assert result.objective >= result.bound - 1e-9
    with pytest.raises(common.InputError, match="time_limit"):
        gurobi.solve(MODELS / row["mps"], time_limit=-1)
    small = _write_text(tmp_path, "s.lp",
                        "minimize\n obj: x + 2 y\nsubject to\n c: x + y >= 1.5\ngeneral\n x y\nend\n")
    result = gurobi.solve(small, time_limit=float("inf"), mip_gap=0.0)
    assert result.status == "optimal" and result.objective == pytest.approx(2.0)
    with pytest.raises(common.InputError, match="mip_gap"):
        gurobi.solve(small, mip_gap=-0.1)
    out, err = capfd.readouterr()
    assert out == "" and err == ""


def _market_split(path, rows=5, cols=40, seed=0):
    """Cornuejols and Dawande's market split as a MILP: min sum(p + q), a x + p - q = b, x binary, with
    a_ij in 0..99 and b_i = sum_j a_ij // 2. x = 0 is feasible, but the bound stays at 0 for long (no
    x likely meets all five rows exactly). Returns path and (a, b)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    a = rng.integers(0, 100, size=(rows, cols))
    b = a.sum(axis=1) // 2
    lines = ["minimize", " obj: " + " + ".join(f"p{i} + q{i}" for i in range(rows)), "subject to"]
    lines += [f" r{i}: " + " + ".join(f"{a[i, j]} x{j}" for j in range(cols)) + f" + p{i} - q{i} = {b[i]}"
              for i in range(rows)]
    lines += ["binary", " " + " ".join(f"x{j}" for j in range(cols)), "end", ""]
    path.write_text("\n".join(lines))
    return path, (a, b)


def test_a_time_limit_with_an_incumbent_keeps_it_and_an_open_bound(tmp_path):
    """Gurobi 13 finds incumbents of the 5 x 40 market split at once (objective 17 after 0.3 s, 4 after 2 s)
    while its bound stays 0: stopped at 0.3 s, the run is time_limit with that incumbent, which meets every row,
    and a bound below it."""
    path, (a, b) = _market_split(tmp_path / "market.lp")
    result = gurobi.solve(path, time_limit=0.3)
    assert result.status == "time_limit" and result.message == ""
    assert result.objective is not None and result.bound is not None and result.bound < result.objective - 0.5
    assert result.nodes >= 1 and 0.2 < result.solver_seconds < 5
    sol = result.solution
    x = [round(sol[f"x{j}"]) for j in range(a.shape[1])]
    assert all(abs(sol[f"x{j}"] - x[j]) < 1e-6 for j in range(a.shape[1]))
    for i in range(a.shape[0]):
        assert sum(a[i, j] * x[j] for j in range(a.shape[1])) + sol[f"p{i}"] - sol[f"q{i}"] == pytest.approx(b[i])
    assert sum(sol[f"p{i}"] + sol[f"q{i}"] for i in range(a.shape[0])) == pytest.approx(result.objective)


def test_a_model_above_the_constraint_limit_is_an_error(tmp_path, capfd):
    """2500 rows on 10 columns (min the sum of x, x_i + x_{i+1 mod 10} >= 1 repeated, optimum 5): more linear
    constraints than the pip license's 2000, so an error with Gurobi's message, printed nowhere."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.x = pyo.Var(range(10), bounds=(0, 1))
    m.rows = pyo.Constraint(range(2500), rule=lambda m, k: m.x[k % 10] + m.x[(k + 1) % 10] >= 1)
    m.obj = pyo.Objective(expr=sum(m.x.values()))
    path = _write_pyomo(m, tmp_path / "rows.mps")
    capfd.readouterr()
    result = gurobi.solve(path, time_limit=60)
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    if result.status == "error":
        assert "limit" in result.message.lower() and result.objective is None, result.message
    else:  # a full license
        assert result.status == "optimal" and result.objective == pytest.approx(5.0)


def test_files_gurobi_would_read_as_other_models_are_errors(tmp_path):
    """Gurobi 13 reads an .lp cut at a line boundary inside its constraints as the part before the cut
    (92 of 267 cuts of cancer-opt-n5-s0.lp, one every third line: optimal 0) and an empty .lp as an empty
    model (optimal 0); the runner calls them errors before Gurobi reads them, and so an .lp that starts with
    "minimise" (Gurobi: "Unable to read file") and the committed .mps cut to 1000 bytes."""
    lines = (MODELS / ROWS["cancer-opt-n5-s0"]["lp"]).read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip().lower() in ("s.t.", "subject to"))
    cuts = {f"cut{k}.lp": "".join(lines[:k]) for k in range(start + 2, start + 60, 7)}
    cuts["empty.lp"] = ""
    cuts["minimise.lp"] = "minimise\n obj: 2 x + 3 y\nsubject to\n c: x + y >= 1\nend\n"
    paths = [_write_text(tmp_path, name, text) for name, text in cuts.items()]
    cut_mps = tmp_path / "cut.mps"
    cut_mps.write_bytes((MODELS / ROWS["cancer-opt-n5-s0"]["mps"]).read_bytes()[:1000])
    for path in paths + [cut_mps]:
        result = gurobi.solve(path)
        assert result.status == "error" and result.objective is None and result.message, (path.name, result)


def test_library_solution_names_and_times():
    """The solution names every column as the file does (the .mps's short names, the .lp's Pyomo labels),
    like the HiGHS runner; wall-clock seconds cover Gurobi's own run time."""
    row = ROWS["cancer-opt-n5-s0"]
    for fmt in ("mps", "lp"):
        path = MODELS / row[fmt]
        result, oracle = gurobi.solve(path, mip_gap=1e-6), highs.solve(path, mip_gap=1e-6)
        assert result.status == "optimal" and set(result.solution) == set(oracle.solution)
        assert len(result.solution) == row["columns"]
        assert result.seconds >= result.solver_seconds >= 0


def test_without_a_license_the_runner_is_unavailable(tmp_path, monkeypatch):
    """A missing or wrongly named file is still an InputError; any existing file, even one cut short, is
    ``unavailable`` with the reason."""
    from bilevel.errors import InputError

    monkeypatch.setattr(gurobi, "_license_problem", lambda: "Gurobi cannot start: License expired 2026-11-23")
    cut = _write_text(tmp_path, "cut.mps", MAX_MPS.replace("ENDATA\n", ""))
    result = gurobi.solve(cut)
    assert result.status == "unavailable" and "expired" in result.message and result.objective is None
    with pytest.raises(InputError):
        gurobi.solve(tmp_path / "missing.lp")
    monkeypatch.undo()
    assert gurobi.solve(cut).status == "error"
