"""Entering and leaving strategies: `Strategy.scope()` and `tf.distribute.experimental_set_strategy`.

TF 2.21's rules (checked against TensorFlow, `OneDeviceStrategy`):

* `experimental_set_strategy(s)` enters `s.scope()` for the rest of the
  thread's program: `get_strategy()` is `s`, in cross-replica context.
  Setting another strategy (or None) leaves the previous one first; calling
  it inside a strategy's scope or `run` is `RuntimeError("Must not be called
  inside a `tf.distribute.Strategy` scope.")`. Other threads do not see it.
* Entering a strategy's scope inside a different strategy's is
  `RuntimeError("Mixing different tf.distribute.Strategy objects: {current}
  is not {new}")`; inside its own `run` it is `RuntimeError("Method requires
  being in cross-replica context, use get_replica_context().merge_call()")`;
  the default strategy's scope inside another's is `RuntimeError("Must not
  nest tf.distribute.Strategy scopes.")`. Re-entering the current strategy's
  scope is fine.

(These test `tfcompat/distribute`; they live here, beside the optimizer's
strategy seam, until the package has a tests/distribute of its own.)
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.distribute import distribute_lib

from optimizer_info import to_numpy

SET_INSIDE = "Must not be called inside a `tf.distribute.Strategy` scope."
CROSS_REPLICA_ONLY = "Method requires being in cross-replica context, use get_replica_context().merge_call()"
NESTED_DEFAULT = "Must not nest tf.distribute.Strategy scopes."


class Named(tf.distribute.Strategy):
    def __init__(self, name):
        super().__init__()
        self.name = name

    def __repr__(self):
        return f"<Named {self.name}>"


class Creating(Named):
    """A strategy whose scope pushes a variable creator (as mirrored strategies do)."""

    def __init__(self, name):
        super().__init__(name)
        self.created = []

    def _creator_scope(self):
        def creator(next_creator, **kwargs):
            self.created.append(kwargs.get("name"))
            return next_creator(**kwargs)
        return tf.variable_creator_scope(creator)


@pytest.fixture(autouse=True)
def _no_global_strategy():
    yield
    tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    assert distribute_lib._contexts.stack == []


def test_set_strategy_enters_its_scope_until_replaced_or_cleared():
    a, b = Named("a"), Named("b")
    tf.distribute.experimental_set_strategy(a)
    assert tf.distribute.get_strategy() is a
    assert tf.distribute.has_strategy()
    assert tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_replica_context() is None
    tf.distribute.experimental_set_strategy(b)  # replaces a
    assert tf.distribute.get_strategy() is b
    tf.distribute.experimental_set_strategy(None)
    assert not tf.distribute.has_strategy()
    assert not tf.distribute.in_cross_replica_context()
    tf.distribute.experimental_set_strategy(None)  # nothing set: fine


def test_set_strategy_allows_its_own_scope_and_run():
    a = Named("a")
    tf.distribute.experimental_set_strategy(a)
    with a.scope():
        assert tf.distribute.get_strategy() is a
    assert tf.distribute.get_strategy() is a
    assert a.run(lambda: (tf.distribute.in_cross_replica_context(),
                          tf.distribute.get_replica_context() is not None)) == (False, True)
    assert tf.distribute.in_cross_replica_context()


def test_set_strategy_inside_a_scope_or_run_is_an_error():
    a, b = Named("a"), Named("b")
    with a.scope():
        with pytest.raises(RuntimeError) as err:
            tf.distribute.experimental_set_strategy(b)
        assert str(err.value) == SET_INSIDE
        with pytest.raises(RuntimeError):
            tf.distribute.experimental_set_strategy(None)
        assert tf.distribute.get_strategy() is a
    assert not tf.distribute.has_strategy()

    def inside_run():
        with pytest.raises(RuntimeError) as err:
            tf.distribute.experimental_set_strategy(b)
        return str(err.value)

    assert a.run(inside_run) == SET_INSIDE


def test_set_strategy_goes_through_the_strategys_creator_scope():
    a = Creating("a")
    tf.distribute.experimental_set_strategy(a)
    tf.Variable(1.0, name="inside")
    tf.distribute.experimental_set_strategy(None)
    tf.Variable(1.0, name="outside")
    assert a.created == ["inside"]


def test_set_strategy_is_per_thread():
    a = Named("a")
    tf.distribute.experimental_set_strategy(a)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(tf.distribute.has_strategy()))
    worker.start()
    worker.join()
    assert seen == [False]
    assert tf.distribute.get_strategy() is a


def test_optimizer_made_under_a_set_strategy_uses_it():
    a = Named("a")
    tf.distribute.experimental_set_strategy(a)
    opt = tf.keras.optimizers.SGD(0.5)
    v = tf.Variable([1.0, 2.0])
    assert opt._distribution_strategy is a
    a.run(lambda: opt.apply_gradients([(torch.ones(2), v)]))
    np.testing.assert_array_equal(to_numpy(v), [0.5, 1.5])


def test_mixing_strategies_is_tfs_runtime_error():
    a, b = Named("a"), Named("b")
    with a.scope():
        with pytest.raises(RuntimeError) as err:
            with b.scope():
                pass
        assert str(err.value) == "Mixing different tf.distribute.Strategy objects: <Named a> is not <Named b>"
        assert tf.distribute.get_strategy() is a
        with a.scope():  # the same strategy again is fine
            assert tf.distribute.get_strategy() is a
    tf.distribute.experimental_set_strategy(b)
    with pytest.raises(RuntimeError) as err:
        with a.scope():
            pass
    assert str(err.value) == "Mixing different tf.distribute.Strategy objects: <Named b> is not <Named a>"


def test_scope_inside_its_own_run_is_an_error():
    a = Named("a")

    def inside_run():
        with pytest.raises(RuntimeError) as err:
            with a.scope():
                pass
        return str(err.value), tf.distribute.in_cross_replica_context()

    assert a.run(inside_run) == (CROSS_REPLICA_ONLY, False)


def test_default_strategy_scope_nests_only_outside_strategies():
    default = tf.distribute.get_strategy()
    a = Named("a")
    with default.scope():
        with a.scope():  # a strategy inside the default one's scope is fine
            assert tf.distribute.get_strategy() is a
    with a.scope():
        with pytest.raises(RuntimeError) as err:
            with default.scope():
                pass
        assert str(err.value) == NESTED_DEFAULT
