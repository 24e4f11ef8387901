"""One helper shared by the small ``highspy`` LP/QP solves (hinge LPs, the non-negative Lasso QP)."""
from __future__ import annotations

import highspy

from .errors import SolverError


def run_to_optimality(h: highspy.Highs, model, what: str) -> None:
    """Pass ``model`` (a ``HighsLp`` or ``HighsModel``) to ``h``, run it, and raise SolverError naming
    ``what`` when HiGHS rejects the model or does not report it optimal (infeasible, unbounded, ...)."""
    if h.passModel(model) == highspy.HighsStatus.kError:
        raise SolverError(f"{what}: HiGHS could not load the model")
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"{what} failed: HiGHS reports {h.modelStatusToString(status)}")
