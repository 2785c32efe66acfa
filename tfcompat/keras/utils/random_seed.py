"""`tf.keras.utils.set_random_seed`: seed Python, NumPy, tfcompat and torch at once."""

from __future__ import annotations

import random

import numpy as np
import torch

from ...ops import random_ops
from .. import backend

__all__ = ["set_random_seed"]


def set_random_seed(seed: int) -> None:
    """`tf.keras.utils.set_random_seed`: `random.seed`, `np.random.seed`, `tf.random.set_seed`.

    Raises TF's `ValueError` when `seed` is not an `int` (a `bool` is an `int`, as in
    tf_keras). NumPy rejects seeds outside `[0, 2**32)` with its own `ValueError`, before
    any TF-side state changes, as in tf_keras (whose order this keeps).

    tfcompat's unseeded random ops draw from torch's default generator while no global
    seed is set (see `tfcompat.ops.random_ops`), and code ported to tfcompat may call torch
    directly (dropout masks, `torch.randperm`), so torch's default generator is seeded
    too: this is what makes "almost any program deterministic" hold on torch.
    """
    if not isinstance(seed, int):
        raise ValueError(
            "Expected `seed` argument to be an integer. "
            f"Received: seed={seed} (of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    random_ops.set_seed(seed)
    torch.manual_seed(seed)
    # unseeded Keras initializers take their seeds from here (tf_keras's _SEED_GENERATOR)
    backend._SEED_GENERATOR.generator = random.Random(seed)
