"""The random image layers: `RandomFlip`, `RandomRotation`, `RandomZoom`,
`RandomTranslation`. Active only when training (`training=True`, or the learning phase);
otherwise the identity. Rotation, zoom and translation build tf_keras's projective
matrices and sample with `ImageProjectiveTransformV3`'s semantics
(`tfcompat.ops.image_ops.image_projective_transform_v3`, bit-exact with TF's kernel for a
given matrix). The random draws are `tf.random.uniform`'s (seeded by `seed` and the global
seed), so the augmentations are not tf_keras's bit for bit.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch

from ....ops import image_ops, random_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export
from .image_preprocessing import H_AXIS, W_AXIS, convert_inputs

__all__ = ["RandomFlip", "RandomRotation", "RandomZoom", "RandomTranslation"]

HORIZONTAL, VERTICAL = "horizontal", "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


def check_fill_mode_and_interpolation(fill_mode: str, interpolation: str) -> None:
    if fill_mode not in {"reflect", "wrap", "constant", "nearest"}:
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, "
                                  "`constant` and `nearest` are supported.")
    if interpolation not in {"nearest", "bilinear"}:
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Only `nearest` "
                                  "and `bilinear` are supported.")


def _training(training: Any) -> bool:
    if training is None:
        training = backend.learning_phase()
    if isinstance(training, torch.Tensor):
        training = bool(training.item())
    return bool(training)


def _bounds(factor: Any) -> tuple:
    if isinstance(factor, (tuple, list)):
        return factor[0], factor[1]
    return -factor, factor


def transform(images: torch.Tensor, transforms: torch.Tensor, fill_mode: str = "reflect",
              fill_value: float = 0.0, interpolation: str = "bilinear") -> torch.Tensor:
    return image_ops.image_projective_transform_v3(
        images, transforms, output_shape=list(images.shape[1:3]), fill_value=fill_value,
        interpolation=interpolation.upper(), fill_mode=fill_mode.upper())


def get_rotation_matrix(angles: torch.Tensor, image_height: float,
                        image_width: float) -> torch.Tensor:
    """tf_keras's rotation transforms (float32), one row of 8 per angle."""
    h = torch.tensor(image_height, dtype=torch.float32)
    w = torch.tensor(image_width, dtype=torch.float32)
    cos, sin = torch.cos(angles), torch.sin(angles)
    x_offset = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
    y_offset = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
    zeros = torch.zeros_like(angles)
    return torch.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], dim=1)


def get_zoom_matrix(zooms: torch.Tensor, image_height: float,
                    image_width: float) -> torch.Tensor:
    """tf_keras's zoom transforms from `[zx, zy]` rows."""
    zx, zy = zooms[:, 0], zooms[:, 1]
    x_offset = ((image_width - 1.0) / 2.0) * (1.0 - zx)
    y_offset = ((image_height - 1.0) / 2.0) * (1.0 - zy)
    zeros = torch.zeros_like(zx)
    return torch.stack([zx, zeros, x_offset, zeros, zy, y_offset, zeros, zeros], dim=1)


def get_translation_matrix(translations: torch.Tensor) -> torch.Tensor:
    """tf_keras's translation transforms from `[dx, dy]` rows."""
    dx, dy = translations[:, 0], translations[:, 1]
    ones, zeros = torch.ones_like(dx), torch.zeros_like(dx)
    return torch.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], dim=1)


class _RandomImageLayer(Layer):
    """Shared: the seed, the training switch and unbatched (3-D) images; `rng_type` is kept
    for tf_keras's config (the draws are always `tf.random.uniform`'s)."""

    def __init__(self, rng_type: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rng_type = rng_type if rng_type is not None else "stateful"

    def get_config(self) -> dict:
        return {**super().get_config(), "rng_type": self._rng_type}

    def _uniform(self, shape: list, low: float, high: float) -> torch.Tensor:
        return random_ops.uniform(shape, minval=low, maxval=high, dtype="float32",
                                  seed=self.seed)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class _RandomTransformLayer(_RandomImageLayer):
    """Shared by rotation, zoom and translation: the fill and interpolation arguments, the
    call (one projective matrix per image from `_matrices`, sampled by `transform`) and the
    config (the factors named in `_factor_keys`, then the fill arguments and the seed)."""

    _factor_keys: tuple = ()

    def _set_fill_arguments(self, fill_mode: str, interpolation: str, seed: Optional[int],
                            fill_value: float) -> None:
        check_fill_mode_and_interpolation(fill_mode, interpolation)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.interpolation = interpolation
        self.seed = seed

    def _matrices(self, n: int, h: float, w: float) -> torch.Tensor:
        raise NotImplementedError

    def call(self, inputs: Any, training: Any = True) -> torch.Tensor:
        inputs = convert_inputs(inputs, self.compute_dtype)
        if not _training(training):
            return inputs
        unbatched = inputs.dim() == 3
        images = inputs.unsqueeze(0) if unbatched else inputs
        matrices = self._matrices(images.shape[0], float(images.shape[H_AXIS]),
                                  float(images.shape[W_AXIS]))
        out = transform(images, matrices.to(images.device), fill_mode=self.fill_mode,
                        fill_value=self.fill_value, interpolation=self.interpolation)
        return out.squeeze(0) if unbatched else out

    def get_config(self) -> dict:
        return {**super().get_config(), **{key: getattr(self, key) for key in self._factor_keys},
                "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                "interpolation": self.interpolation, "seed": self.seed}


@keras_export("keras.layers.RandomFlip", "keras.layers.experimental.preprocessing.RandomFlip")
class RandomFlip(_RandomImageLayer):
    """Flip each image left-right and/or up-down with probability 1/2 (tf_keras
    `RandomFlip`)."""

    def __init__(self, mode: str = HORIZONTAL_AND_VERTICAL, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mode = mode
        if mode == HORIZONTAL:
            self.horizontal, self.vertical = True, False
        elif mode == VERTICAL:
            self.horizontal, self.vertical = False, True
        elif mode == HORIZONTAL_AND_VERTICAL:
            self.horizontal, self.vertical = True, True
        else:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument "
                             f"{mode}")
        self.seed = seed

    def _flip(self, images: torch.Tensor, axis: int) -> torch.Tensor:
        unbatched = images.dim() == 3
        x = images.unsqueeze(0) if unbatched else images
        coin = self._uniform([x.shape[0]], 0.0, 1.0).to(x.device)
        flip = (coin < 0.5).view(-1, 1, 1, 1)
        out = torch.where(flip, torch.flip(x, dims=[axis]), x)
        return out.squeeze(0) if unbatched else out

    def call(self, inputs: Any, training: Any = True) -> torch.Tensor:
        inputs = convert_inputs(inputs, self.compute_dtype)
        if not _training(training):
            return inputs
        out = inputs
        if self.horizontal:
            out = self._flip(out, W_AXIS)
        if self.vertical:
            out = self._flip(out, H_AXIS)
        return out

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode, "seed": self.seed}


@keras_export("keras.layers.RandomRotation",
              "keras.layers.experimental.preprocessing.RandomRotation")
class RandomRotation(_RandomTransformLayer):
    """Rotate each image by a random angle in `[lower, upper] * 2 pi` (tf_keras
    `RandomRotation`)."""

    _factor_keys = ("factor",)

    def __init__(self, factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.factor = factor
        self.lower, self.upper = _bounds(factor)
        if self.upper < self.lower:
            raise ValueError("`factor` argument cannot have a negative value. Received: "
                             f"factor={factor}")
        self._set_fill_arguments(fill_mode, interpolation, seed, fill_value)

    def _matrices(self, n: int, h: float, w: float) -> torch.Tensor:
        angles = self._uniform([n], self.lower * 2.0 * np.pi, self.upper * 2.0 * np.pi)
        return get_rotation_matrix(angles.cpu(), h, w)


@keras_export("keras.layers.RandomZoom", "keras.layers.experimental.preprocessing.RandomZoom")
class RandomZoom(_RandomTransformLayer):
    """Zoom each image by `1 + U[lower, upper]` per axis (tf_keras `RandomZoom`; positive
    factors zoom out; `width_factor=None` keeps the aspect ratio)."""

    _factor_keys = ("height_factor", "width_factor")

    def __init__(self, height_factor: Any, width_factor: Any = None,
                 fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: Optional[int] = None, fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _bounds(height_factor)
        if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
            raise ValueError("`height_factor` argument must have values between [-1, 1]. "
                             f"Received: height_factor={height_factor}")
        self.width_factor = width_factor
        if width_factor is not None:
            self.width_lower, self.width_upper = _bounds(width_factor)
            if self.width_lower < -1.0 or self.width_upper < -1.0:
                raise ValueError("`width_factor` argument must have values larger than -1. "
                                 f"Received: width_factor={width_factor}")
        self._set_fill_arguments(fill_mode, interpolation, seed, fill_value)

    def _matrices(self, n: int, h: float, w: float) -> torch.Tensor:
        hz = self._uniform([n, 1], 1.0 + self.height_lower, 1.0 + self.height_upper)
        wz = hz if self.width_factor is None else self._uniform(
            [n, 1], 1.0 + self.width_lower, 1.0 + self.width_upper)
        return get_zoom_matrix(torch.cat([wz, hz], dim=1).cpu(), h, w)


@keras_export("keras.layers.RandomTranslation",
              "keras.layers.experimental.preprocessing.RandomTranslation")
class RandomTranslation(_RandomTransformLayer):
    """Shift each image by `U[lower, upper]` of its height / width (tf_keras
    `RandomTranslation`)."""

    _factor_keys = ("height_factor", "width_factor")

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: Optional[int] = None,
                 fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _bounds(height_factor)
        if self.height_upper < self.height_lower:
            raise ValueError("`height_factor` cannot have upper bound less than lower bound, "
                             f"got {height_factor}")
        if abs(self.height_lower) > 1.0 or abs(self.height_upper) > 1.0:
            raise ValueError("`height_factor` argument must have values between [-1, 1]. "
                             f"Received: height_factor={height_factor}")
        self.width_factor = width_factor
        self.width_lower, self.width_upper = _bounds(width_factor)
        if self.width_upper < self.width_lower:
            raise ValueError("`width_factor` cannot have upper bound less than lower bound, "
                             f"got {width_factor}")
        if abs(self.width_lower) > 1.0 or abs(self.width_upper) > 1.0:
            raise ValueError(f"`width_factor` must have values between [-1, 1], got "
                             f"{width_factor}")
        self._set_fill_arguments(fill_mode, interpolation, seed, fill_value)

    def _matrices(self, n: int, h: float, w: float) -> torch.Tensor:
        dy = self._uniform([n, 1], self.height_lower, self.height_upper) * h
        dx = self._uniform([n, 1], self.width_lower, self.width_upper) * w
        return get_translation_matrix(torch.cat([dx, dy], dim=1).cpu())
