"""Mutation study 14 of the data sets and the split (bilevel/datasets.py), the inner LP-SVM (bilevel/inner.py) and the
HiGHS option constants (bilevel/highs_options.py): each test kills a mutant that passed the tests of those modules,
against the documented behaviour (the modules' docstrings, the README's data and CSV sections) and an independent
oracle (numpy's mean and std on the rows the docstring names, Python's round, scipy's linprog, HiGHS's own option
defaults, a hand-written tiny CSV)."""
from __future__ import annotations

from types import SimpleNamespace

import highspy
import numpy as np
import pytest
from scipy.optimize import linprog

import bilevel
from bilevel import inner
from bilevel.errors import InputError
from bilevel.highs_options import UNSAFE_OPTIONS


def _xy(n, n_pos, seed=0):
    """n rows of two random features, the first ``n_pos`` labelled +1, the others -1."""
    X = np.random.default_rng(seed).normal(size=(n, 2))
    return X, np.where(np.arange(n) < n_pos, 1.0, -1.0)


@pytest.mark.parametrize("n_rows, test_fraction", [(31, 0.5), (30, 0.59), (29, 0.5), (40, 0.3)])
def test_the_test_set_holds_round_test_fraction_times_n_rows(n_rows, test_fraction):
    """The test set holds ``round(test_fraction * n)`` rows, Python's round, half to even (split_dataset's docstring,
    README "Data"): 15.5 -> 16, 17.7 -> 18, 14.5 -> 14, 12 -> 12 (mutation testing: truncating with int() passed the
    suite, whose only odd case, cancer's 224.5, truncates and rounds alike). Oracle: Python's round itself."""
    X, y = _xy(n_rows, n_rows // 2)
    s = bilevel.split_dataset(X, y, 2, 1, test_fraction=test_fraction, seed=1)
    assert len(s.test_index) == round(test_fraction * n_rows)


def test_test_rows_do_not_enter_the_units_of_the_standardisation():
    """Standardisation is fitted on the non-test, non-calibration rows only, and so is the choice of units for a
    column of huge values (HUGE_FEATURE: "over the rows the scaling is fitted on"). A test row of 1e200 in a column
    of values near 1 must not change the training data (mutation testing: taking the units over all rows passed the
    suite; the column then came in units of 1e200, its fitting rows' squares underflowed, the column was taken for a
    constant and silently dropped). Oracle: numpy's mean and std (ddof 0) over the fitting rows, the pool minus
    nothing (n_cal = 0)."""
    X, y = _xy(60, 30, seed=4)
    plain = bilevel.split_dataset(X, y, 6, 6, seed=2)
    X2 = X.copy()
    X2[plain.test_index[0], 0] = 1e200
    s = bilevel.split_dataset(X2, y, 6, 6, seed=2)
    np.testing.assert_array_equal(s.test_index, plain.test_index)
    fit = np.setdiff1d(np.arange(60), s.test_index)
    mean, std = X[fit].mean(axis=0), X[fit].std(axis=0)
    np.testing.assert_allclose(s.X_train, (X[s.train_index] - mean) / std, rtol=1e-12)
    np.testing.assert_allclose(s.scale, std, rtol=1e-12)
    assert s.X_test[0, 0] == pytest.approx((1e200 - mean[0]) / std[0], rel=1e-12)


@pytest.mark.parametrize("n_train, n_val, match", [(1, 3, "n_train >= 2"), (0, 3, "n_train >= 2"),
                                                   (4, 0, "n_val >= 1")])
def test_a_training_set_below_two_rows_or_an_empty_validation_set_is_refused(n_train, n_val, match):
    """A training set needs a row of each class (two rows at least) and the outer objective is a mean over the
    validation rows (Eq. (21)), so split_dataset refuses n_train < 2 and n_val < 1 up front, saying so (mutation
    testing: accepting n_train = 1, or n_val = 0, passed the suite; the first then blamed a stratified test set for
    a missing class, the second returned an empty validation set)."""
    X, y = _xy(40, 20)
    with pytest.raises(InputError, match=match):
        bilevel.split_dataset(X, y, n_train, n_val, seed=0)


def test_a_test_fraction_of_one_is_refused_by_name():
    """``test_fraction`` must lie in [0, 1) (split_dataset's docstring); 1 would hold out every row. The message
    names the argument (mutation testing: accepting 1.0 passed the suite; the split then failed later with a size
    message that named n_train + n_val, not the fraction)."""
    X, y = _xy(40, 20)
    with pytest.raises(InputError, match=r"test_fraction must lie in \[0, 1\)"):
        bilevel.split_dataset(X, y, 2, 1, test_fraction=1.0)


def test_a_negative_n_cal_is_refused_by_name():
    """``n_cal`` is a number of rows >= 0, or None for all remaining rows (split_dataset's docstring: sizes that are
    negative raise InputError); -1 is neither (mutation testing: letting -1 through passed the suite; the split
    then silently drew 5 calibration rows)."""
    X, y = _xy(40, 20)
    with pytest.raises(InputError, match="n_cal must be >= 0 or None"):
        bilevel.split_dataset(X, y, 4, 4, n_cal=-1, seed=0)


@pytest.mark.parametrize("labels", [[0.0, 1.0], [-1.0, 1.0, 0.0], [-1.0, 1.0, 2.0]])
def test_split_refuses_labels_other_than_plus_and_minus_one(labels):
    """``y`` (n,) must be in {-1, +1} (split_dataset's docstring): a label 0 or 2 anywhere is refused (mutation
    testing: refusing only labels none of which is -1 or +1 passed the suite)."""
    y = np.resize(np.array(labels), 20)
    X = np.arange(40.0).reshape(20, 2)
    with pytest.raises(InputError, match=r"labels y must be -1 or \+1"):
        bilevel.split_dataset(X, y, 2, 2, test_fraction=0.0)


def test_all_remaining_rows_calibrate_even_when_they_are_of_one_class():
    """``n_cal=None`` takes all remaining rows as calibration rows, so test, training, validation and calibration
    rows partition the data (split_dataset's docstring). Hand-traced: 2 positives and 8 negatives, no test rows; the
    training draw of 2 takes one of each class, the validation draw of 2 the other positive (its share 0.25 rounds
    to none, and a draw of two takes a row of each class), so the 6 remaining rows are all negative (mutation
    testing: applying "a row of each class" to a class with no rows left passed the suite; the calibration draw
    then took 5 of the 6)."""
    X, y = _xy(10, 2)
    s = bilevel.split_dataset(X, y, 2, 2, n_cal=None, test_fraction=0.0, seed=0)
    assert sorted(s.y_train) == [-1.0, 1.0] and sorted(s.y_val) == [-1.0, 1.0]
    assert len(s.cal_index) == 6 and (s.y_cal == -1.0).all()
    parts = np.concatenate([s.test_index, s.train_index, s.val_index, s.cal_index])
    np.testing.assert_array_equal(np.sort(parts), np.arange(10))


def test_non_finite_rows_are_named_five_at_most():
    """_check_finite names "the first five such rows" and then "...": NaN in rows 1..7 gives ``rows [1, 2, 3, 4, 5]
    ...`` (mutation testing: naming four passed the suite)."""
    X, y = _xy(20, 10)
    X[1:8, 0] = np.nan
    with pytest.raises(InputError, match=r"X contains NaN or inf \(rows \[1, 2, 3, 4, 5\] \.\.\.\)"):
        bilevel.split_dataset(X, y, 2, 2)


def test_a_non_numeric_column_is_named_with_its_first_bad_value(tmp_path):
    """The message names "the first value of the non-numeric column that is no number" with its row, counted from
    0 (_first_non_number): in the hand-written file below the column b holds '?' in row 1 and 'x' in row 3, so the
    message names '?' in row 1 (mutation testing: naming the last one passed the suite)."""
    path = tmp_path / "bad.csv"
    path.write_text("a,b,y\n1,2,0\n3,?,1\n5,6,0\n7,x,1\n")
    with pytest.raises(InputError, match=r"not numeric: \['b'\] \('b' holds '\?' in row 1\)"):
        bilevel.load_dataset(path)


def test_a_header_numbering_the_columns_from_one_is_a_header(tmp_path):
    """A header whose names are the column numbers 1..k is a header, not a data row, even when the label column's
    name, 3, is one of its labels (_is_data_row's docstring, "0..k-1 (or 1..k)"; mutation testing: dropping the
    1..k case passed the suite, whose numbered file has no label 3). Expected: the hand-written rows themselves,
    label 4 (the larger) as +1."""
    path = tmp_path / "numbered.csv"
    path.write_text("1,2,3\n0.5,4.0,3\n1.5,5.0,4\n2.5,6.0,3\n")
    d = bilevel.load_dataset(path)
    assert d.feature_names == ["1", "2"]
    assert d.X.tolist() == [[0.5, 4.0], [1.5, 5.0], [2.5, 6.0]] and d.y.tolist() == [-1.0, 1.0, -1.0]


def test_hinge_lp_re_solves_without_presolve_when_the_first_solve_fails(monkeypatch):
    """hinge_lp re-solves an LP without presolve when the first solve reports a failure (its docstring: SolverError
    only when the re-solve fails too; HiGHS's presolve has called feasible LPs infeasible). A stand-in linprog
    fails every solve with presolve on; the answer must still be the LP's optimum, derived by hand: 1-D, x = 1
    (+1) and x = -1 (-1), |w| <= 0.5: the hinge sum (1 - w + b)+ + (1 - w - b)+ >= 2 - 2 w >= 1, so the least mean
    hinge is 0.5, at w = 0.5 only. Mutation testing: dropping the re-solve passed the suite."""
    real, calls = linprog, []

    def flaky(c, **kw):
        calls.append(kw.get("options"))
        if "options" not in kw:  # the first solve, presolve on
            return SimpleNamespace(status=2, message="stand-in: presolve called the LP infeasible")
        return real(c, **kw)

    monkeypatch.setattr(inner, "linprog", flaky)
    X, y = np.array([[1.0], [-1.0]]), np.array([1.0, -1.0])
    lp = inner.hinge_lp(np.array([0.5]), (X, y))
    assert calls == [None, {"presolve": False}]
    assert lp.value == pytest.approx(0.5, abs=1e-9) and lp.w[0] == pytest.approx(0.5, abs=1e-9)


def test_each_refused_highs_option_allows_only_highs_own_default():
    """UNSAFE_OPTIONS maps each refused option to "the only value allowed (HiGHS's default)": the oracle is a fresh
    highspy.Highs' own value of each option (mutation testing: changing the allowed value of
    mip_feasibility_tolerance to 1e-7, a value its own reason calls unsafe, passed tests/test_unsafe_options.py,
    which reads the allowed value from the table itself; only end-to-end tests elsewhere noticed it)."""
    h = highspy.Highs()
    for name, (allowed, _reason) in UNSAFE_OPTIONS.items():
        status, default = h.getOptionValue(name)
        assert status == highspy.HighsStatus.kOk, name
        assert allowed == default, (name, allowed, default)


def test_a_test_row_whose_standardised_value_overflows_is_refused():
    """bilevel.split_dataset: the scaling is fitted on the non-test, non-calibration rows, so a test row far outside
    their range (1e308 beside values of about 0.01: 1e308 / 0.0085 overflows) became ``inf`` in ``X_test`` with a
    RuntimeWarning only, and ``bilevel tune`` failed after its MILPs with "X_eval contains NaN or inf". Now an
    InputError names the row and the feature, with no warning; without standardising, the values stay finite.
    Found by mutation study 14."""
    import warnings

    X = np.random.default_rng(0).normal(size=(40, 2)) * 0.01
    y = np.where(np.arange(40) < 20, 1.0, -1.0)
    row = int(bilevel.split_dataset(X, y, 4, 4, seed=0).test_index[0])
    X[row, 0] = 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=rf"X's row {row} \(counted from 0; a test or calibration row\) has "
                           r"1e\+308 in feature 0, which overflows"):
            bilevel.split_dataset(X, y, 4, 4, seed=0)
    assert np.isfinite(bilevel.split_dataset(X, y, 4, 4, seed=0, standardize=False).X_test).all()


def test_a_bool_positive_label_for_numeric_labels_is_refused(tmp_path):
    """bilevel.load_dataset: ``positive=True`` for the labels 0 and 1 was taken (``True == 1`` in Python) and the
    classes read ``(0, True)``, where the package refuses booleans used as numbers elsewhere; now an InputError
    says to pass 1. ``positive=1`` still picks the label 1 (y = +1 on its rows), and for the labels ``True`` and
    ``False`` (read as bools) ``positive=True`` is the label itself. Found by mutation study 14."""
    path = tmp_path / "d.csv"
    path.write_text("a,b,label\n0.1,0.2,0\n0.3,0.1,1\n0.5,0.4,1\n0.2,0.9,0\n")
    with pytest.raises(InputError, match=r"positive label True is not one of the labels \[0, 1\].*pass positive=1"):
        bilevel.load_dataset(path, positive=True)
    data = bilevel.load_dataset(path, positive=1)
    assert data.classes == (0, 1) and data.y.tolist() == [-1.0, 1.0, 1.0, -1.0]
    path.write_text("a,b,label\n0.1,0.2,False\n0.3,0.1,True\n0.5,0.4,True\n0.2,0.9,False\n")
    data = bilevel.load_dataset(path, positive=True)
    assert data.classes == (False, True) and data.y.tolist() == [-1.0, 1.0, 1.0, -1.0]
