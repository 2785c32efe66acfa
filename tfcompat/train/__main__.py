"""`python -m tfcompat.train`: look into a TF checkpoint, or convert it to safetensors.

    python -m tfcompat.train inspect CKPT [--tensor NAME]
    python -m tfcompat.train convert CKPT OUT.safetensors [--name-map map.json] [--progress | --no-progress]

`CKPT` is a checkpoint prefix (`.../ckpt-3`) or a directory (its latest checkpoint).
`inspect` lists every key with its dtype, shape and size, and the totals (TF's
`inspect_checkpoint` shows the same keys); `--tensor` prints one value. `convert`
writes the torch state dict `tfcompat.train.to_state_dict` gives (names by its rule,
or the JSON object `--name-map` gives: checkpoint key -> name, null to drop) and
shows a progress bar on stderr for big checkpoints (always with `--progress`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Sequence

import numpy as np

from ..framework import errors
from .reader import OBJECT_GRAPH_KEY, load_checkpoint

_BIG = 256 << 20  # bytes past which `convert` shows progress without being asked


def _nbytes(dtype: Any, shape: list[int]) -> int | None:
    try:
        return int(np.prod(shape, dtype=np.int64)) * dtype.size
    except TypeError:  # strings have no fixed size
        return None


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def inspect(path: str, tensor: str | None = None, out: Any = None) -> int:
    out = out or sys.stdout
    reader = load_checkpoint(path)
    try:
        if tensor is not None:
            np.set_printoptions(threshold=1000)
            print(f"tensor_name:  {tensor}", file=out)
            print(reader.get_tensor(tensor), file=out)
            return 0
        shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
        print(f"checkpoint {reader.prefix}", file=out)
        width = max([len(k) for k in shapes] + [4])
        print(f"{'name':<{width}}  {'dtype':<10} {'shape':<16} {'size':>10}", file=out)
        total_bytes, total_elements, count = 0, 0, 0
        for key in sorted(shapes):
            shape, dtype = shapes[key], dtypes[key]
            nbytes = _nbytes(dtype, shape)
            size = _human(nbytes) if nbytes is not None else "-"
            dims = "[" + ",".join(str(d) for d in shape) + "]"
            print(f"{key:<{width}}  {dtype.name:<10} {dims:<16} {size:>10}", file=out)
            if key == OBJECT_GRAPH_KEY:
                continue
            count += 1
            total_elements += int(np.prod(shape, dtype=np.int64))
            total_bytes += nbytes or 0
        print(f"total: {count} tensors, {total_elements} elements, {_human(total_bytes)}"
              f" ({total_bytes} bytes; the object graph not counted)", file=out)
        return 0
    finally:
        reader.close()


class _Progress:
    """A one-line stderr bar (tqdm's when it is installed)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.done, self.enabled, self._bar = max(total, 1), 0, enabled, None
        self._last = 0.0
        if enabled:
            try:
                from tqdm import tqdm

                self._bar = tqdm(total=total, unit="B", unit_scale=True, file=sys.stderr, desc="convert")
            except ImportError:
                pass

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        filled = int(30 * self.done / self.total)
        sys.stderr.write(f"\rconvert [{'#' * filled}{'.' * (30 - filled)}] {100 * self.done // self.total:3d}% "
                         f"{_human(self.done)}/{_human(self.total)}")
        sys.stderr.flush()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
        elif self.enabled:
            sys.stderr.write("\n")


def convert(path: str, output: str, name_map_path: str | None = None, progress: bool | None = None,
            out: Any = None) -> int:
    from . import torch_export

    out = out or sys.stdout
    name_map = None
    if name_map_path is not None:
        with open(name_map_path) as f:
            name_map = json.load(f)
        if not isinstance(name_map, dict):
            raise ValueError(f"{name_map_path} must hold a JSON object (checkpoint key -> name or null)")
    reader = load_checkpoint(path)
    try:
        shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
        sizes = {k: _nbytes(dtypes[k], shapes[k]) or 0 for k in shapes}
        bar = _Progress(sum(sizes.values()), progress if progress is not None else sum(sizes.values()) > _BIG)
        values = {}
        for key in sorted(shapes):
            values[key] = reader.get_tensor(key)
            bar.update(sizes[key])
        bar.close()
    finally:
        reader.close()
    state = torch_export.state_dict_from_values(values, name_map)
    torch_export.save_safetensors(state, output, metadata={"format": "pt", "source": "tfcompat.train convert"})
    total = sum(t.numel() * t.element_size() for t in state.values())
    print(f"wrote {output}: {len(state)} tensors, {_human(total)}", file=out)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tfcompat.train", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p_inspect = commands.add_parser("inspect", help="list a checkpoint's tensors")
    p_inspect.add_argument("checkpoint")
    p_inspect.add_argument("--tensor", help="print this tensor's value")
    p_convert = commands.add_parser("convert", help="write a checkpoint as safetensors")
    p_convert.add_argument("checkpoint")
    p_convert.add_argument("output")
    p_convert.add_argument("--name-map", help="JSON object: checkpoint key (or default name) -> name or null")
    p_convert.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                           help="show a progress bar (default: only for checkpoints over 256 MiB)")
    args = parser.parse_args(argv)
    try:
        if args.command == "inspect":
            return inspect(args.checkpoint, args.tensor)
        return convert(args.checkpoint, args.output, args.name_map, args.progress)
    except BrokenPipeError:  # `... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except (errors.OpError, ValueError, KeyError, ImportError, OSError) as error:
        print(f"error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
