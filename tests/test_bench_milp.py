"""experiments/bench_milp.py end to end on one small instance: the package and the textbook formulation agree,
and with --clock nodes two runs take the same path (the same node counts and objective)."""
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import bench_milp  # noqa: E402


def _rows(folder: Path) -> list[dict]:
    with open(folder / "bench.csv") as fh:
        return list(csv.DictReader(fh))


def test_two_node_clock_runs_agree_and_match_the_textbook(tmp_path):
    args = ["--data", "diabetes", "--modes", "opt", "pes0", "--sizes", "10", "--seeds", "1", "--clock", "nodes",
            "--time-limit", "60"]
    for run in ("a", "b"):
        assert bench_milp.main([*args, "--out", str(tmp_path / run)]) == 0
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert len(a) == len(b) == 2
    for ra, rb in zip(a, b):
        assert ra["clock"] == "nodes" and ra["pkg_status"] == "optimal" and ra["pkg_verified"] == "True"
        assert ra["both_optimal"] == "True" and ra["obj_match"] == "True"  # the textbook's optimum
        assert (ra["pkg_nodes"], ra["pkg_obj"]) == (rb["pkg_nodes"], rb["pkg_obj"])
    assert 'clock="nodes"' in (tmp_path / "a" / "bench.md").read_text()


def test_a_package_solve_without_a_solution_keeps_the_textbook_solve(monkeypatch):
    """When the package found no solution within the limit, the instance's textbook solve was skipped, so a
    package loss showed "-" (no ratio, no textbook status) instead of an upper bound "<=". Oracle for the
    textbook's optimum: the package's own solve of the same instance, run before the failure is injected."""
    import math

    import numpy as np

    import bilevel
    from bilevel.solve import NoSolutionError

    s = bench_milp.benchmark_split("diabetes", 6, 0)
    opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
    pes = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=0.2, flip="all",
                       optimistic=opt)
    assert opt.optimal and pes.optimal and np.array_equal(pes.flipped, np.arange(6))

    def no_solution(*args, **kwargs):
        raise NoSolutionError("HiGHS stopped (time_limit) before finding a feasible solution")

    monkeypatch.setattr(bench_milp.bilevel, "tune", no_solution)
    for mode, oracle in (("opt", opt.objective), ("pes0.2", pes.objective)):
        row = bench_milp.run_instance("diabetes", mode, 6, 0, time_limit=60.0)
        assert row["pkg_status"] == "no_solution" and row["pkg_solve"] == 60.0
        assert row["tb_status"] == "optimal" and row["tb_verified"], row
        assert abs(row["tb_obj"] - oracle) <= 1e-5, (mode, row["tb_obj"], oracle)
        row.update(speedup=row["tb_solve"] / 60.0, both_optimal=False)
        assert bench_milp._speedup_text(row).startswith("<="), row
        assert not math.isnan(row["speedup"])
    # The starting bound can leave the textbook model no follower (tune would enlarge it): reported, no crash.
    from bilevel.solve import InfeasibleModelError

    def infeasible(*args, **kwargs):
        raise InfeasibleModelError("HiGHS reports the model infeasible")

    monkeypatch.setattr(bench_milp.bilevel, "solve_model", infeasible)
    row = bench_milp.run_instance("diabetes", "pes0.2", 6, 0, time_limit=60.0)
    assert row["tb_status"] == "infeasible" and row["tb_verified"] is False and math.isnan(row["tb_solve"])


def test_the_textbook_model_reaches_the_exact_optimum_on_tiny_benchmark_instances():
    """The reference of the speed-ups on the benchmark's own splits of sizes 6-8 (diabetes, p = 7): Eq. (21)
    against the KKT enumeration of tests/kkt_enumeration.py (no big-M, no MIP solver); Eq. (25) (all validation
    labels flipped, the package's final lambda bound) against bilevel.tune, whose pessimistic optimum the
    enumeration checks on smaller instances (test_kkt_enumeration.py). Coverage: passes on the current code."""
    import numpy as np

    import bilevel
    from experiments.textbook import textbook_optimistic, textbook_pessimistic
    from kkt_enumeration import optimistic_optimum

    for n in (6, 8):
        s = bench_milp.benchmark_split("diabetes", n, 0)
        value, _, _ = optimistic_optimum(s.X_train, s.y_train, s.X_val, s.y_val)
        m = textbook_optimistic(s.X_train, s.y_train, s.X_val, s.y_val)
        info = bilevel.solve_model(m)
        assert info.status == "optimal" and bilevel.verify_model(m).verified
        assert abs(info.objective - value) <= 1e-6, (n, info.objective, value)
    for data, n, eps in (("diabetes", 6, 0.2), ("diabetes", 7, 0.0)):
        s = bench_milp.benchmark_split(data, n, 0)
        opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val)
        res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=eps, flip="all",
                           optimistic=opt)
        m = textbook_pessimistic(s.X_train, s.y_train, s.X_val, s.y_val, np.arange(n), eps, res.lambda_bound)
        info = bilevel.solve_model(m)
        assert res.optimal and info.status == "optimal" and bilevel.verify_model(m).verified
        assert abs(info.objective - res.objective) <= 1e-6, (data, n, eps, info.objective, res.objective)


def test_an_unverified_or_infeasible_package_solve_is_not_a_speed_up(monkeypatch):
    """An "optimal" package solve that failed verification counted in the geometric mean, and an
    InfeasibleModelError from the package's tune ended the whole benchmark with a traceback."""
    import pytest

    row = {"pkg_status": "optimal", "pkg_verified": True, "tb_status": "optimal", "tb_verified": True}
    assert bench_milp.both_optimal(row)
    assert not bench_milp.both_optimal({**row, "pkg_verified": False})
    assert not bench_milp.both_optimal({**row, "tb_verified": False})  # counted: the textbook's was not checked
    assert not bench_milp.both_optimal({**row, "tb_status": "time_limit"})
    from bilevel.solve import InfeasibleModelError

    def infeasible(*args, **kwargs):
        raise InfeasibleModelError("HiGHS reports the model infeasible")

    monkeypatch.setattr(bench_milp.bilevel, "tune", infeasible)
    out = bench_milp.run_instance("diabetes", "opt", 6, 0, time_limit=60.0, textbook=False)
    assert out["pkg_status"] == "infeasible" and out["pkg_verified"] is False
    with pytest.raises(SystemExit):
        bench_milp.main(["--no-textbook-above", "-1", "--sizes", "6", "--out", "/nonexistent/x"])


def test_the_scripts_number_options_refuse_grouped_digits():
    """The experiments' own number options read "1_0" as 10 (Python's int and float), as the bilevel commands
    did; they now refuse it like them. Oracle: Python's int/float on the text without the '_'."""
    import argparse

    import pytest

    from experiments.bench_args import integer_at_least, positive_seconds

    for parse, good in ((integer_at_least(0), "10"), (positive_seconds, "10")):
        assert parse(good) == 10
        with pytest.raises(argparse.ArgumentTypeError):
            parse("1_0")
