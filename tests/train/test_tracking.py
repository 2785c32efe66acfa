"""Checkpoint keys and object graphs as TF 2.21 writes them (fixtures/object_graph/programs.json)."""

import json
import pathlib
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.train.trackable import Trackable
from tfcompat.train.format.tensor_bundle import BundleReader
from tfcompat.train.object_graph import TrackableObjectGraph

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import object_graph_programs as programs  # noqa: E402

RECORDED = json.loads((HERE / "fixtures" / "object_graph" / "programs.json").read_text())


def _run(name, directory):
    ckpt, how = programs.PROGRAMS[name](tf, tf.keras.optimizers)
    path = getattr(ckpt, how)(str(directory / "ckpt"))
    reader = BundleReader(path)
    keys = {k: [list(reader.shape(k)), reader.dtype(k).name] for k in reader.keys()}
    graph = TrackableObjectGraph.decode(reader.read("_CHECKPOINTABLE_OBJECT_GRAPH").item())
    values = {k: reader.read(k).tolist() for k in reader.keys() if k != "_CHECKPOINTABLE_OBJECT_GRAPH"}
    state = (directory / "checkpoint").read_text() if how == "save" else None
    return path, keys, programs.graph_to_json(graph), values, state


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_keys_graph_and_values_match_tf(name, tmp_path):
    want = RECORDED[name]
    path, keys, graph, values, state = _run(name, tmp_path)
    assert path.endswith(want["path_suffix"])
    assert keys == want["keys"]
    assert graph == want["graph"]
    assert values.keys() == want["values"].keys()
    for key, value in want["values"].items():
        np.testing.assert_allclose(np.asarray(values[key], dtype=np.float64),
                                   np.asarray(value, dtype=np.float64), rtol=1e-6, err_msg=key)
    if want["state_file"] is not None:
        assert state == want["state_file"]


def test_checkpoint_refuses_non_trackables_as_tf():
    with pytest.raises(ValueError, match="`Checkpoint` was expecting m to be a trackable object"):
        tf.train.Checkpoint(m=3)
    with pytest.raises(ValueError, match="expecting root to be a trackable"):
        tf.train.Checkpoint(3)


def test_root_child_conflict_is_value_error():
    m = tf.Module()
    m.x = tf.Variable(1.0)
    with pytest.raises(ValueError, match="root.x already exists"):
        tf.train.Checkpoint(m, x=tf.Variable(2.0))
    tf.train.Checkpoint(m, x=m.x)  # the same object is fine


def test_track_trackable_name_clash():
    t = Trackable()
    t._track_trackable(tf.Variable(1.0), "a")
    with pytest.raises(ValueError, match="already declared as a dependency"):
        t._track_trackable(tf.Variable(2.0), "a")
    with pytest.raises(TypeError):
        t._track_trackable(3, "b")


def test_graph_follows_mutation():
    m = tf.Module()
    ck = tf.train.Checkpoint(m=m)
    m.d = {}
    m.d["k"] = tf.Variable(1.0)
    saveables, _ = ck._view.serialize()
    assert sorted(saveables) == ["m/d/k/.ATTRIBUTES/VARIABLE_VALUE"]


STATUSES = json.loads((HERE / "fixtures" / "object_graph" / "statuses.json").read_text())


def _normalized(text):
    import re
    if text is None:
        return None
    text = text.replace("tensorflow.python.checkpoint.checkpoint.", "tfcompat.train.checkpoint.")
    return re.sub(r"0x[0-9a-f]+", "0x?", text)


@pytest.mark.parametrize("case", sorted(STATUSES))
def test_status_messages_match_tf(case, tmp_path):
    ours = programs.status_messages(tf, str(tmp_path))
    assert _normalized(ours[case]) == _normalized(STATUSES[case])


def test_variables_follow_tf_trackable_value_protocol():
    v = tf.Variable([1.0, 2.0])
    saved = v._serialize_to_tensors()
    assert list(saved) == ["VARIABLE_VALUE"]
    v._restore_from_tensors({"VARIABLE_VALUE": torch.tensor([3.0, 4.0])})
    np.testing.assert_array_equal(v.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(saved["VARIABLE_VALUE"].numpy(), [1.0, 2.0])  # a snapshot
