"""tf.keras.losses: laws of the reductions, config round trips, get/serialize, the logits
fast path and the rules under a tf.distribute strategy (values checked against tf_keras
2.21 by hand where noted; the numerics are in test_losses_golden.py)."""

from __future__ import annotations

import warnings

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.distribute.logical_devices import logical_cpus
from tfcompat.keras import losses
from tfcompat.keras.saving import object_registration

L = losses
R = L.Reduction

# (class, kwargs, kind of y_true): every built-in loss class.
CLASSES = [
    (L.MeanSquaredError, {}, "real"), (L.MeanAbsoluteError, {}, "real"),
    (L.MeanAbsolutePercentageError, {}, "real"), (L.MeanSquaredLogarithmicError, {}, "prob"),
    (L.Huber, {"delta": 0.5}, "real"), (L.LogCosh, {}, "real"),
    (L.BinaryCrossentropy, {"label_smoothing": 0.1}, "binary"),
    (L.BinaryFocalCrossentropy, {"apply_class_balancing": True, "gamma": 1.0}, "binary"),
    (L.CategoricalCrossentropy, {"from_logits": True}, "onehot"),
    (L.CategoricalFocalCrossentropy, {"alpha": 0.4}, "onehot"),
    (L.SparseCategoricalCrossentropy, {"from_logits": True}, "sparse"),
    (L.CategoricalHinge, {}, "onehot"), (L.Hinge, {}, "binary"), (L.SquaredHinge, {}, "binary"),
    (L.KLDivergence, {}, "prob"), (L.Poisson, {}, "prob"), (L.CosineSimilarity, {}, "real"),
]
IDS = [c.__name__ for c, _, _ in CLASSES]


def _inputs(kind, batch, classes, seed):
    rng = np.random.default_rng(seed)
    y_pred = torch.tensor(rng.uniform(0.05, 0.95, size=(batch, classes)), dtype=torch.float64)
    if kind == "real":
        y_true = torch.tensor(rng.normal(size=(batch, classes)))
    elif kind == "prob":
        y_true = torch.tensor(rng.uniform(0.05, 0.95, size=(batch, classes)))
    elif kind == "binary":
        y_true = torch.tensor(rng.integers(0, 2, size=(batch, classes)), dtype=torch.float64)
    elif kind == "onehot":
        y_true = torch.eye(classes, dtype=torch.float64)[rng.integers(0, classes, size=batch)]
    else:
        y_true = torch.tensor(rng.integers(0, classes, size=batch))
    return y_true, y_pred


@pytest.mark.parametrize("cls,kwargs,kind", CLASSES, ids=IDS)
@given(batch=st.integers(1, 5), classes=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_reduction_laws(cls, kwargs, kind, batch, classes, seed):
    y_true, y_pred = _inputs(kind, batch, classes, seed)
    none = cls(reduction=R.NONE, **kwargs)(y_true, y_pred)
    assert tuple(none.shape) == (batch,)
    sobs = cls(reduction=R.SUM_OVER_BATCH_SIZE, **kwargs)(y_true, y_pred)
    auto = cls(**kwargs)(y_true, y_pred)
    total = cls(reduction=R.SUM, **kwargs)(y_true, y_pred)
    torch.testing.assert_close(sobs, none.mean(), rtol=1e-12, atol=1e-12)
    assert torch.equal(auto, sobs)
    torch.testing.assert_close(total, none.sum(), rtol=1e-12, atol=1e-12)
    ones = cls(**kwargs)(y_true, y_pred, sample_weight=torch.ones(batch, dtype=torch.float64))
    assert torch.equal(ones, auto)
    twice = cls(reduction=R.SUM, **kwargs)(y_true, y_pred, sample_weight=2.0)
    torch.testing.assert_close(twice, 2 * total, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls,kwargs,kind", CLASSES, ids=IDS)
def test_config_round_trip(cls, kwargs, kind):
    loss = cls(reduction=R.SUM, name="my_loss", **kwargs)
    config = loss.get_config()
    assert config["reduction"] == "sum" and config["name"] == "my_loss"
    assert config["fn"] == loss.fn.__name__
    for key, value in kwargs.items():
        assert config[key] == value
    again = cls.from_config(config)
    assert type(again) is cls and again.get_config() == config
    restored = L.deserialize(L.serialize(loss))
    assert type(restored) is cls and restored.get_config() == config
    y_true, y_pred = _inputs(kind, 3, 4, 0)
    assert torch.equal(again(y_true, y_pred), loss(y_true, y_pred))


def test_serialize_matches_tf_keras():
    # tf_keras 2.21's outputs, recorded by hand.
    assert L.serialize(L.MeanSquaredError()) == {
        "module": "keras.losses", "class_name": "MeanSquaredError",
        "config": {"reduction": "auto", "name": "mean_squared_error", "fn": "mean_squared_error"},
        "registered_name": None}
    assert L.serialize(L.Huber(), use_legacy_format=True) == {
        "class_name": "Huber",
        "config": {"reduction": "auto", "name": "huber_loss", "delta": 1.0, "fn": "huber"}}
    with pytest.warns(UserWarning, match="should only be used for objects of type"):
        assert L.serialize(L.mse) == {"module": "builtins", "class_name": "function",
                                      "config": "mean_squared_error",
                                      "registered_name": "function"}
    assert L.SparseCategoricalCrossentropy().get_config() == {
        "reduction": "auto", "name": "sparse_categorical_crossentropy", "from_logits": False,
        "ignore_class": None, "fn": "sparse_categorical_crossentropy"}


@pytest.mark.parametrize("name,expected", [
    ("mse", L.mean_squared_error), ("MSE", L.mean_squared_error), ("mae", L.mean_absolute_error),
    ("MAPE", L.mean_absolute_percentage_error), ("msle", L.mean_squared_logarithmic_error),
    ("kld", L.kl_divergence), ("KLD", L.kl_divergence),
    ("kullback_leibler_divergence", L.kl_divergence), ("logcosh", L.log_cosh),
    ("huber_loss", L.huber), ("bce", L.binary_crossentropy),
    ("categorical_crossentropy", L.categorical_crossentropy),
    ("sparse_categorical_crossentropy", L.sparse_categorical_crossentropy),
])
def test_get_by_name(name, expected):
    assert L.get(name) is expected


def test_get_classes_dicts_callables_and_errors():
    assert type(L.get("MeanSquaredError")) is L.MeanSquaredError
    huber = L.get({"class_name": "Huber", "config": {"delta": 2.0, "reduction": "sum",
                                                      "name": "h"}})
    assert huber.get_config() == {"reduction": "sum", "name": "h", "delta": 2.0, "fn": "huber"}
    f = lambda y, p: p  # noqa: E731
    assert L.get(f) is f and L.get(None) is None
    with pytest.raises(ValueError, match="Unknown loss function: 'nope'. Please ensure"):
        L.get("nope")
    with pytest.raises(ValueError, match="Could not interpret loss function identifier: 5"):
        L.get(5)
    with object_registration.custom_object_scope({"nope": f}):
        assert L.get("nope") is f


def test_wrapper_from_config_resolves_the_function():
    wrapper = L.LossFunctionWrapper(L.mean_absolute_error, reduction=R.SUM, name="w")
    config = wrapper.get_config()
    assert config == {"reduction": "sum", "name": "w", "fn": "mean_absolute_error"}
    again = L.LossFunctionWrapper.from_config(config)
    assert again.fn is L.mean_absolute_error


def test_bad_reduction_text():
    with pytest.raises(ValueError) as info:
        L.MeanSquaredError(reduction="mean")
    assert str(info.value) == ('Invalid Reduction Key: mean. Expected keys are '
                               '"(\'auto\', \'none\', \'sum\', \'sum_over_batch_size\')"')


def test_keras_logits_fast_path():
    logits = torch.tensor([[1.0, 2.0, 30.0]])
    probs = torch.softmax(logits, -1)
    y = torch.tensor([[1.0, 0.0, 0.0]])
    # Clipped probabilities: -log(eps) = 16.118095 (tf_keras 2.21 on tf.nn.softmax's output).
    assert float(L.categorical_crossentropy(y, probs)) == pytest.approx(16.118095, rel=1e-6)
    probs._keras_logits = logits  # what tf_keras's softmax activation attaches
    assert float(L.categorical_crossentropy(y, probs)) == pytest.approx(29.0, rel=1e-6)
    with pytest.warns(UserWarning, match="does not represent logits"):
        L.categorical_crossentropy(y, probs, from_logits=True)


def test_ignore_class_averages_over_valid_entries():
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.3, 2.0, 0.1], [0.5, 0.5, 4.0]])
    labels = torch.tensor([0, 2, 2])
    per = L.SparseCategoricalCrossentropy(from_logits=True, reduction=R.NONE)(labels, logits)
    ignored = L.SparseCategoricalCrossentropy(from_logits=True, ignore_class=2)(labels, logits)
    assert float(ignored) == pytest.approx(float(per[0]), rel=1e-6)


@pytest.fixture
def strategy():
    with logical_cpus(2):
        yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def test_under_a_strategy_auto_and_sum_over_batch_size_raise(strategy):
    y = torch.tensor([[1.0], [2.0]])
    for reduction in (R.AUTO, R.SUM_OVER_BATCH_SIZE):
        loss = L.MeanSquaredError(reduction=reduction)
        with strategy.scope():
            with pytest.raises(ValueError, match="training looop `Model.fit\\(\\)`.\nPlease see"):
                loss(y, y * 2)
        with pytest.raises(ValueError, match="Please use `tf.keras.losses.Reduction.SUM`"):
            strategy.run(lambda: loss(y, y * 2))
    # Outside any strategy the default applies again; fit lifts the check.
    assert float(L.MeanSquaredError()(y, y * 2)) == 2.5
    lifted = L.MeanSquaredError()
    lifted._allow_sum_over_batch_size = True
    with strategy.scope():
        assert float(lifted(y, y * 2)) == 2.5


def test_under_a_strategy_sum_and_none_divide_by_the_global_batch(strategy):
    y_true, y_pred = torch.tensor([[1.0], [2.0]]), torch.tensor([[2.0], [4.0]])
    per_example = L.MeanSquaredError(reduction=R.NONE)

    def step():
        return tf.nn.compute_average_loss(per_example(y_true, y_pred))

    out = strategy.run(step)
    # (1 + 4) / (2 rows x 2 replicas), on each replica
    assert [float(v) for v in out.values] == [1.25, 1.25]
    summed = strategy.run(lambda: L.MeanSquaredError(reduction=R.SUM)(y_true, y_pred))
    assert [float(v) for v in summed.values] == [5.0, 5.0]
    scaled = strategy.run(lambda: losses.loss.scale_loss_for_distribution(torch.tensor(3.0)))
    assert [float(v) for v in scaled.values] == [1.5, 1.5]


def test_mismatched_weights_change_nothing():
    loss = L.MeanSquaredError()
    y = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        loss(y, y, sample_weight=torch.tensor([1.0, 2.0, 3.0]))
    assert loss.get_config()["reduction"] == "auto"


@object_registration.register_keras_serializable(package="pk")
class _Registered(L.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(y_pred - y_true, -1)


class _Plain(L.Loss):
    def call(self, y_true, y_pred):
        return tf.reduce_mean(y_pred - y_true, -1)


def test_custom_losses_serialize_as_tf_keras():
    # tf_keras 2.21: the class's module, its registered name (else the class name).
    record = L.serialize(_Registered())
    assert record == {"module": __name__, "class_name": "_Registered",
                      "config": {"reduction": "auto", "name": None},
                      "registered_name": "pk>_Registered"}
    assert type(L.deserialize(record)) is _Registered
    plain = L.serialize(_Plain(name="x"))
    assert plain["registered_name"] == "_Plain" and plain["module"] == __name__
    # tf_keras 2.21's quirks, kept: an unregistered class from a module comes back as its
    # name; one from `__main__` (module None) raises TypeError.
    assert L.deserialize(plain) == "_Plain"
    with pytest.raises(TypeError, match="Cannot deserialize object of type `_Plain`. If `_Plain` "
                                        "is a custom class, please register it"):
        L.deserialize(dict(plain, module=None))
    y = torch.tensor([[1.0, 3.0]])
    assert float(_Registered(reduction=R.SUM)(y, 2 * y)) == 2.0


def test_base_loss_builds_and_raises_when_called():
    # tf_keras's Loss has no ABCMeta: it builds, and only `call` raises.
    loss = L.Loss(reduction=R.SUM, name="base")
    assert loss.get_config() == {"reduction": "sum", "name": "base"}
    with pytest.raises(NotImplementedError, match="Must be implemented in subclasses."):
        loss(torch.ones(2, 1), torch.ones(2, 1))


@pytest.mark.parametrize("cls,kwargs,kind", CLASSES, ids=IDS)
@given(batch=st.integers(1, 5), seed=st.integers(0, 2**16),
       weights=st.lists(st.floats(0.0, 4.0), min_size=5, max_size=5))
def test_weighted_laws(cls, kwargs, kind, batch, seed, weights):
    y_true, y_pred = _inputs(kind, batch, 3, seed)
    w = torch.tensor(weights[:batch], dtype=torch.float64)
    plain = cls(reduction=R.NONE, **kwargs)(y_true, y_pred)
    none = cls(reduction=R.NONE, **kwargs)(y_true, y_pred, sample_weight=w)
    assert torch.equal(none, plain * w.to(plain.dtype))  # one rounded product per sample (Huber: float32)
    # a [batch, 1] weight is squeezed to the same per-sample weighting
    assert torch.equal(cls(reduction=R.NONE, **kwargs)(y_true, y_pred, sample_weight=w[:, None]),
                       none)
    total = cls(reduction=R.SUM, **kwargs)(y_true, y_pred, sample_weight=w)
    torch.testing.assert_close(total, none.sum(), rtol=1e-12, atol=1e-12)
    mean = cls(reduction=R.SUM_OVER_BATCH_SIZE, **kwargs)(y_true, y_pred, sample_weight=w)
    torch.testing.assert_close(mean, none.sum() / batch, rtol=1e-12, atol=1e-12)
