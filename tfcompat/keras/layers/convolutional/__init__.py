"""Convolution layers: `Conv1D/2D/3D`, their transposes, depthwise and separable
convolutions, with tf_keras's `Convolution*` aliases."""

from .base_conv import Conv, Conv1D, Conv2D, Conv3D
from .conv_transpose import Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
from .depthwise_separable import (DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D,
                                  SeparableConv2D)

Convolution1D = Conv1D
Convolution2D = Conv2D
Convolution3D = Conv3D
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose
SeparableConvolution1D = SeparableConv1D
SeparableConvolution2D = SeparableConv2D

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Convolution1D", "Convolution2D", "Convolution3D",
           "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose", "Convolution1DTranspose",
           "Convolution2DTranspose", "Convolution3DTranspose", "DepthwiseConv1D",
           "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D",
           "SeparableConvolution2D"]
