"""NumPy ufuncs and functions on tensors: plain torch's result wherever plain torch succeeds,
NumPy's result on the tensor's value (as on a TF tensor) where it raises.

`Tensor.__array_ufunc__` / `Tensor.__array_function__` (added by tfcompat) must not change a
single result plain torch gives: each expression runs here and in a subprocess with the
additions switched off (`TFCOMPAT_TENSOR_METHODS=0`), and the two records must be equal.
Where plain torch raises (`np.mean(t, axis=0)` calls `t.mean(axis=0)`), the result is the
expression's on NumPy arrays. A tensor that requires grad gives NumPy's result (never a
tensor rebuilt from a detached copy) unless torch's own method computed it on the tape.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import tensor_methods

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

EXPRESSIONS = [
    # ufuncs, every method
    "np.exp(t)", "np.sqrt(np.abs(t))", "np.greater(t, 0)", "np.add(t, 1)", "np.add(t, 1.5)",
    "np.maximum(t, u)", "np.isnan(t)", "np.divmod(t, 2)", "np.negative(ti)",
    "np.add.reduce(t)", "np.add.reduce(t, axis=1)", "np.add.accumulate(t)",
    "np.multiply.outer(t[0], u[1])", "np.add.reduceat(t[0], [0, 2])",
    "np.logical_and(t > 0, u > 0)", "np.add(t, u)", "np.add(t, a, dtype=np.float64)",
    # NumPy functions torch's methods serve
    "np.argmax(t)", "np.argmin(t, axis=0)", "np.round(t)", "np.round(t, 1)", "np.clip(t, 0, 1)",
    "np.abs(t)", "np.transpose(t)", "np.shape(t)", "np.ndim(t)",
    "np.concatenate([t, u])", "np.stack([t, u])", "np.where(a > 0, t, 0)", "np.unique(ti)",
    "np.array_equal(t, t)", "np.allclose(t, u)", "np.isclose(t, u)", "np.nonzero(ti)",
    "np.count_nonzero(ti)", "np.linalg.norm(t)", "np.dot(t, np.transpose(u))", "np.sort(t)",
    "np.reshape(t, (3, 2))", "np.squeeze(t[None])", "np.cumsum(t)", "np.any(t > 0)",
    # NumPy functions where plain torch raises (torch's methods refuse NumPy's keywords)
    "np.mean(t)", "np.mean(t, axis=0)", "np.sum(t)", "np.sum(t, axis=1)", "np.std(t)",
    "np.var(t, axis=0)", "np.max(t)", "np.min(t, axis=1)", "np.prod(t)", "np.amax(t)",
    "np.median(t)", "np.average(t, axis=0)", "np.ptp(t)", "np.cumprod(t, axis=1)",
    "np.mean(ti)", "np.max(ti)",
]

_RECORD = r"""
import json, sys, warnings
import numpy as np, torch
warnings.simplefilter("ignore")

def record(x):
    if isinstance(x, torch.Tensor):
        return {"kind": "tensor", "dtype": str(x.dtype), "requires_grad": x.requires_grad,
                "value": x.detach().numpy().tolist()}
    if isinstance(x, np.ndarray):
        return {"kind": "ndarray", "dtype": str(x.dtype), "value": x.tolist()}
    if isinstance(x, np.generic):
        return {"kind": type(x).__name__, "value": x.item()}
    if isinstance(x, tuple):
        return {"kind": "tuple", "items": [record(v) for v in x]}
    return {"kind": type(x).__name__, "value": repr(x)}

def run(expressions, requires_grad=False):
    t = torch.tensor([[1.5, -2.25, 0.5], [3.0, 0.5, -1.0]], requires_grad=requires_grad)
    u = torch.tensor([[0.5, 2.0, -1.0], [1.0, 0.25, 4.0]])
    ti = torch.tensor([[1, 0, 3], [0, 5, 5]])
    a = np.array([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]])
    out = {}
    for e in expressions:
        try:
            out[e] = record(eval(e))
        except Exception as ex:
            out[e] = {"kind": "error", "error": type(ex).__name__}
    return out
"""


def _on_arrays(expression: str) -> dict:
    """The expression with NumPy arrays in place of the tensors (what TF gives)."""
    ns: dict = {}
    exec(_RECORD, ns)
    env = {"np": np, "torch": torch,
           "t": np.array([[1.5, -2.25, 0.5], [3.0, 0.5, -1.0]], np.float32),
           "u": np.array([[0.5, 2.0, -1.0], [1.0, 0.25, 4.0]], np.float32),
           "ti": np.array([[1, 0, 3], [0, 5, 5]]),
           "a": np.array([[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]])}
    return ns["record"](eval(expression, env))


@pytest.fixture(scope="module")
def plain():
    script = _RECORD + "\nimport tfcompat\nassert not tfcompat.framework.tensor_methods.installed()" \
        "\njson.dump(run(json.loads(sys.argv[1])), sys.stdout)"
    env = dict(os.environ, TFCOMPAT_TENSOR_METHODS="0", PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", script, json.dumps(EXPRESSIONS)], env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def here():
    ns: dict = {}
    exec(_RECORD, ns)
    return ns["run"](EXPRESSIONS), ns["run"](EXPRESSIONS, requires_grad=True)


def test_hooks_are_installed():
    assert {"__array_ufunc__", "__array_function__"} <= set(tensor_methods.installed())


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_plain_torch_result_unchanged_else_numpy_on_values(expression, plain, here):
    got = here[0][expression]
    if plain[expression]["kind"] != "error":
        assert got == plain[expression]
    else:
        assert got == _on_arrays(expression)


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_requires_grad_gives_numpy_or_torchs_connected_result(expression, here):
    got = here[1][expression]

    def tensors(rec):
        if rec["kind"] == "tuple":
            return [r for item in rec["items"] for r in tensors(item)]
        return [rec] if rec["kind"] == "tensor" else []

    found = tensors(got)
    if found:  # torch's own method on the tape (np.round(t) is t.round(...)): connected
        assert all(r["requires_grad"] or not r["dtype"].startswith("torch.float")
                   for r in found), got
        assert got["kind"] != "tensor" or got["value"] == here[0][expression]["value"]
    else:
        assert got == _on_arrays(expression)


def test_numpy_values_of_tf_tensors_as_tf_gives_them():
    t = tf.constant([[1.0, 2.0], [3.0, 4.5]])
    assert np.mean(t) == np.float32(2.625) and type(np.mean(t)) is np.float32
    np.testing.assert_array_equal(np.sum(t, axis=0), np.array([4.0, 6.5], np.float32))
    with tf.GradientTape() as tape:
        v = tf.Variable([1.0, 2.0])
        y = v * 2.0
    assert type(np.exp(y)) is np.ndarray  # TF: an ndarray, not a tensor off the tape
    assert type(np.mean(y)) is np.float32


def test_numpy_inplace_and_out_arrays():
    a = np.zeros(3, np.float32)
    a += torch.tensor([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.0])
    out = np.empty(3, np.float32)
    r = np.multiply(torch.tensor([1.0, 2.0, 3.0]), 2, out=out)
    assert r is out and out.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(TypeError):
        np.add(np.ones(3), 1, out=torch.zeros(3))


def test_uninstall_restores_numpys_plain_behaviour():
    tensor_methods.uninstall()
    try:
        assert not hasattr(torch.Tensor, "__array_ufunc__")
        assert not hasattr(torch.Tensor, "__array_function__")
        with pytest.raises(TypeError):
            np.ones(2) - torch.ones(2)
    finally:
        tensor_methods.install()
    r = np.ones(2) - torch.ones(2)
    assert isinstance(r, torch.Tensor) and r.dtype == torch.float32
