"""The highspy hinge LP (used by the MIP starts) against scipy's linprog and LP duality."""
import numpy as np
import pytest

from bilevel.errors import SolverError
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
    assert [len(d) for d in fast.hinge_duals] == [len(d) for d in ref.hinge_duals]


def test_infeasible_budget_raises():
    rng = np.random.default_rng(0)
    (X, y), (Xc, yc) = _blocks(rng, 2)
    w_bar = np.full(4, 0.1)
    least = hinge_lp(w_bar, (Xc, yc)).value
    with pytest.raises(SolverError, match="hinge LP"):
        hinge_lp_highs(w_bar, (X, y), [(Xc, yc, least - 0.05)])
