"""The help formatter of every ``bilevel`` subcommand."""
from __future__ import annotations

import argparse


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
