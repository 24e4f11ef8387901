"""The Makefile's HiGHS release choice, as the README (*Dependency versions*) states it: `make test` installs
HiGHS 1.15.1, `HIGHSPY=1.16.0` that release, and `HIGHSPY=` the newest release pyproject.toml allows, also in a
.venv that holds another release already. A plain `pip install -e '.[test]'` keeps an installed highspy that
satisfies the range (pip: "Requirement already satisfied"; measured: 1.15.1 stayed, where `--upgrade highspy`
would install 1.16.0), so `HIGHSPY=` must ask pip to upgrade it."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _pip_install(tmp_path: Path, *make_args: str) -> list[str]:
    """The arguments of the `pip install ... -e '.[test]' ...` command `make install` would run into a fresh
    virtual environment under ``tmp_path`` (``make -n``: printed, not run)."""
    # without the variables of an enclosing make (`make test HIGHSPY=1.16.0` passes HIGHSPY on in MAKEFLAGS)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "HIGHSPY")}
    out = subprocess.run(["make", "-n", "install", f"VENV={tmp_path / 'venv'}", *make_args], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    lines = [shlex.split(line) for line in out.splitlines() if "pip install" in line and "-e" in line]
    assert len(lines) == 1, out
    return lines[0]


def test_the_default_release_is_pinned(tmp_path):
    assert "highspy==1.15.1" in _pip_install(tmp_path)


def test_a_named_release_is_pinned(tmp_path):
    args = _pip_install(tmp_path, "HIGHSPY=1.16.0")
    assert "highspy==1.16.0" in args and "--upgrade" not in args


def test_an_empty_release_upgrades_highspy_to_the_newest_allowed(tmp_path):
    args = _pip_install(tmp_path, "HIGHSPY=")
    assert not any(a.startswith("highspy==") for a in args)
    assert ("--upgrade" in args or "-U" in args) and "highspy" in args, args
