"""Every block of migration_guide/keras.md runs and each tf/torch pair agrees (the main
guide's parser and rules, pointed at this page)."""

from __future__ import annotations

import pathlib

import pytest

from tests import test_migration_guide as guide

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE = ROOT / "migration_guide" / "keras.md"


def _page_blocks() -> list:
    saved = guide.GUIDE
    guide.GUIDE = PAGE
    try:
        return guide._blocks()
    finally:
        guide.GUIDE = saved


BLOCKS = _page_blocks()
PAIRS = sorted({b.section for b in BLOCKS if b.kind == "tf"}
               & {b.section for b in BLOCKS if b.kind == "torch"})


def test_the_page_has_pairs_and_is_linked():
    assert len(PAIRS) >= 2
    assert "(keras.md)" in (ROOT / "migration_guide" / "README.md").read_text()


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs(block):
    namespace = guide._run(block)
    if block.kind == "tf":
        assert "import tfcompat as tf" in block.source
        assert "torch" not in block.source.replace("import tfcompat as tf", "")
        assert "result" in namespace


@pytest.mark.parametrize("section", PAIRS)
def test_tf_and_torch_blocks_agree(section):
    (tf_block,) = [b for b in BLOCKS if b.section == section and b.kind == "tf"]
    (torch_block,) = [b for b in BLOCKS if b.section == section and b.kind == "torch"]
    guide._assert_same(guide._encode(guide._run(tf_block)["result"]),
                       guide._encode(guide._run(torch_block)["result"]), section)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "tf"], ids=lambda b: b.id)
def test_tf_block_matches_tensorflow(block):
    """With TFCOMPAT_TF_PYTHON set, each `tf` block gives the same `result` under TF 2.21."""
    guide.test_tf_block_matches_tensorflow(block)
