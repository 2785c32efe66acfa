"""One check shared by the layer tests: a layer under `tf.distribute.MirroredStrategy` over two
logical CPUs, each replica on its share of the batch, equals the same layer on one device on
the global batch (outputs row for row; gradients summed over the replicas).

Use:

    from tests.keras.layers.mirrored_check import assert_mirrored_equals_one_device, strategy

(`strategy` is a pytest fixture: importing it into a test module makes it available there.)
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.distribute.logical_devices import logical_cpus


@pytest.fixture
def strategy():
    """MirroredStrategy over two logical CPUs (the runtime reset before and after)."""
    with logical_cpus(2):
        yield tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])


def split_batch(strategy, x):
    """`x` as per-replica values: replica i gets the i-th equal share of the rows."""
    n = x.shape[0] // strategy.num_replicas_in_sync
    return strategy.experimental_distribute_values_from_function(
        lambda ctx: x[n * ctx.replica_id_in_sync_group:n * ctx.replica_id_in_sync_group + n])


def _sum_of_squares(out):
    return tf.reduce_sum(out * out)


def assert_mirrored_equals_one_device(strategy, make, x, *, call=None, call_kwargs=None,
                                      loss=_sum_of_squares, weights=None, seed=0,
                                      rtol=1e-5, atol=1e-6, grad_rtol=1e-4, grad_atol=1e-5):
    """Builds `make()` on one device and under `strategy`, gives both the same weights, and
    checks that the replicas' outputs (concatenated) and their summed gradients of `loss`
    equal the single layer's on the whole batch `x`.

    call: `call(layer, x)` runs the layer, and builds it on `x[:1]` (default: `layer(x[:1])`
    builds, `layer(x, **call_kwargs)` runs).
    weights: `weights(single) -> list of arrays` to set on both layers (default: the single
    layer's own initial weights, drawn after `tf.keras.utils.set_random_seed(seed)`; `seed`
    None skips the seeding).
    rtol/atol: for the outputs; grad_rtol/grad_atol: for the gradients (an error model's
    bound: one device sums the batch in one pass, the replicas in halves).
    Returns (outputs, summed gradients) for further checks (dtypes, ...).
    """
    call_kwargs = call_kwargs or {}
    build = call
    if call is None:
        def call(layer, inputs):
            return layer(inputs, **call_kwargs)

        def build(layer, inputs):
            return layer(inputs)
    if seed is not None:
        tf.keras.utils.set_random_seed(seed)
    single = make()
    build(single, x[:1])
    if weights is None:
        values = single.get_weights()
    else:
        values = weights(single)
        single.set_weights(values)
    with tf.GradientTape() as tape:
        want = call(single, x)
        total_loss = loss(want)
    want_grads = tape.gradient(total_loss, single.trainable_weights)
    with strategy.scope():
        layer = make()
        build(layer, x[:1])
        layer.set_weights(values)

    def step(part):
        with tf.GradientTape() as tape:
            out = call(layer, part)
            part_loss = loss(out)
        return out, tape.gradient(part_loss, layer.trainable_weights)

    outs, grads = strategy.run(step, args=(split_batch(strategy, x),))
    got = torch.cat([torch.as_tensor(v) for v in strategy.experimental_local_results(outs)])
    np.testing.assert_allclose(got.numpy(), torch.as_tensor(want).numpy(), rtol=rtol, atol=atol)
    assert len(grads) == len(want_grads)
    totals = []
    for g, w in zip(grads, want_grads):
        total = strategy.reduce("SUM", g, axis=None)
        np.testing.assert_allclose(np.asarray(total), torch.as_tensor(w).numpy(),
                                   rtol=grad_rtol, atol=grad_atol)
        totals.append(total)
    return got, totals
