"""Golden cases for tf.random's extra ops and Generator: dtypes, shapes and errors (values=False:
the streams are tfcompat's own, not TF's Philox)."""

import numpy as np

from tests.ops.golden.harness import Case


def shape_only(fn):
    return Case(fn, values=False)


def _gen(tf):
    return tf.random.Generator.from_seed(1)


CASES = {
    # -- stateless
    "stateless_normal": shape_only(lambda tf: tf.random.stateless_normal([2, 3], seed=[1, 2])),
    "stateless_normal_f64": shape_only(lambda tf: tf.random.stateless_normal(
        [2], seed=tf.constant([1, 2], tf.int64), dtype=tf.float64)),
    "stateless_normal_f16_moments": shape_only(lambda tf: tf.random.stateless_normal(
        [3], seed=[1, 2], mean=1.0, stddev=[1.0, 2.0, 3.0], dtype=tf.float16)),
    "stateless_seed_3": lambda tf: tf.random.stateless_normal([2], seed=[1, 2, 3]),
    "stateless_seed_scalar": lambda tf: tf.random.stateless_normal([2], seed=1),
    "stateless_seed_matrix": lambda tf: tf.random.stateless_normal([2], seed=[[1, 2]]),
    "stateless_seed_float": lambda tf: tf.random.stateless_normal([2], seed=[1.0, 2.0]),
    "stateless_seed_int16": lambda tf: tf.random.stateless_normal(
        [2], seed=tf.constant([1, 2], tf.int16)),
    "stateless_uniform": shape_only(lambda tf: tf.random.stateless_uniform([4], seed=[1, 2])),
    "stateless_uniform_bf16": shape_only(lambda tf: tf.random.stateless_uniform(
        [4], seed=[1, 2], dtype=tf.bfloat16)),
    "stateless_uniform_int": shape_only(lambda tf: tf.random.stateless_uniform(
        [2, 2], seed=[1, 2], minval=0, maxval=10, dtype=tf.int64)),
    "stateless_uniform_full_int": shape_only(lambda tf: tf.random.stateless_uniform(
        [3], seed=[1, 2], minval=None, maxval=None, dtype=tf.int32)),
    "stateless_uniform_int_no_max": lambda tf: tf.random.stateless_uniform([2], seed=[1, 2],
                                                                           dtype=tf.int32),
    "stateless_uniform_int_empty_range": lambda tf: tf.random.stateless_uniform(
        [2], seed=[1, 2], minval=5, maxval=1, dtype=tf.int32),
    "stateless_uniform_uint8": lambda tf: tf.random.stateless_uniform([2], seed=[1, 2],
                                                                      dtype=tf.uint8),
    "stateless_truncated": shape_only(lambda tf: tf.random.stateless_truncated_normal(
        [5], seed=[3, 4], dtype=tf.float64)),
    "stateless_truncated_int": lambda tf: tf.random.stateless_truncated_normal(
        [2], seed=[1, 2], dtype=tf.int32),
    "stateless_categorical": shape_only(lambda tf: tf.random.stateless_categorical(
        np.log([[0.5, 0.5], [0.1, 0.9]]).astype(np.float32), 5, seed=[1, 2])),
    "stateless_categorical_int32": shape_only(lambda tf: tf.random.stateless_categorical(
        [[1.0, 2.0]], 3, seed=[1, 2], dtype=tf.int32)),
    "stateless_categorical_vector": lambda tf: tf.random.stateless_categorical([0.5, 0.5], 5,
                                                                               seed=[1, 2]),
    # -- seeded samplers
    "categorical": shape_only(lambda tf: tf.random.categorical([[0.0, 1.0, 2.0]], 4, seed=1)),
    "categorical_int32": shape_only(lambda tf: tf.random.categorical([[0.0, 1.0]], 2,
                                                                      dtype=tf.int32)),
    "categorical_f64": shape_only(lambda tf: tf.random.categorical(
        np.zeros((2, 3)), 0)),
    "categorical_float_dtype": lambda tf: tf.random.categorical([[1.0, 2]], 5, dtype=tf.float32),
    "categorical_negative": lambda tf: tf.random.categorical([[1.0, 2]], -1),
    "categorical_no_classes": lambda tf: tf.random.categorical(tf.zeros([2, 0]), 3),
    "shuffle": shape_only(lambda tf: tf.random.shuffle([[1, 2], [3, 4], [5, 6]], seed=1)),
    "shuffle_scalar": lambda tf: tf.random.shuffle(1),
    "gamma": shape_only(lambda tf: tf.random.gamma([3], alpha=[1.0, 2.0], beta=[[1.0], [2.0]])),
    "gamma_f16": shape_only(lambda tf: tf.random.gamma([2], alpha=1.0, dtype=tf.float16)),
    "gamma_f64_scalar": shape_only(lambda tf: tf.random.gamma([2, 1], alpha=0.5,
                                                              dtype=tf.float64, seed=3)),
    "gamma_int": lambda tf: tf.random.gamma([3], alpha=1.0, dtype=tf.int32),
    "poisson": shape_only(lambda tf: tf.random.poisson([3], lam=[1.0, 2.0])),
    "poisson_int": shape_only(lambda tf: tf.random.poisson([3], lam=[1.0, 2.0], dtype=tf.int32)),
    "poisson_int_lam": shape_only(lambda tf: tf.random.poisson([3], lam=[1, 2])),
    "poisson_bool": lambda tf: tf.random.poisson([3], lam=[1.0, 2.0], dtype=tf.bool),
    "index_shuffle": shape_only(lambda tf: tf.random.experimental.index_shuffle(
        3, seed=[1, 2], max_index=9)),
    "index_shuffle_vector_int64": shape_only(lambda tf: tf.random.experimental.index_shuffle(
        tf.constant([1, 2], tf.int64), seed=[1, 2], max_index=9)),
    "index_shuffle_seed_3": lambda tf: tf.random.experimental.index_shuffle(
        3, seed=[1, 2, 3], max_index=9),
    # -- Generator
    "gen_state": lambda tf: [_gen(tf).state.dtype, _gen(tf).state.shape, _gen(tf).algorithm,
                             _gen(tf).state.trainable],
    "gen_threefry": lambda tf: [tf.random.Generator.from_seed(1, alg="threefry").algorithm,
                                tf.random.Generator.from_seed(1, "threefry").state.shape],
    "gen_bad_alg": lambda tf: tf.random.Generator.from_seed(1, alg="foo"),
    "gen_from_state": lambda tf: tf.random.Generator.from_state([1, 2, 3], alg="philox").state,
    "gen_from_state_bad": lambda tf: tf.random.Generator.from_state([1, 2], alg="philox"),
    "gen_nondeterministic": lambda tf: tf.random.Generator.from_non_deterministic_state()
    .state.shape,
    "gen_normal": shape_only(lambda tf: _gen(tf).normal([2, 3])),
    "gen_normal_int": lambda tf: _gen(tf).normal([2], dtype=tf.int32),
    "gen_uniform": shape_only(lambda tf: _gen(tf).uniform([4], minval=-1.0, maxval=[1.0] * 4)),
    "gen_uniform_int": shape_only(lambda tf: _gen(tf).uniform([2], 1, 5, dtype=tf.int64)),
    "gen_uniform_int_no_max": lambda tf: _gen(tf).uniform([2], dtype=tf.int32),
    "gen_uniform_full": shape_only(lambda tf: _gen(tf).uniform([2], minval=None, maxval=None,
                                                               dtype=tf.int32)),
    "gen_uniform_float_none": lambda tf: _gen(tf).uniform([2], minval=None, maxval=None),
    "gen_full_int": shape_only(lambda tf: _gen(tf).uniform_full_int([2], dtype=tf.int64)),
    "gen_full_int_float": lambda tf: _gen(tf).uniform_full_int([2], dtype=tf.float32),
    "gen_truncated": shape_only(lambda tf: _gen(tf).truncated_normal([3], dtype=tf.float64)),
    "gen_binomial": shape_only(lambda tf: _gen(tf).binomial([2], counts=5.0, probs=0.5)),
    "gen_make_seeds": shape_only(lambda tf: _gen(tf).make_seeds(3)),
    "gen_make_seeds_default": shape_only(lambda tf: _gen(tf).make_seeds()),
    "gen_split": lambda tf: [type(g).__name__ for g in _gen(tf).split(2)] + [_gen(tf).split(0)],
    "algorithm_enum": lambda tf: [tf.random.Algorithm.PHILOX.value,
                                  tf.random.Algorithm.THREEFRY.value],
    "experimental_aliases": lambda tf: [tf.random.experimental.Generator is tf.random.Generator,
                                        tf.random.experimental.get_global_generator()
                                        is tf.random.get_global_generator()],
}

CASES.update({
    "split": shape_only(lambda tf: tf.random.split([1, 2])),
    "split_3_int64": shape_only(lambda tf: tf.random.split(tf.constant([1, 2], tf.int64), 3)),
    "fold_in": shape_only(lambda tf: tf.random.fold_in([1, 2], 3)),
    "fold_in_int64_seed": shape_only(lambda tf: tf.random.fold_in(tf.constant([1, 2], tf.int64),
                                                                  3)),
    "fold_in_bad_seed": lambda tf: tf.random.fold_in([1, 2, 3], 3),
    "experimental_split": shape_only(lambda tf: tf.random.experimental.stateless_split([1, 2], 2)),
    "experimental_fold_in": shape_only(lambda tf: tf.random.experimental.stateless_fold_in([1, 2],
                                                                                           2)),
    "stateless_binomial": shape_only(lambda tf: tf.random.stateless_binomial(
        [2], [1, 2], counts=5.0, probs=0.5)),
    "stateless_binomial_f32": shape_only(lambda tf: tf.random.stateless_binomial(
        [2], [1, 2], counts=[5.0, 6], probs=0.5, output_dtype=tf.float32)),
    "stateless_gamma_bad_shape": lambda tf: tf.random.stateless_gamma([3], [1, 2],
                                                                      alpha=[1.0, 2.0]),
    "stateless_gamma": shape_only(lambda tf: tf.random.stateless_gamma([3, 2], [1, 2],
                                                                       alpha=[1.0, 2.0], beta=2.0)),
    "stateless_gamma_f64": shape_only(lambda tf: tf.random.stateless_gamma(
        [3, 2], [1, 2], alpha=1.0, dtype=tf.float64)),
    "stateless_gamma_int": lambda tf: tf.random.stateless_gamma([2], [1, 2], alpha=1.0,
                                                                dtype=tf.int32),
    "stateless_poisson": shape_only(lambda tf: tf.random.stateless_poisson([3, 2], [1, 2],
                                                                           lam=[1.0, 2.0])),
    "stateless_poisson_f32": shape_only(lambda tf: tf.random.stateless_poisson(
        [3, 2], [1, 2], lam=[1.0, 2.0], dtype=tf.float32)),
    "stateless_poisson_bad_shape": lambda tf: tf.random.stateless_poisson([3], [1, 2],
                                                                          lam=[1.0, 2.0]),
})


def _checkpoint_keys(tf):
    import os
    import tempfile
    g = tf.random.Generator.from_seed(3)
    with tempfile.TemporaryDirectory() as d:
        path = tf.train.Checkpoint(gen=g).write(os.path.join(d, "ck"))
        return [[name, shape] for name, shape in tf.train.list_variables(path)]


CASES["gen_checkpoint_keys"] = _checkpoint_keys

CASES.update({
    "categorical_int_logits": lambda tf: tf.random.categorical([[1, 2]], 5),
    "stateless_categorical_int_logits": lambda tf: tf.random.stateless_categorical(
        [[1, 2]], 5, seed=[1, 2]),
    "categorical_f16": shape_only(lambda tf: tf.random.categorical(
        tf.constant([[1.0, 2]], tf.float16), 5)),
    "categorical_bf16": shape_only(lambda tf: tf.random.stateless_categorical(
        tf.constant([[1.0, 2]], tf.bfloat16), 5, seed=[1, 2])),
    "categorical_minus_inf": lambda tf: tf.random.categorical([[-np.inf, 0.0]], 5, seed=1),
    "categorical_all_minus_inf": lambda tf: tf.random.categorical([[-np.inf, -np.inf]], 3,
                                                                  seed=1),
    "gamma_bf16": lambda tf: tf.random.gamma([2], alpha=tf.constant([1.0], tf.bfloat16),
                                             dtype=tf.bfloat16),
    "shuffle_variable": shape_only(lambda tf: tf.random.shuffle(tf.Variable([1, 2, 3]), seed=1)),
    "stateless_normal_int": lambda tf: tf.random.stateless_normal([2], seed=[1, 2],
                                                                  dtype=tf.int32),
    "stateless_normal_negative_dim": lambda tf: tf.random.stateless_normal([-1], seed=[1, 2]),
    "stateless_normal_float_shape": lambda tf: tf.random.stateless_normal([2.5], seed=[1, 2]),
    "gen_negative_dim": lambda tf: tf.random.Generator.from_seed(1).normal([-1]),
})

_PTN = "stateless_parameterized_truncated_normal"
CASES.update({
    "stateless_shuffle": shape_only(lambda tf: tf.random.experimental.stateless_shuffle(
        [[1, 2], [3, 4], [5, 6]], seed=[1, 2])),
    "stateless_shuffle_scalar": lambda tf: tf.random.experimental.stateless_shuffle(1, seed=[1, 2]),
    "ptn_default": shape_only(lambda tf: getattr(tf.random, _PTN)([3], [1, 2])),
    "ptn_broadcast": shape_only(lambda tf: getattr(tf.random, _PTN)([2, 3], [1, 2],
                                                                   means=[0.0, 1, 2])),
    "ptn_f64": shape_only(lambda tf: getattr(tf.random, _PTN)(
        [3], [1, 2], means=tf.constant([0.0], tf.float64), stddevs=tf.constant(1.0, tf.float64),
        minvals=tf.constant(-1.0, tf.float64), maxvals=tf.constant(1.0, tf.float64))),
    "ptn_mixed_dtypes": lambda tf: getattr(tf.random, _PTN)([3], [1, 2],
                                                            means=tf.constant([0.0], tf.float64)),
    "ptn_int": lambda tf: getattr(tf.random, _PTN)([3], [1, 2], means=[0, 1]),
    "ptn_empty_range": lambda tf: getattr(tf.random, _PTN)([3], [1, 2], minvals=1.0, maxvals=0.0),
})
