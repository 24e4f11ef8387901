"""The model builders, the compiler and the writer run with Python's cyclic collector paused
(bilevel/pause_gc.py) and leave its state as they found it, also when they raise."""
import gc

import numpy as np
import pytest

import bilevel
import bilevel.optimistic
import bilevel.pessimistic
from bilevel.errors import InputError
from bilevel.solve import compile_model


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=12) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return X[:6], y[:6], X[6:], y[6:]


@pytest.fixture
def gc_state():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


@pytest.mark.parametrize("module, build", [
    (bilevel.optimistic, lambda d: bilevel.build_optimistic_model(*d)),
    (bilevel.pessimistic, lambda d: bilevel.build_pessimistic_model(*d, flipped=np.arange(6), epsilon=0.1)),
])
def test_builders_pause_and_restore_the_collector(module, build, monkeypatch, gc_state):
    seen = []
    original = module.check_w_bar_bounds

    def recording(*args, **kwargs):
        seen.append(gc.isenabled())
        return original(*args, **kwargs)

    monkeypatch.setattr(module, "check_w_bar_bounds", recording)
    gc.enable()
    model = build(_data())
    assert seen and not any(seen)  # paused while building
    assert gc.isenabled()  # and re-enabled after
    compile_model(model)
    assert gc.isenabled()
    gc.disable()  # a caller that paused it itself keeps it paused
    build(_data())
    assert not gc.isenabled()


def test_collector_restored_when_a_builder_raises(gc_state):
    X_t, y_t, X_v, y_v = _data()
    gc.enable()
    with pytest.raises(InputError):
        bilevel.build_optimistic_model(X_t, np.ones(6), X_v, y_v)  # one class only
    assert gc.isenabled()


def test_writer_restores_the_collector(tmp_path, gc_state):
    gc.enable()
    model = bilevel.build_optimistic_model(*_data())
    bilevel.write_model(model, tmp_path / "m.mps")
    assert gc.isenabled() and (tmp_path / "m.mps").stat().st_size > 0
    with pytest.raises(InputError):
        bilevel.write_model(model, tmp_path / "m.txt")
    assert gc.isenabled()
