"""Mutation study 24 of four experiment scripts (experiments/option_safety.py: the HiGHS option scan for wrong
answers; experiments/probe_binaries.py: probing the binaries of a model built around its optimum by LPs;
experiments/proof_time.py: re-solves of a proven instance started at its optimum; experiments/bench_feasible_start.py:
``tune`` with and without the MIP start of the feasible-replica model): each test kills a mutant that passed the tests
of those modules (tests/test_option_safety.py, test_probe_binaries.py, test_proof_time.py, test_bench_script_args.py,
the scripts' rows of test_cli.py and test_doc_names.py), against the documented behaviour (the scripts' docstrings and
help, experiments/PERFORMANCE.md, ``bilevel.tune.padded_cutoff``) and an independent oracle (scipy's ``milp`` on the
compiled HighsLp, with and without integrality, written here from the HighsLp's arrays; hand computations of the
documented rules and of a geometric mean; the output parsed here; and, for what a script passes on, the arguments
seen by a recording stand-in of the function it calls). 94 mutants, all run: 9 killed by those tests, 85 survived; of
these 78 are killed here and 7 are equivalent or pin nothing documented (InputError is a ValueError; the floor of 1
on the scale of ``wrong``'s tolerance; a size of 1 refused by check_splits instead of argparse; the reference solved
without presolve; a column fixed both ways when no solution is within the cutoff; proof_time's 60 s default limit; the
re-solve's objective printed as the tune call's). Two of the 7 were documented after the study (``wrong``'s floor and
the 60 s default) and are killed here too. One mutant showed a fault of probe_binaries.py, fixed with it: an
infeasible LP relaxation (a ``--cutoff`` below its bound) had its last iterate's objective reported as the root LP
bound."""
from __future__ import annotations

import functools
import importlib
import math
import re
import sys
import types
import warnings
from pathlib import Path

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csc_matrix

import bilevel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bilevel.solve import compile_model  # noqa: E402
from bilevel.tune import HIGHS_OPTIONS, padded_cutoff  # noqa: E402
from experiments import bench_feasible_start, option_safety, probe_binaries, proof_time  # noqa: E402
from experiments.bench_milp import benchmark_split  # noqa: E402

import bilevel.warmstart as warmstart  # noqa: E402

tune_module = importlib.import_module("bilevel.tune")  # the module (bilevel.tune is the function)
HIGHS_1_15_1 = highspy.Highs().version() == "1.15.1"


# --------------------------------------------------------------------------------------------------
# The oracle: scipy's milp on a compiled model's HighsLp
# --------------------------------------------------------------------------------------------------


def _scipy_solve(lp, integer=True, fix=None):
    """``(status, value)`` of min c x + offset over the HighsLp ``lp`` by scipy's milp (status 0 optimal, 2
    infeasible); ``integer`` False: its LP relaxation; ``fix``: ``{column: value}`` bounds fixed."""
    assert lp.a_matrix_.format_ == highspy.MatrixFormat.kColwise and lp.sense_ == highspy.ObjSense.kMinimize
    A = csc_matrix((np.array(lp.a_matrix_.value_), np.array(lp.a_matrix_.index_), np.array(lp.a_matrix_.start_)),
                   shape=(lp.num_row_, lp.num_col_))
    lower, upper = np.array(lp.col_lower_, dtype=float), np.array(lp.col_upper_, dtype=float)
    for k, value in (fix or {}).items():
        lower[k] = upper[k] = value
    kinds = [1 if integer and kind == highspy.HighsVarType.kInteger else 0 for kind in lp.integrality_]
    res = milp(np.array(lp.col_cost_), integrality=np.array(kinds), bounds=Bounds(lower, upper),
               constraints=LinearConstraint(A, np.array(lp.row_lower_), np.array(lp.row_upper_)))
    return res.status, (res.fun + lp.offset_ if res.status == 0 else math.inf)


def _integer_columns(lp):
    return [k for k, kind in enumerate(lp.integrality_) if kind == highspy.HighsVarType.kInteger]


@functools.lru_cache(maxsize=None)
def _probe_oracle(data, n, seed, mode):
    """The model of probe_binaries.model_around (cutoff: the optimum) and, by scipy's LPs: the root LP bound, the
    free binaries, the smaller branch LP bound of each, the fixings the docstring's rule gives (:func:`_fixings`)
    and both branch LP bounds of each free binary."""
    model, cutoff = probe_binaries.model_around(data, n, seed, mode, None)
    lp = compile_model(model).lp
    root = _scipy_solve(lp, integer=False)[1]
    free = [k for k in _integer_columns(lp) if lp.col_lower_[k] < lp.col_upper_[k]]
    pairs = {k: [_scipy_solve(lp, integer=False, fix={k: v})[1] for v in (0.0, 1.0)] for k in free}
    return model, cutoff, root, free, {k: min(b) for k, b in pairs.items()}, _fixings(pairs, cutoff), pairs


def _fixings(pairs, cutoff):
    """``{column: value}`` by the docstring's rule from the branch LP bounds ``pairs``: a side whose LP bound is
    above ``cutoff`` (infeasible: inf) is cut off, round-off 1e-6 (1 + cutoff) aside (no bound may be that close);
    a column with exactly one side cut takes the other value."""
    slack = 1e-6 * (1 + abs(cutoff))
    fixed = {}
    for k, bounds in pairs.items():
        assert all(abs(b - cutoff) > slack or abs(b - cutoff) < 1e-9 * (1 + cutoff) for b in bounds)
        cut = [b > cutoff + slack for b in bounds]
        if cut[0] != cut[1]:
            fixed[k] = 1.0 if cut[0] else 0.0
    return fixed


# --------------------------------------------------------------------------------------------------
# option_safety.py
# --------------------------------------------------------------------------------------------------


def test_wrong_applies_the_documented_rule():
    """``wrong``: another status than a time limit, "optimal" at another value (relative 1e-4: below as well as
    above) or a dual bound above the proven optimum (beyond that tolerance) is wrong; nothing contradicts a reference
    that is not a proven optimum (an infeasible reference included). Oracle: the docstring's rule by hand. Mutation
    testing: a tolerance of 1e-3, a bound allowed 10 tolerances above, only "Infeasible" as a wrong status, only an
    optimum above the reference as wrong, and only a time-limited reference as unproven passed the suite."""
    assert option_safety.wrong(("Optimal", 0.5), ("Optimal", 0.5 + 5e-4))  # 5e-4 > 1e-4 * 1
    assert option_safety.wrong(("Optimal", 0.5), ("Optimal", 0.4))  # below the proven optimum: also wrong
    assert option_safety.wrong(("Optimal", 0.5), ("Unknown", 0.5))  # another status than a time limit
    assert option_safety.wrong(("Optimal", 0.5, 0.5), ("Optimal", 0.5, 0.5 + 5e-4))  # bound 5 tolerances above
    assert not option_safety.wrong(("Optimal", 0.5, 0.5), ("Optimal", 0.5, 0.5 + 5e-5))
    assert not option_safety.wrong(("Infeasible", float("inf")), ("Optimal", 0.4))
    assert not option_safety.wrong(("Unknown", 0.5, 0.3), ("Optimal", 0.4, 0.4))
    assert not option_safety.wrong(("Infeasible", float("inf"), float("inf")), ("Optimal", 0.4, 0.4))


def test_wrongs_tolerance_is_absolute_1e_4_below_magnitude_1():
    """``wrong``'s tolerance is ``1e-4 * max(1, |reference|)`` (its docstring): absolute 1e-4 for optima of
    magnitude below 1, relative above. Oracle: that rule by hand at optima 0, 0.01 and 100. Mutation testing:
    the floor of 1 dropped (a purely relative tolerance, 0 at an optimum of 0) passed the suite."""
    assert not option_safety.wrong(("Optimal", 0.0), ("Optimal", 5e-5))
    assert option_safety.wrong(("Optimal", 0.0), ("Optimal", 2e-4))
    assert not option_safety.wrong(("Optimal", 0.01, 0.01), ("Optimal", 0.01 + 9e-5, 0.01 + 9e-5))
    assert option_safety.wrong(("Optimal", 0.01), ("Optimal", 0.01 + 1.1e-4))
    assert not option_safety.wrong(("Optimal", 100.0), ("Optimal", 100.009))
    assert option_safety.wrong(("Optimal", 100.0), ("Optimal", 100.011))


def test_instances_are_the_documented_set():
    """The instances: both data sets at each size, three splits each (PERFORMANCE.md: "36 small MILPs (sizes 6 and
    8, three splits, both data sets, optimistic and pessimistic epsilon = 0 and 0.2"), the pessimistic ones with every
    validation label flipped; the flipped set and epsilon read back from each model's own bilevel_info. Mutation
    testing: two splits, epsilon 0.1 instead of 0.2 and one label left unflipped passed the suite."""
    built = []
    real = bilevel.build_pessimistic_model

    def recording(*args, **kwargs):
        model = real(*args, **kwargs)
        built.append(model.bilevel_info)
        return model

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bilevel, "build_pessimistic_model", recording)
        mp.setattr(option_safety, "compile_model", lambda m: m)  # the models, not their HighsLps
        out = option_safety.instances([5])
    assert len(out) == 2 * 3 * 3
    assert len(built) == 2 * 3 * 2
    assert sorted(float(info["epsilon"]) for info in built) == [0.0] * 6 + [0.2] * 6
    assert all(sorted(info["flipped"]) == list(range(5)) for info in built)
    datasets = {name.split()[0] for name, _ in out}
    assert datasets == {"cancer", "diabetes"}
    assert sorted({name.split()[-1] for name, _ in out}) == ["0", "1", "2"]


def test_the_defaults_are_the_documented_scan(monkeypatch):
    """PERFORMANCE.md, *A refused option*: the scan solves the MILPs of sizes 6 and 8, "20 s each". Oracle: the
    sizes and time limit reaching a recording stand-in of ``instances`` and ``run``. Mutation testing: the default
    sizes [6] and a default time limit of 10 s passed the suite."""
    seen = {}

    def instances(sizes):
        seen["sizes"] = list(sizes)
        return [("x", None)]

    def run(cm, options, time_limit):
        seen.setdefault("limits", set()).add(time_limit)
        return ("Optimal", 0.0, 0.0)

    monkeypatch.setattr(option_safety, "instances", instances)
    monkeypatch.setattr(option_safety, "run", run)
    assert option_safety.main(["--options", "presolve=off"]) == 0
    assert seen == {"sizes": [6, 8], "limits": {20.0}}


def _own_status(cm, time_limit):
    """HiGHS's status of the compiled model, solved here with plain highspy under its defaults."""
    h = highspy.Highs()
    h.silent()
    h.setOptionValue("time_limit", float(time_limit))
    h.passModel(cm.lp)
    h.run()
    return h.modelStatusToString(h.getModelStatus())


def test_the_summary_counts_proven_optima_and_time_limits(monkeypatch, capsys):
    """The first line says how many MILPs the defaults prove optimal, each option's line how many of those it gets
    wrong and on how many it hit the time limit (module docstring: "a time limit is not a wrong answer and is
    counted apart"); ``run`` solves under ``--time-limit``. With a time limit of 0 s nothing is proven. Oracle: the
    statuses of the same instances solved here by plain highspy, and, at 20 s, scipy's milp optima. Mutation testing:
    counting every MILP as proven, counting "Optimal" solves as time limits, "wrong on N of" every MILP, and a time
    limit fixed at 20 s passed the suite."""
    real = option_safety.instances
    monkeypatch.setattr(option_safety, "instances", lambda sizes: real(sizes, seeds=(1,)))
    models = real([5], seeds=(1,))
    statuses = [_own_status(cm, 0.0) for _, cm in models]
    assert option_safety.main(["--options", "presolve=off", "--sizes", "5", "--time-limit", "0"]) == 0
    out = capsys.readouterr().out.splitlines()
    proven = statuses.count("Optimal")
    limits = statuses.count("Time limit reached")
    assert out[0].startswith(f"{len(models)} MILPs, {proven} proven optimal")
    assert out[1].startswith(f"presolve='off': wrong on 0 of {proven}, time limit on {limits}")
    assert limits > 0
    # and at the default 20 s every one of these tiny MILPs is proven, at scipy's optimum
    for _, cm in models:
        status, objective, bound = option_safety.run(cm, {}, 20.0)
        assert status == "Optimal"
        assert objective == pytest.approx(_scipy_solve(cm.lp)[1], rel=1e-6, abs=1e-7)
        assert bound <= objective + 1e-7


def test_a_time_limited_run_reports_a_dual_bound_not_above_the_optimum():
    """``run`` returns HiGHS's MIP dual bound (its docstring), which for a minimisation is never above the optimum,
    even when the solve stops at its time limit with no bound yet. Oracle: scipy's milp optimum. Mutation testing:
    returning the objective as the bound (inf with no solution: a time limit then counted as wrong) was killed by
    the suite on HiGHS 1.15.1 only; this checks it on any version."""
    name, cm = option_safety.instances([5], seeds=(1,))[0]
    status, objective, bound = option_safety.run(cm, {}, 0.0)
    optimum = _scipy_solve(cm.lp)[1]
    assert status == "Time limit reached"
    assert not bound > optimum + 1e-9
    assert not option_safety.wrong(option_safety.run(cm, {}, 20.0), (status, objective, bound))


def test_an_option_highs_rejects_ends_the_scan_with_one_message(monkeypatch):
    """An option HiGHS rejects ends the scan with the package's message (``run``: a SystemExit, not an InputError
    traceback). Oracle: the option given, named in the message. Mutation testing:
    catching ValueError instead of InputError (the traceback) passed the suite."""
    real = option_safety.instances
    monkeypatch.setattr(option_safety, "instances", lambda sizes: real(sizes, seeds=(0,))[:1])
    with pytest.raises(SystemExit) as exc:
        option_safety.main(["--options", "presolve=sometimes", "--sizes", "5"])
    assert str(exc.value.code) == "HiGHS rejected option presolve='sometimes'"


@pytest.mark.skipif(not HIGHS_1_15_1, reason="measured on HiGHS 1.15.1")
def test_the_example_of_a_wrong_answer_shows_the_outcome_against_the_optimum(monkeypatch, capsys):
    """Each option's line gives one wrong MILP as an example: its status and objective under the option, the dual
    bound HiGHS reported with it, "against" the proven optimum. ``mip_lifting_for_probing=1`` calls the MILPs
    infeasible and ``user_objective_scale=5`` reports a bound 32 times the optimum (module docstring). Oracle:
    scipy's milp optimum of the named instance. Mutation testing: the example's bound taken from the reference solve
    and "against" the option's own objective passed the suite."""
    real = option_safety.instances
    monkeypatch.setattr(option_safety, "instances", lambda sizes: real(sizes, seeds=(1,)))
    models = dict(real([5], seeds=(1,)))
    assert option_safety.main(["--options", "mip_lifting_for_probing=1", "user_objective_scale=5",
                               "--sizes", "5"]) == 1
    lines = capsys.readouterr().out.splitlines()[1:]
    pattern = re.compile(r"\(e\.g\. (.+): (\D+) (\S+), bound (\S+), against (\S+)\)$")
    examples = [pattern.search(line) for line in lines]
    assert all(examples), lines
    for example in examples:
        optimum = _scipy_solve(models[example.group(1)].lp)[1]
        assert float(example.group(5)) == pytest.approx(optimum, rel=1e-5, abs=1e-6)
    lifting, scale = examples
    assert lifting.group(2) == "Infeasible"
    assert float(scale.group(4)) > 2 * float(scale.group(5)) > 0  # the bound, not the optimum


# --------------------------------------------------------------------------------------------------
# probe_binaries.py
# --------------------------------------------------------------------------------------------------


def test_probe_bounds_and_fixings_are_the_lp_bounds():
    """``probe``: ``root`` is the LP relaxation's bound, ``branch`` per free column the smaller of its two branch LP
    bounds (``inf`` for an infeasible branch), ``fixed`` the value every solution of objective <= cutoff has, by the
    rule of the docstring (the other branch's LP infeasible or above ``U``). Oracle: scipy's milp without
    integrality on the compiled model, each binary fixed at 0 and at 1; probed against a cutoff below the one the
    model was built around as well (a branch LP bound 0.005 above it is cut off; a column with both sides cut off
    has no solution within the cutoff either way, so any fixing of it holds: not checked). Mutation testing: the
    root solved as the MILP (integrality kept), the larger branch bound, the branch at 0 left free to 1, and a
    cutoff tolerance of 1e-2 passed the suite."""
    model, cutoff, root, free, branch, fixed, pairs = _probe_oracle("diabetes", 6, 0, "opt")
    res = probe_binaries.probe(model, cutoff)
    assert res["root"] == pytest.approx(root, rel=1e-6, abs=1e-8)
    assert res["free"] == free
    assert res["fixed"] == fixed and fixed  # (6 of 23 here)
    assert res["branch"].keys() == branch.keys()
    for k in free:
        assert res["branch"][k] == pytest.approx(branch[k], rel=1e-6, abs=1e-8)
    assert max(branch.values()) > root + 1e-3  # one branching moves the bound here: max and min differ
    spread = [b for b in pairs.values() if max(b) < math.inf and max(b) - min(b) > 0.02]
    lower = max(spread[0]) - 0.005  # the larger bound of a column 0.005 above the cutoff: that side is cut off
    expected = _fixings(pairs, lower)
    either = {k for k, b in pairs.items() if min(b) > lower + 1e-6 * (1 + lower)}  # no solution within either way
    got = {k: v for k, v in probe_binaries.probe(model, lower)["fixed"].items() if k not in either}
    assert got == expected and len(expected) > len(fixed)


def test_a_cutoff_below_the_lp_bound_leaves_every_branch_infeasible():
    """A model built around a cutoff below its LP relaxation's bound (``--cutoff`` takes any value): the LP
    relaxation and every branch LP are infeasible, so ``root`` and each ``branch`` are ``inf`` ("``inf`` for an
    infeasible branch"; an infeasible LP bounds nothing below inf). (What is fixed is not checked: no solution is
    within the cutoff, so any fixing holds.) Oracle: scipy's milp without integrality. Mutation testing: an
    infeasible branch's LP value kept (HiGHS reports the last iterate's objective) passed the suite; the script
    reported that value as the root LP bound too (fixed in experiments/probe_binaries.py)."""
    model, cutoff = probe_binaries.model_around("diabetes", 6, 0, "opt", 0.01)
    lp = compile_model(model).lp
    assert _scipy_solve(lp, integer=False) == (2, math.inf)
    res = probe_binaries.probe(model, cutoff)
    assert res["root"] == math.inf and res["free"]
    assert set(res["branch"].values()) == {math.inf}


def test_probe_counts_every_binary_and_only_free_ones_are_probed():
    """``binaries`` counts the model's binaries, ``free`` only those whose bounds still differ (a binary the build
    left at the bounds [0, 0] is not free, nor probed). Oracle: the Pyomo model's own binaries, one given the upper
    bound 0 here. Mutation testing: counting only the free binaries, and ``lower <= upper`` as free, passed the
    suite."""
    model, cutoff = probe_binaries.model_around("diabetes", 6, 0, "opt", None)
    binaries = [v for v in model.component_data_objects(pyo.Var) if v.is_binary() and not v.fixed]
    held = binaries[0]
    held.setub(0)
    res = probe_binaries.probe(model, cutoff)
    (column,) = [k for k, var in enumerate(res["columns"]) if var is held]
    assert res["binaries"] == len(binaries)
    assert column not in res["free"] and len(res["free"]) == len(binaries) - 1


def _probe_lines(text):
    """``(cutoff, root, binaries, free, fixed, LPs, best)`` of each entry of probe.txt."""
    pattern = re.compile(r"model built around (\S+):\nroot LP bound (\S+); (\d+) binaries, (\d+) free after the "
                         r"build's fixings; probing fixes (\d+) \((\d+) LPs, \S+ s\); best bound after one "
                         r"branching \(full strong branching\) (\S+)\n")
    return [tuple(float(g) for g in m.groups()) for m in pattern.finditer(text)]


def test_probe_txt_reports_the_lp_bounds_and_counts(tmp_path, capsys):
    """probe.txt (the module docstring): the root LP bound, the counts, the LPs (each free binary fixed at 0 and at
    1: two each), and the best bound one branching reaches (the largest over the binaries of the smaller of its two
    branch LP bounds); a second run appends its entry (results/probe_binaries/probe.txt holds four runs), and
    ``--cutoff`` builds the model around the value given. Oracle: scipy's LPs (the root and the branch bounds) and
    the value passed. Mutation testing: the smallest branch bound as the best, one LP per free binary, the file
    rewritten by each run, ``--cutoff`` ignored, the best bound printed as the root's and the free count printed as
    the fixings passed the suite."""
    model, cutoff, root, free, branch, fixed, _ = _probe_oracle("diabetes", 6, 0, "opt")
    args = ["--data", "diabetes", "--n", "6", "--seed", "0", "--out", str(tmp_path)]
    assert probe_binaries.main(args) == 0
    assert probe_binaries.main([*args, "--cutoff", "0.25"]) == 0
    capsys.readouterr()
    first, second = _probe_lines((tmp_path / "probe.txt").read_text())
    assert first[0] == pytest.approx(cutoff, rel=1e-5)
    assert first[1] == pytest.approx(root, rel=1e-5, abs=1e-7)
    assert first[3] == len(free) and first[4] == len(fixed) and first[5] == 2 * len(free)
    assert first[6] == pytest.approx(max(branch.values()), rel=1e-5, abs=1e-7)
    assert second[0] == 0.25 and second[5] == 2 * second[3]


def test_model_around_builds_the_documented_models():
    """``model_around``: by default around the optimum ``bilevel.tune`` finds (pessimistic: every validation label
    flipped, with the tune call's lambda bound), padded as tune pads (``padded_cutoff``: "the experiments build their
    models the same way"); ``pes0`` is epsilon 0. Oracle: scipy's milp optimum of the model built is its cutoff (the
    model built around the right optimum keeps it), and the model's own bilevel_info. Mutation testing: epsilon 0.2
    for ``pes0``, the cutoff of a tune call flipping by margin, one label left unflipped, the bound 1000 always, and
    the cutoff unpadded (optimistic and pessimistic) passed the suite."""
    for mode in ("pes0", "opt"):
        model, cutoff = probe_binaries.model_around("diabetes", 6, 1, mode, None)
        info = model.bilevel_info
        lp = compile_model(model).lp
        assert _scipy_solve(lp)[1] == pytest.approx(cutoff, rel=1e-5, abs=1e-7)
        assert pyo.value(model.objective_cutoff.upper) == pytest.approx(padded_cutoff(cutoff), rel=1e-12, abs=0)
        if mode == "pes0":
            assert info["epsilon"] == 0.0 and sorted(info["flipped"]) == list(range(6))
            s = benchmark_split("diabetes", 6, 1)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                res = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, mode="pessimistic", flip="all")
            assert info["lambda_bound"] == res.lambda_bound
            assert cutoff == pytest.approx(res.objective, rel=1e-6)


# --------------------------------------------------------------------------------------------------
# proof_time.py
# --------------------------------------------------------------------------------------------------


def _recording_solves(monkeypatch):
    """Record ``(model, keyword arguments, SolveInfo)`` of each re-solve of proof_time."""
    seen = []
    real = proof_time.bilevel.solve_model

    def solve_model(model, **kwargs):
        info = real(model, **kwargs)
        seen.append((model, kwargs, info))
        return info

    monkeypatch.setattr(proof_time.bilevel, "solve_model", solve_model)
    return seen


def test_pessimistic_re_solves_are_the_tune_calls_milp_started_at_its_optimum(monkeypatch):
    """The pessimistic re-solves rebuild the tune call's last MILP: every validation label flipped, the same epsilon
    and lambda bound; each is started at the optimum, under HiGHS seed ``rs`` of ``--random-seeds`` with the
    package's HiGHS options and the time limit given (module docstring); the plain model decides no training point
    (no cutoff). Oracle: the model's bilevel_info, the options HiGHS held (SolveInfo.options) and the start handed
    to the solve. Mutation testing: HiGHS seed 0 for every re-solve, the package options dropped, no MIP start,
    epsilon 0.2, lambda bound 1000, a margin flip, the time limit fixed at 60 s and counting the points not decided
    passed the suite."""
    seen = _recording_solves(monkeypatch)
    res, out = proof_time.proof_times("diabetes", 6, 1, 0.0, random_seeds=2, time_limit=25.0)
    assert sorted(res.flipped) == list(range(6)) and res.epsilon == 0.0
    assert [(c is None, rs) for c, rs, _, _ in out] == [(True, 0), (False, 0), (True, 1), (False, 1)]
    assert len(seen) == 4
    for (cutoff, rs, decided, info), (model, kwargs, seen_info) in zip(out, seen):
        assert info is seen_info
        assert model.bilevel_info["epsilon"] == 0.0 and model.bilevel_info["lambda_bound"] == res.lambda_bound
        assert sorted(model.bilevel_info["flipped"]) == list(range(6))
        assert kwargs["mip_start"] is not None and len(kwargs["mip_start"]) > 0
        assert info.options["random_seed"] == rs and info.options["time_limit"] == 25.0
        assert {k: info.options[k] for k in HIGHS_OPTIONS} == HIGHS_OPTIONS
        assert info.objective == pytest.approx(res.objective, rel=1e-4, abs=1e-6)
        if cutoff is None:
            assert decided == 0
        else:
            n_fixed = sum(1 for z in model.z_beta.values() if z.fixed)
            assert decided == n_fixed <= 6
    assert res.lambda_bound != 1000.0  # (10000 here: the mutant's 1000 differs)


def test_proof_times_default_limit_is_60_seconds(monkeypatch):
    """``proof_times`` and the command's ``--time-limit`` default to 60 s per solve (the docstring and the help).
    Oracle: the signature's default and the arguments seen by a recording stand-in of ``proof_times``. Mutation
    testing: another default limit passed the suite."""
    import inspect

    assert inspect.signature(proof_time.proof_times).parameters["time_limit"].default == 60.0
    seen = []
    monkeypatch.setattr(proof_time, "proof_times", lambda *args, **kwargs: seen.append(args))
    assert proof_time.main(["--data", "cancer", "--n", "10"]) == 0
    assert len(seen) == 1 and seen[0][5] == 60.0


def test_optimistic_re_solves_are_built_around_their_cutoff(monkeypatch):
    """``cutoffs``: ``"optimum"`` builds the optimistic model around the tune call's optimum, padded as tune pads.
    Oracle: the model's own cutoff row. Mutation testing: the optimistic model built without its cutoff passed the
    suite."""
    seen = _recording_solves(monkeypatch)
    res, out = proof_time.proof_times("diabetes", 6, 0, 0.0, random_seeds=1, time_limit=25.0, mode="optimistic",
                                      cutoffs=("optimum", 0.3))
    assert [pyo.value(model.objective_cutoff.upper) for model, _, _ in seen] == pytest.approx(
        [padded_cutoff(res.objective), 0.3], rel=1e-12)


def test_an_instance_tune_does_not_prove_ends_with_system_exit():
    """proof_times "Raises SystemExit when tune does not prove the instance optimal" (its docstring). Oracle: a
    time limit far below what any solve takes. Mutation testing: raising only for an infeasible status passed the
    suite."""
    with pytest.raises(SystemExit, match="tune did not prove the instance optimal"):
        proof_time.proof_times("diabetes", 6, 0, 0.0, time_limit=1e-9, mode="optimistic")


def test_cutoffs_entries_read_as_documented():
    """``--cutoffs`` entries: ``none``, ``optimum`` or a finite mean hinge value >= 0 (``_cutoff``'s docstring):
    ``none`` is None, 0 is allowed, ``inf`` is not. Mutation testing: 0 refused, inf accepted and ``none`` kept as
    text passed the suite."""
    import argparse

    assert proof_time._cutoff("none") is None
    assert proof_time._cutoff("optimum") == "optimum"
    assert proof_time._cutoff("0") == 0.0
    with pytest.raises(argparse.ArgumentTypeError, match="finite mean hinge value >= 0"):
        proof_time._cutoff("inf")


def test_the_command_passes_its_documented_defaults(monkeypatch):
    """proof_time's defaults: pessimistic (the module docstring's first example; the optimistic one says
    ``--mode optimistic``), epsilon 0.2 (PERFORMANCE.md's command without ``--epsilon`` writes
    ``cancer_n20_s0_eps0.2.txt``), HiGHS seeds 0 and 1 (PERFORMANCE.md: "HiGHS seeds 0 and 1"), the models none and
    optimum (its help: "default: none optimum"); ``--time-limit`` is passed on. Oracle: the arguments a recording
    stand-in of proof_times receives (the default time limit, 60 s, is documented nowhere: not checked). Mutation
    testing: the defaults optimistic, epsilon 0, one seed, the optimum model only, and a time limit fixed at 60 s
    passed the suite."""
    calls = []
    monkeypatch.setattr(proof_time, "proof_times", lambda *args, **kwargs: calls.append((args, kwargs)))
    assert proof_time.main(["--data", "cancer", "--n", "10"]) == 0
    assert proof_time.main(["--data", "cancer", "--n", "10", "--time-limit", "7"]) == 0
    (args, kwargs), (args7, _) = calls
    assert args[:5] == ("cancer", 10, 0, 0.2, 2) and args[6:8] == ("pessimistic", [None, "optimum"])
    assert args7[5] == 7.0


def test_each_line_labels_its_model_and_counts_its_decided_points(capsys):
    """Each re-solve's line names its model (``plain model``, ``built around the optimum`` or ``built around`` the
    value given, 0 included: "a number (... at least the optimum)", and cancer 5/5 split 0's optimum is 0) and the
    training points its cutoff decided, then its HiGHS seed. Oracle: the plain model decides none; the cutoffs
    passed. Mutation testing: a cutoff of 0 labelled the plain model, and the HiGHS seed printed as the decided
    count passed the suite."""
    assert proof_time.main(["--mode", "optimistic", "--data", "cancer", "--n", "5", "--seed", "0", "--random-seeds",
                            "2", "--cutoffs", "none", "0", "--time-limit", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("tune: optimal 0.000000")
    assert len(lines) == 5
    for line, seed, label in zip(lines[1:], (0, 0, 1, 1), ("plain model", "built around 0", "plain model",
                                                            "built around 0")):
        assert line.startswith(f"started at the optimum, {label} (")
        assert f"HiGHS seed {seed}: optimal " in line
    assert "(0 points decided), HiGHS seed 1" in lines[3]


# --------------------------------------------------------------------------------------------------
# bench_feasible_start.py
# --------------------------------------------------------------------------------------------------


def test_the_side_without_drops_only_the_feasible_replicas_start_after_its_lps():
    """``_without_feasible_start``: ``queued_start`` as before 2026-11-29, no start for a pessimistic model with a
    feasible-only replica, "after its LPs" (the real function still runs), the real start for every other model.
    Oracle: a recording stand-in of the real function. Mutation testing: dropping the start of every pessimistic
    model (``or``), and not running the real function for the feasible replica, passed the suite."""
    calls = []

    def real(info, w_bar):
        calls.append(info)
        return ("start", len(calls))

    patched = bench_feasible_start._without_feasible_start(real)
    assert patched({"mode": "pessimistic", "replica": "feasible"}, None) is None
    assert len(calls) == 1
    assert patched({"mode": "pessimistic", "replica": "optimal"}, None) == ("start", 2)
    assert patched({"mode": "optimistic"}, None) == ("start", 3)


def test_run_patches_both_names_for_the_side_without_and_restores_them(monkeypatch):
    """``_run``: the side "without" makes ``queued_start`` return None for the feasible-replica model in both
    places tune reaches it (``bilevel.warmstart`` and ``bilevel.tune``, which imports it by name), the side "with"
    keeps the real one; both are restored after the call. The call: pessimistic, epsilon 0.2, every label flipped,
    ``replica="feasible"``, ``clock="nodes"``, the time limit given (module docstring). Oracle: what a recording
    stand-in of ``bilevel.tune`` sees. Mutation testing: patching only bilevel.warmstart, restoring only it, the two
    sides swapped, epsilon 0.1, the wall clock and the time limit fixed at 120 s passed the suite."""
    def real(info, w_bar):
        return "start"

    monkeypatch.setattr(warmstart, "queued_start", real)
    monkeypatch.setattr(tune_module, "queued_start", real)
    feasible = {"mode": "pessimistic", "replica": "feasible"}
    seen = []

    def tune(*args, **kwargs):
        seen.append((args[4:], kwargs, warmstart.queued_start(feasible, None),
                     tune_module.queued_start(feasible, None)))
        return "result"

    monkeypatch.setattr(bench_feasible_start.bilevel, "tune", tune)
    s = types.SimpleNamespace(X_train=1, y_train=2, X_val=3, y_val=4)
    for start in (False, True):
        seconds, result = bench_feasible_start._run(s, "opt", start, 7.0)
        assert result == "result" and seconds >= 0
        assert warmstart.queued_start is real and tune_module.queued_start is real
    (args0, kw0, w0, t0), (args1, kw1, w1, t1) = seen
    assert (w0, t0) == (None, None) and (w1, t1) == ("start", "start")
    for args, kwargs in ((args0, kw0), (args1, kw1)):
        assert args == ("pessimistic",)
        assert kwargs == {"epsilon": 0.2, "flip": "all", "optimistic": "opt", "replica": "feasible",
                          "time_limit": 7.0, "clock": "nodes"}


def _fake_main(monkeypatch, outcomes):
    """Run bench_feasible_start.main with ``_run`` and the optimistic tune call recorded and scripted:
    ``outcomes[(start, seed)] = (seconds, status, verified)``."""
    calls = []

    def run(s, opt, start, time_limit):
        pair = sum(1 for c in calls if c[0] == "run" and c[2])  # the pairs the side "with" ended
        calls.append(("run", s, start, time_limit, opt))
        seconds, status, verified = outcomes.get((start, pair), (1.0, "optimal", True))
        return seconds, types.SimpleNamespace(optimal=status == "optimal", status=status, objective=0.5,
                                              verified=verified)

    def tune(*args, **kwargs):
        calls.append(("opt", args[4:], kwargs))
        return "opt"

    monkeypatch.setattr(bench_feasible_start, "_run", run)
    monkeypatch.setattr(bench_feasible_start.bilevel, "tune", tune)
    return calls


def test_the_geometric_mean_covers_the_pairs_both_sides_proved(monkeypatch, capsys):
    """Each pair's line gives time(with) / time(without), "-" when a side did not prove optimality, and "NOT
    VERIFIED" when either side's solution failed verification; the summary is the geometric mean of the ratios over
    the pairs both sides proved optimal, with their range (time-limited pairs are listed, not averaged). Oracle:
    the ratios 2 and 1/4 by hand: mean sqrt(1/2), range 0.25-2.00. Mutation testing: the inverse ratio, pairs
    either side proved, a mean over one pair too many, the range as first-last, "NOT VERIFIED" only when both
    failed, and a ratio printed for a time-limited pair passed the suite."""
    _fake_main(monkeypatch, {(False, 0): (1.0, "optimal", True), (True, 0): (2.0, "optimal", True),
                             (False, 1): (4.0, "optimal", False), (True, 1): (1.0, "optimal", True),
                             (False, 2): (3.0, "optimal", True), (True, 2): (6.0, "time_limit", True)})
    assert bench_feasible_start.main(["--data", "diabetes", "--sizes", "5", "--seeds", "0", "1", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    pairs = lines[1:4]
    assert [line.split("|")[-1].split()[0] for line in pairs] == ["2.00", "0.25", "-"]
    assert ["NOT VERIFIED" in line for line in pairs] == [False, True, False]
    assert lines[4] == (f"geometric mean time(with) / time(without) over 2 pairs proved optimal by both: "
                        f"{math.sqrt(0.5):.2f} (range 0.25-2.00)")


def test_the_defaults_and_order_of_the_instances(monkeypatch, capsys):
    """The documented instances: cancer and diabetes, |T| = |V| in 10 15 20, split seeds 0 1 (each split
    ``split_dataset(X, y, n, n, seed)``), ``--time-limit`` 120 s per tune call for both sides, the side "without"
    first in every pair, one optimistic solve shared (``clock="nodes"``). Oracle: the module docstring and the
    splits made here. Mutation testing: the defaults sizes 10 15, seeds 0, data cancer, 60 s, the side "with"
    first, split seed 0 always, a with-side limit fixed at 120 s and the optimistic solve on the wall clock passed
    the suite."""
    calls = _fake_main(monkeypatch, {})
    assert bench_feasible_start.main([]) == 0
    capsys.readouterr()
    opt = [c for c in calls if c[0] == "opt"]
    runs = [c[1:] for c in calls if c[0] == "run"]
    instances = [(data, n, seed) for data in ("cancer", "diabetes") for n in (10, 15, 20) for seed in (0, 1)]
    assert len(opt) == len(instances) and len(runs) == 2 * len(instances)
    assert all(kwargs.get("clock") == "nodes" and args == ("optimistic",) for _, args, kwargs in opt)
    for (data, n, seed), without, with_ in zip(instances, runs[::2], runs[1::2]):
        assert (without[1], with_[1]) == (False, True)
        assert without[2] == with_[2] == 120.0
        assert without[0] is with_[0]
        d = bilevel.load_dataset(data)
        expected = bilevel.split_dataset(d.X, d.y, n, n, seed=seed)
        assert np.array_equal(without[0].X_train, expected.X_train)
        assert np.array_equal(without[0].y_val, expected.y_val)
    calls.clear()
    assert bench_feasible_start.main(["--data", "cancer", "--sizes", "10", "--seeds", "0", "--time-limit", "9"]) == 0
    assert [c[3] for c in calls if c[0] == "run"] == [9.0, 9.0]
