"""python -m tfcompat.train inspect / convert."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
import torch

from tests.train import fixture_data as fx
from tfcompat.train import __main__ as cli
from tfcompat.train import torch_export as te

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_module_runs_as_a_script(tmp_path):
    out = tmp_path / "model.safetensors"
    done = subprocess.run([sys.executable, "-m", "tfcompat.train", "convert", str(fx.FIXTURES / "object_based"),
                           str(out), "--progress"], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout and "19 tensors" in done.stdout
    assert "convert" in done.stderr and "100%" in done.stderr  # the progress bar (tqdm's or ours)
    from safetensors.torch import load_file

    loaded = load_file(str(out))
    state = te.to_state_dict(str(fx.FIXTURES / "object_based"))
    assert sorted(loaded) == sorted(state) and all(torch.equal(loaded[k], state[k]) for k in state)


def test_inspect_lists_keys_dtypes_shapes_sizes_and_totals(capsys):
    assert cli.main(["inspect", fx.prefix("name_based")]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line.split() for line in out.splitlines()[2:-1]}
    assert sorted(lines) == [name for name, _ in fx.info("name_based")["list_variables"]]
    assert lines["dense/kernel"][1:] == ["float32", "[3,2]", "24", "B"]
    assert lines["global_step"][1:3] == ["int64", "[]"]
    # 6+6+6 kernel-shaped, 2+2+2 bias-shaped, 3 scalars: 26 float32 and one int64
    assert out.splitlines()[-1].startswith("total: 9 tensors, 27 elements, 112 B")


def test_inspect_a_directory_with_strings_and_one_tensor(capsys):
    assert cli.main(["inspect", str(fx.FIXTURES / "object_based")]) == 0
    out = capsys.readouterr().out
    assert "ckpt-3" in out.splitlines()[0]
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in out and "string" in out
    assert cli.main(["inspect", fx.prefix("name_based"), "--tensor", "global_step"]) == 0
    assert capsys.readouterr().out.splitlines() == ["tensor_name:  global_step", "3"]


def test_convert_with_a_name_map(tmp_path, capsys):
    name_map = tmp_path / "map.json"
    name_map.write_text(json.dumps({"dense/kernel": "fc.weight", "dense/bias": "fc.bias", "beta1_power": None}))
    out = tmp_path / "out.safetensors"
    assert cli.main(["convert", fx.prefix("name_based"), str(out), "--name-map", str(name_map),
                     "--no-progress"]) == 0
    assert capsys.readouterr().err == ""
    from safetensors.torch import load_file

    loaded = load_file(str(out))
    assert "fc.weight" in loaded and "beta1_power" not in loaded and "dense.kernel.Adam" in loaded


def test_errors_are_one_line_and_exit_1(tmp_path, capsys):
    assert cli.main(["inspect", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: NotFoundError: ") and err.count("\n") == 1
    (tmp_path / "bad.json").write_text("[1, 2]")
    assert cli.main(["convert", fx.prefix("name_based"), str(tmp_path / "o.safetensors"), "--name-map",
                     str(tmp_path / "bad.json")]) == 1
    assert "must hold a JSON object" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["frobnicate"])
