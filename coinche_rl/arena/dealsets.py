"""Deal sets (``coinche_rl.arena.dealsets``): deal ``i`` of a deal set is a function of
``(rules, seed, i)`` alone, drawn from a stream of the engine's splitmix64 generator
keyed by ``(seed, i)`` and dealt by the engine's kernels; the match-deal and
knockout-game streams of one seed; the frozen-contract draws."""

from __future__ import annotations

from typing import List, Tuple, Union

import numpy as np
from numba import njit

from .. import engine as E
from ..cards import N_CARDS
from ..game import Deal
from ..rules import N_SEATS, P_FAMILY, RuleSet, check_int, four_player_rules, params_vector
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
    ``engine.reset_classic`` and, frozen, given its contract by ``engine.set_contract``."""
    rng = np.empty(1, dtype=np.uint64)
    hands = np.empty(N_SEATS, dtype=np.int64)
    classic = P[P_FAMILY] != 0
    base = _substream(rng, _substream(rng, seed, np.uint64(0)), np.uint64(salt))
    for k in range(len(streams)):
        rng[0] = _substream(rng, base, streams[k])
        E.rng_next(rng)                         # as rng_seed: one step before the draws
        E.random_deck(rng, decks[k])
        drawn[k] = E.rng_below(rng, np.int64(N_SEATS))
        dealer = drawn[k] if dealers[k] < 0 else dealers[k]
        for s in range(_N_SEEDS):
            seeds[k, s] = np.int64(E.rng_next(rng) >> np.uint64(1))
        S = states[k]
        if classic:
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
    states = np.empty((n, E.STATE_SIZE), dtype=np.int64)
    seeds = np.empty((n, _N_SEEDS), dtype=np.int64)
    drawn = np.empty(n, dtype=np.int64)
    decks = np.empty((n, N_CARDS), dtype=np.int64)
    value = 0 if rules.family == "classic" else rules.min_bid
    _deal_streams(P, np.uint64(int(seed) % (1 << 64)), salt, streams, given,
                  _FROZEN_CODE[frozen], value, np.array(rules.allowed_strains, dtype=np.int64),
                  states, seeds, drawn, decks)
    return states, seeds, (drawn if dealers is None else given), decks


class DealSet:
    """The deals of a tournament: deal ``i`` depends on ``(rules, seed, i)`` only.

    >>> ds = DealSet("ffb", seed=1)
    >>> states, seeds = ds.states([0, 5])
    >>> bool((ds.states([5])[0][0] == states[1]).all()), seeds.shape
    (True, (2, 4))
    >>> ds.deal(5).phase, DealSet("ffb", 1, frozen_contract=True).deal(5).phase
    ('auction', 'play')
    """

    def __init__(self, rules: Union[str, RuleSet] = "ffb", seed: int = 0,
                 frozen_contract: Union[bool, str] = False):
        self.rules = four_player_rules(rules)
        self.params = params_vector(self.rules)
        self.seed = _check_seed(seed)
        self.frozen = _frozen_mode(frozen_contract)

    def states(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(states, seeds)``: int64 ``(n, STATE_SIZE)`` initial states of the deals
        ``indices`` and int64 ``(n, 4)`` agent seeds per (deal, seat)."""
        states, seeds, _, _ = _deals(self.rules, self.params, self.seed, _SALT_DEALS,
                                     _check_indices(indices), None, self.frozen)
        return states, seeds

    def decks(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(decks, dealers)``: the dealing order (int64 ``(n, 32)``) and dealer of each
        deal: ``Deal(rules, deck=decks[k], dealer=dealers[k])`` is deal ``indices[k]``."""
        _, _, dealers, decks = _deals(self.rules, self.params, self.seed, _SALT_DEALS,
                                      _check_indices(indices))
        return decks, dealers

    def deal(self, index: int) -> Deal:
        """Deal ``index`` as a :class:`~coinche_rl.game.Deal` (before its first action)."""
        states, _ = self.states([index])
        return Deal.from_state(self.rules, states[0])

    def seeds(self, index: int) -> List[int]:
        """The four agents' seeds of deal ``index``."""
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
