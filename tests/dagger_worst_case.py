"""Exact worst-case FDR of DAGGER under arbitrary dependence, by linear programming.

An oracle for the "by" reshaping's claim (valid under arbitrary dependence), sharing no code with the
package beyond calling :func:`bilevel.certify.dagger` on fixed p-value vectors.

Why a finite LP is exact. DAGGER looks at a p-value ``p_i`` only through comparisons ``p_i <= c`` with
the levels ``c`` node ``i`` can be given (Eq. (15) of the RG-PT paper, over every trial count ``r`` and
every number of earlier rejections). Between two consecutive levels its decisions do not change. Moving
every p-value up to the top of its interval therefore keeps every decision, and a super-uniform p-value
(``P(p <= t) <= t`` for all ``t``) stays super-uniform when it is made larger. So the supremum of the FDR
over all joint laws -- null p-values super-uniform, non-null ones arbitrary, any dependence -- is attained
by a law on the grid of interval tops, and it is the optimum of the LP

    max  sum_cells x_cell * FDP(cell)
    s.t. sum_cells x_cell = 1,  x >= 0,
         for every null i and every grid value t < 1 of node i:  sum_{cells with p_i <= t} x_cell <= t,

whose cells are all combinations of one grid value per node (Guo & Rao 2008 use the same reduction for
step-up procedures without a graph).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

from bilevel.certify import dagger

#: The grid value of a level ``c`` sits at ``c * (1 + GRID_SLACK)``: above ``c`` (so the worst case is not
#: under-estimated) and below DAGGER's own cut ``c * (1 + 1e-12)`` (so the decision is that of ``p = c``).
GRID_SLACK = 0.5e-12


def depths_leaves_nodes(parents):
    """Depth, effective leaves ``v`` and effective nodes ``m`` of a DAG whose parents have lower indices
    (Eqs. (16)-(17) of the RG-PT paper), written out again for the oracle."""
    n = len(parents)
    depth = [1] * n
    for i in range(n):
        if parents[i]:
            depth[i] = 1 + max(depth[j] for j in parents[i])
    children = [[c for c in range(n) if i in parents[c]] for i in range(n)]
    v, m = [0.0] * n, [1.0] * n
    for i in reversed(range(n)):
        if not children[i]:
            v[i] = 1.0
        for c in children[i]:
            v[i] += v[c] / len(parents[c])
            m[i] += m[c] / len(parents[c])
    return depth, v, m


def levels(parents, delta, reshaping):
    """Every level node ``i`` can be compared with, per node: ``delta v_i beta_i(x) / (V m_i)`` over all
    ``x = m_i + r + R_{1:d-1} - 1`` (``r`` from 1 to the number of nodes at depth ``d``, ``R_{1:d-1}`` from
    0 to the number of shallower nodes)."""
    n = len(parents)
    depth, v, m = depths_leaves_nodes(parents)
    n_leaves = sum(1 for i in range(n) if not any(i in parents[c] for c in range(n)))
    out = []
    for i in range(n):
        d = depth[i]
        at_d = sum(1 for k in range(n) if depth[k] == d)
        above = sum(1 for k in range(n) if depth[k] < d)
        vals = set()
        for r in range(1, at_d + 1):
            for prev in range(0, above + 1):
                if reshaping == "identity":
                    beta = m[i] + r + prev - 1
                else:  # Blanchard-Roquain reshaping for the 1/k prior on m_i + d - 1 .. m_i + |H_{1:d}| - 1
                    ks = [m[i] + d - 1 + s for s in range(above + at_d - d + 1)]
                    beta = (r + prev - d + 1) / math.fsum(1.0 / k for k in ks)
                if beta > 0:
                    vals.add(delta * v[i] * beta / (n_leaves * m[i]))
        out.append(vals)
    return out


def grid(parents, delta, reshaping):
    """Per node, the sorted grid values in (0, 1]: the interval tops, 1 included."""
    return [sorted({min(1.0, c * (1.0 + GRID_SLACK)) for c in vals} | {1.0}) for vals in levels(parents, delta, reshaping)]


def decisions(parents, delta, reshaping):
    """``(cells, rejected)``: ``cells`` an int array (n_cells, N) of grid indices, ``rejected`` a bool array
    (n_cells, N) of DAGGER's decisions at those p-values."""
    g = grid(parents, delta, reshaping)
    cells = np.array(list(itertools.product(*[range(len(gi)) for gi in g])), dtype=np.int64)
    rejected = np.array(
        [dagger([g[i][k] for i, k in enumerate(cell)], parents, delta, reshaping) for cell in cells], dtype=bool
    )
    return g, cells, rejected


def worst_case_fdr(parents, nulls, delta, reshaping, table=None):
    """Supremum of the FDR of DAGGER over all joint laws of the p-values, the nulls' super-uniform.

    ``parents``: parent lists with parents of lower index than the child. ``nulls``: indices of the true
    nulls. ``table``: a precomputed :func:`decisions` result for the same graph, level and reshaping.
    Returns ``(sup_fdr, law)`` with ``law`` the LP's optimal probabilities, one per cell."""
    g, cells, rejected = table if table is not None else decisions(parents, delta, reshaping)
    nulls = sorted(nulls)
    n_rej = rejected.sum(axis=1)
    fdp = rejected[:, nulls].sum(axis=1) / np.maximum(n_rej, 1)
    a_ub, b_ub = [], []
    for i in nulls:
        for k, t in enumerate(g[i][:-1]):
            a_ub.append((cells[:, i] <= k).astype(float))
            b_ub.append(t)
    res = linprog(
        -fdp,
        A_ub=np.array(a_ub) if a_ub else None,
        b_ub=np.array(b_ub) if b_ub else None,
        A_eq=np.ones((1, len(cells))),
        b_eq=[1.0],
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0, res.message
    return -res.fun, res.x


def dags(n):
    """Every DAG on nodes 0..n-1 whose edges go from lower to higher index, as parent lists (2^(n(n-1)/2))."""
    pairs = [(j, i) for i in range(n) for j in range(i)]
    for mask in range(1 << len(pairs)):
        parents = [[] for _ in range(n)]
        for bit, (j, i) in enumerate(pairs):
            if mask >> bit & 1:
                parents[i].append(j)
        yield parents
