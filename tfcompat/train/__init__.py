"""`tf.train`: checkpoints and tracking (re-exports only)."""

from .checkpoint import Checkpoint, CheckpointLoadStatus, InitializationOnlyStatus, NameBasedSaverStatus
from .module import Module
from .trackable import Trackable

# Reading checkpoints by key, export to torch/safetensors (reader.py, torch_export.py)
from .reader import CheckpointReader, list_variables, load_checkpoint, load_variable
from .checkpoint_management import CheckpointManager, get_checkpoint_state, latest_checkpoint
from .torch_export import load_adam_state, save_safetensors, to_state_dict
