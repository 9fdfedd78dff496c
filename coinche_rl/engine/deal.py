"""Dealing: the one seed -> deal map of the kernels (:func:`deal_into`), the coinche
family's deal in packets (:func:`hands_from_deck_into`), the classic family's deal
around the retourne (:func:`reset_classic`, :func:`_classic_distribute`), and the
state's reset before the auction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import rules as R
from ..cards import N_CARDS
from ..rules import (CLASSIC_PACKETS, CLASSIC_REST, CLASSIC_RETOURNE_AT,
                     CLASSIC_TAKER_REST, N_SEATS, P_FAMILY, seat_after)
from .bits import kernel, rng_below, shuffle
from .layout import (STATE_BLANK, STATE_SIZE, S_BID_SEAT, S_CUR, S_DEALER, S_DECK, S_HAND,
                     S_INIT_HAND, S_PRISE_ROUND, S_RETOURNE)


@kernel
def random_deck(rng, deck):
    """The 32 cards in a random dealing order (``deck``, int64[32]): the identity order
    shuffled by Fisher-Yates from the stream ``rng``. The one seed -> deck map of the
    package: the kernels, the arena's deal sets, ``game.Deal(seed=...)`` and the
    two-player family all deal from it."""
    for i in range(N_CARDS):
        deck[i] = i
    shuffle(rng, deck, N_CARDS)


@kernel
def random_deal(rng, hands, deck):
    """Four random hands (``hands``, int64[4]) where no dealer matters: a
    :func:`random_deck` (``deck``, int64[32]) dealt in packets from seat 0."""
    random_deck(rng, deck)
    hands_from_deck_into(deck, np.int64(N_SEATS - 1), hands)


@kernel
def hands_from_deck_into(deck, dealer, hands):
    """Deal the 32 cards of ``deck`` as a coinche-family dealer does: in packets of
    ``rules.DEAL_PACKETS`` (3-2-3) from the seat after ``dealer``, into ``hands``
    (int64[4]). The one copy of that deal (``game.hands_from_deck``, the arena's deal
    sets)."""
    for s in range(N_SEATS):
        hands[s] = 0
    i = 0
    for packet in R.DEAL_PACKETS:
        for j in range(N_SEATS):
            seat = seat_after(dealer, 1 + j)
            for _ in range(packet):
                hands[seat] |= np.int64(1) << deck[i]
                i += 1


@njit(cache=True, _nrt=False, inline="always")
def deal_into(S, P, rng, dealer, hands, deck):
    """A fresh random deal into ``S`` from the stream ``rng``, as
    ``game.Deal(rules, deck=deck, dealer=d)`` deals it: a :func:`random_deck`, the
    dealer ``d`` (``dealer``, or a seat drawn after the cards when -1), then
    :func:`reset_classic` (classic family) or the deck dealt in packets
    (:func:`hands_from_deck_into`) and :func:`reset_state`. ``deck`` (int64[32]) and
    ``hands`` (int64[4]) are scratch and result: the dealing order and the hands dealt
    (classic family: the five cards before the prise)."""
    random_deck(rng, deck)
    d = dealer if dealer >= 0 else rng_below(rng, np.int64(N_SEATS))
    if P[P_FAMILY] != 0:
        reset_classic(S, deck, d)
        for s in range(N_SEATS):
            hands[s] = S[S_HAND + s]
    else:
        hands_from_deck_into(deck, d, hands)
        reset_state(S, hands, d)


@kernel
def reset_state(S, hands, dealer):
    """Start a coinche-family deal: ``hands`` (int64[4]) dealt by ``dealer``; the auction
    begins."""
    _clear_state(S, dealer)
    for s in range(N_SEATS):
        S[S_HAND + s] = hands[s]
        S[S_INIT_HAND + s] = hands[s]


@kernel
def _clear_state(S, dealer):
    """Every slot to its value before the deal (:data:`.layout.STATE_BLANK`), hands
    empty."""
    for k in range(STATE_SIZE):
        S[k] = STATE_BLANK[k]
    S[S_DEALER] = dealer
    S[S_CUR] = seat_after(dealer, np.int64(1))


@kernel
def reset_classic(S, deck, dealer):
    """Start a classic-family deal (RULES.md §11) from ``deck`` (int64[32], the cards in
    dealing order): 3 then 2 cards to each seat from the one after ``dealer``, the next
    card turned up (the retourne); the other 11 wait for the end of the prise."""
    _clear_state(S, dealer)
    i = 0
    for packet in CLASSIC_PACKETS:
        for k in range(N_SEATS):
            seat = seat_after(dealer, 1 + k)
            for _ in range(packet):
                S[S_HAND + seat] |= 1 << deck[i]
                i += 1
    for s in range(N_SEATS):
        S[S_INIT_HAND + s] = S[S_HAND + s]
    S[S_RETOURNE] = deck[CLASSIC_RETOURNE_AT]
    S[S_PRISE_ROUND] = 1
    for k in range(N_CARDS):
        S[S_DECK + k] = deck[k]


@kernel
def _classic_distribute(S):
    """End of the prise: the taker receives the retourne and 2 cards, every other seat
    3, from the seat after the dealer on (the remaining 11 cards in dealing order)."""
    taker = S[S_BID_SEAT]
    S[S_HAND + taker] |= 1 << S[S_RETOURNE]
    i = CLASSIC_RETOURNE_AT + 1
    for k in range(N_SEATS):
        seat = seat_after(S[S_DEALER], 1 + k)
        n = CLASSIC_TAKER_REST if seat == taker else CLASSIC_REST
        for _ in range(n):
            S[S_HAND + seat] |= 1 << S[S_DECK + i]
            i += 1
    for s in range(N_SEATS):
        S[S_INIT_HAND + s] = S[S_HAND + s]
