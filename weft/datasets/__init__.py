"""Small graph datasets: the Planetoid citation graphs shipped with weft
(:class:`Planetoid`) and random graphs of any size (:func:`synthetic_graph`)."""
from .planetoid import GraphData, Planetoid
from .synthetic import SyntheticGraph, synthetic_graph

__all__ = ["Planetoid", "synthetic_graph", "GraphData", "SyntheticGraph"]
