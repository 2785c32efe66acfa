"""`tf.compat.v1` and `tf.compat.v2`: every TF 2.21 v1 name resolves; graph-only ones say what to use."""

from __future__ import annotations

import io
import logging as pylogging

import pytest

import tfcompat
import tfcompat.compat.v1 as tf1
from tfcompat.compat.v1 import _v1_api
from tfcompat.compat.v1._not_built import NotBuilt


def test_v2_is_the_package():
    import tfcompat.compat.v2 as tf2
    assert tf2 is tfcompat and tfcompat.compat.v2 is tfcompat


def _all_names():
    for path, api in sorted(_v1_api.API.items()):
        for name in api["names"]:
            yield path, name


def _get(path, name):
    ns = tf1
    for part in filter(None, path.split(".")):
        ns = getattr(ns, part)
    return getattr(ns, name)


def test_every_recorded_v1_name_resolves_without_attribute_error():
    for path, name in _all_names():
        value = _get(path, name)  # raises AttributeError if a recorded name is not resolved
        assert value is not None or name in ("newaxis",), (path, name)


def test_same_names_are_the_tf2_objects():
    for name in _v1_api.API[""]["same"]:
        value = getattr(tf1, name)
        if hasattr(tfcompat, name):
            assert value is getattr(tfcompat, name), name
        else:
            assert isinstance(value, NotBuilt), name


@pytest.mark.parametrize("path,replacement", [
    ("Session", "eagerly"), ("placeholder", "function arguments"),
    ("gradients", "GradientTape"), ("train.MonitoredTrainingSession", "training loop"),
    ("train.exponential_decay", "ExponentialDecay"), ("summary.FileWriter", "SummaryWriter"),
    ("raw_ops.MatMul", "tf.*"), ("disable_v2_behavior", "eager-only"),
])
def test_graph_only_apis_raise_not_implemented_naming_the_replacement(path, replacement):
    *ns, name = path.split(".")
    value = _get(".".join(ns), name)
    with pytest.raises(NotImplementedError, match=f"tf.compat.v1.{path}") as info:
        value()
    assert replacement in str(info.value)


def test_not_built_fails_on_use_not_on_import():
    from tfcompat.compat.v1 import Session, placeholder  # noqa: F401  (import must work)
    with pytest.raises(NotImplementedError):
        with tf1.Session() as sess:  # noqa: F841
            pass
    with pytest.raises(NotImplementedError):
        tf1.placeholder.shape


@pytest.mark.parametrize("path", [
    "get_variable", "variable_scope", "make_template", "AUTO_REUSE", "GraphKeys",
    "global_variables_initializer", "trainable_variables", "glorot_uniform_initializer",
    "initializers.variance_scaling", "train.AdamOptimizer", "train.get_or_create_global_step",
    "layers.dense", "losses.get_regularization_loss", "keras.utils.track_tf1_style_variables",
])
def test_the_porting_kit_names_are_built(path):
    *ns, name = path.split(".")
    assert not isinstance(_get(".".join(ns), name), NotBuilt), path


def test_unknown_names_are_attribute_errors_as_in_tf():
    with pytest.raises(AttributeError, match="no attribute 'not_a_tf_name'"):
        tf1.not_a_tf_name
    with pytest.raises(AttributeError):
        tf1.train.not_a_tf_name


def test_eager_switches():
    assert tf1.enable_eager_execution() is None
    assert tf1.enable_v2_behavior() is None
    assert tf1.executing_eagerly() is True


def test_v1_variable_is_a_resource_variable():
    v = tf1.Variable([1.0, 2.0], name="w", collections=["c"], use_resource=False)
    assert isinstance(v, tfcompat.Variable) and v.name == "w:0"
    with pytest.raises(NotImplementedError, match="variable_def"):
        tf1.Variable(variable_def=object())


def test_deprecated_argument_names():
    x = [[1, 2, 3], [4, 5, 6]]
    assert tf1.reduce_sum(x, reduction_indices=[1], keep_dims=True).tolist() == [[6], [15]]
    with pytest.raises(ValueError, match="both 'axis' and 'reduction_indices'"):
        tf1.reduce_sum(x, axis=1, reduction_indices=1)
    with pytest.raises(ValueError, match="both 'keepdims' and 'keep_dims'"):
        tf1.reduce_sum(x, keepdims=True, keep_dims=True)
    assert tf1.expand_dims(x, dim=0).shape == (1, 2, 3)
    assert tf1.squeeze([[1], [2]], squeeze_dims=[1]).tolist() == [1, 2]
    # tf.compat.v1.math holds the same TF 1 reductions as the top level
    assert tf1.math.reduce_sum(x, reduction_indices=1, keep_dims=True).tolist() == [[6], [15]]
    assert tf1.math.argmax(x, dimension=1).tolist() == [2, 2]


@pytest.mark.parametrize("path,name", [
    ("math", "exp"), ("math", "reduce_std"), ("math", "sigmoid"), ("nn", "sigmoid"),
    ("nn", "leaky_relu"), ("linalg", "matmul"), ("linalg", "trace"),
])
def test_names_tf_binds_to_its_tf2_function_under_other_decorators(path, name):
    """TF 2.21 wraps `tf.compat.v1.math.exp` in its own dispatch decorator around the very
    function of `tf.math.exp` (the recording unwraps them): tfcompat hands out its TF 2 op."""
    assert name in _v1_api.API[path]["same"]
    assert getattr(getattr(tf1, path), name) is getattr(getattr(tfcompat, path), name)


def test_name_scope_v1_signature():
    with tf1.name_scope(None, default_name="block"):
        assert tfcompat.Variable(1.0, name="v").name == "block/v:0"
    with pytest.raises(ValueError):
        tf1.name_scope(None)


def test_logging_goes_to_the_tensorflow_logger():
    logger = pylogging.getLogger("tensorflow")
    stream = io.StringIO()
    handler = pylogging.StreamHandler(stream)
    logger.addHandler(handler)
    old = tf1.logging.get_verbosity()
    try:
        tf1.logging.set_verbosity(tf1.logging.INFO)
        tf1.logging.info("step %d", 3)
        tf1.logging.debug("hidden")
        for _ in range(5):
            tf1.logging.log_first_n(tf1.logging.WARN, "first", 2)
    finally:
        logger.removeHandler(handler)
        tf1.logging.set_verbosity(old)
    lines = stream.getvalue().splitlines()
    assert lines == ["step 3", "first", "first"]


def test_compat_helpers():
    c = tfcompat.compat
    assert c.as_bytes("é") == "é".encode() and c.as_text(b"ab") == "ab" and c.as_str(b"x") == "x"
    with pytest.raises(TypeError):
        c.as_bytes(3)
    assert c.dimension_value(3) == 3 and c.dimension_at_index([2, None], 1) is None
    assert c.forward_compatible(2020, 1, 1) is True


def test_aliases_are_the_tf2_objects_of_their_other_name():
    import importlib
    for path, api in _v1_api.API.items():
        for name, target in api.get("aliases", {}).items():
            ns, _, tf2_name = target.rpartition(".")
            try:
                module = importlib.import_module(f"tfcompat.{ns}") if ns else tfcompat
            except ImportError:
                module = getattr(tfcompat, ns, None)
            value = _get(path, name)
            if module is not None and hasattr(module, tf2_name):
                assert value is getattr(module, tf2_name), (path, name, target)
            else:
                assert isinstance(value, NotBuilt), (path, name, target)
    assert tf1.random_normal is tfcompat.random.normal and tf1.log is tfcompat.math.log


def test_v1_variable_joins_the_collections_and_the_default_saver(tmp_path):
    tf1.reset_default_graph()
    w = tf1.get_variable("w", [2], initializer=tf1.zeros_initializer())
    step = tf1.Variable(0, name="global_step", trainable=False)
    extra = tf1.Variable(1.0, name="extra", collections=["mine"])
    ids = lambda vs: [id(v) for v in vs]  # noqa: E731
    assert ids(tf1.global_variables()) == ids([w, step])  # (`extra` named its own collections)
    assert ids(tf1.trainable_variables()) == ids([w, extra])  # (TF 1 adds a trainable one)
    assert ids(tf1.get_collection("mine")) == ids([extra])
    saver = tf1.train.Saver()  # (TF 1 graph mode: the global variables)
    path = saver.save(None, str(tmp_path / "model"))
    assert dict(tf1.train.list_variables(path)) == {"w": [2], "global_step": []}
    w.assign([1.0, 2.0])
    step.assign(5)
    saver.restore(None, path)
    assert w.numpy().tolist() == [0.0, 0.0] and int(step.numpy()) == 0
    tf1.reset_default_graph()
    with pytest.raises(ValueError, match="No variables to save"):
        tf1.train.Saver()
    assert tf1.train.Saver(allow_empty=True) is not None


def test_v1_keras_is_tf_keras():
    assert tf1.keras.layers.Dense is tfcompat.keras.layers.Dense
    assert tf1.keras.regularizers.L2 is tfcompat.keras.regularizers.L2
    assert tf1.keras.utils.to_categorical is tfcompat.keras.utils.to_categorical
    assert callable(tf1.keras.utils.track_tf1_style_variables)
    with pytest.raises(NotImplementedError):
        tf1.keras.backend.get_session()
