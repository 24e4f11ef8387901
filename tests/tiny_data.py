"""A tiny two-feature data set shared by the input-check tests (6 training, 4 validation points, both classes),
and its solved optimistic model."""
import numpy as np

import bilevel

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0], [0.5, -1.0], [-0.5, 0.5]])
Y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
XV, YV = X[:4] + 0.1, Y[:4]


def solved_optimistic_model():
    """The optimistic model (Eq. (21)) of ``X, Y, XV, YV``, solved."""
    m = bilevel.build_optimistic_model(X, Y, XV, YV)
    bilevel.solve_model(m)
    return m
