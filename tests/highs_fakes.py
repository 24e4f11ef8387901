"""A HiGHS run with some of its methods replaced, for the tests that fake what HiGHS reports
(tests/test_highs_faults.py, tests/test_mutation_study20.py)."""


class Faked:
    """A ``highspy.Highs`` run (or its ``getInfo()``) whose attributes named in ``methods`` are replaced
    (``getRunTime=lambda: 31.0``, ``getModelStatus=lambda: ...``, ``mip_dual_bound=100.0``); every other attribute
    is the wrapped ``h``'s, and the wrapped object stays reachable as ``.h``."""

    def __init__(self, h, **methods):
        self.h, self._methods = h, methods

    def __getattr__(self, name):
        return self._methods[name] if name in self._methods else getattr(self.h, name)
