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

* operators follow TF's dtype rules (no promotion; `int / int` is float64);
* `__torch_function__` lets every torch function take a variable: it reads
  the variable (a snapshot) and calls the function on the tensor;
* `__array__` gives numpy a copy.
"""

from __future__ import annotations

import dataclasses
import functools
import numbers
from typing import Any, Callable, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework.tensor_conversion import (convert_to_tensor, numpy_repr,
                                           register_tensor_conversion_function)
from ..framework.tensor_shape import TensorShape
from ..ops import _dispatch, math_ops
from . import creator as creator_lib
from . import slicing
from .enums import VariableAggregation, VariableSynchronization

__all__ = ["Variable", "VariableMetaclass", "Reference", "VariableDef"]

_NUMERIC = _dispatch.NUMERIC
_FLOATING = _dispatch.FLOATS | _dispatch.COMPLEX


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


class Reference:
    """A hashable reference to a variable (`v.ref()`), compared by identity."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        return self._wrapped

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, Reference) and self._wrapped is other._wrapped

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"


def _is_variable(x: Any) -> bool:
    return getattr(x, "_tfcompat_variable", False)


def _unwrap(x: Any) -> Any:
    if _is_variable(x):
        return x.value()
    if isinstance(x, (list, tuple)):
        items = [_unwrap(i) for i in x]
        return type(x)(items) if not hasattr(x, "_fields") else type(x)(*items)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    return x


def _binary(fn: Callable[[Any, Any], Any], reflected_name: str, torch_fn: Any = None,
            allowed: frozenset = frozenset()) -> Callable[[Any, Any], Any]:
    """`self <op> other` through the TF op `fn`.

    As TF's operator wrapper: when the op rejects `other` with a TypeError or
    ValueError, `other`'s reflected operator gets a chance (a NumPy array
    computes `array.__rtruediv__(tensor)`), else the original error stands.

    `torch_fn` is a shortcut for the common case the TF rules pass
    unchanged (a tensor of the same, allowed dtype): the per-call cost of
    `v + x` stays close to torch's own `t + x`.
    """
    def forward(self: "Variable", other: Any) -> Any:
        x = self.value()
        if (torch_fn is not None and type(other) is torch.Tensor and other.dtype is x.dtype
                and x.dtype in allowed):
            try:
                return torch_fn(x, other)
            except RuntimeError:
                pass  # devices differ, shapes don't broadcast...: the TF op says it properly
        try:
            return fn(x, other)
        except (TypeError, ValueError):
            reflected = getattr(other, reflected_name, None) if reflected_name else None
            if reflected is not None and not isinstance(other, (torch.Tensor, numbers.Number)):
                # NumPy would defer back to torch's reflected operator; give it an array.
                out = reflected(_to_numpy(x) if isinstance(other, np.ndarray) else x)
                if out is not NotImplemented:
                    return out
            raise
    return forward


def _reflected(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """`other <op> self` when `other` did not handle it: TF's reflected operator.

    A torch tensor only lands here when torch turned the TF op's TypeError
    into NotImplemented; running the op with the tensor first restores TF's
    error. Other values are converted to the variable's dtype, as TF does.
    """
    def backward(self: "Variable", other: Any) -> Any:
        x = self.value()
        if isinstance(other, torch.Tensor):
            return fn(other, x)
        return fn(convert_to_tensor(other, dtype=dtypes.from_torch(x.dtype)), x)
    return backward


def _logical(op: str, fn: Any) -> Callable[[Any, Any], Any]:
    def logical(x: torch.Tensor, y: Any) -> torch.Tensor:
        xt, yt = _dispatch.matched(op, x, y)
        return _dispatch.run(fn, xt, yt)
    return logical


def _bitwise_or_logical(logical: Callable, bitwise: Callable) -> Callable[[Any, Any], Any]:
    """TF's `&`, `|`, `^`: logical on bool tensors, bitwise on integers."""
    def op(x: Any, y: Any) -> Any:
        xt = convert_to_tensor(x)
        return (logical if xt.dtype is torch.bool else bitwise)(xt, y)
    return op


_and = _bitwise_or_logical(_logical("LogicalAnd", torch.logical_and), math_ops.bitwise_and)
_or = _bitwise_or_logical(_logical("LogicalOr", torch.logical_or), math_ops.bitwise_or)
# TF computes x ^ y as (x | y) & ~(x & y): its first op, LogicalOr, names the error.
_xor = _bitwise_or_logical(_logical("LogicalOr", torch.logical_xor), math_ops.bitwise_xor)


def _mul(x: Any, y: Any) -> Any:
    """TF's `*`: a bool operand makes it an int32 product cast back to bool."""
    xt = convert_to_tensor(x)
    if xt.dtype is torch.bool or (isinstance(y, torch.Tensor) and y.dtype is torch.bool):
        as_int = math_ops.multiply(math_ops.cast(xt, dtypes.int32), math_ops.cast(y, dtypes.int32))
        return math_ops.cast(as_int, dtypes.bool)
    return math_ops.multiply(xt, y)


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
        """The value as a new numpy array (bfloat16 comes back as float32)."""
        return _to_numpy(self.value())

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
        kwargs = kwargs or {}
        operator = _TENSOR_OPERATORS.get(func)
        if operator is not None and len(args) == 2 and not kwargs and isinstance(args[0], torch.Tensor):
            # `tensor <op> variable`: TF's operator rules, as for `variable <op> tensor`.
            return operator(args[0], args[1])
        fname = getattr(func, "__name__", "")
        if args and _is_variable(args[0]) and (
                (fname.endswith("_") and not fname.endswith("__"))
                or fname in ("__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__")):
            raise TypeError(
                f"torch's in-place {fname} cannot write to a tf.Variable: variables change only "
                "through assign/assign_add/assign_sub, scatter_* or slice assignment, which keep "
                "earlier reads intact. Use e.g. v.assign_add(x).")
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
        if slicing.is_mask(key):
            return slicing.boolean_mask(value, key)
        out = slicing.read(value, key)
        out.assign = functools.partial(_slice_assigner, self, key)  # type: ignore[attr-defined]
        return out

    def __setitem__(self, key: Any, value: Any) -> None:
        """tfcompat extension: `v[1:3] = x` is `v[1:3].assign(x)` (TF raises TypeError)."""
        self._strided_slice_assign(key, value, read_value=False)

    # -- operators (TF's dtype rules) ----------------------------------------
    __add__ = _binary(math_ops.add, "__radd__", torch.add, _NUMERIC)
    __radd__ = _reflected(math_ops.add)
    __sub__ = _binary(math_ops.subtract, "__rsub__", torch.sub, _NUMERIC)
    __rsub__ = _reflected(math_ops.subtract)
    __mul__ = _binary(_mul, "__rmul__", torch.mul, _NUMERIC)
    __rmul__ = _reflected(_mul)
    __truediv__ = _binary(math_ops.truediv, "__rtruediv__", torch.div, _FLOATING)
    __rtruediv__ = _reflected(math_ops.truediv)
    __floordiv__ = _binary(math_ops.floordiv, "__rfloordiv__")
    __rfloordiv__ = _reflected(math_ops.floordiv)
    __mod__ = _binary(math_ops.floormod, "__rmod__")
    __rmod__ = _reflected(math_ops.floormod)
    __pow__ = _binary(math_ops.pow, "__rpow__")
    __rpow__ = _reflected(math_ops.pow)
    __matmul__ = _binary(math_ops.matmul, "__rmatmul__")
    __rmatmul__ = _reflected(math_ops.matmul)
    __lt__ = _binary(math_ops.less, "")
    __le__ = _binary(math_ops.less_equal, "")
    __gt__ = _binary(math_ops.greater, "")
    __ge__ = _binary(math_ops.greater_equal, "")
    __and__ = _binary(_and, "__rand__")
    __rand__ = _reflected(_and)
    __or__ = _binary(_or, "__ror__")
    __ror__ = _reflected(_or)
    __xor__ = _binary(_xor, "__rxor__")
    __rxor__ = _reflected(_xor)

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

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        return math_ops.tensor_equals(self.value(), other)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return math_ops.tensor_equals(self.value(), other, negate=True)

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

    @staticmethod
    def from_proto(variable_def: VariableDef, import_scope: Optional[str] = None) -> "Variable":
        """A variable over the storage `variable_def` names (see `VariableDef`)."""
        from .resource_variable import ResourceVariable
        return ResourceVariable(variable_def=variable_def, import_scope=import_scope)


def _tensor_operators() -> dict:
    """The torch functions `tensor <op> variable` reaches -> TF's op for the operator.

    torch reports `t + v` as `Tensor.add` (not `__add__`), so the method form
    `t.add(v)` follows TF's rules too; `torch.add(t, v)` keeps torch's.
    """
    table = {"add": math_ops.add, "sub": math_ops.subtract,
             "div": math_ops.truediv, "__floordiv__": math_ops.floordiv,
             "remainder": math_ops.floormod, "__pow__": math_ops.pow, "matmul": math_ops.matmul,
             "lt": math_ops.less, "le": math_ops.less_equal, "gt": math_ops.greater,
             "ge": math_ops.greater_equal, "eq": math_ops.tensor_equals,
             "ne": lambda x, y: math_ops.tensor_equals(x, y, negate=True),
             "__and__": _and, "__or__": _or, "__xor__": _xor, "mul": _mul}
    return {getattr(torch.Tensor, name): fn for name, fn in table.items()}


_TENSOR_OPERATORS = _tensor_operators()


def _abstract(self: Any, prop: str) -> Any:
    raise NotImplementedError(f"{type(self).__name__} does not implement the `{prop}` property")


def _slice_assigner(var: Variable, key: Any, value: Any, use_locking: Any = None,
                    name: Any = None, read_value: bool = True) -> Any:
    return var._strided_slice_assign(key, value, read_value=read_value)


def _to_numpy(t: torch.Tensor) -> Any:
    """A new numpy array of `t` (a numpy scalar for 0-d, as TF's `numpy()`)."""
    t = t.detach()
    if t.dtype is torch.bfloat16:
        t = t.float()
    arr = np.array(t.cpu().resolve_conj().resolve_neg().numpy(), copy=True)
    return arr[()] if arr.ndim == 0 else arr


def _variable_to_tensor(var: Variable, dtype: Any = None, name: Any = None, as_ref: bool = False) -> torch.Tensor:
    return var._dense_var_to_tensor(dtype=dtype, name=name, as_ref=as_ref)


register_tensor_conversion_function(Variable, _variable_to_tensor)
