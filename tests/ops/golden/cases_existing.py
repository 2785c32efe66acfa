"""Golden cases for ops that landed before issue 9 (a sanity table for the harness)."""

import numpy as np

from tests.ops.golden.harness import Case, Grad

F = np.array([[1.0, -2.0, 3.5], [0.0, np.nan, -1.0]], dtype=np.float32)
X = np.arange(6, dtype=np.int32).reshape(2, 3)

CASES = {
    "add_exact": Case(lambda tf: tf.add(F, F), ulps=0),
    "sqrt_int_error": lambda tf: tf.sqrt([1, 2]),
    "reduce_mean_int": lambda tf: tf.reduce_mean(X, axis=0),
    "softmax_f16": lambda tf: tf.nn.softmax(F[:1].astype(np.float16)),
    "tanh_bf16": lambda tf: tf.tanh(tf.cast(F, tf.bfloat16)),
    "shape_obj": lambda tf: tf.TensorShape([2, None]),
    "split": lambda tf: tf.split(X, 3, axis=1),
    "reshape_bad": Case(lambda tf: tf.reshape(X, [4]), match_message=True),
}

GRADIENTS = {
    "tanh": Grad(lambda tf, x: tf.reduce_sum(tf.tanh(x)), [np.array([0.5, -1.0], np.float32)]),
    "gather": Grad(lambda tf, x: tf.gather(x, [1, 1]), [np.array([1.0, 2.0, 3.0], np.float32)]),
}
