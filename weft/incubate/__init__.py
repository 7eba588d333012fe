"""Paddle's ``incubate`` namespace: experimental and legacy APIs (``incubate.autograd``,
and the deprecated graph/segment functions that now live in ``weft.geometric``)."""
from . import autograd
from .graph import (graph_khop_sampler, graph_reindex, graph_sample_neighbors, graph_send_recv,
                    segment_max, segment_mean, segment_min, segment_sum)

__all__ = ["autograd", "graph_send_recv", "graph_khop_sampler", "graph_sample_neighbors",
           "graph_reindex", "segment_sum", "segment_mean", "segment_max", "segment_min"]
