"""The functional API's model: a graph of layer calls from `inputs` to `outputs`.

`Model(inputs, outputs)` walks back from the outputs' `_keras_history` to collect the
`Node`s (layer calls) between them, in an order where each node comes after the nodes that
feed it. Calling the model replays the nodes on real tensors: inputs are matched to
`inputs` (positionally, or by name for dicts), cast to their dtypes, and each node's layer
is called with its recorded arguments, real tensors in place of the KerasTensors; masks
(`_keras_mask`) and `training` travel as in any layer call. Layers appear in `layers` in the
order of that walk (inputs first); checkpoints name them as tf_keras does (`layer-0`,
`layer_with_weights-0`, ...).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import torch

from ...framework import dtypes
from ...framework import nest
from ...framework.tensor_conversion import convert_to_tensor
from ...ops import math_ops
from ..saving.serialization import keras_export
from .base_layer import Layer, _set
from .input_layer import InputLayer
from .input_spec import InputSpec
from .keras_tensor import KerasTensor, Node
from .training import Model

__all__ = ["Functional"]


def conform_rank(value: torch.Tensor, reference: KerasTensor) -> torch.Tensor:
    """tf_keras's `_conform_to_reference_input`: `(batch, ..., 1)` and `(batch, ...)` are
    interchangeable with the Input's shape (the last axis squeezed or added)."""
    rank = reference.shape.rank
    if rank is None:
        return value
    if value.dim() == rank + 1 and value.shape[-1] == 1:
        return value.squeeze(-1)
    if value.dim() == rank - 1 and reference.shape[-1] == 1:
        return value.unsqueeze(-1)
    return value


def _model_input_spec(flat_inputs: List[KerasTensor]) -> Any:
    """tf_keras's `Functional.input_spec`: each Input's shape with a free batch dimension
    (`allow_last_axis_squeeze`), checked when the model is called."""
    specs = []
    for x in flat_inputs:
        layer = x._keras_history.layer
        shape = getattr(layer, "_batch_input_shape", None)
        specs.append(None if shape is None else InputSpec(
            shape=(None,) + tuple(shape[1:]), allow_last_axis_squeeze=True, name=layer.name))
    return specs[0] if len(specs) == 1 else specs


def _replay_plan(node: Node) -> tuple:
    """`(id of the node's one tensor argument or None, id of its one output or None)`, kept
    on the node: a call `layer(x)` with one output replays without rebuilding structures."""
    args, kwargs = node.call_args, node.call_kwargs
    single_input = id(args[0]) if len(args) == 1 and not kwargs and isinstance(
        args[0], KerasTensor) else None
    outputs = node.outputs
    single_output = id(outputs) if isinstance(outputs, KerasTensor) else None
    plan = (single_input, single_output)
    node.__dict__["_replay_plan"] = plan
    return plan


def _collect_nodes(outputs: List[KerasTensor], inputs: Optional[List[KerasTensor]] = None
                   ) -> List[Node]:
    """Every node between the inputs and `outputs`, each after the nodes feeding it. Given
    the model's `inputs`, a tensor reached that is neither one of them nor computed from them
    is tf_keras's "Graph disconnected" error."""
    ordered: List[Node] = []
    done: set = set()
    visiting: set = set()
    input_ids = None if inputs is None else {id(x) for x in inputs}

    def visit(node: Node) -> None:
        if id(node) in done:
            return
        if id(node) in visiting:
            raise ValueError("The functional graph has a cycle.")
        visiting.add(id(node))
        if input_ids is not None:
            for kt in node.keras_inputs:
                history = kt._keras_history
                parent = history.layer._inbound_nodes[history.node_index]
                if id(kt) not in input_ids and parent.is_input:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {kt} at layer "
                        f'"{node.layer.name}". The following previous layers were accessed '
                        "without issue: " + str([n.layer.name for n in ordered
                                                 if not n.is_input][:10]))
        for parent in node.parent_nodes:
            visit(parent)
        visiting.discard(id(node))
        done.add(id(node))
        ordered.append(node)

    for kt in outputs:
        history = kt._keras_history
        if history is None:
            raise ValueError(
                "Output tensors of a Functional model must be the output of a TensorFlow "
                f"`Layer` (thus holding past layer metadata). Found: {kt}")
        visit(history.layer._inbound_nodes[history.node_index])
    return ordered


class LayerCheckpointNames:
    """tf_keras's checkpoint names for a model's `layers`: `layer-{i}` for each and
    `layer_with_weights-{k}` for those with weights (that one first, so a variable's key takes
    it), ahead of the model's own attributes."""

    def _layer_checkpoint_dependencies(self) -> Dict[str, Any]:
        dependencies: Dict[str, Any] = {}
        weighted = 0
        for index, layer in enumerate(self.layers):
            if layer.weights:
                dependencies[f"layer_with_weights-{weighted}"] = layer
                weighted += 1
            dependencies[f"layer-{index}"] = layer
        return dependencies

    def _trackable_children(self, save_type: str = "checkpoint", **kwargs: Any) -> Dict[str, Any]:
        children = self._layer_checkpoint_dependencies()
        children.update(super()._trackable_children(save_type, **kwargs))
        return children

    def _lookup_dependency(self, name: str, cached_dependencies: Optional[dict] = None) -> Any:
        if cached_dependencies is None:
            found = self._layer_checkpoint_dependencies().get(name)
            if found is not None:
                return found
        return super()._lookup_dependency(name, cached_dependencies)


class AddLoss(Layer):
    """Adds its input as a loss of the call (tf_keras's layer behind a symbolic
    `model.add_loss`), passing it through."""

    def __init__(self, unconditional: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.unconditional = unconditional

    def call(self, inputs: Any) -> Any:
        self.add_loss(inputs)
        return inputs

    def get_config(self) -> dict:
        config = super().get_config()
        config["unconditional"] = self.unconditional
        return config


@keras_export("keras.models.Functional")
class Functional(LayerCheckpointNames, Model):
    """A model defined by its inputs and outputs (tf_keras's `Functional`)."""

    def __init__(self, inputs: Any, outputs: Any, name: Optional[str] = None,
                 trainable: bool = True, **kwargs: Any) -> None:
        if name is None:  # tf_keras names functional models `model`, `model_1`, ...
            from .. import backend
            from . import base_layer_utils
            # (a subclass called as `CustomModel(inputs, outputs)`: `custom_model`, ...)
            prefix = "model" if type(self) is Functional else \
                base_layer_utils.to_snake_case(type(self).__name__)
            name = backend.unique_object_name(prefix, zero_based=True)
        Layer.__init__(self, name=name, trainable=trainable)
        self._record_strategy()
        flat_inputs = nest.flatten(inputs)
        flat_outputs = nest.flatten(outputs)
        for x in flat_inputs:
            if not isinstance(x, KerasTensor) or x._keras_history is None or not isinstance(
                    x._keras_history.layer, InputLayer):
                raise ValueError(
                    "Input tensors to a Functional must come from `tf.keras.Input`. Received: "
                    f"{x} (missing previous layer metadata).")
        for x in flat_outputs:
            if not isinstance(x, KerasTensor):
                raise ValueError(
                    "Output tensors of a Functional model must be the output of a TensorFlow "
                    f"`Layer` (thus holding past layer metadata). Found: {x}")
        _set(self, "_is_graph_network", True)
        _set(self, "_nested_inputs", inputs)
        _set(self, "_nested_outputs", outputs)
        _set(self, "inputs", flat_inputs)
        _set(self, "outputs", flat_outputs)
        nodes = _collect_nodes(flat_outputs, flat_inputs)
        reached = {id(n.layer) for n in nodes}
        for x in flat_inputs:
            if id(x._keras_history.layer) not in reached:
                nodes.insert(0, x._keras_history.layer._inbound_nodes[0])
                reached.add(id(x._keras_history.layer))
        produced = {id(t) for n in nodes for t in nest.flatten(n.outputs)}
        for node in nodes:
            for kt in node.keras_inputs:
                if id(kt) not in produced:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {kt} at layer "
                        f'"{node.layer.name}". The following previous layers were accessed '
                        "without issue: " + str([n.layer.name for n in nodes
                                                 if n is not node][:10]))
        _set(self, "_nodes", [n for n in nodes if not n.is_input])
        _set(self, "_input_spec", _model_input_spec(flat_inputs))
        # tf_keras's layer order: by depth (the longest path to an output), deepest first;
        # layers at one depth in the order the walk met them
        node_depth: Dict[int, int] = {id(n): 0 for n in nodes}
        for node in reversed(nodes):
            for parent in node.parent_nodes:
                node_depth[id(parent)] = max(node_depth.get(id(parent), 0),
                                             node_depth[id(node)] + 1)
        first_seen: List[Layer] = []
        layer_depth: Dict[int, int] = {}
        for node in nodes:
            if not any(node.layer is seen for seen in first_seen):
                first_seen.append(node.layer)
            layer_depth[id(node.layer)] = max(layer_depth.get(id(node.layer), 0),
                                              node_depth[id(node)])
        layers = sorted(first_seen, key=lambda layer: -layer_depth[id(layer)])
        for layer in layers:
            self._self_tracked_trackables.append(layer)
        _set(self, "_layers_in_order", layers)
        _set(self, "input_names", [x._keras_history.layer.name for x in flat_inputs])
        _set(self, "output_names", _unique_output_names(
            [x._keras_history.layer.name for x in flat_outputs]))
        _set(self, "built", True)
        _set(self, "_input_dtypes", [dtypes.to_torch(x.dtype) for x in flat_inputs])

    @property
    def layers(self) -> list:
        return list(self._layers_in_order)

    def _add_symbolic_loss(self, loss: KerasTensor) -> None:
        """`model.add_loss(symbolic_tensor)`: tf_keras's `AddLoss` layer joins the graph (with
        the op layers between the model's inputs and `loss`), so each call of the model
        computes the loss and `model.losses` holds its value."""
        known = {id(n) for n in self._nodes} | {
            id(x._keras_history.layer._inbound_nodes[0]) for x in self.inputs}
        produced = {id(t) for n in self._nodes for t in nest.flatten(n.outputs)} | {
            id(x) for x in self.inputs}
        add_loss_layer = AddLoss(dtype=loss.dtype)
        add_loss_layer(loss)
        new_nodes = [n for n in _collect_nodes([loss]) + [add_loss_layer._inbound_nodes[-1]]
                     if id(n) not in known]
        for node in new_nodes:
            if node.is_input:
                raise ValueError(
                    f"Graph disconnected: cannot obtain value for tensor {node.outputs} at "
                    f'layer "{node.layer.name}": a symbolic loss must be computed from the '
                    "model's inputs.")
            for kt in node.keras_inputs:
                if id(kt) not in produced:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {kt} at layer "
                        f'"{node.layer.name}".')
            produced.update(id(t) for t in nest.flatten(node.outputs))
        for node in new_nodes:
            self._nodes.append(node)
            if not any(node.layer is layer for layer in self._layers_in_order):
                self._layers_in_order.append(node.layer)
                self._self_tracked_trackables.append(node.layer)

    @property
    def input(self) -> Any:
        return self._nested_inputs

    @property
    def output(self) -> Any:
        return self._nested_outputs

    @property
    def input_shape(self) -> Any:
        shapes = [tuple(x.shape.as_list()) for x in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self) -> Any:
        shapes = [tuple(x.shape.as_list()) for x in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def _flatten_inputs(self, inputs: Any) -> list:
        if isinstance(inputs, dict) and not isinstance(self._nested_inputs, dict):
            missing = [n for n in self.input_names if n not in inputs]
            if missing:
                raise ValueError(f"Missing data for input \"{missing[0]}\". You passed a data "
                                 f"dictionary with keys {list(inputs)}. Expected the following "
                                 f"keys: {self.input_names}")
            return [inputs[n] for n in self.input_names]
        if isinstance(self._nested_inputs, dict) and isinstance(inputs, dict):
            return [inputs[k] for k in sorted(self._nested_inputs)]
        flat = nest.flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self.inputs)} input(s), but it received '
                f"{len(flat)} input tensors. Inputs received: {flat}")
        return flat

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        flat = self._flatten_inputs(inputs)
        values: Dict[int, Any] = {}
        masks = nest.flatten(mask) if mask is not None else [None] * len(flat)
        for kt, value, dtype, m in zip(self.inputs, flat, self._input_dtypes, masks):
            if not isinstance(value, torch.Tensor):
                value = convert_to_tensor(value)
            value = conform_rank(value, kt)
            if value.dtype != dtype and (value.dtype.is_floating_point or dtype.is_floating_point):
                value = math_ops.cast(value, dtypes.from_torch(dtype))
            if m is not None:
                value._keras_mask = m
            values[id(kt)] = value
        for node in self._nodes:
            plan = node.__dict__.get("_replay_plan")
            if plan is None:
                plan = _replay_plan(node)
            single_input, single_output = plan
            if single_input is not None:  # `layer(x)`: no argument structure to rebuild
                outputs = node.layer(values[single_input])
            else:
                args, kwargs = node.map_arguments(values)
                outputs = node.layer(*args, **kwargs)
            if single_output is not None and isinstance(outputs, torch.Tensor):
                values[single_output] = outputs
            else:
                for kt, value in zip(nest.flatten(node.outputs), nest.flatten(outputs)):
                    values[id(kt)] = value
        return nest.pack_sequence_as(self._nested_outputs,
                                     [values[id(kt)] for kt in self.outputs])

    def compute_output_shape(self, input_shape: Any) -> Any:
        return nest.map_structure(lambda kt: kt.shape, self._nested_outputs)

    def get_config(self) -> dict:
        from .functional_config import get_network_config
        return get_network_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "Functional":
        from .functional_config import network_from_config
        return network_from_config(cls, config, custom_objects)


def _unique_output_names(names: List[str]) -> List[str]:
    """The output layers' names, a repeated one suffixed `_1`, `_2`, ... (tf_keras's
    `_set_output_names`: a layer giving two outputs names them `out` and `out_1`)."""
    taken: set = set()
    counts: Dict[str, int] = {}
    out = []
    for name in names:
        proposal = name
        while proposal in taken:
            count = counts.get(name, 1)
            proposal = f"{name}_{count}"
            counts[name] = count + 1
        taken.add(proposal)
        out.append(proposal)
    return out
