"""`tf.train`: checkpoints and tracking (re-exports only)."""

# tf.train.Checkpoint (checkpoint.py); tf.Module lives in module.py, Trackable in trackable.py
# (TF exports neither under tf.train).
from .checkpoint import Checkpoint
from .checkpoint_options import CheckpointOptions

# Reading checkpoints by key, export to torch/safetensors (reader.py, torch_export.py)
from .reader import list_variables, load_checkpoint, load_variable
from .checkpoint_management import CheckpointManager, checkpoints_iterator, get_checkpoint_state, latest_checkpoint
from .torch_export import load_adam_state, save_safetensors, to_state_dict
