"""Benchmark: the package's own tuning MILPs handed to other solvers. Is a slow solve the formulation's doing or
HiGHS's?

Each instance is a model built as ``bilevel.tune`` builds its models (tightened big-Ms, points decided by a cutoff
row) and written to ``.mps``; every solver asked for reads that same file and solves it with one search thread
(Gurobi, CPLEX and Xpress: their runners set one thread; HiGHS searches the tree serially unless its option
``parallel`` is on, SCIP always), no MIP start, the time limit and its default relative gap, through its runner
in ``solvers/``, once per random seed of ``--seeds`` (the runners' ``seed``). HiGHS runs with the package's
options (``bilevel.tuning_options()``); the other solvers with their defaults. An instance is
``MODE:DATA:N:SPLIT[:AROUND]``: ``MODE`` ``optimistic`` (Eq. (21) of the pessimistic bilevel tuning paper) or
``pessimistic`` (Eq. (25), every validation label flipped, ``--epsilon``), ``DATA`` ``cancer`` or ``diabetes``,
|T| = |V| = ``N``, split seed ``SPLIT`` (the split of ``experiments/bench_milp.benchmark_split``), and what the
model is built around:

- ``tune`` (pessimistic default): the model a ``bilevel.tune`` call (HiGHS seed 0, ``--tune-time-limit``) ended
  with, its last cutoff row included; pessimistic, after an optimistic call alike that gives the flipped set;
- ``box`` (optimistic default): built around the value the box search (``bilevel.box_search.search_box`` from
  ``w_bar_ub`` and the hinge-minimiser boxes, without a floor or deadline) reaches, padded as ``tune`` pads a
  cutoff: the model an optimistic ``tune`` call builds first at ``|T| + |V| >= 100`` (before 2026-12-07 it restarted
  into it when its box search beat HiGHS's incumbent, as on cancer 100/100 split 1; ``tune``'s search may stop
  earlier, at a deadline);
- ``none``: the plain model, without a cutoff row; or a number: built around that mean validation hinge loss.

Every incumbent is loaded into the Pyomo model by its column names and checked with ``bilevel.verify_model`` (the
follower's LP re-solved at the solver's ``w_bar``): ``verified`` in the CSV. Prints a line per solve as it ends and
a table per instance and solver (status, seconds of the whole runner call over the seeds, nodes, objective), with
the ratio of HiGHS's median time to each solver's where both proved every seed optimal; writes ``runs.csv``
(after every solve) and ``runs.md`` into ``--out``, the ``.mps`` files there too or into ``--models``.

    python experiments/bench_solvers.py --out /tmp/solvers --instance optimistic:cancer:100:1 \\
        --solver highs --solver gurobi --solver cplex --seeds 0 1 2 --time-limit 120
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
import warnings
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pyomo.environ as pyo  # noqa: E402
from pyomo.core.base.label import LPFileLabeler  # noqa: E402

import bilevel  # noqa: E402
from bilevel.box_search import candidate_boxes, search_box  # noqa: E402
from bilevel.errors import InputError  # noqa: E402
from bilevel.export import write_model  # noqa: E402
from bilevel.help_format import real  # noqa: E402
from bilevel.tune import padded_cutoff, tuning_options  # noqa: E402
from bilevel.validation import check_writable_folder  # noqa: E402
from bilevel.warmstart import queued_start  # noqa: E402
from experiments.bench_args import integer_at_least, positive_seconds, refuse_repeats, writable_out  # noqa: E402
from experiments.bench_milp import _machine, _write_csv, benchmark_split, check_splits  # noqa: E402
from experiments.proof_time import rebuild_model  # noqa: E402
from solvers.common import MAX_SEED, RUNNERS, check_solver_name, get_runner  # noqa: E402

#: The instances of the 2026-12-06 comparison (experiments/PERFORMANCE.md, *Another solver on the same MILPs*).
DEFAULT_INSTANCES = ("optimistic:cancer:100:1", "pessimistic:cancer:20:0", "pessimistic:diabetes:10:2",
                     "pessimistic:diabetes:20:0", "pessimistic:diabetes:20:1", "pessimistic:diabetes:20:2")


def parse_instance(text: str) -> tuple:
    """``MODE:DATA:N:SPLIT[:AROUND]`` as ``(mode, data, n, split, around)``; ``around`` is ``"tune"``, ``"box"``
    (optimistic only), ``"none"`` or a float >= 0, by default ``"box"`` (optimistic) or ``"tune"``. Raises
    argparse.ArgumentTypeError naming the part that is wrong."""
    parts = text.split(":")
    if len(parts) not in (4, 5):
        raise argparse.ArgumentTypeError(f"expected MODE:DATA:N:SPLIT[:AROUND], got {text!r}")
    mode, data = parts[0], parts[1]
    if mode not in ("optimistic", "pessimistic"):
        raise argparse.ArgumentTypeError(f"MODE must be optimistic or pessimistic, got {mode!r}")
    n = integer_at_least(2)(parts[2])
    split = integer_at_least(0)(parts[3])
    around = parts[4] if len(parts) == 5 else ("box" if mode == "optimistic" else "tune")
    if around == "box" and mode != "optimistic":
        raise argparse.ArgumentTypeError("AROUND 'box' is for optimistic instances only")
    if around not in ("tune", "box", "none"):
        try:
            around = real(around)
        except argparse.ArgumentTypeError:
            raise argparse.ArgumentTypeError(f"AROUND must be tune, box, none or a number, got {around!r}") from None
        if not (math.isfinite(around) and around >= 0):
            raise argparse.ArgumentTypeError(f"AROUND must be a finite mean hinge loss >= 0, got {parts[4]!r}")
    return mode, data, n, split, around


def instance_id(inst: tuple, epsilon: float) -> str:
    """A file name for the instance, e.g. ``cancer-opt-n100-s1-box`` or ``diabetes-pes-e0.2-n20-s0-tune``."""
    mode, data, n, split, around = inst
    tag = "opt" if mode == "optimistic" else f"pes-e{epsilon:g}"
    return f"{data}-{tag}-n{n}-s{split}-{around if isinstance(around, str) else f'{around:.6g}'}"


def box_search_value(model) -> float:
    """The objective (mean validation hinge loss) the box search reaches on ``model``'s instance from ``w_bar_ub``
    and the hinge-minimiser boxes (:mod:`bilevel.box_search`), each box evaluated by the MIP start's LPs."""
    info = model.bilevel_info

    def evaluate(w_bar):
        out = queued_start(info, w_bar)
        return None if out is None else (out[1], out[0])

    boxes = [info["w_bar_ub"], *candidate_boxes(info["X_train"], info["y_train"], info["X_val"], info["y_val"],
                                                info["w_bar_ub"])]
    return float(search_box(evaluate, boxes, info["w_bar_lb"], info["w_bar_ub"]).objective)


def build_instance_model(inst: tuple, epsilon: float, tune_time_limit: float):
    """The model of ``inst`` (see :func:`parse_instance`) and the value it was built around (``None``: none)."""
    mode, data, n, split, around = inst
    s = benchmark_split(data, n, split)
    res = None
    if mode == "pessimistic" or around == "tune":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            kw = {"time_limit": tune_time_limit, "highs_options": {"random_seed": 0}}
            res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, **kw)
            if mode == "pessimistic":
                res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", epsilon=epsilon,
                                   flip="all", optimistic=res, **kw)
    if around == "tune":
        return res.model, res.model.bilevel_info.get("objective_cutoff")
    if around == "none":
        return rebuild_model(s, mode, res, epsilon, None), None
    value = box_search_value(rebuild_model(s, mode, res, epsilon, None)) if around == "box" else around
    return rebuild_model(s, mode, res, epsilon, padded_cutoff(value)), padded_cutoff(value)


def verify_solution(model, solution: dict) -> str:
    """Load a solver's ``solution`` ({column name of the written file: value}; absent columns 0) into ``model``'s
    free variables and return ``"yes"`` when :func:`bilevel.verify_model` verifies it, else ``"no: ..."`` with its
    first message."""
    labeler = LPFileLabeler()
    for var in model.component_data_objects(pyo.Var, descend_into=True):
        if not var.fixed:  # a fixed variable is no column of the file; it keeps its value
            var.set_value(float(solution.get(labeler(var), 0.0)), skip_validation=True)
    try:
        check = bilevel.verify_model(model)
    except InputError as exc:
        return f"no: {exc}"
    return "yes" if check.verified else f"no: {(check.messages or ['not verified'])[0]}"


def solve_file(path: Path, solver: str, seed: int, time_limit: float) -> dict:
    """One runner call on ``path``: HiGHS with :func:`bilevel.tuning_options`, the others with defaults."""
    runner = get_runner(solver)
    row = {"solver": solver, "seed": seed, "version": runner.version() if runner.available() else ""}
    if not runner.available():
        return {**row, "status": "unavailable"}
    kw = {"options": tuning_options()} if solver == "highs" else {}
    t0 = time.perf_counter()
    result = runner.solve(path, time_limit=time_limit, seed=seed, **kw)
    seconds = result.seconds if result.seconds is not None else time.perf_counter() - t0
    return {**row, "status": result.status, "objective": result.objective, "bound": result.bound,
            "seconds": seconds, "solver_seconds": result.solver_seconds, "nodes": result.nodes,
            "message": result.message, "solution": result.solution}


def _seconds_text(rows: list[dict]) -> str:
    """``"optimal 4.2-8.3 s"``-like cell: status(es) and the range of seconds over the seeds."""
    times = [r["seconds"] for r in rows if r.get("seconds") is not None]
    statuses = "/".join(dict.fromkeys(r["status"] for r in rows))
    if not times:
        return statuses
    low, high = _seconds(min(times)), _seconds(max(times))
    return f"{statuses} {low if low == high else f'{low}-{high}'} s"


def _seconds(t: float) -> str:
    return f"{t:.2f}" if t < 10 else f"{t:.1f}"


def _span(values: list) -> str:
    """``"low-high"`` of ``values``, one value when they are equal, ``"-"`` when there are none."""
    if not values:
        return "-"
    return f"{min(values)}" if min(values) == max(values) else f"{min(values)}-{max(values)}"


def _objective_text(rows: list[dict]) -> str:
    values = [r["objective"] for r in rows if r.get("objective") is not None]
    return "-" if not values else "/".join(dict.fromkeys(f"{v:.6f}" for v in values))


def markdown(rows: list[dict], time_limit: float) -> str:
    """The report: per instance and solver, status and seconds over the seeds, nodes, objective(s), verified, and
    HiGHS's median time over the solver's when both proved every seed optimal."""
    lines = [f"Run {date.today().isoformat()} on {_machine()}; one search thread, no MIP start, "
             f"{time_limit:g} s limit per solve; seconds of the whole runner call (reading the file included).", "",
             "| instance | solver | status, seconds | nodes | objective | verified | HiGHS / solver |",
             "|---|---|---|---|---|---|---|"]
    for inst in dict.fromkeys(r["instance"] for r in rows):
        mine = [r for r in rows if r["instance"] == inst]
        highs = [r for r in mine if r["solver"] == "highs"]
        for solver in dict.fromkeys(r["solver"] for r in mine):
            runs = [r for r in mine if r["solver"] == solver]
            nodes = [r["nodes"] for r in runs if r.get("nodes") is not None]
            ratio = "-"
            if highs and all(r["status"] == "optimal" for r in highs + runs):
                medians = [statistics.median(r["seconds"] for r in group) for group in (highs, runs)]
                ratio = f"{medians[0] / medians[1]:.2f}x"
            verified = "/".join(dict.fromkeys(str(r.get("verified", "-")).split(":")[0] for r in runs))
            lines.append(f"| {inst} | {solver} {runs[0]['version']} | {_seconds_text(runs)} | "
                         f"{_span(nodes)} | {_objective_text(runs)} | "
                         f"{verified} | {ratio} |")
    return "\n".join(lines) + "\n"


def run(instances, solvers, seeds, time_limit: float, out: Path, epsilon: float = 0.2,
        tune_time_limit: float = 60.0, report=print, models: Path | None = None) -> list[dict]:
    """Write each instance's model (into ``models``, default ``out``) and solve it with every solver under every
    seed; returns the CSV rows
    (``instance``, ``around``, ``solver``, ``version``, ``seed``, ``status``, ``objective``, ``bound``, ``seconds``,
    ``solver_seconds``, ``nodes``, ``verified``, ``message``) and writes ``runs.csv`` and ``runs.md``."""
    rows = []
    for inst in instances:
        model, around = build_instance_model(inst, epsilon, tune_time_limit)
        name = instance_id(inst, epsilon)
        path = write_model(model, (models or out) / f"{name}.mps")
        report(f"{name}: built around {'-' if around is None else f'{around:.6g}'}, written to {path}")
        for solver in solvers:
            for seed in seeds:
                row = {"instance": name, "around": around, **solve_file(path, solver, seed, time_limit)}
                solution = row.pop("solution", None)
                row["verified"] = verify_solution(model, solution) if solution else "-"
                rows.append(row)
                _write_csv(out / "runs.csv", rows)
                report(f"  {solver} seed {seed}: {row['status']} {row.get('objective')} in "
                       f"{row.get('seconds') or 0:.2f} s, {row.get('nodes')} nodes, verified {row['verified']}")
                if row["status"] == "unavailable":
                    break  # no other seed runs either
    text = markdown(rows, time_limit)
    (out / "runs.md").write_text(text, encoding="utf-8")
    report(text)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for runs.csv, runs.md and the .mps files")
    ap.add_argument("--models", default=None, help="folder for the .mps files instead (default: --out)")
    ap.add_argument("--instance", type=parse_instance, action="append", default=[],
                    help="MODE:DATA:N:SPLIT[:AROUND] (repeatable; default: the six of the 2026-12-06 comparison)")
    ap.add_argument("--solver", action="append", default=[],
                    help=f"{', '.join(RUNNERS)} (repeatable; default: all of them)")
    ap.add_argument("--seeds", type=integer_at_least(0, MAX_SEED), nargs="+", default=[0],
                    help="each solver's random seeds (default: 0)")
    ap.add_argument("--time-limit", type=positive_seconds, default=120.0, help="seconds per solve (default: 120)")
    ap.add_argument("--tune-time-limit", type=positive_seconds, default=60.0,
                    help="seconds per tune call that builds a model (default: 60)")
    ap.add_argument("--epsilon", type=real, default=0.2, help="pessimistic instances (default: 0.2)")
    args = ap.parse_args(argv)
    instances = args.instance or [parse_instance(text) for text in DEFAULT_INSTANCES]
    try:
        solvers = [check_solver_name(name, "--solver") for name in args.solver] or list(RUNNERS)
    except InputError as exc:
        ap.error(str(exc))
    args.solver, args.instance = solvers, [instance_id(inst, args.epsilon) for inst in instances]
    refuse_repeats(ap, args, "solver", "seeds", "instance")
    if not (math.isfinite(args.epsilon) and args.epsilon >= 0):
        ap.error(f"--epsilon must be a finite number >= 0, got {args.epsilon!r}")
    for inst in instances:
        check_splits(ap, [(inst[1], inst[2])], inst[3], "--instance")
    out = writable_out(ap, args.out)
    try:
        models = check_writable_folder(args.models, "--models") if args.models else None
    except InputError as exc:
        ap.error(str(exc))
    run(instances, solvers, args.seeds, args.time_limit, out, args.epsilon, args.tune_time_limit, models=models)
    return 0


if __name__ == "__main__":
    from bilevel.closed_output import run_command  # "| head -3": a quiet stop

    sys.exit(run_command(main, prog="experiments/bench_solvers.py"))
