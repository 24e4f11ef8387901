"""Runners that hand the exported tuning MILPs of ``models/`` to other solvers and compare the answers.

``solvers.highs`` (highspy), ``solvers.scip`` (PySCIPOpt), ``solvers.cbc`` (the CBC binary that PuLP
bundles), ``solvers.cplex`` (IBM's ``cplex`` package), ``solvers.gurobi`` (``gurobipy``) and ``solvers.xpress``
(FICO's ``xpress`` package) each read one ``.mps`` / ``.lp`` file and return a :class:`solvers.common.RunResult`;
``python -m solvers.compare`` solves the instances of a manifest and prints a table;
``python -m solvers.check_solution`` re-verifies a foreign solution (read by :mod:`solvers.solution_files`)
with the package's inner-LP checks.
"""
from .common import RUNNERS, RunResult, get_runner

__all__ = ["RUNNERS", "RunResult", "get_runner"]
