"""The inputs recipe and array encoding shared by `gen_optimizers.py` and its replay.

The half-precision and long-horizon optimizer cases (`optimizers.json`,
sections "half_precision_cases" and "long_horizon_cases") do not store their
initial values and gradients: both the generator (under TensorFlow) and the
replay (`tests/keras/optimizers/test_golden.py`, without TensorFlow)
rebuild them from the case's "inputs" spec with `make_inputs`, and the
replay checks the result against the recorded `digest` before running
anything. Only numpy is used: `numpy.random.RandomState` (whose streams
are frozen by numpy's compatibility policy, NEP 19) and IEEE conversions.

Inputs spec (JSON)::

    {"seed": int,                      # RandomState seed
     "dtype": "float16" | "bfloat16" | "float32" | "float64",
     "shapes": [[...], ...],           # one per variable
     "num_steps": n,
     "init": DIST, "grad": DIST,       # value distributions
     "sparse_rows": k | null,          # sparse: k rows per step (the last
                                       # one repeats the first: duplicates)
     "digest": "crc32 hex"}            # of the float64 bytes, see `digest`

DIST is ``{"kind": "uniform", "scale": a}`` (uniform on [-a, a]),
``{"kind": "normal", "scale": s}`` (N(0, s^2)) or
``{"kind": "loguniform", "lo": a, "hi": b}`` (magnitude exp(U(log a, log b)),
random sign: one `uniform` draw, then one `randint(0, 2)` draw, per array).

Draw order: for each variable its initial value; then, step by step and
variable by variable, the gradient (sparse: `randint(0, rows, k)` indices,
then the values of shape ``(k,) + shape[1:]``). Every array is drawn in
float64 and rounded to `dtype` by `round_to` (float16: numpy's correctly
rounded cast; bfloat16: cast to float32, then round-to-nearest-even on the
float32 bits), so the result is a float64 array holding exact values of
the dtype: TF gets it through `tf.constant(x, dtype)`, torch through
`torch.tensor(x).to(dtype)`, both exact.

Array encoding (`encode` / `decode`)
------------------------------------
A value of the case's dtype is either a nested list of float64 reprs (as in
the rest of the fixture; exact for every dtype) or, for large arrays,
``{"b64": ..., "dtype": D, "shape": [...]}``: the little-endian IEEE bits
in base64 (bfloat16: the upper 16 bits of the float32 pattern), decodable
with numpy alone. NaN and infinities survive both (JSON's ``NaN`` and
``Infinity`` extensions in the list form).
"""

from __future__ import annotations

import base64
import zlib
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["round_to", "make_inputs", "digest", "encode", "decode", "HALF_DTYPES", "ulp"]

HALF_DTYPES = ("float16", "bfloat16")

_BITS = {"float16": np.uint16, "bfloat16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def _bf16_bits(x32: np.ndarray) -> np.ndarray:
    """float32 array -> the bfloat16 bit patterns (round to nearest even; NaN kept quiet)."""
    u = np.ascontiguousarray(x32, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x32)
    if nan.any():
        rounded = np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), rounded)
    return rounded


def _from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def round_to(x: Any, dtype: str) -> np.ndarray:
    """`x` rounded to `dtype`, returned as float64 (exact values of the dtype)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "bfloat16":
        return _from_bf16_bits(_bf16_bits(x.astype(np.float32))).astype(np.float64).reshape(x.shape)
    return x.astype(dtype).astype(np.float64)


def _draw(rs: np.random.RandomState, dist: dict, size: Tuple[int, ...]) -> np.ndarray:
    kind = dist["kind"]
    if kind == "uniform":
        return rs.uniform(-dist["scale"], dist["scale"], size=size)
    if kind == "normal":
        return rs.normal(0.0, dist["scale"], size=size)
    if kind == "loguniform":
        mag = np.exp(rs.uniform(np.log(dist["lo"]), np.log(dist["hi"]), size=size))
        sign = rs.randint(0, 2, size=size) * 2 - 1
        return mag * sign
    raise ValueError(f"unknown distribution {kind!r}")


def make_inputs(spec: dict) -> Tuple[List[np.ndarray], List[list]]:
    """`(initial_values, steps)` of an inputs spec (see the module docstring).

    `steps[k][i]` is variable i's gradient at step k: a float64 array, or for
    sparse specs a dict ``{"indices": int64 array, "values": float64 array,
    "dense_shape": [...]}``.
    """
    rs = np.random.RandomState(spec["seed"])
    dtype = spec["dtype"]
    shapes = [tuple(s) for s in spec["shapes"]]
    rows: Optional[int] = spec.get("sparse_rows")
    init = [round_to(_draw(rs, spec["init"], s), dtype) for s in shapes]
    steps = []
    for _ in range(spec["num_steps"]):
        grads: list = []
        for s in shapes:
            if rows:
                idx = rs.randint(0, s[0], size=rows).astype(np.int64)
                idx[-1] = idx[0]
                vals = round_to(_draw(rs, spec["grad"], (rows,) + s[1:]), dtype)
                grads.append({"indices": idx, "values": vals, "dense_shape": list(s)})
            else:
                grads.append(round_to(_draw(rs, spec["grad"], s), dtype))
        steps.append(grads)
    return init, steps


def digest(init: Sequence[np.ndarray], steps: Sequence[list]) -> str:
    """crc32 (hex) of the inputs' float64 / int64 bytes, in draw order."""
    crc = 0
    for a in init:
        crc = zlib.crc32(np.ascontiguousarray(a, dtype=np.float64).tobytes(), crc)
    for grads in steps:
        for g in grads:
            if isinstance(g, dict):
                crc = zlib.crc32(np.ascontiguousarray(g["indices"], dtype=np.int64).tobytes(), crc)
                g = g["values"]
            crc = zlib.crc32(np.ascontiguousarray(g, dtype=np.float64).tobytes(), crc)
    return f"{crc:08x}"


def encode(x: Any, dtype: str, compact: bool) -> Any:
    """An array of `dtype` values (given as float64 or the dtype) for the fixture."""
    a = np.asarray(x, dtype=np.float64)
    if not compact:
        return a.tolist()
    if dtype == "bfloat16":
        bits = _bf16_bits(a.astype(np.float32))
    else:
        bits = a.astype(dtype).view(_BITS[dtype])
    raw = np.ascontiguousarray(bits).astype(bits.dtype.newbyteorder("<")).tobytes()
    return {"b64": base64.b64encode(raw).decode("ascii"), "dtype": dtype, "shape": list(a.shape)}


def decode(obj: Any) -> np.ndarray:
    """A fixture array (`encode` output or a nested list) as float64."""
    if isinstance(obj, dict) and "b64" in obj:
        dtype = obj["dtype"]
        raw = base64.b64decode(obj["b64"])
        bits = np.frombuffer(raw, dtype=np.dtype(_BITS[dtype]).newbyteorder("<"))
        if dtype == "bfloat16":
            vals = _from_bf16_bits(bits)
        else:
            vals = bits.astype(_BITS[dtype]).view(dtype)
        return vals.astype(np.float64).reshape(obj["shape"])
    return np.asarray(obj, dtype=np.float64)


# Significand bits (with the implicit one) and the smallest normal exponent.
_FORMAT = {"float16": (11, -14), "bfloat16": (8, -126), "float32": (24, -126), "float64": (53, -1022)}


def ulp(x: Any, dtype: str) -> np.ndarray:
    """The spacing of `dtype` at |x| (the subnormal spacing below the normal range)."""
    p, emin = _FORMAT[dtype]
    a = np.abs(np.asarray(x, dtype=np.float64))
    finite = np.isfinite(a) & (a > 0)
    _, e = np.frexp(np.where(finite, a, 1.0))  # a = m * 2**e, 0.5 <= m < 1
    e = np.where(finite, np.maximum(e.astype(np.int64) - 1, emin), emin)
    return np.ldexp(1.0, e - (p - 1))
