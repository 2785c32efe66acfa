"""Random numbers and updates under `tf.distribute`: one text, two runtimes.

Each program takes the TensorFlow-shaped module (`tf`) and returns a dict of
JSON values. `gen_strategy_gaps.py` runs them with real TensorFlow 2.21 (the
CPU split into 3 logical devices) and records ``fixtures/strategy_gaps.json``;
`test_strategy_gaps_golden.py` runs them with tfcompat and compares.

tfcompat's random streams are not TF's (Philox) numbers, so draws are not
recorded as numbers: a program records the *pattern* of a list of draws
(`pattern`: equal draws get the same label, in order of first appearance),
which says which replicas, runs, restores and devices see the same stream.
Deterministic values (assign results, states that are pure counters) are
recorded as values. This file must not import TensorFlow or torch.
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import numpy as np

__all__ = ["PROGRAMS", "CPUS", "pattern"]

CPUS = 3  # logical CPUs: 2-replica strategies on /cpu:0,/cpu:1, one 3-replica restore

PROGRAMS: Dict[str, Callable[[Any], dict]] = {}


def program(fn: Callable[[Any], dict]) -> Callable[[Any], dict]:
    PROGRAMS[fn.__name__] = fn
    return fn


def _np(x: Any) -> np.ndarray:
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def pattern(draws: list) -> list:
    """Labels for `draws`: equal arrays share a label, numbered by first appearance."""
    seen: list = []
    labels = []
    for d in draws:
        a = _np(d)
        for i, s in enumerate(seen):
            if s.shape == a.shape and s.dtype == a.dtype and np.array_equal(s, a):
                labels.append(i)
                break
        else:
            seen.append(a)
            labels.append(len(seen) - 1)
    return labels


def _locals(s: Any, value: Any) -> list:
    return list(s.experimental_local_results(value))


def _two(tf: Any) -> Any:
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def _error(fn: Callable[[], Any]) -> dict:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is recorded
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    return {"error": None}


# -- tf.random.Generator under a strategy --------------------------------------------

@program
def generator_in_scope(tf: Any) -> dict:
    s = _two(tf)
    with s.scope():
        g = tf.random.Generator.from_seed(1)
        g_cross = tf.random.Generator.from_seed(1)
    out: dict = {"state_type": type(g.state).__name__}
    run1 = _locals(s, s.run(lambda: g.normal([2])))
    run2 = _locals(s, s.run(lambda: g.normal([2])))
    comps = [_np(v) for v in g.state.values]
    out["components_equal"] = bool(np.array_equal(comps[0], comps[1]))
    out["state_moved"] = not np.array_equal(comps[0], _np(tf.random.Generator.from_seed(1).state))
    plain = tf.random.Generator.from_seed(1)
    p1, p2 = plain.normal([2]), plain.normal([2])
    c1 = g_cross.normal([2])  # cross-replica context, in scope
    outside = tf.random.Generator.from_seed(1)
    od = tf.distribute.OneDeviceStrategy("/cpu:0")
    with od.scope():
        g_od = tf.random.Generator.from_seed(1)
    od1 = od.run(lambda: g_od.normal([2]))
    od2 = g_od.normal([2])  # cross-replica: the plain stream's second draw
    out["draws"] = pattern(run1 + run2 + [p1, p2, c1, od1, od2, outside.normal([2])])
    # uniform, integers, truncated normal: each replica its own stream as well
    with s.scope():
        g2 = tf.random.Generator.from_seed(7)
    out["uniform"] = pattern(_locals(s, s.run(lambda: g2.uniform([3]))))
    out["uniform_int"] = pattern(_locals(s, s.run(
        lambda: g2.uniform([3], minval=0, maxval=1000, dtype=tf.int64))))
    out["truncated"] = pattern(_locals(s, s.run(lambda: g2.truncated_normal([3]))))
    out["same_seed_same_streams"] = pattern(
        _locals(s, s.run(lambda: g2.normal([2])))
        + _locals(s, s.run(lambda: g2.normal([2]))))
    return out


@program
def generator_same_seed_replays(tf: Any) -> dict:
    """Two generators of one seed under two strategies: the same per-replica streams."""
    draws = []
    for _ in range(2):
        s = _two(tf)
        with s.scope():
            g = tf.random.Generator.from_seed(3)
        draws += _locals(s, s.run(lambda: g.normal([2])))
    return {"draws": pattern(draws)}


@program
def generator_checkpoint(tf: Any) -> dict:
    s = _two(tf)
    with s.scope():
        g = tf.random.Generator.from_seed(1)
    s.run(lambda: g.normal([2]))
    saved = _np(g.state)
    path = tf.train.Checkpoint(g=g).write("/tmp/tfcompat_strategy_gaps_generator")
    nxt = _locals(s, s.run(lambda: g.normal([2])))
    tf.train.Checkpoint(g=g).restore(path)
    replay = _locals(s, s.run(lambda: g.normal([2])))
    s1 = tf.distribute.MirroredStrategy(["/cpu:0"])
    with s1.scope():
        g1 = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(g=g1).restore(path)
    one = _locals(s1, s1.run(lambda: g1.normal([2])))
    s3 = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    with s3.scope():
        g3 = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(g=g3).restore(path)
    three = _locals(s3, s3.run(lambda: g3.normal([2])))
    gp = tf.random.Generator.from_seed(99)
    tf.train.Checkpoint(g=gp).restore(path)
    restored_plain = gp.normal([2])
    same_state_plain = tf.random.Generator.from_state(saved, "philox").normal([2])
    return {"draws": pattern(nxt + replay + one + three + [restored_plain]),
            "plain_restore_is_plain_stream": pattern([restored_plain, same_state_plain])}


@program
def generator_outside_strategy(tf: Any) -> dict:
    """A generator made outside every strategy, drawn in replicas: one state, advanced by each."""
    s = _two(tf)
    g = tf.random.Generator.from_seed(1)
    ra, rb = _locals(s, s.run(lambda: g.normal([2])))
    plain = tf.random.Generator.from_seed(1)
    p1, p2 = plain.normal([2]), plain.normal([2])
    labels = pattern([ra, rb, p1, p2])
    return {"replicas_differ": labels[0] != labels[1],
            "replicas_draw_the_plain_streams": sorted(labels[:2]) == sorted(labels[2:]),
            "state_as_two_draws": bool(np.array_equal(_np(g.state), _np(plain.state)))}


@program
def generator_diverging_replicas(tf: Any) -> dict:
    s = _two(tf)
    with s.scope():
        g = tf.random.Generator.from_seed(1)

    def fn() -> Any:
        ctx = tf.distribute.get_replica_context()
        if int(ctx.replica_id_in_sync_group) == 0:
            g.normal([1])
        return g.normal([1])

    s.run(fn)
    comps = [_np(v) for v in g.state.values]
    skipped = _locals(s, s.run(lambda: g.skip(3)))
    return {"components_differ": not np.array_equal(comps[0], comps[1]),
            "skip_returns_each_replica_state": [bool(np.array_equal(_np(k), c))
                                                for k, c in zip(skipped, comps)]}


@program
def generator_other_strategy(tf: Any) -> dict:
    s = _two(tf)
    with s.scope():
        g = tf.random.Generator.from_seed(1)
    other = tf.distribute.MirroredStrategy(["/cpu:0"])
    before = _np(g.state)
    err = _error(lambda: other.run(lambda: g.normal([1])))
    in_scope = {}
    with other.scope():
        in_scope = _error(lambda: g.normal([1]))
    return {"in_run": err["error"], "in_scope": in_scope["error"],
            "message_starts": err.get("message", "")[:50],
            "state_unchanged": bool(np.array_equal(before, _np(g.state)))}


# -- op-level seeds inside replicas --------------------------------------------------

def _seeded_ops(tf: Any) -> dict:
    return {
        "normal": lambda: tf.random.normal([3], seed=3),
        "uniform": lambda: tf.random.uniform([3], seed=3),
        "uniform_int": lambda: tf.random.uniform([3], maxval=1000, dtype=tf.int32, seed=3),
        "truncated_normal": lambda: tf.random.truncated_normal([3], seed=3),
        "categorical": lambda: tf.random.categorical([[0.0, 0.0, 0.0, 0.0]], 6, seed=3),
        "shuffle": lambda: tf.random.shuffle(tf.range(8), seed=3),
        "gamma": lambda: tf.random.gamma([3], 1.0, seed=3),
        "poisson": lambda: tf.random.poisson([3], 3.0, seed=3),
        "dropout": lambda: tf.nn.dropout(tf.ones([8]), 0.5, seed=3),
    }


@program
def op_seeds_in_replicas(tf: Any) -> dict:
    out = {}
    for global_seed in (None, 5):
        for name, op in _seeded_ops(tf).items():
            tf.random.set_seed(global_seed)
            s = _two(tf)
            draws = _locals(s, s.run(op)) + _locals(s, s.run(op))
            draws.append(op())  # outside on the default device: continues replica 0's
            with tf.device("/cpu:1"):
                draws.append(op())  # continues replica 1's
            with tf.device("/cpu:2"):
                draws.append(op())  # a device with no calls yet: the sequence's first
            out[f"{name}/global_{global_seed}"] = pattern(draws)
    tf.random.set_seed(None)
    return out


@program
def op_seeds_per_device(tf: Any) -> dict:
    tf.random.set_seed(None)
    draws = [tf.random.normal([2], seed=7)]
    with tf.device("/cpu:0"):
        draws.append(tf.random.normal([2], seed=7))
    with tf.device("/cpu:1"):
        draws.append(tf.random.normal([2], seed=7))
    draws.append(tf.random.normal([2], seed=7))
    tf.random.set_seed(11)
    after_set_seed = [tf.random.normal([2], seed=7)]
    with tf.device("/cpu:1"):
        after_set_seed.append(tf.random.normal([2], seed=7))
    tf.random.set_seed(None)
    return {"draws": pattern(draws), "after_set_seed": pattern(after_set_seed)}


@program
def op_seeds_twice_in_one_run(tf: Any) -> dict:
    tf.random.set_seed(None)
    s = _two(tf)
    out = s.run(lambda: tf.stack([tf.random.normal([2], seed=3), tf.random.normal([2], seed=3)]))
    a, b = _locals(s, out)
    return {"draws": pattern([a[0], a[1], b[0], b[1]])}


@program
def unseeded_ops_in_replicas(tf: Any) -> dict:
    out = {}
    for global_seed in (None, 5):
        tf.random.set_seed(global_seed)
        s = _two(tf)
        out[f"normal/global_{global_seed}"] = pattern(_locals(s, s.run(
            lambda: tf.random.normal([4]))))
        out[f"uniform/global_{global_seed}"] = pattern(_locals(s, s.run(
            lambda: tf.random.uniform([4]))))
    tf.random.set_seed(None)
    return out


# -- the default strategy's devices, cross-replica update results ---------------------

@program
def default_strategy_devices(tf: Any) -> dict:
    ds = tf.distribute.get_strategy()
    return {"worker_devices": _error(lambda: ds.extended.worker_devices),
            "parameter_devices": _error(lambda: ds.extended.parameter_devices),
            "values_from_function": int(ds.experimental_distribute_values_from_function(
                lambda ctx: ctx.replica_id_in_sync_group))}


def _as_value(r: Any) -> Any:
    return np.asarray(r).tolist()


@program
def cross_replica_update_results(tf: Any) -> dict:
    s = _two(tf)
    out: dict = {}
    with s.scope():
        v = tf.Variable([1.0, 2.0])
        results = {"assign": v.assign([3.0, 4.0]), "assign_add": v.assign_add([1.0, 1.0]),
                   "assign_sub": v.assign_sub([0.5, 0.5])}
        for name, r in results.items():
            out[name] = {"type": type(r).__name__, "numpy": r.numpy().tolist(),
                         "array": _as_value(r), "plus_one": _as_value(r + 1),
                         "reduce_sum": float(tf.reduce_sum(r)),
                         "add": _as_value(tf.add(r, 1.0)),
                         "converted": _as_value(tf.convert_to_tensor(r)),
                         "float64": str(np.asarray(r, dtype=np.float64).dtype)}
        out["assign_kept_its_value"] = _as_value(results["assign"])
        out["read_value_false"] = repr(v.assign([0.0, 0.0], read_value=False))
        sv = tf.Variable([1.0, 2.0], synchronization=tf.VariableSynchronization.ON_READ,
                         aggregation=tf.VariableAggregation.MEAN)
        for name, r in {"on_read_assign": sv.assign([3.0, 4.0]),
                        "on_read_assign_add": sv.assign_add([3.0, 4.0]),
                        "on_read_assign_sub": sv.assign_sub([1.0, 1.0])}.items():
            out[name] = {"numpy": r.numpy().tolist(), "array": _as_value(r),
                         "reduce_sum": float(tf.reduce_sum(r))}
        ssum = tf.Variable([1.0, 2.0], synchronization=tf.VariableSynchronization.ON_READ,
                           aggregation=tf.VariableAggregation.SUM)
        r = ssum.assign(tf.constant([3.0, 4.0]))
        out["on_read_sum_assign"] = {"numpy": r.numpy().tolist(), "array": _as_value(r)}
    r = v.assign([5.0, 6.0])  # outside the scope: TF enters the variable's strategy
    out["outside_scope"] = {"numpy": r.numpy().tolist(), "array": _as_value(r),
                            "reduce_sum": float(tf.reduce_sum(r))}
    return out
