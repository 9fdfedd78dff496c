"""Environments (installed as ``coinche_rl.envs``)."""

from . import coinche_v0, observation  # noqa: F401

__all__ = ["coinche_v0", "observation"]
