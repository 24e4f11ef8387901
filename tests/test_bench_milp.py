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
