"""`tf.data.experimental`: the older spellings of `tf.data` names, and the option types.

Each function is the method of the same meaning (`cardinality(ds)` is
`ds.cardinality()`); transformations (`unbatch()`, `enumerate_dataset()`)
return a function for `Dataset.apply`, as TF's do.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from .dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, OptionalValue
from .options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions, DistributeOptions,
                      ExternalStatePolicy, OptimizationOptions, ThreadingOptions)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "SHARD_HINT",
           "AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "ThreadingOptions", "Counter", "Optional",
           "cardinality", "unbatch", "enumerate_dataset", "get_single_element",
           "assert_cardinality", "get_next_as_optional", "get_structure", "enable_debug_mode",
           "from_list", "map_and_batch", "shuffle_and_repeat", "parallel_interleave",
           "copy_to_device", "prefetch_to_device", "take_while", "choose_from_datasets",
           "sample_from_datasets", "scan", "unique", "group_by_window",
           "bucket_by_sequence_length"]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
SHARD_HINT = -1
Optional = OptionalValue


def Counter(start: int = 0, step: int = 1, dtype: Any = None) -> Dataset:  # noqa: N802 (TF's name)
    """`start, start + step, ...` forever (int64 unless `dtype`)."""
    from .sources import CounterDataset
    return CounterDataset(start, step, dtype)


def get_next_as_optional(iterator: Any) -> OptionalValue:
    """`iterator.get_next_as_optional()`."""
    return iterator.get_next_as_optional()


def get_structure(dataset_or_iterator: Any) -> Any:
    """The `element_spec` of a dataset or iterator."""
    return dataset_or_iterator.element_spec


def enable_debug_mode() -> None:
    """A no-op: tfcompat's functions already run eagerly, element by element, as TF's debug
    mode makes them."""


def from_list(elements: list, name: Any = None) -> Dataset:
    """A dataset of the given elements (each a nest of one structure and dtypes)."""
    from . import structure
    from .sources import ListDataset
    if not elements:
        raise ValueError("Invalid `elements`. `elements` should not be empty.")
    normalized = [structure.normalize(e) for e in elements]
    spec = structure.spec_of(normalized[0])
    for e in normalized[1:]:
        spec = structure.most_specific_compatible(spec, structure.spec_of(e))
    return ListDataset(normalized, spec)


def map_and_batch(map_func: Callable[..., Any], batch_size: Any, num_parallel_batches: Any = None,
                  drop_remainder: bool = False, num_parallel_calls: Any = None
                  ) -> Callable[[Dataset], Dataset]:
    """For `apply`: `map(map_func).batch(batch_size, drop_remainder)`."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def shuffle_and_repeat(buffer_size: Any, count: Any = None, seed: Any = None
                       ) -> Callable[[Dataset], Dataset]:
    """For `apply`: `shuffle(buffer_size, seed).repeat(count)` (reshuffled each pass)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def parallel_interleave(map_func: Callable[..., Dataset], cycle_length: Any, block_length: Any = 1,
                        sloppy: bool = False, buffer_output_elements: Any = None,
                        prefetch_input_elements: Any = None) -> Callable[[Dataset], Dataset]:
    """For `apply`: `interleave(map_func, cycle_length, block_length)` (TF's deterministic
    order whatever `sloppy` says)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def copy_to_device(target_device: str, source_device: str = "/cpu:0"
                   ) -> Callable[[Dataset], Dataset]:
    """For `apply`: each component moved to `target_device` (a TF or torch device name)."""
    from .transformations import CopyToDeviceDataset
    return lambda dataset: CopyToDeviceDataset(dataset, target_device)


def prefetch_to_device(device: str, buffer_size: Any = None) -> Callable[[Dataset], Dataset]:
    """For `apply`: `copy_to_device(device)` (nothing runs ahead)."""
    return copy_to_device(device)


def take_while(predicate: Callable[..., Any]) -> Callable[[Dataset], Dataset]:
    """For `apply`: `dataset.take_while(predicate)`."""
    return lambda dataset: dataset.take_while(predicate)


def cardinality(dataset: Dataset) -> torch.Tensor:
    """`dataset.cardinality()`."""
    return dataset.cardinality()


def unbatch() -> Callable[[Dataset], Dataset]:
    """`dataset.apply(unbatch())` is `dataset.unbatch()`."""
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start: int = 0) -> Callable[[Dataset], Dataset]:
    """`dataset.apply(enumerate_dataset(start))` is `dataset.enumerate(start)`."""
    return lambda dataset: dataset.enumerate(start)


def get_single_element(dataset: Dataset) -> Any:
    """`dataset.get_single_element()`."""
    return dataset.get_single_element()


def assert_cardinality(expected_cardinality: Any) -> Callable[[Dataset], Dataset]:
    """For `Dataset.apply`: the dataset, whose cardinality is now `expected_cardinality`;
    iteration raises TF's `FailedPreconditionError` if the count turns out different."""
    from .transformations import AssertCardinalityDataset
    return lambda dataset: AssertCardinalityDataset(dataset, expected_cardinality)


def choose_from_datasets(datasets: Any, choice_dataset: Dataset,
                         stop_on_empty_dataset: bool = True) -> Dataset:
    """`Dataset.choose_from_datasets`."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def sample_from_datasets(datasets: Any, weights: Any = None, seed: Any = None,
                         stop_on_empty_dataset: bool = False) -> Dataset:
    """`Dataset.sample_from_datasets`."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def scan(initial_state: Any, scan_func: Callable[[Any, Any], Any]) -> Callable[[Dataset], Dataset]:
    """For `apply`: `dataset.scan(initial_state, scan_func)`."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


def unique() -> Callable[[Dataset], Dataset]:
    """For `apply`: `dataset.unique()`."""
    return lambda dataset: dataset.unique()


def group_by_window(key_func: Callable[..., Any], reduce_func: Callable[[Any, Dataset], Dataset],
                    window_size: Any = None, window_size_func: Any = None
                    ) -> Callable[[Dataset], Dataset]:
    """For `apply`: `dataset.group_by_window(...)`."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size,
                                                   window_size_func)


def bucket_by_sequence_length(element_length_func: Callable[..., Any], bucket_boundaries: Any,
                              bucket_batch_sizes: Any, padded_shapes: Any = None,
                              padding_values: Any = None, pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False, drop_remainder: bool = False
                              ) -> Callable[[Dataset], Dataset]:
    """For `apply`: `dataset.bucket_by_sequence_length(...)`."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)
