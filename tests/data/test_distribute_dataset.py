"""tf.data datasets under `tf.distribute`: TF 2.21's split, specs and shard policies
(fixtures/data.json, "distribute" and "from_function", recorded over three logical CPUs)."""

import json
from pathlib import Path

import pytest
import torch

import tfcompat as tf
from tests.data.cases import (DISTRIBUTE_CASES, FROM_FUNCTION_CASES, MULTI_WORKER_OFF_CASES,
                              _with_policy)
from tests.data.gen_data import encode, unwrap
from tfcompat.distribute import input_lib as il
from tfcompat.framework import device as device_lib

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "data.json").read_text())


@pytest.fixture
def strategy():
    device_lib._reset_runtime()
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 3)
    yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1", "/cpu:2"])
    device_lib._reset_runtime()


def _record(dist):
    return {"element_spec": repr(dist.element_spec),
            "steps": [encode(unwrap(element)) for element in dist],
            "cardinality": int(dist.cardinality)}


@pytest.mark.parametrize("name", sorted(DISTRIBUTE_CASES))
def test_experimental_distribute_dataset_matches_tf(strategy, name):
    dist = strategy.experimental_distribute_dataset(DISTRIBUTE_CASES[name](tf))
    assert _record(dist) == FIXTURES["distribute"][name]
    assert repr(iter(dist).element_spec) == FIXTURES["distribute"][name]["element_spec"]


@pytest.mark.parametrize("name", sorted(FROM_FUNCTION_CASES))
def test_distribute_datasets_from_function_matches_tf(strategy, name):
    contexts = []

    def dataset_fn(ctx):
        contexts.append(ctx)
        return FROM_FUNCTION_CASES[name](tf)

    dist = strategy.distribute_datasets_from_function(dataset_fn)
    assert _record(dist) == FIXTURES["from_function"][name]
    assert [(c.num_input_pipelines, c.input_pipeline_id) for c in contexts] == [(1, 0)]


def test_one_replica_gets_plain_tensors_and_a_plain_spec():
    ds = tf.data.Dataset.range(6).batch(3, drop_remainder=True)
    dist = tf.distribute.OneDeviceStrategy("/cpu:0").experimental_distribute_dataset(ds)
    assert repr(dist.element_spec) == "TensorSpec(shape=(3,), dtype=tf.int64, name=None)"
    assert [type(x) for x in dist] == [torch.Tensor, torch.Tensor]


def _two_workers(ds, worker):
    return il.distribute_dataset(ds, num_replicas_in_sync=2, local_devices=["cpu"],
                                 num_workers=2, worker_index=worker)


def test_two_workers_shard_by_data():
    ds = tf.data.Dataset.range(8).batch(4)
    got = [[x.values[0].tolist() for x in _two_workers(ds, w)] for w in (0, 1)]
    assert got == [[[0, 1], [4, 5]], [[2, 3], [6, 7]]]


def test_two_workers_with_policy_file_are_refused():
    ds = _with_policy(tf, tf.data.Dataset.range(8).batch(4), "FILE")
    with pytest.raises(tf.errors.NotFoundError):
        _two_workers(ds, 0)


@pytest.mark.parametrize("name", sorted(MULTI_WORKER_OFF_CASES))
def test_two_workers_unsharded_read_every_batch_as_tf_rebatches(name):
    """OFF over 2 workers x 2 replicas: TF's per-worker rebatch (recorded from TF's own
    rebatch functions), each step's pieces in replica order, short steps padded empty."""
    expected = FIXTURES["multi_worker_off"][name]
    ds = _with_policy(tf, MULTI_WORKER_OFF_CASES[name](tf), "OFF")
    assert il.static_batch_size(ds) == expected["batch_size"]
    for w, steps in enumerate(expected["workers"]):
        dist = il.distribute_dataset(ds, num_replicas_in_sync=4, local_devices=["cpu", "cpu"],
                                     num_workers=2, worker_index=w)
        got = [[c.tolist() for c in x.values] for x in dist]
        assert got == [step + [[]] * (2 - len(step)) for step in steps]


def test_cardinality_of_infinite_and_unknown_sources(strategy):
    ds = tf.data.Dataset.range(14).batch(7)
    assert strategy.experimental_distribute_dataset(ds.repeat()).cardinality == -1
    assert strategy.experimental_distribute_dataset(ds.filter(lambda x: True)).cardinality == -2


def test_element_spec_needs_a_tf_data_source(strategy):
    dist = strategy.experimental_distribute_dataset([torch.arange(6)])
    with pytest.raises(TypeError, match="tf.data.Dataset"):
        dist.element_spec
