"""Torch interop both ways, sharing memory: `to_torch(tf_module)`, `from_torch(nn_module)`.

`to_torch(m)` gives a `torch.nn.Module` whose parameters (trainable
variables) and buffers (the others) are the variables' storage; `forward`
calls `m`, so `loss.backward()` fills `param.grad` and any torch optimizer,
`torch.save(view.state_dict())`, `DistributedDataParallel` and
`torch.compile` apply. `from_torch(nn_module)` gives a `tf.Module` whose
variables are the torch module's parameters and buffers; calling it runs
the module's `forward` with the variables' values, so `GradientTape`,
OptimizerV2 and `tf.train.Checkpoint` apply. The two are inverse:
`from_torch(to_torch(m)) is m` and `to_torch(from_torch(n)) is n`.

The design: one storage, two names, snapshots kept
--------------------------------------------------
A variable's value lives in a storage cell (`variables/resource.py`) whose
live tensor is written in place by every update. Here the torch tensor and
the cell's live tensor are *aliases*: two tensor objects over one torch
storage, with one version counter (`nn.Parameter(var.handle)` in one
direction, a cell built over `param.detach()` in the other). So an update
on either side (a torch optimizer's `param.add_`, OptimizerV2's kernels, an
`assign`, `load_state_dict`, a checkpoint restore) is an update of the
other, with no copy, and `data_ptr`s agree.

TF's contract that a read is an immutable snapshot holds on both sides
without any hook in the torch optimizers, because reads are torch
copy-on-write clones (`_lazy_clone`): torch makes the copy inside the
writing kernel, on the writer's storage, which is the one storage both
aliases share. A `var.value()` (or a numpy array of it) taken before a
torch step keeps its values; the step moves parameter and variable
together to new memory only if such a read is still alive.

Gradients. In the view's `forward` (grad mode on, the calling thread only)
reads of its trainable variables are copy-on-write clones of the
parameters themselves, installed through the variable read protocol
(`framework/variable_protocol.py`, as a tape does): autograd then reaches
the parameters, and gathers (embeddings) gather from such a clone, so
`param.grad` is dense, as for `torch.nn.Embedding`. In the other direction
the module runs under `torch.func.functional_call` with `var.value()` as
its parameters, so a `GradientTape` recording around the call sees the
reads it differentiates.

What breaks the sharing, and what happens then:

* an assign of a new shape gives the variable new storage; the view
  re-attaches the same `nn.Parameter` (its `.data`) at its next `forward`,
  `state_dict`, `load_state_dict` or `sync()`. `from_torch` modules raise
  `RuntimeError` when called after the torch side replaced a tensor
  (`module.half()`, `param.data = ...`).
* moving or casting a view (`.to()`, `.cuda()`, `.double()`) is refused
  with `TypeError`: create the TF module on the device and dtype wanted.
* variables of a distribution strategy have one copy per replica, so
  `to_torch` refuses them, and `from_torch` refuses to run inside a
  strategy's scope (`ValueError`); use torch's DDP for a torch-side model.
* torch optimizers do not take the variables' lock: a step of one thread
  may be seen half done by a tfcompat read in another (as two torch
  threads would see it); `load_state_dict` does take it.
"""

from .from_torch import TorchModule, from_torch
from .to_torch import TorchView, to_torch

__all__ = ["to_torch", "from_torch", "TorchView", "TorchModule"]
