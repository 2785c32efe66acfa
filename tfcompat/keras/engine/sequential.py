"""`tf.keras.Sequential`: a linear stack of layers (tf_keras 2.x semantics).

With an input shape known (an `Input`/`InputLayer` first, or `input_shape=` on the first
layer) the model is built as a graph network at once: each `add` calls the new layer on the
previous output's KerasTensor, so weights exist and `summary()` works before any data. Else
the first call (or `build(input_shape)`) builds it, with the batch dimension left unknown.
Calling runs the layers in order; masks and `training` propagate as in any layer call.
`layers` never lists the InputLayer; checkpoints name the layers `layer-0`,
`layer_with_weights-0`, ... over `layers`, as tf_keras.
"""

from __future__ import annotations

from typing import Any, List, Optional

import torch

from ...framework import nest
from ...framework.tensor_shape import TensorShape
from ..saving.serialization import keras_export
from .base_layer import Layer, _set
from .functional import LayerCheckpointNames
from .input_layer import Input, InputLayer
from .keras_tensor import KerasTensor
from .training import Model

__all__ = ["Sequential"]


@keras_export("keras.Sequential", "keras.models.Sequential")
class Sequential(LayerCheckpointNames, Model):
    """A model that runs its layers one after the other."""

    def __init__(self, layers: Optional[list] = None, name: Optional[str] = None) -> None:
        Layer.__init__(self, name=name)
        self._record_strategy()
        _set(self, "_is_graph_network", False)
        _set(self, "_sequential_layers", [])
        _set(self, "_input_layer", None)
        _set(self, "inputs", None)
        _set(self, "outputs", None)
        if layers:
            if not isinstance(layers, (list, tuple)):
                layers = [layers]
            for layer in layers:
                self.add(layer)

    @property
    def layers(self) -> list:
        return list(self._sequential_layers)

    def add(self, layer: Any) -> None:
        """Append `layer` (a Layer, or an `Input` tensor to fix the input shape)."""
        if isinstance(layer, KerasTensor):
            history = layer._keras_history
            if history is None or not isinstance(history.layer, InputLayer):
                raise TypeError("The added layer must be an instance of class Layer. "
                                f"Received: layer={layer} of type {type(layer)}.")
            layer = history.layer
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Received: "
                            f"layer={layer} of type {type(layer)}.")
        if isinstance(layer, InputLayer):
            if self._sequential_layers or self._input_layer is not None:
                raise ValueError("An InputLayer can only be the first layer of a Sequential "
                                 "model.")
            _set(self, "_input_layer", layer)
            self._start_graph(layer._inbound_nodes[0].outputs)
            return
        for existing in self._sequential_layers:
            if existing.name == layer.name:
                raise ValueError(
                    "All layers added to a Sequential model should have unique names. Name "
                    f'"{layer.name}" is already the name of a layer in this model. Update the '
                    "`name` argument to pass a unique name.")
        self._sequential_layers.append(layer)
        self._self_tracked_trackables.append(layer)
        if self._is_graph_network:
            self._extend_graph(layer)
        elif len(self._sequential_layers) == 1 and hasattr(layer, "_batch_input_shape"):
            shape = layer._batch_input_shape
            self._start_graph(Input(batch_shape=shape, dtype=layer.dtype,
                                    name=layer.name + "_input"))

    def pop(self) -> None:
        """Remove the last layer (tf_keras's `TypeError` when there is none)."""
        if not self._sequential_layers:
            raise TypeError("There are no layers in the model.")
        layer = self._sequential_layers.pop()
        _set(self, "_self_tracked_trackables",
             [t for t in self._self_tracked_trackables if t is not layer])
        if self._is_graph_network:
            start = self.inputs[0]
            _set(self, "_is_graph_network", False)
            self._start_graph(start)

    def _start_graph(self, x: KerasTensor) -> None:
        from .functional import _model_input_spec
        # a graph started by `build`/the first call (deferred) has no model-level spec
        _set(self, "_input_spec", None if getattr(self, "_deferred_graph", False)
             else _model_input_spec([x]))
        _set(self, "inputs", [x])
        _set(self, "outputs", [x])
        _set(self, "_is_graph_network", True)
        for layer in self._sequential_layers:
            self._extend_graph(layer)
        _set(self, "built", bool(self._sequential_layers) or self.built)

    def _extend_graph(self, layer: Layer) -> None:
        output = layer(self.outputs[0])
        if len(nest.flatten(output)) != 1:
            raise ValueError(
                "All layers in a Sequential model should have a single output tensor. For "
                "multi-output layers, use the functional API.")
        _set(self, "outputs", [nest.flatten(output)[0]])
        _set(self, "built", True)

    def build(self, input_shape: Any = None) -> None:
        if self._is_graph_network:
            _set(self, "built", True)
            return
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        shape = TensorShape(input_shape).as_list()
        _set(self, "_deferred_graph", True)
        # tf_keras builds the graph on the shape given, batch size included (a first call on
        # a batch of 1 shows `(1, 2)` in the summary); a later call on another shape relaxes
        # the dims that differ to None (`_relax_deferred_graph`)
        self._start_graph(Input(batch_shape=shape))
        _set(self, "_build_input_shape", TensorShape(input_shape))
        _set(self, "built", True)

    def _maybe_build(self, inputs: Any) -> None:
        if not self.built and not self._is_graph_network:
            flat = nest.flatten(inputs)
            if len(flat) == 1 and hasattr(flat[0], "shape"):
                self.build(TensorShape(list(flat[0].shape)))
        Layer._maybe_build(self, inputs)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if not self._sequential_layers:
            raise ValueError("You must add a layer to the Sequential model before calling it.")
        outputs = inputs
        if getattr(self, "_deferred_graph", False) and isinstance(outputs, torch.Tensor):
            self._relax_deferred_graph(outputs.shape)
        if self._is_graph_network and self.inputs and isinstance(outputs, torch.Tensor):
            from .functional import conform_rank
            outputs = conform_rank(outputs, self.inputs[0])
        if mask is not None and hasattr(outputs, "shape"):
            outputs._keras_mask = mask
        for layer in self._sequential_layers:
            outputs = layer(outputs)
        return outputs

    def _relax_deferred_graph(self, shape: Any) -> None:
        """A deferred graph built on one shape, called on another of the same rank: rebuilt
        on the shape with the differing dims unknown (tf_keras's `relax_input_shape`)."""
        recorded = self.inputs[0].shape.as_list() if self.inputs else None
        if recorded is None or len(recorded) != len(shape):
            return
        relaxed = [a if a == b else None for a, b in zip(recorded, shape)]
        if relaxed != recorded:
            self._start_graph(Input(batch_shape=relaxed))

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = input_shape
        for layer in self._sequential_layers:
            shape = layer.compute_output_shape(shape)
        return shape

    @property
    def input_shape(self) -> Any:
        if self.inputs:
            return tuple(self.inputs[0].shape.as_list())
        raise AttributeError("The model has not been built: it has no defined input shape.")

    @property
    def output_shape(self) -> Any:
        if self.outputs:
            return tuple(self.outputs[0].shape.as_list())
        raise AttributeError("The model has not been built: it has no defined output shape.")

    def get_config(self) -> dict:
        from ..saving.serialization import serialize_keras_object
        layers: List[Any] = []
        if self._is_graph_network and self.inputs:
            input_layer = self.inputs[0]._keras_history.layer
            layers.append(serialize_keras_object(input_layer))
        layers.extend(serialize_keras_object(layer) for layer in self._sequential_layers)
        return {"name": self.name, "layers": layers}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "Sequential":
        from ..saving.serialization import deserialize_keras_object
        from .. import layers as layers_module
        model = cls(name=config.get("name"))
        module_objects = {name: getattr(layers_module, name) for name in dir(layers_module)}
        for layer_config in config["layers"]:
            layer = deserialize_keras_object(layer_config, module_objects=module_objects,
                                             custom_objects=custom_objects,
                                             printable_module_name="layer")
            model.add(layer)
        return model
