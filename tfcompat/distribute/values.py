"""Distributed values: one value per replica (the seed's `values.py`).

A strategy with several replicas hands user code values that stand for one
tensor per replica:

* `PerReplica`: unsynchronized values, e.g. what each replica's function
  returned, or each replica's slice of an input batch;
* `Mirrored`: values known to be equal on every replica (a reduction's
  result); it acts as its component (`DistributedDelegate`): the current
  replica's inside `strategy.run`, the primary (replica 0's, or the one on
  the current device) in cross-replica context;
* distributed variables (`distributed_variables.py`): `MirroredVariable`,
  `SyncOnReadVariable`, `AggregatingVariable`.

As TF 2.21 (and unlike the seed, which keyed components by device string),
components are a tuple indexed by the replica's local id; `.values` gives
it. The seed's helpers keep their names: `regroup`, `select_replica` (the
seed's `select_device`), `select_replica_mirrored`, `update_regroup`,
`value_container`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Sequence

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import nest
from ..framework.numpy_interop import to_numpy
from ..framework.tensor_conversion import convert_to_tensor, register_tensor_conversion_function
from ..framework.indexed_slices import IndexedSlices
from ..framework.variable_protocol import is_variable as _is_variable
from . import distribute_lib

__all__ = [
    "DistributedValues", "DistributedDelegate", "PerReplica", "Mirrored", "PerDevice",
    "current_replica_id", "update_replica_id", "regroup", "select_replica", "select_device",
    "select_replica_mirrored", "select_device_mirrored", "update_regroup", "value_container",
    "is_distributed", "MultiStepContext",
]


class _UpdateState(threading.local):
    def __init__(self) -> None:
        self.replica_id: Optional[int] = None  # inside extended.update's call for one component


_update = _UpdateState()


def update_replica_id() -> Optional[int]:
    """The local replica whose component `extended.update` is updating now, or None."""
    return _update.replica_id


class update_context:  # noqa: N801 - a context manager named as TF's UpdateContext
    """Mark the block as updating replica `replica_id`'s components (TF's `UpdateContext`)."""

    __slots__ = ("_id", "_saved")

    def __init__(self, replica_id: int) -> None:
        self._id = replica_id
        self._saved: Optional[int] = None

    def __enter__(self) -> None:
        self._saved = _update.replica_id
        _update.replica_id = self._id

    def __exit__(self, *exc: object) -> None:
        _update.replica_id = self._saved


def current_replica_id() -> Optional[int]:
    """The local replica id a distributed value should resolve to here, or None.

    Inside `strategy.run`, the replica's local index; inside an update of
    one replica's components, that replica; in cross-replica context, None.
    """
    replica = distribute_lib.get_replica_context()
    if replica is not None and not replica._is_default:
        return replica._local_replica_id
    return _update.replica_id


class DistributedValues:
    """One value per replica (`tf.distribute.DistributedValues`); `.values` lists them."""

    def __init__(self, values: Sequence[Any]) -> None:
        values = tuple(values)
        if not values:
            raise ValueError("DistributedValues needs at least one component value.")
        self._values = values

    @property
    def values(self) -> tuple:
        """The components, one per local replica, in replica order."""
        return self._values

    @property
    def _primary(self) -> Any:
        return self._values[0]

    @property
    def _devices(self) -> tuple:
        return tuple(_device_of(v) for v in self._values)

    @property
    def devices(self) -> tuple:
        return self._devices

    def _get(self) -> Any:
        """The component for the current replica (cross-replica: `_get_cross_replica`)."""
        replica_id = current_replica_id()
        if replica_id is None:
            return self._get_cross_replica()
        return self._values[replica_id]

    def _get_cross_replica(self) -> Any:
        raise ValueError(
            f"{type(self).__name__} has one value per replica and none stands for all of them in "
            "cross-replica context: use strategy.experimental_local_results(value) for the "
            "components, or strategy.reduce(...) to combine them.")

    def _get_on_device_or_primary(self, entering: bool = False) -> Any:
        """The current replica's component; in cross-replica context the one on the current
        device, else the primary.

        Outside every strategy (TF's default replica context, replica 0) that is the primary,
        whatever `tf.device` says, unless `entering`: reads that enter the value's strategy
        first (TF's `read_value()`, `numpy()`) are in cross-replica context there.
        """
        replica = distribute_lib.get_replica_context()
        if replica is not None and not replica._is_default:
            return self._values[replica._local_replica_id]
        replica_id = _update.replica_id
        if replica_id is not None:
            return self._values[replica_id]
        if replica is not None and not entering:
            return self._primary
        here = device_lib.current_device()
        for value in self._values:
            if _device_of(value) == here:
                return value
        return self._primary

    def __str__(self) -> str:
        body = ",\n".join(f"  {i}: {v}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"

    def __repr__(self) -> str:
        body = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self._values))
        return f"{type(self).__name__}:{{\n{body}\n}}"


def _device_of(value: Any) -> str:
    device = getattr(value, "device", None)
    if isinstance(device, str):
        return device
    return device_lib.canonicalize(device) if device is not None else ""


_NOT_DELEGATED = frozenset({"_values", "_distributed_container"})


class DistributedDelegate(DistributedValues):
    """A distributed value that acts as its current component: attributes and operators go
    to the current replica's value (cross-replica: the primary, for mirrored values)."""

    def __getattr__(self, name: str) -> Any:
        # Only missing attributes come here. Private names are not forwarded: tfcompat probes
        # private attributes (`_storage`, `_resource`...) and must see the container's own.
        if name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._get(), name)

    def __add__(self, o: Any) -> Any: return self._get() + o
    def __radd__(self, o: Any) -> Any: return o + self._get()
    def __sub__(self, o: Any) -> Any: return self._get() - o
    def __rsub__(self, o: Any) -> Any: return o - self._get()
    def __mul__(self, o: Any) -> Any: return self._get() * o
    def __rmul__(self, o: Any) -> Any: return o * self._get()
    def __truediv__(self, o: Any) -> Any: return self._get() / o
    def __rtruediv__(self, o: Any) -> Any: return o / self._get()
    def __floordiv__(self, o: Any) -> Any: return self._get() // o
    def __rfloordiv__(self, o: Any) -> Any: return o // self._get()
    def __mod__(self, o: Any) -> Any: return self._get() % o
    def __rmod__(self, o: Any) -> Any: return o % self._get()
    def __lt__(self, o: Any) -> Any: return self._get() < o
    def __le__(self, o: Any) -> Any: return self._get() <= o
    def __gt__(self, o: Any) -> Any: return self._get() > o
    def __ge__(self, o: Any) -> Any: return self._get() >= o
    def __and__(self, o: Any) -> Any: return self._get() & o
    def __rand__(self, o: Any) -> Any: return o & self._get()
    def __or__(self, o: Any) -> Any: return self._get() | o
    def __ror__(self, o: Any) -> Any: return o | self._get()
    def __xor__(self, o: Any) -> Any: return self._get() ^ o
    def __rxor__(self, o: Any) -> Any: return o ^ self._get()
    def __getitem__(self, o: Any) -> Any: return self._get()[o]
    def __pow__(self, o: Any, modulo: Any = None) -> Any: return pow(self._get(), o, modulo)
    def __rpow__(self, o: Any) -> Any: return pow(o, self._get())
    def __invert__(self) -> Any: return ~self._get()
    def __neg__(self) -> Any: return -self._get()
    def __abs__(self) -> Any: return abs(self._get())
    def __matmul__(self, o: Any) -> Any: return self._get() @ o
    def __rmatmul__(self, o: Any) -> Any: return o @ self._get()


class PerReplica(DistributedValues):
    """Unsynchronized per-replica values (`strategy.run`'s results, input slices)."""


PerDevice = PerReplica  # the seed's name


class Mirrored(DistributedDelegate):
    """Values kept equal on every replica; usable directly in cross-replica context.

    As TF's, it converts to its component (`tf.convert_to_tensor`, so every op
    takes it, and `np.asarray`): what a cross-replica update of a
    `MirroredVariable` returns (`v.assign(x)`) reads as the new value.
    """

    def _get_cross_replica(self) -> Any:
        return self._get_on_device_or_primary()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = np.asarray(to_numpy(convert_to_tensor(self._get())))
        return arr if dtype is None else arr.astype(dtype, copy=False)


def _mirrored_to_tensor(value: Mirrored, dtype: Any = None, name: Any = None,
                        as_ref: bool = False) -> torch.Tensor:
    """TF's `_tensor_conversion_mirrored_val`: the component here (the current replica's, or in
    cross-replica context the one on the current device, else the primary)."""
    return convert_to_tensor(value._get(), dtype=dtype)


# After tf.Variable's own (priority 100): a MirroredVariable keeps converting as a variable read.
register_tensor_conversion_function(Mirrored, _mirrored_to_tensor, priority=110)


def is_distributed(value: Any) -> bool:
    return isinstance(value, DistributedValues)


# --------------------------------------------------------------------------
# The seed's helpers
# --------------------------------------------------------------------------

def regroup(values: Sequence[Any], wrap_class: type = PerReplica,
            always_wrap: bool = False) -> Any:
    """Turn one nest per replica into one nest of per-replica values.

    Lists, tuples (named or not) and dicts are walked in parallel (their
    structures must match); at the leaves, the same object on every replica
    stays itself (unless `always_wrap`), the components of one distributed
    variable become that variable, and anything else is wrapped in
    `wrap_class`.
    """
    values = list(values)
    if not values:
        raise ValueError("regroup needs one value per replica, got none.")
    v0 = values[0]
    if type(v0) is torch.Tensor:  # the common leaf (gradients, losses): no container to find
        if all(v is v0 for v in values):
            return wrap_class(values) if always_wrap else v0
        return wrap_class(values)
    if isinstance(v0, list):
        for v in values[1:]:
            _same_structure(v0, v, list)
        return [regroup(items, wrap_class, always_wrap) for items in zip(*values)]
    if isinstance(v0, tuple):
        for v in values[1:]:
            _same_structure(v0, v, tuple)
        items = tuple(regroup(parts, wrap_class, always_wrap) for parts in zip(*values))
        return type(v0)._make(items) if hasattr(v0, "_fields") else items
    if isinstance(v0, dict):
        keys = set(v0)
        for v in values[1:]:
            if not isinstance(v, dict) or set(v) != keys:
                raise ValueError(f"The replicas returned dicts with different keys: {sorted(keys)} "
                                 f"and {sorted(v) if isinstance(v, dict) else v!r}.")
        return type(v0)((k, regroup([v[k] for v in values], wrap_class, always_wrap)) for k in v0)
    same = all(v is v0 for v in values[1:])
    container = _container_of(v0)
    if same and (not always_wrap or isinstance(v0, DistributedValues)) and container is None:
        return v0
    if container is not None:
        if all(_container_of(v) is container for v in values) and len(values) == len(container.values):
            return container
        if same:
            return v0
    return wrap_class(values)


def _same_structure(v0: Any, v: Any, kind: type) -> None:
    if not isinstance(v, kind) or len(v) != len(v0):
        raise ValueError(f"The replicas returned different structures: {v0!r} and {v!r}.")


def _container_of(value: Any) -> Any:
    if isinstance(value, DistributedValues):
        return None
    get = getattr(value, "_distributed_container", None)
    return get() if callable(get) else None


def select_replica(replica_id: int, structured: Any) -> Any:
    """The nest with each distributed value replaced by replica `replica_id`'s component."""
    def pick(x: Any) -> Any:
        if isinstance(x, DistributedValues) and not _is_distributed_variable(x):
            return x.values[replica_id]
        return x
    return nest.map_structure(pick, structured)


def _is_distributed_variable(x: Any) -> bool:
    # Distributed variables stay themselves: each replica resolves them to its component.
    return getattr(type(x), "_is_distributed_variable", False)


def select_replica_mirrored(replica_id: int, structured: Any) -> Any:
    """As `select_replica`, but every distributed value must be mirrored (a `TypeError` if not)."""
    def pick(x: Any) -> Any:
        if isinstance(x, DistributedValues) and not _is_distributed_variable(x):
            if not isinstance(x, Mirrored):
                raise TypeError(f"Expected value to be mirrored across replicas: {x!r} in "
                                f"{structured!r}.")
            return x.values[replica_id]
        return x
    return nest.map_structure(pick, structured)


def _replica_of_device(structured: Any, device: Any) -> Callable[[Any], int]:
    wanted = device_lib.canonicalize(device)

    def index(x: Any) -> int:
        for i, d in enumerate(x._devices):
            if d == wanted:
                return i
        raise ValueError(f"Device {wanted} not found in {list(x._devices)}.")
    return index


def select_device(device: Any, structured: Any) -> Any:
    """The seed's `select_device`: each distributed value's component on `device`."""
    index = _replica_of_device(structured, device)
    return nest.map_structure(
        lambda x: x.values[index(x)] if isinstance(x, DistributedValues) else x, structured)


def select_device_mirrored(device: Any, structured: Any) -> Any:
    """The seed's `select_device_mirrored`: as `select_device`, for mirrored values only."""
    index = _replica_of_device(structured, device)

    def pick(x: Any) -> Any:
        if isinstance(x, DistributedValues):
            if not isinstance(x, Mirrored):
                raise TypeError(f"Expected value to be mirrored across replicas: {x!r} in "
                                f"{structured!r}.")
            return x.values[index(x)]
        return x
    return nest.map_structure(pick, structured)


def update_regroup(extended: Any, updates: Sequence[Any], group: bool) -> Any:
    """Regroup the per-replica results of an update (TF's `distribute_utils.update_regroup`).

    With `group`, each result is a `Mirrored` of the replicas' values (a
    variable among them, such as the `UnreadVariable` an update of a
    component gives, stands for its value); results that are not tensors or
    variables (Python values) give None, as TF's `group` of them. Without
    `group`, each result becomes the tuple of its per-replica values
    (`extended._local_results`): a plain result a 1-tuple.
    """
    if not group:
        regrouped = regroup(updates, Mirrored)
        return nest.map_structure(
            lambda x: tuple(x.values) if isinstance(x, DistributedValues) else (x,), regrouped)
    return regroup(updates, _grouped_mirrored)


def _grouped_mirrored(values: Sequence[Any]) -> Any:
    """TF's `_make_grouped_mirrored`: the update's results as one `Mirrored`."""
    values = list(values)
    if len(values) == 1:
        return Mirrored(values)
    if not all(isinstance(v, (torch.Tensor, IndexedSlices)) or _is_variable(v) for v in values):
        return None
    return Mirrored(tuple(v.read_value() if _is_variable(v) else v for v in values))


def value_container(value: Any) -> Any:
    """The distributed variable `value` is a component of, or `value` itself."""
    container = _container_of(value)
    return container if container is not None else value


# The seed kept the multi-step loop's context here too.
from .multi_step import MultiStepContext  # noqa: E402
