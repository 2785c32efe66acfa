"""`tf.keras.utils`: label encoding, file download and caching, `Sequence`, seeding.

Re-exports only; each concept has its own module. The custom-object registry lives in
`tfcompat.keras.saving.object_registration` and is re-exported here, as tf_keras does.
"""

from ..saving.object_registration import (CustomObjectScope, custom_object_scope,
                                          get_custom_objects, get_registered_name,
                                          get_registered_object, register_keras_serializable)
from .data_utils import Sequence, get_file, validate_file
from .np_utils import normalize, to_categorical, to_ordinal
from .random_seed import set_random_seed
from .sequence_utils import pad_sequences
from .vis_utils import model_to_dot, plot_model

__all__ = [
    "CustomObjectScope", "Sequence", "custom_object_scope", "get_custom_objects", "get_file",
    "get_registered_name", "get_registered_object", "model_to_dot", "normalize", "pad_sequences",
    "plot_model",
    "register_keras_serializable", "set_random_seed", "to_categorical", "to_ordinal",
    "validate_file",
]
