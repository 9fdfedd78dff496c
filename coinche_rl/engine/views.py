"""What a seat may know. The state holds everything; :func:`public_view_into` hides what
``seat`` cannot see and :func:`determinize_into` puts it back from the hidden hands (and,
in the classic family, the deck) and the other seats' private declare / belote choices:
for the true hidden values, ``determinize_into(public_view_into(S, seat)) == S``
(``tests/test_engine_state.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import BELOTE_PAIRS, N_CARDS
from ..rules import (AT, BELOTE_POINTS, NT, N_SEATS, N_TRICKS, P_DECLARATIONS, P_DECL_SHARE,
                     P_OPTIONAL_BELOTE, P_OPTIONAL_DECLARE, partner, seat_after, team)
from .bits import kernel
from .declarations import belote_pairs, hand_declarations, has_declaration
from .layout import (AUCTION, DECL_UNRESOLVED, DONE, NO_CARD, STATE_SIZE, S_BELOTE_CARDS,
                     S_BELOTE_DECIDED, S_BELOTE_ON, S_BELOTE_SEATS, S_BID_STRAIN, S_DECK,
                     S_DECLARED, S_DECL_CARDS, S_DECL_DECIDED, S_DECL_KEY, S_DECL_LOW,
                     S_DECL_PTS, S_DECL_WINNER, S_HAND, S_INIT_HAND, S_PHASE, S_PLAYS,
                     S_TEAM_BELOTE, S_TEAM_DECL, S_TRICK_LEADERS, S_TRICK_N, S_TRICK_NO,
                     S_VOID)


#: ``deck`` for :func:`determinize_into` that keeps the public view's dealing order
NO_DECK = np.full(N_CARDS, NO_CARD, dtype=np.int64)


@njit(cache=True, _nrt=False, inline="always")
def _nth_play(S, k):
    """``(seat, card)`` of the ``k``-th card played in the deal (0 the first trick's
    lead); the card is negative when it has not been played yet."""
    leader = S[S_TRICK_LEADERS + k // N_SEATS]
    if leader < 0:
        return leader, np.int64(NO_CARD)
    return seat_after(leader, k % N_SEATS), S[S_PLAYS + k]


@kernel
def played_by(S, seat):
    """Mask of the cards ``seat`` has played so far."""
    m = 0
    for k in range(N_TRICKS * N_SEATS):
        player, c = _nth_play(S, k)
        if c < 0:
            break
        if player == seat:
            m |= np.int64(1) << c
    return m


@kernel
def played_first_trick(S, p):
    """True when seat ``p`` has played its card of the first trick (so has made its
    declare / belote choices)."""
    if S[S_TRICK_NO] > 0:
        return True
    return seat_after(p, -S[S_TRICK_LEADERS]) < S[S_TRICK_N]


@kernel
def announced_belotes(S, strain):
    """Bit per seat of the belotes announced so far (as the first of K / Q of a trump
    suit was played), and the mask of their K and Q."""
    seats = 0
    cards = 0
    if strain == NT:
        return seats, cards
    bel = S[S_BELOTE_CARDS]
    seen = 0                                  # suits whose first K / Q was played
    for k in range(N_TRICKS * N_SEATS):
        player, c = _nth_play(S, k)
        if c < 0:
            break
        suit = c >> 3
        r = c & 7
        if (r == 5 or r == 6) and (strain == AT or strain == suit) and not (seen >> suit) & 1:
            seen |= 1 << suit
            kq = BELOTE_PAIRS[suit]
            if bel & kq == kq:
                seats |= 1 << player
                cards |= kq
    return seats, cards


@kernel
def shown_declarers(S):
    """Bit per seat whose declarations are public: the declared seats of the team that
    scores them, once resolved (0 before, or when nobody scores)."""
    w = S[S_DECL_WINNER]
    if w >= 0:
        return S[S_DECLARED] & ((1 << w) | (1 << partner(w)))   # team w's seats
    return 0


@kernel
def public_view_into(S, P, seat, out):
    """Copy ``S`` into ``out`` with what ``seat`` cannot know zeroed: other seats' hands
    (now and as dealt), the classic deck, other seats' declarations until resolved (then
    the scoring team's declared seats stay), other seats' declare / belote choices and
    belote holdings until announced, and the team belote points not yet announced.
    Everything else is public. The inverse: :func:`determinize_into`."""
    for k in range(STATE_SIZE):
        out[k] = S[k]
    bit = 1 << seat
    for p in range(N_SEATS):
        if p != seat:
            out[S_HAND + p] = 0
            out[S_INIT_HAND + p] = 0
    if S[S_DECK] >= 0:
        for k in range(N_CARDS):
            out[S_DECK + k] = 0
    # declarations: public once resolved, for the scoring team's declared seats
    w = S[S_DECL_WINNER]
    keep = bit | shown_declarers(S)
    for p in range(N_SEATS):
        if not (keep >> p) & 1:
            out[S_DECL_PTS + p] = 0
            out[S_DECL_KEY + p] = 0
            out[S_DECL_CARDS + p] = 0
    out[S_DECL_LOW] = S[S_DECL_LOW] & bit
    out[S_DECLARED] = S[S_DECLARED] & keep
    out[S_DECL_DECIDED] = S[S_DECL_DECIDED] & bit
    if w == DECL_UNRESOLVED:
        out[S_TEAM_DECL] = 0
        out[S_TEAM_DECL + 1] = 0
    # belote: the seat's own, and those announced by a card played
    strain = S[S_BID_STRAIN]
    ann_seats = 0
    ann_cards = 0
    if S[S_PHASE] != AUCTION and S[S_VOID] == 0:
        ann_seats, ann_cards = announced_belotes(S, strain)
    own_cards = 0
    if (S[S_BELOTE_SEATS] >> seat) & 1:
        own_cards = S[S_BELOTE_CARDS] & S[S_INIT_HAND + seat]
    out[S_BELOTE_CARDS] = (S[S_BELOTE_CARDS] & ann_cards) | own_cards
    seats = ann_seats | bit
    out[S_BELOTE_SEATS] = S[S_BELOTE_SEATS] & seats
    out[S_BELOTE_DECIDED] = S[S_BELOTE_DECIDED] & seats
    out[S_BELOTE_ON] = S[S_BELOTE_ON] & seats
    if S[S_PHASE] != DONE:
        b0 = 0
        b1 = 0
        for p in range(N_SEATS):
            if ((ann_seats >> p) & 1) or (p == seat and (S[S_BELOTE_ON] >> p) & 1):
                if team(p) == 1:
                    b1 += BELOTE_POINTS
                else:
                    b0 += BELOTE_POINTS
        out[S_TEAM_BELOTE] = b0
        out[S_TEAM_BELOTE + 1] = b1


def public_view(S: np.ndarray, P: np.ndarray, seat: int) -> np.ndarray:
    """A new array: :func:`public_view_into` of ``S`` for ``seat``."""
    out = np.empty(STATE_SIZE, dtype=np.int64)
    public_view_into(S, P, int(seat), out)
    return out


@kernel
def determinize_into(pub, P, seat, hands, deck, decl_decided, declared, belote_decided,
                     belote_on, out):
    """The full state from ``seat``'s public view ``pub`` (:func:`public_view_into`) and
    what it hides, written into ``out``, exactly as the engine holds it:

    * ``hands`` (int64[4]): every seat's cards now (the seat's own is taken from
      ``pub``); the hands as dealt are these plus the cards each seat played;
    * ``deck`` (int64[32]): the classic family's dealing order, or :data:`NO_DECK`
      (``deck[0] < 0``) to keep the view's;
    * the other seats' private choices, bit per seat: ``decl_decided`` / ``declared``
      (``optional_declare``: has made the declare choice / chose to declare) and
      ``belote_decided`` / ``belote_on`` (``optional_belote``: has made the belote choice /
      announces). Where the rules make these automatic the engine's own rules set them
      (declaring at the first card; every belote announced) and the arguments are not
      read; what the view shows (the scoring team's declarations, the belotes announced
      by a card played) is kept.

    Declarations and belotes are computed from the hands as dealt as ``_start_play``
    does, once the card play has started."""
    for k in range(STATE_SIZE):
        out[k] = pub[k]
    for p in range(N_SEATS):
        if p != seat:
            out[S_HAND + p] = hands[p]
            out[S_INIT_HAND + p] = hands[p] | played_by(pub, p)
    if deck[0] >= 0:
        for k in range(N_CARDS):
            out[S_DECK + k] = deck[k]
    phase = pub[S_PHASE]
    if phase == AUCTION or pub[S_VOID] != 0:
        return
    strain = pub[S_BID_STRAIN]
    # declarations (_start_play, apply_legal_action's automatic declaring)
    if P[P_DECLARATIONS] != 0:
        shown = shown_declarers(pub)
        optional = P[P_OPTIONAL_DECLARE] != 0
        for p in range(N_SEATS):
            if p == seat:
                continue
            bit = np.int64(1) << p
            pts, key, used, low = hand_declarations(out[S_INIT_HAND + p], strain, P[P_DECL_SHARE])
            if low:
                out[S_DECL_LOW] |= bit
            if (shown & bit) == 0:
                out[S_DECL_PTS + p] = pts
                out[S_DECL_KEY + p] = key
                out[S_DECL_CARDS + p] = used
            if optional:
                out[S_DECL_DECIDED] |= decl_decided & bit
                out[S_DECLARED] |= declared & bit
            elif (shown & bit) != 0 or has_declaration(out, P, p):   # out holds them now
                if played_first_trick(pub, p):
                    out[S_DECLARED] |= bit
    # belote (_start_play; the BELOTE action under optional_belote)
    seats = 0
    on = 0
    decided = 0
    cards = 0
    tb0 = 0
    tb1 = 0
    optional_b = P[P_OPTIONAL_BELOTE] != 0
    for p in range(N_SEATS):
        pairs, npairs = belote_pairs(out[S_INIT_HAND + p], strain)
        if npairs == 0:
            continue
        bit = np.int64(1) << p
        seats |= bit
        if p == seat:
            is_on = (pub[S_BELOTE_ON] & bit) != 0
            dec = (pub[S_BELOTE_DECIDED] & bit) != 0
        elif not optional_b:
            is_on = True
            dec = False
        else:
            is_on = ((belote_on | pub[S_BELOTE_ON]) & bit) != 0
            dec = ((belote_decided | pub[S_BELOTE_DECIDED]) & bit) != 0
        if dec:
            decided |= bit
        if is_on:
            on |= bit
            cards |= pairs
            if team(p) == 1:
                tb1 += BELOTE_POINTS * npairs
            else:
                tb0 += BELOTE_POINTS * npairs
    out[S_BELOTE_SEATS] = seats
    out[S_BELOTE_ON] = on
    out[S_BELOTE_DECIDED] = decided
    out[S_BELOTE_CARDS] = cards
    if phase != DONE:
        out[S_TEAM_BELOTE] = tb0
        out[S_TEAM_BELOTE + 1] = tb1


def private_choices(S: np.ndarray):
    """The declare / belote choices made in ``S``, bit per seat: ``(decl_decided,
    declared, belote_decided, belote_on)`` (has made the declare choice, has declared,
    has made the belote choice, announces a belote; automatic ones included)."""
    return (int(S[S_DECL_DECIDED]), int(S[S_DECLARED]), int(S[S_BELOTE_DECIDED]),
            int(S[S_BELOTE_ON]))


def private_info(S: np.ndarray):
    """What the public views of ``S`` hide, as :func:`determinize` takes it:
    ``(hands, deck, choices)`` with the :func:`private_choices` (bit per seat)."""
    S = np.asarray(S, dtype=np.int64)
    hands = S[S_HAND:S_HAND + 4].copy()
    deck = S[S_DECK:S_DECK + 32].copy()
    return hands, deck, private_choices(S)


def determinize(public: np.ndarray, params: np.ndarray, seat: int, hands, deck=None,
                choices=(0, 0, 0, 0)) -> np.ndarray:
    """A new array: :func:`determinize_into` of the public view ``public`` of ``seat``,
    the four ``hands`` (masks), the classic ``deck`` (None: the view's) and the private
    ``choices`` ``(decl_decided, declared, belote_decided, belote_on)``."""
    h = np.asarray([int(x) for x in hands], dtype=np.int64)
    d = NO_DECK if deck is None else np.asarray(deck, dtype=np.int64)
    out = np.empty(STATE_SIZE, dtype=np.int64)
    c = [int(x) for x in choices]
    determinize_into(np.asarray(public, dtype=np.int64), np.asarray(params, dtype=np.int64),
                     int(seat), h, d, c[0], c[1], c[2], c[3], out)
    return out
