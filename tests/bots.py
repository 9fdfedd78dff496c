"""Whether the numba bots are there (the arena and tournament tests): ``HAS_BOTS`` and
the ``needs_bots`` skip marker."""

import pytest

from coinche_rl.agents import AgentSpecError, make_agent


def _has_bots() -> bool:
    try:
        return all(make_agent(s).numba_bot is not None for s in ("random", "heuristic"))
    except AgentSpecError:          # no heuristic registered
        return False


HAS_BOTS = _has_bots()
needs_bots = pytest.mark.skipif(not HAS_BOTS, reason="the numba bots are not available")
