"""`tf.keras.layers.Discretization`: bucket indices `upper_bound(bin_boundaries, x)` (TF's
`Bucketize`), given boundaries or quantiles estimated by `adapt` with tf_keras's summary
algorithm (sorted samples every `len / (1 / epsilon)` values, merged and compressed by
interpolating cumulative weights), then encoded as `output_mode`.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch

from ....framework import dtypes
from ....framework.tensor_conversion import convert_to_tensor
from ... import backend
from ...saving.serialization import keras_export
from .base_preprocessing_layer import PreprocessingLayer
from .category_encoding import (COUNT, INT, MULTI_HOT, ONE_HOT, encode_categorical_inputs,
                                encoded_shape, validate_string_arg)
from .normalization import listify_tensors

__all__ = ["Discretization"]


def summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    values = np.sort(values.reshape(-1).astype(np.float32))
    elements = np.float32(values.size)
    num_buckets = 1.0 / epsilon
    increment = int(np.float32(elements / np.float32(num_buckets)))
    step = max(increment, 1)
    boundaries = values[increment::step]
    weights = np.ones_like(boundaries) * np.float32(step)
    return np.stack([boundaries, weights]).astype(np.float32)


def compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_weight_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_weight_percents, summary[0])
    cum_weights = np.interp(percents, cum_weight_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype(np.float32)


def merge_summaries(prev: np.ndarray, nxt: np.ndarray, epsilon: float) -> np.ndarray:
    merged = np.concatenate((prev, nxt), axis=1)
    merged = merged[:, np.argsort(merged[0], kind="stable")]
    return compress(merged, epsilon)


@keras_export("keras.layers.Discretization",
              "keras.layers.experimental.preprocessing.Discretization")
class Discretization(PreprocessingLayer):
    """Bucketize values (tf_keras `Discretization`). The quantile summary is kept as a
    layer attribute, not a weight (tf_keras keeps a `summary` variable of shape (2, None))."""

    def __init__(self, bin_boundaries: Any = None, num_bins: Optional[int] = None,
                 epsilon: float = 0.01, output_mode: str = INT, sparse: bool = False,
                 **kwargs: Any) -> None:
        if "bins" in kwargs:
            bins = kwargs.pop("bins")
            if isinstance(bins, int) and num_bins is None:
                num_bins = bins
            elif bin_boundaries is None:
                bin_boundaries = bins
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == INT else backend.floatx()
        elif output_mode == INT and not dtypes.as_dtype(kwargs["dtype"]).is_integer:
            kwargs["dtype"] = "int64"
        super().__init__(**kwargs)
        if output_mode == INT and not dtypes.as_dtype(self.compute_dtype).is_integer:
            raise ValueError("When `output_mode='int'`, `dtype` should be an integer type. "
                             f"Received: dtype={kwargs['dtype']}")
        validate_string_arg(output_mode, (INT, ONE_HOT, MULTI_HOT, COUNT),
                            type(self).__name__, "output_mode")
        if sparse and output_mode == INT:
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                             f"`'multi_hot'`, or `'count'`. Received: sparse={sparse} and "
                             f"output_mode={output_mode}")
        if num_bins is not None and num_bins < 0:
            raise ValueError("`num_bins` must be greater than or equal to 0. You passed "
                             f"`num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. You "
                             f"passed `num_bins={num_bins}` and "
                             f"`bin_boundaries={bin_boundaries}`")
        bin_boundaries = listify_tensors(bin_boundaries)
        self.input_bin_boundaries = bin_boundaries
        self.bin_boundaries = bin_boundaries if bin_boundaries is not None else []
        self.num_bins = num_bins
        self.epsilon = epsilon
        self.output_mode = output_mode
        self.sparse = sparse
        self._summary = np.zeros((2, 0), dtype=np.float32)

    def update_state(self, data: Any) -> None:
        if self.input_bin_boundaries is not None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead. You passed "
                             f"`bin_boundaries={self.input_bin_boundaries}`.")
        if not self.built:
            raise RuntimeError("`build` must be called before `update_state`.")
        data = convert_to_tensor(data).detach().cpu().to(torch.float32).numpy()
        self._summary = merge_summaries(summarize(data, self.epsilon), self._summary,
                                        self.epsilon)

    def finalize_state(self) -> None:
        if self.input_bin_boundaries is not None or not self.built:
            return
        self.bin_boundaries = compress(self._summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def reset_state(self) -> None:
        if self.input_bin_boundaries is not None or not self.built:
            return
        self._summary = np.zeros((2, 0), dtype=np.float32)

    def call(self, inputs: Any) -> torch.Tensor:
        inputs = convert_to_tensor(inputs)
        boundaries = torch.tensor(np.asarray(self.bin_boundaries, dtype=np.float32),
                                  device=inputs.device)
        values = inputs if inputs.dtype == torch.float64 else inputs.to(torch.float32)
        indices = torch.bucketize(values, boundaries.to(values.dtype), right=True)
        return encode_categorical_inputs(indices.to(torch.int32), self.output_mode,
                                         len(self.bin_boundaries) + 1,
                                         dtype=self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        if self.output_mode == INT:
            return input_shape
        return encoded_shape(input_shape, self.output_mode, len(self.bin_boundaries) + 1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update({"bin_boundaries": self.input_bin_boundaries, "num_bins": self.num_bins,
                       "epsilon": self.epsilon, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
