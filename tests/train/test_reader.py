"""tf.train.load_checkpoint / list_variables / load_variable on checkpoints TF wrote.

Every expectation comes from TF's own reader on the same files (gen_checkpoints.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfcompat as tf
from tests.train import fixture_data as fx
from tfcompat.train import reader as reader_lib

OBJECT_GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"


@pytest.mark.parametrize("name", fx.NAMES)
def test_list_variables_and_dtypes_match_tf(name):
    info = fx.info(name)
    got = reader_lib.list_variables(fx.prefix(name))
    assert [[k, s] for k, s in got] == info["list_variables"]
    dtypes = reader_lib.load_checkpoint(fx.prefix(name)).get_variable_to_dtype_map()
    assert {k: d.name for k, d in dtypes.items()} == info["dtypes"]
    assert all(isinstance(d, tf.DType) for d in dtypes.values())


@pytest.mark.parametrize("name", fx.NAMES)
def test_every_tensor_has_tf_bits(name):
    reader = reader_lib.load_checkpoint(fx.prefix(name))
    for key, encoded in fx.info(name)["tensors"].items():
        want = fx.decode(encoded)
        got = reader.get_tensor(key)
        assert fx.same_bits(got, want), key
        if want.ndim == 0:  # TF returns numpy scalars for 0-d tensors, bytes for a 0-d string
            assert isinstance(got, bytes if want.dtype == object else np.generic), (key, type(got))
        else:
            assert isinstance(got, np.ndarray)


def test_object_graph_key_is_listed_and_read_as_bytes():
    reader = reader_lib.load_checkpoint(fx.prefix("object_based"))
    assert reader.has_tensor(OBJECT_GRAPH)
    assert reader.get_variable_to_shape_map()[OBJECT_GRAPH] == []
    assert reader.get_variable_to_dtype_map()[OBJECT_GRAPH].name == "string"
    assert reader.get_tensor(OBJECT_GRAPH) == fx.decode(fx.info("object_based")["tensors"][OBJECT_GRAPH])[()]


@pytest.mark.parametrize("name", ["object_based", "name_based", "sharded", "dtypes"])
def test_debug_string_matches_tf(name):
    # (the sliced fixture's TF string also lists the raw slice keys, which this reader folds away)
    got = reader_lib.load_checkpoint(fx.prefix(name)).debug_string()
    assert got == bytes.fromhex(fx.info(name)["debug_string"])


def test_sharded_fixture_has_several_data_files():
    assert sum(".data-" in f for f in fx.info("sharded")["files"]) == 3
    assert sum(".data-" in f for f in fx.info("sliced")["files"]) == 3


def test_shape_map_is_lists_of_ints():
    shapes = reader_lib.load_checkpoint(fx.prefix("name_based")).get_variable_to_shape_map()
    assert shapes["dense/kernel"] == [3, 2] and type(shapes["dense/kernel"]) is list
    assert shapes["global_step"] == []


# -- a directory resolves through its state file ---------------------------------------

def test_directory_resolves_to_the_latest_checkpoint():
    directory = fx.FIXTURES / "object_based"
    reader = reader_lib.load_checkpoint(directory)
    assert os.path.basename(reader.prefix) == fx.info("object_based")["latest_checkpoint"] == "ckpt-3"
    assert reader_lib.list_variables(str(directory)) == reader_lib.list_variables(fx.prefix("object_based"))
    key = "model/layers/1/b/.ATTRIBUTES/VARIABLE_VALUE"
    assert fx.same_bits(tf.train.load_variable(str(directory), key),
                        fx.decode(fx.info("object_based")["tensors"][key]))


def test_directory_without_state_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file or checkpoints in given directory"):
        reader_lib.load_checkpoint(tmp_path)
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "gone-7"\n')
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):  # latest is missing
        reader_lib.list_variables(str(tmp_path))


def test_missing_prefix_is_not_found(tmp_path):
    missing = str(tmp_path / "nothing" / "ckpt")
    with pytest.raises(tf.errors.NotFoundError) as info:
        reader_lib.load_checkpoint(missing)
    assert str(info.value) == f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {missing}"


def test_missing_key_is_not_found_with_tf_message():
    reader = reader_lib.load_checkpoint(fx.prefix("name_based"))
    with pytest.raises(tf.errors.NotFoundError, match="^Key nope not found in checkpoint$"):
        reader.get_tensor("nope")
    assert not reader.has_tensor("nope") and reader.has_tensor(b"dense/kernel")


def test_load_variable_drops_a_trailing_colon_zero():
    want = fx.decode(fx.info("name_based")["tensors"]["dense/kernel"])
    assert fx.same_bits(tf.train.load_variable(fx.prefix("name_based"), "dense/kernel:0"), want)
    assert fx.same_bits(tf.train.load_variable(fx.prefix("name_based"), "dense/kernel"), want)


def test_index_file_name_is_accepted_as_the_prefix():
    reader = reader_lib.load_checkpoint(fx.prefix("name_based") + ".index")
    assert reader.prefix == fx.prefix("name_based")


def test_pathlike_and_public_namespace():
    import pathlib

    assert tf.train.load_checkpoint is reader_lib.load_checkpoint
    assert tf.train.list_variables(pathlib.Path(fx.prefix("sharded")))[1][0] == "counts/.ATTRIBUTES/VARIABLE_VALUE"


def test_corrupt_data_is_an_op_error_not_garbage(tmp_path):
    directory = fx.copy("name_based", tmp_path)
    data = next(p for p in directory.iterdir() if ".data-" in p.name)
    raw = bytearray(data.read_bytes())
    raw[5] ^= 0x01
    data.write_bytes(bytes(raw))
    reader = reader_lib.load_checkpoint(str(directory / "model.ckpt-3"))
    bad = []
    for key in reader.get_variable_to_shape_map():
        try:
            reader.get_tensor(key)
        except tf.errors.DataLossError:
            bad.append(key)
    assert len(bad) == 1  # exactly the tensor holding the flipped byte, detected by its CRC32C
