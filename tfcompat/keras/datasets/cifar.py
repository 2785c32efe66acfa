"""CIFAR's pickled batch files, read with the restricted unpickler."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ._restricted_pickle import load_pickle

__all__ = ["load_batch"]


def load_batch(fpath: str, label_key: str = "labels") -> Tuple[np.ndarray, list]:
    """`keras.datasets.cifar.load_batch`: `(data (n, 3, 32, 32) uint8, labels list)`.

    A batch is a pickled dict with bytes keys (`b"data"`: `(n, 3072)` uint8 rows of R, G,
    B planes; `b"labels"` or, for CIFAR-100, `b"fine_labels"` / `b"coarse_labels"`).
    Only containers and NumPy arrays are unpickled, so a crafted file cannot run code.
    """
    with open(fpath, "rb") as f:
        d = load_pickle(f, encoding="bytes")
    if not isinstance(d, dict):
        raise ValueError(f"{fpath} is not a CIFAR batch (expected a pickled dict).")
    d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in d.items()}
    data = np.asarray(d["data"])
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]
