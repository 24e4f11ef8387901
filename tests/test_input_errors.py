"""Bad input to the public API and the CLI gets an InputError (a ValueError) naming the problem, never a
traceback from inside numpy, Pyomo or HiGHS, and never a silently wrong answer. Each case here was found by
fuzzing the API with bad values one argument at a time."""
from pathlib import Path

import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel.cli import main
from bilevel.errors import InputError
from bilevel.inner import hinge, hinge_lp
from bilevel.warmstart import kkt_start
from tiny_data import X, XV, Y, YV, solved_optimistic_model


@pytest.fixture(scope="module")
def optimistic_model():
    return solved_optimistic_model()


def _raises(fn, *args, match, **kw):
    with pytest.raises(InputError, match=match):
        fn(*args, **kw)


@pytest.mark.parametrize("kw, match", [
    (dict(time_limit="5 s"), "time_limit"),
    (dict(time_limit=0), "time_limit"),
    (dict(tolerance="x"), "tolerance"),
    (dict(tolerance=-1), "tolerance"),
    (dict(tolerance=float("nan")), "tolerance"),
    (dict(highs_options="abc"), "highs_options"),
    (dict(highs_options={1: 2}), "option names must be strings"),  # highspy's raw TypeError
    (dict(epsilon=True), "epsilon"),
    (dict(w_bar_bounds=(False, True)), "booleans"),
    (dict(w_bar_bounds=([[0, 0], [0]], 1.0)), "w_bar_lb must be a number"),  # numpy's ValueError was raised raw
    (dict(race=True), "race"),
    (dict(mode="pessimistic", epsilon=0.2, lambda_growth=0), "lambda_growth"),
    (dict(mode="pessimistic", epsilon=0.2, lambda_growth=1), "lambda_growth"),
    (dict(mode="pessimistic", max_lambda_bound=0), "max_lambda_bound"),
    (dict(mode="pessimistic", lambda_bound="x"), "lambda_bound"),
    (dict(mode="pessimistic", flip=[np.nan]), "flip"),
    (dict(mode="pessimistic", flip=[0.7, 1.9]), "integer indices"),
    (dict(mode="pessimistic", flip=None), "flip"),
    (dict(mode="pessimistic", flip=np.array([True, False])), "length 4"),
    # the pessimistic MILP's settings with mode="optimistic" were ignored silently
    (dict(epsilon=0.2), "epsilon only applies to mode='pessimistic'"),
    (dict(flip="all", replica="feasible"), "flip, replica only apply to mode='pessimistic'"),
    (dict(flip=np.array([0, 1])), "flip only applies"),
    (dict(lambda_bound=10.0), "lambda_bound only applies"),
    (dict(mode="pessimistic", lambda_bound=1e5), "exceeds max_lambda_bound"),  # it ran at 1e5 above the maximum
    (dict(warm_start="no"), "warm_start must be True or False"),  # truthy strings
    (dict(cutoff_restarts="false"), "cutoff_restarts must be True or False"),
])
def test_tune_names_the_bad_argument(kw, match):
    _raises(bilevel.tune, X, Y, XV, YV, match=match, **kw)


def test_tune_rejects_features_beyond_the_big_m_range():
    _raises(bilevel.tune, X * 1e150, Y, XV, YV, match="rescale")
    _raises(bilevel.tune, X, Y, XV, YV, w_bar_bounds=(0, 1e12), match="w_bar_ub")


def test_a_boolean_mask_flips_the_points_it_marks():
    # np.asarray(mask, dtype=int) used to turn [F, F, F, T] into the indices [0, 1]
    mask = np.array([False, False, True, True])
    by_mask = bilevel.flipped_set(XV, YV, np.ones(2), 0.0, mask)
    assert by_mask[0].tolist() == [2, 3] and by_mask[1] == "explicit"
    res = bilevel.tune(X, Y, XV, YV, mode="pessimistic", flip=mask)
    assert res.flipped.tolist() == [2, 3]


@pytest.mark.parametrize("args, match", [
    ((XV, YV, [np.nan, 1.0], 0.0), "finite"),
    ((XV, YV, np.ones(2), np.nan), "finite"),
    ((XV, YV, np.ones(3), 0.0), "shape"),
    ((XV, YV * 0, np.ones(2), 0.0), "labels"),
    ((XV[:0], YV[:0], np.ones(2), 0.0), "empty"),
    ((XV, None, np.ones(2), 0.0), "y_val"),  # a scalar or None y_val was a TypeError (len() before the checks)
    ((XV, 1.0, np.ones(2), 0.0), "y_val"),
    ((XV, YV, np.array([True, False]), 0.0), "not booleans"),  # was read as the weights 1, 0
])
def test_flipped_set_checks_its_data_and_hyperplane(args, match):
    _raises(bilevel.flipped_set, *args, match=match)


@pytest.mark.parametrize("kw, match", [
    (dict(lambda_bound=None), "lambda_bound"),
    (dict(flipped="all"), "flipped"),
    (dict(objective_floor=np.nan), "objective_floor"),
    (dict(objective_floor="x"), "objective_floor"),
    (dict(objective_cutoff="one"), "objective_cutoff"),
    (dict(objective_cutoff=True), "objective_cutoff"),
])
def test_pessimistic_builder_names_the_bad_argument(kw, match):
    args = dict(flipped=[0, 1], epsilon=0.0)
    args.update(kw)
    _raises(bilevel.build_pessimistic_model, X, Y, XV, YV, match=match, **args)


def test_solve_model_refuses_nan_coefficients_and_bad_options():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.o = pyo.Objective(expr=m.x * float("nan"))
    _raises(bilevel.solve_model, m, match="NaN")
    m.o.deactivate()
    m.o2 = pyo.Objective(expr=m.x)
    _raises(bilevel.solve_model, m, options="abc", match="options")
    _raises(bilevel.solve_model, m, time_limit="1 s", match="time_limit")
    _raises(bilevel.solve_model, m, race=np.int64(0), match="race")
    _raises(bilevel.solve_model, m, options={1: 2}, match="option names must be strings")  # raw TypeErrors
    for start in (5, [m.x], [(m.x, "a")]):
        _raises(bilevel.solve_model, m, mip_start=start, match="mip_start")
    # an argument and an option setting the same thing: the argument won without a word
    for arg, option in ((dict(mip_gap=0.01), {"mip_rel_gap": 0.02}), (dict(threads=1), {"threads": 2}),
                        (dict(time_limit=5), {"time_limit": 9.0})):
        _raises(bilevel.solve_model, m, options=option, **arg, match="set the same thing")
    assert bilevel.solve_model(m, race=np.int64(1), time_limit=float("inf")).objective == 0.0


def test_solve_model_checks_its_model_and_hooks(optimistic_model):
    # solve_model(5) was an AttributeError from inside the compile, improve=5 a TypeError from inside HiGHS's
    # callback in the middle of the solve (or never, when the solve ended first)
    _raises(bilevel.solve_model, 5, match="Pyomo model")
    _raises(bilevel.solve_model, optimistic_model, improve=5, match="improve must be a callable")
    _raises(bilevel.solve_model, optimistic_model, interrupt_when="yes", match="interrupt_when must be")
    _raises(bilevel.solve_model, optimistic_model, improve=lambda *a: None, improve_after=-1, match="improve_after")
    # without an improve hook a negative or NaN improve_after ran as if valid; the docstring refuses it outright
    for bad in (-1, float("nan")):
        _raises(bilevel.solve_model, optimistic_model, improve_after=bad, match="improve_after")


def test_verify_model_needs_a_solved_bilevel_model(optimistic_model):
    _raises(bilevel.verify_model, bilevel.build_optimistic_model(X, Y, XV, YV), match="solve it")
    _raises(bilevel.verify_model, pyo.ConcreteModel(), match="built by")
    _raises(bilevel.verify_model, optimistic_model, tolerance=np.nan, match="tolerance")
    assert bilevel.verify_model(optimistic_model).verified


def test_kkt_start_checks_its_boxes(optimistic_model):
    _raises(bilevel.kkt_start, optimistic_model, w_bar=[1, 1, 1], match="shape")
    _raises(bilevel.kkt_start, optimistic_model, w_bar=[np.nan, 1], match="finite")
    _raises(bilevel.kkt_start, optimistic_model, candidates=[[1.0]], match=r"candidates\[0\]")
    assert bilevel.kkt_start(optimistic_model, w_bar=[0.5, 0.5]) is not None


@pytest.mark.parametrize("kw,match", [(dict(candidates=None), "candidates must be a sequence"),
                                      (dict(candidates=5), "candidates must be a sequence"),
                                      (dict(stop_at=np.nan), "stop_at")])
def test_kkt_start_names_bad_candidates_and_a_nan_stop_at(optimistic_model, kw, match):
    """Not a sequence of boxes: an InputError, not numpy's or Python's TypeError; a NaN lower bound was taken
    as no bound."""
    _raises(bilevel.kkt_start, optimistic_model, **kw, match=match)


@pytest.mark.parametrize("args, match", [
    ((1.0, (X, Y)), "w_bar"),
    (([-1, -1], (X, Y)), "w_bar"),
    (([1, 1], X[:2]), "pair"),
    (([1, 1], (X[:, :1], Y)), "w_bar has 2"),
    (([1, 1], (X, Y), [(X, Y, np.nan)]), "finite"),
    (([1, 1], (X, Y), [(X, Y)]), "triple"),
    (([1, 1], (X * np.nan, Y)), "NaN"),
    (([True, True], (X, Y)), "booleans"),
    (([1, 1], (X, Y), 5), "list of triples"),
    (([[1, 1], [1]], (X, Y)), "w_bar must be a 1-D array of box half-widths"),  # ragged: not a raw ValueError
])
def test_hinge_lp_checks_its_input(args, match):
    _raises(hinge_lp, *args, match=match)


def test_split_dataset_refuses_a_standardize_that_is_not_a_bool():
    # "no" was read as True: the features were standardised against the caller's wish
    _raises(bilevel.split_dataset, X, Y, 2, 2, test_fraction=0.0, standardize="no", match="standardize")
    raw = bilevel.split_dataset(X, Y, 2, 2, test_fraction=0.0, standardize=False)
    assert np.isin(raw.X_train, X).all()  # rows of X as given


def test_split_dataset_refuses_x_without_feature_columns():
    # an (n, 0) X was split without complaint; tune then refused the split's X_train
    _raises(bilevel.split_dataset, X[:, :0], Y, 2, 2, test_fraction=0.0, match="X has no feature columns")


def test_numpy_durations_are_not_row_counts_or_indices():
    # np.timedelta64 is a subclass of np.integer: n_train=np.timedelta64(2) was split as 2 rows, and a flip of
    # durations was read as indices (as_float_array refuses durations everywhere else)
    _raises(bilevel.split_dataset, X, Y, np.timedelta64(2), 2, test_fraction=0.0, match="n_train must be an integer")
    _raises(bilevel.tune, X, Y, XV, YV, mode="pessimistic", flip=np.array([0, 1], dtype="m8[s]"),
            match="dates or durations")


def test_hinge_checks_its_input():
    _raises(hinge, X, Y, np.ones(2), np.ones(6), match="b must be a number")
    _raises(hinge, X, (Y + 1) / 2, np.ones(2), 0.0, match="labels")
    _raises(hinge, X, Y, [np.nan, 1.0], 0.0, match="finite")
    assert hinge(X, Y, np.ones(2), 0.0) == pytest.approx(np.maximum(0, 1 - Y * X.sum(axis=1)))


def test_tie_range_checks_its_tolerances():
    res = bilevel.tune(X, Y, XV, YV)
    _raises(bilevel.optimistic_tie_range, res, tolerance="x", match="tolerance")
    _raises(bilevel.optimistic_tie_range, res, verify_tolerance=-1, match="verify_tolerance")


def test_split_and_load_reject_what_they_used_to_ignore():
    data = bilevel.load_dataset("cancer")
    for seed in (-1, 1.5, "a", True):
        _raises(bilevel.split_dataset, data.X, data.y, 10, 10, seed=seed, match="seed")
    _raises(bilevel.split_dataset, data.X, data.y, 10, 10, test_fraction=None, match="test_fraction")
    _raises(bilevel.load_dataset, "cancer", label="zz", match="label column")
    _raises(bilevel.load_dataset, "cancer", positive="bogus", match="positive label")
    flipped = bilevel.load_dataset("cancer", positive="benign")
    np.testing.assert_array_equal(flipped.y, -data.y)


def test_write_model_names_a_path_it_cannot_write(optimistic_model, tmp_path):
    _raises(bilevel.write_model, optimistic_model, "/proc/bilevel-test/x.lp", match="cannot")
    assert bilevel.write_model(optimistic_model, tmp_path / "x.mps").stat().st_size > 0


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_write_model_failure_leaves_the_existing_file_unchanged(optimistic_model, tmp_path, suffix):
    """Bug: a model without an active objective raised Pyomo's IndexError ('list index out of range', .lp) or
    ValueError (.mps) after the file was opened, and an earlier good export at that path was replaced by a
    truncated file (39 / 69 characters). A write that fails midway (two components with the same name in the
    file: Pyomo's RuntimeError, now an InputError naming both) left a half-written file. Now the objective is
    checked first (InputError) and the file is written under a temporary name and renamed only when complete."""
    path = tmp_path / f"model{suffix}"
    bilevel.write_model(optimistic_model, path)
    good = path.read_bytes()
    no_objective = optimistic_model.clone()
    for obj in no_objective.component_data_objects(pyo.Objective, active=True):
        obj.deactivate()
    _raises(bilevel.write_model, no_objective, path, match="active objectives")
    clash = pyo.ConcreteModel()  # symbolic labels map both indices to x(a_b): the write fails midway
    clash.x = pyo.Var(["a_b", "a b"], bounds=(0, 1))
    clash.c = pyo.Constraint(expr=clash.x["a_b"] + clash.x["a b"] >= 1)
    clash.o = pyo.Objective(expr=clash.x["a_b"] + 2 * clash.x["a b"])
    both = r"'x\[a[_ ]b\]' and 'x\[a[_ ]b\]' are both written as 'x\(a_b\)'"
    _raises(bilevel.write_model, clash, path, match=both)
    _raises(bilevel.write_model, clash, tmp_path / f"new{suffix}", match=both)
    assert path.read_bytes() == good and sorted(p.name for p in tmp_path.iterdir()) == [path.name]


@pytest.mark.parametrize("argv", [
    ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--seed", "-1"],
    ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--w-bar-ub", "1e12"],
    ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--label", "zz"],
    ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--export", "/proc/bilevel-test"],
    ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--json", "/proc/bilevel-test/r.json"],
])
def test_cli_prints_one_line_and_exits_2_before_solving(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bilevel tune: error:") and "\n" not in err and "Traceback" not in err


def test_cli_reports_an_unwritable_result_file_in_one_line(capsys, tmp_path):
    argv = ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--json", "/dev/full"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("bilevel tune: error:") and "/dev/full" in err and "\n" not in err
    # written through, not renamed over: the temporary-file scheme (as root) replaced the device by a regular file
    assert Path("/dev/full").is_char_device()


def test_a_false_infeasible_from_highs_presolve_is_solved_again_without_presolve():
    """HiGHS 1.15's presolve calls this optimistic MILP infeasible although every box has a follower optimum
    (found by a differential run of exported models through SCIP and CBC, which solve it to 4/3). solve_model
    used to raise InfeasibleModelError; it now checks the claim with presolve off and returns 4/3 on every
    release, and tune, which knows the MILP is feasible, gets the verified 4/3."""
    Xt, yt = np.array([[.87], [.51], [.39], [-.1], [.9]]), np.array([1., -1, 1, 1, 1])
    Xv, yv = np.array([[1.38], [.67], [-.55]]), np.array([1., -1, -1])
    m = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    info = bilevel.solve_model(m)
    assert info.status == "optimal" and info.objective == pytest.approx(4 / 3)
    assert bilevel.solve_model(m, options={"presolve": "off"}).objective == pytest.approx(4 / 3)
    # Handed the MIP start, the same presolve ends "optimal" at the start with no dual bound (HiGHS 1.15.1):
    # solve_model then proves it without presolve, so the status is a proof, not "gap_limit" with bound -inf.
    info = bilevel.solve_model(m, mip_start=kkt_start(m))
    assert info.status == "optimal" and info.best_bound == pytest.approx(4 / 3) and info.gap <= 1e-4
    res = bilevel.tune(Xt, yt, Xv, yv)
    assert res.verified and res.objective == pytest.approx(4 / 3)
    assert res.status == "optimal" and res.best_bound == pytest.approx(4 / 3)


# --- found by a review on 2026-11-24 (each failed before the fix) -----------------------------------


@pytest.mark.parametrize("kw, match", [
    # epsilon = 1e11 on diabetes 8/8 split 2 gave 0.843 as optimal and verified where 0.4353 is reachable
    (dict(mode="pessimistic", epsilon=1e7), "at most 1e"),
    (dict(mode="pessimistic", epsilon=10**400), "too large"),
    (dict(w_bar_bounds=(0, 2e4)), "w_bar_ub reaches"),
])
def test_tune_refuses_numbers_beyond_highs_range(kw, match):
    _raises(bilevel.tune, X, Y, XV, YV, match=match, **kw)


def test_the_scale_limit_is_on_the_product_of_features_and_box():
    # ||x||_1 = 2 * 1e3 = 2e3 for the row [1e3, 1e3]; with w_bar_ub 100 that is 2e5 > 1e5
    _raises(bilevel.tune, X * 1e3, Y, XV, YV, w_bar_bounds=(0, 100), match="features times w_bar_ub")
    assert bilevel.tune(X * 1e3, Y, XV, YV, w_bar_bounds=(0, 10)).verified


def test_a_fixed_box_whose_least_training_loss_is_a_round_off_above_zero():
    # At this box of diabetes 8/8 split 0 the least training loss is about 4.94e-8; one LP put it 1.3e-10 lower,
    # and the bound-tightening LP under that budget was infeasible: a raw InfeasibleCutoff from deep inside
    from oracles import lp

    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, seed=0)
    wb = np.array([0.02357763, 0.33913322, 0.43933813, 0.60777115, 0.7065128, 0.08054718, 1.0])
    assert 0 < hinge_lp(wb, (s.X_train, s.y_train)).value < 1e-7
    r = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, w_bar_bounds=(wb, wb))
    assert r.optimal and r.verified
    # the oracle's training budget v* + 1e-7: at v* + 1e-8 the oracle's own LP is infeasible on older SciPy
    v_star = lp(wb, (s.X_train, s.y_train))
    assert r.objective == pytest.approx(lp(wb, (s.X_val, s.y_val), [(s.X_train, s.y_train, v_star + 1e-7)]), abs=1e-5)


def test_complex_numbers_are_refused_not_cut_to_their_real_parts():
    # np.asarray(..., float64) dropped the imaginary parts with a ComplexWarning only, and tuned the real parts.
    with pytest.raises(InputError, match="X_train .*complex"):
        bilevel.tune(X + 5j, Y, X, Y, time_limit=5)
    with pytest.raises(InputError, match="y_val .*complex"):
        bilevel.tune(X, Y, X, Y + 3j, time_limit=5)
    with pytest.raises(InputError, match="complex"):
        bilevel.split_dataset(np.tile(X, (5, 1)) + 1j, np.tile(Y, 5), 2, 2)


def test_missing_values_of_pandas_nullable_columns_are_named_as_missing():
    # a Float64 column holding pd.NA was refused as "must be a numeric 2-D array", not as a missing value
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b"]).astype("Float64")
    frame.iloc[2, 1] = pd.NA
    assert np.isnan(np.asarray(frame.to_numpy(dtype=float, na_value=np.nan))).sum() == 1  # what pandas says is missing
    _raises(bilevel.tune, frame, Y, XV, YV, match="X_train contains NaN")
    _raises(bilevel.split_dataset, frame, Y, 2, 2, match="NaN")
    assert bilevel.tune(frame.fillna(0.5), pd.Series(Y, dtype="Int64"), XV, YV).verification.verified


def test_a_label_near_1_is_shown_with_all_its_digits():
    # the message showed 1.0000000000000002 as "1", which reads as a valid label
    with pytest.raises(InputError, match=r"also holds 1\.0000000000000002"):
        bilevel.tune(X, np.r_[Y[:-1], 0.1 * 3 / 0.3], X, Y, time_limit=5)


@pytest.mark.parametrize("name", ["NA", "None", "null", "NaN"])
def test_a_class_named_like_a_missing_value_loads(tmp_path, name):
    # pandas reads "NA" (North America), "None", ... as missing, and the label column was refused as incomplete
    path = tmp_path / "region.csv"
    path.write_text(f"a,b,region\n1,2,{name}\n3,4,EU\n5,6,{name}\n7,8,EU\n")
    data = bilevel.load_dataset(str(path))
    assert data.X.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert data.y[0] == data.y[2] == -data.y[1] == -data.y[3]
    path.write_text("a,b,region\n1,2,EU\n3,4,\n5,6,NA\n")  # an empty field is still missing
    with pytest.raises(InputError, match="missing values"):
        bilevel.load_dataset(str(path))


def test_an_infeasible_milp_still_raises_after_the_check_without_presolve():
    # the model above with its objective capped below the optimum 4/3 (which SCIP and CBC prove): infeasible
    Xt, yt = np.array([[.87], [.51], [.39], [-.1], [.9]]), np.array([1., -1, 1, 1, 1])
    Xv, yv = np.array([[1.38], [.67], [-.55]]), np.array([1., -1, -1])
    m = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    m.cap = pyo.Constraint(expr=m.validation_hinge.expr <= 1.0)
    with pytest.raises(bilevel.InfeasibleModelError, match="with presolve off"):
        bilevel.solve_model(m)


# --- found by a type-mutation fuzz of the public API (each failed before the fix) ---------------------


def _tiny_lp():
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.o = pyo.Objective(expr=m.x)
    return m


@pytest.mark.parametrize("call, match", [
    # numpy booleans were read as 1.0 (Python's True was refused)
    (lambda: bilevel.tune(X, Y, XV, YV, tolerance=np.True_), "tolerance must be a number"),
    (lambda: bilevel.tune(X, Y, XV, YV, time_limit=np.True_), "time_limit"),
    (lambda: bilevel.build_pessimistic_model(X, Y, XV, YV, [0], epsilon=np.True_), "epsilon must be a number"),
    # an array where a name is expected: numpy's "truth value of an array ... is ambiguous"
    (lambda: bilevel.tune(X, Y, XV, YV, mode=np.array(["optimistic", "pessimistic"])), "mode"),
    (lambda: bilevel.tune(X, Y, XV, YV, replica=np.array(["optimal", "feasible"])), "replica"),
    (lambda: bilevel.build_pessimistic_model(X, Y, XV, YV, [0], replica=np.array(["a", "b"])), "replica"),
    (lambda: bilevel.solve_model(_tiny_lp(), clock=np.array(["seconds", "nodes"])), "clock"),
    (lambda: bilevel.load_dataset("cancer", positive=np.array(["benign", "malignant"])), "positive label"),
    # ragged index lists: numpy's "inhomogeneous shape" ValueError
    (lambda: bilevel.build_pessimistic_model(X, Y, XV, YV, [[0, 1], [2]]), "flipped"),
    (lambda: bilevel.flipped_set(XV, YV, np.ones(2), 0.0, [[0, 1], [2]]), "flip"),
    # n_train=None: "'<' not supported between instances of 'NoneType' and 'int'"
    (lambda: bilevel.split_dataset(X, Y, None, 2, test_fraction=0.0), "n_train"),
    (lambda: bilevel.split_dataset(X, Y, 2, None, test_fraction=0.0), "n_val"),
    # a name that is no str or Path (10**400: "[Errno 36] File name too long"), and one too long for a path
    (lambda: bilevel.load_dataset(10**400), "name_or_path"),
    (lambda: bilevel.load_dataset("x" * 5000), "not a usable path"),
    # write_model(None, ...): AttributeError; write_model(model, None): pathlib's TypeError
    (lambda: bilevel.write_model(None, "m.lp"), "model must be a Pyomo model"),
    (lambda: bilevel.write_model(pyo.ConcreteModel(), None), "path must be a str or Path"),
])
def test_fuzzed_bad_arguments_are_named(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_pandas_rows_paired_by_position_must_share_their_index():
    """A y Series whose index differs from X's (shuffled or sorted apart from X) was paired with X's rows by
    position without a word, i.e. each row got another row's label. Now an InputError; same index, or arrays,
    give the same answer as numpy arrays."""
    pd = pytest.importorskip("pandas")
    from bilevel.ranking import nonnegative_lasso

    data = bilevel.load_dataset("cancer")
    frame, labels = pd.DataFrame(data.X[:80]), pd.Series(data.y[:80])
    shuffled = labels.sample(frac=1.0, random_state=0)
    assert (shuffled.to_numpy() != labels.to_numpy()).any()  # positionally, other labels
    with pytest.raises(InputError, match="different row indexes"):
        bilevel.split_dataset(frame, shuffled, 5, 5)
    with pytest.raises(InputError, match="X_train and y_train .* different row indexes"):
        bilevel.tune(pd.DataFrame(X), pd.Series(Y, index=range(10, 16)), XV, YV)
    with pytest.raises(InputError, match="different row indexes"):
        nonnegative_lasso(frame, shuffled, 0.1)
    a = bilevel.split_dataset(frame, labels, 5, 5)
    b = bilevel.split_dataset(frame, shuffled.loc[frame.index], 5, 5)  # aligned by the caller
    c = bilevel.split_dataset(data.X[:80], data.y[:80], 5, 5)
    for s in (a, b):
        np.testing.assert_array_equal(s.X_train, c.X_train)
        np.testing.assert_array_equal(s.y_train, c.y_train)
    by_position = bilevel.split_dataset(frame, shuffled.to_numpy(), 5, 5)  # one pandas object: by position
    np.testing.assert_array_equal(by_position.y_train, shuffled.to_numpy()[by_position.train_index])


@pytest.mark.parametrize("row", ["zero_times_x", "fixed_variable"])
def test_a_row_without_free_variables_that_its_constant_breaks_is_an_infeasible_model(row):
    """Pyomo's compiler raised its raw InfeasibleConstraintException from solve_model and mps_model (found by the
    export hunt). Oracle: scipy's linprog calls the same LP infeasible (status 2), and the twin whose constant
    the row keeps is solved (optimum 0)."""
    import pyomo.environ as pyo
    from scipy.optimize import linprog

    from bilevel.library import mps_model
    from bilevel.solve import InfeasibleModelError

    def model(rhs):
        m = pyo.ConcreteModel()
        m.x, m.y = pyo.Var(bounds=(0, 1)), pyo.Var(bounds=(0, 1))
        m.y.fix(0)
        m.c = pyo.Constraint(expr=(0 * m.x if row == "zero_times_x" else m.y) >= rhs)
        m.o = pyo.Objective(expr=m.x)
        return m

    assert linprog([1.0], A_ub=[[0.0]], b_ub=[-1.0], bounds=[(0, 1)]).status == 2  # 0 x >= 1
    for call in (bilevel.solve_model, mps_model):
        with pytest.raises(InfeasibleModelError, match="the model is infeasible"):
            call(model(1.0))
    assert bilevel.solve_model(model(-1.0)).objective == pytest.approx(linprog([1.0], bounds=[(0, 1)]).fun)


def test_epsilon_minus_zero_is_zero(tmp_path, capsys):
    """--epsilon -0.0 was printed and recorded in the JSON as -0.0 (the tune-CLI hunt); the sign is math's."""
    import json
    import math

    from bilevel.validation import check_epsilon

    assert math.copysign(1.0, check_epsilon(-0.0)) == 1.0
    path = tmp_path / "r.json"
    assert main(["tune", "--data", "cancer", "--n-train", "4", "--n-val", "4", "--mode", "pessimistic",
                 "--epsilon", "-0.0", "--json", str(path)]) == 0
    assert "-0.0" not in capsys.readouterr().out
    result = json.loads(path.read_text())
    assert [math.copysign(1.0, e) for e in (result["epsilon"], result["results"]["pessimistic"]["epsilon"])] == [1, 1]


def test_an_objective_of_zero_is_not_minus_zero(capsys):
    """A pessimistic optimum of 0 came back as -0.0 (Pyomo's sum of the objective's terms) and was printed
    "-0.000000": a mean hinge loss has no sign. The instance of the tune-input audit of 2026-12-08."""
    import math

    assert main(["tune", "--data", "cancer", "--n-train", "2", "--n-val", "1", "--epsilon", "0.5"]) == 0
    assert "-0.000000" not in capsys.readouterr().out
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 2, 1)
    res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.5)
    assert res.objective == 0 and math.copysign(1.0, res.objective) == 1.0
    assert math.copysign(1.0, res.to_dict()["objective"]) == 1.0


def test_solve_model_refuses_non_finite_start_values_and_takes_arrays_of_pairs():
    """A NaN in ``mip_start`` was read as "not given" (0 clipped to the bounds) and an infinite value handed to
    HiGHS; both are now InputErrors naming the variable. A numpy array of pairs (as ``mip_start`` or as what
    ``improve`` returns) raised numpy's raw "truth value of an array is ambiguous"; it is now read like the
    list of the same pairs. Oracle: the optimum 2 of ``min x + y, x + y >= 2`` (x, y integer in [0, 3]),
    and the start's value handed to HiGHS."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.c = pyo.Constraint(expr=m.x + m.y >= 2)
    m.o = pyo.Objective(expr=m.x + m.y)
    for bad in (float("nan"), float("inf"), -np.inf):
        _raises(bilevel.solve_model, m, mip_start=[(m.x, bad), (m.y, 1.0)], match="mip_start gives x the value")
    pairs = np.array([(m.x, 1.0), (m.y, 1.0)], dtype=object)
    assert bilevel.solve_model(m, mip_start=pairs).objective == pytest.approx(2.0)
    assert bilevel.solve_model(m, mip_start=np.empty((0, 2), dtype=object)).objective == pytest.approx(2.0)

    def improve_nan(incumbent, bound, deadline):
        return [(m.x, float("nan")), (m.y, 2.0)]

    def improve_array(incumbent, bound, deadline):
        return np.array([(m.x, 2.0), (m.y, 0.0)], dtype=object)

    from bilevel.solve import _Injector, compile_model

    cm = compile_model(m)

    class Out:  # what HiGHS's user-solution callback sees
        mip_primal_bound, mip_dual_bound, running_time = 3.0, 1.0, 0.5

    class In:
        def setSolution(self, vector):
            self.vector = list(vector)

    class Event:
        data_out, data_in = Out(), In()

    injector = _Injector(cm, improve_array, 0.0, None)
    event = Event()
    injector.callback(event, 0)
    assert injector.error is None and event.data_in.vector == [2.0, 0.0]
    injector = _Injector(cm, improve_nan, 0.0, None)
    injector.callback(Event(), 0)
    assert isinstance(injector.error, InputError) and "improve's return value gives x" in str(injector.error)


def test_hinge_refuses_boolean_weights():
    # hinge(X, y, [True, False], 0) was the hinge of the weights 1, 0 (hinge_lp refuses a boolean w_bar)
    _raises(hinge, XV, YV, np.array([True, False]), 0.0, match="w must be 2 numeric weights, not booleans")


def test_compile_and_write_helpers_name_a_bad_model_or_path(tmp_path):
    """mps_model(None) and compile_model(5) raised an AttributeError from inside the compile, and
    replace_atomically(None, ...) one from ``None.parent``; they are InputErrors now. A str path is taken as a
    Path (it was an AttributeError too). Oracle: the file written through the str path."""
    from bilevel.export import replace_atomically
    from bilevel.library import mps_model
    from bilevel.solve import compile_model

    for call in (lambda: mps_model(None), lambda: compile_model(5)):
        with pytest.raises(InputError, match="expected a Pyomo model"):
            call()
    with pytest.raises(InputError, match="path must be a path"):
        replace_atomically(None, lambda temp: temp.write_text("x"))
    target = tmp_path / "out.txt"
    replace_atomically(str(target), lambda temp: temp.write_text("written"))
    assert target.read_text() == "written"


def test_an_int_beyond_4300_digits_in_the_split_highs_options_and_study_sizes(tmp_path):
    """The same ValueError came from split_dataset's size check (n_train=10**5000), a HiGHS option's refusal
    (mip_max_nodes=10**5000) and the study's refusal of too many runs (runs=10**5000)."""
    from bilevel.datasets import split_dataset
    from experiments.uci_study import StudyConfig

    X = np.arange(40.0).reshape(20, 2)
    y = np.repeat([-1.0, 1.0], 10)
    for call, name in [(lambda: split_dataset(X, y, 10**5000, 4), "n_train \\+ n_val = an integer of 5001 digits"),
                       (lambda: split_dataset(X, y, 4, 4, n_cal=10**5000), "n_cal = an integer of 5001 digits"),
                       (lambda: bilevel.tune(X[:4], y[[0, 10, 1, 11]], X[4:8], y[[2, 12, 3, 13]],
                                             highs_options={"mip_max_nodes": 10**5000}),
                        "mip_max_nodes=an integer of 5001 digits"),
                       (lambda: StudyConfig(runs=10**5000), "runs an integer of 5001 digits")]:
        with pytest.raises(InputError, match=name) as exc:
            call()
        assert "Exceeds the limit" not in str(exc.value), str(exc.value)


_HUGE = 10**5000  # repr() of it raises ValueError (Python's 4300-digit limit for int-to-str conversion)


def _certify_calls():
    from bilevel.certify import dag_depths, fixed_sequence_thresholds, ltt, p_values_from_losses, pareto_testing, rg_pt
    from bilevel.certify.pipelines import certify

    losses = np.random.default_rng(0).uniform(0, 0.3, size=(60, 4))
    return [
        (lambda: ltt(losses, 0.2, 0.1, control=_HUGE), "control"),
        (lambda: ltt(losses, 0.2, 0.1, procedure=_HUGE), "procedure"),
        (lambda: ltt(losses, 0.2, 0.1, procedure=[_HUGE]), "procedure"),
        (lambda: pareto_testing(losses, 0.2, 0.1, max_failures=[_HUGE]), "max_failures"),
        (lambda: rg_pt(losses, 0.2, 0.1, orphans=_HUGE), "orphans"),
        (lambda: rg_pt(losses, 0.2, 0.1, reshaping=_HUGE), "reshaping"),
        (lambda: rg_pt(losses, 0.2, 0.1, cluster_method=_HUGE), "cluster_method"),
        (lambda: certify(losses, 0.2, 0.1, method=_HUGE), "certification method"),
        (lambda: p_values_from_losses(losses, 0.2, method=_HUGE), "p-value method"),
        (lambda: dag_depths([[_HUGE], []]), "parents\\[0\\]"),
        (lambda: fixed_sequence_thresholds(3, 0.1, fdr=_HUGE), "fdr"),
        (lambda: fixed_sequence_thresholds(3, 0.1, max_failures=[_HUGE]), "max_failures"),
    ]


def _tune_calls():
    xt, yt, xv, yv = X[:4], Y[:4], XV[:4], YV[:4]
    calls = [(lambda kw=kw: bilevel.tune(xt, yt, xv, yv, **{kw: value}), kw)
             for kw, value in [("mode", _HUGE), ("replica", _HUGE), ("clock", _HUGE), ("warm_start", _HUGE),
                               ("cutoff_restarts", _HUGE), ("highs_options", _HUGE), ("w_bar_bounds", _HUGE),
                               ("w_bar_bounds", [_HUGE]), ("epsilon", [_HUGE]), ("time_limit", [_HUGE]),
                               ("race", [_HUGE]), ("mode", [_HUGE])]]
    return calls + [(lambda: bilevel.load_dataset(_HUGE), "name_or_path"),
                    (lambda: bilevel.split_dataset(X, Y, 2, 2, standardize=_HUGE), "standardize")]


@pytest.mark.parametrize("index", range(14), ids=lambda i: f"tune-{i}")
def test_an_int_beyond_4300_digits_in_tune_and_load_gets_the_input_error_meant(index):
    """``tune(mode=10**5000)`` and the other checks that print the value given with repr() raised Python's
    ValueError "Exceeds the limit (4300 digits) for integer string conversion" in place of the InputError naming
    the argument. Oracle: the argument's name in an InputError of ordinary length."""
    call, name = _tune_calls()[index]
    with pytest.raises(InputError, match=name) as exc:
        call()
    assert "Exceeds the limit" not in str(exc.value) and len(str(exc.value)) < 300, str(exc.value)[:300]


@pytest.mark.parametrize("index", range(12), ids=lambda i: f"certify-{i}")
def test_an_int_beyond_4300_digits_in_certify_gets_the_input_error_meant(index):
    """The same ValueError came from the certification pipelines' checks of their names and counts. Oracle: as
    above."""
    call, name = _certify_calls()[index]
    with pytest.raises(InputError, match=name) as exc:
        call()
    assert "Exceeds the limit" not in str(exc.value) and len(str(exc.value)) < 300, str(exc.value)[:300]


def _library_and_export_calls():
    from bilevel import library
    from bilevel.export import write_model

    model = solved_optimistic_model()
    return [
        (lambda: library.library_specs(modes=[(_HUGE, 0.1)]), "mode"),
        (lambda: library.library_specs(datasets=_HUGE), "datasets"),
        (lambda: library.InstanceSpec("cancer", "pessimistic", 0.0, 10, 10, 0, flip=_HUGE), "flip"),
        (lambda: library.short_names(_HUGE, 3), "prefix"),
        (lambda: library.select_rows([{"id": "a"}], patterns=_HUGE), "patterns"),
        (lambda: library.write_name_map(_HUGE, "names.csv"), "names"),
        (lambda: write_model(model, _HUGE), "path"),
        (lambda: bilevel.solve_model(bilevel.build_optimistic_model(X, Y, XV, YV), mip_start=_HUGE), "mip_start"),
        (lambda: bilevel.optimistic_tie_range(bilevel.tune(X, Y, XV, YV), _HUGE), "criterion"),
    ]


@pytest.mark.parametrize("index", range(9), ids=lambda i: f"library-{i}")
def test_an_int_beyond_4300_digits_in_library_export_solve_and_ties_gets_the_input_error_meant(index):
    """The same ValueError from repr() came from the instance library's checks, write_model's path check,
    solve_model's MIP start check and optimistic_tie_range's criterion check. Oracle: as above."""
    call, name = _library_and_export_calls()[index]
    with pytest.raises(InputError, match=name) as exc:
        call()
    assert "Exceeds the limit" not in str(exc.value) and len(str(exc.value)) < 300, str(exc.value)[:300]


def test_library_functions_refuse_what_is_not_an_instance_spec(tmp_path):
    """A number, a dict or a string where an InstanceSpec (or a BuiltInstance, or the log callable) goes was an
    AttributeError "'int' object has no attribute 'data'" or a TypeError from inside. Oracle: the argument named
    in an InputError, and nothing written."""
    from bilevel import library

    spec = library.library_specs(sizes=[5], datasets=["cancer"], modes=[("optimistic", 0.0)])[0]
    calls = [(lambda: library.build_instance({"data": "cancer"}), "spec must be an InstanceSpec"),
             (lambda: library.write_instance(3, tmp_path), "spec must be an InstanceSpec"),
             (lambda: library.write_instance(spec, tmp_path, built=3), "built must be the BuiltInstance"),
             (lambda: library.export_library(tmp_path, specs=3, solve=False), "specs must be a sequence"),
             (lambda: library.export_library(tmp_path, specs=spec, solve=False), "specs must be a sequence"),
             (lambda: library.export_library(tmp_path, specs=["cancer"], solve=False), "each of specs"),
             (lambda: library.export_library(tmp_path, specs=[spec], solve=False, log=3), "log must be a callable")]
    for call, said in calls:
        with pytest.raises(InputError, match=said):
            call()
    assert not any(tmp_path.iterdir())
    rows = library.export_library(tmp_path, specs=[spec], solve=False, log=lambda line: None)
    assert [r["id"] for r in rows] == [spec.id]


@pytest.mark.parametrize("field, value, said", [
    ("runs", (5,), "runs must be an integer"), ("seed", (0,), "seed must be an integer"),
    ("threads", (1,), "threads must be an integer"), ("perturbed_n_val", (4,), "perturbed_n_val must be an integer"),
    ("epsilons", ("a",), "each of epsilons must be a number"), ("epsilons", (10**400,), "too large for a float"),
    ("rho_vals", (None,), "each of rho_vals"), ("time_limit", (5,), "time_limit must be a number"),
    ("w_bar_ub", (1,), "w_bar_ub must be a number"), ("w_bar_ub", 10**400, "w_bar_ub is too large"),
    ("threads", _HUGE, "threads must be at most"), ("studies", (_HUGE,), "study must be one of"),
    ("datasets", (_HUGE,), "data sets must be"), ("tie_criteria", (_HUGE,), "unknown tie criteria"),
    ("flip", _HUGE, "flip must be one of"), ("label", _HUGE, "label must be a string"),
    ("label_column", _HUGE, "label_column must be a column name"),
], ids=lambda v: v if isinstance(v, str) else type(v).__name__)
def test_study_config_refuses_odd_values_by_name(field, value, said):
    """check_config let a tuple through where one integer goes (``runs=(5,)`` then failed with TypeError "'<' not
    supported between instances of 'tuple' and 'int'"), and met a string or an int beyond the float range among the
    epsilons or budgets with math.isfinite's TypeError or OverflowError, a tuple as the time limit or w_bar bound
    with a TypeError, and an int beyond 4300 digits with repr's ValueError. Oracle: the field named in an
    InputError of ordinary length."""
    from experiments.uci_study import StudyConfig

    with pytest.raises(InputError, match=said) as exc:
        StudyConfig(**{field: value})
    assert "Exceeds the limit" not in str(exc.value) and len(str(exc.value)) < 300, str(exc.value)[:300]


@pytest.mark.parametrize("name", [3, ["highs"], _HUGE], ids=["int", "list", "huge"])
def test_a_solver_name_that_is_not_text_is_refused(name):
    """solvers.common.check_solver_name (and so get_runner) called name.lower(): an AttributeError for a number
    or a list. Oracle: the InputError listing the known solvers."""
    from solvers.common import check_solver_name, get_runner

    for call in (check_solver_name, get_runner):
        with pytest.raises(InputError, match="unknown solver .*; known: highs"):
            call(name)


def test_value_text_cuts_long_text_at_its_limit():
    """value_text(value, limit=N) is repr(value) when that has at most N characters, else its first N and '...'.
    Oracle: repr."""
    from bilevel.validation import value_text

    for value in ("x" * 100, list(range(50)), "short", 3.5, None):
        text = repr(value)
        want = text if len(text) <= 20 else text[:20] + "..."
        assert value_text(value, limit=20) == want and value_text(value) == text
    assert value_text(10**5000, limit=5) == "an integer of 5001 digits"


def test_solve_model_refuses_start_keys_that_are_no_variable_of_the_model():
    """A start keyed by names, numbers or a clone's variables was dropped without a word (HiGHS started from
    nothing). A variable of the model that is no column (in no row or term) is still taken and ignored.
    Oracle: the optimum 2 of ``min x + y, x + y >= 2``."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.y = pyo.Var(domain=pyo.Integers, bounds=(0, 3))
    m.unused = pyo.Var(bounds=(0, 1))
    m.c = pyo.Constraint(expr=m.x + m.y >= 2)
    m.o = pyo.Objective(expr=m.x + m.y)
    _raises(bilevel.solve_model, m, mip_start={"x": 1.0}, match=r"mip_start keys must be the model's Pyomo variables; "
                                                                  r"got 'x'")
    _raises(bilevel.solve_model, m, mip_start=[(0, 1.0)], match="mip_start keys must be the model's Pyomo variables")
    _raises(bilevel.solve_model, m, mip_start=[(m.clone().x, 1.0)], match="'x', a variable of another model")
    assert bilevel.solve_model(m, mip_start=[(m.x, 1.0), (m.y, 1.0), (m.unused, 0.5)]).objective == pytest.approx(2.0)
    b = pyo.Block()
    m.sub = b
    b.z = pyo.Var(bounds=(0, 1))  # a variable of a sub-block is the model's own
    assert bilevel.solve_model(m, mip_start=[(m.x, 2.0), (b.z, 1.0)]).objective == pytest.approx(2.0)
