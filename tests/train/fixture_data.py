"""Reading the TF-written fixtures of tests/train (see gen_checkpoints.py for the encoding)."""

from __future__ import annotations

import functools
import json
import pathlib
import shutil
from typing import Any

import ml_dtypes
import numpy as np

FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
NAMES = ("object_based", "name_based", "sharded", "sliced", "dtypes")


@functools.lru_cache(maxsize=None)
def info(name: str) -> dict:
    """What TF read back from fixture `name` (list_variables, dtypes, every tensor, ...)."""
    return json.loads((FIXTURES / f"{name}.json").read_text())


def prefix(name: str) -> str:
    """The checkpoint prefix of fixture `name` in the repository."""
    return str(FIXTURES / info(name)["prefix"])


def copy(name: str, destination: pathlib.Path) -> pathlib.Path:
    """A private copy of fixture `name`'s directory (for tests that write or corrupt)."""
    target = destination / name
    shutil.copytree(FIXTURES / name, target)
    return target


def _numpy_dtype(name: str) -> Any:
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def decode(encoded: dict) -> np.ndarray:
    """A tensor TF returned, with its exact bits (object array of bytes for strings)."""
    shape = tuple(encoded["shape"])
    if encoded["dtype"] == "string":
        flat = np.empty(len(encoded["strings"]), dtype=object)
        flat[:] = [bytes.fromhex(s) for s in encoded["strings"]]
        return flat.reshape(shape)
    return np.frombuffer(bytes.fromhex(encoded["hex"]), dtype=_numpy_dtype(encoded["dtype"])).reshape(shape)


def same_bits(got: Any, want: np.ndarray) -> bool:
    """Exact equality of dtype, shape and bytes (NaNs and -0.0 included)."""
    got = np.asarray(got)
    if want.dtype == object:
        return got.shape == want.shape and [bytes(x) for x in got.reshape(-1)] == list(want.reshape(-1))
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()
