"""A bad value of a command-line option is refused (exit 2, one line) with a message naming the option as typed.

``bilevel tune --n-train 1`` said ``need n_train >= 2 ...``, ``--time-limit 0`` ``time_limit (seconds) must be
...`` (after the data set was loaded and its line printed), ``--test-fraction 2`` ``test_fraction must lie ...``,
``--epsilon -1`` ``epsilon must be ...``; ``bilevel study --runs 0`` ``runs must be >= 1``, ``--rho-test -1``
``rho_tests must be ...``; ``bilevel certify --data`` the split's and the grid's argument names;
``solvers.check_solution --tol 0`` ``tolerance must be ...``, ``solvers.compare --max-size -1`` ``max_size must
be ...``: the library's words for its arguments. The library keeps its messages (last test)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bilevel
from bilevel.cli import main
from solvers import check_solution, compare

TUNE = ["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6"]
CERTIFY = ["certify", "--data", "cancer", "--n-train", "6", "--n-val", "6"]
STUDY = ["study", "--quick", "--no-progress", "--jobs", "1"]
MANIFEST = str(Path(__file__).resolve().parents[1] / "models" / "manifest.csv")

CASES = [
    (TUNE, "--n-train", "1"), (TUNE, "--n-val", "0"), (TUNE, "--test-fraction", "2"), (TUNE, "--test-fraction", "nan"),
    (TUNE, "--seed", "-1"), (TUNE, "--epsilon", "-1"), (TUNE, "--epsilon", "inf"), (TUNE, "--w-bar-lb", "-1"),
    (TUNE, "--w-bar-ub", "nan"), (TUNE, "--w-bar-ub", "1e300"), (TUNE, "--time-limit", "0"),
    (TUNE, "--time-limit", "nan"), (TUNE, "--mip-gap", "1"), (TUNE, "--threads", "-1"), (TUNE, "--race", "0"),
    (TUNE, "--race", "1000"), (TUNE, "--highs-option", "time_limit=-1"), (TUNE, "--highs-option", "no_such_option=1"),
    (TUNE, "--highs-option", "mip_rel_gap=nan"), (TUNE, "--highs-option", "mip_lifting_for_probing=1"),
    (CERTIFY, "--n-train", "1"), (CERTIFY, "--n-val", "0"), (CERTIFY, "--n-cal", "-1"),
    (CERTIFY, "--test-fraction", "1"), (CERTIFY, "--epsilons", "-1"), (CERTIFY, "--w-bar-ubs", "0"),
    (CERTIFY, "--w-bar-ubs", "1e300"), (CERTIFY, "--time-limit", "0"), (CERTIFY, "--epsilons", ""),
    (CERTIFY, "--w-bar-ubs", ""), (CERTIFY, "--procedure", "holm"),
    (CERTIFY + ["--control", "fwer"], "--procedure", "by"),
    (STUDY + ["--study", "limited"], "--runs", "0"), (STUDY + ["--study", "perturbed"], "--perturbed-runs", "0"),
    (STUDY + ["--study", "limited"], "--val-sizes", "0"), (STUDY + ["--study", "limited"], "--train-sizes", "1"),
    (STUDY + ["--study", "perturbed"], "--perturbed-size", "1"), (STUDY + ["--study", "perturbed"], "--epsilons", "-1"),
    (STUDY + ["--study", "perturbed"], "--rho-test", "-1"), (STUDY + ["--study", "perturbed"], "--rho-val", "nan"),
    (STUDY + ["--study", "perturbed"], "--rho-val", "1e300"),
    (STUDY + ["--study", "perturbed"], "--rho-val", "0,100.5"),
    (STUDY + ["--study", "perturbed"], "--rho-test", "1e300"), (STUDY + ["--study", "perturbed"], "--rho-test", "inf"),
    (STUDY, "--seed", "-1"), (STUDY, "--time-limit", "0"), (STUDY, "--threads", "0"), (STUDY, "--threads", "1000"),
    (STUDY + ["--study", "limited"], "--val-sizes", "5,5"), (STUDY, "--label", ""), (STUDY, "--label", "a\nb"),
    (STUDY, "--scheduler", ""), (STUDY, "--scheduler", "tcp://localhost"), (STUDY, "--scheduler", "ftp://host:1"),
    (STUDY, "--scheduler", "tcp://localhost:99999"),
]


@pytest.mark.parametrize("command, option, value", CASES, ids=lambda x: x if isinstance(x, str) else x[0])
def test_a_bad_option_value_names_the_option(command, option, value, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*command, option, value]) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and f"error: {option} " in err, err
    assert out == ""  # refused before the data set was loaded (tune printed its "data" line first)
    assert not (tmp_path / "out").exists() and not (tmp_path / "bilevel_result.json").exists()


@pytest.mark.parametrize("tool, argv, option", [
    (check_solution, [MANIFEST, "cancer-opt-n5-s0", "s.csv", "--tol", "0"], "--tol"),
    (check_solution, [MANIFEST, "cancer-opt-n5-s0", "s.csv", "--tol", "nan"], "--tol"),
    (compare, [MANIFEST, "--max-size", "-1"], "--max-size"),
    (compare, [MANIFEST, "--solver", "foo"], "--solver"),
    (compare, [MANIFEST, "--solver", "highs", "--solver", ""], "--solver"),
    # checked before the manifest is read (it said "manifest ... not found", then "unknown solver 'foo'")
    (compare, ["no-such-manifest.csv", "--solver", "foo"], "--solver"),
    (compare, [MANIFEST, "--only", "cancer-opt-n5-s0", "--solutions", ""], "--solutions"),
    (compare, [MANIFEST, "--only", "cancer-opt-n5-s0", "--csv", ""], "--csv"),
])
def test_the_solvers_tools_name_the_option(tool, argv, option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (--solutions '' is the working directory: nothing may be written there)
    assert tool.main(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"error: {option} " in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, option", [
    (["tune", "--data", "", "--n-train", "1"], "--data"),  # (before the other options' checks)
    (["certify", "--data", " "], "--data"),
    (["certify", "--losses", ""], "--losses"),
    (["certify", "--losses", "", "--data", "cancer"], "--losses"),
    (["certify", "--losses", "losses.csv", "--aux", ""], "--aux"),
    (["study", "--quick", "--data", ""], "--data"),
])
def test_an_empty_input_path_names_the_option(argv, option, tmp_path, capsys, monkeypatch):
    """``bilevel certify --losses ''`` (and ``--aux ''``) said ``cannot read .: [Errno 21] Is a directory``,
    ``bilevel tune --data ''`` ``data path '' is a directory``: Path('') is the working directory. Refused naming the
    option, before anything else is read. Oracle: what Path('') is (the working directory, a folder)."""
    assert Path("").resolve() == Path.cwd() and Path("").is_dir()
    monkeypatch.chdir(tmp_path)
    (tmp_path / "losses.csv").write_text("a,b\n" + "0,1\n" * 12)
    err = _refused(argv, capsys)
    assert f"error: {option} " in err and "directory" not in err and "'.'" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["losses.csv"]


@pytest.mark.parametrize("tool, argv, name", [
    (compare, [""], "manifest"),
    (compare, [" ", "--solver", "highs"], "manifest"),
    (check_solution, ["", "cancer-opt-n5-s0", "s.csv"], "manifest"),
    (check_solution, [MANIFEST, "cancer-opt-n5-s0", ""], "solution"),
])
def test_an_empty_positional_path_names_the_argument(tool, argv, name, tmp_path, capsys, monkeypatch):
    """``python -m solvers.compare ''`` said ``manifest '.' not found`` (Path('') is the working directory), and
    ``solvers.check_solution`` ``solution file '.' is a folder``; refused naming the argument as --help shows it."""
    monkeypatch.chdir(tmp_path)
    assert tool.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert f"error: {name} is an empty path; give " in err and "'.'" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_export_library_empty_out_is_refused(tmp_path, capsys, monkeypatch):
    """``bilevel export-library --out ''`` wrote the library (manifest.csv, every instance, large/) into the working
    directory, exit 0: Path('') is the working directory."""
    monkeypatch.chdir(tmp_path)
    err = _refused(["export-library", "--out", "", "--no-solve", "--sizes", "5", "--data", "cancer"], capsys)
    assert "error: --out is an empty path" in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_library_messages_name_the_arguments():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0], [0.0, 0.0], [0.2, 0.8]] * 4)
    y = np.array([1.0, -1.0] * 12)
    with pytest.raises(bilevel.InputError, match=r"^need n_train >= 2"):
        bilevel.split_dataset(X, y, 1, 2)
    with pytest.raises(bilevel.InputError,
                       match=r"^n_train \+ n_val = 40 exceeds the 12 rows left after holding out 12 test rows$"):
        bilevel.split_dataset(X, y, 20, 20)
    with pytest.raises(bilevel.InputError, match=r"^test_fraction must lie in \[0, 1\)"):
        bilevel.split_dataset(X, y, 2, 2, test_fraction=2.0)
    with pytest.raises(bilevel.InputError, match=r"^epsilon must be finite and >= 0"):
        bilevel.tune(X[:6], y[:6], X[6:9], y[6:9], "pessimistic", epsilon=-1.0)
    with pytest.raises(bilevel.InputError, match=r"^time_limit \(seconds\) must be a number > 0"):
        bilevel.tune(X[:6], y[:6], X[6:9], y[6:9], time_limit=0)


def _rows_left(test_fraction: float = 0.5) -> tuple[int, int]:
    """(rows left after the test rows, test rows) of the cancer data: the stratified test draw takes
    round(test_fraction * n) rows (Python's round), counted here from the data set's length."""
    n = len(bilevel.load_dataset("cancer").y)
    return n - round(test_fraction * n), round(test_fraction * n)


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("argv, named", [
    (["tune", "--data", "cancer", "--n-train", "500", "--n-val", "300"], "--n-train + --n-val = 800 "),
    (["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--test-fraction", "0.999"],
     "--n-train + --n-val = 12 "),
    (["certify", "--data", "cancer", "--n-train", "200", "--n-val", "30"], "--n-train + --n-val = 230 "),
    (["certify", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--n-cal", "300"],
     "--n-train + --n-val + --n-cal = 312 "),
])
def test_sizes_the_data_cannot_supply_name_the_options(argv, named, tmp_path, capsys, monkeypatch):
    """``bilevel tune --data cancer --n-train 500 --n-val 300`` said ``n_train + n_val = 800 exceeds ...``
    (split_dataset's argument names); the sizes are now named by their options, and the test fraction too."""
    monkeypatch.chdir(tmp_path)
    fraction = float(argv[argv.index("--test-fraction") + 1]) if "--test-fraction" in argv else 0.5
    left, held = _rows_left(fraction)
    err = _refused(argv, capsys)
    assert f"error: {named}exceeds the {left} rows left after holding out {held} test rows (--test-fraction " in err, \
        err
    assert "n_train" not in err and "n_val" not in err
    assert not (tmp_path / "bilevel_result.json").exists()


def test_too_few_calibration_rows_names_the_options_that_help(capsys):
    """Without ``--n-cal`` the calibration rows are the rest of the pool; 10 are needed. The message advised "a
    larger --n-cal", which cannot help (a given --n-cal of 10 or more is met or refused as too large)."""
    left, _ = _rows_left()
    n_train = left - 10 - 5  # 5 rows left for calibration
    err = _refused(["certify", "--data", "cancer", "--n-train", str(n_train), "--n-val", "10"], capsys)
    assert "error: only 5 calibration rows" in err and "--n-train" in err and "larger --n-cal" not in err, err


@pytest.mark.parametrize("grid, named, total", [
    (["--study", "limited", "--train-sizes", "5,300"], "--train-sizes (largest 300) and --val-sizes (largest 10): ",
     300 + 10),
    (["--study", "limited", "--val-sizes", "5,230"], "--train-sizes (largest 10) and --val-sizes (largest 230): ",
     10 + 230),
    (["--study", "perturbed", "--perturbed-size", "200,100"], "--perturbed-size 200,100: ", 200 + 100),
])
def test_study_sizes_the_data_cannot_supply_name_the_options(grid, named, total, tmp_path, capsys):
    """``bilevel study --train-sizes 300`` said ``|T| = 300, |V| = 10: n_train + n_val = 310 exceeds ...``
    (--quick's other grid: sizes 5 and 10)."""
    left, held = _rows_left()
    err = _refused([*STUDY, "--out", str(tmp_path / "o"), *grid], capsys)
    assert f"error: data set 'cancer', {named}|T| + |V| = {total} exceeds the {left} rows left after holding " \
        f"out {held} test rows" in err, err
    assert "n_train" not in err and not (tmp_path / "o").exists()


def _largest_scale(data, argv, ub: float) -> float:
    """max ||x||_1 * ub over the training and validation rows of the split the command makes (seed 0, test
    fraction 0.5; certify: every other row a calibration row, outside the standardisation), the quantity of
    bilevel.validation.check_scale, computed here with numpy."""
    d = bilevel.load_dataset(data)
    split = bilevel.split_dataset(d.X, d.y, int(argv[argv.index("--n-train") + 1]),
                                  int(argv[argv.index("--n-val") + 1]), n_cal=None if argv[0] == "certify" else 0)
    return max(np.abs(X).sum(axis=1).max() for X in (split.X_train, split.X_val)) * ub


@pytest.mark.parametrize("command, option", [("tune", "--w-bar-ub"), ("certify", "--w-bar-ubs")])
def test_the_feature_scale_limit_names_the_w_bar_option(command, option, tmp_path, capsys, monkeypatch):
    """``bilevel tune --w-bar-ub 10000`` (the largest bound allowed) on cancer: the standardised features times it
    exceed 1e5; the message named ``w_bar_ub`` and advised rescaling the features, which the command standardises
    (a CSV of huge features is refused alike), after printing the data line. Also with many features of size 1e8."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    csv = tmp_path / "huge.csv"
    X = rng.normal(size=(60, 40)) * 1e8
    y = np.where(X[:, 0] > 0, 1, -1)
    csv.write_text("\n".join([",".join([f"f{j}" for j in range(40)] + ["y"])]
                             + [",".join([repr(float(v)) for v in row] + [str(lab)]) for row, lab in zip(X, y)]) + "\n")
    for data, ub in (("cancer", 1e4), (str(csv), 5e3)):
        argv = [command, "--data", data, "--n-train", "6", "--n-val", "6", option, f"{ub:g}"]
        scale = _largest_scale(data, argv, ub)
        assert scale > 1e5  # (the limit, bilevel.validation.MAX_SCALE)
        err = _refused(argv, capsys)
        assert f"error: the features times {option} reach {scale:.2e} " in err and f"lower {option} " in err, err
        assert "rescale the features" not in err
    assert not (tmp_path / "bilevel_result.json").exists()


@pytest.mark.parametrize("extra, named", [
    (["--method", "pt", "--opt-fraction", "0.01"], "cannot split 10 calibration rows with --opt-fraction 0.01: "),
    (["--method", "rgpt", "--opt-fraction", "0.99"], "cannot split 10 calibration rows with --opt-fraction 0.99: "),
    (["--p-value", "binomial"], "--p-value binomial needs 0/1 losses"),
])
def test_certify_losses_refusals_name_the_options(extra, named, tmp_path, capsys):
    """``certify --losses`` of 10 rows: round(0.01 * 10) = 0 and round(0.99 * 10) = 10 leave a part of the
    optimisation/testing split empty, refused as ``opt_fraction=0.01``; losses of 0.5 with the binomial p-value
    were told to "use 'hb'" (the value, not the option)."""
    path = tmp_path / "losses.csv"
    loss = "0.5" if "binomial" in extra else "1"
    path.write_text("a,b\n" + "".join(f"{loss if k % 3 == 0 else 0},{k % 2}\n" for k in range(10)))
    err = _refused(["certify", "--losses", str(path), *extra], capsys)
    assert f"error: {named}" in err and "opt_fraction" not in err and "'hb'" not in err, err


def test_certify_data_opt_fraction_refusal_names_the_option(capsys):
    """The --data route checks the pt/rgpt split of its 10 calibration rows before its MILPs; it named opt_fraction."""
    err = _refused(["certify", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--n-cal", "10", "--method", "pt",
                    "--opt-fraction", "0.01"], capsys)
    assert "error: cannot split 10 calibration rows with --opt-fraction 0.01: " in err, err


def test_export_library_sizes_the_data_cannot_supply_name_the_option(tmp_path, capsys):
    """``bilevel export-library --sizes 5,300``: the split of |T| = |V| = 300 (test fraction 0.1 above |T| + |V| =
    200) said ``n_train + n_val = 600 exceeds ...`` after the size-5 instances had been written; it is refused
    naming --sizes before any file is written."""
    from bilevel.library import default_test_fraction

    fraction = default_test_fraction(300, 300)
    left, held = _rows_left(fraction)
    out = tmp_path / "lib"
    err = _refused(["export-library", "--out", str(out), "--sizes", "5,300", "--no-solve", "--data", "cancer"], capsys)
    assert f"error: --sizes 300 on data set 'cancer' (test fraction {fraction:g}): |T| + |V| = 600 exceeds " \
        f"the {left} rows left after holding out {held} test rows" in err, err
    assert not out.exists()


def test_study_one_class_training_set_advises_no_test_fraction(tmp_path, capsys):
    """A CSV whose class -1 has one row: the stratified test set takes it, so every training set has one class.
    ``bilevel study`` advised ``test_fraction=0, --test-fraction 0 on the command line``, options it does not have
    (it holds out half the rows); ``bilevel tune`` keeps that advice, its --test-fraction helps. Oracle: the class
    counts of the file (one row of class -1, which any stratified test draw of >= 2 rows takes)."""
    import pickle

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), np.ones(40)
    y[7] = -1.0
    path = tmp_path / "rare.csv"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", header="a,b,label", comments="", fmt="%.6f")
    assert (y == -1).sum() == 1
    err = _refused([*STUDY, "--data", str(path), "--out", str(tmp_path / "o")], capsys)
    assert f"error: data set {str(path)!r}: the training set has one class only: class -1 has 1 row(s) in all " in err
    assert "test-fraction" not in err and "test_fraction" not in err, err
    assert not (tmp_path / "o").exists()
    tune = ["tune", "--data", str(path), "--n-train", "4", "--n-val", "4"]
    err = _refused(tune, capsys)
    assert "one class only" in err and "--test-fraction 0" in err, err
    from bilevel.datasets import OneClassTrainingError

    with pytest.raises(OneClassTrainingError) as info:
        bilevel.split_dataset(X, y, 4, 4)
    assert pickle.loads(pickle.dumps(info.value)).args == info.value.args  # (a study's worker process pickles it)


def test_study_rho_budgets_up_to_max_rho_run(tmp_path, capsys):
    """The largest budget, MAX_RHO (100 standardised feature units), is accepted on test and validation points;
    above it the study refuses the grid (``--rho-val 1e300`` ran, its units with an attacked validation point
    failing, with exit 0 when none was attacked), the library config too. Oracle: the attack's own contract, a
    moved point is ``||x' - x||_2 = rho`` away (checked on the study's surrogate)."""
    from experiments import attack, uci_study

    assert attack.MAX_RHO == 100.0
    out = tmp_path / "o"
    assert main([*STUDY, "--study", "perturbed", "--epsilons", "0", "--rho-val", "100", "--rho-test", "0,100",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--rho" not in err and (out / "perturbed_runs.csv").exists(), err
    with pytest.raises(bilevel.InputError, match=r"^rho_vals must be at most 100 "):
        uci_study.StudyConfig(rho_vals=(0.0, 1e300))
    with pytest.raises(bilevel.InputError, match=r"^rho_tests must be at most 100 "):
        uci_study.StudyConfig(rho_tests=(100.0000001,))
    X = np.array([[0.0, 0.0], [1.0, 1.0]])
    moved = attack.max_confidence_attack(X, np.array([1.0, -1.0]), np.array([3.0, 4.0]), 0.0, attack.MAX_RHO)
    assert np.allclose(np.linalg.norm(moved - X, axis=1), attack.MAX_RHO)


def _create_errno(folder: Path) -> int | None:
    """The errno of creating a new file in ``folder`` (os.open with O_CREAT | O_EXCL), or None when that works (the
    file is removed again)."""
    import os

    probe = folder / "bilevel-create-probe.tmp"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except OSError as exc:
        return exc.errno
    probe.unlink()
    return None


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
@pytest.mark.parametrize("argv, option, folder, verb", [
    ([*TUNE, "--json", "/proc/r.json"], "--json", "/proc", "write into"),
    ([*TUNE, "--json", "/proc/sub/r.json"], "--json", "/proc/sub", "create"),
    ([*STUDY, "--out", "/proc/o"], "--out", "/proc/o", "create"),
])
def test_an_output_folder_that_refuses_files_gives_the_real_reason(argv, option, folder, verb, capsys):
    """``bilevel tune --json /proc/r.json`` (as root) said ``cannot write into the folder '/proc': No such file or
    directory``, the answer to the temporary file tried there, which reads as a missing folder. Oracle: the errno of
    creating a file in /proc ourselves: ENOENT (root) is worded as the file system's refusal, any other (EACCES
    for other users) is given as the system's text."""
    import errno
    import os

    code = _create_errno(Path("/proc"))
    assert code is not None
    err = _refused(argv, capsys).strip()
    assert f"error: {option}: cannot {verb} the folder {folder!r}: " in err, err
    if code == errno.ENOENT:
        assert err.endswith("although the folder exists, as a virtual file system such as /proc does)"), err
        assert "the file system of '/proc' does not allow new files or folders in it" in err, err
    else:
        assert err.endswith(f": {os.strerror(code)}"), err


@pytest.mark.parametrize("code", ["EROFS", "EACCES", "ENOSPC"])
def test_an_output_folder_that_refuses_files_gives_the_system_reason(code, tmp_path, capsys, monkeypatch):
    """A read-only file system, a folder without write permission, a full disk (faked: root writes anyway, and
    mounting needs privileges): the reason is the system's text for that errno (os.strerror), naming --json."""
    import errno
    import os
    import tempfile

    number = getattr(errno, code)

    def refuse(*args, **kwargs):
        raise OSError(number, os.strerror(number), str(tmp_path / "tmpXYZ"))
    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    err = _refused([*TUNE, "--json", str(tmp_path / "r.json")], capsys).strip()
    assert err.endswith(f"error: --json: cannot write into the folder {str(tmp_path)!r}: {os.strerror(number)}"), err
