"""The op golden tables: one case runs against TensorFlow (to record) and tfcompat (to test).

Each `cases_<area>.py` next to this file holds two tables:

* ``CASES``: ``name -> fn(tf)`` or ``name -> Case(fn, ...)``. ``fn`` receives the API
  module (``tensorflow`` when recording, ``tfcompat`` when testing) and returns a
  result: a tensor, a Python value, a ``TensorShape``, or a (named) tuple / list /
  dict of them. An exception is a result too: its class name is recorded.
* ``GRADIENTS``: ``name -> Grad(fn, inputs)``. ``fn(tf, *variables)`` is differentiated
  with a ``GradientTape`` with respect to variables built from ``inputs`` (numpy arrays).

`gen_ops.py` (under a Python with TensorFlow 2.21) records every table into
``fixtures/<area>.json``; `test_ops_golden.py` replays them against tfcompat without TF.
Values are stored as their exact bytes and compared within ``ulps`` units in the last
place of TF's value (float dtypes; 0 means bit-exact) or exactly (integers, bools).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Optional, Sequence

import ml_dtypes
import numpy as np

__all__ = ["Case", "Grad", "encode", "encode_tfcompat", "compare", "encode_error"]

#: Default tolerance in units of the dtype's last place. TF's CPU kernels (Eigen) and
#: torch's (SLEEF / glibc) round transcendental functions differently by an ulp or two;
#: arithmetic that both compute with one correctly rounded operation must be given ulps=0.
DEFAULT_ULPS = 4


@dataclasses.dataclass(frozen=True)
class Case:
    """A recorded call. ``ulps``: tolerance in the last place (None: the default);
    ``atol``: an absolute floor for results near zero (cancellation), in the result dtype's
    units; ``match_message``: also require TF's error message text (without TF's op suffix)
    to appear in ours; ``values``: False to compare dtype and shape only (random ops)."""

    fn: Callable
    ulps: Optional[float] = None
    atol: float = 0.0
    match_message: bool = False
    values: bool = True


@dataclasses.dataclass(frozen=True)
class Grad:
    """A recorded gradient: d sum(fn(tf, *vars)) / d vars, with vars = tf.Variable(inputs[i])."""

    fn: Callable
    inputs: Sequence[np.ndarray]
    ulps: Optional[float] = None
    atol: float = 0.0


def as_case(entry: Any) -> Case:
    return entry if isinstance(entry, Case) else Case(entry)


# -- encoding ----------------------------------------------------------------------------

def _array_record(dtype_name: str, arr: np.ndarray) -> dict:
    arr = np.asarray(arr)  # (not ascontiguousarray: it makes a 0-d array 1-d)
    return {"dtype": dtype_name, "shape": list(arr.shape), "hex": arr.tobytes(order="C").hex()}


def encode(x: Any, dtype_name_of: Callable[[Any], Optional[str]],
           to_numpy: Callable[[Any], np.ndarray]) -> Any:
    """A JSON-able record of a result. ``dtype_name_of(x)`` gives the TF dtype name of a
    tensor-like (None for anything else); ``to_numpy`` its value as numpy."""
    if x is None:
        return None
    if isinstance(x, np.generic):
        return _array_record(str(x.dtype), np.asarray(x))
    if isinstance(x, bool):
        return {"py": x}
    if isinstance(x, int):
        return {"py": x}
    if isinstance(x, float):
        return {"py_float": x.hex()}
    if isinstance(x, str):
        return {"str": x}
    if isinstance(x, bytes):
        return {"bytes": x.hex()}
    if isinstance(x, dict):
        return {"dict": {str(k): encode(v, dtype_name_of, to_numpy) for k, v in sorted(x.items())}}
    if isinstance(x, (list, tuple)):
        return [encode(v, dtype_name_of, to_numpy) for v in x]
    if type(x).__name__ == "TensorShape":
        dims = None if x.rank is None else [d if d is None else int(d) for d in x.as_list()]
        return {"tensor_shape": dims}
    if type(x).__name__ == "DType":
        return {"dtype_obj": x.name}
    name = dtype_name_of(x)
    if name is None:
        if isinstance(x, np.ndarray):
            return _array_record(str(x.dtype), x)
        raise TypeError(f"cannot record a result of type {type(x).__name__}: {x!r}")
    return _array_record(name, to_numpy(x))


def encode_tfcompat(x: Any) -> Any:
    """`encode` for tfcompat's results: torch tensors, variables, `IndexedSlices`."""
    import torch

    import tfcompat
    from tfcompat.framework import dtypes

    def as_tensor(v):
        if isinstance(v, tfcompat.IndexedSlices):
            return tfcompat.convert_to_tensor(v)
        if isinstance(v, tfcompat.Variable):
            return v.read_value()
        return v

    def dtype_name(v):
        v = as_tensor(v)
        return dtypes.from_torch(v.dtype).name if isinstance(v, torch.Tensor) else None

    def to_numpy(v):
        v = as_tensor(v).detach().cpu()
        if v.dtype == torch.bfloat16:
            return v.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
        return v.resolve_conj().numpy()

    return encode(x, dtype_name, to_numpy)


def encode_error(e: BaseException) -> dict:
    message = str(e).split("\n")[0]
    if message.startswith("{{function_node"):
        message = message.split("}}", 1)[-1].strip()
    if " [Op:" in message:
        message = message[:message.rindex(" [Op:")]
    return {"error": type(e).__name__, "message": message[:400]}


# -- comparison --------------------------------------------------------------------------

_NP_DTYPES = {
    "bfloat16": np.dtype(ml_dtypes.bfloat16), "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32), "float64": np.dtype(np.float64),
    "complex64": np.dtype(np.complex64), "complex128": np.dtype(np.complex128),
    "int8": np.dtype(np.int8), "int16": np.dtype(np.int16), "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64), "uint8": np.dtype(np.uint8), "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32), "uint64": np.dtype(np.uint64), "bool": np.dtype(np.bool_),
}


def decode_array(rec: dict) -> np.ndarray:
    dt = _NP_DTYPES.get(rec["dtype"], None) or np.dtype(rec["dtype"])
    return np.frombuffer(bytes.fromhex(rec["hex"]), dtype=dt).reshape(rec["shape"])


def _ulp(want: np.ndarray, dtype_name: str) -> np.ndarray:
    base = {"bfloat16": ml_dtypes.bfloat16, "float16": np.float16, "float32": np.float32,
            "float64": np.float64, "complex64": np.float32, "complex128": np.float64}[dtype_name]
    info = ml_dtypes.finfo(base) if base is ml_dtypes.bfloat16 else np.finfo(base)
    mag = np.abs(want.astype(np.float64))
    # the spacing at |want|, never below the smallest normal's spacing
    exp = np.floor(np.log2(np.maximum(mag, float(info.tiny))))
    return np.exp2(exp - (info.nmant))


def _compare_floats(g: np.ndarray, w: np.ndarray, dtype_name: str, ulps: float, atol: float,
                    where: str) -> None:
    if dtype_name.startswith("complex"):
        part = {"complex64": "float32", "complex128": "float64"}[dtype_name]
        _compare_floats(g.real.copy(), w.real.copy(), part, ulps, atol, where + ".real")
        _compare_floats(g.imag.copy(), w.imag.copy(), part, ulps, atol, where + ".imag")
        return
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    nan_g, nan_w = np.isnan(g64), np.isnan(w64)
    assert np.array_equal(nan_g, nan_w), f"{where}: NaN positions differ: got {g}, TF {w}"
    inf_w = np.isinf(w64)
    assert np.array_equal(np.isinf(g64), inf_w) and np.array_equal(g64[inf_w], w64[inf_w]), \
        f"{where}: infinities differ: got {g}, TF {w}"
    ok = ~(nan_w | inf_w)
    if not ok.any():
        return
    err = np.abs(g64[ok] - w64[ok])
    bound = ulps * _ulp(w[ok], dtype_name) + atol
    bad = err > bound
    if bad.any():
        i = int(np.argmax(bad))
        raise AssertionError(
            f"{where}: {int(bad.sum())} of {int(ok.sum())} values beyond {ulps} ulp"
            f"{f' + atol {atol}' if atol else ''}: first got {g64[ok][i]!r}, TF {w64[ok][i]!r}"
            f"\n got {g!r}\n TF  {w!r}")


def compare(got: Any, want: Any, case: Case, where: str = "result") -> None:
    """Assert that ``got`` (a record of tfcompat's result) matches ``want`` (TF's record)."""
    if isinstance(want, dict) and "error" in want:
        assert isinstance(got, dict) and "error" in got, \
            f"{where}: TF raised {want['error']}({want['message']!r}); tfcompat returned {got!r}"
        assert got["error"] == want["error"], (
            f"{where}: tfcompat raised {got['error']}({got['message']!r}), "
            f"TF raised {want['error']}({want['message']!r})")
        if case.match_message:
            assert want["message"] in got["message"], \
                f"{where}: message {got['message']!r} lacks TF's {want['message']!r}"
        return
    if isinstance(got, dict) and "error" in got:
        raise AssertionError(f"{where}: tfcompat raised {got['error']}: {got['message']}; "
                             f"TF returned {want!r:.300}")
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), \
            f"{where}: got {got!r:.200}, TF {want!r:.200}"
        for i, (g, w) in enumerate(zip(got, want)):
            compare(g, w, case, f"{where}[{i}]")
        return
    if want is None or not isinstance(want, dict) or "hex" not in want:
        if isinstance(want, dict) and "dict" in want:
            assert isinstance(got, dict) and "dict" in got and \
                sorted(got["dict"]) == sorted(want["dict"]), f"{where}: keys differ: {got!r:.200}"
            for k in want["dict"]:
                compare(got["dict"][k], want["dict"][k], case, f"{where}[{k!r}]")
            return
        if isinstance(want, dict) and "py_float" in want and isinstance(got, dict) and "py_float" in got:
            g, w = float.fromhex(got["py_float"]), float.fromhex(want["py_float"])
            assert g == w or (math.isnan(g) and math.isnan(w)) or \
                abs(g - w) <= (case.ulps if case.ulps is not None else DEFAULT_ULPS) * \
                math.ulp(w) + case.atol, f"{where}: got {g!r}, TF {w!r}"
            return
        assert got == want, f"{where}: got {got!r}, TF {want!r}"
        return
    assert isinstance(got, dict) and "hex" in got, f"{where}: got {got!r:.200}, TF a tensor {want['dtype']}"
    assert got["dtype"] == want["dtype"], f"{where}: dtype {got['dtype']} != TF's {want['dtype']}"
    assert got["shape"] == want["shape"], f"{where}: shape {got['shape']} != TF's {want['shape']}"
    if not case.values:
        return
    g, w = decode_array(got), decode_array(want)
    if want["dtype"] in ("bfloat16", "float16", "float32", "float64", "complex64", "complex128"):
        ulps = DEFAULT_ULPS if case.ulps is None else case.ulps
        _compare_floats(g, w, want["dtype"], ulps, case.atol, where)
    else:
        assert np.array_equal(g, w), f"{where}: got {g!r}, TF {w!r}"
