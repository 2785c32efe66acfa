"""`Sequence`, `set_random_seed`, `plot_model`/`model_to_dot` without pydot, re-exports."""

from __future__ import annotations

import random
import sys
import types

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.saving import object_registration
from tfcompat.keras.utils import vis_utils

U = tf.keras.utils


class Squares(U.Sequence):
    def __init__(self, n, batch):
        self.x = np.arange(n)
        self.batch = batch
        self.epochs = 0

    def __len__(self):
        return -(-len(self.x) // self.batch)

    def __getitem__(self, i):
        return self.x[i * self.batch:(i + 1) * self.batch] ** 2

    def on_epoch_end(self):
        self.epochs += 1


def test_sequence_iterates_its_batches():
    seq = Squares(5, 2)
    assert len(seq) == 3
    assert [b.tolist() for b in seq] == [[0, 1], [4, 9], [16]]
    assert [b.tolist() for b in seq] == [[0, 1], [4, 9], [16]]  # iterable again
    seq.on_epoch_end()
    assert seq.epochs == 1


def test_sequence_base_methods():
    base = U.Sequence()  # not abstract in tf_keras either
    with pytest.raises(NotImplementedError):
        len(base)
    with pytest.raises(NotImplementedError):
        base[0]
    assert base.on_epoch_end() is None


def _draws():
    return (random.random(), np.random.rand(), tf.random.uniform([3]).numpy().tolist(),
            tf.random.normal([2], seed=4).numpy().tolist(), torch.rand(2).tolist())


def test_set_random_seed_makes_every_source_repeat():
    U.set_random_seed(1234)
    first = _draws()
    U.set_random_seed(1234)
    assert _draws() == first
    U.set_random_seed(99)
    assert _draws() != first
    tf.random.set_seed(None)


def test_set_random_seed_seeds_torch_too():
    U.set_random_seed(7)
    a = torch.rand(3)
    torch.manual_seed(7)
    assert torch.equal(a, torch.rand(3))
    tf.random.set_seed(None)


@pytest.mark.parametrize("seed", [1.5, "3", None])
def test_set_random_seed_rejects_non_integers(seed):
    with pytest.raises(ValueError, match=r"^Expected `seed` argument to be an integer. "
                                         rf"Received: seed={seed} \(of type {type(seed)}\)$"):
        U.set_random_seed(seed)


class _Model:
    def __init__(self, built):
        self.built = built


def test_plot_model_and_model_to_dot_without_pydot(monkeypatch):
    monkeypatch.setattr(vis_utils, "_pydot", lambda: None)
    with pytest.raises(ImportError, match=r"^You must install pydot \(`pip install pydot`\) for "
                                          r"model_to_dot to work\.$"):
        U.model_to_dot(_Model(True))
    with pytest.raises(ImportError, match=r"^You must install pydot \(`pip install pydot`\) and "
                                          r"install graphviz \(see instructions at "
                                          r"https://graphviz.gitlab.io/download/\) for plot_model "
                                          r"to work\.$"):
        U.plot_model(_Model(True))
    with pytest.raises(ValueError, match="^This model has not yet been built. Build the model "
                                         "first by calling `build\\(\\)` or by calling the model "
                                         "on a batch of data.$"):
        U.plot_model(_Model(False))


def test_plot_model_without_graphviz(monkeypatch):
    def no_dot(_graph):
        raise FileNotFoundError("dot")

    fake = types.SimpleNamespace(Dot=type("Dot", (), {"create": staticmethod(no_dot)}))
    monkeypatch.setattr(vis_utils, "_pydot", lambda: fake)
    with pytest.raises(ImportError, match="install graphviz"):
        U.plot_model(_Model(True))
    monkeypatch.setitem(sys.modules, "IPython.core.magics.namespace", types.ModuleType("x"))
    assert U.plot_model(_Model(True)) is None  # notebooks get a message, not a crash


def test_registry_is_re_exported():
    for name in ("register_keras_serializable", "custom_object_scope", "CustomObjectScope",
                 "get_custom_objects", "get_registered_name", "get_registered_object"):
        assert getattr(U, name) is getattr(object_registration, name)
