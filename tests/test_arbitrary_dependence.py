"""Validity under arbitrary dependence, exactly: the worst-case FWER or FDR over all joint laws of the
p-values, from the LP in ``tests/worst_case.py``, for every procedure that claims it (Bonferroni, Holm,
Benjamini-Yekutieli, fixed-sequence for FWER and for FDR with k failures, DAGGER with the "by" reshaping).

The oracle is checked against a closed form, the sharp bound of Guo & Rao (2008): with every hypothesis
null, the worst-case FDR of Benjamini-Hochberg is ``delta * H_n`` (``H_n = 1 + 1/2 + ... + 1/n``) and that of
Benjamini-Yekutieli is ``delta``; and it shows that the procedures valid only for independent or PRDS
p-values (Benjamini-Hochberg, DAGGER with the identity reshaping) do exceed ``delta`` under some law.
"""
import numpy as np
import pytest

from bilevel.certify import (
    benjamini_hochberg,
    benjamini_yekutieli,
    bonferroni,
    dagger,
    fixed_sequence,
    holm,
)
from bilevel.certify.procedures import fixed_sequence_thresholds
from worst_case import dagger_levels, dags, decision_table, intervals, sup_over_nulls, worst_case

TOL = 1e-7  # the LP raises every level by 1e-9 relative, DAGGER by 1e-12


def harmonic(n):
    return sum(1.0 / k for k in range(1, n + 1))


def dagger_table(parents, delta, reshaping):
    return decision_table(dagger_levels(parents, delta, reshaping), lambda p: dagger(p, parents, delta, reshaping))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("delta", [0.05, 0.2])
def test_oracle_gives_guo_and_raos_sharp_bound_without_edges(n, delta):
    steps = [delta * j / n for j in range(1, n + 1)]
    bh = decision_table([steps] * n, lambda p: benjamini_hochberg(p, delta))
    by = decision_table([[s / harmonic(n) for s in steps]] * n, lambda p: benjamini_yekutieli(p, delta))
    value, law = worst_case(bh, range(n))
    assert value == pytest.approx(delta * harmonic(n), rel=TOL)
    assert law.sum() == pytest.approx(1.0) and law.min() >= -1e-12
    assert worst_case(by, range(n))[0] == pytest.approx(delta, rel=TOL)
    flat = [[] for _ in range(n)]  # DAGGER without edges is BH or BY
    assert worst_case(dagger_table(flat, delta, "identity"), range(n))[0] == pytest.approx(delta * harmonic(n), rel=TOL)
    assert worst_case(dagger_table(flat, delta, "by"), range(n))[0] == pytest.approx(delta, rel=TOL)


def test_decision_points_stand_for_their_intervals():
    """Moving each p-value to the decision point of its interval keeps every decision, so no level is
    missing from the oracle's lists (a missing level would let the LP under-estimate the worst case)."""
    rng = np.random.default_rng(0)
    graphs = [g for n in range(1, 5) for g in dags(n)] + [
        [[], [0], [0], [0, 1], [0, 2, 3], [4]],
        [[], [], [0, 1], [1], [2, 3], [2]],
    ]
    checked = 0
    for parents in graphs:
        for reshaping in ("identity", "by"):
            delta = float(rng.choice([0.05, 0.2, 0.5]))
            grids = [intervals(levels) for levels in dagger_levels(parents, delta, reshaping)]
            for _ in range(20):
                n = len(parents)
                p = np.where(rng.random(n) < 0.7, rng.random(n) * delta, rng.random(n))
                moved = np.array([points[np.searchsorted(tops, pi)] for (points, tops), pi in zip(grids, p)])
                np.testing.assert_array_equal(dagger(p, parents, delta, reshaping),
                                              dagger(moved, parents, delta, reshaping))
                checked += 1
    assert checked > 2000


@pytest.mark.slow
@pytest.mark.parametrize("delta", [0.1, 0.3])
def test_dagger_by_reshaping_controls_fdr_on_every_small_dag(delta):
    """Every DAG on up to 4 nodes (edges from lower to higher index: 1, 2, 8 and 64 graphs), every set of
    true nulls: the worst-case FDR of DAGGER with the "by" reshaping is at most delta, and delta is reached."""
    worst = max((sup_over_nulls(dagger_table(g, delta, "by")) + (g,) for n in range(1, 5) for g in dags(n)),
                key=lambda found: found[0])
    assert worst[0] <= delta * (1 + TOL), worst
    assert worst[0] >= delta * (1 - TOL)


@pytest.mark.slow
def test_dagger_by_reshaping_controls_fdr_on_sampled_five_node_dags():
    rng = np.random.default_rng(1)
    five = list(dags(5))
    graphs = [five[i] for i in rng.choice(len(five), 12, replace=False)] + [[[], [0], [0], [0, 1], [0, 2, 3]]]
    for parents in graphs:
        value, nulls = sup_over_nulls(dagger_table(parents, 0.2, "by"))
        assert value <= 0.2 * (1 + TOL), (parents, nulls)


def test_dagger_identity_reshaping_exceeds_delta_on_a_graph_with_edges():
    """The check can fail: the identity reshaping (valid for independent or PRDS p-values only) is beaten
    by some law on a graph with edges too, where the "by" reshaping holds."""
    parents = [[], [], [0, 1], [0, 1]]
    assert sup_over_nulls(dagger_table(parents, 0.1, "identity"))[0] > 0.1 * 1.2
    assert sup_over_nulls(dagger_table(parents, 0.1, "by"))[0] <= 0.1 * (1 + TOL)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_bonferroni_and_holm_control_fwer(m):
    delta = 0.1
    bonf = decision_table([[delta / m]] * m, lambda p: bonferroni(p, delta))
    holm_levels = [[delta / k for k in range(1, m + 1)]] * m
    for table in (bonf, decision_table(holm_levels, lambda p: holm(p, delta))):
        value, nulls = sup_over_nulls(table, "fwer")
        assert value == pytest.approx(delta, rel=TOL), nulls  # attained: one null at p = delta / m


@pytest.mark.parametrize("m", [2, 3, 4])
def test_by_controls_fdr_with_some_hypotheses_false(m):
    """With m0 < m true nulls Benjamini-Yekutieli's bound is ``delta m0 / m`` (Benjamini & Yekutieli 2001)."""
    delta = 0.2
    table = decision_table([[delta * j / (m * harmonic(m)) for j in range(1, m + 1)]] * m,
                           lambda p: benjamini_yekutieli(p, delta))
    for m0 in range(1, m + 1):
        assert worst_case(table, range(m0))[0] <= delta * m0 / m * (1 + TOL)


@pytest.mark.slow
@pytest.mark.parametrize("fdr", [False, True])
def test_fixed_sequence_controls_its_error_rate(fdr):
    """FWER (``fdr=False``) and FDR with k failures (Eq. (14) of the RG-PT paper; Lynch et al. 2017), every
    m <= 7, k <= m and set of true nulls: the worst case is delta, attained."""
    delta = 0.1
    for m in range(1, 8):
        for k in range(1, m + 1):
            thresholds = fixed_sequence_thresholds(m, delta, fdr=fdr, max_failures=k)
            table = decision_table([[t] for t in thresholds],
                                   lambda p: fixed_sequence(p, delta, fdr=fdr, max_failures=k))
            value, nulls = sup_over_nulls(table, "fdr" if fdr else "fwer")
            assert value == pytest.approx(delta, rel=TOL), (m, k, nulls)
