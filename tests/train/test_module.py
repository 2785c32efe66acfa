"""tf.Module against TF 2.21's recorded behaviour (fixtures/object_graph/module.json)."""

import collections
import json
import pathlib
import sys

import pytest

import tfcompat as tf
from tfcompat.train import module as module_lib
from tfcompat.framework import variable_protocol as protocol
from tfcompat.train.trackable import NoDependency

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import object_graph_programs as programs  # noqa: E402

FACTS = json.loads((HERE / "fixtures" / "object_graph" / "module.json").read_text())


def _facts():
    return programs.module_facts(tf)


@pytest.fixture(scope="module")
def ours():
    return _facts()[0]


@pytest.mark.parametrize("fact", ["fresh_vars", "vars_after", "flatten_paths", "variables_values",
                                  "children", "list_children", "nt_children",
                                  "seq_variable_names", "seq_submodule_names", "seq_scope_names"])
def test_matches_tf(ours, fact):
    assert ours[fact] == FACTS[fact]


def test_guide_module_names_variables_in_its_scope():
    class MyModule(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.ones([x.shape[1], 3]))
            return tf.matmul(x, self.w)
    mm = MyModule()
    out = mm(tf.ones([1, 2]))
    assert tuple(out.shape) == (1, 3)
    assert mm.name == FACTS["guide_module_name"]
    assert mm.w.name == FACTS["guide_variable_name"]
    assert MyModule.__call__.__name__ == "__call__"


def test_default_names_are_snake_case():
    names = [type("HTTPServer2Thing", (tf.Module,), {})().name, type("ABC", (tf.Module,), {})().name]
    assert names == FACTS["camel_names"]


@pytest.mark.parametrize("bad", ["a b", "1x", "", "x-y"])
def test_invalid_name_is_tf_value_error(bad):
    with pytest.raises(ValueError) as info:
        tf.Module(name=bad)
    if bad == "a b":
        assert str(info.value) == FACTS["bad_name_error"]


def test_submodules_and_trainability_order():
    a, b, c = tf.Module(name="a"), tf.Module(name="b"), tf.Module(name="c")
    a.z = b
    a.y = c
    b.c = c
    c.v = tf.Variable(1.0, trainable=False)
    b.v = tf.Variable(2.0)
    assert [s.name for s in a.submodules] == FACTS["submodule_order"]
    assert [float(v.numpy()) for v in a.trainable_variables] == FACTS["trainable"]
    assert [float(v.numpy()) for v in a.non_trainable_variables] == FACTS["non_trainable"]


def test_cycles_and_duplicates_are_visited_once():
    a, b = tf.Module(), tf.Module()
    v = tf.Variable(1.0)
    a.b, b.a = b, a
    a.v1, a.v2, b.v = v, v, v
    assert a.variables == (v,)
    assert a.submodules == (b,)
    # with_path keeps every path; the cycle back to `a` is walked once, not recursed into (TF)
    paths = [p for p, _ in a._flatten(predicate=lambda x: x is v, with_path=True)]
    assert paths == [("v1",), ("v2",), ("b", "v"), ("b", "a", "v1"), ("b", "a", "v2")]


def test_flatten_options():
    m = tf.Module()
    m.sub = tf.Module()
    m.sub.w = tf.Variable(1.0)
    m.x = tf.Variable(2.0)
    assert [float(v) for v in m._flatten(recursive=False, predicate=module_lib._is_variable)] \
        == [2.0]
    reverse = list(m._flatten(predicate=module_lib._is_variable,
                              attribute_traversal_key=lambda k: -ord(k[0])))
    assert [float(v) for v in reverse] == [2.0, 1.0]


def test_list_wrapper_tracks_appends_and_refuses_to_save_after_replacement():
    m = tf.Module()
    m.l = []
    m.l.append(tf.Variable(1.0))
    m.l.extend([tf.Variable(2.0)])
    assert list(m.l._trackable_children()) == ["0", "1"]
    assert isinstance(m.l, list) and m.l == [m.l[0], m.l[1]]
    m.l[0] = tf.Variable(3.0)
    with pytest.raises(ValueError, match="append-only"):
        m.l._trackable_children()


def test_no_dependency_and_delete_untrack():
    m = tf.Module()
    m.v = tf.Variable(1.0)
    m.hidden = NoDependency(tf.Variable(2.0))
    assert protocol.is_variable(m.hidden)
    assert list(m._trackable_children()) == ["v"]
    del m.v
    assert list(m._trackable_children()) == []
