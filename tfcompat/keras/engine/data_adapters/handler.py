"""`DataHandler`: the epochs and steps `Model.fit`, `evaluate` and `predict` iterate.

As tf_keras's, it picks the adapter for the input kind, applies `class_weight`, infers the
steps per epoch and hands out one iterator per epoch (or one for all epochs, as the
adapter says). The loop it serves reads (tf_keras's `Model.fit`)::

    handler = get_data_handler(x=x, y=y, batch_size=32, epochs=3, model=model)
    for epoch, iterator in handler.enumerate_epochs():
        with handler.catch_stop_iteration():
            for step in handler.steps():
                for _ in range(handler.step_increment + 1):  # one execution
                    batch = next(iterator)  # x, (x,), (x, y) or (x, y, sample_weight)
                    ...

Under a non-default `tf.distribute` strategy the batches are the strategy's
`experimental_distribute_dataset` of them (`PerReplica` leaves, each on its replica's
device). Otherwise tensors go to the current device (`tf.device`, GPU:0 when there is
one), a batch at a time when they are elsewhere (as TF feeds its host datasets); on the
CPU nothing is copied. There is no asynchronous execution to wait for, so `sync()` does
nothing.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Iterator, Optional, Tuple

import numpy as np
import torch

from ....distribute import distribute_lib
from ....framework import device as device_lib
from ....framework import errors, nest
from ....framework.optional import OptionalValue
from .array_adapters import (INFINITE, GenericArrayLikeDataAdapter, ListsOfScalarsDataAdapter,
                             TensorLikeDataAdapter)
from .class_weights import make_class_weight_map_fn
from .packing import (check_data_cardinality, check_non_negative, check_positive,
                      process_tensorlike, type_name)
from .stream_adapters import (DataLoaderAdapter, DatasetAdapter, GeneratorDataAdapter,
                              KerasSequenceAdapter, cardinality_of, is_distributed_dataset)

__all__ = ["DataHandler", "get_data_handler", "single_batch_iterator", "select_data_adapter",
           "ALL_ADAPTER_CLS", "DataIterator"]

_log = logging.getLogger("tensorflow")

ALL_ADAPTER_CLS = [
    ListsOfScalarsDataAdapter,
    TensorLikeDataAdapter,
    GenericArrayLikeDataAdapter,
    DatasetAdapter,
    GeneratorDataAdapter,
    KerasSequenceAdapter,
    DataLoaderAdapter,
]


def select_data_adapter(x: Any, y: Any) -> type:
    """The adapter class for `x` and `y` (tf_keras's `ValueError` when none takes them)."""
    adapter_cls = [cls for cls in ALL_ADAPTER_CLS if cls.can_handle(x, y)]
    if not adapter_cls:
        hint = ""
        if isinstance(x, torch.utils.data.Dataset):
            hint = (" A torch Dataset yields examples, not batches: pass "
                    "torch.utils.data.DataLoader(dataset, batch_size=...) instead.")
        raise ValueError("Failed to find data adapter that can handle input: {}, {}".format(
            type_name(x), type_name(y)) + hint)
    if len(adapter_cls) > 1:
        raise RuntimeError(
            "Data adapters should be mutually exclusive for handling inputs. Found multiple "
            f"adapters {adapter_cls} to handle input: {type_name(x)}, {type_name(y)}")
    return adapter_cls[0]


class _Mapped:
    """A batch source with `fn` applied to each batch (tf.data's `map`), same cardinality."""

    def __init__(self, source: Any, fn: Any) -> None:
        self._source, self._fn = source, fn

    def cardinality(self) -> int:
        return cardinality_of(self._source)

    def __iter__(self) -> Iterator[Any]:
        fn = self._fn
        for batch in self._source:
            yield fn(batch)


def _to_device(device: torch.device) -> Any:
    def move(t: Any) -> Any:
        if isinstance(t, torch.Tensor) and t.device != device:
            return t.to(device, non_blocking=True)
        return t
    return move


class _OnDevice:
    """A batch source whose tensors are moved to `device` (pinned host memory copies
    asynchronously; pageable memory is staged by torch)."""

    def __init__(self, source: Any, device: torch.device) -> None:
        self._source, self._move = source, _to_device(device)

    def cardinality(self) -> int:
        return cardinality_of(self._source)

    def __iter__(self) -> Iterator[Any]:
        move = self._move
        for batch in self._source:
            yield nest.map_structure(move, batch)


class DataIterator:
    """An epoch's iterator (`tf.data.Iterator`'s eager API): `next()` raises
    `StopIteration` at the end, `get_next()` TF's `OutOfRangeError`."""

    def __init__(self, source: Any) -> None:
        self._it = iter(source)

    def __iter__(self) -> "DataIterator":
        return self

    def __next__(self) -> Any:
        return next(self._it)

    def get_next(self) -> Any:
        """The next batch; TF's `OutOfRangeError` when there is none."""
        try:
            return next(self._it)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def get_next_as_optional(self) -> OptionalValue:
        """The next batch as an optional, empty at the end."""
        try:
            return OptionalValue(next(self._it), True)
        except StopIteration:
            return OptionalValue()


class _StepsPerExecution:
    """A plain holder for an int `steps_per_execution` (tf_keras keeps a `tf.Variable`)."""

    def __init__(self, value: int) -> None:
        self._value = int(value)

    def numpy(self) -> np.int64:
        return np.int64(self._value)

    def assign(self, value: Any) -> None:
        self._value = int(value)


def _int_value(value: Any) -> int:
    read = getattr(value, "numpy", None)
    return int(read()) if read is not None else int(value)


class _StopIterationGuard:
    """`catch_stop_iteration()`: an exhausted iterator ends the epoch (see `DataHandler`)."""

    def __init__(self, handler: "DataHandler") -> None:
        self._handler = handler

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, value: Any, traceback: Any) -> bool:
        if kind is None:
            self._handler.sync()
            return False
        if not issubclass(kind, (StopIteration, errors.OutOfRangeError)):
            return False
        handler = self._handler
        if handler._inferred_steps is None:
            handler._inferred_steps = handler._current_step
        else:
            handler._insufficient_data = True
            total_epochs = handler._epochs - handler._initial_epoch
            _log.warning(
                "Your input ran out of data; interrupting training. Make sure that your dataset "
                "or generator can generate at least `steps_per_epoch * epochs` batches (in "
                "this case, %d batches). You may need to use the repeat() function when "
                "building your dataset.", total_epochs * handler._inferred_steps)
        return True


class DataHandler:
    """tf_keras's `DataHandler`: epoch-level iterators over any input `Model.fit` takes.

    Arguments are `Model.fit`'s (`steps_per_epoch` is `steps` for `evaluate` /
    `predict`). `steps_per_execution` is `compile`'s: an int, or a variable (anything with
    `numpy()` and `assign`), which is capped at an epoch's steps while the epochs run and
    set to the steps left for an epoch's last short execution, then restored, as tf_keras.
    With an int those changes stay in the handler: an execution runs `step_increment + 1`
    steps either way.
    `batch_size` applies to in-memory data only (ignored for datasets, generators,
    sequences and loaders, as in tf_keras); `shuffle` to arrays (`True` or `"batch"`) and
    sequences; `class_weight` maps labels to sample weights (`class_weights.py`).
    `pss_evaluation_shards` (parameter-server exact evaluation) is accepted and unused.

    Errors are tf_keras's: non-positive `batch_size`, `epochs`, `workers`,
    `max_queue_size`, `steps_per_execution`, a negative `initial_epoch`, a
    `steps_per_epoch` that is not positive, None or -1 (run forever); an input no adapter
    takes; an empty input; `steps_per_execution > 1` with data of unknown size and no steps.
    """

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None,
                 batch_size: Optional[int] = None, steps_per_epoch: Optional[int] = None,
                 initial_epoch: int = 0, epochs: int = 1, shuffle: Any = False,
                 class_weight: Optional[dict] = None, max_queue_size: int = 10,
                 workers: int = 1, use_multiprocessing: bool = False, model: Any = None,
                 steps_per_execution: Any = None, distribute: bool = True,
                 pss_evaluation_shards: int = 0) -> None:
        if batch_size is not None:
            check_positive("batch_size", batch_size)
        if steps_per_epoch not in (None, -1) and steps_per_epoch <= 0:
            raise ValueError(
                f"steps_per_epoch must be positive, None or -1. Received {steps_per_epoch}. "
                "See `Model.fit`.")
        self._initial_epoch = check_non_negative("initial_epoch", initial_epoch)
        check_positive("max_queue_size", max_queue_size)
        check_positive("workers", workers)
        if steps_per_execution is not None:
            check_positive("steps_per_execution", _int_value(steps_per_execution))

        self._initial_step = 0
        self._epochs = check_positive("epochs", epochs)
        self._insufficient_data = False
        self._model = model
        self._steps_per_epoch = steps_per_epoch
        if steps_per_execution is None or not hasattr(steps_per_execution, "assign"):
            steps_per_execution = _StepsPerExecution(
                1 if steps_per_execution is None else _int_value(steps_per_execution))
        self._steps_per_execution = steps_per_execution
        # Read once (and once per epoch), not per step: a variable read on an accelerator
        # waits for the device.
        self._spe_value = _int_value(steps_per_execution)

        adapter_cls = select_data_adapter(x, y)
        self._adapter = adapter_cls(
            x, y, batch_size=batch_size, steps=steps_per_epoch, epochs=epochs - initial_epoch,
            sample_weights=sample_weight, shuffle=shuffle, max_queue_size=max_queue_size,
            workers=workers, use_multiprocessing=use_multiprocessing,
            distribution_strategy=distribute_lib.get_strategy(), model=model,
            pss_evaluation_shards=pss_evaluation_shards)

        self._current_step = 0
        self._step_increment = self._spe_value - 1
        self._configure_dataset_and_inferred_steps(x, steps_per_epoch, class_weight, distribute)
        if self._inferred_steps == 0:
            raise ValueError("Expected input data to be non-empty.")

    # -- set-up -------------------------------------------------------------------------

    def _configure_dataset_and_inferred_steps(self, x: Any, steps_per_epoch: Optional[int],
                                              class_weight: Optional[dict],
                                              distribute: bool) -> None:
        source = self._adapter.get_dataset()
        self._user_distributed = is_distributed_dataset(source)
        if class_weight:
            if self._user_distributed:
                raise ValueError("`class_weight` is not supported with a distributed dataset: "
                                 "put the sample weights in its batches.")
            source = _Mapped(source, make_class_weight_map_fn(class_weight))
        self._source = source
        self._inferred_steps = self._infer_steps(steps_per_epoch, source)
        if self._user_distributed:
            dataset = source
        elif distribute and distribute_lib.has_strategy():
            dataset = distribute_lib.get_strategy().experimental_distribute_dataset(source)
        else:
            device = device_lib.current_torch_device()
            dataset = source if device.type == "cpu" else _OnDevice(source, device)
        self._dataset = dataset
        self._validate_data_handler()

    def _log_indefinite_training_warning(self) -> None:
        _log.warning(
            "The training loop will run indefinitely since you have set `steps_per_epoch=-1`. "
            "Please use batch-level callbacks to save checkpoints or log training progress, etc")

    def _infer_steps(self, steps: Optional[int], source: Any) -> Optional[int]:
        """tf_keras's rule: the given steps, else the adapter's size, else the dataset's
        cardinality when known (an infinite one needs steps); `steps=-1` is None (forever)."""
        if steps == -1:
            self._log_indefinite_training_warning()
            return None
        if steps is not None:
            return steps
        adapter_steps = self._adapter.get_size()
        if adapter_steps is not None:
            return adapter_steps
        if self._user_distributed:
            return None
        size = cardinality_of(source)
        if size == INFINITE and steps is None:
            raise ValueError(
                "When passing an infinitely repeating dataset, please specify a "
                "`steps_per_epoch` value so that epoch level callbacks continue to work. The "
                "value can be arbitrary, or a number that you think correctly defines the size "
                "of an epoch. Epoch-level callbacks will then be called at this interval.")
        return size if size >= 0 else None

    def _validate_data_handler(self) -> None:
        if self._spe_value > 1 and self._inferred_steps is None:
            raise ValueError(
                "Could not infer the size of the data. With `steps_per_execution > 1`, you "
                "must specify the number of steps to run.")

    def _assign_steps_per_execution(self, value: int) -> None:
        self._spe_value = int(value)
        self._steps_per_execution.assign(int(value))

    # -- iteration ----------------------------------------------------------------------

    def _iterator(self) -> Any:
        if is_distributed_dataset(self._dataset):
            return iter(self._dataset)  # a DistributedIterator
        return DataIterator(self._dataset)

    def enumerate_epochs(self) -> Iterator[Tuple[int, Any]]:
        """Yields `(epoch, iterator)` for `epoch` in `range(initial_epoch, epochs)`.

        A new iterator each epoch when the adapter says so (the steps re-inferred), else
        the same one continues. Stops early once an epoch ran out of data that should have
        had more (`catch_stop_iteration`). The adapter's `on_epoch_end` runs when the
        caller asks for the next epoch.
        """
        with self._truncate_execution_to_epoch():
            data_iterator = self._iterator()
            for epoch in range(self._initial_epoch, self._epochs):
                if self._insufficient_data:  # set by `catch_stop_iteration`
                    break
                if self._adapter.should_recreate_iterator():
                    data_iterator = self._iterator()
                    if not self._user_distributed:
                        steps = self._infer_steps(self._steps_per_epoch, self._source)
                        if steps is not None:
                            self._inferred_steps = steps
                yield epoch, data_iterator
                self._adapter.on_epoch_end()

    @contextlib.contextmanager
    def _truncate_execution_to_epoch(self) -> Iterator[None]:
        """Caps `steps_per_execution` at one epoch's steps while the epochs run."""
        original = _int_value(self._steps_per_execution)
        self._spe_value = original
        should_truncate = self._inferred_steps is not None and original > self._inferred_steps
        try:
            if should_truncate:
                self._assign_steps_per_execution(self._inferred_steps)
            yield
        finally:
            if should_truncate:
                self._assign_steps_per_execution(original)

    def sync(self) -> None:
        """Wait for pending steps: nothing is asynchronous here, so this returns at once."""

    def catch_stop_iteration(self) -> Any:
        """A context manager around an epoch's steps: an exhausted iterator
        (`StopIteration` or `OutOfRangeError`) ends the epoch. When the size was unknown,
        the steps run become `inferred_steps`; when it was known (say `steps_per_epoch`
        outlasted the data), tf_keras's "Your input ran out of data" warning is logged
        (logger `tensorflow`) and `enumerate_epochs` stops."""
        return _StopIterationGuard(self)

    def steps(self) -> Iterator[int]:
        """Yields the step indices of the current epoch.

        `0 .. inferred_steps - 1` in strides of `steps_per_execution` (until the data runs
        out when the size is unknown); `step_increment` is the stride less one. A last
        execution with fewer steps left sets `steps_per_execution` to them for that step
        and restores it after. The first epoch starts at `_initial_step` (fit sets it when
        resuming from a checkpoint).
        """
        self._current_step = self._initial_step
        self._initial_step = 0
        while self._inferred_steps is None or self._current_step < self._inferred_steps:
            if self._insufficient_data:  # set by `catch_stop_iteration`
                break
            original_spe = self._spe_value
            can_run_full_execution = (
                original_spe == 1 or self._inferred_steps is None
                or self._inferred_steps - self._current_step >= original_spe)
            if can_run_full_execution:
                self._step_increment = original_spe - 1
                yield self._current_step
                self._current_step += original_spe
            else:
                steps_remaining = self._inferred_steps - self._current_step
                self._assign_steps_per_execution(steps_remaining)
                self._step_increment = steps_remaining - 1
                yield self._current_step
                self._current_step += steps_remaining
                self._assign_steps_per_execution(original_spe)

    @property
    def step_increment(self) -> int:
        """How far the step count advances per execution, less one (for `on_batch_end`)."""
        return self._step_increment

    @property
    def inferred_steps(self) -> Optional[int]:
        """The steps per epoch: None while the size is unknown (a dataset or generator of
        unknown size without `steps_per_epoch`, before its first epoch ends) or with
        `steps_per_epoch=-1`."""
        return self._inferred_steps

    @property
    def should_sync(self) -> bool:
        """tf_keras's: whether the loop must wait on each step to see the data end (an
        unknown size). Waiting costs nothing here."""
        return self._inferred_steps is None

    @property
    def _samples(self) -> Optional[int]:
        return self._adapter.get_samples()


def get_data_handler(*args: Any, **kwargs: Any) -> DataHandler:
    """`tf.keras.__internal__.utils.get_data_handler`: a `DataHandler` for these arguments
    (tf_keras's cluster-coordinator handlers have no counterpart: no parameter servers)."""
    model = kwargs.get("model")
    if getattr(model, "_cluster_coordinator", None):
        raise NotImplementedError(
            "Model.fit with a ClusterCoordinator (ParameterServerStrategy) is not supported "
            "by tfcompat.")
    return DataHandler(*args, **kwargs)


def single_batch_iterator(strategy: Any, x: Any, y: Any = None, sample_weight: Any = None,
                          class_weight: Optional[dict] = None) -> Any:
    """An iterator over the one batch `(x,)`, `(x, y)` or `(x, y, sample_weight)`, for
    `train_on_batch`, `test_on_batch` and `predict_on_batch` (tf_keras's).

    Inputs are converted as for `fit` (NumPy floats to `floatx()`, lists to tuples); the
    leaves' first dimensions must agree ("Data cardinality is ambiguous"); `class_weight`
    applies as in `fit`. Under a non-default `strategy` the batch is distributed by
    `strategy.experimental_distribute_dataset`; otherwise it goes to the current device.
    """
    x, y, sample_weight = process_tensorlike((x, y, sample_weight))
    if y is None:
        data: Any = (x,)
    elif sample_weight is None:
        data = (x, y)
    else:
        data = (x, y, sample_weight)
    check_data_cardinality(data)
    if class_weight:
        data = make_class_weight_map_fn(class_weight)(data)
    default = strategy is None or (strategy is distribute_lib.get_strategy()
                                   and not distribute_lib.has_strategy())
    if not default:
        return iter(strategy.experimental_distribute_dataset([data]))
    device = device_lib.current_torch_device()
    if device.type != "cpu":
        data = nest.map_structure(_to_device(device), data)
    return DataIterator([data])
