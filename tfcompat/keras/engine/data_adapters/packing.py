"""The `(x, y, sample_weight)` conventions, input conversion and input checks of tf_keras.

`Model.fit` and friends see data as `x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)`;
`unpack_x_y_sample_weight` / `pack_x_y_sample_weight` move between that and three values,
`train_validation_split` carves off the last fraction for `validation_split`, and the
helpers here convert leaves the way tf_keras's adapters do (floating NumPy arrays become
tensors of `keras.backend.floatx()`, everything else keeps its dtype; lists become tuples).
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
import torch

from ....framework import nest
from ....framework.tensor_conversion import convert_to_tensor_on
from ....framework.variable_protocol import is_variable
from ... import backend
from ...saving.serialization import keras_export

__all__ = [
    "unpack_x_y_sample_weight", "pack_x_y_sample_weight", "train_validation_split",
    "list_to_tuple", "is_none_or_empty", "check_data_cardinality", "type_name",
    "check_positive", "check_non_negative", "to_tensor", "process_tensorlike", "HOST",
]

HOST = torch.device("cpu")


@keras_export("keras.utils.unpack_x_y_sample_weight")
def unpack_x_y_sample_weight(data: Any) -> Tuple[Any, Any, Any]:
    """`tf.keras.utils.unpack_x_y_sample_weight`: `(x, y, sample_weight)` from a batch.

    A list is read as a tuple. A tuple of length 1, 2 or 3 is `(x,)`, `(x, y)` or
    `(x, y, sample_weight)` (the missing ones `None`); anything that is not a tuple is
    `x` alone. Other tuple lengths raise tf_keras's `ValueError`.
    """
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


@keras_export("keras.utils.pack_x_y_sample_weight")
def pack_x_y_sample_weight(x: Any, y: Any = None, sample_weight: Any = None) -> Any:
    """`tf.keras.utils.pack_x_y_sample_weight`: the batch `Model.fit` reads.

    Without `y`: `x` itself, unless `x` is a tuple, which is wrapped as `(x,)` so that it is
    not read as `(x, y)` (a list is left as it is, as in tf_keras). With `y`: `(x, y)`, or
    `(x, y, sample_weight)` when a sample weight is given (a sample weight without `y` is
    dropped, as in tf_keras).
    """
    if y is None:
        return (x,) if isinstance(x, tuple) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def list_to_tuple(structure: Any) -> Any:
    """Every list in `structure` (at any depth) turned into a tuple, as tf.data does for
    the elements it builds; dicts and other containers keep their type."""
    if isinstance(structure, list):
        return tuple(list_to_tuple(item) for item in structure)
    if isinstance(structure, tuple):
        items = [list_to_tuple(item) for item in structure]
        if hasattr(structure, "_fields"):
            return type(structure)(*items)
        return tuple(items)
    if isinstance(structure, dict):
        return type(structure)((k, list_to_tuple(v)) for k, v in structure.items())
    return structure


def is_none_or_empty(inputs: Any) -> bool:
    """Whether `inputs` is None or a nest without leaves (`[]`, `{}`)."""
    return inputs is None or not nest.flatten(inputs)


def type_name(x: Any) -> str:
    """tf_keras's description of an input's type, for "Failed to find data adapter"."""
    if isinstance(x, dict):
        key_types = set(type_name(key) for key in x.keys())
        val_types = set(type_name(value) for value in x.values())
        return f"({type(x)} containing {key_types} keys and {val_types} values)"
    if isinstance(x, (list, tuple)):
        types = set(type_name(value) for value in x)
        return f"({type(x)} containing values of types {types})"
    return str(type(x))


def check_positive(name: str, value: Any) -> Any:
    """`value`, or tf_keras's `ValueError` when it is not positive."""
    if value <= 0:
        raise ValueError(f"Expected {name} to be positive. Received is {value}.")
    return value


def check_non_negative(name: str, value: Any) -> Any:
    """`value`, or tf_keras's `ValueError` when it is negative."""
    if value < 0:
        raise ValueError(f"Expected {name} to be non-negative. Received is {value}.")
    return value


def _num_rows(leaf: Any) -> int:
    return int(leaf.shape[0])


def check_data_cardinality(data: Any) -> None:
    """tf_keras's "Data cardinality is ambiguous" `ValueError` when the leaves of the
    `(x, y, sample_weight)` tuple `data` disagree on their first dimension."""
    sizes = set(_num_rows(leaf) for leaf in nest.flatten(data) if leaf is not None)
    if len(sizes) > 1:
        msg = "Data cardinality is ambiguous:\n"
        for label, single in zip(["x", "y", "sample_weight"], data):
            msg += "  {} sizes: {}\n".format(label, ", ".join(
                str(leaf.shape[0]) for leaf in nest.flatten(single) if leaf is not None))
        msg += "Make sure all arrays contain the same number of samples."
        raise ValueError(msg)


def to_tensor(leaf: Any) -> Any:
    """One input leaf as tf_keras feeds it: a NumPy array becomes a host tensor (floating
    ones in `floatx()`, as tf_keras's `_process_tensorlike`; the array is copied, never
    aliased), a variable is read, a Python or NumPy number is converted by TF's rules;
    torch tensors, `None` and anything else pass unchanged."""
    if leaf is None or isinstance(leaf, torch.Tensor):
        return leaf
    if isinstance(leaf, np.ndarray):
        dtype = backend.floatx() if issubclass(leaf.dtype.type, np.floating) else None
        return convert_to_tensor_on(HOST, leaf, dtype=dtype)
    if is_variable(leaf):
        return leaf.value()
    if isinstance(leaf, (bool, int, float, np.number, np.bool_)):
        return convert_to_tensor_on(HOST, leaf)  # (a NumPy scalar keeps its dtype, as in TF)
    return leaf


def process_tensorlike(inputs: Any) -> Any:
    """tf_keras's `_process_tensorlike`: every leaf through `to_tensor`, lists to tuples."""
    return list_to_tuple(nest.map_structure(to_tensor, inputs))


def _can_split(t: Any) -> bool:
    return t is None or isinstance(t, (torch.Tensor, np.ndarray))


def train_validation_split(arrays: Any, validation_split: float) -> Tuple[Any, Any]:
    """`(train_arrays, validation_arrays)`: the last `validation_split` fraction of every
    leaf (along dim 0) is the validation part, in order (no shuffling), as tf_keras.

    `arrays` is a nest of NumPy arrays, torch tensors and `None`s (kept as `None` in both
    parts); the split row is `floor(n * (1 - validation_split))` of the first leaf's `n`.
    Other leaves (variables, Python lists, datasets) raise tf_keras's `ValueError`, as
    does a split that leaves either part empty. The parts are views (slices), not copies.
    """
    flat = nest.flatten(arrays)
    unsplitable = [type(t) for t in flat if not _can_split(t)]
    if unsplitable:
        raise ValueError(
            "`validation_split` is only supported for Tensors or NumPy arrays, found "
            f"following types in the input: {unsplitable}")
    if all(t is None for t in flat):
        return arrays, arrays
    first = next(t for t in flat if t is not None)
    batch_dim = _num_rows(first)
    split_at = int(math.floor(batch_dim * (1.0 - validation_split)))
    if split_at == 0 or split_at == batch_dim:
        raise ValueError(
            f"Training data contains {batch_dim} samples, which is not sufficient to split it "
            "into a validation and training set as specified by "
            f"`validation_split={validation_split}`. Either provide more data, or a different "
            "value for the `validation_split` argument.")

    def part(start: int, end: int) -> Any:
        return nest.map_structure(lambda t: None if t is None else t[start:end], arrays)

    return part(0, split_at), part(split_at, batch_dim)


def fill_partial_sample_weights(y: Any, sample_weights: Any) -> Any:
    """tf_keras's `handle_partial_sample_weights`: in a list of per-output sample weights
    where some are `None`, each missing one becomes ones (float32, one per sample of that
    output); all-`None` becomes `None`."""
    if not isinstance(sample_weights, (list, tuple)):
        return sample_weights
    if not any(w is not None for w in sample_weights):
        return None
    if all(w is not None for w in sample_weights):
        return sample_weights
    outputs: List[Any] = list(y) if isinstance(y, (list, tuple)) else nest.flatten(y)
    filled = []
    for i, w in enumerate(sample_weights):
        if w is None:
            output = outputs[i]
            device = output.device if isinstance(output, torch.Tensor) else HOST
            w = torch.ones((_num_rows(output),), dtype=torch.float32, device=device)
        filled.append(w)
    return tuple(filled)


def first_dim(inputs: Any) -> Optional[int]:
    """The first dimension shared by the leaves of `inputs` (None when it has none)."""
    sizes = [_num_rows(leaf) for leaf in nest.flatten(inputs) if leaf is not None]
    return sizes[0] if sizes else None
