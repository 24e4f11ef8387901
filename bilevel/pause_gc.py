"""Model building with Python's cyclic garbage collector paused.

Building a Pyomo model allocates tens of thousands of small objects, and every allocation burst lets the
cyclic collector run; each of its full passes walks every tracked object of the process, so the cost
grows with whatever else the process holds (earlier models, results). Measured on diabetes, epsilon = 0.2
pessimistic model (experiments/PERFORMANCE.md): 0.058-0.072 s per build at |T| = |V| = 100 with the collector
on, 0.018 s with it paused. Nothing is lost: the collector runs again as soon as the call returns.
"""
from __future__ import annotations

import functools

from pyomo.common.gc_manager import PauseGC


def gc_paused(func):
    """Decorator: run ``func`` inside Pyomo's :class:`~pyomo.common.gc_manager.PauseGC` (the cyclic
    collector is disabled for the call and re-enabled afterwards if it was enabled; nesting is safe).
    Returns ``func``'s value and raises what it raises."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with PauseGC():
            return func(*args, **kwargs)
    return wrapper
