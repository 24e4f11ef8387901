"""p-values against their closed forms (computed here with the math module, independently of scipy)."""

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from bilevel.certify import (
    bentkus_p_value,
    binomial_p_value,
    combined_p_value,
    hoeffding_bentkus_p_value,
    hoeffding_kl_p_value,
    hoeffding_p_value,
    p_values_from_losses,
)
from bilevel.errors import InputError

NS = [1, 2, 5, 17, 60, 200]
ALPHAS = [0.01, 0.05, 0.1, 0.3, 0.5, 0.9]


def grid(n):
    """Empirical risks k/n (all of them) plus a few values between the grid points."""
    ks = [k / n for k in range(n + 1)]
    extra = [0.0, 1e-9, 0.033, 0.25, 0.5 - 1e-12, 0.77, 1.0]
    return sorted(set(ks + extra))


def binom_cdf(k, n, a):
    k = min(k, n)
    return math.fsum(math.comb(n, i) * a**i * (1 - a) ** (n - i) for i in range(0, k + 1))


def ref_hoeffding(r, n, a):
    return math.exp(-2 * n * max(a - r, 0.0) ** 2)


def ref_kl(r, n, a):
    x = min(r, a)
    h = (x * math.log(x / a) if x > 0 else 0.0) + ((1 - x) * math.log((1 - x) / (1 - a)) if x < 1 else 0.0)
    return math.exp(-n * h)


def ref_count(r, n):
    # number of errors behind r: k when r is the float of k/n, else the exact ceil(n r) (no rounding, so a real
    # fraction of a loss is never rounded down)
    k = round(n * r)
    return k if k / n == r else math.ceil(Fraction(r) * n)


def ref_bentkus(r, n, a):
    return min(1.0, math.e * binom_cdf(ref_count(r, n), n, a))


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_closed_forms_on_grid(n, alpha):
    r = np.array(grid(n))
    exp_h = [ref_hoeffding(x, n, alpha) for x in r]
    exp_kl = [ref_kl(x, n, alpha) for x in r]
    exp_b = [ref_bentkus(x, n, alpha) for x in r]
    np.testing.assert_allclose(hoeffding_p_value(r, n, alpha), exp_h, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(hoeffding_p_value(r, n, alpha, kl=True), exp_kl, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(hoeffding_kl_p_value(r, n, alpha), exp_kl, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(bentkus_p_value(r, n, alpha), exp_b, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(
        hoeffding_bentkus_p_value(r, n, alpha), np.minimum(exp_kl, exp_b), rtol=1e-9, atol=1e-300
    )
    on_grid = np.arange(n + 1) / n
    exp_bin = [binom_cdf(k, n, alpha) for k in range(n + 1)]
    np.testing.assert_allclose(binomial_p_value(on_grid, n, alpha), exp_bin, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("n", NS)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_edge_cases(n, alpha):
    # r_hat = 0
    assert hoeffding_p_value(0.0, n, alpha) == pytest.approx(math.exp(-2 * n * alpha**2), rel=1e-12)
    assert hoeffding_kl_p_value(0.0, n, alpha) == pytest.approx((1 - alpha) ** n, rel=1e-9)
    assert bentkus_p_value(0.0, n, alpha) == pytest.approx(min(1.0, math.e * (1 - alpha) ** n), rel=1e-9)
    assert binomial_p_value(0.0, n, alpha) == pytest.approx((1 - alpha) ** n, rel=1e-9)
    # r_hat >= alpha: no evidence at all
    for r in [alpha, min(1.0, alpha + 1e-6), (alpha + 1) / 2, 1.0]:
        for fn in (hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value):
            assert fn(r, n, alpha) == 1.0
    ks = np.arange(math.ceil(n * alpha), n + 1)
    assert np.all(binomial_p_value(ks / n, n, alpha) >= 0.5)


@pytest.mark.parametrize("fn", [hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value])
@pytest.mark.parametrize("n", [3, 50, 400])
def test_monotone_and_bounded(fn, n):
    r = np.linspace(0, 1, 2001)
    for alpha in ALPHAS:
        p = fn(r, n, alpha)
        assert np.all(p <= 1.0) and np.all(p >= 0.0)
        assert np.all(np.diff(p) >= -1e-15)
        # the sharper forms are never larger than Eq. (6)
        if fn is not hoeffding_p_value and fn is not bentkus_p_value:
            assert np.all(p <= hoeffding_p_value(r, n, alpha) + 1e-15)


def test_binomial_monotone():
    for n in [1, 10, 300]:
        p = binomial_p_value(np.arange(n + 1) / n, n, 0.2)
        assert np.all(np.diff(p) >= 0) and p.max() <= 1.0


@pytest.mark.parametrize("n", [10, 40, 150])
@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.5])
def test_exact_super_uniformity_for_bernoulli_losses(n, alpha):
    """P(p <= u) <= u when the true risk is alpha (worst case of the null), by exact enumeration."""
    pmf = np.array([math.comb(n, k) * alpha**k * (1 - alpha) ** (n - k) for k in range(n + 1)])
    r = np.arange(n + 1) / n
    for fn in (hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value, binomial_p_value):
        p = fn(r, n, alpha)
        for u in [0.001, 0.01, 0.05, 0.1, 0.2, 0.5]:
            assert pmf[p <= u].sum() <= u + 1e-12, (fn.__name__, u)


def test_shapes_and_scalars():
    r = np.array([[0.0, 0.1], [0.2, 0.5]])
    for fn in (hoeffding_p_value, bentkus_p_value, hoeffding_bentkus_p_value):
        out = fn(r, 10, 0.3)
        assert out.shape == (2, 2)
        assert isinstance(fn(0.1, 10, 0.3), float)
    # n broadcasts against r_hat
    np.testing.assert_allclose(hoeffding_p_value(0.1, np.array([10, 20]), 0.3),
                               [ref_hoeffding(0.1, 10, 0.3), ref_hoeffding(0.1, 20, 0.3)])


def test_combined_is_max_over_limits():
    rng = np.random.default_rng(0)
    r = rng.random((7, 3)) * 0.5
    alphas = np.array([0.2, 0.3, 0.4])
    for name, fn in [("hoeffding", hoeffding_p_value), ("hb", hoeffding_bentkus_p_value), ("bentkus", bentkus_p_value)]:
        expected = np.max(np.column_stack([fn(r[:, l], 50, alphas[l]) for l in range(3)]), axis=1)
        np.testing.assert_allclose(combined_p_value(r, 50, alphas, name), expected)
    with pytest.raises(InputError):
        combined_p_value(r, 50, [0.2, 0.3])


def test_p_values_from_losses():
    rng = np.random.default_rng(1)
    losses = (rng.random((80, 5)) < np.array([0.05, 0.1, 0.2, 0.3, 0.5])).astype(float)
    expected = [ref_bentkus(c, 80, 0.2) for c in losses.mean(axis=0)]
    np.testing.assert_allclose(p_values_from_losses(losses, 0.2, "bentkus"), expected, rtol=1e-9)
    expected = [binom_cdf(int(c), 80, 0.2) for c in losses.sum(axis=0)]
    np.testing.assert_allclose(p_values_from_losses(losses, 0.2, "binomial"), expected, rtol=1e-9)
    # several risks: (n, m, L) with one limit per risk
    two = np.stack([losses, 1 - losses], axis=2)
    p2 = p_values_from_losses(two, [0.2, 0.9], "hoeffding")
    exp2 = [max(ref_hoeffding(a, 80, 0.2), ref_hoeffding(b, 80, 0.9))
            for a, b in zip(losses.mean(0), (1 - losses).mean(0))]
    np.testing.assert_allclose(p2, exp2)
    with pytest.raises(InputError, match="0/1"):
        p_values_from_losses(losses * 0.5, 0.2, "binomial")
    with pytest.raises(InputError):
        p_values_from_losses(two, [0.2, 0.3, 0.4], "hb")


@pytest.mark.parametrize(
    "args",
    [(-0.1, 10, 0.1), (1.1, 10, 0.1), (np.nan, 10, 0.1), (0.1, 0, 0.1), (0.1, 2.5, 0.1), (0.1, 10, 0.0),
     (0.1, 10, 1.0), (0.1, 10, np.nan), (0.1, 10, "x")],
)
def test_bad_input(args):
    for fn in (hoeffding_p_value, bentkus_p_value, hoeffding_bentkus_p_value, binomial_p_value):
        with pytest.raises(InputError):
            fn(*args)


def test_binomial_needs_integer_counts():
    with pytest.raises(InputError, match="0/1"):
        binomial_p_value(0.15, 10, 0.3)
    assert binomial_p_value(1 / 3, 3, 0.3) == pytest.approx(binom_cdf(1, 3, 0.3))


def test_losses_validation():
    with pytest.raises(InputError):
        p_values_from_losses(np.array([[0.5, 1.2]]), 0.1)
    with pytest.raises(InputError):
        p_values_from_losses(np.array([[0.5, np.nan]]), 0.1)
    with pytest.raises(InputError):
        p_values_from_losses(np.zeros((5, 0)), 0.1)
    with pytest.raises(InputError):
        p_values_from_losses(np.zeros((5, 2)), 0.1, "nonsense")


@pytest.mark.parametrize("alpha", [0.26, 0.9])
@pytest.mark.parametrize("n", [10**9, 10**11, 10**12, 2**50])
def test_exact_counts_with_huge_n(n, alpha):
    """n up to 2**53 is accepted: an integer number of errors k, given as r_hat = k / n, must be counted as k.

    The oracle is scipy's binomial CDF at k (also for the k whose k / n times n is not k in floating point:
    ceil(n r_hat) must still be k). The counts sit within 3 standard deviations
    of n alpha, where one count more changes the CDF by a relative 1e-6 or more."""
    from scipy import stats

    sd = math.sqrt(n * alpha * (1 - alpha))
    rng = np.random.default_rng(1)
    ks = np.unique((n * alpha + (2 * rng.random(300) - 1) * 3 * sd).astype(np.int64))
    r = ks / n
    np.testing.assert_allclose(binomial_p_value(r, n, alpha), stats.binom.cdf(ks, n, alpha), rtol=1e-12)
    if alpha == 0.26 and n & (n - 1):  # (k / n * n is exact near 0.9 n, and for n a power of 2)
        assert np.any(np.ceil(n * r) > ks), "no count comes back above k: the case of the rounding is not exercised"
    np.testing.assert_allclose(bentkus_p_value(r, n, alpha),
                               np.minimum(1.0, math.e * stats.binom.cdf(ks, n, alpha)), rtol=1e-12)
    # every exact count in 0..n, not only those near n alpha, is accepted; a count off by 1/2 is still refused
    k_any = rng.integers(0, n, 2000, dtype=np.int64)
    assert np.all(np.isfinite(binomial_p_value(k_any / n, n, alpha)))
    with pytest.raises(InputError, match="0/1"):
        binomial_p_value((ks[0] + 0.5) / n, n, alpha)


def test_exact_counts_between_2_22_and_2_23():
    """k errors in [2**22, 2**23) out of n > 2**23, given as r_hat = k / n: n * r_hat is k + 1 ulp (9.3e-10) for some
    k, which rounding to 9 decimals turned into k + 1e-9 and ceil into k + 1 (6% of such counts; e.g. k = 8341777,
    n = 963133153). Oracle: e times scipy's binomial CDF at k; for Hoeffding-Bentkus its minimum with the KL term."""
    from scipy import stats

    alpha = 0.26
    rng = np.random.default_rng(3)
    ks = rng.integers(2**22, 2**23, 2000)
    ns = (ks / alpha).astype(np.int64) + rng.integers(1, 6000, ks.size)  # k within about 3 sd below n alpha
    r = ks / ns
    assert np.any(np.round(ns * r, 9) > ks), "no count comes back above k: the case of the rounding is not exercised"
    expected = np.minimum(1.0, math.e * stats.binom.cdf(ks, ns, alpha))
    assert np.all(expected > 1e-12)  # one count more changes the CDF by a relative 1e-6 or more
    np.testing.assert_allclose(bentkus_p_value(r, ns, alpha), expected, rtol=1e-12)
    np.testing.assert_allclose(hoeffding_bentkus_p_value(r, ns, alpha),
                               np.minimum(hoeffding_kl_p_value(r, ns, alpha), expected), rtol=1e-12)


@pytest.mark.parametrize("alpha", [1e-10, 1e-12, 1e-14])
def test_kl_p_value_for_tiny_alpha(alpha):
    """exp(-n h1(r_hat, alpha)) against the closed form in 60-digit decimal arithmetic, with n ~ 1 / alpha so
    that the p-value is of order 1: the term (1 - r) log((1 - r) / (1 - alpha)) must not lose the digits of
    alpha that 1 - alpha drops in float64."""
    from decimal import Decimal, localcontext

    for n in [int(0.5 / alpha), int(1 / alpha), int(3 / alpha)]:
        for r in [0.0, alpha / 3]:
            with localcontext() as ctx:
                ctx.prec = 60
                x, a = Decimal(r), Decimal(alpha)
                h = (x * (x / a).ln() if x > 0 else Decimal(0)) + (1 - x) * ((1 - x) / (1 - a)).ln()
                expected = float((-n * h).exp())
            assert hoeffding_kl_p_value(r, n, alpha) == pytest.approx(expected, rel=1e-7), (n, r)
            assert hoeffding_bentkus_p_value(r, n, alpha) <= expected * (1 + 1e-7)


@pytest.mark.parametrize("alpha", [0.1, 0.5, 0.9])
def test_kl_p_value_at_huge_n_near_alpha(alpha):
    """At n near 2**53 (accepted) the p-value is of order 0.01 only for r_hat within ~1e-8 of alpha, where the two
    terms of h1 (each ~ alpha - r_hat) cancel: rounding of size eps * alpha times n moved the p-value by up to 15%,
    below its exact value too (0.87 of it at n = 2**53, alpha = 0.9). Against 200-digit decimal arithmetic on the
    float r_hat actually passed."""
    from decimal import Decimal, localcontext

    for n in [10**15, 2**53]:
        for target in [0.1, 0.01, 0.001]:
            gap = math.sqrt(-math.log(target) * 2 * alpha * (1 - alpha) / n)
            for k in range(int(n * (alpha - gap)), int(n * (alpha - gap)) + 3):
                r = k / n
                with localcontext() as ctx:
                    ctx.prec = 200
                    x, a = Decimal(r), Decimal(alpha)
                    h = x * (x / a).ln() + (1 - x) * ((1 - x) / (1 - a)).ln()
                    expected = float((-n * h).exp())
                assert hoeffding_kl_p_value(r, n, alpha) == pytest.approx(expected, rel=1e-6), (n, k)


def test_exact_validity_for_every_small_n_and_extreme_alpha():
    """P(p <= u) <= u under Binomial(n, R) for every n = 1..30, alpha near 0 and 1, R = alpha and R > alpha,
    at every level u a p-value takes (the sharpest ones), with scipy's pmf as the law."""
    from scipy import stats

    fns = (hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value, binomial_p_value)
    for n in range(1, 31):
        r = np.arange(n + 1) / n
        for alpha in [1e-6, 1e-3, 0.05, 1 / 3, 0.5, 0.9, 0.999, 1 - 1e-6]:
            for risk in [alpha, min(1.0, alpha * 1.2), (1 + alpha) / 2]:
                pmf = stats.binom.pmf(np.arange(n + 1), n, risk)
                for fn in fns:
                    p = np.atleast_1d(fn(r, n, alpha))
                    assert np.all(np.diff(p) >= 0), (fn.__name__, n, alpha)
                    for u in np.unique(np.concatenate([p[p < 1], [0.01, 0.05, 0.1]])):
                        assert pmf[p <= u].sum() <= u * (1 + 1e-9) + 1e-15, (fn.__name__, n, alpha, risk, u)


def test_combined_p_value_refuses_boolean_risks_as_the_single_limit_p_values_do():
    # [True, False] was read as the risks 1.0 and 0.0 (hoeffding_p_value refuses booleans)
    with pytest.raises(InputError, match="r_hats.*not booleans"):
        combined_p_value(np.array([True, False]), 50, [0.3, 0.4])
    with pytest.raises(InputError, match="not booleans"):
        hoeffding_p_value(np.array([True, False]), 50, 0.3)


def test_combined_p_value_refuses_boolean_alphas_by_name():
    """Boolean risk limits were read as 1.0 / 0.0 and refused with the message "got 1.0"."""
    from bilevel.certify import combined_p_value
    from bilevel.errors import InputError

    with pytest.raises(InputError, match="not booleans"):
        combined_p_value([0.1, 0.2], 50, np.array([True, False]))


def test_one_alpha_applies_to_every_controlled_risk():
    """A single ``alpha`` with losses of shape (n, m, L) is the limit of every risk: the p-value is the maximum over
    the L risks of the closed form at that alpha (ref_hoeffding). Only the first risk's limit was checked: a
    broadcast that gave the later risks another limit (anti-conservative for a larger one) went unnoticed."""
    rng = np.random.default_rng(2)
    losses = (rng.random((60, 6, 3)) < rng.random((1, 6, 3)) * 0.4).astype(float)
    r = losses.mean(axis=0)
    expected = [max(ref_hoeffding(x, 60, 0.2) for x in row) for row in r]
    assert any(np.argmax([ref_hoeffding(x, 60, 0.2) for x in row]) > 0 for row in r)  # a later risk decides
    np.testing.assert_allclose(p_values_from_losses(losses, 0.2, "hoeffding"), expected, rtol=1e-12)
    np.testing.assert_allclose(p_values_from_losses(losses, [0.2] * 3, "hoeffding"), expected, rtol=1e-12)


def test_binomial_refuses_a_count_off_an_integer_by_a_thousandth():
    """n * r_hat = 1.003 errors cannot come from 0/1 losses: refused (the tolerance is 1e-6 below 2**22 errors),
    not rounded to 1 error, which would give the binomial CDF of a count the losses do not have."""
    with pytest.raises(InputError, match="0/1"):
        binomial_p_value(1.003 / 10, 10, 0.2)
    with pytest.raises(InputError, match="0/1"):
        binomial_p_value([0.1, 0.2 + 1e-4], 10, 0.2)
    assert binomial_p_value(0.1, 10, 0.2) == pytest.approx(binom_cdf(1, 10, 0.2), rel=1e-12)


@pytest.mark.parametrize("kl", ["no", "false", 1, None, np.array([True, False])])
def test_hoeffding_kl_flag_must_be_a_bool(kl):
    # kl="no" was read as its truth value (the KL form, not Eq. (6)); an array raised numpy's "truth value ... is
    # ambiguous" ValueError
    with pytest.raises(InputError, match="kl"):
        hoeffding_p_value(0.05, 100, 0.1, kl=kl)
    assert hoeffding_p_value(0.05, 100, 0.1, kl=np.False_) == hoeffding_p_value(0.05, 100, 0.1)


def test_alpha_messages_of_p_values_from_losses():
    # alpha=True was refused as "got np.float64(1.0)", NaN as "got np.float64(nan)": neither is what was typed
    losses = np.zeros((5, 2))
    with pytest.raises(InputError, match="not booleans; got True"):
        p_values_from_losses(losses, True)
    for alpha in (np.nan, [0.1, np.nan]):
        with pytest.raises(InputError, match="alpha") as err:
            p_values_from_losses(np.zeros((5, 2, np.size(alpha))), alpha)
        assert "np.float64" not in str(err.value) and "got nan" in str(err.value)


def test_bentkus_never_rounds_a_real_fraction_of_a_loss_down():
    """n * r_hat was rounded to 9 decimals before ceil, so a count k + d with d up to 5e-10 (losses that are not 0/1)
    counted as k: e * P(Binom(n, alpha) <= k) instead of <= k + 1, smaller than the exact p-value (anti-conservative;
    1.6e-6 instead of 1.0e-5 at n = 100, k = 3, d = 4e-10, alpha = 0.2). Oracle: scipy's binomial CDF at the exact
    ceil of n r_hat (rational arithmetic on the float r_hat)."""

    from scipy import stats

    rng = np.random.default_rng(5)
    for n, alpha in [(100, 0.2), (1000, 0.05), (37, 0.4), (10**6, 0.01)]:
        ks = rng.integers(0, int(n * alpha), 50)
        ds = np.maximum(10.0 ** rng.uniform(-12, -9.3, ks.size), 1e3 * np.finfo(float).eps * ks)  # > round-off
        r = (ks + ds) / n
        counts = [math.ceil(Fraction(float(x)) * n) for x in r]
        assert all(c == k + 1 for c, k in zip(counts, ks)), "d must be a real fraction, not round-off"
        expected = np.minimum(1.0, math.e * stats.binom.cdf(counts, n, alpha))
        got = bentkus_p_value(r, n, alpha)
        assert np.all(got >= expected * (1 - 1e-12)), (n, alpha)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_n_and_r_hat_in_any_float_dtype_give_the_float64_p_values(dtype):
    """n given as a float16 number warned "overflow encountered in cast" (its comparison with 2**53 cast 2**53 to
    float16), an error under -W error. n in any float dtype gives the p-values of the int n, and r_hat = k / n in any
    float dtype the Bentkus and binomial p-values (functions of the count k) of the float64 k / n."""
    n = 20
    r64 = np.arange(n + 1) / n
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (hoeffding_p_value, hoeffding_kl_p_value, bentkus_p_value, hoeffding_bentkus_p_value,
                   binomial_p_value):
            expected = fn(r64, n, 0.3)
            np.testing.assert_allclose(fn(r64, dtype(n), 0.3), expected, rtol=1e-12)
            np.testing.assert_allclose(fn(r64, np.full(r64.shape, n, dtype=dtype), 0.3), expected, rtol=1e-12)
            if fn in (bentkus_p_value, binomial_p_value):
                np.testing.assert_allclose(fn(r64.astype(dtype), dtype(n), 0.3), expected, rtol=1e-12)


def test_kl_p_value_between_the_near_and_far_forms_of_h1():
    """hoeffding_kl_p_value switches between two forms of h1 at alpha - r_hat = alpha / 2 (or (1 - alpha) / 2): the
    near form keeps its precision where the two terms of the plain form cancel. In between (gaps of 0.5% to 50% of
    alpha or 1 - alpha), with n from 1e5 to 1e9 and p-values from 1e-3 to 1e-250, the p-value agrees with 60-digit
    decimals to 1e-11 relative (mutation testing: the near form used only below gaps of 0.5% gave errors of 1e-9
    at n = 1e8, also below the exact value)."""
    from decimal import Decimal, localcontext

    checked = 0
    for n in [10**5, 10**6, 10**7, 10**8, 10**9]:
        for alpha in [0.1, 0.5, 0.61, 0.9]:
            for target in [1e-3, 1e-30, 1e-100, 1e-250]:
                gap = math.sqrt(-math.log(target) * 2 * alpha * (1 - alpha) / n)
                if not 0.005 < max(gap / alpha, gap / (1 - alpha)) <= 0.5:
                    continue
                checked += 1
                r = alpha - gap
                with localcontext() as ctx:
                    ctx.prec = 60
                    x, a = Decimal(r), Decimal(alpha)
                    expected = float((-n * (x * (x / a).ln() + (1 - x) * ((1 - x) / (1 - a)).ln())).exp())
                assert hoeffding_kl_p_value(r, n, alpha) == pytest.approx(expected, rel=1e-11, abs=0), (n, alpha, r)
    assert checked >= 30


def test_float32_risks_with_counts_above_two_million():
    """A float32 r_hat = k / n for a count k above ~2e6 is off k / n by more than half a loss: n r_hat lies within
    the float32 round-off of k, which is wider than 0.5 there, and the count must be the nearest integer k, not
    one less (anti-conservative). Oracle: scipy's binomial cdf at k (mutation testing: floor instead of the nearest
    integer passed the float-dtype tests, whose counts were small)."""
    from scipy import stats

    n, alpha, checked = 10**7, 0.5002, 0
    for k in range(5_000_001, 5_000_200):
        r32 = np.float32(k / n)
        if not k - 0.5 < n * float(r32) < k:  # the cases a floor would count as k - 1
            continue
        checked += 1
        cdf = stats.binom.cdf(k, n, alpha)
        assert binomial_p_value(r32, n, alpha) == pytest.approx(cdf, rel=1e-9, abs=0)
        assert bentkus_p_value(r32, n, alpha) == pytest.approx(min(1.0, math.e * cdf), rel=1e-9, abs=0)
        assert hoeffding_bentkus_p_value(r32, n, alpha) <= min(1.0, math.e * cdf) * (1 + 1e-9)
    assert checked >= 5
