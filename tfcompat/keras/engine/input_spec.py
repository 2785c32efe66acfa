"""`tf.keras.layers.InputSpec` and the input checks a layer runs before `build` and `call`.

A layer's `input_spec` (one spec, or a nest matching its inputs) states what it accepts:
rank (`ndim`, `min_ndim`, `max_ndim`), `dtype`, a full `shape`, or fixed `axes`
(`{-1: 784}`). `assert_input_compatibility` raises tf_keras's `ValueError`s with its texts,
naming the layer and the input index, before the layer changes anything.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import torch

from ...framework import dtypes
from ...framework import nest
from ...framework.tensor_shape import TensorShape

__all__ = ["InputSpec", "assert_input_compatibility", "display_shape", "to_tensor_shape"]


class InputSpec:
    """The rank, dtype and shape a layer's input must have (every field optional)."""

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: Optional[int] = None,
                 max_ndim: Optional[int] = None, min_ndim: Optional[int] = None,
                 axes: Optional[Dict[int, int]] = None, allow_last_axis_squeeze: bool = False,
                 name: Optional[str] = None, optional: bool = False) -> None:
        self.dtype = dtypes.as_dtype(dtype).name if dtype is not None else None
        shape = TensorShape(shape)
        if shape.rank is None:
            self.shape = None
            self.ndim = ndim
        else:
            self.shape = tuple(shape.as_list())
            self.ndim = len(self.shape)
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.optional = optional
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(
                f"Argument `axes` must be a dict with integer keys. Received: axes={axes}"
            ) from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(
                    f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}")

    def __repr__(self) -> str:
        spec = [
            ("dtype=" + str(self.dtype)) if self.dtype else "",
            ("shape=" + str(self.shape)) if self.shape else "",
            ("ndim=" + str(self.ndim)) if self.ndim else "",
            ("max_ndim=" + str(self.max_ndim)) if self.max_ndim else "",
            ("min_ndim=" + str(self.min_ndim)) if self.min_ndim else "",
            ("axes=" + str(self.axes)) if self.axes else "",
        ]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config: dict) -> "InputSpec":
        return cls(**config)


def to_tensor_shape(spec: InputSpec) -> TensorShape:
    """The most specific `TensorShape` a spec allows (unknown dims as None)."""
    if spec.ndim is None and spec.shape is None:
        return TensorShape(None)
    if spec.shape is not None:
        return TensorShape(spec.shape)
    shape = [None] * spec.ndim
    for axis, value in spec.axes.items():
        shape[axis] = value
    return TensorShape(shape)


def display_shape(shape: Any) -> str:
    return str(tuple(TensorShape(shape).as_list()))


def _dtype_name(x: Any) -> Optional[str]:
    try:
        return dtypes.as_dtype(x.dtype).name
    except (TypeError, ValueError, AttributeError):
        return None


def _plain_tensor_fits(spec: "InputSpec", x: torch.Tensor) -> bool:
    """Whether a plain tensor (every dim known) meets `spec` -- the common case, checked
    without building shapes; False sends the input through the full check (and its errors)."""
    shape = x.shape
    ndim = len(shape)
    if spec.ndim is not None and ndim != spec.ndim and not spec.allow_last_axis_squeeze:
        return False
    if (spec.max_ndim is not None and ndim > spec.max_ndim) or (
            spec.min_ndim is not None and ndim < spec.min_ndim):
        return False
    if spec.dtype is not None:
        return False
    if spec.shape is not None:
        if len(spec.shape) != ndim or any(
                want is not None and want != got for want, got in zip(spec.shape, shape)):
            return False
    for axis, value in (spec.axes or {}).items():
        value = getattr(value, "value", value)
        axis = int(axis)
        if value is not None and (axis >= ndim or axis < -ndim or shape[axis] != value):
            return False
    return True


def assert_input_compatibility(input_spec: Any, inputs: Any, layer_name: str) -> None:
    """Raise tf_keras's `ValueError`/`TypeError` when `inputs` do not fit `input_spec`."""
    if not input_spec:
        return
    if type(inputs) is torch.Tensor and isinstance(input_spec, InputSpec) and \
            _plain_tensor_fits(input_spec, inputs):
        return
    input_spec = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in input_spec]
        if all(names):
            list_inputs = []
            for name in names:
                if name not in inputs:
                    raise ValueError(
                        f'Missing data for input "{name}". You passed a data dictionary with '
                        f"keys {list(inputs.keys())}. Expected the following keys: {names}")
                list_inputs.append(inputs[name])
            inputs = list_inputs
    inputs = nest.flatten(inputs)
    for x, spec in zip(inputs, input_spec):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise TypeError(
                f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input "
                f"for layer '{layer_name}'.")
    if len(inputs) != len(input_spec):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(input_spec)} input(s), but it received '
            f"{len(inputs)} input tensors. Inputs received: {inputs}")
    for index, (x, spec) in enumerate(zip(inputs, input_spec)):
        if spec is None or (x is None and spec.optional):
            continue
        shape = TensorShape(x.shape)
        if shape.rank is None:
            return
        prefix = f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
        ndim = shape.rank
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise ValueError(
                prefix + f"expected ndim={spec.ndim}, found ndim={ndim}. "
                f"Full shape received: {tuple(shape.as_list())}")
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise ValueError(prefix + f"expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise ValueError(
                prefix + f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                f"Full shape received: {tuple(shape.as_list())}")
        if spec.dtype is not None and _dtype_name(x) != spec.dtype:
            raise ValueError(
                prefix + f"expected dtype={spec.dtype}, found dtype={dtypes.as_dtype(x.dtype)!r}")
        dims = shape.as_list()
        for axis, value in (spec.axes or {}).items():
            value = getattr(value, "value", value)
            if value is not None and dims[int(axis)] not in {value, None}:
                raise ValueError(
                    f'Input {index} of layer "{layer_name}" is incompatible with the layer: '
                    f"expected axis {axis} of input shape to have value {value}, but received "
                    f"input with shape {display_shape(x.shape)}")
        if spec.shape is not None:
            spec_shape = spec.shape
            if spec.allow_last_axis_squeeze:
                if dims and dims[-1] == 1:
                    dims = dims[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for spec_dim, dim in zip(spec_shape, dims):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    raise ValueError(
                        prefix + f"expected shape={spec.shape}, "
                        f"found shape={display_shape(x.shape)}")
