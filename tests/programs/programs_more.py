"""More guide-style TF 2 programs: random numbers, tf.function, tf.data, training
checkpoints, and a Core-APIs style regression. Same contract as `programs_basics.py`.

Random draws are compared by shape, dtype and statistics only: tfcompat's streams are
deterministic for a seed but are not TF's Philox streams (docs/differences.md).
"""

import os
import tempfile

import numpy as np

from tests.ops.golden.harness import Case


def random_numbers(tf):
    g1 = tf.random.Generator.from_seed(1)
    a = g1.normal(shape=[2, 3])
    g2 = tf.random.get_global_generator()
    b = g2.normal(shape=[2, 3])
    g = tf.random.Generator.from_seed(1234)
    u = g.uniform(shape=[1000], minval=0, maxval=10, dtype=tf.int32)
    new_gs = g.split(3)
    parts = [x.normal([]) for x in new_gs]
    seeds = g.make_seeds(2)
    s = tf.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    s_again = tf.random.stateless_normal(shape=[2, 3], seed=[1, 2])
    t = tf.random.stateless_uniform(shape=[1000], seed=[3, 4], minval=2.0, maxval=5.0)
    state_before = tf.identity(g1.state)
    g1.normal([4])
    return {
        "shapes": [a.shape.as_list(), b.shape.as_list()],
        "dtypes": [a.dtype.name, u.dtype.name],
        "int_bounds": [bool(tf.reduce_min(u) >= 0), bool(tf.reduce_max(u) < 10)],
        "split_count": len(new_gs), "split_scalar_shapes": [p.shape.as_list() for p in parts],
        "seeds_shape": seeds.shape.as_list(), "seeds_dtype": seeds.dtype.name,
        "stateless_repeat": bool(tf.reduce_all(tf.equal(s, s_again))),
        "stateless_bounds": [bool(tf.reduce_min(t) >= 2.0), bool(tf.reduce_max(t) < 5.0)],
        "state_is_variable": isinstance(g1.state, tf.Variable),
        "state_advances": not bool(tf.reduce_all(tf.equal(state_before, g1.state))),
        "state_dtype": g1.state.dtype.name,
    }


def functions(tf):
    @tf.function
    def add(a, b):
        return a + b

    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.int32)])
    def next_collatz(x):
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    def f(x):
        return tf.abs(x)

    f1 = tf.function(f)
    out = {"add": add(tf.ones([2, 2]), tf.ones([2, 2])), "collatz": next_collatz(tf.constant([1, 2]))}
    try:
        next_collatz(tf.constant([[1, 2], [3, 4]]))
        out["signature_mismatch"] = "ok"
    except (TypeError, ValueError) as e:
        out["signature_mismatch"] = type(e).__name__
    out["python_function"] = f1.python_function is f
    out["concrete"] = f1.get_concrete_function(tf.constant(-1.0))(tf.constant(-2.0))
    return out


def data_pipeline(tf):
    dataset = tf.data.Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
    out = {"elements": [elem for elem in dataset]}
    out["reduce"] = dataset.reduce(0, lambda state, value: state + value)
    ds = tf.data.Dataset.range(10).map(lambda x: x * 2).filter(lambda x: x % 3 != 0).batch(2)
    out["pipeline"] = list(ds.as_numpy_iterator())
    features = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.arange(6, dtype=np.int64)
    pairs = tf.data.Dataset.from_tensor_slices((features, labels)).batch(4)
    out["pairs"] = [list(b) for b in pairs]
    out["cardinality"] = [pairs.cardinality(), tf.data.Dataset.range(3).repeat().cardinality()]
    dict_ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0, 2.0], [3.0, 4.0]]})
    out["dict"] = [d for d in dict_ds]
    padded = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill([x], x)).padded_batch(2)
    out["padded"] = list(padded)
    out["zip_take_skip"] = list(tf.data.Dataset.zip((tf.data.Dataset.range(5),
                                                     tf.data.Dataset.range(5, 10))).skip(1).take(2))
    return out


def checkpoints(tf):
    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.full((2, 1), 0.5, np.float32), name="w")
            self.b = tf.Variable([0.0], name="b")

        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    y = tf.constant([[1.0], [2.0]])
    net = Net()
    opt = tf.keras.optimizers.legacy.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net)
    out = {}
    with tempfile.TemporaryDirectory() as d:
        manager = tf.train.CheckpointManager(ckpt, d, max_to_keep=3)
        for _ in range(5):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(net(x) - y))
            grads = tape.gradient(loss, net.trainable_variables)
            opt.apply_gradients(zip(grads, net.trainable_variables))
            ckpt.step.assign_add(1)
            manager.save()
        out["kept"] = [os.path.basename(p) for p in manager.checkpoints]
        out["latest"] = os.path.basename(tf.train.latest_checkpoint(d))
        out["listed"] = [(n, s) for n, s in tf.train.list_variables(d)]
        reader = tf.train.load_checkpoint(d)
        out["w_saved"] = reader.get_tensor("net/w/.ATTRIBUTES/VARIABLE_VALUE")
        net2, opt2 = Net(), tf.keras.optimizers.legacy.Adam(0.1)
        ckpt2 = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt2, net=net2)
        status = ckpt2.restore(manager.latest_checkpoint)
        out["restored"] = [net2.w, net2.b, ckpt2.step]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net2(x) - y))
        grads = tape.gradient(loss, net2.trainable_variables)
        opt2.apply_gradients(zip(grads, net2.trainable_variables))
        status.assert_consumed()
        out["continued"] = [net2.w, net2.b, opt2.iterations]
    return out


def regression(tf):
    rng = np.random.RandomState(1)
    x = tf.constant(rng.rand(64, 3).astype(np.float32) * 10)
    true_w = tf.constant([[1.5], [-2.0], [0.5]])
    y = tf.matmul(x, true_w) + 3.0

    class Normalize(tf.Module):
        def __init__(self, x):
            self.mean = tf.math.reduce_mean(x, axis=0)
            self.std = tf.math.reduce_std(x, axis=0)

        def norm(self, x):
            return (x - self.mean) / self.std

        def unnorm(self, x):
            return (x * self.std) + self.mean

    class LinearRegression(tf.Module):
        def __init__(self):
            self.built = False

        @tf.function
        def __call__(self, x):
            if not self.built:
                rand_w = tf.ones(shape=(x.shape[-1], 1))
                self.w = tf.Variable(rand_w)
                self.b = tf.Variable(tf.zeros(shape=[]))
                self.built = True
            return tf.squeeze(tf.add(tf.matmul(x, self.w), self.b), axis=1)

    norm_x, norm_y = Normalize(x), Normalize(y)
    xn, yn = norm_x.norm(x), tf.squeeze(norm_y.norm(y), axis=1)
    model = LinearRegression()
    losses = []
    for epoch in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xn) - yn))
        grads = tape.gradient(loss, model.variables)
        for g, v in zip(grads, model.variables):
            v.assign_sub(0.05 * g)
        losses.append(loss)
    return {"mean": norm_x.mean, "std": norm_x.std, "losses": losses,
            "pred": norm_y.unnorm(tf.expand_dims(model(xn[:3]), 1))}


PROGRAMS = {
    "random_numbers": random_numbers,
    "functions": functions,
    "data_pipeline": data_pipeline,
    "checkpoints": Case(checkpoints, ulps=8),
    "regression": Case(regression, ulps=16),  # 20 chained steps over normalized data
}
