"""Mutation study 16 of the multiple-testing code (bilevel/certify/procedures.py: Bonferroni, Holm, BH, BY and
fixed-sequence testing; bilevel/certify/dagger.py: DAGGER, Eqs. (15)-(18) of the RG-PT paper;
bilevel/certify/p_values.py: the Hoeffding, Bentkus, Hoeffding-Bentkus and binomial p-values and their combination):
each test kills a mutant that passed the tests of those modules, against the documented behaviour (the modules' and
functions' docstrings, Eqs. (6), (7), (15)-(17) of the RG-PT paper) and an independent oracle (statsmodels'
multipletests for BH and BY, effective numbers of leaves and nodes and DAGGER levels worked by hand, fixed-sequence
testing re-written in exact rational arithmetic, the closed forms of the Hoeffding p-values computed with the math
module)."""
from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bilevel.certify import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    dagger,
    dagger_details,
    effective_leaves_and_nodes,
    fixed_sequence,
    holm,
    p_values_from_losses,
)
from bilevel.certify.p_values import hoeffding_bentkus_p_value, resolve_p_value_method
from bilevel.errors import InputError

# delta = 0.2: BH rejects all four (p_(i) <= 0.05 i), BY (levels 0.2 i / 4 / (25/12) = 0.024 i) only two
P_BH_NOT_BY = np.array([0.01, 0.02, 0.12, 0.16])


@pytest.mark.parametrize("fn", [bonferroni, holm, benjamini_hochberg, benjamini_yekutieli, fixed_sequence])
def test_a_scalar_p_value_is_refused_as_not_1d(fn):
    """``check_p_values`` refuses p-values that are "not 1-D" (its docstring), a 0-d scalar included (mutation
    testing: ``p.ndim > 1`` in place of ``p.ndim != 1`` passed the suite; Bonferroni then returned a 0-d array
    instead of a mask of shape (m,)). Oracle: the docstring."""
    with pytest.raises(InputError, match="1-D"):
        fn(0.01, 0.05)
    with pytest.raises(InputError, match="1-D"):
        dagger(0.01, [[]], 0.05)


def test_the_threshold_of_a_depth_without_rejections_is_zero_and_nan_when_untested():
    """DaggerResult.threshold is ``delta_i(R)`` for a tested node, 0 when nothing at its depth was rejected
    (``R = 0``), NaN when the node was not tested (its docstring). Mutation testing: recording ``delta_i(1)`` at a
    depth with ``R = 0`` passed the suite. Oracle: the docstring and Eq. (15) by hand: root 0 with leaf children 1, 2,
    delta = 0.1: V = 2, v_0 = 2, m_0 = 3, delta_0(1) = 0.1 (2 / 2) (3 + 1 - 1) / 3 = 0.1."""
    tree = [[], [0], [0]]
    det = dagger_details([0.5, 0.0, 0.0], tree, 0.1)  # the root is tested, fails: R = 0 at depth 1
    assert det.tested.tolist() == [True, False, False]
    assert det.threshold[0] == 0.0 and np.isnan(det.threshold[1:]).all()
    det = dagger_details([0.05, 0.9, 0.8], tree, 0.1)  # root rejected at 0.1; depth 2 rejects nothing
    assert det.threshold[0] == pytest.approx(0.1, rel=1e-12)
    assert det.rejected.tolist() == [True, False, False] and det.threshold[1:].tolist() == [0.0, 0.0]
    flat = dagger_details([0.9, 0.8], [[], []], 0.1)
    assert flat.tested.all() and flat.threshold.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("name, method", [("by", "fdr_by"), ("BY", "fdr_by"), ("benjamini_yekutieli", "fdr_by"),
                                          ("Benjamini_Yekutieli", "fdr_by"), ("identity", "fdr_bh"),
                                          ("Identity", "fdr_bh"), ("id", "fdr_bh"), ("ID", "fdr_bh")])
def test_every_name_of_a_reshaping_gives_its_procedure(name, method):
    """The reshaping names that rg_pt accepts (any case of "identity", "id", "by", "benjamini_yekutieli", its
    ``reshaping.lower()`` check) mean the same to DAGGER: on a graph without edges "by" and "benjamini_yekutieli"
    are Benjamini-Yekutieli, "identity" and "id" Benjamini-Hochberg (module docstring, "Special cases"). Mutation
    testing: mapping "benjamini_yekutieli" to the identity (anti-conservative under dependence), and dropping the
    ``.lower()`` (rg_pt(reshaping="BY") then failed inside DAGGER), both passed the suite. Oracle: statsmodels'
    multipletests; the p-values are chosen so that BH and BY differ."""
    bh = multipletests(P_BH_NOT_BY, alpha=0.2, method="fdr_bh")[0]
    by = multipletests(P_BH_NOT_BY, alpha=0.2, method="fdr_by")[0]
    assert bh.sum() == 4 and by.sum() == 2  # the case separates the two
    expected = by if method == "fdr_by" else bh
    assert dagger(P_BH_NOT_BY, [[]] * 4, 0.2, reshaping=name).tolist() == expected.tolist()


@pytest.mark.parametrize("parents", [[[2], []], [[], [2]], [[], [0, 2]]])
def test_a_parent_index_equal_to_the_number_of_nodes_is_refused(parents):
    """A parent index must lie in 0..N-1 (dagger's docstring: "an index out of range" raises InputError); N itself
    is the first index out of range. Mutation testing: ``arr.max() > n_nodes`` in place of ``>=`` passed the suite
    (the tests used the index 5 for N = 2); N then failed with a bare IndexError deep in the topological sort."""
    with pytest.raises(InputError, match="outside 0..1"):
        dagger([0.01, 0.02], parents, 0.1)
    with pytest.raises(InputError, match="outside 0..1"):
        effective_leaves_and_nodes(parents)


def test_duplicated_parent_indices_are_ignored():
    """``parents[i]`` with a repeated index is the same graph ("Duplicated indices are ignored", dagger's docstring):
    ``|parents(j)|`` of Eqs. (16)-(17) counts distinct parents. Mutation testing: keeping the duplicates (no
    np.unique) passed the suite, whose graphs had none; a parent listed twice among two then took 2/3 of its child
    instead of 1/2. Oracle: Eqs. (16)-(17) by hand for roots 0, 1 and their common child 2 (V = 1): v = (1/2, 1/2, 1),
    m = (3/2, 3/2, 1); Eq. (15) with delta = 0.1 at depth 1: delta_i(2) = 0.1 (1/2) (3/2 + 2 - 1) / (3/2) = 1/12 for
    both roots, so p = (0.01, 0.07) gives R = 2; at depth 2, delta_2(1) = 0.1 (1 + 1 + 2 - 1) / 1 = 0.3 >= 0.2."""
    for parents in ([[], [], [0, 1]], [[], [], [0, 0, 1]], [[], [], [1, 0, 1, 0, 0]]):
        v, m, leaf = effective_leaves_and_nodes(parents)
        np.testing.assert_allclose(v, [0.5, 0.5, 1.0], rtol=1e-15)
        np.testing.assert_allclose(m, [1.5, 1.5, 1.0], rtol=1e-15)
        assert leaf.tolist() == [False, False, True]
        det = dagger_details([0.01, 0.07, 0.2], parents, 0.1)
        assert det.rejected.tolist() == [True, True, True]
        np.testing.assert_allclose(det.threshold, [1 / 12, 1 / 12, 0.3], rtol=1e-12)


def test_the_binomial_p_value_refuses_fractional_losses_whose_sums_are_whole():
    """p_values_from_losses with "binomial" needs every loss 0 or 1 (its Raises: "non-binary losses with
    'binomial'"). Losses of 0.5 in pairs sum to an integer, so binomial_p_value's own check of ``n * r_hat`` lets
    them through. Mutation testing: dropping p_values_from_losses' check of the losses themselves passed the suite
    (the test used odd sums), and such losses were given the exact binomial p-value, which is not valid for them.
    Oracle: the losses (0.5 is not a 0/1 loss)."""
    losses = np.zeros((20, 3))
    losses[:4, 0] = 0.5  # two errors' worth
    losses[:2, 1] = 0.5
    losses[5, 2] = 1.0
    assert np.all(losses.sum(axis=0) == np.round(losses.sum(axis=0)))
    with pytest.raises(InputError, match="0/1"):
        p_values_from_losses(losses, 0.3, "binomial")


@pytest.mark.parametrize("name", ["HB", "Hb", "hoeffding_BENTKUS"])
def test_p_value_method_names_are_case_insensitive(name):
    """resolve_p_value_method lower-cases a name before looking it up, so "HB" is the Hoeffding-Bentkus p-value.
    Mutation testing: looking the name up as given passed the suite. Oracle: the function named "hb" (the p-values
    from losses agree with it entry by entry)."""
    assert resolve_p_value_method(name) is hoeffding_bentkus_p_value
    losses = (np.random.default_rng(0).random((40, 3)) < [0.05, 0.2, 0.4]).astype(float)
    np.testing.assert_array_equal(p_values_from_losses(losses, 0.2, name),
                                  hoeffding_bentkus_p_value(losses.mean(axis=0), 40, 0.2))


def _tested_by_hand(p, delta, k):
    """Fixed-sequence FWER testing at level delta / k written from its docstring, in exact rational arithmetic:
    positions are examined in order until the k-th non-rejection, which is the last one examined."""
    from fractions import Fraction

    tested, rejected, failures = [False] * len(p), [False] * len(p), 0
    for i, q in enumerate(p):
        tested[i] = True
        if Fraction(q) <= Fraction(delta) / k:
            rejected[i] = True
        else:
            failures += 1
            if failures == k:
                break
    return rejected, tested


def test_fixed_sequence_details_reports_every_examined_hypothesis_as_tested():
    """fixed_sequence_details returns ``(rejected, tested)``, ``tested`` the hypotheses examined: every position up
    to and including the one of the ``max_failures``-th failure, the failures too (fixed_sequence's docstring:
    testing stops at that failure). Mutation testing: marking only the rejected positions as tested passed the
    suite. Oracle: a hand-written loop in exact rational arithmetic, and a hand-checked case."""
    from bilevel.certify.procedures import fixed_sequence_details

    rejected, tested = fixed_sequence_details([0.01, 0.5, 0.01, 0.3, 0.01], 0.05, max_failures=2)
    assert rejected.tolist() == [True, False, True, False, False]
    assert tested.tolist() == [True, True, True, True, False]
    rng = np.random.default_rng(7)
    for _ in range(200):
        m, k = int(rng.integers(1, 12)), int(rng.integers(1, 4))
        p = np.where(rng.random(m) < 0.6, rng.random(m) * 0.05, rng.random(m))
        got = fixed_sequence_details(p, 0.1, max_failures=k)
        assert [g.tolist() for g in got] == list(_tested_by_hand(p, 0.1, min(k, m)))  # k > m: level delta / m


def test_more_parent_lists_than_p_values_is_refused():
    """``parents`` must have one entry per p-value (dagger's docstring: "parents of the wrong length" raises
    InputError), too long as well as too short. Mutation testing: refusing only a too short list passed the suite;
    a third parent list for two p-values then failed with a bare IndexError."""
    with pytest.raises(InputError, match="3 entries but there are 2 p-values"):
        dagger([0.01, 0.02], [[], [], []], 0.1)
    with pytest.raises(InputError, match="3 entries but there are 2 p-values"):
        dagger([0.01, 0.02], [[], [0], [1]], 0.1)


def test_a_single_risk_limit_applies_to_each_of_two_risks():
    """p_values_from_losses: "a single limit applies to every risk", two risks included (mutation testing: broadcasting
    the limit only for three risks or more passed the suite, whose test used three). Oracle: Eq. (6) in closed form,
    exp(-2 n (alpha - r_hat)_+^2), maximised over the two risks (Eq. (7))."""
    import math

    rng = np.random.default_rng(2)
    losses = (rng.random((50, 4, 2)) < [0.05, 0.3]).astype(float)
    r_hat = losses.mean(axis=0)
    expected = [max(math.exp(-2 * 50 * max(0.2 - r, 0.0) ** 2) for r in row) for row in r_hat]
    np.testing.assert_allclose(p_values_from_losses(losses, 0.2, "hoeffding"), expected, rtol=1e-12)
    np.testing.assert_allclose(p_values_from_losses(losses, [0.2], "hoeffding"), expected, rtol=1e-12)


def test_a_numpy_true_selects_the_kl_form_of_hoeffding():
    """``kl`` is a bool, a numpy bool included (check_flag); ``kl=np.True_`` is the relative-entropy form, equal to
    ``(1 - alpha)^n`` at ``r_hat = 0`` (p_values module docstring). Mutation testing: taking only a Python True for
    the KL form passed the suite. Oracle: the closed form (1 - alpha)^n and Eq. (6)'s exp(-2 n alpha^2)."""
    from bilevel.certify import hoeffding_p_value

    assert hoeffding_p_value(0.0, 10, 0.2, kl=np.True_) == pytest.approx(0.8**10, rel=1e-12)
    assert hoeffding_p_value(0.0, 10, 0.2, kl=np.False_) == pytest.approx(np.exp(-2 * 10 * 0.04), rel=1e-12)


@pytest.mark.parametrize("r_hats, alphas", [(0.1, [0.2]), (np.float64(0.1), 0.2), (np.zeros((3, 0)), []),
                                            (np.zeros(0), np.zeros(0))])
def test_combined_p_value_refuses_a_scalar_risk_and_no_risk_limit(r_hats, alphas):
    """combined_p_value needs ``r_hats`` of shape (..., L) and ``L >= 1`` (its Raises: "shapes disagree, L == 0").
    Mutation testing: dropping the check of a 0-d ``r_hats`` (then a bare IndexError from ``r.shape[-1]``) or of an
    empty ``alphas`` (then numpy's "need at least one array to stack") passed the suite. Oracle: the docstring."""
    from bilevel.certify import combined_p_value

    with pytest.raises(InputError):
        combined_p_value(r_hats, 50, alphas)


def test_losses_without_a_calibration_row_are_refused():
    """p_values_from_losses refuses empty losses (its Raises), no row included: there is no empirical risk. Mutation
    testing: dropping ``n == 0`` from the check passed the suite; a (0, 3) array then failed in numpy ("zero-size
    array to reduction operation") instead of an InputError. Oracle: the docstring."""
    with pytest.raises(InputError, match="at least one row"):
        p_values_from_losses(np.zeros((0, 3)), 0.1)


@pytest.mark.parametrize("method", ["hb", "hoeffding", lambda r, n, a: np.full(np.shape(r), 0.01)])
def test_nan_losses_are_refused_by_name_whatever_the_method(method):
    """p_values_from_losses refuses non-finite losses (its Raises), naming the losses, whatever ``method``. Mutation
    testing: dropping that check passed the suite; the built-in p-values then refused the NaN mean as "r_hat", and a
    custom p-value function, which need not check its input, certified the NaN candidate (p = 0.01). Oracle: the
    docstring."""
    losses = np.zeros((10, 2))
    losses[3, 1] = np.nan
    with pytest.raises(InputError, match="losses contain NaN"):
        p_values_from_losses(losses, 0.2, method)


@pytest.mark.parametrize("name", ["hoeffding_p_value", "hoeffding_kl_p_value", "bentkus_p_value",
                                  "hoeffding_bentkus_p_value", "binomial_p_value"])
def test_a_nan_among_the_risks_and_a_boolean_n_are_refused(name):
    """Each p-value function refuses ``r_hat`` holding a NaN anywhere, not only a scalar NaN, and an ``n`` that is not
    a positive integer, a bool included (hoeffding_p_value's Raises; the module refuses booleans as risks too).
    Mutation testing: checking for NaN only when every entry is NaN (then [0.1, nan] gave a NaN p-value silently),
    and accepting a bool ``n`` (True read as n = 1), both passed the suite. Oracle: the docstring."""
    import bilevel.certify.p_values as pv

    fn = getattr(pv, name)
    with pytest.raises(InputError, match="NaN"):
        fn(np.array([0.1, np.nan]), 10, 0.2)
    for n in (True, np.array([True, True]), np.True_):
        with pytest.raises(InputError, match="n"):
            fn(np.array([0.0, 0.0]), n, 0.2)
