"""`tf.keras.layers.Embedding`: rows of an `[input_dim, output_dim]` table gathered by id.

As tf_keras 2.21: ids of a dtype other than int32/int64 are cast to int32 first; the table is
created with `experimental_autocast=False` and the layer does not autocast its inputs, so
under a mixed policy the gathered rows are cast to the compute dtype afterwards;
`mask_zero=True` makes `compute_mask` return `ids != 0`; the layer records
`input_shape=(input_length,)` (or `(None,)`) so its config carries `batch_input_shape`.
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ....framework.tensor_shape import TensorShape
from ....ops import embedding_ops, math_ops
from ... import constraints, initializers, regularizers
from ...engine.base_layer import Layer
from ...saving.serialization import deserialize_keras_object, keras_export

__all__ = ["Embedding"]

_INT_IDS = (torch.int32, torch.int64)


@keras_export("keras.layers.Embedding")
class Embedding(Layer):
    """Turns positive integer ids into dense vectors of size `output_dim` (tf_keras 2.x)."""

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: Any = "uniform", embeddings_regularizer: Any = None,
                 activity_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, input_length: Any = None, sparse: bool = False,
                 **kwargs: Any) -> None:
        if "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if input_length else (None,)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError("Both `input_dim` and `output_dim` should be positive, Received "
                             f"input_dim = {input_dim} and output_dim = {output_dim}")
        if sparse:
            if mask_zero:
                raise ValueError("`mask_zero` cannot be enabled when `tf.keras.layers.Embedding`"
                                 " is used with `tf.SparseTensor` input.")
            raise NotImplementedError("Embedding(sparse=True): tfcompat has no SparseTensor "
                                      "outputs; use sparse=False.")
        kwargs["autocast"] = False
        kwargs.pop("use_one_hot_matmul", None)
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = mask_zero
        self.supports_masking = mask_zero
        self.input_length = input_length
        self.sparse = sparse

    def build(self, input_shape: Any = None) -> None:
        self.embeddings = self.add_weight(
            shape=(self.input_dim, self.output_dim), initializer=self.embeddings_initializer,
            name="embeddings", regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint, experimental_autocast=False)
        super().build(input_shape)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def call(self, inputs: Any) -> Any:
        if inputs.dtype not in _INT_IDS:
            inputs = math_ops.cast(inputs, "int32")
        out = embedding_ops.embedding_lookup(self.embeddings, inputs)
        policy = self._dtype_policy
        if policy.compute_dtype != policy.variable_dtype:
            out = math_ops.cast(out, policy.compute_dtype)
        return out

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        shape = TensorShape(input_shape).as_list()
        if self.input_length is None:
            return TensorShape(shape + [self.output_dim])
        lengths = (list(self.input_length) if isinstance(self.input_length, (list, tuple))
                   else [self.input_length])
        message = (f'"input_length" is {self.input_length}, but received input has shape '
                   f"{tuple(shape)}")
        if len(lengths) != len(shape) - 1:
            raise ValueError(message)
        for i, (want, got) in enumerate(zip(lengths, shape[1:])):
            if want is not None and got is not None and want != got:
                raise ValueError(message)
            if want is None:
                lengths[i] = got
        return TensorShape([shape[0]] + lengths + [self.output_dim])

    def get_config(self) -> dict:
        config = {
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
            "input_length": self.input_length,
        }
        base = super().get_config()
        return dict(list(base.items()) + list(config.items()))

    @classmethod
    def from_config(cls, config: dict) -> "Embedding":
        config = dict(config)
        for key in ("input_dim", "output_dim"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize_keras_object(config[key])
        return cls(**config)
