"""`tfcompat.interop.to_torch`: a torch view of a tf.Module that shares the variables' memory.

The laws: one storage (no copy; updates on either side show on the other),
reads stay snapshots across torch's in-place steps, gradients reach
`param.grad` through torch autograd, dtypes are kept, state_dict keys come
from TF names, and what would break the sharing is refused.
"""

from __future__ import annotations

import datetime
import io
import socket
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat import interop
from tfcompat.interop.sharing import same_memory


def dense_model(units=3, inputs=2):
    return tf.keras.Sequential([tf.keras.layers.Dense(units, input_shape=(inputs,))])


class Affine(tf.Module):
    """A tf.Module with its variables under its name scope (`affine/w:0`, `affine/b:0`)."""

    def __init__(self, n_in=2, n_out=3, dtype=tf.float32, name=None):
        super().__init__(name=name)
        with self.name_scope:
            init = np.arange(n_in * n_out, dtype=np.float64).reshape(n_in, n_out) / 10.0
            self.w = tf.Variable(init, dtype=dtype, name="w")
            self.b = tf.Variable(np.zeros(n_out), dtype=dtype, name="b")
            self.count = tf.Variable(0, dtype=tf.int64, trainable=False, name="count")

    def __call__(self, x):
        self.count.assign_add(1)
        return tf.matmul(x, self.w) + self.b


# -- one storage ---------------------------------------------------------------------------

def test_parameters_are_the_variables_storage_no_copy():
    m = Affine()
    view = interop.to_torch(m)
    for var, (name, tensor) in zip((m.b, m.w), sorted(view.named_parameters())):
        live = var._storage().value
        assert same_memory(tensor, live), name
        assert tensor.const_data_ptr() == live.const_data_ptr()
    assert same_memory(view.get_buffer("affine.count"), m.count._storage().value)


@pytest.mark.parametrize("make_optimizer", [
    lambda ps: torch.optim.SGD(ps, lr=0.1),
    lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: torch.optim.Adam(ps, lr=0.01),
], ids=["sgd", "momentum", "adam"])
def test_a_torch_optimizer_step_is_the_variables_step(make_optimizer):
    m = dense_model()
    view = interop.to_torch(m)
    # a twin plain-torch model, stepped by the same optimizer kind: the reference
    (kname, kernel), (bname, bias) = view.named_parameters()  # (Keras numbers layers: dense_N)
    twin = {n: torch.nn.Parameter(p.detach().clone()) for n, p in view.named_parameters()}
    opt, twin_opt = make_optimizer(view.parameters()), make_optimizer(twin.values())
    x = torch.linspace(-1, 1, 8).reshape(4, 2)
    for _ in range(3):
        opt.zero_grad(), twin_opt.zero_grad()
        view(x).square().sum().backward()
        (x @ twin[kname] + twin[bname]).square().sum().backward()
        opt.step(), twin_opt.step()
    kernel_var, bias_var = m.variables
    # the same kernels on the same inputs: equal up to the matmul's summation order
    np.testing.assert_allclose(kernel_var.numpy(), twin[kname].detach().numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(bias_var.value().numpy(), twin[bname].detach().numpy(), rtol=1e-6, atol=1e-6)
    assert same_memory(kernel, kernel_var._storage().value)


def test_variable_updates_show_in_the_parameters():
    m = Affine()
    view = interop.to_torch(m)
    w = view.get_parameter("affine.w")
    m.w.assign(np.ones((2, 3)))
    assert torch.equal(w.detach(), torch.ones(2, 3))
    m.w.assign_add(np.ones((2, 3)))
    m.w[0, 0].assign(7.0)
    assert w.detach().tolist() == [[7, 2, 2], [2, 2, 2]]
    # an OptimizerV2 step (in-place kernels on the cell's live tensor) shows too
    tf.keras.optimizers.SGD(0.5).apply_gradients([(torch.ones(2, 3), m.w)])
    assert w.detach().tolist() == [[6.5, 1.5, 1.5], [1.5, 1.5, 1.5]]


def test_a_checkpoint_restore_writes_through_the_view(tmp_path):
    m = Affine()
    view = interop.to_torch(m)
    path = tf.train.Checkpoint(m=m).save(str(tmp_path / "ckpt"))
    with torch.no_grad():
        view.get_parameter("affine.w").mul_(0)
    tf.train.Checkpoint(m=m).restore(path)
    np.testing.assert_array_equal(view.get_parameter("affine.w").detach().numpy(),
                                  (np.arange(6).reshape(2, 3) / 10.0).astype(np.float32))


# -- snapshots ----------------------------------------------------------------------------

@pytest.mark.parametrize("make_optimizer", [
    lambda ps: torch.optim.SGD(ps, lr=1.0),
    lambda ps: torch.optim.SGD(ps, lr=1.0, foreach=True),
    lambda ps: torch.optim.Adam(ps, lr=1.0, foreach=True),
    lambda ps: torch.optim.Adam(ps, lr=1.0, fused=True),
], ids=["sgd", "sgd-foreach", "adam-foreach", "adam-fused"])
def test_reads_before_a_torch_step_keep_their_values(make_optimizer):
    m = Affine()
    view = interop.to_torch(m)
    w = view.get_parameter("affine.w")
    read, array = m.w.value(), m.w.numpy()
    before = array.copy()
    opt = make_optimizer([w])
    w.grad = torch.ones(2, 3)
    opt.step()
    np.testing.assert_array_equal(read.numpy(), before)   # the read is a snapshot
    np.testing.assert_array_equal(array, before)
    # and the variable took the step (each of these moves every entry by exactly lr here)
    np.testing.assert_allclose(m.w.numpy(), before - 1, rtol=0, atol=1e-6)
    assert same_memory(w, m.w._storage().value)  # (the step moved both, together)


def test_writing_a_read_changes_neither_variable_nor_parameter():
    m = Affine()
    view = interop.to_torch(m)
    read = m.w.value()
    read.add_(100)
    read.numpy()[:] = -1
    np.testing.assert_array_equal(view.get_parameter("affine.w").detach().numpy(), m.w.numpy())
    assert float(m.w.numpy().max()) < 1


@given(st.lists(st.tuples(st.sampled_from(["torch", "assign", "tf_opt"]),
                          st.floats(-4, 4, width=32)), min_size=1, max_size=8))
def test_every_read_is_the_value_at_its_time(steps):
    m = Affine()
    view = interop.to_torch(m)
    w = view.get_parameter("affine.w")
    opt = torch.optim.SGD([w], lr=1.0)
    tf_opt = tf.keras.optimizers.SGD(1.0)
    reads, expected = [], []
    for kind, x in steps:
        reads.append(m.w.value())
        expected.append(w.detach().numpy().copy())
        if kind == "torch":
            w.grad = torch.full((2, 3), x)
            opt.step()
        elif kind == "assign":
            m.w.assign(np.full((2, 3), x))
        else:
            tf_opt.apply_gradients([(torch.full((2, 3), x), m.w)])
    for read, value in zip(reads, expected):
        np.testing.assert_array_equal(read.numpy(), value)
    np.testing.assert_array_equal(m.w.numpy(), w.detach().numpy())


# -- gradients -----------------------------------------------------------------------------

def test_backward_fills_param_grad_with_the_tapes_gradient():
    m = dense_model()
    view = interop.to_torch(m)
    x = torch.linspace(-1, 1, 8).reshape(4, 2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(m(x)))
    expected = tape.gradient(loss, m.trainable_variables)
    view(x).square().sum().backward()
    for (name, p), g in zip(view.named_parameters(), expected):
        torch.testing.assert_close(p.grad, g, rtol=1e-6, atol=1e-6, msg=name)


def test_inputs_get_gradients_and_no_grad_builds_no_graph():
    view = interop.to_torch(dense_model())
    x = torch.ones(1, 2, requires_grad=True)
    view(x).sum().backward()
    kernel = next(view.parameters())
    torch.testing.assert_close(x.grad, kernel.detach().sum(1, keepdim=True).T)
    with torch.no_grad():
        assert not view(torch.ones(1, 2)).requires_grad


def test_embedding_lookups_give_dense_param_grads():
    emb = tf.keras.layers.Embedding(5, 2, name="emb")
    emb(torch.tensor([0]))
    view = interop.to_torch(emb)
    view(torch.tensor([1, 1, 3])).sum().backward()
    grad = view.get_parameter("emb.embeddings").grad
    assert grad.tolist() == [[0, 0], [2, 2], [0, 0], [1, 1], [0, 0]]


def test_the_torch_training_flag_reaches_keras_layers():
    model = tf.keras.Sequential([tf.keras.layers.Dropout(0.5, input_shape=(1000,))])
    view = interop.to_torch(model)
    x = torch.ones(1, 1000)
    assert (view(x) == 0).any()             # torch modules start in training mode
    assert torch.equal(view.eval()(x), x)   # eval(): Keras' inference
    assert (view(x, training=True) == 0).any()  # an explicit argument wins


def test_non_trainable_variables_are_buffers_updated_by_forward():
    model = tf.keras.Sequential([tf.keras.layers.BatchNormalization(input_shape=(3,), name="bn")])
    view = interop.to_torch(model)
    assert [n for n, _ in view.named_parameters()] == ["bn.gamma", "bn.beta"]
    assert [n for n, _ in view.named_buffers()] == ["bn.moving_mean", "bn.moving_variance"]
    view(torch.full((4, 3), 10.0))
    assert view.get_buffer("bn.moving_mean").tolist() == pytest.approx([0.1] * 3)


# -- names and state dicts -----------------------------------------------------------------

def test_state_dict_keys_come_from_tf_names():
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(2,)), tf.keras.layers.Dense(1)])
    names = [v.name for v in model.variables]
    keys = list(interop.to_torch(model).state_dict())
    assert keys == [n[:-2].replace("/", ".") for n in names]  # dense/kernel:0 -> dense.kernel
    assert keys == list(interop.to_torch(model).state_dict())  # stable


def test_colliding_and_reserved_names_are_made_unique_in_variable_order():
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.a = tf.Variable(1.0, name="w")
            self.b = tf.Variable(2.0, name="w")
            self.c = tf.Variable(3.0, name="training")
            self.d = tf.Variable(4.0, name="w/x.y")  # `w` a variable and a scope; `.` in a name

    view = interop.to_torch(M())
    assert list(view.state_dict()) == ["w", "w_1", "training_", "w_2.x_y"]
    assert float(view.variable_of("w_1").numpy()) == 2.0


def test_torch_save_and_load_of_the_state_dict_writes_the_variables():
    source, target = Affine(), Affine()
    target.w.assign(np.zeros((2, 3)))
    buffer = io.BytesIO()
    torch.save(interop.to_torch(source).state_dict(), buffer)
    buffer.seek(0)
    view = interop.to_torch(target)
    view.load_state_dict(torch.load(buffer))
    np.testing.assert_array_equal(target.w.numpy(), source.w.numpy())
    assert same_memory(view.get_parameter("affine.w"), target.w._storage().value)


def test_load_state_dict_is_checked_and_assign_is_refused():
    view = interop.to_torch(Affine())
    before = view.variable_of("affine.w").numpy()
    with pytest.raises(RuntimeError, match="size mismatch"):
        view.load_state_dict({"affine.w": torch.zeros(3, 3), "affine.b": torch.zeros(3),
                              "affine.count": torch.tensor(0)})
    np.testing.assert_array_equal(view.variable_of("affine.w").numpy(), before)
    with pytest.raises(TypeError, match="assign=True"):
        view.load_state_dict(view.state_dict(), assign=True)


def test_a_new_shape_reattaches_the_same_parameter():
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable([1.0, 2.0], shape=tf.TensorShape([None]), name="v")

        def __call__(self):
            return tf.reduce_sum(self.v)

    m = M()
    view = interop.to_torch(m)
    p = view.get_parameter("v")
    m.v.assign([1.0, 2.0, 3.0])  # new storage
    view().backward()
    assert view.get_parameter("v") is p and p.grad.tolist() == [1, 1, 1]
    with torch.no_grad():
        p.add_(1)
    assert m.v.numpy().tolist() == [2, 3, 4]


# -- dtypes, devices, moves ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", [tf.float64, tf.bfloat16, tf.float16])
def test_dtypes_are_kept(dtype):
    m = Affine(dtype=dtype)
    view = interop.to_torch(m)
    assert view.get_parameter("affine.w").dtype is dtype.as_torch
    assert view.get_buffer("affine.count").dtype is torch.int64
    assert view.get_parameter("affine.w").device == m.w._storage().value.device


def test_trainable_integer_variables_are_parameters_without_grad():
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.steps = tf.Variable(3, name="steps")

    p = interop.to_torch(M()).get_parameter("steps")
    assert p.dtype is torch.int32 and not p.requires_grad


def test_moving_or_casting_a_view_is_refused_but_no_ops_pass():
    view = interop.to_torch(Affine())
    assert view.float() is not None and view.to("cpu") is not None  # nothing changes
    with pytest.raises(TypeError, match="shares memory with a tf.Variable"):
        view.double()
    assert view.get_parameter("affine.w").dtype is torch.float32


# -- torch machinery -------------------------------------------------------------------------

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_distributed_data_parallel_on_one_gloo_process():
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not available")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0,
                            world_size=1, timeout=datetime.timedelta(seconds=60))
    try:
        m = dense_model()
        view = interop.to_torch(m)
        ddp = torch.nn.parallel.DistributedDataParallel(view)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
        before = m.variables[0].numpy()
        ddp(torch.ones(4, 2)).sum().backward()
        grad = next(view.parameters()).grad.clone()
        opt.step()
        np.testing.assert_allclose(m.variables[0].numpy(), before - 0.1 * grad.numpy(), rtol=1e-6)
    finally:
        dist.destroy_process_group()


def test_torch_compile_runs_the_view():
    m = dense_model()
    view = interop.to_torch(m)
    x = torch.linspace(-1, 1, 8).reshape(4, 2)
    expected = view(x).detach()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (dynamo explains its graph breaks)
        out = torch.compile(view)(x)
    torch.testing.assert_close(out, expected)
    out.sum().backward()
    assert next(view.parameters()).grad is not None


# -- round trip and errors ----------------------------------------------------------------------

def test_from_torch_of_a_view_is_the_module():
    m = Affine()
    assert interop.from_torch(interop.to_torch(m)) is m


@pytest.mark.parametrize("bad, match", [
    (torch.nn.Linear(2, 2), "already a torch.nn.Module"),
    (3.0, "got float"),
    (None, "got NoneType"),
])
def test_unsupported_inputs_are_type_errors(bad, match):
    with pytest.raises(TypeError, match=match):
        interop.to_torch(bad)


def test_a_variable_is_refused_with_a_hint():
    with pytest.raises(TypeError, match="var.handle"):
        interop.to_torch(tf.Variable(1.0))


def test_an_unbuilt_keras_layer_is_refused():
    with pytest.raises(ValueError, match="not built yet"):
        interop.to_torch(tf.keras.layers.Dense(3))


def test_variables_of_a_strategy_are_refused():
    from tests.distribute.logical_devices import logical_cpus

    with logical_cpus(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            m = Affine()
        with pytest.raises(TypeError, match="no storage of its own"):
            interop.to_torch(m)


def test_views_in_threads_and_nested_views_all_get_their_gradients():
    import threading

    inner = Affine(name="inner")
    inner_view = interop.to_torch(inner)

    class Outer(tf.Module):
        def __init__(self):
            super().__init__()
            self.s = tf.Variable(2.0, name="s")

        def __call__(self, x):
            return inner_view(x) * self.s  # a TF module calling a torch view

    outer_view = interop.to_torch(Outer())
    views = [interop.to_torch(Affine(name=f"t{i}")) for i in range(4)]
    barrier, errors = threading.Barrier(4), []

    def run(view):
        try:
            barrier.wait(timeout=30)
            for _ in range(5):
                view(torch.ones(2, 2)).sum().backward()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(v,)) for v in views]
    for t in threads:
        t.start()
    outer_view(torch.ones(2, 2)).sum().backward()
    for t in threads:
        t.join(timeout=60)
    assert not errors
    for i, v in enumerate(views):  # five backward passes of sum(ones(2, 2) @ w + b)
        assert v.get_parameter(f"t{i}.w").grad.tolist() == [[10.0] * 3] * 2
    assert outer_view.get_parameter("s").grad is not None
    assert inner_view.get_parameter("inner.w").grad is not None
    from tfcompat.framework import variable_protocol
    assert type(variable_protocol.recorder).__name__ != "_ViewReads"  # uninstalled when idle


@pytest.mark.skipif(not torch.cuda.is_available() or not tf.config.list_physical_devices("GPU"),
                    reason="needs a visible CUDA device (TFCOMPAT_TEST_GPU=1 on a GPU machine)")
def test_a_view_of_a_gpu_module_keeps_the_device():
    with tf.device("/GPU:0"):
        m = Affine()
    view = interop.to_torch(m)
    w = view.get_parameter("affine.w")
    assert w.is_cuda and same_memory(w, m.w._storage().value)
    read = m.w.value()
    view(torch.ones(2, 2, device=w.device)).sum().backward()
    torch.optim.SGD(view.parameters(), lr=1.0).step()
    np.testing.assert_allclose(m.w.numpy(), read.cpu().numpy() - 2.0, rtol=1e-6)


def test_torch_func_functional_call_reads_the_given_tensors():
    m = dense_model()
    view = interop.to_torch(m)
    (kname, kernel), (bname, bias) = view.named_parameters()
    x = torch.ones(1, 2)
    w = torch.full(tuple(kernel.shape), 2.0, requires_grad=True)
    out = torch.func.functional_call(view, {kname: w, bname: torch.zeros(3)}, (x,))
    assert out.tolist() == [[4.0, 4.0, 4.0]]
    out.sum().backward()
    assert w.grad.tolist() == [[1.0] * 3] * 2 and kernel.grad is None
    grads = torch.func.grad(lambda p: torch.func.functional_call(view, p, (x,)).sum())(
        {kname: kernel.detach(), bname: bias.detach()})
    assert grads[kname].tolist() == [[1.0] * 3] * 2
    assert view.get_parameter(kname) is kernel  # (the view is itself again)
