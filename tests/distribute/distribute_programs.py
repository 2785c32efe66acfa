"""`tf.distribute.MirroredStrategy` programs: one text, two runtimes.

Every program here takes the TensorFlow-shaped module as its only argument
(`tf`): `gen_distribute.py` runs it with real TensorFlow 2.21 (the CPU split
into logical devices) and records what it returns in
``fixtures/distribute.json``; `test_distribute_golden.py` runs the same
code with ``tfcompat`` and compares. This file must not import TensorFlow
or torch.

A program builds its own `MirroredStrategy` over the logical CPUs
(`strategy(tf)`: ``/cpu:0``, ``/cpu:1``; three for programs registered with
``cpus=3``) and records named results in a `Rec`: each entry is encoded
when it is recorded (a variable's value then, not at the end), and an
exception is recorded as its class and message (`programs.Err`), so one
failing step does not hide the next.

Results are encoded by :func:`encode`: the conformance encoding
(`tests/conformance/programs.py`: tensors, variables, Python values,
errors), plus distributed values (``{"type": CLASS, "values": [R, ...]}``
for `PerReplica`, `Mirrored`, `MirroredVariable`, `SyncOnReadVariable`),
variables with their name and device, enums, strategies and replica
contexts.
"""

from __future__ import annotations

import collections
import enum
import importlib
from typing import Any, Callable, Dict

import numpy as np

from tests.conformance.programs import Err, _dims, _to_numpy, array_json, attempt, encode_common

__all__ = ["PROGRAMS", "CPUS", "encode", "Rec", "run_program"]


# --------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------

def encode(tf: Any, x: Any) -> Any:
    """JSON for a result of either runtime (the core suite's encoding, plus distributed values,
    variables with their names and devices, enums, strategies and replica contexts)."""
    if isinstance(x, Err):
        return x.json()
    if x is None:
        return {"type": "none"}
    if isinstance(x, tf.distribute.DistributedValues):
        return {"type": type(x).__name__, "values": [encode(tf, v) for v in x.values]}
    if isinstance(x, tf.Variable):
        return {"type": "variable", "name": x.name, "device": x.device, "dtype": x.dtype.name,
                "shape": _dims(x.shape), "value": array_json(_to_numpy(x.read_value()))}
    if isinstance(x, enum.Enum):
        return {"type": "enum", "name": x.name}
    if isinstance(x, tf.distribute.Strategy):
        return {"type": "strategy", "mirrored": isinstance(x, tf.distribute.MirroredStrategy)}
    if isinstance(x, tf.distribute.ReplicaContext):
        return {"type": "replica_context"}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"type": "namedtuple", "fields": list(x._fields),
                "items": [encode(tf, i) for i in x]}
    out = encode_common(tf, x, encode)
    return out if out is not None else {"type": "other", "class": type(x).__name__}


class Rec(dict):
    """Named results of one program, each encoded when recorded."""

    def __init__(self, tf: Any) -> None:
        super().__init__()
        self.tf = tf

    def __setitem__(self, key: str, value: Any) -> None:
        if key in self:
            raise KeyError(f"result {key!r} recorded twice")
        super().__setitem__(key, encode(self.tf, value))

    def run(self, key: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Record `fn(*args, **kwargs)` (or what it raised) under `key`; return it."""
        out = attempt(fn, *args, **kwargs)
        self[key] = out
        return out


# --------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------

PROGRAMS: Dict[str, Callable[[Any], Rec]] = {}
CPUS: Dict[str, int] = {}


def program(name: str = None, cpus: int = 2):
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        key = name or fn.__name__
        if key in PROGRAMS:
            raise KeyError(f"program {key!r} registered twice")
        PROGRAMS[key] = fn
        CPUS[key] = cpus
        return fn
    return register


def run_program(tf: Any, name: str) -> dict:
    """Run program `name`; its results, or the error that escaped it."""
    rec = Rec(tf)
    try:
        PROGRAMS[name](tf, rec)
    except Exception as e:  # noqa: BLE001 - an escaped error is a recorded outcome
        rec["escaped"] = Err(e)
    return dict(rec)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

_KEY_BASE = [0]


def strategy(tf: Any, n: int = 2) -> Any:
    """A MirroredStrategy over logical CPUs 0..n-1.

    TF's strategies in one process share their collective group and
    instance keys (`MirroredStrategy._collective_key_base`, which TF's own
    tests set per strategy): a later strategy's all-reduce then meets an
    earlier one's of another dtype and aborts. A program process holds many
    strategies, so each gets its own key range, as TF's tests do.
    """
    if tf.__name__ == "tensorflow":
        _KEY_BASE[0] += 1000
        tf.distribute.MirroredStrategy._collective_key_base = _KEY_BASE[0]
    return tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(n)])


def rid(tf: Any) -> Any:
    """This replica's id (TF: an int32 tensor; read through tf.cast either way)."""
    return tf.distribute.get_replica_context().replica_id_in_sync_group


def per_replica(tf: Any, s: Any, fn: Callable[[int], Any]) -> Any:
    """PerReplica of `fn(replica_id)` (a plain int id) through the public API."""
    return s.experimental_distribute_values_from_function(
        lambda ctx: fn(ctx.replica_id_in_sync_group))


def local(tf: Any, s: Any, x: Any) -> Any:
    return list(s.experimental_local_results(x))


def dist_utils(tf: Any) -> Any:
    """The seed's helpers: TF's distribute_utils, tfcompat's distribute.values."""
    if tf.__name__ == "tensorflow":
        return importlib.import_module("tensorflow.python.distribute.distribute_utils")
    return importlib.import_module(tf.__name__ + ".distribute.values")


AGG = ("SUM", "MEAN", "ONLY_FIRST_REPLICA", "NONE")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "int64")


def agg(tf: Any, name: str) -> Any:
    return getattr(tf.VariableAggregation, name)


def mk(tf: Any, value: Any, dtype: str, **kw: Any) -> Any:
    """A variable of `dtype` from a Python value (bfloat16 through tf.cast)."""
    return tf.Variable(tf.cast(tf.constant(value, tf.float64), getattr(tf, dtype)), **kw)


# --------------------------------------------------------------------------
# Strategy construction
# --------------------------------------------------------------------------

@program()
def strategy_basics(tf, rec):
    s = strategy(tf)
    rec["num_replicas_in_sync"] = s.num_replicas_in_sync
    rec["worker_devices"] = list(s.extended.worker_devices)
    rec["parameter_devices"] = list(s.extended.parameter_devices)
    rec["is_strategy"] = isinstance(s, tf.distribute.Strategy)
    rec["get_strategy_outside"] = tf.distribute.get_strategy() is s
    rec["has_strategy_outside"] = tf.distribute.has_strategy()
    rec["cross_replica_outside"] = tf.distribute.in_cross_replica_context()
    rec["replica_context_outside"] = tf.distribute.get_replica_context()
    rec["default_replica_id"] = tf.distribute.get_replica_context().replica_id_in_sync_group
    rec["default_num_replicas"] = tf.distribute.get_replica_context().num_replicas_in_sync
    with s.scope():
        rec["get_strategy_in_scope"] = tf.distribute.get_strategy() is s
        rec["has_strategy_in_scope"] = tf.distribute.has_strategy()
        rec["cross_replica_in_scope"] = tf.distribute.in_cross_replica_context()
        rec["replica_context_in_scope"] = tf.distribute.get_replica_context()

    def fn():
        ctx = tf.distribute.get_replica_context()
        return {"strategy_is_s": tf.distribute.get_strategy() is s,
                "ctx_strategy_is_s": ctx.strategy is s,
                "cross": tf.distribute.in_cross_replica_context(),
                "has": tf.distribute.has_strategy(),
                "num": ctx.num_replicas_in_sync}
    rec["in_run"] = s.run(fn)


@program()
def strategy_devices(tf, rec):
    rec["default"] = attempt(lambda: tf.distribute.MirroredStrategy().num_replicas_in_sync)
    rec["default_devices"] = attempt(
        lambda: list(tf.distribute.MirroredStrategy().extended.worker_devices))
    rec["one_device"] = attempt(lambda: tf.distribute.MirroredStrategy(["/cpu:1"])
                                .extended.worker_devices)
    rec["spelled"] = attempt(lambda: list(tf.distribute.MirroredStrategy(
        ["/device:CPU:0", "/device:CPU:1"]).extended.worker_devices))
    rec["spelled_with_job"] = attempt(lambda: list(tf.distribute.MirroredStrategy(
        ["/job:localhost/replica:0/task:0/device:CPU:0",
         "/job:localhost/replica:0/task:0/device:CPU:1"]).extended.worker_devices))
    rec["duplicates"] = attempt(lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:0"]))
    rec["empty"] = attempt(lambda: tf.distribute.MirroredStrategy([]).num_replicas_in_sync)


@program(cpus=3)
def strategy_three_cpus(tf, rec):
    s = strategy(tf, 3)
    rec["num_replicas_in_sync"] = s.num_replicas_in_sync
    rec["ids"] = s.run(lambda: rid(tf))
    with s.scope():
        v = tf.Variable(1.0, name="v")
    rec["names"] = [c.name for c in v.values]
    rec["devices"] = [c.device for c in v.values]
    two = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:2"])
    with two.scope():
        w = tf.Variable(1.0, name="w")
    rec["two_of_three_devices"] = [c.device for c in w.values]
    rec["two_of_three_ids"] = two.run(lambda: rid(tf))


# --------------------------------------------------------------------------
# MirroredVariable: creation
# --------------------------------------------------------------------------

_INITIAL = {
    "py_float": lambda tf: 1.5,
    "py_int": lambda tf: 3,
    "py_list": lambda tf: [1.0, 2.0, 3.0],
    "np_float64": lambda tf: np.array([1.5, -2.0], np.float64),
    "np_int64": lambda tf: np.array([[1, 2], [3, 4]], np.int64),
    "np_float32_scalar": lambda tf: np.float32(0.25),
    "tensor_float16": lambda tf: tf.constant([0.5, 1.5], tf.float16),
    "tensor_bfloat16": lambda tf: tf.cast(tf.constant([0.5, 1.5]), tf.bfloat16),
    "tensor_int32": lambda tf: tf.constant([7, 8], tf.int32),
    "variable": lambda tf: tf.Variable([4.0, 5.0]),
    "callable": lambda tf: (lambda: tf.ones([2, 2])),
}


def _creation(kind):
    def prog(tf, rec):
        s = strategy(tf)
        init = _INITIAL[kind](tf)
        with s.scope():
            v = tf.Variable(init, name="v")
        rec["var"] = v
        rec["is_variable"] = isinstance(v, tf.Variable)
        rec["name"] = v.name
        rec["dtype"] = v.dtype
        rec["shape"] = v.shape
        rec["device"] = v.device
        rec["trainable"] = v.trainable
        rec["synchronization"] = v.synchronization
        rec["aggregation"] = v.aggregation
        rec["component_sync"] = [c.synchronization for c in v.values]
        rec["component_agg"] = [c.aggregation for c in v.values]
        rec["component_trainable"] = [c.trainable for c in v.values]
        rec["distribute_strategy_is_s"] = v.distribute_strategy is s
        rec["repr"] = repr(v)
    return prog


for _kind in _INITIAL:
    program(f"mv_create/{_kind}")(_creation(_kind))


@program()
def mv_create_options(tf, rec):
    s = strategy(tf)
    with s.scope():
        a = tf.Variable(1.0, name="a", trainable=False)
        b = tf.Variable(1.0, name="b", synchronization=tf.VariableSynchronization.ON_WRITE,
                        aggregation=tf.VariableAggregation.MEAN)
        c = tf.Variable(2.0, dtype=tf.float64)
        d = tf.Variable(2, dtype=tf.float32, name="d")
        rec["none_sync"] = attempt(lambda: tf.Variable(
            1.0, name="n", synchronization=tf.VariableSynchronization.NONE))
        rec["bad_agg"] = attempt(lambda: tf.Variable(1.0, name="x", aggregation="SUM"))
        with tf.name_scope("outer"):
            e = tf.Variable(1.0, name="e")
        f = tf.Variable(1.0)
        g = tf.Variable(1.0, name="g", shape=tf.TensorShape(None))
    rec["a"] = [a.trainable, [x.trainable for x in a.values]]
    rec["b"] = [b.synchronization, b.aggregation, type(b).__name__]
    rec["c"] = c
    rec["d"] = d
    rec["e"] = [e.name] + [x.name for x in e.values]
    rec["f"] = [f.name] + [x.name for x in f.values]
    rec["g_shape"] = [g.shape] + [x.shape for x in g.values]


@program()
def mv_created_outside_scope(tf, rec):
    s = strategy(tf)
    v = tf.Variable(1.0, name="plain")
    rec["type"] = type(v).__name__
    rec["run_reads"] = s.run(lambda: v.read_value())
    rec["run_returns_var"] = s.run(lambda: v)


# --------------------------------------------------------------------------
# MirroredVariable: reads in cross-replica context
# --------------------------------------------------------------------------

def _reads(dtype):
    def prog(tf, rec):
        s = strategy(tf)
        with s.scope():
            v = mk(tf, [1.0, 2.0, 3.0], dtype, name="v")
        rec["read_value"] = v.read_value()
        rec["value"] = v.value()
        rec["numpy"] = v.numpy()
        rec["convert"] = tf.convert_to_tensor(v)
        rec["identity"] = tf.identity(v)
        rec["np_asarray"] = attempt(np.asarray, v)
        rec["add"] = v + 1
        rec["radd"] = 1 + v
        rec["mul_self"] = v * v
        rec["neg"] = -v
        rec["sub_tensor"] = v - tf.ones([3], getattr(tf, dtype))
        rec["lt"] = v < 2
        rec["getitem"] = v[1]
        rec["slice"] = v[1:]
        rec["reduce_sum"] = tf.reduce_sum(v)
        rec["tf_add"] = tf.add(v, v)
        rec["gather"] = attempt(tf.gather, v, [0, 0])
        rec["in_scope_read"] = attempt(lambda: _in_scope(s, v.read_value))
        rec["in_scope_add"] = attempt(lambda: _in_scope(s, lambda: v + 1))
    return prog


def _in_scope(s, fn):
    with s.scope():
        return fn()


for _dt in DTYPES:
    program(f"mv_reads/{_dt}")(_reads(_dt))


@program()
def mv_reads_divergent_components(tf, rec):
    """Components made to differ: which one each read resolves to."""
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    v.values[1].assign([10.0, 20.0])
    rec["components"] = local(tf, s, v)
    rec["read_value"] = v.read_value()
    rec["plus"] = v + 0
    rec["numpy"] = v.numpy()
    with tf.device("/cpu:1"):
        rec["dev1_read_value"] = v.read_value()
        rec["dev1_value"] = v.value()
        rec["dev1_plus"] = v + 0
        rec["dev1_convert"] = tf.convert_to_tensor(v)
        rec["dev1_device"] = v.device
        rec["dev1_numpy"] = v.numpy()
    with tf.device("/cpu:0"):
        rec["dev0_read_value"] = v.read_value()
        rec["dev0_device"] = v.device
    with s.scope(), tf.device("/cpu:1"):
        rec["scope_dev1_read_value"] = v.read_value()
        rec["scope_dev1_value"] = v.value()
        rec["scope_dev1_plus"] = v + 0
        rec["scope_dev1_convert"] = tf.convert_to_tensor(v)
        rec["scope_dev1_device"] = v.device
    with s.scope():
        rec["scope_read_value"] = v.read_value()
        rec["scope_device"] = v.device
    rec["run_read_value"] = s.run(lambda: v.read_value())
    rec["run_value"] = s.run(lambda: v.value())
    rec["run_plus"] = s.run(lambda: v + 0)
    rec["run_identity"] = s.run(lambda: tf.identity(v))
    rec["run_getitem"] = s.run(lambda: v[1])
    rec["run_reduce_sum"] = s.run(lambda: tf.reduce_sum(v))
    rec["run_numpy"] = s.run(lambda: v.numpy())
    rec["run_device"] = s.run(lambda: v.device)
    rec["run_returns_var"] = s.run(lambda: v)
    rec["run_returns_component"] = s.run(lambda: v.values[0])


@program()
def mv_sparse_reads(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
    rec["sparse_read"] = attempt(v.sparse_read, [2, 0])
    rec["gather_nd"] = attempt(v.gather_nd, [[1]])
    rec["run_sparse_read"] = attempt(s.run, lambda: v.sparse_read([1]))


# --------------------------------------------------------------------------
# MirroredVariable: updates in replica context
# --------------------------------------------------------------------------

# What each replica passes to the update. `r` is the replica id as an int.
_UPDATE_VALUES = {
    "per_replica": lambda tf, dtype, r, outside: tf.cast((r + 1) * 1.5, getattr(tf, dtype)),
    "py_const": lambda tf, dtype, r, outside: 2.0,
    "py_int_const": lambda tf, dtype, r, outside: 2,
    "np_const": lambda tf, dtype, r, outside: outside["np"],
    "tensor_outside": lambda tf, dtype, r, outside: outside["tensor"],
    "tensor_inside": lambda tf, dtype, r, outside: tf.constant(2.0, getattr(tf, dtype)),
    "variable_outside": lambda tf, dtype, r, outside: outside["var"],
    "py_zero": lambda tf, dtype, r, outside: 0.0,
    "np_zero": lambda tf, dtype, r, outside: outside["np0"],
}

_OPS = ("assign", "assign_add", "assign_sub")


def _replica_update(aggregation, op, kind, dtype, read_value=True, cpus=2):
    def prog(tf, rec):
        s = strategy(tf, cpus)
        v = attempt(lambda: _in_scope(s, lambda: mk(tf, 1.0, dtype, name="v",
                                                    aggregation=agg(tf, aggregation))))
        if isinstance(v, Err):
            rec["create"] = v
            return
        outside = {"np": np.array(2.0, dtype="float32" if dtype == "bfloat16" else dtype),
                   "np0": np.float32(0.0),
                   "tensor": tf.constant(2.0, getattr(tf, dtype)),
                   "var": mk(tf, 2.0, dtype, name="outside")}

        def fn():
            r = tf.cast(rid(tf), tf.int32)
            value = _UPDATE_VALUES[kind](tf, dtype, int(r.numpy()) if hasattr(r, "numpy")
                                         else int(r), outside)
            out = getattr(v, op)(value, read_value=read_value)
            return out
        rec["returned"] = attempt(s.run, fn)
        rec["after"] = local(tf, s, v)
    return prog


for _agg in AGG:
    for _op in _OPS:
        for _kind in _UPDATE_VALUES:
            program(f"mv_replica_update/{_agg}/{_op}/{_kind}")(
                _replica_update(_agg, _op, _kind, "float32"))
for _agg in ("SUM", "MEAN", "ONLY_FIRST_REPLICA"):
    for _dt in DTYPES:
        if _dt != "float32":
            program(f"mv_replica_update/{_agg}/assign_add/per_replica/{_dt}")(
                _replica_update(_agg, "assign_add", "per_replica", _dt))
            program(f"mv_replica_update/{_agg}/assign/py_const/{_dt}")(
                _replica_update(_agg, "assign", "py_const", _dt))
    program(f"mv_replica_update/{_agg}/assign_add/per_replica/no_read")(
        _replica_update(_agg, "assign_add", "per_replica", "float32", read_value=False))
    program(f"mv_replica_update/{_agg}/assign/per_replica/no_read")(
        _replica_update(_agg, "assign", "per_replica", "float32", read_value=False))
    program(f"mv_replica_update/{_agg}/assign_add/per_replica/3cpus", cpus=3)(
        _replica_update(_agg, "assign_add", "per_replica", "float32", cpus=3))
    program(f"mv_replica_update/{_agg}/assign_add/per_replica/int32_3cpus", cpus=3)(
        _replica_update(_agg, "assign_add", "per_replica", "int32", cpus=3))


@program(cpus=3)
def mv_replica_mean_rounding(tf, rec):
    """MEAN over three replicas of values whose sum and mean round (float32, float16)."""
    s = strategy(tf, 3)
    for dtype in ("float32", "float16", "float64", "bfloat16"):
        with s.scope():
            v = mk(tf, 0.0, dtype, name="v", aggregation=tf.VariableAggregation.MEAN)
        s.run(lambda: v.assign(tf.cast(0.1, getattr(tf, dtype)) *
                               tf.cast(tf.cast(rid(tf), tf.int32) + 1, getattr(tf, dtype))))
        rec[dtype] = local(tf, s, v)
        with s.scope():
            w = mk(tf, 0.0, dtype, name="w", aggregation=tf.VariableAggregation.SUM)
        s.run(lambda: w.assign(tf.cast(0.1, getattr(tf, dtype)) *
                               tf.cast(tf.cast(rid(tf), tf.int32) + 1, getattr(tf, dtype))))
        rec[dtype + "_sum"] = local(tf, s, w)


@program()
def mv_replica_update_shapes(tf, rec):
    """Vector variables: per-replica vectors, a wrong shape, a wrong dtype."""
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0, 3.0], name="v", aggregation=tf.VariableAggregation.SUM)
    rec["add_vec"] = attempt(s.run, lambda: v.assign_add(
        tf.cast(tf.fill([3], tf.cast(rid(tf), tf.int32) + 1), tf.float32)))
    rec["after_add_vec"] = local(tf, s, v)
    rec["wrong_shape"] = attempt(s.run, lambda: v.assign(
        tf.cast(tf.fill([2], tf.cast(rid(tf), tf.int32)), tf.float32)))
    rec["after_wrong_shape"] = local(tf, s, v)
    rec["wrong_dtype"] = attempt(s.run, lambda: v.assign(
        tf.cast(tf.fill([3], tf.cast(rid(tf), tf.int32)), tf.float64)))
    rec["after_wrong_dtype"] = local(tf, s, v)


@program()
def mv_replica_slice_assign(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0, 3.0], name="v", aggregation=tf.VariableAggregation.SUM)
    rec["slice_assign"] = attempt(s.run, lambda: v[0].assign(
        tf.cast(tf.cast(rid(tf), tf.int32) + 5, tf.float32)))
    rec["after_slice_assign"] = local(tf, s, v)


@program()
def mv_replica_update_twice(tf, rec):
    """Two updates in one run and a read between them (merge order)."""
    s = strategy(tf)
    with s.scope():
        v = tf.Variable(1.0, name="v", aggregation=tf.VariableAggregation.MEAN)

    def fn():
        r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
        v.assign_add(r + 1.0)
        mid = v.read_value()
        v.assign_sub(r * 2.0)
        return mid, v.read_value()
    rec["returned"] = s.run(fn)
    rec["after"] = local(tf, s, v)


@program()
def mv_replica_none_aggregation_local(tf, rec):
    """NONE aggregation: updating a replica's own component directly (allowed everywhere)."""
    s = strategy(tf)
    with s.scope():
        v = tf.Variable(1.0, name="v")

    def fn():
        r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
        ctx = tf.distribute.get_replica_context()
        return ctx.merge_call(lambda strat, x: strat.extended.update(
            v, lambda c, d: c.assign_add(d), args=(x,)), args=(r + 1.0,))
    rec["returned"] = attempt(s.run, fn)
    rec["after"] = local(tf, s, v)


# --------------------------------------------------------------------------
# MirroredVariable: cross-replica updates
# --------------------------------------------------------------------------

_CROSS_VALUES = {
    "py_float": lambda tf, s: 5.0,
    "py_int": lambda tf, s: 5,
    "np_float32": lambda tf, s: np.float32(5.0),
    "np_float64": lambda tf, s: np.float64(5.0),
    "tensor": lambda tf, s: tf.constant(5.0),
    "tensor_float64": lambda tf, s: tf.constant(5.0, tf.float64),
    "variable": lambda tf, s: tf.Variable(5.0),
    "per_replica": lambda tf, s: per_replica(tf, s, lambda r: tf.constant(5.0 + r)),
    "mirrored_var": lambda tf, s: _in_scope(s, lambda: tf.Variable(5.0, name="m")),
    "wrong_shape": lambda tf, s: tf.constant([5.0, 6.0]),
}


def _cross_update(op, kind, in_scope, aggregation="NONE"):
    def prog(tf, rec):
        s = strategy(tf)
        with s.scope():
            v = tf.Variable(1.0, name="v", aggregation=agg(tf, aggregation))
        value = _CROSS_VALUES[kind](tf, s)
        fn = getattr(v, op)
        if in_scope:
            rec["returned"] = attempt(lambda: _in_scope(s, lambda: fn(value)))
        else:
            rec["returned"] = attempt(fn, value)
        rec["after"] = local(tf, s, v)
        rec["no_read"] = attempt(fn, value, read_value=False)
        rec["after_no_read"] = local(tf, s, v)
    return prog


for _op in _OPS:
    for _kind in _CROSS_VALUES:
        program(f"mv_cross_update/{_op}/{_kind}")(_cross_update(_op, _kind, False))
    program(f"mv_cross_update/{_op}/py_float/in_scope")(_cross_update(_op, "py_float", True))
    program(f"mv_cross_update/{_op}/py_float/SUM")(_cross_update(_op, "py_float", False, "SUM"))


@program()
def mv_cross_update_dtypes(tf, rec):
    s = strategy(tf)
    for dtype in DTYPES:
        with s.scope():
            v = mk(tf, 1.0, dtype, name="v", aggregation=tf.VariableAggregation.SUM)
        rec[dtype + "/assign_add"] = attempt(v.assign_add, tf.cast(2.0, getattr(tf, dtype)))
        rec[dtype + "/assign_sub_py"] = attempt(v.assign_sub, 1)
        rec[dtype + "/after"] = local(tf, s, v)


@program()
def mv_cross_slice_assign(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
    rec["returned"] = attempt(lambda: v[0].assign(7.0))
    rec["after"] = local(tf, s, v)
    rec["returned_range"] = attempt(lambda: v[1:].assign([8.0, 9.0]))
    rec["after_range"] = local(tf, s, v)
    rec["in_scope"] = attempt(lambda: _in_scope(s, lambda: v[2].assign(5.0)))
    rec["after_in_scope"] = local(tf, s, v)


@program()
def extended_broadcast_and_reduce_to(tf, rec):
    """`extended.broadcast_to` / `reduce_to` of values every replica shares (tensors, NumPy)."""
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    MEAN = tf.distribute.ReduceOp.MEAN
    inputs = {"list_tensor": lambda: tf.constant([3.0, 4.0]),
              "scalar_tensor": lambda: tf.constant(3.0),
              "numpy": lambda: np.array([3.0, 4.0], np.float32),
              "computed": lambda: tf.constant([1.0, 2.0]) * 2.0}
    with s.scope():
        for kind, make in inputs.items():
            rec[f"broadcast_to/{kind}"] = attempt(lambda: s.extended.broadcast_to(make(), v))
            rec[f"reduce_to_mean/{kind}"] = attempt(
                lambda: s.extended.reduce_to(MEAN, make(), destinations=v))
        rec["broadcast_to_device"] = attempt(
            lambda: s.extended.broadcast_to(tf.constant([3.0]), "/cpu:1"))


@program()
def mv_extended_update(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable(1.0, name="v")
        rec["grouped"] = attempt(s.extended.update, v, lambda c, x: c.assign_add(x), args=(2.0,))
        rec["after_grouped"] = local(tf, s, v)
        rec["ungrouped"] = attempt(s.extended.update, v, lambda c, x: c.assign_add(x),
                                   args=(1.0,), group=False)
        rec["after_ungrouped"] = local(tf, s, v)
        rec["per_replica_args"] = attempt(
            s.extended.update, v, lambda c, x: c.assign(x),
            args=(per_replica(tf, s, lambda r: tf.constant(10.0 * (r + 1))),))
        rec["after_per_replica_args"] = local(tf, s, v)
        rec["returns_python"] = attempt(s.extended.update, v, lambda c: 3, group=False)
        rec["returns_device"] = attempt(s.extended.update, v, lambda c: c.device, group=False)
    rec["outside_scope"] = attempt(s.extended.update, v, lambda c, x: c.assign_add(x),
                                   args=(1.0,))
    rec["after_outside_scope"] = local(tf, s, v)
    rec["in_run"] = attempt(s.run, lambda: s.extended.update(v, lambda c: c.assign(0.0)))


# --------------------------------------------------------------------------
# MirroredVariable: scatter ops
# --------------------------------------------------------------------------

_SCATTERS = ("scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div",
             "scatter_min", "scatter_max")


@program()
def mv_scatter_cross_replica(tf, rec):
    s = strategy(tf)
    for method in _SCATTERS:
        with s.scope():
            v = tf.Variable([1.0, 2.0, 3.0, 4.0], name="v")
        delta = tf.IndexedSlices(tf.constant([10.0, 0.5]), tf.constant([1, 3]))
        rec[method] = attempt(getattr(v, method), delta)
        rec[method + "/after"] = local(tf, s, v)


@program()
def mv_scatter_nd_cross_replica(tf, rec):
    s = strategy(tf)
    with s.scope():
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    rec["scatter_nd_update"] = attempt(w.scatter_nd_update, [[0, 1], [1, 0]], [7.0, 8.0])
    rec["scatter_nd_add"] = attempt(w.scatter_nd_add, [[1, 1]], [1.0])
    rec["scatter_nd_sub"] = attempt(w.scatter_nd_sub, [[0, 0]], [1.0])
    rec["batch_scatter_update"] = attempt(
        w.batch_scatter_update, tf.IndexedSlices(tf.constant([[9.0, 9.5]]), tf.constant([1])))
    rec["nd_after"] = local(tf, s, w)


def _scatter_replica(aggregation):
    def prog(tf, rec):
        s = strategy(tf)
        with s.scope():
            v = tf.Variable([1.0, 2.0, 3.0], name="v", aggregation=agg(tf, aggregation))

        def fn(method):
            r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
            return getattr(v, method)(tf.IndexedSlices(tf.stack([r + 5.0]), tf.constant([1])))
        for method in _SCATTERS:
            rec[method] = attempt(s.run, fn, args=(method,))
            rec[method + "/after"] = local(tf, s, v)
    return prog


for _agg in AGG:
    program(f"mv_scatter_replica/{_agg}")(_scatter_replica(_agg))


# --------------------------------------------------------------------------
# Variables created inside strategy.run
# --------------------------------------------------------------------------

@program()
def mv_create_in_run(tf, rec):
    s = strategy(tf)
    made = []

    def fn():
        v = tf.Variable(tf.cast(tf.cast(rid(tf), tf.int32), tf.float32) + 1.0, name="w")
        made.append(v)
        return v
    out = attempt(s.run, fn)
    rec["returned"] = out
    rec["same_object"] = len(made) == 2 and made[0] is made[1]
    rec["count"] = len(made)
    if made:
        rec["type"] = type(made[0]).__name__
        rec["names"] = [c.name for c in getattr(made[0], "values", [made[0]])]

    def fn2():
        v = tf.Variable(1.0, name="u", aggregation=tf.VariableAggregation.SUM)
        v.assign_add(tf.cast(tf.cast(rid(tf), tf.int32), tf.float32))
        return v.read_value()
    rec["create_and_update"] = attempt(s.run, fn2)

    def fn3():
        v = tf.Variable(1.0, name="x", synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
        v.assign_add(tf.cast(tf.cast(rid(tf), tf.int32), tf.float32))
        return v
    got = attempt(s.run, fn3)
    rec["sync_on_read_in_run"] = got
    if not isinstance(got, Err):
        rec["sync_on_read_in_run_read"] = attempt(got.read_value)


# --------------------------------------------------------------------------
# SyncOnReadVariable
# --------------------------------------------------------------------------

def _sync_on_read(aggregation, dtype):
    def prog(tf, rec):
        s = strategy(tf)
        d = getattr(tf, dtype)
        v = attempt(lambda: _in_scope(s, lambda: mk(
            tf, 1.0, dtype, name="v", synchronization=tf.VariableSynchronization.ON_READ,
            aggregation=agg(tf, aggregation))))
        if isinstance(v, Err):
            rec["create"] = v
            return
        rec["type"] = type(v).__name__
        rec["trainable"] = v.trainable
        rec["synchronization"] = v.synchronization
        rec["aggregation"] = v.aggregation
        rec["names"] = [c.name for c in v.values]
        rec["run_assign_add"] = attempt(s.run, lambda: v.assign_add(
            tf.cast(tf.cast(rid(tf), tf.int32) + 1, d)))
        rec["components"] = local(tf, s, v)
        rec["run_read"] = attempt(s.run, lambda: v.read_value())
        rec["run_plus"] = attempt(s.run, lambda: v + 0)
        rec["read_value"] = attempt(v.read_value)
        rec["value"] = attempt(v.value)
        rec["numpy"] = attempt(v.numpy)
        rec["convert"] = attempt(tf.convert_to_tensor, v)
        rec["plus"] = attempt(lambda: v + 0)
        rec["reduce_sum"] = attempt(tf.reduce_sum, v)
        rec["in_scope_read"] = attempt(lambda: _in_scope(s, v.read_value))
        with tf.device("/cpu:1"):
            rec["dev1_read"] = attempt(v.read_value)
        rec["cross_assign"] = attempt(v.assign, tf.cast(6.0, d))
        rec["after_cross_assign"] = local(tf, s, v)
        rec["read_after_cross_assign"] = attempt(v.read_value)
        rec["cross_assign_py"] = attempt(v.assign, 5)
        rec["after_cross_assign_py"] = local(tf, s, v)
        rec["cross_assign_add"] = attempt(v.assign_add, tf.cast(1.0, d))
        rec["after_cross_assign_add"] = local(tf, s, v)
        rec["cross_assign_sub"] = attempt(v.assign_sub, tf.cast(1.0, d))
        rec["after_cross_assign_sub"] = local(tf, s, v)
        rec["run_assign"] = attempt(s.run, lambda: v.assign(
            tf.cast(tf.cast(rid(tf), tf.int32) * 3, d)))
        rec["after_run_assign"] = local(tf, s, v)
        rec["reduce_strategy"] = attempt(s.reduce, tf.distribute.ReduceOp.SUM, v, axis=None)
    return prog


for _agg in AGG:
    for _dt in ("float32", "int32", "float16", "float64", "bfloat16"):
        program(f"sync_on_read/{_agg}/{_dt}")(_sync_on_read(_agg, _dt))


@program(cpus=3)
def sync_on_read_three_replicas(tf, rec):
    s = strategy(tf, 3)
    for aggregation in ("SUM", "MEAN"):
        for dtype in ("float32", "int32"):
            v = attempt(lambda: _in_scope(s, lambda: mk(
                tf, 0.0, dtype, name="v", synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=agg(tf, aggregation))))
            if isinstance(v, Err):
                rec[f"{aggregation}/{dtype}/create"] = v
                continue
            d = getattr(tf, dtype)
            s.run(lambda: v.assign_add(tf.cast(tf.cast(rid(tf), tf.int32) + 1, d)))
            rec[f"{aggregation}/{dtype}/read"] = attempt(v.read_value)
            rec[f"{aggregation}/{dtype}/assign"] = attempt(v.assign, tf.cast(7, d))
            rec[f"{aggregation}/{dtype}/after_assign"] = local(tf, s, v)
            rec[f"{aggregation}/{dtype}/read_after"] = attempt(v.read_value)


@program()
def sync_on_read_options(tf, rec):
    s = strategy(tf)
    with s.scope():
        rec["trainable_true"] = attempt(lambda: tf.Variable(
            1.0, name="t", synchronization=tf.VariableSynchronization.ON_READ, trainable=True))
        v = tf.Variable(1.0, name="f", synchronization=tf.VariableSynchronization.ON_READ,
                        trainable=False)
        rec["trainable_false"] = [v.trainable, type(v).__name__]
        w = tf.Variable(1.0, name="d", synchronization=tf.VariableSynchronization.ON_READ)
        rec["default"] = [w.trainable, w.aggregation, [c.trainable for c in w.values]]
        m = tf.Variable(1.0, name="m", synchronization=tf.VariableSynchronization.ON_WRITE,
                        trainable=True)
        rec["on_write_trainable"] = [m.trainable, type(m).__name__]
        a = tf.Variable(1.0, name="a", synchronization=tf.VariableSynchronization.AUTO,
                        aggregation=tf.VariableAggregation.MEAN)
        rec["auto"] = [type(a).__name__, a.synchronization, a.aggregation, a.trainable]


@program()
def sync_on_read_vector(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([0.0, 0.0], name="v", synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    s.run(lambda: v.assign_add(tf.cast(tf.stack([tf.cast(rid(tf), tf.int32) + 1,
                                                  tf.cast(rid(tf), tf.int32) * 10]), tf.float32)))
    rec["components"] = local(tf, s, v)
    rec["read"] = attempt(v.read_value)
    rec["getitem"] = attempt(lambda: v[1])
    rec["sparse_read"] = attempt(v.sparse_read, [1])
    rec["run_getitem"] = attempt(s.run, lambda: v[1])
    rec["scatter_in_run"] = attempt(s.run, lambda: v.scatter_add(
        tf.IndexedSlices(tf.constant([1.0]), tf.constant([0]))))
    rec["after_scatter_in_run"] = local(tf, s, v)
    rec["scatter_cross"] = attempt(v.scatter_add, tf.IndexedSlices(tf.constant([1.0]),
                                                                   tf.constant([0])))
    rec["after_scatter_cross"] = local(tf, s, v)


# --------------------------------------------------------------------------
# strategy.run: arguments and return values
# --------------------------------------------------------------------------

Point = collections.namedtuple("Point", ["x", "y"])


@program()
def run_returns(tf, rec):
    s = strategy(tf)
    outside = tf.constant([1.0, 2.0])
    plain = tf.Variable(3.0, name="plain")
    rec["same_tensor"] = s.run(lambda: outside)
    rec["same_tensor_is"] = s.run(lambda: outside) is outside
    rec["per_replica_tensor"] = s.run(lambda: tf.cast(rid(tf), tf.float32) * 2.0)
    rec["equal_tensors"] = s.run(lambda: tf.constant(1.0))
    rec["py_small_int"] = s.run(lambda: 1)
    rec["py_int_from_id"] = s.run(lambda: int(tf.cast(rid(tf), tf.int32).numpy()) + 1000)
    rec["py_str"] = s.run(lambda: "same")
    rec["none"] = s.run(lambda: None)
    rec["plain_var"] = s.run(lambda: plain)
    rec["nest"] = s.run(lambda: {"a": (outside, tf.cast(rid(tf), tf.float32)),
                                 "b": [1, tf.constant(2)]})
    rec["namedtuple"] = s.run(lambda: Point(outside, tf.cast(rid(tf), tf.int32)))
    rec["list_len_differs"] = attempt(s.run, lambda: [1] * (int(tf.cast(rid(tf), tf.int32)
                                                                .numpy()) + 1))
    rec["dict_keys_differ"] = attempt(s.run, lambda: {str(int(tf.cast(rid(tf), tf.int32)
                                                               .numpy())): 1})
    rec["id_type"] = s.run(lambda: rid(tf))
    rec["ids_local"] = local(tf, s, s.run(lambda: rid(tf)))


@program()
def run_arguments(tf, rec):
    s = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant([float(r), 10.0 + r]))
    rec["per_replica_arg"] = s.run(lambda x: x * 2.0, args=(pr,))
    rec["plain_arg"] = s.run(lambda x: x + tf.cast(rid(tf), tf.float32),
                             args=(tf.constant(1.0),))
    rec["kwargs"] = s.run(lambda x=None, y=None: x + y, kwargs={"x": pr, "y": tf.constant(1.0)})
    rec["nested_arg"] = s.run(lambda d: d["a"][0] - d["b"],
                              args=({"a": [pr], "b": tf.constant(1.0)},))
    rec["py_arg"] = s.run(lambda n: n * 2, args=(21,))
    rec["list_args"] = s.run(lambda x: x, args=[pr])
    rec["arg_is_same_object"] = s.run(lambda t: t, args=(pr,))
    mirrored = s.reduce(tf.distribute.ReduceOp.SUM, pr, axis=None)
    rec["reduced_arg"] = s.run(lambda x: x, args=(mirrored,))
    rec["not_callable"] = attempt(s.run, 3)


@program()
def local_results(tf, rec):
    s = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant(float(r)))
    rec["per_replica"] = s.experimental_local_results(pr)
    rec["tensor"] = s.experimental_local_results(tf.constant(1.0))
    rec["python"] = s.experimental_local_results(3)
    rec["nest"] = s.experimental_local_results({"a": pr})
    with s.scope():
        v = tf.Variable(1.0, name="v")
    rec["mirrored_var"] = s.experimental_local_results(v)
    rec["in_run"] = attempt(s.run, lambda: s.experimental_local_results(pr))


@program()
def values_from_function(tf, rec):
    s = strategy(tf)
    rec["ids"] = s.experimental_distribute_values_from_function(
        lambda ctx: ctx.replica_id_in_sync_group)
    rec["num"] = s.experimental_distribute_values_from_function(
        lambda ctx: ctx.num_replicas_in_sync)
    rec["tensors"] = s.experimental_distribute_values_from_function(
        lambda ctx: tf.constant([ctx.replica_id_in_sync_group] * 2))
    same = tf.constant(5.0)
    rec["same_object"] = s.experimental_distribute_values_from_function(lambda ctx: same)
    rec["nest"] = s.experimental_distribute_values_from_function(
        lambda ctx: {"x": tf.constant(float(ctx.replica_id_in_sync_group)), "y": "s"})
    rec["context"] = s.experimental_distribute_values_from_function(
        lambda ctx: [type(ctx).__name__, ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync])
    rec["none"] = attempt(s.experimental_distribute_values_from_function, lambda ctx: None)
    rec["inside_run"] = attempt(s.run, lambda: s.experimental_distribute_values_from_function(
        lambda ctx: 1))


# --------------------------------------------------------------------------
# strategy.reduce
# --------------------------------------------------------------------------

def _reduce(dtype):
    def prog(tf, rec):
        s = strategy(tf)
        d = getattr(tf, dtype)
        pr = per_replica(tf, s, lambda r: tf.cast(tf.constant([[1.0 + r, 2.0], [3.0, 4.5 * r]]), d))
        for op in ("SUM", "MEAN"):
            rop = getattr(tf.distribute.ReduceOp, op)
            rec[f"{op}/none"] = attempt(s.reduce, rop, pr, axis=None)
            rec[f"{op}/0"] = attempt(s.reduce, rop, pr, axis=0)
            rec[f"{op}/1"] = attempt(s.reduce, rop, pr, axis=1)
            rec[f"{op}/neg1"] = attempt(s.reduce, rop, pr, axis=-1)
            rec[f"{op}/tuple"] = attempt(s.reduce, rop, pr, axis=(0, 1))
            rec[f"{op}/out_of_range"] = attempt(s.reduce, rop, pr, axis=2)
    return prog


for _dt in DTYPES:
    program(f"reduce/{_dt}")(_reduce(_dt))


@program()
def reduce_uneven_batches(tf, rec):
    s = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
                     if r == 0 else tf.constant([[10.0, 20.0]]))
    rec["MEAN/0"] = s.reduce(tf.distribute.ReduceOp.MEAN, pr, axis=0)
    rec["SUM/0"] = s.reduce(tf.distribute.ReduceOp.SUM, pr, axis=0)
    rec["MEAN/none"] = attempt(s.reduce, tf.distribute.ReduceOp.MEAN, pr, axis=None)
    rec["MEAN/1"] = attempt(s.reduce, tf.distribute.ReduceOp.MEAN, pr, axis=1)
    empty = per_replica(tf, s, lambda r: tf.constant([[1.0, 2.0]])
                        if r == 0 else tf.zeros([0, 2]))
    rec["MEAN/0/empty"] = s.reduce(tf.distribute.ReduceOp.MEAN, empty, axis=0)
    ints = per_replica(tf, s, lambda r: tf.constant([1, 2, 4]) if r == 0 else tf.constant([7]))
    rec["MEAN/0/int32"] = attempt(s.reduce, tf.distribute.ReduceOp.MEAN, ints, axis=0)


@program()
def reduce_inputs(tf, rec):
    s = strategy(tf)
    SUM, MEAN = tf.distribute.ReduceOp.SUM, tf.distribute.ReduceOp.MEAN
    t = tf.constant([1.0, 2.0])
    rec["tensor/SUM/none"] = attempt(s.reduce, SUM, t, axis=None)
    rec["tensor/MEAN/none"] = attempt(s.reduce, MEAN, t, axis=None)
    rec["tensor/SUM/0"] = attempt(s.reduce, SUM, t, axis=0)
    rec["tensor/MEAN/0"] = attempt(s.reduce, MEAN, t, axis=0)
    rec["py/SUM"] = attempt(s.reduce, SUM, 3.0, axis=None)
    rec["py/MEAN"] = attempt(s.reduce, MEAN, 3.0, axis=None)
    rec["np/SUM"] = attempt(s.reduce, SUM, np.array([1.0, 2.0], np.float32), axis=None)
    pr = per_replica(tf, s, lambda r: tf.constant(float(r) + 1.0))
    rec["string_sum"] = attempt(s.reduce, "SUM", pr, axis=None)
    rec["string_lower"] = attempt(s.reduce, "mean", pr, axis=None)
    rec["bad_op"] = attempt(s.reduce, "MAX", pr, axis=None)
    mirrored = s.run(lambda x: tf.distribute.get_replica_context().all_reduce(SUM, x), args=(pr,))
    rec["mirrored_type"] = type(mirrored).__name__
    rec["mirrored/SUM"] = attempt(s.reduce, SUM, mirrored, axis=None)
    rec["mirrored/MEAN"] = attempt(s.reduce, MEAN, mirrored, axis=None)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    rec["mirrored_var/SUM"] = attempt(s.reduce, SUM, v, axis=None)
    rec["mirrored_var/MEAN"] = attempt(s.reduce, MEAN, v, axis=None)
    rec["nest"] = attempt(s.reduce, SUM, {"a": pr, "b": [pr]}, axis=None)
    prs = per_replica(tf, s, lambda r: tf.constant(1.0) if r == 0 else tf.constant([1.0, 2.0]))
    rec["shape_mismatch"] = attempt(s.reduce, SUM, prs, axis=None)
    prd = per_replica(tf, s, lambda r: tf.constant(1.0) if r == 0 else tf.constant(1.0, tf.float64))
    rec["dtype_mismatch"] = attempt(s.reduce, SUM, prd, axis=None)
    rec["in_scope"] = attempt(lambda: _in_scope(s, lambda: s.reduce(SUM, pr, axis=None)))
    rec["in_run"] = attempt(s.run, lambda: s.reduce(SUM, pr, axis=None))
    isl = per_replica(tf, s, lambda r: tf.IndexedSlices(tf.constant([[1.0 + r, 2.0]]),
                                                        tf.constant([r]), tf.constant([3, 2])))
    rec["indexed_slices/SUM"] = attempt(s.reduce, SUM, isl, axis=None)
    rec["indexed_slices/MEAN"] = attempt(s.reduce, MEAN, isl, axis=None)


# --------------------------------------------------------------------------
# strategy.gather
# --------------------------------------------------------------------------

@program()
def gather(tf, rec):
    s = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant([[1.0 + r, 2.0 + r]]))
    rec["axis0"] = attempt(s.gather, pr, axis=0)
    rec["axis1"] = attempt(s.gather, pr, axis=1)
    uneven = per_replica(tf, s, lambda r: tf.ones([r + 1, 2]) * float(r))
    rec["uneven_axis0"] = attempt(s.gather, uneven, axis=0)
    rec["tensor"] = attempt(s.gather, tf.constant([[1.0, 2.0]]), axis=0)
    rec["scalar"] = attempt(s.gather, per_replica(tf, s, lambda r: tf.constant(float(r))), axis=0)
    rec["int"] = attempt(s.gather, per_replica(tf, s, lambda r: tf.constant([r, r])), axis=0)
    rec["nest"] = attempt(s.gather, {"a": pr, "b": [pr]}, axis=0)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    rec["mirrored_var"] = attempt(s.gather, v, axis=0)
    rec["in_run"] = attempt(s.run, lambda: s.gather(pr, axis=0))


@program()
def gather_uneven_other_axis(tf, rec):
    """Shapes differing off the gather axis (TF: the collective aborts; nothing may follow)."""
    s = strategy(tf)
    uneven = per_replica(tf, s, lambda r: tf.ones([r + 1, 2]) * float(r))
    rec["uneven_axis1"] = attempt(s.gather, uneven, axis=1)


# --------------------------------------------------------------------------
# ReplicaContext
# --------------------------------------------------------------------------

@program()
def replica_context(tf, rec):
    s = strategy(tf)

    def fn():
        ctx = tf.distribute.get_replica_context()
        return {"id": ctx.replica_id_in_sync_group, "num": ctx.num_replicas_in_sync,
                "devices": list(ctx.devices), "type": ctx,
                "strategy": ctx.strategy}
    rec["fields"] = attempt(s.run, fn)


@program()
def merge_call_arguments(tf, rec):
    s = strategy(tf)
    outside = tf.constant(3.0)
    with s.scope():
        v = tf.Variable(1.0, name="v")
    seen = {}

    def merge_fn(strategy_arg, a, b, c, d, e=None):
        seen["strategy_is_s"] = strategy_arg is s
        seen["cross"] = tf.distribute.in_cross_replica_context()
        seen["replica_ctx"] = tf.distribute.get_replica_context()
        seen["a"] = a
        seen["b"] = b
        seen["c_is_outside"] = c is outside
        seen["c"] = c
        seen["d_is_v"] = d is v
        seen["e"] = e
        return a

    def fn():
        r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
        ctx = tf.distribute.get_replica_context()
        return ctx.merge_call(merge_fn, args=(r, 7, outside, v), kwargs={"e": r * 10.0})
    rec["returned"] = attempt(s.run, fn)
    for k, value in seen.items():
        rec["seen/" + k] = value


@program()
def merge_call_results(tf, rec):
    s = strategy(tf)
    shared = tf.constant(9.0)

    def run_merge(merge_fn):
        def fn():
            r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
            return tf.distribute.get_replica_context().merge_call(merge_fn, args=(r,))
        return attempt(s.run, fn)
    rec["returns_per_replica"] = run_merge(lambda st, x: x)
    rec["returns_tensor"] = run_merge(lambda st, x: shared)
    rec["returns_python"] = run_merge(lambda st, x: 5)
    rec["returns_reduced_to_device"] = run_merge(
        lambda st, x: st.extended.reduce_to(tf.distribute.ReduceOp.SUM, x, destinations="/cpu:0"))
    rec["returns_reduced_to_per_replica"] = run_merge(
        lambda st, x: st.extended.reduce_to(tf.distribute.ReduceOp.SUM, x, destinations=x))
    rec["returns_batch_reduced"] = run_merge(
        lambda st, x: st.extended.batch_reduce_to(tf.distribute.ReduceOp.MEAN, [(x, x), (x, x)]))
    rec["returns_reduce"] = run_merge(
        lambda st, x: st.reduce(tf.distribute.ReduceOp.SUM, x, axis=None))
    rec["returns_nest"] = run_merge(lambda st, x: {"x": x, "n": 1, "l": [x, shared]})
    rec["returns_local_results"] = run_merge(lambda st, x: st.experimental_local_results(x))
    rec["raises"] = run_merge(lambda st, x: (_ for _ in ()).throw(ValueError("merge failed")))
    rec["nested_merge_call"] = run_merge(
        lambda st, x: tf.distribute.get_replica_context().merge_call(lambda st2: 1))


@program()
def merge_call_count_mismatch(tf, rec):
    s = strategy(tf)

    def fn():
        r = int(tf.cast(rid(tf), tf.int32).numpy())
        ctx = tf.distribute.get_replica_context()
        if r == 0:
            ctx.merge_call(lambda st: None)
        return r
    rec["mismatch"] = attempt(s.run, fn)
    rec["afterwards"] = s.run(lambda: tf.cast(rid(tf), tf.float32))


def _all_reduce(dtype):
    def prog(tf, rec):
        s = strategy(tf)
        d = getattr(tf, dtype)

        def fn(op):
            r = tf.cast(rid(tf), tf.int32)
            ctx = tf.distribute.get_replica_context()
            return ctx.all_reduce(op, tf.cast(tf.stack([r + 1, r * 3]), d))
        for op in ("SUM", "MEAN"):
            rec[op] = attempt(s.run, fn, args=(getattr(tf.distribute.ReduceOp, op),))
        rec["string_op"] = attempt(s.run, fn, args=("sum",))
    return prog


for _dt in DTYPES:
    program(f"all_reduce/{_dt}")(_all_reduce(_dt))


@program(cpus=3)
def all_reduce_three(tf, rec):
    s = strategy(tf, 3)

    def fn(op, dtype):
        r = tf.cast(tf.cast(rid(tf), tf.int32), dtype)
        return tf.distribute.get_replica_context().all_reduce(op, r * tf.cast(0.1, dtype) + 1)
    for op in ("SUM", "MEAN"):
        for dt in ("float32", "float16", "float64", "int32"):
            rec[f"{op}/{dt}"] = attempt(s.run, fn, args=(getattr(tf.distribute.ReduceOp, op),
                                                       getattr(tf, dt)))


@program()
def all_reduce_inputs(tf, rec):
    s = strategy(tf)
    SUM, MEAN = tf.distribute.ReduceOp.SUM, tf.distribute.ReduceOp.MEAN
    outside = tf.constant([1.0, 2.0])

    def ar(op, make):
        def fn():
            r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
            return tf.distribute.get_replica_context().all_reduce(op, make(r))
        return attempt(s.run, fn)
    rec["nest_dict"] = ar(SUM, lambda r: {"a": r, "b": (r * 2.0, [r + 1.0])})
    rec["nest_list"] = ar(MEAN, lambda r: [r, r * 4.0])
    rec["indexed_slices_sum"] = ar(SUM, lambda r: tf.IndexedSlices(
        tf.stack([tf.stack([r, r + 1.0])]), tf.cast(tf.stack([r]), tf.int32) + 1,
        tf.constant([3, 2])))
    rec["indexed_slices_mean"] = ar(MEAN, lambda r: tf.IndexedSlices(
        tf.stack([tf.stack([r, r + 1.0])]), tf.cast(tf.stack([r]), tf.int32) + 1,
        tf.constant([3, 2])))
    rec["mixed_dense_sparse"] = ar(SUM, lambda r: [r, tf.IndexedSlices(
        tf.stack([tf.stack([r, 1.0])]), tf.constant([0]), tf.constant([2, 2]))])


@program()
def all_reduce_non_distributed(tf, rec):
    """The same object on every replica (Python constants, a tensor made outside `run`)."""
    s = strategy(tf)
    SUM, MEAN = tf.distribute.ReduceOp.SUM, tf.distribute.ReduceOp.MEAN
    outside = tf.constant([1.0, 2.0])

    def ar(op, value):
        return attempt(s.run, lambda: tf.distribute.get_replica_context().all_reduce(op, value))
    rec["py_const_sum"] = ar(SUM, 1.0)
    rec["py_const_mean"] = ar(MEAN, 1.0)
    rec["outside_tensor_sum"] = ar(SUM, outside)
    rec["outside_tensor_mean"] = ar(MEAN, outside)
    rec["empty_nest"] = ar(SUM, [])


@program()
def all_reduce_shape_mismatch(tf, rec):
    """Replicas reducing different shapes (TF: the collective aborts; nothing may follow)."""
    s = strategy(tf)
    rec["shape_mismatch"] = attempt(s.run, lambda: tf.distribute.get_replica_context().all_reduce(
        tf.distribute.ReduceOp.SUM, tf.ones([tf.cast(rid(tf), tf.int32) + 1])))


@program()
def all_reduce_gradient(tf, rec):
    s = strategy(tf)

    def fn():
        r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
        x = tf.stack([r + 1.0, r + 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.SUM, x * x)
            loss = tf.reduce_sum(y * tf.constant([1.0, 3.0]))
        return y, tape.gradient(loss, x)
    rec["sum"] = attempt(s.run, fn)

    def fn_mean():
        r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
        x = tf.stack([r + 1.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, 3.0 * x)
        return y, tape.gradient(y, x)
    rec["mean"] = attempt(s.run, fn_mean)


@program()
def all_gather(tf, rec):
    s = strategy(tf)

    def ag(make, axis):
        def fn():
            r = tf.cast(tf.cast(rid(tf), tf.int32), tf.float32)
            return tf.distribute.get_replica_context().all_gather(make(r), axis=axis)
        return attempt(s.run, fn)
    rec["axis0"] = ag(lambda r: tf.stack([tf.stack([r, r + 10.0])]), 0)
    rec["axis1"] = ag(lambda r: tf.stack([tf.stack([r, r + 10.0])]), 1)
    rec["nest"] = ag(lambda r: {"a": tf.stack([r]), "b": [tf.stack([r * 2.0, r])]}, 0)
    rec["scalar"] = ag(lambda r: r, 0)
    rec["int"] = ag(lambda r: tf.cast(tf.stack([r]), tf.int32), 0)
    rec["uneven_axis0"] = ag(lambda r: tf.ones([tf.cast(r, tf.int32) + 1, 2]) * r, 0)


# --------------------------------------------------------------------------
# Wrong context
# --------------------------------------------------------------------------

@program()
def wrong_context(tf, rec):
    s = strategy(tf)
    other = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant(float(r)))
    with s.scope():
        v = tf.Variable(1.0, name="v")
    SUM = tf.distribute.ReduceOp.SUM
    rec["reduce_in_run"] = attempt(s.run, lambda: s.reduce(SUM, pr, axis=None))
    rec["reduce_to_in_run"] = attempt(s.run, lambda: s.extended.reduce_to(SUM, pr, v))
    rec["batch_reduce_to_in_run"] = attempt(
        s.run, lambda: s.extended.batch_reduce_to(SUM, [(pr, v)]))
    rec["update_in_run"] = attempt(s.run, lambda: s.extended.update(v, lambda c: c.assign(0.0)))
    rec["gather_in_run"] = attempt(s.run, lambda: s.gather(pr, axis=0))
    rec["scope_in_run"] = attempt(s.run, lambda: _in_scope(s, lambda: 1))
    rec["other_scope_in_scope"] = attempt(lambda: _in_scope(s, lambda: _in_scope(other, lambda: 1)))
    rec["other_scope_in_run"] = attempt(s.run, lambda: _in_scope(other, lambda: 1))
    rec["run_in_run"] = attempt(s.run, lambda: s.run(lambda: 1))
    rec["other_run_in_scope"] = attempt(lambda: _in_scope(s, lambda: other.run(lambda: 1)))
    rec["merge_call_cross_replica"] = attempt(
        lambda: _in_scope(s, lambda: tf.distribute.get_replica_context().merge_call(lambda st: 1)))
    rec["reduce_to_cross_replica"] = attempt(
        lambda: _in_scope(s, lambda: s.extended.reduce_to(SUM, pr, v)))
    rec["scope_reentrant"] = attempt(lambda: _in_scope(s, lambda: _in_scope(s, lambda: 1)))
    rec["nested_runs_ok_after"] = s.run(lambda: tf.cast(rid(tf), tf.float32))


@program()
def replica_raises(tf, rec):
    s = strategy(tf)

    def fail_on(which):
        def fn():
            r = int(tf.cast(rid(tf), tf.int32).numpy())
            if r == which:
                raise ValueError(f"boom on replica {r}")
            return r
        return fn
    rec["replica0"] = attempt(s.run, fail_on(0))
    rec["replica1"] = attempt(s.run, fail_on(1))

    def after_merge():
        r = int(tf.cast(rid(tf), tf.int32).numpy())
        tf.distribute.get_replica_context().merge_call(lambda st: None)
        if r == 1:
            raise KeyError("late")
        return r
    rec["after_merge"] = attempt(s.run, after_merge)
    with s.scope():
        v = tf.Variable(1.0, name="v", aggregation=tf.VariableAggregation.SUM)

    def before_update():
        r = int(tf.cast(rid(tf), tf.int32).numpy())
        if r == 1:
            raise TypeError("before update")
        v.assign_add(1.0 * r)
        return r
    rec["before_update"] = attempt(s.run, before_update)
    rec["var_after"] = local(tf, s, v)
    rec["still_works"] = s.run(lambda: tf.cast(rid(tf), tf.float32))


# --------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------

_X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.1, 0.2, 0.3]]
_Y = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 2.0]]


def _make_optimizer(tf, name):
    legacy = tf.keras.optimizers.legacy
    if name == "sgd_momentum":
        return legacy.SGD(learning_rate=0.1, momentum=0.9)
    if name == "sgd_nesterov":
        return legacy.SGD(learning_rate=0.05, momentum=0.5, nesterov=True)
    if name == "adam":
        return legacy.Adam(learning_rate=0.01)
    if name == "adam_amsgrad":
        return legacy.Adam(learning_rate=0.02, amsgrad=True)
    if name == "sgd":
        return legacy.SGD(learning_rate=0.1)
    raise KeyError(name)


_SLOTS = {"sgd_momentum": ("momentum",), "sgd_nesterov": ("momentum",), "adam": ("m", "v"),
          "adam_amsgrad": ("m", "v", "vhat"), "sgd": ()}


def _train(opt_name, dtype="float32", steps=4, cpus=2):
    def prog(tf, rec):
        s = strategy(tf, cpus)
        d = getattr(tf, dtype)
        n = s.num_replicas_in_sync
        per = len(_X) // n
        xs = per_replica(tf, s, lambda r: tf.constant(_X[r * per:(r + 1) * per], d)) if n > 1 \
            else tf.constant(_X, d)
        ys = per_replica(tf, s, lambda r: tf.constant(_Y[r * per:(r + 1) * per], d)) if n > 1 \
            else tf.constant(_Y, d)
        with s.scope():
            w = tf.Variable(tf.cast(tf.constant([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]), d),
                            name="w")
            b = tf.Variable(tf.cast(tf.constant([0.05, -0.05]), d), name="b")
            opt = _make_optimizer(tf, opt_name)

        def step(x, y):
            with tf.GradientTape() as tape:
                pred = tf.matmul(x, w) + b
                loss = tf.reduce_sum(tf.square(pred - y)) / tf.cast(len(_X), d)
            grads = tape.gradient(loss, [w, b])
            opt.apply_gradients(zip(grads, [w, b]))
            return loss

        for i in range(steps):
            loss = attempt(s.run, step, args=(xs, ys))
            rec[f"step{i}/loss"] = loss
            rec[f"step{i}/w"] = local(tf, s, w)
            rec[f"step{i}/b"] = local(tf, s, b)
            rec[f"step{i}/iterations"] = attempt(lambda: opt.iterations)
            if isinstance(loss, Err):
                break
        rec["iterations_type"] = attempt(lambda: type(opt.iterations).__name__)
        for slot in _SLOTS[opt_name]:
            for var, vname in ((w, "w"), (b, "b")):
                got = attempt(opt.get_slot, var, slot)
                rec[f"slot/{vname}/{slot}"] = got
                if not isinstance(got, Err):
                    rec[f"slot/{vname}/{slot}/names"] = [c.name for c in got.values]
        rec["slot_names"] = attempt(opt.get_slot_names)
        rec["weights_count"] = attempt(lambda: len(opt.weights))
    return prog


for _opt in ("sgd_momentum", "adam", "sgd", "sgd_nesterov", "adam_amsgrad"):
    program(f"train/{_opt}")(_train(_opt))
program("train/sgd_momentum/float64")(_train("sgd_momentum", "float64"))
program("train/adam/float64")(_train("adam", "float64"))
program("train/sgd_momentum/float16")(_train("sgd_momentum", "float16", steps=2))
program("train/adam/4replicas_of_1", cpus=4)(_train("adam", steps=2, cpus=4))


def _grad(tf):
    """Replica r's gradient: [r + 1, r + 1]."""
    return tf.cast(tf.fill([2], tf.cast(rid(tf), tf.int32) + 1), tf.float32)


@program()
def train_apply_cross_replica(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
        opt = tf.keras.optimizers.legacy.SGD(0.1)
        rec["apply"] = attempt(opt.apply_gradients, [(tf.constant([1.0, 1.0]), v)])
    rec["after"] = local(tf, s, v)
    rec["weights_after_refusal"] = attempt(lambda: [w.name for w in opt.weights])
    rec["iterations"] = attempt(lambda: local(tf, s, opt.iterations))


@program()
def train_apply_outside_scope(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
        opt = tf.keras.optimizers.legacy.SGD(0.1)
    rec["apply"] = attempt(opt.apply_gradients, [(tf.constant([1.0, 1.0]), v)])
    rec["after"] = local(tf, s, v)
    rec["iterations"] = attempt(lambda: local(tf, s, opt.iterations))


@program()
def train_optimizer_made_outside_scope(tf, rec):
    s = strategy(tf)
    with s.scope():
        v = tf.Variable([1.0, 2.0], name="v")
    opt = tf.keras.optimizers.legacy.SGD(0.1, momentum=0.5)
    for i in range(2):
        rec[f"step{i}"] = attempt(s.run, lambda: opt.apply_gradients([(_grad(tf), v)]))
        rec[f"after{i}"] = local(tf, s, v)
    rec["iterations"] = attempt(lambda: local(tf, s, opt.iterations))
    rec["momentum"] = attempt(lambda: local(tf, s, opt.get_slot(v, "momentum")))


def _train_grads(kind):
    def prog(tf, rec):
        s = strategy(tf)
        with s.scope():
            v = tf.Variable([1.0, 2.0], name="v")
            opt = tf.keras.optimizers.legacy.SGD(0.5)
        if kind == "no_aggregate":
            fn = lambda: opt.apply_gradients([(_grad(tf), v)],  # noqa: E731
                                             experimental_aggregate_gradients=False)
        elif kind == "per_replica":
            fn = lambda: opt.apply_gradients([(_grad(tf), v)])  # noqa: E731
        else:
            fn = lambda: opt.apply_gradients([(tf.IndexedSlices(  # noqa: E731
                tf.cast(tf.stack([tf.cast(rid(tf), tf.int32) + 1]), tf.float32),
                tf.cast(tf.stack([rid(tf)]), tf.int32), tf.constant([2])), v)])
        rec["returned"] = attempt(s.run, fn)
        rec["after"] = local(tf, s, v)
        rec["iterations"] = attempt(lambda: local(tf, s, opt.iterations))
    return prog


for _kind in ("no_aggregate", "per_replica", "indexed_slices"):
    program(f"train_grads/{_kind}")(_train_grads(_kind))


# --------------------------------------------------------------------------
# The seed's helpers (TF: tensorflow.python.distribute.distribute_utils)
# --------------------------------------------------------------------------

@program()
def helpers_regroup(tf, rec):
    u = dist_utils(tf)
    s = strategy(tf)
    a, b = tf.constant(1.0), tf.constant(2.0)
    rec["two_tensors"] = u.regroup([a, b])
    rec["same_tensor"] = u.regroup([a, a]) is a
    rec["same_tensor_always_wrap"] = u.regroup([a, a], always_wrap=True)
    rec["python"] = u.regroup([1, 2])
    rec["dicts"] = u.regroup([{"x": a, "y": 1}, {"x": b, "y": 1}])
    rec["tuples"] = u.regroup([(a, [b]), (b, [a])])
    rec["namedtuples"] = u.regroup([Point(a, 1), Point(b, 1)])
    rec["mirrored_wrap"] = u.regroup([a, b], u.values_lib.Mirrored if hasattr(u, "values_lib")
                                     else u.Mirrored)
    with s.scope():
        v = tf.Variable(1.0, name="v")
    rec["components_to_var"] = u.regroup(list(v.values)) is v
    rec["var_itself"] = u.regroup([v, v]) is v
    rec["list_len_mismatch"] = attempt(u.regroup, [[a], [a, b]])
    rec["dict_key_mismatch"] = attempt(u.regroup, [{"x": a}, {"y": a}])
    rec["single"] = u.regroup([a]) is a


@program()
def helpers_select(tf, rec):
    u = dist_utils(tf)
    s = strategy(tf)
    pr = per_replica(tf, s, lambda r: tf.constant(float(r)))
    with s.scope():
        v = tf.Variable(1.0, name="v")
    select = u.select_replica
    rec["per_replica"] = select(1, pr)
    rec["nest"] = select(1, {"a": pr, "b": [pr, 3], "c": tf.constant(7.0)})
    rec["var_stays"] = select(1, v) is v
    rec["plain"] = select(0, 5)
    mirrored = s.run(lambda x: tf.distribute.get_replica_context().all_reduce(
        tf.distribute.ReduceOp.SUM, x), args=(pr,))
    rec["mirrored"] = select(1, mirrored)
    sm = u.select_replica_mirrored
    rec["mirrored_ok"] = attempt(sm, 1, mirrored)
    rec["mirrored_nest_ok"] = attempt(sm, 0, [mirrored, 2])
    rec["mirrored_rejects_per_replica"] = attempt(sm, 1, pr)
    rec["mirrored_var"] = attempt(lambda: sm(1, v) is v)


@program()
def helpers_value_container(tf, rec):
    u = dist_utils(tf)
    s = strategy(tf)
    with s.scope():
        v = tf.Variable(1.0, name="v")
        w = tf.Variable(1.0, name="w", synchronization=tf.VariableSynchronization.ON_READ)
    rec["component0"] = u.value_container(v.values[0]) is v
    rec["component1"] = u.value_container(v.values[1]) is v
    rec["sync_on_read_component"] = u.value_container(w.values[1]) is w
    rec["container_itself"] = u.value_container(v) is v
    t = tf.constant(1.0)
    rec["tensor"] = u.value_container(t) is t
    p = tf.Variable(2.0)
    rec["plain_var"] = u.value_container(p) is p
    rec["extended_value_container"] = s.extended.value_container(v.values[1]) is v


@program()
def helpers_update_regroup(tf, rec):
    u = dist_utils(tf)
    s = strategy(tf)
    a, b = tf.constant(1.0), tf.constant(2.0)
    rec["ungrouped_tensors"] = u.update_regroup(s.extended, [a, b], False)
    rec["grouped_tensors"] = u.update_regroup(s.extended, [a, b], True)
    rec["ungrouped_nest"] = u.update_regroup(s.extended, [{"x": a}, {"x": b}], False)
    rec["grouped_nest"] = u.update_regroup(s.extended, [{"x": a}, {"x": b}], True)
    rec["ungrouped_same"] = u.update_regroup(s.extended, [a, a], False)
    with s.scope():
        v = tf.Variable(1.0, name="v")
    rec["ungrouped_components"] = u.update_regroup(s.extended, list(v.values), False)
    rec["grouped_components"] = attempt(lambda: u.update_regroup(s.extended, list(v.values), True)
                                        is v)
