"""What `import tfcompat` adds to `torch.Tensor`: `numpy()`, `get_shape()`, `ref()`.

Two contracts, checked separately:

* where torch's own `Tensor.numpy()` succeeds, the result is torch's, bit for
  bit and alias for alias (the array shares the tensor's memory);
* where torch raises because of something TF does not have (requires grad,
  a device, a conjugate/negative bit, bfloat16), the result is TF's value: a
  detached host copy, bfloat16 as `ml_dtypes.bfloat16`.

TF's answers below were recorded from TF 2.21 (`/work/tfenv/bin/python`,
CPU) with, for instance:

    t = tf.constant([1.5, 2.25, 3.0], dtype=tf.bfloat16)
    repr(t.numpy()), repr(t)               # TF_BF16_ARRAY_REPR, TF_BF16_TENSOR_REPR
    type(tf.constant(2.5).numpy())         # TF_SCALAR_TYPES
    r = x.ref(); r == x.ref(), r == 3      # True, TypeError(TF_REF_COMPARE_ERROR)
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import weakref

import ml_dtypes
import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.framework import numpy_interop, tensor_methods
from tfcompat.framework.object_identity import Reference
from tests.conformance.fixtures import as_numpy_prints

TORCH_NUMPY = torch._C.TensorBase.numpy  # torch's own method, whatever tfcompat added
HAS_CUDA = torch.cuda.is_available()
ADDED = ("numpy", "get_shape", "ref", "experimental_ref")
NUMPY_HOOKS = ("__array_ufunc__", "__array_function__")  # numpy_dispatch: torch has neither
ADDED += NUMPY_HOOKS


def _tensor_names(installed):
    """The names `installed()` lists for torch.Tensor: additions to other torch types are
    qualified (`"torch.Size.as_list"`) and tested in test_type_attributes.py."""
    return sorted(name for name in installed if not name.startswith("torch."))

# Recorded from TF 2.21 (see the module docstring).
# recorded with ml_dtypes 0.6; as_numpy_prints spells the dtype as the installed one prints it
TF_BF16_ARRAY_REPR = as_numpy_prints("array([1.5, 2.25, 3], dtype=bfloat16)")
TF_BF16_TENSOR_REPR = as_numpy_prints("<tf.Tensor: shape=(3,), dtype=bfloat16, "
                                      "numpy=array([1.5, 2.25, 3], dtype=bfloat16)>")
TF_BF16_SCALAR_TENSOR_REPR = "<tf.Tensor: shape=(), dtype=bfloat16, numpy=1.0002555517425873e+30>"
TF_SCALAR_TYPES = {  # type(tf.constant(value, dtype).numpy()) for a 0-d tensor
    "float32": np.float32, "int32": np.int32, "bool": np.bool_, "bfloat16": ml_dtypes.bfloat16,
    "float16": np.float16, "float64": np.float64, "int64": np.int64, "complex64": np.complex64,
}
TF_REF_COMPARE_ERROR = "Cannot compare wrapped object with unwrapped object"

# Every dtype torch's numpy() converts, for the "torch's result unchanged" contract.
TORCH_NUMPY_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                      torch.float16, torch.float32, torch.float64, torch.complex64,
                      torch.complex128]


def _values(dtype: torch.dtype, shape=(2, 3)) -> torch.Tensor:
    return torch.arange(6).reshape(2, 3).to(dtype).reshape(shape)


# -- numpy(): torch's result wherever torch succeeds ------------------------------------

def test_numpy_is_tfcompats_wrapper_of_torchs_method():
    assert torch.Tensor.numpy is tensor_methods.installed()["numpy"]
    assert torch.Tensor.numpy.__wrapped__ is TORCH_NUMPY


@pytest.mark.parametrize("dtype", TORCH_NUMPY_DTYPES, ids=str)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "scalar"])
def test_numpy_is_torchs_own_result_where_torch_succeeds(dtype, layout):
    t = {"contiguous": _values(dtype), "transposed": _values(dtype).t(),
         "scalar": _values(dtype)[1, 2]}[layout]
    ours, torchs = t.numpy(), TORCH_NUMPY(t)
    assert type(ours) is type(torchs) is np.ndarray
    assert ours.dtype == torchs.dtype and ours.shape == torchs.shape
    assert ours.strides == torchs.strides
    assert ours.__array_interface__["data"] == torchs.__array_interface__["data"]
    np.testing.assert_array_equal(ours, torchs)
    # Shares memory, as torch's does: a write through the array is a write to the tensor.
    if t.numel() and dtype is not torch.bool:
        ours[(0,) * ours.ndim] = 5
        assert t.reshape(-1)[0].item() == 5


def test_numpy_keeps_torchs_result_for_a_tensor_that_requires_grad_under_no_grad():
    t = torch.ones(3, requires_grad=True)
    with torch.no_grad():  # torch allows it there, and shares memory
        arr = t.numpy()
    arr[0] = 7.0
    assert t[0].item() == 7.0


def test_numpy_force_keeps_torchs_result():
    t = torch.ones(3, requires_grad=True)
    arr = t.numpy(force=True)
    arr[1] = 4.0  # torch's force=True shares memory for a host tensor
    assert t[1].item() == 4.0


def test_a_torch_function_subclass_still_sees_numpy():
    seen = []

    class Logged(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", None))
            return super().__torch_function__(func, types, args, kwargs or {})

    t = torch.arange(3.0).as_subclass(Logged)
    arr = t.numpy()
    assert seen == ["numpy"] and type(arr) is np.ndarray
    assert np.shares_memory(arr, TORCH_NUMPY(torch.Tensor._make_subclass(torch.Tensor, t)))
    g = torch.ones(2, requires_grad=True).as_subclass(Logged)
    assert g.numpy().tolist() == [1.0, 1.0]


def test_np_asarray_goes_through_numpy():
    t = torch.arange(4.0)
    arr = np.asarray(t)
    assert np.shares_memory(arr, t.numpy())


# -- numpy(): TF's value where torch refuses ---------------------------------------------

def _assert_tf_copy(t: torch.Tensor, arr: np.ndarray, expected: np.ndarray) -> None:
    """`arr` is TF's value of `t`: `expected`'s dtype and values, and a memory of its own."""
    assert type(arr) is np.ndarray
    assert arr.dtype == expected.dtype and arr.shape == tuple(t.shape)
    np.testing.assert_array_equal(arr, expected)
    before = t.detach().clone()
    if arr.size:
        arr.reshape(-1)[0] = 9  # TF's numpy() is a copy: writing it changes nothing
    assert torch.equal(t.detach().cpu(), before.cpu())


@pytest.mark.parametrize("shape", [(3,), (), (2, 0)], ids=["vector", "scalar", "empty"])
def test_numpy_of_a_tensor_that_requires_grad_is_a_detached_copy(shape):
    t = torch.full(shape, 2.5, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        TORCH_NUMPY(t)
    _assert_tf_copy(t, t.numpy(), np.full(shape, 2.5, np.float32))
    _assert_tf_copy(t, np.asarray(t), np.full(shape, 2.5, np.float32))
    assert t.requires_grad  # the tensor itself is left as it was


def test_loss_numpy_in_a_tf_training_loop():
    """TF2's custom loop line: `loss.numpy()` on a loss computed under a tape."""
    v = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    assert loss.requires_grad
    value = loss.numpy()
    assert value == 5.0 and value.dtype == np.float32 and value.shape == ()
    assert f"{loss.numpy():.2f}" == "5.00"
    grad = tape.gradient(loss, v)  # reading the value did not cut the graph
    np.testing.assert_array_equal(grad.numpy(), [2.0, 4.0])


def test_parameter_numpy():
    p = torch.nn.Parameter(torch.ones(2, 2))
    _assert_tf_copy(p, p.numpy(), np.ones((2, 2), np.float32))


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "scalar", "strided"])
def test_numpy_of_bfloat16_is_an_ml_dtypes_array_with_the_same_bits(layout):
    base = torch.tensor([[1.5, -2.25, 3.0], [1e30, 2.0 ** -130, float("inf")]],
                        dtype=torch.bfloat16)
    t = {"contiguous": base, "transposed": base.t(), "scalar": base[1, 0],
         "strided": base[:, ::2]}[layout]
    with pytest.raises(TypeError, match="BFloat16"):
        TORCH_NUMPY(t)
    arr = t.numpy()
    assert arr.dtype == np.dtype(ml_dtypes.bfloat16) == numpy_interop.BFLOAT16
    assert arr.shape == tuple(t.shape)
    expected_bits = t.contiguous().view(torch.int16).numpy().view(np.uint16)
    np.testing.assert_array_equal(np.ascontiguousarray(arr).view(np.uint16), expected_bits)
    _assert_tf_copy(t, arr, arr.copy())


def test_bfloat16_numpy_matches_tf():
    t = tf.constant([1.5, 2.25, 3.0], dtype=tf.bfloat16)
    assert repr(t.numpy()) == TF_BF16_ARRAY_REPR
    assert tf.framework.tensor_conversion.format_tensor(t) == TF_BF16_TENSOR_REPR
    scalar = tf.constant(1e30, dtype=tf.bfloat16)
    assert tf.framework.tensor_conversion.format_tensor(scalar) == TF_BF16_SCALAR_TENSOR_REPR


def test_numpy_resolves_a_conjugate_bit():
    c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    t = c.conj()
    assert t.is_conj()
    with pytest.raises(RuntimeError, match="conjugate bit"):
        TORCH_NUMPY(t)
    _assert_tf_copy(t, t.numpy(), np.array([1 - 2j, 3 + 4j], np.complex64))
    assert torch.equal(c, torch.tensor([1 + 2j, 3 - 4j]))  # the base is untouched too


def test_numpy_resolves_a_negative_bit():
    c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    t = c.conj().imag
    assert t.is_neg()
    with pytest.raises(RuntimeError, match="negative bit"):
        TORCH_NUMPY(t)
    _assert_tf_copy(t, t.numpy(), np.array([-2.0, 4.0], np.float32))


@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("dtype,scalar_type", [
    (torch.float32, np.float32), (torch.bfloat16, ml_dtypes.bfloat16), (torch.float16, np.float16),
    (torch.int64, np.int64)], ids=str)
def test_numpy_of_a_gpu_tensor_is_a_host_copy(dtype, scalar_type):
    host = torch.tensor([[1.5, -2.0], [3.0, 4.0]]).to(dtype)
    expected = numpy_interop.host_array(host)
    gpu = [host.cuda(), host.t().cuda().t()]
    if dtype.is_floating_point:
        gpu.append(host.cuda().requires_grad_())
    for t in gpu:
        assert t.is_cuda
        with pytest.raises(TypeError, match="cuda"):
            TORCH_NUMPY(t)
        arr = t.numpy()
        assert type(arr) is np.ndarray and arr.dtype == expected.dtype
        np.testing.assert_array_equal(arr.astype(np.float64), expected.astype(np.float64))
        assert type(numpy_interop.to_numpy(t[0, 0])) is scalar_type


@pytest.mark.parametrize("make,error", [
    (lambda: torch.ones(2).to_sparse(), "Sparse"),
    (lambda: torch.ones(2, device="meta"), "meta"),
    (lambda: torch.ones(2).to(torch.float8_e4m3fn), "Float8"),
    (lambda: torch.ones(2, requires_grad=True).to_sparse(), "Sparse"),
], ids=["sparse", "meta", "float8", "sparse_requires_grad"])
def test_numpy_keeps_torchs_error_where_tf_has_no_value_either(make, error):
    t = make()
    with pytest.raises((TypeError, RuntimeError)) as torchs:
        TORCH_NUMPY(t)
    with pytest.raises(type(torchs.value), match=error) as ours:
        t.numpy()
    assert str(ours.value) == str(torchs.value)


# -- to_numpy: TF's numpy() value, for variables and reprs --------------------------------

@pytest.mark.parametrize("name", sorted(TF_SCALAR_TYPES))
def test_to_numpy_of_a_scalar_is_tfs_numpy_scalar(name):
    t = tf.constant(True if name == "bool" else 1, dtype=getattr(tf, name))
    value = numpy_interop.to_numpy(t)
    assert type(value) is TF_SCALAR_TYPES[name]
    assert value == 1


@pytest.mark.parametrize("make", [
    lambda: torch.arange(6.0).reshape(2, 3),
    lambda: torch.arange(6.0).reshape(2, 3).t(),
    lambda: torch.arange(6.0, requires_grad=True),
    lambda: torch.tensor([1 + 1j]).conj(),
    lambda: torch.arange(3.0).to(torch.bfloat16),
], ids=["host", "transposed", "requires_grad", "conj", "bfloat16"])
def test_to_numpy_never_aliases_the_tensor(make):
    t = make()
    before = t.detach().clone()
    arr = numpy_interop.to_numpy(t)
    assert arr.flags.c_contiguous and arr.flags.writeable
    arr[...] = 0
    assert torch.equal(t.detach(), before)


def test_tensor_from_numpy_round_trips_bfloat16_bits():
    t = torch.tensor([1.5, -0.0, float("nan"), 1e-40, 3e38], dtype=torch.bfloat16)
    back = numpy_interop.tensor_from_numpy(numpy_interop.to_numpy(t))
    assert back.dtype is torch.bfloat16
    assert torch.equal(back.view(torch.int16), t.view(torch.int16))
    plain = np.arange(3, dtype=np.int16)
    assert np.shares_memory(numpy_interop.tensor_from_numpy(plain).numpy(), plain)


# -- get_shape ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 4)])
def test_get_shape_is_a_tensorshape(shape):
    t = torch.zeros(shape)
    s = t.get_shape()
    assert isinstance(s, tf.TensorShape)
    assert s.as_list() == list(shape) and s.rank == len(shape) and s.is_fully_defined()
    assert s == tf.TensorShape(list(shape))


# -- ref / experimental_ref --------------------------------------------------------------

def test_ref_is_hashed_and_compared_by_identity():
    x = torch.tensor([1.0, 2.0])
    y = torch.tensor([1.0, 2.0])  # equal values, another tensor
    r = x.ref()
    assert isinstance(r, Reference)
    assert r == x.ref() and hash(r) == hash(x.ref()) and r is not x.ref()
    assert r != y.ref() and not (r == y.ref())
    assert x.experimental_ref() == r
    assert r.deref() is x
    table = {x.ref(): "x", y.ref(): "y"}
    assert table[x.ref()] == "x" and table[y.ref()] == "y"
    assert {x.ref(), x.experimental_ref(), y.ref()} == {r, y.ref()}


def test_ref_comparisons_follow_tf():
    x, y = torch.ones(1), torch.ones(1)
    r, s = x.ref(), y.ref()
    assert (r == None) is False  # noqa: E711  (TF: False, not an error)
    assert r != None  # noqa: E711
    for other in (x, 3, "x"):
        with pytest.raises(TypeError, match=TF_REF_COMPARE_ERROR):
            r == other  # noqa: B015
        with pytest.raises(TypeError, match=TF_REF_COMPARE_ERROR):
            r != other  # noqa: B015
    assert (r < s) == (id(x) < id(y)) and (r > s) == (id(x) > id(y))
    with pytest.raises(TypeError):
        r <= s  # noqa: B015  (TF defines < and > only)
    assert "Reference wrapping" in repr(r)


def test_ref_keeps_its_tensor_and_is_weakly_referenceable_and_picklable():
    r = torch.arange(3.0).ref()
    assert torch.equal(r.deref(), torch.arange(3.0))  # kept alive by the reference
    assert weakref.ref(r)() is r
    back = pickle.loads(pickle.dumps(r))
    assert torch.equal(back.deref(), torch.arange(3.0))


# -- what is installed, and the opt-out ----------------------------------------------------

def test_installed_lists_exactly_the_additions():
    assert _tensor_names(tensor_methods.installed()) == sorted(ADDED)
    for name, method in tensor_methods.installed().items():
        if name in ADDED:
            assert torch.Tensor.__dict__[name] is method


def test_uninstall_restores_torch_and_install_adds_again():
    try:
        tensor_methods.uninstall()
        assert tensor_methods.installed() == {}
        assert torch.Tensor.numpy is TORCH_NUMPY
        for name in ADDED[1:]:
            assert not hasattr(torch.Tensor, name)
        with pytest.raises(RuntimeError, match="requires grad"):
            torch.ones(1, requires_grad=True).numpy()
        # tfcompat itself does not depend on the additions.
        assert "dtype=bfloat16" in repr(tf.Variable([1.5], dtype=tf.bfloat16))
    finally:
        tensor_methods.install()
    assert _tensor_names(tensor_methods.installed()) == sorted(ADDED)
    assert torch.ones(1, requires_grad=True).numpy().tolist() == [1.0]


def test_uninstall_leaves_a_name_someone_else_replaced():
    def theirs(self):
        return "theirs"

    try:
        torch.Tensor.get_shape = theirs
        tensor_methods.uninstall()
        assert torch.Tensor.__dict__["get_shape"] is theirs
        assert torch.Tensor.numpy is TORCH_NUMPY  # what was still ours went back
    finally:
        if torch.Tensor.__dict__.get("get_shape") is theirs:
            del torch.Tensor.get_shape
        tensor_methods.install()
    assert _tensor_names(tensor_methods.installed()) == sorted(ADDED)
    assert torch.ones(2).get_shape().as_list() == [2]


def test_a_method_torch_defines_is_never_replaced():
    """A torch that defines `ref` (or `get_shape`) keeps its own: only what is missing is added."""
    def torchs_ref(self):
        return "torch's ref"

    tensor_methods.uninstall()
    try:
        torch.Tensor.ref = torchs_ref
        tensor_methods.install()
        assert "ref" not in tensor_methods.installed()
        assert torch.Tensor.__dict__["ref"] is torchs_ref
        assert torch.ones(1).ref() == "torch's ref"
    finally:
        tensor_methods.uninstall()
        if torch.Tensor.__dict__.get("ref") is torchs_ref:
            del torch.Tensor.ref
        tensor_methods.install()
    assert _tensor_names(tensor_methods.installed()) == sorted(ADDED)


_SNAPSHOT = """
import json, os, torch
before = {k: id(v) for k, v in torch.Tensor.__dict__.items()}
base_before = {k: id(v) for k, v in torch._C.TensorBase.__dict__.items()}
torch_numpy = torch.Tensor.numpy
import tfcompat
from tfcompat.framework import tensor_methods
after = {k: id(v) for k, v in torch.Tensor.__dict__.items()}
print(json.dumps({
    "added": sorted(set(after) - set(before)),
    "removed": sorted(set(before) - set(after)),
    "changed": sorted(k for k in before if k in after and before[k] != after[k]),
    "base_same": base_before == {k: id(v) for k, v in torch._C.TensorBase.__dict__.items()},
    "numpy_is_torchs": torch.Tensor.numpy is torch_numpy,
    "installed": sorted(tensor_methods.installed()),
    "has": [n for n in ("get_shape", "ref", "experimental_ref") if hasattr(torch.Tensor, n)],
    "bf16_repr": repr(tfcompat.Variable([1.5], dtype=tfcompat.bfloat16)),
}))
"""


def _fresh_import(env_value):
    env = dict(os.environ)
    env.pop(tensor_methods.ENVIRONMENT_VARIABLE, None)
    if env_value is not None:
        env[tensor_methods.ENVIRONMENT_VARIABLE] = env_value
    done = subprocess.run([sys.executable, "-c", _SNAPSHOT], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_adds_four_methods_and_numpys_hooks_and_touches_nothing_else():
    seen = _fresh_import(None)
    assert seen["added"] == sorted(ADDED)
    assert seen["removed"] == [] and seen["changed"] == []
    assert sorted(n for n in seen["added"] if n.startswith("__")) == sorted(NUMPY_HOOKS)
    assert seen["base_same"]
    assert _tensor_names(seen["installed"]) == sorted(ADDED)


@pytest.mark.parametrize("value", ["0", "false", "OFF", "no"])
def test_opt_out_leaves_torch_untouched(value):
    seen = _fresh_import(value)
    assert seen["added"] == [] and seen["removed"] == [] and seen["changed"] == []
    assert seen["numpy_is_torchs"] and seen["has"] == [] and seen["installed"] == []
    assert seen["base_same"]
    assert seen["bf16_repr"].endswith(as_numpy_prints("numpy=array([1.5], dtype=bfloat16)>"))


def test_other_values_keep_the_additions():
    assert _tensor_names(_fresh_import("1")["installed"]) == sorted(ADDED)
