"""`tf.errors`: TensorFlow's runtime error classes, with TF's names and codes.

Each class carries TF's canonical error code so code that switches on
`e.error_code` ports unchanged. `OpError(node_def, op, message)` keeps TF's
constructor signature; the subclasses take `(node_def, op, message)` too.
"""

from __future__ import annotations

from typing import Any, Optional

from .dtypes import tf_type_name

__all__ = [
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
    "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
    "PermissionDeniedError", "ResourceExhaustedError", "FailedPreconditionError",
    "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError", "UnauthenticatedError",
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
    "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
]

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of TensorFlow's runtime errors (`tf.errors.OpError`)."""

    _default_code = UNKNOWN

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any) -> None:
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = args[0] if args else self._default_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    @property
    def error_code(self) -> int:
        return self._error_code

    def __reduce__(self):
        return (type(self), (self._node_def, self._op, self._message))

    def __str__(self) -> str:
        return self._message


def _subclass(name: str, code: int, doc: str) -> type:
    cls = type(name, (OpError,), {"__doc__": doc, "_default_code": code,
                                  "__module__": __name__})
    return cls


CancelledError = _subclass("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _subclass("UnknownError", UNKNOWN, "An unknown error occurred.")
InvalidArgumentError = _subclass(
    "InvalidArgumentError", INVALID_ARGUMENT,
    "An operation received an invalid argument (bad shape, dtype or index).")
DeadlineExceededError = _subclass("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _subclass("NotFoundError", NOT_FOUND, "A requested entity (file, key) was not found.")
AlreadyExistsError = _subclass("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _subclass("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _subclass("ResourceExhaustedError", RESOURCE_EXHAUSTED, "A resource (memory) is exhausted.")
FailedPreconditionError = _subclass(
    "FailedPreconditionError", FAILED_PRECONDITION,
    "The system is not in a state to run the operation (e.g. an uninitialized value).")
AbortedError = _subclass("AbortedError", ABORTED, "An operation was aborted.")
OutOfRangeError = _subclass("OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid range.")
UnimplementedError = _subclass("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _subclass("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _subclass("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _subclass("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _subclass("UnauthenticatedError", UNAUTHENTICATED, "The request lacks valid credentials.")


# -- builders for the errors ops raise (not part of `tf.errors`) -------------------

def invalid_argument(message: str, op: Optional[str] = None) -> InvalidArgumentError:
    """An `InvalidArgumentError` as an eager kernel raises it: `message [Op:op]`."""
    return InvalidArgumentError(None, None, message if op is None else f"{message} [Op:{op}]")


def dtype_mismatch(op: str, index: int, expected: Any, got: Any) -> InvalidArgumentError:
    """TF's error for an input whose dtype differs from the op's `T` (no promotion)."""
    return InvalidArgumentError(
        None, None,
        f"cannot compute {op} as input #{index}(zero-based) was expected to be a "
        f"{tf_type_name(expected)} tensor but is a {tf_type_name(got)} tensor [Op:{op}]. "
        "TF does not promote dtypes: cast one input with tf.cast.")
