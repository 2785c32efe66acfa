"""The deterministic tf.data pipelines whose TF 2.21 results `gen_data.py` records.

Each case is a function of the `tf` module (real TensorFlow in the
generator, `tfcompat` in the test) that builds a dataset; ERROR_CASES build
and iterate something TF refuses. The same code runs against both, so the
table is the whole specification the fixtures pin down.
"""

import collections

import numpy as np

Point = collections.namedtuple("Point", ["x", "y"])


def _gen_ragged():
    for n in (1, 3, 2):
        yield list(range(n))


def _gen_pairs():
    for i in range(4):
        yield i, float(i) / 2


def _gen_dicts():
    for i in range(3):
        yield {"a": [i, i + 1], "b": i * 1.5}


CASES = {
    # sources and dtype inference
    "range_stop": lambda tf: tf.data.Dataset.range(5),
    "range_start_stop_step": lambda tf: tf.data.Dataset.range(2, 11, 3),
    "range_negative_step": lambda tf: tf.data.Dataset.range(5, 0, -2),
    "range_empty": lambda tf: tf.data.Dataset.range(0),
    "range_output_type": lambda tf: tf.data.Dataset.range(3, output_type=tf.int32),
    "slices_python_ints": lambda tf: tf.data.Dataset.from_tensor_slices([1, 2, 3]),
    "slices_python_floats": lambda tf: tf.data.Dataset.from_tensor_slices([1.5, 2, 3]),
    "slices_nested_lists": lambda tf: tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]),
    "slices_tuple": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0])),
    "slices_dict": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"b": [[1.0, 2.0], [3.0, 4.0]], "a": [7, 8]}),
    "slices_nested_dict": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"a": {"b": [1, 2]}, "c": ([1.0, 2], [True, False])}),
    "slices_numpy": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(6, dtype=np.int16).reshape(3, 2), np.array([0.5, 1.5, 2.5]))),
    "slices_namedtuple": lambda tf: tf.data.Dataset.from_tensor_slices(Point([1, 2], [3, 4])),
    "slices_bool": lambda tf: tf.data.Dataset.from_tensor_slices([True, False]),
    "from_tensors_list": lambda tf: tf.data.Dataset.from_tensors([1.5, 2.0]),
    "from_tensors_tuple": lambda tf: tf.data.Dataset.from_tensors((1, [2, 3], {"k": 4.0})),
    "from_generator_signature": lambda tf: tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec(shape=(None,), dtype=tf.int32)),
    "from_generator_tuple": lambda tf: tf.data.Dataset.from_generator(
        _gen_pairs, output_signature=(tf.TensorSpec((), tf.int64), tf.TensorSpec((), tf.float32))),
    "from_generator_dict": lambda tf: tf.data.Dataset.from_generator(
        _gen_dicts, output_signature={"a": tf.TensorSpec((2,), tf.int32),
                                      "b": tf.TensorSpec((), tf.float64)}),
    "from_generator_truncates": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1.5, 2.7]), output_signature=tf.TensorSpec((), tf.int32)),
    "from_generator_legacy": lambda tf: tf.data.Dataset.from_generator(
        _gen_ragged, output_types=tf.int64, output_shapes=[None]),
    "from_generator_args": lambda tf: tf.data.Dataset.from_generator(
        lambda n: iter(range(int(n))), output_signature=tf.TensorSpec((), tf.int32), args=(3,)),
    # batching
    "batch": lambda tf: tf.data.Dataset.range(10).batch(3),
    "batch_drop": lambda tf: tf.data.Dataset.range(10).batch(3, drop_remainder=True),
    "batch_tuple_map": lambda tf: tf.data.Dataset.range(5).map(lambda x: (x, x * 2)).batch(2),
    "batch_of_batch": lambda tf: tf.data.Dataset.range(8).batch(2).batch(2),
    "batch_dict_slices": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"x": [[1, 2], [3, 4], [5, 6]], "y": [1.0, 2.0, 3.0]}).batch(2),
    "padded_batch_default": lambda tf: tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec((None,), tf.int32)).padded_batch(2),
    "padded_batch_shapes": lambda tf: tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec((None,), tf.int32)).padded_batch(
            3, padded_shapes=[5], padding_values=-1),
    "padded_batch_tuple": lambda tf: tf.data.Dataset.range(1, 5).map(
        lambda x: (tf.fill([x], x), tf.fill([2, x], tf.cast(x, tf.float32)))).padded_batch(
            2, padded_shapes=([None], [2, 4]), padding_values=(tf.constant(9, tf.int64), 0.5),
            drop_remainder=True),
    "padded_batch_bool": lambda tf: tf.data.Dataset.range(1, 4).map(
        lambda x: tf.fill([x], True)).padded_batch(2),
    "unbatch": lambda tf: tf.data.Dataset.range(7).batch(3).unbatch(),
    "unbatch_from_tensors": lambda tf: tf.data.Dataset.from_tensors(([1, 2, 3], [4.0, 5, 6])).unbatch(),
    "unbatch_experimental": lambda tf: tf.data.Dataset.range(4).batch(2).apply(
        tf.data.experimental.unbatch()),
    "window_flat_map": lambda tf: tf.data.Dataset.range(7).window(3, shift=2).flat_map(
        lambda w: w.batch(3)),
    "window_drop": lambda tf: tf.data.Dataset.range(7).window(3, shift=2, drop_remainder=True),
    "window_stride": lambda tf: tf.data.Dataset.range(10).window(3, shift=1, stride=2),
    "window_shift_gt_size": lambda tf: tf.data.Dataset.range(10).window(2, shift=4),
    "window_tuple": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).window(2),
    # element-wise and control flow
    "map_scalar": lambda tf: tf.data.Dataset.range(4).map(lambda x: x * x),
    "map_list_to_tuple": lambda tf: tf.data.Dataset.range(3).map(lambda x: [x, x + 1]),
    "map_dict_arg": lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3, 4]}).map(
        lambda d: d["a"] + d["b"]),
    "map_tuple_args": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).map(
        lambda a, b: {"sum": a + b, "a": a}),
    "map_parallel": lambda tf: tf.data.Dataset.range(6).map(
        lambda x: x + 1, num_parallel_calls=tf.data.AUTOTUNE),
    "map_after_batch": lambda tf: tf.data.Dataset.range(5).batch(2).map(lambda x: x * 10),
    "filter": lambda tf: tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0),
    "filter_tuple": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [0, 1, 0])).filter(
        lambda a, b: b == 0),
    "flat_map": lambda tf: tf.data.Dataset.range(1, 4).flat_map(
        lambda x: tf.data.Dataset.range(x)),
    "interleave_c2_b1": lambda tf: tf.data.Dataset.range(1, 5).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1),
    "interleave_c2_b3": lambda tf: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=3),
    "interleave_c3_b2": lambda tf: tf.data.Dataset.range(1, 6).interleave(
        lambda x: tf.data.Dataset.range(x * 10, x * 10 + x), cycle_length=3, block_length=2),
    "interleave_c1": lambda tf: tf.data.Dataset.range(3).interleave(
        lambda x: tf.data.Dataset.range(x), cycle_length=1),
    "enumerate": lambda tf: tf.data.Dataset.from_tensor_slices([7, 8, 9]).enumerate(start=4),
    "enumerate_experimental": lambda tf: tf.data.Dataset.range(2).apply(
        tf.data.experimental.enumerate_dataset()),
    "concatenate": lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(10, 12)),
    "concatenate_shapes": lambda tf: tf.data.Dataset.from_tensors([1, 2]).concatenate(
        tf.data.Dataset.from_tensors([3, 4, 5])),
    "zip_tuple": lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(3), tf.data.Dataset.range(10, 20))),
    "zip_varargs": lambda tf: tf.data.Dataset.zip(
        tf.data.Dataset.range(2), tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0])),
    "zip_dict": lambda tf: tf.data.Dataset.zip(
        {"a": tf.data.Dataset.range(2), "b": (tf.data.Dataset.range(5), tf.data.Dataset.range(3))}),
    "take": lambda tf: tf.data.Dataset.range(10).take(3),
    "take_more": lambda tf: tf.data.Dataset.range(3).take(10),
    "take_all": lambda tf: tf.data.Dataset.range(3).take(-1),
    "skip": lambda tf: tf.data.Dataset.range(10).skip(7),
    "skip_all": lambda tf: tf.data.Dataset.range(10).skip(-1),
    "skip_more": lambda tf: tf.data.Dataset.range(3).skip(5),
    "repeat_count": lambda tf: tf.data.Dataset.range(3).repeat(2),
    "repeat_take": lambda tf: tf.data.Dataset.range(3).repeat().take(7),
    "repeat_zero": lambda tf: tf.data.Dataset.range(3).repeat(0),
    "shard": lambda tf: tf.data.Dataset.range(10).shard(3, 1),
    "cache_repeat": lambda tf: tf.data.Dataset.range(3).map(lambda x: x + 1).cache().repeat(2),
    "prefetch": lambda tf: tf.data.Dataset.range(4).prefetch(tf.data.AUTOTUNE),
    "with_options": lambda tf: tf.data.Dataset.range(3).with_options(tf.data.Options()),
    "shuffle_buffer_1": lambda tf: tf.data.Dataset.range(6).shuffle(1),
    "padded_batch_dict": lambda tf: tf.data.Dataset.range(1, 4).map(
        lambda x: {"seq": tf.range(x), "len": x}).padded_batch(
            2, padded_shapes={"seq": [None], "len": []}, padding_values={"seq": np.int64(-1), "len": np.int64(0)}),
    "map_value_dependent_shape": lambda tf: tf.data.Dataset.range(1, 4).map(lambda x: tf.range(x)),
    "map_nested_output": lambda tf: tf.data.Dataset.range(2).map(
        lambda x: {"pair": (x, x * 3), "flag": x > 0}),
    "from_generator_nested": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([(1, {"v": [1.0, 2.0]}), (2, {"v": [3.0, 4.0]})]),
        output_signature=(tf.TensorSpec((), tf.int32), {"v": tf.TensorSpec((2,), tf.float32)})),
    "enumerate_dict": lambda tf: tf.data.Dataset.from_tensor_slices({"k": [5, 6]}).enumerate(),
    "filter_batches": lambda tf: tf.data.Dataset.range(9).batch(3).filter(
        lambda b: tf.reduce_sum(b) > 5),
    "interleave_wide_cycle": lambda tf: tf.data.Dataset.range(1, 3).interleave(
        lambda x: tf.data.Dataset.range(x * 3), cycle_length=5),
    "window_dict": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}).window(2, shift=1, drop_remainder=True),
    "unbatch_dict": lambda tf: tf.data.Dataset.from_tensors(
        {"a": [[1, 2], [3, 4]], "b": [True, False]}).unbatch(),
    "take_while": lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 4),
    "counter": lambda tf: tf.data.Dataset.counter(3, 2).take(3),
    "choose_stop": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)],
        tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 1, 0, 0], np.int64))),
    "choose_skip_empty": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 12)],
        tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 1, 0, 0], np.int64)),
        stop_on_empty_dataset=False),
    "choose_experimental": lambda tf: tf.data.experimental.choose_from_datasets(
        [tf.data.Dataset.from_tensors([1, 2]), tf.data.Dataset.from_tensors([3, 4, 5])],
        tf.data.Dataset.range(2)),
    "scan": lambda tf: tf.data.Dataset.range(5).scan(
        tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2)),
    "scan_tuple_state": lambda tf: tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0]).scan(
        (0.0, 1.0), lambda s, x: ((s[0] + x, s[1] * x), {"sum": s[0] + x})),
    "unique": lambda tf: tf.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2]).unique(),
    "time_series_windows": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.arange(10, dtype=np.float32)).window(5, shift=1, drop_remainder=True).flat_map(
            lambda w: w.batch(5)).map(lambda w: (w[:-1], w[-1])).batch(2),
    "map_square_images_after_batch": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.ones((4, 3, 3), np.float32)).batch(3).map(lambda x: x * 2.0),
    "map_after_padded_batch": lambda tf: tf.data.Dataset.range(1, 5).map(
        lambda x: tf.fill([x], x)).padded_batch(2).map(lambda b: b[:, :1]),
    "group_by_window": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.array([3, 1, 2, 3, 5, 1, 7, 2, 9], np.int64)).group_by_window(
            key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(5), window_size=2),
    "group_by_window_flush_order": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.array([5, 7, 1, 9, 4, 2], np.int64)).group_by_window(
            key_func=lambda x: 10 - x, reduce_func=lambda k, w: w.map(lambda v: v + k * 100),
            window_size=3),
    "group_by_window_size_func": lambda tf: tf.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(4),
        window_size_func=lambda k: k + 2),
    "bucket_by_length": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1] * n for n in (1, 5, 2, 7, 3, 6, 1, 4)]),
        output_signature=tf.TensorSpec((None,), tf.int32)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], bucket_boundaries=[3, 6], bucket_batch_sizes=[2, 2, 2]),
    "bucket_to_boundary": lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1] * n for n in (1, 4, 2, 5, 3)]),
        output_signature=tf.TensorSpec((None,), tf.int32)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], bucket_boundaries=[3, 6], bucket_batch_sizes=[2, 2, 2],
            pad_to_bucket_boundary=True, padding_values=-1),
    "bucket_no_padding_experimental": lambda tf: tf.data.Dataset.range(9).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.cast(x, tf.int32), bucket_boundaries=[4], bucket_batch_sizes=[3, 2],
            no_padding=True)),
    "pipeline": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(12, dtype=np.float32).reshape(6, 2), np.arange(6))).map(
            lambda x, y: (x * 2.0, y)).filter(lambda x, y: y % 2 == 0).batch(2).repeat(2),
}

# Cardinality-only cases: infinite and unknown counts (no iteration).
CARDINALITY_CASES = {
    "repeat_forever": lambda tf: tf.data.Dataset.range(3).repeat(),
    "repeat_empty_forever": lambda tf: tf.data.Dataset.range(0).repeat(),
    "filter_unknown": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0),
    "filter_repeat": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).repeat(),
    "filter_repeat_2": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).repeat(2),
    "filter_take": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).take(2),
    "filter_take_all": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).take(-1),
    "filter_skip": lambda tf: tf.data.Dataset.range(3).filter(lambda x: x > 0).skip(1),
    "infinite_take": lambda tf: tf.data.Dataset.range(3).repeat().take(5),
    "infinite_skip": lambda tf: tf.data.Dataset.range(3).repeat().skip(5),
    "infinite_batch": lambda tf: tf.data.Dataset.range(3).repeat().batch(2),
    "infinite_unbatch": lambda tf: tf.data.Dataset.range(4).batch(2, drop_remainder=True).repeat().unbatch(),
    "unknown_batch_unbatch": lambda tf: tf.data.Dataset.range(5).batch(2).unbatch(),
    "static_unbatch": lambda tf: tf.data.Dataset.range(6).batch(2, drop_remainder=True).unbatch(),
    "zip_infinite_finite": lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(4))),
    "zip_infinite_unknown": lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(4).filter(lambda x: x > 0))),
    "zip_infinite": lambda tf: tf.data.Dataset.zip(
        (tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(4).repeat())),
    "concat_infinite_unknown": lambda tf: tf.data.Dataset.range(3).repeat().concatenate(
        tf.data.Dataset.range(4).filter(lambda x: x > 0)),
    "concat_unknown_infinite": lambda tf: tf.data.Dataset.range(4).filter(
        lambda x: x > 0).concatenate(tf.data.Dataset.range(3).repeat()),
    "concat_unknown": lambda tf: tf.data.Dataset.range(4).concatenate(
        tf.data.Dataset.range(4).filter(lambda x: x > 0)),
    "flat_map_unknown": lambda tf: tf.data.Dataset.range(3).flat_map(
        lambda x: tf.data.Dataset.range(x)),
    "interleave_unknown": lambda tf: tf.data.Dataset.range(3).interleave(
        lambda x: tf.data.Dataset.range(x), cycle_length=2),
    "generator_unknown": lambda tf: tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec((None,), tf.int32)),
    "window_drop_counts": lambda tf: tf.data.Dataset.range(11).window(4, shift=3, stride=2,
                                                                      drop_remainder=True),
    "window_counts": lambda tf: tf.data.Dataset.range(11).window(4, shift=3, stride=2),
    "window_infinite": lambda tf: tf.data.Dataset.range(3).repeat().window(2),
    "shard_counts": lambda tf: tf.data.Dataset.range(11).shard(4, 3),
    "shuffle_keeps": lambda tf: tf.data.Dataset.range(7).shuffle(3),
    "map_keeps": lambda tf: tf.data.Dataset.range(7).map(lambda x: x),
    "enumerate_infinite": lambda tf: tf.data.Dataset.range(2).repeat().enumerate(),
    "sample_finite": lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(4)], seed=1),
    "sample_infinite": lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(4).repeat()], seed=1),
    "sample_mixed": lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3).repeat(), tf.data.Dataset.range(4)], seed=1),
    "take_below_minus_one": lambda tf: tf.data.Dataset.range(5).take(-2),
    "padded_batch_infinite": lambda tf: tf.data.Dataset.range(2).repeat().padded_batch(2),
}


def _iterate(ds):
    return list(ds)


ERROR_CASES = {
    "batch_ragged": lambda tf: _iterate(tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec((None,), tf.int32)).batch(2)),
    "batch_zero": lambda tf: tf.data.Dataset.range(3).batch(0),
    "unbatch_scalar": lambda tf: tf.data.Dataset.range(3).unbatch(),
    "filter_not_bool": lambda tf: _iterate(tf.data.Dataset.range(3).filter(lambda x: x)),
    "reduce_dtype_change": lambda tf: tf.data.Dataset.range(3).reduce(
        np.int64(0), lambda s, x: tf.cast(s + x, tf.int32)),
    "len_infinite": lambda tf: len(tf.data.Dataset.range(3).repeat()),
    "len_unknown": lambda tf: len(tf.data.Dataset.range(3).filter(lambda x: x > 0)),
    "slices_scalar": lambda tf: tf.data.Dataset.from_tensor_slices(3),
    "slices_mismatch": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3])),
    "generator_bad_shape": lambda tf: _iterate(tf.data.Dataset.from_generator(
        lambda: iter([[1, 2, 3]]), output_signature=tf.TensorSpec((2,), tf.int32))),
    "generator_bad_structure": lambda tf: _iterate(tf.data.Dataset.from_generator(
        lambda: iter([1]), output_signature=(tf.TensorSpec((), tf.int32),
                                             tf.TensorSpec((), tf.int32)))),
    "generator_bad_type": lambda tf: _iterate(tf.data.Dataset.from_generator(
        lambda: iter([[[1]]]), output_signature=tf.TensorSpec((None,), tf.int32))),
    "padded_too_small": lambda tf: _iterate(tf.data.Dataset.from_generator(
        _gen_ragged, output_signature=tf.TensorSpec((None,), tf.int32)).padded_batch(
            3, padded_shapes=[2])),
    "concatenate_dtypes": lambda tf: tf.data.Dataset.range(3).concatenate(
        tf.data.Dataset.from_tensor_slices([1.0])),
    "zip_list": lambda tf: tf.data.Dataset.zip([tf.data.Dataset.range(2)]),
    "options_unknown": lambda tf: setattr(tf.data.Options(), "not_an_option", 1),
    "options_frozen": lambda tf: setattr(tf.data.Dataset.range(1).options(), "deterministic",
                                         True),
    "options_type": lambda tf: setattr(tf.data.Options(), "deterministic", 3),
    "get_next_end": lambda tf: [it.get_next() for it in [iter(tf.data.Dataset.range(1))]
                                for _ in range(2)],
    "padding_value_dtype": lambda tf: _iterate(tf.data.Dataset.range(1, 3).map(
        lambda x: tf.range(x)).padded_batch(2, padding_values=-1)),
    "padding_value_dtype_static": lambda tf: tf.data.Dataset.from_tensors(
        tf.constant([1, 2], tf.int64)).padded_batch(2, padding_values=-1),
    "choose_out_of_range": lambda tf: _iterate(tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3)], tf.data.Dataset.from_tensors(np.int64(5)))),
    "choose_bad_dtype": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(3)], tf.data.Dataset.from_tensors(1)),
    "bucket_length_int64": lambda tf: _iterate(tf.data.Dataset.range(3).bucket_by_sequence_length(
        lambda x: x, bucket_boundaries=[2], bucket_batch_sizes=[1, 1])),
    "shuffle_zero": lambda tf: tf.data.Dataset.range(3).shuffle(0),
    "prefetch_negative": lambda tf: tf.data.Dataset.range(3).prefetch(-5),
    "shard_zero": lambda tf: tf.data.Dataset.range(3).shard(0, 0),
    "interleave_cycle_zero": lambda tf: tf.data.Dataset.range(3).interleave(
        lambda x: tf.data.Dataset.range(x), cycle_length=0),
    "range_step_zero": lambda tf: tf.data.Dataset.range(3, 1, 0),
    "window_zero": lambda tf: tf.data.Dataset.range(3).window(0),
    "shard_index": lambda tf: tf.data.Dataset.range(3).shard(2, 2),
    "assert_cardinality": lambda tf: _iterate(tf.data.Dataset.range(3).apply(
        tf.data.experimental.assert_cardinality(5))),
}

# reduce(initial_state, fn) results.
REDUCE_CASES = {
    "sum": lambda tf: tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x),
    "count_tuple_state": lambda tf: tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).reduce(
        (0, 0), lambda s, e: (s[0] + e[0], s[1] + e[1])),
    "float_state": lambda tf: tf.data.Dataset.from_tensor_slices([0.5, 1.5]).reduce(
        0.0, lambda s, x: s + x),
    "empty": lambda tf: tf.data.Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x),
}


def _with_policy(tf, ds, policy):
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = getattr(
        tf.data.experimental.AutoShardPolicy, policy)
    return ds.with_options(options)


# strategy.experimental_distribute_dataset(ds) over three replicas (logical CPUs).
DISTRIBUTE_CASES = {
    "range_batch7": lambda tf: tf.data.Dataset.range(14).batch(7),
    "range_batch6_drop": lambda tf: tf.data.Dataset.range(12).batch(6, drop_remainder=True),
    "range_batch7_drop": lambda tf: tf.data.Dataset.range(14).batch(7, drop_remainder=True),
    "uneven_tail": lambda tf: tf.data.Dataset.range(8).batch(5),
    "policy_off": lambda tf: _with_policy(tf, tf.data.Dataset.range(14).batch(7), "OFF"),
    "policy_data": lambda tf: _with_policy(tf, tf.data.Dataset.range(14).batch(7), "DATA"),
    "policy_file": lambda tf: _with_policy(tf, tf.data.Dataset.range(14).batch(7), "FILE"),
    "off_short_last_batch": lambda tf: _with_policy(tf, tf.data.Dataset.range(12).batch(7), "OFF"),
    "off_map_after_batch": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(13).batch(7).map(lambda x: x + 0), "OFF"),
    "off_through_repeat_take": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(12).batch(7).repeat(2).take(3), "OFF"),
    "off_through_prefetch_shuffle": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(12).batch(7).shuffle(1).prefetch(1), "OFF"),
    "off_through_filter": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(12).batch(7).filter(lambda b: tf.size(b) > 0), "OFF"),
    "off_padded_batch": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(1, 6).map(lambda x: tf.fill([x], x)).padded_batch(4), "OFF"),
    "off_unbatch_rebatch": lambda tf: _with_policy(
        tf, tf.data.Dataset.range(14).batch(7).unbatch().batch(4), "OFF"),
    "dict_map": lambda tf: tf.data.Dataset.from_tensor_slices(
        {"x": np.arange(12, dtype=np.float32).reshape(6, 2), "y": np.arange(6)}).batch(6).map(
            lambda d: {"x": d["x"] * 2.0, "y": d["y"]}),
}

# strategy.distribute_datasets_from_function(lambda ctx: ds) over three replicas.
FROM_FUNCTION_CASES = {
    "static_partial_dropped": lambda tf: tf.data.Dataset.range(10).batch(2, drop_remainder=True),
    "dynamic_partial_empty": lambda tf: tf.data.Dataset.range(10).batch(2),
    "dynamic_divides": lambda tf: tf.data.Dataset.range(12).batch(2),
}

# The per-worker streams of an unsharded (OFF) dataset over 2 workers x 2 replicas, as TF's
# input_lib builds them (`_make_rebatch_fn`: rebatch by `batch_sizes_for_worker` when the batch
# size is static, else the legacy rebatch), recorded without a cluster.
MULTI_WORKER_OFF_CASES = {
    "static_batch": lambda tf: tf.data.Dataset.range(12).batch(7),
    "map_after_batch": lambda tf: tf.data.Dataset.range(12).batch(7).map(lambda x: x + 0),
}
