"""Layer golden cases: one function runs a layer under tf_keras (to record) or tfcompat.

`run_layer(tf, make, inputs, ...)` builds `make(tf)` (a layer), calls it once to build,
sets its weights to `weights` (NumPy arrays in the layer's `get_weights()` order, or
deterministic values drawn from `seed` by each weight's shape), then calls it under a
`GradientTape` and returns `{"output", "grads"}`: the output(s) and the gradients of
`sum(output * cotangent)` with respect to the inputs (float ones) and the trainable weights.
The cotangent is fixed from `seed`, so every element of every gradient is pinned.

The result is compared by the ops harness (`tests/ops/golden/harness.py`) under its error
model: a case gives `n` (roundings along the longest path, e.g. the reduction length of a
Dense kernel plus its elementwise ops) and `terms="normwise"` where cancellation can occur.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import numpy as np


def weights_like(shapes: Sequence[tuple], seed: int, scale: float = 0.5) -> list:
    rng = np.random.default_rng(seed)
    return [(rng.uniform(-scale, scale, size=s)).astype(np.float32) for s in shapes]


def run_layer(tf: Any, make: Callable[[Any], Any], inputs: Sequence[np.ndarray],
              weights: Optional[Sequence[np.ndarray]] = None, seed: int = 0,
              call_kwargs: Optional[dict] = None, grads: bool = True,
              weight_dtype: Any = None) -> dict:
    tf.keras.backend.clear_session()
    layer = make(tf)
    xs = [tf.constant(x) for x in inputs]
    arg = xs[0] if len(xs) == 1 else xs
    kwargs = dict(call_kwargs or {})
    layer(arg, **kwargs)  # build
    if weights is None:
        current = layer.get_weights()
        weights = weights_like([w.shape for w in current], seed)
        weights = [w.astype(c.dtype) for w, c in zip(weights, current)]
    layer.set_weights(list(weights))
    with tf.GradientTape() as tape:
        for x in xs:
            if x.dtype.is_floating:
                tape.watch(x)
        out = layer(arg, **kwargs)
        flat = tf.nest.flatten(out)
        rng = np.random.default_rng(seed + 1)
        total = 0.0
        for y in flat:
            if y.dtype.is_floating:
                cot = rng.uniform(-1, 1, size=tuple(y.shape)).astype(y.dtype.as_numpy_dtype)
                total = total + tf.reduce_sum(tf.cast(y * tf.constant(cot), tf.float64))
    result = {"output": out}
    if grads:
        sources = [x for x in xs if x.dtype.is_floating] + list(layer.trainable_weights)
        result["grads"] = [g if g is not None else "none"
                           for g in tape.gradient(total, sources)]
    return result


def layer_config(cls: str, *args: Any, **kwargs: Any) -> Callable[[Any], dict]:
    """A case: the config of `tf.keras.layers.<cls>(*args, **kwargs)`, unbuilt."""
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs).get_config()


def built_layer_config(cls: str, x: np.ndarray, *args: Any, **kwargs: Any
                       ) -> Callable[[Any], dict]:
    """A case: the config of the layer after one call on `x`."""
    def fn(tf: Any) -> dict:
        layer = getattr(tf.keras.layers, cls)(*args, **kwargs)
        layer(tf.constant(x))
        return layer.get_config()
    return fn
