"""Writes the TF-made checkpoint fixtures the format tests read (run with TensorFlow 2.21).

    /work/tfenv/bin/python tests/train/format/gen_bundles.py

Into tests/train/format/fixtures/:

* raw/all_dtypes.*      tf.raw_ops.SaveV2 of bundle_cases.cases() (every dtype,
                        scalars, empty tensors, strings with arbitrary bytes), the
                        tensors added in sorted-name order
* tf2/ckpt-1.*, ckpt-2.*, checkpoint
                        tf.train.Checkpoint.save of variables (float32, bfloat16,
                        string, int64 scalar, complex64) twice, with TF's state file
* tf1/model.ckpt-7.*, checkpoint
                        tf.compat.v1.train.Saver (graph mode) with a variable
                        partitioned in 3 (sliced entries) and a plain one
* sharded/ckpt.*        Checkpoint.write with MaxShardSizePolicy: 7 data shards,
                        variables sliced across them
* big_index.json        size and SHA-256 of TF's files for bundle_cases.big_index_cases()
                        (6000 keys: a two-block index), too big to commit
* state/*               `checkpoint` files written by TF's
                        update_checkpoint_state_internal for bundle_cases.STATE_CASES
* expected.json         for every fixture bundle, what TF's own reader returns
                        for each key (tf_read_bundle.dump: dtype, shape, value)
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.checkpoint import checkpoint_management  # noqa: E402

import tf_read_bundle  # noqa: E402
from bundle_cases import STATE_CASES, big_index_cases, cases  # noqa: E402

OUT = os.path.join(HERE, "fixtures")

def _tf_tensor(arr):
    if arr.dtype == object:
        return tf.constant(arr.tolist() if arr.ndim else arr.item(), dtype=tf.string, shape=arr.shape)
    return tf.constant(arr)


def raw_bundle():
    c = cases()
    names = sorted(c)
    tf.raw_ops.SaveV2(prefix=os.path.join(OUT, "raw", "all_dtypes"), tensor_names=names,
                      shape_and_slices=[""] * len(names), tensors=[_tf_tensor(c[n]) for n in names])


def tf2_checkpoint():
    d = os.path.join(OUT, "tf2")
    ck = tf.train.Checkpoint(
        dense=tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) / 7),
        bf16=tf.Variable(tf.constant([1.5, -2.25, 3.0e30], dtype=tf.bfloat16)),
        words=tf.Variable(tf.constant([b"alpha", b"", b"\x00\xfe"])),
        step=tf.Variable(tf.constant(41, dtype=tf.int64)),
        cplx=tf.Variable(tf.constant([1 + 2j, -3j], dtype=tf.complex64)),
    )
    ck.save(os.path.join(d, "ckpt"))
    ck.step.assign_add(1)
    ck.save(os.path.join(d, "ckpt"))


def tf1_saver():
    d = os.path.join(OUT, "tf1")
    with tf.Graph().as_default():
        part = tf.compat.v1.get_variable(
            "part", initializer=tf.constant(np.arange(20, dtype=np.float32).reshape(10, 2)),
            partitioner=tf.compat.v1.fixed_size_partitioner(3))
        plain = tf.compat.v1.get_variable("scope/plain", initializer=tf.constant([7, 8, 9], tf.int32))
        del part, plain
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(d, "model.ckpt"), global_step=7, write_meta_graph=False)


def sharded():
    v = {f"v{i}": tf.Variable(np.arange(100 * (i + 1), dtype=np.float32)) for i in range(4)}
    ck = tf.train.Checkpoint(**v)
    opts = tf.train.CheckpointOptions(
        experimental_sharding_callback=tf.train.experimental.MaxShardSizePolicy(max_shard_size=600))
    ck.write(os.path.join(OUT, "sharded", "ckpt"), options=opts)


def big_index():
    # Too big to commit (a 326 KB index): its size and SHA-256 stand in for the bytes.
    c = big_index_cases()
    names = sorted(c)
    with tempfile.TemporaryDirectory() as d:
        prefix = os.path.join(d, "big")
        tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                          tensors=[tf.constant(c[n]) for n in names])
        out = {}
        for suffix in (".index", ".data-00000-of-00001"):
            data = open(prefix + suffix, "rb").read()
            out[suffix] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    with open(os.path.join(OUT, "big_index.json"), "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


def state_files():
    for name, case in STATE_CASES.items():
        d = os.path.join(OUT, "state", name)
        os.makedirs(d, exist_ok=True)
        checkpoint_management.update_checkpoint_state_internal(
            d, case["model_checkpoint_path"], case["all_model_checkpoint_paths"],
            all_model_checkpoint_timestamps=case.get("all_model_checkpoint_timestamps"),
            last_preserved_timestamp=case.get("last_preserved_timestamp"),
            save_relative_paths=False)


def expected():
    out = {}
    for root, _, files in sorted(os.walk(OUT)):
        for f in sorted(files):
            if not f.endswith(".index"):
                continue
            prefix = os.path.join(root, f[:-len(".index")])
            out[os.path.relpath(prefix, OUT)] = tf_read_bundle.dump(prefix)
    with open(os.path.join(OUT, "expected.json"), "w") as fh:
        json.dump(out, fh, separators=(",", ":"), sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    raw_bundle()
    tf2_checkpoint()
    tf1_saver()
    sharded()  # (variables on several logical CPUs still make one shard in TF 2.21)
    big_index()
    state_files()
    expected()
    print("wrote", OUT)
