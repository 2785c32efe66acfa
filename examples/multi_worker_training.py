"""Multi-worker training with tf.distribute.MultiWorkerMirroredStrategy, import line changed.

Start two workers on this machine with torchrun (gloo on CPU, NCCL on GPUs):

    torchrun --standalone --nproc_per_node=2 examples/multi_worker_training.py

or, as TF programs start it, with a TF_CONFIG per worker (one shell each):

    TF_CONFIG='{"cluster": {"worker": ["localhost:12345", "localhost:12346"]},
                "task": {"type": "worker", "index": 0}}' python examples/multi_worker_training.py
    TF_CONFIG='{"cluster": {"worker": ["localhost:12345", "localhost:12346"]},
                "task": {"type": "worker", "index": 1}}' python examples/multi_worker_training.py

Run alone, it is one worker. The shape of TF's "Custom training loop with
MultiWorkerMirroredStrategy" guide: the strategy first, variables in its
scope, a dataset split by `distribute_datasets_from_function` (each worker
reads its shard), the loss scaled by the global batch, `strategy.run`, and
the losses reduced across workers. Every worker ends with the same weights.
"""

import json
import os
import sys

import numpy as np

import tfcompat as tf  # the port: was `import tensorflow as tf`

strategy = tf.distribute.MultiWorkerMirroredStrategy()
resolver = strategy.cluster_resolver
workers = strategy.num_replicas_in_sync
is_chief = resolver.task_type in (None, "chief") or (resolver.task_type == "worker"
                                                     and resolver.task_id == 0)

PER_REPLICA_BATCH = 32
GLOBAL_BATCH = PER_REPLICA_BATCH * workers
STEPS = 20
rng = np.random.RandomState(0)
features = rng.randn(STEPS * 64, 10).astype(np.float32)
targets = (features @ rng.randn(10, 1).astype(np.float32) + 0.5).astype(np.float32)


def dataset_fn(input_context):
    # Each worker takes its shard of every global batch (TF's DATA sharding, by hand).
    batch = input_context.get_per_replica_batch_size(GLOBAL_BATCH)
    start = input_context.input_pipeline_id * batch
    return [(features[i + start:i + start + batch], targets[i + start:i + start + batch])
            for i in range(0, STEPS * GLOBAL_BATCH, GLOBAL_BATCH)][:STEPS]


dist_dataset = strategy.distribute_datasets_from_function(dataset_fn)

with strategy.scope():
    w = tf.Variable(tf.random.normal([10, 1], seed=7), name="kernel")  # broadcast from the chief
    b = tf.Variable(tf.zeros([1]), name="bias")
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)
initial_kernel = w.numpy().ravel().tolist()


def train_step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        per_example = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y), axis=1)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b]))
    return loss


for step, batch in enumerate(dist_dataset):
    loss = strategy.reduce(tf.distribute.ReduceOp.SUM, strategy.run(train_step, args=(batch,)),
                           axis=None)
    if is_chief and step % 5 == 0:
        print(f"step {step:2d}  loss {float(loss):.5f}")

result = {"task": [resolver.task_type, resolver.task_id], "workers": workers,
          "initial_kernel": initial_kernel,
          "kernel": w.numpy().ravel().tolist(), "bias": b.numpy().tolist(),
          "steps": int(optimizer.iterations), "loss": float(loss)}
out = os.environ.get("TFCOMPAT_EXAMPLE_OUT")
if out:
    with open(f"{out}.{resolver.task_id or 0}.json", "w") as f:
        json.dump(result, f)
if is_chief:
    print(f"final loss {float(loss):.5f} after {result['steps']} steps on {workers} worker(s)")
sys.stdout.flush()
