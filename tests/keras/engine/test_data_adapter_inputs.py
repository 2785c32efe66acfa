"""Every input kind `DataHandler` takes: each sample once per epoch, batches as tf_keras.

Kinds: NumPy arrays, torch tensors, variables, nests of them, Python lists of scalars,
array-likes (h5py), `tf.data.Dataset`, generators, `keras.utils.Sequence` and
`torch.utils.data.DataLoader`. tf_keras's recorded behaviour is in
`test_data_adapter_golden.py`.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

import tfcompat as tf
from tfcompat.keras.engine import data_adapter as da
from tfcompat.keras.engine.data_adapters import handler as handler_lib
from tfcompat.keras.utils import Sequence
from tests.keras.engine.generate_data_adapter_golden import tf_warnings, walk


def rows_and_sizes(handler) -> list:
    """Per epoch: the x rows (ints) in order and the batch sizes; checks y == 10 * x."""
    epochs: dict = {}
    for epoch, _, batch in walk(handler):
        x, y = batch[0], batch[1]
        assert torch.equal(y.to(torch.int64), x.reshape(-1).to(torch.int64) * 10)
        rows, sizes = epochs.setdefault(epoch, ([], []))
        rows += x.reshape(-1).to(torch.int64).tolist()
        sizes.append(len(x))
    return [epochs[e] for e in sorted(epochs)]


def expected_sizes(n: int, bs: int) -> list:
    return [bs] * (n // bs) + ([n % bs] if n % bs else [])


class _Batches(Sequence):
    def __init__(self, batches):
        self.batches = batches
        self.ends = 0

    def __len__(self):
        return len(self.batches)

    def __getitem__(self, i):
        return self.batches[i]

    def on_epoch_end(self):
        self.ends += 1


def _arrays(n):
    return np.arange(n, dtype="float64").reshape(n, 1), np.arange(n) * 10


def _batch_list(n, bs):
    x, y = _arrays(n)
    return [(x[i:i + bs], y[i:i + bs]) for i in range(0, n, bs)]


# Each maker: (n, bs, shuffle, epochs) -> DataHandler kwargs.
KINDS = {
    "numpy": lambda n, bs: dict(zip(("x", "y"), _arrays(n)), batch_size=bs),
    "torch": lambda n, bs: dict(x=torch.arange(n, dtype=torch.float64)[:, None],
                                y=torch.arange(n) * 10, batch_size=bs),
    "variable": lambda n, bs: dict(x=tf.Variable(np.arange(n, dtype="float32")[:, None]),
                                   y=tf.Variable(np.arange(n) * 10), batch_size=bs),
    "lists": lambda n, bs: dict(x=[[float(i)] for i in range(n)],
                                y=[i * 10 for i in range(n)], batch_size=bs),
    "dataset": lambda n, bs: dict(x=tf.data.Dataset.from_tensor_slices(_arrays(n)).batch(bs)),
    "generator": lambda n, bs: dict(x=iter(_batch_list(n, bs))),
    "sequence": lambda n, bs: dict(x=_Batches(_batch_list(n, bs))),
    "dataloader": lambda n, bs: dict(x=DataLoader(TensorDataset(
        torch.arange(n, dtype=torch.float64)[:, None], torch.arange(n) * 10), batch_size=bs)),
}
ARRAY_KINDS = ("numpy", "torch", "variable", "lists")


@settings(max_examples=25)
@given(kind=st.sampled_from(sorted(KINDS)), n=st.integers(1, 30), bs=st.integers(1, 9),
       shuffle=st.sampled_from([False, True, "batch", "BATCH"]), epochs=st.integers(1, 3))
def test_every_sample_appears_once_per_epoch_in_tf_keras_batches(kind, n, bs, shuffle, epochs):
    tf.random.set_seed(n * 31 + bs)
    kwargs = KINDS[kind](n, bs)
    if kind == "generator" and epochs > 1:
        epochs = 1  # one pass: a second epoch would run out (see the golden cases)
    handler = da.DataHandler(**kwargs, shuffle=shuffle, epochs=epochs)
    assert handler.inferred_steps == (None if kind == "generator" else math.ceil(n / bs))
    per_epoch = rows_and_sizes(handler)
    assert len(per_epoch) == epochs
    assert handler.inferred_steps == math.ceil(n / bs)
    for rows, sizes in per_epoch:
        assert sorted(rows) == list(range(n))
        if shuffle and str(shuffle).lower() == "batch" and kind in ARRAY_KINDS:
            # the batches keep their rows (any order, in any order of batches)
            assert sorted(sizes) == sorted(expected_sizes(n, bs))
            chunks = [rows[sum(sizes[:i]):sum(sizes[:i + 1])] for i in range(len(sizes))]
            assert sorted(sorted(c) for c in chunks) == [
                list(range(s, min(s + bs, n))) for s in range(0, n, bs)]
        else:
            assert sizes == expected_sizes(n, bs)
            if not shuffle or kind not in ARRAY_KINDS + ("sequence",):
                assert rows == list(range(n))


def test_shuffle_draws_a_new_permutation_each_epoch_repeatably():
    def orders(seed, shuffle=True, n=40):
        tf.keras.utils.set_random_seed(seed)
        handler = da.DataHandler(np.arange(n), batch_size=7, shuffle=shuffle, epochs=3)
        out = []
        for _, iterator in handler.enumerate_epochs():
            out.append(torch.cat([next(iterator) for _ in handler.steps()]).tolist())
        return out

    first = orders(3)
    assert first == orders(3)  # set_random_seed makes it repeatable
    assert first != orders(4)
    assert first[0] != first[1] != first[2]
    assert all(sorted(o) == list(range(40)) for o in first)
    batch_orders = orders(3, "batch")
    assert batch_orders == orders(3, "batch") and batch_orders[0] != batch_orders[1]
    chunk_orders = [[min(o[i:i + 7]) // 7 for i in range(0, 42, 7)]
                    for o in orders(3, "batch", n=42)]
    assert any(c != sorted(c) for c in chunk_orders)  # the batches' order is shuffled too
    tf.random.set_seed(None)
    torch.manual_seed(11)  # without a global seed, torch's generator decides
    a = orders_unseeded()
    torch.manual_seed(11)
    assert a == orders_unseeded()


def orders_unseeded():
    handler = da.DataHandler(np.arange(20), batch_size=20, shuffle=True)
    return [next(it).tolist() for _, it in handler.enumerate_epochs()]


def test_unshuffled_batches_are_views_and_numpy_input_is_copied():
    x = torch.arange(10.0)[:, None]
    batches = [b for _, _, b in walk(da.DataHandler(x, batch_size=4))]
    assert [b.data_ptr() for b in batches] == [x[i:].data_ptr() for i in (0, 4, 8)]
    arr = np.arange(6, dtype="float32")
    handler = da.DataHandler(arr, batch_size=6)
    arr[:] = -1  # the handler converted (copied) the array: TF's convert_to_tensor copies
    assert walk(handler)[0][2].tolist() == list(range(6))


def test_conversions_follow_floatx_and_keep_torch_dtypes():
    x64 = np.ones((2, 2))
    (batch,) = [b for _, _, b in walk(da.DataHandler(x64, torch.ones(2, dtype=torch.float64)))]
    assert batch[0].dtype == torch.float32 and batch[1].dtype == torch.float64
    tf.keras.backend.set_floatx("float64")
    try:
        (batch,) = [b for _, _, b in walk(da.DataHandler(x64.astype("float16")))]
        assert batch.dtype == torch.float64
    finally:
        tf.keras.backend.set_floatx("float32")
    (batch,) = [b for _, _, b in walk(da.DataHandler([1, 2, 3], [0.5, 1.0, 2.0]))]
    assert batch[0].dtype == torch.int64 and batch[1].dtype == torch.float32
    gen = iter([(np.ones((2, 1)), np.arange(2, dtype="int32"), 1.5)])
    ((_, _, (gx, gy, gsw)),) = walk(da.DataHandler(gen))
    assert (gx.dtype, gy.dtype, gsw.dtype) == (torch.float32, torch.int32, torch.float32)


def test_nests_keep_dicts_and_turn_lists_into_tuples():
    n = 5
    x = {"b": np.arange(n), "a": [np.ones((n, 2)), [np.zeros((n, 1))]]}
    y = [np.arange(n), np.arange(n)]
    sw = [np.ones(n), None]
    batches = [b for _, _, b in walk(da.DataHandler(x, y, sample_weight=sw, batch_size=2))]
    bx, by, bsw = batches[-1]
    assert isinstance(bx, dict) and set(bx) == {"a", "b"}
    assert isinstance(bx["a"], tuple) and isinstance(bx["a"][1], tuple)
    assert isinstance(by, tuple) and isinstance(bsw, tuple)
    assert bsw[1].tolist() == [1.0] and bsw[1].dtype == torch.float32  # a missing weight: ones
    ds = tf.data.Dataset.from_tensor_slices(({"k": np.arange(4)}, np.arange(4))).batch(4)
    ((_, _, (dx, _)),) = walk(da.DataHandler(ds))
    assert isinstance(dx, dict) and dx["k"].tolist() == [0, 1, 2, 3]


def test_dataloader_batches_read_as_x_y_sample_weight():
    data = TensorDataset(torch.arange(6.0)[:, None], torch.arange(6), torch.ones(6))
    loader = DataLoader(data, batch_size=4)
    handler = da.DataHandler(loader, epochs=2, batch_size=100)  # batch_size: ignored
    assert handler.inferred_steps == 2
    batches = walk(handler)
    assert [len(b[2]) for b in batches] == [3, 3, 3, 3]  # (x, y, sw), lists made tuples
    assert all(isinstance(b[2], tuple) for b in batches)
    assert [b[2][0].shape[0] for b in batches] == [4, 2, 4, 2]
    single = DataLoader(TensorDataset(torch.arange(3.0)), batch_size=2)
    # [x] is read as (x,), which packs to x alone (tf_keras's standardisation)
    assert [b[2].tolist() for b in walk(da.DataHandler(single))] == [[0.0, 1.0], [2.0]]


class _Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))


def test_dataloader_without_length_infers_steps_after_an_epoch():
    handler = da.DataHandler(DataLoader(_Stream(), batch_size=3), epochs=2)
    assert handler.inferred_steps is None
    sizes = [len(b) for _, _, b in walk(handler)]
    assert sizes == [3, 3, 1, 3, 3, 1] and handler.inferred_steps == 3


def test_dataloader_steps_shorter_than_its_length_continue_one_pass():
    loader = DataLoader(torch.arange(8), batch_size=2)
    got = [(e, b.tolist()) for e, _, b in walk(da.DataHandler(loader, steps_per_epoch=2,
                                                              epochs=2))]
    assert got == [(0, [0, 1]), (0, [2, 3]), (1, [4, 5]), (1, [6, 7])]


def test_sequence_reads_its_first_batch_once_then_each_epoch_and_calls_on_epoch_end():
    reads = []

    class Seq(_Batches):
        def __getitem__(self, i):
            reads.append(i)
            return super().__getitem__(i)

    seq = Seq(_batch_list(6, 2))
    handler = da.DataHandler(seq, epochs=3)
    assert reads == [0]  # tf_keras peeks at seq[0]
    rows_and_sizes(handler)
    assert reads == [0] + [0, 1, 2] * 3 and seq.ends == 3


@pytest.mark.parametrize("use_multiprocessing", [False, True])
def test_sequence_read_ahead_by_workers_keeps_order_and_spares_on_epoch_end(
        use_multiprocessing):
    lock = threading.Lock()
    state = {"busy": 0, "overlap": False}

    class Seq(_Batches):
        def __getitem__(self, i):
            with lock:
                state["busy"] += 1
            try:
                return super().__getitem__(i)
            finally:
                with lock:
                    state["busy"] -= 1

        def on_epoch_end(self):
            state["overlap"] |= state["busy"] > 0
            super().on_epoch_end()

    seq = Seq(_batch_list(40, 3))
    handler = da.DataHandler(seq, epochs=3, workers=4, max_queue_size=3, shuffle=True,
                             steps_per_epoch=5, use_multiprocessing=use_multiprocessing)
    per_epoch = {}
    for epoch, _, (x, _) in walk(handler):
        per_epoch.setdefault(epoch, []).append(int(x[0, 0]) // 3)
    assert len(per_epoch) == 3 and all(len(v) == 5 for v in per_epoch.values())
    assert seq.ends == 3 and not state["overlap"]
    ordered = da.DataHandler(Seq(_batch_list(40, 3)), workers=3)
    assert [int(b[0][0, 0]) for _, _, b in walk(ordered)] == list(range(0, 40, 3))


def test_generator_builds_an_unbuilt_model_on_its_first_batch():
    class Model:
        built = False
        seen = None

        def __call__(self, x, training=None):
            Model.seen = (x.shape, training)
            raise NotImplementedError  # a container model: tf_keras swallows this

    batches = iter([(np.ones((2, 3)), np.ones(2))])
    da.DataHandler(batches, model=Model())
    assert Model.seen == (torch.Size([2, 3]), False)


def test_array_like_inputs_are_read_a_batch_at_a_time(tmp_path):
    h5py = pytest.importorskip("h5py")
    with h5py.File(tmp_path / "d.h5", "w") as f:
        f["x"] = np.arange(11, dtype="float64")[:, None]
        f["y"] = np.arange(11) * 10
    with h5py.File(tmp_path / "d.h5", "r") as f, tf_warnings() as messages:
        handler = da.DataHandler(f["x"], f["y"], batch_size=4, epochs=2, shuffle=True)
        assert isinstance(handler._adapter, da.GenericArrayLikeDataAdapter)
        per_epoch = rows_and_sizes(handler)
        assert [sorted(r) for r, _ in per_epoch] == [list(range(11))] * 2
        assert [s for _, s in per_epoch] == [[4, 4, 3]] * 2
        batch = walk(da.DataHandler(f["x"], batch_size=11))[0][2]
        assert batch.dtype == torch.float32 and batch.reshape(-1).tolist() == list(range(11))
    assert any("array-like data" in m for m in messages)


def test_inputs_no_adapter_takes_name_the_fix():
    with pytest.raises(ValueError, match="Failed to find data adapter.*DataLoader\\(dataset"):
        da.DataHandler(TensorDataset(torch.ones(3)))
    with pytest.raises(ValueError, match="`y` argument is not supported when using a "
                                         "`torch.utils.data.DataLoader`"):
        da.DataHandler(DataLoader(torch.ones(3)), y=np.ones(3))
    with pytest.raises(ValueError, match="No data to iterate"):
        da.DataHandler(None)


def test_placement_moves_tensors_to_a_device_and_leaves_the_cpu_alone():
    source = [(torch.ones(2), {"k": torch.zeros(1)})]
    moved = list(handler_lib._OnDevice(source, torch.device("meta")))
    assert moved[0][0].device.type == "meta" and moved[0][1]["k"].device.type == "meta"
    x = torch.arange(4.0)
    with tf.device("/cpu:0"):
        handler = da.DataHandler(x, batch_size=4)
    assert walk(handler)[0][2].data_ptr() == x.data_ptr()


def test_batches_are_split_across_replicas_under_a_strategy():
    from tests.distribute.logical_devices import logical_cpus
    from tfcompat.distribute.values import PerReplica
    with logical_cpus(2):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            handler = da.DataHandler(np.arange(10), np.arange(10) * 10, batch_size=4)
            batches = [b for _, _, b in walk(handler)]
            local = da.DataHandler(np.arange(10), batch_size=4, distribute=False)
            assert not isinstance(walk(local)[0][2], PerReplica)
            (one,) = next(da.single_batch_iterator(strategy, np.arange(4)))
            assert isinstance(one, PerReplica)
            dist = strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4))
            with pytest.raises(ValueError, match="distributed dataset, you must specify"):
                da.DataHandler(dist)
            # one iterator for all epochs (tf_keras: the steps say it all; repeat() as needed)
            short = da.DataHandler(dist, steps_per_epoch=2, epochs=2)
            short_batches = walk(short)
            assert short._insufficient_data
            dist = strategy.experimental_distribute_dataset(
                tf.data.Dataset.range(6).batch(4).repeat())
            repeated = walk(da.DataHandler(dist, steps_per_epoch=3, epochs=2))
    assert [[c.tolist() for c in b.values] for _, _, b in short_batches] == [
        [[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert [[c.tolist() for c in b.values] for _, _, b in repeated] == [
        [[0, 1], [2, 3]], [[4], [5]]] * 3
    assert all(isinstance(t, PerReplica) for b in batches for t in b)
    assert [[c.tolist() for c in b[0].values] for b in batches] == [
        [[0, 1], [2, 3]], [[4, 5], [6, 7]], [[8], [9]]]


@pytest.mark.skipif(not (os.environ.get("TFCOMPAT_TEST_GPU") and torch.cuda.is_available()),
                    reason="needs CUDA and TFCOMPAT_TEST_GPU=1 (GPUs are hidden otherwise)")
def test_batches_go_to_the_current_gpu():
    with tf.device("/gpu:0"):
        x = np.arange(10, dtype="float64")[:, None]
        y = np.array([0, 1] * 5)
        handler = da.DataHandler(x, y, batch_size=4, shuffle=True, class_weight={0: 1.0, 1: 2.0})
        batches = [b for _, _, b in walk(handler)]
        on_gpu = torch.arange(8.0, device="cuda")
        views = [b for _, _, b in walk(da.DataHandler(on_gpu, batch_size=3))]
        shuffled = [b for _, _, b in walk(da.DataHandler(on_gpu, batch_size=3, shuffle=True))]
        (one,) = next(da.single_batch_iterator(tf.distribute.get_strategy(), x))
    assert all(t.device.type == "cuda" for b in batches for t in b)
    rows = torch.cat([b[0] for b in batches]).reshape(-1).long()
    assert sorted(rows.tolist()) == list(range(10))
    assert torch.equal(torch.cat([b[2] for b in batches]).cpu(), (rows % 2 + 1).float().cpu())
    assert [v.data_ptr() for v in views] == [on_gpu[i:].data_ptr() for i in (0, 3, 6)]
    assert sorted(torch.cat(shuffled).tolist()) == list(range(8))
    assert one.device.type == "cuda"
