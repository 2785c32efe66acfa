"""tf.data behaviour beyond the golden table: laws over random pipelines, iterators, options,
cache and generator epochs, call conventions, errors."""

import collections

from hypothesis import given
from hypothesis import strategies as st
import numpy as np
import pytest
import torch

import tfcompat as tf

Pair = collections.namedtuple("Pair", ["a", "b"])


def _ints(ds):
    return [x.tolist() for x in ds]


# -- laws ---------------------------------------------------------------------------------

def _window_reference(n, size, shift, stride, drop):
    out, start = [], 0
    while start < n:
        members = [i for i in range(start, start + (size - 1) * stride + 1, stride) if i < n]
        if len(members) < size and drop:
            break
        out.append(members)
        start += shift
    return out


@given(n=st.integers(0, 25), size=st.integers(1, 6), shift=st.integers(1, 6),
       stride=st.integers(1, 4), drop=st.booleans())
def test_window_matches_its_definition_and_cardinality(n, size, shift, stride, drop):
    ds = tf.data.Dataset.range(n).window(size, shift, stride, drop_remainder=drop)
    got = [_ints(w) for w in ds]
    assert got == _window_reference(n, size, shift, stride, drop)
    assert int(ds.cardinality()) == len(got)


@given(n=st.integers(0, 30), size=st.integers(1, 8), drop=st.booleans())
def test_batch_then_unbatch_and_cardinality(n, size, drop):
    ds = tf.data.Dataset.range(n).batch(size, drop_remainder=drop)
    batches = _ints(ds)
    assert int(ds.cardinality()) == len(batches)
    kept = n - n % size if drop else n
    assert [x for b in batches for x in b] == list(range(kept))
    assert _ints(ds.unbatch()) == list(range(kept))


@given(n=st.integers(0, 20), take=st.integers(-1, 25), skip=st.integers(-1, 25),
       shards=st.integers(1, 4), repeat=st.integers(0, 3))
def test_counting_transformations_know_their_cardinality(n, take, skip, shards, repeat):
    base = tf.data.Dataset.range(n)
    for ds in (base.take(take), base.skip(skip), base.shard(shards, shards - 1),
               base.repeat(repeat), base.take(take).skip(skip).repeat(repeat),
               base.concatenate(base.take(take)), tf.data.Dataset.zip((base, base.skip(skip)))):
        assert int(ds.cardinality()) == len(list(ds)) == len(ds)


@given(lengths=st.lists(st.integers(0, 5), max_size=6), cycle=st.integers(1, 4),
       block=st.integers(1, 3))
def test_interleave_yields_every_element_of_every_inner_dataset(lengths, cycle, block):
    ds = tf.data.Dataset.from_tensor_slices(np.array(lengths, dtype=np.int64)).interleave(
        lambda k: tf.data.Dataset.from_tensors(k).repeat(k), cycle_length=cycle,
        block_length=block) if lengths else tf.data.Dataset.range(0)
    assert sorted(_ints(ds)) == sorted(k for k in lengths for _ in range(k))


def test_batch_of_slices_is_its_own_copy_and_equals_stacking():
    x = torch.arange(20.0).reshape(10, 2)
    fast = list(tf.data.Dataset.from_tensor_slices(x).batch(4))
    stacked = list(tf.data.Dataset.from_tensor_slices(x).map(lambda r: r).batch(4))
    assert [b.tolist() for b in fast] == [b.tolist() for b in stacked]
    # one copy of the rows (a value: writing into the batch cannot reach the source)
    assert fast[0].data_ptr() != x.data_ptr() and fast[0].is_contiguous()


# -- elements and calls -------------------------------------------------------------------

def test_elements_are_plain_torch_tensors_with_tf_dtypes():
    ds = tf.data.Dataset.from_tensor_slices({"i": [1, 2], "f": [1.0, 2.0], "n": np.array([1, 2])})
    element = next(iter(ds))
    assert {k: v.dtype for k, v in element.items()} == {
        "i": torch.int32, "f": torch.float32, "n": torch.int64}
    assert all(type(v) is torch.Tensor for v in element.values())


def test_strings_are_a_clear_type_error():
    with pytest.raises(TypeError, match="string"):
        tf.data.Dataset.from_tensor_slices(["a", "b"])
    with pytest.raises(TypeError, match="string"):
        list(tf.data.Dataset.range(2).map(lambda x: "text"))


def test_map_calls_tuples_spread_and_dicts_and_namedtuples_whole():
    seen = []
    ds = tf.data.Dataset.from_tensor_slices(Pair([1, 2], [3, 4]))
    out = list(ds.map(lambda p: seen.append(type(p).__name__) or p.a + p.b))
    assert seen[-1] == "Pair" and [int(x) for x in out] == [4, 6]
    ds = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4]))
    assert [int(x) for x in ds.map(lambda a, b: a * b)] == [3, 8]
    ds = tf.data.Dataset.from_tensor_slices({"a": [1], "b": [2]})
    assert [int(x) for x in ds.map(lambda d: d["a"] - d["b"])] == [-1]


def test_map_results_are_converted_and_variables_read():
    v = tf.Variable(10)
    out = list(tf.data.Dataset.range(2).map(lambda x: (v, 1.5, np.int16(3))))
    assert out[0][0].dtype == torch.int32 and type(out[0][0]) is torch.Tensor
    assert (out[0][1].dtype, out[0][2].dtype) == (torch.float32, torch.int16)


def test_as_numpy_iterator_gives_numpy_values_and_refuses_windows():
    got = list(tf.data.Dataset.from_tensor_slices(([1, 2], [[1.0], [2.0]])).as_numpy_iterator())
    assert isinstance(got[0][0], np.int32) and isinstance(got[0][1], np.ndarray)
    with pytest.raises(TypeError, match="DatasetSpec"):
        tf.data.Dataset.range(4).window(2).as_numpy_iterator()


def test_iterator_protocol():
    it = iter(tf.data.Dataset.range(2))
    assert repr(it.element_spec) == "TensorSpec(shape=(), dtype=tf.int64, name=None)"
    assert int(it.get_next()) == 0
    optional = it.get_next_as_optional()
    assert bool(optional.has_value()) and int(optional.get_value()) == 1
    empty = it.get_next_as_optional()
    assert not bool(empty.has_value())
    with pytest.raises(tf.errors.InvalidArgumentError):
        empty.get_value()
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()


def test_each_iteration_is_a_new_epoch_and_generators_are_called_again():
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)

    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int64))
    assert _ints(ds) == _ints(ds) == [0, 1, 2]
    assert len(calls) == 2
    assert _ints(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]


def test_cache_replays_a_complete_pass_only():
    calls = []
    ds = tf.data.Dataset.range(4).map(lambda x: calls.append(int(x)) or x).cache()
    assert _ints(ds.take(2)) == [0, 1]  # a partial pass: nothing cached
    assert _ints(ds) == [0, 1, 2, 3]
    calls.clear()
    assert _ints(ds) == [0, 1, 2, 3] and calls == []


def test_tensor_arguments_are_accepted():
    ds = tf.data.Dataset.range(tf.constant(10)).batch(tf.constant(4)).take(tf.constant(2))
    assert _ints(ds) == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_get_single_element_and_reduce():
    assert int(tf.data.Dataset.range(5).skip(4).get_single_element()) == 4
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.data.Dataset.range(2).get_single_element()
    state = tf.data.Dataset.range(4).reduce({"n": np.int64(0)}, lambda s, x: {"n": s["n"] + x})
    assert int(state["n"]) == 6


def test_len_and_bool():
    assert len(tf.data.Dataset.range(3).batch(2)) == 2
    assert bool(tf.data.Dataset.range(3).repeat())  # truthy without asking len()


def test_namespace_constants():
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert tf.data.INFINITE_CARDINALITY == tf.data.experimental.INFINITE_CARDINALITY == -1
    assert tf.data.UNKNOWN_CARDINALITY == tf.data.experimental.UNKNOWN_CARDINALITY == -2


# -- options ------------------------------------------------------------------------------

def test_options_merge_later_wins_and_groups_merge():
    a = tf.data.Options()
    a.deterministic = False
    a.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.OFF
    b = tf.data.Options()
    b.deterministic = True
    b.threading.private_threadpool_size = 4
    ds = tf.data.Dataset.range(3).with_options(a).map(lambda x: x).with_options(b)
    merged = ds.options()
    assert merged.deterministic is True
    assert merged.experimental_distribute.auto_shard_policy == (
        tf.data.experimental.AutoShardPolicy.OFF)
    assert merged.experimental_threading.private_threadpool_size == 4
    with pytest.raises(ValueError, match="with_options"):
        merged.experimental_distribute.num_devices = 2
    assert tf.data.Options() == tf.data.Options()
    assert a.merge(b) == merged


def test_options_defaults():
    o = tf.data.Options()
    assert o.deterministic is None
    assert o.experimental_distribute.auto_shard_policy == tf.data.experimental.AutoShardPolicy.AUTO
    with pytest.raises(TypeError):
        tf.data.Dataset.range(1).with_options({"deterministic": True})


# -- tf.data.experimental -----------------------------------------------------------------

def test_experimental_aliases_are_the_methods():
    ds = tf.data.Dataset.range(6)
    x = tf.data.experimental
    assert _ints(ds.apply(x.map_and_batch(lambda v: v * 2, 4))) == [[0, 2, 4, 6], [8, 10]]
    assert sorted(_ints(ds.apply(x.shuffle_and_repeat(6, count=2, seed=1)))) == sorted(
        list(range(6)) * 2)
    assert _ints(ds.apply(x.parallel_interleave(lambda v: tf.data.Dataset.range(v), 2))) == _ints(
        ds.interleave(lambda v: tf.data.Dataset.range(v), 2, 1))
    assert _ints(x.Counter(5, 2).take(3)) == [5, 7, 9]
    assert int(x.Counter().cardinality()) == tf.data.INFINITE_CARDINALITY
    assert _ints(ds.apply(x.take_while(lambda v: v < 3))) == [0, 1, 2]
    assert x.get_structure(ds) == ds.element_spec
    assert int(x.get_next_as_optional(iter(ds)).get_value()) == 0
    assert _ints(x.from_list([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    moved = list(ds.take(1).apply(x.copy_to_device("/cpu:0")))
    assert moved[0].device.type == "cpu"
    assert x.get_single_element(ds.take(1)).item() == 0
    x.enable_debug_mode()


@given(lengths=st.lists(st.integers(0, 5), min_size=1, max_size=7), size=st.integers(1, 4),
       pad_to=st.one_of(st.none(), st.integers(5, 7)))
def test_padded_batch_pads_each_batch_to_its_longest_or_the_given_shape(lengths, size, pad_to):
    rows = [list(range(1, n + 1)) for n in lengths]
    ds = tf.data.Dataset.from_generator(lambda: iter(rows),
                                        output_signature=tf.TensorSpec((None,), tf.int32))
    got = _ints(ds.padded_batch(size, padded_shapes=[pad_to], padding_values=-7))
    expected = []
    for start in range(0, len(rows), size):
        group = rows[start:start + size]
        width = pad_to if pad_to is not None else max(len(r) for r in group)
        expected.append([r + [-7] * (width - len(r)) for r in group])
    assert got == expected


def test_padded_batch_refuses_a_mismatched_padding_dtype_when_built():
    with pytest.raises(TypeError, match="does not match"):
        tf.data.Dataset.range(3).padded_batch(2, padding_values=1.5)


# -- random pipelines against a list model ------------------------------------------------

_SCALAR_OPS = st.sampled_from(["take", "skip", "repeat", "filter", "map", "shard", "shuffle1",
                               "batch_unbatch", "window_flat", "concat", "cache"])


@given(n=st.integers(0, 12), ops=st.lists(st.tuples(_SCALAR_OPS, st.integers(1, 4)), max_size=5))
def test_random_scalar_pipelines_match_a_list_model(n, ops):
    ds, model, known = tf.data.Dataset.range(n), list(range(n)), True
    for op, k in ops:
        if op == "take":
            ds, model = ds.take(k), model[:k]
        elif op == "skip":
            ds, model = ds.skip(k), model[k:]
        elif op == "repeat":
            ds, model = ds.repeat(k), model * k
        elif op == "filter":
            ds, known = ds.filter(lambda x, k=k: x % k == 0), False
            model = [x for x in model if x % k == 0]
        elif op == "map":
            ds, model = ds.map(lambda x, k=k: x * k + 1), [x * k + 1 for x in model]
        elif op == "shard":
            ds, model = ds.shard(k, k - 1), model[k - 1::k]
        elif op == "shuffle1":
            ds = ds.shuffle(1)
        elif op == "batch_unbatch":
            ds, known = ds.batch(k).unbatch(), False
        elif op == "window_flat":
            ds, known = ds.window(k).flat_map(lambda w: w), False
        elif op == "concat":
            ds, model = ds.concatenate(tf.data.Dataset.range(k)), model + list(range(k))
        elif op == "cache":
            ds = ds.cache()
    assert [int(x) for x in ds] == model
    assert [int(x) for x in ds] == model  # a second epoch (caches replay)
    card = int(ds.cardinality())
    if known:
        assert card == len(model)
    else:
        assert card in (len(model), tf.data.UNKNOWN_CARDINALITY)
