"""tf_keras 2.21 goldens for the merging layers: Add / Subtract / Multiply / Average /
Maximum / Minimum (left-to-right folds, rank-mismatch broadcasting, ties, float16, float64,
integer Average), Concatenate (axes, float16), Dot (axes forms, ranks 2-4, normalize),
their functional forms, masks, output shapes, configs and error texts.

Error model (tests/ops/golden/harness.py): the elementwise folds apply TF's ops in TF's
order, so each output is one chain of correctly rounded ops and must agree bit for bit
(n = 0); a broadcast input's gradient sums the cotangent over the broadcast axes (n = that
count - 1); Dot is a dot product of length k (n = k), normalize adds a norm of length k
(n = 2k + a few for rsqrt and the products, normwise).
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(61)
A = _RNG.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
B = _RNG.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
C = _RNG.uniform(-1, 1, (3, 4, 5)).astype(np.float32)
V = _RNG.uniform(-1, 1, (3, 5)).astype(np.float32)      # rank 2: broadcasts over axis 1
M2 = _RNG.uniform(-1, 1, (3, 7)).astype(np.float32)
N2 = _RNG.uniform(-1, 1, (3, 7)).astype(np.float32)
P3 = _RNG.uniform(-1, 1, (3, 4, 6)).astype(np.float32)
Q3 = _RNG.uniform(-1, 1, (3, 5, 6)).astype(np.float32)
R4 = _RNG.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32)
S3 = _RNG.uniform(-1, 1, (2, 5, 6)).astype(np.float32)
TIE_A = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]], np.float32)
TIE_B = np.array([[1.0, 1.0, 3.0], [0.5, -1.0, 5.0]], np.float32)
INTS = [np.arange(6, dtype=np.int32).reshape(2, 3), np.array([[1, 1, 1], [2, 2, 3]], np.int32)]
MASK_A = np.array([[True, True, False, True], [False, True, True, True], [True] * 4])
MASK_B = np.array([[True, False, True, True], [True, True, True, False], [True] * 4])


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _run(cls, inputs, *args, n=0, terms=None, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), inputs), n=n,
                terms=terms)


def _ints(cls):
    return lambda tf: getattr(tf.keras.layers, cls)()([tf.constant(x) for x in INTS])


def _functional(fn_name, shapes, **kwargs):
    """The functional form on Inputs: the model's output shape and its output on data."""
    def fn(tf):
        tf.keras.backend.clear_session()
        inputs = [tf.keras.Input(s) for s in shapes]
        out = getattr(tf.keras.layers, fn_name)(inputs, **kwargs)
        model = tf.keras.Model(inputs, out)
        rng = np.random.default_rng(3)
        data = [rng.uniform(-1, 1, (2,) + tuple(s)).astype(np.float32) for s in shapes]
        return {"output_shape": str(model.output_shape), "output": model(data)}
    return fn


def _mask(cls, masks, *args, **kwargs):
    def fn(tf):
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        xs = [tf.constant(A[:, :, :2]), tf.constant(B[:, :, :3])] if cls == "Concatenate" \
            else [tf.constant(A), tf.constant(B)]
        return layer.compute_mask(xs, [None if m is None else tf.constant(m) for m in masks])
    return fn


def _mask_after_embedding(tf):
    """An Embedding(mask_zero) mask travels through Add and Concatenate in a model."""
    tf.keras.backend.clear_session()
    ids = tf.keras.Input((4,), dtype="int32")
    emb = tf.keras.layers.Embedding(6, 2, mask_zero=True, embeddings_initializer="ones")
    e = emb(ids)
    added = tf.keras.layers.Add()([e, e])
    joined = tf.keras.layers.Concatenate()([e, added])
    model = tf.keras.Model(ids, [added, joined])
    a, j = model(np.array([[3, 1, 0, 0], [2, 0, 5, 1]], np.int32))
    return {"added": a, "joined": j, "added_mask": a._keras_mask, "joined_mask": j._keras_mask}


def _shapes(tf):
    L = tf.keras.layers
    return [str(layer.compute_output_shape(shapes)) for layer, shapes in (
        (L.Add(), [(None, 4, 5), (None, 4, 5)]),
        (L.Add(), [(None, 4, 5), (None, 5)]),
        (L.Multiply(), [(None, 1, 5), (2, 4, 1)]),
        (L.Maximum(), [(None, None, 5), (None, 4, 5)]),
        (L.Concatenate(), [(None, 4, 5), (None, 4, 3)]),
        (L.Concatenate(axis=1), [(None, 4, 5), (None, None, 5)]),
        (L.Dot(1), [(None, 7), (None, 7)]),
        (L.Dot((2, 2)), [(None, 4, 6), (None, 5, 6)]),
        (L.Dot(-1), [(None, 3, 4, 5), (None, 5, 6, 5)]),
        (L.Dot((1, 2)), [(None, 4, 6), (None, 5, 4)]),
    )]


def _error(fn):
    return Case(fn, match_message=True)


CASES = {
    # -- elementwise folds (bit for bit: TF's ops in TF's order)
    "add2": _run("Add", [A, B]),
    "add3": _run("Add", [A, B, C]),
    "add_rank_mismatch": _run("Add", [A, V], n=3),
    "add_rank_mismatch_first_small": _run("Add", [V, A], n=3),
    "subtract": _run("Subtract", [A, B]),
    "multiply3": _run("Multiply", [A, B, C]),
    "multiply_broadcast_ones": _run("Multiply", [A[:, :1, :], B[:, :, :1]], n=4),
    "average2": _run("Average", [A, B]),
    "average3": _run("Average", [A, B, C]),
    "average3_float64": _run("Average", [A.astype(np.float64), B.astype(np.float64),
                                        C.astype(np.float64)], dtype="float64"),
    "average3_float16": _run("Average", [A.astype(np.float16), B.astype(np.float16),
                                        C.astype(np.float16)], dtype="float16"),
    "add3_float16": _run("Add", [A.astype(np.float16), B.astype(np.float16),
                                C.astype(np.float16)], dtype="float16"),
    "add_mixed_float16": _run("Add", [A, B], dtype="mixed_float16"),
    "maximum3": _run("Maximum", [A, B, C]),
    "minimum3": _run("Minimum", [A, B, C]),
    "maximum_ties": _run("Maximum", [TIE_A, TIE_B]),
    "minimum_ties": _run("Minimum", [TIE_A, TIE_B]),
    "maximum_float64": _run("Maximum", [A.astype(np.float64), B.astype(np.float64)],
                            dtype="float64"),
    "average_int32": _ints("Average"),
    "add_int32": _ints("Add"),
    "maximum_int32": _ints("Maximum"),
    # -- concatenate
    "concat_last": _run("Concatenate", [A[:, :, :2], B]),
    "concat_axis1": _run("Concatenate", [A, B[:, :2]], axis=1),
    "concat_three_axis_neg2": _run("Concatenate", [A, B[:, :1], C], axis=-2),
    "concat_float16": _run("Concatenate", [A.astype(np.float16), B.astype(np.float16)],
                           dtype="float16"),
    # -- dot
    "dot_rank2": _run("Dot", [M2, N2], 1, n=7),
    "dot_rank2_neg_axis": _run("Dot", [M2, N2], -1, n=7),
    "dot_rank3_axes22": _run("Dot", [P3, Q3], (2, 2), n=6, terms="normwise"),
    "dot_rank3_axes12": _run("Dot", [P3, np.ascontiguousarray(P3.transpose(0, 2, 1))], (1, 2),
                             n=4, terms="normwise"),
    "dot_rank4_rank3": _run("Dot", [R4, S3], (3, 1), n=5, terms="normwise"),
    "dot_rank3_rank2": _run("Dot", [P3, V[:, :4]], (1, 1), n=4, terms="normwise"),
    "dot_normalize": _run("Dot", [M2, N2], 1, normalize=True, n=20, terms="normwise"),
    "dot_normalize_rank3": _run("Dot", [P3, Q3], 2, normalize=True, n=16, terms="normwise"),
    "dot_float64": _run("Dot", [M2.astype(np.float64), N2.astype(np.float64)], 1,
                        dtype="float64", n=7),
    "dot_float16": Case(lambda tf: run_layer(
        tf, _layer("Dot", 1, dtype="float16"), [M2.astype(np.float16), N2.astype(np.float16)]),
        n=7, terms="normwise", accumulate="float32"),
    # -- functional forms on Inputs
    "functional_add": _functional("add", [(4, 5), (4, 5)]),
    "functional_subtract": _functional("subtract", [(3,), (3,)]),
    "functional_multiply": _functional("multiply", [(3,), (3,), (3,)]),
    "functional_average": _functional("average", [(2, 3), (3,)]),
    "functional_maximum": _functional("maximum", [(3,), (3,)]),
    "functional_minimum": _functional("minimum", [(3,), (1,)]),
    "functional_concatenate": Case(_functional("concatenate", [(4, 2), (4, 3)]), ulps=0),
    "functional_concatenate_axis1": _functional("concatenate", [(4, 2), (1, 2)], axis=1),
    "functional_dot": Case(_functional("dot", [(4, 6), (5, 6)], axes=(2, 2)), n=6,
                           terms="normwise"),
    "functional_dot_normalize": Case(_functional("dot", [(6,), (6,)], axes=1, normalize=True),
                                     n=16, terms="normwise"),
    # -- masks
    "add_mask_both": _mask("Add", [MASK_A, MASK_B]),
    "add_mask_one": _mask("Add", [MASK_A, None]),
    "add_mask_none": _mask("Add", [None, None]),
    "concat_mask_both": _mask("Concatenate", [MASK_A, MASK_B]),
    "concat_mask_one": _mask("Concatenate", [None, MASK_B]),
    "concat_mask_axis1": _mask("Concatenate", [MASK_A, MASK_B], axis=1),
    "dot_mask": lambda tf: str(tf.keras.layers.Dot(1).compute_mask(
        [tf.constant(M2), tf.constant(N2)], [tf.constant(MASK_A), None])),
    "mask_after_embedding": _mask_after_embedding,
    # -- shapes, configs
    "output_shapes": _shapes,
    "add_config": _config("Add", name="a"),
    "subtract_config": _config("Subtract", name="s"),
    "multiply_config": _config("Multiply", name="m", dtype="float64"),
    "average_config": _config("Average", name="av"),
    "maximum_config": _config("Maximum", name="mx", trainable=False),
    "minimum_config": _config("Minimum", name="mn"),
    "concat_config": _config("Concatenate", axis=1, name="c"),
    "dot_config": _config("Dot", (1, 2), normalize=True, name="d"),
    "dot_config_int": _config("Dot", -1, name="d1"),
    # -- errors
    "add_incompatible_error": _error(lambda tf: tf.keras.layers.Add()(
        [tf.ones([2, 3]), tf.ones([2, 4])])),
    "add_incompatible_rank_error": _error(lambda tf: tf.keras.layers.Add()(
        [tf.ones([2, 3, 4]), tf.ones([2, 3])])),
    "add_not_a_list_error": _error(lambda tf: tf.keras.layers.Add()(tf.ones([2, 3]))),
    "add_batch_sizes_error": _error(lambda tf: tf.keras.layers.Add()(
        [tf.ones([2, 3]), tf.ones([3, 3])])),
    "subtract_three_error": _error(lambda tf: tf.keras.layers.Subtract()(
        [tf.ones([2, 3]), tf.ones([2, 3]), tf.ones([2, 3])])),
    "subtract_one_error": _error(lambda tf: tf.keras.layers.Subtract()([tf.ones([2, 3])])),
    "concat_mismatch_error": _error(lambda tf: tf.keras.layers.Concatenate()(
        [tf.ones([2, 3, 4]), tf.ones([2, 2, 4])])),
    "concat_rank_error": _error(lambda tf: tf.keras.layers.Concatenate()(
        [tf.ones([2, 3, 4]), tf.ones([2, 3])])),
    "concat_not_a_list_error": _error(lambda tf: tf.keras.layers.Concatenate()(
        tf.ones([2, 3]))),
    "concat_output_shape_error": _error(lambda tf: tf.keras.layers.Concatenate()
                                        .compute_output_shape((None, 3))),
    "dot_axes_type_error": _error(lambda tf: tf.keras.layers.Dot("1")),
    "dot_axes_length_error": _error(lambda tf: tf.keras.layers.Dot((1, 2, 3))),
    "dot_axes_items_error": _error(lambda tf: tf.keras.layers.Dot((1, "2"))),
    "dot_incompatible_error": _error(lambda tf: tf.keras.layers.Dot(1)(
        [tf.ones([2, 3]), tf.ones([2, 4])])),
    "dot_three_inputs_error": _error(lambda tf: tf.keras.layers.Dot(1)(
        [tf.ones([2, 3]), tf.ones([2, 3]), tf.ones([2, 3])])),
    # (the message prints the tensor, whose text is torch's here: the class is compared)
    "mask_not_a_list_error": lambda tf: tf.keras.layers.Add().compute_mask(
        [tf.ones([2, 3]), tf.ones([2, 3])], tf.ones([2], dtype=tf.bool)),
}
