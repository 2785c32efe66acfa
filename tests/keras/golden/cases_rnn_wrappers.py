"""tf_keras 2.21 goldens for the RNN wrappers: TimeDistributed (Dense, Conv2D, Embedding and
Masking masks, a user layer's per-timestep loop; float64, float16, mixed_float16) and
Bidirectional (over SimpleRNN / LSTM / GRU: merge modes, return_state, initial_state,
masks, a given backward layer, float64/float16/mixed_float16), weight names, shapes, configs and errors.

Error model (tests/ops/golden/harness.py): TimeDistributed(Dense) is the Dense dot of length
`in` plus the bias (n = in + 1); TimeDistributed(Conv2D) a window dot of kh*kw*cin plus the
bias. A recurrent step is the input dot (in), the recurrent dot (units), two additions and the
activation; its error carries into the next step through a contraction (|tanh'| <= 1 and
recurrent weights in [-0.5, 0.5]), so over T steps n = T * (in + units + 3), normwise, with
the default ulps for tanh/sigmoid. The merge adds one rounding (sum, ave: two).
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer, weights_like
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(7)
SEQ = _RNG.uniform(-1, 1, (2, 4, 5)).astype(np.float32)            # (batch, time, features)
VID = _RNG.uniform(-1, 1, (2, 3, 6, 5, 2)).astype(np.float32)      # (batch, time, H, W, C)
RNN_X = _RNG.uniform(-1, 1, (3, 5, 4)).astype(np.float32)          # (batch, time, features)
MASK = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 1, 1, 0]], dtype=bool)
S1 = _RNG.uniform(-1, 1, (3, 3)).astype(np.float32)
S2 = _RNG.uniform(-1, 1, (3, 3)).astype(np.float32)
IDS = np.array([[[1, 0], [2, 2], [0, 0]], [[0, 0], [3, 1], [4, 0]]], dtype=np.int32)

T, IN, UNITS = 5, 4, 3
RNN_N = T * (IN + UNITS + 3)          # one direction
LSTM_N = T * (IN + UNITS + 8)         # gates, c = f*c + i*g, h = o*tanh(c)
GRU_N = T * (IN + UNITS + 8)


def _td(inner, **kwargs):
    def make(tf):
        return tf.keras.layers.TimeDistributed(inner(tf), **kwargs)
    return make


def _dense(tf, dtype=None):
    return tf.keras.layers.Dense(3, dtype=dtype)


def _bi(rnn, units=UNITS, rnn_kwargs=None, **kwargs):
    rnn_kwargs = dict(rnn_kwargs or {})

    def make(tf):
        return tf.keras.layers.Bidirectional(getattr(tf.keras.layers, rnn)(units, **rnn_kwargs),
                                             **kwargs)
    return make


def _run_bi(rnn, x=RNN_X, n=RNN_N, call=None, rnn_kwargs=None, ulps=None, **kwargs):
    def fn(tf):
        call_kwargs = call(tf) if call else None
        return run_layer(tf, _bi(rnn, rnn_kwargs=rnn_kwargs, **kwargs), [x],
                         call_kwargs=call_kwargs)
    # a mixed policy computes in float16: its float32 results carry float16 roundings
    accumulate = "float16" if kwargs.get("dtype") == "mixed_float16" else None
    return Case(fn, n=n, terms="normwise", ulps=ulps, accumulate=accumulate)


def _td_custom_masked(tf):
    """A user layer (not built in): tf_keras loops over timesteps; a masked step repeats
    the previous step's output."""
    class Scale(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w + 1.0

    layer = tf.keras.layers.TimeDistributed(Scale())
    x = tf.constant(SEQ)
    mask = tf.constant(MASK[:2, :4])
    layer(x, mask=mask)
    layer.set_weights([np.array([0.5, -1.0, 2.0, 0.25, 3.0], np.float32)])
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, mask=mask)
        total = tf.reduce_sum(out * tf.constant(np.linspace(-1, 1, 5, dtype=np.float32)))
    out_mask = layer.compute_mask(x, mask)
    return {"output": out, "mask": out_mask, "grads": tape.gradient(total, [x] + layer.weights)}


def _td_masking_dense(tf):
    tf.keras.backend.clear_session()
    x = SEQ.copy()
    x[0, 2:] = 0.0
    inputs = tf.keras.Input((4, 5))
    masked = tf.keras.layers.Masking()(inputs)
    out = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))(masked)
    model = tf.keras.Model(inputs, out)
    model.set_weights(weights_like([(5, 2), (2,)], 3))
    y = model(tf.constant(x))
    return {"output": y, "mask": y._keras_mask, "mask_shape": out._keras_mask.shape}


def _td_embedding(tf):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.TimeDistributed(tf.keras.layers.Embedding(5, 2, mask_zero=True))
    ids = tf.constant(IDS)
    layer(ids)
    layer.set_weights([np.arange(10, dtype=np.float32).reshape(5, 2) / 3.0])
    y = layer(ids)
    return {"output": y, "mask": y._keras_mask}


def _td_weight_names(tf):
    tf.keras.backend.clear_session()
    a = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3))
    a(tf.ones([2, 4, 5]))
    b = tf.keras.layers.TimeDistributed(tf.keras.layers.Conv2D(2, 3, name="c"), name="td")
    b(tf.ones([1, 2, 5, 5, 1]))
    return [w.name for w in a.weights + b.weights]


def _bi_weight_names(rnn):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = tf.keras.layers.Bidirectional(getattr(tf.keras.layers, rnn)(2))
        layer(tf.ones([2, 3, 4]))
        inputs = tf.keras.Input((3, 4))
        model = tf.keras.Model(inputs, tf.keras.layers.Bidirectional(
            getattr(tf.keras.layers, rnn)(2, return_sequences=True), merge_mode="sum")(inputs))
        return {"names": [w.name for w in layer.weights],
                "model_names": [w.name for w in model.weights],
                "sublayers": [layer.forward_layer.name, layer.backward_layer.name,
                              layer.layer.name, layer.layer.built],
                "model_output_shape": model.output_shape}
    return fn


def _bi_functional_states(tf):
    tf.keras.backend.clear_session()
    x = tf.keras.Input((T, IN))
    s1 = tf.keras.Input((UNITS,))
    s2 = tf.keras.Input((UNITS,))
    out = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(UNITS, return_sequences=True))(
        x, initial_state=[s1, s2])
    model = tf.keras.Model([x, s1, s2], out)
    model.set_weights(weights_like([w.shape for w in model.get_weights()], 5))
    return {"shape": out.shape, "output": model([tf.constant(RNN_X), tf.constant(S1),
                                                 tf.constant(S2)])}


def _bi_list_input(tf):
    tf.keras.backend.clear_session()
    layer = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(UNITS), merge_mode="mul")
    args = [tf.constant(RNN_X), tf.constant(S1), tf.constant(S2)]
    layer(args)
    layer.set_weights(weights_like([w.shape for w in layer.get_weights()], 6))
    return layer(args)


def _bi_output_mask(merge_mode, return_state=False):
    def fn(tf):
        tf.keras.backend.clear_session()
        ids = tf.constant(np.array([[3, 1, 0, 0], [2, 0, 5, 1]], dtype=np.int32))
        emb = tf.keras.layers.Embedding(6, 2, mask_zero=True)
        layer = tf.keras.layers.Bidirectional(tf.keras.layers.SimpleRNN(
            2, return_sequences=True, return_state=return_state), merge_mode=merge_mode)
        layer(emb(ids))
        emb.set_weights([np.arange(12, dtype=np.float32).reshape(6, 2) / 7.0])
        layer.set_weights(weights_like([w.shape for w in layer.get_weights()], 8))
        out = layer(emb(ids))
        return {"output": out,
                "masks": [getattr(t, "_keras_mask", None) for t in tf.nest.flatten(out)]}
    return fn


def _shapes(tf):
    L = tf.keras.layers
    return [str(s) for s in (
        L.TimeDistributed(L.Dense(3)).compute_output_shape((None, 4, 5)),
        L.TimeDistributed(L.Conv2D(2, 3)).compute_output_shape((None, None, 6, 5, 2)),
        L.TimeDistributed(L.Dense(3)).compute_output_shape((7, 4, 2, 5)),
        L.Bidirectional(L.SimpleRNN(3)).compute_output_shape((None, 4, 5)),
        L.Bidirectional(L.SimpleRNN(3, return_sequences=True), merge_mode="sum"
                        ).compute_output_shape((None, 4, 5)),
        L.Bidirectional(L.SimpleRNN(3, return_sequences=True, return_state=True),
                        merge_mode=None).compute_output_shape((None, 4, 5)),
        L.Bidirectional(L.SimpleRNN(3, return_state=True)).compute_output_shape((2, None, 5)),
    )]


def _config(make):
    def fn(tf):
        tf.keras.backend.clear_session()
        return make(tf).get_config()
    return fn


def _round_trip(make, x):
    def fn(tf):
        tf.keras.backend.clear_session()
        layer = make(tf)
        layer(tf.constant(x))
        clone = type(layer).from_config(layer.get_config())
        clone(tf.constant(x))
        clone.set_weights(layer.get_weights())
        return {"config": clone.get_config(), "same": layer(tf.constant(x)) - clone(
            tf.constant(x)), "names": [w.name for w in clone.weights]}
    return fn


def _error(fn):
    return Case(fn, match_message=True)


CASES = {
    # -- TimeDistributed numerics
    "td_dense": Case(lambda tf: run_layer(tf, _td(_dense), [SEQ]), n=6, terms="normwise"),
    "td_dense_float64": Case(lambda tf: run_layer(
        tf, _td(lambda tf: _dense(tf, "float64"), dtype="float64"), [SEQ.astype(np.float64)]),
        n=6, terms="normwise"),
    "td_dense_float16": Case(lambda tf: run_layer(
        tf, _td(lambda tf: _dense(tf, "float16"), dtype="float16"), [SEQ.astype(np.float16)]),
        n=6, terms="normwise"),
    "td_dense_mixed_float16": Case(lambda tf: run_layer(
        tf, _td(lambda tf: _dense(tf, "mixed_float16"), dtype="mixed_float16"), [SEQ]),
        n=6, terms="normwise", accumulate="float16"),
    "td_conv2d": Case(lambda tf: run_layer(
        tf, _td(lambda tf: tf.keras.layers.Conv2D(2, 3)), [VID]), n=19, terms="normwise"),
    "td_conv2d_same_float64": Case(lambda tf: run_layer(
        tf, _td(lambda tf: tf.keras.layers.Conv2D(3, (2, 3), padding="same", dtype="float64"),
                dtype="float64"), [VID.astype(np.float64)]), n=13, terms="normwise"),
    "td_custom_layer_masked": Case(_td_custom_masked, n=2),
    "td_masking_dense": Case(_td_masking_dense, n=6, terms="normwise"),
    "td_embedding_mask": _td_embedding,
    "td_weight_names": _td_weight_names,
    # -- Bidirectional over SimpleRNN
    "bi_simple_concat_seq": _run_bi("SimpleRNN", rnn_kwargs={"return_sequences": True}),
    "bi_simple_concat_last": _run_bi("SimpleRNN"),
    "bi_simple_sum_seq": _run_bi("SimpleRNN", n=RNN_N + 1, merge_mode="sum",
                                 rnn_kwargs={"return_sequences": True}),
    "bi_simple_ave": _run_bi("SimpleRNN", n=RNN_N + 2, merge_mode="ave"),
    "bi_simple_mul_seq": _run_bi("SimpleRNN", n=RNN_N + 1, merge_mode="mul",
                                 rnn_kwargs={"return_sequences": True}),
    "bi_simple_none_states": _run_bi("SimpleRNN", merge_mode=None, rnn_kwargs={
        "return_sequences": True, "return_state": True}),
    "bi_simple_concat_states": _run_bi("SimpleRNN", rnn_kwargs={"return_state": True}),
    "bi_simple_initial_state": _run_bi("SimpleRNN", rnn_kwargs={"return_sequences": True},
                                       call=lambda tf: {"initial_state": [tf.constant(S1),
                                                                          tf.constant(S2)]}),
    "bi_simple_masked_seq": _run_bi("SimpleRNN", rnn_kwargs={"return_sequences": True},
                                    call=lambda tf: {"mask": tf.constant(MASK)}),
    "bi_simple_masked_last_sum": _run_bi("SimpleRNN", n=RNN_N + 1, merge_mode="sum",
                                         call=lambda tf: {"mask": tf.constant(MASK)}),
    "bi_simple_float64": _run_bi("SimpleRNN", x=RNN_X.astype(np.float64), dtype="float64",
                                 rnn_kwargs={"return_sequences": True, "dtype": "float64"}),
    "bi_simple_float16": _run_bi("SimpleRNN", x=RNN_X.astype(np.float16), dtype="float16",
                                 rnn_kwargs={"return_sequences": True, "dtype": "float16"}),
    "bi_simple_go_backwards_template": _run_bi("SimpleRNN", rnn_kwargs={
        "return_sequences": True, "go_backwards": True}),
    "bi_simple_backward_layer": Case(lambda tf: run_layer(
        tf, lambda tf: tf.keras.layers.Bidirectional(
            tf.keras.layers.SimpleRNN(UNITS, return_sequences=True),
            backward_layer=tf.keras.layers.SimpleRNN(2, activation="relu", go_backwards=True,
                                                     return_sequences=True, name="back")),
        [RNN_X]), n=RNN_N, terms="normwise"),
    "bi_simple_functional_states": Case(_bi_functional_states, n=RNN_N, terms="normwise"),
    "bi_simple_list_input": Case(_bi_list_input, n=RNN_N + 1, terms="normwise"),
    "bi_output_mask_concat": Case(_bi_output_mask("concat"), n=4 * 5, terms="normwise"),
    "bi_output_mask_none_states": Case(_bi_output_mask(None, True), n=4 * 5,
                                       terms="normwise"),
    "bi_simple_weight_names": _bi_weight_names("SimpleRNN"),
    # -- Bidirectional over LSTM and GRU
    "bi_lstm_concat_seq": _run_bi("LSTM", n=LSTM_N, rnn_kwargs={"return_sequences": True}),
    "bi_lstm_states_none": _run_bi("LSTM", n=LSTM_N, merge_mode=None,
                                   rnn_kwargs={"return_state": True}),
    "bi_lstm_states_concat": _run_bi("LSTM", n=LSTM_N, rnn_kwargs={
        "return_sequences": True, "return_state": True}),
    "bi_lstm_initial_state": _run_bi("LSTM", n=LSTM_N, merge_mode="sum",
                                     call=lambda tf: {"initial_state": [
                                         tf.constant(S1), tf.constant(S2), tf.constant(S2),
                                         tf.constant(S1)]}),
    "bi_lstm_masked_seq": _run_bi("LSTM", n=LSTM_N, rnn_kwargs={"return_sequences": True},
                                  call=lambda tf: {"mask": tf.constant(MASK)}),
    "bi_lstm_float64": _run_bi("LSTM", x=RNN_X.astype(np.float64), n=LSTM_N, dtype="float64",
                               rnn_kwargs={"return_sequences": True, "dtype": "float64"}),
    "bi_lstm_float16": _run_bi("LSTM", x=RNN_X.astype(np.float16), n=LSTM_N, dtype="float16",
                               rnn_kwargs={"dtype": "float16"}),
    "bi_lstm_mixed_float16": _run_bi("LSTM", n=LSTM_N, dtype="mixed_float16",
                                     rnn_kwargs={"return_sequences": True,
                                                 "dtype": "mixed_float16"}),
    "bi_gru_concat_seq": _run_bi("GRU", n=GRU_N, rnn_kwargs={"return_sequences": True}),
    "bi_gru_ave_states": _run_bi("GRU", n=GRU_N + 2, merge_mode="ave",
                                 rnn_kwargs={"return_state": True}),
    "bi_gru_masked_mul": _run_bi("GRU", n=GRU_N + 1, merge_mode="mul",
                                 call=lambda tf: {"mask": tf.constant(MASK)}),
    "bi_gru_reset_before_float64": _run_bi("GRU", x=RNN_X.astype(np.float64), n=GRU_N,
                                           dtype="float64", rnn_kwargs={
                                               "return_sequences": True, "dtype": "float64",
                                               "reset_after": False}),
    "bi_lstm_weight_names": _bi_weight_names("LSTM"),
    "bi_gru_weight_names": _bi_weight_names("GRU"),
    "bi_lstm_config": _config(_bi("LSTM", merge_mode="mul")),
    "bi_gru_round_trip": Case(_round_trip(_bi("GRU", rnn_kwargs={"return_sequences": True}),
                                          RNN_X), n=0),
    "td_lstm_over_time": Case(lambda tf: run_layer(
        tf, _td(lambda tf: tf.keras.layers.LSTM(2)), [VID[:, :, :, :, 0]]),
        n=6 * (5 + 2 + 8), terms="normwise"),
    # -- shapes, configs
    "output_shapes": _shapes,
    "td_dense_config": _config(_td(_dense, name="td")),
    "td_round_trip": Case(_round_trip(_td(_dense), SEQ), n=0),
    "bi_simple_config": _config(_bi("SimpleRNN", merge_mode="sum", name="bi")),
    "bi_backward_layer_config": _config(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2), backward_layer=tf.keras.layers.SimpleRNN(
            2, go_backwards=True, name="bw"), merge_mode=None)),
    "bi_round_trip": Case(_round_trip(_bi("SimpleRNN", merge_mode="ave"), RNN_X), n=0),
    # -- errors
    "td_not_a_layer_error": _error(lambda tf: tf.keras.layers.TimeDistributed(3)),
    "td_rank_error": _error(lambda tf: tf.keras.layers.TimeDistributed(
        tf.keras.layers.Dense(2))(tf.ones([2, 3]))),
    "bi_not_a_layer_error": _error(lambda tf: tf.keras.layers.Bidirectional("lstm")),
    "bi_backward_not_a_layer_error": _error(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2), backward_layer=3)),
    "bi_merge_mode_error": _error(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2), merge_mode="max")),
    "bi_same_direction_error": _error(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2), backward_layer=tf.keras.layers.SimpleRNN(2))),
    "bi_mismatch_error": _error(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2), backward_layer=tf.keras.layers.SimpleRNN(
            2, go_backwards=True, return_sequences=True))),
    "bi_odd_initial_state_error": Case(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2))(tf.ones([2, 3, 4]), initial_state=[tf.ones([2, 2])] * 3)),
    "bi_reset_states_error": _error(lambda tf: tf.keras.layers.Bidirectional(
        tf.keras.layers.SimpleRNN(2)).reset_states()),
}
