"""experiments/proof_time.py: started at the optimum, every re-solve proves the tune call's optimum."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bilevel.tune import padded_cutoff  # noqa: E402
from experiments import proof_time  # noqa: E402


def test_re_solves_from_the_optimum_reach_it(capsys):
    res, out = proof_time.proof_times("diabetes", 6, 1, 0.2, random_seeds=1, time_limit=30)
    assert res.status == "optimal" and len(out) == 2
    assert [cutoff is None for cutoff, _, _, _ in out] == [True, False]
    assert out[1][0] == padded_cutoff(res.objective)
    for _, _, _, info in out:
        assert info.status == "optimal"
        assert info.objective == pytest.approx(res.objective, rel=1e-4, abs=1e-6)
    assert proof_time.main(["--data", "diabetes", "--n", "6", "--seed", "1", "--random-seeds", "1"]) == 0
    assert "started at the optimum, built around the optimum (" in capsys.readouterr().out


def test_optimistic_mode_and_a_looser_cutoff():
    """A model built around a value above the optimum decides no more points than one built around the
    optimum (a larger cutoff only widens the bound-tightening set), and both prove the optimum."""
    res, out = proof_time.proof_times("cancer", 10, 0, 0.0, random_seeds=2, time_limit=30, mode="optimistic",
                                      cutoffs=("optimum", 0.5))
    assert res.mode == "optimistic" and len(out) == 4
    assert [(c == 0.5, rs) for c, rs, _, _ in out] == [(False, 0), (True, 0), (False, 1), (True, 1)]
    assert out[0][2] >= out[1][2]
    for _, _, _, info in out:
        assert info.status == "optimal"
        assert info.objective == pytest.approx(res.objective, rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("args, message", [
    (["--cutoffs", "-1"], "a cutoff must be a finite mean hinge value >= 0"),
    (["--cutoffs", "x"], "expected 'none', 'optimum' or a number"),
    (["--cutoffs", "optimum", "optimum"], "--cutoffs lists optimum more than once"),
    (["--n", "1"], "--n: must be an integer >= 2"),
    (["--n", "1000"], "--n: cancer, |T| = |V| = 1000"),
])
def test_bad_arguments_end_with_one_line(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        proof_time.main(["--data", "cancer", "--n", "10", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_each_line_is_printed_as_its_solve_ends(monkeypatch, capsys):
    # the command printed nothing until every solve had run (each up to --time-limit seconds): each line now comes
    # as its solve ends, the same lines in the same order
    printed = []  # the lines printed when each re-solve starts
    real = proof_time.bilevel.solve_model

    def solve_model(*args, **kwargs):
        printed.append(capsys.readouterr().out)
        return real(*args, **kwargs)

    monkeypatch.setattr(proof_time.bilevel, "solve_model", solve_model)
    assert proof_time.main(["--data", "diabetes", "--n", "6", "--seed", "1", "--random-seeds", "2",
                            "--time-limit", "30", "--cutoffs", "optimum"]) == 0
    printed.append(capsys.readouterr().out)
    assert len(printed) == 3
    assert printed[0].startswith("tune: optimal ") and printed[0].count("\n") == 1
    for seed, text in enumerate(printed[1:]):
        assert text.startswith("started at the optimum, built around the optimum (") and text.count("\n") == 1
        assert f"HiGHS seed {seed}: optimal " in text
