"""tfcompat: TensorFlow 2's stateful core on PyTorch. `import tfcompat as tf`.

This module only re-exports; each name lives where its concept does.
"""

import torch as _torch

# The ops dispatch on Keras symbolic tensors (framework/symbolic_dispatch.py): wrapped where
# they are defined, before any other module takes a reference to one.
from . import ops as _ops
from .framework import symbolic_dispatch as _symbolic_dispatch
_symbolic_dispatch.install_package_ops(_ops)

from . import bitwise, compat, config, distribute, errors, image, keras, linalg, math, nn, optimizers
from . import random
from . import debugging
from . import data
from . import train
from . import summary
from .train.module import Module
from .framework import dtypes, nest
from .framework.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double,
                               float16, float32, float64, half, int8, int16, int32, int64, uint8)
from .framework.device import DeviceSpec, device
from .framework.function import TensorSpec, function
from .framework.indexed_slices import IndexedSlices
from .framework.name_scope import name_scope
from .framework.tensor_conversion import (constant, convert_to_tensor, is_tensor,
                                          register_tensor_conversion_function)
from .framework.tensor_shape import TensorShape
from .framework import tensor_methods as _tensor_methods  # noqa: F401  (adds to torch.Tensor)
from .variables import (Variable, VariableAggregation, VariableSynchronization,
                        variable_creator_scope)
from .autodiff import GradientTape, UnconnectedGradients, init_scope, stop_gradient
from .autodiff.custom_gradient import custom_gradient, recompute_grad
from .ops import *  # noqa: F401,F403  (the op subset; see docs/op_coverage.md)

Tensor = _torch.Tensor
newaxis = None

# TF's version attributes report the TF API level implemented (`tfcompat/version.py`);
# tfcompat's own version is `version.TFCOMPAT_VERSION` / importlib.metadata.
from . import version
__version__ = version.VERSION
__git_version__ = version.GIT_VERSION
__compiler_version__ = version.COMPILER_VERSION
__cxx_version__ = version._CXX_VERSION


def executing_eagerly() -> bool:
    """Always True: tfcompat is eager (TF 2's default mode)."""
    return True


# Every public op of the TF namespaces dispatches on Keras symbolic tensors (a TFOpLambda
# layer, as tf_keras); the eager path is the op itself plus one call (symbolic_dispatch.py).
def _install_symbolic_dispatch() -> None:
    import sys as _sys
    from .framework import symbolic_dispatch as _sd
    _sd.install(_sys.modules[__name__], "", skip=("executing_eagerly",))
    for _name in ("math", "nn", "linalg", "random", "bitwise", "image", "debugging"):
        _sd.install(_sys.modules[f"{__name__}.{_name}"], _name)


_install_symbolic_dispatch()

# `tf.dtypes` also holds the casts: TF binds the very functions of `tf.cast`,
# `tf.saturate_cast` and `tf.complex` there (`framework/dtypes.py` sits below the ops).
dtypes.cast, dtypes.saturate_cast, dtypes.complex = cast, saturate_cast, complex  # noqa: F405
