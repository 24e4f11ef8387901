"""solvers.check_solution on an answer whose box leaves bounds loose around the follower: the answer is rejected (at its
w_bar the follower's LP can do better for itself), and a note names the tightest box around (w, b) and the replica,
where every bilevel check passes with the same objective (what bilevel.verify_tightest_box does for tune's answers).

Oracle: an exact bilevel-feasible answer built by LPs alone (bilevel.hinge_lp, Eq. (24) of the pessimistic bilevel
tuning paper) at a uniform box: the replica is the training optimum there, the follower the least flipped-label loss
under the budget (1 + epsilon) v*. Every bound is then loosened to the instance's upper bound 1. The note's box is
recomputed here from (w, w_hat) and checked again by the checker. No MILP solve, so the answers do not move with the
HiGHS release or seed."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from bilevel import hinge_lp, library
from solvers import check_solution

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "models" / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}
#: Committed instances: epsilon 0.2, where the replica reaches beyond |w| in some coordinates (a box cut to |w| alone
#: would cut the replica off and change v*), and epsilon 0, whose model shares the follower as its replica.
CASES = ["diabetes-pes-e0.2-n10-s0", "cancer-pes-e0.2-n10-s0", "cancer-pes-e0-n10-s0"]
BOX = 0.2


def _lp_answer(instance):
    """An exact answer at the box ``BOX`` in every coordinate, and (w, w_hat) as arrays."""
    spec = library.InstanceSpec.from_row(ROWS[instance])
    built = library.build_instance(spec)
    s = built.split
    p = s.X_train.shape[1]
    w_bar = np.full(p, BOX)
    replica = hinge_lp(w_bar, (s.X_train, s.y_train))
    budget = (1 + spec.epsilon) * replica.value
    Vf = built.flipped
    follower = hinge_lp(w_bar, (s.X_val[Vf], -s.y_val[Vf]), [(s.X_train, s.y_train, budget)])
    values = {**{f"w_bar[{j}]": BOX for j in range(p)}, **{f"w[{j}]": float(follower.w[j]) for j in range(p)},
              "b": float(follower.b)}
    w_hat = np.asarray(replica.w, dtype=float)
    if spec.epsilon > 0:  # the epsilon = 0 model has no w_hat of its own
        values.update({f"w_hat[{j}]": float(w_hat[j]) for j in range(p)})
    else:
        w_hat = np.zeros(p)
    return values, np.asarray(follower.w, dtype=float), w_hat


@pytest.mark.parametrize("instance", CASES)
def test_loosened_bounds_are_rejected_and_the_tightest_box_named(instance):
    values, w, w_hat = _lp_answer(instance)
    p = len(w)
    assert check_solution.check_solution(MANIFEST, instance, values).trusted
    if "e0.2" in instance and instance.startswith("diabetes"):
        assert np.any(np.abs(w_hat) > np.abs(w) + 1e-6)  # the replica matters for the box
    loose = dict(values, **{f"w_bar[{j}]": 1.0 for j in range(p)})
    rep = check_solution.check_solution(MANIFEST, instance, loose)
    assert not rep.trusted and rep.reasons
    notes = [n for n in rep.notes if "tightest box" in n]
    assert len(notes) == 1, rep.summary()
    named = np.array([float(x) for x in re.search(r"w_bar' = \[([^]]*)\]", notes[0]).group(1).split(",")])
    expected = np.minimum(1.0, np.maximum(ROWS[instance]["w_bar_lb"], np.maximum(np.abs(w), np.abs(w_hat))))
    assert np.allclose(named, expected, rtol=1e-5, atol=1e-9)
    assert f"({int(np.sum(expected < 1.0))} of {p} bounds lowered)" in notes[0]
    # the box the note names, with the same (w, b), is trusted by the checker itself
    at_tight = dict(loose, **{f"w_bar[{j}]": float(expected[j]) for j in range(p)})
    again = check_solution.check_solution(MANIFEST, instance, at_tight)
    assert again.trusted, again.summary()
    assert again.objective_recomputed == pytest.approx(rep.objective_recomputed, abs=1e-12)


def test_no_box_note_when_no_box_makes_the_follower_optimal():
    values, _, _ = _lp_answer(CASES[0])
    shifted = dict(values, b=values["b"] + 0.5)  # off the follower's optimum in any box
    rep = check_solution.check_solution(MANIFEST, CASES[0], shifted)
    assert not rep.trusted
    assert not any("tightest box" in n for n in rep.notes), rep.summary()


def test_no_box_note_for_a_wrong_claimed_objective_alone():
    values, _, _ = _lp_answer(CASES[0])
    rep = check_solution.check_solution(MANIFEST, CASES[0], dict(values, objective=5.0))
    assert not rep.trusted and any("claimed objective" in r for r in rep.reasons)
    assert not any("tightest box" in n for n in rep.notes)
