"""`tf.keras.datasets.boston_housing`: 506 houses, 13 features, median value targets."""

from __future__ import annotations

from typing import Optional

import numpy as np

from ..utils.data_utils import get_file
from . import _cache
from ._restricted_pickle import load_npz

__all__ = ["load_data"]

ORIGIN = _cache.KERAS_DATASETS + "boston_housing.npz"
FILE_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113,
              cache_dir: Optional[str] = None) -> tuple:
    """`tf.keras.datasets.boston_housing.load_data`: `(x_train, y_train), (x_test, y_test)`.

    The rows of `boston_housing.npz` (`x` float64 `(506, 13)`, `y` float64 `(506,)`) in
    the order `np.random.RandomState(seed).shuffle` gives, the first
    `int(n * (1 - test_split))` for training. `test_split` must be in `[0, 1)`
    (`AssertionError` otherwise, as tf_keras).
    """
    assert 0 <= test_split < 1
    path = get_file(path, origin=ORIGIN, file_hash=FILE_HASH,
                    cache_dir=_cache.prepare_cache_dir(cache_dir))
    f = load_npz(path)
    x, y = f["x"], f["y"]
    indices = np.arange(len(x))
    np.random.RandomState(seed).shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
