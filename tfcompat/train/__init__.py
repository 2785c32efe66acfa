"""`tf.train`: checkpoints and tracking."""
