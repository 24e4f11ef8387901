"""Export a model as ``.lp`` or ``.mps`` for other solvers."""
from __future__ import annotations

from pathlib import Path

import pyomo.environ as pyo

from .errors import InputError

_FORMATS = (".lp", ".mps")


def write_model(model: pyo.ConcreteModel, path) -> Path:
    """Write ``model`` to ``path`` as CPLEX LP (``.lp``) or free MPS (``.mps``), chosen by suffix, with
    readable names (Pyomo's symbolic labels, e.g. ``w_bar(3)``, ``cs_beta_p(7)``). Parent folders are
    created. Returns the path. Raises InputError for another suffix."""
    path = Path(path)
    if path.suffix.lower() not in _FORMATS:
        raise InputError(f"cannot tell the format of {str(path)!r}: use a .lp or .mps suffix")
    path.parent.mkdir(parents=True, exist_ok=True)
    model.write(str(path), io_options={"symbolic_solver_labels": True})  # format from the suffix
    return path
