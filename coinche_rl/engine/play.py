"""The card play and the state machine: card-play legality (RULES.md §6; the one copy is
:func:`card_play_rule`), the legal actions of the seat to act, and applying an action
(:func:`apply_legal_action`: the auction's to :mod:`.auction`, the declare / belote
choices and the cards here, a trick at a time, the deal scored after the last).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import rules as R
from ..actions import (BELOTE, BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, DECLARE, NO_BELOTE,
                       NO_DECLARE, N_ACTIONS, PASS, SURCOINCHE, TAKE)
from ..rules import (ABOVE, ALL_CARD_POINTS, AT, BELOTE_POINTS, CARD_ORDER, DIX_DE_DER,
                     N_SEATS, N_TRICKS, P_AT_TABLE, P_CAPOT_AFTER_COINCHE, P_DECLARATIONS,
                     P_FAMILY, P_OPTIONAL_BELOTE, P_OPTIONAL_DECLARE, P_PLAY_RULES,
                     TRUMP_SUIT_MASK, partner, seat_after, team)
from .auction import (REFUSE_NONE, _auction_refusal, strain_allowed, apply_auction_action,
                      open_bid_values, prise_options)
from .bits import kernel, lowest_card, mask_into
from .declarations import belote_pairs, has_declaration, resolve_declarations
from .layout import (AUCTION, DONE, NO_CARD, NO_SEAT, PLAY, S_BELOTE_CARDS,
                     S_BELOTE_DECIDED, S_BELOTE_ON, S_BELOTE_SEATS, S_BID_SEAT,
                     S_BID_STRAIN, S_CAPOT, S_COINCHE, S_CUR, S_DECLARED, S_DECL_DECIDED,
                     S_HAND, S_LEADER, S_PHASE, S_PLAYED, S_PLAYS, S_POINTS, S_SEAT_TRICKS,
                     S_TEAM_BELOTE, S_TRICKS, S_TRICK_LEADERS, S_TRICK_N, S_TRICK_NO,
                     S_TRICK_WINNERS, S_WIN_CARD, S_WIN_SEAT)
from .scoring import score_deal


@njit(cache=True, inline="always")
def beats(c, w, strain):
    """True when card ``c`` beats the card ``w`` currently winning the trick."""
    if (c >> 3) == (w >> 3):
        return CARD_ORDER[strain, c] > CARD_ORDER[strain, w]
    return (TRUMP_SUIT_MASK[strain] >> c) & 1 == 1


#: which rule of RULES.md §6 decided :func:`legal_cards_rule`'s mask (for messages)
RULE_FREE = 0            # no obligation: leading, or a free discard
RULE_FOLLOW = 1          # must follow the led suit
RULE_OVERTRUMP_LED = 2   # trump led: must play a higher trump
RULE_BEAT = 3            # all trumps: must beat the winning card of the led suit
RULE_TRUMP = 4           # void in the led suit: must trump
RULE_OVERTRUMP = 5       # void in the led suit: must trump higher than the winning trump
RULE_UNDERTRUMP = 6      # void in the led suit, unable to overtrump: must undertrump


@njit(cache=True, _nrt=False, inline="always")
def card_play_rule(hand, led_suit, win_card, beats_win, partner_master, strain, play_rules):
    """``(mask, rule)``: the cards of ``hand`` that may follow in a trick already led
    (RULES.md §6), and the ``RULE_*`` obligation that decided it. **The one copy of the
    card-play rules of the kernels**: :func:`legal_cards_rule` (engine card ids) and the
    solver (its renumbered ids) call it, and the inferences of voids and ceilings
    (:func:`inferred_voids_ceilings`) derive from it.

    ``led_suit``: the suit led; ``win_card``: the card winning the trick, played by the
    partner when ``partner_master``; ``beats_win``: the cards of ``win_card``'s suit that
    beat it (in the caller's card numbering; only suits are read from the card ids);
    ``play_rules``: the bits ``PLAY_*`` of ``rules.PLAY_RULE_BITS`` (read here as
    ``R.PLAY_*``: a card-play variant adds its bit in ``rules.py`` and its branch here).
    """
    overtrump_partner = (play_rules & R.PLAY_OVERTRUMP_PARTNER) != 0
    insuit = hand & (0xFF << (8 * led_suit))
    if strain < 4:
        if insuit != 0:
            if led_suit == strain:
                if partner_master and not overtrump_partner:
                    return insuit, RULE_FOLLOW
                up = insuit & beats_win
                if up != 0:
                    return up, RULE_OVERTRUMP_LED
            return insuit, RULE_FOLLOW
        if partner_master:
            return hand, RULE_FREE
        trumps = hand & (0xFF << (8 * strain))
        if trumps == 0:
            return hand, RULE_FREE
        if (win_card >> 3) != strain:
            return trumps, RULE_TRUMP
        up = trumps & beats_win
        if up != 0:
            return up, RULE_OVERTRUMP
        if (play_rules & R.PLAY_MUST_UNDERTRUMP) != 0:
            return trumps, RULE_UNDERTRUMP
        return hand, RULE_FREE
    if insuit == 0:
        return hand, RULE_FREE
    if strain == AT and not (partner_master and not overtrump_partner):
        up = insuit & beats_win
        if up != 0:
            return up, RULE_BEAT
    return insuit, RULE_FOLLOW


@njit(cache=True, _nrt=False, inline="always")
def legal_cards_rule(hand, n_in_trick, led_suit, win_card, partner_master, strain, play_rules):
    """``(mask, rule)``: :func:`legal_cards`'s mask and the ``RULE_*`` obligation that
    produced it (RULES.md §6): leading is free, following is :func:`card_play_rule`."""
    if n_in_trick == 0:
        return hand, RULE_FREE
    return card_play_rule(hand, led_suit, win_card, ABOVE[strain, win_card], partner_master,
                          strain, play_rules)


@kernel
def legal_cards(hand, n_in_trick, led_suit, win_card, partner_master, strain, play_rules):
    """Mask of the cards of ``hand`` that may be played (RULES.md §6).

    ``n_in_trick`` cards are already in the trick, the first of suit ``led_suit``;
    ``win_card`` is winning it, played by the partner when ``partner_master``;
    ``play_rules``: the card-play options, ``P[P_PLAY_RULES]``.
    """
    return legal_cards_rule(hand, n_in_trick, led_suit, win_card, partner_master, strain,
                            play_rules)[0]


@kernel
def pending_choice(S, P):
    """0: none; 1: the seat to act must choose to declare or not; 2: belote or not."""
    if S[S_PHASE] != PLAY or S[S_TRICK_NO] != 0:
        return 0
    seat = S[S_CUR]
    bit = 1 << seat
    if P[P_OPTIONAL_DECLARE] and (S[S_DECL_DECIDED] & bit) == 0 and has_declaration(S, P, seat):
        return 1
    if P[P_OPTIONAL_BELOTE] and (S[S_BELOTE_DECIDED] & bit) == 0 and (S[S_BELOTE_SEATS] & bit) != 0:
        return 2
    return 0


@njit(cache=True, _nrt=False, inline="always")
def legal_play_rule(S, P):
    """``(mask, rule)`` of :func:`legal_cards_rule` for the seat to act: the mask of
    :func:`legal_play_mask` and the rule that decided it (``(0, RULE_FREE)`` outside the
    play phase or while a declare / belote choice is pending)."""
    if S[S_PHASE] != PLAY or pending_choice(S, P) != 0:
        return 0, RULE_FREE
    cur = S[S_CUR]
    n = S[S_TRICK_N]
    if n == 0:
        return S[S_HAND + cur], RULE_FREE
    led = S[S_PLAYS + N_SEATS * S[S_TRICK_NO]] >> 3
    return legal_cards_rule(S[S_HAND + cur], n, led, S[S_WIN_CARD],
                            S[S_WIN_SEAT] == partner(cur), S[S_BID_STRAIN],
                            P[P_PLAY_RULES])


@kernel
def legal_play_mask(S, P):
    """Mask of the cards the seat to act may play (0 outside the play phase or while a
    declare / belote choice is pending)."""
    return legal_play_rule(S, P)[0]


@kernel
def legal_actions_into(S, P, out):
    """Fill ``out`` (uint8/bool, shape (N_ACTIONS,)) with the legal-action mask; return
    the number of legal actions."""
    out[:] = 0
    phase = S[S_PHASE]
    if phase == DONE:
        return 0
    cur = S[S_CUR]
    if phase == PLAY:
        pend = pending_choice(S, P)
        if pend == 1:
            out[DECLARE] = 1
            out[NO_DECLARE] = 1
            return 2
        if pend == 2:
            out[BELOTE] = 1
            out[NO_BELOTE] = 1
            return 2
        return mask_into(out, np.int64(CARD_BASE), legal_play_mask(S, P))
    # auction
    out[PASS] = 1
    cnt = 1
    if P[P_FAMILY] != 0:
        return cnt + mask_into(out, np.int64(TAKE), prise_options(S, P))
    bid_seat = S[S_BID_SEAT]
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    if coinche == 0:
        if capot == 0:
            values = open_bid_values(S, P)
            while values:
                vi = lowest_card(values)
                values &= values - 1
                for st in range(6):
                    if strain_allowed(P, st):
                        out[BID_BASE + 6 * vi + st] = 1
                        cnt += 1
            for st in range(6):
                if strain_allowed(P, st):
                    out[CAPOT_BASE + st] = 1
                    cnt += 1
        if bid_seat >= 0 and team(bid_seat) != team(cur):
            out[COINCHE] = 1
            cnt += 1
    elif coinche == 1:
        if team(bid_seat) == team(cur):
            out[SURCOINCHE] = 1
            cnt += 1
        if P[P_CAPOT_AFTER_COINCHE] and capot == 0:
            for st in range(6):
                if strain_allowed(P, st):
                    out[CAPOT_BASE + st] = 1
                    cnt += 1
    return cnt


@kernel
def is_legal(S, P, a):
    """True when action id ``a`` is legal in state ``S``."""
    if a < 0 or a >= N_ACTIONS:
        return False
    phase = S[S_PHASE]
    if phase == AUCTION:
        return _auction_refusal(S, P, a) == REFUSE_NONE
    if phase != PLAY:
        return False
    pend = pending_choice(S, P)
    if pend == 1:
        return a == DECLARE or a == NO_DECLARE
    if pend == 2:
        return a == BELOTE or a == NO_BELOTE
    if a < CARD_BASE or a >= CARD_BASE + 32:
        return False
    return (legal_play_mask(S, P) >> (a - CARD_BASE)) & 1 == 1


@kernel
def apply_action(S, P, a):
    """Apply action id ``a`` if it is legal; return 0, or 1 (and leave ``S`` unchanged)
    when it is not."""
    if not is_legal(S, P, a):
        return 1
    return apply_legal_action(S, P, a)


@kernel
def apply_legal_action(S, P, a):
    """Apply action id ``a``, known to be legal (no check: callers that drew ``a`` from
    the legal set use this). Returns 0."""
    phase = S[S_PHASE]
    cur = S[S_CUR]
    if phase == AUCTION:
        apply_auction_action(S, P, a)
        return 0
    # play phase
    bit = 1 << cur
    if a == DECLARE or a == NO_DECLARE:
        S[S_DECL_DECIDED] |= bit
        if a == DECLARE:
            S[S_DECLARED] |= bit
        return 0
    if a == BELOTE or a == NO_BELOTE:
        S[S_BELOTE_DECIDED] |= bit
        if a == BELOTE:
            S[S_BELOTE_ON] |= bit
            pairs, npairs = belote_pairs(S[S_HAND + cur], S[S_BID_STRAIN])
            S[S_BELOTE_CARDS] |= pairs
            S[S_TEAM_BELOTE + team(cur)] += BELOTE_POINTS * npairs
        return 0
    c = a - CARD_BASE
    trick = S[S_TRICK_NO]
    n = S[S_TRICK_N]
    strain = S[S_BID_STRAIN]
    if (trick == 0 and P[P_DECLARATIONS] and P[P_OPTIONAL_DECLARE] == 0
            and has_declaration(S, P, cur)):
        S[S_DECLARED] |= bit
    if trick == 1 and n == 0:
        resolve_declarations(S, P)
    S[S_HAND + cur] &= ~(1 << c)
    S[S_PLAYED] |= 1 << c
    S[S_PLAYS + N_SEATS * trick + n] = c
    if n == 0 or beats(c, S[S_WIN_CARD], strain):
        S[S_WIN_CARD] = c
        S[S_WIN_SEAT] = cur
    n += 1
    if n < N_SEATS:
        S[S_TRICK_N] = n
        S[S_CUR] = seat_after(cur, 1)
        return 0
    collect_trick(S, P, trick, S[S_WIN_SEAT], ALL_CARD_POINTS[P[P_AT_TABLE], strain])
    return 0


@njit(cache=True, _nrt=False, inline="always")
def collect_trick(S, P, trick, winner, pts_table):
    """Trick ``trick`` is complete (its cards in ``S_PLAYS``), won by ``winner``: its card
    points (``pts_table``: the contract's) and the trick go to the winner's team; after
    the last trick the dix de der and the deal is scored (returns True), else the winner
    leads the next trick (returns False). The one trick-collection step of the engine:
    :func:`apply_legal_action` and the random play-outs' fast loop call it."""
    base = S_PLAYS + N_SEATS * trick
    pts = 0
    for i in range(N_SEATS):
        pts += pts_table[S[base + i]]
    t = team(winner)
    S[S_POINTS + t] += pts
    S[S_TRICKS + t] += 1
    S[S_SEAT_TRICKS + winner] += 1
    S[S_TRICK_WINNERS + trick] = winner
    S[S_TRICK_N] = 0
    if trick == N_TRICKS - 1:
        S[S_POINTS + t] += DIX_DE_DER
        score_deal(S, P)
        return True
    S[S_TRICK_NO] = trick + 1
    S[S_LEADER] = winner
    S[S_TRICK_LEADERS + trick + 1] = winner
    S[S_CUR] = winner
    S[S_WIN_SEAT] = NO_SEAT
    S[S_WIN_CARD] = NO_CARD
    return False
