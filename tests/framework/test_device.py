"""Devices: `tf.DeviceSpec`, `tf.device`, placement and `tf.config`, as TF 2.21 eager.

Expectations were checked against TF 2.21 on a CPU-only host (a CPU split
into three logical devices). Tests that configure devices run on a fresh
runtime (`device._reset_runtime()`), since TF freezes the layout on first
use. Where a GPU changes TF's answer (default placement), the expectation
is computed from the physical devices present.
"""

from __future__ import annotations

import threading

import pytest
import torch

import tfcompat as tf
from tfcompat.framework import device as device_lib
from tfcompat.framework import errors

DeviceSpec = tf.DeviceSpec
PREFIX = "/job:localhost/replica:0/task:0/device:"
HAS_GPU = torch.cuda.is_available() and torch.cuda.device_count() > 0
DEFAULT = "GPU:0" if HAS_GPU else "CPU:0"


@pytest.fixture
def runtime():
    """A fresh, unconfigured device runtime (restored afterwards)."""
    device_lib._reset_runtime()
    yield device_lib
    device_lib._reset_runtime()


@pytest.fixture
def three_cpus(runtime):
    cpu = runtime.list_physical_devices("CPU")[0]
    runtime.set_logical_device_configuration(
        cpu, [runtime.LogicalDeviceConfiguration()] * 3)
    return runtime


# -- DeviceSpec ----------------------------------------------------------------------

@pytest.mark.parametrize("text,fields,canonical", [
    ("/job:w/replica:0/task:1/device:GPU:2", ("w", 0, 1, "GPU", 2),
     "/job:w/replica:0/task:1/device:GPU:2"),
    ("/gpu:2", (None, None, None, "GPU", 2), "/device:GPU:2"),
    ("/cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
    ("GPU:1", (None, None, None, "GPU", 1), "/device:GPU:1"),
    ("/cpu:*", (None, None, None, "CPU", None), "/device:CPU:*"),
    ("/job:ps", ("ps", None, None, None, None), "/job:ps"),
    ("/device:cpu:0", (None, None, None, "CPU", 0), "/device:CPU:0"),
    ("/job:localhost/replica:0/task:0/device:CPU:0", ("localhost", 0, 0, "CPU", 0),
     PREFIX + "CPU:0"),
])
def test_device_spec_parsing(text, fields, canonical):
    spec = DeviceSpec.from_string(text)
    assert (spec.job, spec.replica, spec.task, spec.device_type, spec.device_index) == fields
    assert spec.to_string() == canonical


@pytest.mark.parametrize("text,attr", [("/foo:bar", "foo"), ("garbage", "garbage"),
                                       ("/device:GPU", "device")])
def test_device_spec_rejects(text, attr):
    with pytest.raises(ValueError, match=f"Unknown attribute '{attr}' is encountered while "
                                         "parsing the device spec"):
        DeviceSpec.from_string(text)


def test_device_spec_constructor_and_repr():
    spec = DeviceSpec(job="w", replica=0, task=1, device_type="gpu", device_index=2)
    assert spec.to_string() == "/job:w/replica:0/task:1/device:GPU:2"
    assert DeviceSpec(device_type="cpu").device_type == "CPU"
    assert repr(DeviceSpec.from_string("/job:w/device:GPU:0")) == (
        "<DeviceSpec(job=w, replica=None, task=None, device_type=GPU, device_index=0)>")


def test_device_spec_merge_and_replace():
    base = DeviceSpec.from_string("/job:w/task:1")
    assert base.make_merged_spec(DeviceSpec.from_string("/cpu:3")).to_string() == \
        "/job:w/task:1/device:CPU:3"
    gpu = DeviceSpec.from_string("/job:w/device:GPU:0")
    assert gpu.make_merged_spec(DeviceSpec.from_string("/job:ps")).to_string() == \
        "/job:ps/device:GPU:0"
    assert gpu.replace(device_index=3).to_string() == "/job:w/device:GPU:3"
    assert gpu.to_string() == "/job:w/device:GPU:0"  # specs are values: nothing mutated


def test_device_spec_equality_and_hash():
    a = DeviceSpec.from_string("/gpu:0")
    b = DeviceSpec(device_type="GPU", device_index=0)
    assert a == b and hash(a) == hash(b)
    assert a != DeviceSpec.from_string("/gpu:1")
    assert a != "/device:GPU:0"  # TF compares specs with specs only


# -- tf.config: physical and logical devices -----------------------------------------

def test_physical_devices(runtime):
    devices = runtime.list_physical_devices()
    assert devices[0] == runtime.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
    assert repr(devices[0]) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert runtime.list_physical_devices("CPU") == devices[:1]
    gpus = runtime.list_physical_devices("GPU")
    assert len(gpus) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
    assert [g.name for g in gpus] == [f"/physical_device:GPU:{i}" for i in range(len(gpus))]
    assert runtime.get_visible_devices() == devices


def test_default_logical_devices(runtime):
    cpus = runtime.list_logical_devices("CPU")
    assert cpus == [runtime.LogicalDevice(name="/device:CPU:0", device_type="CPU")]
    if not HAS_GPU:
        assert runtime.list_logical_devices("GPU") == []


def test_logical_device_configuration_defaults():
    cfg = device_lib.LogicalDeviceConfiguration()
    assert (cfg.memory_limit, cfg.experimental_priority, cfg.experimental_device_ordinal) == \
        (None, None, None)


def test_split_cpu_into_logical_devices(three_cpus):
    cpu = three_cpus.list_physical_devices("CPU")[0]
    assert len(three_cpus.get_logical_device_configuration(cpu)) == 3
    names = [d.name for d in three_cpus.list_logical_devices("CPU")]
    assert names == ["/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    assert all(d.device_type == "CPU" for d in three_cpus.list_logical_devices("CPU"))


def test_unsplit_device_has_no_configuration(runtime):
    cpu = runtime.list_physical_devices("CPU")[0]
    assert runtime.get_logical_device_configuration(cpu) is None


def test_configuration_is_frozen_after_initialization(three_cpus):
    cpu = three_cpus.list_physical_devices("CPU")[0]
    three_cpus.list_logical_devices()  # initializes, as in TF
    with pytest.raises(RuntimeError, match="Virtual devices cannot be modified after being "
                                           "initialized"):
        three_cpus.set_logical_device_configuration(
            cpu, [three_cpus.LogicalDeviceConfiguration()] * 2)
    # the same configuration again is a no-op, not an error
    three_cpus.set_logical_device_configuration(
        cpu, [three_cpus.LogicalDeviceConfiguration()] * 3)


def test_placing_a_variable_initializes(runtime):
    tf.Variable(1.0)
    cpu = runtime.list_physical_devices("CPU")[0]
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        runtime.set_logical_device_configuration(cpu, [runtime.LogicalDeviceConfiguration()] * 2)


def test_set_visible_devices(runtime):
    physical = runtime.list_physical_devices()
    runtime.set_visible_devices(physical)  # unchanged: fine before and after initialization
    runtime.list_logical_devices()
    runtime.set_visible_devices(physical)
    if HAS_GPU:
        with pytest.raises(RuntimeError, match="Visible devices cannot be modified after being "
                                               "initialized"):
            runtime.set_visible_devices([], "GPU")


def test_hiding_gpus_before_initialization(runtime):
    runtime.set_visible_devices([], "GPU")
    assert runtime.get_visible_devices("GPU") == []
    assert runtime.list_logical_devices("GPU") == []
    assert tf.Variable(1.0).device == PREFIX + "CPU:0"


# -- tf.device and placement -----------------------------------------------------------

def test_default_placement(runtime):
    assert tf.Variable(1.0).device == PREFIX + DEFAULT
    assert runtime.current_device() == PREFIX + DEFAULT


def test_variables_on_logical_cpus(three_cpus):
    with tf.device("/cpu:1"):
        v = tf.Variable(1.0)
        assert three_cpus.current_device() == PREFIX + "CPU:1"
        t = tf.constant([1.0])
    assert v.device == PREFIX + "CPU:1"
    assert t.device == torch.device("cpu")  # every logical CPU computes on torch's cpu
    assert three_cpus.torch_device_for("/cpu:2") == torch.device("cpu")
    assert tf.Variable(1.0).device == PREFIX + DEFAULT  # the scope ended


def test_nesting_merges_and_inner_wins(three_cpus):
    with tf.device("/job:localhost"):
        with tf.device("/cpu:2"):
            assert tf.Variable(1.0).device == PREFIX + "CPU:2"
    with tf.device("/cpu:2"):
        with tf.device("/cpu:1"):
            inner = tf.Variable(1.0)
        outer = tf.Variable(1.0)
    assert inner.device == PREFIX + "CPU:1"
    assert outer.device == PREFIX + "CPU:2"
    with tf.device("/device:CPU:2"):
        with tf.device("/job:localhost/replica:0"):  # no device type: the outer one stays
            assert tf.Variable(1.0).device == PREFIX + "CPU:2"


def test_device_none_clears_the_scope(three_cpus):
    with tf.device("/cpu:2"):
        with tf.device(None):
            assert tf.Variable(1.0).device == PREFIX + DEFAULT
        assert tf.Variable(1.0).device == PREFIX + "CPU:2"


def test_device_spec_objects_and_full_names(three_cpus):
    with tf.device(DeviceSpec(device_type="CPU", device_index=1)):
        assert tf.Variable(1.0).device == PREFIX + "CPU:1"
    with tf.device(PREFIX + "CPU:2"):
        assert tf.Variable(1.0).device == PREFIX + "CPU:2"


def test_scope_restored_after_exception(three_cpus):
    with pytest.raises(KeyError):
        with tf.device("/cpu:1"):
            raise KeyError("boom")
    assert three_cpus.current_device() == PREFIX + DEFAULT


def test_soft_placement_falls_back(three_cpus):
    assert three_cpus.get_soft_device_placement() is True
    with tf.device("/cpu:7"):
        assert tf.Variable(1.0).device == PREFIX + "CPU:0"
    if not HAS_GPU:
        with tf.device("/gpu:0"):
            assert tf.Variable(1.0).device == PREFIX + "CPU:0"


def test_without_soft_placement_unknown_devices_fail(three_cpus):
    three_cpus.set_soft_device_placement(False)
    assert three_cpus.get_soft_device_placement() is False
    with pytest.raises(errors.InvalidArgumentError, match="Could not satisfy device specification"):
        with tf.device("/cpu:9"):
            tf.Variable(1.0)
    with tf.device("/cpu:1"):
        assert tf.Variable(1.0).device == PREFIX + "CPU:1"


def test_device_functions_are_rejected():
    with pytest.raises(RuntimeError, match="tf.device does not support functions"):
        with tf.device(lambda op: "/cpu:0"):
            pass


def test_device_scope_is_thread_local(three_cpus):
    seen = []
    with tf.device("/cpu:2"):
        worker = threading.Thread(target=lambda: seen.append(three_cpus.current_device()))
        worker.start()
        worker.join()
        assert three_cpus.current_device() == PREFIX + "CPU:2"
    assert seen == [PREFIX + DEFAULT]


def test_public_tf_config_namespace():
    """TF code calls these through `tf.config`; tfcompat must expose that namespace."""
    config = tf.config
    for name in ("list_physical_devices", "list_logical_devices", "get_visible_devices",
                 "set_visible_devices", "get_logical_device_configuration",
                 "set_logical_device_configuration", "LogicalDeviceConfiguration",
                 "get_soft_device_placement", "set_soft_device_placement"):
        assert callable(getattr(config, name, None)), f"tf.config.{name} is missing"
    assert config.list_physical_devices("CPU") == device_lib.list_physical_devices("CPU")


def test_importing_tfcompat_does_not_touch_cuda():
    """`import tfcompat` must not initialize CUDA (forked workers, CUDA_VISIBLE_DEVICES set later).

    The physical device list is built on first use, as TF's runtime is.
    """
    import subprocess
    import sys
    script = (
        "import torch\n"
        "calls = []\n"
        "for name in ('is_available', 'device_count', 'init', 'current_device'):\n"
        "    fn = getattr(torch.cuda, name)\n"
        "    setattr(torch.cuda, name, lambda *a, _f=fn, _n=name, **k: (calls.append(_n), _f(*a, **k))[1])\n"
        "import tfcompat\n"
        "assert calls == [], calls\n"
        "tfcompat.config.list_physical_devices('CPU')\n"
        "assert 'is_available' in calls, calls\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- devices of other jobs, replicas and tasks -------------------------------------------
#
# TF 2.21 eager (CPU host, default soft placement), recorded with /work/tfenv/bin/python:
# entering `tf.device(name)` succeeds; creating a tensor or variable there raises
# InvalidArgumentError("<full name> unknown device."), the full name filled in with
# TF's defaults (job localhost, replica 0, task 0, the default device). Soft placement
# does not change it (set_soft_device_placement(False) gives the same error).

UNKNOWN = [
    ("/job:worker/task:3/device:CPU:0", "/job:worker/replica:0/task:3/device:CPU:0"),
    ("/job:worker/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"),
    ("/job:localhost/task:1/device:CPU:0", "/job:localhost/replica:0/task:1/device:CPU:0"),
    ("/job:localhost/replica:1/task:0/device:CPU:0",
     "/job:localhost/replica:1/task:0/device:CPU:0"),
    ("/task:3/device:CPU:0", "/job:localhost/replica:0/task:3/device:CPU:0"),
    ("/replica:2/device:CPU:0", "/job:localhost/replica:2/task:0/device:CPU:0"),
    ("/job:worker", f"/job:worker/replica:0/task:0/device:{DEFAULT}"),
    ("/job:ps/task:0", f"/job:ps/replica:0/task:0/device:{DEFAULT}"),
]
LOCAL = ["/job:localhost/replica:0/task:0/device:CPU:0", "/device:CPU:0", "CPU:0", "/cpu:0",
         "/job:localhost", "/job:localhost/device:CPU:0", "/task:0/cpu:0", "/replica:0",
         "/job:localhost/replica:0", "/device:CPU:1"]


@pytest.mark.parametrize("name,full", UNKNOWN, ids=[u[0] for u in UNKNOWN])
@pytest.mark.parametrize("soft", [True, False], ids=["soft", "strict"])
def test_a_device_of_another_job_replica_or_task_is_unknown(runtime, name, full, soft):
    runtime.set_soft_device_placement(soft)
    makers = {"constant": lambda: tf.constant([1.0]), "variable": lambda: tf.Variable([1.0]),
              "zeros": lambda: tf.zeros([2]), "uniform": lambda: tf.random.uniform([2])}
    with tf.device(name):  # entering is fine, as in TF: placing is what fails
        for what, make in makers.items():
            with pytest.raises(errors.InvalidArgumentError) as caught:
                make()
            message = str(caught.value)
            assert message.startswith(f"{full} unknown device."), (what, message)
            assert "drop the /job:, /replica: and /task: parts" in message
    with pytest.raises(errors.InvalidArgumentError, match="unknown device"):
        runtime.torch_device_for(name)
    assert tf.constant([1.0]).device == torch.device("cpu")  # the scope is gone


def test_a_failed_placement_changes_nothing(runtime):
    v = tf.Variable([1.0, 2.0])
    with tf.device("/job:worker/task:3/device:CPU:0"):
        with pytest.raises(errors.InvalidArgumentError, match="unknown device"):
            v.assign([5.0, 6.0])  # its value would be made there
    assert v.numpy().tolist() == [1.0, 2.0]


def test_nested_scopes_merge_before_the_check(runtime):
    with tf.device("/job:worker"):
        with tf.device("/job:localhost"):  # the inner job wins: local again
            assert tf.Variable(1.0).device == PREFIX + DEFAULT
        with tf.device("/cpu:0"):  # the outer job stays
            with pytest.raises(errors.InvalidArgumentError,
                               match="^/job:worker/replica:0/task:0/device:CPU:0 unknown device"):
                tf.Variable(1.0)


@pytest.mark.parametrize("name", LOCAL)
def test_local_forms_still_place_locally(three_cpus, name):
    with tf.device(name):
        v = tf.Variable([1.0])
        t = tf.constant([1.0])
    expected = "CPU:1" if name.endswith("CPU:1") else ("CPU:0" if "cpu" in name.lower()
                                                       else DEFAULT)
    assert v.device == PREFIX + expected
    assert t.device == torch.device("cpu")


def test_a_strategy_can_make_this_process_another_task(runtime):
    """The runtime's own job/task decide what is local (what a multi-worker strategy sets)."""
    runtime.list_logical_devices()
    device_lib._runtime.job, device_lib._runtime.task = "worker", 3
    with tf.device("/job:worker/task:3/device:CPU:0"):
        assert tf.Variable(1.0).device == "/job:worker/replica:0/task:3/device:CPU:0"
    with tf.device("/job:worker/task:0/device:CPU:0"):
        with pytest.raises(errors.InvalidArgumentError,
                           match="^/job:worker/replica:0/task:0/device:CPU:0 unknown device. "
                                 "This process is /job:worker/replica:0/task:3"):
            tf.Variable(1.0)
