"""Regularization layers: `Dropout`."""

from .dropout import Dropout

__all__ = ["Dropout"]
