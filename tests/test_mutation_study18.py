"""Mutation study 18 of the ranking tools (bilevel/ranking.py: Bradley-Terry scores, Eq. (12) of the RG-PT paper;
the RG-PT win counts, Eqs. (10)-(11), and their prior check; the non-negative Lasso, Eq. (13)): each test kills a
mutant that passed the tests of the module (tests/test_ranking.py and the input-error, pipeline and input-type tests),
against the documented behaviour (the functions' docstrings) and an independent oracle: the closed form of the
two-item Bradley-Terry maximiser (``s_1 / s_2 = w_12 / w_21``), choix's iterative Luce spectral ranking, a plain
Newton iteration on Eq. (12) written out here (numpy's lstsq on the Laplacian), scipy's linprog for the absolute-loss
Lasso and scipy's nnls / scikit-learn's Lasso(positive=True) (``alpha = tau / (2 n)``) for the squared one."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import linprog, nnls
from scipy.special import expit
from sklearn.linear_model import Lasso

from bilevel.errors import InputError, SolverError
from bilevel.ranking import (_residual_qp, bradley_terry, bradley_terry_log_likelihood, check_eta, nonnegative_lasso,
                             rgpt_win_counts)
from oracles import choix_log_scores


def _centred(log_s):
    return np.asarray(log_s) - np.mean(log_s)


def _choix_log_scores(wins):
    return _centred(choix_log_scores(wins))


# --------------------------------------------------------------------------------------------------
# Bradley-Terry: argument checks
# --------------------------------------------------------------------------------------------------


def test_a_negative_win_count_above_minus_one_is_refused():
    """Win counts must be non-negative (InputError, bradley_terry's docstring), a count of -0.5 included (mutation
    testing: ``w.min() < -1`` in place of ``< 0`` passed the suite, whose negative count was -1). Oracle: the
    docstring."""
    for bad in ([[0.0, -0.5], [1.0, 0.0]], [[0.0, 1.0, 2.0], [1.0, 0.0, -1e-12], [1.0, 1.0, 0.0]]):
        with pytest.raises(InputError, match="non-negative"):
            bradley_terry(bad)
        with pytest.raises(InputError, match="non-negative"):
            bradley_terry_log_likelihood(bad, np.full(len(bad), 1.0 / len(bad)))


@pytest.mark.parametrize("pseudo_count", [-0.25, -1e-12, float("inf"), float("nan")])
def test_a_pseudo_count_not_finite_and_non_negative_is_refused(pseudo_count):
    """``pseudo_count`` must be a finite number ``>= 0`` (InputError naming it). Mutation testing: dropping the
    finiteness check (inf then failed inside the count scaling with a bare OverflowError, NaN was reported as "not
    strongly connected") and ``c < -0.5`` in place of ``c < 0`` both passed the suite. Oracle: the docstring."""
    with pytest.raises(InputError, match="pseudo_count"):
        bradley_terry([[0.0, 1.0], [1.0, 0.0]], pseudo_count=pseudo_count)


def test_tol_zero_is_refused():
    """``tol`` must be a finite number ``> 0`` (InputError naming it, bradley_terry's docstring). Mutation testing:
    ``allow_zero=True`` in its check passed the suite (tol=0 was accepted). Oracle: the docstring."""
    for method in ("newton", "mm"):
        with pytest.raises(InputError, match="tol"):
            bradley_terry([[0.0, 2.0], [1.0, 0.0]], tol=0.0, method=method)


def test_log_likelihood_refuses_a_zero_score_and_scores_of_the_wrong_length():
    """``scores`` must be positive, one per item (InputError, bradley_terry_log_likelihood's docstring). Mutation
    testing: ``s < 0`` in place of ``s <= 0`` (a zero score gave log 0 = -inf, a NaN or -inf likelihood) and dropping
    the shape check (a single score broadcast to every item; a longer vector a bare numpy error) both passed the
    suite. Oracle: the docstring."""
    wins = [[0.0, 2.0], [1.0, 0.0]]
    for bad in ([0.0, 1.0], [0.5], [0.2, 0.3, 0.5], [[0.5, 0.5]]):
        with pytest.raises(InputError, match="scores"):
            bradley_terry_log_likelihood(wins, bad)


# --------------------------------------------------------------------------------------------------
# Bradley-Terry: results
# --------------------------------------------------------------------------------------------------


def test_a_single_item_has_score_one_and_log_score_zero():
    """One item: the score 1 (scores sum to 1) or, with ``return_log=True``, its logarithm 0 (docstring: ``log s``
    normalised so that ``sum(exp(log s)) = 1``), with either method. Mutation testing: returning 1 as the log-score,
    and the early return for ``m == 0`` in place of ``m == 1`` (MM then ran 100,000 iterations on log 0 and raised
    SolverError), both passed the suite. Oracle: log 1 = 0."""
    for method, pseudo_count in itertools.product(("newton", "mm"), (0.0, 2.0)):
        assert bradley_terry([[5.0]], pseudo_count=pseudo_count, method=method).tolist() == [1.0]
        assert bradley_terry([[5.0]], pseudo_count=pseudo_count, method=method, return_log=True).tolist() == [0.0]


def test_a_subnormal_score_is_warned_about():
    """A score below the normal float range (``log s < -708``) is 0 *or a subnormal*, and a RuntimeWarning then
    names ``return_log=True`` (bradley_terry's Returns). Mutation testing: warning only for scores equal to 0 passed
    the suite (a subnormal score came back silently, with ~10 of its 16 digits lost). Oracle: the two-item closed form
    ``log s_2 - log s_1 = log(w_21 / w_12) = -720.7``."""
    wins = [[0.0, 1e150], [1e-163, 0.0]]
    gap = math.log(1e-163) - math.log(1e150)
    assert -745.0 < gap < -708.0  # s_2 ~ 1e-313 is subnormal, not 0
    log_s = bradley_terry(wins, return_log=True)
    assert log_s[1] - log_s[0] == pytest.approx(gap, rel=1e-13)
    with pytest.warns(RuntimeWarning, match="return_log=True"):
        scores = bradley_terry(wins)
    assert 0.0 < scores[1] < np.finfo(float).tiny


def test_log_score_gap_beyond_1000_of_two_items():
    """``return_log=True`` holds log-scores ~1400 apart (docstring): with the largest count 1e150 and a subnormal one
    the two-item maximiser has the gap log(1e150 / 1e-320) = 1082, where ``w * P`` is a subnormal (1e-320) though
    ``P = e^-1082`` is no float. Mutation testing: forming those products in logs only down to -1000 instead of -2000
    passed the suite. Oracle: the two-item closed form ``theta_1 - theta_2 = log(w_12 / w_21)``."""
    for small in (1e-320, 1e-310, 1e-300):
        log_s = bradley_terry([[0.0, 1e150], [small, 0.0]], return_log=True)
        assert log_s[0] - log_s[1] == pytest.approx(math.log(1e150) - math.log(small), rel=1e-12)


def test_non_convergence_message_suggests_a_pseudo_count_only_without_one():
    """Non-convergence is SolverError "did not converge ... try ..." that suggests ``pseudo_count > 0`` only when
    none is given (bradley_terry; a ``pseudo_count > 0`` already given is no advice). Mutation testing: the hint
    without the pseudo count for ``pseudo_count = 0`` too passed the suite. Oracle: the docstring and the hint's
    wording."""
    wins = [[0.0, 3.0, 1.0], [1.0, 0.0, 2.0], [5.0, 1.0, 0.0]]
    with pytest.raises(SolverError, match=r"did not converge.*pseudo_count > 0"):
        bradley_terry(wins, max_iter=1)
    with pytest.raises(SolverError, match="did not converge") as info:
        bradley_terry(wins, max_iter=1, pseudo_count=0.5)
    assert "pseudo_count" not in str(info.value)


def _plain_newton_steps(wins, tol):
    """Full Newton steps on Eq. (12) in theta = log s from the least-squares fit of ``theta_i - theta_j =
    log(w_ij / w_ji)`` (every pair compared both ways here), until the next step is within tol: their number."""
    m = wins.shape[0]
    rows, rhs = [], []
    for i in range(m):
        for j in range(i + 1, m):
            row = np.zeros(m)
            row[i], row[j] = 1.0, -1.0
            rows.append(row)
            rhs.append(np.log(wins[i, j] / wins[j, i]))
    theta = np.linalg.lstsq(np.array(rows), np.array(rhs), rcond=None)[0]
    n_pair = wins + wins.T
    for steps in range(50):
        p = expit(theta[:, None] - theta[None, :])
        grad = (wins * (1.0 - p)).sum(axis=1) - (wins.T * p).sum(axis=1)
        cond = n_pair * p * p.T
        step = np.linalg.lstsq(np.diag(cond.sum(axis=1)) - cond, grad, rcond=None)[0]
        if np.max(np.abs(step - step.mean())) <= tol:
            return steps
        theta = theta + step
    raise AssertionError("plain Newton did not converge")


@pytest.mark.parametrize("eps, tol", [(0.2, 1e-10), (1.0, 1e-10), (2.0, 1e-6), (0.05, 1e-6)])
def test_max_iter_newton_steps_are_enough_when_the_point_after_the_last_is_stationary(eps, tol):
    """``max_iter`` counts Newton steps, and the point after the last of them gets the stationarity test too
    (_bt_newton: "max_iter steps and max_iter + 1 stationarity tests"): counts that need k steps converge with
    ``max_iter=k`` and not with ``k - 1``. Mutation testing: ``range(1, max_iter + 1)`` in place of ``max_iter + 2``
    (k steps then needed ``max_iter = k + 1``) passed the suite, whose test only looked for the smallest max_iter
    that works. Oracle: plain Newton on Eq. (12) written out here (its step count) and choix (the maximiser)."""
    s = np.array([1.0, 2.0, 4.0])
    wins = 10.0 * s[:, None] / (s[:, None] + s[None, :])
    np.fill_diagonal(wins, 0.0)
    wins[0, 1] += eps  # off the model: the least-squares start is no longer the maximiser
    k = _plain_newton_steps(wins, tol)
    assert k >= 1
    log_s = bradley_terry(wins, max_iter=k, tol=tol, return_log=True)
    np.testing.assert_allclose(_centred(log_s), _choix_log_scores(wins), rtol=0, atol=1e-8)
    if k > 1:
        with pytest.raises(SolverError, match="did not converge"):
            bradley_terry(wins, max_iter=k - 1, tol=tol)


# --------------------------------------------------------------------------------------------------
# RG-PT win counts and the prior eta
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [[0.1, 1.2], [0.1, -0.2], [1.0 + 1e-9, 0.5], []])
def test_p_values_outside_0_1_or_empty_are_refused(p):
    """``p_values_opt`` must be a non-empty 1-D array of p-values in [0, 1] (InputError naming it). Mutation testing:
    the upper bound raised to 1.5, the lower one to -0.5, and no check for an empty array (numpy's bare ValueError
    from ``.min()``) each passed the suite. Oracle: the docstring."""
    with pytest.raises(InputError, match="p_values_opt"):
        rgpt_win_counts(p, 10)


def test_eta_off_diagonal_outside_0_1_is_refused_even_when_complementary():
    """``eta_ij`` are probabilities in [0, 1] off the diagonal (check_eta), also where the pair is complementary to
    its 1e-6 tolerance (-5e-7 and 1 sum to 1 - 5e-7). Mutation testing: the lower bound -0.1 in place of 0 passed
    the suite. Oracle: the docstring."""
    for eta in ([[0.5, -5e-7], [1.0, 0.5]], [[0.5, -0.05], [1.05, 0.5]]):
        with pytest.raises(InputError, match=r"\[0, 1\]"):
            check_eta(eta, 2)
        with pytest.raises(InputError, match="eta"):
            rgpt_win_counts([0.1, 0.2], 10, eta=eta, n_p=1.0)


def test_the_diagonal_of_eta_is_ignored():
    """The diagonal of ``eta`` is ignored (check_eta's docstring), NaN or 2 there included, and the counts are those
    of Eqs. (10)-(11) off the diagonal. Mutation testing: checking the diagonal with the rest passed the suite.
    Oracle: ``w_ij = n_opt p_j / (p_i + p_j) + n_p eta_ij`` written out."""
    eta = np.array([[np.nan, 0.3], [0.7, 2.0]])
    assert check_eta(eta, 2)[0, 1] == 0.3
    w = rgpt_win_counts([0.1, 0.3], 10, eta=eta, n_p=4.0)
    expected = np.array([[0.0, 10 * 0.3 / 0.4 + 4 * 0.3], [10 * 0.1 / 0.4 + 4 * 0.7, 0.0]])
    np.testing.assert_allclose(w, expected, rtol=1e-14, atol=0)


def test_check_eta_takes_zero_candidates():
    """``m`` is an integer >= 0 (check_eta): zero candidates give an empty (0, 0) prior. Mutation testing: requiring
    ``m >= 1`` passed the suite. Oracle: the docstring."""
    assert check_eta(np.zeros((0, 0)), 0).shape == (0, 0)


# --------------------------------------------------------------------------------------------------
# Non-negative Lasso
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["squared", "absolute"])
@pytest.mark.parametrize("X, y, name", [
    (np.zeros((0, 2)), np.zeros(0), "rows"),
    (np.ones((3, 2)), np.ones((3, 1)), "y"),
    (np.ones((3, 2)), np.array([1.0, np.nan, 1.0]), "finite"),
    (np.ones((3, 2)), np.array([1.0, np.inf, 1.0]), "finite"),
    (np.ones(3), np.ones(3), "X"),
])
def test_nonnegative_lasso_refuses_malformed_x_and_y(X, y, name, loss):
    """``X`` 2-D with rows, ``y`` 1-D of one entry per row, both finite (InputError, nonnegative_lasso's Raises).
    Mutation testing: dropping the check for rows (numpy's bare ValueError), for ``y.ndim == 1`` (y of shape (n, 1)),
    for a finite ``y`` and ``x.ndim > 2`` in place of ``!= 2`` (a 1-D X) each passed the suite. Oracle: the
    docstring."""
    with pytest.raises(InputError, match=name):
        nonnegative_lasso(X, y, 0.1, loss=loss)


def test_absolute_loss_keeps_a_column_whose_penalty_is_below_its_l1_norm():
    """A column is left out before the solve only when its penalty alone rules it out, ``tau > ||x_j||_1`` for the
    absolute loss (lowering beta_j by d raises the loss by at most d ||x_j||_1). With ``x = y = (1, 1, 1, 1)`` the
    objective ``4 |1 - b| + tau b`` has its minimum at b = 1 for tau < 4 = ||x||_1 (though tau > ||x||_2 = 2) and at
    b = 0 for tau > 4. Mutation testing: the bound ``||x_j||_2`` in place of ``||x_j||_1`` (b = 0 for 2 < tau < 4)
    passed the suite. Oracle: scipy's linprog on the LP written out, and the closed form."""
    X, y = np.ones((4, 1)), np.ones(4)
    for tau, expected in ((3.0, 1.0), (3.9, 1.0), (1.0, 1.0), (4.5, 0.0)):
        # variables b, u (4), v (4) >= 0, X b + u - v = y; minimise tau b + sum(u + v)
        res = linprog(np.r_[tau, np.ones(8)], A_eq=np.hstack([X, np.eye(4), -np.eye(4)]), b_eq=y, bounds=(0, None),
                      method="highs")
        assert res.x[0] == pytest.approx(expected, abs=1e-9)
        assert nonnegative_lasso(X, y, tau, loss="absolute") == pytest.approx([expected], abs=1e-9)


def test_absolute_loss_with_y_zero_is_zero():
    """``y = 0``: ``beta = 0`` fits exactly at no penalty, whatever ``tau >= 0`` (for the absolute loss too).
    Mutation testing: dropping this early return of the LP passed the suite. Oracle: the closed form (the objective
    is >= 0 and 0 at beta = 0; with tau = 0 beta = 0 is one of the minimisers, and linprog's)."""
    X = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    for tau in (0.0, 0.5):
        beta = nonnegative_lasso(X, np.zeros(3), tau, loss="absolute")
        assert beta.shape == (2,) and np.all(np.isfinite(beta))
        assert np.abs(X @ beta).sum() + tau * beta.sum() == pytest.approx(0.0, abs=1e-12)


def test_the_residual_form_alone_solves_eq_13():
    """The residual-form QP (``min ||r||^2 + tau^T beta, r + R beta = Q^T v``, Hessian 2 on ``r``) is Eq. (13) on its
    own (its docstring), not only after the Gram form's fallback and the active-set polish. Mutation testing: the
    Hessian 1 in place of 2 on the residuals (it then minimised ``||r||^2 / 2 + tau^T beta``; the KKT check sent every
    call to the Gram form) passed the suite. Oracle: scikit-learn's Lasso(positive=True) with ``alpha = tau / (2 n)``
    and scipy's nnls (tau = 0), on unit-norm columns and target as the function is called."""
    rng = np.random.default_rng(3)
    for n, k in ((12, 3), (20, 5)):
        X = rng.random((n, k))
        X /= np.linalg.norm(X, axis=0)
        y = X @ rng.random(k) + 0.05 * rng.standard_normal(n)
        y /= np.linalg.norm(y)
        np.testing.assert_allclose(_residual_qp(X, y, 0.0), nnls(X, y)[0], rtol=0, atol=1e-6)
        tau = 0.3
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = Lasso(alpha=tau / (2 * n), positive=True, fit_intercept=False, tol=1e-14,
                        max_iter=1_000_000).fit(X, y).coef_
        np.testing.assert_allclose(_residual_qp(X, y, tau), ref, rtol=0, atol=1e-6)


@pytest.mark.parametrize("shape", [(1, 4), (4,), (4, 1)])
def test_eta_of_the_right_size_but_the_wrong_shape_is_refused(shape):
    """``eta`` must have shape (m, m) (InputError naming the shape, check_eta). Mutation testing: comparing its size
    with ``m * m`` instead of its shape passed the suite (a (1, 4) prior for two candidates then failed with numpy's
    bare IndexError). Oracle: the docstring."""
    eta = np.full(shape, 0.5)
    with pytest.raises(InputError, match="shape"):
        check_eta(eta, 2)
    with pytest.raises(InputError, match="shape"):
        rgpt_win_counts([0.1, 0.2], 10, eta=eta, n_p=1.0)


def test_a_prior_strength_without_a_prior_is_named():
    """``n_p > 0`` without ``eta`` is an InputError saying so (rgpt_win_counts' Raises). Mutation testing: dropping
    that check passed the suite (check_eta then refused ``None`` as "eta must have shape (2, 2) ... got ()", which
    does not say that a prior is missing). Oracle: the docstring."""
    with pytest.raises(InputError, match="needs a prior matrix eta"):
        rgpt_win_counts([0.1, 0.2], 10, n_p=1.0)
    assert rgpt_win_counts([0.1, 0.2], 10, n_p=0.0)[0, 1] == pytest.approx(10 * 0.2 / 0.3, rel=1e-14)
