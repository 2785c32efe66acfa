"""`model.fit` under MultiWorkerMirroredStrategy: two gloo workers on loopback (torchrun),
each splitting every global batch, train as one device on the global batch (History,
evaluation and weights equal on both workers and to the single-device run)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np

from tests.distribute.test_multi_worker import TIMEOUT, _env, _free_ports
from tests.keras.engine import fit_worker

WORKER = pathlib.Path(fit_worker.__file__)


def test_multi_worker_fit_equals_one_device(tmp_path):
    port = _free_ports(1)[0]
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2", "--nnodes=1",
           f"--master_port={port}", "--master_addr=127.0.0.1", str(WORKER)]
    done = subprocess.run(cmd, env=_env(FIT_OUT=str(tmp_path / "fit")), capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads((tmp_path / f"fit.{i}.json").read_text()) for i in range(2)]
    assert [r["replicas"] for r in results] == [2, 2]
    model = fit_worker.build()
    x, y = fit_worker.data()
    want = model.fit(x, y, batch_size=32, epochs=2, shuffle=False, verbose=0,
                     validation_split=0.25).history
    for r in results:
        assert list(r["history"]) == list(want)
        for key in want:
            np.testing.assert_allclose(r["history"][key], want[key], rtol=2e-5, atol=1e-6,
                                       err_msg=key)
        np.testing.assert_allclose(r["evaluate"], model.evaluate(x, y, batch_size=32, verbose=0),
                                   rtol=2e-5)
        for a, b in zip(r["weights"], model.get_weights()):
            np.testing.assert_allclose(np.asarray(a, np.float32), b, rtol=1e-4, atol=2e-6)
