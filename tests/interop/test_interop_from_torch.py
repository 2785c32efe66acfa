"""`tfcompat.interop.from_torch`: a tf.Module whose variables are a torch module's tensors.

The laws: one storage (an OptimizerV2 step is the parameter's step and a
torch step the variable's), reads stay snapshots, `GradientTape` gives
torch autograd's gradients, names and trainability come from torch,
checkpoints round-trip, dtypes are kept, and unsupported inputs are refused.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from torch import nn

import tfcompat as tf
from tfcompat import interop
from tfcompat.interop.sharing import same_memory


class Net(nn.Module):
    def __init__(self, dtype=torch.float32):
        super().__init__()
        torch.manual_seed(0)
        self.fc1 = nn.Linear(2, 4, dtype=dtype)
        self.bn = nn.BatchNorm1d(4, dtype=dtype)
        self.fc2 = nn.Linear(4, 1, dtype=dtype)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


X = torch.linspace(-1, 1, 16).reshape(8, 2)


def named(m):
    return {v.name: v for v in m.variables}


# -- one storage ------------------------------------------------------------------------

def test_variables_are_the_parameters_and_buffers_no_copy():
    net = Net()
    m = interop.from_torch(net)
    tensors = dict(net.named_parameters())
    tensors.update(net.named_buffers())
    assert len(m.variables) == len(tensors) == 9
    for name, t in tensors.items():
        live = m.variable_of(name)._storage().value
        assert same_memory(live, t), name
        assert live.const_data_ptr() == t.const_data_ptr()


def test_names_trainability_and_attributes_follow_torch():
    net = Net()
    net.fc2.bias.requires_grad_(False)
    m = interop.from_torch(net)
    vs = named(m)
    assert sorted(vs) == sorted(n.replace(".", "/") + ":0" for n, _ in
                                list(net.named_parameters()) + list(net.named_buffers()))
    assert not vs["fc2/bias:0"].trainable and vs["fc2/weight:0"].trainable
    assert not vs["bn/running_mean:0"].trainable and vs["bn/num_batches_tracked:0"].dtype == tf.int64
    assert m.fc1.weight is vs["fc1/weight:0"]  # attributes mirror the torch tree
    assert {v.name for v in m.trainable_variables} == {
        "fc1/weight:0", "fc1/bias:0", "bn/weight:0", "bn/bias:0", "fc2/weight:0"}
    assert m.name == "net"


def test_an_optimizer_v2_step_is_the_parameters_step():
    net = Net()
    m = interop.from_torch(net)
    w = net.fc1.weight
    before = w.detach().clone()
    grad = torch.full((4, 2), 0.5)
    tf.keras.optimizers.SGD(0.1).apply_gradients([(grad, m.fc1.weight)])
    torch.testing.assert_close(w.detach(), before - 0.05, rtol=0, atol=1e-7)
    assert same_memory(w, m.fc1.weight._storage().value)


def test_torch_writes_show_in_the_variables():
    net = Net()
    m = interop.from_torch(net)
    opt = torch.optim.SGD(net.parameters(), lr=1.0)
    net(X).sum().backward()
    expected = (net.fc2.weight - net.fc2.weight.grad).detach()
    opt.step()
    np.testing.assert_array_equal(m.fc2.weight.numpy(), expected.numpy())
    with torch.no_grad():
        net.fc1.bias.fill_(3.0)
    assert m.fc1.bias.numpy().tolist() == [3.0] * 4


# -- snapshots -------------------------------------------------------------------------

def test_reads_keep_their_values_across_both_sides_steps():
    net = Net()
    m = interop.from_torch(net)
    read, array = m.fc1.weight.value(), m.fc1.weight.numpy()
    before = array.copy()
    with torch.no_grad():
        net.fc1.weight.add_(1.0)       # a torch step
    mid = m.fc1.weight.value()
    tf.keras.optimizers.SGD(1.0).apply_gradients([(torch.ones(4, 2), m.fc1.weight)])  # a TF step
    np.testing.assert_array_equal(read.numpy(), before)
    np.testing.assert_array_equal(array, before)
    np.testing.assert_array_equal(mid.numpy(), before + 1)
    np.testing.assert_array_equal(net.fc1.weight.detach().numpy(),
                                  (before + np.float32(1)) - np.float32(1))  # both steps


@given(st.lists(st.sampled_from(["torch", "tf_opt", "assign", "write_read"]), min_size=1, max_size=8))
def test_every_read_is_the_value_at_its_time(steps):
    lin = nn.Linear(2, 2, bias=False)
    m = interop.from_torch(lin)
    var = m.weight
    reads, expected = [], []
    for i, kind in enumerate(steps):
        reads.append(var.value())
        expected.append(lin.weight.detach().clone())
        if kind == "torch":
            with torch.no_grad():
                lin.weight.mul_(2.0)
        elif kind == "tf_opt":
            tf.keras.optimizers.SGD(1.0).apply_gradients([(torch.ones(2, 2), var)])
        elif kind == "assign":
            var.assign(torch.full((2, 2), float(i)))
        else:
            var.value().add_(1000.0)  # writing a read changes nothing else
    for read, value in zip(reads, expected):
        torch.testing.assert_close(read, value, rtol=0, atol=0)
    assert torch.equal(var.value(), lin.weight.detach())


# -- gradients and training --------------------------------------------------------------------

def test_gradient_tape_gives_torch_autogradients():
    net = Net()
    m = interop.from_torch(net)
    reference = Net()
    reference.load_state_dict(net.state_dict())
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(m(X)))
    grads = tape.gradient(loss, m.trainable_variables)
    reference(X).square().sum().backward()
    ref = dict(reference.named_parameters())
    for var, g in zip(m.trainable_variables, grads):
        torch.testing.assert_close(g, ref[var.name[:-2].replace("/", ".")].grad, rtol=1e-6, atol=1e-6)
    assert net.fc1.weight.grad is None  # the tape differentiated its reads, not the parameters


def test_keras_adam_trains_the_torch_module():
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    m = interop.from_torch(net)
    y = X.sum(1, keepdim=True) ** 2
    adam = tf.keras.optimizers.Adam(0.05)
    first = None
    for _ in range(60):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(m(X) - y))
        adam.apply_gradients(zip(tape.gradient(loss, m.trainable_variables), m.trainable_variables))
        first = float(loss.numpy()) if first is None else first
    assert float(tf.reduce_mean(tf.square(net(X).detach() - y))) < 0.1 * first  # torch's module learned


def test_one_adam_step_follows_keras_formula():
    lin = nn.Linear(2, 1)
    m = interop.from_torch(lin)
    before = lin.weight.detach().clone()
    g = torch.tensor([[0.5, -2.0]])
    tf.keras.optimizers.Adam(0.1).apply_gradients([(g, m.weight)])
    # step 1: m = 0.1 g, v = 0.001 g^2, lr_t = 0.1 sqrt(0.001) / 0.1, w -= lr_t m / (sqrt(v) + 1e-7)
    m1, v1 = 0.1 * g, 0.001 * g * g
    expected = before - (0.1 * np.sqrt(0.001) / 0.1) * m1 / (v1.sqrt() + 1e-7)
    torch.testing.assert_close(lin.weight.detach(), expected, rtol=1e-6, atol=1e-7)


def test_buffers_update_in_forward_and_follow_train_and_eval():
    net = Net()
    m = interop.from_torch(net)
    m(X)
    assert int(m.bn.num_batches_tracked.numpy()) == 1
    np.testing.assert_allclose(m.bn.running_mean.numpy(), net.bn.running_mean.numpy())
    assert float(np.abs(m.bn.running_mean.numpy()).sum()) > 0
    net.eval()
    stats = m.bn.running_mean.numpy().copy()
    m(X)
    np.testing.assert_array_equal(m.bn.running_mean.numpy(), stats)


# -- checkpoints ---------------------------------------------------------------------------------

def test_checkpoint_save_and_restore_round_trip(tmp_path):
    net = Net()
    m = interop.from_torch(net)
    m(X)  # (buffers too)
    path = tf.train.Checkpoint(model=m).save(str(tmp_path / "ckpt"))
    keys = {k for k, _ in tf.train.list_variables(path)}
    assert "model/fc1/weight/.ATTRIBUTES/VARIABLE_VALUE" in keys
    saved = {k: v.clone() for k, v in net.state_dict().items()}
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
    tf.train.Checkpoint(model=m).restore(path).assert_consumed()
    for k, v in net.state_dict().items():
        assert torch.equal(v, saved[k]), k
    other = Net()
    with torch.no_grad():
        other.fc1.weight.zero_()
    tf.train.Checkpoint(model=interop.from_torch(other)).restore(path).assert_consumed()
    assert torch.equal(other.fc1.weight.detach(), saved["fc1.weight"])


def test_tf_module_export_names_are_torchs_state_dict_names():
    from tfcompat.train.torch_export import to_state_dict

    net = Net()
    exported = to_state_dict(interop.from_torch(net))
    assert exported.keys() == net.state_dict().keys()


# -- dtypes, sharing edge cases ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16])
def test_dtypes_are_kept(dtype):
    m = interop.from_torch(Net(dtype=dtype))
    assert m.fc1.weight.dtype.as_torch is dtype
    assert m.fc1.weight.device.endswith("CPU:0")


def test_tied_parameters_are_one_variable():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, bias=False)
            self.b = nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))

    m = interop.from_torch(Tied())
    assert [v.name for v in m.variables] == ["a/weight:0"]
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(m(X))
    assert tape.gradient(loss, m.a.weight) is not None


def test_names_that_shadow_tf_module_attributes_get_a_suffix():
    module = nn.Module()
    module.variables = nn.Parameter(torch.ones(2))
    module.name = nn.Parameter(torch.zeros(1))
    module._name = nn.Parameter(torch.zeros(1))
    module._bindings = nn.Parameter(torch.zeros(1))
    m = interop.from_torch(module)
    assert m.variables_.name == "variables:0" and m.name_.name == "name:0"
    assert m._name_.name == "_name:0" and m._bindings_.name == "_bindings:0"
    assert m.name == "module" and len(m.variables) == 4
    module.submodules = nn.Sequential(nn.Linear(1, 1), nn.Linear(1, 1))  # a submodule's name too
    m = interop.from_torch(module)
    assert [v.name for v in m.submodules_._flatten(predicate=lambda x: hasattr(x, "assign"))] == [
        "submodules/0/bias:0", "submodules/0/weight:0", "submodules/1/bias:0", "submodules/1/weight:0"]


def test_a_new_shape_on_the_tf_side_is_followed_by_the_torch_module():
    holder = nn.Module()
    holder.v = nn.Parameter(torch.ones(2))
    holder.forward = lambda: holder.v.sum()
    m = interop.from_torch(holder)
    m.v._shape = tf.TensorShape([None])  # (a variable declared with a partial shape)
    m.v.assign(torch.ones(3))
    assert float(m()) == 3.0
    assert holder.v.shape == (3,) and same_memory(holder.v, m.v._storage().value)


def test_replacing_a_torch_tensor_is_followed_or_refused():
    net = Net()
    m = interop.from_torch(net)
    net.fc1.bias.data = torch.full((4,), 2.0)  # same dtype and shape: the variable follows
    m(X)
    assert m.fc1.bias.numpy().tolist() == [2.0] * 4
    net.double()
    with pytest.raises(RuntimeError, match="no longer shares memory"):
        m(X.double())


# -- round trip and errors ------------------------------------------------------------------------

def test_to_torch_of_a_from_torch_module_is_the_torch_module():
    net = Net()
    assert interop.to_torch(interop.from_torch(net)) is net


def test_round_trip_through_a_view_keeps_one_storage():
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.s = tf.Variable(2.0, name="s")

        def __call__(self, x):
            return x * self.s

    m = Scale()
    view = interop.to_torch(m)
    assert interop.from_torch(view) is m
    wrapper = nn.Sequential(view)  # a torch model holding the view: wrapped again, still shared
    again = interop.from_torch(wrapper)
    assert same_memory(again.variable_of("0.s")._storage().value, m.s._storage().value)
    again.variable_of("0.s").assign(5.0)
    assert float(m.s.numpy()) == 5.0 and float(again(torch.ones(1))) == 5.0


@pytest.mark.parametrize("bad, match", [
    (tf.Module(), "already a tf.Module"),
    (torch.ones(2), r"tf.Variable\(tensor\)"),
    ("net", "got str"),
])
def test_unsupported_inputs_are_type_errors(bad, match):
    with pytest.raises(TypeError, match=match):
        interop.from_torch(bad)


def test_uninitialized_lazy_modules_are_refused():
    with pytest.raises(TypeError, match="not initialized"):
        interop.from_torch(nn.LazyLinear(3))


def test_a_distribution_strategy_scope_is_refused_clearly():
    from tests.distribute.logical_devices import logical_cpus

    with logical_cpus(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            with pytest.raises(ValueError, match="one copy of each variable per replica"):
                interop.from_torch(Net())


@pytest.mark.skipif(not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
                    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")
def test_a_gpu_torch_module_gives_gpu_variables():
    net = Net().cuda()
    m = interop.from_torch(net)
    assert m.fc1.weight.device.endswith("GPU:0")
    x = X.cuda()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(m(x))
    grads = tape.gradient(loss, m.trainable_variables)
    before = net.fc1.weight.detach().clone()
    tf.keras.optimizers.SGD(0.1).apply_gradients(zip(grads, m.trainable_variables))
    assert not torch.equal(net.fc1.weight.detach(), before)
    assert same_memory(net.fc1.weight, m.fc1.weight._storage().value)


def test_a_view_inside_a_torch_module_is_differentiated_by_the_tape():
    class Scale(tf.Module):
        def __init__(self):
            super().__init__()
            self.s = tf.Variable(2.0, name="s")

        def __call__(self, x):
            return x * self.s

    m = Scale()
    again = interop.from_torch(nn.Sequential(interop.to_torch(m)))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(again(torch.full((3,), 1.5)))
    assert float(tape.gradient(loss, again.variable_of("0.s"))) == 4.5
