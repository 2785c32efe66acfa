"""`tf.image.adjust_brightness` / `adjust_contrast` against TF 2.21's values
(fixtures/image_adjust.json, recorded by gen_image_adjust.py), and their laws.

Error model: brightness is one correctly rounded addition (and TF's conversions): exact.
Contrast averages the `n = height * width` values of each channel (a sum of `n` terms,
`gamma(n) * sum|x|` apart between summation orders), then subtracts, scales and adds back:
`(n + 3) * u * max|x| * (1 + |factor|)` covers both sides' errors; an integer image
converted back may land one unit apart where that float error straddles a rounding point."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
import torch

import tfcompat as tf

CASES = json.loads((pathlib.Path(__file__).parent / "fixtures" / "image_adjust.json").read_text())["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_matches_tf(case):
    image = np.array(case["image"]).astype(case["dtype"]).reshape(case["shape"])
    got = getattr(tf.image, case["op"])(image, case["arg"])
    want = np.array(case["want"]).astype(case["want_dtype"]).reshape(case["shape"])
    assert str(got.numpy().dtype) == case["want_dtype"]
    got = got.numpy().astype(np.float64)
    want = want.astype(np.float64)
    if case["op"] == "adjust_brightness":
        np.testing.assert_array_equal(got, want)
        return
    n = case["shape"][-3] * case["shape"][-2]
    kind = np.dtype(case["dtype"])
    if np.issubdtype(kind, np.integer):  # (computed on image / MAX in float32, scaled back)
        top = float(np.iinfo(kind).max)
        scale = np.abs(image.astype(np.float64) / top).max() * (1 + abs(case["arg"]))
        bound = (n + 3) * 2.0 ** -24 * scale * (top + 0.5) + 1
    else:
        scale = np.abs(image.astype(np.float64)).max() * (1 + abs(case["arg"]))
        bound = (n + 3) * 2.0 ** -24 * scale
    np.testing.assert_allclose(got, want, rtol=0, atol=bound)


def test_contrast_law_keeps_each_channels_mean_and_scales_deviations():
    rs = np.random.RandomState(0)
    image = rs.uniform(0, 1, (2, 6, 5, 3)).astype(np.float32)
    out = tf.image.adjust_contrast(image, 3.0).numpy()
    mean = image.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(out.mean(axis=(1, 2), keepdims=True), mean, atol=1e-5)
    np.testing.assert_allclose(out - mean, 3.0 * (image - mean), atol=1e-5)
    np.testing.assert_allclose(tf.image.adjust_contrast(image, 1.0).numpy(), image, atol=2 ** -23)
    with pytest.raises(ValueError):
        tf.image.adjust_contrast(np.zeros((4, 4), np.float32), 2.0)


def test_contrast_has_no_gradient_and_no_half_cpu_kernel_as_in_tf():
    """TF's autodiff guide: `tape.gradient` through `adjust_contrast` is a LookupError (TF
    registers no gradient for AdjustContrastv2); brightness (an add) has one. TF's CPU kernel
    takes float32 only: float16 images are its NotFoundError."""
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError, match="AdjustContrastv2"):
        tape.gradient(new_image, [image, delta])
    with tf.GradientTape() as tape:
        brighter = tf.image.adjust_brightness(image, delta)
    grads = tape.gradient(brighter, [image, delta])
    assert torch.equal(grads[0], torch.ones((1, 1, 3))) and float(grads[1]) == 3.0
    with pytest.raises(tf.errors.NotFoundError, match="AdjustContrastv2"):
        tf.image.adjust_contrast(np.zeros((2, 2, 3), np.float16), 2.0)


def test_saturate_cast_clamps_at_the_input_dtypes_values_inside_the_range():
    """TF 2.21's values (recorded live): float32 to int32 clamps at 2147483520, the largest
    float32 below 2**31 (2**31 - 1 itself rounds up to 2**31 and would wrap), float64 at
    2147483647; float32 to float16 at 65504. The integer images above depend on it."""
    x = tf.constant([3e9, -3e9, 2147483520.0, 2147483647.0, 1e20], tf.float32)
    assert tf.saturate_cast(x, tf.int32).tolist() == [2147483520, -2147483648, 2147483520,
                                                     2147483520, 2147483520]
    assert tf.saturate_cast(tf.constant([3e9, 2 ** 31 - 1.0], tf.float64), tf.int32).tolist() \
        == [2147483647, 2147483647]
    assert tf.saturate_cast(tf.constant([300.7, -5.2, 255.6]), tf.uint8).tolist() == [255, 0, 255]
    assert float(tf.saturate_cast(tf.constant([70000.0]), tf.float16)[0]) == 65504.0
    big = torch.tensor([1e30, -1e30], dtype=torch.bfloat16)
    assert tf.saturate_cast(big, tf.int64).tolist() == [2 ** 63 - 2 ** 55, -2 ** 63]
