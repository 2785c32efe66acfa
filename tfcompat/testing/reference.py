"""Variable mutations as data, each with a numpy reference of TF's semantics.

A `Mutation` is a plain record (numpy arrays and Python values only) that
knows two things:

* `apply(var, api)`: perform it on a variable through TF's API
  (`var.assign(...)`, `var.scatter_add(api.IndexedSlices(...))`,
  `var[key].assign(...)`); `api` is `tfcompat` by default, and real
  TensorFlow works too, which is how these references were checked;
* `reference(array)`: the value the variable must hold afterwards, computed
  with numpy by TF's rules.

TF's rules the references encode (checked against TF 2.21 eager):

* `assign_add`/`assign_sub` need the variable's exact shape (no
  broadcasting); `assign` may change the shape only where the declared
  shape is partial;
* `scatter_add`/`scatter_sub`/`scatter_nd_add`/`scatter_nd_sub`: duplicate
  indices accumulate; `scatter_mul`/`scatter_div` apply each duplicate in
  turn; `scatter_min`/`scatter_max` take the extreme over duplicates;
* `scatter_update`/`scatter_nd_update` with duplicate indices are
  order-dependent in TF (unspecified winner), so the strategies only draw
  unique indices for them;
* integer `scatter_div` truncates toward zero (C++ division), per duplicate;
* a strided-slice assign writes `value` broadcast (numpy's assignment rule,
  leading size-1 axes may be dropped) into the numpy basic-indexing region.

This module imports only numpy, so a TF-only environment can replay
mutations drawn elsewhere (see `tfcompat.testing.strategies`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import numpy as np

__all__ = [
    "Mutation", "Assign", "AssignAdd", "AssignSub", "Scatter", "ScatterNd", "SliceAssign",
    "ItemAssign", "InvalidMutation", "Read", "READ_KINDS", "TORCH_READ_KINDS", "ReadMutation",
    "READ_MUTATION_KINDS", "SCATTER_KINDS", "SCATTER_ND_KINDS",
    "MUTATION_KINDS", "scatter_reference", "scatter_nd_reference", "slice_reference",
    "slice_assign_reference", "trunc_divide", "default_api", "key_repr", "as_operand",
    "other_dtype", "OPERAND_FORMS",
]

SCATTER_KINDS = ("update", "add", "sub", "mul", "div", "min", "max")
SCATTER_ND_KINDS = ("update", "add", "sub")
MUTATION_KINDS = (
    ("assign", "assign_add", "assign_sub")
    + tuple(f"scatter_{k}" for k in SCATTER_KINDS)
    + tuple(f"scatter_nd_{k}" for k in SCATTER_ND_KINDS)
    + ("slice_assign",)
)

# Ways a mutation's operand reaches the variable (all valid in TF):
#   "numpy"       an ndarray of the variable's dtype
#   "numpy_other" an ndarray of another dtype of the same kind (TF casts arrays)
#   "tensor"      a tensor of the variable's dtype (`api.constant`)
#   "list"        nested Python lists of ints or floats
#   "variable"    another variable holding the value
# and, for invalid mutations only:
#   "tensor_other" a tensor of another dtype (TF: ValueError, never a silent cast)
OPERAND_FORMS = ("numpy", "numpy_other", "tensor", "list", "variable")


def default_api() -> Any:
    """`tfcompat` itself: the API mutations run through unless told otherwise."""
    import tfcompat
    return tfcompat


def key_repr(key: Any) -> str:
    """`key` as it would be written between brackets: `1, ::-1, ..., None`."""
    items = key if isinstance(key, tuple) else (key,)

    def one(item: Any) -> str:
        if item is Ellipsis:
            return "..."
        if isinstance(item, slice):
            parts = ["" if p is None else str(p) for p in (item.start, item.stop, item.step)]
            text = ":".join(parts[:2]) if item.step is None else ":".join(parts)
            return text
        return repr(item)

    text = ", ".join(one(i) for i in items)
    return text + "," if isinstance(key, tuple) and len(key) == 1 else text


def other_dtype(dtype: Any) -> np.dtype:
    """Another dtype of the same kind (float64 <-> float32, int64 <-> int32)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.dtype(np.float64 if dtype != np.float64 else np.float32)
    if dtype.kind in "iu":
        return np.dtype(np.int64 if dtype != np.int64 else np.int32)
    return dtype


def as_operand(value: np.ndarray, form: str, api: Any) -> Any:
    """`value` in the given operand form (see `OPERAND_FORMS`) for `api`."""
    if form == "numpy":
        return np.array(value)
    if form == "numpy_other":
        return np.array(value, dtype=other_dtype(value.dtype))
    if form == "tensor":
        return api.constant(np.array(value))
    if form == "tensor_other":
        return api.constant(np.array(value, dtype=other_dtype(value.dtype)))
    if form == "list":
        return np.array(value).tolist()
    if form == "variable":
        return api.Variable(np.array(value))
    raise ValueError(f"unknown operand form {form!r}")


def trunc_divide(x: Any, y: Any) -> Any:
    """Integer division rounding toward zero (C++'s `/`, TF's integer scatter_div)."""
    q = np.abs(x) // np.abs(y)
    return np.where((np.sign(x) * np.sign(y)) < 0, -q, q).astype(np.result_type(x))


def _arrays_repr(value: np.ndarray) -> str:
    return np.array2string(np.asarray(value), separator=", ", threshold=20).replace("\n", "")


# ---------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------

def scatter_reference(kind: str, array: np.ndarray, indices: np.ndarray,
                      updates: np.ndarray) -> np.ndarray:
    """`var.scatter_<kind>(IndexedSlices(updates, indices))` on `array`, by TF's rules.

    `indices` has any shape; `updates` has shape `indices.shape +
    array.shape[1:]` (or is a scalar, broadcast).
    """
    out = np.array(array, copy=True)
    idx = np.asarray(indices).reshape(-1).astype(np.int64)
    upd = np.broadcast_to(np.asarray(updates, dtype=out.dtype),
                          tuple(np.shape(indices)) + out.shape[1:])
    upd = upd.reshape((idx.size,) + out.shape[1:])
    if kind == "update":
        for i, row in zip(idx, upd):
            out[i] = row
    elif kind == "add":
        np.add.at(out, idx, upd)
    elif kind == "sub":
        np.subtract.at(out, idx, upd)
    elif kind == "mul":
        np.multiply.at(out, idx, upd)
    elif kind == "div":
        if out.dtype.kind in "iu":
            for i, row in zip(idx, upd):
                out[i] = trunc_divide(out[i], row)
        else:
            np.divide.at(out, idx, upd)
    elif kind == "min":
        np.minimum.at(out, idx, upd)
    elif kind == "max":
        np.maximum.at(out, idx, upd)
    else:
        raise ValueError(f"unknown scatter kind {kind!r}")
    return out


def scatter_nd_reference(kind: str, array: np.ndarray, indices: np.ndarray,
                         updates: np.ndarray) -> np.ndarray:
    """`var.scatter_nd_<kind>(indices, updates)` on `array`, by TF's rules.

    `indices` has shape `batch + [k]`; `updates` has shape
    `batch + array.shape[k:]`. Duplicates accumulate for add/sub.
    """
    out = np.array(array, copy=True)
    indices = np.asarray(indices, dtype=np.int64)
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    upd = np.asarray(updates, dtype=out.dtype).reshape((flat.shape[0],) + out.shape[k:])
    for row, u in zip(flat, upd):
        where = tuple(int(i) for i in row)
        if kind == "update":
            out[where] = u
        elif kind == "add":
            out[where] = out[where] + u
        elif kind == "sub":
            out[where] = out[where] - u
        else:
            raise ValueError(f"unknown scatter_nd kind {kind!r}")
    return out


def slice_reference(array: np.ndarray, key: Any) -> np.ndarray:
    """`v[key]` for a TF basic slice key: numpy basic indexing (a copy)."""
    return np.array(np.asarray(array)[key], copy=True)


def slice_assign_reference(array: np.ndarray, key: Any, value: Any) -> np.ndarray:
    """`v[key].assign(value)`: numpy slice assignment on a copy."""
    out = np.array(array, copy=True)
    items = key if isinstance(key, tuple) else (key,)
    if not any(item is Ellipsis for item in items):
        # a trailing `...` makes numpy assign into a view even when every axis
        # is indexed, so a (1,)-shaped value fits a scalar region, as in TF
        items = items + (Ellipsis,)
    out[items] = np.asarray(value, dtype=out.dtype)
    return out


# ---------------------------------------------------------------------------
# mutations
# ---------------------------------------------------------------------------

class Mutation:
    """A change to a variable, with its numpy reference (see the module docstring)."""

    #: the method TF names it by (`assign_add`, `scatter_nd_sub`, ...)
    kind: str = ""
    #: whether it returns the variable (TF: a variable over the same
    #: storage) rather than None
    returns_variable: bool = True

    def apply(self, var: Any, api: Any = None) -> Any:
        raise NotImplementedError

    def reference(self, array: np.ndarray) -> np.ndarray:
        raise NotImplementedError


@dataclasses.dataclass(repr=False)
class _Dense(Mutation):
    value: np.ndarray
    read_value: bool = True
    form: str = "numpy"

    method = ""

    def __post_init__(self) -> None:
        self.kind = self.method
        self.returns_variable = self.read_value

    def apply(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        operand = as_operand(self.value, self.form, api)
        fn = getattr(var, self.method)
        if self.read_value:
            return fn(operand)
        return fn(operand, read_value=False)

    def __repr__(self) -> str:
        extra = "" if self.read_value else ", read_value=False"
        return f"{self.method}({self.form}:{_arrays_repr(self.value)}{extra})"


class Assign(_Dense):
    """`var.assign(value)`."""
    method = "assign"

    def reference(self, array: np.ndarray) -> np.ndarray:
        return np.array(self.value, dtype=np.asarray(array).dtype, copy=True)


class AssignAdd(_Dense):
    """`var.assign_add(delta)` (exact shape)."""
    method = "assign_add"

    def reference(self, array: np.ndarray) -> np.ndarray:
        array = np.asarray(array)
        return (array + np.asarray(self.value, dtype=array.dtype)).astype(array.dtype)


class AssignSub(_Dense):
    """`var.assign_sub(delta)` (exact shape)."""
    method = "assign_sub"

    def reference(self, array: np.ndarray) -> np.ndarray:
        array = np.asarray(array)
        return (array - np.asarray(self.value, dtype=array.dtype)).astype(array.dtype)


@dataclasses.dataclass(repr=False)
class Scatter(Mutation):
    """`var.scatter_<op>(IndexedSlices(updates, indices))`."""
    op: str
    indices: np.ndarray
    updates: np.ndarray
    form: str = "tensor"

    def __post_init__(self) -> None:
        self.kind = f"scatter_{self.op}"

    def apply(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        delta = api.IndexedSlices(as_operand(self.updates, self.form, api),
                                  api.constant(np.array(self.indices)))
        return getattr(var, self.kind)(delta)

    def reference(self, array: np.ndarray) -> np.ndarray:
        return scatter_reference(self.op, array, self.indices, self.updates)

    def __repr__(self) -> str:
        return (f"{self.kind}(IndexedSlices(values={self.form}:{_arrays_repr(self.updates)}, "
                f"indices={_arrays_repr(self.indices)}))")


@dataclasses.dataclass(repr=False)
class ScatterNd(Mutation):
    """`var.scatter_nd_<op>(indices, updates)`."""
    op: str
    indices: np.ndarray
    updates: np.ndarray
    form: str = "tensor"

    def __post_init__(self) -> None:
        self.kind = f"scatter_nd_{self.op}"

    def apply(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        return getattr(var, self.kind)(api.constant(np.array(self.indices)),
                                       as_operand(self.updates, self.form, api))

    def reference(self, array: np.ndarray) -> np.ndarray:
        return scatter_nd_reference(self.op, array, self.indices, self.updates)

    def __repr__(self) -> str:
        return (f"{self.kind}({_arrays_repr(self.indices)}, "
                f"{self.form}:{_arrays_repr(self.updates)})")


@dataclasses.dataclass(repr=False)
class SliceAssign(Mutation):
    """`var[key].assign(value)` (TF's strided-slice assign)."""
    key: Any
    value: np.ndarray
    form: str = "numpy"

    def __post_init__(self) -> None:
        self.kind = "slice_assign"

    def apply(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        return var[self.key].assign(as_operand(self.value, self.form, api))

    def reference(self, array: np.ndarray) -> np.ndarray:
        return slice_assign_reference(array, self.key, self.value)

    def __repr__(self) -> str:
        return f"v[{key_repr(self.key)}].assign({self.form}:{_arrays_repr(self.value)})"


@dataclasses.dataclass(repr=False)
class ItemAssign(SliceAssign):
    """`var[key] = value`: a tfcompat extension (TF variables raise TypeError)."""

    def __post_init__(self) -> None:
        self.kind = "item_assign"
        self.returns_variable = False

    def apply(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        var[self.key] = as_operand(self.value, self.form, api)
        return None

    def __repr__(self) -> str:
        return f"v[{key_repr(self.key)}] = {self.form}:{_arrays_repr(self.value)}"


@dataclasses.dataclass(repr=False)
class InvalidMutation:
    """A mutation TF rejects, with the error it raises (`errors` names resolve on `api`).

    `error` is `"ValueError"`, `"TypeError"` or a `tf.errors` class name such
    as `"InvalidArgumentError"`.
    """
    mutation: Mutation
    error: str
    why: str

    def exception(self, api: Any = None) -> type:
        api = api or default_api()
        if self.error in ("ValueError", "TypeError"):
            return {"ValueError": ValueError, "TypeError": TypeError}[self.error]
        errors = getattr(api, "errors", None)
        if errors is None:
            from ..framework import errors
        return getattr(errors, self.error)

    def apply(self, var: Any, api: Any = None) -> Any:
        return self.mutation.apply(var, api)

    def __repr__(self) -> str:
        return f"{self.mutation!r} -> {self.error} ({self.why})"


# ---------------------------------------------------------------------------
# reads
# ---------------------------------------------------------------------------

READ_KINDS = (
    "read_value", "value", "convert_to_tensor", "getitem", "getitem_ellipsis", "numpy",
    "asarray", "operator", "sparse_read", "gather_nd", "iter", "identity", "reshape",
    "transpose", "expand_dims", "squeeze", "cast", "stop_gradient", "unstack", "split",
    "torch_reshape", "torch_narrow", "torch_flatten",
)
#: reads through torch functions (`__torch_function__`): tfcompat only, not TF's API
TORCH_READ_KINDS = ("torch_reshape", "torch_narrow", "torch_flatten")


@dataclasses.dataclass
class Read:
    """One way of reading a variable; `perform` returns what the read handed out.

    Every read's result must stay equal to `expected(array)` whatever is
    written to the variable afterwards (reads are snapshots).
    """
    kind: str
    key: Any = None
    indices: Optional[np.ndarray] = None

    def perform(self, var: Any, api: Any = None) -> Any:
        api = api or default_api()
        k = self.kind
        if k == "read_value":
            return var.read_value()
        if k == "value":
            return var.value()
        if k == "convert_to_tensor":
            return api.convert_to_tensor(var)
        if k == "getitem":
            return var[self.key]
        if k == "getitem_ellipsis":
            return var[...]
        if k == "numpy":
            return var.numpy()
        if k == "asarray":
            return np.asarray(var)
        if k == "operator":
            return var * 1
        if k == "sparse_read":
            return var.sparse_read(api.constant(np.array(self.indices)))
        if k == "gather_nd":
            return var.gather_nd(api.constant(np.array(self.indices)))
        if k == "iter":
            return list(var)
        if k == "identity":
            return api.identity(var)
        if k == "reshape":
            return api.reshape(var, [-1])
        if k == "transpose":
            return api.transpose(var)
        if k == "expand_dims":
            return api.expand_dims(var, 0)
        if k == "squeeze":
            return api.squeeze(api.expand_dims(var, 0), 0)
        if k == "cast":
            return api.cast(var, var.dtype)
        if k == "stop_gradient":
            return api.stop_gradient(var)
        if k == "unstack":
            return list(api.unstack(var))
        if k == "split":
            return list(api.split(var, 1))
        if k in TORCH_READ_KINDS:
            import torch
            if k == "torch_reshape":
                return torch.reshape(var, (-1,))
            if k == "torch_narrow":
                return torch.narrow(var, 0, 0, max(var.shape[0] - 1, 0))
            return torch.flatten(var)
        raise ValueError(f"unknown read kind {k!r}")

    def expected(self, array: np.ndarray) -> Any:
        array = np.asarray(array)
        k = self.kind
        if k == "getitem":
            return slice_reference(array, self.key)
        if k == "sparse_read":
            return np.array(array[np.asarray(self.indices, dtype=np.int64)])
        if k == "gather_nd":
            idx = np.asarray(self.indices, dtype=np.int64)
            return np.array(array[tuple(idx[..., j] for j in range(idx.shape[-1]))])
        if k in ("iter", "unstack"):
            return [np.array(row) for row in array]
        if k == "split":
            return [array.copy()]
        if k in ("torch_reshape", "reshape", "torch_flatten"):
            return array.reshape(-1).copy()
        if k == "transpose":
            return np.transpose(array).copy()
        if k == "expand_dims":
            return array[None].copy()
        if k == "torch_narrow":
            return array[:max(array.shape[0] - 1, 0)].copy()
        return array.copy()

    @property
    def needs_rank(self) -> int:
        """The smallest variable rank this read takes."""
        return 1 if self.kind in ("getitem", "sparse_read", "gather_nd", "iter", "unstack", "split",
                                  "torch_narrow") else 0

    def __repr__(self) -> str:
        if self.kind == "getitem":
            return f"read(v[{key_repr(self.key)}])"
        if self.indices is not None:
            return f"read({self.kind}({_arrays_repr(self.indices)}))"
        return f"read({self.kind})"


# ---------------------------------------------------------------------------
# writes to what a read handed out
# ---------------------------------------------------------------------------

READ_MUTATION_KINDS = ("set_all", "set_first", "scale")


@dataclasses.dataclass
class ReadMutation:
    """An in-place write to the result of a read (a tensor, a numpy array, or a list of them).

    TF's tensors are immutable, so in TF nothing done to a read can reach the
    variable. In tfcompat reads are torch tensors (or numpy arrays), which
    can be written in place: the law is that such a write changes the read
    (as it would change any tensor) and never the variable or other reads.

    `apply(x)` writes with Python operators that torch tensors and numpy
    arrays share (`x[...] = c`, `x *= 2`), so the numpy `expected` is exact
    in every dtype: the constants are exactly representable, doubling is
    exact in binary floating point and wraps identically for integers.
    Lists (`iter`, `unstack`, `split`) get the write on their first item.
    """
    kind: str
    value: float = 1.5

    def applies_to(self, x: Any) -> bool:
        """Whether `x` can be written in place (a numpy scalar or an empty result cannot)."""
        if isinstance(x, list):
            return bool(x) and self.applies_to(x[0])
        if isinstance(x, np.generic) or not hasattr(x, "shape"):
            return False
        dtype = str(getattr(x, "dtype", ""))
        if self.kind == "scale" and "bool" in dtype:
            return False
        size = int(np.prod(tuple(x.shape), dtype=np.int64))
        return size > 0

    def _constant(self, dtype: Any) -> Any:
        text = str(dtype)
        if "bool" in text:
            return True
        if "int" in text:
            return 3
        return self.value

    def apply(self, x: Any) -> Any:
        """Write `x` in place (its first item, for a list); returns `x`."""
        if isinstance(x, list):
            x[0] = self.apply(x[0])
            return x
        if self.kind == "set_all":
            x[...] = self._constant(x.dtype)
        elif self.kind == "set_first":
            x[(0,) * len(x.shape)] = self._constant(x.dtype)
        else:
            x *= 2
        return x

    def expected(self, array: Any) -> Any:
        """What the written read must hold, given what it held before (numpy)."""
        if isinstance(array, list):
            return [self.expected(array[0])] + [np.array(a) for a in array[1:]]
        out = np.array(array)
        return self.apply(out)

    def __repr__(self) -> str:
        return f"write_read({self.kind})"
