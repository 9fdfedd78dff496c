"""The ``random`` agent: a uniformly random legal action from its own seeded stream.

It is the numba bot :data:`~coinche_rl.agents.numba_bots.BOT_RANDOM` behind the agent
interface, in every family: :meth:`act` draws from the seat's splitmix64 stream (seeded by ``reset``),
exactly as :func:`~coinche_rl.agents.numba_bots.play_deals` does for that seat.
"""

from __future__ import annotations

from .numba_bots import BOT_RANDOM, NumbaBotAgent

__all__ = ["RandomAgent"]


class RandomAgent(NumbaBotAgent):
    """Uniform over the legal actions, drawn from ``self.rng`` (seeded by ``reset``)."""

    FAMILIES = ("coinche", "classic", "two")
    DESCRIPTION = "uniformly random legal action"
    PARAMS = {}
    numba_bot = BOT_RANDOM


