"""`tf.errors`: TF's exception classes, codes and attributes, and where tfcompat raises them."""

from __future__ import annotations

import pickle

import pytest

import tfcompat as tf
from tfcompat.framework import errors

# class name, code constant name, TF's numeric code
CLASSES = [
    ("CancelledError", "CANCELLED", 1), ("UnknownError", "UNKNOWN", 2),
    ("InvalidArgumentError", "INVALID_ARGUMENT", 3),
    ("DeadlineExceededError", "DEADLINE_EXCEEDED", 4), ("NotFoundError", "NOT_FOUND", 5),
    ("AlreadyExistsError", "ALREADY_EXISTS", 6), ("PermissionDeniedError", "PERMISSION_DENIED", 7),
    ("ResourceExhaustedError", "RESOURCE_EXHAUSTED", 8),
    ("FailedPreconditionError", "FAILED_PRECONDITION", 9), ("AbortedError", "ABORTED", 10),
    ("OutOfRangeError", "OUT_OF_RANGE", 11), ("UnimplementedError", "UNIMPLEMENTED", 12),
    ("InternalError", "INTERNAL", 13), ("UnavailableError", "UNAVAILABLE", 14),
    ("DataLossError", "DATA_LOSS", 15), ("UnauthenticatedError", "UNAUTHENTICATED", 16),
]


def test_ok_code():
    assert errors.OK == 0


@pytest.mark.parametrize("name,code_name,code", CLASSES, ids=[c[0] for c in CLASSES])
def test_classes_codes_and_attributes(name, code_name, code):
    cls = getattr(errors, name)
    assert getattr(errors, code_name) == code
    assert issubclass(cls, errors.OpError) and issubclass(cls, Exception)
    assert cls.__name__ == name
    e = cls(None, None, "boom")
    assert e.error_code == code
    assert e.message == "boom" and str(e) == "boom"
    assert e.op is None and e.node_def is None


@pytest.mark.parametrize("name,code_name,code", CLASSES, ids=[c[0] for c in CLASSES])
def test_pickle_keeps_class_message_and_code(name, code_name, code):
    e = pickle.loads(pickle.dumps(getattr(errors, name)(None, None, "boom")))
    assert type(e) is getattr(errors, name)
    assert (e.message, e.error_code) == ("boom", code)


def test_op_error_with_explicit_code():
    e = errors.OpError(None, None, "m", errors.INTERNAL)
    assert e.error_code == errors.INTERNAL and str(e) == "m"


def test_catching_by_base_class():
    with pytest.raises(errors.OpError) as info:
        raise errors.InvalidArgumentError(None, None, "bad index")
    assert info.value.error_code == errors.INVALID_ARGUMENT


def test_public_namespace():
    assert tf.errors.InvalidArgumentError is errors.InvalidArgumentError
    assert tf.errors.OpError is errors.OpError
    assert tf.errors.OutOfRangeError is errors.OutOfRangeError
    assert tf.errors.INVALID_ARGUMENT == 3


def test_tfcompat_raises_tf_classes():
    """Runtime failures come out as `tf.errors` classes, catchable as OpError, as in TF."""
    v = tf.Variable([1.0, 2.0, 3.0])
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 3\)"):
        v.scatter_update(tf.IndexedSlices(tf.constant([5.0, 6.0]), tf.constant([0, 7])))
    with pytest.raises(errors.InvalidArgumentError, match="shapes must be equal"):
        v.assign_add([1.0, 1.0])
    with pytest.raises(errors.OpError, match="slice index 5 of dimension 0 out of bounds"):
        v[5]
    counter = tf.Variable(3)
    with pytest.raises(errors.OutOfRangeError, match="Reached limit of 3"):
        counter.count_up_to(3)
