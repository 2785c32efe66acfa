"""Record tf_keras 2.21's `DataHandler` behaviour for `test_data_adapter_golden.py`.

Run with the TensorFlow venv (writes `fixtures/data_adapter_golden.json`):

    TF_USE_LEGACY_KERAS=1 /path/to/tf-venv/bin/python tests/keras/engine/generate_data_adapter_golden.py

The cases are data (`HANDLER_CASES`, `CLASS_WEIGHT_CASES`, `SPLIT_CASES`, `ERROR_CASES`);
`build_x` and `run_handler` take the library as an argument (`tf` and its `data_adapter`,
or tfcompat's), so the test builds the same inputs and walks the handler the same way
without TensorFlow. Importing this module imports nothing but NumPy.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import pathlib
import random
import sys
from typing import Iterator

import numpy as np

FIXTURE = pathlib.Path(__file__).resolve().parent / "fixtures" / "data_adapter_golden.json"

# -- cases ------------------------------------------------------------------------------
# kind: arrays | lists | dataset | dataset_unknown | dataset_repeat | generator | sequence
# (a dataset/generator/sequence yields batches of `ds_batch` rows of the arrays).
HANDLER_CASES = [
    dict(name="arrays_bs3_e2", kind="arrays", n=10, kwargs=dict(batch_size=3, epochs=2)),
    dict(name="arrays_default_bs", kind="arrays", n=40, kwargs=dict()),
    dict(name="arrays_steps_sizes_batches", kind="arrays", n=10,
         kwargs=dict(steps_per_epoch=3, epochs=1)),
    dict(name="arrays_spe_short_continues", kind="arrays", n=10,
         kwargs=dict(batch_size=2, steps_per_epoch=3, epochs=3)),
    dict(name="arrays_spe_long_runs_out", kind="arrays", n=10,
         kwargs=dict(batch_size=2, steps_per_epoch=7, epochs=2)),
    dict(name="arrays_initial_epoch", kind="arrays", n=10,
         kwargs=dict(batch_size=4, initial_epoch=1, epochs=3)),
    dict(name="arrays_exec3", kind="arrays", n=10,
         kwargs=dict(batch_size=1, steps_per_execution=3)),
    dict(name="arrays_exec_truncated", kind="arrays", n=10,
         kwargs=dict(batch_size=2, steps_per_execution=20, epochs=2)),
    dict(name="arrays_exec4_e2", kind="arrays", n=9,
         kwargs=dict(batch_size=1, steps_per_execution=4, epochs=2)),
    dict(name="arrays_sw", kind="arrays", n=7, sw=True, kwargs=dict(batch_size=3)),
    dict(name="arrays_x_only", kind="arrays", n=5, y=False, kwargs=dict(batch_size=2)),
    dict(name="lists_recreated", kind="lists", n=5,
         kwargs=dict(batch_size=2, steps_per_epoch=2, epochs=2)),
    dict(name="lists_plain", kind="lists", n=5, kwargs=dict(batch_size=2, epochs=2)),
    dict(name="dataset_e2", kind="dataset", n=10, ds_batch=3, kwargs=dict(epochs=2)),
    dict(name="dataset_batch_size_ignored", kind="dataset", n=10, ds_batch=3,
         kwargs=dict(batch_size=5)),
    dict(name="dataset_spe_equal", kind="dataset", n=10, ds_batch=3,
         kwargs=dict(steps_per_epoch=4, epochs=2)),
    dict(name="dataset_spe_short", kind="dataset", n=10, ds_batch=3,
         kwargs=dict(steps_per_epoch=2, epochs=3)),
    dict(name="dataset_spe_long", kind="dataset", n=10, ds_batch=3,
         kwargs=dict(steps_per_epoch=6, epochs=2)),
    dict(name="dataset_unknown_e2", kind="dataset_unknown", n=10, ds_batch=3,
         kwargs=dict(epochs=2)),
    dict(name="dataset_unknown_spe", kind="dataset_unknown", n=10, ds_batch=3,
         kwargs=dict(steps_per_epoch=3, epochs=2)),
    dict(name="dataset_repeat_spe", kind="dataset_repeat", n=10, ds_batch=3,
         kwargs=dict(steps_per_epoch=3, epochs=3)),
    dict(name="dataset_exec2", kind="dataset", n=10, ds_batch=2,
         kwargs=dict(steps_per_execution=2, epochs=2)),
    dict(name="generator_e1", kind="generator", n=10, ds_batch=3, kwargs=dict()),
    dict(name="generator_e2_runs_out", kind="generator", n=10, ds_batch=3,
         kwargs=dict(epochs=2)),
    dict(name="generator_spe", kind="generator", n=12, ds_batch=3,
         kwargs=dict(steps_per_epoch=2, epochs=2)),
    dict(name="generator_x_only", kind="generator", n=6, ds_batch=4, y=False,
         kwargs=dict()),
    dict(name="sequence_e2", kind="sequence", n=10, ds_batch=4, kwargs=dict(epochs=2)),
    dict(name="sequence_spe_short", kind="sequence", n=10, ds_batch=2,
         kwargs=dict(steps_per_epoch=2, epochs=2)),
    dict(name="sequence_spe_long", kind="sequence", n=10, ds_batch=4,
         kwargs=dict(steps_per_epoch=5, epochs=2)),
]

CLASS_WEIGHT_CASES = [
    dict(name="int_labels", y=[0, 1, 2, 1, 0], y_dtype="int64", shape=None,
         class_weight={0: 1.0, 1: 2.0, 2: 0.5}, batch_size=2),
    dict(name="float_labels_rank1", y=[0.0, 1.0, 2.0, 1.0], y_dtype="float32", shape=None,
         class_weight={0: 0.25, 1: 4.0, 2: 1.5}, batch_size=3),
    dict(name="one_hot", y=[[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 1]], y_dtype="float32",
         shape=None, class_weight={0: 1.0, 1: 2.0, 2: 3.0}, batch_size=4),
    dict(name="probabilities", y=[[0.2, 0.7, 0.1], [0.5, 0.25, 0.25], [0.1, 0.1, 0.8]],
         y_dtype="float32", shape=None, class_weight={0: 10.0, 1: 20.0, 2: 30.0},
         batch_size=2),
    dict(name="column_rounded", y=[[0.4], [1.6], [0.5], [1.5], [2.5]], y_dtype="float32",
         shape=None, class_weight={0: 1.0, 1: 2.0, 2: 3.0}, batch_size=5),
    dict(name="times_sample_weight", y=[0, 1, 1, 0], y_dtype="int32", shape=None,
         class_weight={0: 2.0, 1: 3.0}, sample_weight=[1.0, 0.5, 2.0, 0.0], batch_size=4),
    dict(name="int_class_weights", y=[0, 1, 1], y_dtype="int64", shape=None,
         class_weight={0: 1, 1: 3}, batch_size=3),
    dict(name="int_weights_float_sw", y=[1, 0], y_dtype="int64", shape=None,
         class_weight={0: 2, 1: 5}, sample_weight=[0.5, 0.25], batch_size=2),
]

SPLIT_CASES = [(n, frac) for n in (1, 2, 3, 4, 5, 7, 10, 11, 100)
               for frac in (0.1, 0.2, 0.25, 1 / 3, 0.5, 0.75, 0.9, 0.99)]

# name -> what the test must raise with the same message (see `error_inputs`).
ERROR_CASES = [
    "cardinality_x_list", "cardinality_y", "cardinality_sw", "dataset_y", "dataset_sw",
    "generator_y", "generator_sw", "sequence_y", "sequence_sw", "dataset_infinite",
    "dataset_infinite_exec", "unknown_size_exec", "empty_arrays", "class_weight_keys",
    "class_weight_multi_output", "split_lists", "split_too_small", "unpack_length",
    "batch_size_zero", "epochs_zero", "steps_per_epoch_zero", "initial_epoch_negative",
    "workers_zero", "queue_zero", "steps_per_execution_zero", "no_adapter",
]


# -- shared builders (library-agnostic) --------------------------------------------------

def arrays(n: int, dtype: str = "float64") -> tuple:
    x = np.arange(n, dtype=dtype).reshape(n, 1)
    y = (np.arange(n) * 10).astype("int64")
    sw = (np.arange(n) + 1).astype("float64") / 4
    return x, y, sw


def build_x(case: dict, tf, sequence_base) -> dict:
    """The DataHandler keyword arguments of `case` for library `tf` (data inputs only)."""
    n = case["n"]
    x, y, sw = arrays(n)
    use_y = case.get("y", True)
    kind = case["kind"]
    if kind == "arrays":
        out = dict(x=x)
        if use_y:
            out["y"] = y
        if case.get("sw"):
            out["sample_weight"] = sw
        return out
    if kind == "lists":
        out = dict(x=[float(v) for v in x[:, 0]])
        if use_y:
            out["y"] = [int(v) for v in y]
        return out
    b = case["ds_batch"]
    batches = [((x[i:i + b], y[i:i + b]) if use_y else x[i:i + b]) for i in range(0, n, b)]
    if kind.startswith("dataset"):
        ds = tf.data.Dataset.from_tensor_slices((x, y) if use_y else x)
        if kind == "dataset_unknown":
            ds = ds.filter(lambda *a: True)
        ds = ds.batch(b)
        if kind == "dataset_repeat":
            ds = ds.repeat()
        return dict(x=ds)
    if kind == "generator":
        return dict(x=(batch for batch in batches))
    if kind == "sequence":
        class Seq(sequence_base):
            def __len__(self):
                return len(batches)

            def __getitem__(self, i):
                return batches[i]
        return dict(x=Seq())
    raise ValueError(kind)


def _rows(t) -> list:
    a = np.asarray(t)
    return a.reshape(a.shape[0], -1)[:, 0].tolist() if a.ndim else [a.item()]


def _spe(handler) -> int:
    return int(handler._steps_per_execution.numpy())


def run_handler(handler) -> dict:
    """Walk `handler` as `Model.fit` does (each step pulls `steps_per_execution` batches)."""
    steps = []
    inferred = [handler.inferred_steps]
    for epoch, iterator in handler.enumerate_epochs():
        inferred.append(handler.inferred_steps)
        with handler.catch_stop_iteration():
            for step in handler.steps():
                spe = _spe(handler)
                pulled = []
                for _ in range(spe):
                    batch = next(iterator)
                    leaves = list(batch) if isinstance(batch, tuple) else [batch]
                    pulled.append([_rows(t) for t in leaves])
                steps.append([epoch, step, handler.step_increment, spe, pulled])
        inferred.append(handler.inferred_steps)
    return dict(steps=steps, inferred=inferred, insufficient=bool(handler._insufficient_data),
                spe_after=_spe(handler))


def walk(handler) -> list:
    """`[(epoch, step, batch), ...]` as `Model.fit` reads them (`step_increment + 1`
    batches per step)."""
    out = []
    for epoch, iterator in handler.enumerate_epochs():
        with handler.catch_stop_iteration():
            for step in handler.steps():
                for _ in range(handler.step_increment + 1):
                    out.append((epoch, step, next(iterator)))
    return out


@contextlib.contextmanager
def tf_warnings() -> Iterator[list]:
    """The messages logged to the `tensorflow` logger at WARNING or above meanwhile (its own
    handler: TF's logger does not propagate to the root one)."""
    messages: list = []

    class Grab(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    logger = logging.getLogger("tensorflow")
    handler, level = Grab(logging.WARNING), logger.level
    logger.addHandler(handler)
    if not level or level > logging.WARNING:
        logger.setLevel(logging.WARNING)
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def class_weight_inputs(case: dict) -> dict:
    y = np.asarray(case["y"], dtype=case["y_dtype"])
    x = np.arange(len(y), dtype="float32").reshape(len(y), 1)
    out = dict(x=x, y=y, batch_size=case["batch_size"],
               class_weight={int(k): v for k, v in case["class_weight"].items()})
    if case.get("sample_weight") is not None:
        out["sample_weight"] = np.asarray(case["sample_weight"], dtype="float64")
    return out


def class_weight_result(handler) -> list:
    out = []
    for _, iterator in handler.enumerate_epochs():
        for _ in handler.steps():
            _, _, sw = next(iterator)
            out.append([np.asarray(sw).tolist(), str(np.asarray(sw).dtype)])
    return out


def error_inputs(name: str, tf, da, sequence_base):
    """A callable raising the error of case `name` under library `tf` / `da`."""
    x, y, sw = arrays(10)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(2)

    class Seq(sequence_base):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return x[i:i + 1], y[i:i + 1]

    def gen():
        yield x[:2], y[:2]

    def handler(**kw):
        return lambda: da.DataHandler(**kw)

    table = {
        "cardinality_x_list": handler(x=[x, x[:5]], y=y),
        "cardinality_y": handler(x=x, y=y[:7]),
        "cardinality_sw": handler(x=x, y=y, sample_weight=sw[:3]),
        "dataset_y": handler(x=ds, y=y),
        "dataset_sw": handler(x=ds, sample_weight=sw),
        "generator_y": handler(x=gen(), y=y),
        "generator_sw": handler(x=gen(), sample_weight=sw),
        "sequence_y": handler(x=Seq(), y=y),
        "sequence_sw": handler(x=Seq(), sample_weight=sw),
        "dataset_infinite": handler(x=ds.repeat()),
        "dataset_infinite_exec": handler(x=ds.repeat(), steps_per_epoch=None,
                                         steps_per_execution=_spe_arg(tf, 2)),
        "unknown_size_exec": handler(x=ds.filter(lambda *a: True),
                                     steps_per_execution=_spe_arg(tf, 2)),
        "empty_arrays": handler(x=x[:0], y=y[:0]),
        "class_weight_keys": handler(x=x, y=y, class_weight={0: 1.0, 2: 1.0}),
        "class_weight_multi_output": lambda: _first_batch(
            da.DataHandler(x=x, y=[y, y], class_weight={0: 1.0, 1: 2.0})),
        "split_lists": lambda: da.train_validation_split(([1.0, 2.0], [3.0, 4.0]), 0.5),
        "split_too_small": lambda: da.train_validation_split((x[:1], y[:1]), 0.2),
        "unpack_length": lambda: da.unpack_x_y_sample_weight((1, 2, 3, 4)),
        "batch_size_zero": handler(x=x, y=y, batch_size=0),
        "epochs_zero": handler(x=x, y=y, epochs=0),
        "steps_per_epoch_zero": handler(x=x, y=y, steps_per_epoch=0),
        "initial_epoch_negative": handler(x=x, y=y, initial_epoch=-1),
        "workers_zero": handler(x=x, y=y, workers=0),
        "queue_zero": handler(x=x, y=y, max_queue_size=0),
        "steps_per_execution_zero": handler(x=x, y=y, steps_per_execution=_spe_arg(tf, 0)),
        "no_adapter": handler(x=object()),
    }
    return table[name]


def _spe_arg(tf, value: int):
    return tf.Variable(value)


def _first_batch(handler):
    for _, iterator in handler.enumerate_epochs():
        for _ in handler.steps():
            return next(iterator)


def sequence_shuffle_orders(da, sequence_base, seed: int, epochs: int = 3) -> list:
    """The batch order of a shuffled 8-batch Sequence after `random.seed(seed)`."""
    class Seq(sequence_base):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return np.full((1, 1), i, dtype="int64")

    random.seed(seed)
    handler = da.DataHandler(x=Seq(), shuffle=True, epochs=epochs)
    orders = []
    for _, iterator in handler.enumerate_epochs():
        order = []
        for _ in handler.steps():
            order.append(int(np.asarray(next(iterator)).ravel()[0]))
        orders.append(order)
    return orders


# -- recording with TensorFlow -----------------------------------------------------------

def main() -> None:
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    from tf_keras.src.engine import data_adapter as da
    from tf_keras.src.utils.data_utils import Sequence

    def handler_kwargs(case):
        kw = dict(case["kwargs"])
        if "steps_per_execution" in kw:
            kw["steps_per_execution"] = tf.Variable(kw["steps_per_execution"])
        return kw

    handlers = {}
    for case in HANDLER_CASES:
        with tf_warnings() as warnings_seen:
            handler = da.DataHandler(**build_x(case, tf, Sequence), **handler_kwargs(case))
            result = run_handler(handler)
        result["ran_out_warning"] = any("ran out of data" in w for w in warnings_seen)
        result["samples"] = handler._samples
        handlers[case["name"]] = dict(case=case, result=result)

    class_weights = {}
    for case in CLASS_WEIGHT_CASES:
        handler = da.DataHandler(**class_weight_inputs(case))
        class_weights[case["name"]] = dict(case=case, result=class_weight_result(handler))

    splits = []
    for n, frac in SPLIT_CASES:
        x, y, _ = arrays(n)
        try:
            (tx, ty), (vx, vy) = da.train_validation_split((x, y), frac)
            splits.append([n, frac, [len(tx), len(vx)], None])
        except ValueError as e:
            splits.append([n, frac, None, str(e)])

    errors = {}
    for name in ERROR_CASES:
        try:
            error_inputs(name, tf, da, Sequence)()
        except Exception as e:  # noqa: BLE001  (recording what TF raises)
            errors[name] = [type(e).__name__, str(e)]
        else:
            errors[name] = None

    orders = {str(seed): sequence_shuffle_orders(da, Sequence, seed) for seed in (0, 7, 1234)}

    x, y, sw = arrays(6)
    it = da.single_batch_iterator(tf.distribute.get_strategy(), x, y, sw,
                                  class_weight=None)
    batch = next(it)
    single = dict(structure=[len(batch)], rows=[_rows(t) for t in batch],
                  dtypes=[t.dtype.name for t in batch])
    it = da.single_batch_iterator(tf.distribute.get_strategy(), x)
    batch = next(it)
    single["x_only"] = [type(batch).__name__, len(batch)]

    dtypes = {}
    for name in ("float64", "float32", "float16", "int32", "int64", "uint8", "bool"):
        arr = np.ones((4, 2), dtype=name)
        handler = da.DataHandler(x=arr, y=arr, batch_size=4)
        dtypes[name] = [t.dtype.name for t in _first_batch(handler)]

    out = dict(handlers=handlers, class_weights=class_weights, splits=splits, errors=errors,
               sequence_orders=orders, single_batch=single, dtypes=dtypes,
               versions=dict(tensorflow=tf.__version__))
    FIXTURE.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}", file=sys.stderr)


if __name__ == "__main__":
    main()
