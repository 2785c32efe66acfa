"""Reads are snapshots in both directions, and copy-on-write keeps them cheap.

A read shares the variable's memory (torch's copy-on-write storage) until
one side is written: a write to the variable moves the *variable* to new
memory when a read still shares it (in place otherwise); a write to a read
moves the *read*. `const_data_ptr()` shows which memory a tensor uses
without forcing the copy (`data_ptr()` is a mutable access, which would).
The snapshot law over every read kind, mutator and write-to-a-read runs in
the conformance suite; this file pins the memory behaviour and the read
kinds one by one.
"""

import threading

import numpy as np
import pytest
import torch

import tfcompat as tf

WRITES = {
    "assign": lambda v: v.assign(np.full(4, 5.0, np.float32)),
    "assign_add": lambda v: v.assign_add(np.ones(4, np.float32)),
    "assign_sub": lambda v: v.assign_sub(np.ones(4, np.float32)),
    "scatter_add": lambda v: v.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([2]))),
    "scatter_nd_update": lambda v: v.scatter_nd_update(tf.constant([[1]]), tf.constant([9.0])),
    "slice_assign": lambda v: v[1:3].assign(7.0),
    "item_assign": lambda v: v.__setitem__(0, 3.0),
    "handle": lambda v: v.handle.add_(1.0),
}


def fresh():
    return tf.Variable(np.arange(4, dtype=np.float32))


def ptr(t):
    return t.const_data_ptr()


def storage_ptr(v):
    return v._storage().value.const_data_ptr()


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_after_reads_were_dropped_is_in_place(write):
    v = fresh()
    r = v.read_value()
    s = v[1:]
    del r, s
    before = storage_ptr(v)
    WRITES[write](v)
    assert storage_ptr(v) == before


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_never_read_is_in_place(write):
    v = fresh()
    before = storage_ptr(v)
    for _ in range(3):
        WRITES[write](v)
    assert storage_ptr(v) == before


READS = {
    "read_value": lambda v: v.read_value(), "value": lambda v: v.value(),
    "convert": lambda v: tf.convert_to_tensor(v), "slice": lambda v: v[1:3],
    "view": lambda v: v.read_value()[0], "row": lambda v: list(v)[2],
    "identity": lambda v: tf.identity(v), "reshape": lambda v: tf.reshape(v, [2, 2]),
    "torch_view": lambda v: torch.flatten(v),
}


@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("write", list(WRITES))
def test_a_live_read_keeps_its_values_and_memory_and_the_variable_moves(read, write):
    v = fresh()
    old = storage_ptr(v)
    r = READS[read](v)
    before = r.clone()
    WRITES[write](v)
    assert torch.equal(r, before)
    assert ptr(r) == old or r.numel() <= 1 or read in ("slice", "view", "row")
    assert storage_ptr(v) != old  # the writer copied, not the reader
    # and the next write, with the old read still alive, is in place again
    moved = storage_ptr(v)
    WRITES[write](v)
    assert storage_ptr(v) == moved
    assert torch.equal(r, before)


def test_one_copy_per_kept_read_not_per_write():
    v = fresh()
    kept = v.read_value()
    v.assign_add(np.ones(4, np.float32))
    moved = storage_ptr(v)
    for _ in range(5):
        v.assign_add(np.ones(4, np.float32))
    assert storage_ptr(v) == moved
    np.testing.assert_array_equal(kept.numpy(), [0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [6.0, 7.0, 8.0, 9.0])


def test_reads_share_memory_until_a_write():
    v = fresh()
    a, b = v.read_value(), tf.convert_to_tensor(v)
    assert ptr(a) == ptr(b) == storage_ptr(v)  # no copy per read


# -- writing a read never changes the variable (TF: tensors are immutable) ----------

READ_KINDS = {
    "convert_to_tensor": lambda v: tf.convert_to_tensor(v),
    "value": lambda v: v.value(),
    "read_value": lambda v: v.read_value(),
    "identity": lambda v: tf.identity(v),
    "reshape": lambda v: tf.reshape(v, [-1]),
    "transpose": lambda v: tf.transpose(v),
    "squeeze": lambda v: tf.squeeze(tf.expand_dims(v, 0)),
    "expand_dims": lambda v: tf.expand_dims(v, 0),
    "cast": lambda v: tf.cast(v, tf.float32),
    "stop_gradient": lambda v: tf.stop_gradient(v),
    "getitem_row": lambda v: v[0],
    "getitem_column": lambda v: v[:, 1],
    "sparse_read": lambda v: v.sparse_read([1, 0]),
    "gather": lambda v: tf.gather(v, [1]),
    "operator": lambda v: v * 1.0,
    "torch_view": lambda v: torch.flatten(v),
    "torch_reshape": lambda v: torch.reshape(v, (-1,)),
    "torch_t": lambda v: torch.t(v),
    "torch_narrow": lambda v: torch.narrow(v, 1, 0, 1),
}
# Views made by one multi-output op: torch allows writing them only outside autograd.
MULTI_VIEW_KINDS = {
    "iter": lambda v: list(v)[0],
    "unstack": lambda v: tf.unstack(v)[1],
    "split": lambda v: tf.split(v, 2)[0],
    "torch_unbind": lambda v: torch.unbind(v)[0],
}
IN_PLACE = {
    "iadd": lambda x: x.__iadd__(1.0),
    "setitem": lambda x: x.__setitem__(..., 7.0),
    "zero_": lambda x: x.zero_(),
    "copy_": lambda x: x.copy_(torch.full_like(x, 9.0)),
    "view_write": lambda x: x.unsqueeze(0)[0].mul_(2.0),
    "numpy_write": lambda x: x.detach().numpy().__setitem__(..., 4.0),
}


def matrix():
    return tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("under_tape", [False, True])
@pytest.mark.parametrize("mutate", list(IN_PLACE))
@pytest.mark.parametrize("read", list(READ_KINDS) + list(MULTI_VIEW_KINDS))
def test_writing_a_read_changes_the_read_and_never_the_variable(read, mutate, under_tape):
    v = matrix()
    other = v.read_value()
    with tf.GradientTape() as tape:
        x = (READ_KINDS.get(read) or MULTI_VIEW_KINDS[read])(v) if under_tape else None
    if not under_tape:
        x = (READ_KINDS.get(read) or MULTI_VIEW_KINDS[read])(v)
    expected = x.detach().clone()
    reference = expected.clone()
    IN_PLACE[mutate](reference)
    if under_tape and read in MULTI_VIEW_KINDS and mutate != "numpy_write":
        with pytest.raises(RuntimeError, match="view"):
            IN_PLACE[mutate](x)
        reference = expected  # refused at the write: nothing changed
    else:
        IN_PLACE[mutate](x)
    np.testing.assert_array_equal(v.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(other.numpy(), v.numpy())
    np.testing.assert_array_equal(x.detach().numpy(), reference.numpy())
    del tape


@pytest.mark.parametrize("kind", ["numpy", "asarray", "array"])
def test_writing_a_numpy_result_never_changes_the_variable(kind):
    v = matrix()
    arr = {"numpy": v.numpy, "asarray": lambda: np.asarray(v), "array": lambda: np.array(v)}[kind]()
    arr[...] = -1
    np.testing.assert_array_equal(v.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))


def test_numpy_of_a_read_is_a_copy_only_when_written():
    v = matrix()
    r = v.read_value()
    arr = r.numpy()  # a plain CPU tensor's numpy() shares its memory (torch's semantics) ...
    arr[0, 0] = 42.0
    assert float(r[0, 0]) == 42.0  # ... so the read changes, as a torch user expects
    assert float(v[0, 0]) == 0.0   # and the variable never does


def test_a_read_written_under_a_tape_still_differentiates_correctly():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        x = v.read_value()
        y = tf.reduce_sum(v * v)
        x += 10.0           # in TF this rebinds x; here it is in place: both leave v alone
        z = tf.reduce_sum(x * v)
    g = tape.gradient([y, z], v)  # 2v + (2v + 10)
    np.testing.assert_array_equal(g.numpy(), [14.0, 18.0, 22.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


# -- training loops make no copies ------------------------------------------------

def _copies_per_step(make_opt, steps=4, keep_loss=True):
    torch.manual_seed(0)
    w1 = tf.Variable(torch.randn(8, 16), name="w1")
    b1 = tf.Variable(torch.zeros(16), name="b1")
    w2 = tf.Variable(torch.randn(16, 1), name="w2")
    emb = tf.Variable(torch.randn(10, 8), name="emb")
    variables = [w1, b1, w2, emb]
    opt = make_opt()
    ids = torch.tensor([1, 3, 3, 7])
    x = torch.randn(4, 8)
    moves = []
    loss = None
    for step in range(steps):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x + tf.gather(emb, ids), w1) + b1)
            loss = tf.reduce_mean(tf.matmul(h, w2) ** 2)
        grads = tape.gradient(loss, variables)
        before = [storage_ptr(v) for v in variables]
        slots = [storage_ptr(s) for s in opt.variables()[1:]] if step else []
        opt.apply_gradients(zip(grads, variables))
        moves.append(sum(a != storage_ptr(v) for a, v in zip(before, variables))
                     + (sum(a != storage_ptr(s) for a, s in zip(slots, opt.variables()[1:]))
                        if step else 0))
        if not keep_loss:
            del loss
    return moves


@pytest.mark.parametrize("make_opt", [lambda: tf.keras.optimizers.Adam(0.01),
                                      lambda: tf.keras.optimizers.SGD(0.1, momentum=0.9),
                                      lambda: tf.keras.optimizers.Adagrad(0.1)],
                         ids=["adam", "sgd_momentum", "adagrad"])
@pytest.mark.parametrize("keep_loss", [True, False])
def test_a_training_step_copies_no_variable_or_slot(make_opt, keep_loss):
    # The loss (and with it the autograd graph) is still alive when the optimizer writes:
    # the graph holds only aliases of the variables, never a copy-on-write share.
    assert _copies_per_step(make_opt, keep_loss=keep_loss) == [0, 0, 0, 0]


def test_reads_under_a_tape_share_the_variables_memory():
    v = tf.Variable(torch.randn(5, 5))
    with tf.GradientTape():
        r = v.read_value()
        s = v * 1.0
    assert ptr(r) == storage_ptr(v)
    del s


# -- the handle ---------------------------------------------------------------------

def test_writing_the_handle_changes_the_variable_and_keeps_earlier_reads():
    v = fresh()
    r = v.read_value()
    v.handle.add_(1.0)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(r.numpy(), [0.0, 1.0, 2.0, 3.0])


# -- threads ------------------------------------------------------------------------

@pytest.mark.parametrize("write", ["assign", "assign_add", "scatter"])
def test_concurrent_reads_never_see_half_a_write(write):
    # Each write sets every element to the same value; a read mixing two writes is torn.
    n = 1 << 18
    v = tf.Variable(np.zeros(n, np.float32))
    stop = threading.Event()
    idx = tf.constant(np.arange(n, dtype=np.int64))

    def writer():
        k = 0.0
        while not stop.is_set():
            k += 1.0
            if write == "assign":
                v.assign(torch.full((n,), k))
            elif write == "assign_add":
                v.assign_add(torch.ones(n))
            else:
                v.scatter_update(tf.IndexedSlices(torch.full((n,), k), idx))

    t = threading.Thread(target=writer)
    t.start()
    torn = 0
    try:
        for _ in range(150):
            r = v.read_value()
            torn += int(r.min() != r.max())
    finally:
        stop.set()
        t.join(10)
    assert torn == 0


def test_count_up_to_is_atomic_across_threads():
    v = tf.Variable(0)
    got, errors = [], []

    def worker():
        for _ in range(50):
            try:
                got.append(int(v.count_up_to(100)))
            except tf.errors.OutOfRangeError:
                errors.append(1)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert sorted(got) == list(range(100))  # each count handed out once
    assert len(errors) == 100 and int(v.numpy()) == 100
