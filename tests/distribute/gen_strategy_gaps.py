"""Generate ``fixtures/strategy_gaps.json`` from real TensorFlow 2.21.

Run (needs TensorFlow 2.21, NOT the project venv)::

    /work/tfenv/bin/python tests/distribute/gen_strategy_gaps.py

Every program of ``strategy_gaps_programs.py`` runs eagerly with
``tensorflow`` as the module, in one process whose CPU is split into
``CPUS`` logical devices before anything else touches TF, with
``PYTHONHASHSEED=0``. The output is deterministic: the programs record
patterns of equal draws and values computed from literals, never TF's
random numbers themselves.

strategy_gaps.json::

    {"generator": "tests/distribute/gen_strategy_gaps.py",
     "versions": {"tensorflow": ..., "numpy": ...},
     "cpus": N, "programs": {NAME: {ENTRY: VALUE, ...}}}
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(HERE, "fixtures", "strategy_gaps.json")


def _record() -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    import numpy as np
    import tensorflow as tf

    sys.path.insert(0, ROOT)
    from tests.distribute import strategy_gaps_programs as sp

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * sp.CPUS)
    programs = {name: fn(tf) for name, fn in sp.PROGRAMS.items()}
    return {"generator": "tests/distribute/gen_strategy_gaps.py",
            "versions": {"tensorflow": tf.__version__, "numpy": np.__version__},
            "cpus": sp.CPUS, "programs": programs}


def main() -> None:
    if os.environ.get("_STRATEGY_GAPS_WORKER"):
        json.dump(_record(), sys.stdout)
        return
    env = dict(os.environ, _STRATEGY_GAPS_WORKER="1", PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, check=True,
                         capture_output=True, text=True).stdout
    data = json.loads(out)
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    with open(FIXTURE, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {FIXTURE}: {len(data['programs'])} programs")


if __name__ == "__main__":
    main()
