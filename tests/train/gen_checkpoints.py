"""Write the TensorFlow-made checkpoint fixtures for tests/train (needs real TF).

Run (TensorFlow 2.21 + tf_keras 2.21, NOT the project venv)::

    /work/tfenv/bin/python tests/train/gen_checkpoints.py [object_based name_based sharded sliced dtypes example]

It rewrites ``tests/train/fixtures/`` and ``examples/data/tf_checkpoint/``. Every
checkpoint is written by TensorFlow itself; next to each one, ``<name>.json``
records what TensorFlow reads back from it, so the tests can check tfcompat's
reader without TensorFlow:

``object_based/`` (TF2, ``tf.train.Checkpoint`` through ``tf.train.CheckpointManager``,
``max_to_keep=2``, saves after steps 3, 4 and 5: ``ckpt-2``, ``ckpt-3`` and the
``checkpoint`` state file remain). The model, optimizer and step come from
``tf2_program.py`` (the same code the tests run through tfcompat). ``object_based.json``
also holds ``golden``: TF's continued training after a restore into a fresh model
(``STEPS_AFTER_RESTORE`` losses and the final weights, slots and iterations).

``name_based/`` (TF1 graph mode, ``tf.compat.v1.get_variable`` under
``variable_scope("dense")``, ``get_or_create_global_step``, ``AdamOptimizer`` (slots
``dense/kernel/Adam``, ``dense/kernel/Adam_1``, ``beta1_power``, ...), saved by
``tf.compat.v1.train.Saver(save_relative_paths=True)`` with ``global_step=``; the meta
graph is not written, to keep the fixture small).

``sharded/`` (TF2, ``CheckpointOptions(experimental_sharding_callback=...)``
with a callback that deals whole tensors over 3 ``.data-0000k-of-00003`` files).

``sliced/`` (TF2, ``MaxShardSizePolicy(max_shard_size=1500)``: TF cuts the 16x16 tensors
into slices spread over shards).

``dtypes/`` (TF2, one variable per dtype, bfloat16 and strings included).

JSON encoding: a tensor is ``{"dtype": TF name, "shape": [...], "hex": raw
little-endian bytes}``, or for strings ``{"dtype": "string", "shape": [...],
"strings": [hex of each element]}``; ``list_variables`` is TF's list of
``[name, shape]``; ``dtypes`` maps names to TF dtype names; ``debug_string`` is the hex of TF's
``CheckpointReader.debug_string()``. Exact float bits survive.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")
EXAMPLE_DATA = os.path.join(ROOT, "examples", "data", "tf_checkpoint")

if os.environ.get("PYTHONHASHSEED") != "0":  # stable dict/set order in anything TF prints
    os.execve(sys.executable, [sys.executable] + sys.argv,
              dict(os.environ, PYTHONHASHSEED="0", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
                   TF_USE_LEGACY_KERAS="1"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tf2_program  # noqa: E402


def encode(value) -> dict:
    """A numpy value TF returned, as exact JSON."""
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind == "S":
        flat = [bytes(x).hex() for x in array.reshape(-1)]
        return {"dtype": "string", "shape": list(array.shape), "strings": flat}
    dtype = tf.as_dtype(array.dtype).name
    return {"dtype": dtype, "shape": list(array.shape), "hex": np.ascontiguousarray(array).tobytes().hex()}


def describe(prefix: str) -> dict:
    """What TF's reader says about a checkpoint: keys, shapes, dtypes and every value."""
    reader = tf.train.load_checkpoint(prefix)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    return {
        "prefix": os.path.relpath(prefix, os.path.dirname(os.path.dirname(prefix))),
        "files": sorted(os.listdir(os.path.dirname(prefix))),
        "list_variables": [[name, list(shape)] for name, shape in tf.train.list_variables(prefix)],
        "dtypes": {name: dtypes[name].name for name in sorted(dtypes)},
        "tensors": {name: encode(reader.get_tensor(name)) for name in sorted(shapes)},
        "debug_string": reader.debug_string().hex(),
    }


def dump(path: str, data: object) -> None:
    with open(path + ".tmp", "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def fresh(directory: str) -> str:
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    return directory


def gen_object_based() -> None:
    directory = fresh(os.path.join(FIXTURES, "object_based"))
    x, y = tf2_program.data()
    model, optimizer, step = tf2_program.build(tf, seed=0)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
    losses_before = []
    for i in range(tf2_program.STEPS_BEFORE_SAVE):
        losses_before.append(encode(tf2_program.train_step(tf, model, optimizer, step, x, y).numpy()))
        if i >= 2:
            manager.save()
    prefix = manager.latest_checkpoint
    saved_state = open(os.path.join(directory, "checkpoint")).read()

    # TF's continued training: a fresh structure (other initial weights), restored, then trained.
    model2, optimizer2, step2 = tf2_program.build(tf, seed=1)
    status = tf.train.Checkpoint(model=model2, optimizer=optimizer2, step=step2).restore(prefix)
    losses = []
    for _ in range(tf2_program.STEPS_AFTER_RESTORE):
        losses.append(encode(tf2_program.train_step(tf, model2, optimizer2, step2, x, y).numpy()))
    status.assert_consumed()
    golden = {
        "losses_before_save": losses_before,
        "losses": losses,
        "weights": {path: encode(v.numpy())
                    for path, v in zip(tf2_program.variable_paths(), tf2_program.variables(model2))},
        "slots": {path: {name: encode(optimizer2.get_slot(v, name).numpy()) for name in ("m", "v")}
                  for path, v in zip(tf2_program.variable_paths(), tf2_program.variables(model2))},
        "iterations": int(optimizer2.iterations.numpy()),
        "step": int(step2.numpy()),
    }
    info = describe(prefix)
    info.update(golden=golden, state_file=saved_state,
                latest_checkpoint=os.path.basename(tf.train.latest_checkpoint(directory)),
                checkpoints=[os.path.basename(p) for p in manager.checkpoints])
    dump(os.path.join(FIXTURES, "object_based.json"), info)


def gen_name_based() -> None:
    directory = fresh(os.path.join(FIXTURES, "name_based"))
    x, y = tf2_program.data()
    rng = np.random.RandomState(3)
    graph = tf.Graph()
    with graph.as_default():
        with tf.compat.v1.variable_scope("dense"):
            kernel = tf.compat.v1.get_variable(
                "kernel", initializer=rng.normal(size=(3, 2)).astype(np.float32))
            bias = tf.compat.v1.get_variable("bias", initializer=np.zeros(2, np.float32))
        global_step = tf.compat.v1.train.get_or_create_global_step()
        loss = tf.reduce_mean(tf.square(tf.matmul(x, kernel) + bias - y))
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        saver = tf.compat.v1.train.Saver(save_relative_paths=True)
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for _ in range(3):
                session.run(train_op)
            prefix = saver.save(session, os.path.join(directory, "model.ckpt"), global_step=global_step,
                                write_meta_graph=False)
            names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    info = describe(prefix)
    info.update(graph_variables=names, state_file=open(os.path.join(directory, "checkpoint")).read())
    dump(os.path.join(FIXTURES, "name_based.json"), info)


class _RoundRobinShards(tf.train.experimental.ShardingCallback):
    """Whole tensors dealt over `count` shards, as a multi-device save lays them out
    (TF's MaxShardSizePolicy would slice tensors, a different layout: see gen_sliced)."""

    def __init__(self, count: int):
        self.count = count

    @property
    def description(self) -> str:
        return f"whole tensors, round robin over {self.count} shards"

    def __call__(self, shardable_tensors):
        shards = [{} for _ in range(self.count)]
        for i, shardable in enumerate(sorted(shardable_tensors, key=lambda t: t.checkpoint_key)):
            shards[i % self.count].setdefault(shardable.checkpoint_key, {})[shardable.slice_spec] = \
                shardable.tensor
        return shards


def _shard_values(seed: int) -> dict:
    rng = np.random.RandomState(seed)
    values = {f"v{i}": tf.Variable(rng.normal(size=(16, 16)).astype(np.float32)) for i in range(4)}
    values["counts"] = tf.Variable(np.arange(10, dtype=np.int64))
    return values


def gen_sharded() -> None:
    directory = fresh(os.path.join(FIXTURES, "sharded"))
    prefix = tf.train.Checkpoint(**_shard_values(5)).write(
        os.path.join(directory, "ckpt"),
        options=tf.train.CheckpointOptions(experimental_sharding_callback=_RoundRobinShards(3)))
    info = describe(prefix)
    assert sum(".data-" in f for f in info["files"]) == 3, info["files"]
    dump(os.path.join(FIXTURES, "sharded.json"), info)


def gen_sliced() -> None:
    """TF's MaxShardSizePolicy: tensors cut into slices across shards (the index holds a
    full-tensor entry listing its slices, and one entry per slice under an encoded key)."""
    directory = fresh(os.path.join(FIXTURES, "sliced"))
    policy = tf.train.experimental.MaxShardSizePolicy(max_shard_size=1500)
    prefix = tf.train.Checkpoint(**_shard_values(6)).write(
        os.path.join(directory, "ckpt"),
        options=tf.train.CheckpointOptions(experimental_sharding_callback=policy))
    info = describe(prefix)
    dump(os.path.join(FIXTURES, "sliced.json"), info)


def gen_dtypes() -> None:
    directory = fresh(os.path.join(FIXTURES, "dtypes"))
    values = {
        "bf16": tf.Variable([1.5, -2.25, 3.0e38, 0.1], dtype=tf.bfloat16),
        "f16": tf.Variable([[0.1, 65504.0], [-1e-7, 3.0]], dtype=tf.float16),
        "f64": tf.Variable([np.pi, -0.0], dtype=tf.float64),
        "i8": tf.Variable([-128, 127], dtype=tf.int8),
        "u8": tf.Variable([0, 255], dtype=tf.uint8),
        "i16": tf.Variable([-3, 30000], dtype=tf.int16),
        "i32": tf.Variable(7, dtype=tf.int32),
        "i64": tf.Variable([[2**40, -1]], dtype=tf.int64),
        "flag": tf.Variable([True, False, True]),
        "c64": tf.Variable([1 + 2j, -0.5j], dtype=tf.complex64),
        "empty": tf.Variable(np.zeros((0, 3), np.float32)),
        "word": tf.Variable(b"abc"),
        "words": tf.Variable([[b"a", b""], [b"hello\x00world", "\u00e9t\u00e9".encode()]]),
    }
    prefix = tf.train.Checkpoint(**values).write(os.path.join(directory, "ckpt"))
    dump(os.path.join(FIXTURES, "dtypes.json"), describe(prefix))


def gen_example_checkpoint() -> None:
    """The checkpoint examples/resume_tf_training.py resumes: TF trained the example's
    model (the same classes, written in TF) for 20 steps with legacy Adam."""
    directory = fresh(EXAMPLE_DATA)

    class Dense(tf.Module):
        def __init__(self, in_features, out_features, activation=None, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.random.normal([in_features, out_features], stddev=0.5, seed=1), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")
            self.activation = activation

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return self.activation(y) if self.activation else y

    class Regressor(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.layers = [Dense(1, 16, tf.nn.tanh), Dense(16, 1)]

        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    x = np.linspace(-2.0, 2.0, 64, dtype=np.float32).reshape(-1, 1)
    y = np.sin(2.0 * x).astype(np.float32)
    model = Regressor()
    optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=0.02)
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(
        tf.train.Checkpoint(model=model, optimizer=optimizer, step=step), directory, max_to_keep=1)
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        step.assign_add(1)
    manager.save(checkpoint_number=int(step.numpy()))
    final_loss = tf.reduce_mean(tf.square(model(x) - y))
    with open(os.path.join(directory, "loss.txt"), "w") as f:
        f.write(f"{float(final_loss.numpy()):.6f}\n")  # TF's loss of the saved weights, shown by the example


GENERATORS = {"object_based": gen_object_based, "name_based": gen_name_based, "sharded": gen_sharded,
              "sliced": gen_sliced, "dtypes": gen_dtypes, "example": gen_example_checkpoint}


def main() -> None:
    """Every fixture, or only those named on the command line (`... gen_checkpoints.py example`)."""
    os.makedirs(FIXTURES, exist_ok=True)
    for name in sys.argv[1:] or GENERATORS:
        tf.random.set_seed(0)
        GENERATORS[name]()
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(FIXTURES) for f in fs)
    print(f"wrote {FIXTURES} ({total} bytes) and {EXAMPLE_DATA}")


if __name__ == "__main__":
    main()
