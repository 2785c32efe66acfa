"""Checkpoints cross between TensorFlow and tfcompat in both directions.

* TF -> tfcompat: the object-based checkpoint TF wrote (tf2_program.py's model, legacy
  Adam, step counter, via CheckpointManager) restores into the same program run
  through tfcompat, and 5 more training steps reproduce TF's recorded losses, weights,
  Adam slots and iteration count. Tolerance: 4 float32 ulps of each tensor's largest
  magnitude (`assert_ulps`). The state restored is exact (checked bit for bit); the
  steps after it differ from TF only in the summation order of the matmuls and the
  mean (Eigen's vs torch's kernels), which moves results by 1-2 ulps (measured: losses
  and weights within 2 ulps of themselves). Scaled to the tensor because Adam's `m`
  sums gradients of both signs: an element far below the tensor's scale is a
  cancellation whose own ulps say nothing (measured: 46 of its own ulps, 0.7 of the
  tensor's).
* tfcompat -> TF (live, `tf_oracle`; runs TF in a subprocess: the interpreter named by
  TFCOMPAT_TF_PYTHON, or this one when it can import tensorflow): real TF restores
  what tfcompat wrote, object-based into TF's own tf.Module + legacy Adam, and
  name-based with TF1's graph-mode Saver.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tfcompat as tf
from tests.train import fixture_data as fx
from tests.train import tf2_program
from tfcompat.train.saver import Saver

MAX_ULP = 4
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def assert_ulps(got, want, maxulp: int = MAX_ULP) -> None:
    """|got - want| <= maxulp float32 ulps of max|want|, elementwise, same shape."""
    got, want = np.asarray(got, np.float32), np.asarray(want, np.float32)
    assert got.shape == want.shape
    tolerance = maxulp * np.spacing(np.abs(want).max()) if want.size else 0.0
    error = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert (error <= tolerance).all(), f"max error {error.max()} > {tolerance} ({maxulp} ulps of {np.abs(want).max()})"


def restored_program():
    model, optimizer, step = tf2_program.build(tf, seed=1)  # other initial weights: the restore must win
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    status = checkpoint.restore(tf.train.latest_checkpoint(str(fx.FIXTURES / "object_based")))
    return model, optimizer, step, status


def test_tf_checkpoint_restores_exactly():
    model, optimizer, step, _ = restored_program()
    tensors = fx.info("object_based")["tensors"]
    for path, var in zip(tf2_program.variable_paths(), tf2_program.variables(model)):
        assert fx.same_bits(var.numpy(), fx.decode(tensors[path])), path
    assert int(step.numpy()) == tf2_program.STEPS_BEFORE_SAVE
    assert int(optimizer.iterations.numpy()) == tf2_program.STEPS_BEFORE_SAVE


def test_continued_training_matches_tf_golden():
    golden = fx.info("object_based")["golden"]
    model, optimizer, step, status = restored_program()
    x, y = tf2_program.data()
    losses = [tf2_program.train_step(tf, model, optimizer, step, x, y) for _ in range(tf2_program.STEPS_AFTER_RESTORE)]
    status.assert_consumed()  # the Adam slots were restored into the slots the first step created
    for loss, encoded in zip(losses, golden["losses"]):
        assert_ulps(loss.numpy(), fx.decode(encoded))
    for path, var in zip(tf2_program.variable_paths(), tf2_program.variables(model)):
        assert_ulps(var.numpy(), fx.decode(golden["weights"][path]))
        for slot in ("m", "v"):
            assert_ulps(optimizer.get_slot(var, slot).numpy(),
                                            fx.decode(golden["slots"][path][slot]))
    assert int(optimizer.iterations.numpy()) == golden["iterations"]
    assert int(step.numpy()) == golden["step"]


def test_golden_is_sensitive_to_a_missed_restore():
    # Guard for the test above: training from the seed-1 weights (nothing restored)
    # is far from TF's continued run, so matching it means the restore happened.
    golden = fx.info("object_based")["golden"]
    model, optimizer, step = tf2_program.build(tf, seed=1)
    x, y = tf2_program.data()
    loss = tf2_program.train_step(tf, model, optimizer, step, x, y)
    assert abs(float(loss.numpy()) - float(fx.decode(golden["losses"][0]))) > 1e-3


# -- tfcompat -> TensorFlow, live ------------------------------------------------------

@pytest.fixture
def tf_python(request):
    """An interpreter with TensorFlow 2.21 and tf_keras 2.21 (skips without one)."""
    named = os.environ.get("TFCOMPAT_TF_PYTHON")
    if named:
        return named
    request.getfixturevalue("tf_oracle")  # skips when TensorFlow is not importable here
    return sys.executable


def run_tf(python: str, program: str, *args: str) -> dict:
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=HERE)
    done = subprocess.run([python, "-c", textwrap.dedent(program), *args], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("__RESULT__")]
    return json.loads(line[len("__RESULT__"):])


_TF_RESTORES_OBJECT_BASED = """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import tf2_program
    model, optimizer, step = tf2_program.build(tf, seed=2)
    status = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step).restore(
        tf.train.latest_checkpoint(sys.argv[1]))
    restored = {p: v.numpy().tobytes().hex() for p, v in zip(tf2_program.variable_paths(), tf2_program.variables(model))}
    x, y = tf2_program.data()
    loss = tf2_program.train_step(tf, model, optimizer, step, x, y)
    status.assert_consumed()
    print("__RESULT__" + json.dumps({
        "restored": restored, "loss": float(loss.numpy()),
        "weights": {p: v.numpy().tolist() for p, v in zip(tf2_program.variable_paths(), tf2_program.variables(model))},
        "m": {p: optimizer.get_slot(v, "m").numpy().tolist()
              for p, v in zip(tf2_program.variable_paths(), tf2_program.variables(model))},
        "iterations": int(optimizer.iterations.numpy()), "step": int(step.numpy())}))
"""


@pytest.mark.tf_oracle
def test_tf_restores_a_tfcompat_object_based_checkpoint(tf_python, tmp_path):
    x, y = tf2_program.data()
    model, optimizer, step = tf2_program.build(tf, seed=0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(model=model, optimizer=optimizer, step=step),
                                         str(tmp_path), max_to_keep=2)
    for _ in range(4):
        tf2_program.train_step(tf, model, optimizer, step, x, y)
        manager.save()
    got = run_tf(tf_python, _TF_RESTORES_OBJECT_BASED, str(tmp_path))
    for path, var in zip(tf2_program.variable_paths(), tf2_program.variables(model)):
        assert got["restored"][path] == var.numpy().tobytes().hex(), path  # TF read our bytes exactly
    loss = tf2_program.train_step(tf, model, optimizer, step, x, y)  # the same step, here
    assert_ulps(np.float32(got["loss"]), loss.numpy())
    for path, var in zip(tf2_program.variable_paths(), tf2_program.variables(model)):
        assert_ulps(np.asarray(got["weights"][path], np.float32), var.numpy())
        assert_ulps(np.asarray(got["m"][path], np.float32),
                                        optimizer.get_slot(var, "m").numpy())
    assert got["iterations"] == 5 and got["step"] == 5


_TF1_RESTORES_NAME_BASED = """
    import json, sys
    import numpy as np
    import tensorflow as tf
    graph = tf.Graph()
    with graph.as_default():
        with tf.compat.v1.variable_scope("dense"):
            kernel = tf.compat.v1.get_variable("kernel", shape=[3, 2])
            bias = tf.compat.v1.get_variable("bias", shape=[2])
        global_step = tf.compat.v1.train.get_or_create_global_step()
        saver = tf.compat.v1.train.Saver([kernel, bias, global_step])
        with tf.compat.v1.Session(graph=graph) as session:
            saver.restore(session, tf.train.latest_checkpoint(sys.argv[1]))
            k, b, g = session.run([kernel, bias, global_step])
    print("__RESULT__" + json.dumps({"kernel": k.tobytes().hex(), "bias": b.tobytes().hex(), "global_step": int(g)}))
"""


@pytest.mark.tf_oracle
def test_tf1_graph_saver_restores_a_tfcompat_name_based_checkpoint(tf_python, tmp_path):
    rng = np.random.RandomState(4)
    with tf.name_scope("dense"):
        kernel = tf.Variable(rng.normal(size=(3, 2)).astype(np.float32), name="kernel")
        bias = tf.Variable(rng.normal(size=2).astype(np.float32), name="bias")
    global_step = tf.Variable(12, dtype=tf.int64, name="global_step")
    Saver([kernel, bias, global_step]).save(None, str(tmp_path / "model.ckpt"), global_step=global_step)
    got = run_tf(tf_python, _TF1_RESTORES_NAME_BASED, str(tmp_path))
    assert got == {"kernel": kernel.numpy().tobytes().hex(), "bias": bias.numpy().tobytes().hex(), "global_step": 12}
