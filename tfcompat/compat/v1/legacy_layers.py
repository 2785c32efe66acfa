"""`tf.compat.v1.layers`: TF 1's layers (classes and functions) over the Keras layers.

Each class is its Keras layer plus the legacy base (`legacy_layers_base.Layer`): the same
math, but weights created by `tf.compat.v1.get_variable` in a `variable_scope` named after
the layer, so a TF 1 program keeps its variable names (`dense/kernel`, `foo/conv2d_1/bias`)
and TF 1 checkpoints restore by name (`tf.compat.v1.train.Saver`).

The function forms (`dense`, `conv2d`, `batch_normalization`, ...) build a new layer object
on every call, as TF does; with `name=` they open `variable_scope(name)` and with `reuse=`
(`True`, `AUTO_REUSE`) they share what that scope already holds. tfcompat emulates TF 1
*graph* semantics here (the default variable store is process-wide, like TF 1's default
graph): calling `dense(x, 3, name="d", reuse=AUTO_REUSE)` twice shares `d/kernel`, and a
model function under `variable_scope("model", reuse=AUTO_REUSE)` called every training
step reuses its variables. (TF 2 eager has no such store outside
`track_tf1_style_variables`: there every call creates new variables and the function forms
only warn -- `tests/compat/v1/fixtures/v1_layers.json` records both.) Inside
`tf.compat.v1.keras.utils.track_tf1_style_variables` the store is the shim's, so the same
code creates once and reuses on later calls.

`batch_normalization(training=True)` applies its moving-average updates at call time (TF 2
eager does the same); what TF 1 graph mode would put in `GraphKeys.UPDATE_OPS` -- the
moving mean and variance of a trainable layer called in training -- is added there once
per variable, so `tf.control_dependencies(tf.get_collection(UPDATE_OPS))` ports keep
working (the updates have already run). `dropout`'s `training` defaults to False, TF 1's
rule.
"""

from __future__ import annotations

from typing import Any, Optional

from ...keras import layers as keras_layers
from . import legacy_layers_conv as _conv
from .legacy_layers_base import Layer
from .legacy_layers_conv import (AveragePooling1D, AveragePooling2D, AveragePooling3D,
                                 Conv1D, Conv2D, Conv2DTranspose, Conv3D, Conv3DTranspose,
                                 MaxPooling1D, MaxPooling2D, MaxPooling3D, SeparableConv1D,
                                 SeparableConv2D, average_pooling1d, average_pooling2d,
                                 average_pooling3d, constructor_arguments, conv1d, conv2d,
                                 conv2d_transpose, conv3d, conv3d_transpose, deprecated_call,
                                 max_pooling1d, max_pooling2d, max_pooling3d,
                                 separable_conv1d, separable_conv2d)

__all__ = ["Layer", "Dense", "Dropout", "Flatten", "BatchNormalization", "dense", "dropout",
           "flatten", "batch_normalization"] + [
    n for n in _conv.__all__ if n not in ("constructor_arguments", "deprecated_call")]


class Dense(keras_layers.Dense, Layer):
    """TF 1 `tf.layers.Dense`: `activation(inputs @ kernel + bias)`, kernel `[in, units]`.

    `kernel_initializer=None` takes the variable scope's initializer, else Glorot uniform.
    """

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))


def dense(inputs: Any, units: int, activation: Any = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = "zeros",
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: Optional[str] = None,
          reuse: Any = None) -> Any:
    """TF 1's `tf.layers.dense`: a new `Dense` (scope `name`, `reuse`) applied to `inputs`."""
    return deprecated_call("dense", Dense, locals())


class Dropout(keras_layers.Dropout, Layer):
    """TF 1 `tf.layers.Dropout`: Keras's dropout, but `training` defaults to False."""

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: Optional[int] = None,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**constructor_arguments(locals()))

    def call(self, inputs: Any, training: Any = False) -> Any:
        return super().call(inputs, training=training)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None,
            seed: Optional[int] = None, training: Any = False,
            name: Optional[str] = None) -> Any:
    """TF 1's `tf.layers.dropout`: identity unless `training` (default False!) is true."""
    return deprecated_call("dropout", Dropout, locals(), training=training)


class Flatten(keras_layers.Flatten, Layer):
    """TF 1 `tf.layers.Flatten`: `[batch, ...] -> [batch, prod(...)]`."""


def flatten(inputs: Any, name: Optional[str] = None,
            data_format: str = "channels_last") -> Any:
    """TF 1's `tf.layers.flatten`: a new `Flatten` applied to `inputs`."""
    return deprecated_call("flatten", Flatten, locals())


class BatchNormalization(keras_layers.BatchNormalization, Layer):
    """TF 1 `tf.layers.BatchNormalization` (tf_keras's v1 batch norm on the legacy base).

    `training` defaults to False. The v1 rules: `trainable=False` does not switch the layer
    to inference (only `training` does); `fused=True` falls back to the plain kernel where
    the fused one cannot run instead of raising. In training the moving statistics are
    updated at call time and, for a trainable layer, recorded in `UPDATE_OPS`.
    """

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 0.001,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, renorm: bool = False,
                 renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                 fused: Optional[bool] = None, trainable: bool = True,
                 virtual_batch_size: Optional[int] = None, adjustment: Any = None,
                 name: Optional[str] = None, **kwargs: Any) -> None:
        args = constructor_arguments(locals())
        if args["fused"]:
            args["fused"] = None  # v1: "fused if possible", never an error
        super().__init__(**args)

    def _training_value(self, training: Any) -> bool:
        return bool(training)  # (v1: `trainable` does not imply inference)

    def call(self, inputs: Any, training: Any = False, mask: Any = None) -> Any:
        outputs = super().call(inputs, training=training, mask=mask)
        if self._training_value(training) and self.trainable:
            _record_update_ops(self.moving_mean, self.moving_variance)
        return outputs


def _record_update_ops(*variables: Any) -> None:
    """Add each moving variable (its update already applied) to `UPDATE_OPS`, once."""
    from . import collections
    ref = collections.get_collection_ref(collections.GraphKeys.UPDATE_OPS)
    for variable in variables:
        if not any(item is variable for item in ref):
            ref.append(variable)


def batch_normalization(inputs: Any, axis: Any = -1, momentum: float = 0.99,
                        epsilon: float = 0.001, center: bool = True, scale: bool = True,
                        beta_initializer: Any = "zeros", gamma_initializer: Any = "ones",
                        moving_mean_initializer: Any = "zeros",
                        moving_variance_initializer: Any = "ones",
                        beta_regularizer: Any = None, gamma_regularizer: Any = None,
                        beta_constraint: Any = None, gamma_constraint: Any = None,
                        training: Any = False, trainable: bool = True,
                        name: Optional[str] = None, reuse: Any = None, renorm: bool = False,
                        renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                        fused: Optional[bool] = None, virtual_batch_size: Optional[int] = None,
                        adjustment: Any = None) -> Any:
    """TF 1's `tf.layers.batch_normalization`: a new `BatchNormalization` (scope `name`,
    `reuse`) applied to `inputs` with `training` (default False)."""
    return deprecated_call(
        "batch_normalization", BatchNormalization, locals(),
        extra=" In particular, `tf.control_dependencies(tf.GraphKeys.UPDATE_OPS)` should not "
              "be used (consult the `tf.keras.layers.BatchNormalization` documentation).",
        training=training)


InputSpec = keras_layers.InputSpec

#: Routed by `tfcompat.compat.v1.PORTING` ("layers"): TF 2.21's `tf.compat.v1.layers` names.
V1_NAMES: dict = {"layers": {name: globals()[name] for name in __all__ + ["InputSpec"]}}
