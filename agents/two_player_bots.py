"""The former names of belote for two players' numba bots (``coinche_rl.agents.
two_player_bots``), kept working: the bots of every family are in
:mod:`coinche_rl.agents.numba_bots` (bot ids, :func:`~.numba_bots.play_deals`,
:func:`~.numba_bots.batch_bot_actions`, the agents) and the heuristic's rules in
:mod:`coinche_rl.agents.heuristic_two`. A weight vector given here may differ from
``HEURISTIC_WEIGHTS`` in its prise margins only (they travel in the bot id).
"""

from __future__ import annotations

import numpy as np

from ..actions import N_ACTIONS
from .heuristic_two import (HEURISTIC_WEIGHTS, N_WEIGHTS, W_PRISE, W_PRISE_DECOUVERTE,
                            excluded_cards)
from .numba_bots import (BOT_HEURISTIC, BOT_RANDOM, NumbaBotAgent, TwoHeuristicAgent,
                         batch_bot_actions, game_bot_action, heuristic_two_bot, play_deals)
from .random_agent import RandomAgent

__all__ = ["TWO_RANDOM", "TWO_HEURISTIC", "HEURISTIC_WEIGHTS", "N_WEIGHTS", "two_bot_action",
           "two_play_deals", "W_PRISE", "W_PRISE_DECOUVERTE", "excluded_cards", "TwoBotAgent",
           "batch_two_bot_actions", "TwoRandomAgent", "TwoHeuristicAgent", "warmup"]

TWO_RANDOM, TWO_HEURISTIC = BOT_RANDOM, BOT_HEURISTIC
TwoRandomAgent = RandomAgent
_BUF = np.zeros(N_ACTIONS, dtype=np.uint8)


def _bot_id(bot: int, W) -> int:
    """Bot ``bot`` with the weights ``W`` (prise margins only) as a bot id."""
    W = np.asarray(HEURISTIC_WEIGHTS if W is None else W, dtype=np.float64)
    if (np.delete(W, [W_PRISE, W_PRISE_DECOUVERTE])
            != np.delete(HEURISTIC_WEIGHTS, [W_PRISE, W_PRISE_DECOUVERTE])).any():
        raise ValueError("only the prise margins of the heuristic's weights can be changed")
    if int(bot) != BOT_HEURISTIC:
        return int(bot)
    return heuristic_two_bot(float(W[W_PRISE]), float(W[W_PRISE_DECOUVERTE]))


def two_bot_action(bot, V, P, me, rng, W) -> int:
    """:func:`~.numba_bots.game_bot_action` of bot ``bot`` with the weights ``W``."""
    return game_bot_action(_bot_id(bot, W), V, P, me, rng, _BUF)


def two_play_deals(P, states, bots, W, seeds) -> int:
    """:func:`~.numba_bots.play_deals` with bot ``bots[p]`` (weights ``W[p]``) at player ``p``."""
    ids = np.array([_bot_id(b, w) for b, w in zip(bots, W)], dtype=np.int64)
    return play_deals(P, states, ids, seeds)


def batch_two_bot_actions(bot, W, states, P, players, out) -> None:
    """:func:`~.numba_bots.batch_bot_actions` of bot ``bot`` with the weights ``W``."""
    batch_bot_actions(np.int64(_bot_id(bot, W)), states, P, players, out)


class TwoBotAgent(NumbaBotAgent):
    """A numba bot agent of belote for two players built from a bot and weights."""

    FAMILIES = ("two",)

    def __init__(self, bot: int, weights: np.ndarray = None):
        super().__init__(_bot_id(bot, weights))
        self.bot_weights = np.array(HEURISTIC_WEIGHTS if weights is None else weights,
                                    dtype=np.float64)

    def params_of(self, view) -> np.ndarray:
        """The rule vector of ``view``."""
        return view.params


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the family's
#: engine, in its chain
WARMUP_AFTER = ("coinche_rl.engine.two",)


def warmup() -> None:
    """Compile (or load from the cache) the bots of belote for two players."""
    from .numba_bots import warmup_two
    warmup_two()
