"""TensorFlow's view of a bundle, as JSON: run under a Python that has TensorFlow.

    python tf_read_bundle.py PREFIX [PREFIX ...]   # prints {prefix: {key: {...}}}

For each key: TF's dtype name and shape (tf.train.load_checkpoint) and the
value, read both with the reader's get_tensor and with tf.raw_ops.RestoreV2
(they must agree), as base64 of the little-endian bytes or, for strings, hex
of each element. Used by gen_bundles.py (expected.json) and by the live test
of bundles tfcompat wrote.
"""

import base64
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _encode(tf, np, value, dtype):
    if dtype == tf.string:
        arr = np.asarray(value, dtype=object)
        return {"strings": [bytes(x).hex() for x in arr.reshape(-1).tolist()]}
    arr = np.ascontiguousarray(np.asarray(value))
    return {"bytes": base64.b64encode(arr.astype(arr.dtype.newbyteorder("<")).tobytes()).decode()}


def dump(prefix):
    import numpy as np
    import tensorflow as tf

    reader = tf.train.load_checkpoint(prefix)
    dtypes = reader.get_variable_to_dtype_map()
    shapes = reader.get_variable_to_shape_map()
    out = {}
    for key in sorted(dtypes):
        value = reader.get_tensor(key)
        (restored,) = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[key], shape_and_slices=[""],
                                           dtypes=[dtypes[key]])
        a, b = _encode(tf, np, value, dtypes[key]), _encode(tf, np, restored.numpy(), dtypes[key])
        if a != b:
            raise AssertionError(f"{prefix}:{key}: load_checkpoint and RestoreV2 disagree")
        out[key] = {"dtype": dtypes[key].name, "shape": list(shapes[key]), **a}
    return out


if __name__ == "__main__":
    json.dump({p: dump(p) for p in sys.argv[1:]}, sys.stdout, sort_keys=True)
