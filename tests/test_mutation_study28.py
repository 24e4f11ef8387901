"""Mutation study 28 of the instance library's fixed choices (bilevel/library_defaults.py: SIZES, SMALL_MAX, MODES,
DATASETS, SEED, TIME_LIMIT, MIP_GAP), the one package module no study had covered: 15 mutants (a size dropped,
changed or added; SMALL_MAX 5 or 20; a mode dropped, reordered or at epsilon 0.1; a data set dropped; SEED 1;
TIME_LIMIT 120; MIP_GAP 1e-4 and 1e-5; the data sets swapped), run against every test file that names the library
(21 files, about 100 s a survivor). 11 were killed by existing tests (tests/test_library.py's manifest check, study
6's --only-small bound, study 22's regenerated rows, the closed-output test), 4 survived and are killed here: the
data sets swapped (the manifest's rows and ``--data``'s default in another order than documented), TIME_LIMIT 120
and MIP_GAP 1e-4 or 1e-5 (defaults other than those models/README.md documents and the committed manifest was
measured with). None is equivalent. Oracles: models/README.md's option list, the committed models/manifest.csv, the
order ``library_specs`` documents, and HiGHS's own default ``mip_rel_gap`` read from highspy."""
from __future__ import annotations

import re
from pathlib import Path

import highspy

from bilevel import library
from test_cli import _help_text  # the --help output with its line breaks folded

ROOT = Path(__file__).resolve().parents[1]
MODELS_README = ROOT / "models" / "README.md"
MANIFEST = ROOT / "models" / "manifest.csv"


def _documented_options() -> dict:
    """The export-library defaults as models/README.md's option paragraph states them."""
    text = " ".join(MODELS_README.read_text(encoding="utf-8").split())
    found = {
        "time_limit": re.search(r"`--time-limit` \(HiGHS seconds per instance, default ([0-9.]+)\)", text),
        "mip_gap": re.search(r"`--mip-gap` \(default ([0-9.e+-]+)\)", text),
        "data": re.search(r"`--data ([a-z,]+)`", text),
    }
    assert all(found.values()), f"models/README.md no longer states every default: {found}"
    return {key: match.group(1) for key, match in found.items()}


def test_the_export_library_defaults_are_those_models_readme_documents(capsys):
    """models/README.md: ``--time-limit`` defaults to 60 s per instance, ``--mip-gap`` to 1e-6, ``--data`` to
    ``cancer,diabetes`` (in that order); the constants' docstring: the gap is tighter than HiGHS's default (so the
    manifest objective is the optimum to about 6 digits). ``export-library --help`` names the same defaults.
    Mutation testing: TIME_LIMIT 120, MIP_GAP 1e-4 or 1e-5 and DATASETS in the other order passed the suite."""
    documented = _documented_options()
    assert library.TIME_LIMIT == float(documented["time_limit"])
    assert library.MIP_GAP == float(documented["mip_gap"])
    assert ",".join(library.DATASETS) == documented["data"]
    highs_default = highspy.Highs().getOptionValue("mip_rel_gap")
    if isinstance(highs_default, tuple):  # older highspy: (status, value)
        highs_default = highs_default[1]
    assert library.MIP_GAP < highs_default
    help_text = _help_text("bilevel export-library", capsys)
    phrases = {"time_limit": "HiGHS seconds per instance", "mip_gap": "MIP gap of the HiGHS solves"}
    stated = {key: re.search(phrase + r" \(default: ([0-9.e+-]+);", help_text) for key, phrase in phrases.items()}
    assert all(stated.values()), f"export-library --help no longer states every default: {stated}"
    assert {key: float(match.group(1)) for key, match in stated.items()} == {
        key: float(documented[key]) for key in stated}


def test_the_manifest_is_in_library_order_and_was_measured_with_the_defaults():
    """``library_specs`` orders the instances by size, then data set, then mode, and ``export-library`` writes the
    manifest in that order, so a regeneration leaves the committed manifest's rows where they are. models/README.md:
    the rows of sizes up to 50 (and ``cancer-opt-n100-s0``) were measured with the default ``--time-limit`` and every
    row with the default ``--mip-gap``. Mutation testing: the data sets swapped, TIME_LIMIT 120 and MIP_GAP 1e-5
    passed the suite (the manifest test compares the ids sorted)."""
    rows = library.read_manifest(MANIFEST)
    assert [r["id"] for r in rows] == [s.id for s in library.library_specs()]
    first_size = [r for r in rows if r["n_train"] == library.SIZES[0]]
    assert [r["data"] for r in first_size] == [d for d in library.DATASETS for _ in library.MODES]
    assert [r["data"] for r in first_size[:len(library.MODES)]] == ["cancer"] * len(library.MODES)
    defaults = [r for r in rows if r["n_train"] <= 50 or r["id"] == "cancer-opt-n100-s0"]
    assert len(defaults) == 25
    assert {r["time_limit"] for r in defaults} == {library.TIME_LIMIT}
    assert {r["mip_gap"] for r in rows} == {library.MIP_GAP}
