"""`tf.keras.optimizers.schedules` against TF's recorded values (`schedules.json`).

Each recorded schedule is rebuilt from its constructor kwargs and checked at
every recorded step (value and result dtype), for `get_config()` and
`serialize()` output, and for `from_config(get_config())` /
`deserialize(serialize(s))` round trips. A schedule also drives an
optimizer's learning rate. Deserialization only ever builds the built-in
schedules or classes passed in `custom_objects`.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import tfcompat as tf
from tests.conformance.fixtures import load_fixture
from tfcompat.framework import dtypes
from tfcompat.keras.optimizers import schedules

from optimizer_info import tolerance

ENTRIES = load_fixture("schedules")["schedules"]
IDS = [e["id"] for e in ENTRIES]


def _jsonable(x):
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


def make(entry):
    """The schedule as the generator built it (float64 case: an np.float64 initial rate)."""
    kwargs = dict(entry["kwargs"])
    if entry["dtype"] == "float64":
        kwargs["initial_learning_rate"] = np.float64(kwargs["initial_learning_rate"])
    return getattr(schedules, entry["class_name"])(**kwargs)


def _check_values(sched, entry, step_of=lambda s: s):
    for s, want in zip(entry["steps"], entry["values"]):
        got = sched(step_of(s))
        assert isinstance(got, torch.Tensor), type(got)
        assert got.shape == (), got.shape
        assert dtypes.from_torch(got.dtype).name == entry["dtype"], (entry["id"], s, got.dtype)
        if entry["dtype"].startswith("int"):
            assert int(got) == want, (entry["id"], s)
        else:
            rtol, atol = tolerance(entry["dtype"])
            np.testing.assert_allclose(float(got), want, rtol=rtol, atol=atol, err_msg=f"{entry['id']} at {s}")


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_values_at_each_step(entry):
    _check_values(make(entry), entry)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_values_with_tensor_and_variable_steps(entry):
    """The optimizer passes its int64 `iterations` variable; a tensor step works too."""
    sched = make(entry)
    _check_values(sched, entry, lambda s: torch.tensor(s, dtype=torch.int64))
    _check_values(sched, entry, lambda s: tf.Variable(s, dtype=tf.int64))


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_get_config_and_serialize(entry):
    sched = make(entry)
    assert _jsonable(sched.get_config()) == entry["config"]
    assert _jsonable(schedules.serialize(sched)) == entry["serialized"]
    assert _jsonable(tf.keras.optimizers.schedules.serialize(sched, use_legacy_format=True)) == {
        "class_name": entry["class_name"], "config": entry["config"]}


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_round_trips(entry):
    sched = make(entry)
    again = type(sched).from_config(sched.get_config())
    assert type(again) is type(sched)
    assert _jsonable(again.get_config()) == entry["config"]
    _check_values(again, entry)
    for serialized in (schedules.serialize(sched), schedules.serialize(sched, use_legacy_format=True),
                       entry["serialized"]):
        rebuilt = schedules.deserialize(serialized)
        assert type(rebuilt) is type(sched)
        assert _jsonable(rebuilt.get_config()) == _jsonable(sched.get_config())
    if entry["dtype"] != "float64":  # the JSON config holds a Python float (float32 schedule)
        _check_values(schedules.deserialize(entry["serialized"]), entry)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["dtype"] != "float64"],
                         ids=[e["id"] for e in ENTRIES if e["dtype"] != "float64"])
def test_schedule_as_optimizer_learning_rate(entry):
    """SGD with gradient 1 moves a float32 variable by schedule(iterations) each step."""
    steps = [s for s in entry["steps"] if s <= 25]
    values = dict(zip(entry["steps"], entry["values"]))
    opt = tf.keras.optimizers.SGD(learning_rate=make(entry))
    var = tf.Variable(np.zeros(2, np.float32))
    expected = np.zeros(2, np.float32)
    for it in range(max(steps) + 1):
        opt.apply_gradients([(torch.ones(2), var)])
        if it in values:  # lr at iterations == it, cast to the variable dtype
            expected = expected - np.float32(values[it])
            np.testing.assert_allclose(var.numpy(), expected, rtol=1e-5, atol=1e-6, err_msg=f"step {it}")
        else:
            expected = var.numpy().copy()
    config = opt.get_config()
    assert _jsonable(config["learning_rate"]) == entry["serialized"]
    rebuilt = tf.keras.optimizers.SGD.from_config(config)
    assert type(rebuilt._hyper["learning_rate"]) is type(opt._hyper["learning_rate"])


def test_schedule_is_called_with_the_iteration_count():
    seen = []

    class Recording(schedules.LearningRateSchedule):
        def __call__(self, step):
            seen.append(int(step))
            return torch.tensor(0.5)

        def get_config(self):
            return {}

    opt = tf.keras.optimizers.Adam(learning_rate=Recording())
    var = tf.Variable([1.0, 2.0])
    for _ in range(3):
        opt.apply_gradients([(torch.ones(2), var)])
    assert seen[-3:] == [0, 1, 2] or seen == [0, 1, 2], seen


# ---------------------------------------------------------------------------
# errors and what deserialize may build
# ---------------------------------------------------------------------------


def test_piecewise_constant_length_mismatch():
    with pytest.raises(ValueError) as info:
        schedules.PiecewiseConstantDecay([1, 2], [1.0])
    assert str(info.value) == ("The length of boundaries should be 1 less than the length of values. Received: "
                               "boundaries=[1, 2] of length 2, and values=[1.0] of length 1.")


def test_base_class_is_abstract():
    class NoCall(schedules.LearningRateSchedule):
        pass

    with pytest.raises(NotImplementedError):
        NoCall()(0)
    with pytest.raises(NotImplementedError):
        NoCall().get_config()


@pytest.mark.parametrize("config", [
    {"class_name": "Foo", "config": {}},
    {"module": "keras.optimizers.schedules", "class_name": "NoSuchDecay", "config": {}, "registered_name": None},
    # names that exist somewhere but are not built-in schedules
    {"class_name": "LearningRateSchedule", "config": {}},
    {"class_name": "Adam", "config": {}},
    {"module": "os", "class_name": "system", "config": {"command": "true"}, "registered_name": "system"},
    {"module": "builtins", "class_name": "eval", "config": {}, "registered_name": None},
    {"class_name": "serialize", "config": {}},
    {"class_name": "torch", "config": {}},
], ids=["unknown", "unknown_new_format", "base_class", "optimizer", "os_system", "builtins_eval",
        "module_function", "module_global"])
def test_deserialize_unknown_class(config):
    with pytest.raises(ValueError):
        schedules.deserialize(config)


def test_deserialize_bad_identifier():
    for bad in ("ExponentialDecay", None, 3, {"config": {}}):
        with pytest.raises(ValueError):
            schedules.deserialize(bad)


def test_deserialize_custom_objects():
    class Halving(schedules.LearningRateSchedule):
        def __init__(self, start):
            self.start = start

        def __call__(self, step):
            return torch.tensor(self.start, dtype=torch.float32) / 2 ** torch.as_tensor(step, dtype=torch.float32)

        def get_config(self):
            return {"start": self.start}

    sched = Halving(1.0)
    serialized = schedules.serialize(sched)
    assert serialized["class_name"] == "Halving"
    assert serialized["config"] == {"start": 1.0}
    with pytest.raises(ValueError):
        schedules.deserialize(serialized)  # not registered
    rebuilt = schedules.deserialize(serialized, custom_objects={"Halving": Halving})
    assert isinstance(rebuilt, Halving) and rebuilt.start == 1.0
    assert float(rebuilt(2)) == 0.25
    # a custom class never shadows a name it was not registered under
    other = schedules.deserialize({"class_name": "ExponentialDecay",
                                   "config": dict(initial_learning_rate=0.1, decay_steps=1, decay_rate=0.5)},
                                  custom_objects={"Halving": Halving})
    assert type(other) is schedules.ExponentialDecay
    # optimizers pass custom_objects through to the learning-rate schedule
    opt = tf.keras.optimizers.SGD(learning_rate=sched)
    config = opt.get_config()
    assert config["learning_rate"]["class_name"] == "Halving"
    again = tf.keras.optimizers.SGD.from_config(config, custom_objects={"Halving": Halving})
    assert isinstance(again._hyper["learning_rate"], Halving)


def test_all_builtins_reachable():
    for name in ("ExponentialDecay", "PiecewiseConstantDecay", "PolynomialDecay", "InverseTimeDecay",
                 "CosineDecay", "CosineDecayRestarts", "LearningRateSchedule", "serialize", "deserialize"):
        assert getattr(tf.keras.optimizers.schedules, name) is getattr(schedules, name)
        assert getattr(tf.optimizers.schedules, name) is getattr(schedules, name)
    assert {e["class_name"] for e in ENTRIES} == {
        "ExponentialDecay", "PiecewiseConstantDecay", "PolynomialDecay", "InverseTimeDecay", "CosineDecay",
        "CosineDecayRestarts"}


# ---------------------------------------------------------------------------
# Python-number arguments are cached device constants
# ---------------------------------------------------------------------------

_BITS = {torch.float16: torch.int16, torch.bfloat16: torch.int16, torch.float32: torch.int32,
         torch.float64: torch.int64, torch.int32: torch.int32, torch.int64: torch.int64, torch.bool: torch.uint8}
_NUMBERS = [0.1, 0.5, 0.96, 1e-7, 1 / 3, 65520.0, 1e39, -0.0, 2, 0, 1, -3, 1000, 65519, 2 ** 23 + 1,
            2 ** 24 + 1, 2 ** 40 + 1, True, np.float64(0.1), np.float32(0.3)]


def _same(a, b):
    return (a.dtype == b.dtype and a.device == b.device
            and bool((a.reshape(()).view(_BITS[a.dtype]) == b.reshape(()).view(_BITS[b.dtype])).all()))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64], ids=str)
def test_cached_constants_cast_as_before(dtype):
    """`_cast` (tf.cast of a constant) gives exactly what building it with numpy each call gave."""
    like = torch.ones((), dtype=dtype)
    for value in _NUMBERS:
        with np.errstate(over="ignore"):
            numpy_value = np.float32(value) if isinstance(value, float) else value
            arr = np.asarray(numpy_value).astype(dtypes.from_torch(dtype).as_numpy_dtype)
            # (torch cannot take ml_dtypes' bfloat16 arrays: move the bits)
            want = (torch.from_numpy(arr.reshape(1).view(np.uint16)).view(torch.bfloat16).reshape(())
                    if dtype is torch.bfloat16 else torch.tensor(arr))
            assert _same(schedules._cast(value, like), want), value


def test_cached_constants_convert_as_before():
    """`_initial` / `_converted` give what `convert_to_tensor(value)[.to(...)]` gave."""
    cpu = torch.device("cpu")
    for value in _NUMBERS:
        try:
            want = tf.convert_to_tensor(value)
        except ValueError:  # (1e39: not a float32) the same error as before
            with pytest.raises(ValueError):
                schedules._initial(value, cpu)
            continue
        assert _same(schedules._initial(value, cpu), want), value
        for dtype in (torch.int64, torch.float32, torch.float64):
            assert _same(schedules._converted(value, dtype, cpu), want.to(dtype)), (value, dtype)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_results_are_fresh_tensors(entry):
    """The cached constants never leak out: writing into a result changes no later result."""
    sched = make(entry)
    first = sched(entry["steps"][0])
    again = sched(entry["steps"][0])
    assert first is not again
    want = again.clone()
    first.add_(1)
    assert torch.equal(sched(entry["steps"][0]), want)


# ---------------------------------------------------------------------------
# TF's rounding, and no host reads
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["dtype"] == "float32"],
                         ids=[e["id"] for e in ENTRIES if e["dtype"] == "float32"])
def test_float32_values_are_tfs_bit_for_bit(entry):
    """TF evaluates a schedule's pow / cos / log with the C library (correctly rounded in
    practice); torch's float32 versions are not (CosineDecayRestarts was 1 ulp off at some
    steps). The float64 result rounded to float32 is TF's value, exactly."""
    sched = make(entry)
    for s, want in zip(entry["steps"], entry["values"]):
        got = sched(torch.tensor(s, dtype=torch.int64))
        assert float(got) == float(np.float32(want)), (entry["id"], s, float(got), want)


SYNC_STEPS = [0, 1, 3, 7, 12, 40]


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_schedules_read_nothing_on_the_host(entry):
    """A schedule the optimizer calls every step (on a tensor step, on the step's device) reads
    no device value on the host and builds no tensor from host data once its constants exist
    (PiecewiseConstantDecay indexed its values with a 0-d tensor: a host read per step)."""
    from tfcompat.testing import host_syncs

    sched = make(entry)
    steps = [torch.tensor(float(s)) for s in SYNC_STEPS]
    sched(steps[0])  # builds the cached constants
    with host_syncs(new_host_tensors=True) as log:
        for step in steps:
            sched(step)
    assert not log, log.report()
