"""The docstring standard of the public API: every public function has a docstring that says which errors it
raises (or that it raises none, or points to the function whose errors it shares) and names the equation,
section or paper it implements (or says it is a utility).

Public functions: those exported from ``bilevel`` and ``bilevel.certify`` and the public functions of
``bilevel.ranking``. Whether the stated numbers are right is checked by reading the papers, not here."""
from __future__ import annotations

import inspect
import re

import pytest

import bilevel
import bilevel.certify
import bilevel.ranking


def _public_functions() -> dict[str, object]:
    found = {}
    for module, names in [
        (bilevel, [n for n in dir(bilevel) if not n.startswith("_")]),
        (bilevel.certify, bilevel.certify.__all__),
        (bilevel.ranking, [n for n in vars(bilevel.ranking) if not n.startswith("_")]),
    ]:
        for name in names:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and (module is not bilevel.ranking or obj.__module__ == module.__name__):
                found[f"{module.__name__}.{name}"] = obj
    return found


FUNCTIONS = _public_functions()

# Errors: a Raises section or sentence, an error class named, "never raises", or the errors of another
# function referred to ("errors: as :func:`x`", "see :func:`x` for the arguments and errors").
ERRORS = re.compile(r"\braises?\b|InputError|SolverError|errors?\b[^.]*:func:`|:func:`[^`]+`[^.]*\berrors\b",
                    re.IGNORECASE)
# Source: an equation, section, appendix, algorithm, proposition/corollary/lemma, a cited paper (author and
# year), or the word "utility" / "heuristic of this package" / "dispatcher" for code that implements none.
SOURCE = re.compile(
    r"\bEqs?\. \(\d+\)|\bSection \d|\bSec\. \d|\bApp(?:endix|\.) [A-Z]\b|\bAlg(?:orithm|\.) [A-Z]?\.?\d"
    r"|\b(?:Proposition|Corollary|Lemma) [A-Z]?\.?\d|\b[A-Z][a-z]+(?: et al\.)?,? (?:19|20)\d\d\b"
    r"|\butility\b|\bheuristic of this package\b|\bdispatcher\b"
)


def test_the_public_functions_are_found():
    names = set(FUNCTIONS)
    assert len(names) >= 45  # 13 of bilevel, 27 of bilevel.certify, 5 of bilevel.ranking
    assert {"bilevel.tune", "bilevel.certify.rg_pt", "bilevel.ranking.check_eta"} <= names


def test_the_patterns_tell_a_good_docstring_from_a_bare_one():
    assert ERRORS.search("Raises InputError for a bad delta.") and not ERRORS.search("Return the mask.")
    assert ERRORS.search("Shapes, errors: as :func:`bonferroni`.")
    assert SOURCE.search("Eq. (25) of the pessimistic bilevel tuning paper") and SOURCE.search("(Holm, 1979)")
    assert not SOURCE.search("Eq. (x) of a paper, 1e-4 relative gap, Section five")


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_docstring_states_errors_and_source(name):
    doc = inspect.getdoc(FUNCTIONS[name])
    assert doc and len(doc) >= 60, f"{name}: no docstring (or a stub)"
    assert ERRORS.search(doc), f"{name}: the docstring does not say which errors it raises (or that it raises none)"
    assert SOURCE.search(doc), f"{name}: the docstring names no equation/section/paper and does not say it is a utility"
