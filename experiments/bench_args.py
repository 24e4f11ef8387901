"""Argument types and checks shared by the benchmark scripts of experiments/: a bad value ends the script at
once with argparse's one-line error (exit code 2), not with a traceback after some instances have run."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from bilevel.help_format import integer, real, shown
from bilevel.errors import InputError
from bilevel.validation import check_writable_folder, repeated_values, value_text


def positive_seconds(text: str) -> float:
    """``--time-limit``: a finite number of seconds > 0 (0, negative, ``nan`` and ``inf`` are refused)."""
    value = real(text)  # bilevel's own reader: "expected a number, got ..." (cut when long)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {shown(text)}")
    return value


def integer_at_least(minimum: int, maximum: int | None = None, why: str = ""):
    """An argparse type: an integer >= ``minimum`` (and <= ``maximum`` when given; ``why`` says why, in the
    message)."""
    def parse(text: str) -> int:
        value = integer(text)  # bilevel's own reader: an integer of over 4300 digits named by its length
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value_text(value)}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum}{' (' + why + ')' if why else ''}, "
                                             f"got {value_text(value)}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


#: HiGHS's option ``random_seed`` takes 0..2147483647 (HiGHS 1.15.1 refuses 2**31): the scripts that solve under
#: HiGHS seeds 0..N-1 (``--random-seeds N``) have at most 2**31 of them. ``--random-seeds 9223372036854775808`` was
#: accepted; its run would have failed at seed 2**31.
MAX_HIGHS_SEEDS = 2**31


def highs_seed_count(text: str) -> int:
    """``--random-seeds``: a number of HiGHS random seeds (0..N-1), 1 to :data:`MAX_HIGHS_SEEDS`."""
    return integer_at_least(1, MAX_HIGHS_SEEDS, "HiGHS's random_seed runs 0-2147483647")(text)


def refuse_repeats(ap: argparse.ArgumentParser, args: argparse.Namespace, *names: str) -> None:
    """``ap.error`` when one of the list options ``names`` repeats a value: the instance would run twice and
    count twice in the report's totals and means."""
    for name in names:
        repeated = repeated_values(getattr(args, name) or [])
        if repeated:
            ap.error(f"--{name.replace('_', '-')} lists {', '.join(repeated)} more than once")


def writable_out(ap: argparse.ArgumentParser, folder) -> Path:
    """``folder`` (``--out``) as a Path, created if needed, after :func:`bilevel.validation.check_writable_folder`;
    ``ap.error`` with its message (exit code 2) when it is a file or cannot be written to, before any solve (a plain
    ``mkdir`` raised ``FileExistsError`` for a file, and an existing folder that takes no files, ``/proc``, failed
    only at the first write, after the first instance had run)."""
    try:
        return check_writable_folder(folder, "--out")
    except InputError as exc:
        ap.error(str(exc))
