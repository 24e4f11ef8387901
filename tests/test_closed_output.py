"""A standard output closed by its reader (``... | head -3``) stops every command line quietly, exit code 141.

It ended ``bilevel`` with "bilevel study: error: [Errno 32] Broken pipe" and exit code 1 (or, with the output still
in Python's buffer, "Exception ignored ... BrokenPipeError" and exit code 120), ``solvers.compare`` with "compare:
error: ... Broken pipe" and exit code 2, and the experiments scripts with the interpreter's "Exception ignored".
The readers here close the pipe before or while the command writes, as ``head`` does."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bilevel.cli import main
from bilevel.closed_output import EXIT_CLOSED_OUTPUT, run_command

ROOT = Path(__file__).resolve().parents[1]


def _env(buffered: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


def _with_closed_stdout(args, buffered: bool, cwd=ROOT) -> subprocess.CompletedProcess:
    """Run ``python args`` with a standard output whose reader has already exited."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run([sys.executable, *args], stdout=w, stderr=subprocess.PIPE, text=True,
                              env=_env(buffered), cwd=cwd, timeout=300)
    finally:
        os.close(w)


@pytest.mark.parametrize("buffered", [False, True])
@pytest.mark.parametrize("args", [
    ["-m", "bilevel", "tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--mode", "optimistic"],
    ["-m", "bilevel", "--help"],
    ["-m", "bilevel.certify.cli", "--help"],
    ["-m", "solvers.compare", "--help"],
    ["-m", "experiments.bench_milp", "--help"],
])
def test_a_closed_stdout_stops_the_command_quietly(args, buffered, tmp_path):
    p = _with_closed_stdout(args + (["--json", str(tmp_path / "r.json")] if "tune" in args else []), buffered)
    if "--help" in args and not buffered:
        # argparse ignores a failed write of its help itself (exit 0); nothing else may be said
        assert p.returncode in (0, EXIT_CLOSED_OUTPUT) and p.stderr == "", p.stderr
    else:  # old: exit 1 "error: [Errno 32] Broken pipe", or 120 "Exception ignored ... BrokenPipeError"
        assert p.returncode == EXIT_CLOSED_OUTPUT and p.stderr == "", (p.returncode, p.stderr)


def test_a_study_stopped_by_a_closed_pipe_leaves_whole_runs_and_resumes(tmp_path):
    """The reader exits after the progress bar's first finished run (``2>&1 | head -c ...``): the study stops at its
    next write; what it wrote are whole run records (no tables, no study.json looking complete), which the next call
    reuses."""
    out = tmp_path / "study"
    args = [sys.executable, "-m", "bilevel", "study", "--quick", "--study", "limited", "--runs", "2", "--val-sizes",
            "5", "--train-sizes", "5", "--time-limit", "5", "--jobs", "1", "--out", str(out)]
    # --progress: the bar is drawn into the pipe (by default there is none when stderr is not a terminal)
    p = subprocess.Popen(args + ["--progress"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=_env(False),
                         cwd=tmp_path)
    seen = b""
    while b"1/2" not in seen:
        chunk = os.read(p.stdout.fileno(), 1)
        if not chunk:
            break
        seen += chunk
    p.stdout.close()
    assert p.wait(timeout=300) == EXIT_CLOSED_OUTPUT, seen
    assert b"1/2" in seen and b"Broken pipe" not in seen
    assert not (out / "study.json").exists() and not (out / "limited_runs.csv").exists()
    records = sorted((out / "runs").glob("*.json"))
    assert 1 <= len(records) <= 2 and not list((out / "runs").glob("*.tmp*"))
    assert all(json.loads(r.read_text())["error"] is None for r in records)
    p = subprocess.run(args + ["--no-progress"], capture_output=True, text=True, env=_env(False), cwd=tmp_path,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert f"{2 - len(records)} computed now, {len(records)} reused" in p.stdout
    assert (out / "study.json").is_file() and (out / "limited_runs.csv").is_file()


def test_compare_with_a_closed_stdout_writes_its_csv_and_stops_quietly(tmp_path):
    csv_path = tmp_path / "c.csv"
    p = _with_closed_stdout(["-m", "solvers.compare", str(ROOT / "models" / "manifest.csv"), "--only",
                             "cancer-opt-n5-s0", "--csv", str(csv_path)], buffered=False)
    assert p.returncode == EXIT_CLOSED_OUTPUT and "Broken pipe" not in p.stderr, p.stderr  # old: 2, "error: ..."
    assert csv_path.read_text().count("\n") == 2 and "agree" in csv_path.read_text()


class _ClosedAt:
    """A standard output whose reader exits when ``marker`` is printed (``| head -N`` with N lines before it)."""

    def __init__(self, marker: str):
        self.marker, self.text = marker, ""

    def write(self, text: str) -> int:
        if text.startswith(self.marker):
            raise BrokenPipeError(32, "Broken pipe")
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_tune_stopped_at_its_exported_line_leaves_no_earlier_result_beside_its_models(tmp_path, monkeypatch, capsys):
    """The models were written, then the "exported" line failed: result.json stayed the earlier run's (seed 0)
    beside this run's models (seed 1). Every file is now written before the lines that name them."""
    base = ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--mode", "optimistic", "--export",
            str(tmp_path)]
    assert main(base + ["--seed", "0"]) == 0
    first = (tmp_path / "optimistic.lp").read_text()
    monkeypatch.setattr(sys, "stdout", _ClosedAt("exported"))
    main(base + ["--seed", "1"])  # (in-process the standard output is no pipe: reported as an error, exit 1)
    monkeypatch.undo()
    assert (tmp_path / "optimistic.lp").read_text() != first  # this run's model (another split) ...
    assert json.loads((tmp_path / "result.json").read_text())["seed"] == 1  # ... and this run's result (old: seed 0)


def test_a_broken_pipe_that_is_not_the_standard_outputs_is_an_error(monkeypatch, capsys):
    import bilevel.tune_cli

    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")  # e.g. a worker's or a socket's

    monkeypatch.setattr(bilevel.tune_cli, "run", broken)
    assert main(["tune", "--data", "cancer"]) == 1
    assert "bilevel tune: error:" in capsys.readouterr().err
    with pytest.raises(BrokenPipeError):
        run_command(lambda: broken(None))


def test_export_library_stopped_by_a_closed_stdout_lists_the_files_it_wrote(tmp_path):
    """The instance's files were written, then its progress line failed before the manifest was: files without
    their manifest row (whose sha256 solvers.compare checks)."""
    out = tmp_path / "lib"
    p = _with_closed_stdout(["-m", "bilevel", "export-library", "--out", str(out), "--sizes", "5", "--data", "cancer",
                             "--only", "cancer-opt-n5-s0", "--no-solve"], buffered=False)
    assert p.returncode == EXIT_CLOSED_OUTPUT and p.stderr == "", p.stderr
    from bilevel.library import read_manifest, sha256

    (row,) = read_manifest(out / "manifest.csv")  # old: no manifest.csv beside the instance's files
    assert row["id"] == "cancer-opt-n5-s0" and sha256(out / row["mps"]) == row["mps_sha256"]


def test_ctrl_c_in_an_experiments_script_is_one_line_and_130(capsys):
    """The scripts of experiments/ ended a Ctrl-C with a Python traceback; through run_command(prog=...) it is
    one line and exit code 130, as bilevel and solvers end it. Without prog the interrupt passes through (bilevel's
    and solvers' own handlers print their names)."""
    def interrupted():
        raise KeyboardInterrupt
    assert run_command(interrupted, prog="experiments/bench_milp.py") == 130
    assert capsys.readouterr().err == "experiments/bench_milp.py: interrupted\n"
    with pytest.raises(KeyboardInterrupt):
        run_command(interrupted)
    # every script that runs through run_command names itself
    for script in sorted((ROOT / "experiments").glob("*.py")):
        text = script.read_text()
        if "run_command(" in text:
            assert f'run_command(main, prog="experiments/{script.name}")' in text, script.name
