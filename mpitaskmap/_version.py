"""The package version, one definition (read by ``mpitaskmap.__version__`` and the command line)."""

__version__ = "0.1.0"
