"""`tf.keras.datasets.mnist`: 28x28 grayscale digits, 60000 for training, 10000 for test."""

from __future__ import annotations

from typing import Optional

from ..utils.data_utils import get_file
from . import _cache
from ._restricted_pickle import load_npz

__all__ = ["load_data"]

ORIGIN = _cache.KERAS_DATASETS + "mnist.npz"
FILE_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path: str = "mnist.npz", cache_dir: Optional[str] = None) -> tuple:
    """`tf.keras.datasets.mnist.load_data`: `(x_train, y_train), (x_test, y_test)`.

    The arrays of tf_keras's `mnist.npz` (cached at `<cache_dir>/datasets/<path>`,
    downloaded when absent or when its sha256 differs): images `uint8` `(60000, 28, 28)`
    and `(10000, 28, 28)` with values 0-255, labels `uint8` `(60000,)` and `(10000,)`.
    """
    path = get_file(path, origin=ORIGIN, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    f = load_npz(path)
    return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
