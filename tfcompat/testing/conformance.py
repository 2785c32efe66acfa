"""A reusable conformance suite: TF 2's variable laws, for any variable type.

The suite is a pytest test class parametrized by a *factory*
`factory(initial_value, **kwargs) -> variable`. Subclass it, name the
subclass `Test...`, and pytest collects every law for your variable type::

    from tfcompat.testing import conformance

    class TestMyVariable(conformance.VariableConformance):
        factory = staticmethod(lambda value, **kw: MyVariable(value, **kw))

or, equivalently, let `suite` build the class::

    TestMyVariable = conformance.suite(lambda value, **kw: MyVariable(value, **kw))

The factory receives a numpy array (the initial value, whose dtype is the
variable's) and, for some laws, the keyword `trainable`. Options are class
attributes:

* `dtypes`: the `tf.DType`s to draw (default float16/32/64, int32/64);
* `max_rank`, `max_side`: the shapes to draw;
* `item_assignment`: whether `v[key] = value` works (a tfcompat extension;
  TF variables raise TypeError);
* `gradients`: whether `tf.GradientTape` laws apply;
* `pickling`: whether the pickle round trip applies;
* `scatter`: whether the `scatter_*` family applies (TF's sync-on-read
  variables refuse it);
* `returns`: `"variable"` (mutators return a variable over the same
  storage) or `"values"` (snapshots of the new value, as TF's distributed
  variables return).

To drop one law for a type that cannot honour it, set the test to `None` in
the subclass (`test_pickle_round_trip = None`); pytest then skips it. To
replace a law, define a method of the same name. Every subclass runs its own
copy of each law (hypothesis wants one executor per test function), so
subclasses of subclasses work too.

Every law is a hypothesis property (derandomized and bounded by the active
hypothesis profile); TF's semantics come from `tfcompat.testing.reference`,
whose numpy references were checked against TensorFlow 2.21. The laws:

* identity: `isinstance(v, tf.Variable)`, `dtype`, `shape`, `numpy()`;
* every mutator (assign, assign_add/sub, scatter_*, scatter_nd_*, slice
  assign, item assign) equals its numpy reference, and returns a variable
  over the same storage (None with `read_value=False`);
* reads are snapshots, in both directions: whatever `read_value()`,
  `value()`, `tf.convert_to_tensor`, `tf.identity`/`reshape`/`transpose`/
  `expand_dims`/`squeeze`/`cast`/`stop_gradient`/`unstack`/`split`, an
  operator, slicing, `sparse_read`, `gather_nd`, iteration, `numpy()`,
  `np.asarray` or a torch function returned never changes under later
  mutations of the variable, and an in-place write to it (`x[...] = c`,
  `x *= 2`, on the tensor, a view of it, or the numpy array) changes that
  read only, never the variable or another read; with or without a tape;
* failed mutations (wrong shape, dtype, Python float into an int variable,
  out-of-range indices, non-broadcastable slice values, scatter_div by 0)
  raise TF's error class and change nothing. (For out-of-range scatter
  indices TF itself may have applied the indices before the bad one;
  tfcompat promises all-or-nothing, and so does this suite);
* slicing equals numpy basic indexing (negative steps, `...`, `newaxis`);
* operators follow TF's dtype rules (no promotion; int / int is float64;
  Python numbers take the variable's dtype), in both directions;
* `tf.GradientTape` gradients equal central finite differences (float64),
  `sparse_read` gradients are `IndexedSlices`, non-trainable variables are
  unwatched unless watched, and reads outside a tape build no autograd graph;
* numpy and torch interop (`np.asarray(v)` is a copy, `torch.matmul(v, x)`,
  torch's in-place ops refused), Python conversions, `len()`, iteration,
  `hash()`/`ref()`, `copy.copy`/`deepcopy`, pickle, `repr` exactly as TF.
"""

from __future__ import annotations

import copy
import pickle
import types
from typing import Any, Callable, Optional

import numpy as np
import pytest
import torch
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf

from ..framework import dtypes as dtypes_lib
from ..framework import errors
from . import reference as ref
from . import strategies as tfst
from ..framework.variable_protocol import is_variable

__all__ = ["VariableConformance", "suite", "to_numpy", "FAMILIES", "READ_GROUPS",
           "OPERATOR_GROUPS", "GRADIENT_READS"]

#: mutation families the mutator law runs (each a separate test)
FAMILIES = {
    "dense": ("assign", "assign_add", "assign_sub"),
    "scatter": tuple(f"scatter_{k}" for k in ref.SCATTER_KINDS),
    "scatter_nd": tuple(f"scatter_nd_{k}" for k in ref.SCATTER_ND_KINDS),
    "slice": ("slice_assign",),  # plus `v[key] = x` where `item_assignment`
    "mixed": ref.MUTATION_KINDS,
}

#: read kinds, grouped: each group is one parametrization of the snapshot law
READ_GROUPS = {
    "tensor": ("read_value", "value", "convert_to_tensor", "getitem_ellipsis", "operator",
               "identity", "cast", "stop_gradient"),
    "views": ("reshape", "transpose", "expand_dims", "squeeze", "torch_reshape", "torch_flatten"),
    "slicing": ("getitem", "iter", "unstack", "split", "torch_narrow"),
    "gather": ("sparse_read", "gather_nd"),
    "numpy": ("numpy", "asarray"),
}

#: reads whose results are views made by one multi-output op (`unbind`, `split`): under a
#: tape torch refuses in-place writes to them, with an error at the write
MULTI_VIEW_READS = ("iter", "unstack", "split")

#: operators, grouped: each group is one parametrization of the operator law
OPERATOR_GROUPS = {
    "arithmetic": ("add", "sub", "mul"),
    "division": ("truediv", "floordiv", "mod"),
    "power": ("pow",),
    "comparison": ("lt", "le", "gt", "ge", "eq", "ne"),
    "bitwise": ("and", "or", "xor"),
}

#: how the gradient law reads the variable
GRADIENT_READS = ("variable", "read_value", "value", "convert_to_tensor", "getitem",
                  "torch_function", "two_reads")

_BINARY = {
    "add": (lambda a, b: a + b), "sub": (lambda a, b: a - b), "mul": (lambda a, b: a * b),
    "truediv": (lambda a, b: a / b), "floordiv": (lambda a, b: a // b),
    "mod": (lambda a, b: a % b), "pow": (lambda a, b: a ** b),
    "lt": (lambda a, b: a < b), "le": (lambda a, b: a <= b), "gt": (lambda a, b: a > b),
    "ge": (lambda a, b: a >= b), "eq": (lambda a, b: a == b), "ne": (lambda a, b: a != b),
    "and": (lambda a, b: a & b), "or": (lambda a, b: a | b), "xor": (lambda a, b: a ^ b),
}
_COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
_BITWISE = ("and", "or", "xor")


def to_numpy(x: Any) -> Any:
    """A numpy copy of a read's result (tensors, variables, arrays, lists of them)."""
    if isinstance(x, list):
        return [to_numpy(i) for i in x]
    if isinstance(x, torch.Tensor):
        t = x.detach().cpu()
        if t.dtype is torch.bfloat16:
            t = t.float()
        return np.array(t.resolve_conj().resolve_neg().numpy(), copy=True)
    if is_variable(x):
        return np.array(x.numpy(), copy=True)
    return np.array(x, copy=True)


def _same(got: Any, expected: Any, dtype: Any = None, exact: bool = True, what: str = "") -> None:
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), what
        for g, e in zip(got, expected):
            _same(g, e, dtype, exact, what)
        return
    got = to_numpy(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, f"{what}: shape {got.shape} != {expected.shape}"
    assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != {expected.dtype}"
    if exact:
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        np.testing.assert_allclose(got, expected, equal_nan=True, err_msg=what,
                                   **tfst.tolerance(expected.dtype))


def _tf_numpy_text(array: np.ndarray) -> str:
    if array.ndim == 0:
        return repr(array.item())
    text = repr(array)
    return "\n" + text if "\n" in text else text


def _law(*marks: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method as a law: a hypothesis property drawing from `data`, with pytest `marks`.

    Each subclass gets its own `@given`-wrapped copy of every law (see
    `VariableConformance.__init_subclass__`), so hypothesis never runs one
    test function under two classes.
    """
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn._conformance_law = marks  # type: ignore[attr-defined]
        return fn
    return mark


def _law_for(cls: type, raw: Callable[..., Any]) -> Callable[..., Any]:
    fn = types.FunctionType(raw.__code__, raw.__globals__, raw.__name__, raw.__defaults__,
                            raw.__closure__)
    fn.__kwdefaults__ = raw.__kwdefaults__
    fn.__doc__ = raw.__doc__
    fn.__module__ = raw.__module__
    fn.__qualname__ = f"{cls.__qualname__}.{raw.__name__}"
    test = given(data=st.data())(fn)
    for mark in raw._conformance_law:  # type: ignore[attr-defined]
        test = mark(test)
    test._conformance_generated = True  # type: ignore[attr-defined]
    return test


class VariableConformance:
    """TF 2's variable laws as a pytest class; subclass it with a `factory`.

    See the module docstring for the options and the list of laws.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, raw in VariableConformance.__dict__.items():
            if not hasattr(raw, "_conformance_law"):
                continue
            current = next(k.__dict__[name] for k in cls.__mro__ if name in k.__dict__)
            if current is raw or getattr(current, "_conformance_generated", False):
                setattr(cls, name, _law_for(cls, raw))
            # else: the subclass overrode the law, or disabled it with None

    #: `factory(initial_value, **kwargs) -> variable`; wrap functions in staticmethod
    factory: Optional[Callable[..., Any]] = None
    dtypes: tuple = tfst.DEFAULT_DTYPES
    max_rank: int = 3
    max_side: int = 4
    item_assignment: bool = True
    gradients: bool = True
    pickling: bool = True
    #: whether the scatter family applies (TF's sync-on-read variables refuse scatter_*)
    scatter: bool = True
    #: what a mutator returns: "variable" (one over the same storage, TF's `_UnreadVariable`)
    #: or "values" (snapshots of the new value: a tensor, or distributed values of tensors, as
    #: TF's distributed variables return), which later mutations leave alone
    returns: str = "variable"

    # -- helpers --------------------------------------------------------------
    def make(self, initial_value: Any, **kwargs: Any) -> Any:
        """A variable from `factory` (the factory's binding kind does not matter)."""
        factory = None
        for klass in type(self).__mro__:
            if "factory" in klass.__dict__:
                factory = klass.__dict__["factory"]
                break
        if isinstance(factory, staticmethod):
            factory = factory.__func__
        if factory is None:
            raise TypeError(f"{type(self).__name__} must set `factory = staticmethod(...)`: a "
                            "callable factory(initial_value, **kwargs) -> variable.")
        return factory(initial_value, **kwargs)

    def _kinds(self, kinds: tuple = ref.MUTATION_KINDS) -> tuple:
        """The mutation kinds that apply to this variable type, of `kinds`."""
        if self.scatter:
            return tuple(kinds)
        return tuple(k for k in kinds if not k.startswith("scatter"))

    def _dtype(self, data: Any, *, floating: Optional[bool] = None) -> dtypes_lib.DType:
        choices = [d for d in self.dtypes
                   if floating is None or (d.is_floating if floating else d.is_integer)]
        if not choices:
            pytest.skip("no dtype of this kind in `dtypes`")
        return data.draw(st.sampled_from(choices), label="dtype")

    def _shape(self, data: Any, *, min_rank: int = 0, min_side: int = 0,
               max_rank: Optional[int] = None) -> tuple:
        hi = self.max_rank if max_rank is None else max_rank
        return data.draw(tfst.shapes(min_rank=min_rank, max_rank=max(hi, min_rank),
                                     min_side=min_side, max_side=self.max_side), label="shape")

    def _value(self, data: Any, dtype: Any, shape: tuple, **kwargs: Any) -> np.ndarray:
        return data.draw(tfst.arrays(dtype, shape, **kwargs), label="initial_value")

    # -- identity -------------------------------------------------------------
    @_law()
    def test_is_a_tf_variable(self, data: Any) -> None:
        dtype = self._dtype(data)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value)
        assert isinstance(v, tf.Variable)
        assert v.dtype == dtype
        assert tuple(v.shape.as_list()) == value.shape
        assert v.get_shape() == v.shape
        assert isinstance(v.name, str)
        _same(v.numpy(), value, what="numpy()")

    # -- mutators ---------------------------------------------------------------
    @_law(pytest.mark.parametrize("family", list(FAMILIES)))
    def test_mutators_match_numpy_reference(self, family: str, data: Any) -> None:
        dtype = self._dtype(data)
        if family in ("scatter", "scatter_nd"):
            shape = self._shape(data, min_rank=1, min_side=1)
        else:
            shape = self._shape(data)
        value = self._value(data, dtype, shape)
        kinds = self._kinds(FAMILIES[family])
        if not kinds:
            pytest.skip(f"the {family} family does not apply to this variable type")
        ops = data.draw(tfst.mutation_sequences(value, min_size=1, max_size=5, kinds=kinds,
                                                item_assign=(family in ("slice", "mixed")
                                                             and self.item_assignment)),
                        label="mutations")
        v = self.make(value)
        state = value
        returned = []
        for i, op in enumerate(ops):
            result = op.apply(v)
            state = op.reference(state)
            _same(v.numpy(), state, exact=False, what=f"after step {i}: {op!r}")
            if not op.returns_variable:
                assert result is None, f"{op!r} (read_value=False) returned {result!r}"
            elif self.returns == "values":
                parts = getattr(result, "values", None)
                parts = tuple(parts) if isinstance(parts, tuple) else (result,)
                for part in parts:
                    assert isinstance(part, torch.Tensor), f"{op!r} returned {result!r}"
                    _same(part, state, exact=False, what=f"value returned by {op!r}")
                returned.append((parts, state))
            else:
                assert isinstance(result, tf.Variable), f"{op!r} returned {type(result)}"
                _same(result.numpy(), state, exact=False, what=f"value returned by {op!r}")
                returned.append(result)
        for r in returned:
            if self.returns == "values":  # snapshots: later mutations leave them alone
                for part in r[0]:
                    _same(part, r[1], exact=False, what="a returned value after later mutations")
            else:  # TF returns a variable over the same storage
                _same(r.numpy(), v.numpy(), what="a returned variable after later mutations")

    # -- snapshots ----------------------------------------------------------------
    @_law(pytest.mark.parametrize("reads", list(READ_GROUPS)))
    def test_reads_are_snapshots(self, reads: str, data: Any) -> None:
        dtype = self._dtype(data)
        kinds = READ_GROUPS[reads]
        min_rank = 1 if reads in ("slicing", "gather") else 0
        shape = self._shape(data, min_rank=min_rank, min_side=1 if min_rank else 0)
        value = self._value(data, dtype, shape)
        ops = data.draw(tfst.mutation_sequences(value, min_size=1, kinds=self._kinds(),
                                                item_assign=self.item_assignment),
                        label="mutations")
        under_tape = self.gradients and data.draw(st.booleans(), label="under_tape")
        v = self.make(value)
        tape = tf.GradientTape(persistent=True) if under_tape else None
        kept: list = []  # [read, step, result, expected, what was written to it]
        state = value

        def write_a_read(label: str) -> None:
            # Both directions: writing what a read handed out changes that read (as any
            # tensor) and never the variable or another read.
            candidates = [k for k in kept if k[3] is not None]
            if not candidates or not data.draw(st.booleans(), label=f"write a read {label}"):
                return
            entry = data.draw(st.sampled_from(candidates), label="read to write")
            write = data.draw(tfst.read_mutations(), label="write")
            if not write.applies_to(entry[2]):
                return
            first = entry[2][0] if isinstance(entry[2], list) else entry[2]
            if entry[0].kind in MULTI_VIEW_READS and getattr(first, "requires_grad", False):
                # Torch refuses in-place writes to outputs of multi-view ops under autograd
                # (docs/differences.md): the error comes at the write, and nothing changes.
                with pytest.raises(RuntimeError, match="view"):
                    write.apply(entry[2])
                entry[4].append(f"refused {write!r}")
            else:
                entry[2] = write.apply(entry[2])
                entry[3] = write.expected(entry[3])
                entry[4].append(write)
            _same(v, state, what=f"the variable after {write!r} on {entry[0]!r}")

        if tape is not None:
            tape.__enter__()
        try:
            for step in range(len(ops) + 1):
                for _ in range(data.draw(st.integers(0, 2), label=f"reads before step {step}")):
                    read = data.draw(tfst.reads(shape, kinds=kinds), label="read")
                    result = read.perform(v)
                    expected = read.expected(state)
                    _same(result, expected, what=f"{read!r} before step {step}")
                    kept.append([read, step, result, expected, []])
                    write_a_read(f"after {read!r}")
                if step < len(ops):
                    ops[step].apply(v)
                    state = ops[step].reference(state)
                    write_a_read(f"after step {step}")
        finally:
            if tape is not None:
                tape.__exit__(None, None, None)
        _same(v, state, what="the variable after all steps")
        for read, step, result, expected, writes in kept:
            _same(result, expected, what=f"{read!r} taken before step {step}, then {writes}, "
                  "after all steps")

    @_law()
    def test_numpy_results_do_not_alias_the_variable(self, data: Any) -> None:
        dtype = self._dtype(data)
        value = self._value(data, dtype, self._shape(data, min_rank=1, min_side=1))
        v = self.make(value)
        for arr in (v.numpy(), np.asarray(v), np.array(v)):
            arr[...] = 0
            _same(v.numpy(), value, what="variable after writing into its numpy() result")

    # -- failed mutations ---------------------------------------------------------
    @_law(pytest.mark.parametrize("reason", list(tfst.INVALID_REASONS)))
    def test_failed_mutations_change_nothing(self, reason: str, data: Any) -> None:
        if reason.startswith("scatter") and not self.scatter:
            pytest.skip("scatter_* does not apply to this variable type")
        dtype = self._dtype(data, floating=False if reason == "python_float_int" else None)
        dt = tfst.numpy_dtype(dtype)
        shape = data.draw(tfst.shapes(min_rank=0 if reason in ("assign_shape", "update_shape",
                                                               "dtype_tensor", "python_float_int")
                                      else 1, max_rank=self.max_rank, max_side=self.max_side)
                          .filter(lambda s: tfst.reason_applies(reason, dt, s)), label="shape")
        value = self._value(data, dtype, shape)
        bad = data.draw(tfst.invalid_mutations(dtype, shape, reasons=[reason], scatter=self.scatter),
                        label="invalid")
        v = self.make(value)
        before = v.read_value()
        with pytest.raises(bad.exception()):
            bad.apply(v)
        _same(v.numpy(), value, what=f"variable after failed {bad!r}")
        _same(before, value, what="a read taken before the failed mutation")
        # and the variable still works
        v.assign(np.zeros(shape, dt))
        _same(v.numpy(), np.zeros(shape, dt), what="assign after a failed mutation")

    # -- slicing ----------------------------------------------------------------
    @_law()
    def test_slicing_matches_numpy(self, data: Any) -> None:
        dtype = self._dtype(data)
        shape = self._shape(data)
        value = self._value(data, dtype, shape)
        key = data.draw(tfst.slice_keys(shape), label="key")
        v = self.make(value)
        result = v[key]
        assert isinstance(result, torch.Tensor)
        _same(result, ref.slice_reference(value, key), what=f"v[{ref.key_repr(key)}]")

    def test_invalid_slice_keys_raise(self) -> None:
        v = self.make(np.arange(12, dtype=np.float32).reshape(3, 4))
        for key in [(Ellipsis, Ellipsis), (0, 1, 2), (slice(None, None, 0),), (3,), (0, -5)]:
            with pytest.raises(errors.InvalidArgumentError):
                v[key]
        for key in [1.0, "a", (0, 1.5)]:
            with pytest.raises(TypeError):
                v[key]
        with pytest.raises(errors.InvalidArgumentError):
            self.make(np.float32(1.0))[0]

    # -- operators ----------------------------------------------------------------
    @_law(pytest.mark.parametrize("ops", list(OPERATOR_GROUPS)))
    def test_binary_operators_follow_tf_dtype_rules(self, ops: str, data: Any) -> None:
        op = data.draw(st.sampled_from(OPERATOR_GROUPS[ops]), label="op")
        integer_only = op in _BITWISE
        dtype = self._dtype(data, floating=False if integer_only else None)
        dt = tfst.numpy_dtype(dtype)
        shape = self._shape(data)
        reflected = data.draw(st.booleans(), label="reflected")
        other_kind = data.draw(st.sampled_from(["python", "python_int", "numpy", "tensor",
                                                "variable"]), label="other")
        other_shape = (() if other_kind.startswith("python")
                       else data.draw(tfst.broadcastable_shapes(shape), label="other_shape"))

        def operand(role: str, s: tuple, label: str) -> np.ndarray:
            # the exponent of ** is small and non-negative (exact, and valid for integers);
            # a divisor is non-zero
            if op == "pow" and role == "right":
                return data.draw(hnp.arrays(dt, s, elements=st.sampled_from([0, 1, 2, 3])),
                                 label=label)
            nonzero = role == "right" and op in ("truediv", "floordiv", "mod")
            if label == "other" and other_kind == "python_int":
                return data.draw(hnp.arrays(dt, s, elements=st.integers(-8, 8).filter(
                    lambda i: i != 0 or not nonzero)), label=label)
            return data.draw(tfst.arrays(dt, s, magnitude=4 if op == "pow" else 8,
                                         nonzero=nonzero), label=label)

        value = operand("left" if not reflected else "right", shape, "value")
        other_np = operand("right" if not reflected else "left", other_shape, "other")
        if other_kind == "python_int":
            other: Any = int(other_np)
        elif other_kind == "python":
            other = other_np.item()  # an int for integer variables, a float otherwise
        elif other_kind == "numpy":
            other = other_np
        elif other_kind == "tensor":
            other = tf.constant(other_np)
        else:
            other = self.make(other_np)
        v = self.make(value)
        fn = _BINARY[op]
        result = fn(other, v) if reflected else fn(v, other)
        assert isinstance(result, torch.Tensor) and not is_variable(result)
        x, y = (other_np, value) if reflected else (value, other_np)
        expected = _numpy_binary(op, x, y, dt)
        text = f"other {op} v" if reflected else f"v {op} other"
        _same(result, expected, exact=False, what=f"{text} with other={other!r}")

    @_law()
    def test_matmul(self, data: Any) -> None:
        dtype = self._dtype(data)
        n, m, p = (data.draw(st.integers(1, 3)) for _ in range(3))
        a = self._value(data, dtype, (n, m), magnitude=4)
        b = self._value(data, dtype, (m, p), magnitude=4)
        c = self._value(data, dtype, (p, n), magnitude=4)
        v = self.make(a)
        dt = tfst.numpy_dtype(dtype)
        _same(v @ b, (a @ b).astype(dt), exact=False, what="v @ ndarray")
        _same(v @ tf.constant(b), (a @ b).astype(dt), exact=False, what="v @ tensor")
        _same(tf.constant(c) @ v, (c @ a).astype(dt), exact=False, what="tensor @ v")
        _same(c @ v, (c @ a).astype(dt), exact=False, what="ndarray @ v")
        _same(torch.matmul(v, torch.from_numpy(b)), (a @ b).astype(dt), exact=False,
              what="torch.matmul(v, x)")

    @_law()
    def test_unary_operators(self, data: Any) -> None:
        dtype = self._dtype(data)
        dt = tfst.numpy_dtype(dtype)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value)
        _same(-v, (-value).astype(dt), what="-v")
        _same(abs(v), np.abs(value).astype(dt), what="abs(v)")
        if dt.kind in "iu":
            _same(~v, (~value).astype(dt), what="~v")

    @_law()
    def test_mixed_dtypes_are_not_promoted(self, data: Any) -> None:
        dtype = self._dtype(data)
        dt = tfst.numpy_dtype(dtype)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value)
        other = tf.constant(np.zeros(value.shape, ref.other_dtype(dt)))
        for fn in (_BINARY["add"], _BINARY["sub"], _BINARY["mul"]):
            with pytest.raises((errors.InvalidArgumentError, TypeError)):
                fn(v, other)
        if dt.kind in "iu":
            with pytest.raises(errors.InvalidArgumentError):
                v + 2.5  # TF: AddV2 gets an int and a float tensor
            with pytest.raises(TypeError):
                v * 2.5  # TF: cannot convert 2.5 to an int tensor
            with pytest.raises(TypeError):
                2.5 + v

    # -- gradients ----------------------------------------------------------------
    def _require_gradients(self) -> None:
        if not self.gradients:
            pytest.skip("gradients are not supported by this variable type")
        if dtypes_lib.float64 not in self.dtypes:
            pytest.skip("the gradient laws need float64 in `dtypes`")

    @_law()
    def test_gradients_match_finite_differences(self, data: Any) -> None:
        self._require_gradients()
        read = data.draw(st.sampled_from(GRADIENT_READS), label="read")
        shape = data.draw(tfst.shapes(max_rank=2, max_side=3), label="shape")
        value = self._value(data, dtypes_lib.float64, shape, magnitude=2)
        coeffs = data.draw(st.tuples(*[st.sampled_from([-1.5, -0.5, 0.0, 0.5, 2.0])] * 3),
                           label="coefficients")
        v = self.make(value)
        with tf.GradientTape() as tape:
            y = _reads_for_gradient(v, read, coeffs)
        grad = tape.gradient(y, v)
        assert grad is not None, f"gradient via {read} is None"
        grad = to_numpy(tf.convert_to_tensor(grad))
        assert grad.shape == value.shape and grad.dtype == np.float64
        scale = 2.0 if read == "two_reads" else 1.0
        expected = scale * _finite_difference(lambda t: _smooth(t, coeffs), value)
        np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-6,
                                   err_msg=f"gradient via {read}")

    @_law()
    def test_sparse_read_gradient_is_indexed_slices(self, data: Any) -> None:
        self._require_gradients()
        shape = self._shape(data, min_rank=1, min_side=1, max_rank=2)
        value = self._value(data, dtypes_lib.float64, shape)
        idx = data.draw(tfst.index_arrays(shape[0], min_size=1), label="indices")
        weights = data.draw(tfst.arrays(np.float64, idx.shape + shape[1:]), label="weights")
        v = self.make(value)
        with tf.GradientTape() as tape:
            y = torch.sum(v.sparse_read(tf.constant(idx)) * torch.from_numpy(weights))
        grad = tape.gradient(y, v)
        assert isinstance(grad, tf.IndexedSlices), type(grad)
        _same(to_numpy(grad.indices).astype(np.int64), idx.reshape(-1).astype(np.int64),
              what="IndexedSlices.indices (duplicates kept)")
        _same(grad.values, weights.reshape((-1,) + shape[1:]), what="IndexedSlices.values")
        assert [int(d) for d in to_numpy(grad.dense_shape)] == list(shape)
        dense = np.zeros(shape)
        np.add.at(dense, idx.reshape(-1), weights.reshape((-1,) + shape[1:]))
        _same(tf.convert_to_tensor(grad), dense, exact=False, what="densified gradient")

    @_law()
    def test_trainable_flag_decides_watching(self, data: Any) -> None:
        self._require_gradients()
        value = self._value(data, dtypes_lib.float64, self._shape(data))
        trainable = self.make(value)
        frozen = self.make(value, trainable=False)
        assert trainable.trainable and not frozen.trainable
        with tf.GradientTape(persistent=True) as tape:
            y = torch.sum(trainable * frozen)
        assert tape.gradient(y, frozen) is None
        _same(tape.gradient(y, trainable), value, exact=False, what="d(sum(a*b))/da")
        with tf.GradientTape() as tape:
            tape.watch(frozen)
            y = torch.sum(frozen * frozen)
        _same(tape.gradient(y, frozen), 2 * value, exact=False, what="watched non-trainable")
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            y = torch.sum(trainable * trainable)
        assert tape.gradient(y, trainable) is None

    @_law()
    def test_unconnected_and_integer_gradients(self, data: Any) -> None:
        self._require_gradients()
        shape = self._shape(data)
        value = self._value(data, dtypes_lib.float64, shape)
        v = self.make(value)
        w = self.make(value)
        with tf.GradientTape(persistent=True) as tape:
            y = torch.sum(w * 2.0)
        assert tape.gradient(y, v) is None
        _same(tape.gradient(y, v, unconnected_gradients=tf.UnconnectedGradients.ZERO),
              np.zeros(shape), what="UnconnectedGradients.ZERO")
        ints = [d for d in self.dtypes if d.is_integer]
        if ints:
            iv = self.make(self._value(data, ints[0], shape))
            with tf.GradientTape() as tape:
                tape.watch(iv)
                y = iv * 2
            assert tape.gradient(y, iv) is None

    @_law()
    def test_reads_outside_a_tape_build_no_graph(self, data: Any) -> None:
        dtype = self._dtype(data, floating=True)
        shape = self._shape(data, min_rank=1, min_side=1)
        v = self.make(self._value(data, dtype, shape))
        kinds = [k for k in ref.READ_KINDS if k not in ("numpy", "asarray")]
        for read in data.draw(st.lists(tfst.reads(shape, kinds=kinds), min_size=1, max_size=4),
                              label="reads"):
            result = read.perform(v)
            for t in result if isinstance(result, list) else [result]:
                assert isinstance(t, torch.Tensor), f"{read!r} gave {type(t)}"
                assert not t.requires_grad and t.grad_fn is None, f"{read!r} built a graph"

    # -- interop --------------------------------------------------------------------
    @_law()
    def test_torch_functions_take_variables(self, data: Any) -> None:
        dtype = self._dtype(data, floating=True)
        dt = tfst.numpy_dtype(dtype)
        value = self._value(data, dtype, self._shape(data, min_rank=1))
        v = self.make(value)
        _same(torch.add(v, torch.ones((), dtype=v.dtype.as_torch)), (value + 1).astype(dt),
              what="torch.add(v, 1)")
        _same(torch.reshape(v, (-1,)), value.reshape(-1), what="torch.reshape(v)")
        _same(torch.stack([v, v]), np.stack([value, value]), what="torch.stack([v, v])")
        _same(torch.cat([v, torch.from_numpy(value)]), np.concatenate([value, value]),
              what="torch.cat([v, x])")
        _same(torch.from_numpy(value) * v, (value * value).astype(dt), what="tensor * v")

    @_law()
    def test_torch_in_place_ops_are_refused(self, data: Any) -> None:
        dtype = self._dtype(data, floating=True)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value)
        with pytest.raises(TypeError):
            torch.Tensor.add_(v, 1)
        with pytest.raises(TypeError):
            torch.add(torch.from_numpy(value), 1, out=v)
        _same(v.numpy(), value, what="variable after refused in-place ops")

    @_law()
    def test_convert_to_tensor(self, data: Any) -> None:
        dtype = self._dtype(data)
        dt = tfst.numpy_dtype(dtype)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value)
        t = tf.convert_to_tensor(v)
        assert isinstance(t, torch.Tensor) and not is_variable(t)
        _same(t, value, what="convert_to_tensor(v)")
        _same(tf.convert_to_tensor(v, dtype=dtype), value, what="convert_to_tensor(v, dtype)")
        with pytest.raises(ValueError):
            tf.convert_to_tensor(v, dtype=ref.other_dtype(dt).name)

    # -- python protocol ------------------------------------------------------------
    @_law()
    def test_python_conversions(self, data: Any) -> None:
        dtype = self._dtype(data)
        scalar = self._value(data, dtype, ())
        v = self.make(scalar)
        assert float(v) == float(scalar)
        assert int(v) == int(scalar)
        assert bool(v) == bool(scalar)
        vec = self.make(self._value(data, dtype, (2,)))
        with pytest.raises(TypeError):
            float(vec)
        with pytest.raises(ValueError):
            bool(vec)

    @_law()
    def test_len_and_iteration(self, data: Any) -> None:
        dtype = self._dtype(data)
        shape = self._shape(data)
        value = self._value(data, dtype, shape)
        v = self.make(value)
        with pytest.raises(TypeError):
            len(v)
        if not shape:
            with pytest.raises(TypeError):
                iter(v)
        else:
            _same(list(v), [row for row in value], what="list(v)")

    @_law()
    def test_hash_and_ref(self, data: Any) -> None:
        dtype = self._dtype(data)
        value = self._value(data, dtype, self._shape(data))
        v, w = self.make(value), self.make(value)
        with pytest.raises(TypeError):
            hash(v)
        assert v.ref() == v.ref() and hash(v.ref()) == hash(v.ref())
        assert v.ref() != w.ref()
        assert v.ref().deref() is v
        assert len({v.ref(), w.ref(), v.ref()}) == 2

    @_law()
    def test_copy_and_deepcopy(self, data: Any) -> None:
        dtype = self._dtype(data)
        shape = self._shape(data)
        value = self._value(data, dtype, shape)
        v = self.make(value)
        assert copy.copy(v) is v
        d = copy.deepcopy(v)
        assert isinstance(d, tf.Variable) and d is not v
        assert d.dtype == v.dtype and d.shape == v.shape and d.trainable == v.trainable
        _same(d.numpy(), value, what="deepcopy")
        d.assign(np.zeros(shape, tfst.numpy_dtype(dtype)))
        _same(v.numpy(), value, what="original after assigning its deepcopy")
        v.assign(np.ones(shape, tfst.numpy_dtype(dtype)))
        _same(d.numpy(), np.zeros(shape, tfst.numpy_dtype(dtype)), what="deepcopy after "
              "assigning the original")

    @_law()
    def test_pickle_round_trip(self, data: Any) -> None:
        if not self.pickling:
            pytest.skip("pickling is not supported by this variable type")
        dtype = self._dtype(data)
        value = self._value(data, dtype, self._shape(data))
        v = self.make(value, trainable=data.draw(st.booleans(), label="trainable"))
        p = pickle.loads(pickle.dumps(v))
        assert isinstance(p, tf.Variable) and p is not v
        assert p.dtype == v.dtype and p.shape == v.shape and p.trainable == v.trainable
        assert p.name == v.name
        _same(p.numpy(), value, what="unpickled value")

    @_law()
    def test_repr_matches_tf(self, data: Any) -> None:
        dtype = self._dtype(data)
        shape = self._shape(data)
        value = self._value(data, dtype, shape)
        v = self.make(value)
        expected = (f"<tf.Variable '{v.name}' shape={tuple(shape)} dtype={dtype.name}, "
                    f"numpy={_tf_numpy_text(value)}>")
        assert repr(v) == expected, f"repr(v) = {repr(v)!r}, TF: {expected!r}"


def _numpy_binary(op: str, x: np.ndarray, y: np.ndarray, dt: np.dtype) -> np.ndarray:
    """TF's result of `x <op> y` for two arrays of dtype `dt`."""
    with np.errstate(all="ignore"):
        if op in _COMPARISONS:
            return _BINARY[op](x, y)
        if op == "truediv":
            if dt.kind in "iu":
                target = np.float64 if dt.itemsize >= 4 else np.float32
                return (x.astype(target) / y.astype(target)).astype(target)
            return (x / y).astype(dt)
        if op == "floordiv" and dt.kind == "f":
            return np.floor(x / y).astype(dt)
        return np.asarray(_BINARY[op](x, y)).astype(dt)


def _smooth(x: Any, c: tuple) -> torch.Tensor:
    """A smooth scalar function built from TF operators and torch functions."""
    return torch.sum(torch.sin(x) * c[0] + x * x * c[1] + x * x * x * c[2] + x * 0.25)


def _reads_for_gradient(v: Any, read: str, c: tuple) -> torch.Tensor:
    if read == "variable":
        return _smooth(v, c)  # the variable itself, through its torch and operator protocols
    if read == "read_value":
        return _smooth(v.read_value(), c)
    if read == "value":
        return _smooth(v.value(), c)
    if read == "convert_to_tensor":
        return _smooth(tf.convert_to_tensor(v), c)
    if read == "getitem":
        return _smooth(v[...], c)
    if read == "torch_function":
        return _smooth(torch.reshape(v, (-1,)), c)
    if read == "two_reads":
        return _smooth(v.read_value(), c) + _smooth(v.value(), c)
    raise ValueError(read)


def _finite_difference(f: Callable[[torch.Tensor], torch.Tensor], x: np.ndarray,
                       h: float = 1e-6) -> np.ndarray:
    grad = np.zeros(x.shape, dtype=np.float64)
    flat = grad.reshape(-1)
    for i in range(x.size):
        up = x.astype(np.float64).reshape(-1).copy()
        down = up.copy()
        up[i] += h
        down[i] -= h
        fu = float(f(torch.from_numpy(up.reshape(x.shape))))
        fd = float(f(torch.from_numpy(down.reshape(x.shape))))
        flat[i] = (fu - fd) / (2 * h)
    return grad


def suite(factory: Callable[..., Any], name: str = "TestVariableConformance",
          **options: Any) -> type:
    """The conformance class for `factory`, ready to assign to a `Test...` name.

    `options` are the class attributes (`dtypes`, `item_assignment`,
    `gradients`, `pickling`, `max_rank`, `max_side`).
    """
    unknown = set(options) - {"dtypes", "item_assignment", "gradients", "pickling", "max_rank",
                              "max_side"}
    if unknown:
        raise TypeError(f"unknown conformance options: {sorted(unknown)}")
    return type(name, (VariableConformance,), {"factory": staticmethod(factory), **options,
                                               "__module__": _caller_module()})


def _caller_module() -> str:
    import sys
    frame = sys._getframe(2)
    return frame.f_globals.get("__name__", __name__)

