"""Reshaping layers: `Flatten`, `Reshape`, `Permute`, `RepeatVector`, `Cropping1D/2D/3D`,
`UpSampling1D/2D/3D`, `ZeroPadding1D/2D/3D`."""

from .cropping import Cropping1D, Cropping2D, Cropping3D
from .flatten import Flatten
from .permute import Permute
from .repeat_vector import RepeatVector
from .reshape import Reshape
from .up_sampling import UpSampling1D, UpSampling2D, UpSampling3D
from .zero_padding import ZeroPadding1D, ZeroPadding2D, ZeroPadding3D

__all__ = ["Flatten", "Reshape", "Permute", "RepeatVector", "Cropping1D", "Cropping2D",
           "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D",
           "ZeroPadding2D", "ZeroPadding3D"]
