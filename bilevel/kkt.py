"""Big-M linearisation of one family of complementarity pairs ``0 <= p_i  _|_  q_i >= 0``.

``p_i q_i = 0`` with ``p_i, q_i >= 0`` becomes, with a binary ``z_i``: ``p_i <= M^p_i z_i`` and
``q_i <= M^q_i (1 - z_i)`` (Section 4.2 of the pessimistic bilevel tuning paper, after Eq. (25)).
Non-negativity of ``p`` and ``q`` is stated by the caller (variable bounds or primal rows).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pyomo.environ as pyo


def add_complementarity(
    model: pyo.ConcreteModel,
    name: str,
    index,
    p: Callable[[int], object],
    p_big_m,
    q: Callable[[int], object],
    q_big_m,
    shared_p: tuple = (),
) -> None:
    """Add ``z_<name>[i]`` (binary), ``cs_<name>_p[i]: p(i) <= M^p_i z_i`` and
    ``cs_<name>_q[i]: q(i) <= M^q_i (1 - z_i)`` to ``model`` for every ``i`` in ``index``.

    ``p_big_m`` and ``q_big_m`` are scalars or arrays aligned with the order of ``index`` (valid upper
    bounds of ``p(i)`` and ``q(i)``, see :mod:`bilevel.bigm`). ``shared_p`` lists further ``(p2, M2)``
    pairs complementary to the *same* ``q``: they share the binary (``cs_<name>_p2[i]: p2(i) <= M2_i z_i``,
    ...). Sharing is exact: ``q_i > 0`` forces every ``p`` to zero, whichever multiplier it belongs to.
    The linearisation of Section 4.2 of the pessimistic bilevel tuning paper (after Eq. (25)). Raises
    ValueError (numpy's) when a big-M array's length differs from ``index``'s; Pyomo raises when a component
    named ``z_<name>`` or ``cs_<name>_*`` already exists."""
    idx = list(index)

    def per_index(values):
        return dict(zip(idx, np.broadcast_to(np.asarray(values, dtype=float), (len(idx),)).tolist()))

    mq = per_index(q_big_m)
    z = pyo.Var(idx, domain=pyo.Binary)
    model.add_component(f"z_{name}", z)
    for k, (pk, mk) in enumerate([(p, p_big_m), *shared_p]):
        mpk = per_index(mk)
        model.add_component(
            f"cs_{name}_p{k + 1 if k else ''}",
            pyo.Constraint(idx, rule=lambda m, i, pk=pk, mpk=mpk: pk(i) <= mpk[i] * z[i]),
        )
    model.add_component(f"cs_{name}_q", pyo.Constraint(idx, rule=lambda m, i: q(i) <= mq[i] * (1 - z[i])))
