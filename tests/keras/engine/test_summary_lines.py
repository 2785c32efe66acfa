"""`Model.summary()` prints tf_keras 2.21's lines exactly (recorded by gen_summary_fixture.py):
a Sequential, a branching functional model with a wrapped `Connected to` cell, a custom
line_length with show_trainable, and a functional chain (the chain layout)."""

from __future__ import annotations

import json
import pathlib

import tfcompat.keras as keras

HERE = pathlib.Path(__file__).resolve().parent


def test_summary_lines_equal_tf_keras():
    keras.backend.clear_session()
    want = json.loads((HERE / "fixtures" / "summary_tf_keras.json").read_text())
    out: list = []
    s = keras.Sequential([keras.layers.Dense(3, input_shape=(4,)), keras.layers.Dense(2)])
    s.summary(print_fn=out.append)
    x = keras.Input((4,))
    a = keras.layers.Dense(3)(x)
    b = keras.layers.Dense(5, name="a_rather_long_layer_name_for_wrapping")(x)
    keras.Model(x, [a, b]).summary(print_fn=out.append)
    s.summary(line_length=80, print_fn=out.append, show_trainable=True)
    x = keras.Input((4,))
    c = keras.layers.Dense(3)(keras.layers.Dense(3)(x))
    keras.Model(x, c).summary(print_fn=out.append)
    assert out == want
