"""A standard output closed by its reader (``bilevel study ... | head -3``): the command stops quietly.

Python ignores SIGPIPE, so a write to a pipe whose reader has exited raises ``BrokenPipeError``. The commands
reported it as an error (``bilevel study: error: [Errno 32] Broken pipe``, exit code 1, the code of a failure;
``solvers.compare``: exit code 2, the code of bad input), or, when the output was still in Python's buffer,
the interpreter's last flush printed ``Exception ignored ... BrokenPipeError`` and exited 120. Every command line
of the repository (``bilevel``, ``python -m solvers.compare`` / ``solvers.check_solution``, the scripts of
``experiments/``) now runs through :func:`run_command`: the command stops at the first write that fails, with no
message, and exits :data:`EXIT_CLOSED_OUTPUT` (141 = 128 + SIGPIPE, what a shell reports for a program that
SIGPIPE ended, as ``yes | head -1`` does). The standard streams whose reader has gone are pointed at
``os.devnull`` so that the interpreter's last flush does not fail again (Python's documentation, "Note on
SIGPIPE"). Files are written atomically and before the lines that name them, so a command stopped this way
leaves no result cut short; a study stopped this way resumes like an interrupted one.
"""
from __future__ import annotations

import os
import sys

#: Exit code of a command whose standard output (or error) was closed by its reader: 128 + SIGPIPE (13).
EXIT_CLOSED_OUTPUT = 141


def _reader_gone(stream) -> bool:
    """Whether ``stream`` (``sys.stdout`` / ``sys.stderr``) is a pipe or socket whose reading end is closed."""
    try:
        fd = stream.fileno()
    except (AttributeError, ValueError, OSError):  # None (pythonw), replaced (pytest's capture), closed
        return False
    try:
        import select

        poller = select.poll()
    except (ImportError, AttributeError):  # no poll (Windows): a BrokenPipeError is taken as the reader's exit
        return True
    try:
        poller.register(fd, select.POLLOUT)
        events = poller.poll(0)
    except (OSError, ValueError):
        return False
    # a pipe without reader reports POLLERR to its writer (Linux, macOS), a closed socket POLLHUP
    return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in events)


def is_closed_output(exc: BaseException) -> bool:
    """Whether ``exc`` is the ``BrokenPipeError`` of a write to a standard output (or error) whose reader has
    exited. Another broken pipe (a worker's, a socket's) is an error of the command, reported as such."""
    return isinstance(exc, BrokenPipeError) and (_reader_gone(sys.stdout) or _reader_gone(sys.stderr))


def _silence_closed_streams() -> None:
    """Point the standard streams whose reader has gone at ``os.devnull`` (their buffered text is then dropped
    by the interpreter's last flush instead of failing it)."""
    for stream in (sys.stdout, sys.stderr):
        if _reader_gone(stream):
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(devnull, stream.fileno())
                finally:
                    os.close(devnull)
            except (OSError, ValueError):
                pass


def _flush_stdout() -> None:
    if sys.stdout is not None:
        sys.stdout.flush()  # here, where a BrokenPipeError is caught, not at the interpreter's exit


def run_command(main, prog: str | None = None) -> int:
    """Run ``main()`` (no arguments; returns an exit code, or raises SystemExit as argparse does) and return its
    exit code, with a closed standard output handled as the module docstring says: a write that fails because
    the reader has exited ends the command quietly with :data:`EXIT_CLOSED_OUTPUT`; text still in Python's buffer
    when ``main`` returns is flushed here, and when that fails the command's own code is kept if it is an error
    code (the error is on stderr), else :data:`EXIT_CLOSED_OUTPUT` (the output did not all arrive). With
    ``prog`` (the scripts of ``experiments/``), Ctrl-C prints ``<prog>: interrupted`` on stderr and returns 130,
    as ``bilevel`` and ``solvers`` do themselves (a Python traceback before). Other exceptions pass through."""
    try:
        code = main()
    except KeyboardInterrupt:
        if prog is None:
            raise
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except SystemExit as exc:  # argparse's --help, --version and usage errors
        try:
            _flush_stdout()
        except BrokenPipeError as flush_exc:
            if not is_closed_output(flush_exc):
                raise
            _silence_closed_streams()
            if exc.code in (0, None):
                raise SystemExit(EXIT_CLOSED_OUTPUT) from None
        raise
    except BrokenPipeError as exc:
        if not is_closed_output(exc):
            raise
        _silence_closed_streams()
        return EXIT_CLOSED_OUTPUT
    try:
        _flush_stdout()
    except BrokenPipeError as exc:
        if not is_closed_output(exc):
            raise
        _silence_closed_streams()
        return int(code) if code else EXIT_CLOSED_OUTPUT
    return code
