"""`TFOpLambda`: an op applied to KerasTensors, as a layer of the functional graph.

`Dense(3)(x) * 2`, `x[:, 0]` and `torch.cat([a, b], 1)` on KerasTensors each become one
TFOpLambda call (tf_keras wraps TF ops the same way), replayed on real tensors when the
model runs. Operators are named as tf_keras names them (`tf.__operators__.add`).
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from ... import backend
from ...engine.base_layer import Layer

__all__ = ["TFOpLambda"]

_OPERATOR_NAMES = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul",
    operator.truediv: "truediv", operator.floordiv: "floordiv", operator.mod: "mod",
    operator.pow: "pow", operator.matmul: "matmul", operator.and_: "and_",
    operator.or_: "or_", operator.xor: "xor", operator.lt: "lt", operator.le: "le",
    operator.gt: "gt", operator.ge: "ge", operator.neg: "neg", operator.abs: "abs",
    operator.invert: "invert", operator.getitem: "getitem", operator.pos: "pos",
}


def _symbol(function: Callable) -> str:
    if function in _OPERATOR_NAMES:
        return "tf.__operators__." + _OPERATOR_NAMES[function]
    inner = getattr(function, "fn", None)
    if inner in _OPERATOR_NAMES:
        return "tf.__operators__.r" + _OPERATOR_NAMES[inner].rstrip("_")
    module = getattr(function, "__module__", None) or ""
    name = getattr(function, "__name__", type(function).__name__)
    if module.startswith("torch"):
        return "torch." + name
    if module.startswith("tfcompat"):
        return "tf." + name
    return name


class TFOpLambda(Layer):
    """Applies `function` to the call's arguments (KerasTensors replaced by tensors)."""

    def __init__(self, function: Callable, **kwargs: Any) -> None:
        self.function = function
        self.symbol = _symbol(function)
        name = kwargs.pop("name", None) or backend.unique_object_name(self.symbol,
                                                                      zero_based=True)
        kwargs["autocast"] = False
        super().__init__(name=name, **kwargs)

    def call(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["function"] = self.symbol
        return config
