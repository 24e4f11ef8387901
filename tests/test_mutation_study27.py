"""Mutation study 27 of the KKT + big-M formulations (bilevel/kkt.py, bilevel/optimistic.py, bilevel/pessimistic.py),
a second, counted pass after study 15: each test kills a mutant that passed the tests of those modules, against the
documented behaviour (the modules' docstrings, Eqs. (21) and (25) of the pessimistic bilevel tuning paper) and an
independent oracle (the hinge LPs of tests/oracles.py solved by scipy's linprog, the exact KKT-state enumeration of
tests/kkt_enumeration.py, the docstrings' closed forms written out by hand).
104 mutants (7 in kkt.py, 41 in optimistic.py, 56 in pessimistic.py), run against tests/test_input_errors.py,
test_mutation_study15.py, test_verify.py, test_bigm.py, test_export.py, test_lambda_max.py, test_warmstart.py,
test_milp_degenerate.py and test_milp_bruteforce.py (about 55 s a survivor; test_tune.py, 62 s, left out), the
survivors then against test_kkt_enumeration.py (180 s): 96 killed by existing tests (3 of them, the shared replica's
complementarity rows dropped, only by test_kkt_enumeration.py; a 1 s test here kills them too), 6 killed here (the
least-loss cuts relaxed or summed over |T| - 1 points, the replica's cut at (1 + epsilon) v*: speed only, but not the
documented rows; the objective cutoff row relaxed; the epsilon budget as an equality; the budget slack's big-M
halved), 2 equivalent (the shared complementarity rows with the follower's big-Ms, which equal or exceed the training
LP's and its duals' own bounds; the optimistic ``beta`` bound doubled, redundant with ``beta_i <= M z_i`` of its
margin complementarity, ``M = 1/|T|``). Both equivalents, and two more variants of the first (the shared rows of
``xi`` and ``mu+`` with the follower's big-Ms), were later run against test_tune.py too: all 60 of its tests pass."""
from __future__ import annotations

import numpy as np
import pytest
import pyomo.environ as pyo

import bilevel
from oracles import lp as oracle_lp, tiny_instance


def _instance(seed=0):
    return tiny_instance(seed, n_t=5, n_v=4, p=2)


def _body_at(model, row, xi_name, values):
    """The body of ``row`` with the variables ``xi_name`` set to ``values`` (everything else as built)."""
    var = model.component(xi_name)
    for i, value in enumerate(values):
        var[i].set_value(float(value))
    return pyo.value(row.body)


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_the_least_loss_cuts_are_the_mean_training_hinge_below_the_documented_least_loss(mode):
    """``add_least_loss_cut``: the row ``least_loss_cut_<xi>`` is ``(1/|T|) sum_i xi_i <= bound`` over *every*
    training point, with ``bound = (1 + epsilon) v*(w_bar_lb)`` for the follower (epsilon = 0 in the optimistic
    model) and ``v*(w_bar_lb)`` for a training-optimal replica (a training optimum: the epsilon = 0 case of the
    docstring). Mutation testing: the bound relaxed by 1e3 (the cut dropped, speed only), the sum over
    ``range(n_t - 1)`` (a weaker cut) and, in the pessimistic model, the replica's bound ``(1 + epsilon) v*`` all
    passed the suite. Oracle: ``v*(w_bar_lb)`` by scipy's linprog (tests/oracles.lp), the mean written out by hand."""
    Xt, yt, Xv, yv = _instance(3)
    lb, eps = 0.3, 0.25
    least = oracle_lp(np.full(2, lb), (Xt, yt))
    assert least > 0.05  # a cut that could be told from its relaxations
    if mode == "optimistic":
        model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, w_bar_bounds=(lb, 1.0))
        rows = {"xi": least}
    else:
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, [0, 1], epsilon=eps, w_bar_bounds=(lb, 1.0))
        rows = {"xi": (1 + eps) * least, "xi_hat": least}
    values = np.arange(1.0, len(yt) + 1.0) / 7.0
    for name, bound in rows.items():
        row = model.component(f"least_loss_cut_{name}")
        assert pyo.value(row.upper) == pytest.approx(bound, rel=1e-6, abs=1e-9)
        assert row.lower is None
        assert _body_at(model, row, name, values) == pytest.approx(values.mean(), rel=1e-12)


@pytest.mark.parametrize("mode", ["optimistic", "pessimistic"])
def test_no_point_of_a_model_with_a_cutoff_has_an_objective_above_it(mode):
    """``objective_cutoff = U``: "the model then keeps only the solutions with objective <= U (row
    ``objective_cutoff``)" (both builders' docstrings). Maximising the objective over the model must therefore give
    at most ``U``. Mutation testing: the row relaxed to ``<= U + 1e6`` passed the suite (the optimum stays; the
    tightened big-Ms alone do not keep the objective below U). Oracle: U itself, chosen above the exact optimum
    (tests/kkt_enumeration.py) so that the model is not empty."""
    from kkt_enumeration import optimistic_optimum, pessimistic_optimum

    Xt, yt, Xv, yv = tiny_instance(1, n_t=4, n_v=3, p=1)
    if mode == "optimistic":
        U = optimistic_optimum(Xt, yt, Xv, yv)[0] + 0.1
        model = bilevel.build_optimistic_model(Xt, yt, Xv, yv, objective_cutoff=U)
    else:
        U = pessimistic_optimum(Xt, yt, Xv, yv, np.array([0, 1]), 0.2)[0] + 0.1
        model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, [0, 1], epsilon=0.2, objective_cutoff=U)
    model.validation_hinge.sense = pyo.maximize
    info = bilevel.solve_model(model)
    assert info.status == "optimal"
    assert model.validation_hinge() <= U + 1e-7


def test_the_follower_may_use_less_training_loss_than_its_epsilon_budget():
    """The epsilon constraint of Eq. (24) is an inequality, ``(1/|T|) sum_i xi_i <= (1 + epsilon) (1/|T|) sum_i
    xi_hat_i`` (the module docstring; ``lambda`` is 0 when it is slack). With a large epsilon the follower's optimum
    at ``w_bar = ub`` leaves much of the budget unused, so the least ``mean xi - (1 + epsilon) mean xi_hat`` over the
    model is well below 0. Mutation testing: the row as an equality passed the suite (while ``lambda = 0`` the ``xi``
    are free above the hinges, so the optimum stays, but the follower's training loss no longer reads off ``xi``),
    and so did the big-M of the budget slack in ``lam``'s complementarity halved (its constant ``H = (1 + epsilon)
    v*(w_bar_lb)``, item 8 of bilevel.bigm and pessimistic_big_m, is the budget itself with a fixed box, and this
    follower leaves more than half of it unused). Oracle: scipy's linprog (tests/oracles.lp): ``v*(ub)``, the
    follower's flipped-label optimum ``phi`` within the budget, and the least training loss ``t`` among its optima;
    the model's least ``mean xi - budget`` is at most ``t - (1 + epsilon) v*(ub)``."""
    from oracles import TOL

    Xt, yt, Xv, yv = _instance(4)
    eps, flipped, ub = 4.0, np.array([0]), np.ones(2)
    Xf, yf = Xv[flipped], -yv[flipped]
    budget = (1 + eps) * oracle_lp(ub, (Xt, yt))
    phi = oracle_lp(ub, (Xf, yf), [(Xt, yt, budget)])
    t = oracle_lp(ub, (Xt, yt), [(Xt, yt, budget), (Xf, yf, phi + TOL)])
    assert t < 0.5 * budget - 0.05  # more than half the budget left over
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, epsilon=eps, w_bar_bounds=(ub, ub))
    n_t = len(yt)
    model.validation_hinge.deactivate()
    model.slack = pyo.Objective(expr=sum(model.xi[i] - (1 + eps) * model.xi_hat[i] for i in range(n_t)) / n_t)
    assert bilevel.solve_model(model).status == "optimal"
    assert model.slack() <= t - budget + 1e-6


def test_the_shared_replica_keeps_the_follower_training_optimal_at_epsilon_0():
    """With epsilon = 0 and a training-optimal replica the follower is its own replica: the training LP's KKT system
    (duals ``beta_hat``, ``mu_plus_hat``, ``mu_minus_hat``) lives on the follower's variables and *shares* its
    complementarity binaries (the builder's comment; kkt.add_complementarity's ``shared_p``: "Sharing is exact:
    ``q_i > 0`` forces every ``p`` to zero"). The MILP must reach the exact pessimistic optimum. Mutation testing:
    leaving ``beta_hat`` out of the margin complementarity (a point outside the margin may then carry a training
    dual, so the follower need not be training-optimal) passed the suite and returned 0.1989 for 0.2048 here.
    The same test kills the shared rows of ``M - beta_hat`` (hinge) and of ``mu_plus_hat`` (box) dropped, which
    also passed. Oracle: the KKT-state enumeration of tests/kkt_enumeration.py (scipy LPs, no big-M)."""
    from kkt_enumeration import pessimistic_optimum

    Xt, yt, Xv, yv = tiny_instance(2, n_t=5, n_v=4, p=2)
    flipped = np.arange(4)
    model = bilevel.build_pessimistic_model(Xt, yt, Xv, yv, flipped, epsilon=0.0)
    assert model.bilevel_info["shared_replica"]
    assert bilevel.solve_model(model).status == "optimal"
    exact = pessimistic_optimum(Xt, yt, Xv, yv, flipped, 0.0)[0]
    assert model.validation_hinge() == pytest.approx(exact, abs=1e-6)

