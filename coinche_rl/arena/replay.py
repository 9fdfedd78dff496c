"""Replay (``coinche_rl.arena.replay``): a deal pair of a results file played again
through the Python agents."""

from __future__ import annotations

from typing import List, Optional, Tuple

from ..agents import play_deal
from ..game import Deal, IllegalActionError
from ..records import rules_from_record
from .dealsets import DealSet
from .errors import ArenaError
from .store import stored_pair
from .tasks import _deal_where, _illegal, _seat_agents, _seatings

__all__ = ["replay_pair"]


def replay_pair(path, index: int, run: Optional[str] = None) -> Tuple[List[Deal], dict, dict]:
    """Replay deal pair ``index`` of a results file through the Python agents.

    Returns ``(deals, row, config)``: the two finished deals (seating 0: team X at
    seats 0/2), the stored row and the run's configuration. ``run`` picks the run when the
    file holds several pair runs.

    :raises ResultsFileError: no such run or pair, or several runs and none chosen.
    :raises ArenaError: an agent that cannot be seated now, or an illegal action (naming
        the agent, the action and the deal).
    """
    cfg, row = stored_pair(path, index, run, ("pair",))
    rules = rules_from_record(cfg["rules"])
    ds = DealSet(rules, cfg["seed"], cfg["frozen"])
    deals = []
    for t, specs4 in enumerate(_seatings(cfg["x"], cfg["y"])):
        deal = ds.deal(int(index))
        agents = _seat_agents(specs4)
        try:
            play_deal(deal, agents, ds.seeds(int(index)))
        except IllegalActionError as e:
            if getattr(e, "seat", None) is None:
                raise
            raise _illegal(specs4[e.seat], e.seat, e.action, e.legal,
                           _deal_where(rules, cfg["seed"], cfg["frozen"], int(index), t)) from None
        except (ValueError, OSError) as e:          # weights gone or changed since the run
            raise ArenaError(f"replaying deal pair {index} of {path}: {e}") from None
        deals.append(deal)
    return deals, row, cfg
