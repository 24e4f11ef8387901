"""`bilevel study --solver gurobi|cplex` (experiments/uci_study.py, bilevel/study_cli.py): the study's optimistic
and pessimistic MILPs and tie re-solves solved by another solver reach the optima the HiGHS study proves (an
independent solver on the same models), verified; the solver is part of the settings checked on resume and is
recorded in the rows; settings that every unit would fail with are refused before any unit runs."""
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import bilevel.ties
from bilevel.cli import main
from bilevel.errors import InputError
from bilevel import other_solvers
from bilevel.other_solvers import unavailable_reason

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from experiments import uci_study as us  # noqa: E402

OTHER = [pytest.param(name, marks=pytest.mark.skipif(unavailable_reason(name) is not None,
                                                      reason=f"{name} cannot run here"))
         for name in ("gurobi", "cplex")]
PACKAGE = {"gurobi": "gurobipy", "cplex": "cplex"}


def _grid(**kw):
    """Both studies on cancer: |V| = 8, |T| in {6, 10}, one run; the perturbed study at 6/6 with epsilon 0.2 and
    an attacked validation set (rho_val 0.3), so the pessimistic MILPs have epsilon > 0 too."""
    base = dict(datasets=("cancer",), runs=1, val_sizes=(8,), train_sizes=(6, 10), tie_criteria=("sum_w_bar",),
                perturbed_runs=1, perturbed_n_train=6, perturbed_n_val=6, epsilons=(0.2,), rho_vals=(0.3,),
                rho_tests=(0.0, 0.3), time_limit=60.0)
    base.update(kw)
    return us.StudyConfig(**base)


def _rows(out: Path) -> pd.DataFrame:
    frames = [pd.read_csv(out / f"{study}_runs.csv").assign(study=study) for study in ("limited", "perturbed")]
    return pd.concat(frames, ignore_index=True).drop_duplicates("run_id").set_index("run_id").sort_index()


def _close(a, b) -> bool:
    """Two proven optima of one MILP agree within the solvers' default gaps (relative 1e-4, absolute 1e-6)."""
    return abs(a - b) <= max(1e-6, 1e-4 * max(abs(a), abs(b)))


@pytest.mark.parametrize("solver", OTHER)
def test_a_study_with_another_solver_reaches_the_highs_optima(solver, tmp_path, monkeypatch):
    tie_solves = []
    real = bilevel.ties.solve_other
    monkeypatch.setattr(bilevel.ties, "solve_other",
                        lambda model, name, **kw: tie_solves.append(name) or real(model, name, **kw))
    highs = us.run_study(_grid(), tmp_path / "highs", jobs=1, progress=False)
    assert tie_solves == []
    other = us.run_study(_grid(solver=solver), tmp_path / solver, jobs=1, progress=False)
    assert tie_solves == [solver] * 4  # two limited units, one criterion, min and max
    assert highs.n_errors == other.n_errors == 0 and other.n_computed == highs.n_computed == 3
    h, o = _rows(tmp_path / "highs"), _rows(tmp_path / solver)
    assert list(h.index) == list(o.index)
    for prefix in ("opt", "pes"):
        assert o[f"{prefix}_status"].eq("optimal").all() and o[f"{prefix}_verified"].all(), prefix
        assert h[f"{prefix}_status"].eq("optimal").all()
    for run_id in h.index:
        assert _close(o.at[run_id, "opt_objective"], h.at[run_id, "opt_objective"]), run_id
        # the flipped set comes from the optimistic hyperplane, which may be another tied optimum
        if o.at[run_id, "opt_w_bar"] == h.at[run_id, "opt_w_bar"]:
            assert _close(o.at[run_id, "pes_objective"], h.at[run_id, "pes_objective"]), run_id
    # the tie re-solves ran on the other solver too: the extremes of the optimal set are the same values
    limited = h["study"].eq("limited")
    assert limited.sum() == 2
    for ext in ("lo", "hi"):
        col = f"tie_sum_w_bar_{ext}"
        assert o.loc[limited, f"{col}_status"].eq("optimal").all() and o.loc[limited, f"{col}_verified"].all()
        for run_id in h.index[limited]:
            assert _close(o.at[run_id, f"{col}_value"], h.at[run_id, f"{col}_value"]), (run_id, ext)
            assert o.at[run_id, f"{col}_nodes"] >= 0
    assert o["solver"].eq(solver).all() and o[f"v_{PACKAGE[solver]}"].notna().all()
    assert "solver" not in h.columns  # a HiGHS study's rows are those of the studies run before the option
    meta = json.loads((tmp_path / solver / "study.json").read_text())
    assert meta["config"]["solver"] == solver and f"v_{PACKAGE[solver]}" in meta["versions"]
    # resume: the units computed by the other solver are not those of a HiGHS study
    with pytest.raises(InputError, match=f"computed with other settings \\(solver '{solver}' there, 'highs' now"):
        us.run_study(_grid(), tmp_path / solver, jobs=1, progress=False)
    again = us.run_study(_grid(solver=solver), tmp_path / solver, jobs=1, progress=False)
    assert again.n_computed == 0 and again.n_reused == 3


def test_highs_keeps_the_settings_hash_of_studies_run_before_the_option(monkeypatch):
    """A study run before ``solver`` existed (HiGHS) keeps its units: solver="highs" adds nothing to the result
    settings, another solver does (so its units are not reused by a HiGHS study, nor the other way)."""
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: None)  # the hash alone, wherever it runs
    plain = _grid()
    assert _grid(solver="highs").result_hash("limited") == plain.result_hash("limited")
    assert "solver" not in plain.result_settings()
    for solver in ("gurobi", "cplex"):
        other = _grid(solver=solver)
        assert other.result_settings()["solver"] == solver
        assert other.result_hash("limited") != plain.result_hash("limited")
        assert other.result_hash("perturbed") != plain.result_hash("perturbed")


def test_settings_every_unit_would_fail_with_are_refused(monkeypatch):
    with pytest.raises(InputError, match="solver must be one of 'highs', 'gurobi', 'cplex'; got 'scip'"):
        _grid(solver="scip")
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: None)
    with pytest.raises(InputError, match="clock 'nodes' is HiGHS only; solver 'cplex'"):
        _grid(solver="cplex", clock="nodes")
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: "no license (a test)")
    with pytest.raises(InputError, match="solver 'gurobi' cannot run: no license"):
        _grid(solver="gurobi")
    _grid(clock="nodes")  # HiGHS takes the node clock


def test_cli_solver_flag(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(other_solvers, "unavailable_reason", lambda solver: "not installed (a test)")
    code = main(["study", "--quick", "--solver", "gurobi", "--out", str(tmp_path / "s"), "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0 and "solver 'gurobi' cannot run: not installed" in err
    assert not (tmp_path / "s" / "runs").exists()  # refused before any unit ran
    with pytest.raises(SystemExit):
        main(["study", "--quick", "--solver", "scip", "--out", str(tmp_path / "t")])
    assert "invalid choice: 'scip'" in capsys.readouterr().err
