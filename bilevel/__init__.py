"""bilevel: tune the box bounds of a linear SVM by solving optimistic and pessimistic bilevel MILPs.

The public names below are imported from their submodules on first use (PEP 562), so that ``import
bilevel.certify`` and ``bilevel --help`` do not load Pyomo (the certification needs no MILP model).
"""
from . import lazy_exports as _lazy_exports

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
    "HIGHS_OPTIONS": "tune", "TuneResult": "tune", "tune": "tune", "tuning_options": "tune",
    "Verification": "verify", "verify_model": "verify", "verify_tightest_box": "verify",
    "kkt_start": "warmstart",
}
__all__ = [*_EXPORTS, "__version__"]

_lazy_exports.make_lazy(__name__)
