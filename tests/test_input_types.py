"""Valid input in another type (numpy scalars of other widths, pandas objects, lists) gives the answer of the
canonical type, and input of a type that would be read as something else (booleans as numbers) is refused by
name. Each case was found by a hunt over the public API's input types."""
import os

import numpy as np
import pandas as pd
import pytest

import bilevel
import bilevel.certify
from bilevel.errors import InputError
from tiny_data import X, XV, Y, YV, solved_optimistic_model


@pytest.fixture(scope="module")
def optimistic_model():
    return solved_optimistic_model()


@pytest.mark.parametrize("value", [np.float32(0.25), np.float16(0.25), np.float64(0.25), np.int64(0)])
def test_a_numpy_scalar_highs_option_is_set_as_its_number(optimistic_model, value):
    """highspy refuses a np.float32 or np.float16 for a double option: solve_model reported 'HiGHS rejected
    option mip_heuristic_effort=np.float32(0.25)' for a valid value."""
    info = bilevel.solve_model(optimistic_model, options={"mip_heuristic_effort": value})
    assert info.options["mip_heuristic_effort"] == float(value)
    assert type(info.options["mip_heuristic_effort"]) in (float, int)


@pytest.mark.parametrize("kw", [dict(w_bar=np.array([True, True])), dict(w_bar=[True, False]),
                                dict(candidates=[[True, True]])])
def test_kkt_start_refuses_boolean_boxes(optimistic_model, kw):
    """A boolean box was read as the numbers 1 and 0 (hinge_lp and tune's w_bar_bounds refuse booleans)."""
    with pytest.raises(InputError, match="not booleans"):
        bilevel.kkt_start(optimistic_model, **kw)


def test_kkt_start_reads_a_dataframe_of_candidates_by_rows(optimistic_model):
    """A DataFrame iterates over its column labels, not its rows: a valid DataFrame of boxes was refused as
    'candidates[0] must be a finite box of shape (1,); got array(0.)' (its column label). Oracle: the same boxes
    as a 2-D array."""
    pd = pytest.importorskip("pandas")
    m = bilevel.build_optimistic_model(X[:, :1], Y, XV[:, :1], YV)
    boxes = np.array([[0.3], [0.6]])
    values = lambda start: [v for _, v in start]  # noqa: E731
    expected = values(bilevel.kkt_start(m, w_bar=[0.1], candidates=boxes))
    assert values(bilevel.kkt_start(m, w_bar=[0.1], candidates=pd.DataFrame(boxes))) == expected
    assert values(bilevel.kkt_start(m, w_bar=[0.1], candidates=pd.DataFrame(boxes, columns=["c"]))) == expected


@pytest.mark.parametrize("dtype, n_max", [(np.float32, 120), (np.float16, 60)])
def test_risks_in_float32_or_float16_count_their_errors_as_in_float64(dtype, n_max):
    """A risk k / n given in float32 is off k / n by up to 6e-8 (relative), far more than the float64 round-off the
    error count n * r_hat was snapped for: bentkus_p_value(np.float32(0.1), 50, 0.15) counted ceil(5.0000000745)
    = 6 errors and gave 0.982 instead of 0.596, and binomial_p_value refused float16 risks as not 0/1 losses.
    Oracle: scipy.stats.binom at the exact count k."""
    from scipy import stats

    from bilevel.certify import bentkus_p_value, binomial_p_value, combined_p_value

    alpha = 0.3
    for n in range(1, n_max + 1):
        k = np.arange(n + 1)
        r = (k / n).astype(dtype)
        cdf = stats.binom.cdf(k, n, alpha)
        np.testing.assert_array_equal(binomial_p_value(r, n, alpha), cdf)
        np.testing.assert_array_equal(bentkus_p_value(r, n, alpha), np.minimum(1.0, np.e * cdf))
        np.testing.assert_array_equal(combined_p_value(r[:, None], n, [alpha], "bentkus"), np.minimum(1.0, np.e * cdf))
    assert bentkus_p_value(dtype(0.1), 50, 0.15) == pytest.approx(np.e * stats.binom.cdf(5, 50, 0.15))
    assert bentkus_p_value([dtype(0.1)], 50, 0.15)[0] == pytest.approx(np.e * stats.binom.cdf(5, 50, 0.15))


def test_a_bound_of_minus_zero_gives_the_box_of_zero():
    """w_bar_bounds=(-0.0, 1.0) returned a w_bar holding -0.0 where (0.0, 1.0) returns 0.0 (printed and
    recorded as -0.0, as epsilon = -0.0 was)."""
    rng = np.random.default_rng(5)  # an instance whose optimal box has w_bar_0 = 0
    Xt, Xv = np.round(rng.normal(size=(6, 2)), 2), np.round(rng.normal(size=(4, 2)), 2)
    Yt, Yv = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]), np.array([1.0, -1.0, -1.0, 1.0])
    expected = bilevel.tune(Xt, Yt, Xv, Yv, w_bar_bounds=(0.0, 1.0)).w_bar
    got = bilevel.tune(Xt, Yt, Xv, Yv, w_bar_bounds=(-0.0, 1.0)).w_bar
    assert (expected == 0).any()
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    np.testing.assert_array_equal(got, expected)


def test_boolean_labels_are_refused():
    """An all-True boolean y was read as all +1 labels (a mixed mask was refused for its 0s, as labels in {0, 1}
    are): booleans are refused as labels everywhere check_xy reads them. Oracle: the same labels as numbers."""
    from bilevel.inner import hinge, hinge_lp

    ones = np.ones(len(X), dtype=bool)
    with pytest.raises(InputError, match="not booleans"):
        hinge_lp(np.ones(2), (X, ones))
    with pytest.raises(InputError, match="not booleans"):
        hinge(X, ones, np.ones(2), 0.0)
    with pytest.raises(InputError, match="not booleans"):
        bilevel.tune(X, Y, XV, ones[:4])
    assert hinge(X, ones.astype(float), np.ones(2), 0.0).shape == (len(X),)  # as numbers they are labels


def test_a_set_of_flip_indices_is_read_as_its_elements():
    """A set of validation indices as ``flip`` (or ``flipped``) was refused as "got shape ()"; it names the same
    V_f as the sorted list. Oracle: the sorted list."""
    w, b = np.array([1.0, -1.0]), 0.0
    idx, rule = bilevel.flipped_set(XV, YV, w, b, flip={2, 0})
    assert idx.tolist() == [0, 2] and rule == "explicit"
    m = bilevel.build_pessimistic_model(X, Y, XV, YV, flipped=frozenset({3, 1}), epsilon=0.1)
    assert m.bilevel_info["flipped"].tolist() == [1, 3]


def test_a_pandas_flip_mask_must_share_the_validation_index(monkeypatch):
    """A boolean pandas Series as ``flip`` was paired with the validation rows by position even when its index
    named other rows (X_val and y_val are refused in that case, check_aligned). Now refused by name, and in
    ``tune`` before any solve (a bad explicit flip was refused only after the optimistic MILP)."""
    import importlib


    tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
    Xv = pd.DataFrame(XV, index=[10, 11, 12, 13])
    mask = pd.Series([True, False, True, False], index=[13, 12, 11, 10])
    with pytest.raises(InputError, match="different row indexes") as refused:
        bilevel.flipped_set(Xv, YV, np.array([1.0, -1.0]), 0.0, flip=mask)
    assert "(e.g. flip.loc[X_val.index])" in str(refused.value)  # was "flip (explicit indices of V_f).loc[...]"
    solved = []
    real = tune_module.solve_model

    def counting(*args, **kwargs):
        solved.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tune_module, "solve_model", counting)
    for bad, match in ((mask, "different row indexes"), ([7], "indices in 0..3"), ([], "non-empty")):
        with pytest.raises(InputError, match=match):
            bilevel.tune(X, Y, Xv, YV, mode="pessimistic", flip=bad)
    assert solved == []
    aligned = pd.Series([True, False, True, False], index=Xv.index)
    assert bilevel.flipped_set(Xv, YV, np.array([1.0, -1.0]), 0.0, flip=aligned)[0].tolist() == [0, 2]


def test_dagger_refuses_a_dict_of_parents_by_name():
    """A dict of parent lists (as CertificationResult.parents is, keyed by candidate) was read as its keys and
    refused as "parents[0] must be a list ..., got 0"; the message now says a list is needed."""
    from bilevel.certify import dagger

    with pytest.raises(InputError, match="not a mapping"):
        dagger([0.01, 0.02], {0: [], 1: [0]}, 0.1)


def test_a_masked_array_with_masked_entries_is_refused_not_read_through_its_mask():
    """``np.asarray`` drops a masked array's mask, so the hidden values under it were used as numbers, silently:
    Bonferroni rejected on a masked p-value of 0.01, LTT scored a candidate on its masked losses, and tune trained
    on a masked feature value or label. Now each is an InputError naming the input; an array whose mask hides
    nothing is still read as its values (oracle: the same call on the plain array)."""
    from bilevel.certify import ltt
    from bilevel.certify.procedures import bonferroni

    hidden = np.ma.masked_array([0.9, 0.01], mask=[False, True])
    with pytest.raises(InputError, match="p_values has 1 masked entries"):
        bonferroni(hidden, 0.1)
    np.testing.assert_array_equal(bonferroni(np.ma.masked_array([0.9, 0.01], mask=False), 0.1),
                                  bonferroni(np.array([0.9, 0.01]), 0.1))
    losses = np.ma.masked_array(np.zeros((40, 2)), mask=False)
    losses[:, 1] = np.ma.masked  # candidate 1's losses all hidden
    with pytest.raises(InputError, match="losses has 40 masked entries"):
        ltt(losses, 0.2, 0.1)
    np.testing.assert_array_equal(ltt(np.ma.masked_array(np.zeros((40, 2)), mask=False), 0.2, 0.1).certified,
                                  ltt(np.zeros((40, 2)), 0.2, 0.1).certified)
    x_plain = np.asarray(X, dtype=float)
    x_masked = np.ma.masked_array(x_plain, mask=np.zeros(x_plain.shape, bool))
    x_masked[0, 0] = np.ma.masked
    with pytest.raises(InputError, match="X_train has 1 masked entries"):
        bilevel.tune(x_masked, Y, XV, YV)
    y_masked = np.ma.masked_array(np.asarray(Y, dtype=float), mask=False)
    y_masked[0] = np.ma.masked
    with pytest.raises(InputError, match="y_train has 1 masked entries"):
        bilevel.tune(x_plain, y_masked, XV, YV)


_LOSSES = np.random.default_rng(0).uniform(0, 0.3, (40, 5))


@pytest.mark.parametrize("call, name", [
    (lambda v: bilevel.tune(X, Y, XV, YV, "pessimistic", epsilon=v), "epsilon"),
    (lambda v: bilevel.tune(X, Y, XV, YV, time_limit=v), "time_limit"),
    (lambda v: bilevel.tune(X, Y, XV, YV, mip_gap=v), "mip_gap"),
    (lambda v: bilevel.tune(X, Y, XV, YV, tolerance=v), "tolerance"),
    (lambda v: bilevel.tune(X, Y, XV, YV, w_bar_bounds=(0.0, v)), "w_bar_ub"),
    (lambda v: bilevel.tune(X, Y, XV, YV, w_bar_bounds=([v] * X.shape[1], 1.0)), "w_bar_lb"),
    (lambda v: bilevel.split_dataset(np.zeros((20, 2)), np.repeat([-1.0, 1.0], 10), 4, 4, test_fraction=v),
     "test_fraction"),
    (lambda v: bilevel.certify.hoeffding_p_value(0.1, 50, v), "alpha"),
    (lambda v: bilevel.certify.bonferroni([0.01, 0.5], v), "delta"),
    (lambda v: bilevel.certify.ltt(_LOSSES, v, 0.1), "alpha"),
    (lambda v: bilevel.certify.rg_pt(_LOSSES, 0.2, 0.1, seed=0, tau=v), "tau"),
    (lambda v: bilevel.certify.split_calibration(40, v, 0), "opt_fraction"),
    (lambda v: bilevel.certify.validate_losses([[v, 0.2]]), "losses"),
])
@pytest.mark.parametrize("text", ["0.5", b"0.5", np.str_("0.5")])
def test_a_numeric_string_is_refused_for_a_float_argument_as_for_an_integer_one(call, name, text):
    """tune(epsilon="0.2"), time_limit="5", mip_gap="0.1", w_bar_bounds=("0", "1") and split_dataset's
    test_fraction="0.5" were read as the numbers they spell, where race="2" was refused ("must be an integer")
    and epsilon=True too. Oracle: the integer arguments' refusal, an InputError naming the argument."""
    with pytest.raises(InputError, match=name):
        call(text)


def test_numpy_scalars_stay_numbers_for_the_float_arguments():
    """The refusal of strings leaves numpy scalars (floats and ints of any width) accepted. Oracle: the same
    call with the Python numbers."""
    X_, y_ = np.arange(40.0).reshape(20, 2), np.repeat([-1.0, 1.0], 10)
    plain = bilevel.split_dataset(X_, y_, 4, 4, test_fraction=0.25, seed=0)
    for value in (np.float64(0.25), np.float32(0.25), np.float16(0.25)):
        assert np.array_equal(bilevel.split_dataset(X_, y_, 4, 4, test_fraction=value, seed=0).X_test, plain.X_test)
    kw = dict(time_limit=np.float32(60), mip_gap=np.float64(1e-4), w_bar_bounds=(np.int64(0), np.float32(1)))
    got = bilevel.tune(X, Y, XV, YV, "pessimistic", epsilon=np.float32(0.25), **kw)
    want = bilevel.tune(X, Y, XV, YV, "pessimistic", epsilon=0.25, time_limit=60.0, mip_gap=1e-4, w_bar_bounds=(0, 1))
    assert got.objective == pytest.approx(want.objective, abs=1e-6)
    assert bilevel.certify.hoeffding_p_value(0.1, 50, np.float32(0.25)) == \
        pytest.approx(bilevel.certify.hoeffding_p_value(0.1, 50, 0.25))


def test_a_pandas_categorical_of_strings_is_refused_as_the_strings_are():
    """A categorical Series of the strings "1" and "-1" as labels, or a DataFrame column of categorical number
    strings as a feature, was read as the numbers the strings spell, where the same strings in an object or string
    column are refused ("got strings"). Oracle: the refusal of the plain strings; a categorical of numbers is
    still accepted, with the plain labels' answer."""

    labels = [str(int(v)) for v in Y]
    for strings in (pd.Series(labels), pd.Series(labels).astype("category")):
        with pytest.raises(InputError, match="y_train .*got strings"):
            bilevel.tune(X, strings, XV, YV)
    frame = pd.DataFrame({"a": pd.Series([str(v) for v in X[:, 0]]).astype("category"), "b": X[:, 1]})
    with pytest.raises(InputError, match="X_train .*got strings"):
        bilevel.tune(frame, Y, XV, YV)
    numbers = pd.Series(Y).astype("category")
    assert bilevel.tune(X, numbers, XV, YV).objective == pytest.approx(bilevel.tune(X, Y, XV, YV).objective, abs=1e-6)


def test_dates_and_durations_are_refused_not_read_as_counts_of_their_unit():
    """A DataFrame column of durations (or dates) was read as counts of its storage unit: 1 s, 2 s, ... became
    the features 1, 2, ... stored in seconds and 1000, 2000, ... stored in milliseconds, two answers for one data
    set; numpy's datetime64 arrays likewise. Oracle: the two units of the same durations, which must not both be
    accepted as different numbers; now both are refused by name, as strings are."""

    seconds = pd.to_timedelta(np.arange(len(Y)) % 3, unit="s")
    for unit in ("s", "ms"):
        frame = pd.DataFrame({"a": seconds.as_unit(unit), "b": X[:, 1]})
        with pytest.raises(InputError, match="X_train .*dates or durations"):
            bilevel.tune(frame, Y, XV, YV)
    dates = np.datetime64("2020-01-01") + np.arange(len(Y)).reshape(-1, 1)
    with pytest.raises(InputError, match="X_train .*dates or durations"):
        bilevel.tune(dates, Y, XV[:, :1], YV)
    with pytest.raises(InputError, match="dates or durations"):
        bilevel.split_dataset(pd.DataFrame({"d": pd.date_range("2020", periods=8)}), np.repeat([-1.0, 1.0], 4), 2, 2)


def test_w_bar_bounds_given_as_a_dict_or_set_are_refused():
    """``w_bar_bounds={0: 0.3, 1: 0.8}`` (a dict of the two bounds by position) was unpacked into its keys and
    tuned over the box [0, 1], not [0.3, 0.8], without a word (a set, into its elements in hash order). Oracle:
    the tuple's refusal of a malformed pair; now refused by name."""
    for bounds in ({0: 0.3, 1: 0.8}, {0.3, 0.8}):
        with pytest.raises(InputError, match="w_bar_bounds must be a pair"):
            bilevel.tune(X, Y, XV, YV, w_bar_bounds=bounds)


@pytest.mark.parametrize("value", [pd.NA, pd.NaT, pd.Timestamp("2020-01-01"), pd.Timedelta("1s")],
                         ids=["NA", "NaT", "Timestamp", "Timedelta"])
def test_a_pandas_scalar_for_a_number_is_an_input_error(value):
    """The checks took any object of a pandas module for a DataFrame, Series or Index: ``epsilon=pd.NA``,
    ``delta=pd.NA``, ``alpha=pd.NA`` and ``r_hat=pd.NA`` raised AttributeError "'NAType' object has no attribute
    'dtype'" from inside the string check."""
    from bilevel.certify import hoeffding_bentkus_p_value, ltt

    losses = np.random.default_rng(0).random((40, 4, 1)) * 0.3
    calls = [lambda: bilevel.tune(X, Y, XV, YV, mode="pessimistic", epsilon=value),
             lambda: bilevel.tune(X, Y, XV, YV, w_bar_bounds=(0.0, value)),
             lambda: ltt(losses, 0.2, value), lambda: ltt(losses, value, 0.1),
             lambda: hoeffding_bentkus_p_value(value, 40, 0.3)]
    for call in calls:
        with pytest.raises(InputError, match="must be a number"):
            call()


class _PathLike(os.PathLike):
    """An ``os.PathLike`` that is not a pathlib.Path (as a file-system library's path objects are)."""

    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path


def test_a_path_like_object_empty_bytes_and_nul_paths(tmp_path):
    """``load_dataset`` of an ``os.PathLike`` other than a Path looked for a file named by its repr ("'<... object at
    0x...>' is neither a built-in name nor an existing file"), though ``load_losses_csv`` read it; ``""`` was "data
    path '' is a directory" (Path('') is the working directory); a NUL in a loss CSV's path raised ValueError
    "embedded null byte". Oracle: the same file read through a str."""
    from bilevel.certify import load_losses_csv

    data = tmp_path / "d.csv"
    data.write_text("a,b,y\n" + "".join(f"{i},{i % 3},{'yes' if i % 2 else 'no'}\n" for i in range(8)))
    ref = bilevel.load_dataset(str(data))
    got = bilevel.load_dataset(_PathLike(str(data)))
    assert np.array_equal(got.X, ref.X) and np.array_equal(got.y, ref.y) and got.classes == ref.classes
    for bad, message in [("", "name_or_path is empty"), (_PathLike(b"d.csv"), "got bytes")]:
        with pytest.raises(InputError, match=message):
            bilevel.load_dataset(bad)
    for bad, message in [("", "is an empty path"), ("l\x00.csv", "holds a NUL character"),
                         (_PathLike(b"l.csv"), "got one of bytes")]:
        with pytest.raises(InputError, match=rf"path \(the loss CSV\).*{message}"):
            load_losses_csv(bad)


def test_a_pandas_index_or_scalar_beside_a_pandas_object_is_no_attribute_error():
    """``check_aligned`` took any object of a pandas module for a DataFrame or Series: ``tune(X_df, pd.Index(y),
    ...)`` raised AttributeError "'Index' object has no attribute 'index'", and ``tune(pd.NA, pd.NA, ...)`` "'NAType'
    object has no attribute 'index'". An Index has no row labels, so it pairs by position like an array. Oracle:
    the same data as numpy arrays."""
    ref = bilevel.tune(X, Y, XV, YV)
    got = bilevel.tune(pd.DataFrame(X), pd.Index(Y), XV, YV)
    assert got.objective == pytest.approx(ref.objective, abs=1e-9)
    assert np.allclose(got.w_bar, ref.w_bar, atol=1e-7)
    for value in (pd.NA, pd.NaT):
        with pytest.raises(InputError, match="X_train must be"):
            bilevel.tune(value, value, XV, YV)
