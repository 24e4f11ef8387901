import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/oracles.py, tests/highs_seed.py
# solvers/ and experiments/ are folders of the repository, not part of the installed package
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import highs_seed  # noqa: E402

# The Ctrl-C tests (tests/test_highs_interrupt.py, tests/test_race.py) send SIGINT to this process or to a CLI
# subprocess. A shell without job control starts a background job (`make test &`, `nohup`) with SIGINT ignored;
# Python then installs no KeyboardInterrupt handler, its subprocesses inherit the ignore, and those tests failed
# ("DID NOT RAISE KeyboardInterrupt", exit 0 instead of 130) for how the suite was started, not for the code.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser):
    parser.addoption(
        "--highs-seed", type=int, default=None,
        help="HiGHS random_seed for every MILP solve that does not set one (default: HiGHS's 0; a race of "
             "several runs gets this seed and the next ones instead of 0, 1, ...), in the test process and in "
             "its subprocesses (the CLI's, the study's workers; tests/highs_seed.py). Another seed "
             "sends HiGHS down another search path, so it returns other tied optima and other node counts, as a "
             "slower or faster machine can through the package's elapsed-time triggers: a test that passes "
             "only on one path fails here deterministically instead of now and then in CI.")


def pytest_configure(config):
    seed = config.getoption("--highs-seed")
    if seed is not None:  # for subprocesses: they inherit the environment (tests/highs_seed.py)
        folder = highs_seed.subprocess_dir(Path(tempfile.mkdtemp(prefix="bilevel-highs-seed-")))
        config.highs_seed_dir = folder
        os.environ[highs_seed.ENV] = str(seed)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(folder)] + [p for p in [os.environ.get("PYTHONPATH")] if p])


def pytest_unconfigure(config):
    folder = getattr(config, "highs_seed_dir", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def _highs_seed(request, monkeypatch):
    seed = request.config.getoption("--highs-seed")
    if seed is not None:
        import bilevel.solve as solve

        for name, function in highs_seed.seeded(solve, seed).items():
            monkeypatch.setattr(solve, name, function)
