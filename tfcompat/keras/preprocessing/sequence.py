"""`tf.keras.preprocessing.sequence`: `pad_sequences` (the same as `tf.keras.utils`')."""

from ..utils.sequence_utils import pad_sequences

__all__ = ["pad_sequences"]
