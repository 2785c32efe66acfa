"""The datasets that start a pipeline: tensors, slices, ranges, generators, windows' contents."""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework import errors
from ..framework.copy_on_write import snapshot_of
from ..framework.function import TensorSpec
from ..framework.tensor_shape import TensorShape, as_shape
from . import structure
from .dataset_ops import INFINITE, UNKNOWN, Dataset, as_int

__all__ = ["TensorDataset", "TensorSliceDataset", "RangeDataset", "CounterDataset",
           "GeneratorDataset", "ListDataset"]


class TensorDataset(Dataset):
    """`Dataset.from_tensors(tensors)`: one element, the whole nest."""

    def __init__(self, tensors: Any, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        element = structure.normalize(tensors)
        # Elements are values, as TF's tensors: a snapshot of the caller's tensors now, and a
        # copy-on-write clone per epoch, so no in-place write on either side reaches the other.
        self._element = structure.pack(element, [snapshot_of(t) for t in structure.flatten(element)])
        self._spec = structure.spec_of(self._element)

    def _iterate(self) -> Iterator[Any]:
        element = self._element
        yield structure.pack(element, [snapshot_of(t) for t in structure.flatten(element)])

    def _cardinality(self) -> int:
        return 1


_TensorDataset = TensorDataset


class TensorSliceDataset(Dataset):
    """`Dataset.from_tensor_slices(tensors)`: row `i` of every component, for each `i`.

    Every component needs rank >= 1 and the same first dimension (TF's
    `ValueError` otherwise). The components are snapshotted when the dataset is
    made (copy-on-write: a later write into the caller's tensor does not reach the
    dataset), and each epoch copies them a chunk at a time; rows are views of their
    chunk, so writing into a row in place changes nothing anyone else holds.
    """

    def __init__(self, tensors: Any, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        element = structure.normalize(tensors)
        leaves = structure.flatten(element)
        if not leaves:
            raise ValueError("Invalid `element`. `element` should not be empty.")
        for leaf in leaves:
            if not isinstance(leaf, torch.Tensor):
                raise TypeError("from_tensor_slices takes tensors, not datasets.")
            if leaf.dim() == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        n = leaves[0].shape[0]
        for leaf in leaves[1:]:
            if leaf.shape[0] != n:
                raise ValueError(f"Dimensions {n} and {leaf.shape[0]} are not compatible")
        self._structure = element
        self._leaves = [snapshot_of(t) for t in leaves]
        self._n = int(n)
        self._spec = structure.pack(element, [
            TensorSpec(TensorShape(tuple(t.shape[1:])), dtypes.as_dtype(t.dtype)) for t in leaves])

    def _iterate(self) -> Iterator[Any]:
        # Rows are views of a fresh copy of their chunk (`unbind` of a cloned slice): cheap
        # per row, one copy of the data per epoch, never a view of the dataset's own tensors.
        chunk, leaves = 1024, self._leaves
        pack = structure.packer(self._structure)
        single = not structure.is_structure(self._structure)
        for start in range(0, self._n, chunk):
            rows = [t[start:start + chunk].clone().unbind(0) for t in leaves]
            if single:
                yield from rows[0]
            elif pack is tuple:
                yield from zip(*rows)
            else:
                for parts in zip(*rows):
                    yield pack(parts)

    def _cardinality(self) -> int:
        return self._n

    def _slice_rows(self, start: int, stop: int) -> Any:
        """Rows `[start, stop)` as one batch, copied (the fast path of `batch`)."""
        return structure.pack(self._structure,
                              [t.narrow(0, start, stop - start).clone() for t in self._leaves])


_TensorSliceDataset = TensorSliceDataset


class RangeDataset(Dataset):
    """`Dataset.range([start,] stop[, step])`: Python's `range` as int64 scalars."""

    def __init__(self, *args: Any, output_type: Any = None, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 "
                             f"but was {len(args)}.")
        ints = [as_int(a, "range argument") for a in args]
        if len(ints) == 3 and ints[2] == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self._range = range(*ints)
        self._dtype = dtypes.as_dtype(output_type or dtypes.int64)
        self._spec = TensorSpec(TensorShape([]), self._dtype)

    def _iterate(self) -> Iterator[Any]:
        # Scalars come as views of one arange per chunk: a view is several times cheaper to
        # make than a fresh 0-d tensor, and elements are never written into.
        dtype, r, chunk = self._dtype.as_torch, self._range, 1024
        for first in range(0, len(r), chunk):
            part = r[first:first + chunk]
            yield from torch.arange(part.start, part.stop, part.step, dtype=dtype).unbind(0)

    def _cardinality(self) -> int:
        return len(self._range)


_RangeDataset = RangeDataset


class CounterDataset(Dataset):
    """`start, start + step, ...` forever, int64 (`tf.data.experimental.Counter`)."""

    def __init__(self, start: int = 0, step: int = 1, dtype: Any = None) -> None:
        super().__init__()
        self._start, self._step = start, step
        self._dtype = dtypes.as_dtype(dtype or dtypes.int64)
        self._spec = TensorSpec(TensorShape([]), self._dtype)

    def _iterate(self) -> Iterator[Any]:
        i, dtype = self._start, self._dtype.as_torch
        while True:
            yield torch.tensor(i, dtype=dtype)
            i += self._step

    def _cardinality(self) -> int:
        return INFINITE


def _signature_from_legacy(output_types: Any, output_shapes: Any) -> Any:
    """`output_types` (+ `output_shapes`) as a nest of `TensorSpec`s."""
    type_leaves = structure.flatten(output_types)
    if output_shapes is None:
        shapes = [TensorShape(None)] * len(type_leaves)
    else:
        shapes = _flatten_shapes(output_shapes, output_types)
    return structure.pack(output_types, [TensorSpec(s, t) for s, t in zip(shapes, type_leaves)])


def _flatten_shapes(shapes: Any, like: Any) -> List[TensorShape]:
    """Shapes nested like `like` (a shape is a list/tuple of dims or a TensorShape)."""
    if structure.is_structure(like):
        if isinstance(like, dict):
            return [s for k in sorted(like) for s in _flatten_shapes(shapes[k], like[k])]
        return [s for sub, sub_like in zip(shapes, like) for s in _flatten_shapes(sub, sub_like)]
    return [as_shape(shapes)]


class GeneratorDataset(Dataset):
    """`Dataset.from_generator`: the values `generator(*args)` yields, one pass per epoch.

    Each value must match `output_signature`'s structure (a top-level list
    may stand for a tuple); each component is converted with NumPy to the
    spec's dtype (as TF: `1.5` for an int32 spec becomes 1) and its shape
    checked against the spec's. A mismatch is TF's `InvalidArgumentError`
    carrying TF's text, raised when the element is read.
    """

    def __init__(self, generator: Callable[..., Any], output_types: Any, output_shapes: Any,
                 args: Any, output_signature: Any, name: Optional[str] = None) -> None:
        super().__init__(name=name)
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("The `output_types` and `output_shapes` arguments cannot be used "
                                "together with the `output_signature` argument.")
            for leaf in structure.flatten(output_signature):
                if not isinstance(leaf, (TensorSpec, structure.DatasetSpec)):
                    raise TypeError(f"`output_signature` must contain objects that are subclass "
                                    f"of `tf.TypeSpec` but found {type(leaf)} which is not.")
            spec = output_signature
        else:
            if output_types is None:
                raise TypeError("To specify the output signature you need to provide either the "
                                "`output_signature` argument or the `output_types` argument.")
            spec = _signature_from_legacy(output_types, output_shapes)
        self._generator = generator
        self._args = tuple(structure.normalize(a) for a in (args or ()))
        self._spec = spec
        self._flat_spec = structure.flatten(spec)

    def _iterate(self) -> Iterator[Any]:
        args = [a.numpy() for a in self._args]
        for value in self._generator(*args):
            yield self._convert(value)

    def _convert(self, value: Any) -> Any:
        flat: List[Any] = []
        if not _flatten_up_to(self._spec, value, flat):
            raise errors.InvalidArgumentError(
                None, None, "TypeError: `generator` yielded an element that did not match the "
                f"expected structure. The expected structure was {_types_of(self._spec)}, but "
                f"the yielded element was {value}.")
        return structure.pack(self._spec, [_convert_leaf(item, leaf_spec)
                                           for item, leaf_spec in zip(flat, self._flat_spec)])

    def _cardinality(self) -> int:
        return UNKNOWN


_GeneratorDataset = GeneratorDataset


def _flatten_up_to(spec: Any, value: Any, out: List[Any]) -> bool:
    """Append `value`'s parts at `spec`'s leaves to `out`; False if the nests differ (a list
    may stand for a tuple, as TF's generator wrapper allows)."""
    if not structure.is_structure(spec):
        out.append(value)
        return True
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            return False
        return all(_flatten_up_to(spec[k], value[k], out) for k in sorted(spec))
    if not isinstance(value, (tuple, list)) or len(value) != len(spec):
        return False
    return all(_flatten_up_to(s, v, out) for s, v in zip(spec, value))


def _types_of(spec: Any) -> Any:
    return structure.pack(spec, [s.dtype for s in structure.flatten(spec)])


def _convert_leaf(item: Any, spec: TensorSpec) -> torch.Tensor:
    dtype = spec.dtype
    if isinstance(item, torch.Tensor) and item.dtype == dtype.as_torch:
        tensor = item
    else:
        try:
            array = np.asarray(item.detach().cpu() if isinstance(item, torch.Tensor) else item,
                               dtype=dtype.as_numpy_dtype, order="C")
        except (TypeError, ValueError):
            raise errors.InvalidArgumentError(
                None, None, "TypeError: `generator` yielded an element that could not be "
                f"converted to the expected type. The expected type was {dtype.name}, but the "
                f"yielded element was {item}.") from None
        tensor = torch.from_numpy(array.copy() if not array.flags.writeable else array)
    if not spec.shape.is_compatible_with(tuple(tensor.shape)):
        raise errors.InvalidArgumentError(
            None, None, "TypeError: `generator` yielded an element of shape "
            f"{TensorShape(tuple(tensor.shape))} where an element of shape {spec.shape} was expected.")
    return tensor


class ListDataset(Dataset):
    """A finite dataset over elements already made (the contents of a `window`)."""

    def __init__(self, elements: List[Any], element_spec: Any) -> None:
        super().__init__()
        self._elements = elements
        self._spec = element_spec

    def _iterate(self) -> Iterator[Any]:
        return iter(self._elements)

    def _cardinality(self) -> int:
        return len(self._elements)


_VariantDataset = ListDataset
