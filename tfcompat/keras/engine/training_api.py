"""`Model.compile`, `fit`, `evaluate`, `predict` and the `*_on_batch` calls (tf_keras 2.x
`engine/training.py`), as a base class of `Model`.

The loop is tf_keras's: a `DataHandler` (`data_adapter.py`) yields epochs and steps, a
`CallbackList` (`callbacks/`) sees every hook with tf_keras's `logs`, and each step runs
`train_step(data)` -- overridable exactly as TF's "customizing what happens in fit" guide does
(`self.compiled_loss`, `self.compiled_metrics`, `self.optimizer.minimize(..., tape=tape)`) --
through the model's distribution strategy (`strategy.run`). Everything runs eagerly on torch:
`run_eagerly` is accepted and changes nothing; a step's logs stay tensors (no host read per
batch) until a callback or the progress bar asks for a value, and an epoch's are read once.

The `trainable` state of every layer at `compile` time is what `fit` trains (tf_keras's
`RespectCompiledTrainableState`): change `trainable` after `compile`, then compile again.
"""

from __future__ import annotations

import copy
import warnings
import weakref
from typing import Any, Dict, Iterator, List, Optional

import numpy as np
import torch

from ...autodiff.tape import GradientTape
from ...distribute import distribute_lib
from ...framework import nest
from .. import optimizers as optimizers_mod
from ..callbacks.base import sync_to_numpy_or_python_type
from . import base_layer, compile_utils

__all__ = ["TrainingAPI", "flatten_metrics_in_order", "sync_to_numpy_or_python_type"]


def _callbacks_module() -> Any:
    from ..callbacks import base
    return base


class _DataAdapter:
    """`data_adapter`, imported on first use (it imports the input pipelines)."""

    def __getattr__(self, name: str) -> Any:
        from . import data_adapter as module
        return getattr(module, name)


data_adapter = _DataAdapter()


def flatten_metrics_in_order(logs: Dict[str, Any], metrics_names: List[str]) -> Any:
    """`logs` as a list in `metrics_names` order, then the other keys sorted; one value alone
    is returned as itself (tf_keras's `evaluate` / `*_on_batch` results)."""
    results = [logs[name] for name in metrics_names if name in logs]
    results += [logs[key] for key in sorted(logs) if key not in metrics_names]
    return results[0] if len(results) == 1 else results


def _get_verbosity(verbose: Any) -> int:
    return 1 if verbose == "auto" else verbose


class _RespectCompiledTrainableState:
    """Train with each layer's `trainable` as it was at `compile` (then put it back)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self._changed = False
        self._current: Any = None

    def __enter__(self) -> None:
        compiled = self._model.__dict__.get("_compiled_trainable_state")
        if not compiled:
            return
        self._current = self._model._get_trainable_state()
        for layer, trainable in compiled.items():
            if layer in self._current and trainable != self._current[layer]:
                self._changed = True
                break
        if self._changed:
            self._model._set_trainable_state(compiled)

    def __exit__(self, *exc: Any) -> None:
        if self._changed:
            self._model._set_trainable_state(self._current)


class _UnreadLogs:
    """What the built-in train (test) step returns inside `fit` (`evaluate`) when nothing
    reads a batch's logs (no callback implements a train- (test-) batch hook, one replica):
    the metrics are updated, their results are not computed. The step's dict would go from
    the step function to the loop and no further -- the loop reads the metrics themselves at
    the epoch's end -- so no code can see the difference; a custom step, `compute_metrics` or
    `get_metrics_result` turns this off."""

    def __repr__(self) -> str:
        return "<unread batch logs>"


_UNREAD = _UnreadLogs()


class TrainingAPI:
    """tf_keras's training methods; `Model` inherits them (see the module docstring)."""

    def _record_strategy(self) -> None:
        """Remember the strategy the model is created (or compiled) under, as tf_keras's
        `Model.__init__` does: `fit` runs its steps through it."""
        if self.__dict__.get("_distribution_strategy") is None and distribute_lib.has_strategy():
            self._set_internal("_distribution_strategy", distribute_lib.get_strategy())

    # -- compile -------------------------------------------------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None,
                loss_weights: Any = None, weighted_metrics: Any = None, run_eagerly: Any = None,
                steps_per_execution: Any = None, jit_compile: Any = None,
                pss_evaluation_shards: int = 0, **kwargs: Any) -> None:
        """Configure the model for training: the optimizer (object or name), the loss (one,
        or per output as a list or a dict by output name), the metrics (names such as
        `"accuracy"`, functions or `Metric` objects; per output likewise) and
        `loss_weights`."""
        self._validate_compile(optimizer, metrics, **kwargs)
        self._record_strategy()
        strategy = self.distribute_strategy
        with strategy.scope():
            self._set_internal("_run_eagerly", run_eagerly)
            self.optimizer = self._get_optimizer(optimizer)
            output_names = self._compile_output_names()
            if isinstance(loss, compile_utils.LossesContainer):
                compiled_loss = loss
            else:
                compiled_loss = compile_utils.LossesContainer(loss, loss_weights,
                                                              output_names=output_names)
            compiled_metrics = compile_utils.MetricsContainer(
                metrics, weighted_metrics, output_names=output_names,
                from_serialized=kwargs.get("from_serialized", False))
            self._set_internal("compiled_loss", compiled_loss)
            self._set_internal("compiled_metrics", compiled_metrics)
            if steps_per_execution == "auto":
                steps_per_execution = 1  # (tf_keras's tuner adapts it; one step is its start)
            self._set_internal("_steps_per_execution", _StepsPerExecution(
                int(steps_per_execution or 1)))
            self._reset_compile_cache()
            self._set_internal("_is_compiled", True)
            self._set_internal("loss", loss or {})
            if (run_eagerly or getattr(self, "dynamic", False)) and jit_compile:
                raise ValueError("You cannot enable `run_eagerly` and `jit_compile` at the "
                                 "same time.")
            self._set_internal("_jit_compile", jit_compile)

    def _set_internal(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)  # (compile's bookkeeping: no tracking)

    def _validate_compile(self, optimizer: Any, metrics: Any, **kwargs: Any) -> None:
        if any(isinstance(opt, type) for opt in nest.flatten(optimizer)):
            raise ValueError(
                f"`tf.compat.v1.keras` Optimizer ({optimizer}) is not supported when eager "
                "execution is enabled. Use a `tf.keras` Optimizer instead, or disable eager "
                "execution.")
        kwargs.pop("cloning", None)
        kwargs.pop("experimental_run_tf_function", None)
        kwargs.pop("from_serialized", None)
        if kwargs.pop("distribute", None) is not None:
            raise ValueError("`distribute` argument in compile is not available in TF 2.0. "
                             "Please create the model under the `strategy.scope()`.")
        target_tensors = kwargs.pop("target_tensors", None)
        if target_tensors is not None:
            raise ValueError("`target_tensors` argument is not supported when executing "
                             f"eagerly. Received: {target_tensors}.")
        invalid = set(kwargs) - {"sample_weight_mode"}
        if invalid:
            raise TypeError(
                f"Invalid keyword argument(s) in `compile()`: {(invalid,)}. Valid keyword "
                'arguments include "cloning", "experimental_run_tf_function", "distribute", '
                '"target_tensors", or "sample_weight_mode".')

    def _get_optimizer(self, optimizer: Any) -> Any:
        """A name or an object; a `mixed_float16` model's optimizer is wrapped in a
        `LossScaleOptimizer` (tf_keras)."""
        def single(opt: Any) -> Any:
            opt = optimizers_mod.get(opt)
            policy = getattr(self, "_dtype_policy", None)
            if getattr(policy, "name", None) == "mixed_float16":
                from ..mixed_precision import LossScaleOptimizer
                if not isinstance(opt, LossScaleOptimizer):
                    opt = LossScaleOptimizer(opt)
            return opt
        return nest.map_structure(single, optimizer)

    def _compile_output_names(self) -> Optional[list]:
        names = getattr(self, "output_names", None)
        return list(names) if names else None

    def _reset_compile_cache(self) -> None:
        self._set_internal("train_function", None)
        self._set_internal("test_function", None)
        self._set_internal("predict_function", None)
        self._set_internal("_compiled_trainable_state", self._get_trainable_state())

    def _get_trainable_state(self) -> Any:
        state: Any = weakref.WeakKeyDictionary()
        for layer in self._flatten_layers():
            state[layer] = layer.trainable
        return state

    def _set_trainable_state(self, state: Any) -> None:
        for layer in self._flatten_layers():
            if layer in state:
                layer.trainable = state[layer]

    def _assert_compile_was_called(self) -> None:
        if not self.__dict__.get("_is_compiled", False):
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # -- properties ---------------------------------------------------------------------
    @property
    def metrics(self) -> list:
        """The compiled loss metrics (`loss`, per-output losses), the compiled metrics, then
        the layers' `add_metric` metrics; the compiled ones exist after the first batch."""
        metrics: list = []
        if self.__dict__.get("_is_compiled", False):
            if self.compiled_loss is not None:
                metrics += self.compiled_loss.metrics
            if self.compiled_metrics is not None:
                metrics += self.compiled_metrics.metrics
        if base_layer.held.metrics:
            for layer in self._flatten_layers():
                metrics.extend(layer._metrics)
        return metrics

    @property
    def metrics_names(self) -> list:
        """`[m.name for m in model.metrics]` (empty before the model has trained or
        evaluated, as tf_keras)."""
        return [m.name for m in self.metrics]

    @property
    def distribute_strategy(self) -> Any:
        """The strategy the model was created under (else the current one)."""
        return self.__dict__.get("_distribution_strategy") or distribute_lib.get_strategy()

    @property
    def run_eagerly(self) -> bool:
        """The setting as tf_keras reports it (given to `compile`, else `dynamic`); every
        step runs eagerly on torch either way."""
        value = self.__dict__.get("_run_eagerly")
        return bool(getattr(self, "dynamic", False)) if value is None else bool(value)

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._set_internal("_run_eagerly", value)

    @property
    def steps_per_execution(self) -> "_StepsPerExecution":
        """`compile`'s `steps_per_execution`: a holder with `numpy()` and `assign()` (tf_keras
        keeps a variable), which the data handler lowers for an epoch's short last execution."""
        holder = self.__dict__.get("_steps_per_execution")
        if holder is None:
            holder = _StepsPerExecution(1)
            self._set_internal("_steps_per_execution", holder)
        return holder

    @steps_per_execution.setter
    def steps_per_execution(self, value: int) -> None:
        self.steps_per_execution.assign(value)

    @property
    def jit_compile(self) -> bool:
        return bool(self.__dict__.get("_jit_compile"))

    @jit_compile.setter
    def jit_compile(self, value: bool) -> None:
        self._set_internal("_jit_compile", value)

    # -- steps ----------------------------------------------------------------------------
    def _validate_target_and_loss(self, y: Any, loss: Any) -> None:
        if self.loss and y is None:
            raise ValueError(
                f"Target data is missing. Your model was compiled with loss={self.loss}, and "
                "therefore expects target data to be provided in `fit()`.")
        if loss is None:
            raise ValueError("No loss found. You may have forgotten to provide a `loss` "
                             "argument in the `compile()` method.")

    def train_step(self, data: Any) -> Dict[str, Any]:
        """One training step: forward under a tape, `compute_loss`, `optimizer.minimize`,
        `compute_metrics` (override to customize `fit`)."""
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        self._validate_target_and_loss(y, loss)
        self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        return self._step_metrics(x, y, y_pred, sample_weight)

    def _step_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Any:
        """The built-in steps' end: `compute_metrics`, or inside `_call_unread` only the
        metric updates (`_UnreadLogs`)."""
        if self.__dict__.get("_unread_step_logs"):
            self.compiled_metrics.update_state(y, y_pred, sample_weight)
            return _UNREAD
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None) -> Any:
        """The compiled loss of `y` vs `y_pred` plus the model's regularization losses."""
        del x
        return self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any) -> Dict[str, Any]:
        """Update the compiled metrics; return `get_metrics_result()`."""
        del x
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> Dict[str, Any]:
        """`{metric.name: metric.result()}` over `self.metrics` (dict results merged)."""
        out: Dict[str, Any] = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                out.update(result)
            else:
                out[metric.name] = result
        return out

    def _validate_and_get_metrics_result(self, logs: Any) -> Any:
        """The metrics' own results when a step returned exactly their names (the last
        step's logs otherwise)."""
        if logs is _UNREAD:
            return sync_to_numpy_or_python_type(self.get_metrics_result())
        try:
            metric_logs = self.get_metrics_result()
        except TypeError:
            return sync_to_numpy_or_python_type(logs)
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return sync_to_numpy_or_python_type(metric_logs)
        return sync_to_numpy_or_python_type(logs)

    def test_step(self, data: Any) -> Dict[str, Any]:
        """One evaluation step: forward in inference mode, the loss metrics, the metrics."""
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        self.compute_loss(x, y, y_pred, sample_weight)
        return self._step_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """One prediction step: `self(x, training=False)`."""
        x, _, _ = data_adapter.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _counter(self, name: str) -> Any:
        counter = self.__dict__.get(name)
        if counter is None:
            from ...variables import Variable
            from ...variables.enums import VariableAggregation
            counter = Variable(0, dtype="int64", trainable=False,
                               aggregation=VariableAggregation.ONLY_FIRST_REPLICA)
            self._set_internal(name, counter)
        return counter

    @property
    def _train_counter(self) -> Any:
        return self._counter("_train_counter_var")

    @property
    def _test_counter(self) -> Any:
        return self._counter("_test_counter_var")

    @property
    def _predict_counter(self) -> Any:
        return self._counter("_predict_counter_var")

    def _step_function(self, step: Any, counter: Any, reduction: str = "first") -> Any:
        strategy = self.distribute_strategy

        def run_step(data: Any) -> Any:
            outputs = step(data)
            counter.assign_add(1, read_value=False)
            return outputs

        one_replica = strategy is distribute_lib._default_strategy()

        def function(iterator: Iterator) -> Any:
            outputs = None
            for _ in range(self.steps_per_execution.value):
                data = next(iterator)
                if one_replica and not distribute_lib.has_strategy():
                    outputs = run_step(data)  # (the default strategy's `run` is this call)
                else:
                    outputs = strategy.run(run_step, args=(data,))
                    outputs = _reduce_per_replica(outputs, strategy, reduction)
            return outputs
        function._tfcompat_builtin = True  # type: ignore[attr-defined]  # (`_step_logs_unread`)
        return function

    def make_train_function(self, force: bool = False) -> Any:
        """The function `fit` calls per execution: `steps_per_execution` train steps on
        batches from an iterator, returning the last step's logs."""
        return self._make_function("train_function", self._train_step_to_run(),
                                   "_train_counter_var", "first", force)

    def _train_step_to_run(self) -> Any:
        """`train_step`, or with `jit_compile` the built-in step compiled by torch.compile
        (`compiled_step.py`; a custom `train_step` and steps under a strategy run eagerly)."""
        if not self.jit_compile:
            return self.train_step
        if type(self).train_step is not TrainingAPI.train_step:
            _warn_once("custom_step", "compile(jit_compile=True): a custom train_step runs "
                       "eagerly (tfcompat compiles the built-in step only); the results are "
                       "the same, only the speed differs.")
            return self.train_step
        if distribute_lib.has_strategy() or (
                self.distribute_strategy is not distribute_lib._default_strategy()):
            _warn_once("strategy", "compile(jit_compile=True): under a distribution strategy "
                       "the replicas' train steps run eagerly; the results are the same, only "
                       "the speed differs.")
            return self.train_step
        from .compiled_step import CompiledTrainStep
        step = CompiledTrainStep(self)
        self._set_internal("_compiled_train_step", step)  # (its compiled regions, for tests)
        return step

    def make_test_function(self, force: bool = False) -> Any:
        """As `make_train_function`, with `test_step`."""
        return self._make_function("test_function", self.test_step, "_test_counter_var",
                                   "first", force)

    def make_predict_function(self, force: bool = False) -> Any:
        """As `make_train_function`, with `predict_step`; the replicas' outputs concatenated."""
        return self._make_function("predict_function", self.predict_step,
                                   "_predict_counter_var", "concat", force)

    def _make_function(self, attribute: str, step: Any, counter: str, reduction: str,
                       force: bool) -> Any:
        if self.__dict__.get(attribute) is None or force:
            self._set_internal(attribute,
                               self._step_function(step, self._counter(counter), reduction))
        return self.__dict__[attribute]

    # -- fit ------------------------------------------------------------------------------
    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
            epochs: int = 1, verbose: Any = "auto", callbacks: Any = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: Any = True,
            class_weight: Optional[dict] = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: Optional[int] = None,
            validation_steps: Optional[int] = None,
            validation_batch_size: Optional[int] = None, validation_freq: Any = 1,
            max_queue_size: int = 10, workers: int = 1,
            use_multiprocessing: bool = False) -> Any:
        """Train for `epochs` epochs (from `initial_epoch`); returns the `History`, whose
        `history` holds tf_keras's keys (`loss`, metrics, `val_*`). `validation_split`
        holds out the *last* fraction of the arrays, before any shuffling."""
        self._assert_compile_was_called()
        verbose = _get_verbosity(verbose)
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapter.train_validation_split(
                (x, y, sample_weight), validation_split=validation_split)
        val_x = val_y = val_sample_weight = None
        if validation_data:
            val_x, val_y, val_sample_weight = data_adapter.unpack_x_y_sample_weight(
                validation_data)
        with self.distribute_strategy.scope(), _RespectCompiledTrainableState(self):
            data_handler = data_adapter.get_data_handler(
                x=x, y=y, sample_weight=sample_weight, batch_size=batch_size,
                steps_per_epoch=steps_per_epoch, initial_epoch=initial_epoch, epochs=epochs,
                shuffle=shuffle, class_weight=class_weight, max_queue_size=max_queue_size,
                workers=workers, use_multiprocessing=use_multiprocessing, model=self,
                steps_per_execution=self.steps_per_execution)
            callbacks = self._callback_list(callbacks, verbose, epochs, data_handler)
            self._set_internal("stop_training", False)
            train_function = self.make_train_function()
            self._train_counter.assign(0)
            callbacks.on_train_begin()
            training_logs = None
            steps_inferred = steps_per_epoch or data_handler.inferred_steps
            initial = self._maybe_load_initial_counters_from_ckpt(steps_inferred, initial_epoch)
            data_handler._initial_epoch, data_handler._initial_step = initial
            logs = None
            for epoch, iterator in data_handler.enumerate_epochs():
                self.reset_metrics()
                callbacks.on_epoch_begin(epoch)
                # (per epoch: a callback added since may want batch logs)
                unread = self._step_logs_unread(callbacks, train_function, "train")
                with data_handler.catch_stop_iteration():
                    for step in data_handler.steps():
                        callbacks.on_train_batch_begin(step)
                        logs = (self._call_unread(train_function, iterator) if unread
                                else train_function(iterator))
                        callbacks.on_train_batch_end(step + data_handler.step_increment, logs)
                        if self.stop_training:
                            break
                if logs is None:
                    raise ValueError(
                        "Unexpected result of `train_function` (Empty logs). This could be "
                        "due to issues in input pipeline that resulted in an empty dataset. "
                        "Otherwise, please use `Model.compile(..., run_eagerly=True)`, or "
                        "`tf.config.run_functions_eagerly(True)` for more information of "
                        "where went wrong, or file a issue/bug to `tf.keras`.")
                logs = self._validate_and_get_metrics_result(logs)  # (the epoch's one read)
                epoch_logs = copy.copy(logs)
                if validation_data and self._should_eval(epoch, validation_freq):
                    if self.__dict__.get("_eval_data_handler") is None:
                        self._set_internal("_eval_data_handler", data_adapter.get_data_handler(
                            x=val_x, y=val_y, sample_weight=val_sample_weight,
                            batch_size=validation_batch_size or batch_size,
                            steps_per_epoch=validation_steps, initial_epoch=0, epochs=1,
                            max_queue_size=max_queue_size, workers=workers,
                            use_multiprocessing=use_multiprocessing, model=self,
                            steps_per_execution=self.steps_per_execution))
                    val_logs = self.evaluate(
                        x=val_x, y=val_y, sample_weight=val_sample_weight,
                        batch_size=validation_batch_size or batch_size, steps=validation_steps,
                        callbacks=callbacks, max_queue_size=max_queue_size, workers=workers,
                        use_multiprocessing=use_multiprocessing, return_dict=True,
                        _use_cached_eval_dataset=True)
                    epoch_logs.update({"val_" + name: v for name, v in val_logs.items()})
                callbacks.on_epoch_end(epoch, epoch_logs)
                training_logs = epoch_logs
                if self.stop_training:
                    break
            self.__dict__.pop("_eval_data_handler", None)
            callbacks.on_train_end(logs=training_logs)
            return self.history

    def _step_logs_unread(self, callbacks: Any, function: Any, mode: str) -> bool:
        """Whether the `mode` ("train" or "test") steps of `fit` / `evaluate` may skip
        computing their logs (see `_UnreadLogs`): no callback reads batch logs, the function
        is the built-in one around the built-in step and metric hooks, one replica, no
        compiled step."""
        cls, own, step = type(self), self.__dict__, mode + "_step"
        return (not getattr(callbacks, f"_should_call_{mode}_batch_hooks", True)
                and getattr(function, "_tfcompat_builtin", False)
                and getattr(cls, step) is getattr(TrainingAPI, step)
                and cls.compute_metrics is TrainingAPI.compute_metrics
                and cls.get_metrics_result is TrainingAPI.get_metrics_result
                and not any(name in own for name in
                            (step, "compute_metrics", "get_metrics_result"))
                and self.distribute_strategy is distribute_lib._default_strategy()
                and not distribute_lib.has_strategy()
                and not (mode == "train" and self.jit_compile))

    def _call_unread(self, function: Any, iterator: Any) -> Any:
        """`function(iterator)` with the built-in steps' logs left uncomputed, for this call
        only (see `_UnreadLogs`)."""
        self.__dict__["_unread_step_logs"] = True
        try:
            return function(iterator)
        finally:
            self.__dict__["_unread_step_logs"] = False

    def _callback_list(self, callbacks: Any, verbose: int, epochs: int,
                       data_handler: Any) -> Any:
        """`callbacks` as the `CallbackList` the loop drives (History, and the progress bar
        unless `verbose=0`, added as tf_keras adds them); a `CallbackList` as it is."""
        cb = _callbacks_module()
        if isinstance(callbacks, cb.CallbackList):
            return callbacks
        return cb.CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                               model=self, verbose=verbose, epochs=epochs,
                               steps=data_handler.inferred_steps)

    def _maybe_load_initial_counters_from_ckpt(self, steps_per_epoch: Optional[int],
                                               initial_epoch: int) -> tuple:
        """Where a `BackupAndRestore` backup says training stopped, else `(initial_epoch, 0)`."""
        state = self.__dict__.get("_training_state")
        if state is not None:
            return state.maybe_load_initial_counters_from_ckpt(steps_per_epoch, initial_epoch)
        return initial_epoch, 0

    @staticmethod
    def _should_eval(epoch: int, validation_freq: Any) -> bool:
        epoch = epoch + 1
        if isinstance(validation_freq, int):
            return epoch % validation_freq == 0
        if isinstance(validation_freq, list):
            return epoch in validation_freq
        raise ValueError("Expected `validation_freq` to be a list or int. Received: "
                         f"validation_freq={validation_freq} of the type "
                         f"{type(validation_freq)}.")

    # -- evaluate / predict ---------------------------------------------------------------
    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
                 verbose: Any = "auto", sample_weight: Any = None, steps: Optional[int] = None,
                 callbacks: Any = None, max_queue_size: int = 10, workers: int = 1,
                 use_multiprocessing: bool = False, return_dict: bool = False,
                 **kwargs: Any) -> Any:
        """The loss and metrics over the data: a scalar (loss alone), a list in
        `metrics_names` order, or a dict with `return_dict=True`."""
        self._assert_compile_was_called()
        use_cached = kwargs.pop("_use_cached_eval_dataset", False)
        if kwargs:
            raise TypeError(f"Invalid keyword arguments: {list(kwargs.keys())}")
        verbose = _get_verbosity(verbose)
        with self.distribute_strategy.scope():
            data_handler = self.__dict__.get("_eval_data_handler") if use_cached else None
            if data_handler is None:
                data_handler = data_adapter.get_data_handler(
                    x=x, y=y, sample_weight=sample_weight, batch_size=batch_size,
                    steps_per_epoch=steps, initial_epoch=0, epochs=1,
                    max_queue_size=max_queue_size, workers=workers,
                    use_multiprocessing=use_multiprocessing, model=self,
                    steps_per_execution=self.steps_per_execution)
            callbacks = self._callback_list(callbacks, verbose, 1, data_handler)
            logs: Any = {}
            test_function = self.make_test_function()
            self._test_counter.assign(0)
            callbacks.on_test_begin()
            unread = self._step_logs_unread(callbacks, test_function, "test")
            for _, iterator in data_handler.enumerate_epochs():
                self.reset_metrics()
                with data_handler.catch_stop_iteration():
                    for step in data_handler.steps():
                        callbacks.on_test_batch_begin(step)
                        logs = (self._call_unread(test_function, iterator) if unread
                                else test_function(iterator))
                        callbacks.on_test_batch_end(step + data_handler.step_increment, logs)
            logs = self._validate_and_get_metrics_result(logs)
            callbacks.on_test_end(logs=logs)
            if return_dict:
                return logs
            return flatten_metrics_in_order(logs, self.metrics_names)

    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: Any = "auto",
                steps: Optional[int] = None, callbacks: Any = None, max_queue_size: int = 10,
                workers: int = 1, use_multiprocessing: bool = False) -> Any:
        """The outputs over the data, batch by batch, concatenated on the batch axis: NumPy
        arrays in the outputs' structure."""
        verbose = _get_verbosity(verbose)
        outputs = None
        batch_outputs = None
        with self.distribute_strategy.scope():
            data_handler = data_adapter.get_data_handler(
                x=x, batch_size=batch_size, steps_per_epoch=steps, initial_epoch=0, epochs=1,
                max_queue_size=max_queue_size, workers=workers,
                use_multiprocessing=use_multiprocessing, model=self,
                steps_per_execution=self.steps_per_execution)
            callbacks = self._callback_list(callbacks, verbose, 1, data_handler)
            predict_function = self.make_predict_function()
            self._predict_counter.assign(0)
            callbacks.on_predict_begin()
            for _, iterator in data_handler.enumerate_epochs():
                with data_handler.catch_stop_iteration():
                    for step in data_handler.steps():
                        callbacks.on_predict_batch_begin(step)
                        batch_outputs = predict_function(iterator)
                        flat = [t.detach() if isinstance(t, torch.Tensor) else t
                                for t in nest.flatten(batch_outputs)]
                        if outputs is None:
                            outputs = [[t] for t in flat]
                        else:
                            for acc, t in zip(outputs, flat):
                                acc.append(t)
                        callbacks.on_predict_batch_end(step + data_handler.step_increment,
                                                       {"outputs": batch_outputs})
            if batch_outputs is None:
                raise ValueError(
                    "Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                    "`Model.compile(..., run_eagerly=True)`, or "
                    "`tf.config.run_functions_eagerly(True)` for more information of where "
                    "went wrong, or file a issue/bug to `tf.keras`.")
            callbacks.on_predict_end()
        joined = [_concat(parts) for parts in outputs]
        return sync_to_numpy_or_python_type(nest.pack_sequence_as(batch_outputs, joined))

    def reset_metrics(self) -> None:
        """Reset every metric's state (fit and evaluate do at each epoch's start)."""
        for metric in self.metrics:
            metric.reset_state()

    # -- single batches -------------------------------------------------------------------
    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Optional[dict] = None, reset_metrics: bool = True,
                       return_dict: bool = False) -> Any:
        """One train step on one batch; the metrics (reset first unless
        `reset_metrics=False`) as `evaluate` returns them."""
        self._assert_compile_was_called()
        if reset_metrics:
            self.reset_metrics()
        with self.distribute_strategy.scope(), _RespectCompiledTrainableState(self):
            iterator = data_adapter.single_batch_iterator(
                self.distribute_strategy, x, y, sample_weight, class_weight)
            logs = self.make_train_function()(iterator)
        logs = sync_to_numpy_or_python_type(logs)
        return logs if return_dict else flatten_metrics_in_order(logs, self.metrics_names)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      reset_metrics: bool = True, return_dict: bool = False) -> Any:
        """One test step on one batch (see `train_on_batch`)."""
        self._assert_compile_was_called()
        if reset_metrics:
            self.reset_metrics()
        with self.distribute_strategy.scope():
            iterator = data_adapter.single_batch_iterator(self.distribute_strategy, x, y,
                                                          sample_weight)
            logs = self.make_test_function()(iterator)
        logs = sync_to_numpy_or_python_type(logs)
        return logs if return_dict else flatten_metrics_in_order(logs, self.metrics_names)

    def predict_on_batch(self, x: Any) -> Any:
        """The outputs for one batch, as NumPy."""
        with self.distribute_strategy.scope():
            iterator = data_adapter.single_batch_iterator(self.distribute_strategy, x)
            outputs = self.make_predict_function()(iterator)
        return sync_to_numpy_or_python_type(outputs)

    # -- deprecated aliases ---------------------------------------------------------------
    def fit_generator(self, generator: Any, steps_per_epoch: Optional[int] = None,
                      epochs: int = 1, verbose: Any = 1, callbacks: Any = None,
                      validation_data: Any = None, validation_steps: Optional[int] = None,
                      validation_freq: Any = 1, class_weight: Optional[dict] = None,
                      max_queue_size: int = 10, workers: int = 1,
                      use_multiprocessing: bool = False, shuffle: Any = True,
                      initial_epoch: int = 0) -> Any:
        """Deprecated: `fit` takes generators."""
        warnings.warn("`Model.fit_generator` is deprecated and will be removed in a future "
                      "version. Please use `Model.fit`, which supports generators.",
                      stacklevel=2)
        return self.fit(generator, steps_per_epoch=steps_per_epoch, epochs=epochs,
                        verbose=verbose, callbacks=callbacks, validation_data=validation_data,
                        validation_steps=validation_steps, validation_freq=validation_freq,
                        class_weight=class_weight, max_queue_size=max_queue_size,
                        workers=workers, use_multiprocessing=use_multiprocessing,
                        shuffle=shuffle, initial_epoch=initial_epoch)

    def evaluate_generator(self, generator: Any, steps: Optional[int] = None,
                           callbacks: Any = None, max_queue_size: int = 10, workers: int = 1,
                           use_multiprocessing: bool = False, verbose: Any = 0) -> Any:
        """Deprecated: `evaluate` takes generators."""
        return self._generator_alias("evaluate", generator, steps, callbacks, max_queue_size,
                                     workers, use_multiprocessing, verbose)

    def predict_generator(self, generator: Any, steps: Optional[int] = None,
                          callbacks: Any = None, max_queue_size: int = 10, workers: int = 1,
                          use_multiprocessing: bool = False, verbose: Any = 0) -> Any:
        """Deprecated: `predict` takes generators."""
        return self._generator_alias("predict", generator, steps, callbacks, max_queue_size,
                                     workers, use_multiprocessing, verbose)

    def _generator_alias(self, method: str, generator: Any, steps: Optional[int],
                         callbacks: Any, max_queue_size: int, workers: int,
                         use_multiprocessing: bool, verbose: Any) -> Any:
        warnings.warn(f"`Model.{method}_generator` is deprecated and will be removed in a "
                      f"future version. Please use `Model.{method}`, which supports "
                      "generators.", stacklevel=3)
        return getattr(self, method)(generator, steps=steps, callbacks=callbacks,
                                     verbose=verbose, max_queue_size=max_queue_size,
                                     workers=workers, use_multiprocessing=use_multiprocessing)


_warned: set = set()


def _warn_once(key: str, message: str) -> None:
    """One warning per kind per process (the jit_compile fallbacks)."""
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, stacklevel=4)


class _StepsPerExecution:
    """Steps per `train_function` call (see `TrainingAPI.steps_per_execution`)."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        if int(value) < 1:
            raise ValueError(f"`steps_per_execution` must be >= 1. Received: {value}")
        self.value = int(value)

    def numpy(self) -> np.int64:
        return np.int64(self.value)

    def assign(self, value: Any) -> None:
        read = getattr(value, "numpy", None)
        self.value = int(read()) if read is not None else int(value)

    def __int__(self) -> int:
        return self.value


def _reduce_per_replica(values: Any, strategy: Any, reduction: str) -> Any:
    """One replica's values as they are. Several replicas': `"first"` (a step's logs: the
    metrics aggregate across replicas in their own variables, read at the epoch's end) or
    `"concat"` (predictions: the replicas' rows in replica order, the global batch's)."""
    from ...distribute import values as distribute_values

    def reduce(v: Any) -> Any:
        if not isinstance(v, distribute_values.DistributedValues):
            return v
        parts = v.values
        if reduction == "first" or not isinstance(parts[0], torch.Tensor):
            return parts[0]
        device = parts[0].device
        return torch.cat([p.to(device) for p in parts], dim=0)
    return nest.map_structure(reduce, values)


def _concat(parts: list) -> Any:
    if not parts:
        return parts
    if isinstance(parts[0], torch.Tensor):
        if parts[0].dim() == 0:
            return torch.stack(parts)
        return torch.cat(parts, dim=0)
    if isinstance(parts[0], np.ndarray):
        return np.concatenate(parts, axis=0)
    return parts
