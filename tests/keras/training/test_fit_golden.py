"""`Model.fit` / `evaluate` / `predict` / `*_on_batch` against tf_keras 2.21's recorded results.

The cases are `fit_cases.py`; tf_keras's results are `fixtures/fit_golden.json` (regenerate
with `generate_fit_golden.py` under TensorFlow). Every case runs under tfcompat and every
observable is compared: the structure (dict keys such as ``val_out_a_loss``, list lengths,
``metrics_names`` in order), the kind of each value (a Python float in ``history.history``
and from ``evaluate``, an ndarray from ``predict`` and ``get_weights``), dtypes and shapes,
integers and strings exactly, and floats within the error model below. A failing case lists
every mismatch as ``path: expected ..., got ...``.

The error model
---------------
A case trains a float32 model for ``steps`` optimizer steps (5 to 28) on data, weights and
targets scaled to O(1). tfcompat runs the same formulas in the same order as tf_keras but on
other kernels (ATen vs Eigen/oneDNN), whose reductions add in another order on each CPU, so
no result is expected bit for bit. One step's forward and backward pass are reductions of a
few dozen terms (batches of 16-25, layers of 5-16 units): each side's rounding error per
value is a few ulps at the problem's unit scale (statistically ``sqrt(n) * u``, n <= 50,
i.e. about 2-4 ulps). Gradient descent on these well-conditioned problems contracts, so a
step's error is carried into the next without growth (first-order propagation): after
``steps`` steps, plus one pass for the final evaluate/predict, the two sides differ by at
most::

    |got - want| <= ULPS_PER_STEP * (steps + 1) * ulp(1) * S,    S = max(1, max|want|)

per value, with ``ULPS_PER_STEP = 4``, ``ulp(1) = 2**-23`` and ``S`` taken over the array
the value belongs to (a normwise bound: a small weight is updated by O(1) quantities, so its
error is absolute, not relative to its own size). For 3 epochs of 7 SGD steps this is
1.1e-5 relative on losses near 1. Adam normalizes its step (``m / sqrt(v)``), so a gradient
component whose value were lost in rounding would move a weight by up to ``lr`` per step;
these cases' gradients are far from that, which the float64 check below confirms, so Adam
gets the same bound. Accuracies are counts over N: a flipped prediction would show as a
1/N jump, far outside the bound.

The bound is checked against TF itself: the generator replays every case in float64, and
`test_tolerance_covers_tf_rounding` requires tf_keras's own float32 error (float32 result vs
float64) to stay within a quarter of the bound (measured: at most 0.05 of it), leaving the
rest for tfcompat's error of the same size and for other CPUs' orders (tfcompat vs tf_keras
measured at most 0.19 of it, on an Adam case; at most 0.05 with SGD). The float64 replay is a
reference, not exact arithmetic (tf_keras keeps e.g. the learning rate in a float32
variable), which only makes that check stricter. `test_tolerance_sees_one_step` requires each
epoch's change in a training loss to be far outside the bound, and
`test_compare_catches_planted_errors` that a value moved just past the bound fails. (A
learning rate off by 1e-4 relative already fails `mlp_regression_sgd`.)
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, List, Optional

import numpy as np
import pytest

from tests.keras.training import fit_cases

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "fit_golden.json")
ULPS_PER_STEP = 4
ULP1 = 2.0 ** -23
_NUMPY_KINDS = ("ndarray", "npscalar")  # a 0-d result may be either; both are numpy values
_DATA: dict = {}


def golden() -> dict:
    if not _DATA:
        if not os.path.exists(FIXTURE):
            pytest.fail("no fixture: run tests/keras/training/generate_fit_golden.py under "
                        "TensorFlow 2.21 with tf-keras 2.21")
        with open(FIXTURE) as f:
            _DATA.update(json.load(f))
    return _DATA


def tolerance(steps: int, want: np.ndarray) -> float:
    """The error model's bound for the values of one array (or one float) after `steps`."""
    scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
    return ULPS_PER_STEP * (steps + 1) * ULP1 * scale


# -- the comparison ----------------------------------------------------------------------

def _leaf(rec: dict) -> tuple:
    (kind, value), = rec.items()
    return kind, value


def _show(kind: str, value: Any) -> str:
    if kind == "float":
        return repr(float.fromhex(value))
    if kind in ("ndarray", "npscalar", "tensor"):
        arr = fit_cases.decode_array(value)
        body = arr.tolist() if arr.size <= 4 else f"[{arr.size} values]"
        return f"{kind} {arr.dtype}{list(arr.shape)} {body}"
    if kind in ("dict", "list"):
        return kind
    return repr(value)


_TIMES = [(re.compile(r"\b\d+(?:\.\d+)?(?:ms|us|s)/(epoch|step)\b"), r"<time>/\1"),
          (re.compile(r" - \d+s - "), " - <time> - ")]
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def _normalized(text: str) -> tuple:
    for pattern, repl in _TIMES:
        text = pattern.sub(repl, text)
    numbers = [float(m) for m in _NUMBER.findall(text)]
    return _NUMBER.sub("<num>", text), numbers


def _compare_text(got: str, want: str, steps: int, path: str, out: List[str]) -> None:
    """Printed logs: the same text once times are masked; each printed number within the
    bound plus one unit of its last printed digit (4 decimals: rounding may differ)."""
    g_text, g_nums = _normalized(got)
    w_text, w_nums = _normalized(want)
    if g_text != w_text:
        out.append(f"{path}: expected text {want!r}, got {got!r}")
        return
    for i, (g, w) in enumerate(zip(g_nums, w_nums)):
        if abs(g - w) > tolerance(steps, np.array(w)) + 1e-4:
            out.append(f"{path}: printed number {i}: expected {w}, got {g}")


def compare(got: Any, want: Any, steps: int, path: str = "", out: Optional[List[str]] = None
            ) -> List[str]:
    """Every mismatch between two `fit_cases.encode` trees, as `path: expected, got`."""
    out = [] if out is None else out
    gk, gv = _leaf(got)
    wk, wv = _leaf(want)
    numpy_pair = gk in _NUMPY_KINDS and wk in _NUMPY_KINDS
    if gk != wk and not numpy_pair:
        out.append(f"{path}: expected a {wk} ({_show(wk, wv)}), got a {gk} ({_show(gk, gv)})")
        return out
    if wk == "dict":
        g, w = dict(gv), dict(wv)
        if set(g) != set(w):
            out.append(f"{path}: expected keys {sorted(w)}, got {sorted(g)} (missing "
                       f"{sorted(set(w) - set(g))}, unexpected {sorted(set(g) - set(w))})")
        elif list(g) != list(w):
            # observable: `pd.DataFrame(history.history)` columns, printed logs
            out.append(f"{path}: expected key order {list(w)}, got {list(g)}")
        for key in w:
            if key in g:
                compare(g[key], w[key], steps, f"{path}/{key}", out)
    elif wk == "list":
        if len(gv) != len(wv):
            out.append(f"{path}: expected {len(wv)} items "
                       f"[{', '.join(_show(*_leaf(v)) for v in wv)}], got {len(gv)} "
                       f"[{', '.join(_show(*_leaf(v)) for v in gv)}]")
        else:
            for i, (g, w) in enumerate(zip(gv, wv)):
                compare(g, w, steps, f"{path}[{i}]", out)
    elif wk == "float":
        g, w = float.fromhex(gv), float.fromhex(wv)
        tol = tolerance(steps, np.array(w))
        if not (abs(g - w) <= tol or (math.isnan(g) and math.isnan(w))):
            out.append(f"{path}: expected {w!r}, got {g!r} (|diff| {abs(g - w):.3g} > "
                       f"tolerance {tol:.3g})")
    elif wk in ("ndarray", "npscalar", "tensor"):
        g, w = fit_cases.decode_array(gv), fit_cases.decode_array(wv)
        if g.dtype != w.dtype or g.shape != w.shape:
            out.append(f"{path}: expected {w.dtype}{list(w.shape)}, got {g.dtype}"
                       f"{list(g.shape)}")
        elif w.dtype.kind in "fc":
            _compare_floats(g, w, steps, path, out)
        elif not np.array_equal(g, w):
            out.append(f"{path}: expected {_show(wk, wv)}, got {_show(gk, gv)}")
    elif wk == "str" and path.endswith("stdout"):
        _compare_text(gv, wv, steps, path, out)
    elif gv != wv:
        out.append(f"{path}: expected {wv!r}, got {gv!r}")
    return out


def _compare_floats(g: np.ndarray, w: np.ndarray, steps: int, path: str,
                    out: List[str]) -> None:
    g64, w64 = g.astype(np.float64), w.astype(np.float64)
    tol = tolerance(steps, w64)
    same_special = (np.isnan(g64) & np.isnan(w64)) | (np.isinf(w64) & (g64 == w64))
    bad = ~same_special & ~(np.abs(g64 - w64) <= tol)
    if bad.any():
        i = np.unravel_index(np.argmax(np.where(bad, np.abs(g64 - w64), -1)), w.shape)
        out.append(f"{path}: {int(bad.sum())} of {w.size} values beyond tolerance {tol:.3g}; "
                   f"worst at {list(map(int, i))}: expected {w64[i]!r}, got {g64[i]!r}")


# -- the tests ---------------------------------------------------------------------------

NAMES = list(fit_cases.CASES)


def test_fixture_covers_the_cases():
    recorded = set(golden()["cases"])
    assert recorded == set(NAMES), (
        f"fit_cases.CASES and the fixture differ (missing {sorted(set(NAMES) - recorded)}, "
        f"stale {sorted(recorded - set(NAMES))}): rerun generate_fit_golden.py")


@pytest.mark.parametrize("name", NAMES)
def test_case_matches_tf_keras(name):
    import tfcompat

    case = fit_cases.CASES[name]
    want = golden()["cases"].get(name)
    if want is None:
        pytest.fail(f"{name} is not recorded: rerun generate_fit_golden.py {name}")
    tfcompat.keras.backend.clear_session()
    got = fit_cases.encode(case.fn(tfcompat))
    mismatches = compare(got, want["float32"], case.steps)
    assert not mismatches, f"{name}: {len(mismatches)} mismatches vs tf_keras 2.21:\n  " + \
        "\n  ".join(mismatches)


# -- the error model against TF's own rounding ---------------------------------------------

def _float_leaves(rec: Any, path: str = ""):
    kind, value = _leaf(rec)
    if kind == "dict":
        for key, v in value:
            yield from _float_leaves(v, f"{path}/{key}")
    elif kind == "list":
        for i, v in enumerate(value):
            yield from _float_leaves(v, f"{path}[{i}]")
    elif kind == "float":
        yield path, np.array(float.fromhex(value))
    elif kind in ("ndarray", "npscalar", "tensor"):
        arr = fit_cases.decode_array(value)
        if arr.dtype.kind == "f":
            yield path, arr.astype(np.float64)


@pytest.mark.parametrize("name", [n for n in NAMES if fit_cases.CASES[n].float64])
def test_tolerance_covers_tf_rounding(name):
    """tf_keras's float32 result differs from its float64 replay (its own rounding error)
    by at most a quarter of the bound at every value: the bound leaves room for tfcompat's
    error and other CPUs' orders, and no value sits on a knife edge (an accuracy flip)."""
    rec = golden()["cases"][name]
    f32, f64 = dict(_float_leaves(rec["float32"])), dict(_float_leaves(rec["float64"]))
    assert f32.keys() == f64.keys(), f"{name}: the float32 and float64 runs differ in shape"
    steps = fit_cases.CASES[name].steps
    worst = max((float(np.max(np.abs(f32[p] - f64[p]))) / tolerance(steps, f32[p]), p)
                for p in f32 if f32[p].size)
    assert worst[0] <= 0.25, (f"{name}: tf_keras's float32 rounding at {worst[1]} is "
                              f"{worst[0]:.2f} of the bound (> 0.25)")


def _histories(rec: Any):
    for path, values in _float_leaves(rec):
        if re.search(r"/history/(loss|[a-z_]*_loss)\[\d+\]$", path):
            yield path.rsplit("[", 1)[0], float(values)


@pytest.mark.parametrize("name", [n for n in NAMES if fit_cases.CASES[n].float64])
def test_tolerance_sees_one_step(name):
    """Every epoch-to-epoch change of a training loss in the fixture is at least 100 times the
    bound: a missed or repeated epoch cannot hide in it."""
    series: dict = {}
    for key, value in _histories(golden()["cases"][name]["float32"]):
        series.setdefault(key, []).append(value)
    steps = fit_cases.CASES[name].steps
    checked = 0
    for key, values in series.items():
        for a, b in zip(values, values[1:]):
            tol = tolerance(steps, np.array(b))
            assert abs(a - b) >= 100 * tol, (
                f"{name}{key}: consecutive epochs {a} and {b} differ by less than 100x the "
                f"tolerance {tol:.3g}")
            checked += 1
    assert checked, f"{name}: no loss history with two epochs to check"


@pytest.mark.parametrize("name", NAMES)
def test_compare_catches_planted_errors(name):
    """The golden record matches itself, and moving any one float just past the bound (or
    changing a key, a kind or a length) is reported, at that value's path."""
    want = golden()["cases"][name]["float32"]
    steps = fit_cases.CASES[name].steps
    assert compare(want, want, steps) == []
    planted = 0
    for path, bad in _plants(want, steps):
        found = compare(bad, want, steps)
        assert found and found[0].startswith(path), (
            f"{name}: a planted error at {path} was not reported: {found}")
        planted += 1
    assert planted >= 3


def _plants(rec: Any, steps: int, path: str = ""):
    """(path, copy of `rec` with one error there) for one float per array and a few
    structural edits."""
    kind, value = _leaf(rec)
    if kind == "dict":
        if value:
            yield path, {"dict": value[1:]}  # a missing key
        if len(value) >= 2:
            yield path, {"dict": [value[1], value[0]] + value[2:]}  # keys out of order
        for i, (key, v) in enumerate(value):
            for p, bad in _plants(v, steps, f"{path}/{key}"):
                yield p, {"dict": value[:i] + [[key, bad]] + value[i + 1:]}
    elif kind == "list":
        if value:
            yield path, {"list": value[:-1]}
        for i, v in enumerate(value):
            for p, bad in _plants(v, steps, f"{path}[{i}]"):
                yield p, {"list": value[:i] + [bad] + value[i + 1:]}
    elif kind == "float":
        w = float.fromhex(value)
        yield path, {"float": (w + 1.05 * tolerance(steps, np.array(w))).hex()}
        yield path, fit_cases.encode(np.float32(w))  # a numpy scalar where TF gives a float
    elif kind == "str" and path.endswith("stdout"):
        number = _NUMBER.search(value)
        if number:  # a printed number off by more than its rounding
            moved = f"{float(number.group()) + 0.0011:.4f}"
            yield path, {"str": value[:number.start()] + moved + value[number.end():]}
        yield path, {"str": value.replace("loss", "los", 1)}
    elif kind in ("ndarray", "npscalar", "tensor"):
        arr = fit_cases.decode_array(value).copy()
        if arr.dtype.kind == "f" and arr.size:
            tol = tolerance(steps, arr.astype(np.float64))
            flat = arr.reshape(-1)
            flat[-1] = np.float64(flat[-1]) + np.sign(flat[-1] or 1) * 1.05 * tol
            if flat[-1] != fit_cases.decode_array(value).reshape(-1)[-1]:
                yield path, fit_cases.encode(arr)
