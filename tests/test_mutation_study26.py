"""Mutation study 26 of the plots and output files of experiments/uci_study.py (``_offset_unit``, ``_figure``,
``_has_values``, ``_plot_limited``, ``_plot_perturbed``, ``_with_label_columns``, ``write_outputs``): each test kills
a mutant that passed the tests of that code in tests/test_study.py (the 36 tests that reach those functions, in
process or in a subprocess; tests/test_mutation_study9.py and test_mutation_study11.py reach none of them), against
the documented behaviour (the functions' docstrings and comments, README "Reproducing the UCI study": accuracy vs
|T| per |V| with error bars of mean ± std, the tie spread as a bar of the mean min-max, the paper's Table A1 values
as crosses; accuracy vs rho_test per rho_val and epsilon) and an independent oracle: the matplotlib figures the
plots draw (captured through ``_figure``) read back point by point against means and standard deviations
recomputed here with numpy from hand-made rows, the x offsets of the code's comments computed by hand for grids of
uneven steps, Table A1's numbers copied from the paper, and hand-written records. No solver runs: the file takes
a few seconds. 60 mutants, run against those tests (most plot mutants only against the 9 of them that
draw or look at plots: the others run the plots through ``run_study`` and check at most the files' names): 13
killed, 47 survived; of these 39 are killed here and 8 are equivalent or pin nothing documented (``_offset_unit`` over
``np.sort`` instead of ``np.unique``: both callers pass distinct sorted values; the limited plot's means without
``reindex(ts)``: its groups are exactly ``ts``; ``PAPER_TABLE_A1`` keyed by ``data`` instead of
``builtin_name(data)``: equal for every key of the table; ``_with_label_columns`` with ``cfg.label_column``
instead of ``cfg.for_dataset(d).label_column``: ``label_column_of`` gives a built-in data set its own column and a
file its last one either way, or recomputed for every row: the same value; the filled ``label_column`` put first in
the row: only the CSV's column order, which nothing documents; the errored runs counted by rows, not run ids: an
errored record has one row; ``if cfg.label:``: an empty label is refused by ``check_config``). The study found one
fault, fixed with it: the limited plot's legend, built from the last |V| panel's drawings, left out the paper's
Table A1 crosses when only other panels drew them (``--val-sizes 5,25``). The 8 equivalents were later run
against all 13 test files that reach experiments/uci_study.py (658 tests, this file among them; left out:
test_study_runs_from_another_working_directory, which checks the path of the installed checkout): all pass."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from experiments import uci_study as us  # noqa: E402
from figure_capture import captured_figures  # noqa: E402

#: Table A1 of the paper, cancer: (|V|, |T|) -> (pessimistic mean, optimistic mean), the cells the plots below meet.
_PAPER = {(5, 10): (0.898, 0.793), (5, 20): (0.908, 0.889), (10, 10): (0.901, 0.763)}

_LIMITED = {"opt_acc_test": ("optimistic", -0.45), "pes_acc_test": ("pessimistic", -0.15),
            "svc_acc_test": ("LinearSVC grid", 0.15), "box_acc_test": ("LP-SVM box grid", 0.45)}
_PERTURBED = {"pes_acc_test": ("pessimistic", -0.016), "opt_eval_acc_test": ("optimistic worst case (B.1)", -0.008),
              "opt_acc_test": ("optimistic (returned)", 0.0), "svc_acc_test": ("LinearSVC grid", 0.008),
              "box_acc_test": ("LP-SVM box grid", 0.016)}
_BASE = {"opt_acc_test": 0.8, "pes_acc_test": 0.7, "svc_acc_test": 0.6, "box_acc_test": 0.5, "opt_eval_acc_test": 0.4}
_RUN = (0.0, 0.01, 0.05)  # per-run offsets: not symmetric, so the median is not the mean


def _series(ax) -> dict:
    """``{label: (x, y, half length of the error bars)}`` of the error-bar series of ``ax``."""
    out = {}
    for c in ax.containers:
        line, _caps, bars = c.lines
        assert c.has_yerr and len(bars) == 1, c.get_label()
        # a NaN std (a cell of one run) draws no bar: matplotlib keeps an empty segment in its place
        half = [(seg[1][1] - seg[0][1]) / 2 if len(seg) else np.nan for seg in bars[0].get_segments()]
        out[c.get_label()] = (np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float),
                              np.asarray(half, float))
    return out


def _mean_std(values) -> tuple:
    v = np.asarray([x for x in values if not np.isnan(x)], float)
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else np.nan


def _legend(ax) -> set:
    legend = ax.get_legend()
    return set() if legend is None else {t.get_text() for t in legend.get_texts()}


def _limited_rows() -> list:
    """|V| = 5 at |T| = 10, 20 (3 runs; one pessimistic value missing) and 40 (1 run); |V| = 10 at |T| = 10 (2 runs)."""
    rows = []
    for v, t, runs in ((5, 10, 3), (5, 20, 3), (5, 40, 1), (10, 10, 2)):
        for r in range(runs):
            row = dict(study="limited", run_id=f"l{v}-{t}-{r}", dataset="cancer", n_val=v, n_train=t, run=r)
            row.update({c: _BASE[c] + 0.001 * t + 0.03 * (v == 10) + _RUN[r] for c in _LIMITED})
            row["tie_acc_min"] = row["opt_acc_test"] - 0.1 - _RUN[r]
            row["tie_acc_max"] = row["opt_acc_test"] + 0.05 + 2 * _RUN[r]
            rows.append(row)
    rows[2]["pes_acc_test"] = np.nan  # |V| = 5, |T| = 10, run 2: a pessimistic solve without a solution
    return rows


def test_the_limited_plot_draws_each_models_mean_and_std_per_size_at_its_offset(monkeypatch, tmp_path):
    """Accuracy vs |T| per |V| (panels left to right by |V|, shared y), each model's mean ± std (ddof=1; no bar for
    one run, where a bar of height 0 read as "± 0") over the runs of its own (|V|, |T|) at ``|T| + dx * unit`` (dx
    -0.45 .. 0.45, tie bar -0.7; unit: the smallest |T| step of the panel over 5, 1 for one size), the tie bar from
    the mean min to the mean max, Table A1 as crosses (pessimistic "x" at -0.15, optimistic "+" at -0.45), titles
    "|V| = v", ticks at the sizes, the legend in the last panel. Mutation testing: ``_offset_unit`` with
    ``steps.max()`` or 0 for one point; ``sharey=False``; ``_has_values`` with ``.all()``; |V| sorted in reverse;
    pessimistic labelled optimistic; LinearSVC and box grid columns swapped; grouped over every |V|; the tie bar
    with min/max of the runs, up to the mean min, at +0.7; the std with ddof=0; the median; offsets negated; no
    yerr; Table A1 looked up as (|T|, |V|), the wrong tuple items, the optimistic cross at +0.45; title "|T| = v";
    no xticks; legend in the first panel: all passed the suite. Oracle: numpy over the hand-made rows, offsets
    computed by hand (|V| = 5: |T| = 10, 20, 40, unit 2; |V| = 10: one size, unit 1), the paper's numbers."""
    made = captured_figures(monkeypatch, us)
    rows = _limited_rows()
    us._plot_limited(pd.DataFrame(rows), "cancer", tmp_path / "l.png")
    assert (tmp_path / "l.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (fig, axes), = made
    assert axes.shape == (1, 2)
    assert axes[0][0].get_shared_y_axes().joined(axes[0][0], axes[0][1])
    for ax, v, sizes, unit in ((axes[0][0], 5, (10, 20, 40), 2.0), (axes[0][1], 10, (10,), 1.0)):
        assert ax.get_title() == f"cancer: |V| = {v}"
        assert list(ax.get_xticks()) == list(sizes)
        drawn = _series(ax)
        assert set(drawn) == {label for label, _ in _LIMITED.values()}
        for col, (label, dx) in _LIMITED.items():
            x, y, half = drawn[label]
            expected = [_mean_std([r[col] for r in rows if (r["n_val"], r["n_train"]) == (v, t)]) for t in sizes]
            assert np.allclose(x, [t + dx * unit for t in sizes]), label
            assert np.allclose(y, [m for m, _ in expected]), label
            assert np.allclose(half, [s for _, s in expected], equal_nan=True), label
        bars, = [c for c in ax.collections if c.get_label() == "optimistic ties (mean min–max)"]
        segs = bars.get_segments()
        assert np.allclose([s[0][0] for s in segs], [t - 0.7 * unit for t in sizes])
        for seg, t in zip(segs, sizes):
            cell = [r for r in rows if (r["n_val"], r["n_train"]) == (v, t)]
            lo, hi = sorted((seg[0][1], seg[1][1]))
            assert np.isclose(lo, np.mean([r["tie_acc_min"] for r in cell]))
            assert np.isclose(hi, np.mean([r["tie_acc_max"] for r in cell]))
        paper = [t for t in sizes if (v, t) in _PAPER]
        pes, = [ln for ln in ax.lines if ln.get_marker() == "x"]
        opt, = [ln for ln in ax.lines if ln.get_marker() == "+"]
        assert np.allclose(pes.get_xdata(), [t - 0.15 * unit for t in paper])
        assert np.allclose(pes.get_ydata(), [_PAPER[v, t][0] for t in paper])
        assert np.allclose(opt.get_xdata(), [t - 0.45 * unit for t in paper])
        assert np.allclose(opt.get_ydata(), [_PAPER[v, t][1] for t in paper])
    assert axes[0][0].get_legend() is None
    assert {"pessimistic", "optimistic", "paper pessimistic", "paper optimistic"} <= _legend(axes[0][1])


def test_the_legend_names_the_paper_crosses_of_any_panel(monkeypatch, tmp_path):
    """The limited plot's legend (in the last |V| panel) names what every panel drew: with ``--val-sizes 5,25``
    the paper's Table A1 crosses appear in the |V| = 5 panel only (Table A1 has no |V| = 25), and the legend,
    built from the last panel's own drawings, left them unnamed (found by this study, fixed with it). Each label
    stands once. Oracle: the Table A1 cells of the grid (|V| = 5 at |T| = 5, 10) and the labels drawn per panel."""
    made = captured_figures(monkeypatch, us)
    rows = []
    for v in (5, 25):
        for t in (5, 10):
            for r in range(2):
                row = dict(study="limited", run_id=f"l{v}-{t}-{r}", dataset="cancer", n_val=v, n_train=t, run=r)
                row.update({c: _BASE[c] + _RUN[r] for c in _LIMITED})
                rows.append(row)
    us._plot_limited(pd.DataFrame(rows), "cancer", tmp_path / "l.png")
    (fig, axes), = made
    crosses = [[ln.get_label() for ln in ax.lines if ln.get_marker() in ("x", "+")] for ax in axes[0]]
    assert crosses == [["paper pessimistic", "paper optimistic"], []]
    assert axes[0][0].get_legend() is None
    labels = [t.get_text() for t in axes[0][1].get_legend().get_texts()]
    assert sorted(labels) == sorted({label for label, _ in _LIMITED.values()} | {"paper pessimistic",
                                                                                  "paper optimistic"})


def _perturbed_rows() -> list:
    """rho_val 0, 0.3 x epsilon 0, 0.2 x rho_test 0, 0.2, 0.6 (steps 0.2, 0.4), 3 runs; one run at (0.3, 0.2, 0.6)."""
    rows = []
    for i, rv in enumerate((0.0, 0.3)):
        for j, eps in enumerate((0.0, 0.2)):
            for rt in (0.0, 0.2, 0.6):
                for r in range(1 if (rv, eps, rt) == (0.3, 0.2, 0.6) else 3):
                    row = dict(study="perturbed", run_id=f"p{i}{j}{r}", dataset="cancer", n_val=5, n_train=5, run=r,
                               rho_val=rv, epsilon=eps, rho_test=rt)
                    row.update({c: _BASE[c] - rt / 4 - 0.07 * i - 0.03 * j + _RUN[r] for c in _PERTURBED})
                    rows.append(row)
    return rows


def test_the_perturbed_plot_draws_each_models_mean_and_std_per_cell_at_its_offset(monkeypatch, tmp_path):
    """Accuracy vs rho_test per rho_val (rows) and epsilon (columns): each model of the perturbed summary table at
    ``rho_test + dx * unit`` (dx -0.016 .. 0.016; unit: the smallest rho_test step over 0.1), its mean ± std
    (ddof=1; no bar for one run) over the runs of that (rho_val, epsilon, rho_test), titles "ρ val = .., ε = ..", the
    y label on each row's first panel, the legend in the top right panel. Mutation testing: rho_val and epsilon
    swapped in the titles; a panel grouped over every epsilon or every rho_val; the returned and worst-case
    optimistic columns swapped; paper step 1; ddof=0; no yerr;
    the legend in the bottom right panel; the y labels along the first row: all passed the suite. Oracle: numpy
    over the hand-made rows, offsets computed by hand (rho_test 0, 0.2, 0.6: unit 2)."""
    made = captured_figures(monkeypatch, us)
    rows = _perturbed_rows()
    us._plot_perturbed(pd.DataFrame(rows), "cancer", tmp_path / "p.png")
    (fig, axes), = made
    assert axes.shape == (2, 2)
    grid, unit = (0.0, 0.2, 0.6), 2.0
    for i, rv in enumerate((0.0, 0.3)):
        assert axes[i][0].get_ylabel() == "test accuracy" and axes[i][1].get_ylabel() == ""
        for j, eps in enumerate((0.0, 0.2)):
            ax = axes[i][j]
            assert ax.get_title() == f"cancer: ρ val = {rv:g}, ε = {eps:g}"
            drawn = _series(ax)
            assert set(drawn) == {label for label, _ in _PERTURBED.values()}
            for col, (label, dx) in _PERTURBED.items():
                x, y, half = drawn[label]
                expected = [_mean_std([r[col] for r in rows if (r["rho_val"], r["epsilon"], r["rho_test"])
                                       == (rv, eps, rt)]) for rt in grid]
                assert np.allclose(x, [rt + dx * unit for rt in grid]), label
                assert np.allclose(y, [m for m, _ in expected]), label
                assert np.allclose(half, [s for _, s in expected], equal_nan=True), label
    assert _legend(axes[0][1]) == {label for label, _ in _PERTURBED.values()}
    assert all(axes[i][j].get_legend() is None for i, j in ((0, 0), (1, 0), (1, 1)))


def test_rows_without_a_label_column_get_it_even_beside_rows_that_have_it(tmp_path):
    """``_with_label_columns``: the label column "in every row that lacks it", and only there. Mutation testing: a
    record left as it was when *any* of its rows had the column (a record of rows of both kinds) passed the suite.
    Oracle: a hand-written record of two rows of a built-in data set, whose label column is its own (README)."""
    own = us.label_column_of("cancer", "cancer", None)
    rec = {"run_id": "r", "study": "perturbed", "error": None,
           "rows": [{"dataset": "cancer", "rho_test": 0.0, "label_column": "kept"},
                    {"dataset": "cancer", "rho_test": 0.3}]}
    out = us._with_label_columns({"r": rec}, us.StudyConfig())
    assert [row["label_column"] for row in out["r"]["rows"]] == ["kept", own]
    assert "label_column" not in rec["rows"][1]  # the caller's record is not changed


def _record(study: str, run_id: str, rows: list, error: str | None = None, **coords) -> dict:
    return {"run_id": run_id, "study": study, "config_hash": "x", "seconds": 0.1, "error": error,
            "coords": {"dataset": "cancer", **coords}, "rows": rows}


def _limited_row(run_id: str, n_train: int, run: int) -> dict:
    return dict(study="limited", run_id=run_id, dataset="cancer", n_val=5, n_train=n_train, run=run,
                opt_acc_test=0.8 + run / 100, pes_acc_test=0.7, svc_acc_test=0.6, box_acc_test=0.5,
                label_column="class")


def test_the_plots_leave_out_errored_runs_and_a_data_sets_plot_goes_when_all_its_runs_errored(monkeypatch, tmp_path):
    """``write_outputs``: runs that ended with an error are left out of the tables, and "an earlier call's plot of
    this data set would contradict the tables" (it is removed when every run of the data set errored). Mutation
    testing: the plot drawn from every row (an errored unit's |T| became a tick without a point), the png left in
    place, and the loop over the data sets of the finished runs only (so the png stayed too): all passed the suite.
    Oracle: hand-written records; the sizes of the finished runs."""
    made = captured_figures(monkeypatch, us)
    cfg = us.StudyConfig(datasets=("cancer",), studies=("limited",), runs=2, val_sizes=(5,), train_sizes=(5, 10))
    ok = {f"ok{r}": _record("limited", f"ok{r}", [_limited_row(f"ok{r}", 5, r)], n_val=5, n_train=5, run=r)
          for r in range(2)}
    bad = {"bad": _record("limited", "bad", [], error="Traceback\nValueError: boom\n", n_val=5, n_train=10, run=0)}
    files = us.write_outputs({**ok, **bad}, tmp_path, cfg)
    assert files["limited_cancer.png"] == tmp_path / "limited_cancer.png" and files["limited_cancer.png"].exists()
    (fig, axes), = made
    assert list(axes[0][0].get_xticks()) == [5.0]  # |T| = 10 only errored
    x, y, _ = _series(axes[0][0])["optimistic"]
    assert np.allclose(x, [5 - 0.45]) and np.allclose(y, [0.805])
    files = us.write_outputs(bad, tmp_path, cfg)
    assert not (tmp_path / "limited_cancer.png").exists() and "limited_cancer.png" not in files
    assert "**1 of 1 runs ended with an error**" in (tmp_path / "limited_summary.md").read_text(encoding="utf-8")


def test_the_runs_csv_holds_every_row_and_only_the_rows_columns(tmp_path):
    """``write_outputs`` writes "the CSVs (every row)", each row naming its label column (README: "the seed, time
    limit and label column of the run"; a record of a study run before the rows recorded it gets it all the same).
    Mutation testing: the CSV written with the DataFrame's index (an unnamed first column) passed the suite (the
    label column left unfilled is checked too). Oracle: hand-written records, one without ``label_column`` in its
    row."""
    cfg = us.StudyConfig(datasets=("cancer",), studies=("limited",), runs=2, val_sizes=(5,), train_sizes=(5,))
    rows = [_limited_row(f"r{r}", 5, r) for r in range(2)]
    del rows[1]["label_column"]
    records = {row["run_id"]: _record("limited", row["run_id"], [row], n_val=5, n_train=5, run=row["run"])
               for row in rows}
    files = us.write_outputs(records, tmp_path, cfg)
    assert files["limited_runs.csv"] == tmp_path / "limited_runs.csv"
    csv = pd.read_csv(tmp_path / "limited_runs.csv")
    assert list(csv.columns) == list(_limited_row("x", 5, 0))
    assert csv["run_id"].tolist() == ["r0", "r1"] and csv["opt_acc_test"].tolist() == [0.8, 0.81]
    assert csv["label_column"].tolist() == ["class", us.label_column_of("cancer", "cancer", None)]


def test_a_csv_data_sets_plot_is_named_by_its_stem_and_hash(monkeypatch, tmp_path):
    """README: ``limited_<data>.png``, ``<data>`` "a built-in name, or a file's stem and 8 hex digits of a hash of
    its file name and its contents". Mutation testing: the plot named by the data set as given (its path) passed
    the suite. Oracle: the README's form, for a CSV file given by its absolute path."""
    data = tmp_path / "data" / "mine.csv"
    data.parent.mkdir()
    data.write_text("a,b,y\n1,2,0\n3,4,1\n")
    row = {**_limited_row("c0", 5, 0), "dataset": str(data), "label_column": "y"}
    cfg = us.StudyConfig(datasets=(str(data),), studies=("limited",), runs=1, val_sizes=(5,), train_sizes=(5,))
    out = tmp_path / "o"
    out.mkdir()
    files = us.write_outputs({"c0": _record("limited", "c0", [row], n_val=5, n_train=5, run=0)}, out, cfg)
    plots = [name for name in files if name.endswith(".png")]
    assert len(plots) == 1 and re.fullmatch(r"limited_mine-[0-9a-f]{8}\.png", plots[0]), plots
    assert files[plots[0]] == out / plots[0] and files[plots[0]].is_file()
    assert sorted(p.name for p in out.iterdir()) == sorted(["limited_runs.csv", "limited_summary.md", plots[0]])


def test_a_study_of_one_run_per_cell_draws_no_error_bars_and_no_warning(monkeypatch, tmp_path):
    """``--runs 1``: every std is NaN. The means are drawn without bars; matplotlib 3.7 (the lowest version
    allowed) warned "converting a masked element to nan" when every bar was NaN."""
    import warnings

    made = captured_figures(monkeypatch, us)
    limited = [r for r in _limited_rows() if r["run"] == 0]
    perturbed = [r for r in _perturbed_rows() if r["run"] == 0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        us._plot_limited(pd.DataFrame(limited), "cancer", tmp_path / "l.png")
        us._plot_perturbed(pd.DataFrame(perturbed), "cancer", tmp_path / "p.png")
    # only this warning: matplotlib 3.7's first text rendering in a process also warns, of pyparsing's deprecations
    assert not [w for w in caught if "masked element" in str(w.message)], [str(w.message) for w in caught]
    for (fig, axes), rows in zip(made, (limited, perturbed)):
        containers = [c for ax in axes.flat for c in ax.containers]
        assert containers and not any(c.has_yerr for c in containers)
        drawn = sorted(float(y) for c in containers for y in c.lines[0].get_ydata())
        assert np.allclose(drawn, sorted(r[col] for r in rows for col in (_LIMITED if rows is limited else _PERTURBED)))
