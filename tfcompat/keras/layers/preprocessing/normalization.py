"""`tf.keras.layers.Normalization`: `(x - mean) / maximum(sqrt(variance), epsilon)` per
position of the kept `axis`, with `mean`/`variance` given or computed by `adapt`.

`adapt` merges batch moments into the running state as tf_keras's `update_state`:
`w = batch_count / total_count`, `mean' = mean * (1 - w) + batch_mean * w`,
`var' = (var + (mean - mean')**2) * (1 - w) + (batch_var + (batch_mean - mean')**2) * w`,
so adapting on batches gives the statistics of the whole (up to rounding). Weights
`mean`, `variance` (compute dtype) and `count` (int64), all non-trainable.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from ....framework import dtypes
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import math_ops, normalization_ops
from ....variables import Variable
from ... import backend
from ...saving.serialization import keras_export
from .base_preprocessing_layer import PreprocessingLayer
from ....ops import exact_math

__all__ = ["Normalization"]


def listify_tensors(x: Any) -> Any:
    """tf_keras's `listify_tensors`: tensors and arrays become (nested) lists for configs."""
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        x = x.tolist()
    return x


@keras_export("keras.layers.Normalization",
              "keras.layers.experimental.preprocessing.Normalization")
class Normalization(PreprocessingLayer):
    """Feature-wise normalization (tf_keras `Normalization`); `invert=True` maps normalized
    values back: `mean + x * maximum(sqrt(variance), epsilon)`."""

    def __init__(self, axis: Any = -1, mean: Any = None, variance: Any = None,
                 invert: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis = axis
        if isinstance(mean, Variable):
            raise ValueError("Normalization does not support passing a Variable for the "
                             "`mean` init arg.")
        if isinstance(variance, Variable):
            raise ValueError("Normalization does not support passing a Variable for the "
                             "`variance` init arg.")
        if (mean is not None) != (variance is not None):
            raise ValueError("When setting values directly, both `mean` and `variance` must "
                             f"be set. Got mean: {mean} and variance: {variance}")
        self.input_mean = mean
        self.input_variance = variance
        self.invert = invert

    def build(self, input_shape: Any) -> None:
        if isinstance(input_shape, (list, tuple)) and input_shape and all(
                isinstance(s, TensorShape) for s in input_shape):
            raise ValueError("Normalization only accepts a single input. If you are passing a "
                             "python list or tuple as a single input, please convert to a "
                             "numpy array or `tf.Tensor`.")
        shape = TensorShape(input_shape).as_list()
        ndim = len(shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). Found "
                             f"ndim: `{ndim}`, axis: {self.axis}")
        self._keep_axis = sorted(d if d >= 0 else d + ndim for d in self.axis)
        for d in self._keep_axis:
            if shape[d] is None:
                raise ValueError("All `axis` values to be kept must have known shape. Got "
                                 f"axis: {self.axis}, input shape: {shape}, with unknown axis "
                                 f"at index: {d}")
        self._reduce_axis = [d for d in range(ndim) if d not in self._keep_axis]
        self._broadcast_shape = [shape[d] if d in self._keep_axis else 1 for d in range(ndim)]
        mean_and_var_shape = tuple(shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=mean_and_var_shape,
                                              dtype=self.compute_dtype, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=mean_and_var_shape,
                                                  dtype=self.compute_dtype,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
        else:
            mean = np.asarray(self.input_mean) * np.ones(mean_and_var_shape)
            variance = np.asarray(self.input_variance) * np.ones(mean_and_var_shape)
            self.mean = math_ops.cast(convert_to_tensor(mean.reshape(self._broadcast_shape)),
                                      self.compute_dtype)
            self.variance = math_ops.cast(
                convert_to_tensor(variance.reshape(self._broadcast_shape)), self.compute_dtype)

    def _standardize_inputs(self, inputs: Any) -> torch.Tensor:
        inputs = convert_to_tensor(inputs)
        if dtypes.from_torch(inputs.dtype).name != self.compute_dtype:
            inputs = math_ops.cast(inputs, self.compute_dtype)
        return inputs

    def update_state(self, data: Any) -> None:
        if self.input_mean is not None:
            raise ValueError("Cannot `adapt` a Normalization layer that is initialized with "
                             "static `mean` and `variance`, you passed mean "
                             f"{self.input_mean} and variance {self.input_variance}.")
        if not self.built:
            raise RuntimeError("`build` must be called before `update_state`.")
        data = self._standardize_inputs(data)
        data = math_ops.cast(data, self.adapt_mean.dtype)
        batch_mean, batch_variance = normalization_ops.moments(data, axes=self._reduce_axis)
        batch_count = int(np.prod([data.shape[d] for d in self._reduce_axis])) \
            if self._reduce_axis else 1
        total_count = batch_count + int(self.count.numpy())
        dt = dtypes.to_torch(self.compute_dtype)
        batch_weight = torch.tensor(float(batch_count), dtype=dt) / torch.tensor(
            float(total_count), dtype=dt)
        existing_weight = 1.0 - batch_weight
        mean = self.adapt_mean.read_value()
        variance = self.adapt_variance.read_value()
        batch_weight = batch_weight.to(mean.device)
        existing_weight = existing_weight.to(mean.device)
        total_mean = mean * existing_weight + batch_mean * batch_weight
        total_variance = (variance + (mean - total_mean) ** 2) * existing_weight + (
            batch_variance + (batch_mean - total_mean) ** 2) * batch_weight
        self.adapt_mean.assign(total_mean)
        self.adapt_variance.assign(total_variance)
        self.count.assign(total_count)

    def reset_state(self) -> None:
        if self.input_mean is not None or not self.built:
            return
        self.adapt_mean.assign(torch.zeros_like(self.adapt_mean.read_value()))
        self.adapt_variance.assign(torch.ones_like(self.adapt_variance.read_value()))
        self.count.assign(0)

    def finalize_state(self) -> None:
        if self.input_mean is not None or not self.built:
            return
        self.mean = math_ops.cast(self.adapt_mean.read_value().reshape(self._broadcast_shape),
                                  self.compute_dtype)
        self.variance = math_ops.cast(
            self.adapt_variance.read_value().reshape(self._broadcast_shape), self.compute_dtype)

    def set_weights(self, weights: list) -> None:
        super().set_weights(weights)
        self.finalize_state()

    def call(self, inputs: Any) -> torch.Tensor:
        inputs = self._standardize_inputs(inputs)
        mean = self.mean.to(inputs.device)
        variance = self.variance.to(inputs.device)
        eps = torch.tensor(backend.epsilon(), dtype=inputs.dtype, device=inputs.device)
        scale = torch.maximum(exact_math.sqrt(variance), eps)
        if self.invert:
            return mean + inputs * scale
        return (inputs - mean) / scale

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": listify_tensors(self.input_mean),
                       "variance": listify_tensors(self.input_variance)})
        return config
