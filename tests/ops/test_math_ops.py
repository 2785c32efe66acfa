"""Element-wise math: binary ops, unary ops, `maximum`/`minimum` gradients, `add_n`."""

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat import math as tfm
from tfcompat.autodiff import GradientTape
from tfcompat.framework import errors

FLOATS = st.floats(-8, 8, width=32, allow_nan=False)


def arrays(dtype=np.float32, shape=None, elements=FLOATS):
    shape = shape if shape is not None else hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)
    return hnp.arrays(dtype, shape, elements=elements)


# -- unary ops ------------------------------------------------------------------

UNARY = [
    ("square", np.square, tfm.square),
    ("sqrt", np.sqrt, tfm.sqrt),
    ("rsqrt", lambda a: 1 / np.sqrt(a), tfm.rsqrt),
    ("exp", np.exp, tfm.exp),
    ("log", np.log, tfm.log),
    ("abs", np.abs, tfm.abs),
    ("sign", np.sign, tfm.sign),
    ("negative", np.negative, tfm.negative),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a)), tfm.sigmoid),
    ("tanh", np.tanh, tfm.tanh),
]


@pytest.mark.parametrize("name,ref,op", UNARY, ids=[u[0] for u in UNARY])
@given(x=arrays(elements=st.floats(0.125, 8, width=32)))
def test_unary_matches_numpy(name, ref, op, x):
    out = op(torch.from_numpy(x))
    assert out.dtype == torch.float32 and tuple(out.shape) == x.shape
    np.testing.assert_allclose(out.numpy(), ref(x.astype(np.float64)), rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("op", [tfm.sqrt, tfm.rsqrt, tfm.exp, tfm.log, tf.sigmoid, tf.tanh])
@pytest.mark.parametrize("value", [[1, 2], torch.tensor([1], dtype=torch.int64),
                                   torch.tensor([True])])
def test_float_only_unary_ops_reject_ints_and_bools(op, value):
    with pytest.raises(errors.InvalidArgumentError, match="is not in the list of allowed values"):
        op(value)


def test_unary_dtype_rules():
    assert tf.square([1, 2]).dtype == torch.int32
    assert tf.square(torch.tensor([3], dtype=torch.uint8)).tolist() == [9]
    assert tf.sqrt(2.0).dtype == torch.float32
    assert tf.sign(torch.tensor([-3, 0, 2], dtype=torch.int8)).tolist() == [-1, 0, 1]
    with pytest.raises(errors.InvalidArgumentError):
        tf.sign(torch.tensor([1], dtype=torch.uint8))
    assert tf.abs(torch.tensor([3 + 4j], dtype=torch.complex64)).dtype == torch.float32
    z = tf.sign(torch.tensor([1 + 1j], dtype=torch.complex64))
    np.testing.assert_allclose(z.numpy(), [np.sqrt(0.5) * (1 + 1j)], rtol=1e-6)


def test_unary_edge_values():
    assert np.isnan(tf.sqrt(-1.0).item())
    assert tfm.log(0.0).item() == -np.inf
    assert tfm.rsqrt(0.0).item() == np.inf
    out = tf.sign(torch.tensor([0.0, -0.0, np.nan]))
    assert out[0].item() == 0 and out[1].item() == 0 and np.isnan(out[2].item())


def test_unary_ops_read_variables():
    v = tf.Variable([4.0, 9.0])
    assert tf.sqrt(v).tolist() == [2.0, 3.0]
    assert tfm.log(tf.Variable(1.0)).item() == 0.0


# -- binary ops (the existing core, spot checks) -------------------------------------

def test_binary_aliases_and_semantics():
    assert tfm.floormod is tfm.mod
    assert tfm.floordiv([7, -7], 2).tolist() == [3, -4]
    assert tfm.floormod([7, -7], 3).tolist() == [1, 2]
    assert tf.divide([1, 2], [2, 2]).dtype == torch.float64
    with pytest.raises(TypeError, match="Cannot convert 2.5"):
        tf.multiply(torch.tensor([1]), 2.5)


def test_python_floats_meet_float64_tensors_exactly():
    assert tf.subtract(torch.zeros(1, dtype=torch.float64), -0.1).item() == 0.1


@given(x=arrays(shape=(3,)), y=arrays(shape=(3,)))
def test_maximum_minimum_match_numpy(x, y):
    np.testing.assert_array_equal(tf.maximum(x, y).numpy(), np.maximum(x, y))
    np.testing.assert_array_equal(tf.minimum(x, y).numpy(), np.minimum(x, y))


def test_maximum_propagates_nan():
    out = tf.maximum([np.nan, 1.0], [1.0, np.nan])
    assert np.isnan(out.numpy()).all()
    assert np.isnan(tf.maximum(torch.tensor([np.nan]), 0.0).item())  # the scalar fast path too


def test_maximum_with_python_scalars_keeps_tf_dtype_rules():
    assert tf.maximum(torch.tensor([1, 5], dtype=torch.int32), 3).tolist() == [3, 5]
    assert tf.minimum(torch.tensor([1.5]), 1).dtype == torch.float32
    with pytest.raises(TypeError, match="Cannot convert 2.5"):
        tf.maximum(torch.tensor([1], dtype=torch.int32), 2.5)
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        tf.maximum(torch.tensor([True]), 1)
    with pytest.raises(errors.InvalidArgumentError, match="of bool"):
        tf.maximum(torch.tensor([True]), torch.tensor([False]))


def test_maximum_tie_gradient_goes_to_x_as_in_tf():
    x = tf.Variable([1.0, 2.0, 3.0])
    y = tf.Variable([1.0, 1.0, 5.0])
    with GradientTape(persistent=True) as tape:
        hi = tf.reduce_sum(tf.maximum(x, y))
        lo = tf.reduce_sum(tf.minimum(x, y))
    gx, gy = tape.gradient(hi, [x, y])
    assert gx.tolist() == [1.0, 1.0, 0.0] and gy.tolist() == [0.0, 0.0, 1.0]
    gx, gy = tape.gradient(lo, [x, y])
    assert gx.tolist() == [1.0, 0.0, 1.0] and gy.tolist() == [0.0, 1.0, 0.0]


def test_maximum_gradient_unbroadcasts():
    x = torch.tensor([[1.0, 5.0], [3.0, 0.0]], requires_grad=True)
    y = torch.tensor([2.0], requires_grad=True)
    tf.maximum(x, y).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert y.grad.tolist() == [2.0]


def test_maximum_second_order_gradient():
    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(tf.maximum(x * x, 1.0).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    assert g.item() == 4.0 and gg.item() == 2.0


# -- add_n ---------------------------------------------------------------------------

@given(st.lists(arrays(shape=(2, 3)), min_size=1, max_size=5))
def test_add_n_sums_left_to_right(xs):
    expected = xs[0].copy()
    for x in xs[1:]:
        expected = expected + x
    np.testing.assert_array_equal(tf.add_n([torch.from_numpy(x) for x in xs]).numpy(), expected)


def _tf_add_n_order(xs):
    """TF's AddN kernel order (checked against TF 2.21): the first n % 8 inputs (8 if none, 9 if
    one) left to right, then `out += c0 + ... + c7` per following chunk of 8, each rounded."""
    n = len(xs)
    head = n % 8 or 8
    if head == 1 and n > 1:
        head = 9
    out = xs[0]
    for x in xs[1:head]:
        out = out + x
    for i in range(head, n, 8):
        chunk = xs[i]
        for x in xs[i + 1:i + 8]:
            chunk = chunk + x
        out = out + chunk
    return out


@given(st.lists(arrays(shape=(3,)), min_size=1, max_size=40))
def test_add_n_sums_in_tfs_kernel_order(xs):
    got = tf.add_n([torch.from_numpy(x) for x in xs]).numpy()
    np.testing.assert_array_equal(got, _tf_add_n_order(xs))


# tf.add_n of n seeded inputs, recorded from TF 2.21 (values exactly as TF printed them)
_TF_ADD_N = {
    (17, "float32"): [1470.129150390625, -414.7447509765625, -174.65560913085938],
    (100, "float32"): [-2392.3916015625, 8103.248046875, 2547.13037109375],
    (2000, "float32"): [-16962.27734375, -33139.91796875, -659.54833984375],
    (25, "float16"): [155.0, -453.0, 3230.0],
    (2001, "float16"): [75.0, -9072.0, -12224.0],
}


@pytest.mark.parametrize("n,dtype", sorted(_TF_ADD_N))
def test_add_n_of_many_inputs_matches_tf_to_the_bit(n, dtype):
    rs = np.random.RandomState(n)
    xs = [np.asarray(rs.randn(3) * 10.0 ** rs.randint(-3, 4), dtype) for _ in range(n)]
    got = tf.add_n([torch.from_numpy(x) for x in xs])
    np.testing.assert_array_equal(got.numpy(), np.asarray(_TF_ADD_N[(n, dtype)], dtype))
    np.testing.assert_array_equal(got.numpy(), _tf_add_n_order(xs))


@pytest.mark.parametrize("n", [10, 17, 2000])
def test_add_n_of_many_differentiable_inputs_keeps_tfs_value_and_exact_gradients(n):
    rs = np.random.RandomState(n)
    xs = [torch.tensor(rs.randn(3) * 10.0 ** rs.randint(-3, 4), dtype=torch.float32,
                       requires_grad=True) for _ in range(n)]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        total = tf.add_n([x * x for x in xs])
    expected = _tf_add_n_order([(x * x).detach().numpy() for x in xs])
    np.testing.assert_array_equal(total.detach().numpy(), expected)
    grads = tape.gradient(tf.reduce_sum(total), xs)
    for x, g in zip(xs, grads):
        np.testing.assert_array_equal(g.numpy(), (2 * x).detach().numpy())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_add_n_of_many_scalars_in_tfs_order(dtype, requires_grad):
    """A loss summed from per-variable scalars (`tf.add_n([tf.reduce_sum(...) ...])`): 0-d
    inputs, in TF's order, in every float dtype, on and off the tape."""
    rs = np.random.RandomState(7)
    values = [np.float32(rs.randn() * 10.0 ** rs.randint(-3, 4)) for _ in range(2003)]
    xs = [torch.tensor(v).to(dtype).requires_grad_(requires_grad) for v in values]
    total = tf.add_n([x * 1 for x in xs])
    assert total.shape == () and total.dtype == dtype
    want = [x.detach() for x in xs]
    expected = want[0] + want[1]
    head = len(want) % 8 or 8
    for x in want[2:head]:
        expected = expected + x
    for i in range(head, len(want), 8):
        chunk = want[i] + want[i + 1]
        for x in want[i + 2:i + 8]:
            chunk = chunk + x
        expected = expected + chunk
    assert torch.equal(total.detach(), expected)
    if requires_grad:
        grads = torch.autograd.grad(total, xs)
        assert all(float(g) == 1.0 for g in grads)


def test_add_n_rules():
    assert tf.add_n([1, 2]).dtype == torch.int32
    single = torch.tensor([1.0])
    assert tf.add_n([single]) is single
    assert tf.add_n(torch.ones(2, 3)).tolist() == [2.0, 2.0, 2.0]
    dense = tf.add_n([tf.IndexedSlices(torch.ones(1, 2), [0], [3, 2]),
                      tf.IndexedSlices(torch.ones(1, 2), [1], [3, 2])])
    assert dense.tolist() == [[1, 1], [1, 1], [0, 0]]
    with pytest.raises(ValueError, match="at least one"):
        tf.add_n([])
    with pytest.raises(errors.InvalidArgumentError, match="same size and shape"):
        tf.add_n([torch.ones(2), torch.ones(1)])
    with pytest.raises(errors.InvalidArgumentError, match="input #1"):
        tf.add_n([torch.ones(2), torch.ones(2, dtype=torch.float64)])
    with pytest.raises(errors.InvalidArgumentError, match="not in the list"):
        tf.add_n([torch.tensor([True])] * 2)


def test_add_n_gradient_reaches_every_input():
    xs = [torch.tensor([1.0, 2.0], requires_grad=True) for _ in range(3)]
    tf.add_n(xs).sum().backward()
    assert all(x.grad.tolist() == [1.0, 1.0] for x in xs)
