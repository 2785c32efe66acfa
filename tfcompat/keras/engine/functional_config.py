"""A functional model's config in tf_keras's format, both ways.

`{"name", "trainable", "layers": [{module, class_name, config, registered_name,
build_config, "name", "inbound_nodes": [[[layer_name, node_index, tensor_index, kwargs],
...], ...]}, ...], "input_layers": [[name, 0, 0], ...], "output_layers": [...]}` — the
JSON tf_keras 2.21 writes for `model.get_config()` and inside `.h5` files, so configs move
between tf_keras and tfcompat. Rebuilding resolves classes through the registry only
(`deserialize_keras_object`): nothing in a config executes code.
"""

from __future__ import annotations

import json

from typing import Any, Dict, List

from ...framework import nest
from ..saving.serialization import deserialize_keras_object, serialize_keras_object
from .input_layer import InputLayer
from .keras_tensor import KerasTensor

__all__ = ["get_network_config", "network_from_config", "serialize_layer"]


def serialize_layer(layer: Any) -> dict:
    """`serialize_keras_object(layer)` plus tf_keras's `build_config` for built layers."""
    config = serialize_keras_object(layer)
    shape = getattr(layer, "_build_input_shape", None)
    if shape is not None and not isinstance(layer, InputLayer) and isinstance(config, dict):
        config["build_config"] = {"input_shape": _plain_shape(shape)}
    return config


def _plain_shape(shape: Any) -> Any:
    if hasattr(shape, "as_list"):
        return shape.as_list() if shape.rank is not None else None
    if isinstance(shape, (list, tuple)):
        return [_plain_shape(s) for s in shape] if shape and isinstance(
            shape[0], (list, tuple)) or (shape and hasattr(shape[0], "as_list")) else list(shape)
    return shape


def get_network_config(model: Any) -> dict:
    own_nodes = {id(n) for n in model._nodes} | {
        id(x._keras_history.layer._inbound_nodes[0]) for x in model.inputs}
    index_map: Dict[tuple, int] = {}
    for layer in model.layers:
        kept = 0
        for original, node in enumerate(layer._inbound_nodes):
            if id(node) in own_nodes:
                index_map[(layer.name, original)] = kept
                kept += 1

    def ref(kt: Any, kwargs: dict) -> list:
        history = kt._keras_history
        return [history.layer.name, index_map.get((history.layer.name, history.node_index), 0),
                history.tensor_index, kwargs]

    layers: List[dict] = []
    for layer in model.layers:
        entry = serialize_layer(layer)
        entry["name"] = layer.name
        inbound = []
        for node in layer._inbound_nodes:
            if id(node) not in own_nodes or node.is_input:
                continue
            if getattr(layer, "_preserve_input_structure_in_config", False):
                inbound.append(_op_node_data(layer, node, ref))
                continue
            kwargs = _call_arguments(layer, node, ref, drop=("mask",))
            inbound.append([ref(kt, kwargs) for kt in nest.flatten(node.call_args[0])])
        entry["inbound_nodes"] = inbound
        layers.append(entry)
    return {
        "name": model.name, "trainable": model.trainable, "layers": layers,
        "input_layers": [ref(x, {})[:3] for x in model.inputs],
        "output_layers": [ref(x, {})[:3] for x in model.outputs],
    }


_CONSTANT_VALUE = "_CONSTANT_VALUE"


def _plain_value(value: Any) -> Any:
    """A call argument as JSON-ready data (tensors as lists, dtypes by name)."""
    import torch
    from ...framework import dtypes
    from ...framework.tensor_shape import TensorShape
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().tolist()
    if isinstance(value, (dtypes.DType, torch.dtype)):
        return dtypes.as_dtype(value).name
    if isinstance(value, TensorShape):
        return value.as_list() if value.rank is not None else None
    if hasattr(value, "tolist") and hasattr(value, "dtype"):  # NumPy values
        return value.tolist()
    return value


def _plain_argument(ref: Any) -> Any:
    def plain(value: Any) -> Any:
        if isinstance(value, KerasTensor):
            return ref(value, {})[:3]
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return _plain_value(value)
    return plain


def _call_arguments(layer: Any, node: Any, ref: Any, drop: tuple = ()) -> dict:
    """tf_keras's node kwargs: every call argument after the first, by parameter name, with
    Keras tensors among them as `[layer, node, tensor]` (`MultiHeadAttention(q, v)`'s value,
    an RNN's `initial_state`); the first argument's tensors carry this dict."""
    spec = layer._get_call_spec()
    rest = node.call_args[1:]
    names = spec.arg_names[1:]
    if len(rest) > len(names):
        raise ValueError(
            f"Layer {layer.name} was called with {len(rest) + 1} positional arguments; its "
            "function takes them as `*args`, which a config cannot name.")
    arguments = dict(zip(names, rest))
    arguments.update({k: v for k, v in node.call_kwargs.items() if k not in drop})
    plain = _plain_argument(ref)
    kwargs = {k: plain(v) for k, v in arguments.items()}
    try:
        json.dumps(kwargs)
    except TypeError:
        types = {k: type(v).__name__ for k, v in arguments.items()}
        raise TypeError(f"Layer {layer.name} was passed non-JSON-serializable arguments. "
                        f"Arguments had types: {types}. They cannot be serialized out when "
                        "saving the model.") from None
    return kwargs


def _op_node_data(layer: Any, node: Any, ref: Any) -> Any:
    """tf_keras's node data for an op layer (TFOpLambda): the first argument's structure
    kept, each tensor `[layer, node, tensor, kwargs]`, each constant `["_CONSTANT_VALUE", -1,
    value, kwargs]`; the other arguments go in `kwargs` by parameter name, tensors among
    them as `[layer, node, tensor]`."""
    kwargs = _call_arguments(layer, node, ref)
    plain = _plain_argument(ref)

    def first_arg(value: Any) -> Any:
        if isinstance(value, KerasTensor):
            return ref(value, kwargs)
        if isinstance(value, (list, tuple)):
            return [first_arg(v) for v in value]
        return [_CONSTANT_VALUE, -1, plain(value), kwargs]

    return first_arg(node.call_args[0])


def _is_node_ref(data: Any) -> bool:
    return isinstance(data, list) and len(data) in (3, 4) and isinstance(data[0], str)


def _node_call(node_data: Any, outputs_by_node: Dict[tuple, Any], names: set,
               preserve: bool) -> Any:
    """`(inputs, kwargs)` for one config node, or None while an input is not built yet."""
    missing = object()
    kwargs: Dict[str, Any] = {}

    def tensor(r: list) -> Any:
        key = (r[0], r[1])
        if key not in outputs_by_node:
            return missing
        return nest.flatten(outputs_by_node[key])[r[2]]

    def kwarg_value(value: Any) -> Any:
        if _is_node_ref(value) and len(value) == 3 and value[0] in names and isinstance(
                value[1], int) and isinstance(value[2], int):
            return tensor(value)
        if isinstance(value, list):
            return [kwarg_value(v) for v in value]
        if isinstance(value, dict):
            return {k: kwarg_value(v) for k, v in value.items()}
        return value

    def walk(data: Any) -> Any:
        if _is_node_ref(data):
            if len(data) == 4 and data[3]:
                kwargs.update({k: kwarg_value(v) for k, v in data[3].items()})
            if data[0] == _CONSTANT_VALUE:
                return data[2]
            return tensor(data)
        if isinstance(data, list):
            return [walk(d) for d in data]
        raise ValueError("Improperly formatted model config.")

    inputs = walk(node_data)
    flat = nest.flatten((inputs, kwargs))
    if any(v is missing for v in flat):
        return None
    if not preserve and isinstance(inputs, list) and len(inputs) == 1:
        inputs = inputs[0]
    return inputs, kwargs


def network_from_config(cls: Any, config: dict, custom_objects: Any = None) -> Any:
    from .. import layers as layers_module
    module_objects = {name: getattr(layers_module, name) for name in dir(layers_module)}
    created: Dict[str, Any] = {}
    outputs_by_node: Dict[tuple, Any] = {}
    pending = list(config["layers"])
    for entry in pending:
        layer_config = {k: v for k, v in entry.items() if k not in ("name", "inbound_nodes")}
        created[entry["name"]] = deserialize_keras_object(
            layer_config, module_objects=module_objects, custom_objects=custom_objects,
            printable_module_name="layer")
    progress = True
    remaining = {e["name"]: list(enumerate(e["inbound_nodes"])) for e in pending}
    for entry in pending:
        layer = created[entry["name"]]
        if isinstance(layer, InputLayer):
            outputs_by_node[(entry["name"], 0)] = [layer._inbound_nodes[0].outputs]
            remaining[entry["name"]] = []
    while progress and any(remaining.values()):
        progress = False
        for entry in pending:
            name = entry["name"]
            while remaining[name]:
                index, node_data = remaining[name][0]
                call = _node_call(node_data, outputs_by_node, set(created), getattr(
                    created[name], "_preserve_input_structure_in_config", False))
                if call is None:
                    break
                out = created[name](call[0], **call[1])
                outputs_by_node[(name, index)] = out
                remaining[name].pop(0)
                progress = True
    if any(remaining.values()):
        raise ValueError("Graph disconnected or cyclic in the config: cannot rebuild layers "
                         f"{[n for n, r in remaining.items() if r]}.")

    def lookup(r: list) -> Any:
        return nest.flatten(outputs_by_node[(r[0], r[1])])[r[2]]

    inputs = [lookup(r) for r in config["input_layers"]]
    outputs = [lookup(r) for r in config["output_layers"]]
    return cls(inputs[0] if len(inputs) == 1 else inputs,
               outputs[0] if len(outputs) == 1 else outputs, name=config.get("name"))
