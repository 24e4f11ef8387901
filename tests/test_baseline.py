"""The grid-search baselines (experiments/baseline.py) against scikit-learn and scipy's linprog directly,
and their input checks (0/1 labels, one class, an empty validation set, bad grids)."""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, hinge_loss
from sklearn.svm import LinearSVC

import bilevel
from bilevel.errors import InputError
from experiments.baseline import BOX_GRID, SVC_C_GRID, linear_svc_grid, lp_svm_box_grid
from oracles import lp


def _data(seed, n_t=14, n_v=12, p=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_t + n_v, p))
    y = np.where(X[:, 0] - 0.5 * X[:, 1] + 0.8 * rng.normal(size=n_t + n_v) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0  # both classes in training
    return X[:n_t], y[:n_t], X[n_t:], y[n_t:]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_svc_grid_is_scikit_learns_grid_selected_by_the_documented_rule(seed):
    Xt, yt, Xv, yv = _data(seed)
    cands = []
    for C in SVC_C_GRID:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            svc = LinearSVC(C=C, loss="hinge", dual=True, max_iter=100_000, random_state=seed).fit(Xt, yt)
        cands.append((-accuracy_score(yv, svc.predict(Xv)), hinge_loss(yv, svc.decision_function(Xv)), C, svc))
    acc, hng, C, svc = min(cands, key=lambda c: c[:3])
    got = linear_svc_grid(Xt, yt, Xv, yv, seed=seed)
    assert got["C"] == C and got["val_acc"] == pytest.approx(-acc) and got["val_hinge"] == pytest.approx(hng)
    np.testing.assert_allclose(Xv @ got["w"] - got["b"], svc.decision_function(Xv), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 3])
def test_lp_svm_box_grid_fits_are_linprog_optima_and_scores_match_sklearn(seed):
    Xt, yt, Xv, yv = _data(seed)
    got = lp_svm_box_grid(Xt, yt, Xv, yv)
    c, w, b = got["c"], got["w"], got["b"]
    assert c in BOX_GRID and np.all(np.abs(w) <= c + 1e-9)
    train_hinge = np.mean(np.maximum(0.0, 1.0 - yt * (Xt @ w - b)))
    assert train_hinge == pytest.approx(lp(np.full(Xt.shape[1], c), (Xt, yt)), abs=1e-7)
    f = Xv @ w - b
    assert got["val_acc"] == pytest.approx(accuracy_score(yv, np.where(f >= 0, 1.0, -1.0)))
    assert got["val_hinge"] == pytest.approx(hinge_loss(yv, f))


def test_one_class_in_validation_is_allowed():
    Xt, yt, Xv, yv = _data(0)
    keep = yv > 0
    for fit in (linear_svc_grid, lp_svm_box_grid):
        got = fit(Xt, yt, Xv[keep], yv[keep])
        f = Xv[keep] @ got["w"] - got["b"]
        assert got["val_acc"] == pytest.approx(np.mean(f >= 0))


@pytest.mark.parametrize("fit", [linear_svc_grid, lp_svm_box_grid])
def test_bad_input_is_refused_with_a_message(fit):
    Xt, yt, Xv, yv = _data(0)
    # 0/1 labels: LinearSVC fits them, but its predictions in {-1, +1} were scored against 0/1 labels
    # (every true 0 counted as an error): a wrong validation accuracy, silently.
    with pytest.raises(InputError, match="labels -1 and \\+1"):
        fit(Xt, (yt > 0).astype(float), Xv, (yv > 0).astype(float))
    with pytest.raises(InputError, match="y_val must contain only the labels"):
        fit(Xt, yt, Xv, (yv > 0).astype(float))
    # One class in training: the LP-SVM returned a constant classifier without a word.
    with pytest.raises(InputError, match="one class"):
        fit(Xt, np.ones_like(yt), Xv, yv)
    # An empty validation set: NaN accuracy and hinge, and the first constant "selected".
    with pytest.raises(InputError, match="empty"):
        fit(Xt, yt, Xv[:0], yv[:0])
    with pytest.raises(InputError, match="features"):
        fit(Xt, yt, Xv[:, :2], yv)
    Xn = Xt.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        fit(Xn, yt, Xv, yv)
    with pytest.raises(InputError, match="grid"):
        fit(Xt, yt, Xv, yv, ())
    with pytest.raises(InputError, match="grid"):
        fit(Xt, yt, Xv, yv, (1.0, -0.5))


def test_linear_svc_grid_reports_the_constants_liblinear_did_not_converge_for():
    # the ConvergenceWarnings were silenced and nothing said which fits stopped at max_iter (13 of 312 fits on
    # the study's cancer/diabetes splits up to 100/100); the oracle is scikit-learn's own warning per C
    data = bilevel.load_dataset("diabetes")
    split = bilevel.split_dataset(data.X, data.y, 100, 100, seed=2)
    grid = (1.0, 100.0, 1000.0)
    expected = []
    for C in grid:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            LinearSVC(C=C, loss="hinge", dual=True, max_iter=100_000, random_state=2).fit(split.X_train, split.y_train)
        if any(issubclass(c.category, ConvergenceWarning) for c in caught):
            expected.append(C)
    got = linear_svc_grid(split.X_train, split.y_train, split.X_val, split.y_val, C_grid=grid, seed=2)
    assert expected and got["unconverged_C"] == tuple(expected)
    assert got["converged"] == (got["C"] not in expected)


def test_ties_in_accuracy_and_hinge_go_to_the_smaller_constant():
    """Mutation testing: the last tie-break (the smaller constant, the simpler model) reversed passed the tests, whose
    grids had no exact ties. Oracle: the module docstring's rule on hand-made candidates."""
    from experiments.baseline import _select

    cands = [(c, None, 0.0, acc, hinge) for c, acc, hinge in
             [(0.5, 0.8, 0.3), (0.1, 0.8, 0.3), (0.3, 0.8, 0.3), (0.05, 0.8, 0.4), (1.0, 0.7, 0.1)]]
    assert _select(cands)[0] == 0.1
