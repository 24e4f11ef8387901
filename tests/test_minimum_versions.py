"""`make test-min` runs the suite at the lowest dependency versions pyproject.toml allows; this checks that
its constraints file, tests/minimum-versions.txt, pins exactly those versions, so the lower bounds stay tested
when either file changes."""
from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _declared_minimums() -> dict[str, Version]:
    """Each third-party requirement of the project and its extras: name -> its ``>=`` lower bound."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    out: dict[str, Version] = {}
    for line in lines:
        req = Requirement(line)
        if canonicalize_name(req.name) == "bilevel":  # the project's own extras
            continue
        lower = [Version(s.version) for s in req.specifier if s.operator == ">="]
        assert len(lower) == 1, f"{line!r} needs exactly one '>=' lower bound for make test-min"
        name = canonicalize_name(req.name)
        assert out.get(name, lower[0]) == lower[0], f"{req.name} is declared with two lower bounds"
        out[name] = lower[0]
        if name == "dask" and "distributed" in req.extras:  # dask[distributed] pins distributed alongside
            out["distributed"] = lower[0]
    return out


def _pinned() -> dict[str, Version]:
    out = {}
    for line in (ROOT / "tests" / "minimum-versions.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            out[canonicalize_name(name)] = Version(version)
    return out


def test_constraints_pin_every_declared_lower_bound():
    declared, pinned = _declared_minimums(), _pinned()
    assert set(pinned) == set(declared)
    mismatched = {name: (str(declared[name]), str(pinned[name])) for name in declared if declared[name] != pinned[name]}
    assert not mismatched, f"pyproject lower bound != minimum-versions.txt pin: {mismatched}"


def test_every_pin_satisfies_the_declared_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = _pinned()
    for line in project["dependencies"]:
        req = Requirement(line)
        assert pinned[canonicalize_name(req.name)] in req.specifier, line
