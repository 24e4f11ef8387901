"""``pytest --highs-seed N``: give every MILP solve that sets no ``random_seed`` HiGHS's ``random_seed = N``.

:func:`seeded` wraps the two places where :mod:`bilevel.solve` configures HiGHS (a race's runs take ``N``,
``N + 1``, ...). The test process applies it through ``monkeypatch`` (``tests/conftest.py``); subprocesses
(the CLI run by a test, the study's loky or Dask workers) through :data:`ENV` and the ``sitecustomize.py``
that :func:`subprocess_dir` writes, whose folder the conftest puts first on ``PYTHONPATH``.
"""
from __future__ import annotations

from pathlib import Path

ENV = "BILEVEL_TEST_HIGHS_SEED"

_SITECUSTOMIZE = f'''\
# Written by tests/highs_seed.py for `pytest --highs-seed N`: seeds HiGHS in this subprocess too.
# (It shadows any other sitecustomize module for the subprocesses of that test run only.)
import os
import sys

if os.environ.get({ENV!r}):
    sys.path.insert(0, {str(Path(__file__).parent)!r})
    import highs_seed

    highs_seed.apply_here(int(os.environ[{ENV!r}]))
'''


def seeded(solve, seed: int) -> dict:
    """The replacements for ``solve._configured_highs`` and ``solve._race`` (a dict of attribute names to
    functions) that put ``random_seed = seed`` under the options a caller passes."""
    configured, race = solve._configured_highs, solve._race

    def seeded_configured(cm, opts, *args, **kwargs):
        return configured(cm, {"random_seed": seed, **opts}, *args, **kwargs)

    def seeded_race(cm, opts, *args, **kwargs):  # its runs take random_seed + 0, 1, ...
        return race(cm, {"random_seed": seed, **opts}, *args, **kwargs)

    return {"_configured_highs": seeded_configured, "_race": seeded_race}


def apply_here(seed: int) -> None:
    """Seed every solve of this process (a subprocess: nothing to undo)."""
    import bilevel.solve as solve

    for name, function in seeded(solve, seed).items():
        setattr(solve, name, function)


def subprocess_dir(root: Path) -> Path:
    """Write ``root/sitecustomize.py`` (see the module docstring) and return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return root


def spy_held_seeds(monkeypatch, solve) -> list:
    """Wrap ``solve._configured_highs`` (as it is now: seeded or not) so that the ``random_seed`` each configured
    ``Highs`` holds is appended to the returned list: the seed HiGHS runs with, read back from HiGHS."""
    configured, held = solve._configured_highs, []

    def spy(cm, opts, *args, **kwargs):
        h = configured(cm, opts, *args, **kwargs)
        value = h.getOptionValue("random_seed")  # (status, value) on some highspy releases
        held.append(int(value[1] if isinstance(value, tuple) else value))
        return h

    monkeypatch.setattr(solve, "_configured_highs", spy)
    return held
