"""DAGGER: FDR control for hypotheses arranged in a directed acyclic graph.

Ramdas, Chen, Wainwright & Jordan (2019), "A sequential algorithm for false discovery rate control on
directed acyclic graphs", Biometrika 106(1); summarised in Eqs. (15)-(18), App. B and Alg. 1 of the
RG-PT paper. A node is tested only when all its parents have been rejected, depth by depth, with a
step-up rule inside each depth.

Definitions used here (node = hypothesis, ``parents[i]`` = list of parent indices of node ``i``):

* depth: roots have depth 1, every other node ``1 + max(depth of its parents)``.
* leaves: nodes without children; ``V`` is their number in the whole graph.
* effective number of leaves (Eq. (16)): ``v_i = 1`` for a leaf, otherwise
  ``v_i = sum_{j in children(i)} v_j / |parents(j)|``.
* effective number of nodes (Eq. (17)): ``m_i = 1 + sum_{j in children(i)} m_j / |parents(j)|``
  (so ``m_i = 1`` for a leaf).
* threshold of node ``i`` at depth ``d`` for a trial number of rejections ``r`` (Eq. (15); the RG-PT
  paper prints the reshaping function in the denominator, which would make the threshold *decrease*
  in ``r``, and has no division by ``m_i``; we use the form of the DAGGER paper and its reference
  implementation, with ``beta_i`` in the numerator and the division by ``m_i``, which reduces to
  Benjamini-Hochberg on a graph without edges)::

      delta_i(r) = delta * (v_i / V) * beta_i(m_i + r + R_{1:d-1} - 1) / m_i

  where ``R_{1:d-1}`` is the number of rejections at depths ``1..d-1``.
* reshaping ``beta_i``:

  - ``"identity"``: ``beta(x) = x``. Valid for independent or positively dependent (PRDS) p-values.
  - ``"by"``: Benjamini-Yekutieli-type reshaping, valid under arbitrary dependence. For a node at
    depth ``d`` the argument ``x = m_i + r + R_{1:d-1} - 1`` can only take the values
    ``m_i + d - 1, m_i + d, ..., m_i + |H_{1:d}| - 1`` (``|H_{1:d}|`` = number of nodes of depth
    ``<= d``), and ``beta_i`` is the Blanchard-Roquain reshaping for the ``1/k`` prior on that range:
    ``beta_i(x) = (x - m_i - d + 2) / sum_{k=m_i+d-1}^{m_i+|H_{1:d}|-1} 1/k`` (the reference code's
    form). On a graph without edges this is exactly Benjamini-Yekutieli, ``beta(x) = x / sum_{k<=V} 1/k``
    as written in App. B of the RG-PT paper; on a chain it coincides with the identity (a chain tests
    one node at a time, so there is no multiplicity to pay for). Its validity is checked, not just
    assumed: ``tests/test_arbitrary_dependence.py`` computes the exact worst-case FDR over all joint laws of
    the p-values (nulls super-uniform, any dependence) by a linear program, for every DAG on up to 4 nodes
    and every set of true nulls, and for sampled 5-node DAGs; it never exceeds ``delta`` (the identity
    reshaping reaches ``delta * (1 + 1/2 + ... + 1/n)`` without edges, the sharp bound of Guo & Rao, 2008).

  The sum is computed term by term (``math.fsum``), not as a difference of digamma values, which loses
  the last bits (``digamma(6) - digamma(5)`` is ``0.2000...018``, not ``1/5``) or, for large arguments,
  many more by cancellation.

* step-up (Eq. (18)): among the nodes of depth ``d`` whose parents are all rejected, ``R`` is the
  largest ``r`` with ``#{i : p_i <= delta_i(r)} >= r`` (0 if none); reject exactly the nodes with
  ``p_i <= delta_i(R)``.

* ties: ``delta_i(r)`` is computed in floating point in another order than the thresholds of the
  procedures it reduces to, so it can differ from theirs in the last bits. Every comparison
  ``p <= delta_i(r)`` is therefore made as ``p <= delta_i(r) * (1 + 1e-12)`` (:data:`REL_TOL`): a p-value
  equal to the Benjamini-Hochberg, Benjamini-Yekutieli or fixed-sequence threshold of the special cases
  below is rejected by DAGGER too. This raises every level by a factor of at most ``1 + 1e-12``.

Special cases (tested): no edges gives Benjamini-Hochberg (identity) or Benjamini-Yekutieli ("by");
a chain gives fixed-sequence FDR testing, Eq. (14) with ``k = 1`` -- decision for decision, except
for a p-value above those procedures' threshold by less than the relative slack ``REL_TOL``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..validation import value_text
from .procedures import check_delta, check_p_values

__all__ = ["dagger", "dagger_details", "DaggerResult", "dag_depths", "effective_leaves_and_nodes", "topological_order"]

#: Relative slack of every comparison ``p <= delta_i(r)`` (see the module docstring, "ties").
REL_TOL = 1e-12


def _normalise_parents(parents, n_nodes: int | None = None) -> list[np.ndarray]:
    """Parent lists as sorted unique int arrays, after checking them; ``parents`` is read once (it may be an
    iterator). ``n_nodes``: the number of p-values it must match (``None``: its own length)."""
    if parents is None:
        raise InputError("parents must be a list with one list of parent indices per node")
    if isinstance(parents, (str, bytes)):  # "ab" was read as two nodes: "parents[0] must be a list ..., got 'a'"
        raise InputError(f"parents must be a list with one list of parent indices per node, not a string; got "
                         f"{parents!r}")
    if isinstance(parents, Mapping):  # list(dict) is its keys: "parents[0] must be a list ..., got 0"
        raise InputError("parents must be a list with one list of parent indices per node (node i's at position "
                         "i), not a mapping; for a dict keyed by node index pass [parents[i] for i in range(N)]")
    try:
        parent_lists = list(parents)
    except TypeError:
        raise InputError("parents must be a list with one list of parent indices per node") from None
    if n_nodes is None:
        n_nodes = len(parent_lists)
    if len(parent_lists) != n_nodes:
        raise InputError(f"parents has {len(parent_lists)} entries but there are {n_nodes} p-values")
    out = []
    for i, ps in enumerate(parent_lists):
        if isinstance(ps, (str, bytes)):  # "12" would otherwise be read as the parents [1, 2]
            raise InputError(f"parents[{i}] must be a list of integer node indices, got the string {ps!r}")
        try:
            items = list(ps) if ps is not None else []
            if any(isinstance(q, (bool, np.bool_, str, bytes)) for q in items):
                raise TypeError
            arr = np.asarray(items, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"parents[{i}] must be a list of integer node indices, got {value_text(ps)}") from None
        except OverflowError:  # an int beyond the float range, e.g. 10**400
            raise InputError(f"parents[{i}] refers to a node outside 0..{n_nodes - 1} (an int too large for a "
                             "float)") from None
        if arr.ndim != 1:  # raveled before: [[1]] was the parent 1 and [[]] no parent, a list one level too deep
            raise InputError(f"parents[{i}] must be a flat list of integer node indices, got the nested {ps!r}")
        if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
            raise InputError(f"parents[{i}] must contain integer node indices, got {ps!r}")
        if arr.size and (arr.min() < 0 or arr.max() >= n_nodes):  # before the cast: 1e300 warned "invalid value"
            raise InputError(f"parents[{i}] refers to a node outside 0..{n_nodes - 1}: {ps!r}")
        arr = np.unique(arr.astype(np.int64))
        if np.any(arr == i):
            raise InputError(f"the graph has a cycle: node {i} is its own parent")
        out.append(arr)
    return out


def topological_order(parents) -> np.ndarray:
    """Topological order of a DAG given by parent lists (parents before children).

    Parameters: ``parents`` of length N, ``parents[i]`` an iterable of node indices in ``0..N-1``.
    Returns an int array of shape (N,). Raises ``InputError`` if the graph has a cycle (the message
    names nodes on or behind it) or an index is out of range.
    """
    plist = _normalise_parents(parents)
    return _topological_order(plist)


def _topological_order(plist: list[np.ndarray]) -> np.ndarray:
    n = len(plist)
    children: list[list[int]] = [[] for _ in range(n)]
    indegree = np.zeros(n, dtype=np.int64)
    for i, ps in enumerate(plist):
        indegree[i] = ps.size
        for p in ps:
            children[int(p)].append(i)
    queue = [i for i in range(n) if indegree[i] == 0]
    order = []
    head = 0
    while head < len(queue):
        node = queue[head]
        head += 1
        order.append(node)
        for c in children[node]:
            indegree[c] -= 1
            if indegree[c] == 0:
                queue.append(c)
    if len(order) != n:
        stuck = sorted(set(range(n)) - set(order))
        shown = ", ".join(map(str, stuck[:10])) + (", ..." if len(stuck) > 10 else "")
        raise InputError(f"the graph has a cycle (DAGGER needs a DAG); nodes on or after a cycle: {shown}")
    return np.asarray(order, dtype=np.int64)


def _children(plist: list[np.ndarray]) -> list[list[int]]:
    children: list[list[int]] = [[] for _ in range(len(plist))]
    for i, ps in enumerate(plist):
        for p in ps:
            children[int(p)].append(i)
    return children


def dag_depths(parents) -> np.ndarray:
    """Depth of every node: 1 for roots, ``1 + max(parent depths)`` otherwise. Shape (N,), int.

    The depth ``d`` of DAGGER's level-by-level testing (App. B of the RG-PT paper, Eqs. (15)-(18)).

    Raises ``InputError`` on a cycle, an out-of-range index, or ``parents`` that is not a list of lists of
    integer indices (a string, a bool or ``None`` included).
    """
    plist = _normalise_parents(parents)
    return _depths(plist, _topological_order(plist))


def _depths(plist: list[np.ndarray], order: np.ndarray) -> np.ndarray:
    depth = np.ones(len(plist), dtype=np.int64)
    for node in order:
        ps = plist[node]
        if ps.size:
            depth[node] = 1 + depth[ps].max()
    return depth


def effective_leaves_and_nodes(parents) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Effective numbers of leaves and nodes, Eqs. (16)-(17) of the RG-PT paper (App. B).

    Returns ``(v, m_eff, is_leaf)``, each of shape (N,): ``v[i]`` the effective number of leaves
    below node ``i``, ``m_eff[i]`` the effective number of nodes, ``is_leaf[i]`` whether ``i`` has no
    children. ``v`` sums to the number of leaves over the roots. Raises ``InputError`` on a cycle, an
    out-of-range index, or ``parents`` that is not a list of lists of integer indices (as :func:`dag_depths`).
    """
    plist = _normalise_parents(parents)
    return _effective(plist, _topological_order(plist))


def _effective(plist: list[np.ndarray], order: np.ndarray):
    n = len(plist)
    children = _children(plist)
    is_leaf = np.array([len(c) == 0 for c in children], dtype=bool)
    v = np.zeros(n)
    m_eff = np.ones(n)
    for node in order[::-1]:  # children before parents
        if is_leaf[node]:
            v[node] = 1.0
        else:
            for c in children[node]:
                share = 1.0 / plist[c].size
                v[node] += v[c] * share
                m_eff[node] += m_eff[c] * share
    return v, m_eff, is_leaf


def _step_up_count(p_d: np.ndarray, crit) -> int:
    """The step-up count of Eq. (18): the largest ``r`` in ``1..k`` (``k = p_d.size``) with ``#{i : p_i <= crit(r)_i
    (1 + REL_TOL)} >= r``, 0 if none. ``crit(r)`` gives the (k,) levels for a trial count ``r`` (an int, or a (k,)
    int array, one trial per node); each level is non-decreasing in ``r``, also in floating point.

    Each node's smallest passing ``r`` is found by a bisection run for all nodes at once (about log2 k evaluations of
    ``crit``); ``#{i : passes at r}`` is then the number of those at most ``r``. The same comparisons as trying
    ``r = k, k - 1, ...`` one by one, which evaluated ``crit`` k times over k nodes when little is rejected: 0.9 s for
    20,000 nodes without edges and p-values 1, and quadratic (Benjamini-Hochberg's sort takes milliseconds)."""
    k = p_d.size
    lo = np.ones(k, dtype=np.int64)
    hi = np.full(k, k + 1, dtype=np.int64)  # k + 1: passes at no r <= k
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        passes = (p_d <= crit(np.minimum(mid, k)) * (1.0 + REL_TOL)) & (mid <= k)
        hi = np.where(passes, mid, hi)
        lo = np.where(passes | (lo >= hi), lo, mid + 1)
    first = np.sort(hi)
    trials = np.arange(1, k + 1)
    ok = np.searchsorted(first, trials, side="right") >= trials
    return int(trials[ok].max()) if ok.any() else 0


@dataclass(frozen=True)
class DaggerResult:
    """Outcome of :func:`dagger_details`; all arrays have shape (N,), indexed by node.

    rejected: bool, null rejected. tested: bool, node examined (all parents rejected when its depth
    came). depth: int, DAG depth. threshold: float, the level ``delta_i(R)`` the node was compared
    with (NaN when not tested, 0 when nothing at its depth was rejected, ``R = 0``; the comparison is
    ``p <= threshold * (1 + REL_TOL)``, see the module docstring). v, m_eff: effective numbers of leaves
    and nodes.
    """

    rejected: np.ndarray
    tested: np.ndarray
    depth: np.ndarray
    threshold: np.ndarray
    v: np.ndarray
    m_eff: np.ndarray


_RESHAPINGS = {"identity": "identity", "id": "identity", "by": "by", "benjamini_yekutieli": "by"}


def dagger_details(p_values, parents: Sequence, delta, reshaping: str = "identity") -> DaggerResult:
    """DAGGER (Eqs. (15)-(18) and Alg. 1 of the RG-PT paper) with full diagnostics: a :class:`DaggerResult` of
    (N,) arrays. See :func:`dagger` for the arguments and errors."""
    p = check_p_values(p_values)
    d = check_delta(delta)
    try:
        shape = _RESHAPINGS[str(reshaping).lower()]
    except KeyError:
        raise InputError(f"reshaping must be 'identity' or 'by', got {reshaping!r}") from None
    plist = _normalise_parents(parents, p.size)
    order = _topological_order(plist)
    depth = _depths(plist, order)
    v, m_eff, is_leaf = _effective(plist, order)
    n_leaves = float(is_leaf.sum())
    cum_nodes = np.cumsum(np.bincount(depth, minlength=depth.max() + 1))  # cum_nodes[d] = |H_{1:d}|

    rejected = np.zeros(p.size, dtype=bool)
    tested = np.zeros(p.size, dtype=bool)
    threshold = np.full(p.size, np.nan)
    n_rejected = 0
    for level in range(1, int(depth.max()) + 1):
        nodes = np.array(
            [i for i in np.nonzero(depth == level)[0] if all(rejected[plist[i]])], dtype=np.int64
        )
        if nodes.size == 0:
            continue  # no node of this depth can be tested, nor any deeper one
        tested[nodes] = True
        v_d, m_d, p_d = v[nodes], m_eff[nodes], p[nodes]
        if shape == "identity":

            def crit(r, v_d=v_d, m_d=m_d, prev=n_rejected):
                return d * v_d * (m_d + r + prev - 1) / (n_leaves * m_d)

        else:
            # sum_{k=m_i+d-1}^{m_i+|H_{1:d}|-1} 1/k, one exactly rounded sum per distinct m_i
            steps = np.arange(cum_nodes[level] - level + 1, dtype=float)
            sums = {m_i: math.fsum((1.0 / (m_i + level - 1 + steps)).tolist()) for m_i in np.unique(m_d)}
            denom = np.array([sums[m_i] for m_i in m_d])

            def crit(r, v_d=v_d, m_d=m_d, prev=n_rejected, level=level, denom=denom):
                return d * v_d * (r + prev - level + 1) / (n_leaves * m_d * denom)

        big_r = _step_up_count(p_d, crit)
        if big_r:
            thr = crit(big_r)
            hit = p_d <= thr * (1.0 + REL_TOL)
            rejected[nodes[hit]] = True
            n_rejected += int(hit.sum())
        else:
            thr = np.zeros(nodes.size)  # nothing rejected at this depth (R = 0)
        threshold[nodes] = thr
    return DaggerResult(rejected=rejected, tested=tested, depth=depth, threshold=threshold, v=v, m_eff=m_eff)


def dagger(p_values, parents: Sequence, delta, reshaping: str = "identity") -> np.ndarray:
    """DAGGER (FDR control on a DAG), Eqs. (15)-(18) and Alg. 1 of the RG-PT paper.

    Parameters
    ----------
    p_values : array_like, shape (N,)
        One p-value per node, values in [0, 1].
    parents : sequence of length N
        ``parents[i]`` is an iterable of the integer indices of node ``i``'s parents (empty for a root;
        not a string, and no bools). Duplicated indices are ignored.
    delta : float in (0, 1)
        Target FDR level.
    reshaping : {"identity", "by"}
        ``"identity"`` for independent/PRDS p-values, ``"by"`` (Benjamini-Yekutieli-type) for
        arbitrary dependence; see the module docstring for the exact thresholds.

    Returns
    -------
    ndarray of bool, shape (N,): rejected nodes. A rejected node's parents are all rejected.

    Raises
    ------
    InputError
        Bad p-values or ``delta``, ``parents`` of the wrong length or a string, a ``parents[i]`` that is not a
        flat list of integer indices (a string or a nested list included), an index out of range, a self-loop or
        any other cycle, an unknown ``reshaping``.
    """
    return dagger_details(p_values, parents, delta, reshaping).rejected
