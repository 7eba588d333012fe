"""Activation and loss functions as layers (thin wrappers of ``weft.nn.functional``)."""
from __future__ import annotations

from ..ops.shape.views import flatten
from . import functional as F
from .functional._util import check_reduction
from .layer import Layer


class _Act(Layer):
    _fn = None
    _args = ()

    def __init__(self, *args, name=None, **kwargs):
        super().__init__()
        names = self._args
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes at most {len(names)} positional "
                            f"arguments, got {len(args)}")
        vals = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{type(self).__name__}: unexpected argument {k!r}")
            vals[k] = v
        self._kw = {k: vals[k] for k in names if k in vals}

    def forward(self, x):
        return type(self)._fn(x, **self._kw)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._kw.items())


def _act(cls_name, fn, args=(), doc=""):
    cls = type(cls_name, (_Act,), {"_fn": staticmethod(fn), "_args": args, "__doc__": doc})
    cls.__module__ = __name__
    return cls


ReLU = _act("ReLU", F.relu, doc="""``max(x, 0)`` as a layer.

    >>> import weft
    >>> weft.nn.ReLU()(weft.to_tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """)
ReLU6 = _act("ReLU6", F.relu6, doc="``min(max(x, 0), 6)`` as a layer.")
LeakyReLU = _act("LeakyReLU", F.leaky_relu, ("negative_slope",),
                 "Leaky ReLU with ``negative_slope`` (default 0.01).")
ELU = _act("ELU", F.elu, ("alpha",), "ELU with ``alpha`` (default 1.0).")
SELU = _act("SELU", F.selu, ("scale", "alpha"), "SELU.")
CELU = _act("CELU", F.celu, ("alpha",), "CELU with ``alpha`` (default 1.0).")
GELU = _act("GELU", F.gelu, ("approximate",), "GELU (exact, or tanh-approximate).")
SiLU = _act("SiLU", F.silu, (), "``x * sigmoid(x)``.")
Swish = _act("Swish", F.silu, (), "``x * sigmoid(x)``.")
Softplus = _act("Softplus", F.softplus, ("beta", "threshold"), "Softplus.")
LogSigmoid = _act("LogSigmoid", F.log_sigmoid, (), "``log(sigmoid(x))``.")
Sigmoid = _act("Sigmoid", F.sigmoid, (), "Logistic sigmoid.")
Tanh = _act("Tanh", F.tanh, (), "Hyperbolic tangent.")
Softmax = _act("Softmax", F.softmax, ("axis",), """Softmax along ``axis`` (default -1).

    >>> import weft
    >>> weft.nn.Softmax()(weft.zeros([2])).tolist()
    [0.5, 0.5]
    """)
LogSoftmax = _act("LogSoftmax", F.log_softmax, ("axis",), "Log-softmax along ``axis``.")


class Identity(Layer):
    """Returns its input unchanged."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x


class Flatten(Layer):
    """Flatten axes ``start_axis`` to ``stop_axis`` into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, x):
        return flatten(x, self.start_axis, self.stop_axis)


# ---------------------------------------------------------------------------------
# losses

class CrossEntropyLoss(Layer):
    """:func:`weft.nn.functional.cross_entropy` as a layer.

    >>> import weft
    >>> loss = weft.nn.CrossEntropyLoss()
    >>> round(loss(weft.zeros([2, 4]), weft.to_tensor([0, 3])).item(), 4)
    1.3863
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        check_reduction(reduction, "CrossEntropyLoss")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction
        self.soft_label, self.axis, self.use_softmax = soft_label, axis, use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, soft_label=self.soft_label,
                               axis=self.axis, use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing)


class NLLLoss(Layer):
    """:func:`weft.nn.functional.nll_loss` as a layer."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        check_reduction(reduction, "NLLLoss")
        self.weight, self.ignore_index, self.reduction = weight, ignore_index, reduction

    def forward(self, input, label):
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class _Reduced(Layer):
    _fn = None

    def __init__(self, reduction="mean", name=None):
        super().__init__()
        check_reduction(reduction, type(self).__name__)
        self.reduction = reduction

    def forward(self, input, label):
        return type(self)._fn(input, label, reduction=self.reduction)


class MSELoss(_Reduced):
    """:func:`weft.nn.functional.mse_loss` as a layer."""

    _fn = staticmethod(F.mse_loss)


class L1Loss(_Reduced):
    """:func:`weft.nn.functional.l1_loss` as a layer."""

    _fn = staticmethod(F.l1_loss)


class SmoothL1Loss(Layer):
    """:func:`weft.nn.functional.smooth_l1_loss` as a layer."""

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        check_reduction(reduction, "SmoothL1Loss")
        self.reduction, self.delta, self.is_huber = reduction, delta, is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber)


class BCELoss(Layer):
    """:func:`weft.nn.functional.binary_cross_entropy` as a layer."""

    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        check_reduction(reduction, "BCELoss")
        self.weight, self.reduction = weight, reduction

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(Layer):
    """:func:`weft.nn.functional.binary_cross_entropy_with_logits` as a layer."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        check_reduction(reduction, "BCEWithLogitsLoss")
        self.weight, self.reduction, self.pos_weight = weight, reduction, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(Layer):
    """:func:`weft.nn.functional.kl_div` as a layer."""

    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        check_reduction(reduction, "KLDivLoss", ("mean", "batchmean", "sum", "none"))
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction, self.log_target)


__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Swish",
           "Softplus", "LogSigmoid", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Identity",
           "Flatten", "CrossEntropyLoss", "NLLLoss", "MSELoss", "L1Loss", "SmoothL1Loss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]
