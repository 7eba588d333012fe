"""Batch normalisation of the stored values of sparse tensors: BatchNorm and
SyncBatchNorm (api-sparse.md §5).

A COO tensor with ``dense_dim() == 1`` holds values ``[nnz, C]``; the layer is the
dense ``BatchNorm1D`` applied to those rows (statistics over stored rows only) and
keeps the input's indices. Parameters ``weight``/``bias`` and buffers
``_mean``/``_variance`` are the dense layer's, so state dicts carry over.
"""
from __future__ import annotations

from ....nn import functional as _F
from ....nn.layers import _BatchNormBase
from ...convert import coalesce, values
from ...tensor import SparseCooTensor, SparseCsrTensor


class BatchNorm(_BatchNormBase):
    """Batch normalisation of the stored values ``[nnz, C]`` of a COO tensor (channels
    last, ``C = num_features``); training uses the statistics of the stored rows and
    updates ``_mean``/``_variance`` as the dense BatchNorm1D does.

    >>> import weft
    >>> x = weft.sparse.sparse_coo_tensor([[0, 1]], [[1.0], [3.0]], [4, 1])
    >>> bn = weft.sparse.nn.BatchNorm(1)
    >>> [round(v[0], 4) for v in bn(x).values().tolist()], list(bn.state_dict())
    ([-1.0, 1.0], ['weight', 'bias', '_mean', '_variance'])
    """

    _formats = ("NDHWC", "NHWC", "NLC", "NC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NDHWC", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def forward(self, x):
        cls = type(self).__name__
        if isinstance(x, SparseCsrTensor):
            raise NotImplementedError(f"{cls}: CSR input is not supported; convert it with "
                                      "to_sparse_coo(sparse_dim) so that the channels are a "
                                      "dense axis")
        if not isinstance(x, SparseCooTensor):
            raise TypeError(f"{cls}: x must be a SparseCooTensor, got {type(x).__name__}")
        if x.dense_dim() != 1:
            raise ValueError(f"{cls}: x must have dense_dim() == 1 (values [nnz, C]), got "
                             f"dense_dim {x.dense_dim()} (shape {x.shape})")
        if x._shape[-1] != self._num_features:
            raise ValueError(f"{cls}: x has {x._shape[-1]} channels but num_features is "
                             f"{self._num_features}")
        if not x._coalesced:
            x = coalesce(x)  # duplicates are one site: normalise their sum
        y = _F.batch_norm(values(x), self._mean, self._variance, self.weight, self.bias,
                          training=self.training, momentum=self._momentum,
                          epsilon=self._epsilon, data_format="NC",
                          use_global_stats=self._use_global_stats)
        return x._with_values(y)


class SyncBatchNorm(BatchNorm):
    """:class:`BatchNorm` with Paddle's SyncBatchNorm signature. weft has no collective
    backend: in one process the statistics are those of the local batch, which is
    exactly BatchNorm.

    >>> import weft
    >>> net = weft.nn.Sequential(weft.sparse.nn.BatchNorm(2))
    >>> type(weft.sparse.nn.SyncBatchNorm.convert_sync_batchnorm(net)[0]).__name__
    'SyncBatchNorm'
    """

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        # Paddle's default 'NCHW' names the dense layout; sparse values are channel-last
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", None,
                         name)
        self._data_format = data_format

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """``layer`` with every sparse :class:`BatchNorm` sublayer (or ``layer`` itself)
        replaced by a SyncBatchNorm holding the same parameters and statistics."""
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            new = cls(layer._num_features, layer._momentum, layer._epsilon)
            new.weight, new.bias = layer.weight, layer.bias
            new._mean, new._variance = layer._mean, layer._variance
            new.training = layer.training
            return new
        for name, sub in list(layer._sub_layers.items()):
            layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


__all__ = ["BatchNorm", "SyncBatchNorm"]
