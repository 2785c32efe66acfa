"""Datasets that pick elements from several inputs, or fold state through one:
`choose_from_datasets`, `sample_from_datasets`, `scan`, `unique`."""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional

import torch

from ..framework import errors
from ..framework.function import TensorSpec
from . import structure
from .dataset_ops import INFINITE, UNKNOWN, Dataset, first_elements
from .shuffling import epoch_rng, seeds_for

__all__ = ["ChooseFromDatasets", "SampleFromDatasets", "ScanDataset", "UniqueDataset"]


def _common_spec(datasets: List[Dataset], sample: bool) -> Any:
    specs = [d._spec_or(sample) for d in datasets]
    if any(s is None for s in specs):
        return None
    spec = specs[0]
    for other in specs[1:]:
        spec = structure.most_specific_compatible(spec, other)
    return spec


def _check_datasets(datasets: Any) -> List[Dataset]:
    datasets = list(datasets)
    if not datasets or not all(isinstance(d, Dataset) for d in datasets):
        raise TypeError("Invalid `datasets`. `datasets` should be a non-empty list of "
                        "`tf.data.Dataset` objects.")
    return datasets


class ChooseFromDatasets(Dataset):
    """`Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True)`.

    Each int64 scalar of `choice_dataset` names the input whose next element
    comes next. An exhausted input ends everything (`stop_on_empty_dataset`)
    or is skipped from then on; an index out of range is TF's
    `InvalidArgumentError`.
    """

    def __init__(self, datasets: Any, choice_dataset: Dataset,
                 stop_on_empty_dataset: bool = True) -> None:
        datasets = _check_datasets(datasets)
        choice_spec = choice_dataset._spec_or(False) if isinstance(choice_dataset, Dataset) else 0
        if not (isinstance(choice_spec, TensorSpec) and choice_spec.shape.rank == 0
                and choice_spec.dtype.name == "int64"):
            raise TypeError("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                            f"`tf.int64` tensors but are {choice_spec!r}.")
        super().__init__(tuple(datasets) + (choice_dataset,))
        self._count = len(datasets)
        self._stop = bool(stop_on_empty_dataset)
        _common_spec(datasets, False)  # incompatible inputs: TF's TypeError, now

    def _iterate(self) -> Iterator[Any]:
        iterators: List[Optional[Iterator[Any]]] = [d._iterate()
                                                    for d in self._inputs[:self._count]]
        for choice in self._inputs[self._count]._iterate():
            i = int(choice)
            if not 0 <= i < self._count:
                raise errors.InvalidArgumentError(
                    None, None, f"Selector index out of range: {i} >= {self._count}")
            if iterators[i] is None:
                continue
            try:
                yield next(iterators[i])
            except StopIteration:
                if self._stop:
                    return
                iterators[i] = None

    def _derive_spec(self, sample: bool) -> Any:
        return _common_spec(list(self._inputs[:self._count]), sample)

    def _cardinality(self) -> int:
        return UNKNOWN


class SampleFromDatasets(Dataset):
    """`Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)`.

    Each element comes from input `i` with probability proportional to
    `weights[i]` (uniform by default) among the inputs not yet exhausted;
    with `stop_on_empty_dataset` the first exhausted input ends the dataset.
    Seeds follow `shuffle`'s rules (tfcompat's stream, not TF's); every
    iteration draws a new sequence unless `rerandomize_each_iteration=False`.
    """

    def __init__(self, datasets: Any, weights: Any = None, seed: Optional[int] = None,
                 stop_on_empty_dataset: bool = False,
                 rerandomize_each_iteration: Optional[bool] = None) -> None:
        datasets = _check_datasets(datasets)
        super().__init__(tuple(datasets))
        if weights is None:
            weights = [1.0] * len(datasets)
        w = [float(x) for x in (weights.tolist() if isinstance(weights, torch.Tensor)
                                else weights)]
        if len(w) != len(datasets) or any(x < 0 for x in w) or sum(w) <= 0:
            raise ValueError(f"Invalid `weights`: {len(datasets)} non-negative weights with a "
                             f"positive sum are needed, got {weights!r}.")
        self._weights = w
        self._stop = bool(stop_on_empty_dataset)
        self._seeds = seeds_for(seed)
        self._rerandomize = rerandomize_each_iteration is not False
        self._epochs = 0
        _common_spec(datasets, False)

    def _iterate(self) -> Iterator[Any]:
        rng = epoch_rng(self, self._seeds, self._rerandomize)
        live = [(d._iterate(), w) for d, w in zip(self._inputs, self._weights) if w > 0]
        while live:
            i = rng.choices(range(len(live)), weights=[w for _, w in live])[0]
            try:
                yield next(live[i][0])
            except StopIteration:
                if self._stop:
                    return
                del live[i]

    def _derive_spec(self, sample: bool) -> Any:
        return _common_spec(list(self._inputs), sample)

    def _cardinality(self) -> int:
        counts = [d._cardinality() for d, w in zip(self._inputs, self._weights) if w > 0]
        # Without stop_on_empty_dataset one endless input keeps the sample going forever.
        endless = all if self._stop else any
        return INFINITE if endless(n == INFINITE for n in counts) else UNKNOWN


class ScanDataset(Dataset):
    """`scan(initial_state, scan_func)`: `(state, out) = scan_func(state, element)`, yielding
    each `out`; the state keeps its structure and dtypes (TF's `TypeError` otherwise)."""

    def __init__(self, input_dataset: Dataset, initial_state: Any,
                 scan_func: Callable[[Any, Any], Any]) -> None:
        super().__init__((input_dataset,))
        self._initial = structure.normalize(initial_state)
        self._fn = scan_func

    def _step(self, state: Any, element: Any) -> tuple:
        result = structure.normalize_output(self._fn(state, element))
        if not (isinstance(result, tuple) and len(result) == 2):
            raise TypeError("The scan function must return a pair (new_state, output_element), "
                            f"got {result!r}.")
        new_state, out = result
        before = [t.dtype for t in structure.flatten(state)]
        after = [t.dtype for t in structure.flatten(new_state)]
        if before != after:
            raise TypeError("The element types for the new state must match the initial state. "
                            f"Expected {before} but got {after}.")
        return new_state, out

    def _iterate(self) -> Iterator[Any]:
        state = self._initial
        for element in self._inputs[0]._iterate():
            state, out = self._step(state, element)
            yield out

    def _derive_spec(self, sample: bool) -> Any:
        if not sample:
            return None
        outputs = []
        state = self._initial
        for element in first_elements(self._inputs[0], 2):
            state, out = self._step(state, element)
            outputs.append(structure.spec_of(out))
        if not outputs:
            raise TypeError("Cannot find the element_spec of a scan over an empty dataset.")
        spec = outputs[0]
        for other in outputs[1:]:
            spec = structure.most_specific_compatible(spec, other)
        return spec


class UniqueDataset(Dataset):
    """`unique()`: the first occurrence of each element (int32/int64 scalars or vectors, as
    TF allows)."""

    def __init__(self, input_dataset: Dataset) -> None:
        super().__init__((input_dataset,))
        spec = input_dataset._spec_or(False)
        if spec is not None and not (isinstance(spec, TensorSpec) and spec.dtype.name in (
                "int32", "int64") and spec.shape.rank in (0, 1, None)):
            raise TypeError("Invalid `dataset`. `unique` only supports datasets of int32 or int64 "
                            f"scalar or vector tensors, got {spec!r}.")

    def _iterate(self) -> Iterator[Any]:
        seen = set()
        for element in self._inputs[0]._iterate():
            key = tuple(element.reshape(-1).tolist())
            if key not in seen:
                seen.add(key)
                yield element

    def _cardinality(self) -> int:
        return UNKNOWN
