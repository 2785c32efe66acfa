"""`to_torch(module)`: a `torch.nn.Module` view of a `tf.Module` sharing its variables' memory.

See the package docstring for the design. This module holds the view:
`TorchView` (the root, whose `forward` calls the TF module) and `_Scope`
(the plain containers that give `state_dict` its dotted keys).
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

import torch
from torch import nn

from ..framework import variable_protocol as protocol
from ..framework.copy_on_write import snapshot_of
from ..ops import indexing_ops
from . import naming
from .sharing import locked, own_storage

__all__ = ["TorchView", "to_torch"]


class _Binding:
    """One variable and the torch tensor (parameter or buffer) that shares its storage."""

    __slots__ = ("var", "cell", "scope", "attr", "tensor", "attached", "differentiable", "is_param")

    def __init__(self, var: Any, cell: Any, scope: nn.Module, attr: str) -> None:
        self.var, self.cell, self.scope, self.attr = var, cell, scope, attr
        live = var.handle  # (tells the cell outside code may write it: `Resource.hand_out`)
        self.differentiable = bool(var.trainable) and (live.is_floating_point() or live.is_complex())
        self.is_param = bool(var.trainable)
        if var.trainable:
            # An alias of the live tensor (same storage, same version counter), as the tape's anchor.
            self.tensor = nn.Parameter(live, requires_grad=self.differentiable)
            scope.register_parameter(attr, self.tensor)
        else:
            self.tensor = live.detach()
            scope.register_buffer(attr, self.tensor)
        self.attached = live

    def current(self) -> Optional[torch.Tensor]:
        """What the view holds under this name now: the bound tensor, or a stand-in that
        `torch.func.functional_call` put there for one call."""
        return (self.scope._parameters if self.is_param else self.scope._buffers).get(self.attr)

    def sync(self) -> None:
        """Re-attach after the variable was given new storage (an assign of another shape).

        Torch optimizers keep the parameter object, so the parameter stays
        and its `.data` follows the variable; the cell then adopts the
        parameter's alias, so torch's writes bump the version counter
        tfcompat's host mirrors check (`Resource.token`).
        """
        cell = self.cell
        if cell.value is self.attached:
            return
        with torch.no_grad():
            live = self.var.handle
            if isinstance(self.tensor, nn.Parameter):
                self.tensor.data = live
                cell.replace(self.tensor.detach())
            else:
                self.tensor = live.detach()
                self.scope._buffers[self.attr] = self.tensor
            self.attached = cell.value


class _Forwards(threading.local):
    def __init__(self) -> None:
        # per running `forward` of this thread, innermost last: id(var) -> (tensor, always)
        self.params: list = []


_forwards = _Forwards()


class _ViewReads:
    """The read recorder while views run their modules (`framework/variable_protocol.py`).

    In a thread running a view's `forward`, with grad mode on, a read of a
    trainable variable of that view is a copy-on-write clone of its
    `nn.Parameter`, so torch autograd takes the gradient to `param.grad`;
    gathers (embedding lookups) gather from such a clone. A tensor that
    `torch.func.functional_call` put in the view's place for the call is read
    instead of its variable (in any grad mode). Every other read is the
    previous recorder's (a `GradientTape`'s). It is installed while
    any thread runs a view (`_running`), so concurrent views never restore
    each other's recorder.
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    @staticmethod
    def _param(var: Any) -> Optional[torch.Tensor]:
        stack = _forwards.params
        if not stack:
            return None
        key = id(var)
        for params in reversed(stack):  # (a view whose module calls another view: both count)
            entry = params.get(key)
            if entry is not None:
                tensor, always = entry
                return tensor if always or torch.is_grad_enabled() else None
        return None

    def dense(self, var: Any, cell: Any) -> torch.Tensor:
        param = self._param(var)
        if param is None:
            return self.inner.dense(var, cell)
        with cell.lock:
            return snapshot_of(param)

    def sparse(self, var: Any, indices: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        param = self._param(var)
        if param is None:
            return self.inner.sparse(var, indices, rows)
        with var._storage().lock:
            read = snapshot_of(param)
        return indexing_ops.gather(read, indices)  # (the indices were checked by the read)

    def __getattr__(self, name: str) -> Any:  # paused(), ...: the previous recorder's
        return getattr(self.inner, name)


_install_lock = threading.Lock()
_installed: list = []  # [the _ViewReads installed, number of forwards running], while any runs


@contextlib.contextmanager
def _running(params: dict) -> Iterator[None]:
    """Run a view's forward: its reads become clones of `params` (id(var) -> (tensor, always))."""
    with _install_lock:
        if _installed:
            _installed[1] += 1
        else:
            reads = _ViewReads(protocol.recorder)
            protocol.set_recorder(reads)
            _installed[:] = [reads, 1]
        protocol.add_recording(1)  # (reads consult the recorder only while something records)
    _forwards.params.append(params)
    try:
        yield
    finally:
        _forwards.params.pop()
        with _install_lock:
            protocol.add_recording(-1)
            _installed[1] -= 1
            if not _installed[1]:
                reads = _installed[0]
                if protocol.recorder is reads:
                    protocol.set_recorder(reads.inner)
                _installed.clear()


class _Scope(nn.Module):
    """A container level of the view (`state_dict` key `dense.kernel`: scope `dense`).

    Moving or casting a view (`.to()`, `.cuda()`, `.double()`) would give
    torch new tensors and break the sharing, so it is refused unless it
    changes nothing: create the TF module on the wanted device and dtype.
    """

    def _apply(self, fn: Any, recurse: bool = True) -> "_Scope":
        with torch.no_grad():
            for name, t in list(self._parameters.items()) + list(self._buffers.items()):
                if t is None:
                    continue
                out = fn(t)
                if out.device != t.device or out.dtype != t.dtype:
                    raise TypeError(
                        f"{name!r} of a tfcompat.interop view shares memory with a tf.Variable; "
                        f"moving it to {out.device}/{out.dtype} would copy it and end the sharing. "
                        "Create the TF module under tf.device(...) with the dtype you want and "
                        "call to_torch on it (or copy: torch's module.load_state_dict(view.state_dict())).")
        if recurse:
            for child in self.children():
                child._apply(fn)
        return self


class TorchView(_Scope):
    """A `torch.nn.Module` whose parameters and buffers are a `tf.Module`'s variables' storage.

    Trainable variables are `nn.Parameter`s (`requires_grad` for float
    dtypes), non-trainable ones buffers; `state_dict` keys are the TF names
    (`dense/kernel:0` -> `dense.kernel`, see `naming.py`). `forward(*args,
    **kwargs)` is `module(*args, **kwargs)`; for a Keras layer it passes
    `training=self.training` unless given. `tf_module` is the TF module,
    `variable_of(name)` the variable behind a parameter or buffer name.
    """

    def __init__(self, module: Any, variables: list) -> None:
        super().__init__()
        paths = naming.unique_paths([naming.torch_path(v.name) for v in variables])
        bindings, scopes = [], {(): self}
        for var, path in zip(variables, paths):
            cell = own_storage(var)
            scope = self
            for depth in range(1, len(path)):
                key = path[:depth]
                if key not in scopes:
                    scopes[key] = _Scope()
                    scope.add_module(path[depth - 1], scopes[key])
                scope = scopes[key]
            bindings.append((".".join(path), _Binding(var, cell, scope, path[-1])))
        # (plain attributes: neither parameters nor submodules of torch's tree)
        self.__dict__["_tf_module"] = module
        self.__dict__["_bindings"] = dict(bindings)
        self.__dict__["_keras"] = _is_keras_layer(module)

    @property
    def tf_module(self) -> Any:
        """The `tf.Module` this is a view of."""
        return self._tf_module

    def variable_of(self, name: str) -> Any:
        """The `tf.Variable` behind parameter or buffer `name` (a `state_dict` key)."""
        return self._bindings[name].var

    def sync(self) -> None:
        """Re-attach tensors of variables given new storage since (done by every method here)."""
        for binding in self._bindings.values():
            binding.sync()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        self.sync()
        if self._keras and "training" not in kwargs:
            kwargs["training"] = self.training
        reads = {}
        for b in self._bindings.values():
            now = b.current()
            if now is b.tensor:
                if b.differentiable:
                    reads[id(b.var)] = (now, False)  # the parameter: in grad mode
            elif now is not None:
                reads[id(b.var)] = (now, True)  # a functional_call stand-in: always
        with _running(reads):
            return self._tf_module(*args, **kwargs)

    def state_dict(self, *args: Any, **kwargs: Any) -> Any:
        """Torch's `state_dict`; its tensors are detached aliases of the variables' storage."""
        self.sync()
        return super().state_dict(*args, **kwargs)

    def load_state_dict(self, state_dict: Any, strict: bool = True, assign: bool = False) -> Any:
        """Copy `state_dict` into the variables, in place, under their storage locks.

        `assign=True` (torch's option to adopt the given tensors) would end
        the sharing, so it is refused.
        """
        if assign:
            raise TypeError("load_state_dict(assign=True) would replace the view's tensors and end "
                            "their sharing with the tf.Variables; use assign=False (a copy into them).")
        self.sync()
        with locked([b.tensor for b in self._bindings.values()]):
            return super().load_state_dict(state_dict, strict=strict)

    def extra_repr(self) -> str:
        return f"of {type(self._tf_module).__name__} {getattr(self._tf_module, 'name', '')!r}"


def _is_keras_layer(module: Any) -> bool:
    return hasattr(type(module), "_get_call_spec") and hasattr(module, "built")


def to_torch(module: Any) -> nn.Module:
    """A `torch.nn.Module` view of `module` (a `tf.Module`, Keras layer or model), sharing memory.

    No value is copied: a torch optimizer's step shows in `var.numpy()`,
    and `var.assign(...)` in the parameter. A module made by `from_torch`
    gives back its torch module. Raises `TypeError` for anything else than
    a `tf.Module`, and for variables without storage of their own (built
    under a distribution strategy); `ValueError` for a Keras layer that is
    not built yet (it has no variables to share).
    """
    from .from_torch import TorchModule  # (the two directions know each other's round trip)
    from ..train.module import Module

    if isinstance(module, TorchModule):
        return module.torch_module
    if isinstance(module, nn.Module):
        raise TypeError(f"to_torch takes a tf.Module (or a Keras layer or model); "
                        f"{type(module).__name__} is already a torch.nn.Module. "
                        "tfcompat.interop.from_torch goes the other way.")
    if not isinstance(module, Module):
        hint = (" For one variable use var.handle (its live tensor)."
                if protocol.is_variable(module) else "")
        raise TypeError(f"to_torch takes a tf.Module (or a Keras layer or model), got "
                        f"{type(module).__name__}.{hint} Wrap the variables in a tf.Module first.")
    if _is_keras_layer(module) and not module.built:
        raise ValueError(f"The Keras layer {module.name!r} is not built yet, so it has no "
                         "variables to share: call it on a batch (or call build(input_shape)) "
                         "before to_torch.")
    return TorchView(module, list(module.variables))
