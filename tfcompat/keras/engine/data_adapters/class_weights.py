"""`class_weight`: per-class loss weights turned into per-sample weights, as tf_keras.

For a batch `(x, y)` or `(x, y, sample_weight)` the class of each sample is read from its
label: rank-1 labels are class ids (rounded); labels of rank >= 2 are one-hot or
probabilities (the argmax of the last axis) when that axis has more than one entry, else
class ids (the last axis squeezed, rounded). The sample's weight is its class's entry,
multiplied into the given `sample_weight` (cast to its dtype, with trailing unit axes added
so that they broadcast). The batch comes back as `(x, y, sample_weight)`.

The weights' dtype is that of `tf.constant(list_of_weights)`: float32 for Python floats,
int32 when every weight is a Python int (as tf_keras, whose losses cast them).
"""

from __future__ import annotations

from typing import Any, Callable, Dict

import torch

from ....framework import nest
from ....framework.tensor_conversion import convert_to_tensor_on
from ....ops.indexing_ops import gather
from .packing import HOST, unpack_x_y_sample_weight

__all__ = ["make_class_weight_map_fn"]


def _class_ids(y: torch.Tensor) -> torch.Tensor:
    def rounded(t: torch.Tensor) -> torch.Tensor:
        if t.is_floating_point():
            t = torch.round(t)  # half to even, as tf.round
        return t.to(torch.int64)

    if y.dim() >= 2:
        if y.shape[-1] > 1:
            return torch.argmax(y, dim=-1)
        return rounded(y.squeeze(-1))
    return rounded(y)


def make_class_weight_map_fn(class_weight: Dict[int, Any]) -> Callable[[Any], Any]:
    """The function tf_keras maps over the batches for `class_weight` (see the module doc).

    `class_weight` maps every class id `0 .. C - 1` to its weight; other keys raise
    tf_keras's `ValueError` here. A batch whose `y` is a nest (a multi-output model) raises
    tf_keras's `ValueError`; a class id outside `0 .. C - 1` raises TF's
    `InvalidArgumentError` (the gather's).
    """
    class_ids = list(sorted(class_weight.keys()))
    if class_ids != list(range(len(class_ids))):
        raise ValueError(
            "Expected `class_weight` to be a dict with keys from 0 to one less than the "
            f"number of classes, found {class_weight}")
    weights = convert_to_tensor_on(HOST, [class_weight[int(c)] for c in class_ids])
    on_device: Dict[torch.device, torch.Tensor] = {HOST: weights}

    def class_weights_map_fn(data: Any) -> Any:
        x, y, sw = unpack_x_y_sample_weight(data)
        if nest.is_nested(y):
            raise ValueError(
                "`class_weight` is only supported for Models with a single output.")
        if y is None:
            raise ValueError(
                "`class_weight` needs targets: the data has no `y` to read the classes from. "
                "Pass `y` (or batches of `(x, y)`), or weight samples with `sample_weight`.")
        if not isinstance(y, torch.Tensor):
            y = convert_to_tensor_on(HOST, y)
        table = on_device.get(y.device)
        if table is None:
            table = on_device[y.device] = weights.to(y.device)
        cw = gather(table, _class_ids(y))
        if sw is None:
            return x, y, cw
        if not isinstance(sw, torch.Tensor):
            sw = convert_to_tensor_on(y.device, sw)
        cw = cw.to(sw.dtype)
        rank_delta = cw.dim() - sw.dim()
        if rank_delta > 0:
            sw = sw.reshape(tuple(sw.shape) + (1,) * rank_delta)
        return x, y, sw * cw

    return class_weights_map_fn
