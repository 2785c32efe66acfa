"""One config round-trip check for the layer test files (not a test module)."""

from __future__ import annotations

import tfcompat as tf


def assert_config_round_trip(layer) -> None:
    """`from_config(get_config())` and a serialize/deserialize round trip give a layer of the
    same class with the same config."""
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    revived = tf.keras.saving.deserialize_keras_object(
        tf.keras.saving.serialize_keras_object(layer))
    assert type(revived) is type(layer) and revived.get_config() == config
