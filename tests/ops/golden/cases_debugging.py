"""Golden cases for `tf.debugging`: assertions' results, error classes and TF's full messages."""

import numpy as np

from tests.ops.golden.harness import Case


def full(fn):
    """The error as (class, whole message): TF's eager assertions build multi-line messages."""
    def run(tf):
        try:
            return ["returned", fn(tf)]
        except Exception as e:  # noqa: BLE001 - the class and text are what is recorded
            return [type(e).__name__, str(e)]
    return run


def msg(fn):
    return Case(fn, match_message=True)


A = np.array([1, 2, 3], np.int32)
B = np.array([1, 2, 4], np.int32)
F = np.array([1.0, 2.0], np.float32)

CASES = {
    # -- binary comparisons
    "equal_ok": lambda tf: [tf.debugging.assert_equal(A, A)],
    "equal_fail": full(lambda tf: tf.debugging.assert_equal(tf.constant(A), tf.constant(B))),
    "equal_message_summarize": full(lambda tf: tf.debugging.assert_equal(
        tf.constant(A), 1, message="hi", summarize=1)),
    "equal_many": full(lambda tf: tf.debugging.assert_equal(tf.constant(np.arange(20)),
                                                            tf.constant(np.arange(20)) + 1)),
    "equal_float": full(lambda tf: tf.debugging.assert_equal(tf.constant([1.5, 2.0]),
                                                             tf.constant([1.5, 3.0]))),
    "equal_bool": full(lambda tf: tf.debugging.assert_equal(tf.constant([True]),
                                                            tf.constant([False]))),
    "equal_broadcast": full(lambda tf: tf.debugging.assert_equal(tf.constant([[1, 2], [3, 4]]),
                                                                 tf.constant([1, 2]))),
    "equal_summarize_zero": full(lambda tf: tf.debugging.assert_equal(A, B, summarize=0)),
    "equal_summarize_all": full(lambda tf: tf.debugging.assert_equal(
        tf.constant(np.arange(6)), tf.constant(np.zeros(6, np.int64)), summarize=-1)),
    "equal_shapes": lambda tf: tf.debugging.assert_equal(tf.constant(A), tf.constant([1, 2])),
    "equal_dtypes": lambda tf: tf.debugging.assert_equal(tf.constant(A), tf.constant([1., 2, 3])),
    "equal_variable": full(lambda tf: tf.debugging.assert_equal(tf.Variable([1, 2]), [1, 3])),
    "equal_top_level": full(lambda tf: tf.assert_equal(tf.constant(1.0), 2.0)),
    "less_fail": full(lambda tf: tf.debugging.assert_less(tf.constant(A), tf.constant([2, 2, 4]))),
    "less_ok": lambda tf: [tf.assert_less(tf.constant([1.0, 2.0]), 5.0)],
    "less_2d": full(lambda tf: tf.debugging.assert_less(tf.constant([[1, 2], [3, 4]]),
                                                        tf.constant([[1, 2], [3, 4]]), summarize=2)),
    "less_bool": lambda tf: tf.debugging.assert_less(tf.constant([True]), tf.constant([False])),
    "greater_message": full(lambda tf: tf.assert_greater(tf.constant(A), tf.constant([0, 2, 4]),
                                                         message="msg")),
    "less_equal_fail": full(lambda tf: tf.debugging.assert_less_equal(A, np.array([0, 2, 4],
                                                                              np.int32))),
    "greater_equal_fail": full(lambda tf: tf.debugging.assert_greater_equal(
        A, np.array([0, 2, 4], np.int32))),
    "none_equal_fail": full(lambda tf: tf.debugging.assert_none_equal(A, np.array([0, 2, 4],
                                                                              np.int32))),
    "equal_f16": full(lambda tf: tf.debugging.assert_equal(
        tf.constant([1.5, 2.25], tf.float16), tf.constant([1.5, 2.0], tf.float16))),
    # -- unary sign checks
    "positive_fail": full(lambda tf: tf.debugging.assert_positive(tf.constant([1, 0, 3]))),
    "positive_ok": lambda tf: [tf.debugging.assert_positive([1.0, 2.0])],
    "non_negative_fail": full(lambda tf: tf.debugging.assert_non_negative(tf.constant([1, -1, 3]))),
    "negative_fail": full(lambda tf: tf.debugging.assert_negative(tf.constant([1.5, -1.0]),
                                                                  message="m")),
    "non_positive_fail": full(lambda tf: tf.debugging.assert_non_positive(tf.constant([1, -1, 3]))),
    "positive_long": full(lambda tf: tf.debugging.assert_positive(tf.constant(np.arange(8) - 2))),
    "positive_scalar": full(lambda tf: tf.debugging.assert_positive(tf.constant(-2.5))),
    # -- near
    "near_ok_f16": lambda tf: [tf.debugging.assert_near(tf.constant([1.0, 2.0], tf.float16),
                                                        tf.constant([1.0, 2.001], tf.float16))],
    "near_fail": full(lambda tf: tf.debugging.assert_near(tf.constant(F), tf.constant([1.0, 2.1]))),
    "near_fail_f64": full(lambda tf: tf.debugging.assert_near(
        tf.constant(F, tf.float64), tf.constant([1.0, 2.0000001], tf.float64))),
    "near_rtol": lambda tf: [tf.debugging.assert_near(F, np.array([1.0, 2.5], np.float32),
                                                      rtol=0.3)],
    "near_atol_fail": full(lambda tf: tf.debugging.assert_near(
        F, np.array([1.0, 2.5], np.float32), atol=0.1, message="close")),
    "near_int": lambda tf: tf.debugging.assert_near(tf.constant([1, 2]), tf.constant([1, 3])),
    # -- ranks
    "rank_ok": lambda tf: [tf.debugging.assert_rank(tf.constant([1, 2]), 1)],
    "rank_fail": msg(lambda tf: tf.debugging.assert_rank(tf.constant([1, 2]), 2)),
    "rank_fail_message": msg(lambda tf: tf.assert_rank(tf.constant([1, 2]), 2, message="m")),
    "rank_tensor": msg(lambda tf: tf.debugging.assert_rank(tf.constant([1, 2]), tf.constant(2))),
    "rank_vector": msg(lambda tf: tf.debugging.assert_rank(tf.constant([1, 2]), [1])),
    "rank_int64": msg(lambda tf: tf.debugging.assert_rank(tf.constant([1, 2]),
                                                          tf.constant(1, tf.int64))),
    "rank_at_least_fail": msg(lambda tf: tf.debugging.assert_rank_at_least(tf.constant([1, 2]), 2)),
    "rank_at_least_ok": lambda tf: [tf.debugging.assert_rank_at_least(tf.constant([1, 2]), 0)],
    "rank_in_fail": msg(lambda tf: tf.debugging.assert_rank_in(tf.constant([1, 2]), [0, 2])),
    "rank_in_ok": lambda tf: [tf.debugging.assert_rank_in(tf.constant([1, 2]), [0, 1])],
    # -- shapes
    "shapes_ok": lambda tf: [tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("N", "D")),
                                                         (tf.constant([1, 2]), ("D",))])],
    "shapes_symbol": msg(lambda tf: tf.debugging.assert_shapes(
        [(tf.constant([[1, 2]]), ("N", "D")), (tf.constant([1, 2, 3]), ("D",))])),
    "shapes_int_ok": lambda tf: [tf.debugging.assert_shapes([(tf.constant([[1, 2]]), (1, 2))])],
    "shapes_int_fail": msg(lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]),
                                                                   (1, 3))])),
    "shapes_rank": msg(lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("N",))])),
    "shapes_none": lambda tf: [tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("N", None))])],
    "shapes_dot": lambda tf: [tf.debugging.assert_shapes([(tf.constant([[1, 2]]), (".", 2))])],
    "shapes_star": msg(lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ("*",))])),
    "shapes_star_ok": lambda tf: [tf.debugging.assert_shapes(
        [(tf.constant(np.zeros((2, 3, 4))), ("*", "B", 4)), (tf.constant([1, 2, 3]), ("B",))])],
    "shapes_star_fail": msg(lambda tf: tf.debugging.assert_shapes(
        [(tf.constant(np.zeros((2, 3, 4))), ("*", "B", 4)), (tf.constant([1, 2]), ("B",))])),
    "shapes_star_late": msg(lambda tf: tf.debugging.assert_shapes(
        [(tf.constant(np.zeros((2, 3))), ("N", "*"))])),
    "shapes_ellipsis_rank": msg(lambda tf: tf.debugging.assert_shapes(
        [(tf.constant([1, 2]), (..., "A", "B"))])),
    "shapes_scalar_spec": msg(lambda tf: tf.debugging.assert_shapes([(tf.constant([[1, 2]]), ())])),
    "shapes_scalar_ok": lambda tf: [tf.debugging.assert_shapes([(tf.constant(1), ())])],
    "shapes_scalar_vs_vector": lambda tf: [tf.debugging.assert_shapes([(tf.constant(1.0), ("N",))])],
    "shapes_dict": lambda tf: [tf.debugging.assert_shapes({"x": None})],
    "shapes_not_iterable": msg(lambda tf: tf.debugging.assert_shapes([(tf.constant([1]), 3)])),
    "shapes_string_int": lambda tf: [tf.debugging.assert_shapes([(tf.constant([1, 2]), ("2",))])],
    "shapes_message": msg(lambda tf: tf.debugging.assert_shapes(
        [(tf.constant([[1, 2]]), (1, 3))], message="bad")),
    # -- numerics
    "check_numerics_inf": msg(lambda tf: tf.debugging.check_numerics(tf.constant([1.0, np.inf]),
                                                                      "bad")),
    "check_numerics_nan": msg(lambda tf: tf.debugging.check_numerics(tf.constant([1.0, np.nan]),
                                                                      "bad")),
    "check_numerics_both": msg(lambda tf: tf.debugging.check_numerics(
        tf.constant([1.0, -np.inf, np.nan]), "bad")),
    "check_numerics_ok": Case(lambda tf: tf.debugging.check_numerics(tf.constant(F), "bad"),
                              ulps=0),
    "check_numerics_f16": Case(lambda tf: tf.debugging.check_numerics(
        tf.constant(F, tf.float16), "x"), ulps=0),
    "check_numerics_bf16_nan": msg(lambda tf: tf.debugging.check_numerics(
        tf.constant([np.nan], tf.bfloat16), "y")),
    "check_numerics_int": msg(lambda tf: tf.debugging.check_numerics(tf.constant([1, 2]), "bad")),
    "all_finite_inf": msg(lambda tf: tf.debugging.assert_all_finite(tf.constant([1.0, np.inf]),
                                                                     "bad")),
    "all_finite_ok": Case(lambda tf: tf.debugging.assert_all_finite(tf.constant(F, tf.float64),
                                                                     "ok"), ulps=0),
    "all_finite_variable": Case(lambda tf: tf.debugging.assert_all_finite(tf.Variable(F), "v"),
                                ulps=0),
    # -- types
    "type_ok": lambda tf: [tf.debugging.assert_type(tf.constant(F), tf.float32)],
    "type_fail": msg(lambda tf: tf.debugging.assert_type(tf.constant(F), tf.int32)),
    "type_message": msg(lambda tf: tf.debugging.assert_type(tf.constant(F), tf.int32, message="m")),
    "type_python": lambda tf: [tf.debugging.assert_type([1.0, 2.0], tf.float32)],
    "integer_fail": msg(lambda tf: tf.debugging.assert_integer(tf.constant(F))),
    "integer_ok": lambda tf: [tf.debugging.assert_integer(tf.constant([1, 2]))],
    "scalar_fail": msg(lambda tf: tf.debugging.assert_scalar(tf.constant([1, 2]))),
    "scalar_ok": lambda tf: [tf.debugging.assert_scalar(tf.constant(1))],
    "is_numeric": lambda tf: [tf.debugging.is_numeric_tensor(tf.constant(F)),
                              tf.debugging.is_numeric_tensor(1.0),
                              tf.debugging.is_numeric_tensor(tf.Variable(1.0)),
                              tf.debugging.is_numeric_tensor(tf.constant(True)),
                              tf.debugging.is_numeric_tensor(tf.constant([1], tf.uint8)),
                              tf.debugging.is_numeric_tensor(tf.constant([1j]))],
    # -- Assert
    "Assert_false": full(lambda tf: tf.debugging.Assert(False, ["x", tf.constant([1, 2])])),
    "Assert_tensor": full(lambda tf: tf.Assert(tf.constant(False),
                                               ["long", tf.constant(np.arange(5.0)), 7])),
    "Assert_summarize": full(lambda tf: tf.Assert(tf.constant(False), [tf.constant([1, 2, 3])],
                                                  summarize=1)),
    "Assert_true": lambda tf: [tf.debugging.Assert(tf.constant(True), ["x"])],
}

CASES.update({
    "proper_iterable_list": lambda tf: [tf.debugging.assert_proper_iterable([1, 2])],
    "proper_iterable_generator": lambda tf: [tf.debugging.assert_proper_iterable(
        x for x in [1])],
    "proper_iterable_str": msg(lambda tf: tf.debugging.assert_proper_iterable("ab")),
    "proper_iterable_bytes": msg(lambda tf: tf.debugging.assert_proper_iterable(b"ab")),
    "proper_iterable_array": msg(lambda tf: tf.debugging.assert_proper_iterable(np.array([1]))),
    "proper_iterable_int": msg(lambda tf: tf.debugging.assert_proper_iterable(5)),
    "proper_iterable_tensor": lambda tf: tf.debugging.assert_proper_iterable(tf.constant([1])),
    "same_float": lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1.0),
                                                                   tf.constant(2.0)]),
    "same_float_mismatch": msg(lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant(1.0), tf.constant(2.0, tf.float64)])),
    "same_float_int": msg(lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1)])),
    "same_float_dtype_mismatch": msg(lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant(1.0)], tf.float64)),
    "same_float_only_dtype": lambda tf: tf.debugging.assert_same_float_dtype(None, tf.float64),
    "same_float_nothing": lambda tf: tf.debugging.assert_same_float_dtype(),
    "same_float_bf16": lambda tf: tf.debugging.assert_same_float_dtype(
        [tf.constant([1.0], tf.bfloat16)]),
})
