"""Exact worst-case FWER and FDR of a multiple-testing procedure under arbitrary dependence, by an LP.

An oracle for the procedures' validity claims, sharing no code with the package beyond calling the
procedure under test on fixed p-value vectors.

Why a finite LP is exact. The procedures here look at a p-value ``p_i`` only through comparisons
``p_i <= c`` with the finitely many levels ``c`` that hypothesis ``i`` can be given (for DAGGER, Eq. (15)
of the RG-PT paper over every trial count ``r`` and every number of earlier rejections). So the levels of
``i`` cut ``(0, 1]`` into intervals on which its decisions do not change. Moving every p-value up to the
top of its interval keeps every decision, and a super-uniform p-value (``P(p <= t) <= t`` for all ``t``)
stays super-uniform when it is made larger. The supremum of the FWER or FDR over all joint laws (null
p-values super-uniform, non-null ones arbitrary, any dependence) is therefore the optimum of the LP

    max  sum_cells x_cell * error(cell)
    s.t. sum_cells x_cell = 1,  x >= 0,
         for every null i and every interval of i but the last:  sum_{cells with p_i in it or below} x_cell <= top,

whose cells are all combinations of one interval per hypothesis (Guo & Rao, 2008, reduce step-up procedures
without a graph in the same way). The decisions of a cell are computed at a point just below each interval's
top, where the procedure's floating-point level cannot fall on the wrong side; each top is raised by a
relative ``SLACK`` in the constraints, which can only over-estimate the supremum.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

#: Relative distance of the decision point below an interval's top, and of the constraint above it.
SLACK = 1e-9


def intervals(levels):
    """``(points, tops)`` for one hypothesis: the decision point inside each interval and the interval's
    top, both sorted, the last interval ending at 1 (point 1.0, top 1.0)."""
    cuts = sorted({float(c) for c in levels if 0.0 < c < 1.0})
    points, below = [], 0.0
    for c in cuts:
        points.append(max(c * (1.0 - SLACK), 0.5 * (below + c)))
        below = c
    return points + [1.0], [c * (1.0 + SLACK) for c in cuts] + [1.0]


def decision_table(levels_per_hypothesis, decide):
    """All cells and the procedure's decisions there.

    ``levels_per_hypothesis``: one iterable of levels per hypothesis. ``decide``: p-vector of shape (n,)
    to a bool rejection mask of shape (n,). Returns ``(tops, cells, rejected)``: per hypothesis its interval
    tops; ``cells`` int (n_cells, n), an interval index per hypothesis; ``rejected`` bool (n_cells, n)."""
    grids = [intervals(levels) for levels in levels_per_hypothesis]
    cells = np.array(list(itertools.product(*[range(len(points)) for points, _ in grids])), dtype=np.int64)
    rejected = np.array(
        [decide(np.array([grids[i][0][k] for i, k in enumerate(cell)])) for cell in cells], dtype=bool
    ).reshape(len(cells), len(grids))
    return [tops for _, tops in grids], cells, rejected


def worst_case(table, nulls, error="fdr"):
    """Supremum of the FDR (``error="fdr"``) or FWER (``"fwer"``) over all joint laws of the p-values with
    the ``nulls`` (indices) super-uniform, for a :func:`decision_table`. Returns ``(value, law)``, ``law``
    the LP's optimal probability of each cell."""
    tops, cells, rejected = table
    nulls = sorted(nulls)
    false = rejected[:, nulls]
    if error == "fdr":
        value = false.sum(axis=1) / np.maximum(rejected.sum(axis=1), 1)
    else:
        value = false.any(axis=1).astype(float)
    a_ub, b_ub = [], []
    for i in nulls:
        for k, top in enumerate(tops[i][:-1]):
            a_ub.append((cells[:, i] <= k).astype(float))
            b_ub.append(top)
    res = linprog(
        -value,
        A_ub=np.array(a_ub) if a_ub else None,
        b_ub=np.array(b_ub) if b_ub else None,
        A_eq=np.ones((1, len(cells))),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun, res.x


def sup_over_nulls(table, error="fdr"):
    """``(value, nulls)``: the largest :func:`worst_case` over every non-empty set of true nulls."""
    n = table[1].shape[1]
    best, where = 0.0, None
    for k in range(1, n + 1):
        for nulls in itertools.combinations(range(n), k):
            value, _ = worst_case(table, nulls, error)
            if value > best:
                best, where = value, nulls
    return best, where


def dags(n):
    """Every DAG on nodes 0..n-1 whose edges go from lower to higher index, as parent lists (2^(n(n-1)/2))."""
    pairs = [(j, i) for i in range(n) for j in range(i)]
    for mask in range(1 << len(pairs)):
        parents = [[] for _ in range(n)]
        for bit, (j, i) in enumerate(pairs):
            if mask >> bit & 1:
                parents[i].append(j)
        yield parents


def dagger_levels(parents, delta, reshaping):
    """Every level DAGGER can give each node of a DAG whose parents have lower indices:
    ``delta v_i beta_i(x) / (V m_i)`` over all ``x = m_i + r + R_{1:d-1} - 1`` (``r`` from 1 to the number
    of nodes at depth ``d``, ``R_{1:d-1}`` from 0 to the number of shallower nodes). Depths and the effective
    numbers of leaves ``v`` and nodes ``m`` (Eqs. (16)-(17) of the RG-PT paper) are written out again here."""
    n = len(parents)
    children = [[c for c in range(n) if i in parents[c]] for i in range(n)]
    depth = [1] * n
    for i in range(n):
        if parents[i]:
            depth[i] = 1 + max(depth[j] for j in parents[i])
    v, m = [0.0] * n, [1.0] * n
    for i in reversed(range(n)):
        if not children[i]:
            v[i] = 1.0
        for c in children[i]:
            v[i] += v[c] / len(parents[c])
            m[i] += m[c] / len(parents[c])
    n_leaves = sum(1 for i in range(n) if not children[i])
    out = []
    for i in range(n):
        d = depth[i]
        at_d = sum(1 for k in range(n) if depth[k] == d)
        above = sum(1 for k in range(n) if depth[k] < d)
        harmonic = math.fsum(1.0 / (m[i] + d - 1 + s) for s in range(above + at_d - d + 1))
        levels = set()
        for r in range(1, at_d + 1):
            for prev in range(above + 1):
                if reshaping == "identity":
                    beta = m[i] + r + prev - 1
                else:  # Blanchard-Roquain reshaping for the 1/k prior on m_i + d - 1 .. m_i + |H_{1:d}| - 1
                    beta = (r + prev - d + 1) / harmonic
                levels.add(delta * v[i] * beta / (n_leaves * m[i]))
        out.append(levels)
    return out
