"""tune() on real data: Proposition 1, export round trip, time limits, verification, bad input."""
import dataclasses
import importlib
import time
import warnings

import highspy
import numpy as np
import pytest

import bilevel
from bilevel.errors import InputError
from oracles import tiny_instance

tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
verify_module = importlib.import_module("bilevel.verify")  # tune verifies through its verify_model


@pytest.fixture(scope="module")
def cancer():
    return bilevel.load_dataset("cancer")


@pytest.mark.parametrize("seed,n", [(0, 5), (1, 8), (2, 10), (3, 8)])
@pytest.mark.parametrize("flip", ["all", "margin"])
def test_proposition_1_pessimistic_at_least_optimistic(cancer, seed, n, flip):
    """With epsilon = 0 the follower of the pessimistic model is a training optimum, which the
    optimistic leader could have chosen: P_o* <= P_p* (Proposition 1)."""
    s = bilevel.split_dataset(cancer.X, cancer.y, n, n, seed=seed)
    pes = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.0, flip=flip)
    assert pes.optimal and pes.optimistic.optimal
    assert pes.verified and pes.optimistic.verified
    assert pes.objective >= pes.optimistic.objective - 1e-7


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_export_round_trip(tmp_path, cancer, suffix, mode):
    s = bilevel.split_dataset(cancer.X, cancer.y, 10, 10, seed=1)
    eps = {"epsilon": 0.2} if mode == "pessimistic" else {}  # refused with mode="optimistic"
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode=mode, **eps)
    path = bilevel.write_model(res.model, tmp_path / f"model{suffix}")
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) != highspy.HighsStatus.kError
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert h.getInfo().objective_function_value == pytest.approx(res.objective, abs=1e-6)
    assert "w_bar" in path.read_text()  # readable names


def test_write_model_rejects_unknown_suffix(tmp_path, caplog):
    Xt, yt, Xv, yv = tiny_instance(0)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    with pytest.raises(InputError, match=r"\.lp or \.mps"):
        bilevel.write_model(model, tmp_path / "m.txt")
    (tmp_path / "d.lp").mkdir()
    with pytest.raises(InputError, match="directory"):
        bilevel.write_model(model, tmp_path / "d.lp")
    for upper, lower in ((".LP", ".lp"), (".MPS", ".mps")):  # the suffix's case does not matter
        bilevel.write_model(model, tmp_path / f"m{upper}")
        bilevel.write_model(model, tmp_path / f"n{lower}")
        assert (tmp_path / f"m{upper}").read_text() == (tmp_path / f"n{lower}").read_text()
    assert "does not match" not in caplog.text  # Pyomo's warning when the format and the suffix disagree


def test_time_limit_is_honoured_and_never_claims_optimal(cancer):
    s = bilevel.split_dataset(cancer.X, cancer.y, 100, 100, seed=0)
    try:
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=0.5)
    except bilevel.solve.NoSolutionError:
        return  # stopped before any incumbent: reported as an error, not as a solution
    if res.total_seconds < 0.45:  # (total: a box search before the solve counts in the limit, not in solve_seconds)
        pytest.skip("solved to optimality inside the limit: nothing to test")
    assert res.status == "time_limit" and not res.optimal
    assert res.solve_seconds < 5.0
    assert res.best_bound <= res.objective + 1e-9


def test_verification_catches_a_wrong_solution():
    Xt, yt, Xv, yv = tiny_instance(3, 8, 6)
    res = bilevel.tune(Xt, yt, Xv, yv)
    assert res.verified
    res.model.w[0].set_value(res.model.w[0].value * 0.5 + 0.01)  # not a training optimum any more
    ver = bilevel.verify_model(res.model)
    assert not ver.verified and ver.inner_gap > 1e-5


def test_empty_flipped_set_falls_back_to_all():
    Xv = np.array([[2.0, 0.0], [-2.0, 0.0]])
    yv = np.array([1.0, -1.0])
    idx, rule = bilevel.flipped_set(Xv, yv, np.array([1.0, 0.0]), 0.0, "margin")
    assert rule.startswith("all") and list(idx) == [0, 1]
    idx, rule = bilevel.flipped_set(Xv, yv, np.array([0.3, 0.0]), 0.0, "margin")
    assert rule == "margin" and list(idx) == [0, 1]
    idx, rule = bilevel.flipped_set(Xv, yv, np.array([0.6, 0.0]), 0.1, "margin")  # margins 1.1, 1.3
    assert rule.startswith("all")


def test_margin_flipping_takes_the_points_inside_the_margin_not_only_the_misclassified():
    """flip="margin" flips every validation point with y_k (x_k^T w - b) < 1 (Corollary 4): correctly classified
    points inside the margin too, points on it (margin 1, up to 1e-9) not. The margins below are by hand
    (w = (1, 0), b = 0.5). The only other tests of the rule (an empty set, a set of all points) passed with
    a mutant that flipped only the misclassified points (margin < 0)."""
    Xv = np.array([[1.0, 3.0], [3.0, 0.0], [0.0, 1.0], [1.5, 0.0], [1.5 - 1e-6, 0.0], [-2.0, 0.0], [0.9, 0.0]])
    yv = np.array([1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0])
    margins = yv * (Xv[:, 0] - 0.5)  # 0.5, 2.5, -0.5, 1, 1 - 1e-6, 2.5, -0.4
    idx, rule = bilevel.flipped_set(Xv, yv, np.array([1.0, 0.0]), 0.5, "margin")
    assert rule == "margin" and idx.tolist() == [0, 2, 4, 6] == np.flatnonzero(margins < 1.0 - 1e-9).tolist()


def _tiny():
    return tiny_instance(0, 6, 5)


@pytest.mark.parametrize(
    "change,match",
    [
        (lambda a: {**a, "y_train": np.ones_like(a["y_train"])}, "one class"),
        (lambda a: {**a, "X_train": np.where(np.arange(a["X_train"].size).reshape(a["X_train"].shape) == 3,
                                             np.nan, a["X_train"])}, "NaN"),
        (lambda a: {**a, "X_val": a["X_val"][:, :1]}, "features"),
        (lambda a: {**a, "y_train": a["y_train"][:-1]}, "one label per row"),
        (lambda a: {**a, "epsilon": -0.1}, "epsilon"),
        (lambda a: {**a, "w_bar_bounds": (0.5, 0.2)}, "infeasible bounds"),
        (lambda a: {**a, "w_bar_bounds": (-1.0, 1.0)}, "w_bar_lb"),
        (lambda a: {**a, "y_val": a["y_val"] * 2}, "labels -1 and \\+1; it also holds -2, 2$"),
        (lambda a: {**a, "y_train": (a["y_train"] > 0).astype(int)}, "labels -1 and \\+1; it also holds 0$"),
        (lambda a: {**a, "y_train": np.where(np.arange(len(a["y_train"])) == 0, np.nan, a["y_train"])},
         "y_train contains NaN"),
        (lambda a: {**a, "X_val": a["X_val"][:0], "y_val": a["y_val"][:0]}, "X_val has no rows: the validation set"),
        (lambda a: {**a, "mode": "robust"}, "mode"),
        (lambda a: {**a, "flip": "some"}, "flip"),
        (lambda a: {**a, "flip": [99]}, "flip"),
        (lambda a: {**a, "X_train": a["X_train"][:, :0], "X_val": a["X_val"][:, :0]}, "no feature columns"),
        (lambda a: {**a, "X_train": a["X_train"].astype(str).astype(object)}, "X_train must be"),
        (lambda a: {**a, "y_val": ["a"] * len(a["y_val"])}, "y_val must be"),
        (lambda a: {**a, "X_train": [[1.0, 2.0], [3.0]]}, "X_train must be"),
        (lambda a: {**a, "w_bar_bounds": (0.0, np.ones((2, 1)))}, "one entry per feature"),
    ],
)
def test_bad_input_gets_a_clear_message(change, match):
    Xt, yt, Xv, yv = _tiny()
    args = dict(X_train=Xt, y_train=yt, X_val=Xv, y_val=yv, mode="pessimistic")
    with pytest.raises(InputError, match=match):
        bilevel.tune(**change(args))


def test_an_optimistic_result_of_other_bounds_or_data_is_refused():
    """Its best bound is the floor of Proposition 1 and its hyperplane defines V_f: one from other bounds
    made the pessimistic MILP return a wrong optimum marked optimal and verified."""
    Xt, yt, Xv, yv = tiny_instance(2, 7, 5)
    small = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 0.02))
    with pytest.raises(InputError, match="other data or other w_bar bounds"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", optimistic=small)
    raised = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.01, 1.0))  # another lower bound only (mutation testing)
    with pytest.raises(InputError, match="other data or other w_bar bounds"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", optimistic=raised)
    with pytest.raises(InputError, match="other data"):
        bilevel.tune(Xt, yt, Xv[:-1], yv[:-1], mode="pessimistic", optimistic=bilevel.tune(Xt, yt, Xv, yv))
    with pytest.raises(InputError, match="mode='optimistic'"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", optimistic="not a result")
    same = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 0.02))
    assert bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", w_bar_bounds=(0.0, 0.02), optimistic=same).verified


def test_an_optimistic_result_whose_data_the_caller_changed_in_place_is_refused():
    """The models kept the caller's arrays (no copy), so data changed in place after the optimistic solve
    compared equal to themselves: diabetes 12/10 seed 1 with X scaled by 3 in place, the pessimistic tune
    kept the old floor 0.3899 and returned it "optimal" and verified, against the optimum 0.3684 on these
    data (a tune that solves its own optimistic model)."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 12, 10, seed=1)
    Xt, yt, Xv, yv = s.X_train.copy(), s.y_train.copy(), s.X_val.copy(), s.y_val.copy()
    opt = bilevel.tune(Xt, yt, Xv, yv)
    Xt *= 3.0
    with pytest.raises(InputError, match="other data"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", optimistic=opt)
    yv[0] = -yv[0]
    opt = bilevel.tune(Xt, yt, Xv, yv)
    yv[0] = -yv[0]
    with pytest.raises(InputError, match="other data"):
        bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", optimistic=opt)


def test_a_solve_stopped_at_mip_gap_is_not_called_optimal():
    """HiGHS reports "optimal" when it stops at mip_rel_gap; above its default tolerance that is not a
    proof, so the status is "gap_limit" (diabetes 20/20 seed 1, pessimistic epsilon 0.2: open at 30 s)."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=1)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args, time_limit=10)
    res = bilevel.tune(*args, mode="pessimistic", epsilon=0.2, optimistic=opt, mip_gap=0.3)
    gap = (res.objective - res.best_bound) / res.objective
    assert 1e-4 < gap <= 0.3 + 1e-9
    assert res.status == "gap_limit" and not res.optimal and res.verified


def test_to_dict_has_no_infinite_numbers(tmp_path):
    """Stopped before any dual bound: best_bound -inf and gap inf become null (strict JSON)."""
    import json

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=1)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=0.001)  # the MIP start only
    assert res.status == "time_limit"
    if np.isfinite(res.best_bound):  # HiGHS can finish its root LP within the millisecond (seen in CI)
        res = dataclasses.replace(res, best_bound=-np.inf, gap=np.inf)
    out = res.to_dict()
    json.dumps(out, allow_nan=False)
    assert out["best_bound"] is None and out["gap"] is None and out["objective"] == res.objective


def test_w_bar_off_its_bounds_by_round_off_is_clipped_before_the_lps():
    """HiGHS may return w_bar = -1e-7 for a zero box; the follower's box [-w_bar, w_bar] would be empty."""
    from bilevel.verify import solution_w_bar

    Xt, yt, Xv, yv = tiny_instance(0)
    res = bilevel.tune(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 1.0))
    model = res.model
    model.w_bar[0].value = -1.3e-7
    model.w_bar[1].value = 1.0 + 1e-7
    np.testing.assert_array_equal(solution_w_bar(model), [0.0, 1.0])
    bilevel.verify_model(model)  # solves its LPs at the clipped box instead of raising


def test_evaluation_checks_its_input(cancer):
    s = bilevel.split_dataset(cancer.X, cancer.y, 8, 8, seed=0)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    assert res.accuracy(s.X_test, s.y_test) == pytest.approx(
        np.mean(np.where(s.X_test @ res.w - res.b >= 0, 1, -1) == s.y_test))
    for X, y, match in ((s.X_test, s.y_test[:, None], "one label per row"),
                        (s.X_test, (s.y_test > 0).astype(int), "labels -1 and \\+1"),
                        (s.X_test, s.y_test[:1], "one label per row"),
                        (np.where(np.arange(s.X_test.size).reshape(s.X_test.shape) == 0, np.nan, s.X_test),
                         s.y_test, "NaN"),
                        (s.X_test[:, :3], s.y_test, "features")):
        with pytest.raises(InputError, match=match):
            res.accuracy(X, y)


# ------------------------------------------------------------------------------- lambda bound policy


def test_epsilon_zero_starts_at_the_largest_lambda_bound_and_matches_the_escalation(cancer):
    """With epsilon = 0 the search starts at max_lambda_bound (one solve); its feasible set contains the
    one of every smaller bound, so its optimum is never worse than the escalation from 1e3 (which ends at
    the same largest bound or stops where a larger bound cannot help)."""
    s = bilevel.split_dataset(cancer.X, cancer.y, 10, 10, seed=1)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    high = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all", optimistic=opt)
    low = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all", optimistic=opt,
                       lambda_bound=1e3)
    assert high.lambda_history == [1e4] and high.verified and high.optimal
    assert low.lambda_history[0] == 1e3 and low.verified and low.optimal
    assert high.objective <= low.objective + 1e-7
    eps = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all",
                       optimistic=opt)
    assert eps.lambda_history[0] == 1e3


def test_a_lambda_bound_that_leaves_the_milp_infeasible_is_enlarged():
    """diabetes 5/5 seed 1, epsilon 0.2: with lambda <= 0.1 no follower fits (HiGHS proves the MILP
    infeasible); the bound grows by lambda_growth until the MILP is feasible, and the note says so. The
    result is the optimum over followers with lambda <= 1, so never below the default run's."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, seed=1)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args)
    kw = dict(mode="pessimistic", epsilon=0.2, optimistic=opt)
    small = bilevel.tune(*args, **kw, lambda_bound=0.1)
    default = bilevel.tune(*args, **kw)
    assert small.lambda_history[:2] == [0.1, 1.0] and small.verified
    assert any("lambda bound 0.1 is infeasible" in m for m in small.verification.messages)
    assert small.objective >= default.objective - 1e-6


def test_a_milp_infeasible_at_the_largest_lambda_bound_names_the_bound():
    """Training features about 1e-3, one validation point at 20.9, epsilon = 0, w_bar in [1, 1.5]: every
    follower needs lambda of about 17424 (the MILP solved with bound 1e5 gives it, optimal and verified, at
    the exact optimum 0), so with the default max_lambda_bound 1e4 the MILP is infeasible. tune raised HiGHS's
    bare 'HiGHS reports the model infeasible (with presolve off)'; the error now names the lambda bounds tried
    and max_lambda_bound, which solves it when raised."""
    Xt = np.array([[0.00252668873103417], [0.0073303774593349], [0.00066168929715313], [0.00113087291408614]])
    yt = np.array([-1.0, 1.0, -1.0, -1.0])
    Xv, yv = np.array([[20.927239329512286]]), np.array([1.0])
    kw = dict(mode="pessimistic", epsilon=0.0, flip="all", w_bar_bounds=(1.0, 1.5))
    with pytest.raises(bilevel.InfeasibleModelError, match="max_lambda_bound"):
        bilevel.tune(Xt, yt, Xv, yv, **kw)
    res = bilevel.tune(Xt, yt, Xv, yv, **kw, max_lambda_bound=1e5)
    assert res.optimal and res.verified and res.objective == pytest.approx(0.0, abs=1e-7)


def test_epsilon_zero_steps_the_lambda_bound_down_when_verification_fails(cancer, monkeypatch):
    """A solution at the large starting bound that fails verification (ill-conditioning) is not returned:
    the bound is divided by lambda_growth and the model re-solved."""
    real = verify_module.verify_model
    seen = []

    def flaky(model, **kw):
        ver = real(model, **kw)
        seen.append(model.bilevel_info.get("lambda_bound"))
        if model.bilevel_info.get("lambda_bound") == 1e4:
            ver.verified = False
        return ver

    monkeypatch.setattr(verify_module, "verify_model", flaky)
    s = bilevel.split_dataset(cancer.X, cancer.y, 8, 8, seed=2)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all")
    assert res.lambda_history[:2] == [1e4, 1e3]
    assert res.lambda_bound == 1e3 and res.verified
    assert any("failed verification" in n for n in res.verification.messages)


def test_positive_epsilon_steps_the_lambda_bound_down_when_verification_fails():
    """Cancer 10/10 split 5 of the benchmark, epsilon 0.2, all validation labels flipped: the optimal box
    separates the training set, so the budget (1 + epsilon) v*(w_bar) = 0 is as degenerate as with
    epsilon = 0, and HiGHS's solution at the starting bound 1e3 was ill-conditioned (its follower missed the
    LP optimum by 5e-4, objective 0.1047; 1e4 failed too). tune steps the bound down until a solution
    verifies, instead of returning the unverified one. Oracle: the textbook formulation
    (experiments/textbook.py: two binaries per pair, unnormalised multipliers) at the returned bound."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from experiments.bench_milp import benchmark_split
    from experiments.textbook import textbook_pessimistic

    s = benchmark_split("cancer", 10, 5)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a failed verification fails the test
        res = bilevel.tune(*args, mode="pessimistic", epsilon=0.2, flip="all")
    assert res.verified and res.optimal
    assert res.verification.train_loss_min == pytest.approx(0.0, abs=1e-9)  # the degenerate budget
    if res.lambda_history[-1] < res.lambda_history[0] and bilevel.pessimistic.at_lambda_bound(res.model):
        # the note at the bound named no larger bound, as if none had been tried
        tried = ", ".join(f"{h:g}" for h in sorted(h for h in res.lambda_history if h > res.lambda_bound))
        assert any(f"larger bound(s) tried ({tried}) failed verification" in m for m in res.verification.messages)
    textbook = textbook_pessimistic(*args, res.flipped, 0.2, res.lambda_bound)
    info = bilevel.solve_model(textbook)
    assert info.status == "optimal" and bilevel.verify_model(textbook).verified
    assert res.objective == pytest.approx(info.objective, abs=1e-6)


def test_a_failed_solution_below_its_lambda_bound_does_not_step_the_bound_down():
    """The step-down cures a solution that fails verification because it is ill-conditioned at its bound
    (kappa = 1/(1 + lambda) tiny). Here the solution at the first bound 1e3 has lambda 25.7, far from it: it
    fails verification only by an inner gap of 1.7e-5 (HiGHS leaves a box multiplier of the feature of size
    1e-6 at 2e-7, within its tolerance, and 1 + lambda multiplies that). Stepping down to 100 and 10 cut
    lambda 25.7 off: tune returned 1.0 "optimal" and verified, against the bilevel optimum 0.60175 at
    w_bar = (0.5, 1.5) (tests/kkt_enumeration.py). Found by differential fuzzing of the big-M constants."""
    from kkt_enumeration import pessimistic_optimum

    Xt = np.array([[-0.39441843675321653, 4.1488879336261607e-07], [2.7526457168364336, 4.499720638795629e-07],
                   [-0.1050764929940059, 1.087231955865509e-06]])
    yt = np.array([-1.0, 1.0, 1.0])
    Xv = np.array([[3.2784090442817777, 6.383118072896928e-07], [-1.6873991297820097, 3.187170554497051e-07]])
    yv = np.array([1.0, -1.0])
    bounds = (np.array([0.2, 0.0]), np.array([0.5, 1.5]))
    try:
        value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(2), 0.05, bounds)
    except RuntimeError as exc:  # scipy 1.11's linprog ends with status 4 on these features of 1e-6
        pytest.skip(f"the enumeration oracle's LPs failed at this scipy version: {exc}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the answer may fail verification by its 1.7e-5
        res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.05, flip="all", w_bar_bounds=bounds)
    assert res.objective <= value + 1e-4, (res.objective, value, res.lambda_history)
    if not res.verified:  # flagged, with the reason, rather than replaced by a worse "verified" answer
        assert any("not optimal for the follower's LP" in m for m in res.verification.messages)


def _verification_failing_at_lambda_bound(bound):
    """``tune``'s ``verify_model``, made to fail every model built with ``lambda_bound == bound`` (to simulate a
    verification that fails at the first bound)."""
    real_verify = verify_module.verify_model

    def flaky_verify(model, **kw):
        ver = real_verify(model, **kw)
        if model.bilevel_info["lambda_bound"] == bound:
            ver.verified = False
        return ver

    return flaky_verify


def test_the_lambda_step_down_drops_a_cutoff_that_leaves_no_solution(cancer, monkeypatch):
    """The model stepped down keeps its cutoff row, the value of a start or incumbent at the larger bound,
    which can exclude every point of the smaller bound. Simulated: verification fails at the first bound 1e3,
    and HiGHS finds nothing in the cutoff model at 100. tune then solves the model without the cutoff at
    100, and its answer verifies and equals that of a direct solve with lambda_bound 100 (no step-down)."""
    real_solve = tune_module.solve_model
    raised, solved_plain = [], []
    flaky_verify = _verification_failing_at_lambda_bound(1e3)

    def solve(model, **kw):
        info = model.bilevel_info
        if info.get("lambda_bound") == 100.0 and info.get("objective_cutoff") is not None:
            raised.append(1)
            time.sleep(pause)  # the failed solve's time counts in total_seconds
            raise tune_module.InfeasibleModelError("simulated: the cutoff excludes every point")
        if info.get("lambda_bound") == 100.0:
            solved_plain.append(1)
        return real_solve(model, **kw)

    s = bilevel.split_dataset(cancer.X, cancer.y, 10, 10, seed=0)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args)
    kw = dict(mode="pessimistic", epsilon=0.2, flip="all", optimistic=opt)
    direct = bilevel.tune(*args, **kw, lambda_bound=100.0, cutoff_restarts=False)
    # longer than the two real solves of the run below take, measured on this machine at its load now (a fixed
    # 2 s was shorter than the direct solve alone, 2.7 s, on a machine running three test suites at once)
    pause = 2.0 + 3.0 * direct.total_seconds
    real_at_bound = tune_module.at_lambda_bound
    monkeypatch.setattr(verify_module, "verify_model", flaky_verify)
    monkeypatch.setattr(tune_module, "solve_model", solve)
    # the simulated failure is one at the bound (only such a solution steps the bound down)
    monkeypatch.setattr(tune_module, "at_lambda_bound",
                        lambda m: m.bilevel_info["lambda_bound"] == 1e3 or real_at_bound(m))
    res = bilevel.tune(*args, **kw)
    assert raised and solved_plain and res.model.bilevel_info["objective_cutoff"] is None
    assert direct.lambda_history == [100.0]  # its solution does not touch the bound: no escalation either
    assert res.lambda_history[:2] == [1e3, 100.0] and res.lambda_bound == 100.0 and res.verified
    assert res.objective == pytest.approx(direct.objective, abs=1e-6)
    assert res.total_seconds >= pause


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_highs_options_reach_every_milp_solve_over_the_package_defaults(cancer, monkeypatch, mode):
    """tune solves with HIGHS_OPTIONS (RENS off, cuts at the root only) unless highs_options overrides a key; the
    options reach HiGHS itself (an unknown one is rejected by name), and the answer is unchanged."""
    real, seen = tune_module.solve_model, []

    def recording(model, **kw):
        seen.append((model.bilevel_info["mode"], dict(kw["options"])))
        return real(model, **kw)

    monkeypatch.setattr(tune_module, "solve_model", recording)
    s = bilevel.split_dataset(cancer.X, cancer.y, 8, 8, seed=1)
    kw = dict(mode=mode, **({"flip": "all"} if mode == "pessimistic" else {}))
    plain = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, **kw)
    assert seen and all(opts == tune_module.HIGHS_OPTIONS for _, opts in seen)
    assert tune_module.HIGHS_OPTIONS["mip_heuristic_run_rens"] is False
    assert tune_module.HIGHS_OPTIONS["mip_allow_cut_separation_at_nodes"] is False
    assert tune_module.HIGHS_OPTIONS["mip_pscost_minreliable"] == 4
    seen.clear()
    restored = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, **kw,
                            highs_options={"mip_heuristic_run_rens": True, "random_seed": 3})
    assert seen and all(opts["mip_heuristic_run_rens"] is True and opts["random_seed"] == 3 for _, opts in seen)
    assert restored.objective == pytest.approx(plain.objective, abs=1e-6)
    with pytest.raises(InputError, match="no_such_option"):
        bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, **kw, highs_options={"no_such_option": 1})


def test_the_best_tie_is_taken_over_the_followers_exact_optimal_face():
    """verify_model's least outer objective at w_bar is over follower optima, not over followers within
    the tolerance of the optimum: on diabetes 20/20 (split seed 0) those lie about 1e-5 to 3e-5 lower, and
    an optimal solve used to report a better tie that does not exist."""
    from oracles import lp

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    assert res.optimal and res.verified
    ver = res.verification
    v_star = lp(res.w_bar, (s.X_train, s.y_train))
    exact = lp(res.w_bar, (s.X_val, s.y_val), [(s.X_train, s.y_train, v_star * (1 + 1e-9))])
    loose = lp(res.w_bar, (s.X_val, s.y_val), [(s.X_train, s.y_train, v_star + ver.tolerance)])
    assert loose < exact - 1e-6  # the instance tells the two faces apart
    assert ver.best_objective_at_w_bar == pytest.approx(exact, abs=1e-7)
    assert res.objective <= exact + ver.tolerance
    assert not any("best tie" in m for m in ver.messages)


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_build_lp_seconds_is_the_lp_part_of_the_build(cancer, mode, monkeypatch):
    """``build_lp_seconds`` (the build's LPs: least training loss, bound tightening) lies within
    ``build_seconds``; with the bound-tightening LPs slowed by 0.2 s each (a stand-in for large ones) the delay
    shows in ``build_lp_seconds``, not in the rest of the build (the Pyomo part)."""
    import time

    import bilevel.bigm as B

    s = bilevel.split_dataset(cancer.X, cancer.y, 6, 6, seed=4)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    kw = dict(mode="pessimistic", epsilon=0.2, flip="all", optimistic=opt) if mode == "pessimistic" else {}
    plain = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, cutoff_restarts=False, **kw)
    assert 0 < plain.build_lp_seconds <= plain.build_seconds
    assert plain.to_dict()["build_lp_seconds"] == plain.build_lp_seconds
    real, calls = B.margin_ranges, []

    def slow(*a, **k):
        calls.append(1)
        time.sleep(0.2)
        return real(*a, **k)

    monkeypatch.setattr(B, "margin_ranges", slow)
    slowed = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, cutoff_restarts=False, **kw)
    assert calls and slowed.build_lp_seconds >= 0.2
    assert slowed.build_seconds - slowed.build_lp_seconds < 0.2


def test_a_lambda_step_down_that_finds_nothing_reports_the_bound_its_solution_was_solved_at(cancer, monkeypatch):
    """Verification fails at the first bound 1e3 (simulated, with the solution at its bound) and HiGHS finds
    nothing at 100, with or without the cutoff row: the 1e3 solution is kept, and whatever tune does next the
    reported ``lambda_bound`` is the returned model's, and the solution's lambda lies within it (mutation testing:
    a failed step-down that left the reported bound at 100 passed every test)."""
    real_solve = tune_module.solve_model
    raised = []
    flaky_verify = _verification_failing_at_lambda_bound(1e3)

    def solve(model, **kw):
        if model.bilevel_info.get("lambda_bound") == 100.0:
            raised.append(1)
            raise tune_module.InfeasibleModelError("simulated: nothing at lambda bound 100")
        return real_solve(model, **kw)

    s = bilevel.split_dataset(cancer.X, cancer.y, 10, 10, seed=0)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args)
    real_at_bound = tune_module.at_lambda_bound
    monkeypatch.setattr(verify_module, "verify_model", flaky_verify)
    monkeypatch.setattr(tune_module, "solve_model", solve)
    monkeypatch.setattr(tune_module, "at_lambda_bound",
                        lambda m: m.bilevel_info["lambda_bound"] == 1e3 or real_at_bound(m))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the kept 1e3 solution is flagged
        res = bilevel.tune(*args, mode="pessimistic", epsilon=0.2, flip="all", optimistic=opt)
    assert raised and res.lambda_history[:2] == [1e3, 100.0]
    assert res.lambda_bound == res.model.bilevel_info["lambda_bound"]
    lam = res.model.lam.value  # 1 - kappa = lambda / (1 + lambda)
    assert lam / (1.0 - lam) <= res.lambda_bound * (1 + 1e-6)


def test_a_milp_infeasible_below_max_lambda_bound_is_solved_at_max_lambda_bound_itself():
    """The instance of the test above (every follower needs lambda of about 17424) from lambda_bound 1e4 with
    max_lambda_bound 1e5: infeasible at 1e4, the bound grows to 1e5 = max_lambda_bound exactly, where the MILP
    is feasible and its optimum is 0 (a mean hinge loss is >= 0). Mutation testing: refusing the step that
    lands exactly on max_lambda_bound passed every test."""
    Xt = np.array([[0.00252668873103417], [0.0073303774593349], [0.00066168929715313], [0.00113087291408614]])
    yt = np.array([-1.0, 1.0, -1.0, -1.0])
    Xv, yv = np.array([[20.927239329512286]]), np.array([1.0])
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", epsilon=0.0, flip="all", w_bar_bounds=(1.0, 1.5),
                       lambda_bound=1e4, max_lambda_bound=1e5)
    assert res.lambda_history[:2] == [1e4, 1e5]
    assert res.optimal and res.verified and res.objective == pytest.approx(0.0, abs=1e-7)


def test_an_at_bound_escalation_that_lands_exactly_on_max_lambda_bound_is_tried():
    """tiny_instance(7, 5, 4), epsilon 0, all validation labels flipped, lambda_bound 1 and max_lambda_bound 10:
    the solution at bound 1 (objective 0.8445, above its floor, the optimistic best bound 0.8215) has lambda at
    the bound, and the next bound 1 * 10 is max_lambda_bound itself, where the MILP reaches the bilevel optimum
    (the enumeration of tests/kkt_enumeration.py, lambda unbounded). Mutation testing: refusing the at-bound step
    that lands exactly on max_lambda_bound (as the default 1e3 -> 1e4 of epsilon > 0 does) passed every test.
    With epsilon = 0 the valid lambdas form a half-line and HiGHS may return a lambda below the bound, which
    no bound escalates (lambda_max is inf): then the answer must say that a larger bound might help. Whether
    lambda is at its bound is read from the model's values (lam / kappa), not from at_lambda_bound, which reads
    kappa's lower bound (mutation testing: a kappa built with lower bound 0, the model unchanged through
    kappa + lam = 1 and lam's upper bound, made at_lambda_bound always false and the escalation never start)."""
    from kkt_enumeration import pessimistic_optimum

    Xt, yt, Xv, yv = tiny_instance(7, 5, 4)
    value, _, _ = pessimistic_optimum(Xt, yt, Xv, yv, np.arange(4), 0.0)
    opt = bilevel.tune(Xt, yt, Xv, yv, clock="nodes")
    res = bilevel.tune(Xt, yt, Xv, yv, mode="pessimistic", flip="all", optimistic=opt, lambda_bound=1.0,
                       max_lambda_bound=10.0, clock="nodes")
    assert res.optimal and res.verified
    lam = res.model.lam.value / res.model.kappa.value  # lambda of the returned solution, from the model's values
    if res.lambda_history == [1.0] and lam < 1.0 * (1 - 1e-6):
        assert any("might allow a better objective" in m for m in res.verification.messages)
    else:
        assert res.lambda_history[:2] == [1.0, 10.0]
        assert res.objective == pytest.approx(value, abs=1e-6), (res.objective, value, res.lambda_history)


def test_the_time_of_an_infeasible_lambda_bound_counts_in_total_seconds(monkeypatch):
    """The instance of test_a_lambda_bound_that_leaves_the_milp_infeasible_is_enlarged: the solve at the
    infeasible bound 0.1 (made to take ``pause`` seconds more) is part of the solve time to quote,
    ``total_seconds`` (mutation testing: leaving it out passed every test). ``pause`` exceeds three times the
    whole run without it, measured here, so the check holds at any machine speed or load."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, seed=1)
    args = (s.X_train, s.y_train, s.X_val, s.y_val)
    opt = bilevel.tune(*args)
    kw = dict(mode="pessimistic", epsilon=0.2, optimistic=opt, lambda_bound=0.1)
    plain = bilevel.tune(*args, **kw)
    pause = 0.5 + 3.0 * plain.total_seconds
    real_solve, slowed = tune_module.solve_model, []

    def solve(model, **solve_kw):
        if model.bilevel_info.get("lambda_bound") == 0.1:
            slowed.append(1)
            time.sleep(pause)
        return real_solve(model, **solve_kw)

    monkeypatch.setattr(tune_module, "solve_model", solve)
    res = bilevel.tune(*args, **kw)
    assert slowed and res.lambda_history[:2] == [0.1, 1.0]
    assert res.total_seconds >= pause


def test_a_point_on_the_hyperplane_is_predicted_plus_one():
    """``predict`` sends ``x^T w - b = 0`` to +1, as documented and as every accuracy of the study and the
    certification's 0-1 losses assume (mutation testing: ``> 0`` passed this file and the tie tests). Oracle: the
    sign by hand on points below, on and above ``f(x) = x_0 - 0.5``."""
    from bilevel.tune import LinearClassifier

    class Plane(LinearClassifier):
        w, b = np.array([1.0, 0.0]), 0.5

    X = np.array([[0.25, 3.0], [0.5, -1.0], [0.75, 0.0]])
    np.testing.assert_array_equal(Plane().predict(X), [-1.0, 1.0, 1.0])
    np.testing.assert_array_equal(Plane().errors(X, np.array([-1.0, -1.0, 1.0])), [0.0, 1.0, 0.0])


def test_a_pessimistic_result_reports_the_replica_and_the_follower_apart():
    """Pessimistic epsilon = 0.2 (diabetes 10/10 seed 0, where the follower spends the budget): ``w_hat, b_hat``
    is the replica, a training optimum at ``w_bar`` (its loss ``v*(w_bar)``, oracle :func:`bilevel.hinge_lp`), and
    ``w, b`` the follower, within ``(1 + epsilon) v*`` (mutation testing: the follower reported as the replica passed
    the suite)."""
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 10, 10, seed=0)
    r = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all")
    least = bilevel.hinge_lp(r.w_bar, (s.X_train, s.y_train)).value
    replica = bilevel.hinge(s.X_train, s.y_train, r.w_hat, r.b_hat).mean()
    follower = bilevel.hinge(s.X_train, s.y_train, r.w, r.b).mean()
    assert r.verified and least > 1e-3
    assert replica == pytest.approx(least, abs=1e-7)
    assert follower <= 1.2 * least + 1e-7  # the epsilon budget (here spent: 1.2 v*, so apart from the replica)
