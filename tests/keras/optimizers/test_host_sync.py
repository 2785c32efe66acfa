"""After the first step, a training step never makes the host wait for the device.

TF's eager optimizers queue their updates and return; on an accelerator a
step that reads a device value on the host (`.item()`, a 0-d tensor as an
index or as a torch `Scalar` argument), copies to the host, or runs an
operator whose output shape depends on the data (`unique`, `nonzero`)
stalls the whole training loop. These tests run on CPU with
`tfcompat.testing.host_syncs()`, which watches torch's operators (C++ callers
included) with CPU tensors standing in for device tensors, under
`accelerator_policy()` (the data checks TF's CPU kernels make, and GPU
kernels skip, are skipped as on a GPU). They cover:

* every configuration of the table (`ALL_CONFIGS`), dense and sparse
  gradients (with duplicate indices), on the multi-tensor path and the
  per-variable path;
* every base-class modifier (`decay`, `clipnorm`, `clipvalue`,
  `global_clipnorm`) for every optimizer;
* every learning-rate schedule (and its variants) for every optimizer that
  takes one, over steps that cross the schedules' boundaries;
* hyperparameters given as tensors, variables and callables; half precision;
* whole training steps: variable reads under `tf.GradientTape`,
  `tape.gradient`, `apply_gradients`, for dense and embedding models.

The first step (slot creation, mirrors of host constants) may read; the
next ones may not, and may not build tensors from host data either (on a
device each would be a blocking copy). A failure lists each sync with the
operator and the Python line that asked for it.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.testing import accelerator_policy, host_syncs

from optimizer_info import ALL_CONFIGS, INFO_BY_NAME, OPTIMIZER_INFOS, build, config_id

SCHEDULES = tf.keras.optimizers.schedules
STEPS = 3  # watched steps after the first

SHAPES = ((5,), (6, 3), (4, 2))
DTYPES = (torch.float32, torch.float32, torch.float64)

# Schedules and the variants whose code paths differ; boundaries fall inside the watched steps.
SCHEDULE_CASES = {
    "exponential": lambda: SCHEDULES.ExponentialDecay(0.1, 2, 0.5),
    "exponential_staircase": lambda: SCHEDULES.ExponentialDecay(0.1, 2, 0.5, staircase=True),
    "piecewise": lambda: SCHEDULES.PiecewiseConstantDecay([1, 3], [0.1, 0.05, 0.01]),
    "piecewise_float_boundaries": lambda: SCHEDULES.PiecewiseConstantDecay([1.5, 2.5], [0.1, 0.05, 0.01]),
    "polynomial": lambda: SCHEDULES.PolynomialDecay(0.1, 3, power=2.0),
    "polynomial_cycle": lambda: SCHEDULES.PolynomialDecay(0.1, 2, cycle=True),
    "inverse_time": lambda: SCHEDULES.InverseTimeDecay(0.1, 2, 0.5),
    "inverse_time_staircase": lambda: SCHEDULES.InverseTimeDecay(0.1, 2, 0.5, staircase=True),
    "cosine": lambda: SCHEDULES.CosineDecay(0.1, 3, alpha=0.1),
    "cosine_warmup": lambda: SCHEDULES.CosineDecay(0.1, 4, warmup_target=0.2, warmup_steps=2),
    "cosine_restarts": lambda: SCHEDULES.CosineDecayRestarts(0.1, 2),
    "cosine_restarts_t_mul_1": lambda: SCHEDULES.CosineDecayRestarts(0.1, 2, t_mul=1.0, m_mul=0.5),
}

MODIFIERS = {
    "decay": dict(decay=0.1),
    "clipnorm": dict(clipnorm=0.5),
    "clipvalue": dict(clipvalue=0.3),
    "global_clipnorm": dict(global_clipnorm=0.7),
}


def _dense(rs, variables):
    return [torch.from_numpy(rs.uniform(-1, 1, tuple(v.shape))).to(v.value().dtype) for v in variables]


def _sparse(rs, variables):
    """IndexedSlices with a repeated row (the optimizers must sum duplicates) and int32/int64 indices."""
    out = []
    for k, v in enumerate(variables):
        shape = tuple(v.shape)
        rows = [0, shape[0] - 1, 0]
        values = rs.uniform(-1, 1, (len(rows),) + shape[1:])
        index_dtype = torch.int32 if k % 2 else torch.int64
        out.append(tf.IndexedSlices(torch.from_numpy(values).to(v.value().dtype),
                                    torch.tensor(rows, dtype=index_dtype), torch.tensor(shape)))
    return out


GRADIENTS = {"dense": _dense, "sparse": _sparse}


def steady_state_syncs(make_optimizer, gradient="dense", dtypes=DTYPES, multi_tensor=True):
    """The host syncs of steps 2..STEPS+1 of `make_optimizer()` over three variables."""
    rs = np.random.RandomState(0)
    with accelerator_policy():
        variables = [tf.Variable(rs.uniform(-1, 1, s), dtype=tf.as_dtype(d)) for s, d in zip(SHAPES, dtypes)]
        opt = make_optimizer()
        opt.use_multi_tensor = multi_tensor
        make = GRADIENTS[gradient]
        steps = [list(zip(make(rs, variables), variables)) for _ in range(STEPS + 1)]
        opt.apply_gradients(steps[0])
        with host_syncs(new_host_tensors=True) as log:
            for pairs in steps[1:]:
                opt.apply_gradients(pairs)
    assert int(opt.iterations.numpy()) == STEPS + 1  # (the steps ran)
    return log


def _assert_no_syncs(log):
    assert not log, log.report(limit=8)


# ---------------------------------------------------------------------------
# every configuration, dense and sparse, both update paths
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("gradient", list(GRADIENTS))
@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_steady_state_step_makes_no_host_sync(pair, gradient):
    info, cfg = pair
    if gradient == "sparse" and not info.supports_sparse:
        pytest.skip(f"{info.name} takes no sparse gradients")
    _assert_no_syncs(steady_state_syncs(lambda: build(info, cfg.kwargs), gradient))


@pytest.mark.parametrize("pair", ALL_CONFIGS, ids=[config_id(p) for p in ALL_CONFIGS])
def test_per_variable_path_makes_no_host_sync(pair):
    """`use_multi_tensor=False`: the per-variable `_resource_apply_dense` rules subclasses get."""
    info, cfg = pair
    _assert_no_syncs(steady_state_syncs(lambda: build(info, cfg.kwargs), multi_tensor=False))


# ---------------------------------------------------------------------------
# clipping and inverse-time decay
# ---------------------------------------------------------------------------

MODIFIER_CASES = [(info, name) for info in OPTIMIZER_INFOS for name in MODIFIERS
                  if name != "decay" or info.supports_decay]


@pytest.mark.parametrize("gradient", list(GRADIENTS))
@pytest.mark.parametrize("info,modifier", MODIFIER_CASES, ids=[f"{i.name}/{m}" for i, m in MODIFIER_CASES])
def test_clipping_and_decay_make_no_host_sync(info, modifier, gradient):
    kwargs = {**info.typical_kwargs(), **MODIFIERS[modifier]}
    # (TF's global norm stacks the per-tensor norms: one dtype for every variable)
    dtypes = (torch.float32,) * 3 if modifier == "global_clipnorm" else DTYPES
    _assert_no_syncs(steady_state_syncs(lambda: build(info, kwargs), gradient, dtypes=dtypes))


# ---------------------------------------------------------------------------
# learning-rate schedules
# ---------------------------------------------------------------------------

SCHEDULE_PAIRS = [(info, name) for info in OPTIMIZER_INFOS if info.supports_schedule for name in SCHEDULE_CASES]


@pytest.mark.parametrize("gradient", list(GRADIENTS))
@pytest.mark.parametrize("info,schedule", SCHEDULE_PAIRS, ids=[f"{i.name}/{s}" for i, s in SCHEDULE_PAIRS])
def test_schedules_make_no_host_sync(info, schedule, gradient):
    def make():
        kwargs = {k: v for k, v in info.typical_kwargs().items() if k != "learning_rate"}
        return build(info, {**kwargs, "learning_rate": SCHEDULE_CASES[schedule]()})

    _assert_no_syncs(steady_state_syncs(make, gradient))


def test_schedule_with_decay_and_global_clipnorm_makes_no_host_sync():
    _assert_no_syncs(steady_state_syncs(
        lambda: build("Adam", dict(learning_rate=SCHEDULE_CASES["cosine_warmup"](), decay=0.05,
                                   global_clipnorm=0.5)), "dense", dtypes=(torch.float32,) * 3))


# ---------------------------------------------------------------------------
# hyperparameters given as tensors, variables and callables; half precision
# ---------------------------------------------------------------------------

HYPER_CASES = {
    "SGD/momentum_tensor": ("SGD", lambda: dict(learning_rate=0.1, momentum=torch.tensor(0.9))),
    "SGD/learning_rate_tensor": ("SGD", lambda: dict(learning_rate=torch.tensor(0.1), momentum=0.9)),
    "Adam/beta_1_tensor": ("Adam", lambda: dict(beta_1=torch.tensor(0.8))),
    "Adam/learning_rate_variable": ("Adam", lambda: dict(learning_rate=tf.Variable(0.01))),
    "Adam/learning_rate_callable": ("Adam", lambda: dict(learning_rate=lambda: 0.01)),
    "RMSprop/rho_tensor": ("RMSprop", lambda: dict(rho=torch.tensor(0.8), momentum=0.5)),
    "Ftrl/l1_tensor": ("Ftrl", lambda: dict(l1_regularization_strength=torch.tensor(0.01))),
}


@pytest.mark.parametrize("case", list(HYPER_CASES))
def test_tensor_variable_and_callable_hyperparameters_make_no_host_sync(case):
    name, kwargs = HYPER_CASES[case]
    # (the class itself: `build` compares the learning rate with a string, which a variable refuses)
    _assert_no_syncs(steady_state_syncs(lambda: INFO_BY_NAME[name].cls(**kwargs())))


HALF = [(info, dtype, gradient) for info in OPTIMIZER_INFOS for dtype in (torch.float16, torch.bfloat16)
        for gradient in GRADIENTS]


@pytest.mark.parametrize("info,dtype,gradient", HALF,
                         ids=[f"{i.name}/{str(d)[6:]}/{g}" for i, d, g in HALF])
def test_half_precision_steps_make_no_host_sync(info, dtype, gradient):
    kwargs = {**info.typical_kwargs(), **info.half_overrides.get(str(dtype)[6:], {})}
    _assert_no_syncs(steady_state_syncs(lambda: build(info, kwargs), gradient, dtypes=(dtype,) * 3))


# ---------------------------------------------------------------------------
# whole training steps: reads under a tape, tape.gradient, apply_gradients
# ---------------------------------------------------------------------------

def _mlp(rs):
    params = [tf.Variable(rs.randn(8, 16).astype(np.float32) * 0.3, name="w1"),
              tf.Variable(np.zeros(16, np.float32), name="b1"),
              tf.Variable(rs.randn(16, 4).astype(np.float32) * 0.3, name="w2"),
              tf.Variable(np.zeros(4, np.float32), name="b2")]
    x = torch.from_numpy(rs.randn(6, 8).astype(np.float32))
    labels = torch.from_numpy(np.eye(4, dtype=np.float32)[rs.randint(0, 4, 6)])

    def loss():
        w1, b1, w2, b2 = params
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(h, w2) + b2
        return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels, logits))

    return params, loss


def _embedding(lookup):
    def model(rs):
        table = tf.Variable(rs.randn(20, 8).astype(np.float32) * 0.5, name="table")
        w = tf.Variable(rs.randn(8, 3).astype(np.float32) * 0.3, name="w")
        ids = torch.tensor([1, 7, 7, 0, 19, 3])  # a repeated id: duplicate gradient rows
        labels = torch.tensor([0, 2, 2, 1, 0, 1])

        def loss():
            rows = tf.gather(table, ids) if lookup == "gather" else table.sparse_read(ids)
            logits = tf.matmul(rows, w)
            return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits))

        return [table, w], loss

    return model


MODELS = {"mlp": _mlp, "embedding_gather": _embedding("gather"),
          "embedding_sparse_read": _embedding("sparse_read")}


def training_step_syncs(model, make_optimizer):
    """Host syncs of training steps 2..STEPS+1: forward under a tape, gradient, apply."""
    rs = np.random.RandomState(1)
    with accelerator_policy():
        params, loss_fn = MODELS[model](rs)
        opt = make_optimizer()
        losses = []

        def step():
            with tf.GradientTape() as tape:
                loss = loss_fn()
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
            losses.append(loss)

        step()
        with host_syncs(new_host_tensors=True) as log:
            for _ in range(STEPS):
                step()
    assert int(opt.iterations.numpy()) == STEPS + 1
    assert all(np.isfinite(float(tf.stop_gradient(x))) for x in losses)
    return log


STEP_CASES = [(model, info) for model in MODELS for info in OPTIMIZER_INFOS]


@pytest.mark.parametrize("model,info", STEP_CASES, ids=[f"{m}/{i.name}" for m, i in STEP_CASES])
def test_training_step_makes_no_host_sync(model, info):
    _assert_no_syncs(training_step_syncs(model, lambda: build(info, info.typical_kwargs())))


@pytest.mark.parametrize("model", list(MODELS))
def test_clipped_scheduled_training_step_makes_no_host_sync(model):
    _assert_no_syncs(training_step_syncs(model, lambda: build("Adam", dict(
        learning_rate=SCHEDULE_CASES["piecewise"](), global_clipnorm=1.0))))


def test_persistent_tape_step_makes_no_host_sync():
    rs = np.random.RandomState(2)
    with accelerator_policy():
        params, loss_fn = _mlp(rs)
        opt = build("SGD", dict(learning_rate=0.1, momentum=0.9))

        def step():
            with tf.GradientTape(persistent=True) as tape:
                loss = loss_fn()
            grads = tape.gradient(loss, params)
            opt.apply_gradients(zip(grads, params))
            del tape

        step()
        with host_syncs(new_host_tensors=True) as log:
            step()
            step()
    _assert_no_syncs(log)
