"""The MILP route of certification: candidates from the tuning MILPs, losses on calibration rows only."""
import importlib
import re
import warnings

import numpy as np
import pytest

import bilevel
from bilevel.certify.cli import main
from bilevel.certify.milp import milp_candidates
from bilevel.errors import InputError


def test_candidates_grid_and_their_errors():
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, n_cal=60, seed=3)
    cands = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=(0.0, 0.2), w_bar_ubs=(0.5, 1.0))
    assert [c.name for c in cands] == ["opt_ub0.5", "pes_e0_ub0.5", "pes_e0.2_ub0.5",
                                       "opt_ub1", "pes_e0_ub1", "pes_e0.2_ub1"]
    for c in cands:
        assert c.verified and np.all(c.w_bar <= c.w_bar_ub + 1e-9)
        err = c.errors(s.X_cal, s.y_cal)
        assert err.shape == (60,) and set(np.unique(err)) <= {0.0, 1.0}
        # independent recomputation of the 0-1 loss
        assert err.mean() == pytest.approx(np.mean(np.sign(s.X_cal @ c.w - c.b + 1e-300) != s.y_cal))
    with pytest.raises(InputError, match="empty"):
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=(), w_bar_ubs=(1.0,))


def test_candidate_names_are_distinct():
    # 0.1 and 0.1000001 were both pes_e0.1_ub1 (names to 6 digits), and the report keyed test errors by name
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    cands = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=(0.1, 0.1000001), w_bar_ubs=(1.0,))
    assert [c.name for c in cands] == ["opt_ub1", "pes_e0.1_ub1", "pes_e0.1000001_ub1"]
    for grid in (dict(epsilons=(0.1, 0.1), w_bar_ubs=(1.0,)), dict(epsilons=(0.1,), w_bar_ubs=(1, 1.0))):
        with pytest.raises(InputError, match="twice"):
            milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, **grid)


def test_certify_cli_data_route(capsys):
    code = main(["--data", "cancer", "--n-train", "8", "--n-val", "8", "--n-cal", "150", "--epsilons", "0",
                 "--w-bar-ubs", "1", "--alpha", "0.2", "--delta", "0.1", "--method", "ltt"])
    out = capsys.readouterr().out
    assert code == 0
    assert "certified:" in out and "opt_ub1" in out and "pes_e0_ub1" in out
    if "chosen: none" not in out.lower():
        assert "test error" in out


@pytest.mark.parametrize("argv, match", [
    (["--method", "rgpt", "--control", "fwer"], "FDR only"),
    (["--method", "pt", "--procedure", "bh"], "--procedure"),
    (["--method", "ltt", "--control", "fwer", "--procedure", "bh"], "does not control the FWER"),
    (["--method", "ltt", "--procedure", "holm"], "does not control the FDR"),
    (["--method", "pt", "--opt-fraction", "1.5"], "opt-fraction"),
    (["--method", "rgpt", "--opt-fraction", "nan"], "opt-fraction"),
    (["--method", "pt", "--max-failures", "0"], "max-failures"),
    (["--method", "rgpt", "--levels", "0"], "levels"),
    (["--method", "rgpt", "--tau", "-1"], "tau"),
    (["--method", "rgpt", "--tau", "inf"], "tau"),
])
def test_testing_options_are_checked_before_the_milps(capsys, monkeypatch, argv, match):
    # they were checked only after every MILP of the grid had been solved (minutes on a real grid)
    import bilevel.certify.milp as milp

    def no_solve(*a, **k):
        raise AssertionError("solved the MILPs before checking the testing options")
    monkeypatch.setattr(milp, "milp_candidates", no_solve)
    assert main(["--data", "cancer", "--n-train", "8", "--n-val", "8", "--n-cal", "40", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bilevel certify: error:") and match in err and "\n" not in err, err


def test_help_states_the_defaults_the_milp_route_uses(monkeypatch):
    # --n-train, --n-val, --n-cal, --epsilons, --w-bar-ubs and --time-limit said nothing of their defaults
    import re

    import bilevel.certify.milp as milp
    from bilevel.certify.cli import build_parser

    text = " ".join(build_parser().format_help().split())
    seen = {}

    class Stop(Exception):
        pass

    def record(X_train, y_train, X_val, y_val, **kw):
        seen.update(n_train=len(y_train), n_val=len(y_val), **kw)
        raise Stop

    monkeypatch.setattr(milp, "milp_candidates", record)
    with pytest.raises(Stop):
        main(["--data", "cancer"])
    signature = __import__("inspect").signature(milp_candidates).parameters  # the grid milp_candidates falls back on
    for option, key in (("--epsilons", "epsilons"), ("--w-bar-ubs", "w_bar_ubs")):
        grid = seen.get(key, signature[key].default)
        assert re.search(re.escape(option) + r" [A-Z]+ \[[A-Z]+ \.\.\.\] [^(]*\(default: "
                         + " ".join(f"{v:g}" for v in grid) + r"\)", text), option
    for option, key in (("--n-train", "n_train"), ("--n-val", "n_val")):
        assert re.search(re.escape(option) + r" [A-Z_]+ [^(]*\(default: " + str(seen[key]) + r"\)", text), option
    assert seen["time_limit"] is None and re.search(r"--time-limit [A-Z_]+ [^(]*\(default: none\)", text)
    assert seen["clock"] == "seconds" and "HiGHS time ('seconds', the default)" in text
    assert "(default: all rows that are not test, training or validation rows)" in text


@pytest.mark.parametrize("data, method, seed", [("cancer", "ltt", 1), ("diabetes", "pt", 2)])
def test_data_route_end_to_end_against_numpy(capsys, monkeypatch, data, method, seed):
    """Calibration rows disjoint from train/val/test, losses = the candidates' 0-1 errors on them (numpy, with
    the standardisation recomputed on the non-test, non-calibration rows), certified = certify() on them."""
    import bilevel.certify.cli as cli_mod
    import bilevel.certify.milp as milp
    from bilevel.certify import certify

    got = {}
    real_candidates, real_certify = milp.milp_candidates, cli_mod.certify
    monkeypatch.setattr(milp, "milp_candidates", lambda *a, **k: got.setdefault("cands", real_candidates(*a, **k)))
    monkeypatch.setattr(cli_mod, "certify", lambda losses, *a, **k: got.setdefault("losses", losses) is not None
                        and got.setdefault("kwargs", k) is not None and real_certify(losses, *a, **k))
    assert main(["--data", data, "--n-train", "10", "--n-val", "10", "--n-cal", "30", "--epsilons", "0", "0.3",
                 "--w-bar-ubs", "1", "--alpha", "0.3", "--delta", "0.2", "--method", method,
                 "--seed", str(seed)]) == 0
    out = capsys.readouterr().out
    d = bilevel.load_dataset(data)
    s = bilevel.split_dataset(d.X, d.y, 10, 10, n_cal=30, seed=seed)
    parts = np.concatenate([s.train_index, s.val_index, s.test_index, s.cal_index])
    assert s.cal_index.size == 30 and np.unique(parts).size == parts.size
    fit = np.setdiff1d(np.arange(len(d.y)), np.concatenate([s.test_index, s.cal_index]))
    mu, sd = d.X[fit].mean(axis=0), d.X[fit].std(axis=0)
    Z = (d.X[s.cal_index] - mu) / np.where(sd > 0, sd, 1.0)
    cands = got["cands"]
    expected = np.column_stack([(np.where(Z @ c.w - c.b >= 0, 1.0, -1.0) != d.y[s.cal_index]) for c in cands])
    np.testing.assert_array_equal(got["losses"], expected.astype(float))
    aux = [float(np.abs(c.w_bar).sum()) for c in cands]  # the auxiliary loss: ||w_bar||_1 of each candidate
    np.testing.assert_allclose(np.ravel(got["kwargs"]["aux"]), aux, rtol=1e-12)
    assert any(np.count_nonzero(c.w_bar) > 1 for c in cands)  # (so a max or a single entry would differ)
    res = certify(expected, 0.3, 0.2, method=method, aux=aux, **({} if method == "ltt" else {"seed": seed}))
    line = next(x for x in out.splitlines() if x.startswith("certified:"))
    assert line == "certified: " + (", ".join(cands[j].name for j in res.certified) or "none")
    for c in cands:  # every candidate's MILP status and verification are shown
        assert re.search(rf"^  {re.escape(c.name)} +{c.status} +verified {'yes' if c.verified else 'NO'}", out, re.M)


def test_a_chosen_candidate_without_a_proven_optimum_is_flagged(capsys, monkeypatch):
    # the "chosen" lines did not repeat that its MILP stopped unproven or failed verification (only the candidate
    # table above said so), though a certificate tests its risk, not its optimality
    import dataclasses

    import bilevel.certify.milp as milp_mod

    real = milp_mod.milp_candidates

    def unproven(*args, **kwargs):
        return [dataclasses.replace(c, status="time_limit", verified=False) for c in real(*args, **kwargs)]

    argv = ["--data", "cancer", "--n-train", "8", "--n-val", "8", "--n-cal", "150", "--epsilons", "0",
            "--w-bar-ubs", "1", "--alpha", "0.2", "--delta", "0.1", "--method", "ltt"]
    assert main(argv) == 0
    plain = capsys.readouterr().out
    assert "chosen opt_ub1" in plain or "chosen pes_e0_ub1" in plain  # a candidate is chosen on this split
    assert "not a proven optimum" not in plain
    monkeypatch.setattr(milp_mod, "milp_candidates", unproven)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert re.search(r"note: the chosen candidate's MILP ended 'time_limit' and its solution failed verification", out)


def test_candidate_names_read_back_as_their_values():
    # 0.1 and the next float, 0.10000000000000002, were both pes_e0.1_ub1 (15 digits): two candidates of one name,
    # whose test errors and MILP statuses the report looks up by name; and epsilon -0.0 was named pes_e-0_ub1
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    eps = (-0.0, 0.1, float(np.nextafter(0.1, 1.0)))
    cands = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=eps, w_bar_ubs=(1.0,))
    names = [c.name for c in cands]
    assert len(set(names)) == len(names), names
    parsed = [re.fullmatch(r"pes_e(.+)_ub(.+)", n) for n in names[1:]]
    assert [float(m[1]) for m in parsed] == list(eps) and all(float(m[2]) == 1.0 for m in parsed)
    assert names[1] == "pes_e0_ub1" and names[2] == "pes_e0.1_ub1"  # the short names are kept where they read back
    assert all(np.copysign(1.0, c.epsilon) == 1.0 for c in cands)


@pytest.mark.parametrize("grid, match", [
    (dict(epsilons=(0.1, -1.0)), "epsilon"),
    (dict(epsilons=(0.1, float("inf"))), "epsilon"),
    (dict(w_bar_ubs=(0.5, float("nan"))), "w_bar_ub"),
    (dict(w_bar_ubs=(0.5, float("inf"))), "w_bar_ub"),
    (dict(w_bar_ubs=(0.5, 2e4)), "w_bar_ub"),
])
def test_the_whole_grid_is_checked_before_any_milp(monkeypatch, capsys, grid, match):
    # a bad value late in the grid was refused by tune() only when its turn came, after the MILPs before it
    import bilevel.certify.milp as milp

    def no_solve(*a, **k):
        raise AssertionError("solved a MILP before checking the grid")
    monkeypatch.setattr(milp, "tune", no_solve)
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    with pytest.raises(InputError, match=match):
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, **grid)
    argv = ["--data", "cancer", "--n-train", "5", "--n-val", "5", "--n-cal", "20"]
    for key, values in grid.items():
        argv += ["--" + key.replace("_", "-"), *map(repr, values)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    option = "--" + next(iter(grid)).replace("_", "-")  # the command line names its option, the library its argument
    assert err.startswith(f"bilevel certify: error: {option} ") and "\n" not in err, err


@pytest.mark.parametrize("value", ["0.1,,0.2", "0.5,", ",0.5", "0.1, ,0.2"])
def test_grid_options_refuse_an_empty_comma_item(monkeypatch, capsys, value):
    # "0.5," was read as "0.5" and "0.1,,0.2" as "0.1,0.2" without a word (the other CLIs refuse such typos)
    import bilevel.certify.milp as milp

    monkeypatch.setattr(milp, "milp_candidates", lambda *a, **k: pytest.fail("ran the MILPs"))
    for option in ("--epsilons", "--w-bar-ubs"):
        with pytest.raises(SystemExit) as exc:
            main(["--data", "cancer", "--n-cal", "40", option, value])
        assert exc.value.code == 2
        assert "empty items" in capsys.readouterr().err


def test_grid_options_still_read_commas_and_spaces():
    from bilevel.certify.cli import build_parser

    args = build_parser().parse_args(["--data", "cancer", "--epsilons", "0.1,0.2 0.3", "0.4", "--w-bar-ubs", " 1, 2 "])
    assert args.epsilons == [[0.1, 0.2, 0.3], [0.4]] and args.w_bar_ubs == [[1.0, 2.0]]


def test_test_fraction_option_and_the_one_class_advice(tmp_path, capsys, monkeypatch):
    """The one-class refusal of a split advised ``test_fraction=0``, which ``bilevel certify`` had no option for
    (its test set was always half the rows). ``--test-fraction`` now sets it, as in ``bilevel tune``; at 0 no
    test error is printed (the mean over no rows was NaN). Oracle: the rows of the CSV (one row of class -1, which
    the stratified test set takes) and split_dataset with the same fraction."""
    import bilevel.certify.milp as milp
    from bilevel.datasets import split_dataset

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.ones(40)
    y[7] = -1.0
    path = tmp_path / "rare.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,label", comments="", fmt="%.6f")
    argv = ["--data", str(path), "--n-train", "4", "--n-val", "4", "--alpha", "0.3"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "one class only" in err and "--test-fraction 0" in err
    seen = {}

    def record(X_train, y_train, X_val, y_val, **kw):
        seen.update(y_train=np.asarray(y_train))
        return [milp.Candidate("opt_ub1", "optimistic", 0.0, 1.0, np.ones(2), np.array([0.0, 0.0]), -1.0,
                               "optimal", True)]

    monkeypatch.setattr(milp, "milp_candidates", record)
    assert main([*argv, "--test-fraction", "0"]) == 0
    out = capsys.readouterr().out
    want = split_dataset(X, y, 4, 4, test_fraction=0.0, seed=0)
    assert np.array_equal(seen["y_train"], want.y_train) and len(want.y_test) == 0
    assert "test 0)" in out and "test error -" in out and "nan" not in out
    assert main(["--losses", str(path), "--test-fraction", "0.2"]) == 2
    assert "--test-fraction applies to the --data route" in capsys.readouterr().err


def test_a_grid_option_given_twice_joins_the_grids(monkeypatch, capsys):
    """``--epsilons 0 --epsilons 0.2`` solved the grid 0.2 alone (argparse kept the last one without a word); the
    grids are now joined, and a value in both is refused as listed twice. Oracle: the grid milp_candidates gets."""
    import bilevel.certify.milp as milp

    seen = {}

    class Stop(Exception):
        pass

    def record(*args, **kw):
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(milp, "milp_candidates", record)
    with pytest.raises(Stop):
        main(["--data", "cancer", "--epsilons", "0", "--epsilons", "0.2,0.4", "--w-bar-ubs", "1", "--w-bar-ubs", "2"])
    assert seen["epsilons"] == [0.0, 0.2, 0.4] and seen["w_bar_ubs"] == [1.0, 2.0]
    monkeypatch.undo()
    monkeypatch.setattr(milp, "tune", lambda *a, **k: pytest.fail("ran a MILP"))
    assert main(["--data", "cancer", "--epsilons", "0.2", "--epsilons", "0.2"]) == 2
    assert "--epsilons lists 0.2 more than once" in capsys.readouterr().err


def test_the_clock_reaches_every_tune_and_a_bad_one_is_refused_first(monkeypatch):
    """bilevel certify --data had no --clock: its MILPs ran on the seconds clock only, so the candidates (and the
    certified set) could differ between machines or under load. Every tune of the grid now gets the clock."""
    from types import SimpleNamespace

    import bilevel.certify.milp as milp

    calls = []

    def record(X_t, y_t, X_v, y_v, mode, **kw):
        calls.append((mode, kw["clock"]))
        if mode == "pessimistic":
            raise InputError("stop")
        p = X_t.shape[1]
        return SimpleNamespace(w_bar=np.ones(p), w=np.zeros(p), b=0.0, status="optimal", verified=True,
                               verification=SimpleNamespace(messages=[]))
    monkeypatch.setattr(milp, "tune", record)
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 8, 8, seed=0)
    with pytest.raises(InputError, match="clock"):
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, clock="ticks")
    assert calls == []
    with pytest.raises(InputError, match="stop"):
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, clock="nodes")
    assert calls == [("optimistic", "nodes"), ("pessimistic", "nodes")]
    seen = {}

    def candidates(*a, **kw):
        seen.update(kw)
        raise InputError("stop")
    monkeypatch.setattr(milp, "milp_candidates", candidates)
    assert main(["--data", "cancer", "--n-cal", "40", "--clock", "nodes"]) == 2
    assert seen["clock"] == "nodes"


@pytest.mark.parametrize("grid", [dict(epsilons=0.2), dict(w_bar_ubs=1.0), dict(w_bar_ubs=np.float64(1.0)),
                                  dict(w_bar_ubs=np.array(1.0)), dict(epsilons=None), dict(w_bar_ubs="25"),
                                  dict(epsilons="01"), dict(epsilons={0.1: "a"})])
def test_a_grid_that_is_not_a_list_of_numbers_is_refused(monkeypatch, grid):
    # epsilons=0.2 was Python's TypeError "'float' object is not iterable"; a str was iterated character by
    # character, so w_bar_ubs="25" silently solved the grid 2, 5 (and epsilons="01" the grid 0, 1); a dict's keys
    # were the grid
    import bilevel.certify.milp as milp

    monkeypatch.setattr(milp, "tune", lambda *a, **k: pytest.fail("solved a MILP"))
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    with pytest.raises(InputError, match=r"must be a list of numbers \(the grid\)"):
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, **{"epsilons": [0.0], "w_bar_ubs": [1.0], **grid})


def test_a_grid_may_be_any_collection_of_numbers(monkeypatch):
    # a generator or a numpy array is still a grid (the check above refuses a single number, a str and a mapping)
    import types

    import bilevel.certify.milp as milp

    def fake_tune(X_t, *a, **k):
        p = np.asarray(X_t).shape[1]
        return types.SimpleNamespace(w_bar=np.zeros(p), w=np.zeros(p), b=0.0, status="optimal", verified=True,
                                     verification=types.SimpleNamespace(messages=[]))
    monkeypatch.setattr(milp, "tune", fake_tune)
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    cands = milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=(e for e in [0.0, 0.2]),
                            w_bar_ubs=np.array([0.5, 1.0]))
    assert [c.name for c in cands] == ["opt_ub0.5", "pes_e0_ub0.5", "pes_e0.2_ub0.5", "opt_ub1", "pes_e0_ub1",
                                       "pes_e0.2_ub1"]


@pytest.mark.parametrize("method", ["pt", "rgpt"])
def test_an_opt_fraction_that_leaves_a_part_empty_is_refused_before_the_milps(monkeypatch, capsys, method):
    # --n-cal 10 --opt-fraction 0.01 (no optimisation row) was refused by the pipeline only after every MILP of the
    # grid had been solved, though the sizes are known once the data are split
    import bilevel.certify.milp as milp

    monkeypatch.setattr(milp, "tune", lambda *a, **k: pytest.fail("solved a MILP"))
    for fraction in ("0.01", "0.99"):
        assert main(["--data", "cancer", "--n-train", "5", "--n-val", "5", "--n-cal", "10", "--method", method,
                     "--opt-fraction", fraction]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("bilevel certify: error: cannot split 10 calibration rows") and "\n" not in err, err


def test_the_candidate_table_shows_each_tunings_notes(capsys):
    """The --data route's table showed only status and verified, so a pessimistic candidate whose tuning noted its
    lambda bound ("lambda = 1000 touches its bound 1000", "a larger lambda bound might allow a better
    objective") read as a plain proven optimum; ``bilevel tune`` prints these notes. Oracle: bilevel.tune called
    here on the same split, whose verification messages must appear under that candidate, and nowhere else."""
    import warnings

    assert main(["--data", "cancer", "--n-train", "10", "--n-val", "10", "--n-cal", "30", "--epsilons", "0.2",
                 "--w-bar-ubs", "1", "--alpha", "0.3", "--delta", "0.2", "--method", "ltt", "--clock", "nodes",
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 10, 10, n_cal=30, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        opt = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, w_bar_bounds=(0.0, 1.0), clock="nodes")
        pes = bilevel.tune(s.X_train, s.y_train, s.X_val, s.y_val, "pessimistic", epsilon=0.2, optimistic=opt,
                           flip="margin", w_bar_bounds=(0.0, 1.0), clock="nodes")
    assert pes.verification.messages  # else this instance tests nothing
    for name, result in (("opt_ub1", opt), ("pes_e0.2_ub1", pes)):
        k = next(i for i, line in enumerate(out) if line.startswith(f"  {name} "))
        notes = []
        for line in out[k + 1:]:
            if not line.startswith("      note: "):
                break
            notes.append(line[len("      note: "):])
        assert notes == list(result.verification.messages), name


def test_only_the_verification_warning_is_silenced(monkeypatch, tmp_path):
    """milp_candidates, bilevel tune and the study silenced every RuntimeWarning around their tune calls, to
    record failed verifications themselves; numpy's or HiGHS's warnings were hidden with them."""
    from types import SimpleNamespace

    import bilevel.certify.milp as milp
    from bilevel.cli import main as bilevel_main
    from bilevel.tune import VERIFICATION_WARNING
    from experiments import uci_study

    def warn_twice(X_t, y_t, X_v, y_v, mode, **kw):
        warnings.warn(f"{mode} solution failed verification: inner gap", RuntimeWarning)
        warnings.warn("overflow encountered in exp", RuntimeWarning)
        p = X_t.shape[1]
        return SimpleNamespace(w_bar=np.ones(p), w=np.zeros(p), b=0.0, status="optimal", verified=False,
                               verification=SimpleNamespace(messages=["inner gap"]))
    d = bilevel.load_dataset("cancer")
    s = bilevel.split_dataset(d.X, d.y, 5, 5, n_cal=20, seed=0)
    monkeypatch.setattr(milp, "tune", warn_twice)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        milp_candidates(s.X_train, s.y_train, s.X_val, s.y_val, epsilons=(0.0,), w_bar_ubs=(1.0,))
    assert [str(w.message) for w in caught] == ["overflow encountered in exp"] * 2
    monkeypatch.setattr(uci_study.bilevel, "tune", warn_twice)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        uci_study._solve("optimistic", s.X_train, s.y_train, s.X_val, s.y_val,
                         {"w_bar_ub": 1.0, "time_limit": 5, "threads": 1})
    assert [str(w.message) for w in caught] == ["overflow encountered in exp"]
    real_tune = importlib.import_module("bilevel.tune").tune

    def warn_then_tune(*a, **kw):
        warnings.warn("overflow encountered in exp", RuntimeWarning)
        return real_tune(*a, **kw)
    monkeypatch.setattr(importlib.import_module("bilevel.tune"), "tune", warn_then_tune)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert bilevel_main(["tune", "--data", "cancer", "--n-train", "5", "--n-val", "5", "--mode", "optimistic",
                              "--json", str(tmp_path / "r.json")]) == 0
    assert [str(w.message) for w in caught] == ["overflow encountered in exp"]
    # the message tune itself issues is the one filtered
    assert re.match(VERIFICATION_WARNING, "pessimistic solution failed verification: inner gap 1e-3")
