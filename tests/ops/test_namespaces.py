"""The op subset's public names: `tfcompat.ops.__all__` and the `tf.math`/`nn`/... modules."""

import importlib
import json
from pathlib import Path

import pytest

import tfcompat
import tfcompat.ops

# TF 2.21's public names per namespace, recorded by gen_namespaces.py.
TF_NAMES = {ns: set(names) for ns, names in json.loads(
    (Path(__file__).resolve().parent / "fixtures" / "tf_namespaces.json").read_text())
    ["namespaces"].items()}

# The op subset that landed first: these names must stay exported (each is TF's).
TOP_LEVEL = {
    "abs", "add", "add_n", "argmax", "boolean_mask", "cast", "clip_by_global_norm",
    "clip_by_norm", "clip_by_value", "concat", "cumsum", "divide", "equal", "exp", "expand_dims",
    "fill", "gather", "gather_nd", "greater", "greater_equal", "identity", "less", "less_equal",
    "logical_and", "logical_not", "logical_or", "matmul", "maximum", "minimum", "multiply",
    "negative", "not_equal", "one_hot", "ones", "ones_like", "pad", "pow", "range", "rank",
    "reduce_all", "reduce_any", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
    "reduce_sum", "reshape", "saturate_cast", "scatter_nd", "shape", "sigmoid", "sign", "size",
    "split", "sqrt", "square", "squeeze", "stack", "stop_gradient", "subtract", "tanh",
    "tensor_scatter_nd_add", "tensor_scatter_nd_update", "tile", "transpose", "truediv",
    "unique", "unstack", "where", "zeros", "zeros_like",
}
NAMESPACES = {
    "math": {"add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod",
             "pow", "negative", "abs", "sign", "square", "sqrt", "rsqrt", "exp", "log",
             "sigmoid", "tanh", "maximum", "minimum", "add_n", "reduce_sum", "reduce_mean",
             "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all", "argmax",
             "cumsum", "unsorted_segment_sum", "equal", "not_equal", "less", "less_equal",
             "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
             "logical_not", "softmax", "log_softmax"},
    "nn": {"relu", "sigmoid", "tanh", "softmax", "log_softmax",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "l2_loss", "dropout", "bias_add",
           "compute_average_loss", "scale_regularization_loss"},
    "random": {"set_seed", "normal", "uniform", "truncated_normal"},
    "linalg": {"matmul", "global_norm"},
    "bitwise": {"bitwise_and", "bitwise_or", "bitwise_xor", "invert"},
}


def test_ops_exports_only_tfs_top_level_names():
    exported = set(tfcompat.ops.__all__)
    assert len(tfcompat.ops.__all__) == len(exported), "duplicates in tfcompat.ops.__all__"
    assert TOP_LEVEL <= exported, f"no longer exported: {sorted(TOP_LEVEL - exported)}"
    assert exported <= TF_NAMES[""], f"not TF 2.21 top-level names: {sorted(exported - TF_NAMES[''])}"
    for name in exported:
        assert callable(getattr(tfcompat.ops, name)), name


def test_top_level_package_has_the_ops():
    for name in tfcompat.ops.__all__:
        assert getattr(tfcompat, name) is getattr(tfcompat.ops, name), name


NAMESPACE_MODULES = sorted(set(NAMESPACES) | {"debugging"})


@pytest.mark.parametrize("namespace", NAMESPACE_MODULES)
def test_namespace_modules(namespace):
    try:
        module = importlib.import_module(f"tfcompat.{namespace}")
    except ModuleNotFoundError:
        pytest.skip(f"tfcompat.{namespace} is not built")
    exported = set(module.__all__)
    assert len(module.__all__) == len(exported), f"duplicates in tfcompat.{namespace}.__all__"
    floor = NAMESPACES.get(namespace, set())
    assert floor <= exported, f"no longer exported: {sorted(floor - exported)}"
    not_tf = {n for n in exported - TF_NAMES[namespace]
              if not isinstance(getattr(module, n), type(importlib))}
    assert not not_tf, f"not TF 2.21 tf.{namespace} names: {sorted(not_tf)}"
    for name in module.__all__:
        value = getattr(module, name)
        assert callable(value) or isinstance(value, type(importlib)), name
    assert getattr(tfcompat, namespace) is module


def test_aliases_are_the_same_functions():
    import tfcompat.linalg
    import tfcompat.math
    import tfcompat.nn
    assert tfcompat.math.reduce_sum is tfcompat.ops.reduce_sum
    assert tfcompat.math.mod is tfcompat.math.floormod
    assert tfcompat.nn.sigmoid is tfcompat.ops.sigmoid is tfcompat.math.sigmoid
    assert tfcompat.linalg.matmul is tfcompat.ops.matmul
    assert tfcompat.ops.stop_gradient is tfcompat.stop_gradient


TF_FUNCTION_NAMES = json.loads((Path(__file__).resolve().parent / "fixtures" /
                                "tf_namespaces.json").read_text())["function_names"]


@pytest.mark.parametrize("namespace", ["", "math", "nn", "bitwise", "linalg", "random", "debugging"])
def test_ops_carry_their_tf_names(namespace):
    # As TF's functions do (`tf.less.__name__ == "less"`, `tf.print.__name__ == "print_v2"`),
    # factory-made ones included. TF's aliases carry the name of the function they alias.
    try:
        module = importlib.import_module(f"tfcompat.{namespace or 'ops'}")
    except ModuleNotFoundError:
        pytest.skip(f"tfcompat.{namespace} is not built")
    expected = TF_FUNCTION_NAMES.get(namespace, {})
    for name in module.__all__:
        fn = getattr(module, name)
        if isinstance(fn, (type(importlib), type)):
            continue
        aliases = {n for n in module.__all__ if getattr(module, n) is fn}
        allowed = aliases | {expected.get(name, name)}
        assert fn.__name__ in allowed, (module.__name__, name, fn.__name__, sorted(allowed))


def test_package_names_are_tfs():
    # tfcompat's own subpackages (framework, ops, variables, ...) are modules; every other
    # public name of `import tfcompat as tf` must be one TF 2.21 has.
    stray = sorted(n for n in dir(tfcompat) if not n.startswith("_") and n not in TF_NAMES[""]
                   and not isinstance(getattr(tfcompat, n), type(importlib)))
    assert not stray, f"tfcompat exports names TF 2.21 lacks: {stray}"


def test_tf_dtypes_holds_the_casts():
    """`tf.dtypes.cast(x, tf.float32)` is common TF code: TF binds `tf.cast`,
    `tf.saturate_cast` and `tf.complex` into `tf.dtypes` too."""
    import tfcompat as tf
    for name in ("cast", "saturate_cast", "complex"):
        assert name in TF_NAMES["dtypes"]
        assert getattr(tf.dtypes, name) is getattr(tf, name)
    assert tf.dtypes.cast(tf.constant([1.7, -1.7]), tf.int32).tolist() == [1, -1]
