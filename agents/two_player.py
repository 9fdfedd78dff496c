"""Agents for belote for two players (``coinche_rl.agents.two_player``): the interface,
the ``random`` and ``heuristic`` agents, their registry and :func:`play_two_deal`.

The interface is the four-player one (:mod:`coinche_rl.agents.base`) made smaller: a
:class:`TwoPlayerAgent` is given

1. ``agent.reset(player, rules, seed)`` before each deal: its player (0 or 1), the rule
   set (family ``two``) and a seed for its own random stream;
2. ``agent.act(view) -> action id`` when it is to act, where ``view`` is the player's
   :class:`~coinche_rl.two_player.TwoPlayerView` (``deal.view(player)``): what he may
   know, the legal-action mask and the public view vector (``view.state``), which numba
   bots read directly. The view holds the whole public history (prise, exchange,
   tricks), so there is no ``observe``.

An agent never sees the deal, so it cannot read a face-down card or the other hand.
Agents are built from spec strings, as the four-player ones are (``"random"``,
``"heuristic:prise=4.5"``, ``"my_agents:MyTwoPlayerBot"``): :func:`make_two_player_agent`,
or :func:`coinche_rl.agents.make_agent` with ``family="two"``. A four-player agent
(``nn``, ``colver``, an :class:`~coinche_rl.agents.base.Agent` subclass) is refused with
a message that says so, and the four-player registry refuses a two-player agent.

>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_a_deux", seed=7, dealer=1)
>>> agents = [make_two_player_agent("heuristic"), make_two_player_agent("random")]
>>> result = play_two_deal(deal, agents, seeds=[1, 2])
>>> deal.is_terminal and result.scores == deal.scores
True
>>> make_two_player_agent("nn")
Traceback (most recent call last):
...
coinche_rl.agents.base.AgentSpecError: agent 'nn' plays the four-player game ...
"""

from __future__ import annotations

import abc
from typing import Dict, Optional, Sequence

import numpy as np

from ..actions import N_ACTIONS, action_to_str
from ..engine.bits import rng_seed, seed_int64
from ..game import IllegalActionError
from ..rules import RuleSet, params_vector
from ..two_player import TwoPlayerDeal, TwoPlayerResult, TwoPlayerView
from .base import Param
from .registry import (available_two_player_agents, describe_two_player_agents,
                       make_two_player_agent, register_two_player_agent)
from .two_player_bots import (HEURISTIC_WEIGHTS, TWO_HEURISTIC, TWO_RANDOM, W_PRISE,
                              W_PRISE_DECOUVERTE, two_bot_action)

__all__ = ["TwoPlayerAgent", "TwoPlayerBotAgent", "TwoRandomAgent", "TwoHeuristicAgent",
           "make_two_player_agent", "register_two_player_agent", "available_two_player_agents",
           "describe_two_player_agents", "play_two_deal", "FAMILY"]

#: the rule family these agents play
FAMILY = "two"


class TwoPlayerAgent(abc.ABC):
    """Base class of the agents of belote for two players (module docstring).

    :meth:`reset` stores ``player``, ``rules``, ``seed`` and a seeded
    ``numpy.random.Generator`` in ``self.rng``; subclasses implement :meth:`act`.
    ``two_bot`` is the id of an equivalent numba bot
    (:mod:`coinche_rl.agents.two_player_bots`) with its weights ``two_weights``, or None:
    tournaments between such agents run entirely in numba, with the same choices as
    through :meth:`act`.
    """

    #: the rule family (a four-player harness refuses these agents)
    FAMILY = FAMILY
    #: the parameters of its spec, as :attr:`coinche_rl.agents.base.Agent.PARAMS`
    PARAMS: Optional[Dict[str, Param]] = None
    #: one line for the listings
    DESCRIPTION: str = ""

    name: str = "agent"
    spec: str = "agent"
    #: id of the equivalent numba bot, or None
    two_bot: Optional[int] = None
    #: the numba bot's weights (float64 vector)
    two_weights: Optional[np.ndarray] = None

    def __init__(self):
        self.player = 0
        self.rules: Optional[RuleSet] = None
        self.seed = 0
        self.rng = np.random.default_rng(0)

    def check_rules(self, rules: RuleSet) -> None:
        """Raise ValueError, saying why, when this agent cannot play ``rules`` as its spec
        asks (the family; subclasses: a parameter those rules never read). Called by
        :meth:`reset` and by the tournaments before anything is played."""
        if rules.family != FAMILY:
            raise ValueError(f"{type(self).__name__} plays belote for two players (family "
                             f"'two'), not the rules {rules.name!r} (family {rules.family!r})")

    def reset(self, player: int, rules: RuleSet, seed: int) -> None:
        """Prepare for a new deal as ``player`` under ``rules``, random stream ``seed``."""
        self.check_rules(rules)
        self.player = int(player)
        self.rules = rules
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    @abc.abstractmethod
    def act(self, view: TwoPlayerView) -> int:
        """The action id to take (legal in ``view.legal``)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


class TwoPlayerBotAgent(TwoPlayerAgent):
    """An agent that plays numba bot :attr:`two_bot` on the view vector. :meth:`reset`
    seeds ``self.rng`` (uint64[1], splitmix64) with ``rng_seed(rng, seed, 0)``, as
    :func:`~coinche_rl.agents.two_player_bots.two_play_deals` seeds each player."""

    def __init__(self, bot: int, weights: Optional[np.ndarray] = None):
        super().__init__()
        self.two_bot = int(bot)
        self.two_weights = np.array(HEURISTIC_WEIGHTS if weights is None else weights,
                                    dtype=np.float64)
        self.rng = np.zeros(1, dtype=np.uint64)
        self._P = None

    def reset(self, player: int, rules: RuleSet, seed: int) -> None:
        super().reset(player, rules, seed)
        self.rng = np.zeros(1, dtype=np.uint64)
        rng_seed(self.rng, seed_int64(seed), 0)
        self._P = params_vector(rules)

    def act(self, view: TwoPlayerView) -> int:
        P = self._P if self._P is not None and self.rules == view.rules else params_vector(view.rules)
        return int(two_bot_action(self.two_bot, view.state, P, view.player, self.rng,
                                  self.two_weights))


class TwoRandomAgent(TwoPlayerBotAgent):
    """Uniform over the legal actions, from its seeded stream."""

    DESCRIPTION = "uniformly random legal action"
    PARAMS: Dict[str, Param] = {}

    def __init__(self):
        super().__init__(TWO_RANDOM)


class TwoHeuristicAgent(TwoPlayerBotAgent):
    """The rule-based heuristic of :mod:`coinche_rl.agents.two_player_bots`."""

    DESCRIPTION = ("rule-based player in numba: prise on trump strength against the visible "
                   "cards, exchange of the 7, masters, trump drawing, cheap wins, low "
                   "discards, uncovering face-down cards")
    PARAMS = {
        "prise": Param(float, float(HEURISTIC_WEIGHTS[W_PRISE]),
                       "belote à deux: the strength margin to take or name (lower: takes "
                       "more readily)", min=-20.0, max=30.0),
        "prise_decouverte": Param(float, float(HEURISTIC_WEIGHTS[W_PRISE_DECOUVERTE]),
                                  "belote découverte: the same", min=-20.0, max=30.0),
    }

    def __init__(self, prise: float = float(HEURISTIC_WEIGHTS[W_PRISE]),
                 prise_decouverte: float = float(HEURISTIC_WEIGHTS[W_PRISE_DECOUVERTE])):
        w = HEURISTIC_WEIGHTS.copy()
        w[W_PRISE] = prise
        w[W_PRISE_DECOUVERTE] = prise_decouverte
        super().__init__(TWO_HEURISTIC, w)

    def check_rules(self, rules: RuleSet) -> None:
        """A prise margin changed from its default for the other preset (``prise`` is
        read with a hand, ``prise_decouverte`` without) would change nothing: refused."""
        super().check_rules(rules)
        if rules.hand_cards:
            unread, slot, game, read = ("prise_decouverte", W_PRISE_DECOUVERTE, "découverte",
                                        "prise")
        else:
            unread, slot, game, read = "prise", W_PRISE, "à deux", "prise_decouverte"
        if self.two_weights[slot] != HEURISTIC_WEIGHTS[slot]:
            raise ValueError(f"heuristic: {unread} is not read under the rules {rules.name!r} "
                             f"(it is the belote {game} prise margin); set {read} instead")


# ------------------------------------------------------------------------- playing
def play_two_deal(deal: TwoPlayerDeal, agents: Sequence[TwoPlayerAgent],
                  seeds: Sequence[int]) -> TwoPlayerResult:
    """Play ``deal`` to its end with ``agents[p]`` as player ``p`` (reset with
    ``seeds[p]``), each deciding from ``deal.view(p)`` only.

    :raises coinche_rl.game.IllegalActionError: an agent chose an illegal action (the
        message names the agent and the legal actions; ``.player``, ``.action``).
    """
    if len(agents) != 2 or len(seeds) != 2:
        raise ValueError("play_two_deal needs 2 agents and 2 seeds, one per player")
    for p, (agent, seed) in enumerate(zip(agents, seeds)):
        agent.reset(p, deal.rules, int(seed))
    while not deal.is_terminal:
        p = deal.current_player
        view = deal.view(p)
        a = agents[p].act(view)
        try:
            a = int(a)
        except (TypeError, ValueError):
            a = -1
        if not (0 <= a < N_ACTIONS and view.legal[a]):
            legal = ", ".join(action_to_str(x) for x in view.legal_actions)
            err = IllegalActionError(f"agent {agents[p]!r} as player {p} chose the illegal "
                                     f"action {a!r}; legal: {legal}")
            err.player, err.action, err.legal = p, a, legal
            raise err
        deal.apply(a)
    return deal.result
