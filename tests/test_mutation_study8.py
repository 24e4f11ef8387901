"""Mutation study 8 of the solver runners' shared parts (solvers.common, solvers.solution_files,
solvers.check_solution, solvers.compare and the HiGHS, SCIP and CBC runners): each test kills a mutant that
passed the rest of the suite, against the documented behaviour (the modules' docstrings, solvers/README.md),
with an oracle of its own (a hand-checkable case, a hand-written file, HiGHS through highspy)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bilevel import library
from solvers import check_solution, common

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
MANIFEST = MODELS / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}

#: A one-column MPS body after its NAME and OBJSENSE lines: max x subject to x <= 4, 0 <= x <= 10 (optimum 4;
#: minimised, 0).
_MPS_BODY = ("ROWS\n N obj\n L c1\nCOLUMNS\n    x obj 1 c1 1\nRHS\n    rhs c1 4\nBOUNDS\n UP BND x 10\n"
             "ENDATA\n")


def _highs_read(tmp_path, objsense: str):
    """highspy, a silent Highs that has read the MPS file NAME m, ``objsense``, :data:`_MPS_BODY`, and its path."""
    highspy = pytest.importorskip("highspy")
    path = tmp_path / "m.mps"
    path.write_text("NAME m\n" + objsense + _MPS_BODY)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    return highspy, h, path


@pytest.mark.parametrize("sense", ["OBJSENSE max\n", "OBJSENSE\n    max\n", "OBJSENSE MAX\n"])
def test_is_maximisation_reads_an_objsense_entry_in_lower_case(tmp_path, sense):
    """solvers.common.is_maximisation: an MPS ``OBJSENSE`` section or line "whose entry starts with ``MAX``" is a
    maximisation, also in lower case, as HiGHS (the oracle) reads the file: it maximises it to 4, not 0."""
    _, h, path = _highs_read(tmp_path, sense)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(4.0)  # HiGHS maximised it
    assert common.is_maximisation(path) is True


def test_a_stopped_run_without_a_bound_is_consistent_with_a_better_optimum():
    """solvers.common.agreement: ``consistent`` when one side is not optimal and the intervals [bound, objective]
    overlap. A run stopped by its time limit with the incumbent 2 and no proven bound has the interval
    (-inf, 2], which holds the manifest's optimum 1: its incumbent is no bound, so this is no ``DISAGREE``."""
    row = {"highs_status": "optimal", "highs_objective": 1.0, "highs_best_bound": 1.0}
    stopped = common.RunResult("scip", "x.mps", "time_limit", objective=2.0, bound=None)
    assert common.agreement(row, stopped) == "consistent"
    # the same with the roles of the sides as the docstring's "at least one side": a proven bound of 0.5 below
    assert common.agreement(row, common.RunResult("scip", "x.mps", "time_limit", objective=2.0, bound=0.5)) == \
        "consistent"


def test_readable_name_gives_none_for_rows_and_the_objective():
    """solvers.check_solution.readable_name: a short MPS name maps through the name map to the readable name of a
    column, and "Returns None for a row or objective name" (a solution file may list row values, which are no
    variables). The short names are read from the committed name map by hand: ``OBJ`` the objective, ``R0`` a row,
    ``C0`` the column ``g[0]``."""
    row = ROWS["cancer-opt-n10-s0"]
    short_map = library.read_name_map(MODELS / row["names"])
    assert short_map["OBJ"][0] == "obj" and short_map["R0"][0] == "row" and short_map["C0"] == ("col", "g[0]")
    assert check_solution.readable_name("OBJ", short_map) is None
    assert check_solution.readable_name("R0", short_map) is None
    assert check_solution.readable_name("C0", short_map) == "g[0]"


def test_compare_check_tests_the_runs_claimed_objective(monkeypatch):
    """solvers.compare.compare with ``check``: each incumbent is re-verified by
    :func:`solvers.check_solution.check_solution`, which compares "the objective the file claims" with the one
    recomputed from ``(w, b)``. Also without ``solutions_dir`` the run's objective is that claim: a solver that
    reports HiGHS's optimal point with an objective 0.1 too high is ``rejected``, not ``trusted``."""
    from solvers import compare, highs, scip

    instance = "diabetes-opt-n10-s0"
    honest = highs.solve(MODELS / ROWS[instance]["mps"], time_limit=60, mip_gap=1e-6)
    assert honest.status == "optimal" and honest.solution

    def solve(path, **kw):
        return common.RunResult("scip", str(path), "optimal", objective=honest.objective + 0.1,
                                bound=honest.objective + 0.1, solution=dict(honest.solution))
    monkeypatch.setattr(scip, "available", lambda: True)
    monkeypatch.setattr(scip, "solve", solve)
    [record] = compare.compare(MANIFEST, ["scip"], ["mps"], time_limit=60.0, patterns=[instance], check=True)
    assert record["check"].startswith("rejected") and "claimed objective" in record["check"], record["check"]


#: min z + 3e-5 x0 + 2e-5 x1 + 4e-5 x2 + 1e-5 x3 over a cover of the 4-cycle x0-x1-x2-x3 (binaries), 0.5 <= z <= 1:
#: optimum 0.5 + 2e-5 + 1e-5 = 0.50003 (x1 = x3 = 1) by hand. With a relative gap of 5% SCIP 10 stops with the
#: status "gaplimit" (incumbent 0.5001, bound 0.5).
_CYCLE_COVER_LP = """minimize
obj: z + 3e-05 x0 + 2e-05 x1 + 4e-05 x2 + 1e-05 x3
subject to
r0: x0 + x1 >= 1
r1: x1 + x2 >= 1
r2: x2 + x3 >= 1
r3: x0 + x3 >= 1
bounds
0.5 <= z <= 1
binary
x0 x1 x2 x3
end
"""


def test_scip_stopping_on_the_requested_gap_is_optimal(tmp_path):
    """solvers.scip.solve: ``mip_gap`` is SCIP's ``limits/gap``, and a solve that stops on it has solved the model to
    the requested gap: status ``optimal`` (as HiGHS and CBC report a gap stop), not ``error``, with the incumbent
    within the gap of the optimum 0.50003 (by hand) and a bound below it."""
    pytest.importorskip("pyscipopt")
    from solvers import scip

    path = tmp_path / "cover.lp"
    path.write_text(_CYCLE_COVER_LP)
    result = scip.solve(path, mip_gap=0.05, time_limit=60)
    assert result.status == "optimal", result
    assert 0.50003 - 1e-9 <= result.objective <= 0.50003 * 1.05, result
    assert result.bound is not None and result.bound <= 0.50003 + 1e-9, result


@pytest.mark.parametrize("objective, section", [("obj: 2 x + 5 - - 5", "subject to"), ("obj: - - 3 + 2 x", "st"),
                                                ("obj: 2 x - 4 + 1", "subject to"), ("obj: 2 x", "such that"),
                                                ("obj: 2 x + 1", "such that")])
def test_lp_objective_constant_takes_each_sign_of_a_term(tmp_path, objective, section):
    """solvers.common.lp_objective_constant: "the sum of the numbers, with their signs, that multiply no variable"
    in the objective, which ends at the constraint section (``subject to``, ``such that``, ``st``, ...): two minus
    signs before a number make it positive, as HiGHS (the oracle: the offset it reads) takes them (``+ 5 - - 5`` is
    10, not 0: a 0 would let CBC drop the constant without a word), and the right-hand side 1 of a constraint
    after ``such that`` is no part of the objective."""
    highspy = pytest.importorskip("highspy")
    path = tmp_path / "c.lp"
    path.write_text(f"minimize\n{objective}\n{section}\nc: x >= 1\nend\n")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    assert common.lp_objective_constant(path) == pytest.approx(h.getLp().offset_)


@pytest.mark.parametrize("text", ["minimize\nend\n", "minimize\nobj: 0\nend\n"])
def test_scip_calls_a_file_without_variables_an_error(tmp_path, text):
    """solvers.scip.solve: status ``error`` for a file "from which it reads no variable" (SCIP reads such text as
    an empty model and would call it optimal). These hand-written LP files start with an objective sense and end
    with ``end``, so no earlier check refuses them."""
    pytest.importorskip("pyscipopt")
    from solvers import scip

    path = tmp_path / "none.lp"
    path.write_text(text)
    assert common.file_error(path) is None
    result = scip.solve(path)
    assert result.status == "error" and result.objective is None, result


def test_a_w_bar_within_the_tolerance_below_its_box_is_trusted():
    """solvers.check_solution.check_solution: the leader's box ``w_bar_lb <= w_bar`` holds "within ``tolerance``".
    HiGHS's optimum of a committed optimistic instance with some ``w_bar[j] = w[j] = 0`` at the box's bound 0 (on
    HiGHS 1.15.1 cancer-opt-n10-s0's, j = 0), the same point with ``w_bar[j] = -1e-7`` (a tenth of the 1e-5
    tolerance below it, as a solver's round-off puts it) is still trusted, not refused as input (the inner LPs need
    ``w_bar >= 0``)."""
    from solvers import highs

    for instance in sorted(i for i, r in ROWS.items() if r["mode"] == "optimistic" and r["committed"]):
        row = ROWS[instance]
        point = highs.solve(MODELS / row["mps"], time_limit=60, mip_gap=1e-9)
        assert point.status == "optimal"
        short = {name: key for key, (kind, name) in library.read_name_map(MODELS / row["names"]).items()}
        solution = dict(point.solution)
        zero = [j for j in range(9) if f"w_bar[{j}]" in short
                and solution[short[f"w_bar[{j}]"]] == 0 and solution[short[f"w[{j}]"]] == 0]
        if zero:
            break
    else:
        pytest.skip("no committed optimistic optimum of this HiGHS has a w_bar at 0")
    solution[short[f"w_bar[{zero[0]}]"]] = -1e-7
    report = check_solution.check_solution(MANIFEST, instance, solution)
    assert report.trusted, report.reasons


def test_select_instances_keeps_the_size_limit():
    """solvers.compare.select_instances: "with ``max_size``, [the rows] whose ``max(n_train, n_val)`` is at most
    that"; the manifest's own columns are the oracle."""
    from solvers import compare

    every = library.read_manifest(MANIFEST)
    small = {r["id"] for r in every if max(int(r["n_train"]), int(r["n_val"])) <= 5}
    assert small and len(small) < len(every)
    assert {r["id"] for r in compare.select_instances(MANIFEST, max_size=5)} == small


def test_a_highs_pretty_table_without_a_primal_column_is_refused(tmp_path):
    """solvers.solution_files.read_solution_file: a HiGHS "pretty" file is a ``Columns`` table ``Index [Status]
    Lower Upper Primal [Dual] Type Name``; a ``Columns`` table without its Primal column holds no solution (its
    third number is a Dual, 0.5 here, not x's value): InputError, not ``x = 0.5``."""
    from bilevel.errors import InputError
    from solvers.solution_files import read_solution_file

    path = tmp_path / "x.sol"
    path.write_text("Columns\n    Index Status        Lower        Upper         Dual  Name\n"
                    "        0     BS            0            1          0.5  x\nRows\n"
                    "Model status: Optimal\nObjective value: 1\n")
    with pytest.raises(InputError, match="not with a HiGHS column table"):
        read_solution_file(path)


def test_a_csv_row_of_one_field_is_refused_without_a_header(tmp_path):
    """solvers.solution_files.read_solution_file: InputError for a CSV row "of one field (``C5``)", also in a CSV
    file without the ``name,value`` header: the variable would otherwise count as 0."""
    from bilevel.errors import InputError
    from solvers.solution_files import read_solution_file

    path = tmp_path / "x.csv"
    path.write_text("w_bar(0),1\nb\n")
    with pytest.raises(InputError, match="one field"):
        read_solution_file(path)


@pytest.mark.parametrize("time_limit", [None, 0])
def test_highs_reports_no_incumbent_for_an_infeasible_lp(tmp_path, time_limit):
    """solvers.highs.solve and solvers.common.RunResult: ``objective`` and ``solution`` are the incumbent's, and an
    LP with ``x + y >= 3`` and ``x + y <= 1`` (infeasible by hand) has none, whether HiGHS proves it infeasible or
    stops at once on ``time_limit=0``: HiGHS's infeasible iterate is no incumbent (``solvers.common.agreement`` reads
    an objective beside a proof of infeasibility as a feasible point, DISAGREE)."""
    pytest.importorskip("highspy")
    from solvers import highs

    path = tmp_path / "infeasible.lp"
    path.write_text("minimize\nobj: x\nsubject to\nc1: x + y >= 3\nc2: x + y <= 1\nend\n")
    result = highs.solve(path, time_limit=time_limit)
    assert result.status == ("infeasible" if time_limit is None else "time_limit"), result
    assert result.objective is None and result.solution == {}, result


def test_cbc_parser_calls_a_column_marked_outside_its_bounds_an_error():
    """solvers.cbc.parse_output: "A point CBC marks infeasible (a column marked ``**`` in its solution file: outside
    its bounds) is no answer either (``error``)", even when CBC's output says "Optimal" and prints no Cgl0013I. The
    output and solution file are hand-written in CBC 2.10's format."""
    from solvers import cbc

    out = "Result - Optimal solution found\n\nObjective value:                3.00000000\nEnumerated nodes: 0\n"
    solution = "Optimal - objective value 3.00000000\n** 0 x3 5.0005e12 0\n      1 x1 1 0\n"
    result = cbc.parse_output(out, solution)
    assert result.status == "error" and "x3" in result.message, result


# ------------------------------------------------------------- the study's two findings, mended

#: max x subject to x <= 3 (optimum 3; minimised, 0), with the sense after a block comment on its line, or on the
#: line that closes a block comment over two lines.
_COMMENTED_SENSE = {"same line": "\\* a note *\\ maximize\nobj: x\nsubject to\nc: x <= 3\nend\n",
                    "two lines": "\\* a note\nstill the note *\\ maximize\nobj: x\nsubject to\nc: x <= 3\nend\n"}


@pytest.mark.parametrize("case", sorted(_COMMENTED_SENSE))
def test_a_sense_after_a_block_comment_is_refused(tmp_path, case):
    """solvers.common.lp_comment_error and the runners: text after the ``*\\`` of a block comment on its line, or a
    block comment over two lines, is read as a comment to the end of the line by HiGHS and SCIP (they minimised this
    ``max x, x <= 3`` to "optimal" 0, not 3), so a runner that checks files answers ``error``, naming the line."""
    from solvers import highs, scip

    path = tmp_path / "c.lp"
    path.write_text(_COMMENTED_SENSE[case])
    line = 1 if case == "same line" else 2
    assert common.lp_comment_error(path).startswith(f"line {line} of the LP file")
    for runner in (highs, scip):
        if runner.available():
            result = runner.solve(path)
            assert result.status == "error" and result.objective is None and f"line {line}" in result.message


@pytest.mark.parametrize("text", ["\\* Source Pyomo model name=m *\\\nmin\nobj: x \\ a note\nsubject to\n"
                                  "c: x >= 1 \\* another *\\\nend\n",
                                  "\\* a note\n\\ over two lines *\\\nmin\nobj: x\nsubject to\nc: x >= 1\nend\n",
                                  "min\nobj: x\nsubject to\nc: x >= 1\nend\n"])
def test_comments_every_solver_reads_alike_are_accepted(tmp_path, text):
    """solvers.common.lp_comment_error: ``None`` for a block comment that ends its line (Pyomo's first line), line
    comments after text, a two-line block whose lines each start with ``\\``, and no comment; HiGHS solves such a
    file to its optimum 1 (min x, x >= 1)."""
    from solvers import highs

    path = tmp_path / "c.lp"
    path.write_text(text)
    assert common.lp_comment_error(path) is None and common.file_error(path) is None
    if highs.available():
        result = highs.solve(path)
        assert result.status == "optimal" and result.objective == pytest.approx(1.0), result


def test_the_library_lp_files_have_no_comment_the_solvers_read_differently():
    """solvers.common.lp_comment_error: the package's exported ``.lp`` files (Pyomo's writer) pass it."""
    files = sorted(MODELS.glob("*.lp"))
    assert files and all(common.lp_comment_error(f) is None for f in files)


@pytest.mark.parametrize("objsense, read", [("OBJSENSE MAXIMIZE\n", False), ("OBJSENSE MAX\n", True),
                                            ("OBJSENSE\n    MAXIMIZE\n", True), ("OBJSENSE\n    MAX\n", True)])
def test_highs_reading_another_objective_sense_is_an_error(tmp_path, objsense, read):
    """solvers.highs.solve and solvers.common.sense_error: HiGHS reads a one-line ``OBJSENSE MAXIMIZE`` as no sense
    (``read`` False: highspy's own reading is the oracle, checked here) and would minimise ``max x, x <= 4`` to
    "optimal" 0; the runner answers ``error`` then, and solves the file to 4 when HiGHS reads its sense."""
    from solvers import highs

    highspy, h, path = _highs_read(tmp_path, objsense)
    if (h.getLp().sense_ == highspy.ObjSense.kMaximize) != read:
        pytest.skip(f"HiGHS {h.version()} reads {objsense!r} otherwise than 1.15-1.16")
    result = highs.solve(path)
    if read:
        assert result.status == "optimal" and result.objective == pytest.approx(4.0), result
    else:
        assert result.status == "error" and result.objective is None and "minimise" in result.message, result


def test_sense_error_compares_the_solvers_sense_with_the_files(tmp_path):
    """solvers.common.sense_error: ``None`` when the solver's sense is the file's (is_maximisation), else a message
    naming the solver and both senses."""
    mps = tmp_path / "m.mps"
    mps.write_text("NAME m\nOBJSENSE\n    MAX\n" + _MPS_BODY)
    lp = tmp_path / "m.lp"
    lp.write_text("min\nobj: x\nsubject to\nc: x >= 1\nend\n")
    assert common.sense_error("S", True, mps) is None and common.sense_error("S", False, lp) is None
    message = common.sense_error("S", False, mps)
    assert message.startswith("S read the objective as one to minimise, but the file's objective sense is maximise")
    assert "one to maximise, but the file's objective sense is minimise" in common.sense_error("S", True, lp)


@pytest.mark.parametrize("maximise", [True, False])
@pytest.mark.parametrize("suffix", ["mps", "lp"])
@pytest.mark.parametrize("name", ["scip", "gurobi", "xpress"])
def test_scip_gurobi_xpress_compare_the_sense_they_read(tmp_path, monkeypatch, name, suffix, maximise):
    """solvers.scip, solvers.gurobi, solvers.xpress and solvers.common.sense_error: these three read the sense of
    ``max x, x <= 4`` (an MPS file with ``OBJSENSE`` and ``MAX`` on the next line, an LP file's ``maximize``; optimum
    4) and of ``min -x`` (no ``OBJSENSE``, ``minimize``; optimum -4) and solve them; their runners compare the sense
    they read with the file's all the same, so where the two differ (here the file's sense is read otherwise by a
    replaced ``is_maximisation``) the answer is ``error`` naming the solver, not the "optimal" of another model."""
    import importlib

    from solvers import common

    importlib.import_module("pyomo.environ")  # first: Pyomo 6.10 fails to import it after gurobipy < 12
    runner = common.get_runner(name)
    if not runner.available():
        pytest.skip(f"{name} is not available here")
    path = tmp_path / f"m.{suffix}"
    if suffix == "mps":
        body = _MPS_BODY if maximise else _MPS_BODY.replace("x obj 1", "x obj -1")
        path.write_text("NAME m\n" + ("OBJSENSE\n    MAX\n" if maximise else "") + body)
    else:
        path.write_text(("maximize\n obj: x" if maximise else "minimize\n obj: - x")
                        + "\nsubject to\n c1: x <= 4\nbounds\n 0 <= x <= 10\nend\n")
    result = runner.solve(path, time_limit=60)
    assert result.status == "optimal" and result.objective == pytest.approx(4.0 if maximise else -4.0), result
    monkeypatch.setattr(common, "is_maximisation", lambda path: not maximise)
    result = runner.solve(path, time_limit=60)
    assert result.status == "error" and result.objective is None, result
    label, senses = {"scip": "SCIP", "gurobi": "Gurobi", "xpress": "Xpress"}[name], ("minimise", "maximise")
    assert result.message.startswith(f"{label} read the objective as one to {senses[maximise]}, but the file's "
                                      f"objective sense is {senses[not maximise]}"), result.message


@pytest.mark.parametrize("objsense", ["OBJSENSE MAX\n", "OBJSENSE MAXIMIZE\n", "OBJSENSE\n    MAX\n"])
def test_cplex_reading_another_objective_sense_is_an_error(tmp_path, objsense):
    """solvers.cplex.solve and solvers.common.sense_error: CPLEX 22.2 reads no one-line ``OBJSENSE`` entry and
    minimised ``max x, x <= 4`` to "optimal" 0; the runner answers ``error`` then, and 4 when CPLEX reads the
    sense (the entry on the next line), whatever the release does with the one-line form."""
    from solvers import cplex

    if not cplex.available():
        pytest.skip("pip install cplex")
    path = tmp_path / "m.mps"
    path.write_text("NAME m\n" + objsense + _MPS_BODY)
    result = cplex.solve(path)
    assert result.status in ("optimal", "error"), result
    if result.status == "optimal":
        assert result.objective == pytest.approx(4.0), result
    else:
        assert "CPLEX read the objective as one to minimise" in result.message and result.objective is None
    if "\n    MAX" in objsense:
        assert result.status == "optimal"
