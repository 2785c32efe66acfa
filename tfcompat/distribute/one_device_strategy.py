"""`tf.distribute.OneDeviceStrategy`: everything on one device, through the strategy API.

Code written for a strategy runs unchanged with one replica: variables
created in `scope()` are plain variables placed on the device (TF builds
no distributed variable here), `run` calls the function once, in replica
context, under the device; reductions over one replica are the value
itself.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from ..framework import device as device_lib
from .distribute_lib import Strategy, StrategyExtended

__all__ = ["OneDeviceStrategy"]


class OneDeviceExtended(StrategyExtended):
    def __init__(self, container_strategy: "Strategy", device: Any) -> None:
        super().__init__(container_strategy)
        self._device = device_lib.canonicalize(device)

    @property
    def worker_devices(self) -> tuple:
        return (self._device,)

    @property
    def parameter_devices(self) -> tuple:
        return (self._device,)

    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        with device_lib.device(self._device):
            return next_creator(**kwargs)

    def _call_for_each_replica(self, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        with device_lib.device(self._device):
            return super()._call_for_each_replica(fn, args, kwargs)


class OneDeviceStrategy(Strategy):
    """A strategy with a single replica on `device` (`"/gpu:0"`, `"/cpu:0"`)."""

    def __init__(self, device: Any) -> None:
        super().__init__(OneDeviceExtended(self, device))

    @contextlib.contextmanager
    def _creator_scope(self) -> Any:
        with super()._creator_scope(), device_lib.device(self._extended._device):
            yield

    def __repr__(self) -> str:
        return f"<tf.distribute.OneDeviceStrategy device={self._extended._device}>"
