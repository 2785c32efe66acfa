"""The reshaping layers Permute, RepeatVector, Cropping1D/2D/3D, UpSampling1D/2D/3D and
ZeroPadding1D/2D/3D: shape laws, values against NumPy, the bilinear kernel and its gradient,
config round trips, errors that change nothing, masks, Sequential and functional models.
Numerics vs tf_keras are in tests/keras/golden/cases_reshaping.py."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf

L = tf.keras.layers
FORMATS = st.sampled_from(["channels_last", "channels_first"])
pair = st.tuples(st.integers(0, 2), st.integers(0, 2))


def _spatial(data_format, rank):
    return list(range(2, 2 + rank)) if data_format == "channels_first" else list(
        range(1, 1 + rank))


def _check_law(layer, shape):
    out = layer(torch.rand(shape))
    assert list(out.shape) == layer.compute_output_shape(shape).as_list()
    return out


# -- compute_output_shape(input_shape) == call(...).shape ---------------------------------
@settings(deadline=None)
@given(rank=st.integers(1, 4), data=st.data())
def test_permute_law(rank, data):
    dims = data.draw(st.permutations(list(range(1, rank + 1))))
    shape = [2] + data.draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    x = torch.rand(shape)
    _check_law(L.Permute(dims), shape)
    np.testing.assert_array_equal(L.Permute(dims)(x).numpy(),
                                  np.transpose(x.numpy(), [0] + list(dims)))


@given(n=st.integers(1, 4), features=st.integers(1, 4))
def test_repeat_vector_law(n, features):
    x = torch.rand(3, features)
    out = _check_law(L.RepeatVector(n), [3, features])
    np.testing.assert_array_equal(L.RepeatVector(n)(x).numpy(),
                                  np.repeat(x.numpy()[:, None], n, axis=1))
    assert out.shape == (3, n, features)


@settings(deadline=None)
@given(rank=st.integers(1, 3), data=st.data(), data_format=FORMATS)
def test_cropping_law_and_values(rank, data, data_format):
    pairs = data.draw(st.lists(pair, min_size=rank, max_size=rank))
    sizes = [before + after + data.draw(st.integers(1, 3)) for before, after in pairs]
    if rank == 1:
        data_format = "channels_last"
        layer = L.Cropping1D(pairs[0])
    else:
        layer = getattr(L, f"Cropping{rank}D")(tuple(pairs), data_format=data_format)
    shape = [2, 3] + sizes if data_format == "channels_first" else [2] + sizes + [3]
    _check_law(layer, shape)
    x = np.random.default_rng(0).uniform(size=shape).astype(np.float32)
    index = [slice(None)] * len(shape)
    for axis, (before, after) in zip(_spatial(data_format, rank), pairs):
        index[axis] = slice(before, shape[axis] - after)
    np.testing.assert_array_equal(layer(torch.tensor(x)).numpy(), x[tuple(index)])


@settings(deadline=None)
@given(rank=st.integers(1, 3), data=st.data(), data_format=FORMATS)
def test_zero_padding_law_and_values(rank, data, data_format):
    pairs = data.draw(st.lists(pair, min_size=rank, max_size=rank))
    form = data.draw(st.sampled_from(["pairs", "ints", "int"]))
    if form == "int":
        pairs = [pairs[0] if pairs[0][0] == pairs[0][1] else (pairs[0][0],) * 2] * rank
        arg = pairs[0][0]
    elif form == "ints":
        pairs = [(p[0], p[0]) for p in pairs]
        arg = tuple(p[0] for p in pairs) if rank > 1 else pairs[0]
    else:
        arg = tuple(pairs) if rank > 1 else pairs[0]
    if rank == 1:
        data_format = "channels_last"
        layer = L.ZeroPadding1D(arg)
    else:
        layer = getattr(L, f"ZeroPadding{rank}D")(arg, data_format=data_format)
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    shape = [2, 3] + sizes if data_format == "channels_first" else [2] + sizes + [3]
    _check_law(layer, shape)
    x = np.random.default_rng(1).uniform(size=shape).astype(np.float32)
    widths = [(0, 0)] * len(shape)
    for axis, p in zip(_spatial(data_format, rank), pairs):
        widths[axis] = p
    np.testing.assert_array_equal(layer(torch.tensor(x)).numpy(), np.pad(x, widths))


@settings(deadline=None)
@given(rank=st.integers(1, 3), data=st.data(), data_format=FORMATS,
       bilinear=st.booleans())
def test_up_sampling_law_and_nearest_values(rank, data, data_format, bilinear):
    sizes = data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    dims = data.draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    if rank == 1:
        data_format = "channels_last"
        layer = L.UpSampling1D(sizes[0])
    elif rank == 2:
        layer = L.UpSampling2D(tuple(sizes), data_format=data_format,
                               interpolation="bilinear" if bilinear else "nearest")
    else:
        layer = L.UpSampling3D(tuple(sizes), data_format=data_format)
    shape = [2, 3] + dims if data_format == "channels_first" else [2] + dims + [3]
    _check_law(layer, shape)
    if rank == 2 and bilinear:
        return
    x = np.random.default_rng(2).uniform(size=shape).astype(np.float32)
    want = x
    for axis, size in zip(_spatial(data_format, rank), sizes):
        want = np.repeat(want, size, axis=axis)
    np.testing.assert_array_equal(layer(torch.tensor(x)).numpy(), want)


def test_unknown_sizes_stay_unknown():
    assert L.Cropping1D().compute_output_shape((None, None, 3)).as_list() == [None, None, 3]
    assert L.UpSampling2D().compute_output_shape((None, None, 4, 3)).as_list() == \
        [None, None, 8, 3]
    assert L.ZeroPadding3D().compute_output_shape((None, 2, None, 4, 5)).as_list() == \
        [None, 4, None, 6, 5]
    assert L.Permute((2, 1)).compute_output_shape((None, None, 3)).as_list() == [None, 3, None]
    assert L.RepeatVector(2).compute_output_shape((None, 4)).as_list() == [None, 2, 4]
    # tf_keras's Cropping2D reads a 0-sized axis as unknown
    assert L.Cropping2D().compute_output_shape((None, 0, 4, 3)).as_list() == [None, None, 4, 3]


# -- the bilinear kernel -------------------------------------------------------------------
def _reference_bilinear(x, sy, sx):
    """TF's half-pixel bilinear resize in float64 NumPy (NHWC)."""
    n, h, w, c = x.shape
    out = np.zeros((n, h * sy, w * sx, c))
    for i, j in itertools.product(range(h * sy), range(w * sx)):
        fy, fx = (i + 0.5) / sy - 0.5, (j + 0.5) / sx - 0.5
        y0, x0 = int(np.floor(fy)), int(np.floor(fx))
        ly, lx = fy - y0, fx - x0
        ya, yb = max(y0, 0), min(y0 + 1, h - 1)
        xa, xb = max(x0, 0), min(x0 + 1, w - 1)
        top = x[:, ya, xa] + (x[:, ya, xb] - x[:, ya, xa]) * lx
        bottom = x[:, yb, xa] + (x[:, yb, xb] - x[:, yb, xa]) * lx
        out[:, i, j] = top + (bottom - top) * ly
    return out


@pytest.mark.parametrize("size", [(2, 2), (3, 2), (1, 4), (1, 1)])
def test_bilinear_matches_the_half_pixel_formula(size):
    x = np.random.default_rng(3).uniform(-1, 1, (2, 4, 3, 2))
    out = L.UpSampling2D(size, interpolation="bilinear")(torch.tensor(x, dtype=torch.float32))
    assert out.dtype == torch.float32
    np.testing.assert_allclose(out.numpy(), _reference_bilinear(x, *size), atol=1e-6)


def test_bilinear_output_is_float32_for_every_input_dtype():
    for dtype in ("float16", "float64"):
        layer = L.UpSampling2D(interpolation="bilinear", dtype=dtype)
        assert layer(torch.rand(1, 3, 3, 1)).dtype == torch.float32
        assert L.UpSampling2D(dtype=dtype)(torch.rand(1, 3, 3, 1)).dtype == getattr(torch,
                                                                                    dtype)


def test_bilinear_gradient_is_the_adjoint_of_the_resize():
    """<resize(x), g> == <x, resize^T(g)>: the hand-written gradient is the exact adjoint."""
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.uniform(-1, 1, (2, 3, 4, 2)), dtype=torch.float64)
    g = torch.tensor(rng.uniform(-1, 1, (2, 9, 8, 2)), dtype=torch.float32)
    layer = L.UpSampling2D((3, 2), interpolation="bilinear", dtype="float64")
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x)
        total = tf.reduce_sum(tf.cast(out * g, "float64"))
    grad = tape.gradient(total, x)
    assert grad.dtype == torch.float64
    # the same adjoint through torch's autograd of the formula in float64
    xt = x.clone().requires_grad_(True)
    from tfcompat.ops.image_ops import _bilinear_axis
    y_lo, y_hi, y_l = _bilinear_axis(3, 9, "cpu")
    x_lo, x_hi, x_l = _bilinear_axis(4, 8, "cpu")
    y_l, x_l = y_l.double().view(1, -1, 1, 1), x_l.double().view(1, 1, -1, 1)

    def across(rows):
        left, right = rows.index_select(2, x_lo), rows.index_select(2, x_hi)
        return left + (right - left) * x_l
    top, bottom = across(xt.index_select(1, y_lo)), across(xt.index_select(1, y_hi))
    ((top + (bottom - top) * y_l) * g.double()).sum().backward()
    np.testing.assert_allclose(grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_bilinear_channels_first_is_the_transposed_channels_last():
    x = torch.rand(2, 5, 4, 3)
    last = L.UpSampling2D((2, 3), interpolation="bilinear")(x)
    first = L.UpSampling2D((2, 3), interpolation="bilinear", data_format="channels_first")(
        x.permute(0, 3, 1, 2))
    np.testing.assert_array_equal(first.permute(0, 2, 3, 1).numpy(), last.numpy())


@pytest.mark.parametrize("method", ["bicubic", "area", "bilinear", "nearest"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_up_sampling_2d_is_tf_image_resize(method, data_format):
    """UpSampling2D(size, interpolation=m) == tf.image.resize(x, size * (h, w), m), bit for
    bit, in both formats; every method but nearest returns float32."""
    x = torch.tensor(np.random.default_rng(5).uniform(-1, 1, (2, 4, 3, 2)), dtype=torch.float64)
    want = tf.image.resize(x, [12, 6], method=method)
    layer = L.UpSampling2D((3, 2), interpolation=method.upper(), dtype="float64",
                           data_format=data_format)
    images = x.permute(0, 3, 1, 2) if data_format == "channels_first" else x
    out = layer(images)
    out = out.permute(0, 2, 3, 1) if data_format == "channels_first" else out
    assert out.dtype == (torch.float64 if method == "nearest" else torch.float32)
    np.testing.assert_array_equal(out.numpy(), want.numpy())


def test_area_with_integer_factors_averages_copies_back():
    """Area up-sampling by whole factors copies every pixel (each output cell lies in one
    input cell)."""
    x = torch.rand(1, 3, 4, 2)
    out = L.UpSampling2D((2, 3), interpolation="area")(x)
    np.testing.assert_allclose(out.numpy(), np.repeat(np.repeat(x.numpy(), 2, 1), 3, 2),
                               rtol=1e-6)


def test_bicubic_and_area_train_through_the_layer():
    inputs = tf.keras.Input((3, 3, 1))
    for method in ("bicubic", "area"):
        model = tf.keras.Model(inputs, L.UpSampling2D(interpolation=method)(inputs))
        assert model.output_shape == (None, 6, 6, 1)
        x = torch.rand(2, 3, 3, 1, requires_grad=True)
        model(x).sum().backward()
        assert x.grad is not None and x.grad.shape == x.shape


@pytest.mark.parametrize("method", ["gaussian", "lanczos3", "lanczos5", "mitchellcubic"])
def test_scale_and_translate_interpolations_configure_but_do_not_run(method):
    layer = L.UpSampling2D(interpolation=method.capitalize())
    assert layer.get_config()["interpolation"] == method
    with pytest.raises(NotImplementedError, match=method):
        layer(torch.rand(1, 2, 2, 1))


# -- get_config / from_config round trip ----------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda: L.Permute((3, 1, 2)), lambda: L.RepeatVector(3), lambda: L.Cropping1D((1, 2)),
    lambda: L.Cropping2D(((1, 0), 2), data_format="channels_first"), lambda: L.Cropping3D(1),
    lambda: L.UpSampling1D(3), lambda: L.UpSampling2D((2, 3), interpolation="bilinear"),
    lambda: L.UpSampling3D(2, data_format="channels_first"), lambda: L.ZeroPadding1D(2),
    lambda: L.ZeroPadding2D(((1, 2), (3, 4))), lambda: L.ZeroPadding3D((1, 2, 3)),
])
def test_config_round_trip(make):
    layer = make()
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config


def test_config_values_are_normalized_as_tf_keras():
    assert L.Cropping2D(1).get_config()["cropping"] == ((1, 1), (1, 1))
    assert L.ZeroPadding3D((1, 2, 3)).get_config()["padding"] == ((1, 1), (2, 2), (3, 3))
    assert L.ZeroPadding1D(2).get_config()["padding"] == (2, 2)
    assert L.UpSampling1D(3.0).get_config()["size"] == 3
    assert L.Permute([2, 1]).get_config()["dims"] == (2, 1)


# -- errors that change nothing ---------------------------------------------------------
@pytest.mark.parametrize("make,kind,match", [
    (lambda: L.Permute((1, 3)), ValueError, "Invalid permutation argument"),
    (lambda: L.RepeatVector(2.0), TypeError, "Expected an integer value for `n`"),
    (lambda: L.Cropping1D((-1, 1)), ValueError, "does not satisfy the requirement"),
    (lambda: L.Cropping2D((1, 2, 3)), ValueError, "should have two elements"),
    (lambda: L.Cropping2D(1.5), ValueError, "should be either an int"),
    (lambda: L.Cropping3D((1, 2)), ValueError, "should have 3 elements"),
    (lambda: L.Cropping3D((1, 2, (1, -1))), ValueError, "3rd entry of cropping"),
    (lambda: L.ZeroPadding2D(((1, 2, 3), 1)), ValueError, "1st entry of padding"),
    (lambda: L.ZeroPadding3D(2.5), ValueError, "should be either an int"),
    (lambda: L.UpSampling2D(interpolation="cubic"), NotImplementedError, "not recognized"),
    (lambda: L.UpSampling2D((0, 2)), ValueError, "does not satisfy the requirement `> 0`"),
    (lambda: L.UpSampling3D(data_format="nhwc"), ValueError, "data_format"),
])
def test_constructor_errors(make, kind, match):
    with pytest.raises(kind, match=match):
        make()


@pytest.mark.parametrize("make,bad,good", [
    (lambda: L.Permute((2, 1)), (2, 3), (2, 3, 4)),
    (lambda: L.RepeatVector(2), (2, 3, 4), (2, 3)),
    (lambda: L.UpSampling1D(), (2, 3), (2, 3, 4)),
    (lambda: L.ZeroPadding3D(), (2, 3, 4, 5), (2, 3, 4, 5, 1)),
    (lambda: L.Cropping2D(), (2, 3, 4), (2, 3, 4, 5)),
])
def test_rank_errors_leave_the_layer_unbuilt(make, bad, good):
    layer = make()
    with pytest.raises(ValueError, match="is incompatible with the layer"):
        layer(torch.ones(bad))
    assert not layer.built
    assert layer(torch.ones(good)).dim() == len(good) + (1 if len(good) == 2 else 0)


def test_cropping_everything_is_refused_for_1d_and_2d():
    with pytest.raises(ValueError, match="cropping parameter of Cropping layer"):
        L.Cropping1D((3, 3))(torch.ones(2, 6, 3))
    with pytest.raises(ValueError, match="Argument `cropping` must be greater"):
        L.Cropping2D(((0, 0), (2, 2)), data_format="channels_first")(torch.ones(2, 3, 5, 4))
    # tf_keras slices a 3-D volume to an empty axis instead
    assert L.Cropping3D(((2, 2), 0, 0))(torch.ones(2, 4, 3, 3, 1)).shape == (2, 0, 3, 3, 1)


def test_gradients_are_scattered_back():
    x = torch.ones(1, 4, 2)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = L.UpSampling1D(3)(L.ZeroPadding1D(1)(L.Cropping1D((1, 0))(x)))
    grad = tape.gradient(tf.reduce_sum(y), x)
    np.testing.assert_array_equal(np.asarray(grad)[0, :, 0], [0.0, 3.0, 3.0, 3.0])


# -- models --------------------------------------------------------------------------------
def test_sequential_model():
    model = tf.keras.Sequential([
        L.RepeatVector(4, input_shape=(3,)), L.Permute((2, 1)), L.ZeroPadding1D((0, 2)),
        L.UpSampling1D(2), L.Cropping1D((1, 1))])
    assert model.output_shape == (None, 8, 4)
    x = torch.rand(2, 3)
    out = model(x)
    assert out.shape == (2, 8, 4)
    np.testing.assert_array_equal(out.numpy()[:, 0, :], np.repeat(x.numpy()[:, :1], 4, 1))


def test_functional_model_with_each_image_layer():
    inputs = tf.keras.Input((6, 5, 2))
    x = L.ZeroPadding2D(((1, 0), 2))(inputs)
    x = L.UpSampling2D((2, 1), interpolation="bilinear")(x)
    x = L.Cropping2D(((2, 2), (1, 0)))(x)
    x = L.Permute((3, 1, 2))(x)
    model = tf.keras.Model(inputs, x)
    data = torch.rand(3, 6, 5, 2)
    out = model(data)
    assert model.output_shape == (None,) + tuple(out.shape[1:]) == (None, 2, 10, 8)
    clone = tf.keras.Model.from_config(model.get_config())
    np.testing.assert_array_equal(clone(data).numpy(), out.numpy())
    volume = tf.keras.Input((2, 3, 4, 1))
    v = L.Cropping3D(((0, 1), 1, (2, 0)))(L.UpSampling3D((2, 1, 1))(L.ZeroPadding3D(1)(volume)))
    model3 = tf.keras.Model(volume, v)
    assert model3(torch.rand(2, 2, 3, 4, 1)).shape[1:] == tuple(model3.output_shape[1:])


@pytest.mark.parametrize("make", [L.Cropping1D, L.UpSampling1D, L.ZeroPadding1D,
                                  lambda: L.Permute((2, 1))])
def test_a_mask_does_not_pass_these_layers(make):
    # tf_keras's layers do not support masking: eagerly the mask is dropped, no error
    emb = L.Embedding(4, 2, mask_zero=True)
    out = make()(emb(torch.tensor([[1, 0, 2, 3]])))
    assert getattr(out, "_keras_mask", None) is None
