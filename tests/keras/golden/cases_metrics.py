"""Golden table for `tf.keras.metrics`: each case builds a metric, runs several
`update_state` calls (with and without sample weights), and returns its result, its state
(`get_weights()`), the state after `reset_state()`, and its config.

Error model (tests/ops/golden/harness.py): a metric's state is a sum over every value it
saw, so `n` is the number of values summed along the longest path (all batches' elements,
plus the per-threshold cumulative sums for AUC-like metrics, plus a few rounded ops in
`result()`). Sample weights here are multiples of 1/4 and labels 0/1, so weighted counts
are exact in float32 on both sides; the float sums (errors, crossentropies) carry the
bound. `terms=None` where every summed term has one sign; "normwise" where differences of
sums occur (AUC, R2, cosine, raw means of signed values).
"""

from __future__ import annotations

import numpy as np

from tests.ops.golden.harness import Case

_RNG_SEED = 1234


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(_RNG_SEED + seed)


def _weights(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    return (rng.integers(0, 9, size=shape) / 4.0).astype(np.float32)


def binary_batches(seed: int, shapes=((8, 1), (6, 1), (5, 1)), weights=(False, True, True),
                   weight_rank=1):
    rng = _rng(seed)
    out = []
    for shape, weighted in zip(shapes, weights):
        y_true = rng.integers(0, 2, size=shape).astype(np.float32)
        y_pred = rng.uniform(0, 1, size=shape).astype(np.float32)
        sw = _weights(rng, shape[:weight_rank]) if weighted else None
        out.append((y_true, y_pred, sw))
    return out


def regression_batches(seed: int, shapes=((8, 3), (6, 3), (4, 3)), weights=(False, True, True),
                       positive=False):
    rng = _rng(seed)
    out = []
    lo = 0.05 if positive else -2.0
    for shape, weighted in zip(shapes, weights):
        y_true = rng.uniform(lo, 2, size=shape).astype(np.float32)
        y_pred = rng.uniform(lo, 2, size=shape).astype(np.float32)
        out.append((y_true, y_pred, _weights(rng, shape[:1]) if weighted else None))
    return out


def categorical_batches(seed: int, classes=4, sizes=(8, 6, 5), sparse=False, ties=False,
                        weights=(False, True, True), probabilities=True):
    rng = _rng(seed)
    out = []
    for size, weighted in zip(sizes, weights):
        labels = rng.integers(0, classes, size=(size,))
        if ties:
            y_pred = (rng.integers(0, 3, size=(size, classes)) / 2.0).astype(np.float32)
        else:
            y_pred = rng.uniform(0, 1, size=(size, classes)).astype(np.float32)
            if probabilities:
                y_pred = (y_pred / y_pred.sum(axis=-1, keepdims=True)).astype(np.float32)
        y_true = (labels.reshape(-1, 1).astype(np.float32) if sparse
                  else np.eye(classes, dtype=np.float32)[labels])
        out.append((y_true, y_pred, _weights(rng, (size,)) if weighted else None))
    return out


def run_metric(tf, make, batches, call=False):
    """Update with every batch; return the result, the state, the state after a reset, and
    the config."""
    tf.keras.backend.clear_session()
    m = make(tf)
    out = {}
    for i, (y_true, y_pred, sw) in enumerate(batches):
        args = [tf.constant(y_true), tf.constant(y_pred)]
        kwargs = {} if sw is None else {"sample_weight": tf.constant(sw)}
        if call:
            out[f"call_{i}"] = m(*args, **kwargs)
        else:
            m.update_state(*args, **kwargs)
    out["result"] = m.result()
    out["state"] = [tf.constant(w) for w in m.get_weights()]
    m.reset_state()
    out["reset_state"] = [tf.constant(w) for w in m.get_weights()]
    out["reset_result"] = m.result()
    out["config"] = _plain_config(m.get_config())
    return out


def run_values(tf, make, batches):
    """A metric over values (`Mean`, `Sum`, `MeanTensor`): `update_state(values, sw)`."""
    tf.keras.backend.clear_session()
    m = make(tf)
    for values, sw in batches:
        m.update_state(tf.constant(values), sample_weight=None if sw is None else tf.constant(sw))
    out = {"result": m.result(), "state": [tf.constant(w) for w in m.get_weights()]}
    m.reset_state()
    out["reset_result"] = m.result()
    out["config"] = _plain_config(m.get_config())
    return out


def _plain_config(config):
    def plain(v):
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        return v
    return {k: plain(v) for k, v in config.items() if k != "fn"}


def _fresh(tf, make):
    tf.keras.backend.clear_session()
    return make(tf)


def _error(tf, make, *args, **kwargs):
    tf.keras.backend.clear_session()
    m = make(tf)
    m.update_state(*[tf.constant(a) for a in args],
                   **{k: tf.constant(v) for k, v in kwargs.items()})
    return m.result()


M = lambda cls_name, **kw: (lambda tf: getattr(tf.keras.metrics, cls_name)(**kw))  # noqa: E731

_BIN = binary_batches(0)
_BIN_MULTI = binary_batches(1, shapes=((8, 3), (6, 3), (5, 3)), weight_rank=2)
_BIN_MULTI_ROWW = binary_batches(2, shapes=((8, 3), (6, 3), (5, 3)))
_REG = regression_batches(3)
_REG_POS = regression_batches(4, positive=True)
_CAT = categorical_batches(5)
_CAT_TIES = categorical_batches(6, ties=True)
_SPARSE = categorical_batches(7, sparse=True)
_SPARSE_TIES = categorical_batches(8, sparse=True, ties=True)
_LOGITS = [(t, (p * 6 - 3).astype(np.float32), w) for t, p, w in binary_batches(9)]
_N_BIN = 19          # elements of _BIN
_N_MULTI = 19 * 3    # elements of the [., 3] batches
_T = 200             # AUC's thresholds (cumulative sums along them)


def _values_batches(seed, shapes, weight_shapes, signed=True):
    rng = _rng(seed)
    out = []
    for shape, wshape in zip(shapes, weight_shapes):
        v = rng.uniform(-2 if signed else 0, 2, size=shape).astype(np.float32)
        out.append((v, None if wshape is None else _weights(rng, wshape)))
    return out


CASES = {
    # ---------------------------------------------------------------- reducing metrics
    "mean_weighted": Case(lambda tf: run_values(tf, M("Mean"), _values_batches(
        20, [(4, 3), (5, 3), (6, 3)], [None, (5,), (6, 3)])), n=50, terms="normwise"),
    "mean_weight_fallback": Case(lambda tf: run_values(tf, M("Mean"), _values_batches(
        21, [(4, 3, 2), (3, 3, 2)], [(4, 1), (3, 3)])), n=40, terms="normwise"),
    "sum_weighted": Case(lambda tf: run_values(tf, M("Sum"), _values_batches(
        22, [(4, 3), (5, 3, 2)], [(4, 3), (5, 3)], signed=False)), n=60),
    "mean_float64": Case(lambda tf: run_values(tf, M("Mean", dtype="float64"), _values_batches(
        23, [(7,), (9,)], [None, (9,)])), n=20, terms="normwise"),
    "mean_tensor": Case(lambda tf: run_values(tf, M("MeanTensor"), _values_batches(
        24, [(4,), (4,), (4,)], [None, (4,), None])), n=6, terms="normwise"),
    "mean_tensor_shape_error": lambda tf: run_values(tf, M("MeanTensor"), _values_batches(
        25, [(4,), (3,)], [None, None])),
    "mean_weight_shape_error": lambda tf: run_values(tf, M("Mean"), _values_batches(
        26, [(4, 3)], [(2,)])),
    # ---------------------------------------------------------------- accuracy
    "accuracy": Case(lambda tf: run_metric(tf, M("Accuracy"), [
        (np.array([[1], [2], [3], [4]], np.float32), np.array([[0], [2], [3], [4]], np.float32),
         None),
        (np.array([[1], [2]], np.float32), np.array([[1], [0]], np.float32),
         np.array([0.5, 2.0], np.float32))]), n=8),
    "binary_accuracy": Case(lambda tf: run_metric(tf, M("BinaryAccuracy"), _BIN), n=_N_BIN),
    "binary_accuracy_threshold_multi": Case(lambda tf: run_metric(
        tf, M("BinaryAccuracy", threshold=0.7), _BIN_MULTI_ROWW), n=_N_MULTI),
    "binary_accuracy_call": Case(lambda tf: run_metric(tf, M("BinaryAccuracy"), _BIN,
                                                       call=True), n=_N_BIN),
    "categorical_accuracy": Case(lambda tf: run_metric(tf, M("CategoricalAccuracy"), _CAT),
                                 n=_N_BIN),
    "categorical_accuracy_ties": Case(lambda tf: run_metric(tf, M("CategoricalAccuracy"),
                                                            _CAT_TIES), n=_N_BIN),
    "sparse_categorical_accuracy": Case(lambda tf: run_metric(
        tf, M("SparseCategoricalAccuracy"), _SPARSE), n=_N_BIN),
    "sparse_categorical_accuracy_ties": Case(lambda tf: run_metric(
        tf, M("SparseCategoricalAccuracy"), _SPARSE_TIES), n=_N_BIN),
    "top_k_categorical_accuracy": Case(lambda tf: run_metric(
        tf, M("TopKCategoricalAccuracy", k=2), _CAT), n=_N_BIN),
    "top_k_categorical_accuracy_ties": Case(lambda tf: run_metric(
        tf, M("TopKCategoricalAccuracy", k=2), _CAT_TIES), n=_N_BIN),
    "sparse_top_k_categorical_accuracy": Case(lambda tf: run_metric(
        tf, M("SparseTopKCategoricalAccuracy", k=2), _SPARSE_TIES), n=_N_BIN),
    "accuracy_float64": Case(lambda tf: run_metric(tf, M("BinaryAccuracy", dtype="float64"),
                                                   _BIN), n=_N_BIN),
    "accuracy_fns": Case(lambda tf: [
        tf.keras.metrics.binary_accuracy(tf.constant(_BIN_MULTI[0][0]),
                                         tf.constant(_BIN_MULTI[0][1])),
        tf.keras.metrics.categorical_accuracy(tf.constant(_CAT_TIES[0][0]),
                                              tf.constant(_CAT_TIES[0][1])),
        tf.keras.metrics.sparse_categorical_accuracy(tf.constant(_SPARSE[0][0]),
                                                     tf.constant(_SPARSE[0][1])),
        tf.keras.metrics.top_k_categorical_accuracy(tf.constant(_CAT_TIES[0][0]),
                                                    tf.constant(_CAT_TIES[0][1]), k=2),
        tf.keras.metrics.sparse_top_k_categorical_accuracy(
            tf.constant(_SPARSE_TIES[0][0][:, 0]), tf.constant(_SPARSE_TIES[0][1]), k=1),
    ], n=4),
    # ---------------------------------------------------------------- confusion metrics
    "true_positives": lambda tf: run_metric(tf, M("TruePositives"), _BIN),
    "false_positives_thresholds": lambda tf: run_metric(
        tf, M("FalsePositives", thresholds=[0.1, 0.5, 0.9]), _BIN_MULTI),
    "true_negatives_even": lambda tf: run_metric(
        tf, M("TrueNegatives", thresholds=[0.0, 0.25, 0.5, 0.75, 1.0]), _BIN_MULTI),
    "false_negatives": lambda tf: run_metric(tf, M("FalseNegatives"), _BIN_MULTI_ROWW),
    "precision": Case(lambda tf: run_metric(tf, M("Precision"), _BIN), n=2),
    "precision_thresholds": Case(lambda tf: run_metric(
        tf, M("Precision", thresholds=[0.2, 0.5, 0.8]), _BIN_MULTI), n=2),
    "precision_top_k": Case(lambda tf: run_metric(tf, M("Precision", top_k=2), _BIN_MULTI),
                            n=2),
    "precision_class_id": Case(lambda tf: run_metric(tf, M("Precision", class_id=1),
                                                     _BIN_MULTI_ROWW), n=2),
    "recall": Case(lambda tf: run_metric(tf, M("Recall"), _BIN_MULTI_ROWW), n=2),
    "recall_top_k_class_id": Case(lambda tf: run_metric(
        tf, M("Recall", top_k=1, class_id=2), _BIN_MULTI_ROWW), n=2),
    "auc_roc": Case(lambda tf: run_metric(tf, M("AUC"), _BIN), n=_T + 8, terms="normwise"),
    "auc_pr": Case(lambda tf: run_metric(tf, M("AUC", curve="PR"), _BIN_MULTI),
                   n=_T + 8, terms="normwise"),
    "auc_pr_minoring": Case(lambda tf: run_metric(
        tf, M("AUC", curve="PR", summation_method="minoring", num_thresholds=50), _BIN_MULTI),
        n=60, terms="normwise"),
    "auc_roc_majoring_thresholds": Case(lambda tf: run_metric(
        tf, M("AUC", summation_method="majoring", thresholds=[0.3, 0.1, 0.7]), _BIN_MULTI),
        n=20, terms="normwise"),
    "auc_pr_gain": Case(lambda tf: run_metric(tf, M("AUC", curve="PR_GAIN",
                                                    num_thresholds=20), _BIN_MULTI),
                        n=30, terms="normwise"),
    "auc_multi_label": Case(lambda tf: run_metric(tf, M("AUC", multi_label=True),
                                                  _BIN_MULTI), n=_T + 8, terms="normwise"),
    "auc_multi_label_pr_weights": Case(lambda tf: run_metric(
        tf, M("AUC", multi_label=True, curve="PR", label_weights=[0.5, 1.0, 2.0],
              num_labels=3), _BIN_MULTI), n=_T + 8, terms="normwise"),
    "auc_label_weights": Case(lambda tf: run_metric(
        tf, M("AUC", label_weights=[0.5, 1.0, 2.0]), _BIN_MULTI), n=_T + 8,
        terms="normwise"),
    "auc_from_logits": Case(lambda tf: run_metric(tf, M("AUC", from_logits=True), _LOGITS),
                            n=_T + 8, terms="normwise"),
    "sensitivity_at_specificity": Case(lambda tf: run_metric(
        tf, M("SensitivityAtSpecificity", specificity=0.6), _BIN_MULTI), n=2),
    "specificity_at_sensitivity": Case(lambda tf: run_metric(
        tf, M("SpecificityAtSensitivity", sensitivity=0.5, num_thresholds=7), _BIN), n=2),
    "precision_at_recall": Case(lambda tf: run_metric(
        tf, M("PrecisionAtRecall", recall=0.7, class_id=0), _BIN_MULTI_ROWW), n=2),
    "recall_at_precision": Case(lambda tf: run_metric(
        tf, M("RecallAtPrecision", precision=0.6, num_thresholds=1), _BIN_MULTI), n=2),
    # ---------------------------------------------------------------- regression
    "mean_squared_error": Case(lambda tf: run_metric(tf, M("MeanSquaredError"), _REG),
                               n=60),
    "mean_absolute_error": Case(lambda tf: run_metric(tf, M("MeanAbsoluteError"), _REG),
                                n=60),
    "mean_absolute_percentage_error": Case(lambda tf: run_metric(
        tf, M("MeanAbsolutePercentageError"), _REG_POS), n=60),
    "mean_squared_logarithmic_error": Case(lambda tf: run_metric(
        tf, M("MeanSquaredLogarithmicError"), _REG_POS), n=60),
    "root_mean_squared_error": Case(lambda tf: run_metric(tf, M("RootMeanSquaredError"),
                                                          _REG), n=60),
    "log_cosh_error": Case(lambda tf: run_metric(tf, M("LogCoshError"), _REG), n=60),
    "cosine_similarity": Case(lambda tf: run_metric(tf, M("CosineSimilarity"), _REG), n=60,
                              terms="normwise"),
    "cosine_similarity_axis0": Case(lambda tf: run_metric(
        tf, M("CosineSimilarity", axis=0), [_REG[0], _REG[0]]), n=30, terms="normwise"),
    "mean_relative_error": Case(lambda tf: run_metric(
        tf, lambda tf: tf.keras.metrics.MeanRelativeError(normalizer=[[1.0, 2.0, 4.0]]),
        _REG), n=60),
    "r2_score": Case(lambda tf: run_metric(tf, M("R2Score"), _REG), n=60, terms="normwise"),
    "r2_score_raw": Case(lambda tf: run_metric(tf, M("R2Score", class_aggregation=None),
                                               _REG), n=60, terms="normwise"),
    # ---------------------------------------------------------------- probabilistic, hinge
    "binary_crossentropy": Case(lambda tf: run_metric(tf, M("BinaryCrossentropy"), _BIN),
                                n=_N_BIN + 8),
    "binary_crossentropy_logits_smoothing": Case(lambda tf: run_metric(
        tf, M("BinaryCrossentropy", from_logits=True, label_smoothing=0.1), _LOGITS),
        n=_N_BIN + 8),
    "categorical_crossentropy": Case(lambda tf: run_metric(
        tf, M("CategoricalCrossentropy"), _CAT), n=_N_BIN * 4 + 8),
    "sparse_categorical_crossentropy": Case(lambda tf: run_metric(
        tf, M("SparseCategoricalCrossentropy"), _SPARSE), n=_N_BIN * 4 + 8),
    "kl_divergence": Case(lambda tf: run_metric(
        tf, M("KLDivergence"), [(p, np.roll(p, 1, axis=1), w) for _, p, w in _CAT]),
        n=_N_BIN * 4 + 8, terms="normwise"),
    "poisson": Case(lambda tf: run_metric(tf, M("Poisson"), _REG_POS), n=60,
                    terms="normwise"),
    "hinge": Case(lambda tf: run_metric(tf, M("Hinge"), _BIN_MULTI_ROWW), n=_N_MULTI),
    "squared_hinge": Case(lambda tf: run_metric(tf, M("SquaredHinge"), _BIN_MULTI_ROWW),
                          n=_N_MULTI),
    "categorical_hinge": Case(lambda tf: run_metric(tf, M("CategoricalHinge"), _CAT),
                              n=_N_BIN * 4),
    # ---------------------------------------------------------------- IoU
    "mean_iou": Case(lambda tf: run_metric(tf, M("MeanIoU", num_classes=4), [
        (t[:, 0], np.argmax(p, -1).astype(np.float32), w) for t, p, w in _SPARSE]), n=4),
    "mean_iou_ignore_class": Case(lambda tf: run_metric(
        tf, M("MeanIoU", num_classes=4, ignore_class=0), [
            (t, np.argmax(p, -1).astype(np.float32).reshape(-1, 1), w)
            for t, p, w in _SPARSE]), n=4),
    "iou_targets": Case(lambda tf: run_metric(
        tf, M("IoU", num_classes=4, target_class_ids=[0, 2]), [
            (t[:, 0], np.argmax(p, -1).astype(np.float32), w) for t, p, w in _SPARSE]), n=4),
    "binary_iou": Case(lambda tf: run_metric(tf, M("BinaryIoU", threshold=0.4), _BIN), n=4),
    "one_hot_iou": Case(lambda tf: run_metric(
        tf, M("OneHotIoU", num_classes=4, target_class_ids=[1, 3]), _CAT), n=4),
    "one_hot_mean_iou": Case(lambda tf: run_metric(tf, M("OneHotMeanIoU", num_classes=4),
                                                   _CAT), n=4),
    # ---------------------------------------------------------------- errors and configs
    "precision_bad_threshold": lambda tf: M("Precision", thresholds=[0.5, 1.5])(tf),
    "auc_bad_curve": Case(lambda tf: M("AUC", curve="XYZ")(tf), match_message=True),
    "auc_bad_summation": Case(lambda tf: M("AUC", summation_method="sum")(tf),
                              match_message=True),
    "auc_num_thresholds": Case(lambda tf: M("AUC", num_thresholds=1)(tf),
                               match_message=True),
    "auc_num_labels_without_multi_label": Case(lambda tf: M("AUC", num_labels=3)(tf),
                                               match_message=True),
    "auc_multi_label_rank": lambda tf: _error(tf, M("AUC", multi_label=True),
                                              _BIN_MULTI[0][0][:, 0], _BIN_MULTI[0][1][:, 0]),
    "precision_shape_mismatch": lambda tf: _error(tf, M("Precision"), _BIN_MULTI[0][0],
                                                  _BIN_MULTI[0][1][:, :2]),
    "iou_bad_target": Case(lambda tf: M("IoU", num_classes=3, target_class_ids=[0, 3])(tf),
                           match_message=True),
    "sensitivity_range": Case(lambda tf: M("SensitivityAtSpecificity", specificity=1.5)(tf),
                              match_message=True),
    "r2_bad_aggregation": Case(lambda tf: M("R2Score", class_aggregation="max")(tf),
                               match_message=True),
    "configs": lambda tf: [_plain_config(_fresh(tf, M(name, **kw)).get_config()) for name, kw in [
        ("Mean", {}), ("Sum", {"name": "s", "dtype": "float64"}), ("Accuracy", {}),
        ("BinaryAccuracy", {"threshold": 0.3}), ("TopKCategoricalAccuracy", {"k": 3}),
        ("SparseTopKCategoricalAccuracy", {}), ("Precision", {"thresholds": [0.2, 0.4]}),
        ("Recall", {"top_k": 2, "class_id": 1}), ("TruePositives", {"thresholds": 0.3}),
        ("AUC", {"curve": "PR", "thresholds": [0.2, 0.6]}),
        ("AUC", {"multi_label": True, "num_labels": 2, "label_weights": [1.0, 2.0]}),
        ("SensitivityAtSpecificity", {"specificity": 0.4}), ("MeanIoU", {"num_classes": 3}),
        ("IoU", {"num_classes": 3, "target_class_ids": [1]}), ("BinaryIoU", {}),
        ("OneHotIoU", {"num_classes": 3, "target_class_ids": [1]}),
        ("OneHotMeanIoU", {"num_classes": 3}), ("CosineSimilarity", {"axis": 0}),
        ("BinaryCrossentropy", {"from_logits": True}),
        ("CategoricalCrossentropy", {"label_smoothing": 0.2}),
        ("SparseCategoricalCrossentropy", {"ignore_class": 0}), ("KLDivergence", {}),
        ("LogCoshError", {}), ("RootMeanSquaredError", {}), ("MeanTensor", {}),
        ("R2Score", {"num_regressors": 1}), ("Hinge", {}), ("CategoricalHinge", {}),
    ]],
    "serialize": lambda tf: [tf.keras.metrics.serialize(M(name, **kw)(tf)) for name, kw in [
        ("AUC", {"name": "a"}), ("BinaryAccuracy", {"name": "b", "threshold": 0.3}),
        ("MeanIoU", {"num_classes": 2, "name": "m"})]],
    "get_names": lambda tf: [
        type(tf.keras.metrics.get(n)).__name__ if not callable(tf.keras.metrics.get(n))
        or isinstance(tf.keras.metrics.get(n), tf.keras.metrics.Metric)
        else tf.keras.metrics.get(n).__name__
        for n in ("accuracy", "mse", "MAE", "binary_accuracy", "categorical_accuracy",
                  "sparse_top_k_categorical_accuracy", "Precision", "AUC", "Mean", "kld",
                  "logcosh")],
    "get_unknown": lambda tf: tf.keras.metrics.get("not_a_metric"),
    "get_bad_identifier": Case(lambda tf: tf.keras.metrics.get(3), match_message=True),
    "merge_state_incompatible": lambda tf: M("Mean")(tf).merge_state([M("Sum")(tf)]),
}
