"""Deal sets (``coinche_rl.arena.dealsets``): deal ``i`` of a deal set is a function of
``(rules, seed, i)`` alone, drawn from a stream of the engine's splitmix64 generator
keyed by ``(seed, i)`` and dealt by the engine's kernels; the match-deal and
knockout-game streams of one seed; the frozen-contract draws. One :class:`DealSet` for
every family: belote for two players deals with its own engine kernel
(``engine.two.two_random_deal``: the deck, the dealer, then one agent seed per player)."""

from __future__ import annotations

from typing import List, Tuple, Union

import numpy as np
from numba import njit

from .. import engine as E
from ..cards import N_CARDS
from ..engine import two as E2
from ..engine.bits import rng_next, rng_seed, seed_int64
from ..engine.family import family_of
from ..rules import FAMILY_CLASSIC, FAMILY_TWO, N_SEATS, P_FAMILY, RuleSet, check_int, get_rules, params_vector
from ..records import game_classes
from .errors import ArenaError

__all__ = ["DealSet", "FROZEN_MODES"]

#: ``frozen_contract`` values: how the contract of a frozen-auction deal is drawn
FROZEN_MODES = ("longest", "uniform")


#: draws per deal from its stream (the engine's splitmix64 generator, ``engine.rng_next``),
#: in this order: the engine's shuffle of the deck (``engine.random_deck``), the dealer,
#: ``_N_SEEDS`` agent seeds, the frozen taker and strain
_N_SEEDS = N_SEATS       # one agent seed per seat
#: separate streams for the deal sets, match deals and knockout games of one seed
_SALT_DEALS, _SALT_MATCH, _SALT_KNOCKOUT = 0, 1, 2
#: deals per match in the match-deal stream (Match.max_deals is 1000)
_MATCH_STRIDE = 4096
_MAX_MATCH_DEALS = 1000
#: ``frozen_contract`` modes as the kernel sees them
_FROZEN_CODE = {"": 0, "longest": 1, "uniform": 2}


@E.kernel
def _substream(rng, key, stream):
    """The first output of sub-stream ``stream`` of ``key``: one step of the engine's
    generator (``engine.rng_next``) from the state ``key + stream * m``, where ``m`` is
    the sub-stream multiplier of ``engine.rng_seed``; ``m`` and the generator's step
    ``g`` are read from ``rng_seed``, which leaves the state at ``seed * g + stream * m
    + g``, so that the deal sets have no constants of their own."""
    E.rng_seed(rng, np.int64(0), np.int64(0))
    g = rng[0]
    E.rng_seed(rng, np.int64(0), stream)
    rng[0] = key + (rng[0] - g)                 # key + stream * m
    return E.rng_next(rng)


@njit(cache=True)
def _deal_streams(P, seed, salt, streams, dealers, frozen, value, strains, states, seeds,
                  drawn, decks):
    """Deal ``k`` from the stream ``(seed, salt, streams[k])``: the deck
    (``engine.random_deck``), the dealer (``dealers[k]``, or the one drawn when -1), four agent
    seeds, then (``frozen``) the taker and, uniform mode, the strain among ``strains``;
    dealt by ``engine.hands_from_deck_into`` (3-2-3) and ``engine.reset_state``, or
    ``engine.reset_classic`` and, frozen, given its contract by ``engine.set_contract``;
    belote for two players: the dealer drawn between its two players, the deck dealt by
    ``engine.two.two_reset`` (the first two agent seeds are its players'; no frozen
    contract)."""
    rng = np.empty(1, dtype=np.uint64)
    hands = np.empty(N_SEATS, dtype=np.int64)
    two = P[P_FAMILY] == FAMILY_TWO
    classic = P[P_FAMILY] == FAMILY_CLASSIC
    n_players = np.int64(E2.N_PLAYERS) if two else np.int64(N_SEATS)
    base = _substream(rng, _substream(rng, seed, np.uint64(0)), np.uint64(salt))
    for k in range(len(streams)):
        rng[0] = _substream(rng, base, streams[k])
        E.rng_next(rng)                         # as rng_seed: one step before the draws
        E.random_deck(rng, decks[k])
        drawn[k] = E.rng_below(rng, n_players)
        dealer = drawn[k] if dealers[k] < 0 else dealers[k]
        for s in range(_N_SEEDS):
            seeds[k, s] = np.int64(E.rng_next(rng) >> np.uint64(1))
        S = states[k]
        if two:
            E2.two_reset(S, P, decks[k], dealer)
        elif classic:
            E.reset_classic(S, decks[k], dealer)
        else:
            E.hands_from_deck_into(decks[k], dealer, hands)
            E.reset_state(S, hands, dealer)
        if frozen:
            taker = E.rng_below(rng, np.int64(N_SEATS))
            if frozen == 2:
                strain = strains[E.rng_below(rng, len(strains))]
            elif classic:
                strain = E.retourne_of(S) >> 3
            else:
                strain = E.frozen_strain(E.hand_of(S, taker))
            E.set_contract(S, P, value, strain, np.int64(0), taker)


def _frozen_mode(frozen) -> str:
    if frozen is None or frozen is False or frozen == "" or frozen == "none":
        return ""
    if frozen is True:
        return "longest"
    if frozen in FROZEN_MODES:
        return frozen
    raise ArenaError(f"frozen_contract={frozen!r}: expected False, True, or one of "
                     f"{', '.join(map(repr, FROZEN_MODES))}")


def _deals(rules: RuleSet, P: np.ndarray, seed: int, salt: int, streams, dealers=None,
           frozen: str = ""):
    """``(states, seeds, dealers, decks)`` of the deals of streams ``streams`` (uint64) of
    ``(seed, salt)``: initial states, agent seeds, the dealers (``dealers``, else those
    drawn) and the dealing orders."""
    streams = np.ascontiguousarray(streams, dtype=np.uint64).reshape(-1)
    n = len(streams)
    given = np.full(n, -1, dtype=np.int64) if dealers is None else \
        np.ascontiguousarray(np.broadcast_to(np.asarray(dealers, dtype=np.int64), (n,)))
    states = np.empty((n, family_of(rules).state_size), dtype=np.int64)
    seeds = np.empty((n, _N_SEEDS), dtype=np.int64)
    drawn = np.empty(n, dtype=np.int64)
    decks = np.empty((n, N_CARDS), dtype=np.int64)
    value = 0 if rules.family == "classic" else rules.min_bid
    _deal_streams(P, np.uint64(int(seed) % (1 << 64)), salt, streams, given,
                  _FROZEN_CODE[frozen], value, np.array(rules.allowed_strains, dtype=np.int64),
                  states, seeds, drawn, decks)
    return states, seeds, (drawn if dealers is None else given), decks


@njit(cache=True)
def _two_deals(P, seed, indices, states, decks, dealers, seeds):
    """Belote for two players: deal ``indices[k]`` of ``seed`` from sub-stream
    ``indices[k]``: the deck and the dealer (``engine.two.two_random_deal``), then the two
    agent seeds."""
    rng = np.zeros(1, dtype=np.uint64)
    for k in range(len(indices)):
        rng_seed(rng, seed, indices[k])
        E2.two_random_deal(states[k], P, rng, np.int64(-1), decks[k])
        dealers[k] = E2.dealer_of(states[k])
        for p in range(E2.N_PLAYERS):
            seeds[k, p] = np.int64(rng_next(rng) >> np.uint64(1))


def _rules(rules) -> RuleSet:
    try:
        return get_rules(rules)
    except ValueError as e:             # InvalidRulesError, UnknownPresetError
        raise ArenaError(str(e)) from None


class DealSet:
    """The deals of a tournament: deal ``i`` depends on ``(rules, seed, i)`` only, in
    every family (a rule set of belote for two players deals its decks and two agent
    seeds per deal; ``frozen_contract`` is the four-player game's).

    >>> ds = DealSet("ffb", seed=1)
    >>> states, seeds = ds.states([0, 5])
    >>> bool((ds.states([5])[0][0] == states[1]).all()), seeds.shape
    (True, (2, 4))
    >>> ds.deal(5).phase, DealSet("ffb", 1, frozen_contract=True).deal(5).phase
    ('auction', 'play')
    >>> two = DealSet("belote_a_deux", seed=1)
    >>> two.states([0, 5])[1].shape, two.deal(5).phase
    ((2, 2), 'prise')
    """

    def __init__(self, rules: Union[str, RuleSet] = "ffb", seed: int = 0,
                 frozen_contract: Union[bool, str] = False):
        self.rules = _rules(rules)
        self.params = params_vector(self.rules)
        self.seed = _check_seed(seed)
        self.frozen = _frozen_mode(frozen_contract)
        #: the players at the table (:class:`~coinche_rl.engine.family.Family`)
        self.n_players = family_of(self.rules).n_players
        if self.frozen and self.n_players != N_SEATS:    # engine.set_contract: four players
            raise ArenaError(f"frozen_contract={frozen_contract!r}: belote for two players "
                             f"(rules {self.rules.name!r}) has a prise, not an auction to skip")

    def _deal(self, indices, frozen: str = ""):
        """``(states, seeds, dealers, decks)`` of deals ``indices``."""
        idx = _check_indices(indices)
        if self.n_players == N_SEATS:
            return _deals(self.rules, self.params, self.seed, _SALT_DEALS, idx, None, frozen)
        # the deal pairs of belote for two players keep the stream they were first played
        # from (sub-stream ``index`` of ``seed``), so that their results files resume
        n = len(idx)
        states = np.empty((n, E2.TWO_STATE_SIZE), dtype=np.int64)
        decks = np.empty((n, N_CARDS), dtype=np.int64)
        dealers = np.empty(n, dtype=np.int64)
        seeds = np.empty((n, E2.N_PLAYERS), dtype=np.int64)
        _two_deals(self.params, np.int64(seed_int64(self.seed)), idx, states, decks, dealers,
                   seeds)
        return states, seeds, dealers, decks

    def states(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(states, seeds)``: the int64 initial states of the deals ``indices``
        (``(n, STATE_SIZE)``; ``TWO_STATE_SIZE`` for two players) and their int64 agent
        seeds per (deal, seat or player)."""
        states, seeds, _, _ = self._deal(indices, self.frozen)
        return states, seeds

    def decks(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(decks, dealers)``: the dealing order (int64 ``(n, 32)``) and dealer of each
        deal: ``Deal(rules, deck=decks[k], dealer=dealers[k])`` (``TwoPlayerDeal`` for two
        players) is deal ``indices[k]``."""
        _, _, dealers, decks = self._deal(indices)
        return decks, dealers

    def deal(self, index: int):
        """Deal ``index`` before its first action, in the family's deal class
        (:func:`~coinche_rl.records.game_classes`: a :class:`~coinche_rl.game.Deal`, or a
        :class:`~coinche_rl.two_player.TwoPlayerDeal` for two players)."""
        states, _ = self.states([index])
        return game_classes(self.rules)[0].from_state(self.rules, states[0])

    def seeds(self, index: int) -> List[int]:
        """The agents' seeds of deal ``index`` (one per seat, or per player)."""
        return [int(s) for s in self.states([index])[1][0]]


def _check_seed(seed) -> int:
    """Any integer >= 0 (the streams key on its low 64 bits)."""
    return check_int(seed, "seed", 0, error=ArenaError,
                     message="seed must be a non-negative integer, not {value!r}")


def _check_indices(indices) -> np.ndarray:
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if len(idx) and idx.min() < 0:
        raise ArenaError("deal indices must be >= 0")
    return idx


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the chain of belote
#: for two players (whose deals it compiles with the four-player game's)
WARMUP_CHAIN = "two"


def warmup() -> None:
    """Compile (or load from the numba cache) the deal sets' kernels of every family
    (``coinche-rl warmup`` runs it beside the tournaments' warm-up, which compiles the
    four-player game's alone)."""
    DealSet("ffb", 0).states([0])
    DealSet("belote_a_deux", 0).states([0])
