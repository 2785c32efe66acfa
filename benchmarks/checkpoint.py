"""Checkpoint save/restore throughput: TF's bundle format (tfcompat) vs torch.save and safetensors.

    python benchmarks/checkpoint.py [--quick] [--repeat 3] [--dir /path/on/the/disk/to/test]

The state is ~1 GiB of torch tensors (--quick: ~57 MiB): 2000 small tensors
(float32 mostly, some bfloat16 and int64; 4 KiB to 256 KiB) and 3 large
float32 ones (256 MiB each). Columns, timed interleaved (one run of each per
repetition, order rotating), all on the same directory:

* tfcompat: `BundleWriter` (streams every tensor, masked CRC32C of each,
  fsync, rename: TF's atomic save) / `BundleReader.read_torch` of every key
  (bytes read straight into fresh tensors, every CRC checked);
* Checkpoint: what users run, `tf.train.Checkpoint(variables=[...]).write`
  / `.read(...)` of `tf.Variable`s holding the same tensors (object graph,
  TF's keys, every value validated before any is assigned, the assigns);
* torch:  `torch.save(state)` + fsync / `torch.load` (weights_only);
* safetensors: `safetensors.torch.save_file` + fsync / `load_file`;
* disk: the same number of bytes written sequentially from one buffer in
  64 MiB writes + fsync / read back with `readinto` into a fresh buffer --
  the disk's (and the page cache's) sequential speed in the same run.

Every save includes its fsync, so every column pays for durability alike,
and writes new files (the previous ones are removed first, untimed).
Every load ends by touching one byte of each 4 KiB page of what it returned
(safetensors maps the file and would otherwise read nothing).
*Restore* reads into existing tensors, as `Checkpoint.restore` assigns into
variables (tfcompat: `read_into`; torch: `torch.load(mmap=True)` then
`copy_`; safetensors: `load_file` then `copy_`; disk: `readinto` a buffer),
measured *warm* (the file in the page cache, as right after a save: memory
bandwidth, not the disk) and *cold* (each file evicted with
posix_fadvise(DONTNEED) first; on a VM the host may still cache it). *Load*
makes new tensors (tfcompat: `read_torch`; `torch.load`; `load_file`, which
maps the file: its pages are the page cache's, never copied, so it wins
warm loads by construction). Prints seconds, GB/s and the ratios the issue targets: tfcompat's
throughput against safetensors' (target >= 1) and against the disk's
(target: tfcompat's time within 1.2x of the disk's).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks import _cli  # noqa: E402
from benchmarks._timing import interleaved  # noqa: E402
import tfcompat as tf  # noqa: E402
from tfcompat.train.format.tensor_bundle import BundleReader, BundleWriter  # noqa: E402

try:
    import safetensors.torch as st
except ImportError:  # pragma: no cover - the column is skipped
    st = None

_CHUNK = 64 << 20


def build_state(quick: bool, device: torch.device) -> Dict[str, torch.Tensor]:
    """Many small tensors and a few large ones, deterministic."""
    g = torch.Generator().manual_seed(0)
    n_small, n_large, large = (200, 2, 4 << 20) if quick else (2000, 3, 64 << 20)
    state: Dict[str, torch.Tensor] = {}
    for i in range(n_small):
        n = int(torch.randint(1 << 10, 1 << 16, (1,), generator=g))
        dtype = (torch.bfloat16, torch.int64, torch.float32, torch.float32)[i % 4]
        t = torch.randn(n, generator=g).to(dtype) if dtype != torch.int64 else torch.randint(
            0, 1 << 40, (n // 2,), generator=g)
        state[f"layer_{i:04d}/kernel"] = t.to(device)
    for i in range(n_large):
        state[f"embedding_{i}"] = torch.randn(large, generator=g).reshape(-1, 1024).to(device)
    return state


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _evict(paths: List[str]) -> None:
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _touch(tensors) -> None:
    # One byte of every 4 KiB page: a load that maps the file lazily (safetensors)
    # must bring the data in like the others, for the same "restored" result.
    for t in tensors:
        t.reshape(-1).view(torch.uint8)[::4096].sum() if isinstance(t, torch.Tensor) else t[::4096].sum()


def _remove(paths: List[str]) -> None:
    for p in paths:
        try:
            os.remove(p)
        except FileNotFoundError:
            pass


class _Timer:
    """`run(n)`: seconds for n calls of `fn`, after `before()` (untimed) each time."""

    warmup = True

    def __init__(self, fn: Callable[[], object], before: Optional[Callable[[], None]] = None) -> None:
        self.fn, self.before = fn, before

    def prepare(self) -> None:
        if not self.warmup:
            return
        if self.before:
            self.before()
        self.fn()  # one warm-up run

    def run(self, number: int) -> float:
        total = 0.0
        for _ in range(number):
            if self.before:
                self.before()
            start = time.perf_counter()
            self.fn()
            total += time.perf_counter() - start
        return total


def main(argv: Optional[List[str]] = None) -> None:
    def extra(p):
        p.add_argument("--dir", default=None, help="directory to write in (default: a new temp dir)")

    args = _cli.parse(__doc__.splitlines()[0], argv, repeat=3, extra=extra,
                      quick_help="a ~57 MiB state, one repetition")
    device = torch.device(args.device)
    repeat = 1 if args.quick else args.repeat
    _Timer.warmup = not args.quick  # (--quick: the timed runs only; saves come first and make the files)
    state = build_state(args.quick, device)
    nbytes = sum(t.numel() * t.element_size() for t in state.values())
    root = tempfile.mkdtemp(prefix="tfcompat-ckpt-bench-", dir=args.dir)
    ours_prefix = os.path.join(root, "ours", "ckpt")
    paths = {"tfcompat": [ours_prefix + ".index", ours_prefix + ".data-00000-of-00001"],
             "torch": [os.path.join(root, "state.pt")], "safetensors": [os.path.join(root, "state.safetensors")],
             "disk": [os.path.join(root, "disk.bin")]}
    buf = np.random.default_rng(0).integers(0, 255, _CHUNK, dtype=np.uint8)

    def save_ours():
        with BundleWriter(ours_prefix) as w:
            for k, v in state.items():
                w.add(k, v)

    def save_torch():
        torch.save(state, paths["torch"][0])
        _fsync(paths["torch"][0])

    def save_st():
        st.save_file(state, paths["safetensors"][0])
        _fsync(paths["safetensors"][0])

    def save_disk():
        fd = os.open(paths["disk"][0], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            left = nbytes
            view = memoryview(buf)
            while left:
                n = os.write(fd, view[:min(left, _CHUNK)])
                left -= n
            os.fsync(fd)
        finally:
            os.close(fd)

    def load_ours():
        with BundleReader(ours_prefix) as r:
            out = {k: r.read_torch(k) for k in r.keys()}
        _touch(out.values())
        return out

    def load_torch():
        out = torch.load(paths["torch"][0])
        _touch(out.values())

    def load_st():
        out = st.load_file(paths["safetensors"][0])
        _touch(out.values())

    def load_disk():
        out = np.empty(nbytes, np.uint8)
        with open(paths["disk"][0], "rb", buffering=0) as f:
            view = memoryview(out)
            while view:
                view = view[f.readinto(view):]
        _touch([out])

    # Restoring into existing tensors (what Checkpoint.restore does: values land in the
    # variables' storage): every column ends with the same bytes in the same memory.
    dest = {k: torch.empty_like(v, device="cpu") for k, v in state.items()}
    dest_disk = np.zeros(nbytes, np.uint8)

    def restore_ours():
        with BundleReader(ours_prefix) as r:
            for k in r.keys():
                r.read_into(k, dest[k])

    def restore_torch():
        loaded = torch.load(paths["torch"][0], mmap=True)
        for k, t in loaded.items():
            dest[k].copy_(t)

    def restore_st():
        for k, t in st.load_file(paths["safetensors"][0]).items():
            dest[k].copy_(t)

    def restore_disk():
        with open(paths["disk"][0], "rb", buffering=0) as f:
            view = memoryview(dest_disk)
            while view:
                view = view[f.readinto(view):]

    # What users run: `tf.train.Checkpoint.write` / `.read` of variables holding the state
    # (object graph, keys, validation of every value before any assignment, then the assigns).
    variables = [tf.Variable(v) for v in state.values()]
    ckpt = tf.train.Checkpoint(variables=variables)
    ckpt_prefix = os.path.join(root, "ckpt", "ckpt")
    paths["Checkpoint"] = [ckpt_prefix + ".index", ckpt_prefix + ".data-00000-of-00001"]

    def save_checkpoint():
        ckpt.write(ckpt_prefix)
        # (BundleWriter fsyncs each file before its rename, as the other columns fsync)

    def restore_checkpoint():
        ckpt.read(ckpt_prefix).assert_consumed()

    saves = {"tfcompat": save_ours, "Checkpoint": save_checkpoint, "torch": save_torch,
             "disk": save_disk}
    loads = {"tfcompat": load_ours, "torch": load_torch, "disk": load_disk}
    restores = {"tfcompat": restore_ours, "Checkpoint": restore_checkpoint, "torch": restore_torch,
                "disk": restore_disk}
    if st is not None:
        saves["safetensors"] = save_st
        loads["safetensors"] = load_st
        restores["safetensors"] = restore_st
    try:
        # Each save makes new files, as a checkpoint does (ckpt-1, ckpt-2, ...): the previous
        # ones are removed first, untimed, so no column pays for freeing an old file.
        phases = {"save": interleaved({k: _Timer(f, lambda k=k: _remove(paths[k])) for k, f in saves.items()},
                                      repeat)}
        phases["restore warm"] = interleaved({k: _Timer(f) for k, f in restores.items()}, repeat)
        phases["restore cold"] = interleaved(
            {k: _Timer(f, lambda k=k: _evict(paths[k])) for k, f in restores.items()}, repeat)
        phases["load warm"] = interleaved({k: _Timer(f) for k, f in loads.items()}, repeat)
        _check_equal(load_ours(), state)
        _check_equal(dest, state)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    gb = nbytes / 1e9
    print(f"state: {len(state)} tensors, {nbytes / 2**20:.0f} MiB on {device}; torch {torch.__version__}; "
          f"directory {args.dir or tempfile.gettempdir()}; median of {repeat}, interleaved")
    print("seconds (GB/s); restore = into existing tensors, load = into new ones; "
          "warm = from the page cache, cold = evicted first")
    print(f"{'':<13}" + "".join(f"{name:>20}" for name in phases))
    for k in saves:
        print(f"{k:<13}" + "".join(f"{t[k]:11.3f} ({gb / t[k]:5.2f})" if k in t else f"{'-':>20}"
                                   for t in phases.values()))
    for other in ("safetensors", "torch", "disk"):
        if other in saves:
            print(f"tfcompat throughput / {other + ':':<13}" + ", ".join(
                f"{name} {t[other] / t['tfcompat']:.2f}x" for name, t in phases.items()))
    print("targets: >= 1.00x safetensors; tfcompat within 1.2x of the disk (throughput ratio >= 0.83x)")


def _check_equal(loaded: Dict[str, torch.Tensor], state: Dict[str, torch.Tensor]) -> None:
    if sorted(loaded) != sorted(state) or not all(torch.equal(loaded[k], state[k].cpu()) for k in state):
        raise SystemExit("tfcompat's restore differs from the saved state")


if __name__ == "__main__":
    main()
