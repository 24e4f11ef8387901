"""Mutation study 22 of bilevel.library (the exported MILP instance library): each test kills a mutant of
bilevel/library.py that passed tests/test_library.py, asserting the documented behaviour (library.py's docstrings,
models/README.md) against independent oracles: a hand parser of the fixed-MPS text, HiGHS reading the written file,
bilevel.split_dataset recomputed, the committed models/manifest.csv, and the definitions in the docstrings.

93 mutants were generated: 51 were killed by tests/test_library.py, 42 survived it. The 24 tests here kill 32 of
the survivors (each test's docstring names its mutants). Of the other 10 (which also passed test_solvers,
test_input_errors, test_cli, test_export, test_verify and mutation studies 6 and 8), 9 are equivalent (checks that
cannot be reached, the RANGES sign that MPS ignores on L rows, LO + UP for FX, nnz equal to count_nonzero on every
library instance, HiGHS's MIP never giving solution status 1) and 1 changes nothing seen (integer values not rounded
before verify_model: no library instance's binaries were off 0 or 1 enough to matter). The empty cell for an
infinite best bound and highs_seconds in milliseconds, undocumented when the study ran, are now in solve_instance's
docstring and pinned by the last test."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from bilevel import library
from bilevel.datasets import load_builtin, split_dataset

MANIFEST = Path(__file__).resolve().parents[1] / "models" / "manifest.csv"


def _mm(A, cost=None, row_lower=(1.0,), row_upper=(np.inf,), integer=None):
    """An MpsModel ``min cost^T x`` s.t. ``row_lower <= A x <= row_upper``, x in [0, 3] (costs 1 and continuous
    columns unless given)."""
    A = sp.csc_matrix(np.asarray(A, dtype=float))
    n = A.shape[1]
    return library.MpsModel(A=A, cost=np.ones(n) if cost is None else np.asarray(cost, dtype=float),
                            col_lower=np.zeros(n), col_upper=np.full(n, 3.0),
                            row_lower=np.asarray(row_lower, dtype=float), row_upper=np.asarray(row_upper, dtype=float),
                            integer=np.zeros(n, dtype=bool) if integer is None else np.array(integer, dtype=bool),
                            col_names=[f"x{j}" for j in range(n)], row_names=[f"r{i}" for i in range(A.shape[0])],
                            objective_name="obj")


def _tiny_mm(lower, upper, integer):
    """A 1-row MpsModel ``lower <= sum(x) <= upper`` over ``len(integer)`` columns."""
    return _mm(np.ones((1, len(integer))), row_lower=(lower,), row_upper=(upper,), integer=integer)


def test_instance_spec_accepts_only_flip_all():
    """InstanceSpec: ``flip``: only ``"all"``; any other rule is an InputError (kills ``flip not in ("all",
    "hinge")``)."""
    for flip in ("hinge", "margin", "most"):
        with pytest.raises(library.InputError, match="flip"):
            library.InstanceSpec("cancer", "pessimistic", 0.0, 5, 5, flip=flip)


def test_instance_spec_refuses_an_infinite_epsilon():
    """InstanceSpec: epsilon must be a number >= 0 usable in a MILP row; an infinite epsilon (budget ``(1 + eps)
    v*``, which no MPS number field can hold: mps_number refuses inf) is an InputError at construction (kills the
    dropped ``np.isfinite`` check)."""
    with pytest.raises(library.InputError, match="epsilon"):
        library.InstanceSpec("cancer", "pessimistic", math.inf, 5, 5)


def test_ids_of_specs_that_differ_in_n_val_differ():
    """InstanceSpec.id names the files and the manifest row, and export_library refuses two different specs with
    one id: so specs that differ only in |V| get different ids, both naming |T| and |V| (kills ``size =
    f"n{n_train}"``)."""
    a = library.InstanceSpec("cancer", "optimistic", 0.0, 5, 5)
    b = library.InstanceSpec("cancer", "optimistic", 0.0, 5, 7)
    assert a.id != b.id and "7" in b.id


def test_small_means_both_sizes_at_most_small_max():
    """InstanceSpec.small: True when both sizes are <= SMALL_MAX; folder ``""`` then, ``"large"`` otherwise
    (kills ``< SMALL_MAX``, ``n_train <= SMALL_MAX`` and ``"large/"``)."""
    m = library.SMALL_MAX
    for n_train, n_val in [(m, m), (2, m), (m, 2), (m + 1, m), (2, m + 1), (m + 1, m + 1)]:
        spec = library.InstanceSpec("cancer", "optimistic", 0.0, n_train, n_val)
        expected = n_train <= m and n_val <= m
        assert spec.small is expected
        assert spec.folder == ("" if expected else "large")


def test_write_instance_puts_a_large_instance_under_large_and_marks_it_uncommitted(tmp_path):
    """write_instance writes into ``out_dir/spec.folder``; models/README.md: ``committed`` is ``true`` for the
    committed folder, ``false`` for ``large/``. An instance with |V| > SMALL_MAX (|T| small) is large (kills
    ``"committed": True`` and ``small = n_train <= SMALL_MAX``). The files are checked on disk."""
    spec = library.InstanceSpec("cancer", "optimistic", 0.0, 3, library.SMALL_MAX + 1)
    row = library.write_instance(spec, tmp_path)
    assert row["committed"] is False
    for kind in ("mps", "lp", "names"):
        assert row[kind].startswith("large/") and (tmp_path / row[kind]).is_file()


def test_from_row_rebuilds_every_committed_row_and_keeps_its_test_fraction():
    """InstanceSpec.from_row gives the spec of a manifest row: for every row of the committed manifest (optimistic
    rows have empty flip / replica cells) the spec's id is the row's id, and a row's test_fraction is kept rather
    than recomputed (kills ``replica=row.get("replica")`` and ``test_fraction=None``)."""
    rows = library.read_manifest(MANIFEST)
    for r in rows:
        spec = library.InstanceSpec.from_row(r)
        assert spec.id == r["id"] and spec.test_fraction == r["test_fraction"]
    r = next(r for r in rows if r["mode"] == "optimistic")
    assert library.InstanceSpec.from_row({**r, "test_fraction": 0.25}).test_fraction == 0.25


def test_from_row_with_an_empty_size_cell_is_an_input_error():
    """from_row: "Raises InputError for a bad row"; read_manifest reads an empty cell as None, and int(None) is a
    TypeError (kills the TypeError dropped from the caught exceptions)."""
    r = library.read_manifest(MANIFEST)[0]
    with pytest.raises(library.InputError, match="not a valid instance"):
        library.InstanceSpec.from_row({**r, "n_train": None})


def test_library_specs_are_ordered_by_size_then_data_set_then_mode_and_carry_the_seed():
    """library_specs: "ordered by size, then data set, then mode", with the given ``seed`` (kills the loops
    reordered and the seed not passed on). The order is checked with a sort key built from the arguments."""
    sizes, datasets, modes = (7, 5), ("diabetes", "cancer"), (("pessimistic", 0.2), ("optimistic", 0.0))
    specs = library.library_specs(sizes=sizes, datasets=datasets, modes=modes, seed=3)
    assert len(specs) == 8 and all(s.seed == 3 and s.id.endswith("-s3") for s in specs)
    key = [(sizes.index(s.n_train), datasets.index(s.data), modes.index((s.mode, s.epsilon))) for s in specs]
    assert key == sorted(key) and len(set(key)) == 8


def test_build_instance_uses_the_spec_seed_for_the_split():
    """build_instance: the split is bilevel.split_dataset of the built-in set with the spec's sizes, test fraction
    and seed (kills ``seed=0``). Recomputed with split_dataset itself."""
    spec = library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5, seed=4)
    data = load_builtin("diabetes")
    ref = split_dataset(data.X, data.y, 5, 5, test_fraction=spec.test_fraction, seed=4)
    got = library.build_instance(spec).split
    assert np.array_equal(got.X_train, ref.X_train) and np.array_equal(got.X_val, ref.X_val)


@pytest.mark.parametrize("value", [-0.0123456789, 0.12345678901, -1.234567891, 12345.678912, 1234567.8912,
                                   -3.3333333333333])
def test_mps_number_never_exceeds_12_characters(value):
    """mps_number: at most 12 characters, also for a value whose shortest repr has 13 or more (kills ``len(text) <=
    13``); the text parses back within the documented precision (at least 5 significant digits)."""
    text = library.mps_number(value)
    assert len(text) <= 12
    assert float(text) == pytest.approx(value, rel=1e-5)


def test_write_fixed_mps_refuses_a_nine_character_title(tmp_path):
    """write_fixed_mps: the ``title`` must be 1-8 printable ASCII characters (kills ``<= 9``)."""
    with pytest.raises(library.InputError, match="title"):
        library.write_fixed_mps(_tiny_mm(1.0, 2.0, [False]), tmp_path / "t.mps", title="ABCDEFGHI")


def _rows_section(path):
    lines = Path(path).read_text().splitlines()
    body = lines[lines.index("ROWS") + 1:lines.index("COLUMNS")]
    return {ln.split()[1]: ln.split()[0] for ln in body}


def test_a_row_with_two_finite_sides_is_an_l_row_with_a_range(tmp_path):
    """write_fixed_mps: "a row with two finite sides is ``L`` with a ``RANGES`` entry" (kills the ranged row
    written as ``G`` with its lower side as RHS). The ROWS section is parsed from the text; HiGHS reads back the
    same two sides."""
    path = tmp_path / "r.mps"
    library.write_fixed_mps(_tiny_mm(1.0, 2.5, [False, False]), path)
    assert _rows_section(path) == {"OBJ": "N", "R0": "L"}
    got = library.read_instance_arrays(path)
    assert got["row_lower"].tolist() == [1.0] and got["row_upper"].tolist() == [2.5]


def test_marker_names_are_marker00_to_marker99(tmp_path):
    """write_fixed_mps / _marker_name: the MARKER lines are named ``MARKER00`` to ``MARKER99`` before ``M100``
    (kills the switch to ``M<k>`` after 10). 12 alternating integer / continuous columns give 12 marker lines,
    parsed from the text."""
    integer = [j % 2 == 0 for j in range(12)]
    path = tmp_path / "m.mps"
    library.write_fixed_mps(_tiny_mm(1.0, 2.0, integer), path)
    names = [ln.split()[0] for ln in path.read_text().splitlines() if "'MARKER'" in ln]
    assert names == [f"MARKER{k:02d}" for k in range(12)]
    got = library.read_instance_arrays(path)
    assert got["integer"].tolist() == integer


def test_regenerated_rows_match_the_committed_manifest_parameters(tmp_path):
    """export_library(solve=False) of one optimistic and one pessimistic instance: the parameter columns,
    ``n_flipped`` (models/README.md: |V_f|, 0 for optimistic), ``committed`` and sizes equal those of the
    committed models/manifest.csv (kills ``n_flipped = n_val``, lambda_bound kept for an optimistic row and flip
    written for one). The pessimistic |V_f| is |V| (flip="all")."""
    committed = {r["id"]: r for r in library.read_manifest(MANIFEST)}
    specs = [library.InstanceSpec("cancer", "optimistic", 0.0, 5, 5),
             library.InstanceSpec("cancer", "pessimistic", 0.0, 5, 5)]
    rows = library.export_library(tmp_path, specs=specs, solve=False, log=lambda line: None)
    cols = ["id", "data", "mode", "epsilon", "flip", "replica", "lambda_bound", "lambda_max", "w_bar_lb",
            "w_bar_ub", "n_train", "n_val", "seed", "test_fraction", "n_flipped", "committed", "rows", "columns",
            "binaries", "nonzeros"]
    for r in rows:
        assert {c: r[c] for c in cols} == {c: committed[r["id"]][c] for c in cols}
    assert [r["n_flipped"] for r in rows] == [0, 5]


def test_a_spec_given_twice_as_equal_objects_is_written_once(tmp_path):
    """export_library: "a spec given twice is written once" (only two *different* specs with one id are refused),
    also when the two are equal but distinct objects (kills ``other is not spec``)."""
    specs = [library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5) for _ in range(2)]
    assert specs[0] is not specs[1]
    rows = library.export_library(tmp_path, specs=specs, solve=False, log=lambda line: None)
    assert [r["id"] for r in rows] == [specs[0].id]


def test_regenerated_manifest_lists_rows_in_library_order(tmp_path):
    """export_library's manifest lists its rows in the order of library_specs ("ordered by size, then data set,
    then mode"), as the committed manifest does, not by id (kills the sort by id, which puts ``cancer-opt-n10``
    before ``diabetes-opt-n5``). The expected order is the committed manifest's, filtered to the regenerated ids."""
    specs = [library.InstanceSpec("cancer", "optimistic", 0.0, 10, 10),
             library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5)]
    rows = library.export_library(tmp_path, specs=specs, solve=False, log=lambda line: None)
    ids = {s.id for s in specs}
    assert [r["id"] for r in rows] == [r["id"] for r in library.read_manifest(MANIFEST) if r["id"] in ids]


def test_write_manifest_writes_booleans_as_lowercase_true_false(tmp_path):
    """write_manifest: "booleans as ``true``/``false``" (kills ``"True"``/``"False"``). The cells are read with
    the csv module, not with read_manifest (which accepts any case)."""
    import csv

    path = library.write_manifest([{"id": "a", "committed": True, "verified": False}], tmp_path / "m.csv")
    with open(path, newline="", encoding="utf-8") as fh:
        (row,) = list(csv.DictReader(fh))
    assert (row["committed"], row["verified"], row["lambda_at_bound"]) == ("true", "false", "")


def _rows(*sizes):
    return [{"id": f"x-t{t}-v{v}", "n_train": t, "n_val": v, "committed": True} for t, v in sizes]


def test_select_rows_matches_any_pattern():
    """select_rows: rows whose id matches *any* of the patterns (kills ``all``)."""
    rows = _rows((5, 5), (10, 10))
    assert [r["id"] for r in library.select_rows(rows, ["*t5-*", "*t10-*"])] == ["x-t5-v5", "x-t10-v10"]


def test_select_rows_size_limit_is_inclusive_and_covers_both_sizes():
    """select_rows: ``max(n_train, n_val) <= max_size`` (kills ``>= max_size`` and ``n_train`` alone). Expected
    ids are computed from the definition."""
    rows = _rows((5, 5), (5, 20), (20, 5), (10, 10))
    got = [r["id"] for r in library.select_rows(rows, max_size=10)]
    assert got == [r["id"] for r in rows if max(r["n_train"], r["n_val"]) <= 10] == ["x-t5-v5", "x-t10-v10"]


def test_an_lp_file_ending_in_upper_case_end_is_complete(tmp_path):
    """read_instance_arrays refuses only a file cut short: LP keywords are case-insensitive, and an LP file whose
    closing line is ``END`` is whole; HiGHS reads it as the same model as the ``end`` original (kills the
    case-sensitive comparison of the closing line)."""
    lp = next(MANIFEST.parent.glob("*opt-n5-s0.lp"))
    text = lp.read_text().rstrip("\n")
    assert text.endswith("end")
    upper = tmp_path / "upper.lp"
    upper.write_text(text[:-3] + "END\n")
    a, b = library.read_instance_arrays(lp), library.read_instance_arrays(upper)
    assert a["A"].shape == b["A"].shape and np.array_equal(a["cost"], b["cost"])
    assert library.instance_differences(lp, upper) == []


def _diffs(tmp_path, first, second, rtol=1e-9):
    library.write_fixed_mps(first, tmp_path / "a.mps")
    library.write_fixed_mps(second, tmp_path / "b.mps")
    return library.instance_differences(tmp_path / "a.mps", tmp_path / "b.mps", rtol=rtol)


def test_instance_differences_scales_the_tolerance_by_at_least_one(tmp_path):
    """instance_differences: values within relative ``rtol`` "scaled by ``max(1, |value|)``": a cost of 0 against
    5e-10 is within rtol = 1e-9 (kills the scale ``max(|a|, |b|)`` without the 1); 0 against 5e-9 is not."""
    assert _diffs(tmp_path, _mm([[1.0, 1.0]], cost=(0.0, 1.0)), _mm([[1.0, 1.0]], cost=(5e-10, 1.0))) == []
    assert _diffs(tmp_path, _mm([[1.0, 1.0]], cost=(0.0, 1.0)), _mm([[1.0, 1.0]], cost=(5e-9, 1.0)))


def test_instance_differences_sees_a_changed_row_lower_bound(tmp_path):
    """instance_differences compares bounds, row bounds included: a ``>= 1`` row against ``>= 2`` differs (kills
    ``row_lower`` left out of the compared arrays). HiGHS reads the two row lower bounds from the files."""
    a, b = _mm([[1.0, 1.0]], row_lower=(1.0,)), _mm([[1.0, 1.0]], row_lower=(2.0,))
    diffs = _diffs(tmp_path, a, b)
    lows = [library.read_instance_arrays(tmp_path / f)["row_lower"][0] for f in ("a.mps", "b.mps")]
    assert lows == [1.0, 2.0] and any("row_lower" in d for d in diffs)


def test_instance_differences_sees_a_moved_matrix_entry(tmp_path):
    """instance_differences compares the matrix pattern: one non-zero in column 0 against one in column 1 (same
    count) differs (kills the pattern compared by its size only)."""
    diffs = _diffs(tmp_path, _mm([[1.0, 0.0]]), _mm([[0.0, 1.0]]))
    assert any("pattern" in d for d in diffs)


def test_solve_instance_writes_empty_cells_for_missing_values_and_seconds_to_the_millisecond():
    """solve_instance's fields with no value are empty strings (its docstring): stopped by a time limit of 1e-9 s
    before any incumbent or bound, the objective, gap, ``verified`` and best bound are "" (kills an infinite bound
    written as inf, M66), while a proven solve has a finite bound equal to its objective; ``highs_seconds`` is
    rounded to milliseconds (kills the rounding dropped, M68). Oracle: the docstring; the optimum's bound by
    HiGHS's own gap 0."""
    spec = library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5, seed=0)
    stopped = library.solve_instance(library.build_instance(spec), time_limit=1e-9)
    assert stopped["highs_status"] == "time_limit"
    assert stopped["highs_objective"] == stopped["highs_gap"] == stopped["verified"] == ""
    assert stopped["highs_best_bound"] == ""
    solved = library.solve_instance(library.build_instance(spec), time_limit=None)
    assert solved["highs_status"] == "optimal" and solved["verified"] is True and solved["time_limit"] == ""
    assert solved["highs_best_bound"] == pytest.approx(solved["highs_objective"], abs=1e-6)
    for out in (stopped, solved):
        assert out["highs_seconds"] == round(out["highs_seconds"], 3)
