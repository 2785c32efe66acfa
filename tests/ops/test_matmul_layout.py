"""`ops/_blas.py`: narrow CPU matrix products take the kernel through its transposed copy.

Laws:
* the layout is chosen from shapes, dtype and device alone (never timings): 2-10 columns,
  `M*K >= 32768`, float32/float64, CPU with MKL; everything else is torch's plain call;
* the product and both gradients are a matrix product's values: within the rounding bound
  `gamma_K * (|a| @ |b|)` (`gamma_K = K*u / (1 - K*u)`) of the exact (float64-accumulated)
  product, in float32 and float64, through `matmul_2d`, `tf.matmul` and `Dense`;
* the same inputs give the same bits on every call;
* a kernel gradient in the transposed layout trains as any other (optimizers take it).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.ops import _blas


def _bound(a: torch.Tensor, b: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    u = torch.finfo(dtype).eps / 2
    k = a.shape[-1]
    gamma = k * u / (1 - k * u)
    return gamma * (a.abs().double() @ b.abs().double()) + torch.finfo(dtype).tiny


@pytest.mark.parametrize("shape, expected", [
    ((256, 512, 10), True), ((256, 512, 2), True), ((64, 512, 10), True),
    ((256, 512, 1), False), ((256, 512, 11), False), ((256, 512, 64), False),
    ((32, 32, 10), False), ((63, 512, 10), False),
])
def test_layout_is_chosen_from_shapes(shape, expected, monkeypatch):
    m, k, n = shape
    a, b = torch.randn(m, k), torch.randn(k, n)
    monkeypatch.setattr(_blas, "_MKL", True)
    assert _blas.transposed_layout(a, b) is expected
    assert _blas.transposed_layout(a.double(), b.double()) is expected
    assert not _blas.transposed_layout(a.half(), b.half())
    assert not _blas.transposed_layout(a.to(torch.int32), b.to(torch.int32))
    assert not _blas.transposed_layout(a, b.t().contiguous().t())  # (already that layout)
    monkeypatch.setattr(_blas, "_MKL", False)
    assert not _blas.transposed_layout(a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [2, 5, 10])
def test_values_and_gradients_are_a_matrix_product(dtype, n, monkeypatch):
    monkeypatch.setattr(_blas, "_MKL", True)
    g = torch.Generator().manual_seed(n)
    a = torch.randn(256, 512, generator=g, dtype=dtype).requires_grad_(True)
    b = torch.randn(512, n, generator=g, dtype=dtype).requires_grad_(True)
    w = torch.randn(256, n, generator=g, dtype=dtype)
    assert _blas.transposed_layout(a, b)
    out = _blas.matmul_2d(a, b)
    ga, gb = torch.autograd.grad(out, [a, b], w)
    exact = a.detach().double() @ b.detach().double()
    assert ((out.double() - exact).abs() <= _bound(a.detach(), b.detach(), dtype)).all()
    exact_ga = w.double() @ b.detach().double().t()
    assert ((ga.double() - exact_ga).abs() <= _bound(w, b.detach().t(), dtype)).all()
    exact_gb = a.detach().double().t() @ w.double()
    assert ((gb.double() - exact_gb).abs() <= _bound(a.detach().t(), w, dtype)).all()
    assert gb.shape == b.shape and ga.shape == a.shape
    again = _blas.matmul_2d(a, b)
    assert torch.equal(out, again)  # (deterministic: the same bits every call)
    assert torch.equal(gb, torch.autograd.grad(again, [b], w)[0])


def test_tf_matmul_and_dense_take_it_and_train(monkeypatch):
    monkeypatch.setattr(_blas, "_MKL", True)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((256, 512)).astype(np.float32))
    labels = tf.constant(rng.integers(0, 10, 256))
    calls = []
    original = _blas.transposed_layout

    def spy(a, b):
        used = original(a, b)
        calls.append(used)
        return used

    monkeypatch.setattr(_blas, "transposed_layout", spy)
    w = tf.Variable(rng.standard_normal((512, 10)).astype(np.float32) * 0.05)
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels, tf.matmul(x, w)))
    (grad,) = tape.gradient(loss, [w])
    assert calls == [True] and tuple(grad.shape) == (512, 10)
    before = w.numpy().copy()
    tf.keras.optimizers.SGD(0.5, momentum=0.9).apply_gradients([(grad, w)])
    np.testing.assert_allclose(w.numpy(), before - 0.5 * grad.numpy(), rtol=1e-6, atol=1e-7)
    calls.clear()
    model = tf.keras.Sequential([tf.keras.Input((512,)), tf.keras.layers.Dense(10)])
    model.compile(tf.keras.optimizers.Adam(1e-3),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, labels, batch_size=256, epochs=3, verbose=0)
    assert any(calls)
    losses = history.history["loss"]
    assert losses[-1] < losses[0]


def test_transposed_gradients_are_checked_as_their_dense_copies():
    # Law: `checked_gradients` accepts a plain gradient in another memory layout exactly as
    # its contiguous copy (same values, dense storage for the kernels, the all-dense path).
    from tfcompat.keras.optimizers import step_plan
    opt = tf.keras.optimizers.Adam(1e-3)
    vs = [tf.Variable(torch.zeros(512, 10)), tf.Variable(torch.zeros(10))]
    opt.apply_gradients(zip([torch.zeros(512, 10), torch.zeros(10)], vs))  # (plans the list)
    plan = opt._plan_for(vs)
    g = torch.randn(10, 512).t()  # (a transposed view: not contiguous)
    b = torch.randn(10)
    checked = step_plan.checked_gradients(plan, vs, [g, b])
    assert checked.all_dense and all(x.is_contiguous() for x in checked.grads)
    assert torch.equal(checked.grads[0], g) and checked.grads[1] is b
    wrong = torch.randn(10, 511).t()
    with pytest.raises(tf.errors.InvalidArgumentError):
        step_plan.checked_gradients(plan, vs, [wrong, b])


def test_replica_threads_train_through_it_as_through_the_plain_call(monkeypatch):
    # Law: under MirroredStrategy (replica threads, summed gradients) a head wide enough for
    # the transposed layout trains as with the plain call, within the product's rounding.
    from tests.distribute.logical_devices import logical_cpus
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 512)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    results = {}
    used = []
    original = _blas.transposed_layout
    monkeypatch.setattr(_blas, "transposed_layout",
                        lambda a, b: used.append(original(a, b)) or used[-1])
    for rule in (True, False):
        monkeypatch.setattr(_blas, "_MKL", rule)
        used.clear()
        tf.keras.backend.clear_session()
        with logical_cpus(2):
            strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
            with strategy.scope():
                model = tf.keras.Sequential([tf.keras.Input((512,)), tf.keras.layers.Dense(
                    10, kernel_initializer=tf.keras.initializers.GlorotUniform(seed=1))])
                model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9),
                              tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
            history = model.fit(x, y, batch_size=128, epochs=3, verbose=0, shuffle=False)
        assert any(used) == rule  # (each replica's 64 x 512 batch takes the transposed copy)
        results[rule] = (history.history["loss"], model.get_weights())
    np.testing.assert_allclose(results[True][0], results[False][0], rtol=1e-5)
    for a, b in zip(results[True][1], results[False][1]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
