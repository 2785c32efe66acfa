"""A TF2-style training loop, unchanged except for the import line.

    python examples/quickstart.py

A two-layer regression model: `tf.Variable`s, a forward pass under
`tf.GradientTape`, gradients, and Keras' Adam applying them. Every tensor
here is a `torch.Tensor`; torch's autograd computes the gradients.
"""

import tfcompat as tf  # the port: was `import tensorflow as tf`

tf.random.set_seed(0)

# Data: y = tanh(3x) + noise, for x in [-1, 1].
x = tf.random.uniform([512, 1], minval=-1.0, maxval=1.0)
y = tf.tanh(3.0 * x) + 0.05 * tf.random.normal([512, 1])

with tf.name_scope("mlp"):
    w1 = tf.Variable(tf.random.normal([1, 32], stddev=0.5), name="w1")
    b1 = tf.Variable(tf.zeros([32]), name="b1")
    w2 = tf.Variable(tf.random.normal([32, 1], stddev=0.5), name="w2")
    b2 = tf.Variable(tf.zeros([1]), name="b2")
variables = [w1, b1, w2, b2]
optimizer = tf.keras.optimizers.Adam(learning_rate=0.02)


def model(inputs):
    hidden = tf.nn.relu(tf.matmul(inputs, w1) + b1)
    return tf.matmul(hidden, w2) + b2


for step in range(301):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.numpy():.5f}")

print("variables:", ", ".join(v.name for v in variables))
print("optimizer steps:", int(optimizer.iterations))
