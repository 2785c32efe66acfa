"""`tf.distribute.cluster_resolver`: which cluster this process belongs to, and its place in it.

TF describes a multi-worker job with `TF_CONFIG`, a JSON object set in every
task's environment::

    {"cluster": {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]},
     "task": {"type": "worker", "index": 0}}

`TFConfigClusterResolver` reads it the way TF 2.21 does (lazily, on every
property access, so a changed `TF_CONFIG` is seen; `environment` is never
read from it). `TorchElasticClusterResolver` reads what `torchrun` exports
(`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`, `MASTER_PORT`), so the
same TF program runs under either launcher. `SimpleClusterResolver` and the
`ClusterResolver` base class are TF's.

`process_group_settings(resolver)` is the seam to torch: it turns either
description into what `torch.distributed.init_process_group` needs, using
MultiWorkerMirroredStrategy's rules (`multi_worker_util` in TF):

* the global rank is TF's `id_in_cluster`: the chief is rank 0 when there is a
  `chief` job, and worker `i` is rank `i + number of chiefs`; the world size
  is chiefs plus workers (TF's `worker_count`);
* without a chief job, worker 0 is the chief (`is_chief`), but it is still
  reported as `task_type="worker", task_id=0`, as TF reports it;
* the rendezvous (torch's TCP store) listens on the chief's address, or
  worker 0's: that task's `host:port` from `TF_CONFIG` (no TF server runs
  in tfcompat, so the port is free for torch);
* an `evaluator` is a cluster of its own (world size 1), as in TF;
* an empty cluster means a single local process (TF's local mode).

Deviations from TF, on input TF itself mishandles: a `TF_CONFIG` that is
valid JSON but not an object, or whose `task` is not an object, raises a
`ValueError` saying what to write (TF ignores a list and fails with an
unrelated `TypeError` on a number); an `evaluator` task absent from the
cluster gets a one-process group (TF's `worker_count` raises `KeyError`).
`ClusterSpec.as_cluster_def()` (a protocol buffer) is not provided.
"""

from __future__ import annotations

import abc
import collections
import json
import os
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Union

from ..framework import device as _device

__all__ = [
    "ClusterSpec", "ClusterResolver", "SimpleClusterResolver", "TFConfigClusterResolver",
    "TorchElasticClusterResolver", "ProcessGroupSettings", "process_group_settings",
]

_TF_CONFIG = "TF_CONFIG"
_TF_CONFIG_EXAMPLE = ('{"cluster": {"worker": ["host0:2222", "host1:2222"]}, '
                      '"task": {"type": "worker", "index": 0}}')
# MultiWorkerMirroredStrategy's job names (`multi_worker_util._validate_cluster_spec`).
_ALLOWED_TASK_TYPES = ("chief", "worker", "evaluator", "ps", None)


# -- tf.train.ClusterSpec ----------------------------------------------------------

class ClusterSpec:
    """`tf.train.ClusterSpec`: job names mapped to their tasks' network addresses.

    A job is a list of addresses (task `i` at position `i`) or a dict from
    task index to address (a sparse job). `as_dict()` gives a list back for
    dense jobs and a dict for sparse ones, as TF does.
    """

    def __init__(self, cluster: Union[Mapping[str, Any], "ClusterSpec"]) -> None:
        if isinstance(cluster, ClusterSpec):
            self._jobs: Dict[str, Dict[int, str]] = {j: dict(t) for j, t in cluster._jobs.items()}
            return
        if not isinstance(cluster, Mapping):
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists "
                            "of network addresses, or a `ClusterDef` protocol buffer")
        jobs: Dict[str, Dict[int, str]] = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, Mapping):
                job_tasks = {int(i): t for i, t in tasks.items()}
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dictionary from "
                                "integers to strings.")
            if not isinstance(job, (str, bytes)):
                raise TypeError(f"Job name {job!r} must be bytes or unicode")
            for address in job_tasks.values():
                if not isinstance(address, (str, bytes)):
                    raise TypeError(f"Task address {address!r} must be bytes or unicode")
            jobs[job] = job_tasks
        self._jobs = jobs

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ClusterSpec):
            return self._jobs == other._jobs
        if isinstance(other, Mapping):
            try:
                return self._jobs == ClusterSpec(other)._jobs
            except (TypeError, ValueError):
                return False
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # mutable-looking value type, as in TF

    def __repr__(self) -> str:
        d = self.as_dict()
        return "ClusterSpec({" + ", ".join(f"{k!r}: {d[k]!r}" for k in sorted(d)) + "})"

    def as_dict(self) -> Dict[str, Any]:
        """Job name -> list of addresses (dense jobs) or {index: address} (sparse jobs)."""
        out: Dict[str, Any] = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif max(indices) + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self._jobs[job][i] for i in indices}
        return out

    @property
    def jobs(self) -> list:
        """The job names, in the order the cluster lists them."""
        return list(self._jobs)

    def _job(self, job_name: Optional[str]) -> Dict[int, str]:
        try:
            return self._jobs[job_name]  # type: ignore[index]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name: str) -> int:
        """How many tasks `job_name` has; `ValueError` if there is no such job."""
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list:
        """The sorted task indices of `job_name`."""
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The address of task `task_index` of `job_name`; `ValueError` if absent."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name: str) -> list:
        """The addresses of `job_name` as a list indexed by task (`None` in sparse gaps)."""
        job = self._job(job_name)
        out: list = [None] * (max(job) + 1 if job else 0)
        for i, address in job.items():
            out[i] = address
        return out


# -- tf.distribute.cluster_resolver.ClusterResolver and friends --------------------

class ClusterResolver(abc.ABC):
    """`tf.distribute.cluster_resolver.ClusterResolver`: the cluster, and this task in it.

    Subclasses give `cluster_spec()` and `master()`; `task_type`, `task_id`
    and `rpc_layer` are attributes (properties in subclasses).
    """

    task_type: Optional[str] = None
    task_id: Optional[int] = None
    rpc_layer: Optional[str] = None

    @abc.abstractmethod
    def cluster_spec(self) -> ClusterSpec:
        """The cluster as a `ClusterSpec`."""

    @abc.abstractmethod
    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """The session master's address (TF 1.x; kept for API compatibility)."""

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto: Any = None) -> Dict[str, int]:
        """Accelerator type -> count on this host, as TF's eager implementation reports it.

        TF lists the local logical devices and, when both `task_type` and
        `task_id` are given, keeps only those whose name contains
        `/job:<type>` and `/task:<id>`. Local device names carry no job, so
        with both given the answer is empty; TF's MultiWorkerMirroredStrategy
        therefore counts local GPUs itself rather than asking a
        `TFConfigClusterResolver`. `master()` is called first for its errors.
        """
        del config_proto  # sessions are TF 1.x; nothing to configure here
        self.master(task_type, task_id)
        counts: Dict[str, int] = collections.defaultdict(int)
        for dev in _device.list_logical_devices():
            if dev.device_type == "CPU":
                continue
            if task_type is not None and task_id is not None and (
                    f"/job:{task_type}" not in dev.name or f"/task:{task_id}" not in dev.name):
                continue
            counts[dev.device_type] += 1
        return counts

    @property
    def environment(self) -> str:
        """The environment the cluster runs in (`""`, or e.g. `"google"` in TF)."""
        return ""


class SimpleClusterResolver(ClusterResolver):
    """`tf.distribute.cluster_resolver.SimpleClusterResolver`: everything given explicitly."""

    def __init__(self, cluster_spec: Union[ClusterSpec, Mapping[str, Any]], master: str = "",
                 task_type: Optional[str] = None, task_id: Optional[int] = None,
                 environment: str = "", num_accelerators: Optional[Mapping[str, int]] = None,
                 rpc_layer: Optional[str] = None) -> None:
        self._cluster_spec = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self._environment = environment
        self._num_accelerators = dict(num_accelerators or {})
        self.rpc_layer = rpc_layer

    def cluster_spec(self) -> ClusterSpec:
        return self._cluster_spec

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        if task_type is not None and task_id is not None:
            address = self._cluster_spec.task_address(task_type, task_id)
        else:
            address = self._master
        return _master_url(address, rpc_layer or self.rpc_layer)

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto: Any = None) -> Dict[str, int]:
        """The counts given to the constructor (TF does no detection here either)."""
        return dict(self._num_accelerators)

    @property
    def environment(self) -> str:
        return self._environment


def _master_url(address: str, rpc_layer: Optional[str]) -> str:
    return f"{rpc_layer}://{address}" if rpc_layer else address


def _load_tf_config() -> Dict[str, Any]:
    """`TF_CONFIG` parsed: `{}` when unset; TF's `JSONDecodeError`, with the fix, when malformed."""
    text = os.environ.get(_TF_CONFIG, "{}")
    try:
        config = json.loads(text)
    except json.JSONDecodeError as e:
        # TF raises json's own error; keep its class and position, say what TF expects.
        raise json.JSONDecodeError(
            f"TF_CONFIG is not valid JSON (set it to a JSON object such as {_TF_CONFIG_EXAMPLE}, "
            f"or unset it for a single local worker): {e.msg}", e.doc, e.pos) from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object such as {_TF_CONFIG_EXAMPLE}; "
                         f"got a JSON {type(config).__name__}: {text!r}")
    return config


def _tf_config_task() -> Dict[str, Any]:
    task = _load_tf_config().get("task", {})
    if not isinstance(task, dict):
        raise ValueError(f'TF_CONFIG\'s "task" must be an object such as {{"type": "worker", '
                         f'"index": 0}}; got {task!r}')
    return task


class TFConfigClusterResolver(ClusterResolver):
    """`tf.distribute.cluster_resolver.TFConfigClusterResolver`: the cluster from `TF_CONFIG`.

    Constructor arguments override what `TF_CONFIG` says; otherwise every
    property reads the variable again (as TF does). `environment` only
    comes from the constructor: TF never reads it from `TF_CONFIG`.
    """

    def __init__(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                 rpc_layer: Optional[str] = None, environment: Optional[str] = None) -> None:
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self) -> Optional[str]:  # type: ignore[override]
        if self._task_type is not None:
            return str(self._task_type)
        task = _tf_config_task()
        return str(task["type"]) if "type" in task else None

    @task_type.setter
    def task_type(self, task_type: Optional[str]) -> None:
        self._task_type = task_type

    @property
    def task_id(self) -> Optional[int]:  # type: ignore[override]
        if self._task_id is not None:
            return int(self._task_id)
        task = _tf_config_task()
        if "index" not in task:
            return None
        try:
            return int(task["index"])
        except (TypeError, ValueError) as e:
            raise type(e)(f'{e}: TF_CONFIG\'s task "index" must be an integer, the task\'s '
                          f'position in its job, such as 0') from None

    @task_id.setter
    def task_id(self, task_id: Optional[int]) -> None:
        self._task_id = task_id

    @property
    def rpc_layer(self) -> Optional[str]:  # type: ignore[override]
        if self._rpc_layer is not None:
            return self._rpc_layer
        return _load_tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer: Optional[str]) -> None:
        self._rpc_layer = rpc_layer

    @property
    def environment(self) -> Optional[str]:  # type: ignore[override]
        return self._environment

    def cluster_spec(self) -> ClusterSpec:
        """`TF_CONFIG["cluster"]` as a `ClusterSpec` (empty when there is none)."""
        return ClusterSpec(_load_tf_config().get("cluster", {}))

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """`TF_CONFIG["session_master"]` if set; `""` for a one-task cluster; else the task's URL."""
        config = _load_tf_config()
        if config.get("session_master") is not None:
            return config["session_master"]
        spec = self.cluster_spec()
        if not spec.jobs or (len(spec.jobs) == 1 and len(spec.job_tasks(spec.jobs[0])) == 1):
            return ""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        rpc_layer = self.rpc_layer if rpc_layer is None else rpc_layer
        return _master_url(spec.task_address(task_type, task_id), rpc_layer)

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto: Any = None) -> Dict[str, int]:
        """TF's answer for this task (see `ClusterResolver.num_accelerators`: empty when the
        task is known, because local device names carry no job)."""
        return super().num_accelerators(self.task_type if task_type is None else task_type,
                                        self.task_id if task_id is None else task_id, config_proto)


class TorchElasticClusterResolver(ClusterResolver):
    """The cluster `torchrun` (torch.distributed.elastic) describes, seen the way TF would.

    Not a TF class: it lets a TF program launched by `torchrun` find its
    place. Every process is a `"worker"`; `task_id` is `RANK`, so worker 0
    is the chief, as in a TF cluster without a chief job. torchrun publishes
    only the rendezvous address, so `cluster_spec()` lists worker 0 at
    `MASTER_ADDR:MASTER_PORT` and the other workers with an empty address.

    Reads `RANK`, `WORLD_SIZE`, `MASTER_ADDR`, `MASTER_PORT` (required, as for
    torch's `env://` initialization), `LOCAL_RANK` and `LOCAL_WORLD_SIZE`
    (default 0 and 1) once, at construction.
    """

    REQUIRED = ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")

    def __init__(self, environment: str = "") -> None:
        missing = [name for name in self.REQUIRED if not os.environ.get(name)]
        if missing:
            raise ValueError(f"TorchElasticClusterResolver needs {', '.join(self.REQUIRED)} in the "
                             f"environment (torchrun sets them); missing: {', '.join(missing)}. "
                             "Launch with torchrun, or describe the cluster with TF_CONFIG.")
        self.rank = _env_int("RANK")
        self.world_size = _env_int("WORLD_SIZE")
        self.local_rank = _env_int("LOCAL_RANK", 0)
        self.local_world_size = _env_int("LOCAL_WORLD_SIZE", 1)
        self.master_addr = os.environ["MASTER_ADDR"]
        self.master_port = _env_int("MASTER_PORT")
        if not 0 <= self.rank < self.world_size:
            raise ValueError(f"RANK={self.rank} must be in [0, WORLD_SIZE={self.world_size}).")
        if not 0 <= self.local_rank < self.local_world_size:
            raise ValueError(f"LOCAL_RANK={self.local_rank} must be in "
                             f"[0, LOCAL_WORLD_SIZE={self.local_world_size}).")
        self.task_type = "worker"
        self.task_id = self.rank
        self.rpc_layer = None
        self._environment = environment

    @property
    def environment(self) -> str:
        return self._environment

    def cluster_spec(self) -> ClusterSpec:
        rendezvous = _join_host_port(self.master_addr, self.master_port)
        return ClusterSpec({"worker": [rendezvous] + [""] * (self.world_size - 1)})

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        if self.world_size == 1:
            return ""
        task_id = self.task_id if task_id is None else task_id
        return _master_url(self.cluster_spec().task_address(task_type or "worker", task_id),
                           rpc_layer if rpc_layer is not None else self.rpc_layer)

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto: Any = None) -> Dict[str, int]:
        """The accelerators visible to this process (`tf.config.list_logical_devices`)."""
        counts: Dict[str, int] = collections.defaultdict(int)
        for dev in _device.list_logical_devices():
            if dev.device_type != "CPU":
                counts[dev.device_type] += 1
        return counts


def _env_int(name: str, default: Optional[int] = None) -> int:
    value = os.environ.get(name)
    if value is None or value == "":
        if default is None:
            raise ValueError(f"{name} is not set")
        return default
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} must be an integer") from None


# -- the seam to torch.distributed -------------------------------------------------

@dataclass(frozen=True)
class ProcessGroupSettings(Mapping):
    """What `torch.distributed.init_process_group` needs, with the TF task it came from.

    A read-only mapping too (`dict(settings)`, `settings["rank"]`).

    * `rank`, `world_size`: TF's `id_in_cluster` and `worker_count`;
    * `local_rank`, `local_world_size`: this task's position among the tasks
      on the same host, and their number (from `TF_CONFIG` addresses, or
      torchrun's variables): the CUDA device to pick when several workers
      share a machine (TF gives each worker all local GPUs instead);
    * `master_addr`, `master_port`: where the rendezvous store listens;
      `init_method`: the URL for torch (`None` for a one-process group,
      which needs no network);
    * `task_type`, `task_id`, `is_chief`: as TF reports them;
    * `source`: `"TF_CONFIG"`, `"torchelastic"`, `"local"` or the resolver's
      class name.
    """

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    master_addr: Optional[str]
    master_port: Optional[int]
    init_method: Optional[str]
    task_type: Optional[str]
    task_id: Optional[int]
    is_chief: bool
    source: str

    def __getitem__(self, key: str) -> Any:
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.__dataclass_fields__)

    def __len__(self) -> int:
        return len(self.__dataclass_fields__)

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


def process_group_settings(resolver: Optional[ClusterResolver] = None) -> ProcessGroupSettings:
    """This process's place in the torch process group, from a TF cluster resolver.

    With no `resolver`: `TF_CONFIG` when it is set, else torchrun's variables
    when `RANK`, `WORLD_SIZE` and `MASTER_ADDR` are set, else a single local
    process (TF's local mode). `TF_CONFIG` wins when both are present: it is
    the TF program's own contract.

    Raises TF's errors for a cluster MultiWorkerMirroredStrategy rejects
    (`ValueError`: a missing task, an unknown job, more than one chief, a
    task index past its job, a `ps` task), each saying what to change.
    """
    if resolver is None:
        if os.environ.get(_TF_CONFIG) is None and all(
                os.environ.get(v) for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR")):
            resolver = TorchElasticClusterResolver()
        else:
            resolver = TFConfigClusterResolver()
    if isinstance(resolver, TorchElasticClusterResolver):
        single = resolver.world_size == 1
        return ProcessGroupSettings(
            rank=resolver.rank, world_size=resolver.world_size, local_rank=resolver.local_rank,
            local_world_size=resolver.local_world_size, master_addr=resolver.master_addr,
            master_port=resolver.master_port,
            # env:// lets torch honour torchrun's agent-hosted store and restart prefix.
            init_method=None if single else "env://", task_type="worker", task_id=resolver.rank,
            is_chief=resolver.rank == 0, source="torchelastic")
    return _from_cluster_spec(resolver)


def _from_cluster_spec(resolver: ClusterResolver) -> ProcessGroupSettings:
    source = "TF_CONFIG" if isinstance(resolver, TFConfigClusterResolver) else type(resolver).__name__
    spec = resolver.cluster_spec()
    task_type, task_id = resolver.task_type, resolver.task_id
    if not spec.as_dict():
        return ProcessGroupSettings(0, 1, 0, 1, None, None, None, task_type, task_id, True, "local")
    if task_type is None or task_id is None:
        raise ValueError("When `cluster_spec` is given, you must also specify `task_type` and "
                         "`task_id`. Add this task to TF_CONFIG, e.g. "
                         '"task": {"type": "worker", "index": 0}.')
    _validate(spec, task_type, task_id)
    if task_type == "evaluator":
        # TF: the (single) evaluator is a cluster, or a partition, of its own.
        return ProcessGroupSettings(0, 1, 0, 1, None, None, None, task_type, task_id, True, source)
    if task_type not in ("chief", "worker"):
        raise ValueError(f"There is no id for task_type {task_type!r}: MultiWorkerMirroredStrategy "
                         "runs chief and worker tasks (and an evaluator on its own); parameter "
                         "servers belong to ParameterServerStrategy.")
    chiefs = _indices(spec, "chief")
    order = [("chief", i) for i in chiefs] + [("worker", i) for i in _indices(spec, "worker")]
    rank = 0 if task_type == "chief" else task_id + len(chiefs)
    world = len(order)
    if world == 1:
        return ProcessGroupSettings(0, 1, 0, 1, None, None, None, task_type, task_id, True, source)
    addresses = [spec.task_address(job, i) for job, i in order]
    endpoints = [_split_host_port(a, job, i) for a, (job, i) in zip(addresses, order)]
    host, port = endpoints[0]
    same_host = [r for r, (h, _) in enumerate(endpoints) if h == endpoints[rank][0]]
    is_chief = task_type in ("chief", "evaluator") or ("chief" not in spec.jobs and task_id == 0)
    return ProcessGroupSettings(
        rank=rank, world_size=world, local_rank=same_host.index(rank),
        local_world_size=len(same_host), master_addr=host, master_port=port,
        init_method=f"tcp://{_join_host_port(host, port)}", task_type=task_type, task_id=task_id,
        is_chief=is_chief, source=source)


def _indices(spec: ClusterSpec, job: str) -> list:
    return spec.task_indices(job) if job in spec.jobs else []


def _validate(spec: ClusterSpec, task_type: str, task_id: int) -> None:
    """MultiWorkerMirroredStrategy's checks (`multi_worker_util._validate_cluster_spec`), with
    TF's messages, each followed by what to change."""
    bad = [job for job in spec.jobs if job not in _ALLOWED_TASK_TYPES]
    if bad:
        raise ValueError(f"Disallowed task type found in cluster spec. Allowed types are "
                         f"{_ALLOWED_TASK_TYPES} and the cluster spec is {spec}. Rename or remove "
                         f"the job(s) {bad} in TF_CONFIG's cluster.")
    if task_type not in _ALLOWED_TASK_TYPES:
        raise ValueError(f"Unrecognized task_type: {task_type}, valid task types are: "
                         f"{_ALLOWED_TASK_TYPES}")
    if task_type not in spec.jobs and task_type != "evaluator":
        raise ValueError(f"`task_type` {task_type!r} not found in cluster_spec. This task's type "
                         f"must be one of the cluster's jobs {spec.jobs}.")
    if "chief" in spec.jobs and spec.num_tasks("chief") > 1:
        raise ValueError("There must be at most one 'chief' job. List the other chief "
                         "addresses under \"worker\".")
    if "evaluator" in spec.jobs and spec.num_tasks("evaluator") > 1:
        raise ValueError("There must be at most one 'evaluator' job.")
    if task_type in spec.jobs and task_id >= spec.num_tasks(task_type):
        raise ValueError(f"The `task_id` {task_id} exceeds the maximum id of {task_type}. Task "
                         f"indices run from 0 to {spec.num_tasks(task_type) - 1}.")
    if task_type in spec.jobs and task_id not in spec.task_indices(task_type):
        raise ValueError(f"No task with index {task_id!r} in job {task_type!r}: a sparse job must "
                         "list every index below its size for MultiWorkerMirroredStrategy.")
    for job in ("chief", "worker"):
        if job in spec.jobs and spec.task_indices(job) != list(range(spec.num_tasks(job))):
            raise ValueError(f"Job {job!r} has task indices {spec.task_indices(job)}: "
                             "MultiWorkerMirroredStrategy needs them to be 0, 1, ..., n-1.")


def _split_host_port(address: str, job: str, index: int) -> tuple:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"The address {address!r} of task {job}:{index} must be host:port "
                         "(e.g. \"10.0.0.1:2222\" or \"[::1]:2222\"): torch's rendezvous listens "
                         "on the chief's port.")
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host, int(port)


def _join_host_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
