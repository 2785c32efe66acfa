"""tf_keras 2.21 / TF 2.21 goldens for `tf.image` (resize in every implemented method, up
and down, 3-D and 4-D, float64/float16/uint8 inputs, preserve_aspect_ratio, gradients;
crops, pads, flips, conversions, standardization, errors), the projective transform
behind the random image layers (every fill mode and interpolation), and the
preprocessing layers (Resizing, CenterCrop, Rescaling, Normalization with adapt,
CategoryEncoding, Discretization, IntegerLookup): outputs, weights, vocabularies, configs
and errors.

Error model (tests/ops/golden/harness.py): bilinear / nearest / bicubic and the projective
transform are transcriptions of TF's float32 kernels (bit-exact on this machine; n = 4
covers an FMA contraction in TF's compiled kernels, normwise); area sums up to
(in / out + 2)^2 weighted cells (n = that + 2); gradients of a resize are sums of up to
16 * scale^2 terms (normwise). Normalization's adapt merges batch moments: a mean over
the batch (n = batch), the merge a few ops.
"""

from __future__ import annotations

import numpy as np

from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(5)
IMG = _RNG.uniform(-1, 1, (2, 5, 7, 3)).astype(np.float32)
IMG3 = _RNG.uniform(0, 1, (6, 4, 3)).astype(np.float32)
U8 = _RNG.integers(0, 256, (1, 5, 6, 3)).astype(np.uint8)
FEAT = _RNG.normal(2.0, 3.0, (70, 4)).astype(np.float32)
TRANSFORMS = np.array([[np.cos(.7), -np.sin(.7), 2.0, np.sin(.7), np.cos(.7), -1.3, 0, 0],
                       [1.3, 0, -1.0, 0, 0.7, 1.2, 0, 0]], np.float32)


def _resize(x, size, method, **kwargs):
    return lambda tf: tf.image.resize(tf.constant(x), size, method=method, **kwargs)


def _resize_grad(x, size, method):
    def fn(tf):
        xt = tf.constant(x)
        cot = tf.constant(np.random.default_rng(1).uniform(-1, 1, (x.shape[0],) + tuple(size)
                                                           + (x.shape[-1],)).astype(np.float32))
        with tf.GradientTape() as tape:
            tape.watch(xt)
            y = tf.image.resize(xt, size, method=method)
            total = tf.reduce_sum(y * cot)
        return {"output": y, "grad": tape.gradient(total, xt)}
    return fn


def _projective(tf, images, transforms, interpolation, fill_mode, fill_value=0.5,
                shape=None):
    shape = list(images.shape[1:3]) if shape is None else shape
    if hasattr(tf, "raw_ops"):
        op = tf.raw_ops.ImageProjectiveTransformV3
    else:
        from tfcompat.ops.image_ops import image_projective_transform_v3 as op
    return op(images=tf.constant(images), transforms=tf.constant(transforms),
              output_shape=tf.constant(shape, dtype=tf.int32),
              fill_value=tf.constant(fill_value, dtype=tf.float32),
              interpolation=interpolation, fill_mode=fill_mode)


def _layer_out(make, x, **call_kwargs):
    def fn(tf):
        tf.keras.backend.clear_session()
        return make(tf)(tf.constant(x), **call_kwargs)
    return fn


def _config(make):
    def fn(tf):
        tf.keras.backend.clear_session()
        config = make(tf).get_config()
        return {k: (str(v) if k in ("mask_token", "oov_token") or isinstance(v, tuple)
                    else v) for k, v in config.items()}
    return fn


def _normalization_adapt(data_fn, x, batch_size=None, **kwargs):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = tf.keras.layers.Normalization(**kwargs)
        layer.adapt(data_fn(tf), batch_size=batch_size)
        return {"weights": layer.get_weights(), "out": layer(tf.constant(x))}
    return fn


def _lookup(tf, x, adapt=None, **kwargs):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.IntegerLookup(**kwargs)
    if adapt is not None:
        layer.adapt(adapt)
    return {"out": layer(tf.constant(x)),
            "vocab": [int(v) for v in layer.get_vocabulary()],
            "size": layer.vocabulary_size()}


def _discretize_adapt(tf, data, x, **kwargs):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.Discretization(**kwargs)
    layer.adapt(data)
    return {"out": layer(tf.constant(x)),
            "bins": np.asarray(layer.bin_boundaries, dtype=np.float32)}


def _error(fn):
    return Case(fn, match_message=True)


CASES = {
    # -- tf.image.resize
    **{f"resize_{m}_{name}": Case(_resize(x, s, m), n=4 if m != "area" else 12,
                                  terms="normwise")
       for m in ("bilinear", "nearest", "bicubic", "area")
       for name, x, s in (("up", IMG, (9, 11)), ("down", IMG, (3, 4)),
                          ("mixed", IMG, (8, 3)), ("3d", IMG3, (4, 7)))},
    "resize_same_size_bilinear": Case(_resize(IMG, (5, 7), "bilinear"), n=4, terms="normwise"),
    "resize_float64_bilinear": Case(_resize(IMG.astype(np.float64), (7, 4), "bilinear"), n=4,
                                    terms="normwise"),
    "resize_float16_bicubic": Case(_resize(IMG.astype(np.float16), (7, 9), "bicubic"), n=4,
                                   terms="normwise"),
    "resize_float16_nearest": _resize(IMG.astype(np.float16), (7, 9), "nearest"),
    "resize_uint8_nearest": _resize(U8, (9, 4), "nearest"),
    "resize_uint8_bilinear": Case(_resize(U8, (3, 8), "bilinear"), n=4, terms="normwise"),
    "resize_uint8_area": Case(_resize(U8, (2, 4), "area"), n=12, terms="normwise"),
    "resize_preserve_aspect": Case(_resize(IMG, (10, 10), "bilinear",
                                           preserve_aspect_ratio=True), n=4, terms="normwise"),
    "resize_preserve_aspect_down": _resize(IMG3, (3, 3), "nearest", preserve_aspect_ratio=True),
    "resize_grad_bilinear": Case(_resize_grad(IMG, (8, 4), "bilinear"), n=8, terms="normwise"),
    "resize_grad_bicubic": Case(_resize_grad(IMG, (3, 10), "bicubic"), n=16, terms="normwise"),
    "resize_grad_nearest": Case(_resize_grad(IMG, (9, 3), "nearest"), n=4, terms="normwise"),
    "resize_method_error": _error(lambda tf: tf.image.resize(IMG, (3, 3), method="cubic")),
    "resize_rank_error": _error(lambda tf: tf.image.resize(np.zeros((3, 3), np.float32),
                                                           (2, 2))),
    "resize_size_error": _error(lambda tf: tf.image.resize(IMG, (2, 2, 2))),
    "resize_method_names": lambda tf: [tf.image.ResizeMethod.BILINEAR,
                                       tf.image.ResizeMethod.NEAREST_NEIGHBOR,
                                       tf.image.ResizeMethod.BICUBIC, tf.image.ResizeMethod.AREA,
                                       tf.image.ResizeMethod.LANCZOS3],
    # -- geometry
    "flip_left_right": lambda tf: tf.image.flip_left_right(tf.constant(IMG)),
    "flip_up_down_3d": lambda tf: tf.image.flip_up_down(tf.constant(IMG3)),
    "central_crop": lambda tf: tf.image.central_crop(tf.constant(IMG), 0.5),
    "central_crop_3d": lambda tf: tf.image.central_crop(tf.constant(IMG3), 0.7),
    "central_crop_error": _error(lambda tf: tf.image.central_crop(tf.constant(IMG), 1.5)),
    "crop_to_bounding_box": lambda tf: tf.image.crop_to_bounding_box(tf.constant(IMG), 1, 2, 3,
                                                                     4),
    "crop_error_offset": _error(lambda tf: tf.image.crop_to_bounding_box(tf.constant(IMG), -1,
                                                                         0, 2, 2)),
    "crop_error_size": _error(lambda tf: tf.image.crop_to_bounding_box(tf.constant(IMG), 3, 0,
                                                                       3, 2)),
    "pad_to_bounding_box": lambda tf: tf.image.pad_to_bounding_box(tf.constant(IMG3), 1, 2, 9,
                                                                   7),
    "pad_error": _error(lambda tf: tf.image.pad_to_bounding_box(tf.constant(IMG3), 1, 2, 6, 7)),
    "resize_with_crop_or_pad": lambda tf: tf.image.resize_with_crop_or_pad(tf.constant(IMG), 8,
                                                                           4),
    "resize_with_crop_or_pad_3d": lambda tf: tf.image.resize_with_crop_or_pad(
        tf.constant(IMG3), 3, 7),
    # -- conversions
    "rgb_to_grayscale": Case(lambda tf: tf.image.rgb_to_grayscale(tf.constant(IMG3)), n=3),
    "rgb_to_grayscale_uint8": lambda tf: tf.image.rgb_to_grayscale(tf.constant(U8)),
    "grayscale_to_rgb": lambda tf: tf.image.grayscale_to_rgb(tf.constant(IMG3[..., :1])),
    "convert_uint8_to_float": lambda tf: tf.image.convert_image_dtype(tf.constant(U8),
                                                                      tf.float32),
    "convert_float_to_uint8": lambda tf: tf.image.convert_image_dtype(tf.constant(IMG3),
                                                                      tf.uint8),
    "convert_float_to_int16_saturate": lambda tf: tf.image.convert_image_dtype(
        tf.constant(IMG * 2), tf.int16, saturate=True),
    "convert_uint8_to_int32": lambda tf: tf.image.convert_image_dtype(tf.constant(U8),
                                                                      tf.int32),
    "convert_int32_to_uint8": lambda tf: tf.image.convert_image_dtype(
        tf.constant(np.array([[[0], [2 ** 30]], [[2 ** 31 - 1], [77777777]]], np.int32)),
        tf.uint8),
    "convert_float_to_float16": lambda tf: tf.image.convert_image_dtype(tf.constant(IMG3),
                                                                        tf.float16),
    "per_image_standardization": Case(lambda tf: tf.image.per_image_standardization(
        tf.constant(IMG)), n=110, terms="normwise"),
    "per_image_standardization_uint8": Case(lambda tf: tf.image.per_image_standardization(
        tf.constant(U8)), n=95, terms="normwise"),
    "per_image_standardization_constant": lambda tf: tf.image.per_image_standardization(
        tf.ones([3, 3, 1])),
    # -- projective transform (the random layers' sampler)
    **{f"transform_{fm.lower()}_{it.lower()}": Case(
        (lambda fm, it: lambda tf: _projective(tf, IMG, TRANSFORMS, it, fm))(fm, it), n=4,
        terms="normwise")
       for fm in ("REFLECT", "WRAP", "CONSTANT", "NEAREST") for it in ("NEAREST", "BILINEAR")},
    "transform_projective_shape": Case(lambda tf: _projective(
        tf, IMG, np.array([[1, 0.1, 4.5, 0, 1, -3.5, 0.01, -0.02]], np.float32), "BILINEAR",
        "REFLECT", shape=[6, 4]), n=4, terms="normwise"),
    "transform_rank_error": Case(lambda tf: _projective(
        tf, IMG, TRANSFORMS[0], "BILINEAR", "REFLECT")),
    "transform_uint8": lambda tf: _projective(tf, U8, TRANSFORMS[:1], "BILINEAR", "WRAP"),
    # -- Resizing, CenterCrop, Rescaling
    **{f"resizing_{m}": Case(_layer_out(
        (lambda m: lambda tf: tf.keras.layers.Resizing(4, 9, interpolation=m))(m), IMG),
        n=4 if m != "area" else 12, terms="normwise")
       for m in ("bilinear", "nearest", "bicubic", "area")},
    "resizing_crop_to_aspect": Case(_layer_out(
        lambda tf: tf.keras.layers.Resizing(4, 4, crop_to_aspect_ratio=True), IMG), n=4,
        terms="normwise"),
    "resizing_crop_to_aspect_tall": Case(_layer_out(
        lambda tf: tf.keras.layers.Resizing(6, 2, crop_to_aspect_ratio=True), IMG), n=4,
        terms="normwise"),
    "resizing_uint8": Case(_layer_out(lambda tf: tf.keras.layers.Resizing(3, 3), U8), n=4,
                           terms="normwise"),
    "resizing_nearest_uint8": _layer_out(lambda tf: tf.keras.layers.Resizing(
        3, 3, interpolation="nearest"), U8),
    "resizing_float16": Case(_layer_out(lambda tf: tf.keras.layers.Resizing(
        7, 3, dtype="float16"), IMG), n=4, terms="normwise"),
    "resizing_shape": lambda tf: tf.keras.layers.Resizing(3, 8).compute_output_shape(
        (None, 5, 7, 3)),
    "resizing_interp_error": _error(lambda tf: tf.keras.layers.Resizing(3, 3, "cubic")),
    "center_crop": _layer_out(lambda tf: tf.keras.layers.CenterCrop(3, 4), IMG),
    "center_crop_odd": _layer_out(lambda tf: tf.keras.layers.CenterCrop(2, 2), IMG3),
    "center_crop_upsize": Case(_layer_out(lambda tf: tf.keras.layers.CenterCrop(8, 4), IMG),
                               n=4, terms="normwise"),
    "center_crop_uint8": _layer_out(lambda tf: tf.keras.layers.CenterCrop(3, 3), U8),
    "rescaling": _layer_out(lambda tf: tf.keras.layers.Rescaling(1 / 127.5, offset=-1), U8),
    "rescaling_float64": _layer_out(lambda tf: tf.keras.layers.Rescaling(
        0.3, 0.1, dtype="float64"), IMG),
    "rescaling_float16": _layer_out(lambda tf: tf.keras.layers.Rescaling(
        1 / 255, dtype="float16"), U8),
    "rescaling_vector": _layer_out(lambda tf: tf.keras.layers.Rescaling(
        [0.5, 2.0, -1.0], [0.0, 1.0, 2.0]), IMG),
    # -- Normalization
    "normalization_adapt_array": Case(_normalization_adapt(lambda tf: FEAT, FEAT[:5]), n=72,
                                      terms="normwise"),
    "normalization_adapt_batches": Case(_normalization_adapt(lambda tf: FEAT, FEAT[:5], 7),
                                        n=72, terms="normwise"),
    "normalization_adapt_dataset": Case(_normalization_adapt(
        lambda tf: tf.data.Dataset.from_tensor_slices(FEAT).batch(16), FEAT[:5]), n=72,
        terms="normwise"),
    "normalization_adapt_axis_none": Case(_normalization_adapt(
        lambda tf: FEAT, FEAT[:3], axis=None), n=290, terms="normwise"),
    "normalization_adapt_image_axis": Case(_normalization_adapt(
        lambda tf: IMG, IMG[:1], axis=(1, -1)), n=20, terms="normwise"),
    "normalization_adapt_invert": Case(_normalization_adapt(
        lambda tf: FEAT, FEAT[:5], invert=True), n=72, terms="normwise"),
    "normalization_adapt_float64": Case(_normalization_adapt(
        lambda tf: FEAT.astype(np.float64), FEAT[:5], dtype="float64"), n=72,
        terms="normwise"),
    "normalization_given": Case(_layer_out(lambda tf: tf.keras.layers.Normalization(
        mean=[1.0, 2.0, -1.0, 0.5], variance=[4.0, 0.25, 1.0, 9.0]), FEAT[:6]), n=3),
    "normalization_given_scalar": _layer_out(lambda tf: tf.keras.layers.Normalization(
        mean=3., variance=2.), np.array([[1.], [2.], [3.]], np.float32)),
    "normalization_zero_variance": _layer_out(lambda tf: tf.keras.layers.Normalization(
        mean=1., variance=0.), np.array([[1.], [2.]], np.float32)),
    "normalization_weight_names": lambda tf: [w.name for w in _built_norm(tf).weights],
    "normalization_config": _config(lambda tf: tf.keras.layers.Normalization(
        axis=(1, 2), mean=[1.0, 2.0], variance=[3.0, 4.0], invert=True, name="n")),
    "normalization_mean_only_error": _error(lambda tf: tf.keras.layers.Normalization(mean=1.)),
    "normalization_axis_error": _error(lambda tf: tf.keras.layers.Normalization(axis=3)(
        tf.ones([2, 3]))),
    "normalization_adapt_static_error": Case(lambda tf: tf.keras.layers.Normalization(
        mean=1., variance=1.).adapt(FEAT)),
    # -- CategoryEncoding
    "category_multi_hot": _layer_out(lambda tf: tf.keras.layers.CategoryEncoding(
        6), np.array([[0, 1, 1, 5], [3, 3, 3, 3]], np.int64)),
    "category_one_hot": _layer_out(lambda tf: tf.keras.layers.CategoryEncoding(
        4, output_mode="one_hot"), np.array([3, 2, 0, 1], np.int32)),
    "category_one_hot_column": _layer_out(lambda tf: tf.keras.layers.CategoryEncoding(
        4, output_mode="one_hot"), np.array([[3], [2]], np.int32)),
    "category_count": _layer_out(lambda tf: tf.keras.layers.CategoryEncoding(
        4, output_mode="count"), np.array([[0, 1, 1, 3], [2, 2, 2, 0]], np.int64)),
    "category_count_weights": Case(lambda tf: tf.keras.layers.CategoryEncoding(
        4, output_mode="count")(tf.constant([[0, 1, 1, 3]]),
                                count_weights=tf.constant([[.1, .2, .3, .4]])), n=2),
    "category_scalar": _layer_out(lambda tf: tf.keras.layers.CategoryEncoding(3), np.int32(2)),
    "category_binary_alias": _config(lambda tf: tf.keras.layers.CategoryEncoding(
        3, output_mode="binary", name="c")),
    "category_config": _config(lambda tf: tf.keras.layers.CategoryEncoding(
        7, output_mode="count", name="c")),
    "category_shape": lambda tf: [tf.keras.layers.CategoryEncoding(5, output_mode=m)
                                  .compute_output_shape(s) for m, s in (
        ("one_hot", (None, 3)), ("one_hot", (None, 1)), ("multi_hot", (None, 3)))],
    "category_range_error": Case(lambda tf: tf.keras.layers.CategoryEncoding(3)(
        tf.constant([[1, 5]]))),
    "category_mode_error": _error(lambda tf: tf.keras.layers.CategoryEncoding(
        3, output_mode="tf_idf")),
    "category_num_tokens_error": _error(lambda tf: tf.keras.layers.CategoryEncoding()),
    "category_rank_error": Case(lambda tf: tf.keras.layers.CategoryEncoding(3)(
        tf.zeros([2, 2, 2], tf.int32))),
    # -- Discretization
    "discretization_boundaries": _layer_out(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0., 1., 2.]), np.array([[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 2.0]],
                                               np.float32)),
    "discretization_one_hot": _layer_out(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0., 1.], output_mode="one_hot"), np.array([-1.0, 0.5, 1.0],
                                                                  np.float32)),
    "discretization_count": _layer_out(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0., 1.], output_mode="count"), np.array([[-1.0, 0.5, 1.0, 0.7]],
                                                                np.float32)),
    "discretization_float64_int": _layer_out(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0.1, 0.2]), np.array([0.1, 0.15, 0.2, 0.25], np.float64)),
    "discretization_adapt": lambda tf: _discretize_adapt(
        tf, np.array([[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 0.0]]),
        np.array([[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 0.0]]), num_bins=4, epsilon=0.01),
    "discretization_adapt_many": lambda tf: _discretize_adapt(
        tf, FEAT, FEAT[:4], num_bins=5, epsilon=0.05),
    "discretization_config": _config(lambda tf: tf.keras.layers.Discretization(
        num_bins=3, epsilon=0.1, name="d")),
    "discretization_both_error": _error(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0.], num_bins=2)),
    "discretization_sparse_int_error": _error(lambda tf: tf.keras.layers.Discretization(
        bin_boundaries=[0.], sparse=True)),
    "discretization_num_bins_error": _error(lambda tf: tf.keras.layers.Discretization(
        num_bins=-1)),
    # -- IntegerLookup
    "lookup_vocab": lambda tf: _lookup(tf, np.array([[12, 1138, 42], [42, 1000, 36]]),
                                       vocabulary=[12, 36, 1138, 42]),
    "lookup_adapt": lambda tf: _lookup(tf, np.array([[12, 42, 7]]),
                                       adapt=np.array([[12, 1138, 42], [42, 1000, 36]])),
    "lookup_adapt_max_tokens": lambda tf: _lookup(
        tf, np.array([[1, 2, 3, 4, 5]]), adapt=np.array([1, 1, 2, 2, 2, 3, 4, 4, 5, 9, 9, 9]),
        max_tokens=4),
    "lookup_mask_oov2": lambda tf: _lookup(tf, np.array([[12, 0, 5, 6, 36]]),
                                           vocabulary=[12, 36, 1138, 42], mask_token=0,
                                           num_oov_indices=2),
    "lookup_no_oov": lambda tf: _lookup(tf, np.array([[12, 42]]), vocabulary=[12, 36, 42],
                                        num_oov_indices=0),
    "lookup_invert": lambda tf: _lookup(tf, np.array([[1, 3, 4, 0, 9]]),
                                        vocabulary=[12, 36, 1138, 42], invert=True),
    "lookup_invert_mask": lambda tf: _lookup(tf, np.array([[0, 1, 2, 5]]),
                                             vocabulary=[12, 36, 1138, 42], invert=True,
                                             mask_token=0),
    "lookup_multi_hot": lambda tf: _lookup(tf, np.array([[12, 1138, 12, 5], [36, 36, 36, 1]]),
                                           vocabulary=[12, 36, 1138, 42],
                                           output_mode="multi_hot"),
    "lookup_count_pad": lambda tf: _lookup(tf, np.array([[12, 1138, 12, 5]]),
                                           vocabulary=[12, 36], output_mode="count",
                                           pad_to_max_tokens=True, max_tokens=6),
    "lookup_one_hot": lambda tf: _lookup(tf, np.array([12, 1138, 5]),
                                         vocabulary=[12, 36, 1138, 42], output_mode="one_hot"),
    "lookup_specials_in_vocab": lambda tf: _lookup(tf, np.array([[12, 7, 0]]),
                                                   vocabulary=[0, -1, 12, 36], mask_token=0),
    "lookup_config": _config(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary=[3, 4], mask_token=0, num_oov_indices=2, name="l")),
    "lookup_repeated_error": _error(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary=[3, 4, 3])),
    "lookup_mask_in_vocab_error": _error(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary=[3, 0, 4], mask_token=0)),
    "lookup_max_tokens_error": _error(lambda tf: tf.keras.layers.IntegerLookup(max_tokens=1)),
    "lookup_too_large_error": _error(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary=[1, 2, 3], max_tokens=3)),
    "lookup_invert_mode_error": _error(lambda tf: tf.keras.layers.IntegerLookup(
        invert=True, output_mode="count")),
    "lookup_no_oov_error": Case(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary=[1, 2], num_oov_indices=0)(tf.constant([1, 3]))),
    "lookup_dtype_error": _error(lambda tf: tf.keras.layers.IntegerLookup(
        vocabulary_dtype="float32")),
    "lookup_vocab_needed_error": Case(lambda tf: tf.keras.layers.IntegerLookup(
        output_mode="multi_hot")(tf.constant([[1]]))),
    # -- random layers: configs, inference identity, errors
    "random_flip_config": _config(lambda tf: tf.keras.layers.RandomFlip(
        "vertical", seed=3, name="f")),
    "random_rotation_config": _config(lambda tf: tf.keras.layers.RandomRotation(
        (-0.2, 0.3), fill_mode="wrap", interpolation="nearest", seed=1, fill_value=1.0,
        name="r")),
    "random_zoom_config": _config(lambda tf: tf.keras.layers.RandomZoom(
        0.2, (-0.1, 0.3), fill_mode="constant", name="z")),
    "random_translation_config": _config(lambda tf: tf.keras.layers.RandomTranslation(
        0.1, 0.2, name="t")),
    "random_flip_inference": _layer_out(lambda tf: tf.keras.layers.RandomFlip(), IMG,
                                        training=False),
    "random_rotation_inference_uint8": _layer_out(lambda tf: tf.keras.layers.RandomRotation(
        0.3), U8, training=False),
    "random_zoom_inference": _layer_out(lambda tf: tf.keras.layers.RandomZoom(0.3), IMG3,
                                        training=False),
    "random_translation_inference": _layer_out(lambda tf: tf.keras.layers.RandomTranslation(
        0.3, 0.2), IMG, training=False),
    "random_rotation_zero": _layer_out(lambda tf: tf.keras.layers.RandomRotation(
        0.0, interpolation="nearest"), IMG, training=True),
    "random_translation_zero": _layer_out(lambda tf: tf.keras.layers.RandomTranslation(
        0.0, 0.0, interpolation="nearest"), IMG3, training=True),
    "random_flip_mode_error": _error(lambda tf: tf.keras.layers.RandomFlip("diagonal",
                                                                           name="rf")),
    "random_rotation_fill_error": _error(lambda tf: tf.keras.layers.RandomRotation(
        0.1, fill_mode="mirror")),
    "random_zoom_interp_error": _error(lambda tf: tf.keras.layers.RandomZoom(
        0.1, interpolation="bicubic")),
    "random_zoom_factor_error": _error(lambda tf: tf.keras.layers.RandomZoom(1.5)),
    "random_translation_order_error": _error(lambda tf: tf.keras.layers.RandomTranslation(
        (0.3, 0.1), 0.1)),
    "random_translation_range_error": _error(lambda tf: tf.keras.layers.RandomTranslation(
        0.1, 1.2)),
}


def _built_norm(tf):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.Normalization()
    layer.build((None, 3))
    return layer
