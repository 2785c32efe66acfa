"""TF's attributes on torch's types: `x.shape.as_list()`, `x.dtype.name`, `x.device.endswith(...)`.

Two contracts, checked separately:

* every added attribute gives what TF gives on TF's own object: the cases of
  `tests/conformance/type_attribute_cases.py`, recorded from TF 2.21 on
  `tf.TensorShape(dims)`, `tf.<dtype>` and a tensor's device string by
  `gen_type_attributes.py` (``fixtures/type_attributes.json``), replayed here on
  `torch.Size(dims)`, `torch.<dtype>` and `torch.device(...)`; and law tests that
  each `torch.Size` method is `tf.TensorShape(size)`'s;
* torch's own behaviour of the three types is unchanged (repr, hash, equality,
  pickling, `torch.Size` as a tuple, dtype identity, torch's own attributes, `in`
  and iteration on a device), the opt-out leaves them untouched, and
  `install()`/`uninstall()` add and take back exactly the listed names.
"""

from __future__ import annotations

import copy
import ctypes
import json
import math
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tfcompat as tf
from tfcompat.framework import tensor_methods, type_attributes
from tfcompat.framework.tensor_shape import Dimension, TensorShape
from tests.conformance import programs
from tests.conformance import type_attribute_cases as cases
from tests.conformance.fixtures import compare_errors, load_fixture, summary

DATA = load_fixture("type_attributes")

SIZE_NAMES = ("as_list", "rank", "ndims", "dims", "is_fully_defined", "num_elements", "as_proto",
              "is_compatible_with", "assert_is_compatible_with", "assert_is_fully_defined",
              "assert_has_rank", "assert_same_rank", "merge_with", "concatenate",
              "most_specific_compatible_shape", "is_subtype_of", "with_rank",
              "with_rank_at_least", "with_rank_at_most")
# `is_complex` is torch's own (same meaning): not added.
DTYPE_NAMES = ("name", "as_numpy_dtype", "as_datatype_enum", "is_floating", "is_integer",
               "is_bool", "is_unsigned", "is_quantized", "is_numpy_compatible", "min", "max",
               "limits", "size", "base_dtype", "real_dtype", "is_compatible_with")
DEVICE_NAMES = ("startswith", "endswith", "lower", "upper", "casefold", "split", "rsplit",
                "partition", "rpartition", "find", "rfind", "replace", "strip", "__contains__")
EXPECTED = sorted([f"torch.Size.{n}" for n in SIZE_NAMES] + [f"torch.dtype.{n}" for n in DTYPE_NAMES]
                  + [f"torch.device.{n}" for n in DEVICE_NAMES])
# What torch's types answer to themselves; never replaced.
TORCH_OWN = {torch.Size: ("count", "index", "numel", "__add__", "__getitem__", "__repr__",
                          "__reduce__"),
             torch.dtype: ("is_complex", "is_floating_point", "is_signed", "itemsize", "to_real",
                           "to_complex", "__repr__", "__reduce__"),
             torch.device: ("type", "index", "__eq__", "__hash__", "__repr__", "__str__",
                            "__reduce__")}


def _check(expected, actual, path="result"):
    problems: list = []
    if not compare_errors(expected, actual, path, problems) and not programs.same(expected, actual):
        problems.append(f"{path}: TF {summary(expected)} != tfcompat {summary(actual)}")
    assert not problems, "\n".join(problems)


# -- TF's values, recorded -------------------------------------------------------------

@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in DATA["shapes"]])
def test_size_attribute_is_tfs(case):
    _check(case["result"], cases.run_shape(tf, torch.Size(case["dims"]), case))


def test_the_fixture_covers_every_shape_case_and_size_attribute():
    assert [c["id"] for c in DATA["shapes"]] == [c["id"] for c in cases.shape_cases()]
    assert sorted({c["op"] for c in DATA["shapes"]}) == sorted(SIZE_NAMES)


@pytest.mark.parametrize("name", cases.DTYPES)
def test_dtype_attributes_are_tfs(name):
    recorded = DATA["dtypes"][name]
    d = getattr(torch, name)
    problems: list = []
    for attribute, expected in recorded.items():
        actual = cases.run_dtype(tf, d, attribute)
        if not compare_errors(expected, actual, attribute, problems) \
                and not programs.same(expected, actual):
            problems.append(f"{attribute}: TF {summary(expected)} != tfcompat {summary(actual)}")
    assert not problems, "\n".join(problems)
    covered = {a.split(":")[0] for a in recorded} | {"is_complex"}
    assert set(DTYPE_NAMES) <= covered


@pytest.mark.parametrize("name", cases.DTYPES)
def test_dtype_attributes_equal_tf_as_dtypes(name):
    d = getattr(torch, name)
    ours = tf.as_dtype(d)
    for attribute in ("name", "as_numpy_dtype", "as_datatype_enum", "is_floating", "is_integer",
                      "is_complex", "is_bool", "is_unsigned", "is_numpy_compatible", "size",
                      "base_dtype", "real_dtype"):
        assert getattr(d, attribute) == getattr(ours, attribute), attribute
    # Torch dtypes, so torch's functions take them; equal to TF's DTypes both ways.
    assert d.base_dtype is d and type(d.real_dtype) is torch.dtype
    assert d == tf.as_dtype(d) and tf.as_dtype(d) == d
    assert torch.zeros(1, dtype=d.real_dtype).dtype == tf.as_dtype(d).real_dtype


@pytest.mark.parametrize("key, device", [("cpu0", torch.device("cpu")),
                                         ("cpu0", torch.device("cpu", 0)),
                                         ("gpu1", torch.device("cuda", 1))], ids=str)
def test_device_string_methods_are_tfs(key, device):
    recorded = DATA["devices"][key]
    assert type_attributes.tf_device_name(device) == recorded["name"]
    for i, method, args in cases.DEVICE_CALLS:
        _check(recorded["calls"][i], cases.run_device(tf, device, method, args), i)


def test_a_tensors_device_reads_as_tfs():
    x = tf.ones([2])
    assert x.device.endswith("CPU:0") and "CPU" in x.device and "GPU" not in x.device
    assert x.device.split(":")[-2:] == ["CPU", "0"]


# -- laws: each torch.Size method is tf.TensorShape(size)'s ----------------------------

_dims = st.lists(st.integers(0, 5), max_size=4)
_partial = st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(0, 5)), max_size=4))


def _outcome(fn, *args):
    try:
        result = fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome is compared, class and message
        return ("raises", type(e), str(e))
    return ("returns", type(result), result)


@settings(max_examples=150, deadline=None)
@given(dims=_dims, other=_partial, rank=st.integers(0, 5))
def test_size_methods_are_tensorshapes(dims, other, rank):
    size, shape = torch.Size(dims), TensorShape(dims)
    other = TensorShape(other)
    for name in ("is_compatible_with", "assert_is_compatible_with", "merge_with", "concatenate",
                 "most_specific_compatible_shape", "is_subtype_of", "assert_same_rank"):
        assert _outcome(getattr(size, name), other) == _outcome(getattr(shape, name), other), name
    for name in ("with_rank", "with_rank_at_least", "with_rank_at_most", "assert_has_rank"):
        assert _outcome(getattr(size, name), rank) == _outcome(getattr(shape, name), rank), name
    assert size.as_list() == shape.as_list() == dims
    assert size.rank == size.ndims == len(dims)
    assert size.num_elements() == math.prod(dims) == size.numel()
    assert size.is_fully_defined() and size.assert_is_fully_defined() is None
    assert [type(d) for d in size.dims] == [Dimension] * len(dims)
    assert [d.value for d in size.dims] == dims
    assert [d.size for d in size.as_proto().dim] == dims


@settings(max_examples=60, deadline=None)
@given(a=_dims, b=_dims)
def test_sizes_combine_with_sizes(a, b):
    """`x.shape.merge_with(y.shape)`: a torch.Size argument is a shape, as TF's is."""
    x, y = torch.Size(a), torch.Size(b)
    assert _outcome(x.merge_with, y) == _outcome(TensorShape(a).merge_with, TensorShape(b))
    assert x.concatenate(y) == TensorShape(a + b) and type(x.concatenate(y)) is TensorShape
    assert x.is_compatible_with(y) == (a == b)


def test_size_methods_return_tensorshapes_where_tf_does():
    s = torch.ones(2, 3).shape
    for result in (s.merge_with([None, 3]), s.concatenate([4]), s.with_rank(2),
                   s.with_rank_at_least(1), s.with_rank_at_most(3),
                   s.most_specific_compatible_shape([2, 4])):
        assert type(result) is TensorShape
    assert s.merge_with([None, 3]).as_list() == [2, 3]
    assert type(s.as_list()) is list and type(s.rank) is int
    with pytest.raises(ValueError, match=r"Shape \(2, 3\) must have rank 3"):
        s.assert_has_rank(3)


def test_size_as_proto_is_tfs_tensorshapeproto():
    proto = torch.Size([2, 3]).as_proto()
    assert [d.size for d in proto.dim] == [2, 3] and not proto.unknown_rank


# -- dtypes tfcompat has no TF dtype for ------------------------------------------------

@pytest.mark.parametrize("d", [torch.uint16, torch.uint32, torch.uint64, torch.qint8,
                               torch.float8_e4m3fn, torch.complex32], ids=str)
def test_a_dtype_without_a_tf_dtype_has_no_tf_attributes(d):
    with pytest.raises(TypeError):
        tf.as_dtype(d)
    for name in DTYPE_NAMES:
        assert not hasattr(d, name), name
    with pytest.raises(AttributeError, match=r"tf.as_dtype\(torch\.\w+\) raises TypeError"):
        d.name
    assert repr(d) == str(d) and d.itemsize >= 1  # torch's own attributes still work


# -- torch's own behaviour, unchanged -------------------------------------------------

def test_torch_size_is_still_torchs_tuple():
    s = torch.Size([2, 3, 4])
    assert isinstance(s, tuple) and type(s) is torch.Size
    assert s == (2, 3, 4) and (2, 3, 4) == s and s != (2, 3)
    assert hash(s) == hash((2, 3, 4))
    assert s[1] == 3 and s[-1] == 4 and type(s[1:]) is torch.Size and s[1:] == (3, 4)
    assert list(s) == [2, 3, 4] and len(s) == 3 and tuple(s) == (2, 3, 4)
    assert repr(s) == "torch.Size([2, 3, 4])" and str(s) == "torch.Size([2, 3, 4])"
    assert s.numel() == 24 and s.count(3) == 1 and s.index(4) == 2
    assert type(s + (5,)) is torch.Size and s + (5,) == (2, 3, 4, 5)
    for copied in (pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)):
        assert type(copied) is torch.Size and copied == s
    assert torch.zeros(s).shape == s and torch.ones(2, 3).reshape(s[:2][::-1]).shape == (3, 2)
    assert torch.Size([2]) == TensorShape([2]) and TensorShape([2]) == torch.Size([2])


def test_torch_dtype_is_still_torchs():
    d = torch.float32
    assert repr(d) == str(d) == "torch.float32"
    assert pickle.loads(pickle.dumps(d)) is d and copy.deepcopy(d) is d
    assert hash(d) == hash(torch.float32) and d == torch.float32 and d != torch.float64
    assert d.is_floating_point and d.is_signed and d.itemsize == 4 and not d.is_complex
    assert torch.complex64.to_real() is torch.float32 and torch.complex64.is_complex
    assert {torch.float32: 1}[torch.float32] == 1
    assert d == tf.float32 and tf.float32 == d
    assert torch.ones(1, dtype=d).dtype is d


def test_torch_device_is_still_torchs():
    d = torch.device("cpu")
    assert repr(d) == "device(type='cpu')" and str(d) == "cpu"
    assert d == torch.device("cpu") and hash(d) == hash(torch.device("cpu"))
    assert d.type == "cpu" and d.index is None and torch.device("cuda", 1).index == 1
    assert pickle.loads(pickle.dumps(d)) == d and bool(d)
    assert torch.ones(1, device=d).device == d
    with pytest.raises(TypeError):
        iter(d)
    with pytest.raises(TypeError):
        len(d)
    # The sequence-methods table holds only `in`: the device is no sequence to CPython.
    check = ctypes.pythonapi.PySequence_Check
    check.argtypes, check.restype = [ctypes.py_object], ctypes.c_int
    assert check(d) == 0


@pytest.mark.parametrize("cls", list(TORCH_OWN), ids=lambda c: c.__name__)
def test_torchs_own_attributes_are_never_replaced(cls):
    added = {name.rsplit(".", 1)[1] for name in type_attributes.installed()
             if name.startswith(f"torch.{cls.__name__}.")}
    for name in TORCH_OWN[cls]:
        assert name not in added
        assert getattr(cls, name) is not None
    for name in added:
        assert type_attributes.installed()[f"torch.{cls.__name__}.{name}"] is cls.__dict__[name]


def test_compiled_function_using_tf_attributes_gives_the_right_answer():
    def f(x):
        dims = x.shape.as_list()
        if x.dtype.name == "float32" and x.shape.rank == 2:
            return x * dims[0] + dims[1]
        return x - 1

    compiled = torch.compile(f, fullgraph=False, backend="eager")
    for x in (torch.ones(2, 3), torch.ones(4, 5), torch.ones(3, dtype=torch.float64)):
        torch.testing.assert_close(compiled(x), f(x))
    torch.testing.assert_close(compiled(torch.ones(2, 3)), torch.full((2, 3), 5.0))


# -- install / uninstall / opt-out ------------------------------------------------------

def test_installed_lists_every_addition():
    assert sorted(type_attributes.installed()) == EXPECTED
    listed = tensor_methods.installed()
    assert set(EXPECTED) <= set(listed)
    for name in EXPECTED:
        assert listed[name] is type_attributes.installed()[name]


def _type_dicts():
    return {cls: dict(cls.__dict__) for cls in TORCH_OWN}


def test_uninstall_takes_back_exactly_what_was_added():
    with_them = _type_dicts()
    type_attributes.uninstall()
    try:
        without = _type_dicts()
        assert type_attributes.installed() == {}
        for cls in TORCH_OWN:
            added = set(with_them[cls]) - set(without[cls])
            assert sorted(f"torch.{cls.__name__}.{n}" for n in added) == [
                n for n in EXPECTED if n.startswith(f"torch.{cls.__name__}.")]
            assert all(without[cls][k] is with_them[cls][k] for k in without[cls])
        assert not hasattr(torch.Size([1]), "as_list") and not hasattr(torch.float32, "name")
        with pytest.raises(TypeError, match="not iterable"):
            "CPU" in torch.device("cpu")  # noqa: B015 - torch's own error again
        type_attributes.uninstall()  # twice: nothing more to take back
        assert _type_dicts() == without
    finally:
        type_attributes.install()
    assert _type_dicts().keys() == with_them.keys()
    assert sorted(type_attributes.installed()) == EXPECTED
    assert torch.ones(2, 3).shape.as_list() == [2, 3] and "CPU" in torch.device("cpu")
    assert type_attributes.install() == type_attributes.installed()  # idempotent


def test_tensor_methods_uninstall_and_install_take_the_types_along():
    tensor_methods.uninstall()
    try:
        assert tensor_methods.installed() == {} and not hasattr(torch.float32, "name")
    finally:
        tensor_methods.install()
    assert set(EXPECTED) <= set(tensor_methods.installed())
    assert torch.float32.name == "float32"


def test_a_name_torch_has_is_never_replaced():
    """A torch whose Size has `as_list` keeps it; uninstall leaves it too."""
    def torchs_as_list(self):
        return "torch's"

    type_attributes.uninstall()
    real = type_attributes._real_dict(torch.Size)
    try:
        real["as_list"] = torchs_as_list
        ctypes.pythonapi.PyType_Modified(ctypes.py_object(torch.Size))
        type_attributes.install()
        assert "torch.Size.as_list" not in type_attributes.installed()
        assert torch.Size([2]).as_list() == "torch's" and torch.Size([2]).rank == 1
        type_attributes.uninstall()
        assert torch.Size.__dict__["as_list"] is torchs_as_list
    finally:
        type_attributes.uninstall()
        if real.get("as_list") is torchs_as_list:
            del real["as_list"]
            ctypes.pythonapi.PyType_Modified(ctypes.py_object(torch.Size))
        type_attributes.install()
    assert sorted(type_attributes.installed()) == EXPECTED


def test_where_the_interpreter_refuses_it_warns_once_and_tfcompat_keeps_working(monkeypatch):
    type_attributes.uninstall()
    try:
        monkeypatch.setattr(type_attributes, "_real_dict", lambda cls: None)
        monkeypatch.setattr(type_attributes, "_warned", False)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert type_attributes.install() == {}
            assert type_attributes.install() == {}
        assert [w.category for w in caught] == [RuntimeWarning]
        assert "tf.TensorShape(x.shape).as_list()" in str(caught[0].message)
        assert not hasattr(torch.Size([1]), "as_list")
        assert tf.TensorShape(torch.ones(2).shape).as_list() == [2]
        assert tf.as_dtype(torch.ones(2).dtype).name == "float32"
        assert torch.ones(2).get_shape().as_list() == [2]
    finally:
        monkeypatch.undo()
        type_attributes.install()
    assert sorted(type_attributes.installed()) == EXPECTED


_SNAPSHOT = """
import json, pickle, torch
OBJECTS = {torch.Size: [torch.Size([2, 3]), torch.Size([])],
           torch.dtype: [torch.float32, torch.bfloat16, torch.uint16, torch.qint8],
           torch.device: [torch.device("cpu"), torch.device("cuda", 1)]}
def snap():
    return {cls.__name__: {"dict": {k: id(v) for k, v in cls.__dict__.items()},
                           "seen": [[repr(o), str(o), hash(o), pickle.dumps(o).hex()]
                                    for o in objs]}
            for cls, objs in OBJECTS.items()}
before = snap()
import tfcompat
from tfcompat.framework import type_attributes
after = snap()
print(json.dumps({"before": before, "after": after,
                  "installed": sorted(type_attributes.installed()),
                  "as_list": hasattr(torch.Size([1]), "as_list")}))
"""


def _fresh_import(env_value):
    env = dict(os.environ)
    env.pop(tensor_methods.ENVIRONMENT_VARIABLE, None)
    if env_value is not None:
        env[tensor_methods.ENVIRONMENT_VARIABLE] = env_value
    done = subprocess.run([sys.executable, "-W", "error", "-c", _SNAPSHOT], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_adds_the_listed_names_and_changes_nothing_else():
    seen = _fresh_import(None)
    assert seen["installed"] == EXPECTED and seen["as_list"]
    added = []
    for name, before in seen["before"].items():
        after = seen["after"][name]
        assert after["seen"] == before["seen"], name  # repr, str, hash, pickle
        assert {k: v for k, v in after["dict"].items() if k in before["dict"]} == before["dict"]
        added += [f"torch.{name}.{k}" for k in after["dict"] if k not in before["dict"]]
    assert sorted(added) == EXPECTED


def test_opt_out_leaves_the_types_untouched():
    seen = _fresh_import("0")
    assert seen["after"] == seen["before"]
    assert seen["installed"] == [] and not seen["as_list"]
