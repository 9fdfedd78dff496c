"""The ``random`` agent: a uniformly random legal action from its own seeded stream."""

from __future__ import annotations

from .base import Agent, PlayerView
from .registry import register_agent

__all__ = ["RandomAgent"]


class RandomAgent(Agent):
    """Uniform over the legal actions, drawn from ``self.rng`` (seeded by ``reset``)."""

    def act(self, view: PlayerView) -> int:
        legal = view.legal_actions
        return int(legal[self.rng.integers(len(legal))])


register_agent("random", RandomAgent, {}, "uniformly random legal action")
