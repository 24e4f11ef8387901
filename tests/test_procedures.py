"""Multiple-testing procedures against statsmodels and against hand-computed critical values."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bilevel.certify import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    fixed_sequence,
    fixed_sequence_thresholds,
    holm,
)
from bilevel.errors import InputError

OURS = {"bonferroni": bonferroni, "holm": holm, "fdr_bh": benjamini_hochberg, "fdr_by": benjamini_yekutieli}


def random_p_vectors(seed=0, count=400):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m = int(rng.integers(1, 60))
        kind = rng.integers(0, 3)
        if kind == 0:  # continuous, mixture of nulls and signals
            p = np.where(rng.random(m) < 0.4, rng.random(m) * 0.02, rng.random(m))
        elif kind == 1:  # many ties: draw from a small pool of values
            pool = np.concatenate([rng.random(4) * 0.05, rng.random(3)])
            p = rng.choice(pool, size=m)
        else:  # exact 0s and 1s
            p = rng.choice([0.0, 1.0, rng.random() * 0.01, rng.random()], size=m)
        delta = float(rng.choice([0.01, 0.05, 0.1, 0.2, 0.5]))
        yield p, delta


@pytest.mark.parametrize("method", sorted(OURS))
def test_against_statsmodels(method, monkeypatch):
    import gc

    monkeypatch.setattr(gc, "collect", lambda *a: 0)  # statsmodels' Holm calls gc.collect() (75 ms) every time
    n_rejections = 0
    for p, delta in random_p_vectors():
        expected = multipletests(p, alpha=delta, method=method)[0]
        got = OURS[method](p, delta)
        assert got.dtype == bool and got.shape == p.shape
        np.testing.assert_array_equal(got, expected, err_msg=f"{method} p={p} delta={delta}")
        n_rejections += got.sum()
    assert n_rejections > 100  # the comparison is not vacuous


def test_orderings_between_procedures():
    for p, delta in random_p_vectors(seed=3, count=200):
        b, h, bh, by = bonferroni(p, delta), holm(p, delta), benjamini_hochberg(p, delta), benjamini_yekutieli(p, delta)
        assert np.all(b <= h) and np.all(h <= bh) and np.all(by <= bh)


def test_fixed_sequence_fwer_is_prefix_until_first_failure():
    rng = np.random.default_rng(5)
    for _ in range(300):
        m = int(rng.integers(1, 30))
        p = np.where(rng.random(m) < 0.7, rng.random(m) * 0.1, rng.random(m))
        delta = 0.05
        expected = np.cumprod(p <= delta).astype(bool)
        np.testing.assert_array_equal(fixed_sequence(p, delta), expected)


def test_fixed_sequence_eq14_thresholds_by_hand():
    # Eq. (14): m = 5, k = 2, delta = 0.1 -> 0.05, 0.05, 4*0.1/(3*2), 4*0.1/(2*2), 4*0.1/(1*2)
    np.testing.assert_allclose(
        fixed_sequence_thresholds(5, 0.1, fdr=True, max_failures=2), [0.05, 0.05, 0.4 / 6, 0.1, 0.2]
    )
    # k = 1 -> m delta / (m - i + 1)
    np.testing.assert_allclose(fixed_sequence_thresholds(4, 0.1, fdr=True), [0.1, 0.4 / 3, 0.2, 0.4])
    np.testing.assert_allclose(fixed_sequence_thresholds(4, 0.1, fdr=False, max_failures=2), [0.05] * 4)
    # k > m is capped at m (never stops early either way): Bonferroni levels
    np.testing.assert_allclose(fixed_sequence_thresholds(3, 0.3, fdr=False, max_failures=10), [0.1] * 3)


def test_fixed_sequence_fdr_decisions():
    delta = 0.1
    # thresholds k=2, m=5: 0.05, 0.05, 0.0667, 0.1, 0.2
    p = np.array([0.04, 0.2, 0.06, 0.5, 0.15])
    # 1: reject; 2: fail (1 failure); 3: 0.06 <= 0.0667 reject; 4: fail -> 2 failures, stop; 5 never tested
    np.testing.assert_array_equal(fixed_sequence(p, delta, fdr=True, max_failures=2), [True, False, True, False, False])
    # k = 3: thresholds 0.0333, 0.0333, 0.0333, 0.05, 0.1 -> three failures in a row, stop
    np.testing.assert_array_equal(fixed_sequence(p, delta, fdr=True, max_failures=3), [False] * 5)
    q = np.array([0.03, 0.2, 0.5, 0.04, 0.09])  # k = 3: reject, fail, fail, 0.04 <= 0.05 reject, 0.09 <= 0.1 reject
    np.testing.assert_array_equal(fixed_sequence(q, delta, fdr=True, max_failures=3), [True, False, False, True, True])


def test_fixed_sequence_never_skips_ahead():
    p = np.array([0.01, 0.5, 0.01, 0.01])
    np.testing.assert_array_equal(fixed_sequence(p, 0.05), [True, False, False, False])
    np.testing.assert_array_equal(fixed_sequence(p, 0.05, max_failures=2), [True, False, True, True])  # level 0.025
    np.testing.assert_array_equal(fixed_sequence(p, 0.05, fdr=True), [True, False, False, False])


@pytest.mark.parametrize("fn", [bonferroni, holm, benjamini_hochberg, benjamini_yekutieli, fixed_sequence])
def test_bad_input(fn):
    for bad in ([0.1, np.nan], [0.1, 1.5], [-0.1, 0.2], [[0.1, 0.2]], []):
        with pytest.raises(InputError):
            fn(np.array(bad, dtype=float), 0.1)
    for delta in (0.0, 1.0, -0.5, np.nan, "a"):
        with pytest.raises(InputError):
            fn(np.array([0.1, 0.2]), delta)


def test_bad_max_failures():
    for k in (0, -1, 1.5, True):
        with pytest.raises(InputError):
            fixed_sequence(np.array([0.1]), 0.1, max_failures=k)


def test_fdr_must_be_a_bool():
    # fdr="no" (or "fwer") was truthy: FDR thresholds, which exceed the FWER ones after position k
    p = np.array([0.01, 0.02, 0.15])  # FDR threshold at position 3: 0.3; FWER: 0.1
    assert fixed_sequence(p, 0.1, fdr=True).all() and not fixed_sequence(p, 0.1, fdr=False)[2]
    assert fixed_sequence(p, 0.1, fdr=np.bool_(False)).tolist() == fixed_sequence(p, 0.1).tolist()
    for bad in ("no", "fwer", 1, None):
        with pytest.raises(InputError, match="fdr must be True"):
            fixed_sequence(p, 0.1, fdr=bad)


def _exact_holm(p, delta):
    from fractions import Fraction

    m, out = len(p), [False] * len(p)
    for i, j in enumerate(sorted(range(m), key=lambda j: p[j])):  # i = 0..m-1: level delta / (m - i)
        if Fraction(p[j]) > Fraction(delta) / (m - i):
            break
        out[j] = True
    return out


def _exact_fixed_sequence(p, delta, fdr=False, k=1):
    """Fixed-sequence testing with Eq. (14)'s levels (or delta / k) in exact rational arithmetic."""
    from fractions import Fraction

    m, out, failures, kk = len(p), [False] * len(p), 0, min(k, len(p))
    for i in range(1, m + 1):
        level = Fraction(delta) / kk if not fdr or i <= kk else (m - kk + 1) * Fraction(delta) / ((m - i + 1) * kk)
        if Fraction(p[i - 1]) <= level:
            out[i - 1] = True
        else:
            failures += 1
            if failures >= k:
                break
    return out


def test_a_p_value_equal_to_its_level_is_rejected_and_one_ulp_above_is_not():
    """Ties: every comparison is ``p <= level`` (module docstring, as statsmodels). With dyadic p-values and
    levels every level is exact in float64, so the oracle is exact rational arithmetic. The random p-values of
    test_against_statsmodels never land on a level: '<' in place of '<=' in Bonferroni, Holm or fixed-sequence
    testing went unnoticed, as did Eq. (14) computed as (m - k + 1) delta / ((m - i + 1) k) at i = k, which is
    one ulp above delta / k for m = 3, delta = 0.1 and rejected p = nextafter(0.1, 1) at the first position."""
    from fractions import Fraction

    p = np.array([0.125, 0.125, 0.25, 0.5])  # m = 4, delta = 0.5: Bonferroni level 1/8, Holm 1/8, 1/6, 1/4, 1/2
    assert bonferroni(p, 0.5).tolist() == [Fraction(x) <= Fraction(1, 8) for x in p] == [True, True, False, False]
    assert holm(p, 0.5).tolist() == _exact_holm(p, 0.5) == [True] * 4
    for method in ("bonferroni", "holm"):  # statsmodels agrees (p * m is exact here too)
        assert OURS[method](p, 0.5).tolist() == multipletests(p, alpha=0.5, method=method)[0].tolist()
    cases = [([0.5, 0.25], 0.5, False, 1), ([0.25, 0.5, 0.25], 0.5, False, 2), ([0.25, 0.5], 0.25, True, 1),
             ([0.125, 0.5, 0.1875, 0.375], 0.25, True, 2)]
    for q, delta, fdr, k in cases:
        expected = _exact_fixed_sequence(q, delta, fdr, k)
        assert sum(expected) >= len(q) - 1
        assert fixed_sequence(np.array(q), delta, fdr=fdr, max_failures=k).tolist() == expected
    above = np.array([np.nextafter(0.1, 1.0), 0.0, 0.0])  # m = 3, k = 1: Eq. (14) gives delta / k = 0.1 at i = 1
    assert _exact_fixed_sequence(above, 0.1, True, 1) == [False] * 3
    assert not fixed_sequence(above, 0.1, fdr=True).any()
    assert fixed_sequence_thresholds(3, 0.1, fdr=True)[0] == 0.1
    assert np.all(fixed_sequence_thresholds(7, 0.3, fdr=True, max_failures=3)[:3] == 0.3 / 3)


@pytest.mark.parametrize("fdr", [False, True])
def test_a_number_of_hypotheses_too_large_to_hold_is_an_input_error(fdr):
    """m = 10**12 raised numpy's MemoryError "Unable to allocate 7.28 TiB" (2**53, the largest m taken, is 64 PiB)."""
    with pytest.raises(InputError, match=r"m \(number of hypotheses\) = 9007199254740992: .* do not fit in memory"):
        fixed_sequence_thresholds(2**53, 0.1, fdr=fdr)
