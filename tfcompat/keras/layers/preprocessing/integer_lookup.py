"""`tf.keras.layers.IntegerLookup`: map integer tokens to contiguous indices (or back, with
`invert=True`), from a given vocabulary or one learned by `adapt` (tokens by descending
count, ties by descending token, as tf_keras). Index layout: `[mask (int mode, when
mask_token is set)] + [OOV] * num_oov_indices + vocabulary`; with several OOV indices an
unknown token `t` goes to `oov_start + t mod num_oov_indices`.
"""

from __future__ import annotations

import collections
from typing import Any, Optional

import numpy as np
import torch

from ....framework import dtypes, errors
from ....framework.tensor_conversion import convert_to_tensor
from ... import backend
from ...saving.serialization import keras_export
from .base_preprocessing_layer import PreprocessingLayer
from .category_encoding import (COUNT, INT, MULTI_HOT, ONE_HOT, TF_IDF,
                                encode_categorical_inputs, validate_string_arg)
from .normalization import listify_tensors

__all__ = ["IntegerLookup"]


@keras_export("keras.layers.IntegerLookup",
              "keras.layers.experimental.preprocessing.IntegerLookup")
class IntegerLookup(PreprocessingLayer):
    """Integer vocabulary lookup (tf_keras `IntegerLookup`); no `tf_idf`, no sparse output,
    no vocabulary files."""

    def __init__(self, max_tokens: Optional[int] = None, num_oov_indices: int = 1,
                 mask_token: Any = None, oov_token: Any = -1, vocabulary: Any = None,
                 vocabulary_dtype: str = "int64", idf_weights: Any = None,
                 invert: bool = False, output_mode: str = INT, sparse: bool = False,
                 pad_to_max_tokens: bool = False, **kwargs: Any) -> None:
        if not dtypes.as_dtype(vocabulary_dtype).is_integer:
            raise ValueError("`vocabulary_dtype` must be an integer dtype. "
                             f"Received: {vocabulary_dtype}")
        if output_mode != INT and kwargs.get("dtype") in ("int64",):
            del kwargs["dtype"]
        for old, new in (("max_values", "max_tokens"), ("mask_value", "mask_token"),
                         ("oov_value", "oov_token")):
            if old in kwargs:
                value = kwargs.pop(old)
                if new == "max_tokens":
                    max_tokens = value
                elif new == "mask_token":
                    mask_token = value
                else:
                    oov_token = value
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If `max_tokens` is set for `IntegerLookup`, it must be greater "
                             f"than 1. Received: max_tokens={max_tokens}.")
        if num_oov_indices < 0:
            raise ValueError("The value of `num_oov_indices` argument for `IntegerLookup` "
                             f"must >= 0. Received num_oov_indices={num_oov_indices}.")
        mask_token = None if mask_token is None else np.int64(mask_token)
        oov_token = None if oov_token is None else np.int64(oov_token)
        if output_mode == "binary":
            output_mode = MULTI_HOT
        if output_mode == "tf-idf":
            output_mode = TF_IDF
        validate_string_arg(output_mode, (INT, ONE_HOT, MULTI_HOT, COUNT, TF_IDF),
                            type(self).__name__, "output_mode")
        if invert and output_mode != INT:
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. "
                             f"Received: output_mode={output_mode}")
        if sparse and output_mode == INT:
            raise ValueError("`sparse` may only be true if `output_mode` is `'one_hot'`, "
                             "`'multi_hot'`, `'count'` or `'tf_idf'`. Received: "
                             f"sparse={sparse} and output_mode={output_mode}")
        if idf_weights is not None and output_mode != TF_IDF:
            raise ValueError("`idf_weights` should only be set if `output_mode` is "
                             f"`'tf_idf'`. Received: idf_weights={idf_weights} and "
                             f"output_mode={output_mode}")
        if output_mode == TF_IDF or sparse:
            raise NotImplementedError("tfcompat's IntegerLookup has no tf_idf or sparse output")
        self.invert = invert
        self.max_tokens = max_tokens
        self.num_oov_indices = num_oov_indices
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.output_mode = output_mode
        self.sparse = sparse
        self.pad_to_max_tokens = pad_to_max_tokens
        self.vocabulary_dtype = vocabulary_dtype
        self._frozen_vocab_size = kwargs.pop("vocabulary_size", None)
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._has_input_vocabulary = kwargs.pop("has_input_vocabulary", vocabulary is not None)
        kwargs.pop("has_static_table", None)
        if "dtype" not in kwargs:
            kwargs["dtype"] = "int64" if output_mode == INT else backend.floatx()
        super().__init__(**kwargs)
        if output_mode == INT and not dtypes.as_dtype(self.compute_dtype).is_integer:
            raise ValueError("When `output_mode='int'`, `dtype` should be an integer type. "
                             f"Received: dtype={kwargs['dtype']}")
        self._tokens = np.zeros((0,), dtype=np.int64)  # the vocabulary, without specials
        self._token_counts: collections.Counter = collections.Counter()
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    # -- vocabulary ------------------------------------------------------------------
    def _oov_start_index(self) -> int:
        return 1 if self.mask_token is not None and self.output_mode == INT else 0

    def _token_start_index(self) -> int:
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self) -> int:
        return int(self._tokens.size) + self._token_start_index()

    def get_vocabulary(self, include_special_tokens: bool = True) -> list:
        start = self._token_start_index()
        vocab = [self.oov_token] * start + [np.int64(t) for t in self._tokens]
        if self.mask_token is not None and self.output_mode == INT:
            vocab[0] = self.mask_token
        return vocab if include_special_tokens else vocab[start:]

    def _record_vocabulary_size(self) -> None:
        if not (self.output_mode == INT or self.pad_to_max_tokens):
            new = self.vocabulary_size()
            if self._frozen_vocab_size is not None and new != self._frozen_vocab_size:
                raise RuntimeError(
                    f"When using `output_mode={self.output_mode}` and "
                    "`pad_to_max_tokens=False`, the vocabulary size cannot be changed after "
                    f"the layer is called. Old vocab size is {self._frozen_vocab_size}, new "
                    f"vocab size is {new}")
        self._frozen_vocab_size = self.vocabulary_size()

    def set_vocabulary(self, vocabulary: Any, idf_weights: Any = None) -> None:
        """Set the vocabulary (a list, tuple, array or 1-D tensor of tokens; the special
        tokens may lead it in their order)."""
        if idf_weights is not None:
            raise ValueError("`idf_weights` should only be set if output_mode is `'tf_idf'`. "
                             f"Received: output_mode={self.output_mode} and "
                             f"idf_weights={idf_weights}")
        if isinstance(vocabulary, str):
            raise NotImplementedError("tfcompat's IntegerLookup takes no vocabulary file")
        if isinstance(vocabulary, torch.Tensor):
            vocabulary = vocabulary.detach().cpu().numpy()
        vocabulary = np.asarray(vocabulary)
        if vocabulary.size == 0:
            raise ValueError(f"Cannot set an empty vocabulary, you passed {vocabulary}.")
        oov_start, token_start = self._oov_start_index(), self._token_start_index()
        special = [self.mask_token] * oov_start + [self.oov_token] * self.num_oov_indices
        if np.array_equal(special, vocabulary[:token_start]):
            tokens = vocabulary[token_start:]
        else:
            tokens = vocabulary
        repeated = [t for t, c in collections.Counter(list(tokens)).items() if c > 1]
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are {repeated}")
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(
                "Found reserved mask token at unexpected location in `vocabulary`. Note that "
                "passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"mask_token={self.mask_token} at vocabulary index "
                f"{np.argwhere(vocabulary == self.mask_token)[-1]}")
        if self.oov_token is not None and self.invert and self.oov_token in tokens:
            raise ValueError(
                "Found reserved OOV token at unexpected location in `vocabulary`. Note that "
                "passed `vocabulary` does not need to include the OOV and mask tokens. Either "
                "remove all mask and OOV tokens, or include them only at the start of the "
                f"vocabulary in precisely this order: {special}. Received: "
                f"oov_token={self.oov_token} at vocabulary index "
                f"{np.argwhere(vocabulary == self.oov_token)[-1]}")
        size = token_start + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. "
                             f"Passed vocab size is {size}, max vocab size is "
                             f"{self.max_tokens}.")
        self._tokens = tokens.astype(np.int64)
        self._record_vocabulary_size()

    # -- adapt -------------------------------------------------------------------------
    def update_state(self, data: Any) -> None:
        if self._has_input_vocabulary:
            raise ValueError(f"Cannot adapt {type(self).__name__} layer after setting a static "
                             "vocabulary via init argument or `set_vocabulary`.")
        values = convert_to_tensor(data).detach().cpu().numpy().astype(np.int64).reshape(-1)
        self._token_counts.update(values.tolist())

    def finalize_state(self) -> None:
        if self._has_input_vocabulary or not self._token_counts:
            self._record_vocabulary_size()
            return
        counts = dict(self._token_counts)
        for special in (self.mask_token, self.oov_token):
            if special is not None:
                counts.pop(int(special), None)
        tokens = np.array(list(counts.keys()), dtype=np.int64)
        freq = np.array(list(counts.values()), dtype=np.int64)
        order = np.lexsort((tokens, freq))[::-1]
        if self.max_tokens:
            order = order[:self.max_tokens - self._token_start_index()]
        self._tokens = tokens[order]
        self.reset_state()
        self._record_vocabulary_size()

    def reset_state(self) -> None:
        if self._has_input_vocabulary:
            return
        self._token_counts = collections.Counter()

    def build(self, input_shape: Any) -> None:
        pass

    # -- call --------------------------------------------------------------------------
    def _lookup(self, inputs: torch.Tensor) -> torch.Tensor:
        start = self._token_start_index()
        tokens = torch.as_tensor(self._tokens, device=inputs.device)
        if self.invert:
            out_dt = dtypes.to_torch(self.vocabulary_dtype)
            idx = inputs.to(torch.int64) - start
            found = (idx >= 0) & (idx < tokens.numel())
            values = tokens[torch.clamp(idx, 0, max(tokens.numel() - 1, 0))] if tokens.numel() \
                else torch.zeros_like(idx)
            oov = torch.tensor(int(self.oov_token) if self.oov_token is not None else -1,
                               dtype=torch.int64, device=inputs.device)
            out = torch.where(found, values, oov)
            if self.mask_token is not None:
                out = torch.where(inputs == 0, torch.tensor(int(self.mask_token),
                                                            device=inputs.device), out)
            return out.to(out_dt)
        keys = inputs.to(torch.int64)
        order = torch.argsort(tokens)
        sorted_tokens = tokens[order]
        pos = torch.searchsorted(sorted_tokens, keys.reshape(-1)).reshape(keys.shape)
        pos_c = torch.clamp(pos, 0, max(sorted_tokens.numel() - 1, 0))
        found = (pos < sorted_tokens.numel()) & (sorted_tokens[pos_c] == keys) \
            if sorted_tokens.numel() else torch.zeros_like(keys, dtype=torch.bool)
        index = order[pos_c] + start if sorted_tokens.numel() else torch.zeros_like(keys)
        oov_start = self._oov_start_index()
        if self.num_oov_indices == 0:
            default = torch.full_like(keys, -1)
        elif self.num_oov_indices == 1:
            default = torch.full_like(keys, oov_start)
        else:
            default = torch.remainder(keys, self.num_oov_indices) + oov_start
        out = torch.where(found, index, default)
        if self.mask_token is not None:
            mask_value = 0 if self.output_mode == INT else torch.iinfo(torch.int64).max
            out = torch.where(keys == int(self.mask_token), torch.full_like(out, mask_value),
                              out)
        if self.num_oov_indices == 0 and bool((out == -1).any()):
            raise errors.InvalidArgumentError(
                None, None, "When `num_oov_indices=0` all inputs should be in vocabulary, "
                f"found OOV values {keys[out == -1].tolist()}, consider setting "
                "`num_oov_indices=1`.")
        return out

    def call(self, inputs: Any) -> torch.Tensor:
        if self.output_mode != INT and not self.pad_to_max_tokens and \
                self._frozen_vocab_size is None:
            raise RuntimeError(
                f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, "
                "you must set the layer's vocabulary before calling it. Either pass a "
                "`vocabulary` argument to the layer, or call `adapt` with some sample data.")
        inputs = convert_to_tensor(inputs)
        lookups = self._lookup(inputs)
        if self.output_mode == INT:
            return lookups if self.invert else lookups.to(dtypes.to_torch(self.compute_dtype))
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        return encode_categorical_inputs(lookups, self.output_mode, depth,
                                         dtype=self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        from ....framework.tensor_shape import TensorShape
        if self.output_mode == INT:
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self._frozen_vocab_size
        return TensorShape([TensorShape(input_shape)[0], depth])

    def get_config(self) -> dict:
        config = {"invert": self.invert, "max_tokens": self.max_tokens,
                  "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                  "mask_token": self.mask_token, "output_mode": self.output_mode,
                  "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                  "vocabulary_dtype": self.vocabulary_dtype,
                  "idf_weights": listify_tensors(self.input_idf_weights),
                  "vocabulary": listify_tensors(self.input_vocabulary),
                  "vocabulary_size": self._frozen_vocab_size}
        return {**super().get_config(), **config}
