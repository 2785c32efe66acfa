"""The symbolic-dispatch wrapper keeps any parameter names of the op it wraps: an op whose
parameters are named like the wrapper's own closure (`fn`, `defaults`, `state`, `wrapper`,
`args`, `kwargs`) still gets its arguments (a wrapped `_in_float32(fn, t)` once called the
op's lambda with both)."""

from __future__ import annotations

from tfcompat.framework import symbolic_dispatch


def _op(fn, t, defaults=2, state=None, *, wrapper=3, recorded=4, names=5, kwonly=6,
        dispatch=7, contains=8, getframe=9, args=10, kwargs=11):
    return fn(t), defaults, state, wrapper, recorded, names, kwonly, dispatch, contains, \
        getframe, args, kwargs


def test_parameters_named_like_the_wrappers_closure_reach_the_op():
    wrapped = symbolic_dispatch.dispatch_support(_op)
    assert wrapped is not _op and wrapped.__wrapped__ is _op
    assert wrapped(lambda x: x + 1, 1) == _op(lambda x: x + 1, 1)
    assert wrapped(lambda x: -x, 4, 0, "s", wrapper=0, args=1, kwargs=2) == \
        _op(lambda x: -x, 4, 0, "s", wrapper=0, args=1, kwargs=2)


def test_errors_of_the_op_propagate_unchanged():
    def boom(fn):
        raise KeyError("inner")

    wrapped = symbolic_dispatch.dispatch_support(boom)
    try:
        wrapped(None)
    except KeyError as e:
        assert e.args == ("inner",)
    else:
        raise AssertionError("no error")
