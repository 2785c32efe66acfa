"""SGD with optional (Nesterov) momentum, as tf_keras' legacy SGD.

    plain:     var = var - g * lr
    momentum:  accum = accum * momentum - g * lr
               var = var + accum                        (nesterov: var + accum * momentum - g * lr)

(TF's `ResourceApplyGradientDescent` and `ResourceApplyKerasMomentum`.) The
learning rate lives inside Keras' accumulator (unlike `torch.optim.SGD`,
which applies it after the buffer), so the `momentum` slot holds TF's
values and a changing learning rate affects the step exactly as in TF.

`sgd` is the functional core: the multi-tensor update over plain tensor
lists, callable without an optimizer (per replica device, per bucket). It
rounds exactly as TF for every learning rate and dtype (TF computes
`g * lr` in the variable's dtype: float16 rounds a learning rate of 1e-12
to 0 and never moves, float32 and float64 keep tiny steps).
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Optional

import torch

from ...framework.indexed_slices import IndexedSlices
from . import multi_tensor
from .optimizer_v2 import OptimizerV2

__all__ = ["SGD", "sgd"]


# On CPU, a temporary of more than about 128 KB comes from mmap and is handed back on free, so
# `g * lr` for big tensors costs fresh page faults every step (10M floats: 12 ms, against 1 ms
# for the multiply itself). Tensors above this many elements go through a scratch buffer the
# caller keeps instead, `SCRATCH_ELEMENTS` at a time. The scratch is also the update's cache
# block: TF's four passes run over one batch of `SCRATCH_ELEMENTS` (1 MiB of float32: the
# batch's variables, gradients, accumulators and scratch stay in L2/L3) before the next, so
# only the first pass over a batch comes from memory (one thread, momentum 0.9, 1x10M floats:
# 1.67x torch's fused kernel against 2.1x with 4M-element batches; 200x50k: 2.16x against 2.7x).
_CPU_TEMPORARY_LIMIT = 1 << 15
SCRATCH_ELEMENTS = 1 << 18


def _step(params: list, grads: list, momentum_buffers: Optional[list], scaled: list, lr: Any,
          momentum: float, nesterov: bool) -> None:
    """TF's update given `scaled = g * lr` (already computed), over equally long lists."""
    if not momentum_buffers:
        torch._foreach_sub_(params, scaled)                # var - g * lr
        return
    torch._foreach_mul_(momentum_buffers, momentum)        # accum * momentum
    torch._foreach_sub_(momentum_buffers, scaled)          # ... - g * lr
    if nesterov:
        step = torch._foreach_mul(momentum_buffers, momentum)
        torch._foreach_sub_(step, scaled)                  # accum * momentum - g * lr
        torch._foreach_add_(params, step)
    else:
        torch._foreach_add_(params, momentum_buffers)      # var + accum


# torch's fused CPU SGD kernel computes, per element, `buf = buf * m + grad * (1 - dampening)`
# and `param = param - grad' * lr` (grad' = buf without nesterov), in the dtype for float32 and
# float64, with the compiler free to contract either product into a fused multiply-add. Called
# with m = 1, dampening = 2 and lr = -1, every product is exact (`x * 1`, `x * -1`), so each
# result is one correctly rounded sum, whatever the contraction: `buf = fl(buf - grad)` and
# `param = fl(param + buf)`. Given `grad = fl(g * lr)` and `buf = fl(accum * momentum)`
# (computed before, each rounded), that is TF's `ResourceApplyKerasMomentum` exactly, in one
# pass over the variables and accumulators instead of two. (float16/bfloat16 compute in float32
# and update the variable from the unrounded float32 accumulator: not TF's rounding.)
_FUSED_DTYPES = (torch.float32, torch.float64)

# The kernel's vector loop (torch 2.13, x86-64) contracts only `grad * (1 - dampening)`, so
# with m = momentum it rounds `buf * m` on its own and TF's update takes one kernel, no
# `accum * momentum` pass; its scalar tail (the last `numel % vector width` elements of a
# chunk) contracts `buf * m` instead, which TF does not. So the one-kernel form runs only on
# tensors whose length is a multiple of `_ALIGN_BYTES` (every vector width torch's CPU builds
# use divides it; the kernel's thread chunks are whole cache lines) and only where
# `_vector_loop_exact` saw it give TF's values; elsewhere `accum * momentum` comes first.
_ALIGN_BYTES = 64


def _fused_ok(p: torch.Tensor, nesterov: bool) -> bool:
    return not nesterov and p.device.type == "cpu" and p.dtype in _FUSED_DTYPES


def _aligned(numel: int, dtype: torch.dtype) -> bool:
    return numel % (_ALIGN_BYTES // _ITEMSIZE[dtype]) == 0


_ITEMSIZE = {torch.float32: 4, torch.float64: 8}


def _one_kernel(momentum: float, dtype: torch.dtype) -> bool:
    # (momentum 0 would make the kernel skip the accumulator: TF still sets it to -g * lr)
    return momentum != 0 and _vector_loop_exact(dtype)


def _fused_update(params: list, scaled: list, momentum_buffers: list, momentum: float,
                  aligned: bool = False) -> None:
    """TF's momentum update given `scaled = g * lr` (see `_FUSED_DTYPES`): one kernel where
    every tensor is `aligned` (see `_ALIGN_BYTES`), else two."""
    if aligned and _one_kernel(momentum, params[0].dtype):
        torch._fused_sgd_(params, scaled, momentum_buffers, weight_decay=0.0, momentum=momentum,
                          lr=-1.0, dampening=2.0, nesterov=False, maximize=False, is_first_step=False)
        return
    torch._foreach_mul_(momentum_buffers, _momentum_tensor(momentum, params[0]))  # accum * m
    torch._fused_sgd_(params, scaled, momentum_buffers, weight_decay=0.0, momentum=1.0, lr=-1.0,
                      dampening=2.0, nesterov=False, maximize=False, is_first_step=False)


@functools.lru_cache(maxsize=None)
def _vector_loop_exact(dtype: torch.dtype) -> bool:
    """Whether the fused kernel with m = momentum gives TF's values on aligned lengths, checked
    once per dtype on random values over many binades (a contraction of `buf * m` changes
    about one result in ten)."""
    gen = torch.Generator().manual_seed(20261202)
    unit = _ALIGN_BYTES // _ITEMSIZE[dtype]
    for k in (1, 2, 3, 7, 64, 4099):
        n = unit * k
        p, g, b = (torch.randn(n, generator=gen, dtype=torch.float64)
                   * torch.exp(torch.randn(n, generator=gen, dtype=torch.float64) * 4) for _ in range(3))
        p, g, b = p.to(dtype), g.to(dtype), b.to(dtype)
        for m_value in (0.9, 0.99, 0.5):
            lr = torch.tensor(0.01, dtype=dtype)
            m = float(torch.tensor(m_value, dtype=torch.float32).to(dtype))
            s = g * lr
            want_b = b * m - s
            want_p = p + want_b
            got_p, got_b = p.clone(), b.clone()
            torch._fused_sgd_([got_p], [s], [got_b], weight_decay=0.0, momentum=m, lr=-1.0,
                              dampening=2.0, nesterov=False, maximize=False, is_first_step=False)
            if not (torch.equal(got_b, want_b) and torch.equal(got_p, want_p)):
                return False
    return True


def _momentum_tensor(momentum: float, like: torch.Tensor) -> torch.Tensor:
    # `_foreach_mul_` by a Python float parses the scalar per tensor (2000 x 100: 4 ms against
    # 0.9 ms by a 0-d tensor); the product rounds the same (the 0-d tensor holds the dtype's value)
    return multi_tensor.scalar(momentum, like.dtype, like.device)


class _ScratchPlan:
    """Batches of whole tensors through the scratch, for tensors that each fit in it.

    Made once per layout (the tensors' shapes and the scratch) and kept in the caller's
    workspace: `batches` holds `(start, stop, views, aligned)`, `views` being pieces of the
    scratch shaped as tensors `start:stop` (the scratch is the caller's own memory, never a
    variable's: caching views of it cannot alias anything a user holds). A step is then one
    `mul` into a view per tensor and one fused kernel per batch, with no views made.
    """

    __slots__ = ("key", "scratch", "batches")

    def __init__(self, key: list, shapes: list, scratch: torch.Tensor) -> None:
        self.key = key
        self.scratch = scratch
        dtype = scratch.dtype
        self.batches = []
        start, used = 0, 0
        sizes = [s.numel() for s in shapes]
        for i in range(len(sizes) + 1):
            if i == len(sizes) or (i > start and used + sizes[i] > scratch.numel()):
                if i > start:
                    flat = scratch[:used]
                    views = [v.view(shape) for v, shape in zip(flat.split(sizes[start:i]), shapes[start:i])]
                    aligned = dtype in _ITEMSIZE and all(_aligned(n, dtype) for n in sizes[start:i])
                    self.batches.append((start, i, views, aligned))
                start, used = i, 0
            if i < len(sizes):
                used += sizes[i]


def _whole_through_scratch(params: list, grads: list, momentum_buffers: list, lr: Any, momentum: float,
                           plan: _ScratchPlan) -> None:
    """TF's momentum update of tensors that each fit in the scratch (see `_ScratchPlan`)."""
    mul = torch.mul
    for start, stop, views, aligned in plan.batches:
        for g, view in zip(grads[start:stop], views):
            mul(g, lr, out=view)                                          # g * lr, into the scratch
        _fused_update(params[start:stop], views, momentum_buffers[start:stop], momentum, aligned)


def _layout_key(params: list, sizes: list) -> list:
    """What a cached layout of `params` depends on: their sizes when all are vectors (cheap to
    read), else their shapes."""
    if all(map(_is_one, map(torch.Tensor.dim, params))):
        return sizes
    return list(map(_shape_of, params))


_is_one = (1).__eq__
_shape_of = operator.attrgetter("shape")


def _through_scratch(params: list, grads: list, momentum_buffers: Optional[list], scratch: torch.Tensor,
                     lr: Any, momentum: float, nesterov: bool, workspace: Optional[dict] = None,
                     sizes: Optional[list] = None) -> None:
    """`_step` for big tensors, with `g * lr` computed into `scratch` a batch at a time."""
    if (workspace is not None and momentum_buffers and _fused_ok(scratch, nesterov)
            and max(sizes) <= scratch.numel()):
        key = _layout_key(params, sizes)
        plan = workspace.get("scratch")
        if plan is None or plan.scratch is not scratch or plan.key != key:
            shapes = [p.shape for p in params] if key is sizes else key
            plan = workspace["scratch"] = _ScratchPlan(key, shapes, scratch)
        _whole_through_scratch(params, grads, momentum_buffers, lr, momentum, plan)
        return
    pieces = []  # (param, grad, buffer) flat views of at most scratch.numel() elements
    for i, (p, g) in enumerate(zip(params, grads)):
        b = momentum_buffers[i] if momentum_buffers else None
        flat = [p.view(-1), g.reshape(-1), b.view(-1) if b is not None else None]
        for start in range(0, p.numel(), scratch.numel()):
            stop = start + scratch.numel()
            pieces.append([t[start:stop] if t is not None else None for t in flat])
    batch: list = []
    used = 0
    for piece in pieces + [None]:
        if piece is None or used + piece[0].numel() > scratch.numel():
            if batch:
                views, offset = [], 0
                for bp, bg, _ in batch:
                    view = scratch[offset:offset + bp.numel()]
                    torch.mul(bg, lr, out=view)             # g * lr, into the scratch: one pass
                    views.append(view)
                    offset += bp.numel()
                buffers = [bb for _, _, bb in batch] if momentum_buffers else None
                batch_params = [bp for bp, _, _ in batch]
                if buffers and _fused_ok(scratch, nesterov):
                    dtype = scratch.dtype
                    odd = [i for i, bp in enumerate(batch_params) if not _aligned(bp.numel(), dtype)]
                    if not odd:
                        _fused_update(batch_params, views, buffers, momentum, aligned=True)
                    else:  # (at most one piece per tensor, its last)
                        even = [i for i in range(len(batch)) if i not in odd]
                        for idx, aligned in ((even, True), (odd, False)):
                            if idx:
                                _fused_update([batch_params[i] for i in idx], [views[i] for i in idx],
                                              [buffers[i] for i in idx], momentum, aligned=aligned)
                else:
                    _step(batch_params, None, buffers, views, lr, momentum, nesterov)
            batch, used = [], 0
            if piece is None:
                break
        batch.append(piece)
        used += piece[0].numel()


# On CPU, a foreach op over many small tensors is a loop of per-tensor kernels (about 1 µs of
# dispatch each): TF's four passes over 2000 x 100 floats cost 8000 of them. Lists of at least
# `_FLAT_MIN_TENSORS` small tensors instead run the arithmetic on flat copies, at most
# `_FLAT_ELEMENTS` elements at a time (one `cat` of the gradients and one of the accumulators,
# three flat passes, then two per-tensor loops to write the accumulators and variables back);
# the operations and their rounding are the same.
_FLAT_MIN_TENSORS = 16
_FLAT_ELEMENTS = 1 << 20


def _flat(tensors: list) -> list:
    """The tensors as 1-d, to concatenate (a vector as itself: a view costs about 1 µs)."""
    return [t if t.dim() == 1 else t.reshape(-1) for t in tensors]


def _shaped(pieces: tuple, like: list) -> list:
    """Pieces of a flat result in the shapes of `like` (views, to write into `like`)."""
    return [p if t.dim() == 1 else p.view(t.shape) for p, t in zip(pieces, like)]


class _FlatLayout:
    """A flat buffer for `g * lr` of many small tensors, with its pieces shaped like them.

    Built for one list of shapes and kept by the caller (`sgd`'s `workspace`): the pieces
    (views of `buffer`, one per tensor, in batches of at most `_FLAT_ELEMENTS`) are made once,
    not every step (2000 views: about 1 ms).
    """

    __slots__ = ("key", "buffer", "batches", "aligned")

    def __init__(self, key: list, shapes: list, like: torch.Tensor) -> None:
        self.key = key  # the tensors' sizes when all are vectors, else their shapes
        sizes = [s.numel() for s in shapes]
        self.aligned = like.dtype in _ITEMSIZE and all(_aligned(n, like.dtype) for n in sizes)
        bounds = _batches(sizes)
        self.buffer = torch.empty(max(sum(sizes[a:b]) for a, b in bounds), dtype=like.dtype,
                                  device=like.device)
        self.batches = []  # (start, stop, flat piece of the buffer, views shaped as the tensors)
        for a, b in bounds:
            flat = self.buffer[:sum(sizes[a:b])]
            views = [v.view(shape) for v, shape in zip(flat.split(sizes[a:b]), shapes[a:b])]
            self.batches.append((a, b, flat, views))


def _batches(sizes: list) -> list:
    """`(start, stop)` of consecutive batches of at most `_FLAT_ELEMENTS` (or one tensor)."""
    bounds, start, used = [], 0, 0
    for i, size in enumerate(sizes):
        if i > start and used + size > _FLAT_ELEMENTS:
            bounds.append((start, i))
            start, used = i, 0
        used += size
    bounds.append((start, len(sizes)))
    return bounds


def _flat_fused_step(params: list, grads: list, momentum_buffers: list, lr: Any, momentum: float,
                     layout: _FlatLayout, momentum_flat: Optional[torch.Tensor] = None) -> None:
    """TF's momentum update of many small tensors: `g * lr` on one flat copy, then the fused
    kernel over the tensors themselves (see `_fused_update`). `momentum_flat`: a 1-d tensor
    the accumulators are consecutive views of, in order, or None; with it, lengths the
    one-kernel form cannot take get `accum * momentum` in one pass over it instead of a
    per-tensor loop (2000 x 100: one kernel instead of 2000)."""
    vectors = type(layout.key[0]) is int
    premultiplied = momentum_flat is not None and not (layout.aligned and _one_kernel(momentum, params[0].dtype))
    if premultiplied:
        momentum_flat.mul_(_momentum_tensor(momentum, momentum_flat))                # accum * m
    for start, stop, flat, views in layout.batches:
        gs = grads[start:stop]
        torch.cat(gs if vectors else _flat(gs), out=flat)
        flat.mul_(lr)                                                               # g * lr
        if premultiplied:  # (then `buf - g*lr`, `var + buf`: see _fused_update)
            torch._fused_sgd_(params[start:stop], views, momentum_buffers[start:stop], weight_decay=0.0,
                              momentum=1.0, lr=-1.0, dampening=2.0, nesterov=False, maximize=False,
                              is_first_step=False)
        else:
            _fused_update(params[start:stop], views, momentum_buffers[start:stop], momentum, layout.aligned)


def _flat_step(params: list, grads: list, momentum_buffers: Optional[list], lr: Any,
               momentum: float, nesterov: bool) -> None:
    """`_step` for many small CPU tensors, computed on flat copies (see `_FLAT_MIN_TENSORS`)."""
    sizes = [p.numel() for p in params]
    bounds, start, used = [], 0, 0
    for i, size in enumerate(sizes):  # batches of at most _FLAT_ELEMENTS (or one tensor)
        if i > start and used + size > _FLAT_ELEMENTS:
            bounds.append((start, i))
            start, used = i, 0
        used += size
    bounds.append((start, len(sizes)))
    # (grads and accumulators have the variables' shapes: all vectors need no reshaping)
    vectors = all(p.dim() == 1 for p in params)
    flat = (lambda ts: ts) if vectors else _flat
    shaped = (lambda pieces, _: pieces) if vectors else _shaped
    for start, stop in bounds:
        ps, batch_sizes = params[start:stop], sizes[start:stop]
        scaled = torch.mul(torch.cat(flat(grads[start:stop])), lr)                # g * lr
        if not momentum_buffers:
            torch._foreach_sub_(ps, shaped(scaled.split(batch_sizes), ps))     # var - g * lr
            continue
        bs = momentum_buffers[start:stop]
        accum = torch.cat(flat(bs)).mul_(momentum).sub_(scaled)   # accum * momentum - g * lr
        pieces = shaped(accum.split(batch_sizes), bs)  # (views of `accum`: they follow it)
        torch._foreach_copy_(bs, pieces)
        if nesterov:
            accum.mul_(momentum).sub_(scaled)                     # accum * momentum - g * lr
        torch._foreach_add_(ps, pieces)                                         # var + step


def sgd(params: list, grads: list, momentum_buffers: Optional[list], *, lr: torch.Tensor,
        momentum: float = 0.0, nesterov: bool = False, scratch: Optional[torch.Tensor] = None,
        workspace: Optional[dict] = None, sizes: Optional[list] = None,
        momentum_flat: Optional[torch.Tensor] = None, **unused: Any) -> None:
    """One tf_keras SGD step over tensors of one device and dtype, in place.

    `params`, `grads` and `momentum_buffers` (None without momentum) are
    lists of equally shaped tensors; `lr` is the step's learning rate as a
    0-d tensor of their dtype, `momentum` a Python float already rounded to
    it. TF's operations in TF's order, each rounded to the dtype: exactly
    TF's values in every dtype, for every learning rate. `scratch` (CPU: a
    1-d tensor of the dtype, owned by the caller, e.g. `SCRATCH_ELEMENTS`
    long) holds `g * lr` for tensors too big for a cheap temporary.

    On CPU (float32/float64, not Nesterov) the update runs in torch's fused
    SGD kernel called with exact products: with `momentum=1, dampening=2,
    lr=-1` every product the kernel forms is a multiplication by +-1, so each
    of its results is one correctly rounded sum however the compiler fuses
    it, and `g * lr` and `accum * m` are computed before it as TF's rounded
    products (`_fused_update`). On lengths that are multiples of 64 bytes,
    where a once-per-dtype probe shows the kernel's vector loop rounds
    `buf * m` alone, `m` goes into the kernel directly (one pass fewer).
    Half precision keeps the four separate passes (the fused kernel computes
    in float32 and updates from the unrounded accumulator). `momentum_flat`
    (optional): a 1-d tensor the accumulators are consecutive views of, in
    order (see `SGD._flat_momentum`); with it, many small tensors of lengths
    the one-kernel form cannot take get `accum * m` in one pass over it.
    Measured (torch 2.13, one thread, momentum 0.9, loaded 2-core Xeon VM,
    `apply_gradients` against torch's fused step): 1.6x at 1x10M, 1.5-1.7x
    at 200x50k, 0.85-1.1x at 2000x100; the remaining cost is the separate
    `g * lr` pass TF's rounding requires (a one-stream read of the gradients).
    """
    if not params:
        return
    if sizes is None:
        sizes = list(map(torch.Tensor.numel, params))
    if scratch is not None and params[0].device.type == "cpu":
        big = [i for i, n in enumerate(sizes) if n > _CPU_TEMPORARY_LIMIT]
        if big:
            pick = lambda ts, idx: [ts[i] for i in idx]  # noqa: E731
            _through_scratch(pick(params, big), pick(grads, big),
                             pick(momentum_buffers, big) if momentum_buffers else None, scratch, lr, momentum,
                             nesterov, workspace.setdefault("big", {}) if workspace is not None else None,
                             pick(sizes, big))
            if len(big) == len(params):
                return
            chosen = set(big)
            small = [i for i in range(len(params)) if i not in chosen]
            params, grads, sizes = pick(params, small), pick(grads, small), pick(sizes, small)
            momentum_buffers = pick(momentum_buffers, small) if momentum_buffers else None
            momentum_flat = None  # (it covers every accumulator, not these)
    if params[0].device.type == "cpu" and len(params) >= _FLAT_MIN_TENSORS:
        if momentum_buffers and _fused_ok(params[0], nesterov):
            # (the layout's key: sizes are cheap to read, a shape is not (about 1 us a tensor))
            key = _layout_key(params, sizes)
            layout = workspace.get("flat") if workspace is not None else None
            if layout is None or layout.key != key:
                layout = _FlatLayout(key, [p.shape for p in params] if key is sizes else key, params[0])
                if workspace is not None:
                    workspace["flat"] = layout
            _flat_fused_step(params, grads, momentum_buffers, lr, momentum, layout, momentum_flat)
            return
        _flat_step(params, grads, momentum_buffers, lr, momentum, nesterov)
        return
    _step(params, grads, momentum_buffers, torch._foreach_mul(grads, lr), lr, momentum, nesterov)


class SGD(OptimizerV2):
    """Gradient descent with momentum (`tf.keras.optimizers.SGD`)."""

    _SPARSE_RULE_TAKES_PADS = True  # (rows only through the variable API: see OptimizerV2)

    def __init__(self, learning_rate: Any = 0.01, momentum: Any = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs: Any) -> None:
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = (isinstance(momentum, torch.Tensor) or callable(momentum)
                          or momentum > 0)
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError(f"`momentum` must be between [0, 1]. Received: momentum={momentum} "
                             f"(of type {type(momentum)}).")
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov

    def _create_slots(self, var_list: list) -> None:
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, var_device: str, var_dtype: Any, apply_state: dict) -> None:
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = self._get_hyper("momentum", var_dtype)

    # -- reference path ---------------------------------------------------------
    def _resource_apply_dense(self, grad: torch.Tensor, var: Any, apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr = c["lr_t"]
        if not self._momentum:
            return var.assign_sub(grad * lr)
        accum = self.get_slot(var, "momentum")
        accum_t = accum.value() * c["momentum"] - grad * lr
        accum.assign(accum_t)
        if self.nesterov:
            return var.assign_add(accum_t * c["momentum"] - grad * lr)
        return var.assign_add(accum_t)

    def _resource_apply_sparse_duplicate_indices(self, grad: torch.Tensor, var: Any,
                                                 indices: torch.Tensor, **kwargs: Any) -> Any:
        if self._momentum:
            return super()._resource_apply_sparse_duplicate_indices(grad, var, indices, **kwargs)
        c = self._coefficients(var, kwargs.get("apply_state"))
        # Plain SGD scatter-adds each row (TF's ResourceScatterAdd, as the variable's scatter_add):
        # duplicate indices are added one at a time, in order, each sum rounded to the dtype.
        return var.scatter_add(IndexedSlices(-grad * c["lr_t"], indices))

    def _resource_apply_sparse(self, grad: torch.Tensor, var: Any, indices: torch.Tensor,
                               apply_state: Optional[dict] = None) -> Any:
        c = self._coefficients(var, apply_state)
        lr, momentum = c["lr_t"], c["momentum"]
        accum = self.get_slot(var, "momentum")
        accum_rows = accum.sparse_read(indices) * momentum - grad * lr
        accum.scatter_update(IndexedSlices(accum_rows, indices))
        step = accum_rows * momentum - grad * lr if self.nesterov else accum_rows
        return var.scatter_add(IndexedSlices(step, indices))

    # -- multi-tensor path ---------------------------------------------------------
    def _multi_tensor_coefficients(self, var_device: str, var_dtype: Any, step: Any) -> dict:
        dtype = var_dtype.as_torch
        return dict(lr=self._decayed_lr(var_dtype),
                    momentum=self._host_hyper("momentum", dtype) if self._momentum else 0.0)

    def _multi_tensor_apply_dense(self, group: multi_tensor.DenseGroup, grads: list,
                                  coefficients: dict) -> None:
        params = group.params()
        sizes = list(map(torch.Tensor.numel, params))
        workspace = self.__dict__.setdefault("_workspaces", {}).setdefault(group.key, {})
        buffers = group.slot("momentum") if self._momentum else None
        momentum_flat = None
        if buffers and self._wants_flat_momentum(group, params, sizes):
            momentum_flat = self._flat_momentum(group, buffers, workspace)
            if momentum_flat is not None:
                buffers = workspace["momentum_flat"][1]  # (the slots' storage now, the same tensors)
        sgd(params, grads, buffers, nesterov=self.nesterov, scratch=self._scratch(group, sizes),
            workspace=workspace, sizes=sizes, momentum_flat=momentum_flat, **coefficients)

    def _wants_flat_momentum(self, group: multi_tensor.DenseGroup, params: list, sizes: list) -> bool:
        """Whether `sgd` would run `accum * momentum` as a loop of per-tensor kernels here: many
        small CPU tensors of a fused dtype, not all of lengths the one-kernel form takes."""
        return (not self.nesterov and group.device.type == "cpu" and group.dtype in _FUSED_DTYPES
                and len(params) >= _FLAT_MIN_TENSORS and max(sizes) <= _CPU_TEMPORARY_LIMIT
                and not all(_aligned(n, group.dtype) for n in sizes))

    def _flat_momentum(self, group: multi_tensor.DenseGroup, buffers: list, workspace: dict
                       ) -> Optional[torch.Tensor]:
        """A flat tensor the group's momentum slots are consecutive views of (lock held), or None.

        The slots are this optimizer's own variables: their storage is moved, once, into views
        of one buffer (`Resource.replace`, as a restore does), so that `accum * momentum` is one
        kernel. Reads of a slot stay snapshots (torch's copy-on-write works per storage: a
        write to the buffer copies it away from any read that still shares it). Whenever a
        slot's storage is no longer its view (a restore, an assign that replaced it), the
        buffer is made again from the current values; slots whose live tensor was handed to
        outside code (`Variable.handle`) are never moved.
        """
        entry = workspace.get("momentum_flat")
        if entry is not None and len(entry[1]) == len(buffers) and all(map(operator.is_, buffers, entry[1])):
            return entry[0]
        workspace.pop("momentum_flat", None)
        cells = group.slot_cells["momentum"]
        if any(c.handed_out for c in cells):
            return None
        flat = torch.cat([b.reshape(-1) for b in buffers])
        views = [piece.view(b.shape) for piece, b in zip(flat.split([b.numel() for b in buffers]), buffers)]
        for cell, view in zip(cells, views):
            cell.replace(view)
        if not all(cell.value is view for cell, view in zip(cells, views)):
            return None  # (storage torch would not share lazily: stays per tensor)
        workspace["momentum_flat"] = (flat, views)
        return flat

    def _scratch(self, group: multi_tensor.DenseGroup, sizes: list) -> Optional[torch.Tensor]:
        """The scratch `sgd` uses for big CPU tensors of the group's dtype (one per optimizer and
        (device, dtype), made on first need; used only under the device lock). `sizes`: the
        element counts of the group's variables."""
        if group.device.type != "cpu" or max(sizes) <= _CPU_TEMPORARY_LIMIT:
            return None
        buffers = self.__dict__.setdefault("_scratch_buffers", {})
        key = (group.device, group.dtype)
        buf = buffers.get(key)
        if buf is None:
            total = sum(sizes)
            buf = buffers[key] = torch.empty(min(total, SCRATCH_ELEMENTS), dtype=group.dtype,
                                             device=group.device)
        return buf

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._hyper_config("momentum"), nesterov=self.nesterov)
        return config
