"""`tf.print`: TF's tensor formatting (`Tensor::SummarizeValue`, print_v2 style) on the host.

What TF prints, kept here:

* a tensor is nested brackets, elements separated by a space, rows by a
  newline and one more space of indent per level (`[[1 2]\\n [3 4]]`);
  blocks of higher dimensions are separated by blank lines;
* with `summarize=n` (default 3) each dimension shows its first and last
  `n` entries around `...` (`summarize=-1`: everything); the number of
  entries at each end is at most the tensor's element count;
* floats are printed shortest-first as TF's `StrCat` does: `%.6g` (float)
  or `%.15g` (double) when that reads back to the same value, else `%.9g` /
  `%.17g`; half precision values go through float; bools print `1` / `0`;
  complex values print `?` (TF has no formatter for them);
* Python values (strings raw, other objects and structures through
  `pprint.pformat`, with the tensors inside them formatted in place) are
  joined with `sep` and ended with `end`.

`output_stream` is `sys.stdout`, `sys.stderr` (the streams current at the
call), a logging function or level (`tf.compat.v1.logging.info`,
`logging.warning`, `logging.ERROR`, ...), or `"file://<path>"` (appended).
Printing reads the tensor's values on the host: one copy, as TF's kernel.
"""

from __future__ import annotations

import logging as _pylogging
import os
import pprint
import sys
from typing import Any

import numpy as np
import torch

from ..framework import nest
from ..framework import variable_protocol as protocol
from ..framework.tensor_conversion import convert_to_tensor

__all__ = ["print_v2", "format_tensor"]

_PLACEHOLDER = "\x00tfcompat-tensor\x00"


def _float(x: float, short: int, full: int, np_type: type) -> str:
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = f"{x:.{short}g}"
    if np_type(float(text)) != np_type(x):
        text = f"{x:.{full}g}"
    return text


def _element_formatter(dtype: torch.dtype) -> Any:
    if dtype is torch.float64:
        return lambda v: _float(float(v), 15, 17, np.float64)
    if dtype.is_floating_point:
        return lambda v: _float(float(v), 6, 9, np.float32)
    if dtype is torch.bool:
        return lambda v: "1" if v else "0"
    if dtype.is_complex:
        return lambda v: "?"
    return lambda v: str(int(v))


def _spacing(dim: int, ndims: int) -> str:
    if dim == ndims - 1:
        return " "
    return "\n" * (ndims - dim - 1) + " " * (dim + 1)


def format_tensor(t: torch.Tensor, summarize: int = 3) -> str:
    """`t` as TF's `tf.print` / `tf.strings.format` show it (see the module docstring).

    Only the shown elements are copied to the host: each summarized
    dimension is cut to its two ends on the tensor's device first.
    """
    n = t.numel()
    limit = n if summarize is None or summarize < 0 else min(summarize, n)
    shape = tuple(t.shape)
    fmt = _element_formatter(t.dtype)
    sub = t.detach()
    cut = []
    for d, count in enumerate(shape):
        cut.append(count > 2 * limit)
        if cut[-1]:
            keep = torch.cat([torch.arange(limit, device=sub.device),
                              torch.arange(count - limit, count, device=sub.device)])
            sub = sub.index_select(d, keep)
    if sub.dtype is torch.bfloat16 or sub.dtype is torch.float16:
        sub = sub.float()  # TF prints half precision through float
    values = sub.cpu().resolve_conj().reshape(-1).tolist()
    if not shape:
        return fmt(values[0]) if limit > 0 else ""
    ndims = len(shape)
    sizes = tuple(sub.shape)
    strides = [1] * ndims
    for i in range(ndims - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    out: list = []

    def dim(d: int, start: int) -> None:
        if d == ndims:
            out.append(fmt(values[start]))
            return
        out.append("[")
        head = range(limit) if cut[d] else range(sizes[d])
        for i in head:
            if i > 0:
                out.append(_spacing(d, ndims))
            dim(d + 1, start + strides[d] * i)
        if cut[d]:
            out.append(_spacing(d, ndims))
            out.append("...")
            for i in range(limit, 2 * limit):
                out.append(_spacing(d, ndims))
                dim(d + 1, start + strides[d] * i)
        out.append("]")

    dim(0, 0)
    return "".join(out)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, torch.Tensor) or protocol.is_variable(x)


def _stream(output_stream: Any) -> Any:
    """A writer for `output_stream`, or TF's ValueError for one it does not support."""
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        path = output_stream[len("file://"):]

        def write(text: str) -> None:
            with open(path, "a") as f:
                f.write(text)
        return write
    if output_stream is sys.stdout or output_stream is sys.__stdout__:
        return lambda text: (sys.stdout.write(text), sys.stdout.flush())
    if output_stream is sys.stderr or output_stream is sys.__stderr__:
        return lambda text: (sys.stderr.write(text), sys.stderr.flush())
    level = _log_level(output_stream)
    if level is not None:
        logger = _pylogging.getLogger("tensorflow")
        return lambda text: logger.log(level, text[:-1] if text.endswith("\n") else text)
    raise ValueError("Unsupported output stream, logging level, or file." + str(output_stream) +
                     ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, "
                     "tf.logging.warning, tf.logging.error. File needs to be in the form of "
                     "'file://<filepath>'.")


_LEVELS = {"info": _pylogging.INFO, "warning": _pylogging.WARNING, "warn": _pylogging.WARNING,
           "error": _pylogging.ERROR}


def _log_level(stream: Any) -> Any:
    """The logging level a logging function or level names (TF's map), else None."""
    if type(stream) is int and stream in (_pylogging.INFO, _pylogging.WARNING, _pylogging.ERROR):
        return stream
    module = getattr(stream, "__module__", None)
    if callable(stream) and module in ("logging", "tfcompat.compat.v1.logging"):
        return _LEVELS.get(getattr(stream, "__name__", ""))
    return None


def print_v2(*inputs: Any, **kwargs: Any) -> None:
    """`tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=" ", end="\\n", name=None)`.

    Prints the inputs as TF does (module docstring); unknown keywords are
    TF's `ValueError`. Returns None (eager TF).
    """
    output_stream = kwargs.pop("output_stream", None)
    kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", os.linesep)
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    write = _stream(sys.stderr if output_stream is None else output_stream)
    if summarize is None:
        summarize = 3
    parts = []
    for item in inputs:
        if isinstance(item, str):
            parts.append(item)
            continue
        tensors = []
        leaves = []
        for leaf in nest.flatten(item):
            if _is_tensor(leaf):
                tensors.append(convert_to_tensor(leaf))
                leaves.append(_PLACEHOLDER)
            else:
                leaves.append(leaf)
        if _is_tensor(item):
            template = _PLACEHOLDER
        else:
            template = pprint.pformat(nest.pack_sequence_as(item, leaves))
            template = template.replace(repr(_PLACEHOLDER), _PLACEHOLDER)
        pieces = template.split(_PLACEHOLDER)
        text = pieces[0]
        for t, rest in zip(tensors, pieces[1:]):
            text += format_tensor(t, summarize) + rest
        parts.append(text)
    write(sep.join(parts) + end)
    return None
