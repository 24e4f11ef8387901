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
