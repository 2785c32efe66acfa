"""`tf.keras.constraints`: projections' laws and configs (values pinned against tf_keras
2.21 in `tests/keras/golden_leaf`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat.keras import constraints as C

_weights = hnp.arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 5)),
                      elements=st.floats(-10, 10))


@given(_weights, st.floats(0.1, 5), st.sampled_from([0, 1]))
def test_max_norm_caps_slice_norms(w, max_value, axis):
    out = C.MaxNorm(max_value, axis)(tf.constant(w)).numpy()
    assert (np.linalg.norm(out, axis=axis) <= max_value * (1 + 1e-12)).all()
    norms = np.linalg.norm(w, axis=axis, keepdims=True)
    expected = w * np.clip(norms, 0, max_value) / (1e-7 + norms)
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-300)


@given(_weights, st.sampled_from([0, 1]))
def test_unit_norm_and_non_neg(w, axis):
    out = C.UnitNorm(axis)(tf.constant(w)).numpy()
    norms = np.linalg.norm(w, axis=axis)
    big = norms > 1e-3
    # TF's UnitNorm divides by (epsilon + norm), epsilon = 1e-7: the norm is norm / (1e-7 + norm)
    np.testing.assert_allclose(np.linalg.norm(out, axis=axis)[big],
                               (norms / (1e-7 + norms))[big], rtol=1e-12)
    nn = C.NonNeg()(tf.constant(w.astype(np.float32))).numpy()
    np.testing.assert_array_equal(nn, np.where(w.astype(np.float32) >= 0, w.astype(np.float32), 0))


@given(_weights, st.floats(0, 1))
def test_min_max_norm_blends_by_rate(w, rate):
    out = C.MinMaxNorm(0.5, 2.0, rate, 0)(tf.constant(w)).numpy()
    norms = np.linalg.norm(w, axis=0, keepdims=True)
    desired = rate * np.clip(norms, 0.5, 2.0) + (1 - rate) * norms
    np.testing.assert_allclose(out, w * desired / (1e-7 + norms), rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_radial_constraint_rings_are_constant(size):
    w = np.random.RandomState(size).uniform(size=(size, size, 2, 3))
    out = C.RadialConstraint()(tf.constant(w)).numpy()
    idx = np.arange(size)
    centre = (size - 1) / 2
    ring = np.maximum(np.abs(idx[:, None] - centre), np.abs(idx[None, :] - centre))
    for r in np.unique(ring):
        values = out[ring == r]
        assert np.all(values == values[0])


@pytest.mark.parametrize("cls,kwargs", [(C.MaxNorm, {"max_value": 3, "axis": 1}),
                                        (C.NonNeg, {}), (C.UnitNorm, {"axis": [0, 1]}),
                                        (C.MinMaxNorm, {"min_value": 0.2, "max_value": 1.5,
                                                        "rate": 0.3, "axis": 0}),
                                        (C.RadialConstraint, {})])
def test_config_round_trip(cls, kwargs):
    con = cls(**kwargs)
    assert con.get_config() == kwargs
    restored = C.deserialize(C.serialize(con))
    assert type(restored) is cls and restored.get_config() == kwargs


def test_aliases_and_errors():
    assert C.max_norm is C.MaxNorm and C.maxnorm is C.MaxNorm and C.nonneg is C.NonNeg
    assert isinstance(C.get("unit_norm"), C.UnitNorm)
    assert C.get(None) is None
    with pytest.raises(ValueError, match="Unknown constraint: 'nope'"):
        C.get("nope")
    with pytest.raises(ValueError, match="Could not interpret constraint function identifier"):
        C.get(1.5)
    with pytest.raises(ValueError, match="must have rank 4"):
        C.RadialConstraint()(tf.ones((3, 3)))
    with pytest.raises(tf.errors.InvalidArgumentError):
        C.NonNeg()(tf.ones((2,), dtype=tf.float64))  # TF's dtype rule: floatx mask
