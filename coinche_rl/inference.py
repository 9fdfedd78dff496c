"""What the cards played show of the hands: voids and ceilings (RULES.md §6).

A seat that plays a card shows that it could not hold the cards that would have made
that card illegal. :func:`play_inference` derives this from the one copy of the
card-play rules, :func:`coinche_rl.engine.card_play_rule`, for one card;
:data:`PLAY_INFERENCE` tabulates it for every input once, at import (it is what makes
importing this module cost a compiled kernel, so the engine does not import it);
:func:`inferred_voids_ceilings` folds it over the tricks of a state. The information set
(``coinche_rl.envs.infoset``), the observation encoder (``coinche_rl.envs.kernels``) and
the heuristic bots read the result. A card-play variant changes ``card_play_rule``; this
module follows by itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .engine import beats, card_play_rule, kernel, lowest_card, trick_card, trick_leader
from .cards import N_CARDS, N_SUITS
from .rules import (ABOVE, CARD_ORDER, N_PLAY_WORDS, N_SEATS, N_STRAINS, N_TRICKS, P_PLAY_RULES,
                    partner, seat_after)

__all__ = ["NO_CEILING", "NO_CEILINGS", "play_inference", "PLAY_INFERENCE",
           "inferred_voids_ceilings", "voids_ceilings_into"]

#: a ceiling of :func:`inferred_voids_ceilings` that says nothing (strengths are 0..7)
NO_CEILING = 8
#: every nibble ``NO_CEILING``: the packed ceilings before any card is played (the int64
#: of 0x8888888888888888)
NO_CEILINGS = 0x8888888888888888 - (1 << 64)


# a call, not inlined: only the table is built from it (inlined, play_inference types
# card_play_rule at each of its four calls)
@njit(cache=True, _nrt=False)
def _ruled_out(c, x, beats_win, led, win, partner_master, strain, play_rules):
    """True when ``c`` would not be a legal card in the hand ``{c, x}``."""
    hand = (np.int64(1) << c) | (np.int64(1) << x)
    m = card_play_rule(hand, led, win, beats_win, partner_master, strain, play_rules)[0]
    return (m >> c) & 1 == 0


@kernel
def play_inference(c, led, win, partner_master, strain, play_rules):
    """What playing ``c`` after the trick's winning card ``win`` (suit ``led`` led)
    shows of the player's hand (RULES.md §6): bit ``s`` (0..3) when he holds no card of
    suit ``s``; bit 4 when he holds no card of ``win``'s suit that beats ``win`` (a
    ceiling at its strength) but may hold others.

    Not a copy of the rules but their negation, derived from :func:`card_play_rule`: ``c``
    rules out the cards ``x`` for which it would be illegal in the hand ``{c, x}``. That
    rule sees a card only through its suit and whether it beats the winning card, so one
    ``x`` decides for each class: each suit, and the winning card's suit split into the
    cards that beat it and the others. When no card beats the winning card, a
    hypothetical one stands for the class (the ceiling then says what the obligation
    was). ``tests/test_single_source.py`` checks it against ``{c, x}`` for every ``x``.
    """
    ws = win >> 3
    beats_win = ABOVE[strain, win]
    out = 0
    for s in range(N_SUITS):
        suit = (np.int64(0xFF) << (8 * s)) & ~(np.int64(1) << c)
        if s != ws:
            if _ruled_out(c, lowest_card(suit), beats_win, led, win, partner_master, strain,
                          play_rules):
                out |= 1 << s
            continue
        # the cards that do not beat the winning card: it is one of them
        lo_out = _ruled_out(c, win, beats_win, led, win, partner_master, strain, play_rules)
        hi = suit & beats_win
        if hi != 0:
            hi_out = _ruled_out(c, lowest_card(hi), beats_win, led, win, partner_master,
                                strain, play_rules)
        elif beats_win == 0:    # nothing beats it: a hypothetical card that does
            hi_out = _ruled_out(c, win, np.int64(1) << win, led, win, partner_master, strain,
                                play_rules)
        else:                   # only c beats it
            hi_out = False
        if hi_out:
            out |= (1 << s) if lo_out else 16
    return out


@njit(cache=True)
def _play_inference_table(n_words):
    """:func:`play_inference` for every input: ``[play_rules, strain, partner_master,
    led, win, c]`` (uint8)."""
    t = np.zeros((n_words, N_STRAINS, 2, N_SUITS, N_CARDS, N_CARDS), dtype=np.uint8)
    for w in range(n_words):
        for strain in range(N_STRAINS):
            for pm in range(2):
                for led in range(N_SUITS):
                    for win in range(N_CARDS):
                        for c in range(N_CARDS):
                            if c != win:
                                t[w, strain, pm, led, win, c] = play_inference(
                                    c, led, win, pm == 1, strain, w)
    return t


#: :func:`play_inference` tabulated once at import (a few milliseconds once compiled),
#: so that the inference costs the observation encoder a load per card
PLAY_INFERENCE = _play_inference_table(N_PLAY_WORDS)


@kernel
def inferred_voids_ceilings(S, P, strain):
    """``(voids, ceilings)`` that every seat showed by its cards so far, the trick in
    progress included, had ``strain`` been the contract (RULES.md §6): bit ``4 p + s`` of
    ``voids`` when seat ``p`` holds no card of suit ``s``; nibble ``4 p + s`` of
    ``ceilings`` (bits ``16 p + 4 s`` up) the strength (``CARD_ORDER``) above which ``p``
    holds no card of ``s``, ``NO_CEILING`` when nothing is known. Each card's part is
    :func:`play_inference` (read from its table ``PLAY_INFERENCE``).
    """
    voids = 0
    ceilings = NO_CEILINGS
    play_rules = P[P_PLAY_RULES]
    for t in range(N_TRICKS):
        leader = trick_leader(S, t)
        if leader < 0:
            break
        c0 = trick_card(S, t, 0)
        if c0 < 0:
            break
        led = c0 >> 3
        win = c0
        win_seat = leader
        for i in range(1, N_SEATS):
            c = trick_card(S, t, i)
            if c < 0:
                break
            p = seat_after(leader, i)
            pm = 1 if win_seat == partner(p) else 0
            r = np.int64(PLAY_INFERENCE[play_rules, strain, pm, led, win, c])
            voids |= (r & 15) << (4 * p)
            if r & 16:
                sh = 16 * p + 4 * (win >> 3)
                k = np.int64(CARD_ORDER[strain, win])
                if k < ((ceilings >> sh) & 15):
                    ceilings = (ceilings & ~(np.int64(15) << sh)) | (k << sh)
            if beats(c, win, strain):
                win_seat = p
                win = c
    return voids, ceilings


@kernel
def voids_ceilings_into(S, P, strain, voids, ceil):
    """:func:`inferred_voids_ceilings` unpacked: ``voids[p]`` (int64[4]) the suit bits of
    seat ``p``'s voids, ``ceil[p, s]`` (int64[4, 4]) its ceiling in suit ``s``
    (``NO_CEILING`` for none)."""
    v, c = inferred_voids_ceilings(S, P, strain)
    for p in range(N_SEATS):
        voids[p] = (v >> (4 * p)) & 15
        for s in range(N_SUITS):
            ceil[p, s] = (c >> (16 * p + 4 * s)) & 15
