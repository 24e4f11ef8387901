"""The statistics that the README's *How this differs from the paper* bullets quote about Table A1, computed from
the ``limited_runs.csv`` that ``bilevel study --study limited`` writes (one row per run).

Run: ``.venv/bin/python experiments/table_a1_stats.py OUT/limited_runs.csv``. It prints, per data set:

- the pessimistic minus the optimistic test accuracy over the runs (mean; runs higher / equal / lower) and, per
  cell, the optimistic mean minus the pessimistic one (smallest, largest; cells where it is positive) and its
  largest ratio to the smaller of the two standard deviations;
- the largest distance of our pessimistic cell mean from the paper's (Table A1 of Ustun, Xu, Zeng, Qian) and
  the cells where it exceeds our standard deviation;
- the share of runs whose optimistic validation hinge loss is 0, the mean per-run spread of the tie extremes'
  test accuracy (all runs and ``|T| = 5``), the cell means of the extremes at ``|V| = |T| = 5``, the range of the
  cells' mean of the smallest extreme, and the mean absolute pessimistic-optimistic difference over the runs;
- the baselines against the bilevel cell means as the table prints them (rounded to 3 decimals): the LP-SVM box
  grid against both bilevel means, and ``LinearSVC`` against the better of the two.

Means and standard deviations (ddof = 1) are over the runs of a cell, as in ``limited_summary.md``. Runs that
ended in an error are left out (and counted on the first line); runs whose solve stopped at the time limit count
with their incumbent, as in the study's summary, and are counted per data set (``opt_not_optimal``, ...), as are
unverified solves.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from experiments.uci_study import PAPER_TABLE_A1, builtin_name  # noqa: E402

REQUIRED = ("dataset", "n_val", "n_train", "opt_objective", "opt_acc_test", "pes_acc_test", "svc_acc_test",
            "box_acc_test")
#: Columns the study writes only when some run has them: the tie extremes (none when every optimistic solve of the
#: file stopped unproven), the error of a run that failed, the solves' status and verification.
OPTIONAL = ("tie_acc_min", "tie_acc_max", "error", "opt_status", "pes_status", "opt_verified", "pes_verified")


def load_runs(path) -> pd.DataFrame:
    """The runs of a ``limited_runs.csv`` (or ``.csv.gz``) that did not fail: a row with an ``error`` is left out
    (it has no accuracies, and counted as a run it made every share and count wrong); their number is kept in
    ``attrs["errored"]``. A column of :data:`OPTIONAL` the file lacks is added, empty. Utility of this script.
    Raises ValueError for a file that is not such a CSV (unreadable, or without the columns of :data:`REQUIRED`)."""
    try:
        runs = pd.read_csv(path)
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise ValueError(f"{path}: not a readable CSV ({exc})") from None
    missing = [c for c in REQUIRED if c not in runs.columns]
    if missing:
        raise ValueError(f"{path}: not a limited_runs.csv of bilevel study; missing columns {missing}")
    for column in OPTIONAL:
        if column not in runs.columns:
            runs[column] = pd.NA if column in ("error", "opt_status", "pes_status") else float("nan")
    failed = runs["error"].notna()
    runs = runs[~failed].reset_index(drop=True)
    runs.attrs["errored"] = int(failed.sum())
    return runs


def unproven_runs(runs: pd.DataFrame) -> dict:
    """How many runs' optimistic / pessimistic solve is not proven optimal (a time limit: its incumbent counts, as
    in the study's summary) or not verified (column ``verified`` false). Empty cells (columns the file lacks) count
    as neither, as do columns the frame lacks. Utility of this script."""
    out, none = {}, pd.Series(pd.NA, index=runs.index, dtype=object)
    for mode in ("opt", "pes"):
        status, verified = runs.get(f"{mode}_status", none), runs.get(f"{mode}_verified", none)
        out[f"{mode}_not_optimal"] = int((status.notna() & (status != "optimal")).sum())
        out[f"{mode}_unverified"] = int(verified.map(lambda v: str(v).strip().lower() == "false").sum())
    return out


def cell_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per ``(dataset, n_val, n_train)`` cell: mean and std (ddof = 1) of the pessimistic and optimistic
    test accuracy, the means of the tie extremes and of the two baselines. Utility of this script (the cell
    means of Table A1). Raises KeyError for a frame without the columns of :data:`REQUIRED`."""
    grouped = runs.groupby(["dataset", "n_val", "n_train"])
    cells = grouped.agg(pes=("pes_acc_test", "mean"), pes_std=("pes_acc_test", "std"),
                        opt=("opt_acc_test", "mean"), opt_std=("opt_acc_test", "std"),
                        tie_min=("tie_acc_min", "mean"), tie_max=("tie_acc_max", "mean"),
                        svc=("svc_acc_test", "mean"), box=("box_acc_test", "mean"), runs=("opt_acc_test", "size"))
    return cells.reset_index()


def dataset_stats(runs: pd.DataFrame, cells: pd.DataFrame) -> dict:
    """The statistics listed in the module docstring for the runs and cells of one data set. Utility of this
    script (the numbers of the README's comparison with Table A1 of the pessimistic bilevel tuning paper).
    Raises KeyError for frames without the columns of :func:`cell_table` and :data:`REQUIRED`."""
    diff = runs["pes_acc_test"] - runs["opt_acc_test"]
    cell_gap = cells["opt"] - cells["pes"]
    smaller_std = cells[["pes_std", "opt_std"]].min(axis=1)
    paper = [PAPER_TABLE_A1.get((builtin_name(d), int(v), int(t)))  # as the study's summary looks them up
             for d, v, t in zip(cells["dataset"], cells["n_val"], cells["n_train"])]
    paper_gap = [abs(p - ref[0]) if ref else float("nan") for p, ref in zip(cells["pes"], paper)]
    beyond_std = [f"{v}/{t}" for v, t, gap, std in zip(cells["n_val"], cells["n_train"], paper_gap,
                                                       cells["pes_std"]) if gap > std]
    spread = runs["tie_acc_max"] - runs["tie_acc_min"]
    corner = cells[(cells["n_val"] == 5) & (cells["n_train"] == 5)]
    shown = cells.round({"pes": 3, "opt": 3, "svc": 3, "box": 3})
    best_bilevel = shown[["pes", "opt"]].max(axis=1)
    box_edge = shown["box"] - best_bilevel
    svc_edge = best_bilevel - shown["svc"]
    return {
        "runs": len(runs), "cells": len(cells), **unproven_runs(runs),
        "pes_minus_opt_mean": diff.mean(),
        "pes_higher_equal_lower": (int((diff > 1e-12).sum()), int((diff.abs() <= 1e-12).sum()),
                                   int((diff < -1e-12).sum())),
        "opt_minus_pes_cells_min_max": (cell_gap.min(), cell_gap.max()),
        "opt_above_pes_cells": int((cell_gap > 0).sum()),
        "max_abs_cell_gap_over_smaller_std": (cell_gap.abs() / smaller_std).max(),
        "max_pes_distance_from_paper": max(paper_gap),
        "cells_pes_beyond_our_std_from_paper": beyond_std,
        "share_opt_loss_zero": float((runs["opt_objective"].abs() <= 1e-9).mean()),
        "tie_spread_mean": spread.mean(),
        "tie_spread_mean_T5": spread[runs["n_train"] == 5].mean(),
        "tie_extremes_V5_T5": (float(corner["tie_min"].iloc[0]), float(corner["tie_max"].iloc[0]))
        if len(corner) else None,
        "tie_min_cell_range": (cells["tie_min"].min(), cells["tie_min"].max()),
        "mean_abs_pes_minus_opt": diff.abs().mean(),
        "box_range": (shown["box"].min(), shown["box"].max()),
        "box_beats_both_cells": int((shown["box"] > best_bilevel).sum()),
        "box_edge_max": box_edge.max(), "box_trails_by_max": (-box_edge).max(),
        "svc_range": (shown["svc"].min(), shown["svc"].max()),
        "better_bilevel_beats_tie_trails_svc": (int((svc_edge > 0).sum()), int((svc_edge == 0).sum()),
                                                 int((svc_edge < 0).sum())),
        "better_bilevel_over_svc_max": svc_edge.max(), "better_bilevel_under_svc_max": (-svc_edge).max(),
    }


def _format(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_format(v) for v in value) + ")"
    return str(value)


def main(argv=None) -> int:
    """Print the statistics of each data set of a ``limited_runs.csv``. Utility of this script. Returns 0;
    exits with status 2 and the message of :func:`load_runs`'s ValueError for a file that is not such a CSV."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs_csv", help="limited_runs.csv of bilevel study --study limited")
    args = parser.parse_args(argv)
    try:
        runs = load_runs(args.runs_csv)
    except ValueError as exc:
        parser.error(str(exc))
    cells = cell_table(runs)
    if runs.attrs["errored"]:
        print(f"left out: {runs.attrs['errored']} run(s) that ended in an error (column 'error')")
    for name in sorted(runs["dataset"].unique()):
        print(f"{name}:")
        stats = dataset_stats(runs[runs["dataset"] == name], cells[cells["dataset"] == name])
        for key, value in stats.items():
            print(f"  {key}: {_format(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
