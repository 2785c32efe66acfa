"""Convolution layers (`Conv1D`, `Conv2D`, `Conv3D` and their `Convolution*` aliases)."""

from .base_conv import Conv, Conv1D, Conv2D, Conv3D

Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Convolution1D", "Convolution2D", "Convolution3D"]
