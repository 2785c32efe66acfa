"""Writes every case of `cases.py` with tfcompat into one event file, for the TF-side check.

    .venv/bin/python tests/summary/write_tfcompat_events.py /tmp/tfcompat_events

`gen_summary_goldens.py --tfcompat-dir /tmp/tfcompat_events` (run with TensorFlow) then
reads the file with `tf.compat.v1.train.summary_iterator` and compares each summary with
the one TF writes. The tests import `write_all` to write the same file.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.summary.cases import CASES, run_case  # noqa: E402


def write_all(logdir: str) -> str:
    """Writes all cases in order into a new event file in `logdir`; returns its path."""
    from tfcompat import summary
    from tfcompat.framework.name_scope import name_scope

    writer = summary.create_file_writer(logdir)
    with writer.as_default():
        for case in CASES:
            if not bool(run_case(summary, case, name_scope)):
                raise AssertionError(f"case {case['id']} wrote nothing")
    writer.close()
    return writer.path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(write_all(sys.argv[1]))
