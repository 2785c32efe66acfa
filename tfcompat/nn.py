"""`tf.nn`: activations and losses of the TF subset (re-exports only)."""

from .ops.nn_ops import (bias_add, dropout, l2_loss, log_softmax, relu,
                         sigmoid_cross_entropy_with_logits, softmax,
                         softmax_cross_entropy_with_logits,
                         sparse_softmax_cross_entropy_with_logits)
from .ops.unary_ops import sigmoid, tanh
from .distribute.losses import compute_average_loss, scale_regularization_loss
from .ops.activation_ops import elu, gelu, leaky_relu, relu6, selu, silu, swish
from .ops.conv_ops import (conv1d, conv1d_transpose, conv2d, conv2d_transpose, conv3d,
                          conv3d_transpose, conv_transpose, convolution, depthwise_conv2d,
                          separable_conv2d)
from .ops.ctc_ops import ctc_loss
from .ops.embedding_ops import embedding_lookup
from .ops.sampled_loss_ops import compute_accidental_hits, sampled_softmax_loss
from .ops.normalization_ops import batch_normalization, l2_normalize, moments, weighted_moments
from .ops.pooling_ops import (avg_pool, avg_pool1d, avg_pool2d, avg_pool3d, max_pool, max_pool1d,
                              max_pool2d, max_pool3d, pool)
from .ops.sort_ops import top_k

__all__ = [
    "relu", "sigmoid", "tanh", "softmax", "log_softmax", "softmax_cross_entropy_with_logits",
    "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
    "l2_loss", "dropout", "bias_add", "compute_average_loss", "scale_regularization_loss",
]

# -- nn ops (issue 9, engineer F) --
__all__ += [
    "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish",
    "moments", "weighted_moments", "batch_normalization", "l2_normalize",
    "conv1d", "conv2d", "conv2d_transpose", "depthwise_conv2d", "separable_conv2d",
    "max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "pool", "embedding_lookup", "sampled_softmax_loss", "compute_accidental_hits",
    "ctc_loss", "conv3d", "convolution",
]
__all__ += ["top_k", "conv1d_transpose", "conv3d_transpose", "conv_transpose"]

# -- math ops also in tf.nn (issue 9, engineer D) --
from .ops.counting_ops import in_top_k
from .ops.reduction_math_ops import approx_max_k, approx_min_k
from .ops.unary_math_ops import softplus, softsign
__all__ += ["softplus", "softsign", "in_top_k", "approx_max_k", "approx_min_k"]
