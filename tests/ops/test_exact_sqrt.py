"""TF's square root is correctly rounded (IEEE 754); tfcompat's is too, on every CPU.

torch's CPU `sqrt` (MKL's vector math, one-ulp accuracy) returns the other neighbour of the
true root for about a fifth of float32 inputs on some CPUs (`tfcompat/ops/exact_math.py`).
Each law runs twice: with the path this machine's probe picks, and with the correcting path
forced, so the correction is tested on machines whose torch `sqrt` is already exact.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.ops import exact_math


@pytest.fixture(params=["probed", "forced"])
def path(request, monkeypatch):
    if request.param == "forced":
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            monkeypatch.setitem(exact_math._exact, ("cpu", dtype), False)
    return request.param


def _binades(np_dtype, n, lo, hi, seed):
    rs = np.random.RandomState(seed)
    values = (rs.uniform(1, 2, n) * np.exp2(rs.randint(lo, hi, n).astype(np.float64)))
    values = values.astype(np_dtype)
    return values[np.isfinite(values) & (values > 0)]


def _near_midpoints(n, seed):
    """float64 inputs whose roots lie as close to a rounding midpoint as floats allow, and
    the neighbours of powers of four (where the gap below the root halves)."""
    rs = np.random.RandomState(seed)
    out = []
    for y in rs.uniform(1, 2, n) * np.exp2(rs.randint(-500, 500, n).astype(np.float64)):
        midpoint = Fraction(float(y)) + Fraction(float(np.spacing(y))) / 2
        x = float(midpoint * midpoint)
        out += [x, np.nextafter(x, 0), np.nextafter(x, np.inf)]
    for k in range(-510, 510, 3):
        p = 4.0 ** k
        out += [p, np.nextafter(p, 0), np.nextafter(p, np.inf)]
    out += [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]
    return np.array(out)


@pytest.mark.parametrize("np_dtype,lo,hi", [(np.float32, -149, 128), (np.float64, -1074, 1024)])
def test_sqrt_is_correctly_rounded(path, np_dtype, lo, hi):
    x = _binades(np_dtype, 200_000, lo, hi, seed=7)
    got = tf.sqrt(torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got, np.sqrt(x))  # NumPy's is the IEEE instruction


def test_sqrt_float64_next_to_midpoints(path):
    x = _near_midpoints(3000, seed=11)
    np.testing.assert_array_equal(tf.sqrt(torch.from_numpy(x)).numpy(), np.sqrt(x))
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)
    x32 = x32[np.isfinite(x32)]
    np.testing.assert_array_equal(tf.sqrt(torch.from_numpy(x32)).numpy(), np.sqrt(x32))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_is_eigens_rounding_of_the_float32_root(path, dtype):
    every = torch.arange(0, 1 << 16, dtype=torch.int32).to(torch.int16).view(dtype)
    want = torch.sqrt(every.double()).float().to(dtype)  # float32 root, rounded once more
    got = tf.sqrt(every)
    same = (got == want) | (torch.isnan(got) & torch.isnan(want))
    assert bool(same.all()), every[~same][:8]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_special_values(path, dtype):
    x = torch.tensor([0.0, -0.0, float("inf"), -1.0, float("nan"), -float("inf")], dtype=dtype)
    got = tf.sqrt(x)
    with np.errstate(invalid="ignore"):
        want = torch.from_numpy(np.sqrt(x.numpy()))
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    finite = ~torch.isnan(want)
    assert torch.equal(got[finite], want[finite])
    assert torch.equal(torch.signbit(got[finite]), torch.signbit(want[finite]))  # sqrt(-0) = -0


@pytest.mark.parametrize("dtype,ulps", [(torch.float32, 1), (torch.float64, 2)])
def test_gradient_is_tfs_sqrt_grad_within_its_rounding(path, dtype, ulps):
    """TF's `0.5 * dy / y` rounds once (half an ulp from the true derivative at the root);
    float32 here takes the derivative in float64 and rounds once (one ulp from TF's at most),
    float64 divides at torch's uncorrected root (at most an ulp from `y`: two from TF's)."""
    x = torch.from_numpy(_binades(np.float64, 2000, -60, 60, seed=3)).to(dtype).requires_grad_(True)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.sqrt(x)
    g = tape.gradient(y, x)
    want = 0.5 / y.detach()  # TF's SqrtGrad: dy * 0.5 / y
    ulp = torch.from_numpy(np.spacing(want.abs().numpy()))
    assert bool(((g - want).abs() <= ulps * ulp).all())


def test_foreach_sqrt_and_in_place(path):
    tensors = [torch.from_numpy(_binades(np.float32, n, -100, 100, seed=n)) for n in (1, 17, 999)]
    want = [np.sqrt(t.numpy()) for t in tensors]
    for got, w in zip(exact_math.foreach_sqrt(tensors), want):
        np.testing.assert_array_equal(got.numpy(), w)
    exact_math.foreach_sqrt_(tensors)
    for got, w in zip(tensors, want):
        np.testing.assert_array_equal(got.numpy(), w)


def test_the_ops_built_on_sqrt_take_the_correctly_rounded_root(path):
    x = torch.from_numpy(_binades(np.float32, 5000, -20, 20, seed=5)).reshape(50, 100)
    squares = tf.reduce_sum(x * x, axis=1)
    np.testing.assert_array_equal(tf.norm(x, axis=1).numpy(), np.sqrt(squares.numpy()))
    np.testing.assert_array_equal(tf.math.reduce_euclidean_norm(x, axis=1).numpy(),
                                  np.sqrt(squares.numpy()))
    variance = tf.math.reduce_variance(x, axis=1)
    np.testing.assert_array_equal(tf.math.reduce_std(x, axis=1).numpy(), np.sqrt(variance.numpy()))


def test_a_numpy_and_a_variable_operand(path):
    values = _binades(np.float32, 1000, -30, 30, seed=9)
    np.testing.assert_array_equal(tf.sqrt(values).numpy(), np.sqrt(values))
    np.testing.assert_array_equal(tf.sqrt(tf.Variable(values)).numpy(), np.sqrt(values))


def test_adam_takes_the_correctly_rounded_root(path):
    """One Adam step from zero slots: `m = (1-b1) g`, `v = (1-b2) g*g`, and the update
    divides by `sqrt(v) + eps` -- with the exact root, the multi-tensor and the per-variable
    paths agree with the formula evaluated in NumPy float32 (TF's kernel order)."""
    rs = np.random.RandomState(1)
    w0 = rs.uniform(-1, 1, 4096).astype(np.float32)
    g = rs.uniform(-1, 1, 4096).astype(np.float32)
    var = tf.Variable(w0)
    opt = tf.keras.optimizers.Adam(0.01)
    opt.apply_gradients([(torch.from_numpy(g), var)])
    m = opt.get_slot(var, "m").numpy()
    v = opt.get_slot(var, "v").numpy()
    f = np.float32
    alpha = f(0.01) * np.sqrt(f(1) - f(0.999)) / (f(1) - f(0.9))
    want = w0 - (m * alpha) / (np.sqrt(v) + f(1e-7))
    np.testing.assert_array_equal(var.numpy(), want.astype(np.float32))
