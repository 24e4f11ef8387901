"""bilevel: tune the box bounds of a linear SVM by solving optimistic and pessimistic bilevel MILPs.

The public names below are imported from their submodules on first use (PEP 562), so that ``import
bilevel.certify`` and ``bilevel --help`` do not load Pyomo (the certification needs no MILP model).
"""
import importlib
import sys
import types

__version__ = "0.1.0"

#: Each public name with the submodule that defines it.
_EXPORTS = {
    "Dataset": "datasets", "Split": "datasets", "load_dataset": "datasets", "split_dataset": "datasets",
    "InputError": "errors", "SolverError": "errors",
    "write_model": "export",
    "hinge": "inner", "hinge_lp": "inner",
    "build_optimistic_model": "optimistic",
    "build_pessimistic_model": "pessimistic", "flipped_set": "pessimistic",
    "InfeasibleModelError": "solve", "NoSolutionError": "solve", "SolveInfo": "solve", "solve_model": "solve",
    "TieRange": "ties", "optimistic_tie_range": "ties",
    "HIGHS_OPTIONS": "tune", "TuneResult": "tune", "tune": "tune",
    "Verification": "verify", "verify_model": "verify",
    "kkt_start": "warmstart",
}
__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """The package ``bilevel``, whose name ``tune`` is the function :func:`bilevel.tune.tune`: the import system
    binds a submodule as an attribute of its package once it has run (``bilevel.tune``, the module, when it is
    first imported from anywhere), and this keeps the function there instead."""

    def __setattr__(self, name, value):
        if name == "tune" and isinstance(value, types.ModuleType):
            value = value.tune
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
