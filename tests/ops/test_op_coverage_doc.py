"""`docs/op_coverage.md`'s op index is generated from the exports and must be current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_op_coverage", DOCS / "gen_op_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_index_is_current():
    gen = _generator()
    current = (DOCS / "op_coverage.md").read_text(encoding="utf-8")
    assert gen.render(current) == current, \
        "docs/op_coverage.md is stale: run `python docs/gen_op_coverage.py`"


def test_every_listed_name_is_callable_and_every_export_listed():
    gen = _generator()
    doc = (DOCS / "op_coverage.md").read_text(encoding="utf-8")
    index = doc.split(gen.BEGIN, 1)[1].split(gen.END, 1)[0]
    listed = set(re.findall(r"^\| `(tf[\w.]*)\.(\w+)` \|", index, flags=re.M))
    exported = {(ns, name) for ns, name, _ in gen.entries()}
    assert listed == exported, (sorted(exported - listed), sorted(listed - exported))
    for ns, name, obj in gen.entries():
        assert callable(obj), f"{ns}.{name}"


def test_curated_tables_name_only_exported_ops():
    # The hand-written tables above the index name ops in their first column: each must exist.
    gen = _generator()
    doc = (DOCS / "op_coverage.md").read_text(encoding="utf-8").split(gen.BEGIN, 1)[0]
    exported = {name for _, name, _ in gen.entries()} | {f"{ns[3:]}.{name}" for ns, name, _ in
                                                          gen.entries() if ns != "tf"}
    for row in re.findall(r"^\| (`[^|]*) \|", doc, flags=re.M):
        for name in re.findall(r"`([\w.]+)`", row.split("(also")[0]):
            assert name in exported or name.split(".")[-1] in exported, name
