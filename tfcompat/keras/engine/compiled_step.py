"""`compile(jit_compile=True)`: the built-in train step with its forward pass and loss
compiled by `torch.compile`.

tf_keras compiles its train function with XLA; tfcompat compiles the part of the step that
is one pure tensor program, the model's call and the compiled loss. The region is traced
once per input signature into an ATen graph (`make_fx` with fake tensors: no TorchDynamo
guards or graph breaks per step), whose inputs are the reads of all the model's variables
and the batch's tensors, and that graph is compiled by `torch.compile` (Inductor; its
backward by AOTAutograd). The rest of the step is the eager step's: the reads under the
step's `GradientTape` (copy-on-write snapshots, as every read), the gradient, the
optimizer's fused update and the metric updates.

What would not be a pure function of those inputs is kept out of the graph:

* the loss metrics' updates are returned by the region and applied after it
  (`compile_utils.tracing`);
* index range checks (sparse categorical labels) are returned as boolean tensors; if one
  fails, the step is replayed eagerly, which raises TF's `InvalidArgumentError`
  (`ops/_indices.tracing`);
* a region that writes a variable (BatchNormalization's moving statistics), draws random
  numbers (Dropout: a fresh draw each step is not a graph input), reads a variable that is
  not the model's, or cannot be traced, runs eagerly: `fit` says so once
  (`RuntimeWarning`), with the same results.

As with `tf.function`, Python side effects in `call` (prints, counters) happen when the step
is traced, not every step. A custom `train_step` (the "customizing what happens in fit"
guide) runs eagerly with one warning, as do steps under a distribution strategy (the
compiled region is one device's program).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Dict

import torch

from ...autodiff.jit import TracingReads, Unsupported as _Unsupported, _trace_lock, check_graph
from ...autodiff.jit import changes_since as _changes, storage_state as _storage_state
from ...autodiff.jit import quiet_torch as _quiet_torch, reads_replaced
from ...autodiff.tape import GradientTape
from ...framework import nest
from ...ops import _indices
from . import compile_utils, data_adapter

__all__ = ["CompiledTrainStep"]


def _signature(flat: list) -> tuple:
    return tuple((tuple(t.shape), t.dtype, t.device) if isinstance(t, torch.Tensor) else (type(t), t)
                 for t in flat)


class _Region:
    """The traced and compiled forward + loss for one input signature."""

    def __init__(self, fn: Callable, n_outputs: int, n_checks: int, updates: list,
                 y_pred_structure: Any) -> None:
        self.fn = fn
        self.n_outputs = n_outputs
        self.n_checks = n_checks
        self.updates = updates  # [(metric, weight)], their values follow the checks
        self.y_pred_structure = y_pred_structure


class CompiledTrainStep:
    """The train step `fit` runs for a model compiled with `jit_compile=True`."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._regions: Dict[tuple, _Region] = {}
        self._eager = False

    # -- tracing ---------------------------------------------------------------------------
    def _trace(self, variables: list, data_structure: Any, flat_data: list) -> _Region:
        model = self.model
        n_vars = len(variables)
        tensor_at = [i for i, t in enumerate(flat_data) if isinstance(t, torch.Tensor)]
        meta: Dict[str, Any] = {}

        def region(*args: torch.Tensor) -> tuple:
            reads, tensors = args[:n_vars], args[n_vars:]
            flat = list(flat_data)
            for i, t in zip(tensor_at, tensors):
                flat[i] = t
            x, y, sample_weight = nest.pack_sequence_as(data_structure, flat)
            inputs = {id(v): r for v, r in zip(variables, reads)}
            _indices.tracing.checks, compile_utils.tracing.updates = [], []
            try:
                with reads_replaced(lambda inner: TracingReads(inner, inputs)):
                    y_pred = model(x, training=True)
                    loss = model.compute_loss(x, y, y_pred, sample_weight)
                checks, updates = _indices.tracing.checks, compile_utils.tracing.updates
            finally:
                _indices.tracing.checks = compile_utils.tracing.updates = None
            if not isinstance(loss, torch.Tensor):
                raise _Unsupported("its loss is not a tensor")
            flat_pred = nest.flatten(y_pred)
            if not all(isinstance(p, torch.Tensor) for p in flat_pred):
                raise _Unsupported("its outputs are not all tensors")
            if any(isinstance(weight, torch.Tensor) for _, _, weight in updates):
                raise _Unsupported("a loss metric is weighted by a tensor")
            meta.update(structure=y_pred, n_outputs=len(flat_pred), n_checks=len(checks),
                        updates=[(metric, weight) for metric, _, weight in updates])
            values = [torch.as_tensor(v) for _, v, _ in updates]
            return (loss, *flat_pred, *checks, *values)

        from torch.fx.experimental.proxy_tensor import make_fx
        example = [v.value().detach() for v in variables] + [flat_data[i] for i in tensor_at]
        with _trace_lock:
            before = _storage_state()  # (every variable's storage: a write to any is seen)
            graph_module = make_fx(region, tracing_mode="fake", _allow_non_fake_inputs=True)(*example)
            change = _changes(before)
        if change is not None:
            raise _Unsupported(f"it {change} variables (e.g. a layer's moving statistics)")
        check_graph(graph_module)
        return _Region(torch.compile(graph_module), meta["n_outputs"], meta["n_checks"],
                       meta["updates"], meta["structure"])

    def _fall_back(self, why: str) -> None:
        self._eager = True
        self._regions.clear()
        warnings.warn(f"compile(jit_compile=True): the train step of {self.model.name!r} runs "
                      f"eagerly, with the same results: it cannot be one compiled graph ({why}).",
                      RuntimeWarning, stacklevel=4)

    # -- the step --------------------------------------------------------------------------
    def __call__(self, data: Any) -> Dict[str, Any]:
        model = self.model
        if self._eager or not model.built:  # (the first step builds the model eagerly)
            return model.train_step(data)
        x, y, sample_weight = data_adapter.unpack_x_y_sample_weight(data)
        structure = (x, y, sample_weight)
        flat = nest.flatten(structure)
        variables = list(model.variables)
        key = (_signature(flat), tuple(id(v) for v in variables))
        region = self._regions.get(key)
        first = region is None
        tensors = [t for t in flat if isinstance(t, torch.Tensor)]
        trainable = {id(v) for v in model.trainable_variables}
        try:
            with _quiet_torch(first):  # (torch's own warnings while it traces and compiles)
                if first:
                    region = self._trace(variables, structure, flat)
                with GradientTape() as tape:
                    reads = [v.value() if id(v) in trainable else v.value().detach()
                             for v in variables]
                    out = region.fn(*reads, *tensors)  # (compiled on its first call)
        except _Unsupported as why:
            self._fall_back(str(why))
            return model.train_step(data)
        except Exception as error:  # (the eager step decides what an error is)
            if not first:
                # e.g. the compiled kernel's own bounds check on a bad label: nothing has
                # changed yet (reads are snapshots), so the eager step replays the batch and
                # raises TF's error -- or, if it was the compiled code's alone, succeeds.
                return model.train_step(data)
            text = str(error).splitlines()[0] if str(error) else ""
            self._fall_back(f"{type(error).__name__}: {text}")
            return model.train_step(data)
        if first:
            self._regions[key] = region
        loss = out[0]
        flat_pred = list(out[1:1 + region.n_outputs])
        checks = out[1 + region.n_outputs:1 + region.n_outputs + region.n_checks]
        values = out[1 + region.n_outputs + region.n_checks:]
        if checks and not bool(torch.stack(list(checks)).all()):
            return model.train_step(data)  # (replayed eagerly: raises TF's error)
        with torch.no_grad():
            for (metric, weight), value in zip(region.updates, values):
                metric.update_state(value, sample_weight=weight)
        y_pred = nest.pack_sequence_as(region.y_pred_structure, flat_pred)
        model._validate_target_and_loss(y, loss)
        model.optimizer.minimize(loss, model.trainable_variables, tape=tape)
        return model.compute_metrics(x, y, y_pred, sample_weight)
