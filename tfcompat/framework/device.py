"""Devices: `tf.DeviceSpec`, `tf.device`, TF's placement rules, logical devices.

TF names devices `/job:localhost/replica:0/task:0/device:GPU:1`; torch names
them `cuda:1`. This module owns the mapping:

* physical devices are the host CPU (`CPU:0`) and each CUDA device (`GPU:i`);
* `tf.config.set_logical_device_configuration` splits a physical device into
  several logical ones. Logical CPUs `CPU:0..N-1` all compute on torch's
  `cpu`; logical GPUs carved from one card all compute on its `cuda:i`. They
  are distinct *names*, which is what a strategy needs to run one replica per
  device without GPUs;
* placement follows TF eager: an explicit `tf.device` wins; without one, new
  tensors and variables go to GPU:0 when a GPU is visible, else CPU:0; with
  soft placement (TF's eager default) a device that does not exist falls
  back to the default one instead of failing. A device of another job,
  replica or task (`/job:worker/task:3/...`) is an `InvalidArgumentError`
  when a tensor or variable is placed there, as in TF (entering the scope is
  fine); multi-worker strategies give such names their meaning.

Like TF, the logical-device layout is frozen the first time it is used
(`list_logical_devices`, or placing a tensor or variable).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, NamedTuple, Optional

import torch

from . import errors

__all__ = [
    "DeviceSpec", "device", "PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration",
    "list_physical_devices", "list_logical_devices", "get_visible_devices",
    "set_visible_devices", "get_logical_device_configuration",
    "set_logical_device_configuration", "get_soft_device_placement",
    "set_soft_device_placement", "current_device", "current_torch_device",
    "torch_device_for", "canonical_name",
]


# --------------------------------------------------------------------------
# DeviceSpec
# --------------------------------------------------------------------------

_SPEC_FIELDS = ("job", "replica", "task", "device_type", "device_index")


class DeviceSpec:
    """A (possibly partial) TF device specification, as `tf.DeviceSpec`.

    Parses `/job:w/replica:0/task:1/device:GPU:2` and the short forms
    `/gpu:2`, `/cpu:0`, `GPU:1`; unset fields are `None`.
    """

    __slots__ = _SPEC_FIELDS

    def __init__(self, job: Optional[str] = None, replica: Optional[int] = None,
                 task: Optional[int] = None, device_type: Optional[str] = None,
                 device_index: Optional[int] = None) -> None:
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = None if device_type is None else _normalize_type(device_type)
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        return cls(**_parse(spec))

    def to_string(self) -> str:
        out = ""
        if self.job is not None:
            out += f"/job:{self.job}"
        if self.replica is not None:
            out += f"/replica:{self.replica}"
        if self.task is not None:
            out += f"/task:{self.task}"
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            out += f"/device:{self.device_type}:{index}"
        return out

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        """This spec with the fields `dev` sets overriding ours."""
        fields = {f: getattr(self, f) for f in _SPEC_FIELDS}
        fields.update({f: getattr(dev, f) for f in _SPEC_FIELDS if getattr(dev, f) is not None})
        return DeviceSpec(**fields)

    def replace(self, **kwargs: Any) -> "DeviceSpec":
        fields = {f: getattr(self, f) for f in _SPEC_FIELDS}
        fields.update(kwargs)
        return DeviceSpec(**fields)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        body = ", ".join(f"{f}={getattr(self, f)}" for f in _SPEC_FIELDS)
        return f"<DeviceSpec({body})>"


def _normalize_type(device_type: str) -> str:
    return device_type.upper() if device_type.lower() in ("cpu", "gpu", "tpu") else device_type


_parsed: dict = {}  # spec string -> its fields (a handful of distinct strings per program)


def _parse(spec: str) -> dict:
    if type(spec) is str:
        known = _parsed.get(spec)
        if known is not None:
            return dict(known)
    fields = _parse_fields(spec)
    if type(spec) is str and len(_parsed) < 4096:
        _parsed[spec] = dict(fields)
    return fields


def _parse_fields(spec: str) -> dict:
    fields: dict = {}
    if spec is None:
        return fields
    if not isinstance(spec, str):
        raise TypeError(f"A device spec must be a string or a DeviceSpec, got {spec!r}")
    for part in (p for p in spec.split("/") if p):
        pieces = part.split(":")
        key = pieces[0].lower()
        if key in ("job", "replica", "task") and len(pieces) == 2:
            fields[key] = pieces[1] if key == "job" else int(pieces[1])
        elif key == "device" and len(pieces) == 3:
            fields["device_type"] = pieces[1]
            fields["device_index"] = None if pieces[2] == "*" else int(pieces[2])
        elif key in ("cpu", "gpu", "tpu") and len(pieces) == 2:
            fields["device_type"] = key
            fields["device_index"] = None if pieces[1] == "*" else int(pieces[1])
        elif key in ("cpu", "gpu", "tpu") and len(pieces) == 1:
            fields["device_type"] = key
        else:
            raise ValueError(
                f"Unknown attribute '{pieces[0]}' is encountered while parsing the device "
                f"spec: '{spec}'.")
    return fields


# --------------------------------------------------------------------------
# Physical and logical devices (tf.config)
# --------------------------------------------------------------------------

class PhysicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


class LogicalDeviceConfiguration(NamedTuple):
    """Configuration of one logical device carved from a physical one.

    `memory_limit` is recorded (TF uses it to size GPU arenas); torch's
    caching allocator is not partitioned by it.
    """
    memory_limit: Optional[int] = None
    experimental_priority: Optional[int] = None
    experimental_device_ordinal: Optional[int] = None


class _Runtime:
    """Process-wide device state: what exists, what is visible, how it is split."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.initialized = False
        # Found on first use, not at import: asking torch.cuda initializes CUDA.
        self._physical: Optional[list] = None
        self._visible: Optional[list] = None
        self.logical_config: dict = {}
        self.soft_placement = True
        self.job = "localhost"
        self.task = 0
        # Filled on initialization: logical name ("CPU:1") -> torch device.
        self.logical: dict = {}

    @property
    def physical(self) -> list:
        """The host CPU and each CUDA device, as `PhysicalDevice`s."""
        if self._physical is None:
            gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
            self._physical = [PhysicalDevice("/physical_device:CPU:0", "CPU")] + [
                PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(gpus)]
        return self._physical

    @property
    def visible(self) -> list:
        if self._visible is None:
            self._visible = list(self.physical)
        return self._visible

    @visible.setter
    def visible(self, devices: list) -> None:
        self._visible = devices

    def initialize(self) -> None:
        if self.initialized:
            return
        with self.lock:
            if self.initialized:
                return
            logical: dict = {}
            counters = {"CPU": 0, "GPU": 0}
            for phys in self.visible:
                kind = phys.device_type
                torch_dev = torch.device("cpu") if kind == "CPU" else torch.device(
                    "cuda", int(phys.name.rsplit(":", 1)[1]))
                for _ in self.logical_config.get(phys.name) or [None]:
                    logical[f"{kind}:{counters[kind]}"] = torch_dev
                    counters[kind] += 1
            self.logical = logical
            self.initialized = True


_runtime = _Runtime()


def _reset_runtime() -> None:
    """Forget all device configuration (tests only; TF's `context._reset_context`)."""
    global _runtime
    _runtime = _Runtime()


def list_physical_devices(device_type: Optional[str] = None) -> list:
    """`tf.config.list_physical_devices`: the host CPU and each CUDA device."""
    kind = None if device_type is None else _normalize_type(device_type)
    return [d for d in _runtime.physical if kind is None or d.device_type == kind]


def get_visible_devices(device_type: Optional[str] = None) -> list:
    kind = None if device_type is None else _normalize_type(device_type)
    return [d for d in _runtime.visible if kind is None or d.device_type == kind]


def set_visible_devices(devices: Any, device_type: Optional[str] = None) -> None:
    """`tf.config.set_visible_devices`; a no-op if unchanged, else only before initialization."""
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    kind = None if device_type is None else _normalize_type(device_type)
    keep = [d for d in _runtime.visible if kind is not None and d.device_type != kind]
    new_visible = [d for d in _runtime.physical if d in devices or d in keep]
    if not any(d.device_type == "CPU" for d in new_visible):
        raise ValueError("CPU must be visible: set_visible_devices cannot hide the host CPU.")
    if new_visible == _runtime.visible:
        return
    if _runtime.initialized:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    _runtime.visible = new_visible


def get_logical_device_configuration(device: PhysicalDevice) -> Optional[list]:
    return _runtime.logical_config.get(device.name)


def set_logical_device_configuration(device: PhysicalDevice, logical_devices: Any) -> None:
    """`tf.config.set_logical_device_configuration`: split `device` into logical devices.

    Two logical CPUs give `/cpu:0` and `/cpu:1`; both compute on torch's
    `cpu`, which is what running two replicas on one host needs.
    """
    if device not in _runtime.physical:
        raise ValueError(f"Unrecognized device: {device!r}")
    configs = None if logical_devices is None else list(logical_devices)
    if configs is not None and not configs:
        raise ValueError("Give at least one LogicalDeviceConfiguration, or None to undo the split.")
    if _runtime.logical_config.get(device.name) == configs:
        return
    if _runtime.initialized:
        raise RuntimeError("Virtual devices cannot be modified after being initialized")
    _runtime.logical_config[device.name] = configs


def list_logical_devices(device_type: Optional[str] = None) -> list:
    """`tf.config.list_logical_devices`; like TF, this freezes the device layout."""
    _runtime.initialize()
    kind = None if device_type is None else _normalize_type(device_type)
    return [LogicalDevice(f"/device:{name}", name.split(":")[0])
            for name in _runtime.logical if kind is None or name.startswith(kind + ":")]


def get_soft_device_placement() -> bool:
    return _runtime.soft_placement


def set_soft_device_placement(enabled: bool) -> None:
    _runtime.soft_placement = bool(enabled)


# --------------------------------------------------------------------------
# tf.device and placement
# --------------------------------------------------------------------------

class _DeviceStack(threading.local):
    def __init__(self) -> None:
        self.specs: list = []  # merged DeviceSpec per nesting level (None = cleared)


_stack = _DeviceStack()


@contextlib.contextmanager
def device(device_name: Any) -> Iterator[None]:
    """`tf.device`: place new tensors and variables on `device_name` in this block.

    Nested scopes merge (`/job:w` then `/cpu:1` gives `/job:w/device:CPU:1`);
    `tf.device(None)` clears the scope. Thread-local, as in TF.
    """
    if callable(device_name) and not isinstance(device_name, (str, DeviceSpec)):
        raise RuntimeError("tf.device does not support functions when eager execution is enabled.")
    if device_name is None or device_name == "":
        merged = None
    else:
        spec = device_name if isinstance(device_name, DeviceSpec) else DeviceSpec.from_string(device_name)
        outer = _stack.specs[-1] if _stack.specs else None
        merged = spec if outer is None else outer.make_merged_spec(spec)
    _stack.specs.append(merged)
    try:
        yield
    finally:
        _stack.specs.pop()


def _default_logical() -> str:
    return "GPU:0" if "GPU:0" in _runtime.logical else "CPU:0"


def _resolve(spec: Optional[DeviceSpec]) -> str:
    """The logical device name (`"CPU:1"`) a spec places on, after soft placement.

    The one place a TF device name gets its meaning. A name of another job,
    replica or task than this process's own (`/job:localhost/replica:0/task:0`
    unless a strategy set the runtime's `job`/`task`) is TF's
    `InvalidArgumentError` "unknown device", soft placement or not: only a
    multi-worker strategy knows other tasks, and it extends this function to
    give their names a meaning. Within the task, a device that does not exist
    falls back to the default one under soft placement.
    """
    _runtime.initialize()
    if spec is None:
        return _default_logical()
    if not _in_this_task(spec):
        raise _unknown_device(spec)
    if spec.device_type is None:
        return _default_logical()
    index = 0 if spec.device_index is None else spec.device_index
    name = f"{spec.device_type}:{index}"
    if name in _runtime.logical:
        return name
    if not _runtime.soft_placement:
        raise errors.invalid_argument(
            f"Could not satisfy device specification '{spec.to_string()}': known devices are "
            f"{sorted(_runtime.logical)}. Enable soft placement "
            "(tf.config.set_soft_device_placement(True)) to fall back to the default device.")
    if spec.device_type == "CPU":
        return "CPU:0"
    return _default_logical()


def _in_this_task(spec: DeviceSpec) -> bool:
    """Whether `spec`'s job, replica and task (where set) are this process's own."""
    return ((spec.job is None or spec.job == _runtime.job)
            and (spec.replica is None or spec.replica == 0)
            and (spec.task is None or spec.task == _runtime.task))


def _unknown_device(spec: DeviceSpec) -> errors.InvalidArgumentError:
    """TF's error for a device of another job, replica or task: `<full name> unknown device.`"""
    if spec.device_type is None:
        device_name = _default_logical()
    else:
        device_name = f"{spec.device_type}:{0 if spec.device_index is None else spec.device_index}"
    job = _runtime.job if spec.job is None else spec.job
    replica = 0 if spec.replica is None else spec.replica
    task = _runtime.task if spec.task is None else spec.task
    return errors.invalid_argument(
        f"/job:{job}/replica:{replica}/task:{task}/device:{device_name} unknown device. This "
        f"process is /job:{_runtime.job}/replica:0/task:{_runtime.task} and has no devices of "
        "other jobs, replicas or tasks (they exist only under a multi-worker tf.distribute "
        "strategy): drop the /job:, /replica: and /task: parts to place on a local device, "
        f"e.g. tf.device('/device:{device_name}').")


def current_logical() -> str:
    """The logical device (`"GPU:0"`) new tensors go to in this thread."""
    return _resolve(_stack.specs[-1] if _stack.specs else None)


def current_device() -> str:
    """The full TF name of the device new tensors go to in this thread."""
    return canonical_name(current_logical())


def current_torch_device() -> torch.device:
    """The torch device new tensors go to in this thread (`tf.device` + placement)."""
    name = current_logical()  # first: it may initialize the runtime (a new `logical` map)
    return _runtime.logical[name]


def canonical_name(logical: str) -> str:
    """`"CPU:1"` -> `/job:localhost/replica:0/task:0/device:CPU:1`."""
    return f"/job:{_runtime.job}/replica:0/task:{_runtime.task}/device:{logical}"


def canonicalize(name: Any) -> str:
    """The full TF name (`/job:localhost/replica:0/task:0/device:CPU:1`) a device name places on.

    Takes full, short (`"/cpu:1"`, `"GPU:0"`) or partial names, a `DeviceSpec`, or a torch
    device, after soft placement (TF's `device_util.canonicalize`).
    """
    if isinstance(name, torch.device):
        return name_of_torch_device(name)
    spec = name if isinstance(name, DeviceSpec) else DeviceSpec.from_string(name)
    return canonical_name(_resolve(spec))


def torch_device_for(name: Any) -> torch.device:
    """The torch device behind a TF device name (full, short or partial), after placement."""
    if isinstance(name, torch.device):
        return name
    spec = name if isinstance(name, DeviceSpec) else DeviceSpec.from_string(name)
    logical = _resolve(spec)
    return _runtime.logical[logical]


def name_of_torch_device(dev: torch.device) -> str:
    """A full TF name for a torch device (`cuda:1` -> `.../device:GPU:1`)."""
    _runtime.initialize()
    if dev.type == "cpu":
        return canonical_name("CPU:0")
    for name, tdev in _runtime.logical.items():
        if tdev == dev or (tdev.type == dev.type and (dev.index or 0) == tdev.index):
            return canonical_name(name)
    return canonical_name(f"{dev.type.upper()}:{dev.index or 0}")

