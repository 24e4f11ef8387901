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
