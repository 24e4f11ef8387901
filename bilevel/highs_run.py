"""Helpers shared by the ``highspy`` solves: a silent ``Highs`` object, and loading and running the small
LP/QP solves (hinge LPs, the non-negative Lasso QP)."""
from __future__ import annotations

import ctypes
import os
import sys
import threading

import highspy

from .errors import SolverError

_first_lock = threading.Lock()
_first_done = False


def run_interruptibly(h: highspy.Highs) -> None:
    """``h.run()`` that a Ctrl-C ends within a node or so. ``Highs.run`` releases the GIL and returns to Python only
    at its end, so a Ctrl-C waited for the whole solve: up to the time limit, 60 s per instance in ``bilevel
    export-library`` and ``solvers.compare``, unbounded without one. A MIP interrupt callback (called at least once
    per branch-and-bound node) runs Python, where the pending ``KeyboardInterrupt`` is raised and unwinds through
    HiGHS; it is re-raised here if HiGHS only stopped. The callback changes nothing else in HiGHS's run."""
    caught: list = []

    def check(event) -> None:
        try:
            if caught:
                event.interrupt()
        except BaseException as exc:  # noqa: BLE001 - a Ctrl-C landing here: stop HiGHS, re-raise after run()
            caught.append(exc)
            event.interrupt()

    h.cbMipInterrupt += check
    try:
        h.run()
    finally:
        h.cbMipInterrupt -= check
    if caught:
        raise caught[0]


def _flush_c_stdio() -> None:
    """Flush the C library's stdio buffers (HiGHS prints through them), where ctypes can reach libc."""
    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no libc symbols (e.g. Windows): nothing buffered to flush
        pass


def _first_highs() -> highspy.Highs:
    """``highspy.Highs()`` with file descriptor 1 pointed at the null device while it is constructed:
    HiGHS 1.16 prints its banner on the first ``Highs()`` of a process, before any option can be set. Output
    another thread writes to file descriptor 1 during that construction (a few ms) is lost too."""
    if sys.stdout is not None:  # what Python buffered goes out before fd 1 is redirected
        sys.stdout.flush()
    _flush_c_stdio()
    try:
        saved = os.dup(1)
    except OSError:  # no standard output to protect
        return highspy.Highs()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            h = highspy.Highs()
            _flush_c_stdio()  # the banner goes to the null device now, not after the restore
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    return h


def silent_highs() -> highspy.Highs:
    """A new ``highspy.Highs`` with its log off (``output_flag`` false), for every solve the package runs.
    The first one of the process is constructed with standard output muted (HiGHS 1.16's banner, see
    :func:`_first_highs`), so the package prints nothing of HiGHS's. Raises nothing."""
    global _first_done
    h = None
    if not _first_done:
        with _first_lock:
            if not _first_done:
                h = _first_highs()
                _first_done = True
    if h is None:
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


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
