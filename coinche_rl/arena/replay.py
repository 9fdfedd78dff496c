"""Replay (``coinche_rl.arena.replay``): a deal pair of a results file played again
through the Python agents, in every family (its :class:`~.tasks.PairPlay`)."""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from .errors import ArenaError
from .results import _team_label
from .store import load_results, stored_pair
from .tasks import cfg_family, pair_play

__all__ = ["replay_pair", "pair_runs", "PairRun"]

#: the formats of the runs whose deal pairs :func:`replay_pair` replays (``two_pair``:
#: the runs of belote for two players written before both families shared ``pair``)
PAIR_FORMATS = ("pair", "two_pair")


class PairRun(NamedTuple):
    """A run of deal pairs in a results file: its id, its configuration and how many of
    its deal pairs are finished."""
    run: str
    config: dict
    pairs: int

    @property
    def teams(self) -> Tuple[str, str]:
        """The labels of team X and team Y, as the tables print them (an agent's spec,
        or ``spec+spec`` for a partnership of two)."""
        return _team_label(self.config["x"]), _team_label(self.config["y"])


def pair_runs(path) -> List[PairRun]:
    """The runs of deal pairs of a results file (those :func:`replay_pair` replays), in
    the file's order.

    :raises ResultsFileError: no such file, or not a results file.
    """
    store = load_results(path)
    return [PairRun(run, cfg, len(store.done(run))) for run, cfg in store.runs.items()
            if cfg.get("format") in PAIR_FORMATS]


def replay_pair(path, index: int, run: Optional[str] = None) -> Tuple[List[object], dict, dict]:
    """Replay deal pair ``index`` of a results file through the Python agents.

    Returns ``(deals, row, config)``: the two finished deals (seating 0: team X at
    seats 0/2; belote for two players: A as player 0, two
    :class:`~coinche_rl.two_player.TwoPlayerDeal`), the stored row and the run's
    configuration. ``run`` picks the run when the file holds several pair runs.

    :raises ResultsFileError: no such run or pair, or several runs and none chosen.
    :raises ArenaError: an agent that cannot be seated now, or an illegal action (naming
        the agent, the action and the deal).
    """
    cfg, row = stored_pair(path, index, run)
    try:
        deals = pair_play(cfg_family(cfg)).replay(cfg, int(index))
    except ArenaError:
        raise
    except (ValueError, OSError) as e:          # weights gone or changed since the run
        raise ArenaError(f"replaying deal pair {index} of {path}: {e}") from None
    return deals, row, cfg


