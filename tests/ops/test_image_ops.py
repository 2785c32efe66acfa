"""`tf.image`: shape laws of resize and the crops/pads, gradients through resize, the
projective transform's identity and its TF gradient rule. Numerics vs TF are in
tests/keras/golden/cases_preprocessing.py."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.ops.image_ops import image_projective_transform_v3

METHODS = ["bilinear", "nearest", "bicubic", "area"]


@settings(max_examples=40, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), oh=st.integers(1, 12), ow=st.integers(1, 12),
       method=st.sampled_from(METHODS), batched=st.booleans())
def test_resize_shape_and_dtype(h, w, oh, ow, method, batched):
    shape = (2, h, w, 3) if batched else (h, w, 3)
    x = torch.rand(shape)
    y = tf.image.resize(x, (oh, ow), method=method)
    assert tuple(y.shape) == ((2, oh, ow, 3) if batched else (oh, ow, 3))
    assert y.dtype == torch.float32


def test_resize_nearest_keeps_dtype_others_float32():
    x = torch.randint(0, 255, (1, 4, 4, 1), dtype=torch.uint8)
    assert tf.image.resize(x, (3, 5), method="nearest").dtype == torch.uint8
    assert tf.image.resize(x.double(), (3, 5)).dtype == torch.float32


@pytest.mark.parametrize("method", METHODS)
def test_resize_constant_image_stays_constant(method):
    x = torch.full((1, 5, 7, 2), 0.75)
    y = tf.image.resize(x, (9, 4), method=method)
    np.testing.assert_allclose(y.numpy(), 0.75, rtol=1e-6)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
def test_resize_gradients_flow(method):
    x = torch.rand(1, 4, 5, 2, requires_grad=True)
    tf.image.resize(x, (7, 3), method=method).sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape
    assert float(x.grad.sum()) > 0


def test_resize_preserve_aspect_ratio():
    y = tf.image.resize(torch.rand(5, 7, 3), (10, 10), preserve_aspect_ratio=True)
    assert tuple(y.shape) == (7, 10, 3)


def test_resize_errors():
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.resize(torch.rand(3, 3), (2, 2))
    with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
        tf.image.resize(torch.rand(3, 3, 1), (2, 2, 2))
    with pytest.raises(ValueError, match="Resize method is not implemented"):
        tf.image.resize(torch.rand(3, 3, 1), (2, 2), method="cubic")
    with pytest.raises(NotImplementedError):
        tf.image.resize(torch.rand(3, 3, 1), (2, 2), method="lanczos3")


@settings(max_examples=30, deadline=None)
@given(h=st.integers(1, 8), w=st.integers(1, 8), th=st.integers(1, 10), tw=st.integers(1, 10))
def test_resize_with_crop_or_pad_shape_and_content(h, w, th, tw):
    x = torch.arange(h * w, dtype=torch.float32).reshape(h, w, 1) + 1
    y = tf.image.resize_with_crop_or_pad(x, th, tw)
    assert tuple(y.shape) == (th, tw, 1)
    # every kept value comes from the image, the rest is zero padding
    assert int((y > 0).sum()) == min(h, th) * min(w, tw)


def test_crop_and_pad_are_inverse():
    x = torch.rand(2, 4, 5, 3)
    padded = tf.image.pad_to_bounding_box(x, 1, 2, 7, 9)
    assert torch.equal(tf.image.crop_to_bounding_box(padded, 1, 2, 4, 5), x)


def test_flips_are_involutions():
    x = torch.rand(2, 4, 5, 3)
    assert torch.equal(tf.image.flip_left_right(tf.image.flip_left_right(x)), x)
    assert torch.equal(tf.image.flip_up_down(tf.image.flip_up_down(x)), x)


def test_convert_image_dtype_round_trip():
    x = torch.randint(0, 256, (3, 3, 1), dtype=torch.uint8)
    back = tf.image.convert_image_dtype(tf.image.convert_image_dtype(x, "float32"), "uint8")
    assert torch.equal(back, x)


def test_per_image_standardization_moments():
    y = tf.image.per_image_standardization(torch.rand(2, 6, 5, 3) * 7 + 2)
    np.testing.assert_allclose(y.mean(dim=(1, 2, 3)).numpy(), 0, atol=1e-5)
    np.testing.assert_allclose(y.std(dim=(1, 2, 3), unbiased=False).numpy(), 1, rtol=1e-4)


@pytest.mark.parametrize("mode", ["REFLECT", "WRAP", "CONSTANT", "NEAREST"])
@pytest.mark.parametrize("interp", ["NEAREST", "BILINEAR"])
def test_identity_transform(mode, interp):
    x = torch.rand(2, 5, 6, 3)
    eye = torch.tensor([[1, 0, 0, 0, 1, 0, 0, 0]], dtype=torch.float32)
    y = image_projective_transform_v3(x, eye, [5, 6], 0.0, interp, mode)
    assert torch.equal(y, x)


def test_transform_gradient_is_tfs_inverse_rule():
    x = torch.rand(1, 5, 5, 1, requires_grad=True)
    shift = torch.tensor([[1, 0, -1, 0, 1, 0, 0, 0]], dtype=torch.float32)  # x' = x - 1
    y = image_projective_transform_v3(x, shift, [5, 5], 0.0, "NEAREST", "CONSTANT")
    g = torch.rand(1, 5, 5, 1)
    y.backward(g)
    inverse = torch.tensor([[1, 0, 1, 0, 1, 0, 0, 0]], dtype=torch.float32)
    want = image_projective_transform_v3(g, inverse, [5, 5], 0.0, "NEAREST", "CONSTANT")
    assert torch.equal(x.grad, want)
