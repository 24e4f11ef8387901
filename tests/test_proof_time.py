"""experiments/proof_time.py: started at the optimum, both re-solves prove the tune call's optimum."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import proof_time  # noqa: E402


def test_re_solves_from_the_optimum_reach_it(capsys):
    res, out = proof_time.proof_times("diabetes", 6, 1, 0.2, random_seeds=1, time_limit=30)
    assert res.status == "optimal" and len(out) == 2
    assert [cutoff is None for cutoff, _, _ in out] == [True, False]
    for _, _, info in out:
        assert info.status == "optimal"
        assert info.objective == pytest.approx(res.objective, rel=1e-4, abs=1e-6)
    assert proof_time.main(["--data", "diabetes", "--n", "6", "--seed", "1", "--random-seeds", "1"]) == 0
    assert "started at the optimum, built around the optimum, HiGHS seed 0: optimal" in capsys.readouterr().out
