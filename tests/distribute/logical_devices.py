"""Logical CPU devices for in-process replicas, shared by the distribute tests."""

from __future__ import annotations

import contextlib
from typing import Iterator

import tfcompat as tf
from tfcompat.framework import device as device_lib


@contextlib.contextmanager
def logical_cpus(n: int) -> Iterator[None]:
    """The host CPU split into `n` logical devices (`/cpu:0` ... `/cpu:{n-1}`), as TF's
    `set_logical_device_configuration`; the runtime is reset before and after."""
    device_lib._reset_runtime()
    tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * n)
    try:
        yield
    finally:
        device_lib._reset_runtime()
        tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))
