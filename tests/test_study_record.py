"""The README's Table A1 and the numbers its *How this differs from the paper* bullets quote are those of the
stored runs in experiments/results/table_a1 and experiments/results/perturbed, and experiments/table_a1_stats.py
computes them correctly (checked by hand on a small frame)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.table_a1_stats import cell_table, dataset_stats, load_runs, main

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "experiments" / "results" / "table_a1"
PERTURBED = ROOT / "experiments" / "results" / "perturbed"


def _table_rows(text: str, header_start: str, key_cells: int = 3) -> dict:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[tuple(cells[:key_cells])] = cells[key_cells:]
    return rows


def test_readme_table_is_the_stored_summary():
    readme = _table_rows((ROOT / "README.md").read_text(), "| data | \\|V\\| | \\|T\\| | ours: pessimistic")
    summary = _table_rows((RECORD / "limited_summary.md").read_text(), "| data | \\|V\\| | \\|T\\| | runs |")
    assert len(readme) == len(summary) == 32
    for key, cells in summary.items():
        # summary: runs, pes, opt, ties, LinearSVC, box grid, paper pes, paper opt, ...; README drops runs and box
        assert readme[key] == [cells[1], cells[2], cells[3], cells[4], cells[6], cells[7]], key


def test_stored_runs_give_the_stored_summary():
    runs = load_runs(RECORD / "limited_runs.csv.gz")
    assert len(runs) == 320 and (runs["opt_status"] == "optimal").all() and (runs["pes_status"] == "optimal").all()
    assert runs["opt_verified"].all() and runs["pes_verified"].all()
    summary = _table_rows((RECORD / "limited_summary.md").read_text(), "| data | \\|V\\| | \\|T\\| | runs |")
    for row in cell_table(runs).itertuples():
        cells = summary[(row.dataset, str(row.n_val), str(row.n_train))]
        assert cells[1] == f"{row.pes:.3f} ± {row.pes_std:.3f}" and cells[2] == f"{row.opt:.3f} ± {row.opt_std:.3f}"
        assert cells[3] == f"{row.tie_min:.3f} – {row.tie_max:.3f}"


def test_readme_bullets_quote_the_stored_runs():
    runs = load_runs(RECORD / "limited_runs.csv.gz")
    cells = cell_table(runs)
    cancer = dataset_stats(runs[runs["dataset"] == "cancer"], cells[cells["dataset"] == "cancer"])
    diabetes = dataset_stats(runs[runs["dataset"] == "diabetes"], cells[cells["dataset"] == "diabetes"])
    text = " ".join((ROOT / "README.md").read_text().split())  # line breaks as spaces
    lo, hi = cancer["opt_minus_pes_cells_min_max"]
    assert cancer["opt_above_pes_cells"] == cancer["cells"] == 16
    assert f"in every cell, by {lo:.3f}-{hi:.3f}" in text
    assert f"averages {cancer['pes_minus_opt_mean']:.3f}" in text
    higher, equal, lower = cancer["pes_higher_equal_lower"]
    assert f"higher in {higher} runs, equal in {equal}, lower in {lower}" in text
    assert diabetes["max_abs_cell_gap_over_smaller_std"] < 1 / 3  # "within a third of a standard deviation"
    counts = " / ".join(map(str, diabetes["pes_higher_equal_lower"]))
    assert f"+{diabetes['pes_minus_opt_mean']:.4f} on average; {counts}" in text
    assert not cancer["cells_pes_beyond_our_std_from_paper"] and not diabetes["cells_pes_beyond_our_std_from_paper"]
    farthest = max(cancer["max_pes_distance_from_paper"], diabetes["max_pes_distance_from_paper"])
    assert f"at most {farthest:.3f} apart" in text
    assert f"0 in {100 * cancer['share_opt_loss_zero']:.0f} % of the runs" in text
    assert f"spans {cancer['tie_spread_mean']:.3f} on average per run ({cancer['tie_spread_mean_T5']:.3f} at" in text
    assert "are {:.3f} and {:.3f})".format(*cancer["tie_extremes_V5_T5"]) in text
    assert f"difference of {cancer['mean_abs_pes_minus_opt']:.3f}" in text
    assert "we found ({:.3f}-{:.3f} on cancer)".format(*cancer["tie_min_cell_range"]) in text
    assert f"rarely 0 ({100 * diabetes['share_opt_loss_zero']:.0f} % of runs)" in text
    assert f"mean spread {diabetes['tie_spread_mean']:.3f}" in text
    assert "grid ({:.3f}-{:.3f}) beats both".format(*cancer["box_range"]) in text
    assert f"in {cancer['box_beats_both_cells']} of 16 cells, by up to {cancer['box_edge_max']:.3f}" in text
    assert f"(it trails by {cancer['box_trails_by_max']:.3f} in the other)" in text
    beats, ties, trails = cancer["better_bilevel_beats_tie_trails_svc"]
    assert "({:.3f}-{:.3f}) in {} of 16 cells".format(*cancer["svc_range"], trails) in text
    edge = cancer["better_bilevel_over_svc_max"]
    assert ties == 1 and f"beats it in {beats}, by up to {edge:.3f}, and ties it in one" in text
    beats, ties, trails = diabetes["better_bilevel_beats_tie_trails_svc"]
    assert f"beats `LinearSVC` in {beats} of 16 cells, by up to {diabetes['better_bilevel_over_svc_max']:.3f}" in text
    assert ties == 1 and f"trails it by at most {diabetes['better_bilevel_under_svc_max']:.3f} in the other {trails}" \
        in text


def _frame(rows):
    columns = ["dataset", "n_val", "n_train", "opt_objective", "opt_acc_test", "pes_acc_test", "tie_acc_min",
               "tie_acc_max", "svc_acc_test", "box_acc_test"]
    return pd.DataFrame(rows, columns=columns)


def test_dataset_stats_by_hand():
    # two cells of two runs each; every number below is worked out by hand from these rows
    runs = _frame([
        ("cancer", 5, 5, 0.0, 0.90, 0.80, 0.70, 0.95, 0.88, 0.91),
        ("cancer", 5, 5, 0.2, 0.80, 0.80, 0.80, 0.90, 0.86, 0.87),
        ("cancer", 5, 10, 0.0, 0.70, 0.75, 0.60, 0.80, 0.72, 0.74),
        ("cancer", 5, 10, 0.0, 0.70, 0.75, 0.65, 0.70, 0.78, 0.70),
    ])
    cells = cell_table(runs)
    np.testing.assert_allclose(cells["pes"], [0.80, 0.75])
    np.testing.assert_allclose(cells["opt"], [0.85, 0.70])
    np.testing.assert_allclose(cells["pes_std"], [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(cells["opt_std"], [np.sqrt(0.005), 0.0], atol=1e-12)
    stats = dataset_stats(runs, cells)
    assert stats["pes_minus_opt_mean"] == pytest.approx((-0.10 + 0.0 + 0.05 + 0.05) / 4)
    assert stats["pes_higher_equal_lower"] == (2, 1, 1)
    assert stats["opt_minus_pes_cells_min_max"] == pytest.approx((-0.05, 0.05))
    assert stats["opt_above_pes_cells"] == 1
    assert stats["share_opt_loss_zero"] == pytest.approx(0.75)
    assert stats["tie_spread_mean"] == pytest.approx((0.25 + 0.10 + 0.20 + 0.05) / 4)
    assert stats["tie_spread_mean_T5"] == pytest.approx(0.175)
    assert stats["tie_extremes_V5_T5"] == pytest.approx((0.75, 0.925))
    assert stats["tie_min_cell_range"] == pytest.approx((0.625, 0.75))
    assert stats["mean_abs_pes_minus_opt"] == pytest.approx(0.05)
    # paper's Table A1, cancer |V| = 5: pessimistic 0.861 (|T| = 5) and 0.898 (|T| = 10)
    assert stats["max_pes_distance_from_paper"] == pytest.approx(max(abs(0.80 - 0.861), abs(0.75 - 0.898)))
    assert stats["cells_pes_beyond_our_std_from_paper"] == ["5/5", "5/10"]
    # box grid 0.89 and 0.72 against max(bilevel) 0.85 and 0.75; LinearSVC 0.87 and 0.75 against the same
    assert stats["box_beats_both_cells"] == 1
    assert stats["box_edge_max"] == pytest.approx(0.04) and stats["box_trails_by_max"] == pytest.approx(0.03)
    assert stats["better_bilevel_beats_tie_trails_svc"] == (0, 1, 1)
    assert stats["better_bilevel_under_svc_max"] == pytest.approx(0.02)


def test_bad_files_are_refused(tmp_path, capsys):
    not_csv = tmp_path / "runs.csv"
    not_csv.write_bytes(b"\xff\xfe\x00 binary \x00")
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="missing columns"):
        load_runs(other)
    with pytest.raises(ValueError, match="runs.csv"):
        load_runs(not_csv)
    with pytest.raises(SystemExit) as exc:
        main([str(other)])
    assert exc.value.code == 2 and "not a limited_runs.csv" in capsys.readouterr().err


def test_main_prints_both_data_sets(capsys):
    assert main([str(RECORD / "limited_runs.csv.gz")]) == 0
    out = capsys.readouterr().out
    assert "cancer:" in out and "diabetes:" in out and "pes_higher_equal_lower" in out


def _perturbed_cells(data: str, rho_val: str) -> dict:
    """``rho_test -> (pessimistic, optimistic returned, LinearSVC, LP-SVM box grid, paper pessimistic)`` means of
    the stored perturbed summary at ``epsilon = 0.2``."""
    rows = _table_rows((PERTURBED / "perturbed_summary.md").read_text(), "| data | ρ val | ε | ρ test |", 4)
    # cells: runs, pessimistic, optimistic (returned), worst case (B.1), LinearSVC, box grid, paper pessimistic, ...
    return {rho_test: [float(cells[i].split(" ± ")[0]) if cells[i] else None for i in (1, 2, 4, 5, 6)]
            for (name, rv, eps, rho_test), cells in rows.items() if (name, rv, eps) == (data, rho_val, "0.2")}


def test_readme_perturbed_bullet_quotes_the_stored_run():
    text = " ".join((ROOT / "README.md").read_text().split())
    bullet = text.split("**Perturbed data (Tables A2-A3", 1)[1].split("- **Code version.**", 1)[0]
    cancer = _perturbed_cells("cancer", "0.0")
    assert sorted(cancer) == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6"]
    (pes0, opt0, *_), (pes6, opt6, *_) = cancer["0.0"], cancer["0.6"]
    assert f"({pes0 - pes6:.3f} against {opt0 - opt6:.3f} from `rho_test = 0` to 0.6)" in bullet
    assert pes0 < opt0 and pes6 > opt6
    assert f"({pes0:.3f} vs {opt0:.3f} at `rho_test = 0`)" in bullet and f"({pes6:.3f} vs {opt6:.3f} at 0.6)" in bullet
    pes = [c[0] for c in cancer.values()]
    paper = [c[4] for c in cancer.values()]
    assert all(ours < theirs for ours, theirs in zip(pes, paper))  # "lower than the paper's in every cell"
    assert f"(pessimistic {min(pes):.3f}-{max(pes):.3f} vs {min(paper):.3f}-{max(paper):.3f};" in bullet
    assert all(c[2] == max(c[:4]) for c in cancer.values())  # "LinearSVC is best throughout"
    diabetes = _perturbed_cells("diabetes", "0.0")
    assert all(c[0] == max(c[:4]) for rho, c in diabetes.items() if rho != "0.0")  # best for rho_test >= 0.1
    attacked = _perturbed_cells("diabetes", "0.3")["0.0"]
    assert attacked[0] < attacked[1] and f"({attacked[0]:.3f} vs {attacked[1]:.3f} at `rho_test = 0`)" in bullet


def test_errored_runs_are_left_out_and_missing_tie_columns_allowed(tmp_path, capsys):
    """Found by an audit: a run that ended in an error (a row with only its coordinates and ``error``) was counted
    (runs 160 of which 144 ran; the share of zero optimistic losses 0.781 against 125/144), and a study whose
    optimistic solves all stopped unproven (no tie columns) was "not a limited_runs.csv"."""
    full = load_runs(RECORD / "limited_runs.csv.gz")
    runs = pd.read_csv(RECORD / "limited_runs.csv.gz")
    cancer = runs[runs["dataset"] == "cancer"].astype(object)
    failed = cancer["run"] == 9
    keep = ["study", "run_id", "dataset", "n_val", "n_train", "run"]
    cancer.loc[failed, [c for c in cancer.columns if c not in keep]] = np.nan
    cancer["error"] = np.where(failed, "SolverError: something", None)
    cancer.loc[~failed, "opt_status"] = np.where(cancer.loc[~failed, "n_train"] == 5, "time_limit", "optimal")
    path = tmp_path / "limited_runs.csv"
    cancer.drop(columns=["tie_acc_min", "tie_acc_max"]).to_csv(path, index=False)
    loaded = load_runs(path)
    assert loaded.attrs["errored"] == int(failed.sum()) == 16 and len(loaded) == 144
    ran = full[(full["dataset"] == "cancer") & (full["run"] != 9)]
    stats = dataset_stats(loaded, cell_table(loaded))
    assert stats["runs"] == 144
    assert stats["share_opt_loss_zero"] == pytest.approx((ran["opt_objective"].abs() <= 1e-9).mean())
    assert sum(stats["pes_higher_equal_lower"]) == 144
    assert stats["opt_not_optimal"] == int((ran["n_train"] == 5).sum()) and stats["pes_not_optimal"] == 0
    assert np.isnan(stats["tie_spread_mean"])
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("left out: 16 run(s) that ended in an error") and "  runs: 144" in out


def test_readme_perturbed_worst_case_and_attacked_validation_quote_the_stored_run():
    text = " ".join((ROOT / "README.md").read_text().split())
    bullet = text.split("**Perturbed data (Tables A2-A3", 1)[1].split("- **Code version.**", 1)[0]
    rows = _table_rows((PERTURBED / "perturbed_summary.md").read_text(), "| data | ρ val | ε | ρ test |", 4)
    # cells: runs, pessimistic, optimistic (returned), worst case (B.1), LinearSVC, box grid, paper pes, paper opt
    first, last = rows[("cancer", "0.0", "0.2", "0.0")], rows[("cancer", "0.0", "0.2", "0.6")]
    ours = [c[3].split(" ± ")[0] for c in (first, last)]
    paper = [c[7].split(" ± ")[0] for c in (first, last)]
    assert (f"{ours[0]} at `rho_test = 0` to {ours[1]} at 0.6, against their {paper[0]} to {paper[1]}"
            in bullet)
    runs = pd.read_csv(PERTURBED / "perturbed_runs.csv.gz")
    units = runs[(runs["rho_test"] == 0) & (runs["rho_val"] == 0.3) & (runs["epsilon"] == 0.2)]
    cancer, diabetes = (units[units["dataset"] == d]["n_val_attacked"] for d in ("cancer", "diabetes"))
    assert len(cancer) == len(diabetes) == 5 and (cancer > 0).sum() == 1 and cancer.max() == 1
    clean = runs[(runs["rho_test"] == 0) & (runs["dataset"] == "cancer")]
    assert (clean["opt_objective"].abs() <= 1e-9).all()  # "optimistic validation loss was 0 in every unit"
    assert (diabetes > 0).all() and diabetes.mean() == 4
    assert "1 of the 5 units had one such point" in bullet and "all 5 units had some (4 on average)" in bullet
    # "the other 4 match their rho_val = 0 rows" (epsilon = 0.2: same splits, nothing attacked)
    eps = runs[(runs["dataset"] == "cancer") & (runs["epsilon"] == 0.2)]
    clean_rows, attacked_rows = (eps[eps["rho_val"] == rv].set_index(["run", "rho_test"]) for rv in (0.0, 0.3))
    untouched = attacked_rows["n_val_attacked"] == 0
    for column in ("pes_acc_test", "opt_acc_test", "svc_acc_test", "box_acc_test"):
        assert (clean_rows[column][untouched] == attacked_rows[column][untouched]).all(), column
