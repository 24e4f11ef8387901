"""Names that solvers' LP and MPS readers refuse or misread, so :func:`bilevel.write_model` can refuse them.

Found by writing two-variable models with Pyomo's symbolic labels (letters, digits, ``_``, ``(``, ``)``; other
characters become ``_``) and reading them with CPLEX 22.2, HiGHS 1.15 (``readModel``) and CBC 2.10.3. Silently
wrong readings are marked *misread*: the solver reads another model and solves it without a word.

CPLEX LP (``.lp``): a number and a name that starts like an exponent are read as one number, so ``+7 e1x`` is
misread as ``70 x``, and ``+7 e``, ``+7 e2``, ``+7 ee`` are refused (``e``/``E`` alone or followed by a digit or
another ``e``/``E``; ``ex``, ``e_1``, ``e(1)`` are read right); ``+7 1x`` is misread as ``71 x``; a variable
name of 255 characters or more is cut and its bounds misread. HiGHS LP: section keywords (any case) and names
that start with ``inf`` or ``nan`` (read as numbers) are refused. CBC LP: keywords are refused or replaced by
default names, and so are names over 100 characters and names with characters beyond ASCII (Pyomo's labeler
keeps those beyond Latin-1: ``x['Σ']`` is written ``x(Σ)``). HiGHS MPS (free format): a column ``NAME`` or
``OBJSENSE`` (any case) is read as a section header and loses its entries (misread); ``QSECTION``,
``QCMATRIX``, ``CSECTION`` are refused; a column ``BOUND`` or an objective ``RHS`` (the set names Pyomo
writes) is taken for the column or row of an entry without a set name (misread). CBC MPS misreads names of
about 160 characters and crashes on longer ones; CPLEX MPS cuts names at 255. Pyomo names the objective's
constant term ``ONE_VAR_CONSTANT``: a variable of that name is written twice (MPS, misread by CPLEX) or stops
Pyomo's LP writer. Constraint names are written with a prefix (``c_u_``, ``c_l_``, ``c_e_``, ``r_l_``,
``r_u_``) and a suffix ``_``, so only their length matters.
"""
from __future__ import annotations

import re

import pyomo.environ as pyo
from pyomo.core.base.label import LPFileLabeler

from .errors import InputError

#: Longest written name every reader above takes (CBC's LP reader drops longer ones).
MAX_LENGTH = 100
#: Characters the writers add to a constraint's label: a 4-character prefix such as ``c_u_`` and a ``_``.
_ROW_AFFIX = 5
_CONSTANT = "ONE_VAR_CONSTANT"

_LP_KEYWORDS = frozenset("free st subject bounds bound end general generals gen integer integers binary "
                         "binaries bin semi semis sos min max minimize maximize minimum maximum".split())
_EXPONENT = re.compile(r"[eE]([0-9eE]|$)")
_NUMBER_WORD = re.compile(r"(inf|nan)", re.IGNORECASE)
_MPS_SECTIONS = frozenset("NAME OBJSENSE QSECTION QCMATRIX CSECTION".split())
_ROW_LABEL = re.compile(r"(c_[lue]|r_[lu])_.*_$")


class RecordingLabeler:
    """Pyomo's symbolic labeler (``symbolic_solver_labels=True`` uses the same one, so a file written with it
    is byte-identical) that remembers every component of the model it labels: ``labels`` maps ``id`` to
    (component, label). Pyomo's LP writer labels what it writes (and its own ``ONE_VAR_CONSTANT``, not
    recorded), its MPS writer also the unused variables. Raises InputError naming both components when two get
    the same label (the labels replace characters other than letters, digits, ``_``, ``(``, ``)`` by ``_``,
    so ``x['a b']`` and ``x['a_b']`` are both ``x(a_b)``); Pyomo failed on them with a RuntimeError, whose
    MPS message named neither. ``rows_apart``: constraint labels clash only with each other (Pyomo's LP
    writer; its MPS writer keeps all labels in one map)."""

    def __init__(self, rows_apart: bool):
        self._labeler = LPFileLabeler()
        self._rows_apart = rows_apart
        self.labels: dict[int, tuple] = {}
        self._owners: dict[tuple, object] = {}

    def __call__(self, component):
        label = self._labeler(component)
        ours = component.parent_block() is not None  # Pyomo's ONE_VAR_CONSTANT belongs to no model
        if ours:
            self.labels[id(component)] = (component, label)
        owner = self._owners.setdefault((self._rows_apart and component.ctype is pyo.Constraint, label), component)
        if owner is not component:
            if not ours or owner.parent_block() is None:
                user = component if ours else owner
                raise InputError(f"{user.name!r} is written as {label!r}, the name Pyomo gives the objective's "
                                 "constant term: rename it")
            raise InputError(f"{owner.name!r} and {component.name!r} are both written as {label!r} (the names "
                             "keep letters, digits, _ and parentheses, other characters become _): rename one")
        return label


def _lp_problem(kind, label: str) -> str | None:
    if not label.isascii():  # (letters beyond ASCII are kept by the labeler: x['\u03a3'] is written x(\u03a3))
        return "has characters beyond ASCII (CBC's LP reader refuses them; the .mps file keeps them)"
    if kind is pyo.Constraint:
        return None
    if label[0].isdigit():
        return "starts with a digit (CPLEX reads '+7 1x' as 71 x; HiGHS refuses it)"
    if kind is pyo.Var and _EXPONENT.match(label):
        return "reads as an exponent (CPLEX reads '+7 e1x' as 70 x, or refuses the file)"
    if _NUMBER_WORD.match(label):
        return "starts like inf or nan, which HiGHS reads as a number (it refuses the file)"
    if label.lower() in _LP_KEYWORDS:
        return "is an LP section keyword (HiGHS and CBC refuse it)"
    if kind is pyo.Var and label == _CONSTANT:
        return "is Pyomo's name for the objective's constant term"
    return None


def _mps_problem(kind, label: str) -> str | None:
    if kind is pyo.Var and label.upper() in _MPS_SECTIONS:
        return "is a section header to HiGHS, which drops the column's entries or refuses the file"
    if kind is pyo.Var and label == "BOUND":
        return "is the name of the bound set: HiGHS misreads the bounds"
    if kind is pyo.Objective and label == "RHS":
        return "is the name of the right-hand-side set: HiGHS misreads the right-hand sides"
    if kind is pyo.Var and label == _CONSTANT:
        return "is Pyomo's name for the objective's constant term: the column is written twice (CPLEX misreads)"
    return None


def name_problems(labels: dict, suffix: str) -> list[tuple[str, str, str]]:
    """``(component name, label, reason)`` for every label of :class:`RecordingLabeler` that a reader of
    ``suffix`` (``.lp`` or ``.mps``) refuses or misreads (module docstring), in labeling order. Raises nothing.
    A utility (no equation of the papers)."""
    rule = _lp_problem if suffix == ".lp" else _mps_problem
    problems = []
    for component, label in labels.values():
        kind = component.ctype
        written = len(label) + (_ROW_AFFIX if kind is pyo.Constraint else 0)
        reason = (f"has {written} characters written, over {MAX_LENGTH} (CBC drops or misreads such names, CPLEX "
                  "cuts them at 255)") if written > MAX_LENGTH else rule(kind, label)
        if reason is not None:
            problems.append((component.name, label, reason))
    return problems


def row_like(labels: dict) -> list[str]:
    """Names of the variables and objective whose label has the form of a row label (``c_u_NAME_``): Pyomo's
    LP writer stops on such a variable when that row exists. Raises nothing. A utility."""
    return [component.name for component, label in labels.values()
            if component.ctype is not pyo.Constraint and _ROW_LABEL.match(label)]
