"""The runners in solvers/ on files they misread, and compare on bad input: CPLEX and CBC must not call a
file they read wrongly "optimal" (a truncated file, a HiGHS-written LP file, an LP row CBC cannot parse),
CBC's bound after stopping on the gap tolerance is its printed lower bound, and the compare command refuses
bad input (a manifest without a needed column or cell, a time limit that is not finite, an output path that
cannot be written) with exit code 2 before any solve."""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest

from bilevel import library
from bilevel.errors import InputError
from solvers import cbc, common, compare, cplex, gurobi, highs, scip, xpress

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
MANIFEST = MODELS / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}

#: A covering problem with 12 general integers (the reviewer's generator, ``gen.py 12 8 2``): optimum 92, LP
#: relaxation 87.494. With a relative gap of 0.2 CBC stops at 99 and prints "Lower bound: 87.494".
G2_LP = """minimize
 obj: 6 x0 + 7 x1 + 7 x2 + 16 x3 + 10 x4 + 28 x5 + 30 x6 + 26 x7 + 14 x8 + 13 x9 + 24 x10 + 11 x11
subject to
 c0: 1 x9 + 1 x0 + 6 x11 + 8 x2 + 6 x6 + 7 x5 + 7 x3 + 9 x4 + 3 x8 + 9 x7 + 3 x1 + 4 x10 >= 34
 c1: 6 x0 + 6 x2 + 8 x5 + 3 x10 + 7 x8 + 8 x4 + 9 x6 + 4 x7 + 8 x1 + 5 x3 + 8 x9 + 9 x11 >= 52
 c2: 3 x5 + 5 x10 + 8 x7 + 5 x9 + 5 x11 + 9 x4 + 9 x8 + 9 x6 + 9 x3 + 7 x1 + 5 x0 + 4 x2 >= 51
 c3: 4 x8 + 2 x5 + 9 x9 + 3 x1 + 5 x10 + 4 x7 + 4 x0 + 1 x11 + 7 x6 + 1 x3 + 1 x2 + 6 x4 >= 43
 c4: 3 x2 + 3 x3 + 9 x0 + 1 x1 + 7 x8 + 1 x9 + 4 x6 + 3 x5 + 1 x4 + 1 x7 + 6 x11 + 2 x10 >= 38
 c5: 4 x5 + 2 x7 + 6 x0 + 2 x4 + 1 x10 + 8 x8 + 3 x6 + 9 x9 + 7 x2 + 8 x1 + 9 x11 + 6 x3 >= 29
 c6: 3 x5 + 3 x4 + 2 x10 + 8 x6 + 4 x0 + 9 x11 + 1 x9 + 4 x1 + 4 x7 + 8 x8 + 2 x3 + 5 x2 >= 25
 c7: 7 x9 + 3 x3 + 2 x11 + 9 x5 + 2 x4 + 4 x8 + 2 x10 + 2 x2 + 1 x0 + 3 x6 + 4 x7 + 2 x1 >= 33
bounds
""" + "".join(f" 0 <= x{j} <= 3\n" for j in range(12)) + "general\n " + " ".join(f"x{j}" for j in range(12)) + "\nend\n"


def _needs_cbc():
    if not cbc.available():
        pytest.skip("no CBC binary (pip install pulp)")


# ---------------------------------------------------------------------------------------------- CPLEX


def _truncated_files(tmp_path) -> dict:
    """The committed cancer-opt-n5-s0.lp cut after 4000 bytes (no ``End``; the last row unfinished), and
    diabetes-opt-n10-s0.mps cut 5 lines after ``BOUNDS`` (no ``ENDATA``; its bounds lost)."""
    lp = tmp_path / "cut.lp"
    lp.write_bytes((MODELS / ROWS["cancer-opt-n5-s0"]["lp"]).read_bytes()[:4000])
    lines = (MODELS / ROWS["diabetes-opt-n10-s0"]["mps"]).read_text().splitlines(keepends=True)
    k = next(k for k, line in enumerate(lines) if line.startswith("BOUNDS"))
    mps = tmp_path / "cut.mps"
    mps.write_text("".join(lines[:k + 6]))
    return {"lp": lp, "mps": mps}


def test_cplex_calls_a_truncated_file_an_error(tmp_path):
    """CPLEX reads a truncated file with warnings only ("Unfinished constraint is discarded.", "'End'
    missing.", "'ENDATA' missing.") and solves the part it read: the runner reported "optimal" 0 for the cut
    .lp and 0.3486 for the cut .mps (whose full file's optimum is 0.0426). The complete files still solve."""
    pytest.importorskip("cplex")
    files = _truncated_files(tmp_path)
    for fmt, words in (("lp", "'End' missing"), ("mps", "'ENDATA' missing")):
        result = cplex.solve(files[fmt], time_limit=60)
        assert result.status == "error" and result.objective is None, (fmt, result)
        assert words in result.message and "warning" in result.message.lower(), result.message
        row = ROWS["diabetes-opt-n10-s0"]
        full = cplex.solve(MODELS / row[fmt], time_limit=60, mip_gap=1e-6)
        assert full.status == "optimal" and full.objective == pytest.approx(row["highs_objective"], rel=1e-4)


def test_cplex_calls_a_file_it_reads_with_a_warning_an_error_not_an_answer(tmp_path):
    """Why any warning while reading is an error (not only those of a truncated file): CPLEX 22.2 drops the bounds
    of a variable that is in no row or objective ("Warning, line 6: Name 'z' does not exist.") and, solving on,
    calls min x + 2y, x + y >= 1 with 5 <= z <= 4 "optimal" 1.0; the bounds cross, so the file is infeasible
    (HiGHS says so)."""
    pytest.importorskip("cplex")
    path = tmp_path / "crossed.lp"
    path.write_text("minimize\n obj: x + 2 y\nsubject to\n c1: x + y >= 1\nbounds\n z >= 5\n z <= 4\nend\n")
    assert highs.solve(path).status == "infeasible"
    result = cplex.solve(path, time_limit=60)
    assert result.status == "error" and result.objective is None, result
    assert "Name 'z' does not exist" in result.message, result.message


@pytest.mark.parametrize("sense", ["minimize", "maximize"])
def test_cplex_solves_a_model_without_rows_and_still_refuses_other_warnings(tmp_path, sense):
    """Pyomo writes an empty RHS section for a model without rows (a variable, bounds, an objective); CPLEX 22.2
    warns "Blank RHS name changed to 'rhs'." on reading it, and the runner called the .mps an error. The optimum
    of a bounds-only model in closed form: each variable at the bound its cost favours. The same warning for a
    file with rows, and any other warning of a file without rows, are still errors."""
    pytest.importorskip("cplex")
    import pyomo.environ as pyo

    import bilevel

    lower, upper, cost = {"xcol": -2, "ycol": 1}, {"xcol": 3, "ycol": 4}, {"xcol": 2, "ycol": -1}
    m = pyo.ConcreteModel()
    m.xcol = pyo.Var(bounds=(lower["xcol"], upper["xcol"]))
    m.ycol = pyo.Var(bounds=(lower["ycol"], upper["ycol"]), domain=pyo.Integers)
    m.obj = pyo.Objective(expr=cost["xcol"] * m.xcol + cost["ycol"] * m.ycol,
                          sense=pyo.minimize if sense == "minimize" else pyo.maximize)
    sign = 1 if sense == "minimize" else -1
    best = {v: lower[v] if sign * cost[v] > 0 else upper[v] for v in cost}
    optimum = sum(cost[v] * best[v] for v in cost)
    for fmt in ("mps", "lp"):
        path = bilevel.write_model(m, tmp_path / f"bounds_only.{fmt}")
        result = cplex.solve(path, time_limit=60)
        assert result.status == "optimal" and result.objective == pytest.approx(optimum), (fmt, result)
        assert (result.bound == pytest.approx(optimum)
                and {v: result.solution[v] for v in best} == pytest.approx(best)), (fmt, result)
    assert "\nRHS\nBOUNDS\n" in (tmp_path / "bounds_only.mps").read_text()  # the empty RHS section
    cases = {  # a row whose right-hand side is missing; no RHS section at all; cut short in BOUNDS
        "row.mps": "NAME x\nROWS\n N obj\n G r1\nCOLUMNS\n xcol obj 1 r1 1\nRHS\nBOUNDS\n UP BOUND xcol 3\nENDATA\n",
        "none.mps": "NAME x\nROWS\n N obj\nCOLUMNS\n xcol obj 1\nBOUNDS\n UP BOUND xcol 3\nENDATA\n",
        "cut.mps": "NAME x\nROWS\n N obj\nCOLUMNS\n xcol obj 1\nRHS\nBOUNDS\n UP BOUND xcol 3\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        result = cplex.solve(tmp_path / name, time_limit=60)
        assert result.status == "error" and "warning" in result.message.lower(), (name, result)


@pytest.mark.parametrize("runner", [highs, scip, cbc, cplex, gurobi, xpress], ids=lambda r: r.NAME)
def test_every_runner_refuses_bad_limits_and_reads_inf_as_no_limit(runner):
    """A NaN or negative time limit and a NaN, negative or infinite gap are InputErrors before the solver sees
    them (common.check_limits). Before, HiGHS ignored -1 s and solved to "optimal", CBC stopped at once, SCIP
    raised after printing to stderr, Gurobi and Xpress read a NaN gap as none. A time limit of inf or above
    1e20 s is none: CPLEX called inf an error (its 1015) and SCIP raised on it."""
    path = MODELS / ROWS["diabetes-opt-n10-s0"]["mps"]  # optimum 0.0426 (not 0, which a stopped solve can show)
    for time_limit, mip_gap, name in ((float("nan"), None, "time_limit"), (-1.0, None, "time_limit"),
                                      ("soon", None, "time_limit"), (None, float("nan"), "mip_gap"),
                                      (None, -0.5, "mip_gap"), (None, float("inf"), "mip_gap")):
        with pytest.raises(InputError, match=name):
            runner.solve(path, time_limit=time_limit, mip_gap=mip_gap)
    if not runner.available():
        pytest.skip(f"{runner.NAME} is not available")
    optimum = float(ROWS["diabetes-opt-n10-s0"]["highs_objective"])
    for limit in (float("inf"), 1e30):
        result = runner.solve(path, time_limit=limit, mip_gap=1e-6)
        assert result.status == "optimal" and result.objective == pytest.approx(optimum, rel=1e-4, abs=1e-6), result
    assert common.check_limits(0, 0) == (0.0, 0.0) and common.check_limits(None, None) == (None, None)
    assert common.check_limits(1e20, 2) == (1e20, 2.0) and common.check_limits(1e21, None) == (None, None)



@pytest.mark.parametrize("runner", [highs, scip, cbc, cplex, gurobi, xpress], ids=lambda r: r.NAME)
def test_every_runner_refuses_a_path_that_is_no_file_in_one_line(runner, tmp_path):
    """None or an int as the path was pathlib's TypeError (not the InputError the docstrings promise), and a folder
    named like an instance file was "not found" although it is there."""
    for path in (None, 3, ["a.lp"]):
        with pytest.raises(InputError, match="must be a path"):
            runner.solve(path)
    (tmp_path / "model.lp").mkdir()
    with pytest.raises(InputError, match="is a folder"):
        runner.solve(tmp_path / "model.lp")
    with pytest.raises(InputError, match="not found"):
        runner.solve(tmp_path / "absent.mps")


@pytest.mark.parametrize("runner", [highs, cbc], ids=lambda r: r.NAME)
def test_a_runner_names_a_pipe_as_no_regular_file(runner, tmp_path):
    """A named pipe called like an instance file exists, but was reported "not found"."""
    pipe = tmp_path / "model.mps"
    os.mkfifo(pipe)
    with pytest.raises(InputError, match=r"instance file .*model.mps' is not a regular file"):
        runner.solve(pipe)


# ------------------------------------------------------------------------------------------------ CBC


def test_cbc_bound_after_stopping_on_the_gap_is_its_lower_bound(tmp_path):
    """With a relative gap of 0.2 CBC stops at 99 ("Optimal solution found (within gap tolerance)", "Lower
    bound: 87.494"); the runner reported the bound 99, above the optimum 92 (HiGHS with gap 0). A proven bound
    must not pass the optimum: at most 92, as HiGHS's at the same gap (at least -92 for the same problem
    written as maximisation, whose objective and bound CBC prints negated)."""
    _needs_cbc()
    path = tmp_path / "g2.lp"
    path.write_text(G2_LP)
    exact = highs.solve(path, mip_gap=0)
    assert exact.status == "optimal" and exact.objective == pytest.approx(92)
    oracle = highs.solve(path, mip_gap=0.2)
    assert oracle.bound <= exact.objective + 1e-6
    result = cbc.solve(path, mip_gap=0.2, time_limit=60)
    assert result.status == "optimal" and result.objective >= exact.objective - 1e-6, result
    assert result.bound == pytest.approx(87.494) and result.bound <= exact.objective + 1e-6, result
    maximise = tmp_path / "g2max.lp"  # max -f: the same problem, bound and objective negated
    first, objective, rest = G2_LP.split("\n", 2)
    maximise.write_text("maximize\n" + objective.replace(" + ", " - ").replace("obj: ", "obj: -") + "\n" + rest)
    assert common.is_maximisation(maximise)
    assert highs.solve(maximise, mip_gap=0).objective == pytest.approx(-92)
    result = cbc.solve(maximise, mip_gap=0.2, time_limit=60)
    assert result.status == "optimal" and result.objective <= -92 + 1e-6, result
    assert result.bound == pytest.approx(-87.494) and result.bound >= -92 - 1e-6, result


def test_cbc_output_parser_takes_the_printed_bound_of_a_gap_stop():
    """Output of CBC 2.10.3 on the problem above (minimisation; "Upper bound" for a maximisation model); a
    gap stop without a printed bound proves none, a proof of optimality without one proves the objective."""
    out = ("Cbc0011I Exiting as integer gap of 11.506006 less than 1e-10 or 20%\n"
           "Cbc0001I Search completed - best objective 99, took 0 iterations and 0 nodes (0.00 seconds)\n"
           "Result - Optimal solution found (within gap tolerance)\n\nObjective value:                99.00000000\n"
           "Lower bound:                    87.494\nGap:                            0.13\n")
    r = cbc.parse_output(out, "Optimal - objective value 99.00000000\n      0 x0       3       6\n")
    # the bound in full from "Cbc0011I ... integer gap of 11.506006", not the summary's 87.494 (3 decimals)
    assert (r.status, r.objective) == ("optimal", 99.0) and r.bound == pytest.approx(99 - 11.506006, abs=1e-9)
    maximised = out.replace("Objective value:                99", "Objective value:                -99").replace(
        "Lower bound:                    87.494", "Upper bound:                    -87.494")
    r = cbc.parse_output(maximised, "", maximise=True)
    assert (r.status, r.objective) == ("optimal", -99.0) and r.bound == pytest.approx(-(99 - 11.506006), abs=1e-9)
    r = cbc.parse_output(out.replace("Lower bound:                    87.494\n", ""), "")
    assert (r.status, r.objective, r.bound) == ("optimal", 99.0, None)


#: A small set cover (12 binaries) plus a column z >= 0.0374: optimum 0.03761 (HiGHS, gap 0), objectives of the size
#: of the library's mean hinge losses. With a relative gap of 0.05 CBC 2.10.3 stops at 0.03762 with the bound
#: 0.03762 - 1.5e-5 = 0.037605 (its "Cbc0011I Exiting as integer gap of 1.5e-05") and prints "Lower bound: 0.038".
COVER_LP = """minimize
obj: z + 7e-05 x0 + 1e-05 x1 + 6e-05 x2 + 1e-05 x3 + 1e-05 x4 + 2e-05 x5 + 7e-05 x6 + 4e-05 x7 + 4e-05 x8 \
+ 6e-05 x9 + 1e-05 x10 + 9e-05 x11
subject to
r0: x4 + x7 + x8 >= 1
r1: x7 + x11 >= 1
r2: x5 + x7 >= 1
r3: x1 + x3 >= 1
r4: x0 + x2 >= 1
r5: x0 + x5 >= 1
r6: x2 + x4 >= 1
r7: x4 + x5 + x8 >= 1
r8: x2 + x3 + x4 >= 1
r9: x3 + x4 >= 1
r10: x9 + x10 >= 1
r11: x2 + x3 + x11 >= 1
r12: x6 + x11 >= 1
r13: x0 + x4 >= 1
r14: x4 + x6 + x11 >= 1
r15: x0 + x6 >= 1
bounds
0.0374 <= z <= 1
binary
x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11
end
"""


def test_cbc_bound_of_a_gap_stop_is_not_rounded_above_the_optimum(tmp_path):
    """CBC's summary prints its bound with 3 decimals: "Lower bound: 0.038" for the bound 0.037605 of the problem
    above, and the runner reported 0.038, above its own objective 0.03762 and the optimum 0.03761 (HiGHS, gap 0)."""
    _needs_cbc()
    path = tmp_path / "cover.lp"
    path.write_text(COVER_LP)
    exact = highs.solve(path, mip_gap=0)
    assert exact.status == "optimal"
    result = cbc.solve(path, mip_gap=0.05, time_limit=60)
    assert result.status == "optimal" and result.objective >= exact.objective - 1e-9, result
    assert result.bound is not None and result.bound <= exact.objective + 1e-9, result
    assert result.bound <= result.objective


def test_cbc_output_parser_takes_the_bound_of_the_search_lines_not_the_rounded_summary():
    """Output of CBC 2.10.3 on the problem above; and a time-limit stop whose "Cbc0005I" line gives the bound in
    full (the summary's "%.3f" rounds 0.04462581 up to 0.045), for a minimisation and a maximisation model."""
    out = ("Cbc0011I Exiting as integer gap of 1.5e-05 less than 1e-10 or 5%\n"
           "Cbc0001I Search completed - best objective 0.03762000000000001, took 0 iterations and 0 nodes "
           "(0.00 seconds)\n"
           "Result - Optimal solution found (within gap tolerance)\n\nObjective value:                0.03762000\n"
           "Lower bound:                    0.038\nGap:                            0.00\n")
    r = cbc.parse_output(out, "Optimal - objective value 0.03762000\n")
    assert r.status == "optimal" and r.objective == pytest.approx(0.03762, abs=1e-12)
    assert r.bound == pytest.approx(0.03762 - 1.5e-5, abs=1e-12)
    out = ("Cbc0020I Exiting on maximum time\nCbc0005I Partial search - best objective 0.0452 (best possible "
           "0.04462581), took 5000 iterations and 90 nodes (3.00 seconds)\nResult - Stopped on time limit\n\n"
           "Objective value:                0.04520000\nLower bound:                    0.045\n")
    r = cbc.parse_output(out, "Stopped on time - objective value 0.04520000\n")
    assert (r.status, r.objective, r.bound) == ("time_limit", 0.0452, 0.04462581)
    maximised = out.replace(
        "Objective value:                0.0452", "Objective value:                -0.0452").replace(
        "Lower bound:                    0.045", "Upper bound:                    -0.045")
    r = cbc.parse_output(maximised, "", maximise=True)
    assert (r.status, r.objective, r.bound) == ("time_limit", -0.0452, -0.04462581)
    # without the search lines, the summary rounded past the incumbent gives the incumbent (no bound lies beyond it)
    r = cbc.parse_output("Result - Optimal solution found (within gap tolerance)\n\nObjective value:                "
                         "0.03762000\nLower bound:                    0.038\n", "")
    assert (r.objective, r.bound) == (0.03762, 0.03762)
    r = cbc.parse_output("Result - Optimal solution found (within gap tolerance)\n\nObjective value:                "
                         "-0.03762000\nUpper bound:                    -0.038\n", "", maximise=True)
    assert (r.objective, r.bound) == (-0.03762, -0.03762)
    # a search line that does not match the summary (another run's) is not taken
    r = cbc.parse_output(out.replace("best possible 0.04462581", "best possible 0.01"), "")
    assert r.bound == 0.045


#: min 2x + 3y + z, x + y + z >= 1.5, x in {0, ..., 4} (general), y in [0, 4], z binary: optimum 2.5 (x = 0,
#: y = 0.5, z = 1). HiGHS writes its LP file with the section headers "bin", "gen" and "semi".
HEADERS_LP = """minimize
 obj: 2 x + 3 y + z
subject to
 c1: x + y + z >= 1.5
bounds
 0 <= x <= 4
 0 <= y <= 4
binary
 z
general
 x
end
"""


def test_cbc_calls_a_file_it_misreads_an_error(tmp_path):
    """CBC 2.10 reads HiGHS's "bin"/"gen" headers as column names ("### CoinLpIO::readLp(): Variable bin does
    not appear in objective function or constraints") and solved the relaxation: the runner reported optimal 2
    where HiGHS reads 2.5. A row "r1: 1.5 <= x + y <= 3.5" makes it print invalid names and "Now using default
    column names." and solve another model (optimal -7.5; HiGHS, SCIP and CPLEX refuse the row). An MPS
    column whose entries are not consecutive ("** duplicate name x") became two columns (optimal 0)."""
    _needs_cbc()
    import highspy

    from bilevel.highs_run import silent_highs

    source, written = tmp_path / "source.lp", tmp_path / "highs_written.lp"
    source.write_text(HEADERS_LP)
    h = silent_highs()
    assert h.readModel(str(source)) == highspy.HighsStatus.kOk
    h.writeModel(str(written))
    text = written.read_text()
    assert "\nbin\n" in text and "\ngen\n" in text
    assert highs.solve(written).objective == pytest.approx(2.5)
    result = cbc.solve(written, time_limit=60)
    assert result.status == "error" and result.objective is None and result.bound is None, result
    assert "Variable bin does not appear" in result.message
    ranged = tmp_path / "ranged.lp"
    ranged.write_text("minimize\n obj: 2 x + y\nsubject to\n r1: 1.5 <= x + y <= 3.5\n r2: -10 <= x <= 10\n"
                      "bounds\n -3 <= x <= 5\n -1.5 <= y <= 5\ngeneral\n x\nend\n")
    result = cbc.solve(ranged, time_limit=60)
    assert result.status == "error" and result.objective is None and "Invalid" in result.message, result
    duplicate = tmp_path / "duplicate.mps"
    duplicate.write_text("NAME          DUP\nROWS\n N  obj\n G  c1\nCOLUMNS\n    x         obj       1            c1"
                         "        1\n    y         obj       2            c1        1\n    x         c1        1\n"
                         "RHS\n    RHS       c1        4\nBOUNDS\n UP BND       x         3\nENDATA\n")
    result = cbc.solve(duplicate, time_limit=60)
    assert result.status == "error" and "duplicate name x" in result.message, result
    out = ("### CoinLpIO::is_invalid_name(): Name <= contains illegal character '<'\nNow using default column names.\n"
           "Result - Optimal solution found\n\nObjective value:                -7.50000000\n")
    r = cbc.parse_output(out, "Optimal - objective value -7.50000000\n      0 x0      -3       2\n")
    assert r.status == "error" and r.objective is None and r.solution == {} and "illegal character" in r.message


def test_cbc_calls_an_lp_file_with_a_non_ascii_name_an_error_not_a_traceback(tmp_path):
    """CBC 2.10 refuses a name with a character outside ASCII in an LP file and prints that character's first byte
    alone ("Name x(\u03a3) contains illegal character '\\xce'"): the runner's decoding of CBC's output stopped with a
    UnicodeDecodeError (a traceback from solvers.compare). HiGHS reads the file (the oracle: optimum 1.5)."""
    _needs_cbc()
    path = tmp_path / "greek.lp"
    path.write_text("minimize\n obj: 3 x(\u03a3) + 2 y\nsubject to\n c1: x(\u03a3) + 2 y >= 1.5\nbounds\n"
                    " 0 <= x(\u03a3) <= 3\n 0 <= y <= 2\nend\n", encoding="utf-8")
    assert highs.solve(path).objective == pytest.approx(1.5)
    result = cbc.solve(path, time_limit=60)
    assert result.status == "error" and result.objective is None and "illegal character" in result.message, result


def test_cbc_solves_a_valid_file_whose_variable_has_bounds_only(tmp_path):
    """CBC prints the same "### ... Variable z does not appear in objective function or constraints" for a valid
    file's variable that appears only in the bounds as for a misread "bin" header: such a file was an error.
    HiGHS is the oracle, on the same file; crossed bounds on that variable make both call it infeasible."""
    _needs_cbc()
    text = "minimize\n obj: x + 2 y\nsubject to\n c1: x + y >= 1.5\nbounds\n 0 <= x <= 1\n 0 <= y <= 4\n {}\nend\n"
    for bounds, status in (("1 <= z <= 2", "optimal"), ("3 <= z <= 2", "infeasible")):
        path = tmp_path / "unused.lp"
        path.write_text(text.format(bounds))
        expect = highs.solve(path)
        result = cbc.solve(path, time_limit=60)
        assert expect.status == status, expect
        assert result.status == status, result
        if status == "optimal":
            assert result.objective == pytest.approx(expect.objective) == pytest.approx(2.0)


OBJECTIVES = [  # objective sections of LP files, some with constant terms
    "minimize\n obj: 2 x + 3 y + 5",
    "minimize\n obj: 2 x + 3 y",
    "min\nobjective:\n+2 x\n+3 y\n-4.5\n",
    "maximize\n obj: - 3 + 2 x + 3 y \\ + 7 is a comment\n + 1.5e-1",
    "\\* a comment + 9 *\\\nminimize\n obj: 2 x + 3 y \\* + 9 *\\\n - 1.25E+1",
    "minimize\n obj: 2 x + 3 y + [ 2 x ^ 2 + 4 x * y ] / 2 + .5",
    "minimize\n 2 x + 3 y + 0",
    "Minimize\n obj: 2e1 x + 3 y - 2 + 2",
]


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_lp_objective_constant_is_the_offset_highs_reads(tmp_path, objective):
    import highspy

    from bilevel.highs_run import silent_highs
    from solvers.common import lp_objective_constant

    path = tmp_path / "c.lp"
    path.write_text(objective + "\nsubject to\n c1: x + y >= 1\nbounds\n 0 <= x <= 4\n 0 <= y <= 4\nend\n")
    h = silent_highs()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    assert lp_objective_constant(path) == pytest.approx(h.getLp().offset_, abs=1e-12)


def test_cbc_refuses_an_lp_objective_with_a_constant(tmp_path):
    """CBC 2.10 drops the constant of ``obj: 2 x + 3 y + 5`` and reported optimal 2 where the optimum is 7."""
    _needs_cbc()
    path = tmp_path / "k.lp"
    body = "\nsubject to\n c1: x + y >= 1\nbounds\n 0 <= x <= 4\n 0 <= y <= 4\ngeneral\n x\nend\n"
    path.write_text("minimize\n obj: 2 x + 3 y + 5" + body)
    assert highs.solve(path).objective == pytest.approx(7.0)
    result = cbc.solve(path, time_limit=60)
    assert result.status == "error" and result.objective is None and "constant term (5)" in result.message, result
    path.write_text("minimize\n obj: 2 x + 3 y" + body)
    assert cbc.solve(path, time_limit=60).objective == pytest.approx(2.0)


def test_an_lp_file_without_an_objective_sense_is_an_error_for_every_runner(tmp_path):
    """HiGHS 1.15 and SCIP 10 read "minimise" (not an LP keyword) as a model with the objective 0 and reported
    optimal 0; CPLEX ("Max or Min missing") and CBC refuse the file. With "minimize" all give 2."""
    body = " obj: 2 x + 3 y\nsubject to\n c1: x + y >= 1\nbounds\n 0 <= x <= 4\n 0 <= y <= 4\nend\n"
    for sense, expect in (("minimise", None), ("\\ a comment\nMinimize", 2.0)):
        path = tmp_path / "s.lp"
        path.write_text(f"{sense}\n{body}")
        for runner in (highs, scip, cplex, cbc, gurobi, xpress):
            result = runner.solve(path, time_limit=60)
            if result.status == "unavailable":
                continue
            if expect is None:
                assert result.status == "error" and result.objective is None, result
            else:
                assert result.status == "optimal" and result.objective == pytest.approx(expect), result


def _cuts(path: Path, every: int):
    """The text of ``path`` cut at every ``every``-th line boundary (the last line kept off), and cut at 1000
    bytes, as ``(where, text)`` pairs."""
    lines = path.read_text().splitlines(keepends=True)
    yield "1000 bytes", path.read_text()[:1000]
    for k in range(1, len(lines) - 1, every):
        yield f"{k} lines", "".join(lines[:k])


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_a_file_cut_short_is_an_error_for_every_runner(tmp_path, fmt):
    """HiGHS read cancer-opt-n5-s0.mps cut to 1000 bytes as a 2-column model, optimal 0; SCIP read that .lp
    cut at a line boundary inside its constraints as the part before the cut, optimal 0 on 20 of 63 cuts of
    cancer-opt-n10-s0.lp, and CBC ran on for 120 s past its 20 s limit on the .lp cut before its last line. Every
    runner now calls each cut file an error at once (CPLEX through its reading warnings, the others through
    the end-marker check)."""
    source = MODELS / ROWS["cancer-opt-n5-s0"][fmt]
    path = tmp_path / f"cut.{fmt}"
    answered = []
    for where, text in _cuts(source, 40):
        path.write_text(text)
        assert common.end_marker_error(path) is not None, where
        for runner in (highs, scip, cplex, cbc, gurobi, xpress):
            result = runner.solve(path, time_limit=20)
            if result.status not in ("error", "unavailable") or result.objective is not None:
                answered.append((runner.NAME, where, result.status, result.objective))
    assert not answered


def test_end_markers_of_complete_files(tmp_path):
    """Every committed instance file ends right; a closing keyword in any case, followed by blank lines and
    comments, still counts; a file whose last word is another one does not."""
    committed = [MODELS / row[fmt] for row in ROWS.values() for fmt in ("mps", "lp") if (MODELS / row[fmt]).exists()]
    assert len(committed) >= 20
    for path in committed:
        assert common.end_marker_error(path) is None, path
    body = "minimize\n obj: x\nsubject to\n c: x >= 1\n"
    for text, ok in ((body + "End\n\n\\ trailing comment\n", True), (body + "END", True),
                     (body + "end \\* a block\n comment *\\\n", True), (body, False), (body + "ending\n", False)):
        path = tmp_path / "e.lp"
        path.write_text(text)
        assert (common.end_marker_error(path) is None) is ok, text
        if ok and "*" not in text:  # HiGHS 1.15.1 reads no block comment
            assert highs.solve(path).objective == pytest.approx(1.0)
    for text, ok in (("NAME x\nROWS\n N obj\nCOLUMNS\n x obj 1\nENDATA\n* comment\n\n", True),
                     ("NAME x\nROWS\n N obj\nCOLUMNS\n x obj 1\nendata", True),
                     ("NAME x\nROWS\n N obj\nCOLUMNS\n x obj 1\n", False)):
        path = tmp_path / "e.mps"
        path.write_text(text)
        assert (common.end_marker_error(path) is None) is ok, text


def test_cbc_runner_takes_any_finite_time_limit_and_inf_as_none():
    """A time limit of 1e9 s made the runner's watchdog (3 T + 60 s) too long for subprocess (OverflowError);
    CBC refuses "-sec inf"."""
    _needs_cbc()
    path = MODELS / ROWS["cancer-opt-n5-s0"]["mps"]
    for limit in (1e9, 1e30, float("inf")):
        result = cbc.solve(path, time_limit=limit)
        assert result.status == "optimal" and result.objective == pytest.approx(0.0, abs=1e-9), (limit, result)


# --------------------------------------------------------------------------------------------- compare


def _manifest(tmp_path, drop=(), **cells) -> Path:
    """A manifest of cancer-opt-n5-s0 with absolute file paths, without the columns in ``drop`` and with
    ``cells`` replaced."""
    with open(MANIFEST, newline="") as fh:
        reader = csv.DictReader(fh)
        columns = [c for c in reader.fieldnames if c not in drop]
        row = next(r for r in reader if r["id"] == "cancer-opt-n5-s0")
    for fmt in ("mps", "lp", "names"):
        row[fmt] = str(MODELS / row[fmt])
    row.update(cells)
    path = tmp_path / "manifest.csv"
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, columns, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        w.writerow(row)
    return path


@pytest.fixture
def no_solve(monkeypatch):
    """Make any HiGHS solve fail the test: bad input must be refused before the first solve."""
    def solve(*args, **kwargs):
        raise AssertionError("compare solved before refusing its input")

    monkeypatch.setattr(highs, "solve", solve)


def test_compare_refuses_a_manifest_without_a_needed_column_or_cell(tmp_path, capsys, no_solve):
    """KeyError 'lp' (--format lp or both without an lp column), KeyError 'n_train' (--max-size without it),
    TypeError (an empty mps cell) were tracebacks."""
    cases = [((["lp"], {}), ["--format", "lp"], "'lp'"),
             ((["lp"], {}), ["--format", "both"], "'lp'"),
             ((["n_train"], {}), ["--max-size", "10"], "'n_train'"),
             (((), {"n_val": ""}), ["--max-size", "10"], "'n_val'"),
             (((), {"mps": ""}), [], "'mps'"),
             (((), {"lp": ""}), ["--format", "both"], "'lp'")]
    for (drop, cells), flags, word in cases:
        path = _manifest(tmp_path, drop, **cells)
        assert compare.main([str(path), *flags]) == 2, (drop, cells, flags)
        err = capsys.readouterr().err
        assert err.startswith("compare: error: ") and word in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(InputError, match="'lp'"):
        compare.compare(_manifest(tmp_path, ["lp"]), formats=("lp",))


def test_a_manifest_that_is_not_utf8_csv_is_refused(tmp_path, capsys, no_solve):
    """read_manifest let UnicodeDecodeError through: export-library and compare ended with a traceback."""
    from bilevel.cli import main

    bad = tmp_path / "out" / "manifest.csv"
    bad.parent.mkdir()
    bad.write_bytes(b"id,data,mode,mps\n\xff\xfe\n")
    with pytest.raises(InputError, match="not a readable CSV manifest"):
        library.read_manifest(bad)
    assert compare.main([str(bad)]) == 2
    assert "not a readable CSV manifest" in capsys.readouterr().err
    code = main(["export-library", "--out", str(bad.parent), "--sizes", "5", "--data", "cancer", "--no-solve"])
    err = capsys.readouterr().err
    assert code == 2 and "not a readable CSV manifest" in err and len(err.strip().splitlines()) == 1, err


def test_compare_refuses_a_time_limit_that_is_not_finite_and_positive(tmp_path, capsys, no_solve):
    """--time-limit inf or 1e30: SCIP raised ValueError, CPLEX error 1015, CBC OverflowError; HiGHS ran
    without a limit. The largest accepted is SCIP's 1e20."""
    for value in ("inf", "1e30", "1.1e20", "nan", "0", "-1"):
        assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--time-limit", value]) == 2, value
        assert "--time-limit" in capsys.readouterr().err
    with pytest.raises(InputError, match="time_limit"):
        compare.compare(MANIFEST, patterns=["cancer-opt-n5-s0"], time_limit=float("inf"))
    assert compare.check_time_limit(1e20) == 1e20 and compare.check_time_limit(None) is None


def test_compare_refuses_output_paths_it_cannot_write_before_solving(tmp_path, capsys, no_solve):
    """--solutions naming a file (FileExistsError after the first solve) and --csv in a folder that cannot be
    made (only after all solves) are refused first."""
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder")
    for flags in (["--solutions", str(a_file)], ["--csv", str(a_file / "out.csv")], ["--csv", str(tmp_path)]):
        assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", *flags]) == 2, flags
        err = capsys.readouterr().err
        assert flags[0] in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(InputError, match="a_file"):
        compare.compare(MANIFEST, patterns=["cancer-opt-n5-s0"], solutions_dir=a_file)


def test_compare_refuses_a_csv_inside_the_solutions_folder(tmp_path, capsys, no_solve):
    """--csv sols/<id>.mps.highs.csv with --solutions sols replaced that run's solution file by the table (found by
    an audit); any --csv in that folder is refused before solving, one beside it is taken."""
    sols = tmp_path / "sols"
    for csv_path in (sols / "cancer-opt-n5-s0.mps.highs.csv", sols / "table.csv"):
        assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--solutions", str(sols),
                             "--csv", str(csv_path)]) == 2
        err = capsys.readouterr().err
        assert "lies in the --solutions folder" in err and len(err.strip().splitlines()) == 1, err
    assert not (sols / "table.csv").exists()


def test_compare_writes_csv_and_solutions_into_new_folders(tmp_path, capsys):
    """A --csv or --solutions path in a folder that does not exist yet: the folder is made, as for the other
    commands' output folders."""
    out, folder = tmp_path / "new" / "out.csv", tmp_path / "sols"
    flags = ["--csv", str(out), "--solutions", str(folder)]
    assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", *flags]) == 0
    assert "cancer-opt-n5-s0" in out.read_text() and (folder / "cancer-opt-n5-s0.mps.highs.csv").is_file()


def test_compare_refuses_a_csv_path_that_is_one_of_its_inputs(tmp_path, capsys, no_solve):
    """--csv naming the manifest replaced the library's manifest by the comparison records (exit 0, no word);
    naming an instance file or a name map it listed replaced that file. Refused before any solve, also through
    a symbolic link, and the files are left unchanged."""
    import shutil

    models = tmp_path / "my models"
    shutil.copytree(MODELS, models)
    manifest = models / "manifest.csv"
    row = ROWS["cancer-opt-n5-s0"]
    link = tmp_path / "link.csv"
    link.symlink_to(manifest)
    for target in (manifest, link, models / row["mps"], models / row["lp"], models / row["names"]):
        before = target.read_bytes()
        code = compare.main([str(manifest), "--only", "cancer-opt-n5-s0", "--csv", str(target)])
        err = capsys.readouterr().err
        assert code == 2 and "--csv" in err and "overwrite" in err and len(err.strip().splitlines()) == 1, err
        assert target.read_bytes() == before


def test_compare_removes_an_earlier_runs_solution_file_when_this_run_has_none(tmp_path, monkeypatch):
    """--solutions DIR: an earlier run's <id>.<fmt>.<solver>.csv stayed when this run gave no incumbent (here the
    solver stops without one), read as this run's (check_solution trusts it); a run with one replaces it whole."""
    from solvers.common import RunResult
    from solvers.solution_files import read_solution_file

    stale = tmp_path / "cancer-opt-n5-s0.mps.highs.csv"
    stale.write_text("name,value\nobjective,0.5\nC0,1\n")
    real = highs.solve
    monkeypatch.setattr(highs, "solve", lambda path, **k: RunResult("highs", str(path), "time_limit"))
    (rec,) = compare.compare(MANIFEST, patterns=["cancer-opt-n5-s0"], solutions_dir=tmp_path)
    assert rec["status"] == "time_limit" and not stale.exists()
    monkeypatch.setattr(highs, "solve", real)
    (rec,) = compare.compare(MANIFEST, patterns=["cancer-opt-n5-s0"], solutions_dir=tmp_path)
    values, objective = read_solution_file(stale)
    assert rec["status"] == "optimal" and objective == pytest.approx(rec["objective"]) and len(values) > 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_compare_with_a_full_disk_while_writing_its_csv_exits_2_in_one_line(tmp_path, capsys, monkeypatch):
    """An operating-system error writing --csv is one line on stderr and exit code 2 (1 is the verdict), and the
    earlier CSV stays whole."""
    import errno

    path = tmp_path / "c.csv"
    path.write_text("earlier\n")

    def full(self, rows):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(csv.DictWriter, "writerows", full)
    assert compare.main([str(MANIFEST), "--only", "cancer-opt-n5-s0", "--csv", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("compare: error:") and "No space left on device" in err[-1] and "Traceback" not in err
    assert path.read_text() == "earlier\n" and [p.name for p in tmp_path.iterdir()] == ["c.csv"]


def test_a_folder_given_as_the_solution_file_is_named_a_folder(tmp_path):
    """A folder given as the solution file was reported as "not found", though it is there."""
    from solvers.check_solution import check_solution
    from solvers.solution_files import read_solution_file

    with pytest.raises(InputError, match="is a folder, not a file"):
        read_solution_file(tmp_path)
    manifest = Path(__file__).resolve().parents[1] / "models" / "manifest.csv"
    with pytest.raises(InputError, match="is a folder, not a file"):
        check_solution(manifest, "diabetes-opt-n10-s0", tmp_path)
    with pytest.raises(InputError, match="not found"):
        read_solution_file(tmp_path / "missing.sol")
    with pytest.raises(InputError, match="solution file '/dev/null' is not a regular file"):  # was "not found"
        read_solution_file("/dev/null")


def test_highs_runner_checks_an_infeasible_verdict_without_presolve(tmp_path):
    """HiGHS 1.15.1's presolve calls this feasible pessimistic MILP (epsilon 0.2, one feature, 4 training and 5
    validation points) infeasible, and the runner reported that for the exported file. The oracle:
    bilevel.solve_model on the same model (it checks such a claim itself), and the optimum a point the package
    verifies; the runner must agree in both formats."""
    from bilevel import build_pessimistic_model, solve_model, verify_model, write_model
    from solvers import highs

    rng = np.random.default_rng(30)
    while True:
        X = rng.normal(size=(9, 1))
        y = np.where(rng.random(9) < 0.5, -1, 1)
        if len(set(y[:4])) == 2:
            break
    model = build_pessimistic_model(X[:4], y[:4], X[4:], y[4:], np.arange(5), 0.2)
    info = solve_model(model, mip_gap=1e-9, time_limit=60)
    assert info.status == "optimal" and verify_model(model).verified
    for suffix in (".mps", ".lp"):
        result = highs.solve(write_model(model, tmp_path / f"m{suffix}"), time_limit=60, mip_gap=1e-9)
        assert result.status == "optimal", (suffix, result)
        assert result.objective == pytest.approx(info.objective, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("kind", ["missing", "not_executable"])
def test_cbc_names_a_bilevel_cbc_that_is_no_executable_file(tmp_path, monkeypatch, kind):
    """BILEVEL_CBC naming a missing file gave "unavailable: pip install pulp" (the wrong way to mend it), and one
    naming a file without execute permission stopped solve() with a PermissionError."""
    exe = tmp_path / "cbc"
    if kind == "not_executable":
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o644)
    monkeypatch.setenv("BILEVEL_CBC", str(exe))
    lp = tmp_path / "m.lp"
    lp.write_text("minimize\n obj: x\nsubject to\n c: x >= 1\nbounds\n 0 <= x <= 2\nend\n")
    result = cbc.solve(lp, time_limit=10)
    assert result.status == "unavailable"
    assert "BILEVEL_CBC" in result.message and str(exe) in result.message
    assert not cbc.available()


def test_cbc_solve_reads_bilevel_cbc_once(tmp_path, monkeypatch):
    """solve() read BILEVEL_CBC twice, to search for the binary and again for the message: a value changed in
    between (here set, then unset) gave "pip install pulp" for a search that had looked at the missing file."""
    import os

    missing = str(tmp_path / "no-cbc")

    class Changing(dict):  # the environment, where BILEVEL_CBC is unset again after its first read
        reads = 0

        def get(self, key, default=None):
            if key != "BILEVEL_CBC":
                return super().get(key, default)
            Changing.reads += 1
            return missing if Changing.reads == 1 else default

    monkeypatch.setattr(os, "environ", Changing(os.environ))
    lp = tmp_path / "m.lp"
    lp.write_text("minimize\n obj: x\nsubject to\n c: x >= 1\nbounds\n 0 <= x <= 2\nend\n")
    result = cbc.solve(lp, time_limit=10)
    assert result.status == "unavailable" and missing in result.message, result
    assert Changing.reads == 1


def test_cbc_run_that_does_not_stop_names_the_given_file_not_its_copy(tmp_path, monkeypatch):
    """A CBC run past its wait was reported with the path of the runner's temporary copy (an upper-case ".LP" file
    is copied to in.lp for CBC), which no longer exists once solve returns."""
    import subprocess

    if not cbc.available():
        pytest.skip("needs a CBC binary")
    lp = tmp_path / "M.LP"
    lp.write_text("minimize\n obj: x\nsubject to\n c: x >= 1\nbounds\n 0 <= x <= 2\nend\n")

    def never_stops(cmd, **kwargs):
        raise subprocess.TimeoutExpired(cmd, kwargs.get("timeout"))

    monkeypatch.setattr(cbc.subprocess, "run", never_stops)
    result = cbc.solve(lp, time_limit=5)
    assert result.status == "error" and "did not stop" in result.message
    assert result.path == str(lp)


@pytest.mark.parametrize("bad, message", [("", "is an empty path"), (b"m.csv", "must be a path"),
                                          (None, "must be a path"), (3, "must be a path"),
                                          ("m\x00.csv", "holds a NUL character")],
                         ids=["empty", "bytes", "None", "int", "nul"])
def test_the_runners_path_arguments_refuse_what_is_no_path(bad, message, tmp_path, monkeypatch):
    """``read_solution_file``, ``select_instances``, ``compare``, ``write_csv`` and ``check_solution`` raised
    pathlib's TypeError for bytes, None or an int, and "" read the working directory ("manifest '.' is a folder";
    ``write_csv``: ValueError "PosixPath('.') has an empty name")."""
    from solvers.check_solution import check_solution
    from solvers.solution_files import read_solution_file

    monkeypatch.chdir(tmp_path)
    calls = [lambda: read_solution_file(bad), lambda: compare.select_instances(bad), lambda: compare.compare(bad),
             lambda: compare.write_csv([], bad), lambda: check_solution(bad, "x", "s.csv")]
    for call in calls:
        with pytest.raises(InputError, match=message):
            call()
    assert list(tmp_path.iterdir()) == []
