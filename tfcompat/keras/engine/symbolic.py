"""Calling a layer on KerasTensors: build it from their shapes, infer its outputs, record it.

tf_keras traces `call` in a scratch graph to learn the outputs' shapes and dtypes. tfcompat
has no graph, so it runs `call` eagerly on stand-in tensors: every known dim as given, an
unknown batch dim as 2 and other unknown dims as 32; when the inputs have unknown dims it
runs a second time with 3 and 64, and an output dim that differs between the two runs is
unknown (None). The runs are side-effect free for the model: no gradient is recorded, and
weights a `call` assigns (a counter, moving statistics) are put back, and the losses it adds
are dropped. Masks (`_keras_mask`) are inferred the same way.
"""

from __future__ import annotations

from typing import Any, List, Optional

import torch

from ...framework import dtypes
from ...framework import nest
from ...framework.name_scope import name_scope as name_scope_cls
from ...framework.tensor_shape import TensorShape
from .. import backend
from .keras_tensor import KerasTensor, Node, dummy_value

__all__ = ["functional_construction_call", "trace_output_signature",
           "trace_output_signature_of", "keras_tensor_from_shape"]

# (batch, other unknown dims) of the two tracing runs
_FIRST_RUN = (2, 32)
_SECOND_RUN = (3, 64)


def keras_tensor_from_shape(shape: Any, dtype: Any) -> KerasTensor:
    return KerasTensor(TensorShape(shape), dtype)


def _has_unknown_dims(structure: Any) -> bool:
    for leaf in nest.flatten(structure):
        if isinstance(leaf, KerasTensor):
            shape = leaf.shape
            if shape.rank is None or any(d is None for d in shape.as_list()):
                return True
            mask = leaf._keras_mask
            if isinstance(mask, KerasTensor) and any(d is None for d in mask.shape.as_list()):
                return True
    return False


def _substitute(structure: Any, batch: int, unknown: int) -> Any:
    def sub(x: Any) -> Any:
        if isinstance(x, KerasTensor):
            value = dummy_value(x, unknown, batch)
            mask = x._keras_mask
            if isinstance(mask, KerasTensor):
                value._keras_mask = torch.ones_like(dummy_value(mask, unknown, batch), dtype=torch.bool)
            return value
        return x
    return nest.map_structure(sub, structure)


def _snapshot(layer: Any) -> list:
    saved, seen = [], set()
    weights = [w for sub in layer._flatten_layers()
               for w in sub._trainable_weights + sub._non_trainable_weights]
    for weight in weights:  # (not `layer.weights`: an unbuilt model refuses to list them)
        if id(weight) in seen:
            continue
        seen.add(id(weight))
        try:
            saved.append((weight, weight.read_value().clone()))
        except Exception:  # noqa: BLE001 - an uninitialized or exotic weight: nothing to restore
            continue
    return saved


def _restore(saved: list) -> None:
    for weight, value in saved:
        current = weight.read_value()
        if current.shape != value.shape or not torch.equal(current, value):
            weight.assign(value)


def _run(layer: Any, inputs: Any, args: tuple, kwargs: dict, batch: int, unknown: int) -> Any:
    real_inputs, real_args, real_kwargs = _substitute((inputs, args, kwargs), batch, unknown)
    saved = _snapshot(layer)
    try:
        with torch.no_grad():
            outputs = layer(real_inputs, *real_args, **real_kwargs)
    finally:
        _restore(saved)
        for sub in layer._flatten_layers():
            sub._thread_local.eager_losses = []
    return outputs


def _merge_dims(first: torch.Tensor, second: Optional[torch.Tensor]) -> TensorShape:
    if second is None:
        return TensorShape(list(first.shape))
    if first.dim() != second.dim():
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(first.shape, second.shape)])


def _to_keras_tensors(first: Any, second: Any) -> Any:
    flat_first = nest.flatten(first)
    flat_second = nest.flatten(second) if second is not None else [None] * len(flat_first)
    out = []
    for a, b in zip(flat_first, flat_second):
        if isinstance(a, torch.Tensor):
            kt = KerasTensor(_merge_dims(a, b if isinstance(b, torch.Tensor) else None),
                             dtypes.as_dtype(a.dtype))
            mask_a = getattr(a, "_keras_mask", None)
            if isinstance(mask_a, torch.Tensor):
                mask_b = getattr(b, "_keras_mask", None) if b is not None else None
                kt._keras_mask = KerasTensor(
                    _merge_dims(mask_a, mask_b if isinstance(mask_b, torch.Tensor) else None),
                    dtypes.as_dtype(mask_a.dtype))
            out.append(kt)
        else:
            out.append(a)
    return nest.pack_sequence_as(first, out)


def infer_outputs(layer: Any, inputs: Any, args: tuple, kwargs: dict) -> Any:
    """KerasTensors for what `layer(inputs, *args, **kwargs)` returns (see the module doc)."""
    first = _run(layer, inputs, args, kwargs, *_FIRST_RUN)
    second = None
    if _has_unknown_dims((inputs, args, kwargs)):
        second = _run(layer, inputs, args, kwargs, *_SECOND_RUN)
    return _to_keras_tensors(first, second)


def functional_construction_call(layer: Any, inputs: Any, args: tuple, kwargs: dict) -> Any:
    """`layer(...)` on KerasTensors: build, infer the outputs, record a `Node`."""
    spec = layer._get_call_spec()
    recorded_kwargs = kwargs  # an implicit mask travels with its tensor, not as a node input
    if spec.expects_mask_arg and not spec.arg_was_passed("mask", spec.mask_position, args,
                                                         kwargs):
        masks = [getattr(x, "_keras_mask", None) for x in nest.flatten(inputs)]
        if any(m is not None for m in masks):
            kwargs = dict(kwargs)
            kwargs["mask"] = nest.pack_sequence_as(inputs, masks) if nest.is_nested(
                inputs) else masks[0]
    with backend.keras_graph_scope():  # layers created meanwhile: the Keras graph's names
        if not layer.built:
            with name_scope_cls(layer.name):
                layer._maybe_build(inputs)
        outputs = _symbolic_outputs(layer, inputs, args, kwargs)
    # An output that is one of the inputs gets a KerasTensor of its own (tf_keras's identity)
    input_ids = {id(x) for x in nest.flatten((inputs, args, kwargs))}
    outputs = nest.map_structure(
        lambda t: KerasTensor(t.shape, t.dtype) if id(t) in input_ids else t, outputs)
    Node(layer, call_args=(inputs,) + tuple(args), call_kwargs=recorded_kwargs, outputs=outputs)
    return outputs


def _symbolic_outputs(layer: Any, inputs: Any, args: tuple, kwargs: dict) -> Any:
    """The call's KerasTensors; an error is framed as tf_keras frames a functional call's."""
    from . import base_layer
    previous = getattr(base_layer._symbolic_frame, "layer", None)
    base_layer._symbolic_frame.layer = layer
    try:
        try:
            outputs = infer_outputs(layer, inputs, args, kwargs)
        except Exception as error:
            outputs = _from_compute_output_shape(layer, inputs, error)
    except Exception as error:  # noqa: BLE001 - re-raised with tf_keras's call context
        base_layer._symbolic_frame.layer = previous
        base_layer.raise_with_call_info(
            error, layer.call, f'layer "{layer.name}" (type {type(layer).__name__})',
            (inputs,) + tuple(args), kwargs)
    finally:
        base_layer._symbolic_frame.layer = previous
    return outputs


def _from_compute_output_shape(layer: Any, inputs: Any, error: Exception) -> Any:
    """Outputs from a layer's own `compute_output_shape` when running `call` failed."""
    from .base_layer import Layer
    if type(layer).compute_output_shape is Layer.compute_output_shape:
        raise error
    shapes = nest.map_structure(lambda x: x.shape, inputs)
    out_shapes = layer.compute_output_shape(shapes)
    dtype = layer.compute_dtype or "float32"
    if isinstance(out_shapes, (TensorShape, tuple)) and (
            isinstance(out_shapes, TensorShape) or not out_shapes
            or not isinstance(out_shapes[0], (tuple, list, TensorShape))):
        return KerasTensor(TensorShape(out_shapes), dtype)
    return nest.map_structure(lambda s: KerasTensor(TensorShape(s), dtype), out_shapes,
                              check_types=False)


def _shapes_to_keras_tensors(input_shape: Any, dtype: Any) -> Any:
    if isinstance(input_shape, TensorShape):
        return KerasTensor(input_shape, dtype)
    if isinstance(input_shape, (list, tuple)) and all(
            d is None or isinstance(d, int) for d in input_shape):
        return KerasTensor(TensorShape(list(input_shape)), dtype)
    if isinstance(input_shape, dict):
        return {k: _shapes_to_keras_tensors(v, dtype) for k, v in input_shape.items()}
    return type(input_shape)(_shapes_to_keras_tensors(s, dtype) for s in input_shape)


def trace_output_signature(layer: Any, input_shape: Any) -> Any:
    """KerasTensors of `layer`'s outputs for inputs of `input_shape` (building it if needed)."""
    dtype = layer.compute_dtype or "float32"
    inputs = _shapes_to_keras_tensors(input_shape, dtype)
    return trace_output_signature_of(layer, inputs)


def trace_output_signature_of(layer: Any, inputs: Any) -> Any:
    if not layer.built:
        with name_scope_cls(layer.name):
            layer._maybe_build(inputs)
    return infer_outputs(layer, inputs, (), {})


def flat_keras_inputs(structure: Any) -> List[KerasTensor]:
    return [x for x in nest.flatten(structure) if isinstance(x, KerasTensor)]
