"""experiments/bench_solvers.py: the package's models handed to other solvers. The models it writes have the optimum
``tune`` proves on the same split, every runner's answer is checked by ``verify_model`` (and a spoiled one is not
verified), and bad instances are refused before any solve."""
from __future__ import annotations

import argparse
import csv
import warnings

import pytest

import bilevel
from bilevel.tune import padded_cutoff
from experiments import bench_solvers as bs
from experiments.bench_milp import benchmark_split
from solvers import scip


def _tune(mode: str, data: str, n: int, split: int):
    s = benchmark_split(data, n, split)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=60)
        if mode == "pessimistic":
            res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all",
                               optimistic=res, time_limit=60)
    assert res.status == "optimal"
    return res


def test_instances_are_parsed_and_bad_ones_refused(capsys):
    assert bs.parse_instance("optimistic:cancer:100:1") == ("optimistic", "cancer", 100, 1, "box")
    assert bs.parse_instance("pessimistic:diabetes:20:0") == ("pessimistic", "diabetes", 20, 0, "tune")
    assert bs.parse_instance("pessimistic:diabetes:20:0:0.5") == ("pessimistic", "diabetes", 20, 0, 0.5)
    for text, words in (("optimistic:cancer:100", "MODE:DATA:N:SPLIT"), ("neutral:cancer:10:0", "MODE must be"),
                        ("optimistic:cancer:1:0", ">= 2"), ("optimistic:cancer:10:-1", ">= 0"),
                        ("pessimistic:cancer:10:0:box", "optimistic instances only"),
                        ("optimistic:cancer:10:0:best", "tune, box, none or a number"),
                        ("optimistic:cancer:10:0:nan", "finite")):
        with pytest.raises(argparse.ArgumentTypeError, match=words):
            bs.parse_instance(text)
    for argv, words in ((["--instance", "optimistic:iris:10:0"], "--instance"),
                        (["--instance", "optimistic:cancer:10:0", "--solver", "glpk"], "not a known solver"),
                        (["--instance", "optimistic:cancer:10:0", "--seeds", "1", "1"], "more than once"),
                        (["--instance", "optimistic:cancer:10:0", "--instance", "optimistic:cancer:10:0:box"],
                         "more than once")):
        with pytest.raises(SystemExit) as stop:
            bs.main(["--out", "unused", *argv])
        assert stop.value.code == 2 and words in capsys.readouterr().err, argv


@pytest.mark.parametrize("inst", ["optimistic:cancer:10:1", "pessimistic:cancer:10:0", "optimistic:diabetes:10:0:none"])
def test_the_written_models_have_tunes_optimum_for_every_solver(inst, tmp_path):
    """Each solver's answer on the written file equals ``tune``'s proven optimum of the same split (an oracle that
    builds and solves its own models) and is verified; the CSV and the Markdown report hold every solve."""
    mode, data, n, split, _ = bs.parse_instance(inst)
    optimum = _tune(mode, data, n, split).objective
    solvers = ["highs", "scip"] if scip.available() else ["highs"]
    rows = bs.run([bs.parse_instance(inst)], solvers, [0, 1], 60.0, tmp_path, report=lambda *_: None)
    assert [(r["solver"], r["seed"]) for r in rows] == [(s, k) for s in solvers for k in (0, 1)]
    for r in rows:
        assert r["status"] == "optimal" and r["verified"] == "yes", r
        assert r["objective"] == pytest.approx(optimum, abs=1e-6), r
    with open(tmp_path / "runs.csv", encoding="utf-8") as fh:
        assert len(list(csv.DictReader(fh))) == len(rows)
    report = (tmp_path / "runs.md").read_text(encoding="utf-8")
    assert report.count(bs.instance_id(bs.parse_instance(inst), 0.2)) == len(solvers)
    assert "| 1.00x |" in report  # HiGHS against itself


def test_models_are_built_around_what_they_say(tmp_path):
    """``box``: the cutoff is the padded value of a box search, a feasible point, so at least the optimum;
    ``tune``: the model of the tune call, whose cutoff, if any, the call's restarts ended with; a number: that value."""
    res = _tune("optimistic", "cancer", 20, 0)
    model, around = bs.build_instance_model(("optimistic", "cancer", 20, 0, "box"), 0.2, 60.0)
    assert around == model.bilevel_info["objective_cutoff"] >= res.objective - 1e-9
    assert around == padded_cutoff(bs.box_search_value(model))
    model, around = bs.build_instance_model(("optimistic", "cancer", 20, 0, 0.3), 0.2, 60.0)
    assert around == model.bilevel_info["objective_cutoff"] == padded_cutoff(0.3)
    model, around = bs.build_instance_model(("optimistic", "cancer", 20, 0, "none"), 0.2, 60.0)
    assert around is None and model.bilevel_info.get("objective_cutoff") is None


def test_a_spoiled_solution_is_not_verified(tmp_path):
    """The check is not a formality: the HiGHS answer with the follower's hyperplane replaced by ``w = 0, b = 0``
    (training hinge loss 1, above the least one), or ``w_bar`` moved off the follower's box, is not verified. (A
    moved intercept alone is no spoil: on separable training data a range of ``b`` is optimal.)"""
    inst = bs.parse_instance("optimistic:cancer:10:1")
    model, _ = bs.build_instance_model(inst, 0.2, 60.0)
    path = bilevel.export.write_model(model, tmp_path / "m.mps")
    row = bs.solve_file(path, "highs", 0, 60.0)
    solution = row["solution"]
    assert bs.verify_solution(model, solution) == "yes"
    flat = {**solution, "b": 0.0, **{name: 0.0 for name in solution if name.startswith("w(")}}
    assert bs.verify_solution(model, flat).startswith("no: (w, b) is not optimal")
    w_bar = [name for name in solution if name.startswith("w_bar(")]
    shrunk = {**solution, **{name: 0.0 for name in w_bar}}
    assert bs.verify_solution(model, shrunk).startswith("no")
