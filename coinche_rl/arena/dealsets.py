"""Deal sets (``coinche_rl.arena.dealsets``): deal ``i`` of a deal set is a function of
``(rules, seed, i)`` alone, drawn from a splitmix64 stream keyed by ``(seed, i)``; the
match-deal and knockout-game streams of one seed; the frozen-contract draws."""

from __future__ import annotations

from typing import List, Tuple, Union

import numpy as np

from .. import engine as E
from ..game import Deal
from ..rules import TRUMP_POINTS, RuleSet, get_rules, params_vector
from .errors import ArenaError

__all__ = ["DealSet", "FROZEN_MODES"]

#: ``frozen_contract`` values: how the contract of a frozen-auction deal is drawn
FROZEN_MODES = ("longest", "uniform")


_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_C1, _C2, _C3 = _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB), _U(0xD1B54A32D192ED03)
#: draws per deal: 32 shuffle keys, dealer, 4 agent seeds, frozen taker and strain
_N_DRAWS = 39
_D_DEALER, _D_SEEDS, _D_TAKER, _D_STRAIN = 32, 33, 37, 38
#: separate streams for the deal sets, match deals and knockout games of one seed
_SALT_DEALS, _SALT_MATCH, _SALT_KNOCKOUT = 0, 1, 2
#: deals per match in the match-deal stream (Match.max_deals is 1000)
_MATCH_STRIDE = 4096
_MAX_MATCH_DEALS = 1000

# deal positions 0..31 -> receiver (0 = the seat after the dealer), packets 3-2-3
_RECEIVER = np.array([k for packet in (3, 2, 3) for k in range(4) for _ in range(packet)],
                     dtype=np.int64)
_BYTE_COUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
_BYTE_TRUMP = np.array([sum(TRUMP_POINTS[r] for r in range(8) if b >> r & 1) for b in range(256)],
                       dtype=np.int64)


def _mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 output function (uint64 arrays, wrapping arithmetic)."""
    z = z + _GOLDEN
    z = (z ^ (z >> _U(30))) * _C1
    z = (z ^ (z >> _U(27))) * _C2
    return z ^ (z >> _U(31))


def _draws(seed: int, salt: int, streams) -> np.ndarray:
    """``(n, _N_DRAWS)`` uint64: a splitmix64 stream per ``(seed, salt, stream)``."""
    base = _mix(np.array([int(seed) % (1 << 64)], dtype=np.uint64))
    base = _mix(base + np.array([salt], dtype=np.uint64) * _C3)
    s = np.asarray(streams, dtype=np.uint64).reshape(-1)
    h = _mix(base + s * _C3)
    return _mix(h[:, None] + np.arange(1, _N_DRAWS + 1, dtype=np.uint64)[None, :] * _GOLDEN)


_CLEARED = None


def _cleared_states() -> np.ndarray:
    """``(4, STATE_SIZE)``: a coinche-family state before the deal, per dealer."""
    global _CLEARED
    if _CLEARED is None:
        c = np.empty((4, E.STATE_SIZE), dtype=np.int64)
        for dealer in range(4):
            E.reset_state(c[dealer], np.zeros(4, dtype=np.int64), dealer)
        _CLEARED = c
    return _CLEARED


def _frozen_mode(frozen) -> str:
    if frozen is None or frozen is False or frozen == "" or frozen == "none":
        return ""
    if frozen is True:
        return "longest"
    if frozen in FROZEN_MODES:
        return frozen
    raise ArenaError(f"frozen_contract={frozen!r}: expected False, True, or one of "
                     f"{', '.join(map(repr, FROZEN_MODES))}")


def _build_states(rules: RuleSet, P: np.ndarray, d: np.ndarray, dealers, frozen: str):
    """Initial states, agent seeds and dealers from the draws ``d`` (one row per deal)."""
    n = len(d)
    decks = np.argsort(d[:, :32], axis=1, kind="stable").astype(np.int64)
    drawn = (d[:, _D_DEALER] >> _U(62)).astype(np.int64)
    dealers = drawn if dealers is None else np.asarray(dealers, dtype=np.int64)
    seeds = np.ascontiguousarray((d[:, _D_SEEDS:_D_SEEDS + 4] >> _U(1)).astype(np.int64))
    states = np.empty((n, E.STATE_SIZE), dtype=np.int64)
    classic = rules.family == "classic"
    if classic:
        for i in range(n):
            E.reset_classic(states[i], decks[i], int(dealers[i]))
    else:
        # reset_state is the cleared state of the dealer plus the hands: build the four
        # cleared states once and fill in the hands (a test compares with Deal(deck=...))
        seat = (dealers[:, None] + 1 + _RECEIVER[None, :]) & 3
        bits = np.left_shift(np.int64(1), decks)
        hands = np.stack([(bits * (seat == s)).sum(axis=1) for s in range(4)], axis=1)
        states[:] = _cleared_states()[dealers]
        states[:, E.S_HAND:E.S_HAND + 4] = hands
        states[:, E.S_INIT_HAND:E.S_INIT_HAND + 4] = hands
    if frozen:
        takers = (d[:, _D_TAKER] >> _U(62)).astype(np.int64)
        strains_allowed = rules.allowed_strains
        if frozen == "uniform":
            k = len(strains_allowed)
            pick = ((d[:, _D_STRAIN] >> _U(32)) * _U(k)) >> _U(32)
            strains = np.array(strains_allowed, dtype=np.int64)[pick.astype(np.int64)]
        elif classic:
            strains = states[:, E.S_RETOURNE] >> 3
        else:
            hand = states[np.arange(n), E.S_HAND + takers]
            key = np.stack([_BYTE_COUNT[(hand >> (8 * s)) & 0xFF] * 64
                            + _BYTE_TRUMP[(hand >> (8 * s)) & 0xFF] for s in range(4)], axis=1)
            strains = np.argmax(key, axis=1).astype(np.int64)
        value = 0 if classic else rules.min_bid
        for i in range(n):
            E.set_contract(states[i], P, value, int(strains[i]), 0, int(takers[i]))
    return states, seeds, dealers, decks


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
        self.rules = get_rules(rules)
        self.params = params_vector(self.rules)
        self.seed = _check_seed(seed)
        self.frozen = _frozen_mode(frozen_contract)

    def states(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(states, seeds)``: int64 ``(n, STATE_SIZE)`` initial states of the deals
        ``indices`` and int64 ``(n, 4)`` agent seeds per (deal, seat)."""
        idx = _check_indices(indices)
        d = _draws(self.seed, _SALT_DEALS, idx)
        states, seeds, _, _ = _build_states(self.rules, self.params, d, None, self.frozen)
        return states, seeds

    def decks(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(decks, dealers)``: the dealing order (int64 ``(n, 32)``) and dealer of each
        deal: ``Deal(rules, deck=decks[k], dealer=dealers[k])`` is deal ``indices[k]``."""
        idx = _check_indices(indices)
        d = _draws(self.seed, _SALT_DEALS, idx)
        decks = np.argsort(d[:, :32], axis=1, kind="stable").astype(np.int64)
        return decks, (d[:, _D_DEALER] >> _U(62)).astype(np.int64)

    def deal(self, index: int) -> Deal:
        """Deal ``index`` as a :class:`~coinche_rl.game.Deal` (before its first action)."""
        states, _ = self.states([index])
        return Deal.from_state(self.rules, states[0])

    def seeds(self, index: int) -> List[int]:
        """The four agents' seeds of deal ``index``."""
        return [int(s) for s in self.states([index])[1][0]]


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ArenaError(f"seed must be a non-negative integer, not {seed!r}")
    return int(seed)


def _check_indices(indices) -> np.ndarray:
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if len(idx) and idx.min() < 0:
        raise ArenaError("deal indices must be >= 0")
    return idx
