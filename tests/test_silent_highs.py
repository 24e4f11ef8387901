"""The package prints nothing of HiGHS's: HiGHS 1.16 prints a banner on the first ``highspy.Highs()`` of a
process, before ``output_flag`` can be set; :func:`bilevel.highs_run.silent_highs` mutes that construction.
Each check runs in a fresh process, since only a process's first ``Highs()`` prints."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import highspy

BANNER = "Running HiGHS"


def _stdout(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return out.stdout


def _highs_prints_banner() -> bool:
    major, minor = (int(x) for x in highspy.Highs().version().split(".")[:2])
    return (major, minor) >= (1, 16)


def test_plain_highs_prints_the_banner_where_expected():
    """The premise: a plain first ``Highs()`` prints the banner on HiGHS 1.16 (CI runs the suite there)."""
    printed = BANNER in _stdout("import highspy; highspy.Highs()")
    assert printed == _highs_prints_banner()


def test_silent_highs_prints_nothing_and_keeps_the_process_output():
    code = ("from bilevel.highs_run import silent_highs\n"
            "print('before')\n"  # buffered by Python when stdout is a pipe: must not be lost in the muting
            "h = silent_highs(); h2 = silent_highs()\n"
            "assert h.getOptions().output_flag is False and h2.getOptions().output_flag is False\n"
            "print('after')\n")
    assert _stdout(code) == "before\nafter\n"


def test_tune_cli_output_has_no_banner(tmp_path: Path):
    code = ("import sys; from bilevel.cli import main\n"
            f"sys.exit(main(['tune', '--data', 'cancer', '--n-train', '10', '--n-val', '10', '--mode', 'optimistic',"
            f" '--json', {str(tmp_path / 'r.json')!r}]))\n")
    out = _stdout(code)
    assert "verified" in out and BANNER not in out
