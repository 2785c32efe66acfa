"""Grouping by key: `group_by_window` and `bucket_by_sequence_length`.

As TF's `GroupByWindowDataset`: each element goes to the window of its key
(`key_func`, an int64 scalar); a window that reaches its size is handed to
`reduce_func(key, window_dataset)` at once, and the dataset that returns is
emitted whole; when the input ends, the windows left are reduced in
ascending key order (TF keeps them in a sorted map).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework import errors
from ..framework.tensor_shape import TensorShape
from . import structure
from .dataset_ops import UNKNOWN, Dataset, as_int, first_element
from .sources import ListDataset, _flatten_shapes

__all__ = ["GroupByWindowDataset", "bucket_by_sequence_length"]


def _scalar_key(value: Any, what: str) -> int:
    value = structure.normalize_output(value)
    if not (isinstance(value, torch.Tensor) and value.dim() == 0 and value.dtype == torch.int64):
        raise ValueError(f"`{what}` must return a single tf.int64 tensor. Instead, it returns "
                         f"{structure.spec_of(value)!r}.")
    return int(value)


class GroupByWindowDataset(Dataset):
    """`group_by_window(key_func, reduce_func, window_size=None, window_size_func=None)`."""

    def __init__(self, input_dataset: Dataset, key_func: Callable[..., Any],
                 reduce_func: Callable[[Any, Dataset], Dataset], window_size: Any = None,
                 window_size_func: Optional[Callable[[Any], Any]] = None) -> None:
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        super().__init__((input_dataset,))
        self._key_func, self._reduce_func = key_func, reduce_func
        size = None if window_size is None else as_int(window_size, "window_size")
        self._size_of: Callable[[torch.Tensor], int] = (
            (lambda key: size) if size is not None else
            (lambda key: _scalar_key(window_size_func(key), "window_size_func")))

    def _reduce(self, key: int, members: List[Any], spec: Any) -> Iterator[Any]:
        key_tensor = torch.tensor(key, dtype=torch.int64)
        out = self._reduce_func(key_tensor, ListDataset(members, spec))
        if not isinstance(out, Dataset):
            raise TypeError("`reduce_func` must return a `Dataset` object, got "
                            f"{type(out).__name__}.")
        return out._iterate()

    def _iterate(self) -> Iterator[Any]:
        windows: Dict[int, List[Any]] = {}
        spec = self._inputs[0]._spec_or(False)
        for element in self._inputs[0]._iterate():
            if spec is None:
                spec = structure.spec_of(element)
            key = _scalar_key(structure.call_with_element(self._key_func, element), "key_func")
            window = windows.setdefault(key, [])
            window.append(element)
            if len(window) >= self._size_of(torch.tensor(key, dtype=torch.int64)):
                del windows[key]
                yield from self._reduce(key, window, spec)
        for key in sorted(windows):
            yield from self._reduce(key, windows[key], spec)

    def _derive_spec(self, sample: bool) -> Any:
        if not sample:
            return None
        input_spec = self._inputs[0].element_spec
        element = first_element(self._inputs[0])
        key = 0
        if element is not None:
            key = _scalar_key(structure.call_with_element(self._key_func, element), "key_func")
        members = [element] if element is not None else []

        def spec_for(k: int) -> Any:
            return self._reduce_func(torch.tensor(k, dtype=torch.int64),
                                     ListDataset(members, input_spec)).element_spec

        # TF traces reduce_func over a symbolic key, so what depends on the key is unknown:
        # compare the first element's key with its neighbours (where reduce_func takes them).
        spec = spec_for(key)
        for other in (key + 1, key - 1):
            try:
                spec = structure.most_specific_compatible(spec, spec_for(other))
            except Exception:  # noqa: BLE001 (a key reduce_func refuses tells nothing)
                continue
        return spec

    def _cardinality(self) -> int:
        return UNKNOWN


def bucket_by_sequence_length(dataset: Dataset, element_length_func: Callable[..., Any],
                              bucket_boundaries: List[int], bucket_batch_sizes: List[int],
                              padded_shapes: Any = None, padding_values: Any = None,
                              pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                              drop_remainder: bool = False) -> Dataset:
    """TF's `bucket_by_sequence_length`: elements of length in `[b[i-1], b[i])` go to bucket
    `i`, batched (`padded_batch`, unless `no_padding`) by `bucket_batch_sizes[i]`.

    With `pad_to_bucket_boundary` unknown dims pad to the bucket's boundary
    minus one (TF's rule; the last bucket has none: a `ValueError` when its
    elements arrive, as TF's `InvalidArgumentError` at run time).
    """
    boundaries = [int(b) for b in bucket_boundaries]
    sizes = [int(b) for b in bucket_batch_sizes]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1 but "
                         f"len(bucket_batch_sizes)={len(sizes)} and "
                         f"len(bucket_boundaries)={len(boundaries)}")
    if boundaries != sorted(boundaries):
        raise ValueError("bucket_boundaries must be sorted in increasing order")

    def bucket_of(*args: Any) -> torch.Tensor:
        length = structure.normalize_output(element_length_func(*args))
        if length.dtype != torch.int32:  # TF compares it with the boundaries as int32
            raise TypeError(f"Input 'y' of 'LessEqual' Op has type "
                            f"{dtypes.as_dtype(length.dtype).name} that does not match type "
                            "int32 of argument 'x'.")
        length = int(length)
        return torch.tensor(int(np.searchsorted(boundaries, length, side="right")),
                            dtype=torch.int64)

    def batch_bucket(key: torch.Tensor, window: Dataset) -> Dataset:
        bucket = int(key)
        if no_padding:
            return window.batch(sizes[bucket], drop_remainder=drop_remainder)
        shapes = padded_shapes
        if pad_to_bucket_boundary:
            if bucket == len(boundaries):
                raise errors.InvalidArgumentError(
                    None, None, "When pad_to_bucket_boundary=True, elements must have length < "
                    "max(bucket_boundaries).")
            filler = boundaries[bucket] - 1
            spec = window.element_spec
            base = ([s.shape for s in structure.flatten(spec)] if shapes is None
                    else _flatten_shapes(shapes, spec))
            shapes = structure.pack(spec, [[filler if d is None or d == -1 else d
                                            for d in TensorShape(s).as_list()] for s in base])
        return window.padded_batch(sizes[bucket], shapes, padding_values,
                                   drop_remainder=drop_remainder)

    return GroupByWindowDataset(dataset, bucket_of, batch_bucket,
                                window_size_func=lambda key: np.int64(sizes[int(key)]))


_GroupByWindowDataset = GroupByWindowDataset
