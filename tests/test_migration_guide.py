"""Every code block of every migration_guide/*.md page runs, and each section's pairs agree.

Within a section, the `result` of the ```python tf``` block (TF code run through tfcompat,
`import tfcompat as tf` for TF 2 code, `import tfcompat.compat.v1 as tf` for TF 1 code) must
equal the `result` of the ```python torch``` block (the plain-PyTorch equivalent). Blocks run
from the repository's root (some read `examples/data/`). With TFCOMPAT_TF_PYTHON naming an
interpreter that has TensorFlow 2.21 and tf_keras 2.21, each `tf` block also runs there,
import line swapped, and must give the same `result`.

Three HTML comments in a section change how its blocks are tested (each says why):

* `<!-- xfail: REASON -->`: the section needs a piece of tfcompat not built yet; its blocks
  are expected to raise `NotImplementedError` (strict: once they pass, the mark must go, and
  any other failure is a real one).
* `<!-- tf-oracle: skip: REASON -->`: real TF 2 eager cannot run the section's `tf` block as
  written (TF 1 graph-only behaviour such as collections), so the live check skips it.
* `<!-- tolerance: rtol=R, atol=A: REASON -->`: the torch side computes the same formula with
  other rounding (e.g. `torch.optim.Adam`'s bias correction), so the pair agrees to R and A
  instead of the default float32 bound (rtol=1e-6, atol=1e-7). The live check stays strict.
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

ROOT = pathlib.Path(__file__).resolve().parents[1]
GUIDE = ROOT / "migration_guide" / "README.md"
PAGES = sorted((ROOT / "migration_guide").glob("*.md"))
KINDS = ("tf", "torch", "tfcompat")
TF_IMPORTS = {  # a tf block's import line -> the line it has under real TensorFlow
    "import tfcompat as tf": "import tensorflow as tf",
    "import tfcompat.compat.v1 as tf": "import tensorflow.compat.v1 as tf",
}
_DIRECTIVE = re.compile(r"^<!--\s*(xfail|tf-oracle:\s*skip|tolerance)\s*:\s*(.+?)\s*-->\s*$")
_TOLERANCE = re.compile(r"^rtol=([0-9.e+-]+),\s*atol=([0-9.e+-]+):\s*\S")  # then the reason


@dataclass(frozen=True)
class Block:
    section: str
    kind: str
    line: int
    source: str
    page: str = "README.md"
    xfail: str | None = None  # why the section is expected to raise NotImplementedError
    oracle_skip: str | None = None  # why real TF 2 eager cannot run it as written
    tolerance: str | None = None  # "rtol=..., atol=...: why" for a torch side that rounds differently

    @property
    def id(self) -> str:
        where = "" if self.page == "README.md" else self.page[:-len(".md")] + "/"
        return f"{where}{self.section}:{self.kind}@{self.line}"

    @property
    def pair(self) -> str:
        """The page and section whose tf and torch blocks must agree."""
        return f"{self.page[:-len('.md')]}/{self.section}"


def _blocks(guide: pathlib.Path | None = None) -> list[Block]:
    """The page's code blocks (default: `GUIDE`, read when called, so callers may repoint it)."""
    guide = GUIDE if guide is None else guide
    found, section, fence = [], "preamble", None
    directives: dict[str, dict[str, str]] = {}
    for number, line in enumerate(guide.read_text().splitlines(), start=1):
        if fence is not None:
            if line.startswith("```"):
                kind, start, body = fence
                found.append((section, kind, start, "\n".join(body) + "\n"))
                fence = None
            else:
                fence[2].append(line)
        elif line.startswith("## "):
            section = re.sub(r"[^a-z0-9]+", "-", line[3:].lower()).strip("-")
        elif line.startswith("```python "):
            kind = line.split()[1]
            assert kind in KINDS, f"{guide.name} line {number}: unknown block kind {kind!r}"
            fence = (kind, number, [])
        elif match := _DIRECTIVE.match(line.strip()):
            key = {"xfail": "xfail", "tolerance": "tolerance"}.get(match.group(1), "oracle_skip")
            assert key != "tolerance" or _TOLERANCE.match(match.group(2)), \
                f"{guide.name} line {number}: write <!-- tolerance: rtol=R, atol=A: reason -->"
            directives.setdefault(section, {})[key] = match.group(2)
    assert fence is None, f"{guide.name}: unterminated code block"
    page_wide = directives.get("preamble", {})
    return [Block(section, kind, start, source, guide.name,
                  **{**page_wide, **directives.get(section, {})})
            for section, kind, start, source in found]


BLOCKS = [block for page in PAGES for block in _blocks(page)]
README_BLOCKS = [b for b in BLOCKS if b.page == "README.md"]
PAIRS = sorted({b.pair for b in BLOCKS if b.kind == "tf"} & {b.pair for b in BLOCKS if b.kind == "torch"})


def _fresh_tf1_state() -> None:
    """Each block is its own program: clear TF 1's global state (the default variable store,
    collections) as a new process would, where tfcompat builds `reset_default_graph`."""
    import tfcompat.compat.v1 as tf1

    try:
        tf1.reset_default_graph()
    except NotImplementedError:
        pass  # not built yet: nothing global to clear


def _fresh_runtime() -> None:
    """A block that splits the CPU into logical devices needs a runtime not yet initialized,
    as at a program's start; reset it (and hide GPUs again, as tests/conftest.py does)."""
    import tfcompat as tf
    from tfcompat.framework import device as device_lib

    device_lib._reset_runtime()
    if not os.environ.get("TFCOMPAT_TEST_GPU"):
        tf.config.set_visible_devices(tf.config.list_physical_devices("CPU"))


def _run(block: Block, guide: pathlib.Path | None = None) -> dict[str, Any]:
    """Executes the block from the repository's root, in a namespace of its own."""
    path = ROOT / "migration_guide" / block.page if guide is None else guide
    namespace: dict[str, Any] = {"__name__": f"migration_guide_{block.section.replace('-', '_')}"}
    configures_devices = "set_logical_device_configuration" in block.source
    _fresh_tf1_state()
    if configures_devices:
        _fresh_runtime()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(block.source, f"{path}:{block.line}", "exec"), namespace)  # noqa: S102
    finally:
        os.chdir(here)
        if configures_devices:
            _fresh_runtime()  # the blocks and tests after it see one CPU again
    return namespace


def _marks(*blocks: Block) -> list:
    """An xfail section's blocks that use tfcompat are expected to raise NotImplementedError;
    its torch blocks must run as usual."""
    reasons = sorted({b.xfail for b in blocks if b.xfail and "tfcompat" in b.source})
    if not reasons:
        return []
    return [pytest.mark.xfail(raises=NotImplementedError, strict=True, reason="; ".join(reasons))]


def _params(blocks: list[Block]) -> list:
    return [pytest.param(b, id=b.id, marks=_marks(b)) for b in blocks]


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


def _assert_same(got: list[Any], want: list[Any], where: str, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    assert len(got) == len(want), f"{where}: {len(got)} results, expected {len(want)}"
    for index, (g, w) in enumerate(zip(got, want)):
        if not isinstance(w, dict) or not isinstance(g, dict):
            assert g == w, f"{where}: result[{index}] is {g!r}, expected {w!r}"
            continue
        assert g["shape"] == w["shape"], f"{where}: result[{index}] has shape {g['shape']}, expected {w['shape']}"
        if w["data"] and isinstance(w["data"][0], float):
            np.testing.assert_allclose(g["data"], w["data"], rtol=rtol, atol=atol, err_msg=f"{where}: result[{index}]")
        else:
            assert g["data"] == w["data"], f"{where}: result[{index}] is {g['data']}, expected {w['data']}"


def test_the_guide_has_blocks_of_every_kind():
    assert {b.kind for b in README_BLOCKS} == set(KINDS)
    assert len([p for p in PAIRS if p.startswith("README/")]) >= 6


def test_every_page_is_linked_from_the_index_and_has_blocks():
    index = GUIDE.read_text()
    for page in PAGES:
        assert page.name == "README.md" or f"({page.name})" in index, f"README.md does not link {page.name}"
        assert _blocks(page), f"{page.name} has no code blocks"


def test_directives_are_parsed():
    marked = [b for b in BLOCKS if b.xfail]
    assert all("tfcompat" in b.xfail for b in marked), "an xfail reason names the missing module"


def _check_tf_block(block: Block, namespace: dict[str, Any]) -> None:
    imports = [line for line in TF_IMPORTS if line in block.source]
    assert imports, f"{block.id}: a tf block is TF code with the import line swapped"
    rest = block.source
    for line in imports:
        rest = rest.replace(line, "")
    assert "torch" not in rest, f"{block.id} is meant to be plain TF code: it cannot use torch"


@pytest.mark.parametrize("block", _params(BLOCKS))
def test_block_runs(block):
    namespace = _run(block)
    if block.kind == "tfcompat":
        return  # these blocks assert what they show
    if block.pair in PAIRS:
        assert "result" in namespace, f"{block.id} must set `result` for its pair"
    if block.kind == "tf":
        _check_tf_block(block, namespace)


def _pair(pair: str) -> tuple[Block, Block]:
    (tf_block,) = [b for b in BLOCKS if b.pair == pair and b.kind == "tf"]
    (torch_block,) = [b for b in BLOCKS if b.pair == pair and b.kind == "torch"]
    return tf_block, torch_block


@pytest.mark.parametrize("pair", [pytest.param(p, id=p, marks=_marks(*_pair(p))) for p in PAIRS])
def test_tf_and_torch_blocks_agree(pair):
    tf_block, torch_block = _pair(pair)
    got = _encode(_run(tf_block)["result"])
    want = _encode(_run(torch_block)["result"])
    tolerances = {"rtol": 1e-6, "atol": 1e-7}
    if tf_block.tolerance:  # a section's own bound, with its reason in the page
        rtol, atol = _TOLERANCE.match(tf_block.tolerance).groups()
        tolerances = {"rtol": float(rtol), "atol": float(atol)}
    _assert_same(got, want, pair, **tolerances)


# --- against real TensorFlow (optional) --------------------------------------------

_ORACLE_EPILOGUE = """
import json as _json
from typing import Any

import numpy as np
{encode_item}
{encode}
print("__RESULT__" + _json.dumps(_encode(result)))
"""


_TF1_ORACLE_PROLOGUE = """\
# TF 2 eager keeps no default variable store: give get_variable one, as
# tf.compat.v1.keras.utils.track_tf1_style_variables does, so variable_scope reuse shares.
from tensorflow.python.ops import variable_scope as _variable_scope
_store = _variable_scope.EagerVariableStore().as_default()
_store.__enter__()
"""


def _as_tensorflow(source: str) -> str:
    """The block as a program for real TensorFlow: import line swapped (TF 1 code gets an
    eager variable store); tfcompat's tf.keras.optimizers are OptimizerV2, which tf_keras
    2.21 keeps under .legacy."""
    if "import tfcompat.compat.v1 as tf" in source:
        return _TF1_ORACLE_PROLOGUE + source.replace(
            "import tfcompat.compat.v1 as tf", TF_IMPORTS["import tfcompat.compat.v1 as tf"])
    source = source.replace("import tfcompat as tf", TF_IMPORTS["import tfcompat as tf"])
    return re.sub(r"tf\.keras\.optimizers\.(?!schedules\b)", "tf.keras.optimizers.legacy.", source)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("block", _params([b for b in BLOCKS if b.kind == "tf"]))
def test_tf_block_matches_tensorflow(block):
    python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not python:
        pytest.skip("set TFCOMPAT_TF_PYTHON to a Python with tensorflow 2.21 and tf_keras 2.21")
    if block.oracle_skip:
        pytest.skip(block.oracle_skip)
    import inspect

    program = _as_tensorflow(block.source) + _ORACLE_EPILOGUE.format(
        encode_item=inspect.getsource(_encode_item), encode=inspect.getsource(_encode))
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    done = subprocess.run([python, "-c", program], capture_output=True, text=True, env=env, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("__RESULT__")]
    want = json.loads(line[len("__RESULT__"):])
    _assert_same(_encode(_run(block)["result"]), want, f"{block.id} vs TensorFlow")


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
