"""The pieces behind `tfcompat.keras.engine.data_adapter` (tf_keras's `engine/data_adapter.py`).

`packing` holds the `(x, y, sample_weight)` conventions, the conversions and the checks;
`array_adapters` the in-memory inputs (arrays, tensors, lists of scalars, array-likes);
`stream_adapters` the inputs that yield batches (`tf.data.Dataset`, generators,
`keras.utils.Sequence`, `torch.utils.data.DataLoader`); `class_weights` the `class_weight`
map; `handler` the `DataHandler` that `Model.fit` / `evaluate` / `predict` iterate.
Import from `data_adapter`, which re-exports the public names.
"""
