"""`from_torch(nn_module)`: a `tf.Module` whose variables wrap a torch module's tensors.

See the package docstring for the design. The variables are ordinary
`ResourceVariable`s built over a storage cell whose live tensor is an alias
of the parameter (same memory, same version counter), so nothing is copied
and OptimizerV2's in-place updates are the parameter's updates.
"""

from __future__ import annotations

import threading
from typing import Any

import torch
from torch import nn

from ..distribute import distribute_lib
from ..framework import dtypes
from ..train.module import Module, valid_identifier
from ..variables import resource as resource_lib
from ..variables.resource_variable import ResourceVariable
from ..variables.variable import VariableDef
from . import naming
from ..framework.copy_on_write import owned
from .sharing import same_memory

__all__ = ["TorchModule", "from_torch"]


class _Scope(Module):
    """A level of the torch module tree (`fc1` of `fc1.weight`), as a `tf.Module`."""


def _attribute(scope: Module, part: str) -> str:
    """`part` as an attribute name of `scope` that shadows nothing of `tf.Module`'s."""
    name = part
    while hasattr(type(scope), name) or name in vars(scope) or name.startswith("_self_"):
        name += "_"  # (vars: the module's own state, `_name`, `_torch_module`...)
    return name


def _wrap(tensor: torch.Tensor, name: str, trainable: bool) -> ResourceVariable:
    """A variable whose storage is `tensor`'s memory (no copy)."""
    alias = tensor.detach()  # (same storage and version counter as the torch tensor)
    cell = resource_lib.Resource(alias, name)
    if not same_memory(cell.value, alias):  # memory torch cannot share lazily (a numpy import)
        raise TypeError(f"{name!r}: its memory is not torch's own (from numpy or DLPack?), so reads "
                        "of it cannot be copy-on-write snapshots; give the module a copy of it "
                        "(param.data = param.data.clone()) before from_torch.")
    # A VariableDef names live storage: the variable is built over it, not over a copy.
    return ResourceVariable(variable_def=VariableDef(
        variable_name=name + ":0", trainable=trainable, shared_name=cell.shared_name,
        dtype=dtypes.from_torch(alias.dtype).name, shape=list(alias.shape)))


class _Binding:
    """A torch tensor, its variable, and the cell's live tensor when they were last one storage."""

    __slots__ = ("torch_name", "var", "tensor", "is_param", "attached")

    def __init__(self, torch_name: str, var: Any, tensor: torch.Tensor, is_param: bool) -> None:
        self.torch_name, self.var, self.tensor, self.is_param = torch_name, var, tensor, is_param
        self.attached = var._storage().value

    def sync(self, module: nn.Module, current: torch.Tensor) -> None:
        """Re-attach after the variable got new storage; raise if the torch side replaced its tensor."""
        cell = self.var._storage()
        if cell.value is not self.attached:  # an assign of a new shape: torch follows the variable
            with torch.no_grad():
                if self.is_param:
                    current.data = cell.value
                    cell.replace(current.detach())  # (torch's version counter, as at creation)
                else:
                    owner, _, attr = self.torch_name.rpartition(".")
                    module.get_submodule(owner)._buffers[attr] = current = cell.value.detach()
            self.tensor, self.attached = current, cell.value
        elif not same_memory(current, cell.value):
            live, alias = cell.value, current.detach()
            if ((alias.dtype, alias.device, alias.shape) == (live.dtype, live.device, live.shape)
                    and owned(alias) is alias):
                cell.replace(alias)  # `param.data = ...`: the variable follows torch
                self.tensor, self.attached = current, cell.value
            else:
                raise RuntimeError(
                    f"{self.torch_name!r} no longer shares memory with its variable "
                    f"{self.var.name!r}: the torch module's tensor was replaced by one of another "
                    "dtype, device or shape (module.to(), .half()), or by memory torch cannot "
                    "share lazily (numpy's). Call from_torch again.")


class _Bindings:
    """The module's (torch name, variable, tensor) records: an object, so `tf.Module` walks past it."""

    def __init__(self, items: list) -> None:
        self.items = items


class TorchModule(Module):
    """A `tf.Module` over a `torch.nn.Module` (`from_torch`).

    Variables: one per parameter (trainable iff `requires_grad`) and per
    persistent buffer (non-trainable), named from torch's names
    (`fc1.weight` -> `fc1/weight:0`) and reachable as attributes
    (`m.fc1.weight`), so a `tf.train.Checkpoint` keys them by the torch
    path. Calling it runs the torch module's `forward` with the variables'
    current values as its parameters (`torch.func.functional_call`), so a
    `GradientTape` sees the reads; buffers are the variables' storage
    itself, so in-place buffer updates in `forward` (batch norm statistics)
    update the variables. `torch_module` is the wrapped module.
    """

    def __init__(self, nn_module: nn.Module, name: Any = None) -> None:
        if name is None:
            name = _module_name(type(nn_module).__name__)
        super().__init__(name=name)
        self.__dict__["_torch_module"] = nn_module
        self.__dict__["_call_lock"] = threading.RLock()
        self._bindings = _Bindings([])
        entries = [(n, p, True) for n, p in nn_module.named_parameters()]
        persistent = _persistent_buffers(nn_module)
        entries += [(n, b, False) for n, b in nn_module.named_buffers() if n in persistent]
        for torch_name, tensor, _ in entries:  # (all checked first: a refusal leaves nothing made)
            _check_tensor(torch_name, tensor)
        scopes: dict = {}
        for torch_name, tensor, is_param in entries:
            trainable = is_param and tensor.requires_grad
            var = _wrap(tensor, naming.tf_name(torch_name), trainable)
            self._place(torch_name.split("."), var, scopes)
            self._bindings.items.append(_Binding(torch_name, var, tensor, is_param))

    def _place(self, parts: list, var: Any, scopes: dict) -> None:
        """Make `var` the attribute `parts` (`["fc1", "weight"]`: `self.fc1.weight`).

        `scopes` maps the path prefixes placed so far to their `_Scope`s.
        """
        scope: Module = self
        for depth in range(1, len(parts)):
            key = tuple(parts[:depth])
            if key not in scopes:
                part = parts[depth - 1]
                scopes[key] = _Scope(name=part if valid_identifier(part) else None)
                setattr(scope, _attribute(scope, part), scopes[key])
            scope = scopes[key]
        setattr(scope, _attribute(scope, parts[-1]), var)

    @property
    def torch_module(self) -> nn.Module:
        """The wrapped `torch.nn.Module` (its tensors are the variables' storage)."""
        return self._torch_module

    def variable_of(self, torch_name: str) -> Any:
        """The variable of parameter or buffer `torch_name` (`fc1.weight`)."""
        for b in self._bindings.items:
            if b.torch_name == torch_name:
                return b.var
        raise KeyError(torch_name)

    def sync(self) -> None:
        """Re-attach tensors of variables given new storage; raise if the torch side moved (`__call__`)."""
        module = self._torch_module
        now = dict(module.named_parameters())
        now.update(module.named_buffers())
        for b in self._bindings.items:
            b.sync(module, now.get(b.torch_name, b.tensor))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The torch module's `forward(*args, **kwargs)` with the variables' values as parameters.

        A variable assigned a new shape gives the torch module its new
        storage first (the same `nn.Parameter`); raises `RuntimeError` if the
        torch module's tensor was replaced (`module.half()`, `param.data = ...`).
        """
        self.sync()
        values = {b.torch_name: b.var.value() for b in self._bindings.items if b.is_param}
        # functional_call swaps the module's attributes for the call: one thread at a time.
        with self._call_lock:
            return torch.func.functional_call(self._torch_module, values, args, kwargs,
                                              strict=False)


def _module_name(text: str) -> str:
    """A valid `tf.Module` name from a torch class name (`Net` -> `net`)."""
    from ..train.module import camel_to_snake

    name = camel_to_snake(text)
    return name if valid_identifier(name) else "torch_module"


def _persistent_buffers(module: nn.Module) -> set:
    names = set()
    for prefix, sub in module.named_modules():
        skip = getattr(sub, "_non_persistent_buffers_set", set())
        for name, buf in sub._buffers.items():
            if buf is not None and name not in skip:
                names.add(f"{prefix}.{name}" if prefix else name)
    return names


def _check_tensor(name: str, tensor: torch.Tensor) -> None:
    if isinstance(tensor, nn.parameter.UninitializedTensorMixin) or tensor.is_meta:
        raise TypeError(f"{name!r} is not initialized ({type(tensor).__name__}): run the torch "
                        "module once on a batch (lazy modules) or materialize it (to_empty and "
                        "an init) before from_torch.")
    try:
        dtypes.from_torch(tensor.dtype)
    except Exception:
        raise TypeError(f"{name!r} has dtype {tensor.dtype}, which no tf.DType matches; cast the "
                        "torch module first.") from None


def from_torch(nn_module: nn.Module, name: Any = None) -> Module:
    """A `tf.Module` whose variables are `nn_module`'s parameters and buffers (shared, no copy).

    The variables are built directly over the torch tensors' memory, not
    through the variable creator stack (a creator could only copy them). A
    view made by `to_torch` gives back its `tf.Module`. Raises `TypeError`
    for anything but a `torch.nn.Module`, and `ValueError` inside a
    `tf.distribute` strategy's scope: a strategy keeps one copy of each
    variable per replica, while these variables are the module's single
    tensors. Build it outside the scope (and train it without a strategy),
    or wrap the torch module in torch's `DistributedDataParallel`.
    """
    from .to_torch import TorchView

    if isinstance(nn_module, TorchView):
        return nn_module.tf_module
    if isinstance(nn_module, Module):
        raise TypeError(f"from_torch takes a torch.nn.Module; {type(nn_module).__name__} is already "
                        "a tf.Module. tfcompat.interop.to_torch goes the other way.")
    if not isinstance(nn_module, nn.Module):
        hint = (" For one tensor use tf.Variable(tensor) (a copy) or put it in an nn.Module "
                "(nn.ParameterDict) to share it." if isinstance(nn_module, torch.Tensor) else "")
        raise TypeError(f"from_torch takes a torch.nn.Module, got {type(nn_module).__name__}.{hint}")
    if distribute_lib.has_strategy():
        raise ValueError(
            f"from_torch({type(nn_module).__name__}) inside {type(distribute_lib.get_strategy()).__name__}"
            ".scope(): a strategy keeps one copy of each variable per replica, while from_torch's "
            "variables are the torch module's single tensors. Call from_torch outside the scope, "
            "or distribute the torch module with torch.nn.parallel.DistributedDataParallel.")
    return TorchModule(nn_module, name=name)
