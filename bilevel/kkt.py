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
) -> None:
    """Add ``z_<name>[i]`` (binary), ``cs_<name>_p[i]: p(i) <= M^p_i z_i`` and
    ``cs_<name>_q[i]: q(i) <= M^q_i (1 - z_i)`` to ``model`` for every ``i`` in ``index``.

    ``p_big_m`` and ``q_big_m`` are scalars or arrays aligned with the order of ``index`` (valid upper
    bounds of ``p(i)`` and ``q(i)``, see :mod:`bilevel.bigm`)."""
    idx = list(index)
    mp = dict(zip(idx, np.broadcast_to(np.asarray(p_big_m, dtype=float), (len(idx),)).tolist()))
    mq = dict(zip(idx, np.broadcast_to(np.asarray(q_big_m, dtype=float), (len(idx),)).tolist()))
    z = pyo.Var(idx, domain=pyo.Binary)
    model.add_component(f"z_{name}", z)
    model.add_component(f"cs_{name}_p", pyo.Constraint(idx, rule=lambda m, i: p(i) <= mp[i] * z[i]))
    model.add_component(f"cs_{name}_q", pyo.Constraint(idx, rule=lambda m, i: q(i) <= mq[i] * (1 - z[i])))
