"""Export a model as ``.lp`` or ``.mps`` for other solvers."""
from __future__ import annotations

from pathlib import Path

import pyomo.environ as pyo
from pyomo.opt import guess_format

from .errors import InputError
from .pause_gc import gc_paused

_FORMATS = (".lp", ".mps")


@gc_paused
def write_model(model: pyo.ConcreteModel, path) -> Path:
    """Write ``model`` to ``path`` as CPLEX LP (``.lp``) or free MPS (``.mps``), chosen by suffix, with
    readable names (Pyomo's symbolic labels, e.g. ``w_bar(3)``, ``cs_beta_p(7)``). Parent folders are
    created. Returns the path. Raises InputError for another suffix (the suffix's case does not matter), a
    directory, a parent folder that cannot be created, or a file that cannot be written (no permission, a
    full disk)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _FORMATS:
        raise InputError(f"cannot tell the format of {str(path)!r}: use a .lp or .mps suffix")
    if path.is_dir():
        raise InputError(f"{str(path)!r} is a directory, not a file to write the model to")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder of {str(path)!r}: {exc}") from None
    fmt = guess_format(f"model{suffix}")  # what Pyomo infers from a lower-case suffix: cpxlp or mps
    try:
        model.write(str(path), format=fmt, io_options={"symbolic_solver_labels": True})
    except OSError as exc:  # a folder that cannot be written to, a full disk, ...
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    return path
