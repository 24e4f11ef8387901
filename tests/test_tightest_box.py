"""bilevel.verify_tightest_box and its use in tune: a MILP answer whose box leaves a bound loose around the
follower fails verification (the follower's LP could move that coordinate; the answer leans on the solver's
tolerances), and the tightest box around the follower verifies with the same objective. Oracle: the pessimistic
value at a fixed box from three independent LPs (tests/oracles.py, scipy's linprog), Eq. (24) of the pessimistic
bilevel tuning paper.

The instance is the one the Table A1 grid met (diabetes |V| = 5, |T| = 10, run 9 of study seed 0; epsilon 0,
all validation labels flipped): HiGHS 1.15.1 returned objective 0.1431 at a box with ``w_bar_6 = 1`` and
``|w_6| = 0.026``, unverified, where Gurobi and CPLEX returned the tightest box, verified."""
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import bilevel
from bilevel.verify import solution_w_bar, verify_model, verify_tightest_box
from oracles import pessimistic_value

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from experiments import uci_study as us  # noqa: E402


@pytest.fixture(scope="module")
def case():
    data = bilevel.load_dataset("diabetes")
    s = bilevel.split_dataset(data.X, data.y, 10, 5, seed=us.split_seed(0, "diabetes", 9))
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "optimistic", w_bar_bounds=(0.0, 1.0), threads=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # before the tightest box: "failed verification"
        pes = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "pessimistic", w_bar_bounds=(0.0, 1.0),
                           epsilon=0.0, flip="all", optimistic=opt, threads=1)
    return s, pes


def _value(s, w_bar):
    return pessimistic_value(w_bar, s.X_train, s.y_train, s.X_val, s.y_val, np.arange(len(s.y_val)), 0.0)


def test_tune_returns_a_verified_box_whose_pessimistic_value_is_its_objective(case):
    s, pes = case
    assert pes.status == "optimal" and pes.verified
    assert _value(s, pes.w_bar) == pytest.approx(pes.objective, abs=1e-6)
    assert np.all(np.abs(pes.w) <= pes.w_bar + 1e-9)


def test_a_loose_box_fails_and_its_tightest_box_verifies_with_the_same_objective(case):
    s, pes = case
    m = pes.model
    j = int(np.argmin(np.abs(pes.w)))  # w_6 = 0.026 in HiGHS's answer: the bound HiGHS left at 1
    assert abs(pes.w[j]) < 0.5
    loose = pes.w_bar.copy()
    loose[j] = 1.0
    key = list(m.w_bar)[j]
    saved = {k: m.w_bar[k].value for k in m.w_bar}
    try:
        m.w_bar[key].set_value(1.0)
        objective = float(np.mean([m.g[k].value for k in m.g]))
        # the oracle: at the loose box the follower optima reach more than the objective claimed
        assert _value(s, loose) > objective + 1e-4
        assert not verify_model(m).verified
        ver = verify_tightest_box(m)
        assert ver.verified and any("w_bar tightened" in msg for msg in ver.messages)
        tight = solution_w_bar(m)
        assert np.allclose(tight, np.minimum(loose, np.abs(pes.w)), atol=1e-12)
        assert _value(s, tight) == pytest.approx(objective, abs=1e-6)
        assert ver.objective_reported == pytest.approx(objective, abs=1e-12)
    finally:
        for k, value in saved.items():
            m.w_bar[k].set_value(value)


def test_a_follower_that_no_box_makes_optimal_is_left_unverified_and_its_box_unchanged(case):
    s, pes = case
    m = pes.model
    saved_b = m.b.value
    try:
        m.b.set_value(saved_b + 0.5)  # off the training optimum in any box
        before = solution_w_bar(m)
        ver = verify_tightest_box(m)
        assert not ver.verified and not any("w_bar tightened" in msg for msg in ver.messages)
        assert np.array_equal(solution_w_bar(m), before)
    finally:
        m.b.set_value(saved_b)


def test_bad_input_is_refused_as_by_verify_model():
    with pytest.raises(bilevel.InputError):
        verify_tightest_box(None)
