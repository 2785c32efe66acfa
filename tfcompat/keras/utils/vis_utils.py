"""`tf.keras.utils.plot_model` and `model_to_dot`: Graphviz drawings of a model.

Drawing needs pydot (or its forks pydot_ng / pydotplus, tried in tf_keras's order) and the
Graphviz binaries. Without them both functions raise tf_keras's `ImportError`, naming what
to install. tfcompat does not draw models yet: with pydot present they raise
`NotImplementedError` instead of returning a wrong graph.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["model_to_dot", "plot_model"]


def _pydot() -> Any:
    """The first importable pydot flavour, or None (looked up per call, so installs count)."""
    for name in ("pydot_ng", "pydotplus", "pydot"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _has_graphviz(pydot: Any) -> bool:
    try:
        # Rendering an empty graph runs Graphviz's `dot`: the cheapest proof it is installed.
        pydot.Dot.create(pydot.Dot())
        return True
    except Exception:  # OSError / FileNotFoundError, or pydot_ng's InvocationException
        return False


def model_to_dot(model: Any, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = "TB",
                 expand_nested: bool = False, dpi: int = 96, subgraph: bool = False,
                 layer_range: Any = None, show_layer_activations: bool = False,
                 show_trainable: bool = False) -> Any:
    """`tf.keras.utils.model_to_dot`: the model as a `pydot.Dot` graph.

    Raises `ImportError` when pydot is not installed (tf_keras's text).
    """
    if _pydot() is None:
        raise ImportError(
            "You must install pydot (`pip install pydot`) for model_to_dot to work.")
    raise NotImplementedError("tfcompat does not draw Keras models yet (model_to_dot).")


def plot_model(model: Any, to_file: str = "model.png", show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = True, rankdir: str = "TB",
               expand_nested: bool = False, dpi: int = 96, layer_range: Any = None,
               show_layer_activations: bool = False, show_trainable: bool = False) -> Any:
    """`tf.keras.utils.plot_model`: draw the model into `to_file`.

    As tf_keras: `ValueError` for a model that is not built; then, when pydot or Graphviz
    is missing, `ImportError` naming both (inside IPython the message is printed and
    `None` returned instead, so notebooks do not crash).
    """
    if not getattr(model, "built", True):
        raise ValueError(
            "This model has not yet been built. Build the model first by calling "
            "`build()` or by calling the model on a batch of data.")
    pydot = _pydot()
    if pydot is None or not _has_graphviz(pydot):
        message = (
            "You must install pydot (`pip install pydot`) and install graphviz (see "
            "instructions at https://graphviz.gitlab.io/download/) for plot_model to work.")
        if "IPython.core.magics.namespace" in sys.modules:
            print(message)
            return None
        raise ImportError(message)
    raise NotImplementedError("tfcompat does not draw Keras models yet (plot_model).")
