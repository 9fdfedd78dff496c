"""The engine's one vocabulary: the entry points every family answers, so that a kernel
written above them (a vector env, a bot, a sampler, a play-out) is written once.

Each entry point takes the state ``S`` of the rule set's family (int64, its
:data:`Family.state_size <coinche_rl.engine.family.Family>`: the four-player layout of
:mod:`.layout` or the two-player one of :mod:`.two_layout`) and the rule vector ``P``
(:func:`coinche_rl.rules.params_vector`), and branches once on ``P[P_FAMILY]`` to the
family's own kernel (the mechanism was measured against compile-time specialisation:
``docs/architecture.md``, Families). Like every kernel they never raise and never
allocate.

=================================================  ==========================================
entry point                                        what it answers
=================================================  ==========================================
``game_phase(S, P)``                               ``PHASE_BIDDING`` (auction or prise),
                                                   ``PHASE_PLAY``, ``PHASE_DONE``,
                                                   ``PHASE_EXCHANGE`` (two players: the 7 of
                                                   trump)
``game_to_act(S, P)``                              the seat (player) to act, ``NO_SEAT`` (-1)
                                                   once the deal is over
``game_dealer(S, P)``                              the dealer
``game_next_dealer(S, P, dealer)``                 the next deal's dealer: ``dealer`` when
                                                   fixed, -1 drawn, -2 the next seat in turn
``game_side(P, seat)``                             the side a seat scores for (its team; a
                                                   player is his own side): 0 or 1
``game_refusal(S, P, a)``                          ``REFUSE_NONE`` (0) when action ``a`` is
                                                   legal for the seat to act, else the
                                                   ``REFUSE_*`` clause that refuses it
``game_is_legal(S, P, a)``                         ``game_refusal(S, P, a) == REFUSE_NONE``
``game_legal_mask(S, P, out)``                     ``out[a]`` (uint8[N_ACTIONS]) := 1 for
                                                   each legal action; returns their number
``game_apply(S, P, a)``                            apply the legal action ``a`` (no check)
``game_step(S, P, a)``                             apply ``a`` if legal; returns its
                                                   ``game_refusal`` (``S`` unchanged unless 0)
``game_public_view_into(S, P, seat, out)``         what ``seat`` may know of ``S``
``game_private_into(S, P, H)``                     ``H`` (int64[HIDDEN_SIZE]) := what the
                                                   public views hide (layout below)
``game_determinize_into(pub, P, seat, H, out)``    the full state from ``seat``'s public view
                                                   ``pub`` and hidden information ``H``:
                                                   ``game_determinize_into(view, P, seat,
                                                   private(S))`` is ``S`` again
``game_score(S, P, side)``                         the finished deal's score of a side
``game_reward(S, P, seat, raw)``                   the seat's side's score minus the other's
                                                   (``raw``: its score)
``game_new_deal(S, P, rng, dealer, hands, deck)``  a fresh random deal from the stream ``rng``
                                                   (scratch ``hands`` int64[4], ``deck``
                                                   int64[32]), dealt by ``dealer`` (-1: drawn)
``game_random_action(S, P, rng, buf, pass_prob)``  a random legal action (``buf``:
                                                   uint8[N_ACTIONS] scratch; ``pass_prob``:
                                                   the four-player auction's pass
                                                   probability, < 0 uniform)
``game_random_playout(S, P, rng, buf, pass_prob)`` play the deal to its end with random
                                                   legal actions
=================================================  ==========================================

The hidden information ``H`` (int64[HIDDEN_SIZE]; the family's own layout):

* four players: ``H[0:4]`` every seat's hand, ``H[4:36]`` the classic family's dealing
  order (``H[4] < 0``: keep the view's), ``H[36:40]`` the private declare / belote choices
  ``(decl_decided, declared, belote_decided, belote_on)`` (bit per seat;
  :func:`.views.determinize_into`);
* two players: ``H[0:2]`` both hands, ``H[2:18]`` the face-down card under each stack
  (``[player * N_STACKS + k]``, ``NO_CARD`` for none), ``H[18:50]`` the dealing order
  (``H[18] < 0``: keep the view's). The declarations and the belote's owner are
  computed from the cards, as the start of the play does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import (BELOTE, CARD_BASE, DECLARE, EXCHANGE, NAME_BASE, NO_BELOTE, NO_DECLARE,
                       NO_EXCHANGE, N_ACTIONS, PASS, TAKE)
from ..cards import BELOTE_PAIRS, N_CARDS
from ..rules import FAMILY_TWO, N_SEATS, P_BELOTE, P_DECLARATIONS, P_FAMILY, seat_after, team
from . import two
from .accessors import current_seat, dealer_of, phase_of, team_score
from .auction import (REFUSE_NONE, REFUSE_NOT_AN_ACTION, REFUSE_NOT_PRISE, REFUSE_PLAY_ACTION,
                      REFUSE_RETOURNE_SUIT, REFUSE_NAME_ROUND, REFUSE_TAKE_ROUND,
                      _auction_refusal)
from .bits import kernel
from .deal import deal_into
from .declarations import best_single_declaration
from .layout import (AUCTION, DONE, PLAY, STATE_SIZE, S_BELOTE_DECIDED, S_BELOTE_ON, S_DECK,
                     S_DECLARED, S_DECL_DECIDED, S_HAND)
from .play import (apply_legal_action, is_legal, legal_actions_into, legal_play_mask,
                   pending_choice)
from .simulation import play_out, random_action
from .views import determinize_into, public_view_into
from .two_layout import (EXCHANGE_PHASE, HIDDEN_CARD, NO_CARD, N_PLAYERS, N_STACKS,
                         TWO_STATE_SIZE, T_BELOTE_OWNER, T_DECK, T_DECL_CARDS, T_DECL_KEY,
                         T_DECL_PTS, T_DOWN, T_HAND, T_PHASE, T_STACK_DOWN, T_STACK_UP,
                         T_TRUMP, T_UNDER, T_VOID, T_PLAYS, T_UP)

#: the phases, the same ids in every family (``engine.AUCTION``/``two.PRISE`` is 0, ...)
PHASE_BIDDING, PHASE_PLAY, PHASE_DONE, PHASE_EXCHANGE = 0, 1, 2, 3
assert (AUCTION, PLAY, DONE) == (PHASE_BIDDING, PHASE_PLAY, PHASE_DONE)
assert (two.PRISE, two.PLAY, two.DONE, EXCHANGE_PHASE) == (PHASE_BIDDING, PHASE_PLAY,
                                                           PHASE_DONE, PHASE_EXCHANGE)

# the refusals past the auction's (auction.REFUSE_*, 0..18): the card play and the exchange
REFUSE_DEAL_OVER = 19        # the deal is over
REFUSE_CHOICE_PENDING = 20   # a declare / belote choice is pending: not a card
REFUSE_NOT_A_CHOICE = 21     # a declare / belote choice with none pending
REFUSE_NOT_A_CARD = 22       # the card play: not a card (a bid, a prise action, ...)
REFUSE_CARD = 23             # a card the player does not hold, or may not play now
REFUSE_EXCHANGE_PENDING = 24  # two players: the exchange choice is pending
REFUSE_NO_SEVEN = 25         # two players: exchange without the 7 of trump

#: the size of the hidden information ``H`` (the larger family's: two players)
HIDDEN_SIZE = N_PLAYERS + N_PLAYERS * N_STACKS + N_CARDS
#: ``H`` offsets (four players)
H_HANDS, H_DECK, H_CHOICES = 0, N_SEATS, N_SEATS + N_CARDS
#: ``H`` offsets (two players)
H2_HANDS, H2_DOWN, H2_DECK = 0, N_PLAYERS, N_PLAYERS + N_PLAYERS * N_STACKS
assert H_CHOICES + 4 <= HIDDEN_SIZE and H2_DECK + N_CARDS == HIDDEN_SIZE


@njit(cache=True, _nrt=False, inline="always")
def is_two(P):
    """True for a rule vector of belote for two players."""
    return P[P_FAMILY] == FAMILY_TWO


# ----------------------------------------------------------------------- the position
@kernel
def game_phase(S, P):
    """The phase: ``PHASE_BIDDING``, ``PHASE_PLAY``, ``PHASE_DONE`` or ``PHASE_EXCHANGE``."""
    if is_two(P):
        return two.phase_of(S)
    return phase_of(S)


@kernel
def game_to_act(S, P):
    """The seat (player) to act; ``NO_SEAT`` (-1) once the deal is over."""
    if is_two(P):
        return two.current_player(S)
    return current_seat(S)


@kernel
def game_dealer(S, P):
    """The dealer."""
    if is_two(P):
        return two.dealer_of(S)
    return dealer_of(S)


@kernel
def game_next_dealer(S, P, dealer):
    """The dealer of the next deal after ``S``: ``dealer`` when fixed (a seat), -1 drawn
    with the cards, -2 the seat after ``S``'s dealer (a match's rotation)."""
    if dealer != -2:
        return dealer
    if is_two(P):
        return two.other(two.dealer_of(S))
    return seat_after(dealer_of(S), 1)


@kernel
def game_side(P, seat):
    """The side ``seat`` scores for, 0 or 1: its team (four players), itself (two)."""
    if is_two(P):
        return seat
    return team(seat)


# --------------------------------------------------------------------------- legality
@njit(cache=True, _nrt=False, inline="always")
def _two_refusal(T, P, a):
    phase = two.phase_of(T)
    if phase == two.PRISE:
        if a == PASS:
            return REFUSE_NONE
        if a < TAKE or a >= NAME_BASE + 4:
            return REFUSE_PLAY_ACTION if a >= CARD_BASE else REFUSE_NOT_PRISE
        if a == TAKE:
            return REFUSE_NONE if two.prise_round(T) == 1 else REFUSE_TAKE_ROUND
        if two.prise_round(T) == 1:
            return REFUSE_NAME_ROUND
        return REFUSE_RETOURNE_SUIT if a - NAME_BASE == two.retourne_of(T) >> 3 else REFUSE_NONE
    if phase == EXCHANGE_PHASE:
        if a == NO_EXCHANGE or (a == EXCHANGE and two.two_is_legal(T, P, a)):
            return REFUSE_NONE
        return REFUSE_NO_SEVEN if a == EXCHANGE else REFUSE_EXCHANGE_PENDING
    if phase == two.PLAY:
        if a < CARD_BASE or a >= CARD_BASE + N_CARDS:
            return REFUSE_NOT_A_CARD
        return REFUSE_NONE if (two.two_legal_cards(T) >> (a - CARD_BASE)) & 1 else REFUSE_CARD
    return REFUSE_DEAL_OVER


@njit(cache=True, _nrt=False, inline="always")
def _four_refusal(S, P, a):
    phase = phase_of(S)
    if phase == AUCTION:
        return _auction_refusal(S, P, a)
    if phase != PLAY:
        return REFUSE_DEAL_OVER
    pend = pending_choice(S, P)
    if pend == 1:
        return REFUSE_NONE if a == DECLARE or a == NO_DECLARE else REFUSE_CHOICE_PENDING
    if pend == 2:
        return REFUSE_NONE if a == BELOTE or a == NO_BELOTE else REFUSE_CHOICE_PENDING
    if a >= DECLARE:
        return REFUSE_NOT_A_CHOICE
    if a < CARD_BASE or a >= CARD_BASE + N_CARDS:
        return REFUSE_NOT_A_CARD
    return REFUSE_NONE if (legal_play_mask(S, P) >> (a - CARD_BASE)) & 1 else REFUSE_CARD


@kernel
def game_refusal(S, P, a):
    """``REFUSE_NONE`` (0) when action ``a`` is legal for the seat to act, else the
    ``REFUSE_*`` clause that refuses it: the auction's and the prise's (:mod:`.auction`,
    the one copy of their clauses), then ``REFUSE_DEAL_OVER``, ``REFUSE_CHOICE_PENDING``,
    ``REFUSE_NOT_A_CHOICE``, ``REFUSE_NOT_A_CARD``, ``REFUSE_CARD`` (a card not held or
    not playable: the card-play rule says which), ``REFUSE_EXCHANGE_PENDING``,
    ``REFUSE_NO_SEVEN``."""
    if a < 0 or a >= N_ACTIONS:
        return REFUSE_NOT_AN_ACTION
    if is_two(P):
        return _two_refusal(S, P, a)
    return _four_refusal(S, P, a)


@kernel
def game_is_legal(S, P, a):
    """True when action ``a`` is legal for the seat to act: :func:`game_refusal` is
    ``REFUSE_NONE`` (the family's own check, :func:`.play.is_legal`,
    :func:`.two.two_is_legal`; the tests hold the two equal)."""
    if is_two(P):
        return a >= 0 and a < N_ACTIONS and two.two_is_legal(S, P, a)
    return is_legal(S, P, a)


@kernel
def game_legal_mask(S, P, out):
    """``out`` (uint8 or bool, N_ACTIONS) := 1 for each legal action, 0 elsewhere; returns
    the number of legal actions."""
    if is_two(P):
        return two.two_legal_mask(S, P, out)
    return legal_actions_into(S, P, out)


# ---------------------------------------------------------------------------- actions
@kernel
def game_apply(S, P, a):
    """Apply action ``a``, legal for the seat to act (no check: :func:`game_step` checks)."""
    if is_two(P):
        two.two_apply(S, P, a)
    else:
        apply_legal_action(S, P, a)


@kernel
def game_step(S, P, a):
    """Apply action ``a`` if it is legal; return its :func:`game_refusal` (``S`` is
    unchanged unless it is ``REFUSE_NONE``)."""
    why = game_refusal(S, P, a)
    if why == REFUSE_NONE:
        game_apply(S, P, a)
    return why


# ------------------------------------------------------------------ views and worlds
@kernel
def game_public_view_into(S, P, seat, out):
    """``out`` := what ``seat`` may know of ``S`` (:func:`.views.public_view_into`,
    :func:`.two.two_public_view_into`): every choice a seat makes reads only this."""
    if is_two(P):
        two.two_public_view_into(S, P, seat, out)
    else:
        public_view_into(S, P, seat, out)


@kernel
def game_private_into(S, P, H):
    """``H`` (int64[HIDDEN_SIZE]) := the hidden information of ``S`` (module docstring),
    what :func:`game_determinize_into` takes back."""
    for k in range(HIDDEN_SIZE):
        H[k] = NO_CARD
    if is_two(P):
        for p in range(N_PLAYERS):
            H[H2_HANDS + p] = S[T_HAND + p]
        for k in range(N_PLAYERS * N_STACKS):
            H[H2_DOWN + k] = S[T_STACK_DOWN + k]
        for k in range(N_CARDS):
            H[H2_DECK + k] = S[T_DECK + k]
        return
    for p in range(N_SEATS):
        H[H_HANDS + p] = S[S_HAND + p]
    for k in range(N_CARDS):
        H[H_DECK + k] = S[S_DECK + k]
    H[H_CHOICES] = S[S_DECL_DECIDED]
    H[H_CHOICES + 1] = S[S_DECLARED]
    H[H_CHOICES + 2] = S[S_BELOTE_DECIDED]
    H[H_CHOICES + 3] = S[S_BELOTE_ON]


@kernel
def game_determinize_into(pub, P, seat, H, out):
    """``out`` := the full state from ``seat``'s public view ``pub`` and the hidden
    information ``H`` (module docstring), exactly as the engine holds it
    (:func:`.views.determinize_into` for four players; for two, the other hand, the
    face-down cards and the dealing order, and the declarations and the belote's owner
    computed from the cards as the start of the play does)."""
    if not is_two(P):
        determinize_into(pub, P, seat, H[H_HANDS:H_HANDS + N_SEATS],
                         H[H_DECK:H_DECK + N_CARDS], H[H_CHOICES], H[H_CHOICES + 1],
                         H[H_CHOICES + 2], H[H_CHOICES + 3], out)
        return
    for k in range(TWO_STATE_SIZE):
        out[k] = pub[k]
    o = two.other(seat)
    out[T_HAND + o] = H[H2_HANDS + o]
    if H[H2_DECK] >= 0:
        for k in range(N_CARDS):
            out[T_DECK + k] = H[H2_DECK + k]
    for p in range(N_PLAYERS):
        down = np.int64(0)
        for k in range(N_STACKS):
            if pub[T_STACK_DOWN + N_STACKS * p + k] == HIDDEN_CARD:
                d = H[H2_DOWN + N_STACKS * p + k]
                out[T_STACK_DOWN + N_STACKS * p + k] = d
                out[T_UNDER + pub[T_STACK_UP + N_STACKS * p + k]] = d
                down |= np.int64(1) << d
        out[T_DOWN + p] = down
    phase = pub[T_PHASE]
    if pub[T_VOID] != 0 or (phase != two.PLAY and phase != two.DONE):
        return
    trump = pub[T_TRUMP]
    kq = BELOTE_PAIRS[trump]
    for p in range(N_PLAYERS):
        # every card is dealt once the play starts: a player's cards then are all he owns
        owned = out[T_HAND + p] | out[T_UP + p] | out[T_DOWN + p] | _two_played_by(out, p)
        if P[P_BELOTE] and owned & kq == kq:
            out[T_BELOTE_OWNER] = p
        if P[P_DECLARATIONS] and p == o:
            start = owned
            for k in range(N_STACKS):
                d = out[T_STACK_DOWN + N_STACKS * p + k]
                if d >= 0:
                    start &= ~(np.int64(1) << d)
            pts, key, cards = best_single_declaration(start, trump)
            out[T_DECL_PTS + p] = pts
            out[T_DECL_KEY + p] = key
            out[T_DECL_CARDS + p] = cards


@njit(cache=True, _nrt=False, inline="always")
def _two_played_by(T, p):
    """The cards player ``p`` has played in ``T``."""
    m = np.int64(0)
    for t in range(two.N_TRICKS_TWO):
        leader = two.trick_leader(T, t)
        for i in range(N_PLAYERS):
            c = T[T_PLAYS + N_PLAYERS * t + i]
            if c >= 0 and (leader if i == 0 else two.other(leader)) == p:
                m |= np.int64(1) << c
    return m


# ----------------------------------------------------------------------------- scores
@kernel
def game_score(S, P, side):
    """The score of ``side`` (:func:`game_side`) in the finished deal ``S``."""
    if is_two(P):
        return two.deal_score(S, side)
    return team_score(S, side)


@kernel
def game_reward(S, P, seat, raw):
    """The reward of ``seat`` for the finished deal ``S``: its side's score minus the
    other side's, or its side's score when ``raw``."""
    s = game_side(P, seat)
    if raw:
        return float(game_score(S, P, s))
    return float(game_score(S, P, s) - game_score(S, P, 1 - s))


# ------------------------------------------------------------------ random deals, play
@kernel
def game_new_deal(S, P, rng, dealer, hands, deck):
    """A fresh random deal into ``S`` from the stream ``rng`` (the engine's one seed ->
    deck map), dealt by ``dealer`` (-1: drawn after the cards); ``hands`` (int64[4]) and
    ``deck`` (int64[32]) are scratch (four players: the hands dealt and the dealing
    order, as :func:`.deal.deal_into` leaves them)."""
    if is_two(P):
        two.two_random_deal(S, P, rng, dealer, deck)
    else:
        deal_into(S, P, rng, dealer, hands, deck)


@kernel
def game_random_action(S, P, rng, buf, pass_prob):
    """A random legal action of the seat to act (-1 once the deal is over): the
    family's own draw (:func:`.simulation.random_action`, :func:`.two.two_random_action`;
    ``pass_prob`` is read by the four-player auction only)."""
    if is_two(P):
        return two.two_random_action(S, P, rng)
    if phase_of(S) == DONE:
        return -1
    return random_action(S, P, rng, buf, pass_prob)


@kernel
def game_random_playout(S, P, rng, buf, pass_prob):
    """Play the deal to its end with :func:`game_random_action`'s draws (the family's
    fast play-out: :func:`.simulation.play_out`, :func:`.two.two_random_playout`)."""
    if is_two(P):
        two.two_random_playout(S, P, rng)
    else:
        play_out(S, P, rng, buf, pass_prob)


def warmup() -> None:
    """Compile every entry point (cached on disk): one deal played through them. The
    kernels are the same for every family (the family is a value of ``P``), so one rule
    set compiles them all; two are played so that both branches run."""
    from ..rules import get_rules, params_vector
    from .bits import rng_seed
    hands = np.zeros(N_SEATS, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    H = np.zeros(HIDDEN_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for name in ("ffb", "belote_a_deux"):
        P = params_vector(get_rules(name))
        S = np.zeros(two.TWO_STATE_SIZE if is_two(P) else STATE_SIZE, dtype=np.int64)
        V, W = np.zeros_like(S), np.zeros_like(S)
        rng_seed(rng, np.int64(0), np.int64(0))
        game_new_deal(S, P, rng, np.int64(-1), hands, deck)
        while game_phase(S, P) != PHASE_DONE:
            seat = game_to_act(S, P)
            game_legal_mask(S, P, buf)
            game_public_view_into(S, P, seat, V)
            game_private_into(S, P, H)
            game_determinize_into(V, P, seat, H, W)
            a = game_random_action(S, P, rng, buf, 0.5)
            if a % 2 and game_is_legal(S, P, a) and game_refusal(S, P, a) == REFUSE_NONE:
                game_apply(S, P, a)
            else:
                game_step(S, P, a)
        game_reward(S, P, np.int64(0), False)
        game_score(S, P, np.int64(game_side(P, np.int64(0))))
        game_next_dealer(S, P, np.int64(-2))
        game_dealer(S, P)
        game_new_deal(S, P, rng, np.int64(-1), hands, deck)
        game_random_playout(S, P, rng, buf, 0.5)
