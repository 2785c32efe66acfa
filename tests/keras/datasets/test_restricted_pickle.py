"""Dataset files are data: pickles inside them cannot run code or build arbitrary objects."""

from __future__ import annotations

import io
import os
import pickle

import numpy as np
import pytest

from tfcompat.keras.datasets import _restricted_pickle
from tfcompat.keras.datasets.cifar import load_batch

MARKER = []


class _Payload:
    """Unpickling this calls `MARKER.append`: what a malicious file would do."""

    def __reduce__(self):
        return (MARKER.append, ("ran",))


class _OsPayload:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_plain_containers_and_arrays_load():
    value = {b"data": np.arange(6, dtype="uint8").reshape(2, 3), b"labels": [1, 2],
             b"name": b"x", "f": 1.5, "n": None, "t": (np.int64(3), np.float32(2.5))}
    for protocol in (2, 3, pickle.HIGHEST_PROTOCOL):
        got = _restricted_pickle.load_pickle(io.BytesIO(pickle.dumps(value, protocol)),
                                             encoding="bytes")
        np.testing.assert_array_equal(got[b"data"], value[b"data"])
        assert got[b"labels"] == [1, 2] and got[b"name"] == b"x" and got["t"] == (3, 2.5)


@pytest.mark.parametrize("payload", [_Payload(), _OsPayload(), {"k": [_Payload()]}])
def test_callables_are_refused_before_they_run(payload):
    MARKER.clear()
    data = pickle.dumps(payload, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="Refusing to load"):
        _restricted_pickle.load_pickle(io.BytesIO(data))
    assert MARKER == []


def test_malicious_cifar_batch_is_refused(tmp_path):
    MARKER.clear()
    path = tmp_path / "data_batch_1"
    path.write_bytes(pickle.dumps({b"data": _Payload(), b"labels": [0]}, protocol=2))
    with pytest.raises(pickle.UnpicklingError):
        load_batch(str(path))
    assert MARKER == []


def test_npz_object_array_with_payload_is_refused(tmp_path):
    MARKER.clear()
    evil = np.empty(2, dtype=object)
    evil[0], evil[1] = [1, 2], _Payload()
    path = str(tmp_path / "imdb.npz")
    np.savez(path, x_train=evil)
    with pytest.raises(pickle.UnpicklingError):
        _restricted_pickle.load_npz(path)
    assert MARKER == []


def test_npz_numeric_and_object_arrays_load(tmp_path):
    seqs = np.empty(3, dtype=object)
    seqs[0], seqs[1], seqs[2] = [1, 2, 3], [4], [5, 6]
    path = str(tmp_path / "a.npz")
    np.savez(path, seqs=seqs, y=np.arange(3, dtype="int64"), img=np.ones((2, 2), "uint8"))
    got = _restricted_pickle.load_npz(path)
    assert [list(s) for s in got["seqs"]] == [[1, 2, 3], [4], [5, 6]]
    assert got["y"].dtype == np.int64 and got["img"].shape == (2, 2)
