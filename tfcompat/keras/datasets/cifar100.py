"""`tf.keras.datasets.cifar100`: 32x32 colour images in 100 fine / 20 coarse classes."""

from __future__ import annotations

import os
from typing import Optional

import numpy as np

from .. import backend
from ..utils.data_utils import get_file
from . import _cache
from .cifar import load_batch

__all__ = ["load_data"]

ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"
FILE_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


def load_data(label_mode: str = "fine", cache_dir: Optional[str] = None) -> tuple:
    """`tf.keras.datasets.cifar100.load_data`: `(x_train, y_train), (x_test, y_test)`.

    `label_mode` is "fine" (100 classes) or "coarse" (20 superclasses), else
    `ValueError`. Reads `cifar-100-python/{train,test}` from tf_keras's cache (the
    `.tar.gz` beside it is downloaded when absent). Images `uint8` `(50000, 32, 32, 3)` /
    `(10000, 32, 32, 3)` (channels first under `channels_first`); labels `(n, 1)` with the
    dtype NumPy gives the pickled label list (int64), as in tf_keras.
    """
    if label_mode not in ["fine", "coarse"]:
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. '
                         f"Received: label_mode={label_mode}.")
    path = get_file("cifar-100-python", origin=ORIGIN, untar=True, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    x_train, y_train = load_batch(os.path.join(path, "train"), label_key=label_mode + "_labels")
    x_test, y_test = load_batch(os.path.join(path, "test"), label_key=label_mode + "_labels")
    y_train = np.reshape(y_train, (len(y_train), 1))
    y_test = np.reshape(y_test, (len(y_test), 1))
    if backend.image_data_format() == "channels_last":
        x_train = x_train.transpose(0, 2, 3, 1)
        x_test = x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
