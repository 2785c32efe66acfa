"""Generate the core-runtime golden fixture from real TensorFlow.

Run (needs TensorFlow 2.21, NOT the project venv)::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/bin/python tests/conformance/gen_core.py

It writes ``tests/conformance/fixtures/core.json``. Every case is executed by
the shared code in ``programs.py`` with ``tensorflow`` as the module; the
replay (``test_core_golden.py``) runs the same code with ``tfcompat`` and
compares. The output is deterministic: all inputs are literals in this file
(no randomness), the script re-executes itself with ``PYTHONHASHSEED=0``,
and everything runs TF eager on the CPU.

Number encoding
---------------
As ``gen_optimizers.py``: every float is written as the float64 ``repr`` of
the value (float16/float32/bfloat16 values are exact); NaN and infinities use
Python's JSON extension (``NaN``, ``Infinity``); arrays are nested lists (a
0-d value is a bare number); complex arrays are ``{"re": ..., "im": ...}``.

Value specs (inputs; decoded by ``programs.build(tf, spec)``)
-------------------------------------------------------------
* a JSON number / bool / null: that Python value (``1`` is an int, ``1.0`` a
  float); a JSON list: a Python list of decoded specs;
* ``{"np": DATA, "dtype": D}``: ``np.array(DATA, dtype=D)`` (``"imag"``: add
  ``1j * imag``); ``{"npscalar": X, "dtype": D}``: ``np.dtype(D).type(X)``;
* ``{"tensor": DATA, "dtype": D}``: ``tf.constant(np.array(DATA, D))``
  (bfloat16 via ``tf.cast`` of a float32 tensor);
* ``{"var": DATA, "dtype": D, "name"?, "shape"?: SPEC, "trainable"?}``:
  ``tf.Variable(np.array(DATA, D), name=name or "v", ...)``;
* ``{"complex": [re, im]}``, ``{"float": "nan" | "inf" | "-inf"}``;
* ``{"tuple": [SPEC, ...]}``, ``{"list": [SPEC, ...]}``;
* ``{"slice": [start, stop, step]}`` (each a spec), ``{"ellipsis": 1}``,
  ``{"newaxis": 1}`` (``tf.newaxis``);
* ``{"islices": {"values": SPEC, "indices": SPEC, "dense_shape": SPEC|null}}``:
  ``tf.IndexedSlices``;
* ``{"shape": DIMS | null}``: ``tf.TensorShape``; ``{"tfdtype": "int32"}``:
  ``tf.int32``; ``{"nptype": "float32"}``: ``np.float32``;
  ``{"npdtype": "float32"}``: ``np.dtype("float32")``;
  ``{"pytype": "int" | "float" | "bool" | "complex"}``: the Python type.

Results (encoded by ``programs.encode(tf, x)``)
-----------------------------------------------
* ``{"type": "tensor", "dtype": NAME, "shape": [...], "value": DATA}``;
* ``{"type": "variable", "dtype", "shape": DECLARED_DIMS | null, "value"}``
  (what ``assign`` & co. return: the variable);
* ``{"type": "indexed_slices", "values": R, "indices": R, "dense_shape": R}``;
* ``{"type": "none"}``, ``{"type": "bool" | "int" | "float" | "str",
  "value": X}``, ``{"type": "list" | "tuple", "items": [R, ...]}``,
  ``{"type": "dict", "items": {k: R}}``, ``{"type": "shape", "dims": ...}``,
  ``{"type": "dtype", "name": ...}``, ``{"type": "ndarray" | "npscalar", ...}``;
* an exception: ``{"error": CLASS_NAME, "message": MSG, "key": PHRASE | null}``.
  ``MSG`` is TF's message without TF-internal noise (``{{function_node ...}}``,
  ``[Op:...]``, ``node name:``); ``PHRASE`` is the part of it tfcompat is
  expected to reproduce verbatim (chosen by ``KEY_PATTERNS`` below), null
  when only the class is checked.

core.json
---------
::

    {"generator": "tests/conformance/gen_core.py",
     "versions": {"tensorflow": ..., "numpy": ...},
     "sections": {SECTION: {"runner": SECTION, "cases": [CASE, ...],
                            "groups": [GROUP, ...], ...tables}, ...}}

``programs.expand(section)`` gives every case of a section as a flat CASE
(input fields plus ``"result"``, and ``"after"`` for variable operations:
the variable's value afterwards as DATA, absent where the case sets
``"record_after": false``). Each CASE is run by
``programs.RUNNERS[section["runner"]](tf, case)``, which returns
``{"result": R, "after"?: DATA}``; the replay compares that with the
stored output.

To keep the file small, the two big sections store *groups* that share
their inputs, with one result per variant (``programs.expand_group``):

* ``conversion``: ``"values": {NAME: SPEC}`` and groups ``{"fn":
  "convert_to_tensor" | "constant", "value": NAME, "results": {VARIANT: R}}``
  where ``VARIANT`` is ``-`` (no kwargs), a dtype name (``dtype=``) or
  ``hint=NAME`` (``dtype_hint=``); flat ``"cases"`` add ``{"id", "fn",
  "args": [SPEC], "kwargs": {name: SPEC}}`` (dtype as a string or numpy
  type, ``shape=``);
* ``var_ops``: operators on variables, never writing. ``"vars": {KEY:
  VARSPEC}``, ``"operands": {KEY: {NAME: SPEC}}`` and groups ``{"var": KEY,
  "op": OP, "results": {NAME | "-": R}}``; ``OP`` is ``fwd:<op>`` (``v <op>
  x``), ``rev:<op>`` (``x <op> v``) or a unary op (``neg``, ``abs``,
  ``invert``; no operand: ``-``);

and the other sections are flat ``"cases"``:

* ``slicing``, ``assign``, ``scatter``, ``repr``: ``{"id", "var": VARSPEC,
  "op": OP, "args": [SPEC, ...], "record_after"?}``, ``OP`` a key of
  ``programs.VAR_OPS`` (``getitem``, ``slice_assign``, ``assign*``,
  ``scatter_*``, ``sparse_read``, ``gather_nd``, ``count_up_to``, ``repr``...);
* ``dtypes``: ``{"id", "kind": "props", "dtype": NAME}`` (result: a dict of
  encoded properties, ``programs.DTYPE_PROPS``; ``min``/``max``/``limits`` as
  Python numbers) or ``{"id", "kind": "as_dtype" | "eq" | "ne", "dtype"?,
  "arg": SPEC}``;
* ``tensor_shape``: ``{"id", "dims": SPEC, "op": NAME, "args": [SPEC]}``
  (``programs._SHAPE_OPS``);
* ``gradients``: ``{"id", "program": NAME, "requires": [TF_OP, ...]}``; the
  result is the program's dict of named results (``programs.PROGRAMS``).

Deliberate omissions: float -> int casts of out-of-range NumPy values
(undefined behaviour in C++), ``v[k].assign(x, read_value=False)`` (TF has no
such argument; tfcompat accepts it), the variable's value after a scatter
with an out-of-range index (TF's CPU kernel has already applied the earlier
rows; tfcompat validates first and writes nothing), string tensors.
"""

from __future__ import annotations

import json
import os
import re
import warnings

import generator_env  # noqa: E402  (a sibling: the script's folder is sys.path[0])

generator_env.prepare()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tests.conformance import programs  # noqa: E402

FIXTURES = generator_env.FIXTURES

# --------------------------------------------------------------------------
# Key phrases: the part of TF's message tfcompat must reproduce verbatim.
# The first pattern that matches wins; its match (group 0) is the key.
# --------------------------------------------------------------------------

KEY_PATTERNS = [
    r"Shape mismatch",
    r"shapes must be equal",
    r"indices\[\d+\] = -?\d+ is not in \[0, \d+\)",
    r"indices\[\d+\] = \[[-\d, ]+\] does not index into param shape \[[\d, ]*\]",
    r"Cannot convert .+ to EagerTensor of dtype \w+",
    r"was expected to be a \w+ tensor but is a \w+ tensor",
    r"Tensor conversion requested dtype \w+ for Tensor with dtype \w+",
    r"Incompatible type conversion requested to type \w+",
    r"slice index -?\d+ of dimension \d+ out of bounds",
    r"Cannot broadcast input shape \[[\d, ]*\] into final shape \[[\d, ]*\]",
    r"Can't convert Python sequence with out-of-range integer to Tensor",
    r"Can't convert Python sequence with mixed types to Tensor",
    r"Can't convert non-rectangular Python sequence to Tensor",
    r"Integers to negative integer powers are not allowed",
    r"Integer division by zero",
    r"Value for attr 'T\w*' of \w+ is not in the list of allowed values",
    r"Cannot find (minimum|maximum) value of",
    r"Expected tensor .+ with dtype tf\.\w+, but got dtype tf\.\w+",
    r"Eager execution of tf\.constant with unsupported shape",
    r"`x` and `y` must have the same dtype",
    r"Invalid dtype tf\.\w+ in __\w+__",
    r"Reached limit of \d+",
    r"Index out of range using input dim \d+",
    r"Multiple ellipses in slice spec not allowed",
    r"Only integers, slices",
    r"Attempt to convert a value \(None\) with an unsupported type",
    r"Cannot convert the argument `type_value`",
    r"Dimension value must be integer or None",
    r"Dimension -?\d+ must be >= 0",
    r"as_list\(\) is not defined on an unknown TensorShape",
    r"Cannot take the length of shape with unknown rank",
    r"are not compatible",
    r"are incompatible",
    r"must have rank \d+",
    r"A non-persistent GradientTape can only be used to compute one set of gradients",
    r"must be a `tf.IndexedSlices`",
    r"input is not a scalar",
    r"object has no attribute 'assign'",
    r"must match dimensions \[\d+,\d+\) of updates\[shape=\[[\d,]*\]\]",
    r"updates\.shape",
    r"strides\[\d+\] must be non-zero",
    r"Shapes of all inputs must match",
    r"Incompatible tensor conversion requested to `dtype` \w+ for IndexedSlices",
    r"with an unsupported type",
    r"Can't convert Python sequence with a value out of range for a double-precision float",
    r"indices\[[\d,]+\] = \[[-\d, ]+\] does not index into shape \[[\d,]*\]",
    r"params must be at least 1 dimensional",
    r"Attempting to slice scalar input",
    r"In\[\d\] ndims must be >= 2",
    r"mask cannot be scalar",
    r"does not have defined limits",
    r"Incompatible shapes: \[[\d,]*\] vs. \[[\d,]*\]",
    r"Matrix size-incompatible",
    r"Scalar tensor has no `len\(\)`",
    r"has no attribute '\w+'",
    r"has different ndims",
    r"No OpKernel was registered to support Op '\w+'",
    r"Failed to convert .+ to a shape",
]
_KEY_RES = [re.compile(p) for p in KEY_PATTERNS]
UNMATCHED: list = []


def key_for(message: str) -> str | None:
    for pattern in _KEY_RES:
        m = pattern.search(message)
        if m:
            return m.group(0)
    return None


MAX_MESSAGE = 200


# TF prints uninitialized memory in one message (ScatterNd's updates-shape check).
_GARBAGE = re.compile(r"(of updates\[shape=\[[\d,]*\]\]) = -?\d+")


def add_keys(x, where):
    """Give every encoded error in `x` its key phrase, and cut long messages (in place)."""
    if isinstance(x, dict):
        if "error" in x:
            x["message"] = _GARBAGE.sub(r"\1 = ?", x["message"])
            x["key"] = key_for(x["message"])
            if x["key"] is None:
                UNMATCHED.append((where, x["error"], x["message"]))
            if len(x["message"]) > MAX_MESSAGE:
                x["message"] = x["message"][:MAX_MESSAGE] + "..."
            return
        for v in x.values():
            add_keys(v, where)
    elif isinstance(x, list):
        for v in x:
            add_keys(v, where)


# --------------------------------------------------------------------------
# Spec helpers
# --------------------------------------------------------------------------

def np_(data, dtype):
    return {"np": data, "dtype": dtype}


def npscalar(x, dtype):
    return {"npscalar": x, "dtype": dtype}


def tensor(data, dtype):
    return {"tensor": data, "dtype": dtype}


def var(data, dtype, **kw):
    return dict({"var": data, "dtype": dtype}, **kw)


def tup(*items):
    return {"tuple": list(items)}


def sl(start=None, stop=None, step=None):
    return {"slice": [start, stop, step]}


def islices(values, indices, dense_shape=None):
    return {"islices": {"values": values, "indices": indices, "dense_shape": dense_shape}}


ELL = {"ellipsis": 1}
NEW = {"newaxis": 1}
NAN = {"float": "nan"}
INF = {"float": "inf"}
NINF = {"float": "-inf"}

ALL_DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
              "uint8", "bool", "complex64", "complex128"]
VAR_DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = {"float16", "float32", "float64"}


# --------------------------------------------------------------------------
# conversion
# --------------------------------------------------------------------------

PY_VALUES = {
    "int0": 0, "int1": 1, "int_neg7": -7, "int_neg1": -1, "int300": 300,
    "int32max": 2 ** 31 - 1, "int32max+1": 2 ** 31, "int32min": -2 ** 31,
    "int32min-1": -2 ** 31 - 1, "int64max": 2 ** 63 - 1, "int64max+1": 2 ** 63,
    "int64min": -2 ** 63, "uint64max": 2 ** 64 - 1,
    "float1.5": 1.5, "float-2.75": -2.75, "float-0": -0.0, "float3.0": 3.0, "float1e40": 1e40,
    "float1e-50": 1e-50, "nan": NAN, "inf": INF, "-inf": NINF,
    "true": True, "false": False, "complex": {"complex": [1.0, 2.0]},
    "empty": [], "empty_nested": [[]], "list_int": [1, 2, 3], "list_float": [1.5, 2.5],
    "list_int_float": [1, 2.5], "list_float_int": [2.5, 1], "list_int_bool": [1, True],
    "list_bool_int": [True, 1], "list_bool": [True, False], "list_float_bool": [1.5, True],
    "list_int_complex": [1, {"complex": [0.0, 2.0]}], "ragged": [[1, 2], [3]],
    "nested": [[1, 2], [3, 4]], "nested_mixed": [[1, 2.5], [3, 4]], "list_int32max+1": [2 ** 31, 1],
    "list_int64max+1": [2 ** 63, 1], "list_neg_big": [-2 ** 63, 1],
    "tuple": tup(1, 2), "list_of_tuples": [tup(1, 2), tup(3, 4)],
    "list_none": [1, None], "none": None,
    "list_np_f32_int": [npscalar(1.5, "float32"), 2],
    "list_int_np_f32": [2, npscalar(1.5, "float32")],
    "list_np_i64_int": [npscalar(1, "int64"), 2],
    "list_np_i8": [npscalar(1, "int8"), npscalar(2, "int8")],
    "list_np_f16": [npscalar(0.5, "float16"), npscalar(1.0, "float16")],
    "list_np_f64_f32": [npscalar(0.1, "float64"), npscalar(0.5, "float32")],
    "list_np_bool": [npscalar(True, "bool"), False],
}

NP_VALUES = {
    "np_f16": np_([0.5, -1.25], "float16"), "np_f32": np_([1.5, -2.5], "float32"),
    "np_f64": np_([1.5, -2.5], "float64"), "np_f64_big": np_([1e40, 0.1], "float64"),
    "np_f64_frac": np_([1.7, -1.7, 300.5], "float64"),
    "np_i8": np_([-3, 100], "int8"), "np_i16": np_([-300, 7], "int16"),
    "np_i32": np_([7, -8], "int32"), "np_i64": np_([2 ** 40, -1], "int64"),
    "np_i64_small": np_([3, -1], "int64"), "np_u8": np_([200, 3], "uint8"),
    "np_bool": np_([True, False], "bool"), "np_c64": {"np": [1.0, 2.0], "imag": [0.5, -1.0], "dtype": "complex64"},
    "np_c128": {"np": [1.0], "imag": [3.0], "dtype": "complex128"},
    "np_empty": np_([], "float64"), "np_2d": np_([[1, 2], [3, 4]], "int64"),
    "np_0d_f64": np_(2.5, "float64"), "np_0d_i64": np_(4, "int64"),
    "nps_f32": npscalar(1.5, "float32"), "nps_f64": npscalar(-0.25, "float64"),
    "nps_f16": npscalar(0.5, "float16"), "nps_i8": npscalar(-5, "int8"),
    "nps_i64": npscalar(2 ** 40, "int64"), "nps_u8": npscalar(250, "uint8"),
    "nps_bool": npscalar(True, "bool"),
}

T_I32 = tensor([1, 2], "int32")
T_F32 = tensor([1.5, -2.0], "float32")
TENSOR_VALUES = {
    "t_i32": T_I32, "t_f32": T_F32, "t_f64": tensor([0.5], "float64"),
    "t_i64": tensor([5, 6], "int64"), "t_bool": tensor([True], "bool"),
    "t_u8": tensor([255], "uint8"), "t_f16": tensor([1.0], "float16"),
    "t_scalar_f32": tensor(3.0, "float32"),
    "list_t_t": {"list": [T_F32, T_F32]},
    "list_t_f32_scalars": {"list": [tensor(1.0, "float32"), tensor(2.0, "float32")]},
    "list_t_i32_py": {"list": [tensor(1, "int32"), 2]},
    "list_py_t_i32": {"list": [2, tensor(1, "int32")]},
    "list_py_float_t_i32": {"list": [2.5, tensor(1, "int32")]},
    "list_t_f32_py_int": {"list": [tensor(1.5, "float32"), 2]},
    "list_t_f32_py_float": {"list": [tensor(1.5, "float32"), 2.5]},
    "list_t_i32_t_i64": {"list": [tensor(1, "int32"), tensor(2, "int64")]},
    "list_t_i64_py_big": {"list": [tensor(1, "int64"), 2 ** 40]},
    "list_nested_t": {"list": [{"list": [tensor(1.0, "float32"), tensor(2.0, "float32")]},
                                {"list": [tensor(3.0, "float32"), tensor(4.0, "float32")]}]},
    "list_t_shapes_differ": {"list": [T_F32, tensor([1.0], "float32")]},
    "list_var_py": {"list": [var(1.5, "float32"), 2.0]},
    "var_f32": var([1.5, 2.5], "float32"), "var_i32": var([3, 4], "int32"),
    "islices_dup": islices(tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], "float32"),
                           tensor([0, 2, 0], "int32"), tensor([3, 2], "int32")),
    "islices_i64": islices(tensor([1, 2], "int64"), tensor([1, 1], "int64"),
                           tensor([3], "int64")),
}

DTYPE_HINTS = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool",
               "complex128"]


CONSTANT_PY = ["int1", "int32max+1", "int64max+1", "float1.5", "nan", "true", "complex",
               "list_int_float", "list_int_bool", "empty", "ragged", "list_np_f32_int"]
HINTS = ["float16", "float32", "int32", "int64", "bool"]
UB_CASTS = {"np_f64_big"}  # float -> int casts out of range are undefined behaviour in C++


def conversion_section():
    values = dict(PY_VALUES, **NP_VALUES, **TENSOR_VALUES)
    groups = []
    for fn in ("convert_to_tensor", "constant"):
        for name in values:
            if fn == "constant" and name in PY_VALUES and name not in CONSTANT_PY:
                continue
            variants = ["-"] + ALL_DTYPES
            if name in UB_CASTS:
                variants = [v for v in variants if v in ("-", "float16", "bfloat16", "float32",
                                                         "float64", "complex64", "complex128")]
            if fn == "convert_to_tensor":
                variants += ["hint=" + d for d in HINTS]
            groups.append({"fn": fn, "value": name, "results": {v: None for v in variants}})
    return {"runner": "conversion", "values": values, "groups": groups,
            "cases": conversion_extra_cases(values)}


def conversion_extra_cases(everything):
    cases = []
    # dtype given as a string / numpy type rather than a DType
    for name in ("int1", "list_float", "np_i64_small"):
        for d in ("int64", "float64"):
            cases.append({"id": f"convert_to_tensor/{name}/str:{d}", "fn": "convert_to_tensor",
                          "args": [everything[name]], "kwargs": {"dtype": d}})
            cases.append({"id": f"constant/{name}/nptype:{d}", "fn": "constant",
                          "args": [everything[name]], "kwargs": {"dtype": {"nptype": d}}})
    # shape=
    shape_cases = [
        ("scalar_fill", 7, None, [2, 3]),
        ("scalar_fill_f32", 1.5, None, [2]),
        ("scalar_fill_dtype", 3, "uint8", [2, 2]),
        ("reshape", [1, 2, 3, 4, 5, 6], None, [2, 3]),
        ("reshape_dtype", [1, 2, 3, 4], "float64", [4, 1]),
        ("bad_count", [1, 2, 3], None, [2, 2]),
        ("one_elem_list", [5], None, [3]),
        ("np_reshape", np_([1.5, 2.5, 3.5, 4.5], "float32"), None, [2, 2]),
        ("np_fill", np_(2.0, "float64"), None, [3]),
        ("tensor_reshape", tensor([1, 2, 3, 4], "int32"), None, [2, 2]),
        ("tensor_fill", tensor(9, "int32"), None, [2]),
        ("empty_to_0", [], None, [0]),
        ("shape_obj", 1.0, None, {"shape": [2, 1]}),
        ("tuple_shape", 2, None, tup(1, 2)),
        ("scalar_shape", [4], None, []),
        ("partial_shape", 1, None, [None, 2]),
    ]
    for sid, value, dt, shape in shape_cases:
        kwargs = {"shape": shape}
        if dt is not None:
            kwargs["dtype"] = {"tfdtype": dt}
        cases.append({"id": f"constant/shape/{sid}", "fn": "constant", "args": [value],
                      "kwargs": kwargs})
    return cases


# --------------------------------------------------------------------------
# var_ops: operators on variables
# --------------------------------------------------------------------------

BINARY_OPS = ["add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lt", "le", "gt", "ge",
              "eq", "ne", "and", "or", "xor"]
UNARY_OPS = ["neg", "abs", "invert"]


def var_values(dtype):
    if dtype in FLOATS:
        return [1.5, -2.0, 3.0]
    if dtype == "bool":
        return [True, False, True]
    if dtype == "uint8":
        return [7, 3, 2]
    return [7, -3, 2]


def operand_table(dtype):
    same = [True, True, False] if dtype == "bool" else (
        [2.0, 0.5, -4.0] if dtype in FLOATS else [2, 3, 4])
    other_np = "int64" if dtype == "float64" else "float64"
    other_t = "int32" if dtype == "float32" else "float32"
    other_vals = [2, 3, 4] if other_np == "int64" else [2.0, 3.0, 4.0]
    other_tvals = [2, 3, 4] if other_t == "int32" else [2.0, 3.0, 4.0]
    return {
        "py_int": 2, "py_float": 2.5, "py_bool": True, "py_list": [2, 3, 4],
        "py_neg": -1,
        "np_same": np_(same, dtype), "np_other": np_(other_vals, other_np),
        "t_same": tensor(same, dtype), "t_other": tensor(other_tvals, other_t),
        "t_scalar": tensor(same[0], dtype),
        "var_same": var(same, dtype, name="w"),
        "bad_shape": [1, 2],
    }


MATMUL_VARS = {
    "float32_2d": var([[1.0, 2.0], [3.0, 4.0]], "float32"),
    "int32_2d": var([[1, 2], [3, 4]], "int32"),
    "float64_2d": var([[1.0, -1.0], [0.5, 2.0]], "float64"),
}


def matmul_operands(dtype):
    return {
        "py_list": [[1, 0], [2, 1]], "py_list_float": [[0.5, 0.0], [1.0, 1.0]],
        "np_same": np_([[1, 0], [2, 1]], dtype), "np_other": np_([[1, 0], [2, 1]], "float64" if dtype != "float64" else "int64"),
        "t_same": tensor([[1, 0], [2, 1]], dtype), "t_other": tensor([[1, 0], [2, 1]], "float32" if dtype != "float32" else "int32"),
        "vector": tensor([1, 2], dtype), "bad_inner": tensor([[1, 2, 3]], dtype),
        "var_same": var([[2, 0], [0, 2]], dtype, name="w"),
    }


SPECIAL_OPERANDS = {"bad_shape": ("add", "mul", "eq", "ne", "lt"),
                    "py_neg": ("pow", "floordiv", "mod"),
                    "t_scalar": ("add", "sub", "truediv", "mul", "lt", "eq", "and")}


def var_op_section():
    vars_ = {d: var(var_values(d), d) for d in VAR_DTYPES}
    vars_.update(MATMUL_VARS)
    operands = {d: operand_table(d) for d in VAR_DTYPES}
    operands.update({k: matmul_operands(v["dtype"]) for k, v in MATMUL_VARS.items()})
    groups = []
    for key in list(VAR_DTYPES) + list(MATMUL_VARS):
        ops = ["matmul"] if key in MATMUL_VARS else BINARY_OPS
        for op in ops:
            for direction in ("fwd", "rev"):
                names = [n for n in operands[key]
                         if op in SPECIAL_OPERANDS.get(n, (op,))
                         and not (n == "var_same" and direction == "rev")]
                groups.append({"var": key, "op": f"{direction}:{op}",
                               "results": {n: None for n in names}})
        if key in VAR_DTYPES:
            for op in UNARY_OPS:
                groups.append({"var": key, "op": op, "results": {"-": None}})
    return {"runner": "var_ops", "vars": vars_, "operands": operands, "groups": groups}


# --------------------------------------------------------------------------
# slicing
# --------------------------------------------------------------------------

M = var(np.arange(12.0).reshape(4, 3).tolist(), "float32", name="m")
VEC = var([10, 11, 12, 13, 14], "int32", name="vec")
T3 = var(np.arange(24).reshape(2, 3, 4).tolist(), "int64", name="t3")
SCALAR = var(5.0, "float32", name="s")

READ_KEYS_M = {
    "0": 0, "3": 3, "-1": -1, "-4": -4, "4": 4, "-5": -5,
    "1:3": sl(1, 3), ":": sl(), "::-1": sl(None, None, -1), "3:0:-1": sl(3, 0, -1),
    "::2": sl(None, None, 2), "-1::-2": sl(-1, None, -2), "10:": sl(10, None),
    "-10:2": sl(-10, 2), "2:1": sl(2, 1), "::0": sl(None, None, 0), "1::-1": sl(1, None, -1),
    "0:-1:-1": sl(0, -1, -1), "5:-9:-1": sl(5, -9, -1),
    "1,2": tup(1, 2), "-1,-1": tup(-1, -1), "1,::-1": tup(1, sl(None, None, -1)),
    ":,0": tup(sl(), 0), "::-2,::-1": tup(sl(None, None, -2), sl(None, None, -1)),
    ":,3": tup(sl(), 3),
    "...,1": tup(ELL, 1), "(...,)": tup(ELL), "...": ELL, "1,...": tup(1, ELL),
    "...,newaxis": tup(ELL, NEW), "newaxis": NEW, "(newaxis,)": tup(NEW), "newaxis,1": tup(NEW, 1),
    "1,newaxis,::-1": tup(1, NEW, sl(None, None, -1)), "newaxis,newaxis": tup(NEW, NEW),
    "...,...": tup(ELL, ELL), "1,2,3": tup(1, 2, 3), "1,2,newaxis": tup(1, 2, NEW),
    "t_i32(1)": tensor(1, "int32"), "t_i64(-1)": tensor(-1, "int64"),
    "t(1),t(2)": tup(tensor(1, "int32"), tensor(2, "int32")),
    "t(1):t(3)": sl(tensor(1, "int32"), tensor(3, "int32")),
    "::t(-1)": sl(None, None, tensor(-1, "int32")),
    "t_i32([0,1])": tensor([0, 1], "int32"), "list[0,1]": [0, 1], "list[0]": [0],
    "float1.0": 1.0, "np_i64(2)": npscalar(2, "int64"), "np0d(1)": np_(1, "int64"),
    "nps_i8(-2)": npscalar(-2, "int8"), "t_f32(1)": tensor(1.0, "float32"),
    "mask_t": tensor([True, False, True, False], "bool"),
    "mask_np": np_([False, True, True, False], "bool"),
    "mask_2d": np_([[True, False, True], [False] * 3, [True] * 3, [False, True, False]], "bool"),
    "mask_wrong": tensor([True, False], "bool"),
    "mask_all_false": tensor([False] * 4, "bool"),
    "True": True, "None": None,
}
READ_KEYS_VEC = {
    "2": 2, "-5": -5, "5": 5, "::-1": sl(None, None, -1), "::-3": sl(None, None, -3),
    "4:1:-2": sl(4, 1, -2), "1:100:2": sl(1, 100, 2), "...": ELL, "newaxis,::2": tup(NEW, sl(None, None, 2)),
    "...,newaxis": tup(ELL, NEW), "0,0": tup(0, 0), "mask": np_([True, False, True, False, True], "bool"),
    "t_i64(4)": tensor(4, "int64"), "t_u8(1)": tensor(1, "uint8"), "t_i16(1)": tensor(1, "int16"),
}
READ_KEYS_T3 = {
    "...,0": tup(ELL, 0), "0,...,newaxis,1": tup(0, ELL, NEW, 1),
    "::-1,...,1:3": tup(sl(None, None, -1), ELL, sl(1, 3)), "1,::-1,::-2": tup(1, sl(None, None, -1), sl(None, None, -2)),
    "newaxis,...,newaxis": tup(NEW, ELL, NEW), "-1,-1,-1": tup(-1, -1, -1), ":,:,:,0": tup(sl(), sl(), sl(), 0),
    "mask_2d": np_([[True, False, True], [False, True, False]], "bool"),
    "...,::-1": tup(ELL, sl(None, None, -1)),
}
READ_KEYS_SCALAR = {"...": ELL, "newaxis": NEW, "0": 0, ":": sl(), "(...,newaxis)": tup(ELL, NEW)}

ASSIGN_CASES_M = [
    ("1", 1, [7.0, 8.0, 9.0]), ("1/scalar", 1, 5.0), ("1/bad", 1, [1.0, 2.0]),
    ("1/int_list", 1, [1, 2, 3]), ("1/np_f64", 1, np_([1.5, 2.5, 3.5], "float64")),
    ("1/t_f64", 1, tensor([1.0, 2.0, 3.0], "float64")), ("1/t_f32", 1, tensor([1.0, 2.0, 3.0], "float32")),
    ("1/leading1", 1, [[4.0, 5.0, 6.0]]), ("1/trailing1", 1, [[4.0], [5.0], [6.0]]),
    ("1:3", sl(1, 3), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), ("1:3/row", sl(1, 3), [1.0, 2.0, 3.0]),
    ("1:3/col", sl(1, 3), [[1.0], [2.0]]), ("1:3/bad", sl(1, 3), [[1.0, 2.0]]),
    ("::-1", sl(None, None, -1), np.arange(12.0).reshape(4, 3).tolist()),
    ("::-2,0", tup(sl(None, None, -2), 0), [100.0, 200.0]),
    ("3:0:-2,::-1", tup(sl(3, 0, -2), sl(None, None, -1)), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ("...,1", tup(ELL, 1), [1.0, 2.0, 3.0, 4.0]), ("...,1/scalar", tup(ELL, 1), -1.0),
    ("1,2", tup(1, 2), 9.0), ("1,2/list", tup(1, 2), [9.0]),
    ("newaxis,1", tup(NEW, 1), [[1.0, 2.0, 3.0]]), ("newaxis,1/flat", tup(NEW, 1), [1.0, 2.0, 3.0]),
    ("7", 7, 1.0), ("-4", -4, [0.0, 0.0, 0.0]), ("2:1", sl(2, 1), 5.0), ("2:1/empty", sl(2, 1), []),
    ("10:", sl(10, None), 1.0), ("t(2)", tensor(2, "int32"), [3.0, 3.0, 3.0]),
    ("mask", tensor([True, False, True, False], "bool"), 0.0),
    ("::0", sl(None, None, 0), 1.0), ("...", ELL, 2.0), ("...,...", tup(ELL, ELL), 2.0),
]
ASSIGN_CASES_VEC = [
    ("::-1", sl(None, None, -1), [1, 2, 3, 4, 5]), ("1:4", sl(1, 4), 0),
    ("1:4/float", sl(1, 4), 1.5), ("1:4/t_i64", sl(1, 4), tensor([1, 2, 3], "int64")),
    ("1:4/np_f64", sl(1, 4), np_([1.9, -2.9, 3.0], "float64")),
    ("::2", sl(None, None, 2), [7, 8, 9]), ("-1", -1, 99), ("-1/big", -1, 2 ** 33),
]


def slicing_cases():
    cases = []
    for vname, spec, keys in (("m", M, READ_KEYS_M), ("vec", VEC, READ_KEYS_VEC),
                              ("t3", T3, READ_KEYS_T3), ("scalar", SCALAR, READ_KEYS_SCALAR)):
        for kname, key in keys.items():
            cases.append({"id": f"read/{vname}[{kname}]", "var": spec, "op": "getitem",
                          "args": [key], "record_after": False})
    for vname, spec, rows in (("m", M, ASSIGN_CASES_M), ("vec", VEC, ASSIGN_CASES_VEC)):
        for cid, key, value in rows:
            cases.append({"id": f"assign/{vname}[{cid}]", "var": spec, "op": "slice_assign",
                          "args": [key, value]})
    cases.append({"id": "assign/scalar[...]", "var": SCALAR, "op": "slice_assign",
                  "args": [ELL, 3.0]})
    return cases


# --------------------------------------------------------------------------
# assign family
# --------------------------------------------------------------------------

F3 = var([1.0, 2.0, 3.0], "float32")
I3 = var([1, 2, 3], "int32")


def assign_cases():
    rows = [
        ("assign/ok", F3, "assign", [[4.0, 5.0, 6.0]]),
        ("assign/int_list", F3, "assign", [[4, 5, 6]]),
        ("assign/short", F3, "assign", [[4.0, 5.0]]),
        ("assign/scalar", F3, "assign", [5.0]),
        ("assign/extra_dim", F3, "assign", [[[4.0, 5.0, 6.0]]]),
        ("assign/np_f64", F3, "assign", [np_([0.1, 0.2, 0.3], "float64")]),
        ("assign/np_i64", F3, "assign", [np_([7, 8, 9], "int64")]),
        ("assign/t_f64", F3, "assign", [tensor([0.1, 0.2, 0.3], "float64")]),
        ("assign/t_f32", F3, "assign", [tensor([0.1, 0.2, 0.3], "float32")]),
        ("assign/t_f32_short", F3, "assign", [tensor([0.1, 0.2], "float32")]),
        ("assign/var_f32", F3, "assign", [var([9.0, 8.0, 7.0], "float32", name="w")]),
        ("assign/var_f64", F3, "assign", [var([9.0, 8.0, 7.0], "float64", name="w")]),
        ("assign/noread", F3, "assign_noread", [[0.0, 0.0, 0.0]]),
        ("assign/int_var_floats", I3, "assign", [[1.5, 2.0, 3.0]]),
        ("assign/int_var_np_float", I3, "assign", [np_([1.7, -2.7, 3.0], "float64")]),
        ("assign/int_var_big", I3, "assign", [[2 ** 32 + 1, 0, 0]]),
        ("assign/int_var_t_i64", I3, "assign", [tensor([1, 2, 3], "int64")]),
        ("assign/bool_var", var([True, False], "bool"), "assign", [[False, True]]),
        ("assign/bool_var_ints", var([True, False], "bool"), "assign", [[0, 1]]),
        ("assign/u8_var_neg", var([1, 2], "uint8"), "assign", [[-1, 256]]),
        ("assign/f16_var", var([1.0, 2.0], "float16"), "assign", [[65504.0, 1e-8]]),
        ("assign/partial_shape_ok", var([1.0, 2.0], "float32", shape={"shape": [None]}), "assign",
         [[1.0, 2.0, 3.0, 4.0]]),
        ("assign/partial_shape_bad_rank", var([1.0, 2.0], "float32", shape={"shape": [None]}),
         "assign", [[[1.0]]]),
        ("assign/unknown_shape", var([1.0, 2.0], "float32", shape={"shape": None}), "assign",
         [[[1.0, 2.0], [3.0, 4.0]]]),
        ("assign/unknown_shape_scalar", var([1.0, 2.0], "float32", shape={"shape": None}), "assign",
         [7.0]),
        ("assign/scalar_var", var(1.0, "float32"), "assign", [2.0]),
        ("assign/scalar_var_list", var(1.0, "float32"), "assign", [[2.0]]),
        ("assign/nan", F3, "assign", [[NAN, INF, NINF]]),
        ("assign_add/ok", F3, "assign_add", [[1.0, 1.0, 1.0]]),
        ("assign_add/short", F3, "assign_add", [[1.0, 1.0]]),
        ("assign_add/scalar", F3, "assign_add", [1.0]),
        ("assign_add/scalar_var", var(1.0, "float32"), "assign_add", [1.0]),
        ("assign_add/t_f64", F3, "assign_add", [tensor([1.0, 1.0, 1.0], "float64")]),
        ("assign_add/np_i64", F3, "assign_add", [np_([1, 2, 3], "int64")]),
        ("assign_add/int_list", F3, "assign_add", [[1, 2, 3]]),
        ("assign_add/int_var_floats", I3, "assign_add", [[0.5, 0.5, 0.5]]),
        ("assign_add/int8_wrap", var([120, -120], "int8"), "assign_add", [[10, -10]]),
        ("assign_add/u8_wrap", var([250, 1], "uint8"), "assign_add", [[10, 1]]),
        ("assign_add/bool_var", var([True, False], "bool"), "assign_add", [[True, True]]),
        ("assign_add/f16", var([1.0, 2.0], "float16"), "assign_add", [[0.001, 65504.0]]),
        ("assign_add/noread", F3, "assign_add_noread", [[1.0, 1.0, 1.0]]),
        ("assign_add/var", F3, "assign_add", [var([1.0, 1.0, 1.0], "float32", name="w")]),
        ("assign_add/partial_shape", var([1.0, 2.0], "float32", shape={"shape": [None]}),
         "assign_add", [[1.0, 1.0]]),
        ("assign_add/partial_shape_bad", var([1.0, 2.0], "float32", shape={"shape": [None]}),
         "assign_add", [[1.0, 1.0, 1.0]]),
        ("assign_sub/ok", F3, "assign_sub", [[1.0, 1.0, 1.0]]),
        ("assign_sub/short", F3, "assign_sub", [[1.0]]),
        ("assign_sub/t_i32", F3, "assign_sub", [tensor([1, 1, 1], "int32")]),
        ("assign_sub/u8_wrap", var([0, 5], "uint8"), "assign_sub", [[1, 1]]),
        ("assign_sub/int_var", I3, "assign_sub", [[5, 5, 5]]),
        ("assign_sub/int_var_float", I3, "assign_sub", [1.5]),
    ]
    return [{"id": cid, "var": v, "op": op, "args": args} for cid, v, op, args in rows]


# --------------------------------------------------------------------------
# scatter family, sparse_read, gather_nd, count_up_to
# --------------------------------------------------------------------------

SF = var([1.0, 2.0, 3.0, 4.0], "float32")
SM = var([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], "float32")
SI = var([10, -7, 30, 40], "int32")
I32 = "int32"


def scatter_cases():
    rows = []
    for kind in ("update", "add", "sub", "mul", "div", "min", "max"):
        op = "scatter_" + kind
        dup = kind != "update"
        idx = [0, 2, 0] if dup else [2, 0]
        vals_m = [[2.0, 3.0], [0.5, -1.0], [4.0, 0.25]] if dup else [[2.0, 3.0], [0.5, -1.0]]
        vals_f = [2.0, -3.0, 0.5] if dup else [2.0, -3.0]
        rows += [
            (f"{op}/m", SM, op, [islices(tensor(vals_m, "float32"), tensor(idx, I32))]),
            (f"{op}/f", SF, op, [islices(tensor(vals_f, "float32"), tensor(idx, I32))]),
            (f"{op}/f_i64_idx", SF, op, [islices(tensor(vals_f, "float32"), tensor(idx, "int64"))]),
            (f"{op}/m_scalar_update", SM, op, [islices(tensor(2.0, "float32"), tensor([1, 3], I32))]),
            (f"{op}/m_2d_idx", SM, op, [islices(
                tensor([[[1.0, 1.0], [2.0, 2.0]], [[3.0, 3.0], [4.0, 4.0]]], "float32"),
                tensor([[0, 1], [3, 2]] if not dup else [[0, 1], [1, 0]], I32))]),
            (f"{op}/out_of_range", SF, op, [islices(tensor([1.0, 2.0], "float32"), tensor([1, 4], I32))]),
            (f"{op}/negative_idx", SF, op, [islices(tensor([1.0], "float32"), tensor([-1], I32))]),
            (f"{op}/bad_updates_shape", SM, op, [islices(tensor([1.0, 2.0, 3.0], "float32"), tensor([0], I32))]),
            (f"{op}/updates_f64", SF, op, [islices(tensor([1.0], "float64"), tensor([0], I32))]),
            (f"{op}/not_islices", SF, op, [tensor([1.0, 2.0, 3.0, 4.0], "float32")]),
            (f"{op}/int", SI, op, [islices(tensor([3, 2] if not dup else [3, 2, -2], I32),
                                           tensor(idx, I32))]),
            (f"{op}/scalar_var", var(1.0, "float32"), op, [islices(tensor([1.0], "float32"), tensor([0], I32))]),
            (f"{op}/empty", SF, op, [islices(tensor([], "float32"), tensor([], I32))]),
        ]
    rows += [
        ("scatter_nd_update/1d", SF, "scatter_nd_update", [tensor([[0], [2]], I32), tensor([9.0, 8.0], "float32")]),
        ("scatter_nd_update/rows", SM, "scatter_nd_update", [tensor([[1]], I32), tensor([[5.0, 6.0]], "float32")]),
        ("scatter_nd_update/elems", SM, "scatter_nd_update", [tensor([[0, 1], [3, 0]], I32), tensor([7.0, 8.0], "float32")]),
        ("scatter_nd_update/py_lists", SM, "scatter_nd_update", [[[0, 1], [3, 0]], [7.0, 8.0]]),
        ("scatter_nd_update/i64", SF, "scatter_nd_update", [tensor([[3]], "int64"), tensor([0.5], "float32")]),
        ("scatter_nd_update/batch_idx", SM, "scatter_nd_update", [tensor([[[0, 0]], [[1, 1]]], I32), tensor([[1.0], [2.0]], "float32")]),
        ("scatter_nd_update/out_of_range", SM, "scatter_nd_update", [tensor([[4, 0]], I32), tensor([1.0], "float32")]),
        ("scatter_nd_update/bad_updates", SM, "scatter_nd_update", [tensor([[1]], I32), tensor([1.0, 2.0, 3.0], "float32")]),
        ("scatter_nd_update/too_deep", SF, "scatter_nd_update", [tensor([[0, 1]], I32), tensor([1.0], "float32")]),
        ("scatter_nd_update/f64_updates", SF, "scatter_nd_update", [tensor([[0]], I32), tensor([1.0], "float64")]),
        ("scatter_nd_update/scalar_updates", SF, "scatter_nd_update", [tensor([[0], [1]], I32), tensor(5.0, "float32")]),
        ("scatter_nd_add/dup", SF, "scatter_nd_add", [tensor([[1], [1], [3]], I32), tensor([1.0, 2.0, 3.0], "float32")]),
        ("scatter_nd_add/rows", SM, "scatter_nd_add", [tensor([[0], [0]], I32), tensor([[1.0, 1.0], [2.0, 2.0]], "float32")]),
        ("scatter_nd_add/int", SI, "scatter_nd_add", [tensor([[0], [0]], I32), tensor([1, 2], I32)]),
        ("scatter_nd_add/out_of_range", SF, "scatter_nd_add", [tensor([[-1]], I32), tensor([1.0], "float32")]),
        ("scatter_nd_sub/dup", SF, "scatter_nd_sub", [tensor([[2], [2]], I32), tensor([1.0, 2.0], "float32")]),
        ("scatter_nd_sub/elems", SM, "scatter_nd_sub", [tensor([[3, 1]], I32), tensor([8.0], "float32")]),
        ("batch_scatter_update/2d", var([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "float32"), "batch_scatter_update",
         [islices(tensor([[10.0, 30.0], [50.0, 40.0]], "float32"), tensor([[0, 2], [1, 0]], I32))]),
        ("batch_scatter_update/1d", SF, "batch_scatter_update",
         [islices(tensor([10.0, 30.0], "float32"), tensor([3, 1], I32))]),
        ("batch_scatter_update/rows", SM, "batch_scatter_update",
         [islices(tensor([[0.0, 0.0]], "float32"), tensor([2], I32))]),
        ("batch_scatter_update/3d", var(np.arange(12.0).reshape(2, 3, 2).tolist(), "float32"),
         "batch_scatter_update",
         [islices(tensor([[[-1.0, -1.0]], [[-2.0, -2.0]]], "float32"), tensor([[2], [0]], I32))]),
        ("batch_scatter_update/out_of_range", var([[1.0, 2.0], [3.0, 4.0]], "float32"),
         "batch_scatter_update", [islices(tensor([[1.0], [2.0]], "float32"), tensor([[0], [2]], I32))]),
        ("sparse_read/rows", SM, "sparse_read", [[0, 2]]),
        ("sparse_read/dup", SM, "sparse_read", [[3, 3, 0]]),
        ("sparse_read/2d_idx", SM, "sparse_read", [[[0, 1], [1, 0]]]),
        ("sparse_read/scalar_idx", SM, "sparse_read", [1]),
        ("sparse_read/t_i64", SF, "sparse_read", [tensor([3, 0], "int64")]),
        ("sparse_read/empty", SF, "sparse_read", [tensor([], I32)]),
        ("sparse_read/out_of_range", SM, "sparse_read", [[0, 5]]),
        ("sparse_read/negative", SF, "sparse_read", [[-1]]),
        ("sparse_read/float_idx", SF, "sparse_read", [tensor([1.0], "float32")]),
        ("sparse_read/int_var", SI, "sparse_read", [[1, 1]]),
        ("sparse_read/scalar_var", var(1.0, "float32"), "sparse_read", [[0]]),
        ("gather_nd/elems", SM, "gather_nd", [[[0, 1], [3, 1]]]),
        ("gather_nd/rows", SM, "gather_nd", [[[2], [0]]]),
        ("gather_nd/single", SM, "gather_nd", [[1, 1]]),
        ("gather_nd/batch", SM, "gather_nd", [[[[0, 0]], [[1, 1]]]]),
        ("gather_nd/out_of_range", SM, "gather_nd", [[[4, 0]]]),
        ("gather_nd/1d", SF, "gather_nd", [[[3], [0]]]),
        ("gather_nd/i64", SF, "gather_nd", [tensor([[1]], "int64")]),
        ("count_up_to/int32", var(0, "int32"), "count_up_to", [3]),
        ("count_up_to/int64", var(2, "int64"), "count_up_to", [3]),
        ("count_up_to/at_limit", var(3, "int32"), "count_up_to", [3]),
        ("count_up_to/above_limit", var(5, "int32"), "count_up_to", [3]),
        ("count_up_to/float", var(0.0, "float32"), "count_up_to", [3]),
        ("count_up_to/vector", var([0, 1], "int32"), "count_up_to", [3]),
    ]
    cases = [{"id": cid, "var": v, "op": op, "args": args} for cid, v, op, args in rows]
    for case in cases:
        # TF's CPU scatter kernels apply the updates before the bad index and
        # then fail; tfcompat validates first and leaves the variable alone.
        # That partial write is an artefact, not a contract: check the error only.
        if case["id"].endswith("/out_of_range") and case["op"].startswith("scatter_") \
                and not case["op"].startswith("scatter_nd"):
            case["record_after"] = False
    return cases


# --------------------------------------------------------------------------
# repr
# --------------------------------------------------------------------------

REPR_VARS = {
    "f32_vec": var([1.5, -2.0, 3.25], "float32"),
    "f64_3x4": var(np.arange(12.0).reshape(3, 4).tolist(), "float64", name="w"),
    "i32_scalar": var(7, "int32", name="count"),
    "bool_vec": var([True, False], "bool", name="flags"),
    "f16_vec": var([0.5, 1.0, 65504.0], "float16"),
    "i8_2x2": var([[1, -2], [3, 4]], "int8"),
    "u8_scalar": var(200, "uint8"),
    "i64_big": var([2 ** 40, -1], "int64"),
    "i16_vec": var([-300, 7], "int16"),
    "f32_empty": var([], "float32"),
    "f32_2x0": var(np.zeros((2, 0)).tolist(), "float32"),
    "f32_special": var([float("nan"), float("inf"), float("-inf"), -0.0], "float32"),
    "f32_sci": var([1e10, 1e-5], "float32"),
    "f32_3d": var(np.arange(8.0).reshape(2, 2, 2).tolist(), "float32"),
    "f32_long": var(np.arange(20.0).tolist(), "float32"),
    "f64_long": var(np.linspace(0.0, 1.0, 7).tolist(), "float64"),
    "scoped_name": var([1.0], "float32", name="layer/kernel"),
    "partial_shape": var([1.0, 2.0], "float32", shape={"shape": [None]}),
    "unknown_shape": var([1.0, 2.0], "float32", shape={"shape": None}),
    "bf16": var([1.5, -2.0], "bfloat16"),
    "c64": {"var": [1.0, 2.0], "imag": [0.5, -1.0], "dtype": "complex64"},
    "non_trainable": var([1.0], "float32", trainable=False),
}


def repr_cases():
    cases = []
    for vid, spec in REPR_VARS.items():
        for op in ("repr", "str", "name", "shape", "dtype"):
            cases.append({"id": f"{op}/{vid}", "var": spec, "op": op, "args": [],
                          "record_after": False})
    return cases


# --------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------

AS_DTYPE_ARGS = {
    "str_float32": "float32", "str_float": "float", "str_double": "double", "str_half": "half",
    "str_int": "int", "str_int32": "int32", "str_bool": "bool", "str_complex64": "complex64",
    "str_bfloat16": "bfloat16", "str_uint8": "uint8", "str_foo": "foo", "str_float64": "float64",
    "nptype_float32": {"nptype": "float32"}, "nptype_int64": {"nptype": "int64"},
    "nptype_bool": {"nptype": "bool"}, "nptype_float16": {"nptype": "float16"},
    "nptype_uint8": {"nptype": "uint8"}, "nptype_complex128": {"nptype": "complex128"},
    "npdtype_float32": {"npdtype": "float32"}, "npdtype_int8": {"npdtype": "int8"},
    "npdtype_int16": {"npdtype": "int16"}, "npdtype_bool": {"npdtype": "bool"},
    "pytype_float": {"pytype": "float"}, "pytype_int": {"pytype": "int"},
    "pytype_bool": {"pytype": "bool"}, "pytype_complex": {"pytype": "complex"},
    "enum1": 1, "enum3": 3, "enum9": 9, "enum10": 10, "enum14": 14, "enum19": 19, "enum99": 99,
    "dtype_int16": {"tfdtype": "int16"}, "none": None, "float_value": 1.5,
}
EQ_ARGS = {
    "float32": ["float32", {"nptype": "float32"}, {"npdtype": "float32"}, 1, "float",
                {"pytype": "float"}, None, {"tfdtype": "float64"}, {"tfdtype": "float32"}, "int32",
                "foo", 1.5],
    "int64": ["int64", {"nptype": "int64"}, {"pytype": "int"}, 9, "int"],
    "int32": [{"pytype": "int"}, 3, "int32", {"nptype": "int32"}],
    "bool": ["bool", {"nptype": "bool"}, {"pytype": "bool"}, 10, True],
    "float64": ["double", {"pytype": "float"}, {"npdtype": "float64"}],
    "float16": ["half", {"nptype": "float16"}],
}


def dtype_cases():
    cases = [{"id": f"props/{d}", "kind": "props", "dtype": d}
             for d in ALL_DTYPES + ["half", "double"]]
    for aid, arg in AS_DTYPE_ARGS.items():
        cases.append({"id": f"as_dtype/{aid}", "kind": "as_dtype", "arg": arg})
    for d, args in EQ_ARGS.items():
        for i, arg in enumerate(args):
            for kind in ("eq", "ne"):
                cases.append({"id": f"{kind}/{d}/{i}:{json.dumps(arg)}", "kind": kind,
                              "dtype": d, "arg": arg})
    return cases


# --------------------------------------------------------------------------
# TensorShape
# --------------------------------------------------------------------------

SHAPES = {"scalar": [], "2x3": [2, 3], "none1": [None], "none_3": [None, 3], "unknown": None,
          "5": [5], "0": [0], "2_none_4": [2, None, 4], "1x1x1": [1, 1, 1]}
SHAPE_PAIRS = [
    ([2, 3], [2, 3]), ([2, 3], [2, None]), ([2, 3], [3, 2]), ([2, 3], None), (None, [1]),
    ([None, 3], [2, None]), ([2], [2, 1]), ([], []), ([], None), ([None], [None]),
    ([2, None, 4], [2, 5, None]), ([1], [2]),
]


def tensor_shape_cases():
    cases = []
    for sid, dims in SHAPES.items():
        for op in ("str", "repr", "as_list", "rank", "ndims", "len", "num_elements",
                   "is_fully_defined"):
            cases.append({"id": f"{op}/{sid}", "dims": dims, "op": op, "args": []})
        for k, key in (("0", 0), ("-1", -1), ("1", 1), ("3", 3), ("0:1", sl(0, 1)),
                       ("1:", sl(1, None)), ("::-1", sl(None, None, -1))):
            cases.append({"id": f"getitem/{sid}[{k}]", "dims": dims, "op": "getitem",
                          "args": [key]})
        for r in (0, 1, 2):
            cases.append({"id": f"with_rank/{sid}/{r}", "dims": dims, "op": "with_rank",
                          "args": [r]})
    for a, b in SHAPE_PAIRS:
        for op in ("is_compatible_with", "merge_with", "concatenate",
                   "most_specific_compatible_shape", "eq", "ne", "assert_is_compatible_with"):
            cases.append({"id": f"{op}/{json.dumps(a)}/{json.dumps(b)}", "dims": a, "op": op,
                          "args": [{"shape": b}]})
    for other_id, other in (("list", [2, 3]), ("tuple", tup(2, 3)), ("list_none", [2, None]),
                            ("int", 2), ("str", "ab")):
        for op in ("eq", "is_compatible_with", "concatenate"):
            cases.append({"id": f"{op}/[2, 3]/raw_{other_id}", "dims": [2, 3], "op": op,
                          "args": [other]})
    for cid, dims in (("int", 3), ("tuple", tup(1, 2)), ("neg", [-1]), ("float", [1.5]),
                      ("str", "ab"), ("np_i64", [npscalar(2, "int64")]), ("nested", [[1]]),
                      ("t_i32", tensor([2, 3], "int32"))):
        cases.append({"id": f"new/{cid}", "dims": dims, "op": "new", "args": []})
    return cases


# --------------------------------------------------------------------------
# gradients
# --------------------------------------------------------------------------

def gradient_cases():
    return [{"id": name, "program": name, "requires": list(programs.PROGRAM_REQUIRES.get(name, ()))}
            for name in programs.PROGRAMS]


# --------------------------------------------------------------------------


SECTIONS = {
    "conversion": conversion_section,
    "var_ops": var_op_section,
    "slicing": slicing_cases,
    "assign": assign_cases,
    "scatter": scatter_cases,
    "repr": repr_cases,
    "dtypes": dtype_cases,
    "tensor_shape": tensor_shape_cases,
    "gradients": gradient_cases,
}


def run_section(name, make):
    made = make()
    section = made if isinstance(made, dict) else {"runner": name, "cases": made}
    section.setdefault("runner", name)
    runner = programs.RUNNERS[section["runner"]]
    for group in section.get("groups", ()):
        for variant in group["results"]:
            case = programs.expand_group(section, group, variant)
            out = runner(tf, case)
            add_keys(out, f"{name}:{case['id']}")
            group["results"][variant] = out["result"]
    for case in section.get("cases", ()):
        out = runner(tf, case)
        add_keys(out, f"{name}:{case['id']}")
        case.update(out)
    ids = [c["id"] for c in programs.expand(section)]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    return section


def main():
    tf.get_logger().setLevel("ERROR")
    # Casts that overflow are part of what is recorded; numpy's warnings about them are noise.
    warnings.simplefilter("ignore")
    versions = {"tensorflow": tf.__version__, "numpy": np.__version__}
    sections = {name: run_section(name, make) for name, make in SECTIONS.items()}
    data = {"generator": "tests/conformance/gen_core.py", "versions": versions,
            "sections": sections}
    os.makedirs(FIXTURES, exist_ok=True)
    n = generator_env.dump(os.path.join(FIXTURES, "core.json"), data)
    for name, section in sections.items():
        cases = programs.expand(section)
        errs = sum(1 for c in cases if "error" in c["result"])
        print(f"{name}: {len(cases)} cases ({errs} raise)")
    print(f"core.json: {n} bytes")
    if UNMATCHED and os.environ.get("GEN_CORE_VERBOSE"):
        for where, cls, msg in UNMATCHED:
            print(f"  no key: {where}: {cls}: {msg[:160]!r}")
    print(f"{len(UNMATCHED)} errors without a key phrase (class checked only)")


if __name__ == "__main__":
    main()
