"""Layers take what tf_keras layers take: tensors, NumPy arrays, Python numbers and variables
(read, with the gradient reaching the variable); and Softmax's float16 mask constant is
tf_keras's (float16.min / 2), so a fully masked float16 row stays finite."""

from __future__ import annotations

import numpy as np
import torch

import tfcompat as tf

L = tf.keras.layers


def test_a_variable_input_is_read_and_its_gradient_flows():
    v = tf.Variable(np.ones((2, 3), np.float32))
    layer = L.Dense(2, kernel_initializer="ones")
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(layer(v))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), np.full((2, 3), 2.0))
    assert isinstance(layer(v), torch.Tensor)


def test_a_variable_input_works_in_reshaping_layers_and_models():
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    assert L.Flatten()(v).shape == (2, 6)
    model = tf.keras.Sequential([L.Flatten(), L.Dense(1)])
    assert model(v).shape == (2, 1)


def test_numpy_and_python_inputs_become_tensors():
    layer = L.Dense(1, kernel_initializer="ones")
    np.testing.assert_array_equal(layer(np.ones((1, 2), np.float32)).numpy(), [[2.0]])
    np.testing.assert_array_equal(L.Activation("relu")(-3.0).numpy(), 0.0)


def test_a_tensor_input_is_passed_as_is():
    seen = []

    class Probe(L.Layer):
        def call(self, x):
            seen.append(x)
            return x

    x = torch.ones(2, 2)
    Probe()(x)
    assert seen[0] is x


def test_softmax_float16_fully_masked_row_is_tf_keras():
    """tf_keras 2.21: [[0, 0, 1], [0.1192, 0, 0.8804]] (a -65504 constant overflows to NaN)."""
    layer = L.Softmax(dtype="float16")
    x = tf.constant([[-1000.0, -3000.0, -40.0], [1.0, 2.0, 3.0]], dtype=tf.float16)
    mask = tf.constant([[False, False, False], [True, False, True]])
    out = layer(x, mask=mask)
    assert out.dtype == torch.float16
    # TF's float16 softmax rounds in half along the way: a few float16 ulps of the exact value
    np.testing.assert_allclose(out.numpy().astype(np.float64),
                               [[0, 0, 1], [0.1192, 0, 0.8804]], rtol=3 * 2.0 ** -11, atol=0)


# -- errors raised inside `call` carry tf_keras's call context ------------------------------
class _Boom(L.Layer):
    def call(self, x, training=None, extra=3):
        raise ValueError("bad thing")


class _Outer(L.Layer):
    def __init__(self):
        super().__init__()
        self.inner = _Boom()

    def call(self, x):
        return self.inner(x)


def test_call_errors_are_framed_as_tf_keras_frames_them():
    """tf_keras 2.21's text, recorded: same class, the message between the layer and its
    arguments; only the innermost failing layer adds it."""
    want = ("Exception encountered when calling layer '{name}' (type _Boom).\n\nbad thing\n\n"
            "Call arguments received by layer '{name}' (type _Boom):\n"
            "  \u2022 x=tf.Tensor(shape=(2, 3), dtype=float32)\n"
            "  \u2022 training=None\n"
            "  \u2022 extra=3")
    for layer in (_Boom(name="boom"), _Outer()):
        name = "boom" if isinstance(layer, _Boom) else layer.inner.name
        try:
            layer(torch.ones(2, 3))
        except ValueError as e:
            assert str(e) == want.format(name=name)
        else:
            raise AssertionError("no error")


def test_op_errors_keep_their_class_and_the_op_message():
    try:
        L.Reshape((5,))(torch.ones(2, 3))
    except tf.errors.InvalidArgumentError as e:
        assert str(e).startswith("Exception encountered when calling layer 'reshape")
        assert "Input to reshape is a tensor with 6 values" in e.message
        assert e.error_code == tf.errors.INVALID_ARGUMENT
    else:
        raise AssertionError("no error")


def test_errors_before_call_are_not_framed():
    layer = L.Dense(2)
    layer(torch.ones(1, 3))
    try:
        layer(torch.ones(1, 4))
    except ValueError as e:
        assert str(e).startswith('Input 0 of layer "dense')


def test_symbolic_call_errors_are_framed_with_the_symbolic_shapes():
    """tf_keras 2.21 (recorded): double quotes and the Input's shape in a functional call,
    also when the error comes from compute_output_shape."""
    layer = _Boom(name="sym_boom")
    try:
        layer(tf.keras.Input((3,)))
    except ValueError as e:
        assert str(e) == (
            'Exception encountered when calling layer "sym_boom" (type _Boom).\n\nbad thing\n\n'
            'Call arguments received by layer "sym_boom" (type _Boom):\n'
            "  \u2022 x=tf.Tensor(shape=(None, 3), dtype=float32)\n"
            "  \u2022 training=None\n  \u2022 extra=3")
    else:
        raise AssertionError("no error")
    try:
        L.Reshape((5,), name="sym_reshape")(tf.keras.Input((3,)))
    except ValueError as e:
        assert str(e) == (
            'Exception encountered when calling layer "sym_reshape" (type Reshape).\n\n'
            "total size of new array must be unchanged, input_shape = [3], output_shape = [5]"
            '\n\nCall arguments received by layer "sym_reshape" (type Reshape):\n'
            "  \u2022 inputs=tf.Tensor(shape=(None, 3), dtype=float32)")
    else:
        raise AssertionError("no error")
