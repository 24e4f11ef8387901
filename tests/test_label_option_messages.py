"""A label column that the data set lacks is refused with a message naming the option that gave it.

``bilevel study --label-column nope --data x.csv`` said ``label column 'nope' not found in 'x.csv'; ...`` (and
``bilevel tune --data cancer --label nope`` ``... label='nope' names a column of a CSV file``): the words of
``load_dataset``'s ``label`` argument, not of the option; ``bilevel study`` also has a ``--label`` (free text)."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import bilevel
from bilevel.cli import main
from bilevel.datasets import LabelColumnError


@pytest.fixture
def csv_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    path = tmp_path / "d.csv"
    pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": np.where(X[:, 0] > 0, 1, -1)}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("command, option", [
    (["study", "--quick", "--study", "limited"], "--label-column"),
    (["tune", "--n-train", "6", "--n-val", "6"], "--label"),
    (["certify"], "--label"),
])
def test_a_missing_label_column_names_the_option(command, option, csv_file, tmp_path, capsys):
    extra = ["--out", str(tmp_path / "out")] if command[0] == "study" else []
    assert main(command + extra + ["--data", str(csv_file), option, "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{option} 'nope'" in err and "['a', 'b', 'y']" in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [["tune", "--n-train", "6", "--n-val", "6"], ["certify"]])
def test_a_label_for_a_built_in_data_set_names_the_option(command, capsys):
    assert main(command + ["--data", "cancer", "--label", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--label 'nope'" in err and "label=" not in err and "'class'" in err, err


def test_the_library_message_names_the_argument(csv_file):
    with pytest.raises(LabelColumnError, match=r"label column 'nope' not found") as info:
        bilevel.load_dataset(csv_file, label="nope")
    with pytest.raises(bilevel.InputError, match=r"label='nope' names a column of a CSV file"):
        bilevel.load_dataset("cancer", label="nope")
    copy = pickle.loads(pickle.dumps(info.value))  # (a worker process's error)
    assert str(copy) == str(info.value) and copy.columns == ["a", "b", "y"]


def _labels_csv(path, labels):
    """A CSV of two features and the last column ``mitoses`` holding ``labels`` (text; "" is a missing value)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(len(labels), 2))
    path.write_text("a,b,mitoses\n" + "".join(f"{x[0]!r},{x[1]!r},{lab}\n" for x, lab in zip(X, labels)))
    return path


@pytest.mark.parametrize("command, option", [
    (["study", "--quick", "--study", "limited"], "--label-column"),
    (["tune", "--n-train", "6", "--n-val", "6"], "--label"),
    (["certify"], "--label"),
])
@pytest.mark.parametrize("kind", ["many", "missing"])
def test_a_label_column_without_two_classes_names_the_option(command, option, kind, tmp_path, capsys):
    """``bilevel tune --data my.csv`` whose last column (the label column when --label is not given) holds 1..10
    said ``label column 'mitoses' of 'my.csv' must have exactly two distinct values``, naming no option: which one
    picks the label column was left to guess. Oracle: the distinct values of the written column (numpy)."""
    labels = [str(k % 5 + 1) for k in range(60)] if kind == "many" else [str(k % 2) for k in range(60)]
    if kind == "missing":
        labels[7] = ""
    path = _labels_csv(tmp_path / "my.csv", labels)
    extra = ["--out", str(tmp_path / "out")] if command[0] == "study" else []
    for given in ([], [option, "mitoses"]):
        assert main(command + extra + ["--data", str(path), *given]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        if kind == "many":
            distinct = np.unique(np.array(labels, dtype=int))
            assert f"must have exactly two distinct values, found {len(distinct)}: {distinct.tolist()}" in err, err
        else:
            assert "has missing values" in err, err
        if given:
            assert f"error: {option} 'mitoses': the label column of {str(path)!r} " in err, err
        else:
            assert f"(its last column, the label column when {option} is not given)" in err, err
            assert err.endswith(f"; name the label column with {option}"), err
    assert not (tmp_path / "out").exists()


def test_the_library_label_values_message_names_no_option(tmp_path):
    from bilevel.datasets import LabelValuesError

    path = _labels_csv(tmp_path / "my.csv", [str(k % 3) for k in range(30)])
    with pytest.raises(LabelValuesError) as info:
        bilevel.load_dataset(path)
    assert str(info.value) == f"label column 'mitoses' of {str(path)!r} must have exactly two distinct values, " \
        "found 3: [0, 1, 2]"
    copy = pickle.loads(pickle.dumps(info.value))  # (a worker process's error)
    assert str(copy) == str(info.value) and copy.for_option("--label") == info.value.for_option("--label")
    assert isinstance(info.value, bilevel.InputError)
