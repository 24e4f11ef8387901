"""Valid input in another type (numpy scalars of other widths, pandas objects, lists) gives the answer of the
canonical type, and input of a type that would be read as something else (booleans as numbers) is refused by
name. Each case was found by a hunt over the public API's input types."""
import numpy as np
import pytest

import bilevel
from bilevel.errors import InputError

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [0.5, -1.0], [-0.5, 0.5]])
Y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
XV, YV = X[:4] + 0.1, Y[:4]


@pytest.fixture(scope="module")
def optimistic_model():
    m = bilevel.build_optimistic_model(X, Y, XV, YV)
    bilevel.solve_model(m)
    return m


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
