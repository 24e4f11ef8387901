"""Checks of command-line option values whose messages name the option as typed (``--n-train``), for the
command-line tools (``bilevel tune``, ``study``, ``certify``, ``solvers.compare``, ``solvers.check_solution``).

The library's own checks name its Python arguments (``need n_train >= 2 ...``, ``time_limit (seconds) must be
...``): a user of ``bilevel tune --n-train 1`` had to guess the option meant, and some were made only after the
data set was loaded (``tune --time-limit 0`` printed its ``data`` line first). A tool lists its options once,
``{argparse dest: checker}``, and calls :func:`check_options` before it loads anything; the option is the dest
with ``-`` for ``_`` (``n_train`` -> ``--n-train``). A checker is called as ``checker(value, option)`` for an
option given (not ``None``) and raises InputError naming ``option``; the library's checks that take the name to
use (``bilevel.validation.check_epsilon``, ``check_seed``, ``check_mip_gap``) serve as checkers themselves. The
library's messages stay as they were."""
from __future__ import annotations

from .errors import InputError
from .validation import check_count, check_positive, repeated_values


def check_options(args, checks: dict) -> None:
    """Run ``checks[dest](value, "--dest-with-dashes")`` for each option of ``checks`` that ``args`` (an
    ``argparse.Namespace``) gives, in the order of ``checks``. A utility; raises the checkers' InputError."""
    for dest, check in checks.items():
        value = getattr(args, dest, None)
        if value is not None:
            check(value, "--" + dest.replace("_", "-"))


def count(minimum: int, maximum: int | None = None):
    """A checker: an integer of at least ``minimum`` (and at most ``maximum``). A utility; its InputError names
    the option (:func:`bilevel.validation.check_count`)."""
    return lambda value, option: check_count(value, option, minimum, maximum)


def number(*, allow_zero: bool = False, allow_inf: bool = False, maximum: float | None = None):
    """A checker: a number > 0 (>= 0 with ``allow_zero``), finite unless ``allow_inf``, and at most ``maximum``
    when given. A utility; its InputError names the option (:func:`bilevel.validation.check_positive`)."""
    def check(value, option):
        v = check_positive(value, option, allow_zero=allow_zero, allow_inf=allow_inf)
        if maximum is not None and v > maximum:
            raise InputError(f"{option} must be at most {maximum:g}; got {value!r}")
    return check


def fraction(value, option) -> None:
    """A checker: a number in [0, 1) (NaN refused). A utility; raises InputError naming the option."""
    if not 0.0 <= value < 1.0:
        raise InputError(f"{option} must lie in [0, 1); got {value!r}")


def nonempty_path(what: str):
    """A checker of a file or folder option (or of a positional argument, called with its name as ``--help``
    shows it, e.g. ``manifest``): a path that is not empty or blank, ``what`` saying what to give instead
    (``"a CSV file"``). ``Path("")`` is the working directory, so an empty path was read as ``.`` and refused as a
    folder (``cannot read .: [Errno 21] Is a directory``, ``manifest '.' not found``) naming no option. A utility;
    raises InputError naming the option."""
    def check(value, option):
        if not value.strip():
            raise InputError(f"{option} is an empty path; give {what}")
    return check


def each(check=None, *, empty: bool = True):
    """A checker of a list option: ``check`` (if any) on every item, no item given twice (it would run the
    same work twice), and (``empty=False``) at least one item. A utility; raises InputError naming the option."""
    def check_all(values, option):
        if not empty and not len(values):
            raise InputError(f"{option} lists no value; give at least one")
        for value in values if check is not None else ():
            check(value, option)
        repeated = repeated_values(values)
        if repeated:
            raise InputError(f"{option} lists {', '.join(repeated)} more than once")
    return check_all

