"""The environments' families, each described once (``coinche_rl.envs.family``).

One AEC env class (:mod:`~coinche_rl.envs.coinche_v0`), one single-agent adapter
(:mod:`~coinche_rl.envs.single_agent`) and one pair of vector envs
(:mod:`~coinche_rl.envs.vector`) play every family; what differs between the families is
read from an :class:`EnvFamily`, chosen from the rule set (:func:`env_family`):

* ``FOUR``: Coinche and the French Belote family (four players in two teams; rules of
  the ``coinche`` and ``classic`` families), observation :mod:`.observation`, encoder
  :class:`.kernels.ObservationEncoder`, the PettingZoo name ``coinche_v0``;
* ``TWO``: belote for two players (rules of the ``two`` family, RULES.md §12),
  observation :mod:`.observation_two`, encoder
  :class:`.encoder_two.TwoPlayerEncoder`, the PettingZoo name ``two_player_v0``.

The vector kernels (:mod:`.kernels`) are written once over the engine's family-neutral
entry points and branch on the rule vector's family where the observation differs.

>>> env_family("belote_a_deux").agents, env_family("ffb").n_players
(('player_0', 'player_1'), 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Tuple, Union

from ..engine import FAMILIES as ENGINE_FAMILIES, Family
from ..game import Deal, Match
from ..rules import N_SEATS, RuleSet, four_player_rules, get_rules
from ..two_player import TwoPlayerDeal, TwoPlayerMatch, two_player_rules
from . import observation, observation_two
from .infoset import information_set
from .kernels import ObservationEncoder
from .encoder_two import TwoPlayerEncoder

__all__ = ["EnvFamily", "FOUR", "TWO", "FAMILIES", "env_family", "REWARD_SCALE"]

#: rewards are divided by this with ``normalize_reward=True``: the card points of one
#: deal (152 + 10 for the last trick, under every preset and family)
REWARD_SCALE = 162.0


@dataclass(frozen=True)
class EnvFamily:
    """What the environments read of a family (one instance per family)."""

    #: ``"four"`` or ``"two"`` (the ``family=`` argument of the envs)
    key: str
    #: the PettingZoo name of its AEC env (``metadata["name"]``)
    env_name: str
    #: the preset its envs play by default
    default_rules: str
    #: ``rules`` -> a rule set of the family (raising ``InvalidRulesError`` for another
    #: family's)
    rules_of: Callable[..., RuleSet]
    #: the engine's deal and match classes
    deal: type
    match: type
    #: the observation module (``OBSERVATION_SIZE``, ``HIGH``, ``encode``, ``decode``)
    observation: ModuleType
    #: the observation encoder class: ``encoder(rules)`` has ``params``, ``observe(deal,
    #: seat, match)``, ``legal_mask(deal)``, ``encode(state, seat, match, out)`` and the
    #: tables of the vector kernels (:mod:`.kernels`: ``cpt``, ``rules_vec``)
    encoder: type
    #: what a seat knows, ``(deal, seat) -> InformationSet or TwoPlayerView``
    knowledge: Callable[[Any, int], Any]
    #: ``options["deal"]`` -> the keywords of ``deal`` that replay it
    deal_kwargs: Callable[[Any], dict]
    #: ``dealer=`` that passes the deal on after each deal (vector envs)
    next_dealer: str
    #: the opponent spec ``"random"`` of the single-agent env draws from the env's own
    #: ``np_random`` (else it is the agents' random agent, built by the plugin like any spec)
    own_random: bool
    #: what compiles, in the compile notices (``the ... environment``)
    title: str

    #: the engine's description of (one of) its rule families
    #: (:class:`coinche_rl.engine.Family`: players, state size, ...)
    engine: Family

    @property
    def agents(self) -> Tuple[str, ...]:
        """The PettingZoo agents: ``player_i`` at seat (player) ``i``."""
        return AGENT_NAMES[:self.n_players]

    @property
    def n_players(self) -> int:
        return self.engine.n_players

    @property
    def state_size(self) -> int:
        """The engine state vector's length (int64)."""
        return self.engine.state_size

    @property
    def observation_size(self) -> int:
        return self.observation.OBSERVATION_SIZE

    def rules(self, rules: Union[None, str, RuleSet]) -> RuleSet:
        """``rules`` (None: :attr:`default_rules`) checked to be of this family."""
        return self.rules_of(self.default_rules if rules is None else rules)


#: every agent name, by seat (a family's agents are the first ``n_players``)
AGENT_NAMES = tuple(f"player_{i}" for i in range(N_SEATS))


def _four_deal_kwargs(given) -> dict:
    """``options["deal"]`` of four players: four hands (masks or text, coinche family) or
    32 cards in dealing order (ints, or text as one string or a list)."""
    if isinstance(given, str):
        return {"deck": given}
    if len(given) == N_SEATS:
        return {"hands": list(given)}
    return {"deck": " ".join(given) if all(isinstance(g, str) for g in given)
            else list(given)}


def _two_deal_kwargs(given) -> dict:
    """``options["deal"]`` of two players: 32 cards in dealing order (ints, or text as
    one string or a list; docs/two_player.md)."""
    if not isinstance(given, str) and all(isinstance(g, str) for g in given):
        given = " ".join(given)
    return {"deck": given}


FOUR = EnvFamily(
    key="four", env_name="coinche_v0", default_rules="ffb", rules_of=four_player_rules,
    deal=Deal, match=Match, observation=observation, encoder=ObservationEncoder,
    knowledge=information_set, deal_kwargs=_four_deal_kwargs,
    next_dealer="rotate", own_random=False, title="the",
    engine=ENGINE_FAMILIES["coinche"])
TWO = EnvFamily(
    key="two", env_name="two_player_v0", default_rules="belote_a_deux",
    rules_of=two_player_rules, deal=TwoPlayerDeal, match=TwoPlayerMatch,
    observation=observation_two, encoder=TwoPlayerEncoder,
    knowledge=lambda deal, player: deal.view(player), deal_kwargs=_two_deal_kwargs,
    next_dealer="alternate", own_random=True,
    title="the two-player", engine=ENGINE_FAMILIES["two"])

#: the families by key
FAMILIES = {f.key: f for f in (FOUR, TWO)}


def env_family(rules: Union[None, str, RuleSet] = None,
               family: Union[None, str, EnvFamily] = None) -> EnvFamily:
    """The family of ``family`` (a key or an :class:`EnvFamily`) if given, else of
    ``rules`` (``RuleSet.family == "two"``: ``TWO``, else ``FOUR``; None: ``FOUR``)."""
    if isinstance(family, EnvFamily):
        return family
    if family is not None:
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {sorted(FAMILIES)}, not {family!r}")
        return FAMILIES[family]
    if rules is None:
        return FOUR
    r = rules if isinstance(rules, RuleSet) else get_rules(rules)
    return TWO if r.family == "two" else FOUR

