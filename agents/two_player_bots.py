"""Numba bots for belote for two players (``coinche_rl.agents.two_player_bots``): the
``random`` and ``heuristic`` decisions as kernels over a player's **public view**
(:func:`coinche_rl.engine.two.two_public_view_into`), and :func:`two_play_deals`, which
plays whole deals with a bot at each player entirely in numba.

A bot reads only the view vector ``V`` of the player to act: his own hand, both
players' face-up cards, which face-up cards still cover a face-down card (never what
that card is), the cards of the other hand he was shown (:func:`~coinche_rl.engine.two.
known_cards`), the prise, the tricks played and the points won. The agents
(:class:`TwoRandomAgent`, :class:`TwoHeuristicAgent`: the specs ``random`` and
``heuristic`` of the ``two`` family, entry points ``random@two`` and ``heuristic@two``)
call the same kernel on ``TwoPlayerView.state``, with the same seeded stream, so a deal
played through :func:`coinche_rl.agents.play_deal` and one played by
:func:`two_play_deals` make the same choices.

**random** (:data:`TWO_RANDOM`): a uniformly random legal action
(``engine.two.two_random_action``) from the player's splitmix64 stream.

**heuristic** (:data:`TWO_HEURISTIC`): rule-based and deterministic.

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

The heuristic's tunable constants are the float vector :data:`HEURISTIC_WEIGHTS`
(the agent's parameters change its prise thresholds); they were set in duplicate
self-play (20,000-30,000 deal pairs per variant, each change kept when it won on both
presets or on one without losing on the other): the prise thresholds 5 (belote à
deux) and 4 (découverte) beat 0, 2, 3 and 6, 8 by 0.4 to 29 points per deal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import CARD_BASE, EXCHANGE, NAME_BASE, NO_EXCHANGE, PASS, TAKE
from ..engine.bits import kernel, lowest_card, popcount, rng_seed, seed_int64
from ..engine.declarations import best_single_declaration
from ..engine.play import beats
from ..engine.two import (CARDS_PER_PLAYER, DONE, EXCHANGE_PHASE, HIDDEN_CARD, N_PLAYERS,
                          N_STACKS, N_TRICKS_TWO, PLAY, PRISE, TWO_STATE_SIZE, cards_in_trick,
                          current_player, face_up_cards, hand_of, led_card, other, phase_of,
                          playable_cards, played_cards, prise_round, retourne_of,
                          stack_face_down, stack_face_up, taker_of, trick_card, trick_leader,
                          trick_number, trump_of, two_apply, two_is_legal, two_legal_cards,
                          two_public_view_into, two_random_action)
from ..rules import (ABOVE, ALL_CARD_POINTS, CARD_ORDER, P_DECLARATIONS, P_HAND_CARDS, RuleSet,
                     params_vector)
from .base import Agent, Param
from .chance import p_miss

__all__ = ["TWO_RANDOM", "TWO_HEURISTIC", "HEURISTIC_WEIGHTS", "N_WEIGHTS", "two_bot_action",
           "two_play_deals", "W_PRISE", "W_PRISE_DECOUVERTE", "excluded_cards", "TwoBotAgent", "batch_two_bot_actions",
           "TwoRandomAgent", "TwoHeuristicAgent", "warmup"]

#: the bots' ids
TWO_RANDOM, TWO_HEURISTIC = 0, 1

#: slots of the heuristic's weight vector
W_PRISE, W_PRISE_DECOUVERTE, W_UNCOVER, W_DRAW_MASTER, W_DRAW, W_RESPONSE, W_TEMPO, \
    W_KEEP_TRUMP, W_KEEP_MASTER = range(9)
N_WEIGHTS = 9
#: the default weights (the prise thresholds in strength units, the others in points)
HEURISTIC_WEIGHTS = np.array([5.0, 4.0, 4.0, 5.0, 3.0, 3.5, 0.0, 1.0, 1.0], dtype=np.float64)

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
def _is_master(c, outside, trump):
    """No card outside ours beats ``c`` in its suit."""
    return (outside & ABOVE[trump, c]) == 0


@kernel
def _keep_value(c, mine, outside, trump, W):
    """What card ``c`` is worth kept (points-like units)."""
    s = c >> 3
    master = _is_master(c, outside, trump)
    if s == trump:
        k = (5.2 + 2.6 * CARD_ORDER[trump, c]) * W[W_KEEP_TRUMP]
        if master:
            k += 10.4 * W[W_KEEP_MASTER]
        return k
    k = 0.0
    if master and (outside & _suit(s)) != 0:
        k += 9.1 * W[W_KEEP_MASTER]
    t = 8 * s + _TEN
    a = 8 * s + _ACE
    if c != t and (mine >> t) & 1 and (outside >> a) & 1 and popcount(mine & _suit(s)) == 2:
        k += 7.8
    return k


# ----------------------------------------------------------------------- the prise
@kernel
def _strength(m, trump):
    s = 0.0
    while m:
        c = lowest_card(m)
        m &= m - 1
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
def _prise_action(V, P, me, W):
    thr = W[W_PRISE] if P[P_HAND_CARDS] else W[W_PRISE_DECOUVERTE]
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
def _play_card(V, P, me, W):
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
            c0 = lowest_card(legal)
            c1 = lowest_card(legal & (legal - 1))
            m0 = (c0 >> 3) == trump and _is_master(c0, outside, trump)
            m1 = (c1 >> 3) == trump and _is_master(c1, outside, trump)
            if m0 and not m1:
                return c1
            if m1 and not m0:
                return c0
    my_tr = mine & tm
    best = -1
    best_ev = -1e18
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        ev = -_keep_value(c, mine, outside, trump, W)
        if lead >= 0:
            V_pts = _PTS[trump, lead] + _PTS[trump, c] + last_bonus
            ev += V_pts + W[W_TEMPO] if beats(c, lead, trump) else -V_pts
        else:
            p = _p_beats_lead(c, trump, sure, poss, h)
            ev += (_PTS[trump, c] + W[W_RESPONSE] + last_bonus) * (1.0 - 2.0 * p)
            if (c >> 3) == trump:
                if opp_may_trump:
                    if _is_master(c, outside, trump):
                        ev += W[W_DRAW_MASTER]
                    elif popcount(my_tr) > opp_tr_est:
                        ev += W[W_DRAW]
                elif mine != my_tr:
                    ev -= 4.0                      # nothing to draw
        if _covers(V, me, c):
            ev += W[W_UNCOVER]
        if ev > best_ev + 1e-9:
            best_ev = ev
            best = c
    return best


# ----------------------------------------------------------------------- the bots
@kernel
def two_bot_action(bot, V, P, me, rng, W):
    """The action of bot ``bot`` for player ``me`` (to act) from his public view ``V``;
    ``rng`` (uint64[1]) his random stream, ``W`` the heuristic's weights."""
    if bot == TWO_RANDOM:
        return two_random_action(V, P, rng)
    phase = phase_of(V)
    if phase == PRISE:
        return _prise_action(V, P, me, W)
    if phase == EXCHANGE_PHASE:
        return _exchange_action(V, P, me)
    if phase == PLAY:
        return CARD_BASE + _play_card(V, P, me, W)
    return -1


@njit(cache=True)
def two_play_deals(P, states, bots, W, seeds):
    """Play every deal ``states[i]`` (in place) to its end with bot ``bots[p]`` (weights
    ``W[p]``) at player ``p``, player ``p`` of deal ``i`` seeded with ``seeds[i, p]``
    (``rng_seed(rng, seed, 0)``, as the agents' ``reset``); each decision reads the
    player's public view only. Returns 0, or ``i + 1`` for the first deal where a bot
    chose an illegal action (that deal is left before it)."""
    V = np.empty(TWO_STATE_SIZE, dtype=np.int64)
    rngs = np.zeros((N_PLAYERS, 1), dtype=np.uint64)
    for i in range(states.shape[0]):
        T = states[i]
        for p in range(N_PLAYERS):
            rng_seed(rngs[p], seeds[i, p], 0)
        while phase_of(T) != DONE:
            p = current_player(T)
            two_public_view_into(T, P, p, V)
            a = two_bot_action(bots[p], V, P, p, rngs[p], W[p])
            if a < 0 or not two_is_legal(T, P, a):
                return i + 1
            two_apply(T, P, a)
    return 0


@njit(cache=True)
def batch_two_bot_actions(bot, W, states, P, players, out):
    """``out[j]`` = the action of bot ``bot`` (weights ``W``) for player ``players[j]``
    (to act) in the public view ``states[j]``; the bot must draw no random numbers (the
    heuristic): the vector env's opponents."""
    rng = np.zeros(1, dtype=np.uint64)
    for j in range(states.shape[0]):
        out[j] = two_bot_action(bot, states[j], P, players[j], rng, W)


# ----------------------------------------------------------------------- the agents
class TwoBotAgent(Agent):
    """An agent of belote for two players that plays numba bot :attr:`numba_bot` with
    the weights :attr:`bot_weights` on the view vector. :meth:`reset` seeds ``self.rng``
    (uint64[1], splitmix64) with ``rng_seed(rng, seed, 0)``, as :func:`two_play_deals`
    seeds each player."""

    FAMILIES = ("two",)

    def __init__(self, bot: int, weights: np.ndarray = None):
        super().__init__()
        self.numba_bot = int(bot)
        self.bot_weights = np.array(HEURISTIC_WEIGHTS if weights is None else weights,
                                    dtype=np.float64)
        self.rng = np.zeros(1, dtype=np.uint64)
        self._P = None

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        self.check_rules(rules)
        super().reset(seat, rules, seed)
        self.rng = np.zeros(1, dtype=np.uint64)
        rng_seed(self.rng, seed_int64(seed), 0)
        self._P = params_vector(rules)

    def params_of(self, view) -> np.ndarray:
        """The rule vector of ``view``'s rules (the one of :meth:`reset` when they are
        the same)."""
        return self._P if self._P is not None and self.rules == view.rules \
            else params_vector(view.rules)

    def act(self, view) -> int:
        return int(two_bot_action(self.numba_bot, view.state, self.params_of(view),
                                  view.player, self.rng, self.bot_weights))


class TwoRandomAgent(TwoBotAgent):
    """Uniform over the legal actions, from its seeded stream."""

    DESCRIPTION = "uniformly random legal action"
    PARAMS = {}

    def __init__(self):
        super().__init__(TWO_RANDOM)


class TwoHeuristicAgent(TwoBotAgent):
    """The rule-based heuristic of this module."""

    DESCRIPTION = ("rule-based player in numba: prise on trump strength against the visible "
                   "cards, exchange of the 7, masters, trump drawing, cheap wins, low "
                   "discards, uncovering face-down cards")
    PARAMS = {
        "prise": Param(float, doc="belote à deux: the strength margin to take or name "
                       "(lower: takes more readily)", min=-20.0, max=30.0),
        "prise_decouverte": Param(float, doc="belote découverte: the same",
                                  min=-20.0, max=30.0),
    }

    def __init__(self, prise: float = float(HEURISTIC_WEIGHTS[W_PRISE]),
                 prise_decouverte: float = float(HEURISTIC_WEIGHTS[W_PRISE_DECOUVERTE])):
        w = HEURISTIC_WEIGHTS.copy()
        w[W_PRISE] = prise
        w[W_PRISE_DECOUVERTE] = prise_decouverte
        super().__init__(TWO_HEURISTIC, w)

    def check_rules(self, rules: RuleSet) -> None:
        """A prise margin changed from its default for the other preset (``prise`` is
        read with a hand, ``prise_decouverte`` without) would change nothing: refused."""
        super().check_rules(rules)
        if rules.hand_cards:
            unread, slot, game, read = ("prise_decouverte", W_PRISE_DECOUVERTE, "découverte",
                                        "prise")
        else:
            unread, slot, game, read = "prise", W_PRISE, "à deux", "prise_decouverte"
        if self.bot_weights[slot] != HEURISTIC_WEIGHTS[slot]:
            raise ValueError(f"heuristic: {unread} is not read under the rules {rules.name!r} "
                             f"(it is the belote {game} prise margin); set {read} instead")


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the family's
#: engine, in its chain
WARMUP_AFTER = ("coinche_rl.engine.two",)


def warmup() -> None:
    """Compile (or load from the cache) the bots and :func:`two_play_deals` (not
    :func:`batch_two_bot_actions`, compiled on first use by a vector env's heuristic
    opponents: seconds that a tournament's warm-up would spend for nothing)."""
    from ..engine.two import two_random_deal
    from ..rules import get_rules, params_vector
    for name in ("belote_a_deux", "belote_decouverte"):
        P = params_vector(get_rules(name))
        states = np.zeros((2, TWO_STATE_SIZE), dtype=np.int64)
        rng = np.zeros(1, dtype=np.uint64)
        deck = np.zeros(32, dtype=np.int64)
        for i in range(2):
            rng_seed(rng, 0, i)
            two_random_deal(states[i], P, rng, -1, deck)
        W = np.stack([HEURISTIC_WEIGHTS, HEURISTIC_WEIGHTS])
        two_play_deals(P, states, np.array([TWO_HEURISTIC, TWO_RANDOM], dtype=np.int64), W,
                       np.zeros((2, 2), dtype=np.int64))
