"""`tf.keras.regularizers`: formulas, dtypes, configs (values pinned against tf_keras 2.21 in
`tests/keras/golden_leaf`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat.keras import regularizers as R

_weights = hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                      elements=st.floats(-10, 10))


@given(_weights, st.floats(0, 1), st.floats(0, 1))
def test_penalties_follow_their_formulas(x, l1, l2):
    t = tf.constant(x)
    f1, f2 = float(np.float32(l1)), float(np.float32(l2))  # factors are floatx scalars
    np.testing.assert_allclose(float(R.L1(l1)(t)), f1 * np.abs(x).sum(), rtol=1e-12,
                               atol=1e-300)
    np.testing.assert_allclose(float(R.L2(l2)(t)), f2 * np.square(x).sum(), rtol=1e-12,
                               atol=1e-300)
    np.testing.assert_allclose(float(R.L1L2(l1, l2)(t)),
                               f1 * np.abs(x).sum() + f2 * np.square(x).sum(), rtol=1e-12,
                               atol=1e-300)


@given(hnp.arrays(np.float64, (4, 3), elements=st.floats(0.1, 5)),
       st.sampled_from(["rows", "columns"]))
def test_orthogonal_regularizer_is_mean_abs_cosine(x, mode):
    t = tf.constant(x)
    n = x / np.linalg.norm(x, axis=1 if mode == "rows" else 0, keepdims=True)
    g = n @ n.T if mode == "rows" else n.T @ n
    k = g.shape[0]
    expected = float(np.float32(0.1)) * 0.5 * np.abs(g - np.diag(np.diag(g))).sum() / (
        k * (k - 1) / 2)
    np.testing.assert_allclose(float(R.OrthogonalRegularizer(0.1, mode)(t)), expected,
                               rtol=1e-12)


def test_defaults_and_dtypes():
    assert R.L2().get_config() == {"l2": float(np.float32(0.01))}
    assert R.l1_l2().get_config() == {"l1": float(np.float32(0.01)),
                                      "l2": float(np.float32(0.01))}
    assert R.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert R.L2(l=0.5).get_config() == {"l2": 0.5}
    for dtype in (tf.float16, tf.float32, tf.float64):
        assert R.L2()(tf.ones((2,), dtype=dtype)).dtype == dtype
    assert R.L1L2()(tf.ones((2,))).item() == 0.0


@pytest.mark.parametrize("cls", [R.L1, R.L2, R.L1L2, R.OrthogonalRegularizer])
def test_config_round_trip(cls):
    reg = cls()
    assert type(cls.from_config(reg.get_config())) is cls
    restored = R.deserialize(R.serialize(reg))
    assert type(restored) is cls and restored.get_config() == reg.get_config()


def test_get_and_errors():
    assert isinstance(R.get("l2"), R.L2) and isinstance(R.get("L1"), R.L1)
    assert R.get("nope") == "nope"  # tf_keras returns an unknown name unchanged
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier: 5"):
        R.get(5)
    with pytest.raises(ValueError, match="not a valid regularization penalty number"):
        R.L1(np.float32(0.1))
    with pytest.raises(TypeError, match="Argument\\(s\\) not recognized"):
        R.L1(foo=1)
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        R.Regularizer().get_config()
    assert R.Regularizer()(tf.ones(2)) == 0.0
    f = lambda x: 0.0  # noqa: E731
    assert R.get(f) is f
