"""`Model.summary()`: tf_keras 2.21's layer table, character for character.

Two layouts, as tf_keras picks them: a chain (a Sequential, a subclassed model, or a
functional model whose every layer call has one input and feeds one layer) prints
`Layer (type) | Output Shape | Param #` in 65 columns at 45% / 85%; a graph adds
`Connected to` (`name[node][tensor]` per input) in 98 columns at 30% / 60% / 70%. A cell too
long for its column continues on the next line, cut after the first `),`, `},`, `],` or `',`
that fits. Totals count parameters and their bytes (`Total params: 23 (92.00 Byte)`).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

import numpy as np

from ...framework import dtypes

__all__ = ["print_summary", "readable_memory_size"]

_BREAKS = ("),", "},", "],", "',")


def readable_memory_size(size: float) -> str:
    """`92.00 Byte`, `1.50 KB`, ...: powers of 1024, two decimals."""
    units = ["Byte", "KB", "MB", "GB", "TB", "PB"]
    index = 0
    while size >= 1024 and index < len(units) - 1:
        size /= 1024
        index += 1
    return f"{size:.2f} {units[index]}"


def _count(weights: list) -> int:
    seen, total = set(), 0
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            total += int(np.prod(tuple(w.shape)))
    return total


def _bytes(weights: list) -> int:
    seen, total = set(), 0
    for w in weights:
        if id(w) not in seen:
            seen.add(id(w))
            total += int(np.prod(tuple(w.shape))) * dtypes.as_dtype(w.dtype).size
    return total


def _is_chain(model: Any) -> bool:
    if not getattr(model, "_is_graph_network", False) or type(model).__name__ == "Sequential":
        return True
    nodes = getattr(model, "_nodes", [])
    node_ids = {id(n) for n in nodes}
    consumers: dict = {}
    for node in nodes:
        if len(node.keras_inputs) > 1:
            return False
        for kt in node.keras_inputs:
            consumers[id(kt)] = consumers.get(id(kt), 0) + 1
    if any(count > 1 for count in consumers.values()) or len(model.inputs) > 1:
        return False
    for layer in model.layers:
        if sum(1 for n in layer._inbound_nodes if id(n) in node_ids) > 1:
            return False
    return True


def _output_shape(layer: Any) -> Any:
    from .input_layer import InputLayer
    try:
        shape = layer.output_shape
    except AttributeError:
        return "multiple"
    except RuntimeError:
        return "?"
    return [shape] if isinstance(layer, InputLayer) else shape


def print_summary(model: Any, line_length: Optional[int] = None, positions: Any = None,
                  print_fn: Optional[Callable[[str], Any]] = None, expand_nested: bool = False,
                  show_trainable: bool = False, layer_range: Any = None) -> None:
    emit = print_fn or print
    chain = _is_chain(model)
    if chain:
        line_length = line_length or 65
        positions = list(positions or [0.45, 0.85, 1.0])
        headers = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = list(positions or [0.3, 0.6, 0.70, 1.0])
        headers = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        headers.append("Trainable")
    model_nodes = {id(n) for n in getattr(model, "_nodes", [])}

    def row(fields: List[Any], level: int = 0) -> None:
        pending = [str(f) for f in fields]
        last = len(positions) - 1
        while any(pending):
            line = ""
            for col, text in enumerate(pending):
                start = positions[col - 1] if col else 0
                pad = 0 if col == last else 2
                width = positions[col] - start - pad - (0 if col == last else 1)
                if col == 0:
                    width -= level
                piece = text[:width]
                cuts = [piece.find(b) + len(b) for b in _BREAKS if piece.find(b) >= 0]
                if cuts:
                    piece = piece[:min(cuts)]
                if col == 0:
                    line += "|" * level + " "
                line += piece + " " * pad
                pending[col] = text[len(piece):]
                fill = positions[col] - len(line) - (level if level and col == last else 0)
                line += " " * fill
            emit(line + "|" * level)

    def connections(layer: Any) -> list:
        out = []
        for node in layer._inbound_nodes:
            if model_nodes and id(node) not in model_nodes:
                continue
            for inbound, node_index, tensor_index, _ in node.iterate_inbound():
                out.append(f"{inbound.name}[{node_index}][{tensor_index}]")
        return out

    def show(layer: Any, level: int = 0, nested_last: bool = False) -> None:
        if chain:
            params: Any = layer.count_params() if (
                layer.built or getattr(layer, "_is_graph_network", False)) else "0 (unused)"
            fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer), params]
        else:
            fields = [f"{layer.name} ({type(layer).__name__})", _output_shape(layer),
                      layer.count_params(), connections(layer)]
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        row(fields, level)
        inner = getattr(layer, "layers", None) if expand_nested else None
        if inner:
            emit("|" * (level + 1) + "\u00af" * (line_length - 2 * level - 2) + "|" * (level + 1))
            for i, sub in enumerate(inner):
                show(sub, level + 1, i == len(inner) - 1)
            emit("|" * level + "\u00af" * (line_length - 2 * level) + "|" * level)
        if not nested_last:
            emit("|" * level + " " * (line_length - 2 * level) + "|" * level)

    emit(f'Model: "{model.name}"')
    emit("_" * line_length)
    row(headers)
    emit("=" * line_length)
    layers = model.layers
    if layer_range is not None:
        names = [l.name for l in layers]
        if len(layer_range) != 2:
            raise ValueError("layer_range must be a list or tuple of length 2. Received: "
                             f"layer_range = {layer_range} of length {len(layer_range)}")
        start = next((i for i, n in enumerate(names) if layer_range[0] in n), None)
        stop = next((i for i, n in reversed(list(enumerate(names))) if layer_range[1] in n),
                    None)
        if start is None or stop is None:
            raise ValueError("Passed layer_names do not match the layer names in the model. "
                             f"Received: {layer_range}")
        layers = layers[start:stop + 1]
    for layer in layers:
        show(layer)
    emit("=" * line_length)
    trainable, non_trainable = model.trainable_weights, model.non_trainable_weights
    t_bytes, n_bytes = _bytes(trainable), _bytes(non_trainable)
    emit(f"Total params: {_count(trainable) + _count(non_trainable)} "
         f"({readable_memory_size(t_bytes + n_bytes)})")
    emit(f"Trainable params: {_count(trainable)} ({readable_memory_size(t_bytes)})")
    emit(f"Non-trainable params: {_count(non_trainable)} ({readable_memory_size(n_bytes)})")
    emit("_" * line_length)
