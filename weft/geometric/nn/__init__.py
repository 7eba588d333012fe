"""Graph neural network layers (``weft.geometric.nn``) built on the fused
message-passing ops of :mod:`weft.geometric`."""
from .conv import GATConv, GCNConv, SAGEConv, edge_softmax

__all__ = ["GCNConv", "SAGEConv", "GATConv", "edge_softmax"]
