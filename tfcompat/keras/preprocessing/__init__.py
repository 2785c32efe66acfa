"""`tf.keras.preprocessing`: the legacy helpers tfcompat provides (`sequence.pad_sequences`)."""

from . import sequence

__all__ = ["sequence"]
