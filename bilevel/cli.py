"""Command line: ``bilevel tune`` (the main job) and the other subcommands.

Each subcommand lives in its own module exposing ``add_parser(subparsers)``; the parser it registers
sets ``func`` to a callable ``args -> exit code``. Bad input prints one line on stderr and exits 2.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import warnings

from .closed_output import is_closed_output, run_command
from .errors import InputError, SolverError
from .validation import removed_if_empty_on_failure

#: The subcommands, in the order ``bilevel --help`` lists them: each one's name, the module that registers it
#: (``add_parser(subparsers)``, which registers this summary as the command's help) and the one-line summary
#: ``bilevel --help`` shows. ``bilevel COMMAND ...`` imports that command's module only.
SUBCOMMANDS = {
    "tune": ("bilevel.tune_cli", "tune w_bar by solving the bilevel MILP(s) on a data set (the main job)"),
    "certify": ("bilevel.certify.cli", "certify candidate hyperparameters: risk <= alpha with FWER/FDR <= delta"),
    "study": ("bilevel.study_cli",
              "reproduce the paper's small-data UCI studies (limited and perturbed data) with tables and plots"),
    "export-library": ("bilevel.library_cli",
                       "regenerate the library of exported tuning MILPs (models/) and its manifest"),
}


class _SubcommandParser(argparse.ArgumentParser):
    """The parser of one subcommand: it refuses an unknown option itself. argparse hands a subcommand's unknown
    options back to the top-level parser, which refused them with its own usage, so ``bilevel tune --data cancer
    --bogus`` printed ``usage: bilevel [-h] [--version] COMMAND ...`` and not the usage of ``bilevel tune``."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extra = super().parse_known_args(args, namespace)
        if extra:
            text = " ".join(extra)
            self.error(f"unrecognized arguments: {text if len(text) <= 200 else text[:200] + '...'}")
        return namespace, extra


def build_parser(commands=None) -> argparse.ArgumentParser:
    """The ``bilevel`` argument parser. The subcommands named in ``commands`` (default: all of
    :data:`SUBCOMMANDS`) are registered in full by their modules (one whose module is missing is left out); the
    others by name and summary only, enough for ``bilevel --help`` and for argparse's "invalid choice" message,
    without importing their modules (Pyomo, pandas and SciPy, about a second). A utility; raises nothing."""
    parser = argparse.ArgumentParser(
        prog="bilevel",
        description="Tune the box bounds w_bar of a linear SVM by solving optimistic and pessimistic bilevel "
        "MILPs with HiGHS, verify the solutions, export the MILPs, and certify the tuned hyperparameters.",
    )
    parser.add_argument("--version", action=_VersionAction,
                        help="print the versions of bilevel, HiGHS, Pyomo and Python (for a bug report) and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_SubcommandParser)
    sub.required = True
    for command, (name, summary) in SUBCOMMANDS.items():
        if commands is not None and command not in commands:
            sub.add_parser(command, help=summary)
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.add_parser(sub)
    return parser


def command_of(argv) -> str | None:
    """The subcommand that the arguments ``argv`` (without the program name) name: their first item that is not
    an option (``bilevel``'s own options, ``--help`` and ``--version``, take no value), or None. A utility; raises
    nothing."""
    return next((item for item in argv if not item.startswith("-")), None)


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit 0, as argparse's ``action="version"`` does, but computing
    the text only when the option is given (it imports Pyomo and HiGHS)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def version_text() -> str:
    """One line: the versions of bilevel, the HiGHS library (through highspy), Pyomo and Python, which decide the
    solutions (README, *Dependency versions*)."""
    import platform

    import pyomo

    from . import __version__
    from .highs_run import silent_highs

    return (f"bilevel {__version__} (HiGHS {silent_highs().version()}, Pyomo {pyomo.__version__}, "
            f"Python {platform.python_version()})")


def main(argv=None) -> int:
    """Run ``bilevel`` on ``argv`` (default: ``sys.argv[1:]``); returns the exit code: 0 on success, 2 for bad
    input (InputError, one line on stderr), 1 for a solver error, a failed verification or an operating-system
    error (a file that cannot be written, a scheduler that cannot be reached; one line on stderr), 130 when
    interrupted, 141 without a message when the standard output was closed by its reader (``| head -3``:
    :mod:`bilevel.closed_output`; it was "error: [Errno 32] Broken pipe" and exit code 1). A failed command removes
    the output folders it created that are still empty. A warning is one line, ``bilevel COMMAND: warning: ...``.
    argparse exits 2 itself on unknown options."""
    return run_command(lambda: _main(argv))


@contextlib.contextmanager
def _one_line_warnings(command: str):
    """Within the block, a warning prints as ``bilevel COMMAND: warning: MESSAGE``, one line on stderr: Python's own
    format showed the package's file, line number and source line, two lines for a user of the command (``bilevel
    certify --losses`` of a file whose header holds numbers). It replaces ``warnings.formatwarning``, not
    ``showwarning``, so that ``warnings.catch_warnings(record=True)`` around the command still records them (a
    replaced ``showwarning`` is called instead of the recorder); the old format is restored after. Raises
    nothing."""
    def one_line(message, category, filename, lineno, line=None):
        return f"bilevel {command}: warning: {' '.join(str(message).split())}\n"
    saved = warnings.formatwarning
    warnings.formatwarning = one_line
    try:
        yield
    finally:
        warnings.formatwarning = saved


def _main(argv) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = command_of(argv)
    parser = build_parser([command] if command in SUBCOMMANDS else [])
    args = parser.parse_args(argv)
    try:
        # no empty --export/--out folder left by a failed command
        with removed_if_empty_on_failure(), _one_line_warnings(args.command):
            return int(args.func(args) or 0)
    except InputError as exc:
        print(f"bilevel {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except SolverError as exc:
        print(f"bilevel {args.command}: solver error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file that cannot be written (a full disk, ...), a scheduler that cannot be reached
        if is_closed_output(exc):  # not an error of the command: run_command stops it quietly
            raise
        print(f"bilevel {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"bilevel {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
