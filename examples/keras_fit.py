"""Keras `compile` / `fit` / `evaluate` with callbacks, unchanged except for the import line.

    python examples/keras_fit.py

The shape of TF's "Training & evaluation with the built-in methods" guide: a functional CNN
(Conv2D, MaxPooling2D, Flatten, Dense) on generated 28x28 grey images of 10 classes, where an
image's class is which of ten vertical stripes is the brightest. `fit` holds out the last 20%
as validation data, prints tf_keras's progress bar, and runs three callbacks: ModelCheckpoint
(the best epoch by `val_accuracy`, as HDF5 weights), EarlyStopping (which ends the 20 epochs
once `val_accuracy` stops rising, and puts the best weights back) and TensorBoard (event files
for `tensorboard --logdir`), all writing under one temporary folder that the script prints.
Then the same model is trained again under `tf.distribute.MirroredStrategy` over two logical
CPUs, as TF's "Distributed training with Keras" guide does it: build and compile in
`strategy.scope()`, then the same `fit`.
"""

import os
import tempfile

import numpy as np

import tfcompat as tf  # the port: was `import tensorflow as tf`

# Two logical CPUs, for the MirroredStrategy part below; this must happen before any op runs.
cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])

tf.keras.utils.set_random_seed(0)
NUM_CLASSES = 10
EDGES = np.linspace(0, 28, NUM_CLASSES + 1).astype(int)  # ten vertical stripes, 2 or 3 columns wide


def make_data(count, seed):
    """Noise images with one stripe brighter: the label is the brightest stripe."""
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, NUM_CLASSES, size=count)
    images = rng.uniform(0.0, 0.6, size=(count, 28, 28, 1)).astype(np.float32)
    for image, label in zip(images, labels):
        image[:, EDGES[label]:EDGES[label + 1]] += 0.4
    return images, labels.astype(np.int64)


x_train, y_train = make_data(2000, seed=1)
x_test, y_test = make_data(500, seed=2)


def build_model():
    """The functional CNN: two conv/pool blocks, then a softmax over the classes."""
    inputs = tf.keras.Input(shape=(28, 28, 1), name="image")
    x = tf.keras.layers.Conv2D(8, 3, activation="relu")(inputs)
    x = tf.keras.layers.MaxPooling2D(2)(x)
    x = tf.keras.layers.Conv2D(16, 3, activation="relu")(x)
    x = tf.keras.layers.MaxPooling2D(2)(x)
    x = tf.keras.layers.Flatten()(x)
    outputs = tf.keras.layers.Dense(NUM_CLASSES, activation="softmax", name="class")(x)
    return tf.keras.Model(inputs, outputs, name="stripes")


model = build_model()
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.summary()

workdir = tempfile.mkdtemp(prefix="keras_fit_")
checkpoint_path = os.path.join(workdir, "best.h5")
log_dir = os.path.join(workdir, "logs")
early_stopping = tf.keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=2,
                                                  restore_best_weights=True, verbose=1)
callbacks = [
    tf.keras.callbacks.ModelCheckpoint(checkpoint_path, monitor="val_accuracy", save_best_only=True,
                                       save_weights_only=True, verbose=1),
    early_stopping,
    tf.keras.callbacks.TensorBoard(log_dir=log_dir),
]

initial_loss, initial_accuracy = model.evaluate(x_test, y_test, verbose=0)
history = model.fit(x_train, y_train, batch_size=64, epochs=20, validation_split=0.2,
                    callbacks=callbacks, verbose=1)
loss, accuracy = model.evaluate(x_test, y_test, verbose=0)

# The checkpoint holds the best epoch's weights, which EarlyStopping also put back in `model`.
restored = build_model()
restored.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"])
restored.load_weights(checkpoint_path)
restored_loss, restored_accuracy = restored.evaluate(x_test, y_test, verbose=0)

print("history keys:", sorted(history.history))
print(f"epochs run: {len(history.epoch)} (best epoch {early_stopping.best_epoch + 1}, "
      f"best val_accuracy {early_stopping.best:.4f})")
print(f"test accuracy before training {initial_accuracy:.3f}, after {accuracy:.3f} "
      f"(loss {loss:.4f}); from the checkpoint {restored_accuracy:.3f} (loss {restored_loss:.4f})")
print("files written under", workdir)
for root, _, names in sorted(os.walk(workdir)):
    for name in sorted(names):
        path = os.path.join(root, name)
        print(f"  {os.path.relpath(path, workdir)} ({os.path.getsize(path)} bytes)")
print(f"see the curves with: tensorboard --logdir {log_dir}")

# The same model under MirroredStrategy: each batch is split between the two replicas and the
# gradients are summed before the (mirrored) variables are updated.
gpus = tf.config.list_logical_devices("GPU")
strategy = tf.distribute.MirroredStrategy(None if len(gpus) > 1 else ["/cpu:0", "/cpu:1"])
print("Number of devices:", strategy.num_replicas_in_sync)
with strategy.scope():
    mirrored = build_model()
    mirrored.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
mirrored.fit(x_train, y_train, batch_size=64, epochs=5, validation_split=0.2, verbose=2)
mirrored_loss, mirrored_accuracy = mirrored.evaluate(x_test, y_test, verbose=0)
print(f"mirrored: test accuracy {mirrored_accuracy:.3f} (loss {mirrored_loss:.4f}), kernel is a",
      type(mirrored.layers[1].kernel).__name__)
