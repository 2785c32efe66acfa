"""Replay TF's recorded optimizer runs (`optimizers.json`) through tfcompat.

Every case of the fixture (recorded from tf_keras 2.21 legacy optimizers by
`tests/conformance/gen_optimizers.py`) runs on both update paths (the
multi-tensor fast path and the per-variable reference path), and is checked
after every step (variables) and at the end (slots, `get_slot_names()`,
`opt.weights` names/dtypes/shapes/values, `iterations`, `get_config()`
before and after, and the Python types of the config values). The fixture's
`errors` and `tf_keras_test_goldens` sections are replayed too. Runs without
TensorFlow.

The seeded sections (`half_precision_cases`: float16/bfloat16 in regimes
where rounding decides the result; `long_horizon_cases`: 40 steps across
schedule boundaries with hyperparameters set midway, on large variables)
rebuild their inputs from the fixture's recipe (`optimizer_inputs`), run on
both paths and compare every recorded step, the slots, the non-slot weights,
`iterations` and `get_config()`, exactly or within the per-dtype bound
derived below (`_exact`, `STEP_ULPS`).

Every case with sparse gradients is replayed once more under
`accelerator_policy()` (TF's GPU semantics: no index read on the host, the
static-shape deduplication, duplicates reduced in one unordered pass) and
must give the CPU replay's values bit for bit, except for the one freedom
TF's GPU kernels have: the rounding of a sum of duplicate rows in half
precision (see `test_seeded_sparse_case_under_accelerator_policy`).
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.keras.optimizers import multi_tensor
from tfcompat.testing import accelerator_policy
from tests.conformance import optimizer_inputs
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


def _policy(accelerator: bool) -> Any:
    """`accelerator_policy()` when `accelerator`, else nothing (CPU tensors as CPU tensors)."""
    return accelerator_policy() if accelerator else contextlib.nullcontext()


@functools.lru_cache(maxsize=None)
def replay(case_id: str, path: str, accelerator: bool = False) -> _Run:
    """Run case `case_id` on `path` once (under `accelerator_policy()` if `accelerator`); the
    tests below inspect the result."""
    with _policy(accelerator):
        return _replay(case_id, path)


def _replay(case_id: str, path: str) -> _Run:
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


# ---------------------------------------------------------------------------
# seeded cases: half precision and long horizons
# ---------------------------------------------------------------------------

HALF_CASES = DATA.get("half_precision_cases", [])
LONG_CASES = DATA.get("long_horizon_cases", [])
SEEDED_BY_ID = {c["id"]: c for c in HALF_CASES + LONG_CASES}


def _seeded_value(x: Any, dtype: torch.dtype) -> torch.Tensor:
    """float64 values of the case's dtype as a torch tensor of that dtype (exact)."""
    return torch.from_numpy(np.array(x, dtype=np.float64, order="C")).to(dtype)  # (keeps 0-d)


def _seeded_grad(g: Any, dtype: torch.dtype) -> Any:
    if isinstance(g, dict):
        return tf.IndexedSlices(_seeded_value(g["values"], dtype),
                                torch.from_numpy(g["indices"]).to(torch.int32),
                                torch.tensor(g["dense_shape"], dtype=torch.int32))
    return _seeded_value(g, dtype)


def _as_float64(x: Any) -> np.ndarray:
    t = x if isinstance(x, torch.Tensor) else tf.convert_to_tensor(x)
    return t.detach().cpu().to(torch.float64).numpy()


def _set_value(v: Any) -> Any:
    """A `set_before` value: floats as they are, a serialized schedule rebuilt."""
    if isinstance(v, dict):
        return tf.keras.optimizers.schedules.deserialize(v)
    return v


class _SeededRun:
    """What one replay of a seeded case produced (float64 numpy throughout)."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.steps_done = 0
        self.checkpoints: dict = {}   # after_step -> [array per variable]
        self.trace: list = []         # per variable: [sampled values per step]
        self.slots: dict = {}
        self.weights: list = []
        self.iterations: int = -1
        self.config: dict = {}


def _presummed(g: Any) -> Any:
    """A sparse gradient with its duplicates summed beforehand as the accelerator path sums them
    (`deduplicate_padded`, one `index_add_`), so its indices are unique; dense ones unchanged."""
    if not isinstance(g, tf.IndexedSlices):
        return g
    summed, indices, real = multi_tensor.deduplicate_padded(g.values, g.indices)
    u = int(real.sum())
    return tf.IndexedSlices(summed[:u], indices[:u], g.dense_shape)


@functools.lru_cache(maxsize=None)
def replay_seeded(case_id: str, path: str, accelerator: bool = False, presum: bool = False) -> _SeededRun:
    """Rebuild case `case_id`'s inputs, run it on `path` once, keep what the tests compare.

    `accelerator`: under `accelerator_policy()`; `presum`: with each sparse
    gradient's duplicates summed beforehand by `_presummed`.
    """
    with _policy(accelerator):
        return _replay_seeded(case_id, path, presum)


def _replay_seeded(case_id: str, path: str, presum: bool) -> _SeededRun:
    case = SEEDED_BY_ID[case_id]
    run = _SeededRun()
    dtype = getattr(torch, case["dtype"])
    init, steps = optimizer_inputs.make_inputs(case["inputs"])
    assert optimizer_inputs.digest(init, steps) == case["inputs"]["digest"], (
        f"{case_id}: the rebuilt inputs differ from the generator's (numpy's RandomState stream changed?)")
    samples = case["trace"]["indices"] if "trace" in case else None
    run.trace = [[] for _ in init]
    checkpoints = set(case["checkpoints"]["after_step"])
    try:
        opt = build(case["optimizer"], case["kwargs"], multi_tensor=(path == "multi_tensor"))
        variables = [tf.Variable(_seeded_value(v, dtype), name=n) for v, n in zip(init, case["var_names"])]
        for k, grads in enumerate(steps):
            for name, value in case["set_before"].get(str(k), {}).items():
                setattr(opt, name, _set_value(value))
            given = [_seeded_grad(g, dtype) for g in grads]
            opt.apply_gradients(zip([_presummed(g) for g in given] if presum else given, variables))
            run.steps_done = k + 1
            values = [_as_float64(v) for v in variables]
            if samples is not None:
                for i, val in enumerate(values):
                    run.trace[i].append(val.reshape(-1)[samples[i]])
            if k + 1 in checkpoints:
                run.checkpoints[k + 1] = values
        for name in case["slot_names"]:
            per_var = []
            for i, v in enumerate(variables):
                val = _as_float64(opt.get_slot(v, name))
                per_var.append(val.reshape(-1)[samples[i]] if samples is not None else val)
            run.slots[name] = per_var
        run.weights = [(w.name, w.dtype.name, list(w.shape), _as_float64(w)) for w in opt.weights]
        run.iterations = int(opt.iterations.numpy())
        run.config = _jsonable(opt.get_config())
    except Exception as e:  # reported by the test, with how far the run got
        run.error = e
    return run


# How closely a seeded case must match TF.
#
# Exact (bit for bit; NaN and infinities in the same places) wherever TF's
# sequence of operations can be replayed with operations torch rounds
# correctly in the variable's dtype:
#
# * float16 / bfloat16, every optimizer: TF's CPU kernels round every
#   operation to the dtype (Eigen::half / Eigen::bfloat16 compute each
#   operation in float32 and round back), and so do torch's half-precision
#   CPU operations. That float32 intermediate is exact for + - * / and sqrt
#   of half-precision operands (24 >= 2 * 11 + 2 bits, so rounding twice is
#   rounding once), and the few transcendental operations (`pow` of the beta
#   powers, Adadelta's `rsqrt`, Ftrl's general `pow`) are evaluated in
#   float32 with an error far below half a float16 ulp. An op-by-op torch
#   replay of TF's kernels reproduces all of these cases bit for bit (see
#   the generator's docstring). Two details it needs: Eigen evaluates dense
#   half-precision expressions in packets of 8 (the elements of whole
#   packets get float32 `rsqrt`/`sqrt` of the float32 value, the tail and
#   the sparse kernels' short rows the scalar `half(1 / sqrt(x))` with `sqrt`
#   rounded to the dtype first), and Eigen's `cwiseMax` keeps its first
#   operand when the second is NaN (AMSGrad's `vhat`).
# * float32 / float64 SGD and Adamax: only + - * /, max, abs and the scalar
#   `pow` of the beta power (glibc's `pow` in both TF and torch), and the
#   learning-rate schedule (scalar; TF evaluates exp / cos / log / pow with
#   glibc, correctly rounded in practice: a schedule computed in float64 and
#   rounded reproduces it; torch's float32 `cos` does not).
#
# Otherwise (float32 / float64 Adam, Adagrad, RMSprop, Adadelta, Nadam,
# Ftrl) TF's kernels apply `sqrt` to whole tensors and, for float32
# Adadelta and the sparse RMSprop-with-momentum kernels, Eigen's
# approximate packet `rsqrt` (`_mm256_rsqrt_ps` and one Newton step: its
# bits depend on the CPU vendor). torch's vectorised CPU `sqrt` is not
# correctly rounded (1 ulp off for ~16% of float32 and ~1.3% of float64
# inputs with torch 2.13 on x86), so these cases get a bound, derived as
# follows. Each step of a correct implementation computes the update u_t of
# every element with a relative error of at most a few ulps (one or two
# 1-ulp operations), then rounds var_t = var_{t-1} - u_t (half an ulp of
# var_t): one step adds at most `STEP_ULPS` ulps of the variable's
# magnitude when |u_t| <= |var|, and since the gradients are fixed inputs
# the errors of successive steps add (the slot recurrences are contractions:
# beta, rho < 1). So after n steps the allowance is n * STEP_ULPS ulps of
# the variable's scale (the largest magnitude TF's trajectory of that
# variable reaches), a norm-wise bound: an element that crosses zero keeps
# the absolute error of its neighbours. Slots are bounded the same way with
# their own scale.
STEP_ULPS = 2
EXACT_OPTIMIZERS_WIDE = ("SGD", "Adamax")


def _exact(case: dict) -> bool:
    return case["dtype"] in optimizer_inputs.HALF_DTYPES or case["optimizer"] in EXACT_OPTIMIZERS_WIDE


def _seeded_params(cases: list) -> list:
    return [pytest.param(c, p, id=f"{c['id']}-{p}") for c in cases for p in PATHS]


def _mismatch(got: np.ndarray, want: np.ndarray, dtype: str, exact: bool, steps: int, scale: float,
              step_ulps: float = STEP_ULPS) -> str:
    """'' when `got` matches `want` under the case's rule (exact, or `step_ulps` ulps of `scale`
    per step), else what differs."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    if same.all():
        return ""
    finite = np.isfinite(got) & np.isfinite(want)
    nonfinite = int((~same & ~finite).sum())
    diff = np.where(finite & ~same, np.abs(got - want), 0.0)
    unit = float(optimizer_inputs.ulp(scale, dtype))
    allowed = 0.0 if exact else steps * step_ulps * unit
    if nonfinite == 0 and diff.max() <= allowed:
        return ""
    worst = np.unravel_index(np.argmax(diff), diff.shape) if diff.size else ()
    return (f"{int((~same).sum())} of {same.size} elements differ ({nonfinite} NaN/inf mismatches); "
            f"max |diff| {diff.max():.6g} = {diff.max() / unit:.3g} ulps of the scale {scale:.6g} "
            f"(allowed {'0 (exact)' if exact else f'{steps * step_ulps} ulps'}); "
            f"at {tuple(int(i) for i in worst)}: got {got[worst]!r}, TF {want[worst]!r}")


def _scale(*arrays: np.ndarray) -> float:
    """The largest finite magnitude in `arrays` (a variable's scale along TF's trajectory)."""
    vals = [np.abs(a[np.isfinite(a)]).max() for a in arrays if np.isfinite(a).any()]
    return float(max(vals)) if vals else 0.0


def _check_seeded_end_state(case: dict, run: _SeededRun, errors: list) -> None:
    """Slots, non-slot weights, `iterations` and `get_config()` after the run, against TF's."""
    exact, dtype, n = _exact(case), case["dtype"], case["inputs"]["num_steps"]
    for name, per_var in case["slots"].items():
        for i, want in enumerate(per_var):
            want = optimizer_inputs.decode(want)
            why = _mismatch(run.slots[name][i], want, dtype, exact, n, _scale(want))
            if why:
                errors.append(f"slot {name} of var{i} after step {n}: {why}")
    names = [(w["name"], w["dtype"], w["shape"]) for w in case["weights"]]
    if [w[:3] for w in run.weights] != names:
        errors.append(f"opt.weights {[w[:3] for w in run.weights]} != TF's {names}")
    else:
        for (wname, wdtype, _, value), want in zip(run.weights, case["weights"]):
            if "value" in want and not np.array_equal(value, np.float64(want["value"]), equal_nan=True):
                errors.append(f"{wname} = {value!r}, TF {want['value']!r}")
    if run.iterations != case["iterations"]:
        errors.append(f"iterations {run.iterations} != TF's {case['iterations']}")
    if run.config != case["config"]:
        diff = {k: (run.config.get(k), v) for k, v in case["config"].items() if run.config.get(k) != v}
        errors.append(f"get_config() differs (tfcompat, TF): {diff}")


def _report(case: dict, path: str, run: _SeededRun, errors: list) -> None:
    """Fail with the run's exception, or with the differences found (first few)."""
    if run.error is not None:
        raise AssertionError(f"{case['id']} [{path}] raised at step {run.steps_done + 1}: "
                             f"{type(run.error).__name__}: {run.error}") from run.error
    if errors:
        rule = "exact" if _exact(case) else f"{STEP_ULPS} ulps/step"
        raise AssertionError(f"{case['id']} [{path}] vs TF ({rule}):\n  " + "\n  ".join(errors[:6])
                             + (f"\n  ... {len(errors) - 6} more" if len(errors) > 6 else ""))


@pytest.mark.parametrize("case", HALF_CASES + LONG_CASES, ids=[c["id"] for c in HALF_CASES + LONG_CASES])
def test_seeded_inputs_rebuild(case):
    """The replay rebuilds exactly the inputs the generator fed TF (numpy's frozen RandomState)."""
    init, steps = optimizer_inputs.make_inputs(case["inputs"])
    assert optimizer_inputs.digest(init, steps) == case["inputs"]["digest"]
    assert len(steps) == case["inputs"]["num_steps"]


@pytest.mark.parametrize("case,path", _seeded_params(HALF_CASES))
def test_half_precision_case(case, path):
    """float16 / bfloat16 runs in regimes where rounding matters: TF's values, exactly, on both paths."""
    run = replay_seeded(case["id"], path)
    errors: list = []
    if run.error is None:
        first = None
        init, _ = optimizer_inputs.make_inputs(case["inputs"])
        want_all = [optimizer_inputs.decode(a) for a in case["checkpoints"]["vars"]]
        for j, step in enumerate(case["checkpoints"]["after_step"]):
            for i, want in enumerate(want_all):
                why = _mismatch(run.checkpoints[step][i], want[j], case["dtype"], _exact(case), step,
                                _scale(init[i], want[: j + 1]))
                if why:
                    first = first or step
                    errors.append(f"var{i} after step {step}: {why}")
        if first is not None:
            errors.insert(0, f"first difference after step {first}")
        _check_seeded_end_state(case, run, errors)
    _report(case, path, run, errors)


@pytest.mark.parametrize("case,path", _seeded_params(LONG_CASES))
def test_long_horizon_case(case, path):
    """40 steps across schedule boundaries, hyperparameters set midway, large variables."""
    run = replay_seeded(case["id"], path)
    errors: list = []
    if run.error is None:
        dtype, exact = case["dtype"], _exact(case)
        init, _ = optimizer_inputs.make_inputs(case["inputs"])
        samples = case["trace"]["indices"]
        for i, traced in enumerate(case["trace"]["values"]):
            want = optimizer_inputs.decode(traced)
            got = np.stack(run.trace[i])
            start = init[i].reshape(-1)[samples[i]]
            for k in range(want.shape[0]):
                why = _mismatch(got[k], want[k], dtype, exact, k + 1, _scale(start, want[: k + 1]))
                if why:
                    errors.append(f"var{i} (traced elements {samples[i]}) after step {k + 1}: {why}")
                    break
        for j, step in enumerate(case["checkpoints"]["after_step"]):
            for i, full in enumerate(case["checkpoints"]["vars"]):
                want = optimizer_inputs.decode(full)[j]
                why = _mismatch(run.checkpoints[step][i], want, dtype, exact, step, _scale(init[i], want))
                if why:
                    errors.append(f"var{i} (all {want.size} elements) after step {step}: {why}")
        _check_seeded_end_state(case, run, errors)
    _report(case, path, run, errors)


# ---------------------------------------------------------------------------
# sparse cases under the accelerator policy (TF's GPU semantics, replayed on CPU)
# ---------------------------------------------------------------------------
#
# On an accelerator the sparse step reads nothing on the host: indices are not
# validated (none of these is out of range), duplicates are summed by the
# static-shape `deduplicate_padded` instead of `torch.unique`, and the variables'
# scatters take their GPU form (pads and bad rows skipped, duplicates in one
# reduction). None of that may change a value TF computes deterministically, so
# these replays must equal the CPU replays bit for bit (-0.0 and NaN included).
#
# The one freedom is the rounding of a sum of duplicate rows in half precision:
# TF's GPU kernels add duplicates with atomics in no defined order, and torch's
# `index_add_` adds a half-precision row's duplicates in float32 and rounds once
# (on CPU, for rows of more than one element), where TF's CPU kernel rounds
# after each. Two rows sum the same either way (0 + a is exact, and float32 holds
# a + b's rounding to half exactly: 24 >= 2 * 11 + 2 bits); three or more may
# differ in the last bit. So in half precision:
#
# * the optimizers that deduplicate (all but plain SGD) are compared with a CPU
#   replay whose gradients had their duplicates summed beforehand the same way
#   (`_presummed`): bit for bit, which shows the sum is the only difference;
# * plain SGD scatter-adds the duplicate rows straight into the variable (TF's
#   `ResourceScatterAdd`, no deduplication), so its difference is in the variable
#   itself. TF's CPU kernel rounds after each of a row's m updates (at most half
#   an ulp each) and the single reduction once: per step the two differ by at
#   most (m + 1) / 2 ulps of the running value, and plain SGD's updates do not
#   depend on the variable, so the differences of successive steps add: after k
#   steps, k * (m + 1) / 2 ulps of the variable's scale, m the largest number of
#   rows any step gives one index (no NaN/inf mismatch allowed).

def _is_sparse_case(case: dict) -> bool:
    return any(isinstance(g, dict) for st in case["steps"] for g in st["grads"])


SPARSE_CASES = [c for c in CASES if _is_sparse_case(c)]
SPARSE_SEEDED = [c for c in HALF_CASES + LONG_CASES if c["sparse"]]
SPARSE_GOLDENS = [pytest.param(g, dtype, id=f"{g['source'].split('::')[-1]}/{g['optimizer']}/{dtype}")
                  for g in GOLDENS if any(isinstance(x, dict) for x in g["grads"]) for dtype in g["dtypes"]]


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """The same values, signed zeros included; NaN matches NaN (IEEE gives a NaN made by an
    operation no particular sign, and TF's kernels no particular payload)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape or not np.array_equal(got, want, equal_nan=True):
        return False
    numbers = ~np.isnan(want)
    return bool(np.array_equal(np.signbit(got[numbers]), np.signbit(want[numbers])))


def _difference(got: np.ndarray, want: np.ndarray) -> str:
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    differ = ~((got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want)))
    where = np.argwhere(differ)[:3]
    return "; ".join(f"at {tuple(int(i) for i in w)}: {got[tuple(w)]!r} vs {want[tuple(w)]!r}" for w in where)


def test_the_sparse_replays_cover_every_optimizer_and_half_precision():
    """(The replays below are not vacuous: every optimizer, both half dtypes, duplicates.)"""
    assert {c["optimizer"] for c in SPARSE_CASES} == {i.name for i in OPTIMIZER_INFOS if i.supports_sparse}
    assert {c["dtype"] for c in SPARSE_SEEDED} >= {"float16", "bfloat16", "float32"}
    assert all(len(set(g["indices"])) < len(g["indices"]) for c in SPARSE_CASES
               for g in c["steps"][0]["grads"] if isinstance(g, dict))


@pytest.mark.parametrize("case", SPARSE_CASES, ids=[c["id"] for c in SPARSE_CASES])
def test_sparse_case_under_accelerator_policy(case):
    cpu = _replayed(case, "multi_tensor")
    acc = replay(case["id"], "multi_tensor", accelerator=True)
    if acc.error is not None:
        raise AssertionError(f"{case['id']} under accelerator_policy raised "
                             f"{type(acc.error).__name__}: {acc.error}") from acc.error
    for k, (got_step, want_step) in enumerate(zip(acc.history, cpu.history)):
        for i, (got, want) in enumerate(zip(got_step, want_step)):
            assert _same_bits(got, want), (f"{case['id']}: var{i} after step {k + 1} under "
                                           f"accelerator_policy {got!r}, on CPU {want!r}")
    for name in case["slots"]:
        for i, (va, vc) in enumerate(zip(acc.variables, cpu.variables)):
            got, want = to_numpy(acc.opt.get_slot(va, name)), to_numpy(cpu.opt.get_slot(vc, name))
            assert _same_bits(got, want), f"{case['id']}: slot {name} of var{i}: {got!r} vs {want!r}"
    assert int(acc.opt.iterations.numpy()) == case["iterations"]


@pytest.mark.parametrize("golden,dtype", SPARSE_GOLDENS)
def test_tf_keras_sparse_golden_under_accelerator_policy(golden, dtype):
    """tf_keras' own sparse tests (through `minimize` and the tape's IndexedSlices): the same bits."""
    def run(accelerator):
        with _policy(accelerator):
            opt = build(golden["optimizer"], golden["kwargs"])
            variables = [tf.Variable(np.array(v, dtype=dtype), name=f"var{i}")
                         for i, v in enumerate(golden["initial_values"])]
            grads = [to_tf_grad(g, dtype) for g in golden["grads"]]
            history = []
            for _ in range(max(c["after_step"] for c in golden["checkpoints"])):
                if golden["api"] == "minimize":
                    opt.minimize(lambda: tf.add_n([tf.reduce_sum(tf.gather(v, g.indices) * g.values)
                                                   if isinstance(g, tf.IndexedSlices)
                                                   else tf.reduce_sum(tf.multiply(g, v))
                                                   for g, v in zip(grads, variables)]), var_list=variables)
                else:
                    opt.apply_gradients(zip(grads, variables))
                history.append([to_numpy(v) for v in variables])
            return history

    for k, (got_step, want_step) in enumerate(zip(run(True), run(False))):
        for i, (got, want) in enumerate(zip(got_step, want_step)):
            assert _same_bits(got, want), f"var{i} after step {k + 1}: {got!r} vs {want!r}"


def _max_duplicates(case: dict) -> int:
    """The most rows any step's sparse gradient gives one index."""
    _, steps = optimizer_inputs.make_inputs(case["inputs"])
    return max(int(np.bincount(g["indices"]).max()) for grads in steps for g in grads)


def _scatters_duplicates_into_the_variable(case: dict) -> bool:
    return case["optimizer"] == "SGD" and not case["kwargs"].get("momentum")


@pytest.mark.parametrize("case", SPARSE_SEEDED, ids=[c["id"] for c in SPARSE_SEEDED])
def test_seeded_sparse_case_under_accelerator_policy(case):
    acc = replay_seeded(case["id"], "multi_tensor", accelerator=True)
    half = case["dtype"] in optimizer_inputs.HALF_DTYPES
    errors: list = []
    if acc.error is None and half and _scatters_duplicates_into_the_variable(case):
        per_step = (_max_duplicates(case) + 1) / 2
        init, _ = optimizer_inputs.make_inputs(case["inputs"])
        want_all = [optimizer_inputs.decode(a) for a in case["checkpoints"]["vars"]]
        for j, step in enumerate(case["checkpoints"]["after_step"]):
            for i, want in enumerate(want_all):
                why = _mismatch(acc.checkpoints[step][i], want[j], case["dtype"], False, step,
                                _scale(init[i], want[: j + 1]), step_ulps=per_step)
                if why:
                    errors.append(f"var{i} after step {step} (vs TF, {per_step} ulps/step): {why}")
    elif acc.error is None:
        ref = replay_seeded(case["id"], "multi_tensor", presum=half)
        assert ref.error is None, ref.error
        for step, values in ref.checkpoints.items():
            for i, want in enumerate(values):
                if not _same_bits(acc.checkpoints[step][i], want):
                    errors.append(f"var{i} after step {step}: {_difference(acc.checkpoints[step][i], want)}")
        for i, (got, want) in enumerate(zip(acc.trace, ref.trace)):
            got, want = (np.stack(t) if t else np.zeros(0) for t in (got, want))
            if not _same_bits(got, want):
                errors.append(f"var{i}'s traced elements (step, element): {_difference(got, want)}")
        for name, per_var in ref.slots.items():
            for i, want in enumerate(per_var):
                if not _same_bits(acc.slots[name][i], want):
                    errors.append(f"slot {name} of var{i}: {_difference(acc.slots[name][i], want)}")
        if acc.iterations != ref.iterations:
            errors.append(f"iterations {acc.iterations} != {ref.iterations}")
    _report(case, "accelerator_policy", acc, errors)
