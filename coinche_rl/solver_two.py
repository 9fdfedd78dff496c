"""A double-dummy solver for belote for two players (RULES.md §12): the card points each
player wins from a position when every card is known, both playing perfectly.

"Double dummy" here means every card's place is known, the face-down cards included;
the covering constraint stays: a face-down card is playable only from the trick after
the one that played the card covering it. The search is alpha-beta over whole tricks
(the leader's card, then the follower's reply) with a transposition table keyed on the
cards played and the leader, which determine the position (a face-down card is turned
up exactly when its cover has been played). Values are card points (dix de der
included; the capot's extra 90 is not counted) won by player 0 from the position on;
player 0 maximises, player 1 minimises.

Card-play legality is the engine's (:func:`coinche_rl.engine.play.card_play_rule`, no
partner), card order and points the rules' tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine.bits import lowest_card, popcount
from .engine.play import beats, card_play_rule
from .engine.two import (DIX_DE_DER, N_TRICKS_TWO, PLAY, T_DOWN, T_HAND, T_LEADER, T_PHASE,
                         T_PLAYED, T_POINTS, T_TRICK_N, T_TRICK_NO, T_TRUMP, T_UNDER, T_UP,
                         T_WIN_CARD)
from .rules import ABOVE, ALL_CARD_POINTS, CARD_ORDER

__all__ = ["TwoPlayerSolver", "solve_two", "card_values_two", "TT_BITS"]

_POINTS = ALL_CARD_POINTS[0]
#: transposition table size: 2**TT_BITS entries
TT_BITS = 20
_EMPTY = np.int64(-1)
# workspace slots (int64): counters
W_NODES = 0
W_SIZE = 4


@njit(cache=True, _nrt=False, inline="always")
def _legal_follow(avail, lead, strain):
    """The follower's legal cards among ``avail`` after ``lead`` (RULES.md §12)."""
    return card_play_rule(avail, lead >> 3, lead, ABOVE[strain, lead], False, strain, 0)[0]


@njit(cache=True, _nrt=False, inline="always")
def _order_key(c, strain):
    """Cards tried first: the strongest (trumps above plain cards)."""
    k = CARD_ORDER[strain, c]
    if (c >> 3) == strain:
        k += 16
    return k


@njit(cache=True)
def _search(av0, av1, dn0, dn1, played, leader, n_left, alpha, beta, strain, under,
            tt_key, tt_lo, tt_hi, work):
    """Card points player 0 wins in the ``n_left`` remaining tricks (exact when inside
    ``(alpha, beta)``, else a bound on the right side). ``av*``: playable cards,
    ``dn*``: face-down cards, ``leader``: who leads the next trick."""
    work[W_NODES] += 1
    if n_left == 0:
        return 0
    key = played | (np.int64(leader) << 32)
    slot = ((key * np.int64(-7046029254386353131)) >> np.int64(64 - TT_BITS)) & ((1 << TT_BITS) - 1)
    lo = 0
    hi = 0
    # the points still in play bound the value
    rem = 0
    m = av0 | av1 | dn0 | dn1
    while m:
        c = lowest_card(m)
        m &= m - 1
        rem += _POINTS[strain, c]
    rem += DIX_DE_DER
    lo = 0
    hi = rem
    if tt_key[slot] == key:
        if tt_lo[slot] > lo:
            lo = tt_lo[slot]
        if tt_hi[slot] < hi:
            hi = tt_hi[slot]
        if lo >= hi:
            return lo
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
    a0 = alpha if alpha > lo else lo
    b0 = beta if beta < hi else hi
    lead_av = av0 if leader == 0 else av1
    foll_av = av1 if leader == 0 else av0
    maximize = leader == 0
    best = -1 if maximize else 1 << 20
    a = a0
    b = b0
    # leader's cards, strongest first
    cand = lead_av
    while cand:
        # pick the remaining card with the highest order key
        bestc = -1
        bestk = -1
        mm = cand
        while mm:
            c = lowest_card(mm)
            mm &= mm - 1
            k = _order_key(c, strain)
            if k > bestk:
                bestk = k
                bestc = c
        lead = bestc
        cand &= ~(np.int64(1) << lead)
        # the follower's reply: he minimises when the leader maximises
        fl = _legal_follow(foll_av, lead, strain)
        inner = 1 << 20 if maximize else -1
        ia = a
        ib = b
        fm = fl
        while fm:
            f = lowest_card(fm)
            fm &= fm - 1
            follower_wins = beats(f, lead, strain)
            winner = (1 - leader) if follower_wins else leader
            pts = _POINTS[strain, lead] + _POINTS[strain, f]
            if n_left == 1:
                pts += DIX_DE_DER
            gain = pts if winner == 0 else 0
            # the next position: cards played, covers revealed
            nav0 = av0
            nav1 = av1
            ndn0 = dn0
            ndn1 = dn1
            lb = np.int64(1) << lead
            fb = np.int64(1) << f
            if leader == 0:
                nav0 &= ~lb
                nav1 &= ~fb
            else:
                nav1 &= ~lb
                nav0 &= ~fb
            for pc in range(2):
                c = lead if pc == 0 else f
                owner = leader if pc == 0 else 1 - leader
                d = under[c]
                if d >= 0:
                    if owner == 0:
                        ndn0 &= ~(np.int64(1) << d)
                        nav0 |= np.int64(1) << d
                    else:
                        ndn1 &= ~(np.int64(1) << d)
                        nav1 |= np.int64(1) << d
            v = gain + _search(nav0, nav1, ndn0, ndn1, played | lb | fb, winner, n_left - 1,
                               ia - gain, ib - gain, strain, under, tt_key, tt_lo, tt_hi, work)
            if maximize:
                # follower minimises
                if v < inner:
                    inner = v
                if inner < ib:
                    ib = inner
                if inner <= ia:
                    break
            else:
                if v > inner:
                    inner = v
                if inner > ia:
                    ia = inner
                if inner >= ib:
                    break
        if maximize:
            if inner > best:
                best = inner
            if best > a:
                a = best
            if best >= b:
                break
        else:
            if inner < best:
                best = inner
            if best < b:
                b = best
            if best <= a:
                break
    # store the bound
    if tt_key[slot] != key:
        tt_key[slot] = key
        tt_lo[slot] = 0
        tt_hi[slot] = rem
    if best <= a0:
        if best < tt_hi[slot]:
            tt_hi[slot] = best
    elif best >= b0:
        if best > tt_lo[slot]:
            tt_lo[slot] = best
    else:
        tt_lo[slot] = best
        tt_hi[slot] = best
    return best


@njit(cache=True)
def _position(T):
    """``(av0, av1, dn0, dn1, played)`` of the engine state ``T`` (play phase)."""
    av0 = T[T_HAND] | T[T_UP]
    av1 = T[T_HAND + 1] | T[T_UP + 1]
    return av0, av1, T[T_DOWN], T[T_DOWN + 1], T[T_PLAYED]


@njit(cache=True)
def card_values_two(T, tt_key, tt_lo, tt_hi, work, out):
    """For each legal card of the player to act in ``T`` (a full state, every card
    known; play phase): ``out[card]`` := the card points **the player to act** wins in
    the whole deal (points already won included) when he plays it and both play
    perfectly after; -1 for the other cards. Returns the number of legal cards."""
    for c in range(32):
        out[c] = -1
    strain = T[T_TRUMP]
    under = T[T_UNDER:T_UNDER + 32]
    av0, av1, dn0, dn1, played = _position(T)
    me = T[T_LEADER] if T[T_TRICK_N] == 0 else 1 - T[T_LEADER]
    n_left = N_TRICKS_TWO - T[T_TRICK_NO]
    won = T[T_POINTS + me]
    tot = 0
    mine = av0 if me == 0 else av1
    if T[T_TRICK_N] == 0:
        legal = mine
    else:
        legal = _legal_follow(mine, T[T_WIN_CARD], strain)
    m = legal
    total_rest = 0
    mm = av0 | av1 | dn0 | dn1
    while mm:
        c = lowest_card(mm)
        mm &= mm - 1
        total_rest += _POINTS[strain, c]
    if T[T_TRICK_N] == 1:
        total_rest += _POINTS[strain, T[T_WIN_CARD]]
    total_rest += DIX_DE_DER
    while m:
        c = lowest_card(m)
        m &= m - 1
        tot += 1
        cb = np.int64(1) << c
        if T[T_TRICK_N] == 0:
            # lead c, then the follower's best reply and the rest
            nav0 = av0 & ~cb if me == 0 else av0
            nav1 = av1 & ~cb if me == 1 else av1
            v0 = _after_lead(nav0, nav1, dn0, dn1, played | cb, me, c, n_left, strain, under,
                             tt_key, tt_lo, tt_hi, work)
        else:
            lead = T[T_WIN_CARD]
            leader = 1 - me
            v0 = _after_follow(av0, av1, dn0, dn1, played, leader, lead, c, n_left, strain,
                               under, tt_key, tt_lo, tt_hi, work)
        # v0: player 0's points from the current trick on
        mine_rest = v0 if me == 0 else total_rest - v0
        out[c] = won + mine_rest
    return tot


@njit(cache=True)
def _after_follow(av0, av1, dn0, dn1, played, leader, lead, f, n_left, strain, under,
                  tt_key, tt_lo, tt_hi, work):
    """Player 0's points from the current trick on when ``leader`` led ``lead`` (already
    out of his cards) and the follower plays ``f``."""
    follower = 1 - leader
    winner = follower if beats(f, lead, strain) else leader
    pts = _POINTS[strain, lead] + _POINTS[strain, f]
    if n_left == 1:
        pts += DIX_DE_DER
    gain = pts if winner == 0 else 0
    fb = np.int64(1) << f
    lb = np.int64(1) << lead
    if follower == 0:
        av0 &= ~fb
    else:
        av1 &= ~fb
    for pc in range(2):
        c = lead if pc == 0 else f
        owner = leader if pc == 0 else follower
        d = under[c]
        if d >= 0:
            if owner == 0:
                dn0 &= ~(np.int64(1) << d)
                av0 |= np.int64(1) << d
            else:
                dn1 &= ~(np.int64(1) << d)
                av1 |= np.int64(1) << d
    return gain + _search(av0, av1, dn0, dn1, played | lb | fb, winner, n_left - 1, -1, 1 << 20,
                          strain, under, tt_key, tt_lo, tt_hi, work)


@njit(cache=True)
def _after_lead(av0, av1, dn0, dn1, played, leader, lead, n_left, strain, under,
                tt_key, tt_lo, tt_hi, work):
    """Player 0's points from the current trick on when ``leader`` leads ``lead`` and
    the follower replies at best."""
    foll_av = av1 if leader == 0 else av0
    fl = _legal_follow(foll_av, lead, strain)
    best = 1 << 20 if leader == 0 else -1
    while fl:
        f = lowest_card(fl)
        fl &= fl - 1
        v = _after_follow(av0, av1, dn0, dn1, played & ~(np.int64(1) << lead), leader, lead, f,
                          n_left, strain, under, tt_key, tt_lo, tt_hi, work)
        if leader == 0:
            if v < best:
                best = v
        elif v > best:
            best = v
    return best


@njit(cache=True)
def solve_two_state(T, tt_key, tt_lo, tt_hi, work):
    """Card points player 0 wins in the whole deal of the full state ``T`` (play phase,
    at a trick's start or after its first card), both playing perfectly."""
    strain = T[T_TRUMP]
    under = T[T_UNDER:T_UNDER + 32]
    av0, av1, dn0, dn1, played = _position(T)
    n_left = N_TRICKS_TWO - T[T_TRICK_NO]
    if T[T_TRICK_N] == 0:
        v = _search(av0, av1, dn0, dn1, played, T[T_LEADER], n_left, -1, 1 << 20, strain,
                    under, tt_key, tt_lo, tt_hi, work)
    else:
        leader = T[T_LEADER]
        lead = T[T_WIN_CARD]
        v = _after_lead(av0, av1, dn0, dn1, played, leader, lead, n_left, strain, under,
                        tt_key, tt_lo, tt_hi, work)
    return T[T_POINTS] + v


class TwoPlayerSolver:
    """A reusable double-dummy solver (its transposition table is cleared per call).

    >>> from coinche_rl.two_player import TwoPlayerDeal
    >>> deal = TwoPlayerDeal("belote_decouverte", seed=2, dealer=0)
    >>> deal.apply("take")
    >>> solver = TwoPlayerSolver()
    >>> p0 = solver.solve(deal.state)
    >>> 0 <= p0 <= 162
    True
    """

    def __init__(self, tt_bits: int = TT_BITS):
        n = 1 << TT_BITS
        self.tt_key = np.full(n, _EMPTY, dtype=np.int64)
        self.tt_lo = np.zeros(n, dtype=np.int64)
        self.tt_hi = np.zeros(n, dtype=np.int64)
        self.work = np.zeros(W_SIZE, dtype=np.int64)

    def _clear(self):
        self.tt_key.fill(_EMPTY)
        self.work[:] = 0

    @property
    def nodes(self) -> int:
        """Positions searched by the last call."""
        return int(self.work[W_NODES])

    def solve(self, state: np.ndarray) -> int:
        """Card points player 0 wins in the whole deal of the full state (play phase)."""
        T = np.asarray(state, dtype=np.int64)
        if T[T_PHASE] != PLAY:
            raise ValueError("the solver needs a deal in its play phase")
        self._clear()
        return int(solve_two_state(T, self.tt_key, self.tt_lo, self.tt_hi, self.work))

    def card_values(self, state: np.ndarray) -> np.ndarray:
        """int64[32]: for each legal card of the player to act, the card points he wins
        in the whole deal when he plays it (-1 for other cards)."""
        T = np.asarray(state, dtype=np.int64)
        if T[T_PHASE] != PLAY:
            raise ValueError("the solver needs a deal in its play phase")
        self._clear()
        out = np.empty(32, dtype=np.int64)
        card_values_two(T, self.tt_key, self.tt_lo, self.tt_hi, self.work, out)
        return out


def solve_two(state: np.ndarray) -> int:
    """Card points player 0 wins from the full state ``state`` (a fresh solver)."""
    return TwoPlayerSolver().solve(state)
