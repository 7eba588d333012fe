"""Neural-network building blocks (the minimal training stack of api-core.md):
``Layer`` and its parameters, common layers, activations and losses as layers,
initializers, gradient clipping, and ``weft.nn.functional``."""
from . import functional, initializer, loss
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .layer import Layer
from .layers import (BatchNorm1D, BatchNorm2D, BatchNorm3D, Dropout, Embedding, LayerList,
                     LayerNorm, Linear, ParameterList, Sequential)
from .layers_act import (CELU, ELU, GELU, SELU, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss,
                         Flatten, Identity, KLDivLoss, L1Loss, LeakyReLU, LogSigmoid,
                         LogSoftmax, MSELoss, NLLLoss, ReLU, ReLU6, Sigmoid, SiLU,
                         SmoothL1Loss, Softmax, Softplus, Swish, Tanh)
from .parameter import Parameter, ParamAttr, create_parameter

__all__ = ["functional", "initializer", "loss", "Layer", "Parameter", "ParamAttr",
           "create_parameter", "Linear", "Embedding", "Dropout", "LayerNorm", "BatchNorm1D", "BatchNorm2D",
           "BatchNorm3D", "Sequential", "LayerList", "ParameterList", "ReLU", "ReLU6",
           "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Swish", "Softplus",
           "LogSigmoid", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Identity", "Flatten",
           "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "ClipGradByValue", "ClipGradByNorm",
           "ClipGradByGlobalNorm"]
