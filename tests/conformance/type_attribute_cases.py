"""Cases for TF's attributes on torch's types, shared by the generator and the replay.

`gen_type_attributes.py` runs every case with real TensorFlow on TF's own objects
(`tf.TensorShape(dims)`, `tf.float32`, a tensor's device string) and records the
results in ``fixtures/type_attributes.json``; `tests/framework/test_type_attributes.py`
runs the same cases with tfcompat on torch's objects (`torch.Size(dims)`,
`torch.float32`, `torch.device("cpu")`) and compares. Only the object the case starts
from differs: the code below is one text for both runtimes. It must not import
TensorFlow or torch (results are encoded with `programs.encode`).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

import numpy as np

from tests.conformance import programs

__all__ = ["SHAPES", "shape_cases", "SHAPE_OPS", "run_shape", "DTYPES", "DTYPE_ATTRS",
           "DTYPE_COMPATIBLE_ARGS", "run_dtype", "DEVICE_CALLS", "run_device"]

# -- shapes ------------------------------------------------------------------------------

# Fully known shapes only: a torch.Size always is one.
SHAPES: List[list] = [[], [0], [3], [2, 3], [2, 1, 4], [1, 1, 1, 1]]


def _dims(dims: Any) -> Any:
    """Dimension objects (TF 2's `dims`) as [class name, value] pairs."""
    return None if dims is None else [[type(d).__name__, d.value] for d in dims]


def _proto(shape: Any) -> str:
    proto = shape.as_proto()
    return proto.SerializeToString().hex()


SHAPE_OPS: Dict[str, Callable] = {
    "as_list": lambda s: s.as_list(),
    "rank": lambda s: s.rank,
    "ndims": lambda s: s.ndims,
    "dims": lambda s: _dims(s.dims),
    "is_fully_defined": lambda s: s.is_fully_defined(),
    "num_elements": lambda s: s.num_elements(),
    "as_proto": _proto,
    "assert_is_fully_defined": lambda s: s.assert_is_fully_defined(),
    "is_compatible_with": lambda s, o: s.is_compatible_with(o),
    "assert_is_compatible_with": lambda s, o: s.assert_is_compatible_with(o),
    "merge_with": lambda s, o: s.merge_with(o),
    "most_specific_compatible_shape": lambda s, o: s.most_specific_compatible_shape(o),
    "is_subtype_of": lambda s, o: s.is_subtype_of(o),
    "assert_same_rank": lambda s, o: s.assert_same_rank(o),
    "concatenate": lambda s, o: s.concatenate(o),
    "with_rank": lambda s, r: s.with_rank(r),
    "with_rank_at_least": lambda s, r: s.with_rank_at_least(r),
    "with_rank_at_most": lambda s, r: s.with_rank_at_most(r),
    "assert_has_rank": lambda s, r: s.assert_has_rank(r),
}

_NO_ARG = ("as_list", "rank", "ndims", "dims", "is_fully_defined", "num_elements", "as_proto",
           "assert_is_fully_defined")
_SHAPE_ARG = ("is_compatible_with", "assert_is_compatible_with", "merge_with",
              "most_specific_compatible_shape", "is_subtype_of", "assert_same_rank")
_RANK_ARG = ("with_rank", "with_rank_at_least", "with_rank_at_most", "assert_has_rank")


def _other_shapes(dims: list) -> Dict[str, Any]:
    """Value specs (`programs.build`) of shapes to compare `dims` with."""
    n = len(dims)
    others: Dict[str, Any] = {
        "same": list(dims), "same_shape": {"shape": list(dims)}, "unknown_dims": [None] * n,
        "unknown_rank": {"shape": None}, "longer": list(dims) + [1],
    }
    if n:
        others["other_first"] = [dims[0] + 1] + list(dims[1:])
        others["partial"] = [None] + list(dims[1:])
        others["shorter"] = list(dims[:-1])
    return others


_CONCATENATED = {"empty": [], "one": [5], "unknown_dim": [None], "unknown_rank": {"shape": None},
                 "shape": {"shape": [7, 8]}}


def shape_cases() -> List[dict]:
    """Every shape case: `{"id", "dims", "op", "args": [SPEC]}`."""
    cases = []
    for dims in SHAPES:
        tag = "x".join(map(str, dims)) or "scalar"
        for op in _NO_ARG:
            cases.append({"id": f"{tag}/{op}", "dims": dims, "op": op, "args": []})
        for op in _SHAPE_ARG:
            for name, spec in _other_shapes(dims).items():
                cases.append({"id": f"{tag}/{op}/{name}", "dims": dims, "op": op, "args": [spec]})
        for name, spec in _CONCATENATED.items():
            cases.append({"id": f"{tag}/concatenate/{name}", "dims": dims, "op": "concatenate",
                          "args": [spec]})
        for op in _RANK_ARG:
            for r in sorted({max(len(dims) - 1, 0), len(dims), len(dims) + 1}):
                cases.append({"id": f"{tag}/{op}/{r}", "dims": dims, "op": op, "args": [r]})
    return cases


def run_shape(tf: Any, shape: Any, case: dict) -> Any:
    """`case["op"]` on `shape` (TF: `tf.TensorShape(dims)`; tfcompat: `torch.Size(dims)`)."""
    args = [programs.build(tf, a) for a in case["args"]]
    return programs.encode(tf, programs.attempt(SHAPE_OPS[case["op"]], shape, *args))


# -- dtypes ------------------------------------------------------------------------------

# Every dtype tfcompat has (TF's name; tfcompat's torch dtype of the same name).
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "bool", "complex64", "complex128"]


def _dtype_name(tf: Any, d: Any) -> str:
    return tf.as_dtype(d).name


def _number(x: Any) -> Any:
    """TF's numpy scalars (min, max, limits) as Python numbers."""
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return [_number(i) for i in x]
    return x


DTYPE_ATTRS: Dict[str, Callable] = {
    "name": lambda tf, d: d.name,
    "as_numpy_dtype": lambda tf, d: np.dtype(d.as_numpy_dtype).name,
    "as_datatype_enum": lambda tf, d: d.as_datatype_enum,
    "is_floating": lambda tf, d: d.is_floating,
    "is_integer": lambda tf, d: d.is_integer,
    "is_complex": lambda tf, d: d.is_complex,
    "is_bool": lambda tf, d: d.is_bool,
    "is_unsigned": lambda tf, d: d.is_unsigned,
    "is_quantized": lambda tf, d: d.is_quantized,
    "is_numpy_compatible": lambda tf, d: d.is_numpy_compatible,
    "size": lambda tf, d: d.size,
    "min": lambda tf, d: _number(d.min),
    "max": lambda tf, d: _number(d.max),
    "limits": lambda tf, d: _number(d.limits),
    "base_dtype": lambda tf, d: _dtype_name(tf, d.base_dtype),
    "real_dtype": lambda tf, d: _dtype_name(tf, d.real_dtype),
    "base_dtype_eq": lambda tf, d: d.base_dtype == getattr(tf, d.name),
    "real_dtype_eq_tf": lambda tf, d: d.real_dtype == tf.as_dtype(d).real_dtype,
}

# Arguments of `d.is_compatible_with(...)` (value specs).
DTYPE_COMPATIBLE_ARGS: Dict[str, Any] = {
    "tf_float32": {"tfdtype": "float32"}, "tf_int32": {"tfdtype": "int32"},
    "str_float32": "float32", "str_int64": "int64",
    "np_float32": {"nptype": "float32"}, "np_bool": {"nptype": "bool"},
}


def run_dtype(tf: Any, d: Any, attribute: str) -> Any:
    if attribute.startswith("is_compatible_with:"):
        arg = programs.build(tf, DTYPE_COMPATIBLE_ARGS[attribute.split(":", 1)[1]])
        return programs.encode(tf, programs.attempt(lambda: d.is_compatible_with(arg)))
    return programs.encode(tf, programs.attempt(DTYPE_ATTRS[attribute], tf, d))


# -- devices -----------------------------------------------------------------------------

# (id, method, args): str methods TF code calls on `x.device`.
DEVICE_CALLS: List[tuple] = [
    ("endswith_cpu0", "endswith", ("CPU:0",)), ("endswith_gpu0", "endswith", ("GPU:0",)),
    ("endswith_tuple", "endswith", (("GPU:0", "CPU:0"),)),
    ("startswith_job", "startswith", ("/job:localhost",)),
    ("startswith_device", "startswith", ("/device",)),
    ("contains_cpu", "__contains__", ("CPU",)), ("contains_gpu", "__contains__", ("GPU",)),
    ("contains_lower", "__contains__", ("cpu",)),
    ("lower", "lower", ()), ("upper", "upper", ()), ("casefold", "casefold", ()),
    ("split_colon", "split", (":",)), ("split_slash", "split", ("/",)),
    ("rsplit_colon_1", "rsplit", (":", 1)), ("partition", "partition", ("device:",)),
    ("rpartition", "rpartition", (":",)), ("find_cpu", "find", ("CPU",)),
    ("find_gpu", "find", ("GPU",)), ("rfind_colon", "rfind", (":",)),
    ("replace", "replace", ("CPU", "XLA_CPU")), ("strip_slash", "strip", ("/",)),
]


def run_device(tf: Any, device: Any, method: str, args: tuple) -> Any:
    call = (lambda: args[0] in device) if method == "__contains__" else (
        lambda: getattr(device, method)(*args))
    return programs.encode(tf, programs.attempt(call))
