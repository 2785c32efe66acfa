"""Drive `_tf_worker.py` (TensorFlow in its own interpreter) step by step over a pipe.

`TFWorker(tf_python)` starts the worker; `worker.setup(suite, case)` builds
a case there and returns a `RemoteTimer`, which `_timing.interleaved` runs
in turn with the local timers: each repetition times tfcompat here, then
asks the worker to time its calls. TF is never imported into this process.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
from typing import Any, Optional

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_tf_worker.py")


class WorkerError(RuntimeError):
    """The TF worker failed (its traceback, or the tail of its stderr, is the message)."""


class RemoteTimer:
    """`run(number)`: the worker times `number` calls of its current case."""

    def __init__(self, worker: "TFWorker", info: dict) -> None:
        self.worker = worker
        self.info = info

    def run(self, number: int) -> float:
        return float(self.worker.request({"op": "run", "number": int(number)})["seconds"])


class TFWorker:
    """A TensorFlow worker process, answering one JSON line per request."""

    def __init__(self, python: str, timeout_s: float = 900.0, threads: Optional[int] = None) -> None:
        self.timeout_s = timeout_s
        self._stderr = tempfile.TemporaryFile(mode="w+")
        env = dict(os.environ)
        if threads:
            env["TFCOMPAT_BENCH_THREADS"] = str(threads)
        self.proc = subprocess.Popen([python, WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._stderr, text=True, bufsize=1, env=env)

    def request(self, message: dict) -> dict:
        if self.proc.poll() is not None:
            raise WorkerError(f"the TF worker exited ({self.proc.returncode}): {self._stderr_tail()}")
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout_s)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            raise WorkerError(f"no answer from the TF worker to {message.get('op')}: {self._stderr_tail()}")
        answer = json.loads(line)
        if "error" in answer:
            raise WorkerError(answer["error"])
        return answer

    def setup(self, suite: str, case: dict, warmup: int = 3) -> RemoteTimer:
        """Build `case` of `suite` in the worker (warmed up); its timer."""
        answer = self.request({"op": "setup", "suite": suite, "case": case, "warmup": warmup})
        return RemoteTimer(self, answer.get("info", {}))

    def _stderr_tail(self, chars: int = 2000) -> str:
        try:
            self._stderr.seek(0)
            return self._stderr.read()[-chars:]
        except (OSError, ValueError):
            return ""

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> "TFWorker":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def start_worker(tf_python: Optional[str], device_type: str = "cpu",
                 threads: Optional[int] = None) -> Optional[TFWorker]:
    """A TF worker when `tf_python` is given and the benchmark runs on CPU, else None.

    (TF's columns are measured on CPU only: the worker's TF would compete with
    torch for the same GPU.) `threads` sets TF's intra- and inter-op thread
    counts. A worker that cannot start is reported and skipped.
    """
    if not tf_python or device_type != "cpu":
        return None
    worker = TFWorker(tf_python, threads=threads)
    try:
        worker.setup("selftest", {})
    except (WorkerError, OSError) as e:
        print(f"(TensorFlow comparison skipped: {e})", file=sys.stderr)
        worker.close()
        return None
    return worker


def remote(worker: Optional[TFWorker], suite: str, case: dict, warmup: int = 3) -> Optional[RemoteTimer]:
    """`worker.setup(...)`, or None (and a note) when there is no worker or the case fails there."""
    if worker is None:
        return None
    try:
        return worker.setup(suite, case, warmup)
    except WorkerError as e:
        print(f"(TensorFlow: {suite} {case} failed: {str(e).strip().splitlines()[-1]})", file=sys.stderr)
        return None
