"""Bradley-Terry against choix and closed forms; non-negative Lasso against scikit-learn and scipy."""

import choix
import numpy as np
import pytest
from scipy.optimize import nnls
from sklearn.linear_model import Lasso

from bilevel.errors import InputError
from bilevel.ranking import bradley_terry, bradley_terry_log_likelihood, nonnegative_lasso, rgpt_win_counts


def choix_scores(wins):
    params = choix.ilsr_pairwise_dense(np.asarray(wins, dtype=float), alpha=0.0, max_iter=100_000, tol=1e-14)
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
        ref = Lasso(alpha=max(tau, 1e-12) / (2 * n), positive=True, fit_intercept=False, tol=1e-14, max_iter=1_000_000).fit(X, y).coef_

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
    iterations); the KKT conditions already hold at beta = 0. And when one QP form fails, the other one is
    used; when both fail, SolverError (never an unchecked answer)."""
    import bilevel.ranking as ranking
    from bilevel.errors import SolverError

    X = np.array([[float(c) for c in row] for row in DEGENERATE_ROWS])
    y = np.array([float(c) for c in "1100110111"])
    tau = 2 * float(np.max(X.T @ y))
    np.testing.assert_array_equal(nonnegative_lasso(X, y, tau), np.zeros(X.shape[1]))
    with pytest.raises(SolverError):  # the residual form alone stops at the iteration limit
        ranking._residual_qp(X, y, tau)
    rng = np.random.default_rng(2)  # a full-rank design, which both forms solve
    X, y, tau = rng.random((30, 6)), rng.random(30), 0.5
    expected = nonnegative_lasso(X, y, tau)

    def broken(*a):
        raise SolverError("simulated")
    monkeypatch.setattr(ranking, "_residual_qp", broken)
    np.testing.assert_allclose(nonnegative_lasso(X, y, tau), expected, atol=1e-6)
    monkeypatch.setattr(ranking, "_gram_qp", broken)
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
