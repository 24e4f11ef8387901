"""Feature matrices given as pandas DataFrames are paired by position, so a validation (or prediction) DataFrame with
the training columns in another order, or with other columns, is refused by name: tune used the validation set's
columns as the training set's without a word, and returned another box and objective (found by an audit of the
public API's input types: 0.2778 instead of 0.2367 on the data below, the same numbers with the columns swapped).

Oracle: the same data as arrays, in the training set's column order."""
import numpy as np
import pandas as pd
import pytest

import bilevel
from bilevel.certify.milp import milp_candidates
from bilevel.errors import InputError

XT = np.array([[1, .5], [.2, 1], [-1, -.3], [-.5, -1], [.8, -.2], [-.3, .6]])
YT = np.array([1, 1, -1, -1, 1, -1.])
XV = np.array([[.9, .1], [-.8, -.4], [.1, .2]])
YV = np.array([1, -1, 1.])
TRAIN = pd.DataFrame(XT, columns=["a", "b"])
VAL = pd.DataFrame(XV, columns=["a", "b"])
SWAPPED = VAL[["b", "a"]]  # the same data, by name, in another column order
RENAMED = pd.DataFrame(XV, columns=["x", "y"])

ORDER = r"X_val is a DataFrame with the same columns in another order.*X_val\[list\(X_train.columns\)\]"
OTHER = r"X_val is a DataFrame with columns other than X_train's \('x', 'y'\)"


@pytest.fixture(scope="module")
def result():
    return bilevel.tune(TRAIN, YT, VAL, YV, time_limit=30)


def test_dataframes_with_the_training_columns_give_the_array_answer(result):
    arrays = bilevel.tune(XT, YT, XV, YV, time_limit=30)
    assert result.objective == pytest.approx(arrays.objective, abs=1e-9)
    assert result.feature_names == ("a", "b") and arrays.feature_names is None
    # the columns in the training order again: the same answer as the arrays
    again = bilevel.tune(TRAIN, YT, SWAPPED[list(TRAIN.columns)], YV, time_limit=30)
    assert again.objective == pytest.approx(arrays.objective, abs=1e-9)
    # the swapped columns as arrays are other data, with another optimum: what the check keeps from happening silently
    assert bilevel.tune(XT, YT, XV[:, ::-1], YV, time_limit=30).objective > arrays.objective + 0.01


@pytest.mark.parametrize("val,match", [(SWAPPED, ORDER), (RENAMED, OTHER)])
def test_tune_and_the_builders_refuse_other_validation_columns(val, match):
    with pytest.raises(InputError, match=match):
        bilevel.tune(TRAIN, YT, val, YV, time_limit=30)
    with pytest.raises(InputError, match=match):
        bilevel.tune(TRAIN, YT, val, YV, mode="pessimistic", time_limit=30)
    with pytest.raises(InputError, match=match):
        bilevel.build_optimistic_model(TRAIN, YT, val, YV)
    with pytest.raises(InputError, match=match):
        bilevel.build_pessimistic_model(TRAIN, YT, val, YV, flipped=[0], epsilon=0.1)
    with pytest.raises(InputError, match=match):
        milp_candidates(TRAIN, YT, val, YV, epsilons=(0.0,), w_bar_ubs=(1.0,), time_limit=30)


def test_arrays_on_either_side_are_not_checked_by_name():
    a = bilevel.tune(TRAIN, YT, XV, YV, time_limit=30)
    b = bilevel.tune(XT, YT, RENAMED, YV, time_limit=30)
    assert a.objective == pytest.approx(b.objective, abs=1e-9)


@pytest.mark.parametrize("method", ["decision_function", "predict", "accuracy", "errors"])
def test_prediction_refuses_other_columns_and_takes_the_training_ones(result, method):
    args = (lambda X: (X,)) if method in ("decision_function", "predict") else (lambda X: (X, YV))
    fn = getattr(result, method)
    assert np.allclose(fn(*args(VAL)), fn(*args(XV)))
    assert np.allclose(fn(*args(SWAPPED[["a", "b"]])), fn(*args(XV)))
    with pytest.raises(InputError, match=r"X is a DataFrame with the same columns in another order"):
        fn(*args(SWAPPED))
    with pytest.raises(InputError, match=r"X is a DataFrame with columns other than X_train's"):
        fn(*args(RENAMED))


def test_the_names_reach_the_pessimistic_result_its_optimistic_one_and_the_tie_extremes(result):
    pes = bilevel.tune(TRAIN, YT, VAL, YV, mode="pessimistic", time_limit=30)
    assert pes.feature_names == ("a", "b") and pes.optimistic.feature_names == ("a", "b")
    ties = bilevel.optimistic_tie_range(result)
    for extreme in (ties.low, ties.high):
        assert extreme.feature_names == ("a", "b")
        with pytest.raises(InputError, match="another order"):
            extreme.predict(SWAPPED)


def test_a_repeated_column_is_named_not_an_empty_list():
    """A validation DataFrame with a training column twice (and another missing) named no column: "columns that
    X_train does not have ()"."""
    from bilevel.validation import check_columns, label_difference
    train = pd.DataFrame(np.zeros((2, 3)), columns=["a", "b", "c"])
    twice = pd.DataFrame(np.zeros((2, 3)), columns=["a", "a", "c"])
    with pytest.raises(InputError, match=r"columns other than X_train's \('a' repeated\)"):
        check_columns(train, twice, "X_train", "X_val")
    assert label_difference("abc", "cab") == "" and label_difference("abc", "abc") is None
    assert label_difference("abc", "ab") is None and label_difference("abc", "abx") == "'x'"
    assert label_difference(range(7), [*"uvwxyz", 0]) == "'u', 'v', 'w', 'x', 'y', ..."
