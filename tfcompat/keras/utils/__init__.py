"""`tf.keras.utils`: label encoding, file download and caching, `Sequence`, seeding.

Re-exports only; each concept has its own module. The custom-object registry lives in
`tfcompat.keras.saving.object_registration` and is re-exported here, as tf_keras does.
"""

from ..saving.object_registration import (CustomObjectScope, custom_object_scope,
                                          get_custom_objects, get_registered_name,
                                          get_registered_object, register_keras_serializable)
from ..engine.data_adapters.packing import pack_x_y_sample_weight, unpack_x_y_sample_weight
from .data_utils import Sequence, get_file, validate_file
from .generic_utils import (Progbar, disable_interactive_logging, enable_interactive_logging,
                            is_interactive_logging_enabled)
from .np_utils import normalize, to_categorical, to_ordinal
from .random_seed import set_random_seed
from .sequence_utils import pad_sequences
from .vis_utils import model_to_dot, plot_model

__all__ = [
    "CustomObjectScope", "Progbar", "Sequence", "custom_object_scope",
    "disable_interactive_logging", "enable_interactive_logging", "get_custom_objects",
    "get_file",
    "get_registered_name", "get_registered_object", "is_interactive_logging_enabled",
    "model_to_dot", "normalize",
    "pack_x_y_sample_weight", "pad_sequences", "plot_model",
    "register_keras_serializable", "set_random_seed", "to_categorical", "to_ordinal",
    "unpack_x_y_sample_weight", "validate_file",
]
