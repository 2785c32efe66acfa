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


def test_a_functional_model_built_under_an_eager_name_scope_starts_at_the_top_scope():
    """tf_keras builds functional layers in its Keras graph, whose name scope stack is its
    own: the eager scope around the construction (TF's model_mapping guide nests one, and a
    layer's `call` is one) does not prefix the weights (recorded from TF 2.21)."""
    tf.keras.backend.clear_session()
    with tf.name_scope("outer"):
        inputs = tf.keras.Input(shape=(5,))
        model = tf.keras.Model(inputs, L.Dense(3, name="dense")(inputs))
        eager = tf.Variable(1.0, name="v")
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0"]
    assert eager.name == "outer/v:0"  # (the eager scope itself is untouched)

    class BuildsAModelInCall(L.Layer):
        def call(self, x):
            if not hasattr(self, "inner"):
                inputs = tf.keras.Input(shape=(5,))
                self.inner = tf.keras.Model(inputs, L.Dense(3, name="dense2")(inputs))
            return self.inner(x)

    class BuildsADenseInCall(L.Layer):
        def call(self, x):
            if not hasattr(self, "inner"):
                self.inner = L.Dense(3, name="dense3")
            return self.inner(x)

    outer = BuildsAModelInCall(name="l")
    outer(tf.ones((2, 5)))
    assert [w.name for w in outer.inner.weights] == ["dense2/kernel:0", "dense2/bias:0"]
    direct = BuildsADenseInCall(name="l2")
    direct(tf.ones((2, 5)))
    assert [w.name for w in direct.weights] == ["l2/dense3/kernel:0", "l2/dense3/bias:0"]
