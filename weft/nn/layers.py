"""Common layers: Linear, Embedding, Dropout, LayerNorm, BatchNorm1D/2D/3D, and the
containers Sequential, LayerList and ParameterList."""
from __future__ import annotations

import collections
import numbers

from . import functional as F
from .initializer import Constant
from .layer import Layer, _check_int
from .parameter import ParamAttr, Parameter


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape ``[in_features, out_features]``
    (Paddle's layout) initialised XavierUniform, and ``bias`` ``[out_features]`` zeros
    (``bias_attr=False``: no bias).

    >>> import weft
    >>> fc = weft.nn.Linear(4, 3)
    >>> fc.weight.shape, fc(weft.ones([2, 4])).shape
    ([4, 3], [2, 3])
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self.in_features = _check_int(in_features, "Linear", "in_features")
        self.out_features = _check_int(out_features, "Linear", "out_features")
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"dtype={self._dtype.name}")


class Embedding(Layer):
    """A lookup table ``[num_embeddings, embedding_dim]`` (XavierUniform; the
    ``padding_idx`` row is zero and gets no gradient). See
    :func:`weft.nn.functional.embedding`.

    >>> import weft
    >>> emb = weft.nn.Embedding(10, 4, padding_idx=0)
    >>> emb(weft.to_tensor([[0, 3]])).shape, emb.weight[0].tolist()
    ([1, 2, 4], [0.0, 0.0, 0.0, 0.0])
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None, weight_attr=None, name=None):
        super().__init__(dtype=dtype)
        self._num_embeddings = _check_int(num_embeddings, "Embedding", "num_embeddings", 1)
        self._embedding_dim = _check_int(embedding_dim, "Embedding", "embedding_dim", 1)
        n = self._num_embeddings
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, numbers.Integral):
                raise TypeError(f"Embedding: padding_idx must be an int, got "
                                f"{type(padding_idx).__name__}")
            if not -n <= padding_idx < n:
                raise ValueError(f"Embedding: padding_idx must be in [{-n}, {n}), got "
                                 f"{padding_idx}")
            padding_idx = int(padding_idx) % n
        self._padding_idx = padding_idx
        self._max_norm = max_norm
        self._norm_type = norm_type
        self._sparse = sparse
        self._scale_grad_by_freq = scale_grad_by_freq
        if _weight is not None:
            if list(_weight.shape) != [n, self._embedding_dim]:
                raise ValueError(f"Embedding: _weight must have shape [{n}, "
                                 f"{self._embedding_dim}], got {list(_weight.shape)}")
            self.weight = Parameter._from_array(_weight._data.copy(),
                                                name=f"{self._full_name}.w_0")
        else:
            self.weight = self.create_parameter([n, self._embedding_dim], attr=weight_attr,
                                                device=device)
        if _freeze:
            self.weight.stop_gradient = True
        if padding_idx is not None:
            self.weight._data[padding_idx] = 0

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx,
                           max_norm=self._max_norm, norm_type=self._norm_type,
                           sparse=self._sparse, scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        return s + (", sparse=True" if self._sparse else "")


class Dropout(Layer):
    """:func:`weft.nn.functional.dropout` in training mode, the identity (or the
    ``downscale_in_infer`` scaling) in eval mode.

    >>> import weft
    >>> d = weft.nn.Dropout(0.5); d.eval()
    Dropout(p=0.5, axis=None, mode=upscale_in_train)
    >>> d(weft.ones([2])).tolist()
    [1.0, 1.0]
    """

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, numbers.Real):
            raise TypeError(f"Dropout: p must be a float, got {type(p).__name__}")
        if not 0 <= p <= 1:
            raise ValueError(f"Dropout: p must be in [0, 1], got {p}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"Dropout: mode must be 'upscale_in_train' or "
                             f"'downscale_in_infer', got {mode!r}")
        self.p = float(p)
        self.inplace = inplace
        self.axis = axis
        self.mode = mode

    def forward(self, x):
        return F.dropout(x, p=self.p, axis=self.axis, training=self.training,
                         inplace=self.inplace, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}"


def _affine_attrs(weight_attr, bias_attr, elementwise_affine=True, bias=True):
    if not elementwise_affine:
        weight_attr = bias_attr = False
    elif not bias:
        bias_attr = False
    return weight_attr, bias_attr


class LayerNorm(Layer):
    """Layer normalisation over the trailing ``normalized_shape`` axes, with a learnable
    ``weight`` (ones) and ``bias`` (zeros) of ``prod(normalized_shape)`` elements
    (Paddle's flattened layout); ``weight_attr``/``bias_attr=False`` drop them.

    >>> import weft
    >>> ln = weft.nn.LayerNorm(4)
    >>> ln(weft.randn([2, 4])).shape, ln.weight.shape
    ([2, 4], [4])
    """

    def __init__(self, normalized_shape, epsilon=1e-05, *, elementwise_affine=True, bias=True,
                 device=None, dtype=None, weight_attr=None, bias_attr=None, name=None):
        super().__init__(dtype=dtype)
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = [_check_int(s, "LayerNorm", "normalized_shape", 1)
                                  for s in normalized_shape]
        self._epsilon = float(epsilon)
        weight_attr, bias_attr = _affine_attrs(weight_attr, bias_attr, elementwise_affine, bias)
        n = 1
        for s in self._normalized_shape:
            n *= s
        self.weight = self.create_parameter([n], attr=weight_attr,
                                            default_initializer=Constant(1.0), device=device)
        self.bias = self.create_parameter([n], attr=bias_attr, is_bias=True, device=device)

    def forward(self, x):
        return F.layer_norm(x, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class _BatchNormBase(Layer):
    _formats = ()
    _ndims = ()

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__()
        cls = type(self).__name__
        self._num_features = _check_int(num_features, cls, "num_features", 1)
        if data_format not in self._formats:
            raise ValueError(f"{cls}: data_format must be one of {', '.join(self._formats)}, "
                             f"got {data_format!r}")
        self._momentum = float(momentum)
        self._epsilon = float(epsilon)
        self._data_format = data_format
        self._use_global_stats = use_global_stats
        c = self._num_features
        # weight_attr/bias_attr=False: fixed scale 1 / shift 0 that do not train (Paddle)
        w_attr = ParamAttr(initializer=Constant(1.0), trainable=False) if weight_attr is False \
            else weight_attr
        b_attr = ParamAttr(initializer=Constant(0.0), trainable=False) if bias_attr is False \
            else bias_attr
        self.weight = self.create_parameter([c], attr=w_attr, default_initializer=Constant(1.0))
        self.bias = self.create_parameter([c], attr=b_attr, is_bias=True)
        # running statistics are non-trainable parameters in Paddle (state keys _mean and
        # _variance), updated in place by the forward pass in training mode
        self._mean = self.create_parameter(
            [c], attr=ParamAttr(initializer=Constant(0.0), trainable=False))
        self._variance = self.create_parameter(
            [c], attr=ParamAttr(initializer=Constant(1.0), trainable=False))

    def forward(self, x):
        if x.ndim not in self._ndims:
            want = " or ".join(f"{d}-D" for d in self._ndims)
            raise ValueError(f"{type(self).__name__}: expected {want} input, got shape "
                             f"{x.shape}")
        return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        return (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}, data_format={self._data_format}")


class BatchNorm1D(_BatchNormBase):
    """Batch normalisation of ``[N, C]`` or ``[N, C, L]`` input (``NLC``: channels last).
    Training uses batch statistics and updates ``_mean``/``_variance`` with
    ``running = momentum * running + (1 - momentum) * batch`` (biased batch variance,
    Paddle's convention); eval mode uses the running statistics.

    >>> import weft
    >>> bn = weft.nn.BatchNorm1D(3)
    >>> bn(weft.randn([8, 3])).shape, list(bn.state_dict())
    ([8, 3], ['weight', 'bias', '_mean', '_variance'])
    """

    _formats = ("NC", "NCL", "NLC")
    _ndims = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalisation of ``[N, C, H, W]`` (or ``NHWC``) input."""

    _formats = ("NCHW", "NHWC")
    _ndims = (4,)


class BatchNorm3D(_BatchNormBase):
    """Batch normalisation of ``[N, C, D, H, W]`` (or ``NDHWC``) input."""

    _formats = ("NCDHW", "NDHWC")
    _ndims = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


# ---------------------------------------------------------------------------------
# containers

def _index(i, n, cls):
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise TypeError(f"{cls}: index must be an int or a slice, got {type(i).__name__}")
    if not -n <= i < n:
        raise IndexError(f"{cls}: index {i} is out of range for {n} sublayers")
    return int(i) % n


class Sequential(Layer):
    """Layers applied in order. Build from layers (named ``"0"``, ``"1"``, ...), from
    ``(name, layer)`` pairs, or from an ordered dict.

    >>> import weft
    >>> net = weft.nn.Sequential(weft.nn.Linear(2, 4), weft.nn.ReLU(), weft.nn.Linear(4, 1))
    >>> net(weft.ones([3, 2])).shape, len(net), type(net[1]).__name__
    ([3, 1], 3, 'ReLU')
    """

    def __init__(self, *layers):
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], collections.OrderedDict):
            layers = tuple(layers[0].items())
        if layers and isinstance(layers[0], (list, tuple)):
            for item in layers:
                if not isinstance(item, (list, tuple)) or len(item) != 2:
                    raise TypeError("Sequential: give layers, or (name, layer) pairs, not a mix")
                self.add_sublayer(str(item[0]), item[1])
        else:
            for i, layer in enumerate(layers):
                if not isinstance(layer, Layer):
                    raise TypeError(f"Sequential: argument {i} must be a Layer, got "
                                    f"{type(layer).__name__}")
                self.add_sublayer(str(i), layer)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Sequential(*list(self._sub_layers.values())[i])
        if isinstance(i, str):
            return self._sub_layers[i]
        keys = list(self._sub_layers)
        return self._sub_layers[keys[_index(i, len(keys), "Sequential")]]

    def __setitem__(self, i, layer):
        keys = list(self._sub_layers)
        self.add_sublayer(keys[_index(i, len(keys), "Sequential")], layer)

    def __delitem__(self, i):
        keys = list(self._sub_layers)
        targets = keys[i] if isinstance(i, slice) else [keys[_index(i, len(keys), "Sequential")]]
        for k in targets:
            del self._sub_layers[k]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer):
        """Add ``layer`` at the end (named by its position)."""
        self.add_sublayer(str(len(self._sub_layers)), layer)
        return self

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x


class LayerList(Layer):
    """A list of sublayers registered as ``"0"``, ``"1"``, ... (their parameters are the
    list's parameters).

    >>> import weft
    >>> ll = weft.nn.LayerList([weft.nn.Linear(2, 2) for _ in range(3)])
    >>> len(ll), len(ll.parameters())
    (3, 6)
    """

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            for layer in sublayers:
                self.append(layer)

    def _reindex(self, layers):
        self._sub_layers.clear()
        for i, layer in enumerate(layers):
            self._sub_layers[str(i)] = layer

    def __getitem__(self, i):
        layers = list(self._sub_layers.values())
        if isinstance(i, slice):
            return LayerList(layers[i])
        return layers[_index(i, len(layers), "LayerList")]

    def __setitem__(self, i, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"LayerList: items must be Layers, got {type(layer).__name__}")
        layers = list(self._sub_layers.values())
        layers[_index(i, len(layers), "LayerList")] = layer
        self._reindex(layers)

    def __delitem__(self, i):
        layers = list(self._sub_layers.values())
        if isinstance(i, slice):
            del layers[i]
        else:
            del layers[_index(i, len(layers), "LayerList")]
        self._reindex(layers)

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList: items must be Layers, got {type(sublayer).__name__}")
        self.add_sublayer(str(len(self._sub_layers)), sublayer)
        return self

    def insert(self, index, sublayer):
        if not isinstance(sublayer, Layer):
            raise TypeError(f"LayerList: items must be Layers, got {type(sublayer).__name__}")
        layers = list(self._sub_layers.values())
        n = len(layers)
        if not -n <= index <= n:
            raise IndexError(f"LayerList: insert index {index} is out of range for {n} "
                             "sublayers")
        layers.insert(index, sublayer)
        self._reindex(layers)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self

    def forward(self, *args, **kwargs):
        raise NotImplementedError("LayerList has no forward(); iterate over its layers")


class ParameterList(Layer):
    """A list of parameters registered as ``"0"``, ``"1"``, ...

    >>> import weft
    >>> pl = weft.nn.ParameterList([weft.nn.parameter.create_parameter([2], 'float32')])
    >>> len(pl), len(pl.parameters())
    (1, 1)
    """

    def __init__(self, parameters=None):
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def __getitem__(self, i):
        ps = list(self._parameters.values())
        return ps[_index(i, len(ps), "ParameterList")]

    def __setitem__(self, i, p):
        keys = list(self._parameters)
        self.add_parameter(keys[_index(i, len(keys), "ParameterList")], p)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self._parameters)), parameter)
        return self


__all__ = ["Linear", "Embedding", "Dropout", "LayerNorm", "BatchNorm1D", "BatchNorm2D",
           "BatchNorm3D", "Sequential", "LayerList", "ParameterList"]
