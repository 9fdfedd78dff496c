"""Agents (installed as ``coinche_rl.agents``): the interface every bot of every rule
family follows (:mod:`.base`), the spec-string registry keyed by family
(:mod:`.registry`) and the bots, which the package declares in the entry-point group
``coinche_rl.agents`` (``pyproject.toml``)."""

from .base import Agent, AgentSpecError, BatchedAgent, Param, PlayerView, agent_view, play_deal
from .policy import PolicyAgent
from .registry import (agent_families, available_agents, describe_agents, make_agent,
                       register_agent, roster_agents)

__all__ = ["Agent", "BatchedAgent", "PlayerView", "PolicyAgent", "agent_view", "play_deal", "AgentSpecError",
           "Param", "agent_families", "available_agents", "describe_agents", "make_agent",
           "register_agent", "roster_agents"]
