"""`tf.keras.optimizers`: the OptimizerV2 (tf_keras legacy) optimizers on torch.

`tf.keras.optimizers.Adam`, `tf.keras.optimizers.legacy.Adam` and
`tf.optimizers.Adam` are the same class, as the legacy optimizers are the
reference these follow. `get`, `serialize` and `deserialize` speak tf_keras'
formats; deserialization only ever builds the classes named here or passed
in `custom_objects`.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional

from . import legacy, schedules
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .ftrl import Ftrl
from .nadam import Nadam
from .optimizer_v2 import OptimizerV2
from .rmsprop import RMSprop
from .sgd import SGD

Optimizer = OptimizerV2

__all__ = ["Optimizer", "OptimizerV2", "SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax",
           "Nadam", "Ftrl", "get", "serialize", "deserialize", "legacy", "schedules"]

_BY_NAME = {cls.__name__.lower(): cls for cls in
            (SGD, Adam, Adagrad, RMSprop, Adadelta, Adamax, Nadam, Ftrl)}


def serialize(optimizer: OptimizerV2, use_legacy_format: bool = False) -> dict:
    """`{"module", "class_name", "config", "registered_name"}` as tf_keras writes it."""
    config = optimizer.get_config()
    name = type(optimizer).__name__
    if use_legacy_format:
        return {"class_name": name, "config": config}
    builtin = _BY_NAME.get(name.lower()) is type(optimizer)
    module = "keras.optimizers.legacy" if builtin else type(optimizer).__module__
    if type(optimizer) is _loss_scale_optimizer_class():
        module = "tf_keras.src.mixed_precision.loss_scale_optimizer"  # what tf_keras writes
    return {"module": module, "class_name": name, "config": config,
            "registered_name": None if builtin else name}


def _loss_scale_optimizer_class() -> type:
    from ..mixed_precision.loss_scale_optimizer import LossScaleOptimizer
    return LossScaleOptimizer


def deserialize(config: dict, custom_objects: Optional[dict] = None,
                use_legacy_format: bool = False, **kwargs: Any) -> OptimizerV2:
    """An optimizer from `serialize` output; names are matched case-insensitively."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret optimizer identifier: {config!r}")
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower())
    if cls is None and name.lower() in ("lossscaleoptimizer", "lossscaleoptimizerv1"):
        cls = _loss_scale_optimizer_class()
    if cls is None:
        raise ValueError(f"Unknown optimizer: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in "
                         "the scope, or pass it in `custom_objects`.")
    cls_config = dict(config.get("config", {}))
    if "custom_objects" in inspect.signature(cls.from_config).parameters:
        return cls.from_config(cls_config, custom_objects=custom_objects)
    return cls.from_config(cls_config)


def get(identifier: Any, **kwargs: Any) -> OptimizerV2:
    """An optimizer from a name (`"adam"`), a config dict, or an optimizer instance."""
    if isinstance(identifier, OptimizerV2):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": identifier, "config": {}})
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
