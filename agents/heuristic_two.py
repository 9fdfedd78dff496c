"""The heuristic of belote for two players (``coinche_rl.agents.heuristic_two``): its
prise, exchange and card play as numba kernels over a player's **public view**
(:func:`coinche_rl.engine.two.two_public_view_into`). It is the ``heuristic`` of the
``two`` family: the bots' shared parts (bot ids, the play loop :func:`~coinche_rl.agents.
numba_bots.play_deals`, the batched actions, the agents) are those of every family, in
:mod:`coinche_rl.agents.numba_bots`, which calls :func:`heuristic_action` here.

It reads only the view vector ``V`` of the player to act: his own hand, both players'
face-up cards, which face-up cards still cover a face-down card (never what that card
is), the cards of the other hand he was shown (:func:`~coinche_rl.engine.two.
known_cards`), the prise, the tricks played and the points won.

The heuristic is rule-based and deterministic.

*Prise*: each candidate trump suit is valued by a strength score (trumps: jack 5, nine
3.5, ace 2.5, ten 2, king 1.5, queen 1.3, eight and seven 1; side aces 2, tens 1,
kings 0.4): the player's visible cards (his hand with the retourne he would receive,
or his face-up cards in belote découverte) against the other player's visible cards
(his face-up cards), the cards still unseen counting at their mean strength for each
player's unseen places. The first round takes, the second names the best other suit,
when the difference reaches a threshold (``prise`` parameter: lower takes more). The
round-1 taker's retourne is discounted by the chance that the other player exchanges
his 7 of trump for it.

*Exchange*: always, when allowed, except to keep a declaration 50 points better
(unless the retourne is the jack or the nine).

*Card play*: every legal card is scored. **Following** (second to play): the trick is
decided by the card: ``+V`` when it wins, ``-V`` when it loses (``V`` the points of the
two cards, the dix de der on the 16th trick), less what the card is worth kept
(trumps by strength, more when master; masters of a plain suit; the guard of a ten
whose ace is out): it wins cheaply when it can, discards low when it cannot. **Leading**:
the chance that the other player beats the card is computed from what is public: his
face-up cards and the cards of his hand he was shown are certain, the rest of his hand
(its size is public) is drawn from the unseen cards minus the suits he showed void in
and the trumps above his ceiling; it leads the card with the best ``V (1 - 2 p) -
keep``: masters are cashed when he cannot trump, a trump is drawn (bonus) when he may
still hold trumps and ours are more or better, a worthless trump lead is avoided when
he has none. Ties go to a card that uncovers a face-down card (a new playable card),
and at the end the master trump is kept for the last trick (dix de der).

The heuristic's tunable constants are the float vector :data:`HEURISTIC_WEIGHTS` (read
as constants by the kernels; the agent's parameters change its prise thresholds, which
travel in the bot id: :func:`coinche_rl.agents.numba_bots.heuristic_two_bot`); they were
set in duplicate self-play (20,000-30,000 deal pairs per variant, each change kept when it won on both
presets or on one without losing on the other): the prise thresholds 5 (belote à
deux) and 4 (découverte) beat 0, 2, 3 and 6, 8 by 0.4 to 29 points per deal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import CARD_BASE, EXCHANGE, NAME_BASE, NO_EXCHANGE, PASS, TAKE
from ..engine.bits import kernel, lowest_card, popcount
from ..engine.declarations import best_single_declaration
from ..engine.play import beats
from ..engine.two import (CARDS_PER_PLAYER, EXCHANGE_PHASE, HIDDEN_CARD, N_PLAYERS, N_STACKS,
                          N_TRICKS_TWO, PLAY, PRISE, cards_in_trick, face_up_cards, hand_of,
                          led_card, other, phase_of, playable_cards, played_cards, prise_round,
                          retourne_of, stack_face_down, stack_face_up, taker_of, trick_card,
                          trick_leader, trick_number, trump_of, two_legal_cards)
from ..rules import ABOVE, ALL_CARD_POINTS, CARD_ORDER, P_DECLARATIONS, P_HAND_CARDS
from .chance import is_master as _is_master, keep_master_trump, p_miss

__all__ = ["HEURISTIC_WEIGHTS", "N_WEIGHTS", "W_PRISE", "W_PRISE_DECOUVERTE", "heuristic_action",
           "prise_threshold", "excluded_cards"]

#: slots of the heuristic's weight vector
W_PRISE, W_PRISE_DECOUVERTE, W_UNCOVER, W_DRAW_MASTER, W_DRAW, W_RESPONSE, W_TEMPO, \
    W_KEEP_TRUMP, W_KEEP_MASTER = range(9)
N_WEIGHTS = 9
#: the default weights (the prise thresholds in strength units, the others in points)
HEURISTIC_WEIGHTS = np.array([5.0, 4.0, 4.0, 5.0, 3.0, 3.5, 0.0, 1.0, 1.0], dtype=np.float64)
#: the weights as the kernels read them (a global array: a constant of the compiled code)
_W = HEURISTIC_WEIGHTS
#: the default prise margins in hundredths (belote à deux, découverte)
_PRISE_HUNDREDTHS = (int(round(_W[W_PRISE] * 100)), int(round(_W[W_PRISE_DECOUVERTE] * 100)))

_FULL = np.int64(0xFFFFFFFF)
#: card points of the suit contracts, ``_PTS[trump, card]``
_PTS = ALL_CARD_POINTS[0]
#: strength of a card at the prise, by rank 7 8 9 T J Q K A: as a trump, in a side suit
_TRUMP_STRENGTH = np.array([1.0, 1.0, 3.5, 2.0, 5.0, 1.3, 1.5, 2.5])
_SIDE_STRENGTH = np.array([0.0, 0.0, 0.0, 1.0, 0.1, 0.2, 0.4, 2.0])
#: rank indices
_SEVEN, _NINE, _TEN, _JACK, _ACE = 0, 2, 3, 4, 7


@njit(cache=True, _nrt=False, inline="always")
def _suit(s):
    return np.int64(0xFF) << (8 * s)


@njit(cache=True, _nrt=False, inline="always")
def _bit(c):
    return np.int64(1) << c


# ---------------------------------------------------------------- public knowledge
@kernel
def _played_by(V, p):
    """The cards player ``p`` played (from the public tricks)."""
    m = np.int64(0)
    for t in range(N_TRICKS_TWO):
        leader = trick_leader(V, t)
        if leader < 0:
            break
        for i in range(N_PLAYERS):
            c = trick_card(V, t, i)
            if c < 0:
                return m
            if (leader if i == 0 else other(leader)) == p:
                m |= _bit(c)
    return m


@kernel
def _table_ever(V, p):
    """The cards player ``p`` had face up on the table at some time: the stacks' face-up
    cards and the face-down cards turned up since (public once turned)."""
    m = np.int64(0)
    for k in range(N_STACKS):
        u = stack_face_up(V, p, k)
        if u >= 0:
            m |= _bit(u)
        d = stack_face_down(V, p, k)
        if d >= 0:
            m |= _bit(d)
    return m


@kernel
def _covers(V, p, c):
    """Player ``p``'s face-up card ``c`` lies on a face-down card."""
    for k in range(N_STACKS):
        if stack_face_up(V, p, k) == c:
            return stack_face_down(V, p, k) == HIDDEN_CARD
    return False


@kernel
def _hand_size(V, P, p):
    """The number of cards in player ``p``'s hand (public: dealt minus those played
    from it)."""
    if not P[P_HAND_CARDS]:
        return 0
    if phase_of(V) == PRISE or phase_of(V) == EXCHANGE_PHASE:
        return 6
    n0 = 10 if taker_of(V) == p else 9
    return n0 - popcount(_played_by(V, p) & ~_table_ever(V, p))


@kernel
def excluded_cards(V, o, trump):
    """Cards player ``o``'s hand cannot hold, from his plays: a suit he did not follow
    (and trumps, when he neither followed nor trumped a plain suit), the trumps above
    the one he did not beat when trump was led. His hand never grows during the play."""
    ex = np.int64(0)
    for t in range(N_TRICKS_TWO):
        leader = trick_leader(V, t)
        if leader < 0:
            break
        if leader == o:
            continue
        lead = trick_card(V, t, 0)
        c = trick_card(V, t, 1)
        if c < 0:
            break
        ls = lead >> 3
        if (c >> 3) != ls:
            ex |= _suit(ls)
            if ls != trump and (c >> 3) != trump:
                ex |= _suit(trump)
        elif ls == trump and not beats(c, lead, trump):
            ex |= ABOVE[trump, lead]
    return ex


@kernel
def _p_beats_lead(c, trump, sure, poss, h):
    """Chance that the other player beats the lead ``c``: ``sure`` the cards he can
    play for certain (face up, or shown from his hand), ``h`` unknown hand cards drawn
    from ``poss``."""
    s = c >> 3
    sm = _suit(s)
    hi = ABOVE[trump, c]
    if sure & hi:
        return 1.0
    n = popcount(poss)
    if h > n:
        h = n
    p_hi = 1.0 - p_miss(n, popcount(poss & hi), h)
    if s == trump or (sure & sm) != 0:
        return p_hi
    tm = _suit(trump)
    k_s = popcount(poss & sm)
    p_void = p_miss(n, k_s, h)
    if sure & tm:
        p_tr = 1.0
    else:
        p_tr = 1.0 - p_miss(n - k_s, popcount(poss & tm), h)
    p = p_hi + p_void * p_tr
    return p if p < 1.0 else 1.0


@kernel
def _keep_value(c, mine, outside, trump):
    """What card ``c`` is worth kept (points-like units)."""
    s = c >> 3
    master = _is_master(c, outside, trump)
    if s == trump:
        k = (5.2 + 2.6 * CARD_ORDER[trump, c]) * _W[W_KEEP_TRUMP]
        if master:
            k += 10.4 * _W[W_KEEP_MASTER]
        return k
    k = 0.0
    if master and (outside & _suit(s)) != 0:
        k += 9.1 * _W[W_KEEP_MASTER]
    t = 8 * s + _TEN
    a = 8 * s + _ACE
    if c != t and (mine >> t) & 1 and (outside >> a) & 1 and popcount(mine & _suit(s)) == 2:
        k += 7.8
    return k


# ----------------------------------------------------------------------- the prise
@kernel
def _strength(m, trump):
    """The prise strength of the cards ``m`` with ``trump`` as trump."""
    s = 0.0
    for c in range(32):
        if (m >> c) & 1:
            s += _TRUMP_STRENGTH[c & 7] if (c >> 3) == trump else _SIDE_STRENGTH[c & 7]
    return s


@kernel
def _prise_margin(V, P, me, trump):
    """Expected strength of ``me``'s 16 cards minus the other player's with ``trump`` as
    trump: the visible cards at their strength, the unseen places at the mean strength
    of the unseen cards."""
    o = other(me)
    ret = retourne_of(V)
    mine = playable_cards(V, me)
    his = playable_cards(V, o)
    if P[P_HAND_CARDS]:
        mine |= _bit(ret)                  # the taker receives the retourne
    unseen = _FULL & ~mine & ~his
    n_u = popcount(unseen)
    mean = _strength(unseen, trump) / n_u if n_u > 0 else 0.0
    margin = _strength(mine, trump) + (CARDS_PER_PLAYER - popcount(mine)) * mean \
        - _strength(his, trump) - (CARDS_PER_PLAYER - popcount(his)) * mean
    if P[P_HAND_CARDS] and (ret >> 3) == trump and prise_round(V) == 1:
        seven = 8 * trump + _SEVEN
        if not (mine >> seven) & 1 and n_u > 0:
            # the other player may exchange his 7 of trump for the retourne
            q = 6.0 / n_u
            margin -= 2.0 * q * (_TRUMP_STRENGTH[ret & 7] - _TRUMP_STRENGTH[_SEVEN])
    return margin


@kernel
def _prise_action(V, P, me, thr):
    rs = retourne_of(V) >> 3
    if prise_round(V) == 1:
        return TAKE if _prise_margin(V, P, me, rs) >= thr else PASS
    best = PASS
    best_m = thr
    for s in range(4):
        if s == rs:
            continue
        m = _prise_margin(V, P, me, s)
        if m >= best_m:
            best_m = m
            best = NAME_BASE + s
    return best


@kernel
def _exchange_action(V, P, me):
    hand = hand_of(V, me)
    trump = trump_of(V)
    seven = 8 * trump + _SEVEN
    if not (hand >> seven) & 1:
        return NO_EXCHANGE
    ret = retourne_of(V)
    r = ret & 7
    if P[P_DECLARATIONS] and r != _JACK and r != _NINE:
        keep = best_single_declaration(hand, trump)[0]
        swap = best_single_declaration((hand & ~_bit(seven)) | _bit(ret), trump)[0]
        if keep - swap >= 50:
            return NO_EXCHANGE
    return EXCHANGE


# ----------------------------------------------------------------------- card play
@kernel
def _play_card(V, P, me):
    """The heuristic's card (module docstring)."""
    legal = two_legal_cards(V)
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    o = other(me)
    trump = trump_of(V)
    tm = _suit(trump)
    mine = playable_cards(V, me)
    played = played_cards(V)
    outside = _FULL & ~mine & ~played          # cards that are not ours (nor played)
    tn = trick_number(V)
    last_bonus = 10.0 if tn == N_TRICKS_TWO - 1 else 0.0
    if cards_in_trick(V) == 1:
        # following: the card decides the trick
        lead = led_card(V)
        sure = poss = np.int64(0)
        h = 0
        opp_may_trump = False
        opp_tr_est = 0.0
    else:
        # leading: what the other player may answer with
        lead = -1
        sure = face_up_cards(V, o) | hand_of(V, o)
        h = _hand_size(V, P, o) - popcount(hand_of(V, o))
        poss = outside & ~sure & ~excluded_cards(V, o, trump)
        if h <= 0:
            h = 0
            poss = np.int64(0)
        opp_tr_sure = popcount(sure & tm)
        n_poss = popcount(poss)
        opp_tr_est = opp_tr_sure + (h * popcount(poss & tm) / n_poss if n_poss > 0 else 0.0)
        opp_may_trump = opp_tr_sure > 0 or (h > 0 and (poss & tm) != 0)
        # two cards or fewer left on both sides and no hidden card: keep the master trump
        # for the last trick
        if popcount(legal) == 2 and not opp_may_trump:
            keep = keep_master_trump(legal, outside, trump)
            if keep >= 0:
                return keep
    my_tr = mine & tm
    best, best_ev = -1, -1e18
    m = legal
    while m:                                   # every legal card, the lowest first
        c = lowest_card(m)
        m &= m - 1
        ev = -_keep_value(c, mine, outside, trump)
        if lead >= 0:
            V_pts = _PTS[trump, lead] + _PTS[trump, c] + last_bonus
            ev += V_pts + _W[W_TEMPO] if beats(c, lead, trump) else -V_pts
        else:
            p = _p_beats_lead(c, trump, sure, poss, h)
            ev += (_PTS[trump, c] + _W[W_RESPONSE] + last_bonus) * (1.0 - 2.0 * p)
            if (c >> 3) == trump:
                if opp_may_trump:
                    if _is_master(c, outside, trump):
                        ev += _W[W_DRAW_MASTER]
                    elif popcount(my_tr) > opp_tr_est:
                        ev += _W[W_DRAW]
                elif mine != my_tr:
                    ev -= 4.0                      # nothing to draw
        if _covers(V, me, c):
            ev += _W[W_UNCOVER]
        if ev > best_ev + 1e-9:                # ties: the lowest card
            best, best_ev = c, ev
    return best


# ----------------------------------------------------------------------- the action
@kernel
def prise_threshold(P, hundredths):
    """The prise margin the heuristic takes or names at under the rules ``P`` (belote à
    deux, with a hand: ``W_PRISE``; découverte: ``W_PRISE_DECOUVERTE``), moved by
    ``hundredths`` of a unit (so that a margin given to the hundredth is exactly it)."""
    base = _PRISE_HUNDREDTHS[0] if P[P_HAND_CARDS] else _PRISE_HUNDREDTHS[1]
    return (base + hundredths) / 100.0


@kernel
def heuristic_action(V, P, me, prise):
    """The heuristic's action for player ``me`` (to act) from his public view ``V``;
    ``prise``: the strength margin to take or name at (:func:`prise_threshold`)."""
    phase = phase_of(V)
    if phase == PRISE:
        return _prise_action(V, P, me, prise)
    if phase == EXCHANGE_PHASE:
        return _exchange_action(V, P, me)
    if phase == PLAY:
        return CARD_BASE + _play_card(V, P, me)
    return -1
