"""Cluster resolvers against TF 2.21's recorded behaviour, and the translation to torch.

`fixtures/cluster_resolver.json` comes from `gen_cluster_resolver.py` (real
TF); this module never imports TF. For every case each resolver property
must give TF's value, or raise TF's class with TF's message inside ours
(ours may add what to fix); `process_group_settings` must give TF's
MultiWorkerMirroredStrategy rank (`id_in_cluster`), world size
(`worker_count`) and chief, or TF's error. `DEVIATIONS` lists where tfcompat
chooses differently on input TF mishandles (see the module's docstring).
"""

import json
import os

import pytest
from hypothesis import given, strategies as st

from tfcompat.distribute import cluster_resolver as cr

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures",
                       "cluster_resolver.json")
with open(FIXTURE) as _f:
    GOLDEN = json.load(_f)["cases"]

_ENV = ("TF_CONFIG", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR",
        "MASTER_PORT", "TORCHELASTIC_RUN_ID")

#: case -> {field: the error class tfcompat raises where TF does not (or None: a value)}
DEVIATIONS = {
    "json_list": {f: "ValueError" for f in ("task_type", "task_id", "rpc_layer", "cluster_spec",
                                            "master", "num_accelerators", "strategy")},
    "task_not_an_object": {f: "ValueError" for f in ("task_type", "task_id", "master",
                                                     "num_accelerators", "strategy")},
    # TF's worker_count raises KeyError('evaluator'); an evaluator is a cluster of its own.
    "evaluator_outside_cluster": {"strategy": None},
    # TF accepts it (its gRPC server would fail later); torch's rendezvous needs the port.
    "address_without_port": {"strategy": "ValueError"},
}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)


def _set_tf_config(monkeypatch, config):
    if config is None:
        monkeypatch.delenv("TF_CONFIG", raising=False)
    else:
        monkeypatch.setenv("TF_CONFIG", config if isinstance(config, str) else json.dumps(config))


def _outcome(fn):
    try:
        return {"value": fn()}
    except Exception as e:
        return {"error": type(e).__name__, "message": str(e)}


def _encode_spec(d):
    return {job: ({"list": list(tasks)} if isinstance(tasks, list)
                  else {"sparse": sorted([int(i), a] for i, a in tasks.items())})
            for job, tasks in d.items()}


def _strategy_view(resolver):
    s = cr.process_group_settings(resolver)
    if s.source == "local":
        return "local"
    return {"rank": s.rank, "world_size": s.world_size, "is_chief": s.is_chief}


def _ours(resolver):
    return {
        "task_type": _outcome(lambda: resolver.task_type),
        "task_id": _outcome(lambda: resolver.task_id),
        "rpc_layer": _outcome(lambda: resolver.rpc_layer),
        "environment": _outcome(lambda: resolver.environment),
        "cluster_spec": _outcome(lambda: _encode_spec(resolver.cluster_spec().as_dict())),
        "master": _outcome(lambda: resolver.master()),
        "num_accelerators": _outcome(lambda: dict(resolver.num_accelerators())),
        "strategy": _outcome(lambda: _strategy_view(resolver)),
    }


def _matches_tf(got, want):
    if "value" in want:
        return got == want
    return got.get("error") == want["error"] and want["message"] in got.get("message", "")


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_tf_config_resolver_matches_tf(case, monkeypatch):
    golden = GOLDEN[case]
    _set_tf_config(monkeypatch, golden["tf_config"])
    ours = _ours(cr.TFConfigClusterResolver(**golden["kwargs"]))
    deviations = DEVIATIONS.get(case, {})
    for field, got in ours.items():
        want = golden[field]
        if field not in deviations:
            assert _matches_tf(got, want), (field, got, want)
            continue
        # a listed deviation must still be one (else drop it from DEVIATIONS)
        assert not _matches_tf(got, want), (field, got, want)
        expected_error = deviations[field]
        if expected_error is None:
            assert "value" in got, (field, got)
        else:
            assert got.get("error") == expected_error, (field, got)
            assert "TF_CONFIG" in got["message"] or "host:port" in got["message"], got


def test_fixture_covers_the_brief():
    assert GOLDEN["chief_and_workers_as_chief"]["strategy"]["value"] == {
        "rank": 0, "world_size": 3, "is_chief": True}
    assert GOLDEN["workers_only_as_worker0"]["strategy"]["value"]["is_chief"] is True
    assert GOLDEN["missing_task"]["strategy"]["error"] == "ValueError"
    assert GOLDEN["evaluator_in_cluster"]["strategy"]["value"]["world_size"] == 1


# -- the torch side of the settings ---------------------------------------------------

def _settings(monkeypatch, config):
    _set_tf_config(monkeypatch, config)
    return cr.process_group_settings()


def test_chief_is_rank_zero_and_hosts_the_rendezvous(monkeypatch):
    config = dict(GOLDEN["chief_and_workers_as_worker1"]["tf_config"])
    s = _settings(monkeypatch, config)
    assert (s.rank, s.world_size, s.task_type, s.task_id, s.is_chief) == (2, 3, "worker", 1, False)
    assert (s.master_addr, s.master_port, s.init_method) == ("chief0", 2222, "tcp://chief0:2222")
    assert s.source == "TF_CONFIG"


def test_without_a_chief_worker0_is_chief_and_reported_as_worker(monkeypatch):
    s = _settings(monkeypatch, GOLDEN["workers_only_as_worker0"]["tf_config"])
    assert (s.rank, s.task_type, s.task_id, s.is_chief) == (0, "worker", 0, True)
    assert (s.master_addr, s.master_port) == ("w0", 2222)


def test_local_rank_counts_tasks_on_the_same_host(monkeypatch):
    config = GOLDEN["same_host_workers"]["tf_config"]
    ranks = []
    for index in range(3):
        s = _settings(monkeypatch, dict(config, task={"type": "worker", "index": index}))
        ranks.append((s.local_rank, s.local_world_size))
    assert ranks == [(0, 2), (1, 2), (0, 1)]


def test_ipv6_addresses_are_bracketed_in_the_url(monkeypatch):
    s = _settings(monkeypatch, GOLDEN["ipv6_workers"]["tf_config"])
    assert (s.master_addr, s.master_port, s.init_method) == ("::1", 2222, "tcp://[::1]:2222")


@pytest.mark.parametrize("case", ["unset", "empty_cluster", "single_worker", "chief_only",
                                  "evaluator_in_cluster", "evaluator_outside_cluster"])
def test_one_process_groups_need_no_network(case, monkeypatch):
    s = _settings(monkeypatch, GOLDEN[case]["tf_config"])
    assert (s.rank, s.world_size, s.init_method, s.is_chief) == (0, 1, None, True)


@pytest.mark.parametrize("case, fix", [
    ("missing_task", '"task": {"type": "worker", "index": 0}'),
    ("two_chiefs", '"worker"'),
    ("index_out_of_range", "from 0 to 2"),
    ("ps_task", "ParameterServerStrategy"),
    ("unknown_job", "Rename or remove"),
    ("address_without_port", "host:port"),
    ("malformed_json", "unset it"),
    ("json_list", "JSON object"),
])
def test_errors_say_what_to_fix(case, fix, monkeypatch):
    _set_tf_config(monkeypatch, GOLDEN[case]["tf_config"])
    with pytest.raises(ValueError) as info:  # JSONDecodeError is a ValueError, as in TF
        cr.process_group_settings()
    assert fix in str(info.value)


def test_malformed_json_keeps_tf_class(monkeypatch):
    _set_tf_config(monkeypatch, "{nope")
    with pytest.raises(json.JSONDecodeError):
        cr.TFConfigClusterResolver().task_type


def test_tf_config_is_read_again_on_each_access(monkeypatch):
    r = cr.TFConfigClusterResolver()
    _set_tf_config(monkeypatch, GOLDEN["workers_only_as_worker2"]["tf_config"])
    assert r.task_id == 2
    _set_tf_config(monkeypatch, GOLDEN["workers_only_as_worker0"]["tf_config"])
    assert r.task_id == 0
    r.task_id = 1  # the setter overrides, as in TF
    assert r.task_id == 1


def test_settings_are_a_read_only_mapping(monkeypatch):
    s = _settings(monkeypatch, GOLDEN["workers_only_as_worker2"]["tf_config"])
    d = dict(s)
    assert d["rank"] == s["rank"] == 2 and set(d) == set(s.as_dict())
    with pytest.raises(KeyError):
        s["nope"]
    with pytest.raises(Exception):
        s.rank = 0


# -- torchrun ------------------------------------------------------------------------

def _torchrun_env(monkeypatch, **env):
    base = {"RANK": "1", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
            "MASTER_ADDR": "10.0.0.5", "MASTER_PORT": "29500"}
    base.update(env)
    for k, v in base.items():
        if v is None:
            monkeypatch.delenv(k, raising=False)
        else:
            monkeypatch.setenv(k, v)


def test_torchelastic_resolver_reads_torchrun_variables(monkeypatch):
    _torchrun_env(monkeypatch)
    r = cr.TorchElasticClusterResolver()
    assert (r.task_type, r.task_id, r.rpc_layer) == ("worker", 1, None)
    assert r.cluster_spec().as_dict() == {"worker": ["10.0.0.5:29500", "", "", ""]}
    assert r.master(task_id=0) == "10.0.0.5:29500"
    s = cr.process_group_settings()  # found without being named
    assert (s.rank, s.world_size, s.local_rank, s.local_world_size) == (1, 4, 1, 2)
    assert (s.master_addr, s.master_port, s.init_method, s.is_chief) == (
        "10.0.0.5", 29500, "env://", False)
    assert s.source == "torchelastic"


def test_tf_config_wins_over_torchrun_variables(monkeypatch):
    _torchrun_env(monkeypatch)
    _set_tf_config(monkeypatch, GOLDEN["workers_only_as_worker2"]["tf_config"])
    assert cr.process_group_settings().source == "TF_CONFIG"


@pytest.mark.parametrize("env, message", [
    ({"MASTER_PORT": None}, "missing: MASTER_PORT"),
    ({"RANK": "4"}, "RANK=4 must be in [0, WORLD_SIZE=4)"),
    ({"WORLD_SIZE": "four"}, "WORLD_SIZE='four' must be an integer"),
])
def test_torchelastic_errors(env, message, monkeypatch):
    _torchrun_env(monkeypatch, **env)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")
                       .replace(")", r"\)")):
        cr.TorchElasticClusterResolver()


# -- ClusterSpec ---------------------------------------------------------------------

def test_cluster_spec_api():
    spec = cr.ClusterSpec({"worker": {1: "w1:1", 3: "w3:1"}, "ps": ["p0:1"]})
    assert spec.jobs == ["worker", "ps"]
    assert spec.as_dict() == {"worker": {1: "w1:1", 3: "w3:1"}, "ps": ["p0:1"]}
    assert spec.num_tasks("worker") == 2 and spec.task_indices("worker") == [1, 3]
    assert spec.job_tasks("worker") == [None, "w1:1", None, "w3:1"]
    assert spec.task_address("ps", 0) == "p0:1"
    assert repr(spec) == "ClusterSpec({'ps': ['p0:1'], 'worker': {1: 'w1:1', 3: 'w3:1'}})"
    assert spec == cr.ClusterSpec(spec) and spec != cr.ClusterSpec({})
    assert not cr.ClusterSpec({}) and spec
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        spec.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 0 in job 'worker'"):
        spec.task_address("worker", 0)
    with pytest.raises(TypeError, match="must be a dictionary mapping"):
        cr.ClusterSpec(["w:1"])


def test_simple_cluster_resolver():
    r = cr.SimpleClusterResolver({"worker": ["a:1", "b:2"]}, task_type="worker", task_id=1,
                                 num_accelerators={"GPU": 2}, rpc_layer="grpc")
    # TF prefixes even the empty default master: "grpc://"
    assert r.master() == "grpc://" and r.master("worker", 0) == "grpc://a:1"
    assert r.num_accelerators() == {"GPU": 2}
    s = cr.process_group_settings(r)
    assert (s.rank, s.world_size, s.master_addr, s.source) == (1, 2, "a", "SimpleClusterResolver")


# -- laws ---------------------------------------------------------------------------

@st.composite
def clusters(draw):
    hosts = draw(st.lists(st.sampled_from(["h0", "h1", "10.0.0.2", "::1"]), min_size=1, max_size=7))
    addresses = [f"[{h}]:{2000 + i}" if ":" in h else f"{h}:{2000 + i}" for i, h in enumerate(hosts)]
    has_chief = draw(st.booleans()) and len(addresses) > 1
    cluster = {"chief": addresses[:1]} if has_chief else {}
    cluster["worker"] = addresses[1:] if has_chief else addresses
    return cluster


@given(clusters())
def test_every_task_agrees_on_the_world(cluster):
    tasks = [(job, i) for job in ("chief", "worker") for i in range(len(cluster.get(job, [])))]
    got = []
    for job, i in tasks:
        r = cr.SimpleClusterResolver(cluster, task_type=job, task_id=i)
        got.append(cr.process_group_settings(r))
    world = len(tasks)
    if world == 1:
        assert got[0].world_size == 1 and got[0].init_method is None
        return
    # ranks are 0..n-1 in TF's order: the chief, then workers by index
    assert [s.rank for s in got] == list(range(world))
    assert {(s.world_size, s.init_method) for s in got} == {(world, got[0].init_method)}
    assert [s.is_chief for s in got] == [True] + [False] * (world - 1)
    assert got[0].task_type == ("chief" if "chief" in cluster else "worker")
    by_host = {}
    for s, (job, i) in zip(got, tasks):
        by_host.setdefault(cluster[job][i].rsplit(":", 1)[0], []).append(s)
    for members in by_host.values():
        assert [s.local_rank for s in members] == list(range(len(members)))
        assert {s.local_world_size for s in members} == {len(members)}
