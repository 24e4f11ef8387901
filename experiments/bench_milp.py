"""Benchmark: the package's MILPs against the textbook reference formulation (experiments/textbook.py).

Instances (fixed): data in {cancer, diabetes}; mode in {optimistic, pessimistic eps=0, pessimistic eps=0.2}
(pessimistic: all validation labels flipped); |T| = |V| in {10, 20, 50, 100, 200}; seeds {0, 1, 2};
``w_bar`` in [0, 1]^p; the split of ``bilevel.split_dataset`` (test = half; a tenth at 200). Options select a subset.

For each instance, in one run: build (``pkg_build_lps`` of it: the build's LPs, least training loss and bound
tightening), compile (Pyomo to HiGHS's matrices), write (.mps) and solve time (the package's includes the LPs of its
MIP start, also reported alone as ``pkg_start``), nodes, gap, objective and verification of (a) ``bilevel.tune``
(the package) and (b) the textbook formulation (two binaries per complementarity pair, the valid big-Ms of items 1-8
of ``bilevel.bigm`` (not the LP-tightened ones of item 9), unnormalised multipliers with the lambda bound the
package ended with, or the one it starts from when it found no solution, no warm start, default HiGHS); a package
solve without a solution keeps the textbook solve of its instance. Prints the speed-up (b)/(a) per instance and the
geometric mean over the instances both solve to optimality (both solutions verified, :func:`both_optimal`); both
solve times of a ratio count as at least 1 ms (``TIME_FLOOR``; only the package's did, so a textbook time reported
as 0 s made its speed-up 0x, and the geometric mean with it); instances that hit the time limit are reported with
their gap. The package's solve time leaves out its build's LPs (bound tightening, ``pkg_build_lps``) and,
pessimistic, the optimistic solve it builds on (``V_f``'s hyperplane, the MIP start's boxes, at epsilon = 0 the
objective floor; ``pkg_opt_solve``, its build's LPs included); ``bench.md``
gives the geometric mean with both counted too. Writes ``bench.csv`` (after every instance) and ``bench.md``
(per-instance table, a per-group summary, the geometric mean, the largest size proven optimal and the share of build
+ compile + write in the solve time) into ``--out``; ``--render`` rewrites ``bench.md`` from an existing
``bench.csv``. |T| = |V| = 200 needs 400 rows besides the test set: as in the instance library
(:func:`bilevel.library.default_test_fraction`), the test set is half the data up to |T| + |V| = 200 and a tenth
above.

    python experiments/bench_milp.py --sizes 10 20 --seeds 0 1 2 --time-limit 30 --out experiments/results/bench_small
"""
from __future__ import annotations

import argparse
import csv
import math
import platform
import sys
import tempfile
import time
import warnings
from datetime import date
from pathlib import Path

import numpy as np
from scipy.stats import gmean

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bilevel  # noqa: E402
from bilevel.export import markdown_cell, replace_atomically  # noqa: E402
from bilevel.library import default_test_fraction  # noqa: E402
from bilevel.tune import starting_lambda_bound  # noqa: E402
from bilevel.solve import MAX_CONCURRENCY, InfeasibleModelError, NoSolutionError, compile_model  # noqa: E402
from experiments.bench_args import integer_at_least, positive_seconds, refuse_repeats, writable_out  # noqa: E402
from bilevel.validation import CLOCKS, value_text  # noqa: E402
from experiments.textbook import textbook_optimistic, textbook_pessimistic  # noqa: E402

PROVEN_WITHIN = 600.0  # seconds: the "largest size proven optimal" of the report counts solves up to this long
TIME_FLOOR = 1e-3  # seconds: the least solve time a speed-up counts, on both sides (:func:`_ratio`)
MODES = {"opt": ("optimistic", 0.0), "pes0": ("pessimistic", 0.0), "pes0.2": ("pessimistic", 0.2)}


def benchmark_split(data: str, n: int, seed: int):
    """The split of a benchmark instance: ``data`` ("cancer" or "diabetes"), |T| = |V| = ``n``, split seed
    ``seed``, test fraction of :func:`bilevel.library.default_test_fraction`; a
    :func:`bilevel.split_dataset` result. Every script of experiments/ that names instances by
    (data, n, seed) uses it, so they all mean the same split."""
    X, y = bilevel.load_dataset(data)[:2]
    return bilevel.split_dataset(X, y, n, n, seed=seed, test_fraction=default_test_fraction(n, n))


def plain_split(data: str, n: int, seed: int):
    """The split of the scripts that keep :func:`bilevel.split_dataset`'s own test fraction (0.5) rather than
    :func:`benchmark_split`'s: |T| = |V| = ``n`` of ``data``, split seed ``seed``; for :func:`check_splits`."""
    X, y = bilevel.load_dataset(data)[:2]
    return bilevel.split_dataset(X, y, n, n, seed=seed)


def check_splits(ap: argparse.ArgumentParser, pairs, seed: int = 0, option: str | None = None,
                 split=benchmark_split, data_option: str = "--data") -> None:
    """``ap.error`` (exit 2, one line) when the split (seed ``seed``) of a ``(data, n)`` pair of ``pairs`` cannot
    be made (an unknown data set, a size too large for it): called before any solve, so a bad size ends the run
    at once rather than after the instances before it. ``option`` (``"--sizes"``) heads the message of a size,
    naming the option that gave it, and then ``data_option`` that of a data set that cannot be loaded;
    ``split(data, n, seed)`` makes the script's split (default :func:`benchmark_split`; scripts that split with
    :func:`bilevel.split_dataset`'s own test fraction pass :func:`plain_split`)."""
    if option:
        for data in dict.fromkeys(data for data, _ in pairs):
            try:
                bilevel.load_dataset(data)
            except bilevel.InputError as exc:
                ap.error(f"{data_option}: {exc}")
    for data, n in pairs:
        try:
            split(data, n, seed)
        except bilevel.InputError as exc:
            ap.error(f"{option + ': ' if option else ''}{data}, |T| = |V| = {value_text(n)}: {exc}")


def _write_seconds(model) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        bilevel.write_model(model, Path(tmp) / "m.mps")
        return time.perf_counter() - t0


def _compile_seconds(model) -> float:
    """Time to compile the solved Pyomo model into HiGHS's matrices: the solve path's "write"."""
    t0 = time.perf_counter()
    compile_model(model)
    return time.perf_counter() - t0


def _overhead_seconds(r: dict) -> float:
    """build + compile + write seconds of a row; compile counts 0 in CSVs written before it was measured."""
    compile_s = r["pkg_compile"] if _is_number(r.get("pkg_compile")) else 0.0
    return r["pkg_build"] + compile_s + r["pkg_write"]


def _solve_path_share(r: dict) -> float:
    """(Pyomo build + compile) / (solve + the build's LPs) of a row: the build's LPs (least training loss and
    bound tightening, ``pkg_build_lps``) count as solving, like a presolve, and the .mps export, which a solve
    does not write, is left out; NaN in CSVs written before ``pkg_build_lps`` was recorded."""
    if not _is_number(r.get("pkg_build_lps")) or not _is_number(r.get("pkg_compile")):
        return math.nan
    return (r["pkg_build"] - r["pkg_build_lps"] + r["pkg_compile"]) / (r["pkg_solve"] + r["pkg_build_lps"])


def _overhead(r: dict) -> float:
    """(build + compile + write) / solve of a row."""
    return _overhead_seconds(r) / r["pkg_solve"]


def _timed(r: dict, least_solve: float = 0.0) -> bool:
    """Whether a row's overhead share is defined (a build time and a positive solve time) and its solve took at
    least ``least_solve`` seconds."""
    return math.isfinite(r["pkg_build"]) and r["pkg_solve"] > 0 and r["pkg_solve"] >= least_solve


def _size_shares(rows: list[dict]) -> str:
    """Per |T| = |V|: (sum of build + compile + write) / (sum of solve time) over the rows of that size with a
    build time, e.g. ``"10: 5.1%, 20: 0.9%"`` (``"-"`` without such rows)."""
    sums: dict = {}
    for r in rows:
        if _timed(r):
            over, solve = sums.get(r["n"], (0.0, 0.0))
            sums[r["n"]] = (over + _overhead_seconds(r), solve + r["pkg_solve"])
    return ", ".join(f"{n}: {o / t:.1%}" for n, (o, t) in sorted(sums.items())) or "-"


def _proved(r: dict, side: str) -> bool:
    """Whether the ``side`` (``"pkg"`` or ``"tb"``) solve of row ``r`` proved optimality with a solution that
    passed verification (an unverified "optimal" solve is not an optimum of the bilevel problem)."""
    return r.get(f"{side}_status") == "optimal" and r.get(f"{side}_verified") is True


def both_optimal(r: dict) -> bool:
    """Whether row ``r`` counts in the speed-up's geometric mean: both formulations proved optimality and both
    solutions passed their verification (an unverified "optimal" solve is not an optimum of the bilevel
    problem, and its time is no measure of its formulation's)."""
    return _proved(r, "pkg") and _proved(r, "tb")


def run_instance(data, mode_key, n, seed, time_limit, textbook=True, race: int = 1, clock: str = "seconds") -> dict:
    s = benchmark_split(data, n, seed)
    mode, eps = MODES[mode_key]
    row = {"data": data, "mode": mode_key, "n": n, "seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t0 = time.perf_counter()
        try:
            opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, time_limit=time_limit, race=race, clock=clock)
            res = opt if mode == "optimistic" else bilevel.tune(
                s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=eps, flip="all", optimistic=opt,
                time_limit=time_limit, race=race, clock=clock)
        except (NoSolutionError, InfeasibleModelError) as exc:  # reported, not dropped: no incumbent within the
            # limit, or (an error of the package, as these instances are feasible) an infeasible MILP at every bound
            none = isinstance(exc, NoSolutionError)
            row.update(pkg_status="no_solution" if none else "infeasible", pkg_obj=math.nan, pkg_gap=math.inf,
                       pkg_build=math.nan, pkg_solve=time_limit if none else math.nan, pkg_start=math.nan,
                       pkg_write=math.nan, pkg_nodes=-1, pkg_verified=False, pkg_binaries=-1,
                       pkg_wall=time.perf_counter() - t0, lambda_bound="")
            res = None
        else:
            wall = time.perf_counter() - t0
    if res is not None:
        row.update(pkg_status=res.status, pkg_obj=res.objective, pkg_gap=res.gap, pkg_build=res.build_seconds,
                   pkg_build_lps=res.build_lp_seconds,
                   pkg_solve=res.total_seconds + res.start_seconds, pkg_start=res.start_seconds,
                   pkg_write=_write_seconds(res.model), pkg_compile=_compile_seconds(res.model), pkg_nodes=res.nodes,
                   pkg_verified=res.verified, pkg_binaries=res.n_binaries, pkg_wall=wall,
                   lambda_bound=res.lambda_bound if mode == "pessimistic" else "")
        if mode == "pessimistic":  # the optimistic solve the pessimistic tune builds on (not in pkg_solve)
            row["pkg_opt_solve"] = opt.total_seconds + opt.start_seconds + opt.build_lp_seconds
    if not textbook:
        return row
    t0 = time.perf_counter()
    if mode == "optimistic":
        m = textbook_optimistic(s.X_train, s.y_train, s.X_val, s.y_val)
    else:  # the bound the package ended with; without a package solution, the one it starts from
        bound = res.lambda_bound if res is not None else starting_lambda_bound(eps)  # tune's defaults
        m = textbook_pessimistic(s.X_train, s.y_train, s.X_val, s.y_val, np.arange(n), eps, bound)
    build = time.perf_counter() - t0
    try:
        info = bilevel.solve_model(m, time_limit=time_limit)
        ver = bilevel.verify_model(m).verified
        row.update(tb_status=info.status, tb_obj=info.objective, tb_gap=info.gap, tb_solve=info.seconds,
                   tb_nodes=info.nodes, tb_verified=ver, tb_binaries=info.n_binaries)
    except NoSolutionError:
        row.update(tb_status="no_solution", tb_obj=math.nan, tb_gap=math.inf, tb_solve=time_limit, tb_nodes=-1,
                   tb_verified=False, tb_binaries=-1)
    except InfeasibleModelError:  # only the starting lambda bound of a pessimistic instance without a package
        # solution can be too small for every follower (tune would have enlarged it): reported, not a crash
        row.update(tb_status="infeasible", tb_obj=math.nan, tb_gap=math.inf, tb_solve=math.nan, tb_nodes=-1,
                   tb_verified=False, tb_binaries=-1)
    row["tb_build"] = build
    return row


def _is_number(v) -> bool:
    """Whether a row value is a finite number: a row without a textbook solve has no ``tb_*`` key in a fresh
    run and an empty cell (``""``) in a re-read CSV, and ``speedup`` NaN."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _num(r: dict, key: str, spec: str) -> str:
    """``r[key]`` formatted by ``spec``; "-" when the row has no number there (:func:`_is_number`)."""
    v = r.get(key)
    return format(v, spec) if _is_number(v) else "-"


def _speedup_text(r: dict) -> str:
    """The speed-up (b)/(a) of a row: exact when both proved optimality, a lower bound (">=") when only the
    package did (the textbook solve ran into the limit), an upper bound ("<=") when only the textbook did (the
    package would need at least the time it ran), "-" when neither did or the textbook did not run, and "-" for a
    package "optimal" solve that failed verification (as in :func:`both_optimal`, its time is no measure of the
    package's: it showed ">=", a lower bound claiming the textbook ran into the limit, even where the textbook
    had proved optimality), and likewise "-" for a textbook "optimal" solve that failed verification."""
    if not _is_number(r.get("speedup")):
        return "-"
    if r["both_optimal"]:
        return f"{r['speedup']:.1f}x"
    if r.get("tb_status") == "optimal" and r.get("tb_verified") is not True:
        return "-"
    if r["pkg_status"] == "optimal":
        return f">={r['speedup']:.1f}x" if r.get("pkg_verified") is True else "-"
    return f"<={r['speedup']:.2f}x" if r.get("tb_status") == "optimal" else "-"


def objectives_match(r: dict) -> bool | str:
    """Whether two optimal objectives agree within the gaps HiGHS stopped at (relative, 1e-4 by default) plus
    1e-5 (an absolute 1e-5 alone called 0.1499307 and 0.1499429 at gap 8.1e-5 a mismatch); ``""`` unless
    both solves are optimal."""
    if not r["both_optimal"]:
        return ""
    a, b = r["pkg_obj"], r["tb_obj"]
    return abs(a - b) <= 1e-5 + max(r["pkg_gap"] * abs(a), r["tb_gap"] * abs(b))


def _median(values, spec: str) -> str:
    """The median of the numbers among ``values`` (:func:`_is_number`) formatted by ``spec``; ``"-"`` when none is
    a number. An infeasible solve has no time (NaN): the group's median read "nan" (e.g. "2/3, nan")."""
    numbers = [v for v in values if _is_number(v)]
    return format(float(np.median(numbers)), spec) if numbers else "-"


def _times(ratio: float, spec: str) -> str:
    """A speed-up as ``"2.5x"``; ``"-"`` when there is none (NaN: no instance both solve to optimality, which
    the report and the script's last line printed as "nanx")."""
    return f"{ratio:{spec}}x" if math.isfinite(ratio) else "-"


def _limit_text(rows: list[dict], time_limit: float | None) -> str:
    """The time limit(s) of ``rows`` (their ``time_limit`` column; ``time_limit`` for rows without it)."""
    limits = sorted({float(r["time_limit"]) if _is_number(r.get("time_limit")) else time_limit for r in rows}
                    - {None})
    return "/".join(f"{t:g}" for t in limits) or "-"


def _machine() -> str:
    """The machine a run measures on, as the report names it."""
    return f"{platform.machine()} ({platform.processor() or 'cpu'})"


def _recorded(rows: list[dict], key: str) -> str:
    """The run date(s) or machine(s) ``rows`` record in column ``key`` (a run writes both in every row), for the
    report's first line; "(not recorded in bench.csv)" for a CSV written before they were. ``--render`` took the
    date and machine of the rendering, so a re-rendered report misdated its run."""
    values = sorted({str(r[key]) for r in rows if r.get(key) not in (None, "")})
    return " / ".join(values) if values else "(not recorded in bench.csv)"


def _write_csv(path: Path, rows: list[dict]) -> None:
    """Rewrite the CSV after every instance, so an interrupted benchmark keeps what it measured; through a
    temporary file renamed into place, so that an interruption during the write leaves the previous CSV whole
    (it left a CSV cut short, which ``--render`` then read)."""
    keys = list(dict.fromkeys(k for r in rows for k in r))

    def write(temp: Path) -> None:
        with open(temp, "w", newline="", encoding="utf-8") as fh:  # UTF-8 whatever the locale (a data path
            w = csv.DictWriter(fh, keys)  # such as ρ.csv could not be written in an ASCII locale)
            w.writeheader()
            w.writerows(rows)

    replace_atomically(path, write)


def _speedup_all_solving(r: dict) -> float:
    """The speed-up (b)/(a) of a row with all the package's solving in (a): the build's LPs (``pkg_build_lps``:
    least training loss and bound tightening, which :func:`_solve_path_share` counts as solving too) and, for a
    pessimistic instance, the optimistic solve it builds on (``pkg_opt_solve``, its build's LPs included: it
    gives ``V_f``'s hyperplane, the boxes of the MIP start and, at epsilon = 0, the objective floor, none of
    which the textbook model gets or needs). NaN where the row does not record them (CSVs written before)."""
    seconds = _all_solving_seconds(r)
    if not (math.isfinite(seconds) and _is_number(r.get("tb_solve"))):
        return math.nan
    return _ratio(r["tb_solve"], seconds)


def _ratio(textbook_seconds: float, package_seconds: float) -> float:
    """The speed-up (b)/(a): textbook seconds over package seconds, each at least :data:`TIME_FLOOR` (only the
    package's was floored, so a textbook time reported as 0 s gave 0x, which made the geometric mean 0x)."""
    return max(textbook_seconds, TIME_FLOOR) / max(package_seconds, TIME_FLOOR)


def _all_solving_seconds(r: dict) -> float:
    """All the package's solving time of a row: ``pkg_solve`` plus its build's LPs (``pkg_build_lps``) and, for a
    pessimistic instance, the optimistic solve it builds on (``pkg_opt_solve``); NaN where the row does not
    record them (CSVs written before)."""
    extra = [r.get("pkg_build_lps")] + ([] if r["mode"] == "opt" else [r.get("pkg_opt_solve")])
    return r["pkg_solve"] + sum(extra) if all(map(_is_number, extra)) else math.nan


NO_SOLUTION = ("no_solution", "infeasible")  # statuses of a row without a solution to verify (run_instance)


def _has_solution(r: dict, side: str) -> bool:
    """Whether row ``r`` holds a solution of ``side`` ("pkg" or "tb") to verify: a solve ended (a textbook solve
    ran) with a status other than :data:`NO_SOLUTION`. The verification lines counted a package or textbook solve
    without any solution (``verified`` False) as a solution that failed verification."""
    return r.get(f"{side}_status") not in (None, "", *NO_SOLUTION)


def _without_solution(rows: list[dict]) -> str:
    """`` (k instance(s) without a package solution: not counted)`` for the verification line, ``""`` if none."""
    k = sum(not _has_solution(r, "pkg") for r in rows)
    return f" ({k} instance(s) without a package solution: not counted)" if k else ""


def _markdown(rows: list[dict], time_limit: float | None = None) -> tuple[str, float, int]:
    """The Markdown report of benchmark rows: per-instance table, geometric-mean speed-up over the instances
    both formulations solve to optimality, the largest size proven optimal, the share of build + compile + write in
    the solve time, and whether every package solution verified. Returns (text, geo-mean, #instances)."""
    ok = [r["speedup"] for r in rows if r["both_optimal"]]
    geo = gmean(ok) if ok else math.nan
    # The issue's "largest |T| solved to proven optimality within 10 minutes": a verified optimum, solved
    # within 600 s (a run with a larger --time-limit can prove optima later than that), all of its solving
    # counted where the row records it (a pessimistic one's optimistic solve too; CSVs written before: pkg_solve)
    proven = [r["n"] for r in rows if r["pkg_status"] == "optimal" and r["pkg_verified"] is True
              and np.nan_to_num(_all_solving_seconds(r), nan=r["pkg_solve"]) <= PROVEN_WITHIN]
    races = sorted({int(r.get("race") or 1) for r in rows})
    share = [_overhead(r) for r in rows if _timed(r)]
    long = [_overhead(r) for r in rows if _timed(r, 0.1)]
    lines = [
        f"Benchmark run {_recorded(rows, 'date')} on {_recorded(rows, 'machine')}, "
        f"time limit {_limit_text(rows, time_limit)} s per solve, HiGHS via highspy; package MILPs raced over "
        f"{'/'.join(map(str, races))} HiGHS seed(s) (race=1: one plain run, one core)"
        + ("; `bilevel.tune(clock=\"nodes\")`: box search and cutoff restarts after node counts."
           if any(r.get("clock") == "nodes" for r in rows) else "."),
        "",
        "| data | mode | n | seed | package status | package gap | package solve s (incl. start LPs) | build s "
        "| compile s | write s | (build+compile+write)/solve | nodes "
        "| verified | textbook status | textbook solve s | textbook gap | textbook verified | speed-up "
        "| objectives match |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        # a zero solve time raised ZeroDivisionError; a package solve without a solution (no build, no model to
        # write; infeasible: no time) showed "nan" in these cells and "nan%"
        bw = format(_overhead(r), ".0%") if _timed(r) else "-"
        lines.append(
            f"| {markdown_cell(r['data'])} | {r['mode']} | {r['n']} | {r['seed']} | {r['pkg_status']} | "
            f"{_num(r, 'pkg_gap', '.1e')} | {_num(r, 'pkg_solve', '.2f')} | {_num(r, 'pkg_build', '.3f')} | "
            f"{_num(r, 'pkg_compile', '.3f')} | {_num(r, 'pkg_write', '.3f')} | "
            f"{bw} | {r['pkg_nodes']} | {r['pkg_verified']} | "
            f"{r.get('tb_status') or '-'} | {_num(r, 'tb_solve', '.2f')} | {_num(r, 'tb_gap', '.1e')} | "
            f"{'-' if r.get('tb_verified') in (None, '') else r['tb_verified']} | {_speedup_text(r)} | "
            f"{objectives_match(r)} |")
    lines += ["", "Per group: verified optima of the seeds and median solve seconds (package pessimistic times "
              "exclude the",
              "optimistic solve that supplies `V_f` and the floor; `pkg_wall` in the CSV includes it; an infeasible "
              "solve has no time and is left out of the median, '-' when no solve of the group has one).", "",
              "| data | mode | n | package: optimal, median s | textbook: optimal, median s "
              "| geo-mean speed-up (both optimal) |",
              "|---|---|---|---|---|---|"]
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["data"], r["mode"], r["n"]), []).append(r)
    for (data, mode, n), rs in groups.items():
        both = [r["speedup"] for r in rs if r["both_optimal"]]
        tb = [r for r in rs if r.get("tb_status")]
        # verified optima only, as in the speed-up (an unverified "optimal" solve was counted here, not there)
        pkg = f"{sum(_proved(r, 'pkg') for r in rs)}/{len(rs)}, {_median([r['pkg_solve'] for r in rs], '.2f')}"
        ref = (f"{sum(_proved(r, 'tb') for r in tb)}/{len(tb)}, {_median([r['tb_solve'] for r in tb], '.2f')}"
               if tb else "-")
        speed = f"{gmean(both):.1f}x" if both else "-"
        lines.append(f"| {markdown_cell(data)} | {mode} | {n} | {pkg} | {ref} | {speed} |")
    all_solving = [_speedup_all_solving(r) for r in rows if r["both_optimal"]]
    lines += ["", f"Geometric-mean speed-up over the {len(ok)} instances both solve to optimality: "
                  f"**{_times(geo, '.1f')}**."]
    if all_solving and all(map(math.isfinite, all_solving)):
        lines.append(  # not for CSVs written before pkg_build_lps and pkg_opt_solve were recorded
            f"The same with all the package's solving counted: its build's LPs (bound tightening) and, for "
            f"pessimistic instances, the optimistic solve it builds on (`V_f`'s hyperplane, the MIP start's boxes, "
            f"at epsilon = 0 the objective floor; the textbook model needs none of them): "
            f"{gmean(all_solving):.1f}x.")
    lines += [
              f"Largest |T| = |V| the package solved to proven optimality within {PROVEN_WITHIN / 60:g} minutes "
              f"(a verified solution; all of its solving counted where bench.csv records it: the build's LPs and, "
              f"pessimistic, the optimistic solve): {max(proven) if proven else '-'}.",
              f"Build + compile (Pyomo to HiGHS) + write below 10% of the solve time: {sum(x < 0.1 for x in share)} "
              f"of {len(share)} instances "
              f"({sum(x < 0.1 for x in long)} of the {len(long)} with solve time >= 0.1 s).",
              "Build + compile + write summed over each size's instances, as a share of their summed solve time: "
              f"{_size_shares(rows)}.",
              f"Objectives agree (within the gaps HiGHS stopped at) wherever both are optimal: "
              f"{all(objectives_match(r) for r in rows if r['both_optimal'])}.",
              f"All textbook solutions verified: {all(r['tb_verified'] for r in rows if _has_solution(r, 'tb'))}.",
              f"All package solutions verified: {all(r['pkg_verified'] for r in rows if _has_solution(r, 'pkg'))}"
              + _without_solution(rows) + "."]
    path = [x for x in (_solve_path_share(r) for r in rows if _timed(r)) if math.isfinite(x)]
    if path:
        long_path = [x for x in (_solve_path_share(r) for r in rows if _timed(r, 0.1)) if math.isfinite(x)]
        lines[-1:-1] = [
            f"Pyomo build + compile (the solve path: the build's LPs counted as solving, no .mps export) below 10% "
            f"of the solve time: {sum(x < 0.1 for x in path)} of {len(path)} instances "
            f"({sum(x < 0.1 for x in long_path)} "
            f"of the {len(long_path)} with solve time >= 0.1 s; largest share {max(long_path or path):.1%})."]
    return "\n".join(lines) + "\n", geo, len(ok)


def _read_csv(path: Path) -> list[dict]:
    """Rows of a ``bench.csv`` with numbers and booleans restored (for ``--render``), ``both_optimal`` recomputed
    (:func:`both_optimal`: a CSV written before it asked for a verified package solution counted unverified ones)."""
    def parse(v: str):
        if v in ("True", "False"):
            return v == "True"
        try:
            return int(v)
        except ValueError:
            pass
        try:
            return float(v)
        except ValueError:
            return v
    with open(path, newline="", encoding="utf-8-sig") as fh:
        rows = [{k: parse(v) for k, v in r.items()} for r in csv.DictReader(fh)]
    return [{**r, "both_optimal": both_optimal(r)} for r in rows]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", nargs="+", default=["cancer", "diabetes"])
    ap.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    ap.add_argument("--sizes", nargs="+", type=integer_at_least(2), default=[10, 20, 50, 100, 200])
    ap.add_argument("--seeds", nargs="+", type=integer_at_least(0), default=[0, 1, 2])
    ap.add_argument("--time-limit", type=positive_seconds, default=None,
                    help="seconds per MILP solve (default 600; with --render, only for a bench.csv that does not "
                    "record its limit)")
    ap.add_argument("--no-textbook-above", type=integer_at_least(0), default=10**9,
                    help="skip the textbook formulation for sizes above this (it would only hit the limit)")
    ap.add_argument("--race", type=integer_at_least(1), default=1,
                    help="concurrent HiGHS runs per package MILP (bilevel.solve_model's race; the textbook model "
                    "always gets one plain run)")
    ap.add_argument("--clock", choices=CLOCKS, default="seconds",
                    help="bilevel.tune's clock for the package's solves: 'nodes' makes their path (and node counts) "
                    "the same in every run, without a time limit hit and with race 1")
    ap.add_argument("--out", default="experiments/results")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite OUT/bench.md from an existing OUT/bench.csv")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.render:
        if not (out / "bench.csv").is_file():
            ap.error(f"--render: {out / 'bench.csv'} does not exist")
        try:
            rows = _read_csv(out / "bench.csv")
            recorded = {r["time_limit"] for r in rows if _is_number(r.get("time_limit"))}
            if args.time_limit is not None and recorded - {args.time_limit}:
                ap.error(f"--time-limit {args.time_limit:g} differs from the limit bench.csv records "
                         f"({', '.join(f'{t:g}' for t in sorted(recorded))})")
            if args.time_limit is None and any(not _is_number(r.get("time_limit")) for r in rows):
                ap.error("bench.csv does not record the time limit of every row; pass the one it used as --time-limit")
            text, geo, n_ok = _markdown(rows, args.time_limit)
        except KeyError as missing:  # a column the report needs: was a raw KeyError traceback
            ap.error(f"--render: {out / 'bench.csv'} has no column {missing.args[0]!r} (not a bench.csv of this "
                     "script, or damaged)")
        replace_atomically(out / "bench.md", lambda temp: temp.write_text(text, encoding="utf-8"))
        print(text)
        return 0
    if args.race > MAX_CONCURRENCY:
        ap.error(f"--race must be at most {MAX_CONCURRENCY}")
    refuse_repeats(ap, args, "data", "modes", "sizes", "seeds")
    time_limit = 600.0 if args.time_limit is None else args.time_limit
    check_splits(ap, [(data, n) for data in args.data for n in args.sizes], args.seeds[0], "--sizes")
    writable_out(ap, out)  # an existing folder that cannot be written to (/proc) ran its first instance
    rows = []
    print(f"{'instance':<26} {'package':>28} {'textbook':>28} {'speed-up':>9}")
    for data in args.data:
        for mode in args.modes:
            for n in args.sizes:
                for seed in args.seeds:
                    r = run_instance(data, mode, n, seed, time_limit, textbook=n <= args.no_textbook_above,
                                     race=args.race, clock=args.clock)
                    r["race"], r["clock"], r["time_limit"] = args.race, args.clock, time_limit
                    r["date"], r["machine"] = date.today().isoformat(), _machine()
                    both = both_optimal(r)
                    r["speedup"] = _ratio(r["tb_solve"], r["pkg_solve"]) if "tb_solve" in r else math.nan
                    r["both_optimal"] = both
                    r["obj_match"] = objectives_match(r)
                    rows.append(r)
                    _write_csv(out / "bench.csv", rows)
                    # an infeasible solve has no time: "nans" was printed ("-s" now)
                    tb = (f"{r['tb_status'][:8]:>8} {_num(r, 'tb_solve', '.2f'):>8}s gap {_num(r, 'tb_gap', '.0e')}"
                          if "tb_status" in r else "skipped".rjust(28))
                    print(f"{data[:8]:<8} {mode:<6} n={n:<3} s={seed:<2} {r['pkg_status'][:8]:>8} "
                          f"{_num(r, 'pkg_solve', '.2f'):>8}s gap {_num(r, 'pkg_gap', '.0e')} {tb}"
                          f" {_speedup_text(r):>9}", flush=True)
    _write_csv(out / "bench.csv", rows)
    text, geo, n_ok = _markdown(rows)
    replace_atomically(out / "bench.md", lambda temp: temp.write_text(text, encoding="utf-8"))
    print(f"\ngeometric-mean speed-up (both optimal, {n_ok} instances): {_times(geo, '.2f')}")
    print(f"wrote {out / 'bench.csv'} and {out / 'bench.md'}")
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/bench_milp.py"))
