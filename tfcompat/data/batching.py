"""Grouping elements: `batch`, `padded_batch`, `unbatch`, `window`.

A batch stacks each component with `torch.stack` (one copy; a batch of a
`from_tensor_slices` source is a view of its rows instead). Components of
different shapes cannot be batched: TF's `InvalidArgumentError`, whose text
names the component and the first element that differs. The batch
dimension of the `element_spec` is known only with `drop_remainder=True`.
"""

from __future__ import annotations

from typing import Any, Iterator, List, Optional

import torch

from ..framework import dtypes
from ..framework import errors
from ..framework.function import TensorSpec
from ..framework.tensor_conversion import convert_to_tensor_on
from ..framework.tensor_shape import TensorShape
from . import structure
from .dataset_ops import INFINITE, UNKNOWN, Dataset, as_int
from .sources import ListDataset, TensorSliceDataset, _flatten_shapes

__all__ = ["BatchDataset", "PaddedBatchDataset", "UnbatchDataset", "WindowDataset"]


def _shape_text(shape: Any) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _positive(value: Any, what: str, message: str) -> int:
    n = as_int(value, what)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, message)
    return n


def _batched_cardinality(n: int, size: int, drop_remainder: bool) -> int:
    if n in (INFINITE, UNKNOWN):
        return n
    return n // size if drop_remainder else -(-n // size)


def _batched_spec(spec: Any, batch_dim: Optional[int], shapes: Optional[list] = None) -> Any:
    leaves = []
    for i, leaf in enumerate(structure.flatten(spec)):
        if not isinstance(leaf, TensorSpec):
            raise TypeError(f"Cannot batch a component of type {leaf!r}: only tensors batch.")
        inner = leaf.shape if shapes is None else shapes[i]
        leaves.append(TensorSpec(TensorShape([batch_dim]).concatenate(inner), leaf.dtype))
    return structure.pack(spec, leaves)


class BatchDataset(Dataset):
    """`batch(batch_size, drop_remainder)`: consecutive elements stacked along a new dim 0."""

    def __init__(self, input_dataset: Dataset, batch_size: Any, drop_remainder: bool,
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._size = _positive(batch_size, "batch_size", "Batch size must be greater than zero.")
        self._drop = bool(drop_remainder)

    def _iterate(self) -> Iterator[Any]:
        source, size = self._inputs[0], self._size
        if type(source) is TensorSliceDataset:  # rows of one tensor: slice, don't stack
            n = source._n
            stop = n - n % size if self._drop else n
            for start in range(0, stop, size):
                yield source._slice_rows(start, min(start + size, n))
            return
        pending: List[Any] = []
        for element in source._iterate():
            pending.append(element)
            if len(pending) == size:
                yield _stack(pending)
                pending = []
        if pending and not self._drop:
            yield _stack(pending)

    def _derive_spec(self, sample: bool) -> Any:
        spec = self._inputs[0]._spec_or(sample)
        return None if spec is None else _batched_spec(spec, self._size if self._drop else None)

    def _static_batch_size(self) -> int:
        return self._size

    def _cardinality(self) -> int:
        return _batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)


_BatchDataset = BatchDataset


def _stack(elements: List[Any]) -> Any:
    first = elements[0]
    if not structure.is_structure(first):
        return _stack_component(elements, 0)
    flatten = structure.flattener(first)
    columns = zip(*map(flatten, elements))
    return structure.packer(first)([_stack_component(list(c), i) for i, c in enumerate(columns)])


def _stack_component(parts: List[Any], index: int) -> torch.Tensor:
    try:
        return torch.stack(parts)
    except (RuntimeError, TypeError):
        if not all(isinstance(p, torch.Tensor) for p in parts):
            raise TypeError("Cannot batch a dataset whose elements hold datasets (a `window`): "
                            "flat_map each window to a batch instead.") from None
        first = parts[0].shape
        for j, p in enumerate(parts):
            if p.shape != first:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot batch tensors with different shapes in component "
                    f"{index}. First element had shape {_shape_text(first)} and element {j} had "
                    f"shape {_shape_text(p.shape)}.") from None
        raise


class PaddedBatchDataset(Dataset):
    """`padded_batch(batch_size, padded_shapes, padding_values, drop_remainder)`.

    Each component is padded at the end of every dim to `padded_shapes`
    (a dim of None or -1, and every dim when `padded_shapes` is None, pads
    to the longest in the batch) with `padding_values` (default 0, False
    for bool), then stacked. A component longer than its padded shape is
    TF's `InvalidArgumentError`.
    """

    def __init__(self, input_dataset: Dataset, batch_size: Any, padded_shapes: Any,
                 padding_values: Any, drop_remainder: bool, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._size = _positive(batch_size, "batch_size", "Batch size must be greater than zero.")
        self._drop = bool(drop_remainder)
        self._shapes: Optional[List[TensorShape]] = None
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values
        self._values: Optional[list] = None
        spec = input_dataset._spec_or(False)
        if spec is not None and padding_values is not None:  # TF checks when it is built
            self._padding(structure.pack(spec, [torch.empty(0, dtype=s.dtype.as_torch)
                                                for s in structure.flatten(spec)]))

    def _targets(self, like: Any) -> List[Optional[TensorShape]]:
        if self._shapes is None:
            if self._padded_shapes is None:
                spec = self._inputs[0]._spec_or(False)
                self._shapes = ([s.shape for s in structure.flatten(spec)] if spec is not None
                                else [None] * len(structure.flatten(like)))
            else:
                shapes = _flatten_shapes(self._padded_shapes, like)
                self._shapes = [TensorShape([None if d is None or d == -1 else d
                                             for d in _dims(s)]) for s in shapes]
        return self._shapes

    def _padding(self, like: Any) -> list:
        if self._values is None:
            leaves = structure.flatten(like)
            if self._padding_values is None:
                values = [None] * len(leaves)
            elif structure.is_structure(like) and not structure.is_structure(self._padding_values):
                values = [self._padding_values] * len(leaves)
            else:
                values = structure.flatten(self._padding_values)
            self._values = [_padding_scalar(v, leaf.dtype) for v, leaf in zip(values, leaves)]
        return self._values

    def _iterate(self) -> Iterator[Any]:
        pending: List[Any] = []
        for element in self._inputs[0]._iterate():
            pending.append(element)
            if len(pending) == self._size:
                yield self._pad(pending)
                pending = []
        if pending and not self._drop:
            yield self._pad(pending)

    def _pad(self, elements: List[Any]) -> Any:
        first = elements[0]
        targets, values = self._targets(first), self._padding(first)
        columns = list(zip(*(structure.flatten(e) for e in elements)))
        out = [_pad_component(list(c), t, v) for c, t, v in zip(columns, targets, values)]
        return structure.pack(first, out)

    def _derive_spec(self, sample: bool) -> Any:
        spec = self._inputs[0]._spec_or(sample)
        if spec is None:
            return None
        if self._padded_shapes is None:
            shapes = [s.shape for s in structure.flatten(spec)]
        else:
            shapes = self._targets(spec)
        return _batched_spec(spec, self._size if self._drop else None, shapes)

    def _cardinality(self) -> int:
        return _batched_cardinality(self._inputs[0]._cardinality(), self._size, self._drop)

    def _static_batch_size(self) -> int:
        return self._size


_PaddedBatchDataset = PaddedBatchDataset


def _dims(shape: Any) -> list:
    if isinstance(shape, TensorShape):
        return [None] * 0 if shape.rank is None else shape.as_list()
    if isinstance(shape, torch.Tensor):
        return shape.tolist()
    return list(shape)


def _padding_scalar(value: Any, dtype: torch.dtype) -> Any:
    if value is None:
        return False if dtype == torch.bool else 0
    t = convert_to_tensor_on(structure.HOST, value)
    if t.dim() != 0:
        raise ValueError(f"Invalid `padding_values`. All `padding_values` should be scalars, "
                         f"got {value!r}.")
    if t.dtype != dtype:  # (a Python int is int32 here, as in TF: np.int64(0) pads int64)
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type "
                        f"{dtypes.as_dtype(t.dtype)} does not match type "
                        f"{dtypes.as_dtype(dtype)} of the corresponding input component.")
    return t.item()


def _pad_component(parts: List[torch.Tensor], target: Optional[TensorShape],
                   value: Any) -> torch.Tensor:
    rank = parts[0].dim()
    if target is not None and target.rank is not None and target.rank != rank:
        raise errors.InvalidArgumentError(
            None, None, f"All elements in a batch must have the same rank as the padded shape "
            f"for component: expected rank {target.rank} but got element with rank {rank}")
    dims = [max(p.shape[a] for p in parts) for a in range(rank)]
    if target is not None and target.rank is not None:
        for a, d in enumerate(target.as_list()):
            if d is not None:
                if dims[a] > d:
                    raise errors.DataLossError(  # (TF's class for this one)
                        None, None, "Attempted to pad to a smaller size than the input element.")
                dims[a] = d
    out = torch.full([len(parts)] + dims, value, dtype=parts[0].dtype)
    for j, p in enumerate(parts):
        if p.dim() != rank:
            raise errors.InvalidArgumentError(
                None, None, f"All elements in a batch must have the same rank as the padded "
                f"shape for component: expected rank {rank} but got element with rank {p.dim()}")
        out[j][tuple(slice(0, s) for s in p.shape)] = p
    return out


class UnbatchDataset(Dataset):
    """`unbatch()`: each element split along dim 0 into its rows (all components must have
    rank >= 1 and one size there)."""

    def __init__(self, input_dataset: Dataset, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        spec = input_dataset._spec_or(False)
        if spec is not None:
            _check_unbatchable(spec)

    def _iterate(self) -> Iterator[Any]:
        for element in self._inputs[0]._iterate():
            leaves = structure.flatten(element)
            if any(t.dim() == 0 for t in leaves):
                raise ValueError("Cannot unbatch an input with scalar components.")
            n = leaves[0].shape[0]
            for i, t in enumerate(leaves):
                if t.shape[0] != n:
                    raise errors.InvalidArgumentError(
                        None, None, f"Input element must have the same batch size in each "
                        f"component. Component 0 had size {n} but component {i} had size "
                        f"{t.shape[0]}.")
            if not structure.is_structure(element):
                yield from element.unbind(0)
                continue
            rows = [t.unbind(0) for t in leaves]
            for i in range(n):
                yield structure.pack(element, [r[i] for r in rows])

    def _derive_spec(self, sample: bool) -> Any:
        spec = self._inputs[0]._spec_or(sample)
        if spec is None:
            return None
        _check_unbatchable(spec)
        return structure.pack(spec, [TensorSpec(s.shape[1:], s.dtype)
                                     for s in structure.flatten(spec)])

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        spec = self._inputs[0]._spec_or(True)  # (a map's spec runs it: see docs/data.md)
        sizes = {s.shape[0] for s in structure.flatten(spec)
                 if isinstance(s, TensorSpec) and s.shape.rank}
        if len(sizes) == 1 and None not in sizes and sizes != {0}:
            return n * sizes.pop()
        return UNKNOWN


_UnbatchDataset = UnbatchDataset


def _check_unbatchable(spec: Any) -> None:
    for leaf in structure.flatten(spec):
        if not isinstance(leaf, TensorSpec):
            raise TypeError(f"Cannot unbatch a component of type {leaf!r}.")
        if leaf.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")


class WindowDataset(Dataset):
    """`window(size, shift, stride, drop_remainder)`: a dataset of windows.

    Window `k` holds input elements `k*shift + j*stride` for `j < size`
    (those that exist); every component of an element becomes its own
    finite dataset, so an element is the input's nest of datasets
    (`DatasetSpec`s). Without `drop_remainder` the windows at the end may
    be short; with it only full windows are kept.
    """

    def __init__(self, input_dataset: Dataset, size: Any, shift: Any, stride: Any,
                 drop_remainder: bool, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._size = _positive(size, "size", "Window size must be greater than zero.")
        self._shift = (self._size if shift is None else
                       _positive(shift, "shift", "Window shift must be greater than zero."))
        self._stride = _positive(stride, "stride", "Window stride must be greater than zero.")
        self._drop = bool(drop_remainder)

    def _iterate(self) -> Iterator[Any]:
        source = self._inputs[0]._iterate()
        span = (self._size - 1) * self._stride + 1  # input elements a full window covers
        buffer: List[Any] = []  # input elements from the current window's start on
        exhausted = False
        spec = None
        while True:
            while not exhausted and len(buffer) < span:
                try:
                    buffer.append(next(source))
                except StopIteration:
                    exhausted = True
            if not buffer:
                return
            members = buffer[:span:self._stride]
            if len(members) < self._size and self._drop:
                return
            if spec is None:
                spec = structure.spec_of(members[0])
            yield self._window(members, spec)
            if len(buffer) >= self._shift:
                del buffer[:self._shift]
            else:  # the next window starts past what is buffered: skip input up to it
                skip = self._shift - len(buffer)
                buffer = []
                for _ in range(skip):
                    try:
                        next(source)
                    except StopIteration:
                        exhausted = True
                        break

    def _window(self, members: List[Any], spec: Any) -> Any:
        spec_leaves = structure.flatten(self._spec_or(False) or spec)
        columns = list(zip(*(structure.flatten(m) for m in members)))
        datasets = []
        for column, leaf_spec in zip(columns, spec_leaves):
            inner = leaf_spec.element_spec if isinstance(leaf_spec, structure.DatasetSpec) else (
                leaf_spec)
            datasets.append(ListDataset(list(column), inner))
        return structure.pack(members[0], datasets)

    def _derive_spec(self, sample: bool) -> Any:
        spec = self._inputs[0]._spec_or(sample)
        if spec is None:
            return None
        return structure.pack(spec, [structure.DatasetSpec(leaf) for leaf in
                                     structure.flatten(spec)])

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        if self._drop:
            rest = n - ((self._size - 1) * self._stride + 1)
            return 0 if rest < 0 else rest // self._shift + 1
        return -(-n // self._shift)


_WindowDataset = WindowDataset
