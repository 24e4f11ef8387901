"""Mutation study 25 of bilevel/bigm.py (the big-M constants of the KKT + big-M MILPs of Eq. (21) and Eq. (25): the
closed forms of items 1-8, ``margin_ranges`` with its cache, pad and retry, the tightened constants of items 9-10,
``lambda_max`` of item 11, the stationarity scale of item 12): each test kills a mutant that passed the tests of that
module, against the documented behaviour (the module docstring's numbered items and the functions' docstrings) and an
independent oracle (the least and largest margins by scipy's linprog, tests/oracles.margin_range; the hinge LPs
of tests/oracles.py for the least losses; the docstring's closed forms written out by hand, a hand-checked
1-feature instance, HiGHS stopped by an iteration limit).
95 mutants, all run against tests/test_bigm.py, test_mutation_study15.py, test_mutation_study13.py,
test_mutation_study9.py, test_lambda_max.py, test_cutoff.py and test_milp_bruteforce.py (the restart, interrupt,
rebuild, race and timing tests and the benchmark-script tests deselected to keep one run near 40 s;
test_kkt_enumeration.py left out, 170 s): 72 killed, 23 survived; of these 21 are killed here (the replica's
reach ``B`` for ``B_TV`` of item 5 among them, and ``b_hi`` left untightened, which is looser and valid: speed only,
but not the documented tightening) and 2 are equivalent (speed only: the cache lookup dropped, and the cache evicting
its newest entry instead of its oldest)."""
from __future__ import annotations

import numpy as np
import pytest

import bilevel
from bilevel import bigm
from oracles import lp as oracle_lp, margin_range, tiny_instance


def _ranges(Xt, yt, ub, budget, rows, cutoff=None):
    out = np.array([margin_range(Xt, yt, ub, budget, x, cutoff) for x in rows])
    return out[:, 0], out[:, 1]


def _pad(v):
    return 1e-6 * (1.0 + np.abs(v))


def _assert_covers(got, ref):
    """``got`` (lo, hi) contains the oracle's ranges ``ref`` and is at most a few pads wider."""
    (lo, hi), (r_lo, r_hi) = got, ref
    assert np.all(lo <= r_lo) and np.all(hi >= r_hi), (lo - r_lo, hi - r_hi)
    assert np.all(lo >= r_lo - 3 * _pad(r_lo)) and np.all(hi <= r_hi + 3 * _pad(r_hi))


def _instance(seed=0):
    return tiny_instance(seed, n_t=6, n_v=5, p=2)


# --------------------------------------------------------------------------------------------------
# margin_ranges: the cache, the pad, the retry
# --------------------------------------------------------------------------------------------------


def test_a_request_with_another_budget_is_not_answered_from_the_cache():
    """margin_ranges caches "a whole request", and its values do not depend on what was computed earlier: a request
    with a larger budget after a smaller one over the same data and rows gets the larger set's ranges (oracle:
    linprog). Mutation testing: the budget left out of the cache key passed the suite (the second request got the
    first one's narrower ranges, an invalid big-M)."""
    Xt, yt, Xv, _ = _instance(1)
    ub, rows = np.ones(2), np.vstack([Xt, Xv])
    least = oracle_lp(ub, (Xt, yt))
    bigm._RANGE_CACHE.clear()
    for budget in (least * 1.01, least * 1.5 + 0.2):
        _assert_covers(bigm.margin_ranges(Xt, yt, ub, budget, rows), _ranges(Xt, yt, ub, budget, rows))


def test_a_request_with_another_cutoff_value_or_validation_set_is_not_answered_from_the_cache():
    """The cutoff ``(X_val, y_val, U)`` is part of the request: another ``U``, or other validation points of the same
    shape at the same ``U``, get their own ranges (oracle: linprog with the validation rows). Mutation testing:
    ``U`` or the validation data left out of the cache key passed the suite."""
    Xt, yt, Xv, yv = _instance(2)
    ub, budget = np.ones(2), 1.2 * oracle_lp(np.ones(2), (Xt, yt)) + 0.05
    least_val = oracle_lp(ub, (Xv, yv), [(Xt, yt, budget)])
    bigm._RANGE_CACHE.clear()
    for U in (least_val + 0.05, least_val + 0.8):
        cut = (Xv, yv, U)
        _assert_covers(bigm.margin_ranges(Xt, yt, ub, budget, Xt, cut), _ranges(Xt, yt, ub, budget, Xt, cut))
    Xv2 = Xv[::-1].copy() * 1.7
    least2 = oracle_lp(ub, (Xv2, yv), [(Xt, yt, budget)])
    U = max(least_val, least2) + 0.05
    for X_val in (Xv, Xv2):
        cut = (X_val, yv, U)
        _assert_covers(bigm.margin_ranges(Xt, yt, ub, budget, Xt, cut), _ranges(Xt, yt, ub, budget, Xt, cut))


def test_the_ranges_are_widened_by_exactly_the_documented_pad():
    """margin_ranges returns the LP's least and largest values "widened by ``1e-6 (1 + |value|)``" (oracle: linprog's
    values, widened by that pad). Mutation testing: no pad and a pad
    inwards were killed by tests/test_bigm.py; the pads ``1e-6 |value|`` and ``1e-9 (1 + |value|)`` passed the suite."""
    Xt, yt, Xv, _ = _instance(3)
    ub = np.ones(2)
    budget = 1.3 * oracle_lp(ub, (Xt, yt)) + 0.05
    rows = np.vstack([Xv, np.zeros((1, 2))])
    lo, hi = bigm.margin_ranges(Xt, yt, ub, budget, rows)
    r_lo, r_hi = _ranges(Xt, yt, ub, budget, rows)
    assert lo == pytest.approx(r_lo - _pad(r_lo), abs=5e-8)
    assert hi == pytest.approx(r_hi + _pad(r_hi), abs=5e-8)


def test_a_budget_or_cutoff_a_round_off_below_the_least_value_is_retried_and_a_far_one_raises():
    """A budget (or cutoff ``U``) a little below the least training (validation) hinge the LP reaches is retried with
    both raised by ``1e-6 (1 + |value|)``: the ranges come back; InfeasibleCutoff (a ValueError) only when the set is
    empty even then. Oracle: linprog's least losses. Mutation testing: no retry (catching SolverError instead),
    a retry without the raised budget, and one without the raised cutoff, passed the suite."""
    Xt, yt, Xv, yv = _instance(4)
    ub = np.ones(2)
    least = oracle_lp(ub, (Xt, yt))
    assert least > 0.1
    bigm._RANGE_CACHE.clear()
    lo, hi = bigm.margin_ranges(Xt, yt, ub, least - 4e-7, Xv)
    r_lo, r_hi = _ranges(Xt, yt, ub, least + 1e-9, Xv)
    assert lo == pytest.approx(r_lo, abs=1e-4) and hi == pytest.approx(r_hi, abs=1e-4)
    budget = least + 0.3
    least_val = oracle_lp(ub, (Xv, yv), [(Xt, yt, budget)])
    assert least_val > 0.1
    lo, hi = bigm.margin_ranges(Xt, yt, ub, budget, Xt, (Xv, yv, least_val - 4e-7))
    r_lo, r_hi = _ranges(Xt, yt, ub, budget, Xt, (Xv, yv, least_val + 1e-9))
    assert lo == pytest.approx(r_lo, abs=1e-4) and hi == pytest.approx(r_hi, abs=1e-4)
    with pytest.raises(bigm.InfeasibleCutoff):
        bigm.margin_ranges(Xt, yt, ub, budget, Xt, (Xv, yv, least_val - 1e-3))
    with pytest.raises(ValueError):
        bigm.margin_ranges(Xt, yt, ub, least - 1e-3, Xv)


# --------------------------------------------------------------------------------------------------
# optimistic_big_m: the closed forms of items 1-4
# --------------------------------------------------------------------------------------------------


def _reach(X, ub):
    return np.array([sum(abs(x_j) * u for x_j, u in zip(x, ub)) for x in X])


def test_the_optimistic_constants_without_lps_are_the_closed_forms_of_items_1_to_4():
    """Items 1-4: ``R_i = sum_j |x_ij| w_bar_ub_j``, ``B = max_T R_i + 1``, ``xi_i <= 1 + R_i + B``, slack
    ``<= max(R_i + B - 1, 0)``, ``beta <= 1/|T|``, ``mu+-_j <= max((1/|T|) sum_i |x_ij|, 1e-3)``, box slack
    ``<= 2 w_bar_ub_j``, validation hinge ``<= 1 + R_k + B``; every one is checked against the formula written out
    here. Mutation testing: ``B`` from the mean of the ``R_i`` instead of their largest (too small: an invalid
    big-M, it cuts off every training optimum with a larger intercept) passed the suite."""
    Xt, yt, Xv, _ = _instance(5)
    ub = np.array([0.7, 1.3])
    M = bigm.optimistic_big_m(Xt, yt, Xv, ub)
    r_t, r_v = _reach(Xt, ub), _reach(Xv, ub)
    B = r_t.max() + 1.0
    assert M.b == pytest.approx(B, rel=1e-12)
    assert M.xi == pytest.approx(1.0 + r_t + B, rel=1e-12)
    assert M.slack == pytest.approx(np.maximum(r_t + B - 1.0, 0.0), rel=1e-12)
    assert M.beta == pytest.approx(1.0 / len(yt), rel=1e-12)
    assert M.mu == pytest.approx(np.maximum(np.abs(Xt).mean(axis=0), 1e-3), rel=1e-12)
    assert M.box == pytest.approx(2.0 * ub, rel=1e-12)
    assert M.g == pytest.approx(1.0 + r_v + B, rel=1e-12)


def _margins(Xt, yt, ub, budget, rows, labels, cutoff=None):
    """Oracle ranges of the margins ``labels_k f(x_k)`` and of ``b`` (linprog)."""
    lo, hi = _ranges(Xt, yt, ub, budget, np.vstack([rows, np.zeros((1, rows.shape[1]))]), cutoff)
    m_lo = np.where(labels > 0, lo[:-1], -hi[:-1])
    m_hi = np.where(labels > 0, hi[:-1], -lo[:-1])
    return m_lo, m_hi, -hi[-1], -lo[-1]


# --------------------------------------------------------------------------------------------------
# pessimistic_big_m: items 5-8, the tightened constants, lambda_max; the errors
# --------------------------------------------------------------------------------------------------


def _pessimistic_instance():
    Xt, yt, Xv, yv = tiny_instance(7, n_t=6, n_v=5, p=2)
    Xv = Xv * np.array([[1.0], [2.5], [0.4], [3.0], [1.5]])  # distinct reaches, one validation point far out
    return Xt, yt, Xv, yv, np.array([3, 0, 2])


@pytest.mark.parametrize("least", [None, 0.4])
def test_the_pessimistic_constants_without_lps_are_the_closed_forms_of_items_5_to_8(least):
    """Items 5-8, written out here: ``B_TV = max_{T u V} R_i + 1`` (``B = max_T R_i + 1`` for a training-optimal
    replica, i.e. given ``least_loss_bound``), ``xi_hat_i <= 1 + R_i + B_TV``, ``H = (1 + epsilon) mean(xi_hat)`` (or
    ``(1 + epsilon) least_loss_bound``), ``b <= (|T| H + sum_{T+} R_i) / n_+ - 1``, ``-b <= (|T| H + sum_{T-} R_i)
    / n_- - 1``, ``F'_i = R_i + max`` of the two, ``xi <= min(1 + F', |T| H)``, slacks ``max(F' - 1, 0)``, ``v_k,
    g_k <= 1 + F'_k``, ``alpha <= 1/|V_f|``, ``kappa >= 1/(1 + Lambda)``, ``beta <= 1/|T|``, ``mu <= max(S^F, S^T,
    1e-3)``, box slack ``2 w_bar_ub``, ``|b_hat| <= B``. Mutation testing: each of these passed the suite, and each
    makes a constant too small (an invalid big-M): the replica's reach ``B`` for ``B_TV`` (the bug of item 5, fixed
    2026-11-25), ``B_TV`` without its +1, ``xi_hat`` without its 1, ``H`` from the least ``xi_hat`` instead of
    their mean, the negative class's reaches in the bound on ``b``, the validation reaches plus ``B`` for ``B'``, the
    flipped points' reaches taken from the smallest validation reaches, ``|b_hat| <= B - 1``."""
    Xt, yt, Xv, yv, F = _pessimistic_instance()
    ub, eps, Lam = np.array([1.2, 0.6]), 0.3, 40.0
    M = bigm.pessimistic_big_m(Xt, yt, Xv, F, eps, ub, Lam, least_loss_bound=least)
    r_t, r_v = _reach(Xt, ub), _reach(Xv, ub)
    n, pos, neg = len(yt), yt > 0, yt < 0
    B = r_t.max() + 1.0
    B_tv = max(r_t.max(), r_v.max()) + 1.0
    assert r_v.max() > r_t.max()  # the two reaches differ here
    xi_hat = 1.0 + r_t + (B_tv if least is None else B)
    H = (1.0 + eps) * (xi_hat.mean() if least is None else least)
    b_hi = (n * H + r_t[pos].sum()) / pos.sum() - 1.0
    b_lo = (n * H + r_t[neg].sum()) / neg.sum() - 1.0
    f_t, f_v = r_t + max(b_hi, b_lo), r_v + max(b_hi, b_lo)
    close = dict(rel=1e-12)
    assert M.b_hat == pytest.approx(B, **close)
    assert M.xi_hat == pytest.approx(xi_hat, **close) and M.budget == pytest.approx(H, **close)
    assert M.b_hi == pytest.approx(b_hi, **close) and M.b_lo == pytest.approx(b_lo, **close)
    assert M.xi == pytest.approx(np.minimum(1.0 + f_t, n * H), **close)
    assert M.slack_t == pytest.approx(np.maximum(f_t - 1.0, 0.0), **close)
    assert M.v == pytest.approx(1.0 + f_v[F], **close)
    assert M.slack_f == pytest.approx(np.maximum(f_v[F] - 1.0, 0.0), **close)
    assert M.g == pytest.approx(1.0 + f_v, **close)
    assert M.alpha == pytest.approx(1.0 / len(F), **close) and M.beta == pytest.approx(1.0 / n, **close)
    assert M.kappa_min == pytest.approx(1.0 / (1.0 + Lam), **close) and M.lam == 1.0
    s_f, s_t = np.abs(Xv[F]).mean(axis=0), np.abs(Xt).mean(axis=0)
    assert M.mu == pytest.approx(np.maximum(np.maximum(s_f, s_t), 1e-3), **close)
    assert M.box == pytest.approx(2.0 * ub, **close)


def _follower(Xt, yt, Xv, yv, F):
    rows = np.vstack([Xt, Xv[F]])
    return rows, np.r_[yt, -yv[F]]


@pytest.mark.parametrize("seed", [0, 3])
def test_the_tightened_pessimistic_constants_bound_the_followers_true_ranges(seed):
    """Items 6-9 for the follower: under the budget ``H = (1 + epsilon) least_loss_bound`` the constants of ``b``
    (``b <= b_hi``, ``-b <= b_lo``), ``xi``, the training and flipped margin slacks and ``v`` (flipped labels) bound
    the margins' ranges over ``{|w| <= w_bar_ub, mean training hinge <= H}`` (oracle: linprog) and are not much
    looser. Mutation testing: ``b <= b_hi`` left at its closed form of item 6 passed the suite (looser and still
    valid, so only slower, but not the documented tightening; the other ends and constants are also checked)."""
    Xt, yt, Xv, yv = tiny_instance(seed, n_t=6, n_v=5, p=2)
    F = np.array([0, 2, 3])
    ub, eps = np.ones(2), 0.4
    least = oracle_lp(ub, (Xt, yt))
    M = bigm.pessimistic_big_m(Xt, yt, Xv, F, eps, ub, 100.0, least_loss_bound=least, y_val=yv)
    H = (1.0 + eps) * least
    rows, labels = _follower(Xt, yt, Xv, yv, F)
    m_lo, m_hi, b_min, b_max = _margins(Xt, yt, ub, H, rows, labels)
    tol, n = 1e-5, len(yt)

    def tight(got, want):
        assert np.all(got >= want - 1e-9) and np.all(got <= want + tol), (got, want)

    tight(M.b_hi, b_max)
    tight(M.b_lo, -b_min)
    tight(M.xi, np.maximum(1.0 - m_lo[:n], 0.0))
    tight(M.slack_t, np.maximum(m_hi[:n] - 1.0, 0.0))
    tight(M.v, np.maximum(1.0 - m_lo[n:], 0.0))
    tight(M.slack_f, np.maximum(m_hi[n:] - 1.0, 0.0))


@pytest.mark.parametrize("epsilon, least_ub", [(0.0, 0.5), (0.5, 0.0)])
def test_lambda_max_is_inf_without_epsilon_or_with_a_separable_box_when_every_flipped_hinge_is_0(epsilon, least_ub):
    """Item 11: ``Lambda* = inf`` when ``epsilon = 0`` or ``v*(w_bar_ub) = 0``. Here every flipped hinge is 0 on the
    follower's set (training points at -2 and 2 inside a box of 1 with budget 0 force ``w >= 0.5``, ``|b| <= 2w - 1``,
    so the flipped point at 5 has margin ``5w - b >= 2.5``), so ``0 / 0`` would give NaN, not inf. Mutation
    testing: the ``epsilon > 0`` test dropped passed the suite (NaN at ``epsilon = 0``; ``v*(w_bar_ub) >= 0`` for
    ``> 0`` was killed by tests/test_lambda_max.py)."""
    Xt, yt = np.array([[2.0], [-2.0]]), np.array([1.0, -1.0])
    Xv, yv = np.array([[5.0]]), np.array([-1.0])
    M = bigm.pessimistic_big_m(Xt, yt, Xv, [0], epsilon, np.ones(1), 100.0, least_loss_bound=0.0, y_val=yv,
                               least_loss_ub=least_ub)
    assert np.all(M.v == 0.0)
    assert M.lambda_max == np.inf


def test_a_bound_tightening_lp_that_stops_early_raises_solver_error(monkeypatch):
    """margin_ranges raises SolverError "if an LP fails otherwise" (not solved to optimality, not infeasible): an LP
    stopped by an iteration limit of 0 (set on the package's own HiGHS object) must not return its unfinished
    values as ranges. Mutation testing: the check of the model status dropped passed the suite."""
    real = bigm.silent_highs

    def limited():
        h = real()
        h.setOptionValue("presolve", "off")
        h.setOptionValue("simplex_iteration_limit", 0)
        return h

    monkeypatch.setattr(bigm, "silent_highs", limited)
    Xt, yt, Xv, _ = _instance(8)
    bigm._RANGE_CACHE.clear()
    with pytest.raises(bilevel.SolverError):
        bigm.margin_ranges(Xt, yt, np.ones(2), 5.0, Xv)
    bigm._RANGE_CACHE.clear()


def test_an_optimistic_cutoff_without_validation_labels_is_refused():
    """optimistic_big_m takes a cutoff "with ``y_val`` too" (the validation hinge needs the labels): a cutoff without
    them raises InputError (a ValueError) instead of tightening with labels of NaN. Mutation testing: the check
    dropped passed the suite."""
    Xt, yt, Xv, yv = _instance(0)
    with pytest.raises(bilevel.InputError, match="y_val"):
        bigm.optimistic_big_m(Xt, yt, Xv, np.ones(2), least_loss_bound=0.5, cutoff=1.0)
