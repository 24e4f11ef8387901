"""experiments/bench_tune_options.py on one small instance: both settings solve the same MILP to the same
optimum, and the CSV, the Markdown table and the geometric mean report the ratio of their times."""
import csv
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import bench_tune_options  # noqa: E402


def test_one_instance_two_settings(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_tune_options, "INSTANCES", [("cancer", "pes0", 6, 0)])
    out = tmp_path / "out"
    assert bench_tune_options.main(["--options", "mip_heuristic_run_rens=true", "--random-seeds", "1",
                                    "--time-limit", "20", "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "tune_options.csv")))
    assert len(rows) == 1
    r = rows[0]
    assert r["package_status"] == r["alternative_status"] == "optimal"
    assert r["package_verified"] == r["alternative_verified"] == "True"
    assert int(r["package_nodes"]) >= 0 and int(r["alternative_restarts"]) >= 0
    assert abs(float(r["package_objective"]) - float(r["alternative_objective"])) < 1e-6
    ratio = float(r["alternative_seconds"]) / max(float(r["package_seconds"]), 1e-3)
    assert math.isclose(float(r["ratio"]), ratio, rel_tol=1e-9)
    text = (out / "tune_options.md").read_text()
    assert "'mip_heuristic_run_rens': True" in text and f"all **{ratio:.2f}**" in text


def test_search_first_points_reaches_the_alternative_only(tmp_path, monkeypatch):
    """--search-first-points 0: the alternative's optimistic solve runs the box search before HiGHS's first solve
    (on 12 points, below the package's 100, where the package side does not), and the rule is restored after."""
    import importlib

    tune_module = importlib.import_module("bilevel.tune")
    calls = []
    real = tune_module._search_first

    def spy(*args, **kwargs):
        calls.append(tune_module._SEARCH_FIRST_POINTS)
        return real(*args, **kwargs)
    monkeypatch.setattr(tune_module, "_search_first", spy)
    monkeypatch.setattr(bench_tune_options, "INSTANCES", [("cancer", "opt", 6, 1)])
    out = tmp_path / "out"
    assert bench_tune_options.main(["--search-first-points", "0", "--random-seeds", "1", "--out", str(out)]) == 0
    assert calls == [0] and tune_module._SEARCH_FIRST_POINTS == 100
    r = next(csv.DictReader(open(out / "tune_options.csv")))
    assert r["package_status"] == r["alternative_status"] == "optimal"
    assert abs(float(r["package_objective"]) - float(r["alternative_objective"])) < 1e-6
    assert "box search before HiGHS's first solve from 0 points" in (out / "tune_options.md").read_text()


def test_filters_keep_only_the_chosen_instances(tmp_path, monkeypatch):
    monkeypatch.setattr(bench_tune_options, "INSTANCES", [("cancer", "pes0", 6, 0), ("diabetes", "opt", 6, 1)])
    out = tmp_path / "out"
    assert bench_tune_options.main(["--options", "mip_heuristic_run_rens=true", "--random-seeds", "1",
                                    "--modes", "opt", "--out", str(out)]) == 0
    rows = list(csv.DictReader(open(out / "tune_options.csv")))
    assert [(r["data"], r["mode"], r["seed"]) for r in rows] == [("diabetes", "opt", "1")]
    summary = (out / "tune_options.md").read_text().splitlines()[-1]
    assert "optimistic **" in summary and "pessimistic" not in summary and "nan" not in summary
    try:
        bench_tune_options.main(["--options", "mip_heuristic_run_rens=true", "--data", "cancer", "--modes", "opt",
                                 "--out", str(out)])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("an empty selection must be refused")


def test_the_alternative_in_another_interpreter(tmp_path, monkeypatch):
    """--python runs the alternative's solves in fresh processes of that interpreter (here this one, so both
    sides solve the same MILP with the same HiGHS): same optimum, and the header names both releases."""
    import importlib.metadata

    monkeypatch.setattr(bench_tune_options, "INSTANCES", [("cancer", "pes0", 6, 0)])
    out = tmp_path / "out"
    assert bench_tune_options.main(["--python", sys.executable, "--random-seeds", "1", "--time-limit", "20",
                                    "--out", str(out)]) == 0
    r = list(csv.DictReader(open(out / "tune_options.csv")))[0]
    assert r["package_status"] == r["alternative_status"] == "optimal"
    assert r["alternative_verified"] == "True"
    assert abs(float(r["package_objective"]) - float(r["alternative_objective"])) < 1e-6
    header = (out / "tune_options.md").read_text().splitlines()[0]
    release = importlib.metadata.version("highspy")
    assert f"run by `{sys.executable}` (highspy {release})" in header and header.count(f"highspy {release}") == 2
    try:
        bench_tune_options.main(["--out", str(out)])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("no alternative at all must be refused")


def test_each_side_solves_its_own_bound_tightening_lps(tmp_path, monkeypatch):
    """The second side of a pair must not find the first side's bound-tightening LPs cached: with the same
    options both sides solve the same number of them (before, the alternative solved none at cutoffs the
    package had already met, which made it look faster: 0.95 at 100/100)."""
    from bilevel import bigm

    monkeypatch.setattr(bench_tune_options, "INSTANCES", [("cancer", "pes0", 6, 0)])
    loads, per_solve = [], []
    range_lp, solve = bigm._range_lp, bench_tune_options._solve

    def counted_range_lp(*args, **kwargs):
        loads.append(1)
        return range_lp(*args, **kwargs)

    def counted_solve(*args, **kwargs):
        loads.clear()
        res = solve(*args, **kwargs)
        per_solve.append(len(loads))
        return res

    monkeypatch.setattr(bigm, "_range_lp", counted_range_lp)
    monkeypatch.setattr(bench_tune_options, "_solve", counted_solve)
    assert bench_tune_options.main(["--options", "mip_pscost_minreliable=4", "--random-seeds", "2",
                                    "--time-limit", "20", "--out", str(tmp_path / "out")]) == 0
    assert len(per_solve) == 4 and per_solve[0] > 0 and len(set(per_solve)) == 1


@pytest.mark.parametrize("args, message", [
    (["--random-seeds", "0"], "--random-seeds: must be an integer >= 1"),  # IndexError after all the work
    (["--time-limit", "0"], "--time-limit: must be a finite number of seconds > 0"),
    (["--sizes", "-5"], "--sizes: must be an integer >= 2"),
    (["--sizes", "10", "10"], "--sizes lists 10 more than once"),
    (["--sizes", "5", "300"], "|T| = |V| = 300: n_train + n_val"),  # before the size-5 instances, not after
    (["--search-first-points", "-1"], "--search-first-points: must be an integer >= 0"),
    (["--solver", "cplex", "--search-first-points", "0"], "--search-first-points are HiGHS's"),
])
def test_bad_arguments_end_the_run_before_any_solve(tmp_path, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        bench_tune_options.main(["--options", "mip_heuristic_run_rens=true", *args, "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, message", [
    (["--random-seeds", "0"], "--random-seeds: must be an integer >= 1"),
    (["--time-limit", "-1"], "--time-limit: must be a finite number of seconds > 0"),
])
def test_bench_options_refuses_bad_arguments(tmp_path, capsys, args, message):
    from experiments import bench_options

    with pytest.raises(SystemExit) as exc:
        bench_options.main([*args, "--out", str(tmp_path / "o")])
    assert exc.value.code == 2 and message in capsys.readouterr().err
