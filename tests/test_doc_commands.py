"""Every command the documentation shows in a code block (``bilevel ...``, ``python -m solvers.X ...``,
``python -m experiments.X ...``, ``python experiments/X.py ...``) parses with the command's own argument
parser: a user who copies it does not get "unrecognized arguments" or "invalid choice". Only parsed, never run.

Optional parts written as ``[--flag value]`` are parsed with the brackets removed, ``a|b|c`` as its first
alternative; a command with a placeholder (``...``, ``NAME``, ``MANIFEST``) is left out."""
from __future__ import annotations

import argparse
import importlib
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ["README.md", "models/README.md", "solvers/README.md", "experiments/README.md", "experiments/PERFORMANCE.md"]
PLACEHOLDERS = ("...", "NAME", "MANIFEST", "COLUMN")


def _code_blocks(text: str) -> list[str]:
    blocks, inside, lines = [], False, []
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            if inside:
                blocks.append("\n".join(lines))
            inside, lines = not inside, []
        elif inside:
            lines.append(line)
    return blocks


def _commands() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        path = ROOT / doc
        if not path.exists():
            continue
        for block in _code_blocks(path.read_text()):
            for line in block.replace("\\\n", " ").splitlines():
                for part in line.split(";"):
                    command = re.split(r"\s#|\s>\s", part)[0].strip()  # comment, output redirection
                    command = re.sub(r"^(?:\.venv/bin/)?python3? ", "python ", command)
                    if re.match(r"(?:bilevel(?: |$)|python -m (?:bilevel|solvers|experiments)\b|python experiments/)",
                                command) and not any(p in command for p in PLACEHOLDERS):
                        found.append((doc, command))
    return found


class _Parsed(Exception):
    pass


def _argv(command: str) -> tuple[str, list[str]]:
    """The module whose ``main(argv)`` runs the command, and its argv (brackets dropped, first alternatives)."""
    words = shlex.split(re.sub(r"[\[\]]", "", command))
    words = [w.split("|")[0] if w.startswith("-") or "|" in w and "/" not in w else w for w in words]
    if words[0] == "bilevel":
        return "bilevel.cli", words[1:]
    if words[:2] == ["python", "-m"]:
        return ("bilevel.cli" if words[2] == "bilevel" else words[2]), words[3:]
    return words[1].removesuffix(".py").replace("/", "."), words[2:]


def _parse(module: str, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv`` with the parser that ``module.main`` builds, without running anything."""
    original = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        raise _Parsed(original(self, args, namespace))

    argparse.ArgumentParser.parse_args = parse_only
    try:
        importlib.import_module(module).main(argv)
    except _Parsed as parsed:
        return parsed.args[0]
    finally:
        argparse.ArgumentParser.parse_args = original
    raise AssertionError(f"{module}.main did not parse its arguments")


COMMANDS = _commands()


def test_the_commands_are_found():
    modules = {_argv(c)[0] for _, c in COMMANDS}
    assert len(COMMANDS) >= 25
    assert {"bilevel.cli", "solvers.compare", "solvers.check_solution", "experiments.bench_milp"} <= modules


@pytest.mark.parametrize("doc,command", COMMANDS, ids=[f"{d}:{c[:60]}" for d, c in COMMANDS])
def test_documented_command_parses(doc, command, capsys):
    module, argv = _argv(command)
    try:
        _parse(module, argv)
    except SystemExit as exc:
        if exc.code:  # --help and --version exit 0
            pytest.fail(f"{doc}: `{command}` does not parse: {capsys.readouterr().err.strip()}")


def test_a_wrong_flag_is_caught(capsys):
    with pytest.raises(SystemExit):
        _parse("bilevel.cli", ["tune", "--data", "cancer", "--n-trains", "5"])
    with pytest.raises(SystemExit):
        _parse("solvers.compare", ["models/manifest.csv", "--solvers", "highs"])
    assert _parse("bilevel.cli", ["tune", "--data", "cancer", "--n-train", "5"]).n_train == 5
