"""What ``import bilevel`` and the command line load. The public names of ``bilevel`` are imported from their
submodules on first use, and ``bilevel COMMAND`` imports only that command's module, so that ``bilevel --help``
and ``import bilevel.certify`` do not load Pyomo (``bilevel --help`` took about a second, now about 0.2 s)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import pytest
from highs_seed import ENV as SEED_ENV

import bilevel
from bilevel.cli import SUBCOMMANDS, build_parser, command_of, main

HEAVY = ("pyomo", "pandas", "highspy")
# (without the variable through which ``pytest --highs-seed`` seeds subprocesses: its hook imports bilevel.solve)
CLEAN_ENV = {key: value for key, value in os.environ.items() if key != SEED_ENV}


def _loaded_after(code: str) -> list[str]:
    """The modules of :data:`HEAVY` loaded by a fresh Python process after running ``code``."""
    script = f"import json, sys\n{code}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=CLEAN_ENV)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_top_level_help_and_errors_load_no_solver_stack():
    for argv in (["--help"], [], ["bogus"], ["tune", "--help"], ["study", "--help"], ["certify", "--help"],
                 ["export-library", "--help"], ["export-library", "--data", "bogus"],
                 ["tune", "--data", "cancer", "--n-train", "1"]):  # (a refused option loads no data)
        code = f"from bilevel.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        assert _loaded_after(code) == [], argv
    # every command's parser, registered in full, loads none of them either (export-library's took 0.9 s with Pyomo)
    assert _loaded_after("from bilevel.cli import build_parser\nbuild_parser()") == []
    # the oracle that the check can fail: export-library past its option checks (no instance matches --only, so it
    # writes nothing) has loaded Pyomo and HiGHS
    only = "from bilevel.cli import main\nmain(['export-library', '--only', 'no-such-instance'])"
    assert _loaded_after(only) == ["pyomo", "highspy"]


def test_certify_help_and_a_refused_option_load_no_scipy():
    """``bilevel certify --help`` took about a second, 0.5 s of it SciPy's import through the pipelines that
    ``import bilevel.certify`` loaded; its public names now load on first use (bilevel.lazy_exports)."""
    for argv in (["certify", "--help"], ["certify", "--losses", "x.csv", "--alpha", "2"]):
        code = ("from bilevel.cli import main\ntry:\n    main(" + repr(argv) + ")\nexcept SystemExit:\n    pass\n"
                "print('SCIPY', 'scipy' in sys.modules)")
        assert _output_of(code)[-1] == "SCIPY False", argv
    # the oracle that the check can fail: a pipeline's first use loads it
    assert _output_of("import bilevel.certify\nbilevel.certify.ltt\nprint('SCIPY', 'scipy' in sys.modules)")[-1] == (
        "SCIPY True")


def test_a_public_name_that_is_also_a_submodule_stays_the_function():
    """bilevel.lazy_exports.LazyPackage: importing the submodules ``bilevel.tune`` and ``bilevel.certify.dagger``
    (which the import system binds as attributes of their packages) leaves the functions of those names there, and
    the lazily loaded names are those of their submodules."""
    import bilevel.certify
    import bilevel.certify.dagger  # noqa: F401
    import bilevel.certify.pipelines  # noqa: F401
    import bilevel.tune  # noqa: F401

    assert isinstance(bilevel.tune, types.FunctionType) and bilevel.tune.__module__ == "bilevel.tune"
    assert isinstance(bilevel.certify.dagger, types.FunctionType)
    assert bilevel.certify.dagger is sys.modules["bilevel.certify.dagger"].dagger
    for name in bilevel.certify.__all__:
        value = getattr(bilevel.certify, name)
        assert value is getattr(sys.modules[f"bilevel.certify.{bilevel.certify._EXPORTS[name]}"], name), name
    assert set(bilevel.certify.__all__) <= set(dir(bilevel.certify))
    with pytest.raises(AttributeError, match="has no attribute 'bogus'"):
        bilevel.certify.bogus


def _output_of(code: str) -> list[str]:
    """The lines a fresh Python process prints after running ``import sys`` and ``code``."""
    proc = subprocess.run([sys.executable, "-c", "import sys\n" + code], capture_output=True, text=True, timeout=120,
                          env=CLEAN_ENV)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()


def test_the_certification_loads_no_pyomo():
    assert "pyomo" not in _loaded_after("import bilevel.certify")
    assert "pyomo" not in _loaded_after("import bilevel")
    assert "pyomo" in _loaded_after("import bilevel\nbilevel.build_optimistic_model")


def test_the_top_level_help_is_that_of_the_full_parser(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert capsys.readouterr().out == build_parser().format_help()


@pytest.mark.parametrize("command", list(SUBCOMMANDS))
def test_each_command_alone_parses_as_with_every_command(command, capsys):
    texts = []
    for parser in (build_parser([command]), build_parser()):
        with pytest.raises(SystemExit):
            parser.parse_args([command, "--help"])
        texts.append(capsys.readouterr().out)
    assert texts[0] == texts[1] and f"usage: bilevel {command}" in texts[0]
    if command == "tune":
        full, alone = build_parser(), build_parser(["tune"])
        argv = ["tune", "--data", "cancer", "--n-train", "7", "--mode", "optimistic"]
        assert vars(alone.parse_args(argv)) == vars(full.parse_args(argv))


def test_the_command_is_the_first_item_that_is_no_option():
    assert command_of([]) is None and command_of(["--help"]) is None and command_of(["-h", "--version"]) is None
    assert command_of(["tune", "--data", "cancer"]) == "tune" and command_of(["--help", "study"]) == "study"
    assert command_of(["bogus", "tune"]) == "bogus"


def test_a_bad_option_of_a_command_is_refused_by_that_command(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["certify", "--bogus"])
    assert exc.value.code == 2 and "usage: bilevel certify" in capsys.readouterr().err


def test_every_public_name_resolves_and_is_listed():
    assert set(bilevel.__all__) <= set(dir(bilevel))
    for name in bilevel.__all__:
        obj = getattr(bilevel, name)
        assert not isinstance(obj, types.ModuleType), name
        if callable(obj):
            assert obj.__module__.startswith("bilevel."), name
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        bilevel.nope  # noqa: B018


@pytest.mark.parametrize("first", ["import bilevel.tune", "import bilevel.tune_cli", "from bilevel.tune import tune",
                                   "import bilevel.certify.milp", ""])
def test_bilevel_tune_is_the_function_whatever_was_imported_first(first):
    """The import system binds a submodule as an attribute of its package once it has run, so the module
    ``bilevel.tune`` would shadow the function ``bilevel.tune`` when imported before the name was looked up."""
    code = (f"{first}\nimport types, bilevel\nfrom bilevel import tune\n"
            "import importlib\nmodule = importlib.import_module('bilevel.tune')\n"
            "print(isinstance(bilevel.tune, types.FunctionType) and tune is bilevel.tune is module.tune)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=CLEAN_ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True"


def test_a_public_name_is_bound_in_its_package_on_first_access():
    """``LazyPackage``: a name of ``_EXPORTS`` is imported on first access and then bound in the package (its
    docstring), so later accesses do not go through ``__getattr__``. Oracle: the package's own ``__dict__`` before
    and after, in a fresh process, against the function of the submodule. (A mutation study of
    bilevel/lazy_exports.py: of 8 mutants, the suite killed 4; this test kills the one that dropped the binding,
    and the other 3 are equivalent: ``dir()`` sorts what ``__dir__`` returns; an absolute import of the same
    submodule; and keeping the function for a bound submodule under every exported name rather than only a name
    that is its own submodule's, as no exported name of ``bilevel`` or ``bilevel.certify`` is another submodule's
    name.)"""
    code = ("import bilevel.certify as c\nfrom bilevel.certify import procedures\nbefore = 'holm' in vars(c)\n"
            "c.holm\nprint(before, vars(c).get('holm') is procedures.holm)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=CLEAN_ENV)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]
