"""Candidate sampling and the sampled softmax loss: `tf.random.log_uniform_candidate_sampler`,
`tf.nn.compute_accidental_hits`, `tf.nn.sampled_softmax_loss`.

* The log-uniform (Zipfian) sampler draws class `k` of `[0, range_max)`
  with probability `P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)`,
  as `floor(exp(u * log(range_max + 1))) - 1` for uniform `u`, like TF's
  `LogUniformSampler`. With `unique=True` it keeps drawing until it has
  `num_sampled` distinct classes and reports each class's expected count
  as TF does: `-expm1(num_tries * log1p(-P(k)))` (`P(k) * num_sampled`
  when no draw was rejected, and always without `unique`). TF runs this op on
  the host; so does this one (its loop depends on the draws). The random
  stream is torch's, seeded like the other `tf.random` ops, not TF's Philox
  stream: samples match TF in distribution, not value by value.
* `sampled_softmax_loss` is TF's `_compute_sampled_logits` followed by
  `softmax_cross_entropy_with_logits`: logits `[true - log Q(true),
  sampled - log Q(sampled)]` with labels `[1/num_true ..., 0 ...]`;
  accidental hits (a sampled class that is one of the row's true classes)
  get `-FLT_MAX` added, so they drop out of the softmax. TF 2's weights
  lists are `"div"` partitions.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np
import torch

from ..framework.errors import invalid_argument as invalid
from ..framework import dtypes
from ..framework.tensor_conversion import convert_to_tensor, is_tensor_like
from . import _dispatch as D
from . import random_ops
from .embedding_ops import embedding_lookup_v1
from .nn_ops import softmax_cross_entropy_with_logits

__all__ = ["log_uniform_candidate_sampler", "compute_accidental_hits", "sampled_softmax_loss"]

_FLT_LOWEST = -float(np.finfo(np.float32).max)


def _true_classes(true_classes: Any, num_true: int, op: str) -> torch.Tensor:
    # The op's input is int64: numpy and Python values convert to it, tensors must be int64.
    t = (convert_to_tensor(true_classes) if is_tensor_like(true_classes)
         else convert_to_tensor(true_classes, dtype=dtypes.int64))
    if t.dtype is not torch.int64:
        raise invalid(f"cannot compute {op} as input #0(zero-based) was expected to be a int64 "
                      f"tensor but is a {str(t.dtype).replace('torch.', '')} tensor: cast the "
                      "labels with tf.cast(labels, tf.int64)", op)
    if t.dim() != 2 or t.shape[1] != num_true:
        raise invalid(f"true_classes must be a matrix with num_true={num_true} columns, got shape "
                      f"{list(t.shape)}", op)
    return t


def _log_uniform_p(k: torch.Tensor, log_range: float) -> torch.Tensor:
    kd = k.to(torch.float64)
    return torch.log((kd + 2.0) / (kd + 1.0)) / log_range


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: Optional[int] = None,
                                  name: Optional[str] = None) -> tuple:
    """`tf.random.log_uniform_candidate_sampler`: `(sampled_candidates, true_expected_count,
    sampled_expected_count)` from the log-uniform distribution over `[0, range_max)`.

    `sampled_candidates` is int64 `[num_sampled]`; the expected counts are
    float32, shaped like `true_classes` (`[batch, num_true]`, int64) and like
    the samples.
    """
    op = "LogUniformCandidateSampler"
    t = _true_classes(true_classes, num_true, op)
    num_sampled, range_max = int(num_sampled), int(range_max)
    if num_sampled < 1 or range_max < 1:
        raise invalid("num_sampled and range_max must be positive", op)
    if unique and num_sampled > range_max:
        raise invalid("Sampler's range is too small.", op)
    log_range = math.log1p(range_max)
    g = random_ops._generator(op, torch.float64, seed, torch.device("cpu"))
    if not unique:
        u = torch.rand(num_sampled, dtype=torch.float64, generator=g)
        sampled = (torch.exp(u * log_range).to(torch.int64) - 1) % range_max
        tries = num_sampled
    else:
        picked: dict = {}
        tries = 0
        while len(picked) < num_sampled:
            u = torch.rand(max(2 * (num_sampled - len(picked)), 16), dtype=torch.float64,
                           generator=g)
            for v in ((torch.exp(u * log_range).to(torch.int64) - 1) % range_max).tolist():
                tries += 1
                picked.setdefault(v, None)
                if len(picked) == num_sampled:
                    break
        sampled = torch.tensor(list(picked), dtype=torch.int64)

    def expected(k: torch.Tensor) -> torch.Tensor:
        p = _log_uniform_p(k, log_range).to(torch.float32)  # TF computes these in float
        if tries == num_sampled:
            return p * num_sampled
        return -torch.expm1(tries * torch.log1p(-p))

    true_expected = expected(t.cpu()).to(t.device)
    return sampled.to(t.device), true_expected, expected(sampled).to(t.device)


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int,
                            seed: Optional[int] = None, name: Optional[str] = None) -> tuple:
    """`tf.nn.compute_accidental_hits`: `(indices, ids, weights)` of each sampled candidate equal
    to one of its row's true classes; `weights` are `-FLT_MAX` (float32).

    The hits' count depends on the data (one host read, as TF's CPU op).
    """
    t = _true_classes(true_classes, num_true, "ComputeAccidentalHits")
    s = convert_to_tensor(sampled_candidates).to(t.device)
    rows, cols = torch.nonzero((t.unsqueeze(2) == s.view(1, 1, -1)).any(1), as_tuple=True)
    return (rows.to(torch.int32), cols.to(torch.int64),
            torch.full(rows.shape, _FLT_LOWEST, dtype=torch.float32, device=t.device))


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
                         num_classes: int, num_true: int = 1, sampled_values: Any = None,
                         remove_accidental_hits: bool = True, seed: Optional[int] = None,
                         name: str = "sampled_softmax_loss") -> torch.Tensor:
    """`tf.nn.sampled_softmax_loss`: the softmax cross-entropy over the true classes and
    `num_sampled` classes drawn by the log-uniform sampler (or `sampled_values`), each logit
    corrected by `-log(expected count)`; `[batch]` losses.

    `weights` `[num_classes, dim]` (or a list of `"div"` partitions),
    `biases` `[num_classes]`, `labels` `[batch, num_true]` ints, `inputs`
    `[batch, dim]`. Use it for training only: its expectation is not the
    full softmax loss.
    """
    x = convert_to_tensor(inputs)
    lab = convert_to_tensor(labels)
    if lab.dtype is not torch.int64:
        lab = lab.to(torch.int64)
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(lab, num_true, num_sampled, True,
                                                       num_classes, seed)
    sampled, true_expected, sampled_expected = (convert_to_tensor(v).detach().to(x.device)
                                                for v in sampled_values)
    sampled = sampled.to(torch.int64)
    flat = lab.reshape(-1).to(x.device)
    all_ids = torch.cat([flat, sampled])
    all_w = embedding_lookup_v1(weights, all_ids, "div")
    all_b = embedding_lookup_v1(biases, all_ids, "div")
    if all_w.dtype != x.dtype:
        all_w = all_w.to(x.dtype)
    if all_b.dtype != x.dtype:
        all_b = all_b.to(x.dtype)
    n = flat.shape[0]
    true_w, sampled_w = all_w[:n], all_w[n:]
    true_b, sampled_b = all_b[:n], all_b[n:]
    sampled_logits = torch.matmul(x, sampled_w.t()) + sampled_b
    true_logits = (x.unsqueeze(1) * true_w.reshape(-1, num_true, true_w.shape[-1])).sum(-1)
    true_logits = true_logits + true_b.reshape(-1, num_true)
    if remove_accidental_hits:
        hit = (lab.to(x.device).reshape(-1, num_true, 1) == sampled.view(1, 1, -1)).any(1)
        lowest = torch.tensor(_FLT_LOWEST, dtype=torch.float32).to(sampled_logits.dtype)
        sampled_logits = sampled_logits + torch.where(
            hit, lowest.to(x.device), torch.zeros((), dtype=x.dtype, device=x.device))
    for count in (true_expected, sampled_expected):
        if count.dtype is not x.dtype:  # TF subtracts the log counts without a cast
            raise D.mismatch("Sub", 1, x.dtype, count.dtype)
    true_logits = true_logits - torch.log(true_expected)
    sampled_logits = sampled_logits - torch.log(sampled_expected)
    logits = torch.cat([true_logits, sampled_logits], 1)
    out_labels = torch.cat([torch.ones_like(true_logits) / num_true,
                            torch.zeros_like(sampled_logits)], 1)
    return softmax_cross_entropy_with_logits(out_labels, logits)
