"""`tf.keras.layers.BatchNormalization` (tf_keras 2.x, the V2 layer).

Weights, in tf_keras's order: `gamma` (if `scale`), `beta` (if `center`), `moving_mean`,
`moving_variance` (non-trainable, sync-on-read with MEAN aggregation as tf_keras creates
them); float16/bfloat16 layers keep float32 parameters.

Numerics follow the path tf_keras takes:
* 4-D/5-D inputs normalised over axis 1 or the last one use TF's fused kernel: batch mean and
  biased variance for the output, `y = (x - mean) * (rsqrt(var + eps) * gamma) + beta` in
  float32, and the moving averages updated inside the kernel as
  `moving * momentum + batch * (1 - momentum)` with the *unbiased* (n / (n - 1)) batch
  variance (tf_keras's Bessel add/remove is off: `_bessels_correction_test_only`).
* any other input uses `tf.nn.moments` (biased variance) and `tf.nn.batch_normalization`, and
  assigns `moving - (moving - batch) * (1 - momentum)`.
* `synchronized=True` computes the statistics from sums all-reduced across the replicas
  (`mean = sum / count`, `variance = max(E[y**2] - mean**2, 0)`, one batched reduction), the
  same formula on a single replica, as tf_keras; a mask weights the non-fused statistics
  (`tf.nn.weighted_moments`) and is ignored, with tf_keras's warning, by the fused path.
Training uses batch statistics and assigns the moving ones; inference (training False or
None, or `trainable=False`) uses the moving ones.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

import torch

from ....distribute import distribute_lib
from ....framework import dtypes
from ....framework.tensor_shape import TensorShape
from ....ops import binary_math_ops, math_ops, normalization_ops
from ....variables.enums import VariableAggregation, VariableSynchronization
from ... import backend, initializers
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving.serialization import keras_export
from ._norm_args import (add_affine_weights, affine_config, axis_argument,
                         set_affine_arguments, validate_axis)

__all__ = ["BatchNormalization"]


@keras_export("keras.layers.BatchNormalization")
class BatchNormalization(Layer):
    """Normalise by batch statistics in training and moving averages in inference."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, synchronized: bool = False,
                 **kwargs: Any) -> None:
        fused = kwargs.pop("fused", None)
        if synchronized and fused:
            raise ValueError("`fused=True` is not supported when `synchronized=True`.")
        for unsupported in ("renorm", "virtual_batch_size", "adjustment"):
            if kwargs.pop(unsupported, None):
                raise NotImplementedError(f"BatchNormalization({unsupported}=...) is not "
                                          "supported by tfcompat.")
        kwargs.pop("renorm_clipping", None)
        kwargs.pop("renorm_momentum", None)
        super().__init__(**kwargs)
        self.axis = axis_argument(axis)
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.synchronized = synchronized
        self.fused = False if synchronized else fused
        set_affine_arguments(self, beta_initializer, gamma_initializer, beta_regularizer,
                             gamma_regularizer, beta_constraint, gamma_constraint)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.supports_masking = True

    @property
    def _param_dtype(self) -> Any:
        # float16 / bfloat16 layers keep float32 parameters, as tf_keras
        if self.dtype in ("float16", "bfloat16"):
            return "float32"
        return self.dtype or "float32"

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        axes = validate_axis(self.axis, input_shape)
        rank = input_shape.rank
        if self.fused is None:
            self.fused = rank in (4, 5)
        elif self.fused and rank not in (4, 5):
            raise ValueError("Batch normalization layers with `fused=True` only support 4D or "
                             f"5D input tensors. Received tensor with shape: "
                             f"{tuple(input_shape.as_list())}")
        if self.fused:
            if axes == [1] or axes == [rank - 1]:
                self._channels_first = axes == [1]
            elif rank == 5:
                self.fused = False
            else:
                raise ValueError("Unsupported axis. The use of `fused=True` is only possible "
                                 f"with `axis=1` or `axis=3` for 4D input tensors. Received: "
                                 f"axis={tuple(axes)}")
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in axes}
        if any(d is None for d in axis_to_dim.values()):
            raise ValueError("Input has undefined `axis` dimension. Received input with shape "
                             f"{tuple(dims)} and axis={tuple(axes)}")
        self.axis = axes
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axes) == 1:
            param_shape = (dims[axes[0]],)
        else:
            param_shape = tuple(dims[i] if i in axis_to_dim else 1 for i in range(rank))
        self._param_shape = param_shape
        pdtype = self._param_dtype
        add_affine_weights(self, param_shape, dtype=pdtype, trainable=True,
                           experimental_autocast=False)
        self.moving_mean = self.add_weight(
            name="moving_mean", shape=param_shape, dtype=pdtype,
            initializer=self.moving_mean_initializer,
            synchronization=VariableSynchronization.ON_READ, trainable=False,
            aggregation=VariableAggregation.MEAN, experimental_autocast=False)
        self.moving_variance = self.add_weight(
            name="moving_variance", shape=param_shape, dtype=pdtype,
            initializer=self.moving_variance_initializer,
            synchronization=VariableSynchronization.ON_READ, trainable=False,
            aggregation=VariableAggregation.MEAN, experimental_autocast=False)
        rank_axes = [i for i in range(rank) if i not in axes]
        self._reduction_axes = rank_axes
        self._broadcast_shape = None if len(axes) == 1 and axes[0] == rank - 1 else \
            [dims[i] if i in axes else 1 for i in range(rank)]
        super().build(input_shape)

    def _training_value(self, training: Any) -> bool:
        if training is None:
            training = backend.learning_phase()
        if isinstance(training, torch.Tensor):
            training = bool(training)
        return bool(training) and self.trainable

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        training = self._training_value(training)
        input_dtype = inputs.dtype
        if self.fused:
            if mask is not None:
                warnings.warn("Masking is not supported with `fused=True`. You should either "
                              "turn off fusing (`fused=False`) or you should not pass a `mask` "
                              "argument when calling the layer. For the moment `mask` will be "
                              "ignored for the normalization.", stacklevel=2)
            return self._fused(inputs, training)
        if input_dtype in (torch.float16, torch.bfloat16):
            inputs = math_ops.cast(inputs, "float32")  # statistics in float32, as tf_keras
        shape = self._broadcast_shape

        def broadcast(v: Any) -> Any:
            if v is None or shape is None or len(self._param_shape) != 1:
                return v
            return v.reshape(shape)

        if training:
            keep = len(self.axis) > 1
            mean, variance = self._batch_moments(inputs, keep, mask)
            self._assign_moving_average(self.moving_mean, mean)
            self._assign_moving_average(self.moving_variance, variance)
        else:
            mean, variance = self.moving_mean, self.moving_variance
            mean, variance = mean.read_value(), variance.read_value()
        gamma = None if self.gamma is None else self.gamma.read_value()
        beta = None if self.beta is None else self.beta.read_value()
        outputs = normalization_ops.batch_normalization(
            inputs, broadcast(mean), broadcast(variance), broadcast(beta), broadcast(gamma),
            self.epsilon)
        if outputs.dtype != input_dtype:
            outputs = outputs.to(input_dtype)
        return outputs

    def _batch_moments(self, inputs: Any, keep: bool, mask: Any) -> tuple:
        """The batch mean and biased variance over the reduction axes; a mask weights the
        steps (`tf.nn.weighted_moments`, the mask broadcast over the last axis)."""
        axes = self._reduction_axes
        weights = None
        if mask is not None:
            weights = math_ops.cast(mask, inputs.dtype).unsqueeze(-1)
        if self.synchronized:
            replica_context = distribute_lib.get_replica_context()
            if replica_context is not None:
                return self._synchronized_moments(replica_context, inputs, keep, weights)
        if weights is None:
            return normalization_ops.moments(inputs, axes, keepdims=keep)
        return normalization_ops.weighted_moments(inputs, axes, weights, keepdims=keep)

    def _synchronized_moments(self, replica_context: Any, y: Any, keep: bool,
                              weights: Any) -> tuple:
        """tf_keras's synchronized statistics: the sums of `y`, `y**2` and the counts reduced
        across replicas (one batched all-reduce), `mean = sum / count` and
        `variance = max(E[y**2] - mean**2, 0)` -- the same formula on a single replica."""
        axes = self._reduction_axes
        if weights is not None:
            y = y * weights
            count = torch.broadcast_to(weights, y.shape)
        else:
            count = torch.ones_like(y)
        local = [torch.sum(y, dim=axes, keepdim=True),
                 torch.sum(torch.square(y), dim=axes, keepdim=True),
                 torch.sum(count, dim=axes, keepdim=True)]
        total, squared, count = replica_context.all_reduce("SUM", local)
        mean = binary_math_ops.divide_no_nan(total, count)
        variance = torch.clamp_min(binary_math_ops.divide_no_nan(squared, count)
                                   - torch.square(mean), 0.0)
        if not keep:
            mean = mean.squeeze(axes)
            variance = variance.squeeze(axes)
        return mean, variance

    def _assign_moving_average(self, variable: Any, value: Any) -> None:
        with torch.no_grad():
            current = variable.read_value()
            value = value.detach().to(current.dtype).reshape(current.shape)
            variable.assign(current - (current - value) * (1.0 - self.momentum))

    def _fused(self, x: torch.Tensor, training: bool) -> torch.Tensor:
        """TF's FusedBatchNormV3 on CPU: float32 arithmetic for half inputs."""
        dtype = x.dtype
        xc = x.float() if dtype in (torch.float16, torch.bfloat16) else x
        shape = [1] * x.dim()
        channel = 1 if self._channels_first else x.dim() - 1
        shape[channel] = x.shape[channel]
        dims = tuple(i for i in range(x.dim()) if i != channel)
        gamma = self.gamma.read_value() if self.gamma is not None else None
        beta = self.beta.read_value() if self.beta is not None else None
        if training:
            mean = xc.mean(dim=dims)
            centered = xc - mean.reshape(shape)
            variance = (centered * centered).mean(dim=dims)
            count = xc.numel() // max(int(x.shape[channel]), 1)
            with torch.no_grad():
                unbiased = variance.detach() * (count / max(count - 1, 1))
                f = 1.0 - self.momentum
                for var, batch in ((self.moving_mean, mean.detach()),
                                   (self.moving_variance, unbiased)):
                    old = var.read_value()
                    var.assign(old * (1.0 - f) + batch.to(old.dtype) * f)
        else:
            mean = self.moving_mean.read_value()
            variance = self.moving_variance.read_value()
            centered = xc - mean.reshape(shape)
        factor = torch.rsqrt(variance + self.epsilon)
        if gamma is not None:
            factor = factor * gamma
        out = centered * factor.reshape(shape)
        if beta is not None:
            out = out + beta.reshape(shape)
        return out.to(dtype) if out.dtype != dtype else out

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)

    def get_config(self) -> dict:
        config = {
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            **affine_config(self, between={
                "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
                "moving_variance_initializer": initializers.serialize(
                    self.moving_variance_initializer)}),
        }
        if self.synchronized:
            config["synchronized"] = True
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))
