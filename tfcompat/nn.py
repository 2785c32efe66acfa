"""`tf.nn`: activations and losses of the TF subset (re-exports only)."""

from .ops.nn_ops import (bias_add, dropout, l2_loss, log_softmax, relu,
                         sigmoid_cross_entropy_with_logits, softmax,
                         softmax_cross_entropy_with_logits,
                         sparse_softmax_cross_entropy_with_logits)
from .ops.unary_ops import sigmoid, tanh
from .distribute.losses import compute_average_loss, scale_regularization_loss
from .ops.sort_ops import top_k

__all__ = [
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
    "l2_loss", "dropout", "bias_add", "compute_average_loss", "scale_regularization_loss",
]
__all__ += ["top_k"]
