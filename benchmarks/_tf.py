"""Run `_tf_worker.py` under a Python that has TensorFlow, if one was given."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Optional

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_tf_worker.py")


def tf_timings(tf_python: Optional[str], request: dict) -> Optional[dict]:
    """TF's timings for `request`, or None when no TF interpreter is available."""
    if not tf_python:
        return None
    try:
        done = subprocess.run([tf_python, WORKER, json.dumps(request)], capture_output=True,
                              text=True, timeout=1800, check=True)
    except (OSError, subprocess.SubprocessError) as e:
        print(f"(TensorFlow comparison skipped: {e})")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])
