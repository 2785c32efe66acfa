"""Pooling layers: window pooling (1-D, 2-D) and global pooling, with tf_keras's aliases."""

from .global_pooling import (GlobalAveragePooling1D, GlobalAveragePooling2D,
                             GlobalMaxPooling1D, GlobalMaxPooling2D)
from .window_pooling import AveragePooling1D, AveragePooling2D, MaxPooling1D, MaxPooling2D

MaxPool1D, MaxPool2D = MaxPooling1D, MaxPooling2D
AvgPool1D, AvgPool2D = AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D

__all__ = ["MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D"]
