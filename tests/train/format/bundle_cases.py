"""Tensors shared by the TF fixture generator (gen_bundles.py) and the tests.

Deterministic numpy values over every dtype a bundle stores, so a test can
write the same tensors with tfcompat's writer and compare bytes with TF's.
Imported by both the tfcompat venv and the TensorFlow venv (numpy and
ml_dtypes only).
"""

import ml_dtypes
import numpy as np

NUMERIC_DTYPES = [
    np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
    np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64,
    np.bool_, np.complex64, np.complex128,
]


def _values(dtype, shape, seed):
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return (rng.integers(0, 2, n) == 1).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True).reshape(shape)
    if dt.kind == "c":
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt).reshape(shape)
    return (rng.standard_normal(n) * 100).astype(dt).reshape(shape)


def cases():
    """name -> numpy array; names sort the same bytewise as the dict order does not matter."""
    out = {}
    for i, dt in enumerate(NUMERIC_DTYPES):
        name = np.dtype(dt).name
        out[f"t/{name}/matrix"] = _values(dt, (3, 4), i)
        out[f"t/{name}/scalar"] = _values(dt, (), 100 + i)
        out[f"t/{name}/empty"] = _values(dt, (0, 2), 200 + i)
    out["s/matrix"] = np.array([[b"", b"a", b"\x00\xff\x80"], [b"x" * 200, "h\u00e9llo".encode(), b"\n"]],
                               dtype=object)
    out["s/scalar"] = np.array(b"tfcompat", dtype=object)
    out["s/empty"] = np.zeros((0,), dtype=object)
    out["z/long_name_" + "k" * 100] = np.arange(7, dtype=np.float32)
    return out


# `checkpoint` state files for TF to write (gen_bundles.py) and tfcompat to match.
STATE_CASES = {
    "plain": {
        "model_checkpoint_path": "/train/ckpt-3",
        "all_model_checkpoint_paths": ["/train/ckpt-2", "/train/ckpt-3"],
        "all_model_checkpoint_timestamps": [1796141085.2736983, 1796141085.2803025],
        "last_preserved_timestamp": 1796141084.1963294,
    },
    "relative": {
        "model_checkpoint_path": "ckpt-2",
        "all_model_checkpoint_paths": ["ckpt-1", "../elsewhere/ckpt-9", "ckpt-2"],
    },
    "floats": {
        "model_checkpoint_path": "c-8",
        "all_model_checkpoint_paths": [f"c-{i}" for i in range(9)],
        "all_model_checkpoint_timestamps": [1.5, 1e10, 1e22, 1e-7, 0.0, -0.0, 1.2345678901234568e+17,
                                            1e16, 1e15],
        "last_preserved_timestamp": 0.1,
    },
    "escapes": {
        "model_checkpoint_path": "we\"ird\\path\n\u00e9\x01\x7f\t'\u4e2d",
        "all_model_checkpoint_paths": ["we\"ird\\path\n\u00e9\x01\x7f\t'\u4e2d"],
    },
}


def big_index_cases():
    """6000 small tensors with long names: an index past TF's 256 KiB block size (two data blocks)."""
    return {"layer_%05d/some/long/variable/name/kernel" % i: np.array([float(i)], np.float32)
            for i in range(6000)}
