"""The v1 APIs tfcompat does not build: objects that raise `NotImplementedError` when used.

A TF 1 program that imports or references `tf1.Session` must not die at import time
(`AttributeError`): the name resolves to one of these, and only *using* it raises, with the
TF 2 way to write the same thing.
"""

from __future__ import annotations

from typing import Any, NoReturn

_EAGER = "TF 2 runs eagerly: call the computation directly (wrap it in tf.function for a graph)"

#: TF 2 replacements of the v1 names TF 1 code uses most (path relative to tf.compat.v1).
REPLACEMENTS = {
    "Session": _EAGER, "InteractiveSession": _EAGER, "placeholder": "pass tensors as function arguments",
    "placeholder_with_default": "pass tensors as function arguments (with a Python default)",
    "Graph": _EAGER, "get_default_graph": _EAGER, "reset_default_graph": _EAGER,
    "disable_eager_execution": "tfcompat is eager-only, as TF 2: remove the call",
    "disable_v2_behavior": "tfcompat is eager-only, as TF 2: remove the call",
    "gradients": "use tf.GradientTape",
    "train.exponential_decay": "use tf.keras.optimizers.schedules.ExponentialDecay",
    "train.piecewise_constant": "use tf.keras.optimizers.schedules.PiecewiseConstantDecay",
    "train.polynomial_decay": "use tf.keras.optimizers.schedules.PolynomialDecay",
    "train.MonitoredTrainingSession": "write the training loop in Python with tf.GradientTape",
    "summary.FileWriter": "use torch.utils.tensorboard.SummaryWriter",
    "estimator": "write the training loop in Python with tf.GradientTape",
    "raw_ops": "use the tf.* op of the same computation",
}


class NotBuilt:
    """A v1 name tfcompat does not build. Calling it, or reading any attribute of it,
    raises `NotImplementedError` naming the TF 2 replacement."""

    __slots__ = ("_path",)

    def __init__(self, path: str) -> None:
        object.__setattr__(self, "_path", path)

    def _raise(self) -> NoReturn:
        path = self._path
        hint = REPLACEMENTS.get(path) or REPLACEMENTS.get(path.split(".")[0])
        raise NotImplementedError(
            f"tf.compat.v1.{path} is not implemented by tfcompat (it is TF 1 graph-mode or "
            f"not yet built): {hint or 'port this call to its TF 2 equivalent'}.")

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        self._raise()

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__"):
            raise AttributeError(name)
        self._raise()

    def __enter__(self) -> NoReturn:
        self._raise()

    def __exit__(self, *exc: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"<tf.compat.v1.{self._path}: not implemented by tfcompat>"
