"""Resume training from a checkpoint real TensorFlow wrote, then hand the result back to TF.

`examples/data/tf_checkpoint/` was written by TensorFlow 2.21 (tests/train/gen_checkpoints.py,
`gen_example_checkpoint`): this same regression model, trained 20 steps with the legacy Keras
Adam and saved by `tf.train.CheckpointManager` (weights, Adam's `m`/`v` slots and iteration
count, the step counter). Below, the TF program runs unchanged but for the import line:
it restores that checkpoint, trains 30 more steps, and saves. When TensorFlow is installed
(here, or at the interpreter named by TFCOMPAT_TF_PYTHON), real TF then restores the result
and reports the same loss; without it that part is skipped.

Run: python examples/resume_tf_training.py
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import tfcompat as tf  # was: import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
TF_CHECKPOINT = os.path.join(HERE, "data", "tf_checkpoint")


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


# tensors, not numpy arrays: with tfcompat `tensor - ndarray` is numpy's operator (no gradient)
x = tf.constant(np.linspace(-2.0, 2.0, 64, dtype=np.float32).reshape(-1, 1))
y = tf.sin(2.0 * x)


def loss_of(model):
    return tf.reduce_mean(tf.square(model(x) - y))


def main():
    work = tempfile.mkdtemp(prefix="resume_tf_training_")
    try:
        directory = os.path.join(work, "checkpoints")
        shutil.copytree(TF_CHECKPOINT, directory)  # keep the committed TF checkpoint as it is

        model = Regressor()
        optimizer = tf.keras.optimizers.Adam(learning_rate=0.02)
        step = tf.Variable(0, dtype=tf.int64)
        checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
        restored = manager.restore_or_initialize()
        with open(os.path.join(directory, "loss.txt")) as f:
            tf_loss = float(f.read())
        print(f"restored {os.path.basename(restored)} written by TensorFlow: step {int(step.numpy())}, "
              f"Adam iterations {int(optimizer.iterations.numpy())}")
        print(f"loss of the restored weights {loss_of(model).numpy():.6f} (TensorFlow computed {tf_loss:.6f})")

        for _ in range(30):
            with tf.GradientTape() as tape:
                loss = loss_of(model)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            step.assign_add(1)
            if int(step.numpy()) % 10 == 0:
                print(f"step {int(step.numpy())}: loss {loss.numpy():.6f}")
        final = manager.save(checkpoint_number=step)
        our_loss = float(loss_of(model).numpy())
        print(f"saved {os.path.basename(final)}: loss {our_loss:.6f}; files {sorted(os.listdir(directory))}")
        print(f"variables in it: {len(tf.train.list_variables(final))} (weights, Adam slots, counters)")
        check_with_tensorflow(directory, our_loss)
    finally:
        shutil.rmtree(work, ignore_errors=True)


_TF_SIDE = """
import sys
import numpy as np
import tensorflow as tf
exec(sys.argv[1])  # the model classes above, run by real TensorFlow
model, step = Regressor(), tf.Variable(0, dtype=tf.int64)
optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=0.02)
tf.train.Checkpoint(model=model, optimizer=optimizer, step=step).restore(
    tf.train.latest_checkpoint(sys.argv[2])).assert_existing_objects_matched()
x = np.linspace(-2.0, 2.0, 64, dtype=np.float32).reshape(-1, 1)
y = np.sin(2.0 * x).astype(np.float32)
print(int(step.numpy()), float(tf.reduce_mean(tf.square(model(x) - y)).numpy()))
"""


def check_with_tensorflow(directory, our_loss):
    python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not python and importlib.util.find_spec("tensorflow") is not None:
        python = sys.executable
    if not python:
        print("TensorFlow is not installed here: skipped restoring the result with real TensorFlow "
              "(set TFCOMPAT_TF_PYTHON to a Python that has it)")
        return
    import inspect

    classes = inspect.getsource(Dense) + "\n" + inspect.getsource(Regressor)
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([python, "-c", _TF_SIDE, classes, directory], capture_output=True, text=True,
                          env=env, timeout=300)
    if done.returncode != 0:
        raise RuntimeError("TensorFlow could not restore the checkpoint:\n" + done.stderr[-2000:])
    tf_step, tf_loss = done.stdout.split()[-2:]
    print(f"TensorFlow restored it: step {tf_step}, loss {float(tf_loss):.6f} (tfcompat: {our_loss:.6f})")
    if abs(float(tf_loss) - our_loss) > 1e-5 * max(1.0, our_loss):
        raise RuntimeError("TensorFlow computes another loss from the same checkpoint")


if __name__ == "__main__":
    main()
