"""TF's attributes on `torch.Size`, `torch.dtype`, `torch.device`: filled in by issue 13 part 2."""

from __future__ import annotations

from typing import Any, Dict

__all__ = ["install", "uninstall", "installed"]


def install() -> Dict[str, Any]:
    return installed()


def uninstall() -> None:
    return None


def installed() -> Dict[str, Any]:
    return {}
