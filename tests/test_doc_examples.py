"""The README's Python examples run as written: a user who copies one does not hit a renamed function, argument
or attribute. Each ```python block of README.md is executed (in a temporary working folder, as its files are
written there); the names a block leaves to the reader (``losses``, ``costs``) are given values of the shapes its
comment states. Oracle: the results the examples print, checked against what they promise (an optimal, verified
pessimistic solution and its exported file; certified candidates among the columns of ``losses``)."""
from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_readme_has_its_python_examples():
    blocks = _python_blocks()
    assert len(blocks) >= 2 and "bilevel.tune(" in blocks[0] and "rg_pt(" in blocks[1]


def test_the_readme_python_examples_run(tmp_path):
    rng = np.random.default_rng(0)
    given = {  # (n_cal, m) losses in [0, 1] and (m,) costs, as the rg_pt example's comment says; alpha is 0.1
        "losses": (rng.random((400, 6)) < np.linspace(0.02, 0.3, 6)).astype(float),
        "costs": np.arange(6, 0, -1, dtype=float),
    }
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        spaces = []
        for block in _python_blocks():
            space = {"__name__": "__readme__", **given}
            with contextlib.redirect_stdout(io.StringIO()) as out:
                exec(compile(block, "README.md", "exec"), space)  # noqa: S102 - the documentation's own code
            assert out.getvalue().strip(), "an example printed nothing"
            spaces.append(space)
    finally:
        os.chdir(here)
    pes = spaces[0]["pes"]
    assert pes.status == "optimal" and pes.verification.verified and pes.objective >= spaces[0]["opt"].objective - 1e-6
    assert (tmp_path / "pessimistic.mps").stat().st_size > 0
    res = spaces[1]["res"]  # candidates 0 and 1 have error rates 0.02 and 0.076, the others 0.13-0.3 > alpha
    assert len(res.certified) and set(np.asarray(res.certified).tolist()) <= {0, 1}
    assert res.chosen in res.certified
