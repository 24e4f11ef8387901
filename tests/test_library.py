"""The instance library in models/: the manifest matches the committed files (checksums recomputed, sizes
read back by HiGHS), regeneration reproduces the committed files, the MPS files follow the fixed-MPS
conventions, the committed instances re-solve from file to the manifest objective, and the
``bilevel export-library`` command."""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest

from bilevel import library
from bilevel.cli import main

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "models"
MANIFEST = MODELS / "manifest.csv"
REGENERATE = "python -m bilevel export-library --only-small  (then commit models/)"


def rows(committed=True, max_size=None):
    out = library.select_rows(library.read_manifest(MANIFEST), max_size=max_size, committed_only=committed)
    assert out, "the manifest lists no committed instance"
    return out


def by_id():
    return {r["id"]: r for r in library.read_manifest(MANIFEST)}


def highs_solve(path, time_limit=120.0):
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.setOptionValue("time_limit", time_limit)
    h.setOptionValue("mip_rel_gap", 1e-6)
    h.run()
    return h.modelStatusToString(h.getModelStatus()), h.getInfo().objective_function_value


# ---------------------------------------------------------------------------------------- manifest


def test_manifest_lists_the_documented_library():
    ids = [r["id"] for r in library.read_manifest(MANIFEST)]
    expected = [s.id for s in library.library_specs()]
    assert sorted(ids) == sorted(expected), "manifest rows differ from library_specs(): " + REGENERATE
    assert len(expected) == 36 and len(set(expected)) == 36
    for r in library.read_manifest(MANIFEST):
        assert r["committed"] == (max(r["n_train"], r["n_val"]) <= library.SMALL_MAX)
        assert r["mps"].startswith("large/") != r["committed"]


def test_a_manifest_saved_with_a_byte_order_mark_reads_the_same(tmp_path):
    """A spreadsheet's byte-order mark made the first column '\ufeffid': 'not an instance manifest'."""
    import csv

    text = MANIFEST.read_text(encoding="utf-8")
    path = tmp_path / "manifest.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    ids = [r["id"] for r in csv.DictReader(text.splitlines())]  # the csv module on the plain text
    assert [r["id"] for r in library.read_manifest(path)] == ids
    assert library.read_manifest(path) == library.read_manifest(MANIFEST)


def test_manifest_checksums_match_the_committed_files():
    for r in rows():
        for kind in ("mps", "lp", "names"):
            path = MODELS / r[kind]
            assert path.is_file(), f"{path} is listed in the manifest but missing: {REGENERATE}"
            digest = hashlib.sha256(path.read_bytes()).hexdigest()  # recomputed here, not via the library
            assert digest == r[f"{kind}_sha256"], f"{path} does not match its manifest checksum: {REGENERATE}"


def test_an_interrupted_manifest_write_leaves_the_old_manifest(tmp_path):
    # export_library rewrites the manifest after every instance; a write stopped midway (Ctrl-C, a full disk)
    # used to leave a truncated manifest behind, losing the rows of instances already on disk
    rows = library.read_manifest(MANIFEST)[:3]
    path = library.write_manifest(rows, tmp_path / "manifest.csv")
    before = path.read_bytes()

    def interrupted():
        yield rows[0]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        library.write_manifest(interrupted(), path)
    assert path.read_bytes() == before
    assert [r["id"] for r in library.read_manifest(path)] == [r["id"] for r in rows]
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.csv"], "a temporary file was left behind"


def test_a_manifest_keeps_columns_the_writer_does_not_know(tmp_path):
    # write_manifest wrote MANIFEST_COLUMNS only: a column added by hand (another solver's results, notes) was
    # lost by any rewrite, e.g. export_library regenerating one instance
    import csv

    rows = library.read_manifest(MANIFEST)
    rows[0]["note"] = "hand-made, with a comma"
    rows[-1]["cplex_objective"] = 0.25
    path = library.write_manifest(rows, tmp_path / "manifest.csv")
    with open(path, newline="", encoding="utf-8") as fh:  # the csv module, not the library's reader
        header, *cells = list(csv.reader(fh))
    assert header == library.MANIFEST_COLUMNS + ["note", "cplex_objective"]
    assert cells[0][-2:] == ["hand-made, with a comma", ""] and cells[-1][-2:] == ["", "0.25"]
    again = library.read_manifest(path)
    assert again[0]["note"] == "hand-made, with a comma" and again[-1]["cplex_objective"] == "0.25"
    assert [{k: v for k, v in r.items() if k in library.MANIFEST_COLUMNS} for r in again] == library.read_manifest(
        MANIFEST)
    library.write_manifest(again, path)  # a second rewrite keeps the order and the values
    assert library.read_manifest(path) == again

    spec = library.library_specs(sizes=(5,))[0]  # regenerated: its row is new, the column stays for the others
    written = library.export_library(tmp_path, [spec], solve=False, log=lambda _: None)
    assert list(written[0])[-2:] == ["note", "cplex_objective"]
    by_id = {r["id"]: r for r in written}
    assert by_id[spec.id]["note"] is None and by_id[rows[-1]["id"]]["cplex_objective"] == "0.25"
    assert len(written) == len(rows)


def test_a_manifest_row_with_more_cells_than_the_header_is_refused(tmp_path):
    # csv.DictReader put the extra cells under the key None, and the writer then dropped them silently
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "manifest.csv"
    path.write_text("\n".join([lines[0], lines[1] + ",surplus", *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(library.InputError, match=r"line 2: more cells than the header has columns \(1 more\)"):
        library.read_manifest(path)
    with pytest.raises(library.InputError, match="column names must be strings"):
        library.write_manifest([{"id": "x", None: ["surplus"]}], tmp_path / "other.csv")


def test_a_manifest_row_with_fewer_cells_or_grouped_digits_is_refused(tmp_path):
    """csv.DictReader gave the missing cells of a short row None, read as empty cells; int() read n_train "1_0" as
    10 (export hunt). Oracle: Python's csv module counts the row's cells."""
    import csv

    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    header = next(csv.reader([lines[0]]))
    short = ",".join(next(csv.reader([lines[1]]))[:-2])
    path = tmp_path / "manifest.csv"
    path.write_text("\n".join([lines[0], short, *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(library.InputError, match=rf"line 2: fewer cells than the header has columns \(2 missing, from "
                                                 rf"{header[-2]!r}\)"):
        library.read_manifest(path)
    cells = next(csv.reader([lines[1]]))
    cells[header.index("n_train")] = "1_0"
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(library.InputError, match="column 'n_train' must hold an integer, got '1_0'"):
        library.read_manifest(path)


@pytest.mark.parametrize("cell", ["1", "yes", "y", "t", "0", "no"])
def test_a_manifest_bool_cell_other_than_true_or_false_is_refused(tmp_path, cell):
    """read_manifest read every committed / verified cell other than 'true' as False: a manifest edited by hand
    (or by a tool writing 1 / yes) lost its committed instances from --committed-only without a word. Oracle: the
    cell as Python's csv module reads it."""
    import csv

    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    header = next(csv.reader([lines[0]]))
    cells = next(csv.reader([lines[1]]))
    assert cells[header.index("committed")] == "true"
    cells[header.index("committed")] = cell
    path = tmp_path / "manifest.csv"
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    with pytest.raises(library.InputError, match=f"line 2: column 'committed' must hold true or false, got '{cell}'"):
        library.read_manifest(path)
    cells[header.index("committed")] = " TRUE "
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    assert library.read_manifest(path)[0]["committed"] is True


def test_an_instance_file_cut_short_is_refused_not_read_as_a_smaller_model(tmp_path):
    """HiGHS 1.15 read an .mps file cut inside its COLUMNS section (e.g. after '    C6') as a model of the first
    columns only, and an .lp file cut inside its first comment as an empty model: read_instance_arrays (the
    feasibility check of check_solution when the manifest gives no checksum) then checked a vector against part
    of the model. Oracle: the manifest's sizes of the whole file, and HiGHS's own reading of the cut file."""
    import gzip

    row = library.read_manifest(MANIFEST)[0]
    for kind in ("mps", "lp"):
        raw = (MODELS / row[kind]).read_bytes()
        whole = library.read_instance_arrays(MODELS / row[kind])
        assert whole["A"].shape == (row["rows"], row["columns"])
        cut = tmp_path / f"cut.{kind}"
        accepted = None
        for k in range(1, len(raw), 7):  # the first cut HiGHS reads without an error
            cut.write_bytes(raw[:k])
            h = highspy.Highs()
            h.silent()
            if h.readModel(str(cut)) != highspy.HighsStatus.kError:
                accepted = k
                break
        if accepted is None:  # a later HiGHS refuses every cut: nothing to show
            continue
        assert h.getLp().num_col_ < row["columns"]
        with pytest.raises(library.InputError, match="truncated or damaged"):
            library.read_instance_arrays(cut)
        packed = tmp_path / f"cut.{kind}.gz"
        packed.write_bytes(gzip.compress(raw)[:-20])  # a cut-off gzip stream
        with pytest.raises(library.InputError, match="truncated or damaged"):
            library.read_instance_arrays(packed)
        packed.write_bytes(gzip.compress(raw))
        assert library.read_instance_arrays(packed)["A"].shape == whole["A"].shape


def test_a_name_map_saved_with_a_byte_order_mark_reads_the_same(tmp_path):
    """read_manifest reads a manifest a spreadsheet saved with a byte-order mark; read_name_map refused such a
    map as 'not a name map (header kind,short,name)'. Oracle: the map read from the file without the mark."""
    row = library.read_manifest(MANIFEST)[0]
    raw = (MODELS / row["names"]).read_bytes()
    path = tmp_path / "m.names.csv"
    path.write_bytes(b"\xef\xbb\xbf" + raw)
    assert library.read_name_map(path) == library.read_name_map(MODELS / row["names"])


def test_an_interrupted_name_map_write_leaves_the_old_map(tmp_path):
    # write_name_map (and write_fixed_mps) wrote straight into the file: an export stopped midway left a
    # truncated map of short to readable names next to a whole model (write_model and the manifest rename)
    names = {"obj": ("OBJ", "obj"), "col": [(f"C{j}", f"w[{j}]") for j in range(50)], "row": [("R0", "c0")]}
    path = library.write_name_map(names, tmp_path / "m.names.csv")
    before = path.read_bytes()
    real_writer = library.csv.writer

    class Stopping:  # a write that fails after a few rows (the map's shape is checked before writing)
        def __init__(self, fh, **kw):
            self.w, self.count = real_writer(fh, **kw), 0

        def writerow(self, row):
            self.count += 1
            if self.count > 4:
                raise RuntimeError("stopped mid-write")
            self.w.writerow(row)

    library.csv.writer = Stopping
    try:
        with pytest.raises(RuntimeError, match="stopped mid-write"):
            library.write_name_map(names, path)
    finally:
        library.csv.writer = real_writer
    assert path.read_bytes() == before
    assert library.read_name_map(path)["C49"] == ("col", "w[49]")
    assert [p.name for p in tmp_path.iterdir()] == ["m.names.csv"], "a temporary file was left behind"


def test_every_library_writer_refuses_a_read_only_file(tmp_path, monkeypatch):
    # write_model refused a read-only file (writing into it is refused; the rename would replace it), but
    # write_fixed_mps and write_name_map, moved onto the same temporary-file rename, replaced one (faked
    # read-only: root may write anyway)
    import bilevel.export

    names = {"obj": ("OBJ", "obj"), "col": [("C0", "w[0]")], "row": [("R0", "c0")]}
    path = library.write_name_map(names, tmp_path / "m.names.csv")
    before = path.read_bytes()
    monkeypatch.setattr(bilevel.export.os, "access", lambda p, mode: Path(p).name != "m.names.csv")
    with pytest.raises(library.InputError, match="m.names.csv.*permission denied"):
        library.write_name_map({**names, "col": []}, path)
    assert path.read_bytes() == before
    rows = library.read_manifest(MANIFEST)[:1]
    manifest = library.write_manifest(rows, tmp_path / "manifest.csv")
    monkeypatch.setattr(bilevel.export.os, "access", lambda p, mode: Path(p).name != "manifest.csv")
    with pytest.raises(library.InputError, match="permission denied"):
        library.write_manifest(rows + rows, manifest)
    assert len(library.read_manifest(manifest)) == 1


def test_a_manifest_rewrite_keeps_a_link_and_the_permissions(tmp_path):
    # the atomic rename replaced a symlinked manifest by a plain file, and gave it the umask's permissions
    rows = library.read_manifest(MANIFEST)[:2]
    real = library.write_manifest(rows, tmp_path / "real" / "manifest.csv")
    real.chmod(0o640)
    link = tmp_path / "manifest.csv"
    link.symlink_to(real)
    library.write_manifest(rows[:1], link)
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert [r["id"] for r in library.read_manifest(real)] == [rows[0]["id"]]
    assert real.stat().st_mode & 0o777 == 0o640


def test_a_manifest_path_that_cannot_be_written_is_an_input_error(tmp_path):
    (tmp_path / "a_folder").mkdir()
    (tmp_path / "a_file").write_text("x")
    with pytest.raises(library.InputError, match="cannot write"):  # was a bare IsADirectoryError
        library.write_manifest([], tmp_path / "a_folder")
    with pytest.raises(library.InputError, match="cannot create the folder"):  # was a FileExistsError
        library.write_manifest([], tmp_path / "a_file" / "manifest.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "a_folder"]


def test_manifest_sizes_match_what_highs_reads_from_the_files():
    for r in rows():
        for kind in ("mps", "lp"):
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            assert h.readModel(str(MODELS / r[kind])) == highspy.HighsStatus.kOk
            lp = h.getLp()
            n_bin = sum(t == highspy.HighsVarType.kInteger for t in lp.integrality_)
            assert (lp.num_col_, n_bin) == (r["columns"], r["binaries"]), (r["id"], kind)
            if kind == "mps":
                assert (lp.num_row_, len(lp.a_matrix_.value_)) == (r["rows"], r["nonzeros"]), r["id"]
                assert np.all(np.asarray(lp.col_lower_)[np.asarray(lp.integrality_)
                                                        == highspy.HighsVarType.kInteger] == 0)


def test_every_instance_has_a_highs_result_and_open_ones_a_bound():
    for r in library.read_manifest(MANIFEST):
        assert r["highs_status"] is not None, f"{r['id']} was never solved: {REGENERATE}"
        if r["highs_status"] == "optimal":
            assert r["highs_objective"] is not None and r["verified"] is True, r["id"]
            assert r["highs_gap"] <= 1e-4 and r["highs_best_bound"] <= r["highs_objective"] + 1e-9
        else:  # open instances are marked with their best bound (and gap when there is an incumbent)
            assert r["highs_best_bound"] is not None, r["id"]
            if r["highs_objective"] is not None:
                assert r["highs_gap"] is not None and r["highs_best_bound"] <= r["highs_objective"] + 1e-9
    committed = rows()
    assert all(r["highs_status"] == "optimal" for r in committed), "committed instances must be solved to optimality"


def test_committed_set_is_small():
    total = sum((MODELS / r[k]).stat().st_size for r in rows() for k in ("mps", "lp", "names"))
    assert total < 3_000_000, f"committed instances take {total} bytes"
    gitignore = (MODELS / ".gitignore").read_text().split()
    assert "large/" in gitignore


# ------------------------------------------------------------------------------------ regeneration


def test_regenerating_the_committed_instances_reproduces_them(tmp_path):
    """Byte for byte, or, where the bytes differ, the same model up to round-off (documented in
    models/README.md: other numpy/scipy builds or HiGHS versions may change last digits). A real difference
    means the formulation changed: re-run the export command."""
    changed, roundoff = [], []
    manifest = by_id()
    for spec in library.library_specs(sizes=[n for n in library.SIZES if n <= library.SMALL_MAX]):
        row = library.write_instance(spec, tmp_path)
        old = manifest[spec.id]
        for kind in ("mps", "lp", "names"):
            if row[f"{kind}_sha256"] == old[f"{kind}_sha256"]:
                continue
            if kind == "names":
                changed.append(f"{spec.id}.names.csv: the variables or rows changed")
                continue
            diffs = library.instance_differences(MODELS / old[kind], tmp_path / row[kind])
            (changed if diffs else roundoff).append(f"{spec.id}.{kind}: {'; '.join(diffs) or 'round-off only'}")
    assert not changed, (
        "the committed instance files no longer match the current formulation. If the formulation change is "
        f"intended, re-run `{REGENERATE}`.\n" + "\n".join(changed)
    )
    if roundoff:
        pytest.skip("bytes differ by round-off only (documented): " + "; ".join(roundoff))


def test_instance_differences_detects_a_changed_coefficient(tmp_path):
    spec = library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5)
    library.write_instance(spec, tmp_path)
    path = tmp_path / f"{spec.id}.mps"
    text = path.read_text().splitlines()
    k = next(i for i, line in enumerate(text) if line.startswith("    C5 ") and "OBJ" not in line)
    fields = text[k].split()
    text[k] = text[k].replace(fields[2], library.mps_number(float(fields[2]) * 1.001))
    changed = tmp_path / "changed.mps"
    changed.write_text("\n".join(text) + "\n")
    assert library.instance_differences(path, path) == []
    diffs = library.instance_differences(path, changed)
    assert diffs and "matrix values differ in 1 entries" in diffs[0]


def test_generation_is_deterministic(tmp_path):
    spec = library.InstanceSpec("cancer", "pessimistic", 0.2, 5, 5)
    a = library.write_instance(spec, tmp_path / "a")
    b = library.write_instance(spec, tmp_path / "b")
    assert {k: a[k] for k in a if k.endswith("sha256")} == {k: b[k] for k in b if k.endswith("sha256")}


# ------------------------------------------------------------------------------------- conventions


def test_committed_mps_files_are_strict_fixed_mps():
    for r in rows():
        section = None
        for line in (MODELS / r["mps"]).read_text().splitlines():
            if line.startswith("*"):
                continue
            if not line.startswith(" "):
                section = line.split()[0]
                continue
            assert "\t" not in line and len(line) <= 61 or "'MARKER'" in line, line
            if section == "ROWS":
                assert line[1:3].strip() in ("N", "L", "G", "E") and line[3] == " " and len(line[4:]) <= 8
            elif section in ("COLUMNS", "RHS", "RANGES", "BOUNDS"):
                if "'MARKER'" in line:
                    assert line[14:22] == "'MARKER'" and line[39:47] in ("'INTORG'", "'INTEND'")
                    continue
                f2, f3, f4 = line[4:12], line[14:22], line[24:36]
                assert line[1:3].strip() in ("", "UP", "LO", "FX", "FR", "MI", "PL", "BV")
                assert line[12:14] == "  " and line[22:24] == "  " and len(line) <= 36, line
                assert " " not in f2.strip() and " " not in f3.strip()
                if f4.strip():
                    float(f4)


def test_fixed_and_free_mps_parsers_read_the_same_model(tmp_path):
    path = MODELS / by_id()["cancer-pes-e0.2-n5-s0"]["mps"]
    models = []
    for free in (True, False):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mps_parser_type_free", free)
        assert h.readModel(str(path)) == highspy.HighsStatus.kOk
        lp = h.getLp()
        models.append((lp.num_row_, lp.num_col_, list(lp.col_upper_), list(lp.a_matrix_.value_)))
    assert models[0] == models[1]


def test_mps_and_lp_files_hold_the_same_model():
    """The .mps (short names, numbers rounded to 12 characters) and the .lp (readable names, full
    precision) of an instance: same sizes, and the same optimum when solved independently."""
    r = by_id()["diabetes-opt-n10-s0"]
    mps, lp = (library.read_instance_arrays(MODELS / r[k]) for k in ("mps", "lp"))
    assert mps["A"].shape == lp["A"].shape and mps["integer"].sum() == lp["integer"].sum()
    names = library.read_name_map(MODELS / r["names"])
    assert names["C0"][0] == "col" and names["OBJ"] == ("obj", "validation_hinge")
    readable = {n for k, n in names.values() if k == "col"}
    assert {"b", "w_bar[0]", "w[0]"} <= readable and len(readable) == r["columns"]
    assert {n.replace("(", "[").replace(")", "]") for n in lp["col_names"]} == readable
    assert highs_solve(MODELS / r["lp"])[1] == pytest.approx(highs_solve(MODELS / r["mps"])[1], rel=1e-8)


@pytest.mark.parametrize("value", [0.0, 1.0, -1.0, 0.1, -0.2, 1 / 3, 19.597435651234567, -7.68490652708354e-07,
                                   1.2345678901234e+200, -9.87654321e-300, 123456789012.5, 5e-324,
                                   -999_999_999_999.0, -123_456_789_012.0, 99_999_999_999.0])
def test_mps_number_fits_12_characters_and_keeps_precision(value):
    text = library.mps_number(value)
    assert len(text) <= 12 and " " not in text
    back = float(text)
    if value == 0 or abs(value) < 1e-300:
        assert abs(back - value) <= abs(value)
    else:
        assert abs(back - value) <= 1e-4 * abs(value)
    if 1e-4 <= abs(value) < 1e4:
        assert abs(back - value) <= 5e-10 * abs(value)


def test_mps_number_rejects_non_finite():
    with pytest.raises(library.InputError):
        library.mps_number(float("inf"))


def test_fixed_mps_writer_handles_every_bound_and_row_kind(tmp_path):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(None, None))            # free
    m.y = pyo.Var(bounds=(-3.5, -1.25))           # negative upper bound
    m.z = pyo.Var(bounds=(None, 4.0))             # -inf lower bound
    m.k = pyo.Var(domain=pyo.Integers, bounds=(-2, 7))
    m.f = pyo.Var(bounds=(2.0, 2.0))              # fixed by bounds
    m.u = pyo.Var(domain=pyo.Binary)              # appears only in the objective
    m.r = pyo.Constraint(expr=pyo.inequality(-1.0, m.x + 2 * m.y - m.k, 5.0))   # ranged
    m.e = pyo.Constraint(expr=m.x - m.z + m.f == 0.5)
    m.g = pyo.Constraint(expr=m.k + m.y >= -10)
    m.obj = pyo.Objective(expr=m.x + m.z - 0.3 * m.k + m.u + 0 * m.f)
    mm = library.mps_model(m)
    path = tmp_path / "t.mps"
    library.write_fixed_mps(mm, path)
    got = library.read_instance_arrays(path)
    assert np.array_equal(got["col_lower"], mm.col_lower) and np.array_equal(got["col_upper"], mm.col_upper)
    assert np.array_equal(got["row_lower"], mm.row_lower) and np.array_equal(got["row_upper"], mm.row_upper)
    assert np.array_equal(got["integer"], mm.integer) and np.allclose(got["cost"], mm.cost)
    assert np.allclose(got["A"].toarray(), mm.A.toarray())
    status, obj = highs_solve(path)
    from bilevel import solve_model
    assert status == "Optimal" and obj == pytest.approx(solve_model(m).objective, abs=1e-9)


def test_fixed_mps_writer_refuses_what_readers_disagree_on(tmp_path):
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(0, 1))
    m.c = pyo.Constraint(expr=m.x <= 1)
    m.obj = pyo.Objective(expr=m.x + 1.0)
    with pytest.raises(library.InputError, match="constant"):
        library.mps_model(m)
    m.obj.deactivate()
    m.obj2 = pyo.Objective(expr=m.x, sense=pyo.maximize)
    with pytest.raises(library.InputError, match="minimisation"):
        library.mps_model(m)
    with pytest.raises(library.InputError):
        library.short_names("C", 10**8)


def _parse_fixed_mps(path):
    """An independent reader of the fixed MPS the library writes (the MPS standard's rules: an ``L`` row with
    RANGES R is [rhs - |R|, rhs], ``G`` [rhs, rhs + |R|]; ``MI`` lower -inf, ``FR`` both infinite): returns
    the row bounds by name, the column bounds by name and the bound type of each BOUNDS line."""
    kinds, rhs, rng, col_lo, col_up, bound_types, section = {}, {}, {}, {}, {}, {}, None
    for line in Path(path).read_text().splitlines():
        if not line.startswith(" "):
            section = line.split()[0]
            continue
        f = line.split()
        if section == "ROWS":
            kinds[f[1]] = f[0]
        elif section == "COLUMNS" and "'MARKER'" not in line:
            col_lo.setdefault(f[0], 0.0)
            col_up.setdefault(f[0], np.inf)
        elif section == "RHS":
            rhs[f[1]] = float(f[2])
        elif section == "RANGES":
            rng[f[1]] = float(f[2])
        elif section == "BOUNDS":
            kind, col = f[0], f[2]
            bound_types.setdefault(col, []).append(kind)
            if kind == "FR":
                col_lo[col], col_up[col] = -np.inf, np.inf
            elif kind == "MI":
                col_lo[col] = -np.inf
            elif kind in ("LO", "UP", "FX"):
                v = float(f[3])
                if kind in ("LO", "FX"):
                    col_lo[col] = v
                if kind in ("UP", "FX"):
                    col_up[col] = v
    rows = {}
    for name, kind in kinds.items():
        if kind == "N":
            continue
        b, r = rhs.get(name, 0.0), rng.get(name)
        lo, up = {"L": (-np.inf, b), "G": (b, np.inf), "E": (b, b)}[kind]
        if r is not None:
            lo, up = (b - abs(r), b) if kind == "L" else (b, b + abs(r)) if kind == "G" else \
                ((b, b + r) if r > 0 else (b + r, b))
        rows[name] = (lo, up)
    return rows, col_lo, col_up, bound_types


def test_fixed_mps_writer_ranges_and_free_columns_read_back(tmp_path):
    """A row with two finite sides is written as ``L`` with a RANGES entry, a free column as ``FR`` (mutation
    testing: the RANGES lines dropped or their value doubled, and ``MI`` for ``FR``, all passed the suite, as
    Pyomo models never reach the RANGES branch: the standard-form compiler splits a ranged constraint in two).
    Checked with an independent reader of the file, HiGHS reading it, and scipy's milp on the original arrays."""
    import scipy.sparse as sp
    from scipy.optimize import LinearConstraint, milp

    A = sp.csc_matrix(np.array([[1.0, 2.0, -1.0], [1.0, -1.0, 0.0], [0.0, 1.0, 1.0]]))
    mm = library.MpsModel(A=A, cost=np.array([1.0, -0.5, 0.25]), col_lower=np.array([-np.inf, -2.0, 0.0]),
                          col_upper=np.array([np.inf, 3.0, 4.0]), row_lower=np.array([-1.5, 0.25, 1.0]),
                          row_upper=np.array([5.0, np.inf, 2.75]), integer=np.array([False, True, False]),
                          col_names=["x", "k", "z"], row_names=["r1", "r2", "r3"], objective_name="obj")
    path = tmp_path / "ranged.mps"
    library.write_fixed_mps(mm, path)
    rows, col_lo, col_up, bound_types = _parse_fixed_mps(path)
    assert [rows[f"R{i}"] for i in range(3)] == [(-1.5, 5.0), (0.25, np.inf), (1.0, 2.75)]
    assert [col_lo[f"C{j}"] for j in range(3)] == [-np.inf, -2.0, 0.0]
    assert [col_up[f"C{j}"] for j in range(3)] == [np.inf, 3.0, 4.0]
    assert bound_types["C0"] == ["FR"]
    got = library.read_instance_arrays(path)
    assert np.array_equal(got["row_lower"], mm.row_lower) and np.array_equal(got["row_upper"], mm.row_upper)
    assert np.array_equal(got["col_lower"], mm.col_lower) and np.array_equal(got["col_upper"], mm.col_upper)
    ref = milp(mm.cost, constraints=LinearConstraint(A.toarray(), mm.row_lower, mm.row_upper),
               integrality=mm.integer.astype(int), bounds=(mm.col_lower, mm.col_upper))
    status, obj = highs_solve(path)
    assert ref.status == 0 and status == "Optimal" and obj == pytest.approx(ref.fun, abs=1e-9)


def test_name_map_labels_each_side_of_a_ranged_constraint_by_its_bound(tmp_path):
    """``lo <= x - k <= up`` is compiled into two rows; the name map called the ``<= up`` row ``r#lo`` and the
    ``>= lo`` row ``r#up`` (Pyomo's standard form marks an upper-bound row with bound_type +1). Each suffix must
    name the side the row read back from the file bounds."""
    m = pyo.ConcreteModel()
    m.x = pyo.Var(bounds=(None, None))
    m.k = pyo.Var(bounds=(0, 3))
    m.r = pyo.Constraint(expr=pyo.inequality(-1.0, m.x - m.k, 5.0))
    m.obj = pyo.Objective(expr=m.x)
    mm = library.mps_model(m)
    names = library.write_fixed_mps(mm, tmp_path / "r.mps")
    got = library.read_instance_arrays(tmp_path / "r.mps")
    sides = {}
    for short, name in names["row"]:
        i = got["row_names"].index(short)
        sides[name] = (got["row_lower"][i], got["row_upper"][i])
    assert sides == {"r#lo": (-1.0, np.inf), "r#up": (-np.inf, 5.0)}


def test_manifest_sizes_are_those_of_the_written_file(tmp_path):
    """``rows``, ``columns``, ``binaries``, ``nonzeros`` of a manifest row count the ``.mps`` file as HiGHS reads
    it (mutation testing: ``binaries`` = all columns and ``nonzeros`` + 1 passed the suite), for a written
    instance and for the committed tiny ones."""
    spec = library.InstanceSpec("cancer", "pessimistic", 0.2, 5, 5)
    written = library.write_instance(spec, tmp_path)
    committed = [r for r in rows() if r["n_train"] == 5]
    for row, folder in [(written, tmp_path)] + [(r, MODELS) for r in committed]:
        got = library.read_instance_arrays(folder / row["mps"])
        integer = got["integer"]
        assert (row["rows"], row["columns"]) == got["A"].shape, row["id"]
        assert row["binaries"] == int(integer.sum()), row["id"]
        assert np.all(got["col_lower"][integer] == 0) and np.all(got["col_upper"][integer] == 1), row["id"]
        assert row["nonzeros"] == int(np.count_nonzero(got["A"].toarray())), row["id"]


_TINY_LP = "minimize\n obj: {c} x + y{k}\nsubject to\n c1: x + y >= 1\nbounds\n 0 <= x <= 1\n 0 <= y <= 1\nend\n"


@pytest.mark.parametrize("cost, constant, expected", [
    ("1.0000001", "", "cost differs in 1 entries"),  # 1e-7 relative: above the default rtol 1e-9
    ("1.0000000000001", "", None),  # 1e-13: round-off
    ("1", " + 5", "objective sense or constant differs"),
])
def test_instance_differences_sees_a_cost_and_an_objective_constant(tmp_path, cost, constant, expected):
    """Two LP files of one model up to one objective cost or constant (mutation testing: the default rtol 1000
    times looser, or the constant not compared, passed the suite)."""
    (tmp_path / "a.lp").write_text(_TINY_LP.format(c="1", k=""))
    (tmp_path / "b.lp").write_text(_TINY_LP.format(c=cost, k=constant))
    diffs = library.instance_differences(tmp_path / "a.lp", tmp_path / "b.lp")
    if expected is None:
        assert diffs == []
    else:
        assert len(diffs) == 1 and diffs[0].startswith(expected), diffs


def test_the_test_fraction_switches_above_200_rows():
    """0.5 (the paper's) up to n_train + n_val = 200, so the |T| = |V| = 100 instances keep it, then 0.1."""
    assert library.default_test_fraction(100, 100) == 0.5 and library.default_test_fraction(100, 101) == 0.1
    assert library.InstanceSpec("cancer", "optimistic", 0.0, 100, 100).test_fraction == 0.5
    assert library.InstanceSpec("cancer", "optimistic", 0.0, 101, 100).test_fraction == 0.1


def test_instance_differences_detects_a_changed_integrality(tmp_path):
    """The same file without its MARKER lines is the LP relaxation: a different model (mutation testing: the
    integrality comparison switched off passed the suite)."""
    spec = library.InstanceSpec("diabetes", "optimistic", 0.0, 5, 5)
    library.write_instance(spec, tmp_path)
    path = tmp_path / f"{spec.id}.mps"
    relaxed = tmp_path / "relaxed.mps"
    lines = path.read_text().splitlines()
    relaxed.write_text("\n".join(line for line in lines if "'MARKER'" not in line) + "\n")
    n_int = int(library.read_instance_arrays(path)["integer"].sum())
    assert n_int > 0 and not library.read_instance_arrays(relaxed)["integer"].any()
    assert library.instance_differences(path, relaxed) == [f"integrality differs in {n_int} columns"]


# --------------------------------------------------------------------------------- re-solve in HiGHS


def _resolve(r):
    for kind in ("mps", "lp"):
        status, obj = highs_solve(MODELS / r[kind])
        assert status == "Optimal", (r["id"], kind)
        assert obj == pytest.approx(r["highs_objective"], rel=1e-4, abs=1e-6), (r["id"], kind)


@pytest.mark.parametrize("instance", [s.id for s in library.library_specs(sizes=(5,))])
def test_tiny_instances_resolve_from_file_to_the_manifest_objective(instance):
    _resolve(by_id()[instance])


@pytest.mark.slow
@pytest.mark.parametrize("instance", [s.id for s in library.library_specs(sizes=(10,))])
def test_small_instances_resolve_from_file_to_the_manifest_objective(instance):
    _resolve(by_id()[instance])


# --------------------------------------------------------------------------------------------- CLI


def test_export_library_command_writes_files_and_manifest(tmp_path, capsys):
    code = main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "diabetes-opt-*",
                 "--time-limit", "30"])
    assert code == 0
    out = library.read_manifest(tmp_path / "manifest.csv")
    assert [r["id"] for r in out] == ["diabetes-opt-n5-s0"]
    r = out[0]
    assert r["highs_status"] == "optimal" and r["verified"] is True
    assert r["mps_sha256"] == by_id()[r["id"]]["mps_sha256"], "regenerated file differs from the committed one"
    # a second run on another instance keeps the first row (merge), --no-solve leaves HiGHS fields empty
    assert main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "cancer-opt-*", "--no-solve"]) == 0
    out = {r["id"]: r for r in library.read_manifest(tmp_path / "manifest.csv")}
    assert set(out) == {"diabetes-opt-n5-s0", "cancer-opt-n5-s0"}
    assert out["cancer-opt-n5-s0"]["highs_status"] is None and out["diabetes-opt-n5-s0"]["highs_status"] == "optimal"
    assert "wrote 1 instances" in capsys.readouterr().out


def test_export_library_writes_a_repeated_size_or_data_set_once(tmp_path, capsys):
    """Bug: --sizes 5,5 --data cancer,cancer wrote (and, without --no-solve, solved) the same instance four
    times and reported 'wrote 4 instances' for a manifest of one row."""
    assert main(["export-library", "--out", str(tmp_path), "--sizes", "5,5", "--data", "cancer,cancer",
                 "--only", "cancer-opt-*", "--no-solve"]) == 0
    out = capsys.readouterr().out
    assert out.count("cancer-opt-n5-s0") == 1 and "wrote 1 instances" in out
    assert [r["id"] for r in library.read_manifest(tmp_path / "manifest.csv")] == ["cancer-opt-n5-s0"]


@pytest.mark.parametrize("args,match", [
    (["--only", "nothing-*"], "no library instance"),
    (["--max-size", "3"], "no sizes left"),
    (["--data", "iris"], "data set"),
    (["--data", ","], "names no data set"),
    (["--data", "cancer,,diabetes"], "--data has an empty item"),  # read as "cancer,diabetes" without a word
])
def test_export_library_bad_input_is_one_line_exit_2(args, match, tmp_path, capsys):
    code = main(["export-library", "--out", str(tmp_path), "--no-solve", *args])
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("rows,match", [
    ("foo,cancer,optimistic,foo.mps\nfoo,cancer,optimistic,bar.mps\n", "lists the instance id(s) 'foo' more than once"),
    ("foo,cancer,optimistic,foo.mps\n,cancer,optimistic,bar.mps\n", "line 3: the row has no id"),
    # the file's line, not the record count (blank lines before it), and an id of spaces is no id either
    ("\nfoo,cancer,optimistic,foo.mps\n\n  ,cancer,optimistic,bar.mps\n", "line 5: the row has no id"),
    ("foo,cancer,optimistic,foo.mps\n foo,cancer,optimistic,bar.mps\n", "line 3: the id ' foo' starts or ends"),
])
def test_export_library_refuses_an_existing_manifest_with_a_repeated_or_missing_id(tmp_path, capsys, rows, match):
    """Found by an audit: the last row of a repeated id replaced the others without a word (an optimal row lost), and
    a row without an id stopped the merge with a TypeError after the instance files were written."""
    manifest = tmp_path / "manifest.csv"
    manifest.write_text("id,data,mode,mps\n" + rows)
    before = manifest.read_bytes()
    code = main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "cancer-opt-*", "--no-solve"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and match in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.csv"] and manifest.read_bytes() == before


def test_export_library_names_a_manifest_that_is_a_folder(tmp_path, capsys):
    """A folder OUT/manifest.csv was reported as "manifest 'OUT/manifest.csv' not found", though it is there."""
    (tmp_path / "manifest.csv").mkdir()
    code = main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "cancer-opt-*", "--no-solve"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "is a folder, not a file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.csv"]  # refused before any instance was written
    with pytest.raises(library.InputError, match="not found"):
        library.read_manifest(tmp_path / "missing.csv")


@pytest.mark.parametrize("args,match", [
    (["--time-limit", "-1"], "--time-limit must be positive"),
    (["--time-limit", "nan"], "--time-limit must be positive"),
    (["--mip-gap", "2"], "--mip-gap must lie in [0, 1)"),
])
def test_export_library_bad_solve_settings_are_one_line_exit_2_before_any_write(args, match, tmp_path, capsys):
    code = main(["export-library", "--out", str(tmp_path / "lib"), "--sizes", "5", "--data", "cancer", *args])
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "lib").exists()


@pytest.mark.parametrize("args", [["--time-limit", "600"], ["--mip-gap", "0.01"],
                                  ["--time-limit", "600", "--mip-gap", "0.01"]])
def test_export_library_refuses_solve_settings_with_no_solve(args, tmp_path, capsys):
    """--no-solve solves nothing: --time-limit 600 and --mip-gap were ignored without a word (the manifest's HiGHS
    fields left empty, as if they had not been given)."""
    code = main(["export-library", "--out", str(tmp_path / "lib"), "--sizes", "5", "--only", "cancer-opt-*",
                 "--no-solve", *args])
    err = capsys.readouterr().err
    flags = [a for a in args if a.startswith("--")]
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{' and '.join(flags)} appl" in err and "--no-solve" in err
    assert not (tmp_path / "lib").exists()


@pytest.mark.parametrize("sizes", ["5,,10", "5,", ",5"])
def test_export_library_refuses_sizes_with_an_empty_item(sizes, tmp_path, capsys):
    """"--sizes 5,,10" was read as "5,10" without a word; argparse's error, and nothing is written."""
    with pytest.raises(SystemExit) as exc:
        main(["export-library", "--out", str(tmp_path / "lib"), "--no-solve", "--sizes", sizes])
    assert exc.value.code == 2 and f"without empty items, got {sizes!r}" in capsys.readouterr().err
    assert not (tmp_path / "lib").exists()


def test_instance_spec_rejects_bad_parameters():
    with pytest.raises(library.InputError):
        library.InstanceSpec("cancer", "pessimistic", 0.2, 5, 5, flip="margin")
    with pytest.raises(library.InputError):
        library.InstanceSpec("cancer", "pessimistic", -0.1, 5, 5)
    with pytest.raises(library.InputError):
        library.InstanceSpec("cancer", "bilevel", 0.0, 5, 5)
    with pytest.raises(library.InputError):
        library.read_manifest(ROOT / "nope.csv")
    with pytest.raises(library.InputError, match="optimistic instance has no epsilon"):
        library.InstanceSpec("cancer", "optimistic", 0.2, 5, 5)  # its id says nothing of epsilon


@pytest.mark.parametrize("other", [dict(epsilon=0.2000001), dict(lambda_bound=50.0), dict(w_bar_ub=2.0)])
def test_two_specs_with_one_id_are_refused_before_anything_is_written(other, tmp_path):
    # The id names the files and the manifest row but leaves these out (epsilon to 6 digits): the second spec
    # overwrote the first's files and row, and the manifest listed one of them with the other's files.
    first = library.InstanceSpec("cancer", "pessimistic", 0.2, 5, 5)
    second = library.InstanceSpec(**{**dataclasses.asdict(first), **other})
    assert first.id == second.id and first != second
    with pytest.raises(library.InputError, match="share the id"):
        library.export_library(tmp_path, [first, second], solve=False, log=lambda _: None)
    assert not any(tmp_path.iterdir())
    rows = library.export_library(tmp_path, [first, first], solve=False, log=lambda _: None)  # twice: once
    assert [r["id"] for r in rows] == [first.id]


# ------------------------------------------------------------------------------------------ lambda_max


def test_manifest_lambda_max_matches_the_built_instances():
    """The manifest's lambda_max is the built model's Lambda* (item 11 of bilevel.bigm): inf for epsilon = 0,
    empty for optimistic instances; checked on every instance up to |T| = |V| = 20."""
    finite = 0
    for r in library.read_manifest(MANIFEST):
        if max(r["n_train"], r["n_val"]) > 20:
            continue
        if r["mode"] == "optimistic":
            assert r["lambda_max"] is None, r["id"]
            continue
        built = library.build_instance(library.InstanceSpec.from_row(r))
        assert r["lambda_max"] == pytest.approx(built.model.bilevel_info["lambda_max"], rel=1e-9), r["id"]
        if r["epsilon"] == 0:
            assert r["lambda_max"] == np.inf, r["id"]
        finite += np.isfinite(r["lambda_max"])
    assert finite >= 1  # diabetes-pes-e0.2-n20-s0: the check below is not vacuous


def test_manifest_lambda_max_bounds_the_followers_multiplier():
    """On the instance with a finite lambda_max up to 20/20, scipy's multiplier of the follower's budget row
    (flipped validation hinge subject to training hinge <= (1 + epsilon) v*) stays below it on 30 boxes."""
    from oracles import lp

    r = by_id()["diabetes-pes-e0.2-n20-s0"]
    s = library.build_instance(library.InstanceSpec.from_row(r)).split
    Xt, yt, Xv, yv = s.X_train, s.y_train, s.X_val, s.y_val
    p = Xt.shape[1]
    rng = np.random.default_rng(0)
    lams = []
    for w_bar in [np.ones(p)] + [rng.uniform(0, 1, p) ** 2 for _ in range(29)]:
        v_star = lp(w_bar, (Xt, yt))
        _, lam = lp(w_bar, (Xv, -yv), [(Xt, yt, (1 + r["epsilon"]) * v_star)], duals=True)
        lams.append(float(lam[0]))
    assert np.isfinite(r["lambda_max"]) and max(lams) <= r["lambda_max"] * (1 + 1e-9)
    assert max(lams) > 0  # the budget binds on some box


def test_fixed_mps_writer_lists_a_column_whose_matrix_entries_are_stored_zeros(tmp_path):
    """A column with cost 0 whose only matrix entries are explicitly stored zeros (a CSC matrix may hold them)
    was left out of COLUMNS while its bounds were written: CBC ("No match for column C1") and CPLEX ("'C1' is
    not a column name") refused the file. min x s.t. x >= 1 with y in [-2, 3] unused: optimum 1 (linprog)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    from solvers import cbc

    A = sp.csc_matrix((np.array([1.0, 0.0]), np.array([0, 0]), np.array([0, 1, 2])), shape=(1, 2))
    assert A.nnz == 2 and A.count_nonzero() == 1
    mm = library.MpsModel(A=A, cost=np.array([1.0, 0.0]), col_lower=np.array([0.0, -2.0]),
                          col_upper=np.array([5.0, 3.0]), row_lower=np.array([1.0]), row_upper=np.array([np.inf]),
                          integer=np.array([False, False]), col_names=["x", "y"], row_names=["r"], objective_name="o")
    path = tmp_path / "zeros.mps"
    library.write_fixed_mps(mm, path)
    text = path.read_text()
    columns = text[text.index("COLUMNS"):text.index("RHS")]
    assert all(f" {c} " in columns for c in ("C0", "C1")), text
    optimum = linprog([1.0, 0.0], A_ub=[[-1.0, 0.0]], b_ub=[-1.0], bounds=[(0, 5), (-2, 3)]).fun
    got = library.read_instance_arrays(path)
    assert got["col_names"] == ["C0", "C1"] and np.array_equal(got["col_lower"], mm.col_lower)
    if cbc.available():
        result = cbc.solve(path)
        assert result.status == "optimal" and result.objective == pytest.approx(optimum), result


@pytest.mark.parametrize("bounds", [(0, None), (2, None), (-5, None), (None, None)])
def test_fixed_mps_writer_never_writes_an_integer_column_a_reader_caps_at_one(bounds, tmp_path):
    """An integer column without an upper bound was written ``PL`` (or ``MI``/``FR``), which HiGHS's fixed-format
    parser reads as [lower, 1]: min k s.t. k >= 2.5, k integer >= 0 read as infeasible where its optimum is 3. The
    writer now refuses such a column; whatever it writes, both HiGHS parsers must solve it to scipy's optimum."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    lo, up = bounds
    m = pyo.ConcreteModel()
    m.k = pyo.Var(domain=pyo.Integers, bounds=bounds)
    m.x = pyo.Var(bounds=(0, 10))
    m.c = pyo.Constraint(expr=m.k - m.x >= 2.5)
    m.c2 = pyo.Constraint(expr=m.k <= 7)
    m.obj = pyo.Objective(expr=m.k + 2 * m.x)
    oracle = milp([1.0, 2.0], constraints=[LinearConstraint([[1.0, -1.0], [1.0, 0.0]], [2.5, -np.inf], [np.inf, 7.0])],
                  bounds=Bounds([-np.inf if lo is None else lo, 0.0], [np.inf, 10.0]), integrality=[1, 0])
    assert oracle.status == 0 and oracle.fun == pytest.approx(3.0)
    path = tmp_path / "k.mps"
    try:
        library.write_fixed_mps(library.mps_model(m), path)
    except library.InputError as exc:
        assert "integer column k" in str(exc) and "upper bound" in str(exc)
        return
    for free in (True, False):  # what the old writer reached: the fixed parser read k <= 1
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mps_parser_type_free", free)
        assert h.readModel(str(path)) != highspy.HighsStatus.kError
        h.run()
        assert h.modelStatusToString(h.getModelStatus()) == "Optimal", free
        assert h.getInfo().objective_function_value == pytest.approx(oracle.fun), free


def test_fixed_mps_writer_takes_integer_and_continuous_columns_that_alternate_often(tmp_path):
    """Columns x_i in [0, 1] and binaries k_i declared in turn (a block per i) need one 'MARKER' line per switch;
    the 101st was named MARKER100 (9 characters) and the model refused. min sum x_i + 0.3 k_i s.t. x_i + k_i >=
    0.5: both HiGHS parsers solve the file to scipy's optimum."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    n = 60
    m = pyo.ConcreteModel()

    def block(b, i):
        b.x = pyo.Var(bounds=(0, 1))
        b.k = pyo.Var(domain=pyo.Binary)
        b.c = pyo.Constraint(expr=b.x + b.k >= 0.5)

    m.b = pyo.Block(range(n), rule=block)
    m.obj = pyo.Objective(expr=sum(m.b[i].x + 0.3 * m.b[i].k for i in range(n)))
    mm = library.mps_model(m)
    assert np.count_nonzero(np.diff(mm.integer.astype(int))) >= 100
    path = tmp_path / "alternating.mps"
    library.write_fixed_mps(mm, path)
    A = np.kron(np.eye(n), [1.0, 1.0])
    oracle = milp(np.tile([1.0, 0.3], n), constraints=LinearConstraint(A, 0.5, np.inf),
                  bounds=Bounds(0, 1), integrality=np.tile([0, 1], n))
    assert oracle.status == 0
    for free in (True, False):
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("mps_parser_type_free", free)
        assert h.readModel(str(path)) != highspy.HighsStatus.kError
        assert int(np.sum(np.asarray(h.getLp().integrality_) == highspy.HighsVarType.kInteger)) == n
        h.run()
        assert h.getInfo().objective_function_value == pytest.approx(oracle.fun), free


def test_a_manifest_with_a_column_named_twice_is_refused(tmp_path):
    """csv.DictReader keeps the last of two cells under one header name: a manifest with n_train twice (5, then 99)
    was read as n_train = 99 without a word, and select_rows(max_size=10) dropped the instance."""
    path = tmp_path / "manifest.csv"
    path.write_text("id,data,mode,mps,n_train,n_train,n_val\na,cancer,optimistic,a.mps,5,99,5\n", encoding="utf-8")
    with pytest.raises(library.InputError, match="n_train"):
        library.read_manifest(path)


@pytest.mark.parametrize("content,match", [
    (b"kind,short,name\ncol,C0,w[0]\ncol,C0,w[1]\n", "given twice"),  # w[1] silently replaced w[0]
    (b"kind,short,name\ncol,C0\n", "expected 3 cells"),  # read as name None
    (b"kind,short,name\ncol,C0,w[0],extra\n", "expected 3 cells"),  # the extra cell was dropped
    (b"kind,short,name\ncol,C0,w\xe9\n", "not a UTF-8"),  # a raw UnicodeDecodeError
])
def test_a_malformed_name_map_is_refused(tmp_path, content, match):
    """Found by the export hunt; oracle: Python's csv module reads these rows as written (a repeated key, a short
    row, a long row), and the Latin-1 byte is not UTF-8."""
    path = tmp_path / "x.names.csv"
    path.write_bytes(content)
    with pytest.raises(library.InputError, match=match):
        library.read_name_map(path)


def test_a_name_map_round_trips_names_outside_ascii(tmp_path):
    """write_name_map and read_name_map used the locale's encoding (now UTF-8, as the manifest); the names of a
    model may hold any text, commas and quotes included."""
    names = {"obj": ("OBJ", "validation_hinge"), "col": [("C0", "w[é]"), ("C1", 'β,"x"')], "row": [("R0", "ρ ≤ 1")]}
    path = library.write_name_map(names, tmp_path / "m.names.csv")
    assert path.read_bytes().decode("utf-8").count("é") == 1
    got = library.read_name_map(path)
    assert got == {"OBJ": ("obj", "validation_hinge"), "C0": ("col", "w[é]"), "C1": ("col", 'β,"x"'),
                   "R0": ("row", "ρ ≤ 1")}


@pytest.mark.parametrize("row,kwargs,match", [
    ({"id": "a", "n_train": None, "n_val": 5}, {"max_size": 10}, "no integer n_train and n_val"),
    ({"id": "a", "n_val": 5}, {"max_size": 10}, "no integer n_train and n_val"),
    ({"id": None, "n_train": 5, "n_val": 5}, {"patterns": ["cancer-*"]}, "has no id"),
])
def test_select_rows_refuses_a_row_without_what_the_selection_needs(row, kwargs, match):
    """read_manifest reads an empty cell as None; select_rows raised a raw TypeError / KeyError (export hunt)."""
    with pytest.raises(library.InputError, match=match):
        library.select_rows([row], **kwargs)
    assert library.select_rows([row]) == [row]  # nothing asked of the row: it is kept


@pytest.mark.parametrize("fn", [library.sha256, library.read_manifest, library.read_name_map,
                                library.read_instance_arrays, lambda p: library.write_manifest([], p),
                                lambda p: library.write_name_map({"obj": ("OBJ", "obj"), "col": [], "row": []}, p)])
@pytest.mark.parametrize("path", [None, 1.5, ["models"], True])
def test_a_path_that_is_not_a_str_or_path_is_named(fn, path):
    # pathlib's TypeError ("expected str, bytes or os.PathLike object"), and sha256(True) opened file descriptor 1
    with pytest.raises(library.InputError, match="must be a path"):
        fn(path)


def test_sha256_reads_no_file_descriptor_and_names_a_missing_file(tmp_path):
    # sha256(0) hashed stdin and closed it (open() reads an int as a file descriptor); a missing file was a
    # FileNotFoundError
    import os
    r, w = os.pipe()
    os.write(w, b"x")
    os.close(w)  # the old code read the pipe to its end: it must not block
    try:
        with pytest.raises(library.InputError, match="must be a path"):
            library.sha256(r)
        os.fstat(r)  # still open
    finally:
        try:
            os.close(r)
        except OSError:
            pass
    with pytest.raises(library.InputError, match="not a file"):
        library.sha256(tmp_path / "missing.mps")
    (tmp_path / "a.txt").write_bytes(b"abc")
    assert library.sha256(tmp_path / "a.txt") == hashlib.sha256(b"abc").hexdigest()


def test_select_rows_refuses_a_lone_string_and_bad_limits():
    # patterns="c*" was read as the patterns "c" and "*": every id matched
    rows = [{"id": "diabetes-opt-n5-s0", "n_train": 5, "n_val": 5, "committed": True}]
    assert library.select_rows(rows, ["c*"]) == []
    for kw in (dict(patterns="c*"), dict(patterns=[None]), dict(max_size="10"), dict(max_size=[]),
               dict(committed_only=np.array([True]))):
        with pytest.raises(library.InputError, match=next(iter(kw))):
            library.select_rows(rows, **kw)


def test_library_number_helpers_name_a_bad_argument():
    # raw TypeErrors (None + int, float(None)); short_names("C", -3) gave no names
    for call, match in [(lambda: library.short_names("C", -3), "n "),
                        (lambda: library.short_names("C", None), "n "),
                        (lambda: library.short_names(None, 2), "prefix"),
                        (lambda: library.default_test_fraction(None, 5), "n_train"),
                        (lambda: library.default_test_fraction(5, "5"), "n_val"),
                        (lambda: library.mps_number(None), "value"), (lambda: library.mps_number(True), "value"),
                        (lambda: library.lambda_max_of(None), "BuiltInstance"),
                        (lambda: library.solve_instance(None), "BuiltInstance")]:
        with pytest.raises(library.InputError, match=match):
            call()


@pytest.mark.parametrize("kw, match", [
    (dict(time_limit=-1.0), "time_limit"), (dict(time_limit=float("nan")), "time_limit"),
    (dict(mip_gap=-0.5), "mip_gap"), (dict(mip_gap=2.0), "mip_gap"), (dict(mip_gap=None), "mip_gap")])
def test_solve_settings_are_checked_before_any_instance_is_built(kw, match, tmp_path, monkeypatch):
    # HiGHS refused such options with a warning, solved with its defaults, and the manifest recorded the bad value
    monkeypatch.setattr(library, "build_instance", lambda spec: pytest.fail("built before the check"))
    spec = library.library_specs(sizes=(5,), datasets=("cancer",), modes=(("optimistic", 0.0),))[0]
    with pytest.raises(library.InputError, match=match):
        library.export_library(tmp_path, specs=[spec], log=lambda *a: None, **kw)
    with pytest.raises(library.InputError, match=match):
        library.solve_instance(object(), **kw)


@pytest.mark.parametrize("names", [{}, None, {"w_bar(0)": "x1"}, {"obj": "OBJ", "col": [], "row": []}])
def test_write_name_map_names_a_map_of_another_shape(names, tmp_path):
    # a KeyError ('obj') or TypeError from inside the write
    with pytest.raises(library.InputError, match="names must be the name map"):
        library.write_name_map(names, tmp_path / "a.names.csv")
    assert not (tmp_path / "a.names.csv").exists()


def test_library_specs_checks_its_grid():
    """library_specs(sizes=5) was a raw TypeError, sizes=['a'] a raw ValueError, datasets='cancer' read as the data
    sets 'c', 'a', ... and modes of another shape a raw unpacking error: all are InputErrors naming the argument.
    Oracle: the grid itself (every size x data set x mode)."""
    from bilevel.errors import InputError
    from bilevel.library import library_specs

    for kw, match in ((dict(sizes=5), "sizes"), (dict(sizes=["a"]), "sizes"), (dict(sizes=[1]), "sizes"),
                      (dict(datasets="cancer"), "datasets"), (dict(modes=[("optimistic",)]), "modes"),
                      (dict(modes=[("pessimistic", "x")]), "epsilon of mode")):
        with pytest.raises(InputError, match=match):
            library_specs(**kw)
    specs = library_specs(sizes=[5, 10], datasets=["cancer"], modes=[("optimistic", 0), ("pessimistic", 0.2)])
    assert [(s.n_train, s.mode, s.epsilon) for s in specs] == [(5, "optimistic", 0.0), (5, "pessimistic", 0.2),
                                                               (10, "optimistic", 0.0), (10, "pessimistic", 0.2)]


def test_export_library_reports_unverified_instances_on_stderr_in_one_line(tmp_path, capsys, monkeypatch):
    """The failure line went to stdout (exit code 1), unlike every other failure of the bilevel commands."""
    def export(out, specs, **kw):
        return [{"id": s.id, "verified": False} for s in specs]
    monkeypatch.setattr(library, "export_library", export)
    assert main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "cancer-opt-*"]) == 1
    captured = capsys.readouterr()
    assert "NOT verified" not in captured.out
    (line,) = captured.err.strip().splitlines()
    assert line == "bilevel export-library: error: NOT verified: cancer-opt-n5-s0"


def test_an_instance_is_built_from_the_built_in_set_beside_a_file_of_that_name(tmp_path, monkeypatch):
    """An instance's data is a built-in name (InstanceSpec checks it), but build_instance went through
    load_dataset, which refuses the str 'cancer' as ambiguous when the working directory holds a file 'cancer'
    (since a8760b7): export-library and check_solution failed there. The instance is the one built elsewhere."""
    spec = next(s for s in library.library_specs(sizes=(10,)) if s.data == "cancer")
    elsewhere = library.build_instance(spec)
    (tmp_path / "cancer").write_text("a,y\n1,0\n2,1\n")
    monkeypatch.chdir(tmp_path)
    here = library.build_instance(spec)
    np.testing.assert_array_equal(here.split.X_train, elsewhere.split.X_train)
    np.testing.assert_array_equal(here.split.y_val, elsewhere.split.y_val)
    from bilevel.datasets import load_dataset
    from bilevel.errors import InputError

    with pytest.raises(InputError, match="names both a built-in data set and a file"):  # a user's str: refused
        load_dataset("cancer")


@pytest.mark.parametrize("kw, match", [
    (dict(comments=["x\nROWS"]), "comments"), (dict(comments="hello"), "comments"), (dict(comments=[3]), "comments"),
    (dict(title="A\nROWS"), "title"), (dict(title="TWO WORDS"), "title"), (dict(title=7), "title"),
    (dict(title=""), "title"), (dict(mm=None), "MpsModel")])
def test_write_fixed_mps_refuses_a_bad_title_comment_or_model_by_name(tmp_path, kw, match):
    # A line break in a comment or the title started a new line of the file (read as a section), a str as
    # comments wrote one comment per character, and a non-MpsModel raised an AttributeError.
    import scipy.sparse as sp

    mm = library.MpsModel(A=sp.csc_matrix(np.array([[1.0]])), cost=np.array([1.0]), col_lower=np.array([0.0]),
                          col_upper=np.array([1.0]), row_lower=np.array([0.5]), row_upper=np.array([np.inf]),
                          integer=np.array([False]), col_names=["x"], row_names=["r"], objective_name="o")
    args = dict(mm=mm, path=tmp_path / "m.mps")
    args.update(kw)
    with pytest.raises(library.InputError, match=match):
        library.write_fixed_mps(**args)
    assert not (tmp_path / "m.mps").exists()
    library.write_fixed_mps(mm, tmp_path / "m.mps", title="OK", comments=["one line"])
    assert library.read_instance_arrays(tmp_path / "m.mps")["col_names"] == ["C0"]


def test_solve_instance_checks_highs_infeasible_without_presolve(tmp_path):
    """HiGHS 1.15.1's presolve calls a feasible pessimistic MILP (epsilon 0.2, features of scale 1e-7) infeasible;
    solve_instance recorded that as the manifest's status, so every solver that found the optimum would DISAGREE
    with it. The oracle: SCIP on the exported file when installed, else bilevel.solve_model (which checks the claim
    itself); both find a feasible optimum."""
    from bilevel import build_pessimistic_model, solve_model, write_model
    from solvers import scip

    rng = np.random.default_rng(8)
    while True:
        X = rng.normal(size=(9, 3)) * 1e-7
        y = np.where(rng.random(9) < 0.5, -1, 1)
        if len(set(y[:6])) == 2:
            break
    model = build_pessimistic_model(X[:6], y[:6], X[6:], y[6:], np.arange(3), 0.2)
    spec = library.InstanceSpec("cancer", "pessimistic", 0.2, 5, 5)
    row = library.solve_instance(library.BuiltInstance(spec, model, None, np.arange(3)), time_limit=60)
    if scip.available():
        path = write_model(model, tmp_path / "tiny.mps")
        oracle = scip.solve(path, time_limit=60, mip_gap=1e-9)
        assert oracle.status == "optimal"
        optimum = oracle.objective
    else:
        optimum = solve_model(model, mip_gap=1e-9, time_limit=60).objective
    assert row["highs_status"] == "optimal", row
    assert row["highs_objective"] == pytest.approx(optimum, rel=1e-5, abs=1e-6)


def test_from_row_keeps_a_lambda_bound_of_zero_rather_than_the_default():
    """``row.get("lambda_bound") or 1000.0`` read a manifest's lambda_bound 0 as the default 1000, so a row that
    cannot be built was rebuilt as another instance; only an empty cell (optimistic rows) means the default."""
    r = dict(by_id()["diabetes-pes-e0.2-n20-s0"])
    assert library.InstanceSpec.from_row(r).lambda_bound == r["lambda_bound"]
    assert library.InstanceSpec.from_row({**r, "lambda_bound": None}).lambda_bound == 1000.0
    zero = library.InstanceSpec.from_row({**r, "lambda_bound": 0.0})
    assert zero.lambda_bound == 0.0
    with pytest.raises(library.InputError, match="lambda"):
        library.build_instance(zero)


@pytest.mark.parametrize("rows", ["a", {"id": "a"}, 3, None, [1, 2], [{"id": "a"}, "b"]],
                         ids=["str", "dict", "int", "None", "numbers", "mixed"])
def test_rows_that_are_not_manifest_rows_are_an_input_error(rows, tmp_path):
    """``select_rows`` and ``write_manifest`` raised TypeError or AttributeError ("'int' object has no attribute
    'get'", "'str' object has no attribute 'get'") from inside for rows that are not dicts."""
    with pytest.raises(library.InputError, match="rows must be a list of manifest rows"):
        library.select_rows(rows)
    with pytest.raises(library.InputError, match="rows must be a list of manifest rows"):
        library.write_manifest(rows, tmp_path / "manifest.csv")
    assert list(tmp_path.iterdir()) == []


def test_manifest_errors_name_the_files_line_past_blank_lines(tmp_path):
    """read_manifest counted records, not lines: a bad row after two blank lines was "line 3" (found by an audit)."""
    path = tmp_path / "manifest.csv"
    path.write_text("id,data,mode,mps,n_train\n\n\nfoo,cancer,optimistic,foo.mps,x\n")
    with pytest.raises(library.InputError, match=r"line 4: column 'n_train' must hold an integer"):
        library.read_manifest(path)


@pytest.mark.parametrize("cell,match", [("", "line 4: the row has no id"), ("   ", "line 4: the row has no id"),
                                        ("a ", r"line 4: the id 'a ' starts or ends with a space"),
                                        ("\ta", r"line 4: the id '\\ta' starts or ends with a space")])
def test_read_manifest_refuses_an_id_cell_that_names_no_instance_exactly(tmp_path, cell, match):
    """One check for every reader of a manifest (export-library and compare each numbered rows by their record
    count, so a row after a blank line was named a line too early; an id with a space around it was accepted and
    no pattern without that space selected it)."""
    path = tmp_path / "manifest.csv"
    path.write_text(f"id,data,mode,mps\n\nb,cancer,optimistic,b.mps\n{cell},cancer,optimistic,x.mps\n")
    with pytest.raises(library.InputError, match=match):
        library.read_manifest(path)
    path.write_text("id,data,mode,mps\n\nb,cancer,optimistic,b.mps\na,cancer,optimistic,x.mps\n")
    assert [r["id"] for r in library.read_manifest(path)] == ["b", "a"]


def test_check_unique_ids_names_every_repeated_id():
    rows = [{"id": "a"}, {"id": "b"}, {"id": "a"}, {"id": "c"}, {"id": "b"}]
    with pytest.raises(library.InputError, match=r"'m.csv' lists the instance id\(s\) 'a', 'b' more than once; fix"):
        library.check_unique_ids("m.csv", rows, "fix")
    library.check_unique_ids("m.csv", rows[:2] + rows[3:4], "fix")  # no repeat: nothing raised


@pytest.mark.parametrize("read,what", [(library.read_manifest, "manifest"), (library.read_name_map, "name map"),
                                       (library.read_instance_arrays, "instance file")])
def test_the_readers_name_a_folder_a_device_and_a_missing_file_apart(tmp_path, read, what):
    """/dev/null (it exists) was reported "not found"; a folder was "not found" for the name map and instance."""
    with pytest.raises(library.InputError, match=f"{what} '/dev/null' is not a regular file"):
        read("/dev/null")
    with pytest.raises(library.InputError, match=f"{what} .* is a folder, not a file"):
        read(tmp_path)
    with pytest.raises(library.InputError, match=f"{what} .*nothing.csv' not found"):
        read(tmp_path / "nothing.csv")
