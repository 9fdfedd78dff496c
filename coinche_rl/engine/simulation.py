"""Random play-outs and the batched simulations: a random legal action
(:func:`random_action`), play-outs to the end of the deal (:func:`play_out`, with the
card play in local variables once no choice can come up), and the batched kernels
behind :mod:`coinche_rl.simulate` (:func:`simulate_random_deals`,
:func:`random_playouts`, :func:`random_play_phase`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import (BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, N_ACTIONS, PASS,
                       SURCOINCHE, TAKE)
from ..cards import N_CARDS
from ..rules import (ALL_CARD_POINTS, DIX_DE_DER, N_SEATS, N_TRICKS, P_AT_TABLE,
                     P_DECLARATIONS, P_FAMILY, P_OPTIONAL_BELOTE, P_OPTIONAL_DECLARE,
                     P_PLAY_RULES, partner, seat_after, team)
from .auction import _auction_flags, open_bid_values, prise_options, set_contract
from .bits import kernel, nth_card, popcount, rng_below, rng_next, rng_seed
from .deal import deal_into, random_deal
from .declarations import has_declaration, resolve_declarations
from .layout import (DONE, NO_CARD, NO_SEAT, PLAY, STATE_SIZE, S_BID_SEAT, S_BID_STRAIN,
                     S_BID_VALUE, S_CARD_POINTS, S_COINCHE, S_CUR, S_DECLARED, S_HAND,
                     S_MADE, S_PHASE, S_PLAYED, S_PLAYS, S_SCORE, S_TRICKS, S_TRICK_N,
                     S_TRICK_NO, S_VOID, S_WIN_CARD, S_WIN_SEAT)
from .play import (apply_legal_action, beats, collect_trick, legal_actions_into, legal_cards,
                   legal_play_mask)


@njit(cache=True, inline="always")
def _auction_kth_other(k, values, ns, capot_ok, coinche_ok):
    """The ``k``-th legal auction action other than pass, in increasing id order: the
    open bids (``values`` x ``ns`` strains), the capots, coinche, surcoinche."""
    nb = ns * popcount(values)
    if k < nb:
        if ns == 4:
            j = k >> 2
            st = k & 3
        else:
            j = k // 6
            st = k - 6 * j
        return BID_BASE + 6 * nth_card(values, j) + st
    k -= nb
    if capot_ok:
        if k < ns:
            return CAPOT_BASE + k
        k -= ns
    if coinche_ok:
        if k == 0:
            return COINCHE
        k -= 1
    return SURCOINCHE


@kernel
def random_action(S, P, rng, buf, pass_prob):
    """A random legal action: cards uniformly; in the auction pass with probability
    ``pass_prob`` and otherwise any other legal action uniformly (uniform over every
    legal action when ``pass_prob < 0``)."""
    phase = S[S_PHASE]
    if phase == PLAY:
        m = legal_play_mask(S, P)
        if m != 0:
            return CARD_BASE + nth_card(m, rng_below(rng, popcount(m)))
        cnt = legal_actions_into(S, P, buf)    # a declare / belote choice
        k = rng_below(rng, cnt)
        for a in range(N_ACTIONS):
            if buf[a]:
                if k == 0:
                    return a
                k -= 1
        return -1
    if P[P_FAMILY] != 0:
        m = prise_options(S, P)
        cnt = 1 + popcount(m)
        if pass_prob >= 0.0:
            u = (rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            if u < pass_prob:
                return PASS
            return TAKE + nth_card(m, rng_below(rng, cnt - 1))
        k = rng_below(rng, cnt)
        if k == 0:
            return PASS
        return TAKE + nth_card(m, k - 1)
    # auction: count the legal actions, draw one, and find it, sharing the flags
    bids_open, capot_ok, coinche_ok, surcoinche_ok, ns = _auction_flags(S, P)
    values = open_bid_values(S, P) if bids_open else 0
    nb = ns * popcount(values)
    cnt = 1 + nb + (ns if capot_ok else 0) + (1 if coinche_ok else 0) + (1 if surcoinche_ok else 0)
    if pass_prob >= 0.0:
        u = (rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        if u < pass_prob or cnt == 1:
            return PASS
        k = rng_below(rng, cnt - 1)
    else:
        k = rng_below(rng, cnt) - 1
        if k < 0:
            return PASS
    return _auction_kth_other(k, values, ns, capot_ok, coinche_ok)


@kernel
def play_out_stepwise(S, P, rng, buf, pass_prob):
    """Play random legal actions from ``S`` until the deal is over, one
    :func:`apply_legal_action` at a time."""
    while S[S_PHASE] != DONE:
        a = random_action(S, P, rng, buf, pass_prob)
        apply_legal_action(S, P, a)


@kernel
def play_out(S, P, rng, buf, pass_prob):
    """Play random legal actions from ``S`` until the deal is over.

    Draws exactly the same random numbers, and leaves exactly the same final state, as
    :func:`play_out_stepwise` (tested), but the cards are played by
    :func:`_play_cards_fast` once no declare / belote choice can come up any more.
    """
    no_choices = P[P_OPTIONAL_DECLARE] == 0 and P[P_OPTIONAL_BELOTE] == 0
    while S[S_PHASE] != DONE:
        if S[S_PHASE] == PLAY and (no_choices or S[S_TRICK_NO] >= 1):
            _play_cards_fast(S, P, rng)
            return
        a = random_action(S, P, rng, buf, pass_prob)
        apply_legal_action(S, P, a)


@njit(cache=True, _nrt=False, inline="always")
def _random_card(rng, hand, seat, n, led, win_card, win_seat, strain, play_rules):
    """One uniformly random legal card of ``hand`` for ``seat``, the ``n``-th card of the
    trick; returns ``(card, led suit, winning card, winning seat)`` after it."""
    m = legal_cards(hand, n, led, win_card, win_seat == partner(seat), strain, play_rules)
    c = nth_card(m, rng_below(rng, popcount(m)))
    if n == 0:
        return c, c >> 3, c, seat
    if beats(c, win_card, strain):
        return c, led, c, seat
    return c, led, win_card, win_seat


@kernel
def _play_cards_fast(S, P, rng):
    """Random legal cards to the end of the deal, trick state in local variables.

    Precondition: play phase, and no declare / belote choice can come up (the options
    are off, or the first trick is over). Writes every slot that
    :func:`apply_legal_action` would (automatic declaring in the first trick, resolution
    at the first card of the second), then scores the deal (:func:`.play.collect_trick`).
    """
    auto_declare = P[P_DECLARATIONS] != 0 and P[P_OPTIONAL_DECLARE] == 0
    strain = S[S_BID_STRAIN]
    play_rules = P[P_PLAY_RULES]
    pts_table = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    trick = S[S_TRICK_NO]
    n = S[S_TRICK_N]
    cur = S[S_CUR]
    win_card = S[S_WIN_CARD]
    win_seat = S[S_WIN_SEAT]
    played = S[S_PLAYED]
    led = 0
    if n > 0:
        led = S[S_PLAYS + N_SEATS * trick] >> 3
    while True:
        if trick <= 1:
            if trick == 0:
                if auto_declare and has_declaration(S, P, cur):
                    S[S_DECLARED] |= 1 << cur
            elif n == 0:
                resolve_declarations(S, P)
        hand = S[S_HAND + cur]
        c, led, win_card, win_seat = _random_card(rng, hand, cur, n, led, win_card, win_seat,
                                                  strain, play_rules)
        S[S_HAND + cur] = hand & ~(1 << c)
        played |= 1 << c
        S[S_PLAYS + N_SEATS * trick + n] = c
        n += 1
        if n < N_SEATS:
            cur = seat_after(cur, 1)
            continue
        n = 0
        if trick == N_TRICKS - 1:           # the state as apply_legal_action leaves it
            S[S_PLAYED] = played
            S[S_WIN_CARD] = win_card
            S[S_WIN_SEAT] = win_seat
        if collect_trick(S, P, trick, win_seat, pts_table):
            return
        trick += 1
        cur = win_seat
        win_card = NO_CARD
        win_seat = NO_SEAT


@njit(cache=True)
def simulate_random_deals(P, n, seed, dealer, pass_prob, contract, out_scores, out_info):
    """Play ``n`` random full deals; deal ``i`` uses sub-stream ``i`` of ``seed``.

    ``contract`` (int64[4]): ``(value, strain, coinche, taker)`` to skip the auction with
    that contract (value 250 = capot), or ``value < 0`` for a random legal auction.
    Writes ``out_scores`` (int64, (n, 2): rounded deal scores per team) and ``out_info``
    (int64, (n, 9): bid value (0 void or classic), strain, coinche level, taker seat,
    made (``S_MADE``), card points team 0, card points team 1, tricks team 0, void).
    """
    S = np.empty(STATE_SIZE, dtype=np.int64)
    hands = np.empty(N_SEATS, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        deal_into(S, P, rng, dealer, hands, deck)
        if contract[0] >= 0:
            set_contract(S, P, contract[0], contract[1], contract[2], contract[3])
        play_out(S, P, rng, buf, pass_prob)
        out_scores[i, 0] = S[S_SCORE]
        out_scores[i, 1] = S[S_SCORE + 1]
        out_info[i, 0] = 0 if S[S_VOID] else S[S_BID_VALUE]
        out_info[i, 1] = S[S_BID_STRAIN]
        out_info[i, 2] = S[S_COINCHE]
        out_info[i, 3] = S[S_BID_SEAT]
        out_info[i, 4] = S[S_MADE]
        out_info[i, 5] = S[S_CARD_POINTS]
        out_info[i, 6] = S[S_CARD_POINTS + 1]
        out_info[i, 7] = S[S_TRICKS]
        out_info[i, 8] = S[S_VOID]


@njit(cache=True)
def random_playouts(S0, P, n, seed, pass_prob, out_scores):
    """``n`` random playouts from state ``S0`` (not modified): rounded deal scores per
    team into ``out_scores`` (int64, (n, 2)). Playout ``i`` uses sub-stream ``i``."""
    S = np.empty(STATE_SIZE, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        for k in range(STATE_SIZE):
            S[k] = S0[k]
        play_out(S, P, rng, buf, pass_prob)
        out_scores[i, 0] = S[S_SCORE]
        out_scores[i, 1] = S[S_SCORE + 1]


@njit(cache=True)
def random_play_phase(P, n, seed, strain, out_points):
    """The play phase alone, as fast as the rules allow: ``n`` random deals, each played
    with 32 uniformly random legal cards under ``strain`` (seat 0 leads); card points won
    by team 0 (with dix de der) into ``out_points`` (int64, (n,)).

    Uses the same :func:`legal_cards` and :func:`beats` as the state machine, without
    auction, declarations or scoring.
    """
    hands = np.empty(N_SEATS, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    pts_table = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    play_rules = P[P_PLAY_RULES]
    for i in range(n):
        rng_seed(rng, seed, i)
        random_deal(rng, hands, deck)
        # int64, not literal constants: a literal first type would compile the callees
        # once more for it while the loop's types settle
        leader = np.int64(0)
        pts0 = 0
        for trick in range(N_TRICKS):
            win_card = np.int64(NO_CARD)
            win_seat = np.int64(NO_SEAT)
            led = np.int64(0)
            pts = 0
            for k in range(N_SEATS):
                seat = seat_after(leader, k)
                c, led, win_card, win_seat = _random_card(rng, hands[seat], seat, k, led, win_card,
                                                          win_seat, strain, play_rules)
                hands[seat] &= ~(1 << c)
                pts += pts_table[c]
            if trick == N_TRICKS - 1:
                pts += DIX_DE_DER
            if team(win_seat) == 0:
                pts0 += pts
            leader = win_seat
        out_points[i] = pts0
