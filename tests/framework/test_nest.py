"""`tf.nest`: flatten / pack / map over nested structures, as TF 2.21."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.framework import nest

NT = collections.namedtuple("NT", "x y")

leaves = st.integers(-5, 5)
structures = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.dictionaries(st.sampled_from("abcd"), children, max_size=3),
        st.builds(NT, children, children)),
    max_leaves=8)


def test_flatten_order():
    assert nest.flatten({"b": 1, "a": 2, "c": [3, 4]}) == [2, 1, 3, 4]  # sorted keys
    assert nest.flatten({"z": 1, "a": [2, 3]}) == [2, 3, 1]
    assert nest.flatten((1, (2, 3), [4])) == [1, 2, 3, 4]
    assert nest.flatten(NT(1, [2, 3])) == [1, 2, 3]
    assert nest.flatten(collections.OrderedDict([("b", 1), ("a", 2)])) == [2, 1]
    assert nest.flatten(collections.defaultdict(list, {"b": 1, "a": 2})) == [2, 1]


def test_flatten_leaves():
    assert nest.flatten(None) == [None]
    assert nest.flatten(5) == [5]
    assert nest.flatten("ab") == ["ab"]
    assert nest.flatten([]) == [] and nest.flatten({}) == [] and nest.flatten(()) == []
    t = tf.constant([1, 2])
    assert nest.flatten(t)[0] is t
    v = tf.Variable(1.0)
    assert nest.flatten([v])[0] is v
    arr = np.array([1, 2])
    assert nest.flatten(arr)[0] is arr


def test_is_nested():
    assert nest.is_nested([1]) and nest.is_nested({}) and nest.is_nested(())
    assert not nest.is_nested(1)
    assert not nest.is_nested("ab")
    assert not nest.is_nested(None)
    assert not nest.is_nested(np.array([1, 2]))


def test_pack_sequence_as():
    assert nest.pack_sequence_as({"b": 0, "a": 0}, [1, 2]) == {"b": 2, "a": 1}
    assert nest.pack_sequence_as({"z": 0, "a": [0, 0]}, [1, 2, 3]) == {"z": 3, "a": [1, 2]}
    assert nest.pack_sequence_as(NT(0, [0, 0]), [1, 2, 3]) == NT(1, [2, 3])
    assert nest.pack_sequence_as((0, [0, (0,)]), [1, 2, 3]) == (1, [2, (3,)])
    packed = nest.pack_sequence_as(collections.OrderedDict([("b", 0), ("a", 0)]), [1, 2])
    assert list(packed.items()) == [("b", 2), ("a", 1)]
    assert type(packed) is collections.OrderedDict
    assert nest.pack_sequence_as([], []) == []
    assert nest.pack_sequence_as(0, [5]) == 5


def test_pack_sequence_as_count_mismatch():
    with pytest.raises(ValueError, match="Could not pack sequence. Structure had 2 atoms, but "
                                         "flat_sequence had 1 items"):
        nest.pack_sequence_as([0, 0], [1])


def test_map_structure():
    assert nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert nest.map_structure(lambda a: a * 2, NT(1, (2, 3))) == NT(2, (4, 6))
    assert nest.map_structure(lambda x: x * 2, {"b": 1, "a": [2]}) == {"b": 2, "a": [4]}
    assert nest.map_structure(lambda a, b: a - b, {"a": 1, "b": 2}, {"b": 20, "a": 10}) == \
        {"a": -9, "b": -18}
    assert nest.map_structure(lambda a: a + 1, 3) == 4
    assert nest.map_structure(lambda a: a, None) is None
    dd = nest.map_structure(lambda a: a * 2, collections.defaultdict(int, {"b": 1, "a": 2}))
    assert isinstance(dd, collections.defaultdict) and dict(dd) == {"b": 2, "a": 4}


def test_map_structure_errors():
    with pytest.raises(ValueError, match="Must provide at least one structure"):
        nest.map_structure(lambda a: a)
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.map_structure(lambda a, b: a + b, [1, 2], [1])
    with pytest.raises(ValueError, match="don't have the same nested structure"):
        nest.map_structure(lambda a, b: a + b, {"a": 1}, {"b": 2})
    # list vs tuple is a *type* mismatch in TF
    with pytest.raises(TypeError, match="don't have the same nested structure"):
        nest.map_structure(lambda a, b: a + b, [1, 2], (1, 2))


def test_public_namespace():
    assert tf.nest.flatten({"b": 1, "a": 2}) == [2, 1]
    assert tf.nest.map_structure(lambda x: x + 1, [1]) == [2]
    assert tf.nest.pack_sequence_as([0], [3]) == [3]


@given(structures)
def test_pack_inverts_flatten(s):
    assert nest.pack_sequence_as(s, nest.flatten(s)) == s


@given(structures)
def test_map_identity_preserves_structure(s):
    assert nest.map_structure(lambda x: x, s) == s
    scaled = nest.map_structure(lambda x: x * 10, s)
    assert nest.flatten(scaled) == [x * 10 for x in nest.flatten(s)]
