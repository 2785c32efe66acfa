"""Every block of migration_guide/checkpoints.md runs (the main guide's rules, its parser).

Blocks run from the repository root (they read examples/data/tf_checkpoint). With
TFCOMPAT_TF_PYTHON naming a Python with TensorFlow 2.21 and tf_keras 2.21, each `tf` block
also runs there, import line swapped, and must give the same `result`."""

from __future__ import annotations

import inspect
import json
import os
import pathlib
import subprocess

import pytest

from tests import test_migration_guide as guide

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "migration_guide" / "checkpoints.md"


def _page_blocks() -> list:
    saved = guide.GUIDE
    guide.GUIDE = PAGE  # the main guide's parser, pointed at this page
    try:
        return guide._blocks()
    finally:
        guide.GUIDE = saved


BLOCKS = _page_blocks()


def test_the_page_has_tf_and_tfcompat_blocks_and_is_linked():
    assert {b.kind for b in BLOCKS} >= {"tf", "tfcompat"} and len(BLOCKS) >= 7
    assert "(checkpoints.md)" in (ROOT / "migration_guide" / "README.md").read_text()


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs(block, monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace = guide._run(block)
    if block.kind == "tf":
        assert "import tfcompat as tf" in block.source
        assert "torch" not in block.source.replace("import tfcompat as tf", "")
        assert "result" in namespace


@pytest.mark.tf_oracle
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "tf"], ids=lambda b: b.id)
def test_tf_block_matches_tensorflow(block, monkeypatch):
    python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not python:
        pytest.skip("set TFCOMPAT_TF_PYTHON to a Python with tensorflow 2.21 and tf_keras 2.21")
    monkeypatch.chdir(ROOT)
    program = guide._as_tensorflow(block.source) + guide._ORACLE_EPILOGUE.format(
        encode_item=inspect.getsource(guide._encode_item), encode=inspect.getsource(guide._encode))
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([python, "-c", program], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("__RESULT__")]
    want = json.loads(line[len("__RESULT__"):])
    guide._assert_same(guide._encode(guide._run(block)["result"]), want, f"{block.id} vs TensorFlow")
