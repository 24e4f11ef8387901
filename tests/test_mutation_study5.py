"""Gaps a mutation study found in the tests of bilevel/export_names.py, bilevel/closed_output.py,
bilevel/option_checks.py, bilevel/help_format.py, bilevel/highs_run.py and bilevel/validation.py: each test below
fails on a small change of the code that the other tests let pass.

Oracles: the readers of tests/test_export.py (HiGHS, CPLEX when installed) for the written names; the row names
Pyomo writes (c_u_, c_l_, c_e_, r_l_, r_u_ and a suffix _, bilevel/export_names.py); real pipes and sockets whose
reading end is closed; Python's own int() for the digit limit; otherwise the docstrings of the functions tested
(ranges, "more than", "at least", what is left alone)."""
from __future__ import annotations

import argparse
import contextlib
import errno
import os
import select
import signal
import socket
import sys

import highspy
import numpy as np
import pandas as pd
import pyomo.environ as pyo
import pytest
from test_export import CHECKED, READERS, _highs, _model, _optimum, _version

import bilevel
from bilevel import highs_run
from bilevel.cli import main
from bilevel.closed_output import (EXIT_CLOSED_OUTPUT, _reader_gone, _silence_closed_streams, is_closed_output,
                                   run_command)
from bilevel.errors import InputError, SolverError
from bilevel.help_format import DefaultsHelpFormatter, comma_items, has_empty_item, integer, path_text, shown
from bilevel.highs_run import (check_infeasible_without_presolve, ctrl_c_pending, run_checked, run_interruptibly,
                               sigint_as_flag, silent_highs)
from bilevel.option_checks import count, each, number
from bilevel.validation import (MAX_EPSILON, _refusal, binary_format_of, check_count, check_epsilon,
                                check_indices, check_mip_gap, check_open_unit, check_scale, check_utf8_text,
                                check_w_bar_bounds, check_xy, header_separator, tiny_features, value_text)

# ---------------------------------------------------------------------------------------------- export_names


@pytest.mark.parametrize("var", ["Information", "INF", "NaN_x", "Nan"])
def test_lp_names_starting_like_inf_or_nan_in_any_case_are_refused(var, tmp_path):
    """HiGHS's LP reader (1.15) reads a name starting with inf or nan in any case as a number and refuses the file
    (1.16 reads it: write_model keeps refusing such names, for the readers of the release the package pins)."""
    model = _model(var=var)
    with pytest.raises(InputError, match="inf or nan"):
        bilevel.write_model(model, tmp_path / "m.lp")
    assert list(tmp_path.iterdir()) == []
    model.write(str(tmp_path / "raw.lp"), io_options={"symbolic_solver_labels": True})
    if _version("highs").startswith(CHECKED["highs"]):
        assert _highs(tmp_path / "raw.lp") is None  # what write_model would have written: HiGHS refuses it


@pytest.mark.parametrize("kwargs, suffix", [(dict(obj="BOUND"), ".mps"), (dict(con="BOUND"), ".mps"),
                                            (dict(obj="ONE_VAR_CONSTANT"), ".lp")])
def test_names_refused_only_for_variables_are_written_for_rows_and_objectives(kwargs, suffix, tmp_path):
    """Only a column BOUND (the bound set's name) and a variable ONE_VAR_CONSTANT are misread; the same name of an
    objective or a constraint is read right, and write_model writes it."""
    path = bilevel.write_model(_model(**kwargs), tmp_path / f"m{suffix}")
    for reader, read in READERS.items():
        assert read(path) == pytest.approx(_optimum(), abs=1e-6), reader


def _equality_model(var: str) -> pyo.ConcreteModel:
    """max v + y s.t. v + y == 1 (the constraint c1, written as the row c_e_c1_), with the variable named ``var``."""
    m = pyo.ConcreteModel()
    m.add_component(var, pyo.Var(bounds=(0, 1)))
    m.y = pyo.Var(bounds=(0, 1))
    m.c1 = pyo.Constraint(expr=m.component(var) + m.y == 1)
    m.o = pyo.Objective(expr=m.component(var) + m.y, sense=pyo.maximize)
    return m


def test_a_variable_named_like_an_equality_row_is_named_in_the_message(tmp_path):
    """Pyomo's LP writer names the row of an equality constraint c1 ``c_e_c1_``: a variable of that name stops
    it, and the message names the variable to rename (not "the component")."""
    with pytest.raises(InputError, match=r"named like Pyomo's rows.*rename 'c_e_c1_'"):
        bilevel.write_model(_equality_model("c_e_c1_"), tmp_path / "m.lp")
    assert _highs(bilevel.write_model(_equality_model("c_e_c1_"), tmp_path / "m.mps")) == pytest.approx(1.0)


def test_a_constraint_named_like_a_row_is_not_named_as_the_one_to_rename(tmp_path):
    """Only variables and objectives can clash with a row name (constraints get the prefix themselves): a
    constraint c_l_z_ next to the clashing variable c_u_c1_ is not among the names to rename."""
    model = pyo.ConcreteModel()
    model.y = pyo.Var(bounds=(0, 5))
    model.c_l_z_ = pyo.Constraint(expr=model.y >= 0.5)  # labeled before the clash stops the writer
    model.c_u_c1_ = pyo.Var(bounds=(0.5, 3))
    model.c1 = pyo.Constraint(expr=model.c_u_c1_ + model.y <= 4)
    model.o = pyo.Objective(expr=model.c_u_c1_ + model.y, sense=pyo.maximize)
    with pytest.raises(InputError, match="rename 'c_u_c1_'") as info:
        bilevel.write_model(model, tmp_path / "m.lp")
    assert "c_l_z_" not in str(info.value)


def test_a_variable_written_as_the_constant_term_is_named_as_the_user_wrote_it(tmp_path):
    """A variable 'ONE VAR CONSTANT' is written ONE_VAR_CONSTANT, Pyomo's name for the objective's constant: the
    message names the variable as the user wrote it (RecordingLabeler: "naming both components"). It named
    Pyomo's constant ('ONE_VAR_CONSTANT' is written as ...), the owner and the user swapped."""
    with pytest.raises(InputError, match="'ONE VAR CONSTANT' is written as 'ONE_VAR_CONSTANT'"):
        bilevel.write_model(_model(var="ONE VAR CONSTANT", constant=10.0), tmp_path / "m.lp")


# ---------------------------------------------------------------------------------------------- closed_output


@pytest.fixture
def closed_pipe():
    """A text stream (buffered, as a redirected standard output is) on a pipe whose reader has exited."""
    r, w = os.pipe()
    os.close(r)
    stream = os.fdopen(w, "w")
    yield stream
    with contextlib.suppress(OSError):
        stream.close()


def _is_devnull(stream) -> bool:
    return os.path.samestat(os.fstat(stream.fileno()), os.stat(os.devnull))


def test_the_reader_check_is_false_for_a_stream_without_a_usable_descriptor(tmp_path):
    closed = open(tmp_path / "f.txt", "w")
    closed.close()  # fileno() raises ValueError

    class BadDescriptor:
        def fileno(self):
            return -1  # poll's register raises ValueError
    assert _reader_gone(closed) is False and _reader_gone(BadDescriptor()) is False


def test_without_poll_a_broken_pipe_is_taken_as_the_readers_exit(monkeypatch, tmp_path):
    """Module docstring of _reader_gone: "no poll (Windows): a BrokenPipeError is taken as the reader's exit"."""
    monkeypatch.delattr(select, "poll")
    with open(tmp_path / "f.txt", "w") as stream:
        assert _reader_gone(stream) is True


def test_a_socket_whose_peer_closed_is_a_reader_gone():
    """A closed socket reports POLLHUP (not POLLERR, as a pipe does) to its writer."""
    ours, peer = socket.socketpair()
    peer.close()
    try:
        assert _reader_gone(ours) is True
    finally:
        ours.close()
    live, other = socket.socketpair()
    try:
        assert _reader_gone(live) is False
    finally:
        live.close()
        other.close()


def test_a_closed_standard_error_alone_is_a_closed_output(monkeypatch, closed_pipe):
    monkeypatch.setattr(sys, "stderr", closed_pipe)
    assert is_closed_output(BrokenPipeError())


def test_another_os_error_is_no_closed_output(monkeypatch, closed_pipe):
    monkeypatch.setattr(sys, "stdout", closed_pipe)
    assert is_closed_output(BrokenPipeError())
    assert not is_closed_output(ConnectionResetError()) and not is_closed_output(OSError(5, "I/O error"))


def test_a_closed_standard_error_is_pointed_at_the_null_device(monkeypatch, closed_pipe):
    monkeypatch.setattr(sys, "stderr", closed_pipe)
    _silence_closed_streams()
    assert _is_devnull(closed_pipe)
    closed_pipe.write("x")
    closed_pipe.flush()  # the interpreter's last flush no longer fails


def test_a_write_that_fails_ends_the_command_with_141_and_the_stream_silenced(monkeypatch, closed_pipe):
    def main():
        print("x" * 10000)  # more than the buffer: the write itself fails
        return 0
    monkeypatch.setattr(sys, "stdout", closed_pipe)
    assert run_command(main) == EXIT_CLOSED_OUTPUT
    assert _is_devnull(closed_pipe)


def test_the_final_flush_failing_keeps_an_error_code(monkeypatch, closed_pipe):
    """run_command's docstring: when the last flush fails "the command's own code is kept if it is an error code
    (the error is on stderr)"."""
    monkeypatch.setattr(sys, "stdout", closed_pipe)

    def failing():
        print("partial")  # stays in the buffer
        return 2
    assert run_command(failing) == 2


def test_a_quiet_exit_whose_output_did_not_arrive_is_141(monkeypatch, closed_pipe):
    """A SystemExit without a code (success, as 0) whose buffered output cannot be flushed: EXIT_CLOSED_OUTPUT
    (run_command's docstring: "else EXIT_CLOSED_OUTPUT (the output did not all arrive)")."""
    monkeypatch.setattr(sys, "stdout", closed_pipe)

    def exits_quietly():
        print("help")
        raise SystemExit(None)
    with pytest.raises(SystemExit) as info:
        run_command(exits_quietly)
    assert info.value.code == EXIT_CLOSED_OUTPUT


def test_a_broken_pipe_of_another_stream_at_exit_is_an_error(monkeypatch):
    """A flush that fails with a BrokenPipeError while no standard stream's reader has gone (a socket's, a
    worker's) passes through, also when main ends with SystemExit (is_closed_output's docstring)."""
    class BrokenStream:
        def write(self, text):
            return len(text)

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", BrokenStream())

    def exits():
        raise SystemExit(0)
    with pytest.raises(BrokenPipeError):
        run_command(exits)


# ---------------------------------------------------------------------------------------------- option_checks


def test_a_maximum_of_zero_is_a_maximum():
    """number(maximum=...): "at most maximum when given", 0 included."""
    check = number(allow_zero=True, maximum=0)
    check(0.0, "--x")
    with pytest.raises(InputError, match="--x must be at most 0"):
        check(0.5, "--x")


def test_an_empty_list_is_accepted_unless_empty_is_false():
    each(count(1))([], "--sizes")  # empty=True (the default): nothing to refuse
    with pytest.raises(InputError, match="--sizes lists no value"):
        each(count(1), empty=False)([], "--sizes")


def test_an_infinite_value_of_a_finite_option_names_the_option(tmp_path, capsys, monkeypatch):
    """--w-bar-lb allows 0 but not inf: refused before the data set is loaded, naming the option."""
    monkeypatch.chdir(tmp_path)
    assert main(["tune", "--data", "cancer", "--n-train", "6", "--n-val", "6", "--w-bar-lb", "inf"]) == 2
    out, err = capsys.readouterr()
    assert "error: --w-bar-lb must be a finite number" in err and out == ""


# ---------------------------------------------------------------------------------------------- help_format


def test_a_blank_item_is_an_empty_item():
    """has_empty_item: "an empty (or blank) item"."""
    assert has_empty_item("5, ,10") and has_empty_item("5,\t") and has_empty_item("5,,10")
    assert not has_empty_item("5, 10")


def test_comma_items_are_stripped():
    assert comma_items(" a , b,c ", "names") == ["a", "b", "c"]


def test_shown_cuts_only_texts_longer_than_the_limit_and_keeps_the_first_limit_characters():
    text = "0123456789" * 9  # 90 characters
    assert shown(text[:80]) == repr(text[:80])  # exactly the limit: whole
    cut = shown(text)
    assert text[:80] in cut and text[:81] not in cut and "90 characters" in cut


@pytest.mark.parametrize("text, digits", [("1" * 4301, 4301), ("+" + "2" * 5000, 5000), ("-" + "3" * 4400, 4400),
                                          (" " + "4" * 4500 + "\n", 4500)])
def test_an_integer_too_long_for_python_is_named_by_its_digit_count(text, digits):
    """Python's int() refuses more than 4300 digits (sign and surrounding blanks not counted); up to 4300 it reads
    them, and integer() with it."""
    with pytest.raises(ValueError):
        int(text)  # the oracle: Python itself refuses it
    with pytest.raises(argparse.ArgumentTypeError, match=f"an integer of {digits} digits is too long"):
        integer(text)
    assert integer("7" * 4300) == int("7" * 4300)


def test_many_non_ascii_digits_are_not_an_integer_too_long():
    """Arabic-Indic digits are refused as not a plain number, however many."""
    with pytest.raises(argparse.ArgumentTypeError, match="expected an integer") as info:
        integer("\u0661" * 5000)
    assert "too long" not in str(info.value)


@pytest.mark.parametrize("text", ["~", "~/r.json", "~bob/r.json"])
def test_a_path_starting_with_a_tilde_is_refused(text):
    """The shell expands ``~`` and ``~user`` at the start of a word only: any path starting with ~ is refused."""
    with pytest.raises(argparse.ArgumentTypeError, match="did not expand"):
        path_text(text)
    assert path_text("./" + text) == "./" + text


def _help_of(**argument) -> str:
    parser = argparse.ArgumentParser(prog="p", formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--opt", **argument)
    return " ".join(parser.format_help().split())


def test_the_help_shows_a_default_once_and_a_non_empty_list_default():
    stated = _help_of(default=3, help="a count (default: three, the usual)")
    assert stated.count("(default") == 1
    assert "(default: [1, 2])" in _help_of(default=[1, 2], help="sizes")
    assert "(default" not in _help_of(default=[], help="sizes")
    assert "(default: 7)" in _help_of(default=7, help="a count")


# ---------------------------------------------------------------------------------------------- validation


def test_pandas_objects_of_other_lengths_are_named_by_the_shape_check():
    """check_aligned: "other lengths: the shape check names them" (not as different row indexes)."""
    X = pd.DataFrame(np.ones((3, 2)))
    y = pd.Series([1.0, -1.0], index=[7, 8])
    with pytest.raises(InputError, match="one label per row") as info:
        check_xy(X, y, "train")
    assert "row indexes" not in str(info.value)


@pytest.mark.parametrize("value", [10 ** 100 - 1, 10 ** 100, 10 ** 300 - 1, -(10 ** 200 - 1), 2 ** 257, 2 ** 1000])
def test_a_large_int_is_named_by_its_number_of_digits(value):
    """value_text: a Python int of more than 256 bits is "an integer of N digits" (oracle: len(str(abs(value))))."""
    assert value_text(value) == f"an integer of {len(str(abs(value)))} digits"


def test_an_int_of_at_most_256_bits_is_shown_as_is():
    assert value_text(2 ** 256 - 1) == repr(2 ** 256 - 1)


def test_a_header_of_several_fields_is_no_other_separator():
    assert header_separator(["a;b"]) == "semicolons" and header_separator(["a\tb"]) == "tabs"
    assert header_separator(["a;b", "c"]) is None


def test_bounds_of_the_documented_ranges_are_accepted_and_refused():
    assert check_mip_gap(0) == 0.0  # [0, 1)
    with pytest.raises(InputError):
        check_mip_gap(1)
    assert check_epsilon(MAX_EPSILON) == MAX_EPSILON  # at most MAX_EPSILON
    for bad in (float("nan"), float("inf"), -1e-9):
        with pytest.raises(InputError, match="epsilon"):
            check_epsilon(bad)
    for bad in (0, 1, float("nan")):  # strictly between 0 and 1
        with pytest.raises(InputError, match="alpha"):
            check_open_unit(bad, "alpha")
    assert check_count(0, "n", 0, 0) == 0
    with pytest.raises(InputError, match=r"n must be an integer in \[0, 0\]"):
        check_count(1, "n", 0, 0)


def test_a_negative_lower_bound_of_w_bar_is_refused():
    with pytest.raises(InputError, match="w_bar_lb must be >= 0"):
        check_w_bar_bounds((-0.5, 1.0), 2)


def test_an_index_equal_to_n_is_out_of_range():
    assert list(check_indices([2, 0], 3, "flip")) == [0, 2]
    with pytest.raises(InputError, match=r"indices in 0\.\.2; got 3"):
        check_indices([3], 3, "flip")


def test_the_scale_limit_itself_is_accepted():
    """check_scale refuses a scale that *exceeds* MAX_SCALE: ||x||_1 * w_bar_ub = 10 * 1e4 = 1e5 is accepted."""
    check_scale([np.array([[4.0, -6.0]])], np.array([1e4, 1e4]))
    with pytest.raises(InputError, match="features times"):
        check_scale([np.array([[4.0, -6.5]])], np.array([1e4, 1e4]))


def test_an_all_zero_feature_is_not_a_tiny_one():
    """tiny_features: positive but below the limit; a column of zeros has nothing to scale."""
    assert tiny_features([np.array([[0.0, 1.0, 1e-6], [0.0, -2.0, 0.0]])]) == [2]


def test_a_quarter_of_nul_bytes_is_utf16_text(tmp_path):
    """check_utf8_text: NUL bytes "in a quarter or more of its first 4 KiB"."""
    quarter = tmp_path / "q.csv"
    quarter.write_bytes(b"a\x00b\x00,cd\n")  # 2 of 8 bytes
    with pytest.raises(InputError, match="UTF-16 or UTF-32"):
        check_utf8_text(quarter, "data")
    fewer = tmp_path / "f.csv"
    fewer.write_bytes(b"a\x00b,c,d\n")  # 1 of 8 bytes
    check_utf8_text(fewer, "data")


def test_an_arrow_file_is_named_by_its_magic_at_both_ends(tmp_path):
    path = tmp_path / "d.arrow"
    path.write_bytes(b"ARROW1\x00\x00" + bytes(range(40)) + b"ARROW1")
    assert binary_format_of(path) == "an Arrow/Feather file"
    path.write_bytes(b"ARROW1,b,y\n1,2,0\n")  # a header that starts like the magic
    assert binary_format_of(path) is None


def test_a_missing_folder_refused_is_reported_with_the_systems_reason(tmp_path):
    """_refusal: ENOENT is the system's reason unless the folder exists (a virtual file system)."""
    exc = FileNotFoundError(errno.ENOENT, "No such file or directory")
    assert _refusal(exc, tmp_path / "missing") == "No such file or directory"
    assert "does not allow new files" in _refusal(exc, tmp_path)


# ---------------------------------------------------------------------------------------------- highs_run


class _RecordingHighs:
    """Stands in for highspy.Highs in check_infeasible_without_presolve: records what is called."""

    def __init__(self, status, run_time):
        self.status, self.run_time, self.calls = status, run_time, []
        self.cbMipInterrupt = self

    def __iadd__(self, callback):
        return self

    def __isub__(self, callback):
        return self

    def getModelStatus(self):
        return self.status

    def getRunTime(self):
        return self.run_time

    def setOptionValue(self, name, value):
        self.calls.append((name, value))

    def clearSolver(self):
        self.calls.append("clearSolver")

    def run(self):
        self.calls.append("run")


@pytest.mark.parametrize("status, time_limit, run_time, calls", [
    (highspy.HighsModelStatus.kOptimal, 10.0, 4.0, []),
    (highspy.HighsModelStatus.kTimeLimit, 10.0, 4.0, []),
    (highspy.HighsModelStatus.kInfeasible, 10.0, 4.0, [("presolve", "off"), ("time_limit", 6.0), "clearSolver", "run"]),
    (highspy.HighsModelStatus.kInfeasible, None, 4.0, [("presolve", "off"), "clearSolver", "run"]),
    (highspy.HighsModelStatus.kInfeasible, 4.0, 4.0, []),  # no time left
    (highspy.HighsModelStatus.kInfeasible, 4.0, 5.0, []),
])
def test_an_infeasible_claim_is_rerun_without_presolve_in_the_time_left(status, time_limit, run_time, calls):
    """check_infeasible_without_presolve's docstring: only an "infeasible" is run once more, presolve off, from
    scratch, in the time left (HiGHS's time limit does not add up over both runs), and not when none is left."""
    h = _RecordingHighs(status, run_time)
    check_infeasible_without_presolve(h, time_limit)
    assert h.calls == calls


def _tiny_lp():
    h = silent_highs()
    h.addVars(1, np.array([0.0]), np.array([1.0]))
    h.changeColCost(0, -1.0)
    return h


def test_the_interrupt_callback_is_removed_after_the_run():
    h = _tiny_lp()
    before = len(h.cbMipInterrupt.callbacks)
    run_interruptibly(h)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    assert len(h.cbMipInterrupt.callbacks) == before


def test_a_programs_own_sigint_handler_is_left_alone():
    seen = []

    def handler(signum, frame):
        seen.append(signum)
    previous = signal.signal(signal.SIGINT, handler)
    try:
        with sigint_as_flag():
            assert signal.getsignal(signal.SIGINT) is handler  # checked before the signal: no KeyboardInterrupt
            signal.raise_signal(signal.SIGINT)
        assert seen == [signal.SIGINT] and not ctrl_c_pending()
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_is_pending_only_within_its_block():
    """ctrl_c_pending: whether a Ctrl-C arrived "during the current sigint_as_flag block"."""
    with pytest.raises(KeyboardInterrupt):
        with sigint_as_flag():
            signal.raise_signal(signal.SIGINT)
            assert ctrl_c_pending()
    assert not ctrl_c_pending()
    highs_run._CTRL_C.set()  # a flag left from elsewhere (another thread's block) ...
    try:
        with sigint_as_flag():
            assert not ctrl_c_pending()  # ... is not this block's Ctrl-C: no KeyboardInterrupt at its end
    finally:
        highs_run._CTRL_C.clear()


def test_only_the_first_highs_of_the_process_is_built_with_the_output_muted(monkeypatch):
    """silent_highs: "The first one of the process is constructed with standard output muted" (file descriptor 1
    pointed at the null device, which loses other threads' output meanwhile): once, not for every solve."""
    muted = []

    def first_highs():
        muted.append(1)
        return highspy.Highs()
    monkeypatch.setattr(highs_run, "_first_highs", first_highs)
    monkeypatch.setattr(highs_run, "_first_done", False)
    for _ in range(3):
        silent_highs()
    assert muted == [1]


def test_an_unbounded_solve_is_a_solver_error():
    """run_checked: SolverError "when HiGHS does not report it optimal (infeasible, unbounded, ...)"."""
    h = silent_highs()
    h.addVars(1, np.array([0.0]), np.array([highspy.kHighsInf]))
    h.changeColCost(0, -1.0)  # min -x, x >= 0
    with pytest.raises(SolverError, match="probe failed: HiGHS reports"):
        run_checked(h, "probe")
