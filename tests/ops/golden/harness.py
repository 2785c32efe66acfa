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
Values are stored as their exact bytes. Integers, bools, strings, shapes and dtypes are
compared exactly; floats within the bound of the error model below.

The error model (how far tfcompat's float may be from TF's, on any machine)
---------------------------------------------------------------------------
TF and tfcompat compute the same real number ``y`` with different kernels (Eigen / oneDNN /
MKL in TF; ATen / SLEEF / MKL / OpenBLAS in torch), and the kernels a library picks depend on
the machine: the vector width (AVX2, AVX-512), MKL's code path (``MKL_CBWR``) and the thread
count change the order in which a sum is added. A tolerance must therefore hold for every
order, not for the bits one machine produced. With ``u`` the unit roundoff of the result's
dtype (``2**-53`` float64, ``2**-24`` float32, ``2**-11`` float16, ``2**-8`` bfloat16; the
real part's for complex) and ``gamma(n) = n*u / (1 - n*u)``:

1. *Correctly rounded elementwise ops* (``+ - * /``, ``sqrt``, casts, negation, selections,
   comparisons, moves, and a sum or product of two terms): both sides return ``fl(y)``, the
   one nearest float, so they must agree bit for bit: ``ulps=0``.
2. *Elementwise functions of libm quality* (``exp``, ``tanh``, ``erf``, ...): each side is
   within a couple of ulps of ``y``; they may differ by ``ulps`` units in the last place of
   TF's value (`DEFAULT_ULPS` = 4 unless the case says otherwise).
3. *Reductions*: sums and products of more than two terms, means, norms, matmuls, dot
   products, convolutions, pools, and anything through BLAS/LAPACK. Any summation order
   (serial, pairwise, blocked, vectorized, split across threads) of ``n`` terms ``t_i``
   satisfies ``|fl(sum) - sum| <= gamma(n - 1) * sum|t_i|``, a dot product of length ``n``
   ``<= gamma(n) * sum|a_i * b_i|`` (Higham, *Accuracy and Stability of Numerical
   Algorithms*, 3.1 and 4.2). Both sides err within that, so their difference is at most
   ``2 * gamma(n) * S`` where ``S = sum|t_i|``. A case says so with ``n`` (the number of
   roundings along the longest path to one output: ``k - 1`` additions for a sum of ``k``
   terms, ``k`` for a dot product, plus one for each rounded elementwise op after it, e.g. the
   division of a mean) and ``terms`` (``S``):

   * ``None``: ``S = |TF's value|``, exact when the terms have one sign (no cancellation);
   * a function ``fn(tf)``: the same computation on the inputs' absolute values (``sum|x|``
     for ``sum(x)``, ``|A| @ |B|`` for ``A @ B``), run under tfcompat; its absolute value is
     ``S`` elementwise (results near zero after cancellation get the room cancellation needs);
   * ``"normwise"``: ``S`` = the largest ``|value|`` of that array (the normwise bound, for
     results of a whole program whose intermediate sums are not visible).

   ``u`` is the result dtype's, unless the case names the dtype both libraries accumulate in
   (``accumulate="float32"`` for float16/bfloat16 sums that TF and torch add in float32 and
   round once: ``ulps=1`` for that final rounding, plus the float32 bound).

4. *Programs*: a training loop of ``steps`` steps, each a reduction bound as in 3, carries
   its error into the next step: the tolerance is ``steps`` times the per-step bound
   (first-order error propagation through a contracting update, as gradient descent on these
   well-conditioned problems is).

The bound for each value is therefore::

    |got - want| <= ulps * ulp(want) + steps * 2 * gamma(n) * S + atol

``atol`` remains for the few functions whose libraries approximate differently near zero
(flush-to-zero, series switch points). Linear-algebra decompositions (``cases_linalg``) keep
their own documented bounds: their error depends on the conditioning, not only on ``n``.

Nothing here may loosen a comparison beyond what the model gives: the planted-error tests
(`tests/ops/golden/test_error_model.py`) perturb results by a few ulps beyond `bound` and
check that every harness (ops, programs, distribute) fails, and check the model's soundness
by summing random terms in random orders in every float dtype.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable, Optional, Sequence

import ml_dtypes
import numpy as np

__all__ = ["Case", "Grad", "encode", "encode_tfcompat", "compare", "encode_error",
           "unit_roundoff", "gamma", "bound", "DEFAULT_ULPS"]

#: Default tolerance in units of the dtype's last place (class 2 of the model). TF's CPU
#: kernels (Eigen) and torch's (SLEEF / glibc) round transcendental functions differently by an
#: ulp or two; arithmetic that both compute with one correctly rounded operation must be given
#: ulps=0.
DEFAULT_ULPS = 4

_UNIT_ROUNDOFF = {"bfloat16": 2.0 ** -8, "float16": 2.0 ** -11, "float32": 2.0 ** -24,
                  "float64": 2.0 ** -53, "complex64": 2.0 ** -24, "complex128": 2.0 ** -53}


def unit_roundoff(dtype_name: str) -> float:
    """``u``: half the spacing of the dtype's floats at 1 (2**-p for p significand bits)."""
    return _UNIT_ROUNDOFF[dtype_name]


def gamma(n: int, dtype_name: str) -> float:
    """Higham's ``gamma(n) = n*u / (1 - n*u)``: the relative error bound of ``n`` roundings."""
    nu = n * unit_roundoff(dtype_name)
    if nu >= 1:
        return math.inf
    return nu / (1 - nu)


@dataclasses.dataclass(frozen=True)
class Case:
    """A recorded call. ``ulps``: tolerance in the last place (None: the default);
    ``atol``: an absolute floor for results near zero, in the result dtype's units;
    ``n``, ``terms``, ``steps``: the reduction bound of the module's error model (``n`` 0:
    no reduction); ``match_message``: also require TF's error message text (without TF's op
    suffix) to appear in ours; ``values``: False to compare dtype and shape only (random
    ops)."""

    fn: Callable
    ulps: Optional[float] = None
    atol: float = 0.0
    match_message: bool = False
    values: bool = True
    n: int = 0
    terms: Any = None
    steps: int = 1
    accumulate: Optional[str] = None


@dataclasses.dataclass(frozen=True)
class Grad:
    """A recorded gradient: d sum(fn(tf, *vars)) / d vars, with vars = tf.Variable(inputs[i])."""

    fn: Callable
    inputs: Sequence[np.ndarray]
    ulps: Optional[float] = None
    atol: float = 0.0
    n: int = 0
    terms: Any = None  # as Case's; a function gives one magnitude per input's gradient
    steps: int = 1
    accumulate: Optional[str] = None

    def as_case(self) -> Case:
        return Case(self.fn, ulps=self.ulps, atol=self.atol, n=self.n, terms=self.terms,
                    steps=self.steps, accumulate=self.accumulate)


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


def _magnitude(w: np.ndarray, terms: Any, magnitude: Optional[np.ndarray]) -> Any:
    """``S`` of the model for TF's values ``w``: per value, or one number (normwise)."""
    if magnitude is not None:
        m = np.asarray(magnitude)
        m = np.abs(m.astype(np.complex128 if np.iscomplexobj(m) else np.float64))
        return np.broadcast_to(m, w.shape)
    a = np.abs(w.astype(np.complex128 if np.iscomplexobj(w) else np.float64))
    if terms == "normwise":
        finite = a[np.isfinite(a)]
        return float(finite.max()) if finite.size else 0.0
    return a


def bound(want: np.ndarray, dtype_name: str, case: Any,
          magnitude: Optional[np.ndarray] = None) -> np.ndarray:
    """The largest ``|got - want|`` the error model allows at each of TF's values ``want``.

    ``ulps * ulp(want) + steps * 2 * gamma(n) * S + atol`` (see the module docstring);
    ``magnitude``: ``S`` per value where the case's ``terms`` computed it (else from
    ``want``). ``want`` is real: a complex result is bounded part by part (`compare` passes
    the modulus of TF's value as ``magnitude``).
    """
    w = np.asarray(want)
    ulps = DEFAULT_ULPS if case.ulps is None else case.ulps
    w64 = w.astype(np.float64)
    out = ulps * _ulp(np.where(np.isfinite(w64), w64, 0.0), dtype_name) + case.atol
    if case.n:
        acc = case.accumulate or dtype_name
        out = out + case.steps * 2 * gamma(case.n, acc) * _magnitude(w, case.terms, magnitude)
    return np.broadcast_to(out, w.shape)


def _check_specials(g64: np.ndarray, w64: np.ndarray, g: Any, w: Any, where: str) -> np.ndarray:
    nan_g, nan_w = np.isnan(g64), np.isnan(w64)
    assert np.array_equal(nan_g, nan_w), f"{where}: NaN positions differ: got {g}, TF {w}"
    inf_w = np.isinf(w64)
    assert np.array_equal(np.isinf(g64), inf_w) and np.array_equal(g64[inf_w], w64[inf_w]), \
        f"{where}: infinities differ: got {g}, TF {w}"
    return ~(nan_w | inf_w)


def _compare_floats(g: np.ndarray, w: np.ndarray, dtype_name: str, case: Any, where: str,
                    magnitude: Optional[np.ndarray] = None) -> None:
    if dtype_name.startswith("complex"):
        part = {"complex64": "float32", "complex128": "float64"}[dtype_name]
        if case.n and magnitude is None:  # S from the modulus, for both parts
            magnitude = _magnitude(w, case.terms, None)
        parts = ((g.real.copy(), w.real.copy(), ".real"), (g.imag.copy(), w.imag.copy(), ".imag"))
    else:
        part, parts = dtype_name, ((g, w, ""),)
    for gp, wp, suffix in parts:
        g64, w64 = gp.astype(np.float64), wp.astype(np.float64)
        ok = _check_specials(g64, w64, gp, wp, where + suffix)
        if not ok.any():
            continue
        err = np.abs(g64[ok] - w64[ok])
        lim = bound(wp, part, case, magnitude)[ok]
        assert not np.isnan(lim).any(), f"{where}{suffix}: the error bound is NaN (its terms?)"
        bad = err > lim
        if bad.any():
            i = int(np.argmax(bad))
            ulps = DEFAULT_ULPS if case.ulps is None else case.ulps
            model = (f" + {case.steps} x 2 gamma({case.n}) S" if case.n else "") + \
                (f" + atol {case.atol}" if case.atol else "")
            raise AssertionError(
                f"{where}{suffix}: {int(bad.sum())} of {int(ok.sum())} values beyond "
                f"{ulps} ulp{model} (the error model in tests/ops/golden/harness.py): first got "
                f"{g64[ok][i]!r}, TF {w64[ok][i]!r}, |diff| {err[i]!r} > bound {lim[i]!r}"
                f"\n got {gp!r}\n TF  {wp!r}")


def magnitudes(case: Any) -> Any:
    """The record of ``S`` for a case whose ``terms`` is a function (run under tfcompat)."""
    if not callable(case.terms):
        return None
    import tfcompat

    return encode_tfcompat(case.terms(tfcompat))


_UNSET = object()


def compare(got: Any, want: Any, case: Case, where: str = "result", mag: Any = _UNSET) -> None:
    """Assert that ``got`` (a record of tfcompat's result) matches ``want`` (TF's record).

    ``mag``: the record of the magnitudes ``S`` (from the case's ``terms``), parallel to
    ``want``; computed here when not given.
    """
    if mag is _UNSET:
        mag = magnitudes(case) if not (isinstance(want, dict) and "error" in want) else None
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
            m = mag[i] if isinstance(mag, list) and len(mag) == len(want) else None
            compare(g, w, case, f"{where}[{i}]", m)
        return
    if want is None or not isinstance(want, dict) or "hex" not in want:
        if isinstance(want, dict) and "dict" in want:
            assert isinstance(got, dict) and "dict" in got and \
                sorted(got["dict"]) == sorted(want["dict"]), f"{where}: keys differ: {got!r:.200}"
            for k in want["dict"]:
                m = mag["dict"].get(k) if isinstance(mag, dict) and "dict" in mag else None
                compare(got["dict"][k], want["dict"][k], case, f"{where}[{k!r}]", m)
            return
        if isinstance(want, dict) and "py_float" in want and isinstance(got, dict) and "py_float" in got:
            g, w = float.fromhex(got["py_float"]), float.fromhex(want["py_float"])
            _compare_floats(np.array([g]), np.array([w]), "float64", case, where,
                            _mag_array(mag))
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
        _compare_floats(g, w, want["dtype"], case, where, _mag_array(mag))
    else:
        assert np.array_equal(g, w), f"{where}: got {g!r}, TF {w!r}"


def _mag_array(mag: Any) -> Optional[np.ndarray]:
    if isinstance(mag, dict) and "hex" in mag:
        return decode_array(mag)
    if isinstance(mag, dict) and "py_float" in mag:
        return np.array([float.fromhex(mag["py_float"])])
    return None


# -- planted errors (the tests that the bounds still catch real errors) -------------------

_FLOAT_NAMES = ("bfloat16", "float16", "float32", "float64")


def beyond(want: float, limit: float, dtype_name: str, ulps: int = 3) -> Any:
    """A float of the dtype more than ``want + limit``, by ``ulps`` steps of ``ulp(want)`` (or
    of the dtype's spacing there, where that is coarser)."""
    dt = _NP_DTYPES[dtype_name]
    w = float(want)

    def up(v: float) -> float:
        step = max(float(_ulp(np.array([abs(v)]), dtype_name)[0]),
                   float(_ulp(np.array([abs(w)]), dtype_name)[0]))
        return float(dt.type(v + step))

    x = float(dt.type(w + limit))
    while x - w <= limit:
        x = up(x)
    for _ in range(ulps - 1):
        x = up(x)
    assert x - w > limit and math.isfinite(x), (w, limit, x)
    return dt.type(x)


def plant(got: Any, want: Any, case: Case, ulps: int = 3, mag: Any = _UNSET) -> Any:
    """``got`` with its first finite float value moved ``ulps`` ulps beyond the model's bound
    around TF's value (``want``): `compare` must then fail. None when nothing is a float."""
    if mag is _UNSET:
        mag = magnitudes(case)
    if isinstance(want, list) and isinstance(got, list):
        for i, (g, w) in enumerate(zip(got, want)):
            m = mag[i] if isinstance(mag, list) and len(mag) == len(want) else None
            p = plant(g, w, case, ulps, m)
            if p is not None:
                return got[:i] + [p] + got[i + 1:]
        return None
    if isinstance(want, dict) and "dict" in want and isinstance(got, dict) and "dict" in got:
        for k in want["dict"]:
            m = mag["dict"].get(k) if isinstance(mag, dict) and "dict" in mag else None
            p = plant(got["dict"][k], want["dict"][k], case, ulps, m)
            if p is not None:
                return {"dict": dict(got["dict"], **{k: p})}
        return None
    if not (isinstance(want, dict) and want.get("dtype") in _FLOAT_NAMES and "hex" in want
            and isinstance(got, dict) and "hex" in got):
        return None
    w = decode_array(want)
    flat = w.reshape(-1).astype(np.float64)
    finite = np.flatnonzero(np.isfinite(flat))
    if not finite.size:
        return None
    i = int(finite[0])
    limit = bound(w, want["dtype"], case, _mag_array(mag)).reshape(-1)[i]
    g = decode_array(got).copy().reshape(-1)
    g[i] = beyond(flat[i], float(limit), want["dtype"], ulps)
    return _array_record(got["dtype"], g.reshape(w.shape))
