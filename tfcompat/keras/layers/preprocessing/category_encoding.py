"""`tf.keras.layers.CategoryEncoding` and the encoding shared by the lookup layers:
one-hot / multi-hot / count vectors of `depth` from integer indices (tf_keras's
`encode_categorical_inputs`: a dense `bincount` along the last axis, rank <= 2).
"""

from __future__ import annotations

from typing import Any, Optional

import torch

from ....framework import dtypes, errors
from ....framework.tensor_conversion import convert_to_tensor
from ....framework.tensor_shape import TensorShape
from ....ops import math_ops
from ... import backend
from ...engine.base_layer import Layer
from ...saving.serialization import keras_export

__all__ = ["CategoryEncoding"]

INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF = "int", "one_hot", "multi_hot", "count", "tf_idf"


def validate_string_arg(value: Any, allowable_strings: tuple, layer_name: str,
                        arg_name: str) -> None:
    """tf_keras's `layer_utils.validate_string_arg` (its message, typo included)."""
    if value in allowable_strings:
        return
    raise ValueError(f"Unkown value for `{arg_name}` argument of layer {layer_name}. Allowed "
                     f"values are: or one of the following values: {allowable_strings}. "
                     f"Received: {value}")


def encode_categorical_inputs(inputs: torch.Tensor, output_mode: str, depth: int,
                              dtype: Any = "float32", count_weights: Optional[Any] = None,
                              idf_weights: Optional[Any] = None) -> torch.Tensor:
    if output_mode == INT:
        return math_ops.cast(inputs, dtype)
    original_shape = tuple(inputs.shape)
    if inputs.dim() == 0:
        inputs = inputs.unsqueeze(-1)
    if output_mode == ONE_HOT and inputs.shape[-1] != 1:
        inputs = inputs.unsqueeze(-1)
    if inputs.dim() > 2:
        raise ValueError("When output_mode is not `'int'`, maximum supported output rank is "
                         f"2. Received output_mode {output_mode} and input shape "
                         f"{TensorShape(list(original_shape))}, which would result in output "
                         f"rank {inputs.dim()}.")
    binary = output_mode in (MULTI_HOT, ONE_HOT)
    target = dtypes.to_torch(dtype)
    flat = inputs if inputs.dim() == 2 else inputs.unsqueeze(0)
    index = flat.to(torch.int64)
    valid = (index >= 0) & (index < depth)
    safe = torch.where(valid, index, torch.zeros_like(index))
    if count_weights is not None and not binary:
        weights = convert_to_tensor(count_weights).to(target).reshape(flat.shape)
    else:
        weights = torch.ones(flat.shape, dtype=target, device=flat.device)
    weights = torch.where(valid, weights, torch.zeros_like(weights))
    out = torch.zeros(flat.shape[0], depth, dtype=target, device=flat.device)
    out = out.scatter_add(1, safe, weights)
    if binary:
        out = (out != 0).to(target)
    if idf_weights is not None:
        out = out * convert_to_tensor(idf_weights).to(target)
    return out if inputs.dim() == 2 else out.squeeze(0)


def encoded_shape(shape: Any, output_mode: str, depth: Optional[int]) -> TensorShape:
    shape = list(TensorShape(shape).as_list())
    if output_mode == INT:
        return TensorShape(shape)
    if not shape:
        return TensorShape([depth])
    if output_mode == ONE_HOT and shape[-1] != 1:
        return TensorShape(shape + [depth])
    return TensorShape(shape[:-1] + [depth])


def check_range(inputs: torch.Tensor, depth: int) -> None:
    if inputs.numel() and (int(inputs.max()) >= depth or int(inputs.min()) < 0):
        raise errors.InvalidArgumentError(
            None, None, "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
            "Summarized data: b'Input values must be in the range 0 <= values < num_tokens "
            f"with num_tokens={depth}'")


@keras_export("keras.layers.CategoryEncoding",
              "keras.layers.experimental.preprocessing.CategoryEncoding")
class CategoryEncoding(Layer):
    """Encode integer features (tf_keras `CategoryEncoding`): `"one_hot"`, `"multi_hot"`
    (default) or `"count"` (optionally weighted by `count_weights`) vectors of `num_tokens`.
    `sparse=True` is not supported (dense output only)."""

    def __init__(self, num_tokens: Optional[int] = None, output_mode: str = MULTI_HOT,
                 sparse: bool = False, **kwargs: Any) -> None:
        if "max_tokens" in kwargs:
            num_tokens = kwargs.pop("max_tokens")
        if "dtype" not in kwargs:
            kwargs["dtype"] = backend.floatx()
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = MULTI_HOT
        validate_string_arg(output_mode, (COUNT, ONE_HOT, MULTI_HOT), "CategoryEncoding",
                            "output_mode")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens "
                             "is not known beforehand, use the IntegerLookup layer instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise NotImplementedError("tfcompat's CategoryEncoding has no sparse output")
        self.num_tokens = num_tokens
        self.output_mode = output_mode
        self.sparse = sparse

    def call(self, inputs: Any, count_weights: Any = None) -> torch.Tensor:
        inputs = convert_to_tensor(inputs)
        if count_weights is not None and self.output_mode != COUNT:
            raise ValueError("`count_weights` is not used when `output_mode` is not `'count'`. "
                             "Received `count_weights={count_weights}`.")
        check_range(inputs, self.num_tokens)
        return encode_categorical_inputs(inputs, self.output_mode, self.num_tokens,
                                         dtype=self.compute_dtype, count_weights=count_weights)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return encoded_shape(input_shape, self.output_mode, self.num_tokens)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}
