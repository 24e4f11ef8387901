"""Run a snippet of Python in a subprocess under an ASCII locale, for the tests of outputs written in UTF-8
whatever the locale."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_in_ascii_locale(code: str, *args: str, stdout_utf8: bool = False) -> subprocess.CompletedProcess:
    """``code`` run by this interpreter with ``LC_ALL=C`` and without Python's UTF-8 mode (so ``open`` defaults
    to ASCII, as a ``C`` locale does), with the repository root first on ``sys.path`` and ``args`` as
    ``sys.argv[2:]`` (``sys.argv[1]`` is the root); ``stdout_utf8`` keeps the standard output UTF-8 (for code that
    prints non-ASCII text)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIOENCODING"))}
    env.update(LC_ALL="C", PYTHONUTF8="0")
    if stdout_utf8:
        env["PYTHONIOENCODING"] = "utf-8"
    code = "import sys; sys.path.insert(0, sys.argv[1])\n" + code
    return subprocess.run([sys.executable, "-c", code, str(ROOT), *args], env=env, capture_output=True, text=True,
                          timeout=120)
