"""Normalization layers: `BatchNormalization`, `LayerNormalization`, `GroupNormalization`,
`UnitNormalization`."""

from .batch_normalization import BatchNormalization
from .group_normalization import GroupNormalization
from .layer_normalization import LayerNormalization
from .unit_normalization import UnitNormalization

__all__ = ["BatchNormalization", "GroupNormalization", "LayerNormalization",
           "UnitNormalization"]
