"""BundleWriter / BundleReader: round trips, TF-written fixtures, TF's bytes, TF reading ours."""

import base64
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tfcompat.train.format import protos
from tfcompat.train.format.tensor_bundle import BundleReader, BundleWriter

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bundle_cases import NUMERIC_DTYPES, big_index_cases, cases  # noqa: E402

FIXTURES = HERE / "fixtures"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text())


def _decode_expected(rec):
    if "strings" in rec:
        arr = np.empty(len(rec["strings"]), dtype=object)
        arr[:] = [bytes.fromhex(s) for s in rec["strings"]]
        return arr.reshape(rec["shape"])
    dt = {"bfloat16": np.dtype(ml_dtypes.bfloat16), "bool": np.dtype(bool)}.get(rec["dtype"]) or np.dtype(
        rec["dtype"]).newbyteorder("<")
    return np.frombuffer(base64.b64decode(rec["bytes"]), dt).reshape(rec["shape"])


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert a.tolist() == b.tolist()
    else:  # bitwise, so NaNs and -0.0 count
        assert a.tobytes() == b.tobytes()


# -- round trips ---------------------------------------------------------------

def _numeric_arrays():
    shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)

    @st.composite
    def arrays(draw):
        dt = np.dtype(draw(st.sampled_from(NUMERIC_DTYPES)))
        shape = draw(shapes)
        if dt == ml_dtypes.bfloat16:
            return draw(hnp.arrays(np.float32, shape)).astype(dt)
        return draw(hnp.arrays(dt, shape))
    return arrays()


def _string_arrays():
    return hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3).flatmap(
        lambda shape: st.lists(st.binary(max_size=300), min_size=int(np.prod(shape)),
                               max_size=int(np.prod(shape))).map(
            lambda xs: np.array(xs + [None], dtype=object)[:-1].reshape(shape)))


@given(st.dictionaries(st.text(min_size=1, max_size=12), _numeric_arrays() | _string_arrays(),
                       min_size=1, max_size=6))
def test_round_trip_numpy(tmp_path_factory, tensors):
    prefix = str(tmp_path_factory.mktemp("b") / "ckpt")
    with BundleWriter(prefix) as w:
        for k, v in tensors.items():
            w.add(k, v)
    with BundleReader(prefix) as r:
        assert r.keys() == sorted(tensors, key=lambda k: k.encode())
        for k, v in tensors.items():
            got = r.read(k)
            _same(got, v)
            assert r.shape(k) == v.shape
            assert r.dtype(k).name == ("string" if v.dtype == object else v.dtype.name)
            if v.dtype != object:
                t = r.read_torch(k)
                assert tuple(t.shape) == v.shape and t.dtype == r.dtype(k).as_torch


_TORCH_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int8, torch.int16,
                 torch.int32, torch.int64, torch.uint8, torch.bool, torch.complex64, torch.complex128,
                 torch.uint16, torch.uint32, torch.uint64]


@pytest.mark.parametrize("dtype", _TORCH_DTYPES, ids=str)
def test_round_trip_torch_non_contiguous(tmp_path, dtype):
    base = torch.arange(24, dtype=torch.int64).reshape(4, 6)
    base = (base - 7).to(dtype) if dtype not in (torch.uint16, torch.uint32, torch.uint64) else base.to(dtype)
    views = {"t": base.t(), "step": base[:, ::2], "scalar": base[1, 2], "empty": base[:0],
             "expanded": base[0].expand(3, 6)}
    if dtype.is_complex:
        views["conj"] = base.conj()
    prefix = str(tmp_path / "ckpt")
    with BundleWriter(prefix) as w:
        for k, v in views.items():
            w.add(k, v)
    with BundleReader(prefix) as r:
        for k, v in views.items():
            got = r.read_torch(k)
            assert got.dtype == dtype and got.shape == v.shape
            assert torch.equal(got, v.resolve_conj()), k
            assert r.read(k).shape == tuple(v.shape)


def test_string_elements_and_str(tmp_path):
    prefix = str(tmp_path / "s")
    with BundleWriter(prefix) as w:
        w.add("u", np.array(["h\u00e9", "x"]))            # numpy unicode -> UTF-8 bytes
        w.add("o", np.array(["a", b"\xff"], dtype=object))
        w.add("b", np.array(b"raw\x00", dtype=object))
    with BundleReader(prefix) as r:
        assert r.read("u").tolist() == ["h\u00e9".encode(), b"x"]
        assert r.read("o").tolist() == [b"a", b"\xff"]
        assert r.read("b").item() == b"raw\x00"
        with pytest.raises(TypeError, match="read()"):
            r.read_torch("o")


def test_duplicate_and_reserved_keys(tmp_path):
    w = BundleWriter(str(tmp_path / "d"))
    w.add("a", np.zeros(2))
    with pytest.raises(ValueError, match="duplicate"):
        w.add("a", np.zeros(2))
    with pytest.raises(ValueError):
        w.add("", np.zeros(2))
    w.finish()
    with pytest.raises(ValueError):
        w.add("b", np.zeros(1))
    assert sorted(os.listdir(tmp_path)) == ["d.data-00000-of-00001", "d.index"]


def test_abort_on_exception_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with BundleWriter(str(tmp_path / "x")) as w:
            w.add("a", np.ones(3))
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


def test_read_into_and_errors(tmp_path):
    prefix = str(tmp_path / "r")
    with BundleWriter(prefix) as w:
        w.add("m", np.arange(6, dtype=np.float32).reshape(2, 3))
    with BundleReader(prefix) as r:
        out = torch.empty(2, 3)
        r.read_into("m", out)
        assert torch.equal(out, torch.arange(6.0).reshape(2, 3))
        with pytest.raises(ValueError):
            r.read_into("m", torch.empty(3, 2))
        with pytest.raises(tf.errors.NotFoundError):
            r.read("missing")
        assert r.has("m") and not r.has("missing") and "m" in r


def test_missing_prefix_is_not_found(tmp_path):
    prefix = str(tmp_path / "nothing")
    with pytest.raises(tf.errors.NotFoundError) as e:
        BundleReader(prefix)
    assert str(e.value) == ("Unsuccessful TensorSliceReader constructor: Failed to find any "
                            f"matching files for {prefix}")


def test_read_returns_owning_copy_and_close_releases_files(tmp_path):
    # Structural memory check: the result owns its buffer (no view of a file
    # mapping or of a read buffer, so nothing else is kept alive), and close()
    # releases every descriptor.
    prefix = str(tmp_path / "big")
    big = np.arange(1 << 18, dtype=np.float64)
    with BundleWriter(prefix) as w:
        w.add("big", big)
        w.add("s", np.array([b"x"], dtype=object))
    r = BundleReader(prefix)
    got = r.read("big")
    assert got.flags.owndata and got.base is None and got.flags.writeable
    t = r.read_torch("big")
    assert t._base is None and t.untyped_storage().nbytes() == big.nbytes
    assert r.read("s").tolist() == [b"x"]
    assert len(r._fds) == 1
    fd = next(iter(r._fds.values()))[0]
    r.close()
    with pytest.raises(OSError):
        os.fstat(fd)
    np.testing.assert_array_equal(got, big)
    assert torch.equal(t, torch.from_numpy(big))


# -- TF-written fixtures -------------------------------------------------------------

@pytest.mark.parametrize("prefix", sorted(EXPECTED))
def test_reads_tf_fixtures(prefix):
    expected = EXPECTED[prefix]
    with BundleReader(str(FIXTURES / prefix)) as r:
        assert r.keys() == sorted(expected)
        for key, rec in expected.items():
            assert r.dtype(key).name == rec["dtype"]
            assert list(r.shape(key)) == rec["shape"]
            _same(r.read(key), _decode_expected(rec))


def test_fixture_coverage():
    # what the fixtures are there to exercise
    with BundleReader(str(FIXTURES / "sharded" / "ckpt")) as r:
        assert r.num_shards == 7 and len(r.entry("v3/.ATTRIBUTES/VARIABLE_VALUE").slices) == 5
    with BundleReader(str(FIXTURES / "tf1" / "model.ckpt-7")) as r:
        assert len(r.entry("part").slices) == 3
        np.testing.assert_array_equal(r.read("part"), np.arange(20, dtype=np.float32).reshape(10, 2))
    with BundleReader(str(FIXTURES / "tf2" / "ckpt-2")) as r:
        assert r.read("bf16/.ATTRIBUTES/VARIABLE_VALUE").dtype == ml_dtypes.bfloat16
        assert r.read_torch("bf16/.ATTRIBUTES/VARIABLE_VALUE").dtype == torch.bfloat16
        assert r.read("words/.ATTRIBUTES/VARIABLE_VALUE").tolist() == [b"alpha", b"", b"\x00\xfe"]
        assert r.read("step/.ATTRIBUTES/VARIABLE_VALUE") == 42


def test_bytes_identical_to_tf_saveV2(tmp_path):
    c = cases()
    prefix = str(tmp_path / "all_dtypes")
    with BundleWriter(prefix) as w:
        for k in sorted(c):  # SaveV2 got them in this order
            w.add(k, c[k])
    for suffix in (".index", ".data-00000-of-00001"):
        ours = Path(prefix + suffix).read_bytes()
        theirs = (FIXTURES / "raw" / ("all_dtypes" + suffix)).read_bytes()
        assert ours == theirs, suffix


def test_two_block_index_identical_to_tf(tmp_path):
    # 6000 keys: TF's index has two data blocks (its 256 KiB block size), recorded as hashes
    expected = json.loads((FIXTURES / "big_index.json").read_text())
    c = big_index_cases()
    prefix = str(tmp_path / "big")
    with BundleWriter(prefix) as w:
        for k in sorted(c):
            w.add(k, c[k])
    for suffix, rec in expected.items():
        data = Path(prefix + suffix).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (rec["size"], rec["sha256"]), suffix
    with BundleReader(prefix) as r:
        assert r.read("layer_05999/some/long/variable/name/kernel").tolist() == [5999.0]


def test_entries_decode_and_reencode_to_tf_bytes():
    from tfcompat.train.format.table import read_table
    for index in FIXTURES.rglob("*.index"):
        for key, value in read_table(index.read_bytes(), str(index)):
            cls = protos.BundleHeaderProto if key == b"" else protos.BundleEntryProto
            assert cls.decode(value).encode() == value


# -- TF reads what we wrote -------------------------------------------------------------

def _tf_dump(prefixes, tf_oracle_or_none):
    if tf_oracle_or_none is not None:
        import tf_read_bundle
        return {p: tf_read_bundle.dump(p) for p in prefixes}
    python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not python:
        pytest.skip("needs TensorFlow in this interpreter, or TFCOMPAT_TF_PYTHON naming a Python that has it")
    out = subprocess.run([python, str(HERE / "tf_read_bundle.py"), *prefixes], capture_output=True,
                         timeout=300, check=True, text=True)
    return json.loads(out.stdout)


@pytest.fixture
def tf_or_subprocess(request):
    try:
        return request.getfixturevalue("tf_oracle")
    except pytest.skip.Exception:
        return None


@pytest.mark.tf_oracle
def test_tf_reads_our_bundles(tmp_path, tf_or_subprocess):
    c = cases()
    prefix = str(tmp_path / "ours")
    with BundleWriter(prefix) as w:
        for k, v in reversed(list(c.items())):
            w.add(k, v)
        w.add("torch/bf16_t", torch.arange(6, dtype=torch.bfloat16).reshape(2, 3).t())
    dumped = _tf_dump([prefix], tf_or_subprocess)[prefix]
    assert sorted(dumped) == sorted(list(c) + ["torch/bf16_t"])
    for key, v in c.items():
        rec = dumped[key]
        assert rec["dtype"] == ("string" if v.dtype == object else v.dtype.name)
        _same(_decode_expected(rec), v)
    np.testing.assert_array_equal(_decode_expected(dumped["torch/bf16_t"]).astype(np.float32),
                                  np.arange(6, dtype=np.float32).reshape(2, 3).T)
