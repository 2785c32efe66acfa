"""`tf.keras.activations`: tf_keras 2.21's activation functions, `get`, `serialize`, `deserialize`.

Each function computes tf_keras's formula with tfcompat's ops (which carry TF's numerics and
gradients): `relu(x, alpha=0.0, max_value=None, threshold=0.0)` as `tf.keras.backend.relu`,
`elu(x, alpha)` as `tf.where(x > 0, elu(x), alpha * elu(x))`, `hard_sigmoid(x)` as
`clip(0.2 * x + 0.5, 0, 1)` (tf_keras 2's slope, not Keras 3's `x / 6 + 0.5`), `softmax`
rejects tensors of rank <= 1 as tf_keras does, `swish(x)` is `tf.nn.silu(x)`, `mish(x)` is
`x * tanh(softplus(x))`.

`leaky_relu`, `log_softmax`, `relu6` and `silu` are `tf.nn`'s functions; tf_keras 2.21 does not
export them from `tf.keras.activations` but resolves their names in `get` (`get("silu")`),
and so does this module. tf_keras 2.21 has no `hard_silu`/`hard_swish` (Keras 3 does).
"""

from __future__ import annotations

import types
from typing import Any, Callable, Dict, Optional

import torch

from ..framework.tensor_conversion import convert_to_tensor
from ..ops import activation_ops as _activation_ops
from ..ops import clip_ops as _clip_ops
from ..ops import indexing_ops as _indexing_ops
from ..ops import math_ops as _math_ops
from ..ops import nn_ops as _nn_ops
from ..ops import reduction_ops as _reduction_ops
from ..ops import unary_math_ops as _unary_math_ops
from ..ops import unary_ops as _unary_ops
from .saving import object_registration as _registration
from .saving import serialization as _serialization
from .saving.serialization import keras_export

__all__ = ["deserialize", "elu", "exponential", "gelu", "get", "hard_sigmoid", "linear", "mish",
           "relu", "selu", "serialize", "sigmoid", "softmax", "softplus", "softsign", "swish",
           "tanh"]


def _with_logits(output: torch.Tensor, logits: Any) -> torch.Tensor:
    # tf_keras tags softmax/sigmoid outputs with their logits (`_keras_logits`) so that a
    # crossentropy loss can use the stable from-logits formula; the losses read it.
    try:
        output._keras_logits = logits
    except AttributeError:  # (a tensor subclass with __slots__)
        pass
    return output


@keras_export("keras.activations.softmax")
def softmax(x: Any, axis: Any = -1) -> torch.Tensor:
    """Softmax along `axis` (an int, or a tuple: `exp(x - max) / sum` over those axes).

    A tensor of rank <= 1 is TF's `ValueError` (tf_keras's rule, not tf.nn's).
    """
    x = convert_to_tensor(x)
    if x.dim() <= 1:
        raise ValueError(
            f"Cannot apply softmax to a tensor that is 1D. Received input: {x.detach().cpu().numpy()}")
    if isinstance(axis, int):
        output = _nn_ops.softmax(x, axis=axis)
    else:
        numerator = _unary_ops.exp(
            _math_ops.subtract(x, _reduction_ops.reduce_max(x, axis=axis, keepdims=True)))
        denominator = _reduction_ops.reduce_sum(numerator, axis=axis, keepdims=True)
        output = _math_ops.divide(numerator, denominator)
    return _with_logits(output, x)


@keras_export("keras.activations.elu")
def elu(x: Any, alpha: float = 1.0) -> torch.Tensor:
    """`x` for `x > 0`, else `alpha * (exp(x) - 1)`."""
    x = convert_to_tensor(x)
    res = _activation_ops.elu(x)
    if alpha == 1:
        return res
    return _indexing_ops.where(_math_ops.greater(x, 0), res, _math_ops.multiply(alpha, res))


@keras_export("keras.activations.selu")
def selu(x: Any) -> torch.Tensor:
    """`scale * elu(x, alpha)` with TF's constants (`tf.nn.selu`)."""
    return _activation_ops.selu(x)


@keras_export("keras.activations.softplus")
def softplus(x: Any) -> torch.Tensor:
    """`log(exp(x) + 1)` (`tf.math.softplus`)."""
    return _unary_math_ops.softplus(x)


@keras_export("keras.activations.softsign")
def softsign(x: Any) -> torch.Tensor:
    """`x / (|x| + 1)` (`tf.math.softsign`)."""
    return _unary_math_ops.softsign(x)


@keras_export("keras.activations.swish")
def swish(x: Any) -> torch.Tensor:
    """`x * sigmoid(x)` (`tf.nn.silu`)."""
    return _activation_ops.silu(x)


@keras_export("keras.activations.relu")
def relu(x: Any, alpha: float = 0.0, max_value: Optional[float] = None,
         threshold: float = 0.0) -> torch.Tensor:
    """tf_keras's generalized ReLU: `x` above `threshold` (clipped at `max_value`), else
    `alpha * (x - threshold)`.

    As `tf.keras.backend.relu`: `alpha` alone is `tf.nn.leaky_relu`; `max_value == 6` with
    no threshold is `tf.nn.relu6`; a threshold zeroes `x <= threshold` by a mask.
    """
    x = convert_to_tensor(x)
    negative_part = None
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return _activation_ops.leaky_relu(x, alpha=alpha)
        if threshold != 0:
            negative_part = _nn_ops.relu(_math_ops.add(_math_ops.negative(x), threshold))
        else:
            negative_part = _nn_ops.relu(_math_ops.negative(x))
    clip_max = max_value is not None
    if threshold != 0:
        x = _math_ops.multiply(x, _math_ops.cast(_math_ops.greater(x, threshold), x.dtype))
    elif max_value == 6:
        x = _activation_ops.relu6(x)
        clip_max = False
    else:
        x = _nn_ops.relu(x)
    if clip_max:
        x = _clip_ops.clip_by_value(x, convert_to_tensor(0, dtype=x.dtype),
                                    convert_to_tensor(max_value, dtype=x.dtype))
    if negative_part is not None:
        x = _math_ops.subtract(x, _math_ops.multiply(convert_to_tensor(alpha, dtype=x.dtype),
                                                     negative_part))
    return x


@keras_export("keras.activations.gelu")
def gelu(x: Any, approximate: bool = False) -> torch.Tensor:
    """Gaussian error linear unit (`tf.nn.gelu`; the tanh approximation when asked)."""
    return _activation_ops.gelu(x, approximate)


@keras_export("keras.activations.tanh")
def tanh(x: Any) -> torch.Tensor:
    """Hyperbolic tangent."""
    return _unary_ops.tanh(x)


@keras_export("keras.activations.sigmoid")
def sigmoid(x: Any) -> torch.Tensor:
    """`1 / (1 + exp(-x))`; the output remembers its logits for the crossentropy losses."""
    x = convert_to_tensor(x)
    return _with_logits(_unary_ops.sigmoid(x), x)


@keras_export("keras.activations.exponential")
def exponential(x: Any) -> torch.Tensor:
    """`exp(x)`."""
    return _unary_ops.exp(x)


@keras_export("keras.activations.hard_sigmoid")
def hard_sigmoid(x: Any) -> torch.Tensor:
    """tf_keras 2's piecewise-linear sigmoid: `clip(0.2 * x + 0.5, 0, 1)`."""
    x = convert_to_tensor(x)
    y = _math_ops.add(_math_ops.multiply(x, convert_to_tensor(0.2, dtype=x.dtype)),
                      convert_to_tensor(0.5, dtype=x.dtype))
    return _clip_ops.clip_by_value(y, 0.0, 1.0)


@keras_export("keras.activations.linear")
def linear(x: Any) -> Any:
    """The identity (the input itself, unconverted, as tf_keras)."""
    return x


@keras_export("keras.activations.mish")
def mish(x: Any) -> torch.Tensor:
    """`x * tanh(softplus(x))`."""
    x = convert_to_tensor(x)
    return _math_ops.multiply(x, _unary_ops.tanh(_unary_math_ops.softplus(x)))


# tf.nn's functions that tf_keras's module holds (and `get` resolves) without exporting.
leaky_relu = _activation_ops.leaky_relu
log_softmax = _nn_ops.log_softmax
relu6 = _activation_ops.relu6
silu = _activation_ops.silu

_FUNCTIONS: Dict[str, Callable] = {
    "softmax": softmax, "elu": elu, "selu": selu, "softplus": softplus, "softsign": softsign,
    "swish": swish, "relu": relu, "gelu": gelu, "tanh": tanh, "sigmoid": sigmoid,
    "exponential": exponential, "hard_sigmoid": hard_sigmoid, "linear": linear, "mish": mish,
    "leaky_relu": leaky_relu, "log_softmax": log_softmax, "relu6": relu6, "silu": silu,
}
# tf.nn functions whose TF name differs from the Keras one serialize under Keras's.
_TF_NAMES = {"softmax_v2": "softmax"}


def _module_objects() -> Dict[str, Any]:
    objects: Dict[str, Any] = dict(_FUNCTIONS)
    # tf_keras also resolves the activation layers' class names (`"ReLU"`, `"Softmax"`)
    # here; they join once `tf.keras.layers` is built.
    try:
        from .layers import activation as _layers
    except ImportError:
        return objects
    for name in getattr(_layers, "__all__", ()):
        objects.setdefault(name, getattr(_layers, name))
    return objects


def serialize(activation: Callable, use_legacy_format: bool = False) -> Any:
    """A function's name when it names a built-in activation (`"relu"`, also for
    `tf.nn.relu`); else tf_keras's function record with the registered name as `config`
    (what `deserialize` resolves once the function is registered); a callable object's
    config record."""
    name = getattr(activation, "__name__", None)
    if name in _TF_NAMES:
        return _TF_NAMES[name]
    if activation is silu:
        return "swish"  # TF's `tf.nn.silu` is the function named `swish`
    if use_legacy_format:
        return _serialization.legacy_serialize_keras_object(activation)
    fn_config = _serialization.serialize_keras_object(activation)
    if not isinstance(fn_config, dict) or "config" not in fn_config:
        raise ValueError(
            f"Unknown activation function '{activation}' cannot be serialized due to invalid "
            "function name. Make sure to use an activation name that matches the references "
            "defined in activations.py or use `@keras.saving.register_keras_serializable()` "
            f"to register any custom activations. config={fn_config}")
    if not isinstance(activation, types.FunctionType):
        return fn_config
    if isinstance(fn_config["config"], str) and fn_config["config"] not in _FUNCTIONS:
        # A custom function keeps its record (tf_keras's), named by its registered name.
        fn_config["config"] = _registration.get_registered_name(activation)
        return fn_config
    return fn_config["config"]


def deserialize(name: Any, custom_objects: Optional[Dict[str, Any]] = None,
                use_legacy_format: bool = False) -> Callable:
    """The activation a name or config describes; unknown names are TF's `ValueError`."""
    objects = _module_objects()
    if use_legacy_format:
        return _serialization.legacy_deserialize_keras_object(
            name, module_objects=objects, custom_objects=custom_objects,
            printable_module_name="activation function")
    fn = _serialization.deserialize_keras_object(
        name, module_objects=objects, custom_objects=custom_objects,
        printable_module_name="activation function")
    if isinstance(fn, str):
        raise ValueError(f"Unknown activation function '{name}' cannot be deserialized.")
    return fn


def get(identifier: Any) -> Callable:
    """`tf.keras.activations.get`: None is `linear`; a name or config is deserialized; a
    callable is returned as is; anything else is TF's `TypeError`."""
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        legacy = "module" not in identifier if isinstance(identifier, dict) else False
        return deserialize(identifier, use_legacy_format=legacy)
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")
