"""Every git-tracked Python file keeps its lines to at most 120 characters (the project's line length, which nothing
else enforces: about 160 lines had drifted past it)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINE = 120


def _tracked_python_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no list of tracked files")
    out = subprocess.run(["git", "ls-files", "-z", "--", "*.py"], cwd=ROOT, capture_output=True, check=True)
    return [ROOT / name for name in out.stdout.decode().split("\0") if name]


def _long_lines(paths: list[Path]) -> list[str]:
    """``file:line (length)`` of each line longer than MAX_LINE characters (not bytes) in ``paths``."""
    found = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if len(line) > MAX_LINE:
                name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                found.append(f"{name}:{number} ({len(line)})")
    return found


def test_the_check_finds_a_line_one_character_too_long(tmp_path):
    path = tmp_path / "long.py"
    path.write_text("x = 1\n" + "#" * MAX_LINE + "\n" + "#" * (MAX_LINE + 1) + "\n", encoding="utf-8")
    assert [entry.split(":", 1)[1] for entry in _long_lines([path])] == [f"3 ({MAX_LINE + 1})"]


def test_no_tracked_python_line_is_longer_than_120_characters():
    files = _tracked_python_files()
    assert len(files) >= 50  # git listed the project's files
    long = _long_lines(files)
    assert long == [], f"{len(long)} lines longer than {MAX_LINE} characters:\n" + "\n".join(long)
