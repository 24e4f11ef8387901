"""The Gurobi and Xpress runners (solvers/gurobi.py, solvers/xpress.py) against the manifest's HiGHS optima,
the HiGHS runner and hand-solved models. Each runner's tests are skipped without its package or a usable
license (pip's gurobipy carries a size-limited license, pip's xpress FICO's Community license)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from bilevel import library
from solvers import check_solution, common, gurobi, highs, solution_files
from solvers import xpress as xpress_runner

MODELS = Path(__file__).resolve().parents[1] / "models"
MANIFEST = MODELS / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}
SMALL = [r for r, row in ROWS.items() if row["committed"]]

#: min x + 2 y + 3 z  s.t. x + y + z >= 2.5, x + z <= 2, x, y in {0, 1, 2}, 0 <= z <= 1.5: x = 2, y = 1 (cost 4)
#: beats every split with z (y = 1, x = 1.5 is not integer; x = 1, z = 0.5 y = 1 costs 4.5).
SMALL_MILP = """minimize
 obj: x + 2 y + 3 z
subject to
 c1: x + y + z >= 2.5
 c2: x + z <= 2
bounds
 0 <= x <= 2
 0 <= y <= 2
 0 <= z <= 1.5
general
 x y
end
"""


#: Columns beyond each license's size: Gurobi's pip license takes 2000 variables, Xpress's Community license
#: 5000 rows and columns together.
TOO_LARGE = {"gurobi": 2500, "xpress": 6000}


@pytest.fixture(params=[gurobi, xpress_runner], ids=lambda runner: runner.NAME)
def runner(request):
    if not request.param.available():
        pytest.skip(f"{request.param.NAME} does not start: {request.param._license_problem()}")
    return request.param


def _lp_file(tmp_path, text, name="m.lp"):
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("instance", SMALL)
def test_runner_reaches_the_optimum_of_every_committed_instance_and_the_checker_trusts_it(runner, instance, tmp_path):
    """Both formats of the 12 committed instances (all within the licenses' sizes): the manifest's HiGHS
    optimum, every column in the solution under the file's own name (the short MPS names of <id>.names.csv,
    the LP file's labels), and the package's own verification trusts it."""
    row = ROWS[instance]
    short = {line.split(",")[1] for line in (MODELS / row["names"]).read_text().splitlines()[1:]
             if line.startswith("col,")}
    for fmt in ("mps", "lp"):
        path = MODELS / row[fmt]
        result = runner.solve(path, time_limit=120, mip_gap=1e-6)
        if fmt == "mps":
            assert set(result.solution) == short
        else:
            assert set(result.solution) <= set(re.findall(r"[^\s:+\-<>=]+", path.read_text()))
        assert result.status == "optimal", (instance, fmt, result)
        assert result.objective == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
        assert result.bound == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
        assert common.agreement(row, result) == "agree"
        assert len(result.solution) == row["columns"] and result.solver_seconds >= 0 and result.nodes >= 0
        rep = check_solution.check_solution(MANIFEST, instance,
                                            solution_files.write_solution_csv(result, tmp_path / f"s.{fmt}.csv"),
                                            strict=True)
        assert rep.trusted, rep.summary()


def test_small_models_against_hand_solved_optima_and_highs(runner, tmp_path):
    lp = SMALL_MILP.replace("general\n x y\n", "")  # the LP relaxation: x = 2, y = 0.5, cost 3
    maximise = "maximize\n obj: x + y\nsubject to\n c1: 2 x + 3 y <= 12\n c2: x - y <= 2\nbounds\n x <= 10\n" \
               " y <= 10\ngeneral\n x y\nend\n"  # LP optimum (3.6, 1.6); best integer point (3, 2): 5
    for text, status, objective, mip in ((SMALL_MILP, "optimal", 4.0, True), (lp, "optimal", 3.0, False),
                                         (maximise, "optimal", 5.0, True)):
        path = _lp_file(tmp_path, text)
        result = runner.solve(path, time_limit=60, mip_gap=0.0)
        oracle = highs.solve(path, time_limit=60, mip_gap=0.0)
        assert (result.status, oracle.status) == (status, status)
        assert result.objective == pytest.approx(objective) == oracle.objective
        assert result.bound == pytest.approx(objective)
        assert result.nodes >= 0 if mip else result.nodes == 0
        assert set(result.solution) == set(oracle.solution)


def test_infeasible_and_unbounded_models(runner, tmp_path):
    infeasible = "minimize\n obj: x + y\nsubject to\n c: 2 x + 2 y = 1\nbounds\n x <= 1\n y <= 1\n" \
                 "binary\n x y\nend\n"  # feasible LP relaxation, no integer point
    unbounded = "minimize\n obj: - y\nsubject to\n c: i + y >= 1\nbounds\n i <= 2\ngeneral\n i\nend\n"
    result = runner.solve(_lp_file(tmp_path, infeasible), time_limit=60)
    assert result.status == "infeasible" and result.objective is None and result.bound is None
    result = runner.solve(_lp_file(tmp_path, unbounded), time_limit=60)
    assert result.status in ("unbounded", "infeasible_or_unbounded") and result.objective is None


def test_a_time_limit_stops_the_solve_and_inf_means_none(runner):
    """Gurobi and Xpress need 0.6-1 s and 500-1,500 nodes for this instance; 0.05 s stops them, and the answer
    then contradicts nothing in the manifest. An infinite limit is no limit."""
    row = ROWS["diabetes-pes-e0.2-n10-s0"]
    result = runner.solve(MODELS / row["mps"], time_limit=0.05)
    assert result.status == "time_limit" and common.agreement(row, result) == "consistent"
    if result.objective is not None and result.bound is not None:
        assert result.objective >= result.bound - 1e-9
    if result.objective is None:
        assert result.message == "no feasible solution found"
    result = runner.solve(MODELS / row["mps"], time_limit=float("inf"), mip_gap=1e-6)
    assert result.status == "optimal" and result.objective == pytest.approx(row["highs_objective"], rel=1e-4)


def test_a_model_above_the_license_limits_is_an_error(runner, tmp_path):
    """More integer columns >= 1 than the pip license takes, their sum minimised: an error with the solver's
    message (a full license solves it)."""
    import pyomo.environ as pyo

    import bilevel

    m = pyo.ConcreteModel()
    size = TOO_LARGE[runner.NAME]
    m.xcol = pyo.Var(range(size), domain=pyo.Integers, bounds=(1, 5))
    m.row = pyo.Constraint(expr=sum(m.xcol.values()) >= 0)
    m.obj = pyo.Objective(expr=sum(m.xcol.values()))
    path = tmp_path / "big.mps"
    bilevel.write_model(m, path)
    result = runner.solve(path, time_limit=60)
    if result.status == "error":
        assert ("limit" in result.message or "maximum" in result.message) and result.objective is None, result.message
    else:  # a full license
        assert result.status == "optimal" and result.objective == pytest.approx(size)


def test_files_a_solver_would_misread_or_cannot_read_are_errors(runner, tmp_path):
    """A file cut short and an LP file that does not start with an objective sense are errors before the solver
    reads them, and so are files it cannot parse (with its message); a missing file or another suffix is an
    InputError."""
    from bilevel.errors import InputError

    source = MODELS / ROWS["cancer-opt-n5-s0"]["mps"]
    cut = tmp_path / "cut.mps"
    cut.write_bytes(source.read_bytes()[:1000])
    lp_text = (MODELS / ROWS["cancer-opt-n5-s0"]["lp"]).read_text()
    cut_lp = _lp_file(tmp_path, lp_text[: lp_text.rindex("end")], "cut.lp")
    sense = _lp_file(tmp_path, "minimise\n obj: x\nsubject to\n c: x >= 1\nend\n", "sense.lp")
    bad_lp = _lp_file(tmp_path, "minimize\n obj: x\nsubject to\n c: x >= >= 1\nend\n", "bad.lp")
    bad_mps = _lp_file(tmp_path, "NAME x\nROWS\n Q obj\nCOLUMNS\n x obj 1\nENDATA\n", "bad.mps")
    for path in (cut, cut_lp, sense, bad_lp, bad_mps):
        result = runner.solve(path, time_limit=60)
        assert result.status == "error" and result.objective is None and result.message, (path, result)
    with pytest.raises(InputError):
        runner.solve(tmp_path / "missing.mps")
    with pytest.raises(InputError):
        runner.solve(_lp_file(tmp_path, SMALL_MILP, "m.txt"))


def test_the_runner_prints_and_warns_nothing(runner, tmp_path, capfd):
    import warnings

    capfd.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = runner.solve(_lp_file(tmp_path, SMALL_MILP), time_limit=60)
        runner.version()
    out, err = capfd.readouterr()
    assert result.status == "optimal" and out == "" and err == "" and not caught, [str(w.message) for w in caught]


def test_versions():
    if gurobi.available():
        import gurobipy

        assert gurobi.version() == ".".join(map(str, gurobipy.gurobi.version()))
    if xpress_runner.available():
        assert xpress_runner.version().count(".") == 2  # the optimizer's version, e.g. 47.01.02
