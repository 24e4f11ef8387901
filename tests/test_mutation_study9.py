"""Mutation study 9 of the benchmark's reference and report (experiments/textbook.py, experiments/bench_milp.py) and of
the UCI study's tables (experiments/uci_study.py): each test kills a mutant that passed the tests of those modules,
against the documented behaviour (the modules' docstrings, the README's Performance and "Reproducing the UCI study"
sections) and an independent oracle (a hand-solved instance, a hand-derived bound, a hand-computed mean)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import bilevel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import bench_milp  # noqa: E402
from experiments.textbook import textbook_optimistic, textbook_pessimistic  # noqa: E402


def _far_intercept_instance():
    """1-D, |T| = 4, |V| = 2: three training points x = 5 (y = +1) and one x = 7 (y = -1). The only hinge-loss-free
    model in the box |w| <= w_bar <= 1 is w = -1, b = -6 (f = w x - b; 5 w - b >= 1 and 7 w - b <= -1 give
    w <= -1), so the leader's best box is w_bar = 1, whose every training-optimal follower, and every one within
    (1 + epsilon) of the least loss 0, is that model: validation (5, +1), (7, -1) then has hinge 0, the least
    possible, optimistic and pessimistic (both validation labels flipped) alike. The intercept -6 needs most of
    the valid big-M range of ``b`` on its side (items 1-8 of bilevel.bigm: 8 below, 4.67 above)."""
    Xt = np.array([[5.0], [5.0], [5.0], [7.0]])
    yt = np.array([1.0, 1.0, 1.0, -1.0])
    Xv = np.array([[5.0], [7.0]])
    yv = np.array([1.0, -1.0])
    return Xt, yt, Xv, yv


def test_the_textbook_models_reach_the_hand_solved_optimum_of_an_instance_with_a_far_intercept():
    """textbook_optimistic / textbook_pessimistic: "the same valid big-Ms" as the package, so the same optimum.
    Mutation testing: the optimistic model's ``b`` bounded by a quarter of its valid big-M, and the pessimistic
    follower's bounds on ``b`` swapped (``-b_hi <= b <= b_lo``) passed the tests: on their instances no optimum
    needs so large an intercept. Oracle: the optimum 0 of :func:`_far_intercept_instance`, solved by hand."""
    Xt, yt, Xv, yv = _far_intercept_instance()
    m = textbook_optimistic(Xt, yt, Xv, yv)
    info = bilevel.solve_model(m)
    assert info.status == "optimal" and info.objective == pytest.approx(0.0, abs=1e-7)
    for epsilon in (0.0, 0.3):
        m = textbook_pessimistic(Xt, yt, Xv, yv, np.arange(2), epsilon, 100.0)
        info = bilevel.solve_model(m)
        assert info.status == "optimal" and info.objective == pytest.approx(0.0, abs=1e-7), epsilon
        assert m.b.value == pytest.approx(-6.0, abs=1e-6)


def _big_m(m, name: str, side: str, key) -> float:
    """The constant M of the row ``cs_<name>_<side>[key]`` of a textbook model, ``p <= M z1`` (side "p") or
    ``q <= M z2`` (side "q"): minus the coefficient of the pair's binary in the row's body ``p - M z``."""
    from pyomo.repn import generate_standard_repn

    z = m.component(f"z{1 if side == 'p' else 2}_{name}")[key]
    repn = generate_standard_repn(m.component(f"cs_{name}_{side}")[key].body)
    (coef,) = [c for v, c in zip(repn.linear_vars, repn.linear_coefs) if v is z]
    return -coef


def test_the_textbook_models_use_the_packages_valid_big_ms_of_items_1_to_8():
    """experiments/textbook.py: "The big-M constants are the package's valid ones derived from the data (items 1-8
    of bilevel.bigm, without the LP bound tightening of item 9)", so that the speed-up compares formulations, not
    constants (looser constants would inflate it, tighter invalid ones cut off optima). Mutation testing: the
    replica's constants computed for half the box, and the pessimistic ones from half the least training loss
    (invalid: smaller than the package's), passed the tests. Oracle: bilevel.bigm's functions called as documented
    (w_bar in [0, 1]^p; pessimistic: ``least_loss_bound`` the least mean training hinge at w_bar = 0, which is
    ``2 min(|T+|, |T-|) / |T|`` by hand: w = 0 leaves f = -b, and b = +-1 puts the larger class at hinge 0)."""
    from bilevel.bigm import optimistic_big_m, pessimistic_big_m
    from oracles import tiny_instance

    Xt, yt, Xv, yv = tiny_instance(1, 5, 4, p=2, overlap=2.0)
    n, p = Xt.shape
    ones = np.ones(p)
    mo = optimistic_big_m(Xt, yt, Xv, ones)
    m = textbook_optimistic(Xt, yt, Xv, yv)
    assert m.b.bounds == pytest.approx((-mo.b, mo.b))
    for i in range(n):
        assert (m.xi[i].ub, _big_m(m, "xi", "q", i)) == pytest.approx((mo.xi[i], mo.xi[i]))
        assert _big_m(m, "beta", "q", i) == pytest.approx(mo.slack[i])
    least = 2 * min((yt > 0).sum(), (yt < 0).sum()) / n
    flipped, epsilon, lam = np.arange(3), 0.2, 50.0
    P = pessimistic_big_m(Xt, yt, Xv, flipped, epsilon, ones, lam, least_loss_bound=least)
    m = textbook_pessimistic(Xt, yt, Xv, yv, flipped, epsilon, lam)
    assert m.b.bounds == pytest.approx((-P.b_lo, P.b_hi)) and m.b_hat.bounds == pytest.approx((-P.b_hat, P.b_hat))
    for i in range(n):
        assert (m.xi[i].ub, _big_m(m, "xi", "q", i)) == pytest.approx((P.xi[i], P.xi[i]))
        assert m.xi_hat[i].ub == pytest.approx(P.xi_hat[i])
        assert _big_m(m, "beta", "q", i) == pytest.approx(P.slack_t[i])
        # the replica's KKT system: the optimistic constants
        assert (_big_m(m, "xi_hat", "q", i), _big_m(m, "beta_hat", "q", i)) == pytest.approx((mo.xi[i], mo.slack[i]))
    for k in flipped:
        assert (_big_m(m, "v", "q", k), _big_m(m, "alpha", "q", k)) == pytest.approx((P.v[k], P.slack_f[k]))
    assert _big_m(m, "lam", "q", 0) == pytest.approx(P.budget)
    for j in range(p):
        assert m.mu_plus_hat[j].ub == pytest.approx(mo.mu[j])
        assert _big_m(m, "mu_plus", "q", j) == pytest.approx(P.box[j])


def test_the_pessimistic_textbook_models_mu_bounds_cover_every_follower_kkt_point():
    """textbook_pessimistic: the follower's multipliers are unnormalised with ``lambda <= Lambda``; stationarity in
    ``w_j`` gives ``mu+_j - mu-_j = sum_k alpha_k ybar_k x_kj + sum_i beta_i y_i x_ij``, and with ``alpha_k <=
    1/|V_f|`` and ``beta_i <= lambda/|T| <= Lambda/|T|``, ``|mu+_j - mu-_j| <= sum_k |x_kj| / |V_f| + Lambda
    sum_i |x_ij| / |T|``; at a KKT point with ``w_bar_j > 0`` one of the two is 0, so each needs that much. Mutation
    testing: the flipped points' share of that bound divided by 4 (invalid: it cuts off KKT points) passed the tests
    (at Lambda = 100 the training share dominates). Oracle: that bound, computed from the data, against the bounds
    of mu+- and the constants of their rows ``mu+-_j <= M z1_j``, at a small Lambda where the flipped share counts."""
    from oracles import tiny_instance

    Xt, yt, Xv, yv = tiny_instance(2, 5, 4, p=3, overlap=2.0)
    flipped, lam = np.array([0, 2, 3]), 0.5
    need = np.abs(Xv[flipped]).sum(axis=0) / len(flipped) + lam * np.abs(Xt).sum(axis=0) / len(yt)
    m = textbook_pessimistic(Xt, yt, Xv, yv, flipped, 0.1, lam)
    for name in ("mu_plus", "mu_minus"):
        var = m.component(name)
        for j in range(Xt.shape[1]):
            assert var[j].ub >= need[j] - 1e-12 and _big_m(m, name, "p", j) >= need[j] - 1e-12, (name, j)


def test_a_textbook_solve_without_a_solution_counts_the_whole_time_limit(monkeypatch):
    """bench_milp.run_instance: "instances that hit the time limit are reported with their gap", and the speed-up is
    "a lower bound (">=") when only the package did [prove optimality] (the textbook solve ran into the limit)".
    Mutation testing: a textbook solve that found no solution recorded no time (NaN) instead of the limit it ran
    into, so the package's win showed "-" instead of ">=", and passed the tests. Oracle: the limit passed (7 s),
    and the ratio limit / package time by hand."""
    from bilevel.solve import NoSolutionError

    def no_solution(*args, **kwargs):
        raise NoSolutionError("HiGHS stopped (time_limit) before finding a feasible solution")

    monkeypatch.setattr(bench_milp.bilevel, "solve_model", no_solution)  # the textbook's solve (tune has its own)
    row = bench_milp.run_instance("diabetes", "opt", 6, 0, time_limit=7.0)
    assert row["pkg_status"] == "optimal" and row["pkg_verified"] is True
    assert row["tb_status"] == "no_solution" and row["tb_solve"] == 7.0 and row["tb_gap"] == float("inf")
    row.update(speedup=bench_milp._ratio(row["tb_solve"], row["pkg_solve"]), both_optimal=bench_milp.both_optimal(row))
    assert row["speedup"] == pytest.approx(7.0 / max(row["pkg_solve"], 1e-3))
    assert bench_milp._speedup_text(row) == f">={row['speedup']:.1f}x"


def _fake_run_instance(calls: list):
    """A stand-in for bench_milp.run_instance that records its arguments and returns a row of an instance both
    formulations solved to optimality (package 0.5 s, textbook 2 s), without a textbook solve when told so."""
    def run(data, mode_key, n, seed, time_limit, textbook=True, race=1, clock="seconds"):
        calls.append((data, mode_key, n, seed, time_limit, textbook))
        row = {"data": data, "mode": mode_key, "n": n, "seed": seed, "pkg_status": "optimal", "pkg_obj": 0.25,
               "pkg_gap": 0.0, "pkg_build": 0.01, "pkg_build_lps": 0.0, "pkg_solve": 0.5, "pkg_start": 0.0,
               "pkg_write": 0.01, "pkg_compile": 0.01, "pkg_nodes": 1, "pkg_verified": True, "pkg_binaries": 4,
               "pkg_wall": 0.6, "lambda_bound": "", "pkg_opt_solve": 0.0}
        if textbook:
            row.update(tb_status="optimal", tb_obj=0.25, tb_gap=0.0, tb_solve=2.0, tb_nodes=1, tb_verified=True,
                       tb_binaries=8, tb_build=0.01)
        return row
    return run


def test_the_benchmarks_default_instance_set_and_time_limit(monkeypatch, tmp_path):
    """bench_milp.main: "|T| = |V| in {10, 20, 50, 100, 200}; seeds {0, 1, 2}" and ``--time-limit`` "seconds per MILP
    solve (default 600)", the instance set and limit of the README's Performance section. Mutation testing: the
    default sizes without 200, the default seeds without 2, and a default limit of 300 s passed the tests (every
    test names its sizes, seeds and limit). Oracle: the documented set, instance by instance, in the documented
    order (data, mode, size, seed), and the geometric mean of their speed-ups, 2 / 0.5 = 4 each."""
    calls: list = []
    monkeypatch.setattr(bench_milp, "run_instance", _fake_run_instance(calls))
    assert bench_milp.main(["--data", "cancer", "--modes", "opt", "--out", str(tmp_path)]) == 0
    assert calls == [("cancer", "opt", n, seed, 600.0, True) for n in (10, 20, 50, 100, 200) for seed in (0, 1, 2)]
    assert "Geometric-mean speed-up over the 15 instances both solve to optimality: **4.0x**." in (
        (tmp_path / "bench.md").read_text(encoding="utf-8"))


def test_no_textbook_above_skips_only_larger_sizes(monkeypatch, tmp_path):
    """bench_milp.main, ``--no-textbook-above N``: "skip the textbook formulation for sizes above this", so a size
    equal to N still gets its textbook solve. Mutation testing: skipping sizes from N on (``n < N`` for a textbook
    solve) passed the tests. Oracle: the option's help text, at sizes 5, 6 and 7 with N = 6."""
    calls: list = []
    monkeypatch.setattr(bench_milp, "run_instance", _fake_run_instance(calls))
    argv = ["--data", "cancer", "--modes", "opt", "--sizes", "5", "6", "7", "--seeds", "0", "--time-limit", "9",
            "--no-textbook-above", "6", "--out", str(tmp_path)]
    assert bench_milp.main(argv) == 0
    assert [(n, textbook) for _, _, n, _, _, textbook in calls] == [(5, True), (6, True), (7, False)]


def _report_row(seed: int, pkg_solve: float) -> dict:
    """A row as bench_milp.main completes it (both optimal, package ``pkg_solve`` s, textbook 2 s)."""
    row = _fake_run_instance([])("cancer", "opt", 10, seed, 600.0)
    row.update(pkg_solve=pkg_solve, race=1, clock="seconds", time_limit=600.0, date="2026-12-05", machine="x86_64")
    row.update(speedup=bench_milp._ratio(row["tb_solve"], pkg_solve), both_optimal=bench_milp.both_optimal(row))
    return {**row, "obj_match": bench_milp.objectives_match(row)}


def test_the_share_lines_count_a_solve_of_exactly_a_tenth_of_a_second(tmp_path):
    """bench_milp._markdown: the overhead lines count "the N with solve time >= 0.1 s"; a solve of exactly 0.1 s is
    one of them. Mutation testing: ``> 0.1`` in :func:`bench_milp._timed` passed the tests. Oracle: two hand-made
    rows, solves of 0.1 s and 0.05 s with build + compile + write 0.03 s (30% and 60% of the solve), so neither is
    below 10%, and one of them is a solve of at least 0.1 s."""
    text, geo, count = bench_milp._markdown([_report_row(0, 0.1), _report_row(1, 0.05)])
    assert "Build + compile (Pyomo to HiGHS) + write below 10% of the solve time: 0 of 2 instances (0 of the 1 with " \
           "solve time >= 0.1 s)." in text
    assert count == 2 and geo == pytest.approx((20.0 * 40.0) ** 0.5)


def test_no_speed_up_bound_where_neither_formulation_proved_optimality():
    """bench_milp._speedup_text: "-" "when neither did" (prove optimality): both solves ran into the limit, so their
    ratio bounds nothing. Mutation testing: "<=" for every row whose package solve was not optimal, whatever the
    textbook's status, passed the tests. Oracle: the docstring's cases, on hand-made rows (both at the 30 s limit:
    "-"; the textbook optimal in 3 s against the package's 30 s: "<=0.10x")."""
    row = {**_report_row(0, 30.0), "pkg_status": "time_limit", "pkg_gap": 0.5, "tb_status": "time_limit",
           "tb_solve": 30.0, "tb_gap": 0.25, "speedup": 1.0}
    row["both_optimal"] = bench_milp.both_optimal(row)
    assert bench_milp._speedup_text(row) == "-"
    row.update(tb_status="optimal", tb_solve=3.0, tb_gap=0.0, speedup=0.1)
    assert bench_milp._speedup_text(row) == "<=0.10x"


def test_the_summaries_count_non_optimal_and_unverified_solves_optimistic_first():
    """uci_study.summarize_limited / summarize_perturbed: the columns "non-optimal (opt/pes)" and "unverified
    (opt/pes)" give the optimistic count, then the pessimistic one (LIMITED_NOTE: solves that stopped at the time
    limit or found no solution; solutions that failed verification). Mutation testing: the limited table's
    non-optimal counts in the order pes/opt passed the tests (theirs were equal). Oracle: three hand-made runs per
    cell, two optimistic solves at the time limit and one pessimistic solve without a solution; one pessimistic
    solution unverified: "2/1" and "0/1"."""
    import pandas as pd

    from experiments import uci_study as us

    def runs(**coords):
        status = [("time_limit", "optimal"), ("time_limit", "no_solution"), ("optimal", "optimal")]
        return pd.DataFrame([dict(run_id=f"r{k}", run=k, dataset="cancer", **coords, opt_status=o, pes_status=p,
                                  opt_verified=True, pes_verified=k != 0, opt_acc_test=0.5, pes_acc_test=0.75)
                             for k, (o, p) in enumerate(status)])
    for summary in (us.summarize_limited(runs(n_val=5, n_train=10)),
                    us.summarize_perturbed(runs(rho_val=0.0, epsilon=0.2, rho_test=0.0))):
        assert summary["non-optimal (opt/pes)"].tolist() == ["2/1"]
        assert summary["unverified (opt/pes)"].tolist() == ["0/1"]
        assert summary["runs"].tolist() == [3] and summary["pessimistic"].tolist() == ["0.750 ± 0.000"]


def test_the_runs_table_is_sorted_by_its_coordinates_run_last():
    """uci_study.records_frame: the rows "sorted by their coordinates" (data set, |V|, |T|, ..., run), whatever the
    order of the records (a resumed study's come in file or completion order). Mutation testing: the sort without
    the run passed the tests (theirs came in run order). Oracle: hand-made records of one cell in reverse run order,
    and one of a smaller |T| last."""
    from experiments import uci_study as us

    def record(run: int, n_train: int) -> dict:
        rid = f"cancer-V5-T{n_train}-r{run}"
        return {"run_id": rid, "study": "limited", "error": None, "rows": [
            {"study": "limited", "run_id": rid, "dataset": "cancer", "n_val": 5, "n_train": n_train, "run": run,
             "opt_acc_test": 0.5}]}
    records = {r["run_id"]: r for r in (record(2, 10), record(0, 10), record(1, 10), record(0, 5))}
    df = us.records_frame(records, "limited")
    assert list(zip(df["n_train"], df["run"])) == [(5, 0), (10, 0), (10, 1), (10, 2)]
