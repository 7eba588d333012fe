"""Optimizers (``weft.optimizer``) and learning-rate schedules (``weft.optimizer.lr``)."""
from . import lr
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adagrad", "RMSProp", "lr"]
