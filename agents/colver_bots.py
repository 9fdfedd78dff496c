"""colver's offline bots as agents (``coinche_rl.agents.colver_bots``), an optional extra.

`colver <https://pypi.org/project/colver/>`_ is a Rust belote-contrée engine with
Python bindings and a zoo of bots. This module seats the ones that need no model file
at our table, under the spec names

=====================  ======================================================================
``colver:heuristic``   colver's hand-evaluation bidder and its ``heuristic`` card player
``colver:maxi``        colver's "maxi" convention bidder and its maxi card play
``colver:rule``        an auction strategy and colver's ``rule`` card player
``colver:ismcts``      an auction strategy and colver's IS-MCTS card play (naive or smart)
                       with a time budget
=====================  ======================================================================

(parameters: :func:`coinche_rl.agents.describe_agents`). colver is *not* a dependency
of coinche-rl: it is imported when such an agent is built, and its absence raises
:class:`ColverNotInstalledError`, which says ``pip install colver``. The adapter was
written against colver 0.11.1.

colver plays one rule set, which our ``colver`` preset reproduces: other play or auction
rules are refused with :class:`ColverRulesError`. colver's own card players read all four
hands, so the adapter never gives colver the real deal: before each decision it draws the
unseen cards from the seat's information set with the project's exact sampler and asks
the bot on that world. ``docs/colver.md`` gives the rules check, what each colver bot
reads, the action translation and what is deterministic.

>>> to_colver_action(parse_action("80H")), to_colver_action(parse_action("TS"))
(2, 6)
>>> action_to_str(from_colver_action(6, COLVER_PLAYING)), action_to_str(from_colver_action(40, COLVER_BIDDING))
('TS', 'capotC')
>>> check_rules(get_rules("ffb"))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
coinche_rl.agents.colver_bots.ColverRulesError: colver plays only the rules of the 'colver' preset ...
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from ..actions import (BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, PASS, SURCOINCHE, TAKE,
                       action_to_str, bid_action, bid_strain, bid_value, parse_action)
from ..cards import N_CARDS, N_RANKS, cards_of
from ..rules import PRESETS, RuleSet, get_rules
from .base import Agent, AgentSpecError, Param, PlayerView
from .sampler import WorldSampler

__all__ = ["ColverAgent", "ColverNotInstalledError", "ColverRulesError", "ColverActionError",
           "BID_STRATEGIES", "PLAY_METHODS", "PLAY_RULE_FIELDS", "COLVER_BIDDING",
           "COLVER_PLAYING", "to_colver_card", "from_colver_card", "to_colver_action",
           "from_colver_action", "check_rules", "import_colver", "ColverHeuristic", "ColverMaxi",
           "ColverRule", "ColverISMCTS"]

#: colver's phase numbers (``Env.phase()``)
COLVER_BIDDING, COLVER_PLAYING = 0, 1
#: colver's auction actions
_C_CAPOT, _C_COINCHE, _C_SURCOINCHE, _C_N_BID = 37, 41, 42, 43
#: colver's bids and capots name one of 4 suits (in our order S H D C), 4 bids a level
_C_SUITS = 4

#: colver's rule-based auction strategies (bot-spec ``[bid] strategy``) that need no model
BID_STRATEGIES = ("heuristic", "improved", "improved_v2", "improved_v3", "smart", "maxi")
#: card players this module drives: colver's spec ``[play] method`` names, and ``maxi``
#: (``Env.action_maxi_play``, not a spec method)
PLAY_METHODS = ("heuristic", "maxi", "rule", "naive_ismcts", "smart_ismcts")

#: RuleSet fields that decide which actions are legal and what is public: they must
#: equal the ``colver`` preset's for colver to play
PLAY_RULE_FIELDS = ("family", "strains", "min_bid", "max_bid", "bid_step",
                    "capot_after_coinche", "declarations", "optional_declare",
                    "optional_belote", "must_undertrump", "overtrump_partner")

# rank index ours (7 8 9 T J Q K A) -> colver's (7 8 9 J Q K T A), and back
_RANK_TO_COLVER = (0, 1, 2, 6, 3, 4, 5, 7)
_RANK_FROM_COLVER = tuple(_RANK_TO_COLVER.index(r) for r in range(N_RANKS))

_TESTED_VERSION = "0.11.1"


class ColverNotInstalledError(ImportError, AgentSpecError):
    """The optional ``colver`` package is missing (or lacks the API this adapter uses).
    An :class:`~coinche_rl.agents.AgentSpecError` too: the spec names an agent that cannot
    be built here, which ``coinche-rl tournament`` reports as an error, not a traceback."""


class ColverRulesError(ValueError):
    """A rule set whose auction or card play colver cannot play."""


#: how to play colver's rules, added to the rules and not-installed errors
RULES_HINT = ("colver plays one rule set, the 'colver' preset (suits only, bids 80..160 "
              "and capot, no declarations, automatic belote, FFB card play): select it with "
              "--rules colver (coinche-rl tournament), preset='colver' (coinche_rl.arena) or "
              "get_rules('colver')")


class ColverActionError(ValueError):
    """An action with no counterpart in the other engine, or a choice the rules reject."""


def import_colver():
    """The ``colver`` module.

    :raises ColverNotInstalledError: not installed, or without ``Env.deal_with_hands``
        and ``Agent`` (the adapter was written against colver 0.11.1).
    """
    try:
        import colver
    except ImportError as e:
        raise ColverNotInstalledError(
            "the colver:* agents need the optional package colver (a Rust belote engine, "
            f"not a dependency of coinche-rl): pip install colver  ({e}); {RULES_HINT}") from None
    missing = [name for name, ok in (("Env.deal_with_hands", hasattr(getattr(colver, "Env", None), "deal_with_hands")),
                                     ("Agent", hasattr(colver, "Agent"))) if not ok]
    if missing:
        raise ColverNotInstalledError(
            f"colver {getattr(colver, '__version__', '?')} lacks {', '.join(missing)}; the "
            f"colver:* agents were written against colver {_TESTED_VERSION}: "
            f"pip install colver=={_TESTED_VERSION}")
    return colver


# ---------------------------------------------------------------------------- actions
def to_colver_card(card: int) -> int:
    """colver's index (0..31) of our card ``suit*8 + rank``."""
    card = int(card)
    if not 0 <= card < N_CARDS:
        raise ColverActionError(f"card {card!r} out of range: expected 0..31")
    return (card & ~7) | _RANK_TO_COLVER[card & 7]


def from_colver_card(index: int) -> int:
    """Our card of colver's card index (0..31)."""
    index = int(index)
    if not 0 <= index < N_CARDS:
        raise ColverActionError(f"colver card index {index!r} out of range: expected 0..31")
    return (index & ~7) | _RANK_FROM_COLVER[index & 7]


def to_colver_action(action: int) -> int:
    """colver's action number for our action id: an auction action (0..42) or a card
    (0..31); which one colver reads it as follows from its phase, as for ours.

    :raises ColverActionError: actions colver has no counterpart for (NT / AT bids, bids
        above 160, the classic prise, declare / belote choices) or out of range.
    """
    a = int(action)
    if a == PASS:
        return 0
    if BID_BASE <= a < CAPOT_BASE:
        value, strain = bid_value(a), bid_strain(a)
        if strain < _C_SUITS and value <= 160:
            return 1 + _C_SUITS * ((value - 80) // 10) + strain
    elif CAPOT_BASE <= a < COINCHE:
        if a - CAPOT_BASE < _C_SUITS:
            return _C_CAPOT + a - CAPOT_BASE
    elif a == COINCHE:
        return _C_COINCHE
    elif a == SURCOINCHE:
        return _C_SURCOINCHE
    elif CARD_BASE <= a < TAKE:
        return to_colver_card(a - CARD_BASE)
    try:
        text = action_to_str(a)
    except ValueError:
        raise ColverActionError(f"action id {a!r} out of range") from None
    raise ColverActionError(
        f"action {text!r} has no colver counterpart: colver knows pass, bids 80..160 in the "
        f"four suits, capot in a suit, coinche, surcoinche and cards (the 'colver' preset)")


def from_colver_action(x: int, phase: int) -> int:
    """Our action id for colver's action number ``x`` in colver phase ``phase``
    (:data:`COLVER_BIDDING` or :data:`COLVER_PLAYING`)."""
    x = int(x)
    if phase == COLVER_PLAYING:
        return CARD_BASE + from_colver_card(x)
    if phase != COLVER_BIDDING:
        raise ColverActionError(f"colver phase {phase!r}: expected 0 (bidding) or 1 (playing)")
    if not 0 <= x < _C_N_BID:
        raise ColverActionError(f"colver auction action {x!r} out of range: expected 0..42")
    if x == 0:
        return PASS
    if x < _C_CAPOT:
        return bid_action(80 + 10 * ((x - 1) // _C_SUITS), (x - 1) % _C_SUITS)
    if x < _C_COINCHE:
        return CAPOT_BASE + x - _C_CAPOT
    return COINCHE if x == _C_COINCHE else SURCOINCHE


# ------------------------------------------------------------------------------ rules
def check_rules(rules) -> RuleSet:
    """``rules`` (a RuleSet or preset name) if colver can play it, else an error naming
    the fields that differ from the ``colver`` preset (:data:`PLAY_RULE_FIELDS`).

    :raises ColverRulesError: auction or card-play rules colver does not have.
    """
    rules = get_rules(rules)
    ref = PRESETS["colver"]
    diff = [f"{f}={getattr(rules, f)!r} (colver: {getattr(ref, f)!r})"
            for f in PLAY_RULE_FIELDS if getattr(rules, f) != getattr(ref, f)]
    if diff:
        raise ColverRulesError(
            f"colver plays only the rules of the 'colver' preset (get_rules('colver'), "
            f"Deal('colver', ...)); rule set {rules.name!r} differs in " + ", ".join(diff)
            + ". Select that preset with --rules colver (coinche-rl tournament) or "
              "preset='colver' (coinche_rl.arena); rule sets that differ from it only in "
              "scoring or match parameters are played too")
    return rules


# ------------------------------------------------------------------------------ agent
class ColverAgent(Agent):
    """A colver bot at our table (see the module docstring).

    :param bid: colver auction strategy (:data:`BID_STRATEGIES`).
    :param play: card player (:data:`PLAY_METHODS`).
    :param ms: IS-MCTS time budget per decision with 8 cards in hand, in ms.
    :param seed: mixed with the per-deal seed given to :meth:`reset`.
    :raises ColverNotInstalledError: colver is not installed.
    :raises ValueError: unknown ``bid`` or ``play``.

    After each colver decision, ``last_decision`` holds what colver reported
    (``source``, ``elapsed_ms``, ...) plus ``colver_action``.
    """

    #: colver plays the rules of its preset only (:func:`check_rules`)
    FAMILIES = ("coinche",)


    def __init__(self, bid: str = "improved_v2", play: str = "rule", ms: int = 20,
                 seed: int = 0):
        super().__init__()
        if bid not in BID_STRATEGIES:
            raise ValueError(f"unknown colver bid strategy {bid!r}: expected one of "
                             f"{', '.join(BID_STRATEGIES)}")
        if play not in PLAY_METHODS:
            raise ValueError(f"unknown colver card player {play!r}: expected one of "
                             f"{', '.join(PLAY_METHODS)}")
        if int(ms) < 1:
            raise ValueError(f"ms must be at least 1, not {ms!r}")
        self._colver = import_colver()
        self.bid, self.play, self.ms, self.salt = bid, play, int(ms), int(seed)
        method = "rule" if play == "maxi" else play
        self.colver_spec = (f'[bid]\nstrategy = "{bid}"\n[play]\nmethod = "{method}"\n'
                            f'time_ms = {self.ms}\n')
        self._bot = None
        self._observed: List[int] = []
        self.last_decision: Optional[dict] = None

    def check_rules(self, rules) -> RuleSet:
        """:func:`check_rules`: the tournaments call it before anything is played.

        :raises ColverRulesError: rules colver cannot play.
        """
        return check_rules(rules)

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        """Check the rules, seed the world sampler and build the colver bot for ``seat``.

        :raises ColverRulesError: rules colver cannot play.
        """
        check_rules(rules)
        super().reset(seat, rules, seed)
        ss = np.random.SeedSequence([self.seed, self.salt & 0xFFFFFFFFFFFFFFFF])
        self.rng = np.random.default_rng(ss)
        bot_seed = int(ss.spawn(1)[0].generate_state(1, np.uint64)[0])
        self._bot = self._colver.Agent(self.colver_spec, seat=self.seat, seed=bot_seed)
        self._observed = []
        self.last_decision = None

    def observe(self, seat: int, action: int) -> None:
        """Record a public action in colver's encoding (an action colver has no
        counterpart for raises :class:`ColverActionError` here)."""
        self._observed.append(to_colver_action(action))

    def _world_env(self, info):
        """A colver Env at the seat's current position, in a deal drawn from ``info``,
        with the colver bot fed the same history."""
        history = [to_colver_action(a) for a in info.public_history]
        if self._observed and self._observed != history:
            raise ColverActionError(
                f"seat {self.seat}: the actions passed to observe() ({len(self._observed)}) "
                f"are not the deal's public history ({len(history)}): call observe() for "
                f"every public action, or never")
        world = WorldSampler(info).sample(1, int(self.rng.integers(2 ** 63)))[0]
        dealt = [int(h) for h in world]
        for trick in info.tricks:
            for p, c in trick:
                dealt[p] |= 1 << c
        env = self._colver.Env.deal_with_hands(
            info.dealer, [[to_colver_card(c) for c in cards_of(h)] for h in dealt])
        self._bot.init_deal(env)
        for x in history:
            self._bot.observe(env, x)
            env.step(x)
        return env

    def act(self, view: PlayerView) -> int:
        if self._bot is None or view.seat != self.seat:
            raise ValueError(f"act() for seat {view.seat} on an agent reset for seat "
                             f"{self.seat if self._bot is not None else None}: call reset() first")
        legal = view.legal_actions
        if len(legal) == 1:
            return int(legal[0])
        env = self._world_env(view.information_set)
        phase = env.phase()
        mirrored = sorted(from_colver_action(x, phase) for x in env.legal_actions())
        if env.current_player() != self.seat or mirrored != [int(a) for a in legal]:
            raise ColverActionError(
                f"colver {getattr(self._colver, '__version__', '?')} disagrees with coinche-rl "
                f"at seat {self.seat}: to act {env.current_player()}, legal "
                f"{[action_to_str(a) for a in mirrored]} vs {[action_to_str(int(a)) for a in legal]} "
                f"(the adapter was written against colver {_TESTED_VERSION})")
        if phase == COLVER_PLAYING and self.play == "maxi":
            x = int(env.action_maxi_play())
            self.last_decision = {"source": "maxi", "colver_action": x}
        else:
            d = dict(self._bot.decide(env))
            x = int(d["action"])
            d["colver_action"] = x
            self.last_decision = d
        a = from_colver_action(x, phase)
        if not view.legal[a]:
            raise ColverActionError(f"colver's {self.bid}/{self.play} chose {action_to_str(a)}, "
                                    f"illegal at seat {self.seat}")
        return a


# ------------------------------------------------------------- the agents by spec name
#: the parameters the colver agents share (their defaults are their constructors')
_BID = Param(str, doc="colver auction strategy (rule-based, no model)", choices=BID_STRATEGIES)
_SEED = Param(int, doc="mixed with the per-deal seed: the stream of sampled worlds (and of "
              "colver's searches)", min=0)


def _one_card_player(name: str, play: str, bid: str, description: str) -> type:
    """The agent class ``name`` (spec ``colver:<play>``): colver's card player ``play``
    after a colver bidder, ``bid`` by default; the parameters ``bid`` and ``seed``."""
    default_bid = bid

    def __init__(self, bid: str = default_bid, seed: int = 0):
        ColverAgent.__init__(self, bid=bid, play=play, seed=seed)

    __init__.__qualname__ = f"{name}.__init__"
    return type(name, (ColverAgent,), {
        "__doc__": f"``colver:{play}``.", "__module__": __name__, "__qualname__": name,
        "DESCRIPTION": description, "PARAMS": {"bid": _BID, "seed": _SEED},
        "__init__": __init__})


ColverHeuristic = _one_card_player(
    "ColverHeuristic", "heuristic", "heuristic",
    "colver's heuristic bidder and heuristic card play (a perfect-information heuristic, "
    "given one world sampled from the seat's information set); needs pip install colver")
ColverMaxi = _one_card_player(
    "ColverMaxi", "maxi", "maxi",
    "colver's maxi convention bidder and maxi card play (perfect-information, given one "
    "world sampled from the seat's information set); needs pip install colver")
ColverRule = _one_card_player(
    "ColverRule", "rule", "improved_v2",
    "colver's rule card player (own hand, trick, played cards, voids) after a colver "
    "bidder; needs pip install colver")


class ColverISMCTS(ColverAgent):
    """``colver:ismcts``."""

    DESCRIPTION = ("colver's IS-MCTS card play with a time budget after a colver bidder; "
                   "needs pip install colver")
    PARAMS = {"ms": Param(int, doc="search time per card with 8 in hand, in ms (colver scales "
                                   "it by cards left / 8); wall-clock, so not reproducible",
                          min=1, max=60000),
              "smart": Param(bool, doc="smart IS-MCTS (belief-weighted worlds) instead of "
                             "naive"),
              "bid": _BID, "seed": _SEED}

    def __init__(self, ms: int = 20, smart: bool = False, bid: str = "improved_v2",
                 seed: int = 0):
        super().__init__(bid=bid, play="smart_ismcts" if smart else "naive_ismcts", ms=ms,
                         seed=seed)
