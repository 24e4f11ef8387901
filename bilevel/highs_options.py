"""The HiGHS options that :func:`bilevel.solve.solve_model` refuses (and why), those its arguments set, and the
largest concurrency it accepts: constants only, kept apart from :mod:`bilevel.solve` so that the command line's
parsers can name them (``bilevel tune --help``) without loading Pyomo and HiGHS. :mod:`bilevel.solve` re-exports
them (``bilevel.solve.UNSAFE_OPTIONS``) and is where they are applied."""
import numpy as np

MAX_CONCURRENCY = 256
"""Largest ``threads`` and ``race`` accepted: more runs than cores only share them, and HiGHS's scheduler
raises ``std::bad_alloc`` (or aborts the process under a memory limit) at 10**5 threads."""

#: The arguments of :func:`solve_model` that set a HiGHS option, by that option's name: giving both is refused.
ARGUMENT_OPTIONS = {"time_limit": "time_limit", "mip_gap": "mip_rel_gap", "threads": "threads"}

#: HiGHS options refused by :func:`solve_model`, with the only value allowed (HiGHS's default) and why.
UNSAFE_OPTIONS = {
    "mip_lifting_for_probing": (-1, "HiGHS 1.15.1 declares feasible tuning MILPs infeasible with it (35 of the "
                                    "35 small ones of experiments/option_safety.py) and, given a MIP start, stops "
                                    "at non-optimal points that it reports optimal (HiGHS issue #3307; "
                                    "experiments/PERFORMANCE.md, A refused option)"),
    "objective_bound": (np.inf, "HiGHS prunes every solution above it and, given a MIP start above it (as tune "
                                "hands it), reports that start optimal with its own value as the best bound (diabetes "
                                "10/10 split 2: 'optimal' 0.806 at objective_bound=0.1, true optimum 0.386), or "
                                "without a start calls the feasible MILP infeasible"),
    "small_matrix_value": (1e-9, "HiGHS drops the matrix entries below it, which changes the MILP: the answer it "
                                 "proves optimal is another model's (diabetes 10/10 split 5 at 1e-4: 'optimal' "
                                 "0.284194, verified, true optimum 0.274229)"),
    "user_objective_scale": (0, "HiGHS 1.15.1 reports the MILP's dual bound in the scaled objective's units, not "
                                "the model's: at 5 (a factor 2**5) tune gave diabetes 6/6 split 0 (optimistic) "
                                "best bound 2.70784 above its proven optimum 0.0846201, as 'gap_limit'; at -5 the "
                                "bound is 2**5 too small"),
    "user_bound_scale": (0, "HiGHS 1.15.1 reports the MILP's dual bound in the scaled bounds' units, not the "
                            "model's: at 5 (a factor 2**5) solve_model gave diabetes 6/6 split 0 (optimistic) best "
                            "bound 2.70784 above its optimum 0.0846201, as 'gap_limit'"),
    "solve_relaxation": (False, "HiGHS then solves the LP relaxation, ignoring integrality, and reports that "
                                "'optimal': solve_model called diabetes 6/6 split 0 (optimistic) optimal at 0.0 "
                                "with best bound 0.0, true optimum 0.0846201 (tune's verification flags the point)"),
    "mip_feasibility_tolerance": (1e-6, "HiGHS accepts binaries that far from 0 or 1, and the big-M rows turn that "
                                        "into another model: at 1e-3 solve_model called diabetes 6/6 split 2 "
                                        "(pessimistic, epsilon = 0) optimal at 0.0, true optimum 0.116296, and "
                                        "the tiny tests/oracles.py instance 6 optimal at 0.207959 against 0.298788 "
                                        "(tune's verification flags the points); a tighter one is no safer: on "
                                        "1,200 mixed-scale fuzz instances (presolve off) 1e-7 proved 0.82789 "
                                        "optimal, verified, against a bilevel optimum of 0.69952, and 1e-8 called "
                                        "two feasible MILPs infeasible"),
}
