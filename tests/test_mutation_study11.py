"""Mutation study 11 of the UCI study's configuration, work units and record files (experiments/uci_study.py, other
than its tables and plots): each test kills a mutant that passed the tests of that module, against the documented
behaviour (the module's and its functions' docstrings, the README's "Reproducing the UCI study" section) and an
independent oracle (a hand-counted grid, a hand-written record or CSV file, a file's own header)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from bilevel.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from experiments import uci_study as us  # noqa: E402


def _csv(path: Path) -> Path:
    """A small two-class CSV data set whose last column is ``y`` (12 rows, 6 of each class)."""
    rows = [f"{i},{(i * 7) % 5},{'1' if i % 2 else '-1'}" for i in range(12)]
    path.write_text("a,b,y\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("field", ["runs", "perturbed_runs"])
def test_zero_runs_are_refused(field):
    """check_config refuses "runs < 1": a study of zero runs of a cell is no study (and its grid reads as empty)."""
    with pytest.raises(InputError, match=f"{field} must be >= 1"):
        us.StudyConfig(**{field: 0})


@pytest.mark.parametrize("overrides", [dict(train_sizes=(1, 5)), dict(perturbed_n_train=1)])
def test_a_training_size_of_one_is_refused(overrides):
    """check_config refuses training sizes < 2 (limited and perturbed study alike): a stratified training set of
    one row holds one class only, so every such unit would fail."""
    with pytest.raises(InputError, match=r"\|T\| >= 2|training sizes must be >= 2"):
        us.StudyConfig(**overrides)


def test_units_text_names_each_factor_of_the_count():
    """units_text: "N limited-data runs (runs R x |val_sizes| val_sizes x |train_sizes| train_sizes x D datasets)"
    and likewise for the perturbed study (perturbed_runs x rho_vals x epsilons x datasets), joined by "and"; the
    grid has factors of different lengths so that a factor named with another's length shows. Counted by hand:
    3 x 2 x 3 x 2 = 36 and 2 x 1 x 3 x 2 = 12."""
    cfg = us.StudyConfig(datasets=("cancer", "diabetes"), runs=3, val_sizes=(5, 10), train_sizes=(5, 10, 15),
                         perturbed_runs=2, rho_vals=(0.0,), epsilons=(0.0, 0.2, 0.4))
    assert us.unit_counts(cfg) == {"limited": 36, "perturbed": 12}
    assert us.units_text(cfg, us.unit_counts(cfg)) == (
        "36 limited-data runs (runs 3 x 2 val_sizes x 3 train_sizes x 2 datasets) and "
        "12 perturbed-data runs (perturbed_runs 2 x 1 rho_vals x 3 epsilons x 2 datasets)")


def test_the_largest_limited_cells_come_first():
    """build_tasks: "the limited-data study first, then the perturbed one, each largest first". A cell with at least
    as many validation and training rows as another, and more of one of them, is the larger (whatever the measure
    of size), so it comes first: the largest cell (|V| = 10, |T| = 15) is the first task, the smallest (5, 5) the
    last limited one, and every limited task comes before every perturbed one."""
    cfg = us.StudyConfig(datasets=("cancer",), runs=1, val_sizes=(5, 10), train_sizes=(5, 15, 10), perturbed_runs=1,
                         epsilons=(0.0,), rho_vals=(0.0,))
    tasks = us.build_tasks(cfg)
    assert [t["study"] for t in tasks] == ["limited"] * 6 + ["perturbed"]
    cells = [(t["n_val"], t["n_train"]) for t in tasks if t["study"] == "limited"]
    assert cells[0] == (10, 15) and cells[-1] == (5, 5)
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            assert not (b[0] >= a[0] and b[1] >= a[1]), (a, b)


def test_a_limited_run_id_names_its_validation_and_training_sizes():
    """A limited unit's run id names its cell as ``V<|V|>_T<|T|>`` (V the validation, T the training size, as the
    unit's coordinates (data set, |V|, |T|, run)): the cell |V| = 5, |T| = 10 is ``V5_T10``, not ``V10_T5``, the
    id of the other cell (whose record a resume would reuse for it)."""
    cfg = us.StudyConfig(datasets=("cancer",), studies=("limited",), runs=1, val_sizes=(5,), train_sizes=(10,))
    (task,) = us.build_tasks(cfg)
    assert (task["n_val"], task["n_train"]) == (5, 10)
    assert task["run_id"] == "limited__cancer__V5_T10__run0"


def test_a_solve_gets_the_studys_w_bar_bound_threads_and_clock(monkeypatch):
    """_solve runs bilevel.tune with the study's settings (StudyConfig: ``w_bar_ub`` "upper bound of every
    ``w_bar_j`` (lower 0)", ``threads`` per solve, ``clock``, ``time_limit``); a fake tune records what it is
    given, so no MILP is solved."""
    seen = {}

    def fake_tune(*args, **kw):
        seen.update(kw, kind=args[4])
        return "result"

    monkeypatch.setattr(us.bilevel, "tune", fake_tune)
    cfg = dict(w_bar_ub=0.5, time_limit=7.0, threads=2, clock="nodes")
    assert us._solve("optimistic", None, None, None, None, cfg) == "result"
    # (a configuration without ``solver``, one written before it existed, solves with HiGHS)
    assert seen == dict(kind="optimistic", w_bar_bounds=(0.0, 0.5), time_limit=7.0, threads=2, clock="nodes",
                        solver="highs")
    assert us._solve("optimistic", None, None, None, None, dict(cfg, clock="seconds", solver="cplex")) == "result"
    assert seen["solver"] == "cplex" and seen["clock"] == "seconds"


@pytest.mark.parametrize("field, values", [("rho_vals", (0.0, 0.3, 0.3)), ("epsilons", (0.2, 0.0, 0.2)),
                                           ("val_sizes", (5, 5))])
def test_a_value_listed_twice_is_refused(field, values):
    """check_config refuses a list that names a value twice (its units were computed again and counted twice), for
    every list of the grid: rho_vals as much as the others."""
    with pytest.raises(InputError, match=f"{field} lists .* more than once"):
        us.StudyConfig(**{field: values})


def test_a_files_splits_depend_on_its_name_with_its_suffix():
    """split_seed depends on "a file's name without its folder" and _data_name keeps "its suffix": ``x.csv`` from
    any folder is one name, ``x.txt`` is another file (other splits)."""
    assert us._data_name("/some/where/x.csv") == "x.csv"
    assert us.split_seed(0, "/some/where/x.csv", 0) == us.split_seed(0, "x.csv", 0) != us.split_seed(0, "x.txt", 0)


def test_a_files_slug_is_its_stem_and_eight_hex_digits(tmp_path):
    """_slug: a file is named "as its stem and 8 hex digits of a hash of its file name ... and of the file's
    bytes"."""
    slug = us._slug(str(_csv(tmp_path / "x.csv")))
    assert re.fullmatch(r"x-[0-9a-f]{8}", slug), slug


def test_the_appendix_rule_of_a_unit_reads_its_validation_and_training_sizes():
    """_flip_for under ``flip="appendix"``: Appendix A's rule for diabetes ("margin" when |T| > 20 and |V| > 15) on
    the unit's own sizes: |V| = 16, |T| = 21 is "margin", the transposed cell |V| = 21, |T| = 16 is "all"; another
    rule is used as given."""
    appendix = {"flip": "appendix"}
    assert us._flip_for({"dataset": "diabetes", "n_val": 16, "n_train": 21}, appendix) == "margin"
    assert us._flip_for({"dataset": "diabetes", "n_val": 21, "n_train": 16}, appendix) == "all"
    assert us._flip_for({"dataset": "diabetes", "n_val": 21, "n_train": 16}, {"flip": "margin"}) == "margin"


def test_a_limited_units_pessimistic_solve_uses_the_studys_flip_rule(monkeypatch):
    """The limited unit's pessimistic MILP is Eq. 25 with ``epsilon = 0`` and "the label flipping" of the study's
    rule, on the same split as the optimistic one: with ``flip="margin"`` the pessimistic solve gets
    ``flip="margin"``, ``epsilon=0`` and the unit's optimistic result. The pessimistic solve is replaced by a fake
    that records its arguments (and finds no solution); the tie re-solve fails at once (a recorded step error)."""
    cfg = us.StudyConfig(datasets=("cancer",), studies=("limited",), runs=1, val_sizes=(5,), train_sizes=(5,),
                         tie_criteria=("sum_w_bar",), time_limit=20.0, flip="margin", clock="nodes")
    (task,) = us.build_tasks(cfg)
    real, calls = us._solve, {}

    def recording(kind, *a, **kw):
        calls[kind] = kw
        if kind == "optimistic":
            calls["opt"] = real(kind, *a, **kw)
            return calls["opt"]
        return "no_solution"

    def no_tie_range(*a, **kw):
        raise us.SolverError("not run here")

    monkeypatch.setattr(us, "_solve", recording)
    monkeypatch.setattr(us.bilevel.ties, "optimistic_tie_range", no_tie_range)
    rec = us.run_unit(task)
    assert rec["error"] is None and rec["rows"][0]["flip"] == "margin"
    pes = calls["pessimistic"]
    assert pes["flip"] == "margin" and pes["epsilon"] == 0 and pes["optimistic"] is calls["opt"]


def test_a_perturbed_call_keeps_limited_runs_of_every_tie_criterion():
    """_fits: a limited unit stays in a folder that a call without the limited study runs in when that call "reuses
    it with some selection of the tie criteria" (``bilevel study --study perturbed`` refuses ``--tie-criteria``):
    a unit computed with both criteria (the hash of its hand-built record is that of the limited study with both)
    fits a perturbed-only call whatever its own tie criteria, so such a call neither refuses the folder nor
    recomputes it."""
    both = us.StudyConfig(datasets=("cancer",), studies=("limited",), tie_criteria=("sum_w_bar", "val_margin"))
    record = {"run_id": "limited__cancer__V5_T5__run0", "study": "limited", "config_hash": both.result_hash("limited"),
              "error": None, "coords": {"dataset": "cancer", "n_val": 5, "n_train": 5, "run": 0}, "rows": []}
    assert both.reuses(record)
    for crits in (("val_margin",), ("sum_w_bar",), ("val_margin", "sum_w_bar")):
        cfg = us.StudyConfig(datasets=("cancer",), studies=("perturbed",), tie_criteria=crits)
        assert us._fits(cfg, record), crits
    other_seed = us.StudyConfig(datasets=("cancer",), studies=("perturbed",), seed=1)
    assert not us._fits(other_seed, record)  # only the tie criteria are set aside, not the other settings


def test_a_refusal_reads_study_json_only_when_it_computed_the_record(tmp_path):
    """_settings_diff names the settings that differ "read from ``OUT/study.json`` when its configuration has the
    record's hash; otherwise the list of the settings that count": a study.json of seed 5 (another call's) beside
    a unit computed with seed 1 does not make a seed-0 call's refusal say "seed 5 there", while a study.json of
    seed 1 names the seed that differs."""
    base = us.StudyConfig(datasets=("cancer",), studies=("limited",))
    record = {"run_id": "limited__cancer__V5_T5__run0", "study": "limited",
              "config_hash": us.replace(base, seed=1).result_hash("limited"), "error": None,
              "coords": {"dataset": "cancer", "n_val": 5, "n_train": 5, "run": 0}, "rows": []}
    now = us.replace(base, seed=0)
    (tmp_path / "study.json").write_text(json.dumps({"config": us.replace(base, seed=5).to_dict()}))
    why = us._settings_diff(tmp_path, record, now)
    assert "there" not in why and why.startswith("seed, time limit")
    (tmp_path / "study.json").write_text(json.dumps({"config": us.replace(base, seed=1).to_dict()}))
    assert us._settings_diff(tmp_path, record, now) == "seed 1 there, 0 now"


@pytest.mark.parametrize("overrides, message", [(dict(studies=()), "study must be one of"),
                                                (dict(label="   "), "one line of printable text"),
                                                (dict(label="a\nb"), "one line of printable text")])
def test_no_study_and_a_blank_label_are_refused(overrides, message):
    """check_config refuses an empty list of studies ("unknown study", the message asks for one of them or both:
    a study of no study runs nothing) and a label that is not one line of printable text (StudyConfig: the label
    names the study run in the summaries' headings; a blank one heads them with nothing)."""
    with pytest.raises(InputError, match=message):
        us.StudyConfig(**overrides)


def test_a_perturbed_record_with_a_damaged_budget_does_not_fit_a_limited_call():
    """_fits of a perturbed unit in a call without the perturbed study: the unit's rho_test grid is read from its
    rows; rows whose budgets are not all numbers (a damaged record: ``null`` beside 0.0) give no grid, so the unit
    does not fit (check_resume then names it) rather than the comparison of None with a float raising a
    TypeError."""
    pert = us.StudyConfig(datasets=("cancer",), studies=("perturbed",), rho_tests=(0.0, 0.3))
    rows = [{"study": "perturbed", "run_id": "p", "dataset": "cancer", "rho_test": v} for v in (0.0, None)]
    record = {"run_id": "p", "study": "perturbed", "config_hash": pert.result_hash("perturbed"), "error": None,
              "coords": {"dataset": "cancer", "n_val": 10, "n_train": 10, "run": 0}, "rows": rows}
    limited = us.StudyConfig(datasets=("cancer",), studies=("limited",))
    assert us._fits(limited, record) is False


def test_an_old_perturbed_record_fits_a_limited_call_whatever_its_rho_test_order():
    """experiments.uci_study._fits: a perturbed unit written before the per-study hash carries the hash of all
    settings, in which ``rho_tests`` keep the order the study was given (StudyConfig.result_settings, study None);
    ``_fits`` rebuilt the grid from the unit's rows sorted only, so the unit of a ``--rho-test 0.6,0`` study, which
    its own call reuses, made every ``--study limited`` call refuse the folder. Found by mutation study 11."""
    old = us.StudyConfig(datasets=("cancer",), studies=("perturbed",), rho_tests=(0.6, 0.0))
    record = {"run_id": "p", "study": "perturbed", "error": None, "config_hash": old.result_hash(),
              "coords": {"dataset": "cancer", "n_val": 10, "n_train": 10, "run": 0},
              "rows": [{"study": "perturbed", "run_id": "p", "dataset": "cancer", "rho_test": v} for v in (0.6, 0.0)]}
    assert old.reuses(record)
    assert us._fits(us.StudyConfig(datasets=("cancer",), studies=("limited",)), record)
    # and a grid the record was not computed with still does not fit
    record["config_hash"] = us.StudyConfig(datasets=("cancer",), studies=("perturbed",),
                                                  rho_tests=(0.6, 0.1)).result_hash()
    assert not us._fits(us.StudyConfig(datasets=("cancer",), studies=("limited",)), record)
