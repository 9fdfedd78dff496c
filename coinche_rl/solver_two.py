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

from .engine import FlatLayout
from .engine.bits import lowest_card
from .engine.play import beats, card_play_rule
from .engine.two import (DIX_DE_DER, N_PLAYERS, N_TRICKS_TWO, PLAY, card_points_won,
                         cards_in_trick, cards_under, current_leader, face_down_cards, led_card,
                         other, playable_cards, played_cards, py, trick_number,
                         trump_of, writable_state)
from .rules import ABOVE, ALL_CARD_POINTS, CARD_ORDER

__all__ = ["TwoPlayerSolver", "solve_two", "card_values_two", "TT_BITS", "N_SALTS"]

_POINTS = ALL_CARD_POINTS[0]
#: transposition table size: 2**TT_BITS entries of one int64 (64 MB)
TT_BITS = 23
_EMPTY = np.int64(-1)
# workspace slots (int64): the node counter, and a salt (0..127) mixed into the
# transposition keys so that searches of different worlds can share one table without
# clearing it (PIMC: a new salt per world, a clear every 128)
_W = FlatLayout()
W_NODES = _W.block(1)
W_SALT = _W.block(1)
_W.spare(2)
W_SIZE = _W.size
assert (W_NODES, W_SALT, W_SIZE) == (0, 1, 4)
N_SALTS = 128


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


#: a transposition-table entry packs ``key << 22 | lo << 14 | hi << 6 | best card``
#: (key: the 32 cards played, the leader and the salt, 40 bits; values 0..255: a deal
#: has 162 card points; best card 63: none)
_NO_BEST = 63


@njit(cache=True, _nrt=False, inline="always")
def _zero_point_twin(c, avail, strain, under):
    """True when ``c`` is a card worth 0 points with another such card of its suit just
    below it in ``avail`` (7-8, 8-9 outside trump; 7-8 in trump) and neither covers a
    face-down card: the two play alike, only the lower one is searched."""
    if _POINTS[strain, c] != 0 or under[c] >= 0 or (c & 7) == 0:
        return False
    lower = c - 1
    return (avail >> lower) & 1 == 1 and _POINTS[strain, lower] == 0 and under[lower] < 0


@njit(cache=True, _nrt=False, inline="always")
def _sorted_into(cards, keys, kb, buf, base):
    """Write the cards of ``cards`` into ``buf[base:]`` by decreasing ``keys[kb + card]``
    (insertion sort; at most 16 cards); returns how many."""
    n = 0
    m = cards
    while m:
        c = lowest_card(m)
        m &= m - 1
        k = keys[kb + c]
        i = n
        while i > 0 and keys[kb + buf[base + i - 1]] < k:
            buf[base + i] = buf[base + i - 1]
            i -= 1
        buf[base + i] = c
        n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def _reveal_covered(av0, av1, dn0, dn1, leader, lead, f, under):
    """The playable and face-down cards once the trick ``lead`` (by ``leader``) / ``f``
    is collected: each face-down card under one of them turns up (both cards already
    out of the players' playable cards)."""
    for pc in range(N_PLAYERS):
        c = lead if pc == 0 else f
        owner = leader if pc == 0 else other(leader)
        d = under[c]
        if d >= 0:
            if owner == 0:
                dn0 &= ~(np.int64(1) << d)
                av0 |= np.int64(1) << d
            else:
                dn1 &= ~(np.int64(1) << d)
                av1 |= np.int64(1) << d
    return av0, av1, dn0, dn1


# the fields of one search frame (one row of ``F`` per remaining-trick count)
(F_AV0, F_AV1, F_DN0, F_DN1, F_PLAYED, F_LEADER, F_NLEFT, F_ALPHA, F_BETA, F_REM, F_KEY,
 F_SLOT, F_A0, F_B0, F_LO, F_HI, F_BEST, F_BESTC, F_A, F_B, F_NLEAD, F_LI, F_LEAD, F_NF,
 F_FI, F_INNER, F_IA, F_IB, F_GAIN, F_PTS) = range(30)
N_FIELDS = 30
_INF = 1 << 20


@njit(cache=True, _nrt=False)
def _set_position(f, av0, av1, dn0, dn1, played, leader, n_left, alpha, beta, rem):
    """Frame ``f`` := the position :func:`_search` enters (its first ten fields, in the
    order of its arguments: the root's, then each child's after a trick)."""
    f[F_AV0], f[F_AV1], f[F_DN0], f[F_DN1], f[F_PLAYED] = av0, av1, dn0, dn1, played
    f[F_LEADER], f[F_NLEFT], f[F_ALPHA], f[F_BETA], f[F_REM] = leader, n_left, alpha, beta, rem


@njit(cache=True, _nrt=False)
def _search(av0, av1, dn0, dn1, played, leader, n_left, alpha, beta, strain, under, tt, work,
            rem, F, buf, keys):
    """Card points player 0 wins in the ``n_left`` remaining tricks (exact when inside
    ``(alpha, beta)``, else a bound on the right side; fail-soft). ``av*``: playable
    cards, ``dn*``: face-down cards, ``leader``: who leads the next trick, ``rem``: the
    card points still to win (dix de der included). Iterative (an explicit stack of
    frames ``F``, one per trick; numba cannot cache a recursive function):
    ``buf``/``keys`` hold each frame's ordered moves."""
    sp = 0
    _set_position(F[0], av0, av1, dn0, dn1, played, leader, n_left, alpha, beta, rem)
    entering = True
    ret = 0
    while True:
        fr = F[sp]
        if entering:
            work[W_NODES] += 1
            if fr[F_NLEFT] == 0:
                ret = 0
                sp -= 1
                if sp < 0:
                    return ret
                entering = False
                continue
            key = fr[F_PLAYED] | (fr[F_LEADER] << 32) | (work[W_SALT] << 33)
            slot = ((key * np.int64(-7046029254386353131)) >> np.int64(64 - TT_BITS)) & ((1 << TT_BITS) - 1)
            lo = 0
            hi = fr[F_REM]
            first = _NO_BEST
            e = tt[slot]
            if e >= 0 and (e >> 22) == key:
                lo = (e >> 14) & 255
                hi = (e >> 6) & 255
                first = e & 63
                if lo >= hi or lo >= fr[F_BETA] or hi <= fr[F_ALPHA]:
                    ret = lo if (lo >= hi or lo >= fr[F_BETA]) else hi
                    sp -= 1
                    if sp < 0:
                        return ret
                    entering = False
                    continue
            fr[F_KEY] = key
            fr[F_SLOT] = slot
            fr[F_LO] = lo
            fr[F_HI] = hi
            a0 = fr[F_ALPHA] if fr[F_ALPHA] > lo else lo
            b0 = fr[F_BETA] if fr[F_BETA] < hi else hi
            fr[F_A0] = a0
            fr[F_B0] = b0
            fr[F_A] = a0
            fr[F_B] = b0
            fr[F_BEST] = -1 if fr[F_LEADER] == 0 else _INF
            fr[F_BESTC] = _NO_BEST
            lead_av = fr[F_AV0] if fr[F_LEADER] == 0 else fr[F_AV1]
            kb = 32 * sp
            mm = lead_av
            while mm:
                c = lowest_card(mm)
                mm &= mm - 1
                keys[kb + c] = _order_key(c, strain) + (100 if c == first else 0)
            fr[F_NLEAD] = _sorted_into(lead_av, keys, kb, buf, 32 * sp)
            fr[F_LI] = -1
            fr[F_NF] = 0
            fr[F_FI] = 0
        else:
            # a child returned ``ret``: the value of the current (lead, reply)
            v = fr[F_GAIN] + ret
            if fr[F_LEADER] == 0:          # the follower minimises
                if v < fr[F_INNER]:
                    fr[F_INNER] = v
                if fr[F_INNER] < fr[F_IB]:
                    fr[F_IB] = fr[F_INNER]
                if fr[F_INNER] <= fr[F_IA]:
                    fr[F_FI] = fr[F_NF]    # cut: no more replies
            else:
                if v > fr[F_INNER]:
                    fr[F_INNER] = v
                if fr[F_INNER] > fr[F_IA]:
                    fr[F_IA] = fr[F_INNER]
                if fr[F_INNER] >= fr[F_IB]:
                    fr[F_FI] = fr[F_NF]
        # advance: the next reply of the current lead, or the next lead, or return
        leader = fr[F_LEADER]
        maximize = leader == 0
        lead_av = fr[F_AV0] if maximize else fr[F_AV1]
        foll_av = fr[F_AV1] if maximize else fr[F_AV0]
        pushed = False
        done = False
        while not pushed and not done:
            if fr[F_LI] >= 0 and fr[F_FI] < fr[F_NF]:
                f = buf[32 * sp + 16 + fr[F_FI]]
                fr[F_FI] += 1
                if _zero_point_twin(f, foll_av, strain, under):
                    continue
                lead = fr[F_LEAD]
                winner = other(leader) if beats(f, lead, strain) else leader
                pts = _POINTS[strain, lead] + _POINTS[strain, f]
                if fr[F_NLEFT] == 1:
                    pts += DIX_DE_DER
                fr[F_GAIN] = pts if winner == 0 else 0
                fr[F_PTS] = pts
                nav0 = fr[F_AV0]
                nav1 = fr[F_AV1]
                ndn0 = fr[F_DN0]
                ndn1 = fr[F_DN1]
                lb = np.int64(1) << lead
                fb = np.int64(1) << f
                if maximize:
                    nav0 &= ~lb
                    nav1 &= ~fb
                else:
                    nav1 &= ~lb
                    nav0 &= ~fb
                nav0, nav1, ndn0, ndn1 = _reveal_covered(nav0, nav1, ndn0, ndn1, leader, lead,
                                                         f, under)
                _set_position(F[sp + 1], nav0, nav1, ndn0, ndn1, fr[F_PLAYED] | lb | fb, winner,
                              fr[F_NLEFT] - 1, fr[F_IA] - fr[F_GAIN], fr[F_IB] - fr[F_GAIN],
                              fr[F_REM] - pts)
                pushed = True
                break
            # the current lead is finished (or none yet): account for it
            if fr[F_LI] >= 0:
                inner = fr[F_INNER]
                if maximize:
                    if inner > fr[F_BEST]:
                        fr[F_BEST] = inner
                        fr[F_BESTC] = fr[F_LEAD]
                    if fr[F_BEST] > fr[F_A]:
                        fr[F_A] = fr[F_BEST]
                    if fr[F_BEST] >= fr[F_B]:
                        done = True
                        break
                else:
                    if inner < fr[F_BEST]:
                        fr[F_BEST] = inner
                        fr[F_BESTC] = fr[F_LEAD]
                    if fr[F_BEST] < fr[F_B]:
                        fr[F_B] = fr[F_BEST]
                    if fr[F_BEST] <= fr[F_A]:
                        done = True
                        break
            # the next lead
            fr[F_LI] += 1
            if fr[F_LI] >= fr[F_NLEAD]:
                done = True
                break
            lead = buf[32 * sp + fr[F_LI]]
            if _zero_point_twin(lead, lead_av, strain, under):
                fr[F_NF] = 0
                fr[F_FI] = 0
                fr[F_INNER] = fr[F_BEST]          # no effect on best
                continue
            fr[F_LEAD] = lead
            fl = _legal_follow(foll_av, lead, strain)
            kb = 32 * sp
            mm = fl
            while mm:
                c = lowest_card(mm)
                mm &= mm - 1
                if beats(c, lead, strain):
                    keys[kb + c] = 1000 - CARD_ORDER[strain, c] - (16 if (c >> 3) == strain else 0)
                else:
                    keys[kb + c] = 100 - _POINTS[strain, c]
            fr[F_NF] = _sorted_into(fl, keys, kb, buf, 32 * sp + 16)
            fr[F_FI] = 0
            fr[F_INNER] = _INF if maximize else -1
            fr[F_IA] = fr[F_A]
            fr[F_IB] = fr[F_B]
        if pushed:
            sp += 1
            entering = True
            continue
        # return this frame's value; store the bound it proved
        best = fr[F_BEST]
        nlo = fr[F_LO]
        nhi = fr[F_HI]
        if best <= fr[F_A0]:
            nhi = best if best < nhi else nhi
        elif best >= fr[F_B0]:
            nlo = best if best > nlo else nlo
        else:
            nlo = best
            nhi = best
        tt[fr[F_SLOT]] = (fr[F_KEY] << 22) | (nlo << 14) | (nhi << 6) | fr[F_BESTC]
        ret = best
        sp -= 1
        if sp < 0:
            return ret
        entering = False


@njit(cache=True)
def _position(T):
    """``(av0, av1, dn0, dn1, played, rem)`` of the engine state ``T`` (play phase):
    ``rem`` the card points not yet won (the current trick's card and the dix de der
    included)."""
    av0 = playable_cards(T, 0)
    av1 = playable_cards(T, 1)
    strain = trump_of(T)
    rem = DIX_DE_DER
    m = av0 | av1 | face_down_cards(T, 0) | face_down_cards(T, 1)
    while m:
        c = lowest_card(m)
        m &= m - 1
        rem += _POINTS[strain, c]
    if cards_in_trick(T) == 1:
        rem += _POINTS[strain, led_card(T)]
    return av0, av1, face_down_cards(T, 0), face_down_cards(T, 1), played_cards(T), rem


@njit(cache=True)
def _after_follow(av0, av1, dn0, dn1, played, leader, lead, f, n_left, strain, under,
                  tt, work, rem, F, buf, keys):
    """Player 0's points from the current trick on when ``leader`` led ``lead`` (already
    out of his cards, ``played`` without it) and the follower plays ``f``."""
    follower = other(leader)
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
    av0, av1, dn0, dn1 = _reveal_covered(av0, av1, dn0, dn1, leader, lead, f, under)
    return gain + _search(av0, av1, dn0, dn1, played | lb | fb, winner, n_left - 1, -1, 1 << 20,
                          strain, under, tt, work, rem - pts, F, buf, keys)


@njit(cache=True)
def _after_lead(av0, av1, dn0, dn1, played, leader, lead, n_left, strain, under, tt, work,
                rem, F, buf, keys):
    """Player 0's points from the current trick on when ``leader`` leads ``lead`` (out
    of his cards) and the follower replies at best."""
    foll_av = av1 if leader == 0 else av0
    fl = _legal_follow(foll_av, lead, strain)
    best = 1 << 20 if leader == 0 else -1
    while fl:
        f = lowest_card(fl)
        fl &= fl - 1
        v = _after_follow(av0, av1, dn0, dn1, played & ~(np.int64(1) << lead), leader, lead, f,
                          n_left, strain, under, tt, work, rem, F, buf, keys)
        if leader == 0:
            if v < best:
                best = v
        elif v > best:
            best = v
    return best


@njit(cache=True)
def card_values_two(T, tt, work, out):
    """For each legal card of the player to act in ``T`` (a full state, every card
    known; play phase): ``out[card]`` := the card points **the player to act** wins in
    the whole deal (points already won included) when he plays it and both play
    perfectly after; -1 for the other cards. Returns the number of legal cards."""
    for c in range(32):
        out[c] = -1
    strain = trump_of(T)
    under = cards_under(T)
    buf = np.empty(32 * (N_TRICKS_TWO + 1), dtype=np.int64)
    keys = np.empty(32 * (N_TRICKS_TWO + 1), dtype=np.int64)
    F = np.zeros((N_TRICKS_TWO + 2, N_FIELDS), dtype=np.int64)
    av0, av1, dn0, dn1, played, rem = _position(T)
    me = current_leader(T) if cards_in_trick(T) == 0 else other(current_leader(T))
    n_left = N_TRICKS_TWO - trick_number(T)
    won = card_points_won(T, me)
    mine = av0 if me == 0 else av1
    legal = mine if cards_in_trick(T) == 0 else _legal_follow(mine, led_card(T), strain)
    n = 0
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        n += 1
        cb = np.int64(1) << c
        if cards_in_trick(T) == 0:
            v0 = _after_lead(av0 & ~cb if me == 0 else av0, av1 & ~cb if me == 1 else av1,
                             dn0, dn1, played | cb, me, c, n_left, strain, under, tt, work,
                             rem, F, buf, keys)
        else:
            v0 = _after_follow(av0, av1, dn0, dn1, played, other(me), led_card(T), c, n_left,
                               strain, under, tt, work, rem, F, buf, keys)
        out[c] = won + (v0 if me == 0 else rem - v0)
    return n


@njit(cache=True)
def solve_two_state(T, tt, work):
    """Card points player 0 wins in the whole deal of the full state ``T`` (play phase,
    at a trick's start or after its first card), both playing perfectly."""
    strain = trump_of(T)
    under = cards_under(T)
    buf = np.empty(32 * (N_TRICKS_TWO + 1), dtype=np.int64)
    keys = np.empty(32 * (N_TRICKS_TWO + 1), dtype=np.int64)
    F = np.zeros((N_TRICKS_TWO + 2, N_FIELDS), dtype=np.int64)
    av0, av1, dn0, dn1, played, rem = _position(T)
    n_left = N_TRICKS_TWO - trick_number(T)
    if cards_in_trick(T) == 0:
        v = _search(av0, av1, dn0, dn1, played, current_leader(T), n_left, -1, 1 << 20,
                    strain, under, tt, work, rem, F, buf, keys)
    else:
        v = _after_lead(av0, av1, dn0, dn1, played, current_leader(T), led_card(T), n_left,
                        strain, under, tt, work, rem, F, buf, keys)
    return card_points_won(T, 0) + v


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

    def __init__(self):
        self.tt = np.full(1 << TT_BITS, _EMPTY, dtype=np.int64)
        self.work = np.zeros(W_SIZE, dtype=np.int64)

    def _clear(self):
        self.tt.fill(_EMPTY)
        self.work[:] = 0

    @property
    def nodes(self) -> int:
        """Positions searched by the last call."""
        return int(self.work[W_NODES])

    def solve(self, state: np.ndarray) -> int:
        """Card points player 0 wins in the whole deal of the full state (play phase)."""
        T = writable_state(state)
        if py.phase_of(T) != PLAY:
            raise ValueError("the solver needs a deal in its play phase")
        self._clear()
        return int(solve_two_state(T, self.tt, self.work))

    def card_values(self, state: np.ndarray) -> np.ndarray:
        """int64[32]: for each legal card of the player to act, the card points he wins
        in the whole deal when he plays it (-1 for other cards)."""
        T = writable_state(state)
        if py.phase_of(T) != PLAY:
            raise ValueError("the solver needs a deal in its play phase")
        self._clear()
        out = np.empty(32, dtype=np.int64)
        card_values_two(T, self.tt, self.work, out)
        return out


def solve_two(state: np.ndarray) -> int:
    """Card points player 0 wins from the full state ``state`` (a fresh solver)."""
    return TwoPlayerSolver().solve(state)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the family's
#: engine, in its chain
WARMUP_AFTER = ("coinche_rl.engine.two",)


def warmup() -> None:
    """Compile the solver's kernels (one endgame of each call)."""
    from .two_player import TwoPlayerDeal
    d = TwoPlayerDeal("belote_decouverte", seed=0, dealer=0)
    d.apply("take")
    while len(d.plays) < 27:
        d.apply(d.legal_actions()[0])
    s = TwoPlayerSolver()
    s.solve(d.state)
    s.card_values(d.state)
