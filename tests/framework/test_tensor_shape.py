"""`tf.TensorShape`: partial shapes, printing, comparison and arithmetic, as TF 2.21."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import tfcompat as tf
from tfcompat.framework.tensor_shape import Dimension, as_shape, dimension_value, unknown_shape

TS = tf.TensorShape

dims_strategy = st.one_of(
    st.none(), st.lists(st.one_of(st.none(), st.integers(0, 6)), max_size=4))


# -- construction ------------------------------------------------------------

def test_construction_forms():
    assert TS([2, 3]).as_list() == [2, 3]
    assert TS((2, 3)).as_list() == [2, 3]
    assert TS(3).as_list() == [3]
    assert TS(np.int64(3)).as_list() == [3]
    assert TS([np.int32(2), None]).as_list() == [2, None]
    assert TS(torch.Size([4, 5])).as_list() == [4, 5]
    assert TS(TS([1])).as_list() == [1]
    assert TS([Dimension(2), Dimension(None)]).as_list() == [2, None]
    assert TS([]).as_list() == []
    assert as_shape([1, 2]) == TS([1, 2])


def test_construction_errors():
    with pytest.raises(ValueError, match="must be >= 0"):
        TS([-1])
    with pytest.raises(TypeError):
        TS([1.5])
    with pytest.raises(TypeError):
        TS("ab")


def test_unknown_rank():
    s = TS(None)
    assert s.rank is None and s.ndims is None and s.dims is None
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    assert not bool(s)
    with pytest.raises(ValueError, match=r"as_list\(\) is not defined on an unknown TensorShape"):
        s.as_list()
    with pytest.raises(ValueError, match="Cannot take the length of shape with unknown rank"):
        len(s)
    with pytest.raises(ValueError, match="Cannot iterate over a shape with unknown rank"):
        list(s)
    assert unknown_shape() == TS(None)
    assert unknown_shape(2) == TS([None, None])


def test_unknown_dims():
    s = TS([2, None, 4])
    assert s.rank == 3 and len(s) == 3
    assert s.as_list() == [2, None, 4]
    assert not s.is_fully_defined()
    assert s.num_elements() is None
    assert list(s) == [2, None, 4]
    with pytest.raises(ValueError, match=r"Shape \(None,\) is not fully defined"):
        TS([None]).assert_is_fully_defined()


def test_rank_and_num_elements():
    assert TS([]).rank == 0 and TS([]).num_elements() == 1
    assert TS([0, 3]).num_elements() == 0
    assert TS([2, 3, 4]).num_elements() == 24
    assert TS([2, 3]).ndims == 2
    assert bool(TS([]))  # a known scalar shape is truthy, as in TF


def test_dims_are_dimension_objects():
    d = TS([2, None]).dims
    assert all(isinstance(x, Dimension) for x in d)
    assert [x.value for x in d] == [2, None]
    assert d[0] == 2 and d[0].value == 2 and d[1].value is None
    assert dimension_value(d[0]) == 2 and dimension_value(None) is None


# -- printing ------------------------------------------------------------------

@pytest.mark.parametrize("dims,text,rep", [
    ([2, 3], "(2, 3)", "TensorShape([2, 3])"),
    ([None], "(None,)", "TensorShape([None])"),
    ([5], "(5,)", "TensorShape([5])"),
    ([], "()", "TensorShape([])"),
    (None, "<unknown>", "TensorShape(None)"),
    ([None, 3], "(None, 3)", "TensorShape([None, 3])"),
])
def test_str_and_repr(dims, text, rep):
    assert str(TS(dims)) == text
    assert repr(TS(dims)) == rep


# -- indexing ------------------------------------------------------------------

def test_indexing():
    s = TS([1, 2, 3])
    assert s[0] == 1 and s[-1] == 3
    assert isinstance(s[0], int)
    assert s[1:] == TS([2, 3])
    assert isinstance(s[1:], TS)
    assert TS([2, None])[1] is None
    with pytest.raises(IndexError):
        s[3]


def test_indexing_unknown_rank():
    s = TS(None)
    assert s[0] is None
    # TF: a slice with known bounds of an unknown shape has known rank.
    assert s[0:1] == TS([None])
    assert s[1:] == TS(None)


# -- comparison --------------------------------------------------------------------

def test_equality():
    assert TS([2, 3]) == TS([2, 3])
    assert TS([2, 3]) == [2, 3]
    assert TS([2, 3]) == (2, 3)
    assert TS([None]) == TS([None])
    assert TS(None) == TS(None)
    assert TS([2, 3]) != TS([3, 2])
    assert TS([2]) != TS(None)
    assert hash(TS([1, 2])) == hash(TS([1, 2]))


@pytest.mark.parametrize("a,b,compatible", [
    ([2, 3], [2, 3], True), ([2, 3], [2, None], True), ([2, 3], [3, 2], False),
    ([2, 3], None, True), (None, [1], True), ([None, 3], [2, None], True),
    ([2], [2, 1], False), ([], [], True), ([], None, True),
])
def test_is_compatible_with(a, b, compatible):
    assert TS(a).is_compatible_with(TS(b)) is compatible
    assert TS(b).is_compatible_with(TS(a)) is compatible
    if compatible:
        TS(a).assert_is_compatible_with(b)
    else:
        with pytest.raises(ValueError, match="are incompatible"):
            TS(a).assert_is_compatible_with(b)


def test_merge_with():
    assert TS([2, None]).merge_with(TS([None, 3])) == TS([2, 3])
    assert TS(None).merge_with([1, 2]) == TS([1, 2])
    assert TS([1, None]).merge_with(TS(None)) == TS([1, None])
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(3,\) are not compatible"):
        TS([2]).merge_with(TS([3]))
    with pytest.raises(ValueError, match=r"Shapes \(2,\) and \(2, 3\) are not compatible"):
        TS([2]).merge_with(TS([2, 3]))


def test_most_specific_compatible_shape():
    assert TS([2, 3]).most_specific_compatible_shape(TS([2, 4])) == TS([2, None])
    assert TS([2]).most_specific_compatible_shape(TS([2, 4])) == TS(None)


def test_with_rank():
    assert TS([2, 3]).with_rank(2) == TS([2, 3])
    assert TS(None).with_rank(2) == TS([None, None])
    with pytest.raises(ValueError, match="must have rank 1"):
        TS([2, 3]).with_rank(1)
    with pytest.raises(ValueError, match=r"Shape \(1,\) must have rank at least 2"):
        TS([1]).with_rank_at_least(2)


# -- arithmetic ---------------------------------------------------------------------

def test_concatenate():
    assert TS([2]).concatenate([3, None]) == TS([2, 3, None])
    assert TS([2]) + TS([3]) == TS([2, 3])
    assert [1] + TS([3]) == TS([1, 3])
    assert TS([2]).concatenate(TS(None)) == TS(None)
    assert TS(None).concatenate([1]) == TS(None)


def test_pickle():
    for dims in ([2, None], None, []):
        assert pickle.loads(pickle.dumps(TS(dims))) == TS(dims)


# -- laws -----------------------------------------------------------------------------

@given(dims_strategy, dims_strategy)
def test_compatibility_is_symmetric(a, b):
    assert TS(a).is_compatible_with(TS(b)) == TS(b).is_compatible_with(TS(a))


@given(dims_strategy, dims_strategy)
def test_merge_is_compatible_with_both(a, b):
    sa, sb = TS(a), TS(b)
    if sa.is_compatible_with(sb):
        merged = sa.merge_with(sb)
        assert merged.is_compatible_with(sa) and merged.is_compatible_with(sb)
        assert merged == sb.merge_with(sa)
    else:
        with pytest.raises(ValueError):
            sa.merge_with(sb)


@given(dims_strategy)
def test_str_round_trips_through_repr_information(a):
    s = TS(a)
    assert eval(repr(s), {"TensorShape": TS}) == s  # noqa: S307 - test of repr
    if a is not None:
        assert s.as_list() == list(a)
        assert s.rank == len(a)
