"""Declarations and belote (RULES.md §5): the best combination of one hand
(:func:`hand_declarations`), the best single declaration of one player's cards (belote
for two players: :func:`best_single_declaration`), whether a seat has something to declare
(:func:`has_declaration`), which team scores them (:func:`resolve_declarations`), and
the belotes a hand holds (:func:`belote_pairs`).
"""

from __future__ import annotations

from numba import njit

from ..cards import BELOTE_PAIRS
from ..rules import (AT, CARRE_KEYS, CARRE_PTS, NT, N_SEATS, N_TEAMS, P_CARRE_LOW_CANCELS,
                     P_DECLARATIONS, RUN_POINTS, SEQ_KEY, SEQ_KEY_BASE, SEQ_KEY_SHARE,
                     SEQ_POINTS, SEQ_POINTS_SHARE, SEQ_USED, SEQ_USED_SHARE, team)
from .bits import kernel, lowest_card
from .layout import (DECL_NOBODY, S_DECLARED, S_DECL_KEY, S_DECL_LOW, S_DECL_PTS,
                     S_DECL_WINNER, S_TEAM_DECL)


@njit(cache=True, _nrt=False, inline="always")
def _combination(hand, strain, cr0, cr1, sub, share):
    """``(points, key, cards)`` of the carrés ``sub`` of ``hand`` (bit ``k``: the carré
    of rank ``cr0``, ``cr1``) with the runs of the rest of the hand, or of all of it when
    ``share`` (a card may then serve in a carré and in a run)."""
    pts = 0
    key = 0
    removed = 0
    for k in range(2):
        if (sub >> k) & 1:
            r = cr0 if k == 0 else cr1
            pts += CARRE_PTS[strain, r]
            if CARRE_KEYS[strain, r] > key:
                key = CARRE_KEYS[strain, r]
            removed |= 0x01010101 << r
    rest = hand if share else hand & ~removed
    used = removed
    for s in range(4):
        m = (rest >> (8 * s)) & 0xFF
        pts += SEQ_POINTS_SHARE[m] if share else SEQ_POINTS[m]
        k2 = SEQ_KEY_SHARE[m] if share else SEQ_KEY[m]
        if k2 > 0 and s == strain:
            k2 += 1
        if k2 > key:
            key = k2
        used |= (SEQ_USED_SHARE[m] if share else SEQ_USED[m]) << (8 * s)
    return pts, key, used


@kernel
def hand_declarations(hand, strain, share):
    """Best combination of declarations of one hand (RULES.md §5).

    Returns ``(points, key, cards, low_carre)``: the points of the best combination of
    non-overlapping declarations (every declaration when ``share``), the sort key of
    its strongest declaration (0 if none), the cards it uses, and whether the hand holds
    a carré of 7s or 8s.
    """
    low = 0
    nc = 0
    cr0 = -1
    cr1 = -1
    carres = hand & (hand >> 8) & (hand >> 16) & (hand >> 24) & 0xFF   # ranks held 4 times
    while carres:
        r = lowest_card(carres)
        carres &= carres - 1
        if CARRE_PTS[strain, r] == 0:
            low = 1
        elif cr0 < 0:
            cr0 = r
            nc = 1
        else:
            cr1 = r
            nc = 2
    if share:
        pts, key, used = _combination(hand, strain, cr0, cr1, (1 << nc) - 1, share)
        return pts, key, used, low
    best_pts = 0
    best_key = 0
    best_used = 0
    for sub in range(1 << nc):
        pts, key, used = _combination(hand, strain, cr0, cr1, sub, share)
        if pts > best_pts or (pts == best_pts and key > best_key):
            best_pts = pts
            best_key = key
            best_used = used
    return best_pts, best_key, best_used, low


@kernel
def best_single_declaration(h, strain):
    """``(points, key, cards)`` of the strongest single declaration among the cards ``h``
    (RULES.md §5 ranking: carrés by points then rank, then runs by length, top card and
    trump), ``(0, 0, 0)`` when there is none. A run counts whole (an 8-card run is one
    cent); carrés of 7s and 8s are no declaration. Belote for two players declares only
    this one (docs/two_player.md)."""
    best_pts = 0
    best_key = 0
    best_cards = 0
    carres = h & (h >> 8) & (h >> 16) & (h >> 24) & 0xFF
    while carres:
        r = lowest_card(carres)
        carres &= carres - 1
        if CARRE_PTS[strain, r] > 0 and CARRE_KEYS[strain, r] > best_key:
            best_pts = CARRE_PTS[strain, r]
            best_key = CARRE_KEYS[strain, r]
            best_cards = 0x01010101 << r
    for s in range(4):
        k = SEQ_KEY_SHARE[(h >> (8 * s)) & 0xFF]       # the longest run, then the highest
        if k == 0:
            continue
        if s == strain:
            k += 1
        if k > best_key:
            length = (k - SEQ_KEY_BASE) >> 5
            top = ((k - SEQ_KEY_BASE) & 31) >> 1
            best_key = k
            best_pts = RUN_POINTS[length]
            best_cards = (((1 << length) - 1) << (top - length + 1)) << (8 * s)
    return best_pts, best_key, best_cards


@kernel
def resolve_declarations(S, P):
    """Decide which team scores its declarations (RULES.md §5); fills S_DECL_WINNER and
    S_TEAM_DECL."""
    S[S_TEAM_DECL] = 0
    S[S_TEAM_DECL + 1] = 0
    if P[P_DECLARATIONS] == 0:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    declared = S[S_DECLARED]
    if P[P_CARRE_LOW_CANCELS] and (declared & S[S_DECL_LOW]) != 0:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    k0 = 0
    k1 = 0
    for seat in range(N_SEATS):
        if (declared >> seat) & 1:
            k = S[S_DECL_KEY + seat]
            if team(seat) == 1:
                if k > k1:
                    k1 = k
            elif k > k0:
                k0 = k
    if k0 == k1:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    t = 0 if k0 > k1 else 1
    S[S_DECL_WINNER] = t
    tot = 0
    for seat in range(t, N_SEATS, N_TEAMS):      # the seats of team t
        if (declared >> seat) & 1:
            tot += S[S_DECL_PTS + seat]
    S[S_TEAM_DECL + t] = tot


@njit(cache=True, _nrt=False, inline="always")
def belote_pairs(h, strain):
    """``(mask, count)`` of the belotes held in ``h`` under ``strain``: the K + Q pairs
    (:data:`~coinche_rl.cards.BELOTE_PAIRS`) of the trump suit, of every suit at AT,
    of none at NT."""
    pairs = 0
    n = 0
    if strain == NT:
        return pairs, n
    for s in range(4):
        if strain == AT or strain == s:
            kq = BELOTE_PAIRS[s]
            if h & kq == kq:
                pairs |= kq
                n += 1
    return pairs, n


@kernel
def has_declaration(S, P, seat):
    """True when ``seat`` has something to declare (RULES.md §5): a combination worth
    points, or a carré of 7s or 8s where that cancels the declarations
    (``carre_low_cancels``). The seat is then offered the declare choice
    (``optional_declare``), or declares at its first card."""
    return S[S_DECL_PTS + seat] > 0 or (P[P_CARRE_LOW_CANCELS] != 0
                                        and (S[S_DECL_LOW] >> seat) & 1 != 0)
