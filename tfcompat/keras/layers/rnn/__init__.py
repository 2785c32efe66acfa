"""Recurrent layers: `RNN` and its cells, `SimpleRNN`, `LSTM`, `GRU`, `Bidirectional`,
`TimeDistributed`.

Each module below lists its public names in `__all__`; this package re-exports the modules
in `_MODULES` that are present.
"""

from __future__ import annotations

import importlib
import importlib.util

_MODULES = ("base_rnn", "stacked_cells", "simple_rnn", "lstm", "gru", "bidirectional",
            "time_distributed")

__all__: list = []
for _module_name in _MODULES:
    if importlib.util.find_spec(f"{__name__}.{_module_name}") is None:
        continue
    _module = importlib.import_module(f"{__name__}.{_module_name}")
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
