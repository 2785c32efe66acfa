"""`tf.keras.layers.Wrapper` and `tf.keras.layers.TimeDistributed` (tf_keras 2.21).

`TimeDistributed(layer)` applies one inner layer (one set of weights) to every temporal
slice `inputs[:, t]` of inputs shaped `(batch, time, ...)`. As tf_keras decides:

* a built-in layer (a class, or a subclass of one, that tf.keras exports) that is not
  stateful runs once on the inputs folded to `(batch * time, ...)`, and its outputs are
  unfolded to `(batch, time, ...)`; the mask is folded too and handed to the inner layer
  when its `call` takes one, and the output mask is the inner layer's folded mask, or the
  input mask reduced (`any`) to `(batch, time)`;
* any other layer (a user's own `Layer` subclass, or a stateful one) runs once per timestep
  (tf_keras's `backend.rnn` loop): at a masked timestep the output repeats the previous
  step's output (zeros before the first), and the output mask is the input mask.

The inner layer's weights are built by the wrapper in the wrapper's name scope, so they are
named `time_distributed/kernel:0` (no inner layer name), and a checkpoint reaches them
through the dependency `layer`.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any, Optional

import torch

from ....framework import nest
from ....framework.tensor_shape import TensorShape
from ...engine.base_layer import Layer
from ...engine.input_spec import InputSpec
from ...saving import serialization
from ...saving.serialization import keras_export

__all__ = ["Wrapper", "TimeDistributed"]


def _call_takes(layer: Layer, name: str) -> bool:
    """Whether `layer.call` names the argument `name` (tf_keras's `has_arg`: `**kwargs`
    does not count)."""
    try:
        params = inspect.signature(layer.call).parameters
    except (TypeError, ValueError):
        return False
    param = params.get(name)
    return param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD,
                                                param.KEYWORD_ONLY)


def is_builtin_layer(layer: Layer) -> bool:
    """tf_keras's `layer_utils.is_builtin_layer`: the layer's class, or a class it derives
    from, carries a public `tf.keras` name (other than `Layer`'s)."""
    # The export registry is `keras_export`'s; a user subclass inherits its base's name.
    public = serialization._PUBLIC_NAMES
    return any(cls in public and cls is not Layer for cls in type(layer).__mro__)


def deserialize_layer(config: Any, custom_objects: Optional[dict] = None) -> Layer:
    """A layer from its config, new format or legacy (`tf.keras.layers.deserialize`)."""
    from ... import layers as layers_module
    if isinstance(config, dict):
        # tf_keras's wrappers rebuild the inner layer through the legacy path, which does
        # not build it from `build_config`; the wrapper builds it on first call.
        config = {k: v for k, v in config.items() if k != "build_config"}
    module_objects = {name: getattr(layers_module, name) for name in dir(layers_module)}
    layer = serialization.deserialize_keras_object(
        config, module_objects=module_objects, custom_objects=custom_objects,
        printable_module_name="layer")
    if not isinstance(layer, Layer):
        name = config.get("class_name") if isinstance(config, dict) else config
        raise ValueError(
            f"Unknown layer: '{name}'. Please ensure you are using a `keras.utils."
            "custom_object_scope` and that this object is included in the scope. See "
            "https://www.tensorflow.org/guide/keras/save_and_serialize#"
            "registering_the_custom_object for details.")
    return layer


def _is_shape(value: Any) -> bool:
    return isinstance(value, TensorShape) or value is None or (
        isinstance(value, (list, tuple)) and all(d is None or isinstance(d, int) for d in value))


def map_shapes(fn: Any, shapes: Any) -> Any:
    """`fn` over each shape (a `TensorShape`, or a tuple of dims) of a nest of shapes."""
    if _is_shape(shapes):
        return fn(TensorShape(shapes))
    if isinstance(shapes, dict):
        return {k: map_shapes(fn, v) for k, v in shapes.items()}
    return type(shapes)(map_shapes(fn, s) for s in shapes) if isinstance(
        shapes, tuple) else [map_shapes(fn, s) for s in shapes]


def flatten_shapes(shapes: Any) -> list:
    if _is_shape(shapes):
        return [TensorShape(shapes)]
    values = shapes.values() if isinstance(shapes, dict) else shapes
    return [s for v in values for s in flatten_shapes(v)]


@keras_export("keras.layers.Wrapper")
class Wrapper(Layer):
    """Base of the layers that wrap another layer (tf_keras's `Wrapper`); not a layer to
    use by itself."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                f"Layer {layer} supplied to wrapper is not a supported layer type. Please "
                "ensure wrapped layer is a valid TF-Keras layer.")
        self.layer = layer
        super().__init__(**kwargs)

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            if not self.layer.built:
                Layer.build(self.layer, input_shape)
        super().build(input_shape)

    @property
    def activity_regularizer(self) -> Any:
        return getattr(self.layer, "activity_regularizer", None)

    def get_config(self) -> dict:
        config = super().get_config()
        # (a built inner layer's record carries its `build_config`, as tf_keras's)
        config["layer"] = serialization.serialize_keras_object(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> "Wrapper":
        config = copy.deepcopy(config)
        layer = deserialize_layer(config.pop("layer"), custom_objects=custom_objects)
        return cls(layer, **config)


@keras_export("keras.layers.TimeDistributed")
class TimeDistributed(Wrapper):
    """Apply `layer` to every temporal slice of inputs shaped `(batch, time, ...)`
    (tf_keras's `TimeDistributed`; see the module doc)."""

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` "
                f"instance. Received: {layer}")
        super().__init__(layer, **kwargs)
        self.supports_masking = True
        # Folding batch and time is exact for tf.keras's own layers; others may depend on
        # the batch, so they run per timestep (as tf_keras decides).
        self._always_use_reshape = is_builtin_layer(layer) and not getattr(
            layer, "stateful", False)

    @staticmethod
    def _remove_timesteps(shape: TensorShape) -> TensorShape:
        dims = shape.as_list()
        return TensorShape([dims[0]] + dims[2:])

    def build(self, input_shape: Any) -> None:
        ranks = [s.rank for s in flatten_shapes(input_shape)]
        if any(r is None or r < 3 for r in ranks):
            shown = input_shape if not _is_shape(input_shape) else TensorShape(input_shape)
            raise ValueError(
                "`TimeDistributed` Layer should be passed an `input_shape ` with at least 3 "
                f"dimensions, received: {shown}")
        self.input_spec = map_shapes(lambda s: InputSpec(shape=[None, None] + s.as_list()[2:]),
                                     input_shape)
        child_input_shape = map_shapes(self._remove_timesteps, input_shape)
        super().build(child_input_shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        child_input_shape = map_shapes(self._remove_timesteps, input_shape)
        child_output_shape = self.layer.compute_output_shape(child_input_shape)
        timesteps = flatten_shapes(input_shape)[0].as_list()[1]

        def insert_timesteps(shape: TensorShape) -> TensorShape:
            dims = shape.as_list()
            return TensorShape([dims[0], timesteps] + dims[1:])
        return map_shapes(insert_timesteps, child_output_shape)

    def _inner_kwargs(self, training: Any) -> dict:
        return {"training": training} if _call_takes(self.layer, "training") else {}

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        kwargs = self._inner_kwargs(training)
        flat = nest.flatten(inputs)
        batch, timesteps = flat[0].shape[0], flat[0].shape[1]
        if not self._always_use_reshape:
            return self._call_per_timestep(inputs, timesteps, mask, kwargs)
        folded = nest.map_structure(lambda x: x.reshape((-1,) + tuple(x.shape[2:])), inputs)
        if mask is not None and _call_takes(self.layer, "mask"):
            kwargs["mask"] = mask.reshape((-1,) + tuple(mask.shape[2:]))
        outputs = self.layer(folded, **kwargs)
        return nest.map_structure(
            lambda y: y.reshape((batch, timesteps) + tuple(y.shape[1:])), outputs)

    def _call_per_timestep(self, inputs: Any, timesteps: int, mask: Any, kwargs: dict) -> Any:
        if mask is not None:
            mask = mask.to(torch.bool)
        steps: list = []
        previous = None
        for t in range(timesteps):
            output = self.layer(nest.map_structure(lambda x: x[:, t], inputs), **kwargs)
            if mask is not None:
                mask_t = mask[:, t]
                if previous is None:
                    previous = nest.map_structure(torch.zeros_like, output)

                def keep(y: torch.Tensor, prev: torch.Tensor) -> torch.Tensor:
                    m = mask_t.reshape(tuple(mask_t.shape) + (1,) * (y.dim() - mask_t.dim()))
                    return torch.where(m, y, prev)
                output = nest.map_structure(keep, output, previous)
            previous = output
            steps.append(output)
        flat_steps = [nest.flatten(s) for s in steps]
        stacked = [torch.stack([s[i] for s in flat_steps], dim=1)
                   for i in range(len(flat_steps[0]))]
        return nest.pack_sequence_as(steps[0], stacked)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self._always_use_reshape:
            return mask
        flat = nest.flatten(inputs)
        batch, timesteps = flat[0].shape[0], flat[0].shape[1]
        inner_mask = mask
        if inner_mask is not None:
            inner_mask = mask.reshape((-1,) + tuple(mask.shape[2:]))
        folded = nest.map_structure(lambda x: x.reshape((-1,) + tuple(x.shape[2:])), inputs)
        output_mask = self.layer.compute_mask(folded, inner_mask)
        if output_mask is None:
            if mask is None:
                return None
            output_mask = mask.to(torch.bool)
            for _ in range(2, mask.dim()):
                output_mask = torch.any(output_mask, dim=-1)
            return output_mask
        return output_mask.reshape((batch, timesteps) + tuple(output_mask.shape[1:]))
