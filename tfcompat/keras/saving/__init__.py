"""`tf.keras.saving`: object registration, config serialization and weights files."""
