"""`tf.config`: physical and logical devices, placement settings (re-exports)."""

import types as _types

from .framework.device import (LogicalDevice, LogicalDeviceConfiguration, PhysicalDevice,
                               get_logical_device_configuration, get_soft_device_placement,
                               get_visible_devices, list_logical_devices, list_physical_devices,
                               set_logical_device_configuration, set_soft_device_placement,
                               set_visible_devices)
from .framework.config import (functions_run_eagerly, get_memory_growth, run_functions_eagerly,
                               set_memory_growth)

experimental = _types.SimpleNamespace(
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    set_memory_growth=set_memory_growth,
    get_memory_growth=get_memory_growth,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    set_virtual_device_configuration=set_logical_device_configuration,
    get_virtual_device_configuration=get_logical_device_configuration,
)

__all__ = ["LogicalDevice", "LogicalDeviceConfiguration", "PhysicalDevice",
           "list_physical_devices", "list_logical_devices", "get_visible_devices",
           "set_visible_devices", "get_logical_device_configuration",
           "set_logical_device_configuration", "get_soft_device_placement",
           "set_soft_device_placement", "run_functions_eagerly", "functions_run_eagerly",
           "experimental"]
