"""`tf.image`: image resizing, cropping, flipping and conversions (re-exports only)."""

__all__: list = []
