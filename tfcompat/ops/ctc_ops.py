"""`tf.nn.ctc_loss` (TF 2) for dense labels, over torch's `F.ctc_loss`.

TF's dense path (`ctc_loss_dense`) is the negative log-likelihood of each
label sequence under `log_softmax(logits)`, summed over every CTC alignment;
its gradient with respect to the logits is `softmax - posterior` within each
sequence's `logit_length` and 0 past it, which is what torch's CTC backward
followed by `log_softmax`'s backward computes. float16/bfloat16 logits are
computed in float32 and the loss cast back, as TF does; float64 logits fail
as in TF (its dense path multiplies by a float32 mask). `blank_index`
(default 0; negative counts from the end) rotates the classes to put the
blank first, as TF does.
`unique` is TF's speed-up hint and is not needed. Sparse labels
(`tf.SparseTensor`) are not supported.

Difference: a label sequence that no alignment can produce within
`logit_length` frames has loss `inf` here (torch); TF's log-space recursion
starts from a finite stand-in for log(0) and returns a large finite number
(about 700).
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.nn.functional as F

from ..framework.errors import invalid_argument as invalid
from ..framework.tensor_conversion import convert_to_tensor
from . import _dispatch as D
from ._indices import index_tensor

__all__ = ["ctc_loss"]


def ctc_loss(labels: Any, logits: Any, label_length: Any, logit_length: Any,
             logits_time_major: bool = True, unique: Any = None, blank_index: Optional[int] = None,
             name: Optional[str] = None) -> torch.Tensor:
    """`tf.nn.ctc_loss`: `-log p(labels | logits)` per batch element, over all CTC alignments.

    `labels` `[batch, max_label_length]` ints (entries past `label_length`
    are ignored), `logits` `[frames, batch, num_labels]` (or batch-major
    with `logits_time_major=False`), `label_length` and `logit_length`
    `[batch]` ints. torch: `F.ctc_loss(log_softmax(logits), ..., reduction="none")`.
    """
    if type(labels).__name__ == "SparseTensor":
        raise NotImplementedError("tf.nn.ctc_loss with SparseTensor labels is not supported by "
                                  "tfcompat: pass dense labels and label_length.")
    x = convert_to_tensor(logits)
    D.check_dtype("CTCLoss", x.dtype, D.FLOATS, names=["half", "bfloat16", "float", "double"])
    y = index_tensor(labels, "CTCLoss", device=x.device)
    lab_len = index_tensor(label_length, "CTCLoss", device=x.device)
    log_len = index_tensor(logit_length, "CTCLoss", device=x.device)
    orig = x.dtype
    if orig in (torch.float16, torch.bfloat16):
        x = x.float()
    if not logits_time_major:
        x = x.transpose(0, 1)
    if x.dim() != 3 or y.dim() != 2:
        raise invalid(f"logits must be 3-D [frames, batch, num_labels] and labels 2-D [batch, "
                      f"max_label_length], got {list(x.shape)} and {list(y.shape)}", "CTCLoss")
    num_labels, batch = x.shape[2], x.shape[1]
    if y.shape[0] != batch or lab_len.shape != (batch,) or log_len.shape != (batch,):
        raise invalid(f"labels, label_length and logit_length must have the batch size {batch} "
                      f"of logits: got {list(y.shape)}, {list(lab_len.shape)} and "
                      f"{list(log_len.shape)}", "CTCLoss")
    if x.dtype is torch.float64:  # TF's dense path multiplies by a float32 mask
        raise D.mismatch("Mul", 1, torch.float64, torch.float32)
    blank = 0 if blank_index is None else int(blank_index)
    if blank < 0:
        blank += num_labels
    if not 0 <= blank < num_labels:
        raise invalid(f"blank_index {blank_index} is out of range for {num_labels} labels",
                      "CTCLoss")
    y = y.to(torch.int64)
    if blank != 0:
        # TF's rotation, kept for its treatment of labels equal to the blank (they become
        # class blank - 1): the blank's logits first, labels below it shifted up by one.
        x = torch.cat([x[:, :, blank:blank + 1], x[:, :, :blank], x[:, :, blank + 1:]], 2)
        y = torch.where(y < blank, y + 1, y)
    try:
        loss = F.ctc_loss(torch.log_softmax(x, dim=-1), y, log_len.to(torch.int64),
                          lab_len.to(torch.int64), blank=0, reduction="none",
                          zero_infinity=False)
    except RuntimeError as e:
        raise invalid(f"ctc_loss: {e}", "CTCLoss") from None
    return loss.to(orig) if orig != loss.dtype else loss
