"""experiments/probe_binaries.py: every binary it fixes really takes that value in every solution of objective
at most the cutoff (checked by solving the MILP with the binary the other way), and its bounds are LP bounds."""
import sys
from pathlib import Path

import pytest

import bilevel
from bilevel.errors import SolverError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import probe_binaries  # noqa: E402


@pytest.mark.parametrize("mode", ["opt", "pes0.2"])
def test_fixings_hold_for_every_solution_within_the_cutoff(mode, tmp_path):
    model, cutoff = probe_binaries.model_around("diabetes", 10 if mode == "opt" else 6, 0, mode, None)
    res = probe_binaries.probe(model, cutoff)
    assert res["free"] and res["fixed"]  # (3 of 28 and 3 of 53 here)
    assert all(bound >= res["root"] - 1e-9 for bound in res["branch"].values())
    checked = 0
    for k, value in res["fixed"].items():
        var = res["columns"][k]
        var.fix(1.0 - value)
        try:
            other = bilevel.solve_model(model)
            assert other.objective > model.objective_cutoff.upper + 1e-9  # the other value only above the cutoff row
        except SolverError:  # or no solution at all
            pass
        var.fix(value)
        assert bilevel.solve_model(model).objective == pytest.approx(cutoff, rel=1e-5, abs=1e-7)
        var.unfix()
        checked += 1
    assert checked == len(res["fixed"])
    args = ["--data", "diabetes", "--n", "6", "--seed", "0", "--mode", mode, "--out", str(tmp_path)]
    assert probe_binaries.main(args) == 0
    assert "probing fixes" in (tmp_path / "probe.txt").read_text()
