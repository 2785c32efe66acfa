"""`tfcompat.testing`: reusable, property-based checks of TF semantics.

* `strategies`: hypothesis strategies for dtypes, shapes, values, TF slice
  keys, index arrays, and sequences of variable mutations;
* `reference`: those mutations as data, each with a numpy reference of TF's
  semantics (numpy only, so TensorFlow itself can replay them);
* `conformance`: `VariableConformance`, TF 2's variable laws as a pytest
  class parametrized by a variable factory, for `ResourceVariable`,
  distributed variables and users' own `tf.Variable` subclasses;
* `host_syncs()` / `no_host_sync()`: the operations in a block that would make
  the host wait for the device (`.item()`, device-to-host copies,
  data-dependent shapes), found by watching torch's operators, so the check
  is real without a GPU; with CUDA, `no_host_sync()` adds torch's own sync
  debug mode; `accelerator_policy()` makes CPU tensors skip the data checks
  TF runs only on CPU, so a CPU run reads what a GPU run reads (see
  `host_sync`).

`conformance` and `strategies` need pytest and hypothesis (test-time
dependencies); importing `tfcompat.testing` itself needs neither.
"""

try:  # let pytest show the values in the conformance laws' failed asserts
    import pytest as _pytest
    _pytest.register_assert_rewrite(f"{__name__}.conformance")
except Exception:  # pragma: no cover - pytest is a test-time dependency
    pass

from . import reference
from .host_sync import (HostSync, HostSyncError, HostSyncLog, accelerator_policy, host_syncs,
                        no_host_sync)

__all__ = ["reference", "strategies", "conformance", "host_syncs", "no_host_sync", "accelerator_policy",
           "HostSync", "HostSyncLog", "HostSyncError"]


def __getattr__(name: str):
    # Lazy: importing tfcompat.testing must not require hypothesis or pytest.
    if name in ("strategies", "conformance"):
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
