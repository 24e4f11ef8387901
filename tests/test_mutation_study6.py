"""Mutation study 6 of the command-line front ends (bilevel.cli, bilevel.library_cli, bilevel.tune_cli,
bilevel.certify.cli, bilevel.study_cli): each test kills a mutant that passed the rest of the suite, against the
documented behaviour (the modules' docstrings, the --help texts, the README)."""
from __future__ import annotations

import importlib
import json
import re
import warnings

import numpy as np
import pytest

from bilevel import cli, tune_cli
from bilevel.cli import main


def test_a_multi_line_warning_prints_as_one_line(monkeypatch):
    """bilevel.cli.main: "A warning is one line, ``bilevel COMMAND: warning: ...``", also for a message that holds
    line breaks and runs of blanks (the words are kept, in order). The text is the one Python's warning display
    prints during the command (warnings.formatwarning; pytest records the warnings themselves)."""
    shown = []

    def warn(args):
        shown.append(warnings.formatwarning("first line\n   second   line\n", UserWarning, __file__, 1))
        return 0
    monkeypatch.setattr(tune_cli, "run", warn)
    assert main(["tune", "--data", "cancer"]) == 0
    assert shown == ["bilevel tune: warning: first line second line\n"]


def test_an_interrupted_command_says_so_on_stderr(monkeypatch, capsys):
    """bilevel.cli.main: exit code 130 when interrupted, with one line on stderr naming the command (a user who
    pressed Ctrl-C sees that the command stopped, not a silent exit)."""
    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(tune_cli, "run", interrupted)
    assert main(["tune", "--data", "cancer"]) == 130
    captured = capsys.readouterr()
    assert captured.err.splitlines() == ["bilevel tune: interrupted"] and captured.out == ""


def test_no_command_is_a_usage_error(capsys):
    """``bilevel`` without a COMMAND: argparse's usage error (exit code 2, "required"), not a traceback from a
    namespace that has no command to run."""
    with pytest.raises(SystemExit) as exc:
        main([])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: bilevel") and "required: COMMAND" in err


def test_a_missing_subcommand_module_is_left_out(monkeypatch, capsys):
    """build_parser: a subcommand module that cannot be imported is left out of ``bilevel``; the others are still
    offered and run."""
    monkeypatch.setattr(cli, "SUBCOMMANDS", {"ghost": ("bilevel.no_such_subcommand_cli", "a ghost"),
                                             **cli.SUBCOMMANDS})
    parser = cli.build_parser()
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0 and all(name in out for name in ("tune", "certify", "study", "export-library"))
    assert "ghost" not in out


def test_an_unrecognized_argument_is_named_in_full(capsys):
    """The error of an unknown argument names it as given (here 80 characters: a mistyped path, not cut short)."""
    bogus = "--" + "x" * 78
    with pytest.raises(SystemExit) as exc:
        main(["tune", "--data", "cancer", bogus])
    assert exc.value.code == 2 and f"unrecognized arguments: {bogus}\n" in capsys.readouterr().err


def _exit_code(argv) -> int:
    """main's exit code, also when argparse refuses the arguments (SystemExit)."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def test_export_library_refuses_a_size_below_two(tmp_path, capsys):
    """``--sizes``: "sizes must be integers >= 2" (a training set of one point has one class): exit code 2 naming
    the option, and nothing is written."""
    code = _exit_code(["export-library", "--out", str(tmp_path / "lib"), "--no-solve", "--only", "cancer-opt-*",
                       "--sizes", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "--sizes" in err and ">= 2" in err
    assert not (tmp_path / "lib").exists()


@pytest.mark.parametrize("args,verb", [(["--time-limit", "5"], "applies"), (["--mip-gap", "0.1"], "applies"),
                                       (["--time-limit", "5", "--mip-gap", "0.1"], "apply")])
def test_export_library_no_solve_message_agrees_in_number(args, verb, tmp_path, capsys):
    """The refusal of solve settings with --no-solve reads as a sentence: one option "applies", two "apply"."""
    code = main(["export-library", "--out", str(tmp_path / "lib"), "--sizes", "5", "--only", "cancer-opt-*",
                 "--no-solve", *args])
    flags = " and ".join(a for a in args if a.startswith("--"))
    assert code == 2 and f"{flags} {verb} only to the HiGHS solves" in capsys.readouterr().err


def _written_sizes(folder) -> set:
    """The |T| = |V| of the instances written into ``folder``, read from their file names (<id>.mps, ids such as
    ``cancer-opt-n5-s0``: bilevel.library.InstanceSpec.id)."""
    return {int(p.name.split("-n")[1].split("-")[0]) for p in folder.glob("*.mps")}


def test_export_library_max_size_and_only_small_keep_their_bound(tmp_path, capsys):
    """--max-size N regenerates "only sizes up to this" and --only-small "only the committed instances (|T| = |V|
    <= SMALL_MAX)" (--help): the bound itself is kept."""
    base = ["export-library", "--no-solve", "--only", "cancer-opt-*", "--sizes", "5,10"]
    assert main([*base, "--out", str(tmp_path / "max"), "--max-size", "5"]) == 0
    assert _written_sizes(tmp_path / "max") == {5}
    assert main([*base, "--out", str(tmp_path / "small"), "--only-small"]) == 0
    assert _written_sizes(tmp_path / "small") == {5, 10}  # SMALL_MAX = 10: the committed sizes of the README
    capsys.readouterr()


@pytest.mark.parametrize("args,match", [(["--time-limit", "0"], "--time-limit must be positive"),
                                        (["--data", "cancer,iris"], "--data: unknown data set iris")])
def test_export_library_refuses_before_writing(args, match, tmp_path, capsys):
    """A --time-limit of 0 seconds (the help: "HiGHS seconds per instance") and a data set the library is not built
    from are refused, exit code 2 naming the option, before any instance is written."""
    code = _exit_code(["export-library", "--out", str(tmp_path / "lib"), "--sizes", "5", "--only", "*-opt-*", *args])
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "lib").exists()


def test_export_library_only_is_repeatable(tmp_path, capsys):
    """--only PATTERN is "repeatable" (--help): an instance matching any of the patterns is regenerated."""
    assert main(["export-library", "--out", str(tmp_path), "--no-solve", "--sizes", "5", "--only", "cancer-opt-*",
                 "--only", "diabetes-opt-*"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.mps")) == ["cancer-opt-n5-s0.mps", "diabetes-opt-n5-s0.mps"]
    capsys.readouterr()


def test_export_library_default_folder_is_models(tmp_path, monkeypatch, capsys):
    """Without --out the library goes into models/ (--help's default; the README's models/ folder)."""
    monkeypatch.chdir(tmp_path)
    assert main(["export-library", "--no-solve", "--sizes", "5", "--only", "cancer-opt-*"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["models"]
    assert (tmp_path / "models" / "manifest.csv").is_file() and (tmp_path / "models" / "cancer-opt-n5-s0.mps").is_file()
    capsys.readouterr()


def test_export_library_judges_only_the_instances_it_regenerated(tmp_path, monkeypatch, capsys):
    """Exit code 1 is for "a HiGHS solution [that] failed verification" in this run: a kept manifest row of an
    instance not regenerated ("rows of instances not regenerated are kept", --help) does not fail the command."""
    from bilevel import library

    def export(out, specs, **kw):  # this run's instance verified, an earlier run's row kept as it was
        return [{"id": s.id, "verified": True} for s in specs] + [{"id": "diabetes-opt-n5-s0", "verified": False}]
    monkeypatch.setattr(library, "export_library", export)
    assert main(["export-library", "--out", str(tmp_path), "--sizes", "5", "--only", "cancer-opt-*"]) == 0
    assert "NOT verified" not in capsys.readouterr().err


_TINY_TUNE = ["tune", "--data", "cancer", "--n-train", "5", "--n-val", "5", "--mode", "optimistic"]


def test_tune_equal_w_bar_bounds_fix_w_bar(tmp_path, capsys):
    """--w-bar-lb = --w-bar-ub is a box of one point, not "infeasible bounds" (only lb > ub is): every w_bar_j is
    that value."""
    path = tmp_path / "r.json"
    assert main([*_TINY_TUNE, "--w-bar-lb", "0.5", "--w-bar-ub", "0.5", "--json", str(path)]) == 0
    result = json.loads(path.read_text())
    assert result["w_bar_bounds"] == [0.5, 0.5]
    assert result["results"]["optimistic"]["w_bar"] and set(result["results"]["optimistic"]["w_bar"]) == {0.5}
    capsys.readouterr()


@pytest.mark.parametrize("option", ["presolve=", "solution_file=", "mip_rel_gap= "])
def test_tune_highs_option_without_a_value_is_refused(option, tmp_path, capsys):
    """--highs-option takes NAME=VALUE: a blank VALUE is refused (exit code 2, the expected form named) before any
    solve, not passed on to HiGHS as an empty string."""
    code = _exit_code([*_TINY_TUNE, "--highs-option", option, "--json", str(tmp_path / "r.json")])
    assert code == 2 and "expected NAME=VALUE" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("text,value", [("TRUE", True), ("False", False)])
def test_tune_highs_option_booleans_in_any_case(text, value, tmp_path, capsys):
    """--highs-option reads true/false as booleans (bilevel.tune_cli._highs_option) whatever their case: the JSON
    records the boolean HiGHS was given."""
    path = tmp_path / "r.json"
    assert main([*_TINY_TUNE, "--highs-option", f"mip_heuristic_run_rens={text}", "--json", str(path)]) == 0
    assert json.loads(path.read_text())["highs_options"]["mip_heuristic_run_rens"] is value
    capsys.readouterr()


@pytest.mark.parametrize("mode,names", [("optimistic", ["optimistic"]), ("pessimistic", ["pessimistic"]),
                                        ("both", ["optimistic", "pessimistic"])])
def test_tune_reports_the_milps_of_its_mode(mode, names, tmp_path, capsys):
    """--mode "which MILP to solve" (--help): the summary and the JSON results hold the MILPs of that mode, so
    --mode pessimistic differs from --mode both (the optimistic solve it needs is not reported)."""
    path = tmp_path / "r.json"
    assert main([*_TINY_TUNE[:-2], "--mode", mode, "--json", str(path)]) == 0
    assert sorted(json.loads(path.read_text())["results"]) == names
    out = capsys.readouterr().out
    assert [name for name in ("optimistic", "pessimistic") if f"== {name} MILP" in out] == names


def test_tune_json_records_the_options_given(tmp_path, capsys):
    """The JSON result records each setting under its own name (what is needed to rerun the solve): here every
    one differs from the others and from its default, so a field written from another option shows."""
    path = tmp_path / "r.json"
    assert main(["tune", "--data", "cancer", "--n-train", "6", "--n-val", "5", "--seed", "3", "--test-fraction",
                 "0.25", "--w-bar-lb", "0.125", "--w-bar-ub", "0.75", "--mode", "optimistic", "--json",
                 str(path)]) == 0
    result = json.loads(path.read_text())
    assert (result["n_train"], result["n_val"], result["seed"], result["test_fraction"]) == (6, 5, 3, 0.25)
    assert result["w_bar_bounds"] == [0.125, 0.75]
    assert all(0.125 - 1e-9 <= x <= 0.75 + 1e-9 for x in result["results"]["optimistic"]["w_bar"])
    assert "|T| = 6, |V| = 5" in capsys.readouterr().out


def test_tune_accepts_a_single_validation_point(tmp_path, capsys):
    """--n-val 1 is a validation set (split_dataset takes n_val = 1; the option checks ask for n_val >= 1): the
    solve runs and its validation accuracy is 0 or 1."""
    import bilevel

    data = bilevel.load_dataset("cancer")
    assert len(bilevel.split_dataset(data.X, data.y, 5, 1, seed=0).y_val) == 1  # the library's split takes it
    path = tmp_path / "r.json"
    assert main([*_TINY_TUNE[:5], "--n-val", "1", "--mode", "optimistic", "--json", str(path)]) == 0
    result = json.loads(path.read_text())
    assert result["n_val"] == 1 and result["results"]["optimistic"]["accuracy"]["val"] in (0.0, 1.0)
    capsys.readouterr()


def test_tune_passes_highs_options_to_every_solve(monkeypatch, tmp_path, capsys):
    """--highs-option is a "HiGHS option for every MILP solve" (--help): each tune() call of the command gets the
    options given (not only the JSON record of them)."""
    seen = []
    real = importlib.import_module("bilevel.tune").tune

    def spy(*args, **kwargs):
        seen.append(kwargs.get("highs_options"))
        return real(*args, **kwargs)
    monkeypatch.setattr(importlib.import_module("bilevel.tune"), "tune", spy)
    assert main([*_TINY_TUNE[:-2], "--mode", "both", "--highs-option", "mip_pscost_minreliable=6",
                 "--highs-option", "mip_heuristic_run_rens=true", "--json", str(tmp_path / "r.json")]) == 0
    assert seen == [{"mip_pscost_minreliable": 6, "mip_heuristic_run_rens": True}] * 2
    capsys.readouterr()


def test_tune_threads_zero_is_highs_own_default(tmp_path, capsys):
    """--threads defaults to "HiGHS's choice", which is HiGHS's option threads = 0 (automatic, read from highspy):
    giving that value explicitly is accepted and recorded."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    status, default = h.getOptionValue("threads")
    assert status == highspy.HighsStatus.kOk and default == 0
    path = tmp_path / "r.json"
    assert main([*_TINY_TUNE, "--threads", str(default), "--json", str(path)]) == 0
    assert json.loads(path.read_text())["threads"] == default
    capsys.readouterr()


# --- bilevel certify -----------------------------------------------------------------------------------------


def _losses_csv(tmp_path, n=60, m=4):
    """A CSV of 0/1 losses of m candidates on n calibration rows (header: the names C0, C1, ...); candidate j
    errs on about j / (2m) of the rows."""
    rng = np.random.default_rng(5)
    losses = (rng.random((n, m)) < np.arange(m) / (2 * m)).astype(int)
    path = tmp_path / "losses.csv"
    path.write_text(",".join(f"C{j}" for j in range(m)) + "\n" + "\n".join(",".join(map(str, row)) for row in losses)
                    + "\n")
    return path


@pytest.fixture
def milp_calls(monkeypatch):
    """Replaces the MILP route's candidate generator (bilevel.certify.milp.certify_from_data, which solves MILPs)
    by one that records its calls and returns 3 candidates that never err on 60 calibration rows, with costs 1, 2, 3
    (the cheapest, "a", is chosen), "a" solved to optimality but failing verification; yields the list of calls."""
    import bilevel.certify.milp as milp

    calls = []

    def fake(args):
        calls.append(args)
        args._milp_status = {"a": ("optimal", False), "b": ("optimal", True), "c": ("optimal", True)}
        return np.zeros((60, 3)), np.array([1.0, 2.0, 3.0]), ["a", "b", "c"]
    monkeypatch.setattr(milp, "certify_from_data", fake)
    yield calls


@pytest.mark.parametrize("extra,match", [(["--losses", "LOSSES"], "give exactly one of --losses"),
                                         (["--aux", "LOSSES"], "--aux goes with --losses")])
def test_certify_data_route_refuses_losses_files(extra, match, milp_calls, tmp_path, capsys):
    """"give exactly one of --losses / --data" (--help), and --aux is the --losses route's ("with the same column
    names as --losses"): with --data, exit code 2 before any MILP runs."""
    path = str(_losses_csv(tmp_path))
    code = main(["certify", "--data", "cancer", "--n-cal", "20", *[path if a == "LOSSES" else a for a in extra]])
    err = capsys.readouterr().err
    assert code == 2 and match in err and milp_calls == []


def _help_default(option: str) -> str:
    """The "(default: X)" of ``option`` in ``bilevel certify --help``."""
    from bilevel.certify.cli import build_parser

    text = " ".join(build_parser().format_help().split())
    return re.search(re.escape(option) + r" (?:[A-Z_]+|\{[^}]*\}) .*?\(default: ([^)]+)\)", text).group(1)


def test_certify_rgpt_uses_the_documented_defaults(monkeypatch, tmp_path, capsys):
    """--method rgpt without --tau, --opt-fraction, --seed, --reshaping runs with the defaults its --help states,
    and --tau 0 ("non-negative Lasso penalty") is accepted and passed on."""
    from bilevel.certify import cli as certify_cli

    seen = []
    real = certify_cli.certify

    def spy(*args, **kwargs):
        seen.append(kwargs)
        return real(*args, **kwargs)
    monkeypatch.setattr(certify_cli, "certify", spy)
    path = str(_losses_csv(tmp_path))
    assert main(["certify", "--losses", path, "--method", "rgpt"]) == 0
    assert seen[-1]["tau"] == float(_help_default("--tau")) and seen[-1]["reshaping"] == _help_default("--reshaping")
    assert seen[-1]["opt_fraction"] == float(_help_default("--opt-fraction"))
    assert seen[-1]["seed"] == int(_help_default("--seed")) and seen[-1]["control"] == "fdr"
    assert main(["certify", "--losses", path, "--method", "rgpt", "--tau", "0"]) == 0
    assert seen[-1]["tau"] == 0.0
    capsys.readouterr()


@pytest.mark.parametrize("argv,advice", [(["--procedure", "holm"], "or --control fwer"),
                                         (["--control", "fwer", "--procedure", "bh"], "or --control fdr")])
def test_certify_procedure_advice_names_the_other_error_rate(argv, advice, tmp_path, capsys):
    """A --procedure that does not control the error rate of --control is refused, and the advice names the rate
    it does control (--help: bh for fdr, holm for fwer), not the rate already in force."""
    code = main(["certify", "--losses", str(_losses_csv(tmp_path)), *argv])
    err = capsys.readouterr().err
    assert code == 2 and advice in err


@pytest.mark.parametrize("method,where", [("ltt", "all calibration rows"), ("pt", "the optimisation split"),
                                          ("rgpt", "the optimisation split")])
def test_certify_chosen_details_name_the_rows_they_were_estimated_on(method, where, tmp_path, capsys):
    """"ltt = Learn-then-Test on all data", while pt and rgpt build their front on the --opt-fraction "share of
    calibration rows" (--help): the chosen candidate's estimated risk names those rows."""
    path = str(_losses_csv(tmp_path))  # C0 never errs: certified and chosen by every method
    assert main(["certify", "--losses", path, "--method", method]) == 0
    details = [line for line in capsys.readouterr().out.splitlines() if line.startswith("chosen details:")]
    assert len(details) == 1 and details[0].endswith(f"(on {where})")


def test_certify_flags_a_chosen_candidate_that_failed_verification(milp_calls, capsys):
    """The MILP route prints per candidate its status and "verified or not" (bilevel.certify.cli): a chosen candidate
    whose MILP ended optimal but whose solution failed verification is flagged, as one that stopped early is."""
    assert main(["certify", "--data", "cancer"]) == 0
    out = capsys.readouterr().out
    assert len(milp_calls) == 1 and "chosen: a" in out
    notes = [line for line in out.splitlines() if line.startswith("note: the chosen candidate")]
    assert len(notes) == 1 and "failed verification" in notes[0]


def test_certify_n_cal_below_ten_is_refused_before_the_milps(milp_calls, capsys):
    """--n-cal: "calibration rows ...; at least 10" (--help): 9 is refused naming the option, before any MILP."""
    assert main(["certify", "--data", "cancer", "--n-cal", "9"]) == 2
    assert "--n-cal" in capsys.readouterr().err and milp_calls == []


@pytest.mark.parametrize("choice", ["hoeffding", "bentkus", "hb", "binomial"])
def test_certify_p_value_choice_reaches_the_pipeline(choice, monkeypatch, tmp_path, capsys):
    """Each --p-value choice is the p-value the certification uses (bilevel.certify's p_value names)."""
    from bilevel.certify import cli as certify_cli

    seen = []
    real = certify_cli.certify

    def spy(*args, **kwargs):
        seen.append(kwargs["p_value"])
        return real(*args, **kwargs)
    monkeypatch.setattr(certify_cli, "certify", spy)
    assert main(["certify", "--losses", str(_losses_csv(tmp_path)), "--p-value", choice]) == 0
    assert seen == [choice]
    capsys.readouterr()


# --- bilevel study -------------------------------------------------------------------------------------------


class _Calls(list):
    """A list of calls, with the fake run_study that records them as ``fake``."""


@pytest.fixture
def study_runs(monkeypatch):
    """Replaces experiments.uci_study.run_study (which solves the study's MILPs) by one that records the StudyConfig
    and the keywords it is called with and reports ``calls.fake.errors`` (default 0) failed runs; yields the list of
    calls."""
    from types import SimpleNamespace

    from bilevel import study_cli

    mod = study_cli.load_study_module()
    calls = _Calls()

    def fake(cfg, out, **kwargs):
        calls.append((cfg, kwargs))
        return SimpleNamespace(n_computed=1, n_reused=0, n_errors=fake.errors, seconds=0.0, n_failed_steps=0, files={})
    fake.errors = 0
    monkeypatch.setattr(mod, "run_study", fake)
    calls.fake = fake
    yield calls


def test_study_perturbed_size_takes_one_or_two_numbers(tmp_path, study_runs, capsys):
    """--perturbed-size T[,V]: "|T| and |V| of the perturbed study"; a third number is refused (exit code 2 naming
    the option), not dropped without a word; T,V are passed on in that order."""
    base = ["study", "--quick", "--study", "perturbed", "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "a"), "--perturbed-size", "6,6,6"]) == 2
    assert "--perturbed-size" in capsys.readouterr().err and study_runs == []
    assert main([*base, "--out", str(tmp_path / "b"), "--perturbed-size", "7,5"]) == 0
    cfg = study_runs[-1][0]
    assert (cfg.perturbed_n_train, cfg.perturbed_n_val) == (7, 5)
    capsys.readouterr()


def test_study_label_column_with_builtin_and_csv_data(tmp_path, study_runs, capsys):
    """--label-column is "refused when --data names built-in data sets only": with a CSV file beside a built-in
    set it is the CSV's label column, passed on to the study."""
    path = tmp_path / "mine.csv"
    path.write_text("cls,f1,f2\n" + "".join(f"{'ab'[i % 2]},{i % 7},{(3 * i) % 11}\n" for i in range(200)))
    assert main(["study", "--quick", "--study", "limited", "--no-progress", "--out", str(tmp_path / "out"),
                 "--data", "cancer", "--data", str(path), "--label-column", "cls"]) == 0
    (cfg, _), = study_runs
    assert cfg.label_column == "cls" and len(cfg.datasets) == 2
    capsys.readouterr()


def test_study_of_exactly_the_maximum_number_of_runs_is_accepted(tmp_path, study_runs, capsys):
    """"a study has at most 1,000,000 runs in all (runs x cells x data sets, both studies)" (--help of --runs):
    one cell of one data set with --runs 1000000 is at the limit and runs; one more run is refused naming --runs."""
    base = ["study", "--study", "limited", "--data", "cancer", "--val-sizes", "5", "--train-sizes", "5",
            "--no-progress"]
    assert main([*base, "--out", str(tmp_path / "over"), "--runs", "1000001"]) == 2
    assert "--runs 1000001" in capsys.readouterr().err and study_runs == []
    assert main([*base, "--out", str(tmp_path / "at"), "--runs", "1000000"]) == 0
    assert len(study_runs) == 1 and "1000000 runs" in capsys.readouterr().out


def test_study_scheduler_port_zero_is_refused(tmp_path, study_runs, capsys):
    """--scheduler tcp://host:0 names no port a scheduler can listen on (ports are 1-65535): exit code 2 naming the
    option, and the study does not start."""
    pytest.importorskip("distributed")
    code = main(["study", "--quick", "--no-progress", "--out", str(tmp_path / "out"), "--scheduler",
                 "tcp://127.0.0.1:0"])
    err = capsys.readouterr().err
    assert code == 2 and "--scheduler" in err and study_runs == []


def test_study_exits_1_when_a_run_ended_with_an_error(tmp_path, study_runs, capsys):
    """bilevel.study_cli.run "returns 0, or 1 when a run ended with an error"."""
    study_runs.fake.errors = 2
    assert main(["study", "--quick", "--no-progress", "--out", str(tmp_path / "out")]) == 1
    assert "2 with errors" in capsys.readouterr().out
    study_runs.fake.errors = 0
    assert main(["study", "--quick", "--no-progress", "--out", str(tmp_path / "out2")]) == 0
    capsys.readouterr()


def test_study_accepts_a_validation_size_of_one(tmp_path, study_runs, capsys):
    """--val-sizes is the |V| grid, and a single validation point is a validation set (tune takes --n-val 1, the
    option checks ask for sizes >= 1): it reaches the study's configuration."""
    assert main(["study", "--quick", "--study", "limited", "--no-progress", "--out", str(tmp_path / "out"),
                 "--val-sizes", "1,5", "--train-sizes", "5"]) == 0
    (cfg, _), = study_runs
    assert tuple(cfg.val_sizes) == (1, 5)
    capsys.readouterr()


def test_study_refuses_another_experiments_module(monkeypatch, tmp_path):
    """load_study_module "raises InputError ... when another module named ``experiments`` is already imported from
    elsewhere" (its docstring), naming that module's file, rather than failing inside the import machinery."""
    import sys
    import types

    from bilevel import study_cli
    from bilevel.errors import InputError

    other = types.ModuleType("experiments")
    other.__file__ = str(tmp_path / "elsewhere" / "experiments" / "__init__.py")
    monkeypatch.setitem(sys.modules, "experiments", other)
    monkeypatch.delitem(sys.modules, "experiments.uci_study", raising=False)
    with pytest.raises(InputError, match="another module named 'experiments' is already imported"):
        study_cli.load_study_module()


def test_study_module_loads_with_only_the_package_on_the_path(tmp_path):
    """load_study_module finds experiments/ next to the bilevel package directory and puts that folder on sys.path
    (its docstring): with only the package importable (a folder linking to it, another working directory), the
    study module is the checkout's."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import bilevel

    package = Path(bilevel.__file__).resolve().parent
    site = tmp_path / "site"
    site.mkdir()
    (site / "bilevel").symlink_to(package, target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-c", "from bilevel.study_cli import load_study_module as f; "
                           "print(f().__file__)"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()) == package.parent / "experiments" / "uci_study.py"
