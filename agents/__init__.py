"""Agents (installed as ``coinche_rl.agents``): the interface every bot follows
(:mod:`.base`), the spec-string registry (:mod:`.registry`) and the bots, which the
package declares in the entry-point group ``coinche_rl.agents`` (``pyproject.toml``)."""

from .base import Agent, AgentSpecError, BatchedAgent, Param, PlayerView, play_deal
from .registry import (available_agents, describe_agents, make_agent, register_agent,
                       roster_agents)

__all__ = ["Agent", "BatchedAgent", "PlayerView", "play_deal", "AgentSpecError", "Param",
           "available_agents", "describe_agents", "make_agent", "register_agent", "roster_agents"]
