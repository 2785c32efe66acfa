"""`tf.data.Dataset`: a lazy Python pipeline of host tensors, with TF's API.

A `Dataset` is a recipe: each `iter()` runs it from the start (an epoch),
pulling one element at a time through the chain of transformations, so
nothing is materialized that TF would not hold (a `shuffle` buffer, a
`cache`, a `batch` being filled). Elements are nests of plain CPU
`torch.Tensor`s (see `structure.py` for the nesting and dtype rules); they
are values, as TF's: the sources and `cache` hand out copies or copy-on-write
clones, so an in-place write into an element (`x /= 255.0`) changes nothing
a later epoch, the caller's tensors or a cache hold.

Differences from TF that are deliberate (see `docs/data.md`): functions
passed to `map`/`filter`/`flat_map`/`interleave`/`reduce` run eagerly on
every element (TF traces them once; `tf.data.experimental.enable_debug_mode`
behaves like tfcompat); the `element_spec` of a `map` is found by running
the function on sampled input elements; `prefetch` and
`num_parallel_calls` are accepted and run nothing in the background (use
`to_torch()` with a `DataLoader` for worker processes).

This module holds the base class, its iterator, and the constructors;
transformations live in `transformations.py`, `batching.py`,
`shuffling.py` and `selection.py` (choose/sample/scan/unique); sources in
`sources.py`; the torch bridge in `torch_bridge.py`.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Iterator as _Iterator, List, Optional

import numpy as np
import torch

from ..framework import dtypes
from ..framework import errors
from ..framework.optional import OptionalValue
from . import options as options_lib
from . import structure
from ..train.trackable import Trackable

__all__ = ["Dataset", "DatasetV2", "Iterator", "OwnedIterator", "OptionalValue", "NumpyIterator",
           "AUTOTUNE", "INFINITE", "UNKNOWN"]

AUTOTUNE = -1
INFINITE = -1  # tf.data.INFINITE_CARDINALITY
UNKNOWN = -2  # tf.data.UNKNOWN_CARDINALITY

_peek = threading.local()


def peeking() -> bool:
    """Whether the current iteration only samples an element (for a `map`'s element_spec):
    it must not advance per-epoch state such as a shuffle's reshuffle counter."""
    return getattr(_peek, "depth", 0) > 0


class _Peek:
    def __enter__(self) -> None:
        _peek.depth = getattr(_peek, "depth", 0) + 1

    def __exit__(self, *exc: Any) -> None:
        _peek.depth -= 1


def first_elements(dataset: "Dataset", count: int) -> List[Any]:
    """Up to `count` first elements of `dataset`, without advancing epochs."""
    out: List[Any] = []
    if count <= 0:
        return out
    with _Peek():
        for element in dataset._iterate():
            out.append(element)
            if len(out) == count:
                break
    return out


def first_element(dataset: "Dataset") -> Any:
    """The first element of `dataset` (or None if it is empty), without advancing epochs."""
    found = first_elements(dataset, 1)
    return found[0] if found else None


class Dataset:
    """`tf.data.Dataset`: an iterable of elements, each a nest of tensors.

    Subclasses implement `_iterate()` (a fresh generator of elements),
    `_derive_spec(sample)` (the element spec from the inputs', or None when
    only running user code would tell and `sample` is False) and
    `_cardinality()`; `_inputs` lists the datasets they read.
    """

    _is_tfcompat_dataset = True  # how structure.py and input_lib recognise a dataset
    _inputs: tuple = ()
    # Whether this transformation hands on its input's batches whole (TF's compute_batch_size
    # looks through these to the `batch` that made them).
    _keeps_batches = False

    def __init__(self, inputs: tuple = (), name: Optional[str] = None) -> None:
        self._inputs = tuple(inputs)
        self._spec: Any = None
        self._own_options: Optional[options_lib.Options] = None
        self._name = name

    # -- what subclasses provide --------------------------------------------------
    def _iterate(self) -> _Iterator[Any]:
        raise NotImplementedError

    def _derive_spec(self, sample: bool) -> Any:
        return self._inputs[0]._spec_or(sample)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _static_batch_size(self) -> int:
        """The batch size of the `batch` this dataset's elements come from whole, or -1
        (what `tf.distribute` rebatches by, as TF's `compute_batch_size`)."""
        if self._keeps_batches and self._inputs:
            return self._inputs[0]._static_batch_size()
        return -1

    # -- types and sizes ----------------------------------------------------------
    def _spec_or(self, sample: bool) -> Any:
        if self._spec is None:
            self._spec = self._derive_spec(sample)
        return self._spec

    @property
    def element_spec(self) -> Any:
        """The type of each element: a nest of `tf.TensorSpec` (and `DatasetSpec` for windows)."""
        return self._spec_or(True)

    def cardinality(self) -> torch.Tensor:
        """The number of elements as an int64 scalar: `tf.data.INFINITE_CARDINALITY` (-1) or
        `tf.data.UNKNOWN_CARDINALITY` (-2) when TF's static analysis cannot tell."""
        return torch.tensor(self._cardinality(), dtype=torch.int64)

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self) -> bool:
        return True  # (__len__ would otherwise decide, and may raise)

    def __repr__(self) -> str:
        spec = self._spec_or(False)
        shown = repr(spec) if spec is not None else "<found when element_spec is first read>"
        return f"<_{type(self).__name__} element_spec={shown}>"

    # -- iteration ----------------------------------------------------------------
    def __iter__(self) -> "OwnedIterator":
        return OwnedIterator(self)

    def as_numpy_iterator(self) -> "NumpyIterator":
        """An iterator of NumPy nests (0-d tensors become NumPy scalars, as TF)."""
        for leaf in structure.flatten(self._spec_or(False) or ()):
            if isinstance(leaf, structure.DatasetSpec):
                raise TypeError("Dataset.as_numpy_iterator() is not supported for datasets that "
                                f"produce values of type {type(leaf).__name__}")
        return NumpyIterator(iter(self))

    def reduce(self, initial_state: Any, reduce_func: Callable[[Any, Any], Any]) -> Any:
        """Fold the elements: `state = reduce_func(state, element)` from `initial_state`.

        The new state must keep the initial state's structure and dtypes
        (TF's `TypeError`/`ValueError` otherwise); shapes may change.
        """
        state = structure.normalize(initial_state)
        dtypes_in = [t.dtype for t in structure.flatten(state)]
        for element in self._iterate():
            new = structure.normalize_output(reduce_func(state, element))
            try:
                structure.nest.assert_same_structure(state, new)
            except (ValueError, TypeError) as e:
                raise TypeError(f"The structure of the new state {new!r} does not match the "
                                f"initial state {state!r}.") from e
            dtypes_out = [t.dtype for t in structure.flatten(new)]
            if dtypes_out != dtypes_in:
                expected, got = _dtypes_text(state), _dtypes_text(new)
                raise TypeError("The element types for the new state must match the initial "
                                f"state. Expected {expected} but got {got}.")
            state = new
        return state

    def get_single_element(self) -> Any:
        """The only element; `InvalidArgumentError` if there are none or several."""
        it = self._iterate()
        try:
            element = next(it)
        except StopIteration:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.") from None
        for _ in it:
            raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
        return element

    # -- options ------------------------------------------------------------------
    def options(self) -> options_lib.Options:
        """The options of this dataset and its inputs, merged (a frozen copy)."""
        return options_lib.frozen(self._merged_options())

    def _merged_options(self) -> Optional[options_lib.Options]:
        found = [d._merged_options() for d in self._inputs]
        found = [o for o in found if o is not None]
        if self._own_options is not None:
            found.append(self._own_options)
        if not found:
            return None
        return options_lib.merge_options(*found) if len(found) > 1 else found[0]

    def with_options(self, options: options_lib.Options, name: Optional[str] = None) -> "Dataset":
        """A dataset with `options` merged over its inputs' (later settings win)."""
        if not isinstance(options, options_lib.Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {type(options).__name__}.")
        from .transformations import OptionsDataset
        return OptionsDataset(self, options_lib.merge_options(options), name=name)

    # -- sources (static constructors) ---------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """Slices of `tensors` along their first dimension, one element per row."""
        from .sources import TensorSliceDataset
        return TensorSliceDataset(tensors, name=name)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """One element: `tensors` as a whole."""
        from .sources import TensorDataset
        return TensorDataset(tensors, name=name)

    @staticmethod
    def range(*args: Any, output_type: Any = None, name: Optional[str] = None) -> "Dataset":
        """`range(stop)`, `range(start, stop[, step])` as int64 scalars (or `output_type`)."""
        from .sources import RangeDataset
        return RangeDataset(*args, output_type=output_type, name=name)

    @staticmethod
    def from_generator(generator: Callable[..., Any], output_types: Any = None,
                       output_shapes: Any = None, args: Any = None,
                       output_signature: Any = None, name: Optional[str] = None) -> "Dataset":
        """The elements `generator(*args)` yields, checked against `output_signature`."""
        from .sources import GeneratorDataset
        return GeneratorDataset(generator, output_types, output_shapes, args, output_signature,
                                name=name)

    @staticmethod
    def counter(start: int = 0, step: int = 1, dtype: Any = None,
                name: Optional[str] = None) -> "Dataset":
        """`start, start + step, ...` forever (int64 unless `dtype`)."""
        from .sources import CounterDataset
        return CounterDataset(as_int(start, "start"), as_int(step, "step"), dtype)

    @staticmethod
    def zip(*args: Any, datasets: Any = None, name: Optional[str] = None) -> "Dataset":
        """Elements of several datasets side by side, in their nest; ends with the shortest."""
        from .transformations import ZipDataset
        if datasets is not None and args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else args
        return ZipDataset(datasets, name=name)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: "Dataset",
                             stop_on_empty_dataset: bool = True) -> "Dataset":
        """Elements of `datasets[i]` for each `i` of `choice_dataset` (int64 scalars)."""
        from .selection import ChooseFromDatasets
        return ChooseFromDatasets(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: Optional[int] = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: Optional[bool] = None) -> "Dataset":
        """Elements drawn at random from `datasets` in proportion to `weights`."""
        from .selection import SampleFromDatasets
        return SampleFromDatasets(datasets, weights, seed, stop_on_empty_dataset,
                                  rerandomize_each_iteration)

    @staticmethod
    def from_torch(source: Any, element_spec: Any = None) -> "Dataset":
        """A dataset over a `torch.utils.data` `Dataset` (map-style or iterable) or
        `DataLoader` (tfcompat's bridge; see `torch_bridge.py`)."""
        from .torch_bridge import TorchSourceDataset
        return TorchSourceDataset(source, element_spec)

    def to_torch(self) -> Any:
        """This pipeline as a `torch.utils.data.IterableDataset` (see `torch_bridge.py`)."""
        from .torch_bridge import TorchIterable
        return TorchIterable(self)

    # -- transformations ------------------------------------------------------------
    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a `tf.data.Dataset` object. "
                            f"Got {type(out)}.")
        return out

    def concatenate(self, dataset: "Dataset", name: Optional[str] = None) -> "Dataset":
        from .transformations import ConcatenateDataset
        return ConcatenateDataset(self, dataset, name=name)

    def enumerate(self, start: int = 0, name: Optional[str] = None) -> "Dataset":
        """`(index, element)` pairs, the index an int64 counting from `start`."""
        from .sources import CounterDataset
        from .transformations import ZipDataset
        return ZipDataset((CounterDataset(as_int(start, "start")), self), name=name)

    def repeat(self, count: Any = None, name: Optional[str] = None) -> "Dataset":
        from .transformations import RepeatDataset
        return RepeatDataset(self, count, name=name)

    def take(self, count: Any, name: Optional[str] = None) -> "Dataset":
        from .transformations import TakeDataset
        return TakeDataset(self, count, name=name)

    def skip(self, count: Any, name: Optional[str] = None) -> "Dataset":
        from .transformations import SkipDataset
        return SkipDataset(self, count, name=name)

    def shard(self, num_shards: Any, index: Any, name: Optional[str] = None) -> "Dataset":
        """Every `num_shards`-th element, starting at `index`."""
        from .transformations import ShardDataset
        return ShardDataset(self, num_shards, index, name=name)

    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None,
            deterministic: Any = None, synchronous: Any = None,
            use_unbounded_threadpool: bool = False, name: Optional[str] = None) -> "Dataset":
        """`map_func` applied to each element (tuples spread over its arguments)."""
        from .transformations import MapDataset
        return MapDataset(self, map_func, parallel=num_parallel_calls is not None, name=name)

    def filter(self, predicate: Callable[..., Any], name: Optional[str] = None) -> "Dataset":
        from .transformations import FilterDataset
        return FilterDataset(self, predicate, name=name)

    def scan(self, initial_state: Any, scan_func: Callable[[Any, Any], Any],
             name: Optional[str] = None) -> "Dataset":
        """`(state, out) = scan_func(state, element)` through the elements, yielding each `out`."""
        from .selection import ScanDataset
        return ScanDataset(self, initial_state, scan_func)

    def unique(self, name: Optional[str] = None) -> "Dataset":
        """The first occurrence of each (int32/int64 scalar or vector) element."""
        from .selection import UniqueDataset
        return UniqueDataset(self)

    def group_by_window(self, key_func: Callable[..., Any],
                        reduce_func: Callable[[Any, "Dataset"], "Dataset"], window_size: Any = None,
                        window_size_func: Optional[Callable[[Any], Any]] = None,
                        name: Optional[str] = None) -> "Dataset":
        """Windows of elements with one int64 key, each reduced to a dataset (see grouping.py)."""
        from .grouping import GroupByWindowDataset
        return GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable[..., Any],
                                  bucket_boundaries: Any, bucket_batch_sizes: Any,
                                  padded_shapes: Any = None, padding_values: Any = None,
                                  pad_to_bucket_boundary: bool = False, no_padding: bool = False,
                                  drop_remainder: bool = False,
                                  name: Optional[str] = None) -> "Dataset":
        """Elements batched per length bucket (see grouping.py)."""
        from .grouping import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def take_while(self, predicate: Callable[..., Any], name: Optional[str] = None) -> "Dataset":
        """The elements up to (not including) the first for which `predicate` is false."""
        from .transformations import TakeWhileDataset
        return TakeWhileDataset(self, predicate, name=name)

    def flat_map(self, map_func: Callable[..., "Dataset"], name: Optional[str] = None) -> "Dataset":
        from .transformations import FlatMapDataset
        return FlatMapDataset(self, map_func, name=name)

    def interleave(self, map_func: Callable[..., "Dataset"], cycle_length: Any = None,
                   block_length: Any = None, num_parallel_calls: Any = None,
                   deterministic: Any = None, name: Optional[str] = None) -> "Dataset":
        from .transformations import InterleaveDataset
        return InterleaveDataset(self, map_func, cycle_length, block_length, name=name)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "Dataset":
        from .transformations import CacheDataset
        return CacheDataset(self, filename, name=name)

    def prefetch(self, buffer_size: Any, name: Optional[str] = None) -> "Dataset":
        from .transformations import PrefetchDataset
        return PrefetchDataset(self, buffer_size, name=name)

    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: Optional[str] = None) -> "Dataset":
        from .batching import BatchDataset
        return BatchDataset(self, batch_size, drop_remainder, name=name)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: bool = False, name: Optional[str] = None) -> "Dataset":
        from .batching import PaddedBatchDataset
        return PaddedBatchDataset(self, batch_size, padded_shapes, padding_values,
                                  drop_remainder, name=name)

    def unbatch(self, name: Optional[str] = None) -> "Dataset":
        from .batching import UnbatchDataset
        return UnbatchDataset(self, name=name)

    def window(self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False,
               name: Optional[str] = None) -> "Dataset":
        from .batching import WindowDataset
        return WindowDataset(self, size, shift, stride, drop_remainder, name=name)

    def shuffle(self, buffer_size: Any, seed: Optional[int] = None,
                reshuffle_each_iteration: Optional[bool] = None,
                name: Optional[str] = None) -> "Dataset":
        from .shuffling import ShuffleDataset
        return ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration, name=name)


DatasetV2 = Dataset


def _random_nodes(dataset: "Dataset") -> list:
    """The pipeline's datasets that draw random numbers per iteration (a shuffle, a sampling
    of datasets): those with seeds and an epoch count, each once, in a fixed order."""
    found, seen, stack = [], set(), [dataset]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if hasattr(node, "_seeds") and hasattr(node, "_epochs"):
            found.append(node)
        stack.extend(reversed(node._inputs))
    return found


class OwnedIterator(Trackable):
    """`iter(dataset)`: one pass over the dataset (`tf.data.Iterator`).

    `next()` raises `StopIteration` at the end, `get_next()` TF's
    `OutOfRangeError`; an exhausted iterator stays exhausted.

    As TF's, one iterator may be shared by threads: each element goes to
    exactly one caller (a lock per iterator serializes the pipeline's steps;
    re-entering the same iterator from inside its own pipeline stays Python's
    `ValueError: generator already executing`).

    As TF's, an iterator is trackable: `tf.train.Checkpoint(iterator=it)` saves where it is
    and a restore continues from there (TF's checkpoint guide). tfcompat's state is not TF's
    serialized pipeline: it is the number of elements produced and, per shuffle or sampling
    in the pipeline, its seeds and epoch, under `.ATTRIBUTES/TFCOMPAT_ITERATOR_POSITION`; a
    restore replays the pipeline to that point (it costs the elements skipped; a `map`
    drawing from the global random state is not replayed exactly).
    """

    def __init__(self, dataset: Dataset) -> None:
        self._dataset = dataset
        # (the random nodes' seeds and epochs this pass starts from: what a restore replays)
        self._start = [(node._seeds, node._epochs) for node in _random_nodes(dataset)]
        self._elements = dataset._iterate()
        self._produced = 0
        self._lock = threading.RLock()

    def _next(self) -> Any:
        with self._lock:
            element = next(self._elements)
            self._produced += 1
            return element

    # -- checkpoints (Trackable) -------------------------------------------------------------
    def _serialize_to_tensors(self) -> dict:
        with self._lock:
            state = [self._produced, len(self._start)]
            for seeds, epochs in self._start:
                state += [int(seeds[0]), int(seeds[1]), int(epochs)]
        return {_POSITION_KEY: torch.tensor(state, dtype=torch.int64)}

    def _restore_from_tensors(self, restored_tensors: dict) -> None:
        self._prepare_restore(restored_tensors)()

    def _prepare_restore(self, restored_tensors: dict) -> Callable[[], None]:
        """Replay the pipeline to the saved position, changing nothing yet (a checkpoint's
        restore prepares every such value before it assigns any); the result commits it."""
        state = [int(x) for x in torch.as_tensor(restored_tensors[_POSITION_KEY]).reshape(-1)]
        nodes = _random_nodes(self._dataset)
        if len(state) < 2 or state[1] != len(nodes) or len(state) != 2 + 3 * state[1]:
            raise ValueError(
                "The checkpoint's iterator state is of another pipeline: it has "
                f"{max(len(state) - 2, 0) // 3} shuffles or samplings, this dataset "
                f"{len(nodes)}. Restore into an iterator of the same dataset.")
        produced = state[0]
        start = [((state[2 + 3 * i], state[3 + 3 * i]), state[4 + 3 * i]) for i in range(len(nodes))]
        with self._lock:
            saved = [(node._seeds, node._epochs) for node in nodes]
            try:
                for node, (seeds, epochs) in zip(nodes, start):
                    node._seeds, node._epochs = seeds, epochs
                elements = self._dataset._iterate()
                for _ in range(produced):
                    next(elements)
                after = [(node._seeds, node._epochs) for node in nodes]
            except StopIteration:
                raise ValueError(f"The checkpoint's iterator had produced {produced} elements; "
                                 "this dataset has fewer. Restore into an iterator of the same "
                                 "dataset.") from None
            finally:
                for node, (seeds, epochs) in zip(nodes, saved):
                    node._seeds, node._epochs = seeds, epochs

        def commit() -> None:
            with self._lock:
                # (the nodes' epochs where the replay left them, as in the saved process: the
                # passes this iterator starts later, a repeat's, draw as they would have there)
                for node, (seeds, epochs) in zip(nodes, after):
                    node._seeds, node._epochs = seeds, epochs
                self._elements, self._produced, self._start = elements, produced, start
        return commit

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    def __iter__(self) -> "OwnedIterator":
        return self

    def __next__(self) -> Any:
        return self._next()

    def get_next(self) -> Any:
        try:
            return self._next()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> OptionalValue:
        try:
            element = self._next()
        except StopIteration:
            return OptionalValue(None, False, self._dataset._spec_or(False))
        return OptionalValue(element, True, self._dataset._spec_or(False))


Iterator = OwnedIterator
_POSITION_KEY = "TFCOMPAT_ITERATOR_POSITION"


def _to_numpy(leaf: torch.Tensor) -> Any:
    array = leaf.detach().cpu().numpy()
    return array[()] if array.ndim == 0 else array


class NumpyIterator:
    """`Dataset.as_numpy_iterator()`: each element with its tensors as NumPy values."""

    def __init__(self, iterator: OwnedIterator) -> None:
        self._iterator = iterator

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        element = next(self._iterator)
        return structure.pack(element, [_to_numpy(t) for t in structure.flatten(element)])

    next = __next__


def _dtypes_text(state: Any) -> str:
    """The dtypes of a state as TF prints them (`<dtype: 'int64'>`, nested like the state)."""
    leaves = [str(dtypes.as_dtype(t.dtype)) for t in structure.flatten(state)]
    if not structure.is_structure(state):
        return leaves[0]
    return str(structure.pack(state, leaves)).replace('"', "")


def as_int(value: Any, what: str) -> int:
    """A Python int from an int, NumPy integer or integer scalar tensor argument."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 0 or value.dtype.is_floating_point or value.dtype.is_complex:
            raise TypeError(f"`{what}` must be an integer scalar, got {value!r}.")
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"`{what}` must be an integer scalar, got {value!r}.")
    return int(value)
