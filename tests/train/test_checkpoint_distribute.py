"""Checkpoints of distributed variables (MirroredStrategy on 2 logical CPUs; 2 gloo workers).

As TF: a mirrored variable saves one value and restores it into every
component; a sync-on-read variable saves its reduced value, and a SUM one
restores it divided across the replicas (the seed's `_TowerLocalSaveable`);
checkpoints move freely between strategy and no strategy.
"""

import json
import os
import pathlib
import socket
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import device as device_lib
from tfcompat.train.format.tensor_bundle import BundleReader

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def two_cpus():
    device_lib._reset_runtime()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    device_lib._reset_runtime()


def _sum_on_read(value=0.0):
    return tf.Variable(value, synchronization=tf.VariableSynchronization.ON_READ,
                       aggregation=tf.VariableAggregation.SUM)


def test_mirrored_saves_one_value_and_restores_every_component(two_cpus, tmp_path):
    with two_cpus.scope():
        w = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(w=w).write(str(tmp_path / "m"))
    reader = BundleReader(path)
    assert sorted(reader.keys()) == ["_CHECKPOINTABLE_OBJECT_GRAPH", "w/.ATTRIBUTES/VARIABLE_VALUE"]
    np.testing.assert_array_equal(reader.read("w/.ATTRIBUTES/VARIABLE_VALUE"), [1.0, 2.0])
    w.values[1].assign([7.0, 7.0])  # make the components differ: the restore must set both
    w.values[0].assign([8.0, 8.0])
    tf.train.Checkpoint(w=w).read(path).assert_consumed()
    for component in w.values:
        np.testing.assert_array_equal(component.numpy(), [1.0, 2.0])


def test_sync_on_read_saves_the_sum_and_restores_it_divided(two_cpus, tmp_path):
    with two_cpus.scope():
        acc = _sum_on_read()
    two_cpus.run(lambda: acc.assign_add(
        tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32) + 1.0))
    path = tf.train.Checkpoint(acc=acc).write(str(tmp_path / "s"))
    assert float(BundleReader(path).read("acc/.ATTRIBUTES/VARIABLE_VALUE")) == 3.0
    with two_cpus.scope():
        fresh = _sum_on_read(100.0)
    tf.train.Checkpoint(acc=fresh).read(path).assert_consumed()
    assert [float(c.numpy()) for c in fresh.values] == [1.5, 1.5]
    assert float(fresh.read_value()) == 3.0
    plain = tf.Variable(0.0)
    tf.train.Checkpoint(acc=plain).read(path).assert_consumed()  # without a strategy
    assert float(plain.numpy()) == 3.0


def test_checkpoints_move_between_strategy_and_none(two_cpus, tmp_path):
    m = tf.Module()
    m.w = tf.Variable([[1.0, -1.0]])
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.ones([1, 2]), m.w)])
    plain_path = tf.train.Checkpoint(m=m, opt=opt).write(str(tmp_path / "plain"))
    with two_cpus.scope():
        d = tf.Module()
        d.w = tf.Variable([[0.0, 0.0]])
        dopt = tf.keras.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(m=d, opt=dopt).read(plain_path)
    for component in d.w.values:
        np.testing.assert_array_equal(component.numpy(), m.w.numpy())
    assert isinstance(dopt.get_slot(d.w, "m"), tf.distribute.MirroredVariable)  # made on restore
    two_cpus.run(lambda: dopt.apply_gradients([(tf.ones([1, 2]) / 2.0, d.w)]))
    status.assert_consumed()  # iter and the hyperparameters were restored as they were created
    assert int(dopt.iterations.numpy()) == 2
    opt.apply_gradients([(tf.ones([1, 2]), m.w)])  # the same step on one device
    np.testing.assert_array_equal(d.w.values[1].numpy(), m.w.numpy())
    dist_path = tf.train.Checkpoint(m=d, opt=dopt).write(str(tmp_path / "dist"))
    back, back_opt = tf.Module(), tf.keras.optimizers.Adam(0.1)
    back.w = tf.Variable([[0.0, 0.0]])
    st = tf.train.Checkpoint(m=back, opt=back_opt).read(dist_path)
    back_opt.apply_gradients([(tf.ones([1, 2]), back.w)])
    st.assert_consumed()
    opt.apply_gradients([(tf.ones([1, 2]), m.w)])
    np.testing.assert_array_equal(back.w.numpy(), m.w.numpy())
    assert BundleReader(dist_path).keys() == BundleReader(plain_path).keys()


def test_non_chief_writes_to_a_temporary_place(tmp_path):
    from tfcompat.train import checkpoint as ck

    class Extended:
        should_checkpoint = False

        def _worker_index(self):
            return 3

    target, temp = ck._worker_target(str(tmp_path / "ckpt-1"), Extended())
    assert (target, temp) == (str(tmp_path / "workertemp_3" / "ckpt-1"), str(tmp_path / "workertemp_3"))
    Extended.should_checkpoint = True
    assert ck._worker_target(str(tmp_path / "ckpt-1"), Extended()) == (str(tmp_path / "ckpt-1"), None)
    assert ck._worker_target("x", None) == ("x", None)


def test_two_workers_only_the_chief_writes(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items()
           if k not in ("TF_CONFIG", "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    env.update({"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "TFCOMPAT_COLLECTIVE_TIMEOUT": "30"})
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--nnodes=1",
           f"--master_port={port}", "--master_addr=127.0.0.1",
           str(ROOT / "tests" / "train" / "multi_worker_checkpoint.py"), str(tmp_path)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-4000:]
    results = [json.loads((tmp_path / f"result.{i}.json").read_text()) for i in range(2)]
    names = sorted(os.listdir(tmp_path))
    assert names == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index",
                     "result.0.json", "result.1.json"]  # no workertemp_1 left behind
    assert (tmp_path / "checkpoint").read_text().startswith('model_checkpoint_path: "ckpt-1"')
    for r in results:
        assert r["path"] == str(tmp_path / "ckpt-1")
        assert r["w2"] == r["w"] == results[0]["w"]
        assert r["seen"] == r["seen2"] == 3.0 and r["seen2_local"] == 1.5
        assert r["iter"] == 1
