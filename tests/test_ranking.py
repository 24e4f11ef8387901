"""Bradley-Terry against choix and closed forms; non-negative Lasso against scikit-learn and scipy."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize, nnls
from scipy.special import expit, logsumexp
from sklearn.linear_model import Lasso

from bilevel.errors import InputError, SolverError
from bilevel.ranking import bradley_terry, bradley_terry_log_likelihood, nonnegative_lasso, rgpt_win_counts
from oracles import choix_log_scores


def choix_scores(wins):
    params = choix_log_scores(wins)
    s = np.exp(params - params.max())
    return s / s.sum()


def random_connected_wins(rng, m, density=0.6):
    while True:
        w = rng.gamma(1.0, 3.0, (m, m)) * (rng.random((m, m)) < density)
        np.fill_diagonal(w, 0.0)
        # strongly connected: a directed cycle through all items guarantees it
        cyc = rng.permutation(m)
        for a, b in zip(cyc, np.roll(cyc, -1)):
            w[a, b] += 0.5
        return w


@pytest.mark.parametrize("method", ["newton", "mm"])
def test_bradley_terry_matches_choix(method):
    rng = np.random.default_rng(0)
    for _ in range(25):
        m = int(rng.integers(2, 12))
        w = random_connected_wins(rng, m, density=float(rng.choice([0.2, 0.6, 1.0])))
        s = bradley_terry(w, method=method)
        assert s.shape == (m,) and np.all(s > 0) and s.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(s, choix_scores(w), rtol=1e-6, atol=1e-9)


def test_two_items_closed_form():
    for w12, w21 in [(3.0, 1.0), (0.25, 7.5), (2.0, 2.0)]:
        s = bradley_terry(np.array([[0.0, w12], [w21, 0.0]]))
        np.testing.assert_allclose(s, [w12 / (w12 + w21), w21 / (w12 + w21)], rtol=1e-10)


def test_pairs_never_compared():
    # 0-1, 1-2, 2-3 compared both ways; 0-2, 0-3, 1-3 never compared
    w = np.array([[0, 3, 0, 0], [1, 0, 2, 0], [0, 2, 0, 5], [0, 0, 1, 0]], dtype=float)
    np.testing.assert_allclose(bradley_terry(w), choix_scores(w), rtol=1e-7)
    # on a path the MLE matches every observed ratio exactly
    s = bradley_terry(w)
    assert s[0] / s[1] == pytest.approx(3.0) and s[1] / s[2] == pytest.approx(1.0) and s[2] / s[3] == pytest.approx(5.0)


def test_no_finite_maximiser_is_reported_and_regularisation_fixes_it():
    undefeated = np.array([[0, 2, 1], [0, 0, 3], [0, 1, 0]], dtype=float)  # item 0 never loses
    with pytest.raises(InputError, match="pseudo_count"):
        bradley_terry(undefeated)
    disconnected = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 2], [0, 0, 1, 0]], dtype=float)
    with pytest.raises(InputError, match="strongly connected"):
        bradley_terry(disconnected)
    for w in (undefeated, disconnected):
        s = bradley_terry(w, pseudo_count=0.5)
        np.testing.assert_allclose(s, choix_scores(w + 0.5 * (1 - np.eye(len(w)))), rtol=1e-7)
    assert bradley_terry(undefeated, pseudo_count=0.5).argmax() == 0


def test_maximises_the_likelihood():
    rng = np.random.default_rng(1)
    w = random_connected_wins(rng, 6)
    s = bradley_terry(w)
    best = bradley_terry_log_likelihood(w, s)
    for _ in range(50):
        other = s * np.exp(0.05 * rng.standard_normal(6))
        assert bradley_terry_log_likelihood(w, other) <= best + 1e-12


def test_rgpt_counts_and_scores_proportional_to_inverse_p_values():
    p = np.array([1e-60, 1e-30, 1e-8, 0.01, 0.5, 1.0])
    w = rgpt_win_counts(p, 100)
    i, j = 2, 4
    assert w[i, j] == pytest.approx(100 * p[j] / (p[i] + p[j]))
    assert np.all(np.diag(w) == 0)
    # Sec. 3.2.1: with n_p = 0 the BT scores are proportional to the (inverse, here) p-values
    log_s = bradley_terry(w, return_log=True)
    np.testing.assert_allclose(log_s - log_s[0], -np.log(p) + np.log(p[0]), atol=1e-6)
    eta = np.array([[0.5, 0.9], [0.1, 0.5]])
    w2 = rgpt_win_counts([0.2, 0.6], 10, eta=eta, n_p=4.0)
    np.testing.assert_allclose(w2, [[0, 10 * 0.6 / 0.8 + 4 * 0.9], [10 * 0.2 / 0.8 + 4 * 0.1, 0]])
    with pytest.raises(InputError):
        rgpt_win_counts([0.2, 0.6], 10, eta=np.array([[0.5, 0.9], [0.3, 0.5]]), n_p=1.0)
    # a prior that is not complementary, or of the wrong shape, is refused at n_p = 0 too (it was ignored, where
    # rg_pt refused it); a valid one adds nothing there: the counts equal those without it
    for bad in (np.array([[0.5, 0.9], [0.3, 0.5]]), np.full((3, 3), 0.5)):
        with pytest.raises(InputError, match="eta"):
            rgpt_win_counts([0.2, 0.6], 10, eta=bad, n_p=0.0)
    np.testing.assert_array_equal(rgpt_win_counts([0.2, 0.6], 10, eta=eta), rgpt_win_counts([0.2, 0.6], 10))
    with pytest.raises(InputError):
        rgpt_win_counts([0.2, 0.6], 10, n_p=1.0)
    with pytest.raises(InputError):
        rgpt_win_counts([0.2, 1.6], 10)


def test_tied_groups_far_apart_and_huge_gaps_reach_the_exact_maximiser():
    """RG-PT counts with n_p = 0 fit the model exactly (s proportional to 1 / p), so the maximiser is known
    in closed form. Tied p-values form groups whose within-group draws swamp the curvature between the
    groups; gaps of hundreds of log units need many Newton steps from theta = 0."""
    for p in ([1e-30, 1e-30, 1.0, 1.0], [1e-30] * 3 + [1e-12] * 3 + [1e-3] * 2 + [1.0], [1e-300, 1.0],
              [1e-300, 1e-150, 1e-150, 1.0]):
        p = np.array(p)
        log_s = bradley_terry(rgpt_win_counts(p, 50), return_log=True)
        np.testing.assert_allclose(log_s - log_s[-1], np.log(p[-1]) - np.log(p), rtol=1e-9, atol=1e-6)


def test_bradley_terry_bad_input():
    for bad in (np.zeros((2, 3)), np.zeros((0, 0)), np.array([[0, -1], [1, 0.0]]), np.array([[0, np.nan], [1, 0]])):
        with pytest.raises(InputError):
            bradley_terry(bad)
    with pytest.raises(InputError):
        bradley_terry(np.ones((2, 2)), pseudo_count=-1)
    np.testing.assert_allclose(bradley_terry(np.zeros((1, 1))), [1.0])
    for kw in (dict(pseudo_count=None), dict(pseudo_count="a"), dict(method="bogus")):
        with pytest.raises(InputError):
            bradley_terry(np.zeros((1, 1)), **kw)
    for n_opt in (float("nan"), 2.7, 0, "x"):
        with pytest.raises(InputError, match="n_opt"):
            rgpt_win_counts([0.1, 0.2], n_opt)
    with pytest.raises(InputError, match="loss"):
        nonnegative_lasso(np.zeros((3, 0)), np.ones(3), 0.1, loss="huber")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("seed", range(8))
def test_nonnegative_lasso_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(5, 80)), int(rng.integers(1, 12))
    X = rng.random((n, k))
    y = X @ np.maximum(rng.standard_normal(k), 0) + 0.1 * rng.standard_normal(n)
    for tau in (0.0, 0.1, 1.0, 10.0):
        beta = nonnegative_lasso(X, y, tau)
        assert beta.shape == (k,) and np.all(beta >= 0)
        ref = Lasso(alpha=max(tau, 1e-12) / (2 * n), positive=True, fit_intercept=False, tol=1e-14,
                    max_iter=1_000_000).fit(X, y).coef_

        def objective(b):
            return np.sum((y - X @ b) ** 2) + tau * b.sum()

        assert objective(beta) <= objective(ref) + 1e-7 * max(1.0, objective(ref))
        if np.linalg.matrix_rank(X) == k:  # strictly convex: unique minimiser
            np.testing.assert_allclose(beta, ref, atol=1e-5)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nonnegative_lasso_on_rank_deficient_0_1_designs():
    """0/1 designs as in RG-PT (losses of the candidates one level up), with dependent columns and with
    more columns than rows: the objective is at most scikit-learn's and the KKT conditions hold."""
    cases = [  # the first three made HiGHS's QP on the Gram matrix return a non-optimal point or "unbounded"
        (np.array([[1, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1]], float), np.ones(4), 0.0),
        (np.array([[0, 1, 0], [0, 0, 0], [0, 0, 1], [1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]], float),
         np.array([0, 0, 1, 0, 1, 1, 0], float), 0.1),
        (np.array([[0.1, 0.9, 0.5, 0.3, 0.3]]), np.array([0.7]), 1.0),
    ]
    rng = np.random.default_rng(11)
    for _ in range(30):
        n, k = int(rng.integers(2, 25)), int(rng.integers(2, 30))
        cases.append(((rng.random((n, k)) < 0.4).astype(float), (rng.random(n) < 0.4).astype(float),
                      float(rng.choice([0.0, 0.1, 1.0]))))
    for X, y, tau in cases:
        beta = nonnegative_lasso(X, y, tau)
        ref = Lasso(alpha=max(tau, 1e-12) / (2 * len(y)), positive=True, fit_intercept=False, tol=1e-12,
                    max_iter=200_000).fit(X, y).coef_

        def objective(b):
            return np.sum((y - X @ b) ** 2) + tau * b.sum()

        assert np.all(beta >= 0)
        assert objective(beta) <= objective(ref) + 1e-7 * max(1.0, objective(ref))
        g = 2 * X.T @ (X @ beta - y) + tau  # KKT: g >= 0, and g = 0 where beta > 0
        assert g.min() >= -1e-5 and np.all(np.abs(g[beta > 0]) <= 1e-5)


DEGENERATE_ROWS = ["10111001010011110", "10101000011100000", "01010000100111010", "01011011101110001",
                   "00110010001010110", "00100010010011101", "01100101011101100", "00100001000111100",
                   "00000111111000110", "00001011111100000"]


def test_nonnegative_lasso_degenerate_design_and_the_fallback_form(monkeypatch):
    """tau = 2 max_j x_j^T y exactly: HiGHS's active-set QP cycled on the residual form (millions of
    iterations, with its default qp_regularization_value); the KKT conditions already hold at beta = 0. And
    when one QP form fails, the other one is used; when both fail, the exact active-set method from beta = 0;
    when that cannot certify a point either, SolverError (never an unchecked answer). The Gram form's point is
    checked unpolished too (mutation testing: its cost or the KKT check's gradient without tau passed, the polish
    mending the one and the other)."""
    import bilevel.ranking as ranking

    X = np.array([[float(c) for c in row] for row in DEGENERATE_ROWS])
    y = np.array([float(c) for c in "1100110111"])
    tau = 2 * float(np.max(X.T @ y))
    np.testing.assert_array_equal(nonnegative_lasso(X, y, tau), np.zeros(X.shape[1]))
    rng = np.random.default_rng(2)  # a full-rank design, which both forms solve
    X, y, tau = rng.random((30, 6)), rng.random(30), 0.5
    expected = nonnegative_lasso(X, y, tau)

    def broken(*a):
        raise SolverError("simulated")
    monkeypatch.setattr(ranking, "_residual_qp", broken)
    np.testing.assert_allclose(nonnegative_lasso(X, y, tau), expected, atol=1e-6)
    with monkeypatch.context() as patch:  # the Gram form's point passes the KKT check by itself, unpolished
        patch.setattr(ranking, "_active_set_polish", lambda *a: None)
        np.testing.assert_allclose(nonnegative_lasso(X, y, tau), expected, atol=1e-6)
    monkeypatch.setattr(ranking, "_gram_qp", broken)
    np.testing.assert_allclose(nonnegative_lasso(X, y, tau), expected, atol=1e-6)  # the active-set method from 0
    monkeypatch.setattr(ranking, "_active_set_polish", lambda *a: None)
    with pytest.raises(SolverError, match="simulated"):
        nonnegative_lasso(X, y, tau)


def test_nonnegative_lasso_tau_zero_is_nnls():
    rng = np.random.default_rng(3)
    X, y = rng.random((30, 5)), rng.standard_normal(30)
    np.testing.assert_allclose(nonnegative_lasso(X, y, 0.0), nnls(X, y)[0], atol=1e-6)


def test_nonnegative_lasso_large_tau_gives_zero():
    rng = np.random.default_rng(4)
    X, y = rng.random((20, 4)), rng.random(20)
    tau = 2 * np.max(X.T @ y) + 1  # KKT: beta = 0 is optimal once tau >= 2 max_j x_j^T y
    np.testing.assert_array_equal(nonnegative_lasso(X, y, tau), np.zeros(4))


def test_absolute_loss_variant_one_feature():
    rng = np.random.default_rng(5)
    x, y = rng.random(15) + 0.1, rng.random(15)
    tau = 0.3
    beta = nonnegative_lasso(x[:, None], y, tau, loss="absolute")
    # convex piecewise-linear in b >= 0: its minimum is at 0 or at a breakpoint y_i / x_i
    cands = np.concatenate([[0.0], np.maximum(y / x, 0)])
    obj = [np.abs(y - x * b).sum() + tau * b for b in cands]
    assert np.abs(y - x * beta[0]).sum() + tau * beta[0] == pytest.approx(min(obj), abs=1e-9)


def test_nonnegative_lasso_bad_input():
    X, y = np.ones((4, 2)), np.ones(4)
    with pytest.raises(InputError):
        nonnegative_lasso(X, y, -1.0)
    with pytest.raises(InputError):
        nonnegative_lasso(X, np.ones(3), 0.1)
    with pytest.raises(InputError):
        nonnegative_lasso(np.full((4, 2), np.nan), y, 0.1)
    with pytest.raises(InputError):
        nonnegative_lasso(X, y, 0.1, loss="huber")
    assert nonnegative_lasso(np.zeros((4, 0)), y, 0.1).shape == (0,)


# --------------------------------------------------------------------------------------------------
# Fixes found by a differential fuzz
# --------------------------------------------------------------------------------------------------


def closed_form_log_scores(p):
    """With n_p = 0 the RG-PT counts fit the Bradley-Terry model exactly (w_ij / w_ji = p_j / p_i), so the
    maximiser of Eq. (12) is s proportional to 1 / p: log s = -log p - logsumexp(-log p)."""
    minus_log_p = -np.log(np.maximum(p, 1e-300))  # rgpt_win_counts floors p at 1e-300
    return minus_log_p - logsumexp(minus_log_p)


def worst_cut_imbalance(wins, log_s):
    """Stationarity of Eq. (12) checked cut by cut: at the maximiser, for every set S of items, the wins of
    S over the rest equal their expected number, ``sum_{i in S, j not in S} (w_ij P_ji - w_ji P_ij) = 0``.
    Returns the largest |imbalance| / (sum of both terms) over all non-trivial S. Relative per cut, it
    sees an error in the offset between groups of items whose mutual comparisons are all very unlikely,
    which the gradient (absolute or relative to the total count) does not."""
    m = len(log_s)
    prob = expit(log_s[:, None] - log_s[None, :])
    won, expected = wins * prob.T, wins.T * prob
    worst = 0.0
    for r in range(1, m):
        for subset in itertools.combinations(range(m), r):
            inside = np.zeros(m, dtype=bool)
            inside[list(subset)] = True
            a, b = won[np.ix_(inside, ~inside)].sum(), expected[np.ix_(inside, ~inside)].sum()
            if a + b > 0:
                worst = max(worst, abs(a - b) / (a + b))
    return worst


def test_bradley_terry_accepts_a_start_that_is_already_the_maximiser():
    """Bug: Newton started within 7e-14 of the exact answer, then drifted (its dense solve mixed rounding
    errors of large entries into tiny ones) and raised SolverError, crashing rg_pt."""
    p = np.array([1e-166, 1e-121, 1e-162, 1e-39])
    wins = rgpt_win_counts(p, 1000)
    for max_iter in (None, 1):  # stationary at the start: one check is enough
        log_s = bradley_terry(wins, return_log=True, max_iter=max_iter)
        np.testing.assert_allclose(log_s, closed_form_log_scores(p), rtol=1e-12, atol=1e-9)
    rng = np.random.default_rng(0)  # random RG-PT p-vectors spanning up to 300 orders of magnitude
    for _ in range(60):
        p = 10.0 ** -rng.uniform(0, 300, int(rng.integers(2, 9)))
        log_s = bradley_terry(rgpt_win_counts(p, int(rng.choice([1, 1000]))), return_log=True)
        np.testing.assert_allclose(log_s, closed_form_log_scores(p), rtol=1e-12, atol=1e-9)


def test_bradley_terry_newton_accepts_convergence_after_its_last_step():
    """Bug: when the point reached by the last of ``max_iter`` Newton steps was already stationary (its step
    within tol plus a rounding floor of 5e-15), the final check raised "floating point cannot resolve every
    log-score" instead of returning it. Oracle: choix; the answer with max_iter one short of what Newton
    needs still raises "did not converge"."""
    rng = np.random.default_rng(0)
    wins = rng.integers(0, 5, (4, 4)).astype(float)
    np.fill_diagonal(wins, 0.0)
    needed = None
    for max_iter in range(1, 50):
        try:
            log_s = bradley_terry(wins, max_iter=max_iter, return_log=True)
        except SolverError as exc:  # too few steps: the honest error, never "cannot resolve" for these counts
            assert "did not converge" in str(exc), (max_iter, str(exc))
            continue
        needed = max_iter
        break
    assert needed is not None and needed > 1
    np.testing.assert_allclose(np.exp(log_s), choix_scores(wins), rtol=1e-6, atol=1e-12)


def test_mm_that_does_not_converge_points_to_newton():
    """MM ran its 100,000 iterations (15 s) and failed on a chain whose scores are 20 orders of magnitude apart,
    and its error named only max_iter and pseudo_count; Newton, the default, solves it in milliseconds. The
    error now names method='newton', and Newton matches the closed form of exactly fitting counts."""
    p = 10.0 ** -(20.0 * np.arange(6))
    wins = rgpt_win_counts(p, 1000)
    with pytest.raises(SolverError, match="method='newton'"):
        bradley_terry(wins, method="mm", max_iter=2000)
    np.testing.assert_allclose(bradley_terry(wins, return_log=True), closed_form_log_scores(p), rtol=1e-12, atol=1e-9)


def test_rg_pt_end_to_end_with_exactly_fitting_counts():
    from bilevel.certify.pipelines import rg_pt

    rng = np.random.default_rng(0)
    m = 8
    losses = (rng.uniform(size=(1000, m)) < np.linspace(0, 0.55, m)).astype(float)
    result = rg_pt(losses, 0.5, 0.1, aux=np.linspace(1, 0, m), seed=0)  # raised SolverError
    assert result.method == "rgpt"


def test_bradley_terry_never_returns_a_non_maximiser():
    """Bug: the line search shrank the step to ~0 and that was read as convergence: the answer was off by
    50 (the trust-region cap) in log-score. Exact fits against the closed form; counts that do not fit the
    model (a hard 0/1 prior against the data, noise) against the cut-by-cut stationarity conditions."""
    p = 10.0 ** -np.array([70.0, 191, 8, 14])
    log_s = bradley_terry(rgpt_win_counts(p, 1), return_log=True)
    np.testing.assert_allclose(log_s, closed_form_log_scores(p), rtol=1e-12, atol=1e-9)  # [-278.6, 0, -421.4, -407.6]
    rng = np.random.default_rng(1)
    for _ in range(40):
        m = int(rng.integers(3, 7))
        p = 10.0 ** -rng.integers(0, 201, m).astype(float)
        np.testing.assert_allclose(bradley_terry(rgpt_win_counts(p, 1), return_log=True), closed_form_log_scores(p),
                                   rtol=1e-12, atol=1e-9)
        eta = np.triu(rng.choice([0.0, 0.5, 1.0], size=(m, m)), 1)
        eta = eta + np.tril(1.0 - eta.T, -1)
        wins = rgpt_win_counts(10.0 ** -rng.uniform(0, 300, m), 1000, eta=eta, n_p=float(rng.choice([0.5, 50])))
        assert worst_cut_imbalance(wins, bradley_terry(wins, return_log=True)) < 1e-9
        theta = rng.uniform(0, rng.choice([50.0, 300.0]), m)  # noisy counts, scores 1e-130 apart
        wins = 100 * expit(theta[:, None] - theta[None, :]) * rng.uniform(0.3, 3, (m, m))
        np.fill_diagonal(wins, 0.0)
        assert worst_cut_imbalance(wins, bradley_terry(wins, return_log=True)) < 1e-9


def test_bradley_terry_matches_independent_maximisers_with_a_prior():
    """RG-PT counts with a prior (Eq. (11), n_p > 0) do not fit the model exactly: Newton against scipy's BFGS
    on the log-likelihood in log space, and against choix."""
    rng = np.random.default_rng(2)
    for _ in range(15):
        m = int(rng.integers(3, 8))
        eta = np.triu(rng.uniform(size=(m, m)), 1)
        eta = eta + np.tril(1.0 - eta.T, -1)
        wins = rgpt_win_counts(10.0 ** -rng.uniform(0, 8, m), int(rng.integers(1, 200)), eta=eta,
                               n_p=float(rng.uniform(0.5, 20)))

        def negative_log_likelihood(free):
            theta = np.concatenate([[0.0], free])
            diff = theta[:, None] - theta[None, :]
            prob = expit(diff)
            return np.sum(wins * np.logaddexp(0.0, -diff)), np.sum(wins.T * prob - wins * prob.T, axis=1)[1:]

        res = minimize(negative_log_likelihood, np.zeros(m - 1), jac=True, method="BFGS",
                       options=dict(gtol=1e-12, maxiter=10_000))
        theta = np.concatenate([[0.0], res.x])
        log_s = bradley_terry(wins, return_log=True)
        np.testing.assert_allclose(log_s, theta - logsumexp(theta), atol=1e-5)
        np.testing.assert_allclose(np.exp(log_s), choix_scores(wins), rtol=1e-6, atol=1e-12)


def test_bradley_terry_raises_instead_of_returning_an_unconverged_answer():
    rng = np.random.default_rng(3)
    wins = random_connected_wins(rng, 6)  # does not fit the model: the start is not the maximiser
    with pytest.raises(SolverError, match="did not converge"):
        bradley_terry(wins, max_iter=1)
    np.testing.assert_allclose(bradley_terry(wins), choix_scores(wins), rtol=1e-6, atol=1e-9)


def test_nonnegative_lasso_small_scale_closed_forms():
    """Bug: one-column problems with a column of norm 0.01-0.05 raised SolverError (HiGHS's default
    qp_regularization_value 1e-7 is not small next to a curvature of 2e-4). One column: the minimiser of
    (1 - x b)^2 + tau b over b >= 0 is max(0, (2 x - tau) / (2 x^2))."""
    for x, tau in [(0.01, 0.0), (0.01, 0.001), (0.05, 0.0), (0.01, 0.019), (0.02, 0.05)]:
        beta = nonnegative_lasso([[x]], [1.0], tau)
        np.testing.assert_allclose(beta, [max(0.0, (2 * x - tau) / (2 * x * x))], rtol=1e-8)
    np.testing.assert_allclose(nonnegative_lasso([[0.01]], [1.0], 0.001), [95.0], rtol=1e-8)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nonnegative_lasso_is_scale_invariant_and_matches_oracles_at_small_scales():
    """Eq. (13) in units scaled by s: beta(s X, s y, s^2 tau) = beta(X, y, tau). Scaled 0/1 designs and
    designs with entries ~0.01 (which raised SolverError) against scipy's NNLS (tau = 0) and scikit-learn's
    Lasso(positive=True, alpha=tau / (2 n)): the objective is at most theirs (to 1e-9 ||y||^2), and equal
    coefficients where the minimiser is unique and well conditioned."""
    rng = np.random.default_rng(4)
    for trial in range(60):
        n, k = int(rng.integers(1, 25)), int(rng.integers(1, 12))
        kind = trial % 3
        if kind == 0:  # entries ~0.01
            X, y = rng.uniform(0, 0.03, (n, k)), rng.uniform(0, 1, n)
        elif kind == 1:  # RG-PT-like losses on a small scale
            X, y = rng.uniform(0, 0.3, (n, k)), rng.uniform(0, 0.3, n)
        else:  # 0/1 design scaled by 0.02
            X, y = (rng.random((n, k)) < 0.4).astype(float), (rng.random(n) < 0.4).astype(float)
            tau = float(rng.choice([0.0, 0.1, 1.0]))
            np.testing.assert_allclose(nonnegative_lasso(0.02 * X, 0.02 * y, 0.02 ** 2 * tau),
                                       nonnegative_lasso(X, y, tau), rtol=1e-6, atol=1e-7)
            X, y = 0.02 * X, 0.02 * y
        tau = float(rng.choice([0.0, 1e-4, 1e-2, 0.1]))
        beta = nonnegative_lasso(X, y, tau)
        if tau == 0.0:
            ref = nnls(X, y, maxiter=10_000)[0]
        else:
            ref = Lasso(alpha=tau / (2 * n), positive=True, fit_intercept=False, tol=1e-14,
                        max_iter=1_000_000).fit(X, y).coef_

        def objective(b):
            return np.sum((y - X @ b) ** 2) + tau * b.sum()

        assert np.all(beta >= 0)
        assert objective(beta) <= objective(ref) + 1e-9 * (y @ y)
        if np.linalg.matrix_rank(X) == k and np.linalg.cond(X) < 1e4:
            np.testing.assert_allclose(beta, ref, rtol=1e-6, atol=1e-7 * max(1.0, np.abs(ref).max()))


def test_rg_pt_end_to_end_with_a_small_scale_lasso():
    from bilevel.certify.pipelines import rg_pt

    rng = np.random.default_rng(932)
    rng.choice([3, 4, 6, 10, 20])
    rng.choice([3, 5, 7, 10])
    losses = rng.uniform(0, 0.3, (4, 10))
    assert rg_pt(losses, 0.5, 0.2, aux=np.linspace(1, 0, 10), seed=0).method == "rgpt"  # raised SolverError


@pytest.mark.parametrize("call, name", [
    (lambda: bradley_terry(np.ones((2, 2)), tol=float("nan")), "tol"),
    (lambda: bradley_terry(np.ones((2, 2)), tol=-1), "tol"),
    (lambda: bradley_terry(np.ones((2, 2)), tol=True), "tol"),
    (lambda: bradley_terry(np.ones((2, 2)), max_iter=0), "max_iter"),
    (lambda: bradley_terry(np.ones((2, 2)), max_iter=-5), "max_iter"),
    (lambda: bradley_terry(np.ones((2, 2)), max_iter=float("nan")), "max_iter"),
    (lambda: bradley_terry(np.ones((2, 2)), max_iter="x"), "max_iter"),
    (lambda: bradley_terry(np.ones((2, 2)), max_iter=True), "max_iter"),
    (lambda: bradley_terry([["a"]]), "wins"),
    (lambda: rgpt_win_counts([0.1, 0.2], 10, n_p="x"), "n_p"),
    (lambda: rgpt_win_counts([0.1, 0.2], 10, n_p=None), "n_p"),
    (lambda: rgpt_win_counts([0.1, 0.2], 10, eta=np.full((2, 2), 0.5), n_p=True), "n_p"),
    (lambda: rgpt_win_counts([0.1, 0.2], 10, n_p=float("inf")), "n_p"),
    (lambda: rgpt_win_counts(["a", "b"], 10), "p_values_opt"),
    (lambda: rgpt_win_counts([0.1, 0.2], 10, eta=[["a", "b"], ["c", "d"]], n_p=1.0), "eta"),
    (lambda: nonnegative_lasso([["a"]], ["b"], 0.1), "X"),
    (lambda: nonnegative_lasso([[1.0]], ["b"], 0.1), "y"),
    (lambda: nonnegative_lasso([[1.0]], [1.0], True), "tau"),
    (lambda: nonnegative_lasso([[1.0]], [1.0], None), "tau"),
])
def test_bad_arguments_raise_input_error_naming_them(call, name):
    with pytest.raises(InputError, match=name):
        call()


def test_absolute_loss_is_scale_invariant_and_matches_linprog():
    """Bug: the LAD LP went to HiGHS unscaled, and entries of 1e-10 fell below HiGHS's matrix tolerance:
    beta = 0 came back for an exact fit. In units scaled by s, beta(s X, s y, s tau) = beta(X, y, tau), and at
    unit scale the objective matches scipy's linprog on the plain LP."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(11)
    for trial in range(12):
        n, k = int(rng.integers(2, 15)), int(rng.integers(1, 6))
        X, y = rng.random((n, k)), rng.random(n)
        tau = float(rng.choice([0.0, 0.1, 1.0]))
        res = linprog(np.r_[np.full(k, tau), np.ones(2 * n)], A_eq=np.hstack([X, np.eye(n), -np.eye(n)]), b_eq=y,
                      bounds=(0, None), method="highs")

        def objective(b, s=1.0):
            return np.abs(s * y - s * X @ b).sum() + s * tau * b.sum()

        beta = nonnegative_lasso(X, y, tau, loss="absolute")
        assert objective(beta) == pytest.approx(res.fun, abs=1e-9)
        for s in (1e-10, 1e10):
            scaled = nonnegative_lasso(s * X, s * y, s * tau, loss="absolute")
            assert objective(scaled) == pytest.approx(res.fun, abs=1e-8), (trial, s)
    np.testing.assert_allclose(nonnegative_lasso([[1e-10], [2e-10], [3e-10]], [1.0, 2.0, 3.0], 0.0, loss="absolute"),
                               [1e10], rtol=1e-9)


@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_nonnegative_lasso_at_the_ends_of_the_float_range(loss):
    # np.linalg.norm squares the entries: 1e155 gave norms of inf (beta NaN or 0) and 1e-170 a norm of 0
    for x, y in [(1.0, 1e155), (1e155, 1.0), (1.0, 1e-170), (1e-170, 1.0)]:
        np.testing.assert_allclose(nonnegative_lasso([[x], [2 * x]], [y, 2 * y], 0.0, loss=loss), [y / x], rtol=1e-9)


@pytest.mark.parametrize("method", ["newton", "mm"])
def test_bradley_terry_with_counts_near_the_float_limit(method):
    # Eq. (12) times a constant has the same maximiser; w + w^T overflowed at 1e308 and the fit raised SolverError
    wins = np.array([[0, 3, 1], [2, 0, 5], [4, 1, 0]], dtype=float)
    np.testing.assert_allclose(bradley_terry(wins * 1e300, method=method), bradley_terry(wins, method=method),
                               rtol=1e-8)
    np.testing.assert_allclose(bradley_terry([[0, 1e308, 1], [1e308, 0, 1], [1, 1, 0]], method=method),
                               np.full(3, 1 / 3), rtol=1e-8)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nonnegative_lasso_with_tau_just_below_the_zero_threshold():
    """Bug: for tau just below 2 max_j x_j^T y (the smallest tau with beta = 0) the optimum is a small beta whose
    gradient terms are ~1e-4 of the data; HiGHS returned beta = 0 as optimal, or "unbounded", for both QP forms,
    and nonnegative_lasso raised SolverError (one column: (1 - b)^2 + 1.9999 b has b = 5e-5). One column
    against the closed form max(0, (2 x^T y - tau) / (2 x^T x)), random designs against scikit-learn."""
    for x, y in [([1.0], [1.0]), ([1.0, 1.0], [1.0, 1.0]), ([1.0, 2.0], [1.0, 1.0])]:
        x, y = np.array(x), np.array(y)
        for fraction in (0.9999, 0.99995, 0.99999):
            tau = 2 * (x @ y) * fraction
            np.testing.assert_allclose(nonnegative_lasso(x[:, None], y, tau), [(2 * x @ y - tau) / (2 * x @ x)],
                                       rtol=1e-4)
    rng = np.random.default_rng(5)
    for trial in range(20):
        n, k = int(rng.integers(1, 8)), int(rng.integers(1, 5))
        X, y = rng.random((n, k)), rng.random(n)
        tau = 2 * float(np.max(X.T @ y)) * (1 - 10.0 ** -rng.uniform(3, 5))
        beta = nonnegative_lasso(X, y, tau)
        ref = Lasso(alpha=tau / (2 * n), positive=True, fit_intercept=False, tol=1e-14,
                    max_iter=1_000_000).fit(X, y).coef_

        def objective(b):
            return np.sum((y - X @ b) ** 2) + tau * b.sum()

        assert np.all(beta >= 0) and objective(beta) <= objective(ref) + 1e-9 * (y @ y), trial


def test_bradley_terry_log_likelihood_refuses_non_numeric_scores():
    """Bug: the docstring promises InputError on bad input, but scores holding a string raised numpy's bare
    ValueError (no name) and complex scores a TypeError."""
    wins = np.array([[0.0, 2.0], [1.0, 0.0]])
    for scores in (["a", 1.0], [1 + 1j, 1.0], np.array([1.0, None], dtype=object)):
        with pytest.raises(InputError, match="scores"):
            bradley_terry_log_likelihood(wins, scores)
    assert bradley_terry_log_likelihood(wins, [2, 1]) == pytest.approx(2 * np.log(2 / 3) + np.log(1 / 3))


def test_bradley_terry_log_likelihood_takes_log_scores_beyond_the_float_range():
    """Gap: the log-likelihood took scores only, so the log-scores bradley_terry returns with return_log=True
    for items hundreds of orders of magnitude apart (their scores underflow to 0) could not be evaluated.
    Oracle: the two-item closed form ``a log sigma(d) + b log sigma(-d)`` (scipy's log_expit), and the scores
    form on ordinary values."""
    from scipy.special import log_expit

    a, b = 3.0, 2.0
    wins = np.array([[0.0, a], [b, 0.0]])
    for d in (0.7, 40.0, 1000.0, -2000.0):
        got = bradley_terry_log_likelihood(wins, log_scores=[d + 5.0, 5.0])
        assert got == pytest.approx(a * log_expit(d) + b * log_expit(-d), rel=1e-12)
    rng = np.random.default_rng(4)
    w = random_connected_wins(rng, 5)
    s = rng.uniform(0.1, 3.0, 5)
    assert bradley_terry_log_likelihood(w, log_scores=np.log(s)) == pytest.approx(bradley_terry_log_likelihood(w, s))
    for kwargs in ({}, {"scores": s, "log_scores": np.log(s)}, {"log_scores": [0.0, np.inf, 0, 0, 0]},
                   {"log_scores": [0.0, 1.0]}):
        with pytest.raises(InputError, match="scores"):
            bradley_terry_log_likelihood(w, **kwargs)


def test_an_int_too_large_for_a_float_is_an_input_error():
    """Bug: a Python int beyond the float range in wins, X or y escaped as numpy's OverflowError ('int too large
    to convert to float'); n_opt=10**400 was already an InputError (as_number)."""
    for call, name in [(lambda: bradley_terry([[0, 10**400], [1, 0]]), "wins"),
                       (lambda: nonnegative_lasso([[10**400]], [1.0], 0.1), "X"),
                       (lambda: nonnegative_lasso([[1.0]], [10**400], 0.1), "y"),
                       (lambda: rgpt_win_counts([0.1, 0.2], 10, eta=[[0, 10**400], [0, 0]], n_p=1.0), "eta")]:
        with pytest.raises(InputError, match=name):
            call()


@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_nonnegative_lasso_optimum_beyond_the_float_range_is_an_error(loss):
    # The optimum 1e600 is no float: beta = inf came back silently
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(InputError, match="overflows a float"):
            nonnegative_lasso([[1e-300], [1e-300]], [1e300, 1e300], 0.0, loss=loss)


def test_return_log_must_be_a_bool():
    wins = np.array([[0, 3], [1, 0]])
    assert np.allclose(bradley_terry(wins, return_log=np.bool_(True)), np.log(bradley_terry(wins)))
    for bad in ("no", 1, None):  # "no" was truthy and returned the log-scores
        with pytest.raises(InputError, match="return_log must be True or False"):
            bradley_terry(wins, return_log=bad)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nonnegative_lasso_with_more_columns_than_rows():
    """Bug: with n < k the directions of beta in the null space of X have no curvature but HiGHS's regularisation,
    which had been lowered to 1e-10: HiGHS called both QP forms "non-convex" (status "Not Set") or cycled in the
    residual form, and nonnegative_lasso raised SolverError on ~5% of random n < k designs (the 0/1 design below
    included, with y = X beta for a non-negative beta). The objective is at most scikit-learn's
    Lasso(positive=True, alpha=tau / (2 n)) and the KKT conditions of Eq. (13) hold."""
    rows = ["1011011000011", "0101011000001", "0101010001111", "1000000100011", "0001001110000", "0000001111110"]
    X = np.array([[float(c) for c in row] for row in rows])
    y = np.array([3.4120792443394943, 0.9869658466672016, 3.6461368773534417, 1.387841467110109,
                  0.8543199130264727, 2.994119114350042])
    cases = [(X, y, 0.01)]
    rng = np.random.default_rng(1)
    for trial in range(90):
        n = int(rng.integers(1, 6))
        k = int(rng.integers(n + 1, 16))
        X = rng.standard_normal((n, k)) if trial % 2 else (rng.random((n, k)) < 0.5).astype(float)
        cases.append((X, rng.random(n), float(rng.choice([1e-4, 0.01, 0.1]))))
    for X, y, tau in cases:
        beta = nonnegative_lasso(X, y, tau)
        ref = Lasso(alpha=tau / (2 * len(y)), positive=True, fit_intercept=False, tol=1e-14,
                    max_iter=1_000_000).fit(X, y).coef_

        def objective(b):
            return np.sum((y - X @ b) ** 2) + tau * b.sum()

        assert np.all(beta >= 0) and objective(beta) <= objective(ref) + 1e-9 * max(1.0, y @ y)
        g = 2 * X.T @ (X @ beta - y) + tau  # KKT: g >= 0, and g = 0 where beta > 0
        assert g.min() >= -1e-5 and np.all(np.abs(g[beta > 0]) <= 1e-5)


def newton_step_in_600_digits(wins, log_s):
    """Largest entry of the exact Newton step of Eq. (12) at log_s (item 0 pinned), in 600-digit decimals:
    the float gradient of an item whose comparisons are all far smaller than the rest's is rounding."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 600
        m, th = len(log_s), [Decimal(float(t)) for t in log_s]
        w = [[Decimal(float(x)) for x in row] for row in wins]
        p = [[1 / (1 + (th[j] - th[i]).exp()) for j in range(m)] for i in range(m)]
        grad = [sum(w[j][i] * p[i][j] - w[i][j] * p[j][i] for j in range(m) if j != i) for i in range(m)]
        hess = [[-(w[i][j] + w[j][i]) * p[i][j] * p[j][i] for j in range(m)] for i in range(m)]
        for i in range(m):
            hess[i][i] = -sum(hess[i][j] for j in range(m) if j != i)
        a = [hess[i][1:] + [-grad[i]] for i in range(1, m)]
        n = m - 1
        for k in range(n):  # Gaussian elimination with partial pivoting
            piv = max(range(k, n), key=lambda r: abs(a[r][k]))
            a[k], a[piv] = a[piv], a[k]
            for r in range(k + 1, n):
                f = a[r][k] / a[k][k]
                a[r] = [x - f * y for x, y in zip(a[r], a[k])]
        x = [Decimal(0)] * n
        for k in range(n - 1, -1, -1):
            x[k] = (a[k][n] - sum(a[k][j] * x[j] for j in range(k + 1, n))) / a[k][k]
        return max(abs(float(v)) for v in x)


def test_bradley_terry_with_a_tiny_pseudo_count():
    """Bug: with pseudo_count=1e-12 Newton reached the maximiser but its step for the item with only pseudo
    comparisons stayed ~1e-10 from rounding, so max|step| <= tol never held: SolverError. With 1e-60..1e-200
    that item's float gradient was 0 (rounding), and a wrong answer (off by 38..77 in log-score) was returned.
    Oracle: item 2 wins and loses only pseudo counts, so P_20 + P_21 = 1 (it sits midway between 0 and 1 in
    log-score), and item 0's stationarity reduces to one equation in the gap g = log s_1 - log s_0."""
    from scipy.optimize import brentq

    for c in (1e-12, 1e-15):
        log_s = bradley_terry([[0, 0, 0], [2, 0, 0], [0, 0, 0]], pseudo_count=c, return_log=True)
        gap = brentq(lambda g: (2 + 2 * c) * expit(-g) + 2 * c * expit(-g / 2) - 2 * c, 0.0, 200.0, xtol=1e-13)
        np.testing.assert_allclose(log_s[1] - log_s[0], gap, rtol=1e-12)
        assert abs(log_s[2] - (log_s[0] + log_s[1]) / 2) < 1e-6
    for c in (1e-60, 1e-100, 1e-200):  # item 2's count part cancels exactly: answered (was refused)
        log_s = bradley_terry([[0, 0, 0], [2, 0, 0], [0, 0, 0]], pseudo_count=c, return_log=True)
        gap = brentq(lambda g: (2 + 2 * c) * expit(-g) + 2 * c * expit(-g / 2) - 2 * c, 0.0, 2000.0, xtol=1e-13)
        np.testing.assert_allclose(log_s[1] - log_s[0], gap, rtol=1e-12)
        assert abs(log_s[2] - (log_s[0] + log_s[1]) / 2) < 1e-9
    rng = np.random.default_rng(0)  # sparse random graphs: every answer is a maximiser to 1e-6 in 600 digits
    answered = 0
    for _ in range(40):
        m = int(rng.integers(3, 7))
        wins = rng.gamma(1.0, 3.0, (m, m)) * (rng.random((m, m)) < 0.3)
        np.fill_diagonal(wins, 0.0)
        c = 10.0 ** -float(rng.choice([12, 20, 30, 50, 100, 200]))
        try:
            log_s = bradley_terry(wins, pseudo_count=c, return_log=True)
        except SolverError:
            continue
        answered += 1
        assert newton_step_in_600_digits(wins + c * (1 - np.eye(m)), log_s) < 1e-6
    assert answered >= 25


@pytest.mark.parametrize("method", ["newton", "mm"])
def test_scaling_huge_counts_keeps_tiny_positive_counts(method):
    """Bug: counts above 1e150 were scaled to a maximum of 1, which turned 1e-200 into 0, and a strongly
    connected graph was refused as having no finite maximiser. The closed form of two items,
    log s_0 - log s_1 = log(w_01 / w_10) = 400 log 10, is beyond a float's score range but not its log-score
    range (see test_bradley_terry_with_log_score_gaps_beyond_745)."""
    log_s = bradley_terry([[0, 1e200], [1e-200, 0]], method=method, return_log=True)
    np.testing.assert_allclose(log_s[0] - log_s[1], 400 * np.log(10), rtol=1e-12)
    with pytest.raises(InputError, match="span more orders of magnitude"):  # 1e-300 * 1e150 / 1e300 underflows
        bradley_terry([[0, 1e300], [1e-300, 0]], method=method)
    log_s = bradley_terry([[0, 1e200], [1e-100, 0]], method=method, return_log=True)  # 300 log 10 fits
    np.testing.assert_allclose(log_s[0] - log_s[1], 300 * np.log(10), rtol=1e-12)


def exact_nonnegative_lasso(X, y, tau):
    """The minimiser of Eq. (13) in exact rational arithmetic (the float inputs are exact rationals): on each
    support S of at most n columns the candidate solves X_S^T X_S b = X_S^T y - tau / 2; the minimiser is the
    candidate with b_S > 0 and 2 x_j^T (X b - y) + tau >= 0 off S (unique for random continuous designs)."""
    from fractions import Fraction

    n, k = X.shape
    xf = [[Fraction(float(X[i, j])) for j in range(k)] for i in range(n)]
    t = Fraction(float(tau))
    xty = [sum(xf[i][j] * Fraction(float(y[i])) for i in range(n)) for j in range(k)]
    gram = [[sum(xf[i][a] * xf[i][b] for i in range(n)) for b in range(k)] for a in range(k)]
    for r in range(min(n, k) + 1):
        for support in itertools.combinations(range(k), r):
            a = [[gram[p][q] for q in support] + [xty[p] - t / 2] for p in support]
            for c in range(r):  # Gauss-Jordan elimination
                pivot = next((i for i in range(c, r) if a[i][c] != 0), None)
                if pivot is None:
                    break
                a[c], a[pivot] = a[pivot], a[c]
                for i in range(r):
                    if i != c and a[i][c] != 0:
                        f = a[i][c] / a[c][c]
                        a[i] = [u - f * w for u, w in zip(a[i], a[c])]
            else:
                b = [Fraction(0)] * k
                for c, j in enumerate(support):
                    b[j] = a[c][r] / a[c][c]
                if all(b[j] > 0 for j in support) and all(
                        2 * (sum(gram[j][q] * b[q] for q in support) - xty[j]) + t >= 0
                        for j in range(k) if j not in support):
                    return np.array([float(v) for v in b])
    raise AssertionError("no support satisfies the KKT conditions")


def test_nonnegative_lasso_support_with_a_tiny_tau_and_more_columns_than_rows():
    """Bug: with n < k and tau <= ~1e-6 HiGHS's Hessian regularisation (qp_regularization_value 1e-10 or 1e-7,
    a ridge term 1e-7 beta_j in the gradient) outweighed the Lasso penalty in the null space of X, and its point
    passed the KKT check (tolerance 1e-6, above tau): a different support and coefficients off by up to 2.7 on
    38 of 200 random designs (e.g. supports [2 3] instead of [5 7]). Oracle: the exact minimiser in rational
    arithmetic; support equal and coefficients to 1e-8 for tau down to 1e-10 (a KKT margin of ~1e-14 relative to
    the data, which floats no longer resolve, is needed below that)."""
    rng = np.random.default_rng(0)
    for trial in range(120):
        n = int(rng.integers(1, 5))
        k = int(rng.integers(n + 1, 9))
        X = rng.standard_normal((n, k)) if trial % 2 else rng.random((n, k))
        y = rng.random(n)
        tau = float(10.0 ** -rng.choice([4, 6, 8, 10]))
        beta, ref = nonnegative_lasso(X, y, tau), exact_nonnegative_lasso(X, y, tau)
        np.testing.assert_array_equal(np.flatnonzero(beta), np.flatnonzero(ref), err_msg=f"trial {trial}")
        np.testing.assert_allclose(beta, ref, rtol=1e-8, atol=1e-10, err_msg=f"trial {trial}")


WIDE_ROWS = ["100101101000101011000100000100101001", "100100011011100000111100111000001100",
             "100010000011110001000010011010011000", "011011001101010101100101110100000010",
             "000111100000000100101011000110100000", "101010101101110110100100100000001111",
             "001101001010001110100000011010101100", "000100101110001110101001111010000011",
             "000100010000100000100100110101111001", "110001000100001101011011000001011110",
             "111010010110101001000110000101011001", "001010010001010011100100001101110001",
             "010010110011010100000001000000000001", "000001010001101011000100010011000010",
             "101111011000000000110111111000001010", "010001011000000010010010010010100011",
             "000111011011010100000010010001010101", "010010011110001011100101000110010011",
             "111110000111010000000111010011100010", "000100110011000011000101000000011111",
             "101100010100000101001000011100011000", "010010000010101010000001010110101000",
             "110101101111011100011110010110101011", "100001000100001000100000110011000001",
             "000001001000100000101000000000101000"]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_nonnegative_lasso_when_every_highs_run_fails():
    """Bug: on this 25 x 36 0/1 design with tau = 1e-6 every HiGHS run failed (residual form "Solve error", Gram
    form a point violating the KKT conditions by 1.35, in all four refinement rounds): SolverError. The exact
    active-set method from the best point solves it. Oracles: scikit-learn's objective and the KKT conditions."""
    X = np.array([[float(c) for c in row] for row in WIDE_ROWS])
    y = np.array([float(c) for c in "1001001100001011000000110"])
    tau = 1e-6
    beta = nonnegative_lasso(X, y, tau)
    ref = Lasso(alpha=tau / (2 * len(y)), positive=True, fit_intercept=False, tol=1e-14,
                max_iter=1_000_000).fit(X, y).coef_

    def objective(b):
        return np.sum((y - X @ b) ** 2) + tau * b.sum()

    assert np.all(beta >= 0) and objective(beta) <= objective(ref) + 1e-12 * (y @ y)
    g = 2 * X.T @ (X @ beta - y) + tau  # KKT: g >= 0, and g = 0 where beta > 0
    assert g.min() >= -1e-10 and np.all(np.abs(g[beta > 0]) <= 1e-10)


def sparse_random_wins(rng):
    m = int(rng.integers(3, 10))
    density = float(rng.choice([0.2, 0.4, 0.7]))
    wins = rng.gamma(1.0, 3.0, (m, m)) * (rng.random((m, m)) < density)
    np.fill_diagonal(wins, 0.0)
    return wins


def test_bradley_terry_converges_with_a_pseudo_count_of_1e_30():
    """Bug: where items are linked mostly by the pseudo count alone, their Newton step is ~1e+11 (curvature ~1e-30);
    the step was scaled down to 50 as a whole, so it moved those items alone, and Newton zig-zagged to max_iter:
    SolverError "did not converge" on 10 of 300 sparse random graphs with pseudo_count=1e-30 (13 with 1e-60), and
    on the two graphs below for every pseudo_count from 1e-20 to 1e-60. The maximiser exists (the pseudo counts
    make the graph complete). Oracles: choix's ILSR in log-scores on the first graph (on the second it does not
    converge from 1e-10 on: RuntimeError after 100000 iterations); the exact Newton step at the answer in
    600-digit decimals (below 1e-9: the answer is the maximiser to ~1e-9); the cut-by-cut stationarity."""
    graphs = [[[0, 0, 0, 0], [0, 0, 12.22, 1.27], [0, 0, 0, 0], [0, 1.02, 1.16, 0]],
              [[0, 0, 0, 0], [6.42, 0, 2.75, 0], [3.52, 5.79, 0, 0], [0, 0, 0, 0]]]
    for first, wins in zip((True, False), map(np.array, graphs)):
        for c in (1e-20, 1e-30, 1e-60):
            log_s = bradley_terry(wins, pseudo_count=c, return_log=True)
            regularised = wins + c * (1 - np.eye(4))
            if first:
                params = choix_log_scores(regularised)
                np.testing.assert_allclose(log_s - log_s.mean(), params - params.mean(), atol=1e-9)
            assert newton_step_in_600_digits(regularised, log_s) < 1e-9
            assert worst_cut_imbalance(regularised, log_s) < 1e-9
    rng = np.random.default_rng(0)  # every answer is stationary; the rest are refused as unresolvable
    answered = 0
    for _ in range(100):
        wins = sparse_random_wins(rng)
        try:
            log_s = bradley_terry(wins, pseudo_count=1e-30, return_log=True)
        except SolverError as exc:
            assert "cannot resolve" in str(exc)
            continue
        answered += 1
        assert worst_cut_imbalance(wins + 1e-30 * (1 - np.eye(len(wins))), log_s) < 1e-9
    assert answered >= 90


def test_bradley_terry_with_log_score_gaps_beyond_745():
    """Bug: win probabilities below 1e-308 underflowed (expit(-745) = 0). Newton formed w_ij * P_ji as a product,
    so a pair whose gap at the maximiser exceeds ~745 (counts 1e150 against 1e-180) had neither gradient nor
    curvature: SolverError "the scores span more orders of magnitude than a float can resolve". MM worked in
    scores, which underflowed to 0: N / (0 + 0) gave NaN and it ran to max_iter. Oracle: two items and chains of
    compared pairs, whose maximiser is the closed form log s_i - log s_j = log(w_ij / w_ji) pair by pair (counts
    fitting the model exactly), and the cut-by-cut stationarity for noisy counts. (MM converges on two items;
    on chains it stays too slow for gaps of hundreds, as documented.) The scores, not logs, of such an answer
    underflow, with a RuntimeWarning."""
    two_items = [[0, 1e150], [1e-180, 0]]
    cases = [(two_items, [330 * np.log(10)]),
             ([[0, 1e150, 0], [1e-200, 0, 1e100], [0, 1e-100, 0]], [350 * np.log(10), 200 * np.log(10)]),
             ([[0, 1e100, 0, 0], [1e-150, 0, 1e150, 0], [0, 1e-150, 0, 1e150], [0, 0, 1e-100, 0]],
              [250 * np.log(10), 300 * np.log(10), 250 * np.log(10)])]
    for wins, gaps in cases:
        log_s = bradley_terry(wins, return_log=True)
        np.testing.assert_allclose(-np.diff(log_s), gaps, rtol=1e-12)
        assert logsumexp(log_s) == pytest.approx(0.0, abs=1e-12)
    for wins, gap in [(two_items, 330 * np.log(10)), ([[0, 1e10], [1e-310, 0]], 320 * np.log(10))]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no NaN from 0 / 0
            log_s = bradley_terry(wins, method="mm", return_log=True)
        assert log_s[0] - log_s[1] == pytest.approx(gap, rel=1e-12)
    for method in ("newton", "mm"):
        with pytest.warns(RuntimeWarning, match="return_log=True"):
            scores = bradley_terry(two_items, method=method)
        np.testing.assert_array_equal(scores, [1.0, 0.0])
    theta = np.array([0.0, 300.0, 600.0, 900.0])  # noisy counts from scores 1e-130 apart
    wins = 100 * expit(theta[:, None] - theta[None, :]) * np.array([[1, 2, 1, 3], [1, 1, 2, 1], [3, 1, 1, 2],
                                                                   [1, 2, 1, 1]])
    np.fill_diagonal(wins, 0.0)
    assert worst_cut_imbalance(wins, bradley_terry(wins, return_log=True)) < 1e-9


# --------------------------------------------------------------------------------------------------
# Bug hunt: counts and data at the ends of the float range
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["newton", "mm"])
def test_bradley_terry_with_counts_below_the_normal_float_range(method):
    """Eq. (12) times a constant has the same maximiser. Counts of 5e-324 both ways raised SolverError ("comparison
    probabilities underflowed"), and every count times 1e-315 ran Newton to max_iter."""
    np.testing.assert_allclose(bradley_terry(np.array([[0.0, 5e-324], [5e-324, 0.0]]), method=method), [0.5, 0.5])
    w = np.array([[0, 2, 1], [1, 0, 3], [2, 1, 0]], dtype=float)
    for scale in (2.0 ** -1046, 2.0 ** -1040):  # 2^-1046 ~ 1e-315: every count subnormal, but exact
        np.testing.assert_allclose(bradley_terry(w * scale, method=method), choix_scores(w), rtol=1e-7)


def test_nonnegative_lasso_with_data_of_1e_minus_170_is_not_zero():
    """x_j^T y of 1e-170 entries underflowed to 0, so the test for beta = 0 (tau >= 2 max_j x_j^T y) passed at tau = 0
    and returned 0 for an exact fit; a column of 1e-170 next to one of 1 made its penalty 0 / 0 = NaN and the
    active-set method raised a bare ValueError."""
    X, y = np.array([[1e-170], [2e-170]]), np.array([1e-170, 2e-170])
    for loss in ("squared", "absolute"):
        np.testing.assert_allclose(nonnegative_lasso(X, y, 0.0, loss=loss), [1.0], rtol=1e-9)  # exact fit
    X = np.array([[1.0, 1e-170], [0.5, 2e-170], [0.2, 1e-170]])
    y = np.array([-1e-170, 2e-170, 1e-170])
    b2 = nnls(X * np.array([1.0, 1e170]), y * 1e170)[0]  # the same problem in units where it is O(1)
    np.testing.assert_allclose(nonnegative_lasso(X, y, 0.0), [b2[0] * 1e-170, b2[1]], rtol=1e-9, atol=1e-300)


def test_nonnegative_lasso_with_y_near_the_float_limit():
    """||y|| of y = (1e308, 1.5e308) is inf: the finite optimum was refused as "overflows a float". One column of
    ones: the squared-loss optimum is mean(y) - tau / (2 n), the absolute-loss one (tau = 1 < n) min(y) for n = 2."""
    X, y = np.ones((2, 1)), np.array([1e308, 1.5e308])
    mean = y[0] / 2 + y[1] / 2  # y.mean() overflows
    np.testing.assert_allclose(nonnegative_lasso(X, y, 1.0), [mean - 1.0 / 4], rtol=1e-12)
    np.testing.assert_allclose(nonnegative_lasso(X, y, 1.0, loss="absolute"), [1e308], rtol=1e-9)


def test_nonnegative_lasso_with_a_penalty_that_rules_a_column_out():
    """tau = 1e300 divided by the norm of a column of 1e-10 overflowed to inf and linprog raised a bare ValueError
    ("c must not contain values inf"). Closed form: beta_1 = 0 (a unit of it costs 1e300 and lowers the loss by at
    most 2e-10); in beta_2 the objective 3e300 |1 - beta_2| + 1e300 beta_2 (absolute) is least at 1, and
    ||y - x_2 beta_2||^2 + tau beta_2 (squared) at 1 - tau / (2 ||x_2||^2)."""
    X, y = np.array([[1e-10, 1e150], [1e-10, 2e150]]), np.array([1e150, 2e150])
    np.testing.assert_allclose(nonnegative_lasso(X, y, 1e150, loss="absolute"), [0.0, 1.0], rtol=1e-9)
    np.testing.assert_allclose(nonnegative_lasso(X, y, 1e300, loss="squared"), [0.0, 1.0 - 1e300 / (2 * 5e300)],
                               rtol=1e-9)
    X, y = np.array([[1e-10, 1e300], [1e-10, 2e300]]), np.array([1e300, 2e300])
    np.testing.assert_allclose(nonnegative_lasso(X, y, 1e300, loss="absolute"), [0.0, 1.0], rtol=1e-9)


def test_mm_stops_within_tol_of_the_maximiser():
    """MM stopped when one iteration changed no log-score by tol, which, where it converges slowly, left them
    4.75e-8 from the maximiser at tol = 1e-10. The remaining error is measured here by a Newton step of the
    log-likelihood written out in the test (gradient and Laplacian Hessian, numpy's least-squares solve)."""
    w = np.array([[0, 4341, 0, 0, 0], [0, 0, 939, 34, 0], [1222, 0, 0, 0, 0], [1000, 292, 0, 0, 0],
                  [703, 589, 0, 0, 0]], dtype=float) + 0.5 * (1 - np.eye(5))
    theta = bradley_terry(w, method="mm", tol=1e-10, return_log=True)
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # P(i beats j)
    n = w + w.T
    grad = w.sum(axis=1) - (n * p).sum(axis=1)  # d log-likelihood / d theta_i
    cond = n * p * p.T
    hess = np.diag(cond.sum(axis=1)) - cond  # minus the Hessian: a graph Laplacian
    step = np.linalg.lstsq(hess, grad, rcond=None)[0]
    step -= step.mean()
    assert np.max(np.abs(step)) <= 1e-9


@pytest.mark.parametrize("m", [True, 2.5, "2", -1])
def test_check_eta_refuses_a_candidate_count_that_is_not_an_integer(m):
    """``m=True`` or ``2.5`` reached the shape check and asked for a matrix of shape (True, True) or (2.5, 2.5)."""
    from bilevel.ranking import check_eta
    with pytest.raises(InputError, match=r"m \(number of candidates\) must be an integer"):
        check_eta(np.full((2, 2), 0.5), m)


def test_rgpt_win_counts_refuses_a_boolean_mask_as_p_values():
    # a rejection mask [True, False, True] was read as the p-values 1, 0, 1 (the procedures refuse it)
    with pytest.raises(InputError, match="p_values_opt.*not booleans"):
        rgpt_win_counts(np.array([True, False, True]), 10)


def test_bradley_terry_many_items_memory_is_quadratic():
    """The Newton start was a least-squares fit on a (pairs, m) design matrix: m^3 / 2 floats for the dense RG-PT
    counts (2 GB at m = 800) and O(m^4) time (15 s at m = 400). It now solves the (m, m) Laplacian system.
    Closed form: with n_p = 0 the RG-PT counts fit Bradley-Terry exactly, scores proportional to 1 / p."""
    import tracemalloc

    m = 200
    p = np.random.default_rng(3).uniform(0.01, 1.0, m)
    w = rgpt_win_counts(p, 50)
    tracemalloc.start()
    try:
        log_s = bradley_terry(w, return_log=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    expected = -np.log(p) - logsumexp(-np.log(p))
    assert np.max(np.abs(log_s - expected)) < 1e-10
    assert peak < 40 * w.nbytes  # the (pairs, m) design matrix alone was 100 * w.nbytes


def test_eta_must_be_complementary_to_one_millionth():
    """eta_ij + eta_ji = 1 off the diagonal, checked to 1e-6 (rgpt_win_counts' docstring): 1e-3 off is refused,
    1e-8 off is accepted."""
    p = np.array([0.1, 0.3, 0.5])
    for off, ok in [(1e-3, False), (2e-6, False), (1e-8, True)]:
        eta = np.full((3, 3), 0.5)
        eta[0, 1] += off
        if ok:
            w = rgpt_win_counts(p, 10, eta=eta, n_p=1.0)
            assert w[0, 1] == pytest.approx(10 * 0.3 / 0.4 + 0.5 + off, rel=1e-12)
        else:
            with pytest.raises(InputError, match="eta_ij"):
                rgpt_win_counts(p, 10, eta=eta, n_p=1.0)


def test_bradley_terry_sums_the_count_part_of_the_gradient_exactly():
    """Bug: an item between two others whose scores are 1e20 or more apart, and that beats the upper one and loses to
    the lower one with moderate counts (``[[0, W, 1], [1, 0, 1], [1, 1, 0]]``: a finite, well-posed maximiser), was
    refused for every tol below its rounding floor (3e-6 at W = 1e20, 0.3 at 1e30, 1e+14 at 1e87) with "floating
    point cannot resolve ...": its two pair terms of the gradient, -1 and +1 (its upsets) plus probabilities of
    ~1e-10 .. 1e-44, were rounded pair by pair, so its float gradient was rounding. The upsets are now summed
    exactly. Oracles: by symmetry item 2 sits midway between 0 and 1, and item 0's stationarity is
    (W + 1) expit(-g) = 2 expit(g / 2) in the gap g = log s_0 - log s_1 (brentq in logs); the exact Newton step at
    the answer in 600-digit decimals; and for a chain of five items (tiny fractional counts, log-ratios 40 to 190
    between neighbours) with a moderate 1 : 1 pair across it, the cut-by-cut stationarity."""
    from scipy.optimize import brentq
    from scipy.special import log_expit

    for big in (1e20, 1e25, 1e30, 1e40, 1e87, 1e200):  # log-score gaps 45 to 460
        wins = [[0, big, 1], [1, 0, 1], [1, 1, 0]]
        gap = brentq(lambda g: np.log1p(big) + log_expit(-g) - np.log(2.0) - log_expit(g / 2), 0.0, 2000.0,
                     xtol=1e-13)
        log_s = bradley_terry(wins, return_log=True)
        assert abs(log_s[0] - log_s[1] - gap) < 1e-9
        assert abs(log_s[2] - (log_s[0] + log_s[1]) / 2) < 1e-9
        assert newton_step_in_600_digits(np.array(wins, dtype=float), log_s) < 1e-9
    s = bradley_terry([[0, 1e30, 1], [1, 0, 1], [1, 1, 0]])  # scores, 1e30 apart, within the float range
    assert s[2] / s[0] == pytest.approx(np.exp(-gap_of(1e30) / 2), rel=1e-9)
    wins = np.zeros((5, 5))
    for i in range(3):
        wins[i, i + 1], wins[i + 1, i] = 1.0, 1e-20
    wins[0, 4] = wins[4, 0] = wins[3, 4] = wins[4, 3] = 1e-30  # item 4 between 0 and 3, ~1e60 apart
    log_s = bradley_terry(wins, return_log=True)
    assert newton_step_in_600_digits(wins, log_s) < 1e-9
    assert worst_cut_imbalance(wins, log_s) < 1e-9
    assert np.all(np.diff(log_s[:4]) < -40)
    assert abs(log_s[4] - (log_s[0] + log_s[3]) / 2) < 1e-9  # the chain reversed is the same chain


def gap_of(big):
    """The log-score gap between items 0 and 1 of [[0, big, 1], [1, 0, 1], [1, 1, 0]] (see above)."""
    from scipy.optimize import brentq
    from scipy.special import log_expit

    return brentq(lambda g: np.log1p(big) + log_expit(-g) - np.log(2.0) - log_expit(g / 2), 0.0, 2000.0, xtol=1e-13)


def test_bradley_terry_on_dense_counts_spread_over_many_orders_of_magnitude():
    """Every pair compared, with counts exp(N(0, 8)) (about 1e-10 .. 1e10) and log-scores spread over 9-50: Newton's
    steps are capped while they are large, else they overshoot into underflowed comparison probabilities (mutation
    testing: the cap raised from 50 to 5000 in log-score refused such a fit as unresolvable). Oracle: choix's
    iterative Luce spectral ranking (tests/oracles.choix_log_scores, to the least tolerance it meets: 1e-14 was
    missed on seeds 13 and 29 on one CI machine, with choix 0.3.5 and 0.4.1; seed 29 stalls from the 17th
    iteration)."""
    for seed in range(30):
        rng = np.random.default_rng(seed)
        wins = np.exp(rng.normal(0.0, 8.0, (6, 6)))
        np.fill_diagonal(wins, 0.0)
        log_s = bradley_terry(wins, return_log=True)
        params = choix_log_scores(wins, max_iter=5_000)
        np.testing.assert_allclose(log_s - logsumexp(log_s), params - logsumexp(params), rtol=0, atol=1e-8)


def test_log_likelihood_ignores_the_diagonal_of_the_wins():
    """Eq. (12) sums over pairs i != j: a count on the diagonal (an item against itself) is no comparison and adds
    nothing (mutation testing: the diagonal kept changed only the log-likelihood, as the fit's gradient cancels it).
    Oracle: the sum written out."""
    wins = np.array([[5.0, 3.0, 2.0], [1.0, 7.0, 4.0], [6.0, 2.0, 9.0]])
    scores = np.array([0.5, 0.3, 0.2])
    expected = sum(wins[i, j] * np.log(scores[i] / (scores[i] + scores[j]))
                   for i in range(3) for j in range(3) if i != j)
    assert bradley_terry_log_likelihood(wins, scores) == pytest.approx(expected, rel=1e-14, abs=0)
    off = wins * (1 - np.eye(3))
    assert bradley_terry_log_likelihood(wins, scores) == bradley_terry_log_likelihood(off, scores)
    np.testing.assert_allclose(bradley_terry(wins), bradley_terry(off), rtol=1e-9)


def test_nonnegative_lasso_keeps_tiny_positive_coefficients():
    """Only solver round-off (below 1e-12 of the coefficient that fits y with its column alone) is cut to zero: a
    true coefficient of 1e-10 or 5e-11 of that size stays (mutation testing: a cut at 1e-9 passed). Oracle:
    scipy's nnls (tau = 0)."""
    beta = nonnegative_lasso(np.eye(2), [1.0, 1e-10], 0.0)
    np.testing.assert_allclose(beta, nnls(np.eye(2), np.array([1.0, 1e-10]))[0], rtol=1e-6, atol=0)
    rng = np.random.default_rng(0)
    X = rng.random((20, 3))
    y = X @ np.array([1.0, 5e-11, 0.3])
    np.testing.assert_allclose(nonnegative_lasso(X, y, 0.0), nnls(X, y)[0], rtol=1e-3, atol=0)


def test_boolean_wins_are_refused_as_booleans_given_as_numbers_are():
    """A True was read as one win without a word; the README refuses booleans given as numbers."""
    beat = np.array([[False, True], [True, False]])
    with pytest.raises(InputError, match="wins must hold counts of wins, not booleans"):
        bradley_terry(beat)
    with pytest.raises(InputError, match="not booleans"):
        bradley_terry_log_likelihood(beat, scores=[1.0, 1.0])
    assert np.allclose(bradley_terry(beat.astype(float)), [0.5, 0.5])  # one win each, as numbers
