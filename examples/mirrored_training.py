"""Custom training with tf.distribute.MirroredStrategy, unchanged except for the import line.

    python examples/mirrored_training.py

The shape of TF's guide "Custom training with tf.distribute.Strategy": a
strategy, variables created in its scope, a distributed dataset, a step run
on every replica with `strategy.run`, the loss scaled by the global batch
(`tf.nn.compute_average_loss`), and the replicas' losses combined with
`strategy.reduce`. Without GPUs, the CPU is split into two logical devices
so that there are two replicas, as TF's own tests do. The data is a
`tf.data` pipeline, as in the guide (a list of numpy batches or a torch
`DataLoader` works as well).
"""

import numpy as np

import tfcompat as tf  # the port: was `import tensorflow as tf`

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
gpus = tf.config.list_logical_devices("GPU")
strategy = tf.distribute.MirroredStrategy(None if len(gpus) > 1 else ["/cpu:0", "/cpu:1"])
print("Number of devices:", strategy.num_replicas_in_sync)

GLOBAL_BATCH_SIZE = 64
rng = np.random.RandomState(0)
features = rng.randn(1024, 20).astype(np.float32)
labels = (features[:, :5].sum(axis=1) > 0).astype(np.int64)
train_dataset = tf.data.Dataset.from_tensor_slices((features, labels)).shuffle(
    len(features), seed=0).batch(GLOBAL_BATCH_SIZE)
dist_dataset = strategy.experimental_distribute_dataset(train_dataset)

with strategy.scope():
    w1 = tf.Variable(tf.random.normal([20, 32], stddev=0.3, seed=1), name="dense/kernel")
    b1 = tf.Variable(tf.zeros([32]), name="dense/bias")
    w2 = tf.Variable(tf.random.normal([32, 2], stddev=0.3, seed=2), name="logits/kernel")
    b2 = tf.Variable(tf.zeros([2]), name="logits/bias")
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)
    accuracy_total = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                                 aggregation=tf.VariableAggregation.SUM, name="correct")
variables = [w1, b1, w2, b2]


def compute_loss(x, y):
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    per_example_loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    correct = tf.reduce_sum(tf.cast(tf.equal(tf.argmax(logits, axis=1), y), tf.float32))
    return tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE), correct


def train_step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        loss, correct = compute_loss(x, y)
    gradients = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(gradients, variables))
    accuracy_total.assign_add(correct)
    return loss


for epoch in range(5):
    total_loss, num_batches = 0.0, 0
    accuracy_total.assign(0.0)
    for batch in dist_dataset:
        per_replica_losses = strategy.run(train_step, args=(batch,))
        total_loss += strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)
        num_batches += 1
    print(f"epoch {epoch + 1}: loss {float(total_loss / num_batches):.4f}, "
          f"accuracy {float(accuracy_total.numpy()) / len(features):.3f}")

print("w1 is a", type(w1).__name__, "with components", [c.name for c in w1.values])
print("optimizer steps:", int(optimizer.iterations))
