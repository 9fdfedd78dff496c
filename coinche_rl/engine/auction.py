"""The auction (coinche family) and the prise (classic family): what is still open
to bid, the legality of a bid, applying an auction action (:func:`apply_auction_action`),
skipping the auction with a given contract (:func:`set_contract`), and the start of the
card play once a contract stands (:func:`_start_play`: declarations, belotes, first
leader).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import (BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, DECLARE, NAME_BASE, N_ACTIONS,
                       PASS, TAKE)
from ..rules import (BELOTE_POINTS, CAPOT_VALUE, MIN_BID_VALUE, N_SEATS, P_BID_LADDER,
                     P_CAPOT_AFTER_COINCHE, P_DECLARATIONS, P_DECL_SHARE, P_FAMILY, P_NT_AT,
                     P_OPTIONAL_BELOTE, TRUMP_POINTS, seat_after, team)
from .bits import kernel, popcount
from .deal import _classic_distribute
from .declarations import belote_pairs, hand_declarations
from .layout import (AUCTION, COINCHED, DONE, MADE_UNSCORED, MAX_AUCTION, NOT_COINCHED, NO_SEAT,
                     PLAY, SURCOINCHED, S_AUCTION, S_BELOTE_CARDS, S_BELOTE_ON,
                     S_BELOTE_SEATS, S_BID_SEAT, S_BID_STRAIN, S_BID_VALUE, S_CAPOT,
                     S_COINCHE, S_COINCHE_SEAT, S_CUR, S_DEALER, S_DECL_CARDS, S_DECL_KEY,
                     S_DECL_LOW, S_DECL_PTS, S_HAND, S_LEADER, S_MADE, S_N_AUCTION,
                     S_PASSES, S_PHASE, S_PRISE_ROUND, S_RETOURNE, S_TEAM_BELOTE,
                     S_TRICK_LEADERS, S_TRICK_N, S_TRICK_NO, S_VOID)


@kernel
def strain_allowed(P, strain):
    return strain < 4 or P[P_NT_AT] != 0


@kernel
def prise_options(S, P):
    """Classic prise: mask of the legal actions besides pass, bit ``a - TAKE`` for action
    ``a`` (round 1: take; round 2: name another suit, or NT / AT when allowed)."""
    if S[S_PRISE_ROUND] == 1:
        return 1
    m = 0
    rs = S[S_RETOURNE] >> 3
    for st in range(6):
        if st != rs and strain_allowed(P, st):
            m |= 2 << st
    return m


@kernel
def open_bid_values(S, P):
    """Mask of the numeric bids still open: bit i = value ``80 + 10 i`` is on the rule
    set's ladder and above the current bid."""
    ladder = P[P_BID_LADDER]
    cur_val = S[S_BID_VALUE]
    if cur_val >= MIN_BID_VALUE:
        ladder &= ~((2 << ((cur_val - MIN_BID_VALUE) // 10)) - 1)
    return ladder


@kernel
def _auction_flags(S, P):
    """``(bids_open, capot_ok, coinche_ok, surcoinche_ok, n_strains)`` for the seat to
    act in the auction."""
    cur = S[S_CUR]
    bid_seat = S[S_BID_SEAT]
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    ns = 6 if P[P_NT_AT] != 0 else 4
    bids_open = coinche == 0 and capot == 0
    capot_ok = capot == 0 and (coinche == 0 or (coinche == 1 and P[P_CAPOT_AFTER_COINCHE] != 0))
    coinche_ok = coinche == 0 and bid_seat >= 0 and team(bid_seat) != team(cur)
    surcoinche_ok = coinche == 1 and team(bid_seat) == team(cur)
    return bids_open, capot_ok, coinche_ok, surcoinche_ok, ns


# why an auction action is refused (:func:`auction_refusal`); 0: it is legal
REFUSE_NONE = 0             # legal
REFUSE_NOT_AUCTION = 1      # the auction (or the prise) is over
REFUSE_NOT_AN_ACTION = 2    # not an action id
REFUSE_PLAY_ACTION = 3      # a card or a declare / belote / exchange choice
REFUSE_PRISE_ONLY = 4       # coinche family: take / name belong to the classic prise
REFUSE_NOT_PRISE = 5        # classic family: a bid, capot, coinche or surcoinche
REFUSE_STRAIN = 6           # a strain (NT, AT) the rule set does not allow
REFUSE_COINCHED = 7         # the contract is coinched: no further bids
REFUSE_CAPOT_BID = 8        # capot has already been bid
REFUSE_OFF_LADDER = 9       # a bid value not on the rule set's ladder
REFUSE_NOT_HIGHER = 10      # a bid not higher than the current one
REFUSE_NO_BID = 11          # coinche with no bid to coinche
REFUSE_ALREADY_COINCHED = 12  # coinche of a coinched contract
REFUSE_OWN_TEAM = 13        # coinche by the bidder's team
REFUSE_NOT_COINCHED = 14    # surcoinche with no coinche
REFUSE_NOT_COINCHED_TEAM = 15  # surcoinche by the coinching team
REFUSE_TAKE_ROUND = 16      # take in the prise's second round
REFUSE_NAME_ROUND = 17      # naming a trump in the prise's first round
REFUSE_RETOURNE_SUIT = 18   # naming the retourne's suit, refused in the first round


# inline="always": engine.is_legal's auction step, compiled inside it (as a call it cost
# is_legal a tenth of its speed)
@njit(cache=True, _nrt=False, inline="always")
def _auction_refusal(S, P, a):
    """:func:`auction_refusal` of an action id ``a`` in the auction phase."""
    if a == PASS:
        return REFUSE_NONE
    if (a >= CARD_BASE and a < TAKE) or a >= DECLARE:
        return REFUSE_PLAY_ACTION
    if P[P_FAMILY] != 0:
        if a < CARD_BASE:
            return REFUSE_NOT_PRISE
        if a == TAKE:
            return REFUSE_NONE if S[S_PRISE_ROUND] == 1 else REFUSE_TAKE_ROUND
        if S[S_PRISE_ROUND] == 1:
            return REFUSE_NAME_ROUND
        st = a - NAME_BASE
        if st == S[S_RETOURNE] >> 3:
            return REFUSE_RETOURNE_SUIT
        return REFUSE_NONE if strain_allowed(P, st) else REFUSE_STRAIN
    if a >= TAKE:
        return REFUSE_PRISE_ONLY
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    if a < CAPOT_BASE:
        if not strain_allowed(P, (a - BID_BASE) % 6):
            return REFUSE_STRAIN
        if coinche != 0:
            return REFUSE_COINCHED
        if capot != 0:
            return REFUSE_CAPOT_BID
        vi = (a - BID_BASE) // 6
        if (P[P_BID_LADDER] >> vi) & 1 == 0:
            return REFUSE_OFF_LADDER
        return REFUSE_NONE if (open_bid_values(S, P) >> vi) & 1 == 1 else REFUSE_NOT_HIGHER
    if a < COINCHE:
        if not strain_allowed(P, a - CAPOT_BASE):
            return REFUSE_STRAIN
        if coinche != 0 and not (coinche == COINCHED and P[P_CAPOT_AFTER_COINCHE] != 0):
            return REFUSE_COINCHED
        return REFUSE_CAPOT_BID if capot != 0 else REFUSE_NONE
    bid_seat = S[S_BID_SEAT]
    same_team = bid_seat >= 0 and team(bid_seat) == team(S[S_CUR])
    if a == COINCHE:
        if bid_seat < 0:
            return REFUSE_NO_BID
        if coinche != 0:
            return REFUSE_ALREADY_COINCHED
        return REFUSE_OWN_TEAM if same_team else REFUSE_NONE
    # surcoinche
    if coinche != COINCHED:
        return REFUSE_NOT_COINCHED
    return REFUSE_NONE if same_team else REFUSE_NOT_COINCHED_TEAM


@kernel
def auction_refusal(S, P, a):
    """Why auction action ``a`` is not legal for the seat to act: ``REFUSE_NONE`` (0) when
    it is, else the ``REFUSE_*`` clause that refuses it (RULES.md §4, §11 for the classic
    prise). **The one copy of the auction's legality clauses**: :func:`engine.is_legal`
    in the auction is ``_auction_refusal(...) == 0`` (the clauses past the phase and the
    action id's range, which is_legal has checked); the masks (:func:`engine.legal_actions_into`,
    :func:`_auction_flags`, :func:`prise_options`) enumerate the same clauses at once and
    the tests hold them equal action by action."""
    if S[S_PHASE] != AUCTION:
        return REFUSE_NOT_AUCTION
    if a < 0 or a >= N_ACTIONS:
        return REFUSE_NOT_AN_ACTION
    return _auction_refusal(S, P, a)


@kernel
def _start_play(S, P):
    """Auction over: compute declarations and belotes, first trick led by the seat after
    the dealer."""
    S[S_PHASE] = PLAY
    leader = seat_after(S[S_DEALER], 1)
    S[S_LEADER] = leader
    S[S_CUR] = leader
    S[S_TRICK_NO] = 0
    S[S_TRICK_N] = 0
    S[S_TRICK_LEADERS] = leader
    strain = S[S_BID_STRAIN]
    if P[P_DECLARATIONS]:
        share = P[P_DECL_SHARE]
        for seat in range(N_SEATS):
            pts, key, used, low = hand_declarations(S[S_HAND + seat], strain, share)
            S[S_DECL_PTS + seat] = pts
            S[S_DECL_KEY + seat] = key
            S[S_DECL_CARDS + seat] = used
            if low:
                S[S_DECL_LOW] |= 1 << seat
    # belote: K and Q of a trump suit in one hand (every suit at AT, none at NT)
    for seat in range(N_SEATS):
        pairs, npairs = belote_pairs(S[S_HAND + seat], strain)
        if npairs:
            S[S_BELOTE_SEATS] |= 1 << seat
            if P[P_OPTIONAL_BELOTE] == 0:
                S[S_BELOTE_ON] |= 1 << seat
                S[S_BELOTE_CARDS] |= pairs
                S[S_TEAM_BELOTE + team(seat)] += BELOTE_POINTS * npairs


@kernel
def _end_auction_void(S):
    S[S_PHASE] = DONE
    S[S_VOID] = 1
    S[S_CUR] = NO_SEAT
    S[S_MADE] = MADE_UNSCORED


@kernel
def _apply_prise(S, P, a):
    """Classic prise (RULES.md §11): take the retourne's suit, name a strain, or pass."""
    cur = S[S_CUR]
    if a == PASS:
        S[S_PASSES] += 1
        if S[S_PASSES] == N_SEATS:
            if S[S_PRISE_ROUND] == 1:
                S[S_PRISE_ROUND] = 2
                S[S_PASSES] = 0
            else:
                _end_auction_void(S)
                return
        S[S_CUR] = seat_after(cur, 1)
        return
    S[S_BID_STRAIN] = (S[S_RETOURNE] >> 3) if a == TAKE else a - NAME_BASE
    S[S_BID_SEAT] = cur
    _classic_distribute(S)
    _start_play(S, P)


_TRUMP_POINTS = np.array(TRUMP_POINTS, dtype=np.int64)


@kernel
def frozen_strain(hand):
    """The strain of a frozen contract taken with ``hand`` (the arena's ``longest``
    mode, and the networks' training deals): the suit with the most cards, then the
    most points as trumps, then the lowest suit."""
    best, strain = -1, 0
    for s in range(4):
        cards = (hand >> (8 * s)) & 0xFF
        key = popcount(cards) * 64
        for r in range(8):
            if cards >> r & 1:
                key += _TRUMP_POINTS[r]
        if key > best:
            best, strain = key, s
    return strain


@kernel
def set_contract(S, P, value, strain, coinche, taker):
    """Skip the auction of a freshly reset state: the contract is ``value`` (250 for a
    capot bid) in ``strain``, coinche level ``coinche`` (0, 1, 2), taken by ``taker``;
    the auction record is left empty. Play starts as after a real auction.

    Classic family: ``value`` and ``coinche`` must be 0; the taker receives the retourne
    and the remaining cards are dealt as after a real prise."""
    if P[P_FAMILY] != 0:
        S[S_BID_STRAIN] = strain
        S[S_BID_SEAT] = taker
        _classic_distribute(S)
        _start_play(S, P)
        return
    S[S_BID_VALUE] = value
    S[S_BID_STRAIN] = strain
    S[S_BID_SEAT] = taker
    S[S_CAPOT] = 1 if value == CAPOT_VALUE else 0
    S[S_COINCHE] = coinche
    S[S_COINCHE_SEAT] = seat_after(taker, 1) if coinche > 0 else NO_SEAT
    _start_play(S, P)


# inline="always": apply_legal_action's auction step, compiled inside it as one function
# (LLVM does not inline a kernel this large; the call alone slowed the random deals)
@njit(cache=True, _nrt=False, inline="always")
def apply_auction_action(S, P, a):
    """Apply auction action ``a``, known to be legal, for the seat to act: a bid, capot,
    coinche, surcoinche or pass (the prise's actions in the classic family); ends the
    auction (:func:`_start_play`, or a void deal) when it is over."""
    cur = S[S_CUR]
    n = S[S_N_AUCTION]
    if n < MAX_AUCTION:
        S[S_AUCTION + n] = a
    S[S_N_AUCTION] = n + 1
    if P[P_FAMILY] != 0:
        _apply_prise(S, P, a)
        return
    if a == PASS:
        S[S_PASSES] += 1
        if S[S_BID_SEAT] < 0:
            if S[S_PASSES] == N_SEATS:
                _end_auction_void(S)
                return
        elif S[S_PASSES] == N_SEATS - 1:
            _start_play(S, P)
            return
    elif a < CAPOT_BASE:
        vi = (a - BID_BASE) // 6
        S[S_BID_VALUE] = MIN_BID_VALUE + 10 * vi
        S[S_BID_STRAIN] = (a - BID_BASE) % 6
        S[S_BID_SEAT] = cur
        S[S_PASSES] = 0
    elif a < COINCHE:
        S[S_BID_VALUE] = CAPOT_VALUE
        S[S_BID_STRAIN] = a - CAPOT_BASE
        S[S_BID_SEAT] = cur
        S[S_CAPOT] = 1
        S[S_COINCHE] = NOT_COINCHED
        S[S_COINCHE_SEAT] = NO_SEAT
        S[S_PASSES] = 0
    elif a == COINCHE:
        S[S_COINCHE] = COINCHED
        S[S_COINCHE_SEAT] = cur
        S[S_PASSES] = 0
    else:  # surcoinche ends the auction at once
        S[S_COINCHE] = SURCOINCHED
        _start_play(S, P)
        return
    S[S_CUR] = seat_after(cur, 1)
