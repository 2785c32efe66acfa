"""`tf.keras.datasets`: tf_keras's cache layout, shapes/dtypes and preprocessing (goldens).

Every test runs against fake files written into a temporary `KERAS_HOME`
(`keras_dataset_fakes`); nothing touches the network or the real home directory. The
loaders' expected hashes are pointed at the fakes (the real ones cannot match), which also
exercises `get_file`'s hash check on each load.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.keras.datasets import _word_sequences

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "golden"))
import keras_dataset_fakes  # noqa: E402
from cases_datasets import CASES  # noqa: E402

with open(os.path.join(HERE, "golden", "datasets.json")) as _f:
    GOLDEN = json.load(_f)


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    home = tmp_path / "keras_home"
    home.mkdir()
    monkeypatch.setenv("KERAS_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # belt and braces: never the real ~
    return str(home)


def _fake(name: str, root: str, monkeypatch) -> object:
    """Build dataset `name`'s fakes under `root`; its loader module, hashes pointed at them."""
    paths = keras_dataset_fakes.build(root, name)
    module = importlib.import_module(f"tfcompat.keras.datasets.{name}")
    if paths:
        monkeypatch.setattr(module, "FILE_HASH", _sha256(paths[0]))
    return module


def _check(array: np.ndarray, expected: dict) -> None:
    assert str(array.dtype) == expected["dtype"]
    assert list(array.shape) == expected["shape"]
    if expected["dtype"] == "object":
        assert [list(v) for v in array] == expected["values"]
    elif "sha256" in expected:
        assert hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest() == expected["sha256"]
    else:
        np.testing.assert_array_equal(array, np.array(expected["values"], dtype=array.dtype))


@pytest.mark.parametrize("key", sorted(CASES))
def test_load_data_matches_tf_keras(key, keras_home, monkeypatch):
    name, kwargs = CASES[key]
    module = _fake(name, keras_home, monkeypatch)
    (x_train, y_train), (x_test, y_test) = module.load_data(**kwargs)
    want = GOLDEN[key]
    for got, part in ((x_train, "x_train"), (y_train, "y_train"), (x_test, "x_test"),
                      (y_test, "y_test")):
        _check(got, want[part])


def test_namespace_reaches_the_loaders():
    assert tf.keras.datasets.mnist.load_data is importlib.import_module(
        "tfcompat.keras.datasets.mnist").load_data
    for name in ("mnist", "fashion_mnist", "cifar10", "cifar100", "imdb", "reuters",
                 "boston_housing"):
        assert callable(getattr(tf.keras.datasets, name).load_data)
    assert callable(tf.keras.datasets.imdb.get_word_index)
    assert callable(tf.keras.datasets.reuters.get_word_index)


def test_cifar10_shapes_dtypes_and_channels(keras_home, monkeypatch):
    module = _fake("cifar10", keras_home, monkeypatch)
    (x_train, y_train), (x_test, y_test) = module.load_data()
    assert x_train.shape == (15, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (15, 1) and y_train.dtype == np.uint8
    assert x_test.shape == (4, 32, 32, 3) and y_test.shape == (4, 1)
    assert y_test.dtype == np.uint8
    # Row i of the pickled (n, 3072) data is R plane, G plane, B plane of 32x32 each.
    import pickle
    with open(os.path.join(keras_home, "datasets", "cifar-10-batches-py", "data_batch_2"),
              "rb") as f:
        raw = pickle.load(f, encoding="bytes")
    np.testing.assert_array_equal(x_train[3], raw[b"data"][0].reshape(3, 32, 32).transpose(1, 2, 0))
    assert y_train[3, 0] == raw[b"labels"][0]
    tf.keras.backend.set_image_data_format("channels_first")
    try:
        (x_cf, _), (x_cf_test, _) = module.load_data()
    finally:
        tf.keras.backend.set_image_data_format("channels_last")
    assert x_cf.shape == (15, 3, 32, 32) and x_cf_test.shape == (4, 3, 32, 32)


def test_cifar_extracts_the_cached_tarball_when_the_directory_is_missing(keras_home,
                                                                          monkeypatch):
    import shutil
    module = _fake("cifar100", keras_home, monkeypatch)
    shutil.rmtree(os.path.join(keras_home, "datasets", "cifar-100-python"))
    (x_train, y_train), _ = module.load_data(label_mode="coarse")
    assert x_train.shape == (5, 32, 32, 3)
    _check(y_train, GOLDEN["cifar100/coarse"]["y_train"])


def test_cifar100_label_mode_error():
    with pytest.raises(ValueError, match='`label_mode` must be one of `"fine"`, `"coarse"`. '
                                         "Received: label_mode=medium."):
        tf.keras.datasets.cifar100.load_data(label_mode="medium")


def test_mnist_cache_dir_and_path_arguments(tmp_path, keras_home, monkeypatch):
    other = str(tmp_path / "elsewhere")
    module = _fake("mnist", other, monkeypatch)
    os.rename(os.path.join(other, "datasets", "mnist.npz"),
              os.path.join(other, "datasets", "digits.npz"))
    (x_train, y_train), (x_test, y_test) = module.load_data(path="digits.npz", cache_dir=other)
    assert x_train.shape == (6, 28, 28) and x_train.dtype == np.uint8
    assert y_test.shape == (3,) and y_test.dtype == np.uint8
    assert not os.listdir(keras_home)  # the default cache was not used


def test_hash_mismatch_redownloads_from_origin(tmp_path, keras_home, monkeypatch):
    """A cached file whose hash differs is replaced by the origin's (here a file:// URL)."""
    source = str(tmp_path / "source")
    _fake("boston_housing", source, monkeypatch)
    good = os.path.join(source, "datasets", "boston_housing.npz")
    monkeypatch.setattr(tf.keras.datasets.boston_housing, "ORIGIN", "file://" + good)
    cached = os.path.join(keras_home, "datasets", "boston_housing.npz")
    os.makedirs(os.path.dirname(cached))
    with open(cached, "wb") as f:
        f.write(b"stale")
    (x_train, _), (x_test, _) = tf.keras.datasets.boston_housing.load_data()
    assert x_train.shape == (24, 13) and x_test.shape == (7, 13)
    assert _sha256(cached) == _sha256(good)


def test_missing_file_downloads_and_url_failure_is_tf_keras_exception(keras_home, monkeypatch):
    monkeypatch.setattr(tf.keras.datasets.mnist, "ORIGIN", "file:///nonexistent/mnist.npz")
    with pytest.raises(Exception, match=r"^URL fetch failure on file:///nonexistent/mnist.npz: "
                                        r"None -- \[Errno 2\] No such file"):
        tf.keras.datasets.mnist.load_data()
    assert os.listdir(os.path.join(keras_home, "datasets")) == []  # nothing half-written


def test_imdb_rejects_unknown_kwargs_and_accepts_nb_words(keras_home, monkeypatch):
    _fake("imdb", keras_home, monkeypatch)
    with pytest.raises(TypeError, match=r"Unrecognized keyword arguments: \{'bogus': 1\}\."):
        tf.keras.datasets.imdb.load_data(bogus=1)
    old = tf.keras.datasets.imdb.load_data(nb_words=10, skip_top=2, maxlen=8)
    _check(old[0][0], GOLDEN["imdb/vocab_and_maxlen"]["x_train"])


def test_imdb_maxlen_that_keeps_nothing(keras_home, monkeypatch):
    _fake("imdb", keras_home, monkeypatch)
    with pytest.raises(ValueError, match="After filtering for sequences shorter than maxlen=2, "
                                         "no sequence was kept. Increase maxlen."):
        tf.keras.datasets.imdb.load_data(maxlen=2)


def test_imdb_without_start_char_or_offset_concatenates(keras_home, monkeypatch):
    """tf_keras fails here (it adds two object arrays); tfcompat returns the raw ids."""
    _fake("imdb", keras_home, monkeypatch)
    (x_train, _), (x_test, _) = tf.keras.datasets.imdb.load_data(
        start_char=None, index_from=0, oov_char=None, num_words=1000)
    with_maxlen = GOLDEN["imdb/no_start_no_oov"]
    assert with_maxlen["x_train"]["shape"] == [12]  # maxlen=100 dropped nothing there
    # num_words=1000 keeps every id; the golden (num_words=15) keeps ids < 15 only.
    assert [[w for w in x if w < 15] for x in x_train] == with_maxlen["x_train"]["values"]
    assert len(x_test) == 8


def test_reuters_label_names():
    names = tf.keras.datasets.reuters.get_label_names()
    assert len(names) == 46 and names[0] == "cocoa" and names[-1] == "lead"


def test_word_index_reads_the_cached_json(keras_home, monkeypatch):
    path = os.path.join(keras_home, "datasets", "imdb_word_index.json")
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as f:
        json.dump({"the": 1, "and": 2}, f)
    monkeypatch.setattr(tf.keras.datasets.imdb, "WORD_INDEX_HASH",
                        hashlib.md5(open(path, "rb").read()).hexdigest())
    assert tf.keras.datasets.imdb.get_word_index() == {"the": 1, "and": 2}


def test_boston_housing_split_bounds():
    with pytest.raises(AssertionError):
        tf.keras.datasets.boston_housing.load_data(test_split=1.0)


def test_clip_vocabulary_reference():
    """tf_keras's documented rule: keep ids in [skip_top, num_words), others -> oov_char."""
    xs = [[1, 5, 9, 3], [2, 12]]
    assert _word_sequences.clip_vocabulary(xs, 9, 3, 0) == [[0, 5, 0, 3], [0, 0]]
    assert _word_sequences.clip_vocabulary(xs, 9, 3, None) == [[5, 3], []]
    assert _word_sequences.clip_vocabulary(xs, None, 0, 7) == [[1, 5, 9, 3], [2, 7]]
    assert _word_sequences.drop_long(3, [[1, 2], [1, 2, 3]], [0, 1]) == ([[1, 2]], [0])
