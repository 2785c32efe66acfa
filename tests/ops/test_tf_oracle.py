"""The same calls against tfcompat and a live TensorFlow (`-m tf_oracle`; skipped without TF).

Each case is a function of the API module (`tfcompat` or `tensorflow`),
so one line states the call for both. Results must agree in dtype, shape
and value; failures must raise exceptions of the same class name.
"""

import numpy as np
import pytest
import torch

import tfcompat
import tfcompat.math  # noqa: F401  (binds the namespaces on the package)
import tfcompat.nn  # noqa: F401
import tfcompat.random  # noqa: F401
import tfcompat.linalg  # noqa: F401
from tfcompat.framework import dtypes

pytestmark = pytest.mark.tf_oracle

X = np.arange(6, dtype=np.int32).reshape(2, 3)
F = np.array([[1.0, -2.0, 3.5], [0.0, np.nan, -1.0]], dtype=np.float32)
L = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], dtype=np.float32)
LAB = np.array([[0.5, 1.0, 0.0], [0.2, 0.2, 0.2]], dtype=np.float32)  # rows do not sum to 1
R = np.array([[-2.0, 1.0], [3.0, 4.0]], dtype=np.float32)

CASES = {
    # math
    "square_int": lambda tf: tf.square([1, -2]),
    "sign": lambda tf: tf.sign(F),
    "rsqrt": lambda tf: tf.math.rsqrt([4.0, 0.0]),
    "floormod": lambda tf: tf.math.floormod([7.5, -7.5], [2.0, 2.0]),
    "maximum_nan": lambda tf: tf.maximum([np.nan, 1.0], [1.0, np.nan]),
    "sqrt_int_error": lambda tf: tf.sqrt([1, 2]),
    "add_n": lambda tf: tf.add_n([X, X, X]),
    "add_n_mixed": lambda tf: tf.add_n([X, X.astype(np.float32)]),
    "add_n_shapes": lambda tf: tf.add_n([np.ones(2, np.float32), np.ones(3, np.float32)]),
    # reductions
    "reduce_mean_int": lambda tf: tf.reduce_mean(X, axis=0),
    "reduce_mean_uint8": lambda tf: tf.reduce_mean(np.array([255, 255], np.uint8)),
    "reduce_sum_int8_wraps": lambda tf: tf.reduce_sum(np.array([100, 100], np.int8)),
    "reduce_max_axes": lambda tf: tf.reduce_max(F, axis=[-1], keepdims=True),
    "reduce_min_empty": lambda tf: tf.reduce_min(np.zeros((2, 0), np.float32), axis=1),
    "reduce_prod_axes": lambda tf: tf.reduce_prod(L, axis=[0, 1]),
    "reduce_sum_empty_axis": lambda tf: tf.reduce_sum(X, axis=[]),
    "reduce_all": lambda tf: tf.reduce_all([[True, False], [True, True]], axis=1),
    "reduce_dup_axis": lambda tf: tf.reduce_sum(X, axis=[1, -1]),
    "reduce_bad_axis": lambda tf: tf.reduce_sum(X, axis=2),
    "reduce_any_int": lambda tf: tf.reduce_any(X),
    "reduce_any_py_int": lambda tf: tf.reduce_any([1, 0]),
    "argmax_nan": lambda tf: tf.argmax(np.array([[np.nan, 1.0], [2.0, np.nan]], np.float32), 1),
    "argmax_int32": lambda tf: tf.argmax(X, axis=1, output_type=tf.int32),
    "cumsum_excl_rev": lambda tf: tf.cumsum(X, axis=1, exclusive=True, reverse=True),
    # array
    "reshape": lambda tf: tf.reshape(X, [3, -1]),
    "reshape_bad": lambda tf: tf.reshape(X, [4]),
    "transpose_perm": lambda tf: tf.transpose(np.zeros((2, 3, 4), np.float32), perm=[2, 0, 1]),
    "concat_py": lambda tf: tf.concat([X, [[1, 2, 3]]], 0),
    "concat_mixed": lambda tf: tf.concat([X, X.astype(np.float32)], 0),
    "stack_axis": lambda tf: tf.stack([X, X], axis=-1),
    "stack_py": lambda tf: tf.stack([1, 2.0]),
    "stack_py_axis": lambda tf: tf.stack([1, 2.0], axis=-1),
    "stack_py_ragged": lambda tf: tf.stack([[1, 2], [3]]),
    "stack_py_bool_int": lambda tf: tf.stack([True, 1]),
    "stack_shapes": lambda tf: tf.stack([tf.TensorShape([2]), tf.TensorShape([3])]),
    "unstack": lambda tf: tf.unstack(X, axis=1),
    "split_sizes": lambda tf: tf.split(np.arange(6), [1, -1, 2]),
    "split_uneven": lambda tf: tf.split(np.arange(6), 4),
    "squeeze_axis": lambda tf: tf.squeeze(np.zeros((1, 2, 1)), axis=[0, 2]),
    "squeeze_bad": lambda tf: tf.squeeze(np.zeros((1, 2, 1)), axis=1),
    "expand_dims": lambda tf: tf.expand_dims(X, -1),
    "tile": lambda tf: tf.tile(X, [2, 3]),
    "pad_constant": lambda tf: tf.pad(X, [[1, 0], [0, 2]], constant_values=7),
    "pad_reflect": lambda tf: tf.pad(X, [[1, 1], [2, 2]], mode="REFLECT"),
    "pad_symmetric": lambda tf: tf.pad(X, [[2, 2], [3, 3]], mode="SYMMETRIC"),
    "pad_reflect_too_big": lambda tf: tf.pad(X, [[2, 0], [0, 0]], mode="REFLECT"),
    "shape_size_rank": lambda tf: [tf.shape(X), tf.size(X), tf.rank(X)],
    "zeros_ones_fill": lambda tf: [tf.zeros([2], tf.int64), tf.ones(3), tf.fill([2], 3)],
    "range_float": lambda tf: tf.range(-2.5, 7.0, 0.3),
    "range_tenth": lambda tf: tf.range(0, 1, 0.1),
    "range_mixed": lambda tf: tf.range(np.int64(3), 5.5),
    "range_bad": lambda tf: tf.range(5, 1),
    "one_hot": lambda tf: tf.one_hot([0, 2, -1, 5], 3, on_value=5, off_value=-1, axis=0),
    "one_hot_dtype_clash": lambda tf: tf.one_hot([0], 3, on_value=5, off_value=0.0),
    # indexing
    "gather_batch": lambda tf: tf.gather(np.arange(24).reshape(2, 3, 4),
                                         [[0, 2], [1, 1]], axis=2, batch_dims=1),
    "gather_oob": lambda tf: tf.gather([1.0, 2.0, 3.0], [[0, 1], [2, 5]]),
    "gather_nd": lambda tf: tf.gather_nd(X, [[[0, 1]], [[1, 2]]]),
    "gather_nd_batch": lambda tf: tf.gather_nd(X, [[1], [2]], batch_dims=1),
    "gather_nd_oob": lambda tf: tf.gather_nd(X, [[0, 1], [1, 3]]),
    "scatter_nd_dups": lambda tf: tf.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [5]),
    "tensor_scatter_add": lambda tf: tf.tensor_scatter_nd_add(X, [[0, 0], [0, 0]], [5, 6]),
    "tensor_scatter_update": lambda tf: tf.tensor_scatter_nd_update(X, [[1]], [[7, 8, 9]]),
    "segment_sum": lambda tf: tf.math.unsorted_segment_sum([[1, 2], [3, 4], [5, 6]], [1, -1, 1], 3),
    "segment_sum_oob": lambda tf: tf.math.unsorted_segment_sum([1.0, 2.0], [0, 5], 3),
    "boolean_mask_axis": lambda tf: tf.boolean_mask(X, [True, False, True], axis=1),
    "boolean_mask_2d": lambda tf: tf.boolean_mask(X, [[True, False, True], [False, False, True]]),
    "where_coords": lambda tf: tf.where([[1.0, 0.0], [np.nan, 2.0]]),
    "where_select": lambda tf: tf.where([[True], [False]], X[:, :2], 0),
    "where_mismatch": lambda tf: tf.where([True, False], X[0, :2], 2.5),
    "unique": lambda tf: list(tf.unique([3, 1, 3, 2, 1])),
    "unique_nan": lambda tf: list(tf.unique(np.array([np.nan, 1.0, np.nan, 1.0], np.float32))),
    "where_np_int_cond": lambda tf: tf.where(np.array([1, 0]), [1, 2], [3, 4]),
    # nn
    "relu_int": lambda tf: tf.nn.relu(X - 2),
    "softmax_axis0": lambda tf: tf.nn.softmax(L, axis=0),
    "log_softmax": lambda tf: tf.nn.log_softmax(L),
    "softmax_xent": lambda tf: tf.nn.softmax_cross_entropy_with_logits(LAB, L),
    "softmax_xent_axis0": lambda tf: tf.nn.softmax_cross_entropy_with_logits(LAB, L, axis=0),
    "sparse_xent": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0], L),
    "sparse_xent_oob": lambda tf: tf.nn.sparse_softmax_cross_entropy_with_logits([3, 0], L),
    "sigmoid_xent": lambda tf: tf.nn.sigmoid_cross_entropy_with_logits(
        np.array([0.0, 1.0, 0.5], np.float32), np.array([-3.0, 4.0, 0.0], np.float32)),
    "l2_loss": lambda tf: tf.nn.l2_loss(L),
    "bias_add_nchw": lambda tf: tf.nn.bias_add(np.zeros((1, 2, 2, 2), np.float32), [1.0, 2.0],
                                               data_format="NCHW"),
    "dropout_rate_1": lambda tf: tf.nn.dropout(L, rate=1.0),
    # clip
    "clip_by_value": lambda tf: tf.clip_by_value(R, -1.0, 2.0),
    "clip_by_norm_axes": lambda tf: tf.clip_by_norm(R, 1.0, axes=[1]),
    "clip_by_global_norm": lambda tf: list(tf.clip_by_global_norm([R, R[0]], 2.0)),
    "global_norm_none": lambda tf: tf.linalg.global_norm([R, None]),
    # random: shapes and dtypes only (TF's streams are not reproduced)
    "uniform_int": lambda tf: tf.shape(tf.random.uniform([3, 2], 0, 5, dtype=tf.int64)),
    "uniform_no_maxval": lambda tf: tf.random.uniform([2], dtype=tf.int32),
    "normal_dtype": lambda tf: tf.zeros_like(tf.random.normal([2], dtype=tf.float64)),
    "truncated_dtype": lambda tf: tf.zeros_like(tf.random.truncated_normal([2], dtype=tf.float16)),
}


def _plain(x):
    """Nested numpy values plus dtype names, from either API's output."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, torch.Tensor):
        return (dtypes.from_torch(x.dtype).name, x.detach().cpu().numpy())
    return (x.dtype.name, x.numpy())


def _run(api, fn):
    try:
        return "ok", _plain(fn(api))
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "error", type(e).__name__


def _assert_same(got, want, where="result"):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{where}[{i}]")
        return
    (gdt, gv), (wdt, wv) = got, want
    assert gdt == wdt, f"{where}: dtype {gdt} != TF's {wdt}"
    assert gv.shape == wv.shape, f"{where}: shape {gv.shape} != TF's {wv.shape}"
    if wv.dtype.kind in "fc":
        np.testing.assert_allclose(gv, wv, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(gv, wv, err_msg=where)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name, tf_oracle):
    want = _run(tf_oracle, CASES[name])
    got = _run(tfcompat, CASES[name])
    assert got[0] == want[0], f"tfcompat gave {got}, TF gave {want}"
    if want[0] == "error":
        assert got[1] == want[1], f"tfcompat raised {got[1]}, TF raised {want[1]}"
    else:
        _assert_same(got[1], want[1])


# -- gradients ----------------------------------------------------------------------------

GRADIENT_CASES = {
    "softmax_xent_unnormalized": lambda tf, x: tf.reduce_sum(
        tf.nn.softmax_cross_entropy_with_logits(LAB, x)),
    "clip_by_value_ties": lambda tf, x: tf.reduce_sum(tf.clip_by_value(x, 1.0, 2.0)),
    "maximum_ties": lambda tf, x: tf.reduce_sum(tf.maximum(x, 1.0) + tf.minimum(x, 1.0)),
    "relu_at_zero": lambda tf, x: tf.reduce_sum(tf.nn.relu(x - 1.0)),
    "reduce_max_ties": lambda tf, x: tf.reduce_max(x),
    "sigmoid_xent_at_zero": lambda tf, x: tf.reduce_sum(
        tf.nn.sigmoid_cross_entropy_with_logits(LAB, x - 1.0)),
    "clip_by_norm": lambda tf, x: tf.reduce_sum(tf.multiply(tf.clip_by_norm(x, 1.0), LAB)),
    "clip_by_global_norm": lambda tf, x: tf.reduce_sum(
        tf.multiply(tf.clip_by_global_norm([x], 2.0)[0][0], LAB)),
    "sqrt_square_abs": lambda tf, x: tf.reduce_sum(tf.sqrt(tf.square(x) + 1.0) + tf.abs(x - 1.0)),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradients_match_tensorflow(name, tf_oracle):
    fn = GRADIENT_CASES[name]
    x0 = L  # holds ties at 1.0 and values on the clip bounds

    tv = tf_oracle.Variable(x0)
    with tf_oracle.GradientTape() as tape:
        y = fn(tf_oracle, tv)
    want = tf_oracle.convert_to_tensor(tape.gradient(y, tv)).numpy()

    v = tfcompat.Variable(x0)
    with tfcompat.GradientTape() as tape:
        y = fn(tfcompat, v)
    got = tfcompat.convert_to_tensor(tape.gradient(y, v)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


# -- namespaces ---------------------------------------------------------------------------

NAMESPACES = ["", "math", "nn", "random", "linalg", "bitwise"]


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_every_exported_name_exists_in_tensorflow(namespace, tf_oracle):
    import importlib
    ours = importlib.import_module("tfcompat.ops" if not namespace else f"tfcompat.{namespace}")
    theirs = tf_oracle if not namespace else getattr(tf_oracle, namespace)
    missing = [n for n in ours.__all__ if not hasattr(theirs, n)]
    assert not missing, f"tf.{namespace} has no {missing}"
