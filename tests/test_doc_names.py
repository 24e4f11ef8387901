"""Every Python name the documentation writes in backticks (`bilevel.x.y`, `solvers.x`, `experiments.x`) can be
reached by that name: `bilevel.tune.HIGHS_OPTIONS` could not (bilevel.tune is the function)."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "experiments/README.md", "solvers/README.md", "models/README.md", "experiments/PERFORMANCE.md"]
NAME = re.compile(r"`((?:bilevel|solvers|experiments)(?:\.[A-Za-z_]\w*)+)`")


def _names() -> list[str]:
    return sorted({n for doc in DOCS for n in NAME.findall((ROOT / doc).read_text())})


def _resolve(name: str):
    """What the expression ``name`` gives after importing its longest importable module prefix, as in
    ``import bilevel.tune; bilevel.tune.HIGHS_OPTIONS``: attributes from the top package down."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            importlib.import_module(".".join(parts[:k]))
            break
        except ImportError:
            continue
    obj = importlib.import_module(parts[0])
    for attr in parts[1:]:
        obj = getattr(obj, attr)
    return obj


def test_the_docs_name_python_objects():
    assert len(_names()) >= 10  # the pattern still finds the names


@pytest.mark.parametrize("name", _names())
def test_each_documented_name_resolves(name):
    _resolve(name)


def test_the_resolver_catches_a_name_behind_a_function():
    with pytest.raises(AttributeError):
        _resolve("bilevel.tune.TuneResult")  # a name of the module bilevel.tune, behind the function


def test_experiments_readme_lists_every_script_and_module():
    """experiments/README.md names each script with a command line in its list of them (bench_feasible_start
    was missing) and gives every file of experiments/ a row of its table."""
    text = (ROOT / "experiments" / "README.md").read_text()
    listed = set(re.findall(r"`(\w+)`", text.split("run as")[0]))
    rows = set(re.findall(r"^\| `(\w+)\.py` \|", text, flags=re.M))
    files = {p.stem: p.read_text() for p in (ROOT / "experiments").glob("*.py") if p.stem != "__init__"}
    # (a module whose main block only says it is not a script, uci_study's _NOT_A_SCRIPT, has no command line)
    scripts = {name for name, source in files.items()
               if '__name__ == "__main__"' in source and "sys.exit(_NOT_A_SCRIPT)" not in source}
    assert scripts - listed == set(), "scripts missing from the list of scripts with a command line"
    assert listed - scripts == set(), "listed as scripts, but without a command line"
    assert set(files) - rows - {"bench_args"} == set(), "files of experiments/ without a row in the table"


def test_solvers_readme_common_names_resolve():
    """solvers/README.md writes the shared module's names short (`common.agreement`): each is a name of
    solvers.common."""
    names = set(re.findall(r"`common\.([A-Za-z_]\w*)", (ROOT / "solvers" / "README.md").read_text()))
    assert len(names) >= 5
    common = importlib.import_module("solvers.common")
    assert [n for n in sorted(names) if not hasattr(common, n)] == []


def test_references_to_readme_sections_exist():
    """A reference to a README section from the code, the Makefile or the docs ("README, *Input checks*",
    'README, "Tests"', "README's *Performance*") names a heading or a bold paragraph lead of README.md: those
    two named none."""
    readme = (ROOT / "README.md").read_text()
    sections = re.findall(r"^#+ (.+)$", readme, flags=re.M) + re.findall(r"^\*\*(.+?)\*\*", readme, flags=re.M)
    files = [ROOT / "Makefile", *ROOT.glob("*.md"), *ROOT.glob("*/*.md"), *ROOT.glob("*/*.py"), *ROOT.glob("*/*/*.py")]
    ref = re.compile(r"\bREADME(?:'s)?,? [*\"]([A-Z][^*\"\n]{2,60})[*\"]")
    found = {(path.relative_to(ROOT).as_posix(), name) for path in files if path.is_file()
             if path != Path(__file__).resolve() for name in ref.findall(path.read_text(errors="replace"))}
    assert len(found) >= 5  # the pattern still finds the references
    missing = [(where, name) for where, name in sorted(found)
               if not any(s.rstrip(".").startswith(name) for s in sections)]
    assert missing == []
