"""tf_keras's `engine/data_adapter.py`: how `Model.fit`, `evaluate` and `predict` read data.

Re-exports only; the pieces live in `data_adapters/`:

* `unpack_x_y_sample_weight`, `pack_x_y_sample_weight` (`tf.keras.utils`'s) and
  `train_validation_split` (`fit`'s `validation_split`: the last fraction);
* `DataHandler` / `get_data_handler`: epochs, steps and one iterator per epoch over NumPy
  arrays, torch tensors, variables, nests and lists of them, `tf.data.Dataset`, Python
  generators, `tf.keras.utils.Sequence` and `torch.utils.data.DataLoader`;
* `single_batch_iterator` for `train_on_batch` / `test_on_batch` / `predict_on_batch`.

Every batch is a plain `torch.Tensor` nest packed as tf_keras packs it: `x`, `(x,)`,
`(x, y)` or `(x, y, sample_weight)`.
"""

from .data_adapters.array_adapters import (DataAdapter, GenericArrayLikeDataAdapter,
                                           ListsOfScalarsDataAdapter, TensorLikeDataAdapter)
from .data_adapters.class_weights import make_class_weight_map_fn
from .data_adapters.handler import (ALL_ADAPTER_CLS, DataHandler, DataIterator,
                                    get_data_handler, select_data_adapter,
                                    single_batch_iterator)
from .data_adapters.packing import (is_none_or_empty, pack_x_y_sample_weight,
                                    train_validation_split, unpack_x_y_sample_weight)
from .data_adapters.stream_adapters import (DataLoaderAdapter, DatasetAdapter,
                                            GeneratorDataAdapter, KerasSequenceAdapter)

__all__ = [
    "ALL_ADAPTER_CLS", "DataAdapter", "DataHandler", "DataIterator", "DataLoaderAdapter",
    "DatasetAdapter", "GeneratorDataAdapter", "GenericArrayLikeDataAdapter",
    "KerasSequenceAdapter", "ListsOfScalarsDataAdapter", "TensorLikeDataAdapter",
    "get_data_handler", "is_none_or_empty", "make_class_weight_map_fn",
    "pack_x_y_sample_weight", "select_data_adapter", "single_batch_iterator",
    "train_validation_split", "unpack_x_y_sample_weight",
]
