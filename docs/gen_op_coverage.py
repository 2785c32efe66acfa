"""Regenerate the op index of `docs/op_coverage.md` from what tfcompat exports.

The index (between the `GENERATED` markers) lists every name of `tfcompat.ops.__all__`
and of each op namespace's `__all__` (`tf.math`, `tf.nn`, ...), the module that defines it
and the first line of its docstring, so the document cannot drift from the code;
`tests/ops/test_op_coverage_doc.py` fails when the file is stale. Run:

    python docs/gen_op_coverage.py          # rewrite docs/op_coverage.md in place
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "op_coverage.md")
BEGIN = "<!-- GENERATED: the op index, by docs/gen_op_coverage.py; do not edit by hand -->"
END = "<!-- END GENERATED -->"

#: (namespace as TF spells it, tfcompat module path)
NAMESPACES = [("tf", "tfcompat.ops"), ("tf.math", "tfcompat.math"), ("tf.nn", "tfcompat.nn"),
              ("tf.linalg", "tfcompat.linalg"), ("tf.random", "tfcompat.random"),
              ("tf.random.experimental", "tfcompat.random.experimental"),
              ("tf.bitwise", "tfcompat.bitwise"), ("tf.debugging", "tfcompat.debugging")]


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    first = doc.strip().split("\n\n")[0].replace("\n", " ").strip()
    return first.replace("|", "\\|") or "—"


def _where(obj) -> str:
    module = getattr(obj, "__module__", None) or "?"
    return module[len("tfcompat."):] if module.startswith("tfcompat.") else module


def entries():
    """(namespace, name, object) for every exported op, namespace by namespace."""
    for tf_name, module_path in NAMESPACES:
        try:
            module = importlib.import_module(module_path)
        except ImportError:  # a namespace object inside a module (`tfcompat.random.experimental`)
            parent, _, attr = module_path.rpartition(".")
            module = getattr(importlib.import_module(parent), attr, None)
            if module is None:
                continue
        for name in sorted(module.__all__):
            obj = getattr(module, name)
            if not inspect.ismodule(obj):  # (sub-namespaces get their own section)
                yield tf_name, name, obj


def render_index() -> str:
    lines = [BEGIN, "", "## Index of every exported op", ""]
    current = None
    for tf_name, name, obj in entries():
        if tf_name != current:
            if current is not None:
                lines.append("")
            current = tf_name
            lines += [f"### `{tf_name}`", "", "| name | defined in | semantics |", "|---|---|---|"]
        lines.append(f"| `{tf_name}.{name}` | `{_where(obj)}` | {_summary(obj)} |")
    lines += ["", END]
    return "\n".join(lines)


def render(current: str) -> str:
    """`current` with its generated block replaced (appended when it has none)."""
    index = render_index()
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        return head + index + tail
    return current.rstrip("\n") + "\n\n" + index + "\n"


def main() -> None:
    sys.path.insert(0, os.path.dirname(HERE))
    with open(DOC, encoding="utf-8") as f:
        current = f.read()
    new = render(current)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"{DOC}: {sum(1 for _ in entries())} entries")


if __name__ == "__main__":
    main()
