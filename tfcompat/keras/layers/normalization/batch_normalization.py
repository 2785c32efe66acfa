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


def _normalize(centered: torch.Tensor, variance: torch.Tensor, gamma: Optional[torch.Tensor],
               beta: Optional[torch.Tensor], shape: list, epsilon: float) -> torch.Tensor:
    """`centered * (rsqrt(variance + eps) * gamma) + beta`, the fused kernel's grouping."""
    factor = torch.rsqrt(variance + epsilon)
    if gamma is not None:
        factor = factor * gamma
    out = centered * factor.reshape(shape)
    if beta is not None:
        out = out + beta.reshape(shape)
    return out


class _FusedTrainingNorm(torch.autograd.Function):
    """TF's FusedBatchNormV3 in training (batch statistics) and its FusedBatchNormGradV3.

    Forward: the batch mean, the biased variance `mean((x - mean)**2)` and `_normalize`, the
    same operations the layer ran op by op (the same values). Backward, TF's gradient
    kernel's formula in a few passes over the activations instead of autograd's dozen, with
    `c = x - mean`, `r = rsqrt(variance + eps)`, `n` the count per channel:

        d_beta  = sum(dy)
        d_gamma = sum(dy * c) * r
        dx      = (dy - sum(dy) / n - c * (sum(dy * c) * r * r / n)) * (gamma * r)

    The batch statistics are outputs too, for the moving averages (the layer detaches them:
    they get no gradient, as TF's reserve spaces). A higher-order gradient (`create_graph`)
    differentiates the op-by-op composition instead, so nested tapes see the whole graph.
    """

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gamma: Optional[torch.Tensor],
                beta: Optional[torch.Tensor], shape: list, dims: tuple,
                epsilon: float) -> tuple:
        mean = x.mean(dim=dims)
        centered = x - mean.reshape(shape)
        variance = (centered * centered).mean(dim=dims)
        out = _normalize(centered, variance, gamma, beta, shape, epsilon)
        ctx.save_for_backward(x, gamma, beta, centered, variance)
        ctx.shape, ctx.dims, ctx.epsilon = shape, dims, epsilon
        ctx.mark_non_differentiable(mean, variance)
        return out, mean, variance

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor, _dmean: Any, _dvariance: Any) -> tuple:
        x, gamma, beta, centered, variance = ctx.saved_tensors
        shape, dims, epsilon = ctx.shape, ctx.dims, ctx.epsilon
        wants = ctx.needs_input_grad
        if torch.is_grad_enabled():  # create_graph: the composition, differentiably
            return _composite_backward(x, gamma, beta, dy, shape, dims, epsilon, wants)
        n = x.numel() // max(variance.numel(), 1)
        r = torch.rsqrt(variance + epsilon)
        dy_sum = dy.sum(dim=dims)
        dyc_sum = (dy * centered).sum(dim=dims)
        dx = d_gamma = d_beta = None
        if wants[0]:
            k = (dyc_sum * (r * r) / n).reshape(shape)
            dx = torch.mul(centered, k)
            torch.sub(dy, dx, out=dx)
            dx.sub_((dy_sum / n).reshape(shape))
            dx.mul_((r * gamma if gamma is not None else r).reshape(shape))
        if gamma is not None and wants[1]:
            d_gamma = dyc_sum * r
        if beta is not None and wants[2]:
            d_beta = dy_sum
        return dx, d_gamma, d_beta, None, None, None


def _composite_backward(x: torch.Tensor, gamma: Optional[torch.Tensor],
                        beta: Optional[torch.Tensor], dy: torch.Tensor, shape: list,
                        dims: tuple, epsilon: float, wants: tuple) -> tuple:
    inputs = [t for t, w in zip((x, gamma, beta), wants[:3]) if t is not None and w]
    if not inputs:
        return (None,) * 6
    with torch.enable_grad():
        mean = x.mean(dim=dims)
        centered = x - mean.reshape(shape)
        variance = (centered * centered).mean(dim=dims)
        out = _normalize(centered, variance, gamma, beta, shape, epsilon)
        grads = iter(torch.autograd.grad(out, inputs, dy, create_graph=True,
                                         allow_unused=True))
    return tuple(next(grads) if t is not None and w else None
                 for t, w in zip((x, gamma, beta), wants[:3])) + (None, None, None)


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
            out, mean, variance = _FusedTrainingNorm.apply(xc, gamma, beta, shape, dims,
                                                           self.epsilon)
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
            out = _normalize(xc - mean.reshape(shape), variance, gamma, beta, shape,
                             self.epsilon)
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
