"""TF ops on KerasTensors become TFOpLambda layers (tf_keras's op dispatch); eager ops unchanged."""

import inspect
import json

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.framework import symbolic_dispatch
from tfcompat.ops import math_ops, reduction_ops


@pytest.fixture(autouse=True)
def _fresh_names():
    # layer names (`tf.concat`, `tf.concat_1`) restart; clear_session keeps the observed
    # (explicit) names, which op layers avoid, so they are cleared here too
    from tfcompat.keras import backend
    tf.keras.backend.clear_session()
    backend._observed_names.clear()


def _inputs():
    return tf.keras.Input((4,), name="x"), tf.keras.Input((4,), name="y")


def _model_and_outputs():
    x, y = _inputs()
    outs = {
        "reduce_sum": tf.reduce_sum(x, axis=1, keepdims=True),
        "concat": tf.concat([x, y], 1),
        "matmul": tf.matmul(tf.expand_dims(x, 1), tf.expand_dims(y, 2)),
        "reshape": tf.reshape(tf.concat([x, y], 1), [-1, 2, 4]),
        "shape": tf.shape(x),
        "relu_plus_cast": tf.nn.relu(x) + tf.cast(tf.reduce_sum(x, 1, keepdims=True), tf.float32),
        "add_named": tf.math.add(x, 1.0, name="foo"),
        "stack": tf.stack([x, y], axis=1),
        "slice_scale": 2.0 * x[:, 0:2],
        "minus": 1.0 - tf.square(y),
        "kw_input": tf.reduce_max(input_tensor=x, axis=-1),
    }
    return tf.keras.Model([x, y], list(outs.values())), outs


def _reference(name, xs, ys):
    return {
        "reduce_sum": xs.sum(1, keepdim=True),
        "concat": torch.cat([xs, ys], 1),
        "matmul": (xs * ys).sum(1).reshape(-1, 1, 1),
        "reshape": torch.cat([xs, ys], 1).reshape(-1, 2, 4),
        "shape": torch.tensor(list(xs.shape), dtype=torch.int32),
        "relu_plus_cast": torch.relu(xs) + xs.sum(1, keepdim=True),
        "add_named": xs + 1.0,
        "stack": torch.stack([xs, ys], 1),
        "slice_scale": 2.0 * xs[:, 0:2],
        "minus": 1.0 - ys ** 2,
        "kw_input": xs.max(-1).values,
    }[name]


def test_ops_on_keras_inputs_build_named_op_layers():
    model, outs = _model_and_outputs()
    names = [layer.name for layer in model.layers]
    for expected in ["tf.math.reduce_sum", "tf.concat", "tf.linalg.matmul", "tf.reshape",
                     "tf.compat.v1.shape", "tf.nn.relu", "tf.cast", "tf.__operators__.add",
                     "tf.math.add", "tf.stack", "tf.__operators__.getitem", "tf.math.multiply",
                     "tf.math.subtract", "tf.math.square", "tf.math.reduce_max"]:
        assert expected in names, expected
    assert type(model.get_layer("tf.concat")).__name__ == "TFOpLambda"
    assert type(model.get_layer("tf.__operators__.getitem")).__name__ == "SlicingOpLambda"
    assert outs["shape"].shape.as_list() == [2] and outs["shape"].dtype == tf.int32
    assert outs["reduce_sum"].shape.as_list() == [None, 1]
    assert outs["reshape"].shape.as_list() == [None, 2, 4]


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_model_replays_ops_as_eager_calls(batch, seed):
    model, outs = _model_and_outputs()
    gen = torch.Generator().manual_seed(seed)
    xs, ys = torch.randn(batch, 4, generator=gen), torch.randn(batch, 4, generator=gen)
    results = model([xs, ys])
    for name, value in zip(outs, results):
        expected = _reference(name, xs, ys)
        assert value.shape == expected.shape, name
        torch.testing.assert_close(value, expected.to(value.dtype), rtol=1e-6, atol=1e-6)


def test_gradients_flow_through_op_layers():
    x = tf.keras.Input((3,))
    h = tf.keras.layers.Dense(2, kernel_initializer="ones")(x)
    model = tf.keras.Model(x, tf.reduce_sum(tf.square(h), axis=1))
    xs = torch.tensor([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(xs))
    grads = tape.gradient(loss, model.trainable_variables)
    # d/dW sum((xW+b)^2) = 2 x^T (xW+b); xW+b = [6, 6]
    torch.testing.assert_close(grads[0], 2 * xs.T @ torch.tensor([[6.0, 6.0]]))
    torch.testing.assert_close(grads[1], torch.tensor([12.0, 12.0]))


def test_config_round_trip_and_json():
    model, outs = _model_and_outputs()
    config = model.get_config()
    entry = next(e for e in config["layers"] if e["name"] == "tf.math.reduce_sum")
    assert entry["class_name"] == "TFOpLambda"
    assert entry["config"]["function"] == "math.reduce_sum"
    assert entry["inbound_nodes"] == [["x", 0, 0, {"axis": 1, "keepdims": True}]]
    concat = next(e for e in config["layers"] if e["name"] == "tf.concat")
    assert concat["inbound_nodes"] == [[["x", 0, 0, {"axis": 1}], ["y", 0, 0, {"axis": 1}]]]
    matmul = next(e for e in config["layers"] if e["name"] == "tf.linalg.matmul")
    assert matmul["inbound_nodes"] == [["tf.expand_dims", 0, 0, {"b": ["tf.expand_dims_1", 0, 0]}]]
    cast = next(e for e in config["layers"] if e["name"] == "tf.cast")
    assert cast["inbound_nodes"][0][3] == {"dtype": "float32"}
    text = model.to_json()
    rebuilt = tf.keras.models.model_from_json(text)
    assert [layer.name for layer in rebuilt.layers] == [layer.name for layer in model.layers]
    xs, ys = torch.randn(3, 4), torch.randn(3, 4)
    for a, b in zip(model([xs, ys]), rebuilt([xs, ys])):
        assert torch.equal(a, b)
    assert json.loads(rebuilt.to_json()) == json.loads(text)


def test_tf_keras_written_config_loads():
    # inbound nodes as tf_keras 2.21 writes them (from its to_json of the same graph)
    config = {"name": "model", "trainable": True, "layers": [
        {"module": "keras.layers", "class_name": "InputLayer", "config": {
            "batch_input_shape": [None, 4], "dtype": "float32", "sparse": False,
            "ragged": False, "name": "x"}, "registered_name": None, "name": "x",
         "inbound_nodes": []},
        {"module": "tf_keras.src.layers.core.tf_op_layer", "class_name": "TFOpLambda",
         "config": {"name": "tf.compat.v1.shape", "trainable": True, "dtype": "float32",
                    "function": "compat.v1.shape"}, "registered_name": "TFOpLambda",
         "name": "tf.compat.v1.shape",
         "inbound_nodes": [["x", 0, 0, {"name": None, "out_type": "int32"}]]},
        {"module": "tf_keras.src.layers.core.tf_op_layer", "class_name": "TFOpLambda",
         "config": {"name": "tf.__operators__.add", "trainable": True, "dtype": "float32",
                    "function": "__operators__.add"}, "registered_name": "TFOpLambda",
         "name": "tf.__operators__.add",
         "inbound_nodes": [["x", 0, 0, {"y": ["x", 0, 0], "name": None}]]},
        {"module": "tf_keras.src.layers.core.tf_op_layer", "class_name": "TFOpLambda",
         "config": {"name": "tf.math.subtract", "trainable": True, "dtype": "float32",
                    "function": "math.subtract"}, "registered_name": "TFOpLambda",
         "name": "tf.math.subtract",
         "inbound_nodes": [["_CONSTANT_VALUE", -1, 1.0,
                            {"y": ["tf.__operators__.add", 0, 0], "name": None}]]},
    ], "input_layers": [["x", 0, 0]],
        "output_layers": [["tf.compat.v1.shape", 0, 0], ["tf.math.subtract", 0, 0]]}
    model = tf.keras.Model.from_config(config)
    xs = torch.randn(5, 4)
    shape, out = model(xs)
    assert shape.tolist() == [5, 4]
    torch.testing.assert_close(out, 1.0 - 2 * xs)


def test_summary_rows_name_the_op():
    x = tf.keras.Input((4,))
    model = tf.keras.Model(x, tf.concat([tf.nn.relu(x), x], 1))
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "tf.nn.relu (TFOpLambda)" in text
    assert "tf.concat (TFOpLambda)" in text


def test_op_layer_names_are_unique_and_config_names_the_op():
    x = tf.keras.Input((4,))
    a, b = tf.exp(x), tf.exp(x)
    la, lb = a._keras_history.layer, b._keras_history.layer
    assert la.name != lb.name and la.name.startswith("tf.math.exp")
    assert la.get_config()["function"] == lb.get_config()["function"] == "math.exp"


def test_multiple_outputs_and_namedtuples():
    x = tf.keras.Input((6,))
    parts = tf.split(x, 3, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    assert all(p.shape.as_list() == [None, 2] for p in parts)
    top = tf.math.top_k(x, 2)
    model = tf.keras.Model(x, [parts[1], top.values, top.indices])
    xs = torch.randn(2, 6)
    p1, values, indices = model(xs)
    torch.testing.assert_close(p1, xs[:, 2:4])
    ref = torch.topk(xs, 2)
    torch.testing.assert_close(values, ref.values)
    assert indices.tolist() == ref.indices.tolist()


def test_eager_calls_unchanged():
    a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = torch.tensor([0.5, -1.0, 2.0, 0.0])
    assert torch.equal(tf.add(a, b), math_ops.add.__wrapped__(a, b))
    assert torch.equal(tf.reduce_sum(a), reduction_ops.reduce_sum.__wrapped__(a))
    (g,) = torch.autograd.grad(tf.reduce_sum(tf.multiply(a, b)), a)
    assert torch.equal(g, b)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.add(torch.tensor([1], dtype=torch.int32), 2.5)  # TF's error still surfaces
    with pytest.raises(ValueError, match="unsupported type") as info:
        tf.reduce_sum(object())
    assert not isinstance(info.value, symbolic_dispatch.SymbolicTensorError)


def test_wrappers_keep_metadata_and_are_idempotent():
    assert tf.reduce_sum is tf.math.reduce_sum
    assert reduction_ops.reduce_sum is tf.reduce_sum  # wrapped where it is defined
    raw = tf.reduce_sum.__wrapped__
    assert raw.__code__ is not tf.reduce_sum.__code__
    assert tf.reduce_sum.__name__ == raw.__name__ == "reduce_sum"
    assert tf.reduce_sum.__doc__ == raw.__doc__
    assert inspect.signature(tf.reduce_sum) == inspect.signature(raw)
    assert symbolic_dispatch.dispatch_support(raw) is tf.reduce_sum
    assert symbolic_dispatch.dispatch_support(tf.reduce_sum) is tf.reduce_sum
    assert symbolic_dispatch.dispatch_support(reduction_ops.reduce_sum) is tf.reduce_sum
    symbolic_dispatch.install(tf.math, "math")
    assert tf.math.reduce_sum is tf.reduce_sum
    assert symbolic_dispatch.api_name(tf.reduce_sum) == "math.reduce_sum"
    assert symbolic_dispatch.api_name(tf.concat) == "concat"


def test_conversion_of_a_keras_tensor_is_a_dedicated_value_error():
    x = tf.keras.Input((4,))
    with pytest.raises(symbolic_dispatch.SymbolicTensorError, match="unsupported type"):
        tf.convert_to_tensor(x)
    assert issubclass(symbolic_dispatch.SymbolicTensorError, ValueError)


def test_torch_functions_and_lambda_layers_still_work():
    x = tf.keras.Input((4,))
    y = torch.cat([x, x], 1)
    z = tf.keras.layers.Lambda(lambda t: tf.reduce_sum(t, 1))(y)
    model = tf.keras.Model(x, [y, z])
    assert y._keras_history.layer.name.startswith("torch.cat")
    assert type(z._keras_history.layer).__name__ == "Lambda"
    xs = torch.randn(2, 4)
    out_y, out_z = model(xs)
    torch.testing.assert_close(out_z, torch.cat([xs, xs], 1).sum(1))


def test_op_inside_op_makes_one_layer():
    # tf.nn.softmax / l2_normalize run several ops internally: one layer each
    x = tf.keras.Input((4,))
    y = tf.math.l2_normalize(tf.nn.softmax(x), axis=1)
    model = tf.keras.Model(x, y)
    assert [type(layer).__name__ for layer in model.layers] == ["InputLayer", "TFOpLambda",
                                                                  "TFOpLambda"]
    xs = torch.randn(2, 4)
    s = torch.softmax(xs, 1)
    torch.testing.assert_close(model(xs), s / s.norm(dim=1, keepdim=True))


def test_training_flag_is_not_passed_to_ops():
    x = tf.keras.Input((4,))
    model = tf.keras.Model(x, tf.nn.relu(tf.keras.layers.Dropout(0.5)(x)))
    xs = torch.ones(2, 4)
    assert torch.equal(model(xs, training=False), xs)
    assert model(xs, training=True).shape == (2, 4)


def test_non_serializable_function_error():
    from tfcompat.keras.layers import TFOpLambda
    layer = TFOpLambda(lambda t: t)
    with pytest.raises(ValueError, match="not publicly exposed in the TensorFlow API"):
        layer.get_config()
    with pytest.raises(ValueError, match="TF symbol `nope.nothing` could not be found"):
        TFOpLambda.from_config({"name": "n", "function": "nope.nothing"})


def test_numpy_constants_in_arguments_serialize():
    x = tf.keras.Input((3,))
    y = tf.multiply(x, np.array([1.0, 2.0, 3.0], dtype=np.float32))
    model = tf.keras.Model(x, y)
    entry = [e for e in model.get_config()["layers"] if e["name"] == y._keras_history.layer.name]
    assert entry[0]["inbound_nodes"][0][3] == {"y": [1.0, 2.0, 3.0]}
    rebuilt = tf.keras.Model.from_config(model.get_config())
    xs = torch.ones(2, 3)
    torch.testing.assert_close(rebuilt(xs), model(xs))


def test_generated_wrapper_keeps_every_calling_form():
    def op(fn, state=1, *, name=None, axis=(0,)):
        return (fn, state, name, axis)

    wrapped = symbolic_dispatch.dispatch_support(op)
    assert wrapped("a") == ("a", 1, None, (0,))  # parameters named like its own names
    assert wrapped("a", 2, axis=3) == ("a", 2, None, 3)
    assert wrapped(fn="a", state=4, name="n") == ("a", 4, "n", (0,))
    with pytest.raises(TypeError):
        wrapped("a", 2, 3)  # keyword-only stays keyword-only
    assert inspect.signature(wrapped) == inspect.signature(op)

    def varargs(*values, **options):
        return values, options

    generic = symbolic_dispatch.dispatch_support(varargs)
    assert generic(1, 2, k=3) == ((1, 2), {"k": 3})
