"""Code shared by the core golden generator and its replay: one text, two runtimes.

Everything here takes the TensorFlow-shaped module as its first argument
(`tf`): `gen_core.py` passes real ``tensorflow``, ``test_core_golden.py``
passes ``tfcompat``, and ``test_core_oracle.py`` passes both. So a fixture
case is *executed by the same code* on both sides; only the module differs.
This file must not import TensorFlow or torch itself.

Pieces:

* value specs (:func:`build`): JSON descriptions of the inputs of a case
  (Python values, NumPy arrays, tensors, variables, slice keys,
  ``IndexedSlices``, dtypes, shapes);
* result encoding (:func:`encode`): any result (tensor, variable,
  ``IndexedSlices``, Python value, caught exception) as JSON;
* case runners (:data:`RUNNERS`), one per fixture section;
* gradient programs (:data:`PROGRAMS`): small GradientTape programs, each
  returning a dict of named results;
* :func:`same`: the exact comparison the replay uses.

The value-spec and result-encoding grammars are documented in
``gen_core.py``'s module docstring (the fixture schema).
"""

from __future__ import annotations

import math
import operator
import re
from typing import Any, Callable

import numpy as np

__all__ = ["build", "encode", "attempt", "Err", "clean_message", "expand", "expand_group",
           "RUNNERS", "PROGRAMS",
           "PROGRAM_REQUIRES", "VAR_OPS", "same"]


# --------------------------------------------------------------------------
# Caught errors
# --------------------------------------------------------------------------

_NOISE = (
    (re.compile(r"\{\{function_node [^}]*\}\}\s*"), ""),
    (re.compile(r",? node name: \S+"), ""),
    (re.compile(r"\s*\[Op:[A-Za-z0-9_]+\](\s*name:.*)?$", re.S), ""),
    (re.compile(r"\nTraceback \(most recent call last\).*", re.S), ""),
    (re.compile(r" at 0x[0-9a-fA-F]+"), ""),
)


def clean_message(message: str) -> str:
    """An error message without TF-internal noise, object addresses and tracebacks."""
    for pattern, repl in _NOISE:
        message = pattern.sub(repl, message)
    return message.strip()


class Err:
    """An exception a case raised, kept as a value so a program can go on."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def json(self) -> dict:
        return {"error": type(self.exc).__name__, "message": clean_message(str(self.exc))}


def attempt(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)`, or an `Err` holding what it raised."""
    try:
        return fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - every failure is a recorded outcome
        return Err(e)


# --------------------------------------------------------------------------
# Value specs -> objects
# --------------------------------------------------------------------------

def _np_array(spec: dict) -> np.ndarray:
    dtype = spec.get("dtype")
    if dtype == "bfloat16":
        dtype = "float32"
    data = np.array(spec["np"] if "np" in spec else spec["tensor"] if "tensor" in spec
                    else spec["var"], dtype=dtype)
    if "imag" in spec:
        data = data + 1j * np.array(spec["imag"], dtype=data.real.dtype)
    return data


def _tensor(tf: Any, spec: dict) -> Any:
    arr = _np_array(spec)
    if spec.get("dtype") == "bfloat16":
        return tf.cast(tf.constant(arr), tf.bfloat16)
    return tf.constant(arr)


def make_variable(tf: Any, spec: dict) -> Any:
    """A variable from a `{"var": data, "dtype": d, ...}` spec."""
    kwargs: dict = {"name": spec.get("name", "v")}
    if "shape" in spec:
        kwargs["shape"] = build(tf, spec["shape"])
    if "trainable" in spec:
        kwargs["trainable"] = spec["trainable"]
    value = _tensor(tf, spec) if spec.get("dtype") == "bfloat16" else _np_array(spec)
    return tf.Variable(value, **kwargs)


def build(tf: Any, spec: Any) -> Any:
    """The object a value spec describes, made with module `tf` (see gen_core's schema)."""
    if isinstance(spec, list):
        return [build(tf, s) for s in spec]
    if not isinstance(spec, dict):
        return spec
    if "np" in spec:
        return _np_array(spec)
    if "npscalar" in spec:
        return np.dtype(spec["dtype"]).type(spec["npscalar"])
    if "tensor" in spec:
        return _tensor(tf, spec)
    if "var" in spec:
        return make_variable(tf, spec)
    if "complex" in spec:
        return complex(*spec["complex"])
    if "float" in spec:
        return float(spec["float"])
    if "tuple" in spec:
        return tuple(build(tf, s) for s in spec["tuple"])
    if "list" in spec:
        return [build(tf, s) for s in spec["list"]]
    if "slice" in spec:
        return slice(*(build(tf, s) for s in spec["slice"]))
    if "ellipsis" in spec:
        return Ellipsis
    if "newaxis" in spec:
        return tf.newaxis
    if "islices" in spec:
        parts = spec["islices"]
        dense_shape = parts.get("dense_shape")
        return tf.IndexedSlices(build(tf, parts["values"]), build(tf, parts["indices"]),
                                None if dense_shape is None else build(tf, dense_shape))
    if "shape" in spec:
        return tf.TensorShape(spec["shape"])
    if "tfdtype" in spec:
        return getattr(tf, spec["tfdtype"])
    if "nptype" in spec:
        return np.dtype(spec["nptype"]).type
    if "npdtype" in spec:
        return np.dtype(spec["npdtype"])
    if "pytype" in spec:
        return {"int": int, "float": float, "bool": bool, "complex": complex}[spec["pytype"]]
    raise ValueError(f"unknown value spec {spec!r}")


# --------------------------------------------------------------------------
# Results -> JSON
# --------------------------------------------------------------------------

def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor (tfcompat)
        x = x.detach().cpu()
        if str(x.dtype) == "torch.bfloat16":
            x = x.float()
        return np.asarray(x.resolve_conj().resolve_neg().numpy())
    a = np.asarray(x.numpy())
    if a.dtype.name == "bfloat16":
        a = a.astype(np.float32)
    return a


def array_json(a: np.ndarray) -> Any:
    """Nested lists; floats as float64 (exact for float16/32), complex as {re, im}."""
    a = np.asarray(a)
    if a.dtype.kind == "c":
        return {"re": a.real.astype(np.float64).tolist(), "im": a.imag.astype(np.float64).tolist()}
    if a.dtype.kind == "f":
        return a.astype(np.float64).tolist()
    if a.dtype.kind == "O":
        return repr(a)
    return a.tolist()


def _dims(shape: Any) -> Any:
    return None if shape.rank is None else list(shape.as_list())


def encode(tf: Any, x: Any) -> Any:
    """JSON for a result of either runtime (the replay compares these with `same`)."""
    if isinstance(x, Err):
        return x.json()
    if x is None:
        return {"type": "none"}
    if isinstance(x, tf.Variable):
        return {"type": "variable", "dtype": x.dtype.name, "shape": _dims(x.shape),
                "value": array_json(_to_numpy(x.read_value()))}
    out = encode_common(tf, x, encode)
    return out if out is not None else {"type": "other", "repr": f"{type(x).__name__}"}


def encode_common(tf: Any, x: Any, encode: Callable[[Any, Any], Any]) -> Any:
    """JSON for the values every golden suite records (slices, shapes, dtypes, tensors, numpy
    and Python values, containers, with `encode` for their items), or None for anything else."""
    if isinstance(x, tf.IndexedSlices):
        return {"type": "indexed_slices", "values": encode(tf, x.values),
                "indices": encode(tf, x.indices),
                "dense_shape": encode(tf, x.dense_shape)}
    if isinstance(x, tf.TensorShape):
        return {"type": "shape", "dims": _dims(x)}
    if isinstance(x, tf.DType):
        return {"type": "dtype", "name": x.name}
    if not isinstance(x, (np.ndarray, np.generic)) and tf.is_tensor(x):
        a = _to_numpy(x)
        return {"type": "tensor", "dtype": tf.as_dtype(x.dtype).name, "shape": list(a.shape),
                "value": array_json(a)}
    if isinstance(x, np.ndarray):
        return {"type": "ndarray", "dtype": x.dtype.name, "shape": list(x.shape),
                "value": array_json(x)}
    if isinstance(x, np.generic):
        return {"type": "npscalar", "dtype": x.dtype.name, "value": array_json(np.asarray(x))}
    if isinstance(x, (bool, int, float, str)):
        return {"type": type(x).__name__, "value": x}
    if isinstance(x, (list, tuple)):
        return {"type": type(x).__name__ if type(x) in (list, tuple) else "tuple",
                "items": [encode(tf, i) for i in x]}
    if isinstance(x, dict):
        return {"type": "dict", "items": {str(k): encode(tf, v) for k, v in x.items()}}
    return None


def same(a: Any, b: Any) -> bool:
    """Exact structural equality of encoded results (NaN equals NaN, bool is not int)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


# --------------------------------------------------------------------------
# Case runners (one per fixture section)
# --------------------------------------------------------------------------

def _kwargs(tf: Any, spec: dict) -> dict:
    return {k: build(tf, v) for k, v in (spec or {}).items()}


CONVERSIONS: dict = {
    "convert_to_tensor": lambda tf, *a, **k: tf.convert_to_tensor(*a, **k),
    "constant": lambda tf, *a, **k: tf.constant(*a, **k),
}


def run_conversion(tf: Any, case: dict) -> dict:
    args = [build(tf, a) for a in case["args"]]
    fn = CONVERSIONS[case["fn"]]
    return {"result": encode(tf, attempt(fn, tf, *args, **_kwargs(tf, case.get("kwargs"))))}


_BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "matmul": operator.matmul,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
    "eq": operator.eq, "ne": operator.ne,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
}
_UNARY = {"neg": operator.neg, "abs": operator.abs, "invert": operator.invert}


def _op_table() -> dict:
    ops: dict = {}
    for name, fn in _BINARY.items():
        ops["fwd:" + name] = (lambda f: lambda tf, v, x: f(v, x))(fn)
        ops["rev:" + name] = (lambda f: lambda tf, v, x: f(x, v))(fn)
    for name, fn in _UNARY.items():
        ops[name] = (lambda f: lambda tf, v: f(v))(fn)
    ops.update({
        "getitem": lambda tf, v, key: v[key],
        "slice_assign": lambda tf, v, key, x: v[key].assign(x),
        "assign": lambda tf, v, x: v.assign(x),
        "assign_noread": lambda tf, v, x: v.assign(x, read_value=False),
        "assign_add": lambda tf, v, x: v.assign_add(x),
        "assign_sub": lambda tf, v, x: v.assign_sub(x),
        "assign_add_noread": lambda tf, v, x: v.assign_add(x, read_value=False),
        "sparse_read": lambda tf, v, idx: v.sparse_read(idx),
        "gather_nd": lambda tf, v, idx: v.gather_nd(idx),
        "scatter_nd_update": lambda tf, v, idx, upd: v.scatter_nd_update(idx, upd),
        "scatter_nd_add": lambda tf, v, idx, upd: v.scatter_nd_add(idx, upd),
        "scatter_nd_sub": lambda tf, v, idx, upd: v.scatter_nd_sub(idx, upd),
        "batch_scatter_update": lambda tf, v, s: v.batch_scatter_update(s),
        "count_up_to": lambda tf, v, limit: v.count_up_to(limit),
        "repr": lambda tf, v: repr(v),
        "str": lambda tf, v: str(v),
        "numpy": lambda tf, v: v.numpy(),
        "shape": lambda tf, v: v.shape,
        "dtype": lambda tf, v: v.dtype,
        "name": lambda tf, v: v.name,
        "convert": lambda tf, v, *dt: tf.convert_to_tensor(v, *dt),
    })
    for kind in ("update", "add", "sub", "mul", "div", "min", "max"):
        ops["scatter_" + kind] = (lambda k: lambda tf, v, s: getattr(v, "scatter_" + k)(s))(kind)
    return ops


VAR_OPS: dict = _op_table()


def run_var_op(tf: Any, case: dict) -> dict:
    """Make the variable, apply `case["op"]` to it, record the result and the value after."""
    var = make_variable(tf, case["var"])
    args = [build(tf, a) for a in case.get("args", [])]
    result = attempt(VAR_OPS[case["op"]], tf, var, *args)
    out = {"result": encode(tf, result)}
    if case.get("record_after", True):
        out["after"] = array_json(_to_numpy(var.read_value()))
    return out


def _plain(x: Any) -> Any:
    """numpy scalars (TF's DType.min/max) as Python numbers; tuples of them likewise."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return tuple(_plain(i) for i in x)
    return x


DTYPE_PROPS = ("name", "size", "min", "max", "limits", "is_floating", "is_integer",
               "is_complex", "is_unsigned", "is_bool", "is_numpy_compatible",
               "as_datatype_enum", "real_dtype", "base_dtype", "as_numpy_dtype", "str", "repr")


def _dtype_prop(tf: Any, d: Any, prop: str) -> Any:
    if prop == "str":
        return str(d)
    if prop == "repr":
        return repr(d)
    if prop == "as_numpy_dtype":
        return np.dtype(d.as_numpy_dtype).name
    return _plain(getattr(d, prop))


def run_dtype(tf: Any, case: dict) -> dict:
    """`props`: DType properties; `as_dtype`: conversion; `eq`/`ne`: comparisons."""
    kind = case["kind"]
    if kind == "props":
        d = getattr(tf, case["dtype"])
        return {"result": {p: encode(tf, attempt(_dtype_prop, tf, d, p)) for p in DTYPE_PROPS}}
    arg = build(tf, case["arg"])
    if kind == "as_dtype":
        return {"result": encode(tf, attempt(tf.as_dtype, arg))}
    d = getattr(tf, case["dtype"])
    fn = operator.eq if kind == "eq" else operator.ne
    return {"result": encode(tf, attempt(fn, d, arg))}


_SHAPE_OPS: dict = {
    "str": lambda s: str(s),
    "repr": lambda s: repr(s),
    "as_list": lambda s: s.as_list(),
    "rank": lambda s: s.rank,
    "ndims": lambda s: s.ndims,
    "len": lambda s: len(s),
    "num_elements": lambda s: s.num_elements(),
    "is_fully_defined": lambda s: s.is_fully_defined(),
    "is_compatible_with": lambda s, o: s.is_compatible_with(o),
    "merge_with": lambda s, o: s.merge_with(o),
    "concatenate": lambda s, o: s.concatenate(o),
    "most_specific_compatible_shape": lambda s, o: s.most_specific_compatible_shape(o),
    "eq": lambda s, o: s == o,
    "ne": lambda s, o: s != o,
    "getitem": lambda s, k: s[k],
    "with_rank": lambda s, r: s.with_rank(r),
    "assert_is_compatible_with": lambda s, o: s.assert_is_compatible_with(o),
    "new": lambda s: s,
}


def run_shape(tf: Any, case: dict) -> dict:
    """A TensorShape method on `TensorShape(case["dims"])` with built args."""
    shape = attempt(tf.TensorShape, build(tf, case["dims"]))
    if isinstance(shape, Err):
        return {"result": encode(tf, shape)}
    args = [build(tf, a) for a in case.get("args", [])]
    return {"result": encode(tf, attempt(_SHAPE_OPS[case["op"]], shape, *args))}


def run_program(tf: Any, case: dict) -> dict:
    """A gradient program by name: a dict of named results."""
    return {"result": encode(tf, attempt(PROGRAMS[case["program"]], tf))}


def conversion_kwargs(variant: str) -> dict:
    """Keyword arguments of a grouped conversion case: `-`, a dtype name, or `hint=NAME`."""
    if variant == "-":
        return {}
    if variant.startswith("hint="):
        return {"dtype_hint": {"tfdtype": variant[len("hint="):]}}
    return {"dtype": {"tfdtype": variant}}


def expand_group(section: dict, group: dict, variant: str) -> dict:
    """The flat case for one result of a group (groups keep the fixture small).

    `var_ops` groups are `{"var": KEY, "op": OP, "results": {OPERAND: R}}`
    (`KEY` indexes `section["vars"]`, `OPERAND` `section["operands"][KEY]`,
    `-` means no operand); `conversion` groups are `{"fn": FN, "value": NAME,
    "results": {VARIANT: R}}` (`NAME` indexes `section["values"]`).
    """
    runner = section["runner"]
    if runner == "var_ops":
        key = group["var"]
        args = [] if variant == "-" else [section["operands"][key][variant]]
        return {"id": f"{key}/{group['op']}/{variant}", "var": section["vars"][key],
                "op": group["op"], "args": args, "record_after": False}
    if runner == "conversion":
        return {"id": f"{group['fn']}/{group['value']}/{variant}", "fn": group["fn"],
                "args": [section["values"][group["value"]]], "kwargs": conversion_kwargs(variant)}
    raise ValueError(f"section runner {runner!r} has no groups")


def expand(section: dict) -> list:
    """Every case of a fixture section, flat, each with its expected `result`."""
    cases = []
    for group in section.get("groups", ()):
        for variant, result in group["results"].items():
            case = expand_group(section, group, variant)
            case["result"] = result
            cases.append(case)
    cases.extend(section.get("cases", ()))
    return cases


RUNNERS: dict = {
    "conversion": run_conversion,
    "var_ops": run_var_op,
    "slicing": run_var_op,
    "assign": run_var_op,
    "scatter": run_var_op,
    "repr": run_var_op,
    "dtypes": run_dtype,
    "tensor_shape": run_shape,
    "gradients": run_program,
}


# --------------------------------------------------------------------------
# Gradient programs
# --------------------------------------------------------------------------
#
# Each program takes the module and returns a dict of named results. They
# use only operators and the API both runtimes have; a program that needs a
# `tf.*` op tfcompat may not have yet lists it in PROGRAM_REQUIRES (the
# replay skips it, naming the op, until the op exists).

PROGRAMS: dict = {}
PROGRAM_REQUIRES: dict = {}


def program(*requires: str) -> Callable:
    def register(fn: Callable) -> Callable:
        PROGRAMS[fn.__name__] = fn
        if requires:
            PROGRAM_REQUIRES[fn.__name__] = tuple(requires)
        return fn
    return register


def _f32(tf: Any, x: Any) -> Any:
    return tf.constant(np.array(x, dtype=np.float32))


@program()
def dense_square(tf):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = v * v
    return {"y": y, "grad": tape.gradient(y, v)}


@program()
def dense_float64(tf):
    v = tf.Variable(np.array([0.5, -1.5], dtype=np.float64), name="v")
    with tf.GradientTape() as tape:
        y = v * v * v - v
    return {"grad": tape.gradient(y, v)}


@program()
def dense_float16(tf):
    v = tf.Variable(np.array([0.5, -1.5, 2.0], dtype=np.float16), name="v")
    with tf.GradientTape() as tape:
        y = v * v * 3.0
    return {"grad": tape.gradient(y, v)}


@program()
def matmul_weights(tf):
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    x = _f32(tf, [[1.0, -2.0], [0.5, 3.0]])
    with tf.GradientTape() as tape:
        y = tf.matmul(x, w)
    return {"y": y, "grad": tape.gradient(y, w)}


@program()
def two_variables_list(tf):
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable([3.0, -1.0], name="b")
    with tf.GradientTape() as tape:
        y = a * b + a
    return {"grads": tape.gradient(y, [a, b])}


@program()
def nested_sources_dict(tf):
    a = tf.Variable([1.0, 2.0], name="a")
    b = tf.Variable(3.0, name="b")
    with tf.GradientTape() as tape:
        y = a * b
    return {"grads": tape.gradient(y, {"x": a, "y": [b, a]})}


@program()
def sparse_read_rows(tf):
    v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="v")
    with tf.GradientTape() as tape:
        rows = v.sparse_read([2, 0, 2])
        y = rows * _f32(tf, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return {"rows": rows, "grad": tape.gradient(y, v)}


@program()
def sparse_read_2d_indices(tf):
    v = tf.Variable([10.0, 20.0, 30.0], name="v")
    with tf.GradientTape() as tape:
        rows = v.sparse_read([[0, 1], [1, 2]])
        y = rows * rows
    return {"rows": rows, "grad": tape.gradient(y, v)}


@program()
def sparse_read_twice(tf):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="v")
    with tf.GradientTape() as tape:
        y = v.sparse_read([1]) * 2.0 + v.sparse_read([2]) * 3.0
    return {"grad": tape.gradient(y, v)}


@program()
def sparse_and_dense_reads(tf):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = v.sparse_read([0, 0]) * 5.0
        z = v * 2.0
    return {"grad": tape.gradient([y, z], v)}


@program("gather")
def gather_variable(tf):
    v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), name="v")
    with tf.GradientTape() as tape:
        rows = tf.gather(v, [3, 1, 3])
        y = rows * 2.0
    return {"rows": rows, "grad": tape.gradient(y, v)}


@program("gather")
def gather_of_dense_read(tf):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = tf.gather(v * 1.0, [2, 2])
    return {"grad": tape.gradient(y, v)}


@program()
def gather_nd_variable(tf):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    with tf.GradientTape() as tape:
        y = v.gather_nd([[0, 1], [1, 2], [0, 1]]) * 3.0
    return {"y": y, "grad": tape.gradient(y, v)}


@program()
def slice_read(tf):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0], name="v")
    with tf.GradientTape() as tape:
        y = v[1:3] * 2.0 + v[::-2] * 10.0
    return {"grad": tape.gradient(y, v)}


@program()
def reads_between_assigns(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        a = v * 3.0
        v.assign([10.0, 20.0])
        b = v * v
        y = a + b
    return {"y": y, "grad": tape.gradient(y, v), "v": v}


@program()
def read_then_assign_add(tf):
    v = tf.Variable([1.0, -1.0], name="v")
    with tf.GradientTape() as tape:
        a = v * v
        v.assign_add([1.0, 1.0])
        b = v * 4.0
        y = a + b
    return {"y": y, "grad": tape.gradient(y, v)}


@program()
def read_before_tape(tf):
    v = tf.Variable([2.0, 3.0], name="v")
    a = v * 2.0
    with tf.GradientTape() as tape:
        y = a * v
    return {"grad": tape.gradient(y, v)}


@program()
def assign_only(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable([5.0, 6.0], name="u")
    with tf.GradientTape() as tape:
        v.assign(u * 2.0)
        y = v * 1.0
    return {"grads": tape.gradient(y, [v, u])}


@program()
def target_is_variable(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        pass
    return {"grad": tape.gradient(v, v)}


@program()
def nested_tapes_second_order(tf):
    x = tf.Variable(3.0, name="x")
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x * x
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    return {"dy": dy, "d2y": d2y}


@program()
def nested_tapes_inner_only(tf):
    x = tf.Variable(2.0, name="x")
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x * x
        g_inner = inner.gradient(y, x)
        z = y * x
    return {"inner": g_inner, "outer": outer.gradient(z, x)}


@program()
def jacobian_elementwise(tf):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = v * v
    return {"jac": tape.jacobian(y, v)}


@program()
def jacobian_matmul(tf):
    w = tf.Variable(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32), name="w")
    x = _f32(tf, [[1.0, -1.0]])
    with tf.GradientTape() as tape:
        y = tf.matmul(x, w)
    return {"jac": tape.jacobian(y, w)}


@program()
def jacobian_unconnected(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable([3.0, 4.0, 5.0], name="u")
    with tf.GradientTape(persistent=True) as tape:
        y = v * 2.0
    return {"none": tape.jacobian(y, u),
            "zero": tape.jacobian(y, u, unconnected_gradients=tf.UnconnectedGradients.ZERO)}


@program()
def batch_jacobian_watched(tf):
    x = _f32(tf, [[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    return {"bj": tape.batch_jacobian(y, x)}


@program()
def unconnected_none_and_zero(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable([[3.0, 4.0]], name="u")
    with tf.GradientTape(persistent=True) as tape:
        y = v * 2.0
    return {"none": tape.gradient(y, [v, u]),
            "zero": tape.gradient(y, [v, u], unconnected_gradients=tf.UnconnectedGradients.ZERO),
            "zero_str": tape.gradient(y, u, unconnected_gradients="zero")}


@program()
def non_trainable(tf):
    v = tf.Variable([1.0, 2.0], trainable=False, name="v")
    with tf.GradientTape() as tape:
        y = v * v
    with tf.GradientTape() as tape2:
        tape2.watch(v)
        y2 = v * v
    return {"unwatched": tape.gradient(y, v), "watched": tape2.gradient(y2, v)}


@program()
def watch_accessed_false(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    u = tf.Variable([3.0, 4.0], name="u")
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(u)
        y = v * u
    return {"grads": tape.gradient(y, [v, u]),
            "watched": [x.name for x in tape.watched_variables()]}


@program()
def watched_variables_order(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(2.0, name="b")
    c = tf.Variable(3.0, name="c", trainable=False)
    with tf.GradientTape() as tape:
        y = b * a * c
    return {"watched": [x.name for x in tape.watched_variables()]}


@program()
def integer_variable(tf):
    v = tf.Variable([1, 2], name="v")
    f = tf.Variable([1.0, 2.0], name="f")
    with tf.GradientTape() as tape:
        y = tf.cast(v, tf.float32) * f
    return {"grads": tape.gradient(y, [v, f])}


@program()
def watch_constant(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    return {"grad": tape.gradient(y, x)}


@program()
def unwatched_constant(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        y = x * x
    return {"grad": tape.gradient(y, x)}


@program()
def persistent_twice(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape(persistent=True) as tape:
        y = v * v
        z = v * 3.0
    return {"gy": tape.gradient(y, v), "gz": tape.gradient(z, v), "gy2": tape.gradient(y, v)}


@program()
def non_persistent_twice(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        y = v * v
    first = tape.gradient(y, v)
    second = attempt(tape.gradient, y, v)
    return {"first": first, "second": second}


@program()
def stop_gradient_product(tf):
    v = tf.Variable([2.0, -3.0], name="v")
    with tf.GradientTape() as tape:
        y = v * tf.stop_gradient(v)
    return {"grad": tape.gradient(y, v)}


@program()
def stop_recording(tf):
    v = tf.Variable([2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        a = v * 2.0
        with tape.stop_recording():
            b = v * 100.0
        y = a + b
    return {"grad": tape.gradient(y, v)}


@program()
def output_gradients(tf):
    v = tf.Variable([1.0, 2.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = v * v
    return {"grad": tape.gradient(y, v, output_gradients=_f32(tf, [1.0, 0.0, -2.0]))}


@program()
def multiple_targets(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        y1 = v * v
        y2 = v * 10.0
    return {"grad": tape.gradient([y1, y2], v)}


@program()
def cast_to_float64(tf):
    v = tf.Variable([1.5, 2.5], name="v")
    with tf.GradientTape() as tape:
        y = tf.cast(v, tf.float64) * tf.constant(np.array([2.0, 4.0]))
    return {"grad": tape.gradient(y, v)}


@program()
def maximum_minimum(tf):
    v = tf.Variable([1.0, 5.0, 3.0], name="v")
    with tf.GradientTape() as tape:
        y = tf.maximum(v, 2.0) + tf.minimum(v, 4.0) * 10.0
    return {"grad": tape.gradient(y, v)}


@program()
def division_and_pow(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        y = 1.0 / v + v ** 3.0 + v / 4.0
    return {"grad": tape.gradient(y, v)}


@program()
def reset_tape(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.GradientTape() as tape:
        y = v * 100.0
        tape.reset()
        y = v * v
    return {"grad": tape.gradient(y, v)}


@program()
def count_up_to_sequence(tf):
    v = tf.Variable(0, name="counter")
    out = [attempt(v.count_up_to, 2) for _ in range(3)]
    return {"returns": out, "final": v}


@program()
def count_up_to_int64(tf):
    v = tf.Variable(np.int64(5), name="counter")
    return {"first": v.count_up_to(7), "after": v}


@program()
def assign_returns_and_snapshots(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    snap = v.read_value()
    v.assign_add([1.0, 1.0])
    r = v.assign([7.0, 8.0])
    return {"snap": snap, "ret": r, "now": v, "none": v.assign([0.0, 0.0], read_value=False)}


@program()
def stop_recording_inner_outer_keeps(tf):
    v = tf.Variable([2.0, 3.0], name="v")
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            a = v * 2.0
            with inner.stop_recording():
                b = v * v
            c = a + 1.0
    return {"outer_b": outer.gradient(b, v), "inner_b": inner.gradient(b, v),
            "outer_c": outer.gradient(c, v), "inner_c": inner.gradient(c, v),
            "inner_watched": [x.name for x in inner.watched_variables()],
            "outer_watched": [x.name for x in outer.watched_variables()]}


@program()
def stop_recording_outer_inner_keeps(tf):
    v = tf.Variable(3.0, name="v")
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            with outer.stop_recording():
                b = v * v
    return {"outer": outer.gradient(b, v), "inner": inner.gradient(b, v)}


@program()
def stop_recording_nested_blocks(tf):
    v = tf.Variable(2.0, name="v")
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            with inner.stop_recording():
                with outer.stop_recording():
                    a = v * 10.0
                b = v * v * v
            c = v * 5.0
    return {"outer_a": outer.gradient(a, v), "inner_a": inner.gradient(a, v),
            "outer_b": outer.gradient(b, v), "inner_b": inner.gradient(b, v),
            "outer_c": outer.gradient(c, v), "inner_c": inner.gradient(c, v)}


@program()
def stop_recording_then_resume(tf):
    v = tf.Variable(2.0, name="v")
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            a = v * 7.0
        b = v * v
        y = a + b
    return {"grad": tape.gradient(y, v)}


@program()
def init_scope_pauses_every_tape(tf):
    v = tf.Variable(3.0, name="v")
    w = tf.Variable(4.0, name="w")
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            with tf.init_scope():
                a = v * v
            b = w * 2.0
    return {"outer_a": outer.gradient(a, v), "inner_a": inner.gradient(a, v),
            "outer_b": outer.gradient(b, w), "inner_b": inner.gradient(b, w),
            "inner_watched": [x.name for x in inner.watched_variables()],
            "outer_watched": [x.name for x in outer.watched_variables()]}


@program()
def init_scope_variable_creation(tf):
    v = tf.Variable(2.0, name="v")
    with tf.GradientTape(persistent=True) as tape:
        with tf.init_scope():
            u = tf.Variable(v * 3.0, name="u")
        y = u * v
        w = tf.Variable(lambda: v * 5.0, name="w")
        z = w * 1.0
    return {"y_v": tape.gradient(y, v), "y_u": tape.gradient(y, u), "z_v": tape.gradient(z, v),
            "z_w": tape.gradient(z, w), "u": u, "w": w,
            "watched": [x.name for x in tape.watched_variables()]}


@program()
def watch_does_not_outlive_the_tape(tf):
    x = tf.constant(2.0)
    with tf.GradientTape() as first:
        first.watch(x)
        y = x * x
    with tf.GradientTape() as second:
        z = x * x * x
    return {"first": first.gradient(y, x), "second": second.gradient(z, x)}


@program()
def watch_in_outer_tape_only(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape(persistent=True) as inner:
            y = x * x
    return {"outer": outer.gradient(y, x), "inner": inner.gradient(y, x)}


@program()
def watch_in_inner_tape_only(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as outer:
        with tf.GradientTape(persistent=True) as inner:
            inner.watch(x)
            y = x * x
        z = y * x
    return {"outer_y": outer.gradient(y, x), "inner_y": inner.gradient(y, x),
            "outer_z": outer.gradient(z, x)}
