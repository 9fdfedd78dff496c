"""Replay (``coinche_rl.arena.replay``): a deal pair of a results file played again
through the Python agents."""

from __future__ import annotations

from typing import List, Optional, Tuple

from ..agents import play_deal
from ..game import Deal
from ..records import rules_from_record
from .dealsets import DealSet
from .errors import ResultsFileError
from .store import load_results
from .tasks import _seat_agents, _seatings

__all__ = ["replay_pair"]


def replay_pair(path, index: int, run: Optional[str] = None) -> Tuple[List[Deal], dict, dict]:
    """Replay deal pair ``index`` of a results file through the Python agents.

    Returns ``(deals, row, config)``: the two finished deals (seating 0: team X at
    seats 0/2), the stored row and the run's configuration. ``run`` picks the run when the
    file holds several pair runs.

    :raises ResultsFileError: no such run or pair, or several runs and none chosen.
    """
    store = load_results(path)
    pair_runs = [r for r, c in store.runs.items() if c.get("format") == "pair"]
    if run is None:
        if len(pair_runs) != 1:
            raise ResultsFileError(f"{path} holds {len(pair_runs)} deal-pair runs: choose one with "
                                   f"run= (one of {', '.join(pair_runs) or 'none'})")
        run = pair_runs[0]
    if run not in store.runs or store.runs[run].get("format") != "pair":
        raise ResultsFileError(f"{path}: no deal-pair run {run!r}; runs: {', '.join(pair_runs) or 'none'}")
    cfg = store.runs[run]
    row = store.done(run).get(int(index))
    if row is None:
        raise ResultsFileError(f"{path}: run {run} has no finished pair {index}")
    rules = rules_from_record(cfg["rules"])
    ds = DealSet(rules, cfg["seed"], cfg["frozen"])
    deals = []
    for specs4 in _seatings(cfg["x"], cfg["y"]):
        deal = ds.deal(int(index))
        play_deal(deal, _seat_agents(specs4), ds.seeds(int(index)))
        deals.append(deal)
    return deals, row, cfg
