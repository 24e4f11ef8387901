"""Helpers shared by the small ``highspy`` LP/QP solves (hinge LPs, the non-negative Lasso QP)."""
from __future__ import annotations

import highspy

from .errors import SolverError


def load_model(h: highspy.Highs, model, what: str) -> None:
    """Pass ``model`` (a ``HighsLp`` or ``HighsModel``) to ``h``; raise SolverError naming ``what`` when
    HiGHS rejects it."""
    if h.passModel(model) == highspy.HighsStatus.kError:
        raise SolverError(f"{what}: HiGHS could not load the model")


def run_checked(h: highspy.Highs, what: str) -> None:
    """Run the model loaded in ``h``; raise SolverError naming ``what`` when HiGHS does not report it optimal
    (infeasible, unbounded, ...)."""
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"{what} failed: HiGHS reports {h.modelStatusToString(status)}")


def run_to_optimality(h: highspy.Highs, model, what: str) -> None:
    """:func:`load_model` then :func:`run_checked`: pass ``model`` to ``h``, run it, and raise SolverError
    naming ``what`` when HiGHS rejects the model or does not report it optimal."""
    load_model(h, model, what)
    run_checked(h, what)
