"""The loss layers under Paddle's module path ``paddle.nn.loss`` (the same classes as
``weft.nn.CrossEntropyLoss`` and friends).

>>> import weft
>>> weft.nn.loss.MSELoss is weft.nn.MSELoss
True
"""
from .layers_act import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, KLDivLoss, L1Loss,
                         MSELoss, NLLLoss, SmoothL1Loss)

__all__ = ["CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss"]
