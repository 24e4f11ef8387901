"""The fixed choices of the instance library (sizes, data sets, modes, split seed and the manifest solves' HiGHS
time limit and gap): constants only, kept apart from :mod:`bilevel.library` so that ``bilevel export-library
--help`` can name them without loading Pyomo and HiGHS. :mod:`bilevel.library` re-exports them
(``bilevel.library.SIZES``) and is where they are used."""
from __future__ import annotations

#: |T| = |V| of the library, tiny to hard.
SIZES = (5, 10, 20, 50, 100, 200)
#: Instances with |T| = |V| up to this size are committed (HiGHS solves them in seconds); larger ones are
#: regenerated into the ``large/`` subfolder, which is not committed.
SMALL_MAX = 10
#: The (mode, epsilon) combinations of the library.
MODES = (("optimistic", 0.0), ("pessimistic", 0.0), ("pessimistic", 0.2))
DATASETS = ("cancer", "diabetes")
SEED = 0
#: Default HiGHS time limit (seconds) per instance when the manifest is measured.
TIME_LIMIT = 60.0
#: Relative MIP gap of the manifest solves (tighter than HiGHS's default 1e-4 so that the manifest
#: objective is the optimum to about 6 digits).
MIP_GAP = 1e-6
