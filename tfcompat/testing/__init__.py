"""`tfcompat.testing`: reusable, property-based checks of TF semantics.

* `strategies`: hypothesis strategies for dtypes, shapes, values, TF slice
  keys, index arrays, and sequences of variable mutations;
* `reference`: those mutations as data, each with a numpy reference of TF's
  semantics (numpy only, so TensorFlow itself can replay them);
* `conformance`: `VariableConformance`, TF 2's variable laws as a pytest
  class parametrized by a variable factory, for `ResourceVariable`,
  distributed variables and users' own `tf.Variable` subclasses;
* `no_host_sync()`: a block in which any CUDA host synchronization raises
  (training steps must not wait on the device).

`conformance` and `strategies` need pytest and hypothesis (test-time
dependencies); importing `tfcompat.testing` itself needs neither.
"""

try:  # let pytest show the values in the conformance laws' failed asserts
    import pytest as _pytest
    _pytest.register_assert_rewrite(f"{__name__}.conformance")
except Exception:  # pragma: no cover - pytest is a test-time dependency
    pass

import contextlib as _contextlib
from typing import Iterator as _Iterator

from . import reference

__all__ = ["reference", "strategies", "conformance", "no_host_sync"]


@_contextlib.contextmanager
def no_host_sync() -> _Iterator[None]:
    """Inside the block, an operation that makes the host wait for CUDA raises.

    Work queued before the block is finished first, so only the block's own
    syncs count. Torch's sync debug mode: it sees `.item()`, `bool(t)`,
    blocking copies and the like, on CUDA only.
    """
    import torch

    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode("default")


def __getattr__(name: str):
    # Lazy: importing tfcompat.testing must not require hypothesis or pytest.
    if name in ("strategies", "conformance"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
