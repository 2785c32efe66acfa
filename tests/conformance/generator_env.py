"""What both fixture generators (`gen_core.py`, `gen_optimizers.py`) share.

They run under a Python that has TensorFlow, as scripts, so this module is
imported as their sibling. `prepare()` must run before TensorFlow is imported.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(HERE, "fixtures")


def prepare() -> None:
    """Re-exec with a fixed hash seed (set iteration order shows in some outputs),
    quiet TF's logging, hide GPUs (the fixtures record CPU behaviour), and put the
    repository root on `sys.path` for `tests.conformance` imports."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)


def dump(path: str, data: object) -> int:
    """Write `data` as compact JSON, all or nothing (a temp file, then a rename)."""
    text = json.dumps(data, indent=None, separators=(",", ":"), sort_keys=False)
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(text)
        f.write("\n")
    os.replace(tmp, path)
    return len(text)
