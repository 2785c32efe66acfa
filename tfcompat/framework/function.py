"""`tf.function` and `tf.TensorSpec`: eager execution of TF's graph-function API.

tfcompat has no graph mode: a `tf.function` runs its Python function
eagerly on every call, which is what TF does under
`tf.config.run_functions_eagerly(True)`. Semantics are therefore TF's eager
semantics (Python side effects run every call; nothing is traced).

What eager code can observe of TF's tracing is kept:

* `input_signature`: calls are bound to the Python signature and each
  argument is checked against its `TensorSpec` (a tensor of another dtype
  or an incompatible shape is TF's `TypeError` "Binding inputs to
  tf.function failed ..."); Python and numpy values are converted to the
  spec's dtype, and the function receives the converted tensors, as a
  traced function would;
* `experimental_get_tracing_count()` counts the distinct call signatures
  seen, the way TF would retrace: tensors by dtype and shape, other
  Python values by value; with `reduce_retracing=True` (or
  `experimental_relax_shapes`) a new shape of a known rank relaxes the
  signature once (to `None` dimensions) instead of tracing per shape;
* `get_concrete_function(*specs_or_tensors)` returns a `ConcreteFunction`
  that calls the Python function (no graph), checking its inputs' dtypes.

`jit_compile=True` compiles the function with `torch.compile` when it is
one pure tensor program of its arguments and the variables it reads
(`autodiff/jit.py`: traced on its second call per input signature, the
variables' reads are the graph's inputs, the compiled function is
differentiable under the caller's tapes); a function that writes
variables, records its own tape or draws random numbers runs eagerly,
with one `RuntimeWarning` saying why.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, Optional

import torch

from . import dtypes
from .tensor_shape import TensorShape, as_shape

__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec"]


class TensorSpec:
    """`tf.TensorSpec(shape, dtype=tf.float32, name=None)`: a tensor's type."""

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: Optional[str] = None) -> None:
        self.shape = as_shape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Any, name: Optional[str] = None) -> "TensorSpec":
        return cls(TensorShape(tuple(tensor.shape)), dtypes.as_dtype(tensor.dtype), name)

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        other_dtype = dtypes.as_dtype(spec_or_tensor.dtype)
        other_shape = spec_or_tensor.shape
        if isinstance(other_shape, torch.Size):
            other_shape = tuple(other_shape)
        return self.dtype == other_dtype and self.shape.is_compatible_with(other_shape)

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"


_SPEC_TYPES = (TensorSpec,)


def _signature_leaves(signature: Any) -> list:
    out = []
    for x in signature:
        if isinstance(x, (list, tuple)):
            out.extend(_signature_leaves(x))
        else:
            out.append(x)
    return out


def _check_input_signature(signature: Any) -> Optional[list]:
    if signature is None:
        return None
    if not isinstance(signature, (list, tuple)):
        raise TypeError(f"input_signature must be either a tuple or a list, got {type(signature)}.")
    bad = [x for x in _signature_leaves(signature) if not isinstance(x, _SPEC_TYPES)]
    if bad:
        raise TypeError("input_signature must be a possibly nested sequence of TensorSpec objects, "
                        f"got invalid args {bad} with types {[type(x) for x in bad]}.")
    return list(signature)


def _spec_of(t: torch.Tensor) -> TensorSpec:
    return TensorSpec(TensorShape(tuple(t.shape)), dtypes.as_dtype(t.dtype))


def _is_tensorish(x: Any) -> bool:
    return isinstance(x, torch.Tensor) or getattr(x, "_tfcompat_variable", False)


def _read(x: Any) -> torch.Tensor:
    from .tensor_conversion import convert_to_tensor
    return convert_to_tensor(x)


def _trace_key(x: Any) -> Any:
    """What TF's tracing cache keys a call argument by: tensors by (dtype, shape)."""
    if _is_tensorish(x):
        t = _read(x) if not isinstance(x, torch.Tensor) else x
        return ("T", dtypes.as_dtype(t.dtype).name, tuple(t.shape))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_trace_key(v) for v in x))
    if isinstance(x, dict):
        return ("dict", tuple(sorted((str(k), _trace_key(v)) for k, v in x.items())))
    if x is None or type(x) in (bool, int, float, complex, str, bytes):
        return ("V", type(x).__name__, x)
    # other objects (a method's `self`, a model) by identity: the cache must not keep them alive
    return ("id", id(x))


def _relaxes(known: Any, new: Any) -> Optional[Any]:
    """`known` generalised to also cover `new` (same structure, dtypes and ranks), or None."""
    if isinstance(known, tuple) and known and known[0] == "T":
        if not (isinstance(new, tuple) and new and new[0] == "T") or known[1] != new[1] or \
                len(known[2]) != len(new[2]):
            return None
        return ("T", known[1], tuple(a if a == b else None for a, b in zip(known[2], new[2])))
    if isinstance(known, tuple) and isinstance(new, tuple) and len(known) == len(new):
        parts = []
        for a, b in zip(known, new):
            if isinstance(a, tuple) and isinstance(b, tuple):
                r = _relaxes(a, b)
                if r is None:
                    return None
                parts.append(r)
            elif a == b:
                parts.append(a)
            else:
                return None
        return tuple(parts)
    return known if known == new else None


def _covers(known: Any, new: Any) -> bool:
    if isinstance(known, tuple) and known and known[0] == "T":
        return (isinstance(new, tuple) and len(new) == 3 and new[0] == "T" and
                known[1] == new[1] and len(known[2]) == len(new[2]) and
                all(a is None or a == b for a, b in zip(known[2], new[2])))
    if isinstance(known, tuple) and isinstance(new, tuple) and len(known) == len(new):
        return all(_covers(a, b) if isinstance(a, tuple) else a == b for a, b in zip(known, new))
    return known == new


class ConcreteFunction:
    """A `tf.function` specialised to one input signature; calling it runs the Python function.

    Its inputs are the tensor arguments given to `get_concrete_function` (specs or tensors),
    by position or name; the other arguments given there are bound (calling with them again
    is TF's `TypeError`). Tensor inputs must have the signature's dtypes (TF's
    `InvalidArgumentError`).
    """

    def __init__(self, function: "Function", specs: list, names: list,
                 bound: Optional[dict] = None) -> None:
        self._function = function
        self._specs = specs
        self._names = names
        self._bound = bound  # parameter name -> value, or None: arguments passed through as given

    @property
    def structured_input_signature(self) -> tuple:
        return (tuple(TensorSpec(s.shape, s.dtype, n) for s, n in zip(self._specs, self._names)),
                {})

    @property
    def inputs(self) -> list:
        return list(self._specs)

    def __repr__(self) -> str:
        inputs = ", ".join(f"{n}: {s!r}" for n, s in zip(self._names, self._specs))
        return f"ConcreteFunction {self._function._name}({inputs})"

    def _arguments(self, args: tuple, kwargs: dict) -> tuple:
        """`(tensors in input order, the call's keyword arguments)` for a bound signature."""
        if len(args) > len(self._names):
            raise TypeError(f"{self._function._name}({', '.join(self._names)}) takes "
                            f"{len(self._names)} positional arguments but {len(args)} were given")
        given = dict(zip(self._names, args))
        for name, value in kwargs.items():
            if name not in self._names or name in given:
                raise TypeError(f"{self._function._name}({', '.join(self._names)}) got an "
                                f"unexpected keyword argument '{name}'")
            given[name] = value
        missing = [n for n in self._names if n not in given]
        if missing:
            raise TypeError(f"{self._function._name}({', '.join(self._names)}) missing required "
                            f"arguments: {', '.join(missing)}")
        return [given[n] for n in self._names], {**self._bound, **given}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from .errors import InvalidArgumentError
        call_kwargs = None
        tensors = args
        if self._bound is not None:
            tensors, call_kwargs = self._arguments(args, kwargs)
        for i, (arg, spec) in enumerate(zip(tensors, self._specs)):
            if _is_tensorish(arg):
                dt = dtypes.as_dtype(_read(arg).dtype)
                if dt != spec.dtype:
                    raise InvalidArgumentError(
                        None, None, f"cannot compute __inference_{self._function._name} as input "
                                    f"#{i}(zero-based) was expected to be a {spec.dtype.name} "
                                    f"tensor but is a {dt.name} tensor")
        if call_kwargs is not None:
            return self._function._target(**call_kwargs)
        return self._function._target(*args, **kwargs)


# Builds the compiled form of a `jit_compile=True` function (`autodiff/jit.py` registers it).
_jit_compiler: Optional[Callable[..., Any]] = None


def set_jit_compiler(compiler: Callable[..., Any]) -> None:
    """Register `compiler(python_function, name)`, the callable a jit-compiled function runs."""
    global _jit_compiler
    _jit_compiler = compiler


class Function:
    """A `tf.function`: calls the wrapped Python function eagerly (see the module docstring)."""

    def __init__(self, python_function: Callable[..., Any], input_signature: Any = None,
                 jit_compile: Optional[bool] = None, name: Optional[str] = None,
                 reduce_retracing: bool = False) -> None:
        self._python_function = python_function
        self._input_signature = _check_input_signature(input_signature)
        self._name = name or getattr(python_function, "__name__", "function")
        self._reduce_retracing = bool(reduce_retracing)
        self._seen: set = set()      # exact call signatures seen
        self._general: list = []     # the (relaxed) signatures traced, under reduce_retracing
        self._count = 0
        self._lock = threading.Lock()
        # what a call runs: the Python function, or its compiled form (jit_compile=True)
        self._target = python_function
        if jit_compile and _jit_compiler is not None:
            self._target = _jit_compiler(python_function, self._name)
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable[..., Any]:
        return self._python_function

    @property
    def input_signature(self) -> Optional[tuple]:
        return None if self._input_signature is None else tuple(self._input_signature)

    @property
    def function_spec(self) -> Any:
        return self.input_signature

    def _signature_text(self, skip: int = 0) -> str:
        names = list(self._signature.parameters)[skip:] if self._signature else []
        parts = [f"{n}: {s!r}" for n, s in zip(names, self._input_signature)]
        return "(" + ", ".join(parts) + ")"

    def _bind_error(self, why: str, args: tuple, kwargs: dict, skip: int = 0) -> TypeError:
        return TypeError(f"Binding inputs to tf.function failed due to `{why}`. Received args: "
                         f"{args!r} and kwargs: {kwargs!r} for signature: "
                         f"{self._signature_text(skip)}.")

    def _convert(self, value: Any, spec: Any, args: tuple, kwargs: dict, skip: int) -> Any:
        if isinstance(spec, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(spec):
                raise self._bind_error("object of type 'Tuple' has no len()", args, kwargs, skip)
            return type(value)(self._convert(v, s, args, kwargs, skip) for v, s in zip(value, spec))
        from .tensor_conversion import convert_to_tensor
        if _is_tensorish(value):
            t = _read(value)
        else:
            try:
                t = convert_to_tensor(value, dtype=spec.dtype)
            except (TypeError, ValueError) as e:
                raise self._bind_error(str(e), args, kwargs, skip) from None
        if not spec.is_compatible_with(t):
            raise self._bind_error(f"Can not cast {_spec_of(t)!r} to {spec!r}", args, kwargs, skip)
        return t

    def _bind(self, args: tuple, kwargs: dict, skip: int = 0) -> tuple:
        """The call's arguments checked and converted against `input_signature` (whose first
        entry is the parameter after the `skip` bound ones: `self` of a method)."""
        if self._input_signature is None or self._signature is None:
            return args, kwargs
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise self._bind_error(str(e), args[skip:], kwargs, skip) from None
        names = list(self._signature.parameters)[skip:]
        if len(bound.arguments) - skip > len(self._input_signature):
            raise self._bind_error("too many positional arguments", args[skip:], kwargs, skip)
        for name, spec in zip(names, self._input_signature):
            if name in bound.arguments:
                bound.arguments[name] = self._convert(bound.arguments[name], spec, args[skip:],
                                                      kwargs, skip)
        return bound.args, bound.kwargs

    def _count_trace(self, args: tuple, kwargs: dict) -> None:
        """Count the trace TF would make for this call (O(1) for a signature seen before)."""
        key = ("sig",) if self._input_signature is not None else \
            (_trace_key(list(args)), _trace_key(dict(kwargs)))
        with self._lock:
            if key in self._seen:
                return
            self._seen.add(key)
            if self._reduce_retracing:
                if any(_covers(known, key) for known in self._general):
                    return
                for i, known in enumerate(self._general):
                    relaxed = _relaxes(known, key)
                    if relaxed is not None:  # one more trace, for the relaxed signature
                        self._general[i] = relaxed
                        self._count += 1
                        return
                self._general.append(key)
            self._count += 1

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(0, *args, **kwargs)

    def _call(self, skip: int, *args: Any, **kwargs: Any) -> Any:
        args, kwargs = self._bind(args, kwargs, skip)
        self._count_trace(args, kwargs)
        return self._target(*args, **kwargs)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        bound = functools.partial(self._call, 1, instance)
        functools.update_wrapper(bound, self._python_function)
        return bound

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """A `ConcreteFunction` for these specs or tensors (counted as one trace); other
        arguments (Python values) are bound into it, as TF's trace holds them constant."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        bound = None
        python_values = any(not (isinstance(a, TensorSpec) or _is_tensorish(a)) for a in args)
        if (kwargs or python_values) and self._signature is not None:
            arguments = dict(self._signature.bind_partial(*args, **kwargs).arguments)
            tensor_names = [n for n, v in arguments.items()
                            if isinstance(v, TensorSpec) or _is_tensorish(v)]
            bound = {n: v for n, v in arguments.items() if n not in tensor_names}
            names, given = tensor_names, [arguments[n] for n in tensor_names]
        else:
            given = list(args)
            names = list(self._signature.parameters)[:len(given)] if self._signature else \
                [f"arg{i}" for i in range(len(given))]
        specs = [a if isinstance(a, TensorSpec) else
                 (_spec_of(_read(a)) if _is_tensorish(a) else a) for a in given]
        key = (_trace_key([("T", s.dtype.name, tuple(s.shape.as_list()) if s.shape.rank is not None
                            else None) if isinstance(s, TensorSpec) else s for s in specs]),
               _trace_key(sorted(bound.items())) if bound else None)
        with self._lock:
            if key not in self._seen:
                self._seen.add(key)
                self._count += 1
        if bound is not None:
            return ConcreteFunction(self, specs, names, bound)
        return ConcreteFunction(self, [s for s in specs if isinstance(s, TensorSpec)], names)

    def experimental_get_tracing_count(self) -> int:
        """How many traces TF would have made for the calls so far (see the module docstring)."""
        with self._lock:
            return self._count


def function(func: Optional[Callable[..., Any]] = None, input_signature: Any = None,
             autograph: bool = True, jit_compile: Optional[bool] = None,
             reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None, experimental_attributes: Any = None,
             experimental_relax_shapes: Any = None, experimental_compile: Any = None,
             experimental_follow_type_hints: Any = None) -> Any:
    """`tf.function`: accepted with all of TF's arguments; runs eagerly (see module doc)."""
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile
    relax = bool(reduce_retracing or experimental_relax_shapes)
    _check_input_signature(input_signature)

    def decorate(fn: Callable[..., Any]) -> Function:
        return Function(fn, input_signature=input_signature, jit_compile=jit_compile,
                        reduce_retracing=relax)

    return decorate if func is None else decorate(func)
