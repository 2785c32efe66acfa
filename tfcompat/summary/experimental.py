"""`tf.summary.experimental`: the default step and the scope helper for custom summary ops."""

from __future__ import annotations

from .writer import get_step, set_step, summary_scope

__all__ = ["get_step", "set_step", "summary_scope"]
