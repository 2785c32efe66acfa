"""tfcompat.train.to_state_dict / save_safetensors / load_adam_state.

The strongest check: the Keras Adam state TF saved, exported and loaded into a plain
`torch.optim.Adam`, continues TF's training and lands on TF's recorded weights."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.train import fixture_data as fx
from tests.train import tf2_program
from tfcompat.train import torch_export as te

OBJECT_DIR = str(fx.FIXTURES / "object_based")


@pytest.mark.parametrize("key, name", [
    ("model/layers/0/w/.ATTRIBUTES/VARIABLE_VALUE", "model.layers.0.w"),
    ("model/layers/0/w/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE", "optimizer.slots.m.model.layers.0.w"),
    ("optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE", "optimizer.iter"),
    ("dense/kernel", "dense.kernel"),
    ("dense/kernel/Adam_1", "dense.kernel.Adam_1"),
    ("global_step", "global_step"),
    ("a/b.Sc/d..e/.ATTRIBUTES/VARIABLE_VALUE", "a.b/c.d.e"),
    ("table/.ATTRIBUTES/table-keys", "table.table-keys"),
])
def test_naming_rule(key, name):
    assert te.torch_name(key) == name


def test_state_dict_of_a_tf_checkpoint_has_tf_values():
    tensors = fx.info("object_based")["tensors"]
    state = tf.train.to_state_dict(OBJECT_DIR)
    expected = {te.torch_name(k): k for k in tensors if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    assert sorted(state) == sorted(expected)
    for name, value in state.items():
        assert type(value) is torch.Tensor
        assert fx.same_bits(value.numpy(), fx.decode(tensors[expected[name]])), name
    assert state["optimizer.iter"].shape == () and state["optimizer.iter"].dtype == torch.int64
    assert list(state)[:3] == ["model.layers.0.b", "optimizer.slots.m.model.layers.0.b",
                               "optimizer.slots.v.model.layers.0.b"]  # checkpoint-key order: slots by their weight


def test_dtypes_survive_and_strings_are_left_out_with_a_warning():
    tensors = fx.info("dtypes")["tensors"]
    with pytest.warns(UserWarning, match="string tensors have no torch dtype.*word/.ATTRIBUTES/VARIABLE_VALUE"):
        state = te.to_state_dict(fx.prefix("dtypes"))
    assert "word" not in state and "words" not in state
    assert state["bf16"].dtype == torch.bfloat16
    assert state["bf16"].view(torch.int16).numpy().tobytes() == bytes.fromhex(tensors["bf16/.ATTRIBUTES/VARIABLE_VALUE"]["hex"])
    assert state["c64"].dtype == torch.complex64 and state["flag"].dtype == torch.bool
    assert state["empty"].shape == (0, 3)


def test_name_maps():
    state = te.to_state_dict(fx.prefix("name_based"), name_map={"dense/kernel": "fc.weight", "dense.bias": "fc.bias",
                                                                "beta1_power": None})
    assert "fc.weight" in state and "fc.bias" in state and "beta1_power" not in state
    assert "dense.kernel.Adam" in state  # unmentioned keys keep the rule's name
    only = te.to_state_dict(fx.prefix("name_based"), name_map=lambda k: k.upper() if "/Adam" not in k else None)
    assert sorted(only) == ["BETA1_POWER", "BETA2_POWER", "DENSE/BIAS", "DENSE/KERNEL", "GLOBAL_STEP"]
    with pytest.raises(KeyError, match="'dense/kernle'.*dense/kernel"):
        te.to_state_dict(fx.prefix("name_based"), name_map={"dense/kernle": "x"})
    with pytest.raises(ValueError, match="both export as 'same'"):
        te.to_state_dict(fx.prefix("name_based"), name_map=lambda k: "same")


def test_live_module_and_checkpoint_export(tmp_path):
    model, optimizer, step = tf2_program.build(tf, seed=0)
    x, y = tf2_program.data()
    tf2_program.train_step(tf, model, optimizer, step, x, y)
    module_state = te.to_state_dict(model)
    assert sorted(module_state) == ["layers.0.b", "layers.0.w", "layers.1.b", "layers.1.w"]
    assert torch.equal(module_state["layers.1.w"], model.layers[1].w.read_value())
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    live = te.to_state_dict(checkpoint)
    saved = te.to_state_dict(checkpoint.write(str(tmp_path / "ckpt")))
    assert list(live) == list(saved)
    assert all(torch.equal(live[k], saved[k]) for k in live)


def test_safetensors_round_trip(tmp_path):
    from safetensors.torch import load_file

    state = te.to_state_dict(fx.prefix("dtypes"), name_map=lambda k: None if "word" in k else te.torch_name(k))
    path = te.save_safetensors(state, tmp_path / "out.safetensors")
    loaded = load_file(path)
    assert sorted(loaded) == sorted(state)
    assert all(loaded[k].dtype == state[k].dtype and torch.equal(loaded[k], state[k]) for k in state)
    assert [p.name for p in tmp_path.iterdir()] == ["out.safetensors"]  # no temp file left


def test_save_safetensors_without_the_package_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    monkeypatch.setitem(sys.modules, "safetensors.torch", None)
    with pytest.raises(ImportError, match=r"pip install tfcompat\[safetensors\]"):
        te.save_safetensors({"a": torch.zeros(1)}, tmp_path / "x.safetensors")


class TorchMLP(torch.nn.Module):
    """tf2_program's model in plain torch (same parameter names, `layers.0.w`, ...)."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList()
        for shape in ((3, 8), (8, 2)):
            layer = torch.nn.Module()
            layer.w = torch.nn.Parameter(torch.zeros(shape))
            layer.b = torch.nn.Parameter(torch.zeros(shape[1]))
            self.layers.append(layer)

    def forward(self, x):
        x = torch.relu(x @ self.layers[0].w + self.layers[0].b)
        return x @ self.layers[1].w + self.layers[1].b


def test_torch_adam_continues_tf_training():
    state = tf.train.to_state_dict(OBJECT_DIR)
    model = TorchMLP()
    model.load_state_dict({k[len("model."):]: v for k, v in state.items() if k.startswith("model.")})  # strict
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    te.load_adam_state(optimizer, model.named_parameters(), state, prefix="model.")
    assert optimizer.param_groups[0]["lr"] == pytest.approx(tf2_program.LEARNING_RATE)
    x, y = (torch.from_numpy(a) for a in tf2_program.data())
    t = int(state["optimizer.iter"])
    for _ in range(tf2_program.STEPS_AFTER_RESTORE):
        t += 1
        optimizer.param_groups[0]["eps"] = te.keras_adam_epsilon_for_torch(1e-7, 0.999, t)  # Keras' epsilon at t
        optimizer.zero_grad()
        torch.mean(torch.square(model(x) - y)).backward()
        optimizer.step()
    golden = fx.info("object_based")["golden"]
    for path, (name, p) in zip(tf2_program.variable_paths(),
                               [(n, dict(model.named_parameters())[n]) for n in
                                ("layers.0.w", "layers.0.b", "layers.1.w", "layers.1.b")]):
        want = fx.decode(golden["weights"][path])
        # torch's update sums in another order than Keras' (sqrt(v)/c2 + eps vs sqrt(v) + eps*c2):
        # measured within 2 float32 ulps of the weights' scale (with a constant eps=1e-7 instead
        # of Keras' at t, the weights are ~1e-5 off: the epsilon conversion is what makes this pass)
        np.testing.assert_allclose(p.detach().numpy(), want, rtol=0, atol=4 * np.spacing(np.abs(want).max()))


def test_load_adam_state_is_all_or_nothing():
    state = tf.train.to_state_dict(OBJECT_DIR)
    model = TorchMLP()
    optimizer = torch.optim.Adam(model.parameters())
    broken = dict(state)
    del broken["optimizer.slots.v.model.layers.1.b"]
    with pytest.raises(KeyError, match="optimizer.slots.v.model.layers.1.b"):
        te.load_adam_state(optimizer, model.named_parameters(), broken, prefix="model.")
    assert optimizer.state == {} or all(not s for s in optimizer.state.values())
    with pytest.raises(KeyError, match="opt.iter is not in the state dict"):
        te.load_adam_state(optimizer, model.named_parameters(), state, optimizer_name="opt", prefix="model.")
