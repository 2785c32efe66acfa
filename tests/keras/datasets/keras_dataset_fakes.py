"""Tiny stand-ins for the files tf_keras's dataset loaders cache, in tf_keras's layout.

`build(root, name)` writes dataset `name`'s files under `root` (a `KERAS_HOME`/`cache_dir`)
exactly where tf_keras looks for them and returns the paths whose hashes the loader
checks. Deterministic contents, so the golden generator (run with tf_keras) and the tests
(run with tfcompat) read the same data. Sizes are small except where tf_keras's loader
fixes them (none of those are used here).
"""

from __future__ import annotations

import gzip
import os
import pickle
import tarfile
from typing import Dict, List

import numpy as np


def _word_lists(rng: np.random.RandomState, n: int, vocab: int, lo: int, hi: int) -> np.ndarray:
    seqs = [list(map(int, rng.randint(1, vocab, size=rng.randint(lo, hi)))) for _ in range(n)]
    out = np.empty(n, dtype=object)  # 1-D object array of lists, as in imdb.npz
    for i, s in enumerate(seqs):
        out[i] = s
    return out


def _imdb(root: str) -> List[str]:
    rng = np.random.RandomState(1)
    path = os.path.join(root, "datasets", "imdb.npz")
    np.savez(path, x_train=_word_lists(rng, 12, 25, 2, 10),
             y_train=rng.randint(0, 2, 12).astype("int64"),
             x_test=_word_lists(rng, 8, 25, 2, 10), y_test=rng.randint(0, 2, 8).astype("int64"))
    return [path]


def _reuters(root: str) -> List[str]:
    rng = np.random.RandomState(2)
    path = os.path.join(root, "datasets", "reuters.npz")
    np.savez(path, x=_word_lists(rng, 20, 30, 2, 12), y=rng.randint(0, 46, 20).astype("int64"))
    return [path]


def _boston(root: str) -> List[str]:
    rng = np.random.RandomState(3)
    path = os.path.join(root, "datasets", "boston_housing.npz")
    np.savez(path, x=rng.rand(31, 13) * 100, y=rng.rand(31) * 50)
    return [path]


def _mnist(root: str) -> List[str]:
    rng = np.random.RandomState(4)
    path = os.path.join(root, "datasets", "mnist.npz")
    np.savez(path, x_train=rng.randint(0, 256, (6, 28, 28)).astype("uint8"),
             y_train=rng.randint(0, 10, 6).astype("uint8"),
             x_test=rng.randint(0, 256, (3, 28, 28)).astype("uint8"),
             y_test=rng.randint(0, 10, 3).astype("uint8"))
    return [path]


def _idx_gz(path: str, magic: int, dims: List[int], data: np.ndarray) -> None:
    header = magic.to_bytes(4, "big") + b"".join(d.to_bytes(4, "big") for d in dims)
    with gzip.open(path, "wb") as f:
        f.write(header + data.astype("uint8").tobytes())


def _fashion(root: str) -> List[str]:
    rng = np.random.RandomState(5)
    d = os.path.join(root, "datasets", "fashion-mnist")
    os.makedirs(d, exist_ok=True)
    for prefix, n in (("train", 5), ("t10k", 4)):
        _idx_gz(os.path.join(d, f"{prefix}-labels-idx1-ubyte.gz"), 2049, [n],
                rng.randint(0, 10, n))
        _idx_gz(os.path.join(d, f"{prefix}-images-idx3-ubyte.gz"), 2051, [n, 28, 28],
                rng.randint(0, 256, (n, 28, 28)))
    return []


def _cifar_batch(path: str, rng: np.random.RandomState, n: int, label_keys: Dict[str, int]
                 ) -> None:
    batch = {b"batch_label": b"fake batch", b"data": rng.randint(0, 256, (n, 3072)).astype("uint8"),
             b"filenames": [f"img_{i}.png".encode() for i in range(n)]}
    for key, classes in label_keys.items():
        batch[key.encode()] = [int(v) for v in rng.randint(0, classes, n)]
    with open(path, "wb") as f:
        pickle.dump(batch, f, protocol=2)  # CIFAR's files are protocol-2 pickles


def _tar_dir(root: str, dirname: str) -> str:
    datadir = os.path.join(root, "datasets")
    tar_path = os.path.join(datadir, dirname + ".tar.gz")
    with tarfile.open(tar_path, "w:gz") as tar:
        tar.add(os.path.join(datadir, dirname), arcname=dirname)
    return tar_path


def _cifar10(root: str) -> List[str]:
    rng = np.random.RandomState(6)
    d = os.path.join(root, "datasets", "cifar-10-batches-py")
    os.makedirs(d, exist_ok=True)
    for i in range(1, 6):
        _cifar_batch(os.path.join(d, f"data_batch_{i}"), rng, 3, {"labels": 10})
    _cifar_batch(os.path.join(d, "test_batch"), rng, 4, {"labels": 10})
    return [_tar_dir(root, "cifar-10-batches-py")]


def _cifar100(root: str) -> List[str]:
    rng = np.random.RandomState(7)
    d = os.path.join(root, "datasets", "cifar-100-python")
    os.makedirs(d, exist_ok=True)
    keys = {"fine_labels": 100, "coarse_labels": 20}
    _cifar_batch(os.path.join(d, "train"), rng, 5, keys)
    _cifar_batch(os.path.join(d, "test"), rng, 3, keys)
    return [_tar_dir(root, "cifar-100-python")]


BUILDERS = {"imdb": _imdb, "reuters": _reuters, "boston_housing": _boston, "mnist": _mnist,
            "fashion_mnist": _fashion, "cifar10": _cifar10, "cifar100": _cifar100}


def build(root: str, name: str) -> List[str]:
    """Write dataset `name`'s fake cache files under `root`; the paths whose hash is checked."""
    os.makedirs(os.path.join(root, "datasets"), exist_ok=True)
    return BUILDERS[name](root)
