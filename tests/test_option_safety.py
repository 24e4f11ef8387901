"""experiments/option_safety.py tells a wrong answer from a time limit, and finds the refused option."""
import sys
from pathlib import Path

import highspy
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import option_safety  # noqa: E402


def test_wrong_counts_contradictions_of_a_proven_optimum_only():
    assert option_safety.wrong(("Optimal", 0.5), ("Infeasible", float("inf")))
    assert option_safety.wrong(("Optimal", 0.5), ("Optimal", 0.6))
    assert not option_safety.wrong(("Optimal", 0.5), ("Optimal", 0.50001))
    assert not option_safety.wrong(("Optimal", 0.5), ("Time limit reached", 0.7))
    assert not option_safety.wrong(("Time limit reached", 0.5), ("Optimal", 0.4))
    # a dual bound above the proven optimum (the MILPs minimise) is wrong whatever the status
    assert option_safety.wrong(("Optimal", 0.5, 0.5), ("Optimal", 0.5, 16.0))
    assert option_safety.wrong(("Optimal", 0.5, 0.5), ("Time limit reached", 0.7, 0.6))
    assert not option_safety.wrong(("Optimal", 0.5, 0.5), ("Time limit reached", 0.7, 0.4))
    assert not option_safety.wrong(("Optimal", 0.5, 0.5), ("Optimal", 0.5, 0.50001))
    assert not option_safety.wrong(("Optimal", 0.5, 0.5), ("Time limit reached", float("inf"), float("-inf")))


@pytest.mark.skipif(highspy.Highs().version() != "1.15.1", reason="measured on HiGHS 1.15.1")
def test_the_scan_flags_lifting_for_probing_and_passes_presolve_off(monkeypatch, capsys):
    real = option_safety.instances
    monkeypatch.setattr(option_safety, "instances", lambda sizes: real(sizes, seeds=(0,)))
    assert option_safety.main(["--options", "presolve=off", "--sizes", "5"]) == 0
    assert option_safety.main(["--options", "mip_lifting_for_probing=1", "--sizes", "5"]) == 1
    out = capsys.readouterr().out
    assert "presolve='off': wrong on 0 of" in out and "mip_lifting_for_probing=1: wrong on" in out
    assert "mip_lifting_for_probing=1: wrong on 0 of" not in out


@pytest.mark.skipif(highspy.Highs().version() != "1.15.1", reason="measured on HiGHS 1.15.1")
def test_the_scan_flags_a_dual_bound_above_the_optimum(monkeypatch, capsys):
    # user_objective_scale=5: HiGHS 1.15.1 says Optimal at the right value with a dual bound 2**5 times it
    # (split 1: diabetes optimistic and pessimistic, optimum 0.0677664, bound 2.16852; split 0's optima are 0)
    real = option_safety.instances
    monkeypatch.setattr(option_safety, "instances", lambda sizes: real(sizes, seeds=(1,)))
    assert option_safety.main(["--options", "user_objective_scale=5", "--sizes", "5"]) == 1
    out = capsys.readouterr().out
    assert "user_objective_scale=5: wrong on" in out and "user_objective_scale=5: wrong on 0 of" not in out
