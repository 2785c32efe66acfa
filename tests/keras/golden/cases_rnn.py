"""tf_keras 2.21 goldens for the recurrent layers: SimpleRNN, LSTM, GRU (both `reset_after`
forms, both implementations), `RNN` over cells and stacked cells, `return_sequences` /
`return_state`, `go_backwards`, `time_major`, `unroll`, masks (right-padded: tfcompat's fused
path; with holes: the step loop), `initial_state`, float64, float16 and mixed_float16;
configs, output shapes and errors. Weights are drawn by `run_layer` from its seed, and the
gradients reach the inputs, the initial states and every weight.

Error model (tests/ops/golden/harness.py): a step's pre-activations are dot products of
length input_dim + units, and the recurrence chains them over the timesteps, so
n = timesteps * (input_dim + units) (plus the gates' few elementwise roundings), normwise.
"""

from __future__ import annotations

import numpy as np

from tests.keras.golden.layer_case import run_layer
from tests.ops.golden.harness import Case

_RNG = np.random.default_rng(7)
T, D, U = 6, 4, 3
SEQ = _RNG.uniform(-1, 1, (3, T, D)).astype(np.float32)
H0 = _RNG.uniform(-1, 1, (3, U)).astype(np.float32)
C0 = _RNG.uniform(-1, 1, (3, U)).astype(np.float32)
RIGHT_PADDED = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], bool)
HOLES = np.array([[1, 0, 1, 1, 0, 1], [0, 0, 1, 1, 1, 1], [1, 1, 0, 1, 1, 0]], bool)
N = T * (D + U) + 8
N_STACKED = T * (D + 2 * U + U) + 16


def _layer(cls, *args, **kwargs):
    return lambda tf: getattr(tf.keras.layers, cls)(*args, **kwargs)


def _run(cls, *args, x=SEQ, n=N, mask=None, **kwargs):
    def fn(tf):
        call_kwargs = {} if mask is None else {"mask": tf.constant(mask)}
        return run_layer(tf, _layer(cls, *args, **kwargs), [x], call_kwargs=call_kwargs)
    return Case(fn, n=n, terms="normwise")


def _rnn(cells, n=N, x=SEQ, mask=None, **kwargs):
    def fn(tf):
        made = [getattr(tf.keras.layers, c)(*a, **k) for c, a, k in cells]
        call_kwargs = {} if mask is None else {"mask": tf.constant(mask)}
        return run_layer(tf, lambda tf: tf.keras.layers.RNN(
            made[0] if len(made) == 1 else made, **kwargs), [x], call_kwargs=call_kwargs)
    return Case(fn, n=n, terms="normwise")


def _config(make):
    return lambda tf: make(tf).get_config()


def _mixed(cls, *args, **kwargs):
    # computed in float16 (the float32 input and weight gradients too, cast at the end)
    return Case(lambda tf: run_layer(tf, lambda tf: getattr(tf.keras.layers, cls)(
        *args, dtype=tf.keras.mixed_precision.Policy("mixed_float16"), **kwargs),
        [SEQ]), n=N, terms="normwise", accumulate="float16")


def _embedding_lstm(tf):
    """Embedding(mask_zero=True) -> LSTM in a Sequential model: the mask travels."""
    tf.keras.backend.clear_session()
    ids = tf.constant(np.array([[3, 1, 4, 0, 0], [2, 0, 5, 1, 0], [1, 1, 1, 1, 2]], np.int32))
    model = tf.keras.Sequential([tf.keras.layers.Embedding(6, 2, mask_zero=True),
                                 tf.keras.layers.LSTM(3, return_sequences=True)])
    model(ids)
    rng = np.random.default_rng(3)
    model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(np.float32)
                       for w in model.get_weights()])
    out = model(ids)
    return {"output": out, "mask": out._keras_mask}


CASES = {
    # -- SimpleRNN
    "simple_rnn": _run("SimpleRNN", U),
    "simple_rnn_sequences_state": _run("SimpleRNN", U, return_sequences=True,
                                       return_state=True),
    "simple_rnn_backwards": _run("SimpleRNN", U, go_backwards=True, return_sequences=True),
    "simple_rnn_mask_holes": _run("SimpleRNN", U, return_sequences=True, mask=HOLES),
    "simple_rnn_relu_no_bias": _run("SimpleRNN", U, activation="relu", use_bias=False),
    "simple_rnn_float64": _run("SimpleRNN", U, x=SEQ.astype(np.float64), dtype="float64",
                               return_sequences=True),
    # -- LSTM (fused path where the configuration allows it)
    "lstm": _run("LSTM", U),
    "lstm_sequences_state": _run("LSTM", U, return_sequences=True, return_state=True),
    "lstm_backwards": _run("LSTM", U, go_backwards=True, return_sequences=True),
    "lstm_time_major": _run("LSTM", U, x=np.ascontiguousarray(SEQ.transpose(1, 0, 2)),
                            time_major=True, return_sequences=True),
    "lstm_mask_right_padded": _run("LSTM", U, return_sequences=True, return_state=True,
                                   mask=RIGHT_PADDED),
    "lstm_mask_right_padded_zero_output": _run("LSTM", U, return_sequences=True,
                                               zero_output_for_mask=True, mask=RIGHT_PADDED),
    "lstm_mask_holes": _run("LSTM", U, return_sequences=True, return_state=True, mask=HOLES),
    "lstm_mask_backwards": _run("LSTM", U, return_sequences=True, go_backwards=True,
                                mask=RIGHT_PADDED),
    "lstm_implementation1": _run("LSTM", U, implementation=1, return_sequences=True),
    "lstm_hard_sigmoid": _run("LSTM", U, recurrent_activation="hard_sigmoid",
                              return_state=True),
    "lstm_no_bias_unroll": _run("LSTM", U, use_bias=False, unroll=True,
                                return_sequences=True),
    "lstm_float64": _run("LSTM", U, x=SEQ.astype(np.float64), dtype="float64",
                         return_sequences=True, return_state=True),
    "lstm_float16": _run("LSTM", U, x=SEQ.astype(np.float16), dtype="float16",
                         return_sequences=True),
    "lstm_mixed_float16": _mixed("LSTM", U, return_sequences=True),
    "lstm_initial_state": Case(lambda tf: run_layer(
        tf, _layer("LSTM", U, return_sequences=True, return_state=True), [SEQ, H0, C0]),
        n=N, terms="normwise"),
    "lstm_embedding_mask_sequential": Case(_embedding_lstm, n=5 * 5 + 8, terms="normwise"),
    # -- GRU
    "gru": _run("GRU", U),
    "gru_sequences_state": _run("GRU", U, return_sequences=True, return_state=True),
    "gru_backwards": _run("GRU", U, go_backwards=True, return_sequences=True),
    "gru_reset_before": _run("GRU", U, reset_after=False, return_sequences=True),
    "gru_reset_before_implementation1": _run("GRU", U, reset_after=False, implementation=1,
                                             return_state=True),
    "gru_implementation1": _run("GRU", U, implementation=1, return_sequences=True),
    "gru_mask_right_padded": _run("GRU", U, return_sequences=True, return_state=True,
                                  mask=RIGHT_PADDED),
    "gru_mask_holes": _run("GRU", U, return_sequences=True, mask=HOLES),
    "gru_float64": _run("GRU", U, x=SEQ.astype(np.float64), dtype="float64",
                        return_sequences=True),
    "gru_float16": _run("GRU", U, x=SEQ.astype(np.float16), dtype="float16"),
    "gru_initial_state": Case(lambda tf: run_layer(
        tf, _layer("GRU", U, return_sequences=True), [SEQ, H0]), n=N, terms="normwise"),
    # -- RNN over cells
    "rnn_simple_cell_unroll": _rnn([("SimpleRNNCell", (U,), {})], unroll=True,
                                   return_sequences=True),
    "rnn_lstm_cell_state": _rnn([("LSTMCell", (U,), {})], return_state=True),
    "rnn_gru_cell_masked": _rnn([("GRUCell", (U,), {})], return_sequences=True,
                                mask=RIGHT_PADDED),
    "rnn_stacked_cells": _rnn([("LSTMCell", (U,), {}), ("GRUCell", (2,), {}),
                               ("SimpleRNNCell", (U,), {})], n=N_STACKED,
                              return_sequences=True, return_state=True),
    "rnn_stacked_cells_masked_backwards": _rnn(
        [("SimpleRNNCell", (U,), {}), ("LSTMCell", (2,), {})], n=N_STACKED,
        return_sequences=True, go_backwards=True, mask=HOLES),
    # -- shapes, configs
    "output_shapes": lambda tf: [str(s) for s in (
        tf.keras.layers.LSTM(3, return_sequences=True, return_state=True)
        .compute_output_shape((None, 5, 2)),
        tf.keras.layers.GRU(4, time_major=True).compute_output_shape((7, None, 2)),
        tf.keras.layers.SimpleRNN(2, return_state=True).compute_output_shape((8, None, 3)),
        tf.keras.layers.RNN([tf.keras.layers.LSTMCell(3), tf.keras.layers.GRUCell(2)],
                            return_state=True).compute_output_shape((None, 5, 2)))],
    "simple_rnn_config": _config(lambda tf: tf.keras.layers.SimpleRNN(
        3, activation="relu", dropout=0.25, go_backwards=True, name="s")),
    "lstm_config": _config(lambda tf: tf.keras.layers.LSTM(
        3, return_sequences=True, recurrent_dropout=0.5, unit_forget_bias=False,
        kernel_regularizer="l2", name="l")),
    "gru_config": _config(lambda tf: tf.keras.layers.GRU(
        3, reset_after=False, implementation=1, stateful=True, zero_output_for_mask=True,
        name="g")),
    "rnn_cell_config": _config(lambda tf: tf.keras.layers.RNN(
        tf.keras.layers.LSTMCell(2, name="c"), return_state=True, name="r")),
    "rnn_stacked_config": _config(lambda tf: tf.keras.layers.RNN(
        [tf.keras.layers.GRUCell(2, name="c1"), tf.keras.layers.SimpleRNNCell(3, name="c2")],
        unroll=True, name="r")),
    "lstm_cell_config": _config(lambda tf: tf.keras.layers.LSTMCell(
        2, dropout=0.1, implementation=1, name="c")),
    # -- errors
    "lstm_rank_error": Case(lambda tf: tf.keras.layers.LSTM(2)(tf.ones([2, 3])),
                            match_message=True),
    "gru_units_error": Case(lambda tf: tf.keras.layers.GRU(0), match_message=True),
    "rnn_no_state_size_error": Case(lambda tf: tf.keras.layers.RNN(
        tf.keras.layers.Dense(2))),  # (the message holds the cell's repr)
    "stateful_no_batch_error": Case(lambda tf: tf.keras.layers.LSTM(
        2, stateful=True).reset_states(), match_message=True),
    "not_stateful_reset_error": Case(lambda tf: tf.keras.layers.GRU(2).reset_states(),
                                     match_message=True),
}
