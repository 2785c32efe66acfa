"""tf_keras 2.21 goldens for the reshaping layers this area adds: Permute, RepeatVector,
Cropping1D/2D/3D, UpSampling1D/2D/3D (nearest, bilinear, bicubic and area, both formats), ZeroPadding1D/2D/3D
(int, pair and per-axis forms); float64 and float16; output shapes, configs and errors.

Error model (tests/ops/golden/harness.py): permuting, repeating, cropping and padding move
values (n = 0, bit for bit); a repetition's gradient sums the cotangent over the copies
(n = copies - 1); bilinear resizing is TF's kernel formula in float32 (a few roundings per
output), and its gradient (TF's ResizeBilinearGrad: float32 terms accumulated in the input's
dtype) adds up to 2 * size_y * 2 * size_x terms per input pixel (n = 4 * size_y * size_x,
normwise). Bicubic is TF's table-driven kernel in float32 (n = 4, as tf.image.resize's goldens),
its gradient a sum of up to 16 * size_y * size_x terms per input pixel; area with whole
factors reads one input cell per output cell (n = 12 as the resize goldens), and TF
registers no gradient for ResizeArea (outputs only).
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.keras.golden.layer_case import layer_config as _config
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(71)
SEQ = _RNG.uniform(-1, 1, (2, 6, 3)).astype(np.float32)
VEC = _RNG.uniform(-1, 1, (3, 4)).astype(np.float32)
IMG = _RNG.uniform(-1, 1, (2, 5, 4, 3)).astype(np.float32)
IMG_CF = np.ascontiguousarray(IMG.transpose(0, 3, 1, 2))
VOL = _RNG.uniform(-1, 1, (2, 4, 5, 3, 2)).astype(np.float32)
VOL_CF = np.ascontiguousarray(VOL.transpose(0, 4, 1, 2, 3))
X4 = _RNG.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32)


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _run(cls, x, *args, n=0, terms=None, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), [x]), n=n, terms=terms)


def _outputs(cls, x, *args, n=0, **kwargs):
    return Case(lambda tf: run_layer(tf, _layer(cls, *args, **kwargs), [x], grads=False), n=n,
                terms="normwise")


def _error(fn):
    return Case(fn, match_message=True)


def _shapes(tf):
    L = tf.keras.layers
    return [str(layer.compute_output_shape(shape)) for layer, shape in (
        (L.Permute((2, 1)), (None, 3, 4)),
        (L.Permute((3, 1, 2)), (None, 3, None, 5)),
        (L.RepeatVector(3), (None, 4)),
        (L.Cropping1D((1, 2)), (None, 6, 3)),
        (L.Cropping1D(), (None, None, 3)),
        (L.Cropping2D(((1, 0), (2, 1))), (None, 5, 6, 3)),
        (L.Cropping2D(1, data_format="channels_first"), (None, 3, None, 6)),
        (L.Cropping3D(((1, 0), (2, 1), 0)), (None, 4, 5, 6, 2)),
        (L.Cropping3D(data_format="channels_first"), (2, 3, None, 6, 5)),
        (L.UpSampling1D(3), (None, None, 4)),
        (L.UpSampling2D((2, 3)), (None, 5, None, 3)),
        (L.UpSampling2D(data_format="channels_first"), (None, 3, 5, 4)),
        (L.UpSampling3D((1, 2, 3)), (None, 2, 3, None, 5)),
        (L.UpSampling3D(2, data_format="channels_first"), (None, 3, 2, 3, 4)),
        (L.ZeroPadding1D((0, 2)), (None, 6, 3)),
        (L.ZeroPadding2D(((1, 0), (2, 3))), (None, 5, None, 3)),
        (L.ZeroPadding2D(1, data_format="channels_first"), (None, 3, 5, 4)),
        (L.ZeroPadding3D((1, 2, 3)), (None, 2, None, 4, 5)),
        (L.ZeroPadding3D(1, data_format="channels_first"), (None, 3, 2, 3, 4)),
    )]


def _functional(tf):
    """A small model through several reshaping layers: its output shape and values."""
    tf.keras.backend.clear_session()
    L = tf.keras.layers
    inputs = tf.keras.Input((5, 4, 3))
    x = L.ZeroPadding2D(((1, 0), (0, 2)))(inputs)
    x = L.UpSampling2D((2, 1), interpolation="bilinear")(x)
    x = L.Cropping2D(((2, 1), (1, 1)))(x)
    x = L.Permute((3, 1, 2))(x)
    model = tf.keras.Model(inputs, x)
    return {"output_shape": str(model.output_shape), "output": model(IMG)}


def _sequential(tf):
    tf.keras.backend.clear_session()
    L = tf.keras.layers
    model = tf.keras.Sequential([L.RepeatVector(2, input_shape=(4,)), L.UpSampling1D(2),
                                 L.ZeroPadding1D(1), L.Cropping1D((0, 1))])
    return {"output_shape": str(model.output_shape), "output": model(VEC)}


CASES = {
    # -- Permute / RepeatVector
    "permute_21": _run("Permute", SEQ, (2, 1)),
    "permute_312": _run("Permute", X4, (3, 1, 2)),
    "permute_float64": _run("Permute", X4.astype(np.float64), (2, 3, 1), dtype="float64"),
    "repeat_vector": _run("RepeatVector", VEC, 3, n=2, terms="normwise"),
    "repeat_vector_float16": _run("RepeatVector", VEC.astype(np.float16), 2, dtype="float16",
                                  n=1, terms="normwise"),
    # -- cropping
    "crop1d_default": _run("Cropping1D", SEQ),
    "crop1d_after_zero": _run("Cropping1D", SEQ, (2, 0)),
    "crop2d_int": _run("Cropping2D", IMG, 1),
    "crop2d_pairs": _run("Cropping2D", IMG, ((1, 2), (0, 1))),
    "crop2d_pairs_bottom_zero": _run("Cropping2D", IMG, ((1, 0), (1, 1))),
    "crop2d_channels_first": _run("Cropping2D", IMG_CF, ((2, 1), (1, 0)),
                                  data_format="channels_first"),
    "crop3d_default": _run("Cropping3D", VOL),
    "crop3d_mixed": _run("Cropping3D", VOL, ((1, 0), 2, (0, 1))),
    "crop3d_channels_first": _run("Cropping3D", VOL_CF, ((0, 1), (1, 2), 1),
                                  data_format="channels_first"),
    "crop3d_to_empty": _run("Cropping3D", VOL, ((2, 2), 0, 0)),
    "crop2d_float16": _run("Cropping2D", IMG.astype(np.float16), 1, dtype="float16"),
    # -- up-sampling
    "up1d": _run("UpSampling1D", SEQ, n=1, terms="normwise"),
    "up1d_3": _run("UpSampling1D", SEQ, 3, n=2, terms="normwise"),
    "up2d_nearest": _run("UpSampling2D", IMG, n=3, terms="normwise"),
    "up2d_nearest_23": _run("UpSampling2D", IMG, (2, 3), n=5, terms="normwise"),
    "up2d_nearest_channels_first": _run("UpSampling2D", IMG_CF, (3, 2),
                                        data_format="channels_first", n=5, terms="normwise"),
    # (TF's ResizeNearestNeighborGrad adds the copies in float16)
    "up2d_nearest_float16": _run("UpSampling2D", IMG.astype(np.float16), dtype="float16",
                                 n=3, terms="normwise"),
    "up2d_bilinear": _run("UpSampling2D", IMG, interpolation="bilinear", n=16,
                          terms="normwise"),
    "up2d_bilinear_3x2": _run("UpSampling2D", IMG, (3, 2), interpolation="bilinear", n=24,
                              terms="normwise"),
    "up2d_bilinear_odd": _run("UpSampling2D", IMG, (5, 3), interpolation="BILINEAR", n=60,
                              terms="normwise"),
    "up2d_bilinear_channels_first": _run("UpSampling2D", IMG_CF, (2, 3),
                                         data_format="channels_first",
                                         interpolation="bilinear", n=24, terms="normwise"),
    "up2d_bilinear_float64": _run("UpSampling2D", IMG.astype(np.float64),
                                  interpolation="bilinear", dtype="float64", n=16,
                                  terms="normwise"),
    "up2d_bilinear_float16": _run("UpSampling2D", IMG.astype(np.float16),
                                  interpolation="bilinear", dtype="float16", n=16,
                                  terms="normwise"),
    "up2d_bilinear_size1": _run("UpSampling2D", IMG, (1, 1), interpolation="bilinear", n=4,
                                terms="normwise"),
    "up2d_bicubic": _run("UpSampling2D", IMG, interpolation="bicubic", n=64, terms="normwise"),
    "up2d_bicubic_3x2": _run("UpSampling2D", IMG, (3, 2), interpolation="Bicubic", n=96,
                             terms="normwise"),
    "up2d_bicubic_channels_first": _run("UpSampling2D", IMG_CF, (2, 3),
                                        data_format="channels_first",
                                        interpolation="bicubic", n=96, terms="normwise"),
    "up2d_bicubic_float64": _run("UpSampling2D", IMG.astype(np.float64),
                                 interpolation="bicubic", dtype="float64", n=64,
                                 terms="normwise"),
    # (TF registers ResizeBicubicGrad for float32/float64 only: no float16 gradient)
    "up2d_bicubic_float16": _outputs("UpSampling2D", IMG.astype(np.float16),
                                     interpolation="bicubic", dtype="float16", n=4),
    "up2d_area": _outputs("UpSampling2D", IMG, interpolation="area", n=12),
    "up2d_area_3x2": _outputs("UpSampling2D", IMG, (3, 2), interpolation="AREA", n=12),
    "up2d_area_channels_first": _outputs("UpSampling2D", IMG_CF, (2, 3),
                                         data_format="channels_first", interpolation="area",
                                         n=12),
    "up2d_area_float64": _outputs("UpSampling2D", IMG.astype(np.float64), (1, 2),
                                  interpolation="area", dtype="float64", n=12),
    "up2d_area_float16": _outputs("UpSampling2D", IMG.astype(np.float16), interpolation="area",
                                  dtype="float16", n=12),
    "up3d": _run("UpSampling3D", VOL, n=7, terms="normwise"),
    "up3d_123_channels_first": _run("UpSampling3D", VOL_CF, (1, 2, 3),
                                    data_format="channels_first", n=5, terms="normwise"),
    "up3d_float64": _run("UpSampling3D", VOL.astype(np.float64), (2, 1, 1), dtype="float64",
                         n=1, terms="normwise"),
    # -- zero padding
    "pad1d_default": _run("ZeroPadding1D", SEQ),
    "pad1d_pair": _run("ZeroPadding1D", SEQ, (0, 3)),
    "pad2d_default": _run("ZeroPadding2D", IMG),
    "pad2d_ints": _run("ZeroPadding2D", IMG, (2, 1)),
    "pad2d_pairs": _run("ZeroPadding2D", IMG, ((1, 0), (2, 3))),
    "pad2d_channels_first": _run("ZeroPadding2D", IMG_CF, ((0, 1), 2),
                                 data_format="channels_first"),
    "pad3d_default": _run("ZeroPadding3D", VOL),
    "pad3d_pairs_channels_first": _run("ZeroPadding3D", VOL_CF, ((1, 0), (0, 2), 1),
                                       data_format="channels_first"),
    "pad2d_float16": _run("ZeroPadding2D", IMG.astype(np.float16), 1, dtype="float16"),
    "pad3d_float64": _run("ZeroPadding3D", VOL.astype(np.float64), 2, dtype="float64"),
    # -- models
    "functional_model": Case(_functional, n=8, terms="normwise"),
    "sequential_model": _sequential,
    # -- shapes, configs
    "output_shapes": _shapes,
    "permute_config": _config("Permute", [3, 1, 2], name="p"),
    "repeat_vector_config": _config("RepeatVector", 4, name="r"),
    "crop1d_config": _config("Cropping1D", 2, name="c1"),
    "crop2d_config": _config("Cropping2D", ((1, 2), 3), data_format="channels_first",
                             name="c2"),
    "crop3d_config": _config("Cropping3D", 1, name="c3"),
    "up1d_config": _config("UpSampling1D", 3, name="u1"),
    "up2d_config": _config("UpSampling2D", 3, interpolation="Bilinear", name="u2"),
    "up2d_config_bicubic": _config("UpSampling2D", 2, interpolation="BICUBIC", name="u2b"),
    "up2d_config_area": _config("UpSampling2D", (1, 2), interpolation="area", name="u2a"),
    "up3d_config": _config("UpSampling3D", [1, 2, 3], data_format="channels_first",
                           name="u3"),
    "pad1d_config": _config("ZeroPadding1D", (1, 2), name="z1"),
    "pad2d_config": _config("ZeroPadding2D", 2, name="z2"),
    "pad3d_config": _config("ZeroPadding3D", ((1, 2), 3, (0, 1)), data_format="channels_last",
                            name="z3"),
    # -- errors
    "permute_dims_error": _error(lambda tf: tf.keras.layers.Permute((1, 3))),
    "permute_zero_error": _error(lambda tf: tf.keras.layers.Permute((0, 1))),
    "permute_rank_error": _error(lambda tf: tf.keras.layers.Permute((2, 1), name="pe")(
        tf.ones([2, 3]))),
    "repeat_vector_type_error": _error(lambda tf: tf.keras.layers.RepeatVector(2.0)),
    "repeat_vector_rank_error": _error(lambda tf: tf.keras.layers.RepeatVector(2, name="rv")(
        tf.ones([2, 3, 4]))),
    # (tf_keras wraps an error raised in `call` in "Exception encountered when calling
    # layer ..."; tfcompat's engine raises it as it is: the class is compared)
    "crop1d_too_much_error": lambda tf: tf.keras.layers.Cropping1D((3, 3))(
        tf.ones([2, 6, 3])),
    "crop1d_negative_error": _error(lambda tf: tf.keras.layers.Cropping1D((-1, 1))),
    "crop2d_too_much_error": lambda tf: tf.keras.layers.Cropping2D(((0, 0), (2, 2)))(
        tf.ones([2, 5, 4, 3])),
    "crop2d_length_error": _error(lambda tf: tf.keras.layers.Cropping2D((1, 2, 3))),
    "crop2d_type_error": _error(lambda tf: tf.keras.layers.Cropping2D(1.5)),
    "crop2d_entry_error": _error(lambda tf: tf.keras.layers.Cropping2D(((1, 2, 3), 1))),
    "crop3d_length_error": _error(lambda tf: tf.keras.layers.Cropping3D((1, 2))),
    "crop3d_type_error": _error(lambda tf: tf.keras.layers.Cropping3D(None)),
    "crop3d_entry_error": _error(lambda tf: tf.keras.layers.Cropping3D((1, 2, (1, -1)))),
    "up2d_interpolation_error": _error(lambda tf: tf.keras.layers.UpSampling2D(
        interpolation="cubic")),
    "up2d_size_error": _error(lambda tf: tf.keras.layers.UpSampling2D((1, 2, 3))),
    "up2d_zero_size_error": _error(lambda tf: tf.keras.layers.UpSampling2D((0, 2))),
    "up3d_size_error": _error(lambda tf: tf.keras.layers.UpSampling3D((1, 2))),
    "up2d_data_format_error": _error(lambda tf: tf.keras.layers.UpSampling2D(
        data_format="nhwc")),
    "up1d_rank_error": _error(lambda tf: tf.keras.layers.UpSampling1D(name="u1")(
        tf.ones([2, 3]))),
    "pad1d_error": _error(lambda tf: tf.keras.layers.ZeroPadding1D((1, 2, 3))),
    "pad2d_length_error": _error(lambda tf: tf.keras.layers.ZeroPadding2D((1, 2, 3))),
    "pad2d_type_error": _error(lambda tf: tf.keras.layers.ZeroPadding2D(1.0)),
    "pad3d_length_error": _error(lambda tf: tf.keras.layers.ZeroPadding3D((1, 2))),
    "pad3d_type_error": _error(lambda tf: tf.keras.layers.ZeroPadding3D(2.5)),
    "pad3d_rank_error": _error(lambda tf: tf.keras.layers.ZeroPadding3D(name="z3")(
        tf.ones([2, 3, 4, 5]))),
}
