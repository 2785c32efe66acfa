"""The v1 functions whose TF 1 signature differs from TF 2's, mapped onto the TF 2 ops.

In TF 2.21, `tf.compat.v1.reduce_sum` and friends are the TF 2 ops plus deprecated
argument names (`keep_dims`, `reduction_indices`, `dimension`, `squeeze_dims`, `dim`);
each function here accepts both spellings (TF's `ValueError` when both are given) and calls
the TF 2 op. `tf1.where` keeps TF 1's rule (no broadcasting, a vector condition selects rows).
Names are resolved at call time so the v1 namespace never imports ops it does not use.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ...train import saver as _saver

_UNSET = object()


def _tf() -> Any:
    import tfcompat
    return tfcompat


def _pick(new: Any, old: Any, new_name: str, old_name: str) -> Any:
    if old is _UNSET or old is None:
        return None if new is _UNSET else new
    if new is not _UNSET and new is not None:
        raise ValueError(f"Cannot specify both '{new_name}' and '{old_name}'.")
    return old


def _reduction(op: str) -> Callable:
    def reduce(input_tensor: Any, axis: Any = _UNSET, keepdims: Any = _UNSET, name: Optional[str] = None,
               reduction_indices: Any = _UNSET, keep_dims: Any = _UNSET) -> Any:
        axis = _pick(axis, reduction_indices, "axis", "reduction_indices")
        keep = _pick(keepdims, keep_dims, "keepdims", "keep_dims")
        return getattr(_tf(), op)(input_tensor, axis=axis, keepdims=bool(keep))
    reduce.__name__ = reduce.__qualname__ = op
    reduce.__doc__ = (f"TF 1's `tf.{op}`: TF 2's, also accepting `reduction_indices` and "
                      "`keep_dims`.")
    return reduce


_REDUCTIONS = ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
               "reduce_all", "reduce_any", "reduce_logsumexp")


def _arg_reduction(op: str) -> Callable:
    def arg(input: Any, axis: Any = None, name: Optional[str] = None, dimension: Any = None,  # noqa: A002
            output_type: Any = None) -> Any:
        tf = _tf()
        axis = _pick(axis, dimension, "axis", "dimension")
        return getattr(tf, op)(input, axis=0 if axis is None else axis,
                               output_type=tf.int64 if output_type is None else output_type)
    arg.__name__ = arg.__qualname__ = op
    arg.__doc__ = f"TF 1's `tf.{op}`: TF 2's, also accepting `dimension`."
    return arg


def expand_dims(input: Any, axis: Any = None, name: Optional[str] = None, dim: Any = None) -> Any:  # noqa: A002
    """TF 1's `tf.expand_dims`: TF 2's, also accepting `dim`."""
    axis = _pick(axis, dim, "axis", "dim")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return _tf().expand_dims(input, axis)


def squeeze(input: Any, axis: Any = None, name: Optional[str] = None, squeeze_dims: Any = None) -> Any:  # noqa: A002
    """TF 1's `tf.squeeze`: TF 2's, also accepting `squeeze_dims`."""
    return _tf().squeeze(input, _pick(axis, squeeze_dims, "axis", "squeeze_dims"))


def ones_like(tensor: Any, dtype: Any = None, name: Optional[str] = None, optimize: bool = True) -> Any:
    """TF 1's `tf.ones_like` (`tensor`, `optimize`)."""
    return _tf().ones_like(tensor, dtype=dtype)


def zeros_like(tensor: Any, dtype: Any = None, name: Optional[str] = None, optimize: bool = True) -> Any:
    """TF 1's `tf.zeros_like` (`tensor`, `optimize`)."""
    return _tf().zeros_like(tensor, dtype=dtype)


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Any:
    """TF 1's `tf.transpose` (the argument order differs from TF 2's)."""
    return _tf().transpose(a, perm=perm, conjugate=conjugate)


def gather(params: Any, indices: Any, validate_indices: Any = None, name: Optional[str] = None,
           axis: Any = None, batch_dims: int = 0) -> Any:
    """TF 1's `tf.gather` (`validate_indices` is ignored, as in TF)."""
    return _tf().gather(params, indices, axis=axis, batch_dims=batch_dims)


def convert_to_tensor(value: Any, dtype: Any = None, name: Optional[str] = None,
                      preferred_dtype: Any = None, dtype_hint: Any = None) -> Any:
    """TF 1's `tf.convert_to_tensor` (`preferred_dtype` is TF 2's `dtype_hint`)."""
    hint = _pick(dtype_hint if dtype_hint is not None else _UNSET, preferred_dtype,
                 "dtype_hint", "preferred_dtype")
    return _tf().convert_to_tensor(value, dtype=dtype, dtype_hint=hint)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Any:
    """TF 1's `tf.constant`: with `verify_shape=True` the value's shape must equal `shape`."""
    tf = _tf()
    if verify_shape and shape is not None:
        got = tuple(tf.convert_to_tensor(value, dtype=dtype).shape)
        if got != tuple(shape):
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {got}.")
    return tf.constant(value, dtype=dtype, shape=shape)


def where(condition: Any, x: Any = None, y: Any = None, name: Optional[str] = None) -> Any:
    """TF 1's `tf.where`: without broadcasting. `x` and `y` must have the same shape, and
    `condition` either that shape too or a vector selecting whole rows (first dimension)."""
    tf = _tf()
    if x is None and y is None:
        return tf.where(condition)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    condition = tf.convert_to_tensor(condition, dtype=tf.bool)
    if tuple(x.shape) != tuple(y.shape):
        raise tf.errors.InvalidArgumentError(
            None, None, f"'then' and 'else' must have the same size.  but received: "
                        f"{list(x.shape)} vs. {list(y.shape)}")
    if tuple(condition.shape) != tuple(x.shape):
        if condition.dim() != 1 or x.dim() < 1 or condition.shape[0] != x.shape[0]:
            raise tf.errors.InvalidArgumentError(
                None, None, "'then' and cond must have the same size if cond is a vector; or "
                            f"the same shape: {list(condition.shape)} vs. {list(x.shape)}")
        condition = tf.reshape(condition, [-1] + [1] * (x.dim() - 1))
    return tf.where(condition, x, y)


class name_scope:  # noqa: N801 - TF's public spelling
    """TF 1's `tf.name_scope(name, default_name=None, values=None)`: `name`, or
    `default_name` when `name` is None (TF 2's scope underneath)."""

    def __init__(self, name: Optional[str], default_name: Optional[str] = None,
                 values: Any = None) -> None:
        if name is None and default_name is None:
            raise ValueError("At least one of name (None) and default_name (None) must be provided.")
        self._scope = _tf().name_scope(name if name is not None else default_name)

    def __enter__(self) -> str:
        return self._scope.__enter__()

    def __exit__(self, *exc: Any) -> Any:
        return self._scope.__exit__(*exc)


def Variable(initial_value: Any = None, trainable: Optional[bool] = None, collections: Any = None,  # noqa: N802
             validate_shape: bool = True, caching_device: Any = None, name: Optional[str] = None,
             variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
             import_scope: Any = None, constraint: Any = None, use_resource: Any = None,
             synchronization: Any = None, aggregation: Any = None, shape: Any = None) -> Any:
    """TF 1's `tf.Variable`: a resource variable, as TF 2 builds it, added to `collections`
    (default `GLOBAL_VARIABLES`, and `TRAINABLE_VARIABLES` when trainable) as TF 1 graph mode
    adds it, so `tf1.global_variables()` and `tf1.train.Saver()` see it as they see
    `get_variable`'s (the porting kit's graph emulation; TF 2 eager keeps no collections).
    `expected_shape`, `use_resource` and `import_scope` have no effect; `variable_def` (graph
    protos) is not supported."""
    tf = _tf()
    if variable_def is not None:
        raise NotImplementedError("tf.compat.v1.Variable(variable_def=...) restores graph protos, "
                                  "which eager tfcompat has none of: create the variable from its value.")
    kwargs = dict(trainable=trainable, validate_shape=validate_shape, caching_device=caching_device,
                  name=name, dtype=dtype, constraint=constraint, shape=shape)
    if synchronization is not None:
        kwargs["synchronization"] = synchronization
    if aggregation is not None:
        kwargs["aggregation"] = aggregation
    variable = tf.Variable(initial_value, **kwargs)
    from .collections import GraphKeys, add_to_collections
    keys = list(collections) if collections is not None else [GraphKeys.GLOBAL_VARIABLES]
    if variable.trainable and GraphKeys.TRAINABLE_VARIABLES not in keys:
        keys.append(GraphKeys.TRAINABLE_VARIABLES)
    add_to_collections(keys, variable)
    return variable


def _no_op_switch(name: str, doc: str) -> Callable:
    def switch(*args: Any, **kwargs: Any) -> None:
        return None
    switch.__name__ = switch.__qualname__ = name
    switch.__doc__ = doc
    return switch


def _true(name: str) -> Callable:
    def always() -> bool:
        return True
    always.__name__ = always.__qualname__ = name
    always.__doc__ = f"TF 1's `tf.{name}`: always True (tfcompat is eager)."
    return always


def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, strict: bool = False,
         name: Optional[str] = None, fn1: Any = None, fn2: Any = None) -> Any:
    """TF 1's `tf.cond` (`fn1`/`fn2` are the deprecated names of `true_fn`/`false_fn`)."""
    true_fn = _pick(true_fn if true_fn is not None else _UNSET, fn1, "true_fn", "fn1")
    false_fn = _pick(false_fn if false_fn is not None else _UNSET, fn2, "false_fn", "fn2")
    return _tf().cond(pred, true_fn, false_fn)


def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None,
               parallel_iterations: int = 10, back_prop: bool = True, swap_memory: bool = False,
               name: Optional[str] = None, maximum_iterations: Any = None,
               return_same_structure: bool = False) -> Any:
    """TF 1's `tf.while_loop`: a single loop variable comes back unwrapped unless
    `return_same_structure=True`."""
    out = _tf().while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                           maximum_iterations=maximum_iterations)
    if not return_same_structure and isinstance(out, (list, tuple)) and len(out) == 1:
        return out[0]
    return out


def set_random_seed(seed: Any) -> None:
    """TF 1's `tf.set_random_seed`: TF 2's `tf.random.set_seed`."""
    _tf().random.set_seed(seed)


def multinomial(logits: Any, num_samples: Any, seed: Any = None, name: Optional[str] = None,
                output_dtype: Any = None) -> Any:
    """TF 1's `tf.multinomial`: TF 2's `tf.random.categorical` (`output_dtype` is its `dtype`)."""
    return _tf().random.categorical(logits, num_samples, dtype=output_dtype, seed=seed)


def _cast_to(dtype_name: str, op: str) -> Callable:
    def cast(x: Any, name: Optional[str] = None) -> Any:
        tf = _tf()
        return tf.cast(x, getattr(tf, dtype_name))
    cast.__name__ = cast.__qualname__ = op
    cast.__doc__ = f"TF 1's `tf.{op}`: `tf.cast(x, tf.{dtype_name})`."
    return cast


def div(x: Any, y: Any, name: Optional[str] = None) -> Any:
    """TF 1's `tf.div`: Python 2 division, floor division for integers, true division for
    floating point (TF 2's `tf.math.floordiv` / `tf.math.truediv`'s cases of `x / y`)."""
    tf = _tf()
    x = tf.convert_to_tensor(x)
    y = tf.convert_to_tensor(y, dtype_hint=tf.as_dtype(x.dtype))
    if tf.as_dtype(x.dtype).is_integer:
        return tf.math.floordiv(x, y)
    return tf.divide(x, y)


def _assign(method: str) -> Callable:
    def assign(ref: Any, value: Any, *args: Any, name: Optional[str] = None, **kwargs: Any) -> Any:
        return getattr(ref, method)(value)
    assign.__name__ = assign.__qualname__ = method
    assign.__doc__ = f"TF 1's `tf.{method}(ref, value)`: `ref.{method}(value)` on a variable."
    return assign


def shape(input: Any, name: Optional[str] = None, out_type: Any = None) -> Any:  # noqa: A002
    """TF 1's `tf.shape` (`name` before `out_type`)."""
    tf = _tf()
    return tf.shape(input, out_type=tf.int32 if out_type is None else out_type)


def size(input: Any, name: Optional[str] = None, out_type: Any = None) -> Any:  # noqa: A002
    """TF 1's `tf.size` (`name` before `out_type`)."""
    tf = _tf()
    return tf.size(input, out_type=tf.int32 if out_type is None else out_type)


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: Optional[str] = None,
        constant_values: Any = 0) -> Any:
    """TF 1's `tf.pad` (`name` before `constant_values`)."""
    return _tf().pad(tensor, paddings, mode=mode, constant_values=constant_values)


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Any:
    """TF 1's `tf.boolean_mask` (`name` before `axis`)."""
    return _tf().boolean_mask(tensor, mask, axis=axis)


def gather_nd(params: Any, indices: Any, name: Optional[str] = None, batch_dims: int = 0) -> Any:
    """TF 1's `tf.gather_nd` (`name` before `batch_dims`)."""
    return _tf().gather_nd(params, indices, batch_dims=batch_dims)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None,  # noqa: A002
         name: Optional[str] = None, keep_dims: Any = None) -> Any:
    """TF 1's `tf.norm` (`keep_dims`)."""
    keep = _pick(keepdims if keepdims is not None else _UNSET, keep_dims, "keepdims", "keep_dims")
    return _tf().norm(tensor, ord=ord, axis=axis, keepdims=bool(keep))


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: Any = None, batch_axis: Any = None,  # noqa: A002
                     name: Optional[str] = None, seq_dim: Any = None, batch_dim: Any = None) -> Any:
    """TF 1's `tf.reverse_sequence` (`seq_dim`/`batch_dim` for the axes)."""
    seq_axis = _pick(seq_axis if seq_axis is not None else _UNSET, seq_dim, "seq_axis", "seq_dim")
    batch_axis = _pick(batch_axis if batch_axis is not None else _UNSET, batch_dim,
                       "batch_axis", "batch_dim")
    return _tf().reverse_sequence(input, seq_lengths, seq_axis=seq_axis,
                                  batch_axis=0 if batch_axis is None else batch_axis)


def _assert(op: str, takes_y: bool = True) -> Callable:
    def check(x: Any, y: Any, data: Any = None, summarize: Any = None, message: Any = None,
              name: Optional[str] = None) -> None:
        fn = getattr(_tf().debugging, op)
        if op == "assert_rank":
            return fn(x, y, message=message)
        return fn(x, y, message=message, summarize=summarize)
    check.__name__ = check.__qualname__ = op
    check.__doc__ = (f"TF 1's `tf.{op}(x, y, data=None, summarize=None, message=None)`: "
                     f"`tf.debugging.{op}` (eager: raises or returns None).")
    return check


def device(device_name_or_function: Any) -> Any:
    """TF 1's `tf.device`: a device string as TF 2's; device functions are graph-mode."""
    if callable(device_name_or_function):
        raise NotImplementedError(
            "tf.compat.v1.device(function) picks devices per graph op, which eager tfcompat "
            "has none of: pass a device string (tf.device('/GPU:0')).")
    return _tf().device(device_name_or_function)


#: v1 name -> its implementation (names whose TF 1 behaviour tfcompat provides).
OVERRIDES: dict = {
    **{n: _reduction(n) for n in _REDUCTIONS},
    "argmax": _arg_reduction("argmax"), "argmin": _arg_reduction("argmin"),
    "expand_dims": expand_dims, "squeeze": squeeze, "ones_like": ones_like,
    "zeros_like": zeros_like, "transpose": transpose, "gather": gather,
    "convert_to_tensor": convert_to_tensor, "constant": constant, "where": where,
    "name_scope": name_scope, "Variable": Variable, "cond": cond, "while_loop": while_loop,
    "shape": shape, "size": size, "pad": pad, "boolean_mask": boolean_mask, "gather_nd": gather_nd,
    "norm": norm, "reverse_sequence": reverse_sequence, "device": device,
    **{op: _assert(op) for op in ("assert_equal", "assert_greater", "assert_less", "assert_rank")},
    "set_random_seed": set_random_seed, "multinomial": multinomial, "div": div,
    **{f"to_{n}": _cast_to(d, f"to_{n}") for n, d in (
        ("float", "float32"), ("double", "float64"), ("int32", "int32"), ("int64", "int64"),
        ("bfloat16", "bfloat16"), ("complex64", "complex64"), ("complex128", "complex128"))},
    **{m: _assign(m) for m in ("assign", "assign_add", "assign_sub")},
    "executing_eagerly": _true("executing_eagerly"),
    "executing_eagerly_outside_functions": _true("executing_eagerly_outside_functions"),
    **{n: _no_op_switch(n, f"TF 1's `tf.{n}`: a no-op (tfcompat always has TF 2 behaviour).")
       for n in ("enable_eager_execution", "enable_v2_behavior", "enable_resource_variables",
                 "enable_v2_tensorshape", "enable_control_flow_v2", "enable_tensor_equality")},
}


def train_overrides() -> dict:
    """`tf.compat.v1.train` names with TF 1 behaviour: the name-based `Saver`."""
    return {"Saver": Saver}


class Saver(_saver.Saver):
    """TF 1's `tf.compat.v1.train.Saver`: name-based checkpoints (`tfcompat.train.saver`);
    without `var_list` it saves the emulated graph's variables, `GLOBAL_VARIABLES` and
    `SAVEABLE_OBJECTS` (`get_variable`'s, `tf1.Variable`'s, the v1 optimizers' slots), as
    TF 1 graph mode does, where TF 2 eager requires a `var_list`."""

    def __init__(self, var_list: Any = None, *args: Any, allow_empty: bool = False,
                 **kwargs: Any) -> None:
        if var_list is None:
            from .collections import GraphKeys, get_collection
            var_list = (get_collection(GraphKeys.GLOBAL_VARIABLES)
                        + get_collection(GraphKeys.SAVEABLE_OBJECTS))
            if not var_list and not allow_empty:
                raise ValueError("No variables to save")
        super().__init__(var_list, *args, allow_empty=allow_empty, **kwargs)

