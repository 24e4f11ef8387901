"""Mutation study 23 of the benchmark scripts experiments/bench_args.py (the argument types and checks shared by
the scripts), experiments/bench_options.py (HiGHS option sets on the bare tuning MILPs), experiments/
bench_tune_options.py (``bilevel.tune`` with the package's options against an alternative) and experiments/
bench_tiny_features.py (the price of the presolve-off rule for tiny features): each test kills a mutant that passed
the tests of those modules (tests/test_bench_script_args.py, test_bench_tune_options.py, test_bench_milp.py,
test_kkt_enumeration.py, test_cli.py, test_doc_names.py), against the documented behaviour (the scripts' docstrings
and help, README and experiments/PERFORMANCE.md) and an independent oracle (the documented option sets read off
their names, hand-recomputed geometric means and ratios of the times a fake solver or a fake clock supplies, the
CSV and Markdown parsed here, :func:`bilevel.split_dataset` for the instances' data, the count of 16 solves of the
README's default run). The solver is faked wherever the scripts' bookkeeping, not HiGHS, is under test, so the file
runs in a few seconds. 95 mutants, all run against those tests: 16 killed, 79 survived; of these 76 are killed here
and 3 are equivalent (``refuse_repeats`` naming ``--a_b`` for an option ``a_b``: no script passes a name with an
underscore; bench_options's ``{"random_seed": rs, **opts}``: no option set holds a seed; bench_tiny_features's
``--sizes`` typed as ``integer_at_least(1)``: a size 1 is then refused by the split check, still exit 2 naming
--sizes before any solve)."""
from __future__ import annotations

import argparse
import csv
import math
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import bilevel
from bilevel.solve import NoSolutionError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from experiments import bench_args, bench_options, bench_tiny_features, bench_tune_options  # noqa: E402


def _geo(values) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


# --------------------------------------------------------------------------------------------------
# bench_args.py
# --------------------------------------------------------------------------------------------------


def test_positive_seconds_refuses_infinity_and_returns_the_number_given():
    """``positive_seconds``: "a finite number of seconds > 0 (0, negative, nan and inf are refused)", and the
    value read is the time limit used. Mutation testing: the ``math.isfinite`` check dropped (``inf`` accepted)
    and ``max(value, 1.0)`` returned (a 0.25 s limit run as 1 s) passed the suite. Oracle: the docstring's list
    and the number typed."""
    for text in ("inf", "-inf", "nan", "0", "-1"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be a finite number of seconds > 0"):
            bench_args.positive_seconds(text)
    assert bench_args.positive_seconds("0.25") == 0.25
    assert bench_args.positive_seconds("1e-3") == 0.001


def test_refuse_repeats_checks_every_list_option_and_a_single_repeat(capsys):
    """``refuse_repeats``: ``ap.error`` (exit 2, the option named as typed and the repeated value) when *one of* the
    list options repeats a value. Mutation testing: only the first option checked, and an error only for two or
    more repeated values, passed the suite. Oracle: Namespaces built here, the repeat in the second option, one value
    repeated."""
    ap = argparse.ArgumentParser(prog="x")
    ok = argparse.Namespace(sizes=[10, 20], data=["cancer", "diabetes"], modes=None)
    assert bench_args.refuse_repeats(ap, ok, "sizes", "data", "modes") is None
    bad = argparse.Namespace(sizes=[10, 20], data=["cancer", "cancer"], modes=None)
    with pytest.raises(SystemExit) as exc:
        bench_args.refuse_repeats(ap, bad, "sizes", "data", "modes")
    assert exc.value.code == 2
    assert capsys.readouterr().err.strip().endswith("error: --data lists cancer more than once")


# --------------------------------------------------------------------------------------------------
# bench_options.py
# --------------------------------------------------------------------------------------------------

# The HiGHS option each word of an option set's name "<part> + <part> off" switches off.
_OFF = {"presolve": ("presolve", "off"), "RENS": ("mip_heuristic_run_rens", False),
        "RINS": ("mip_heuristic_run_rins", False), "restart": ("mip_allow_restart", False),
        "mip_detect_symmetry": ("mip_detect_symmetry", False)}


def _documented_sets() -> dict:
    """name -> (MIP start handed over?, HiGHS options on top of HiGHS's defaults): the option sets of
    experiments/PERFORMANCE.md's bench_options table, in its order, each read as its name says. "HiGHS defaults"
    sets nothing (the module docstring: "relative to HiGHS's defaults with the MIP start"), "no MIP start" drops the
    start, "<a> + <b> off" switches each part off, "<option> <number>" sets that option."""
    table = (ROOT / "experiments" / "PERFORMANCE.md").read_text().split("| option set |", 1)[1].split("\n\n", 1)[0]
    sets = {}
    for line in table.splitlines()[2:]:  # after the rest of the header line and the separator
        name = line.split("|")[1].strip()
        if name in ("HiGHS defaults", "no MIP start"):
            sets[name] = (name == "HiGHS defaults", {})
        elif name.endswith(" off"):
            sets[name] = (True, dict(_OFF[part] for part in name.removesuffix(" off").split(" + ")))
        else:
            option, value = name.rsplit(" ", 1)
            sets[name] = (True, {option: float(value)})
    return sets


DOCUMENTED_SETS = _documented_sets()


TWO_INSTANCES = [("diabetes", "opt", 5, 0), ("diabetes", "pes0.2", 5, 0)]


def _fake_solver(calls):
    """A stand-in for solve_model: seconds 0.05-0.65 that vary with the call (below 1 s, above the 0.01 s floor),
    every fourth call stopped at the time limit, the sixth call without any solution."""
    def solve(model, time_limit, mip_start, options):
        k = len(calls)
        calls.append(dict(model=model, time_limit=time_limit, mip_start=mip_start, options=dict(options)))
        if k == 5:
            raise NoSolutionError("no solution (fake)")
        return types.SimpleNamespace(status="time_limit" if k % 4 == 3 else "optimal",
                                     seconds=0.05 * (1 + (7 * k) % 13), objective=0.1 + k / 1000)
    return solve


def _run_bench_options(tmp_path, monkeypatch, instances, argv=()):
    calls = []
    monkeypatch.setattr(bench_options, "INSTANCES", instances)
    monkeypatch.setattr(bench_options, "solve_model", _fake_solver(calls))
    out = tmp_path / "o"
    assert bench_options.main(["--time-limit", "0.5", *argv, "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "options.csv")))
    return calls, rows, (out / "options.md").read_text().splitlines()


def _md_cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_bench_options_solves_every_documented_set_under_three_seeds_and_writes_each_solve(tmp_path, monkeypatch):
    """bench_options solves each instance with every option set under several HiGHS random seeds, 3 by default
    (PERFORMANCE.md: "3 HiGHS random seeds each", run without ``--random-seeds``), seeds 0..N-1, the MIP start
    handed over except for "no MIP start", and writes one CSV row per solve with HiGHS's status, seconds and
    objective (a solve without any solution at the time limit). Mutation testing: the baseline without the MIP
    start, "no MIP start" with it, every set with it or none, "presolve off" as presolve on, "RENS off" turning RINS
    off, "RINS + RENS off" leaving RENS on, the random seed not set or one seed short, 2 seeds by default, the
    failed solve at 0 s, the objective column holding the seconds, every status written as optimal and the first
    solve left out of the CSV passed the suite. Oracle: the sets as their names say, the fake solver's numbers."""
    calls, rows, _ = _run_bench_options(tmp_path, monkeypatch, TWO_INSTANCES)
    assert len(rows) == len(calls) == 2 * 3 * len(DOCUMENTED_SETS)
    assert list(bench_options.OPTION_SETS) == list(DOCUMENTED_SETS)
    for k, (row, call) in enumerate(zip(rows, calls)):
        use_start, options = DOCUMENTED_SETS[row["options"]]
        assert call["options"] == {**options, "random_seed": int(row["random_seed"])}, row
        assert (call["mip_start"] is not None) == use_start, row
        assert call["time_limit"] == 0.5
        if k == 5:
            assert row["status"] == "no_solution" and float(row["seconds"]) == 0.5 and row["objective"] == "nan"
        else:
            assert row["status"] == ("time_limit" if k % 4 == 3 else "optimal")
            assert float(row["seconds"]) == pytest.approx(0.05 * (1 + (7 * k) % 13))
            assert float(row["objective"]) == pytest.approx(0.1 + k / 1000)
    for inst in (("diabetes", "opt"), ("diabetes", "pes0.2")):
        for name in DOCUMENTED_SETS:
            seeds = [int(r["random_seed"]) for r in rows if (r["data"], r["mode"]) == inst and r["options"] == name]
            assert sorted(seeds) == [0, 1, 2]


def test_bench_options_table_reports_geometric_means_counts_and_relative_times(tmp_path, monkeypatch):
    """options.md: a header naming the number of seeds, a separator row with one cell per column, per instance and
    option set the geometric mean solve time over the seeds and the number of seeds proven optimal, and the
    geometric mean over the instances of the time relative to "HiGHS defaults", per mode (optimistic, pessimistic)
    and overall (module docstring). Mutation testing: the header's seed count one short, a separator cell short, the
    median of the logs for the mean, a 1 s floor on the times, the count of the non-optimal seeds, the ratio
    inverted, the modes "pes0.2" not counted as pessimistic, "all" without the pessimistic instances and the
    optimistic and pessimistic rows swapped passed the suite. Oracle: the CSV parsed here and the means
    recomputed by hand."""
    _, rows, lines = _run_bench_options(tmp_path, monkeypatch, TWO_INSTANCES, ["--random-seeds", "3"])
    names = list(DOCUMENTED_SETS)
    assert "3 HiGHS random seeds each" in lines[0]
    header, separator = lines[2], lines[3]
    assert _md_cells(header) == ["instance", *names]
    assert separator.count("---") == len(names) + 1 and separator == "|---" * (len(names) + 1) + "|"
    geo, logs = {}, {"opt": [], "pes": []}
    for data, mode in (("diabetes", "opt"), ("diabetes", "pes0.2")):
        line = next(ln for ln in lines if ln.startswith(f"| {data} {mode} n=5 s=0 |"))
        cells = _md_cells(line)[1:]
        for name, cell in zip(names, cells):
            mine = [r for r in rows if (r["data"], r["mode"], r["options"]) == (data, mode, name)]
            geo[mode, name] = _geo([float(r["seconds"]) for r in mine])
            optimal = sum(r["status"] == "optimal" for r in mine)
            assert cell == f"{geo[mode, name]:.2f} ({optimal})", (mode, name)
        for name in names:
            logs[mode[:3]].append((name, math.log(geo[mode, name] / geo[mode, names[0]])))
    for label, modes in (("optimistic", ["opt"]), ("pessimistic", ["pes"]), ("all", ["opt", "pes"])):
        line = next(ln for ln in lines if f"time relative to HiGHS defaults, {label} (geo-mean)" in ln)
        cells = _md_cells(line)[1:]
        for name, cell in zip(names, cells):
            values = [x for md in modes for nm, x in logs[md] if nm == name]
            assert cell == f"**{math.exp(sum(values) / len(values)):.2f}**", (label, name)


def test_bench_options_reports_no_relative_time_for_a_mode_without_instances(tmp_path, monkeypatch):
    """The relative time of a mode is a geometric mean over its instances: with optimistic instances only, the
    pessimistic row has no number (nan), not a ratio of 1 or 0. Mutation testing: an empty mode read as the mean
    of [0.0] (a "1.00", the baseline's own time) passed the suite."""
    _, _, lines = _run_bench_options(tmp_path, monkeypatch, [("diabetes", "opt", 5, 0)], ["--random-seeds", "1"])
    line = next(ln for ln in lines if "time relative to HiGHS defaults, pessimistic" in ln)
    assert set(_md_cells(line)[1:]) == {"**nan**"}


def test_bench_options_builds_the_documented_instances():
    """build: the split of (data, |T| = |V| = n, split seed); the pessimistic Eq. (25) MILP with *all* validation
    labels flipped, ``lambda_bound = 1000``, epsilon from the mode, and an objective floor only for epsilon = 0.
    Mutation testing: split seed 0 for every instance, one validation label left unflipped and lambda_bound 100
    passed the suite. Oracle: bilevel.split_dataset and the models' own records of what they were built with."""
    X, y = bilevel.load_dataset("diabetes")[:2]
    split = bilevel.split_dataset(X, y, 5, 5, seed=1)
    assert not np.array_equal(split.X_train, bilevel.split_dataset(X, y, 5, 5, seed=0).X_train)
    info = bench_options.build("diabetes", "opt", 5, 1).bilevel_info
    assert info["mode"] == "optimistic" and np.array_equal(info["X_train"], split.X_train)
    model = bench_options.build("diabetes", "pes0.2", 5, 1)
    info = model.bilevel_info
    assert np.array_equal(info["X_val"], split.X_val) and sorted(info["flipped"].tolist()) == list(range(5))
    assert info["epsilon"] == 0.2 and info["lambda_bound"] == 1000.0
    assert not hasattr(model, "objective_floor")


def test_bench_options_floors_epsilon_zero_at_the_optimistic_best_bound(monkeypatch):
    """For epsilon = 0 the objective floor is the optimistic *best bound* (module docstring: "with the optimistic
    best bound as objective floor, as bilevel.tune does"; build_pessimistic_model: the best bound is a valid floor
    "even when that solve stopped early", its objective is not). Mutation testing: the optimistic objective as the
    floor (on proven instances the two agree) and the floor given to epsilon > 0 instead of epsilon = 0 passed the
    suite. Oracle: a faked optimistic result that stopped with a bound below its objective (half the real
    optimum of an instance whose optimistic optimum is > 0)."""
    real_tune = bilevel.tune

    def stopped_early(*args, **kwargs):
        res = real_tune(*args, **kwargs)
        return types.SimpleNamespace(objective=res.objective, best_bound=res.objective / 2)

    monkeypatch.setattr(bilevel, "tune", stopped_early)
    X, y = bilevel.load_dataset("diabetes")[:2]
    s = bilevel.split_dataset(X, y, 6, 6, seed=1)  # an optimistic optimum > 0 (most 5/5 splits have 0)
    half = real_tune(s.X_train, s.y_train, s.X_val, s.y_val).objective / 2
    model = bench_options.build("diabetes", "pes0", 6, 1)
    assert half > 0 and model.bilevel_info["epsilon"] == 0.0
    assert model.objective_floor.lb == pytest.approx(half, rel=1e-9)


# --------------------------------------------------------------------------------------------------
# bench_tune_options.py
# --------------------------------------------------------------------------------------------------


def _run_tune_options(tmp_path, monkeypatch, argv):
    """main with a fake ``_solve_fields`` (seconds that vary with the call) and a fake optimistic ``tune``."""
    calls, optimistic = [], []

    def fields(data, mode, n, seed, random_seed, time_limit, options, optimistic=None, clock="seconds", split=None):
        k = len(calls)
        calls.append(dict(data=data, mode=mode, n=n, seed=seed, random_seed=random_seed, options=dict(options),
                          optimistic=optimistic, clock=clock))
        return {"status": "optimal", "seconds": 0.1 * (1 + (5 * k) % 11), "objective": 0.5, "verified": True,
                "nodes": 1, "restarts": 0}

    def fake_tune(*args, **kwargs):
        optimistic.append(object())
        return optimistic[-1]

    monkeypatch.setattr(bench_tune_options, "_solve_fields", fields)
    monkeypatch.setattr(bilevel, "tune", fake_tune)
    out = tmp_path / "o"
    assert bench_tune_options.main([*argv, "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "tune_options.csv")))
    return calls, optimistic, rows, (out / "tune_options.md").read_text().splitlines()


def test_sizes_runs_all_18_instances_in_pairs_package_first(tmp_path, monkeypatch):
    """``--sizes 50 runs all 18 instances of that size`` ("both data sets, all modes, seeds 0-2"), under HiGHS
    seeds 0 and 1 by default (PERFORMANCE.md's runs without ``--random-seeds``: "HiGHS seeds 0 and 1"); the two
    settings in turn, "the package's first in every pair", the package with no options on top and the alternative
    with ``--options``; the pessimistic instances "share one optimistic solve (package options) for V_f". Mutation
    testing: a mode or a split seed missing from --sizes, one HiGHS seed by default, the seeds 1..N, the
    alternative first, the alternative's options on both sides and each side given no optimistic solve passed
    the suite. Oracle: the calls seen by a fake ``_solve_fields``."""
    calls, optimistic, rows, _ = _run_tune_options(tmp_path, monkeypatch,
                                                   ["--options", "mip_pscost_minreliable=4", "--sizes", "5"])
    expected = {(d, m, 5, s) for d in ("cancer", "diabetes") for m in ("opt", "pes0", "pes0.2") for s in (0, 1, 2)}
    assert {(r["data"], r["mode"], int(r["n"]), int(r["seed"])) for r in rows} == expected
    assert len(rows) == 18 * 2 and len(calls) == 2 * len(rows)
    assert sorted({c["random_seed"] for c in calls}) == [0, 1]
    for package, alternative in zip(calls[::2], calls[1::2]):
        assert package["options"] == {} and alternative["options"] == {"mip_pscost_minreliable": 4}
        assert package["clock"] == alternative["clock"] == "seconds"
        assert {k: v for k, v in package.items() if k != "options"} == {
            k: v for k, v in alternative.items() if k != "options"}
        if package["mode"] == "opt":
            assert package["optimistic"] is None
        else:
            assert package["optimistic"] is not None and package["optimistic"] in optimistic
    assert len(optimistic) == 12  # one optimistic solve per pessimistic instance


def test_the_table_and_its_geometric_means(tmp_path, monkeypatch):
    """tune_options.md: the header names HiGHS seeds 0-(N-1), a row per pair with the package's and the
    alternative's seconds and their ratio, and "the geometric mean of time(alternative) / time(package) overall
    and per mode" with the number of pairs. Mutation testing: the header's last seed one too high, the pair count
    doubled, the arithmetic mean for the geometric one, only epsilon = 0 counted as pessimistic and the package's
    column showing the alternative's seconds passed the suite. Oracle: the CSV parsed here, means by hand."""
    _, _, rows, lines = _run_tune_options(tmp_path, monkeypatch, ["--options", "mip_pscost_minreliable=4", "--sizes",
                                                                  "5", "--data", "cancer", "--random-seeds", "2"])
    assert "HiGHS seeds 0-1," in lines[0]
    table = [_md_cells(ln) for ln in lines[4:] if ln.startswith("| cancer")]
    assert len(table) == len(rows) == 18
    for cells, r in zip(table, rows):
        pkg, alt = float(r["package_seconds"]), float(r["alternative_seconds"])
        assert cells[5] == f"{pkg:.2f} (optimal)" and cells[6] == f"{alt:.2f} (optimal)"
        assert cells[7] == f"{alt / pkg:.2f}" and float(r["ratio"]) == pytest.approx(alt / pkg)
    ratios = {"all": [], "optimistic": [], "pessimistic": []}
    for r in rows:
        ratio = float(r["alternative_seconds"]) / float(r["package_seconds"])
        ratios["all"].append(ratio)
        ratios["optimistic" if r["mode"] == "opt" else "pessimistic"].append(ratio)
    summary = lines[-1]
    for label, values in ratios.items():
        assert f"{label} **{_geo(values):.2f}**" in summary, summary
    assert summary.endswith(f"({len(rows)} pairs).")
    assert _geo(ratios["all"]) != pytest.approx(sum(ratios["all"]) / 18, abs=0.01)


def test_clock_nodes_alone_is_an_alternative_for_the_alternative_only(tmp_path, monkeypatch):
    """``--clock nodes`` gives the alternative ``bilevel.tune(clock="nodes")`` ("the package side keeps seconds"),
    and is an alternative on its own (the refusal asks for "--options, --python or --clock nodes"); the header
    names that clock. Mutation testing: --clock nodes alone refused, the package given the alternative's clock and
    the clock named in the header only when it is seconds passed the suite."""
    calls, _, rows, lines = _run_tune_options(tmp_path, monkeypatch, ["--clock", "nodes", "--sizes", "5", "--data",
                                                                      "diabetes", "--modes", "opt", "--random-seeds",
                                                                      "1"])
    assert [(r["data"], r["mode"], r["seed"]) for r in rows] == [("diabetes", "opt", str(s)) for s in (0, 1, 2)]
    assert [c["clock"] for c in calls] == ["seconds", "nodes"] * 3
    assert all(c["options"] == {} for c in calls)
    assert "clock='nodes'" in lines[0]


def test_a_repeated_data_set_or_mode_is_refused(tmp_path, capsys, monkeypatch):
    """``--data`` and ``--modes`` are list options whose repeats would run an instance twice (bench_args.
    refuse_repeats; the script checks "sizes", "data" and "modes"), refused before any solve. Mutation testing: only
    --sizes checked passed the suite."""
    def no_solve(*_, **__):
        raise AssertionError("nothing may be solved before the arguments are checked")

    monkeypatch.setattr(bench_tune_options, "_solve_fields", no_solve)
    monkeypatch.setattr(bilevel, "tune", no_solve)
    for option, value in (("--data", "cancer"), ("--modes", "opt")):
        with pytest.raises(SystemExit) as exc:
            bench_tune_options.main(["--options", "presolve=off", option, value, value, "--out", str(tmp_path / "o")])
        assert exc.value.code == 2
        assert f"{option} lists {value} more than once" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_one_timed_solve_passes_its_settings_to_tune_and_reports_total_seconds(monkeypatch):
    """``_solve_fields``: one ``tune`` call with the options plus ``random_seed``, the clock given, for a
    pessimistic mode epsilon from the mode's name, every validation label flipped (``flip="all"``) and the shared
    optimistic result; "the time is total_seconds of the timed solve", and the CSV's nodes and cutoff restarts are
    the solve's. Before it the LP caches are emptied (the bound-tightening ranges and this thread's loaded hinge
    LPs). Mutation testing: highs_options or the random seed or the clock not passed, epsilon 0, no flip rule, the
    optimistic result dropped, solve_seconds reported, 0 nodes or 0 restarts, and the hinge LP cache kept passed
    the suite. Oracle: a fake tune's record of its arguments and its own numbers."""
    from bilevel import bigm, hinge_highs

    seen = []

    def fake_tune(*args, **kwargs):
        seen.append(dict(kwargs, caches=(len(bigm._RANGE_CACHE), dict(hinge_highs._LOCAL.__dict__))))
        return types.SimpleNamespace(status="optimal", total_seconds=2.5, solve_seconds=1.0, objective=0.25,
                                     verified=True, nodes=17, restarts=[{}, {}, {}])

    monkeypatch.setattr(bilevel, "tune", fake_tune)
    monkeypatch.setattr(bigm, "_RANGE_CACHE", type(bigm._RANGE_CACHE)())
    for mode, optimistic in (("opt", None), ("pes0.2", object())):
        bigm._RANGE_CACHE["stale"] = (0.0, 1.0)
        hinge_highs._LOCAL.stale = "an LP of an earlier solve"
        got = bench_tune_options._solve_fields("diabetes", mode, 5, 0, 3, 7.0, {"presolve": "off"},
                                               optimistic=optimistic, clock="nodes")
        assert got == {"status": "optimal", "seconds": 2.5, "objective": 0.25, "verified": True, "nodes": 17,
                       "restarts": 3}
        call = seen.pop()
        assert not seen and call["caches"] == (0, {})
        assert call["highs_options"] == {"presolve": "off", "random_seed": 3}
        assert call["clock"] == "nodes" and call["time_limit"] == 7.0
        if mode != "opt":
            assert call["mode"] == "pessimistic" and call["epsilon"] == 0.2 and call["flip"] == "all"
            assert call["optimistic"] is optimistic


# --------------------------------------------------------------------------------------------------
# bench_tiny_features.py
# --------------------------------------------------------------------------------------------------


# The seconds with presolve off of the 16 pairs, quarters (exact in binary: a fake clock's sums and differences of
# them are exact, so the printed values are known) in no monotone order; presolve on takes 1 s each time.
OFF_SECONDS = [0.25 * (1 + (5 * j) % 16) for j in range(16)]


def test_bench_tiny_features_default_run(monkeypatch, capsys):
    """The README's run of ``python experiments/bench_tiny_features.py``: cancer and diabetes 10/10 and 20/20
    splits, seeds 0-1, feature 0 scaled by 1e-6, both modes, "time with presolve off / on ..., geometric mean ...
    over 16 solves". Each tune call gets the scaled split (``bilevel.split_dataset``; feature 0 of the training and
    validation points times ``--scale``, the others as they were), the mode, ``--time-limit`` and presolve on then
    off; the times are the wall clock of the whole call; the script prints per instance both times and the ratio
    off/on, then their geometric mean and range. Mutation testing: feature 1 scaled, the validation points not
    scaled or not the split's, scale 1e-3 by default, one size, one seed or one data set by default, only the first
    size of --sizes run, split seed 0,
    the mode or the time limit not passed, no presolve setting or off before on, the ratio on/off, tune's
    total_seconds for the wall clock, the arithmetic mean, the last ratio as the range's top and the solve count
    doubled passed the suite. Oracle: bilevel.split_dataset, a fake clock advanced by a fake tune by amounts set
    here, the ratios and their geometric mean by hand."""
    now, calls = [0.0], []

    def fake_tune(X_t, y_t, X_v, y_v, mode, time_limit, highs_options):
        k = len(calls)
        calls.append(dict(X_t=X_t.copy(), X_v=X_v.copy(), y_t=y_t, mode=mode, time_limit=time_limit,
                          presolve=highs_options.get("presolve")))
        now[0] += 1.0 if k % 2 == 0 else OFF_SECONDS[k // 2]
        return types.SimpleNamespace(objective=0.5, status="optimal", verified=True, total_seconds=99.0)

    monkeypatch.setattr(bilevel, "tune", fake_tune)
    monkeypatch.setattr(bench_tiny_features, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    assert bench_tiny_features.main(["--time-limit", "7"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [ln.split() for ln in out if ln.split()[:1] in (["cancer"], ["diabetes"])]
    assert len(rows) == 16 and len(calls) == 32
    ratios = []
    k = 0
    for data in ("cancer", "diabetes"):
        full = bilevel.load_dataset(data)
        for n in (10, 20):
            for seed in (0, 1):
                split = bilevel.split_dataset(full.X, full.y, n, n, seed=seed)
                for mode in ("optimistic", "pessimistic"):
                    on, off = calls[k], calls[k + 1]
                    assert (on["presolve"], off["presolve"]) == ("on", "off")
                    for c in (on, off):
                        assert c["mode"] == mode and c["time_limit"] == 7.0
                        assert np.array_equal(c["y_t"], split.y_train)
                        for X, Xs in ((c["X_t"], split.X_train), (c["X_v"], split.X_val)):
                            assert np.array_equal(X[:, 0], Xs[:, 0] * 1e-6) and np.array_equal(X[:, 1:], Xs[:, 1:])
                    t_off = OFF_SECONDS[k // 2]
                    row = rows[k // 2]
                    assert row[:4] == [data, str(n), str(seed), mode]
                    assert row[4] == "1.00" and row[9] == f"{t_off:.2f}"
                    assert row[-1] == f"{t_off:.2f}"
                    ratios.append(t_off)
                    k += 2
    summary = out[-1]
    assert summary == (f"off/on time ratio: geometric mean {_geo(ratios):.2f}, range {min(ratios):.2f}-"
                       f"{max(ratios):.2f} over 16 solves")
    assert max(ratios) != ratios[-1] and f"{_geo(ratios):.2f}" != f"{sum(ratios) / 16:.2f}"
