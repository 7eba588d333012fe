"""weft's version, in one place (read by the package and by ``show_config``)."""
__version__ = "0.1.0"
