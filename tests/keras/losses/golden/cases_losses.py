"""The loss golden table: each case runs under tf_keras 2.21 (to record) and tfcompat.

`fn(tf)` builds the loss from `tf.keras.losses` of whichever module it is given. Inputs are
fixed NumPy arrays (PCG64, stable across NumPy versions). Tolerances follow the error model
of `tests/ops/golden/harness.py`: every loss is elementwise work (a few libm calls: `ulps`)
followed by sums along the class axis and over the batch; `n` counts the roundings on the
longest path (class-axis sum, batch sum, the two divisions of the means, the weighting), and
`terms="normwise"` bounds the magnitude of the summed terms by the largest result (the
per-element losses of each case have one sign, so no cancellation hides in the sums).
"""

from __future__ import annotations

import numpy as np

from tests.ops.golden.harness import Case, Grad

_rng = np.random.default_rng(1234)
B, C = 3, 4  # batch, classes / features

PROBS = _rng.uniform(0.05, 0.95, size=(B, C))
PROBS[0, 0], PROBS[1, 2] = 0.0, 1.0  # exercise the clip to [eps, 1 - eps]
SOFTMAX = np.exp(PROBS * 3) / np.exp(PROBS * 3).sum(-1, keepdims=True)
LOGITS = _rng.normal(0, 2, size=(B, C))
BINARY = (_rng.uniform(size=(B, C)) > 0.5).astype(np.float64)
ONEHOT = np.eye(C)[[1, 3, 0]]
SPARSE = np.array([1, 3, 0])
REGR_TRUE = _rng.normal(0, 1.5, size=(B, C))
REGR_PRED = _rng.normal(0, 1.5, size=(B, C))
POS_TRUE = _rng.uniform(0.1, 3.0, size=(B, C))
POS_PRED = _rng.uniform(0.1, 3.0, size=(B, C))
PM1 = 2 * BINARY - 1

# name -> (class, kwargs, y_true, y_pred)
LOSSES = {
    "mse": ("MeanSquaredError", {}, REGR_TRUE, REGR_PRED),
    "mae": ("MeanAbsoluteError", {}, REGR_TRUE, REGR_PRED),
    "mape": ("MeanAbsolutePercentageError", {}, REGR_TRUE, REGR_PRED),
    "msle": ("MeanSquaredLogarithmicError", {}, POS_TRUE, POS_PRED),
    "huber": ("Huber", {}, REGR_TRUE, REGR_PRED),
    "huber_delta": ("Huber", {"delta": 0.7}, REGR_TRUE, REGR_PRED),
    "logcosh": ("LogCosh", {}, REGR_TRUE, REGR_PRED * 3),
    "bce": ("BinaryCrossentropy", {}, BINARY, PROBS),
    "bce_logits": ("BinaryCrossentropy", {"from_logits": True}, BINARY, LOGITS),
    "bce_smooth": ("BinaryCrossentropy", {"label_smoothing": 0.2}, BINARY, PROBS),
    "bce_axis0": ("BinaryCrossentropy", {"axis": 0}, BINARY, PROBS),
    "bfce": ("BinaryFocalCrossentropy", {}, BINARY, PROBS),
    "bfce_balanced": ("BinaryFocalCrossentropy",
                      {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5}, BINARY, PROBS),
    "bfce_logits": ("BinaryFocalCrossentropy", {"from_logits": True, "label_smoothing": 0.1},
                    BINARY, LOGITS),
    "cce": ("CategoricalCrossentropy", {}, ONEHOT, SOFTMAX),
    "cce_unnormalized": ("CategoricalCrossentropy", {}, ONEHOT, PROBS),
    "cce_logits": ("CategoricalCrossentropy", {"from_logits": True}, ONEHOT, LOGITS),
    "cce_smooth": ("CategoricalCrossentropy", {"label_smoothing": 0.1}, ONEHOT, SOFTMAX),
    "cce_axis0": ("CategoricalCrossentropy", {"axis": 0}, ONEHOT, PROBS),
    "cfce": ("CategoricalFocalCrossentropy", {}, ONEHOT, SOFTMAX),
    "cfce_logits": ("CategoricalFocalCrossentropy",
                    {"from_logits": True, "alpha": 0.5, "gamma": 3.0, "label_smoothing": 0.1},
                    ONEHOT, LOGITS),
    "scce": ("SparseCategoricalCrossentropy", {}, SPARSE, SOFTMAX),
    "scce_logits": ("SparseCategoricalCrossentropy", {"from_logits": True}, SPARSE, LOGITS),
    "scce_ignore": ("SparseCategoricalCrossentropy", {"from_logits": True, "ignore_class": 3},
                    SPARSE, LOGITS),
    "hinge": ("Hinge", {}, BINARY, LOGITS),
    "hinge_pm1": ("Hinge", {}, PM1, LOGITS),
    "squared_hinge": ("SquaredHinge", {}, BINARY, LOGITS),
    "categorical_hinge": ("CategoricalHinge", {}, ONEHOT, LOGITS),
    "kld": ("KLDivergence", {}, SOFTMAX[::-1].copy(), SOFTMAX),
    "poisson": ("Poisson", {}, POS_TRUE, POS_PRED),
    "cosine": ("CosineSimilarity", {}, REGR_TRUE, REGR_PRED),
    "cosine_axis0": ("CosineSimilarity", {"axis": 0}, REGR_TRUE, REGR_PRED),
}
# Losses whose terms change sign (cosine similarity sums products of both signs; hinge's
# log-free terms are exact): they get the bound of the absolute terms, computed on |inputs|.
_SIGNED = {"cosine", "cosine_axis0"}

REDUCTIONS = ("auto", "none", "sum", "sum_over_batch_size")
WEIGHTS = {
    "w_batch": np.array([0.5, 2.0, 1.25]),
    "w_batch1": np.array([[0.5], [2.0], [1.25]]),
    "w_scalar": np.array(1.5),
    "w_full": _rng.uniform(0.0, 2.0, size=(B, C)),
}
_N = 2 * C + B + 8  # roundings on the longest path (see the module docstring)


def _tensor(tf, a, dtype):
    if np.issubdtype(np.asarray(a).dtype, np.integer):
        return tf.constant(a.astype(np.int64))
    if dtype == "bfloat16":  # (NumPy has no bfloat16: cast from float32 on each side)
        return tf.cast(tf.constant(np.asarray(a, dtype=np.float32)), tf.bfloat16)
    return tf.constant(np.asarray(a, dtype=dtype))


def _loss_case(name, dtype, reduction, weight=None):
    cls, kwargs, y_true, y_pred = LOSSES[name]

    def fn(tf):
        loss = getattr(tf.keras.losses, cls)(reduction=reduction, **kwargs)
        sw = None if weight is None else _tensor(tf, WEIGHTS[weight], dtype)
        return loss(_tensor(tf, y_true, dtype), _tensor(tf, y_pred, dtype), sample_weight=sw)

    # (match_message: a weight of the wrong rank, w_full against [B] losses, or a [B]
    # weight against the [C] losses of axis=0, is tf_keras's squeeze / broadcast error)
    return Case(fn, n=_N, terms="normwise", match_message=True)


def _grad(name, dtype):
    cls, kwargs, y_true, y_pred = LOSSES[name]

    def fn(tf, v):
        return getattr(tf.keras.losses, cls)(**kwargs)(_tensor(tf, y_true, dtype), v)

    return Grad(fn, [np.asarray(y_pred, dtype=dtype)], n=_N, terms="normwise")


CASES = {}
GRADIENTS = {}
for _name in LOSSES:
    for _reduction in REDUCTIONS:
        CASES[f"{_name}/float32/{_reduction}"] = _loss_case(_name, np.float32, _reduction)
    CASES[f"{_name}/float64/none"] = _loss_case(_name, np.float64, "none")
    CASES[f"{_name}/float64/sum"] = _loss_case(_name, np.float64, "sum")
    CASES[f"{_name}/float16/none"] = _loss_case(_name, np.float16, "none")
    for _w in WEIGHTS:
        CASES[f"{_name}/float32/sum_over_batch_size/{_w}"] = _loss_case(
            _name, np.float32, "sum_over_batch_size", _w)
        CASES[f"{_name}/float32/none/{_w}"] = _loss_case(_name, np.float32, "none", _w)
    GRADIENTS[f"{_name}/float32"] = _grad(_name, np.float32)
    GRADIENTS[f"{_name}/float64"] = _grad(_name, np.float64)


def _fn_case(fn_name, y_true, y_pred, **kwargs):
    def fn(tf):
        f = getattr(tf.keras.losses, fn_name)
        return f(tf.constant(np.asarray(y_true, np.float32)),
                 tf.constant(np.asarray(y_pred, np.float32)), **kwargs)
    return Case(fn, n=_N, terms="normwise")


# The functional forms and their aliases.
for _alias, (_yt, _yp) in {
        "mse": (REGR_TRUE, REGR_PRED), "MSE": (REGR_TRUE, REGR_PRED),
        "mae": (REGR_TRUE, REGR_PRED), "mape": (REGR_TRUE, REGR_PRED),
        "msle": (POS_TRUE, POS_PRED), "kld": (SOFTMAX, SOFTMAX[::-1]),
        "logcosh": (REGR_TRUE, REGR_PRED), "huber": (REGR_TRUE, REGR_PRED),
        "binary_crossentropy": (BINARY, PROBS), "categorical_crossentropy": (ONEHOT, SOFTMAX),
        "categorical_hinge": (ONEHOT, LOGITS), "poisson": (POS_TRUE, POS_PRED),
        "cosine_similarity": (REGR_TRUE, REGR_PRED)}.items():
    CASES[f"fn/{_alias}"] = _fn_case(_alias, _yt, _yp)


def _logits_attr(tf):
    # The fast path: tf_keras's softmax activation marks its output with the logits.
    logits = tf.constant(np.array([[1.0, 2.0, 30.0], [0.5, -40.0, 3.0]], np.float32))
    probs = tf.keras.activations.softmax(logits) if hasattr(tf.keras, "activations") and \
        _has_activations(tf) else _mark(tf, logits)
    y = tf.constant(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32))
    return tf.keras.losses.categorical_crossentropy(y, probs)


def _has_activations(tf):
    try:
        return callable(tf.keras.activations.softmax)
    except Exception:  # noqa: BLE001 - tfcompat's activations may not exist yet
        return False


def _mark(tf, logits):
    probs = tf.nn.softmax(logits)
    probs._keras_logits = logits
    return probs


def _errors():
    def mismatched(tf):
        return tf.keras.losses.MeanSquaredError()(tf.constant([[1.0, 2.0]]),
                                                  tf.constant([[1.0, 2.0, 3.0]]))

    def cce_mismatched(tf):
        return tf.keras.losses.CategoricalCrossentropy()(tf.constant([[1.0, 0.0]]),
                                                         tf.constant([[0.5, 0.3, 0.2]]))

    def bad_weight(tf):
        return tf.keras.losses.MeanSquaredError()(tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                                                  tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                                                  sample_weight=tf.constant([1.0, 2.0, 3.0]))

    def bad_reduction(tf):
        return tf.keras.losses.MeanSquaredError(reduction="mean")

    def bad_get(tf):
        return tf.keras.losses.get("no_such_loss")

    def bad_identifier(tf):
        return tf.keras.losses.get(5)

    def bool_axis(tf):
        return tf.keras.losses.categorical_crossentropy(tf.constant([[1.0, 0.0]]),
                                                        tf.constant([[0.5, 0.5]]), axis=True)

    def scce_bad_label(tf):
        return tf.keras.losses.SparseCategoricalCrossentropy()(tf.constant([0, 7]),
                                                               tf.constant([[0.5, 0.5]] * 2))

    return {
        # (the class only: tfcompat's squared_difference prints shapes as "[1, 3]", TF "[1,3]")
        "error/mismatched_shapes": Case(mismatched),
        "error/cce_mismatched_shapes": Case(cce_mismatched, match_message=True),
        "error/sample_weight_shape": Case(bad_weight, match_message=True),
        "error/bad_reduction": Case(bad_reduction, match_message=True),
        "error/unknown_name": Case(bad_get, match_message=True),
        "error/bad_identifier": Case(bad_identifier, match_message=True),
        "error/bool_axis": Case(bool_axis, match_message=True),
        "error/scce_label_out_of_range": Case(scce_bad_label),
    }


CASES.update(_errors())
CASES["fast_path/cce_keras_logits"] = Case(_logits_attr, n=_N, terms="normwise")


def _sparse_shapes(tf):
    # Labels [B, 1] against [B, C] (squeezed), and a rank-3 output.
    logits = tf.constant(LOGITS.astype(np.float32))
    a = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(
        tf.constant(SPARSE.reshape(B, 1)), logits)
    b = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(
        tf.constant(np.stack([SPARSE, SPARSE[::-1]], 1)),
        tf.constant(np.stack([LOGITS, LOGITS[::-1]], 1).astype(np.float32)))
    return [a, b]


def _squeeze(tf):
    # y_true [B] against y_pred [B, 1]: the trailing 1 is squeezed before the loss.
    return tf.keras.losses.MeanSquaredError(reduction="none")(
        tf.constant(REGR_TRUE[:, 0].astype(np.float32)),
        tf.constant(REGR_PRED[:, :1].astype(np.float32)))


CASES["shapes/scce_rank"] = Case(_sparse_shapes, n=_N, terms="normwise")
CASES["shapes/squeeze_pred"] = Case(_squeeze, n=_N, terms="normwise")

# Half precision: tf_keras computes every loss in the input dtype (Huber in floatx()).
for _name in LOSSES:
    for _reduction in ("sum", "sum_over_batch_size"):
        CASES[f"{_name}/float16/{_reduction}"] = _loss_case(_name, np.float16, _reduction)
    CASES[f"{_name}/bfloat16/none"] = _loss_case(_name, "bfloat16", "none")
    GRADIENTS[f"{_name}/float16"] = _grad(_name, np.float16)


def _masked(tf):
    # A Keras mask on y_pred (`_keras_mask`, as tf_keras's layers attach): the mean runs
    # over the unmasked samples, folded into the sample weight.
    y_pred = tf.constant(REGR_PRED.astype(np.float32))
    y_pred._keras_mask = tf.constant(np.array([True, False, True]))
    out = []
    for reduction in ("sum_over_batch_size", "sum", "none"):
        loss = tf.keras.losses.MeanSquaredError(reduction=reduction)
        out.append(loss(tf.constant(REGR_TRUE.astype(np.float32)), y_pred))
        out.append(loss(tf.constant(REGR_TRUE.astype(np.float32)), y_pred,
                        sample_weight=tf.constant(np.array([0.5, 2.0, 1.25], np.float32))))
    return out


def _lists(tf):
    # Python lists (no squeeze: tf_keras aligns ranks only for tensors) and integer labels.
    return [tf.keras.losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]),
            tf.keras.losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]],
                                               sample_weight=[0.7, 0.3]),
            tf.keras.losses.mean_squared_error(tf.constant([[0, 1], [2, 0]]),
                                               tf.constant([[1.0, 1.0], [1.0, 0.5]]))]


def _squeeze_labels(tf):
    # y_true [B, 1] against y_pred [B]: the labels' trailing 1 is squeezed.
    return tf.keras.losses.MeanAbsoluteError(reduction="none")(
        tf.constant(REGR_TRUE[:, :1].astype(np.float32)),
        tf.constant(REGR_PRED[:, 0].astype(np.float32)))


def _rank3_weights(tf):
    # Per-timestep losses [B, T] weighted by [B] (expanded) and by [B, T, 1] (squeezed).
    yt = tf.constant(np.stack([REGR_TRUE, REGR_TRUE[::-1]], 1).astype(np.float32))
    yp = tf.constant(np.stack([REGR_PRED, REGR_PRED[::-1]], 1).astype(np.float32))
    loss = tf.keras.losses.MeanSquaredError(reduction="sum")
    return [loss(yt, yp, sample_weight=tf.constant(np.array([0.5, 2.0, 1.25], np.float32))),
            loss(yt, yp, sample_weight=tf.constant(WEIGHTS["w_full"][:, :2].astype(np.float32))),
            loss(yt, yp, sample_weight=tf.constant(np.ones((B, 2, 1), np.float32) * 0.5)),
            tf.keras.losses.MeanSquaredError(reduction="none")(yt, yp)]


CASES["mask/keras_mask"] = Case(_masked, n=_N, terms="normwise")
CASES["inputs/lists_and_int_labels"] = Case(_lists, n=_N, terms="normwise")
CASES["shapes/squeeze_labels"] = Case(_squeeze_labels, n=_N, terms="normwise")
CASES["shapes/rank3_weights"] = Case(_rank3_weights, n=_N, terms="normwise")


# Configs, serialized records and name resolution, as tf_keras 2.21 writes them.
def _config_case(cls, kwargs):
    def fn(tf):
        loss = getattr(tf.keras.losses, cls)(**kwargs)
        restored = tf.keras.losses.deserialize(tf.keras.losses.serialize(loss))
        return {"config": loss.get_config(), "serialized": tf.keras.losses.serialize(loss),
                "legacy": tf.keras.losses.serialize(loss, use_legacy_format=True),
                "restored": [type(restored).__name__, restored.get_config()],
                "from_config": type(loss).from_config(loss.get_config()).get_config()}
    return Case(fn)


for _name, (_cls, _kwargs, _, _) in LOSSES.items():
    CASES[f"config/{_name}"] = _config_case(_cls, _kwargs)
    CASES[f"config/{_name}/sum_named"] = _config_case(_cls, dict(_kwargs, reduction="sum",
                                                                 name="my_loss"))

_ALIASES = ["mse", "MSE", "mae", "MAE", "mape", "MAPE", "msle", "MSLE", "kld", "KLD",
            "kullback_leibler_divergence", "kl_divergence", "logcosh", "log_cosh", "huber",
            "huber_loss", "bce", "BCE", "binary_crossentropy", "binary_focal_crossentropy",
            "categorical_crossentropy", "categorical_focal_crossentropy",
            "sparse_categorical_crossentropy", "hinge", "squared_hinge", "categorical_hinge",
            "poisson", "cosine_similarity", "mean_squared_error", "MeanSquaredError", "Huber",
            "BinaryFocalCrossentropy", "SparseCategoricalCrossentropy"]


def _get_case(alias):
    def fn(tf):
        obj = tf.keras.losses.get(alias)
        if isinstance(obj, tf.keras.losses.Loss):
            return ["instance", type(obj).__name__, obj.get_config()]
        return ["function", obj.__name__]
    return Case(fn)


for _alias in _ALIASES:
    CASES[f"get/{_alias}"] = _get_case(_alias)


def _serialize_function(tf):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [tf.keras.losses.serialize(tf.keras.losses.mse),
                tf.keras.losses.serialize(tf.keras.losses.categorical_crossentropy,
                                          use_legacy_format=True),
                tf.keras.losses.deserialize(
                    {"module": "builtins", "class_name": "function", "config": "mse",
                     "registered_name": "function"}).__name__]


CASES["serialize/functions"] = Case(_serialize_function)
CASES["error/legacy_unknown_class"] = Case(
    lambda tf: tf.keras.losses.deserialize({"class_name": "Nope", "config": {}},
                                           use_legacy_format=True), match_message=True)
