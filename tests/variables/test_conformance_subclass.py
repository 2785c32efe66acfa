"""The conformance suite run against a user's own `tf.Variable` subclass.

The TF 2 variables RFC makes `tf.Variable` an abstract base that users may
subclass. `DelegatingVariable` is what a user would write: it owns a
`ResourceVariable` and forwards every primitive of the `tf.Variable`
interface to it, inheriting operators, slicing, numpy/torch interop and the
Python protocol from the base class. The same laws that `ResourceVariable`
satisfies must hold for it, which is the point of a reusable suite.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import tfcompat as tf
from tfcompat.testing import conformance


class DelegatingVariable(tf.Variable):
    """A user-defined variable: a ResourceVariable inside, the tf.Variable API outside."""

    def __init__(self, initial_value: Any = None, **kwargs: Any) -> None:
        self._inner = tf.Variable(initial_value, **kwargs)

    @classmethod
    def wrapping(cls, inner: tf.Variable) -> "DelegatingVariable":
        """Wrap an existing variable (what a creator that wraps variables does)."""
        self = cls.__new__(cls)
        self._inner = inner
        return self

    def _watch_targets(self):
        # The documented hook for variables that read through other variables:
        # gradients with respect to the wrapper sum the wrapped variable's reads.
        return (self._inner,)

    # reads
    def value(self):
        return self._inner.value()

    def read_value(self):
        return self._inner.read_value()

    def sparse_read(self, indices, name=None):
        return self._inner.sparse_read(indices, name=name)

    def gather_nd(self, indices, name=None):
        return self._inner.gather_nd(indices, name=name)

    # writes
    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._inner.assign(value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._inner.assign_add(delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._inner.assign_sub(delta, use_locking, name, read_value)

    def _strided_slice_assign(self, key, value, read_value=True):
        # `v[key].assign(x)` and `v[key] = x` reach the subclass through this
        # private hook; the public interface has no name for it.
        return self._inner._strided_slice_assign(key, value, read_value=read_value)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_update(sparse_delta, use_locking, name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_add(sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_sub(sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_mul(sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_div(sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_min(sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        return self._inner.scatter_max(sparse_delta, use_locking, name)

    def scatter_nd_update(self, indices, updates, name=None):
        return self._inner.scatter_nd_update(indices, updates, name)

    def scatter_nd_add(self, indices, updates, name=None):
        return self._inner.scatter_nd_add(indices, updates, name)

    def scatter_nd_sub(self, indices, updates, name=None):
        return self._inner.scatter_nd_sub(indices, updates, name)

    # properties
    name = property(lambda self: self._inner.name)
    dtype = property(lambda self: self._inner.dtype)
    shape = property(lambda self: self._inner.shape)
    device = property(lambda self: self._inner.device)
    trainable = property(lambda self: self._inner.trainable)
    constraint = property(lambda self: self._inner.constraint)
    synchronization = property(lambda self: self._inner.synchronization)
    aggregation = property(lambda self: self._inner.aggregation)
    handle = property(lambda self: self._inner.handle)


class TestDelegatingVariableConformance(conformance.VariableConformance):
    factory = staticmethod(lambda value, **kw: DelegatingVariable(value, **kw))


def test_suite_builds_the_same_class():
    built = conformance.suite(lambda value, **kw: DelegatingVariable(value, **kw),
                              name="TestBuilt", dtypes=(tf.float32,), item_assignment=False)
    assert issubclass(built, conformance.VariableConformance)
    assert built.__name__ == "TestBuilt" and built.__module__ == __name__
    assert built.dtypes == (tf.float32,) and built.item_assignment is False
    assert isinstance(built().make(np.float32(1.0)), DelegatingVariable)


def test_subclass_is_built_without_the_creator_stack():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        v = DelegatingVariable(np.float32(1.0), name="inner")
    # Instantiating a subclass bypasses the stack (as in TF); only its inner
    # tf.Variable(...) call goes through it.
    assert isinstance(v, DelegatingVariable) and seen == ["inner"]


def test_a_creator_may_wrap_every_variable():
    def creator(next_creator, **kwargs):
        return DelegatingVariable.wrapping(next_creator(**kwargs))

    with tf.variable_creator_scope(creator):
        v = tf.Variable([1.0, 2.0], name="w")
    assert isinstance(v, DelegatingVariable) and v.name == "w:0"
    v.assign_add([1.0, 1.0])
    v[0].assign(5.0)
    np.testing.assert_array_equal(v.numpy(), np.array([5.0, 3.0], np.float32))
    np.testing.assert_array_equal((v * 2).numpy(), np.array([10.0, 6.0], np.float32))


def test_suite_rejects_unknown_options():
    with pytest.raises(TypeError):
        conformance.suite(lambda value, **kw: tf.Variable(value), colour="red")


def test_a_class_without_factory_fails_clearly():
    class NoFactory(conformance.VariableConformance):
        pass

    with pytest.raises(TypeError, match="factory"):
        NoFactory().make(np.float32(1.0))


def test_laws_can_be_disabled_overridden_and_inherited():
    def own_repr_law(self):
        pass

    class TestNarrow(conformance.VariableConformance):
        factory = staticmethod(lambda value, **kw: DelegatingVariable(value, **kw))
        test_pickle_round_trip = None
        test_repr_matches_tf = own_repr_law

    class TestNarrower(TestNarrow):
        pass

    assert TestNarrow.test_pickle_round_trip is None
    assert TestNarrow.__dict__["test_repr_matches_tf"] is own_repr_law
    assert TestNarrower.test_pickle_round_trip is None
    assert TestNarrower.test_repr_matches_tf is own_repr_law
    # every class runs its own copy of each law (hypothesis needs one executor per test)
    generated = TestNarrow.__dict__["test_hash_and_ref"]
    assert generated is not TestNarrower.__dict__["test_hash_and_ref"]
    assert generated is not TestDelegatingVariableConformance.__dict__["test_hash_and_ref"]
