"""Record tf_keras 2.21's `summary()` lines for four models (run under TensorFlow + tf-keras:
`/path/to/tf-venv/bin/python tests/keras/engine/gen_summary_fixture.py > fixtures/summary_tf_keras.json`).
`test_summary_lines.py` builds the same models with tfcompat and compares the lines exactly."""
import os; os.environ['TF_USE_LEGACY_KERAS']='1'
try:
    import tf_keras as keras
except ImportError:
    import tfcompat.keras as keras
import json
out = []
s = keras.Sequential([keras.layers.Dense(3, input_shape=(4,)), keras.layers.Dense(2)]); s.summary(print_fn=out.append)
x = keras.Input((4,)); a = keras.layers.Dense(3)(x); b = keras.layers.Dense(5, name="a_rather_long_layer_name_for_wrapping")(x); m = keras.Model(x, [a, b]); m.summary(print_fn=out.append)
s.summary(line_length=80, print_fn=out.append, show_trainable=True)
x = keras.Input((4,)); c = keras.layers.Dense(3)(keras.layers.Dense(3)(x)); keras.Model(x, c).summary(print_fn=out.append)
print(json.dumps(out))  # (the last line of stdout is the fixture)
