"""Helpers shared by the ``highspy`` solves: a silent ``Highs`` object, and loading and running the small
LP/QP solves (hinge LPs, the non-negative Lasso QP)."""
from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import sys
import threading

import highspy

from .errors import SolverError

_first_lock = threading.Lock()
_first_done = False


_CTRL_C = threading.Event()  # set by a Ctrl-C while sigint_as_flag() holds SIGINT


def ctrl_c_pending() -> bool:
    """Whether a Ctrl-C arrived during the current :func:`sigint_as_flag` block (a HiGHS callback then stops the
    run)."""
    return _CTRL_C.is_set()


@contextlib.contextmanager
def sigint_as_flag():
    """While a HiGHS run is inside this block, a Ctrl-C only sets a flag (:func:`ctrl_c_pending`), which the runs'
    interrupt callbacks answer by stopping HiGHS; ``KeyboardInterrupt`` is raised when the block ends. Python runs
    a signal handler at the next Python code of the main thread, which during ``Highs.run`` is a HiGHS callback:
    with Python's default handler the ``KeyboardInterrupt`` was raised inside highspy's callback wrapper and
    unwound through HiGHS's C++ code (its status then "Not Set"). Only in the main thread and only over Python's
    default handler (a program's own SIGINT handler is left alone; a nested block, e.g. a solve inside a hook,
    uses the outer one's flag)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    _CTRL_C.clear()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: _CTRL_C.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        hit = _CTRL_C.is_set()
        _CTRL_C.clear()
    if hit:
        raise KeyboardInterrupt


def run_interruptibly(h: highspy.Highs) -> None:
    """``h.run()`` that a Ctrl-C ends within a node or so. ``Highs.run`` returns to Python only at its end, so
    without a callback a Ctrl-C waited for the whole solve: up to the time limit, 60 s per instance in ``bilevel
    export-library`` and ``solvers.compare``, unbounded without one. A MIP interrupt callback (called at least once
    per branch-and-bound node) stops HiGHS when a Ctrl-C arrived (:func:`sigint_as_flag`), and ``KeyboardInterrupt``
    is raised after the run. The callback changes nothing else in HiGHS's run."""
    def check(event) -> None:
        if _CTRL_C.is_set():
            event.interrupt()

    h.cbMipInterrupt += check
    try:
        with sigint_as_flag():
            h.run()
    finally:
        h.cbMipInterrupt -= check


def check_infeasible_without_presolve(h: highspy.Highs, time_limit: float | None) -> None:
    """After :func:`run_interruptibly` of ``h`` with ``time_limit`` seconds (``None``: none): when HiGHS says
    "infeasible", run it once more with presolve off in the time left (HiGHS's run time adds up over both runs,
    its time limit does not), so that the second run's status, solution, node count and bound are the ones ``h``
    reports. HiGHS 1.15.1's presolve calls some feasible tuning MILPs infeasible (a pessimistic epsilon = 0.2 model
    on 4 training points with one feature, optimum 0.84; one on features of scale 1e-7). Used by the library's and
    the HiGHS runner's solves of exported files; :func:`bilevel.solve_model` checks the claim its own way. Raises
    nothing itself."""
    left = None if time_limit is None else float(time_limit) - h.getRunTime()
    if h.getModelStatus() != highspy.HighsModelStatus.kInfeasible or (left is not None and left <= 0):
        return
    h.setOptionValue("presolve", "off")
    if left is not None:
        h.setOptionValue("time_limit", left)
    h.clearSolver()
    run_interruptibly(h)

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


#: The words a library manifest's ``highs_status`` cell uses for these HiGHS model statuses; any other status is
#: written as HiGHS's own string (:func:`manifest_status_words`).
MANIFEST_STATUS_WORDS = {
    highspy.HighsModelStatus.kOptimal: "optimal",
    highspy.HighsModelStatus.kTimeLimit: "time_limit",
    highspy.HighsModelStatus.kInfeasible: "infeasible",
    highspy.HighsModelStatus.kUnbounded: "unbounded",
    highspy.HighsModelStatus.kUnboundedOrInfeasible: "unbounded_or_infeasible",
}


@functools.lru_cache(maxsize=1)
def manifest_status_words() -> dict[str, str]:
    """Every HiGHS model status string (``Highs.modelStatusToString`` over ``highspy.HighsModelStatus``, 20 in
    HiGHS 1.15 and 1.16) mapped to the word a library manifest's ``highs_status`` holds for it:
    :data:`MANIFEST_STATUS_WORDS` where it names one ("Optimal" -> ``optimal``), the string itself otherwise
    ("Interrupted by user"). Read from the installed highspy, so a HiGHS release with other strings is followed
    rather than a copied list. Raises nothing."""
    h = silent_highs()
    return {h.modelStatusToString(s): MANIFEST_STATUS_WORDS.get(s, h.modelStatusToString(s))
            for s in highspy.HighsModelStatus.__members__.values()}


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
