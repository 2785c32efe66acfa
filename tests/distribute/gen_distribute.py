"""Generate the `tf.distribute` golden fixture from real TensorFlow 2.21.

Run (needs TensorFlow 2.21 and tf_keras, NOT the project venv)::

    /work/tfenv/bin/python tests/distribute/gen_distribute.py

It writes ``tests/distribute/fixtures/distribute.json``. Every program of
``distribute_programs.py`` runs with ``tensorflow`` as the module, eagerly,
under a ``MirroredStrategy`` over logical CPUs. TF freezes the device layout
when its runtime starts, so each layout (2 logical CPUs for most programs,
3 or 4 for the programs registered with ``cpus=``) runs in its own
subprocess, which configures the CPU before anything else touches TF.
`tf.keras` is tf_keras (``TF_USE_LEGACY_KERAS=1``), whose
`tf.keras.optimizers.legacy` are the OptimizerV2 classes tfcompat follows.

Two TF traits shape the runs. TF's strategies in one process share
collective keys, so `distribute_programs.strategy` gives each strategy its
own key range (as TF's tests do). A failed collective (replicas
all-reducing or gathering different shapes) aborts TF's collective executor
for the rest of the process ("Restart your program to reset"): the worker
stops after such a program and a fresh one runs the rest; such a step is
the last of its program.

The output is deterministic: the inputs are literals, every process runs
with ``PYTHONHASHSEED=0``, and TF runs eagerly on the CPU (the message of
a failed collective names the instance and device that noticed first, and
is only compared by class).

distribute.json
---------------
::

    {"generator": "tests/distribute/gen_distribute.py",
     "versions": {"tensorflow": ..., "tf_keras": ..., "numpy": ...},
     "programs": {NAME: {"cpus": N, "result": {ENTRY: R, ...}}}}

``R`` is ``distribute_programs.encode``'s JSON (see that module); an error
is ``{"error": CLASS, "message": MSG, "key": PHRASE | null}``, where
``PHRASE`` is the part of TF's message tfcompat must reproduce verbatim
(the first match of ``KEY_PATTERNS``; null: the class only). A program
whose error escaped records it under ``"escaped"``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(HERE, "fixtures", "distribute.json")

# The part of TF's message tfcompat must reproduce verbatim: the first pattern that
# matches wins (group 0). Messages that embed reprs or addresses are cut to their
# stable part; a message no pattern matches is compared by class only.
KEY_PATTERNS = [
    r"cannot be reduced with the given reduce op ReduceOp\.SUM",
    r"Cannot update non-float variables with tf\.VariableAggregation\.MEAN aggregation in "
    r"replica context\.",
    r"creating distributed tf\.Variable with aggregation=MEAN and a non-floating dtype is not "
    r"supported",
    r"SyncOnReadVariable does not support `assign_(add|sub)` in cross-replica context when "
    r"aggregation is set to `tf\.VariableAggregation\.SUM`\.",
    r"Method requires being in cross-replica context, use get_replica_context\(\)\.merge_call\(\)",
    r"Mixing different tf\.distribute\.Strategy objects",
    r"`apply_gradients\(\) cannot be called in cross-replica context",
    r"boom on replica \d",
    r"merge failed",
    r"before update",
    r"'late'",
    r"No duplicates allowed in `devices` argument",
    r"`NONE` variable synchronization mode is not supported with tf\.distribute strategy",
    r"Synchronization value can be set to VariableSynchronization\.ON_READ only for "
    r"non-trainable variables",
    r"Could not convert from `tf\.VariableAggregation`",
    r"is only supported for mirrored variable \(variable created within certain "
    r"`tf\.distribute\.Strategy` scope\) with NONE or `ONLY_FIRST_REPLICA` aggregation",
    r"Expected value to be mirrored across replicas",
    r"Shape mismatch",
    r"shapes must be equal",
    r"Cannot convert .+ to EagerTensor of dtype \w+",
    r"expected to be a \w+ tensor but is a \w+ tensor",
    r"Tensor conversion requested dtype \w+ for Tensor with dtype \w+",
    r"Some replicas made a different number of replica_context\(\)\.merge_call\(\) calls",
    r"Invalid variable aggregation mode",
    r"doesn't support `scatter_add`",
    r"gather method requires cross-replica context",
    r"You must specify an aggregation method to update a \w+ in Replica Context",
]
_KEY_RES = [re.compile(p) for p in KEY_PATTERNS]
MAX_MESSAGE = 300


def key_for(message: str):
    for pattern in _KEY_RES:
        m = pattern.search(message)
        if m:
            return m.group(0)
    return None


# Where TF ran a step as a graph, its message names the graph's nodes and the Python
# frames that built them: neither is part of the error.
_GRAPH_NOISE = (
    (re.compile(r"Graph execution error:\s*Detected at node \S+ defined at \(most recent call "
                r"last\):\n(?:[ \t]*File .*\n+)*"), ""),
    (re.compile(r"^in user code:\s*", re.S), ""),
    (re.compile(r"\s*\[\[\{\{node [^}]*\}\}\]\]"), ""),
    (re.compile(r" for '\{\{node [^}]*\}\}.*", re.S), ""),
)


def clean(message: str) -> str:
    for pattern, repl in _GRAPH_NOISE:
        message = pattern.sub(repl, message)
    return message.strip()


def add_keys(x, unmatched, where):
    if isinstance(x, dict):
        if "error" in x:
            x["message"] = clean(x["message"])
            x["key"] = key_for(x["message"])
            if x["key"] is None:
                unmatched.append((where, x["error"], x["message"]))
            if len(x["message"]) > MAX_MESSAGE:
                x["message"] = x["message"][:MAX_MESSAGE] + "..."
            return
        for k, v in x.items():
            add_keys(v, unmatched, f"{where}.{k}")
    elif isinstance(x, list):
        for v in x:
            add_keys(v, unmatched, where)


def _env() -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0", TF_USE_LEGACY_KERAS="1",
               TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


POISONED = "Restart your program to reset"


def worker(cpus: int, names: list) -> None:
    """Run `names` under `cpus` logical CPUs, printing one JSON line per program.

    A failed collective (say, an all-gather of mismatched shapes) aborts TF's
    collective executor for the rest of the process ("Restart your program to
    reset"): the worker stops after such a program, and `main` starts a fresh
    one for the programs left. (Programs keep such a step last.)
    """
    import tensorflow as tf

    physical = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(
        physical[0], [tf.config.LogicalDeviceConfiguration()] * cpus)
    import numpy as np
    import tf_keras

    from tests.distribute import distribute_programs as dp
    versions = {"tensorflow": tf.__version__, "tf_keras": tf_keras.__version__,
                "numpy": np.__version__}
    sys.stdout.write("\n@@VERSIONS@@" + json.dumps(versions) + "\n")
    for name in names:
        result = dp.run_program(tf, name)
        text = json.dumps(result)
        sys.stdout.write("\n@@RESULT@@" + json.dumps([name, result]) + "\n")
        sys.stdout.flush()
        if POISONED in text:
            break
    sys.stdout.flush()
    os._exit(0)  # TF's thread pools complain at interpreter exit


def _run_worker(cpus: int, names: list) -> tuple:
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", str(cpus)] + names,
        env=_env(), capture_output=True, text=True, cwd=ROOT)
    versions, results = None, {}
    for line in proc.stdout.splitlines():
        if line.startswith("@@VERSIONS@@"):
            versions = json.loads(line[len("@@VERSIONS@@"):])
        elif line.startswith("@@RESULT@@"):
            name, result = json.loads(line[len("@@RESULT@@"):])
            results[name] = result
    if proc.returncode != 0 or not results:
        sys.stderr.write(proc.stderr[-5000:])
        raise SystemExit(f"worker for {cpus} CPUs failed ({proc.returncode})")
    return versions, results


def main() -> None:
    sys.path.insert(0, ROOT)
    from tests.distribute import distribute_programs as dp

    by_cpus: dict = {}
    for name in dp.PROGRAMS:
        by_cpus.setdefault(dp.CPUS[name], []).append(name)
    programs: dict = {}
    versions = None
    for cpus, names in sorted(by_cpus.items()):
        left = list(names)
        while left:
            versions, results = _run_worker(cpus, left)
            for name, result in results.items():
                programs[name] = {"cpus": cpus, "result": result}
            left = [n for n in left if n not in results]
    unmatched: list = []
    for name in dp.PROGRAMS:  # registry order
        add_keys(programs[name]["result"], unmatched, name)
    ordered = {name: programs[name] for name in dp.PROGRAMS}
    data = {"generator": "tests/distribute/gen_distribute.py", "versions": versions,
            "programs": ordered}
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    text = json.dumps(data, indent=None, separators=(",", ":"))
    tmp = FIXTURE + ".tmp"
    with open(tmp, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, FIXTURE)
    print(f"wrote {FIXTURE}: {len(ordered)} programs, {len(text)} bytes")
    for where, cls, message in unmatched:
        print(f"  class only: {where}: {cls}: {message[:160]!r}")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), sys.argv[3:])
    else:
        main()
