"""Record TF 2.21's `tf.compat.v1.train` optimizers (eager) into fixtures for
`test_v1_optimizers.py`.

For every optimizer configuration x dtype (float32, float64) x gradient kind (dense,
IndexedSlices with duplicate indices) x learning-rate kind (a float, a float64 tensor, a
callable whose value changes per step), it applies three steps of fixed gradients and
records the variable, every slot and non-slot variable after each step, and the names
TF gives them. It also writes a `tf1.train.Saver` checkpoint and a `tf.train.Checkpoint`
of an Adam run mid-way, with the steps that follow. Run under a Python with TensorFlow:
`TF_USE_LEGACY_KERAS=1 /work/tfenv/bin/python tests/compat/v1/gen_v1_optimizers.py`.
"""

from __future__ import annotations

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import generator_env  # noqa: E402

generator_env.prepare()

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
FIXTURES = os.path.join(HERE, "fixtures")
OUT = os.path.join(FIXTURES, "v1_optimizers.json")

SHAPE = (4, 3)
STEPS = 3
SPARSE_INDICES = [[0, 2, 0], [3, 1, 1], [2, 2, 0]]

# name -> (class name, base learning rate, other constructor arguments)
CONFIGS = {
    "gd": ("GradientDescentOptimizer", 0.1, {}),
    "momentum": ("MomentumOptimizer", 0.05, {"momentum": 0.9}),
    "nesterov": ("MomentumOptimizer", 0.05, {"momentum": 0.9, "use_nesterov": True}),
    "adam": ("AdamOptimizer", 0.01, {}),
    "adam_custom": ("AdamOptimizer", 0.02, {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-3}),
    "adagrad": ("AdagradOptimizer", 0.1, {}),
    "adagrad_init": ("AdagradOptimizer", 0.1, {"initial_accumulator_value": 0.5}),
    "rmsprop": ("RMSPropOptimizer", 0.01, {}),
    "rmsprop_momentum": ("RMSPropOptimizer", 0.01, {"momentum": 0.9, "epsilon": 1e-6}),
    "rmsprop_centered": ("RMSPropOptimizer", 0.01, {"momentum": 0.5, "centered": True}),
    "adadelta": ("AdadeltaOptimizer", 1.0, {"rho": 0.9, "epsilon": 1e-6}),
    "proximal_adagrad": ("ProximalAdagradOptimizer", 0.1, {}),
    "proximal_adagrad_l1l2": ("ProximalAdagradOptimizer", 0.1,
                              {"l1_regularization_strength": 0.05, "l2_regularization_strength": 0.1}),
    "ftrl": ("FtrlOptimizer", 0.1, {}),
    "ftrl_l1l2": ("FtrlOptimizer", 0.1, {"l1_regularization_strength": 0.05,
                                         "l2_regularization_strength": 0.1}),
    "ftrl_shrinkage_power": ("FtrlOptimizer", 0.1, {"learning_rate_power": -0.7,
                                                    "l2_shrinkage_regularization_strength": 0.1,
                                                    "initial_accumulator_value": 0.5}),
}


def inputs(seed: int) -> dict:
    rng = np.random.RandomState(seed)
    return {
        "init": rng.normal(size=SHAPE).tolist(),
        "dense": [rng.normal(size=SHAPE).tolist() for _ in range(STEPS)],
        "sparse": [rng.normal(size=(len(SPARSE_INDICES[0]), SHAPE[1])).tolist()
                   for _ in range(STEPS)],
    }


def learning_rate(kind: str, base: float) -> object:
    if kind == "float":
        return base
    if kind == "tensor":
        return tf.constant(base, tf.float64)
    calls = []

    def schedule() -> float:
        calls.append(None)
        return base / len(calls)  # base, base / 2, base / 3: one call per step
    return schedule


def make(config: str, lr_kind: str) -> object:
    cls, base, kwargs = CONFIGS[config]
    return getattr(tf1.train, cls)(learning_rate=learning_rate(lr_kind, base), **kwargs)


def state(opt, var) -> dict:
    return {
        "var": var.numpy().tolist(),
        "slots": {n: opt.get_slot(var, n).numpy().tolist() for n in opt.get_slot_names()},
        "non_slot": {v.name: v.numpy().tolist() for v in opt.variables()
                     if not v.name.startswith(var.name[:-2] + "/")},
    }


def run_case(name: str, config: str, dtype: str, grads: str, lr_kind: str, data: dict) -> dict:
    var = tf.Variable(np.array(data["init"], dtype=dtype), name=f"{name}/kernel")
    opt = make(config, lr_kind)
    steps = []
    error = None
    for step in range(STEPS):
        if grads == "dense":
            grad = tf.constant(np.array(data["dense"][step], dtype=dtype))
        else:
            grad = tf.IndexedSlices(tf.constant(np.array(data["sparse"][step], dtype=dtype)),
                                    tf.constant(SPARSE_INDICES[step], tf.int64),
                                    tf.constant(SHAPE, tf.int64))
        try:
            opt.apply_gradients([(grad, var)])
        except tf.errors.OpError as e:  # (TF's kernel rejects the case: record its error)
            error = {"class": type(e).__name__, "message": e.message.split(" name:")[0]}
            break
        except (TypeError, ValueError) as e:
            error = {"class": type(e).__name__, "message": None}
            break
        steps.append(state(opt, var))
    return {"name": name, "config": config, "dtype": dtype, "grads": grads, "lr": lr_kind,
            "variables": [v.name for v in opt.variables()], "slot_names": opt.get_slot_names(),
            "steps": steps, "error": error}


def minimize_cases(data: dict) -> list:
    """`minimize` with a callable loss (a dense and a gathered, sparse, gradient) and a
    global step."""
    out = []
    for config in CONFIGS:
        kernel = tf.Variable(np.array(data["init"], dtype="float32"), name=f"min_{config}/kernel")
        emb = tf.Variable(np.array(data["init"], dtype="float32") * 0.5, name=f"min_{config}/emb")
        target = tf.constant(np.array(data["dense"][0], dtype="float32"))
        step = tf.Variable(0, dtype=tf.int64, name="step", trainable=False)
        opt = make(config, "float")

        def loss():
            rows = tf.gather(emb, [0, 2, 0])
            return tf.reduce_sum(tf.square(kernel - target)) + tf.reduce_sum(rows * rows)
        values = []
        for _ in range(STEPS):
            opt.minimize(loss, global_step=step, var_list=[kernel, emb])
            values.append({"kernel": kernel.numpy().tolist(), "emb": emb.numpy().tolist(),
                           "step": int(step.numpy())})
        out.append({"config": config, "target": target.numpy().tolist(), "steps": values})
    return out


def checkpoints(data: dict) -> dict:
    """Adam, two steps, then a Saver checkpoint and a tf.train.Checkpoint, then two more."""
    kernel = tf.Variable(np.array(data["init"], dtype="float32"), name="ckpt_case/kernel")
    opt = tf1.train.AdamOptimizer(0.05)
    grads = [np.array(g, dtype="float32") for g in data["dense"]] + [np.array(data["dense"][0]) * -1]
    for g in grads[:2]:
        opt.apply_gradients([(tf.constant(g, tf.float32), kernel)])
    saver_dir = os.path.join(FIXTURES, "v1_adam_saver")
    object_dir = os.path.join(FIXTURES, "v1_adam_object")
    for d in (saver_dir, object_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    saver = tf1.train.Saver(var_list=[kernel] + opt.variables())
    saver.save(None, os.path.join(saver_dir, "model"), write_meta_graph=False)
    os.remove(os.path.join(saver_dir, "checkpoint"))  # (the state file holds absolute paths)
    tf.train.Checkpoint(optimizer=opt, kernel=kernel).write(os.path.join(object_dir, "ckpt"))
    keys = sorted(n for n, _ in tf.train.list_variables(os.path.join(saver_dir, "model")))
    object_keys = sorted(n for n, _ in tf.train.list_variables(os.path.join(object_dir, "ckpt")))
    after = []
    for g in grads[2:]:
        opt.apply_gradients([(tf.constant(g, tf.float32), kernel)])
        after.append({"kernel": kernel.numpy().tolist(),
                      "m": opt.get_slot(kernel, "m").numpy().tolist()})
    return {"grads": [g.tolist() for g in grads], "saver_keys": keys, "object_keys": object_keys,
            "after": after}


def main() -> None:
    data = inputs(20261204)
    cases = []
    for config in CONFIGS:
        for dtype in ("float32", "float64"):
            for grads in ("dense", "sparse"):
                for lr_kind in ("float", "tensor", "callable"):
                    name = f"{config}_{dtype}_{grads}_{lr_kind}"
                    cases.append(run_case(name, config, dtype, grads, lr_kind, data))
    fixture = {"tf_version": tf.__version__, "shape": list(SHAPE), "sparse_indices": SPARSE_INDICES,
               "configs": {k: [c, lr, kw] for k, (c, lr, kw) in CONFIGS.items()},
               "inputs": data, "cases": cases, "minimize": minimize_cases(data),
               "checkpoint": checkpoints(data)}
    size = generator_env.dump(OUT, fixture)
    print(f"wrote {OUT} ({size} bytes, {len(cases)} cases)")


if __name__ == "__main__":
    main()
