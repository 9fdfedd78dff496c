"""Environments (installed as ``coinche_rl.envs``)."""
