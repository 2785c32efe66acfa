"""Golden table of the Keras leaf modules: activations, regularizers, constraints, the
deterministic initializers, the initializers' errors and every module's configs.

Each case is written against the module `tf` (TensorFlow 2.21 with tf_keras 2.21 when
recording, `gen_leaf.py`; tfcompat when testing, `test_leaf_golden.py`), in the format of
`tests/ops/golden/harness.py`, whose error model sets every tolerance below:

* `ulps=0` where both sides run the same correctly rounded operations (relu's selections,
  masks and clips, hard_sigmoid's multiply-add-clip, linear, the constant initializers);
* the default `DEFAULT_ULPS` for libm-quality functions (exp, tanh, erf, softplus, ...);
* `n`/`terms` for the reductions (softmax's sum, the penalties' sums, the constraints'
  norms), `accumulate="float32"` where TF and torch sum half floats in float32.

Random initializers cannot match TF's Philox bits; their cases record dtypes and shapes
(`values=False`); their laws (bounds, variance, orthogonality, seeds) are in
`tests/keras/initializers/`.
"""

from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np

from tests.ops.golden.harness import Case, Grad

_X = [-10.0, -3.0, -1.5, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.5, 3.0, 6.0, 7.0, 20.0]
_FLOATS = ("float32", "float64", "float16", "bfloat16")
_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
       "bfloat16": ml_dtypes.bfloat16}
_rng = np.random.RandomState(7)
_W = _rng.uniform(-2.0, 2.0, size=(4, 3))
_W3 = _rng.uniform(-2.0, 2.0, size=(2, 3, 4))
_RADIAL_ODD = _rng.uniform(-1.0, 1.0, size=(3, 3, 2, 2))
_RADIAL_EVEN = _rng.uniform(-1.0, 1.0, size=(4, 4, 1, 2))
_LOGITS = np.array([[-2.0, 0.5, 3.0, 1.0, -0.25, 4.0, 0.0],
                    [10.0, -10.0, 0.1, 0.2, 0.3, -1.0, 2.0]])


def _x(tf, dtype, values=_X):
    return tf.cast(tf.constant(values, dtype=tf.float64), dtype)


def _act(tf, name):
    # tf_keras 2.21 exports only some names; `get` resolves all of them in both libraries.
    return tf.keras.activations.get(name)


def _saving(tf):
    saving = tf.keras.saving
    if hasattr(saving, "serialize_keras_object"):
        return saving
    return importlib.import_module("tfcompat.keras.saving.serialization")


# (call, ulps, smooth): ulps None is the default (libm-quality functions). `smooth` marks
# the functions built from libm functions whose formulas add terms that cancel: gelu's
# `1 + erf`/`1 + tanh`, and every gradient's `1 - tanh**2`, `s * (1 - s)`,
# `s + x * s * (1 - s)`. The model's class 3 then applies with the terms' size
# S = 1 + |x| and n = 4 roundings (the function's own libm rounding, inherited by the
# gradient formula, and the formula's additions and products).
_ACTIVATIONS = {
    "relu": (lambda tf, x: tf.keras.activations.relu(x), 0, False),
    "relu_alpha": (lambda tf, x: tf.keras.activations.relu(x, alpha=0.1), 0, False),
    "relu_max6": (lambda tf, x: tf.keras.activations.relu(x, max_value=6.0), 0, False),
    "relu_max3_5": (lambda tf, x: tf.keras.activations.relu(x, max_value=3.5), 0, False),
    "relu_threshold": (lambda tf, x: tf.keras.activations.relu(x, threshold=1.0), 0, False),
    "relu_all": (lambda tf, x: tf.keras.activations.relu(x, alpha=0.25, max_value=5.0,
                                                         threshold=0.5), 0, False),
    "relu_alpha_max": (lambda tf, x: tf.keras.activations.relu(x, alpha=0.5, max_value=4.0),
                       0, False),
    "sigmoid": (lambda tf, x: tf.keras.activations.sigmoid(x), None, True),
    "tanh": (lambda tf, x: tf.keras.activations.tanh(x), None, True),
    "elu": (lambda tf, x: tf.keras.activations.elu(x), None, True),
    "elu_alpha": (lambda tf, x: tf.keras.activations.elu(x, alpha=0.5), None, True),
    "selu": (lambda tf, x: tf.keras.activations.selu(x), None, True),
    "softplus": (lambda tf, x: tf.keras.activations.softplus(x), None, True),
    "softsign": (lambda tf, x: tf.keras.activations.softsign(x), None, True),
    "swish": (lambda tf, x: tf.keras.activations.swish(x), None, True),
    "silu": (lambda tf, x: _act(tf, "silu")(x), None, True),
    "gelu": (lambda tf, x: tf.keras.activations.gelu(x), None, True),
    "gelu_tanh": (lambda tf, x: tf.keras.activations.gelu(x, approximate=True), None, True),
    "exponential": (lambda tf, x: tf.keras.activations.exponential(x), None, False),
    "hard_sigmoid": (lambda tf, x: tf.keras.activations.hard_sigmoid(x), 0, False),
    "linear": (lambda tf, x: tf.keras.activations.linear(x), 0, False),
    "mish": (lambda tf, x: tf.keras.activations.mish(x), None, True),
    "relu6": (lambda tf, x: _act(tf, "relu6")(x), 0, False),
    "leaky_relu": (lambda tf, x: _act(tf, "leaky_relu")(x), 0, False),
}


def _one_plus_abs(dtype):
    """S = 1 + |x| per element, in `dtype` (the size of the terms that cancel)."""
    return lambda tf: tf.constant(1.0 + np.abs(np.array(_X)), dtype=dtype)


CASES: dict = {}
GRADIENTS: dict = {}

for _name, (_fn, _ulps, _smooth) in _ACTIVATIONS.items():
    for _dt in _FLOATS:
        extra = dict(n=4, terms=_one_plus_abs(_dt)) if _smooth else {}
        CASES[f"act_{_name}_{_dt}"] = Case(
            lambda tf, fn=_fn, dt=_dt: fn(tf, _x(tf, dt)), ulps=_ulps, **extra)
    for _dt in _FLOATS:
        extra = dict(n=4, terms=lambda tf, dt=_dt: [_one_plus_abs(dt)(tf)]) if _smooth else {}
        GRADIENTS[f"act_{_name}_{_dt}"] = Grad(
            lambda tf, v, fn=_fn: fn(tf, v), [np.array(_X, dtype=_NP[_dt])], ulps=_ulps,
            **extra)

# Softmax: `k - 1` additions of positive terms, the exp before and the division after.
for _dt in _FLOATS:
    CASES[f"act_softmax_{_dt}"] = Case(
        lambda tf, dt=_dt: tf.keras.activations.softmax(_x(tf, dt, _LOGITS)), n=8)
    CASES[f"act_softmax_axis0_{_dt}"] = Case(
        lambda tf, dt=_dt: tf.keras.activations.softmax(_x(tf, dt, _LOGITS), axis=0), n=3)
    CASES[f"act_log_softmax_{_dt}"] = Case(
        lambda tf, dt=_dt: _act(tf, "log_softmax")(_x(tf, dt, _LOGITS)), n=9,
        terms="normwise")
CASES["act_softmax_axes_float32"] = Case(
    lambda tf: tf.keras.activations.softmax(_x(tf, "float32", _LOGITS), axis=(0, 1)), n=16)
CASES["act_softmax_1d_error"] = Case(
    lambda tf: tf.keras.activations.softmax(tf.constant([1.0, 2.0])), match_message=True)
for _dt in ("float32", "float64"):
    GRADIENTS[f"act_softmax_weighted_{_dt}"] = Grad(
        lambda tf, v: tf.keras.activations.softmax(v) * tf.constant(
            [[1.0, -2.0, 3.0, 0.5, -1.0, 2.0, 1.5], [0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 1.0]],
            dtype=v.dtype),
        [_LOGITS.astype(_dt)], n=10, terms="normwise")

# -- regularizers --------------------------------------------------------------------------

_REGULARIZERS = {
    "l1": (lambda tf: tf.keras.regularizers.L1(), 12),
    "l1_03": (lambda tf: tf.keras.regularizers.l1(0.3), 12),
    "l2": (lambda tf: tf.keras.regularizers.L2(), 13),
    "l2_05": (lambda tf: tf.keras.regularizers.l2(l2=0.5), 13),
    "l1l2": (lambda tf: tf.keras.regularizers.L1L2(l1=0.1, l2=0.2), 14),
    "l1_l2_default": (lambda tf: tf.keras.regularizers.l1_l2(), 14),
    "l1l2_l1_only": (lambda tf: tf.keras.regularizers.L1L2(l1=0.1), 14),
}
for _name, (_make, _n) in _REGULARIZERS.items():
    for _dt in ("float32", "float64"):
        CASES[f"reg_{_name}_{_dt}"] = Case(
            lambda tf, make=_make, dt=_dt: make(tf)(_x(tf, dt, _W)), n=_n)
        GRADIENTS[f"reg_{_name}_{_dt}"] = Grad(
            lambda tf, v, make=_make: make(tf)(v), [_W.astype(_dt)], ulps=0)
    CASES[f"reg_{_name}_float16"] = Case(
        lambda tf, make=_make: make(tf)(_x(tf, "float16", _W)), n=_n, accumulate="float32")
for _mode in ("rows", "columns"):
    for _dt in ("float32", "float64"):
        CASES[f"reg_orthogonal_{_mode}_{_dt}"] = Case(
            lambda tf, mode=_mode, dt=_dt: tf.keras.regularizers.OrthogonalRegularizer(
                factor=0.1, mode=mode)(_x(tf, dt, _W)), n=30)
CASES["reg_config_l2"] = lambda tf: tf.keras.regularizers.L2(0.3).get_config()
CASES["reg_config_l1l2"] = lambda tf: tf.keras.regularizers.l1_l2().get_config()
CASES["reg_config_orthogonal"] = lambda tf: tf.keras.regularizers.OrthogonalRegularizer(
    0.2, "columns").get_config()
CASES["reg_serialize_l1l2"] = lambda tf: tf.keras.regularizers.serialize(
    tf.keras.regularizers.L1L2(l1=0.5))
CASES["reg_get_unknown_name"] = lambda tf: tf.keras.regularizers.get("nope")
CASES["reg_get_l1_l2"] = lambda tf: tf.keras.regularizers.get("l1_l2").get_config()
CASES["reg_get_L2_class_name"] = lambda tf: tf.keras.regularizers.get("L2").get_config()
CASES["reg_get_legacy"] = lambda tf: tf.keras.regularizers.get(
    {"class_name": "L1", "config": {"l1": 0.25}}).get_config()
CASES["reg_get_int_error"] = Case(lambda tf: tf.keras.regularizers.get(5), match_message=True)
CASES["reg_string_factor_error"] = Case(lambda tf: tf.keras.regularizers.L2("a"),
                                        match_message=True)
CASES["reg_nan_factor_error"] = Case(lambda tf: tf.keras.regularizers.L1(float("nan")),
                                     match_message=True)
CASES["reg_unknown_kwarg_error"] = Case(lambda tf: tf.keras.regularizers.L2(x=1),
                                        match_message=True)
CASES["reg_orthogonal_mode_error"] = Case(
    lambda tf: tf.keras.regularizers.OrthogonalRegularizer(mode="x"), match_message=True)
CASES["reg_orthogonal_rank_error"] = Case(
    lambda tf: tf.keras.regularizers.OrthogonalRegularizer()(tf.ones((2, 2, 2))),
    match_message=True)
CASES["reg_base_get_config_error"] = Case(
    lambda tf: tf.keras.regularizers.Regularizer().get_config())

# -- constraints ---------------------------------------------------------------------------

_CONSTRAINTS = {
    "max_norm": (lambda tf: tf.keras.constraints.MaxNorm(max_value=2.0, axis=0), _W, 8),
    "max_norm_axes": (lambda tf: tf.keras.constraints.max_norm(1.5, axis=[0, 1]), _W3, 10),
    "unit_norm": (lambda tf: tf.keras.constraints.UnitNorm(axis=1), _W, 7),
    "min_max_norm": (lambda tf: tf.keras.constraints.MinMaxNorm(0.5, 1.5, rate=0.7, axis=0),
                     _W, 11),
    "min_max_norm_inverted": (lambda tf: tf.keras.constraints.MinMaxNorm(2.0, 1.0), _W, 11),
    "non_neg": (lambda tf: tf.keras.constraints.NonNeg(), _W, 0),
    "radial_odd": (lambda tf: tf.keras.constraints.RadialConstraint(), _RADIAL_ODD, 0),
    "radial_even": (lambda tf: tf.keras.constraints.RadialConstraint(), _RADIAL_EVEN, 0),
    "identity": (lambda tf: tf.keras.constraints.Constraint(), _W, 0),
}
for _name, (_make, _w, _n) in _CONSTRAINTS.items():
    for _dt in ("float32", "float64"):
        CASES[f"con_{_name}_{_dt}"] = Case(
            lambda tf, make=_make, w=_w, dt=_dt: make(tf)(_x(tf, dt, w)),
            ulps=0 if _n == 0 else None, n=_n)
CASES["con_max_norm_float16"] = Case(
    lambda tf: tf.keras.constraints.MaxNorm()(_x(tf, "float16", _W)), n=8,
    accumulate="float32")
CASES["con_radial_rank_error"] = Case(
    lambda tf: tf.keras.constraints.RadialConstraint()(tf.ones((2, 2))), match_message=True)
CASES["con_get_unknown_error"] = Case(lambda tf: tf.keras.constraints.get("nope"),
                                      match_message=True)
CASES["con_get_int_error"] = Case(lambda tf: tf.keras.constraints.get(5), match_message=True)
for _alias in ("maxnorm", "nonneg", "unitnorm", "max_norm", "min_max_norm", "MaxNorm"):
    CASES[f"con_get_{_alias}"] = lambda tf, a=_alias: tf.keras.constraints.serialize(
        tf.keras.constraints.get(a))
CASES["con_config_min_max"] = lambda tf: tf.keras.constraints.MinMaxNorm(
    0.1, 2.0, 0.5, [0, 1]).get_config()
CASES["con_get_legacy"] = lambda tf: tf.keras.constraints.get(
    {"class_name": "MaxNorm", "config": {"max_value": 3, "axis": 1}}).get_config()

# -- initializers --------------------------------------------------------------------------

for _dt in ("float32", "float64", "float16", "bfloat16", "int32", "int64", "bool"):
    CASES[f"init_zeros_{_dt}"] = Case(
        lambda tf, dt=_dt: tf.keras.initializers.Zeros()((2, 3), dtype=dt), ulps=0)
    CASES[f"init_ones_{_dt}"] = Case(
        lambda tf, dt=_dt: tf.keras.initializers.Ones()((3,), dtype=dt), ulps=0)
CASES["init_zeros_default_dtype"] = Case(lambda tf: tf.keras.initializers.zeros()((2,)), ulps=0)
CASES["init_constant_scalar"] = Case(
    lambda tf: tf.keras.initializers.Constant(3.5)((2, 2)), ulps=0)
CASES["init_constant_float16"] = Case(
    lambda tf: tf.keras.initializers.Constant(0.1)((2,), dtype="float16"), ulps=0)
CASES["init_constant_list"] = Case(
    lambda tf: tf.keras.initializers.Constant([1.0, 2.0, 3.0, 4.0])((2, 2)), ulps=0)
CASES["init_constant_count_error"] = Case(
    lambda tf: tf.keras.initializers.Constant([1.0, 2.0])((3,)))
for _dt in ("float32", "float64", "float16"):
    CASES[f"init_identity_{_dt}"] = Case(
        lambda tf, dt=_dt: tf.keras.initializers.Identity(gain=2.5)((2, 3), dtype=dt), ulps=0)
CASES["init_identity_rank_error"] = Case(
    lambda tf: tf.keras.initializers.Identity()((2, 3, 4)), match_message=True)
CASES["init_identity_int_error"] = Case(
    lambda tf: tf.keras.initializers.Identity()((2, 2), dtype="int32"), match_message=True)
CASES["init_zeros_partition"] = Case(
    lambda tf: tf.keras.initializers.Zeros()((4, 2), partition_shape=(2, 2),
                                             partition_offset=(2, 0)), ulps=0)

_RANDOM = {
    "random_uniform": lambda tf, **k: tf.keras.initializers.RandomUniform(**k),
    "random_normal": lambda tf, **k: tf.keras.initializers.RandomNormal(**k),
    "truncated_normal": lambda tf, **k: tf.keras.initializers.TruncatedNormal(**k),
    "variance_scaling": lambda tf, **k: tf.keras.initializers.VarianceScaling(**k),
    "glorot_uniform": lambda tf, **k: tf.keras.initializers.GlorotUniform(**k),
    "glorot_normal": lambda tf, **k: tf.keras.initializers.GlorotNormal(**k),
    "he_uniform": lambda tf, **k: tf.keras.initializers.HeUniform(**k),
    "he_normal": lambda tf, **k: tf.keras.initializers.HeNormal(**k),
    "lecun_uniform": lambda tf, **k: tf.keras.initializers.LecunUniform(**k),
    "lecun_normal": lambda tf, **k: tf.keras.initializers.LecunNormal(**k),
    "orthogonal": lambda tf, **k: tf.keras.initializers.Orthogonal(**k),
}
for _name, _make in _RANDOM.items():
    for _dt in ("float32", "float64", "float16", "bfloat16"):
        if _name == "orthogonal" and _dt in ("float16", "bfloat16"):
            continue  # TF's Qr kernel has no half types
        CASES[f"init_{_name}_{_dt}_shape"] = Case(
            lambda tf, make=_make, dt=_dt: make(tf, seed=3)((3, 2, 4), dtype=dt), values=False)
    CASES[f"init_{_name}_int_error"] = Case(
        lambda tf, make=_make: make(tf, seed=1)((2, 2), dtype="int32"), match_message=True)
    CASES[f"init_{_name}_kwarg_error"] = Case(
        lambda tf, make=_make: make(tf, seed=1)((2, 2), foo=1), match_message=True)
    CASES[f"init_{_name}_config"] = lambda tf, make=_make: make(tf, seed=5).get_config()
    CASES[f"init_{_name}_serialize"] = lambda tf, make=_make: tf.keras.initializers.serialize(
        make(tf, seed=5))
    CASES[f"init_{_name}_legacy_serialize"] = lambda tf, make=_make: \
        tf.keras.initializers.serialize(make(tf), use_legacy_format=True)
CASES["init_random_uniform_int_dtype"] = Case(
    lambda tf: tf.keras.initializers.RandomUniform(0, 10, seed=1)((5,), dtype="int32"),
    values=False)
CASES["init_random_uniform_bool_error"] = Case(
    lambda tf: tf.keras.initializers.RandomUniform()((2,), dtype="bool"), match_message=True)
CASES["init_orthogonal_rank_error"] = Case(
    lambda tf: tf.keras.initializers.Orthogonal()((2,)), match_message=True)
CASES["init_orthogonal_partition_error"] = Case(
    lambda tf: tf.keras.initializers.Orthogonal()((2, 2), partition_offset=(0, 0)),
    match_message=True)
CASES["init_variance_scaling_scale_error"] = Case(
    lambda tf: tf.keras.initializers.VarianceScaling(scale=-1), match_message=True)
CASES["init_variance_scaling_mode_error"] = Case(
    lambda tf: tf.keras.initializers.VarianceScaling(mode="x"))
CASES["init_variance_scaling_distribution_error"] = Case(
    lambda tf: tf.keras.initializers.VarianceScaling(distribution="x"))
CASES["init_variance_scaling_normal_alias"] = lambda tf: tf.keras.initializers.VarianceScaling(
    distribution="Normal").get_config()
for _name in ("Zeros", "Ones", "Identity"):
    CASES[f"init_serialize_{_name}"] = lambda tf, n=_name: tf.keras.initializers.serialize(
        getattr(tf.keras.initializers, n)())
CASES["init_serialize_constant"] = lambda tf: tf.keras.initializers.serialize(
    tf.keras.initializers.Constant(2.5))
for _alias in ("glorot_uniform", "he_normal", "zeros", "ones", "normal", "uniform", "one",
               "zero", "GlorotUniformV2", "orthogonal", "identity", "VarianceScaling",
               "truncated_normal", "lecun_uniform", "constant"):
    CASES[f"init_get_{_alias}"] = lambda tf, a=_alias: tf.keras.initializers.serialize(
        tf.keras.initializers.get(a))
CASES["init_get_unknown_error"] = Case(lambda tf: tf.keras.initializers.get("nope"),
                                       match_message=True)
CASES["init_get_int_error"] = Case(lambda tf: tf.keras.initializers.get(5), match_message=True)
CASES["init_get_unknown_new_format"] = lambda tf: tf.keras.initializers.get(
    {"module": "keras.initializers", "class_name": "Nope", "config": {},
     "registered_name": None})
CASES["init_get_new_format"] = lambda tf: tf.keras.initializers.get(
    {"module": "keras.initializers", "class_name": "RandomNormal",
     "config": {"mean": 1.0, "stddev": 2.0, "seed": 4}, "registered_name": None}).get_config()
CASES["init_get_legacy_format"] = lambda tf: tf.keras.initializers.get(
    {"class_name": "VarianceScaling",
     "config": {"scale": 2.0, "mode": "fan_out", "distribution": "uniform", "seed": None}}
).get_config()
CASES["init_get_legacy_dtype_dropped"] = lambda tf: tf.keras.initializers.get(
    {"class_name": "Zeros", "config": {"dtype": "float32"}}).get_config()

# -- activation names and configs ----------------------------------------------------------

for _name in ("relu", "sigmoid", "softmax", "elu", "selu", "softplus", "softsign", "swish",
              "silu", "gelu", "tanh", "exponential", "hard_sigmoid", "linear", "mish",
              "relu6", "leaky_relu", "log_softmax"):
    CASES[f"act_serialize_{_name}"] = lambda tf, n=_name: tf.keras.activations.serialize(
        tf.keras.activations.get(n))
CASES["act_serialize_tf_nn_relu"] = lambda tf: tf.keras.activations.serialize(tf.nn.relu)
CASES["act_serialize_tf_nn_softmax"] = lambda tf: tf.keras.activations.serialize(tf.nn.softmax)
CASES["act_get_none"] = lambda tf: tf.keras.activations.serialize(tf.keras.activations.get(None))
CASES["act_get_builtins_record"] = lambda tf: tf.keras.activations.serialize(
    tf.keras.activations.get({"module": "builtins", "class_name": "function",
                              "config": "relu", "registered_name": "function"}))
CASES["act_get_new_record"] = lambda tf: tf.keras.activations.serialize(
    tf.keras.activations.get({"module": "keras.activations", "class_name": "function",
                              "config": "tanh", "registered_name": "tanh"}))
CASES["act_get_unknown_error"] = Case(lambda tf: tf.keras.activations.get("nope"),
                                      match_message=True)
CASES["act_get_int_error"] = Case(lambda tf: tf.keras.activations.get(5), match_message=True)
CASES["act_serialize_keras_object_relu"] = lambda tf: _saving(tf).serialize_keras_object(
    tf.keras.activations.relu)
CASES["saving_serialize_tensor"] = lambda tf: _saving(tf).serialize_keras_object(
    {"a": tf.constant([1.0, 2.0]), "b": [1, "x", None], "c": np.array([1, 2], "int64"),
     "d": np.float32(0.5), "e": tf.float16})
CASES["saving_serialize_constant_tensor"] = lambda tf: tf.keras.initializers.serialize(
    tf.keras.initializers.Constant(tf.constant([[1.0, 2.0]])))
CASES["saving_constant_round_trip"] = Case(lambda tf: tf.keras.initializers.deserialize(
    tf.keras.initializers.serialize(tf.keras.initializers.Constant(tf.constant([1.5, 2.5]))))
    ((2,)), ulps=0)
CASES["saving_deserialize_unknown_class"] = Case(
    lambda tf: _saving(tf).deserialize_keras_object(
        {"module": "keras.initializers", "class_name": "Nope", "config": {},
         "registered_name": None}), match_message=True)
CASES["saving_deserialize_module_none"] = Case(
    lambda tf: tf.keras.initializers.deserialize(
        {"module": None, "class_name": "Nope", "config": {}, "registered_name": None}),
    match_message=True)
CASES["saving_deserialize_plain"] = lambda tf: _saving(tf).deserialize_keras_object(
    {"a": 1, "b": [2.5, "x"]})
