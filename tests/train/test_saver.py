"""tf.compat.v1.train.Saver in eager mode: TF1 name-based checkpoints, read and written.

The TF1 fixture was written by TF's graph-mode Saver (gen_checkpoints.py); the error
classes and messages are those TF 2.21 eager gives for the same calls."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf
from tests.train import fixture_data as fx
from tfcompat.train import reader as reader_lib
from tfcompat.train.saver import Saver

TF1 = fx.prefix("name_based")
SLOT_NAMES = ["dense/kernel/Adam", "dense/kernel/Adam_1", "dense/bias/Adam", "dense/bias/Adam_1"]


def tf_value(name: str) -> np.ndarray:
    return fx.decode(fx.info("name_based")["tensors"][name])


def tf1_variables() -> dict:
    """The TF1 model's variables, built the TF2 way with the same names."""
    with tf.name_scope("dense"):
        kernel = tf.Variable(np.zeros((3, 2), np.float32), name="kernel")
        bias = tf.Variable(np.zeros(2, np.float32), name="bias")
    global_step = tf.Variable(0, dtype=tf.int64, name="global_step")
    return {"dense/kernel": kernel, "dense/bias": bias, "global_step": global_step}


def test_restore_tf1_checkpoint_by_variable_name():
    variables = tf1_variables()
    Saver(list(variables.values())).restore(None, TF1)
    for name, var in variables.items():
        assert fx.same_bits(var.numpy(), tf_value(name)), name
    assert int(variables["global_step"].numpy()) == 3


def test_restore_with_a_name_map_into_differently_named_variables():
    w = tf.Variable(np.zeros((3, 2), np.float32), name="my_model/w")
    m = tf.Variable(np.zeros((3, 2), np.float32), name="w_m")
    v = tf.Variable(np.zeros((3, 2), np.float32), name="w_v")
    Saver({"dense/kernel": w, "dense/kernel/Adam": m, "dense/kernel/Adam_1": v}).restore(None, TF1)
    assert fx.same_bits(w.numpy(), tf_value("dense/kernel"))
    assert fx.same_bits(m.numpy(), tf_value("dense/kernel/Adam"))
    assert fx.same_bits(v.numpy(), tf_value("dense/kernel/Adam_1"))


def test_missing_names_are_not_found_with_nearest_candidates_and_nothing_changes():
    variables = tf1_variables()
    typo = tf.Variable(np.zeros(2, np.float32), name="dense/bais")
    lost = tf.Variable(np.zeros(2, np.float32), name="dense/kernel/Adamm")
    with pytest.raises(tf.errors.NotFoundError) as info:
        Saver([variables["dense/kernel"], typo, lost]).restore(None, TF1)
    message = str(info.value)
    assert "Key dense/bais not found in checkpoint; nearest names in the checkpoint: dense/bias" in message
    assert "Key dense/kernel/Adamm not found in checkpoint; nearest names in the checkpoint: dense/kernel/Adam" \
        in message
    assert "dict var_list" in message
    assert not variables["dense/kernel"].numpy().any()  # all or nothing


def test_wrong_shape_is_a_value_error_with_tf_message_and_nothing_changes():
    kernel = tf.Variable(np.zeros((3, 3), np.float32), name="k")
    bias = tf.Variable(np.zeros(2, np.float32), name="b")
    with pytest.raises(ValueError, match=r"^Received incompatible tensor with shape \(3, 2\) when attempting "
                                         r"to restore variable with shape \(3, 3\) and name dense/kernel\.$"):
        Saver({"dense/bias": bias, "dense/kernel": kernel}).restore(None, TF1)
    assert not bias.numpy().any()


def test_wrong_dtype_is_invalid_argument():
    kernel = tf.Variable(np.zeros((3, 2), np.float64), name="k")
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="tensor_name = dense/kernel; expected dtype float64 does not equal original dtype float32"):
        Saver({"dense/kernel": kernel}).restore(None, TF1)


def test_eager_saver_requires_var_list():
    with pytest.raises(RuntimeError, match="When eager execution is enabled, `var_list` must specify a list or "
                                           "dict of variables to save"):
        Saver()


def test_var_list_errors():
    a = tf.Variable(1.0, name="same")
    b = tf.Variable(2.0, name="same")
    with pytest.raises(ValueError, match="Two different ResourceVariable objects with the same shared_name 'same'"):
        Saver([a, b])
    with pytest.raises(ValueError, match="The same saveable will be restored with two names"):
        Saver({"x": a, "y": a})
    with pytest.raises(ValueError, match="Can only save/restore ResourceVariables"):
        Saver({"x": tf.constant(1.0)})
    with pytest.raises(ValueError, match="No variables to save"):
        Saver([])
    assert len(Saver([a, a])._variables) == 1  # the same variable twice is saved once


def test_restore_path_errors(tmp_path):
    saver = Saver(list(tf1_variables().values()))
    with pytest.raises(ValueError, match="Can't load save_path when it is None."):
        saver.restore(None, None)
    with pytest.raises(ValueError, match="The passed save_path is not a valid checkpoint: "):
        saver.restore(None, str(tmp_path / "nothing"))


def test_save_writes_names_state_file_and_keeps_max_to_keep(tmp_path):
    variables = tf1_variables()
    saver = Saver(list(variables.values()), max_to_keep=2)
    paths = []
    for step in range(1, 4):
        variables["global_step"].assign(step)
        paths.append(saver.save(None, str(tmp_path / "model.ckpt"), global_step=variables["global_step"]))
    assert paths == [str(tmp_path / f"model.ckpt-{i}") for i in (1, 2, 3)]
    assert saver.last_checkpoints == paths[1:]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model.ckpt-2.data-00000-of-00001", "model.ckpt-2.index",
                                            "model.ckpt-3.data-00000-of-00001", "model.ckpt-3.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == paths[1:]
    assert reader_lib.list_variables(paths[-1]) == [("dense/bias", [2]), ("dense/kernel", [3, 2]),
                                                    ("global_step", [])]
    assert int(tf.train.load_variable(paths[-1], "global_step")) == 3


def test_save_then_restore_round_trips_and_resaving_a_path_moves_it_last(tmp_path):
    variables = tf1_variables()
    Saver(list(variables.values())).restore(None, TF1)
    saver = Saver(list(variables.values()), max_to_keep=None)
    first = saver.save(None, str(tmp_path / "a"), global_step=9)
    assert saver.last_checkpoints == []  # max_to_keep=None tracks nothing, as TF
    fresh = tf1_variables()
    Saver(list(fresh.values())).restore(None, first)
    for name in variables:
        assert fx.same_bits(fresh[name].numpy(), tf_value(name))
    kept = Saver(list(variables.values()), max_to_keep=3)
    kept.save(None, str(tmp_path / "b"), global_step=1)
    kept.save(None, str(tmp_path / "b"), global_step=2)
    kept.save(None, str(tmp_path / "b"), global_step=1)
    assert kept.last_checkpoints == [str(tmp_path / "b-2"), str(tmp_path / "b-1")]


def test_save_path_rules(tmp_path):
    saver = Saver([tf.Variable(1.0, name="x")])
    with pytest.raises(ValueError, match="'latest_filename' must not contain path components"):
        saver.save(None, str(tmp_path / "m"), latest_filename="a/b")
    with pytest.raises(ValueError, match="'latest_filename' collides with 'save_path'"):
        saver.save(None, str(tmp_path / "checkpoint"))
    with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save."):
        saver.save(None, str(tmp_path / "no" / "dir" / "m"))
    assert saver.save(None, str(tmp_path / "m"), global_step=np.int64(4)) == str(tmp_path / "m-4")
    assert Saver([tf.Variable(1.0, name="y")], pad_step_number=True).save(None, str(tmp_path / "p"), global_step=5) \
        == str(tmp_path / "p-00000005")
    path = saver.save(None, str(tmp_path / "other"), latest_filename="mine", write_state=True)
    assert tf.train.latest_checkpoint(str(tmp_path), latest_filename="mine") == path
    assert not (tmp_path / "other.meta").exists()  # no meta graph in eager mode, as TF 2


def test_relative_paths_in_the_state_file(tmp_path):
    saver = Saver([tf.Variable(1.0, name="x")], save_relative_paths=True)
    saver.save(None, str(tmp_path / "m"), global_step=1)
    assert 'model_checkpoint_path: "m-1"' in (tmp_path / "checkpoint").read_text()
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-1")


_DTYPES = ["float32", "float16", "bfloat16", "float64", "int32", "int64", "bool", "uint8", "int8"]


@given(dtype=st.sampled_from(_DTYPES), shape=st.lists(st.integers(0, 4), max_size=3), seed=st.integers(0, 2**16))
def test_save_restore_is_exact_for_every_dtype(tmp_path_factory, dtype, shape, seed):
    rng = np.random.RandomState(seed)
    values = (rng.normal(size=shape) * 100)
    original = tf.Variable(tf.cast(tf.constant(values.astype(np.float64)), dtype), name="v")
    path = Saver({"v": original}).save(None, str(tmp_path_factory.mktemp("s") / "m"))
    restored = tf.Variable(tf.zeros(shape, dtype=dtype), name="w")
    Saver({"v": restored}).restore(None, path)
    assert np.asarray(restored.numpy()).tobytes() == np.asarray(original.numpy()).tobytes()


@pytest.fixture
def two_cpus():
    from tfcompat.framework import device as device_lib

    device_lib._reset_runtime()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    device_lib._reset_runtime()


def test_distributed_variables_save_one_value_and_restore_every_replica(two_cpus, tmp_path):
    with two_cpus.scope():
        kernel = tf.Variable([1.0, 2.0], name="dense/kernel")
        count = tf.Variable(3.0, synchronization=tf.VariableSynchronization.ON_READ,
                            aggregation=tf.VariableAggregation.SUM, name="count")
    path = Saver([kernel, count]).save(None, str(tmp_path / "m"))
    assert reader_lib.list_variables(path) == [("count", []), ("dense/kernel", [2])]
    assert float(tf.train.load_variable(path, "count")) == 6.0  # the replicas' sum, as TF saves it
    with two_cpus.scope():
        kernel2 = tf.Variable([0.0, 0.0], name="dense/kernel")
        count2 = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                             aggregation=tf.VariableAggregation.SUM, name="count")
    Saver([kernel2, count2]).restore(None, path)
    assert [c.numpy().tolist() for c in kernel2.values] == [[1.0, 2.0], [1.0, 2.0]]
    assert float(count2.read_value()) == 6.0


def test_restores_an_object_based_checkpoint_by_variable_names(tmp_path):
    with tf.name_scope("dense"):
        kernel = tf.Variable([[1.0, 2.0]], name="kernel")
    step = tf.Variable(4, dtype=tf.int64, name="global_step")
    path = tf.train.Checkpoint(layers=[kernel], step=step).write(str(tmp_path / "obj"))
    assert "dense/kernel" not in dict(reader_lib.list_variables(path))  # keyed by object path
    kernel2 = tf.Variable([[0.0, 0.0]], name="dense/kernel")
    step2 = tf.Variable(0, dtype=tf.int64, name="global_step")
    Saver([kernel2, step2]).restore(None, path)  # through the object graph's saved names, as TF's Saver
    assert kernel2.numpy().tolist() == [[1.0, 2.0]] and int(step2.numpy()) == 4
    with pytest.raises(tf.errors.NotFoundError, match="Key dense/bias not found"):
        Saver([tf.Variable([0.0], name="dense/bias")]).restore(None, path)
