"""The typed summary ops: `tf.summary.scalar`, `histogram`, `text` and `image`.

Each writes a tensor summary through `write` with the metadata of the
TensorBoard plugin that displays it, as TF 2.21 (TensorBoard's
`summary_v2` modules) does:

* `scalar`: a float32 scalar, plugin `scalars`;
* `histogram`: a `[k, 3]` float64 tensor of `(left, right, count)` rows
  (see `buckets.buckets`), plugin `histograms`;
* `text`: the string tensor as given, plugin `text`;
* `image`: a string vector `[width, height, png_1, ..., png_n]`, plugin
  `images`.

Checks that TF makes before writing (a scalar's shape, text being strings)
raise even without a default writer; those TF makes while computing the
summary tensor (an image's rank, the bucket count's type) raise only when
the summary is recorded, as in TF.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import torch

from ..framework import dtypes, errors
from ..framework.tensor_conversion import convert_to_tensor
from ..ops.image_ops import convert_image_dtype
from . import buckets as buckets_lib
from .png import encode_png
from .protos import SummaryMetadata
from .writer import _is_strings, _to_numpy, as_array, summary_scope, write

__all__ = ["scalar", "histogram", "text", "image", "plugin_metadata"]


def plugin_metadata(plugin_name: str, description: Optional[str] = None,
                    content: bytes = b"") -> SummaryMetadata:
    """The `SummaryMetadata` TensorBoard's plugins attach: the plugin's name, its (here
    always version-0, so empty) content, and the summary's description."""
    return SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=plugin_name, content=content),
        summary_description=description or "")


def _dtype_name(t: torch.Tensor) -> str:
    return dtypes.from_torch(t.dtype).name


def _cast_error(target: str) -> errors.UnimplementedError:
    return errors.UnimplementedError(None, None,
                                     f"Cast string to {target} is not supported [Op:Cast]")


def scalar(name: str, data: Any, step: Any = None,
           description: Optional[str] = None) -> torch.Tensor:
    """`tf.summary.scalar`: write a real scalar, as float32, for TensorBoard's Scalars tab.

    A non-scalar `data` raises `ValueError` (TF's "Expected scalar shape"),
    even with no default writer. Returns True when written, False without a
    default writer or when recording is off; a `ValueError` when recording
    with no step given or set.
    """
    metadata = plugin_metadata("scalars", description)
    with summary_scope(name, "scalar_summary") as (tag, _):
        if _is_strings(data):
            if np.ndim(np.asarray(data, dtype=object)) != 0:
                raise ValueError(f"Expected scalar shape, saw shape: {np.shape(data)}.")
            raise _cast_error("float")
        value = convert_to_tensor(data)
        if value.dim() != 0:
            raise ValueError(f"Expected scalar shape, saw shape: {tuple(value.shape)}.")
        return write(tag, value.to(torch.float32), step=step, metadata=metadata)


def _bucket_count(buckets: Any) -> int:
    if buckets is None:
        return buckets_lib.DEFAULT_BUCKET_COUNT
    count = convert_to_tensor(buckets)
    if count.dim() != 0:
        raise ValueError(f"Expected scalar shape, saw shape: {tuple(count.shape)}.")
    if count.dtype is not torch.int32:
        raise TypeError(f"tensor must be of type tf.int32; got tf.{_dtype_name(count)}")
    return int(count.item())


def histogram(name: str, data: Any, step: Any = None, buckets: Optional[int] = None,
              description: Optional[str] = None) -> torch.Tensor:
    """`tf.summary.histogram`: write the histogram of all of `data`'s elements.

    `buckets` (an int32 scalar, default 30) sets the number of buckets; no
    data gives `buckets` all-zero rows, and constant data puts its whole
    count in the last bucket, every edge at the value (see
    `buckets.buckets`). The values are read as float64 after TF's usual
    conversion (Python floats become float32 first). Returns True when
    written, False without a default writer or when recording is off.
    """
    metadata = plugin_metadata("histograms", description)
    strings = _is_strings(data)
    values = None if strings else convert_to_tensor(data)
    with summary_scope(name, "histogram_summary") as (tag, _):
        def bucketed() -> np.ndarray:
            count = _bucket_count(buckets)
            if strings:
                raise _cast_error("double")
            return buckets_lib.buckets(_to_numpy(values.to(torch.float64)), count)

        return write(tag, bucketed, step=step, metadata=metadata)


def text(name: str, data: Any, step: Any = None,
         description: Optional[str] = None) -> torch.Tensor:
    """`tf.summary.text`: write a string tensor (a str, bytes, or a nested list or NumPy
    array of them) for TensorBoard's Text tab, which renders it as Markdown (rank 1 and 2
    as tables). Non-string data raises `TypeError` as TF's type assertion does, even with
    no default writer."""
    metadata = plugin_metadata("text", description)
    with summary_scope(name, "text_summary") as (tag, _):
        if not _is_strings(data):
            got = convert_to_tensor(data)
            raise TypeError(f"tensor must be of type tf.string; got tf.{_dtype_name(got)}")
        return write(tag, as_array(data), step=step, metadata=metadata)


def _wide_unsigned_to_uint8(images: np.ndarray) -> torch.Tensor:
    # torch (so tfcompat) has no uint16/32/64 arithmetic: TF's integer scaling
    # (floor-divide by (MAX + 1) // 256) is done in NumPy for those.
    factor = (int(np.iinfo(images.dtype).max) + 1) // 256
    return torch.from_numpy((images // images.dtype.type(factor)).astype(np.uint8))


def _images_tensor(data: Any, max_outputs: Any) -> np.ndarray:
    wide = isinstance(data, np.ndarray) and data.dtype.kind == "u" and data.dtype.itemsize > 1
    images = _wide_unsigned_to_uint8(data) if wide else convert_to_tensor(data)
    if images.dim() != 4:
        raise ValueError(f"Tensor  must have rank 4.  Received rank {images.dim()}, "
                         f"shape {tuple(images.shape)}")
    limit = int(convert_to_tensor(max_outputs).item())
    if limit < 0:
        raise errors.InvalidArgumentError(
            None, None,
            f"\nCondition x >= 0 did not hold element-wise:\nx (shape=() dtype=int32) = \n{limit}")
    channels = images.shape[3]
    if not 1 <= channels <= 4:
        raise errors.invalid_argument(f"image must have 1, 2, 3, or 4 channels, got {channels}",
                                      "EncodePng")
    pixels = _to_numpy(images if wide else convert_image_dtype(images, dtypes.uint8, saturate=True))
    encoded = [encode_png(picture) for picture in pixels[:limit]]
    height, width = images.shape[1], images.shape[2]
    out = np.empty(2 + len(encoded), dtype=object)
    out[:] = [str(width).encode(), str(height).encode()] + encoded
    return out


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3,
          description: Optional[str] = None) -> torch.Tensor:
    """`tf.summary.image`: write up to `max_outputs` images of a `[k, h, w, c]` batch as PNGs.

    `c` is 1, 2, 3 or 4 (grey, grey + alpha, RGB, RGBA). Float data is
    scaled from [0, 1] and integer data from its type's range to uint8 with
    saturation (`tf.image.convert_image_dtype(..., saturate=True)`). The
    tensor written is `[width, height, png_1, ...]` as strings. A wrong rank
    (`ValueError`), a negative `max_outputs` or channel count out of range
    (`InvalidArgumentError`) raise only when the summary is recorded, as in
    TF. Returns True when written, False without a default writer or when
    recording is off.
    """
    metadata = plugin_metadata("images", description)
    with summary_scope(name, "image_summary") as (tag, _):
        return write(tag, lambda: _images_tensor(data, max_outputs), step=step,
                     metadata=metadata)
