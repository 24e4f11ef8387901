r"""The small-data UCI studies of *Hyperparameter Tuning Through Pessimistic Bilevel Optimization*
(Ustun, Xu, Zeng, Qian), Section 5.1 and Appendices A-B: pessimistic vs optimistic bilevel tuning of the
box-constrained LP-SVM over training / validation sizes (Section 5.1.1, Table A1) and under perturbed test
(and validation) data (Section 5.1.2, Tables A2-A3), with the spread over tied optimistic optima and two
grid-search baselines. Run it with ``bilevel study`` (:mod:`bilevel.study_cli`) or :func:`run_study`.

**Work units.** The study is a list of independent units (:func:`build_tasks`), each identified by a
deterministic ``run_id``; :func:`run_unit` computes one unit and returns a plain dict (never a Pyomo
model). The driver writes each finished unit at once to ``OUT/runs/<run_id>.json``, so an interrupted study
resumes where it stopped and a finished one is not recomputed. Units run in parallel on the local cores
(joblib/loky) or on a Dask cluster (``scheduler=``).

**Limited-data unit** ``(data set, |V|, |T|, run)``: stratified split (half of the rows are test, then
``|T|`` training and ``|V|`` validation rows, standardised on the non-test rows, :func:`bilevel.split_dataset`);
optimistic MILP (Eq. 21) and pessimistic MILP (Eq. 25, ``epsilon = 0``) on the same split, with the label
flipping of Appendix A (:func:`appendix_flip`); the tie spread of the optimistic optimum
(:func:`bilevel.ties.optimistic_tie_range`, for each secondary criterion, min and max); and the baselines
(:mod:`experiments.baseline`). One CSV row per unit.

**Perturbed-data unit** ``(data set, rho_val, epsilon, run)``: split with ``|T| = perturbed_n_train``,
``|V| = perturbed_n_val``; a soft linear SVM (C = 1) is trained on the training set as the attacker's
surrogate (:func:`experiments.attack.fit_surrogate_svm`). If ``rho_val > 0`` the validation points inside
the margin of the optimistic hyperplane fitted on the clean data are attacked with budget ``rho_val``
(second setting of Section 5.1.2; that MILP's outcome is in the ``clean_opt_*`` columns). If that MILP finds no
solution, the attacked validation set is undefined and the unit stops there: the MILPs and the baselines, which
are all fitted or selected on that set, are not run (``baselines_status`` says so; scoring the baselines on the
clean validation set would put a ``rho_val = 0`` result into a ``rho_val > 0`` cell). Then the optimistic MILP
is solved on the (perturbed) validation set,
the pessimistic MILP with ``epsilon``, and the *evaluated optimistic model* of Appendix B.1, Eq. (A1):
at the optimistic ``w_bar*``, the model minimising the flipped-label hinge loss on ``V_f`` among all models
whose training loss is at most ``(1 + epsilon) theta(w_bar*)`` (an LP, :func:`bilevel.hinge_lp`), which is
what the paper's "optimistic" columns for ``epsilon > 0`` report. For each ``rho_test``, the test points
inside the margin of the optimistic hyperplane are attacked (closed-form maximum-confidence attack,
:mod:`experiments.attack`) and every model is scored. One CSV row per unit and ``rho_test``.

**Reproducibility.** The split of run ``r`` of a data set comes from ``seed`` alone
(:func:`split_seed`): all sizes share the run's test set and the training sets are nested. HiGHS runs
with one thread per solve, and a HiGHS run on its own is deterministic. Two steps of :func:`bilevel.tune`
are triggered by elapsed time, though: the box search (after at least 1 s of a run) and the cutoff restarts
(after 2 s). A solve that takes longer than about a second can therefore return a different one of several
tied optima on a faster or busier machine: the optimal value is the same, the returned ``w_bar`` and test
accuracy can differ. A solve that hits ``time_limit`` keeps its incumbent and records its status; its
results depend on machine speed too. Every row records the package versions and the HiGHS version.
With ``solver`` Gurobi or CPLEX (``bilevel study --solver``) those solvers run the optimistic and pessimistic
MILPs and the tie re-solves, the box search runs once before each solve, and the rows add ``solver`` and the solver
package's version; the Eq. (A1) LPs stay on HiGHS.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import math
import numbers
import os
import platform
import re
import sys
import time
import traceback
import warnings
import zlib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

import bilevel
import bilevel.ties
from bilevel.datasets import OneClassTrainingError, check_split_sizes
from bilevel.errors import InputError, SolverError
from bilevel.export import markdown_cell, replace_atomically
from bilevel.solve import MAX_CONCURRENCY
from bilevel.tune import VERIFICATION_WARNING
from bilevel import other_solvers
from bilevel.validation import (MAX_EPSILON, MAX_W_BAR_UB, as_number, as_path, check_clock, check_positive,
                                check_writable_folder, is_integer, repeated_values, value_text)

_NOT_A_SCRIPT = ("experiments/uci_study.py is a module that `bilevel study` runs, not a script: run "
                 "`bilevel study --help` (or `.venv/bin/bilevel study --help`)")
if not __package__:  # run as a file: the relative imports below stopped with an ImportError traceback
    sys.exit(_NOT_A_SCRIPT)

from . import attack as attack_mod  # noqa: E402
from . import baseline as baseline_mod  # noqa: E402

STUDIES = ("limited", "perturbed")

#: Most work units (runs) a study may have, over both studies and all data sets: :func:`check_config` refuses more.
#: ``bilevel study --runs 1000000000`` was accepted and then built its task list with no output: 3.2e10 dicts of
#: 0.5 kB (16 TB), built in 9 us each (80 hours; measured on the default grid: 1e4 units 0.08 s / 5 MB, 1e5
#: 0.9 s / 53 MB, 1e6 8.9 s / 536 MB; 2.2 s since a run's split seed is computed once). A unit solves at least two
#: MILPs and writes one record file into ``OUT/runs``: 0.25-0.6 s each on cancer at |T| = |V| = 5-6, so 10**6
#: units are 70 CPU-hours at the least. Not a limit of the splits: the split seeds of runs 0..10**6 - 1 of a data
#: set are all distinct (:func:`split_seed`).
MAX_UNITS = 10**6
FLIP_RULES = ("appendix", "margin", "all")

#: Table A1 of the paper (Appendix B.2): (data set, |V|, |T|) -> (pessimistic mean, std, optimistic mean, std).
PAPER_TABLE_A1 = {
    ("cancer", 5, 5): (0.861, 0.066, 0.600, 0.199), ("cancer", 5, 10): (0.898, 0.052, 0.793, 0.092),
    ("cancer", 5, 15): (0.893, 0.043, 0.863, 0.054), ("cancer", 5, 20): (0.908, 0.019, 0.889, 0.038),
    ("cancer", 10, 5): (0.885, 0.038, 0.553, 0.174), ("cancer", 10, 10): (0.901, 0.039, 0.763, 0.101),
    ("cancer", 10, 15): (0.906, 0.031, 0.870, 0.065), ("cancer", 10, 20): (0.907, 0.034, 0.880, 0.054),
    ("cancer", 15, 5): (0.890, 0.036, 0.568, 0.189), ("cancer", 15, 10): (0.920, 0.030, 0.760, 0.099),
    ("cancer", 15, 15): (0.923, 0.026, 0.834, 0.050), ("cancer", 15, 20): (0.935, 0.016, 0.886, 0.053),
    ("cancer", 20, 5): (0.895, 0.033, 0.574, 0.157), ("cancer", 20, 10): (0.908, 0.029, 0.784, 0.073),
    ("cancer", 20, 15): (0.926, 0.025, 0.854, 0.064), ("cancer", 20, 20): (0.928, 0.015, 0.886, 0.031),
    ("diabetes", 5, 5): (0.674, 0.022, 0.542, 0.097), ("diabetes", 5, 10): (0.700, 0.047, 0.708, 0.029),
    ("diabetes", 5, 15): (0.706, 0.034, 0.699, 0.044), ("diabetes", 5, 20): (0.720, 0.047, 0.728, 0.038),
    ("diabetes", 10, 5): (0.691, 0.038, 0.542, 0.109), ("diabetes", 10, 10): (0.717, 0.046, 0.704, 0.035),
    ("diabetes", 10, 15): (0.722, 0.031, 0.735, 0.031), ("diabetes", 10, 20): (0.737, 0.025, 0.739, 0.021),
    ("diabetes", 15, 5): (0.709, 0.034, 0.510, 0.114), ("diabetes", 15, 10): (0.731, 0.031, 0.689, 0.059),
    ("diabetes", 15, 15): (0.729, 0.034, 0.732, 0.033), ("diabetes", 15, 20): (0.742, 0.024, 0.742, 0.024),
    ("diabetes", 20, 5): (0.721, 0.030, 0.504, 0.143), ("diabetes", 20, 10): (0.727, 0.039, 0.722, 0.046),
    ("diabetes", 20, 15): (0.736, 0.025, 0.732, 0.025), ("diabetes", 20, 20): (0.741, 0.016, 0.741, 0.016),
}

#: Tables A2 (rho_val = 0) and A3 (rho_val = 0.3) of the paper, epsilon = 0.2:
#: (data set, rho_val, rho_test) -> (pessimistic mean, std, optimistic mean, std).
PAPER_TABLES_A2_A3 = {
    **{("cancer", 0.0, r): v for r, v in zip((0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6), [
        (0.938, 0.007, 0.930, 0.021), (0.933, 0.010, 0.920, 0.026), (0.932, 0.010, 0.914, 0.025),
        (0.929, 0.013, 0.911, 0.026), (0.921, 0.015, 0.904, 0.027), (0.917, 0.016, 0.899, 0.028),
        (0.911, 0.020, 0.895, 0.025)])},
    **{("diabetes", 0.0, r): v for r, v in zip((0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6), [
        (0.727, 0.024, 0.723, 0.014), (0.718, 0.022, 0.710, 0.009), (0.703, 0.019, 0.695, 0.013),
        (0.687, 0.020, 0.682, 0.020), (0.667, 0.016, 0.667, 0.023), (0.647, 0.022, 0.652, 0.029),
        (0.629, 0.027, 0.633, 0.035)])},
    **{("cancer", 0.3, r): v for r, v in zip((0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6), [
        (0.945, 0.080, 0.933, 0.013), (0.944, 0.080, 0.929, 0.015), (0.939, 0.090, 0.924, 0.018),
        (0.935, 0.090, 0.921, 0.020), (0.935, 0.090, 0.914, 0.018), (0.929, 0.013, 0.905, 0.024),
        (0.926, 0.012, 0.892, 0.033)])},
    **{("diabetes", 0.3, r): v for r, v in zip((0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6), [
        (0.713, 0.024, 0.683, 0.016), (0.699, 0.032, 0.675, 0.010), (0.685, 0.036, 0.668, 0.014),
        (0.673, 0.038, 0.657, 0.025), (0.659, 0.043, 0.649, 0.032), (0.646, 0.049, 0.637, 0.044),
        (0.633, 0.051, 0.627, 0.057)])},
}


@dataclass(frozen=True)
class StudyConfig:
    """What to run. Sizes are numbers of rows; ``rho_*`` are l2 budgets in standardised feature units, in [0,
    :data:`experiments.attack.MAX_RHO`] (100);
    ``epsilons`` relative training-loss suboptimality; ``time_limit`` seconds per MILP solve (``None``: no
    limit); ``threads`` solver threads per solve; ``flip``: ``"appendix"`` (:func:`appendix_flip`),
    ``"margin"`` or ``"all"``; ``tie_criteria``: secondary criteria of
    :func:`bilevel.ties.optimistic_tie_range`; ``w_bar_ub``: upper bound of every ``w_bar_j`` (lower 0);
    ``clock``: :func:`bilevel.tune`'s ``clock`` (``"nodes"``: the same solutions on every machine for the
    solves that end before ``time_limit``); ``label``: free text naming the study run in ``study.json`` and the
    summaries' headings (``None``: none; not part of :meth:`result_hash`, so a resume may rename a study);
    ``label_column``: the name of the label column of every CSV data set (``None``: each file's last column; a
    built-in data set has its own label column, so at least one data set must be a file): part of the result
    settings of the CSV data sets' units, so a resume with another label column is refused (one naming a file's
    last column is that file's default, :meth:`for_dataset`); ``solver``: :func:`bilevel.tune`'s ``solver`` for the
    optimistic and pessimistic MILPs and the tie re-solves (``"highs"``, ``"gurobi"`` or ``"cplex"``; the Eq. (A1)
    LPs stay on HiGHS; a solver other than HiGHS takes ``clock="seconds"`` only and must run here,
    :func:`check_config`), part of the result settings unless it is HiGHS."""

    datasets: tuple = ("cancer", "diabetes")
    studies: tuple = STUDIES
    runs: int = 10
    val_sizes: tuple = (5, 10, 15, 20)
    train_sizes: tuple = (5, 10, 15, 20)
    perturbed_runs: int = 5
    perturbed_n_train: int = 10
    perturbed_n_val: int = 10
    epsilons: tuple = (0.0, 0.2, 0.4, 0.6)
    rho_tests: tuple = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
    rho_vals: tuple = (0.0, 0.3)
    seed: int = 0
    time_limit: float | None = 60.0
    threads: int = 1
    flip: str = "appendix"
    tie_criteria: tuple = ("sum_w_bar", "val_margin")
    tie_tolerance: float = 1e-6
    w_bar_ub: float = 1.0
    clock: str = "seconds"
    label: str | None = None
    label_column: str | None = None
    solver: str = "highs"

    @classmethod
    def quick(cls, **overrides) -> "StudyConfig":
        """The reduced grid of ``bilevel study --quick`` (cancer; |V|, |T| in {5, 10}; 2 runs; perturbed
        study at |T| = |V| = 6 with epsilon in {0, 0.2}, rho_val in {0, 0.3}, rho_test in {0, 0.3, 0.6},
        1 run; 20 s per solve). A couple of minutes at most on 2 cores; ``overrides`` replace fields."""
        base = cls(datasets=("cancer",), runs=2, val_sizes=(5, 10), train_sizes=(5, 10), perturbed_runs=1,
                   perturbed_n_train=6, perturbed_n_val=6, epsilons=(0.0, 0.2), rho_tests=(0.0, 0.3, 0.6),
                   rho_vals=(0.0, 0.3), time_limit=20.0)
        return replace(base, **overrides)

    def __post_init__(self):
        for f in fields(self):  # numpy scalars (seed=np.int64(0)) as Python numbers, lists as tuples: the
            value = getattr(self, f.name)  # hash and JSON files take only those
            if isinstance(value, (list, tuple)):  # (a data set given as a pathlib.Path: its path as text)
                value = tuple(v.item() if isinstance(v, np.generic) else os.fspath(v) if isinstance(v, os.PathLike)
                              else v for v in value)
                # -0.0 as 0.0 (--epsilons -0): its run ids ("eps-0") and hash differed from 0's, so a resume with
                # "0" recomputed those units, and one with "--rho-test -0" refused the folder as other settings
                value = tuple(0.0 if isinstance(v, float) and v == 0 else v for v in value)
            elif isinstance(value, np.generic):
                value = value.item()
            object.__setattr__(self, f.name, value)
        if self.time_limit is not None and self.time_limit == math.inf:  # no limit: one spelling, valid JSON
            object.__setattr__(self, "time_limit", None)
        check_config(self)

    def result_settings(self, study: str | None = None) -> dict:
        """The settings that change a unit's result (not the grid or run counts, which only add or remove
        units), ``{name: value}`` in the form :meth:`result_hash` hashes (numbers as floats). ``study``
        (``"limited"`` or ``"perturbed"``): only those that change that study's units (the limited study has no
        ``rho_tests``, the perturbed one no tie re-solves), its lists of criteria and rho_tests sorted (their order
        changes no result); ``None``: all of them, in the given order (the hash of records written before)."""
        keys = ("seed", "time_limit", "threads", "flip", "tie_criteria", "tie_tolerance", "w_bar_ub", "rho_tests")
        if self.clock != "seconds":  # (absent otherwise, so the units of studies run before it existed are reused)
            keys += ("clock",)
        if self.label_column is not None:  # likewise (a CSV's last column as its label: the units run before it)
            keys += ("label_column",)
        if self.solver != "highs":  # likewise (HiGHS: the units run before solver existed)
            keys += ("solver",)
        unused = _UNUSED_SETTINGS.get(study, ())
        settings = {k: getattr(self, k) for k in keys if k not in unused}
        # One setting, one hash: json wrote 20 and 20.0 as "20" and "20.0", so a study run with time_limit=20
        # (or rho_tests=(0, 0.3)) was refused on resume by ``--time-limit 20`` as "computed with other settings".
        # Floats are written as before, so the units of earlier studies are still reused.
        for k in ("time_limit", "tie_tolerance", "w_bar_ub"):
            if k in settings:
                settings[k] = _hash_number(settings[k])
        if "rho_tests" in settings:
            settings["rho_tests"] = [_hash_number(v) for v in self.rho_tests]
        if study is not None:  # lists of independent solves (one per criterion, one attack per rho_test): their
            for k in ("tie_criteria", "rho_tests"):  # order changes no result, and refused a resume in another
                if k in settings:  # order ("tie_criteria ('val_margin', 'sum_w_bar') there, (...) now")
                    settings[k] = sorted(settings[k])
        return settings

    def result_hash(self, study: str | None = None) -> str:
        """Hash of :meth:`result_settings` of ``study`` (and the baselines' grids), the ``config_hash`` of that
        study's unit records: a finished unit with another hash is not reused. ``study=None``: of all settings,
        the hash every unit recorded before the hash was per study (such units are still reused)."""
        blob = json.dumps(self.result_settings(study), sort_keys=True, default=list)
        blob += json.dumps([baseline_mod.SVC_C_GRID, baseline_mod.BOX_GRID])
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def reuses(self, record: dict) -> bool:
        """Whether the finished unit ``record`` (:func:`run_unit`) was computed with this configuration's
        settings: its ``config_hash`` is :meth:`result_hash` of its study, or of all settings (records written
        before the hash was per study). A unit is checked with :meth:`for_dataset` of its data set (no
        ``label_column`` for a built-in one, or one naming the CSV file's last column); a unit of a CSV file whose
        label column is its last one also matches the hash with that column named (records written before a
        named last column counted as the default)."""
        coords = record.get("coords")
        dataset = coords.get("dataset") if isinstance(coords, dict) else None
        cfg = self.for_dataset(dataset)
        configs = [cfg]
        if cfg.label_column is None and dataset is not None and not builtin_name(dataset):
            last = _last_column(dataset)
            if last is not None:  # (datasets: so that the check of label_column accepts it whatever self's are)
                configs.append(replace(cfg, datasets=(dataset,), label_column=last))
        h = record.get("config_hash")
        return any(h == c.result_hash() or (record.get("study") in STUDIES and h == c.result_hash(record["study"]))
                   for c in configs)

    def for_dataset(self, dataset, source=None) -> "StudyConfig":
        """This configuration as it applies to the units of ``dataset`` (read from the file ``source``, default
        ``dataset``): without ``label_column`` for a built-in data set (which has its own label column, so its units
        do not depend on it) or when it names the file's last column (the default: the same units, which a resume
        with and without ``--label-column`` of that column refused as "computed with other settings"), else
        unchanged."""
        if self.label_column is not None and dataset is not None and (
                builtin_name(dataset) or self.label_column == _last_column(source or dataset)):
            return replace(self, label_column=None)
        return self

    def to_dict(self) -> dict:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v) for f in fields(self)}


#: Settings that do not change a study's units: the limited study attacks no test point (``rho_tests``), the
#: perturbed study re-solves no tie (``tie_criteria``, ``tie_tolerance``). In the hash they made a resume refuse
#: a limited study's units for ``--rho-test`` ("computed with other settings"), though none would have changed.
_UNUSED_SETTINGS = {"limited": ("rho_tests",), "perturbed": ("tie_criteria", "tie_tolerance")}


def _hash_number(value):
    """``float(value)`` for a real number (not a bool), else ``value`` (``None``) unchanged: the form of a
    numeric setting in :meth:`StudyConfig.result_hash`, so that 20 and 20.0 are one setting."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    return value


def check_config(cfg: StudyConfig) -> None:
    """Raise InputError for an unusable configuration (a list field given as a string, a data set that is not a
    name or path, a count, size or seed
    that is not an integer, a negative seed, unknown study or flip rule, sizes < 2 / < 1,
    negative budgets or epsilons, budgets above 100 (:data:`experiments.attack.MAX_RHO`), epsilons above 1e6,
    threads < 1 or above 256, runs < 1, more than :data:`MAX_UNITS` (10**6) units in all, a non-positive time
    limit, an unknown tie criterion,
    a tie tolerance that is not a finite number >= 0, a w_bar bound that is not positive or above 1e4: the values
    every unit would refuse)."""
    for name in ("datasets", "studies", "val_sizes", "train_sizes", "epsilons", "rho_tests", "rho_vals",
                 "tie_criteria"):
        if not isinstance(getattr(cfg, name), tuple):  # a str would be read as a list of its characters
            raise InputError(f"{name} must be a list or tuple; got {value_text(getattr(cfg, name), limit=80)}")
    for name in ("runs", "perturbed_runs", "perturbed_n_train", "perturbed_n_val", "seed", "threads",
                 "val_sizes", "train_sizes"):
        values = getattr(cfg, name)
        listed = name in ("val_sizes", "train_sizes")  # the others are one integer each: runs=(5,) passed
        for v in values if listed else (values,):
            if v is None and name == "threads":  # HiGHS's choice
                continue
            if not is_integer(v):
                raise InputError(f"{name} must be {'integers' if listed else 'an integer'}; "
                                 f"got {value_text(v, limit=80)}")
    if cfg.seed < 0:
        raise InputError(f"seed must be >= 0; got {cfg.seed}")
    bad = [s for s in cfg.studies if s not in STUDIES]
    if bad or not cfg.studies:
        raise InputError(f"study must be one of {', '.join(STUDIES)} (or both); "
                         f"got {value_text(list(cfg.studies), limit=80)}")
    if not cfg.datasets:
        raise InputError("no data set given")
    bad = [d for d in cfg.datasets if not isinstance(d, str) or not d.strip()]
    if bad:  # build_tasks hashes the name: an int gave AttributeError: 'int' object has no attribute 'encode'
        raise InputError(f"data sets must be built-in names or CSV paths (text); got {value_text(bad, limit=80)}")
    if cfg.flip not in FLIP_RULES:
        raise InputError(f"flip must be one of {', '.join(FLIP_RULES)}; got {value_text(cfg.flip, limit=80)}")
    for name, value in (("runs", cfg.runs), ("perturbed_runs", cfg.perturbed_runs)):
        if value < 1:
            raise InputError(f"{name} must be >= 1; got {value}")
    units = unit_counts(cfg)
    if sum(units.values()) > MAX_UNITS:
        raise InputError(f"the study has {units_text(cfg, units)}; a study has at most {MAX_UNITS:,} (MAX_UNITS: "
                         "every run solves MILPs and writes a file into OUT/runs); lower runs or perturbed_runs")
    if not cfg.val_sizes or not cfg.train_sizes or min(cfg.train_sizes) < 2 or min(cfg.val_sizes) < 1:
        raise InputError("training sizes must be >= 2 and validation sizes >= 1 (and the lists non-empty)")
    if cfg.perturbed_n_train < 2 or cfg.perturbed_n_val < 1:
        raise InputError("the perturbed study needs |T| >= 2 and |V| >= 1")
    for name in ("epsilons", "rho_tests", "rho_vals"):  # math.isfinite raised TypeError for "a" and OverflowError
        vals = tuple(as_number(v, f"each of {name}") for v in getattr(cfg, name))  # for 10**400
        if not vals or any(not (math.isfinite(v) and v >= 0) for v in vals):
            raise InputError(f"{name} must be a non-empty list of finite numbers >= 0; got {list(vals)}")
    for name in ("rho_tests", "rho_vals"):  # (attack.MAX_RHO: 1e300 was accepted, rho_val units then failed)
        too_big = [v for v in getattr(cfg, name) if v > attack_mod.MAX_RHO]
        if too_big:
            raise InputError(f"{name} must be at most {attack_mod.MAX_RHO:g} (l2 budgets in standardised feature "
                             f"units; the paper's run to 0.6); got {too_big}")
    too_big = [v for v in cfg.epsilons if v > MAX_EPSILON]  # bilevel.tune refuses them: every unit with one
    if too_big:  # failed after its optimistic solve, and the study ended with exit 1 instead of an input error
        raise InputError(f"epsilons must be at most {MAX_EPSILON:g} (bilevel.tune's limit); got {too_big}")
    for name in ("datasets", "val_sizes", "train_sizes", "epsilons", "rho_tests", "rho_vals", "tie_criteria"):
        repeated = repeated_values(getattr(cfg, name))  # its units were computed again and counted twice
        if repeated:
            raise InputError(f"{name} lists {', '.join(repeated)} more than once")
    if cfg.time_limit is not None and not as_number(cfg.time_limit, "time_limit") > 0:
        raise InputError(f"time limit must be positive seconds; got {cfg.time_limit}")
    if cfg.threads is not None and cfg.threads < 1:
        raise InputError(f"threads must be >= 1; got {value_text(cfg.threads)}")
    if cfg.threads is not None and cfg.threads > MAX_CONCURRENCY:  # solve_model refuses it: every unit failed
        raise InputError(f"threads must be at most {MAX_CONCURRENCY} (bilevel.tune's limit); "
                         f"got {value_text(cfg.threads)}")
    unknown = [c for c in cfg.tie_criteria if c not in bilevel.ties.CRITERIA]
    if unknown:
        raise InputError(f"unknown tie criteria {value_text(unknown, limit=80)}; "
                         f"choose from {', '.join(bilevel.ties.CRITERIA)}")
    if not (math.isfinite(as_number(cfg.w_bar_ub, "w_bar_ub")) and cfg.w_bar_ub > 0):
        raise InputError(f"w_bar upper bound must be positive; got {cfg.w_bar_ub}")
    if cfg.w_bar_ub > MAX_W_BAR_UB:  # bilevel.tune refuses it (big-M range): every unit would fail
        raise InputError(f"w_bar upper bound must be at most {MAX_W_BAR_UB:g} (bilevel.tune's limit); "
                         f"got {cfg.w_bar_ub}")
    check_positive(cfg.tie_tolerance, "tie_tolerance", allow_zero=True)  # optimistic_tie_range's check
    check_clock(cfg.clock)
    other_solvers.check_solver_runs(cfg.solver, cfg.clock)  # else every unit would fail
    if cfg.label_column is not None:
        if not isinstance(cfg.label_column, str) or not cfg.label_column:
            raise InputError("label_column must be a column name (a non-empty str); "
                             f"got {value_text(cfg.label_column, limit=80)}")
        if all(builtin_name(d) for d in cfg.datasets):  # it would be ignored without a word
            raise InputError(f"label_column {cfg.label_column!r} names the label column of CSV data sets, and the data "
                             f"sets {', '.join(cfg.datasets)} are built-in ones, which have their own label columns; "
                             "drop it or give a CSV file")
    if cfg.label is not None:  # one line of text: it heads the Markdown summaries
        if not isinstance(cfg.label, str):
            raise InputError(f"label must be a string; got {value_text(cfg.label, limit=80)}")
        if not cfg.label.strip() or any(not c.isprintable() for c in cfg.label):
            raise InputError(f"label must be one line of printable text; got {cfg.label!r}")


# ---------------------------------------------------------------------------------------------- tasks

def split_seed(seed: int, dataset: str, run: int, study: str = "limited") -> int:
    """The split seed (32-bit) of run ``run`` of ``dataset``: a deterministic function of the study seed, any
    integer >= 0 (it used to be taken modulo 2**32, so seeds 0 and 2**32 gave the same study), and of the data
    set's name: a built-in name, or a file's name without its folder (:func:`_data_name`). The path as typed
    gave ``x.csv``, ``./x.csv`` and ``/home/me/x.csv`` (the same file, or a study run from another folder)
    other splits and so other results for one seed."""
    ss = np.random.SeedSequence([int(seed), zlib.crc32(_data_name(dataset).encode()), zlib.crc32(study.encode()),
                                 run])
    return int(ss.generate_state(1)[0])


def _data_name(dataset) -> str:
    """The name of data set ``dataset`` that its splits depend on: a built-in name as is, a file's name (with
    its suffix, without its folder), so that a path spelled another way names the same splits."""
    return str(dataset) if builtin_name(dataset) else Path(str(dataset)).name


def appendix_flip(dataset: str, n_val: int, n_train: int) -> str:
    """The label-flipping rule of Appendix A of the paper: cancer flips all validation points; diabetes
    flips the points inside the optimistic margin or misclassified (``"margin"``) when ``|T| > 20`` and
    ``|V| > 15``, all validation points otherwise (so ``"all"`` everywhere on the grid {5, .., 20}). Other
    data sets: ``"all"``."""
    if builtin_name(dataset) == "diabetes" and n_train > 20 and n_val > 15:
        return "margin"
    return "all"


def builtin_name(data) -> str | None:
    """``data`` when it names a built-in data set (``bilevel.datasets.BUILTIN``), else ``None``: a user's file
    called ``cancer.csv`` is not the paper's cancer data (no Table A1 row, no Appendix A flip rule)."""
    return str(data) if str(data) in bilevel.datasets.BUILTIN else None


def _slug(text: str) -> str:
    """The name of data set ``text`` in run ids and file names: a built-in name as is; a file as its stem and 8
    hex digits of a hash of its file name (:func:`_data_name`, which :func:`split_seed` uses) and of the file's
    bytes, so that ``a/x.csv`` and ``b/x.csv`` with other contents (once both ``x``, the second overwriting the
    first's records, and a resumed study reusing them for the other), a file ``cancer.csv``, and a file edited
    since a study's runs were computed (whose old records a resume used to report as the new data's) get names
    of their own, while one file reached by another path (``./x.csv``, from another folder) keeps its name, as it
    keeps its splits. A file that cannot be read is named by its file name alone (loading it fails with its own
    message)."""
    if builtin_name(text):
        return str(text)
    h = hashlib.sha1(_data_name(text).encode())
    try:
        h.update(b"\0" + Path(str(text)).read_bytes())
    except OSError:
        pass
    digest = h.hexdigest()[:8]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{Path(str(text)).stem}-{digest}")


def limit_text(time_limit: float | None) -> str:
    """``"60 s per solve"``, or ``"none"`` for ``time_limit=None`` (it printed "None s per solve")."""
    return "none" if time_limit is None else f"{time_limit:g} s per solve"


def _id_number(x: float) -> str:
    """``x`` in a run id: ``f"{x:g}"`` where that reads back as ``x`` (the ids of earlier studies), else the
    shortest exact form (``:g`` kept six digits: 0.5000001 and 0.5 shared one id, so a resume reused one's
    unit for the other)."""
    short = f"{x:g}"
    return short if float(short) == x else repr(float(x))


def unit_counts(cfg) -> dict:
    """The number of work units (runs) of each study that ``cfg`` selects, ``{study: count}``, without building
    them: ``runs x |val_sizes| x |train_sizes| x |datasets|`` (limited) and ``perturbed_runs x |rho_vals| x
    |epsilons| x |datasets|`` (perturbed). ``cfg`` is a :class:`StudyConfig` or any object with its fields
    (the checks of ``bilevel study`` pass the options before the configuration is made)."""
    n = len(cfg.datasets)
    counts = {}
    if "limited" in cfg.studies:
        counts["limited"] = cfg.runs * len(cfg.val_sizes) * len(cfg.train_sizes) * n
    if "perturbed" in cfg.studies:
        counts["perturbed"] = cfg.perturbed_runs * len(cfg.rho_vals) * len(cfg.epsilons) * n
    return counts


def units_text(cfg, counts: dict, names: dict | None = None) -> str:
    """``counts`` (:func:`unit_counts`) in words with their factors, for the refusal of a study above
    :data:`MAX_UNITS`: ``"32,000,000,000 limited-data runs (runs 1000000000 x 4 val_sizes x 4 train_sizes x 2
    datasets)"``; ``names`` maps field names to the words used (the command-line options)."""
    names = names or {}
    name = lambda k: names.get(k, k)  # noqa: E731
    n = len(cfg.datasets)
    parts = []
    if "limited" in counts:
        parts.append(f"{value_text(counts['limited'], ',')} limited-data runs ({name('runs')} "
                     f"{value_text(cfg.runs, '')} x {len(cfg.val_sizes)} "
                     f"{name('val_sizes')} x {len(cfg.train_sizes)} {name('train_sizes')} x {n} {name('datasets')})")
    if "perturbed" in counts:
        parts.append(f"{value_text(counts['perturbed'], ',')} perturbed-data runs ({name('perturbed_runs')} "
                     f"{value_text(cfg.perturbed_runs, '')} x "
                     f"{len(cfg.rho_vals)} {name('rho_vals')} x {len(cfg.epsilons)} {name('epsilons')} x {n} "
                     f"{name('datasets')})")
    return " and ".join(parts)


def build_tasks(cfg: StudyConfig) -> list[dict]:
    """The work units of the study: the limited-data study first, then the perturbed one, each largest
    first (for load balance; an interrupted study has its main table first). Each task is a plain dict with
    ``run_id``, ``study``, the unit's coordinates, the split seed, the config (as a dict) and ``source``, what the
    unit loads: a built-in name, or a file's absolute path (its ``dataset`` is the path as given). At most
    :data:`MAX_UNITS` tasks (:func:`check_config`); the split seed of a run is computed once for all its cells."""
    conf = cfg.to_dict()
    tasks = []
    for data in cfg.datasets:
        slug = _slug(data)
        # a file by its absolute path: a worker in another working directory (a Dask worker started elsewhere)
        # loaded the relative path from its own folder, i.e. another file of that name or none
        source = data if builtin_name(data) else str(Path(data).resolve())
        if "limited" in cfg.studies:
            # (one split seed per run, shared by its |V| x |T| cells: computing it per cell was 80% of the time)
            seeds = [split_seed(cfg.seed, data, run) for run in range(cfg.runs)]
            for n_val in cfg.val_sizes:
                for n_train in cfg.train_sizes:
                    for run in range(cfg.runs):
                        tasks.append(dict(
                            run_id=f"limited__{slug}__V{n_val}_T{n_train}__run{run}", study="limited",
                            dataset=data, source=source, n_val=n_val, n_train=n_train, run=run,
                            split_seed=seeds[run], cost=n_val * n_train, config=conf,
                        ))
        if "perturbed" in cfg.studies:
            n_val, n_train = cfg.perturbed_n_val, cfg.perturbed_n_train
            seeds = [split_seed(cfg.seed, data, run, "perturbed") for run in range(cfg.perturbed_runs)]
            for rho_val in cfg.rho_vals:
                for eps in cfg.epsilons:
                    for run in range(cfg.perturbed_runs):
                        tasks.append(dict(
                            run_id=f"perturbed__{slug}__V{n_val}_T{n_train}__rhoval{_id_number(rho_val)}"
                                   f"__eps{_id_number(eps)}__run{run}",
                            study="perturbed", dataset=data, source=source, n_val=n_val, n_train=n_train,
                            rho_val=float(rho_val),
                            epsilon=float(eps), run=run, split_seed=seeds[run],
                            cost=n_val * n_train * (1 + eps), config=conf,
                        ))
    tasks.sort(key=lambda t: (t["study"] != "limited", -t["cost"]))
    return tasks


# ------------------------------------------------------------------------------------- one work unit

def versions(solver: str = "highs") -> dict:
    """Versions of Python, the numerical stack, Pyomo, highspy and the HiGHS library, scikit-learn, bilevel, and
    for ``solver`` Gurobi or CPLEX its Python package (``v_gurobipy`` or ``v_cplex``)."""
    import pandas
    import pyomo
    import scipy
    import sklearn

    from bilevel.highs_run import silent_highs

    h = silent_highs()
    return {
        "v_python": platform.python_version(), "v_bilevel": bilevel.__version__, "v_numpy": np.__version__,
        "v_scipy": scipy.__version__, "v_pandas": pandas.__version__, "v_pyomo": pyomo.__version__,
        "v_highspy": _dist_version("highspy"), "v_highs": f"{h.version()} ({h.githash()})",
        "v_sklearn": sklearn.__version__, "v_bilevel_git": _GIT_AT_IMPORT,
        **({f"v_{package}": _dist_version(package)} if (package := other_solvers.PACKAGES.get(solver)) else {}),
    }


def _git_version() -> str:
    """``<short commit>[+dirty]`` of the checkout holding the ``bilevel`` package, or ``"unknown"``; ``+dirty``
    when a tracked file of ``bilevel/`` or ``experiments/`` (the study's own code: the baselines, the attack) has
    uncommitted changes, the stored results under ``experiments/results`` aside. Taken once, when this module (and
    so ``bilevel``) is imported: a long-lived worker keeps the code it loaded even if the files change later."""
    import subprocess

    root = Path(bilevel.__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        if head.returncode != 0:
            return "unknown"
        # (experiments/ was not looked at: an edited baseline ran under the clean commit's name)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--",
                                "bilevel", "experiments", ":(exclude)experiments/results"],
                               capture_output=True, text=True, timeout=10)
        return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


_GIT_AT_IMPORT = _git_version()


def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def _acc(model_or_wb, X, y) -> float | None:
    if model_or_wb is None:
        return None
    w, b = model_or_wb
    return float(np.mean(np.where(X @ w - b >= 0, 1.0, -1.0) == y))


def _fmt_vec(v) -> str:
    """A vector as a JSON list of floats at full precision (each reads back as the same float), so a row's
    ``w_bar``, ``w`` and ``b`` can be re-used exactly: a rounded box can have another training optimum. The box
    alone does not give the row's model: the training LP at a box often has several optima (8 of 16 re-solves
    at the stored boxes of a small study gave another one), so a row keeps the follower's ``w`` and ``b`` too."""
    return json.dumps([float(x) for x in v])


def _tune_fields(prefix: str, r, split, X_val=None) -> dict:
    """Flat row fields of a TuneResult (or of a failure: r is a status string). ``<prefix>_w`` and ``<prefix>_b``
    are the hyperplane whose accuracies the row reports (``acc = mean(sign(X @ w - b) == y)``, ties to +1)."""
    if isinstance(r, str):
        return {f"{prefix}_status": r}
    X_v = split.X_val if X_val is None else X_val
    return {
        f"{prefix}_status": r.status, f"{prefix}_objective": r.objective, f"{prefix}_best_bound": r.best_bound,
        f"{prefix}_gap": r.gap, f"{prefix}_seconds": r.total_seconds, f"{prefix}_nodes": r.nodes,
        f"{prefix}_verified": bool(r.verified), f"{prefix}_verify_messages": "; ".join(r.verification.messages)[:500],
        f"{prefix}_binaries": r.n_binaries,
        f"{prefix}_acc_val": r.accuracy(X_v, split.y_val), f"{prefix}_acc_test": r.accuracy(split.X_test, split.y_test),
        f"{prefix}_w_bar": _fmt_vec(r.w_bar), f"{prefix}_w": _fmt_vec(r.w), f"{prefix}_b": float(r.b),
    }


def _solve(kind: str, X_t, y_t, X_v, y_v, cfg: dict, **kw):
    """bilevel.tune with the study's solver, returning the result or a status string when the solver gives no
    solution."""
    try:
        with warnings.catch_warnings():
            # failed verifications are recorded in the row; other RuntimeWarnings still show
            warnings.filterwarnings("ignore", VERIFICATION_WARNING, RuntimeWarning)
            return bilevel.tune(X_t, y_t, X_v, y_v, kind, w_bar_bounds=(0.0, cfg["w_bar_ub"]),
                                time_limit=cfg["time_limit"], threads=cfg["threads"],
                                clock=cfg.get("clock", "seconds"), solver=cfg.get("solver", "highs"), **kw)
    except bilevel.NoSolutionError:
        return "no_solution"
    except SolverError as exc:
        return f"solver_error: {exc}"


def _flip_for(task: dict, cfg: dict) -> str:
    return appendix_flip(task["dataset"], task["n_val"], task["n_train"]) if cfg["flip"] == "appendix" else cfg["flip"]


def _baselines(split, X_v, seed: int) -> dict:
    svc = baseline_mod.linear_svc_grid(split.X_train, split.y_train, X_v, split.y_val, seed=seed)
    box = baseline_mod.lp_svm_box_grid(split.X_train, split.y_train, X_v, split.y_val)
    return {"svc": svc, "box": box}


def _source(task: dict) -> str:
    """What a unit loads: the task's ``source`` (a file's absolute path, see :func:`build_tasks`), else its data
    set as given (a built-in name, or a task built before ``source`` existed)."""
    return task.get("source", task["dataset"])


def label_column_of(dataset, source, label_column) -> str | None:
    """The name of the label column the units of ``dataset`` (read from the file ``source``) use: a built-in data
    set's own, the study's ``label_column``, or (``None``) the file's last column, as :func:`bilevel.load_dataset`
    reads it; ``None`` when the file's header cannot be read. Recorded in every row of the runs CSV: only
    ``study.json`` named it, so a CSV read alone gave no hint that ``--label-column y`` had made the first column of
    ``x.csv`` its label, not the last one."""
    if builtin_name(dataset):
        return bilevel.datasets.BUILTIN[builtin_name(dataset)][1]
    if label_column is not None:
        return label_column
    return _last_column(source)


def _last_column(path) -> str | None:
    """The name of the last column of the CSV file ``path`` (its label column by default), as
    :func:`bilevel.load_dataset` reads it; ``None`` when the file's header cannot be read. Read once per file
    version (:meth:`StudyConfig.reuses` asks for every record of a folder)."""
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return _header_last_column(os.path.abspath(path), st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=64)
def _header_last_column(path: str, _mtime_ns: int, _size: int) -> str | None:
    import pandas as pd

    try:  # load_dataset's reading options: the same column names
        return str(pd.read_csv(path, nrows=0, index_col=False, compression=None, skipinitialspace=True).columns[-1])
    except Exception:  # noqa: BLE001 - an unreadable header: the label column is not known here
        return None


def _load(task: dict, cfg: dict):
    """The data set of a unit: a built-in one, or a CSV file with the study's ``label_column`` (``None``: the
    file's last column) as its label."""
    label = cfg.get("label_column")
    return bilevel.load_dataset(_source(task), label=None if builtin_name(task["dataset"]) else label)


def _limited_unit(task: dict, cfg: dict) -> list[dict]:
    data = _load(task, cfg)
    split = bilevel.split_dataset(data.X, data.y, task["n_train"], task["n_val"], seed=task["split_seed"])
    X_t, y_t, X_v, y_v = split.X_train, split.y_train, split.X_val, split.y_val
    flip = _flip_for(task, cfg)
    row = {"flip": flip, "n_test": len(split.y_test)}
    opt = _solve("optimistic", X_t, y_t, X_v, y_v, cfg)
    row.update(_tune_fields("opt", opt, split))
    tie_accs = []
    if not isinstance(opt, str):
        pes = _solve("pessimistic", X_t, y_t, X_v, y_v, cfg, epsilon=0.0, flip=flip, optimistic=opt)
        row.update(_tune_fields("pes", pes, split))
        if not isinstance(pes, str):
            row.update(pes_n_flipped=len(pes.flipped), pes_flip_rule=pes.flip_rule)
        if opt.status == "optimal":  # else its objective only bounds the optimum: no range over the optimal set
            tie_accs.append(row["opt_acc_test"])
        for crit in cfg["tie_criteria"]:
            if opt.status != "optimal":
                row.update({f"tie_{crit}_{ext}_status": f"not_run (optimistic {opt.status})" for ext in ("lo", "hi")})
                continue
            try:
                tr = bilevel.ties.optimistic_tie_range(opt, crit, tolerance=cfg["tie_tolerance"],
                                                       time_limit=cfg["time_limit"], threads=cfg["threads"],
                                                       solver=cfg.get("solver", "highs"))
            except SolverError as exc:
                row[f"tie_{crit}_error"] = str(exc)
                continue
            for ext, sol in (("lo", tr.low), ("hi", tr.high)):
                acc = sol.accuracy(split.X_test, split.y_test)
                if sol.verification.verified:  # an unverified extreme need not be an optimum: it would widen the
                    tie_accs.append(acc)  # range claimed as a lower bound on the spread over optima (its row keeps it)
                row.update({
                    f"tie_{crit}_{ext}_acc_test": acc, f"tie_{crit}_{ext}_value": sol.criterion_value,
                    f"tie_{crit}_{ext}_status": sol.status,
                    f"tie_{crit}_{ext}_verified": bool(sol.verification.verified),
                    f"tie_{crit}_{ext}_objective": sol.objective, f"tie_{crit}_{ext}_seconds": sol.seconds,
                    f"tie_{crit}_{ext}_best_bound": sol.best_bound, f"tie_{crit}_{ext}_gap": sol.gap,
                    f"tie_{crit}_{ext}_nodes": sol.nodes,
                })
    else:
        row["pes_status"] = "not_run (no optimistic solution)"
    if tie_accs:
        row.update(tie_acc_min=min(tie_accs), tie_acc_max=max(tie_accs))
    base = _baselines(split, X_v, task["split_seed"])
    row.update(svc_C=base["svc"]["C"], svc_converged=base["svc"]["converged"], svc_acc_val=base["svc"]["val_acc"],
               svc_acc_test=_acc((base["svc"]["w"], base["svc"]["b"]), split.X_test, split.y_test),
               box_c=base["box"]["c"], box_acc_val=base["box"]["val_acc"],
               box_acc_test=_acc((base["box"]["w"], base["box"]["b"]), split.X_test, split.y_test))
    return [row]


def _perturbed_unit(task: dict, cfg: dict) -> list[dict]:
    data = _load(task, cfg)
    split = bilevel.split_dataset(data.X, data.y, task["n_train"], task["n_val"], seed=task["split_seed"])
    X_t, y_t, y_v = split.X_train, split.y_train, split.y_val
    eps, rho_val = task["epsilon"], task["rho_val"]
    flip = _flip_for(task, cfg)
    sur_w, sur_b = attack_mod.fit_surrogate_svm(X_t, y_t)
    X_v, n_val_attacked, common = split.X_val, 0, {"flip": flip, "n_test": len(split.y_test)}
    if rho_val > 0:
        clean = _solve("optimistic", X_t, y_t, split.X_val, y_v, cfg)
        common.update(_tune_fields("clean_opt", clean, split))  # the attack's hyperplane: status, time, verification
        if isinstance(clean, str):  # no attack without it: one row per rho_test, so the summary counts the unit
            failed = {**common, "opt_status": f"clean optimistic: {clean}",
                      "pes_status": "not_run (no clean optimistic)",
                      "baselines_status": "not_run (no clean optimistic hyperplane: the validation attack, aimed at "
                                          "its margin, was not run)"}
            return [{**failed, "rho_test": float(rho_test)} for rho_test in cfg["rho_tests"]]
        mask = attack_mod.margin_mask(split.X_val, clean.w, clean.b)
        X_v = attack_mod.max_confidence_attack(split.X_val, y_v, sur_w, sur_b, rho_val, mask)
        n_val_attacked = int(mask.sum())
    common["n_val_attacked"] = n_val_attacked
    opt = _solve("optimistic", X_t, y_t, X_v, y_v, cfg)
    common.update({k: v for k, v in _tune_fields("opt", opt, split, X_v).items() if k != "opt_acc_test"})
    models = {}
    if not isinstance(opt, str):
        models["opt"] = (opt.w, opt.b)
        pes = _solve("pessimistic", X_t, y_t, X_v, y_v, cfg, epsilon=eps, flip=flip, optimistic=opt)
        common.update({k: v for k, v in _tune_fields("pes", pes, split, X_v).items() if k != "pes_acc_test"})
        if not isinstance(pes, str):
            models["pes"] = (pes.w, pes.b)
            common.update(pes_n_flipped=len(pes.flipped), pes_flip_rule=pes.flip_rule)
        # Appendix B.1, Eq. (A1): the worst case of the optimistic w_bar* over epsilon-optimal training models.
        Vf, _ = bilevel.flipped_set(X_v, y_v, opt.w, opt.b, flip)
        theta = bilevel.hinge_lp(opt.w_bar, (X_t, y_t)).value
        try:
            ev = bilevel.hinge_lp(opt.w_bar, (X_v[Vf], -y_v[Vf]), [(X_t, y_t, (1 + eps) * theta + 1e-9)])
            models["opt_eval"] = (ev.w, ev.b)
            common["opt_eval_acc_val"] = _acc((ev.w, ev.b), X_v, y_v)
        except SolverError as exc:
            common["opt_eval_error"] = str(exc)
        test_mask = attack_mod.margin_mask(split.X_test, opt.w, opt.b)
    else:
        common["pes_status"] = "not_run (no optimistic solution)"
        test_mask = np.zeros(len(split.y_test), dtype=bool)
    base = _baselines(split, X_v, task["split_seed"])
    models["svc"] = (base["svc"]["w"], base["svc"]["b"])
    models["box"] = (base["box"]["w"], base["box"]["b"])
    common.update(svc_C=base["svc"]["C"], svc_converged=base["svc"]["converged"], svc_acc_val=base["svc"]["val_acc"],
                  box_c=base["box"]["c"], box_acc_val=base["box"]["val_acc"], n_test_in_margin=int(test_mask.sum()))
    rows = []
    for rho_test in cfg["rho_tests"]:
        X_te = attack_mod.max_confidence_attack(split.X_test, split.y_test, sur_w, sur_b, rho_test, test_mask)
        row = {**common, "rho_test": float(rho_test)}
        # Without an optimistic hyperplane no test point is attacked: at rho_test > 0 the baselines were scored
        # on the clean test set under that rho_test. Like the models, they are left out (None) there.
        attacked = rho_test == 0 or "opt" in models
        for name in ("opt", "opt_eval", "pes", "svc", "box"):
            row[f"{name}_acc_test"] = _acc(models.get(name), X_te, split.y_test) if attacked else None
        rows.append(row)
    return rows


def run_unit(task: dict) -> dict:
    """Compute one work unit (see the module docstring) and return a plain, JSON-serialisable record:
    ``{"run_id", "study", "config_hash", "seconds", "error", "coords", "rows": [row dicts]}`` (``coords``: the
    unit's data set, sizes, run, split seed and, perturbed, ``rho_val`` and ``epsilon``). Solver failures and time
    limits are recorded in the rows (statuses); any other exception is caught and recorded in ``error``
    (such units are recomputed on resume)."""
    cfg = task["config"]
    t0 = time.perf_counter()
    coords = {k: task[k] for k in ("dataset", "n_val", "n_train", "run", "split_seed", "rho_val", "epsilon")
              if k in task}
    error, rows = None, []
    try:
        rows = _limited_unit(task, cfg) if task["study"] == "limited" else _perturbed_unit(task, cfg)
    except Exception:  # noqa: BLE001 - a study must survive one bad unit; the traceback is recorded
        error = traceback.format_exc(limit=8)
    seconds = time.perf_counter() - t0
    solver = cfg.get("solver", "highs")
    ver = versions(solver) | ({"solver": solver} if solver != "highs" else {})
    head = {"study": task["study"], "run_id": task["run_id"], **coords}
    label_column = label_column_of(task["dataset"], _source(task), cfg.get("label_column")) if rows else None
    out_rows = [_jsonable({**head, **r, "unit_seconds": seconds, "seed": cfg["seed"],
                           "time_limit": cfg["time_limit"], "label_column": label_column, **ver}) for r in rows]
    return {"run_id": task["run_id"], "study": task["study"],
            "config_hash": StudyConfig(**_tuples(cfg)).for_dataset(task["dataset"], _source(task))
            .result_hash(task["study"]),
            "seconds": seconds, "error": error, "coords": coords, "rows": out_rows}


def _tuples(d: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        if isinstance(v, np.bool_):
            v = bool(v)
        if isinstance(v, float) and not math.isfinite(v):
            v = None
        out[k] = v
    return out


# ------------------------------------------------------------------------------------ storage, driver

def _runs_folder(out) -> Path:
    """``OUT/runs``, where every finished unit is written (:func:`write_record`)."""
    return Path(out) / "runs"


def _record_path(out: Path, run_id: str) -> Path:
    return _runs_folder(out) / f"{run_id}.json"


def _write_atomically(path: Path, write) -> None:
    """:func:`bilevel.export.replace_atomically` (``write(temp)``, then a rename: an interrupted write leaves no
    file cut short), with an operating-system error (a full disk) raised as OSError, exit code 1 of ``bilevel
    study``, not as the InputError of bad input (exit code 2)."""
    try:
        replace_atomically(path, write)
    except InputError as exc:
        raise OSError(str(exc)) from None


def write_record(out: Path, record: dict) -> Path:
    """Write one finished unit atomically to ``OUT/runs/<run_id>.json`` (write + rename; an interrupted write
    leaves no temporary file, where ``<run_id>.json.tmp<pid>`` files stayed)."""
    path = _record_path(out, record["run_id"])
    text = json.dumps(record, indent=1)
    _write_atomically(path, lambda temp: temp.write_text(text))
    return path


def _spelled_as(record: dict, dataset) -> dict:
    """``record`` with its data set (in ``coords`` and every row) spelled as ``dataset``, this call's spelling of the
    same data set (:func:`_slug`: one run id for ``x.csv`` and ``./x.csv``)."""
    rows = [{**r, "dataset": dataset} if isinstance(r, dict) and "dataset" in r else r for r in record.get("rows", [])]
    coords = record.get("coords")
    if isinstance(coords, dict) and "dataset" in coords:
        coords = {**coords, "dataset": dataset}
    return {**record, "rows": rows, "coords": coords}


def load_records(out: Path) -> dict:
    """All readable unit records under ``OUT/runs`` as ``{run_id: record}`` (broken files are ignored and
    recomputed: not JSON, not a dict with a str ``run_id`` and ``study``, a list of ``rows`` each naming that study,
    a unit and its data set, and an ``error`` that is None or a str)."""
    recs = {}
    for p in sorted(_runs_folder(out).glob("*.json")):
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        # valid JSON that is not a unit record ("[]", "null", a dict without its keys) is broken too: "[]" gave a
        # TypeError traceback, a dict without "rows" a KeyError in the tables
        if (isinstance(rec, dict) and isinstance(rec.get("run_id"), str) and isinstance(rec.get("study"), str)
                and isinstance(rec.get("rows"), list) and isinstance(rec.get("error"), (str, type(None)))
                and all(_is_row_of(row, rec) for row in rec["rows"])):
            recs[rec["run_id"]] = rec
    return recs


def _is_row_of(row, rec: dict) -> bool:
    """Whether ``row`` is a row that :func:`run_unit` writes into the record ``rec``: a dict naming the record's
    study, with a unit id and a data set. Rows ``[1]`` or ``[{}]`` of a damaged record were reused and crashed the
    tables after every unit had run (AttributeError / KeyError 'dataset' tracebacks, no runs CSV)."""
    return (isinstance(row, dict) and row.get("study") == rec["study"] and isinstance(row.get("run_id"), str)
            and "dataset" in row)


@dataclass
class StudyResult:
    """What :func:`run_study` did: ``out`` folder, ``files`` written (name -> path), number of units
    ``n_units`` / ``n_computed`` (this call) / ``n_reused`` (found on disk), ``n_errors``, wall ``seconds``,
    ``n_failed_steps``: units without an error in which a tie re-solve or the worst-case LP failed."""

    out: Path
    files: dict
    n_units: int
    n_computed: int
    n_reused: int
    n_errors: int
    seconds: float
    computed_ids: list = field(default_factory=list)
    n_failed_steps: int = 0


def _is_step_error(field: str) -> bool:
    """Whether the row field (CSV column) ``field`` holds the error of a step that does not end the run: a tie
    re-solve (``tie_<criterion>_error``) or the worst-case LP of Appendix B.1 (``opt_eval_error``); ``error`` is
    the whole run's."""
    return field.endswith("_error") and field != "error"


def _record_failed_steps(rec: dict) -> bool:
    """Whether a row of the unit record ``rec`` has a failed step (see :func:`_is_step_error`)."""
    return any(v is not None for row in rec.get("rows", []) for k, v in row.items() if _is_step_error(k))


def _execute(tasks: list[dict], jobs: int | None, scheduler, progress: bool | None, on_result) -> None:
    try:
        from tqdm.auto import tqdm
    except ImportError:  # no progress bar without tqdm
        progress = False

        def tqdm(**_):
            return type("NoBar", (), {"update": lambda self, n=1: None, "close": lambda self: None})()

    # by default (None) no bar when stderr is not a terminal (a log file filled with its carriage-return updates),
    # except in a notebook, whose bar is a widget and whose stderr is never a terminal; True draws it anyway
    shown = progress if progress is not None else (sys.stderr.isatty() or "ipykernel" in sys.modules)
    bar = tqdm(total=len(tasks), desc="bilevel study", unit="run", disable=not shown, dynamic_ncols=True)
    try:
        if not tasks:
            return
        if scheduler is not None:
            import cloudpickle
            from dask.distributed import Client, as_completed

            from . import attack, baseline, uci_study  # workers need bilevel installed, not this folder
            for mod in (attack, baseline, uci_study):
                cloudpickle.register_pickle_by_value(mod)
            own = not isinstance(scheduler, Client)
            client = Client(scheduler) if own else scheduler
            try:
                futures = [client.submit(run_unit, t, key=f"bilevel-study-{t['run_id']}-{time.time_ns()}", pure=False)
                           for t in tasks]
                for fut in as_completed(futures):
                    on_result(fut.result())
                    bar.update()
            finally:
                for mod in (attack, baseline, uci_study):
                    cloudpickle.unregister_pickle_by_value(mod)
                if own:
                    client.close()
        elif jobs == 1 or len(tasks) == 1:
            for t in tasks:
                on_result(run_unit(t))
                bar.update()
        else:
            from joblib import Parallel, delayed

            # no more workers than runs: joblib starts every worker asked for (--jobs 1000 made 1000 processes)
            n_jobs = min(jobs, len(tasks)) if jobs else -1
            par = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1, pre_dispatch="2*n_jobs")
            for rec in par(delayed(run_unit)(t) for t in tasks):
                on_result(rec)
                bar.update()
    finally:
        bar.close()


def check_resume(cfg: StudyConfig, out) -> dict:
    """The unit records ``out`` holds (``{run_id: record}``, :func:`load_records`; empty for a new folder), after
    checking that ``cfg`` may resume there. Raises InputError when ``out`` holds finished units computed with other
    settings (another seed, time limit, flip rule, ..., or on another split than ``cfg`` gives their run:
    :func:`_other_split`; a unit that ended in an error holds no result and is computed again, whatever its
    settings). ``bilevel study`` calls it before it prints its study line (the line
    came before the refusal); :func:`run_study` calls it too."""
    existing = load_records(Path(out))
    clash = [rid for rid, rec in existing.items()
             if rec.get("error") is None and not (_fits(cfg, rec) and not _other_split(cfg, rec))]
    if clash:
        first = existing[clash[0]]
        why = _settings_diff(Path(out), first, cfg) if not _fits(cfg, first) else _other_split(cfg, first)
        raise InputError(f"{out} already holds {len(clash)} finished runs computed with other settings "
                         f"({why}; e.g. {clash[0]}); use another --out")
    return existing


def _other_split(cfg: StudyConfig, record: dict) -> str:
    """``""`` when the finished unit ``record`` was computed on the split ``cfg`` gives its run (the split seed in its
    ``coords`` is :func:`split_seed` of ``cfg``'s seed, its data set, run and study) or records none to compare;
    else the difference, ``"split_seed 1 there, 2 now"``. The settings hash holds the seed, not the split seed
    derived from it, so a unit of another split with the same hash was reused: one of seed 2**32 written before
    seeds stopped being taken modulo 2**32 holds the splits of seed 0."""
    coords = record.get("coords")
    if not isinstance(coords, dict) or record.get("study") not in STUDIES:
        return ""
    stored, dataset, run = coords.get("split_seed"), coords.get("dataset"), coords.get("run")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (stored, run)) or not isinstance(dataset, str):
        return ""
    now = split_seed(cfg.seed, dataset, run, record["study"])
    return "" if stored == now else f"split_seed {stored} there, {now} now"


def run_study(cfg: StudyConfig, out, jobs: int | None = None, scheduler=None,
              progress: bool | None = None) -> StudyResult:
    """Run (or resume) the study of ``cfg`` into the folder ``out`` and write its tables and plots.

    Parameters
    ----------
    cfg : the grid and settings (:class:`StudyConfig`).
    out : output folder (created). Finished units are read from ``OUT/runs`` and not recomputed.
    jobs : local worker processes (``None``/``-1``: all cores; 1: in this process).
    scheduler : a Dask scheduler address (``"tcp://host:8786"``) or a ``dask.distributed.Client``: run the
        units on that cluster instead (workers need ``bilevel`` and scikit-learn installed).
    progress : a progress bar (tqdm, on stderr): ``None`` shows it when stderr is a terminal (or in a Jupyter
        notebook), ``True`` always (e.g. for ``2>&1 | tee log``), ``False`` never. No bar without tqdm.

    Returns
    -------
    :class:`StudyResult`; files: ``limited_runs.csv``, ``limited_summary.md``, ``limited_<data>.png``,
    ``perturbed_runs.csv``, ``perturbed_summary.md``, ``perturbed_<data>.png`` (those that apply),
    ``study.json`` (configuration, versions, timings). Tables and plots that the previous call into ``out``
    wrote (listed in its ``study.json``) and this call does not are removed: they belonged to another grid.

    Raises
    ------
    InputError for a bad configuration, a data set that cannot be loaded or cannot supply the sizes
    (:func:`check_data`, before any unit runs), an ``out`` that is not a str or Path, is empty or holds a NUL, an
    ``out`` or ``OUT/runs`` that is a file or cannot be written to, a folder where a unit's record
    ``OUT/runs/<run_id>.json`` goes, or when ``out`` holds finished units computed with other settings (another
    seed, time limit, flip rule, ...): use another ``out``; and when another call is running into ``out``
    (:func:`_only_study_in`).
    """
    check_config(cfg)
    check_data(cfg)
    out = as_path(out, "out (the study's folder)")  # "" ran the study into the working directory
    # OUT and OUT/runs (a file there failed the first finished run's write, after its solves)
    check_writable_folder(_runs_folder(out), "the study's runs folder (OUT/runs)")
    with _only_study_in(out):
        return _run_study(cfg, out, jobs, scheduler, progress)


@contextlib.contextmanager
def _only_study_in(out: Path):
    """Hold an exclusive lock on the folder ``OUT/runs`` (``flock``, released when the call ends, also by a killed
    process) for one :func:`run_study` call; InputError when another call holds it. Two studies run into one ``out``
    at once each computed the units the other had not finished (the work done twice) and replaced the other's
    tables. No lock where the system has no ``fcntl`` (Windows). The lock is on the folder itself, so no lock file
    is left behind."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover (Windows)
        yield
        return
    fd = os.open(_runs_folder(out), os.O_RDONLY)  # (run_study made the folder)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError(f"another study is running into {str(out)!r} (it holds {str(_runs_folder(out))!r}); "
                             "wait for it to end or use another --out") from None
        yield
    finally:
        os.close(fd)


def check_no_study_running(out) -> None:
    """InputError when a :func:`run_study` call is running into the folder ``out`` (:func:`_only_study_in`), so that
    ``bilevel study`` refuses before its study line; nothing when ``OUT/runs`` does not exist yet. (``run_study``
    itself holds the lock for its whole call: a study started after this check is still refused there.)"""
    if _runs_folder(out).is_dir():
        with _only_study_in(Path(out)):
            pass


def _run_study(cfg: StudyConfig, out: Path, jobs, scheduler, progress: bool | None) -> StudyResult:
    """:func:`run_study` once its checks passed and its lock is held."""
    t0 = time.perf_counter()
    tasks = build_tasks(cfg)
    h = cfg.result_hash()
    existing = check_resume(cfg, out)
    done = {rid for rid, rec in existing.items() if rec.get("error") is None}
    todo = [t for t in tasks if t["run_id"] not in done]
    blocked = [t["run_id"] for t in todo if _record_path(out, t["run_id"]).is_dir()]
    if blocked:  # its record could not be written: the unit's solves ran, then the write failed
        raise InputError(f"{_record_path(out, blocked[0])} is a folder where the study writes the record of run "
                         f"{blocked[0]}; remove it or use another --out")
    computed = []

    def on_result(rec):
        write_record(out, rec)
        computed.append(rec["run_id"])

    _execute(todo, jobs, scheduler, progress, on_result)
    ids = {t["run_id"] for t in tasks}
    spelled = {t["run_id"]: t["dataset"] for t in tasks}
    # a record reused under another spelling of its data file (x.csv, then ./x.csv or its absolute path: the same
    # run id) carries the earlier spelling: relabelled, or the tables split one data set into two rows and its
    # plots overwrote each other
    records = {rid: _spelled_as(rec, spelled[rid]) for rid, rec in load_records(out).items() if rid in ids}
    earlier = _files_of_earlier_call(out)
    files = write_outputs(records, out, cfg)
    for stale in earlier - {Path(f).name for f in files.values()}:
        # an earlier call's table or plot of units not in this grid would sit next to this call's as if current
        (out / stale).unlink(missing_ok=True)
    seconds = time.perf_counter() - t0
    n_err = sum(rec.get("error") is not None for rec in records.values())
    n_failed_steps = sum(rec.get("error") is None and _record_failed_steps(rec) for rec in records.values())
    meta = {"label": cfg.label, "config": cfg.to_dict(), "config_hash": h, "versions": versions(cfg.solver),
            "n_units": len(tasks),
            "n_computed_last_call": len(computed), "n_errors": n_err, "n_failed_steps": n_failed_steps,
            "last_call_seconds": seconds,
            "compute_seconds_all_units": sum(rec.get("seconds", 0.0) for rec in records.values()),
            "files": {k: str(v) for k, v in files.items()}}
    _write_atomically(out / "study.json", lambda temp: temp.write_text(json.dumps(meta, indent=2)))
    files["study.json"] = out / "study.json"
    return StudyResult(out, files, len(tasks), len(computed), len(tasks) - len(todo), n_err, seconds, computed,
                       n_failed_steps)


def _fits(cfg: StudyConfig, record: dict) -> bool:
    """Whether the finished unit ``record`` may stay in a folder that ``cfg`` runs in: :meth:`StudyConfig.reuses`,
    or, for a perturbed unit when ``cfg`` does not run the perturbed study, reused by ``cfg`` with the rho_test grid
    of the unit's own rows. ``bilevel study --study limited`` refuses ``--rho-test`` (the limited study attacks no
    test point), so a folder holding the perturbed runs of a ``--rho-test 0,0.5`` study refused every
    ``--study limited`` call ("rho_tests [0.0, 0.5] there, [0.0, 0.1, ...] now"), with no option to comply. Likewise,
    for a limited unit when ``cfg`` does not run the limited study: reused by ``cfg`` with some selection of the tie
    criteria (``--study perturbed`` refuses ``--tie-criteria``)."""
    if cfg.reuses(record):
        return True
    if record.get("study") == "limited" and "limited" not in cfg.studies:
        # likewise ``bilevel study --study perturbed`` refuses ``--tie-criteria`` (the perturbed study re-solves no
        # tie): a limited unit stays when ``cfg`` reuses it with some selection of the tie criteria (their order
        # does not count in its hash)
        crits = bilevel.ties.CRITERIA
        choices = [c for size in range(1, len(crits) + 1) for c in itertools.combinations(crits, size)]
        return any(replace(cfg, tie_criteria=c).reuses(record) for c in choices)
    if record.get("study") != "perturbed" or "perturbed" in cfg.studies:
        return False
    # the rows' own order too: the hash of all settings, which records written before the per-study hash carry,
    # keeps the order of the study's --rho-test (a unit of "--rho-test 0.6,0" fitted no "--study limited" call)
    grid = tuple(dict.fromkeys(row.get("rho_test") for row in record.get("rows", []) if isinstance(row, dict)))
    if not grid or not all(isinstance(v, float) for v in grid):
        return False
    try:
        return any(replace(cfg, rho_tests=order).reuses(record) for order in dict.fromkeys((tuple(sorted(grid)), grid)))
    except InputError:
        return False


def check_data(cfg: StudyConfig, options: dict | None = None) -> None:
    """Raise InputError for a data set of ``cfg`` that cannot be loaded, or that cannot supply the largest
    training and validation sizes of a selected study (with at least one test row), before any unit runs:
    otherwise every unit of that data set ended with the same error; and for two data sets that are one
    (``x.csv`` and ``./x.csv``, or copies with one file name: :func:`_slug`), whose units would share run ids.
    ``options`` (``{study: text with {T} and {V}}``, from ``bilevel study``: ``"--perturbed-size {T},{V}"``) names
    the sizes of a split that does not fit by the command-line options that gave them (the message named |T|,
    |V| and split_dataset's arguments n_train and n_val). A data set whose stratified test set takes every row of a
    class (a class of one row) is refused naming the data set alone: no size or seed helps, and the study's test
    fraction is fixed (it advised ``test_fraction=0, --test-fraction 0``, options the study does not have)."""
    sizes = []  # (study, |T|, |V|) of the largest split of each study
    if "limited" in cfg.studies:
        sizes.append(("limited", max(cfg.train_sizes), max(cfg.val_sizes)))
    if "perturbed" in cfg.studies:
        sizes.append(("perturbed", cfg.perturbed_n_train, cfg.perturbed_n_val))
    seen = {}
    for d in cfg.datasets:  # x.csv and ./x.csv: one file, one name, one set of splits (and of run ids)
        if not builtin_name(d) and not Path(str(d)).is_file():
            continue  # a missing file: load_dataset names it below (two missing a/x.csv, b/x.csv were "one")
        other = seen.setdefault(_slug(d), d)
        if other != d:
            raise InputError(f"data sets {other!r} and {d!r} are one data set (the same file name and contents, so "
                             "the same splits); give it once")
    for d in cfg.datasets:
        data = bilevel.load_dataset(d, label=None if builtin_name(d) else cfg.label_column)
        for study, n_train, n_val in sizes:
            where = f"|T| = {n_train}, |V| = {n_val}" if options is None else options[study].format(T=n_train, V=n_val)
            try:
                if options is not None:  # (split_dataset's message names its arguments n_train and n_val)
                    # test fraction 0.5, as below
                    check_split_sizes(len(data.y), {"|T|": int(n_train), "|V|": int(n_val)})
                bilevel.split_dataset(data.X, data.y, int(n_train), int(n_val), seed=cfg.seed)
            except OneClassTrainingError as exc:  # whatever the sizes and the seed (the test draw's class counts
                # depend on neither); it advised test_fraction=0 / --test-fraction 0, which the study does not have
                raise InputError(f"data set {d!r}: {exc.advising(None)}; the study holds out half of the rows as "
                                 "test rows") from None
            except InputError as exc:
                raise InputError(f"data set {d!r}, {where}: {exc}") from None


def _files_of_earlier_call(out: Path) -> set[str]:
    """Names of the tables and plots that the last call wrote into ``out`` (the ``files`` of its ``study.json``,
    other than ``study.json``): names of this folder of the study's own form (``limited_*`` / ``perturbed_*``
    ``.csv``, ``.md``, ``.png``), so nothing else is ever removed; empty when there is no readable ``study.json``.
    The paths listed there are spelled as that call was given ``out``: they used to count only when spelled as
    this call's ``out``, so a call with ``--out /abs/o`` after one with ``--out o`` (or from another folder) left
    the earlier grid's tables and plots beside its own."""
    try:
        listed = json.loads((out / "study.json").read_text())["files"]
        items = list(listed.items())
    except Exception:  # noqa: BLE001 - no, or an unreadable, study.json: nothing is known to be ours
        return set()
    return {name for name, f in items if isinstance(name, str) and isinstance(f, str) and Path(f).name == name
            and re.fullmatch(r"(limited|perturbed)_[A-Za-z0-9_.-]+\.(csv|md|png)", name)}


def _settings_diff(out: Path, record: dict, cfg: StudyConfig) -> str:
    """Which of :meth:`StudyConfig.result_settings` (of the record's study) differ between ``cfg`` and the study
    that computed the unit ``record``, as ``"threads 1 there, 2 now"``, read from ``OUT/study.json`` when its
    configuration has the record's hash; otherwise the list of the settings that count (a refusal named "seed,
    time limit, flip rule, tie criteria, w_bar bound or rho_test grid" when only ``--threads`` or ``--clock``
    had changed)."""
    generic = ("seed, time limit, threads, clock, flip rule, tie criteria or tolerance, w_bar bound, rho_test "
               "grid, CSV label column or solver differ")
    try:
        conf = json.loads((out / "study.json").read_text())["config"]
        names = {f.name for f in fields(StudyConfig)}
        old = StudyConfig(**_tuples({k: v for k, v in conf.items() if k in names}))
    except Exception:  # noqa: BLE001 - no, an unreadable or older study.json: the generic list
        return generic
    if not old.reuses(record):  # study.json is of another call (one interrupted before writing it)
        return generic
    dataset = record.get("coords", {}).get("dataset") if isinstance(record.get("coords"), dict) else None
    old, cfg = old.for_dataset(dataset), cfg.for_dataset(dataset)
    study = record.get("study") if old.result_hash(record.get("study")) == record.get("config_hash") else None
    a, b = old.result_settings(study), cfg.result_settings(study)
    for k in ("clock", "label_column", "solver"):  # (in the settings only when not their defaults)
        a.setdefault(k, getattr(old, k))
        b.setdefault(k, getattr(cfg, k))
    if dataset is not None and not builtin_name(dataset):  # the default as the column it is ("None" said nothing)
        a["label_column"], b["label_column"] = (label_column_of(dataset, dataset, c.label_column) for c in (old, cfg))
    if record.get("study") in STUDIES and record["study"] not in cfg.studies:
        # a setting that :func:`_fits` does not hold against a unit of a study this call does not run (and that
        # its command line cannot name: --tie-criteria with --study perturbed, --rho-test with --study limited)
        # is not why it was refused: "seed 0 there, 1 now; tie_criteria ['sum_w_bar'] there, [...] now" sent a
        # --study perturbed user to an option that call refuses
        for k in {"limited": ("tie_criteria",), "perturbed": ("rho_tests",)}[record["study"]]:
            a.pop(k, None)
            b.pop(k, None)
    diff = [f"{k} {a[k]!r} there, {b[k]!r} now" for k in a if a[k] != b.get(k)]
    return "; ".join(diff) if diff else generic


# ------------------------------------------------------------------------------- tables and plots

def records_frame(records: dict, study: str):
    """All rows of ``study``'s records as a pandas DataFrame (one row per limited unit; one per
    perturbed unit and rho_test), sorted by their coordinates; errors become rows with ``error`` set (and the
    unit's coordinates). A column whose values are all int64 integers where present (sizes, run, seeds, node
    counts) is a nullable integer column: a missing value (an errored run, a failed solve) made it float, written
    ``5.0``."""
    import pandas as pd

    rows = []
    for rec in records.values():
        if rec["study"] != study:
            continue
        if rec.get("error") is not None:
            coords = rec.get("coords") if isinstance(rec.get("coords"), dict) else {}
            rows.append({"study": study, "run_id": rec["run_id"], **coords,
                         "error": rec["error"].strip().splitlines()[-1]})
        rows.extend(rec["rows"])
    df = pd.DataFrame(rows)
    for col in df.columns:
        present = [r[col] for r in rows if r.get(col) is not None]
        if present and all(isinstance(v, int) and not isinstance(v, bool) and -2**63 <= v < 2**63 for v in present):
            df[col] = df[col].astype("Int64")  # (a seed beyond int64 stays an object column: OverflowError)
    keys = [k for k in ("dataset", "n_val", "n_train", "rho_val", "epsilon", "rho_test", "run") if k in df.columns]
    return df.sort_values(keys, kind="stable").reset_index(drop=True) if len(df) and keys else df


def _ms(s) -> str:
    s = s.dropna()
    if not len(s):
        return "n/a"
    return f"{s.mean():.3f} ± {s.std(ddof=1):.3f}" if len(s) > 1 else f"{s.mean():.3f}"


def _nonopt(df, prefix) -> int:
    col = f"{prefix}_status"
    if col not in df.columns:
        return len(df)
    return int((df.drop_duplicates("run_id")[col].fillna("missing") != "optimal").sum())


def _nonopt_ties(df) -> int:
    """Runs with a tie re-solve (a ``tie_<criterion>_<min|max>_status`` column) that ended other than
    "optimal" (at the time limit: its extreme is an optimum of the outer problem, not the extreme; it still
    counts in the tie range). A re-solve not run (``"not_run (optimistic time_limit)"``: no range around an
    optimistic solve that is not optimal, which its own column counts) is none."""
    cols = [c for c in df.columns if c.startswith("tie_") and c.endswith("_status")]
    if not cols:
        return 0
    d = df.drop_duplicates("run_id")[cols]
    text = d.astype(str)
    ran = d.notna() & ~text.apply(lambda col: col.str.startswith("not_run"))
    return int((ran & (text != "optimal")).any(axis=1).sum())


def _unverified(df, prefix) -> int:
    """Runs whose ``prefix`` solution failed :func:`bilevel.verify_model` (its accuracy is still averaged)."""
    col = f"{prefix}_verified"
    if col not in df.columns:
        return 0
    vals = df.drop_duplicates("run_id")[col]
    return int((vals.notna() & (vals.astype(str) == "False")).sum())


def _failed_steps(df) -> int:
    """Runs in which a step that does not end the run failed (its ``*_error`` column is set): a tie re-solve
    (``tie_<criterion>_error``, the tie range is then taken over fewer extremes) or the worst-case LP of Appendix
    B.1 (``opt_eval_error``, no worst-case accuracy). Whole-run errors (``error``) are not counted."""
    cols = [c for c in df.columns if _is_step_error(c)]
    if not cols:
        return 0
    d = df.drop_duplicates("run_id")
    return int(d[cols].notna().any(axis=1).sum())


def summarize_limited(df):
    """Per (data set, |V|, |T|): runs, mean ± std test accuracy of pessimistic, optimistic, the optimistic
    tie range (means of the per-run min and max over the returned optimum and the verified tie extremes), the two
    baselines, the paper's Table A1 values, the number of non-optimal and unverified solves, and of runs with a
    failed or a non-optimal tie re-solve."""
    import pandas as pd

    out = []
    for (data, v, t), g in df.groupby(["dataset", "n_val", "n_train"], sort=True):
        paper = PAPER_TABLE_A1.get((builtin_name(data), int(v), int(t)))
        tie = (f"{g['tie_acc_min'].mean():.3f} – {g['tie_acc_max'].mean():.3f}"
               if "tie_acc_min" in g and g["tie_acc_min"].notna().any() else "n/a")
        out.append({
            "data": data, "|V|": int(v), "|T|": int(t), "runs": len(g),
            "pessimistic": _ms(g.get("pes_acc_test", pd.Series(dtype=float))),
            "optimistic": _ms(g.get("opt_acc_test", pd.Series(dtype=float))),
            "optimistic ties (min – max)": tie,
            "LinearSVC grid": _ms(g.get("svc_acc_test", pd.Series(dtype=float))),
            "LP-SVM box grid": _ms(g.get("box_acc_test", pd.Series(dtype=float))),
            "paper pessimistic": f"{paper[0]:.3f} ± {paper[1]:.3f}" if paper else "",
            "paper optimistic": f"{paper[2]:.3f} ± {paper[3]:.3f}" if paper else "",
            "non-optimal (opt/pes)": f"{_nonopt(g, 'opt')}/{_nonopt(g, 'pes')}",
            "unverified (opt/pes)": f"{_unverified(g, 'opt')}/{_unverified(g, 'pes')}",
            "tie re-solve failed": _failed_steps(g),
            "tie re-solve non-optimal": _nonopt_ties(g),
        })
    return pd.DataFrame(out)


def _attacked_units(g) -> str:
    """``"k/n"``: of the ``n`` units of a perturbed cell, how many had a validation point attacked (column
    ``n_val_attacked`` > 0); empty at ``rho_val = 0`` or without that column. With ``rho_val > 0`` only points inside
    the clean optimistic margin are attacked, so a unit with none is a ``rho_val = 0`` result."""
    if "n_val_attacked" not in g or not (g["rho_val"] > 0).all():
        return ""
    attacked = g["n_val_attacked"].dropna()
    return f"{int((attacked > 0).sum())}/{len(attacked)}"


def summarize_perturbed(df):
    """Per (data set, rho_val, epsilon, rho_test): runs and mean ± std test accuracy of pessimistic,
    optimistic as returned, optimistic evaluated in the worst case of Appendix B.1 (the paper's optimistic
    column), the baselines, the paper's Tables A2/A3 (epsilon = 0.2 only), non-optimal and unverified solves,
    units whose worst-case LP failed, and (rho_val > 0) units with an attacked validation point."""
    import pandas as pd

    out = []
    for (data, rv, eps, rt), g in df.groupby(["dataset", "rho_val", "epsilon", "rho_test"], sort=True):
        # rho values within 1e-12 of the paper's, as epsilon: np.linspace(0, 0.6, 7) has 0.09999999999999999 and
        # np.arange(0, 0.7, 0.1) 0.30000000000000004, whose cells lost the paper's numbers
        key = (builtin_name(data), round(float(rv), 12), round(float(rt), 12))
        paper = PAPER_TABLES_A2_A3.get(key) if abs(eps - 0.2) < 1e-12 else None
        out.append({
            "data": data, "ρ val": rv, "ε": eps, "ρ test": rt, "runs": len(g),
            "pessimistic": _ms(g.get("pes_acc_test", pd.Series(dtype=float))),
            "optimistic (returned)": _ms(g.get("opt_acc_test", pd.Series(dtype=float))),
            "optimistic worst case (B.1)": _ms(g.get("opt_eval_acc_test", pd.Series(dtype=float))),
            "LinearSVC grid": _ms(g.get("svc_acc_test", pd.Series(dtype=float))),
            "LP-SVM box grid": _ms(g.get("box_acc_test", pd.Series(dtype=float))),
            "paper pessimistic": f"{paper[0]:.3f} ± {paper[1]:.3f}" if paper else "",
            "paper optimistic": f"{paper[2]:.3f} ± {paper[3]:.3f}" if paper else "",
            "non-optimal (opt/pes)": f"{_nonopt(g, 'opt')}/{_nonopt(g, 'pes')}",
            "unverified (opt/pes)": f"{_unverified(g, 'opt')}/{_unverified(g, 'pes')}",
            "worst-case LP failed": _failed_steps(g),
            "units with attacked val": _attacked_units(g),
        })
    return pd.DataFrame(out)


def _markdown(df) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(markdown_cell(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(markdown_cell(r[c]) for c in cols) + " |")
    return "\n".join(lines)


LIMITED_NOTE = (
    "Test accuracy, mean ± std over runs (std with ddof = 1). *optimistic ties*: for each run the optimistic "
    "optimum was re-solved with its validation hinge loss fixed, minimising and maximising each secondary "
    "criterion ({criteria}); the column gives the mean over runs of the smallest and the largest test "
    "accuracy among the returned optimum and those extremes, i.e. how much of the optimistic number is "
    "tie-breaking. *LinearSVC grid*: C in 10^[-3..3] selected on validation accuracy; *LP-SVM box grid*: "
    "uniform box w_bar = c in [0.05, 1] selected the same way. *paper*: Table A1 of Ustun, Xu, Zeng, Qian, "
    "*Hyperparameter Tuning Through Pessimistic Bilevel Optimization* (CPLEX; their diabetes data is the "
    "768 x 8 table, ours the 532 x 7 complete-case table). *non-optimal*: solves that stopped at the time "
    "limit ({time_limit}) or found no solution; a time-limited solve counts with its incumbent, a "
    "run without any solution is left out of that column's mean. *unverified*: solutions that failed the "
    "package's verification (bilevel.verify_model); they are still in the mean. *tie re-solve failed*: runs in "
    "which a tie re-solve raised a solver error (its message is in the runs CSV, tie_<criterion>_error); their tie "
    "range is over the other extremes. *tie re-solve non-optimal*: runs in which a tie re-solve stopped before "
    "proving its extreme (e.g. at the time limit); its point, an outer optimum if verified, still counts in the tie "
    "range. A run whose optimistic solve is not proven optimal gets no tie range, so *optimistic ties* averages "
    "over fewer runs than *runs* when some solve was not."
)

PERTURBED_NOTE = (
    "Test accuracy, mean ± std over runs, |T| = {n_train}, |V| = {n_val}. Test points inside the margin of "
    "the optimistic hyperplane are moved by the closed-form maximum-confidence attack on a linear SVM "
    "(C = 1) trained on the training set, ||delta||_2 = ρ test; with ρ val > 0 the validation points inside "
    "the margin of the clean optimistic hyperplane are attacked first. *optimistic worst case (B.1)*: at the "
    "optimistic w_bar, the model minimising the flipped-label validation hinge among models with training "
    "loss <= (1 + ε) times the least (Eq. (A1), Appendix B.1), which is what the paper's optimistic "
    "columns report; *optimistic (returned)*: the MILP's own model (independent of ε). *paper*: Tables A2 "
    "(ρ val = 0) and A3 (ρ val = 0.3), ε = 0.2, of Ustun et al. (their |T|, |V| are not stated). *non-optimal*: "
    "units whose optimistic / pessimistic solve stopped at the time limit ({time_limit}; the incumbent counts) "
    "or found no solution (left out of the mean). *unverified*: units whose solution failed the "
    "package's verification (still in the mean). A unit whose clean optimistic solve (ρ val > 0) found no solution "
    "has no attacked validation set: its baselines are left out of the mean too (baselines_status in the runs CSV). "
    "*worst-case LP failed*: units whose Eq. (A1) LP raised a solver "
    "error (opt_eval_error in the runs CSV; no worst-case accuracy). *units with attacked val*: with ρ val > 0, the "
    "units that had a validation point inside the clean optimistic margin to attack (n_val_attacked > 0); the "
    "others ran on clean validation data, as at ρ val = 0."
)


def _offset_unit(xs: np.ndarray, paper_step: float) -> float:
    """Scale of the side-by-side offsets of a plot's series: the smallest step of the x grid ``xs`` over
    ``paper_step`` (the step of the paper's grid, where the offsets are in x units), 1 for fewer than two points.
    Offsets in fixed x units put a series' points nearer the neighbouring grid value on a finer grid."""
    steps = np.diff(np.unique(xs))
    return float(steps.min()) / paper_step if len(steps) else 1.0


def _figure(nrows: int, ncols: int, figsize: tuple):
    """A matplotlib ``Figure`` and its ``(nrows, ncols)`` array of axes (shared y), made without pyplot: the plots
    are written to files, and ``matplotlib.use("Agg")`` before ``pyplot`` switched the calling program's backend
    (a notebook's inline or a GUI backend became Agg for the rest of the session, so its own figures no longer
    showed) and put the study's figures in pyplot's global figure list. ``Figure.savefig`` renders PNG with Agg
    whatever the backend."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, sharey=True, squeeze=False)


def _has_values(d, col: str) -> bool:
    """Whether the data set's rows ``d`` have a value in column ``col``: a series (or the tie bar) of a plot without
    any, e.g. the pessimistic model of a data set whose every pessimistic solve found no solution ("n/a" in the
    table), drew nothing yet stood in the legend as if plotted."""
    return col in d.columns and bool(d[col].notna().any())


def _legend(axes, loc: str) -> None:
    """One legend, in the top right panel, of what every panel of ``axes`` drew, each label once: a panel's own
    legend left out what only other panels drew (the paper's Table A1 crosses of a |V| the last panel's |V| is not
    in, e.g. ``--val-sizes 5,25``)."""
    handles = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    axes[0][-1].legend(list(handles.values()), list(handles), fontsize=7, loc=loc)


def _bars(std):
    """The error bars' half lengths: the std per cell (NaN for one run: no bar there), or None when no cell has
    one (matplotlib 3.7 warned "converting a masked element to nan" for all NaN)."""
    return std.values if std.notna().any() else None


def _plot_limited(df, data: str, path: Path) -> None:
    d = df[df["dataset"] == data]
    vs = sorted(d["n_val"].unique())
    fig, axes = _figure(1, len(vs), (4.2 * len(vs), 3.6))
    series = [("opt_acc_test", "optimistic", "tab:blue", -0.45), ("pes_acc_test", "pessimistic", "black", -0.15),
              ("svc_acc_test", "LinearSVC grid", "tab:orange", 0.15),
              ("box_acc_test", "LP-SVM box grid", "tab:green", 0.45)]
    for ax, v in zip(axes[0], vs):
        g = d[d["n_val"] == v].groupby("n_train")
        ts = np.array(sorted(d[d["n_val"] == v]["n_train"].unique()), dtype=float)
        # The offsets (-0.7 .. 0.45) are in units of a fifth of the smallest |T| step (1 on the paper's grid of
        # step 5): in |T| units, a grid of step 1 (|T| = 2, 3) drew |T| = 3's tie bar at 2.3, nearer |T| = 2
        unit = _offset_unit(ts, 5.0)
        if _has_values(d, "tie_acc_min"):
            lo, hi = g["tie_acc_min"].mean().reindex(ts), g["tie_acc_max"].mean().reindex(ts)
            ax.vlines(ts - 0.7 * unit, lo.values, hi.values, color="tab:blue", alpha=0.3, lw=7,
                      label="optimistic ties (mean min–max)")
        for col, label, color, dx in series:
            if not _has_values(d, col):
                continue
            # a cell of one run has no std (NaN): no bar is drawn there, where a bar of height 0 read as "± 0"
            m, s = g[col].mean().reindex(ts), g[col].std(ddof=1).reindex(ts)
            ax.errorbar(ts + dx * unit, m.values, yerr=_bars(s), fmt="o-", color=color, ms=4, capsize=3, label=label)
        paper = [(t, PAPER_TABLE_A1.get((builtin_name(data), int(v), int(t)))) for t in ts]
        if any(p for _, p in paper):
            px = [t for t, p in paper if p]
            ax.plot(np.array(px) - 0.15 * unit, [p[0] for _, p in paper if p], "x", color="gray",
                    label="paper pessimistic")
            ax.plot(np.array(px) - 0.45 * unit, [p[2] for _, p in paper if p], "+", color="tab:cyan", ms=8,
                    label="paper optimistic")
        ax.set_title(f"{data}: |V| = {v}")
        ax.set_xlabel("|T| (training size)")
        ax.set_xticks(ts)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("test accuracy (mean ± std)")
    _legend(axes, "lower right")
    fig.tight_layout()
    _write_atomically(path, lambda temp: fig.savefig(temp, dpi=120, format="png"))


def _plot_perturbed(df, data: str, path: Path) -> None:
    d = df[df["dataset"] == data]
    rvs, epss = sorted(d["rho_val"].unique()), sorted(d["epsilon"].unique())
    fig, axes = _figure(len(rvs), len(epss), (3.6 * len(epss), 3.2 * len(rvs)))
    # every model of the perturbed summary table (the box grid was left out of the plot)
    series = [("pes_acc_test", "pessimistic", "black", -0.016),
              ("opt_eval_acc_test", "optimistic worst case (B.1)", "tab:blue", -0.008),
              ("opt_acc_test", "optimistic (returned)", "tab:cyan", 0.0),
              ("svc_acc_test", "LinearSVC grid", "tab:orange", 0.008),
              ("box_acc_test", "LP-SVM box grid", "tab:green", 0.016)]
    for i, rv in enumerate(rvs):
        for j, eps in enumerate(epss):
            ax = axes[i][j]
            g = d[(d["rho_val"] == rv) & (d["epsilon"] == eps)].groupby("rho_test")
            # offsets (-0.016 .. 0.016) in units of a tenth of the smallest rho_test step (0.1 on the paper's grid)
            unit = _offset_unit(np.array(sorted(d["rho_test"].unique()), dtype=float), 0.1)
            for col, label, color, dx in series:
                if not _has_values(d, col):
                    continue
                m, s = g[col].mean(), g[col].std(ddof=1)  # NaN for one run: no bar, as in the limited plot
                ax.errorbar(m.index + dx * unit, m.values, yerr=_bars(s), fmt="o-", color=color, ms=3, capsize=2,
                            lw=1.2, elinewidth=0.8, label=label)
            ax.set_title(f"{data}: ρ val = {rv:g}, ε = {eps:g}", fontsize=9)
            ax.set_xlabel("ρ test")
            ax.grid(alpha=0.3)
        axes[i][0].set_ylabel("test accuracy")
    _legend(axes, "lower left")
    fig.tight_layout()
    _write_atomically(path, lambda temp: fig.savefig(temp, dpi=110, format="png"))


def _with_label_columns(records: dict, cfg: StudyConfig) -> dict:
    """``records`` with the ``label_column`` of :func:`label_column_of` in every row that lacks it: a record of a
    study run before the rows recorded it, reused on resume (it was computed with ``cfg``'s label column: another
    one is refused, :meth:`StudyConfig.reuses`)."""
    known = {}
    out = {}
    for rid, rec in records.items():
        rows = rec.get("rows", [])
        if all("label_column" in row for row in rows):
            out[rid] = rec
            continue
        filled = []
        for row in rows:
            if "label_column" not in row:
                d = row.get("dataset")
                if d not in known:
                    known[d] = label_column_of(d, d, cfg.for_dataset(d).label_column)
                row = {**row, "label_column": known[d]}
            filled.append(row)
        out[rid] = {**rec, "rows": filled}
    return out


def write_outputs(records: dict, out, cfg: StudyConfig) -> dict:
    """Write the CSVs (every row), Markdown summaries and PNG plots of the records into ``out``; returns
    ``{name: path}``."""
    out = Path(out)
    files = {}
    records = _with_label_columns(records, cfg)
    for study in STUDIES:
        df = records_frame(records, study)
        if not len(df):
            continue
        path = out / f"{study}_runs.csv"
        # every output through a temporary file renamed into place: an interrupted write left a file cut short
        _write_atomically(path, lambda temp: df.to_csv(temp, index=False))
        files[path.name] = path
        ok = df[df["error"].isna()] if "error" in df.columns else df
        # runs that ended with an error are left out of the table: say how many (the table's "runs" counted only the
        # others), and write the summary even when every run errored (an earlier call's summary and plots stayed,
        # contradicting the CSV)
        n_bad = df.loc[df["error"].notna(), "run_id"].nunique() if "error" in df.columns else 0
        errors = (f"**{n_bad} of {df['run_id'].nunique()} runs ended with an error** and are left out of the table "
                  f"(the error column of {path.name}; a resume computes them again).\n\n" if n_bad else "")
        if study == "limited":
            summ = summarize_limited(ok) if len(ok) else None
            note = LIMITED_NOTE.format(criteria=", ".join(cfg.tie_criteria), time_limit=limit_text(cfg.time_limit))
            title = "Limited-data study (Section 5.1.1, Table A1)"
        else:
            summ = summarize_perturbed(ok) if len(ok) else None
            note = PERTURBED_NOTE.format(n_train=cfg.perturbed_n_train, n_val=cfg.perturbed_n_val,
                                         time_limit=limit_text(cfg.time_limit))
            title = "Perturbed-data study (Section 5.1.2, Tables A2-A3)"
        md = out / f"{study}_summary.md"
        if cfg.label is not None:
            title += f": {cfg.label}"
        table = _markdown(summ) if summ is not None else "No run finished without an error."
        text = f"# {title}\n\n{errors}{note}\n\n{table}\n"
        # UTF-8 whatever the locale: the tables hold ±, ρ, ε and –, which an ASCII or cp1252 locale (Windows) could
        # not encode: a UnicodeEncodeError traceback after every unit had run, and an empty summary file left
        _write_atomically(md, lambda temp: temp.write_text(text, encoding="utf-8"))
        files[md.name] = md
        for data in sorted(df["dataset"].dropna().unique()) if "dataset" in df.columns else ():
            png = out / f"{study}_{_slug(data)}.png"
            if not (ok["dataset"] == data).any():
                png.unlink(missing_ok=True)  # an earlier call's plot of this data set would contradict the tables
                continue
            (_plot_limited if study == "limited" else _plot_perturbed)(ok, data, png)
            files[png.name] = png
    return files


if __name__ == "__main__":  # python -m experiments.uci_study did nothing and exited 0
    sys.exit(_NOT_A_SCRIPT)
