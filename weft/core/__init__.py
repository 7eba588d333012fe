"""Tensor, dtypes and devices: the layer everything else stands on."""
