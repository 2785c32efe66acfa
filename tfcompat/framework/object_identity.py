"""`Reference`: TF's hashable handle on an object, compared by identity (`x.ref()`).

TF tensors and variables are unhashable (their `==` is elementwise), so TF
keys dictionaries and sets by `x.ref()`: a `Reference` whose hash and
equality are the identity of the object it wraps, and whose `deref()` gives
the object back. The same class serves tensors (`torch.Tensor.ref()`, added
by `tfcompat.framework.tensor_methods`) and variables (`tf.Variable.ref()`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Reference"]


class Reference:
    """A hashable reference to `wrapped`, as TF's `object_identity.Reference`.

    * `hash(r)` is `id(wrapped)`; `r1 == r2` when both wrap the same object
      (`is`), whatever the object's own `==` does;
    * `r == None` is False; comparing with anything that is not a `Reference`
      is TF's `TypeError`, so a ref is never mistaken for the object itself;
    * `<` and `>` order by identity (as TF; `<=`/`>=` are not defined);
    * the reference keeps `wrapped` alive (the id cannot be reused while a
      ref to it exists).
    """

    __slots__ = ("_wrapped", "__weakref__")

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped

    def deref(self) -> Any:
        """The referenced object: `x.ref().deref() is x`."""
        return self._wrapped

    def _other(self, other: Any) -> "Reference":
        if not isinstance(other, Reference):
            raise TypeError("Cannot compare wrapped object with unwrapped object: compare "
                            "x.ref() with y.ref(), or x.ref().deref() with y.")
        return other

    def __eq__(self, other: Any) -> bool:
        if other is None:
            return False
        return self._wrapped is self._other(other)._wrapped

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __lt__(self, other: Any) -> bool:
        return id(self._wrapped) < id(self._other(other)._wrapped)

    def __gt__(self, other: Any) -> bool:
        return id(self._wrapped) > id(self._other(other)._wrapped)

    def __hash__(self) -> int:
        return id(self._wrapped)

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._wrapped!r}>"
