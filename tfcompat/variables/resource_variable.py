"""`ResourceVariable`: TF 2's default variable, stored in a torch tensor.

The value lives in a `Resource` (see `resource.py` for the copy-on-write
design that makes reads snapshots without copying on every write). This
class holds TF's semantics on top of it: naming, placement, dtype and shape
rules, the assign and scatter families, slicing, and the hooks that let
`GradientTape` see reads.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, Optional

import numpy as np
import torch

from ..framework import device as device_lib
from ..framework import variable_protocol as protocol
from ..framework import dtypes, errors
from ..framework.indexed_slices import IndexedSlices
from ..framework.numpy_interop import tensor_from_numpy, to_numpy
from ..framework.name_scope import current_name_scope, name_scope
from ..framework.tensor_conversion import conversion_error, convert_to_tensor
from ..framework.tensor_shape import TensorShape, as_shape
from ..ops import indexing_ops
from ..ops._dispatch import tf_type_name as _tf_type_name
from ..ops._indices import checks_on_host, index_tensor
from . import resource as resource_lib
from . import scatter, slicing
from .enums import (VariableAggregation, VariableSynchronization,
                    validate_synchronization_aggregation_trainable)
from .scatter import shape_str
from .variable import Variable, VariableDef, slice_assigner

_is_variable = protocol.is_variable
_partial = functools.partial

__all__ = ["ResourceVariable", "default_variable_creator"]


def default_variable_creator(next_creator: Any = None, **kwargs: Any) -> "ResourceVariable":
    """The bottom of the creator stack: builds a `ResourceVariable`."""
    return ResourceVariable(**kwargs)


def _shape_text(shape: Any) -> str:
    return str(TensorShape(tuple(shape)))


def _converts_to_new_storage(value: Any) -> bool:
    """Whether `convert_to_tensor(value)` certainly builds a new tensor.

    Python and NumPy values do; a registered conversion function may return
    a tensor its object still holds, which a variable must not adopt.
    """
    return isinstance(value, (numbers.Number, np.ndarray, np.generic, list, tuple))


_SCATTER_OPS = {kind: f"ResourceScatter{kind.capitalize()}"
                for kind in ("update", "add", "sub", "mul", "div", "min", "max")}
_SCATTER_ND_OPS = {kind: f"ResourceScatterNd{kind.capitalize()}" for kind in ("update", "add", "sub")}


class ResourceVariable(Variable):
    """A variable whose value is a torch tensor it owns (TF's `ResourceVariable`).

    See `tf.Variable` for the arguments. Created directly, it bypasses the
    creator stack (as in TF); `tf.Variable(...)` is the usual entry point.
    """

    def __init__(self, initial_value: Any = None, trainable: Optional[bool] = None,
                 collections: Any = None, validate_shape: bool = True,
                 caching_device: Any = None, name: Optional[str] = None, dtype: Any = None,
                 variable_def: Optional[VariableDef] = None, import_scope: Optional[str] = None,
                 constraint: Optional[Callable] = None, distribute_strategy: Any = None,
                 synchronization: Any = None, aggregation: Any = None, shape: Any = None,
                 handle: Any = None, experimental_enable_variable_lifting: Any = None) -> None:
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except "
                             "when you are not providing a `variable_def`. You provided neither.")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Argument `constraint` must be None or a callable. Got a "
                             f"{type(constraint)}: {constraint!r}")
        synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
            synchronization, aggregation, trainable, name)
        requested = None if dtype is None else dtypes.as_dtype(dtype)
        base_name = current_name_scope() + ("Variable" if name is None else name)
        logical = device_lib.current_logical()
        tdevice = device_lib.torch_device_for(logical)
        with protocol.recorder.paused():  # as TF: creation runs in init_scope, off every tape
            value = self._initial_tensor(initial_value, requested, tdevice)
        if shape is not None:
            declared = as_shape(shape)
            if not declared.is_compatible_with(tuple(value.shape)):
                raise ValueError(
                    f"In this `tf.Variable` creation, the initial value's shape "
                    f"({_shape_text(value.shape)}) is not compatible with the explicitly supplied "
                    f"`shape` argument ({declared}).")
        else:
            declared = TensorShape(tuple(value.shape))
        self._bind(resource_lib.Resource(value, base_name), base_name + ":0",
                   device_lib.canonical_name(logical), declared, trainable, constraint,
                   synchronization, aggregation)

    def _bind(self, resource: resource_lib.Resource, name: str, device_name: str,
              shape: TensorShape, trainable: bool, constraint: Optional[Callable],
              synchronization: VariableSynchronization, aggregation: VariableAggregation) -> None:
        """Set the state every construction path shares (new storage or a `VariableDef`'s)."""
        value = resource.value
        self._resource = resource
        self._name = name
        self._dtype = dtypes.from_torch(value.dtype)
        self._tdtype = value.dtype
        self._tdevice = value.device
        self._device_index = value.get_device()  # (-1 on the host: cheaper to compare than devices)
        self._device_name = device_name
        self._shape = shape
        self._trainable = trainable
        self._constraint = constraint
        self._synchronization = synchronization
        self._aggregation = aggregation
        self._checks_on_host = checks_on_host(value)  # TF's CPU kernels validate indices

    @staticmethod
    def _initial_tensor(initial_value: Any, requested: Optional[dtypes.DType],
                        tdevice: torch.device) -> torch.Tensor:
        if callable(initial_value) and not _is_variable(initial_value):
            with name_scope("Initializer"):
                initial_value = initial_value()
        if _is_variable(initial_value):
            value = initial_value._dense_var_to_tensor(dtype=requested)
        elif isinstance(initial_value, torch.Tensor):
            if requested is not None and initial_value.dtype is not requested.as_torch:
                err = conversion_error(requested, initial_value)
                raise ValueError(f"initial_value: {err}")
            value = initial_value
        else:
            # Converted in the current device scope, which is the variable's: a CPU-scoped
            # variable never makes a round trip through the default accelerator.
            value = convert_to_tensor(initial_value, dtype=requested)
            if value.device == tdevice and _converts_to_new_storage(initial_value):
                return value.detach().contiguous()
        # Never alias the caller's tensor: the variable owns fresh storage.
        return value.detach().to(device=tdevice, memory_format=torch.contiguous_format,
                                 copy=True)

    def _init_from_proto(self, variable_def: VariableDef, import_scope: Optional[str]) -> None:
        resource = resource_lib.lookup(variable_def.shared_name)
        if resource is None:
            raise errors.NotFoundError(
                None, None,
                f"No live variable has the storage named {variable_def.shared_name!r} "
                f"(variable {variable_def.variable_name!r}). A VariableDef refers to a variable "
                "of this process; to move values between processes use tf.train.Checkpoint.")
        prefix = "" if not import_scope else import_scope.rstrip("/") + "/"
        self._bind(resource, prefix + variable_def.variable_name,
                   device_lib.name_of_torch_device(resource.value.device),
                   TensorShape(variable_def.shape), variable_def.trainable, None,
                   VariableSynchronization(variable_def.synchronization),
                   VariableAggregation(variable_def.aggregation))

    # -- properties ---------------------------------------------------------
    name = property(lambda self: self._name, doc="`scope/name:0`, as TF names it.")
    dtype = property(lambda self: self._dtype, doc="The variable's `tf.DType`.")
    shape = property(lambda self: self._shape, doc="The declared `TensorShape` (may be partial).")
    device = property(lambda self: self._device_name,
                      doc="The full TF device name, `/job:localhost/replica:0/task:0/device:CPU:0`.")
    trainable = property(lambda self: self._trainable)
    constraint = property(lambda self: self._constraint)
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)

    @property
    def handle(self) -> torch.Tensor:
        """The live torch tensor holding the value (torch interop).

        Writing it in place changes the variable; reads taken earlier keep
        their values (copy-on-write protects them, as for every write). The
        variable may replace the tensor (an assign of a new shape), so fetch
        `handle` again rather than keeping it across writes. Handing it out
        makes host-side copies of the value (an optimizer's step count)
        re-read it once, since code outside tfcompat may write it in ways
        torch does not count (a collective, a numpy view).
        """
        return self._resource.hand_out()

    def _storage(self) -> resource_lib.Resource:
        """The storage protocol: this variable's cell (see `variables/resource.py`)."""
        return self._resource

    def _current_shape(self) -> tuple:
        return tuple(self._resource.value.shape)

    def _torch_device(self) -> torch.device:
        return self._tdevice

    @property
    def _resource_name(self) -> str:
        return self._resource.shared_name

    @property
    def _unique_id(self) -> str:
        return self._resource.shared_name

    @property
    def _creation_order(self) -> int:
        return self._resource.uid

    _in_graph_mode = False  # TF's attribute: Keras 2 code reads it

    # -- reads ----------------------------------------------------------------
    def value(self) -> torch.Tensor:
        """The current value: a copy-on-write snapshot (see `variables/resource.py`).

        Neither a later write to the variable nor an in-place op on the
        result (or a numpy array of it) makes one change the other. Under a
        `GradientTape` the result is differentiable with respect to the
        variable.
        """
        if protocol.recording:
            return protocol.recorder.dense(self, self._resource)
        return self._resource.snapshot()

    read_value = value

    def __getitem__(self, key: Any) -> torch.Tensor:
        """TF slicing (see `Variable.__getitem__`); `v[a:b]` outside tapes in few calls."""
        if type(key) is slice and not protocol.recording:
            start, stop = key.start, key.stop
            if (start is None or type(start) is int) and (stop is None or type(stop) is int):
                res = self._resource
                with res.lock:
                    snapshot = res.value._lazy_clone()  # (the cell's memory is torch's)
                try:
                    # torch's slicing is TF's strided slice for int bounds and positive steps;
                    # the rest (negative steps, rank 0) raises here and takes the general path.
                    out = snapshot[key]
                except (IndexError, TypeError, ValueError):
                    return Variable.__getitem__(self, key)
                out.assign = _partial(slice_assigner, self, key)  # type: ignore[attr-defined]
                return out
        return Variable.__getitem__(self, key)

    def numpy(self) -> Any:
        """The value as a new numpy array (see `Variable.numpy`): one copy, taken under the lock."""
        res = self._resource
        with res.lock:
            return to_numpy(res.value)

    def read_value_no_copy(self) -> torch.Tensor:
        """The same snapshot as `read_value` (TF's name for the no-copy read)."""
        return self.value()

    def sparse_read(self, indices: Any, name: Optional[str] = None) -> torch.Tensor:
        """`tf.gather(v, indices)`: rows of the variable. Its gradient is `IndexedSlices`.

        Out-of-range indices follow `tf.gather` per device: TF's CPU error, or
        zeros on an accelerator (no host sync).
        """
        res = self._resource
        if type(indices) is torch.Tensor and indices.dtype in scatter.INDEX_TYPES:
            idx = indices  # the common case, without the conversion's calls
        else:
            idx = index_tensor(indices, "ResourceGather", allowed=scatter.INDEX_TYPES)
        if res.value.dim() == 0:
            raise errors.InvalidArgumentError(None, None, "params must be at least 1 dimensional")
        if self._checks_on_host:
            if idx.get_device() != -1:  # (-1: on the host, as the variable)
                idx = idx.to(self._tdevice)
            flat = idx if idx.dim() == 1 else idx.reshape(-1)
            try:  # torch's CPU kernel checks the range itself: no separate pass when all is well
                with res.lock:  # the gathered rows are new memory: a snapshot already
                    rows = torch.index_select(res.value, 0, flat)
            except (IndexError, RuntimeError):
                indexing_ops.gather(res.snapshot(), idx)  # raises TF's error for the first bad index
                raise
            if idx.dim() != 1:
                rows = rows.reshape(tuple(idx.shape) + tuple(res.value.shape[1:]))
        else:
            if idx.device != self._tdevice:
                idx = idx.to(self._tdevice)
            with res.lock:
                rows = indexing_ops.gather(res.value, idx)
        if protocol.recording:
            rows = protocol.recorder.sparse(self, idx, rows)
        return rows

    def gather_nd(self, indices: Any, name: Optional[str] = None) -> torch.Tensor:
        """`tf.gather_nd(v, indices)`, differentiable.

        As TF: with indices of shape `[n, 1]` (whole rows) the gradient is
        `IndexedSlices` (it is a `sparse_read`), otherwise dense.
        """
        idx = scatter.index_arg(indices, self._tdevice, "ResourceGatherNd")
        if idx.dim() == 2 and idx.shape[1] == 1 and self._resource.value.dim() >= 1:
            try:
                return self.sparse_read(idx[:, 0])
            except errors.InvalidArgumentError:
                # The dtype is checked above, so an index is out of range: say so in
                # gather_nd's words.
                indexing_ops.gather_nd(self._resource.snapshot(), idx)
                raise
        return indexing_ops.gather_nd(self.value(), idx)

    # -- operand conversion ------------------------------------------------------
    def _operand(self, value: Any) -> tuple:
        """`(tensor, fresh)`: `value` as this variable's dtype and device.

        TF's rules: a Python float never becomes an int (`TypeError`), a tensor
        of another dtype is a `ValueError`, numpy arrays are cast. `fresh`
        says nobody else holds the tensor, so it may become the storage.
        """
        if isinstance(value, torch.Tensor):
            if value.dtype is not self._tdtype:
                raise conversion_error(self._dtype, value)
            t, fresh = value, False
        elif _is_variable(value):
            t, fresh = value._dense_var_to_tensor(dtype=self._dtype), False
        else:
            t, fresh = convert_to_tensor(value, dtype=self._dtype), True
        if t.requires_grad:
            t = t.detach()
        if t.device != self._tdevice:
            t, fresh = t.to(self._tdevice), True
        return t, fresh

    @staticmethod
    def _shape_mismatch(t: torch.Tensor, current: torch.Tensor) -> errors.InvalidArgumentError:
        return errors.InvalidArgumentError(
            None, None,
            f"Cannot update variable with shape {list(current.shape)} using a Tensor with shape "
            f"{list(t.shape)}, shapes must be equal.")

    # -- assign family --------------------------------------------------------------
    def assign(self, value: Any, use_locking: Any = None, name: Optional[str] = None,
               read_value: bool = True) -> Any:
        """Replace the value. Returns the variable (None with `read_value=False`).

        The new value must be compatible with the declared shape; a variable
        declared with a partial shape may change shape.
        """
        t, fresh = self._operand(value)
        res = self._resource
        same_shape = t.shape == res.value.shape
        # The storage's shape is compatible with the declared one, so only a new shape is checked.
        if not same_shape and not self._shape.is_compatible_with(tuple(t.shape)):
            raise ValueError(
                f"Cannot assign value to variable '{self._name}': Shape mismatch. The variable "
                f"shape {self._shape}, and the assigned value shape {_shape_text(t.shape)} are "
                "incompatible.")
        if same_shape:
            with res.lock:  # in place; copy-on-write moves the variable off memory a read shares
                res.value.copy_(t)
        else:
            res.replace(t.contiguous() if fresh else t.clone(memory_format=torch.contiguous_format))
        return self if read_value else None

    def _update(self, delta: Any, inplace: Any) -> None:
        res = self._resource
        if (type(delta) is torch.Tensor and delta.dtype is self._tdtype and not delta.requires_grad
                and delta.get_device() == self._device_index and self._tdtype is not torch.bool):
            t = delta  # the common call: used as it is
        else:
            if self._tdtype is torch.bool:
                raise errors.InvalidArgumentError(
                    None, None, "No OpKernel was registered to support Op 'AssignAddVariableOp' "
                    "with these attrs: [dtype=DT_BOOL]: bool variables cannot be added to; use "
                    "assign.")
            t, _ = self._operand(delta)  # on the variable's device
        with res.lock:
            value = res.value
            if t.shape != value.shape:
                raise self._shape_mismatch(t, value)
            try:
                inplace(value, t)
            except RuntimeError as e:
                raise errors.InvalidArgumentError(None, None, str(e)) from None

    def assign_add(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        """`v += delta` in place (delta of the variable's exact shape and dtype)."""
        self._update(delta, torch.Tensor.add_)
        return self if read_value else None

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Optional[str] = None,
                   read_value: bool = True) -> Any:
        """`v -= delta` in place (delta of the variable's exact shape and dtype)."""
        self._update(delta, torch.Tensor.sub_)
        return self if read_value else None

    def _strided_slice_assign(self, key: Any, value: Any, read_value: bool = True) -> Any:
        """`v[key].assign(value)`: write `value` (broadcast) into the slice, in place."""
        res = self._resource
        t, _ = self._operand(value)
        if slicing.is_mask(key):
            mask = convert_to_tensor(key).to(self._tdevice)
            target_shape = (int(mask.sum()),) + tuple(res.value.shape[mask.dim():])
            fitted = self._fit(t, target_shape)
            with res.lock:
                res.value[mask] = fitted
            return self if read_value else None
        p = slicing.plan(res.value.shape, key)
        region_shape = res.value[p.key].shape
        if region_shape.numel() == 0:  # an empty slice takes any empty value: nothing to write
            return self if read_value else None
        fitted = self._fit(t, region_shape)
        if p.flip:
            fitted = fitted.flip(p.flip)
        with res.lock:
            res.value[p.key].copy_(fitted)
        return self if read_value else None

    @staticmethod
    def _fit(t: torch.Tensor, shape: Any) -> torch.Tensor:
        try:
            return slicing.fit_value(t, shape)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot broadcast input shape {shape_str(t.shape)} into final shape "
                f"{shape_str(shape)}") from None

    # -- scatter family -------------------------------------------------------------
    def _scatter(self, kind: str, sparse_delta: Any) -> "ResourceVariable":
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: "
                            f"{sparse_delta!r}")
        updates, _ = self._operand(sparse_delta._raw_values)
        res = self._resource
        # (TF's CPU kernels validate the indices; on an accelerator a bad row is skipped)
        idx, upd, valid = scatter.rows(res.value, sparse_delta.indices, updates, _SCATTER_OPS[kind],
                                       host_checks=self._checks_on_host)
        with res.lock:
            scatter.apply(kind, res.value, idx, upd, valid)
        return self

    def scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Set rows `sparse_delta.indices` to `sparse_delta.values`.

        Every scatter follows TF's kernel for the variable's device
        (`variables/scatter.py`): on CPU an out-of-range index is an
        `InvalidArgumentError` and nothing changes; on an accelerator that
        row is skipped and no index is read on the host. Duplicates of
        `scatter_update` write in an unspecified order, as in TF.
        """
        return self._scatter("update", sparse_delta)

    def scatter_add(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Add `values` to rows `indices`; duplicate indices accumulate.

        (On an accelerator in one unordered reduction; out-of-range rows are
        skipped there: see `scatter_update`.)
        """
        return self._scatter("add", sparse_delta)

    def scatter_sub(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Subtract `values` from rows `indices`; duplicate indices accumulate."""
        return self._scatter("sub", sparse_delta)

    def scatter_mul(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Multiply rows `indices` by `values`; duplicates multiply in."""
        return self._scatter("mul", sparse_delta)

    def scatter_div(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Divide rows `indices` by `values`; duplicates divide in.

        On CPU a 0 divisor is an `InvalidArgumentError`; on an accelerator
        (TF's GPU kernel) it divides, and a row is divided once by the
        product of its duplicates' divisors.
        """
        return self._scatter("div", sparse_delta)

    def scatter_min(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Rows `indices` become `min(row, values)`."""
        return self._scatter("min", sparse_delta)

    def scatter_max(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Rows `indices` become `max(row, values)`."""
        return self._scatter("max", sparse_delta)

    def _scatter_nd(self, kind: str, indices: Any, updates: Any) -> "ResourceVariable":
        upd, _ = self._operand(updates)
        res = self._resource
        idx, flat_upd, k, valid = scatter.nd_rows(res.value, indices, upd, _SCATTER_ND_OPS[kind],
                                                  host_checks=self._checks_on_host)
        with res.lock:
            target = res.value
            scatter.apply(kind, target.view((-1,) + tuple(target.shape[k:])), idx, flat_upd, valid)
        return self

    def scatter_nd_update(self, indices: Any, updates: Any, name: Any = None) -> Any:
        """`tf.tensor_scatter_nd_update` in place: `v[indices[i]] = updates[i]`."""
        return self._scatter_nd("update", indices, updates)

    def scatter_nd_add(self, indices: Any, updates: Any, name: Any = None) -> Any:
        """`v[indices[i]] += updates[i]`; duplicates accumulate."""
        return self._scatter_nd("add", indices, updates)

    def scatter_nd_sub(self, indices: Any, updates: Any, name: Any = None) -> Any:
        """`v[indices[i]] -= updates[i]`; duplicates accumulate."""
        return self._scatter_nd("sub", indices, updates)

    def batch_scatter_update(self, sparse_delta: Any, use_locking: bool = False, name: Any = None) -> Any:
        """Per-batch `scatter_update`: `indices` of shape `batch + [n]` index the axis after them."""
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: "
                            f"{sparse_delta!r}")
        current = self._resource.value
        idx = scatter.index_arg(sparse_delta.indices, current.device, _SCATTER_ND_OPS["update"])
        if idx.dim() == 1:
            return self._scatter("update", sparse_delta)
        batch = tuple(idx.shape[:-1])
        if tuple(current.shape[:len(batch)]) != batch:
            raise ValueError(f"The batch dimensions of indices {list(batch)} must match the leading "
                             f"dimensions of the variable {list(current.shape)}.")
        # As TF: a scatter_nd_update whose index rows are (batch position..., index).
        grids = torch.meshgrid(*[torch.arange(d, device=current.device) for d in idx.shape],
                               indexing="ij")
        nd = torch.stack(list(grids[:-1]) + [idx.to(torch.long)], dim=-1)
        return self._scatter_nd("update", nd, sparse_delta._raw_values)

    def count_up_to(self, limit: int) -> torch.Tensor:
        """Deprecated TF op: return the value and add 1, failing once `limit` is reached."""
        if self._tdtype not in (torch.int32, torch.int64):
            raise errors.InvalidArgumentError(
                None, None, f"Value for attr 'T' of {_tf_type_name(self._tdtype)} is not in the list "
                "of allowed values: int32, int64")
        res = self._resource
        with res.lock:  # the check and the increment are one step, as TF's kernel
            old = res.snapshot()
            if old.dim() != 0:
                raise errors.InvalidArgumentError(None, None,
                                                  f"input is not a scalar: {shape_str(old.shape)}")
            if int(old) >= limit:
                raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
            res.value.add_(1)
        return old

    # -- copying ----------------------------------------------------------------
    def __deepcopy__(self, memo: dict) -> "ResourceVariable":
        with device_lib.device(self._device_name), name_scope(""):
            copied = ResourceVariable(
                initial_value=self._resource.snapshot(), trainable=self._trainable,
                constraint=self._constraint, name=self._shared_name,
                synchronization=self._synchronization, aggregation=self._aggregation,
                shape=self._shape)
        memo[id(self)] = copied
        return copied

    def __reduce__(self) -> tuple:
        return (_rebuild, (self.numpy(), self._dtype.name, self._trainable, self._shared_name,
                           self._constraint, self._synchronization.value, self._aggregation.value,
                           None if self._shape.rank is None else self._shape.as_list()))


def _rebuild(value: Any, dtype: str, trainable: bool, name: str, constraint: Any,
             synchronization: int, aggregation: int, shape: Any) -> ResourceVariable:
    with name_scope(""):
        return ResourceVariable(
            initial_value=tensor_from_numpy(np.asarray(value)).to(dtypes.to_torch(dtype))
            if dtype == "bfloat16" else value, dtype=dtype, trainable=trainable, name=name,
            constraint=constraint,
            synchronization=VariableSynchronization(synchronization),
            aggregation=VariableAggregation(aggregation), shape=shape)
