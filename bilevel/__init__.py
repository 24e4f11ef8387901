"""bilevel: tune the box bounds of a linear SVM by solving optimistic and pessimistic bilevel MILPs."""
from .datasets import Dataset, Split, load_dataset, split_dataset
from .errors import InputError, SolverError
from .export import write_model
from .inner import hinge, hinge_lp
from .optimistic import build_optimistic_model
from .pessimistic import build_pessimistic_model, flipped_set
from .solve import InfeasibleModelError, NoSolutionError, SolveInfo, solve_model
from .ties import TieRange, optimistic_tie_range
from .tune import HIGHS_OPTIONS, TuneResult, tune
from .verify import Verification, verify_model
from .warmstart import kkt_start

__version__ = "0.1.0"
