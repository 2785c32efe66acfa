"""A NumPy operand never loses the gradient: `tensor <op> ndarray` and `ndarray <op> tensor`.

TF's law, for every binary operator, both orders, tensors of every dtype TF code uses
(half precision included) and NumPy operands of every kind: the result is TF's op on the
tensor and `tf.constant(numpy_value, tensor.dtype)`, a tensor on the tape. Torch's own
operator keeps its result wherever it succeeds on its own (a NumPy scalar is a number to
torch); everywhere else the result is TF's, recorded by `gen_numpy_operands.py` from real
TensorFlow 2.21 into `fixtures/numpy_operands.json`.

"Torch's own operator" is observed, not assumed: a subprocess runs each case on plain torch
(`TFCOMPAT_TENSOR_METHODS=0`) with NumPy's fallback switched off (`Tensor.__array_ufunc__ =
None`, NumPy's documented opt-out), so only what torch computes by itself succeeds. Where
torch's operator raises by itself with the tensor on the left (`bool_tensor - np.float64(1)`
is torch's RuntimeError before NumPy is asked), Python never reaches NumPy: torch's error
stands, as for a Python number.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from tests.framework import numpy_operand_cases as table
from tests.ops.golden import harness

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

with open(os.path.join(HERE, "fixtures", "numpy_operands.json")) as _f:
    FIXTURE = json.load(_f)

# Correctly rounded in every dtype on both sides (half precision: computed in float32 and
# rounded once): bit-exact. `**` goes through pow (libm/SLEEF vs Eigen) and `@` through a
# 2-term dot product: the harness's default bound.
_EXACT = {"add", "sub", "mul", "truediv", "floordiv", "mod", "lt", "le", "gt", "ge", "eq", "ne",
          "and", "or", "xor"}

_PLAIN_TORCH = r"""
import json, sys
import torch
torch.Tensor.__array_ufunc__ = None   # NumPy's opt-out: no NumPy fallback inside an operator
import tfcompat as tf
from tests.framework import numpy_operand_cases as table
from tests.ops.golden import harness
assert not tf.framework.tensor_methods.installed()
out = {}
for case in table.CASES:
    try:
        out[case.name] = harness.encode_tfcompat(case.fn(tf))
    except Exception as e:
        out[case.name] = harness.encode_error(e)
json.dump(out, sys.stdout)
"""


@pytest.fixture(scope="module")
def torch_own():
    """Each case's result on plain torch without NumPy's fallback: a record, torch's own error,
    or None where torch's operator declined (a TypeError: NumPy's turn, refused here)."""
    env = dict(os.environ, TFCOMPAT_TENSOR_METHODS="0", PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", _PLAIN_TORCH], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    found = json.loads(done.stdout)
    for case in table.CASES:
        rec = found[case.name]
        if "py" in rec:
            # `t != a` with both sides declining is Python's identity comparison: declined
            found[case.name] = None
        elif "error" in rec and (rec["error"] == "TypeError" or case.reflected):
            # Declined; or raised with the NumPy value on the left, where NumPy asked it
            # (and an error of torch's is TF's error here: a result where torch raised).
            found[case.name] = None
    return found


def _got(fn):
    try:
        return harness.encode_tfcompat(fn())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return harness.encode_error(e)


def _expected_torch_own(case, torch_own):
    """Torch's own result for `case`, or None where TF's applies.

    Two kinds of case have no hook to give TF's result, and keep plain Python's:
    * a comparison with a 0-d array: NumPy hands a NumPy scalar on the left of a comparison
      over as a 0-d array, so the two cannot be told apart, and a NumPy scalar is a number
      to torch: a 0-d array compares as the scalar it holds does (`f64_0d` holds 0.3, as
      `f64_scalar`);
    * `@` with a NumPy scalar: torch's matmul declines a number and NumPy scalars have no
      matmul, so it is Python's TypeError in both orders (TF's is InvalidArgumentError).
    """
    if case.operand == "f64_0d" and case.op in ("lt", "le", "gt", "ge", "eq", "ne"):
        return torch_own[case._replace(operand="f64_scalar").name]
    if case.op == "matmul" and case.operand.endswith("_scalar"):
        return {"error": "TypeError"}
    return torch_own[case.name]


def test_fixture_covers_the_table():
    assert set(FIXTURE["cases"]) == {c.name for c in table.CASES}
    assert set(FIXTURE["gradients"]) == {c.name for c in table.GRADIENT_CASES}


@pytest.mark.parametrize("case", table.CASES, ids=lambda c: c.name)
def test_operator_with_numpy_operand(case, torch_own):
    got = _got(lambda: case.fn(tf))
    own = _expected_torch_own(case, torch_own)
    if own is not None:
        if "error" in own:
            assert got["error"] == own["error"], "torch's own operator raises here: it stands"
        else:
            assert got == own, "torch's own operator succeeds here: its result must not change"
        return
    ulps = 0 if case.op in _EXACT else None
    harness.compare(got, FIXTURE["cases"][case.name], harness.Case(case.fn, ulps=ulps), case.name)


@pytest.mark.parametrize("case", table.GRADIENT_CASES, ids=lambda c: c.name)
def test_gradient_through_numpy_operand(case, torch_own):
    want = FIXTURE["gradients"][case.name]
    v = tf.Variable(table.tensor(tf, case.dtype))
    try:
        with tf.GradientTape() as tape:
            y = case.grad_fn(tf, v)
        got = {"result_dtype": tf.as_dtype(y.dtype).name,
               "gradient": harness.encode_tfcompat(tape.gradient(y, v))}
    except Exception as e:  # noqa: BLE001
        got = harness.encode_error(e)
    own = _expected_torch_own(case, torch_own)
    if own is not None and "error" in own:
        assert "error" in got
        return
    if own is not None:
        # torch's operator: its own result (checked above) and its own gradient, on the tape
        assert isinstance(y, torch.Tensor) and y.requires_grad
        return
    if "error" in want:
        assert got.get("error") == want["error"]
        return
    if want["gradient"] is None:
        assert got == want
        return
    assert got["result_dtype"] == want["result_dtype"]
    ulps = 0 if case.op in ("add", "sub", "mul", "truediv") else None
    harness.compare(got["gradient"], want["gradient"], harness.Case(case.fn, ulps=ulps),
                    case.name + " gradient")


# -- the law as a property, on random shapes and values ------------------------------------

_dtypes = st.sampled_from([np.float16, np.float32, np.float64])
_ops = st.sampled_from(["add", "sub", "mul", "truediv", "pow", "lt", "ge", "ne"])


@st.composite
def _operands(draw):
    dtype = draw(_dtypes)
    shape = draw(hnp.array_shapes(max_dims=3, max_side=4))
    x = draw(hnp.arrays(dtype, shape, elements=st.floats(0.25, 8, width=16)))
    a_shape = draw(st.sampled_from([shape, shape[1:], ()]))
    a_dtype = draw(st.sampled_from([np.float64, np.float32, np.int64]))
    a = draw(hnp.arrays(a_dtype, a_shape, elements=st.integers(1, 6)))
    return x, a


@given(_operands(), _ops, st.booleans(), st.booleans())
def test_law_numpy_operand_is_a_constant_of_the_tensors_dtype(operands, op, numpy_first,
                                                              through_variable):
    """`t op a == t op tf.constant(a, t.dtype)` (and reflected), bit for bit, with the same
    gradient; for a tensor read from a variable and for the variable itself."""
    x, a = operands
    fn = table.OPERATORS[op]
    v = tf.Variable(x)
    c = tf.constant(a, dtype=v.dtype)

    def both(operand):
        with tf.GradientTape(persistent=True) as tape:
            t = v if through_variable else tf.identity(v)
            y = fn(operand, t) if numpy_first else fn(t, operand)
        return y, tape

    got, tape_got = both(a)
    want, tape_want = both(c)
    assert isinstance(got, torch.Tensor) and got.dtype == want.dtype
    assert torch.equal(got, want) or (torch.isnan(got) == torch.isnan(want)).all()
    if got.dtype.is_floating_point:
        assert got.requires_grad
        g_got, g_want = tape_got.gradient(got, v), tape_want.gradient(want, v)
        torch.testing.assert_close(g_got, g_want, rtol=0, atol=0, equal_nan=True)


# -- what users run --------------------------------------------------------------------------

def test_guide_regression_with_numpy_labels_trains():
    """TF's guide: `loss = tf.reduce_mean(tf.square(model(x) - y))` with NumPy labels `y`."""

    class Linear(tf.Module):
        def __init__(self):
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    rng = np.random.RandomState(0)
    x = tf.constant(rng.uniform(-1, 1, 200).astype(np.float32))
    y = 3.0 * x.numpy() + 2.0 + rng.normal(0, 0.01, 200)  # NumPy labels, float64
    model = Linear()
    opt = tf.keras.optimizers.SGD(0.1)
    for _ in range(300):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        assert all(g is not None for g in grads)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    assert loss.dtype == torch.float32
    assert abs(float(model.w) - 3.0) < 0.05 and abs(float(model.b) - 2.0) < 0.05
    # the other order, and a NumPy array on the left of every step
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(y - model(x)))
    assert all(g is not None for g in tape.gradient(loss, model.trainable_variables))


def test_numpy_reads_stay_detached_values():
    t = torch.tensor([1.0, 2.0], requires_grad=True) * 1.0
    a = np.asarray(t)
    assert type(a) is np.ndarray and a.dtype == np.float32
    assert type(t.numpy()) is np.ndarray


def test_numpy_operand_on_tensor_of_other_device_kind_keeps_dtype_and_device():
    t = tf.constant([1.0, 2.0], dtype=tf.float16)
    r = np.array([1.0, 1.0]) + t
    assert r.dtype == torch.float16 and r.device == t.device


def test_numpy_operands_from_many_threads():
    """The dispatch's per-thread state (torch's attempt in progress) never leaks across threads:
    threads computing `a - t`, `t * a` and `np.exp(t)` at once all get TF's / torch's results."""
    import threading

    a = np.arange(6.0).reshape(2, 3)
    failures = []

    def work(seed):
        t = torch.full((2, 3), float(seed), requires_grad=True)
        for _ in range(200):
            r1, r2, r3 = a - t, t * a, np.exp(t.detach())
            ok = (r1.dtype == torch.float32 and r1.requires_grad
                  and torch.equal(r1.detach(), torch.tensor(a, dtype=torch.float32) - seed)
                  and r2.requires_grad and isinstance(r3, torch.Tensor))
            if not ok:
                failures.append(seed)
                return

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert failures == []


def test_numpy_operand_with_a_tensor_subclass():
    """A `torch.nn.Parameter` (a tensor subclass) takes the same path: TF's result, on the tape."""
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    r = np.array([0.5, 0.5]) - p
    assert type(r) is torch.Tensor and r.dtype == torch.float32 and r.requires_grad
    (g,) = torch.autograd.grad(r.sum(), p)
    assert g.tolist() == [-1.0, -1.0]
