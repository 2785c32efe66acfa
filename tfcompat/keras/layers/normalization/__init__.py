"""Normalization layers: `BatchNormalization`."""

from .batch_normalization import BatchNormalization

__all__ = ["BatchNormalization"]
