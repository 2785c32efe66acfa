"""Recurrent layers: `RNN` and its cells, `SimpleRNN`, `LSTM`, `GRU`, `Bidirectional`,
`TimeDistributed` (and the `Wrapper` base)."""

from .base_rnn import AbstractRNNCell, RNN
from .bidirectional import Bidirectional
from .gru import GRU, GRUCell
from .lstm import LSTM, LSTMCell
from .simple_rnn import SimpleRNN, SimpleRNNCell
from .stacked_cells import StackedRNNCells
from .time_distributed import TimeDistributed, Wrapper

__all__ = ["RNN", "AbstractRNNCell", "StackedRNNCells", "SimpleRNNCell", "SimpleRNN",
           "LSTMCell", "LSTM", "GRUCell", "GRU", "Bidirectional", "Wrapper", "TimeDistributed"]
