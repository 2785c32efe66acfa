"""Where dataset files come from and where they are cached (tf_keras's origins and hashes)."""

from __future__ import annotations

import os
from typing import Optional

# tf_keras's download folder for every dataset except CIFAR's (hosted by its authors).
KERAS_DATASETS = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def prepare_cache_dir(cache_dir: Optional[str]) -> Optional[str]:
    """A given `cache_dir` is expanded and created first, as tf_keras's loaders do.

    (`get_file` falls back to /tmp/.keras for a directory it cannot write, so creating it
    first is what makes a fresh `cache_dir` take effect.)
    """
    if cache_dir:
        cache_dir = os.path.expanduser(cache_dir)
        os.makedirs(cache_dir, exist_ok=True)
    return cache_dir
