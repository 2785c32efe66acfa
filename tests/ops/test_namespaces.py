"""The op subset's public names: `tfcompat.ops.__all__` and the `tf.math`/`nn`/... modules."""

import importlib

import pytest

import tfcompat
import tfcompat.ops

# TF 2.21's names for the op subset, read from TensorFlow itself (see test_tf_oracle).
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


def test_ops_exports_exactly_tfs_top_level_names():
    assert set(tfcompat.ops.__all__) == TOP_LEVEL
    assert len(tfcompat.ops.__all__) == len(TOP_LEVEL)
    for name in TOP_LEVEL:
        assert callable(getattr(tfcompat.ops, name))


def test_top_level_package_has_the_ops():
    for name in TOP_LEVEL:
        assert getattr(tfcompat, name) is getattr(tfcompat.ops, name), name


@pytest.mark.parametrize("namespace", sorted(NAMESPACES))
def test_namespace_modules(namespace):
    module = importlib.import_module(f"tfcompat.{namespace}")
    assert set(module.__all__) == NAMESPACES[namespace]
    for name in module.__all__:
        assert callable(getattr(module, name))


def test_aliases_are_the_same_functions():
    import tfcompat.linalg
    import tfcompat.math
    import tfcompat.nn
    assert tfcompat.math.reduce_sum is tfcompat.ops.reduce_sum
    assert tfcompat.math.mod is tfcompat.math.floormod
    assert tfcompat.nn.sigmoid is tfcompat.ops.sigmoid is tfcompat.math.sigmoid
    assert tfcompat.linalg.matmul is tfcompat.ops.matmul
    assert tfcompat.ops.stop_gradient is tfcompat.stop_gradient


def test_ops_carry_their_tf_names():
    # As TF's functions do (`tf.less.__name__ == "less"`), factory-made ones included.
    import tfcompat.bitwise
    import tfcompat.math
    import tfcompat.nn
    for module in (tfcompat.ops, tfcompat.math, tfcompat.nn, tfcompat.bitwise):
        for name in module.__all__:
            fn = getattr(module, name)
            if name == "mod":  # an alias of floormod, as in TF
                continue
            assert fn.__name__ == name, (module.__name__, name, fn.__name__)


def test_op_coverage_doc_lists_every_op():
    from pathlib import Path
    doc = (Path(__file__).resolve().parents[2] / "docs" / "op_coverage.md").read_text()
    names = set(TOP_LEVEL).union(*NAMESPACES.values())
    missing = sorted(n for n in names if not any(f"`{prefix}{n}`" in doc
                                                 for prefix in ("", "math.", "linalg.")))
    assert not missing, f"docs/op_coverage.md does not mention {missing}"
