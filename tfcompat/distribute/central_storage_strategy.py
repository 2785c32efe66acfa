"""`tf.distribute.experimental.CentralStorageStrategy`: one copy of each variable, many replicas.

Variables live once, on the parameter device (the CPU when there are
several compute devices, else the one device); with several replicas each
is wrapped in an `AggregatingVariable`, whose replica-context updates are
aggregated first. Compute runs on every compute device, one replica thread
each (as `MirroredStrategy`); gradients are reduced onto the parameter
device and the one copy is updated once.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from ..framework import device as device_lib
from ..variables.enums import VariableAggregation
from .ps_values import AggregatingVariable
from . import values as values_lib
from .mirrored_strategy import MirroredExtended, MirroredStrategy

__all__ = ["CentralStorageStrategy"]


def _default_compute_devices() -> tuple:
    """TF's default compute devices here: every visible GPU, else the CPU (one replica; not
    every logical CPU, unlike `MirroredStrategy()`)."""
    gpus = device_lib.list_logical_devices("GPU")
    return tuple(d.name for d in gpus) if gpus else ("/device:CPU:0",)


class CentralStorageExtended(MirroredExtended):
    def __init__(self, container_strategy: Any, compute_devices: Optional[Sequence[Any]],
                 parameter_device: Optional[Any]) -> None:
        super().__init__(container_strategy, compute_devices or _default_compute_devices())
        if parameter_device is None:
            parameter_device = self._devices[0] if len(self._devices) == 1 else "/device:CPU:0"
        self._parameter_device = device_lib.canonicalize(parameter_device)

    @property
    def parameter_devices(self) -> tuple:
        return (self._parameter_device,)

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        aggregation = kwargs.get("aggregation") or VariableAggregation.NONE
        if not isinstance(aggregation, VariableAggregation):
            aggregation = VariableAggregation[getattr(aggregation, "name", str(aggregation))]
        with device_lib.device(self._parameter_device):
            v = next_creator(**kwargs)
        if self._local_replicas() == 1:
            return v
        return AggregatingVariable(self._container_strategy, v, aggregation)

    def _update(self, var: Any, fn: Callable[..., Any], args: tuple, kwargs: dict, group: bool) -> Any:
        target = var._v if isinstance(var, AggregatingVariable) else var
        with values_lib.update_context(0), device_lib.device(self._parameter_device):
            result = fn(target, *values_lib.select_replica(0, args),
                        **values_lib.select_replica(0, kwargs))
        return result if group else (result,)

    def _batch_update(self, pairs: Any, fn: Callable[[Any], Any]) -> Any:
        pairs = [(v._v if isinstance(v, AggregatingVariable) else v,
                  g.values[0] if isinstance(g, values_lib.DistributedValues) else g)
                 for v, g in pairs]
        if pairs:
            with values_lib.update_context(0):
                fn(pairs)
        return None

    def _update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: tuple,
                         kwargs: dict, group: bool) -> Any:
        with values_lib.update_context(0):
            result = fn(*values_lib.select_replica(0, args), **values_lib.select_replica(0, kwargs))
        return result if group else (result,)


class CentralStorageStrategy(MirroredStrategy):
    """Variables on one (parameter) device, compute replicated over `compute_devices`."""

    def __init__(self, compute_devices: Optional[Sequence[Any]] = None,
                 parameter_device: Optional[Any] = None) -> None:
        from .distribute_lib import Strategy
        Strategy.__init__(self, CentralStorageExtended(self, compute_devices, parameter_device))

    def __repr__(self) -> str:
        return (f"<tf.distribute.experimental.CentralStorageStrategy compute_devices="
                f"{list(self._extended._devices)} parameter_device={self._extended._parameter_device}>")
