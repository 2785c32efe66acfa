"""`tf.train`: checkpoints and tracking."""

# Reading checkpoints by key, export to torch/safetensors (reader.py, torch_export.py)
from .reader import CheckpointReader, list_variables, load_checkpoint, load_variable
