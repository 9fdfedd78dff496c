"""Agents (installed as ``coinche_rl.agents``): the interface every bot follows
(:mod:`.base`), the spec-string registry (:mod:`.registry`) and the bots."""

from .base import Agent, PlayerView, play_deal
from .registry import (AgentSpecError, Param, available_agents, describe_agents, make_agent,
                       register_agent, roster_agents)

__all__ = ["Agent", "PlayerView", "play_deal", "AgentSpecError", "Param", "available_agents",
           "describe_agents", "make_agent", "register_agent", "roster_agents"]
