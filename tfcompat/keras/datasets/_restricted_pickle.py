"""Reading the pickles inside Keras's dataset files without running code from them.

CIFAR's batches are pickled dicts and `imdb.npz` / `reuters.npz` hold object arrays (lists
of word ids), which `np.load(allow_pickle=True)` would unpickle with no restriction:
a pickle can name any importable callable. Here a pickle may only build builtin containers
and scalars plus NumPy arrays, dtypes and scalars: the globals below are the whole list,
and anything else raises `pickle.UnpicklingError` before it is called.
"""

from __future__ import annotations

import io
import pickle
import zipfile
from typing import IO, Any, Dict

import numpy as np

__all__ = ["load_pickle", "load_npz"]

# (module, name) pairs a dataset pickle needs. `_reconstruct` only builds an empty array of
# the class it is given, and that class must itself be one of these (np.ndarray), so no
# subclass hook runs; `_codecs.encode` turns a str into bytes (how Python 3 writes bytes
# at protocol 2); `scalar` builds a NumPy scalar from its raw bytes; `_frombuffer` views
# raw bytes as a plain-dtype array (protocol 5; NumPy refuses it for object dtypes).
_ALLOWED = frozenset({
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
})


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(
                f"Refusing to load '{module}.{name}' from a dataset file: only builtin "
                "containers and NumPy arrays may be unpickled.")
        return super().find_class(module, name)


def load_pickle(file: IO[bytes], encoding: str = "ASCII") -> Any:
    """Unpickle `file` allowing only containers, scalars and NumPy arrays."""
    return _RestrictedUnpickler(file, encoding=encoding).load()


def _read_npy(data: bytes) -> np.ndarray:
    stream = io.BytesIO(data)
    version = np.lib.format.read_magic(stream)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
    if not dtype.hasobject:
        stream.seek(0)
        return np.lib.format.read_array(stream, allow_pickle=False)
    array = load_pickle(stream, encoding="latin1")
    if not isinstance(array, np.ndarray) or array.shape != tuple(shape):
        raise ValueError("An object array in a dataset file does not match its header.")
    return array


def load_npz(path: str) -> Dict[str, np.ndarray]:
    """The arrays of an `.npz` file by name; object arrays through the restricted unpickler."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for name in archive.namelist():
            key = name[:-4] if name.endswith(".npy") else name
            arrays[key] = _read_npy(archive.read(name))
    return arrays
