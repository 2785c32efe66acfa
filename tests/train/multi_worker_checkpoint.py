"""One worker of the multi-worker checkpoint test (run with torchrun by test_checkpoint_distribute.py).

    torchrun --nproc_per_node=2 multi_worker_checkpoint.py DIR

Every worker trains one step under MultiWorkerMirroredStrategy, saves
(outside the strategy's scope, as TF's guides do), reports which files it
saw, restores into fresh objects and writes DIR/result.<rank>.json.
Not collected by pytest.
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import tfcompat as tf  # noqa: E402

directory = sys.argv[1]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.extended._worker_index()
with strategy.scope():
    w = tf.Variable([1.0, 2.0], name="w")
    seen = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                       aggregation=tf.VariableAggregation.SUM, name="seen")
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)


def step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * w) * (1.0 + tf.cast(rank, tf.float32))
    grads = tape.gradient(loss, [w])
    opt.apply_gradients(zip(grads, [w]))
    seen.assign_add(1.0 + rank)


strategy.run(step)
ckpt = tf.train.Checkpoint(w=w, seen=seen, opt=opt)
path = ckpt.save(os.path.join(directory, "ckpt"))
files = sorted(os.listdir(directory))
strategy.extended._collectives.barrier()  # the chief's files are in place for everyone
with strategy.scope():
    w2 = tf.Variable([0.0, 0.0])
    seen2 = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                        aggregation=tf.VariableAggregation.SUM)
    opt2 = tf.keras.optimizers.SGD(0.1, momentum=0.9)
status = tf.train.Checkpoint(w=w2, seen=seen2, opt=opt2).restore(path)
status.assert_existing_objects_matched()
result = {"rank": rank, "path": path, "files": files, "w": w.numpy().tolist(),
          "w2": w2.numpy().tolist(), "seen": float(seen.read_value()),
          "seen2": float(seen2.read_value()), "seen2_local": float(seen2.values[0].numpy()),
          "iter": int(opt2.iterations.numpy())}
with open(os.path.join(directory, f"result.{rank}.json"), "w") as f:
    json.dump(result, f)
