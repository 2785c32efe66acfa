"""TF 1-style programs run eagerly through `tf.compat.v1` (the BERT/ResNet-era idioms:
deprecated argument names, `keep_prob` dropout, name-based `Saver` checkpoints).
Same contract as `programs_basics.py`; `tf1 = tf.compat.v1` is what such code imports."""

import os
import tempfile

import numpy as np

from tests.ops.golden.harness import Case


def layer_norm_block(tf):
    tf1 = tf.compat.v1
    tf1.enable_eager_execution()
    x = tf1.constant(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 3, 4))
    with tf1.name_scope("encoder"):
        w = tf1.Variable(np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(4, 4), name="kernel")
        gamma = tf1.Variable(tf1.ones([4]), name="gamma")
    mean, variance = tf1.nn.moments(x, axes=[-1], keep_dims=True)
    normed = (x - mean) * tf1.rsqrt(variance + 1e-12) * gamma
    h = tf1.reshape(tf1.matmul(tf1.reshape(normed, [-1, 4]), w), [2, 3, 4])
    h = tf1.nn.dropout(h, keep_prob=1.0)
    probs = tf1.nn.softmax(h, dim=-1)
    pooled = tf1.reduce_mean(probs, reduction_indices=[1], keep_dims=True)
    first = tf1.squeeze(pooled[:, 0:1, :], squeeze_dims=[1])
    label_ids = tf1.argmax(first, dimension=-1, output_type=tf1.int32)
    one_hot = tf1.one_hot(label_ids, depth=4, dtype=tf1.float32)
    loss = -tf1.reduce_sum(one_hot * tf1.log(first), axis=-1)
    return {"names": [w.name, gamma.name], "normed": normed, "probs": probs, "pooled": pooled,
            "labels": label_ids, "loss": loss, "eager": tf1.executing_eagerly(),
            "shape": tf1.shape(h), "to_float": tf1.to_float(label_ids)}


def saver_round_trip(tf):
    tf1 = tf.compat.v1
    with tf1.name_scope("dense"):
        kernel = tf1.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="kernel")
        bias = tf1.Variable([0.5, -0.5], name="bias")
    step = tf1.Variable(7, dtype=tf1.int64, name="global_step")
    with tempfile.TemporaryDirectory() as d:
        saver = tf1.train.Saver(var_list=[kernel, bias, step])
        path = saver.save(None, os.path.join(d, "model.ckpt"), global_step=7)
        kernel.assign(tf1.zeros([3, 2]))
        names = [(n, s) for n, s in tf1.train.list_variables(path)]
        saver.restore(None, path)
        renamed = tf1.Variable(tf1.zeros([2]), name="other")
        tf1.train.Saver(var_list={"dense/bias": renamed}).restore(None, path)
        try:
            tf1.train.Saver(var_list={"dense/bais": renamed}).restore(None, path)
            missing = "restored"
        except Exception as e:  # noqa: BLE001
            missing = type(e).__name__
        return {"path": os.path.basename(path), "listed": names, "kernel": kernel,
                "renamed": renamed, "missing": missing,
                "latest": os.path.basename(tf1.train.latest_checkpoint(d))}


PROGRAMS = {
    "layer_norm_block": Case(layer_norm_block, ulps=8),
    "saver_round_trip": saver_round_trip,
}
