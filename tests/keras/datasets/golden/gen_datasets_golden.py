"""Record tf_keras 2.21's `load_data` outputs on the fake cache files (datasets.json).

Run with the TensorFlow environment (never by the test suite):

    TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/keras/datasets/golden/gen_datasets_golden.py

The fake files come from `keras_dataset_fakes.build`, the same builder the tests use.
tf_keras's loaders are run through their real `get_file` (so its cache layout is exercised)
with only the file hash dropped, since fake files cannot match the real hashes.
cifar10 is not recorded: tf_keras's loader assumes 5 x 10000 training images.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import keras_dataset_fakes  # noqa: E402

from cases_datasets import CASES  # noqa: E402


def _jsonable(x):
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return {"dtype": "object", "shape": list(x.shape), "values": [list(map(int, v)) for v in x]}
        if x.size > 1000:  # images: their bytes' digest keeps the fixture small
            return {"dtype": str(x.dtype), "shape": list(x.shape),
                    "sha256": hashlib.sha256(np.ascontiguousarray(x).tobytes()).hexdigest()}
        return {"dtype": str(x.dtype), "shape": list(x.shape), "values": x.tolist()}
    raise TypeError(type(x))


def main() -> None:
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import importlib

    from tf_keras.src.utils import data_utils
    out = {}
    for key, (name, kwargs) in CASES.items():
        with tempfile.TemporaryDirectory() as root:
            keras_dataset_fakes.build(root, name)
            module = importlib.import_module(f"tf_keras.src.datasets.{name}")
            no_hash = functools.partial(_get_file_without_hash, data_utils.get_file, root)
            module.get_file = no_hash
            (x_train, y_train), (x_test, y_test) = module.load_data(**kwargs)
            out[key] = {"x_train": _jsonable(x_train), "y_train": _jsonable(y_train),
                        "x_test": _jsonable(x_test), "y_test": _jsonable(y_test)}
    with open(os.path.join(HERE, "datasets.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
        f.write("\n")


def _get_file_without_hash(get_file, root, *args, **kwargs):
    kwargs["file_hash"] = None
    kwargs["cache_dir"] = kwargs.get("cache_dir") or root
    return get_file(*args, **kwargs)


if __name__ == "__main__":
    main()
