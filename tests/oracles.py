"""Independent oracles for the MILP tests: hinge-loss LPs written directly for scipy's ``linprog``,
sharing no code with the package (not even its LP helper), and brute force over a grid of ``w_bar``; and, for the
readers of solution files, a file HiGHS writes itself; a Pareto front by pairwise comparison; and Bradley-Terry
log-scores by choix's iterative Luce spectral ranking."""
from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog


def lp(w_bar, obj, cons=(), duals=False):
    """min mean hinge of obj=(X, y) s.t. mean hinge of each (X, y, rhs) <= rhs, |w_j| <= w_bar_j.
    Variables [w (p), b, h_obj, h_cons...]. Returns the optimal value (None when infeasible); with
    ``duals``, ``(value, multipliers >= 0 of the cons rows)`` as HiGHS reports them."""
    p = len(w_bar)
    blocks = [obj] + [(c[0], c[1]) for c in cons]
    sizes = [len(bl[1]) for bl in blocks]
    n = p + 1 + sum(sizes)
    c = np.zeros(n)
    c[p + 1 : p + 1 + sizes[0]] = 1.0 / sizes[0]
    A, rhs = [], []
    off = p + 1
    for (X, y), k in zip(blocks, sizes):
        for i in range(k):  # h_i >= 1 - y_i (x_i w - b)  <=>  -y_i x_i w + y_i b - h_i <= -1
            row = np.zeros(n)
            row[:p] = -y[i] * X[i]
            row[p] = y[i]
            row[off + i] = -1.0
            A.append(row)
            rhs.append(-1.0)
        off += k
    bounds = [(-wb, wb) for wb in w_bar] + [(None, None)] + [(0, None)] * sizes[0]
    off = p + 1 + sizes[0]
    for (X, y, r), k in zip(cons, sizes[1:]):
        if r <= 2 * TOL and not duals:
            # A mean hinge of at most 0 + TOL (a least loss of 0: separable data) is every hinge 0. As a
            # mean row of width TOL, scipy's HiGHS calls it infeasible at some points (scipy 1.11 even at
            # TOL = 1e-7); as bounds h = 0 (rows y (x^T w - b) >= 1) the LP is well posed.
            bounds += [(0, 0)] * k
        else:
            row = np.zeros(n)
            row[off : off + k] = 1.0 / k
            A.append(row)
            rhs.append(r)
            bounds += [(0, None)] * k
        off += k
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(rhs), bounds=bounds, method="highs")
    if duals:
        return (res.fun, -res.ineqlin.marginals[len(rhs) - len(cons):]) if res.status == 0 else (None, None)
    return res.fun if res.status == 0 else None



def margin_range(Xt, yt, ub, budget, x, cutoff=None):
    """Least and largest ``x^T w - b`` over ``{|w| <= ub, mean training hinge <= budget}`` (and, given ``cutoff =
    (Xv, yv, U)``, mean validation hinge ``<= U``), written directly for scipy's linprog over ``[w, b, h_t, h_v]``;
    None when that set is empty. The oracle of the bound-tightening LPs of items 9-10 of ``bilevel.bigm``."""
    p = Xt.shape[1]
    blocks = [(Xt, yt, budget)] + ([] if cutoff is None else [cutoff])
    k_all = sum(len(bl[1]) for bl in blocks)
    cols = p + 1 + k_all
    A, rhs, off = [], [], p + 1
    for X, y, cap in blocks:
        k = len(y)
        hinge = np.zeros((k, cols))
        hinge[:, :p], hinge[:, p] = -y[:, None] * X, y
        hinge[:, off:off + k] = -np.eye(k)
        mean = np.zeros(cols)
        mean[off:off + k] = 1.0 / k
        A += [hinge, mean[None]]
        rhs += [-np.ones(k), [cap]]
        off += k
    A, rhs = np.vstack(A), np.concatenate(rhs)
    bounds = [(-u, u) for u in ub] + [(None, None)] + [(0, None)] * k_all
    c = np.r_[x, -1.0, np.zeros(k_all)]
    lo = linprog(c, A_ub=A, b_ub=rhs, bounds=bounds, method="highs")
    if lo.status == 2:
        return None
    hi = linprog(-c, A_ub=A, b_ub=rhs, bounds=bounds, method="highs")
    return lo.fun, -hi.fun


TOL = 1e-8


def optimistic_value(w_bar, Xt, yt, Xv, yv):
    """Least validation hinge among training optima at w_bar (Eq. 21 at fixed w_bar)."""
    v_star = lp(w_bar, (Xt, yt))
    return lp(w_bar, (Xv, yv), [(Xt, yt, v_star + TOL)])


def pessimistic_value(w_bar, Xt, yt, Xv, yv, flipped, epsilon):
    """Eq. (24) at fixed w_bar with a training-optimal replica: budget (1+eps) v*, the flipped-label
    follower optimum, and the least true validation hinge among follower optima: three LPs."""
    v_star = lp(w_bar, (Xt, yt))
    budget = (1 + epsilon) * v_star + TOL
    Xf, yf = Xv[flipped], -yv[flipped]
    phi = lp(w_bar, (Xf, yf), [(Xt, yt, budget)])
    return lp(w_bar, (Xv, yv), [(Xt, yt, budget), (Xf, yf, phi + TOL)])


def grid(p, lb=0.0, ub=1.0, steps=17):
    axis = np.linspace(lb, ub, steps)
    return [np.array(c) for c in itertools.product(axis, repeat=p)]


def tiny_instance(seed, n_t=6, n_v=5, p=2, overlap=1.0):
    """Two overlapping Gaussian classes in p dimensions; both classes in the training set."""
    rng = np.random.default_rng(seed)

    def draw(n):
        y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
        rng.shuffle(y)
        X = rng.normal(size=(n, p)) * overlap + 0.8 * y[:, None] * np.linspace(1.0, 0.3, p)
        return X, y

    Xt, yt = draw(n_t)
    Xv, yv = draw(n_v)
    return Xt, yt, Xv, yv


def highs_solution_file(path, style: int, integer: bool = False):
    """HiGHS's own solution file at ``path`` (``writeSolution`` style 0: raw, 1: pretty) of min x0 + x1 with
    1 <= x0 <= 5, 0 <= x1 <= 10 (x1 integer with ``integer``), whose optimum x0 = 1, x1 = 0 (value 1) is plain by
    hand: for testing the readers of solution files against the solver's own writer. Returns ``path``."""
    import highspy

    h = highspy.Highs()
    h.silent()
    h.addVars(2, [1.0, 0.0], [5.0, 10.0])
    h.passColName(0, "x0")
    h.passColName(1, "x1")
    h.changeColsCost(2, [0, 1], [1.0, 1.0])
    if integer:
        h.changeColsIntegrality(1, [1], [highspy.HighsVarType.kInteger])
    h.run()
    h.writeSolution(str(path), style)
    return path


def brute_front(obj: np.ndarray) -> list[int]:
    """Eq. (2) of the Pareto-testing paper, pair by pair: row j of ``obj`` (m, k) is on the front unless some row i
    is <= in every objective and < in one. Returns the front's row indices, ascending."""
    m = len(obj)
    return [j for j in range(m)
            if not any(all(obj[i] <= obj[j]) and any(obj[i] < obj[j]) for i in range(m))]


def choix_log_scores(wins, max_iter: int = 100_000, tolerances=(1e-14, 1e-12, 1e-10, 1e-9)) -> np.ndarray:
    """Bradley-Terry log-scores (m,) of the win counts ``wins`` (m, m) by choix's ILSR (no regularisation), at the
    first of ``tolerances`` (ascending) it meets within ``max_iter`` iterations. Its steps can stall at a rounding
    floor of about 1e-9 per item (log-scores spread over 22: successive changes of 6e-10 to 1.1e-8 in L1 norm), so
    whether 1e-14 is met depends on the machine's floating point. Raises AssertionError when none is met."""
    import choix

    for tol in tolerances:
        try:
            return choix.ilsr_pairwise_dense(np.asarray(wins, dtype=float), alpha=0.0, max_iter=max_iter, tol=tol)
        except RuntimeError:  # "Did not converge": its steps stayed above tol
            continue
    raise AssertionError(f"choix's ILSR met none of the tolerances {tolerances} in {max_iter} iterations")
