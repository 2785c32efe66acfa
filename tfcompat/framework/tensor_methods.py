"""What `import tfcompat` adds to `torch.Tensor`: TF's tensor methods torch lacks or refuses.

TF 2 code calls `loss.numpy()` on a loss computed under a tape,
`np.asarray(t)`, `t.numpy()` on a GPU tensor, `t.get_shape()`, `t.ref()`.
tfcompat's tensors are plain `torch.Tensor`s (a subclass would cost every op
and break `torch.compile`), so these are added to `torch.Tensor` itself:

* `numpy(*, force=False)`: torch's own method, whose result is returned
  unchanged wherever torch succeeds (for a host tensor that does not require
  grad: torch's array, sharing the tensor's memory). Only where torch raises
  because the tensor requires grad, lives on an accelerator, carries a lazy
  conjugate/negative bit or is bfloat16, it gives TF's value instead: a new
  host array, detached (bfloat16 as `ml_dtypes.bfloat16`). `np.asarray(t)`
  goes through it (torch's `__array__` calls `self.numpy()`). The array has
  the tensor's shape in both cases (a 0-d tensor gives a 0-d array, as
  torch's does; `tfcompat.framework.numpy_interop.to_numpy` gives TF's
  numpy scalar);
* `get_shape()`: the shape as a `tf.TensorShape` (so `t.get_shape().as_list()`);
* `ref()` and `experimental_ref()`: a hashable `Reference` with `deref()`,
  hashed and compared by identity, as TF's.

Two protocol hooks torch lacks come from `numpy_dispatch`: `__array_ufunc__`
and `__array_function__`, so that `tensor - ndarray` and `ndarray - tensor`
are TF's ops on the tape and `np.mean(t, axis=0)` is NumPy's value (plain
torch's result is kept wherever plain torch succeeds). TF's attributes of a
tensor's `shape`, `dtype` and `device` (`t.shape.as_list()`, `t.dtype.name`,
`t.device.endswith("CPU:0")`) come from `type_attributes`, added to
`torch.Size`, `torch.dtype` and `torch.device` where torch has no attribute
of that name.

Nothing else is touched: no other dunder method, and no method torch
defines is replaced except `numpy`, which is wrapped (and only on the paths
where torch raises). A torch that defines `get_shape`, `ref` or
`experimental_ref` (or either NumPy hook) keeps its own.

Importing this module (which `import tfcompat` does) installs the additions,
unless the environment sets `TFCOMPAT_TENSOR_METHODS=0` (or `false`, `off`,
`no`): then `torch.Tensor` is left untouched. `installed()` lists what was
added, `uninstall()` takes it back, `install()` adds it explicitly.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict

import torch

from .numpy_interop import host_array
from .object_identity import Reference
from .tensor_shape import TensorShape
from . import numpy_dispatch, type_attributes

# Modules adding to other torch types (or other protocol hooks of torch.Tensor), each with
# install(), uninstall() and installed(); installed and taken back together with the methods.
_EXTENSIONS = (numpy_dispatch, type_attributes)

__all__ = ["ENVIRONMENT_VARIABLE", "install", "uninstall", "installed", "enabled_by_environment"]

ENVIRONMENT_VARIABLE = "TFCOMPAT_TENSOR_METHODS"
_OFF = frozenset({"0", "false", "off", "no"})

# Dtypes torch's numpy() converts: torch refuses a tensor of one of these (or
# bfloat16) only for a reason TF does not have.
_NUMPY_DTYPES = frozenset({
    torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
    torch.uint16, torch.uint32, torch.uint64, torch.float16, torch.float32, torch.float64,
    torch.complex64, torch.complex128, torch.bfloat16,
})

_ABSENT = object()
# name -> (what was set on torch.Tensor, what torch.Tensor.__dict__ held before or _ABSENT)
_added: Dict[str, tuple] = {}


def _refused_only_by_torch(t: torch.Tensor) -> bool:
    """Whether torch's numpy() refused `t` for a reason TF's numpy() does not have."""
    if t.layout is not torch.strided or t.is_meta or t.dtype not in _NUMPY_DTYPES:
        return False  # nothing TF-like to give: keep torch's error
    return (t.requires_grad or t.device.type != "cpu" or t.is_conj() or t.is_neg()
            or t.dtype is torch.bfloat16)


def _numpy_method(torch_numpy: Callable) -> Callable:
    """`Tensor.numpy` around torch's `torch_numpy`: its result, or TF's where it refuses."""

    def numpy(self: torch.Tensor, *, force: bool = False) -> Any:
        try:
            # Without the keyword when it is not given: torch parses keywords slowly.
            return torch_numpy(self, force=True) if force else torch_numpy(self)
        except (RuntimeError, TypeError):
            if not _refused_only_by_torch(self):
                raise
        numpy_dispatch.note_detached_conversion()
        return host_array(self)

    numpy.__qualname__ = "Tensor.numpy"
    numpy.__module__ = __name__
    numpy.__wrapped__ = torch_numpy
    numpy.__doc__ = (
        "torch's `Tensor.numpy()` (added to by tfcompat): torch's result wherever torch "
        "succeeds; where torch raises because the tensor requires grad, is on an "
        "accelerator, has a conjugate/negative bit or is bfloat16, TF's value instead: a "
        "detached copy on the host (bfloat16 as ml_dtypes.bfloat16).\n\n"
        + (getattr(torch_numpy, "__doc__", None) or ""))
    return numpy


def get_shape(self: torch.Tensor) -> TensorShape:
    """TF's `Tensor.get_shape()`: the tensor's shape as a `tf.TensorShape` (fully known)."""
    return TensorShape(self.shape)


def ref(self: torch.Tensor) -> Reference:
    """TF's `Tensor.ref()`: a hashable key for this tensor, compared by identity.

    `t.ref() == t.ref()`, `{t.ref(): ...}` works, and `t.ref().deref() is t`.
    """
    return Reference(self)


def experimental_ref(self: torch.Tensor) -> Reference:
    """TF's deprecated name for `ref()`."""
    return Reference(self)


get_shape.__qualname__ = "Tensor.get_shape"
ref.__qualname__ = "Tensor.ref"
experimental_ref.__qualname__ = "Tensor.experimental_ref"


def install() -> Dict[str, Callable]:
    """Adds TF's tensor methods to `torch.Tensor` (idempotent); returns `installed()`.

    `numpy` wraps whatever `torch.Tensor.numpy` is at this moment; the other
    methods are added only where `torch.Tensor` has no attribute of that name.
    """
    for extension in _EXTENSIONS:  # (each idempotent: one taken back alone comes back)
        extension.install()
    if _added:
        return installed()
    tensor = torch.Tensor
    additions = {}
    torch_numpy = getattr(tensor, "numpy", None)
    if torch_numpy is not None:
        additions["numpy"] = _numpy_method(torch_numpy)
    for name, method in (("get_shape", get_shape), ("ref", ref),
                         ("experimental_ref", experimental_ref)):
        if not hasattr(tensor, name):
            additions[name] = method
    for name, method in additions.items():
        _added[name] = (method, tensor.__dict__.get(name, _ABSENT))
        setattr(tensor, name, method)
    return installed()


def uninstall() -> None:
    """Takes back what `install()` added: `torch.Tensor` is as torch made it.

    A name someone else has since replaced on `torch.Tensor` is left as it is.
    """
    for extension in _EXTENSIONS:
        extension.uninstall()
    tensor = torch.Tensor
    for name, (method, previous) in list(_added.items()):
        if tensor.__dict__.get(name) is method:
            if previous is _ABSENT:
                delattr(tensor, name)
            else:
                setattr(tensor, name, previous)
        del _added[name]


def installed() -> Dict[str, Callable]:
    """What tfcompat has added to torch, by name (empty when none).

    `torch.Tensor`'s methods under their own names (`"numpy"`); additions to
    other torch types under a qualified name (`"torch.Size.as_list"`).
    """
    found = {name: method for name, (method, _) in _added.items()}
    for extension in _EXTENSIONS:
        found.update(extension.installed())
    return found


def enabled_by_environment() -> bool:
    """False when `TFCOMPAT_TENSOR_METHODS` is `0`, `false`, `off` or `no` (any case)."""
    return os.environ.get(ENVIRONMENT_VARIABLE, "1").strip().lower() not in _OFF


if enabled_by_environment():
    install()
