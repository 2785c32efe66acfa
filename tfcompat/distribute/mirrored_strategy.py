"""`tf.distribute.MirroredStrategy`: synchronous training on the devices of one process.

One replica per device: `cuda:i` for each GPU (default, as TF: every
visible GPU, else every logical CPU), or the host's logical CPUs `/cpu:0`
... `/cpu:N-1` from `tf.config.set_logical_device_configuration`, so that
multi-replica code runs, and is tested, without GPUs (every logical CPU
computes on torch's `cpu`).

* Variables created in `scope()` (or inside `run`) are built by this
  strategy's variable creator, pushed on the creator stack: one component
  per device, each initialized from component 0's value, named as TF names
  them (`v:0`, `v/replica_1:0`, ...), wrapped in a `MirroredVariable`
  (`ON_WRITE`; `AUTO` becomes `ON_WRITE`, as TF) or a `SyncOnReadVariable`
  (`ON_READ`).
* `run(fn)` runs `fn` once per replica, each in its own thread, one thread
  at a time between merge calls (`mirrored_run.py`).
* Reductions (`reduce`, `ReplicaContext.all_reduce`, the optimizer's
  gradient sum) are computed in this process: TF's `add_n` order on the host
  (`cross_device_ops.py`), one multi-tensor op per replica for a batch; on
  several GPUs torch's coalesced in-process collectives.
* `extended.update(var, fn)` runs `fn` on every component, each under its
  replica's update context and device; `extended.batch_update` hands each
  replica's components to `fn` in one call (the optimizers' multi-tensor
  kernels step a replica's components together).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import nest
from ..framework import variable_protocol as protocol
from ..framework.indexed_slices import IndexedSlices
from ..variables.enums import VariableSynchronization, validate_synchronization_aggregation_trainable
from . import cross_device_ops
from . import distributed_variables as dv
from . import values as values_lib
from .distribute_lib import Strategy, StrategyExtended
from .reduce_util import ReduceOp

__all__ = ["MirroredStrategy", "MirroredExtended", "default_devices"]


def default_devices() -> tuple:
    """TF's default for `MirroredStrategy()` (`all_local_devices`): every visible GPU, else
    every logical CPU."""
    gpus = device_lib.list_logical_devices("GPU")
    if gpus:
        return tuple(d.name for d in gpus)
    return tuple(d.name for d in device_lib.list_logical_devices("CPU")) or ("/device:CPU:0",)


def _requested_name(device: Any) -> str:
    """The full TF name of a requested device before placement (TF's `device_util.canonicalize`
    of a name: `/gpu:1` is `/job:localhost/replica:0/task:0/device:GPU:1` whether or not it
    exists)."""
    if isinstance(device, torch.device):
        return device_lib.canonicalize(device)
    spec = device if isinstance(device, device_lib.DeviceSpec) else \
        device_lib.DeviceSpec.from_string(device)
    kind = spec.device_type or "CPU"
    return device_lib.canonical_name(f"{kind}:{spec.device_index or 0}")


class MirroredExtended(StrategyExtended):
    """The extended API of a strategy with one mirrored component per local device."""

    def __init__(self, container_strategy: "Strategy", devices: Optional[Sequence[Any]] = None,
                 cross_device_ops: Any = None) -> None:
        super().__init__(container_strategy)
        if isinstance(devices, (str, torch.device)):
            devices = (devices,)
        devices = tuple(devices) if devices is not None else ()
        if not devices:  # None or empty: the default, as TF (`devices or all_local_devices()`)
            devices = default_devices()
        names = tuple(device_lib.canonicalize(d) for d in devices)
        if len(set(names)) != len(names):
            # Soft placement folded distinct requested devices into one (`["/gpu:0", "/gpu:1"]`
            # on a machine without GPUs): as TF, the replicas keep the requested names and
            # share the device they place on; only a name given twice is an error.
            requested = tuple(_requested_name(d) for d in devices)
            if len(set(requested)) != len(requested):
                raise ValueError(f"No duplicates allowed in `devices` argument: {list(devices)}.")
            names = requested
        self._devices = names
        self._torch_devices = tuple(device_lib.torch_device_for(n) for n in names)
        self._cross_device_ops = cross_device_ops
        self._num_workers = 1

    # -- devices and replicas ----------------------------------------------------
    @property
    def worker_devices(self) -> tuple:
        return self._devices

    @property
    def parameter_devices(self) -> tuple:
        return self._devices

    @property
    def worker_devices_by_replica(self) -> list:
        """Each replica's devices (one each), as TF lists them."""
        return [[d] for d in self._devices]

    def _replica_devices(self, local_replica_id: int) -> list:
        # TF's MirroredReplicaContext.devices: the replica's device list, in a list
        return [self.worker_devices_by_replica[local_replica_id]]

    def _local_replicas(self) -> int:
        return len(self._devices)

    @property
    def _num_replicas_in_sync(self) -> int:
        return len(self._devices) * self._num_workers

    # -- variable creation ----------------------------------------------------------
    def _create_variable(self, next_creator: Callable[..., Any], **kwargs: Any) -> Any:
        """Build one component per device and wrap them (TF's `_create_mirrored_variable`)."""
        name = kwargs.get("name")
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            kwargs.get("synchronization"), kwargs.get("aggregation"), kwargs.get("trainable"), name)
        if synchronization == VariableSynchronization.NONE:
            raise ValueError("`NONE` variable synchronization mode is not supported with "
                             "tf.distribute strategy. Please change the `synchronization` for "
                             f"variable: {name}")
        if synchronization == VariableSynchronization.AUTO:
            synchronization = VariableSynchronization.ON_WRITE  # as TF, on the components too
        kwargs.update(synchronization=synchronization, aggregation=aggregation,
                      trainable=trainable)
        devices = self._colocated_devices or self._devices
        components = []
        with protocol.recorder.paused():
            for i, d in enumerate(devices):
                with device_lib.device(d):
                    if i == 0:
                        components.append(next_creator(**kwargs))
                        continue
                    base = components[0].name.split(":")[0]
                    kw = dict(kwargs)
                    kw["name"] = f"{base}/replica_{i}"
                    kw["initial_value"] = components[0].value()
                    kw["dtype"] = components[0].dtype
                    with _absolute_names():
                        components.append(next_creator(**kw))
        strategy = self._container_strategy
        if synchronization == VariableSynchronization.ON_READ:
            return dv.SyncOnReadVariable(strategy, tuple(components), aggregation)
        return dv.MirroredVariable(strategy, tuple(components), aggregation)

    _colocated_devices: Optional[tuple] = None

    @contextlib.contextmanager
    def colocate_vars_with(self, colocate_with_variable: Any) -> Any:
        """Variables created in the block live on `colocate_with_variable`'s devices."""
        saved = self._colocated_devices
        parts = getattr(colocate_with_variable, "_update_components", None)
        if parts is not None:
            self._colocated_devices = tuple(device_lib.canonicalize(p.device) for p in parts())
        try:
            yield
        finally:
            self._colocated_devices = saved

    # -- reductions -----------------------------------------------------------------
    def _components_of(self, value: Any) -> tuple:
        if isinstance(value, values_lib.DistributedValues):
            parts = value.values
            if getattr(type(value), "_is_distributed_variable", False):
                return tuple(p.read_value() for p in parts)
            return tuple(parts)
        return (value,)

    def _destination_devices(self, destinations: Any, value: Any) -> tuple:
        if destinations is None:
            destinations = value
        components = getattr(destinations, "_update_components", None)  # distributed variables
        if components is not None or isinstance(destinations, values_lib.DistributedValues):
            parts = components() if components is not None else destinations.values
            return tuple(_torch_device_of(p) for p in parts)
        if isinstance(destinations, (str, device_lib.DeviceSpec)):
            return (device_lib.torch_device_for(destinations),)
        if isinstance(destinations, torch.device):
            return (destinations,)
        if isinstance(destinations, (list, tuple)):
            return tuple(device_lib.torch_device_for(d) for d in destinations)
        return (device_lib.current_torch_device(),)

    def _non_distributed(self, reduce_op: ReduceOp, value: Any) -> Any:
        """TF's `reduce_non_distributed_value`: one value that stands for every replica.

        A zero that is not a tensor (Python or NumPy) reduces to zeros (a
        NumPy zero to `np.zeros` of its shape and dtype, as TF); MEAN keeps
        the value; SUM of anything else over several replicas is refused.
        """
        if isinstance(value, (np.ndarray, np.generic)) and np.all(value == 0):
            return np.zeros(value.shape, dtype=value.dtype)
        if reduce_op is ReduceOp.MEAN or self._num_replicas_in_sync == 1:
            return value
        if isinstance(value, (int, float)) and value == 0:
            return value
        raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with the "
                         f"given reduce op {reduce_op}: with several replicas, pass per-replica "
                         "values (e.g. what each replica computed), or use MEAN.")

    def _reduce_to(self, reduce_op: ReduceOp, value: Any, destinations: Any) -> Any:
        if isinstance(value, values_lib.Mirrored) and reduce_op is ReduceOp.MEAN:
            return value
        if nest.is_nested(value):  # as TF: each leaf (nests of distributed values)
            return nest.map_structure(
                lambda v: self._reduce_to(reduce_op, v, destinations), value)
        if not isinstance(value, values_lib.DistributedValues):
            value = self._non_distributed(reduce_op, value)
            if self._num_replicas_in_sync == 1:  # TF: `simple_broadcast` to the destinations
                return self._place(value, self._destination_devices(destinations, value))
            return value  # as TF: the one value stands for the result
        devices = self._destination_devices(destinations, value)
        reduced = cross_device_ops.reduce_values(reduce_op, self._components_of(value))
        reduced = self._cross_worker_reduce(reduce_op, [reduced])[0]
        return self._place(reduced, devices)

    def _batch_reduce_to(self, reduce_op: ReduceOp, pairs: list) -> list:
        per_value, places = [], []
        out: list = [None] * len(pairs)
        for k, (value, dest) in enumerate(pairs):
            devices = self._destination_devices(dest, value)
            if not isinstance(value, values_lib.DistributedValues):
                out[k] = self._place(self._non_distributed(reduce_op, value), devices)
                continue
            per_value.append(self._components_of(value))
            places.append((k, devices))
        reduced = cross_device_ops.batch_reduce_values(reduce_op, per_value) if per_value else []
        reduced = self._cross_worker_reduce(reduce_op, reduced)
        to_gpus: dict = {}
        for (k, devices), r in zip(places, reduced):
            if (len(devices) > 1 and type(r) is torch.Tensor and r.device == devices[0]
                    and all(d.type == "cuda" for d in devices) and len(set(devices)) == len(devices)):
                to_gpus.setdefault(devices, []).append((k, r))
                continue
            out[k] = self._place(r, devices)
        for devices, items in to_gpus.items():
            # One copy per GPU of every sum, coalesced (torch.cuda.comm.broadcast_coalesced).
            copies = cross_device_ops.cuda_comm.broadcast_from_first([r for _, r in items], devices)
            for j, (k, _) in enumerate(items):
                out[k] = values_lib.Mirrored(tuple(copies[d][j] for d in range(len(devices))))
        return out

    def _batch_reduce_shared(self, reduce_op: ReduceOp, pairs: list) -> list:
        """`batch_reduce_to` for the optimizer's own gradient sum: where every replica computes
        on one torch device (logical CPUs), one result tensor per value, shared by the
        replicas' updates (which only read it) instead of a `Mirrored` of copies."""
        if (len(set(self._torch_devices)) != 1 or self._num_workers != 1
                or type(self)._batch_reduce_to is not MirroredExtended._batch_reduce_to
                or not all(isinstance(v, values_lib.PerReplica) for v, _ in pairs)):
            return self._batch_reduce_to(reduce_op, pairs)
        return cross_device_ops.batch_reduce_values(reduce_op, [v.values for v, _ in pairs])

    def _cross_worker_reduce(self, reduce_op: ReduceOp, reduced: list) -> list:
        """Hook for a multi-worker strategy: combine this worker's results with the others'."""
        return reduced

    def _place(self, value: Any, devices: tuple) -> Any:
        if not isinstance(value, (torch.Tensor, IndexedSlices)):
            if len(devices) == 1:
                return value
            return values_lib.Mirrored(tuple(value for _ in devices))
        copies = cross_device_ops.copy_to_devices(value, devices)
        return copies[0] if len(copies) == 1 else values_lib.Mirrored(copies)

    def _broadcast_to(self, tensor: Any, destinations: Any) -> Any:
        if isinstance(tensor, (float, int)):
            # As TF: a Python number stays one, converted where it is used (an assign converts
            # it to the variable's dtype; a tensor here would be int32 or float32).
            return tensor
        if isinstance(tensor, values_lib.DistributedValues):
            tensor = tensor.values[0]
        from ..framework.tensor_conversion import convert_to_tensor
        if not isinstance(tensor, IndexedSlices):
            tensor = convert_to_tensor(tensor)
        return self._place(tensor, self._destination_devices(destinations, tensor))

    def _replicate(self, value: Any) -> Any:
        return self._place(value, self._torch_devices)

    def _gather_to(self, value: Any, axis: int) -> Any:
        if not isinstance(value, values_lib.DistributedValues) and (
                self._num_workers == 1 or nest.is_nested(value)):
            return value  # as TF: one value (or a nest of them) stands for the gathered one
        from ..framework.tensor_conversion import convert_to_tensor
        parts = [convert_to_tensor(p) for p in self._components_of(value)]
        cross_device_ops.check_gatherable(parts, axis)
        here = device_lib.current_torch_device()
        return torch.cat([p.to(here) for p in parts], dim=axis)

    def _local_results(self, value: Any) -> tuple:
        """TF's `_local_results`: a distributed value's components; a nest, one nest per local
        replica (each distributed value in it replaced by that replica's component)."""
        if isinstance(value, values_lib.DistributedValues):
            return tuple(value.values)
        if nest.is_nested(value):
            return tuple(nest.map_structure(
                lambda x: x.values[i] if isinstance(x, values_lib.DistributedValues) else x, value)
                for i in range(self._local_replicas()))
        return (value,)

    # -- updates --------------------------------------------------------------------
    def _update(self, var: Any, fn: Callable[..., Any], args: tuple, kwargs: dict, group: bool) -> Any:
        components = getattr(var, "_update_components", None)
        parts = components() if components is not None else (var,)
        if len(parts) == 1 and not isinstance(var, values_lib.DistributedValues) and \
                not getattr(type(var), "_is_distributed_variable", False):
            result = fn(var, *args, **kwargs)
            return result if group else (result,)
        results = []
        for i, component in enumerate(parts):
            with values_lib.update_context(i), device_lib.device(component.device):
                out = fn(component, *values_lib.select_replica(i, args),
                         **values_lib.select_replica(i, kwargs))
            # An update returning its variable (`assign` does) gives TF's `_UnreadVariable`:
            # its value, which does not regroup into the distributed variable.
            results.append(dv.UnreadVariable(component) if out is component else out)
        return values_lib.update_regroup(self, results, group)

    def _batch_update(self, pairs: Any, fn: Callable[[Any], Any]) -> Any:
        pairs = list(pairs)
        if not pairs:
            return None
        n = self._local_replicas()
        variables = [p[0] for p in pairs]
        grads = [p[1] for p in pairs]
        comps = [protocol.update_components(v) for v in variables]
        if any(len(c) != n for c in comps):
            # Variables that are not mirrored over every replica: one update each.
            for var, grad in pairs:
                self._update(var, lambda v, g: fn([(v, g)]), (grad,), {}, group=False)
            return None
        for i in range(n):
            with values_lib.update_context(i):
                fn([(c[i], g.values[i] if isinstance(g, values_lib.DistributedValues) else g)
                    for c, g in zip(comps, grads)])
        return None

    def _update_non_slot(self, colocate_with: Any, fn: Callable[..., Any], args: tuple,
                         kwargs: dict, group: bool) -> Any:
        parts = getattr(colocate_with, "_update_components", None)
        n = len(parts()) if parts is not None else 1
        results = []
        for i in range(n):
            with values_lib.update_context(i):
                results.append(fn(*values_lib.select_replica(i, args),
                                  **values_lib.select_replica(i, kwargs)))
        return values_lib.update_regroup(self, results, group)

    def read_var(self, var: Any) -> Any:
        return var.read_value()


def _torch_device_of(value: Any) -> torch.device:
    dev = getattr(value, "_tdevice", None)  # a ResourceVariable's (no name to parse)
    if dev is not None:
        return dev
    dev = value.device
    return device_lib.torch_device_for(dev) if isinstance(dev, str) else dev


@contextlib.contextmanager
def _absolute_names() -> Any:
    # Component names are the primary's plus "/replica_i": already scoped.
    from ..framework import name_scope as name_scope_lib
    with name_scope_lib.name_scope(""):
        yield


class MirroredStrategy(Strategy):
    """Synchronous training on several devices of this process (`tf.distribute.MirroredStrategy`).

    `devices`: TF device names (`["/gpu:0", "/gpu:1"]`, `["/cpu:0",
    "/cpu:1"]` after splitting the CPU into logical devices); default (None or
    empty): every visible GPU, else every logical CPU. `cross_device_ops` is
    accepted for TF's signature; the reduction is chosen from the devices.
    """

    def __init__(self, devices: Optional[Sequence[Any]] = None, cross_device_ops: Any = None) -> None:
        super().__init__(MirroredExtended(self, devices, cross_device_ops))

    def __repr__(self) -> str:
        return f"<tf.distribute.MirroredStrategy devices={list(self._extended._devices)}>"
