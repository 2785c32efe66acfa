"""`tf.name_scope` in TF 2 eager: prefixes variable names, never uniquifies them."""

from __future__ import annotations

import threading

import pytest

import tfcompat as tf
from tfcompat.framework.name_scope import current_name_scope


def test_nested_scopes_prefix_variable_names():
    with tf.name_scope("outer") as s1:
        with tf.name_scope("inner") as s2:
            v = tf.Variable(1.0, name="w")
            same = tf.Variable(1.0, name="w")
            unnamed = tf.Variable(1.0)
    assert (s1, s2) == ("outer/", "outer/inner/")
    assert v.name == "outer/inner/w:0"
    assert same.name == "outer/inner/w:0"  # eager names are labels, not keys: no "_1"
    assert unnamed.name == "outer/inner/Variable:0"
    assert current_name_scope() == ""


def test_repeated_scope_names_are_not_uniquified():
    with tf.name_scope("a"):
        pass
    with tf.name_scope("a") as again:
        assert again == "a/"
    with tf.name_scope("x"):
        with tf.name_scope("x"):
            assert tf.Variable(1.0, name="v").name == "x/x/v:0"


def test_absolute_and_reset_scopes():
    with tf.name_scope("outer"):
        with tf.name_scope("inner/") as y:
            assert y == "inner/"
            assert tf.Variable(1.0, name="q").name == "inner/q:0"
        with tf.name_scope("outer/") as x:
            assert x == "outer/"
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            with tf.name_scope("") as top:
                assert top == ""
                assert tf.Variable(1.0, name="r").name == "r:0"
            assert tf.Variable(1.0, name="r").name == "a/b/r:0"


def test_slash_inside_a_name():
    with tf.name_scope("a/b") as s:
        assert s == "a/b/"
    assert tf.name_scope("a/b").name == "a/b"


def test_initializer_callables_do_not_change_the_name():
    with tf.name_scope("x"):
        v = tf.Variable(lambda: tf.constant(1.0))
    assert v.name == "x/Variable:0"


def test_a_scope_object_can_be_reentered():
    scope = tf.name_scope("reuse")
    with scope as a:
        pass
    with scope as b:
        pass
    assert a == b == "reuse/"


@pytest.mark.parametrize("bad", [None, 3])
def test_name_must_be_a_string(bad):
    with pytest.raises(ValueError, match="name for name_scope must be a string"):
        with tf.name_scope(bad):
            pass


def test_restored_after_an_exception():
    with pytest.raises(KeyError):
        with tf.name_scope("boom"):
            raise KeyError("x")
    assert tf.Variable(1.0, name="z").name == "z:0"


def test_scopes_are_thread_local():
    names = []
    with tf.name_scope("main"):
        worker = threading.Thread(target=lambda: names.append(tf.Variable(1.0, name="t").name))
        worker.start()
        worker.join()
        assert current_name_scope() == "main/"
    assert names == ["t:0"]
