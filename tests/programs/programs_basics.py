"""TF 2 programs in the style of TensorFlow's guides (tensors, variables, autodiff,
modules, a basic training loop), written against `tf` as their only import.

Each program is `fn(tf) -> dict` of results: `gen_programs.py` runs it under TensorFlow
2.21 and records the results; `test_programs.py` runs it under tfcompat and compares.
A program that raises where TF did not is a defect of tfcompat ("only the import changed").
"""

import numpy as np

from tests.ops.golden.harness import Case


def tensors(tf):
    rank_0 = tf.constant(4)
    rank_1 = tf.constant([2.0, 3.0, 4.0])
    rank_2 = tf.constant([[1, 2], [3, 4], [5, 6]], dtype=tf.float16)
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.ones([2, 2], dtype=tf.int32)
    c = tf.constant([[4.0, 5.0], [10.0, 1.0]])
    x = tf.reshape(tf.range(24), [2, 3, 4])
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    out = {
        "ranks": [rank_0, rank_1, rank_2],
        "add": tf.add(a, b), "mul": tf.multiply(a, b), "matmul": tf.matmul(a, b),
        "ops": a + b, "elementwise": a * b, "at": a @ b,
        "reduce_max": tf.reduce_max(c), "argmax": tf.math.argmax(c), "softmax": tf.nn.softmax(c),
        "convert": tf.convert_to_tensor([1, 2, 3]),
        "shape_list": x.shape.as_list(), "ndim": x.ndim, "size": tf.size(x),
        "rank": tf.rank(x), "dtype": x.dtype.name,
        "reshape": tf.reshape(x, [3, -1]), "flatten": tf.reshape(x, [-1]),
        "slice_last": x[:, :, -1], "slice_step": x[0, 1::2], "index": rank_1[1],
        "cast": tf.cast(tf.constant([2.2, 3.3, 4.4], dtype=tf.float64), dtype=tf.uint8),
        "broadcast": tf.constant([1, 2, 3]) * tf.reshape(tf.constant([1, 2, 3]), [3, 1]),
        "broadcast_to": tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]),
        "numpy": t.numpy(), "np_op": np.add(t, 1),
        "concat_stack": [tf.concat([t, t], axis=1), tf.stack([t, t])],
        "transpose": tf.transpose(t), "squeeze": tf.squeeze(tf.zeros([1, 2, 1])),
        "expand": tf.expand_dims(rank_1, 0), "tile": tf.tile(tf.constant([[1, 2]]), [2, 2]),
        "where": tf.where(t > 2.0, t, tf.zeros_like(t)),
        "string_sum": float(tf.reduce_sum(t)),
    }
    return out


def variables(tf):
    my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = tf.Variable(my_tensor)
    bool_variable = tf.Variable([False, False, False, True])
    complex_variable = tf.Variable([5 + 4j, 6 + 1j])
    a = tf.Variable([2.0, 3.0])
    a.assign([1, 2])
    b = tf.Variable(a)
    a.assign([5, 6])
    results = {
        "shape": my_variable.shape.as_list(), "dtype": my_variable.dtype.name,
        "numpy": my_variable.numpy(), "tensor": tf.convert_to_tensor(my_variable),
        "argmax": tf.math.argmax(my_variable), "reshape": tf.reshape(my_variable, [1, 4]),
        "bool": bool_variable, "complex": complex_variable,
        "a": a.numpy(), "b": b.numpy(), "add": a.assign_add([2, 3]), "sub": a.assign_sub([7, 9]),
    }
    try:
        a.assign([1.0, 2.0, 3.0])
        results["bad_assign"] = "no error"
    except Exception as e:  # noqa: BLE001
        results["bad_assign"] = type(e).__name__
    c = tf.Variable(my_tensor, name="Mark")
    d = tf.Variable(my_tensor + 1, name="Mark")
    step_counter = tf.Variable(1, trainable=False)
    results.update({"same_name": c.name == d.name, "name": c.name, "eq": c == d,
                    "trainable": step_counter.trainable})
    with tf.device("CPU:0"):
        e = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        f = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        results["placed"] = tf.matmul(e, f)
    return results


def autodiff(tf):
    out = {}
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x ** 2
    out["dy_dx"] = tape.gradient(y, x)

    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 10, name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    xx = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = xx @ w + b
        loss = tf.reduce_mean(y ** 2)
    dl_dw, dl_db = tape.gradient(loss, [w, b])
    out["dl_dw"], out["dl_db"] = dl_dw, dl_db
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    out["dict_grad_b"] = grad["b"]
    del tape

    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0 ** 2) + (x1 ** 2) + (x2 ** 2)
    out["trainable_only"] = tape.gradient(y, [x0, x1, x2, x3])
    out["watched"] = [v.name for v in tape.watched_variables()]

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    out["watch_constant"] = tape.gradient(y, x)

    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    out["persistent"] = [tape.gradient(z, x), tape.gradient(y, x)]
    del tape

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y0 = x ** 2
        y1 = 1 / x
    out["list_target"] = tape.gradient([y0, y1], x)
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    out["vector_target"] = tape.gradient(y, x)

    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1 ** 2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    out["control_flow"] = [dv0, dv1]
    out["dx_none"] = tape.gradient(result, x) is None
    del tape

    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    out["stop_recording"] = [grad["x"], grad["y"] is None]

    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y ** 2
    out["unconnected_zero"] = tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    x = tf.Variable(2.0)
    for epoch in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        out[f"int_var_{epoch}"] = type(tape.gradient(y, x)).__name__ != "NoneType"
        x = x + 1  # the guide's pitfall: x is a tensor now, not watched
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * 2
        stacked = tf.stack([y, y * y])
    out["jacobian"] = tape.jacobian(stacked, x)
    return out


def sigmoid_gradient(tf):
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    return {"y": y, "dy_dx": tape.gradient(y, x)}


def modules(tf):
    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(np.linspace(-1, 1, in_features * out_features, dtype=np.float32)
                                 .reshape(in_features, out_features), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b")

        def __call__(self, x):
            y = tf.matmul(x, self.w) + self.b
            return tf.nn.relu(y)

    class SequentialModule(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            self.dense_1 = Dense(in_features=3, out_features=3)
            self.dense_2 = Dense(in_features=3, out_features=2)

        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    class FlexibleDense(tf.Module):
        def __init__(self, out_features, name=None):
            super().__init__(name=name)
            self.is_built = False
            self.out_features = out_features

        @tf.Module.with_name_scope
        def __call__(self, x):
            if not self.is_built:
                self.w = tf.Variable(tf.ones([x.shape[-1], self.out_features]), name="w")
                self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
                self.is_built = True
            return tf.matmul(x, self.w) + self.b

    my_model = SequentialModule(name="the_model")
    x = tf.constant([[2.0, 2.0, 2.0]])
    out = {"model": my_model(x), "submodules": len(my_model.submodules),
           "variables": [v.name for v in my_model.variables],
           "trainable": len(my_model.trainable_variables), "name": my_model.name}
    flex = FlexibleDense(out_features=2, name="flex")
    out["flex"] = flex(tf.constant([[1.0, 2.0, 3.0]]))
    out["flex_names"] = [v.name for v in flex.variables]
    with my_model.name_scope:
        out["in_scope"] = tf.Variable(1.0, name="inner").name
    class WithList(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(2, 2, name="a"), Dense(2, 1, name="b")]
            self.table = {"z": tf.Variable(1.0, name="z"), "y": tf.Variable(2.0, name="y")}
    wl = WithList()
    out["list_dict_vars"] = [v.name for v in wl.variables]
    out["list_submodules"] = [m.name for m in wl.submodules]
    try:
        tf.Module(name="not valid")
        out["bad_name"] = "ok"
    except ValueError:
        out["bad_name"] = "ValueError"
    return out


def training_loop(tf):
    TRUE_W, TRUE_B = 3.0, 2.0
    rng = np.random.RandomState(0)
    xs = rng.randn(201).astype(np.float32)
    noise = rng.randn(201).astype(np.float32)
    x = tf.constant(xs)
    y = x * TRUE_W + TRUE_B + tf.constant(noise)

    class MyModel(tf.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    def loss(target_y, predicted_y):
        return tf.reduce_mean(tf.square(target_y - predicted_y))

    def train(model, x, y, learning_rate):
        with tf.GradientTape() as t:
            current_loss = loss(y, model(x))
        dw, db = t.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(learning_rate * dw)
        model.b.assign_sub(learning_rate * db)

    model = MyModel()
    weights, biases = [], []
    for epoch in range(10):
        train(model, x, y, learning_rate=0.1)
        weights.append(model.w.numpy())
        biases.append(model.b.numpy())
    out = {"w": weights, "b": biases, "loss": loss(y, model(x))}

    model2 = MyModel()
    opt = tf.keras.optimizers.legacy.SGD(learning_rate=0.1, momentum=0.9)
    for step in range(5):
        with tf.GradientTape() as tape:
            current = loss(y, model2(x))
        grads = tape.gradient(current, model2.trainable_variables)
        opt.apply_gradients(zip(grads, model2.trainable_variables))
    out["sgd_momentum"] = [model2.w, model2.b, opt.iterations]
    return out


PROGRAMS = {
    "tensors": tensors,
    "variables": variables,
    "autodiff": autodiff,
    # TF's CPU sigmoid (Eigen's rational approximation) and torch's differ by an ulp on about
    # half the inputs; the gradient y * (1 - y) turns an ulp of y near 1 into ~6e-8 absolute.
    "sigmoid_gradient": Case(sigmoid_gradient, ulps=2, atol=1.2e-7),
    "modules": modules,
    "training_loop": Case(training_loop, ulps=8),  # ten chained updates: a few ulps of drift
}
