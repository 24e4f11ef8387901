"""The Xpress runner (solvers/xpress.py) against the manifest's HiGHS optima, the HiGHS runner and hand-solved
models. Skipped without the ``xpress`` package or a license that starts (pip's xpress carries FICO's
Community license: at most 5000 rows and columns together)."""
from __future__ import annotations

import math
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # Pyomo's hook on `import xpress` calls Xpress's deprecated getversion
    warnings.simplefilter("ignore")
    try:
        pytest.importorskip("xpress")
    except ImportError as exc:  # installed but broken (e.g. 9.5 built for numpy 1 under numpy 2)
        pytest.skip(f"xpress does not import: {exc}", allow_module_level=True)
    from bilevel import library
    from solvers import common, highs
    from solvers import xpress as xpress_runner

pytestmark = pytest.mark.skipif(not xpress_runner.available(),
                                reason=f"Xpress does not start: {xpress_runner._license_problem()}")

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
MANIFEST = MODELS / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}
SMALL = [r for r, row in ROWS.items() if row["committed"]]
HARD = "diabetes-pes-e0.2-n10-s0"  # Xpress needs about 0.8 s and 500 nodes for it


def _write(model, path):
    import bilevel

    bilevel.write_model(model, path)
    return path


def _text(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def _assert_reaches_manifest(result, row):
    assert result.status == "optimal", (row["id"], result)
    assert result.objective == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
    assert result.bound == pytest.approx(row["highs_objective"], rel=1e-4, abs=1e-6)
    assert common.agreement(row, result) == "agree"


def _tiny_models():
    """Pyomo models with hand-computed answers: (name, model, status, objective, is_mip)."""
    import pyomo.environ as pyo

    models = []
    # min x + 2 y + 3 z, x + y + z >= 2.5, x + z <= 2, x, y in {0, 1, 2}, z in [0, 1.5]: x = 2, y = 1 (4);
    # with z, y = 1 needs x + z = 1.5, costing at least 4.5. Its LP relaxation: x = 2, y = 0.5 (3).
    for integer in (True, False):
        m = pyo.ConcreteModel()
        m.x = pyo.Var(domain=pyo.Integers if integer else pyo.Reals, bounds=(0, 2))
        m.y = pyo.Var(domain=pyo.Integers if integer else pyo.Reals, bounds=(0, 2))
        m.z = pyo.Var(bounds=(0, 1.5))
        m.c1 = pyo.Constraint(expr=m.x + m.y + m.z >= 2.5)
        m.c2 = pyo.Constraint(expr=m.x + m.z <= 2)
        m.obj = pyo.Objective(expr=m.x + 2 * m.y + 3 * m.z)
        models.append(("milp" if integer else "lp", m, "optimal", 4.0 if integer else 3.0, integer))
    # max x + y, 2 x + 3 y <= 12, x - y <= 2, x, y in {0..10}: LP optimum (3.6, 1.6); best integer (3, 2): 5
    m = pyo.ConcreteModel()
    m.xa = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    m.ya = pyo.Var(domain=pyo.Integers, bounds=(0, 10))
    m.c1 = pyo.Constraint(expr=2 * m.xa + 3 * m.ya <= 12)
    m.c2 = pyo.Constraint(expr=m.xa - m.ya <= 2)
    m.obj = pyo.Objective(expr=m.xa + m.ya, sense=pyo.maximize)
    models.append(("max", m, "optimal", 5.0, True))
    # binaries with 2 x + 2 y = 1: the LP relaxation is feasible, no integer point is
    m = pyo.ConcreteModel()
    m.xb = pyo.Var(domain=pyo.Binary)
    m.yb = pyo.Var(domain=pyo.Binary)
    m.c = pyo.Constraint(expr=2 * m.xb + 2 * m.yb == 1)
    m.obj = pyo.Objective(expr=m.xb + m.yb)
    models.append(("infeasible-milp", m, "infeasible", None, True))
    # 2 i - 2 j = 1 has no integer point, but min -y with y <= i... is unbounded in the relaxation: Xpress
    # itself says "unbounded"
    m = pyo.ConcreteModel()
    m.ic = pyo.Var(domain=pyo.Integers)
    m.jc = pyo.Var(domain=pyo.Integers)
    m.yc = pyo.Var()
    m.c = pyo.Constraint(expr=2 * m.ic - 2 * m.jc == 1)
    m.d = pyo.Constraint(expr=m.yc - m.ic <= 0)
    m.obj = pyo.Objective(expr=-m.yc)
    models.append(("relaxation-unbounded-infeasible-milp", m, "infeasible", None, True))
    # min -y, x + y >= 1, x, y >= 0: y grows without bound
    m = pyo.ConcreteModel()
    m.xd = pyo.Var(bounds=(0, None))
    m.yd = pyo.Var(bounds=(0, None))
    m.c = pyo.Constraint(expr=m.xd + m.yd >= 1)
    m.obj = pyo.Objective(expr=-m.yd)
    models.append(("unbounded-lp", m, "unbounded", None, False))
    # min -i, i = 2 j, i, j free integers: i = 2 j for any integer j
    m = pyo.ConcreteModel()
    m.ie = pyo.Var(domain=pyo.Integers)
    m.je = pyo.Var(domain=pyo.Integers)
    m.c = pyo.Constraint(expr=m.ie - 2 * m.je == 0)
    m.obj = pyo.Objective(expr=-m.ie)
    models.append(("unbounded-milp", m, "unbounded", None, True))
    # x1 + x2 <= -1 and 2 x0 + 3 x1 + 3 x2 >= 4 need x0 >= 3.5 > 1: infeasible; Xpress 9.9 says "unbounded"
    m = pyo.ConcreteModel()
    m.x0 = pyo.Var(bounds=(None, 1))
    m.x1 = pyo.Var(bounds=(-2, None))
    m.x2 = pyo.Var()
    m.r0 = pyo.Constraint(expr=2 * m.x0 + 3 * m.x1 + 3 * m.x2 >= 4)
    m.r1 = pyo.Constraint(expr=-3 * m.x1 - 3 * m.x2 >= 3)
    m.obj = pyo.Objective(expr=-2 * m.x0 - 3 * m.x1)
    models.append(("infeasible-lp-xpress-calls-unbounded", m, "infeasible", None, False))
    return models


@pytest.mark.parametrize("fmt", ["lp", "mps"])
def test_tiny_models_against_hand_solved_answers_and_highs(fmt, tmp_path):
    for name, model, status, objective, is_mip in _tiny_models():
        path = _write(model, tmp_path / f"{name}.{fmt}")
        result = xpress_runner.solve(path, time_limit=60, mip_gap=0.0)
        assert result.status == status, (name, result)
        oracle = highs.solve(path, time_limit=60, mip_gap=0.0)
        if status == "optimal":
            assert oracle.status == "optimal" and oracle.objective == pytest.approx(objective)
            assert result.objective == pytest.approx(objective) and result.bound == pytest.approx(objective)
            assert set(result.solution) == set(oracle.solution)
            assert (result.nodes >= 0) if is_mip else (result.nodes == 0 and result.bound == result.objective)
        else:  # HiGHS says "infeasible or unbounded" of the unbounded MILP
            assert oracle.status in (status, "infeasible_or_unbounded"), (name, oracle)
            assert result.objective is None and result.bound is None and result.solution == {}
    assert common.is_maximisation(tmp_path / f"max.{fmt}")


def test_column_names_come_back_as_in_the_lp_file(tmp_path):
    """Pyomo's labels with parentheses and its ONE_VAR_CONSTANT column (an objective constant) are the keys."""
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.w = pyo.Var(range(2), bounds=(0, 1))
    m.z_mu_plus = pyo.Var([3], domain=pyo.Integers, bounds=(0, 4))
    m.c = pyo.Constraint(expr=m.w[0] + m.w[1] + m.z_mu_plus[3] >= 2.5)
    m.obj = pyo.Objective(expr=m.w[0] + 2 * m.w[1] + 3 * m.z_mu_plus[3] + 7)  # w = (1, 0.5), z = 1: 12
    path = _write(m, tmp_path / "names.lp")
    text = path.read_text()
    assert "w(0)" in text and "z_mu_plus(3)" in text and "ONE_VAR_CONSTANT" in text
    result = xpress_runner.solve(path, mip_gap=0.0)
    assert set(result.solution) == {"w(0)", "w(1)", "z_mu_plus(3)", "ONE_VAR_CONSTANT"}
    assert result.status == "optimal" and result.objective == pytest.approx(12.0)
    assert result.solution["z_mu_plus(3)"] == pytest.approx(1) and result.solution["ONE_VAR_CONSTANT"] == 1
    assert set(result.solution) == set(highs.solve(path).solution)


def _shifted(tmp_path):
    """The hard instance's .lp with its objective lowered by 10 through a column fixed to 1: its optimum is
    the manifest's minus 10 (a bound of 0, which Xpress reports before its root LP, would lie above it)."""
    text = (MODELS / ROWS[HARD]["lp"]).read_text()
    assert "validation_hinge:\n" in text and "\nbounds\n" in text
    text = text.replace("validation_hinge:\n", "validation_hinge:\n-10 shift\n", 1)
    return _text(tmp_path, "shifted.lp", text.replace("\nbounds\n", "\nbounds\n shift = 1\n", 1))


def test_a_time_limit_stops_the_solve_honestly_and_inf_means_none(tmp_path):
    path = _shifted(tmp_path)
    optimum = ROWS[HARD]["highs_objective"] - 10
    for limit in (0.0, 0.01, 0.05):
        result = xpress_runner.solve(path, time_limit=limit)
        assert result.status == "time_limit", (limit, result)
        assert result.seconds < 5 and result.nodes >= 0
        if result.bound is not None:
            assert result.bound <= optimum + 1e-6, (limit, result)
        if result.objective is not None:
            assert result.objective >= optimum - 1e-6 and result.solution
            if result.bound is not None:
                assert result.objective >= result.bound
        else:
            assert result.message == "no feasible solution found" and result.solution == {}
    result = xpress_runner.solve(path, time_limit=math.inf, mip_gap=1e-6)
    assert result.status == "optimal" and result.objective == pytest.approx(optimum, rel=1e-4)
    assert result.nodes >= 1
    row = ROWS[HARD]
    result = xpress_runner.solve(MODELS / row["mps"], time_limit=0.01)
    assert result.status == "time_limit" and common.agreement(row, result) == "consistent"
    for bad in (-1.0, math.nan):
        with pytest.raises(common.InputError, match="time_limit"):
            xpress_runner.solve(path, time_limit=bad)


def test_the_mip_gap_is_passed_on():
    """A relative gap of 1 stops at the first incumbent (the bound 0 proves it within 100%), 1e-6 at the
    optimum; both are "optimal" at their gap, and both bracket the manifest's optimum."""
    row = ROWS[HARD]
    exact = xpress_runner.solve(MODELS / row["mps"], time_limit=60, mip_gap=1e-6)
    _assert_reaches_manifest(exact, row)
    loose = xpress_runner.solve(MODELS / row["mps"], time_limit=60, mip_gap=1.0)
    assert loose.status == "optimal" and loose.nodes < exact.nodes
    assert loose.bound <= row["highs_objective"] + 1e-9 and loose.objective > row["highs_objective"] * 1.01
    assert loose.objective - loose.bound <= loose.objective + 1e-9


def _sum_model(size):
    import pyomo.environ as pyo

    m = pyo.ConcreteModel()
    m.xcol = pyo.Var(range(size), domain=pyo.Integers, bounds=(1, 5))
    m.row = pyo.Constraint(expr=sum(m.xcol.values()) >= 0)
    m.obj = pyo.Objective(expr=sum(m.xcol.values()))
    return m


def test_a_model_above_the_community_license_is_an_error_with_xpress_message(tmp_path):
    """6000 integer columns >= 1, their sum minimised: above the Community license's 5000 rows and columns,
    status error with Xpress's message (a full license solves it: 6000); 4000 columns solve."""
    small = xpress_runner.solve(_write(_sum_model(4000), tmp_path / "small.mps"), time_limit=60)
    assert small.status == "optimal" and small.objective == pytest.approx(4000)
    result = xpress_runner.solve(_write(_sum_model(6000), tmp_path / "big.mps"), time_limit=60)
    if result.status == "error":
        assert "too many rows and columns" in result.message and "5000" in result.message, result.message
        assert result.objective is None and result.solution == {}
    else:
        assert result.status == "optimal" and result.objective == pytest.approx(6000)


def test_files_cut_short_without_a_sense_or_unreadable_are_errors(tmp_path):
    source = MODELS / ROWS["cancer-opt-n5-s0"]["mps"]
    cut = _text(tmp_path, "cut.mps", "")
    cut.write_bytes(source.read_bytes()[:1000])
    lp_text = (MODELS / ROWS["cancer-opt-n5-s0"]["lp"]).read_text()
    files = {
        "cut.mps": None,
        "cut.lp": lp_text[: lp_text.rindex("end")],
        "sense.lp": "minimise\n obj: 2 x + 3 y\nsubject to\n c: x + y >= 1\nend\n",
        "bad.lp": "minimize\n obj: x\nsubject to\n c: x >= >= 1\nend\n",  # Xpress: RHS is not a number
        "bad.mps": "NAME x\nROWS\n Q obj\nCOLUMNS\n x obj 1\nENDATA\n",  # Xpress: unexpected row type
        "empty.mps": "ENDATA\n",  # Xpress reads an empty model
    }
    for name, text in files.items():
        path = cut if text is None else _text(tmp_path, name, text)
        result = xpress_runner.solve(path, time_limit=60)
        assert result.status == "error" and result.objective is None and result.message, (name, result)
    with pytest.raises(common.InputError):
        xpress_runner.solve(tmp_path / "missing.mps")
    with pytest.raises(common.InputError):
        xpress_runner.solve(_text(tmp_path, "m.txt", "minimize\n obj: x\nend\n"))


def test_the_runner_prints_and_warns_nothing(tmp_path, capfd):
    path = _write(_tiny_models()[0][1], tmp_path / "m.lp")
    capfd.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = xpress_runner.solve(path, time_limit=60)
        unbounded = xpress_runner.solve(_write(_tiny_models()[5][1], tmp_path / "u.mps"), time_limit=60)
        assert xpress_runner.available() and xpress_runner.version().count(".") == 2
    out, err = capfd.readouterr()
    assert (result.status, unbounded.status, out, err) == ("optimal", "unbounded", "", "")


def test_a_fresh_process_prints_and_warns_nothing(tmp_path):
    """The first use in a process imports xpress (Pyomo's import hook then calls Xpress's deprecated getversion)
    and starts its license (the LicenseWarning without a license file): with every warning shown, nothing may
    come out. (With ``-W error`` Pyomo's hook swallows the exception, so that would not show it.)"""
    path = _write(_tiny_models()[0][1], tmp_path / "m.mps")
    code = ("import bilevel, pyomo.environ\nfrom solvers import xpress as x\n"
            f"assert x.available()\nr = x.solve({str(path)!r}, time_limit=60)\nassert r.status == 'optimal', r\n")
    proc = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={k: v for k, v in __import__("os").environ.items() if k != "XPAUTH_PATH"})
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
