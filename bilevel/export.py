"""Export a model as ``.lp`` or ``.mps`` for other solvers, and the pieces every written output shares: files
replaced atomically, Markdown table cells."""
from __future__ import annotations

import codecs
import itertools
import locale
import os
import shutil
import threading
from pathlib import Path
from typing import Callable

import pyomo.environ as pyo
from pyomo.opt import WriterFactory, guess_format

from .errors import InputError
from .export_names import RecordingLabeler, name_problems, row_like
from .pause_gc import gc_paused
from .validation import as_path, value_text

_FORMATS = (".lp", ".mps")
_TEMP_NUMBERS = itertools.count()


@gc_paused
def write_model(model: pyo.ConcreteModel, path) -> Path:
    """Write ``model`` to ``path`` as CPLEX LP (``.lp``) or free MPS (``.mps``), chosen by suffix, with
    readable names (Pyomo's symbolic labels, e.g. ``w_bar(3)``, ``cs_beta_p(7)``). Parent folders are
    created. The file is written under a temporary name in the same folder and renamed to ``path`` only
    when complete, so a failed write leaves no half-written file and an existing ``path`` unchanged.
    Returns the path. Raises InputError for another suffix (the suffix's case does not matter), a
    directory, a parent folder that cannot be created, a file that cannot be written (no permission, a
    full disk), a model without exactly one active objective, or names that CPLEX, HiGHS or CBC refuse or
    read as another model (:mod:`bilevel.export_names`), naming the components: in ``.lp`` a variable
    ``e``, ``e2``, ``e1x`` (``+7 e1x`` is read as ``70 x``), a variable or objective that starts with a
    digit, ``inf`` or ``nan`` or is a section keyword (``free``, ``end``, ...); in ``.mps`` a variable
    ``NAME``, ``OBJSENSE``, ``BOUND``, an objective ``RHS``; in both, a written name over 100 characters
    and a variable ``ONE_VAR_CONSTANT``. The message says when the other format takes the names. Also
    for two components written under one name (``x['a b']`` and ``x['a_b']`` are both ``x(a_b)``), and
    for a variable whose bounds cross (``5 <= z <= 4``), that is fixed outside its bounds or, integer, fixed at a
    fraction (:func:`bound_conflicts`): Pyomo's writers
    drop such a variable when no row holds it, or write a fixed one as a constant, so an infeasible model
    would be written as a feasible one; for names beyond ASCII (``.mps``) when the locale's encoding, in which
    Pyomo writes, is not UTF-8 (an ASCII locale stopped Pyomo with a UnicodeEncodeError); and for a ``model`` that
    is not a Pyomo model or a ``path`` that is not a str or Path, is empty or holds a NUL; and for a model with
    terms beyond quadratic (``sin(x)``, ``exp(x)``), which neither format holds (Pyomo's own error before). A
    utility (no equation of the papers)."""
    if not isinstance(model, pyo.Block):  # e.g. None: an AttributeError from inside the objective count
        raise InputError(f"model must be a Pyomo model; got {type(model).__name__}")
    if not isinstance(path, (str, os.PathLike)):  # e.g. None: pathlib's TypeError
        raise InputError(f"path must be a str or Path ending in .lp or .mps; got {value_text(path, limit=80)}")
    path = as_path(path, "path")  # "" was "cannot tell the format of '.'"
    suffix = path.suffix.lower()
    if suffix not in _FORMATS:
        raise InputError(f"cannot tell the format of {str(path)!r}: use a .lp or .mps suffix")
    if path.is_dir():
        raise InputError(f"{str(path)!r} is a directory, not a file to write the model to")
    n_objectives = sum(1 for _ in model.component_data_objects(pyo.Objective, active=True))
    if n_objectives != 1:  # Pyomo's LP writer failed with an IndexError, its MPS writer with a ValueError
        raise InputError(f"the model has {n_objectives} active objectives; exactly one can be written to "
                         f"{str(path)!r}")
    _check_bounds(model, path)
    fmt = guess_format(f"model{suffix}")  # what Pyomo infers from a lower-case suffix: cpxlp or mps

    def write(temp: Path) -> None:
        # the labels Pyomo's symbolic_solver_labels would give (same bytes), checked once the writer has named
        # everything it writes; raising here leaves no file (replace_atomically)
        labeler = RecordingLabeler(rows_apart=suffix == ".lp")
        unencodable = False
        try:
            # Pyomo's writer itself, as Block.write calls it, without Block.write's keeping of the file's symbol
            # map (every written name and its component) in model.solutions: each export grew the caller's model
            # (0.47 MB per write of an optimistic 100/100 model) and gave a plain Block a `solutions` attribute
            WriterFactory(fmt)(model, str(temp), lambda _: True, {"labeler": labeler})
        except UnicodeEncodeError:  # Pyomo opens the file in the locale's encoding, which cannot hold a name
            unencodable = True
        except InputError as exc:  # two components with one label
            raise InputError(f"cannot write {str(path)!r}: {exc}") from None
        except (ValueError, RuntimeError) as exc:
            if "nonlinear terms" in str(exc):  # sin(x), exp(x): Pyomo's InvalidExpressionError (.lp) or RuntimeError
                raise InputError(f"cannot write {str(path)!r}: the model is not linear (or quadratic): {exc}") from None
            if not isinstance(exc, RuntimeError) or "duplicate symbol" not in str(exc).lower():
                raise
            # a clash the labeler does not see: a column named like a row of the file
            names = ", ".join(map(repr, row_like(labeler.labels))) or "the component"
            raise InputError(f"cannot write {str(path)!r}: two components are written under one name, a "
                             "variable named like Pyomo's rows (c_u_NAME_, c_l_, c_e_, r_l_, r_u_): "
                             f"rename {names}") from None
        _check_names(labeler.labels, suffix, path)  # (.lp: names beyond ASCII are refused in any locale)
        _check_encoding(labeler.labels, path, unencodable)

    replace_atomically(path, write)
    return path


def bound_conflicts(model: pyo.Block) -> list[str]:
    """One description per active variable of ``model`` (a Pyomo model) that its bounds alone make infeasible: bounds
    that cross (``5 <= z <= 4``), a fixed value outside them or, for an integer variable, a fixed value that is not
    an integer (each by more than 1e-9 relative). Pyomo's writers and its compiler see none of them: a fixed variable
    becomes a constant, and one in no row is left out with its bounds, so a file or a solve would be feasible where
    the model is not. A utility (no equation); raises nothing."""
    bad = []
    for var in model.component_data_objects(pyo.Var, active=True, descend_into=True):
        lb, ub = var.lb, var.ub
        if lb is not None and ub is not None and lb > ub + 1e-9 * (1 + abs(ub)):  # (round-off of a tightened bound)
            bad.append(f"{var.name!r} has bounds {lb:g} > {ub:g}")
        elif var.fixed and var.value is not None:
            value = float(var.value)
            if (lb is not None and value < lb - 1e-9 * (1 + abs(lb))) or (
                    ub is not None and value > ub + 1e-9 * (1 + abs(ub))):
                bad.append(f"{var.name!r} is fixed at {value:g}, outside its bounds [{lb}, {ub}]")
            elif var.is_integer() and abs(value - round(value)) > 1e-9 * (1 + abs(value)):
                bad.append(f"{var.name!r} is integer and fixed at {value:g}")
    return bad


def _check_bounds(model: pyo.ConcreteModel, path: Path) -> None:
    """InputError naming the variables of ``model`` that its bounds make infeasible (:func:`bound_conflicts`):
    Pyomo writes none of them into the file, so the file would be feasible where the model is not."""
    bad = bound_conflicts(model)
    if bad:
        raise InputError(f"cannot write {str(path)!r}: the model is infeasible by its variable bounds alone, and "
                         f"the file would not be ({first_five(bad)})")


def _check_names(labels: dict, suffix: str, path: Path) -> None:
    """InputError naming the components whose written names a reader of ``suffix`` refuses or misreads."""
    problems = name_problems(labels, suffix)
    if not problems:
        return
    shown = first_five([_describe(*problem) for problem in problems])
    other = ".mps" if suffix == ".lp" else ".lp"
    switch = f" or write {other}, where these names are read right" if not name_problems(labels, other) else ""
    raise InputError(f"cannot write {str(path)!r}: {len(problems)} name(s) that {suffix} readers refuse or "
                     f"misread: {shown}. Rename these components{switch}")


def _check_encoding(labels: dict, path: Path, unencodable: bool = False) -> None:
    """InputError naming the components whose written names have characters beyond ASCII when the locale's
    encoding, in which Pyomo's writers open the file, is not UTF-8 (also when ``unencodable``: the write failed
    on it): an ASCII locale stopped the write with Pyomo's UnicodeEncodeError, and a cp1252 one wrote bytes that
    readers (HiGHS) and the UTF-8 name map ``<id>.names.csv`` take for other names. Solvers read the names of a
    UTF-8 ``.mps`` file right."""
    encoding = locale.getpreferredencoding(False)
    if codecs.lookup(encoding).name == "utf-8" and not unencodable:
        return
    wide = [f"{_short(component.name)}" + ("" if label == component.name else f" (written {_short(label)})")
            for component, label in labels.values() if not label.isascii()]
    if wide or unencodable:
        names = f"the name(s) {first_five(wide)} have characters beyond ASCII" if wide else "the model's names"
        raise InputError(f"cannot write {str(path)!r}: {names} and the locale's encoding is {encoding}, not UTF-8 "
                         "(Pyomo writes in it; solvers and the name map read UTF-8): run Python in UTF-8 mode "
                         "(PYTHONUTF8=1, or a UTF-8 locale such as LC_ALL=C.UTF-8) or rename these components")


def first_five(items: list[str]) -> str:
    """The first five of ``items`` joined by "; ", with "; and N more" when there are more. A utility (no equation);
    raises nothing."""
    return "; ".join(items[:5]) + (f"; and {len(items) - 5} more" if len(items) > 5 else "")


def _describe(name: str, label: str, reason: str) -> str:
    written = "" if label == name else f" (written {_short(label)})"
    return f"{_short(name)}{written} {reason}"


def _short(name: str) -> str:
    return repr(name if len(name) <= 60 else f"{name[:40]}...({len(name)} characters)")


def replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Write the file ``path`` by ``write(temp)`` into a temporary file of its folder (created if needed), then
    rename that file to ``path``: a write that fails or is interrupted leaves no half-written file and an existing
    ``path`` unchanged. A symbolic link is written through (the link stays); an existing file keeps its
    permissions. Raises InputError naming ``path`` when it exists read-only (the rename would replace it, where
    writing into it is refused), its folder cannot be created or an OSError stops the write (no permission, a
    full disk), or that is not a str or Path (an AttributeError before); other errors of ``write`` propagate, the
    temporary file removed. A ``path`` that exists and is not a regular file (a device such as ``/dev/stdout`` or
    ``/dev/full``, a named pipe) is written directly: renamed over, the device node itself was replaced by a file
    (``bilevel tune --json /dev/full``, run as root, left a regular file ``/dev/full``)."""
    path = as_path(path, "path")
    if path.exists() and not path.is_file() and not path.is_dir():
        try:
            write(path)
        except OSError as exc:
            raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder of {str(path)!r}: {exc}") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError(f"cannot write {str(path)!r}: permission denied")
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    # the name's first 100 bytes: the whole name made the temporary one longer than the file system takes (255
    # bytes), so a file of a name from 220 bytes on could not be written (tune --json: after every solve had run)
    stem = os.fsencode(target.name)[:100].decode(errors="ignore")
    temp = target.with_name(f".{stem}.{os.getpid()}-{threading.get_ident()}-{next(_TEMP_NUMBERS)}.tmp")
    try:
        write(temp)
        if target.exists():
            shutil.copymode(target, temp)  # the old file's permissions, not the umask's
        os.replace(temp, target)
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        temp.unlink(missing_ok=True)


def markdown_cell(value) -> str:
    """``value`` as the text of one Markdown table cell: ``str(value)`` with ``|`` escaped and line breaks as
    spaces. A ``|`` in a cell (a CSV data set's path such as ``--data 'a|b.csv'``, a solver's message) split it in
    two: the row had one cell more than the header, and every later column stood under the wrong heading. Used
    by the tables whose cells can hold such text: the study summaries, ``bench.md`` and ``solvers.compare``'s
    table. Raises nothing."""
    return " ".join(str(value).replace("|", "\\|").splitlines())
