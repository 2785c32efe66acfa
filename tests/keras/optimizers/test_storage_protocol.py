"""The optimizer reaches variables only through the storage protocol.

`protocol.storage(var)` (`Variable._storage()`) gives a variable's storage
cell, or None; the multi-tensor path updates a cell's live tensor in place,
holding the cell's lock (one lock per device: one acquisition per
(device, dtype) group). So:

* any `tf.Variable` implementation with a storage cell takes the fast path,
  not only `ResourceVariable` (nothing looks for `_resource`);
* a variable without one is updated through its `assign*` methods;
* the lock is held around every in-place kernel, once per group, and a
  writer holding it keeps the step waiting.
"""

from __future__ import annotations

import ast
import pathlib
import threading
import time

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import dtypes
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.keras import optimizers as keras_optimizers
from tfcompat.variables.resource import Resource

from optimizer_info import OPTIMIZER_INFOS, build, count_multi_tensor_calls, to_numpy

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]


class CellVariable(tf.Variable):
    """A `tf.Variable` implementation of its own (not a ResourceVariable) that keeps its value
    in a storage cell and exposes it through the protocol."""

    def __init__(self, value, name):
        t = torch.as_tensor(value).clone()
        self._cell = Resource(t, name)
        self._cell_name = name
        self._device_name = tf.Variable(0.0).device

    name = property(lambda self: f"{self._cell_name}:0")
    dtype = property(lambda self: dtypes.from_torch(self._cell.value.dtype))
    shape = property(lambda self: TensorShape(tuple(self._cell.value.shape)))
    device = property(lambda self: self._device_name)
    trainable = property(lambda self: True)
    constraint = property(lambda self: None)
    _unique_id = property(lambda self: self._cell.shared_name)

    def _storage(self):
        return self._cell

    def value(self):
        return self._cell.snapshot()

    read_value = value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        with self._cell.lock:
            self._cell.value.copy_(torch.as_tensor(value, dtype=self._cell.value.dtype))
        return self

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        with self._cell.lock:
            self._cell.value.add_(torch.as_tensor(delta, dtype=self._cell.value.dtype))
        return self

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        with self._cell.lock:
            self._cell.value.sub_(torch.as_tensor(delta, dtype=self._cell.value.dtype))
        return self


def _grads(k):
    return [torch.tensor([0.5, -1.0, 2.0]) * (k + 1), torch.tensor([[1.0, -0.5], [0.25, 2.0]]) / (k + 1)]


_INIT = [np.array([1.0, -2.0, 0.5], np.float32), np.array([[0.25, -1.0], [3.0, 0.125]], np.float32)]


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_any_variable_with_a_storage_cell_takes_the_multi_tensor_path(info, monkeypatch):
    calls = count_multi_tensor_calls(info, monkeypatch)
    opt = build(info, info.typical_kwargs())
    variables = [CellVariable(x, f"c{i}") for i, x in enumerate(_INIT)]
    assert not any(hasattr(v, "_resource") for v in variables)
    ref = build(info, info.typical_kwargs(), multi_tensor=False)
    ref_vars = [tf.Variable(x, name=f"r{i}") for i, x in enumerate(_INIT)]
    for k in range(3):
        opt.apply_gradients(zip(_grads(k), variables))
        ref.apply_gradients(zip(_grads(k), ref_vars))
    assert calls == [2, 2, 2]
    for x, y in zip(variables, ref_vars):
        np.testing.assert_allclose(to_numpy(x), to_numpy(y), rtol=1e-5, atol=1e-6)


class _CountingLock:
    """A re-entrant lock that counts its acquisitions (stand-in for a device's cell lock)."""

    def __init__(self):
        self._lock = threading.RLock()
        self.acquisitions = 0

    def acquire(self, *args):
        self.acquisitions += 1
        return self._lock.acquire(*args)

    def release(self):
        self._lock.release()

    __enter__ = acquire

    def __exit__(self, *exc):
        self.release()

    def held(self):
        return self._lock._is_owned()


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_the_device_lock_is_held_once_per_group_around_the_kernels(info, monkeypatch):
    opt = build(info, info.typical_kwargs())
    variables = [tf.Variable(x, name=f"v{i}") for i, x in enumerate(_INIT)]
    variables.append(tf.Variable(np.array([2.0, 4.0]), name="wide"))  # float64: a second group
    grads = lambda k: _grads(k) + [torch.tensor([1.0, -1.0], dtype=torch.float64)]  # noqa: E731
    opt.apply_gradients(zip(grads(0), variables))  # slots exist now; the next step plans afresh
    lock = _CountingLock()
    for v in variables:
        v._storage().lock = lock
        for slot in opt._slots_of(v).values():
            slot._storage().lock = lock
    opt._plans = type(opt._plans)()  # groups take their lock when planned
    held = []
    fast = info.cls._multi_tensor_apply_dense

    def spy(self, group, grads, coefficients):
        held.append(lock.held())
        return fast(self, group, grads, coefficients)

    monkeypatch.setattr(info.cls, "_multi_tensor_apply_dense", spy)
    monkeypatch.setattr(info.cls, "_multi_tensor_ok", True, raising=False)
    for k in (1, 2):
        lock.acquisitions = 0
        opt.apply_gradients(zip(grads(k), variables))
        assert lock.acquisitions == 2  # one per (device, dtype) group, none per variable
    assert held == [True, True, True, True]


def test_a_writer_holding_the_lock_keeps_the_step_waiting():
    v = tf.Variable(np.ones(3, np.float32))
    opt = keras_optimizers.Adam(0.1)
    opt.apply_gradients([(torch.ones(3), v)])
    before = v.numpy().copy()
    done = threading.Event()
    cell = v._storage()
    with cell.lock:
        worker = threading.Thread(target=lambda: (opt.apply_gradients([(torch.ones(3), v)]), done.set()))
        worker.start()
        time.sleep(0.2)
        assert not done.is_set()
        np.testing.assert_array_equal(cell.value.numpy(), before)  # nothing written meanwhile
    worker.join(5)
    assert done.is_set()
    assert not np.array_equal(v.numpy(), before)


def test_optimizer_sources_use_only_the_protocol():
    """No optimizer module reaches into ResourceVariable's private state or hands out live
    tensors: no `._resource`, `.exclusive()`, `aliased`, `must_copy` or `.handle` attribute."""
    forbidden = {"_resource", "exclusive", "aliased", "must_copy", "handle"}
    package = pathlib.Path(keras_optimizers.__file__).parent
    found = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in forbidden:
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert found == []
