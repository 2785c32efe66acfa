"""tfcompat: TensorFlow 2's stateful core on PyTorch. `import tfcompat as tf`.

This module only re-exports; each name lives where its concept does.
"""

from .framework import dtypes
from .framework.dtypes import (DType, as_dtype, bfloat16, bool, complex64, complex128, double,
                               float16, float32, float64, half, int8, int16, int32, int64, uint8)
from .framework.tensor_shape import TensorShape
from .framework.device import DeviceSpec, device
from .framework.indexed_slices import IndexedSlices
from .framework.name_scope import name_scope
from .framework.tensor_conversion import (constant, convert_to_tensor, is_tensor,
                                          register_tensor_conversion_function)
from .variables import (Variable, VariableAggregation, VariableSynchronization,
                        variable_creator_scope)
from .autodiff import GradientTape, UnconnectedGradients, stop_gradient
from .ops.math_ops import (abs, add, cast, divide, equal, floordiv, floormod, greater,
                           greater_equal, less, less_equal, logical_and, logical_not,
                           logical_or, logical_xor, matmul, maximum, minimum, multiply,
                           negative, not_equal, pow, saturate_cast, subtract, truediv)

import torch as _torch

Tensor = _torch.Tensor
newaxis = None

__version__ = "0.1.0"
