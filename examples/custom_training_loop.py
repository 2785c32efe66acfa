"""A TF 2 custom training loop, with a CheckpointManager and a progress bar; import line changed.

    python examples/custom_training_loop.py

The shape of TF's guide "Writing a training loop from scratch": a Keras model, a loss
object, an optimizer and metrics, a `tf.function` train step under a `GradientTape`, a
`tf.keras.utils.Progbar` per epoch, a validation pass, and `tf.train.CheckpointManager`
saving every epoch (keeping the newest three). The data is generated: three Gaussian
clusters in 20 dimensions. A restart is then simulated: a fresh model and optimizer restore
the latest checkpoint, give the same validation accuracy, and train one more epoch from the
restored step. Finishes in a few seconds on a laptop CPU.
"""

import os
import shutil
import tempfile

import numpy as np

import tfcompat as tf  # the port: was `import tensorflow as tf`

EPOCHS, BATCH, FEATURES, CLASSES = 4, 64, 20, 3

rng = np.random.RandomState(0)
centers = rng.randn(CLASSES, FEATURES).astype(np.float32) * 0.5
labels = rng.randint(0, CLASSES, 2048)
features = (centers[labels] + rng.randn(2048, FEATURES)).astype(np.float32)
train_dataset = tf.data.Dataset.from_tensor_slices((features[:1536], labels[:1536])).shuffle(
    1536, seed=0).batch(BATCH)
val_dataset = tf.data.Dataset.from_tensor_slices((features[1536:], labels[1536:])).batch(256)
steps_per_epoch = 1536 // BATCH


def build():
    """The model, optimizer and step counter, tracked by one checkpoint."""
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(32, activation="relu", input_shape=(FEATURES,)),
        tf.keras.layers.Dense(CLASSES),
    ])
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
    step = tf.Variable(0, dtype=tf.int64, trainable=False, name="step")
    return model, optimizer, step, tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)


loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
val_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()


def make_train_step(model, optimizer, step):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = loss_fn(y, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_accuracy.update_state(y, logits)
        step.assign_add(1)
        return loss
    return train_step


def evaluate(model):
    val_accuracy.reset_state()
    for x, y in val_dataset:
        val_accuracy.update_state(y, model(x, training=False))
    return float(val_accuracy.result())


def train_epochs(model, optimizer, step, manager, epochs, first_epoch=1):
    train_step = make_train_step(model, optimizer, step)
    for epoch in range(first_epoch, first_epoch + epochs):
        print(f"Epoch {epoch}/{first_epoch + epochs - 1}")
        progbar = tf.keras.utils.Progbar(steps_per_epoch, stateful_metrics=["accuracy"])
        train_accuracy.reset_state()
        for batch, (x, y) in enumerate(train_dataset):
            loss = train_step(x, y)
            progbar.update(batch + 1, [("loss", float(tf.stop_gradient(loss))),
                                       ("accuracy", float(train_accuracy.result()))])
        path = manager.save(checkpoint_number=step)
        print(f"validation accuracy {evaluate(model):.4f}; saved {os.path.basename(path)}")


def main():
    directory = tempfile.mkdtemp(prefix="custom_training_loop_")
    try:
        model, optimizer, step, checkpoint = build()
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=3)
        print(f"validation accuracy before training {evaluate(model):.4f}")
        train_epochs(model, optimizer, step, manager, EPOCHS)
        final = evaluate(model)
        kept = [os.path.basename(p) for p in manager.checkpoints]
        print(f"checkpoints kept: {kept}")

        # A restarted program: fresh objects, restored from the newest checkpoint.
        model2, optimizer2, step2, checkpoint2 = build()
        manager2 = tf.train.CheckpointManager(checkpoint2, directory, max_to_keep=3)
        checkpoint2.restore(manager2.latest_checkpoint).assert_existing_objects_matched()
        restored = evaluate(model2)
        print(f"restored {os.path.basename(manager2.latest_checkpoint)} at step {int(step2.numpy())}, "
              f"Adam iterations {int(optimizer2.iterations.numpy())}: validation accuracy "
              f"{restored:.4f} (before the restart {final:.4f})")
        train_epochs(model2, optimizer2, step2, manager2, 1, first_epoch=EPOCHS + 1)
        print(f"final step {int(step2.numpy())}, Adam iterations {int(optimizer2.iterations.numpy())}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
