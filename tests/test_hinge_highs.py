"""The highspy hinge LP (used by the MIP starts) against scipy's linprog and LP duality."""
import threading
from collections import OrderedDict

import numpy as np
import pytest

from bilevel import hinge_highs
from bilevel.errors import InputError, SolverError
from bilevel.hinge_highs import hinge_lp_highs
from bilevel.inner import hinge, hinge_lp


def _blocks(rng, n_blocks, p=4):
    out = []
    for _ in range(n_blocks):
        n = int(rng.integers(5, 12))
        X = rng.normal(size=(n, p))
        y = np.where(X @ rng.normal(size=p) + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
        y[:2] = [1.0, -1.0]
        out.append((X, y))
    return out


def _certificate_gap(lp, w_bar, objective, constraints):
    """Largest violation of primal feasibility, dual feasibility, stationarity and strong duality of the
    returned primal/dual pair (the LP's optimality certificate, independent of any solver)."""
    blocks = [objective, *((c[0], c[1]) for c in constraints)]
    viol = [max(0.0, np.max(np.abs(lp.w) - w_bar))]
    for (X, y, rhs) in constraints:
        viol.append(max(0.0, hinge(X, y, lp.w, lp.b).mean() - rhs))
    viol.append(abs(hinge(*objective, lp.w, lp.b).mean() - lp.value))
    caps = [1.0 / len(objective[1])] + [u / len(c[1]) for u, c in zip(lp.budget_duals, constraints)]
    grad_w = np.zeros_like(w_bar)
    grad_b = 0.0
    dual_obj = 0.0
    for (X, y), beta, cap in zip(blocks, lp.hinge_duals, caps):
        viol += [max(0.0, -beta.min()), max(0.0, (beta - cap).max())]
        grad_w += (beta * y) @ X
        grad_b += beta @ y
        dual_obj += beta.sum()
    viol += [max(0.0, -lp.budget_duals.min(), -lp.mu_plus.min(), -lp.mu_minus.min()) if len(lp.budget_duals)
             else max(0.0, -lp.mu_plus.min(), -lp.mu_minus.min())]
    viol.append(np.max(np.abs(grad_w - lp.mu_plus + lp.mu_minus)))
    viol.append(abs(grad_b))
    dual_obj -= sum(u * c[2] for u, c in zip(lp.budget_duals, constraints)) + w_bar @ (lp.mu_plus + lp.mu_minus)
    viol.append(abs(dual_obj - lp.value))
    return max(viol)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("n_constraints", [0, 1, 2])
def test_matches_scipy_and_is_certified(seed, n_constraints):
    rng = np.random.default_rng(seed)
    blocks = _blocks(rng, 1 + n_constraints)
    w_bar = rng.uniform(0.05, 1.0, size=4)
    # Budgets a little above the losses of one box-feasible hyperplane (w0, b0): jointly feasible.
    w0, b0 = w_bar * rng.uniform(-1, 1, size=4), rng.normal()
    constraints = [(X, y, hinge(X, y, w0, b0).mean() + rng.uniform(0.0, 0.2)) for X, y in blocks[1:]]
    fast = hinge_lp_highs(w_bar, blocks[0], constraints)
    ref = hinge_lp(w_bar, blocks[0], constraints)
    assert fast.value == pytest.approx(ref.value, abs=1e-8)
    assert _certificate_gap(fast, w_bar, blocks[0], constraints) < 1e-7
    # bilevel.hinge_lp's own duals (public, converted from scipy's marginals) were never checked: a sign slip in
    # mu_plus (a mutant of bilevel.inner) passed every test file.
    assert _certificate_gap(ref, w_bar, blocks[0], constraints) < 1e-7
    assert [len(d) for d in fast.hinge_duals] == [len(d) for d in ref.hinge_duals]


def test_infeasible_budget_raises():
    rng = np.random.default_rng(0)
    (X, y), (Xc, yc) = _blocks(rng, 2)
    w_bar = np.full(4, 0.1)
    least = hinge_lp(w_bar, (Xc, yc)).value
    with pytest.raises(SolverError, match="hinge LP"):
        hinge_lp_highs(w_bar, (X, y), [(Xc, yc, least - 0.05)])


def _fresh(w_bar, objective, constraints=()):
    """The LP on a HiGHS object of its own: the cache emptied first."""
    hinge_highs._LOCAL.lps = OrderedDict()
    return hinge_lp_highs(w_bar, objective, constraints)


def _same(a, b) -> bool:
    return (a.value == b.value and np.array_equal(a.w, b.w) and a.b == b.b
            and all(np.array_equal(x, y) for x, y in zip(a.hinge_duals, b.hinge_duals))
            and np.array_equal(a.budget_duals, b.budget_duals) and np.array_equal(a.mu_plus, b.mu_plus)
            and np.array_equal(a.mu_minus, b.mu_minus))


def test_cached_lp_with_new_boxes_and_budgets_answers_as_a_fresh_one():
    """The second and later calls on the same data re-use a loaded HiGHS object (new bounds, solver state
    cleared). Their answers must be those of a fresh object, bit for bit, whatever came before: other
    boxes, other budgets, an infeasible budget, another data set. And they must still solve the LP
    (scipy's value)."""
    rng = np.random.default_rng(5)
    (X, y), (Xc, yc), (Xo, yo) = _blocks(rng, 3)
    calls = []
    for k in range(40):
        w_bar = rng.uniform(0.0, 1.0, size=4) * rng.choice([0.1, 1.0, 3.0])
        if k % 5 == 0:
            w_bar[rng.integers(4)] = 0.0
        least = hinge_lp(w_bar, (Xc, yc)).value
        calls += [(w_bar, (Xc, yc), ()), (w_bar, (X, y), [(Xc, yc, least * rng.choice([1.0, 1.3]) + 1e-9)]),
                  (w_bar, (X, y), [(Xc, yc, least - 0.05)]), (w_bar, (Xo, yo), ())]
    hinge_highs._LOCAL.lps = OrderedDict()
    n_checked = 0
    for w_bar, objective, constraints in calls:
        infeasible = bool(constraints) and constraints[0][2] < hinge_lp(w_bar, constraints[0][:2]).value - 1e-12
        if infeasible:
            with pytest.raises(SolverError, match="hinge LP"):
                hinge_lp_highs(w_bar, objective, constraints)
            continue
        cached = hinge_lp_highs(w_bar, objective, constraints)
        assert cached.value == pytest.approx(hinge_lp(w_bar, objective, constraints).value, abs=1e-8)
        lps = hinge_highs._LOCAL.lps
        assert _same(cached, _fresh(w_bar, objective, constraints))
        hinge_highs._LOCAL.lps = lps  # keep the cache history of the sequence
        n_checked += 1
    assert n_checked >= 100


def test_each_thread_has_its_own_loaded_lps():
    """HiGHS objects are not thread-safe: two threads solving the same data at once (as raced MILP runs
    searching boxes do) must each get the right answer."""
    rng = np.random.default_rng(8)
    (X, y), = _blocks(rng, 1)
    boxes = [rng.uniform(0.0, 1.0, size=4) for _ in range(60)]
    expected = [hinge_lp(w, (X, y)).value for w in boxes]
    results = {}

    def work(k):
        results[k] = [hinge_lp_highs(w, (X, y)).value for w in boxes]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2):
        assert results[k] == pytest.approx(expected, abs=1e-8)


@pytest.mark.parametrize("bad", ["nan box", "nan budget", "-inf budget"])
def test_bounds_highs_rejects_raise_on_a_cached_lp_as_on_a_fresh_one(bad):
    """A box or budget HiGHS rejects left the cached object's previous bounds in place: the call solved the
    previous LP again and returned its answer (start_at at a NaN box gave the start of the box before it)."""
    rng = np.random.default_rng(3)
    (X, y), (Xc, yc) = _blocks(rng, 2)
    w_bar, rhs = np.full(4, 0.5), hinge_lp(np.full(4, 0.5), (Xc, yc)).value + 0.1
    if bad == "nan box":
        args = (np.array([np.nan, 0.5, 0.5, 0.5]), (X, y), [(Xc, yc, rhs)])
    else:
        args = (w_bar, (X, y), [(Xc, yc, np.nan if bad == "nan budget" else -np.inf)])
    with pytest.raises(SolverError, match="hinge LP"):
        _fresh(*args)
    hinge_lp_highs(w_bar, (X, y), [(Xc, yc, rhs)])  # loads and caches the LP of these data
    with pytest.raises(SolverError, match="hinge LP"):
        hinge_lp_highs(*args)
    # the cached object still answers valid calls as scipy does
    assert hinge_lp_highs(w_bar, (X, y), [(Xc, yc, rhs)]).value == pytest.approx(
        hinge_lp(w_bar, (X, y), [(Xc, yc, rhs)]).value, abs=1e-8)


def test_a_box_of_another_length_is_an_input_error():
    """A cached LP changed the bounds of the first len(w_bar) columns only and read b from a w column."""
    rng = np.random.default_rng(4)
    (X, y), = _blocks(rng, 1)
    hinge_lp_highs(np.full(4, 0.5), (X, y))
    for w_bar in (np.full(3, 0.5), np.full(5, 0.5), np.full((4, 1), 0.5)):
        with pytest.raises(InputError, match="w_bar"):
            hinge_lp_highs(w_bar, (X, y))
        with pytest.raises(InputError):
            hinge_lp(w_bar, (X, y))  # the scipy path refuses it too


def test_fixed_weights_are_held_at_their_values():
    """``fixed`` holds w_j at its value (both bounds; mutation testing: only the lower bound set passed, the LP then
    moving w_j up to its free optimum). Oracle: scipy's linprog with w_j's bounds (value, value)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(5)
    Xt = rng.standard_normal((30, 4))
    yt = np.where(Xt[:, 0] + 0.5 * rng.standard_normal(30) > 0, 1.0, -1.0)
    w_bar, n = np.ones(4), len(yt)
    free = hinge_lp_highs(w_bar, (Xt, yt))
    A = np.hstack([-yt[:, None] * Xt, yt[:, None], -np.eye(n)])
    for j in range(4):
        fixed = np.full(4, np.nan)
        fixed[j] = -0.9 * (np.sign(free.w[j]) or 1.0)  # far from the free optimum
        res = hinge_lp_highs(w_bar, (Xt, yt), fixed=fixed)
        bounds = [(-1.0, 1.0)] * 4 + [(None, None)] + [(0.0, None)] * n
        bounds[j] = (fixed[j], fixed[j])
        ref = linprog(np.r_[np.zeros(5), np.full(n, 1.0 / n)], A_ub=A, b_ub=-np.ones(n), bounds=bounds,
                      method="highs")
        assert res.w[j] == fixed[j]
        assert res.value == pytest.approx(ref.fun, rel=1e-7, abs=1e-9)
        assert res.value > free.value + 1e-3  # the fixing bites


@pytest.mark.parametrize("solve", [hinge_lp, hinge_lp_highs])
def test_relaxed_hinge_lp_takes_the_first_slack_that_works_and_raises_when_none_does(solve):
    """relaxed_hinge_lp raises the last slack's SolverError when every slack leaves the budget below the least loss
    (mutation testing: returning None instead passed, and its callers then failed unpacking None); else it
    returns the first slack whose LP is feasible, with the raised budget."""
    from bilevel.inner import relaxed_hinge_lp

    rng = np.random.default_rng(8)
    Xt = rng.standard_normal((12, 2))
    yt = np.where(Xt[:, 0] + rng.standard_normal(12) > 0, 1.0, -1.0)
    w_bar = np.ones(2)
    least = hinge_lp(w_bar, (Xt, yt)).value
    assert least > 0.05
    with pytest.raises(SolverError):
        relaxed_hinge_lp(w_bar, (Xt, yt), [(Xt, yt, least - 0.01)], (1e-9, 1e-6), solve=solve)
    res, budget = relaxed_hinge_lp(w_bar, (Xt, yt), [(Xt, yt, least - 1e-3)], (1e-9, 1e-4, 2e-3), solve=solve)
    assert budget == least - 1e-3 + 2e-3
    assert res.value == pytest.approx(least, rel=1e-7)
