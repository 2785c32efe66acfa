"""Record tf_keras 2.21's functional configs (JSON) of RNN layers whose `initial_state` comes
from Keras tensors: LSTM(initial_state=[h, c]) and Bidirectional(LSTM, initial_state=[4
states]) — tf_keras folds the states into the node's inputs. Run under TensorFlow + tf-keras:
`/path/to/tf-venv/bin/python tests/keras/engine/gen_state_input_configs.py`, which writes
`fixtures/state_input_configs.json`; test_functional_call_arguments.py loads and rebuilds
them with tfcompat and compares its own configs."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def models(keras):
    x = keras.Input((5, 3), name="x")
    h, c = keras.Input((4,), name="h"), keras.Input((4,), name="c")
    lstm = keras.Model([x, h, c], keras.layers.LSTM(4, name="lstm")(x, initial_state=[h, c]),
                       name="lstm_states")
    s = keras.Input((2,), name="s")
    bi = keras.layers.Bidirectional(keras.layers.LSTM(2), name="bi")
    bidirectional = keras.Model([x, s], bi(x, initial_state=[s, s, s, s]), name="bi_states")
    return {"lstm": lstm, "bidirectional": bidirectional}


if __name__ == "__main__":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"
    import tensorflow as tf
    out = {name: json.loads(m.to_json()) for name, m in models(tf.keras).items()}
    with open(os.path.join(HERE, "fixtures", "state_input_configs.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
