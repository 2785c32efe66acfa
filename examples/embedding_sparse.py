"""An embedding model trained with sparse updates, as TF 2 writes it; import line changed.

    python examples/embedding_sparse.py

A bag-of-words classifier: token ids -> `tf.nn.embedding_lookup` on an embedding table
(a `tf.Variable` of 2000 rows) -> mean over the sequence -> a dense logit. The gradient of
the lookup with respect to the table is a `tf.IndexedSlices` (the looked-up rows, not a
dense 2000 x 16 tensor), and the Keras optimizers apply it sparsely, as TF does:

* Adagrad changes only the rows (of the table and of its accumulator slot) that the batch
  touched; every step below checks that, and that the rows no document uses never move.
* Adam (TF's, and so tfcompat's) decays its `m` and `v` slots on every row and updates every
  row whose `m` is not zero: a row touched once keeps moving afterwards, rows never touched
  stay. (torch.optim.SparseAdam is "lazy": it updates only the rows in the batch.)

The data is generated: documents of 11 tokens drawn from the first 200 ids, labelled by
whether they hold more "positive" tokens (ids < 100) than "negative" ones. Finishes in a
few seconds on a laptop CPU.
"""

import numpy as np

import tfcompat as tf  # the port: was `import tensorflow as tf`

VOCAB, USED, DIM, LENGTH, BATCH = 2000, 200, 16, 11, 32

rng = np.random.RandomState(0)
documents = rng.randint(0, USED, size=(1024, LENGTH)).astype(np.int64)
labels = ((documents < USED // 2).sum(axis=1) > LENGTH // 2).astype(np.float32)
dataset = tf.data.Dataset.from_tensor_slices((documents, labels)).shuffle(1024, seed=0).batch(BATCH)

table = tf.Variable(tf.random.uniform([VOCAB, DIM], -0.05, 0.05, seed=1), name="embedding")
w = tf.Variable(tf.random.normal([DIM, 1], stddev=0.1, seed=2), name="logits/kernel")
b = tf.Variable(tf.zeros([1]), name="logits/bias")


def logits_of(ids):
    vectors = tf.nn.embedding_lookup(table, ids)  # [batch, length, dim]
    return tf.squeeze(tf.matmul(tf.reduce_mean(vectors, axis=1), w) + b, axis=1)


def loss_of(ids, y):
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits_of(ids)))


def accuracy():
    predictions = tf.cast(logits_of(tf.constant(documents)) > 0, tf.float32)
    return float(tf.reduce_mean(tf.cast(predictions == tf.constant(labels), tf.float32)))


def changed_rows(before, after):
    return set(np.nonzero(np.any(before != after, axis=1))[0].tolist())


def train_adagrad(epochs):
    optimizer = tf.keras.optimizers.Adagrad(learning_rate=1.0)
    sparse_steps, all_sparse = 0, True
    for epoch in range(1, epochs + 1):
        for ids, y in dataset:
            with tf.GradientTape() as tape:
                loss = loss_of(ids, y)
            table_grad, w_grad, b_grad = tape.gradient(loss, [table, w, b])
            all_sparse &= isinstance(table_grad, tf.IndexedSlices)
            before = table.numpy().copy()
            accumulator = optimizer.get_slot(table, "accumulator").numpy().copy() if sparse_steps else None
            optimizer.apply_gradients([(table_grad, table), (w_grad, w), (b_grad, b)])
            touched = set(np.unique(ids.numpy()).tolist())
            assert changed_rows(before, table.numpy()) <= touched, "a row outside the batch changed"
            if accumulator is not None:
                assert changed_rows(accumulator, optimizer.get_slot(table, "accumulator").numpy()) <= touched
            sparse_steps += 1
        print(f"Adagrad epoch {epoch}: loss {float(tf.stop_gradient(loss)):.4f}, accuracy {accuracy():.4f}")
    print(f"gradients of the table were IndexedSlices: {all_sparse}")
    print(f"Adagrad: in each of {sparse_steps} steps only the batch's rows of the table and of its "
          f"accumulator changed: True")


def adam_steps():
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
    start = table.numpy().copy()
    batches = [tf.constant([[1, 2, 3]]), tf.constant([[4, 5]])]
    moved = []
    for ids in batches:
        before = table.numpy().copy()
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
        optimizer.apply_gradients([(tape.gradient(loss, table), table)])
        moved.append(sorted(changed_rows(before, table.numpy())))
    print(f"Adam: rows changed by step 1 (ids 1, 2, 3): {moved[0]}; by step 2 (ids 4, 5): {moved[1]}")
    print(f"Adam: rows never looked up unchanged: "
          f"{sorted(changed_rows(start, table.numpy())) == [1, 2, 3, 4, 5]}")


def main():
    unused = table.numpy()[USED:].copy()
    print(f"accuracy before training {accuracy():.4f}")
    train_adagrad(epochs=5)
    print(f"rows no document uses ({VOCAB - USED}) unchanged after training: "
          f"{bool(np.array_equal(unused, table.numpy()[USED:]))}")
    adam_steps()


if __name__ == "__main__":
    main()
