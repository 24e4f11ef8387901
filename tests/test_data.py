"""Built-in data sets, CSV loading and the stratified split."""
import contextlib
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bilevel
from bilevel.errors import InputError


def test_builtin_cancer_is_the_papers_449_rows():
    d = bilevel.load_dataset("cancer")
    assert d.X.shape == (449, 9) and d.X.dtype == np.float64
    assert set(np.unique(d.y)) == {-1.0, 1.0}
    assert (d.y == 1).sum() == 236  # malignant
    assert len(np.unique(np.column_stack([d.X, d.y]), axis=0)) == 449  # no duplicate rows
    assert len(d.feature_names) == 9


def test_test_set_sizes_the_readme_states():
    # README "Data": half of the rows, rounded half to even (224 of cancer's 449, where the paper has 225)
    readme = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    assert "the cancer test set has 224 rows" in readme and "Diabetes has 266 of 532" in readme
    for name, n_test in (("cancer", 224), ("diabetes", 266)):
        d = bilevel.load_dataset(name)
        for seed in (0, 5):
            assert len(bilevel.split_dataset(d.X, d.y, 10, 10, seed=seed).y_test) == n_test


def test_builtin_diabetes():
    d = bilevel.load_dataset("diabetes")
    assert d.X.shape == (532, 7) and (d.y == 1).sum() == 177


def test_csv_with_label_column(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("a,b,label,c\n1,2,yes,3\n4,5,no,6\n7,8,yes,9\n")
    d = bilevel.load_dataset(path, label="label")
    assert d.feature_names == ["a", "b", "c"]
    assert d.X.tolist() == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert d.y.tolist() == [1.0, -1.0, 1.0]  # "yes" > "no" in sorted order
    d = bilevel.load_dataset(path, label="label", positive="no")
    assert d.y.tolist() == [-1.0, 1.0, -1.0]


@pytest.mark.parametrize("labels, positive", [((2, 1, 2, 2), None), ((2, 1, 2, 2), 1), (("b", "a", "a", "b"), "a")])
def test_the_dataset_names_which_label_is_plus_one(tmp_path, labels, positive):
    """Nothing said which file label became +1 (the larger in sorted order, or ``positive``), so the signs of ``w``
    of a CSV's run could not be read. Oracle: the rows whose y is +1 are those holding ``classes[1]``."""
    path = tmp_path / "d.csv"
    path.write_text("a,label\n" + "".join(f"{k},{v}\n" for k, v in enumerate(labels)))
    d = bilevel.load_dataset(path, label="label", positive=positive)
    assert len(d.classes) == 2 and set(d.classes) == set(labels)
    assert [v == d.classes[1] for v in labels] == (d.y == 1).tolist()
    assert d.classes[1] == (max(labels) if positive is None else positive)


@pytest.mark.parametrize(
    "text,label,match",
    [
        ("a,b,y\n1,2,0\n3,4,1\n5,6,2\n", "y", r"exactly two distinct values, found 3: \[0, 1, 2\]$"),
        ("a,b,y\n1,2,0\n3,4,0\n", "y", r"exactly two distinct values, found 1: \[0\]$"),
        ("a,b,y\n1,,0\n3,4,1\n", "y", "NaN"),
        ("a,b,y\n1,x,0\n3,4,1\n", "y", "numeric"),
        ("a,b,y\n1,2,0\n3,4,1\n", "z", "not found"),
        ("just one column\n1\n2\n", None, "CSV table"),
        # one field more per row than names: pandas made the first field an index and shifted the rest
        ("f1,f2,y\n" + "".join(f"{i},{i % 3},{(-1) ** i},{i % 2}\n" for i in range(6)), None, "more fields"),
    ],
)
def test_bad_csv(tmp_path, text, label, match):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        bilevel.load_dataset(path, label=label)


@pytest.mark.parametrize("header", ["x,y,y", "y,x,y", "a,a,cls", "1,1,y"])
def test_a_repeated_column_name_is_refused(tmp_path, header):
    """pandas renamed the second "y" to "y.1", so a copy of the label became a feature (or the label)."""
    path = tmp_path / "dup.csv"
    path.write_text(header + "\n1,0,0\n2,1,1\n3,1,1\n4,0,0\n")
    with pytest.raises(InputError, match="repeated column names"):
        bilevel.load_dataset(path)
    with pytest.raises(InputError, match="repeated column names"):
        bilevel.load_dataset(path, label=header.split(",")[-1])


def test_empty_column_names_and_a_byte_order_mark_still_load(tmp_path):
    path = tmp_path / "ok.csv"
    path.write_bytes("\ufeffa,,,y\n1,2,3,0\n4,5,6,1\n".encode("utf-8"))
    d = bilevel.load_dataset(path)
    assert d.feature_names == ["a", "Unnamed: 1", "Unnamed: 2"] and d.y.tolist() == [-1.0, 1.0]


@pytest.mark.parametrize("name", ["d.zip", "d.csv.gz", "d.csv.xz", "d.tar", "d.csv.bz2", "d.csv.zst"])
def test_a_plain_csv_reads_the_same_whatever_its_name(tmp_path, name):
    """pandas guessed a compression from the name: raw BadZipFile, LZMAError, ReadError, ImportError."""
    text = "a,b,y\n1,2,0\n3,4,1\n5,6,1\n"
    (tmp_path / "d.csv").write_text(text)
    (tmp_path / name).write_text(text)
    ref, d = bilevel.load_dataset(tmp_path / "d.csv"), bilevel.load_dataset(tmp_path / name)
    assert d.feature_names == ref.feature_names and d.X.tolist() == ref.X.tolist() and d.y.tolist() == ref.y.tolist()


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zip"])
def test_a_compressed_file_is_refused(tmp_path, kind):
    import bz2
    import gzip
    import lzma
    import zipfile

    data = b"a,b,y\n1,2,0\n3,4,1\n5,6,1\n"
    path = tmp_path / "d.csv"
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("a.csv", data)
            z.writestr("b.csv", data)
    else:
        path.write_bytes({"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](data))
    with pytest.raises(InputError, match=f"is a {kind} file.*decompress"):
        bilevel.load_dataset(path)


def test_missing_file_and_binary_file(tmp_path):
    with pytest.raises(InputError, match="neither a built-in name"):
        bilevel.load_dataset(tmp_path / "nope.csv")
    path = tmp_path / "bin.csv"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(InputError):
        bilevel.load_dataset(path)


def test_split_is_stratified_reproducible_and_standardised_without_test_rows():
    d = bilevel.load_dataset("cancer")
    s1 = bilevel.split_dataset(d.X, d.y, 10, 15, seed=3)
    s2 = bilevel.split_dataset(d.X, d.y, 10, 15, seed=3)
    assert np.array_equal(s1.train_index, s2.train_index) and np.array_equal(s1.test_index, s2.test_index)
    assert len(s1.y_test) == round(449 / 2) and len(s1.y_train) == 10 and len(s1.y_val) == 15
    all_idx = np.concatenate([s1.train_index, s1.val_index, s1.test_index])
    assert len(np.unique(all_idx)) == len(all_idx)  # disjoint
    frac = (d.y == 1).mean()
    assert abs((s1.y_test == 1).mean() - frac) < 0.01
    assert abs((s1.y_train == 1).sum() - 10 * frac) <= 1 and abs((s1.y_val == 1).sum() - 15 * frac) <= 1
    pool = np.setdiff1d(np.arange(449), s1.test_index)
    np.testing.assert_allclose(s1.mean, d.X[pool].mean(axis=0))
    np.testing.assert_allclose(s1.X_train, (d.X[s1.train_index] - s1.mean) / s1.scale)
    assert not np.array_equal(bilevel.split_dataset(d.X, d.y, 10, 15, seed=4).train_index, s1.train_index)


def test_calibration_rows_do_not_enter_the_standardisation():
    """Certificates on the calibration rows need candidates that do not depend on them: changing a
    calibration row's features leaves the tuner's data unchanged; the fit uses train + validation (+ unused)
    rows, checked against numpy directly."""
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, n_cal=60, seed=3)
    X2 = d.X.copy()
    X2[s.cal_index[0]] += 100.0
    s2 = bilevel.split_dataset(X2, d.y, 8, 8, n_cal=60, seed=3)
    np.testing.assert_array_equal(s2.X_train, s.X_train)
    np.testing.assert_array_equal(s2.X_val, s.X_val)
    fit = np.setdiff1d(np.arange(449), np.concatenate([s.test_index, s.cal_index]))
    np.testing.assert_allclose(s.mean, d.X[fit].mean(axis=0))
    np.testing.assert_allclose(s.scale, d.X[fit].std(axis=0))
    every = bilevel.split_dataset(d.X, d.y, 8, 8, n_cal=None, seed=3)  # all remaining rows calibrate
    both = np.concatenate([every.train_index, every.val_index])
    np.testing.assert_allclose(every.mean, d.X[both].mean(axis=0))


def test_split_refuses_nan_and_non_integer_sizes():
    d = bilevel.load_dataset("cancer")
    X = d.X.copy()
    X[5, 2] = np.nan  # a NaN anywhere, test rows included, would spread through the standardisation
    with pytest.raises(InputError, match="NaN"):
        bilevel.split_dataset(X, d.y, 10, 10)
    with pytest.raises(InputError, match="n_train must be an integer"):
        bilevel.split_dataset(d.X, d.y, 10.5, 10)
    with pytest.raises(InputError, match="X must be"):
        bilevel.split_dataset(np.full(d.X.shape, "a"), d.y, 10, 10)


def test_split_too_large():
    d = bilevel.load_dataset("cancer")
    with pytest.raises(InputError, match="exceeds"):
        bilevel.split_dataset(d.X, d.y, 200, 100, seed=0)


def test_a_lone_row_of_a_class_taken_by_the_test_set_is_explained():
    """The stratified test set takes a row of each class, so a class with one row never reaches training;
    the error used to advise "use a larger size", which cannot help."""
    X = np.random.default_rng(0).normal(size=(10, 2))
    y = np.array([1.0] * 9 + [-1.0])
    for n_train in (3, 4):
        with pytest.raises(InputError, match=r"class -1 has 1 row\(s\) in all .* test set of 5 rows took it"):
            bilevel.split_dataset(X, y, n_train, 1, seed=1)
    split = bilevel.split_dataset(X, y, 3, 2, test_fraction=0.0)  # the advice works
    assert set(split.y_train) == {-1.0, 1.0}


@pytest.mark.parametrize("unit, offset", [(1e160, 0.0), (1e307, 1.0), (1e307, -0.5),
                                          (1e-160, 0.0), (1e-170, 0.0), (1e-300, 1.0)])
def test_standardising_a_column_of_huge_values(unit, offset):
    # X.std overflowed for a column of size 1e160: scale inf, and the column's standardised values all 0; the
    # mean overflowed for finite values of 1e307-2e307 (sum above 1.8e308): every standardised value -inf.
    # Tiny columns: the squares underflowed, std 0 for a column of size 1e-170, which was then kept unscaled as
    # if constant (its standardised values all about 1e-170: the feature silently dropped); at 1e-160 the std
    # lost digits (0.8874 for 0.8873).
    # Standardising is invariant to the units of a column, so the split must equal that of the column / unit.
    rng = np.random.default_rng(0)
    X = np.c_[rng.random(60) + offset, rng.random(60)]
    y = np.where(np.arange(60) % 2, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow on the way
        big = bilevel.split_dataset(X * [unit, 1.0], y, 5, 5, seed=3)
    ref = bilevel.split_dataset(X, y, 5, 5, seed=3)
    for part in ("X_train", "X_val", "X_test"):
        np.testing.assert_allclose(getattr(big, part), getattr(ref, part), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(big.scale / [unit, 1.0], ref.scale, rtol=1e-12)
    np.testing.assert_allclose(big.mean / [unit, 1.0], ref.mean, rtol=1e-12)


@pytest.mark.parametrize("value", [3e200, 3e-200])
def test_a_constant_huge_column_keeps_scale_1(value):
    X = np.c_[np.full(30, value), np.arange(30.0)]
    y = np.where(np.arange(30) % 2, 1.0, -1.0)
    split = bilevel.split_dataset(X, y, 4, 4, seed=0)
    assert split.scale[0] == 1.0 and np.all(split.X_train[:, 0] == 0.0)


@pytest.mark.parametrize("value", [0.1, 0.7, 1.1])
def test_a_column_constant_on_the_fitting_rows_keeps_scale_1_despite_round_off(value):
    # numpy's std of repeated 0.1's is 1.4e-17, not 0: the column was scaled by 1e16, so its training values
    # became -1 and a test row of 0.2 became 4.5e14. Compared with the closed form (x - value) / 1.
    rng = np.random.default_rng(1)
    y = np.where(np.arange(80) % 2, 1.0, -1.0)
    X = np.c_[rng.random(80), np.full(80, value)]
    test_rows = bilevel.split_dataset(X, y, 7, 5, seed=2).test_index
    X[test_rows[:3], 1] = value + 0.1
    split = bilevel.split_dataset(X, y, 7, 5, seed=2)
    assert split.scale[1] == 1.0 and split.mean[1] == value
    assert np.all(split.X_train[:, 1] == 0.0) and np.all(split.X_val[:, 1] == 0.0)
    np.testing.assert_allclose(split.X_test[:, 1], X[split.test_index, 1] - value, atol=1e-15)


def test_labels_of_one_class_are_named_as_such():
    # the message said the stratified test set took the missing class's '0 row(s)' and advised test_fraction=0
    for frac in (0.5, 0.0):
        with pytest.raises(InputError, match=r"y holds the class -1 only") as info:
            bilevel.split_dataset(np.arange(20.0).reshape(10, 2), -np.ones(10), 2, 1, test_fraction=frac)
        assert "test set" not in str(info.value)


@pytest.mark.parametrize("rows", [
    ["1,2,0", "3,4,1", "5,6,0"],
    ["17.99,-0.5,M", "20.5,1e-3,B", "11,2,M"],
    ["1.5,2.5,-1.0", "3.5,4.5,1.0", "0,0,-1.0"],
    ["0,2,1", "2,3,2", "4,5,1"],  # not the column numbers 0,1,2 that to_csv writes
])
def test_a_file_without_a_header_row_is_refused(tmp_path, rows):
    """Its first data row became the column names (['1', '2'] for the first file) and was silently lost."""
    path = tmp_path / "noheader.csv"
    path.write_text("\n".join(rows) + "\n")
    assert len(pd.read_csv(path, header=None)) == len(rows)  # pandas: every line is a data row
    with pytest.raises(InputError, match="has no header row"):
        bilevel.load_dataset(path)


@pytest.mark.parametrize("labels", [[1, 2, 1, 2], [0, 1, 0, 1], ["a", "b", "b", "a"]])
def test_numbered_columns_as_to_csv_writes_them_still_load(tmp_path, labels):
    frame = pd.DataFrame({0: [0.5, 1.5, 2.5, 3.5], 1: [4.0, 5.0, 6.0, 7.0], 2: labels})
    for start in (0, 1):
        path = tmp_path / f"numbered{start}.csv"
        frame.rename(columns=lambda c: c + start).to_csv(path, index=False)
        d = bilevel.load_dataset(path)
        ref = pd.read_csv(path)
        assert d.X.tolist() == ref.iloc[:, :2].to_numpy().tolist() and d.feature_names == list(ref.columns[:2])
        assert d.y.tolist() == [1.0 if v == max(labels) else -1.0 for v in labels]
    path = tmp_path / "named.csv"  # a header of numbers that is no data row: the label name is not a label
    path.write_text("1,2,y\n1,2,0\n3,4,1\n")
    assert bilevel.load_dataset(path).X.tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize("label", [None, "label"])
def test_a_trailing_comma_on_every_line_is_named(tmp_path, label):
    """Its empty last column was the label column 'Unnamed: 3' "with missing values" (or, with label=, a
    feature of NaN only)."""
    path = tmp_path / "excel.csv"
    path.write_text("a,b,label,\n1,2,0,\n3,4,1,\n5,6,0,\n")
    assert pd.read_csv(path).iloc[:, 3].isna().all()  # pandas: a fourth column, empty
    with pytest.raises(InputError,
                       match=r"column 4 of 4 has neither a name nor a value \(does every line end with a comma"):
        bilevel.load_dataset(path, label=label)


@pytest.mark.parametrize("sep,name", [(";", "semicolons"), ("\t", "tabs")])
def test_a_semicolon_or_tab_separated_file_is_named_as_such(tmp_path, sep, name):
    """'found 1 column' (or, with decimal commas, 'more fields than the header') did not say why."""
    path = tmp_path / "d.csv"
    path.write_text(sep.join(["a", "b", "y"]) + "\n" + sep.join(["1", "2", "0"]) + "\n"
                    + sep.join(["3", "4", "1"]) + "\n")
    assert pd.read_csv(path, sep=sep).shape == (2, 3)  # a table once the separator is given
    with pytest.raises(InputError, match=f"found 1 column; its header is one field with {name} in it"):
        bilevel.load_dataset(path)
    path.write_text("a;b;y\n1,5;2;0\n3,5;4;1\n")  # decimal commas
    with pytest.raises(InputError,
                       match="more fields than the header has column names .its header is one field with semicolons"):
        bilevel.load_dataset(path)


@pytest.mark.parametrize("text", ["a,b,y\n", "a,b,y", "a,b,y\n\n\n"])
def test_a_header_without_data_rows_is_named_as_such(tmp_path, text):
    """It was refused as 'label column 'y' must have exactly two distinct values, found 0: []'."""
    path = tmp_path / "header.csv"
    path.write_text(text)
    assert pd.read_csv(path).shape == (0, 3)  # pandas: three columns, no row
    with pytest.raises(InputError, match="has a header row but no data rows"):
        bilevel.load_dataset(path)


def test_spaces_after_the_commas_are_not_part_of_names_or_labels(tmp_path):
    # "a, b, y" named the columns 'a', ' b', ' y': --label y was refused ("columns are ['a', ' b', ' y']"), and a
    # label ' yes' next to 'yes' was a third class
    path = tmp_path / "spaced.csv"
    path.write_text("a, b, y\n1.5, 2, yes\n3, -4.25, no\n0.5, 1, yes\n2, 2,no\n")
    expected = np.array([[1.5, 2.0], [3.0, -4.25], [0.5, 1.0], [2.0, 2.0]])
    d = bilevel.load_dataset(path, label="y", positive="yes")
    assert d.feature_names == ["a", "b"]
    np.testing.assert_array_equal(d.X, expected)
    np.testing.assert_array_equal(d.y, [1.0, -1.0, 1.0, -1.0])
    np.testing.assert_array_equal(bilevel.load_dataset(path).y, d.y)


def test_a_value_that_is_no_number_is_named_with_its_row(tmp_path):
    # UCI writes a missing value as '?': "not numeric: ['bare_nuclei']" left the user to find one '?' among
    # hundreds of numbers (and a quoted "1,000" among numbers, too)
    import csv

    rows = [[str(i), str(i % 7), f"{i}.5", "M" if i % 2 else "B"] for i in range(40)]
    rows[23][1], rows[31][2] = "?", "1,000"
    path = tmp_path / "uci.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([["id", "bare_nuclei", "size", "class"], *rows])
    with open(path, newline="") as fh:  # the csv module's reading: the data rows (from 0) holding them
        read = list(csv.DictReader(fh))
    at_q = next(k for k, r in enumerate(read) if r["bare_nuclei"] == "?")
    at_comma = next(k for k, r in enumerate(read) if r["size"] == "1,000")
    with pytest.raises(InputError, match=rf"not numeric: \['bare_nuclei', 'size'\] \('bare_nuclei' holds '\?' in "
                                         rf"row {at_q}, 'size' holds '1,000' in row {at_comma}\)"):
        bilevel.load_dataset(path)


@pytest.mark.parametrize("first", ["1000025,5,1,1,1,2,1,3,1,1,2", "0,0,1,M", "1,2,1"])
def test_a_file_without_a_header_whose_first_line_repeats_a_number_is_named_as_such(tmp_path, first):
    # UCI's .data files have no header; a first line with a repeated number was refused as "repeated column
    # names in its header: ['1']", which sent the user looking for a header the file does not have
    rest = {11: ["1002945,5,4,4,5,7,10,3,2,1,2", "1015425,3,1,1,1,2,2,3,1,1,4"], 4: ["1,0,2,B", "0,1,3,M"],
            3: ["3,4,0", "5,6,1"]}[first.count(",") + 1]
    path = tmp_path / "d.data"
    path.write_text("\n".join([first, *rest]) + "\n")
    assert len(pd.read_csv(path, header=None)) == 3  # pandas: every line is a data row
    with pytest.raises(InputError, match=f"has no header row: its first line '{first}'"):
        bilevel.load_dataset(path)
    path.write_text("x,x,y\n1,2,0\n3,4,1\n")  # a real header with a repeated name is still named as such
    with pytest.raises(InputError, match="repeated column names"):
        bilevel.load_dataset(path)


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
def test_the_index_that_to_csv_writes_is_not_read_as_a_feature(tmp_path, order):
    # df.to_csv(path) writes the index as an unnamed first column: it was loaded as the feature "Unnamed: 0",
    # the row numbers, which in a file sorted by class separate the classes perfectly
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=12), "b": rng.normal(size=12), "y": ["B"] * 6 + ["M"] * 6})
    if order == "shuffled":
        frame = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    path = tmp_path / "written.csv"
    frame.to_csv(path)
    read = pd.read_csv(path, index_col=0)  # pandas: the first column is the index
    assert list(read.index) == list(range(12)) and list(read.columns) == ["a", "b", "y"]
    with pytest.raises(InputError, match=r"column 1 has no name and holds the row numbers 0\.\.11 .*index=False"):
        bilevel.load_dataset(path)
    frame.to_csv(path, index=False)
    np.testing.assert_allclose(bilevel.load_dataset(path).X, frame[["a", "b"]].to_numpy(), rtol=1e-14)
    path.write_text(",a,y\n3,1.5,0\n1,2.5,1\n2,0.5,0\n")  # an unnamed column of other values still loads
    assert bilevel.load_dataset(path).feature_names == ["Unnamed: 0", "a"]


@pytest.mark.parametrize("label", [None, "a"])
@pytest.mark.parametrize("short", [["3"], ["3", "4"]])
def test_a_row_shorter_than_the_header_is_named_with_its_row(tmp_path, short, label):
    # pandas fills the missing fields with NaN: the row was reported as "label column 'y' ... has missing
    # values" (or, with label='a', the short row's missing feature as NaN), not as the short row it is
    import csv

    rows = [["a", "b", "y"], ["1", "2", "0"], ["5", "6", "1"], short, ["7", "8", "1"], ["2"]]
    path = tmp_path / "short.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    with open(path, newline="") as fh:  # the csv module's reading: the first data row (from 0) with fewer fields
        read = list(csv.reader(fh))
    first = next(k for k, r in enumerate(read[1:]) if len(r) < len(read[0]))
    with pytest.raises(InputError, match=rf"data row {first} \(counted from 0, after the header\) has {len(short)} "
                                         rf"fields?, the header names 3 columns \(2 such rows\)"):
        bilevel.load_dataset(path, label=label)
    path.write_text("a,b,y\n1,2,0\n3,4,\n5,6,1\n")  # an empty label field is a missing value, as before
    with pytest.raises(InputError, match="label column 'y' .* has missing values"):
        bilevel.load_dataset(path)


def test_a_label_or_positive_of_the_wrong_type_is_named(tmp_path):
    # the columns of a header "0,1,2" are the strs '0', '1', '2': label=2 was "not found ... columns are ['0',
    # '1', '2']", and positive='1' for labels read as the ints 0 and 1 was "not one of the labels [0, 1]"
    path = tmp_path / "numbered.csv"
    path.write_text("0,1,2\n1.5,2,0\n3,4,1\n5,6,1\n")
    assert list(pd.read_csv(path).columns) == ["0", "1", "2"]
    with pytest.raises(InputError, match=r"label must be the label column's name as a str; got 2 \(int\): a column "
                                         r"named '2' is label='2'"):
        bilevel.load_dataset(path, label=2)
    with pytest.raises(InputError, match=r"positive label '1' is not one of the labels \[0, 1\] .*pass positive=1"):
        bilevel.load_dataset(path, label="2", positive="1")
    np.testing.assert_array_equal(bilevel.load_dataset(path, label="2", positive=1).y, [-1.0, 1.0, 1.0])
    with pytest.raises(InputError, match=r"positive label 7 is not one of the labels \[0, 1\] of '[^']*'$"):
        bilevel.load_dataset(path, label="2", positive=7)


def test_a_label_with_a_trailing_nul_is_its_own_class(tmp_path):
    # numpy's == strips trailing NULs from a str: the labels 'no' and 'yes\x00' were told apart (two values) and
    # then both mapped to -1, a file of two classes silently loaded as one. Oracle: the csv module's reading.
    import csv

    path = tmp_path / "nul.csv"
    rows = [(0.5 * k, (-1.0) ** k, "yes\x00" if k % 3 == 0 else "no") for k in range(9)]
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([("a", "b", "y"), *rows])
    with open(path, newline="") as fh:
        read = list(csv.reader(fh))[1:]
    labels = [r[-1] for r in read]
    pos = sorted(set(labels))[1]
    data = bilevel.load_dataset(path)
    np.testing.assert_array_equal(data.y, [1.0 if v == pos else -1.0 for v in labels])
    np.testing.assert_array_equal(data.X, [[float(v) for v in r[:-1]] for r in read])
    assert set(data.y) == {-1.0, 1.0}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_utf16_and_utf32_files_are_refused_by_name(tmp_path, encoding):
    """Read as UTF-8 they gave "'utf-8' codec can't decode byte 0xff", feature columns named '\\x00a\\x00', rows
    "with 1 field", or a solution file "with no 'name value' lines"; the same text as UTF-8 reads."""
    from bilevel.certify.losses import load_losses_csv
    from solvers.solution_files import read_solution_file

    cases = [(bilevel.load_dataset, "data set", "a,b,y\n1,2,0\n3,4,1\n5,6,1\n"),
             (load_losses_csv, "loss table", "c1,c2\n0,1\n1,0\n"),
             (read_solution_file, "solution file", "C0,1.5\nC1,2\n")]
    for read, what, text in cases:
        path = tmp_path / "f.csv"
        path.write_bytes(text.encode("utf-8"))
        read(path)
        path.write_bytes(text.encode(encoding))
        with pytest.raises(InputError, match=f"{what} .*UTF-16 or UTF-32 text.*save it as UTF-8"):
            read(path)



def test_a_latin1_data_file_is_refused_naming_its_first_non_utf8_byte_and_line(tmp_path):
    """pandas' "'utf-8' codec can't decode byte 0xe9 in position N" gave a position within its read buffer, not
    within the file. The line given is the one whose bytes Python's own decoder (the oracle) stops at; the same
    text written as UTF-8 reads."""
    rows = ["a,b,y"] + [f"{k},{k % 3},{k % 2}" for k in range(5000)] + ["caf\u00e9,1,1"]
    text = "\n".join(rows) + "\n"
    path = tmp_path / "latin1.csv"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError, match=rf"not UTF-8 text: byte 0xe9 on line {len(rows)}; save it as UTF-8"):
        bilevel.load_dataset(path)
    try:
        path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        assert path.read_bytes()[:exc.start].count(b"\n") + 1 == len(rows)
    path.write_bytes(text.replace("caf\u00e9", "7").encode("utf-8"))
    assert bilevel.load_dataset(path).X.shape == (5001, 2)

def test_a_file_named_like_a_built_in_set_is_not_shadowed_by_it(tmp_path, monkeypatch):
    """A file ./cancer was ignored and the built-in set loaded in its place (str or Path alike). Now the str is
    refused as ambiguous and a Path always names the file; a folder of that name (a results folder) changes
    nothing."""
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    builtin = bilevel.load_dataset("cancer")
    with pytest.raises(InputError, match="file 'cancer' not found.*the str 'cancer' names the built-in"):
        bilevel.load_dataset(Path("cancer"))
    (tmp_path / "cancer").write_text("a,b,y\n1,2,0\n3,4,1\n5,6,1\n")
    with pytest.raises(InputError, match="names both a built-in data set and a file"):
        bilevel.load_dataset("cancer")
    for arg in (Path("cancer"), "./cancer", tmp_path / "cancer"):
        d = bilevel.load_dataset(arg)
        assert d.X.tolist() == [[1, 2], [3, 4], [5, 6]] and d.feature_names == ["a", "b"]
    (tmp_path / "diabetes").mkdir()
    assert bilevel.load_dataset("diabetes").X.shape == (532, 7)
    assert builtin.X.shape == (449, 9)


def test_each_stratified_draw_takes_the_nearest_whole_share_of_each_class():
    """Each draw (test, then train, then validation) takes from each class its share of the rows it draws from,
    rounded to the nearest whole row (mutation testing: giving the leftover row to the class with the smaller
    fractional share passed the suite, whose tolerance of one row allowed it). 30 of 100 rows positive: the test
    set takes 15 of 50; the training draw of 7 from 15 + 35 rows 2.1 positives, so 2; the validation draw of 9
    from 13 + 30 rows 2.72 positives, so 3."""
    y = np.where(np.arange(100) < 30, 1.0, -1.0)
    X = np.random.default_rng(0).normal(size=(100, 2))
    for seed in range(5):
        s = bilevel.split_dataset(X, y, 7, 9, seed=seed)
        assert [int((part == 1).sum()) for part in (s.y_test, s.y_train, s.y_val)] == [15, 2, 3]
        assert [len(part) for part in (s.y_test, s.y_train, s.y_val)] == [50, 7, 9]


def test_the_row_names_that_r_write_csv_writes_are_not_read_as_a_feature(tmp_path):
    # R's write.csv(df, path) writes the row names "1".."n" as a first column named "": it was loaded as the
    # feature "Unnamed: 0", the row numbers, which in a file sorted by class separate the classes perfectly
    rows = [(0.5, "B"), (1.5, "B"), (-0.5, "B"), (2.0, "M"), (0.1, "M"), (1.1, "M")]
    path = tmp_path / "from_r.csv"
    path.write_text('"","a","y"\n' + "".join(f'"{k + 1}",{a},"{y}"\n' for k, (a, y) in enumerate(rows)))
    assert list(pd.read_csv(path, index_col=0).index) == list(range(1, 7))  # pandas: the first column is an index
    with pytest.raises(InputError, match=r"column 1 has no name and holds the row numbers 1\.\.6 .*row\.names"):
        bilevel.load_dataset(path)
    path.write_text('"a","y"\n' + "".join(f'{a},"{y}"\n' for a, y in rows))  # row.names = FALSE
    assert bilevel.load_dataset(path).feature_names == ["a"]
    path.write_text(",a,y\n2,1.5,0\n1,2.5,1\n3,0.5,0\n")  # an unnamed column of other values still loads
    assert bilevel.load_dataset(path).feature_names == ["Unnamed: 0", "a"]


@pytest.mark.parametrize("kind, what", [("xls", "Excel .xls"), ("sqlite", "SQLite database"), ("npy", "NumPy .npy"),
                                        ("tar", "tar archive"), ("pdf", "PDF file"), ("parquet", "Parquet file")])
def test_a_binary_table_or_archive_is_named_as_such(tmp_path, kind, what):
    """A tar, SQLite or .xls file was "UTF-16 or UTF-32 text without a byte-order mark ... save it as UTF-8" (its
    NUL bytes), a .npy or PDF file a UTF-8 decoding error: advice that cannot help."""
    import sqlite3
    import tarfile

    path = tmp_path / "data.csv"
    (tmp_path / "inner.csv").write_text("a,b,y\n1,2,0\n3,4,1\n")
    if kind == "xls":
        path.write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504))  # the OLE2 compound file signature
    elif kind == "sqlite":
        with contextlib.closing(sqlite3.connect(path)) as db:
            db.execute("create table t(a, b, y)")
            db.execute("insert into t values (1, 2, 0)")
            db.commit()
    elif kind == "npy":
        with open(path, "wb") as fh:
            np.save(fh, np.eye(3))
    elif kind == "tar":
        with tarfile.open(path, "w") as tar:
            tar.add(tmp_path / "inner.csv", arcname="inner.csv")
    elif kind == "pdf":
        path.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
    else:  # Parquet: "PAR1", the pages, the footer, its length and "PAR1"
        path.write_bytes(b"PAR1" + bytes(range(40)) + b"\x28\x00\x00\x00PAR1")
    with pytest.raises(InputError, match=f"is an? {re.escape(what)}.*not a CSV text file"):
        bilevel.load_dataset(path)
    path.write_text("PAR1,b,y\n1,2,0\n3,4,1\n")  # a header that starts like Parquet's magic still loads
    assert bilevel.load_dataset(path).feature_names == ["PAR1", "b"]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="named pipes need os.mkfifo")
def test_a_named_pipe_or_device_as_data_is_refused_not_waited_on(tmp_path):
    """load_dataset opens its file several times (compression, binary format, encoding, pandas): a named pipe
    (``bilevel tune --data <(...)``) gave its table to the first read only, and the next open waited forever for a
    writer. Now a path that is not a regular file is an InputError before any read. Run in a daemon thread, so a
    regression fails here instead of hanging the suite."""
    import os
    import threading

    fifo = tmp_path / "table.csv"
    os.mkfifo(fifo)
    outcome = []

    def load():
        try:
            bilevel.load_dataset(fifo)
        except Exception as exc:  # noqa: BLE001 - the outcome is checked below
            outcome.append(exc)
        else:
            outcome.append(None)
    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # blocked in open(): give it a writer that closes at once, so the thread ends
        os.close(os.open(fifo, os.O_WRONLY))
        worker.join(10)
    assert outcome and isinstance(outcome[0], InputError), outcome
    assert "is not a regular file" in str(outcome[0])
    if Path("/dev/null").exists():
        with pytest.raises(InputError, match="is not a regular file"):
            bilevel.load_dataset("/dev/null")


@pytest.mark.parametrize("n_rows", [9, 10, 11])
@pytest.mark.parametrize("test_fraction", [0.0, 0.05, 0.25, 0.5, 0.55, 0.75, 0.9, 0.95, 0.999])
def test_check_split_sizes_refuses_exactly_the_sizes_split_dataset_cannot_draw(n_rows, test_fraction):
    """split_dataset and check_split_sizes (called by the CLIs before the data line is printed) each computed the
    number of test rows; a disagreement would refuse a split that works or pass one that fails. Oracle: the rows
    the accepted splits hold: the same test set size t for all of them, train and validation of the sizes asked,
    and the refused sizes exactly those with n_train + n_val + n_cal > n_rows - t (odd row counts, sizes that
    exactly fill the non-test rows, test fractions 0 and near 1)."""
    from bilevel.datasets import OneClassTrainingError, check_split_sizes

    X, y = np.arange(2.0 * n_rows).reshape(n_rows, 2), np.where(np.arange(n_rows) % 2, 1.0, -1.0)
    refused, n_test = {}, set()
    for n_train in range(2, n_rows + 1):
        for n_val in range(1, n_rows + 1):
            for n_cal in (0, 1):
                sizes = {"n_train": n_train, "n_val": n_val, **({"n_cal": n_cal} if n_cal else {})}
                try:
                    check_split_sizes(n_rows, sizes, test_fraction)
                    checked = True
                except InputError:
                    checked = False
                try:
                    s = bilevel.split_dataset(X, y, n_train, n_val, n_cal=n_cal, test_fraction=test_fraction)
                    assert (len(s.y_train), len(s.y_val), len(s.y_cal)) == (n_train, n_val, n_cal)
                    n_test.add(len(s.y_test))
                    split = True
                except OneClassTrainingError:  # past the size check: the training draw lacked a class
                    split = True
                except InputError as exc:
                    assert "exceeds" in str(exc)
                    split = False
                assert checked == split, (n_train, n_val, n_cal)
                refused[n_train + n_val + n_cal] = not split
    assert len(n_test) <= 1
    if n_test:  # the refused totals are those above the non-test rows
        t = n_test.pop()
        assert all(was_refused == (total > n_rows - t) for total, was_refused in refused.items())


@pytest.mark.parametrize("name, other", [("cancer", "benign"), ("diabetes", "No")])
def test_a_built_in_data_set_takes_another_positive_label(name, other):
    """``positive`` picks the +1 class of a built-in data set too: the other label flips every y (mutation testing:
    the built-in loader ignoring ``positive`` passed the suite)."""
    default, flipped = bilevel.load_dataset(name), bilevel.load_dataset(name, positive=other)
    np.testing.assert_array_equal(flipped.y, -default.y)
    np.testing.assert_array_equal(flipped.X, default.X)


def test_a_draw_of_two_rows_takes_one_of_each_class():
    """At least one row of each class in a draw of two (the minority's share 0.2 rounds to none): a training set
    of two rows of one class could not be tuned (mutation testing: the rule applied from three rows only passed
    the suite). 10 of 100 rows positive, no test rows: the training draw of 2 takes one positive."""
    y = np.where(np.arange(100) < 10, 1.0, -1.0)
    X = np.random.default_rng(0).normal(size=(100, 2))
    for seed in range(5):
        s = bilevel.split_dataset(X, y, 2, 2, test_fraction=0.0, seed=seed)
        assert sorted(s.y_train) == [-1.0, 1.0] and sorted(s.y_val) == [-1.0, 1.0]
