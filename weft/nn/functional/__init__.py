"""Functional forms of layers, activations and losses (``weft.nn.functional``)."""
from .activation import (celu, elu, elu_, gelu, leaky_relu, log_sigmoid, log_softmax, relu,
                         relu6, relu_, selu, sigmoid, silu, softmax, softmax_, softplus, swish,
                         tanh)
from .common import dropout, embedding, label_smooth, linear, normalize, one_hot, pad
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                   kl_div, l1_loss, mse_loss, nll_loss, smooth_l1_loss,
                   softmax_with_cross_entropy, square_error_cost)
from .norm import batch_norm, layer_norm
from ...ops.creation import diag_embed

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "elu", "elu_", "selu", "celu", "gelu",
           "silu", "swish", "softplus", "log_sigmoid", "sigmoid", "tanh", "softmax", "softmax_",
           "log_softmax", "dropout", "linear", "embedding", "one_hot", "normalize",
           "label_smooth", "pad", "layer_norm", "batch_norm", "cross_entropy",
           "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "square_error_cost", "diag_embed"]
