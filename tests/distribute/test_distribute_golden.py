"""Replay the `tf.distribute` golden fixture (recorded from TF 2.21) against tfcompat.

``fixtures/distribute.json`` is written by ``gen_distribute.py`` with real
TensorFlow: every program of ``distribute_programs.py`` run eagerly under a
`MirroredStrategy` over logical CPUs. Here each program runs once with
``tfcompat`` as the module, on a fresh device runtime split into the same
number of logical CPUs (restored afterwards), and each named result it
records is one test (``program::entry``; ``program::(entries)`` checks it
recorded the same entries, so an escaped error shows). Each must be what TF
gave:

* values: the class of every distributed value (`PerReplica`, `Mirrored`,
  `MirroredVariable`, `SyncOnReadVariable`) and each component; variables
  with name, device, dtype, shape and value (an assign's returned
  `UnreadVariable`: dtype, shape, value); tensors with dtype, shape and
  every value, floats bit-exact. The training programs, whose matmuls,
  reductions and fused kernels sum in another order in TF than in torch
  (and in another order on another machine), are compared within the error
  model of `tests/ops/golden/harness.py`: `harness.DEFAULT_ULPS` ulps plus
  ``steps * 2 * gamma(TRAIN_ROUNDINGS) * S`` (``S`` the largest magnitude
  of the value, ``steps`` the training steps taken when it was recorded);
* errors: the exception class, and the key phrase of TF's message where the
  fixture records one (``"key"``; null means the class only).

No TensorFlow needed. Where tfcompat differs from TF:

* a tfcompat bug (`BUGS`, one `Bug` each, with what TF does and where the
  code is) marks the entries it breaks ``xfail(strict=True)``: they fail
  (XPASS) once the bug is fixed, and the rule goes with the fix;
* a deliberate difference (`DELIBERATE`: the seed's NONE-aggregation rule,
  tfcompat's sparse reads and scatter_nd on distributed variables, its
  aggregated slice assignment) or a TF quirk tfcompat does not copy (a
  crash, an internal `assert`, copies left silently divergent) replaces
  TF's recorded result for that entry with tfcompat's behaviour, or drops
  the entry, with the reason.
"""

from __future__ import annotations

import fnmatch
import json
import math
import os
from typing import Any

import numpy as np
import pytest

import tfcompat
from tests.conformance.fixtures import as_numpy_prints, compare_errors
from tests.conformance.fixtures import summary as _summary
from tests.distribute import distribute_programs as dp
from tests.ops.golden import harness
from tfcompat.framework import device as device_lib

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "distribute.json")
with open(FIXTURE, encoding="utf-8") as _f:
    DATA = json.load(_f)
RECORDED = DATA["programs"]


# --------------------------------------------------------------------------
# Where tfcompat is not held to TF's recorded result
# --------------------------------------------------------------------------

IGNORE = object()  # the entry is not compared (see the reason)

_NONE_AGG = ("deliberate: TF 2.21 lets a replica update its own component of a MirroredVariable "
             "with aggregation NONE (the copies silently diverge); tfcompat follows the seed and "
             "raises ValueError (the issue: 'the seed wins here'), changing nothing.")
_NONE_AGG_ERROR = {"error": "ValueError",
                   "key": "You must specify an aggregation method to update a MirroredVariable "
                          "in Replica Context"}

# (program glob, entry glob, override, reason). An override is an expected error
# ({"error", "key"}), "unchanged" (a list of components that keep their initial value),
# ("components", [value, ...]) (a list of components with these values), ("as", program,
# entry) (TF's recorded result of another entry), ("trunc", dtype) (TF's float result
# truncated to the integer dtype), ("tfcompat", encoding) (tfcompat's result, spelled out),
# or IGNORE.
DELIBERATE = [
    ("mv_replica_update/NONE/*", "returned", _NONE_AGG_ERROR, _NONE_AGG),
    ("mv_replica_update/NONE/*", "after", "unchanged", _NONE_AGG),
    ("mv_scatter_replica/NONE", "scatter_*/after", "unchanged", _NONE_AGG),
    ("mv_scatter_replica/NONE", "scatter_*", _NONE_AGG_ERROR, _NONE_AGG),
]
DELIBERATE += [
    (f"mv_replica_update/{agg}/{op}/py_zero", entry,
     ("as", f"mv_replica_update/{agg}/{op}/np_zero", entry),
     "TF quirk: TF 2.21 means a Python 0 passed by every replica to stand for zero "
     "(`reduce_non_distributed_value`) but crashes on it (AttributeError: 'float' object has no "
     "attribute 'shape'); held to what TF does for a NumPy zero instead.")
    for agg in ("SUM", "MEAN") for op in dp._OPS for entry in ("returned", "after")]
_INT_MEAN = ("deliberate (docs/differences.md, Distribution): MEAN of integer values truncates "
             "the mean in the values' dtype; TF true-divides the integer sum (float64).")
DELIBERATE += [
    ("reduce/int32", "MEAN/none", ("trunc", "int32"), _INT_MEAN),
    ("reduce/int64", "MEAN/none", ("trunc", "int64"), _INT_MEAN),
    ("all_reduce/int32", "MEAN", ("trunc", "int32"), _INT_MEAN),
    ("all_reduce/int64", "MEAN", ("trunc", "int64"), _INT_MEAN),
    ("all_reduce_three", "MEAN/int32", ("trunc", "int32"), _INT_MEAN),
]
_TF_ASSERT = ("TF quirk: TF 2.21 trips an internal `assert` (AssertionError); tfcompat raises "
              "ValueError naming the mismatch.")
DELIBERATE += [
    ("run_returns", "list_len_differs", {"error": "ValueError", "key": None}, _TF_ASSERT),
    ("run_returns", "dict_keys_differ", {"error": "ValueError", "key": None}, _TF_ASSERT),
    ("helpers_regroup", "*_mismatch", {"error": "ValueError", "key": None}, _TF_ASSERT),
    ("strategy_devices", "duplicates",
     {"error": "ValueError", "key": "No duplicates allowed in `devices` argument"}, _TF_ASSERT),
    ("all_reduce_non_distributed", "py_const_*", IGNORE,
     "TF quirk: TF 2.21 crashes on a Python number (AttributeError: 'float' object has no "
     "attribute 'dtype'), the all-reduce's custom gradient expects tensors."),
    ("all_reduce_non_distributed", "empty_nest", IGNORE,
     "TF quirk: TF 2.21 crashes on an empty nest (AttributeError: 'NoneType' object has no "
     "attribute 'batch_reduce')."),
    ("all_reduce_non_distributed", "outside_tensor_*", IGNORE,
     "TF quirk: TF 2.21 treats one tensor passed by every replica as a single-replica value and "
     "returns it unreduced, even for SUM (cross_device_ops' one-value shortcut)."),
    ("reduce_inputs", "mirrored_var/SUM", IGNORE,
     "TF quirk: TF 2.21 trips `assert not isinstance(value, values.Mirrored)` on a SUM of a "
     "MirroredVariable (AssertionError, empty message)."),
    ("train_apply_outside_scope", "after", IGNORE,
     "TF quirk: outside the strategy's scope TF 2.21's legacy optimizer applies the update "
     "through `var.handle` (the primary's): only component 0 changes and the copies diverge."),
]


def _tensor(value: Any, shape: list, dtype: str = "float32") -> dict:
    return {"type": "tensor", "dtype": dtype, "shape": shape, "value": value}


def _each(kind: str, enc: dict, n: int = 2) -> dict:
    return {"type": kind, "values": [enc] * n}


_SPARSE = ("deliberate (docs/differences.md, Distribution): tfcompat's distributed variables "
           "have sparse_read and gather_nd (the current component's rows), scatter_nd_update/add/"
           "sub and batch_scatter_update (in cross-replica context an update of every "
           "component), which TF 2.21's lack (AttributeError, NotImplementedError); a "
           "SyncOnReadVariable's cross-replica sparse read is refused with ValueError (read the "
           "reduced value and index it).")
DELIBERATE += [
    ("mv_sparse_reads", "sparse_read", ("tfcompat", _tensor([3.0, 1.0], [2])), _SPARSE),
    ("mv_sparse_reads", "gather_nd", ("tfcompat", _tensor([2.0], [1])), _SPARSE),
    ("mv_sparse_reads", "run_sparse_read", ("tfcompat", _each("PerReplica", _tensor([2.0], [1]))),
     _SPARSE),
    ("mv_scatter_nd_cross_replica", "scatter_nd_update",
     ("tfcompat", _each("Mirrored", _tensor([[1.0, 7.0], [8.0, 4.0]], [2, 2]))), _SPARSE),
    ("mv_scatter_nd_cross_replica", "scatter_nd_add",
     ("tfcompat", _each("Mirrored", _tensor([[1.0, 7.0], [8.0, 5.0]], [2, 2]))), _SPARSE),
    ("mv_scatter_nd_cross_replica", "scatter_nd_sub",
     ("tfcompat", _each("Mirrored", _tensor([[0.0, 7.0], [8.0, 5.0]], [2, 2]))), _SPARSE),
    ("mv_scatter_nd_cross_replica", "batch_scatter_update",
     ("tfcompat", _each("Mirrored", _tensor([[0.0, 7.0], [9.0, 9.5]], [2, 2]))), _SPARSE),
    ("mv_scatter_nd_cross_replica", "nd_after", ("components", [[[0.0, 7.0], [9.0, 9.5]]] * 2),
     _SPARSE),
    ("sync_on_read_vector", "sparse_read",
     {"error": "ValueError", "key": "a sparse read in cross-replica context needs the reduced "
                                    "value"}, _SPARSE),
]
_SLICE_ASSIGN = ("deliberate (docs/differences.md, Distribution): `v[k].assign(x)` on a "
                 "MirroredVariable is an update of every component like `v.assign` (aggregated "
                 "in replica context, returning what `assign` returns), so the copies stay "
                 "equal; TF 2.21 writes one component without aggregation (cross-replica: the "
                 "primary; each replica its own) and lets the copies diverge, and inside the "
                 "scope its `v[k]` is a tensor without `assign` (AttributeError).")
DELIBERATE += [
    ("mv_cross_slice_assign", "returned", ("tfcompat", _each("Mirrored", _tensor([7.0, 2.0, 3.0],
                                                                               [3]))),
     _SLICE_ASSIGN),
    ("mv_cross_slice_assign", "after", ("components", [[7.0, 2.0, 3.0]] * 2), _SLICE_ASSIGN),
    ("mv_cross_slice_assign", "returned_range",
     ("tfcompat", _each("Mirrored", _tensor([7.0, 8.0, 9.0], [3]))), _SLICE_ASSIGN),
    ("mv_cross_slice_assign", "after_range", ("components", [[7.0, 8.0, 9.0]] * 2),
     _SLICE_ASSIGN),
    ("mv_cross_slice_assign", "in_scope",
     ("tfcompat", _each("Mirrored", _tensor([7.0, 8.0, 5.0], [3]))), _SLICE_ASSIGN),
    ("mv_cross_slice_assign", "after_in_scope", ("components", [[7.0, 8.0, 5.0]] * 2),
     _SLICE_ASSIGN),
    ("mv_replica_slice_assign", "slice_assign",  # SUM of the replicas' 5 and 6
     ("tfcompat", _each("PerReplica", _tensor([11.0, 2.0, 3.0], [3]))), _SLICE_ASSIGN),
    ("mv_replica_slice_assign", "after_slice_assign", ("components", [[11.0, 2.0, 3.0]] * 2),
     _SLICE_ASSIGN),
]


# One line per tfcompat bug, with where its results show: (program glob, entry glob) pairs,
# or a predicate (program, entry) -> bool. Those entries fail until the bug is fixed (xfail,
# strict): remove the rule with the fix.
class Bug:
    def __init__(self, ident: str, title: str, detail: str, *where: Any) -> None:
        self.ident = ident
        self.reason = f"{ident}: {title}"  # the xfail reason; `detail` says what TF does
        self.detail = detail
        self.where = where

    def matches(self, name: str, entry: str) -> bool:
        return any(w(name, entry) if callable(w) else
                   fnmatch.fnmatchcase(name, w[0]) and fnmatch.fnmatchcase(entry, w[1])
                   for w in self.where)


def _match(rules: list, name: str, entry: str) -> list:
    return [r for r in rules
            if fnmatch.fnmatchcase(name, r[0]) and fnmatch.fnmatchcase(entry, r[1])]


def bugs_for(name: str, entry: str) -> list:
    return [b.reason for b in BUGS if b.matches(name, entry)]


# One rule per known tfcompat bug (none at present), e.g.
#   Bug("B27", "title (file: function)", "what TF does", ("program glob", "entry glob")),
BUGS: list = []


def _initial(name: str) -> Any:
    return [1.0, 2.0, 3.0] if name.startswith("mv_scatter_replica") else 1.0


def _truncated(enc: Any, dtype: str) -> Any:
    """TF's float result of an integer MEAN as tfcompat documents it: truncated, in `dtype`."""
    if isinstance(enc, dict) and enc.get("type") == "tensor":
        return dict(enc, dtype=dtype, value=np.trunc(np.asarray(enc["value"])).astype(
            np.int64).tolist())
    if isinstance(enc, dict) and "values" in enc:
        return dict(enc, values=[_truncated(v, dtype) for v in enc["values"]])
    return enc


def expected_for(name: str, entry: str) -> Any:
    """TF's recorded result for `name`'s `entry`, with a deliberate difference applied."""
    recorded = as_numpy_prints(RECORDED[name]["result"][entry])
    rules = _match(DELIBERATE, name, entry)
    if not rules:
        return recorded
    override = rules[0][2]
    if override is IGNORE:
        return IGNORE
    if override == "unchanged":
        return dict(recorded, items=[dict(c, value=_initial(name)) for c in recorded["items"]])
    if isinstance(override, tuple) and override[0] == "components":
        return dict(recorded, items=[dict(c, value=v)
                                     for c, v in zip(recorded["items"], override[1])])
    if isinstance(override, tuple) and override[0] == "tfcompat":
        return override[1]
    if isinstance(override, tuple) and override[0] == "as":
        return as_numpy_prints(RECORDED[override[1]]["result"][override[2]])
    if isinstance(override, tuple) and override[0] == "trunc":
        return _truncated(recorded, override[1])
    return {"error": override["error"], "message": override["key"] or "", "key": override["key"]}


# --------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------

# The training programs' floats come out of matmuls, reductions and fused optimizer kernels
# whose summation order differs between TF (Eigen) and torch, and between machines (vector
# width, MKL's code path, threads), so TF's and torch's results differ in the last places
# (already the first step's float64 weights). They are held to class 4 of the error model in
# tests/ops/golden/harness.py: per step, TRAIN_ROUNDINGS roundings along the longest path to
# a value (the 3-wide matmul and bias, the loss's square and sum of 4 and division, the
# gradient's sum over the replica's rows and the all-reduce over up to 4 replicas, and the
# optimizer's update: Adam's sqrt, division and moment updates), times the steps taken.
# Everything else is bit-exact.
TRAIN_ROUNDINGS = 16
TOLERANT = {name for name in RECORDED if name.startswith("train/")}


def steps_of(name: str, entry: str) -> int:
    """The training steps behind `entry` of training program `name` (0: not tolerant).

    ``step{i}/...``: ``i + 1`` (its loss is computed on weights after ``i`` updates, its
    weights after ``i + 1``); anything after the loop (slots): every step the program took.
    """
    if name not in TOLERANT:
        return 0
    head = entry.split("/", 1)[0]
    if head.startswith("step") and head[4:].isdigit():
        return int(head[4:]) + 1
    return sum(1 for e in RECORDED[name]["result"] if e.endswith("/loss") and
               e.startswith("step")) or 1


# What TF's `assign` returns is an `_UnreadVariable` named "UnreadVariable" (on the updated
# component's device); tfcompat returns the variable updated, as its core replay accepts
# (tests/conformance encodes no variable names): a returned variable is compared by dtype,
# shape and value.
_UNREAD = "UnreadVariable"

_TINY = {"float16": 2.0 ** -24, "bfloat16": 2.0 ** -133, "float32": 2.0 ** -149,
         "float64": 2.0 ** -1074}


def tolerance(expected: Any, dtype: str, steps: int) -> np.ndarray:
    """The error model's bound on |tfcompat - TF| at each of TF's values `expected`."""
    y = np.asarray(expected, dtype=np.float64)
    case = harness.Case(None, ulps=harness.DEFAULT_ULPS, n=TRAIN_ROUNDINGS, steps=steps,
                        terms="normwise")
    return harness.bound(np.where(np.isfinite(y), y, 0.0), dtype, case) + \
        harness.DEFAULT_ULPS * _TINY[dtype]


def _close(a: Any, b: Any, dtype: str, steps: int) -> bool:
    """`b` (tfcompat) within the bound around `a` (TF); NaN where TF has NaN, infinities equal."""
    if dtype not in _TINY:
        return dp_same(a, b)
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if x.shape != y.shape:
        return False
    if not np.array_equal(np.isnan(x), np.isnan(y)):
        return False
    inf = np.isinf(x)
    if not np.array_equal(inf, np.isinf(y)) or not np.array_equal(x[inf], y[inf]):
        return False
    ok = np.isfinite(x)
    return bool(np.all(np.abs(x - y)[ok] <= tolerance(x, dtype, steps)[ok]))


def dp_same(a: Any, b: Any) -> bool:
    """Exact structural equality of encoded values (NaN equals NaN, bool is not int)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(dp_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(dp_same(a[k], b[k]) for k in a)
    return a == b


def compare(expected: Any, actual: Any, path: str, problems: list, steps: int,
            dtype: str = "") -> None:
    """Append a readable line to `problems` for every place `actual` differs from TF.

    `steps`: 0 for bit-exact floats, else the training steps of the error model's bound."""
    if compare_errors(expected, actual, path, problems):
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        if expected.get("type") != actual.get("type"):
            problems.append(f"{path}: TF gave {_summary(expected)}; "
                            f"tfcompat gave {_summary(actual)}")
            return
        dtype = expected.get("dtype", dtype) if isinstance(expected.get("dtype"), str) else dtype
        skip = ("name", "device") if expected.get("name") == _UNREAD else ()
        for k in sorted(set(expected) | set(actual)):
            if k in skip:
                continue
            if k not in actual or k not in expected:
                side, only = ("TF", expected[k]) if k in expected else ("tfcompat", actual[k])
                problems.append(f"{path}.{k}: present only in {side}: {_summary(only)}")
            elif k == "value" and steps:
                if not _close(expected[k], actual[k], dtype, steps):
                    problems.append(f"{path}.value: TF {_summary(expected[k])} != tfcompat "
                                    f"{_summary(actual[k])} (beyond the error model's bound "
                                    f"for {steps} steps of {dtype}: {harness.DEFAULT_ULPS} ulps "
                                    f"+ {steps} x 2 gamma({TRAIN_ROUNDINGS}) max|value|)")
            else:
                compare(expected[k], actual[k], f"{path}.{k}", problems, steps, dtype)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual) \
            and any(isinstance(e, dict) for e in expected):
        for i, (e, a) in enumerate(zip(expected, actual)):
            compare(e, a, f"{path}[{i}]", problems, steps, dtype)
        return
    if not dp_same(expected, actual):
        problems.append(f"{path}: TF {_summary(expected)} != tfcompat {_summary(actual)}")


# --------------------------------------------------------------------------
# The replay: each program runs once; each recorded entry is a test
# --------------------------------------------------------------------------

def _configure(cpus: int) -> None:
    """A fresh device runtime with the host CPU split into `cpus` logical devices."""
    device_lib._reset_runtime()
    _hide_gpus()
    cpu = tfcompat.config.list_physical_devices("CPU")[0]
    tfcompat.config.set_logical_device_configuration(
        cpu, [tfcompat.config.LogicalDeviceConfiguration()] * cpus)


def _hide_gpus() -> None:
    # as tests/conftest.py: the suite pins CPU behaviour unless TFCOMPAT_TEST_GPU is set
    if not os.environ.get("TFCOMPAT_TEST_GPU"):
        tfcompat.config.set_visible_devices(tfcompat.config.list_physical_devices("CPU"))


_RESULTS: dict = {}


def results(name: str) -> dict:
    """tfcompat's results for program `name` (run once, on its own fresh runtime)."""
    if name not in _RESULTS:
        _configure(RECORDED[name]["cpus"])
        try:
            _RESULTS[name] = dp.run_program(tfcompat, name)
        finally:
            device_lib._reset_runtime()
            _hide_gpus()
    return _RESULTS[name]


ENTRIES = "(entries)"


def _params() -> list:
    out = []
    for name in dp.PROGRAMS:
        if name not in RECORDED:
            out.append(pytest.param(name, ENTRIES, id=f"{name}::{ENTRIES}"))
            continue
        for entry in [ENTRIES] + list(RECORDED[name]["result"]):
            if entry != ENTRIES and expected_for(name, entry) is IGNORE:
                continue
            reasons = bugs_for(name, entry)
            marks = [pytest.mark.xfail(strict=True, reason="; ".join(reasons))] if reasons else []
            out.append(pytest.param(name, entry, id=f"{name}::{entry}", marks=marks))
    return out


def problems_for(name: str, entry: str) -> list:
    """How tfcompat's `entry` of program `name` differs from TF's (empty: it does not)."""
    assert name in RECORDED, f"program {name} is not in the fixture: rerun gen_distribute.py"
    actual = results(name)
    if entry == ENTRIES:
        want, got = list(RECORDED[name]["result"]), list(actual)
        if want == got:
            return []
        escaped = actual.get("escaped")
        return [f"entries: TF recorded {want}, tfcompat {got}"
                + (f" (escaped: {escaped})" if escaped else "")]
    if entry not in actual:
        escaped = actual.get("escaped")
        return [f"{entry}: not recorded by tfcompat"
                + (f"; the program escaped with {_summary(escaped)}" if escaped else "")]
    problems: list = []
    compare(expected_for(name, entry), actual[entry], entry, problems, steps_of(name, entry))
    return problems


@pytest.mark.parametrize("name,entry", _params())
def test_distribute_golden(name, entry):
    problems = problems_for(name, entry)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_fixture_is_complete():
    assert DATA["versions"]["tensorflow"].startswith("2.21")
    assert DATA["versions"]["tf_keras"].startswith("2.21")
    assert list(RECORDED) == list(dp.PROGRAMS)
    for name, entry in RECORDED.items():
        assert entry["cpus"] == dp.CPUS[name], name
    for bug in BUGS:  # every rule still names something
        assert any(bug.matches(n, e) for n, r in RECORDED.items() for e in [ENTRIES, *r["result"]]
                   ), bug.reason
    for rule in DELIBERATE:
        assert any(_match([rule], n, e) for n, r in RECORDED.items() for e in r["result"]), rule


# --------------------------------------------------------------------------
# Not loose: a value moved 3 ulps beyond the error model's bound fails
# --------------------------------------------------------------------------

def _first_float(expected: Any, actual: Any, dtype: str = "") -> Any:
    """(TF's value, tfcompat's record holding it, dtype) of the first float value, or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        dtype = expected.get("dtype", dtype) if isinstance(expected.get("dtype"), str) else dtype
        if "value" in expected and dtype in _TINY and "value" in actual:
            return expected["value"], actual, dtype
        for k in sorted(expected):
            if k in actual:
                found = _first_float(expected[k], actual[k], dtype)
                if found:
                    return found
    if isinstance(expected, list) and isinstance(actual, list):
        for e, a in zip(expected, actual):
            found = _first_float(e, a, dtype)
            if found:
                return found
    return None


@pytest.mark.parametrize("name,entry", [
    ("train/sgd_momentum/float64", "step0/w"), ("train/sgd_momentum/float64", "step3/loss"),
    ("train/adam", "step3/w"), ("train/adam/float64", "slot/w/v"),
    ("train/sgd_momentum/float16", "step1/w"), ("train/adam/4replicas_of_1", "step1/b"),
    ("mv_cross_slice_assign", "after"),  # not a training program: bit-exact
])
def test_planted_error_fails(name, entry):
    import copy

    assert problems_for(name, entry) == []
    expected = expected_for(name, entry)
    actual = copy.deepcopy(results(name)[entry])
    found = _first_float(expected, actual)
    assert found, f"{name}::{entry} holds no float value"
    want, record, dtype = found
    flat = np.asarray(want, dtype=np.float64).reshape(-1)
    steps = steps_of(name, entry)
    limit = float(np.reshape(tolerance(want, dtype, steps), -1)[0]) if steps else 0.0
    moved = float(harness.beyond(flat[0], limit, dtype, ulps=1 if not steps else 3))
    value = np.asarray(record["value"], dtype=np.float64)
    value.reshape(-1)[0] = moved
    record["value"] = value.tolist() if value.ndim else float(value)
    problems: list = []
    compare(expected, actual, entry, problems, steps)
    assert problems and ("beyond the error model" in problems[0] or not steps), problems


def test_training_tolerance_stays_tight():
    # a loosened model (TRAIN_ROUNDINGS, the factor, the steps) fails here, although the
    # planted-error test (a value moved beyond whatever the bound is) would still pass
    w = np.asarray(RECORDED["train/sgd_momentum/float64"]["result"]["step0/w"]["items"][0]["value"])
    assert steps_of("train/sgd_momentum/float64", "step0/w") == 1
    assert steps_of("train/sgd_momentum/float64", "slot/w/momentum") == 4
    assert steps_of("mv_cross_slice_assign", "after") == 0
    assert float(np.max(tolerance(w, "float64", 1))) <= 3e-15  # |w| <= 0.5: ~14 ulps
