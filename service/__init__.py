"""crashdoc: why did my GPU training run die, and how do I fix it?"""

__version__ = "0.1.0"
