"""`tf.keras.datasets.cifar10`: 32x32 colour images in 10 classes."""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .. import backend
from ..utils.data_utils import get_file
from . import _cache
from .cifar import load_batch

__all__ = ["load_data"]

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
FILE_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


def load_data(cache_dir: Optional[str] = None) -> tuple:
    """`tf.keras.datasets.cifar10.load_data`: `(x_train, y_train), (x_test, y_test)`.

    Reads tf_keras's cache: `<cache_dir>/datasets/cifar-10-batches-py.tar.gz` (downloaded
    when absent or its sha256 differs) extracted to `cifar-10-batches-py/` with
    `data_batch_1..5` and `test_batch`. Images `uint8` `(50000, 32, 32, 3)` /
    `(10000, 32, 32, 3)` (`(n, 3, 32, 32)` under `channels_first`), labels `uint8`
    `(n, 1)`. The training set's size is the sum of the batches' sizes (tf_keras assumes
    5 x 10000; the real files give the same arrays).
    """
    path = get_file("cifar-10-batches-py", origin=ORIGIN, untar=True, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    xs, ys = [], []
    for i in range(1, 6):
        data, labels = load_batch(os.path.join(path, f"data_batch_{i}"))
        xs.append(data.astype("uint8"))
        ys.append(np.asarray(labels).astype("uint8"))
    x_train, y_train = np.concatenate(xs), np.concatenate(ys)
    x_test, y_test = load_batch(os.path.join(path, "test_batch"))
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test.astype(x_train.dtype), y_test.astype(y_train.dtype))
