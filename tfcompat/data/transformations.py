"""Element-wise and control-flow transformations: map, filter, flat_map, interleave, zip,
concatenate, repeat, take, skip, shard, cache, prefetch, with_options.

Cardinalities follow TF's static rules (`INFINITE` = -1, `UNKNOWN` = -2):
`map`/`cache`/`prefetch` keep the input's; `filter`, `flat_map` and
`interleave` are UNKNOWN; `repeat()` of a non-empty input is INFINITE.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, List, Optional

import torch

from ..framework import device as device_lib
from ..framework import errors
from ..framework.copy_on_write import snapshot_of
from ..framework.function import TensorSpec
from . import structure
from .dataset_ops import (AUTOTUNE, INFINITE, UNKNOWN, Dataset, as_int, first_element,
                          first_elements)

__all__ = ["OptionsDataset", "ZipDataset", "ConcatenateDataset", "RepeatDataset", "TakeDataset",
           "SkipDataset", "ShardDataset", "MapDataset", "FilterDataset", "FlatMapDataset",
           "InterleaveDataset", "CacheDataset", "PrefetchDataset"]


class OptionsDataset(Dataset):
    """`with_options`: the input's elements, with options attached."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, options: Any, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._own_options = options

    def _iterate(self) -> Iterator[Any]:
        return self._inputs[0]._iterate()


def _check_dataset(value: Any, what: str) -> Dataset:
    if not isinstance(value, Dataset):
        raise TypeError(f"Invalid `{what}`. `{what}` should be a `tf.data.Dataset`, "
                        f"got {type(value).__name__}.")
    return value


def _has_list(value: Any) -> bool:
    if isinstance(value, list):
        return True
    if isinstance(value, dict):
        return any(_has_list(v) for v in value.values())
    return isinstance(value, tuple) and any(_has_list(v) for v in value)


class ZipDataset(Dataset):
    """`Dataset.zip(datasets)`: one element from each, arranged in `datasets`' nest; it ends
    when the shortest input does."""

    def __init__(self, datasets: Any, name: Optional[str] = None) -> None:
        flat = structure.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset) or _has_list(datasets):
                raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                                "structures of `tf.data.Dataset` objects. Python `list` is not "
                                "supported and you should use `tuple` instead.")
        super().__init__(tuple(flat), name=name)
        self._structure = datasets

    def _iterate(self) -> Iterator[Any]:
        iterators = [d._iterate() for d in self._inputs]
        pack, shape = structure.pack, self._structure
        while True:
            parts = []
            for it in iterators:
                try:
                    parts.append(next(it))
                except StopIteration:
                    return
            yield pack(shape, parts)

    def _derive_spec(self, sample: bool) -> Any:
        specs = [d._spec_or(sample) for d in self._inputs]
        if any(s is None for s in specs):
            return None
        return structure.pack(self._structure, specs)

    def _cardinality(self) -> int:
        result = INFINITE
        for d in self._inputs:
            n = d._cardinality()
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE and (result == INFINITE or n < result):
                result = n
        return result


class ConcatenateDataset(Dataset):
    """`a.concatenate(b)`: `a`'s elements, then `b`'s; the two must have one structure and
    dtypes (TF's `TypeError`), the spec is the most specific both satisfy."""

    def __init__(self, input_dataset: Dataset, dataset: Dataset,
                 name: Optional[str] = None) -> None:
        _check_dataset(dataset, "dataset")
        super().__init__((input_dataset, dataset), name=name)
        a, b = input_dataset._spec_or(False), dataset._spec_or(False)
        if a is not None and b is not None:
            structure.check_compatible(a, b)

    def _iterate(self) -> Iterator[Any]:
        yield from self._inputs[0]._iterate()
        yield from self._inputs[1]._iterate()

    def _derive_spec(self, sample: bool) -> Any:
        a, b = (d._spec_or(sample) for d in self._inputs)
        if a is None or b is None:
            return None
        return structure.most_specific_compatible(a, b)

    def _cardinality(self) -> int:
        a, b = (d._cardinality() for d in self._inputs)
        if INFINITE in (a, b):
            return INFINITE
        if UNKNOWN in (a, b):
            return UNKNOWN
        return a + b


class RepeatDataset(Dataset):
    """`repeat(count)`: the input `count` times (`None` or -1: forever), each pass a new epoch."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, count: Any, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._count = -1 if count is None else as_int(count, "count")

    def _iterate(self) -> Iterator[Any]:
        source, done = self._inputs[0], 0
        while self._count < 0 or done < self._count:
            produced = False
            for element in source._iterate():
                produced = True
                yield element
            done += 1
            if not produced and self._count < 0:
                return  # an empty input repeated forever is empty (TF stops too)

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if self._count < 0:
            return 0 if n == 0 else INFINITE
        if self._count == 0:
            return 0
        if n in (INFINITE, UNKNOWN):
            return n
        return n * self._count


class TakeDataset(Dataset):
    """`take(count)`: at most the first `count` elements (-1: all)."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, count: Any, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._count = as_int(count, "count")

    def _iterate(self) -> Iterator[Any]:
        if self._count < 0:
            yield from self._inputs[0]._iterate()
            return
        if self._count == 0:
            return
        for i, element in enumerate(self._inputs[0]._iterate(), 1):
            yield element
            if i >= self._count:
                return

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if self._count == -1:
            return n
        if n == UNKNOWN:
            return UNKNOWN
        if n == INFINITE:
            return self._count
        return min(n, self._count)  # (TF's rule: take(-2) of a finite dataset reports -2)


class SkipDataset(Dataset):
    """`skip(count)`: all but the first `count` elements (-1: none)."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, count: Any, name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._count = as_int(count, "count")

    def _iterate(self) -> Iterator[Any]:
        it = self._inputs[0]._iterate()
        if self._count < 0:
            for _ in it:
                pass
            return
        for i, element in enumerate(it):
            if i >= self._count:
                yield element

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        if self._count < 0:
            return 0
        return max(0, n - self._count)


class ShardDataset(Dataset):
    """`shard(num_shards, index)`: elements `index`, `index + num_shards`, ..."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, num_shards: Any, index: Any,
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._num_shards = as_int(num_shards, "num_shards")
        self._index = as_int(index, "index")
        if self._num_shards <= 0:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater than "
                                              "zero (currently num_shards = "
                                              f"{self._num_shards}).")
        if not 0 <= self._index < self._num_shards:
            raise errors.InvalidArgumentError(
                None, None, f"Index must be between 0 and {self._num_shards - 1} "
                f"(currently index = {self._index}).")

    def _iterate(self) -> Iterator[Any]:
        k, index = self._num_shards, self._index
        for i, element in enumerate(self._inputs[0]._iterate()):
            if i % k == index:
                yield element

    def _cardinality(self) -> int:
        n = self._inputs[0]._cardinality()
        if n in (INFINITE, UNKNOWN):
            return n
        return n // self._num_shards + (1 if n % self._num_shards > self._index else 0)


def _sample_spec(fn: Callable[..., Any], input_dataset: Dataset) -> Any:
    """The spec of a function's outputs, found by running it (TF traces it symbolically).

    The function runs on the first two input elements (dims where the
    outputs disagree are unknown) and, when the input spec leaves dims
    unknown (a `batch` without `drop_remainder`, a `padded_batch`), once more
    on the first element grown by one along each unknown dim (its last slice
    repeated): output dims that change with it depend on an unknown input dim,
    and TF's trace would leave them unknown too. Should that call fail, an
    output dim is taken as unknown when an unknown input dim at the same axis
    had the same size. See docs/data.md.
    """
    input_spec = input_dataset.element_spec
    samples = first_elements(input_dataset, 2)
    if not samples:  # an empty input: trace on zeros of the input's spec, as TF would
        samples = [_zeros_like_spec(input_spec)]

    def run(element: Any) -> Any:
        output = structure.call_with_element(fn, element)
        return structure.spec_of(structure.normalize_output(output))

    specs = [run(e) for e in samples]
    spec = specs[0]
    for other in specs[1:]:
        spec = structure.most_specific_compatible(spec, other)
    leaf_specs = structure.flatten(input_spec)
    if not any(isinstance(s, TensorSpec) and s.shape.rank is not None and None in s.shape.as_list()
               for s in leaf_specs):
        return spec
    try:
        grown = run(_grown(samples[0], input_spec))
        return structure.most_specific_compatible(spec, grown)
    except Exception:  # noqa: BLE001 (a function that cannot take the grown input: fall back)
        pass
    unknown = set()
    for leaf_spec, leaf in zip(leaf_specs, structure.flatten(samples[0])):
        if isinstance(leaf_spec, TensorSpec) and leaf_spec.shape.rank is not None:
            unknown.update((axis, leaf.shape[axis])
                           for axis, d in enumerate(leaf_spec.shape.as_list()) if d is None)
    return structure.relaxed(spec, lambda s: [(axis, d) in unknown
                                              for axis, d in enumerate(s.shape.as_list())])


def _grown(element: Any, spec: Any) -> Any:
    """`element` with every dim its spec leaves unknown one longer (the last slice repeated)."""
    leaves = []
    for leaf, leaf_spec in zip(structure.flatten(element), structure.flatten(spec)):
        if isinstance(leaf, torch.Tensor) and isinstance(leaf_spec, TensorSpec) and (
                leaf_spec.shape.rank is not None):
            for axis, d in enumerate(leaf_spec.shape.as_list()):
                if d is None and leaf.shape[axis] > 0:
                    leaf = torch.cat([leaf, leaf.narrow(axis, leaf.shape[axis] - 1, 1)], axis)
        leaves.append(leaf)
    return structure.pack(element, leaves)


class MapDataset(Dataset):
    """`map(map_func)`: `map_func` applied to each element (see `structure.call_with_element`).

    The function runs eagerly on every element; its result is converted as
    an element (lists read as tuples). `num_parallel_calls` is accepted: the
    calls run in order on the iterating thread (TF's `deterministic=True`
    order); for parallelism across processes use `to_torch()`.
    """

    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Any], parallel: bool = False,
                 name: Optional[str] = None) -> None:
        if not callable(map_func):
            raise TypeError(f"`map_func` must be callable, got {type(map_func).__name__}.")
        super().__init__((input_dataset,), name=name)
        self._fn = map_func

    def _iterate(self) -> Iterator[Any]:
        fn, call, normalize = self._fn, structure.call_with_element, structure.normalize_output
        for element in self._inputs[0]._iterate():
            yield normalize(call(fn, element))

    def _derive_spec(self, sample: bool) -> Any:
        return _sample_spec(self._fn, self._inputs[0]) if sample else None


def _zeros_like_spec(spec: Any) -> Any:
    leaves = []
    for leaf in structure.flatten(spec):
        if not isinstance(leaf, TensorSpec) or leaf.shape.rank is None:
            raise TypeError(f"Cannot trace a function over an empty input of spec {spec!r}.")
        dims = [0 if d is None else d for d in leaf.shape.as_list()]
        leaves.append(torch.zeros(dims, dtype=leaf.dtype.as_torch))
    return structure.pack(spec, leaves)


_MapDataset = MapDataset
_ParallelMapDataset = MapDataset


class FilterDataset(Dataset):
    """`filter(predicate)`: the elements for which `predicate` gives a true `tf.bool` scalar."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any],
                 name: Optional[str] = None) -> None:
        if not callable(predicate):
            raise TypeError(f"`predicate` must be callable, got {type(predicate).__name__}.")
        super().__init__((input_dataset,), name=name)
        self._fn = predicate

    def _iterate(self) -> Iterator[Any]:
        fn = self._fn
        for element in self._inputs[0]._iterate():
            if _predicate(fn, element):
                yield element

    def _cardinality(self) -> int:
        return UNKNOWN


def _predicate(fn: Callable[..., Any], element: Any) -> bool:
    keep = structure.normalize_output(structure.call_with_element(fn, element))
    if not (isinstance(keep, torch.Tensor) and keep.dtype == torch.bool and keep.dim() == 0):
        raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar "
                         f"tensor, but its return type is {structure.spec_of(keep)!r}.")
    return bool(keep)


class TakeWhileDataset(Dataset):
    """`take_while(predicate)`: elements until the first one `predicate` rejects."""

    def __init__(self, input_dataset: Dataset, predicate: Callable[..., Any],
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._fn = predicate

    def _iterate(self) -> Iterator[Any]:
        for element in self._inputs[0]._iterate():
            if not _predicate(self._fn, element):
                return
            yield element

    def _cardinality(self) -> int:
        return UNKNOWN


def _dataset_result(fn: Callable[..., Any], element: Any) -> Dataset:
    out = structure.call_with_element(fn, element)
    if not isinstance(out, Dataset):
        raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got "
                        f"{type(out)!r}.")
    return out


class FlatMapDataset(Dataset):
    """`flat_map(map_func)`: the elements of the dataset `map_func` makes from each element."""

    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Dataset],
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._fn = map_func

    def _iterate(self) -> Iterator[Any]:
        for element in self._inputs[0]._iterate():
            yield from _dataset_result(self._fn, element)._iterate()

    def _derive_spec(self, sample: bool) -> Any:
        if not sample:
            return None
        element = first_element(self._inputs[0])
        if element is None:
            element = _zeros_like_spec(self._inputs[0].element_spec)
        return _dataset_result(self._fn, element).element_spec

    def _cardinality(self) -> int:
        return UNKNOWN


class InterleaveDataset(FlatMapDataset):
    """`interleave(map_func, cycle_length, block_length)`: TF's deterministic order.

    `cycle_length` datasets are open at once; `block_length` consecutive
    elements are taken from each in turn; an exhausted one is replaced, in
    its slot, by the dataset of the next input element. `cycle_length=None`
    or AUTOTUNE means the number of CPU cores, as TF.
    """

    def __init__(self, input_dataset: Dataset, map_func: Callable[..., Dataset],
                 cycle_length: Any, block_length: Any, name: Optional[str] = None) -> None:
        super().__init__(input_dataset, map_func, name=name)
        cycle = AUTOTUNE if cycle_length is None else as_int(cycle_length, "cycle_length")
        self._cycle = (os.cpu_count() or 1) if cycle == AUTOTUNE else cycle
        self._block = 1 if block_length is None else as_int(block_length, "block_length")
        if self._cycle <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than zero.")
        if self._block <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than zero.")

    def _iterate(self) -> Iterator[Any]:
        inputs = self._inputs[0]._iterate()
        slots: List[Optional[Iterator[Any]]] = [None] * self._cycle
        open_count, index, in_block, input_done = 0, 0, 0, False
        while not input_done or open_count > 0:
            current = slots[index]
            if current is not None:
                try:
                    element = next(current)
                except StopIteration:
                    slots[index] = None
                    open_count -= 1
                    index, in_block = (index + 1) % self._cycle, 0
                    continue
                in_block += 1
                if in_block == self._block:
                    index, in_block = (index + 1) % self._cycle, 0
                yield element
            elif not input_done:
                try:
                    element = next(inputs)
                except StopIteration:
                    input_done = True
                    continue
                slots[index] = _dataset_result(self._fn, element)._iterate()
                open_count += 1
            else:
                index, in_block = (index + 1) % self._cycle, 0


class CacheDataset(Dataset):
    """`cache()`: the first complete pass is kept in memory and replayed by later passes.

    A pass that stops early caches nothing (as TF discards a partial cache).
    `filename` is accepted but nothing is written to disk: the cache lives
    in this process's memory (see docs/data.md).
    """

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, filename: str = "",
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        self._filename = filename
        self._cache: Optional[List[Any]] = None

    def _iterate(self) -> Iterator[Any]:
        # What is handed out is a copy-on-write clone of what is kept, so an in-place write
        # into an element never changes what a later pass replays.
        flatten, pack = structure.flatten, structure.pack
        if self._cache is not None:
            for element in self._cache:
                yield pack(element, [snapshot_of(t) for t in flatten(element)])
            return
        recorded = []
        for element in self._inputs[0]._iterate():
            recorded.append(element)
            yield pack(element, [snapshot_of(t) for t in flatten(element)])
        if self._cache is None:
            self._cache = recorded


class CopyToDeviceDataset(Dataset):
    """`tf.data.experimental.copy_to_device(device)`: every component moved to `device`."""

    def __init__(self, input_dataset: Dataset, device: Any) -> None:
        super().__init__((input_dataset,))
        self._device = device_lib.torch_device_for(device) if isinstance(device, str) else (
            torch.device(device))

    def _iterate(self) -> Iterator[Any]:
        device, flatten, pack = self._device, structure.flatten, structure.pack
        for element in self._inputs[0]._iterate():
            yield pack(element, [t.to(device) for t in flatten(element)])


class PrefetchDataset(Dataset):
    """`prefetch(buffer_size)`: the input unchanged (no background thread; see the module
    doc of `dataset_ops`). `buffer_size` must be AUTOTUNE (-1) or >= 0."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, buffer_size: Any,
                 name: Optional[str] = None) -> None:
        super().__init__((input_dataset,), name=name)
        size = as_int(buffer_size, "buffer_size")
        if size < -1:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be >= 0 or set "
                                              "buffer_size to be -1 for auto-tuning")

    def _iterate(self) -> Iterator[Any]:
        return self._inputs[0]._iterate()


class AssertCardinalityDataset(Dataset):
    """`tf.data.experimental.assert_cardinality(n)`: the input, declared to have `n` elements;
    TF's `FailedPreconditionError` when iteration finds otherwise."""

    _keeps_batches = True

    def __init__(self, input_dataset: Dataset, expected: Any) -> None:
        super().__init__((input_dataset,))
        self._expected = as_int(expected, "expected_cardinality")

    def _iterate(self) -> Iterator[Any]:
        count, expected = 0, self._expected
        for element in self._inputs[0]._iterate():
            count += 1
            if expected >= 0 and count > expected:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_elements(expected)} "
                    f"but contained at least {_elements(count)}.")
            yield element
        if expected == INFINITE or count < expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_elements(expected)} but "
                f"contained only {_elements(count)}.")

    def _cardinality(self) -> int:
        return self._expected


def _elements(n: int) -> str:
    return f"{n} element" if n == 1 else f"{n} elements"
