"""experiments/bench_milp.py --render: a bench.csv mixing rows with and without a textbook solve (e.g.
``--no-textbook-above``, or concatenated runs) renders as the run itself wrote it."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import bench_milp  # noqa: E402

HEADER = ("data,mode,n,seed,pkg_status,pkg_obj,pkg_gap,pkg_build,pkg_solve,pkg_start,pkg_write,pkg_compile,pkg_nodes,"
          "pkg_verified,pkg_binaries,pkg_wall,lambda_bound,tb_status,tb_obj,tb_gap,tb_solve,tb_nodes,tb_verified,"
          "tb_binaries,tb_build,race,speedup,both_optimal,obj_match")
WITH_TEXTBOOK = "cancer,opt,5,0,optimal,0.0,0.0,0.0075,0.0022,0.0014,0.0047,0.0022,0,True,28,0.0188,,optimal,0.0,0.0,0.0285,1,True,56,0.0035,1,12.7,True,True"
WITHOUT = "cancer,opt,10,0,optimal,0.0,0.0,0.0080,0.0031,0.0019,0.0059,0.0025,0,True,38,0.0197,,,,,,,,,,1,nan,False,"


def test_render_of_rows_without_a_textbook_solve(tmp_path):
    path = tmp_path / "bench.csv"
    path.write_text("\n".join([HEADER, WITH_TEXTBOOK, WITHOUT]) + "\n")
    text, geo, count = bench_milp._markdown(bench_milp._read_csv(path), 5.0)
    row = next(line for line in text.splitlines() if line.startswith("| cancer | opt | 10 | 0 |"))
    assert row.endswith("| - | - | - | - |  |")  # textbook status, time, gap, speed-up; no objective match
    assert "| cancer | opt | 5 | 0 |" in text and "| 0.03 | 0.0e+00 | 12.7x | True |" in text
    assert count == 1 and abs(geo - 12.7) < 1e-9


def test_size_shares_sum_overhead_and_solve_per_size(tmp_path):
    """The per-size line divides summed build + compile + write by summed solve time, size by size (an
    average of per-row ratios would differ here: the rows' ratios are far apart)."""
    third = WITHOUT.replace("cancer,opt,10,0,", "cancer,pes0,10,1,").replace(",0.0031,0.0019,", ",1.0031,0.0019,")
    path = tmp_path / "bench.csv"
    path.write_text("\n".join([HEADER, WITH_TEXTBOOK, WITHOUT, third]) + "\n")
    rows = bench_milp._read_csv(path)
    size5 = (0.0075 + 0.0022 + 0.0047) / 0.0022
    size10 = 2 * (0.0080 + 0.0025 + 0.0059) / (0.0031 + 1.0031)
    assert bench_milp._size_shares(rows) == f"5: {size5:.1%}, 10: {size10:.1%}"
    text, _, _ = bench_milp._markdown(rows, 5.0)
    assert f"summed solve time: 5: {size5:.1%}, 10: {size10:.1%}." in text
    assert bench_milp._size_shares([]) == "-"


def test_solve_path_share_leaves_out_the_builds_lps_and_the_export(tmp_path):
    """With ``pkg_build_lps`` recorded, the report adds the share of the Pyomo build (build minus its LPs) plus
    compile in the solve time with the build's LPs added to it; CSVs without the column render without that
    line."""
    path = tmp_path / "bench.csv"
    path.write_text("\n".join([HEADER + ",pkg_build_lps", WITHOUT + ",0.0060",
                               WITHOUT.replace(",0.0031,0.0019,", ",0.2031,0.0019,").replace("opt,10,0", "opt,10,1")
                               + ",0.0050"]) + "\n")
    rows = bench_milp._read_csv(path)
    small, large = ((0.0080 - 0.0060 + 0.0025) / (0.0031 + 0.0060), (0.0080 - 0.0050 + 0.0025) / (0.2031 + 0.0050))
    assert abs(bench_milp._solve_path_share(rows[0]) - small) < 1e-12
    assert abs(bench_milp._solve_path_share(rows[1]) - large) < 1e-12
    text, _, _ = bench_milp._markdown(rows, 5.0)
    assert (f"solve time: 1 of 2 instances (1 of the 1 with solve time >= 0.1 s; largest share {large:.1%})."
            in text), text
    old = tmp_path / "old.csv"
    old.write_text("\n".join([HEADER, WITHOUT]) + "\n")
    assert "Pyomo build + compile" not in bench_milp._markdown(bench_milp._read_csv(old), 5.0)[0]
