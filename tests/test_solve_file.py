"""``python -m solvers.solve_file``: one instance file, one solver, its result printed. Oracles: brute-force
enumeration of a small integer program written here, the manifest's HiGHS optimum of a library instance and
``solvers.check_solution``, which re-verifies the written solution without any MILP solver."""
from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

from bilevel import library
from bilevel.errors import InputError
from solvers import common, solve_file
from solvers.check_solution import check_solution

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "models" / "manifest.csv"
INSTANCE = "diabetes-opt-n10-s0"  # a library instance with a positive optimum

#: max 5 x0 + 4 x1 + 3 x2 + 7 x3 s.t. 2 x0 + 3 x1 + x2 + 4 x3 <= 7, x0 + x1 + 2 x2 + x3 <= 4, x in {0, 1, 2}^4
_WEIGHTS, _CAPS, _VALUES = ([[2, 3, 1, 4], [1, 1, 2, 1]], [7, 4], [5, 4, 3, 7])
KNAPSACK_LP = ("maximize\n obj: " + " + ".join(f"{v} x{j}" for j, v in enumerate(_VALUES)) + "\nsubject to\n"
               + "".join(f" c{i}: " + " + ".join(f"{a} x{j}" for j, a in enumerate(row)) + f" <= {cap}\n"
                         for i, (row, cap) in enumerate(zip(_WEIGHTS, _CAPS)))
               + "bounds\n" + "".join(f" 0 <= x{j} <= 2\n" for j in range(4)) + "general\n x0 x1 x2 x3\nend\n")


def _knapsack_optimum() -> float:
    feasible = (x for x in itertools.product(range(3), repeat=4)
                if all(sum(a * xj for a, xj in zip(row, x)) <= cap for row, cap in zip(_WEIGHTS, _CAPS)))
    return max(sum(v * xj for v, xj in zip(_VALUES, x)) for x in feasible)


def _run(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solvers.solve_file", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def _fields(stdout: str) -> dict:
    return dict(line.split(": ", 1) for line in stdout.splitlines())


@pytest.mark.parametrize("solver", sorted(common.RUNNERS))
def test_every_available_solver_reaches_the_enumerated_optimum(solver, tmp_path):
    """The printed objective of each installed solver equals the optimum found by enumerating all 81 points, and
    the written solution is feasible and attains it."""
    if not common.get_runner(solver).available():
        pytest.skip(f"{solver} is not installed")
    lp = tmp_path / "knapsack.lp"
    lp.write_text(KNAPSACK_LP)
    done = _run(lp, "--solver", solver, "--solution", tmp_path / "x.csv", "--time-limit", 60)
    assert done.returncode == 0, done.stderr
    out = _fields(done.stdout)
    assert out["status"] == "optimal" and out["solver"] == solver
    assert float(out["objective"]) == pytest.approx(_knapsack_optimum(), abs=1e-6)
    from solvers.solution_files import read_solution_file

    values, claimed = read_solution_file(tmp_path / "x.csv")
    x = [round(values.get(f"x{j}", 0.0)) for j in range(4)]
    assert all(sum(a * xj for a, xj in zip(row, x)) <= cap for row, cap in zip(_WEIGHTS, _CAPS))
    assert sum(v * xj for v, xj in zip(_VALUES, x)) == pytest.approx(claimed) == pytest.approx(_knapsack_optimum())


def test_a_library_instance_gives_the_manifest_optimum_and_a_trusted_solution(tmp_path):
    row = {r["id"]: r for r in library.read_manifest(MANIFEST)}[INSTANCE]
    done = _run(MANIFEST.parent / row["mps"], "--solution", tmp_path / "s.csv", "--seed", 1)
    assert done.returncode == 0, done.stderr
    objective = float(_fields(done.stdout)["objective"])
    assert objective > 0 and objective == pytest.approx(float(row["highs_objective"]), rel=1e-4, abs=1e-6)
    assert check_solution(MANIFEST, INSTANCE, tmp_path / "s.csv").trusted


def test_an_infeasible_model_is_an_answer_and_removes_a_stale_solution(tmp_path):
    """Status infeasible is the solver's answer (exit 0); no incumbent, so an earlier solution file at the
    --solution path, which would be read as this run's, is removed and stderr says so."""
    lp = tmp_path / "infeasible.lp"
    lp.write_text("minimize\n obj: x + y\nsubject to\n c1: x + y >= 3\nbounds\n 0 <= x <= 1\n 0 <= y <= 1\n"
                  "general\n x y\nend\n")
    stale = tmp_path / "s.csv"
    stale.write_text("name,value\nx,1\n")
    done = _run(lp, "--solution", stale)
    assert done.returncode == 0, done.stderr
    assert _fields(done.stdout)["status"] == "infeasible" and _fields(done.stdout)["objective"] == "-"
    assert not stale.exists() and "no incumbent to write" in done.stderr


def test_a_file_the_solver_cannot_read_exits_1(tmp_path):
    """A file cut short (no ``end``) is status error, not an answer: exit code 1, the runner's message printed."""
    lp = tmp_path / "cut.lp"
    lp.write_text(KNAPSACK_LP.replace("end\n", ""))
    done = _run(lp)
    assert done.returncode == 1 and _fields(done.stdout)["status"] == "error", done.stdout
    assert "message: " in done.stdout


def test_an_unavailable_solver_is_a_status_not_an_exception(monkeypatch, tmp_path, capsys):
    lp = tmp_path / "k.lp"
    lp.write_text(KNAPSACK_LP)
    monkeypatch.setattr(common.get_runner("scip"), "available", lambda: False)
    assert solve_file.main([str(lp), "--solver", "SCIP"]) == 1
    out = _fields(capsys.readouterr().out)
    assert out["status"] == "unavailable" and out["solver"] == "scip"


def test_tuning_options_reach_the_highs_runner_and_no_other(monkeypatch, tmp_path, capsys):
    """--tuning-options hands bilevel.tuning_options() to the HiGHS runner; with another solver it is refused
    (exit 2) before any solve."""
    from bilevel.tune import tuning_options
    from solvers import highs

    lp = tmp_path / "k.lp"
    lp.write_text(KNAPSACK_LP)
    seen = []
    monkeypatch.setattr(highs, "solve", lambda path, **kw: seen.append(kw) or common.RunResult("highs", str(path),
                                                                                              "optimal"))
    assert solve_file.main([str(lp), "--tuning-options"]) == 0
    assert solve_file.main([str(lp)]) == 0
    assert seen[0]["options"] == tuning_options() and seen[0]["options"] and "options" not in seen[1]
    capsys.readouterr()
    assert solve_file.main([str(lp), "--tuning-options", "--solver", "scip"]) == 2
    assert "--tuning-options are HiGHS options" in capsys.readouterr().err and len(seen) == 2
    with pytest.raises(InputError, match="the scip runner takes none"):
        solve_file.solve_file(lp, "scip", options={"presolve": "off"})


@pytest.mark.parametrize("args, message", [
    (["--solver", "foo"], "--solver 'foo' is not a known solver"),
    (["--time-limit", "-1"], "--time-limit"),
    (["--time-limit", "nan"], "--time-limit"),
    (["--mip-gap", "-0.1"], "--mip-gap"),
    (["--seed", "-1"], "--seed"),
    (["--solution", ""], "--solution"),
])
def test_bad_options_exit_2_in_one_line_before_any_solve(args, message, tmp_path, capsys):
    lp = tmp_path / "k.lp"
    lp.write_text(KNAPSACK_LP)
    assert solve_file.main([str(lp), *args]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and len(captured.err.strip().splitlines()) == 1, captured.err
    assert captured.out == ""


def test_bad_files_exit_2(tmp_path, capsys):
    """A missing file, a folder, another suffix, an empty path, and --solution naming the instance file itself
    (its model would be replaced by the solution): refused, the file left as it was."""
    lp = tmp_path / "k.lp"
    lp.write_text(KNAPSACK_LP)
    (tmp_path / "dir.mps").mkdir()
    (tmp_path / "k.txt").write_text(KNAPSACK_LP)
    for args, message in (([tmp_path / "absent.mps"], "not found"), ([tmp_path / "dir.mps"], "is a folder"),
                          ([tmp_path / "k.txt"], "must end in .mps or .lp"), ([""], "file"),
                          ([lp, "--solution", lp], "is the instance file")):
        assert solve_file.main(list(map(str, args))) == 2, args
        assert message in capsys.readouterr().err, args
    assert lp.read_text() == KNAPSACK_LP
