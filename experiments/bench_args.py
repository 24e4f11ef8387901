"""Argument types and checks shared by the benchmark scripts of experiments/: a bad value ends the script at
once with argparse's one-line error (exit code 2), not with a traceback after some instances have run."""
from __future__ import annotations

import argparse
import math

from bilevel.help_format import plain_number
from bilevel.validation import repeated_values


def positive_seconds(text: str) -> float:
    """``--time-limit``: a finite number of seconds > 0 (0, negative, ``nan`` and ``inf`` are refused)."""
    try:
        value = plain_number(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def integer_at_least(minimum: int):
    """An argparse type: an integer >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = plain_number(text, int)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {value}")
        return value
    parse.__name__ = f"integer >= {minimum}"
    return parse


def refuse_repeats(ap: argparse.ArgumentParser, args: argparse.Namespace, *names: str) -> None:
    """``ap.error`` when one of the list options ``names`` repeats a value: the instance would run twice and
    count twice in the report's totals and means."""
    for name in names:
        repeated = repeated_values(getattr(args, name) or [])
        if repeated:
            ap.error(f"--{name.replace('_', '-')} lists {', '.join(repeated)} more than once")
