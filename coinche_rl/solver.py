"""Exact double-dummy (DD) solver: every hand known, best play by all four seats.

Given an engine state in the card play (any strain, any rule set, possibly mid-trick,
possibly with a declare / belote choice still to make in the first trick), the solver
returns the exact minimax value of the position and of every legal action, for one of
two objectives:

``"points"``
    The card points a team ends the deal with, exactly as :func:`engine.score_deal`
    leaves them (:func:`engine.team_card_points`): cards won plus dix de der, 252 for a
    capot, the rule set's générale value when one taker wins all eight tricks, the
    ``scaled`` AT table brought back to 162. Points already won count (so values of
    different moves compare directly).
``"score"``
    The deal score difference ``team_score(S, team) - team_score(S, other team)`` after
    :func:`engine.score_deal` (contract made or failed, multiplier, belote,
    declarations, rounding): what a PIMC player should maximise. In the classic family a
    litige scores what :func:`engine.team_score` holds (the takers' points held aside for
    the next deal count for nobody).

Values are for ``team`` (default: the team of the seat to act).

How the search works and why it is exact (the extended outcome ``E``, the objective as a
non-decreasing ``f(E)`` built from the engine's own scoring, the transposition table of
exact intervals, the first trick's declare / belote choices, and every search
enhancement, each value-preserving): ``docs/solver.md``.

Entry points: :class:`Solver` (owns a reusable workspace: TT, killers),
:func:`solve` and :func:`move_values` (one-off, a shared default solver), and the numba
kernels :func:`solve_into` / :func:`move_values_into` for a PIMC loop written in numba
(allocate the workspace once with :func:`new_workspace`; ``W[C_KEEP] = 1`` keeps the
table between calls, valid while the strain, rules and team stay the same).

>>> from coinche_rl.game import Deal
>>> deal = Deal("ffb", dealer=3, seed=5).with_contract(90, 1, taker=0)
>>> actions, values = move_values(deal)          # seat 0 to lead, values for team 0
>>> int(values.max()) == solve(deal)
True
"""

from __future__ import annotations

from typing import Tuple, Union

import numpy as np
from numba import njit, types

from . import actions as A
from . import engine as E
from . import rules as R
from .cards import N_CARDS
from .engine.bits import prefetch, take_best, window_update
from .engine import (PLAY, STATE_SIZE, FlatLayout, apply_legal_action, card_play_rule,
                     highest_card, kernel, lowest_card, popcount)
from .engine import (belote_decided_seats, belote_holder_seats, cards_in_trick, contract_of,
                     contract_strain, current_leader, current_seat, declare_decided_seats,
                     has_declaration, hand_of, mark_declared, outcome_score, phase_of,
                     set_current_seat, team_card_points, team_points_won, team_score,
                     trick_card, trick_number, trick_winner, winning_card, winning_seat)
from .rules import (ALL_CARD_POINTS, CAPOT_POINTS, CARD_ORDER, DIX_DE_DER, N_SEATS, N_TRICKS,
                    P_AT_TABLE, P_DECLARATIONS, P_GENERALE_BONUS, P_OPTIONAL_BELOTE,
                    P_OPTIONAL_DECLARE, P_PLAY_RULES, partner, seat_after, team)

__all__ = ["Solver", "SolverError", "solve", "move_values", "solve_into", "move_values_into",
           "solve_keeping", "keep_table", "nodes_of", "new_workspace", "warmup", "OBJECTIVES", "POINTS",
           "SCORE"]

#: objective codes of the kernels
POINTS, SCORE = 0, 1
OBJECTIVES = {"points": POINTS, "score": SCORE}


class SolverError(ValueError):
    """A position or an argument the solver cannot work on (the auction, a bad objective,
    team, table size or option)."""


# ------------------------------------------------------------------ internal card ids
def _build_perm():
    perm = np.zeros((6, N_CARDS), dtype=np.int64)
    inv = np.zeros((6, N_CARDS), dtype=np.int64)
    for strain in range(6):
        for c in range(N_CARDS):
            i = (c >> 3) * 8 + int(CARD_ORDER[strain, c])
            perm[strain, c] = i
            inv[strain, i] = c
    return perm, inv


#: ``PERM[strain, card]``: the solver's id of an engine card; ``INV`` the way back
PERM, INV = _build_perm()
#: ``IPTS[at_table, strain, id]``: card points by solver id
IPTS = np.zeros(ALL_CARD_POINTS.shape, dtype=np.int64)
for _t in range(ALL_CARD_POINTS.shape[0]):
    for _s in range(6):
        for _i in range(N_CARDS):
            IPTS[_t, _s, _i] = ALL_CARD_POINTS[_t, _s, INV[_s, _i]]

# ------------------------------------------------------------------ workspace layout
# One int64 array holds everything a solve needs (a single kernel argument): its blocks
# in order, each with its size, the offsets following (the spare blocks keep every block
# where it always was: the same offsets, the same machine code).
DOM = 512           # extended-outcome domain: E + 1 in 0..DOM-1
MAX_PAIRS = 8       # pending (seat, declare / belote) choices at most
C2_BITS = 12        # the two-trick cache: 2 ** C2_BITS entries of (key1, key2, key3, value)
KILL_WORDS = 2 * N_TRICKS * N_SEATS   # the killer leads: 2 per (trick, leader)
_W = FlatLayout()
C_STRAIN, C_PLAY_RULES, C_AT, C_X, C_CB, C_GB, C_GEN, C_TTMASK, C_NODES, C_EMAX, C_SIG, \
    C_OPT, C_NPAIRS, C_ACTIVE, C_RAWTOT, C_KEEP = _W.words(16)
_W.spare(8)
W_H = _W.block(N_SEATS)              # 4 hands (solver ids)
_W.spare(4)
W_PAIR = _W.block(2 * MAX_PAIRS)     # pending choices of the first trick: (seat, kind) x 8
_W.spare(16)
W_KILL = _W.block(KILL_WORDS)        # 2 killer leads per (trick, leader)
_W.spare(128)                        # once a history heuristic's scores
W_MV = _W.block(8 * N_CARDS)         # ordered moves, 8 per card position
W_TOP = _W.block(DOM)                # top of E's level (active map)
W_BOT = _W.block(DOM)                # bottom of E's level
W_BASE = _W.block(256)               # the root state (STATE_SIZE), automatic declarations done
W_SCR = _W.block(256)                # the root state with one combination of the pending choices
W_SC2 = _W.block(256)                # a synthetic finished deal
W_MONO = _W.block(1 << MAX_PAIRS)    # 1 when f of the combination is non-decreasing
W_MAP = _W.block((1 << MAX_PAIRS) * DOM)    # f for each combination of the pending choices
W_C2 = _W.block(4 * (1 << C2_BITS))  # the two-trick cache
W_TT = _W.size                       # the TT: TT_WORDS * 2 ** tt_bits entries (new_workspace)
assert STATE_SIZE <= 256 and (W_H, W_PAIR, W_KILL, W_MV, W_TOP, W_TT) == \
    (24, 32, 64, 256, 512, 150016)
TT_WORDS = 8        # a TT bucket: 2 entries of (key1, key2, key3, data)

#: Search options (bits; the values never depend on them, only the speed):
#: killer leads, principal-variation search, equivalent cards, the two-trick endgame
#: loop, the transposition table, static move ordering, sure-trump bounds, null-window
#: (MTD) searches of the root moves after the first, the three-trick endgame loop, the
#: cache of exact two-trick endings; OPT_DIRECT forces the direct search of the
#: objective (the path taken when ``f`` is not non-decreasing) and OPT_SHUFFLE orders
#: the moves pseudo-randomly (both for tests). Bit 2 (a history heuristic, removed:
#: slower than the static order) is accepted and ignored.
OPT_KILLERS, OPT_PVS, OPT_EQUIV, OPT_TWO, OPT_TT, OPT_DIRECT, OPT_ORDER, \
    OPT_SURE, OPT_SHUFFLE, OPT_MTD, OPT_THREE, OPT_CACHE2 = \
    1, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096
#: the default: every enhancement
OPT_DEFAULT = OPT_KILLERS | OPT_PVS | OPT_EQUIV | OPT_TWO | OPT_TT | OPT_ORDER | OPT_SURE \
    | OPT_MTD | OPT_THREE | OPT_CACHE2
OPT_MAX = 8191

INF = 30000
OFF = 32768
CAPOT_BONUS = R.CAPOT_BONUS    # E of a capot: all the points + 90 (= 252 with the 162-point tables)


def new_workspace(tt_bits: int = 17) -> np.ndarray:
    """A solver workspace (int64 array) with a TT of ``2 ** tt_bits`` buckets of two
    entries (``tt_bits=17``: 8 MiB). Reuse it across solves: the kernels keep what
    they learnt while the strain, rules and team stay the same."""
    if not 10 <= tt_bits <= 26:
        raise SolverError(f"tt_bits={tt_bits} must be in 10..26 (a TT of 2**tt_bits buckets)")
    size = W_TT + TT_WORDS * (1 << tt_bits)
    # a view whose table buckets (64 bytes each) start on cache-line boundaries
    buf = np.zeros(size + 8, dtype=np.int64)
    skip = ((-(buf.ctypes.data + 8 * W_TT)) % 64) // 8
    W = buf[skip:skip + size]
    W[C_TTMASK] = (1 << tt_bits) - 1
    W[C_OPT] = OPT_DEFAULT
    W[C_SIG] = -1
    W[W_KILL:W_KILL + KILL_WORDS] = -1
    return W


# ------------------------------------------------------------------ card play on solver ids
# The small helpers below are plain calls, not numba IR inlining (inline='always'): LLVM
# inlines them just the same (nodes per second unchanged), and the first compile of the
# solver takes a quarter less time (bench_solver, RESULTS.md). Their constant arguments
# are written np.int64(k) (np.bool_ for a bool): numba compiles a kernel called with a
# plain literal once more for that literal (Literal[int](k)), LLVM folds the constant
# after inlining all the same.
@njit(cache=True, _nrt=False)
def _above(w):
    """Cards of ``w``'s suit stronger than ``w``."""
    return (0xFF << (8 * (w >> 3))) & ~((2 << w) - 1) & 0xFFFFFFFF


@njit(cache=True, _nrt=False)
def _beats(c, w, strain):
    """``c`` beats the card ``w`` winning the trick (solver ids)."""
    if (c >> 3) == (w >> 3):
        return c > w
    return strain < 4 and (c >> 3) == strain


@njit(cache=True, _nrt=False)
def _legal(hand, n, led, win, partner_master, strain, play_rules):
    """The legal cards of ``hand`` on solver ids (RULES.md §6): the engine's
    :func:`engine.card_play_rule`, with the cards above ``win`` in solver ids."""
    if n == 0:
        return hand
    return card_play_rule(hand, led, win, _above(win), partner_master, strain, play_rules)[0]


@kernel
def legal_ids(hand, n, led, win, partner_master, strain, play):
    """:func:`_legal` as a callable kernel (for the differential tests)."""
    return _legal(hand, n, led, win, partner_master, strain, play)


@njit(cache=True, _nrt=False)
def _trick_after(c, cur, n, led, win, wseat, strain):
    """``(led suit, winning card, winning seat)`` of the trick once seat ``cur`` has
    played card ``c`` as its ``n``-th card (``led``, ``win``, ``wseat``: before it)."""
    if n == 0:
        return c >> 3, c, cur
    if _beats(c, win, strain):
        return led, c, cur
    return led, win, wseat


@njit(cache=True, _nrt=False)
def _new_flag(flag, leader, w):
    """History flag after a trick led by ``leader`` and won by ``w``: 3 no trick yet,
    2 every trick won by the (new) leader, 1 by the leader's team, 0 shared."""
    if flag == 3:
        return 2
    if flag == 2:
        if w == leader:
            return 2
        return 1 if team(w) == team(leader) else 0
    if flag == 1:
        return 1 if team(w) == team(leader) else 0
    return 0


@njit(cache=True, _nrt=False)
def _end_bonus(W, nf, w):
    """Capot / générale adjustment of ``E`` when the deal ends with flag ``nf``, the
    last trick won by ``w``."""
    if nf == 0:
        return 0
    if team(w) == W[C_X]:
        if nf == 2:
            return W[C_CB] + W[C_GB]
        return W[C_CB]
    return -1


@njit(cache=True, _nrt=False)
def _deal_end(W, nf, w):
    """What ``E`` gains at the end of the deal beyond the last trick's cards: dix de der
    when ``w`` (its winner) is of team ``X``, and the end bonuses of flag ``nf``."""
    return (DIX_DE_DER if team(w) == W[C_X] else 0) + _end_bonus(W, nf, w)


@njit(cache=True, _nrt=False)
def _in_hands(W):
    """The cards still in the four hands."""
    return W[W_H] | W[W_H + 1] | W[W_H + 2] | W[W_H + 3]


@njit(cache=True, _nrt=False)
def _hand_keys(W):
    """The first two words of a table key (the TT's, the two-trick cache's): the hands."""
    return W[W_H] | (W[W_H + 1] << 32), W[W_H + 2] | (W[W_H + 3] << 32)


@njit(cache=True, _nrt=False)
def _child(W, leader, n, led, win, wseat, tpts, flag, cur, c, pc):
    """The position after seat ``cur`` plays ``c`` (worth ``pc``) as the ``n``-th card of
    the trick: ``(vt, flag, leader, n, led, win, wseat, tpts)``, the next card of this
    trick or, once the trick is complete, the lead of the next one (``vt``: the trick's
    points when team ``X`` wins it, which the child's ``E`` does not hold)."""
    Z0 = np.int64(0)
    M1 = np.int64(-1)
    nled, nwin, nws = _trick_after(c, cur, n, led, win, wseat, W[C_STRAIN])
    ntp = tpts + pc
    if n == N_SEATS - 1:
        vt = ntp if team(nws) == W[C_X] else Z0
        return vt, _new_flag(flag, leader, nws), nws, Z0, Z0, M1, M1, Z0
    return Z0, flag, leader, n + 1, nled, nwin, nws, ntp


@njit(cache=True, _nrt=False)
def _better(mx, v, best, a, b):
    """A child's value ``v`` at a max node (``mx``) or a min node: the new best value and
    window (:func:`_ply_update` snaps the window to the levels as well)."""
    if mx:
        if v > best:
            best = v
            if v > a:
                a = v
    elif v < best:
        best = v
        if v < b:
            b = v
    return best, a, b


@njit(cache=True, _nrt=False)
def _top(W, e):
    """Largest ``E`` in the level of ``e`` (active map)."""
    if e < -1 or e > W[C_EMAX]:
        return e
    return W[W_TOP + e + 1]


@njit(cache=True, _nrt=False)
def _bot(W, e):
    """Smallest ``E`` in the level of ``e`` (active map)."""
    if e < -1 or e > W[C_EMAX]:
        return e
    return W[W_BOT + e + 1]


@njit(cache=True, _nrt=False)
def _last_of(c0, c1, c2, c3, leader, strain):
    """Winning seat of a trick of cards ``c0..c3`` played from ``leader`` on."""
    w = c0
    ws = leader
    if _beats(c1, w, strain):
        w = c1
        ws = seat_after(leader, np.int64(1))
    if _beats(c2, w, strain):
        w = c2
        ws = seat_after(leader, np.int64(2))
    if _beats(c3, w, strain):
        ws = seat_after(leader, np.int64(3))
    return ws


@njit(cache=True, _nrt=False)
def _last_trick(W, leader, flag, rem):
    """Value of the last trick (one card in each hand)."""
    strain = W[C_STRAIN]
    h = W_H
    k = leader
    ws = _last_of(lowest_card(W[h + k]), lowest_card(W[h + seat_after(k, np.int64(1))]),
                  lowest_card(W[h + seat_after(k, np.int64(2))]), lowest_card(W[h + seat_after(k, np.int64(3))]),
                  leader, strain)
    v = rem + DIX_DE_DER if team(ws) == W[C_X] else 0
    return v + _end_bonus(W, _new_flag(flag, leader, ws), ws)


@njit(cache=True, _nrt=False)
def _two_tricks(W, leader, flag, rem, alpha, beta):
    """Value of a trick boundary with two cards in each hand: every play of the next
    trick (the last one is forced), alpha-beta inside (fail-soft)."""
    W[C_NODES] += 1
    strain = W[C_STRAIN]
    X = W[C_X]
    play = W[C_PLAY_RULES]
    prow = W[C_AT] * 6 + strain
    s0 = leader
    s1 = seat_after(leader, np.int64(1))
    s2 = seat_after(leader, np.int64(2))
    s3 = seat_after(leader, np.int64(3))
    h0 = W[W_H + s0]
    h1 = W[W_H + s1]
    h2 = W[W_H + s2]
    h3 = W[W_H + s3]
    tot = rem + 10
    max0 = team(s0) == X
    best0 = -INF if max0 else INF
    a0 = alpha
    b0 = beta
    m0 = h0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        led = c0 >> 3
        p0 = IPTS.flat[prow * N_CARDS + c0]
        best1 = INF if max0 else -INF
        a1 = a0
        b1 = b0
        m1 = _legal(h1, np.int64(1), led, c0, np.bool_(False), strain, play)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            p1 = p0 + IPTS.flat[prow * N_CARDS + c1]
            if _beats(c1, c0, strain):
                w1 = c1
                ws1 = s1
            else:
                w1 = c0
                ws1 = s0
            best2 = -INF if max0 else INF
            a2 = a1
            b2 = b1
            m2 = _legal(h2, np.int64(2), led, w1, ws1 == s0, strain, play)
            while m2:
                c2 = lowest_card(m2)
                m2 &= m2 - 1
                p2 = p1 + IPTS.flat[prow * N_CARDS + c2]
                if _beats(c2, w1, strain):
                    w2 = c2
                    ws2 = s2
                else:
                    w2 = w1
                    ws2 = ws1
                best3 = INF if max0 else -INF
                a3 = a2
                b3 = b2
                m3 = _legal(h3, np.int64(3), led, w2, ws2 == s1, strain, play)
                while m3:
                    c3 = lowest_card(m3)
                    m3 &= m3 - 1
                    p3 = p2 + IPTS.flat[prow * N_CARDS + c3]
                    ws3 = ws2
                    if _beats(c3, w2, strain):
                        ws3 = s3
                    r0 = lowest_card(h0 & ~(1 << c0))
                    r1 = lowest_card(h1 & ~(1 << c1))
                    r2 = lowest_card(h2 & ~(1 << c2))
                    r3 = lowest_card(h3 & ~(1 << c3))
                    k = seat_after(ws3, -leader)
                    if k == 0:
                        wl = _last_of(r0, r1, r2, r3, ws3, strain)
                    elif k == 1:
                        wl = _last_of(r1, r2, r3, r0, ws3, strain)
                    elif k == 2:
                        wl = _last_of(r2, r3, r0, r1, ws3, strain)
                    else:
                        wl = _last_of(r3, r0, r1, r2, ws3, strain)
                    v = 0
                    if team(ws3) == X:
                        v = p3
                    if team(wl) == X:
                        v += tot - p3
                    v += _end_bonus(W, _new_flag(_new_flag(flag, leader, ws3), ws3, wl), wl)
                    best3, a3, b3 = _better(not max0, v, best3, a3, b3)
                    if a3 >= b3:
                        break
                best2, a2, b2 = _better(max0, best3, best2, a2, b2)
                if a2 >= b2:
                    break
            best1, a1, b1 = _better(not max0, best2, best1, a1, b1)
            if a1 >= b1:
                break
        best0, a0, b0 = _better(max0, best1, best0, a0, b0)
        if a0 >= b0:
            break
    return best0


@njit(cache=True, _nrt=False)
def _two_cached(W, leader, flag, rem, alpha, beta):
    """:func:`_two_tricks` through the two-trick cache when ``OPT_CACHE2`` is on: the
    exact value of the ending (full window) is computed once per (hands, leader, flag)
    and table generation, then read back; an exact value is a valid fail-soft answer
    for any window. The value depends on nothing else: the strain, rules and team that
    start a new generation when they change."""
    if (W[C_OPT] & OPT_CACHE2) == 0:
        return _two_tricks(W, leader, flag, rem, alpha, beta)
    k1, k2 = _hand_keys(W)
    k3 = leader | (flag << 2) | (W[C_GEN] << 8)
    p = W_C2 + 4 * (_mix(k1, k2, k3) & ((1 << C2_BITS) - 1))
    if W[p] == k1 and W[p + 1] == k2 and W[p + 2] == k3:
        return W[p + 3]
    v = _two_tricks(W, leader, flag, rem, np.int64(-INF), np.int64(INF))
    W[p] = k1
    W[p + 1] = k2
    W[p + 2] = k3
    W[p + 3] = v
    return v


@njit(cache=True, _nrt=False)
def _ply_update(W, mx, v, best, a, b, past):
    """A child's value ``v`` at a node of the endgame loops (a max node when ``mx``):
    the new best value and window, the window snapped to the levels as in :func:`_ab`."""
    if mx:
        if v > best:
            best = v
            if v > a:
                a = _top(W, past + v) - past
    elif v < best:
        best = v
        if v < b:
            b = _bot(W, past + v) - past
    return best, a, b


@njit(cache=True, _nrt=False)
def _three_tricks(W, leader, flag, rem, past, alpha, beta):
    """Value (``E`` minus ``past``, fail-soft, level-aligned window as in :func:`_ab`) of
    a trick boundary with three cards in each hand: every play of the next trick in
    nested loops (no recursion, no ordering: at most 81 plays), the last two tricks by
    :func:`_two_cached`. Nodes are counted per player to act."""
    strain = W[C_STRAIN]
    X = W[C_X]
    play = W[C_PLAY_RULES]
    prow = (W[C_AT] * 6 + strain) * N_CARDS
    s0 = leader
    s1 = seat_after(leader, np.int64(1))
    s2 = seat_after(leader, np.int64(2))
    s3 = seat_after(leader, np.int64(3))
    h0 = W[W_H + s0]
    h1 = W[W_H + s1]
    h2 = W[W_H + s2]
    h3 = W[W_H + s3]
    mx0 = team(s0) == X
    mx1 = not mx0
    best0 = -INF if mx0 else INF
    a0 = alpha
    b0 = beta
    W[C_NODES] += 1
    m0 = h0
    while m0:
        c0 = lowest_card(m0)
        m0 &= m0 - 1
        W[W_H + s0] = h0 & ~(1 << c0)
        led = c0 >> 3
        p0 = IPTS.flat[prow + c0]
        best1 = -INF if mx1 else INF
        a1 = a0
        b1 = b0
        W[C_NODES] += 1
        m1 = _legal(h1, np.int64(1), led, c0, np.bool_(False), strain, play)
        while m1:
            c1 = lowest_card(m1)
            m1 &= m1 - 1
            W[W_H + s1] = h1 & ~(1 << c1)
            p1 = p0 + IPTS.flat[prow + c1]
            if _beats(c1, c0, strain):
                w1 = c1
                ws1 = s1
            else:
                w1 = c0
                ws1 = s0
            best2 = -INF if mx0 else INF
            a2 = a1
            b2 = b1
            W[C_NODES] += 1
            m2 = _legal(h2, np.int64(2), led, w1, ws1 == s0, strain, play)
            while m2:
                c2 = lowest_card(m2)
                m2 &= m2 - 1
                W[W_H + s2] = h2 & ~(1 << c2)
                p2 = p1 + IPTS.flat[prow + c2]
                if _beats(c2, w1, strain):
                    w2 = c2
                    ws2 = s2
                else:
                    w2 = w1
                    ws2 = ws1
                best3 = -INF if mx1 else INF
                a3 = a2
                b3 = b2
                W[C_NODES] += 1
                m3 = _legal(h3, np.int64(3), led, w2, ws2 == s1, strain, play)
                while m3:
                    c3 = lowest_card(m3)
                    m3 &= m3 - 1
                    W[W_H + s3] = h3 & ~(1 << c3)
                    p3 = p2 + IPTS.flat[prow + c3]
                    ws3 = ws2
                    if _beats(c3, w2, strain):
                        ws3 = s3
                    vt = p3 if team(ws3) == X else 0
                    nf = _new_flag(flag, leader, ws3)
                    v = vt + _two_cached(W, ws3, nf, rem - p3, a3 - vt, b3 - vt)
                    best3, a3, b3 = _ply_update(W, mx1, v, best3, a3, b3, past)
                    if a3 >= b3:
                        break
                W[W_H + s3] = h3
                best2, a2, b2 = _ply_update(W, mx0, best3, best2, a2, b2, past)
                if a2 >= b2:
                    break
            W[W_H + s2] = h2
            best1, a1, b1 = _ply_update(W, mx1, best2, best1, a1, b1, past)
            if a1 >= b1:
                break
        W[W_H + s1] = h1
        best0, a0, b0 = _ply_update(W, mx0, best1, best0, a0, b0, past)
        if a0 >= b0:
            break
    W[W_H + s0] = h0
    return best0



@njit(cache=True, _nrt=False)
def _mix(k1, k2, k3):
    """Hash of a three-word key (the TT's and the two-trick cache's)."""
    h = k1 * 0x1E3779B97F4A7C15 + k2 * 0x42B2AE3D27D4EB4F + k3 * 0x165667B19E3779F9
    h ^= h >> 29
    h *= 0x3C6EF372FE94F82B
    h ^= h >> 32
    return h


@njit(cache=True, _nrt=False)
def _tt_key3(W, leader, flag):
    """Third word of the TT key of a trick boundary (:func:`_ab`): leader, history flag,
    table generation."""
    return leader | (flag << 2) | (W[C_GEN] << 24)


@njit(cache=True, _nrt=False)
def _tt_bucket(W, k1, k2, k3):
    return W_TT + (_mix(k1, k2, k3) & W[C_TTMASK]) * TT_WORDS


@njit(cache=True, _nrt=False)
def _tt_find(W, b, k1, k2, k3):
    """The entry of bucket ``b`` that holds the key ``(k1, k2, k3)``, or -1."""
    for e in range(2):
        q = b + 4 * e
        if W[q] == k1 and W[q + 1] == k2 and W[q + 2] == k3:
            return q
    return -1


@njit(cache=True, _nrt=False)
def _tt_unpack(d):
    """``(lo, hi, best card)`` of an entry's data word (best card -1: none)."""
    return (d & 0xFFFF) - OFF, ((d >> 16) & 0xFFFF) - OFF, ((d >> 32) & 0xFF) - 1


@njit(cache=True, _nrt=False)
def _tt_save(W, k1, k2, k3, depth, best, alpha, beta, lo, hi, best_c):
    """Store the result ``best`` of a search with the window ``(alpha, beta)`` (fail-soft)
    whose exact value, inside the window, lies in ``[lo, hi]``: an upper bound when it
    failed low, a lower bound when it failed high."""
    if best <= alpha:
        lo = np.int64(-INF)
    elif best >= beta:
        hi = np.int64(INF)
    _tt_store(W, k1, k2, k3, depth, lo, hi, best_c)


@njit(cache=True, _nrt=False)
def _tt_store(W, k1, k2, k3, depth, lo, hi, best_c):
    """Store the interval ``[lo, hi]`` of a position (intersected with what the entry
    already holds for the same key)."""
    b = _tt_bucket(W, k1, k2, k3)
    p = _tt_find(W, b, k1, k2, k3)
    if p >= 0:
        olo, ohi, obest = _tt_unpack(W[p + 3])
        if olo > lo:
            lo = olo
        if ohi < hi:
            hi = ohi
        if best_c < 0:
            best_c = obest
    else:
        # first slot keeps the deeper of the two positions, the second is always replaced
        p = b + 4
        g = W[C_GEN]
        if (W[b + 2] >> 24) != g or ((W[b + 3] >> 40) & 0xFF) <= depth:
            if (W[b + 2] >> 24) == g:
                W[b + 4] = W[b]
                W[b + 5] = W[b + 1]
                W[b + 6] = W[b + 2]
                W[b + 7] = W[b + 3]
            p = b
    W[p] = k1
    W[p + 1] = k2
    W[p + 2] = k3
    W[p + 3] = (lo + OFF) | ((hi + OFF) << 16) | ((best_c + 1) << 32) | (depth << 40)


@njit(cache=True, _nrt=False)
def _follow_key(x, px, n, win, pm, strain):
    """Static ordering key of a card ``x`` (worth ``px``) played ``n``-th in a trick
    that ``win`` is winning (held by the partner when ``pm``): give points to a winning
    partner, win the trick (with the most points when last to play, else with the
    strongest card), or throw the card worth least."""
    if pm:
        return 100 + px
    if _beats(x, win, strain):
        if n == N_SEATS - 1:
            return 300 + px
        return 200 + (x & 7)
    return 50 - px


@njit(cache=True, _nrt=False)
def _lead_key(W, cur, c, strain, prow):
    """Static ordering key of the lead ``c``: the trick played out with the followers'
    ordering keys as their choice; won tricks first (by points), lost ones last."""
    w = c
    ws = cur
    led = c >> 3
    pts = IPTS.flat[prow + c]
    play = W[C_PLAY_RULES]
    for k in range(1, N_SEATS):
        s = seat_after(cur, k)
        pm = ws == partner(s)
        m = _legal(W[W_H + s], k, led, w, pm, strain, play)
        best = -1
        x = -1
        while m:
            y = lowest_card(m)
            m &= m - 1
            sc = _follow_key(y, IPTS.flat[prow + y], k, w, pm, strain)
            if sc > best:
                best = sc
                x = y
        pts += IPTS.flat[prow + x]
        if _beats(x, w, strain):
            w = x
            ws = s
    if team(ws) == team(cur):
        return 512 + pts
    return 256 - pts


@njit(cache=True, _nrt=False)
def _sure_bounds(W, strain, X, rem, lo, hi):
    """Tighter bounds at a trick boundary of a suit contract: the top trumps held by one
    team win the tricks they fall in, so their points are that team's for sure (and
    the other team cannot take every trick)."""
    inhand = _in_hands(W)
    tm = (inhand >> (8 * strain)) & 0xFF
    if tm == 0:
        return lo, hi
    tprow = (W[C_AT] * 6 + strain) * N_CARDS + 8 * strain
    team02 = W[W_H] | W[W_H + 2]
    top_team = -1
    sure = 0
    while tm:
        b = highest_card(tm)
        tm &= ~(1 << b)
        t = 0 if (team02 >> (8 * strain + b)) & 1 else 1
        if top_team < 0:
            top_team = t
        elif t != top_team:
            break
        sure += IPTS.flat[tprow + b]
    if top_team == X:
        if sure > lo:
            lo = sure
    else:
        h2 = rem + DIX_DE_DER - sure
        if h2 < hi:
            hi = h2
    return lo, hi


@njit(cache=True, _nrt=False)
def _ab(W, leader, n, led, win, wseat, tpts, flag, rem, past, alpha, beta):
    """Alpha-beta value (fail-soft, in ``E`` minus ``past``) of the remaining tricks.

    The trick in progress was led by ``leader`` (suit ``led``), ``n`` cards played
    worth ``tpts``, ``win`` (seat ``wseat``) winning it; ``rem``: points of the cards in
    hand; ``past``: ``E`` already secured (the window and the levels are on
    ``past + value``). Windows must be level-aligned (``alpha`` a level top, ``beta`` a
    level bottom): the result then has the level of the true value when inside the
    window, and bounds it by its level otherwise.
    """
    W[C_NODES] += 1
    Z0 = np.int64(0)
    M1 = np.int64(-1)
    strain = W[C_STRAIN]
    X = W[C_X]
    opt = W[C_OPT]
    cur = seat_after(leader, n)
    tt_on = False
    k1 = Z0
    k2 = Z0
    k3 = Z0
    tt_best = M1
    ncards = Z0
    if n == 0:
        ncards = popcount(W[W_H + leader])
        if ncards <= 2:
            if ncards == 1:
                return _last_trick(W, leader, flag, rem)
            if opt & OPT_TWO:
                return _two_cached(W, leader, flag, rem, alpha, beta)
        # trivial bounds: every remaining point, the end bonuses still possible
        hi = rem + 10
        lo = Z0
        if flag != 0:
            if flag == 3 or team(leader) == X:
                hi += W[C_CB]
                if flag >= 2:
                    hi += W[C_GB]
            if flag == 3 or team(leader) != X:
                lo = M1
        if strain < 4 and (opt & OPT_SURE):
            lo, hi = _sure_bounds(W, strain, X, rem, lo, hi)
        if hi <= alpha:
            return hi
        if lo >= beta:
            return lo
        if (opt & OPT_TT) and ncards >= 3:
            tt_on = True
            k1, k2 = _hand_keys(W)
            k3 = _tt_key3(W, leader, flag)
            p = _tt_find(W, _tt_bucket(W, k1, k2, k3), k1, k2, k3)
            if p >= 0:
                tlo, thi, tt_best = _tt_unpack(W[p + 3])
                if tlo >= beta:
                    return tlo
                if thi <= alpha:
                    return thi
                if tlo == thi or _top(W, past + tlo) >= past + thi:
                    return tlo
    if ncards == 3 and (opt & OPT_THREE):
        # the table entry above missed or did not cut: the three-trick loops
        best = _three_tricks(W, leader, flag, rem, past, alpha, beta)
        if tt_on:
            _tt_save(W, k1, k2, k3, ncards, best, alpha, beta, _bot(W, past + best) - past,
                     _top(W, past + best) - past, M1)
        return best
    h = W[W_H + cur]
    legal = _legal(h, n, led, win, wseat == partner(cur), strain, W[C_PLAY_RULES])
    if n > 0 and (legal & (legal - 1)) == 0:
        # a forced card (about 40 % of the nodes inside a trick): its child's value,
        # searched with this node's window, is this node's, as the loop below would
        # find; no ordering, no bookkeeping
        return _play_child(W, leader, n, led, win, wseat, tpts, flag, rem, past,
                           lowest_card(legal), alpha, beta)
    inhand = _in_hands(W)
    prow = (W[C_AT] * 6 + strain) * N_CARDS
    cand = legal
    if (opt & OPT_EQUIV) and (legal & (legal - 1)) != 0:
        # equivalent cards: same hand, adjacent among the cards in play, same points
        present = inhand
        if n > 0:
            present |= 1 << win
        cand = 0
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            below = present & (0xFF << (8 * (c >> 3))) & ((1 << c) - 1)
            if below != 0:
                d = highest_card(below)
                if (legal >> d) & 1 and IPTS.flat[prow + d] == IPTS.flat[prow + c]:
                    continue
            cand |= 1 << c
    maxnode = team(cur) == X
    a0 = alpha
    b0 = beta
    best = -INF if maxnode else INF
    best_c = M1
    rc = popcount(inhand)
    pos = N_CARDS - rc
    kslot = W_KILL + 2 * (pos + leader)
    kl0 = M1
    kl1 = M1
    if n == 0 and (opt & OPT_KILLERS):
        kl0 = W[kslot]
        kl1 = W[kslot + 1]
    pvs = (opt & OPT_PVS) != 0
    if n == N_SEATS - 1 and (opt & OPT_TT) and (cand & (cand - 1)) != 0 and popcount(h) >= 4:
        # every card ends the trick: prefetch the children's table buckets now, so that
        # their probes (cache misses otherwise) overlap
        q1, q2 = _hand_keys(W)
        sh = 32 * team(cur)
        m = cand
        while m:
            c = lowest_card(m)
            m &= m - 1
            x = (np.int64(1) << c) << sh
            ws = cur if _beats(c, win, strain) else wseat
            q3 = _tt_key3(W, ws, _new_flag(flag, leader, ws))
            if cur < 2:
                prefetch(W, _tt_bucket(W, q1 ^ x, q2, q3))
            else:
                prefetch(W, _tt_bucket(W, q1, q2 ^ x, q3))
    mv = W_MV + 8 * pos
    nmv = -1               # ordered moves not computed yet
    first = True
    while cand:
        if tt_best >= 0 and (cand >> tt_best) & 1:
            c = tt_best
        elif kl0 >= 0 and (cand >> kl0) & 1:
            c = kl0
        elif kl1 >= 0 and (cand >> kl1) & 1:
            c = kl1
        elif (cand & (cand - 1)) == 0:
            c = lowest_card(cand)       # the last candidate: no ordering needed
        else:
            if nmv < 0:
                # ordering keys of the remaining candidates, computed once
                nmv = 0
                pm = wseat == partner(cur)
                m = cand
                while m:
                    x = lowest_card(m)
                    m &= m - 1
                    key = Z0
                    if opt & OPT_ORDER:
                        if n == 0:
                            key = _lead_key(W, cur, x, strain, prow)
                        else:
                            key = _follow_key(x, IPTS.flat[prow + x], n, win, pm, strain)
                    if opt & OPT_SHUFFLE:
                        key = ((x + 1) * 0x2545F491 * (W[C_NODES] | 1)) >> 7 & 0xFFFF
                    W[mv + nmv] = (key << 5) | x
                    nmv += 1
            c = take_best(W, mv, nmv)
            if (cand >> c) & 1 == 0:
                continue
        cand &= ~(1 << c)
        bit = 1 << c
        W[W_H + cur] = h & ~bit
        pc = IPTS.flat[prow + c]
        # the child: the next card of this trick, or the first of the next trick
        vt, nf, cl, cn, nled, nwin, nws, ntp = _child(W, leader, n, led, win, wseat, tpts, flag,
                                                      cur, c, pc)
        if first or not pvs:
            ca = alpha
            cb = beta
        elif maxnode:
            ca = alpha
            cb = alpha + 1
        else:
            ca = beta - 1
            cb = beta
        if n == N_SEATS - 1 and (inhand & ~bit) == 0:
            v = vt + _deal_end(W, nf, cl)
        else:
            while True:
                v = vt + _ab(W, cl, cn, nled, nwin, nws, ntp, nf, rem - pc, past + vt, ca - vt,
                             cb - vt)
                if (ca != alpha or cb != beta) and v > alpha and v < beta:
                    ca = alpha      # a null-window test failed inside the window: search it
                    cb = beta
                    continue
                break
        W[W_H + cur] = h
        first = False
        if maxnode:
            if v > best:
                best = v
                best_c = c
                if v > alpha:
                    alpha = _top(W, past + v) - past
                    if alpha >= beta:
                        break
        else:
            if v < best:
                best = v
                best_c = c
                if v < beta:
                    beta = _bot(W, past + v) - past
                    if alpha >= beta:
                        break
    if (maxnode and best >= b0) or (not maxnode and best <= a0):
        if n == 0 and W[kslot] != best_c:
            W[kslot + 1] = W[kslot]
            W[kslot] = best_c
    if tt_on:
        _tt_save(W, k1, k2, k3, ncards, best, a0, b0, _bot(W, past + best) - past,
                 _top(W, past + best) - past, best_c)
    return best


# inlined: _ab calls it for a forced card, and numba's cache cannot load mutually
# recursive kernels (a crash on loading, tested); inlined, _ab only calls itself
@njit(cache=True, _nrt=False, inline='always')
def _play_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, c, alpha, beta):
    """Value (``E`` minus ``past``) of the position after the seat to act plays ``c``
    (solver id), searched with the window ``(alpha, beta)``."""
    cur = seat_after(leader, n)
    h = W[W_H + cur]
    bit = 1 << c
    last = n == N_SEATS - 1 and (_in_hands(W) & ~bit) == 0
    W[W_H + cur] = h & ~bit
    pc = IPTS.flat[(W[C_AT] * 6 + W[C_STRAIN]) * N_CARDS + c]
    # the child, as in _ab's loop; one call of _ab (numba types _ab again for each of its
    # recursive calls)
    vt, nf, cl, cn, nled, nwin, nws, ntp = _child(W, leader, n, led, win, wseat, tpts, flag,
                                                  cur, c, pc)
    if last:
        v = vt + _deal_end(W, nf, cl)
    else:
        v = vt + _ab(W, cl, cn, nled, nwin, nws, ntp, nf, rem - pc, past + vt, alpha - vt,
                     beta - vt)
    W[W_H + cur] = h
    return v


@njit(cache=True, _nrt=False)
def _equiv_rep(W, c, legal, present, prow):
    """The lowest card equivalent to ``c`` (same hand, same points, no card in play
    between them)."""
    while True:
        below = present & (0xFF << (8 * (c >> 3))) & ((1 << c) - 1)
        if below == 0:
            return c
        d = highest_card(below)
        if (legal >> d) & 1 and IPTS.flat[prow + d] == IPTS.flat[prow + c]:
            c = d
        else:
            return c


# inlined, as _rest_value is: each is called at one or two places, and a kernel of its
# own would optimise and compile _ab's code once more (numba links a callee's code into
# every caller's library)
@njit(cache=True, _nrt=False, inline='always')
def _root_values(W, leader, n, led, win, wseat, tpts, flag, rem, past, out_c, out_v):
    """``E`` of every legal card at the root (solver ids into ``out_c``, level
    representatives of ``E`` into ``out_v``); returns how many. Equivalent cards share
    one search."""
    strain = W[C_STRAIN]
    cur = seat_after(leader, n)
    legal = _legal(W[W_H + cur], n, led, win, wseat == partner(cur), strain, W[C_PLAY_RULES])
    present = _in_hands(W)
    if n > 0:
        present |= 1 << win
    prow = (W[C_AT] * 6 + strain) * N_CARDS
    k = 0
    m = legal
    lo = np.int64(-2) - past
    hi = np.int64(INF - 1) - past
    while m:
        c = lowest_card(m)
        m &= m - 1
        r = c
        if W[C_OPT] & OPT_EQUIV:
            r = _equiv_rep(W, c, legal, present, prow)
        v = np.int64(0)
        done = False
        if r != c:
            for j in range(k):
                if out_c[j] == r:
                    v = out_v[j]
                    done = True
                    break
        if not done:
            if k == 0 or (W[C_OPT] & OPT_MTD) == 0:
                v = past + _play_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, c, lo, hi)
            else:
                # MTD(f) on levels: null-window tests around a guess (the previous
                # move's value) until the level of the value is known
                g = out_v[k - 1]
                lower = np.int64(-INF)
                upper = np.int64(INF)
                while True:
                    if g > lower:
                        B = _bot(W, g)
                        if B <= lower:
                            B = _top(W, lower) + 1
                    else:
                        B = _top(W, lower) + 1
                    t = past + _play_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, c,
                                           B - 1 - past, B - past)
                    if t < B:
                        upper = _top(W, t)      # the value's level is t's or below
                    else:
                        lower = _bot(W, t)      # t's level or above
                    g = t
                    if lower > -INF and upper < INF and lower >= _bot(W, upper):
                        break
                    if upper < INF and upper <= -1:
                        break
                v = lower if lower > -INF else upper
        out_c[k] = c
        out_v[k] = v
        k += 1
    return k


# ------------------------------------------------------------------ the objective map f(E)

@njit(cache=True, _nrt=False)
def _copy_state(W, src, dst):
    for i in range(STATE_SIZE):
        W[dst + i] = W[src + i]


@njit(cache=True, _nrt=False)
def _fill_map(W, P, X, objective, vec):
    """``f`` for one combination ``vec`` of the pending choices: ``W[W_MAP + vec * DOM
    + E + 1]`` = the objective for team ``X`` when the deal ends with extended outcome
    ``E``, from :func:`engine.score_deal` on synthetic finished deals. Returns 1 when
    ``f`` is non-decreasing, else 0."""
    # the state with this combination of choices made
    _copy_state(W, np.int64(W_BASE), np.int64(W_SCR))
    scr = W[W_SCR:W_SCR + STATE_SIZE]
    for j in range(W[C_NPAIRS]):
        seat = W[W_PAIR + 2 * j]
        kind = W[W_PAIR + 2 * j + 1]
        yes = (vec >> j) & 1
        set_current_seat(scr, seat)
        if kind == 0:
            apply_legal_action(scr, P, A.DECLARE if yes else A.NO_DECLARE)
        else:
            apply_legal_action(scr, P, A.BELOTE if yes else A.NO_BELOTE)
    out = W_MAP + vec * DOM
    rawtot = W[C_RAWTOT]
    emax = W[C_EMAX]
    sc = W[W_SC2:W_SC2 + STATE_SIZE]
    last = -INF
    for e in range(-1, emax + 1):
        kind = -1
        if e <= rawtot:
            kind = 0
        elif e == rawtot + W[C_CB]:
            kind = 1
        elif e == emax and W[C_GB] > 0:
            kind = 2
        if kind < 0:
            W[out + e + 1] = W[out + e]       # unreachable: the step below
            continue
        _copy_state(W, np.int64(W_SCR), np.int64(W_SC2))
        # E = -1: every trick to the other team; a générale goes to seat X (of team X)
        cp, diff = outcome_score(sc, P, X, E.OUTCOME_CAPOT_AGAINST if e == -1 else kind, e,
                                 rawtot, X)
        W[out + e + 1] = cp if objective == POINTS else diff
    mono = 1
    for i in range(1, emax + 2):
        if W[out + i] < W[out + i - 1]:
            mono = 0
    return mono


@njit(cache=True, _nrt=False)
def _activate(W, vec):
    """Make ``vec``'s map the active one: level tops and bottoms of ``E``."""
    if W[C_ACTIVE] == vec:
        return
    W[C_ACTIVE] = vec
    base = W_MAP + vec * DOM
    n = W[C_EMAX] + 2
    i = 0
    while i < n:
        j = i
        while j + 1 < n and W[base + j + 1] == W[base + i]:
            j += 1
        for t in range(i, j + 1):
            W[W_BOT + t] = i - 1
            W[W_TOP + t] = j - 1
        i = j + 1


@njit(cache=True, _nrt=False)
def _fval(W, vec, e):
    """``f(E)`` of combination ``vec`` (``E`` clamped to the domain)."""
    if e < -1:
        e = -1
    if e > W[C_EMAX]:
        e = W[C_EMAX]
    return W[W_MAP + vec * DOM + e + 1]


@njit(cache=True, _nrt=False)
def _e_window(W, vec, a, b):
    """``E`` window equivalent to the objective window ``(a, b)``: the largest ``E``
    with ``f(E) <= a`` (or below the domain) and the smallest with ``f(E) >= b``."""
    base = W_MAP + vec * DOM
    n = W[C_EMAX] + 2
    ea = np.int64(-INF)
    eb = np.int64(INF)
    for i in range(n):
        v = W[base + i]
        if v <= a:
            ea = i - 1
        if v >= b and eb == INF:
            eb = i - 1
    return ea, eb


# ------------------------------------------------------------------ direct search of f
@njit(cache=True, _nrt=False)
def _ds(W, leader, n, led, win, wseat, tpts, flag, rem, past, vec, alpha, beta):
    """Alpha-beta (fail-soft) directly on the objective ``f`` of combination ``vec``:
    exact whatever the shape of ``f``. The TT key holds the ``E`` already secured.

    The solver's own path whenever ``f`` is not non-decreasing (``W_MONO`` 0: in the
    classic family with declarations, a capot against loses the takers' declarations and
    can cost less than a failed deal with a trick), not only a test oracle;
    ``OPT_DIRECT`` forces it so that the tests can compare it with the ``E`` search."""
    W[C_NODES] += 1
    Z0 = np.int64(0)
    M1 = np.int64(-1)
    strain = W[C_STRAIN]
    X = W[C_X]
    cur = seat_after(leader, n)
    tt_on = False
    k1 = Z0
    k2 = Z0
    k3 = Z0
    tt_best = M1
    ncards = Z0
    if n == 0 and (W[C_OPT] & OPT_TT):
        ncards = popcount(W[W_H + leader])
        if ncards >= 3:
            tt_on = True
            k1, k2 = _hand_keys(W)
            k3 = leader | (flag << 2) | 16 | ((past + 1) << 5) | (vec << 14) | (W[C_GEN] << 24)
            p = _tt_find(W, _tt_bucket(W, k1, k2, k3), k1, k2, k3)
            if p >= 0:
                tlo, thi, tt_best = _tt_unpack(W[p + 3])
                if tlo >= beta or tlo == thi:
                    return tlo
                if thi <= alpha:
                    return thi
    legal = _legal(W[W_H + cur], n, led, win, wseat == partner(cur), strain, W[C_PLAY_RULES])
    maxnode = team(cur) == X
    a0 = alpha
    b0 = beta
    best = -INF if maxnode else INF
    best_c = M1
    cand = legal
    while cand:
        if tt_best >= 0 and (cand >> tt_best) & 1:
            c = tt_best
        else:
            c = lowest_card(cand)
        cand &= ~(1 << c)
        v = _ds_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, vec, c, alpha, beta)
        best, best_c, alpha, beta, cut = window_update(maxnode, v, c, best, best_c, alpha, beta)
        if cut:
            break
    if tt_on:
        _tt_save(W, k1, k2, k3, ncards, best, a0, b0, best, best, best_c)
    return best


# inlined, as _play_child is for _ab: _ds calls it for each card, and numba's cache cannot
# load mutually recursive kernels
@njit(cache=True, _nrt=False, inline='always')
def _ds_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, vec, c, alpha, beta):
    """Objective value (direct search of combination ``vec``, window ``(alpha, beta)``)
    after the seat to act plays ``c``."""
    cur = seat_after(leader, n)
    h = W[W_H + cur]
    bit = 1 << c
    last = n == N_SEATS - 1 and (_in_hands(W) & ~bit) == 0
    W[W_H + cur] = h & ~bit
    pc = IPTS.flat[(W[C_AT] * 6 + W[C_STRAIN]) * N_CARDS + c]
    vt, nf, cl, cn, nled, nwin, nws, ntp = _child(W, leader, n, led, win, wseat, tpts, flag,
                                                  cur, c, pc)
    if last:
        v = _fval(W, vec, past + vt + _deal_end(W, nf, cl))
    else:
        v = _ds(W, cl, cn, nled, nwin, nws, ntp, nf, rem - pc, past + vt, vec, alpha, beta)
    W[W_H + cur] = h
    return v


# ------------------------------------------------------------------ first trick with choices
@njit(cache=True, _nrt=False, inline='always')
def _rest_value(W, ws, rem, past, vec, alpha, beta):
    """Objective value of the position at the end of the first trick (won by ``ws``)
    for the combination of choices ``vec``, with the objective window (alpha, beta)."""
    Z0 = np.int64(0)
    M1 = np.int64(-1)
    two = np.int64(2)
    if W[W_MONO + vec]:
        _activate(W, vec)
        ea, eb = _e_window(W, vec, alpha, beta)
        r = _ab(W, ws, Z0, Z0, M1, M1, Z0, two, rem, past, ea - past, eb - past)
        return _fval(W, vec, past + r)
    return _ds(W, ws, Z0, Z0, M1, M1, Z0, two, rem, past, vec, alpha, beta)


@njit(cache=True, _nrt=False)
def _outer(W, leader, n, led, win, wseat, tpts, rem, vec, j, alpha, beta):
    """Objective value (team ``X``, fail-soft) of a first-trick position where pending
    choices ``j..`` are still to make (``vec``: the choices made so far)."""
    W[C_NODES] += 1
    Z0 = np.int64(0)
    strain = W[C_STRAIN]
    X = W[C_X]
    cur = seat_after(leader, n)
    maxnode = team(cur) == X
    best = -INF if maxnode else INF
    h = W[W_H + cur]
    choice = j < W[C_NPAIRS] and W[W_PAIR + 2 * j] == cur
    if choice:
        m = np.int64(3)          # two moves: "yes" then "no"
    else:
        m = _legal(h, n, led, win, wseat == partner(cur), strain, W[C_PLAY_RULES])
    prow = (W[C_AT] * 6 + strain) * N_CARDS
    while m:
        c = highest_card(m) if choice else lowest_card(m)
        m &= ~(1 << c)
        if choice:
            cn = n
            nled = led
            nwin = win
            nws = wseat
            ntp = tpts
            nrem = rem
            nvec = vec | (c << j)
            nj = j + 1
        else:
            W[W_H + cur] = h & ~(1 << c)
            pc = IPTS.flat[prow + c]
            nled, nwin, nws = _trick_after(c, cur, n, led, win, wseat, strain)
            cn = n + 1
            ntp = tpts + pc
            nrem = rem - pc
            nvec = vec
            nj = j
        if cn == N_SEATS:
            v = _rest_value(W, nws, nrem, ntp if team(nws) == X else Z0, vec, alpha, beta)
        else:
            v = _outer(W, leader, cn, nled, nwin, nws, ntp, nrem, nvec, nj, alpha, beta)
        W[W_H + cur] = h
        best, alpha, beta = _better(maxnode, v, best, alpha, beta)
        if alpha >= beta:
            break
    return best


# ------------------------------------------------------------------ from the engine state
@njit(cache=True, _nrt=False)
def _setup(W, S, P, X, objective):
    """Load the engine position ``S`` into the workspace for a search maximising team
    ``X``'s ``E``; build ``f`` for every combination of pending choices. Returns the
    trick state ``(leader, n, led, win, wseat, tpts, flag, rem, past)`` in solver ids."""
    strain = contract_strain(S)
    at = P[P_AT_TABLE]
    T = team(contract_of(S)[2])
    G = P[P_GENERALE_BONUS]
    GB = G - CAPOT_POINTS if (G > 0 and X == T) else 0
    # (ten bits for the card-play options: rules.PLAY_RULE_BITS)
    sig = strain | (at << 3) | (X << 5) | (P[P_PLAY_RULES] << 6) | (GB << 16)
    if sig != W[C_SIG]:
        W[C_SIG] = sig
        W[C_GEN] += 1
        for i in range(KILL_WORDS):
            W[W_KILL + i] = -1
    elif W[C_KEEP] == 0:
        W[C_GEN] += 1           # a fresh table for every call unless asked to keep it
    W[C_STRAIN] = strain
    W[C_PLAY_RULES] = P[P_PLAY_RULES]
    W[C_AT] = at
    W[C_X] = X
    W[C_CB] = CAPOT_BONUS
    W[C_GB] = GB
    prow = (at * 6 + strain) * N_CARDS
    rawtot = DIX_DE_DER
    for i in range(N_CARDS):
        rawtot += IPTS.flat[prow + i]
    W[C_RAWTOT] = rawtot
    W[C_EMAX] = rawtot + CAPOT_BONUS + GB
    rem = 0
    for s in range(N_SEATS):
        m = hand_of(S, s)
        h = 0
        while m:
            c = lowest_card(m)
            m &= m - 1
            i = PERM[strain, c]
            h |= 1 << i
            rem += IPTS.flat[prow + i]
        W[W_H + s] = h
    trick = trick_number(S)
    n = cards_in_trick(S)
    leader = current_leader(S)
    led = 0
    win = -1
    wseat = -1
    tpts = 0
    if n > 0:
        led = trick_card(S, trick, 0) >> 3
        win = PERM[strain, winning_card(S)]
        wseat = winning_seat(S)
        for i in range(n):
            tpts += IPTS.flat[prow + PERM[strain, trick_card(S, trick, i)]]
    if trick == 0:
        flag = 3
    else:
        flag = 2
        for t in range(trick):
            w = trick_winner(S, t)
            if w != leader:
                if team(w) == team(leader):
                    if flag == 2:
                        flag = 1
                else:
                    flag = 0
    past = team_points_won(S, X)
    # pending choices of the first trick (they only move the score)
    npairs = 0
    if trick == 0 and objective == SCORE:
        for i in range(n, N_SEATS):
            seat = seat_after(leader, i)
            bit = 1 << seat
            if (P[P_OPTIONAL_DECLARE] and (declare_decided_seats(S) & bit) == 0
                    and has_declaration(S, P, seat)):
                W[W_PAIR + 2 * npairs] = seat
                W[W_PAIR + 2 * npairs + 1] = 0
                npairs += 1
            if P[P_OPTIONAL_BELOTE] and (belote_decided_seats(S) & bit) == 0 and (
                    belote_holder_seats(S) & bit) != 0:
                W[W_PAIR + 2 * npairs] = seat
                W[W_PAIR + 2 * npairs + 1] = 1
                npairs += 1
    W[C_NPAIRS] = npairs
    # the root state with the automatic declarations of the first trick made
    for i in range(STATE_SIZE):
        W[W_BASE + i] = S[i]
    if trick == 0 and P[P_DECLARATIONS] and P[P_OPTIONAL_DECLARE] == 0:
        base = W[W_BASE:W_BASE + STATE_SIZE]
        for seat in range(N_SEATS):
            if has_declaration(S, P, seat):
                mark_declared(base, 1 << seat)
    for vec in range(1 << npairs):
        mono = _fill_map(W, P, X, objective, vec)
        W[W_MONO + vec] = 0 if W[C_OPT] & OPT_DIRECT else mono
    W[C_ACTIVE] = -1
    return leader, n, led, win, wseat, tpts, flag, rem, past


@njit(cache=True, _nrt=False)
def _final_value(S, objective, team):
    if objective == POINTS:
        return team_card_points(S, team)
    return team_score(S, team) - team_score(S, 1 - team)


@kernel
def solve_into(W, S, P, objective, team):
    """Exact value of position ``S`` for ``team`` (``objective`` 0 points, 1 score), in
    the workspace ``W`` (:func:`new_workspace`). A finished deal returns its final
    value; outside the card play the result is ``INF`` (30000)."""
    if phase_of(S) == E.DONE:
        return _final_value(S, objective, team)
    if phase_of(S) != PLAY:
        return INF
    T = R.team(contract_of(S)[2])   # R.team: ``team`` is the argument here
    X = team if objective == POINTS else T
    leader, n, led, win, wseat, tpts, flag, rem, past = _setup(W, S, P, X, objective)
    if W[C_NPAIRS] > 0:
        v = _outer(W, leader, n, led, win, wseat, tpts, rem, np.int64(0), np.int64(0),
                   np.int64(-INF), np.int64(INF))
    elif W[W_MONO]:
        _activate(W, np.int64(0))
        r = _ab(W, leader, n, led, win, wseat, tpts, flag, rem, past, np.int64(-INF) - past,
                np.int64(INF) - past)
        v = _fval(W, np.int64(0), past + r)
    else:
        v = _ds(W, leader, n, led, win, wseat, tpts, flag, rem, past, np.int64(0),
                np.int64(-INF), np.int64(INF))
    return v if X == team else -v


def nodes_of(W) -> int:
    """Search nodes counted in workspace ``W`` since it was made."""
    return int(W[C_NODES])


@kernel
def keep_table(W, keep):
    """Keep (``keep`` 1) the transposition table of workspace ``W`` between solves, or
    start a new one at every solve (0). Its entries are exact values of (remaining
    hands, leader, history flag), valid for every position while the strain, rules and
    team stay (the solver starts a new table when they change)."""
    W[C_KEEP] = keep


@kernel
def solve_keeping(W, S, P, objective, team):
    """:func:`solve_into` in a workspace that keeps its table between calls.

    The kept table is exact for the ``E`` search, which a solve uses when the objective
    is a non-decreasing function of ``E``. Where it is not (``W_MONO``: the classic
    family's capot against), the direct search's entries belong to one contract level:
    the solve is then repeated with a fresh table."""
    v = solve_into(W, S, P, objective, team)
    mono = True
    for vec in range(1 << W[C_NPAIRS]):
        if W[W_MONO + vec] == 0:
            mono = False
    if not mono:
        keep = W[C_KEEP]
        W[C_KEEP] = 0
        v = solve_into(W, S, P, objective, team)
        W[C_KEEP] = keep
    return v


@kernel
def move_values_into(W, S, P, objective, team, out_a, out_v):
    """Exact value for ``team`` of every legal action of position ``S``: action ids into
    ``out_a`` (increasing), values into ``out_v`` (int64 arrays of at least 8); returns
    how many (0 when the deal is over, -1 outside the card play)."""
    if phase_of(S) == E.DONE:
        return 0
    if phase_of(S) != PLAY:
        return -1
    T = R.team(contract_of(S)[2])   # R.team: ``team`` is the argument here
    X = team if objective == POINTS else T
    sign = 1 if X == team else -1
    pend = E.pending_choice(S, P)
    leader, n, led, win, wseat, tpts, flag, rem, past = _setup(W, S, P, X, objective)
    strain = W[C_STRAIN]
    Z0 = np.int64(0)
    lo = np.int64(-INF)
    hi = np.int64(INF)
    if pend != 0:
        yes_a = A.DECLARE if pend == 1 else A.BELOTE
        if W[C_NPAIRS] > 0:
            # the root's own choice is pending pair 0
            v1 = _outer(W, leader, n, led, win, wseat, tpts, rem, np.int64(1), np.int64(1), lo, hi)
            v0 = _outer(W, leader, n, led, win, wseat, tpts, rem, Z0, np.int64(1), lo, hi)
        else:
            if W[W_MONO]:
                _activate(W, np.int64(0))
                r = _ab(W, leader, n, led, win, wseat, tpts, flag, rem, past, lo - past, hi - past)
                v1 = _fval(W, np.int64(0), past + r)
            else:
                v1 = _ds(W, leader, n, led, win, wseat, tpts, flag, rem, past, Z0, lo, hi)
            v0 = v1
        out_a[0] = yes_a
        out_v[0] = sign * v1
        out_a[1] = yes_a + 1
        out_v[1] = sign * v0
        return 2
    cur = seat_after(leader, n)
    h = W[W_H + cur]
    legal = _legal(h, n, led, win, wseat == partner(cur), strain, W[C_PLAY_RULES])
    k = 0
    if W[C_NPAIRS] > 0:
        prow = (W[C_AT] * 6 + strain) * N_CARDS
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            W[W_H + cur] = h & ~(1 << c)
            pc = IPTS.flat[prow + c]
            nled, nwin, nws = _trick_after(c, cur, n, led, win, wseat, strain)
            if n == N_SEATS - 1:
                vt = tpts + pc if R.team(nws) == W[C_X] else Z0
                v = _rest_value(W, nws, rem - pc, vt, Z0, lo, hi)
            else:
                v = _outer(W, leader, n + 1, nled, nwin, nws, tpts + pc, rem - pc, Z0, Z0, lo, hi)
            W[W_H + cur] = h
            out_a[k] = c
            out_v[k] = v
            k += 1
    elif W[W_MONO]:
        _activate(W, np.int64(0))
        k = _root_values(W, leader, n, led, win, wseat, tpts, flag, rem, past, out_a, out_v)
        for i in range(k):
            out_v[i] = _fval(W, np.int64(0), out_v[i])
    else:
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            out_a[k] = c
            out_v[k] = _ds_child(W, leader, n, led, win, wseat, tpts, flag, rem, past, Z0, c, lo,
                                 hi)
            k += 1
    # solver ids to action ids, increasing
    for i in range(k):
        out_a[i] = A.CARD_BASE + INV[strain, out_a[i]]
        out_v[i] = sign * out_v[i]
    for i in range(1, k):
        a = out_a[i]
        v = out_v[i]
        j = i - 1
        while j >= 0 and out_a[j] > a:
            out_a[j + 1] = out_a[j]
            out_v[j + 1] = out_v[j]
            j -= 1
        out_a[j + 1] = a
        out_v[j + 1] = v
    return k


# ------------------------------------------------------------------ Python API
def _objective_code(objective) -> int:
    if objective in OBJECTIVES:
        return OBJECTIVES[objective]
    raise SolverError(f"objective={objective!r} is not valid: expected 'points' or 'score'")


def _position(position, params):
    """``(S, P)`` from a :class:`~coinche_rl.game.Deal` or a state vector + params."""
    from .game import Deal
    from .rules import RuleSet, get_rules, params_vector
    if isinstance(position, Deal):
        if params is not None:
            raise SolverError("give params only with a raw state vector, not with a Deal")
        return position.state, position.params
    S = np.asarray(position)
    if S.dtype != np.int64 or S.shape != (STATE_SIZE,):
        raise SolverError(f"position must be a Deal or an int64 state vector of shape "
                          f"({STATE_SIZE},), not {type(position).__name__} "
                          f"{getattr(S, 'dtype', '')}{getattr(S, 'shape', '')}")
    if params is None:
        raise SolverError("a raw state vector needs params= (a RuleSet, a preset name or "
                          "the params vector)")
    if isinstance(params, (str, RuleSet)):
        P = params_vector(get_rules(params))
    else:
        P = np.asarray(params, dtype=np.int64)
    return S, P


class Solver:
    """A double-dummy solver with its own reusable workspace (TT, killers).

    :param tt_bits: the TT holds ``2 ** tt_bits`` buckets of two entries (32 bytes an
        entry; 17 = 8 MiB).
    :param keep_table: keep the TT between calls (its entries stay exact while the
        strain, the rules and the team do not change; otherwise every call starts from
        an empty table, so that calls are independent).
    :param options: search enhancements (``OPT_*`` bits); only the speed depends on
        them.

    >>> from coinche_rl.game import Deal
    >>> d = Deal("ffb", dealer=3, seed=2).with_contract(80, 0, taker=0)
    >>> s = Solver(tt_bits=14)
    >>> s.solve(d, "points", team=0) + s.solve(d, "points", team=1) in (162, 252)
    True
    """

    #: the objectives :meth:`solve` and :meth:`move_values` take (``"points"``, ``"score"``)
    OBJECTIVES = tuple(OBJECTIVES)

    def __init__(self, tt_bits: int = 17, *, keep_table: bool = False, options: int = OPT_DEFAULT):
        self.W = new_workspace(tt_bits)
        self.W[C_KEEP] = 1 if keep_table else 0
        if not 0 <= options <= OPT_MAX:
            raise SolverError(f"options={options} must be a combination of the OPT_* bits (0..{OPT_MAX})")
        self.W[C_OPT] = options
        self._a = np.zeros(32, dtype=np.int64)
        self._v = np.zeros(32, dtype=np.int64)

    @property
    def nodes(self) -> int:
        """Search nodes visited since the solver was made (or :meth:`reset_nodes`)."""
        return nodes_of(self.W)

    def reset_nodes(self) -> None:
        self.W[C_NODES] = 0

    def _args(self, position, objective, team, params):
        S, P = _position(position, params)
        obj = _objective_code(objective)
        if phase_of(S) == E.AUCTION:
            raise SolverError("the solver needs a position in the card play: this deal is still "
                              "in the auction (finish it, or use Deal.with_contract)")
        if team is None:
            if phase_of(S) == E.DONE:
                raise SolverError("the deal is over: say for which team (team=0 or 1)")
            team = int(R.team(current_seat(S)))
        if team not in (0, 1):
            raise SolverError(f"team={team!r} must be 0 or 1")
        return S, P, obj, team

    def solve(self, position, objective: str = "points", *, team=None, params=None) -> int:
        """Exact value of the position for ``team`` (default: the team of the seat to
        act). ``position``: a :class:`~coinche_rl.game.Deal` in the card play, or an
        engine state vector with ``params`` (rule set, preset name or params vector)."""
        S, P, obj, team = self._args(position, objective, team, params)
        return int(solve_into(self.W, S, P, obj, team))

    def move_values(self, position, objective: str = "points", *, team=None,
                    params=None) -> Tuple[np.ndarray, np.ndarray]:
        """``(actions, values)``: every legal action (increasing ids: cards, or a declare /
        belote choice) and its exact value for ``team``. Empty when the deal is over."""
        S, P, obj, team = self._args(position, objective, team, params)
        k = move_values_into(self.W, S, P, obj, team, self._a, self._v)
        return self._a[:k].copy(), self._v[:k].copy()


_DEFAULT: Union[Solver, None] = None


def _default() -> Solver:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Solver()
    return _DEFAULT


def solve(position, objective: str = "points", *, team=None, params=None) -> int:
    """Exact value of a position (see :meth:`Solver.solve`), with a shared solver."""
    return _default().solve(position, objective, team=team, params=params)


def move_values(position, objective: str = "points", *, team=None,
                params=None) -> Tuple[np.ndarray, np.ndarray]:
    """Exact value of every legal action (see :meth:`Solver.move_values`)."""
    return _default().move_values(position, objective, team=team, params=params)


#: the types of a state, params or workspace vector (int64, contiguous) and of an int
_VEC = types.int64[::1]
_INT = types.int64


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the first chain of
#: warm-ups (the deepest call graph), :func:`warmup_search` first
WARMUP_CHAIN = "search"
WARMUP_AFTER = ("coinche_rl.solver:warmup_search",)


def warmup_search() -> None:
    """Compile (or load from the numba cache) :func:`move_values_into`, the kernel that
    PIMC and the searches call, with every solver kernel below it. It is compiled from
    its argument types alone: no position is needed, so none of the engine's kernels
    either (the parallel warm-ups compile those in another process meanwhile)."""
    move_values_into.compile((_VEC, _VEC, _VEC, _INT, _INT, _VEC, _VEC))


def warmup() -> None:
    """Compile every solver kernel (a few seconds on an empty numba cache)."""
    from .game import Deal
    warmup_search()
    solve_into.compile((_VEC, _VEC, _VEC, _INT, _INT))
    s = Solver(tt_bits=10)
    d = Deal("ffb", dealer=3, seed=0).with_contract(90, 1, taker=0)
    for a in d.legal_actions()[:1] * 24:
        d.apply(int(d.legal_actions()[0]))
    for obj in ("points", "score"):
        s.solve(d, obj)
        s.move_values(d, obj)
    x3 = Deal("coinche_x3", dealer=3, seed=0).with_contract(90, 1, taker=0)
    s.move_values(x3, "score")
    legal_ids(np.int64(1), np.int64(0), np.int64(0), np.int64(0), False, np.int64(0),
              np.int64(2))
