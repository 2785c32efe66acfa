"""`tf.print`'s streams (the golden table `cases_print.py` holds TF's exact text)."""

import logging
import sys

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st

import tfcompat as tf
from tfcompat.ops.logging_ops import format_tensor


def test_default_stream_is_stderr(capsys):
    tf.print(tf.constant([1, 2]), "x")
    out, err = capsys.readouterr()
    assert (out, err) == ("", "[1 2] x\n")


def test_stdout(capsys):
    tf.print(tf.constant(2.5), output_stream=sys.stdout)
    assert capsys.readouterr().out == "2.5\n"


@pytest.mark.parametrize("stream,level", [(tf.compat.v1.logging.info, logging.INFO),
                                          (tf.compat.v1.logging.warning, logging.WARNING),
                                          (logging.error, logging.ERROR),
                                          (logging.INFO, logging.INFO)])
def test_logging_streams(stream, level, caplog):
    logger = logging.getLogger("tensorflow")
    logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.DEBUG, logger="tensorflow"):
            tf.print(tf.constant([1, 2]), output_stream=stream)
    finally:
        logger.removeHandler(caplog.handler)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [(level, "[1 2]")]


def test_file_stream_appends(tmp_path):
    path = tmp_path / "log.txt"
    tf.print("a", output_stream=f"file://{path}")
    tf.print(tf.constant([True]), output_stream=f"file://{path}")
    assert path.read_text() == "a\n[1]\n"


@given(st.lists(st.integers(1, 5), min_size=1, max_size=3), st.integers(-1, 4))
def test_summarize_shows_both_ends_of_every_dimension(shape, summarize):
    """Law: the printed numbers are exactly the elements whose index is within `summarize` of
    either end in every dimension (everything for summarize=-1), in order."""
    arr = np.arange(int(np.prod(shape))).reshape(shape)
    text = format_tensor(torch.tensor(arr), summarize)
    n = arr.size if summarize < 0 else min(summarize, arr.size)
    keep = np.ones(shape, bool)
    for d, size in enumerate(shape):
        idx = np.arange(size)
        ok = (idx < n) | (idx >= max(n, size - n))
        keep &= ok.reshape([-1 if i == d else 1 for i in range(len(shape))])
    numbers = [int(tok) for tok in text.replace("[", " ").replace("]", " ").split()
               if tok != "..."]
    assert numbers == arr[keep].tolist()
    assert text.count("[") == text.count("]")
