"""Core layers: `Dense`, `EinsumDense`, `Activation`, `Embedding`, `Masking`, `Lambda`,
`Identity` (and `TFOpLambda`, the layer of a TF op called on KerasTensors)."""

from .dense import Dense
from .einsum_dense import EinsumDense
from .elementwise import Activation, Identity, Masking
from .embedding import Embedding
from .lambda_layer import Lambda
from .tf_op_layers import SlicingOpLambda, TFOpLambda

__all__ = ["Dense", "EinsumDense", "Activation", "Identity", "Masking", "Embedding", "Lambda",
           "TFOpLambda", "SlicingOpLambda"]
