"""Agents (installed as ``coinche_rl.agents``)."""
