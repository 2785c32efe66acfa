"""tf.train.Checkpoint: round trips, statuses, deferred restoration, slots, errors, resumed training."""

import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import torch

import tfcompat as tf
from tfcompat.train.format.tensor_bundle import BundleReader, BundleWriter

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import object_graph_programs as programs  # noqa: E402


class Lazy(tf.Module):
    """Creates its variable on first call (restore-on-create)."""

    @tf.Module.with_name_scope
    def __call__(self, x):
        if not hasattr(self, "w"):
            self.w = tf.Variable(tf.ones([x.shape[1], 2]), name="w")
        return tf.matmul(x, self.w)


def _model(dtype=tf.float32):
    m = tf.Module(name="net")
    m.w = tf.Variable(tf.constant([[0.5, -1.0], [2.0, 0.25]], dtype=dtype), name="w")
    m.b = tf.Variable(tf.constant([0.1, -0.2], dtype=dtype), name="b")
    return m


def _train(m, opt, steps, seed):
    gen = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        x = torch.randn(4, 2, generator=gen).to(m.w.dtype.as_torch)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum((tf.matmul(x, m.w) + m.b) ** 2)
        grads = tape.gradient(loss, [m.w, m.b])
        opt.apply_gradients(zip(grads, [m.w, m.b]))


@pytest.mark.parametrize("make_opt", [lambda: tf.keras.optimizers.Adam(0.01),
                                      lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9)],
                         ids=["adam", "sgd_momentum"])
@pytest.mark.parametrize("dtype", [tf.float32, tf.float16])
def test_resumed_training_is_bit_for_bit(tmp_path, make_opt, dtype):
    straight, opt_straight = _model(dtype), make_opt()
    _train(straight, opt_straight, 10, seed=0)
    _train(straight, opt_straight, 10, seed=1)

    first, opt_first = _model(dtype), make_opt()
    _train(first, opt_first, 10, seed=0)
    path = tf.train.Checkpoint(model=first, optimizer=opt_first).save(str(tmp_path / "ck"))

    fresh, opt_fresh = _model(dtype), make_opt()
    fresh.w.assign(tf.zeros_like(fresh.w))
    status = tf.train.Checkpoint(model=fresh, optimizer=opt_fresh).restore(path)
    status.assert_existing_objects_matched()
    assert int(opt_fresh.iterations.numpy()) == 10
    _train(fresh, opt_fresh, 10, seed=1)  # slots are created (restored) at the first apply
    status.assert_consumed()
    for a, b in zip([straight.w, straight.b], [fresh.w, fresh.b]):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for name in opt_straight.get_slot_names():
        np.testing.assert_array_equal(opt_straight.get_slot(straight.w, name).numpy(),
                                      opt_fresh.get_slot(fresh.w, name).numpy())


def test_slots_restored_at_once_when_optimizer_already_has_weights(tmp_path):
    m, opt = _model(), tf.keras.optimizers.Adam(0.1)
    _train(m, opt, 2, seed=3)
    path = tf.train.Checkpoint(m=m, opt=opt).write(str(tmp_path / "a"))
    m2, opt2 = _model(), tf.keras.optimizers.Adam(0.1)
    opt2._create_all_weights([m2.w, m2.b])  # iter, hyperparameters and zero slots exist
    tf.train.Checkpoint(m=m2, opt=opt2).read(path).assert_consumed()
    np.testing.assert_array_equal(opt2.get_slot(m2.w, "v").numpy(), opt.get_slot(m.w, "v").numpy())


def test_deferred_slot_waits_under_a_creator_scope_and_later_restores_win(tmp_path):
    m, opt = _model(), tf.keras.optimizers.SGD(0.1, momentum=0.9)
    _train(m, opt, 3, seed=4)
    old = tf.train.Checkpoint(m=m, opt=opt).write(str(tmp_path / "old"))
    old_momentum = opt.get_slot(m.w, "momentum").numpy()
    old_w = m.w.numpy()
    _train(m, opt, 3, seed=5)
    new = tf.train.Checkpoint(m=m, opt=opt).write(str(tmp_path / "new"))
    new_momentum = opt.get_slot(m.w, "momentum").numpy()
    assert not np.array_equal(old_momentum, new_momentum)

    m2, opt2 = _model(), tf.keras.optimizers.SGD(0.1, momentum=0.9)
    ck = tf.train.Checkpoint(m=m2, opt=opt2)
    with tf.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw)):
        ck.read(new)
        ck.read(old)
    assert opt2._deferred_slot_restorations  # waiting for add_slot
    np.testing.assert_array_equal(m2.w.numpy(), old_w)  # existing objects: the last read wins
    slot = opt2.add_slot(m2.w, "momentum")
    np.testing.assert_array_equal(slot.numpy(), old_momentum)  # the newest restore: `old`


def test_restore_on_create_for_module_variables(tmp_path):
    lazy = Lazy()
    lazy(tf.ones([1, 3]))
    lazy.w.assign(tf.reshape(tf.range(6, dtype=tf.float32), [3, 2]))
    path = tf.train.Checkpoint(model=lazy).write(str(tmp_path / "lazy"))
    fresh = Lazy()
    status = tf.train.Checkpoint(model=fresh).read(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    fresh(tf.ones([1, 3]))
    np.testing.assert_array_equal(fresh.w.numpy(), lazy.w.numpy())
    status.assert_consumed()


def test_wrong_shape_or_dtype_changes_nothing(tmp_path):
    m = tf.Module()
    m.a = tf.Variable([1.0, 2.0])
    m.b = tf.Variable(3.0)
    path = tf.train.Checkpoint(m=m).write(str(tmp_path / "p"))
    n = tf.Module()
    n.b = tf.Variable(9.0)
    n.a = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(2,\) when "
                       r"attempting to restore variable with shape \(3,\) and name Variable:0"):
        tf.train.Checkpoint(m=n).read(path)
    assert float(n.b.numpy()) == 9.0
    k = tf.Module()
    k.b = tf.Variable(9.0)
    k.a = tf.Variable([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="expected dtype int32 does not equal original dtype float"):
        tf.train.Checkpoint(m=k).read(path)
    assert float(k.b.numpy()) == 9.0
    assert k._deferred_dependencies == {}


def test_statuses(tmp_path):
    m = tf.Module()
    m.a = tf.Variable(1.0)
    path = tf.train.Checkpoint(m=m).save(str(tmp_path / "s"))
    assert path.endswith("s-1")
    st = tf.train.Checkpoint(m=tf.Module()).restore(None)
    assert type(st).__name__ == "InitializationOnlyStatus"
    for method in ("assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"):
        with pytest.raises(AssertionError, match=r"No checkpoint specified \(save_path=None\)"):
            getattr(st, method)()
    extra = tf.Module()
    extra.a = tf.Variable(0.0)
    extra.more = tf.Variable(5.0)
    st = tf.train.Checkpoint(m=extra).restore(path)
    with pytest.raises(AssertionError, match="Python objects that were not bound"):
        st.assert_existing_objects_matched()
    assert st.expect_partial() is st
    ck = tf.train.Checkpoint(m=m)
    st = ck.restore(path)
    st.assert_consumed()
    assert int(ck.save_counter.numpy()) == 1  # restored into the lazily created counter
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        tf.train.Checkpoint(other=tf.Variable(1.0)).read(
            tf.train.Checkpoint(x=tf.Variable(2.0)).write(str(tmp_path / "x"))
        ).assert_nontrivial_match()
    with pytest.raises(tf.errors.NotFoundError, match="You may be missing the checkpoint suffix"):
        tf.train.Checkpoint(m=m).restore(str(tmp_path / "nonexistent"))


def test_save_numbers_and_state_file_last(tmp_path):
    m = tf.Module()
    m.a = tf.Variable(1.0)
    ck = tf.train.Checkpoint(m=m)
    assert "save_counter" not in ck._trackable_children()  # created lazily
    p1 = ck.save(str(tmp_path / "c"))
    p2 = ck.save(str(tmp_path / "c"))
    assert (p1, p2) == (str(tmp_path / "c-1"), str(tmp_path / "c-2"))
    state = (tmp_path / "checkpoint").read_text()
    assert state == 'model_checkpoint_path: "c-2"\nall_model_checkpoint_paths: "c-2"\n'
    assert set(BundleReader(p2).keys()) == {"_CHECKPOINTABLE_OBJECT_GRAPH",
                                            "m/a/.ATTRIBUTES/VARIABLE_VALUE",
                                            "save_counter/.ATTRIBUTES/VARIABLE_VALUE"}


def test_name_based_fallback(tmp_path):
    with BundleWriter(str(tmp_path / "v1")) as w:
        w.add("dense/kernel", np.full([2], 7.0, np.float32))
    m = tf.Module()
    with tf.name_scope("dense"):
        m.k = tf.Variable([0.0, 0.0], name="kernel")
    st = tf.train.Checkpoint(m=m).restore(str(tmp_path / "v1"))
    assert type(st).__name__ == "NameBasedSaverStatus"
    np.testing.assert_array_equal(m.k.numpy(), [7.0, 7.0])
    st.assert_consumed()
    m.other = tf.Variable(1.0, name="missing")
    with pytest.raises(AssertionError, match="Some objects had attributes which were not restored"):
        st.assert_consumed()


@pytest.mark.tf_oracle
def test_tensorflow_reads_ours_and_we_read_tensorflows(tmp_path):
    """TF restores a tfcompat checkpoint into its own Module + legacy Adam, and vice versa."""
    tf_python = os.environ.get("TFCOMPAT_TF_PYTHON")
    if not tf_python or not os.path.exists(tf_python):
        pytest.skip("set TFCOMPAT_TF_PYTHON to a Python with tensorflow 2.21 and tf_keras 2.21")
    ours, how = programs.seq_adam(tf, tf.keras.optimizers)
    path = ours.write(str(tmp_path / "ours"))
    script = f"""
import os, sys, json
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
sys.path.insert(0, {str(HERE)!r})
import tensorflow as tf, tf_keras, object_graph_programs as p
ck, _ = p.seq_adam(tf, tf_keras.optimizers.legacy)
model, opt = ck.model, ck.optimizer
fresh = p._model(tf); fopt = tf_keras.optimizers.legacy.Adam(0.1)
st = tf.train.Checkpoint(model=fresh, optimizer=fopt).read({path!r})
p._step(tf, fresh, fopt); st.assert_consumed()
p._step(tf, model, opt)
out = {{"max_diff": max(float(abs(a - b).numpy().max()) for a, b in zip(model.variables, fresh.variables))}}
ck.write({str(tmp_path / "theirs")!r})
print(json.dumps(out))
"""
    proc = subprocess.run([tf_python, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # (tfcompat's first Adam step and TF's agree to float32 rounding, not always bit for bit)
    assert json.loads(proc.stdout.strip().splitlines()[-1])["max_diff"] < 1e-6
    mine, opt = programs._model(tf), tf.keras.optimizers.Adam(0.1)
    st = tf.train.Checkpoint(model=mine, optimizer=opt).read(str(tmp_path / "theirs"))
    programs._step(tf, mine, opt)
    st.assert_consumed()
    reference, ref_opt = programs._model(tf), tf.keras.optimizers.Adam(0.1)
    programs._step(tf, reference, ref_opt)
    programs._step(tf, reference, ref_opt)
    programs._step(tf, reference, ref_opt)
    for a, b in zip(reference.variables, mine.variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_restore_on_create_through_lists_and_dicts(tmp_path):
    src = tf.Module()
    src.layers = [tf.Variable([1.0, 2.0]), tf.Variable(3.0)]
    src.table = {"k": tf.Variable(4.0)}
    path = tf.train.Checkpoint(m=src).write(str(tmp_path / "l"))
    dst = tf.Module()
    dst.layers = []
    dst.table = {}
    status = tf.train.Checkpoint(m=dst).read(path)
    dst.layers.append(tf.Variable([0.0, 0.0]))
    dst.layers.append(tf.Variable(0.0))
    dst.table["k"] = tf.Variable(0.0)
    np.testing.assert_array_equal(dst.layers[0].numpy(), [1.0, 2.0])
    assert float(dst.layers[1].numpy()) == 3.0 and float(dst.table["k"].numpy()) == 4.0
    status.assert_consumed()


def test_a_variable_referenced_twice_is_one_value(tmp_path):
    ckpt, _ = programs.shared_variable(tf, tf.keras.optimizers)
    path = ckpt.write(str(tmp_path / "shared"))
    v = tf.Variable([0.0, 0.0])
    m = tf.Module()
    m.a = v
    m.b = v
    m.l = [v, tf.Variable(0.0)]
    tf.train.Checkpoint(m=m, v=v).read(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert float(m.l[1].numpy()) == 5.0


@pytest.mark.parametrize("make_opt", [lambda: tf.keras.optimizers.Adam(0.01),
                                      lambda: tf.keras.optimizers.SGD(0.05, momentum=0.9)],
                         ids=["adam", "sgd_momentum"])
def test_restore_into_objects_that_already_trained(tmp_path, make_opt):
    """The optimizer's cached step count and hyperparameters follow a restore into live objects."""
    straight, opt_straight = _model(), make_opt()
    _train(straight, opt_straight, 10, seed=0)
    path = tf.train.Checkpoint(model=straight, optimizer=opt_straight).write(str(tmp_path / "x"))
    _train(straight, opt_straight, 10, seed=1)

    other, opt_other = _model(), make_opt()
    _train(other, opt_other, 3, seed=7)
    tf.train.Checkpoint(model=other, optimizer=opt_other).read(path).assert_consumed()
    assert int(opt_other.iterations.numpy()) == 10
    _train(other, opt_other, 10, seed=1)
    for a, b in zip([straight.w, straight.b], [other.w, other.b]):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


from hypothesis import given, strategies as st  # noqa: E402

# A recipe for a tracked structure: a leaf variable (its shape), a list, or a dict of recipes.
_recipes = st.recursive(
    st.tuples(st.just("var"), st.lists(st.integers(1, 3), max_size=2)),
    lambda inner: st.one_of(
        st.tuples(st.just("list"), st.lists(inner, max_size=3)),
        st.tuples(st.just("dict"), st.dictionaries(st.sampled_from(["a", "b/c", "d.e", "0"]),
                                                   inner, max_size=3)),
        st.tuples(st.just("module"), st.dictionaries(st.sampled_from(["x", "y", "z"]), inner,
                                                     min_size=1, max_size=2))),
    max_leaves=6)


def _build(recipe, counter):
    kind, body = recipe
    if kind == "var":
        counter[0] += 1
        return tf.Variable(torch.full(tuple(body), float(counter[0])))
    if kind == "list":
        return [_build(r, counter) for r in body]
    if kind == "dict":
        return {k: _build(r, counter) for k, r in body.items()}
    m = tf.Module()
    for k, r in body.items():
        setattr(m, k, _build(r, counter))
    return m


@given(_recipes)
def test_any_structure_round_trips_and_is_consumed(tmp_path_factory, recipe):
    """Law: restoring a structure's checkpoint into a fresh copy of it restores every value."""
    directory = tmp_path_factory.mktemp("prop")
    src = tf.Module()
    src.root = _build(recipe, [0])
    path = tf.train.Checkpoint(m=src).write(str(directory / "p"))
    dst = tf.Module()
    dst.root = _build(recipe, [100])
    tf.train.Checkpoint(m=dst).read(path).assert_consumed()
    assert [v.numpy().tolist() for v in dst.variables] == [v.numpy().tolist() for v in src.variables]


def test_a_failed_restore_on_create_changes_nothing(tmp_path):
    src = tf.Module()
    src.w = tf.Variable([1.0, 2.0])
    path = tf.train.Checkpoint(m=src).write(str(tmp_path / "f"))
    dst = tf.Module()
    status = tf.train.Checkpoint(m=dst).read(path)
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        dst.w = tf.Variable([0.0, 0.0, 0.0])
    assert not hasattr(dst, "w") and list(dst._trackable_children()) == []
    dst.w = tf.Variable([0.0, 0.0])  # the restore still waits, and now applies
    np.testing.assert_array_equal(dst.w.numpy(), [1.0, 2.0])
    status.assert_consumed()


def test_name_based_restore_of_tf1_saver_fixture():
    """A TF 1 Saver file (engineer C's TF-written fixture) restores by variable names."""
    import json as _json
    fixtures = HERE / "fixtures"
    meta = _json.loads((fixtures / "name_based.json").read_text())
    prefix = str(fixtures / "name_based" / "model.ckpt-3")

    def recorded(name):
        t = meta["tensors"][name]
        return np.frombuffer(bytes.fromhex(t["hex"]), dtype=t["dtype"]).reshape(t["shape"])
    m = tf.Module()
    with tf.name_scope("dense"):
        m.kernel = tf.Variable(tf.zeros([3, 2]), name="kernel")
        m.bias = tf.Variable(tf.zeros([2]), name="bias")
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
    status = tf.train.Checkpoint(model=m, step=step).restore(prefix)
    assert type(status).__name__ == "NameBasedSaverStatus"
    status.assert_consumed()  # save_counter is optional, as TF
    np.testing.assert_array_equal(m.kernel.numpy(), recorded("dense/kernel"))
    np.testing.assert_array_equal(m.bias.numpy(), recorded("dense/bias"))
    assert int(step.numpy()) == int(recorded("global_step"))
    later = tf.Module()
    m.later = later
    with tf.name_scope("dense"):
        later.k = tf.Variable(tf.zeros([3, 2]), name="kernel")  # tracked later: restored by name
    np.testing.assert_array_equal(later.k.numpy(), recorded("dense/kernel"))


def test_checkpoint_options_callbacks_and_skipped_slots(tmp_path):
    m, opt = _model(), tf.keras.optimizers.Adam(0.1)
    _train(m, opt, 2, seed=9)
    calls = []
    options = tf.train.CheckpointOptions(
        experimental_skip_slot_variables=True,
        experimental_write_callbacks=[lambda: calls.append("none"), lambda p: calls.append(p)])
    ck = tf.train.Checkpoint(m=m, opt=opt)
    path = ck.save(str(tmp_path / "o"), options=options)
    assert calls == ["none", path]
    assert [k for k in BundleReader(path).keys() if ".OPTIMIZER_SLOT" in k]  # TF writes them
    full = ck.write(str(tmp_path / "full"))
    m2, opt2 = _model(), tf.keras.optimizers.Adam(0.1)
    opt2._create_all_weights([m2.w, m2.b])
    status = tf.train.Checkpoint(m=m2, opt=opt2).restore(
        full, options=tf.train.CheckpointOptions(experimental_skip_slot_variables=True))
    status.assert_consumed()
    assert float(tf.reduce_sum(tf.abs(opt2.get_slot(m2.w, "m")))) == 0.0  # not restored
    np.testing.assert_array_equal(m2.w.numpy(), m.w.numpy())
    with pytest.raises(ValueError, match="0 or 1 parameters"):
        tf.train.CheckpointOptions(experimental_write_callbacks=[lambda a, b: None])


def test_a_damaged_object_graph_is_data_loss_and_changes_nothing(tmp_path):
    from tfcompat.train import object_graph as og
    graph = og.TrackableObjectGraph(nodes=[og.TrackableObject(
        children=[og.ObjectReference(node_id=5, local_name="v")])])
    with BundleWriter(str(tmp_path / "bad")) as w:
        w.add("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(graph.encode(), dtype=object))
    with BundleWriter(str(tmp_path / "garbage")) as w:
        w.add("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(b"\xff\xff\xff", dtype=object))
    v = tf.Variable(1.0)
    for name in ("bad", "garbage"):
        with pytest.raises(tf.errors.DataLossError, match="object graph .* is corrupted"):
            tf.train.Checkpoint(v=v).restore(str(tmp_path / name))
    assert float(v.numpy()) == 1.0


def _slice_lies(path, key, shape):
    """Rewrites `path`'s index so that `key` claims `shape` as one full-extent slice of one
    element (a hostile file: the index claims more than the data file holds)."""
    from tfcompat.train.format.protos import BundleEntryProto, TensorShapeProto, TensorSliceProto
    from tfcompat.train.format.table import build_table, read_table
    from tfcompat.train.format.tensor_slices import encode_tensor_name_slice
    items = dict(read_table(open(path + ".index", "rb").read(), path))
    bkey = key.encode()
    old = BundleEntryProto.decode(items[bkey])
    dims = lambda ds: TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in ds])  # noqa: E731
    full = [(0, -1)] * len(shape)
    items[bkey] = BundleEntryProto(dtype=old.dtype, shape=dims(shape), slices=[TensorSliceProto(
        extent=[TensorSliceProto.Extent() for _ in shape])]).encode()
    items[encode_tensor_name_slice(bkey, full)] = BundleEntryProto(
        dtype=old.dtype, shape=dims([1] * len(shape)), offset=old.offset, size=4).encode()
    with open(path + ".index", "wb") as f:
        f.write(build_table(sorted(items.items())))


def test_restore_of_a_hostile_sliced_entry_is_data_loss_and_changes_nothing(tmp_path):
    key = "v/.ATTRIBUTES/VARIABLE_VALUE"
    for n in (4, 4_000_000_000):
        path = tf.train.Checkpoint(v=tf.Variable(np.arange(4, dtype=np.float32))).write(
            str(tmp_path / f"c{n}"))
        _slice_lies(path, key, [n])
        v = tf.Variable(np.full(4, 9.0, np.float32))
        other = tf.Variable(5.0)
        expected = tf.errors.DataLossError if n == 4 else ValueError  # (TF's shape error first)
        with pytest.raises(expected):
            tf.train.Checkpoint(v=v, other=other).read(path)
        assert v.numpy().tolist() == [9.0] * 4
        with pytest.raises(tf.errors.DataLossError, match="does not match its extent"):
            tf.train.load_checkpoint(path).get_tensor(key)


def test_restore_of_a_hostile_slot_is_data_loss_and_changes_nothing(tmp_path):
    # A slot's shape is not checked against its variable's (Adafactor's differ): a
    # [4e9] claim over 4 bytes must fail in the reader, before anything is allocated.
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam(0.1)
    opt.apply_gradients([(tf.constant([0.5, 0.5]), v)])
    path = tf.train.Checkpoint(v=v, opt=opt).write(str(tmp_path / "s"))
    slot = [k for k, _ in tf.train.list_variables(path) if "/.OPTIMIZER_SLOT/" in k and "/m/" in k][0]
    _slice_lies(path, slot, [4_000_000_000])
    fresh_v = tf.Variable([7.0, 7.0])
    fresh_opt = tf.keras.optimizers.Adam(0.1)
    with pytest.raises(tf.errors.DataLossError, match="does not match its extent"):
        tf.train.Checkpoint(v=fresh_v, opt=fresh_opt).read(path)
    assert fresh_v.numpy().tolist() == [7.0, 7.0]
    assert not fresh_opt.variables()[1:]  # no slot was created
