"""TensorFlow side of the benchmarks, run in a separate interpreter that has TF.

The benchmark scripts call this file with `--tf-python PATH` (a Python with
tensorflow and tf_keras installed; tfcompat's own environment never needs
them). It prints one JSON object of timings on stdout. Only numpy and TF
are imported here.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _median_ms(fn, repeat=15, warmup=3):
    for _ in range(warmup):
        fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs) * 1e3


def _per_call_us(fn, repeat=7):
    for _ in range(3):
        fn()
    start = time.perf_counter()
    fn()
    number = max(1, min(20000, int(0.02 / max(time.perf_counter() - start, 1e-7))))
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - start) / number)
    return statistics.median(runs) * 1e6


def optimizers(layouts, repeat):
    import numpy as np
    import tensorflow as tf
    import tf_keras
    out = {}
    legacy = tf_keras.optimizers.legacy
    makers = {"adam": lambda: legacy.Adam(1e-3), "sgd_momentum": lambda: legacy.SGD(1e-2, momentum=0.9),
              "adagrad": lambda: legacy.Adagrad(1e-2)}
    for count, size in layouts:
        rng = np.random.RandomState(0)
        variables = [tf.Variable(rng.randn(size).astype(np.float32)) for _ in range(count)]
        grads = [tf.constant(rng.randn(size).astype(np.float32)) for _ in range(count)]
        pairs = list(zip(grads, variables))
        for name, make in makers.items():
            opt = make()
            out[f"{name}/{count}x{size}"] = _median_ms(lambda: opt.apply_gradients(pairs), repeat=repeat)
    return out


def variables():
    import numpy as np
    import tensorflow as tf
    out = {}
    for label, shape in (("small (64)", (64,)), ("large (4M)", (2048, 2048))):
        v = tf.Variable(tf.random.normal(shape))
        x = tf.random.normal(shape)
        idx = tf.constant(np.random.RandomState(0).randint(0, shape[0], 16))
        out[f"{label}/assign_add"] = _per_call_us(lambda: v.assign_add(x))
        out[f"{label}/read_value"] = _per_call_us(v.read_value)
        out[f"{label}/v + x"] = _per_call_us(lambda: v + x)
        out[f"{label}/sparse_read"] = _per_call_us(lambda: v.sparse_read(idx))
    return out


if __name__ == "__main__":
    request = json.loads(sys.argv[1])
    if request["kind"] == "optimizers":
        result = optimizers([tuple(l) for l in request["layouts"]], request.get("repeat", 9))
    else:
        result = variables()
    print(json.dumps(result))
