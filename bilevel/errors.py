"""Exceptions raised by the package. All are ``ValueError`` or ``RuntimeError`` subclasses so that
callers who do not import them can still catch them."""


class InputError(ValueError):
    """Bad user input: wrong shapes, NaN, one class only, negative epsilon, infeasible bounds, a bad file."""


class SolverError(RuntimeError):
    """The MILP or LP solver failed, or reported the model infeasible or unbounded."""
