"""Hypothesis strategies for TF variables: dtypes, shapes, values, slice keys, mutations.

Everything here draws plain data (numpy arrays, Python keys, `Mutation`
records from `tfcompat.testing.reference`), so the same examples can be
replayed against any implementation of TF's API, tfcompat or TensorFlow.

Values are "sane" by construction: finite, small, and by default *exact*
(multiples of 1/4 for floats), so sums and the power-of-two factors used by
`scatter_mul`/`scatter_div` are exactly representable even in float16 and
numpy references can be compared tightly.

Typical use::

    from hypothesis import given, strategies as st
    from tfcompat.testing import strategies as tfst

    @given(st.data())
    def test_something(data):
        dtype = data.draw(tfst.dtypes())
        initial = data.draw(tfst.arrays(dtype, data.draw(tfst.shapes())))
        ops = data.draw(tfst.mutation_sequences(initial))
        ...
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ..framework import dtypes as dtypes_lib
from . import reference as ref

__all__ = [
    "FLOAT_DTYPES", "INTEGER_DTYPES", "DEFAULT_DTYPES", "dtypes", "float_dtypes",
    "integer_dtypes", "shapes", "arrays", "elements", "initial_values", "slice_keys",
    "region_shape", "broadcastable_shapes", "index_arrays", "nd_index_arrays",
    "operand_forms", "mutations", "mutation_sequences", "invalid_mutations", "reads",
    "read_mutations",
    "numpy_dtype", "tolerance", "INVALID_REASONS", "reason_applies",
]

FLOAT_DTYPES = (dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.float64)
INTEGER_DTYPES = (dtypes_lib.int32, dtypes_lib.int64)
DEFAULT_DTYPES = FLOAT_DTYPES + INTEGER_DTYPES
_SMALL_INTS = (dtypes_lib.int8, dtypes_lib.int16, dtypes_lib.uint8)


def numpy_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype for a `tf.DType`, a name or a numpy dtype."""
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        return np.dtype(dtype)
    return np.dtype(dtypes_lib.as_dtype(dtype).as_numpy_dtype)


def tolerance(dtype: Any) -> dict:
    """`assert_allclose` keywords for comparing results of `dtype` with a numpy reference.

    Exact for integers; a few ulps for floats (reference and kernel may
    accumulate duplicates in different orders).
    """
    kind = numpy_dtype(dtype)
    if kind.kind in "iub":
        return {"rtol": 0, "atol": 0}
    return {np.dtype(np.float16): {"rtol": 2e-3, "atol": 1e-3},
            np.dtype(np.float32): {"rtol": 1e-6, "atol": 1e-6},
            np.dtype(np.float64): {"rtol": 1e-12, "atol": 1e-12}}.get(kind, {"rtol": 1e-6, "atol": 1e-6})


# ---------------------------------------------------------------------------
# dtypes, shapes, values
# ---------------------------------------------------------------------------

def dtypes(*, floating: bool = True, integer: bool = True, half: bool = True,
           small_integers: bool = False) -> st.SearchStrategy:
    """`tf.DType`s: float16/32/64 and int32/64 by default (int8/16, uint8 on request)."""
    choices: list = []
    if floating:
        choices += [d for d in FLOAT_DTYPES if half or d is not dtypes_lib.float16]
    if integer:
        choices += list(INTEGER_DTYPES) + (list(_SMALL_INTS) if small_integers else [])
    if not choices:
        raise ValueError("dtypes() needs at least one of floating/integer")
    return st.sampled_from(choices)


def float_dtypes(*, half: bool = True) -> st.SearchStrategy:
    """float16 (unless `half=False`), float32, float64."""
    return dtypes(integer=False, half=half)


def integer_dtypes(*, small: bool = False) -> st.SearchStrategy:
    """int32 and int64 (plus int8, int16, uint8 with `small=True`)."""
    return dtypes(floating=False, small_integers=small)


def shapes(*, min_rank: int = 0, max_rank: int = 3, min_side: int = 0,
           max_side: int = 4) -> st.SearchStrategy:
    """Shapes as tuples of ints (zero-sized dimensions included unless `min_side > 0`)."""
    return hnp.array_shapes(min_dims=min_rank, max_dims=max_rank, min_side=min_side,
                            max_side=max_side)


def elements(dtype: Any, *, magnitude: int = 16, exact: bool = True,
             nonzero: bool = False) -> st.SearchStrategy:
    """Scalars of `dtype` within `[-magnitude, magnitude]` (non-negative for unsigned).

    With `exact`, floats are multiples of 1/4, so sums stay exactly
    representable even in float16.
    """
    dt = numpy_dtype(dtype)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = max(-magnitude, int(info.min)), min(magnitude, int(info.max))
        base = st.integers(lo, hi)
        return base.filter(bool) if nonzero else base
    if exact:
        base = st.integers(-4 * magnitude, 4 * magnitude)
        if nonzero:
            base = base.filter(bool)
        return base.map(lambda k: k / 4)
    width = {2: 16, 4: 32}.get(dt.itemsize, 64)
    base = st.floats(-magnitude, magnitude, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False, width=width)
    return base.filter(bool) if nonzero else base


def arrays(dtype: Any, shape: Any, *, magnitude: int = 16, exact: bool = True,
           nonzero: bool = False) -> st.SearchStrategy:
    """numpy arrays of `dtype` and `shape` (an int tuple or a strategy of them).

    Finite values of magnitude at most `magnitude`; see `elements`.
    """
    dt = numpy_dtype(dtype)
    return hnp.arrays(dt, shape, elements=elements(dt, magnitude=magnitude, exact=exact,
                                                   nonzero=nonzero))


@st.composite
def initial_values(draw: Any, dtype: Any = None, shape: Any = None, **kwargs: Any) -> np.ndarray:
    """An initial value: a numpy array of a drawn (or given) dtype and shape.

    `dtype`/`shape` may be values or strategies; `kwargs` go to `arrays`.
    """
    if dtype is None:
        dtype = dtypes()
    if isinstance(dtype, st.SearchStrategy):
        dtype = draw(dtype)
    if shape is None:
        shape = shapes()
    if isinstance(shape, st.SearchStrategy):
        shape = draw(shape)
    return draw(arrays(dtype, tuple(shape), **kwargs))


# ---------------------------------------------------------------------------
# slice keys
# ---------------------------------------------------------------------------

def region_shape(shape: Sequence[int], key: Any) -> tuple:
    """The shape of `v[key]` for a variable of `shape` (numpy's basic indexing)."""
    return np.empty(tuple(shape), dtype=np.int8)[key].shape


@st.composite
def _slice_for(draw: Any, n: int, max_step: int) -> slice:
    bound = st.none() | st.integers(-2 * n - 1, 2 * n + 1)
    step = st.none() | st.integers(-max_step, max_step).filter(bool)
    return slice(draw(bound), draw(bound), draw(step))


@st.composite
def _item_for(draw: Any, n: int, ints: bool, max_step: int) -> Any:
    if ints and n > 0 and draw(st.booleans()):
        return draw(st.integers(-n, n - 1))
    return draw(_slice_for(n, max_step))


@st.composite
def slice_keys(draw: Any, shape: Sequence[int], *, ints: bool = True, ellipsis: bool = True,
               max_newaxis: int = 2, max_step: int = 3, bare: bool = True) -> Any:
    """A TF basic-slicing key valid for `shape`, which numpy reads the same way.

    Items: in-range ints (negative included), slices with any non-zero step
    (negative included) and bounds possibly beyond the dimension, at most
    one `Ellipsis`, and up to `max_newaxis` `None` (`tf.newaxis`). A
    one-item key is sometimes bare (`v[1]` rather than `v[1,]`).
    """
    rank = len(shape)
    use_ellipsis = ellipsis and draw(st.booleans())
    if use_ellipsis:
        n_before = draw(st.integers(0, rank))
        n_after = draw(st.integers(0, rank - n_before))
        dims_before = list(range(n_before))
        dims_after = list(range(rank - n_after, rank))
    else:
        n_before = draw(st.integers(0, rank))
        dims_before, dims_after = list(range(n_before)), []
    items: list = [draw(_item_for(shape[d], ints, max_step)) for d in dims_before]
    if use_ellipsis:
        items.append(Ellipsis)
        items += [draw(_item_for(shape[d], ints, max_step)) for d in dims_after]
    for _ in range(draw(st.integers(0, max_newaxis))):
        items.insert(draw(st.integers(0, len(items))), None)
    if not items:
        items = [draw(st.sampled_from([Ellipsis, slice(None)]))] if rank or use_ellipsis else [Ellipsis]
    if len(items) == 1 and bare and draw(st.booleans()):
        return items[0]
    return tuple(items)


def broadcastable_shapes(target: Sequence[int]) -> st.SearchStrategy:
    """Shapes numpy (and TF's slice assign) broadcast into `target`.

    The exact shape, a scalar, a trailing suffix, size-1 axes in place of
    dims, or the target with a leading 1 (dropped on assignment).
    """
    target = tuple(target)

    @st.composite
    def build(draw: Any) -> tuple:
        choice = draw(st.sampled_from(["exact", "scalar", "suffix", "ones", "lead1"]))
        if choice == "exact":
            return target
        if choice == "scalar":
            return ()
        if choice == "suffix":
            return target[draw(st.integers(0, len(target))):]
        if choice == "ones":
            return tuple(d if draw(st.booleans()) else 1 for d in target)
        return (1,) + target
    return build()


# ---------------------------------------------------------------------------
# indices
# ---------------------------------------------------------------------------

@st.composite
def index_arrays(draw: Any, n: int, *, min_size: int = 0, max_size: int = 5,
                 unique: bool = False, shape: Optional[tuple] = None,
                 dtype: Any = None) -> np.ndarray:
    """Indices into an axis of length `n`, duplicates included unless `unique`.

    A 1-D array of `min_size..max_size` entries, or of the given `shape`;
    int32 or int64 (drawn, unless `dtype` is given).
    """
    if dtype is None:
        dtype = draw(st.sampled_from([np.int32, np.int64]))
    if shape is None:
        size = draw(st.integers(min_size, min(max_size, n) if unique else max_size))
        shape = (size,)
    size = int(np.prod(shape, dtype=np.int64))
    if size == 0:
        return np.zeros(shape, dtype=dtype)
    if n <= 0:
        raise ValueError("cannot draw indices into an empty axis")
    values = draw(st.lists(st.integers(0, n - 1), min_size=size, max_size=size,
                           unique=unique))
    return np.array(values, dtype=dtype).reshape(shape)


@st.composite
def nd_index_arrays(draw: Any, shape: Sequence[int], k: int, *, min_rows: int = 0,
                    max_rows: int = 5, unique: bool = False, batch_rank: int = 1,
                    dtype: Any = None) -> np.ndarray:
    """`scatter_nd`/`gather_nd` indices of shape `batch + [k]` into the first `k` axes of `shape`."""
    if dtype is None:
        dtype = draw(st.sampled_from([np.int32, np.int64]))
    lead = tuple(shape[:k])
    capacity = int(np.prod(lead, dtype=np.int64)) if lead else 1
    rows_hi = min(max_rows, capacity) if unique else max_rows
    if any(d == 0 for d in lead):
        return np.zeros((0, k), dtype=dtype)  # nothing to index into
    rows = draw(st.integers(min(min_rows, rows_hi), rows_hi))
    row = st.tuples(*[st.integers(0, d - 1) for d in lead])
    picked = draw(st.lists(row, min_size=rows, max_size=rows, unique=unique))
    arr = np.array(picked, dtype=dtype).reshape(rows, k)
    if batch_rank == 2 and rows % 2 == 0 and rows:
        arr = arr.reshape(2, rows // 2, k)
    return arr


# ---------------------------------------------------------------------------
# mutations
# ---------------------------------------------------------------------------

def operand_forms(dtype: Any, *, variable: bool = True) -> st.SearchStrategy:
    """Valid ways to pass a value of `dtype` to a mutator (see `reference.OPERAND_FORMS`)."""
    forms = ["numpy", "numpy_other", "tensor", "list"] + (["variable"] if variable else [])
    return st.sampled_from(forms)


def _factor_elements(dtype: np.dtype) -> st.SearchStrategy:
    # powers of two keep scatter_mul/scatter_div exact in every float type
    if dtype.kind in "iu":
        return st.sampled_from([1, 2] if dtype.kind == "u" else [-2, -1, 1, 2])
    return st.sampled_from([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0])


def _factor_arrays(dtype: np.dtype, shape: tuple) -> st.SearchStrategy:
    return hnp.arrays(dtype, shape, elements=_factor_elements(dtype))


@st.composite
def mutations(draw: Any, dtype: Any, shape: Sequence[int], *,
              kinds: Iterable[str] = ref.MUTATION_KINDS, forms: bool = True,
              magnitude: int = 16, item_assign: bool = False,
              read_value: bool = True) -> ref.Mutation:
    """One valid mutation of a variable of `dtype` and `shape` (see `reference`).

    `kinds` restricts the methods (names in `reference.MUTATION_KINDS`);
    kinds that cannot apply (scatters on a scalar or an empty axis) are left
    out. `item_assign` adds `v[key] = value` (a tfcompat extension);
    `read_value` lets dense mutators draw `read_value=False`.
    """
    dt = numpy_dtype(dtype)
    shape = tuple(shape)
    possible = _applicable(shape, set(kinds), item_assign)
    # pick a family first, so scatters are as likely as the (few) dense kinds
    families: dict = {}
    for k in sorted(possible):
        fam = ("scatter_nd" if k.startswith("scatter_nd_") else
               "scatter" if k.startswith("scatter_") else
               "slice" if k in ("slice_assign", "item_assign") else "dense")
        families.setdefault(fam, []).append(k)
    family = draw(st.sampled_from(sorted(families)))
    kind = draw(st.sampled_from(families[family]))
    form = draw(operand_forms(dt)) if forms else "numpy"
    values = lambda s: arrays(dt, s, magnitude=magnitude)  # noqa: E731

    def fit_form(value: np.ndarray) -> str:
        # nested lists lose the shape of an empty array ([] is shape (0,))
        return "numpy" if form == "list" and value.size == 0 else form

    if kind in ("assign", "assign_add", "assign_sub"):
        cls = {"assign": ref.Assign, "assign_add": ref.AssignAdd, "assign_sub": ref.AssignSub}[kind]
        rv = draw(st.booleans()) if read_value else True
        value = draw(values(shape))
        return cls(value, read_value=rv, form=fit_form(value))
    if kind.startswith("scatter_nd_"):
        op = kind[len("scatter_nd_"):]
        k = draw(st.integers(1, len(shape)))
        idx = draw(nd_index_arrays(shape, k, unique=(op == "update"),
                                   batch_rank=draw(st.sampled_from([1, 1, 2]))))
        upd = draw(values(idx.shape[:-1] + shape[k:]))
        return ref.ScatterNd(op, idx, upd, form=fit_form(upd))
    if kind.startswith("scatter_"):
        op = kind[len("scatter_"):]
        unique = op == "update"
        if draw(st.integers(0, 4)) == 0:  # occasionally 2-D indices (TF allows any rank)
            n = shape[0]
            width = draw(st.integers(0, min(2, n // 2) if unique else 2))
            idx = draw(index_arrays(n, shape=(2, width), unique=unique))
        else:
            idx = draw(index_arrays(shape[0], unique=unique))
        upd_shape = idx.shape + shape[1:]
        if op in ("mul", "div"):
            upd = draw(_factor_arrays(dt, upd_shape))
        else:
            upd = draw(values(upd_shape))
        # IndexedSlices values of the variable's own dtype (tensor or array)
        return ref.Scatter(op, idx, upd, form="numpy" if form == "numpy" else "tensor")
    key = draw(slice_keys(shape))
    vshape = draw(broadcastable_shapes(region_shape(shape, key)))
    cls = ref.ItemAssign if kind == "item_assign" else ref.SliceAssign
    value = draw(values(vshape))
    return cls(key, value, form=fit_form(value))


def _applicable(shape: tuple, kinds: set, item_assign: bool) -> set:
    possible = set()
    for kind in kinds:
        if kind.startswith("scatter_nd_"):
            # TF rejects scatter_nd into a variable with no elements
            if shape and int(np.prod(shape, dtype=np.int64)) > 0:
                possible.add(kind)
        elif kind.startswith("scatter_"):
            if shape and shape[0] > 0:
                possible.add(kind)
        else:
            possible.add(kind)
    if item_assign:
        possible.add("item_assign")
    if not possible:
        possible = {"assign"}
    return possible


@st.composite
def mutation_sequences(draw: Any, initial: np.ndarray, *, min_size: int = 0, max_size: int = 6,
                       kinds: Iterable[str] = ref.MUTATION_KINDS, bound: Optional[float] = None,
                       **kwargs: Any) -> list:
    """A list of valid mutations of a variable starting at `initial`.

    The numpy reference is tracked while drawing: a mutation that would take
    any element beyond `bound` (default 2**10 for floats, 2**20 for
    integers) is replaced by an `Assign` of fresh values, so long sequences
    never overflow. `kwargs` go to `mutations`.
    """
    initial = np.asarray(initial)
    dt = initial.dtype
    if bound is None:
        bound = 2 ** 20 if dt.kind in "iu" else 2 ** 10
    state = initial
    ops: list = []
    kinds = tuple(kinds)
    for _ in range(draw(st.integers(min_size, max_size))):
        op = draw(mutations(dt, initial.shape, kinds=kinds, **kwargs))
        nxt = op.reference(state)
        if nxt.size and float(np.max(np.abs(nxt.astype(np.float64)))) > bound:
            op = ref.Assign(draw(arrays(dt, initial.shape)), form="numpy")
            nxt = op.reference(state)
        ops.append(op)
        state = nxt
    return ops


# ---------------------------------------------------------------------------
# invalid mutations
# ---------------------------------------------------------------------------

INVALID_REASONS = (
    "assign_shape",       # assign of another (incompatible) shape -> ValueError
    "update_shape",       # assign_add/assign_sub of another shape -> InvalidArgumentError
    "dtype_tensor",       # a tensor of another dtype -> ValueError
    "python_float_int",   # Python floats into an integer variable -> TypeError
    "scatter_index",      # scatter index out of range -> InvalidArgumentError
    "scatter_nd_index",   # scatter_nd index out of range -> InvalidArgumentError
    "scatter_updates",    # updates shape does not match -> InvalidArgumentError
    "scatter_div_zero",   # scatter_div by zero -> InvalidArgumentError
    "slice_broadcast",    # slice assign of a value that does not broadcast -> InvalidArgumentError
    "slice_index",        # slice assign at an out-of-range index -> InvalidArgumentError
)


def _different_shape(draw: Any, shape: tuple) -> tuple:
    options = ["append"]
    if shape:
        options += ["grow", "drop"]
    choice = draw(st.sampled_from(options))
    if choice == "append":
        return shape + (draw(st.integers(1, 3)),)
    if choice == "drop":
        return shape[1:] if len(shape) > 1 or shape[0] != 1 else (2,)
    axis = draw(st.integers(0, len(shape) - 1))
    return shape[:axis] + (shape[axis] + draw(st.integers(1, 2)),) + shape[axis + 1:]


def _non_integral(draw: Any, shape: tuple) -> np.ndarray:
    if int(np.prod(shape, dtype=np.int64)) == 0:
        shape = ()  # an empty list holds no float: use a Python scalar instead
    base = draw(arrays(np.float64, shape, magnitude=8))
    return np.floor(base) + 0.5


@st.composite
def invalid_mutations(draw: Any, dtype: Any, shape: Sequence[int], *,
                      reasons: Iterable[str] = INVALID_REASONS,
                      scatter: bool = True) -> ref.InvalidMutation:
    """A mutation TF rejects for a variable of `dtype` and fully known `shape`.

    Each comes with the error TF 2.21 raises (see `INVALID_REASONS`); after
    it the variable must be unchanged. `scatter=False` draws no `scatter_*`
    mutation (for variable types that refuse the whole family).
    """
    dt = numpy_dtype(dtype)
    shape = tuple(shape)
    possible = [r for r in reasons if reason_applies(r, dt, shape)]
    reason = draw(st.sampled_from(possible))
    vals = lambda s: arrays(dt, s)  # noqa: E731
    if reason == "assign_shape":
        bad = _different_shape(draw, shape)
        value = draw(vals(bad))
        form = draw(operand_forms(dt)) if value.size else "numpy"
        return ref.InvalidMutation(ref.Assign(value, form=form),
                                   "ValueError", f"assign of shape {bad} into {shape}")
    if reason == "update_shape":
        bad = _different_shape(draw, shape) if draw(st.booleans()) or not shape else ()
        cls = draw(st.sampled_from([ref.AssignAdd, ref.AssignSub]))
        return ref.InvalidMutation(cls(draw(vals(bad)), form=draw(st.sampled_from(["numpy", "tensor"]))),
                                   "InvalidArgumentError", f"delta of shape {bad} for {shape}")
    if reason == "dtype_tensor":
        family = draw(st.sampled_from([f for f in ("dense", "slice", "scatter", "scatter_nd")
                                       if f in ("dense", "slice") or scatter and shape
                                       and shape[0] > 0]))
        if family == "dense":
            cls = draw(st.sampled_from([ref.Assign, ref.AssignAdd, ref.AssignSub]))
            op = cls(draw(vals(shape)), form="tensor_other")
        elif family == "slice":
            key = draw(slice_keys(shape))
            op = ref.SliceAssign(key, draw(vals(region_shape(shape, key))), form="tensor_other")
        elif family == "scatter":
            op_name = draw(st.sampled_from(["update", "add", "sub", "min", "max"]))
            idx = draw(index_arrays(shape[0], min_size=1, unique=True))
            op = ref.Scatter(op_name, idx, draw(vals(idx.shape + shape[1:])), form="tensor_other")
        else:
            idx = draw(nd_index_arrays(shape, 1, min_rows=1, unique=True))
            op = ref.ScatterNd(draw(st.sampled_from(ref.SCATTER_ND_KINDS)), idx,
                               draw(vals(idx.shape[:-1] + shape[1:])), form="tensor_other")
        return ref.InvalidMutation(op, "ValueError", "a tensor of another dtype")
    if reason == "python_float_int":
        family = draw(st.sampled_from([f for f in ("dense", "slice", "scatter_nd")
                                       if f != "scatter_nd" or scatter and shape and shape[0] > 0]))
        if family == "dense":
            cls = draw(st.sampled_from([ref.Assign, ref.AssignAdd, ref.AssignSub]))
            op = cls(_non_integral(draw, shape), form="list")
        elif family == "slice":
            key = draw(slice_keys(shape))
            op = ref.SliceAssign(key, _non_integral(draw, region_shape(shape, key)), form="list")
        else:
            idx = draw(nd_index_arrays(shape, 1, min_rows=1, unique=True))
            op = ref.ScatterNd(draw(st.sampled_from(ref.SCATTER_ND_KINDS)), idx,
                               _non_integral(draw, idx.shape[:-1] + shape[1:]), form="list")
        return ref.InvalidMutation(op, "TypeError", "Python floats into an integer variable")
    if reason == "scatter_index":
        n = shape[0]
        good = draw(index_arrays(n, unique=True)) if n else np.zeros((0,), np.int32)
        bad_index = draw(st.sampled_from([n, n + 1, -1, -n - 1]))
        pos = draw(st.integers(0, good.size))
        idx = np.insert(good.astype(np.int64), pos, bad_index)
        op_name = draw(st.sampled_from(ref.SCATTER_KINDS))
        upd = (draw(_factor_arrays(dt, idx.shape + shape[1:])) if op_name in ("mul", "div")
               else draw(vals(idx.shape + shape[1:])))
        return ref.InvalidMutation(ref.Scatter(op_name, idx, upd), "InvalidArgumentError",
                                   f"index {bad_index} outside [0, {n})")
    if reason == "scatter_nd_index":
        k = draw(st.integers(1, len(shape)))
        axis = draw(st.integers(0, k - 1))
        row = [draw(st.integers(0, max(d - 1, 0))) for d in shape[:k]]
        row[axis] = draw(st.sampled_from([shape[axis], -1]))
        idx = np.array([row], dtype=np.int64)
        op = ref.ScatterNd(draw(st.sampled_from(ref.SCATTER_ND_KINDS)), idx,
                           draw(vals((1,) + shape[k:])))
        return ref.InvalidMutation(op, "InvalidArgumentError", f"nd index {row} outside {shape}")
    if reason == "scatter_updates":
        if draw(st.booleans()):
            idx = draw(index_arrays(shape[0], min_size=1, unique=True))
            good = idx.shape + shape[1:]
            bad = _different_shape(draw, good)
            if bad == ():
                bad = good + (2,)
            op = ref.Scatter(draw(st.sampled_from(["update", "add", "sub", "min", "max"])), idx,
                             draw(vals(bad)))
        else:
            idx = draw(nd_index_arrays(shape, 1, min_rows=1, unique=True))
            good = idx.shape[:-1] + shape[1:]
            bad = _different_shape(draw, good)
            if bad == ():
                bad = good + (2,)
            op = ref.ScatterNd(draw(st.sampled_from(ref.SCATTER_ND_KINDS)), idx, draw(vals(bad)))
        return ref.InvalidMutation(op, "InvalidArgumentError", f"updates of shape {bad}, need {good}")
    if reason == "scatter_div_zero":
        idx = draw(index_arrays(shape[0], min_size=1, unique=True))
        upd = draw(_factor_arrays(dt, idx.shape + shape[1:]))
        flat = upd.reshape(-1)
        flat[draw(st.integers(0, flat.size - 1))] = 0
        return ref.InvalidMutation(ref.Scatter("div", idx, flat.reshape(upd.shape)),
                                   "InvalidArgumentError", "updates must not contain 0")
    if reason == "slice_broadcast":
        key = draw(slice_keys(shape))
        region = region_shape(shape, key)
        if int(np.prod(region, dtype=np.int64)) == 0:  # TF skips empty regions entirely
            key, region = Ellipsis, shape
        if region:
            axis = draw(st.integers(0, len(region) - 1))
            bad = region[:axis] + (max(region[axis], 1) + 1,) + region[axis + 1:]
        else:
            bad = (2,)
        return ref.InvalidMutation(ref.SliceAssign(key, draw(vals(bad))), "InvalidArgumentError",
                                   f"value of shape {bad} into a slice of shape {region}")
    if reason == "slice_index":
        axis = draw(st.integers(0, len(shape) - 1))
        bad_index = draw(st.sampled_from([shape[axis], shape[axis] + 2, -shape[axis] - 1]))
        key = tuple([slice(None)] * axis + [bad_index])
        region = shape[:axis] + shape[axis + 1:]
        return ref.InvalidMutation(ref.SliceAssign(key, draw(vals(region))), "InvalidArgumentError",
                                   f"index {bad_index} out of range on axis {axis}")
    raise AssertionError(reason)  # pragma: no cover


def reason_applies(reason: str, dtype: Any, shape: tuple) -> bool:
    """Whether `invalid_mutations` can draw `reason` for a variable of `dtype` and `shape`."""
    dt = numpy_dtype(dtype)
    shape = tuple(shape)
    has_rows = bool(shape) and shape[0] > 0
    if reason == "python_float_int":
        return dt.kind in "iu"
    if reason in ("scatter_index", "scatter_nd_index", "slice_index"):
        return bool(shape)
    if reason in ("scatter_updates", "scatter_div_zero"):
        return has_rows and int(np.prod(shape[1:], dtype=np.int64)) > 0
    if reason == "slice_broadcast":
        return int(np.prod(shape, dtype=np.int64)) > 0
    return True


# ---------------------------------------------------------------------------
# reads
# ---------------------------------------------------------------------------

def read_mutations() -> Any:
    """An in-place write to a read's result (see `reference.ReadMutation`)."""
    return st.builds(ref.ReadMutation, st.sampled_from(ref.READ_MUTATION_KINDS))


@st.composite
def reads(draw: Any, shape: Sequence[int], *, kinds: Iterable[str] = ref.READ_KINDS) -> ref.Read:
    """One way of reading a variable of `shape` (see `reference.READ_KINDS`)."""
    shape = tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    possible = [k for k in kinds
                if not (k == "sparse_read" and not (shape and shape[0] > 0))
                and not (k == "gather_nd" and not (shape and size > 0))  # TF: params is empty
                and len(shape) >= ref.Read(k).needs_rank]
    kind = draw(st.sampled_from(possible))
    if kind == "getitem":
        return ref.Read(kind, key=draw(slice_keys(shape)))
    if kind == "sparse_read":
        return ref.Read(kind, indices=draw(index_arrays(shape[0], min_size=1)))
    if kind == "gather_nd":
        k = draw(st.integers(1, len(shape)))
        if any(d == 0 for d in shape[:k]):
            k = 1
        return ref.Read(kind, indices=draw(nd_index_arrays(shape, k, min_rows=1)))
    return ref.Read(kind)
