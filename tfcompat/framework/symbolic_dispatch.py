"""TF API functions called on symbolic tensors (tf_keras's `KerasOpDispatcher`), free when eager.

In TF, every public op called with a Keras symbolic tensor anywhere in its arguments
becomes a `TFOpLambda` layer of the functional graph (`tf.reduce_sum(keras_input)`). Here
each public namespace function is wrapped once (`dispatch_support`); the wrapper runs the op
as is and only looks at its arguments when the op raised: if a registered symbolic type
(the KerasTensor, which keras registers: framework never imports keras) is among them, the
registered handler builds the layer. The eager path costs one Python call and a `try`.

A symbolic tensor met *inside* an op that was called on it (an operator or a torch function
on the KerasTensor, before any conversion) must not become a layer of its own: keras asks
`inside_op_call()` and raises `SymbolicTensorError`, which the outermost wrapper catches.
"""

from __future__ import annotations

import functools
import inspect
import sys
import threading
import types
from typing import Any, Callable, Dict, Iterable, List, Optional

__all__ = ["SymbolicTensorError", "register_symbolic_type", "register_handler",
           "is_symbolic", "contains_symbolic", "dispatch_support", "install", "api_name",
           "inside_op_call", "api_function"]


class SymbolicTensorError(ValueError):
    """A symbolic (Keras) tensor reached an op that needs a value (`convert_to_tensor`)."""


_symbolic_types: tuple = ()
_handler: Optional[Callable[[Callable, tuple, dict], Any]] = None
_state = threading.local()
_wrappers: Dict[int, Callable] = {}  # id(original) -> its wrapper (one per function)
_by_name: Dict[str, Callable] = {}   # every exported path ("math.reduce_sum") -> wrapper


def register_symbolic_type(cls: type) -> None:
    """Make `cls` a symbolic tensor type: conversion refuses it, wrapped ops dispatch on it."""
    global _symbolic_types
    if cls not in _symbolic_types:
        _symbolic_types = _symbolic_types + (cls,)


def register_handler(handler: Callable[[Callable, tuple, dict], Any]) -> None:
    """`handler(api_function, args, kwargs)` builds the symbolic result of an op call."""
    global _handler
    _handler = handler


def is_symbolic(value: Any) -> bool:
    return bool(_symbolic_types) and isinstance(value, _symbolic_types)


def contains_symbolic(structure: Any) -> bool:
    """Whether a symbolic tensor is anywhere in `structure` (lists, tuples, dicts)."""
    if isinstance(structure, _symbolic_types):
        return True
    if isinstance(structure, (list, tuple)):
        return any(contains_symbolic(x) for x in structure)
    if isinstance(structure, dict):
        return any(contains_symbolic(x) for x in structure.values())
    return False


def _dispatching() -> set:
    frames = getattr(_state, "frames", None)
    if frames is None:
        frames = _state.frames = set()
    return frames


_WRAPPER_CODES: set = set()  # id() of every wrapper's code object


def inside_op_call() -> bool:
    """Whether the caller runs inside the body of a wrapped op (not inside its dispatch)."""
    frame = sys._getframe(1)
    while frame is not None:
        if id(frame.f_code) in _WRAPPER_CODES:
            return id(frame) not in _dispatching()
        frame = frame.f_back
    return False


def _dispatch(wrapper: Callable, frame: Any, args: tuple, kwargs: dict) -> Any:
    outer = frame.f_back
    while outer is not None:  # an op called by another wrapped op: the outer one dispatches
        if id(outer.f_code) in _WRAPPER_CODES and id(outer) not in _dispatching():
            raise SymbolicTensorError(f"{api_name(wrapper)} called on a symbolic tensor")
        outer = outer.f_back
    frames = _dispatching()
    frames.add(id(frame))
    try:
        return _handler(wrapper, args, kwargs)
    finally:
        frames.discard(id(frame))


def _generic_wrapper(fn: Callable) -> Callable:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception:
            if _handler is None or not (contains_symbolic(args) or contains_symbolic(kwargs)):
                raise
        return _dispatch(wrapper, sys._getframe(), args, kwargs)
    return wrapper


def _recorded_call(names: tuple, kwonly: tuple, defaults: dict, values: tuple) -> tuple:
    """`(args, kwargs)` of a call as the caller made it, up to arguments equal (`is`) to
    their defaults: the first argument positionally, the others by name."""
    named = dict(zip(names + kwonly, values))
    first = names[0]
    kwargs = {k: v for k, v in named.items()
              if k != first and not (k in defaults and v is defaults[k])}
    return (named[first],), kwargs


# (the closure's names start with "__", which no wrapped parameter may: an op's parameter
# named like one of them, `fn` say, would shadow it)
# The wrapper's own names start with `__` (no op parameter does), so an op's parameters
# (`fn`, `state`, ...) never shadow them.
_TEMPLATE = """
def make(__fn, __defaults, __recorded, __names, __kwonly, __dispatch, __contains, __state,
         __getframe):
    def {name}({params}):
        try:
            return __fn({call})
        except Exception:
            if __state.handler_missing() or not __contains(({values},)):
                raise
        __args, __kwargs = __recorded(__names, __kwonly, __defaults, ({values},))
        return __dispatch(__wrapper[0], __getframe(), __args, __kwargs)
    __wrapper = [{name}]
    return {name}
"""


class _HandlerState:
    @staticmethod
    def handler_missing() -> bool:
        return _handler is None


def _make_wrapper(fn: Callable) -> Callable:
    """A wrapper with `fn`'s own parameters (no `*args` packing: the eager path pays one
    plain call); functions taking `*args`/`**kwargs` or positional-only ones get a generic
    wrapper."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None
    params = list(signature.parameters.values()) if signature is not None else []
    simple = signature is not None and params and all(
        p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params) and \
        params[0].kind == params[0].POSITIONAL_OR_KEYWORD and \
        all(p.name.isidentifier() and not p.name.startswith("__") for p in params)
    if not simple:
        wrapper = _generic_wrapper(fn)
    else:
        names = tuple(p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD)
        kwonly = tuple(p.name for p in params if p.kind == p.KEYWORD_ONLY)
        defaults = {p.name: p.default for p in params if p.default is not p.empty}
        parts, seen_kwonly = [], False
        for p in params:
            if p.kind == p.KEYWORD_ONLY and not seen_kwonly:
                parts.append("*")
                seen_kwonly = True
            parts.append(f"{p.name}=__defaults_of_op[{p.name!r}]" if p.name in defaults
                         else p.name)
        call = ", ".join(list(names) + [f"{k}={k}" for k in kwonly])
        name = fn.__name__ if fn.__name__.isidentifier() and not fn.__name__.startswith(
            "__") and fn.__name__ not in names + kwonly else "__op"
        source = _TEMPLATE.format(name=name, params=", ".join(parts), call=call,
                                  values=", ".join(names + kwonly))
        namespace: dict = {}
        exec(compile(source, f"<tfcompat dispatch wrapper of {fn.__qualname__}>", "exec"),
             {"__defaults_of_op": defaults}, namespace)
        wrapper = namespace["make"](fn, defaults, _recorded_call, names, kwonly, _dispatch,
                                    contains_symbolic, _HandlerState, sys._getframe)
    _WRAPPER_CODES.add(id(wrapper.__code__))
    return wrapper


def dispatch_support(fn: Callable) -> Callable:
    """`fn` wrapped for symbolic dispatch (idempotent; one wrapper per function)."""
    if getattr(fn, "_tf_dispatch_wrapper", False):
        return fn
    wrapper = _wrappers.get(id(fn))
    if wrapper is None:
        wrapper = functools.wraps(fn)(_make_wrapper(fn))
        wrapper._tf_api_names = []  # type: ignore[attr-defined]
        wrapper._tf_dispatch_wrapper = True  # type: ignore[attr-defined]
        _wrappers[id(fn)] = wrapper
    return wrapper


def _is_op(value: Any, module: types.ModuleType) -> bool:
    if not isinstance(value, types.FunctionType):
        return False
    home = getattr(value, "__module__", "") or ""
    return home.startswith("tfcompat.ops") or home == module.__name__ or (
        home.startswith("tfcompat.") and getattr(value, "_tf_dispatch_wrapper", False))


def install(module: types.ModuleType, prefix: str, skip: Iterable[str] = ()) -> None:
    """Wrap the public op functions of namespace `module` (`tf.<prefix>`) in place.

    Ops are the functions defined in `tfcompat.ops` or in the namespace module itself;
    classes, context managers from elsewhere and the names in `skip` stay as they are.
    """
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    skipped = set(skip)
    for name in list(names):
        if name in skipped:
            continue
        value = getattr(module, name, None)
        if not _is_op(value, module):
            continue
        wrapper = dispatch_support(value)
        path = f"{prefix}.{name}" if prefix else name
        if path not in wrapper._tf_api_names:
            wrapper._tf_api_names.append(path)
        _by_name.setdefault(path, wrapper)
        if value is not wrapper:
            setattr(module, name, wrapper)


def install_in_place(module: types.ModuleType) -> None:
    """Wrap, in their defining module, the functions `module` defines (no API path).

    Done for the op modules before the rest of the package imports them, so every holder
    of an op (`tf.nn.silu`, `tfcompat.ops.silu`, keras's activation table) holds the one
    wrapper; an op calling another through its module pays one wrapper call.
    """
    for name, value in list(vars(module).items()):
        if name.startswith("__") or not isinstance(value, types.FunctionType):
            continue
        if value.__module__ != module.__name__:
            continue
        setattr(module, name, dispatch_support(value))


def install_package_ops(package: types.ModuleType) -> None:
    """`install_in_place` over every module of the ops package, then its re-exports."""
    import pkgutil
    import importlib
    for info in pkgutil.iter_modules(package.__path__):
        install_in_place(importlib.import_module(f"{package.__name__}.{info.name}"))
    for name, value in list(vars(package).items()):
        if isinstance(value, types.FunctionType) and not name.startswith("__") and (
                value.__module__ or "").startswith(package.__name__):
            setattr(package, name, dispatch_support(value))


# TF's canonical API name where it differs from the path a function is exported under
# (`tf.reduce_sum` is recorded as `math.reduce_sum`), and the v2 functions TF dispatches
# through their v1 twin (`tf.shape` records `compat.v1.shape`): what tf_keras 2.21 writes
# in a TFOpLambda's `function` and the layer's name.
_CANONICAL: Dict[str, str] = {
    "Assert": "debugging.Assert", "abs": "math.abs", "acos": "math.acos",
    "acosh": "math.acosh", "add": "math.add", "add_n": "math.add_n", "argmax": "math.argmax",
    "argmin": "math.argmin", "asin": "math.asin", "asinh": "math.asinh",
    "assert_equal": "debugging.assert_equal", "assert_greater": "debugging.assert_greater",
    "assert_less": "debugging.assert_less", "assert_rank": "debugging.assert_rank",
    "atan": "math.atan", "atan2": "math.atan2", "atanh": "math.atanh",
    "boolean_mask": "compat.v1.boolean_mask", "complex": "dtypes.complex", "cos": "math.cos",
    "cosh": "math.cosh", "cumsum": "math.cumsum", "divide": "math.truediv",
    "equal": "math.equal", "exp": "math.exp", "floor": "math.floor",
    "gather": "compat.v1.gather", "greater": "math.greater",
    "greater_equal": "math.greater_equal", "less": "math.less",
    "less_equal": "math.less_equal", "linalg.einsum": "einsum", "linalg.eye": "eye",
    "linalg.l2_normalize": "math.l2_normalize", "linalg.norm": "compat.v1.norm",
    "linalg.tensordot": "tensordot", "logical_and": "math.logical_and",
    "logical_not": "math.logical_not", "logical_or": "math.logical_or",
    "math.divide": "math.truediv", "math.floordiv": "compat.v1.floor_div",
    "math.log_softmax": "nn.log_softmax", "math.mod": "math.floormod",
    "math.softmax": "nn.softmax", "math.softsign": "nn.softsign", "matmul": "linalg.matmul",
    "maximum": "math.maximum", "minimum": "math.minimum", "multiply": "math.multiply",
    "negative": "math.negative", "nn.approx_max_k": "math.approx_max_k",
    "nn.approx_min_k": "math.approx_min_k", "nn.in_top_k": "math.in_top_k",
    "nn.l2_normalize": "math.l2_normalize", "nn.sigmoid": "math.sigmoid",
    "nn.sigmoid_cross_entropy_with_logits": "compat.v1.nn.sigmoid_cross_entropy_with_logits",
    "nn.softmax_cross_entropy_with_logits": "compat.v1.nn.softmax_cross_entropy_with_logits_v2",
    "nn.softplus": "math.softplus", "nn.swish": "nn.silu", "nn.tanh": "math.tanh",
    "nn.top_k": "math.top_k", "norm": "compat.v1.norm", "not_equal": "math.not_equal",
    "pad": "compat.v1.pad", "pow": "math.pow", "reduce_all": "math.reduce_all",
    "reduce_any": "math.reduce_any", "reduce_logsumexp": "math.reduce_logsumexp",
    "reduce_max": "math.reduce_max", "reduce_mean": "math.reduce_mean",
    "reduce_min": "math.reduce_min", "reduce_prod": "math.reduce_prod",
    "reduce_sum": "math.reduce_sum", "round": "math.round",
    "saturate_cast": "dtypes.saturate_cast", "scalar_mul": "math.scalar_mul",
    "shape": "compat.v1.shape", "sigmoid": "math.sigmoid", "sign": "math.sign",
    "sin": "math.sin", "sinh": "math.sinh", "size": "compat.v1.size", "sqrt": "math.sqrt",
    "square": "math.square", "squeeze": "compat.v1.squeeze", "subtract": "math.subtract",
    "tan": "math.tan", "tanh": "math.tanh", "transpose": "compat.v1.transpose",
    "truediv": "math.truediv",
}


def api_name(fn: Callable) -> Optional[str]:
    """TF's name for a wrapped function (`math.reduce_sum`), as tf_keras records it."""
    paths: List[str] = getattr(fn, "_tf_api_names", None) or []
    if not paths:
        return None
    for path in paths:
        if path in _CANONICAL:
            return _CANONICAL[path]
    path = min(paths, key=lambda p: (p.count(".") == 0, len(p)))  # the namespaced one
    return path


def api_function(name: str) -> Optional[Callable]:
    """The function for a recorded TF API name (`math.reduce_sum`, `compat.v1.shape`)."""
    if name in _by_name:
        return _by_name[name]
    for path, canonical in _CANONICAL.items():
        if canonical == name and path in _by_name:
            return _by_name[path]
    if name.startswith("compat.v1."):
        rest = name[len("compat.v1."):]
        rest = {"floor_div": "math.floordiv"}.get(rest, rest)
        return _by_name.get(rest) or _by_name.get("math." + rest)
    return None
