"""What `input_lib` asks of a `tf.data.Dataset` source: its shard policy and element specs.

`distribute` sits below `data` in the package layers, so a dataset is
recognised by its `_is_tfcompat_dataset` marker and read through its public
API (`options()`, `element_spec`), never imported.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..framework import nest

__all__ = ["PerReplicaSpec", "is_tf_dataset", "shard_policy", "per_replica_spec", "dataset_spec",
           "static_spec", "cardinality_of", "static_batch_size"]


def is_tf_dataset(source: Any) -> bool:
    """A `tfcompat.data.Dataset` (duck-typed: distribute sits below data in the layers)."""
    return getattr(source, "_is_tfcompat_dataset", False)


def shard_policy(source: Any) -> str:
    """The dataset's `auto_shard_policy` name ("AUTO" for sources that are not datasets)."""
    if not is_tf_dataset(source):
        return "AUTO"
    return source.options().experimental_distribute.auto_shard_policy.name


class PerReplicaSpec:
    """The type of a `PerReplica` value: one spec per local replica (`tf.distribute`'s
    `PerReplicaSpec`, what a distributed dataset's `element_spec` holds)."""

    __slots__ = ("_value_specs",)

    def __init__(self, *value_specs: Any) -> None:
        self._value_specs = tuple(value_specs)

    @property
    def value_specs(self) -> tuple:
        return self._value_specs

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, PerReplicaSpec) and self._value_specs == other._value_specs

    def __hash__(self) -> int:
        return hash(self._value_specs)

    def __repr__(self) -> str:
        return f"PerReplicaSpec({', '.join(repr(s) for s in self._value_specs)})"


def per_replica_spec(spec: Any, replicas: int, wrap: bool, split: Optional[int]) -> Any:
    """`spec` with each leaf as seen by one replica (batch dim divided by `split`, when given),
    as a `PerReplicaSpec` of `replicas` copies when `wrap`."""
    def one(leaf: Any) -> Any:
        if split is not None and hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
            dims = leaf.shape.as_list() if leaf.shape.rank is not None else None
            if dims:
                dims[0] = dims[0] // split if dims[0] is not None and dims[0] % split == 0 else None
                leaf = type(leaf)(dims, leaf.dtype, leaf.name)
        return PerReplicaSpec(*([leaf] * replicas)) if wrap else leaf
    return nest.map_structure(one, spec)


def dataset_spec(source: Any, what: str) -> Any:
    if not is_tf_dataset(source):
        raise TypeError(f"{what}.element_spec needs a tf.data.Dataset source (its element_spec "
                        f"gives the types); this one is a {type(source).__name__}.")
    return source.element_spec


def static_spec(source: Any) -> bool:
    """Whether a tf.data source's elements have fully defined shapes (False for others)."""
    if not is_tf_dataset(source):
        return False
    return all(getattr(leaf, "shape", None) is not None and leaf.shape.is_fully_defined()
               for leaf in nest.flatten(source.element_spec))


def cardinality_of(source: Any) -> np.int64:
    """A distributed dataset's `cardinality`: the tf.data source's, as a NumPy int64 (TF's
    value: the dataset's element count, -1 infinite, -2 unknown); -2 for other sources."""
    if not is_tf_dataset(source):
        return np.int64(-2)
    return np.int64(int(source.cardinality()))


def static_batch_size(source: Any) -> int:
    """The batch size TF's `compute_batch_size` finds for a tf.data source (its `batch` or
    `padded_batch`, seen through transformations that keep batches whole), or -1."""
    find = getattr(source, "_static_batch_size", None)
    return -1 if find is None else int(find())
