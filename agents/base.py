"""The agents' interface (``coinche_rl.agents.base``).

Every bot, from ``random`` to ``pimc``, is an :class:`Agent`. The same object plays in a
PettingZoo loop, behind the single-agent adapter and in the tournaments; the harness
that seats it follows one protocol:

1. ``agent.reset(seat, rules, seed)`` before each deal: its seat, the rule set, and a
   seed for its own random stream (tournaments key it by deal and seat, so both seatings
   of a duplicate pair share it);
2. ``agent.observe(seat, action)`` for every **public** event of the deal, in order, its
   own actions included: each auction (prise) action and each card. The other seats'
   optional declare / belote choices are private and are not shown (RULES.md §5; their
   public effects, the cards shown and the belote announced, are in the information set);
3. ``agent.act(view) -> action id`` when it is the agent's turn. ``view`` is a
   :class:`PlayerView`: the legal-action mask, the seat's
   :class:`~coinche_rl.envs.infoset.InformationSet` (computed on first use), and the
   *public state*, the engine state vector with everything the seat cannot know zeroed
   (:func:`coinche_rl.engine.public_view`), which numba bots read directly. In belote
   for two players (rules family ``two``) the seat is the player (0 or 1) and ``view``
   his :class:`~coinche_rl.two_player.TwoPlayerView` (``deal.view(player)``: what he
   may know, ``legal``, and the public view vector ``state``).

Every agent declares the rule families it plays (:attr:`Agent.FAMILIES`: the
four-player ``coinche`` and ``classic``, or ``two``); ``reset`` refuses the others.
An agent never sees the deal itself, so it cannot read hidden cards. :func:`play_deal`
runs the protocol for one deal of any family; :mod:`coinche_rl.agents.registry` builds
agents from spec strings such as ``"heuristic"`` or ``"pimc:worlds=32"`` for a family.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent
>>> deal = Deal("ffb", seed=7, dealer=0)
>>> agents = [make_agent("random") for _ in range(4)]
>>> result = play_deal(deal, agents, seeds=[1, 2, 3, 4])
>>> deal.is_terminal and result.scores == deal.scores
True
>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_a_deux", seed=7, dealer=1)
>>> agents = [make_agent("heuristic", "two"), make_agent("random", "two")]
>>> result = play_deal(deal, agents, seeds=[1, 2])
>>> deal.is_terminal and result.scores == deal.scores
True
"""

from __future__ import annotations

import dataclasses
import inspect
from abc import ABCMeta, abstractmethod
from dataclasses import dataclass
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from ..actions import BELOTE, DECLARE, NO_BELOTE, NO_DECLARE, N_ACTIONS
from ..game import Deal
from ..engine.family import family_of
from ..rules import FAMILY_PRESETS, RuleSet
from ..values import expected_form, parse_value

__all__ = ["Agent", "AgentSpecError", "BatchedAgent", "Param", "PlayerView", "agent_view", "play_deal",
           "PRIVATE_ACTIONS", "FROM_SIGNATURE", "family_error"]

#: actions other seats do not see (optional declare / belote choices)
PRIVATE_ACTIONS = frozenset((DECLARE, NO_DECLARE, BELOTE, NO_BELOTE))


class AgentSpecError(ValueError):
    """A malformed spec, an unknown agent name, or a bad parameter."""


class Marker:
    """A value that stands for something other than a value (a default still to be
    found, a parameter that must be given): compared by identity, shown by its name."""

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: a :class:`Param`'s default when none is given: the agent's constructor's default
#: (filled in when the class is defined, so each default is written once)
FROM_SIGNATURE = Marker("FROM_SIGNATURE")


@dataclass(frozen=True)
class Param:
    """One parameter of an agent (:attr:`Agent.PARAMS`): its type (int, float, str or
    bool), default, description, and optional bounds / choices.

    The default of an :class:`Agent` subclass's parameter is its constructor's: leave
    ``default`` out (``Param(int, doc="...")``) and the class fills it in from the
    signature of ``__init__``; a default given here must agree with it.

    Why a Param and not a dataclass field (the trainers' settings, which tyro reads): an
    agent is built from a spec string by the registry, which checks the bounds and
    choices, names what would be right, and lists the parameters of a family; the
    constructor's signature already holds the defaults and types, so a dataclass would
    be a third place to write them. The texts are read by the parser the rule overrides
    use (:func:`coinche_rl.values.parse_value`)."""

    type: type
    default: Any = FROM_SIGNATURE
    doc: str = ""
    min: Any = None
    max: Any = None
    choices: Tuple = ()
    #: the rule families where it means something (an agent of several families whose
    #: games differ: PIMC's auction parameters): the registry lists it for those only and
    #: refuses it in the others; empty: every family of the agent
    families: Tuple[str, ...] = ()

    def parse(self, agent: str, key: str, text: str):
        """The value of the text ``text`` given for ``key`` in a spec of ``agent``, read
        by the parser of the rule overrides (:func:`coinche_rl.values.parse_value`: a
        switch is true/false, yes/no, on/off or 1/0).

        :raises AgentSpecError: not of the type, out of the bounds or of the choices.
        """
        try:
            value = parse_value(text, self.type)
        except (TypeError, ValueError):
            raise AgentSpecError(f"{agent}: parameter {key}={text!r} is not a valid "
                                 f"{self.type.__name__}: {expected_form(self.type)}") from None
        if self.min is not None and value < self.min:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} is below its minimum "
                                 f"{self.min!r}")
        if self.max is not None and value > self.max:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} is above its maximum "
                                 f"{self.max!r}")
        if self.choices and value not in self.choices:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} must be one of "
                                 f"{', '.join(map(repr, self.choices))}")
        return value


def _params_with_defaults(cls) -> Optional[Dict[str, Param]]:
    """``cls.PARAMS`` (its own) with each missing default read from ``cls.__init__``.

    :raises TypeError: a parameter the constructor does not take, a default given twice
        with two values, or none at all.
    """
    declared = vars(cls).get("PARAMS")
    if not declared:
        return declared
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        sig = None
    out = {}
    for key, p in declared.items():
        sp = sig.parameters.get(key) if sig is not None else None
        has = sp is not None and sp.default is not inspect.Parameter.empty
        if p.default is FROM_SIGNATURE:
            if not has:
                raise TypeError(f"{cls.__qualname__}.PARAMS[{key!r}] has no default and "
                                f"{cls.__qualname__}.__init__ gives it none")
            p = dataclasses.replace(p, default=sp.default)
        elif has and sp.default != p.default:
            raise TypeError(f"{cls.__qualname__}.PARAMS[{key!r}] has the default "
                            f"{p.default!r}, {cls.__qualname__}.__init__ {sp.default!r}: "
                            f"give it once (leave Param's default out)")
        out[key] = p
    return out


class PlayerView:
    """What the seat to act is given: ``seat``, ``rules``, ``legal`` (bool mask over the
    120 actions), ``public_state`` (int64 state vector, hidden parts zeroed),
    ``information_set`` (lazy), and ``match`` (``{"scores", "target", "pot"}`` in a
    match, else None).

    Build one with :meth:`from_deal`; it keeps the deal private and hands out only what
    the seat may know.
    """

    __slots__ = ("seat", "rules", "legal", "match", "_deal", "_info", "_public")

    def __init__(self, deal: Deal, seat: int, match: Optional[dict] = None):
        self.seat = int(seat)
        self.rules: RuleSet = deal.rules
        self.legal = deal.legal_action_mask()
        self.match = match
        self._deal = deal
        self._info = None
        self._public = None

    @classmethod
    def from_deal(cls, deal: Deal, match: Optional[dict] = None) -> "PlayerView":
        """The view of the seat to act in ``deal`` (not terminal)."""
        seat = deal.current_player
        if seat is None:
            raise ValueError("the deal is over: nobody is to act")
        return cls(deal, seat, match)

    @property
    def legal_actions(self):
        """The legal action ids, ascending."""
        return np.flatnonzero(self.legal)

    @property
    def information_set(self):
        """The seat's :class:`~coinche_rl.envs.infoset.InformationSet` (cached)."""
        if self._info is None:
            from ..envs.infoset import information_set
            self._info = information_set(self._deal, self.seat)
        return self._info

    @property
    def public_state(self) -> np.ndarray:
        """The engine state with every hidden part zeroed (a fresh copy, cached)."""
        if self._public is None:
            from ..engine import public_view
            self._public = public_view(self._deal.state, self._deal.params, self.seat)
        return self._public

    @property
    def params(self) -> np.ndarray:
        """The rule parameter vector (``coinche_rl.rules.params_vector``)."""
        return self._deal.params


def _two_player_view(deal, seat: int, match: Optional[dict] = None):
    """The player's own view (``deal.view(player)``): a two-player view carries no match."""
    return deal.view(seat)


#: what an agent of each family decides from, ``(deal, seat, match) -> view``: the
#: family's hook, read by :func:`agent_view`
AGENT_VIEWS = {"coinche": PlayerView, "classic": PlayerView, "two": _two_player_view}
assert set(AGENT_VIEWS) == set(FAMILY_PRESETS)


def agent_view(deal, seat: int, match: Optional[dict] = None):
    """What an agent at ``seat`` of ``deal`` decides from, in its family's form: a
    :class:`PlayerView` (carrying ``match``, the match's public state ``{"scores",
    "target", "pot"}`` or None), or in belote for two players the player's
    :class:`~coinche_rl.two_player.TwoPlayerView`.

    >>> from coinche_rl.two_player import TwoPlayerDeal
    >>> type(agent_view(Deal("ffb", seed=1), 0)).__name__
    'PlayerView'
    >>> agent_view(TwoPlayerDeal("belote_a_deux", seed=1), 1).player
    1
    """
    return AGENT_VIEWS[deal.rules.family](deal, seat, match)


class Agent:
    """Base class of every agent, of every rule family (see the module docstring).

    Subclasses declare the families they play (:attr:`FAMILIES`) and implement
    :meth:`act`; :meth:`reset` checks the family and stores ``seat``, ``rules`` and a
    seeded ``numpy.random.Generator`` in ``self.rng`` (numba bots keep the engine's
    splitmix64 stream there instead, a ``uint64[1]`` seeded by ``engine.rng_seed``, so
    that their numba and Python paths draw the same numbers); :meth:`observe` does
    nothing.

    ``numba_bot`` is the id of an equivalent numba kernel of the family's bots
    (``coinche_rl.agents.numba_bots``, its parameters inside the id) or None:
    tournaments between numba bots only run entirely
    in numba, with the same choices as through :meth:`act`; so do those with
    :class:`BatchedAgent` seats.
    """

    #: the rule families (``RuleSet.family``) this agent plays: the registry builds it
    #: for those only, and :meth:`reset` refuses the others
    FAMILIES: Tuple[str, ...] = ("coinche", "classic")
    #: the parameters of its spec (``"name:key=value,..."``), each passed to the
    #: constructor (defaults included) by :func:`~coinche_rl.agents.registry.make_agent`;
    #: a Param without a default takes the constructor's; None: read from the
    #: constructor's signature
    PARAMS: Optional[Dict[str, Param]] = None
    #: one line for ``coinche-rl agents`` (default: the first paragraph of the docstring)
    DESCRIPTION: str = ""
    #: seated in the default tournament roster (False for slow searchers)
    ROSTER: bool = True

    #: the registry name (set by the registry when built from a spec)
    name: str = "agent"
    #: spec string this agent was built from
    spec: str = "agent"
    #: the rule family it was built for (:func:`~coinche_rl.agents.registry.make_agent`)
    #: or last reset for; None before either
    family: Optional[str] = None
    #: id of the equivalent numba bot, or None
    numba_bot: Optional[int] = None
    #: rough seconds this agent thinks per deal at one seat on one core (for the
    #: tournament's time estimate); None when negligible (numba kernels)
    seconds_per_deal: Optional[float] = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        unknown = [f for f in cls.FAMILIES if f not in FAMILY_PRESETS]
        if not cls.FAMILIES or unknown:
            raise TypeError(f"{cls.__qualname__}.FAMILIES must name rule families among "
                            f"{', '.join(FAMILY_PRESETS)}, not {cls.FAMILIES!r}")
        if vars(cls).get("PARAMS"):
            cls.PARAMS = _params_with_defaults(cls)

    def __init__(self):
        self.seat = 0
        self.rules: Optional[RuleSet] = None
        self.rng = np.random.default_rng(0)
        self.seed = 0

    def check_rules(self, rules: RuleSet) -> None:
        """Raise ValueError, saying why, when this agent cannot play ``rules`` (a family
        it does not declare; subclasses add their own conditions). The tournaments call
        it before anything is played."""
        if rules.family not in self.FAMILIES:
            raise ValueError(family_error(type(self).__name__, self.FAMILIES, rules))

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        """Prepare for a new deal at ``seat`` (the player, in the two family) under
        ``rules``, random stream ``seed``.

        :raises ValueError: rules of a family the agent does not play."""
        if rules.family not in self.FAMILIES:
            raise ValueError(family_error(type(self).__name__, self.FAMILIES, rules))
        self.seat = int(seat)
        self.rules = rules
        self.family = rules.family
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    @property
    def player(self) -> int:
        """The seat, under its name in the two family."""
        return self.seat

    def kernel_modules(self) -> Tuple[str, ...]:
        """The modules whose ``warmup()`` compiles this agent's numba kernels in its
        :attr:`family` (what a tournament compiles before its progress bar starts):
        its class's module; an agent whose kernels differ by family says which."""
        return (type(self).__module__,)

    def observe(self, seat: int, action: int) -> None:
        """A public event: ``seat`` took ``action`` (default: ignored)."""

    def act(self, view) -> int:
        """The action id to take (must be legal in ``view.legal``); ``view`` is the
        family's view of the seat to act (:class:`PlayerView`, or
        :class:`~coinche_rl.two_player.TwoPlayerView` in the two family)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def family_error(agent: str, families: Sequence[str], rules) -> str:
    """The message of an agent of ``families`` seated under ``rules`` (a RuleSet or a
    family name)."""
    family = getattr(rules, "family", rules)
    where = (f"the rules {rules.name!r} (family {family!r})" if hasattr(rules, "name")
             else f"the family {family!r} ({', '.join(FAMILY_PRESETS.get(family, ()))})")
    return (f"{agent} plays the famil{'y' if len(families) == 1 else 'ies'} "
            f"{', '.join(families)}, not {where}")


class BatchedAgent(Agent, metaclass=ABCMeta):
    """An agent whose decisions can be made for many deals at once, as the tournaments'
    batched play and the vector env's opponents do (the ``nn`` agent): its cards by the
    network :meth:`play_net`, its auction by :meth:`bid_net`, everything else by the numba
    bot :attr:`other_bot`; or as one batched policy (:meth:`batch_policy`). The same
    choices as :meth:`act`."""

    #: the numba bot of the decisions the networks do not make
    other_bot: int

    @abstractmethod
    def play_net(self, rules: RuleSet):
        """The card-play network under ``rules`` (an object with ``forward`` and
        ``best``, :class:`~coinche_rl.agents.neural.net.MLP`), or None: the numba bot
        plays the cards."""

    @abstractmethod
    def bid_net(self, rules: RuleSet):
        """The bidding network under ``rules``
        (:class:`~coinche_rl.agents.neural.agent.BidNet`), or None: the numba bot bids."""

    @abstractmethod
    def batch_policy(self, rules: RuleSet):
        """This agent as ``f(public_states, params, seats) -> actions`` under ``rules``."""


def play_deal(deal, agents: Sequence[Agent], seeds: Sequence[int],
              match: Optional[dict] = None):
    """Play ``deal`` (a :class:`~coinche_rl.game.Deal` or, in the two family, a
    :class:`~coinche_rl.two_player.TwoPlayerDeal`) to its end with ``agents[seat]`` at
    each seat (the protocol of the module docstring); ``seeds[seat]`` seeds each agent's
    stream. ``match``: the match's state the four-player views carry (the two family's
    views carry their own). Returns the deal's result.

    :raises coinche_rl.game.IllegalActionError: an agent chose an illegal action (the
        message names the agent and the legal actions; ``.seat``, ``.action``,
        ``.legal``).
    """
    family = family_of(deal.rules)
    n = family.n_players
    if len(agents) != n or len(seeds) != n:
        raise ValueError(f"play_deal needs {n} agents and {n} seeds, one per "
                         f"{family.who} (rules {deal.rules.name!r})")
    for seat, (agent, seed) in enumerate(zip(agents, seeds)):
        agent.reset(seat, deal.rules, int(seed))
    while not deal.is_terminal:
        seat = deal.current_player
        view = agent_view(deal, seat, match)
        a = agents[seat].act(view)
        try:
            a = int(a)
        except (TypeError, ValueError):
            a = -1
        if not (0 <= a < N_ACTIONS and view.legal[a]):
            from ..game import IllegalActionError
            from ..actions import action_to_str
            legal = ", ".join(action_to_str(int(x)) for x in view.legal_actions)
            err = IllegalActionError(
                f"agent {agents[seat]!r} at {family.who} {seat} chose the "
                f"illegal action {a!r}; legal: {legal}")
            err.seat, err.action, err.legal = seat, a, legal     # for the callers' messages
            raise err
        deal.apply(a)
        if a in PRIVATE_ACTIONS:
            agents[seat].observe(seat, a)
        else:
            for agent in agents:
                agent.observe(seat, a)
    return deal.result
