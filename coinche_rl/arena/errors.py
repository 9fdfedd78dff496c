"""The arena's exceptions (``coinche_rl.arena.errors``)."""

from __future__ import annotations

__all__ = ["ArenaError", "ResultsFileError"]


class ArenaError(ValueError):
    """A tournament that cannot be run as asked (the message says what would be right)."""


class ResultsFileError(ArenaError):
    """A results file that is not what :func:`run_duplicate` writes."""
