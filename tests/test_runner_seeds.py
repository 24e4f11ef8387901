"""The runners' ``seed`` (each solver's random seed) and the HiGHS runner's ``options``: a bad seed is refused before
any solver sees it, a seed reaches the solver (seeds change its search, not its optimum, and the same seed repeats
the search), and ``solvers.compare --seed`` hands the seed to every runner."""
from __future__ import annotations

from pathlib import Path

import pytest

from bilevel import library
from bilevel.errors import InputError
from bilevel.tune import tuning_options
from solvers import common, compare, highs
from solvers.common import get_runner

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "models" / "manifest.csv"
ROWS = {r["id"]: r for r in library.read_manifest(MANIFEST)}
#: Solved by every runner in well under a second, in tens to hundreds of nodes that depend on the seed.
INSTANCE = "cancer-pes-e0-n10-s0"


@pytest.mark.parametrize("name", sorted(common.RUNNERS))
@pytest.mark.parametrize("seed", [-1, 2**31, 1.0, True, "3", [3]])
def test_a_bad_seed_is_refused_before_any_solve(name, seed):
    """Every runner refuses the same seeds, with one message, even when its solver is not installed."""
    with pytest.raises(InputError, match=r"seed must be an integer in \[0, 2147483647\]"):
        get_runner(name).solve(ROOT / "models" / ROWS[INSTANCE]["mps"], time_limit=10, seed=seed)


@pytest.mark.parametrize("name", ["highs", "scip", "cplex", "gurobi", "xpress"])
def test_seeds_change_the_search_but_not_the_optimum(name):
    """Seeds 1, 2 and 3 give the manifest's optimum with node counts that are not all equal (a runner that dropped
    the seed would give one count three times), and seed 1 again repeats its search node for node. (CBC 2.10 is
    left out: its ``-randomCbcSeed`` reaches CBC, but its search on this model was the same for seeds 0-3.)"""
    runner = get_runner(name)
    if not runner.available():
        pytest.skip(f"{name} is not available")
    path = ROOT / "models" / ROWS[INSTANCE]["mps"]
    runs = {seed: runner.solve(path, time_limit=60, mip_gap=1e-6, seed=seed) for seed in (1, 2, 3)}
    again = runner.solve(path, time_limit=60, mip_gap=1e-6, seed=1)
    for result in [*runs.values(), again]:
        assert result.status == "optimal", result
        assert result.objective == pytest.approx(float(ROWS[INSTANCE]["highs_objective"]), abs=1e-6)
    assert len({r.nodes for r in runs.values()}) > 1, {s: r.nodes for s, r in runs.items()}
    assert again.nodes == runs[1].nodes


def test_highs_options_are_applied_and_checked():
    """The HiGHS runner's ``options`` reach HiGHS (a node limit of 1 stops a search that needs hundreds, which HiGHS
    calls no optimum), take the package's tuning options to the same optimum, and a name or value HiGHS rejects, a
    value of a type highspy refuses, an option the package refuses (``bilevel.solve.UNSAFE_OPTIONS``) or options
    that are no mapping is an InputError naming it."""
    path = ROOT / "models" / ROWS[INSTANCE]["mps"]
    limited = highs.solve(path, time_limit=60, seed=1, options={"mip_max_nodes": 1})
    assert limited.status != "optimal" and limited.nodes <= 1, limited
    tuned = highs.solve(path, time_limit=60, mip_gap=1e-6, seed=1, options=tuning_options())
    assert tuned.status == "optimal"
    assert tuned.objective == pytest.approx(float(ROWS[INSTANCE]["highs_objective"]), abs=1e-6)
    for options, words in (({"no_such_option": 1}, "no_such_option=1: HiGHS rejects it"),
                           ({"random_seed": "x"}, "random_seed='x': HiGHS rejects it"),
                           ({"random_seed": [1]}, r"random_seed=\[1\]: HiGHS rejects it"),
                           ({"objective_bound": 0.1}, "objective_bound=0.1 is refused"),
                           ([("random_seed", 1)], "options must be a mapping")):
        with pytest.raises(InputError, match=words):
            highs.solve(path, options=options)


def test_compare_hands_the_seed_to_every_runner(monkeypatch, capsys):
    """``compare(seed=...)`` and ``--seed`` reach each runner's ``solve``; a bad ``--seed`` exits 2 before any solve."""
    seen = []

    def recording(path, time_limit=None, mip_gap=None, seed=None):
        seen.append(seed)
        return common.RunResult("highs", str(path), "optimal", objective=0.0, bound=0.0)

    monkeypatch.setattr(highs, "solve", recording)
    compare.compare(MANIFEST, ["highs"], patterns=[INSTANCE], seed=7)
    assert compare.main([str(MANIFEST), "--only", INSTANCE, "--seed", "11"]) in (0, 1)
    assert seen == [7, 11]
    assert compare.main([str(MANIFEST), "--only", INSTANCE, "--seed", "-2"]) == 2
    assert "--seed must be an integer in [0, 2147483647]" in capsys.readouterr().err
    assert seen == [7, 11]
