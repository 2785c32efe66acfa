"""`TFOpLambda`: a TF op applied to KerasTensors, as a layer of the functional graph.

`tf.reduce_sum(x, axis=1)`, `tf.concat([a, b], 1)`, `Dense(3)(x) * 2` and `x[:, 0]` on
KerasTensors each become one layer call, replayed on real tensors when the model runs. The
layer is named after the op as tf_keras names it (`tf.math.reduce_sum`, `tf.__operators__.add`,
`tf.compat.v1.shape`) and its config holds that name without `tf.` (`"function":
"math.reduce_sum"`), resolved back through the API namespaces (never `eval`). Python operators
keep Python's semantics on the real tensors (as eager code does) under TF's names.
A torch function on KerasTensors (`torch.cat([a, b], 1)`) is a layer named `torch.cat`.
"""

from __future__ import annotations

import inspect
import operator
from typing import Any, Callable, Dict, Optional

import torch

from ....framework import symbolic_dispatch
from ... import backend
from ...engine import base_layer_utils as utils
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["TFOpLambda", "SlicingOpLambda"]


def _operator(symbol: str, fn: Callable, unary: bool = False) -> Callable:
    """A Python operator under TF's API name, with TF's signature (`x, y, name=None`)."""
    if unary:
        def op(x: Any, name: Optional[str] = None) -> Any:
            return fn(x)
    else:
        def op(x: Any, y: Any, name: Optional[str] = None) -> Any:  # type: ignore[misc]
            return fn(x, y)
    op.__name__ = op.__qualname__ = symbol.rsplit(".", 1)[-1]
    op._tf_operator_symbol = symbol  # type: ignore[attr-defined]
    return op


def _from_dict(x: Any) -> Any:
    if isinstance(x, dict) and set(x) == {"start", "stop", "step"}:
        return slice(x["start"], x["stop"], x["step"])
    return x


def _to_dict(x: Any) -> Any:
    if isinstance(x, slice):
        return {"start": x.start, "stop": x.stop, "step": x.step}
    return x


def getitem(tensor: Any, slice_spec: Any, var: Any = None) -> Any:
    """`tf.__operators__.getitem`: `tensor[slice_spec]` (slices may come as config dicts)."""
    if isinstance(slice_spec, (list, tuple)):
        slice_spec = tuple(_from_dict(s) for s in slice_spec)
    else:
        slice_spec = _from_dict(slice_spec)
    return tensor[slice_spec]


getitem._tf_operator_symbol = "__operators__.getitem"  # type: ignore[attr-defined]

# The functions tf_keras records for Python operators on KerasTensors (its names).
OPERATORS: Dict[Any, Callable] = {
    operator.add: _operator("__operators__.add", operator.add),
    operator.sub: _operator("math.subtract", operator.sub),
    operator.mul: _operator("math.multiply", operator.mul),
    operator.truediv: _operator("math.truediv", operator.truediv),
    operator.floordiv: _operator("compat.v1.floor_div", operator.floordiv),
    operator.mod: _operator("math.floormod", operator.mod),
    operator.pow: _operator("math.pow", operator.pow),
    operator.matmul: _operator("linalg.matmul", operator.matmul),
    operator.and_: _operator("math.logical_and", operator.and_),
    operator.or_: _operator("math.logical_or", operator.or_),
    operator.xor: _operator("math.logical_xor", operator.xor),
    operator.lt: _operator("math.less", operator.lt),
    operator.le: _operator("math.less_equal", operator.le),
    operator.gt: _operator("math.greater", operator.gt),
    operator.ge: _operator("math.greater_equal", operator.ge),
    operator.neg: _operator("math.negative", operator.neg, unary=True),
    operator.abs: _operator("math.abs", operator.abs, unary=True),
    operator.invert: _operator("math.logical_not", operator.invert, unary=True),
    operator.pos: _operator("__operators__.pos", operator.pos, unary=True),
    operator.getitem: getitem,
}
_BY_OPERATOR_SYMBOL = {"__operators__.add": OPERATORS[operator.add],
                       "__operators__.getitem": getitem,
                       "__operators__.pos": OPERATORS[operator.pos]}


def symbol_of(function: Callable) -> Optional[str]:
    """The TF API name tf_keras records for `function` (`math.reduce_sum`), or None."""
    symbol = getattr(function, "_tf_operator_symbol", None)
    if symbol is not None:
        return symbol
    symbol = symbolic_dispatch.api_name(function)
    if symbol is not None:
        return symbol
    module = getattr(function, "__module__", None) or ""
    if module.startswith("torch") or getattr(torch, getattr(function, "__name__", ""),
                                             None) is function:
        return "torch." + function.__name__
    return None


def resolve(symbol: str) -> Optional[Callable]:
    """The function for a recorded name, looked up in tables (nothing is evaluated)."""
    if symbol in _BY_OPERATOR_SYMBOL:
        return _BY_OPERATOR_SYMBOL[symbol]
    if symbol.startswith("torch."):
        found = getattr(torch, symbol[len("torch."):], None)
        return found if callable(found) else None
    return symbolic_dispatch.api_function(symbol)


@keras_export("keras.layers.TFOpLambda")
class TFOpLambda(Layer):
    """Applies a TF API `function` to the call's arguments (KerasTensors replaced by tensors).

    tf_keras inserts it when a TF op is called on KerasTensors; its config names the op
    (`{"function": "math.reduce_sum"}`), and only public API ops can be serialized.
    """

    def __init__(self, function: Callable, **kwargs: Any) -> None:
        self.function = function
        self.symbol = symbol_of(function)
        name = kwargs.pop("name", None)
        if name is None:
            base = ("tf." + self.symbol if self.symbol and not self.symbol.startswith("torch.")
                    else self.symbol or getattr(function, "__name__", "op"))
            name = backend.unique_object_name(base, zero_based=True, avoid_observed_names=True)
        kwargs["autocast"] = False
        super().__init__(name=name, **kwargs)
        self._preserve_input_structure_in_config = True

    def _get_call_spec(self) -> utils.CallSpec:
        spec = self.__dict__.get("_call_spec_value")
        if spec is None:
            try:
                inspect.signature(self.function)
                spec = utils.CallSpec(self.function)
            except (TypeError, ValueError):  # a builtin without a signature
                spec = utils.CallSpec(self.call)
            # an op takes no `training` or `mask`: none is injected
            spec.expects_training_arg = spec.expects_mask_arg = False
            spec.accepts_var_kwargs = spec.explicit_training = False
            spec.training_position = spec.mask_position = None
            object.__setattr__(self, "_call_spec_value", spec)
        return spec

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if symbolic_dispatch.contains_symbolic(args) or symbolic_dispatch.contains_symbolic(
                kwargs):
            return super().__call__(*args, **kwargs)
        return self.call(*args, **kwargs)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        # `name` is dropped as tf_keras does: a reused layer would repeat the op's name
        kwargs.pop("name", None)
        return self.function(*args, **kwargs)

    def get_config(self) -> dict:
        if not self.symbol:
            raise ValueError(
                f"This TF-Keras op layer was generated from {self.function}, a method that is "
                "not publicly exposed in the TensorFlow API. This may have happened if the "
                "method was explicitly decorated to add dispatching support, and it was used "
                "during Functional model construction. To ensure cross-version compatibility "
                "of TF-Keras models that use op layers, only op layers produced from public "
                "TensorFlow API symbols can be serialized.")
        config = super().get_config()
        config["function"] = self.symbol
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "TFOpLambda":
        config = dict(config)
        symbol = config["function"]
        function = resolve(symbol) if isinstance(symbol, str) else None
        if function is None:
            raise ValueError(f"TF symbol `{symbol}` could not be found.")
        config["function"] = function
        return cls(**config)


@keras_export("keras.layers.SlicingOpLambda")
class SlicingOpLambda(TFOpLambda):
    """`TFOpLambda` for slicing ops (`x[:, 0]`): slices travel as `{start, stop, step}`."""

    def call(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("name", None)
        args = tuple(_spec_from_dicts(a) for a in args)
        kwargs = {k: _spec_from_dicts(v) for k, v in kwargs.items()}
        return self.function(*args, **kwargs)


def _spec_from_dicts(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return type(x)(_from_dict(s) for s in x)
    return _from_dict(x)


def slices_to_dicts(structure: Any) -> Any:
    """A slicing op's arguments with Python slices as tf_keras's config dicts."""
    if isinstance(structure, (list, tuple)):
        return type(structure)(slices_to_dicts(s) for s in structure)
    return _to_dict(structure)


def handle_op_call(function: Callable, args: tuple, kwargs: dict) -> Any:
    """The registered dispatch handler: `function(*args, **kwargs)` as a layer call."""
    return TFOpLambda(function)(*args, **kwargs)
