"""The figures a plot of experiments/uci_study.py draws, captured through its ``_figure`` (one spy for the tests
of test_study.py and mutation study 26)."""
from __future__ import annotations


def captured_figures(monkeypatch, module) -> list:
    """A list that receives the ``(figure, axes)`` of every later ``module._figure`` call, in order."""
    made, real = [], module._figure

    def spy(*args):
        made.append(real(*args))
        return made[-1]

    monkeypatch.setattr(module, "_figure", spy)
    return made
