"""Graph learning ops, as ``paddle.geometric``: message passing, segment reductions,
neighbour sampling on CSC graphs and id re-indexing."""
from .khop import khop_sampler
from .message_passing import send_u_recv, send_ue_recv, send_uv
from .reindex import reindex_graph, reindex_heter_graph
from .sampling import sample_neighbors, weighted_sample_neighbors
from .segment import segment_max, segment_mean, segment_min, segment_sum
from . import nn  # layers built on the ops above

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_max", "segment_min", "reindex_graph", "reindex_heter_graph",
           "sample_neighbors", "weighted_sample_neighbors", "khop_sampler"]
