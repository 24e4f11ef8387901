"""The box-search primal heuristic: the search itself on known functions, its candidate boxes, the tuning
hook's solutions (feasible for the MILP, bilevel values confirmed by the LP oracle), and the solve_model
hook that hands them to HiGHS mid-run."""
import time

import numpy as np
import pyomo.environ as pyo
import pytest

import bilevel
from bilevel.box_search import candidate_boxes, expected_evaluations, search_box
from bilevel.tune import _box_improver
from bilevel.warmstart import kkt_start, start_at
from oracles import optimistic_value, pessimistic_value, tiny_instance
from test_warmstart import _max_violation


def _recording(f):
    seen = []

    def evaluate(box):
        seen.append(box.copy())
        value = f(box)
        return None if value is None else (value, box.copy())

    return evaluate, seen


def test_coordinate_search_reaches_a_reachable_minimum():
    target = np.array([0.4, 0.0, 1.0, 0.625])  # 1 * 0.5 * 0.8, the lower bound, the upper bound, 1 * 0.5 * 1.25
    evaluate, seen = _recording(lambda w: float(np.abs(w - target).sum()))
    found = search_box(evaluate, [np.ones(4)], np.zeros(4), np.ones(4), sweeps=3)
    assert found.objective == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(found.w_bar, target, atol=1e-12)
    assert found.evaluations == len(seen)
    assert min(np.abs(b - target).sum() for b in seen) == pytest.approx(found.objective)
    # Without sweeps only the given boxes are tried, best first kept, all clipped to the bounds.
    evaluate, seen = _recording(lambda w: float(np.abs(w - target).sum()))
    found = search_box(evaluate, [np.full(4, 2.0), np.full(4, 0.5), np.full(4, -1.0)], np.zeros(4), np.ones(4),
                       sweeps=0)
    assert [b.tolist() for b in seen] == [[1.0] * 4, [0.5] * 4, [0.0] * 4]
    np.testing.assert_allclose(found.w_bar, np.full(4, 0.5))


def test_the_first_of_equal_values_is_kept_and_each_upper_bound_is_tried():
    """Two documented rules of search_box (mutation testing: either broken passed the suite): of boxes of equal
    value the first is kept; the coordinate search sets each ``w_bar_j`` to its upper bound too, so a value reached
    only there (coordinate 1 at 1.0, out of reach of the steps 0.5-2 from 0.1) is found in one sweep."""
    found = search_box(lambda box: (1.0, box.tolist()), [np.array([0.5]), np.array([0.7])], [0.0], [1.0], sweeps=0)
    assert found.w_bar.tolist() == [0.5] and found.payload == [0.5] and found.evaluations == 2
    found = search_box(lambda box: (0.0 if box[1] >= 1.0 else 1.0, None), [np.array([0.1, 0.1])], [0.0, 0.0],
                       [1.0, 1.0], sweeps=1)
    assert found.objective == 0.0 and found.w_bar.tolist() == [0.1, 1.0]


def test_floor_deadline_and_missing_points():
    evaluate, seen = _recording(lambda w: 0.0)
    found = search_box(evaluate, [np.ones(3), np.zeros(3)], np.zeros(3), np.ones(3), floor=0.0)
    assert found.evaluations == 1 and len(seen) == 1  # the first box meets the floor: stop
    evaluate, seen = _recording(lambda w: 1.0)
    found = search_box(evaluate, [np.ones(3)], np.zeros(3), np.ones(3), deadline=time.perf_counter() - 1.0)
    assert found.evaluations == 0 and found.w_bar is None and found.objective == np.inf
    evaluate, seen = _recording(lambda w: None if w[0] > 0.5 else float(w.sum()))
    found = search_box(evaluate, [np.ones(2), np.array([0.5, 1.0])], np.zeros(2), np.ones(2), sweeps=0)
    np.testing.assert_allclose(found.w_bar, [0.5, 1.0])
    assert found.objective == pytest.approx(1.5)


def test_candidate_boxes_lie_in_the_box():
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 15, 15, seed=0)
    ub = np.linspace(0.2, 1.0, d.X.shape[1])
    boxes = candidate_boxes(s.X_train, s.y_train, s.X_val, s.y_val, ub)
    assert len(boxes) == 3 * 5 * 6 + 5
    assert all(b.shape == ub.shape and (b >= 0).all() and (b <= ub + 1e-9).all() for b in boxes)
    # One class in the validation set: its block (and only it) is skipped.
    one = s.y_val > 0
    assert len(candidate_boxes(s.X_train, s.y_train, s.X_val[one], s.y_val[one], ub)) == 2 * 5 * 6 + 5


def _load(model, pairs):
    for var, value in pairs:
        var.set_value(value, skip_validation=True)


@pytest.mark.parametrize("kind", ["optimistic", "pessimistic"])
@pytest.mark.parametrize("seed", [0, 2])
def test_improver_solution_is_feasible_and_its_value_is_the_bilevel_value(kind, seed):
    Xt, yt, Xv, yv = tiny_instance(seed, 10, 8)
    flipped = np.arange(len(yv))
    if kind == "optimistic":
        model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
        oracle = lambda wb: optimistic_value(wb, Xt, yt, Xv, yv)  # noqa: E731
        boxes = [np.ones(2)]
    else:
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, 0.2, (0, 1), 1e3)
        oracle = lambda wb: pessimistic_value(wb, Xt, yt, Xv, yv, flipped, 0.2)  # noqa: E731
        boxes = [np.ones(2), np.full(2, 0.5)]
    ub_value = start_at(model, np.ones(2))[1]
    search = _box_improver(model, boxes, 0.0, 1e-3)
    improve, after = search["improve"], search["improve_after"]
    assert after == pytest.approx(max(1.0, 3.0 * 1e-3 * expected_evaluations(len(boxes), 2)))
    pairs = improve(np.inf, -np.inf, None)
    assert pairs is not None
    _load(model, pairs)
    assert _max_violation(model) <= 1e-6
    assert bilevel.verify_model(model).verified
    value = pyo.value(model.validation_hinge)
    assert value <= ub_value + 1e-9
    w_bar = np.array([model.w_bar[j].value for j in model.w_bar])
    assert value == pytest.approx(oracle(w_bar), abs=1e-6)
    # Nothing is returned when the incumbent is already as good.
    assert improve(value, -np.inf, None) is None


def test_solve_model_hands_the_hook_solution_to_highs_once():
    d = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(d.X, d.y, 20, 20, seed=0)
    model = bilevel.build_optimistic_model(s.X_train, s.y_train, s.X_val, s.y_val)
    pairs, value = start_at(model, np.full(d.X.shape[1], 0.3))
    calls = []

    def improve(incumbent, dual_bound, deadline):
        calls.append((incumbent, dual_bound, deadline))
        return pairs

    # Stop at the first improving solution: it must be the one the hook handed over.
    info = bilevel.solve_model(model, improve=improve, improve_after=0.0, options={"mip_max_improving_sols": 1})
    assert len(calls) == 1 and calls[0][2] is None
    assert info.objective == pytest.approx(value, abs=1e-9)
    # Raced: still one call; a full solve reaches the optimum of a plain solve.
    calls.clear()
    exact = bilevel.solve_model(model, mip_start=kkt_start(model)).objective
    info = bilevel.solve_model(model, improve=improve, improve_after=0.0, race=2, time_limit=60)
    assert len(calls) == 1 and calls[0][2] is not None
    assert info.optimal and info.objective == pytest.approx(exact, abs=1e-7)


def test_an_error_in_the_hook_is_raised_after_the_solve():
    Xt, yt, Xv, yv = tiny_instance(0, 10, 8)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)

    def improve(incumbent, dual_bound, deadline):
        raise RuntimeError("heuristic bug")

    with pytest.raises(RuntimeError, match="heuristic bug"):
        bilevel.solve_model(model, improve=improve, improve_after=0.0)


def test_an_lp_failure_at_one_box_only_drops_that_box(monkeypatch):
    import importlib

    from bilevel.errors import SolverError

    tune_module = importlib.import_module("bilevel.tune")
    Xt, yt, Xv, yv = tiny_instance(0, 10, 8)
    model = bilevel.build_optimistic_model(Xt, yt, Xv, yv)
    real = tune_module.queued_start

    def flaky(m, w_bar):
        if w_bar[0] > 0.9:  # every box with a wide first coordinate fails
            raise SolverError("hinge LP failed: HiGHS reports Infeasible")
        return real(m, w_bar)

    monkeypatch.setattr(tune_module, "queued_start", flaky)
    improve = _box_improver(model, [np.ones(2)], 0.0, 1e-3)["improve"]
    pairs = improve(np.inf, -np.inf, None)
    assert pairs is not None
    _load(model, pairs)
    assert model.w_bar[0].value <= 0.9 and _max_violation(model) <= 1e-6
