"""Generate the optimizer / learning-rate-schedule golden fixtures from real TF.

Run (needs TensorFlow 2.21 + tf_keras 2.21, NOT the project venv)::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/bin/python tests/conformance/gen_optimizers.py

It writes ``tests/conformance/fixtures/optimizers.json`` and
``tests/conformance/fixtures/schedules.json``. The output is deterministic:
inputs come from ``numpy.random.RandomState`` seeded per case (crc32 of the
case id); the script re-executes itself with ``PYTHONHASHSEED=0`` so messages
that print Python sets are stable. All runs are TF eager, CPU. The "cases"
store their inputs; the seeded sections ("half_precision_cases",
"long_horizon_cases", below) store only a recipe that the replay rebuilds
with ``optimizer_inputs.make_inputs`` (checked against a digest), which keeps
thousands of elements times 40 steps out of the file.

Number encoding
---------------
Every float is written as the float64 ``repr`` of the value; float16 / float32
values are therefore exact (``np.asarray(x, dtype)`` recovers the bits). Arrays
are nested lists (a 0-d value is a bare number). Integers stay integers.

optimizers.json
---------------
Top level object::

    {
      "generator": "tests/conformance/gen_optimizers.py",
      "versions": {"tensorflow": "2.21.0", "tf_keras": "2.21.0", "numpy": ...},
      "cases":   [CASE, ...],
      "errors":  [ERROR, ...],
      "tf_keras_test_goldens": [GOLDEN, ...]
    }

CASE (one optimizer instance driven for several steps on two variables)::

    {
      "id": "Adam/amsgrad/sparse/float32",   # unique
      "optimizer": "Adam",          # tf_keras.optimizers.legacy class name
      "variant": "amsgrad",         # base configuration name
      "modifier": null | "decay" | "lr_schedule" | "lr_schedule+decay"
                  | "clipnorm" | "clipvalue" | "global_clipnorm" | "set_hyper"
                  | "minimize",
      "kwargs": {...},              # constructor kwargs, JSON; a schedule is
                                    # given as its schedules.serialize() dict
      "dtype": "float32",           # dtype of the variables and gradients
      "sparse": false,              # gradients are tf.IndexedSlices
      "api": "apply_gradients" | "minimize",
          # "minimize": opt.minimize(loss, var_list) with
          #   loss = sum_i reduce_sum(constant(grads[i]) * var_i),
          # whose gradient is exactly grads[i]; "grads" are recorded as passed
          # to apply_gradients / produced by the tape (before clipping).
      "var_names": ["var0", "var1"],
      "shapes": [[3], [2, 3]],
      "initial_values": [ARRAY, ARRAY],
      "steps": [                    # applied in order, one apply per step
        {
          "set_before": {"learning_rate": 0.05},   # optional: `setattr(opt,
                                    #   k, v)` executed just before this step
          "grads": [GRAD, GRAD],    # one per variable
          "vars_after": [ARRAY, ARRAY]
        }, ...
      ],
      "slot_names": [...],          # opt.get_slot_names() after the run
      "slots": {slot_name: [ARRAY for var0, ARRAY for var1]},   # after last step
      "weights": [                  # opt.variables() (== opt.weights), in order
        {"name": "Adam/iter:0", "dtype": "int64", "shape": [], "value": 4},
        {"name": "Adam/var0/m:0", "dtype": "float32", "shape": [3]}, ...
      ],                            # "value" only for non-slot weights (iter,
                                    # Nadam's momentum_cache); slots: see "slots"
      "iterations": 4,              # int(opt.iterations) after the run
      "config_before": {...},       # opt.get_config() right after construction
      "config": {...},              # opt.get_config() after the run
      "config_types": {key: "float" | "float32" | "bool" | "str" | "dict" | "NoneType" | ...}
                                    # Python type of each get_config() value after the run
    }

GRAD is either a dense ARRAY or, for sparse cases,
``{"indices": [int, ...], "values": ARRAY, "dense_shape": [int, ...]}``
(passed as ``tf.IndexedSlices(values, int32 indices, dense_shape)``; indices
may repeat).

ERROR::

    {"id": ..., "optimizer": "SGD", "kwargs": {...},
     "when": "construct" | "apply_gradients",
     "exception": "ValueError", "message": "...",
     "match": "exact" | "prefix"}     # "prefix": compare message[:len(message)]
                                      # only (the rest is a repr of TF objects)

GOLDEN (expected numbers transcribed from tf_keras' own legacy optimizer
tests; the generator re-runs each with TF and stores what TF gave)::

    {"source": "tf_keras/optimizers/legacy/ftrl_test.py::testFtrlWithL1",
     "optimizer": "Ftrl", "kwargs": {...}, "api": "apply_gradients" | "minimize",
     "dtypes": ["float16", "float32"],     # dtypes the TF test runs
     "initial_values": [ARRAY, ...],
     "grads": [GRAD, ...],                 # the same gradients every step
     "note": "...",
     "checkpoints": [{"after_step": 10, "vars": [ARRAY, ...],
                      "slots": {name: [ARRAY, ...]}  (optional)}],
     "tolerance": {dtype: {"rtol": r, "atol": a}},   # as the TF test asserts
     "tf_values": {dtype: [{"after_step": n, "vars": [...], "slots": {...}}]}}

Seeded cases (sections "half_precision_cases" and "long_horizon_cases")
----------------------------------------------------------------------
One TF optimizer driven by ``apply_gradients`` on inputs described by an
``optimizer_inputs`` spec (seed, dtype, shapes, distributions, sparse rows;
see that module for the recipe, the digest and the array encoding)::

    {"id": "Adam/plain/half:extreme/dense/float16",
     "optimizer", "variant", "kwargs", "dtype", "sparse", "var_names",
     "regime": "extreme",              # half: large | tiny | extreme | long
                                       #   (| long/beta_2_rounds_to_1);
                                       # long: the schedule name, "constant",
                                       #   "set_hyper+decay", "schedule_to_constant",
                                       #   "constant_to_schedule"
     "inputs": SPEC,                   # optimizer_inputs spec, with "digest"
     "set_before": {"12": {"beta_1": 0.5}, ...},
                                       # 0-based step index -> setattr(opt, k, v)
                                       # just before that step (a dict value is a
                                       # serialized schedule)
     "checkpoints": {"after_step": [1, 2, ...],
                     "vars": [ARRAY per variable, leading axis = checkpoint]},
     "trace": {"indices": [[flat index, ...] per variable],    # long only:
               "values": [ARRAY (steps, samples) per variable]}, # every step
     "slot_names", "slots": {name: [ARRAY per variable]},   # after the run;
                                       # long: the traced elements only
     "weights": [...], "iterations": n, "config": {...}}    # as in CASE

ARRAY here is ``optimizer_inputs.encode(..., compact=True)``: base64 of the
IEEE bits (bfloat16: the upper half of the float32 pattern), exact and
decodable with numpy alone.

half_precision_cases: every configuration of BASE_CONFIGS in float16 and
bfloat16, dense (shapes (8,) and (3, 5): a whole number of 8-element packets,
and not) and sparse (shapes (6,), (5, 3); 4 rows a step, one repeated), in
four regimes (HALF_REGIMES): "large" (N(0, 30^2) gradients, 10x learning
rate, 6 steps), "tiny" (gradient magnitudes down to the float16 subnormals,
so g*g underflows), "extreme" (magnitudes across the whole range: g*g
overflows to inf for the largest, values up to 3e4 in float16), "long" (40
steps at ordinary magnitudes). bfloat16 Adam / Nadam use beta_2 = 0.99 (0.999
rounds to 1.0: Adam never moves, Nadam gives NaN), plus one "long" case with
the default to pin that. bfloat16 magnitudes stay above 1e-12 so no float32
intermediate is denormal (TF's CPU kernels flush those; float16 subnormals
are kept).

long_horizon_cases: 40 steps on four variables of shapes (1024,), (13, 29),
(3, 5, 7), () (sparse: (400, 8) and (1000,), 48 rows a step), with a
learning-rate schedule crossing its boundaries (LONG_VARIANTS: all six
schedule classes), hyperparameters set midway (beta_1/beta_2, momentum, rho,
epsilon, l1/l2/beta, learning_rate_power), inverse-time decay
(LONG_SET_HYPER, float64), a schedule replaced by a constant and the other
way round; float32, float64, and float16/bfloat16 on the large variables.

half_precision_unsupported: (optimizer, variant, dtype, sparse) TF cannot
run (no CPU kernel; TF raises InvalidArgumentError), with TF's message; the
generator fails if TF gains the kernel.

An op-by-op torch replay of TF's kernels (every op on tensors of the
variable's dtype, duplicates summed one at a time in the dtype, IEEE sqrt)
reproduces every half-precision case and every float64 case bit for bit;
see ``tests/keras/optimizers/test_golden.py`` for the comparison rules.

schedules.json
--------------
::

    {"generator": ..., "versions": {...},
     "schedules": [
       {"id": "ExponentialDecay/staircase",
        "class_name": "ExponentialDecay",
        "kwargs": {...},                 # constructor kwargs
        "steps": [0, 1, 2, ...],         # python ints passed as `step`
        "values": [v0, v1, ...],         # schedule(step), one per step
        "dtype": "float32",              # dtype of the returned tensor
        "config": {...},                 # schedule.get_config()
        "serialized": {...}}             # tf_keras.optimizers.schedules.serialize(schedule)
     ]}

The "long_horizon/..." entries are the schedules the long-horizon optimizer
cases use, at every step 0..45.
"""

from __future__ import annotations

import os
import zlib

import generator_env  # noqa: E402  (a sibling: the script's folder is sys.path[0])
import optimizer_inputs  # noqa: E402  (the inputs recipe the replay shares)

generator_env.prepare()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
import tf_keras  # noqa: E402

LEGACY = tf_keras.optimizers.legacy
SCHEDULES = tf_keras.optimizers.schedules
FIXTURES = generator_env.FIXTURES

NUM_STEPS = 3
DENSE_SHAPES = [(3,), (2, 3)]
SPARSE_SHAPES = [(4,), (3, 2)]
# Per-step row indices for the two sparse variables (duplicates on purpose;
# some rows are left untouched in some steps).
SPARSE_INDICES = [
    [[0, 2, 0], [2, 0, 2]],
    [[3, 1, 3, 3], [1, 1]],
    [[2, 2, 1], [0, 2, 0]],
    [[0, 3, 0], [2, 1, 2]],
]


# --------------------------------------------------------------------------
# JSON helpers
# --------------------------------------------------------------------------


def jsonable(x):
    """Convert TF / numpy values (nested) to JSON-friendly Python objects."""
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (tf.Tensor, tf.Variable)):
        x = x.numpy()
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            return x.astype(np.float64).tolist()
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item() if x.dtype.kind != "f" else float(x)
    if isinstance(x, (bool, int, float, str)) or x is None:
        return x
    if isinstance(x, tf.DType):
        return x.name
    return repr(x)


def type_name(x):
    if isinstance(x, np.generic):
        return x.dtype.name
    return type(x).__name__


def seed_for(case_id):
    return zlib.crc32(case_id.encode()) & 0x7FFFFFFF


# --------------------------------------------------------------------------
# optimizer cases
# --------------------------------------------------------------------------

BASE_CONFIGS = {
    "SGD": {
        "plain": dict(learning_rate=0.1),
        "momentum": dict(learning_rate=0.1, momentum=0.9),
        "nesterov": dict(learning_rate=0.1, momentum=0.9, nesterov=True),
    },
    "Adam": {
        "plain": dict(learning_rate=0.01),
        "amsgrad": dict(learning_rate=0.01, beta_2=0.9, amsgrad=True),
    },
    "Adagrad": {
        "default": dict(learning_rate=0.1),
        "initial_accumulator": dict(learning_rate=0.1, initial_accumulator_value=0.5),
        "zero_initial_accumulator": dict(learning_rate=0.1, initial_accumulator_value=0.0),
    },
    "RMSprop": {
        "plain": dict(learning_rate=0.01),
        "momentum": dict(learning_rate=0.01, momentum=0.5),
        "centered": dict(learning_rate=0.01, centered=True),
        "centered_momentum": dict(learning_rate=0.01, momentum=0.5, centered=True),
    },
    "Adadelta": {
        "plain": dict(learning_rate=1.0),
        "rho_eps": dict(learning_rate=0.5, rho=0.8, epsilon=1e-4),
    },
    "Adamax": {
        "plain": dict(learning_rate=0.01),
    },
    "Nadam": {
        "plain": dict(learning_rate=0.01),
        "schedule_decay": dict(learning_rate=0.01, schedule_decay=0.1),
    },
    "Ftrl": {
        "plain": dict(learning_rate=0.1),
        "l1": dict(learning_rate=0.1, l1_regularization_strength=0.2),
        "l2": dict(learning_rate=0.1, l2_regularization_strength=0.3),
        "l2_shrinkage": dict(learning_rate=0.1, l2_shrinkage_regularization_strength=0.1),
        "beta": dict(learning_rate=0.1, beta=0.5),
        "lr_power_0": dict(learning_rate=0.1, learning_rate_power=0.0),
        "lr_power_-0.25": dict(learning_rate=0.1, learning_rate_power=-0.25),
        "initial_accumulator": dict(learning_rate=0.1, initial_accumulator_value=0.5),
        "zero_initial_accumulator": dict(learning_rate=0.1, initial_accumulator_value=0.0),
        "all": dict(
            learning_rate=0.1,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.2,
            l2_shrinkage_regularization_strength=0.1,
            beta=0.3,
            initial_accumulator_value=0.2,
        ),
    },
}

# float16 dense runs for a representative subset
FLOAT16_VARIANTS = {
    ("SGD", "momentum"),
    ("Adam", "plain"),
    ("Adagrad", "default"),
    ("RMSprop", "plain"),
    ("RMSprop", "momentum"),
}

# The configuration each modifier is applied to (one per optimizer).
MODIFIER_BASE = {
    "SGD": "momentum",
    "Adam": "plain",
    "Adagrad": "default",
    "RMSprop": "plain",
    "Adadelta": "plain",
    "Adamax": "plain",
    "Nadam": "plain",
    "Ftrl": "plain",
}

SET_HYPER = {
    "SGD": {"learning_rate": 0.05, "momentum": 0.5},
    "Adam": {"learning_rate": 0.05, "beta_1": 0.5},
    "Adagrad": {"learning_rate": 0.05},
    "RMSprop": {"learning_rate": 0.05, "rho": 0.5},
    "Adadelta": {"learning_rate": 0.05, "rho": 0.5},
    "Adamax": {"learning_rate": 0.05, "beta_2": 0.5},
    "Nadam": {"learning_rate": 0.05},
    "Ftrl": {"learning_rate": 0.05, "l2_regularization_strength": 0.1},
}

EXP_SCHEDULE = dict(initial_learning_rate=0.1, decay_steps=2, decay_rate=0.5)


def make_inputs(case_id, dtype, sparse):
    rs = np.random.RandomState(seed_for(case_id))
    np_dtype = np.dtype(dtype)
    shapes = SPARSE_SHAPES if sparse else DENSE_SHAPES
    init = [rs.uniform(-1.0, 1.0, size=s).astype(np_dtype) for s in shapes]
    steps = []
    for k in range(NUM_STEPS):
        grads = []
        for i, s in enumerate(shapes):
            if sparse:
                idx = SPARSE_INDICES[k][i]
                vals = rs.normal(0.0, 0.7, size=(len(idx),) + tuple(s[1:])).astype(np_dtype)
                grads.append({"indices": list(idx), "values": vals, "dense_shape": list(s)})
            else:
                grads.append(rs.normal(0.0, 0.7, size=s).astype(np_dtype))
        steps.append(grads)
    return shapes, init, steps


def to_tf_grad(g, dtype):
    if isinstance(g, dict):
        return tf.IndexedSlices(
            tf.constant(g["values"], dtype=dtype),
            tf.constant(g["indices"], dtype=tf.int32),
            tf.constant(g["dense_shape"], dtype=tf.int32),
        )
    return tf.constant(g, dtype=dtype)


def grad_json(g):
    if isinstance(g, dict):
        return {"indices": list(g["indices"]), "values": jsonable(g["values"]), "dense_shape": list(g["dense_shape"])}
    return jsonable(g)


def build_kwargs(kwargs):
    """Constructor kwargs for TF (schedule dicts -> schedule objects)."""
    out = dict(kwargs)
    lr = out.get("learning_rate")
    if isinstance(lr, dict) and "__schedule__" in lr:
        out["learning_rate"] = getattr(SCHEDULES, lr["__schedule__"])(**lr["kwargs"])
    return out


def kwargs_json(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, SCHEDULES.LearningRateSchedule):
            out[k] = jsonable(SCHEDULES.serialize(v))
        else:
            out[k] = jsonable(v)
    return out


def run_case(case_id, optimizer, variant, modifier, kwargs, dtype, sparse, api="apply_gradients", set_hyper=None):
    shapes, init, step_grads = make_inputs(case_id, dtype, sparse)
    tf_kwargs = build_kwargs(kwargs)
    cls = getattr(LEGACY, optimizer)
    variables = [tf.Variable(v, dtype=dtype, name=f"var{i}") for i, v in enumerate(init)]
    opt = cls(**tf_kwargs)
    config_before = opt.get_config()
    steps = []
    for k, grads in enumerate(step_grads):
        entry = {}
        if set_hyper and k in set_hyper:
            for hk, hv in set_hyper[k].items():
                setattr(opt, hk, hv)
            entry["set_before"] = dict(set_hyper[k])
        tf_grads = [to_tf_grad(g, dtype) for g in grads]
        if api == "apply_gradients":
            opt.apply_gradients(zip(tf_grads, variables))
        elif api == "minimize":
            assert not sparse

            def loss(tf_grads=tf_grads):
                return tf.add_n([tf.reduce_sum(g * v) for g, v in zip(tf_grads, variables)])

            opt.minimize(loss, var_list=variables)
        else:
            raise ValueError(api)
        entry["grads"] = [grad_json(g) for g in grads]
        entry["vars_after"] = [jsonable(v) for v in variables]
        steps.append(entry)

    slot_names = list(opt.get_slot_names())
    slots = {s: [jsonable(opt.get_slot(v, s)) for v in variables] for s in slot_names}
    assert [w.name for w in opt.weights] == [w.name for w in opt.variables()]
    slot_refs = {id(opt.get_slot(v, s)) for v in variables for s in slot_names}
    weights = []
    for w in opt.variables():
        entry = {"name": w.name, "dtype": w.dtype.name, "shape": list(w.shape)}
        if id(w) not in slot_refs:  # slot values are already under "slots"
            entry["value"] = jsonable(w)
        weights.append(entry)
    config = opt.get_config()
    return {
        "id": case_id,
        "optimizer": optimizer,
        "variant": variant,
        "modifier": modifier,
        "kwargs": kwargs_json(tf_kwargs),
        "dtype": dtype,
        "sparse": sparse,
        "api": api,
        "var_names": [f"var{i}" for i in range(len(init))],
        "shapes": [list(s) for s in shapes],
        "initial_values": [jsonable(v) for v in init],
        "steps": steps,
        "slot_names": slot_names,
        "slots": slots,
        "weights": weights,
        "iterations": int(opt.iterations.numpy()),
        "config_before": jsonable(config_before),
        "config": jsonable(config),
        "config_types": {k: type_name(v) for k, v in config.items()},
    }


def optimizer_cases():
    cases = []
    for optimizer, variants in BASE_CONFIGS.items():
        for variant, kwargs in variants.items():
            dtypes = ["float32", "float64"]
            if (optimizer, variant) in FLOAT16_VARIANTS:
                dtypes = ["float16"] + dtypes
            for dtype in dtypes:
                cid = f"{optimizer}/{variant}/dense/{dtype}"
                cases.append(run_case(cid, optimizer, variant, None, kwargs, dtype, False))
            for dtype in ("float32", "float64"):
                cid = f"{optimizer}/{variant}/sparse/{dtype}"
                cases.append(run_case(cid, optimizer, variant, None, kwargs, dtype, True))

    for optimizer, variant in MODIFIER_BASE.items():
        base = BASE_CONFIGS[optimizer][variant]
        mods = [
            ("decay", dict(base, decay=0.1), {}),
            ("clipnorm", dict(base, clipnorm=0.5), {}),
            ("clipvalue", dict(base, clipvalue=0.3), {}),
            ("global_clipnorm", dict(base, global_clipnorm=0.7), {}),
            ("set_hyper", dict(base), {"set_hyper": {2: SET_HYPER[optimizer]}}),
        ]
        if optimizer != "Nadam":  # Nadam rejects schedules (see errors)
            mods.append(
                (
                    "lr_schedule",
                    dict(base, learning_rate={"__schedule__": "ExponentialDecay", "kwargs": EXP_SCHEDULE}),
                    {},
                )
            )
        for modifier, kwargs, extra in mods:
            kinds = (False,) if modifier in ("set_hyper", "lr_schedule") else (False, True)
            for sparse in kinds:
                kind = "sparse" if sparse else "dense"
                dtypes = ["float32"]
                if modifier in ("decay", "lr_schedule") and not sparse:
                    dtypes.append("float64")
                for dtype in dtypes:
                    cid = f"{optimizer}/{variant}/{modifier}/{kind}/{dtype}"
                    cases.append(run_case(cid, optimizer, variant, modifier, kwargs, dtype, sparse, **extra))

    # `epsilon or backend_config.epsilon()`: epsilon=0.0 silently becomes 1e-7
    for optimizer in ("Adam", "RMSprop"):
        kwargs = dict(learning_rate=0.01, epsilon=0.0)
        cid = f"{optimizer}/epsilon_zero/dense/float64"
        cases.append(run_case(cid, optimizer, "epsilon_zero", None, kwargs, "float64", False))
    # learning-rate schedule combined with inverse-time decay
    kwargs = dict(
        learning_rate={"__schedule__": "ExponentialDecay", "kwargs": EXP_SCHEDULE}, momentum=0.9, decay=0.1
    )
    cases.append(run_case("SGD/momentum/lr_schedule+decay/dense/float32", "SGD", "momentum", "lr_schedule+decay",
                          kwargs, "float32", False))
    # minimize() goes through the same apply_gradients (clipping included)
    for optimizer, kwargs in [
        ("SGD", dict(learning_rate=0.1, momentum=0.9, clipnorm=0.5)),
        ("Adam", dict(learning_rate=0.01, global_clipnorm=0.7)),
        ("RMSprop", dict(learning_rate=0.01, clipvalue=0.3)),
    ]:
        cid = f"{optimizer}/minimize/dense/float32"
        cases.append(run_case(cid, optimizer, "minimize", "minimize", kwargs, "float32", False, api="minimize"))
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids))
    return cases


# --------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------


def error_cases():
    out = []

    def record(cid, optimizer, kwargs, fn, when="construct", match="exact"):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - we record whatever TF raises
            msg = str(e)
            if match == "prefix":
                for cut in ("Allowed kwargs are", "Provided `grads_and_vars`", "Received: var="):
                    if cut in msg:
                        msg = msg[: msg.index(cut)]
                        break
            out.append(
                {
                    "id": cid,
                    "optimizer": optimizer,
                    "kwargs": kwargs_json(kwargs),
                    "when": when,
                    "exception": type(e).__name__,
                    "message": msg,
                    "match": match,
                }
            )
            return
        raise AssertionError(f"{cid}: no exception")

    def ctor(optimizer, kwargs):
        return lambda: getattr(LEGACY, optimizer)(**build_kwargs(kwargs))

    specs = [
        ("SGD/momentum_above_1", "SGD", dict(momentum=1.5)),
        ("SGD/momentum_negative", "SGD", dict(momentum=-0.1)),
        ("RMSprop/momentum_above_1", "RMSprop", dict(momentum=1.5)),
        ("SGD/negative_decay", "SGD", dict(decay=-0.1)),
        ("SGD/negative_clipnorm", "SGD", dict(clipnorm=-1.0)),
        ("SGD/negative_clipvalue", "SGD", dict(clipvalue=-1.0)),
        ("SGD/negative_global_clipnorm", "SGD", dict(global_clipnorm=-1.0)),
        ("SGD/clipnorm_and_global_clipnorm", "SGD", dict(clipnorm=1.0, global_clipnorm=1.0)),
        ("Adagrad/negative_initial_accumulator", "Adagrad", dict(initial_accumulator_value=-0.1)),
        ("Ftrl/negative_initial_accumulator", "Ftrl", dict(initial_accumulator_value=-0.1)),
        ("Ftrl/positive_lr_power", "Ftrl", dict(learning_rate_power=0.5)),
        ("Ftrl/negative_l1", "Ftrl", dict(l1_regularization_strength=-0.1)),
        ("Ftrl/negative_l2", "Ftrl", dict(l2_regularization_strength=-0.1)),
        ("Ftrl/negative_l2_shrinkage", "Ftrl", dict(l2_shrinkage_regularization_strength=-0.1)),
        (
            "Nadam/schedule",
            "Nadam",
            dict(learning_rate={"__schedule__": "ExponentialDecay", "kwargs": EXP_SCHEDULE}),
        ),
    ]
    for cid, optimizer, kwargs in specs:
        record(cid, optimizer, kwargs, ctor(optimizer, kwargs))
    record("SGD/unexpected_kwarg", "SGD", dict(foo=1.0), ctor("SGD", dict(foo=1.0)), match="prefix")

    def no_grads():
        v = tf.Variable([1.0, 2.0], name="var0")
        LEGACY.SGD().apply_gradients([(None, v)])

    record("SGD/no_gradients", "SGD", {}, no_grads, when="apply_gradients", match="prefix")
    return out


# --------------------------------------------------------------------------
# goldens transcribed from tf_keras' legacy optimizer tests
# --------------------------------------------------------------------------

TOL = {
    # assertAllCloseAccordingToType defaults
    "float16": {"rtol": 1e-3, "atol": 1e-3},
    "float32": {"rtol": 1e-6, "atol": 1e-6},
    "float64": {"rtol": 1e-6, "atol": 1e-6},
}


def _tol(dtypes, atol=None):
    out = {d: dict(TOL[d]) for d in dtypes}
    if atol is not None:
        for d in out:
            out[d]["atol"] = max(out[d]["atol"], atol)
    return out


def _ftrl_golden(test, kwargs, init, steps, expected, dtypes=("float16", "float32"), grads=None, note=""):
    return {
        "source": f"tf_keras/optimizers/legacy/ftrl_test.py::FtrlOptimizerTest::{test}",
        "optimizer": "Ftrl",
        "kwargs": kwargs,
        "api": "apply_gradients",
        "dtypes": list(dtypes),
        "initial_values": init,
        "grads": grads if grads is not None else [[0.1, 0.2], [0.01, 0.02]],
        "note": note,
        "checkpoints": [{"after_step": steps, "vars": expected}],
        "tolerance": _tol(dtypes),
    }


def golden_specs():
    g = []
    g.append(
        _ftrl_golden(
            "doTestFtrlwithoutRegularization",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0),
            [[0.0, 0.0], [0.0, 0.0]], 3,
            [[-2.60260963, -4.29698515], [-0.28432083, -0.56694895]],
            dtypes=("float32",),
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlwithoutRegularization2",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0),
            [[1.0, 2.0], [4.0, 3.0]], 3,
            [[-2.55607247, -3.98729396], [-0.28232238, -0.56096673]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithL1",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                 l2_regularization_strength=0.0),
            [[1.0, 2.0], [4.0, 3.0]], 10,
            [[-7.66718769, -10.91273689], [-0.93460727, -1.86147261]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithBeta",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, beta=0.1),
            [[1.0, 2.0], [4.0, 3.0]], 10,
            [[-6.096838, -9.162214], [-0.717741, -1.425132]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithL2_Beta",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.1, beta=0.1),
            [[1.0, 2.0], [4.0, 3.0]], 10,
            [[-2.735487, -4.704625], [-0.294335, -0.586556]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithL1_L2",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                 l2_regularization_strength=2.0),
            [[1.0, 2.0], [4.0, 3.0]], 10,
            [[-0.24059935, -0.46829352], [-0.02406147, -0.04830509]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithL1_L2_L2Shrinkage",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                 l2_regularization_strength=2.0, l2_shrinkage_regularization_strength=0.1),
            [[1.0, 2.0], [4.0, 3.0]], 10,
            [[-0.22578995, -0.44345796], [-0.14378493, -0.13229476]],
        )
    )
    g.append(
        _ftrl_golden(
            "testFtrlWithL1_L2_L2ShrinkageSparse",
            dict(learning_rate=3.0, initial_accumulator_value=0.1, l1_regularization_strength=0.001,
                 l2_regularization_strength=2.0, l2_shrinkage_regularization_strength=0.1),
            [[[1.0], [2.0]], [[4.0], [3.0]]], 10,
            [[[-0.22578995], [2.0]], [[4.0], [-0.13229476]]],
            grads=[
                {"indices": [0], "values": [[0.1]], "dense_shape": [2, 1]},
                {"indices": [1], "values": [[0.02]], "dense_shape": [2, 1]},
            ],
        )
    )
    # gradient_descent_test.py
    g.append(
        {
            "source": "tf_keras/optimizers/legacy/gradient_descent_test.py::GradientDescentOptimizerTest::testBasic",
            "optimizer": "SGD",
            "kwargs": dict(learning_rate=3.0),
            "api": "apply_gradients",
            "dtypes": ["float16", "float32", "float64"],
            "initial_values": [[1.0, 2.0], [3.0, 4.0]],
            "grads": [[0.1, 0.1], [0.01, 0.01]],
            "note": "",
            "checkpoints": [
                {"after_step": 1, "vars": [[1.0 - 3.0 * 0.1, 2.0 - 3.0 * 0.1], [3.0 - 3.0 * 0.01, 4.0 - 3.0 * 0.01]]}
            ],
            "tolerance": _tol(["float16", "float32", "float64"]),
        }
    )
    g.append(
        {
            "source": "tf_keras/optimizers/legacy/gradient_descent_test.py::MomentumOptimizerTest::testBasic",
            "optimizer": "SGD",
            "kwargs": dict(learning_rate=2.0, momentum=0.9),
            "api": "apply_gradients",
            "dtypes": ["float16", "float32", "float64"],
            "initial_values": [[1.0, 2.0], [3.0, 4.0]],
            "grads": [[0.1, 0.1], [0.01, 0.01]],
            "note": "",
            "checkpoints": [
                {
                    "after_step": 1,
                    "vars": [[1.0 - (0.1 * 2.0), 2.0 - (0.1 * 2.0)], [3.0 - (0.01 * 2.0), 4.0 - (0.01 * 2.0)]],
                    "slots": {"momentum": [[-0.2, -0.2], [-0.02, -0.02]]},
                },
                {
                    "after_step": 2,
                    "vars": [
                        [1.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0), 2.0 - (0.1 * 2.0) - ((0.9 * 0.1 + 0.1) * 2.0)],
                        [2.98 - ((0.9 * 0.01 + 0.01) * 2.0), 3.98 - ((0.9 * 0.01 + 0.01) * 2.0)],
                    ],
                    "slots": {
                        "momentum": [
                            [(0.9 * (-0.2) - 2.0 * 0.1), (0.9 * (-0.2) - 2.0 * 0.1)],
                            [(0.9 * (-0.02) - 2.0 * 0.01), (0.9 * (-0.02) - 2.0 * 0.01)],
                        ]
                    },
                },
            ],
            "tolerance": _tol(["float16", "float32", "float64"]),
        }
    )
    # optimizer_v2_test.py clipping tests: loss = 3 * var (grad 3 per element),
    # loss = 3 * var1 + 4 * var2 for the global norm test.
    for test, kwargs, init, grads, expected in [
        ("testGradClipValue", dict(learning_rate=1.0, clipvalue=1.0), [[1.0, 2.0]], [[3.0, 3.0]], [[0.0, 1.0]]),
        ("testGradClipNorm", dict(learning_rate=1.0, clipnorm=1.0), [[1.0]], [[3.0]], [[0.0]]),
        (
            "testGradGlobalClipNorm",
            dict(learning_rate=1.0, global_clipnorm=2.0),
            [[1.0], [2.0]],
            [[3.0], [4.0]],
            [[-0.2], [0.4]],
        ),
    ]:
        g.append(
            {
                "source": f"tf_keras/optimizers/legacy/optimizer_v2_test.py::OptimizerTest::{test}",
                "optimizer": "SGD",
                "kwargs": kwargs,
                "api": "minimize",
                "dtypes": ["float32"],
                "initial_values": init,
                "grads": grads,
                "note": "the test calls minimize() on a linear loss; grads are that loss's gradient",
                "checkpoints": [{"after_step": 1, "vars": expected}],
                "tolerance": _tol(["float32"]),
            }
        )
    # minimize on an embedding lookup: loss = (var0[0] . x)^2 with x = [[4], [5]];
    # gradient = IndexedSlices(2 * pred * x^T, [0]).
    for test_file, cls_name, test, optimizer, kwargs, init, pred, expected, dtypes in [
        (
            "adagrad_test.py", "AdagradOptimizerTest", "testMinimizeSparseResourceVariable", "Adagrad",
            dict(learning_rate=1.0), [[1.0, 2.0], [3.0, 4.0]], 14.0, [[0.0, 1.0], [3.0, 4.0]],
            ["float16", "float32", "float64"],
        ),
        (
            "rmsprop_test.py", "RMSpropOptimizerTest", "testMinimizeSparseResourceVariable", "RMSprop",
            dict(learning_rate=1.0, rho=0.0, momentum=0.0, epsilon=0.0, centered=False), [[1.0, 2.0]], 14.0,
            [[0.0, 1.0]], ["float16", "float32", "float64"],
        ),
        (
            "rmsprop_test.py", "RMSpropOptimizerTest", "testMinimizeSparseResourceVariableCentered", "RMSprop",
            dict(learning_rate=1.0, rho=0.0, momentum=0.0, epsilon=1.0, centered=True), [[1.0, 2.0]], 14.0,
            [[-111.0, -138.0]], ["float16", "float32", "float64"],
        ),
        (
            "ftrl_test.py", "FtrlOptimizerTest", "testMinimizeSparseResourceVariable", "Ftrl",
            dict(learning_rate=1.0), [[1.0, 2.0]], 14.0, [[0.0, 1.0]], ["float16", "float32", "float64"],
        ),
    ]:
        n_rows = len(init)
        g.append(
            {
                "source": f"tf_keras/optimizers/legacy/{test_file}::{cls_name}::{test}",
                "optimizer": optimizer,
                "kwargs": kwargs,
                "api": "minimize",
                "dtypes": dtypes,
                "initial_values": [init],
                "grads": [
                    {"indices": [0], "values": [[2 * pred * 4.0, 2 * pred * 5.0]], "dense_shape": [n_rows, 2]}
                ],
                "note": "loss = (embedding_lookup(var0, [0]) @ [[4], [5]])**2; the gradient is the IndexedSlices "
                "recorded in grads; the test asserts with atol=0.01",
                "checkpoints": [{"after_step": 1, "vars": [expected]}],
                "tolerance": _tol(dtypes, atol=0.01),
            }
        )
    return g


def run_golden(spec):
    results = {}
    for dtype in spec["dtypes"]:
        variables = [tf.Variable(np.asarray(v, dtype=dtype), name=f"var{i}") for i, v in enumerate(spec["initial_values"])]
        opt = getattr(LEGACY, spec["optimizer"])(**spec["kwargs"])
        grads = [to_tf_grad(gr, dtype) for gr in spec["grads"]]
        checkpoints = {c["after_step"]: c for c in spec["checkpoints"]}
        last = max(checkpoints)
        got = []
        for k in range(1, last + 1):
            opt.apply_gradients(zip(grads, variables))
            if k in checkpoints:
                entry = {"after_step": k, "vars": [jsonable(v) for v in variables]}
                if "slots" in checkpoints[k]:
                    entry["slots"] = {
                        s: [jsonable(opt.get_slot(v, s)) for v in variables] for s in checkpoints[k]["slots"]
                    }
                got.append(entry)
                tol = spec["tolerance"][dtype]
                for want, have in zip(checkpoints[k]["vars"], entry["vars"]):
                    np.testing.assert_allclose(have, want, **tol, err_msg=spec["source"])
                for s, vals in checkpoints[k].get("slots", {}).items():
                    for want, have in zip(vals, entry["slots"][s]):
                        np.testing.assert_allclose(have, want, **tol, err_msg=spec["source"])
        results[dtype] = got
    return dict(spec, tf_values=results)


# --------------------------------------------------------------------------
# seeded cases: half precision and long horizons
# --------------------------------------------------------------------------

# TF 2.21 has no CPU kernel for these (optimizer, configuration, dtype, kind):
# `apply_gradients` raises InvalidArgumentError ("No OpKernel was registered
# ..."). They are recorded in "half_precision_unsupported", not run.
TF_UNSUPPORTED = {
    ("Adamax", "bfloat16", False),            # ResourceApplyAdaMax: no bfloat16 CPU kernel
    ("RMSprop/momentum", "bfloat16", True),    # ResourceSparseApplyRMSProp
    ("RMSprop/centered_momentum", "bfloat16", True),  # ResourceSparseApplyCenteredRMSProp
}

HALF_DENSE_SHAPES = [(8,), (3, 5)]     # 8: whole packets; 15: not a packet multiple
HALF_SPARSE_SHAPES = [(6,), (5, 3)]
HALF_SPARSE_ROWS = 4

# regime -> (steps, checkpoint steps or None for every step, lr factor,
#            {dtype: (init DIST, grad DIST)})
HALF_REGIMES = {
    # large gradients and a 10x learning rate, few steps
    "large": (6, None, 10.0, {
        "float16": ({"kind": "uniform", "scale": 20.0}, {"kind": "normal", "scale": 30.0}),
        "bfloat16": ({"kind": "uniform", "scale": 20.0}, {"kind": "normal", "scale": 30.0}),
    }),
    # gradients near the underflow limit (float16: into the subnormals; g*g underflows)
    "tiny": (6, None, 1.0, {
        "float16": ({"kind": "uniform", "scale": 1.0}, {"kind": "loguniform", "lo": 1e-6, "hi": 1e-2}),
        "bfloat16": ({"kind": "uniform", "scale": 1.0}, {"kind": "loguniform", "lo": 1e-12, "hi": 1e-2}),
    }),
    # magnitudes across the whole range: g*g overflows to inf for the largest
    # gradients, underflows for the smallest; values up to half the float16 maximum.
    # bfloat16 stays above 1e-12 so no float32 intermediate is denormal (TF's CPU
    # kernels flush float32 denormals to zero; float16 subnormals are kept).
    "extreme": (8, None, 1.0, {
        "float16": ({"kind": "loguniform", "lo": 1e-3, "hi": 3e4}, {"kind": "loguniform", "lo": 1e-5, "hi": 1e3}),
        "bfloat16": ({"kind": "loguniform", "lo": 1e-6, "hi": 1e30},
                     {"kind": "loguniform", "lo": 1e-12, "hi": 3e19}),
    }),
    # many steps at ordinary magnitudes: rounding accumulates
    "long": (40, [1, 2, 3, 4, 5, 10, 15, 20, 25, 30, 35, 40], 1.0, {
        "float16": ({"kind": "uniform", "scale": 1.0}, {"kind": "normal", "scale": 1.0}),
        "bfloat16": ({"kind": "uniform", "scale": 1.0}, {"kind": "normal", "scale": 1.0}),
    }),
}

# bfloat16 rounds 0.999 to 1.0: 1 - beta_2 ** t is 0, so TF's Adam never moves
# and Nadam produces NaN. The cases use beta_2 = 0.99; one "long" case per
# optimizer keeps the default to pin that behaviour.
HALF_OVERRIDES = {("Adam", "plain", "bfloat16"): {"beta_2": 0.99},
                  ("Nadam", "plain", "bfloat16"): {"beta_2": 0.99},
                  ("Nadam", "schedule_decay", "bfloat16"): {"beta_2": 0.99}}

LONG_STEPS = 40
LONG_DENSE_SHAPES = [(1024,), (13, 29), (3, 5, 7), ()]
LONG_SPARSE_SHAPES = [(400, 8), (1000,)]
LONG_SPARSE_ROWS = 48
LONG_FULL_AT = [LONG_STEPS]    # full variables recorded after these steps
LONG_INIT = {"kind": "uniform", "scale": 1.0}
LONG_GRAD = {"kind": "normal", "scale": 1.0}


def long_schedule(name, lr):
    """The long-horizon learning-rate schedules, scaled to an optimizer's base rate."""
    kinds = {
        "piecewise": ("PiecewiseConstantDecay", dict(boundaries=[10, 25], values=[lr, lr * 0.5, lr * 0.1])),
        "exp": ("ExponentialDecay", dict(initial_learning_rate=lr, decay_steps=10, decay_rate=0.5)),
        "exp_staircase": ("ExponentialDecay",
                          dict(initial_learning_rate=lr, decay_steps=7, decay_rate=0.7, staircase=True)),
        "poly_end": ("PolynomialDecay",
                     dict(initial_learning_rate=lr, decay_steps=30, end_learning_rate=lr * 0.1, power=2.0)),
        "poly_cycle": ("PolynomialDecay", dict(initial_learning_rate=lr, decay_steps=15,
                                               end_learning_rate=lr * 0.1, power=1.0, cycle=True)),
        "inverse_time": ("InverseTimeDecay", dict(initial_learning_rate=lr, decay_steps=5, decay_rate=0.5)),
        "inverse_time_staircase": ("InverseTimeDecay", dict(initial_learning_rate=lr, decay_steps=6,
                                                            decay_rate=1.0, staircase=True)),
        "cosine_warmup": ("CosineDecay", dict(initial_learning_rate=lr * 0.1, decay_steps=25, alpha=0.1,
                                              warmup_target=lr, warmup_steps=8)),
        "cosine_restarts": ("CosineDecayRestarts", dict(initial_learning_rate=lr, first_decay_steps=8,
                                                        t_mul=2.0, m_mul=0.8, alpha=0.05)),
    }
    cls_name, kwargs = kinds[name]
    return cls_name, kwargs


# (optimizer, variant): (dense schedule, sparse schedule, half schedule or None,
#                        set_before {0-based step index: {attr: value}})
LONG_VARIANTS = {
    ("SGD", "momentum"): ("piecewise", "cosine_restarts", "exp_staircase",
                          {12: {"momentum": 0.5}, 26: {"momentum": 0.95}}),
    ("SGD", "nesterov"): ("poly_cycle", "inverse_time", None, {12: {"momentum": 0.0}, 26: {"momentum": 0.8}}),
    ("SGD", "plain"): ("exp", "piecewise", None, {}),
    ("Adam", "plain"): ("cosine_warmup", "poly_end", "piecewise",
                        {12: {"beta_1": 0.5, "beta_2": 0.99}, 26: {"epsilon": 1e-3}}),
    ("Adam", "amsgrad"): ("exp_staircase", "inverse_time_staircase", None,
                          {12: {"beta_2": 0.999}, 26: {"beta_1": 0.0, "epsilon": 1e-4}}),
    ("Adagrad", "default"): ("inverse_time", "exp", "cosine_restarts", {12: {"epsilon": 1e-2}}),
    ("RMSprop", "plain"): ("poly_end", "cosine_warmup", "poly_cycle", {12: {"rho": 0.5}, 26: {"epsilon": 1e-3}}),
    ("RMSprop", "centered_momentum"): ("cosine_restarts", "piecewise", None,
                                       {12: {"momentum": 0.9, "rho": 0.8}, 26: {"epsilon": 1e-4, "momentum": 0.0}}),
    ("Adadelta", "rho_eps"): ("piecewise", "exp_staircase", "inverse_time", {12: {"rho": 0.5}, 26: {"epsilon": 1e-6}}),
    ("Adamax", "plain"): ("inverse_time_staircase", "cosine_restarts", "exp",
                          {12: {"beta_1": 0.5, "beta_2": 0.9}, 26: {"epsilon": 1e-3}}),
    ("Nadam", "plain"): (None, None, None, {12: {"beta_1": 0.8, "beta_2": 0.99, "learning_rate": 0.005},
                                            26: {"epsilon": 1e-4, "learning_rate": 0.02}}),
    ("Ftrl", "all"): ("poly_cycle", "poly_end", "cosine_warmup",
                      {12: {"l1_regularization_strength": 0.2, "beta": 1.0},
                       26: {"l2_regularization_strength": 0.05}}),
    ("Ftrl", "plain"): ("exp", "inverse_time", None, {12: {"l2_regularization_strength": 0.1}}),
}

# Constant learning rate, inverse-time decay, and hyperparameters changed at
# three points (float64 dense, one per optimizer).
LONG_SET_HYPER = {
    "SGD": ("momentum", {9: {"learning_rate": 0.05}, 19: {"momentum": 0.3}, 29: {"learning_rate": 0.2}}),
    "Adam": ("plain", {9: {"learning_rate": 0.005}, 19: {"beta_1": 0.7, "beta_2": 0.9},
                       29: {"learning_rate": 0.02, "epsilon": 1e-5}}),
    "Adagrad": ("default", {9: {"learning_rate": 0.05}, 29: {"learning_rate": 0.2, "epsilon": 1e-3}}),
    "RMSprop": ("centered", {9: {"learning_rate": 0.005}, 19: {"rho": 0.7}, 29: {"epsilon": 1e-4}}),
    "Adadelta": ("plain", {9: {"learning_rate": 0.5}, 19: {"rho": 0.8}, 29: {"epsilon": 1e-5}}),
    "Adamax": ("plain", {9: {"learning_rate": 0.005}, 19: {"beta_1": 0.0}, 29: {"beta_2": 0.99}}),
    "Nadam": ("schedule_decay", {9: {"learning_rate": 0.005}, 19: {"beta_1": 0.95}, 29: {"epsilon": 1e-5}}),
    "Ftrl": ("all", {9: {"learning_rate": 0.05}, 19: {"l1_regularization_strength": 0.0},
                     29: {"learning_rate_power": -0.25, "beta": 0.0}}),
}

LONG_DECAY = 0.05


def base_lr(optimizer, variant):
    return BASE_CONFIGS[optimizer][variant].get("learning_rate", 0.001)


def sample_indices(shape):
    """Flat indices recorded at every step of a long-horizon case (first 8, 8 spread)."""
    n = int(np.prod(shape)) if shape else 1
    idx = set(range(min(8, n))) | set(np.linspace(0, n - 1, 8).astype(int).tolist())
    return sorted(idx)


def to_tf_value(x, dtype):
    """A float64 array of exact `dtype` values as a TF tensor of `dtype` (exact cast)."""
    return tf.cast(tf.constant(np.asarray(x, dtype=np.float64), dtype=tf.float64), dtype)


def from_tf(x):
    """A TF tensor / variable as float64 numpy (exact for every float dtype)."""
    return tf.cast(x, tf.float64).numpy()


def seeded_grad(g, dtype):
    if isinstance(g, dict):
        return tf.IndexedSlices(to_tf_value(g["values"], dtype), tf.constant(g["indices"], dtype=tf.int32),
                                tf.constant(g["dense_shape"], dtype=tf.int32))
    return to_tf_value(g, dtype)


def set_before_json(set_before):
    return {str(k): kwargs_json(build_kwargs(v)) for k, v in sorted(set_before.items())}


def run_seeded_case(cid, optimizer, variant, label, kwargs, inputs, set_before=None, checkpoints=None,
                    compact=False, trace=False):
    """Drive a TF optimizer on inputs rebuilt from `inputs` (optimizer_inputs.make_inputs).

    Returns the case dict (see "Seeded cases" in the module docstring);
    `compact` encodes arrays as base64 bits, `trace` records the sampled
    elements after every step and the slots at those elements only.
    """
    dtype = inputs["dtype"]
    init, step_grads = optimizer_inputs.make_inputs(inputs)
    inputs = dict(inputs, digest=optimizer_inputs.digest(init, step_grads))
    tf_kwargs = build_kwargs(kwargs)
    opt = getattr(LEGACY, optimizer)(**tf_kwargs)
    variables = [tf.Variable(to_tf_value(v, dtype), name=f"var{i}") for i, v in enumerate(init)]
    n = inputs["num_steps"]
    checkpoints = list(range(1, n + 1)) if checkpoints is None else list(checkpoints)
    set_before = set_before or {}
    samples = [sample_indices(v.shape) for v in variables] if trace else None
    traced = [[] for _ in variables]
    recorded = [[] for _ in variables]
    for k, grads in enumerate(step_grads):
        for hk, hv in set_before.get(k, {}).items():
            setattr(opt, hk, build_kwargs({"learning_rate": hv})["learning_rate"] if hk == "learning_rate" else hv)
        opt.apply_gradients(zip([seeded_grad(g, dtype) for g in grads], variables))
        if trace:
            for i, v in enumerate(variables):
                traced[i].append(from_tf(v).reshape(-1)[samples[i]])
        if k + 1 in checkpoints:
            for i, v in enumerate(variables):
                recorded[i].append(from_tf(v))
    slot_names = list(opt.get_slot_names())

    def slot_value(v, i, s):
        value = from_tf(opt.get_slot(v, s))
        if trace:  # long horizons: the traced elements only
            value = value.reshape(-1)[samples[i]]
        return optimizer_inputs.encode(value, dtype, compact)

    slots = {s: [slot_value(v, i, s) for i, v in enumerate(variables)] for s in slot_names}
    slot_refs = {id(opt.get_slot(v, s)) for v in variables for s in slot_names}
    weights = []
    for w in opt.variables():
        entry = {"name": w.name, "dtype": w.dtype.name, "shape": list(w.shape)}
        if id(w) not in slot_refs:
            entry["value"] = int(w.numpy()) if w.dtype.is_integer else float(from_tf(w))
        weights.append(entry)
    config = opt.get_config()
    case = {
        "id": cid,
        "optimizer": optimizer,
        "variant": variant,
        "regime": label,
        "kwargs": kwargs_json(tf_kwargs),
        "dtype": dtype,
        "sparse": bool(inputs.get("sparse_rows")),
        "var_names": [f"var{i}" for i in range(len(init))],
        "inputs": inputs,
        "set_before": set_before_json(set_before),
        "checkpoints": {"after_step": checkpoints,
                        "vars": [optimizer_inputs.encode(np.stack(r), dtype, compact) for r in recorded]},
        "slot_names": slot_names,
        "slots": slots,
        "weights": weights,
        "iterations": int(opt.iterations.numpy()),
        "config": jsonable(config),
    }
    if trace:
        case["trace"] = {"indices": samples,
                         "values": [optimizer_inputs.encode(np.stack(t), dtype, compact) for t in traced]}
    return case


def unsupported(optimizer, variant, dtype, sparse):
    return ((optimizer, dtype, sparse) in TF_UNSUPPORTED
            or (f"{optimizer}/{variant}", dtype, sparse) in TF_UNSUPPORTED)


def check_unsupported(optimizer, variant, kwargs, dtype, sparse):
    """TF still has no kernel: the record of it, with TF's exception."""
    shape = (3, 2)
    v = tf.Variable(tf.zeros(shape, dtype=dtype))
    g = tf.ones(shape, dtype=dtype)
    if sparse:
        g = tf.IndexedSlices(g[:1], tf.constant([1]), tf.constant(shape))
    try:
        getattr(LEGACY, optimizer)(**build_kwargs(kwargs)).apply_gradients([(g, v)])
    except (tf.errors.InvalidArgumentError, tf.errors.NotFoundError) as e:
        msg = str(e)
        assert "No OpKernel was registered" in msg, msg
        return {"optimizer": optimizer, "variant": variant, "dtype": dtype, "sparse": sparse,
                # (the attrs TF lists after the op name come in no stable order)
                "exception": type(e).__name__, "message": msg.splitlines()[0].split(" with these attrs")[0]}
    raise AssertionError(f"TF now runs {optimizer}/{variant} {dtype} sparse={sparse}: add the cases")


def half_precision_cases():
    cases, missing = [], []
    for optimizer, variants in BASE_CONFIGS.items():
        for variant, base in variants.items():
            for dtype in optimizer_inputs.HALF_DTYPES:
                for sparse in (False, True):
                    kind = "sparse" if sparse else "dense"
                    kwargs = dict(base, **HALF_OVERRIDES.get((optimizer, variant, dtype), {}))
                    if unsupported(optimizer, variant, dtype, sparse):
                        missing.append(check_unsupported(optimizer, variant, kwargs, dtype, sparse))
                        continue
                    runs = [(regime, kwargs) for regime in HALF_REGIMES]
                    if (optimizer, variant, dtype) in HALF_OVERRIDES:
                        runs.append(("long/beta_2_rounds_to_1", dict(base)))
                    for regime, kw in runs:
                        steps, checkpoints, lr_factor, dists = HALF_REGIMES[regime.split("/")[0]]
                        kw = dict(kw)
                        if lr_factor != 1.0:
                            kw["learning_rate"] = kw["learning_rate"] * lr_factor
                        cid = f"{optimizer}/{variant}/half:{regime}/{kind}/{dtype}"
                        inputs = {"seed": seed_for(cid), "dtype": dtype,
                                  "shapes": [list(s) for s in (HALF_SPARSE_SHAPES if sparse else HALF_DENSE_SHAPES)],
                                  "num_steps": steps, "init": dists[dtype][0], "grad": dists[dtype][1],
                                  "sparse_rows": HALF_SPARSE_ROWS if sparse else None}
                        cases.append(run_seeded_case(cid, optimizer, variant, regime, kw, inputs,
                                                     checkpoints=checkpoints, compact=True))
    return cases, missing


def schedule_kwargs(name, lr):
    cls_name, kwargs = long_schedule(name, lr)
    return {"__schedule__": cls_name, "kwargs": kwargs}


def long_inputs(cid, dtype, sparse):
    return {"seed": seed_for(cid), "dtype": dtype,
            "shapes": [list(s) for s in (LONG_SPARSE_SHAPES if sparse else LONG_DENSE_SHAPES)],
            "num_steps": LONG_STEPS, "init": LONG_INIT, "grad": LONG_GRAD,
            "sparse_rows": LONG_SPARSE_ROWS if sparse else None}


def long_horizon_cases():
    cases, missing = [], []

    def add(cid, optimizer, variant, label, kwargs, dtype, sparse, set_before):
        if unsupported(optimizer, variant, dtype, sparse):
            missing.append(check_unsupported(optimizer, variant, kwargs, dtype, sparse))
            return
        cases.append(run_seeded_case(cid, optimizer, variant, label, kwargs, long_inputs(cid, dtype, sparse),
                                     set_before=set_before, checkpoints=LONG_FULL_AT, compact=True, trace=True))

    for (optimizer, variant), (dense_s, sparse_s, half_s, set_before) in LONG_VARIANTS.items():
        base = BASE_CONFIGS[optimizer][variant]
        lr = base_lr(optimizer, variant)
        runs = [(dense_s, "float32", False), (sparse_s, "float32", True)]
        if half_s is not None or (optimizer, variant) == ("Nadam", "plain"):
            runs += [(half_s, "float16", False), (half_s, "bfloat16", False)]
        for sched, dtype, sparse in runs:
            kwargs = dict(base, **HALF_OVERRIDES.get((optimizer, variant, dtype), {}))
            if sched is not None:
                kwargs["learning_rate"] = schedule_kwargs(sched, lr)
            label = sched or "constant"
            kind = "sparse" if sparse else "dense"
            add(f"{optimizer}/{variant}/long:{label}/{kind}/{dtype}", optimizer, variant, label, kwargs, dtype,
                sparse, set_before)
    for optimizer, (variant, set_before) in LONG_SET_HYPER.items():
        kwargs = dict(BASE_CONFIGS[optimizer][variant], decay=LONG_DECAY)
        add(f"{optimizer}/{variant}/long:set_hyper+decay/dense/float64", optimizer, variant, "set_hyper+decay",
            kwargs, "float64", False, set_before)
    # a schedule replaced by a constant midway, and the other way round
    add("SGD/momentum/long:schedule_to_constant/dense/float32", "SGD", "momentum", "schedule_to_constant",
        dict(BASE_CONFIGS["SGD"]["momentum"], learning_rate=schedule_kwargs("exp", 0.1)), "float32", False,
        {15: {"learning_rate": 0.05}})
    add("Adam/plain/long:constant_to_schedule/dense/float32", "Adam", "plain", "constant_to_schedule",
        dict(BASE_CONFIGS["Adam"]["plain"], decay=LONG_DECAY), "float32", False,
        {15: {"learning_rate": schedule_kwargs("exp_staircase", 0.02)}})
    return cases, missing


# --------------------------------------------------------------------------
# schedules
# --------------------------------------------------------------------------

SCHEDULE_STEPS = [0, 1, 2, 3, 4, 5, 7, 10, 13, 15, 20, 25, 30, 40, 50, 75, 100, 1000]
LONG_SCHEDULE_STEPS = list(range(0, 46))


def schedule_specs():
    return [
        ("ExponentialDecay/continuous", "ExponentialDecay",
         dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5)),
        ("ExponentialDecay/staircase", "ExponentialDecay",
         dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=True)),
        ("ExponentialDecay/float64", "ExponentialDecay",
         dict(initial_learning_rate=np.float64(0.1), decay_steps=10, decay_rate=0.96)),
        ("PiecewiseConstantDecay/float", "PiecewiseConstantDecay",
         dict(boundaries=[5, 20, 40], values=[1.0, 0.5, 0.1, 0.01])),
        ("PiecewiseConstantDecay/int_values", "PiecewiseConstantDecay",
         dict(boundaries=[5, 20], values=[3, 2, 1])),
        ("PolynomialDecay/linear", "PolynomialDecay",
         dict(initial_learning_rate=0.1, decay_steps=20)),
        ("PolynomialDecay/power_end", "PolynomialDecay",
         dict(initial_learning_rate=0.1, decay_steps=20, end_learning_rate=0.01, power=0.5)),
        ("PolynomialDecay/cycle", "PolynomialDecay",
         dict(initial_learning_rate=0.1, decay_steps=20, end_learning_rate=0.01, power=2.0, cycle=True)),
        ("InverseTimeDecay/continuous", "InverseTimeDecay",
         dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5)),
        ("InverseTimeDecay/staircase", "InverseTimeDecay",
         dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=True)),
        ("CosineDecay/plain", "CosineDecay", dict(initial_learning_rate=0.1, decay_steps=20)),
        ("CosineDecay/alpha", "CosineDecay", dict(initial_learning_rate=0.1, decay_steps=20, alpha=0.1)),
        ("CosineDecay/warmup", "CosineDecay",
         dict(initial_learning_rate=0.0, decay_steps=20, alpha=0.1, warmup_target=0.2, warmup_steps=10)),
        ("CosineDecayRestarts/plain", "CosineDecayRestarts",
         dict(initial_learning_rate=0.1, first_decay_steps=10)),
        ("CosineDecayRestarts/t_mul1_m_mul_alpha", "CosineDecayRestarts",
         dict(initial_learning_rate=0.1, first_decay_steps=10, t_mul=1.0, m_mul=0.5, alpha=0.1)),
        ("CosineDecayRestarts/t_mul3", "CosineDecayRestarts",
         dict(initial_learning_rate=0.1, first_decay_steps=5, t_mul=3.0, m_mul=0.9, alpha=0.05)),
    ]


def long_schedule_specs():
    """The schedules the long-horizon optimizer cases use, at every step they reach."""
    used = set()
    for (optimizer, variant), (dense_s, sparse_s, half_s, _) in LONG_VARIANTS.items():
        for name in (dense_s, sparse_s, half_s):
            if name is not None:
                used.add((name, base_lr(optimizer, variant)))
    used |= {("exp", 0.1), ("exp_staircase", 0.02)}
    out = []
    for name, lr in sorted(used):
        cls_name, kwargs = long_schedule(name, lr)
        out.append((f"long_horizon/{name}/lr={lr!r}", cls_name, kwargs))
    return out


def schedule_entries():
    out = []
    specs = [(sid, cls_name, kwargs, SCHEDULE_STEPS) for sid, cls_name, kwargs in schedule_specs()]
    specs += [(sid, cls_name, kwargs, LONG_SCHEDULE_STEPS) for sid, cls_name, kwargs in long_schedule_specs()]
    for sid, cls_name, kwargs, steps in specs:
        sched = getattr(SCHEDULES, cls_name)(**kwargs)
        vals = [sched(s) for s in steps]
        dtypes = {v.dtype.name for v in vals}
        assert len(dtypes) == 1, (sid, dtypes)
        out.append(
            {
                "id": sid,
                "class_name": cls_name,
                "kwargs": jsonable(kwargs),
                "steps": list(steps),
                "values": [jsonable(v) for v in vals],
                "dtype": dtypes.pop(),
                "config": jsonable(sched.get_config()),
                "serialized": jsonable(SCHEDULES.serialize(sched)),
            }
        )
    return out


# --------------------------------------------------------------------------


def main():
    versions = {"tensorflow": tf.__version__, "tf_keras": tf_keras.__version__, "numpy": np.__version__}
    os.makedirs(FIXTURES, exist_ok=True)
    optimizers = {
        "generator": "tests/conformance/gen_optimizers.py",
        "versions": versions,
        "cases": optimizer_cases(),
        "errors": error_cases(),
        "tf_keras_test_goldens": [run_golden(s) for s in golden_specs()],
    }
    half, half_missing = half_precision_cases()
    long, long_missing = long_horizon_cases()
    optimizers["half_precision_cases"] = half
    optimizers["long_horizon_cases"] = long
    optimizers["half_precision_unsupported"] = half_missing + long_missing
    for section in ("half_precision_cases", "long_horizon_cases"):
        ids = [c["id"] for c in optimizers[section]]
        assert len(ids) == len(set(ids)), section
    n1 = generator_env.dump(os.path.join(FIXTURES, "optimizers.json"), optimizers)
    schedules = {
        "generator": "tests/conformance/gen_optimizers.py",
        "versions": versions,
        "schedules": schedule_entries(),
    }
    n2 = generator_env.dump(os.path.join(FIXTURES, "schedules.json"), schedules)
    print(f"optimizers.json: {len(optimizers['cases'])} cases, {len(optimizers['errors'])} errors, "
          f"{len(optimizers['tf_keras_test_goldens'])} goldens, {len(half)} half-precision cases, "
          f"{len(long)} long-horizon cases, {len(optimizers['half_precision_unsupported'])} unsupported, "
          f"{n1} bytes")
    print(f"schedules.json: {len(schedules['schedules'])} schedules, {n2} bytes")


if __name__ == "__main__":
    main()
