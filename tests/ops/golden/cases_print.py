"""Golden cases for `tf.print`: the exact text TF writes (captured through `file://`)."""

import collections
import os
import tempfile

import numpy as np


def printed(build, **kwargs):
    """A case: the text `tf.print(*build(tf), **kwargs)` writes to a fresh file."""
    def run(tf):
        fd, path = tempfile.mkstemp(suffix=".txt")
        os.close(fd)
        try:
            tf.print(*build(tf), output_stream="file://" + path, **kwargs)
            with open(path) as f:
                return f.read()
        finally:
            os.remove(path)
    return run


def t(value, dtype=None):
    return lambda tf: [tf.constant(value, dtype=dtype)]


CASES = {
    "vector": printed(t([1, 2, 3])),
    "matrix": printed(t([[1, 2], [3, 4]])),
    "summarized": printed(t(np.arange(10))),
    "summarize_2": printed(t(np.arange(10)), summarize=2),
    "summarize_all": printed(t(np.arange(10)), summarize=-1),
    "summarize_none": printed(t(np.arange(10)), summarize=None),
    "rank3": printed(t(np.arange(24).reshape(2, 3, 4))),
    "rank4": printed(t(np.arange(48).reshape(2, 2, 3, 4)), summarize=2),
    "big_matrix": printed(t(np.arange(100).reshape(10, 10))),
    "rows_summarize_1": printed(t(np.arange(10.0).reshape(5, 2)), summarize=1),
    "seven": printed(t(np.arange(7))),
    "six": printed(t(np.arange(6))),
    "floats": printed(t([1.5, 2.0, -3.25])),
    "float_exponents": printed(t([0.1, 1e-8, 1e10, 1e-5, 1e5])),
    "float_third": printed(t(1.0 / 3)),
    "double_third": printed(t(1.0 / 3, np.float64)),
    "double_short": printed(t([0.5, 0.1, 1e100], np.float64)),
    "half": printed(lambda tf: [tf.constant([1.0 / 3, 2.5, 65504.0], tf.float16)]),
    "bfloat16": printed(lambda tf: [tf.constant([1.0 / 3, -7.0], tf.bfloat16)]),
    "float_digits": printed(t([0.000123456789, 12345.6789, 123456789.0, 1e20])),
    "specials": printed(lambda tf: [tf.constant(np.nan), tf.constant([np.inf, -np.inf, -0.0])]),
    "bools": printed(t([True, False])),
    "scalar_int": printed(t(5)),
    "int64": printed(t(np.array([2 ** 40, -3], np.int64))),
    "uint8": printed(t(np.array([1, 255], np.uint8))),
    "empty": printed(t(np.zeros((0,), np.float32))),
    "empty_rows": printed(t(np.zeros((2, 0), np.float32))),
    "complex": printed(t([1 + 2j])),
    "mixed": printed(lambda tf: ["hello", tf.constant([1, 2]), 3, 4.5,
                                 [1, tf.constant(2)], {"a": tf.constant(1)}, None, True]),
    "sep_end": printed(lambda tf: ["a", "b", tf.constant([1.5])], sep=",", end="!"),
    "variable": printed(lambda tf: [tf.Variable([1.0, 2.0])]),
    "tuple": printed(lambda tf: [(1, "x", tf.constant([3]))]),
    "nested_dict": printed(lambda tf: [{"b": [tf.constant(1.5), "s"], "a": tf.constant([[1]])}]),
    "ordered_dict": printed(lambda tf: [collections.OrderedDict([("z", tf.constant(1)),
                                                                 ("a", 2)])]),
    "nothing": printed(lambda tf: []),
    "string_braces": printed(lambda tf: ["{} {x}", tf.constant(1)]),
    "bad_stream": lambda tf: tf.print(tf.constant(2), output_stream=1),
    "bad_kwarg": lambda tf: tf.print(tf.constant(2), foo=1),
}
