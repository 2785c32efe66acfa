"""Preprocessing layers: image resizing/cropping/rescaling and augmentation (`Resizing`,
`CenterCrop`, `Rescaling`, `RandomFlip`, `RandomRotation`, `RandomZoom`,
`RandomTranslation`), `Normalization`, and the integer lookup/encoding layers
(`CategoryEncoding`, `Discretization`, `IntegerLookup`). String layers are not provided."""

from .base_preprocessing_layer import PreprocessingLayer
from .category_encoding import CategoryEncoding
from .discretization import Discretization
from .image_augmentation import RandomFlip, RandomRotation, RandomTranslation, RandomZoom
from .image_preprocessing import CenterCrop, Rescaling, Resizing
from .integer_lookup import IntegerLookup
from .normalization import Normalization

__all__ = ["PreprocessingLayer", "Resizing", "CenterCrop", "Rescaling", "RandomFlip",
           "RandomRotation", "RandomZoom", "RandomTranslation", "Normalization",
           "CategoryEncoding", "Discretization", "IntegerLookup"]
