"""`tf.data.experimental`: the older spellings of `tf.data` names, and the option types.

Each function is the method of the same meaning (`cardinality(ds)` is
`ds.cardinality()`); transformations (`unbatch()`, `enumerate_dataset()`)
return a function for `Dataset.apply`, as TF's do.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

from .dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset
from .options import (AutoShardPolicy, AutotuneAlgorithm, AutotuneOptions, DistributeOptions,
                      ExternalStatePolicy, OptimizationOptions, ThreadingOptions)
from .structure import DatasetSpec

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy",
           "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions", "ExternalStatePolicy",
           "OptimizationOptions", "ThreadingOptions", "DatasetSpec", "cardinality", "unbatch",
           "enumerate_dataset", "get_single_element", "assert_cardinality"]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


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
