"""The package layers import one way: framework <- ops <- autodiff / variables <- the rest.

`framework/variable_protocol.py` is the seam that lets ops, conversion and the tape meet
variables without importing them, so `variables` never imports `autodiff` (the tape
registers a read recorder instead) and `ops` imports neither.
"""

import ast
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tfcompat"

# package -> the tfcompat packages its modules may import
ALLOWED = {
    "framework": {"framework"},
    "ops": {"framework", "ops"},
    "autodiff": {"framework", "ops", "autodiff"},
    "variables": {"framework", "ops", "variables"},
    "distribute": {"framework", "ops", "variables", "distribute"},  # ops: add_n, TF's sum order
    # data: an iterator is a Trackable (train/trackable.py imports only framework), so
    # tf.train.Checkpoint(iterator=it) saves its position
    "data": {"framework", "ops", "data", "train"},
    # compat sits on everything: the porting kit's TF 1 layers are Keras layers, its
    # variable stores create tf.Variables through the creator stack, its optimizers share
    # the Keras kernels and are trackable (train); summary: compat.v1.train.summary_iterator
    "compat": {"framework", "ops", "autodiff", "variables", "distribute", "data", "train",
               "keras", "summary", "compat"},
    # interop views tf.Modules as nn.Modules and back (Keras layers by duck typing)
    "interop": {"framework", "ops", "autodiff", "variables", "distribute", "train", "interop"},
    # keras sits on everything but compat: layers are tf.Modules (train), weights are
    # tf.Variables (variables), metrics are sync-on-read under strategies (distribute),
    # Normalization.adapt reads tf.data datasets (data), mixed precision scales gradients
    # (autodiff)
    "keras": {"framework", "ops", "autodiff", "variables", "distribute", "data", "train",
              "keras", "summary"},  # summary: the TensorBoard callback writes event files
    "summary": {"framework", "ops", "distribute", "train", "summary"},  # train: the wire format
}


def _imports(path: pathlib.Path) -> set:
    """The tfcompat packages a module imports (relative imports resolved)."""
    rel = path.relative_to(PACKAGE).parts
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(rel[:-1])[: len(rel) - node.level]
            target = base + (node.module.split(".") if node.module else [])
            if target:
                found.add(target[0])
            else:  # `from .. import x`
                found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tfcompat."):
            found.add(node.module.split(".")[1])
    return found


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_packages_import_only_lower_layers(package):
    bad = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        extra = _imports(path) - ALLOWED[package]
        if extra:
            bad[str(path.relative_to(PACKAGE))] = sorted(extra)
    assert bad == {}


@pytest.mark.parametrize("module", ["tfcompat.framework.variable_protocol", "tfcompat.ops",
                                    "tfcompat.autodiff", "tfcompat.variables",
                                    "tfcompat.keras.optimizers", "tfcompat.keras.layers",
                                    "tfcompat.keras.engine.base_layer", "tfcompat"])
def test_each_package_imports_on_its_own(module):
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, timeout=120)
