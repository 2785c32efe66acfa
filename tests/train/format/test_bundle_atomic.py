"""Saving is atomic: a writer killed at a random point leaves the last checkpoint restorable.

A forked child (the modules are already imported, so each start is cheap)
writes bundle after bundle and points the `checkpoint` state file at each;
it is SIGKILLed after a random delay, 20 times. After every kill: the state
file parses and names a bundle that reads back completely and correctly;
every file under a final name (`*.index`, `*.data-*`, `checkpoint`) is
complete; leftovers exist only under temporary names.
"""

import os
import random
import signal
import sys
import time
import traceback

import numpy as np
import pytest

from tfcompat.train.format.protos import CheckpointState
from tfcompat.train.format.state_file import read_state, write_state
from tfcompat.train.format.tensor_bundle import BundleReader, BundleWriter

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _tensors(i):
    return {
        "big": np.full((128, 1024), i, dtype=np.float32),   # 512 KiB: a real window to be killed in
        "small": np.arange(5, dtype=np.int64) + i,
        "words": np.array([b"ckpt-%d" % i, b"x" * (i % 7)], dtype=object),
    }


def _save(directory, i):
    prefix = os.path.join(directory, f"ckpt-{i}")
    with BundleWriter(prefix) as w:
        for k, v in _tensors(i).items():
            w.add(k, v)
    write_state(directory, CheckpointState(model_checkpoint_path=f"ckpt-{i}",
                                           all_model_checkpoint_paths=[f"ckpt-{i}"]))


def _child(directory, start):
    try:
        i = start
        while True:
            _save(directory, i)
            i += 1
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        os._exit(1)


def _data_size(i):
    t = _tensors(i)
    words = t["words"].tolist()
    # numbers as they are; strings: one varint byte per length, a 4-byte checksum, the bytes
    return t["big"].nbytes + t["small"].nbytes + len(words) + 4 + sum(map(len, words))


def _check_bundle(prefix, i):
    with BundleReader(prefix) as r:
        assert r.keys() == sorted(_tensors(i))
        for k, v in _tensors(i).items():
            assert r.read(k).tolist() == v.tolist()


def _number(name):
    return int(name.split("-")[1].split(".")[0])


def test_killed_saves_leave_the_last_checkpoint(tmp_path):
    directory = str(tmp_path)
    _save(directory, 0)
    assert os.path.getsize(os.path.join(directory, "ckpt-0.data-00000-of-00001")) == _data_size(0)
    rng = random.Random(1234)
    last = 0
    checked = {"checkpoint"}
    for kill in range(20):
        start = 1000 * (kill + 1)
        pid = os.fork()
        if pid == 0:
            _child(directory, start)
        time.sleep(rng.uniform(0.0, 0.06))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status), "the writer failed on its own before it was killed"

        state = read_state(directory)
        assert state is not None
        current = _number(os.path.basename(state.model_checkpoint_path))
        assert current == last or current >= start  # the old state, or one of this child's
        _check_bundle(state.model_checkpoint_path, current)
        last = current
        for name in sorted(set(os.listdir(directory)) - checked):
            path = os.path.join(directory, name)
            if "tempstate" in name or name.startswith("checkpoint.tmp"):
                continue  # a killed writer's temporaries, never read
            checked.add(name)  # final names never change once renamed into place
            if name.endswith(".index"):
                _check_bundle(path[:-len(".index")], _number(name))
            elif ".data-" in name:
                assert name.endswith(".data-00000-of-00001")
                assert os.path.getsize(path) == _data_size(_number(name))  # renamed only once complete
            else:
                raise AssertionError(f"unexpected file {name}")
    # the kills landed at different stages: some children completed saves, some left temporaries
    assert last >= 1000
    assert any("tempstate" in n for n in os.listdir(directory))
