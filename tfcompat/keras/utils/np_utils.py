"""`tf.keras.utils.to_categorical`, `to_ordinal` and `normalize`: NumPy in, NumPy out.

tf_keras computes these on the host with NumPy (they prepare labels before training), so
they return `np.ndarray`, not tensors, here as there.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

__all__ = ["to_categorical", "to_ordinal", "normalize"]


def _class_vector(y: Any, num_classes: Optional[int]) -> tuple:
    """Flatten `y` to a vector of class ids; the output's leading shape and class count.

    A trailing axis of size 1 (`(n, 1)` labels, as `cifar10` returns) is dropped from the
    output shape, as tf_keras does, so `(n, 1)` labels give `(n, num_classes)`.
    """
    y = np.array(y, dtype="int")
    leading = y.shape
    if leading and leading[-1] == 1 and len(leading) > 1:
        leading = tuple(leading[:-1])
    y = y.reshape(-1)
    if not num_classes:
        num_classes = np.max(y) + 1
    return y, tuple(leading), int(num_classes)


def to_categorical(y: Any, num_classes: Optional[int] = None, dtype: Any = "float32"
                   ) -> np.ndarray:
    """`tf.keras.utils.to_categorical`: one-hot encode integer class ids (class axis last).

    `num_classes=None` (or 0) infers `max(y) + 1`. Ids are used as NumPy indices, so a
    negative id counts from the end and an id `>= num_classes` raises NumPy's
    `IndexError`, as in tf_keras.
    """
    y, leading, num_classes = _class_vector(y, num_classes)
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, leading + (num_classes,))


def to_ordinal(y: Any, num_classes: Optional[int] = None, dtype: Any = "float32"
               ) -> np.ndarray:
    """`tf.keras.utils.to_ordinal`: class `k` becomes `k` ones then zeros, `num_classes - 1` wide."""
    y, leading, num_classes = _class_vector(y, num_classes)
    n = y.shape[0]
    ranks = np.tile(np.arange(num_classes - 1)[None, :], [n, 1])
    ordinal = np.zeros((n, num_classes - 1), dtype=dtype)
    ordinal[ranks < y[:, None]] = 1
    return np.reshape(ordinal, leading + (num_classes - 1,))


def normalize(x: Any, axis: int = -1, order: Any = 2) -> np.ndarray:
    """`tf.keras.utils.normalize`: `x` divided by its `order`-norm along `axis`.

    Zero norms are replaced by 1, so an all-zero slice stays zero instead of NaN. The norm
    is `np.linalg.norm(x, order, axis)`, so `order` takes NumPy's values (`1`, `2`,
    `np.inf`, ...). Returns a new array; `x` is unchanged.
    """
    norms = np.atleast_1d(np.linalg.norm(x, order, axis))
    norms[norms == 0] = 1
    return x / np.expand_dims(norms, axis)
