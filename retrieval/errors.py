"""Retrieval's own errors. It imports nothing from ``service/``; the pipeline's ``Engine`` translates them.

    RetrievalError          retrieval cannot work as configured; the message says what, the hint what to do
    ├── KBError             a kb/ entry is malformed: the message names the file and the problem
    └── EncoderError        the embedding model or backend cannot be loaded
"""

from __future__ import annotations


class RetrievalError(Exception):
    """Base of retrieval's errors: a message and a hint, like the service's error tree."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class KBError(RetrievalError):
    """An entry of kb/ is malformed; the message names the file and the problem."""


class EncoderError(RetrievalError):
    """The embedding model or backend is not installed or cannot be loaded."""
