"""Slots are keyed by the distributed container of a variable (TF's `_var_key`).

A strategy's per-replica component answers `_distributed_container()` with
its container (TF: a weak reference), and the optimizer keys the slots by
the container's `_unique_id`, so every component of one distributed
variable finds the same slots, and the container itself does too. The key
must not depend on the container's value: `bool()` of a variable reads it
(and fails for a non-scalar one).
"""

from __future__ import annotations

import weakref

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.optimizers.weights import var_key

from optimizer_info import OPTIMIZER_INFOS, build, to_numpy

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]


class Container(tf.Variable):
    """A minimal distributed variable: it holds its components and updates each of them.

    It follows the `_distributed_container` protocol: every component's
    `_distributed_container()` returns it.
    """

    def __init__(self, components, name="container"):
        self._components = tuple(components)
        self._container_name = name
        for c in components:
            c._distributed_container = weakref.ref(self)

    name = property(lambda self: f"{self._container_name}:0")
    dtype = property(lambda self: self._components[0].dtype)
    shape = property(lambda self: self._components[0].shape)
    device = property(lambda self: self._components[0].device)
    trainable = property(lambda self: True)
    constraint = property(lambda self: None)
    _unique_id = property(lambda self: f"{self._container_name}_uid")

    def value(self):
        return self._components[0].value()

    read_value = value

    def _update_components(self):
        return self._components

    def assign(self, value, use_locking=None, name=None, read_value=True):
        for c in self._components:
            c.assign(value)
        return self

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        for c in self._components:
            c.assign_add(delta)
        return self

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        for c in self._components:
            c.assign_sub(delta)
        return self


def _container(value, name="container"):
    parts = [tf.Variable(np.array(value, np.float32), name=f"{name}/replica_{i}") for i in range(2)]
    return Container(parts, name), parts


@pytest.mark.parametrize("value", [0.0, 1.0, [0.0, 1.0], [[1.0, 2.0], [3.0, 4.0]]],
                         ids=["scalar_zero", "scalar_one", "vector", "matrix"])
def test_components_and_container_share_one_key_whatever_the_value(value):
    container, parts = _container(value)
    assert var_key(container) == "container_uid"
    for part in parts:
        assert var_key(part) == "container_uid"
    plain = tf.Variable(np.array(value, np.float32), name="plain")
    assert var_key(plain) == plain._unique_id
    # a component whose container is gone keys by itself
    orphan = tf.Variable(1.0, name="orphan")
    orphan._distributed_container = lambda: None
    assert var_key(orphan) == orphan._unique_id


@pytest.mark.parametrize("multi", (True, False), ids=("multi_tensor", "reference"))
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_apply_gradients_to_components_uses_the_containers_slots(info, multi):
    """Updating a non-scalar container's components (what a strategy's update does per
    replica) creates one set of slots, the container's, and both components' steps use it."""
    container, parts = _container([[1.0, -2.0], [0.5, 3.0]])
    opt = build(info, info.typical_kwargs(), multi_tensor=multi)
    grad = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    opt.apply_gradients([(grad, parts[0])])
    names = opt.get_slot_names()
    assert sorted(opt._slots) == (["container_uid"] if names else [])
    for name in names:
        slot = opt.get_slot(parts[0], name)
        assert opt.get_slot(parts[1], name) is slot
        assert opt.get_slot(container, name) is slot
        assert slot.name == f"{info.name}/container/replica_0/{name}:0"  # after the first one seen
    # a scalar container valued 0.0 or 1.0 keys the same way
    for value in (0.0, 1.0):
        scalar, scalar_parts = _container(value, name=f"scalar_{value}")
        opt.apply_gradients([(torch.tensor(0.5), scalar_parts[0])])
        for name in names:
            assert opt.get_slot(scalar, name) is opt.get_slot(scalar_parts[1], name)


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_a_container_without_storage_takes_the_per_variable_path(info):
    """A variable with no storage cell of its own (`_storage()` is None) is updated through its
    own `assign*` methods (which fan out to the components), with the container's slots."""
    container, parts = _container([1.0, -2.0, 3.0])
    twin = tf.Variable(np.array([1.0, -2.0, 3.0], np.float32), name="twin")
    opt = build(info, info.typical_kwargs())
    ref = build(info, info.typical_kwargs())
    for step in range(3):
        grad = torch.tensor([0.5, -0.25, 1.0]) * (step + 1)
        opt.apply_gradients([(grad, container)])
        ref.apply_gradients([(grad, twin)])
    for part in parts:
        np.testing.assert_allclose(to_numpy(part), to_numpy(twin), rtol=1e-6, atol=1e-7)
    assert sorted(opt._slots) == (["container_uid"] if opt.get_slot_names() else [])
