"""DAGGER under arbitrary dependence: the exact worst-case FDR over all joint laws of the p-values, from the
LP in ``tests/dagger_worst_case.py``.

The "by" reshaping is the one claimed valid under arbitrary dependence (Ramdas et al. 2019; App. B of the
RG-PT paper). The oracle is checked first against a closed form, the sharp bound of Guo & Rao (2008):
without edges, the worst-case FDR of Benjamini-Hochberg with every hypothesis null is ``delta * H_n``
(``H_n = 1 + 1/2 + ... + 1/n``) and that of Benjamini-Yekutieli is ``delta``.
"""
import itertools

import numpy as np
import pytest

from bilevel.certify import dagger
from dagger_worst_case import decisions, dags, grid, worst_case_fdr

TOL = 1e-9  # DAGGER's own slack raises every level by a factor 1 + 1e-12


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("delta", [0.05, 0.2])
def test_oracle_gives_the_sharp_bound_without_edges(n, delta):
    flat = [[] for _ in range(n)]
    harmonic = sum(1.0 / k for k in range(1, n + 1))
    bh, _ = worst_case_fdr(flat, range(n), delta, "identity")
    by, law = worst_case_fdr(flat, range(n), delta, "by")
    assert bh == pytest.approx(delta * harmonic, rel=TOL)
    assert by == pytest.approx(delta, rel=TOL)
    assert law.sum() == pytest.approx(1.0) and law.min() >= -1e-12


def test_grid_holds_every_level():
    """Moving each p-value up to its grid value keeps every decision, so no level is missing from the grid
    (a missing level would let the LP under-estimate the worst case)."""
    rng = np.random.default_rng(0)
    graphs = [g for n in range(1, 5) for g in dags(n)] + [
        [[], [0], [0], [0, 1], [0, 2, 3], [4]],
        [[], [], [0, 1], [1], [2, 3], [2]],
    ]
    checked = 0
    for parents in graphs:
        for reshaping in ("identity", "by"):
            delta = float(rng.choice([0.05, 0.2, 0.5]))
            g = grid(parents, delta, reshaping)
            for _ in range(20):
                p = np.where(rng.random(len(parents)) < 0.7, rng.random(len(parents)) * delta, rng.random(len(parents)))
                up = np.array([gi[np.searchsorted(gi, pi)] for gi, pi in zip(g, p)])
                np.testing.assert_array_equal(
                    dagger(p, parents, delta, reshaping), dagger(up, parents, delta, reshaping)
                )
                checked += 1
    assert checked > 2000


def _worst(graphs, delta, reshaping):
    worst, where = 0.0, None
    for parents in graphs:
        table = decisions(parents, delta, reshaping)
        for k in range(1, len(parents) + 1):
            for nulls in itertools.combinations(range(len(parents)), k):
                value, _ = worst_case_fdr(parents, nulls, delta, reshaping, table)
                if value > worst:
                    worst, where = value, (parents, nulls)
    return worst, where


@pytest.mark.slow
@pytest.mark.parametrize("delta", [0.1, 0.3])
def test_by_reshaping_controls_fdr_on_every_small_dag(delta):
    """Every DAG on up to 4 nodes (edges from lower to higher index: 1, 2, 8 and 64 graphs), every set of
    true nulls: the worst-case FDR of DAGGER with the "by" reshaping is at most delta."""
    graphs = [g for n in range(1, 5) for g in dags(n)]
    worst, where = _worst(graphs, delta, "by")
    assert worst <= delta * (1 + TOL), where
    assert worst >= delta * (1 - TOL)  # attained, e.g. without edges


@pytest.mark.slow
def test_by_reshaping_controls_fdr_on_sampled_five_node_dags():
    rng = np.random.default_rng(1)
    five = list(dags(5))
    graphs = [five[i] for i in rng.choice(len(five), 12, replace=False)]
    graphs.append([[], [0], [0], [0, 1], [0, 2, 3]])  # many multi-parent nodes
    worst, where = _worst(graphs, 0.2, "by")
    assert worst <= 0.2 * (1 + TOL), where


def test_identity_reshaping_is_not_valid_under_arbitrary_dependence_on_a_graph_with_edges():
    """The check can fail: with the identity reshaping (valid for independent or PRDS p-values only) some
    law exceeds delta on a graph with edges as well."""
    parents = [[], [], [0, 1], [0, 1]]
    worst, _ = _worst([parents], 0.1, "identity")
    assert worst > 0.1 * 1.2
    by, _ = _worst([parents], 0.1, "by")
    assert by <= 0.1 * (1 + TOL)
