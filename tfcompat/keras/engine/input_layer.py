"""`tf.keras.Input` and `InputLayer`: the entry points of a functional model.

`Input(shape=(784,))` returns a KerasTensor of shape `(None, 784)` made by an `InputLayer`
(named `input_1`, `input_2`, ... as tf_keras), whose single node has no inbound layers.
"""

from __future__ import annotations

from typing import Any, Optional

from ...framework import dtypes
from ...framework.tensor_shape import TensorShape
from .. import backend
from ..saving.serialization import keras_export
from .base_layer import Layer
from .keras_tensor import KerasTensor, Node

__all__ = ["InputLayer", "Input"]


@keras_export("keras.layers.InputLayer")
class InputLayer(Layer):
    """The layer behind `Input`: holds the model input's shape and dtype."""

    def __init__(self, input_shape: Any = None, batch_size: Optional[int] = None,
                 dtype: Any = None, input_tensor: Any = None, sparse: Optional[bool] = None,
                 name: Optional[str] = None, ragged: Optional[bool] = None,
                 type_spec: Any = None, optional: bool = False, **kwargs: Any) -> None:
        if "batch_input_shape" in kwargs:
            batch_input_shape = kwargs.pop("batch_input_shape")
            if input_shape and batch_input_shape:
                raise ValueError("Only provide the input_shape OR batch_input_shape argument to "
                                 "InputLayer, not both at the same time.")
            if batch_input_shape:
                batch_size = batch_input_shape[0]
                input_shape = batch_input_shape[1:]
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {list(kwargs.keys())}")
        if sparse or ragged:
            raise NotImplementedError(
                "tfcompat has no sparse or ragged tensors: Input(sparse=True) / (ragged=True) "
                "are not supported; feed dense tensors.")
        if type_spec is not None:
            raise NotImplementedError("Input(type_spec=...) is not supported by tfcompat; pass "
                                      "`shape` and `dtype`.")
        if not name:
            name = "input_" + str(backend.get_uid("input"))
        if not dtype:
            dtype = backend.floatx() if input_tensor is None else dtypes.as_dtype(
                input_tensor.dtype).name
        super().__init__(dtype=dtype, name=name)
        self.built = True
        self.sparse = False
        self.ragged = False
        self.batch_size = batch_size
        self.supports_masking = True
        self.optional = optional
        if isinstance(input_shape, TensorShape):
            input_shape = tuple(input_shape.as_list())
        elif isinstance(input_shape, int):
            input_shape = (input_shape,)
        if input_tensor is None:
            batch_input_shape = (batch_size,) + tuple(input_shape) if input_shape is not None \
                else None
            input_tensor = KerasTensor(TensorShape(batch_input_shape), dtype, name=name)
            self.is_placeholder = True
        else:
            if not isinstance(input_tensor, KerasTensor):
                raise ValueError(
                    "You should not pass an EagerTensor to `Input`. For example, instead of "
                    "creating an `InputLayer`, you should instantiate your model and directly "
                    "call it on your input.")
            self.is_placeholder = False
            batch_input_shape = tuple(input_tensor.shape.as_list())
        self._batch_input_shape = batch_input_shape
        Node(layer=self, outputs=input_tensor)

    def get_config(self) -> dict:
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": self.sparse, "ragged": self.ragged, "name": self.name,
                "optional": self.optional}


@keras_export("keras.Input", "keras.layers.Input")
def Input(shape: Any = None, batch_size: Optional[int] = None, name: Optional[str] = None,  # noqa: N802
          dtype: Any = None, sparse: Optional[bool] = None, tensor: Any = None,
          ragged: Optional[bool] = None, type_spec: Any = None, **kwargs: Any) -> KerasTensor:
    """A symbolic input of `shape` (without the batch dimension), as tf_keras's `Input`."""
    if sparse and ragged:
        raise ValueError("Cannot set both `sparse` and `ragged` to `True` in a TF-Keras `Input`.")
    batch_shape = kwargs.pop("batch_shape", None)
    batch_input_shape = kwargs.pop("batch_input_shape", None)
    if shape is not None and batch_shape is not None:
        raise ValueError("Only provide the `shape` OR `batch_shape` argument to Input, not both "
                         "at the same time.")
    if batch_input_shape is None and shape is None and tensor is None and type_spec is None \
            and batch_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs.keys())}")
    layer_kwargs = dict(name=name, dtype=dtype, sparse=sparse, ragged=ragged,
                        input_tensor=tensor, type_spec=type_spec)
    if batch_shape is not None or batch_input_shape is not None:
        layer_kwargs["batch_input_shape"] = tuple(batch_shape or batch_input_shape)
    else:
        layer_kwargs["input_shape"] = shape
        layer_kwargs["batch_size"] = batch_size
    layer = InputLayer(**layer_kwargs)
    return layer._inbound_nodes[0].outputs
