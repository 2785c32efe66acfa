"""TF 1 collections emulated eagerly: GraphKeys, get/add, scope regexes, the v1 losses
helpers and reset_default_graph."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import tfcompat as tf

tf1 = tf.compat.v1


@pytest.fixture(autouse=True)
def fresh_graph():
    tf1.reset_default_graph()
    yield
    tf1.reset_default_graph()


def test_graph_keys_are_tfs_strings():
    keys = tf1.GraphKeys
    assert (keys.GLOBAL_VARIABLES, keys.TRAINABLE_VARIABLES, keys.LOCAL_VARIABLES) == (
        "variables", "trainable_variables", "local_variables")
    assert (keys.REGULARIZATION_LOSSES, keys.UPDATE_OPS, keys.LOSSES, keys.MODEL_VARIABLES) == (
        "regularization_losses", "update_ops", "losses", "model_variables")


def test_add_get_and_ref_semantics():
    tf1.add_to_collection("mine", 1)
    tf1.add_to_collections(["mine", "other"], 2)
    assert tf1.get_collection("mine") == [1, 2] and tf1.get_collection("other") == [2]
    copy = tf1.get_collection("mine")
    copy.append(3)
    assert tf1.get_collection("mine") == [1, 2]
    ref = tf1.get_collection_ref("mine")
    ref.append(3)
    assert tf1.get_collection("mine") == [1, 2, 3]
    assert tf1.get_collection("missing") == []


def test_scope_filter_is_re_match_on_names_skipping_nameless():
    with tf1.variable_scope("enc"):
        a = tf1.get_variable("a", [1])
    with tf1.variable_scope("dec"):
        b = tf1.get_variable("b", [1])
    tf1.add_to_collection(tf1.GraphKeys.GLOBAL_VARIABLES, 42)  # (no name: filtered out)
    assert tf1.global_variables("enc") == [a]
    assert tf1.global_variables("e") == [a]   # (a prefix match, as re.match)
    assert tf1.global_variables("nc") == []
    assert tf1.global_variables(".*c/") == [a, b]
    assert tf1.global_variables()[-1] == 42


def test_plain_tf_variables_are_not_collected():
    tf.Variable(1.0, name="plain")
    assert tf1.global_variables() == [] and tf1.trainable_variables() == []


def test_losses_helpers():
    with pytest.raises(ValueError, match="No losses found"):
        tf1.losses.get_total_loss()
    tf1.losses.add_loss(tf.constant(2.0))
    tf1.losses.add_loss(tf.constant(9.0), loss_collection=None)
    assert [float(x) for x in tf1.losses.get_losses()] == [2.0]
    tf1.get_variable("w", initializer=tf.constant([3.0]), regularizer=lambda v: tf.reduce_sum(v))
    assert [float(x) for x in tf1.losses.get_regularization_losses()] == [3.0]
    assert float(tf1.losses.get_total_loss()) == 5.0
    assert float(tf1.losses.get_total_loss(add_regularization_losses=False)) == 2.0
    zero = tf1.losses.get_regularization_loss(scope="nothing")
    assert zero.dtype == tf.float32 and float(zero) == 0.0


def test_reset_default_graph_forgets_everything():
    tf1.add_to_collection(tf1.GraphKeys.UPDATE_OPS, "op")
    tf1.get_variable("w", [1])
    tf1.reset_default_graph()
    assert tf1.get_collection(tf1.GraphKeys.UPDATE_OPS) == []
    assert tf1.global_variables() == []
    tf1.get_variable("w", [1])


def test_initializer_functions_are_runnable_no_ops():
    v = tf1.get_variable("v", [1])
    for op in (tf1.global_variables_initializer(), tf1.local_variables_initializer(),
               tf1.variables_initializer([v]), tf1.initialize_all_variables()):
        assert op.type == "NoOp" and op.run() is None


@given(st.lists(st.sampled_from(["x", "y", "z"]), max_size=6))
def test_law_collection_keeps_insertion_order(items):
    tf1.reset_default_graph()
    for item in items:
        tf1.add_to_collection("law", item)
    assert tf1.get_collection("law") == items
