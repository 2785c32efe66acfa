"""`tf.random.Generator`: a random number generator whose state is a `tf.Variable`.

TF keeps a generator's whole state in an int64 variable (shape [3] for
Philox, [2] for ThreeFry) so checkpoints save it and restoring it replays
the same numbers. tfcompat keeps that contract with its own stream:

* the state variable is the only state: every draw reads it, seeds a
  `torch.Generator` from a hash of `(state, kind of draw)`, and then
  advances the state's counter (`state[1]`; `state[0]` holds the seed), so
  saving the state and assigning it back later gives the same next numbers;
* the numbers are deterministic in tfcompat for a given seed, but they are
  not TF's Philox/ThreeFry streams;
* the state variable lives on the host (CPU) whatever the current device:
  reading and advancing it is then no device sync, while the numbers are
  drawn on the device that was current when the generator was made (TF
  colocates a generator's draws with its state), a torch generator made
  there per draw.

Under a `tf.distribute` strategy (TF 2.21's rules, its random-numbers guide,
"Interaction with tf.distribute"): a generator made in `strategy.scope()`
has a `MirroredVariable` state (aggregation NONE, as TF's). A draw inside
`strategy.run` reads and advances only the replica's own component, as TF's
`rng_read_and_skip` on the replica's handle does (no aggregation: replicas
that draw alike keep equal components), and its stream is keyed by the
replica id as well (TF hashes the key with `replica_id_in_sync_group`), so
each replica gets its own stream, deterministic for a seed. A draw in
cross-replica context advances every component and is not keyed by a
replica: it is the stream of the same generator made outside any strategy.
Saving writes the primary's state and restoring sets every component, so a
restored generator replays each replica's stream, also under a strategy with
another number of replicas (replica ids present in both). A generator made
outside every strategy and drawn from inside `strategy.run` is one state
the replicas advance in turn (each draw its own numbers). One made under one
strategy cannot draw under another (TF's RuntimeError "Mixing different
tf.distribute.Strategy objects").

This module sits above `ops` because it builds a `tf.Variable`.
"""

from __future__ import annotations

import enum
import secrets
import threading
from typing import Any, Optional

import torch

from .distribute import distribute_lib
from .framework import device as device_lib
from .framework import dtypes
from .framework import variable_protocol
from .framework.errors import invalid_argument
from .framework.tensor_conversion import convert_to_tensor
from .ops import _dispatch as D
from .ops import random_ops
from .ops.stateless_random_ops import (categorical_with, full_int, generator_for, random_shape,
                                       truncated_standard)
from .train.trackable import AutoTrackable
from .variables import Variable

__all__ = ["Algorithm", "Generator", "get_global_generator", "set_global_generator",
           "create_rng_state"]


class Algorithm(enum.Enum):
    """`tf.random.Algorithm`: the RNG algorithm a generator's state is laid out for."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


_STATE_SIZE = {Algorithm.PHILOX.value: 3, Algorithm.THREEFRY.value: 2}


def _algorithm(alg: Any) -> int:
    if alg is None:
        return Algorithm.PHILOX.value
    if isinstance(alg, Algorithm):
        alg = alg.value
    if isinstance(alg, str):
        names = {"philox": 1, "threefry": 2, "auto_select": 3}
        if alg.lower() not in names:
            raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                             "philox for the Philox algorithm, threefry for the ThreeFry "
                             "algorithm, and auto_select for auto-selection.")
        alg = names[alg.lower()]
    alg = int(alg)
    if alg == Algorithm.AUTO_SELECT.value:
        return Algorithm.PHILOX.value
    if alg not in _STATE_SIZE:
        raise ValueError(f"Argument `alg` got unsupported value {alg}.")
    return alg


def create_rng_state(seed: Any, alg: Any) -> Any:
    """`tf.random.create_rng_state`: the int64 state (numpy) a seed gives for `alg`."""
    import numpy as np
    size = _STATE_SIZE[_algorithm(alg)]
    state = np.zeros([size], np.int64)
    state[0] = int(seed)
    return state


class Generator(AutoTrackable):
    """`tf.random.Generator`: draws whose stream is fully determined by `state` (see module doc).

    Build with `from_seed(seed, alg=None)`, `from_state(state, alg)` or
    `from_non_deterministic_state()`. `state` is a non-trainable int64
    variable; `algorithm` is TF's algorithm number (1: Philox). The generator
    is trackable with its state under TF's name (`_state_var`), so
    `tf.train.Checkpoint(gen=g)` saves and restores it with TF's keys.
    """

    def __init__(self, copy_from: Optional["Generator"] = None, state: Any = None,
                 alg: Any = None) -> None:
        self._lock = threading.Lock()  # not trackable: a plain attribute
        # As TF: the strategy in scope at creation decides how replicas draw (module doc).
        self._distribution_strategy = distribute_lib.get_strategy() \
            if distribute_lib.has_strategy() else None
        # TF colocates a generator's draws with its state: the device current at creation
        self._logical = copy_from._logical if copy_from is not None else \
            device_lib.current_logical()
        with device_lib.device(self._logical):
            self._device = device_lib.current_torch_device()
        if copy_from is not None:
            self._alg = copy_from._alg
            initial = copy_from.state.read_value().cpu()
        else:
            if state is None:
                raise ValueError("Either `copy_from` or `state` must be provided.")
            self._alg = _algorithm(alg)
            initial = convert_to_tensor(state, dtype=dtypes.int64).cpu()
            size = _STATE_SIZE[self._alg]
            if tuple(initial.shape) != (size,):
                raise ValueError(f"Shapes {tuple(initial.shape)} and [{size}] are incompatible")
        with device_lib.device("CPU:0"):
            self._state_var = Variable(initial.clone(), trainable=False, name="StateVar")

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> "Generator":
        """A generator whose state is built from the integer `seed`."""
        a = _algorithm(alg)
        return cls(state=create_rng_state(int(seed) & (2 ** 63 - 1), a), alg=a)

    @classmethod
    def from_state(cls, state: Any, alg: Any) -> "Generator":
        """A generator with the given state (int64, shape [3] Philox / [2] ThreeFry)."""
        return cls(state=state, alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> "Generator":
        """A generator seeded from the operating system's entropy."""
        return cls.from_seed(secrets.randbits(63), alg)

    @classmethod
    def from_key_counter(cls, key: Any, counter: Any, alg: Any) -> "Generator":
        """A generator from a key and a counter (state = counter then key, as TF lays it out)."""
        c = convert_to_tensor(counter, dtype=dtypes.int64).reshape(-1)
        k = convert_to_tensor(key, dtype=dtypes.int64).reshape(-1)
        return cls(state=torch.cat([c, k]), alg=alg)

    @property
    def state(self) -> Any:
        """The state variable (int64, non-trainable): what checkpoints save."""
        return self._state_var

    @property
    def algorithm(self) -> int:
        return self._alg

    @property
    def key(self) -> torch.Tensor:
        return self._state_var.read_value()[-1]

    def reset(self, state: Any) -> None:
        """Set the state (same shape)."""
        self._state_var.assign(convert_to_tensor(state, dtype=dtypes.int64))

    def reset_from_seed(self, seed: Any) -> None:
        """Reset the state as `from_seed(seed)` would build it."""
        self.reset(create_rng_state(int(seed) & (2 ** 63 - 1), self._alg))

    def reset_from_key_counter(self, key: Any, counter: Any) -> None:
        c = convert_to_tensor(counter, dtype=dtypes.int64).reshape(-1)
        self.reset(torch.cat([c, convert_to_tensor(key, dtype=dtypes.int64).reshape(-1)]))

    def _replica(self) -> Optional[tuple]:
        """`(replica id in sync, the state's component it reads and advances)` for a draw in
        replica context of the generator's strategy; None for the whole state (no strategy, or
        cross-replica context). Another strategy's scope is TF's `RuntimeError`."""
        strategy = self._distribution_strategy
        if strategy is None:
            return None
        ctx = distribute_lib.get_replica_context()
        if ctx is not None and ctx._is_default:
            return None  # outside every scope: TF enters the generator's strategy (cross-replica)
        current = ctx.strategy if ctx is not None else distribute_lib.get_strategy()
        if current is not strategy:
            raise RuntimeError(f"Mixing different tf.distribute.Strategy objects: {current} is "
                               f"not {strategy}: a tf.random.Generator draws under the strategy "
                               "it was created in (or outside every strategy scope).")
        if ctx is None:
            return None
        components = variable_protocol.update_components(self._state_var)
        if len(components) == 1:  # one state for all replicas (central storage, one device)
            return ctx._replica_id, components[0]
        return ctx._replica_id, components[ctx._local_replica_id]

    def _advance(self, delta: int) -> tuple:
        """Advance the state by `delta` draws; `(the state before, replica id or None)`."""
        replica = self._replica()
        target = self._state_var if replica is None else replica[1]
        with self._lock:
            values = target.read_value().tolist()  # a host tensor: no device sync
            target.assign_add(self._one_step() * int(delta), read_value=False)
        return values, None if replica is None else replica[0]

    def _draw_device(self) -> torch.device:
        """Where the numbers are drawn: with the state (in a replica, its component's device)."""
        replica = self._replica()
        return self._device if replica is None else replica[1]._torch_device()

    def _next(self, kind: str, device: torch.device) -> torch.Generator:
        """A torch generator for one draw, and the state advanced past it (host only)."""
        values, replica_id = self._advance(1)
        key = ("Generator", self._alg, tuple(values), kind)
        if replica_id is not None:  # TF: key = hash(key, replica id)
            key += ("replica", int(replica_id))
        return generator_for(key, device)

    def _one_step(self) -> torch.Tensor:
        step = self.__dict__.get("_step")
        if step is None:
            step = torch.zeros(_STATE_SIZE[self._alg], dtype=torch.int64)
            step[1] = 1
            object.__setattr__(self, "_step", step)  # a constant, not tracked
        return step

    def skip(self, delta: Any) -> torch.Tensor:
        """Advance the state as `delta` draws would; returns the old state."""
        values, _ = self._advance(int(delta))
        return torch.tensor(values, dtype=torch.int64)

    def normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
               dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
        """Normal draws, `mean + stddev * N(0, 1)`."""
        dt = dtypes.as_dtype(dtype)
        dims = random_shape(shape, "StatefulStandardNormalV2", attr="T")
        mu, sigma = random_ops._float_params("StatefulStandardNormalV2", dt, mean, stddev)
        device = self._draw_device()
        g = self._next("normal", device)
        z = torch.randn(dims, dtype=dt.as_torch, device=device, generator=g)
        return random_ops._scale_shift(z, mu, sigma)

    def truncated_normal(self, shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                         dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
        """Normal draws cut at 2 standard deviations."""
        dt = dtypes.as_dtype(dtype)
        dims = random_shape(shape, "StatelessTruncatedNormalV2", attr="T")
        mu, sigma = random_ops._float_params("StatelessTruncatedNormalV2", dt, mean, stddev)
        device = self._draw_device()
        z = truncated_standard(dims, dt, device, self._next("truncated", device))
        return random_ops._scale_shift(z, mu, sigma)

    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None,
                dtype: Any = dtypes.float32, name: Optional[str] = None) -> torch.Tensor:
        """Uniform draws in `[minval, maxval)`; integer dtypes take both bounds or neither
        (then `uniform_full_int`)."""
        dt = dtypes.as_dtype(dtype)
        if dt.is_integer and (minval is None) != (maxval is None):
            raise ValueError(f"For integer dtype {dt}, minval and maxval must be both `None` or "
                             f"both non-`None`; got minval={minval} and maxval={maxval}")
        if dt.is_integer and minval is None:
            return self.uniform_full_int(shape, dt)
        if minval is None or (not dt.is_integer and maxval is None and minval is None):
            raise ValueError("Attempt to convert a value (None) with an unsupported type "
                             "(<class 'NoneType'>) to a Tensor.")
        dims = random_shape(shape, "StatefulUniform", attr="T")
        device = self._draw_device()
        if dt.is_integer:
            low = random_ops._int_bound("minval", minval, dt)
            high = random_ops._int_bound("maxval", maxval, dt)
            if low >= high:
                raise invalid_argument(f"Need minval < maxval, got {low} >= {high}",
                                       "StatefulUniformInt")
            g = self._next("uniform_int", device)
            return torch.randint(low, high, dims, dtype=dt.as_torch, device=device, generator=g)
        lo = convert_to_tensor(minval, dtype=dt)
        hi = convert_to_tensor(1 if maxval is None else maxval, dtype=dt)
        D.check_dtype("StatefulUniform", lo.dtype, D.FLOATS)
        u = torch.rand(dims, dtype=dt.as_torch, device=device, generator=self._next("uniform",
                                                                                    device))
        return D.run(torch.add, D.run(torch.mul, u, D.run(torch.sub, hi, lo)), lo)

    def uniform_full_int(self, shape: Any, dtype: Any = dtypes.int64,
                         name: Optional[str] = None) -> torch.Tensor:
        """Integers uniform over all of `dtype` (int32, int64; TF's default uint64 does not exist
        in torch, so the default here is int64)."""
        dt = dtypes.as_dtype(dtype)
        D.check_dtype("StatefulUniformFullInt", dt.as_torch, D.INT32_64, attr="dtype",
                      names=["int32", "int64", "uint32", "uint64"])
        dims = random_shape(shape, "StatefulUniformFullInt", attr="T")
        device = self._draw_device()
        return full_int(dims, dt, device, self._next("full_int", device))

    def binomial(self, shape: Any, counts: Any, probs: Any, dtype: Any = dtypes.int32,
                 name: Optional[str] = None) -> torch.Tensor:
        """Binomial(counts, probs) draws of `shape` (counts/probs broadcast to it)."""
        dt = dtypes.as_dtype(dtype)
        dims = random_shape(shape, "StatelessRandomBinomial", attr="T")
        device = self._draw_device()
        c = convert_to_tensor(counts).to(device=device, dtype=torch.float32).expand(dims)
        p = convert_to_tensor(probs).to(device=device, dtype=torch.float32).expand(dims)
        g = self._next("binomial", device)
        return torch.binomial(c.contiguous(), p.contiguous(), generator=g).to(dt.as_torch)

    def categorical(self, logits: Any, num_samples: Any, dtype: Any = None) -> torch.Tensor:
        """`[batch, num_samples]` class draws from softmax(logits); a failed call draws nothing."""
        x = convert_to_tensor(logits)
        return categorical_with(x, num_samples, dtype, lambda: self._next("categorical", x.device),
                                "StatelessMultinomial")

    def make_seeds(self, count: int = 1) -> torch.Tensor:
        """`[2, count]` int64 seeds for the stateless ops."""
        device = self._draw_device()
        return full_int((2, int(count)), dtypes.int64, device, self._next("seeds", device))

    def split(self, count: int = 1) -> list:
        """`count` new generators, independent of this one and of each other (this one advances)."""
        seeds = self._next("split", torch.device("cpu"))
        with device_lib.device(self._logical):
            return [Generator.from_seed(int(torch.randint(0, 2 ** 62, (1,), generator=seeds)),
                                        self._alg) for _ in range(int(count))]


_global_lock = threading.Lock()
_global: Optional[Generator] = None


def get_global_generator() -> Generator:
    """`tf.random.get_global_generator`: the process's generator, made from entropy on first use."""
    global _global
    with _global_lock:
        if _global is None:
            _global = Generator.from_non_deterministic_state()
        return _global


def set_global_generator(generator: Generator) -> None:
    """`tf.random.set_global_generator`: replace the global generator."""
    global _global
    with _global_lock:
        _global = generator
