"""Mutation study 17 of the certification pipelines (bilevel/certify/pipelines.py: Learn-Then-Test, Pareto Testing and
RG-PT, the calibration split and the choice of the chosen configuration): each test kills a mutant that passed the
tests of the pipelines, against the documented behaviour (the module's and functions' docstrings, the README's
certification section, Alg. 2 and Sec. 3.2 of the RG-PT paper, Alg. C.1 of the Pareto-testing paper) and an
independent oracle (hand-written tiny inputs whose answer is worked out in the docstring, statsmodels' multipletests,
fixed-sequence testing and DAGGER on a chain re-written here in exact rational arithmetic, brute force over every
candidate)."""
from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from bilevel.certify import ltt, pareto_testing, rg_pt
from bilevel.errors import InputError
from oracles import brute_front

# 40 calibration rows, 4 candidates with 0-1 losses of error rates 0.05, 0.1, 0.2 and 0.5
def risk_as_p_value(r_hat, n, alpha):
    """A p-value function that returns the empirical risk itself, so that the p-values are the tests' own numbers."""
    return np.asarray(r_hat, dtype=float)


LOSSES = (np.random.default_rng(0).random((40, 4)) < np.array([0.05, 0.1, 0.2, 0.5])).astype(float)


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
def test_a_split_given_as_a_dict_is_refused_as_a_mapping(fn):
    """A split given as a dict is refused with the message that says why (iterating a mapping gives its keys) and
    what to pass instead (``_resolve_split``'s message; pareto_testing's docstring: "or as a dict or DataFrame").
    Mutation testing: dropping ``isinstance(split, Mapping)`` passed the suite, whose dict test only matched
    "split": the dict was then refused as "opt_indices must be a 1-D list ..., got the number 0", a message about
    an argument the user never wrote. Oracle: the docstring."""
    with pytest.raises(InputError, match="not a mapping"):
        fn(LOSSES, 0.3, 0.1, split={0: np.arange(20), 1: np.arange(20, 40)})


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
@pytest.mark.parametrize("split", [(np.arange(40), []), ([], np.arange(40))])
def test_an_empty_part_of_an_explicit_split_is_refused_by_name(fn, split):
    """Either part of an explicit split left empty is refused up front (pareto_testing's docstring: "a split that
    leaves a part empty"), with a message that says so. Mutation testing: checking only the optimisation part passed
    the suite; an empty testing part then failed later, inside the p-value code, with a message about the losses.
    Oracle: the docstring."""
    with pytest.raises(InputError, match="both the optimisation and the testing part need at least one row"):
        fn(LOSSES, 0.3, 0.1, split=split)


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
@pytest.mark.parametrize("bad", [-1, 40])
def test_split_rows_outside_the_calibration_rows_are_refused(fn, bad):
    """Row indices of a split must lie in 0..n_cal-1 (``_resolve_split``). Mutation testing: accepting -1 passed the
    suite (numpy then silently read the last row, which thereby sat in both parts), and so did accepting n_cal (an
    IndexError deep in numpy instead of an InputError). Oracle: the range 0..39 of 40 rows."""
    with pytest.raises(InputError, match=r"row indices must lie in 0\.\.39"):
        fn(LOSSES, 0.3, 0.1, split=(np.r_[np.arange(1, 20), bad], np.arange(20, 39)))


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
@pytest.mark.parametrize("part", [0, 1])
def test_a_row_repeated_inside_one_part_is_refused(fn, part):
    """The two parts must be "disjoint and without repeats": a row listed twice in the same part would count twice
    in an empirical risk or a p-value (as if there were one more independent example). Mutation testing: checking
    only that the parts do not overlap passed the suite. Oracle: the docstring's wording."""
    split = [list(range(20)), list(range(20, 40))]
    split[part].append(split[part][0])
    with pytest.raises(InputError, match="without repeats"):
        fn(LOSSES, 0.3, 0.1, split=tuple(split))


def _ones_first(n: int, counts) -> np.ndarray:
    """A 0-1 loss column per entry of ``counts``: its first ``count`` of ``n`` rows are losses."""
    return (np.arange(n)[:, None] < np.asarray(counts)[None, :]).astype(float)


def _brute_chosen(certified, keys_per_candidate):
    """The certified candidate whose tuple of keys (then its index) is smallest, by Python's tuple order."""
    return min(certified, key=lambda j: (*keys_per_candidate[j], j))


def test_the_chosen_breaks_ties_of_the_first_auxiliary_objective_by_the_next_one():
    """The chosen configuration is the certified candidate with the smallest first auxiliary objective, "ties broken
    by the next auxiliary objectives, then the estimated risks, then the index" (the module docstring). Candidates 1
    and 2 tie in the first cost; the second cost prefers 2 (candidate 1 has the smaller risk, which would pick it).
    Mutation testing: ranking by the first auxiliary objective only (then the risks) passed the suite. Oracle: brute
    force, the smallest tuple (cost 1, cost 2, risk, index) over the certified candidates."""
    losses = _ones_first(100, [0, 2, 4])
    aux = [np.array([1.0, 0.0, 0.0]), np.array([0.0, 5.0, 3.0])]
    res = ltt(losses, 0.5, 0.1, aux=aux)
    assert res.certified.tolist() == [0, 1, 2]
    risks = losses.mean(axis=0)
    expected = _brute_chosen(res.certified.tolist(), {j: (aux[0][j], aux[1][j], risks[j]) for j in range(3)})
    assert expected == 2 and res.chosen == 2


def test_the_chosen_breaks_ties_of_the_first_risk_by_the_second_risk():
    """Without ``aux`` the chosen is the certified candidate "with the smallest estimated risk"; with several
    controlled risks, ties of the first are broken by the next ones, then the index (the module docstring, which
    lists "the estimated risks"). Candidates 1 and 2 tie in the first risk (5 losses in 100 rows each), the second
    risk prefers 2. Mutation testing: ranking by the first risk only, then the index, passed the suite. Oracle: brute
    force, the smallest tuple (risk 1, risk 2, index) over the certified candidates."""
    losses = np.stack([_ones_first(100, [10, 5, 5]), _ones_first(100, [0, 8, 3])], axis=2)
    res = ltt(losses, 0.5, 0.1)
    assert res.certified.tolist() == [0, 1, 2]
    r = losses.mean(axis=0)
    assert _brute_chosen([0, 1, 2], {j: tuple(r[j]) for j in range(3)}) == 2
    assert res.chosen == 2


def test_rgpt_chooses_the_certified_candidate_with_the_smallest_auxiliary_cost():
    """RG-PT's chosen is the certified candidate with the smallest first auxiliary objective on the optimisation part
    (Eq. (9) of the RG-PT paper, the module docstring), not the one with the smallest risk. Three candidates trade
    risk (0, 2 and 4 losses in 100 optimisation rows) against cost (3, 2, 1): all on the front, all certified (risk
    <= 0.04 against alpha = 0.5 on 100 testing rows). Mutation testing: RG-PT picking without ``aux`` passed the
    suite. Oracle: brute force, the smallest (cost, risk, index) over the three."""
    losses = _ones_first(200, [0, 8, 16])
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    cost = np.array([3.0, 2.0, 1.0])
    res = rg_pt(losses, 0.5, 0.1, aux=cost, split=split)
    assert res.certified.tolist() == [0, 1, 2]
    risks = losses[split[0]].mean(axis=0)
    assert _brute_chosen([0, 1, 2], {j: (cost[j], risks[j]) for j in range(3)}) == 2
    assert res.chosen == 2


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
def test_the_front_with_auxiliary_objectives_uses_every_controlled_risk(fn):
    """The Pareto front is taken over (estimated risks, auxiliary objectives) (pareto_testing's and rg_pt's
    docstrings: all the risks, then the auxiliary objectives). Candidate 1 is worse than candidate 0 in the first risk
    and equal in cost but better in the second risk, so it is on the front. Mutation testing: building the front from
    the first risk and the costs passed the suite (candidate 1 then fell off the front). Oracle: the brute-force
    front of the (risk 1, risk 2, cost) table computed here from the optimisation rows."""
    n = 200
    losses = np.stack([_ones_first(n, [4, 8, 12]), _ones_first(n, [20, 4, 24])], axis=2)
    cost = np.array([1.0, 1.0, 2.0])
    split = (np.arange(0, n, 2), np.arange(1, n, 2))
    table = np.column_stack([losses[split[0]].mean(axis=0), cost])
    assert brute_front(table) == [0, 1]
    assert fn(losses, 0.5, 0.1, aux=cost, split=split).front.tolist() == [0, 1]


@pytest.mark.parametrize("fn", [pareto_testing, rg_pt])
def test_risk_opt_is_the_mean_loss_on_the_optimisation_rows(fn):
    """``risk_opt`` holds "empirical risks on the optimisation part", shape (m, L) (CertificationResult's docstring).
    Mutation testing: reporting the summed losses passed the suite (the front, the order and the chosen are the same
    for sums and means, so only the reported numbers were wrong). Oracle: numpy's mean over the rows the split
    names."""
    split = (np.arange(0, 40, 3), np.setdiff1d(np.arange(40), np.arange(0, 40, 3)))
    res = fn(LOSSES, 0.3, 0.1, split=split)
    np.testing.assert_allclose(res.risk_opt, LOSSES[split[0]].mean(axis=0)[:, None], rtol=0, atol=1e-15)


def test_ltt_fdr_defaults_to_benjamini_hochberg_and_by_is_benjamini_yekutieli():
    """LTT's FDR procedure is Benjamini-Hochberg by default and Benjamini-Yekutieli with ``procedure="by"`` (ltt's
    docstring: ``{"bh", "by"}`` for FDR (default "bh")). The p-values 0.01, 0.02, 0.12, 0.16 (set through a p-value
    function that returns the empirical risk) at delta = 0.2 separate the two: BH rejects all four, BY two.
    Mutation testing: defaulting to BY passed the suite, and so did mapping "by" to BH. Oracle: statsmodels'
    multipletests."""
    losses = _ones_first(100, [1, 2, 12, 16])
    p = losses.mean(axis=0)
    bh = np.nonzero(multipletests(p, alpha=0.2, method="fdr_bh")[0])[0].tolist()
    by = np.nonzero(multipletests(p, alpha=0.2, method="fdr_by")[0])[0].tolist()
    assert bh == [0, 1, 2, 3] and by == [0, 1]
    assert ltt(losses, 0.5, 0.2, p_value=risk_as_p_value).certified.tolist() == bh
    assert ltt(losses, 0.5, 0.2, control="fdr", procedure="bh", p_value=risk_as_p_value).certified.tolist() == bh
    assert ltt(losses, 0.5, 0.2, procedure="by", p_value=risk_as_p_value).certified.tolist() == by


def test_ltt_estimates_risks_and_picks_the_chosen_on_all_rows():
    """LTT does not split: its risks are the mean losses over all calibration rows and its chosen candidate is
    selected on all rows (the module docstring; ``risk_opt``: "all rows for LTT"). Candidate 0 has its 6 losses in the
    first half of 100 rows, candidate 1 its 8 in the second half: on all rows 0 is better, on the first half 1.
    Mutation testing: estimating the risks on the first half of the rows passed the suite. Oracle: numpy's mean and
    brute force over the two candidates."""
    losses = np.zeros((100, 2))
    losses[:6, 0] = 1.0
    losses[50:58, 1] = 1.0
    res = ltt(losses, 0.5, 0.1)
    np.testing.assert_array_equal(res.risk_opt[:, 0], [0.06, 0.08])
    assert res.certified.tolist() == [0, 1]
    assert res.chosen == min([0, 1], key=lambda j: (losses[:, j].mean(), j)) == 0


def test_pareto_testing_breaks_ties_of_p_value_and_risk_by_the_smaller_index():
    """Pareto testing orders the front by increasing p-value on Z_OPT, "ties: smaller estimated first risk, then
    smaller index" (pareto_testing's docstring). Candidates 0 and 1 are identical on the optimisation rows (both on
    the front, neither dominates), so 0 is tested first: on the testing rows 0 passes (p = 0.01) and 1 fails, and
    fixed-sequence testing (k = 1) certifies 0. Mutation testing: breaking the tie by the larger index passed the
    suite (1 was tested first, failed, and nothing was certified). Oracle: fixed-sequence testing by hand in the
    documented order."""
    opt = np.zeros((100, 2))
    opt[:10] = 1.0  # both: 10 losses in 100 optimisation rows
    test = np.zeros((100, 2))
    test[:1, 0] = 1.0
    test[:90, 1] = 1.0
    losses = np.vstack([opt, test])
    res = pareto_testing(losses, 0.5, 0.1, p_value=risk_as_p_value, split=(np.arange(100), np.arange(100, 200)))
    assert res.candidates.tolist() == [0, 1]
    p = test.mean(axis=0)  # 0.01, 0.9: 0 rejected at 0.1, 1 fails and testing stops
    assert res.p_values.tolist() == p.tolist() and res.certified.tolist() == [0]


def test_pareto_testing_orders_by_the_combined_p_value_not_the_first_risk():
    """The front is ordered by increasing p-value on Z_OPT, the estimated first risk only breaking ties
    (pareto_testing's docstring; Alg. C.1 of the Pareto-testing paper); ``p_values_opt`` is aligned with that order
    and ``certified`` is ascending (CertificationResult's docstring). With two risks the p-value is the maximum over
    the limits (Eq. (7) of the RG-PT paper), which need not follow the first risk: candidate 0 has risks (0.02, 0.08),
    candidate 1 (0.04, 0.02); with a p-value function returning the risk, their p-values are 0.08 and 0.04, so 1 comes
    first, and both pass on the testing rows (same numbers, <= delta = 0.1). Mutation testing: sorting by the first
    risk, then the p-value, passed the suite (single-risk tests cannot tell: there the built-in p-values increase with
    the risk), and so did leaving ``p_values_opt`` in front order and ``certified`` in test order. Oracle: Eq. (7)
    by hand, max(r1, r2), and fixed-sequence testing by hand."""
    n = 100
    losses = np.stack([_ones_first(2 * n, [4, 8]), _ones_first(2 * n, [16, 4])], axis=2)
    split = (np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2))
    p_opt = losses[split[0]].mean(axis=0).max(axis=1)
    assert p_opt.tolist() == [0.08, 0.04]
    res = pareto_testing(losses, 0.5, 0.1, p_value=risk_as_p_value, split=split)
    assert res.front.tolist() == [0, 1]
    assert res.candidates.tolist() == np.argsort(p_opt).tolist() == [1, 0]
    np.testing.assert_array_equal(res.p_values_opt, [0.04, 0.08])
    assert res.p_values.tolist() == [0.04, 0.08] and res.rejected.tolist() == [True, True]
    assert res.certified.tolist() == [0, 1]


def test_pareto_testing_breaks_p_value_ties_by_the_first_risk_not_the_last():
    """Ties of the p-value on Z_OPT are broken by the smaller estimated *first* risk (pareto_testing's docstring).
    Candidates 0 and 1 have risks (0.02, 0.06) and (0.06, 0.02) on the optimisation rows: the same p-value 0.06 (the
    maximum over the limits, with a p-value function returning the risk), so 0 (first risk 0.02) is tested first.
    Mutation testing: breaking the tie by the last risk passed the suite. Oracle: the docstring's rule by hand."""
    losses = np.stack([_ones_first(200, [4, 12]), _ones_first(200, [12, 4])], axis=2)
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    assert losses[split[0]].mean(axis=0).tolist() == [[0.02, 0.06], [0.06, 0.02]]
    res = pareto_testing(losses, 0.5, 0.1, p_value=risk_as_p_value, split=split)
    assert res.candidates.tolist() == [0, 1]


def test_rgpt_with_as_many_levels_as_front_candidates_is_a_chain_even_for_tied_scores():
    """``D >= |front|`` gives one candidate per level, a chain, "with tied p-values ordered by index" (rg_pt's
    docstring, step 4), and that includes ``D = |front|`` exactly. Two identical loss columns are both on the front
    (neither dominates) with equal scores; with ``n_levels=2`` they form the chain 0 -> 1. Mutation testing: taking
    the chain only for ``D > |front|`` passed the suite (at ``D = |front|`` the tied scores were then clustered into
    one level, no edge). Oracle: the docstring's chain, written out by hand."""
    losses = np.repeat(_ones_first(60, [3]), 2, axis=1)
    res = rg_pt(losses, 0.5, 0.1, n_levels=2, split=(np.arange(30), np.arange(30, 60)))
    assert res.front.tolist() == [0, 1]
    assert res.candidates.tolist() == [0, 1] and res.levels.tolist() == [1, 2]
    assert res.parents == {0: [], 1: [0]}


def exp_minus_100_risk(r_hat, n, alpha):
    """A p-value function ``exp(-100 r)``: the log-scores of RG-PT (n_p = 0) are then ``100 r`` plus a constant."""
    return np.exp(-100.0 * np.asarray(r_hat, dtype=float))


@pytest.mark.parametrize("method, levels", [("ward", [2, 2, 1, 1]), ("single", [2, 1, 1, 1])])
def test_rgpt_clusters_the_log_scores_with_the_given_linkage(method, levels):
    """The depth levels come from agglomerative clustering of the Bradley-Terry log-scores with the
    ``cluster_method`` linkage (rg_pt's docstring, step 4; Sec. 3.2.1 of the RG-PT paper). With n_p = 0 the scores
    are proportional to 1 / p (rgpt_win_counts' docstring); the p-value function exp(-100 r) on the risks 0, 0.04,
    0.072, 0.1 (costs 4, 3, 2, 1 keep all four on the front) gives the log-scores 0, 4, 7.2, 10 plus a constant.
    In two clusters, single linkage cuts the largest gap ({0} | {4, 7.2, 10}); Ward merges 7.2 with 10 (cost
    2.8^2 / 2 = 3.92), then 0 with 4 (cost 8, less than 2/3 (8.6 - 4)^2 = 14.1 for 4 with {7.2, 10}). Level 1 holds
    the highest scores. Mutation testing: ignoring ``cluster_method`` (always single linkage) passed the suite.
    Oracle: both linkages worked by hand."""
    n = 250
    losses = _ones_first(2 * n, [0, 20, 36, 50])
    split = (np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2))
    assert losses[split[0]].mean(axis=0).tolist() == [0.0, 0.04, 0.072, 0.1]
    res = rg_pt(losses, 0.5, 0.1, aux=np.array([4.0, 3.0, 2.0, 1.0]), p_value=exp_minus_100_risk, split=split,
                n_levels=2, cluster_method=method)
    assert res.front.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(np.sort(res.log_scores - res.log_scores.min()), [0, 4, 7.2, 10], atol=1e-6)
    assert {int(c): int(lv) for c, lv in zip(res.candidates, res.levels)} == dict(enumerate(levels))


def exp_minus_risk_over_100(r_hat, n, alpha):
    """A p-value function ``exp(-r / 100)``: risks 0.01 apart give log-scores 1e-4 apart."""
    return np.exp(-np.asarray(r_hat, dtype=float) / 100.0)


def test_rgpt_scores_apart_by_far_more_than_round_off_are_not_ties():
    """Only scores "equal up to round-off (relative 1e-9)" are ties (rg_pt's docstring, step 4); scores 1e-4 apart
    are not, so in a chain the higher score comes first, not the smaller index. Candidate 1 (risk 0.01, cost 1) has
    the smaller p-value exp(-1e-4) < 1 = p of candidate 0 (risk 0, cost 2): it is the more reliable one, the root.
    Mutation testing: a tie tolerance of 1e-3 passed the suite (the two were then a tie, ordered by index). Oracle:
    the docstring's tolerance and rule, by hand."""
    losses = _ones_first(200, [0, 2])
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    res = rg_pt(losses, 0.5, 0.1, aux=np.array([2.0, 1.0]), p_value=exp_minus_risk_over_100, split=split,
                n_levels=2)
    assert res.front.tolist() == [0, 1]
    assert res.log_scores[0] - res.log_scores[1] == pytest.approx(1e-4, rel=1e-6)
    assert res.candidates.tolist() == [1, 0] and res.parents == {1: [], 0: [1]}


def exp_minus_10_risk(r_hat, n, alpha):
    """A p-value function ``exp(-10 r)``."""
    return np.exp(-10.0 * np.asarray(r_hat, dtype=float))


def test_rgpt_equal_p_values_above_the_lowest_score_are_one_tie_in_the_chain():
    """Scores equal up to round-off are ties, ordered by index in a chain (rg_pt's docstring, step 4; equal p-values
    on Z_OPT give equal scores in exact arithmetic). Candidates 0 and 1 have the same losses (risk 0.15, cost 1, p =
    exp(-1.5)), candidate 2 risk 0 and cost 2 (p = 1, the lowest score); the Bradley-Terry fit returns the scores of 0
    and 1 an ulp apart, 1 above 0. With three levels the chain is 0 -> 1 -> 2. Mutation testing: no tie merging
    (tolerance 0) passed the suite, and so did merging only values near the lowest score of all (the run's head never
    moving on); both made 1 the root. Oracle: the docstring's rule by hand."""
    losses = _ones_first(200, [30, 30, 0])
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    res = rg_pt(losses, 0.5, 0.1, aux=np.array([1.0, 1.0, 2.0]), p_value=exp_minus_10_risk, split=split,
                n_levels=3)
    assert res.front.tolist() == [0, 1, 2]
    assert res.log_scores[0] == res.log_scores[1] > res.log_scores[2]
    assert res.candidates.tolist() == [0, 1, 2] and res.parents == {0: [], 1: [0], 2: [1]}


def test_rgpt_an_orphan_is_attached_to_the_highest_scored_candidate_of_the_level_above():
    """When the Lasso selects no parent (a column constant on Z_OPT), ``orphans="best"`` attaches the candidate to
    "the highest-scored candidate of level d - 1" (rg_pt's docstring, step 5). With exp(-100 r) as p-value the
    log-scores are 100 r plus a constant: candidates 0 (risk 0.09, score 9) and 1 (risk 0.1, score 10) form level 1
    (two levels, ceil(sqrt(3))), candidate 2 (no loss on Z_OPT, score 0) level 2, and its parent is 1, not 0 (the
    first of the level). Mutation testing: attaching the orphan to the first candidate of the level above passed the
    suite. Oracle: the docstring's rule by hand."""
    losses = _ones_first(200, [18, 20, 0])
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    res = rg_pt(losses, 0.5, 0.1, aux=np.array([2.0, 1.0, 3.0]), p_value=exp_minus_100_risk, split=split)
    assert res.front.tolist() == [0, 1, 2]
    assert res.candidates.tolist() == [1, 0, 2] and res.levels.tolist() == [1, 1, 2]
    assert res.parents == {0: [], 1: [], 2: [1]}


def test_rgpt_tied_candidates_of_one_level_are_ordered_by_index():
    """The test order is "by level, then score, then index" (rg_pt, and ``candidates`` = the front ordered by
    (level, score)). Candidates 0 and 1 are identical on Z_OPT (risk 0.15, cost 1: one score), candidate 2 has
    risk 0 and cost 2 (the lowest score); in two levels 0 and 1 share level 1, in index order, and the orphan 2 (no
    loss on Z_OPT) is attached to the first of the tied best, 0. Mutation testing: ordering ties by the larger index
    passed the suite. Oracle: the docstring's rule by hand."""
    losses = _ones_first(200, [30, 30, 0])
    split = (np.arange(0, 200, 2), np.arange(1, 200, 2))
    res = rg_pt(losses, 0.5, 0.1, aux=np.array([1.0, 1.0, 2.0]), p_value=exp_minus_10_risk, split=split,
                n_levels=2)
    assert res.candidates.tolist() == [0, 1, 2] and res.levels.tolist() == [1, 1, 2]
    assert res.parents == {0: [], 1: [], 2: [0]}


@pytest.mark.parametrize("name, same_as", [("id", "identity"), ("Identity", "identity"), ("BY", "by"),
                                           ("benjamini_yekutieli", "by")])
def test_rgpt_takes_every_name_of_a_dagger_reshaping(name, same_as):
    """rg_pt hands ``reshaping`` to DAGGER, whose names are "identity" (alias "id") and "by" (alias
    "benjamini_yekutieli"), in any case (dagger's table of reshapings; mutation study 16 pins them there). rg_pt's own
    check must accept the same names and give the same answer as the canonical one. Mutation testing: dropping "id"
    from rg_pt's check passed the suite (rg_pt then refused a name DAGGER takes). Oracle: the canonical names."""
    kw = dict(split=(np.arange(0, 40, 2), np.arange(1, 40, 2)))
    res, ref = rg_pt(LOSSES, 0.3, 0.2, reshaping=name, **kw), rg_pt(LOSSES, 0.3, 0.2, reshaping=same_as, **kw)
    assert res.certified.tolist() == ref.certified.tolist() and res.tested.tolist() == ref.tested.tolist()


def test_the_summary_counts_the_rows_of_each_part_and_the_hypotheses_tested():
    """``summary()`` reports "calibration rows: <optimisation> optimisation, <testing> testing" and "tested: <number
    examined> of <hypotheses>" (CertificationResult). Fixed-sequence testing stops at the first failure: the front of
    three candidates (costs 1, 2, 3 against risks 0.2, 0.1, 0 on Z_OPT) with the p-value function 1 - r is ordered
    0, 1, 2 (p = 0.8, 0.9, 1), and candidate 0 fails on the testing rows (p = 0.8 > delta = 0.1): one hypothesis of
    three is tested.
    Mutation testing: swapping the two row counts passed the suite, and so did counting every hypothesis as tested.
    Oracle: the split's sizes, 10 and 30, and fixed-sequence testing by hand."""
    losses = _ones_first(40, [8, 4, 0])
    split = (np.arange(0, 40, 4), np.setdiff1d(np.arange(40), np.arange(0, 40, 4)))
    res = pareto_testing(losses, 0.5, 0.1, aux=np.array([1.0, 2.0, 3.0]), p_value=lambda r, n, a: 1.0 - r,
                         split=split)
    text = res.summary()
    assert "calibration rows: 10 optimisation, 30 testing" in text
    assert res.candidates.tolist() == [0, 1, 2] and "tested: 1 of 3 hypotheses, certified: 0" in text


def test_summary_refuses_names_without_a_label_per_candidate():
    """``summary(names)`` maps candidate indices to labels (its docstring); with fewer names than candidates it
    failed inside its label helper with Python's "list index out of range", a mapping without a certified index with
    a KeyError and a string took its characters as labels (found by mutation study 17). Now an InputError names
    ``names``; a full list and a mapping of the certified indices label them. Oracle: the docstring."""
    res = ltt(_ones_first(100, [0, 2, 4]), 0.5, 0.1)
    assert res.certified.tolist() == [0, 1, 2]
    for names in (["a"], ["a", "b", "c", "d"], {0: "x", 2: "z"}, "abc", 7):
        with pytest.raises(InputError, match="names"):
            res.summary(names=names)
    assert "certified: a, b, c" in res.summary(names=["a", "b", "c"])
    assert "certified: x, y, z" in res.summary(names={0: "x", 1: "y", 2: "z", 5: "unused"})
    assert "certified: 0, 1, 2" in res.summary()


def test_summary_refuses_a_label_given_to_two_candidates():
    """["a", "a", "b"] printed "certified: a, a", two candidates under one name (the CLI refuses repeated headers)."""
    res = ltt(_ones_first(100, [0, 2, 4]), 0.5, 0.1)
    for names in (["a", "a", "b"], {0: "x", 1: "x", 2: "z"}, [1, "1", 2]):
        with pytest.raises(InputError, match=r"names gives two candidates the label '(a|x|1)'"):
            res.summary(names=names)
    assert "certified: a, b, c" in res.summary(names=["a", "b", "c"])
