"""The optimizer does not keep the variables it stepped alive (TF: it does not either).

It caches what a step over one variable list needs (step plans, dense
groups, storage cells), keyed by the variables' identities; the caches hold
them weakly, and a plan leaves its cache when one of its variables is
collected, before another object can take its identity. The slot variables
stay in `optimizer.weights`, as in TF.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import torch

import tfcompat as tf

from optimizer_info import OPTIMIZER_INFOS, build

INFO_IDS = [i.name for i in OPTIMIZER_INFOS]


def _step_many_lists(opt, variables):
    dense = lambda v: torch.ones(v.shape.as_list(), dtype=v.dtype.as_torch)  # noqa: E731
    opt.apply_gradients([(dense(v), v) for v in variables])
    opt.apply_gradients([(dense(v), v) for v in variables[::2]])
    opt.apply_gradients([(dense(v), v) for v in reversed(variables)])
    # a mixed step: a sparse gradient for one, dense for the others
    sparse = tf.IndexedSlices(torch.ones(1, 2), torch.tensor([0]))
    opt.apply_gradients([(sparse, variables[0])] + [(dense(v), v) for v in variables[1:3]])


@pytest.mark.parametrize("multi", (True, False), ids=("multi_tensor", "reference"))
@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=INFO_IDS)
def test_dropped_variables_are_freed(info, multi):
    opt = build(info, info.typical_kwargs(), multi_tensor=multi)
    variables = [tf.Variable(np.full((3, 2), i + 1.0, np.float32), name=f"v{i}") for i in range(6)]
    _step_many_lists(opt, variables)
    refs = [weakref.ref(v) for v in variables]
    storages = [weakref.ref(v._storage()) for v in variables]
    slots_before = len(opt.weights)
    del variables
    gc.collect()
    alive = [r for r in refs if r() is not None]
    assert alive == [], f"{len(alive)} of 6 dropped variables survive: {gc.get_referrers(alive[0]())}"
    assert all(r() is None for r in storages), "a dropped variable's storage cell survives"
    assert len(opt.weights) == slots_before  # TF keeps the slot variables
    assert len(opt._plans) == 0
    # and the optimizer keeps working on new variables (whose ids may be the old ones')
    fresh = [tf.Variable(np.full((3, 2), 1.0, np.float32), name=f"w{i}") for i in range(6)]
    _step_many_lists(opt, fresh)
    assert int(opt.iterations.numpy()) == 8


def test_a_new_variable_at_a_dropped_ones_address_gets_its_own_plan():
    """Plans are keyed by `id()`: one never outlives its variables, so an object that reuses a
    dropped variable's id is planned (and checked) afresh."""
    opt = tf.keras.optimizers.SGD(0.5)
    for _ in range(20):  # ids get reused across iterations
        v = tf.Variable(np.zeros(3, np.float32))
        opt.apply_gradients([(torch.ones(3), v)])
        np.testing.assert_array_equal(v.numpy(), [-0.5, -0.5, -0.5])
        with pytest.raises(tf.errors.InvalidArgumentError):
            opt.apply_gradients([(torch.ones(4), v)])  # the plan describes this v, not an old one
        del v
    gc.collect()
    assert len(opt._plans) == 0
