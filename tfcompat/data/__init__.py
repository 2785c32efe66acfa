"""`tf.data`: datasets of host tensors as a lazy Python pipeline (see docs/data.md).

Iterating yields plain `torch.Tensor` nests; `Dataset.from_torch` and
`Dataset.to_torch` bridge to `torch.utils.data` (multi-worker loading).
"""

from . import experimental
from .dataset_ops import AUTOTUNE, INFINITE, UNKNOWN, Dataset, DatasetV2, Iterator, NumpyIterator
from .options import Options, ThreadingOptions
from .structure import DatasetSpec

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

__all__ = ["Dataset", "DatasetSpec", "Iterator", "NumpyIterator", "Options", "ThreadingOptions",
           "AUTOTUNE",
           "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental"]
