"""`tf.summary`: TensorBoard event files written as TF 2.21 writes them.

`create_file_writer(logdir)` makes a writer; inside `writer.as_default()`
(or after `writer.set_as_default()`) the summary ops write to it:
`scalar`, `histogram`, `text`, `image`, and the generic `write`. Each
returns a bool scalar tensor, True when it wrote. Steps come from the
`step` argument or `experimental.set_step`; `record_if` turns recording on
and off. The files hold TF 2's tensor summaries with TensorBoard's plugin
metadata, framed as TFRecords, and TensorBoard reads them as it reads TF's.

Beyond TF's names, the submodules hold the event-file protos (`protos`),
the framing (`records`) and a reader (`reader.summary_iterator`, TF's
`tf.compat.v1.train.summary_iterator`). Not here: `audio`, `graph` and
`trace_on` / `trace_export` / `trace_off` (tfcompat builds no TF graphs and
runs no TF profiler).
"""

from . import experimental
from .ops import histogram, image, scalar, text
from .writer import (SummaryWriter, create_file_writer, create_noop_writer, flush, record_if,
                     should_record_summaries, write)

__all__ = [
    "SummaryWriter", "create_file_writer", "create_noop_writer", "scalar", "histogram", "text",
    "image", "write", "flush", "record_if", "should_record_summaries", "experimental",
]
