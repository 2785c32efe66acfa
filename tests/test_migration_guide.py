"""Every code block of migration_guide/README.md runs, and each section's pairs agree.

Within a section, the `result` of the ```python tf``` block (TF code run through tfcompat)
must equal the `result` of the ```python torch``` block (the plain-PyTorch equivalent).
With TFCOMPAT_TF_PYTHON naming an interpreter that has TensorFlow 2.21 and tf_keras 2.21,
each `tf` block also runs there, import line swapped, and must give the same `result`.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

GUIDE = pathlib.Path(__file__).resolve().parents[1] / "migration_guide" / "README.md"
KINDS = ("tf", "torch", "tfcompat")


@dataclass(frozen=True)
class Block:
    section: str
    kind: str
    line: int
    source: str

    @property
    def id(self) -> str:
        return f"{self.section}:{self.kind}@{self.line}"


def _blocks() -> list[Block]:
    blocks, section, fence = [], "preamble", None
    lines = GUIDE.read_text().splitlines()
    for number, line in enumerate(lines, start=1):
        if fence is not None:
            if line.startswith("```"):
                kind, start, body = fence
                blocks.append(Block(section, kind, start, "\n".join(body) + "\n"))
                fence = None
            else:
                fence[2].append(line)
        elif line.startswith("## "):
            section = re.sub(r"[^a-z0-9]+", "-", line[3:].lower()).strip("-")
        elif line.startswith("```python "):
            kind = line.split()[1]
            assert kind in KINDS, f"line {number}: unknown block kind {kind!r}"
            fence = (kind, number, [])
    assert fence is None, "unterminated code block"
    return blocks


BLOCKS = _blocks()
PAIRS = sorted({b.section for b in BLOCKS if b.kind == "tf"} & {b.section for b in BLOCKS if b.kind == "torch"})


def _run(block: Block) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": f"migration_guide_{block.section}"}
    exec(compile(block.source, f"{GUIDE}:{block.line}", "exec"), namespace)  # noqa: S102
    return namespace


# A result travels as JSON: None, a string, or {"shape", "data"} for anything array-like.
def _encode_item(item: Any) -> Any:
    if item is None or isinstance(item, str):
        return item
    if isinstance(item, (list, tuple)):
        item = [np.asarray(element) for element in item]
    array = np.asarray(item)
    if array.dtype.kind in "fc":
        array = array.astype(np.float64)
    return {"shape": list(array.shape), "data": array.ravel().tolist()}


def _encode(result: Any) -> list[Any]:
    return [_encode_item(item) for item in (result if isinstance(result, tuple) else (result,))]


def _assert_same(got: list[Any], want: list[Any], where: str) -> None:
    assert len(got) == len(want), f"{where}: {len(got)} results, expected {len(want)}"
    for index, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, dict) or not isinstance(g, dict):
            assert g == w, f"{where}: result[{index}] is {g!r}, expected {w!r}"
            continue
        assert g["shape"] == w["shape"], f"{where}: result[{index}] has shape {g['shape']}, expected {w['shape']}"
        if w["data"] and isinstance(w["data"][0], float):
            np.testing.assert_allclose(g["data"], w["data"], rtol=1e-6, atol=1e-7, err_msg=f"{where}: result[{index}]")
        else:
            assert g["data"] == w["data"], f"{where}: result[{index}] is {g['data']}, expected {w['data']}"


def test_the_guide_has_blocks_of_every_kind():
    assert {b.kind for b in BLOCKS} == set(KINDS)
    assert len(PAIRS) >= 6


@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_block_runs(block):
    namespace = _run(block)
    if block.kind == "tfcompat":
        return  # these blocks assert what they show
    if block.section in PAIRS:
        assert "result" in namespace, f"{block.id} must set `result` for its pair"
    if block.kind == "tf":
        assert "import tfcompat as tf" in block.source, "a tf block is TF code with the import line swapped"
        assert "torch" not in block.source.replace("import tfcompat as tf", ""), \
            f"{block.id} is meant to be plain TF code: it cannot use torch"


@pytest.mark.parametrize("section", PAIRS)
def test_tf_and_torch_blocks_agree(section):
    (tf_block,) = [b for b in BLOCKS if b.section == section and b.kind == "tf"]
    (torch_block,) = [b for b in BLOCKS if b.section == section and b.kind == "torch"]
    got = _encode(_run(tf_block)["result"])
    want = _encode(_run(torch_block)["result"])
    _assert_same(got, want, section)


# --- against real TensorFlow (optional) --------------------------------------------

_ORACLE_EPILOGUE = """
import json as _json
from typing import Any

import numpy as np
{encode_item}
{encode}
print("__RESULT__" + _json.dumps(_encode(result)))
"""


def _as_tensorflow(source: str) -> str:
    source = source.replace("import tfcompat as tf", "import tensorflow as tf")
    # tfcompat's tf.keras.optimizers are OptimizerV2, which tf_keras 2.21 keeps under .legacy
    return re.sub(r"tf\.keras\.optimizers\.(?!schedules\b)", "tf.keras.optimizers.legacy.", source)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("block", [b for b in BLOCKS if b.kind == "tf"], ids=lambda b: b.id)
def test_tf_block_matches_tensorflow(block):
    python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not python:
        pytest.skip("set TFCOMPAT_TF_PYTHON to a Python with tensorflow 2.21 and tf_keras 2.21")
    import inspect

    program = _as_tensorflow(block.source) + _ORACLE_EPILOGUE.format(
        encode_item=inspect.getsource(_encode_item), encode=inspect.getsource(_encode))
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([python, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("__RESULT__")]
    want = json.loads(line[len("__RESULT__"):])
    _assert_same(_encode(_run(block)["result"]), want, f"{block.id} vs TensorFlow")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
