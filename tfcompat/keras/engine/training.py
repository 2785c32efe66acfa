"""`tf.keras.Model`: a Layer that holds layers (tf_keras 2.x `Model`, issue 14's part).

Subclass it (layers as attributes, `call`), or call it with `inputs` and `outputs` to get a
functional model (`Model(inputs, outputs)` returns a `Functional`, as tf_keras's
`Model.__new__` does). The training API (`compile`, `fit`, `evaluate`, `predict`, the
`*_on_batch` calls) comes from `training_api.TrainingAPI`.
"""

from __future__ import annotations

from typing import Any, Optional

from ...framework import nest
from ...framework.tensor_shape import TensorShape
from ..saving.serialization import keras_export
from . import base_layer_utils as utils
from .base_layer import Layer
from .training_api import TrainingAPI

__all__ = ["Model"]

_MODEL_KWARGS = {"trainable", "dtype", "dynamic", "name", "autocast", "inputs", "outputs"}


def _is_functional_call(args: tuple, kwargs: dict) -> bool:
    return ("inputs" in kwargs and "outputs" in kwargs) or (
        len(args) == 2) or (len(args) == 1 and "outputs" in kwargs)


def _inject_functional_model_class(cls: type, functional: type) -> None:
    """Put `Functional` where `Model` is among `cls`'s bases (or its ancestors'), so the
    class's instances are functional models that keep every method the class defines."""
    if cls is Model or issubclass(cls, functional):
        return
    if Model in cls.__bases__:
        cls.__bases__ = tuple(functional if base is Model else base for base in cls.__bases__)
        return
    for base in cls.__bases__:
        if isinstance(base, type) and issubclass(base, Model):
            _inject_functional_model_class(base, functional)


@keras_export("keras.Model", "keras.models.Model")
class Model(TrainingAPI, Layer):
    """A model: layers tracked as attributes, run by `call` (or a functional graph).

    Metrics held as attributes (`self.loss_tracker = Mean()`, TF's custom-fit guide) have
    their state among the model's `weights` and `non_trainable_weights` (so `get_weights`,
    `count_params` and weights files count them), as tf_keras; a layer's do not."""

    _WEIGHTS_INCLUDE_METRICS = True

    def __new__(cls, *args: Any, **kwargs: Any) -> "Model":
        if _is_functional_call(args, kwargs):
            from .functional import Functional
            if cls is Model:
                return Functional.__new__(Functional, *args, **kwargs)
            if not issubclass(cls, Functional):
                # `class CustomModel(keras.Model)` called as `CustomModel(inputs, outputs)`
                # (TF's "customizing fit" guide): a functional model with the subclass's
                # methods, as tf_keras's `inject_functional_model_class`.
                _inject_functional_model_class(cls, Functional)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if type(self) is Model and _is_functional_call(args, kwargs):
            return  # (Functional.__init__ ran: `Model(inputs, outputs)`)
        utils.validate_kwargs(kwargs, _MODEL_KWARGS)
        if "inputs" in kwargs or "outputs" in kwargs:
            raise TypeError("Functional models may only be instantiated with `Model(inputs, "
                            "outputs)` or a subclass that forwards them.")
        super().__init__(**{k: v for k, v in kwargs.items() if k in
                            {"trainable", "dtype", "dynamic", "name", "autocast"}})
        self._record_strategy()
        self._is_graph_network = False
        self.inputs = None
        self.outputs = None

    @property
    def weights(self) -> list:
        """Layer by layer (each layer's trainable then non-trainable weights), then the
        model's own: tf_keras's `Model.weights` order, which `get_weights`, `set_weights`
        and `.h5` files follow."""
        self._assert_weights_created()
        self._update_trackables()
        collected: list = []
        for child in self._flatten_modules(include_self=False, recursive=False,
                                           include_metrics=True):
            collected.extend(child.variables)
        collected.extend(self._trainable_weights + self._non_trainable_weights)
        return self._dedup_weights(collected)

    @property
    def trainable_weights(self) -> list:
        self._assert_weights_created()
        return super().trainable_weights

    @property
    def non_trainable_weights(self) -> list:
        self._assert_weights_created()
        return super().non_trainable_weights

    def _assert_weights_created(self) -> None:
        """tf_keras: a model whose class defines `build` (a Sequential, a subclass) has no
        weights to list before it is built -- a ValueError, not a misleading `[]`."""
        if self.built or self.dynamic:
            return
        if "build" in type(self).__dict__ and type(self) is not Model:
            raise ValueError(
                f"Weights for model '{self.name}' have not yet been created. Weights are "
                "created when the model is first called on inputs or `build()` is called "
                "with an `input_shape`.")

    @property
    def variables(self) -> list:  # type: ignore[override]
        return self.weights

    @property
    def layers(self) -> list:
        """The layers this model tracks directly, in the order they were assigned."""
        return list(self._flatten_layers(include_self=False, recursive=False))

    def get_layer(self, name: Optional[str] = None, index: Optional[int] = None) -> Layer:
        """A layer by `name` or by `index` into `layers` (tf_keras's errors)."""
        if index is not None and name is not None:
            raise ValueError("Provide only a layer name or a layer index. Received: "
                             f"index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(f"Was asked to retrieve layer at index {index} but model only "
                                 f"has {len(self.layers)} layers.")
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: "
                             f"{list(layer.name for layer in self.layers)}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def build(self, input_shape: Any) -> None:
        """Build a subclassed model by running `call` on stand-in inputs of `input_shape`."""
        if self._is_graph_network or self.__dict__.get("_building_from_call"):
            # (from a subclass's `build` during the first call: that call runs `call` next)
            super().build(input_shape)
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a "
                             "`Model` subclass.")
        from .keras_tensor import KerasTensor
        from .symbolic import infer_outputs
        if isinstance(input_shape, (list, tuple)) and input_shape and all(
                isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
            inputs: Any = [KerasTensor(TensorShape(s), self.compute_dtype or "float32")
                           for s in input_shape]
        elif isinstance(input_shape, dict):
            inputs = {k: KerasTensor(TensorShape(s), self.compute_dtype or "float32")
                      for k, s in input_shape.items()}
        else:
            inputs = KerasTensor(TensorShape(input_shape), self.compute_dtype or "float32")
        infer_outputs(self, inputs, (), {})
        super().build(input_shape)

    build._is_default = True  # type: ignore[attr-defined]  (an implicit build skips it)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        raise NotImplementedError(
            "Unimplemented `tf.keras.Model.call()`: if you intend to create a `Model` with the "
            "Functional API, please provide `inputs` and `outputs` arguments. Otherwise, "
            "subclass `Model` with an overridden `call()` method.")

    def get_config(self) -> dict:
        if type(self).get_config is not Model.get_config:
            return super().get_config()
        config = {"name": self.name, "trainable": self.trainable}
        if getattr(self, "_auto_get_config", False):
            config.update(self._auto_config)
            return config
        raise NotImplementedError(
            f"Model {type(self).__name__} was created by passing non-serializable argument "
            "values in `__init__()`, and therefore the model must override `get_config()` in "
            "order to be serializable. Please implement `get_config()`.")

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "Model":
        """A functional config (`layers`, `input_layers`, `output_layers`) rebuilds the graph;
        any other config goes to the constructor (a subclassed model's)."""
        if "layers" in config and "input_layers" in config and "output_layers" in config:
            from .functional import Functional
            from .functional_config import network_from_config
            target = cls if issubclass(cls, Functional) else Functional
            return network_from_config(target, config, custom_objects)
        return super().from_config(config)

    def summary(self, line_length: Optional[int] = None, positions: Any = None,
                print_fn: Any = None, expand_nested: bool = False, show_trainable: bool = False,
                layer_range: Any = None) -> None:
        """Print the layer table as tf_keras does (`engine/summary.py`)."""
        if not self.built:
            raise ValueError(
                "This model has not yet been built. Build the model first by calling `build()` "
                "or by calling the model on a batch of data.")
        from . import summary as summary_lib
        summary_lib.print_summary(self, line_length=line_length, positions=positions,
                                  print_fn=print_fn, expand_nested=expand_nested,
                                  show_trainable=show_trainable, layer_range=layer_range)

    def to_json(self, **kwargs: Any) -> str:
        """`{"class_name", "config", "keras_version", "backend"}` as JSON (tf_keras's)."""
        import json
        from ..saving.serialization import serialize_keras_object
        record = serialize_keras_object(self)
        record = {"class_name": record["class_name"], "config": record["config"],
                  "keras_version": "2.21.0", "backend": "tensorflow"}
        return json.dumps(record, **kwargs)

    # ------------------------------------------------------------------ saving
    def save_weights(self, filepath: Any, overwrite: bool = True,
                     save_format: Optional[str] = None, options: Any = None) -> None:
        """Write the weights: TF's checkpoint format with tf_keras's keys, or HDF5 for `.h5`
        paths (`saving/weights_api.py`)."""
        from ..saving import weights_api
        weights_api.save_weights(self, filepath, overwrite=overwrite, save_format=save_format,
                                 options=options)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, by_name: bool = False,
                     options: Any = None) -> Any:
        """Read weights written by `save_weights` here or in tf_keras; returns the checkpoint's
        load status for the TF format (`expect_partial()`, ...), None for HDF5."""
        from ..saving import weights_api
        return weights_api.load_weights(self, filepath, skip_mismatch=skip_mismatch,
                                        by_name=by_name, options=options)

    def save(self, filepath: Any, overwrite: bool = True, save_format: Optional[str] = None,
             **kwargs: Any) -> None:
        """`model.save("m.h5")`: config and weights in tf_keras's HDF5 layout; SavedModel
        directories and `.keras` archives raise NotImplementedError naming what is supported."""
        from ..saving import save as save_lib
        save_lib.save_model(self, filepath, overwrite=overwrite, save_format=save_format,
                            **kwargs)

    @property
    def _flat_outputs(self) -> list:
        return nest.flatten(self.outputs) if self.outputs is not None else []
