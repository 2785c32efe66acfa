"""`tf.keras.callbacks.TensorBoard` (tf_keras 2.21): training logs as TensorBoard event files.

The layout and tags are tf_keras's, written with `tfcompat.summary`:

* `<log_dir>/train`: `epoch_<metric>` each epoch (step = epoch), `epoch_learning_rate`
  when the optimizer follows a `LearningRateSchedule`, `epoch_steps_per_second` when
  `write_steps_per_second`; with an integer `update_freq` (or "batch", meaning 1)
  `batch_<metric>` at each training step whose counter is a multiple of it (step = the
  model's train counter); every `histogram_freq` epochs a histogram of each weight,
  `<weight name with ":" as "_">/histogram` (e.g. `dense/kernel_0/histogram`), and with
  `write_images` its `/image`; with `write_graph` the Keras model's JSON config at step 0
  (tag `keras`, plugin `graph_keras_model`: TensorBoard's conceptual graph);
* `<log_dir>/validation`: `epoch_<metric>` of the validation pass (the `val_` prefix
  dropped) and, after each evaluation, `evaluation_<metric>_vs_iterations` at step
  `optimizer.iterations`.

Not written (accepted for tf_keras's signature, with a one-time warning when asked for):
the op graph of the training function (tfcompat traces no TF graph, as tf_keras writes
none for a model run eagerly: only the Keras config is written), profiler traces
(`profile_batch`), and the projector's embeddings (`embeddings_freq`).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any, Optional

import torch

from ... import summary
from ...framework.tensor_conversion import convert_to_tensor
from ...summary.protos import SummaryMetadata
from ..optimizers.schedules import LearningRateSchedule
from .base import Callback
from .checkpointing import _remove_temp_dirpath, _strategy, _write_dirpath

__all__ = ["TensorBoard", "keras_model_summary"]

_logger = logging.getLogger("tfcompat.keras.callbacks")
_warned: set = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        _logger.warning(message)


def keras_model_summary(name: str, data: Any, step: Any = None) -> Any:
    """Writes a Keras model's JSON config as a summary for TensorBoard's graph dashboard
    (tf_keras's `keras_model_summary`: plugin `graph_keras_model`, content "1"). A model
    that cannot serialize logs a warning and writes nothing (returns False)."""
    metadata = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="graph_keras_model", content=b"1"))
    try:
        json_string = data.to_json()
    except Exception as exc:  # noqa: BLE001 - tf_keras logs and carries on
        _logger.warning("Model failed to serialize as JSON. Ignoring... %s", exc)
        return False
    with summary.experimental.summary_scope(name, "graph_keras_model") as (tag, _):
        return summary.write(tag=tag, tensor=json_string, step=step, metadata=metadata)


class _Counter:
    """The step counter used when the model has none (`_train_counter` / `_test_counter`
    are what tf_keras's `fit` advances): counts the batches this callback sees."""

    def __init__(self) -> None:
        self.value = 0

    def read(self) -> int:
        return self.value


def _read(counter: Any) -> int:
    if isinstance(counter, _Counter):
        return counter.read()
    return int(convert_to_tensor(counter).item())


class TensorBoard(Callback):
    """`tf.keras.callbacks.TensorBoard`: write metrics, weight histograms and images for
    TensorBoard (see the module docstring for the files and tags).

    `update_freq` is "epoch" (epoch-level scalars only), "batch" or an integer `n`
    (also `batch_<metric>` at every `n`-th training step). `profile_batch` is validated
    as tf_keras does (a non-negative int, a pair, or "start,stop") but no profile is
    taken. Unknown keyword arguments are a `ValueError`; tf_keras 1's `write_grads`,
    `batch_size`, `embeddings_layer_names` and `embeddings_data` are accepted with a
    warning and ignored.
    """

    def __init__(self, log_dir: Any = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False,
                 update_freq: Any = "epoch", profile_batch: Any = 0, embeddings_freq: int = 0,
                 embeddings_metadata: Any = None, **kwargs: Any) -> None:
        super().__init__()
        self._supports_tf_logs = True
        self._validate_kwargs(kwargs)
        self.log_dir = os.fspath(log_dir) if isinstance(log_dir, os.PathLike) else log_dir
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._init_profile_batch(profile_batch)
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        self._train_accumulated_time = 0
        self._batch_start_time = 0.0
        self._epoch_start_time = 0.0
        self._writers: dict = {}
        self._prev_summary_state: list = []

    def _validate_kwargs(self, kwargs: dict) -> None:
        ignored = {
            "write_grads": "`write_grads` will be ignored in TensorFlow 2.0 for the "
                           "`TensorBoard` Callback.",
            "batch_size": "`batch_size` is no longer needed in the `TensorBoard` Callback "
                          "and will be ignored in TensorFlow 2.0.",
            "embeddings_layer_names": "`embeddings_layer_names` is not supported in "
                                      "TensorFlow 2.0. Instead, all `Embedding` layers will "
                                      "be visualized.",
            "embeddings_data": "`embeddings_data` is not supported in TensorFlow 2.0. "
                               "Instead, all `Embedding` variables will be visualized.",
        }
        for key, message in ignored.items():
            if kwargs.get(key, False):
                _logger.warning(message)
        unrecognized = set(kwargs) - set(ignored)
        if unrecognized:
            raise ValueError(f"Unrecognized arguments in `TensorBoard` Callback: {unrecognized}. "
                             f"Supported kwargs are: {set(ignored)}")

    def _init_profile_batch(self, profile_batch: Any) -> None:
        message = ("profile_batch must be a non-negative integer or 2-tuple of positive "
                   "integers. A pair of positive integers signifies a range of batches to "
                   f"profile. Found: {profile_batch}")
        if isinstance(profile_batch, str):
            parts = profile_batch.split(",")
            profile_batch = [int(p) for p in parts]
            if len(profile_batch) == 1:
                profile_batch = profile_batch[0]
        if isinstance(profile_batch, int):
            self._start_batch = self._stop_batch = profile_batch
        elif isinstance(profile_batch, (tuple, list)) and len(profile_batch) == 2:
            self._start_batch, self._stop_batch = profile_batch
        else:
            raise ValueError(message)
        if self._start_batch < 0 or self._stop_batch < self._start_batch:
            raise ValueError(message)
        self._profiler_started = False
        self._is_tracing = False
        self._should_trace = not (self._start_batch == 0 and self._stop_batch == 0)
        if self._should_trace:
            _warn_once("profile_batch",
                       "TensorBoard: profile_batch asks for a profiler trace, which tfcompat does "
                       "not take (there is no TF profiler); no trace is written. Use "
                       "torch.profiler around fit() to profile.")

    # -- writers -------------------------------------------------------------------------
    def set_model(self, model: Any) -> None:
        """Sets the model, the `train`/`validation` directories, and writes the Keras
        model config when `write_graph`."""
        self.model = model
        self._log_write_dir = _write_dirpath(self.log_dir, _strategy(model))
        self._train_dir = os.path.join(self._log_write_dir, "train")
        self._train_step = getattr(model, "_train_counter", None)
        self._own_train_step = self._train_step is None
        if self._own_train_step:
            self._train_step = _Counter()
        self._val_dir = os.path.join(self._log_write_dir, "validation")
        self._val_step = getattr(model, "_test_counter", None)
        if self._val_step is None:
            self._val_step = _Counter()
        self._writers = {}
        if self.write_graph:
            self._write_keras_model_summary()
        if self.embeddings_freq:
            _warn_once("embeddings",
                       "TensorBoard: embeddings_freq asks for the projector's embeddings, "
                       "which tfcompat does not write (no projector config, no embedding "
                       "checkpoints).")

    @property
    def _train_writer(self) -> Any:
        if "train" not in self._writers:
            self._writers["train"] = summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self) -> Any:
        if "val" not in self._writers:
            self._writers["val"] = summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _write_keras_model_summary(self) -> None:
        with self._train_writer.as_default(), summary.record_if(True):
            if (getattr(self.model, "_is_graph_network", False)
                    or type(self.model).__name__ == "Sequential"):
                keras_model_summary("keras", self.model, step=0)

    def _push_writer(self, writer: Any, step: Any) -> None:
        """Makes `writer` the default for summaries written during the loop (by the model
        or by this callback), recording at every `update_freq`-th step."""
        if self.update_freq == "epoch":
            return
        freq = self.update_freq
        context = (writer.as_default(_read(step)),
                   summary.record_if(lambda: _read(step) % freq == 0))
        self._prev_summary_state.append(context)
        context[0].__enter__()
        context[1].__enter__()

    def _pop_writer(self) -> None:
        if self.update_freq == "epoch":
            return
        previous = self._prev_summary_state.pop()
        previous[1].__exit__(*sys.exc_info())
        previous[0].__exit__(*sys.exc_info())

    def _close_writers(self) -> None:
        for writer in self._writers.values():
            writer.close()

    # -- hooks ---------------------------------------------------------------------------
    def _implements_train_batch_hooks(self) -> bool:
        # tf_keras's CallbackList calls every callback's batch hooks when any callback has
        # them (the progress bar does, at verbose=1), and its TensorBoard writes
        # `batch_<metric>` there; tfcompat's list calls only the callbacks that declare them,
        # so this one declares them whenever it writes per batch.
        return bool(self._should_trace or self.write_steps_per_second
                    or self.update_freq != "epoch")

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0
        if self._own_train_step:
            self._train_step.value = 0
        self._push_writer(self._train_writer, self._train_step)

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        self._pop_writer()
        self._close_writers()
        _remove_temp_dirpath(self.log_dir, _strategy(self.model))

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        self._push_writer(self._val_writer, self._val_step)

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            with summary.record_if(True), self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    summary.scalar("evaluation_" + name + "_vs_iterations", value,
                                   step=_read(optimizer.iterations))
        self._pop_writer()

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self._own_train_step:
            self._train_step.value += 1
        step = _read(self._train_step)
        if self.write_steps_per_second:
            batch_run_time = time.time() - self._batch_start_time
            summary.scalar("batch_steps_per_second", 1.0 / max(batch_run_time, 1e-12),
                           step=step)
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar("batch_" + name, value, step=step)

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.write_steps_per_second:
            self._previous_epoch_iterations = self._iterations()
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """Writes the epoch's scalars, and the weight histograms every `histogram_freq`
        epochs."""
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # -- what is written -----------------------------------------------------------------
    def _iterations(self) -> int:
        optimizer = getattr(self.model, "optimizer", None)
        iterations = getattr(optimizer, "iterations", None)
        return 0 if iterations is None else _read(iterations)

    def _collect_learning_rate(self, logs: dict) -> dict:
        optimizer = getattr(self.model, "optimizer", None)
        schedule = getattr(optimizer, "_learning_rate", None)
        if not isinstance(schedule, LearningRateSchedule):
            schedule = getattr(optimizer, "lr", None)
        if isinstance(schedule, LearningRateSchedule):
            logs["learning_rate"] = schedule(optimizer.iterations)
        return logs

    def _compute_steps_per_second(self) -> float:
        elapsed = max(time.time() - self._epoch_start_time, 1e-12)
        return (self._iterations() - self._previous_epoch_iterations) / elapsed

    def _log_epoch_metrics(self, epoch: int, logs: Optional[dict]) -> None:
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k: v for k, v in logs.items() if k.startswith("val_")}
        train_logs = self._collect_learning_rate(train_logs)
        if self.write_steps_per_second:
            train_logs["steps_per_second"] = self._compute_steps_per_second()
        with summary.record_if(True):
            if train_logs:
                with self._train_writer.as_default():
                    for name, value in train_logs.items():
                        summary.scalar("epoch_" + name, value, step=epoch)
            if val_logs:
                with self._val_writer.as_default():
                    for name, value in val_logs.items():
                        summary.scalar("epoch_" + name[4:], value, step=epoch)

    def _log_weights(self, epoch: int) -> None:
        with self._train_writer.as_default(), summary.record_if(True):
            for layer in self.model.layers:
                for weight in layer.weights:
                    weight_name = weight.name.replace(":", "_")
                    summary.histogram(weight_name + "/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, weight_name + "/image", epoch)
            self._train_writer.flush()

    def _log_weight_as_image(self, weight: Any, name: str, epoch: int) -> None:
        """A weight as an image, as tf_keras lays it out: a bias as one row, a Dense kernel
        wide side horizontal, a conv kernel as one image per output channel."""
        from .. import backend

        w_img = torch.squeeze(convert_to_tensor(weight))
        shape = tuple(w_img.shape)
        if len(shape) == 1:
            w_img = w_img.reshape(1, shape[0], 1, 1)
        elif len(shape) == 2:
            if shape[0] > shape[1]:
                w_img = w_img.t()
                shape = tuple(w_img.shape)
            w_img = w_img.reshape(1, shape[0], shape[1], 1)
        elif len(shape) == 3:
            if backend.image_data_format() == "channels_last":
                w_img = w_img.permute(2, 0, 1)
                shape = tuple(w_img.shape)
            w_img = w_img.reshape(shape[0], shape[1], shape[2], 1)
        shape = tuple(w_img.shape)
        if len(shape) == 4 and shape[-1] in (1, 3, 4):
            summary.image(name, w_img, step=epoch)
