"""Layers created while a layer is called on Keras tensors (in its `build` or `call`) are
named by the Keras graph's counters, apart from eager ones, as tf_keras 2.21 names them
(recorded: a functional MultiHeadAttention's inner `dropout`/`softmax` leave the next eager
`Dropout()` named `dropout`)."""

from __future__ import annotations

import tfcompat as tf

L = tf.keras.layers


class _BuildsADense(L.Layer):
    def build(self, input_shape):
        self.inner = L.Dense(2)

    def call(self, x):
        return self.inner(x)


def test_sublayers_built_in_a_functional_call_use_the_graph_names():
    tf.keras.backend.clear_session()
    x = L.Input((3, 4))
    attention = L.MultiHeadAttention(1, 2)
    attention(x, x)
    assert (attention._dropout_layer.name, attention._softmax.name) == ("dropout", "softmax")
    assert (L.Dropout(0.1).name, L.Softmax().name) == ("dropout", "softmax")
    eager = L.MultiHeadAttention(1, 2)
    eager(tf.ones((1, 3, 4)), tf.ones((1, 3, 4)))
    assert eager._dropout_layer.name == "dropout_1"
    assert L.Dropout(0.1).name == "dropout_2"
    block = _BuildsADense()
    block(L.Input((3,)))
    assert block.inner.name == "dense" and L.Dense(1).name == "dense"


def test_graph_names_count_on_across_functional_calls_until_clear_session():
    tf.keras.backend.clear_session()
    first, second = _BuildsADense(), _BuildsADense()
    first(L.Input((3,)))
    second(L.Input((3,)))
    assert (first.inner.name, second.inner.name) == ("dense", "dense_1")
    tf.keras.backend.clear_session()
    third = _BuildsADense()
    third(L.Input((3,)))
    assert third.inner.name == "dense"


def test_clear_session_forgets_observed_names_as_tf_keras_reset_uids_does():
    tf.keras.backend.clear_session()
    x = tf.keras.Input((3,))
    assert tf.concat([x, x], 1)._keras_history.layer.name == "tf.concat"
    tf.keras.backend.clear_session()
    x = tf.keras.Input((3,))
    assert tf.concat([x, x], 1)._keras_history.layer.name == "tf.concat"
