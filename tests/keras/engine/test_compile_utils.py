"""`compile`'s containers (tf_keras 2.x `compile_utils`): how losses, loss weights and metrics
map onto a model's outputs, what the `loss` metric averages, and the metric names.

Laws (tf_keras's, checked on small tensors where the expected numbers are computed by hand):
* the total loss is sum(weight_i * loss_i) + sum(regularization losses); the `loss` metric is
  the batch-size-weighted mean of the per-batch totals; per-output `<name>_loss` means exist
  only for several outputs;
* a dict keyed by output names, a list in output order, and one object broadcast to every
  output give the same container;
* `"accuracy"` resolves by the shapes: last dim 1 -> binary, labels of lower rank (or last dim
  1 against more classes) -> sparse categorical, else categorical; the name stays the user's;
* names are prefixed by the output name for several outputs; a weighted metric whose name is
  taken gets `weighted_`; duplicates and unknown output names raise tf_keras's errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.engine import compile_utils


def _t(x, dtype=torch.float32):
    return torch.tensor(x, dtype=dtype)


def test_single_output_total_and_batch_weighted_loss_mean():
    c = compile_utils.LossesContainer("mse", output_names=["out"])
    assert c.metrics == []
    l1 = c(_t([[1.0], [3.0]]), _t([[0.0], [0.0]]))            # mse 5.0, batch 2
    l2 = c(_t([[1.0]] * 4), _t([[0.0]] * 4))                   # mse 1.0, batch 4
    assert float(l1) == 5.0 and float(l2) == 1.0
    assert [m.name for m in c.metrics] == ["loss"]
    np.testing.assert_allclose(float(c.metrics[0].result()), (2 * 5.0 + 4 * 1.0) / 6, rtol=1e-6)
    c.reset_state()
    assert float(c.metrics[0].result()) == 0.0


def test_regularization_losses_enter_total_and_metric():
    c = compile_utils.LossesContainer("mae")
    total = c(_t([[1.0]]), _t([[0.0]]), regularization_losses=[_t(0.5), _t(0.25)])
    np.testing.assert_allclose(float(total), 1.75)
    np.testing.assert_allclose(float(c.metrics[0].result()), 1.75)


@pytest.mark.parametrize("losses,weights", [
    ({"a": "mse", "b": "mae"}, {"a": 2.0, "b": 0.5}),
    (["mse", "mae"], [2.0, 0.5]),
])
def test_multi_output_weights_and_per_output_means(losses, weights):
    c = compile_utils.LossesContainer(losses, weights, output_names=["a", "b"])
    y_true = [_t([[2.0], [0.0]]), _t([[1.0], [-1.0]])]
    y_pred = [_t([[0.0], [0.0]]), _t([[0.0], [0.0]])]
    total = c(y_true, y_pred)
    # mse(a) = 2.0, mae(b) = 1.0
    np.testing.assert_allclose(float(total), 2.0 * 2.0 + 0.5 * 1.0)
    assert [m.name for m in c.metrics] == ["loss", "a_loss", "b_loss"]
    assert [float(m.result()) for m in c.metrics[1:]] == [2.0, 1.0]  # unweighted per output
    np.testing.assert_allclose(float(c.metrics[0].result()), 4.5)


def test_one_loss_broadcasts_to_every_output():
    c = compile_utils.LossesContainer("mse", output_names=["a", "b"])
    total = c([_t([[1.0]]), _t([[2.0]])], [_t([[0.0]]), _t([[0.0]])])
    np.testing.assert_allclose(float(total), 1.0 + 4.0)


def test_unknown_output_name_raises_tf_keras_error():
    c = compile_utils.LossesContainer({"a": "mse", "zzz": "mae"}, output_names=["a", "b"])
    with pytest.raises(ValueError, match="Found unexpected losses or metrics that do not "
                                         "correspond to any Model output"):
        c([_t([[1.0]]), _t([[1.0]])], [_t([[0.0]]), _t([[0.0]])])


def test_output_without_loss_is_skipped():
    c = compile_utils.LossesContainer({"a": "mse"}, output_names=["a", "b"])
    total = c([_t([[1.0]]), _t([[5.0]])], [_t([[0.0]]), _t([[0.0]])])
    np.testing.assert_allclose(float(total), 1.0)
    assert [m.name for m in c.metrics] == ["loss", "a_loss"]


@pytest.mark.parametrize("y_true,y_pred,kind", [
    ([[1.0], [0.0]], [[0.8], [0.3]], "binary_accuracy"),
    ([1, 0], [[0.1, 0.9], [0.8, 0.2]], "sparse_categorical_accuracy"),
    ([[1], [0]], [[0.1, 0.9], [0.8, 0.2]], "sparse_categorical_accuracy"),
    ([[0.0, 1.0], [1.0, 0.0]], [[0.1, 0.9], [0.2, 0.8]], "categorical_accuracy"),
])
def test_accuracy_resolves_by_shapes(y_true, y_pred, kind):
    c = compile_utils.MetricsContainer(["accuracy"], output_names=["out"])
    yt = torch.tensor(y_true)
    c.update_state(yt, _t(y_pred))
    (metric,) = c.metrics
    assert metric.name == "accuracy"
    assert metric._fn.__name__ == kind
    expected = {"binary_accuracy": 1.0, "sparse_categorical_accuracy": 1.0,
                "categorical_accuracy": 0.5}[kind]
    np.testing.assert_allclose(float(metric.result()), expected)


def test_metric_names_multi_output_and_weighted_prefix():
    c = compile_utils.MetricsContainer(["mae"], weighted_metrics=["mae"], output_names=["a", "b"])
    c.update_state([_t([[1.0]]), _t([[2.0]])], [_t([[0.0]]), _t([[0.0]])])
    assert [m.name for m in c.metrics] == ["a_mae", "a_weighted_mae", "b_mae", "b_weighted_mae"]
    single = compile_utils.MetricsContainer(["mae"], weighted_metrics=["mae"])
    single.update_state(_t([[1.0]]), _t([[0.0]]))
    assert [m.name for m in single.metrics] == ["mae", "weighted_mae"]


def test_weighted_metrics_get_sample_weights_and_metrics_do_not():
    c = compile_utils.MetricsContainer(["mae"], weighted_metrics=["mae"])
    c.update_state(_t([[1.0], [3.0]]), _t([[0.0], [0.0]]), sample_weight=_t([1.0, 0.0]))
    plain, weighted = c.metrics
    np.testing.assert_allclose(float(plain.result()), 2.0)
    np.testing.assert_allclose(float(weighted.result()), 1.0)


def test_duplicated_metric_objects_raise():
    m = tf.keras.metrics.MeanAbsoluteError()
    with pytest.raises(ValueError, match="Found duplicated metrics object"):
        compile_utils.MetricsContainer([m], weighted_metrics=[m])


def test_metric_objects_are_copied_per_output():
    m = tf.keras.metrics.MeanAbsoluteError(name="mae")
    c = compile_utils.MetricsContainer([m], output_names=["a", "b"])
    c.update_state([_t([[1.0]]), _t([[3.0]])], [_t([[0.0]]), _t([[0.0]])])
    a, b = c.metrics
    assert a is not b and (a.name, b.name) == ("a_mae", "b_mae")
    assert (float(a.result()), float(b.result())) == (1.0, 3.0)


def test_pseudo_output_names():
    x = _t([1.0])
    assert compile_utils.create_pseudo_output_names(x) == ["output_1"]
    assert compile_utils.create_pseudo_output_names([x, x]) == ["output_1", "output_2"]
    assert compile_utils.create_pseudo_output_names({"b": x, "a": [x, x]}) == ["a_1", "a_2", "b"]


def test_custom_function_names():
    def my_metric(y_true, y_pred):
        return tf.reduce_mean(y_pred)
    c = compile_utils.MetricsContainer([my_metric])
    c.update_state(_t([[1.0]]), _t([[2.0]]))
    assert c.metrics[0].name == "my_metric"
    assert compile_utils.get_custom_object_name(tf.keras.losses.MeanSquaredError()) == \
        "mean_squared_error"
    class MyCustomLoss:
        pass
    assert compile_utils.get_custom_object_name(MyCustomLoss()) == "my_custom_loss"


def test_functional_output_names_are_unique():
    inputs = tf.keras.Input((3,))
    d = tf.keras.layers.Dense(2, name="out")
    model = tf.keras.Model(inputs, [d(inputs), d(inputs)])
    assert model.output_names == ["out", "out_1"]


def test_metric_updates_record_no_autograd_graph():
    """Metric state takes no gradient (TF's assign ops have none): the containers update
    metrics with autograd off, so no graph is built on the model's outputs for them."""
    seen = []

    class Probe(tf.keras.metrics.Mean):
        def update_state(self, *args, **kwargs):
            seen.append(torch.is_grad_enabled())
            return super().update_state(*args[:1], **kwargs)

    y_pred = torch.tensor([[0.5], [1.5]], requires_grad=True)
    metrics = compile_utils.MetricsContainer([Probe(name="probe")])
    metrics.update_state(_t([[1.0], [1.0]]), y_pred)
    losses = compile_utils.LossesContainer("mse", total_loss_mean=Probe(name="loss"))
    total = losses(_t([[1.0], [1.0]]), y_pred)
    assert seen == [False, False]
    assert total.requires_grad  # (the loss itself keeps its graph)


# -- the one-output path (`LossesContainer._one_output`) is the loop's result ---------------
# Law: for one output given as a tensor, labels a tensor, no weight, mask or regularization,
# the container's loss value, its gradient and the `loss` metric's state are those of the
# general path (reached here by labels given as NumPy, which that path converts), bit for bit,
# for every reduction and label shape, in float32/float64/float16.

_ONE_OUTPUT_CASES = [
    ("sparse_categorical_crossentropy", "sparse", {}),
    (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), "sparse", {}),
    (tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction="sum"), "sparse", {}),
    ("mse", "dense", {}),
    (tf.keras.losses.MeanAbsoluteError(reduction="sum"), "dense", {}),
    (tf.keras.losses.BinaryCrossentropy(from_logits=True), "binary", {}),
    (lambda y_true, y_pred: tf.reduce_mean(tf.square(y_true - y_pred), axis=-1), "dense", {}),
]


def _labels(kind, rng, n, dtype):
    if kind == "sparse":
        return rng.integers(0, 4, size=(n,)).astype(np.int64)
    if kind == "binary":
        return rng.integers(0, 2, size=(n, 4)).astype(dtype)
    return rng.standard_normal((n, 4)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("case", range(len(_ONE_OUTPUT_CASES)))
def test_one_output_path_equals_the_general_path(case, dtype, monkeypatch):
    loss, kind, _ = _ONE_OUTPUT_CASES[case]
    used = []
    original = compile_utils.LossesContainer._one_output

    def spy(self, *args):
        used.append(True)
        return original(self, *args)

    monkeypatch.setattr(compile_utils.LossesContainer, "_one_output", spy)
    results = []
    for as_numpy in (False, True):
        c = compile_utils.LossesContainer(loss, output_names=["out"])
        states = []
        for step in range(3):
            n = 5 + step
            y = _labels(kind, np.random.default_rng(100 * case + step), n, dtype)
            logits = torch.tensor(np.random.default_rng(step).standard_normal((n, 4)),
                                  dtype=getattr(torch, dtype), requires_grad=True)
            before = len(used)
            value = c(y if as_numpy else torch.as_tensor(y), logits)
            # (the first call builds the container through the general path)
            assert (len(used) > before) == (not as_numpy and step > 0)
            (grad,) = torch.autograd.grad(value, [logits])
            states.append((value.detach().clone(), grad,
                           [np.asarray(w) for w in c.metrics[0].variables]))
        results.append(states)
    for (v1, g1, s1), (v2, g2, s2) in zip(*results):
        assert v1.dtype == v2.dtype and torch.equal(v1, v2)
        assert torch.equal(g1, g2)
        for a, b in zip(s1, s2):
            np.testing.assert_array_equal(a, b)


def test_one_output_path_is_not_taken_with_weights_masks_or_regularization(monkeypatch):
    def fail(self, *args):
        raise AssertionError("the one-output path ran")

    monkeypatch.setattr(compile_utils.LossesContainer, "_one_output", fail)
    y, p = _t([[1.0], [3.0]]), _t([[0.0], [1.0]])
    c = compile_utils.LossesContainer("mse", output_names=["out"])
    c(y, p, sample_weight=_t([1.0, 2.0]))          # builds, and weights
    c(y, p, regularization_losses=[_t(0.5)])
    masked = _t([[0.0], [1.0]])
    masked._keras_mask = torch.tensor([True, False])
    c(y, masked)
    w = compile_utils.LossesContainer("mse", loss_weights=2.0, output_names=["out"])
    w(y, p)
    w(y, p)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("kind", ["sparse", "dense", "binary"])
def test_one_output_metric_updates_equal_the_general_path(kind, dtype):
    # Law: metric states after updates with tensors (the one-output path) equal those after
    # the same updates given as one-element lists (the general path), bit for bit.
    def make():
        return compile_utils.MetricsContainer(
            ["accuracy", "mae", tf.keras.metrics.MeanSquaredError(name="m2")],
            weighted_metrics=["accuracy"], output_names=["out"])

    states = []
    for as_lists in (False, True):
        c = make()
        for step in range(3):
            n = 4 + step
            y = torch.as_tensor(_labels(kind, np.random.default_rng(step), n, dtype))
            p = torch.tensor(np.random.default_rng(10 + step).standard_normal((n, 4)),
                             dtype=getattr(torch, dtype))
            if as_lists:
                c.update_state([y], [p])
            else:
                c.update_state(y, p)
        states.append([(m.name, [np.asarray(v) for v in m.variables]) for m in c.metrics])
    assert [n for n, _ in states[0]] == [n for n, _ in states[1]]
    for (_, a), (_, b) in zip(*states):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
