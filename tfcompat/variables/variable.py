"""`tf.Variable`: the abstract interface of every variable, and its factory.

As in TF 2 (the RFC "Variables in TensorFlow 2.0"), `tf.Variable` is both:

* the base class every variable type derives from, so `isinstance(x,
  tf.Variable)` holds for resource variables, the distributed variables a
  strategy builds, and user subclasses; and
* a factory: `tf.Variable(...)` runs the creator stack
  (`tf.variable_creator_scope`), whose bottom builds a `ResourceVariable`.
  Instantiating a *subclass* directly (`ResourceVariable(...)`) bypasses the
  stack, as in TF.

The base class implements everything that can be expressed through a few
primitives (`value`, `read_value`, `assign*`, the properties), so a subclass
gets TF's operators, slicing, numpy and torch interop for free:

* operators follow TF's dtype rules (no promotion; `int / int` is float64),
  on either side of the variable (see `operators.py`);
* `__torch_function__` lets every torch function take a variable: it reads
  the variable (a snapshot) and calls the function on the tensor;
* `__array__` gives numpy a copy.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Callable, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework.numpy_interop import to_numpy
from ..framework.object_identity import Reference
from ..framework.variable_protocol import is_variable as _is_variable
from ..framework.tensor_conversion import numpy_repr, register_variable_read
from ..framework.tensor_shape import TensorShape
from ..ops import indexing_ops, math_ops
from . import creator as creator_lib
from . import operators, slicing
from .enums import VariableAggregation, VariableSynchronization

__all__ = ["Variable", "VariableMetaclass", "Reference", "VariableDef"]


class VariableMetaclass(type):
    """Makes `tf.Variable(...)` a call through the creator stack."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is Variable:
            return _variable_call(*args, **kwargs)
        return super().__call__(*args, **kwargs)


def _variable_call(initial_value: Any = None, trainable: Optional[bool] = None,
                   validate_shape: bool = True, caching_device: Any = None,
                   name: Optional[str] = None, variable_def: Any = None, dtype: Any = None,
                   import_scope: Optional[str] = None, constraint: Optional[Callable] = None,
                   synchronization: Any = VariableSynchronization.AUTO,
                   aggregation: Any = VariableAggregation.NONE, shape: Any = None,
                   experimental_enable_variable_lifting: Optional[bool] = None) -> Any:
    from .resource_variable import default_variable_creator
    return creator_lib.create_variable(
        default_variable_creator,
        initial_value=initial_value, trainable=trainable, validate_shape=validate_shape,
        caching_device=caching_device, name=name, variable_def=variable_def, dtype=dtype,
        import_scope=import_scope, constraint=constraint, synchronization=synchronization,
        aggregation=aggregation, shape=shape,
        experimental_enable_variable_lifting=experimental_enable_variable_lifting)


@dataclasses.dataclass
class VariableDef:
    """The fields of TF's `VariableDef` protocol buffer, as a plain record.

    In TF the names refer to graph nodes. In tfcompat `variable_name` and
    friends keep TF's spelling (for code that inspects them) and
    `shared_name` identifies the variable's storage, so `from_proto` gives a
    new variable object over the same storage, as graph-mode TF does.
    """
    variable_name: str = ""
    initial_value_name: str = ""
    initializer_name: str = ""
    snapshot_name: str = ""
    save_slice_info_def: Any = None
    is_resource: bool = True
    trainable: bool = True
    synchronization: int = 0
    aggregation: int = 0
    shared_name: str = ""
    dtype: str = ""
    shape: Optional[list] = None


_IN_PLACE_DUNDERS = frozenset({"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"})
_in_place_verdicts: dict = {}  # torch function -> whether it writes its first argument


def _writes_in_place(func: Any) -> bool:
    """Whether torch's `func` mutates its first argument (`add_`, `__setitem__`...)."""
    try:
        return _in_place_verdicts[func]
    except KeyError:
        pass
    except TypeError:  # an unhashable callable: decide each time
        return _in_place_name(func)
    verdict = _in_place_verdicts[func] = _in_place_name(func)
    return verdict


def _in_place_name(func: Any) -> bool:
    name = getattr(func, "__name__", "")
    return (name.endswith("_") and not name.endswith("__")) or name in _IN_PLACE_DUNDERS


def _unwrap(x: Any) -> Any:
    if _is_variable(x):
        return x.value()
    if isinstance(x, (list, tuple)):
        items = [_unwrap(i) for i in x]
        return type(x)(items) if not hasattr(x, "_fields") else type(x)(*items)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _unimplemented(method: str) -> Callable[..., Any]:
    def missing(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement {method}")
    missing.__name__ = method
    return missing


class Variable(metaclass=VariableMetaclass):
    """The TF variable interface (`tf.Variable`); calling it creates a variable.

    Subclasses implement the primitives (`value`, `read_value`, `assign`,
    `assign_add`, `assign_sub`, the scatter family, `sparse_read`,
    `gather_nd`, `_strided_slice_assign` (behind `v[k].assign(x)` and
    `v[k] = x`), and the properties `name`, `dtype`, `shape`, `device`,
    `trainable`, `constraint`, `synchronization`, `aggregation`, `handle`).

    A subclass whose reads go through other variables (a wrapper, a
    container of per-replica components) returns them from
    `_watch_targets()`: `GradientTape.watch` watches them, and a gradient
    with respect to the subclass sums theirs.
    """

    def _watch_targets(self) -> tuple:
        """The variables whose reads stand for this one (itself, by default)."""
        return (self,)

    _watch_targets.reads_itself = True  # type: ignore[attr-defined]  (the tape's fast case)

    # -- the storage protocol (framework/variable_protocol.py) --------------
    def _storage(self) -> Any:
        """This variable's own storage cell (`variables/resource.py`), or None.

        A variable with a cell lets optimizer kernels, strategies and
        checkpoints update its tensor in place (holding the cell's lock). The
        base class has none: such a variable is updated through its
        `assign*` methods, or through `_update_components()`.
        """
        return None

    def _update_components(self) -> tuple:
        """The variables an update of this one changes: itself, or (a distributed
        variable) one component per replica, each with its own `_storage()`."""
        return (self,)

    def _current_shape(self) -> tuple:
        """The shape of the current value (`shape` may be only partly known)."""
        if self.shape.is_fully_defined():
            return tuple(self.shape.as_list())
        return tuple(self.value().shape)

    def _torch_device(self) -> torch.device:
        """The torch device holding the value."""
        return self.value().device

    _tfcompat_variable = True
    _tfcompat_tensor_like = True
    __array_priority__ = 100

    # -- the primitives subclasses provide ---------------------------------
    def value(self) -> torch.Tensor:
        """A snapshot of the current value (later writes never change it)."""
        raise NotImplementedError

    def read_value(self) -> torch.Tensor:
        """Read the value (a snapshot), as its own op."""
        raise NotImplementedError

    def assign(self, value: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        raise NotImplementedError

    def assign_add(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        raise NotImplementedError

    def assign_sub(self, delta: Any, use_locking: Any = None, name: Any = None, read_value: bool = True) -> Any:
        raise NotImplementedError

    def sparse_read(self, indices: Any, name: Any = None) -> torch.Tensor:
        raise NotImplementedError

    def gather_nd(self, indices: Any, name: Any = None) -> torch.Tensor:
        raise NotImplementedError

    def _strided_slice_assign(self, key: Any, value: Any, read_value: bool = True) -> Any:
        raise NotImplementedError

    scatter_update = _unimplemented("scatter_update")
    scatter_add = _unimplemented("scatter_add")
    scatter_sub = _unimplemented("scatter_sub")
    scatter_mul = _unimplemented("scatter_mul")
    scatter_div = _unimplemented("scatter_div")
    scatter_min = _unimplemented("scatter_min")
    scatter_max = _unimplemented("scatter_max")
    scatter_nd_update = _unimplemented("scatter_nd_update")
    scatter_nd_add = _unimplemented("scatter_nd_add")
    scatter_nd_sub = _unimplemented("scatter_nd_sub")
    batch_scatter_update = _unimplemented("batch_scatter_update")
    count_up_to = _unimplemented("count_up_to")

    name = property(lambda self: _abstract(self, "name"))
    dtype = property(lambda self: _abstract(self, "dtype"))
    shape = property(lambda self: _abstract(self, "shape"))
    device = property(lambda self: _abstract(self, "device"))
    trainable = property(lambda self: _abstract(self, "trainable"))
    constraint = property(lambda self: _abstract(self, "constraint"))
    synchronization = property(lambda self: _abstract(self, "synchronization"))
    aggregation = property(lambda self: _abstract(self, "aggregation"))
    handle = property(lambda self: _abstract(self, "handle"))

    # -- derived API -------------------------------------------------------
    def get_shape(self) -> TensorShape:
        """Alias of `shape`."""
        return self.shape

    @property
    def initial_value(self) -> Any:
        """Not kept in eager mode: TF 2 raises, and so does tfcompat.

        Keeping it would double the memory of every variable. Keep your own
        reference to the initializer if you need to re-initialize.
        """
        raise RuntimeError("This property is not supported when eager execution is enabled. "
                           "(TF 2 does not keep a variable's initial value; hold on to the value "
                           "you initialized it with instead.)")

    @property
    def initializer(self) -> None:
        """Eager variables are initialized at creation; TF 2 returns None here."""
        return None

    @property
    def _shared_name(self) -> str:
        name = self.name
        return name[:-2] if name.endswith(":0") else name

    def numpy(self) -> Any:
        """The value as a new numpy array (a numpy scalar for 0-d; bfloat16 as
        `ml_dtypes.bfloat16`, as TF). Writing into it never changes the variable."""
        return to_numpy(self.value())

    def ref(self) -> Reference:
        """A hashable key for this variable (variables themselves are unhashable)."""
        return Reference(self)

    def experimental_ref(self) -> Reference:
        return self.ref()

    def eval(self, session: Any = None) -> Any:
        raise NotImplementedError("eval() is a graph-mode API; in eager mode use numpy().")

    # -- TF's tensor protocol ----------------------------------------------
    def _dense_var_to_tensor(self, dtype: Any = None, name: Any = None, as_ref: bool = False) -> torch.Tensor:
        value = self.value()
        if dtype is not None and value.dtype is not dtypes.to_torch(dtype):
            raise ValueError(
                f"Incompatible type conversion requested to type {dtypes.as_dtype(dtype).name} for "
                f"`tf.Variable of type {self.dtype.name}. (Variable: {self!r})")
        return value

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: tuple = (),
                           kwargs: Optional[dict] = None) -> Any:
        """Every torch function takes variables: each is read (a snapshot) first.

        torch's in-place ops would write behind the variable's back (and into
        snapshots other code holds), so they are refused with a pointer to
        `assign`.
        """
        if not kwargs:
            operator = operators.TENSOR_OPERATORS.get(func)
            if (operator is not None and len(args) == 2 and isinstance(args[0], torch.Tensor)
                    and _is_variable(args[1])):
                # `tensor <op> variable`: TF's operator rules, as for `variable <op> tensor`.
                return operator(args[0], args[1])
        if args and _is_variable(args[0]) and _writes_in_place(func):
            raise TypeError(
                f"torch's in-place {getattr(func, '__name__', func)} cannot write to a tf.Variable: "
                "variables change only through assign/assign_add/assign_sub, scatter_* or slice "
                "assignment, which keep earlier reads intact. Use e.g. v.assign_add(x).")
        if not kwargs:
            return func(*_unwrap(args))
        if _is_variable(kwargs.get("out")):
            raise TypeError("A tf.Variable cannot be the `out=` of a torch op; compute the result "
                            "and v.assign(result).")
        return func(*_unwrap(args), **_unwrap(kwargs))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = np.asarray(self.numpy())
        return arr if dtype is None else arr.astype(dtype, copy=False)

    # -- python protocol ---------------------------------------------------
    def __repr__(self) -> str:
        text = numpy_repr(self.value())
        if "\n" in text:
            text = "\n" + text
        return (f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={text}>")

    __str__ = __repr__

    def __hash__(self) -> int:
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. "
                        f"(Variable: {self!r})")

    def __bool__(self) -> bool:
        return bool(self.numpy())

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __complex__(self) -> complex:
        return complex(self.numpy())

    def __index__(self) -> int:
        """tfcompat extension: an integer scalar variable is a Python index.

        (TF's variables are not: `[1, 2][tf.Variable(1)]` is a TypeError there.)
        """
        if not self.dtype.is_integer or self.shape.rank != 0:
            raise TypeError("Only integer scalar variables can be used as an index.")
        return int(self.numpy())

    def __iter__(self) -> Any:
        value = self.value()
        if value.dim() == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return iter(value.unbind(0))

    def __copy__(self) -> "Variable":
        # As TF: a shallow copy of a variable is the variable itself.
        return self

    # -- slicing -----------------------------------------------------------
    def __getitem__(self, key: Any) -> torch.Tensor:
        """TF slicing; the result of a strided slice has `.assign(value)` writing back."""
        value = self.value()
        if slicing.is_simple(key, value.shape):
            out = value[key]
        elif slicing.is_mask(key):
            return indexing_ops.boolean_mask(value, key)
        else:
            out = slicing.read(value, key)
        out.assign = functools.partial(slice_assigner, self, key)  # type: ignore[attr-defined]
        return out

    def __setitem__(self, key: Any, value: Any) -> None:
        """tfcompat extension: `v[1:3] = x` is `v[1:3].assign(x)` (TF raises TypeError)."""
        self._strided_slice_assign(key, value, read_value=False)

    # -- operators (TF's dtype rules): installed from `operators.OPERATORS` below --

    # In-place operators: TF refuses them (a silent rebinding would leave the
    # variable unchanged); `//=`, `%=`, `&=`... rebind to a tensor, as in TF.
    def __iadd__(self, other: Any) -> Any:
        raise RuntimeError("`variable += value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_add(value)` to modify the variable, or "
                           "`out = variable + value` if you need to get a new output Tensor.")

    def __isub__(self, other: Any) -> Any:
        raise RuntimeError("`variable -= value` with `tf.Variable`s is not supported. Use "
                           "`variable.assign_sub(value)` to modify the variable, or "
                           "`out = variable - value` if you need to get a new output Tensor.")

    def __imul__(self, other: Any) -> Any:
        raise RuntimeError("`var *= value` with `tf.Variable`s is not supported. Use "
                           "`var.assign(var * value)` to modify the variable, or "
                           "`out = var * value` if you need to get a new output Tensor.")

    def __itruediv__(self, other: Any) -> Any:
        raise RuntimeError("`var /= value` with `tf.Variable`s is not supported. Use "
                           "`var.assign(var / value)` to modify the variable, or "
                           "`out = var / value` if you need to get a new output Tensor.")

    def __ipow__(self, other: Any) -> Any:
        raise RuntimeError("`var **= value` with `tf.Variable`s is not supported. Use "
                           "`var.assign(var ** value)` to modify the variable, or "
                           "`out = var ** value` if you need to get a new output Tensor.")

    def __neg__(self) -> torch.Tensor:
        return math_ops.negative(self.value())

    def __abs__(self) -> torch.Tensor:
        return math_ops.abs(self.value())

    def __invert__(self) -> torch.Tensor:
        value = self.value()
        return math_ops.logical_not(value) if value.dtype is torch.bool else math_ops.invert(value)

    # -- serialization -------------------------------------------------------
    def to_proto(self, export_scope: Optional[str] = None) -> Optional[VariableDef]:
        """A `VariableDef` record naming this variable (None outside `export_scope`)."""
        name = self._shared_name
        if export_scope is not None and not name.startswith(export_scope):
            return None
        strip = (lambda s: s[len(export_scope):].lstrip("/")) if export_scope else (lambda s: s)
        return VariableDef(
            variable_name=strip(name) + ":0",
            initial_value_name=strip(name) + "/Initializer/initial_value:0",
            initializer_name=strip(name) + "/Assign",
            snapshot_name=strip(name) + "/Read/ReadVariableOp:0",
            is_resource=True,
            trainable=self.trainable,
            synchronization=self.synchronization.value,
            aggregation=self.aggregation.value,
            shared_name=getattr(self, "_resource_name", ""),
            dtype=self.dtype.name,
            shape=None if self.shape.rank is None else self.shape.as_list(),
        )

    # -- checkpoints (TF's Trackable protocol; tf.train.Checkpoint saves `VARIABLE_VALUE`) ----
    def _serialize_to_tensors(self) -> dict:
        """`{"VARIABLE_VALUE": value}`: what a checkpoint saves of this variable."""
        return {"VARIABLE_VALUE": self.read_value()}

    def _restore_from_tensors(self, restored_tensors: dict) -> None:
        """Assign the checkpointed `VARIABLE_VALUE`."""
        self.assign(restored_tensors["VARIABLE_VALUE"], read_value=False)

    @staticmethod
    def from_proto(variable_def: VariableDef, import_scope: Optional[str] = None) -> "Variable":
        """A variable over the storage `variable_def` names (see `VariableDef`)."""
        from .resource_variable import ResourceVariable
        return ResourceVariable(variable_def=variable_def, import_scope=import_scope)


operators.install(Variable)


def _abstract(self: Any, prop: str) -> Any:
    raise NotImplementedError(f"{type(self).__name__} does not implement the `{prop}` property")


def slice_assigner(var: Variable, key: Any, value: Any, use_locking: Any = None,
                    name: Any = None, read_value: bool = True) -> Any:
    return var._strided_slice_assign(key, value, read_value=read_value)


def _variable_to_tensor(var: Variable, dtype: Any = None, name: Any = None, as_ref: bool = False) -> torch.Tensor:
    return var._dense_var_to_tensor(dtype=dtype, name=name, as_ref=as_ref)


register_variable_read(Variable, _variable_to_tensor)
