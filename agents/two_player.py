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
(``pimc``, ``nn``, an :class:`~coinche_rl.agents.base.Agent` subclass) is refused with
a message that says so, and the four-player registry refuses a two-player agent.

>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_a_deux", seed=7, dealer=1)
>>> agents = [make_two_player_agent("heuristic"), make_two_player_agent("random")]
>>> result = play_two_deal(deal, agents, seeds=[1, 2])
>>> deal.is_terminal and result.scores == deal.scores
True
>>> make_two_player_agent("pimc")
Traceback (most recent call last):
...
coinche_rl.agents.base.AgentSpecError: agent 'pimc' plays the four-player game ...
"""

from __future__ import annotations

import importlib
import inspect
from typing import Callable, Dict, List, Optional, Sequence

import numpy as np

from ..actions import N_ACTIONS, action_to_str
from ..engine.bits import rng_seed, seed_int64
from ..game import IllegalActionError
from ..rules import RuleSet, params_vector
from ..two_player import TwoPlayerDeal, TwoPlayerResult, TwoPlayerView
from .base import Agent, AgentSpecError, Param
from .two_player_bots import (HEURISTIC_WEIGHTS, TWO_HEURISTIC, TWO_RANDOM, W_PRISE,
                              W_PRISE_DECOUVERTE, two_bot_action)

__all__ = ["TwoPlayerAgent", "TwoPlayerBotAgent", "TwoRandomAgent", "TwoHeuristicAgent",
           "make_two_player_agent", "register_two_player_agent", "available_two_player_agents",
           "describe_two_player_agents", "play_two_deal", "FAMILY"]

#: the rule family these agents play
FAMILY = "two"


class TwoPlayerAgent:
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

    def reset(self, player: int, rules: RuleSet, seed: int) -> None:
        """Prepare for a new deal as ``player`` under ``rules``, random stream ``seed``."""
        if rules.family != FAMILY:
            raise ValueError(f"{type(self).__name__} plays belote for two players (family "
                             f"'two'), not the rules {rules.name!r} (family {rules.family!r})")
        self.player = int(player)
        self.rules = rules
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    def act(self, view: TwoPlayerView) -> int:
        """The action id to take (legal in ``view.legal``)."""
        raise NotImplementedError

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


# ------------------------------------------------------------------------- the registry
_REGISTRY: Dict[str, Callable[..., TwoPlayerAgent]] = {
    "random": TwoRandomAgent,
    "heuristic": TwoHeuristicAgent,
}


def register_two_player_agent(name: str, factory: Callable[..., TwoPlayerAgent]) -> None:
    """Register ``factory(**params) -> TwoPlayerAgent`` under ``name`` (its ``PARAMS``,
    when it declares them, type and check the spec's parameters)."""
    if not name or any(ch in name for ch in ",= "):
        raise ValueError(f"invalid agent name {name!r}")
    _REGISTRY[name] = factory


def available_two_player_agents() -> List[str]:
    """The registered two-player agents' names, sorted."""
    return sorted(_REGISTRY)


def describe_two_player_agents() -> str:
    """One line per agent and per parameter."""
    lines = []
    for name in available_two_player_agents():
        f = _REGISTRY[name]
        doc = getattr(f, "DESCRIPTION", "") or (inspect.getdoc(f) or "").split("\n\n")[0]
        lines.append(f"{name}: {doc}")
        for key, p in (getattr(f, "PARAMS", None) or {}).items():
            lines.append(f"    {key} ({p.type.__name__}, default {p.default!r}): {p.doc}")
    return "\n".join(lines)


def _four_player_names() -> List[str]:
    from .registry import available_agents
    try:
        return available_agents()
    except Exception:                       # an uninstalled checkout: no entry points
        return []


def _wrong_family(name: str, what: str) -> AgentSpecError:
    return AgentSpecError(
        f"agent {name!r} plays the four-player game ({what}), not belote for two players "
        f"(rules family 'two'); two-player agents: {', '.join(available_two_player_agents())}, "
        f"or a TwoPlayerAgent subclass of your own by import path module:Object")


def _resolve(name: str):
    """The factory of ``name``: registered, or an import path ``module:Object``."""
    from .registry import _import_error, _split_import_path
    if name in _REGISTRY:
        return _REGISTRY[name]
    split = _split_import_path(name)
    if split is None:
        if name in _four_player_names():
            raise _wrong_family(name, "a coinche / classic agent")
        raise AgentSpecError(f"unknown two-player agent {name!r}; available: "
                             f"{', '.join(available_two_player_agents())}; or your own "
                             f"TwoPlayerAgent subclass or factory by its import path, "
                             f"module:Object[:key=value,...]")
    module, attr = split
    try:
        obj = importlib.import_module(module)
    except Exception as e:
        raise _import_error(f"agent {name!r}", module, e) from e
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentSpecError(f"agent {name!r}: module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj) and issubclass(obj, Agent):
        raise _wrong_family(name, "a coinche_rl.agents.Agent subclass")
    if inspect.isclass(obj) and not issubclass(obj, TwoPlayerAgent):
        raise AgentSpecError(f"agent {name!r}: {obj.__qualname__} does not derive from "
                             f"coinche_rl.agents.two_player.TwoPlayerAgent")
    if not callable(obj) or isinstance(obj, (TwoPlayerAgent, Agent)):
        raise AgentSpecError(f"agent {name!r}: {name} is not a TwoPlayerAgent subclass or a "
                             f"function returning one")
    return obj


def make_two_player_agent(spec: str) -> TwoPlayerAgent:
    """A new two-player agent from its spec (``"heuristic"``, ``"heuristic:prise=4"``,
    ``"my_module:MyBot:depth=2"``).

    :raises AgentSpecError: unknown name, a four-player agent, unknown parameter, bad
        value, an import path that is not a TwoPlayerAgent.
    """
    from .registry import parse_spec
    name, raw = parse_spec(spec)
    factory = _resolve(name)
    declared = getattr(factory, "PARAMS", None)
    kwargs = {}
    for key, text in raw.items():
        if declared is not None:
            if key not in declared:
                known = ", ".join(declared) or "none"
                raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; its "
                                     f"parameters: {known}")
            kwargs[key] = declared[key].parse(name, key, text)
        else:
            kwargs[key] = text
    try:
        agent = factory(**kwargs)
    except TypeError as e:
        raise AgentSpecError(f"agent {name!r}: {e}") from e
    if isinstance(agent, Agent):
        raise _wrong_family(name, "it returned a coinche_rl.agents.Agent")
    if not isinstance(agent, TwoPlayerAgent):
        raise AgentSpecError(f"agent {name!r} returned a {type(agent).__name__}, not a "
                             f"TwoPlayerAgent")
    agent.name = name
    agent.spec = name + (":" + ",".join(f"{k}={raw[k]}" for k in raw) if raw else "")
    return agent


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
