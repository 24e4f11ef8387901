"""experiments/ scripts refuse a size a data set cannot supply, an unknown data set, a size below 2 or a negative
seed with argparse's one line (exit 2) naming the option, before any solve: bench_feasible_start, bench_tiny_features,
option_safety and probe_binaries ended ``--sizes 1000000000`` (``--n`` for probe_binaries) with an InputError
traceback (exit 1) naming split_dataset's arguments (``n_train + n_val = 2000000000 exceeds ...``)."""
import sys
from pathlib import Path

import pytest

import bilevel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from experiments import bench_feasible_start, bench_tiny_features, option_safety, probe_binaries  # noqa: E402

BIG = "1000000000"


@pytest.mark.parametrize("script, argv, option", [
    (bench_feasible_start, ["--sizes", BIG], "--sizes"),
    (bench_feasible_start, ["--sizes", "10", "300"], "--sizes"),  # (after the size-10 instances had run)
    (bench_feasible_start, ["--sizes", "1"], "--sizes"),
    (bench_feasible_start, ["--seeds", "-1"], "--seeds"),
    (bench_feasible_start, ["--data", "nosuch"], "--data"),
    (bench_tiny_features, ["--sizes", BIG], "--sizes"),
    (bench_tiny_features, ["--datasets", "nosuch"], "--datasets"),
    (option_safety, ["--options", "presolve=off", "--sizes", BIG], "--sizes"),
    (option_safety, ["--options", "presolve=off", "--sizes", "1"], "--sizes"),
    (probe_binaries, ["--n", BIG, "--out", "o"], "--n"),
    (probe_binaries, ["--n", "10", "--seed", "-1", "--out", "o"], "--seed"),
], ids=lambda x: x.__name__.rsplit(".", 1)[-1] if hasattr(x, "__name__") else None)
def test_a_bad_size_or_seed_ends_the_script_at_once_naming_the_option(script, argv, option, capsys, monkeypatch,
                                                                     tmp_path):
    monkeypatch.chdir(tmp_path)

    def no_solve(*_, **__):
        raise AssertionError("nothing may be solved or built before the arguments are checked")

    for name in ("tune", "build_optimistic_model", "build_pessimistic_model"):
        monkeypatch.setattr(bilevel, name, no_solve)
    with pytest.raises(SystemExit) as exc:
        script.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2, err
    last = err.strip().splitlines()[-1]
    assert f"error: {option}" in last or f"error: argument {option}" in last, err
    assert "Traceback" not in err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script, argv", [
    ("proof_time", ["--data", "cancer", "--n", "10"]),
    ("bench_options", ["--out", "o"]),
    ("bench_tune_options", ["--options", "presolve=off", "--out", "o"]),
])
def test_more_random_seeds_than_highs_has_are_refused(script, argv, capsys, monkeypatch, tmp_path):
    """``--random-seeds N`` solves under HiGHS seeds 0..N-1; HiGHS's random_seed option takes 0..2**31 - 1 (checked
    here on HiGHS itself), so N = 2**31 is the most there are. ``--random-seeds 9223372036854775808`` was accepted."""
    import argparse
    import importlib

    import highspy

    from experiments import bench_args

    h = highspy.Highs()
    h.silent()
    top = bench_args.MAX_HIGHS_SEEDS - 1  # the last seed of the most seeds allowed
    assert h.setOptionValue("random_seed", top) == highspy.HighsStatus.kOk
    assert h.setOptionValue("random_seed", top + 1) == highspy.HighsStatus.kError
    assert bench_args.highs_seed_count(str(top + 1)) == top + 1
    with pytest.raises(argparse.ArgumentTypeError):
        bench_args.highs_seed_count(str(top + 2))
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(f"experiments.{script}")
    for value in (str(top + 2), "9223372036854775808"):
        with pytest.raises(SystemExit) as exc:
            module.main([*argv, "--random-seeds", value])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "argument --random-seeds: must be at most 2147483648" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("script, argv, work", [
    ("bench_options", [], "build"),
    ("bench_tune_options", ["--options", "presolve=off", "--sizes", "5", "--data", "diabetes", "--modes", "opt"],
     "benchmark_split"),
    ("probe_binaries", ["--data", "diabetes", "--n", "5", "--seed", "0"], "model_around"),
])
def test_an_out_that_cannot_be_a_folder_is_refused_before_any_work(script, argv, work, tmp_path, capsys, monkeypatch):
    """These scripts made --out with a plain mkdir: a file there ended them with a FileExistsError traceback (exit
    code 1), probe_binaries only after its LPs. Oracle: the message of the commands' shared check_writable_folder."""
    import importlib

    from bilevel.errors import InputError
    from bilevel.validation import check_writable_folder

    module = importlib.import_module(f"experiments.{script}")
    monkeypatch.setattr(module, work, lambda *a, **k: pytest.fail("work ran before --out was checked"))
    (tmp_path / "f").write_text("x")
    out = tmp_path / "f" / "sub"
    with pytest.raises(InputError) as expected:
        check_writable_folder(out, "--out")
    with pytest.raises(SystemExit) as exc:
        module.main([*argv, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and err[-1].endswith(f"error: {expected.value}"), err


@pytest.mark.parametrize("option, value, said", [
    ("--sizes", "9" * 5000, "argument --sizes: an integer of 5000 digits is too long"),
    ("--sizes", "1" + "0" * 300, None),  # within Python's limit: refused later by the split, not echoed in full
    ("--time-limit", "x" * 5000, "argument --time-limit: expected a number, got 'xxx"),
], ids=["beyond-4300-digits", "301-digits", "long-text"])
def test_the_benchmark_scripts_name_a_long_value_without_echoing_it(option, value, said, capsys, tmp_path,
                                                                    monkeypatch):
    """experiments/bench_args read integers and seconds with int()/float() and echoed what they refused in full: a
    5000-digit --sizes was "expected an integer, got" and every digit. They use the bilevel command's readers now.
    Oracle: exit 2, and a last line far shorter than the value given."""
    from experiments import bench_milp

    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        bench_milp.main([option, value, "--out", str(tmp_path / "out")])
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert exc.value.code == 2 and len(last) < 400, last[:400]
    assert said is None or said in last, last
