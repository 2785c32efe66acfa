"""A TF 1-style model (variable_scope, get_variable, tf.layers.dense) ported with only the import changed.

    python examples/tf1_variable_scope_model.py

The shape of a TF 1 classifier program: a `model_fn` that builds its layers with
`tf.variable_scope` / `tf.get_variable` (the first layer by hand, the others with
`tf.layers.dense`), called once to create the variables and then again under
`reuse=True` for evaluation; a `tf.train.AdamOptimizer` driven by `minimize` with a
`global_step`; `tf.trainable_variables()` for weight decay; and a `tf.train.Saver` that
writes the model and the optimizer's slots under TF 1's names (`hidden/kernel/Adam`,
`beta1_power`, ...). TF 1 ran this in a `Session`; eagerly, the loss is a function that
`minimize` calls, and nothing else changes. tfcompat keeps TF 1's variable-store rules in
eager mode (real TF 2 eager only has them inside `track_tf1_style_variables` or
`make_template`; outside, each `get_variable` call would create a new variable). At the end a fresh
set of variables (a "restarted program") restores the checkpoint by name and gets the same
accuracy. The data is generated: two interleaved half-moons. Finishes in a few seconds.
"""

import os
import shutil
import tempfile

import numpy as np

import tfcompat.compat.v1 as tf  # the port: was `import tensorflow.compat.v1 as tf`

rng = np.random.RandomState(0)
angles = rng.uniform(0, np.pi, 512)
upper = np.stack([np.cos(angles), np.sin(angles)], axis=1)
lower = np.stack([1.0 - np.cos(angles), 0.5 - np.sin(angles)], axis=1)
features = np.concatenate([upper, lower]).astype(np.float32) + rng.normal(0, 0.2, (1024, 2)).astype(np.float32)
labels = np.concatenate([np.zeros(512), np.ones(512)]).astype(np.int64)
x_all, y_all = tf.constant(features), tf.constant(labels)


def model_fn(x, reuse=None):
    """Logits of a 2-32-32-2 MLP, TF 1 style: variables come from the store by name."""
    with tf.variable_scope("classifier", reuse=reuse):
        with tf.variable_scope("hidden"):
            kernel = tf.get_variable("kernel", [2, 32], initializer=tf.glorot_uniform_initializer(seed=1))
            bias = tf.get_variable("bias", [32], initializer=tf.zeros_initializer())
            h = tf.nn.relu(tf.matmul(x, kernel) + bias)
        h = tf.layers.dense(h, 32, activation=tf.nn.relu, name="hidden_2",
                            kernel_initializer=tf.glorot_uniform_initializer(seed=2))
        return tf.layers.dense(h, 2, name="logits", kernel_initializer=tf.glorot_uniform_initializer(seed=3))


def loss_fn():
    logits = model_fn(x_all, reuse=True)
    data_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_all, logits=logits))
    decay = 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.trainable_variables() if "kernel" in v.name])
    return data_loss + decay


def accuracy():
    predictions = tf.argmax(model_fn(x_all, reuse=True), axis=1)
    return float(tf.reduce_mean(tf.cast(tf.equal(predictions, y_all), tf.float32)))


def main():
    model_fn(x_all)  # the first call creates the variables
    print("variables:", [f"{v.name} {v.shape.as_list()}" for v in tf.trainable_variables()])
    global_step = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    print(f"step 0: loss {float(loss_fn()):.4f}, accuracy {accuracy():.4f}")
    for _ in range(300):
        optimizer.minimize(loss_fn, global_step=global_step)
        if int(global_step) % 100 == 0:
            print(f"step {int(global_step)}: loss {float(loss_fn()):.4f}, accuracy {accuracy():.4f}")
    trained = accuracy()

    directory = tempfile.mkdtemp(prefix="tf1_variable_scope_model_")
    try:
        saved = tf.global_variables() + optimizer.variables()
        saver = tf.train.Saver(saved, max_to_keep=2)
        path = saver.save(None, os.path.join(directory, "model.ckpt"), global_step=global_step)
        keys = [name for name, _ in tf.train.list_variables(path)]
        print(f"saved {os.path.basename(path)}: {len(keys)} tensors, e.g. "
              f"{[k for k in keys if k.startswith('classifier/hidden/kernel')]} "
              f"{[k for k in keys if 'power' in k]}")

        # A restarted program: new variables from the same code, restored by name.
        tf.reset_default_graph()
        model_fn(x_all)
        restored_step = tf.Variable(0, dtype=tf.int64, trainable=False, name="global_step")
        untrained = accuracy()
        tf.train.Saver(tf.global_variables()).restore(None, tf.train.latest_checkpoint(directory))
        print(f"restored {os.path.basename(tf.train.latest_checkpoint(directory))}: step "
              f"{int(restored_step)}, accuracy {accuracy():.4f} (fresh variables {untrained:.4f}, "
              f"trained {trained:.4f})")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
