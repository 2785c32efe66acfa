"""Export a TF checkpoint (or live tracked objects) as a torch state dict or a safetensors file.

Names. Each checkpoint key becomes a torch-style dotted name by one rule:

* `a/b/0/w/.ATTRIBUTES/VARIABLE_VALUE` (an object-based variable) -> `a.b.0.w`;
  another attribute `a/.ATTRIBUTES/X` -> `a.X`;
* an optimizer slot `<var path>/.OPTIMIZER_SLOT/<opt path>/<slot>/.ATTRIBUTES/VARIABLE_VALUE`
  -> `<opt>.slots.<slot>.<var>`, e.g. `optimizer.slots.m.model.layers.0.w`: the
  optimizer's state stays under the optimizer's name, next to its `optimizer.iter`,
  so the model's weights are exactly the names under `model.`;
* a name-based (TF1) key `dense/kernel` -> `dense.kernel` (and its Adam slots
  `dense/kernel/Adam`, `dense/kernel/Adam_1` -> `dense.kernel.Adam`, `dense.kernel.Adam_1`);
* in each path component TF's escapes are undone (`.S` -> `/`, `..` -> `.`).

A `name_map` overrides the rule: a callable `key -> name or None` (None drops the
key), or a dict from checkpoint keys (or from the rule's names) to names or None;
keys it does not mention keep the rule's name. The object graph key
`_CHECKPOINTABLE_OBJECT_GRAPH` and string tensors (torch has no string dtype) are
left out, with a warning naming them. bfloat16 stays `torch.bfloat16`.

Keras Adam and torch Adam. The slots `m` and `v` are torch's `exp_avg` and
`exp_avg_sq`, and the optimizer's `iter` is torch's `step`, so `load_adam_state`
fills a `torch.optim.Adam` from them. The epsilons differ in meaning: Keras (and
tfcompat) update with `lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t)` and
`p -= lr_t * m / (sqrt(v) + eps_keras)`, while torch divides by
`sqrt(v) / sqrt(1 - b2^t) + eps_torch`. The two agree when
`eps_torch = eps_keras / sqrt(1 - b2^t)`, which changes with `t`; with Keras' default
`1e-7` the difference is far below float32 rounding of the update once
`t` is past a few hundred steps, so `eps_torch = eps_keras` is the practical mapping
(`keras_adam_epsilon_for_torch` gives the exact value at a step).
"""

from __future__ import annotations

import collections
import math
import os
import warnings
from typing import Any, Iterable, Mapping

import numpy as np
import torch

from .reader import OBJECT_GRAPH_KEY, load_checkpoint

_ATTRIBUTES = ".ATTRIBUTES"
_SLOTS = ".OPTIMIZER_SLOT"
_VALUE = "VARIABLE_VALUE"


def _unescape(component: str) -> str:
    out, i = [], 0
    while i < len(component):
        if component[i] == "." and i + 1 < len(component) and component[i + 1] in ".S":
            out.append("." if component[i + 1] == "." else "/")
            i += 2
        else:
            out.append(component[i])
            i += 1
    return "".join(out)


def _dotted(path: str) -> str:
    return ".".join(_unescape(part) for part in path.split("/") if part)


def torch_name(key: str) -> str:
    """The dotted torch-style name of checkpoint key `key` (the module docstring's rule)."""
    if f"/{_SLOTS}/" in key:
        variable_path, rest = key.split(f"/{_SLOTS}/", 1)
        rest = rest.split(f"/{_ATTRIBUTES}/", 1)[0]
        optimizer_path, _, slot = rest.rpartition("/")
        return f"{_dotted(optimizer_path)}.slots.{_unescape(slot)}.{_dotted(variable_path)}"
    if f"/{_ATTRIBUTES}/" in key:
        path, attribute = key.split(f"/{_ATTRIBUTES}/", 1)
        return _dotted(path) if attribute == _VALUE else f"{_dotted(path)}.{_unescape(attribute)}"
    return _dotted(key)


def _named_values(source: Any) -> Iterable[tuple[str, Any]]:
    """`(checkpoint key, value)` pairs of a checkpoint path or a live trackable object."""
    if isinstance(source, (str, bytes, os.PathLike)):
        reader = load_checkpoint(os.fsdecode(source))
        try:
            shapes = reader.get_variable_to_shape_map()
            for key in sorted(shapes):
                yield key, reader.get_tensor(key)
        finally:
            reader.close()
        return
    from .graph_view import ObjectGraphView

    saveables, _ = ObjectGraphView(source).serialize()
    for key in sorted(saveables):
        yield key, saveables[key].read()


def _resolve_names(keys: list[str], name_map: Any) -> dict[str, str | None]:
    if name_map is None:
        return {key: torch_name(key) for key in keys}
    if callable(name_map):
        return {key: name_map(key) for key in keys}
    if not isinstance(name_map, Mapping):
        raise TypeError(f"name_map must be a dict or a callable, got {type(name_map).__name__}")
    by_default = {torch_name(key): key for key in keys}
    resolved = {key: torch_name(key) for key in keys}
    unknown = []
    for source, target in name_map.items():
        key = source if source in resolved else by_default.get(source)
        if key is None:
            unknown.append(source)
        else:
            resolved[key] = target
    if unknown:
        import difflib

        hints = [f"{u!r} (nearest: {difflib.get_close_matches(u, keys + list(by_default), n=3, cutoff=0.4)})"
                 for u in unknown]
        raise KeyError(f"name_map names keys the checkpoint does not have: {', '.join(hints)}")
    return resolved


def to_state_dict(checkpoint_or_path_or_module: Any, name_map: Any = None) -> "collections.OrderedDict[str, torch.Tensor]":
    """An ordered `{name: torch.Tensor}` of everything a checkpoint holds.

    The argument is a checkpoint prefix or directory (read from disk, as
    `tf.train.load_checkpoint`), or a live `tf.train.Checkpoint` / `tf.Module` /
    any trackable (its current values, keyed as a checkpoint of it would be: a
    `tf.Module` exported directly gives `layers.0.w`, the names torch's
    `state_dict()` of the same module tree would use). Names follow the module
    docstring's rule or `name_map`; tensors are copies, in checkpoint-key order.
    Raises `ValueError` if two keys get the same name."""
    return state_dict_from_values(dict(_named_values(checkpoint_or_path_or_module)), name_map)


def state_dict_from_values(values: Mapping[str, Any], name_map: Any = None) -> "collections.OrderedDict[str, torch.Tensor]":
    """`to_state_dict` over values already read: `{checkpoint key: numpy or torch value}`."""
    names = _resolve_names(list(values), name_map)
    out: collections.OrderedDict[str, torch.Tensor] = collections.OrderedDict()
    origin: dict[str, str] = {}
    skipped = []
    for key, value in values.items():
        name = names[key]
        if name is None or key == OBJECT_GRAPH_KEY:
            continue
        array = value if isinstance(value, torch.Tensor) else np.asarray(value)
        if isinstance(array, np.ndarray) and (array.dtype == object or array.dtype.kind in "SU"):
            skipped.append(key)
            continue
        if name in out:
            raise ValueError(f"checkpoint keys {origin[name]!r} and {key!r} both export as {name!r}; "
                             "pass a name_map that tells them apart")
        origin[name] = key
        out[name] = _to_torch(array)
    if skipped:
        warnings.warn(f"string tensors have no torch dtype and were left out: {', '.join(skipped)}",
                      stacklevel=3)
    return out


def _to_torch(value: Any) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    array = np.array(value, order="C")  # a copy; 0-d stays 0-d (ascontiguousarray would make it 1-d)
    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.uint16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def save_safetensors(state_dict: Mapping[str, torch.Tensor], path: Any,
                     metadata: Mapping[str, str] | None = None) -> str:
    """Writes `state_dict` as a safetensors file (all or nothing: a temp file, then a rename).

    Needs the optional `safetensors` package (`pip install tfcompat[safetensors]`)."""
    try:
        from safetensors.torch import save_file
    except ImportError as error:
        raise ImportError("save_safetensors needs the safetensors package: pip install "
                          "tfcompat[safetensors] (or pip install safetensors)") from error
    path = os.fspath(path)
    tensors = {name: t.detach().contiguous().cpu() for name, t in state_dict.items()}
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        save_file(tensors, tmp, metadata=dict(metadata) if metadata else None)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return path


def keras_adam_epsilon_for_torch(epsilon: float, beta_2: float, step: int) -> float:
    """The torch Adam `eps` that makes torch's update at 1-based `step` equal Keras'
    with `epsilon`: `epsilon / sqrt(1 - beta_2**step)`."""
    return epsilon / math.sqrt(1.0 - beta_2 ** step)


def load_adam_state(optimizer: torch.optim.Optimizer, named_parameters: Mapping[str, torch.Tensor] | Iterable,
                    state_dict: Mapping[str, torch.Tensor], optimizer_name: str = "optimizer",
                    prefix: str = "") -> None:
    """Fills a `torch.optim.Adam` (or `AdamW`) from a Keras Adam's exported state.

    `named_parameters` gives each torch parameter its exported name (`dict(module.named_parameters())`
    or its items); `prefix` is prepended to look it up (`"model."` when the module is
    the checkpoint's `model`). For each parameter the optimizer holds, `m`, `v` (and
    `vhat` with amsgrad) become `exp_avg`, `exp_avg_sq` (`max_exp_avg_sq`) and
    `optimizer.iter` the `step`; `learning_rate`, `beta_1`, `beta_2` set the param
    groups' `lr` and `betas`. `eps` is left as the optimizer has it (see the module
    docstring). All or nothing: every slot is found and shape-checked first; raises
    `KeyError` or `ValueError` otherwise."""
    names = {id(p): name for name, p in dict(named_parameters).items()}
    iterations = state_dict.get(f"{optimizer_name}.iter")
    if iterations is None:
        raise KeyError(f"{optimizer_name}.iter is not in the state dict: is {optimizer_name!r} the optimizer's name?")
    new_state = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            if id(p) not in names:
                raise KeyError(f"a parameter of shape {tuple(p.shape)} held by the optimizer is not in "
                               "named_parameters")
            name = prefix + names[id(p)]
            entry = {"step": torch.tensor(float(iterations.item()))}
            slots = [("m", "exp_avg"), ("v", "exp_avg_sq")]
            if group.get("amsgrad"):
                slots.append(("vhat", "max_exp_avg_sq"))
            for slot, torch_key in slots:
                key = f"{optimizer_name}.slots.{slot}.{name}"
                if key not in state_dict:
                    raise KeyError(f"{key} is not in the state dict (the Keras optimizer has no {slot!r} slot "
                                   f"for {name})")
                value = state_dict[key]
                if tuple(value.shape) != tuple(p.shape):
                    raise ValueError(f"{key} has shape {tuple(value.shape)}, the parameter {tuple(p.shape)}")
                entry[torch_key] = value.detach().to(dtype=p.dtype, device=p.device).clone()
            new_state[p] = entry
    hyper = {k: state_dict.get(f"{optimizer_name}.{k}") for k in ("learning_rate", "beta_1", "beta_2")}
    for group in optimizer.param_groups:
        if hyper["learning_rate"] is not None:
            group["lr"] = float(hyper["learning_rate"].item())
        betas = list(group.get("betas", (0.9, 0.999)))
        if hyper["beta_1"] is not None:
            betas[0] = float(hyper["beta_1"].item())
        if hyper["beta_2"] is not None:
            betas[1] = float(hyper["beta_2"].item())
        group["betas"] = tuple(betas)
    for p, entry in new_state.items():
        optimizer.state[p] = entry


__all__ = ["to_state_dict", "state_dict_from_values", "torch_name", "save_safetensors", "load_adam_state", "keras_adam_epsilon_for_torch"]
