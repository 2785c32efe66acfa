"""The seed's multi-step loop: `extended.experimental_run_steps_on_iterator` and `MultiStepContext`.

TF 1's strategies could run several training steps in one call, the step
function choosing what to report from the last step; TF 2 dropped the API
(users write the loop). It is kept here from the seed for programs that
use it: `fn(ctx, inputs)` runs on every replica once per step, on the
iterator's next element, and may call

* `ctx.set_last_step_output(name, output, reduce_op=None)`: keep `output`
  of the last step under `name`; in replica context a `reduce_op` is
  required and the replicas' outputs are reduced with it (in
  cross-replica context it is optional);
* `ctx.set_non_tensor_output(name, output)`: keep a Python value (in
  replica context, the tuple of every local replica's value).

The call returns the context: `last_step_outputs`, `non_tensor_outputs`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..variables.enums import VariableAggregation
from . import distribute_lib
from .reduce_util import ReduceOp

__all__ = ["MultiStepContext", "run_steps_on_iterator"]


def _as_reduce_op(value: Any) -> Optional[ReduceOp]:
    """A ReduceOp from a ReduceOp, its name, or (as the seed passed) a VariableAggregation."""
    if value is None or value == VariableAggregation.NONE:
        return None
    if isinstance(value, VariableAggregation):
        return ReduceOp.from_variable_aggregation(value)
    return ReduceOp.from_value(value)


class MultiStepContext:
    """What a multi-step run's step function reports (the seed's `MultiStepContext`)."""

    def __init__(self) -> None:
        self._last_step_outputs: dict = {}
        self._last_step_outputs_reduce_ops: dict = {}
        self._non_tensor_outputs: dict = {}

    @property
    def last_step_outputs(self) -> dict:
        """`{name: output}` set by `set_last_step_output` (reduced where a reduce op was given)."""
        return self._last_step_outputs

    def _set_last_step_outputs(self, outputs: dict) -> None:
        if not isinstance(outputs, dict):
            raise ValueError("Need a dictionary to set last_step_outputs.")
        self._last_step_outputs = outputs

    def set_last_step_output(self, name: str, output: Any, reduce_op: Any = None) -> None:
        """Keep `output` under `name`; the last step's call wins."""
        op = _as_reduce_op(reduce_op)
        if distribute_lib.in_cross_replica_context():
            self._last_step_outputs_reduce_ops[name] = op
            if op is None:
                self._last_step_outputs[name] = output
            else:
                strategy = distribute_lib.get_strategy()
                self._last_step_outputs[name] = strategy.reduce(op, output, axis=None)
            return
        if op is None:
            raise ValueError("set_last_step_output in replica context needs a reduce_op "
                             "(e.g. tf.distribute.ReduceOp.MEAN): every replica reports its own "
                             "output and they are combined.")

        def merge_fn(strategy: Any, value: Any) -> None:
            # Once, for every replica: the replicas share this context object.
            self._last_step_outputs[name] = strategy.reduce(op, value, axis=None)
            self._last_step_outputs_reduce_ops[name] = op

        distribute_lib.get_replica_context().merge_call(merge_fn, args=(output,))

    @property
    def non_tensor_outputs(self) -> dict:
        """`{name: value}` set by `set_non_tensor_output`."""
        return self._non_tensor_outputs

    def set_non_tensor_output(self, name: str, output: Any) -> None:
        """Keep a Python value; in replica context, the tuple of every local replica's value."""
        if distribute_lib.in_cross_replica_context():
            self._non_tensor_outputs[name] = output
            return

        def merge_fn(strategy: Any, value: Any) -> None:
            self._non_tensor_outputs[name] = strategy.experimental_local_results(value)

        distribute_lib.get_replica_context().merge_call(merge_fn, args=(output,))


def _next(iterator: Any) -> Any:
    get_next = getattr(iterator, "get_next", None)
    return get_next() if callable(get_next) else next(iterator)


def run_steps_on_iterator(strategy: Any, fn: Callable[..., Any], iterator: Any, iterations: int,
                          initial_loop_values: Optional[dict] = None) -> MultiStepContext:
    """Run `fn(ctx, inputs)` on every replica for `iterations` steps; return the context."""
    if int(iterations) < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}.")
    ctx = MultiStepContext()
    if initial_loop_values is not None:
        ctx._set_last_step_outputs(dict(initial_loop_values))
    for _ in range(int(iterations)):
        inputs = _next(iterator)
        strategy.run(fn, args=(ctx, inputs))
    return ctx
