"""Check that ``numpy_reference`` reproduces real TensorFlow bit-for-bit-ish.

Every case of ``tests/conformance/fixtures/optimizers.json`` (recorded from
tf_keras 2.21 legacy optimizers) is replayed through the pure-numpy reference
and compared with the recorded variables (after every step), slots, Nadam's
momentum cache and the iteration count. Runs without TensorFlow.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import numpy_reference as ref  # noqa: E402
from tests.conformance.fixtures import load_fixture  # noqa: E402

# Tolerances (rtol, atol) per dtype. float64 matches TF to the last couple of
# ulps; float32 differs only where TF's kernels use vectorised
# exp/log/pow/rsqrt or a different summation order (clipping norms).
TOLERANCES = {
    "float64": (1e-13, 1e-15),
    "float32": (1e-6, 1e-7),
    "float16": (1e-3, 1e-4),
}

# Ftrl with learning_rate_power not in (-0.5, 0) raises the accumulator to a
# general power; TF's vectorised (Eigen) pow differs from libm's pow by an
# ulp, and the (acc_new**-p - acc**-p) / lr * var term amplifies that into
# ~1e-6 absolute differences of `linear` in float32 (~1e-15 in float64).
FTRL_GENERAL_POWER = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)}


def case_tolerance(case):
    """(rtol, atol) used for ``case``."""
    dtype = case["dtype"]
    if (
        case["optimizer"] == "Ftrl"
        and dtype in FTRL_GENERAL_POWER
        and float(case["config"]["learning_rate_power"]) not in (-0.5, 0.0)
    ):
        return FTRL_GENERAL_POWER[dtype]
    return TOLERANCES[dtype]


DATA = load_fixture("optimizers")
CASES = DATA["cases"]
GOLDENS = DATA["tf_keras_test_goldens"]


def _grad(g, dtype):
    if isinstance(g, dict):
        return ref.Sparse(
            np.asarray(g["indices"], dtype=np.int64),
            np.asarray(g["values"], dtype=dtype),
            tuple(g["dense_shape"]),
        )
    return np.asarray(g, dtype=dtype)


def _close(actual, expected, dtype, what, tol=None):
    rtol, atol = tol or TOLERANCES[dtype]
    np.testing.assert_allclose(
        np.asarray(actual, dtype=np.float64),
        np.asarray(expected, dtype=np.float64),
        rtol=rtol,
        atol=atol,
        err_msg=what,
    )


def replay(case):
    """Run ``case`` through the reference; yields (step, vars) and returns the optimizer."""
    dtype = np.dtype(case["dtype"])
    opt = ref.ReferenceOptimizer(case["optimizer"], case["config_before"])
    variables = [np.array(v, dtype=dtype) for v in case["initial_values"]]
    history = []
    for st in case["steps"]:
        for k, v in st.get("set_before", {}).items():
            opt.set_hyper(k, v)
        opt.apply_gradients([_grad(g, dtype) for g in st["grads"]], variables)
        history.append([v.copy() for v in variables])
    return opt, variables, history


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_matches_tensorflow(case):
    dtype = case["dtype"]
    tol = case_tolerance(case)
    opt, variables, history = replay(case)
    for k, (st, got) in enumerate(zip(case["steps"], history)):
        for i, (g, want) in enumerate(zip(got, st["vars_after"])):
            assert g.dtype == np.dtype(dtype)
            _close(g, want, dtype, f"{case['id']}: var{i} after step {k + 1}", tol)
    assert opt.iterations == case["iterations"]
    assert ref.slot_names(case["optimizer"], case["config"]) == case["slot_names"]
    for name, per_var in case["slots"].items():
        for i, want in enumerate(per_var):
            assert opt.slots[i][name].dtype == np.dtype(dtype)
            _close(opt.slots[i][name], want, dtype, f"{case['id']}: slot {name} of var{i}", tol)
    # opt.variables(): iter, [momentum_cache], slots in TF's creation order
    order = ref.weight_order(case["optimizer"], case["config"], case["var_names"])
    assert len(order) == len(case["weights"])
    prefix = case["config"]["name"]
    for (kind, slot, idx), w in zip(order, case["weights"]):
        if kind == "iter":
            assert w["name"] == f"{prefix}/iter:0" and w["dtype"] == "int64"
            assert w["value"] == case["iterations"]
        elif kind == "momentum_cache":
            assert w["name"] == f"{prefix}/momentum_cache:0"
            _close(opt.momentum_cache, w["value"], w["dtype"], f"{case['id']}: momentum_cache")
        else:
            assert w["name"] == f"{prefix}/{case['var_names'][idx]}/{slot}:0"
            assert w["dtype"] == dtype


def test_fixture_covers_the_brief():
    ids = {c["id"] for c in CASES}
    for name in ref.OPTIMIZERS:
        assert any(c["optimizer"] == name and c["sparse"] for c in CASES), name
        for dt in ("float32", "float64"):
            assert any(c["optimizer"] == name and c["dtype"] == dt and not c["sparse"] for c in CASES), name
    for mod in ("decay", "lr_schedule", "clipnorm", "clipvalue", "global_clipnorm", "set_hyper", "minimize"):
        assert any(c["modifier"] == mod for c in CASES), mod
    assert "Adam/plain/dense/float16" in ids


@pytest.mark.parametrize("golden", GOLDENS, ids=[g["source"].split("::")[-1] + "/" + g["optimizer"] for g in GOLDENS])
def test_tf_keras_test_goldens(golden):
    """The numbers hard-coded in tf_keras' own tests, through the reference."""
    for dtype in golden["dtypes"]:
        opt = ref.ReferenceOptimizer(golden["optimizer"], golden["kwargs"])
        variables = [np.array(v, dtype=dtype) for v in golden["initial_values"]]
        checkpoints = {c["after_step"]: c for c in golden["checkpoints"]}
        tol = golden["tolerance"][dtype]
        tf_values = {c["after_step"]: c for c in golden["tf_values"][dtype]}
        for k in range(1, max(checkpoints) + 1):
            opt.apply_gradients([_grad(g, dtype) for g in golden["grads"]], variables)
            if k not in checkpoints:
                continue
            for i, (v, want, tf_v) in enumerate(zip(variables, checkpoints[k]["vars"], tf_values[k]["vars"])):
                np.testing.assert_allclose(v.astype(np.float64), want, rtol=tol["rtol"], atol=tol["atol"])
                _close(v, tf_v, dtype, f"{golden['source']} {dtype} var{i} vs TF")
            for name, per_var in checkpoints[k].get("slots", {}).items():
                for i, want in enumerate(per_var):
                    np.testing.assert_allclose(
                        opt.slots[i][name].astype(np.float64), want, rtol=tol["rtol"], atol=tol["atol"]
                    )


def test_step_function_api():
    """``step`` is usable on its own and leaves its inputs untouched."""
    var = np.array([1.0, 2.0], dtype=np.float32)
    slots = ref.initial_slots("Adagrad", {"learning_rate": 0.1}, var)
    assert slots["accumulator"].dtype == np.float32
    np.testing.assert_array_equal(slots["accumulator"], np.float32(0.1))
    new_var, new_slots = ref.step("Adagrad", {"learning_rate": 0.1}, var, np.array([0.5, -0.5], np.float32), slots, 0)
    np.testing.assert_array_equal(var, [1.0, 2.0])
    np.testing.assert_array_equal(slots["accumulator"], np.float32(0.1))
    assert new_var.dtype == np.float32 and new_slots["accumulator"].dtype == np.float32
    # duplicate indices are summed before the Adagrad sparse rule
    v2, _ = ref.step("Adagrad", {"learning_rate": 0.1}, var, np.array([0.25, 0.25], np.float32), slots, 0,
                     indices=[0, 0])
    np.testing.assert_array_equal(v2, np.array([new_var[0], 2.0], np.float32))


def test_nadam_rejects_schedules():
    with pytest.raises(ValueError, match="does not support"):
        ref.ReferenceOptimizer("Nadam", {"learning_rate": {"class_name": "ExponentialDecay", "config": {}}})


def test_schedules_match_tensorflow():
    """The schedule formulas used for ``learning_rate`` schedules."""
    for entry in load_fixture("schedules")["schedules"]:
        for s, want in zip(entry["steps"], entry["values"]):
            got = ref.schedule_value(entry["serialized"], s, entry["dtype"])
            assert np.asarray(got).dtype.name == entry["dtype"], entry["id"]
            if entry["dtype"].startswith("int"):
                assert int(got) == want, (entry["id"], s)
            else:
                _close(got, want, entry["dtype"], f"{entry['id']} at step {s}")
