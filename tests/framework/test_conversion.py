"""`tf.convert_to_tensor` / `tf.constant`: TF 2.21's inference and errors, torch's storage.

The golden fixture (`tests/conformance`, section `conversion`) replays a
large table of inputs x dtypes recorded from TF; these tests pin down the
rules by name, plus what a table cannot show (passthrough identity, no
aliasing, placement, registration, packing and densification).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import device as device_lib
from tests.conformance.fixtures import as_numpy_prints


@pytest.fixture(autouse=True)
def _placed_runtime():
    """Initialize the device runtime first, so each test sees only its own subject.

    (`test_first_tensor_on_a_fresh_runtime` checks the uninitialized case.)
    """
    device_lib.list_logical_devices()


def _check(t, dtype, value):
    assert isinstance(t, torch.Tensor)
    assert tf.as_dtype(t.dtype) is dtype, (t.dtype, dtype)
    np.testing.assert_array_equal(t.cpu().float().numpy() if t.dtype is torch.bfloat16
                                  else t.cpu().numpy(), np.asarray(value))
    assert tuple(t.shape) == np.asarray(value).shape


# -- dtype inference (checked against TF 2.21) ----------------------------------

@pytest.mark.parametrize("value,dtype,expected", [
    (1, tf.int32, 1), (-7, tf.int32, -7), (2 ** 31 - 1, tf.int32, 2 ** 31 - 1),
    (2 ** 31, tf.int64, 2 ** 31), (-2 ** 31 - 1, tf.int64, -2 ** 31 - 1),
    (2 ** 63 - 1, tf.int64, 2 ** 63 - 1),
    (1.5, tf.float32, 1.5), (True, tf.bool, True), (1 + 2j, tf.complex128, 1 + 2j),
    ([1, 2, 3], tf.int32, [1, 2, 3]), ([1, 2.5], tf.float32, [1.0, 2.5]),
    ([2.5, 1], tf.float32, [2.5, 1.0]), ([True, False], tf.bool, [True, False]),
    ([[1, 2], [3, 4]], tf.int32, [[1, 2], [3, 4]]), ([2 ** 31, 1], tf.int64, [2 ** 31, 1]),
    ((1, 2), tf.int32, [1, 2]), ([], tf.float32, np.zeros((0,))),
    ([[]], tf.float32, np.zeros((1, 0))),
    ([1, True], tf.int32, [1, 1]),  # TF treats a bool among ints as an int
    ([2j, 1], tf.complex128, [2j, 1]),  # a complex first absorbs later numbers ([1, 2j] fails)
], ids=lambda x: repr(x)[:20])
def test_python_inference(value, dtype, expected):
    for fn in (tf.convert_to_tensor, tf.constant):
        _check(fn(value), dtype, expected)


@pytest.mark.parametrize("np_dtype", ["float16", "float32", "float64", "int8", "int16",
                                      "int32", "int64", "uint8", "bool", "complex64",
                                      "complex128"])
def test_numpy_keeps_its_dtype(np_dtype):
    arr = np.array([1, 0], dtype=np_dtype)
    _check(tf.convert_to_tensor(arr), tf.as_dtype(np_dtype), arr)
    scalar = arr[0]
    _check(tf.constant(scalar), tf.as_dtype(np_dtype), scalar)


def test_lists_of_numpy_scalars_keep_their_dtype():
    _check(tf.constant([np.float16(0.5), np.float16(1.0)]), tf.float16, [0.5, 1.0])
    _check(tf.constant([np.float64(0.1), np.float32(0.5)]), tf.float64, [0.1, 0.5])


@pytest.mark.parametrize("value,match", [
    (2 ** 63, "out-of-range integer"), (2 ** 64 - 1, "out-of-range integer"),
    ([2 ** 63, 1], "out-of-range integer"), ([True, 1.5], "mixed types"),
    ([[1, 2], [3]], "non-rectangular"), (1e40, "out of range for a double-precision float"),
    ([1, None], "mixed types"),
])
def test_python_conversion_errors(value, match):
    with pytest.raises(ValueError, match=match):
        tf.convert_to_tensor(value)


def test_unsupported_objects():
    for value in (None, object(), {"a": 1}):
        with pytest.raises(ValueError, match="with an unsupported type"):
            tf.convert_to_tensor(value)


# -- requested dtypes -----------------------------------------------------------------

def test_python_ints_widen_and_wrap():
    _check(tf.constant(3, dtype=tf.float64), tf.float64, 3.0)
    _check(tf.constant(300, dtype=tf.int8), tf.int8, 44)  # wraps, as TF
    _check(tf.constant(-1, dtype=tf.uint8), tf.uint8, 255)
    _check(tf.constant([1, 256], dtype=tf.uint8), tf.uint8, [1, 0])
    _check(tf.constant(2 ** 63, dtype=tf.float32), tf.float32, np.float32(2 ** 63))


def test_python_floats_keep_float64_precision():
    assert tf.constant(0.1, dtype=tf.float64).item() == 0.1
    assert tf.constant([0.1], dtype=tf.float64)[0].item() == 0.1
    assert tf.convert_to_tensor(1e-50, dtype=tf.float64).item() == 1e-50
    assert tf.convert_to_tensor(1e40, dtype=tf.float64).item() == 1e40


def test_python_float_never_becomes_an_int():
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int32"):
        tf.convert_to_tensor(1.5, dtype=tf.int32)
    with pytest.raises(TypeError,
                       match=r"Cannot convert \[1.0, 2.0\] to EagerTensor of dtype int32"):
        tf.constant([1.0, 2.0], dtype=tf.int32)


def test_python_bool_never_becomes_a_number():
    with pytest.raises(TypeError, match="Cannot convert True to EagerTensor of dtype int8"):
        tf.convert_to_tensor(True, dtype=tf.int8)
    with pytest.raises(TypeError, match="Cannot convert 1 to EagerTensor of dtype bool"):
        tf.convert_to_tensor(1, dtype=tf.bool)


def test_empty_list_takes_any_dtype():
    _check(tf.constant([], dtype=tf.int32), tf.int32, np.zeros((0,), np.int32))
    _check(tf.convert_to_tensor([[]], dtype=tf.int64), tf.int64, np.zeros((1, 0), np.int64))


def test_bfloat16_scalars_stay_scalars():
    t = tf.constant(1.5, dtype=tf.bfloat16)
    assert t.dtype is torch.bfloat16 and tuple(t.shape) == ()
    assert tuple(tf.convert_to_tensor(np.float32(2.0), dtype=tf.bfloat16).shape) == ()


def test_bfloat16_numpy_arrays_convert_as_in_tf():
    """ml_dtypes bfloat16 arrays (what `numpy()` of a bfloat16 tensor gives), as TF 2.21.

    TF: `tf.convert_to_tensor(np.array([1.5, 2], ml_dtypes.bfloat16))` is bfloat16;
    with `dtype=tf.float32` it is cast quietly to `[1.5, 2.0]` (numpy arrays cast,
    tensors do not); a 0-d array or an `ml_dtypes.bfloat16` scalar is a 0-d tensor.
    """
    import ml_dtypes

    bits = np.array([0x3FC0, 0xC010, 0x7F80, 0x0001, 0x8000], dtype=np.uint16)  # 1.5 -2.25 inf ...
    array = bits.view(ml_dtypes.bfloat16)
    t = tf.convert_to_tensor(array)
    assert t.dtype is torch.bfloat16
    np.testing.assert_array_equal(t.view(torch.int16).numpy().view(np.uint16), bits)
    array[0] = 7.0  # converted values never alias the caller's array
    assert t[0].item() == 1.5
    _check(tf.constant(np.array([1.5, 2], ml_dtypes.bfloat16), dtype=tf.float32), tf.float32,
           [1.5, 2.0])
    for value in (np.array(1.5, ml_dtypes.bfloat16), ml_dtypes.bfloat16(1.5)):
        s = tf.constant(value)
        assert s.dtype is torch.bfloat16 and tuple(s.shape) == () and s.item() == 1.5
    back = tf.constant(tf.constant([0.1, 1 / 3], tf.bfloat16).numpy())
    assert back.dtype is torch.bfloat16 and back.tolist() == [0.10009765625, 0.333984375]


def test_conversion_errors_show_tfs_bfloat16_values():
    t = tf.constant([1.5, 2.0], dtype=tf.bfloat16)
    shown = as_numpy_prints("numpy=array([1.5, 2], dtype=bfloat16)")
    with pytest.raises(ValueError, match=re.escape(shown)):
        tf.convert_to_tensor(t, dtype=tf.float32)


def test_numpy_arrays_are_cast_on_request():
    _check(tf.convert_to_tensor(np.array([1, 2]), dtype=tf.int32), tf.int32, [1, 2])
    _check(tf.constant(np.array([1.5, -2.5]), dtype=tf.int32), tf.int32, [1, -2])


def test_tensors_are_never_cast_silently():
    t = tf.constant([1, 2])
    with pytest.raises(ValueError, match="Tensor conversion requested dtype int64 for Tensor "
                                         "with dtype int32"):
        tf.convert_to_tensor(t, dtype=tf.int64)
    with pytest.raises(TypeError, match=r"Expected tensor \[1 2\] with dtype tf.int64, but got "
                                        r"dtype tf.int32"):
        tf.constant(t, dtype=tf.int64)


def test_dtype_given_as_string_or_numpy_type():
    _check(tf.convert_to_tensor(1, dtype="int64"), tf.int64, 1)
    _check(tf.constant([1.0], dtype=np.float64), tf.float64, [1.0])


# -- dtype_hint ---------------------------------------------------------------------------

def test_dtype_hint_is_a_preference():
    _check(tf.convert_to_tensor(1, dtype_hint=tf.float32), tf.float32, 1.0)
    _check(tf.convert_to_tensor([1, 2], dtype_hint=tf.float64), tf.float64, [1.0, 2.0])
    _check(tf.convert_to_tensor(1.5, dtype_hint=tf.int32), tf.float32, 1.5)  # dropped
    t = tf.constant([1, 2])
    assert tf.convert_to_tensor(t, dtype_hint=tf.float32) is t
    _check(tf.convert_to_tensor(np.array([1, 2]), dtype_hint=tf.int32), tf.int32, [1, 2])


# -- tensors, variables, registration --------------------------------------------------------

def test_tensor_passthrough_is_identity():
    t = tf.constant([1, 2])
    assert tf.convert_to_tensor(t) is t
    assert tf.convert_to_tensor(t, dtype=tf.int32) is t


def test_constant_copies_and_never_aliases_numpy():
    arr = np.array([1.0, 2.0])
    c = tf.constant(arr)
    t = tf.convert_to_tensor(arr)
    arr[0] = 100.0
    assert c[0].item() == 1.0 and t[0].item() == 1.0


def test_variables_convert_to_their_value():
    v = tf.Variable([1.0, 2.0])
    t = tf.convert_to_tensor(v)
    assert isinstance(t, torch.Tensor) and t.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="Incompatible type conversion requested to type float64"):
        tf.convert_to_tensor(v, dtype=tf.float64)
    _check(tf.constant(v, dtype=tf.float64), tf.float64, [1.0, 2.0])  # constant() casts


def test_register_tensor_conversion_function():
    class Celsius:
        def __init__(self, degrees):
            self.degrees = degrees

    def to_tensor(value, dtype=None, name=None, as_ref=False):
        return tf.constant(value.degrees, dtype=dtype)

    tf.register_tensor_conversion_function(Celsius, to_tensor)
    _check(tf.convert_to_tensor(Celsius(3)), tf.int32, 3)
    _check(tf.convert_to_tensor(Celsius(3), dtype=tf.float32), tf.float32, 3.0)


def test_register_rejects_numbers_arrays_and_non_callables():
    with pytest.raises(TypeError, match="Cannot register conversions for Python numeric types"):
        tf.register_tensor_conversion_function(int, lambda *a, **k: None)
    with pytest.raises(TypeError):
        tf.register_tensor_conversion_function(np.ndarray, lambda *a, **k: None)

    class Thing:
        pass

    with pytest.raises(TypeError, match="must be callable"):
        tf.register_tensor_conversion_function(Thing, 3)


def test_is_tensor():
    assert tf.is_tensor(tf.constant(1.0))
    assert tf.is_tensor(tf.Variable(1.0))
    assert not tf.is_tensor(1.0)
    assert not tf.is_tensor(np.array(1.0))


def test_tensor_shape_converts_to_int32():
    _check(tf.convert_to_tensor(tf.TensorShape([2, 3])), tf.int32, [2, 3])


# -- packing lists that hold tensors -----------------------------------------------------------

def test_packing_lists_of_tensors():
    _check(tf.convert_to_tensor([tf.constant(1.0), 2.0, tf.constant(3.0)]), tf.float32,
           [1.0, 2.0, 3.0])
    _check(tf.convert_to_tensor([[tf.constant(1), 2], [3, tf.constant(4)]]), tf.int32,
           [[1, 2], [3, 4]])
    _check(tf.convert_to_tensor((tf.constant(1), tf.constant(2))), tf.int32, [1, 2])
    _check(tf.convert_to_tensor([tf.constant([1, 2]), [3, 4]]), tf.int32, [[1, 2], [3, 4]])


def test_packing_casts_to_a_requested_dtype():
    # TF casts the packed elements when a dtype is given.
    _check(tf.convert_to_tensor([tf.constant(1), 2], dtype=tf.float32), tf.float32, [1.0, 2.0])


def test_packing_errors():
    from tfcompat import errors
    with pytest.raises(errors.InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.convert_to_tensor([tf.constant([1.0, 2.0]), tf.constant([1.0])])
    with pytest.raises(errors.InvalidArgumentError, match="was expected to be a int32 tensor but "
                                                          "is a int64 tensor"):
        tf.convert_to_tensor([tf.constant(1), tf.constant(2, dtype=tf.int64)])


# -- constant(shape=) ------------------------------------------------------------------------

def test_constant_shape_fills_and_reshapes():
    _check(tf.constant(7, shape=[2, 3]), tf.int32, np.full((2, 3), 7))
    _check(tf.constant([7], shape=[2, 2]), tf.int32, np.full((2, 2), 7))
    _check(tf.constant(3, dtype=tf.uint8, shape=[2, 2]), tf.uint8, np.full((2, 2), 3))
    _check(tf.constant([1, 2, 3, 4], shape=(2, 2)), tf.int32, [[1, 2], [3, 4]])
    _check(tf.constant(1.0, shape=tf.TensorShape([2])), tf.float32, [1.0, 1.0])
    _check(tf.constant(np.array([1.5, 2.5, 3.5, 4.5], np.float32), shape=[2, 2]), tf.float32,
           [[1.5, 2.5], [3.5, 4.5]])


def test_constant_shape_mismatch():
    with pytest.raises(TypeError, match="Eager execution of tf.constant with unsupported shape"):
        tf.constant([1, 2, 3], shape=[2, 2])


# -- IndexedSlices ------------------------------------------------------------------------------

def test_indexed_slices_densify_summing_duplicates():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), tf.constant([0, 2, 0]),
                         tf.constant([3, 2]))
    _check(tf.convert_to_tensor(s), tf.float32, [[6.0, 8.0], [0.0, 0.0], [3.0, 4.0]])
    assert s.dtype is tf.float32
    assert s.shape == tf.TensorShape([3, 2])
    assert (-s).values.tolist() == [[-1.0, -2.0], [-3.0, -4.0], [-5.0, -6.0]]


def test_indexed_slices_without_dense_shape():
    s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]))
    assert s.shape == tf.TensorShape(None) or s.shape.rank is None or s.shape[1:] == [2]
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(s)


def test_indexed_slices_dtype_mismatch():
    s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1]))
    with pytest.raises(ValueError, match="Incompatible tensor conversion requested to `dtype` "
                                         "float64 for IndexedSlices"):
        tf.convert_to_tensor(s, dtype=tf.float64)


# -- placement -----------------------------------------------------------------------------------

def test_first_tensor_on_a_fresh_runtime():
    """The very first conversion of a process (nothing placed yet) must work."""
    device_lib._reset_runtime()
    try:
        _check(tf.constant(1.0), tf.float32, 1.0)
    finally:
        device_lib._reset_runtime()
        device_lib.list_logical_devices()


def test_new_tensors_go_to_the_current_device():
    expected = device_lib.current_torch_device()
    assert tf.constant([1.0]).device == expected
    assert tf.convert_to_tensor(np.array([1])).device == expected


# -- Python scalars: a fill kernel, never a host-to-device copy --------------------------------

@pytest.fixture
def no_copies(monkeypatch):
    """Make `torch.tensor` (a host buffer copied to the device) fail while a test runs."""
    def copying(*args, **kwargs):
        raise AssertionError("torch.tensor copies a host buffer: on an accelerator, a stream sync")
    monkeypatch.setattr(torch, "tensor", copying)


@pytest.mark.parametrize("value, dtype, expected_dtype, expected", [
    (1.5, None, tf.float32, 1.5), (3, None, tf.int32, 3), (True, None, tf.bool, True),
    (2, tf.float16, tf.float16, 2.0), (2, tf.bfloat16, tf.bfloat16, 2.0),
    (0.5, tf.complex64, tf.complex64, 0.5), (7, tf.int64, tf.int64, 7),
    (-3, tf.int8, tf.int8, -3), (300, tf.int16, tf.int16, 300), (200, tf.uint8, tf.uint8, 200),
    (True, tf.float32, tf.float32, 1.0), (False, tf.int32, tf.int32, 0),
    (True, tf.bool, tf.bool, True),
])
def test_python_scalars_are_filled_not_copied(no_copies, value, dtype, expected_dtype, expected):
    _check(tf.convert_to_tensor(value, dtype=dtype), expected_dtype, expected)


def test_python_operands_of_ops_are_filled_not_copied(no_copies):
    x = torch.ones(3)
    assert tf.add(x, 2.0).tolist() == [3.0] * 3
    assert tf.multiply(2, torch.ones(2, dtype=torch.int8)).tolist() == [2, 2]
    assert tf.less(x, 1.5).tolist() == [True] * 3
    assert tf.math.floordiv(torch.full((2,), 7, dtype=torch.int32), 2).tolist() == [3, 3]
    assert tf.clip_by_global_norm([torch.full((4,), 2.0)], 2.0)[1].item() == 4.0


def test_ints_reach_floats_through_a_double_as_tf():
    # TF converts a Python int with PyLong_AsDouble, then to the dtype: two roundings.
    # 2**54 + 2**30 + 1 is 2**54 + 2**30 in float64, a tie that float32 rounds to 2**54
    # (rounded once, it would be 2**54 + 2**31).
    v = 2 ** 54 + 2 ** 30 + 1
    assert int(tf.convert_to_tensor(v, dtype=tf.float32).item()) == 2 ** 54
    assert int(tf.constant(v, dtype=tf.float32).item()) == 2 ** 54
    assert tf.convert_to_tensor(2 ** 70, dtype=tf.float32).item() == float(np.float32(2.0 ** 70))


def test_python_scalars_out_of_a_dtype_take_tf_general_rules():
    _check(tf.convert_to_tensor(300, dtype=tf.uint8), tf.uint8, 44)  # TF wraps
    _check(tf.convert_to_tensor(1e300, dtype=tf.complex64), tf.complex64, complex("inf"))
    with pytest.raises(TypeError, match="Cannot convert True to EagerTensor of dtype int8"):
        tf.convert_to_tensor(True, dtype=tf.int8)
    with pytest.raises(TypeError, match="Cannot convert 1.5 to EagerTensor of dtype int8"):
        tf.convert_to_tensor(1.5, dtype=tf.int8)


# -- what is a tensor --------------------------------------------------------------------------

def test_is_tensor_is_false_for_convertible_types():
    # As TF: registering a conversion makes a type convertible, not a tensor.
    class Celsius:
        pass

    tf.register_tensor_conversion_function(Celsius, lambda v, dtype=None, name=None, as_ref=False:
                                           tf.constant(1.0))
    assert not tf.is_tensor(tf.TensorShape([2]))
    assert not tf.is_tensor(Celsius())
    assert tf.is_tensor(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]), [2]))


def test_tensor_shapes_in_lists_are_sequences_of_ints():
    # TF reads a TensorShape inside a list as the sequence of its dims.
    _check(tf.convert_to_tensor([tf.TensorShape([2]), tf.TensorShape([3])]), tf.int32, [[2], [3]])
    _check(tf.convert_to_tensor([tf.TensorShape([2, 4]), [3, 5]]), tf.int32, [[2, 4], [3, 5]])
    _check(tf.convert_to_tensor([tf.TensorShape([2])], dtype=tf.float32), tf.float32, [[2.0]])
    _check(tf.convert_to_tensor([tf.TensorShape([2]), tf.Variable([3])]), tf.int32, [[2], [3]])
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        tf.convert_to_tensor([tf.TensorShape(None)])


def test_constant_of_a_tensor_shape_is_its_dims():
    _check(tf.constant(tf.TensorShape([2, 3])), tf.int32, [2, 3])
    _check(tf.constant(tf.TensorShape([2, 3]), dtype=tf.float32), tf.float32, [2.0, 3.0])
    _check(tf.constant([tf.TensorShape([2]), [3]]), tf.int32, [[2], [3]])


def test_tensor_shape_conversion_dtypes_as_tf():
    _check(tf.convert_to_tensor(tf.TensorShape([2]), dtype=tf.int64), tf.int64, [2])
    _check(tf.convert_to_tensor(tf.TensorShape([2 ** 40])), tf.int64, [2 ** 40])
    with pytest.raises(TypeError, match=r"Cannot convert TensorShape \(2, 3\) to dtype "
                                        r"<dtype: 'float32'>. Allowed dtypes are tf.int32 and "
                                        "tf.int64."):
        tf.convert_to_tensor(tf.TensorShape([2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="to dtype int32; a dimension is too large"):
        tf.convert_to_tensor(tf.TensorShape([2 ** 40]), dtype=tf.int32)
    with pytest.raises(ValueError, match=r"partially known TensorShape \(None, 2\)"):
        tf.convert_to_tensor(tf.TensorShape([None, 2]))


def test_registered_types_in_lists_are_not_packed():
    # TF auto-packs tensors and variables only: other values in a list are Python values.
    s = tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]), [2])
    with pytest.raises(ValueError, match="with an unsupported type"):
        tf.convert_to_tensor([s, s])


# -- placement: shape tensors live in host memory -----------------------------------------------

@pytest.fixture
def elsewhere(monkeypatch):
    """Place new tensors on torch's `meta` device: a stand-in for an accelerator.

    Whatever lands there by mistake cannot be read or copied back, so a wrong
    placement fails loudly on a CPU-only host.
    """
    monkeypatch.setattr(device_lib, "current_torch_device", lambda: torch.device("meta"))


def test_tensor_shapes_convert_into_host_memory(elsewhere):
    t = tf.convert_to_tensor(tf.TensorShape([2, 3]))
    assert t.device.type == "cpu" and t.tolist() == [2, 3]
    assert tf.convert_to_tensor(1.0).device.type == "meta"  # (the placement is in force)


def test_indexed_slices_keep_dense_shape_in_host_memory(elsewhere):
    values = torch.ones(2, 2)
    s = tf.IndexedSlices(values, torch.tensor([0, 2]), [3, 2])
    assert s.dense_shape.device.type == "cpu" and s.dense_shape.dtype == torch.int32
    assert s.shape == tf.TensorShape([3, 2])
    assert s.to_dense().tolist() == [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]
    # A host dense_shape with values elsewhere, and a TensorShape, are taken as they are.
    meta = tf.IndexedSlices(torch.ones(1, 2, device="meta"), torch.tensor([1]),
                            torch.tensor([4, 2]))
    assert meta.to_dense().shape == (4, 2) and meta.to_dense().device.type == "meta"
    assert tf.IndexedSlices(values, torch.tensor([0, 1]),
                            tf.TensorShape([2, 2])).dense_shape.tolist() == [2, 2]


def test_an_unsupported_first_value_is_named_as_tf():
    for value in ([None], [None, 1], [[None]], [object()]):
        with pytest.raises(ValueError, match=r"Attempt to convert a value \(.*\) with an "
                                             "unsupported type"):
            tf.convert_to_tensor(value)
    with pytest.raises(ValueError, match="mixed types"):
        tf.convert_to_tensor([1, None])


def test_string_sequences_are_a_clear_type_error():
    # TF builds a tf.string tensor; torch has no strings, so tfcompat says so (issue 9, §4).
    import tfcompat as tf
    for value in (["a", "b"], [b"a"], [["x"], ["y"]], "abc", b"abc"):
        with pytest.raises(TypeError, match="numbers only"):
            tf.constant(value)
    with pytest.raises(ValueError, match="mixed types"):  # TF's error for mixed sequences
        tf.constant([1, "a"])


class _ArrayLike:
    """What a pandas DataFrame / Series offers the converter: `__array__`, nothing else."""

    def __init__(self, array):
        self._array = array

    def __array__(self, dtype=None, copy=None):
        return self._array if dtype is None else self._array.astype(dtype)


def test_array_likes_convert_through_their_numpy_value():
    """TF converts a pandas DataFrame (`tf.convert_to_tensor(df)`, TF's core quickstart) or a
    Series through `__array__`, keeping the array's dtype; an object array stays TF's error."""
    values = np.arange(6, dtype=np.float64).reshape(3, 2)
    t = tf.convert_to_tensor(_ArrayLike(values))
    assert t.dtype == torch.float64 and t.tolist() == values.tolist()
    assert tf.convert_to_tensor(_ArrayLike(values), dtype=tf.float32).dtype == torch.float32
    assert tf.constant(_ArrayLike(np.array([1, 2], np.int64))).dtype == torch.int64
    source = np.array([1.0, 2.0])
    t = tf.convert_to_tensor(_ArrayLike(source))
    source[0] = 9.0
    assert t.tolist() == [1.0, 2.0]  # (a copy: the array-like's memory is not aliased)
    with pytest.raises(ValueError, match="with an unsupported type"):
        tf.convert_to_tensor(_ArrayLike(np.array([1, "x"], dtype=object)))
