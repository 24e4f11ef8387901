"""Mutation study 12 of the UCI study's baselines and attack (experiments/baseline.py, experiments/attack.py) and of
the solution-file reader and writer (solvers/solution_files.py): each test kills a mutant that passed the tests of
those modules, against the documented behaviour (the modules' docstrings, solvers/README.md, Section 5.1.2 of the
pessimistic bilevel tuning paper) and an independent oracle (scikit-learn, a hand-solved instance, a hand-computed
value, the csv module)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from bilevel.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments.attack import fit_surrogate_svm, margin_mask, max_confidence_attack  # noqa: E402
from experiments.baseline import linear_svc_grid, lp_svm_box_grid  # noqa: E402
from solvers import solution_files  # noqa: E402
from solvers.common import RunResult  # noqa: E402


def _two_points():
    """1-D training set x = -1 (y = -1), x = +1 (y = +1). In the box |w| <= 1 the only LP-SVM of zero hinge loss is
    w = 1, b = 0 (f = w x - b: w - b >= 1 and -w - b <= -1 give 2 w >= 2)."""
    return np.array([[-1.0], [1.0]]), np.array([-1.0, 1.0])


# ----------------------------------------------------------------------------------------------- baseline.py


def test_a_zero_c_in_the_svc_grid_is_refused_and_a_zero_box_accepted():
    """baseline: ``C_grid`` must hold constants > 0 (C = 0 is no SVM) while the LP-SVM's ``grid`` takes c >= 0 (the
    box w = 0). Mutant: the "> 0" check of C_grid dropped, so C = 0 reached scikit-learn, whose own error is no
    InputError. Oracle: the docstrings of linear_svc_grid and lp_svm_box_grid."""
    Xt, yt = _two_points()
    with pytest.raises(InputError, match="C_grid .* > 0"):
        linear_svc_grid(Xt, yt, Xt, yt, C_grid=(0.0, 1.0))
    got = lp_svm_box_grid(Xt, yt, Xt, yt, grid=(0.0,))
    assert got["c"] == 0.0 and np.array_equal(got["w"], [0.0])


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_a_constant_that_is_not_finite_is_refused_by_both_grids(bad):
    """baseline: the grids must hold finite constants (module docstring: "finite constants"). Mutant: the
    finiteness check dropped; C = inf or a NaN box reached liblinear or the LP. Oracle: the docstring."""
    Xt, yt = _two_points()
    for fit in (linear_svc_grid, lp_svm_box_grid):
        with pytest.raises(InputError, match="finite constants"):
            fit(Xt, yt, Xt, yt, (0.5, bad))


def test_a_validation_point_on_the_hyperplane_counts_as_class_plus_one():
    """baseline: validation accuracy scores ``f(x) = x^T w - b`` with ties to +1, the package's prediction rule
    (bilevel's LinearClassifier.predict: "ties to +1"). Mutant: ``f > 0`` for ``f >= 0``. Oracle: the hand-solved
    instance of _two_points with the box c = 1 (w = 1, b = 0); the validation point x = 0, y = +1 has f = 0, so its
    accuracy is 1 and its hinge 1 - 0 = 1."""
    Xt, yt = _two_points()
    got = lp_svm_box_grid(Xt, yt, np.array([[0.0]]), np.array([1.0]), grid=(1.0,))
    assert got["w"][0] == pytest.approx(1.0) and got["b"] == pytest.approx(0.0, abs=1e-12)
    assert got["val_acc"] == 1.0 and got["val_hinge"] == pytest.approx(1.0)
    from experiments.baseline import _val_scores

    # f = (0, -1.5): predictions (+1, -1), both right; hinge (1 - 0, max(0, 1 - 1.5)) = (1, 0), mean 0.5
    assert _val_scores(np.array([[2.0], [-1.0]]), np.array([1.0, -1.0]), np.array([0.5]), 1.0) == (1.0, 0.5)


# ------------------------------------------------------------------------------------------------- attack.py


def test_margin_mask_is_strict_and_uses_its_width():
    """attack.margin_mask: rows with ``|x^T w - b| < width``, strictly (docstring). Mutants: ``<=`` for ``<``, and a
    width of 1 whatever is given. Oracle: f = x for w = 1, b = 0, by hand: |f| = 1 is on the margin, not inside."""
    X = np.array([[1.0], [0.5], [-1.0], [1.5], [-2.0], [3.0]])
    w = np.array([1.0])
    assert margin_mask(X, w, 0.0).tolist() == [False, True, False, False, False, False]
    assert margin_mask(X, w, 0.0, width=2.0).tolist() == [True, True, True, True, False, False]
    assert margin_mask(X, w, 0.0, width=0.5).tolist() == [False, False, False, False, False, False]


def test_margin_mask_refuses_a_zero_width():
    """attack.margin_mask: InputError for ``width`` "not a finite number > 0" (docstring). Mutant: zero allowed, so
    width 0 gave an empty margin and no point attacked, silently. Oracle: the docstring."""
    X = np.array([[0.0], [0.5]])
    with pytest.raises(InputError, match="width"):
        margin_mask(X, np.array([1.0]), 0.0, width=0.0)


def _overlapping(seed=5, n=30):
    """Two overlapping Gaussian classes in 2-D, both present: a soft-margin SVM whose solution depends on C."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    X = rng.normal(size=(n, 2)) + 0.6 * y[:, None]
    return X, y


def test_the_surrogate_is_fitted_with_the_given_c():
    """attack.fit_surrogate_svm: ``(1/2)||w||^2 + C sum hinge`` with the given C (docstring). Mutant: C = 1 whatever
    is given (the suite only fitted C = 1). Oracle: scikit-learn's SVC(kernel="linear", C) decision function, which
    must equal x^T w - b; at C = 0.01 and C = 100 the two SVMs differ, so C = 1 cannot match both."""
    from sklearn.svm import SVC

    X, y = _overlapping()
    fits = {}
    for C in (0.01, 100.0):
        w, b = fit_surrogate_svm(X, y, C=C)
        ref = SVC(kernel="linear", C=C).fit(X, y)
        np.testing.assert_allclose(X @ w - b, ref.decision_function(X), atol=1e-6)
        fits[C] = w
    assert np.linalg.norm(fits[0.01] - fits[100.0]) > 0.1


@pytest.mark.parametrize("C", [0.0, -1.0, float("nan")])
def test_the_surrogate_refuses_a_c_that_is_not_a_finite_positive_number(C):
    """attack.fit_surrogate_svm: InputError for ``C`` "not a finite number > 0" (docstring). Mutant: the check
    dropped, so C reached scikit-learn, whose own error is no InputError. Oracle: the docstring."""
    X, y = _overlapping()
    with pytest.raises(InputError, match="C"):
        fit_surrogate_svm(X, y, C=C)


def test_the_attack_takes_points_of_one_class_and_a_float_zero_one_mask():
    """attack.max_confidence_attack: labels in {-1, +1}, not both needed (the study attacks the test points inside a
    margin, which may all be of one class), and a mask of booleans "or 0 and 1" of any numeric dtype (docstring).
    Mutants: both classes required, and a float 0/1 mask refused. Oracle: the closed form x - rho y w / ||w||_2 by
    hand, w = (3, 4), ||w|| = 5, rho = 0.5, y = +1: a move of (-0.3, -0.4)."""
    X = np.array([[1.0, 1.0], [2.0, 0.0], [0.0, -1.0]])
    y = np.ones(3)
    w = np.array([3.0, 4.0])
    moved = max_confidence_attack(X, y, w, 0.2, 0.5)
    np.testing.assert_allclose(moved, X - [0.3, 0.4], rtol=0, atol=1e-15)
    masked = max_confidence_attack(X, y, w, 0.2, 0.5, mask=np.array([1.0, 0.0, 1.0]))
    np.testing.assert_allclose(masked, [[0.7, 0.6], [2.0, 0.0], [-0.3, -1.4]], rtol=0, atol=1e-15)


# -------------------------------------------------------------------------------------------- solution_files.py


def _read(tmp_path, text, name="s.sol"):
    path = tmp_path / name
    path.write_text(text)
    return solution_files.read_solution_file(path)


def test_an_lp_file_whose_only_section_keyword_is_end_is_a_model_file(tmp_path):
    """solution_files: an LP file (an objective sense first, then a section keyword alone on a line: ``s.t.``,
    ``bounds``, ``end``, ...) given for its solution is named a model file (_model_file_kind). Mutant: ``end`` left
    out of the keywords, so ``maximize / obj: 2 x / end`` (no rows) was read as a solution {"obj": 2.0}. Oracle:
    HiGHS reads the file as a model of one column."""
    import highspy

    path = tmp_path / "m.lp"
    path.write_text("maximize\n obj: 2 x\nend\n")
    h = highspy.Highs()
    h.silent()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk and h.getNumCol() == 1
    with pytest.raises(InputError, match="is an LP model file, not a solution file"):
        solution_files.read_solution_file(path)


def test_the_written_objective_keeps_all_its_digits(tmp_path):
    """solution_files.write_solution_csv: ``objective value,<x>`` with 17 significant digits (docstring), so the claim
    reads back as the same float. Mutant: the claim written with 12 digits (0.30000000000000004 became 0.3). Oracle:
    the csv module's reading of the file and float equality with the RunResult's objective."""
    import csv

    claim = 0.1 + 0.2
    result = RunResult("highs", "m.lp", "optimal", objective=claim, solution={"x": 1.0})
    path = solution_files.write_solution_csv(result, tmp_path / "s.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[1][0] == "objective value" and float(rows[1][1]) == claim
    assert solution_files.read_solution_file(path) == ({"x": 1.0}, claim)


@pytest.mark.parametrize("extra", ["solution status,optimal solution found", ",", "model status,Optimal"])
def test_a_header_does_not_change_what_a_csv_file_holds(tmp_path, extra):
    """solution_files: a status row (``solution status``, ``model status``) and a row of blank cells (a spreadsheet's
    empty row) are no variables, with or without the header ``name,value`` (the header only says the file is CSV).
    Mutants: in the header path, the status rows read as a malformed value, and a blank row as a row without a value.
    Oracle: the headerless reading of the same rows, and the csv module's cells."""
    body = f"C0,1.5\n{extra}\nC1,-2\n"
    expected = ({"C0": 1.5, "C1": -2.0}, None)
    assert _read(tmp_path, body, "plain.csv") == expected
    assert _read(tmp_path, "name,value\n" + body, "header.csv") == expected


def test_a_cplex_pool_without_an_incumbent_gives_its_first_solution(tmp_path):
    """solution_files: of a ``<CPLEXSolutions>`` pool, the incumbent (``solutionIndex="-1"``), "else the first"
    (read_solution_file's docstring). Mutant: the last solution of the pool. Oracle: the docstring, on a pool of two
    solutions (indices 0 and 1) built by hand."""
    def solution(index, x, objective):
        return (f'<CPLEXSolution version="1.2"><header solutionIndex="{index}" objectiveValue="{objective}" '
                f'primalFeasible="1"/><variables><variable name="x" index="0" value="{x}"/></variables>'
                "</CPLEXSolution>\n")

    text = '<?xml version="1.0"?>\n<CPLEXSolutions version="1.2">\n' + solution(0, 2.0, 4.0) + solution(1, 3.0, 6.0)
    assert _read(tmp_path, text + "</CPLEXSolutions>\n") == ({"x": 2.0}, 4.0)


def test_an_mps_file_with_rows_and_endata_but_no_columns_section_is_a_model_file(tmp_path):
    """solution_files: an MPS file holds the section lines ``ROWS`` and ``COLUMNS`` "or ``ENDATA``"
    (_model_file_kind), so a model without a COLUMNS section is named a model file. Mutant: COLUMNS required, so the
    file was refused only as "no 'name value' lines", not named. Oracle: HiGHS reads the file as a model."""
    import highspy

    path = tmp_path / "m.mps"
    path.write_text("NAME m\nROWS\n N obj\nRHS\nENDATA\n")
    h = highspy.Highs()
    h.silent()
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    with pytest.raises(InputError, match="is an MPS model file, not a solution file"):
        solution_files.read_solution_file(path)



@pytest.mark.parametrize("value", ["\u22120.5", "\u22121e-3"])
def test_a_value_with_a_typographic_minus_is_refused_not_skipped(tmp_path, value):
    """solution_files: a value starting like a number, "the sign also U+2212, the typographic minus a word processor
    writes", but not one is malformed (_malformed's docstring) and refused. Mutant: U+2212 not taken for a sign, so
    the line was skipped and C0, the variable it names, counted as 0. Oracle: the docstring; float() itself refuses
    the text."""
    with pytest.raises(ValueError):
        float(value)
    for text in (f"C1 1\nC0 {value}\n", f"C1,1\nC0,{value}\n"):
        with pytest.raises(InputError, match="malformed value"):
            _read(tmp_path, text)


@pytest.mark.parametrize("first, objective", [("Stopped on  time - objective value 2.0", 2.0),
                                              ("Optimal  (within gap tolerance) - objective value 1.5", 1.5)])
def test_a_cbc_status_is_read_whatever_its_inner_spacing(tmp_path, first, objective):
    """solution_files: a CBC ``-solution`` file whose status is ``Optimal (within gap tolerance)`` or ``Stopped on
    time`` holds a solution (_CBC_SOLUTION_STATUSES); the status is compared word by word, so a run of spaces inside it
    is the same status. Mutant: the status compared as written, so a second space refused the file as an unknown
    status. Oracle: the documented statuses, and the CBC line layout ``index name value reduced_cost``."""
    assert _read(tmp_path, f"{first}\n      0 x                      1                       0\n") == ({"x": 1.0},
                                                                                                      objective)


def test_a_highs_pretty_file_cut_inside_its_column_table_is_refused(tmp_path):
    """solution_files: a HiGHS "pretty" file whose column table runs to the end of the file (no ``Rows`` table
    follows) is cut short, and refused (_read_highs_pretty): its missing columns would count as 0. Mutant: any line
    ending the table taken for ``Rows``, so the file cut after x0 and inside the word ``Rows`` (or followed by a blank
    line) read as {"x0": 1}. Oracle: HiGHS's own pretty file of min x0 + x1, 1 <= x0 <= 5, 0 <= x1 <= 10, x1 integer
    (optimum x0 = 1, x1 = 0 by hand), read whole and cut."""
    from oracles import highs_solution_file

    path = highs_solution_file(tmp_path / "pretty.sol", 1, integer=True)
    assert solution_files.read_solution_file(path) == ({"x0": 1.0, "x1": 0.0}, 1.0)
    lines = path.read_text().splitlines()
    cut = next(k for k, line in enumerate(lines) if line.split()[-1:] == ["x0"]) + 1
    for tail in ("", "Ro\n", "\n"):
        with pytest.raises(InputError, match="ends inside its column table"):
            _read(tmp_path, "\n".join(lines[:cut]) + "\n" + tail, "cut.sol")


def test_a_column_named_objective_in_a_name_value_file_is_a_column(tmp_path):
    """solvers.solution_files.read_solution_file: in a whitespace ``name value`` file (a Gurobi ``.sol``) the line
    ``objective 2`` is the value of a column named objective (a legal LP column name), not a claimed objective. It
    was read as a claim: beside ``# Objective value = 3`` the file was refused ("claims two objectives"), and beside
    ``# Objective value = 2`` the column was dropped, so a checker counted it as 0. CSV ``objective,x`` and
    ``objective: x`` still claim the objective. Found by mutation study 12."""
    path = tmp_path / "g.sol"
    path.write_text("# Objective value = 3\nobjective 2\ny 1\n")
    assert solution_files.read_solution_file(path) == ({"objective": 2.0, "y": 1.0}, 3.0)
    path.write_text("# Objective value = 2\nobjective 2\ny 0\n")
    assert solution_files.read_solution_file(path) == ({"objective": 2.0, "y": 0.0}, 2.0)
    for claim in ("objective,2", "objective: 2", "objective = 2"):
        path.write_text(claim + "\ny 0\n" if "," not in claim else claim + "\ny,0\n")
        assert solution_files.read_solution_file(path) == ({"y": 0.0}, 2.0), claim
