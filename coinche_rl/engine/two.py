"""Belote for two players (the ``two`` family, RULES.md §12; conventions and decisions in
``docs/two_player.md``): one deal as a fixed-size int64 vector ``T`` and the kernels
that step it.

The rule clauses the families share come from the four-player kernels: card order and
points (:mod:`coinche_rl.rules` tables), trick-taking (:func:`.play.beats`), the
card-play obligations (:func:`.play.card_play_rule`, called with no partner) and the
declarations (:func:`.declarations.best_single_declaration`). What is the family's own:
the deal (a hand plus stacks on the table, or stacks only), the two-round prise between
two players, the exchange of the 7 of trump, the reveal of face-down cards, and the
scoring (82 to make).

The state layout (slots ``T_*``), the dimensions and the sentinels are in
:mod:`.two_layout`; the named accessors of the slots, for the modules outside the engine,
in :mod:`.two_accessors` (generated from ``two_layout.TWO_ACCESSORS``). Both are
re-exported here, with ``py``: the accessors' plain-Python functions, for Python callers
(``E2.py.hand_of(T, 0)``: no numba dispatch, no compilation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import CARD_BASE, EXCHANGE, NAME_BASE, NO_EXCHANGE, N_ACTIONS, PASS, TAKE
from ..cards import BELOTE_PAIRS, N_CARDS
from ..rules import (ABOVE, ALL_CARD_POINTS, BELOTE_POINTS, CAPOT_POINTS, DEAL_POINTS,
                     DIX_DE_DER, P_BELOTE, P_DECLARATIONS, P_HAND_CARDS, P_LITIGE)
from .bits import kernel, mask_into, nth_card, popcount, rng_below, rng_seed
from .deal import random_deck
from .declarations import best_single_declaration
from .play import beats, card_play_rule
# the layout, dimensions and sentinels (the kernels below read them; re-exported)
from .two_layout import (CARDS_PER_PLAYER, DECL_NOBODY, DECL_UNRESOLVED, DONE, EXCHANGE_PHASE,
                         HIDDEN_CARD, MADE_FAILED, MADE_LITIGE, MADE_MADE, MADE_UNSCORED, MAX_PRISE,
                         N_PLAYERS, N_STACKS, N_TRICKS_TWO, NO_CARD, NO_PLAYER, PLAY, PRISE,
                         TWO_ACCESSORS, TWO_BLANK, TWO_LAYOUT, TWO_OFFSETS, TWO_STATE_SIZE, T_BELOTE,
                         T_BELOTE_OWNER, T_CAPOT, T_CARD_POINTS, T_CUR, T_DEALER, T_DECK,
                         T_DECL_CARDS, T_DECL_KEY, T_DECL_PTS, T_DECL_WINNER, T_DOWN, T_EXCHANGE,
                         T_HAND, T_LEADER, T_LITIGE, T_MADE, T_N_PRISE, T_PHASE, T_PLAYED, T_PLAYS,
                         T_POINTS, T_PRISE, T_RETOURNE, T_ROUND, T_SCORE, T_STACK_DOWN, T_STACK_UP,
                         T_TAKER, T_TRICKS, T_TRICK_LEADERS, T_TRICK_N, T_TRICK_NO, T_TRICK_WINNERS,
                         T_TRUMP, T_UNDER, T_UP, T_VOID, T_WIN_CARD, other as _other)
from .two_accessors import *  # noqa: F401,F403  (the named accessors: hand_of, ...)
from .two_accessors import py  # noqa: F401  (their plain-Python functions)

#: a contract is made with this many card points (dix de der included)
TWO_CONTRACT = 82
#: the 7 of each suit (rank 0)
_SEVEN_RANK = 0
#: card points of the suit contracts: ``_POINTS[strain, card]`` (the AT table is unused)
_POINTS = ALL_CARD_POINTS[0]


#: The other player (:func:`.two_layout.other`, inlined into the kernels).
other = njit(cache=True, _nrt=False, inline="always")(_other)


# ----------------------------------------------------------------------------- the deal
@kernel
def two_reset(T, P, deck, dealer):
    """Start a deal from ``deck`` (int64[32], dealing order) dealt by ``dealer``: the
    cards dealt before the prise (docs/two_player.md), the prise begins."""
    for k in range(TWO_STATE_SIZE):
        T[k] = TWO_BLANK[k]
    for k in range(N_CARDS):
        T[T_DECK + k] = deck[k]
    n = other(dealer)
    T[T_DEALER] = dealer
    T[T_CUR] = n
    T[T_LEADER] = n
    if P[P_HAND_CARDS]:
        for i in range(12):
            p = n if (i // 3) % 2 == 0 else dealer
            T[T_HAND + p] |= np.int64(1) << deck[i]
        T[T_RETOURNE] = deck[12]
    else:
        for k in range(N_STACKS):
            _stack(T, n, k, deck[16 + k], deck[k])
            _stack(T, dealer, k, deck[24 + k], deck[8 + k])
        T[T_RETOURNE] = deck[31]


@njit(cache=True, _nrt=False, inline="always")
def _stack(T, p, k, up, down):
    """Lay stack ``k`` of player ``p``: face-up card ``up`` on face-down ``down`` (-1:
    nothing under it)."""
    T[T_STACK_UP + N_STACKS * p + k] = up
    T[T_STACK_DOWN + N_STACKS * p + k] = down
    T[T_UP + p] |= np.int64(1) << up
    if down >= 0:
        T[T_DOWN + p] |= np.int64(1) << down
        T[T_UNDER + up] = down


@kernel
def _deal_the_rest(T, P):
    """After the prise (and the exchange): the taker gets the retourne (or the 7), then
    the hands' last cards, the stacks and the bergère (``belote_a_deux``); then the play
    begins."""
    taker = T[T_TAKER]
    if P[P_HAND_CARDS]:
        dealer = T[T_DEALER]
        n = other(dealer)
        o = other(taker)
        ret = T[T_RETOURNE]
        if T[T_EXCHANGE] == 1:
            seven = T[T_TRUMP] * 8 + _SEVEN_RANK
            T[T_HAND + o] ^= (np.int64(1) << seven) | (np.int64(1) << ret)
            T[T_HAND + taker] |= np.int64(1) << seven
        else:
            T[T_HAND + taker] |= np.int64(1) << ret
        for i in range(3):
            T[T_HAND + n] |= np.int64(1) << T[T_DECK + 13 + i]
            T[T_HAND + dealer] |= np.int64(1) << T[T_DECK + 16 + i]
        for k in range(3):
            _stack(T, n, k, T[T_DECK + 25 + k], T[T_DECK + 19 + k])
            _stack(T, dealer, k, T[T_DECK + 28 + k], T[T_DECK + 22 + k])
        _stack(T, o, 3, T[T_DECK + 31], NO_CARD)
    _start_play(T, P)


@kernel
def _start_play(T, P):
    """The play begins: the non-dealer leads; declarations (each player's best single
    one from hand and face-up cards) and the belote's owner are fixed."""
    trump = T[T_TRUMP]
    n = other(T[T_DEALER])
    T[T_PHASE] = PLAY
    T[T_CUR] = n
    T[T_LEADER] = n
    T[T_TRICK_LEADERS] = n
    if P[P_DECLARATIONS]:
        for p in range(N_PLAYERS):
            pts, key, cards = best_single_declaration(T[T_HAND + p] | T[T_UP + p], trump)
            T[T_DECL_PTS + p] = pts
            T[T_DECL_KEY + p] = key
            T[T_DECL_CARDS + p] = cards
    if P[P_BELOTE]:
        kq = BELOTE_PAIRS[trump]
        for p in range(N_PLAYERS):
            if (T[T_HAND + p] | T[T_UP + p] | T[T_DOWN + p]) & kq == kq:
                T[T_BELOTE_OWNER] = p


# ----------------------------------------------------------------------------- legality
@njit(cache=True, _nrt=False, inline="always")
def playable_cards(T, p):
    """The cards player ``p`` could play with no obligation: his hand and his face-up
    table cards."""
    return T[T_HAND + p] | T[T_UP + p]


@kernel
def two_legal_cards(T):
    """Mask of the cards the player to act may play (RULES.md §12: §6 with no partner);
    0 outside the play."""
    if T[T_PHASE] != PLAY:
        return 0
    p = T[T_CUR]
    cards = playable_cards(T, p)
    if T[T_TRICK_N] == 0:
        return cards
    w = T[T_WIN_CARD]
    strain = T[T_TRUMP]
    return card_play_rule(cards, w >> 3, w, ABOVE[strain, w], False, strain, 0)[0]


@njit(cache=True, _nrt=False, inline="always")
def _holds_trump_seven(T, p):
    return (T[T_HAND + p] >> (T[T_TRUMP] * 8 + _SEVEN_RANK)) & 1 == 1


@kernel
def two_legal_mask(T, P, out):
    """``out`` (uint8[N_ACTIONS]) := 1 for each legal action of the player to act; returns
    the number of legal actions."""
    for a in range(N_ACTIONS):
        out[a] = 0
    phase = T[T_PHASE]
    if phase == PRISE:
        out[PASS] = 1
        if T[T_ROUND] == 1:
            out[TAKE] = 1
            return 2
        rs = T[T_RETOURNE] >> 3
        for s in range(4):
            if s != rs:
                out[NAME_BASE + s] = 1
        return 4
    if phase == EXCHANGE_PHASE:
        out[NO_EXCHANGE] = 1
        if _holds_trump_seven(T, T[T_CUR]):
            out[EXCHANGE] = 1
            return 2
        return 1
    if phase == PLAY:
        return mask_into(out, np.int64(CARD_BASE), two_legal_cards(T))
    return 0


@kernel
def two_is_legal(T, P, a):
    """True when action ``a`` is legal for the player to act."""
    phase = T[T_PHASE]
    if phase == PRISE:
        if a == PASS:
            return True
        if T[T_ROUND] == 1:
            return a == TAKE
        return NAME_BASE <= a < NAME_BASE + 4 and a - NAME_BASE != (T[T_RETOURNE] >> 3)
    if phase == EXCHANGE_PHASE:
        return a == NO_EXCHANGE or (a == EXCHANGE and _holds_trump_seven(T, T[T_CUR]))
    if phase == PLAY:
        if not CARD_BASE <= a < CARD_BASE + N_CARDS:
            return False
        return (two_legal_cards(T) >> (a - CARD_BASE)) & 1 == 1
    return False


# ------------------------------------------------------------------------------ actions
@kernel
def two_apply(T, P, a):
    """Apply the legal action ``a`` of the player to act (legality is the caller's:
    :func:`two_is_legal`)."""
    phase = T[T_PHASE]
    if phase == PRISE:
        _apply_prise(T, P, a)
    elif phase == EXCHANGE_PHASE:
        T[T_EXCHANGE] = 1 if a == EXCHANGE else 0
        _deal_the_rest(T, P)
    else:
        two_play_card(T, P, a - CARD_BASE)


@kernel
def _apply_prise(T, P, a):
    p = T[T_CUR]
    T[T_PRISE + T[T_N_PRISE]] = a
    T[T_N_PRISE] += 1
    if a == PASS:
        dealer = T[T_DEALER]
        if p != dealer:
            T[T_CUR] = dealer
        elif T[T_ROUND] == 1:
            T[T_ROUND] = 2
            T[T_CUR] = other(dealer)
        else:
            T[T_VOID] = 1
            T[T_PHASE] = DONE
            T[T_CUR] = NO_PLAYER
            T[T_MADE] = MADE_UNSCORED
        return
    T[T_TAKER] = p
    T[T_TRUMP] = (T[T_RETOURNE] >> 3) if a == TAKE else a - NAME_BASE
    if P[P_HAND_CARDS] and a == TAKE:
        # the non-taker always makes the exchange choice, so that his turn does not show
        # whether he holds the 7 of trump (exchange is legal only when he does)
        T[T_PHASE] = EXCHANGE_PHASE
        T[T_CUR] = other(p)
        return
    if P[P_HAND_CARDS]:
        _deal_the_rest(T, P)
    else:
        _start_play(T, P)


@kernel
def two_play_card(T, P, c):
    """Play card ``c`` (legal) for the player to act; a trick is collected when
    complete (its face-down cards revealed, belote and declarations credited, the deal
    scored after the 16th)."""
    p = T[T_CUR]
    bit = np.int64(1) << c
    # the card leaves his hand or the table, whichever holds it (no branch: the play
    # loop's hot path)
    T[T_HAND + p] &= ~bit
    T[T_UP + p] &= ~bit
    T[T_PLAYED] |= bit
    # the belote's owner has played both: credited now (or again: the same points)
    kq = BELOTE_PAIRS[T[T_TRUMP]]
    T[T_BELOTE + p] |= BELOTE_POINTS * ((T[T_BELOTE_OWNER] == p) & ((T[T_PLAYED] & kq) == kq))
    t = T[T_TRICK_NO]
    T[T_PLAYS + 2 * t + T[T_TRICK_N]] = c
    if T[T_TRICK_N] == 0:
        T[T_WIN_CARD] = c
        T[T_TRICK_N] = 1
        T[T_CUR] = other(p)
        return
    strain = T[T_TRUMP]
    lead = T[T_WIN_CARD]
    leader = T[T_LEADER]
    winner = p if beats(c, lead, strain) else leader
    pts = _POINTS[strain, c] + _POINTS[strain, lead]
    if t == N_TRICKS_TWO - 1:
        pts += DIX_DE_DER
    T[T_POINTS + winner] += pts
    T[T_TRICKS + winner] += 1
    T[T_TRICK_WINNERS + t] = winner
    _reveal(T, leader, lead)
    _reveal(T, p, c)
    if t == 0:
        _resolve_declarations(T, P)
    T[T_TRICK_N] = 0
    T[T_WIN_CARD] = NO_CARD
    if t == N_TRICKS_TWO - 1:
        T[T_TRICK_NO] = N_TRICKS_TWO
        two_score(T, P)
        return
    T[T_TRICK_NO] = t + 1
    T[T_LEADER] = winner
    T[T_TRICK_LEADERS + t + 1] = winner
    T[T_CUR] = winner


@njit(cache=True, _nrt=False, inline="always")
def _reveal(T, p, c):
    """The trick with ``p``'s card ``c`` is collected: the face-down card ``c`` covered
    (if any) is turned face up."""
    d = T[T_UNDER + c]
    bit = np.int64(d >= 0) << (d & 31)      # 0 when nothing was under it (no branch)
    T[T_DOWN + p] &= ~bit
    T[T_UP + p] |= bit


@kernel
def _resolve_declarations(T, P):
    """The first trick is complete: the better single declaration scores (equal keys:
    neither)."""
    k0 = T[T_DECL_KEY]
    k1 = T[T_DECL_KEY + 1]
    if not P[P_DECLARATIONS] or k0 == k1:
        T[T_DECL_WINNER] = DECL_NOBODY
    else:
        T[T_DECL_WINNER] = 0 if k0 > k1 else 1


@kernel
def two_score(T, P):
    """Score the finished deal (docs/two_player.md, Scoring) into ``T_SCORE``."""
    taker = T[T_TAKER]
    o = other(taker)
    cp0 = T[T_POINTS]
    cp1 = T[T_POINTS + 1]
    T[T_CARD_POINTS] = cp0
    T[T_CARD_POINTS + 1] = cp1
    for p in range(N_PLAYERS):
        if T[T_TRICKS + p] == N_TRICKS_TWO:
            T[T_CAPOT] = p
            T[T_CARD_POINTS + p] = CAPOT_POINTS
    w = T[T_DECL_WINNER]
    decl = T[T_DECL_PTS + w] if w >= 0 else 0
    tp = T[T_CARD_POINTS + taker]
    if tp >= TWO_CONTRACT:
        T[T_MADE] = MADE_MADE
        for p in range(N_PLAYERS):
            T[T_SCORE + p] = T[T_CARD_POINTS + p] + T[T_BELOTE + p] + (decl if w == p else 0)
    elif P[P_LITIGE] and 2 * tp == DEAL_POINTS:
        T[T_MADE] = MADE_LITIGE
        T[T_SCORE + o] = T[T_CARD_POINTS + o] + T[T_BELOTE + o] + (decl if w == o else 0)
        T[T_SCORE + taker] = T[T_BELOTE + taker]
        T[T_LITIGE] = tp + (decl if w == taker else 0)
    else:
        T[T_MADE] = MADE_FAILED
        base = CAPOT_POINTS if T[T_CAPOT] == o else DEAL_POINTS
        T[T_SCORE + o] = base + decl + T[T_BELOTE + o]
        T[T_SCORE + taker] = T[T_BELOTE + taker]
    T[T_PHASE] = DONE
    T[T_CUR] = NO_PLAYER


@kernel
def score_with_points(T, P, me, points):
    """Score ``T`` (a scratch copy of a state of the play) as if player ``me`` ended the
    deal with ``points`` card points (dix de der included) and the other with the rest:
    the declarations resolved, the belote credited to its holder, a capot where one
    player has every point; returns ``me``'s deal score minus the other's (the value of
    a double-dummy result in deal-score points, as the networks' labels use it)."""
    o = other(me)
    T[T_POINTS + me] = points
    T[T_POINTS + o] = DEAL_POINTS - points
    T[T_TRICKS + me] = N_TRICKS_TWO if points == DEAL_POINTS else 1
    T[T_TRICKS + o] = N_TRICKS_TWO if points == 0 else 1
    if T[T_DECL_WINNER] == DECL_UNRESOLVED:
        _resolve_declarations(T, P)
    owner = T[T_BELOTE_OWNER]
    if owner >= 0:
        T[T_BELOTE + owner] = BELOTE_POINTS
    two_score(T, P)
    return T[T_SCORE + me] - T[T_SCORE + o]


# ------------------------------------------------------------------------------- views
@kernel
def known_cards(T, player):
    """The cards of the other player's hand that ``player`` knows (RULES.md §12 item 7):
    the retourne in the taker's hand, or after an exchange the 7 of trump in the taker's
    and the retourne in the other's; the winning declaration's cards once resolved."""
    o = other(player)
    known = 0
    taker = T[T_TAKER]
    if taker >= 0 and T[T_PHASE] != EXCHANGE_PHASE:
        ret = np.int64(1) << T[T_RETOURNE]
        if T[T_EXCHANGE] == 1:
            known |= ret | (np.int64(1) << (T[T_TRUMP] * 8 + _SEVEN_RANK))
        elif T[T_HAND + taker] & ret:
            known |= ret
    w = T[T_DECL_WINNER]
    if w == o:
        known |= T[T_DECL_CARDS + o]
    return T[T_HAND + o] & known


@kernel
def two_public_view_into(T, P, player, V):
    """``V`` := what ``player`` may know of the deal ``T``: the state with the deck,
    every face-down card (``T_DOWN`` 0, ``T_STACK_DOWN`` and ``T_UNDER``
    :data:`HIDDEN_CARD` while face down), the other player's hand beyond :func:`known_cards`, his declaration before he
    declares and its key and cards unless it won, and the belote's owner before it is
    credited, all hidden. Every choice a player can make reads only this."""
    for k in range(TWO_STATE_SIZE):
        V[k] = T[k]
    o = other(player)
    for k in range(N_CARDS):
        V[T_DECK + k] = NO_CARD
    for p in range(N_PLAYERS):
        V[T_DOWN + p] = 0
        for k in range(N_STACKS):
            d = T[T_STACK_DOWN + N_STACKS * p + k]
            if d >= 0 and (T[T_DOWN + p] >> d) & 1:
                V[T_STACK_DOWN + N_STACKS * p + k] = HIDDEN_CARD
                V[T_UNDER + T[T_STACK_UP + N_STACKS * p + k]] = HIDDEN_CARD
    V[T_HAND + o] = known_cards(T, player)
    declared = T[T_PHASE] == PLAY and (T[T_TRICK_NO] > 0 or (T[T_TRICK_N] == 1 and T[T_LEADER] == o)) \
        or T[T_PHASE] == DONE
    if not declared:
        V[T_DECL_PTS + o] = 0
    if T[T_DECL_WINNER] != o:
        V[T_DECL_KEY + o] = 0
        V[T_DECL_CARDS + o] = 0
    if T[T_BELOTE] == 0 and T[T_BELOTE + 1] == 0:
        V[T_BELOTE_OWNER] = NO_PLAYER


# ---------------------------------------------------------------------- random play-outs
@kernel
def two_random_action(T, P, rng):
    """A uniformly random legal action of the player to act (-1 when the deal is over)."""
    phase = T[T_PHASE]
    if phase == PRISE:
        if T[T_ROUND] == 1:
            return TAKE if rng_below(rng, 2) == 1 else PASS
        k = rng_below(rng, 4)
        if k == 3:
            return PASS
        rs = T[T_RETOURNE] >> 3
        s = k if k < rs else k + 1
        return NAME_BASE + s
    if phase == EXCHANGE_PHASE:
        if _holds_trump_seven(T, T[T_CUR]) and rng_below(rng, 2) == 1:
            return EXCHANGE
        return NO_EXCHANGE
    if phase == PLAY:
        m = two_legal_cards(T)
        return CARD_BASE + nth_card(m, rng_below(rng, popcount(m)))
    return -1


@kernel
def two_random_playout(T, P, rng):
    """Play the deal to its end with uniformly random legal actions (the actions of
    :func:`two_random_action`, the card play in a tighter loop)."""
    while T[T_PHASE] != DONE and T[T_PHASE] != PLAY:
        two_apply(T, P, two_random_action(T, P, rng))
    while T[T_PHASE] == PLAY:
        m = two_legal_cards(T)
        two_play_card(T, P, nth_card(m, rng_below(rng, popcount(m))))


def writable_state(T) -> np.ndarray:
    """``T`` as the kernels take it: an int64 array they may be handed without a second
    compile. ``TwoPlayerDeal.state`` is a read-only view, and numba compiles a separate copy
    of every kernel it reaches for a read-only array; that view is copied (a few hundred
    bytes), any other int64 array is passed as is."""
    T = np.asarray(T, dtype=np.int64)
    return T if T.flags.writeable else T.copy()


@kernel
def two_random_deal(T, P, rng, dealer, deck):
    """A fresh random deal into ``T`` from the stream ``rng`` (``deck``: int64[32]
    scratch): the engine's one seed -> deck map (``deal.random_deck``), dealt by
    ``dealer`` (-1: drawn after the cards)."""
    random_deck(rng, deck)
    d = dealer if dealer >= 0 else rng_below(rng, N_PLAYERS)
    two_reset(T, P, deck, d)


@njit(cache=True)
def two_simulate(P, n, seed, scores, made, void):
    """Deal ``n`` random deals from ``seed`` (deal ``i`` from sub-stream ``i``, so any
    chunking gives the same deals) and play each with uniformly random legal actions:
    ``scores`` int64[n, 2], ``made`` int64[n] (``T_MADE``), ``void`` uint8[n]."""
    T = np.empty(TWO_STATE_SIZE, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        two_random_deal(T, P, rng, np.int64(-1), deck)
        two_random_playout(T, P, rng)
        scores[i, 0] = T[T_SCORE]
        scores[i, 1] = T[T_SCORE + 1]
        made[i] = T[T_MADE]
        void[i] = T[T_VOID]


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the chain of belote
#: for two players, first (every kernel of the family calls these)
WARMUP_CHAIN = "two"


def warmup():
    """Compile the family's kernels (one random deal of each preset)."""
    from ..rules import get_rules, params_vector
    for name in ("belote_a_deux", "belote_decouverte"):
        P = params_vector(get_rules(name))
        two_simulate(P, 2, np.int64(0), np.zeros((2, 2), np.int64), np.zeros(2, np.int64),
                     np.zeros(2, np.uint8))
