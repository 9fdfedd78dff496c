"""A double-dummy solver for belote for two players (RULES.md §12): the card points each
player wins from a position when every card is known, both playing perfectly.

"Double dummy" here means every card's place is known, the face-down cards included;
the covering constraint stays: a face-down card is playable only from the trick after
the one that played the card covering it. Values are card points (dix de der included;
the capot's extra 90 is not counted) won by player 0 from the position on; player 0
maximises, player 1 minimises.

The search (each enhancement keeps the values exact; the tests compare them with an
exhaustive minimax through the engine, and with every enhancement off):

* cards are renumbered inside the solver as ``suit * 8 + strength`` under the trump, so
  that "beats", "the cards above" and "the next lower card" are bit operations; the
  legal-card rule is the engine's one copy (:func:`coinche_rl.engine.play.card_play_rule`,
  no partner), given the cards above the winning one in these ids;
* alpha-beta over whole tricks (the leader's card, then the follower's reply), fail-soft,
  one node per trick;
* a transposition table of exact intervals ``[lo, hi]`` keyed on the position's
  **canonical form**: the cards each player still owns and the leader, whatever order
  the tricks were played in (the covering is the deal's, so the face-down cards follow);
  with ``OPT_CANON`` also the cards worth no points at the bottom of a suit (7 8 9
  outside trump, 7 8 in trump) that neither cover nor are covered by a face-down card
  renumbered to the lowest such ids in their order (which of them were played changes
  nothing, only how many: 4-7 % fewer nodes, but 10-15 % more time, so it is off by
  default); buckets of two entries (the deeper one kept, the other always replaced), a
  generation number in the key instead of clearing the table between solves, except
  for the positions with no face-down card left, and with ``OPT_SHARE`` (PIMC's tables)
  those with at most five left in a deal of few covers (belote a deux): their key
  names the card under each remaining cover instead, the same in every world where it
  holds, so their entries are shared by all generations (PIMC's worlds, its later
  decisions of the deal);
* **bounds from the remaining points**: 0 and the points still to win, tightened by the
  top trumps one player holds (each wins the trick it falls in, so its points are his)
  and by the leader's **quick tricks** (his playable cards above the other's in each
  plain suit, as many as the other has playable cards there to follow with, the other's
  cheapest cards of the suit falling in them; his playable trumps above the other's;
  then, once those have drawn every trump of the other, the rest of his playable cards
  above the other's in their plain suits: each wins and keeps the lead);
* **equivalent cards searched once**: two cards of one player, of one suit, worth the
  same points, with no card still in play between them and neither covering a
  face-down card play alike;
* **move ordering**: the table's best lead first, then the leads by the trick they make
  when the follower replies by a static rule (win it taking the most points, else
  throw the cheapest card); replies by the same rule;
* an **enhanced transposition cut-off**: from five tricks left, a reply whose position
  the table already bounds past the window refutes the lead before any search;
* the table's buckets of a lead's replies are **prefetched** (an LLVM prefetch hint)
  when their keys are computed, before the first reply is searched, and the keys are
  handed to the replies' searches;
* the root's value is found by **null-window tests with iterative widening**: the first
  test at a guess (the previous card's value, or the middle), each test moves one bound
  of the value's interval, the next test goes beyond it by a step that doubles while
  the tests fail on the same side, then halfway once the value is bracketed (the
  table's intervals carry what each test proved into the next). The fail-soft results
  move a bound by a point or two at a time, so MTD(f) alone took up to 65 tests.

PIMC's choice (:func:`best_card_two`) searches the worlds of one decision together and
only as far as the choice needs: in each world the best card so far exactly and the
others by one null-window test against it, then exact values only where the sums
could still change the choice.

Card-play legality is the engine's; card order and points the rules' tables.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np
from numba import njit

from .actions import CARD_BASE
from .engine import FlatLayout
from .engine.bits import highest_card, lowest_card, popcount, prefetch, take_best, window_update
from .engine.play import card_play_rule
from .engine.two import (DIX_DE_DER, N_TRICKS_TWO, PLAY, card_points_won, cards_in_trick,
                         cards_under, current_leader, face_down_cards, led_card, other,
                         playable_cards, py, trick_number, trump_of, writable_state)
from .rules import ALL_CARD_POINTS, CARD_ORDER

__all__ = ["TwoPlayerSolver", "solve_two", "card_values_two", "solve_two_state", "best_card_two",
           "new_generation", "new_tables", "TT_BITS", "OPT_DEFAULT", "OPT_SHARE"]


# ------------------------------------------------------------------ internal card ids
def _build_perm():
    perm = np.zeros((4, 32), dtype=np.int64)
    inv = np.zeros((4, 32), dtype=np.int64)
    pts = np.zeros((4, 32), dtype=np.int64)
    for strain in range(4):
        for c in range(32):
            i = (c >> 3) * 8 + int(CARD_ORDER[strain, c])
            perm[strain, c] = i
            inv[strain, i] = c
            pts[strain, i] = ALL_CARD_POINTS[0, strain, c]
    return perm, inv, pts


#: ``PERM[strain, card]``: the solver's id of an engine card (suit contracts), ``INV``
#: the way back, ``IPTS[strain, id]`` the card points by solver id
PERM, INV, IPTS = _build_perm()


def _low_free_masks():
    """``LOW[strain]``: the ids of the cards worth no points at the bottom of each suit
    (7 8 9 outside trump, 7 8 in trump: the lowest strengths)."""
    low = np.zeros(4, dtype=np.int64)
    for strain in range(4):
        m = 0
        for s in range(4):
            for r in range(8):
                if IPTS[strain, 8 * s + r] != 0:
                    break
                m |= 1 << (8 * s + r)
        low[strain] = m
    return low


LOW = _low_free_masks()
assert [bin(int(x)).count("1") for x in LOW] == [11, 11, 11, 11]
assert all((int(x) >> (8 * s)) & 0xF8 == 0 for x in LOW for s in range(4))


def _compact_table():
    """``COMPACT[lane | mine << 3]``: the bits of ``mine`` (a subset of the 3-bit
    ``lane``) moved to the lowest ``popcount(lane)`` places, in their order."""
    t = np.zeros(64, dtype=np.int64)
    for lane in range(8):
        for mine in range(8):
            k = 0
            out = 0
            for r in range(3):
                if lane >> r & 1:
                    if mine >> r & 1:
                        out |= 1 << k
                    k += 1
            t[lane | mine << 3] = out
    return t


COMPACT = _compact_table()

#: transposition table: 2**TT_BITS buckets of two entries of (key, data) (32 MB)
TT_BITS = 20

#: search options (bits; the values never depend on them, only the speed): the table,
#: equivalent cards, the low cards renumbered in the table's keys (off by default:
#: slower, module docstring), the sure-trump bounds,
#: static ordering, null-window tests at the root (off: one full-window search), the
#: enhanced transposition cut-off (a reply whose position the table bounds past the
#: window refutes a lead unsearched, from ETC_FROM tricks left); OPT_SHUFFLE orders the
#: moves pseudo-randomly (for tests); the leader's quick tricks as a bound; OPT_SHARE:
#: world-free keys for the positions with few face-down cards left (:func:`_gen_field`;
#: PIMC's tables: they pay across the worlds and decisions of one deal, and the table is
#: cleared when the deal changes, 1.5 ms, a cost where each call is another deal). Killer leads and a table of refuting replies were tried and searched
#: more nodes than the static order (benchmarks/RESULTS.md).
OPT_TT, OPT_EQUIV, OPT_CANON, OPT_SURE, OPT_ORDER, OPT_MTD, OPT_ETC, OPT_SHUFFLE, \
    OPT_QUICK, OPT_SHARE = 1, 2, 4, 8, 16, 32, 64, 128, 256, 512
OPT_DEFAULT = OPT_TT | OPT_EQUIV | OPT_SURE | OPT_ORDER | OPT_MTD | OPT_ETC | OPT_QUICK
OPT_MAX = 1023
ETC_FROM = 5

# the workspace (int64): counters and options, the table's mask, the cards that cover a
# face-down card, the card under each card (solver ids), the ordered moves (32 per
# tricks-left count: 16 leads, 16 replies)
_W = FlatLayout()
W_NODES, W_GEN, W_STRAIN, W_OPT, W_MASK, W_COVERS, W_MAPMAX, W_LASTCOV = _W.words(8)
W_UNDER = _W.block(32)
W_MV = _W.block(32 * (N_TRICKS_TWO + 1))
W_CK = _W.block(64 * (N_TRICKS_TWO + 1))
W_SIZE = _W.size
assert (W_UNDER, W_MV, W_CK, W_SIZE) == (8, 40, 584, 1672)

ALL = np.int64(0xFFFFFFFF)
_GEN_MAX = (1 << 30) - 1
#: the generation field's mark of a world-free key (:func:`_gen_field`), and the most
#: face-down cards such a key describes (5 bits each)
_SHARED = 1 << 30
_MAP_MAX = 5
#: the most covers a deal may have for those keys (belote a deux has 6, decouverte 16)
_MAP_DEAL_MAX = 8


def new_tables(tt_bits: int = TT_BITS, options: int = OPT_DEFAULT):
    """``(tt, work)``: a transposition table of ``2 ** tt_bits`` buckets and a workspace
    for :func:`card_values_two` / :func:`solve_two_state` / :func:`best_card_two` (reuse
    them: each call is a new generation of the table, :func:`new_generation`), searching
    with ``options`` (PIMC adds ``OPT_SHARE`` for its many worlds of one deal)."""
    if not 10 <= tt_bits <= 26:
        raise ValueError(f"tt_bits={tt_bits} must be in 10..26 (a table of 2**tt_bits buckets)")
    tt = np.zeros(4 << tt_bits, dtype=np.int64)
    work = np.zeros(W_SIZE, dtype=np.int64)
    work[W_MASK] = (1 << tt_bits) - 1
    work[W_OPT] = options
    return tt, work


@njit(cache=True, _nrt=False)
def new_generation(tt, work):
    """Start a new generation of the table: the entries of earlier ones no longer match
    (the table is cleared once every 2**30 generations). The positions with few
    face-down cards left keep their entries (:func:`_gen_field`: their key is the same
    in every world)."""
    work[W_GEN] += 1
    if work[W_GEN] > _GEN_MAX:
        for k in range(tt.shape[0]):
            tt[k] = 0
        work[W_GEN] = 1


# ------------------------------------------------------------------ card play on solver ids
@njit(cache=True, _nrt=False, inline="always")
def _above(w):
    """Cards of ``w``'s suit stronger than ``w``."""
    return (np.int64(0xFF) << (8 * (w >> 3))) & ~((np.int64(2) << w) - 1) & ALL


@njit(cache=True, _nrt=False, inline="always")
def _beats(c, w, strain):
    """``c`` (the reply) beats ``w`` (the lead), solver ids."""
    if (c >> 3) == (w >> 3):
        return c > w
    return (c >> 3) == strain


@njit(cache=True, _nrt=False, inline="always")
def _follow(hand, lead, strain):
    """The follower's legal cards among ``hand`` after ``lead`` (RULES.md §12)."""
    return card_play_rule(hand, lead >> 3, lead, _above(lead), False, strain, 0)[0]


@njit(cache=True, _nrt=False, inline="always")
def _candidates(W, S, present):
    """The cards of ``S`` (one player's) to search: one of each run of equivalent cards
    (same suit, same points, no card of ``present`` between them, neither covering a
    face-down card), the lowest."""
    if (W[W_OPT] & OPT_EQUIV) == 0:
        return S
    prow = 32 * W[W_STRAIN]
    cand = np.int64(0)
    m = S
    while m:
        c = lowest_card(m)
        m &= m - 1
        if W[W_UNDER + c] < 0:
            below = present & (np.int64(0xFF) << (8 * (c >> 3))) & ((np.int64(1) << c) - 1)
            if below != 0:
                d = highest_card(below)
                if (S >> d) & 1 and W[W_UNDER + d] < 0 and \
                        IPTS.flat[prow + d] == IPTS.flat[prow + c]:
                    continue
        cand |= np.int64(1) << c
    return cand


@njit(cache=True, _nrt=False, inline="always")
def _equiv_rep(W, c, S, present):
    """The lowest card of ``S`` equivalent to ``c`` (:func:`_candidates`)."""
    if (W[W_OPT] & OPT_EQUIV) == 0 or W[W_UNDER + c] >= 0:
        return c
    prow = 32 * W[W_STRAIN]
    while True:
        below = present & (np.int64(0xFF) << (8 * (c >> 3))) & ((np.int64(1) << c) - 1)
        if below == 0:
            return c
        d = highest_card(below)
        if (S >> d) & 1 and W[W_UNDER + d] < 0 and IPTS.flat[prow + d] == IPTS.flat[prow + c]:
            c = d
        else:
            return c


@njit(cache=True, _nrt=False, inline="always")
def _reveal(W, av, dn, c):
    """``(av, dn)`` of the owner of ``c`` once the trick with ``c`` is collected: the
    card under ``c`` (if any) turns face up."""
    d = W[W_UNDER + c]
    if d >= 0:
        b = np.int64(1) << d
        dn &= ~b
        av |= b
    return av, dn


@njit(cache=True, _nrt=False, inline="always")
def _trick_result(lead, plead, f, leader, strain, prow):
    """The trick ``lead`` (worth ``plead``, led by ``leader``) answered by ``f``: its
    card points, its winner, and player 0's gain from it (the points, or 0)."""
    pts = plead + IPTS.flat[prow + f]
    win = other(leader) if _beats(f, lead, strain) else leader
    gain = pts if win == 0 else np.int64(0)
    return pts, win, gain


@njit(cache=True, _nrt=False, inline="always")
def _collect(W, av0, av1, dn0, dn1, leader, lead, f):
    """``(av0, av1, dn0, dn1)`` once the trick ``lead`` (by ``leader``), ``f`` (by the
    other player) is collected: each card out of its player's playable cards (a no-op
    where it is already out) and the card under it, if any, face up (:func:`_reveal`)."""
    lb = np.int64(1) << lead
    fb = np.int64(1) << f
    if leader == 0:
        nav0, ndn0 = _reveal(W, av0 & ~lb, dn0, lead)
        nav1, ndn1 = _reveal(W, av1 & ~fb, dn1, f)
    else:
        nav1, ndn1 = _reveal(W, av1 & ~lb, dn1, lead)
        nav0, ndn0 = _reveal(W, av0 & ~fb, dn0, f)
    return nav0, nav1, ndn0, ndn1


@njit(cache=True, _nrt=False, inline="always")
def _move_key(W, opt, x, key):
    """The ordering key of the card ``x``: its static ``key`` (0 without ``OPT_ORDER``),
    or under ``OPT_SHUFFLE`` a pseudo-random one mixed with the node count."""
    if opt & OPT_SHUFFLE:
        return (((x + 1) * 0x2545F491 * (W[W_NODES] | 1)) >> 7) & 0xFFFF
    return key


@njit(cache=True, _nrt=False, inline="always")
def _reply_key(f, pf, lead, plead, strain):
    """Static key of the reply ``f`` (worth ``pf``) to ``lead``: win the trick taking
    the most points, else throw the cheapest card."""
    if _beats(f, lead, strain):
        return 300 + pf + plead
    return 100 - pf


@njit(cache=True, _nrt=False, inline="always")
def _lead_key(W, c, foll_av, strain, prow):
    """Static key of the lead ``c``: the trick played out with the follower's reply by
    :func:`_reply_key`; won tricks first (by points), lost ones last (fewest points
    first)."""
    pc = IPTS.flat[prow + c]
    m = _follow(foll_av, c, strain)
    best = np.int64(-1)
    x = np.int64(-1)
    while m:
        y = lowest_card(m)
        m &= m - 1
        k = _reply_key(y, IPTS.flat[prow + y], c, pc, strain)
        if k > best:
            best = k
            x = y
    pts = pc + IPTS.flat[prow + x]
    if _beats(x, c, strain):
        return 256 - pts
    return 512 + pts + (8 if W[W_UNDER + c] >= 0 else 0)


@njit(cache=True, _nrt=False, inline="always")
def _sure_bounds(W, own0, rest, rem, strain, prow):
    """``(lo, hi)`` of player 0's points from a trick's start: the top trumps held by
    one player win the tricks they fall in, so their points are his."""
    lo = np.int64(0)
    hi = rem
    if (W[W_OPT] & OPT_SURE) == 0:
        return lo, hi
    tm = (rest >> (8 * strain)) & 0xFF
    if tm == 0:
        return lo, hi
    top = highest_card(tm)
    mine = (own0 >> (8 * strain + top)) & 1
    sure = np.int64(0)
    while tm:
        b = highest_card(tm)
        if (own0 >> (8 * strain + b)) & 1 != mine:
            break
        tm &= ~(np.int64(1) << b)
        sure += IPTS.flat[prow + 8 * strain + b]
    if mine == 1:
        lo = sure
    else:
        hi = rem - sure
    return lo, hi


# not inlined (nor _canonical): inlined into the search they made it compile a quarter
# longer for 3 % of its speed (benchmarks/RESULTS.md)
@njit(cache=True, _nrt=False)
def _quick_tricks(avL, ownO, avO, strain, prow, n, rem):
    """Card points the player to lead surely wins from a trick's start by cashing his
    quick tricks, whatever the other does (the leads in this order; each wins and keeps
    the lead):

    1. in each plain suit, as many of his playable cards above every card the other
       owns in it (the highest) as the other has playable cards of it: the other must
       follow (his cheapest cards of the suit at least fall in them), so he cannot trump;
    2. his playable trumps above every trump the other owns (each wins, and the other
       must play a playable trump to it: where those leads outnumber the other's trumps,
       all playable, they draw every one);
    3. once the other owns no trump, his other playable cards above every card the
       other owns in their plain suit (the other follows lower or discards).

    The points are his cards' and the other's forced ones (his trumps drawn, his cheapest
    cards of the suits he follows), or all the points still to win (``rem``) where the
    quick tricks are all the tricks left. ``avL``: the leader's playable cards, ``ownO``
    / ``avO``: the other's cards and playable ones (solver ids; plain suits' points grow
    with the card's strength)."""
    tsh = 8 * strain
    to = (ownO >> tsh) & 0xFF
    sure = (avL >> tsh) & 0xFF
    if to:
        sure &= ~((np.int64(2) << highest_card(to)) - 1)
    k = popcount(sure)
    pts = np.int64(0)
    m = sure
    while m:
        b = lowest_card(m)
        m &= m - 1
        pts += IPTS.flat[prow + tsh + b]
    drawn = to == 0
    if to and popcount(to) <= k and (to & ~((avO >> tsh) & 0xFF)) == 0:
        drawn = True
        m = to
        while m:
            b = lowest_card(m)
            m &= m - 1
            pts += IPTS.flat[prow + tsh + b]
    for s in range(4):
        if s == strain:
            continue
        sh = 8 * s
        mo = (ownO >> sh) & 0xFF
        ml = (avL >> sh) & 0xFF
        if mo:
            ml &= ~((np.int64(2) << highest_card(mo)) - 1)
        if ml == 0:
            continue
        kl = popcount(ml)
        # the other's forced cards: as many as he has playable ones (at most kl)
        f = popcount((avO >> sh) & 0xFF)
        if f > kl:
            f = kl
        for _ in range(f):
            b = lowest_card(mo)
            mo &= mo - 1
            pts += IPTS.flat[prow + sh + b]
        # the cashed tops, the highest first (the most points)
        c = kl if drawn else f
        k += c
        for _ in range(c):
            b = highest_card(ml)
            ml &= ~(np.int64(1) << b)
            pts += IPTS.flat[prow + sh + b]
    if k >= n:
        return rem
    return pts


@njit(cache=True, _nrt=False)
def _canonical(W, own0, own1, dn, strain):
    """``(own0, own1, flags)``: the cards each player owns, where in each suit whose
    remaining cards worth nothing at the bottom (:data:`LOW`) are all free (face up,
    nothing under them) those are renumbered to the lowest such ids in their order;
    ``flags`` has bit ``s`` for such a suit (module docstring). Two positions of one
    world with the same form play alike: the free cards' order, owners and points are
    the same, and every card a covering involves is kept as it is."""
    if (W[W_OPT] & OPT_CANON) == 0:
        return own0, own1, np.int64(0)
    lowrest = (own0 | own1) & LOW[strain]
    # a suit is out when one of its remaining low cards is face down or covers one
    bad = lowrest & (dn | W[W_COVERS])
    flags = np.int64(0)
    for s in range(4):
        sh = 8 * s
        lane = (lowrest >> sh) & 7
        if lane == 0 or (bad >> sh) & 7:
            continue
        flags |= np.int64(1) << s
        if (lane & (lane + 1)) == 0:
            continue                          # already the lowest ids
        n0 = COMPACT[lane | (((own0 >> sh) & 7) << 3)]
        n1 = COMPACT[lane | (lane << 3)] & ~n0
        own0 = (own0 & ~(lane << sh)) | (n0 << sh)
        own1 = (own1 & ~(lane << sh)) | (n1 << sh)
    return own0, own1, flags


@njit(cache=True, _nrt=False, inline="always")
def _tt_slot(W, k1, tag):
    h = k1 * np.int64(-7046029254386353131) + tag * np.int64(0x42B2AE3D27D4EB4F)
    h ^= h >> 29
    h *= np.int64(0x3C6EF372FE94F82B)
    h ^= h >> 32
    return 2 * (h & W[W_MASK]) * 2


#: a table entry is two words: the cards each player owns (canonical form, player 1's
#: in the high half) and ``lo | hi << 8 | (best lead + 1) << 16 | depth << 22 | tag <<
#: 27`` with ``tag = leader | canonical flags << 1 | generation << 5`` (the generation
#: field :func:`_gen_field`)
_TAG_SHIFT = 27


@njit(cache=True, _nrt=False, inline="always")
def _gen_field(W, rest, strain):
    """The generation field of the key of a position at a trick's start whose cards
    left are ``rest``: with at most ``W[W_MAPMAX]`` face-down cards left (:data:`_MAP_MAX`,
    or 0 in a deal of more than :data:`_MAP_DEAL_MAX` covers), a world-free
    form, ``_SHARED | strain << 28`` and, with face-down cards left, ``1 << 25 |`` the
    card under each card left that covers one (5 bits each, the covers in their order):
    with the cards each player owns, the leader and the deal's covers it fixes the value
    in every world and every call, so PIMC's worlds and its later decisions share these
    entries (:func:`_deal_check` clears the table when the covers change); else the
    current generation (the world's)."""
    cov = rest & W[W_COVERS]
    if cov == 0:
        return _SHARED | (strain << 28)
    if popcount(cov) > W[W_MAPMAX]:
        return W[W_GEN]
    f = _SHARED | (strain << 28) | (1 << 25)
    sh = 0
    while cov:
        c = lowest_card(cov)
        cov &= cov - 1
        f |= W[W_UNDER + c] << sh
        sh += 5
    return f


@njit(cache=True, _nrt=False, inline="always")
def _tt_store(W, tt, b, k1, tag, depth, lo, hi, best):
    """Store ``[lo, hi]`` (intersected with the entry already there for the key) and the
    best lead in bucket ``b``: the first entry keeps the deeper position of this
    generation, the second is always replaced."""
    p = -1
    for e in range(2):
        q = b + 2 * e
        d = tt[q + 1]
        if tt[q] == k1 and (d >> _TAG_SHIFT) == tag:
            p = q
            olo = d & 0xFF
            ohi = (d >> 8) & 0xFF
            if olo > lo:
                lo = olo
            if ohi < hi:
                hi = ohi
            if best < 0:
                best = ((d >> 16) & 63) - 1
            break
    if p < 0:
        p = b + 2
        gen = W[W_GEN]
        d0 = tt[b + 1]
        og = d0 >> (_TAG_SHIFT + 5)
        live = og == gen or og >= _SHARED          # an entry still of use
        if not live or ((d0 >> 22) & 31) <= depth:
            if live:
                tt[b + 2] = tt[b]
                tt[b + 3] = d0
            p = b
    tt[p] = k1
    tt[p + 1] = lo | (hi << 8) | ((best + 1) << 16) | (depth << 22) | (tag << _TAG_SHIFT)


@njit(cache=True, _nrt=False, inline="always")
def _tt_key(W, own0, own1, dn, leader, strain, gf):
    """``(k1, tag, b)``: the table key of the position at a trick's start (the
    canonical hands' word; the leader, the :func:`_canonical` flags and ``gf``, its
    :func:`_gen_field`) and its bucket."""
    c0, c1, flags = _canonical(W, own0, own1, dn, strain)
    k1 = c0 | (c1 << 32)
    tag = leader | (flags << 1) | (gf << 5)
    return k1, tag, _tt_slot(W, k1, tag)


@njit(cache=True, _nrt=False, inline="always")
def _tt_entry(tt, b, k1, tag):
    """``(found, d)``: whether the bucket ``b`` holds the key ``(k1, tag)``, and that
    entry's data word (bounds, best card, depth, tag; 0 when not found)."""
    for e in range(2):
        q = b + 2 * e
        d = tt[q + 1]
        if tt[q] == k1 and (d >> _TAG_SHIFT) == tag:
            return True, d
    return False, np.int64(0)


@njit(cache=True, _nrt=False)
def _ab(W, tt, av0, av1, dn0, dn1, leader, rem, only, alpha, beta, gf, k1, tag, b):
    """Card points player 0 wins in the remaining tricks, ``leader`` to lead (exact when
    inside ``(alpha, beta)``, else a bound on the right side; fail-soft). ``av*``:
    playable cards, ``dn*``: face-down cards (solver ids), ``rem``: the card points still
    to win (dix de der included); ``only``: the leads allowed (:data:`ALL`, or one card
    at the root: no table then); ``gf``: the position's :func:`_gen_field` (-1: not
    known; the parent's when its trick played no cover)."""
    W[W_NODES] += 1
    strain = W[W_STRAIN]
    opt = W[W_OPT]
    prow = 32 * strain
    own0 = av0 | dn0
    own1 = av1 | dn1
    rest = own0 | own1
    n = popcount(own0)
    maximize = leader == 0
    if n <= 1:
        if n == 0:
            return np.int64(0)
        # the last trick: one card each, both face up
        lead = lowest_card(av0 if maximize else av1)
        f = lowest_card(av1 if maximize else av0)
        win = other(leader) if _beats(f, lead, strain) else leader
        return rem if win == 0 else np.int64(0)
    lo, hi = _sure_bounds(W, own0, rest, rem, strain, prow)
    if (opt & OPT_QUICK) and only == ALL:
        # the quick tricks are the leader's to choose: no bound of one given lead
        if maximize:
            q = _quick_tricks(av0, own1, av1, strain, prow, n, rem)
            if q > lo:
                lo = q
        else:
            q = rem - _quick_tricks(av1, own0, av0, strain, prow, n, rem)
            if q < hi:
                hi = q
    if hi <= alpha:
        return hi
    if lo >= beta:
        return lo
    use_tt = (opt & OPT_TT) != 0 and only == ALL
    tt_best = np.int64(-1)
    if use_tt:
        if gf < 0:
            gf = _gen_field(W, rest, strain)
        if b < 0:
            k1, tag, b = _tt_key(W, own0, own1, dn0 | dn1, leader, strain, gf)
        found, d = _tt_entry(tt, b, k1, tag)
        if found:
            tlo = d & 0xFF
            thi = (d >> 8) & 0xFF
            tt_best = ((d >> 16) & 63) - 1
            if tlo >= beta:
                return tlo
            if thi <= alpha:
                return thi
            if tlo == thi:
                return tlo
            if tlo > lo:
                lo = tlo
            if thi < hi:
                hi = thi
    a0 = alpha if alpha > lo else lo
    b0 = beta if beta < hi else hi
    a = a0
    bb = b0
    best = np.int64(-1) if maximize else np.int64(1 << 20)
    best_c = np.int64(-1)
    lead_av = av0 if maximize else av1
    foll_av = av1 if maximize else av0
    leads = _candidates(W, lead_av & only, rest)
    mv = W_MV + 32 * n
    nmv = -1
    done = False
    while leads and not done:
        if tt_best >= 0 and (leads >> tt_best) & 1:
            lead = tt_best
        elif (leads & (leads - 1)) == 0:
            lead = lowest_card(leads)
        else:
            if nmv < 0:
                nmv = 0
                m = leads
                while m:
                    x = lowest_card(m)
                    m &= m - 1
                    k = _move_key(W, opt, x, _lead_key(W, x, foll_av, strain, prow)
                                  if opt & OPT_ORDER else np.int64(0))
                    W[mv + nmv] = (k << 5) | x
                    nmv += 1
            lead = take_best(W, mv, nmv)
            if (leads >> lead) & 1 == 0:
                continue
        leads &= ~(np.int64(1) << lead)
        lb = np.int64(1) << lead
        plead = IPTS.flat[prow + lead]
        # the replies
        fl = _follow(foll_av, lead, strain)
        replies = _candidates(W, fl, rest)
        mf = mv + 16
        nf = 0
        m = replies
        while m:
            x = lowest_card(m)
            m &= m - 1
            k = _move_key(W, opt, x, _reply_key(x, IPTS.flat[prow + x], lead, plead, strain)
                          if opt & OPT_ORDER else np.int64(0))
            # insertion by decreasing key
            e = (k << 5) | x
            i = nf
            while i > 0 and W[mf + i - 1] < e:
                W[mf + i] = W[mf + i - 1]
                i -= 1
            W[mf + i] = e
            nf += 1
        inner = np.int64(1 << 20) if maximize else np.int64(-1)
        ia = a
        ib = bb
        ck = W_CK + 64 * n
        keyed = n > 2 and (opt & OPT_TT) != 0
        if keyed:
            # the children's table keys, their buckets asked of the memory before any
            # is searched
            if gf < 0:
                gf = _gen_field(W, rest, strain)
            for j in range(nf):
                f = W[mf + j] & 31
                fb = np.int64(1) << f
                win = other(leader) if _beats(f, lead, strain) else leader
                nav0, nav1, ndn0, ndn1 = _collect(W, av0, av1, dn0, dn1, leader, lead, f)
                # the child's key field is this one's unless a cover was played
                cgf = gf
                if ((lb | fb) & W[W_COVERS]) != 0:
                    cgf = _gen_field(W, rest & ~(lb | fb), strain)
                ck1, ctag, cb = _tt_key(W, nav0 | ndn0, nav1 | ndn1, ndn0 | ndn1, win, strain,
                                        cgf)
                prefetch(tt, cb)
                W[ck + 4 * j] = ck1
                W[ck + 4 * j + 1] = ctag
                W[ck + 4 * j + 2] = cb
                W[ck + 4 * j + 3] = cgf
        if keyed and (opt & OPT_ETC) and n >= ETC_FROM and nf > 1:
            # a reply whose position the table already bounds past the window: the lead
            # is refuted without a search (enhanced transposition cut-off)
            for j in range(nf):
                f = W[mf + j] & 31
                pts, win, gain = _trick_result(lead, plead, f, leader, strain, prow)
                found, d = _tt_entry(tt, W[ck + 4 * j + 2], W[ck + 4 * j], W[ck + 4 * j + 1])
                tlo = d & 0xFF
                thi = (d >> 8) & 0xFF
                if found:
                    if maximize and gain + thi <= ia:
                        inner = gain + thi
                        nf = 0
                        break
                    if not maximize and gain + tlo >= ib:
                        inner = gain + tlo
                        nf = 0
                        break
        for j in range(nf):
            f = W[mf + j] & 31
            fb = np.int64(1) << f
            pts, win, gain = _trick_result(lead, plead, f, leader, strain, prow)
            nav0, nav1, ndn0, ndn1 = _collect(W, av0, av1, dn0, dn1, leader, lead, f)
            if n == 2:
                # the last trick follows: one card each, face up
                l2 = lowest_card(nav0 if win == 0 else nav1)
                f2 = lowest_card(nav1 if win == 0 else nav0)
                w2 = other(win) if _beats(f2, l2, strain) else win
                v = gain + (rem - pts if w2 == 0 else np.int64(0))
            else:
                if keyed:
                    cgf = W[ck + 4 * j + 3]
                    ck1 = W[ck + 4 * j]
                    ctag = W[ck + 4 * j + 1]
                    cb = W[ck + 4 * j + 2]
                else:
                    cgf = gf if ((lb | fb) & W[W_COVERS]) == 0 else np.int64(-1)
                    ck1 = np.int64(0)
                    ctag = np.int64(0)
                    cb = np.int64(-1)
                v = gain + _ab(W, tt, nav0, nav1, ndn0, ndn1, win, rem - pts, ALL,
                               ia - gain, ib - gain, cgf, ck1, ctag, cb)
            # the follower minimises where the leader maximises
            inner, _, ia, ib, cut = window_update(not maximize, v, f, inner, f, ia, ib)
            if cut:
                break
        best, best_c, a, bb, done = window_update(maximize, inner, lead, best, best_c, a, bb)
    if use_tt:
        nlo = lo
        nhi = hi
        if best <= a0:
            nhi = best if best < nhi else nhi
        elif best >= b0:
            nlo = best if best > nlo else nlo
        else:
            nlo = best
            nhi = best
        _tt_store(W, tt, b, k1, tag, n, nlo, nhi, best_c)
    return best


# ------------------------------------------------------------------ the root
@njit(cache=True, _nrt=False)
def _deal_check(W, tt):
    """After :func:`_setup`: clear the table when the deal's covers (the cards that
    cover a face-down card: the same in every world of a deal) differ from the previous
    call's and that call could store world-free keys naming them (:func:`_gen_field`):
    those keys hold only with the same covers."""
    last = W[W_LASTCOV]
    if (last & ALL) != W[W_COVERS] and (last >> 40) & 1:
        for k in range(tt.shape[0]):
            tt[k] = 0
    W[W_LASTCOV] = W[W_COVERS] | ((np.int64(1) << 40) if W[W_MAPMAX] > 0 else np.int64(0))


@njit(cache=True, _nrt=False)
def _to_ids(m, strain):
    """The mask ``m`` of engine cards in solver ids."""
    out = np.int64(0)
    while m:
        c = lowest_card(m)
        m &= m - 1
        out |= np.int64(1) << PERM[strain, c]
    return out


@njit(cache=True)
def _setup(W, T):
    """Write the strain and the cards under each card (solver ids) into ``W``; returns
    ``(av0, av1, dn0, dn1, rem, leader, lead)`` of the state ``T`` in solver ids:
    ``rem`` the card points not yet won (the current trick's card and the dix de der
    included), ``lead`` the card led to the current trick (solver id; -1 at a trick's
    start)."""
    strain = trump_of(T)
    W[W_STRAIN] = strain
    W[W_NODES] = 0
    under = cards_under(T)
    for i in range(32):
        W[W_UNDER + i] = -1
    covers = np.int64(0)
    for c in range(32):
        if under[c] >= 0:
            W[W_UNDER + PERM[strain, c]] = PERM[strain, under[c]]
            covers |= np.int64(1) << PERM[strain, c]
    W[W_COVERS] = covers
    # the world-free keys of a few face-down cards pay where the deal has few (belote a
    # deux: 6); with 16 (decouverte) they seldom occur before the last tricks and cost
    # more than they share (benchmarks/RESULTS.md)
    W[W_MAPMAX] = _MAP_MAX if (W[W_OPT] & OPT_SHARE) != 0 and \
        popcount(covers) <= _MAP_DEAL_MAX else 0
    av0 = _to_ids(playable_cards(T, 0), strain)
    av1 = _to_ids(playable_cards(T, 1), strain)
    dn0 = _to_ids(face_down_cards(T, 0), strain)
    dn1 = _to_ids(face_down_cards(T, 1), strain)
    rem = np.int64(DIX_DE_DER)
    m = av0 | av1 | dn0 | dn1
    while m:
        c = lowest_card(m)
        m &= m - 1
        rem += IPTS[strain, c]
    lead = np.int64(-1)
    if cards_in_trick(T) == 1:
        lead = PERM[strain, led_card(T)]
        rem += IPTS[strain, lead]
    return av0, av1, dn0, dn1, rem, current_leader(T), lead


@njit(cache=True, _nrt=False)
def _root_value(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, alpha, beta):
    """Player 0's points from the position on (window ``(alpha, beta)``, fail-soft):
    the whole position at a trick's start (``lead``, ``card`` both -1); ``leader``
    leading ``card`` (``lead`` -1); or, ``lead`` led (out of the leader's cards), the
    follower replying ``card``."""
    if lead < 0:
        only = ALL if card < 0 else np.int64(1) << card
        return _ab(W, tt, av0, av1, dn0, dn1, leader, rem, only, alpha, beta, np.int64(-1),
                   np.int64(0), np.int64(0), np.int64(-1))
    strain = W[W_STRAIN]
    prow = 32 * strain
    pts = IPTS.flat[prow + lead] + IPTS.flat[prow + card]
    if popcount(av0 | av1 | dn0 | dn1) == 1:
        pts += DIX_DE_DER
    win = other(leader) if _beats(card, lead, strain) else leader
    gain = pts if win == 0 else np.int64(0)
    nav0, nav1, ndn0, ndn1 = _collect(W, av0, av1, dn0, dn1, leader, lead, card)
    return gain + _ab(W, tt, nav0, nav1, ndn0, ndn1, win, rem - pts, ALL, alpha - gain,
                      beta - gain, np.int64(-1), np.int64(0), np.int64(0), np.int64(-1))


@njit(cache=True, _nrt=False)
def _exact(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, guess, lower, upper):
    """The exact value of :func:`_root_value`'s position, known to lie in ``[lower,
    upper]``, by null-window tests (``OPT_MTD``; off: one search with the whole window).
    The first test is at ``guess``; each test
    moves one bound of the value's interval (to the fail-soft result), and the next test
    is placed beyond it by a step that doubles while the tests keep failing on the same
    side (iterative widening), then halfway once both sides have failed (bisection);
    the table carries what each test proved into the next."""
    if (W[W_OPT] & OPT_MTD) == 0:
        return _root_value(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card,
                           np.int64(-1), rem + 1)
    g = guess
    step = np.int64(1)
    last = 0                      # the side the previous test failed on (1 high, -1 low)
    bracketed = False
    while lower < upper:
        beta = g
        if beta < lower + 1:
            beta = lower + 1
        if beta > upper:
            beta = upper
        v = _root_value(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, beta - 1, beta)
        side = 1 if v >= beta else -1
        if side > 0:
            lower = v
        else:
            upper = v
        if last != 0 and side != last:
            bracketed = True
        if bracketed:
            g = (lower + upper + 1) // 2
        else:
            step = step * 2 if side == last else np.int64(1)
            g = v + side * step if side > 0 else v + 1 - step
        last = side
    return lower


@njit(cache=True, inline="always")
def _to_act(W, T, av0, av1, dn0, dn1, leader, lead):
    """At the root set up by :func:`_setup` from ``T``: the player to act (the leader,
    or the follower once ``lead`` is led), the card points he has won in ``T``, his
    legal cards and the cards still in the deal (``lead`` included), in solver ids."""
    me = leader if lead < 0 else other(leader)
    won = card_points_won(T, me)
    mine = av0 if me == 0 else av1
    present = av0 | av1 | dn0 | dn1
    if lead >= 0:
        legal = _follow(mine, lead, W[W_STRAIN])
        present |= np.int64(1) << lead
    else:
        legal = mine
    return me, won, legal, present


@njit(cache=True)
def card_values_two(T, tt, work, out):
    """For each legal card of the player to act in ``T`` (a full state, every card
    known; play phase): ``out[card]`` := the card points **the player to act** wins in
    the whole deal (points already won included) when he plays it and both play
    perfectly after; -1 for the other cards. Returns the number of legal cards. Call
    :func:`new_generation` first when ``T`` is not the previous call's world."""
    for c in range(32):
        out[c] = -1
    av0, av1, dn0, dn1, rem, leader, lead = _setup(work, T)
    _deal_check(work, tt)
    strain = work[W_STRAIN]
    me, won, legal, present = _to_act(work, T, av0, av1, dn0, dn1, leader, lead)
    nl = popcount(legal)
    vals = np.full(32, -1, dtype=np.int64)
    guess = (rem + 1) // 2
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        r = _equiv_rep(work, c, legal, present)
        if vals[r] < 0:
            v0 = _exact(work, tt, av0, av1, dn0, dn1, leader, rem, lead, c, guess,
                        np.int64(0), rem)
            vals[c] = v0
            guess = v0
        else:
            vals[c] = vals[r]
        out[INV[strain, c]] = won + (vals[c] if me == 0 else rem - vals[c])
    return nl


@njit(cache=True)
def solve_two_state(T, tt, work):
    """Card points player 0 wins in the whole deal of the full state ``T`` (play phase,
    at a trick's start or after its first card), both playing perfectly. Call
    :func:`new_generation` first when ``T`` is not the previous call's world."""
    av0, av1, dn0, dn1, rem, leader, lead = _setup(work, T)
    _deal_check(work, tt)
    if lead < 0:
        lo, hi = np.int64(0), rem
        v = _exact(work, tt, av0, av1, dn0, dn1, leader, rem, np.int64(-1), np.int64(-1),
                   (lo + hi + 1) // 2, lo, hi)
        return card_points_won(T, 0) + v
    out = np.empty(32, dtype=np.int64)
    card_values_two(T, tt, work, out)
    me = other(leader)
    best = np.int64(-1)
    for c in range(32):
        if out[c] >= 0 and out[c] > best:
            best = out[c]
    # ``out`` is the follower's points in the whole deal
    if me == 0:
        return best
    return card_points_won(T, 0) + card_points_won(T, 1) + rem - best


@njit(cache=True, _nrt=False)
def _test_me(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, me, won, beta):
    """A null-window test of ``card``'s value for the player to act ``me`` (his points
    in the whole deal, ``won`` already won): the fail-soft result ``r``, with the value
    ``>= r`` when ``r >= beta``, else ``<= r``."""
    if me == 0:
        b0 = beta - won
        return won + _root_value(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card,
                                 b0 - 1, b0)
    b0 = won + rem - beta + 1           # his value >= beta: player 0's < b0
    return won + rem - _root_value(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card,
                                   b0 - 1, b0)


@njit(cache=True, _nrt=False)
def _exact_me(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, me, won, guess, lower,
              upper):
    """:func:`_exact` for the player to act ``me``: ``card``'s value in his points in the
    whole deal, known to lie in ``[lower, upper]``."""
    if me == 0:
        return won + _exact(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card, guess - won,
                            lower - won, upper - won)
    top = won + rem
    return top - _exact(W, tt, av0, av1, dn0, dn1, leader, rem, lead, card,
                        top - guess + 1, top - upper, top - lower)


@njit(cache=True)
def best_card_two(Ts, n_worlds, tt, work, lo, hi):
    """PIMC's choice over the worlds ``Ts[:n_worlds]`` (full states of one decision of
    the play, the same cards legal in each): the legal card (engine id) with the highest
    sum over the worlds of the card points the player to act wins in the whole deal,
    the lowest card among equal sums -- the card :func:`card_values_two`'s exact sums
    choose, found with less search. Each world is searched as a root with every legal
    card (one of each run of equivalent cards): the best card so far exactly, each other
    by one null-window test against its value (a card that fails high is solved and
    becomes the best); then, while a card's upper sum still reaches the leader's lower
    sum, the widest open interval of the cards in contention is solved exactly, in its
    world (each world keeps its own generation of the table). ``lo``, ``hi``:
    int64[n_worlds, 32], the bounds found (engine ids; -1 for the cards not legal or
    not searched). The table gets ``n_worlds`` new generations; ``work[W_NODES]`` ends
    with the positions searched in all."""
    if work[W_GEN] + n_worlds + 1 > _GEN_MAX:
        for k in range(tt.shape[0]):
            tt[k] = 0
        work[W_GEN] = 0
    gen0 = work[W_GEN] + 1
    work[W_GEN] += n_worlds
    av0, av1, dn0, dn1, rem, leader, lead = _setup(work, Ts[0])
    _deal_check(work, tt)
    strain = work[W_STRAIN]
    me, won, legal, present = _to_act(work, Ts[0], av0, av1, dn0, dn1, leader, lead)
    # the cards searched (solver ids), for each the lowest engine id it stands for, and
    # the slot of each legal card: its representative's (a lower card, met first)
    reps = np.empty(16, dtype=np.int64)
    key = np.empty(16, dtype=np.int64)
    slot = np.empty(32, dtype=np.int64)
    nk = 0
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        r = _equiv_rep(work, c, legal, present)
        if r == c:
            reps[nk] = c
            key[nk] = INV[strain, c]
            slot[c] = nk
            nk += 1
        else:
            slot[c] = slot[r]
            key[slot[r]] = min(key[slot[r]], INV[strain, c])
    L = np.empty((n_worlds, 16), dtype=np.int64)
    H = np.empty((n_worlds, 16), dtype=np.int64)
    slo = np.zeros(16, dtype=np.int64)
    last = np.full(16, -1, dtype=np.int64)
    nodes = np.int64(0)
    top = won + rem
    order = np.empty(16, dtype=np.int64)
    for w in range(n_worlds):
        work[W_GEN] = gen0 + w
        av0, av1, dn0, dn1, rem, leader, lead = _setup(work, Ts[w])
        # the best cards of the earlier worlds first
        for k in range(nk):
            order[k] = k
        for i in range(1, nk):
            j = i
            while j > 0 and slo[order[j - 1]] < slo[order[j]]:
                t = order[j - 1]
                order[j - 1] = order[j]
                order[j] = t
                j -= 1
        vbest = np.int64(-1)
        for i in range(nk):
            k = order[i]
            c = reps[k]
            if vbest < 0:
                g = last[k] if last[k] >= 0 else won + (rem + 1) // 2
                v = _exact_me(work, tt, av0, av1, dn0, dn1, leader, rem, lead, c, me, won,
                              g, won, top)
                L[w, k] = v
                H[w, k] = v
                vbest = v
            else:
                r = _test_me(work, tt, av0, av1, dn0, dn1, leader, rem, lead, c, me, won,
                             vbest)
                if r >= vbest:
                    v = _exact_me(work, tt, av0, av1, dn0, dn1, leader, rem, lead, c, me,
                                  won, r + 1, r, top)
                    L[w, k] = v
                    H[w, k] = v
                    vbest = v
                else:
                    L[w, k] = won
                    H[w, k] = r
            nodes += work[W_NODES]
        for k in range(nk):
            slo[k] += L[w, k]
            if L[w, k] == H[w, k]:
                last[k] = L[w, k]
    # settle the sums
    shi = np.zeros(16, dtype=np.int64)
    while True:
        for k in range(nk):
            slo[k] = 0
            shi[k] = 0
            for w in range(n_worlds):
                slo[k] += L[w, k]
                shi[k] += H[w, k]
        b = 0
        for k in range(1, nk):
            if slo[k] > slo[b] or (slo[k] == slo[b] and key[k] < key[b]):
                b = k
        bw = np.int64(-1)
        bk = np.int64(-1)
        width = np.int64(-1)
        for k in range(nk):
            if k != b and (shi[k] > slo[b] or (shi[k] == slo[b] and key[k] < key[b])):
                for kk in (k, b):
                    for w in range(n_worlds):
                        if H[w, kk] - L[w, kk] > width:
                            width = H[w, kk] - L[w, kk]
                            bw = w
                            bk = kk
        if bk < 0:
            break
        work[W_GEN] = gen0 + bw
        av0, av1, dn0, dn1, rem, leader, lead = _setup(work, Ts[bw])
        v = _exact_me(work, tt, av0, av1, dn0, dn1, leader, rem, lead, reps[bk], me, won,
                      H[bw, bk], L[bw, bk], H[bw, bk])
        nodes += work[W_NODES]
        L[bw, bk] = v
        H[bw, bk] = v
    for w in range(n_worlds):
        for c in range(32):
            lo[w, c] = -1
            hi[w, c] = -1
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            lo[w, INV[strain, c]] = L[w, slot[c]]
            hi[w, INV[strain, c]] = H[w, slot[c]]
    work[W_GEN] = gen0 + n_worlds - 1
    work[W_NODES] = nodes
    return key[b]


class TwoPlayerSolver:
    """A reusable double-dummy solver (its transposition table is kept between calls,
    a new generation each call).

    >>> from coinche_rl.two_player import TwoPlayerDeal
    >>> deal = TwoPlayerDeal("belote_decouverte", seed=2, dealer=0)
    >>> deal.apply("take")
    >>> solver = TwoPlayerSolver()
    >>> p0 = solver.solve(deal.state)
    >>> 0 <= p0 <= 162
    True
    """

    def __init__(self, tt_bits: int = TT_BITS, *, options: int = OPT_DEFAULT):
        if not 0 <= int(options) <= OPT_MAX:
            raise ValueError(f"options={options} must be in 0..{OPT_MAX} (OPT_* bits)")
        self.tt, self.work = new_tables(tt_bits)
        self.work[W_OPT] = int(options)

    @property
    def nodes(self) -> int:
        """Positions searched by the last call."""
        return int(self.work[W_NODES])

    @staticmethod
    def _state(state: np.ndarray) -> np.ndarray:
        T = writable_state(state)
        if py.phase_of(T) != PLAY:
            raise ValueError("the solver needs a deal in its play phase")
        return T

    def solve(self, state: np.ndarray) -> int:
        """Card points player 0 wins in the whole deal of the full state (play phase)."""
        T = self._state(state)
        new_generation(self.tt, self.work)
        return int(solve_two_state(T, self.tt, self.work))

    def card_values(self, state: np.ndarray) -> np.ndarray:
        """int64[32]: for each legal card of the player to act, the card points he wins
        in the whole deal when he plays it (-1 for other cards)."""
        T = self._state(state)
        new_generation(self.tt, self.work)
        out = np.empty(32, dtype=np.int64)
        card_values_two(T, self.tt, self.work, out)
        return out


    #: the objectives of :meth:`move_values`: the card points (the four-player
    #: :class:`~coinche_rl.solver.Solver` also solves the deal score)
    OBJECTIVES = ("points",)

    def move_values(self, position, objective: str = "points") -> Tuple[np.ndarray, np.ndarray]:
        """``(actions, values)`` as the four-player :meth:`Solver.move_values
        <coinche_rl.solver.Solver.move_values>`: every legal card action of the player to
        act (increasing ids) and the card points he wins in the whole deal when he plays
        it. ``position``: a :class:`~coinche_rl.two_player.TwoPlayerDeal` in its play, or
        its state vector.

        >>> from coinche_rl.two_player import TwoPlayerDeal
        >>> deal = TwoPlayerDeal("belote_decouverte", seed=2, dealer=0)
        >>> deal.apply("take")
        >>> actions, values = TwoPlayerSolver().move_values(deal)
        >>> list(actions) == deal.legal_actions() and bool(((0 <= values) & (values <= 162)).all())
        True

        :raises ValueError: another objective, or a deal outside its play.
        """
        if objective not in self.OBJECTIVES:
            raise ValueError(f"objective={objective!r}: belote for two players is solved in "
                             f"card points only ('points')")
        values = self.card_values(getattr(position, "state", position))
        cards = np.flatnonzero(values >= 0)
        return (cards + CARD_BASE).astype(np.int64), values[cards]


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
    lo = np.empty((1, 32), dtype=np.int64)       # PIMC's choice over its worlds (one here)
    best_card_two(d.state[None, :].copy(), 1, *new_tables(10), lo, lo.copy())
