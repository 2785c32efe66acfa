"""`tf.keras.datasets.fashion_mnist`: 28x28 grayscale Zalando articles in 10 classes."""

from __future__ import annotations

import gzip
import os
from typing import Optional

import numpy as np

from ..utils.data_utils import get_file
from . import _cache

__all__ = ["load_data"]

FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
         "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")
ORIGIN_FOLDER = _cache.KERAS_DATASETS


def _idx(path: str, header: int) -> np.ndarray:
    # IDX files: a big-endian header (8 bytes for labels, 16 for images), then raw uint8s.
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=header)


def load_data(cache_dir: Optional[str] = None) -> tuple:
    """`tf.keras.datasets.fashion_mnist.load_data`: `(x_train, y_train), (x_test, y_test)`.

    Reads the four gzipped IDX files tf_keras caches under
    `<cache_dir>/datasets/fashion-mnist/` (downloaded when absent; tf_keras checks no
    hash here): images `uint8` `(60000, 28, 28)` / `(10000, 28, 28)`, labels `uint8`.
    """
    cache_dir = _cache.prepare_cache_dir(cache_dir)
    subdir = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(name, origin=ORIGIN_FOLDER + name, cache_dir=cache_dir,
                      cache_subdir=subdir) for name in FILES]
    y_train = _idx(paths[0], 8)
    x_train = _idx(paths[1], 16).reshape(len(y_train), 28, 28)
    y_test = _idx(paths[2], 8)
    x_test = _idx(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
