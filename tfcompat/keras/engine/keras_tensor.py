"""Symbolic tensors of the functional API (tf_keras's `KerasTensor`) and the call graph.

`tf.keras.Input(shape=(784,))` is a `KerasTensor`: a shape (`TensorShape`, the batch dim
None), a dtype and a name, no data. Calling a layer on KerasTensors builds the layer from
their shapes and returns new KerasTensors, recording a `Node` (the layer, the call's
arguments with their KerasTensors, the outputs) that the functional `Model` later replays
on real tensors. Each KerasTensor's `_keras_history` says which layer call produced it.

Python operators on KerasTensors (`x + 1`, `x[:, 0]`, `x @ w`), TF ops (`tf.reduce_sum(x)`,
through `framework/symbolic_dispatch.py`, registered here) and torch functions
(`torch.cat([a, b], 1)`) become layers of their own (`TFOpLambda`, as tf_keras), so
`y = tf.nn.relu(Dense(3)(x) * 2)` works as in TF.
"""

from __future__ import annotations

import collections
import operator
from typing import Any, Callable, Dict, List, Optional

import torch

from ...framework import dtypes
from ...framework import nest
from ...framework import symbolic_dispatch
from ...framework.tensor_shape import TensorShape

__all__ = ["KerasTensor", "KerasHistory", "Node", "is_keras_tensor", "keras_tensors_in"]

KerasHistory = collections.namedtuple("KerasHistory", ["layer", "node_index", "tensor_index"])


class KerasTensor:
    """A symbolic tensor: `shape`, `dtype`, `name`, and the layer call that made it."""

    def __init__(self, shape: Any, dtype: Any = "float32", name: Optional[str] = None,
                 sparse: bool = False, ragged: bool = False) -> None:
        self._shape = TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name
        self._keras_history: Optional[KerasHistory] = None
        self._keras_mask: Any = None
        self.sparse = sparse
        self.ragged = ragged

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def name(self) -> Optional[str]:
        return self._name

    @property
    def ndim(self) -> Optional[int]:
        return self._shape.rank

    @property
    def node(self) -> "Node":
        history = self._keras_history
        return history.layer._inbound_nodes[history.node_index]

    def set_shape(self, shape: Any) -> None:
        self._shape = self._shape.merge_with(TensorShape(shape))

    def __len__(self) -> int:
        raise TypeError(
            "Keras symbolic inputs/outputs do not implement `__len__`. You may be trying to "
            "pass Keras symbolic inputs/outputs to a TF API that does not register dispatching, "
            "preventing Keras from automatically converting the API call to a lambda layer in "
            "the Functional Model. This error will also get raised if you try asserting a "
            "symbolic input/output directly.")

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a symbolic KerasTensor as a Python `bool` is not allowed. You can attempt "
            "the following resolutions to the problem: If you are running in Graph mode, use "
            "Eager execution mode or decorate this function with @tf.function.")

    def __iter__(self) -> Any:
        shape = self._shape
        if shape.rank is None:
            raise TypeError("Cannot iterate over a Tensor with unknown shape.")
        if not shape.as_list() or shape.as_list()[0] is None:
            raise TypeError("Cannot iterate over a Tensor with unknown first dimension.")
        return iter(self[i] for i in range(shape.as_list()[0]))

    def __array__(self, dtype: Any = None) -> Any:
        raise TypeError(
            f"You are passing {self!r}, an intermediate Keras symbolic input/output, to a TF "
            "API that does not allow registering custom dispatchers, such as `tf.cond`, "
            "`tf.function`, gradient tapes, or `tf.map_fn`. Keras Functional model construction "
            "only supports TF API calls that *do* support dispatching, such as `tf.math.add` or "
            "`tf.reshape`. Other APIs cannot be called directly on symbolic Kerasinputs/outputs. "
            "You can work around this limitation by putting the operation in a custom Keras "
            "layer `call` and calling that layer on this symbolic input/output.")

    def numpy(self) -> Any:
        return self.__array__()

    def __repr__(self) -> str:
        parts = [f"shape={tuple(self._shape.as_list()) if self._shape.rank is not None else None}",
                 f"dtype={self._dtype.name}"]
        if self._name:
            parts.append(f"name='{self._name}'")
        history = self._keras_history
        if history is not None and history.layer is not None:
            parts.append(f"description=\"created by layer '{history.layer.name}'\"")
        return f"<KerasTensor: {' '.join(parts)}>"

    __str__ = __repr__

    # torch functions on symbolic tensors become layers of the graph.
    @classmethod
    def __torch_function__(cls, func: Callable, types: Any, args: tuple = (),
                           kwargs: Optional[dict] = None) -> Any:
        return op_layer_call(func, args, kwargs or {})

    def __hash__(self) -> int:
        return id(self)


def _op(fn: Callable) -> Callable:
    def method(self: KerasTensor, *args: Any) -> Any:
        return op_layer_call(fn, (self,) + args, {})
    method.__name__ = f"__{getattr(fn, '__name__', 'op').strip('_')}__"
    return method


def _reflected(fn: Callable) -> Callable:
    def method(self: KerasTensor, other: Any) -> Any:  # `other OP self`, as TF records it
        return op_layer_call(fn, (other, self), {})
    method.__name__ = f"__r{getattr(fn, '__name__', 'op').strip('_')}__"
    return method


for _name, _fn in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                   ("mod", operator.mod), ("pow", operator.pow), ("matmul", operator.matmul),
                   ("and", operator.and_), ("or", operator.or_), ("xor", operator.xor)]:
    setattr(KerasTensor, f"__{_name}__", _op(_fn))
    setattr(KerasTensor, f"__r{_name}__", _reflected(_fn))
for _name, _fn in [("lt", operator.lt), ("le", operator.le), ("gt", operator.gt),
                   ("ge", operator.ge), ("neg", operator.neg), ("abs", operator.abs),
                   ("invert", operator.invert), ("getitem", operator.getitem),
                   ("pos", operator.pos)]:
    setattr(KerasTensor, f"__{_name}__", _op(_fn))


def op_layer_call(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """Run `fn(*args, **kwargs)` as a `TFOpLambda` layer of the functional graph.

    `fn` is a Python operator (recorded under TF's name for it) or a torch function. Met
    inside a TF op that was itself called on this KerasTensor, it raises
    `SymbolicTensorError` instead, so the op (not its internals) becomes the layer.
    """
    if symbolic_dispatch.inside_op_call():
        raise symbolic_dispatch.SymbolicTensorError(
            "A Keras symbolic tensor reached an operation inside a TF op.")
    from ..layers.core import tf_op_layers
    if fn is operator.getitem:
        args = tf_op_layers.slices_to_dicts(args)
        return tf_op_layers.SlicingOpLambda(tf_op_layers.getitem)(*args, **kwargs)
    return tf_op_layers.TFOpLambda(tf_op_layers.OPERATORS.get(fn, fn))(*args, **kwargs)


def _handle_api_call(function: Callable, args: tuple, kwargs: dict) -> Any:
    from ..layers.core import tf_op_layers
    return tf_op_layers.handle_op_call(function, args, kwargs)


symbolic_dispatch.register_symbolic_type(KerasTensor)
symbolic_dispatch.register_handler(_handle_api_call)


def is_keras_tensor(x: Any) -> bool:
    return isinstance(x, KerasTensor)


def keras_tensors_in(structure: Any) -> List[KerasTensor]:
    """The KerasTensors among `structure`'s leaves, in `nest.flatten` order."""
    return [x for x in nest.flatten(structure) if isinstance(x, KerasTensor)]


class Node:
    """One call of a layer in the functional graph: its arguments and its outputs.

    `call_args` / `call_kwargs` hold KerasTensors where the call received them (anywhere
    in the nest) and constants elsewhere; `map_arguments` puts real tensors in their place.
    The node appends itself to `layer._inbound_nodes` and to the producing layers'
    `_outbound_nodes`, and stamps each output's `_keras_history`.
    """

    def __init__(self, layer: Any, call_args: Optional[tuple] = None,
                 call_kwargs: Optional[dict] = None, outputs: Any = None) -> None:
        self.layer = layer
        self.call_args = tuple(call_args or ())
        self.call_kwargs = dict(call_kwargs or {})
        self.is_input = not self.call_args and not self.call_kwargs
        self.outputs = outputs if outputs is not None else []
        self._flat_arguments = nest.flatten((self.call_args, self.call_kwargs))
        self._keras_inputs: List[KerasTensor] = []
        self._keras_input_indices: List[int] = []
        for index, value in enumerate(self._flat_arguments):
            if isinstance(value, KerasTensor):
                self._keras_inputs.append(value)
                self._keras_input_indices.append(index)
        layer._inbound_nodes.append(self)
        for kt in self._keras_inputs:
            inbound = kt._keras_history.layer if kt._keras_history is not None else None
            if inbound is not None:
                inbound._outbound_nodes.append(self)
        node_index = len(layer._inbound_nodes) - 1
        for i, tensor in enumerate(nest.flatten(self.outputs)):
            tensor._keras_history = KerasHistory(layer, node_index, i)
        self.flat_input_ids = [id(t) for t in self._keras_inputs]
        self.flat_output_ids = [id(t) for t in nest.flatten(self.outputs)]

    @property
    def keras_inputs(self) -> List[KerasTensor]:
        return self._keras_inputs

    @property
    def parent_nodes(self) -> List["Node"]:
        parents = []
        for kt in self._keras_inputs:
            history = kt._keras_history
            if history is not None and history.layer is not None:
                parents.append(history.layer._inbound_nodes[history.node_index])
        return parents

    def iterate_inbound(self) -> Any:
        for kt in self._keras_inputs:
            history = kt._keras_history
            yield history.layer, history.node_index, history.tensor_index, kt

    def map_arguments(self, values: Dict[int, Any]) -> tuple:
        """`(args, kwargs)` of the call with real tensors (`values[id(kt)]`) substituted."""
        flat = list(self._flat_arguments)
        for kt, index in zip(self._keras_inputs, self._keras_input_indices):
            flat[index] = values[id(kt)]
        args, kwargs = nest.pack_sequence_as((self.call_args, self.call_kwargs), flat)
        return tuple(args), dict(kwargs)

    # tf_keras's node attributes used by Model.summary() and get_config().
    @property
    def input_tensors(self) -> Any:
        if self.is_input:
            return [self.outputs]
        return self.call_args[0] if self.call_args else next(iter(self.call_kwargs.values()))

    @property
    def output_shapes(self) -> Any:
        shapes = nest.map_structure(lambda t: t.shape, self.outputs)
        if isinstance(shapes, (list, tuple)) and len(shapes) == 1:
            return shapes[0]
        return shapes

    @property
    def input_shapes(self) -> Any:
        shapes = nest.map_structure(lambda t: t.shape, self.input_tensors)
        if isinstance(shapes, (list, tuple)) and len(shapes) == 1:
            return shapes[0]
        return shapes


def dummy_value(kt: KerasTensor, unknown: int, batch: int, device: Any = None) -> torch.Tensor:
    """A concrete tensor standing in for `kt` while its layer's output shape is traced:
    ones (floats) or zeros (ints, bools), the unknown batch dim `batch`, other unknown dims
    `unknown`."""
    shape = kt.shape
    if shape.rank is None:
        raise ValueError(f"Cannot trace a layer on a symbolic input of unknown rank: {kt!r}")
    dims = [(batch if i == 0 else unknown) if d is None else d
            for i, d in enumerate(shape.as_list())]
    torch_dtype = dtypes.to_torch(kt.dtype)
    if torch_dtype.is_floating_point or torch_dtype.is_complex:
        return torch.ones(dims, dtype=torch_dtype, device=device)
    return torch.zeros(dims, dtype=torch_dtype, device=device)
