import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracles.py


def pytest_addoption(parser):
    parser.addoption(
        "--highs-seed", type=int, default=None,
        help="HiGHS random_seed for every MILP solve in the test process that does not set one (default: "
             "HiGHS's 0; a race of several runs gets this seed and the next ones instead of 0, 1, ...; "
             "subprocesses, e.g. the CLI's or the study's workers, keep 0). Another seed "
             "sends HiGHS down another search path, so it returns other tied optima and other node counts, as a "
             "slower or faster machine can through the package's elapsed-time triggers: a test that passes "
             "only on one path fails here deterministically instead of now and then in CI.")


@pytest.fixture(autouse=True)
def _highs_seed(request, monkeypatch):
    seed = request.config.getoption("--highs-seed")
    if seed is not None:
        import bilevel.solve as solve

        configured = solve._configured_highs

        def seeded(cm, opts, *args, **kwargs):
            return configured(cm, {"random_seed": seed, **opts}, *args, **kwargs)

        race = solve._race

        def seeded_race(cm, opts, *args, **kwargs):  # its runs take random_seed + 0, 1, ...
            return race(cm, {"random_seed": seed, **opts}, *args, **kwargs)

        monkeypatch.setattr(solve, "_configured_highs", seeded)
        monkeypatch.setattr(solve, "_race", seeded_race)
