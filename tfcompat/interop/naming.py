"""Names across the border: TF variable names <-> torch `state_dict` keys.

TF names a variable by its name scopes, `dense/kernel:0`; torch names a
parameter by its path through the module tree, `dense.kernel`. The rules:

* TF -> torch (`to_torch`): drop the `:N` output suffix, split at `/`, and
  make each component a name torch accepts (no `.`, not empty, not an
  attribute `nn.Module` already has: `forward`, `training`...; such a
  component gets a `_` appended). Names that would still collide, two
  `tf.Variable(name="w")` in one module, or `a` both a variable and a scope,
  are told apart by `_1`, `_2`... in the order of `module.variables`, which
  TF fixes (attributes sorted by name), so the keys are stable from run to
  run and unique.
* torch -> TF (`from_torch`): `fc1.weight` -> `fc1/weight` (TF allows every
  character torch names use except nothing: `.` never occurs inside a torch
  component).
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

import torch

__all__ = ["torch_path", "unique_paths", "tf_name"]

_OUTPUT_SUFFIX = re.compile(r":\d+$")
# What a component must not shadow: `nn.Module`'s attributes (class and instance: `training`)
# and the view's own (`to_torch.TorchView`).
_RESERVED = (frozenset(dir(torch.nn.Module)) | frozenset(vars(torch.nn.Module()))
             | {"tf_module", "variable_of", "sync"})


def _component(text: str) -> str:
    """`text` as one component of a torch module path."""
    text = text.replace(".", "_") or "_"
    while text in _RESERVED:
        text += "_"
    return text


def torch_path(tf_variable_name: str) -> tuple:
    """The torch path components of a TF variable name (`dense/kernel:0` -> `("dense", "kernel")`)."""
    name = _OUTPUT_SUFFIX.sub("", tf_variable_name)
    return tuple(_component(part) for part in name.split("/") if part) or ("_",)


class _Scope:
    """One level of the torch module tree being laid out."""

    __slots__ = ("taken", "scopes")

    def __init__(self) -> None:
        self.taken: set = set()           # torch names used here (scopes and leaves)
        self.scopes: dict = {}            # wanted scope name -> (torch name, _Scope)

    def fresh(self, wanted: str) -> str:
        name, i = wanted, 0
        while name in self.taken:
            i += 1
            name = f"{wanted}_{i}"
        self.taken.add(name)
        return name


def unique_paths(paths: Iterable[Sequence[str]]) -> list:
    """Each wanted path made unique (see the module docstring), in the given order."""
    root = _Scope()
    out = []
    for path in paths:
        scope, got = root, []
        for part in path[:-1]:
            entry = scope.scopes.get(part)
            if entry is None:
                entry = scope.scopes[part] = (scope.fresh(part), _Scope())
            got.append(entry[0])
            scope = entry[1]
        got.append(scope.fresh(path[-1]))
        out.append(tuple(got))
    return out


def tf_name(torch_name: str) -> str:
    """The TF variable name (without `:0`) of a torch parameter name: `fc1.weight` -> `fc1/weight`."""
    return torch_name.replace(".", "/")
