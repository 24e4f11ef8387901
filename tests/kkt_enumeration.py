"""An exact oracle for the bilevel MILPs on tiny instances: the KKT system's complementarity enumerated.

Every complementarity pair of the inner LPs is one of finitely many *states* (a training point outside, on
or inside the margin; a box bound inactive, active above or below; the epsilon constraint slack or tight).
With each state fixed, the KKT system is linear, so the bilevel problem is the least of the LPs over all
state combinations. These are searched depth first: a partial combination whose LP (the states not yet fixed
relaxed away) is infeasible or no better than the best complete one is cut. The LPs are re-solved in one
HiGHS model from the last basis (``highspy``, dual simplex, no presolve), an LP that ends there neither optimal
nor infeasible is solved again from scratch by scipy's ``linprog``, and a child whose equalities the parent's
optimum already satisfies takes the parent's optimum without an LP (8 times faster than one ``linprog`` call
per LP; the same optima as before on the random instances of 200 that it solves within 3 s, about 180).

Shares no code with the package, and uses no big-M constant, no bound on a multiplier (``lambda`` of the
epsilon constraint is unbounded here) and no MIP solver, so it checks the MILPs' big-M constants, their
bound on ``lambda`` and HiGHS's optimality claims at once. Exponential: for ``|T| + |V| + p`` up to about 12.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linprog


class _Vars:
    """Column indices of named variable blocks."""

    def __init__(self):
        self.n, self.lower, self.upper = 0, [], []

    def add(self, size: int, lower=None, upper=None) -> np.ndarray:
        idx = np.arange(self.n, self.n + size)
        self.n += size
        self.lower += [lower] * size
        self.upper += [upper] * size
        return idx


class _Rows:
    """Sparse-by-dict linear rows ``sum coef x <= rhs`` or ``== rhs``."""

    def __init__(self):
        self.ub, self.eq = [], []

    def le(self, terms: dict, rhs: float):
        self.ub.append((terms, rhs))

    def equal(self, terms: dict, rhs: float):
        self.eq.append((terms, rhs))


def _matrix(rows, n):
    A = np.zeros((len(rows), n))
    for r, (terms, _) in enumerate(rows):
        for j, coef in terms.items():
            A[r, j] += coef
    return A, np.array([rhs for _, rhs in rows], dtype=float)


def _margin(x, y, w, b) -> dict:
    """Terms of ``y (x^T w - b)``."""
    terms = {int(j): y * xj for j, xj in zip(w, x)}
    terms[int(b)] = -y
    return terms


def _hinge_rows(rows: _Rows, X, y, w, b, h):
    for i in range(len(y)):  # h_i >= 1 - y_i (x_i^T w - b)
        terms = {int(j): -c for j, c in _margin(X[i], y[i], w, b).items()}
        terms[int(h[i])] = -1.0
        rows.le(terms, -1.0)


def _primal(v: _Vars, rows: _Rows, X, y, w, b, w_bar=None):
    """Loss columns ``xi`` with ``xi_i >= 1 - y_i (x_i^T w - b)``, ``xi >= 0`` and, given ``w_bar``, the box
    ``-w_bar <= w <= w_bar``; returns ``xi``."""
    xi = v.add(len(y), 0.0)
    _hinge_rows(rows, X, y, w, b, xi)
    for j in range(len(w) if w_bar is not None else 0):
        rows.le({int(w[j]): 1.0, int(w_bar[j]): -1.0}, 0.0)
        rows.le({int(w[j]): -1.0, int(w_bar[j]): -1.0}, 0.0)
    return xi


def _lp_svm_kkt(v: _Vars, rows: _Rows, states: list, X, y, w, b, w_bar, weight_var=None, box=True):
    """KKT system of ``min weight * mean_i xi_i s.t. xi_i >= 1 - y_i (x_i^T w - b), xi >= 0, |w| <= w_bar``
    with multipliers ``beta`` (hinge rows) and ``mu+``, ``mu-`` (box). ``weight`` is 1, or with
    ``weight_var`` the column of a variable weight (``lambda``). ``box=False``: the box and its multipliers
    belong to another block of the same ``(w, b)`` (``mu+``, ``mu-`` returned as None). Appends the
    complementarity disjunctions (lists of alternatives, each a list of equalities) to ``states`` and returns
    ``(xi, beta, mu+, mu-)``."""
    n, p = len(y), len(w)
    xi = _primal(v, rows, X, y, w, b, w_bar if box else None)
    beta = v.add(n, 0.0)

    def cap(i):  # beta_i <= weight / n, the multiplier of xi_i >= 0 being weight/n - beta_i >= 0
        return ({int(beta[i]): 1.0, int(weight_var): -1.0 / n}, 0.0) if weight_var is not None \
            else ({int(beta[i]): 1.0}, 1.0 / n)

    for i in range(n):
        rows.le(*cap(i))
    for i in range(n):
        m = _margin(X[i], y[i], w, b)
        outside = [({int(beta[i]): 1.0}, 0.0), ({int(xi[i]): 1.0}, 0.0)]
        on = [({int(xi[i]): 1.0}, 0.0), (m, 1.0)]
        inside_terms = dict(m)
        inside_terms[int(xi[i])] = inside_terms.get(int(xi[i]), 0.0) + 1.0
        inside = [cap(i), (inside_terms, 1.0)]
        states.append([outside, on, inside])
    if not box:
        return xi, beta, None, None
    mu_p, mu_m = v.add(p, 0.0), v.add(p, 0.0)
    for j in range(p):
        states.append([[({int(mu_p[j]): 1.0}, 0.0), ({int(mu_m[j]): 1.0}, 0.0)],
                       [({int(w[j]): 1.0, int(w_bar[j]): -1.0}, 0.0), ({int(mu_m[j]): 1.0}, 0.0)],
                       [({int(w[j]): 1.0, int(w_bar[j]): 1.0}, 0.0), ({int(mu_p[j]): 1.0}, 0.0)]])
    return xi, beta, mu_p, mu_m


def _stationarity(rows: _Rows, p, blocks, mu_p, mu_m):
    """``-sum beta_i y_i x_i + mu+ - mu- = 0`` (w) and ``sum beta_i y_i = 0`` (b), over the multiplier
    blocks ``[(beta, X, y), ...]``."""
    for j in range(p):
        terms = {int(mu_p[j]): 1.0, int(mu_m[j]): -1.0}
        for beta, X, y in blocks:
            for i in range(len(y)):
                terms[int(beta[i])] = terms.get(int(beta[i]), 0.0) - y[i] * X[i, j]
        rows.equal(terms, 0.0)
    terms = {}
    for beta, X, y in blocks:
        for i in range(len(y)):
            terms[int(beta[i])] = terms.get(int(beta[i]), 0.0) + y[i]
    rows.equal(terms, 0.0)


def _least_violation(A_ub, b_ub, A_eq, b_eq, bounds) -> float:
    """Least total violation of the rows ``A_ub x <= b_ub``, ``A_eq x = b_eq`` over ``x`` within ``bounds``: the
    phase-1 LP, always feasible and bounded. HiGHS's simplex ends some LPs with mixed-scale rows (a feature scaled
    by 1e-5) in "model status unknown"; a clearly positive least violation shows such an LP infeasible."""
    m_ub, m_eq = A_ub.shape[0], A_eq.shape[0]
    slacks = m_ub + 2 * m_eq
    A_ub1 = np.hstack([A_ub, -np.eye(m_ub), np.zeros((m_ub, 2 * m_eq))])
    A_eq1 = np.hstack([A_eq, np.zeros((m_eq, m_ub)), np.eye(m_eq), -np.eye(m_eq)])
    c = np.concatenate([np.zeros(A_ub.shape[1]), np.ones(slacks)])
    res = linprog(c, A_ub=A_ub1, b_ub=b_ub, A_eq=A_eq1, b_eq=b_eq, bounds=list(bounds) + [(0.0, None)] * slacks,
                  method="highs")
    if res.status != 0:
        raise RuntimeError(f"oracle phase-1 LP ended with status {res.status}: {res.message}")
    return float(res.fun)


def _row_key(terms: dict, rhs: float) -> tuple:
    """A hashable form of the equality ``sum coef x = rhs``, the same for the same row in any alternative."""
    return tuple(sorted(terms.items())), rhs


class _WarmLP:
    """The search's LPs in one HiGHS model, re-solved from the last basis: the base rows, plus one row per
    distinct equality of the disjunctions, free until a combination holding it switches it on (its bounds set to
    its right-hand side). A child LP differs from its parent by a few row bounds, so dual simplex from the
    parent's basis takes a few pivots where a fresh ``linprog`` built and solved the whole LP (1.4 ms each).
    ``solve`` returns ``(status, value, x)``, status "optimal", "infeasible" or None when HiGHS ends otherwise
    (unbounded, unknown: the caller re-solves from scratch)."""

    def __init__(self, c, v: _Vars, rows: _Rows, states: list):
        import highspy

        self.h = h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("presolve", "off")
        inf = highspy.kHighsInf
        lower = [-inf if lo is None else lo for lo in v.lower]
        upper = [inf if up is None else up for up in v.upper]
        h.addVars(v.n, np.array(lower, dtype=float), np.array(upper, dtype=float))
        h.changeColsCost(v.n, np.arange(v.n, dtype=np.int32), np.asarray(c, dtype=float))
        self.switch, self.active = {}, {}
        for terms, rhs, lo in ([(t, r, -inf) for t, r in rows.ub] + [(t, r, r) for t, r in rows.eq]
                               + [(t, r, None) for alternatives in states for alt in alternatives for t, r in alt]):
            key = _row_key(terms, rhs)
            if lo is None and key in self.switch:
                continue
            idx = np.array([j for j, _ in key[0]], dtype=np.int32)
            h.addRow(-inf if lo is None else lo, inf if lo is None else rhs, len(idx), idx,
                     np.array([a for _, a in key[0]], dtype=float))
            if lo is None:
                self.switch[key] = h.getNumRow() - 1
                self.active[key] = 0
        self.inf = inf

    def turn(self, alternative, on: bool):
        for terms, rhs in alternative:
            key = _row_key(terms, rhs)
            self.active[key] += 1 if on else -1
            free = self.active[key] == 0
            self.h.changeRowBounds(self.switch[key], -self.inf if free else rhs, self.inf if free else rhs)

    def solve(self):
        import highspy

        self.h.run()
        status = self.h.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return "optimal", self.h.getInfo().objective_function_value, np.array(self.h.getSolution().col_value)
        if status == highspy.HighsModelStatus.kInfeasible:
            return "infeasible", None, None
        return None, None, None


def _search(c, v: _Vars, rows: _Rows, states: list, tol: float = 1e-9):
    """Least ``c^T x`` over the base rows plus one alternative of every disjunction in ``states``.
    Returns ``(value, x, LPs solved)``, ``(inf, None, count)`` when no combination is feasible."""
    A_ub, b_ub = _matrix(rows.ub, v.n)
    A_eq0, b_eq0 = _matrix(rows.eq, v.n)
    bounds = list(zip(v.lower, v.upper))
    best = [np.inf, None]
    counts = [0]
    n_complete = sum(len(states[d][0]) for d in range(len(states)))  # equalities of a complete combination
    warm = _WarmLP(c, v, rows, states)

    def fresh(fixed):
        """The LP solved from scratch by scipy's ``linprog``, where the warm-started one ends unclear."""
        A_eq, b_eq = _matrix(fixed, v.n)
        A_eq, b_eq = np.vstack([A_eq0, A_eq]), np.concatenate([b_eq0, b_eq])
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
        if res.status == 2:
            return None
        if res.status == 3 and len(fixed) < n_complete:  # the free states relaxed away left a ray: cuts nothing
            return "unbounded"
        if res.status == 4 and _least_violation(A_ub, b_ub, A_eq, b_eq, bounds) > 1e-6:
            return None  # HiGHS gave up ("model status unknown") on an LP whose rows cannot all hold
        if res.status != 0:
            raise RuntimeError(f"oracle LP ended with status {res.status}: {res.message}")
        return res.fun, res.x

    def solve(fixed):
        counts[0] += 1
        status, value, x = warm.solve()
        if status == "optimal":
            return value, x
        if status == "infeasible":
            return None
        return fresh(fixed)

    def holds(alternative, x):
        """Whether ``x`` satisfies the equalities of ``alternative`` (to ``1e-9`` absolute)."""
        return all(abs(sum(coef * x[j] for j, coef in terms.items()) - rhs) <= 1e-9 for terms, rhs in alternative)

    def dfs(depth, fixed, res):
        if res is None or (res != "unbounded" and res[0] >= best[0] - tol):
            return
        if depth == len(states):
            best[0], best[1] = res
            return
        for alternative in states[depth]:
            warm.turn(alternative, True)
            # The child's LP is the parent's with the alternative's equalities added: when the parent's optimum
            # satisfies them, it is the child's optimum too (a smaller set holding the same point), so no LP.
            reuse = res != "unbounded" and holds(alternative, res[1])
            dfs(depth + 1, fixed + alternative, res if reuse else solve(fixed + alternative))
            warm.turn(alternative, False)

    dfs(0, [], solve([]))
    return best[0], best[1], counts[0]


def _w_bar_block(v: _Vars, p, w_bar_bounds):
    lo, hi = (np.broadcast_to(np.asarray(bd, dtype=float), (p,)) for bd in w_bar_bounds)
    idx = v.add(p)
    for j, k in enumerate(idx):
        v.lower[k], v.upper[k] = float(lo[j]), float(hi[j])
    return idx


def _optimistic_system(Xt, yt, Xv, yv, w_bar_bounds):
    p = Xt.shape[1]
    v, rows, states = _Vars(), _Rows(), []
    w_bar = _w_bar_block(v, p, w_bar_bounds)
    w, b = v.add(p), v.add(1)[0]
    g = v.add(len(yv), 0.0)
    _hinge_rows(rows, Xv, yv, w, b, g)
    _, beta, mu_p, mu_m = _lp_svm_kkt(v, rows, states, Xt, yt, w, b, w_bar)
    _stationarity(rows, p, [(beta, Xt, yt)], mu_p, mu_m)
    return v, rows, states, dict(w_bar=w_bar, w=w, b=b, g=g)


def optimistic_optimum(Xt, yt, Xv, yv, w_bar_bounds=(0.0, 1.0)):
    """Exact optimum of the optimistic bilevel problem (Eq. (21) of the pessimistic bilevel tuning paper):
    least mean validation hinge over ``w_bar`` in the box and the training optima ``(w, b)`` at ``w_bar``.
    ``w_bar_bounds``: ``(lower, upper)``, each a number or a (p,) array. Returns ``(value, w_bar, LPs solved)``."""
    v, rows, states, ix = _optimistic_system(Xt, yt, Xv, yv, w_bar_bounds)
    c = np.zeros(v.n)
    c[ix["g"]] = 1.0 / len(yv)
    value, x, count = _search(c, v, rows, states)
    return value, (None if x is None else x[ix["w_bar"]]), count


def optimistic_tie_extremes(Xt, yt, Xv, yv, criterion, ceiling, w_bar_bounds=(0.0, 1.0)):
    """Least and largest ``criterion`` over the optimistic bilevel-feasible points whose mean validation
    hinge is at most ``ceiling`` (the optimum plus a tolerance): ``"sum_w_bar"`` (``sum_j w_bar_j``),
    ``"val_margin"`` (``mean_k y_k (x_k^T w - b)`` over the validation points) or a linear function given as
    a dict ``{"w_bar": (p,), "w": (p,), "b": float, "constant": float}`` (missing keys: 0).
    Returns ``(low, high)``."""
    v, rows, states, ix = _optimistic_system(Xt, yt, Xv, yv, w_bar_bounds)
    rows.le({int(k): 1.0 / len(yv) for k in ix["g"]}, ceiling)
    c = np.zeros(v.n)
    constant = 0.0
    if isinstance(criterion, dict):
        for key in ("w_bar", "w", "b"):
            c[ix[key]] += np.asarray(criterion.get(key, 0.0), dtype=float)
        constant = float(criterion.get("constant", 0.0))
    elif criterion == "sum_w_bar":
        c[ix["w_bar"]] = 1.0
    elif criterion == "val_margin":
        for k in range(len(yv)):
            for j, coef in _margin(Xv[k], yv[k], ix["w"], ix["b"]).items():
                c[j] += coef / len(yv)
    else:
        raise ValueError(f"unknown criterion {criterion!r}")
    low = _search(c, v, rows, states)[0]
    high = -_search(-c, v, rows, states)[0]
    return low + constant, high + constant


def pessimistic_optimum(Xt, yt, Xv, yv, flipped, epsilon, w_bar_bounds=(0.0, 1.0), replica="optimal"):
    """Exact optimum of the pessimistic bilevel problem with a training-optimal replica (Eqs. (23)-(25) of
    the pessimistic bilevel tuning paper, ``replica="optimal"``): the replica ``(w_hat, b_hat)`` is a
    training optimum at ``w_bar``; the follower ``(w, b)`` minimises the mean hinge loss on the validation
    points ``flipped`` with negated labels, subject to a mean training hinge of at most ``(1 + epsilon)``
    times the replica's and ``|w| <= w_bar``; the leader minimises the follower's mean validation hinge
    (true labels). The follower's objective has multiplier 1 and the budget row an unbounded ``lambda >= 0``.
    ``replica="feasible"``: Eq. (24) as printed, the replica only feasible (``xi_hat`` above its hinge losses,
    ``|w_hat| <= w_bar``), so the leader may inflate the budget. Returns ``(value, w_bar, LPs solved)``."""
    p, nt = Xt.shape[1], len(yt)
    flipped = np.asarray(flipped)
    Xf, yf = Xv[flipped], -yv[flipped]
    v, rows, states = _Vars(), _Rows(), []
    w_bar = _w_bar_block(v, p, w_bar_bounds)
    w_hat, b_hat = v.add(p), v.add(1)[0]
    if replica == "optimal":
        xi_hat, beta_hat, mu_p_hat, mu_m_hat = _lp_svm_kkt(v, rows, states, Xt, yt, w_hat, b_hat, w_bar)
        _stationarity(rows, p, [(beta_hat, Xt, yt)], mu_p_hat, mu_m_hat)
    else:  # only feasible: its rows without its KKT system
        xi_hat = _primal(v, rows, Xt, yt, w_hat, b_hat, w_bar)
    w, b = v.add(p), v.add(1)[0]
    lam = v.add(1, 0.0)[0]
    g = v.add(len(yv), 0.0)
    _hinge_rows(rows, Xv, yv, w, b, g)
    # The follower: flipped-label hinge (objective weight 1) and training hinge (weight lambda) ...
    # share one box, whose multipliers come with the first block.
    _, alpha, mu_p, mu_m = _lp_svm_kkt(v, rows, states, Xf, yf, w, b, w_bar)
    xi, beta, _, _ = _lp_svm_kkt(v, rows, states, Xt, yt, w, b, w_bar, weight_var=lam, box=False)
    _stationarity(rows, p, [(alpha, Xf, yf), (beta, Xt, yt)], mu_p, mu_m)
    # The budget: mean xi <= (1 + epsilon) mean xi_hat, with lambda (budget - mean xi) = 0.
    budget = {int(k): 1.0 / nt for k in xi}
    for k in xi_hat:
        budget[int(k)] = budget.get(int(k), 0.0) - (1 + epsilon) / nt
    rows.le(budget, 0.0)
    states.append([[({int(lam): 1.0}, 0.0)], [(budget, 0.0)]])
    c = np.zeros(v.n)
    c[g] = 1.0 / len(yv)
    value, x, count = _search(c, v, rows, states)
    return value, (None if x is None else x[w_bar]), count
