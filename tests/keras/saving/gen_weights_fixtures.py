"""Record the weights-file fixtures with real tf_keras 2.21, or check files tfcompat wrote.

    TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/keras/saving/gen_weights_fixtures.py
    TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/keras/saving/gen_weights_fixtures.py \
        --verify DIR

Recording writes into `fixtures/`, for each model of `weights_models.MODELS` (weights set
to seeded values; BatchNorm variances positive):

* `<name>.h5` — `model.save_weights("<name>.h5")` (tf_keras's legacy HDF5 layout);
* `<name>_ckpt/ckpt.*` and `<name>_ckpt/checkpoint` — `model.save_weights(".../ckpt")` (TF
  checkpoint format, the model as the root object);
* `<name>_model.h5` for `WHOLE_MODELS` — `model.save("<name>_model.h5")`, uncompiled;
* `mlp_opt_ckpt/`, `mlp_opt_model.h5` — the MLP compiled with the legacy Adam and trained one
  step, so the checkpoint has `optimizer/...` values and Adam's slots, and the `.h5` has a
  `training_config` and `optimizer_weights`;
* `values.npz` — every layer's `get_weights()` (`<model>/<layer>/<i>`), the Adam slots
  (`mlp_opt/slot/<variable name>/<m|v>`) and iteration count (`mlp_opt/iterations`);
* `keys.json` — each checkpoint's keys and shapes (`tf.train.list_variables`).

`--verify DIR` checks the other direction: DIR holds the same files written by tfcompat (a
test writes them, with its own `values.npz`); each is loaded into a fresh tf_keras model and
compared exactly with DIR's `values.npz`. Prints one JSON line; exit status 1 on a mismatch.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import weights_models  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")


def set_seeded_weights(model, seed: int) -> None:
    """Replace every weight by a seeded draw (small values; positive variances)."""
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        values = []
        for w in layer.weights:
            shape = tuple(w.shape)
            if "moving_variance" in w.name:
                values.append(rng.uniform(0.5, 1.5, shape).astype(np.float32))
            else:
                values.append(rng.normal(0.0, 0.5, shape).astype(np.float32))
        layer.set_weights(values)


def layer_values(prefix: str, model) -> dict:
    return {f"{prefix}/{layer.name}/{i}": np.asarray(v)
            for layer in model.layers for i, v in enumerate(layer.get_weights())}


def compiled_mlp(keras, tf):
    model = weights_models.mlp(keras)
    set_seeded_weights(model, 100)
    model.compile(optimizer=keras.optimizers.legacy.Adam(learning_rate=0.01), loss="mse")
    rng = np.random.default_rng(7)
    model.train_on_batch(rng.normal(size=(6, 4)).astype(np.float32),
                         rng.normal(size=(6, 3)).astype(np.float32))
    return model


def record() -> None:
    import tensorflow as tf
    import tf_keras as keras
    os.makedirs(FIXTURES, exist_ok=True)
    values: dict = {}
    keys: dict = {}
    for seed, (name, (build, _)) in enumerate(sorted(weights_models.MODELS.items())):
        keras.backend.clear_session()
        model = build(keras)
        set_seeded_weights(model, seed)
        values.update(layer_values(name, model))
        model.save_weights(os.path.join(FIXTURES, f"{name}.h5"))
        prefix = os.path.join(FIXTURES, f"{name}_ckpt", "ckpt")
        model.save_weights(prefix)
        keys[name] = sorted([k, list(s)] for k, s in tf.train.list_variables(prefix))
        if name in weights_models.WHOLE_MODELS:
            model.save(os.path.join(FIXTURES, f"{name}_model.h5"))
    keras.backend.clear_session()
    model = compiled_mlp(keras, tf)
    values.update(layer_values("mlp_opt", model))
    opt = model.optimizer
    for var in model.trainable_variables:
        for slot in ("m", "v"):
            values[f"mlp_opt/slot/{var.name}/{slot}"] = opt.get_slot(var, slot).numpy()
    values["mlp_opt/iterations"] = np.asarray(opt.iterations.numpy())
    prefix = os.path.join(FIXTURES, "mlp_opt_ckpt", "ckpt")
    model.save_weights(prefix)
    keys["mlp_opt"] = sorted([k, list(s)] for k, s in tf.train.list_variables(prefix))
    model.save(os.path.join(FIXTURES, "mlp_opt_model.h5"))
    np.savez_compressed(os.path.join(FIXTURES, "values.npz"), **values)
    with open(os.path.join(FIXTURES, "keys.json"), "w") as f:
        json.dump(keys, f, sort_keys=True)
        f.write("\n")
    # state files name the prefix relative to their directory; nothing absolute is committed
    for name in list(weights_models.MODELS) + ["mlp_opt"]:
        with open(os.path.join(FIXTURES, f"{name}_ckpt", "checkpoint")) as f:
            assert FIXTURES not in f.read(), "absolute path in a state file"


def comparable(config: dict) -> str:
    """A config as JSON, without the generated name of a Sequential's InputLayer (a name
    counter's value, which differs between processes)."""
    config = json.loads(json.dumps(config, default=str))
    for layer in config.get("layers", []) if "input_layers" not in config else []:
        if layer.get("class_name") == "InputLayer":
            layer["config"].pop("name", None)
    return json.dumps(config, sort_keys=True)


def verify(directory: str) -> int:
    """Load tfcompat's files in `directory` with tf_keras; compare with its values.npz."""
    import tf_keras as keras
    expected = dict(np.load(os.path.join(directory, "values.npz")))
    problems: list = []
    checked: list = []

    def compare(tag: str, prefix: str, model) -> None:
        got = layer_values(prefix, model)
        want = {k: v for k, v in expected.items() if k.startswith(prefix + "/")
                and "/slot/" not in k and not k.endswith("/iterations")}
        if sorted(got) != sorted(want):
            problems.append(f"{tag}: weights {sorted(got)} != {sorted(want)}")
            return
        for k in want:
            if not np.array_equal(got[k], want[k]):
                problems.append(f"{tag}: {k} differs")
        checked.append(tag)

    for name, (build, _) in sorted(weights_models.MODELS.items()):
        if not os.path.exists(os.path.join(directory, f"{name}.h5")):
            continue
        keras.backend.clear_session()
        model = build(keras)
        model.load_weights(os.path.join(directory, f"{name}.h5"))
        compare(f"{name}.h5", name, model)
        keras.backend.clear_session()
        model = build(keras)
        model.load_weights(os.path.join(directory, f"{name}_ckpt", "ckpt")).assert_consumed()
        compare(f"{name}_ckpt", name, model)
        latest = __import__("tensorflow").train.latest_checkpoint(
            os.path.join(directory, f"{name}_ckpt"))
        if latest is None or os.path.basename(latest) != "ckpt":
            problems.append(f"{name}_ckpt: state file names {latest}")
        whole = os.path.join(directory, f"{name}_model.h5")
        if os.path.exists(whole):
            keras.backend.clear_session()
            loaded = keras.models.load_model(whole)
            reference = build(keras)
            if comparable(loaded.get_config()) != comparable(reference.get_config()):
                problems.append(f"{name}_model.h5: config differs from the builder's: "
                                f"{comparable(loaded.get_config())} != "
                                f"{comparable(reference.get_config())}")
            compare(f"{name}_model.h5", name, loaded)
    prefix = os.path.join(directory, "mlp_opt_ckpt", "ckpt")
    if os.path.exists(prefix + ".index"):
        keras.backend.clear_session()
        model = weights_models.mlp(keras)
        opt = keras.optimizers.legacy.Adam(learning_rate=0.01)
        model.compile(optimizer=opt, loss="mse")
        status = model.load_weights(prefix)
        opt._create_all_weights(model.trainable_variables)  # slots take their saved values
        status.assert_consumed()
        compare("mlp_opt_ckpt", "mlp_opt", model)
        for var in model.trainable_variables:
            for slot in ("m", "v"):
                want = expected[f"mlp_opt/slot/{var.name}/{slot}"]
                if not np.array_equal(opt.get_slot(var, slot).numpy(), want):
                    problems.append(f"mlp_opt_ckpt: slot {slot} of {var.name} differs")
        if int(opt.iterations.numpy()) != int(expected["mlp_opt/iterations"]):
            problems.append("mlp_opt_ckpt: iterations differ")
    print(json.dumps({"checked": checked, "problems": problems}))
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--verify":
        sys.exit(verify(sys.argv[2]))
    record()
