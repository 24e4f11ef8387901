"""`pytest --highs-seed N` reaches subprocesses (tests/highs_seed.py): a child process started with its
environment gives every HiGHS run it configures, raced runs included, the seed; without it, HiGHS's 0."""
import json
import os
import subprocess
import sys

import highs_seed

CHILD = """
import json
import pyomo.environ as pyo
import bilevel.solve as solve

seen = []
configured = solve._configured_highs  # the seeded wrapper when the seed reached this process

def spy(cm, opts, *args, **kwargs):
    h = configured(cm, opts, *args, **kwargs)
    value = h.getOptionValue("random_seed")  # (status, value) on some highspy releases
    seen.append(int(value[1] if isinstance(value, tuple) else value))
    return h

solve._configured_highs = spy
m = pyo.ConcreteModel()
m.x = pyo.Var(range(3), domain=pyo.Binary)
m.c = pyo.Constraint(expr=m.x[0] + m.x[1] + m.x[2] <= 2)
m.o = pyo.Objective(expr=-(m.x[0] + 2 * m.x[1] + 3 * m.x[2]))
plain = solve.solve_model(m)
raced = solve.solve_model(m, race=2)
print(json.dumps({"seeds": seen, "objectives": [plain.objective, raced.objective]}))
"""


def _child(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_seed_reaches_a_subprocess_and_its_race(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in (highs_seed.ENV, "PYTHONPATH")}
    plain = _child(env)
    assert plain["seeds"][0] == 0 and sorted(plain["seeds"][1:]) == [0, 1]  # HiGHS's default, race 0, 1
    folder = highs_seed.subprocess_dir(tmp_path / "site")
    seeded = _child({**env, highs_seed.ENV: "7", "PYTHONPATH": str(folder)})
    assert seeded["seeds"][0] == 7 and sorted(seeded["seeds"][1:]) == [7, 8]
    assert plain["objectives"] == seeded["objectives"] == [-5.0, -5.0]  # the same optimum on both paths


def test_the_recorded_seed_is_the_one_highs_ran_with(monkeypatch):
    """``pytest --highs-seed N`` puts the seed under :func:`bilevel.solve_model` (tests/highs_seed.py): a plain run
    (race=1) recorded HiGHS's default 0 in ``SolveInfo.random_seed`` and ``TuneResult.random_seed`` while HiGHS ran
    with N. The oracle: the seed each configured HiGHS holds, read back through a spy."""
    import numpy as np

    import bilevel
    import bilevel.solve as solve

    for name, function in highs_seed.seeded(solve, 7).items():
        monkeypatch.setattr(solve, name, function)
    held = highs_seed.spy_held_seeds(monkeypatch, solve)
    X_t, y_t = np.array([[-1.0], [1.0], [0.5]]), np.array([-1.0, 1.0, 1.0])
    X_v, y_v = np.array([[-2.0], [2.0]]), np.array([-1.0, 1.0])
    model = bilevel.build_optimistic_model(X_t, y_t, X_v, y_v)
    info = solve.solve_model(model)
    assert held == [7] and info.random_seed == 7
    held.clear()
    result = bilevel.tune(X_t, y_t, X_v, y_v, "optimistic", warm_start=False)
    assert held and set(held) == {7} and result.random_seed == 7
