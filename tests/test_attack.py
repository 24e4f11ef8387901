"""The closed-form maximum-confidence evasion attack (experiments/attack.py): moves exactly rho, never
increases the SVM's confidence in the true label, is the minimiser over the ball, leaves others alone."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root holds experiments/
from experiments.attack import fit_surrogate_svm, margin_mask, max_confidence_attack  # noqa: E402


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 5))
    y = np.where(rng.random(40) < 0.5, -1.0, 1.0)
    w = rng.normal(size=5)
    return X, y, w, 0.3


@pytest.mark.parametrize("rho", [0.1, 0.35, 1.0])
def test_moves_exactly_rho_and_lowers_true_label_confidence(problem, rho):
    X, y, w, b = problem
    X_adv = max_confidence_attack(X, y, w, b, rho)
    assert np.allclose(np.linalg.norm(X_adv - X, axis=1), rho, rtol=0, atol=1e-12)
    before, after = y * (X @ w - b), y * (X_adv @ w - b)
    assert np.all(after <= before + 1e-12)
    assert np.allclose(after, before - rho * np.linalg.norm(w))  # the closed form
    assert not np.shares_memory(X_adv, X)


def test_is_the_minimiser_over_the_ball(problem):
    X, y, w, b = problem
    rho = 0.5
    X_adv = max_confidence_attack(X, y, w, b, rho)
    rng = np.random.default_rng(0)
    for i in range(5):
        d = rng.normal(size=(2000, X.shape[1]))
        d *= rho * rng.random((2000, 1)) ** (1 / X.shape[1]) / np.linalg.norm(d, axis=1, keepdims=True)
        others = y[i] * ((X[i] + d) @ w - b)
        assert y[i] * (X_adv[i] @ w - b) <= others.min() + 1e-12


def test_does_not_stop_at_the_boundary(problem):
    # Maximum confidence, not minimum distance: a point crossing the boundary keeps going to rho.
    X, y, w, b = problem
    rho = 5.0
    X_adv = max_confidence_attack(X, y, w, b, rho)
    assert np.all(y * (X_adv @ w - b) < 0)
    assert np.allclose(np.linalg.norm(X_adv - X, axis=1), rho)


def test_mask_zero_budget_and_zero_w(problem):
    X, y, w, b = problem
    mask = np.arange(len(y)) % 3 == 0
    X_adv = max_confidence_attack(X, y, w, b, 0.4, mask)
    assert np.array_equal(X_adv[~mask], X[~mask])
    assert np.allclose(np.linalg.norm(X_adv[mask] - X[mask], axis=1), 0.4)
    assert np.array_equal(max_confidence_attack(X, y, w, b, 0.0), X)
    assert np.array_equal(max_confidence_attack(X, y, np.zeros_like(w), b, 0.4), X)


def test_bad_input(problem):
    X, y, w, b = problem
    with pytest.raises(ValueError, match="rho"):
        max_confidence_attack(X, y, w, b, -0.1)
    with pytest.raises(ValueError, match="labels"):
        max_confidence_attack(X, np.zeros_like(y), w, b, 0.1)
    with pytest.raises(ValueError, match="need X"):
        max_confidence_attack(X, y, w[:-1], b, 0.1)
    with pytest.raises(ValueError, match="mask"):
        max_confidence_attack(X, y, w, b, 0.1, mask=np.ones(3, dtype=bool))


def test_margin_mask_and_surrogate_sign(problem):
    X, y, w, b = problem
    f = X @ w - b
    assert np.array_equal(margin_mask(X, w, b), np.abs(f) < 1)
    from sklearn.svm import SVC

    ws, bs = fit_surrogate_svm(X, y)
    ref = SVC(kernel="linear", C=1.0).fit(X, y)
    assert np.array_equal(np.where(X @ ws - bs >= 0, 1.0, -1.0), ref.predict(X))
    assert np.allclose(X @ ws - bs, ref.decision_function(X))
    with pytest.raises(ValueError, match="both classes"):
        fit_surrogate_svm(X, np.ones(len(y)))


def test_nan_inputs_and_other_label_codings_are_refused(problem):
    # NaN used to pass through silently: a NaN weight made every attacked row NaN (and left every row outside
    # margin_mask, so no point was attacked), a NaN feature its row; labels {1, 2} gave the surrogate a w
    # pointing to class 1, which the attack then read as the -1 class.
    from bilevel.errors import InputError

    X, y, w, b = problem
    w_nan, X_nan = w.copy(), X.copy()
    w_nan[0], X_nan[2, 1] = np.nan, np.nan
    with pytest.raises(InputError, match="finite"):
        max_confidence_attack(X, y, w_nan, b, 0.3)
    with pytest.raises(InputError, match="NaN"):
        max_confidence_attack(X_nan, y, w, b, 0.3)
    with pytest.raises(InputError, match="finite"):
        max_confidence_attack(X, y, w, np.nan, 0.3)
    with pytest.raises(InputError, match="finite"):
        margin_mask(X, w_nan, b)
    with pytest.raises(InputError, match="NaN"):
        margin_mask(X_nan, w, b)
    with pytest.raises(InputError, match="width"):
        margin_mask(X, w, b, width=-1.0)
    with pytest.raises(InputError, match="labels -1 and \\+1"):
        fit_surrogate_svm(X, np.where(y > 0, 2.0, 1.0))
    with pytest.raises(InputError, match="labels -1 and \\+1"):
        fit_surrogate_svm(X, (y > 0).astype(float))
    with pytest.raises(InputError, match="NaN"):
        fit_surrogate_svm(X_nan, y)


def test_attack_matches_the_closed_form_against_a_numerical_minimiser(problem):
    # The paper bounds the perturbation in l2 (Section 5.1.2): the minimiser of y f(x + d) over ||d||_2 <= rho
    # is d = -rho y w / ||w||_2 (dual norm of l2 is l2), found here by scipy's SLSQP independently.
    from scipy.optimize import minimize

    X, y, w, b = problem
    rho = 0.7
    X_adv = max_confidence_attack(X, y, w, b, rho)
    for i in range(4):
        res = minimize(lambda d: y[i] * ((X[i] + d) @ w - b), np.zeros(len(w)), method="SLSQP",
                       constraints=[{"type": "ineq", "fun": lambda d: rho ** 2 - d @ d}])
        np.testing.assert_allclose(X_adv[i], X[i] + res.x, atol=1e-4)


def test_surrogate_leaves_numpy_global_random_state_alone(problem):
    """SVC(random_state=None) drew a seed from numpy's global random state on every fit (the perturbed study fits
    one per run): a caller's seeded np.random stream moved on under it. The seed only serves probability
    estimates, so the surrogate is the same whatever that state is."""
    X, y = problem[0], problem[1]
    np.random.seed(123)
    before = np.random.get_state()
    w, b = fit_surrogate_svm(X, y)
    after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]
    np.random.seed(7)
    w2, b2 = fit_surrogate_svm(X, y)
    assert np.array_equal(w, w2) and b == b2


def test_a_mask_of_row_indices_is_refused_not_read_as_booleans():
    """mask=[0, 1, 2] (the indices of every row, e.g. np.where(m)[0]) was cast to booleans [False, True, True]:
    row 0 silently unattacked. Now refused; a 0/1 mask still works like the booleans."""
    from bilevel.errors import InputError

    X = np.zeros((3, 2))
    y = np.array([1.0, -1.0, 1.0])
    w = np.array([3.0, 4.0])
    with pytest.raises(InputError, match="row indices"):
        max_confidence_attack(X, y, w, 0.0, 0.5, mask=[0, 1, 2])
    with pytest.raises(InputError, match="row indices"):
        max_confidence_attack(X, y, w, 0.0, 0.5, mask=[0.0, np.nan, 1.0])
    a = max_confidence_attack(X, y, w, 0.0, 0.5, mask=[1, 0, 1])
    b = max_confidence_attack(X, y, w, 0.0, 0.5, mask=[True, False, True])
    assert np.array_equal(a, b)
    # oracle: x - rho y w / ||w|| on the masked rows (||w|| = 5)
    assert np.allclose(a, [[-0.3, -0.4], [0, 0], [-0.3, -0.4]])
