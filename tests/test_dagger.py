"""DAGGER: special cases (BH, BY, fixed-sequence FDR), hand-worked examples, invariances, bad graphs."""

import warnings

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bilevel.certify import dag_depths, dagger, dagger_details, effective_leaves_and_nodes, fixed_sequence
from bilevel.certify.dagger import topological_order
from bilevel.errors import InputError


def random_dag(rng, n, p_edge=0.3, max_parents=3):
    """Random DAG on nodes 0..n-1 (edges only from lower to higher index), as parent lists."""
    parents = []
    for i in range(n):
        cands = [j for j in range(i) if rng.random() < p_edge]
        rng.shuffle(cands)
        parents.append(sorted(cands[:max_parents]))
    return parents


def p_vector(rng, n):
    return np.where(rng.random(n) < 0.5, rng.random(n) * 0.03, rng.random(n))


def test_no_edges_is_bh_and_by():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(300):
        n = int(rng.integers(1, 40))
        p = p_vector(rng, n)
        if rng.random() < 0.3:  # ties
            p = rng.choice(p[: max(1, n // 3)], size=n)
        delta = float(rng.choice([0.05, 0.1, 0.2]))
        flat = [[] for _ in range(n)]
        bh = multipletests(p, alpha=delta, method="fdr_bh")[0]
        by = multipletests(p, alpha=delta, method="fdr_by")[0]
        np.testing.assert_array_equal(dagger(p, flat, delta), bh)
        np.testing.assert_array_equal(dagger(p, flat, delta, reshaping="by"), by)
        hits += bh.sum()
    assert hits > 100


def test_chain_is_fixed_sequence_fdr():
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(1, 25))
        p = np.where(rng.random(n) < 0.8, rng.random(n) * 0.15, rng.random(n))
        delta = float(rng.choice([0.05, 0.1, 0.2]))
        chain = [[]] + [[i - 1] for i in range(1, n)]
        expected = fixed_sequence(p, delta, fdr=True, max_failures=1)
        np.testing.assert_array_equal(dagger(p, chain, delta), expected)
        np.testing.assert_array_equal(dagger(p, chain, delta, reshaping="by"), expected)


def test_relabelling_does_not_change_the_result():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n = int(rng.integers(2, 25))
        parents = random_dag(rng, n)
        p = p_vector(rng, n)
        perm = rng.permutation(n)  # new label of old node i is perm[i]
        inv = np.argsort(perm)
        new_parents = [[int(perm[q]) for q in parents[inv[j]]] for j in range(n)]
        new_p = p[inv]
        for reshaping in ("identity", "by"):
            old = dagger(p, parents, 0.1, reshaping)
            new = dagger(new_p, new_parents, 0.1, reshaping)
            np.testing.assert_array_equal(new, old[inv])


def test_effective_numbers_by_hand():
    # diamond 0 -> {1, 2} -> 3
    v, m, leaf = effective_leaves_and_nodes([[], [0], [0], [1, 2]])
    np.testing.assert_allclose(v, [1, 0.5, 0.5, 1])
    np.testing.assert_allclose(m, [4, 1.5, 1.5, 1])
    np.testing.assert_array_equal(leaf, [False, False, False, True])
    # tree 0 -> {1, 2}, 1 -> {3}; plus an isolated node 4
    v, m, leaf = effective_leaves_and_nodes([[], [0], [0], [1], []])
    np.testing.assert_allclose(v, [2, 1, 1, 1, 1])
    np.testing.assert_allclose(m, [4, 2, 1, 1, 1])
    np.testing.assert_array_equal(dag_depths([[], [0], [0], [1], []]), [1, 2, 2, 3, 1])
    np.testing.assert_array_equal(dag_depths([[], [0], [0, 1]]), [1, 2, 3])  # longest path


def test_effective_leaves_of_roots_sum_to_number_of_leaves():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n = int(rng.integers(1, 30))
        parents = random_dag(rng, n)
        v, m, leaf = effective_leaves_and_nodes(parents)
        roots = [i for i in range(n) if not parents[i]]
        assert v[roots].sum() == pytest.approx(leaf.sum())
        assert m[roots].sum() == pytest.approx(n)


def test_tree_thresholds_by_hand():
    # root 0 with leaf children 1, 2: V = 2, v = (2, 1, 1), m = (3, 1, 1), delta = 0.1.
    # depth 1: delta_0(1) = 0.1 * (2/2) * (3 + 1 + 0 - 1) / 3 = 0.1.
    # depth 2 (R_1 = 1): delta_i(r) = 0.1 * (1/2) * (1 + r + 1 - 1) / 1 = 0.05 (r + 1): 0.1 at r=1, 0.15 at r=2.
    tree = [[], [0], [0]]
    np.testing.assert_array_equal(dagger([0.1, 0.09, 0.14], tree, 0.1), [True, True, True])
    np.testing.assert_array_equal(dagger([0.1, 0.09, 0.3], tree, 0.1), [True, True, False])
    np.testing.assert_array_equal(dagger([0.1, 0.11, 0.3], tree, 0.1), [True, False, False])
    np.testing.assert_array_equal(dagger([0.1001, 0.0, 0.0], tree, 0.1), [False, False, False])
    det = dagger_details([0.1, 0.09, 0.14], tree, 0.1)
    np.testing.assert_allclose(det.threshold, [0.1, 0.15, 0.15])
    # BY reshaping at depth 2: sum_{k=m_i+d-1}^{m_i+|H_1:2|-1} 1/k = 1/2 + 1/3; numerator r + R_1 - d + 1 = r
    # -> delta_i(r) = 0.1 * (1/2) * r / (5/6) = 0.06 r
    det = dagger_details([0.01, 0.1, 0.12], tree, 0.1, reshaping="by")
    np.testing.assert_array_equal(det.rejected, [True, True, True])
    np.testing.assert_allclose(det.threshold[1:], [0.12, 0.12])


def test_children_tested_only_when_all_parents_rejected():
    diamond = [[], [0], [0], [1, 2]]
    det = dagger_details([0.001, 0.001, 0.9, 0.0], diamond, 0.1)
    np.testing.assert_array_equal(det.rejected, [True, True, False, False])
    np.testing.assert_array_equal(det.tested, [True, True, True, False])
    det = dagger_details([0.5, 0.0, 0.0, 0.0], diamond, 0.1)
    np.testing.assert_array_equal(det.tested, [True, False, False, False])
    assert not det.rejected.any()


def test_rejections_are_closed_under_parents():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(1, 30))
        parents = random_dag(rng, n)
        p = p_vector(rng, n)
        for reshaping in ("identity", "by"):
            rej = dagger(p, parents, 0.2, reshaping)
            for i in np.nonzero(rej)[0]:
                assert rej[parents[i]].all()
            # BY reshaping is never more liberal than the identity
        assert np.all(dagger(p, parents, 0.2, "by") <= dagger(p, parents, 0.2, "identity"))


def test_bad_graphs():
    with pytest.raises(InputError, match="cycle"):
        dagger([0.1, 0.1, 0.1], [[2], [0], [1]], 0.1)
    with pytest.raises(InputError, match="cycle"):
        dagger([0.1, 0.1], [[0], []], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 0.1], [[5], []], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 0.1], [[]], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 0.1], [[0.5], []], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 0.1], [[], []], 0.1, reshaping="nope")
    with pytest.raises(InputError):
        dagger([0.1, np.nan], [[], []], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 1.2], [[], []], 0.1)
    with pytest.raises(InputError):
        dagger([0.1, 0.2], [[], []], 1.0)
    with pytest.raises(InputError):
        dagger([], [], 0.1)
    # an iterator of parent lists is read once, like a list
    np.testing.assert_array_equal(topological_order(iter([[], [0]])), topological_order([[], [0]]))
    with pytest.raises(InputError, match=r"parents\[1\]"):
        dagger([0.01, 0.02], [[], 0], 0.1)
    with pytest.raises(InputError, match=r"parents\[1\]"):
        dagger([0.01, 0.02], [[], ["x"]], 0.1)


def _dagger_by_the_book(p, parents, delta):
    """DAGGER written directly from App. B of the RG-PT paper (Eqs. (15)-(18)) with the identity reshaping in
    the form of Ramdas et al. (2019), delta_i(r) = delta v_i / V (m_i + r + R_{1:d-1} - 1) / m_i: depths,
    effective leaves and nodes by recursion on the definitions, R of Eq. (18) by trying every r."""
    import functools

    n = len(parents)
    children = [[j for j in range(n) if i in parents[j]] for i in range(n)]

    @functools.lru_cache(maxsize=None)
    def depth(i):
        return 1 if not parents[i] else 1 + max(depth(q) for q in parents[i])

    @functools.lru_cache(maxsize=None)
    def leaves(i):
        return 1.0 if not children[i] else sum(leaves(j) / len(parents[j]) for j in children[i])

    @functools.lru_cache(maxsize=None)
    def nodes(i):
        return 1.0 + sum(nodes(j) / len(parents[j]) for j in children[i])

    n_leaves = sum(1 for i in range(n) if not children[i])
    rejected, before = set(), 0
    for d in range(1, max(depth(i) for i in range(n)) + 1):
        testable = [i for i in range(n) if depth(i) == d and all(q in rejected for q in parents[i])]

        def level(i, r):
            return delta * leaves(i) / n_leaves * (nodes(i) + r + before - 1) / nodes(i) * (1 + 1e-12)

        big_r = max([r for r in range(1, len(testable) + 1) if sum(p[i] <= level(i, r) for i in testable) >= r],
                    default=0)
        if big_r:
            hits = [i for i in testable if p[i] <= level(i, big_r)]
            rejected |= set(hits)
            before += len(hits)
    return np.array([i in rejected for i in range(n)])


def test_against_a_direct_implementation_of_the_paper_on_random_dags():
    rng = np.random.default_rng(11)
    n_rejected = 0
    for _ in range(1500):
        n = int(rng.integers(1, 9))
        labels = rng.permutation(n)  # parents need not have smaller indices
        parents = [[] for _ in range(n)]
        for i in range(n):
            parents[labels[i]] = sorted(int(labels[j]) for j in range(i) if rng.random() < 0.4)
        p = np.where(rng.random(n) < 0.6, rng.random(n) * 0.05, rng.random(n))
        delta = float(rng.choice([0.05, 0.1, 0.3]))
        expected = _dagger_by_the_book(p, parents, delta)
        np.testing.assert_array_equal(dagger(p, parents, delta), expected, err_msg=f"{parents} {p} {delta}")
        n_rejected += expected.sum()
    assert n_rejected > 1000


def test_step_up_count_needs_logarithmically_many_levels():
    """The step-up of one depth tried r = k, k - 1, ... one by one, each a pass over the k nodes: quadratic where
    little is rejected (4.9 s for 40,000 nodes without edges and p-values 1). The count now comes from a bisection
    for every node at once; the levels are evaluated about log2 k times, and the count is the brute-force one."""
    from bilevel.certify.dagger import REL_TOL, _step_up_count

    rng = np.random.default_rng(5)
    for k in [1, 2, 7, 1000]:
        for p in [np.ones(k), rng.uniform(size=k) ** 3, np.round(rng.uniform(size=k) * 0.1, 2)]:
            scale = rng.uniform(0.01, 0.2) / k
            calls = []

            def crit(r, scale=scale):
                calls.append(r)
                return scale * (np.zeros(k) + r) * (1.0 + np.arange(k) % 3)

            got = _step_up_count(p, crit)
            brute = max([r for r in range(1, k + 1) if np.count_nonzero(p <= crit(r) * (1 + REL_TOL)) >= r],
                        default=0)
            assert got == brute
            assert len(calls) - k <= int(np.log2(k)) + 2  # the brute force above made the other k calls


def test_dagger_without_edges_is_bh_for_many_ties():
    """20,000 nodes without edges, p-values with many ties and some exactly at a BH threshold: DAGGER is BH
    (statsmodels' multipletests as the oracle)."""
    rng = np.random.default_rng(6)
    m = 20_000
    p = np.round(rng.uniform(size=m) ** 2 * 0.05, 4)
    p[:50] = 0.1 * np.arange(1, 51) / m
    for delta in [1e-6, 0.1, 0.5]:
        assert np.array_equal(dagger(p, [[]] * m, delta), multipletests(p, alpha=delta, method="fdr_bh")[0])
    assert not dagger(np.ones(m), [[]] * m, 0.1).any()


def test_a_p_value_a_billionth_above_the_bh_level_is_not_rejected():
    """The relative slack of DAGGER's comparisons (REL_TOL = 1e-12) only absorbs round-off: p-values 1e-9
    (relative) above the Benjamini-Hochberg or fixed-sequence levels are not rejected, as in statsmodels and
    Eq. (14). A slack of 1e-6 (anti-conservative) passed every other test."""
    for m, delta in [(4, 0.1), (7, 0.05), (30, 0.02)]:  # m delta < 1: every level a p-value
        bh_levels = delta * np.arange(1, m + 1) / m
        p = bh_levels * (1.0 + 1e-9)
        assert not multipletests(p, alpha=delta, method="fdr_bh")[0].any()
        assert not dagger(p, [[]] * m, delta).any()
        assert dagger(bh_levels, [[]] * m, delta).all()  # at the levels themselves: all rejected
        chain = [[]] + [[i] for i in range(m - 1)]
        fs_levels = m * delta / (m - np.arange(1, m + 1) + 1)  # Eq. (14) with k = 1
        assert not dagger(fs_levels * (1.0 + 1e-9), chain, delta).any()
        assert not fixed_sequence(fs_levels * (1.0 + 1e-9), delta, fdr=True).any()


@pytest.mark.parametrize("index", [1e300, 2.0**63, -1e20])
def test_huge_parent_index_is_refused_without_a_warning(index):
    # a float index beyond int64 was cast first: numpy's "invalid value encountered in cast" RuntimeWarning, then
    # the refusal of the garbage it gave
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=r"parents\[1\] refers to a node outside 0..1"):
            dagger([0.01, 0.02], [[], [index]], 0.1)


@pytest.mark.parametrize("parents", ["ab", "01", b"ab"])
def test_a_string_as_the_parents_argument_is_refused_by_name(parents):
    """A string of the right length was iterated as the parent lists of its characters: "parents[0] must be a list
    of integer node indices, got the string 'a'" (or "got 97" for bytes), naming an element the caller never gave."""
    for call in (lambda: dagger([0.01, 0.02], parents, 0.1), lambda: dag_depths(parents),
                 lambda: topological_order(parents)):
        with pytest.raises(InputError, match=r"^parents must be a list .* not a string; got"):
            call()


@pytest.mark.parametrize("parents", [[[[1]], []], [[], [[0]]], [[], [[]]], [[], np.array([[0]])]])
def test_parent_lists_nested_one_level_too_deep_are_refused(parents):
    """parents[i] was raveled, so [[1]] was read as the parent 1 and [[]] as no parent: a list of lists of lists (a
    mistake about the format) ran DAGGER on a graph nobody wrote."""
    with pytest.raises(InputError, match=r"parents\[[01]\] must be a flat list"):
        dagger([0.01, 0.02], parents, 0.1)
