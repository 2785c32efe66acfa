"""Replay TF's recorded optimizer runs (`optimizers.json`) through tfcompat.

Every case of the fixture (recorded from tf_keras 2.21 legacy optimizers by
`tests/conformance/gen_optimizers.py`) runs on both update paths (the
multi-tensor fast path and the per-variable reference path), and is checked
after every step (variables) and at the end (slots, `get_slot_names()`,
`opt.weights` names/dtypes/shapes/values, `iterations`, `get_config()`
before and after, and the Python types of the config values). The fixture's
`errors` and `tf_keras_test_goldens` sections are replayed too. Runs without
TensorFlow.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.conformance.fixtures import load_fixture

from optimizer_info import INFO_BY_NAME, OPTIMIZER_INFOS, build, to_numpy, to_tf_grad, tolerance

DATA = load_fixture("optimizers")
CASES = DATA["cases"]
ERRORS = DATA["errors"]
GOLDENS = DATA["tf_keras_test_goldens"]
CASE_BY_ID = {c["id"]: c for c in CASES}
PATHS = ("multi_tensor", "reference")


def _close(actual: Any, expected: Any, tol: tuple, what: str) -> None:
    rtol, atol = tol
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol, err_msg=what)


def _jsonable(x: Any) -> Any:
    """A `get_config()` value as the fixture's JSON (numbers as Python numbers)."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, torch.Tensor):
        x = x.detach().cpu().numpy()
    if isinstance(x, np.ndarray):
        return x.astype(np.float64).tolist() if x.dtype.kind == "f" else x.tolist()
    if isinstance(x, np.generic):
        return float(x) if x.dtype.kind == "f" else x.item()
    return x


def _type_name(x: Any) -> str:
    """The generator's `type_name`: numpy scalars by dtype, others by class."""
    if isinstance(x, np.generic):
        return x.dtype.name
    return type(x).__name__


class _Run:
    """What one replay of a fixture case produced."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.config_before: dict = {}
        self.history: list = []  # per step: [np array per variable]
        self.opt: Any = None
        self.variables: list = []


@functools.lru_cache(maxsize=None)
def replay(case_id: str, path: str) -> _Run:
    """Run case `case_id` on `path` once; the tests below inspect the result."""
    case = CASE_BY_ID[case_id]
    run = _Run()
    dtype = np.dtype(case["dtype"])
    try:
        opt = build(case["optimizer"], case["kwargs"], multi_tensor=(path == "multi_tensor"))
        run.opt = opt
        run.config_before = opt.get_config()
        variables = [tf.Variable(np.array(v, dtype=dtype), name=n)
                     for v, n in zip(case["initial_values"], case["var_names"])]
        run.variables = variables
        for st in case["steps"]:
            for k, v in st.get("set_before", {}).items():
                setattr(opt, k, v)
            grads = [to_tf_grad(g, dtype) for g in st["grads"]]
            if case["api"] == "minimize":
                def loss(grads=grads):
                    return tf.add_n([tf.reduce_sum(tf.multiply(g, v)) for g, v in zip(grads, variables)])
                opt.minimize(loss, var_list=variables)
            else:
                opt.apply_gradients(zip(grads, variables))
            run.history.append([to_numpy(v) for v in variables])
    except Exception as e:  # reported by every test of the case
        run.error = e
    return run


def _replayed(case: dict, path: str) -> _Run:
    run = replay(case["id"], path)
    if run.error is not None:
        raise AssertionError(f"{case['id']} on the {path} path raised "
                             f"{type(run.error).__name__}: {run.error}") from run.error
    return run


def _tol(case: dict) -> tuple:
    return tolerance(case["dtype"], case["optimizer"], case["config"])


CASE_PARAMS = [pytest.param(c, p, id=f"{c['id']}-{p}") for c in CASES for p in PATHS]


@pytest.mark.parametrize("case,path", CASE_PARAMS)
def test_variables_after_each_step(case, path):
    run = _replayed(case, path)
    for k, (st, got) in enumerate(zip(case["steps"], run.history)):
        for i, (g, want) in enumerate(zip(got, st["vars_after"])):
            assert g.dtype == np.dtype(case["dtype"]), (case["id"], i, g.dtype)
            _close(g, want, _tol(case), f"{case['id']} [{path}]: var{i} after step {k + 1}")


@pytest.mark.parametrize("case,path", CASE_PARAMS)
def test_slots_weights_and_iterations(case, path):
    run = _replayed(case, path)
    opt, variables = run.opt, run.variables
    assert list(opt.get_slot_names()) == case["slot_names"]
    for name, per_var in case["slots"].items():
        for i, want in enumerate(per_var):
            slot = opt.get_slot(variables[i], name)
            assert slot.dtype.name == case["dtype"], (name, i)
            _close(to_numpy(slot), want, _tol(case), f"{case['id']} [{path}]: slot {name} of var{i}")
    weights = opt.weights
    assert [w.name for w in weights] == [w["name"] for w in case["weights"]]
    assert [w.name for w in opt.variables()] == [w["name"] for w in case["weights"]]
    for w, want in zip(weights, case["weights"]):
        assert w.dtype.name == want["dtype"], want["name"]
        assert list(w.shape) == want["shape"], want["name"]
        if "value" in want:
            if want["dtype"].startswith("int"):
                assert int(w.numpy()) == want["value"], want["name"]
            else:
                _close(to_numpy(w), want["value"], tolerance(want["dtype"]), want["name"])
    assert int(opt.iterations.numpy()) == case["iterations"]
    assert opt.iterations.dtype.name == "int64"
    # get_weights() follows the same order
    values = opt.get_weights()
    assert len(values) == len(case["weights"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_get_config_before_and_after(case):
    run = _replayed(case, "multi_tensor")
    before = run.config_before
    assert _jsonable(before) == case["config_before"]
    # Before the first step the hyperparameters are the Python values passed in.
    for key, value in before.items():
        want = case["config_before"][key]
        if isinstance(want, float):
            assert type(value) is float, (key, type(value))
    assert _jsonable(run.opt.get_config()) == case["config"]
    assert _jsonable(replay(case["id"], "reference").opt.get_config()) == case["config"]


@pytest.mark.parametrize("info", OPTIMIZER_INFOS, ids=[i.name for i in OPTIMIZER_INFOS])
def test_get_config_value_types_after_steps(info):
    """After the first apply TF returns `np.float32` for hyperparameters (variable reads)."""
    mismatches = []
    for case in CASES:
        if case["optimizer"] != info.name:
            continue
        config = _replayed(case, "multi_tensor").opt.get_config()
        got = {k: _type_name(v) for k, v in config.items()}
        if got != case["config_types"]:
            diff = {k: (got.get(k), t) for k, t in case["config_types"].items() if got.get(k) != t}
            mismatches.append(f"{case['id']}: {diff} (got, TF)")
    assert not mismatches, f"{len(mismatches)} cases differ, e.g. " + "; ".join(mismatches[:3])


def test_table_matches_fixture():
    """The declarative table agrees with what TF recorded for every base variant."""
    seen = set()
    for case in CASES:
        if case["modifier"] is not None:
            continue
        info = INFO_BY_NAME[case["optimizer"]]
        cfg = info.config(case["variant"])
        seen.add((info.name, cfg.name))
        assert tuple(case["slot_names"]) == cfg.slots, case["id"]
        assert info.expected_config(cfg) == case["config_before"], case["id"]
        assert [w["name"] for w in case["weights"]] == info.weight_names(cfg, tuple(case["var_names"]))
    assert {i.name for i in OPTIMIZER_INFOS} == {n for n, _ in seen}


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------


def _error_kwargs(err):
    """The generator writes a schedule argument as {"__schedule__": class, "kwargs": ...}."""
    kwargs = dict(err["kwargs"])
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict) and "__schedule__" in lr:
        kwargs["learning_rate"] = getattr(tf.keras.optimizers.schedules, lr["__schedule__"])(**lr["kwargs"])
    return kwargs


@pytest.mark.parametrize("err", ERRORS, ids=[e["id"] for e in ERRORS])
def test_errors(err):
    if err["when"] == "construct":
        def action():
            build(err["optimizer"], _error_kwargs(err))
    else:
        assert err["when"] == "apply_gradients"
        var0 = tf.Variable([1.0, 2.0], name="var0")

        def action():
            build(err["optimizer"], err["kwargs"]).apply_gradients([(None, var0)])
    with pytest.raises(Exception) as info:
        action()
    assert type(info.value).__name__ == err["exception"]
    msg = str(info.value)
    if err["match"] == "exact":
        assert msg == err["message"]
    else:
        assert msg.startswith(err["message"]), (msg, err["message"])


# ---------------------------------------------------------------------------
# goldens from tf_keras' own legacy optimizer tests
# ---------------------------------------------------------------------------

GOLDEN_PARAMS = [
    pytest.param(g, dtype, path, id=f"{g['source'].split('::')[-1]}/{g['optimizer']}/{dtype}-{path}")
    for g in GOLDENS for dtype in g["dtypes"] for path in PATHS
]


@pytest.mark.parametrize("golden,dtype,path", GOLDEN_PARAMS)
def test_tf_keras_test_goldens(golden, dtype, path):
    opt = build(golden["optimizer"], golden["kwargs"], multi_tensor=(path == "multi_tensor"))
    variables = [tf.Variable(np.array(v, dtype=dtype), name=f"var{i}")
                 for i, v in enumerate(golden["initial_values"])]
    grads = [to_tf_grad(g, dtype) for g in golden["grads"]]
    dense = not any(isinstance(g, dict) for g in golden["grads"])
    checkpoints = {c["after_step"]: c for c in golden["checkpoints"]}
    tf_values = {c["after_step"]: c for c in golden["tf_values"][dtype]}
    tol = golden["tolerance"][dtype]
    for k in range(1, max(checkpoints) + 1):
        if golden["api"] == "minimize" and dense:
            opt.minimize(lambda: tf.add_n([tf.reduce_sum(tf.multiply(g, v)) for g, v in zip(grads, variables)]),
                         var_list=variables)
        else:
            opt.apply_gradients(zip(grads, variables))
        if k not in checkpoints:
            continue
        for i, v in enumerate(variables):
            got = to_numpy(v)
            np.testing.assert_allclose(got.astype(np.float64), checkpoints[k]["vars"][i], rtol=tol["rtol"],
                                       atol=tol["atol"], err_msg=f"{golden['source']} var{i} (test's numbers)")
            _close(got, tf_values[k]["vars"][i], tolerance(dtype, golden["optimizer"], golden["kwargs"]),
                   f"{golden['source']} var{i} vs TF")
        for name, per_var in checkpoints[k].get("slots", {}).items():
            for i, want in enumerate(per_var):
                got = to_numpy(opt.get_slot(variables[i], name)).astype(np.float64)
                np.testing.assert_allclose(got, want, rtol=tol["rtol"], atol=tol["atol"])
                _close(got, tf_values[k]["slots"][name][i], tolerance(dtype), f"slot {name} of var{i} vs TF")
