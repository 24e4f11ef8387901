"""The argparse pieces every ``bilevel`` subcommand shares: the help formatter and comma-separated lists."""
from __future__ import annotations

import argparse


def has_empty_item(text: str) -> bool:
    """Whether the comma-separated list ``text`` has an empty (or blank) item, as in ``"5,,10"`` or ``"5,"``: a
    typo the command-line tools refuse (they read ``"5,,10"`` as ``"5,10"`` without a word). A utility; raises
    nothing."""
    return not all(item.strip() for item in text.split(","))


def plain_number(text: str, cast=float):
    """``cast(text)`` (``int`` or ``float``) for a number written with ASCII characters only and without ``_``;
    Python's own ``int`` and ``float`` read ``"1_0"`` as 10 and ``"\u0663"`` (an Arabic-Indic digit) as 3. A utility;
    raises ValueError for such text or a non-number."""
    if "_" in text or not text.isascii():
        raise ValueError(f"not a plain number: {text!r}")
    return cast(text)


def shown(text: str, limit: int = 80) -> str:
    """``repr(text)`` for an error message, cut to its first ``limit`` characters (and its length) when longer: an
    option given 5000 digits filled the terminal with them. A utility; raises nothing."""
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def _too_many_digits(text: str) -> int:
    """The number of digits of ``text`` when it is a plain integer that Python refuses to read for its length
    (``int`` reads at most ``sys.get_int_max_str_digits()`` digits, 4300 by default), else 0."""
    digits = text.strip()
    digits = digits[1:] if digits[:1] in "+-" else digits
    return len(digits) if digits.isascii() and digits.isdigit() and len(digits) > 4300 else 0


def integer(text: str) -> int:
    """An argparse ``type`` for an integer option (:func:`plain_number`: ``--seed 1_0`` was read as 10). Raises
    argparse.ArgumentTypeError for anything else, and for an integer of more digits than Python reads (4300,
    named as such: it was "expected an integer, got" and every digit)."""
    try:
        return plain_number(text, int)
    except ValueError:
        n_digits = _too_many_digits(text)
        if n_digits:
            raise argparse.ArgumentTypeError(f"an integer of {n_digits} digits is too long (at most 4300 digits)") \
                from None
        raise argparse.ArgumentTypeError(f"expected an integer, got {shown(text)}") from None


def real(text: str) -> float:
    """An argparse ``type`` for a number option (:func:`plain_number`: ``--time-limit 1_0`` was read as 10).
    Raises argparse.ArgumentTypeError for anything else."""
    try:
        return plain_number(text, float)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None


def path_text(text: str) -> str:
    """An argparse ``type`` for a file or folder option: ``text`` unchanged, unless it starts with ``~``. The shell
    expands ``~`` only at the start of a word, not after ``--json=`` nor inside quotes, so ``--json=~/r.json``
    reached the command as the text ``~/r.json``: it wrote ``./~/r.json`` (a folder named ``~`` in the working
    directory) and printed ``result : ~/r.json``, which reads as a file in the home folder, and an input
    ``--data=~/x.csv`` was "neither a built-in name nor an existing file". Raises argparse.ArgumentTypeError saying
    so (``./~/...`` names a folder ``~`` of the working directory on purpose)."""
    if text.startswith("~"):
        raise argparse.ArgumentTypeError(
            f"{text!r} starts with '~', which the shell did not expand to a home folder (it does so only at the "
            f"start of a word: not after '=', nor inside quotes); give the path as a separate word or in full, or "
            f"write './{text}' for that name in the working directory")
    return text


def comma_items(text: str, what: str) -> list[str]:
    """The stripped items of the comma-separated list ``text``, for an argparse ``type``; ``what`` names them in
    the message (e.g. ``"integers"``). A utility; raises argparse.ArgumentTypeError for an empty item
    (:func:`has_empty_item`)."""
    if has_empty_item(text):
        raise argparse.ArgumentTypeError(f"expected comma-separated {what} without empty items, got {shown(text)}")
    return [item.strip() for item in text.split(",")]


def integer_list(text: str) -> list[int]:
    """The integers of the comma-separated list ``text`` (each read by :func:`integer`), for an argparse ``type``.
    A utility; raises argparse.ArgumentTypeError for an empty item (:func:`comma_items`) or an item that is not
    an integer, naming the list and the item's fault."""
    items = comma_items(text, "integers")
    try:
        return [integer(item) for item in items]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {shown(text)}: {exc}") from None


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """``argparse.ArgumentDefaultsHelpFormatter`` that appends ``(default: X)`` only where it tells something.

    Left out: a default of ``None``, ``False`` (a flag) or an empty list (nothing given means nothing), and
    any help text that already states its default in words, e.g. ``"(default: its last column)"``, which the
    plain formatter would follow with a second ``(default: None)``. Raises nothing of its own.
    """

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if "(default" in text or default is None or default is False or (isinstance(default, list) and not default):
            return text
        return super()._get_help_string(action)
