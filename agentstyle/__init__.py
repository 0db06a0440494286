"""STYLE: a declarative policy engine for AI coding agents."""

__version__ = "0.3.0"
