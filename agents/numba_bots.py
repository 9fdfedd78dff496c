"""Numba bots (``coinche_rl.agents.numba_bots``): ``random``, the rule-based ``heuristic``,
and :func:`play_deals`, which plays whole deals with a numba bot at every seat, in every
rule family: :func:`game_bot_action` is the bots' one entry point (the four-player
game's :func:`bot_action`, belote for two players' heuristic in
:mod:`~coinche_rl.agents.heuristic_two`), and the play loop, the batched actions and
the agents are written once over it and the engine's entry points (``game_*``).

A numba bot is a pure function of what its seat may know: :func:`bot_action` reads the
seat's own hand (and its own declare / belote status) and the public slots of the
engine state (dealer, auction, contract, retourne, the cards played with their trick
leaders, the current trick) and nothing else, so it returns the same action on the raw state as on
:func:`coinche_rl.engine.public_view` (``tests/test_numba_bots.py`` checks this,
and that permuting the other seats' hidden cards changes nothing). The Python agents
(:class:`RandomAgent`, :class:`HeuristicAgent`) call the same kernel on
``view.public_state``, with the same seeded stream, so a deal played through
:func:`coinche_rl.agents.base.play_deal` and one played by :func:`play_deals` make the
same choices and end in the same state: tournaments between numba bots only run
entirely in numba.

**random** (:data:`BOT_RANDOM`) draws uniformly among the legal actions from the seat's
splitmix64 stream; **heuristic** (:data:`BOT_HEURISTIC`) is a deterministic rule-based
player: its knowledge, card play, bidding and how its constants were tuned are in
``docs/heuristic.md``.

The heuristic's parameters travel inside the bot id (:func:`heuristic_bot`): bits 0-7
are the bot kind, bits 8-15 a signed bidding offset in points, bit 16 switches coinche
and surcoinche off; with two players (:func:`heuristic_two_bot`) bits 24-39 and 40-55
move its prise margins (belote à deux, découverte) in signed hundredths. The default
heuristic is plainly :data:`BOT_HEURISTIC` in every family.

With two players a bot reads the player's public view
(:func:`coinche_rl.engine.two.two_public_view_into`), which :func:`play_deals` builds
for each decision (the agents get it as ``view.state``).

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> import numpy as np
>>> deal = Deal("ffb", seed=3, dealer=0)
>>> states = deal.state[None, :].copy()
>>> bots = np.array([BOT_HEURISTIC, BOT_RANDOM, BOT_HEURISTIC, BOT_RANDOM])
>>> seeds = np.array([[11, 12, 13, 14]])
>>> play_deals(deal.params, states, bots, seeds)
0
>>> agents = [make_agent(s) for s in ("heuristic", "random", "heuristic", "random")]
>>> result = play_deal(deal, agents, seeds=[11, 12, 13, 14])
>>> bool((deal.state == states[0]).all())
True
"""

from __future__ import annotations

import math
from typing import Union

import numpy as np
from numba import njit

from ..actions import (BELOTE, BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, DECLARE, NO_DECLARE,
                       N_ACTIONS, PASS, SURCOINCHE, TAKE)
from ..engine import game_new_deal, game_phase, game_to_act, family_of
from ..engine.two import two_apply, two_is_legal, two_public_view_into, two_random_action
from ..engine import (pending_choice, random_action, strain_allowed, apply_legal_action,
                      auction_action, auction_length, beats, belote_pairs, cards_in_trick,
                      coinche_level, contract_is_capot, contract_of, contract_strain,
                      current_seat, deal_into, dealer_of, hand_declarations, hand_of,
                      is_legal, kernel, legal_play_mask, low_carre_seats, lowest_card,
                      open_bid_values, phase_of, played_cards, popcount, prise_options,
                      retourne_of, rng_below, rng_seed, seat_declaration_points,
                      set_contract, team_card_points, trick_card, trick_leader, trick_number,
                      winning_card, winning_seat)
from ..engine import seed_int64 as _int64
from ..engine import AUCTION, DONE, MAX_AUCTION, STATE_SIZE
from ..rules import (ABOVE, ALL_CARD_POINTS, AT, BELOTE_POINTS, CAPOT_POINTS, CAPOT_VALUE,
                     CARD_ORDER, DEAL_POINTS, MIN_BID_VALUE, NT, P_AT_TABLE, P_BID_ONLY,
                     P_CARRE_LOW_CANCELS, P_COUNT_BELOTE, P_COUNT_DECLARATIONS, P_DECLARATIONS,
                     P_DECL_SHARE, P_FAIL_BASE, P_FAMILY, TRUMP_SUIT_MASK, RuleSet, four_player_rules,
                     params_vector, FAMILY_TWO, P_HAND_CARDS, get_rules)
from ..rules import CARDS_PER_HAND, N_SEATS, N_TRICKS, seat_after
from ..rules import partner as partner_of
from ..rules import team as team_of
from ..cards import N_CARDS, N_RANKS, N_SUITS
from ..inference import inferred_voids_ceilings
from ..records import game_classes
from .base import Agent, Param, PlayerView
from .chance import is_master as _is_master, keep_master_trump, p_miss
from . import heuristic_two

__all__ = ["BOT_RANDOM", "BOT_HEURISTIC", "BOT_NAMES", "bot_action", "game_bot_action",
           "play_deals", "heuristic_bot", "heuristic_two_bot", "bot_kind", "bot_name",
           "NumbaBotAgent", "HeuristicAgent", "TwoHeuristicAgent",
           "deal_states", "fit_hand_values", "HAND_COEF", "HAND_SIGMA",
           "warmup", "batch_bot_actions"]

BOT_RANDOM = 0
BOT_HEURISTIC = 1
BOT_NAMES = ("random", "heuristic")

_KIND_MASK = 0xFF
_NO_COINCHE_BIT = 1 << 16
#: where the two-player heuristic's prise margins (signed hundredths) sit in its id
_PRISE_SHIFTS = (24, 40)
_PRISE_NAMES = ("prise", "prise_decouverte")
#: their defaults (``heuristic_two.HEURISTIC_WEIGHTS``)
_PRISE_DEFAULTS = tuple(h / 100 for h in heuristic_two._PRISE_HUNDREDTHS)
_FULL = 0xFFFFFFFF


def heuristic_bot(aggression: int = 0, coinche: bool = True) -> int:
    """The bot id of a heuristic with these parameters (``heuristic_bot() ==
    BOT_HEURISTIC``).

    :param aggression: points added to the bot's estimate of its side's total in the
        auction, -100..100 (positive: bids higher and more often, coinches more readily
        and surcoinches more; negative: more cautious).
    :param coinche: whether the bot may coinche and surcoinche.
    :raises ValueError: for an out-of-range aggression.

    >>> heuristic_bot(), heuristic_bot(aggression=-10) == BOT_HEURISTIC
    (1, False)
    >>> bot_name(heuristic_bot(aggression=20, coinche=False))
    'heuristic:aggression=20,coinche=false'
    """
    if isinstance(aggression, bool) or not isinstance(aggression, (int, np.integer)) \
            or not -100 <= aggression <= 100:
        raise ValueError(f"aggression must be an integer in -100..100, not {aggression!r}")
    return BOT_HEURISTIC | ((int(aggression) & 0xFF) << 8) | (0 if coinche else _NO_COINCHE_BIT)


def bot_kind(bot: int) -> int:
    """The bot kind (:data:`BOT_RANDOM`, :data:`BOT_HEURISTIC`) of a bot id."""
    return int(bot) & _KIND_MASK


def bot_name(bot: int) -> str:
    """The spec string of a bot id (``"random"``, ``"heuristic:aggression=20"``).

    :raises ValueError: for an unknown bot kind.
    """
    kind = bot_kind(bot)
    if kind >= len(BOT_NAMES):
        raise ValueError(f"unknown numba bot id {bot!r}: its kind {kind} is not one of "
                         f"{', '.join(f'{i} ({n})' for i, n in enumerate(BOT_NAMES))}")
    name = BOT_NAMES[kind]
    if kind != BOT_HEURISTIC:
        return name
    agg = (int(bot) >> 8) & 0xFF
    agg = agg - 256 if agg >= 128 else agg
    parts = []
    if agg:
        parts.append(f"aggression={agg}")
    if int(bot) & _NO_COINCHE_BIT:
        parts.append("coinche=false")
    for key, shift in zip(_PRISE_NAMES, _PRISE_SHIFTS):
        off = _signed16(int(bot) >> shift)
        if off:
            default = heuristic_two._PRISE_HUNDREDTHS[_PRISE_SHIFTS.index(shift)]
            parts.append(f"{key}={(default + off) / 100:g}")
    return name + (":" + ",".join(parts) if parts else "")


def _signed16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x >= 0x8000 else x


def heuristic_two_bot(prise: float = None, prise_decouverte: float = None) -> int:
    """The bot id of belote for two players' heuristic (:mod:`.heuristic_two`) with these
    prise margins (None: the default, ``HEURISTIC_WEIGHTS``), each read to the hundredth
    (``heuristic_two_bot() == BOT_HEURISTIC``).

    :raises ValueError: a margin outside -20..30 or with more than two decimals.

    >>> bot_name(heuristic_two_bot(prise=3.5))
    'heuristic:prise=3.5'
    """
    bot = BOT_HEURISTIC
    for i, (key, v) in enumerate(((_PRISE_NAMES[0], prise), (_PRISE_NAMES[1], prise_decouverte))):
        if v is None:
            continue
        h = round(float(v) * 100)
        if not -20.0 <= float(v) <= 30.0 or abs(float(v) * 100 - h) > 1e-6:
            raise ValueError(f"{key} must be a number in -20..30 given to the hundredth, "
                             f"not {v!r}")
        bot |= ((h - heuristic_two._PRISE_HUNDREDTHS[i]) & 0xFFFF) << _PRISE_SHIFTS[i]
    return bot


@njit(cache=True, inline="always")
def _aggression(bot):
    off = (bot >> 8) & 0xFF
    if off >= 128:
        off -= 256
    return off


# ================================================================ hand model (bidding)
# Feature kinds: the strain family and how many cards are known (8 dealt; classic: the
# five cards and the retourne).
K_SUIT, K_NT, K_AT, K_SUIT6, K_NT6, K_AT6 = range(6)
N_FEATURES = 12
#: team points of an average partnership (half of the 162)
AVG_TEAM = DEAL_POINTS / 2
#: a bid of ``v`` is read as showing a team total of about ``v + SHOWN_MARGIN`` (the
#: convention by which the bot reads its partner's and the opponents' bids; tuned in
#: self-play, and close to what its own bids show: its takers' totals, belote and
#: declarations included, average 37 above the bid under ``ffb``)
SHOWN_MARGIN = 35.0
#: coinche when the opponents' contract fails with at least this probability
COINCHE_P_FAIL = 0.6

#: ``HAND_COEF[kind]``: intercept then the weights of the 12 features of
#: :func:`_hand_features` (card points of the taker's team, dix de der and capot
#: included, with an average partner). Output of ``fit_hand_values(kind, 60000,
#: seed=kind)`` rounded to 0.1 (least squares on deals played by this bot: suits under
#: ``ffb``, NT / AT under ``ffb_sa_ta``, six known cards under ``vip_classic``); refit
#: when the card play changes.
HAND_COEF = np.array([
    # suit: 1, J, 9, A, 10, small trumps, trumps > 3, J+9, side A, side A+10,
    #       side 10 guarded, voids, singletons
    [39.0, 30.8, 19.2, 14.3, 12.4, 10.1, 5.4, 4.6, 13.1, 3.5, 3.6, 8.2, 0.7],
    # NT: 1, A, A+10, 10 guarded, K with A, long suit run, voids, K guarded, Q, J, -, -, -
    [55.5, 18.6, 6.7, 6.6, 2.1, 0.8, 1.8, 3.2, 0.2, 0.1, 0.0, 0.0, 0.0],
    # AT: 1, J, 9, 9 with J, A, 10, long (>3), J alone, A with J or 9, K, -, -, -
    [54.2, 16.8, 6.1, 1.2, 2.3, 1.3, -0.6, 0.2, 2.6, 0.2, 0.0, 0.0, 0.0],
    # the same three with six known cards (classic family)
    [49.7, 30.8, 20.3, 14.9, 13.2, 10.3, 4.4, 3.5, 11.5, 3.2, 3.6, 2.9, 0.5],
    [66.4, 16.3, 6.5, 5.6, 1.1, 3.2, 0.2, 2.7, -0.2, -0.4, 0.0, 0.0, 0.0],
    [62.1, 15.6, 6.1, 0.8, 2.3, 1.3, -0.9, 0.2, 1.9, 0.3, 0.0, 0.0, 0.0],
], dtype=np.float64)
#: points added to the classic prise estimate (tuned in duplicate self-play: +5..+10
#: beat 0 by about 2.5 points per deal under ``classic`` and ``vip_classic``)
PRISE_BONUS = 7.0
#: residual standard deviation of each fit (the spread of the team total around it)
HAND_SIGMA = np.array([35.2, 31.7, 37.0, 37.3, 33.2, 37.4], dtype=np.float64)


@njit(cache=True, _nrt=False, inline="always")
def _aces_tens(m):
    """Of a suit's rank mask ``m``: its length, and 0 / 1 for its ace, its ace with the
    ten, and its ten guarded (not alone) without the ace."""
    n = popcount(m)
    a = (m >> 7) & 1
    t = (m >> 3) & 1
    return n, a, a & t, 1 if t and not a and n >= 2 else 0


@kernel
def _hand_features(h, strain):
    """The 12 features of hand ``h`` (card mask, 5 to 8 cards) for ``strain`` (0..5):
    see :data:`HAND_COEF` for their meaning by strain family."""
    f0 = f1 = f2 = f3 = f4 = f5 = f6 = f7 = f8 = f9 = f10 = f11 = 0
    if strain < 4:
        trm = (h >> (8 * strain)) & 0xFF
        J = (trm >> 4) & 1
        N9 = (trm >> 2) & 1
        A_ = (trm >> 7) & 1
        T_ = (trm >> 3) & 1
        ntr = popcount(trm)
        f0 = J
        f1 = N9
        f2 = A_
        f3 = T_
        f4 = ntr - J - N9 - A_ - T_
        f5 = ntr - 3 if ntr > 3 else 0
        f6 = J & N9
        for s in range(N_SUITS):
            if s == strain:
                continue
            n, a, at, tg = _aces_tens((h >> (8 * s)) & 0xFF)
            if n == 0:
                f10 += 1
                continue
            if n == 1:
                f11 += 1
            f7 += a
            f8 += at
            f9 += tg
        return f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11
    if strain == NT:
        for s in range(N_SUITS):
            m = (h >> (8 * s)) & 0xFF
            n, a, at, tg = _aces_tens(m)
            if n == 0:
                f5 += 1
                continue
            k = (m >> 6) & 1
            f0 += a
            f1 += at
            f2 += tg
            if k and a:
                f3 += 1
            elif k and n >= 3:
                f6 += 1
            if at and n > 3:
                f4 += n - 3
            f7 += (m >> 5) & 1
            f8 += (m >> 4) & 1
        return f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11
    # AT
    for s in range(N_SUITS):
        m = (h >> (8 * s)) & 0xFF
        n = popcount(m)
        j = (m >> 4) & 1
        n9 = (m >> 2) & 1
        a = (m >> 7) & 1
        f0 += j
        f1 += n9
        if j and n9:
            f2 += 1
        f3 += a
        f4 += (m >> 3) & 1
        if n > 3:
            f5 += n - 3
        if j and n == 1:
            f6 += 1
        if a and (j or n9):
            f7 += 1
        f8 += (m >> 6) & 1
    return f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11


@kernel
def _feature_kind(strain, known_cards):
    base = K_SUIT if strain < 4 else (K_NT if strain == NT else K_AT)
    if known_cards < CARDS_PER_HAND:
        base += 3
    return base


@kernel
def _card_estimate(h, strain, known_cards):
    """Expected card points of the team (average partner) with ``h`` in ``strain``."""
    kind = _feature_kind(strain, known_cards)
    f = _hand_features(h, strain)
    e = HAND_COEF[kind, 0]
    for k in range(N_FEATURES):
        e += HAND_COEF[kind, k + 1] * f[k]
    return e


@kernel
def _belote_points(h, strain):
    """Belote points held by ``h`` under ``strain`` (K + Q of a trump suit)."""
    return BELOTE_POINTS * belote_pairs(h, strain)[1]


@kernel
def _own_estimate(h, strain, known_cards, P):
    """The team total for the made conditions, with ``h`` and an average partner:
    card points, the belote, and half the hand's declarations, as the preset counts
    them."""
    e = _card_estimate(h, strain, known_cards)
    if P[P_COUNT_BELOTE]:
        e += _belote_points(h, strain)
    if P[P_DECLARATIONS] and P[P_COUNT_DECLARATIONS]:
        pts, key, used, low = hand_declarations(h, strain, P[P_DECL_SHARE])
        if not (low and P[P_CARRE_LOW_CANCELS]):
            e += 0.5 * pts
    return e


@njit(cache=True, inline="always")
def _phi(x):
    """Standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x * 0.7071067811865476))


@kernel
def _bid_ev(E, need, value, sigma, P):
    """Expected score difference (takers minus defenders) of a contract worth ``value``
    that needs a total ``need``, the team total ~ N(E, sigma): made, the takers score
    their total and the bid, the defenders the rest; failed, the defenders score the
    fail base and the bid."""
    p = _phi((E - need + 0.5) / sigma)
    made = 2.0 * max(E, need) - DEAL_POINTS + value
    fail = -(P[P_FAIL_BASE] + value)
    return p * made + (1.0 - p) * fail


@kernel
def _shown(S, seat, strain):
    """What the auction shows for ``strain``, read by ``seat``: ``(partner, opponents)``,
    how much the partner's hand holds above an average one by the convention (a bid of
    ``v`` shows a team total ``v + SHOWN_MARGIN`` given what its partner had shown), and
    the most any opponent showed in the strain."""
    dealer = dealer_of(S)
    n = min(auction_length(S), MAX_AUCTION)
    me = 0.0
    partner = 0.0
    opp = 0.0
    for i in range(n):
        a = auction_action(S, i)
        if a < BID_BASE or a >= CAPOT_BASE:
            continue
        if (a - BID_BASE) % 6 != strain:
            continue
        v = 80.0 + 10.0 * ((a - BID_BASE) // 6)
        b = seat_after(dealer, 1 + i)
        if b == seat:
            me = v + SHOWN_MARGIN - AVG_TEAM - partner
        elif b == partner_of(seat):
            partner = v + SHOWN_MARGIN - AVG_TEAM - me
        else:
            x = v + SHOWN_MARGIN - AVG_TEAM
            if x > opp:
                opp = x
    return partner, opp


@kernel
def _team_estimate(S, P, seat, h, strain, known_cards, agg):
    """The team total in ``strain``: the hand's own estimate, plus what the partner
    showed in the strain, minus what the opponents showed in it (their trumps are not
    ours), plus the aggression offset."""
    e = _own_estimate(h, strain, known_cards, P)
    partner, opp = _shown(S, seat, strain)
    return e + partner - opp + agg


@kernel
def _need(P, value):
    """Total the takers need for a numeric contract ``value``."""
    if P[P_BID_ONLY] != 0:
        return float(value)
    return max(float(value), 82.0)


@kernel
def _likely_trick(h, strain):
    """Whether ``h`` holds a likely trick against a capot in ``strain``."""
    if strain < 4:
        if (h >> (8 * strain + 4)) & 1:
            return True
        tr = (h >> (8 * strain)) & 0xFF
        if (tr >> 2) & 1 and popcount(tr) >= 2:
            return True
        for s in range(N_SUITS):
            if s != strain and (h >> (8 * s + 7)) & 1:
                return True
        return False
    top = 7 if strain == NT else 4       # A at NT, J at AT
    for s in range(N_SUITS):
        if (h >> (8 * s + top)) & 1:
            return True
    return False


@kernel
def _auction_action(S, P, seat, bot):
    """The heuristic's auction action (coinche family)."""
    h = hand_of(S, seat)
    agg = float(_aggression(bot))
    may_coinche = (bot & _NO_COINCHE_BIT) == 0
    cur_value, cur_strain, bid_seat = contract_of(S)
    coinche = coinche_level(S)
    capot = contract_is_capot(S)
    ours = bid_seat >= 0 and team_of(bid_seat) == team_of(seat)
    if coinche == 1:
        # our contract was coinched: surcoinche when very likely made
        if ours and may_coinche:
            E = _team_estimate(S, P, seat, h, cur_strain, np.int64(CARDS_PER_HAND), agg) - 15.0
            sig = HAND_SIGMA[_feature_kind(cur_strain, np.int64(CARDS_PER_HAND))]
            if capot:
                p = 0.0
            else:
                p = _phi((E - _need(P, cur_value) + 0.5) / sig)
            if p > 0.8:
                return SURCOINCHE
        return PASS
    # opponents hold the contract: coinche?
    if bid_seat >= 0 and not ours and may_coinche:
        if capot:
            if _likely_trick(h, cur_strain):
                return COINCHE
        else:
            mine = _own_estimate(h, cur_strain, np.int64(CARDS_PER_HAND), P) - AVG_TEAM
            partner, opp = _shown(S, seat, cur_strain)
            # the takers showed their total; my strength in their strain (and my
            # partner's, if he bid it) comes off it
            mu = cur_value + SHOWN_MARGIN - 0.8 * mine - 0.5 * partner - agg
            sig = HAND_SIGMA[_feature_kind(cur_strain, np.int64(CARDS_PER_HAND))]
            p_fail = 1.0 - _phi((mu - _need(P, cur_value) + 0.5) / sig)
            if p_fail > COINCHE_P_FAIL:
                return COINCHE
    if capot:
        return PASS
    # the best bid by expected score, against the current contract's (ours) or 0
    baseline = 0.0
    if ours:
        E0 = _team_estimate(S, P, seat, h, cur_strain, np.int64(CARDS_PER_HAND), agg)
        sig0 = HAND_SIGMA[_feature_kind(cur_strain, np.int64(CARDS_PER_HAND))]
        baseline = _bid_ev(E0, _need(P, cur_value), float(cur_value), sig0, P)
    values = open_bid_values(S, P)
    best_a = PASS
    best_ev = baseline + 5.0
    for st in range(6):
        if not strain_allowed(P, st):
            continue
        E = _team_estimate(S, P, seat, h, st, np.int64(CARDS_PER_HAND), agg)
        sig = HAND_SIGMA[_feature_kind(st, np.int64(CARDS_PER_HAND))]
        m = values
        while m:
            vi = lowest_card(m)
            m &= m - 1
            v = MIN_BID_VALUE + 10 * vi
            if v > E + 10.0:
                break
            ev = _bid_ev(E, _need(P, v), float(v), sig, P)
            if ev > best_ev:
                best_ev = ev
                best_a = BID_BASE + 6 * vi + st
        # capot: only with an overwhelming estimate
        if E >= 200.0:
            ev = _phi((E - 215.0) / sig) * (2.0 * CAPOT_POINTS - DEAL_POINTS + CAPOT_VALUE) - \
                (1.0 - _phi((E - 215.0) / sig)) * (P[P_FAIL_BASE] + CAPOT_VALUE)
            if ev > best_ev:
                best_ev = ev
                best_a = CAPOT_BASE + st
    return best_a


@kernel
def _prise_action(S, P, seat, bot):
    """The heuristic's prise (classic family): take, name a strain, or pass."""
    h = hand_of(S, seat)
    ret = retourne_of(S)
    known = h | (1 << ret)
    n_known = popcount(known)
    agg = float(_aggression(bot))
    opts = prise_options(S, P)
    best_a = PASS
    best_ev = 0.0
    for b in range(7):
        if not (opts >> b) & 1:
            continue
        st = (ret >> 3) if b == 0 else b - 1
        E = _own_estimate(known, st, n_known, P) + PRISE_BONUS + agg
        sig = HAND_SIGMA[_feature_kind(st, n_known)]
        p = _phi((E - 81.5) / sig)
        ev = p * (2.0 * max(E, 82.0) - DEAL_POINTS) - (1.0 - p) * (P[P_FAIL_BASE] + 20.0)
        if ev > best_ev:
            best_ev = ev
            best_a = TAKE + b
    return best_a


# ==================================================================== card play
@kernel
def _knowledge(S, P, strain):
    """``(voids, caps)`` from the cards played (:func:`coinche_rl.inference.
    inferred_voids_ceilings`): bit ``4 p + s`` of ``voids`` when seat ``p`` showed void in
    suit ``s``; nibble ``p`` of ``caps``: in a suit contract, seat ``p`` holds no trump of
    strength >= it (8: nothing known)."""
    voids, ceilings = inferred_voids_ceilings(S, P, strain)
    if strain >= 4:
        return voids, 0x8888
    caps = 0
    for p in range(N_SEATS):
        caps |= ((ceilings >> (16 * p + 4 * strain)) & 15) << (4 * p)
    return voids, caps


@kernel
def _possible(unk, voids, caps, p, strain):
    """Cards of ``unk`` that seat ``p`` may hold."""
    m = unk
    vs = (voids >> (4 * p)) & 15
    for s in range(N_SUITS):
        if (vs >> s) & 1:
            m &= ~(0xFF << (8 * s))
    if strain < 4:
        cap = (caps >> (4 * p)) & 15
        if cap < 8:
            for r in range(N_RANKS):
                c = 8 * strain + r
                if CARD_ORDER[strain, c] >= cap:
                    m &= ~(1 << c)
    return m


@kernel
def _hand_size(S, p):
    """Cards seat ``p`` still holds (public: the cards dealt minus the cards it played)."""
    tn = trick_number(S)
    n = cards_in_trick(S)
    played = tn
    leader = trick_leader(S, tn)
    if seat_after(p, -leader) < n:
        played += 1
    return CARDS_PER_HAND - played


@kernel
def _p_beat(poss, h, w, led, strain):
    """Chance that a seat that may hold ``poss`` (``h`` cards) beats ``w``, the card
    winning a trick of suit ``led``: a higher card of the suit, or a trump when void."""
    U = popcount(poss)
    if U == 0 or h <= 0:
        return 0.0
    if U < h:
        h = U
    ledm = 0xFF << (8 * led)
    k_led = popcount(poss & ledm)
    hi = popcount(poss & ABOVE[strain, w])
    if (w >> 3) == led:
        p = 1.0 - p_miss(U, hi, h)
        if strain < 4 and led != strain:
            tr = popcount(poss & TRUMP_SUIT_MASK[strain])
            if tr > 0:
                p += p_miss(U, k_led, h) * (1.0 - p_miss(U - k_led, tr, h))
        return min(p, 1.0)
    if hi == 0:
        return 0.0
    return p_miss(U, k_led, h) * (1.0 - p_miss(U - k_led, hi, h))


@kernel
def _keep_value(c, hand, unk, strain):
    """What card ``c`` is worth kept in hand (points-like units)."""
    s = c >> 3
    master = _is_master(c, unk, strain)
    if strain == AT or (strain < 4 and s == strain):
        k = 5.2 + 2.6 * CARD_ORDER[strain, c]
        if master:
            k += 10.4
        return k
    k = 0.0
    if master and (unk & (0xFF << (8 * s))) != 0:
        k += 9.1
    # the last guard of a ten whose ace is out
    t = 8 * s + 3
    a = 8 * s + 7
    if c != t and (hand >> t) & 1 and (unk >> a) & 1 and popcount(hand & (0xFF << (8 * s))) == 2:
        k += 7.8
    return k


@kernel
def _top(m, strain):
    """The strongest card of mask ``m`` (by strength within its suit)."""
    best = -1
    bo = -1
    while m:
        c = lowest_card(m)
        m &= m - 1
        o = CARD_ORDER[strain, c]
        if o > bo:
            bo = o
            best = c
    return best


@kernel
def _bottom(m, strain, pts):
    """The weakest card of ``m``: fewest points, then lowest strength."""
    best = -1
    bk = 1 << 30
    while m:
        c = lowest_card(m)
        m &= m - 1
        k = pts[c] * 16 + CARD_ORDER[strain, c]
        if k < bk:
            bk = k
            best = c
    return best


@kernel
def _play_card(S, P, seat):
    """The heuristic's card (see the module docstring)."""
    legal = legal_play_mask(S, P)
    if legal & (legal - 1) == 0:
        return lowest_card(legal)
    strain = contract_strain(S)
    pts = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    hand = hand_of(S, seat)
    unk = _FULL & ~played_cards(S) & ~hand
    voids, caps = _knowledge(S, P, strain)
    partner = partner_of(seat)
    o1 = seat_after(seat, 1)
    o3 = seat_after(seat, 3)
    poss_p = _possible(unk, voids, caps, partner, strain)
    poss_1 = _possible(unk, voids, caps, o1, strain)
    poss_3 = _possible(unk, voids, caps, o3, strain)
    h_p = _hand_size(S, partner)
    h_1 = _hand_size(S, o1)
    h_3 = _hand_size(S, o3)
    tn = trick_number(S)
    n = cards_in_trick(S)
    tm = TRUMP_SUIT_MASK[strain]
    we_take = team_of(contract_of(S)[2]) == team_of(seat)
    last_bonus = 10.0 if tn == N_TRICKS - 1 else 0.0
    if n == 0:
        return _lead(S, seat, hand, unk, strain, pts, tm, we_take, poss_p, poss_1, poss_3,
                     h_p, h_1, h_3, tn, last_bonus)
    leader = trick_leader(S, tn)
    led = trick_card(S, tn, 0) >> 3
    w = winning_card(S)
    ws = winning_seat(S)
    on_table = 0.0
    for k in range(n):
        on_table += pts[trick_card(S, tn, k)]
    rest = N_SEATS - 1 - n                     # players after me
    best = -1
    best_ev = -1e18
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        if beats(c, w, strain):
            wc = c
            us = True
        else:
            wc = w
            us = team_of(ws) == team_of(seat)
        if us:                       # the opponents after me must not beat it
            p_us = 1.0
            if rest >= 1:
                p_us *= 1.0 - _p_beat(poss_1, h_1, wc, led, strain)
            if rest == N_SEATS - 1:
                p_us *= 1.0 - _p_beat(poss_3, h_3, wc, led, strain)
        else:
            p_us = 0.0
            if rest >= 2:            # the partner plays after me
                p_us = _p_beat(poss_p, h_p, wc, led, strain)
                if rest == N_SEATS - 1:
                    p_us *= 0.6
        V = on_table + pts[c] + 3.0 * rest + last_bonus
        ev = V * (2.0 * p_us - 1.0) - _keep_value(c, hand, unk, strain)
        if strain < 4 and (c >> 3) == strain and led != strain and not us:
            ev -= 2.0
        if ev > best_ev + 1e-9:
            best_ev = ev
            best = c
    return best


@kernel
def _lead(S, seat, hand, unk, strain, pts, tm, we_take, poss_p, poss_1, poss_3, h_p, h_1,
          h_3, tn, last_bonus):
    """The heuristic's lead."""
    opp_poss = poss_1 | poss_3
    my_tr = hand & tm
    pbid = _partner_suits(S, seat)
    # two cards left: keep a sure winner for the last trick (dix de der)
    if popcount(hand) == 2 and (opp_poss & tm) == 0:
        keep = keep_master_trump(hand, unk, strain)
        if keep >= 0:
            return keep
    # the taker's side draws trumps while the defenders may hold some
    if strain < 4 and we_take and my_tr != 0 and (opp_poss & tm) != 0:
        top = _top(my_tr, strain)
        if _is_master(top, unk, strain):
            return top
        if popcount(my_tr) >= 2:
            return _bottom(my_tr, strain, pts)
    best, best_ev = -1, -1e18
    m = hand
    while m:
        c = lowest_card(m)
        m &= m - 1
        s = c >> 3
        p_no = (1.0 - _p_beat(poss_1, h_1, c, s, strain)) * \
            (1.0 - _p_beat(poss_3, h_3, c, s, strain))
        V = pts[c] + 6.0 + last_bonus
        ev = V * (2.0 * p_no - 1.0) - _keep_value(c, hand, unk, strain)
        suit_m = hand & (0xFF << (8 * s))
        if not we_take and (pbid >> s) & 1 and not (strain < 4 and s == strain):
            ev += 6.0
        if strain < 4 and s == strain:
            if not we_take and hand != my_tr:
                ev -= 10.0
        else:
            # a singleton when holding trumps: ruff later
            if my_tr != 0 and popcount(suit_m) == 1 and not _is_master(c, unk, strain):
                ev += 3.0
            # do not open a suit guarded by a ten whose ace is out
            t = 8 * s + 3
            if c != t and (hand >> t) & 1 and (unk >> (8 * s + 7)) & 1:
                ev -= 5.0
        if ev > best_ev + 1e-9:
            best_ev = ev
            best = c
    return best


@kernel
def _partner_suits(S, seat):
    """Suit bits of the suits the partner bid (coinche-family auction)."""
    m = 0
    partner = partner_of(seat)
    for i in range(min(auction_length(S), MAX_AUCTION)):
        a = auction_action(S, i)
        if seat_after(dealer_of(S), 1 + i) == partner and a >= BID_BASE and a < CAPOT_BASE:
            st = (a - BID_BASE) % 6
            if st < 4:
                m |= 1 << st
    return m


# ==================================================================== the bots
@kernel
def _heuristic_action(S, P, seat, bot):
    phase = phase_of(S)
    if phase == AUCTION:
        if P[P_FAMILY] != 0:
            return _prise_action(S, P, seat, bot)
        return _auction_action(S, P, seat, bot)
    pend = pending_choice(S, P)
    if pend == 1:
        low = (low_carre_seats(S) >> seat) & 1
        if seat_declaration_points(S, seat) > 0 and not (low and P[P_CARRE_LOW_CANCELS]):
            return DECLARE
        return NO_DECLARE
    if pend == 2:
        return BELOTE
    return CARD_BASE + _play_card(S, P, seat)


@kernel
def bot_action(bot, S, P, seat, rng, buf):
    """The action of numba bot ``bot`` (a bot id: :data:`BOT_RANDOM`,
    :data:`BOT_HEURISTIC` or :func:`heuristic_bot`) for ``seat``, the seat to act in
    state ``S`` (int64[STATE_SIZE]; the raw state or the seat's public state give the
    same action). ``rng``: uint64[1], the seat's splitmix64 stream (the random bot draws
    from it; the heuristic does not); ``buf``: uint8[N_ACTIONS] scratch space. Returns
    an action id, always legal."""
    kind = bot & _KIND_MASK
    if kind == BOT_HEURISTIC:
        return _heuristic_action(S, P, seat, bot)
    return random_action(S, P, rng, buf, -1.0)


@kernel
def _prise_hundredths(bot, P):
    """The two-player heuristic's prise margin offset in bot id ``bot`` for the rules ``P``."""
    off = (bot >> (_PRISE_SHIFTS[0] if P[P_HAND_CARDS] else _PRISE_SHIFTS[1])) & 0xFFFF
    return off - 0x10000 if off >= 0x8000 else off


@kernel
def _bot_action_two(bot, V, P, me, rng, buf):
    """Numba bot ``bot`` of belote for two players: its heuristic
    (:func:`.heuristic_two.heuristic_action`) or a random legal action, for player ``me``
    (to act) from his public view ``V``."""
    if bot & _KIND_MASK == BOT_HEURISTIC:
        return heuristic_two.heuristic_action(
            V, P, me, heuristic_two.prise_threshold(P, _prise_hundredths(bot, P)))
    return two_random_action(V, P, rng)


# The play loop and the batched actions are written once, over the family's bots and rules
# passed as arguments (``_act_*``, ``_play_*``): their bodies are inlined into one cached
# kernel per family, whose signatures hold arrays only (a dispatcher in a cached signature
# breaks numba's cache index: see :mod:`coinche_rl.envs.kernels`), so that a family
# compiles its own bots and rules only (the other family's cost a first run seconds). The
# bodies allocate nothing (the callers pass the scratch): inlined into a kernel that
# allocates, their arrays were reference counted, 8% slower.
_specialised = njit(_nrt=False, inline="always")


@_specialised
def _act_four(bot, S, P, seat, rng, buf, V):
    return bot_action(bot, S, P, seat, rng, buf)


@_specialised
def _bot_action_two_view(bot, V, P, seat, rng, buf, _):
    return _bot_action_two(bot, V, P, seat, rng, buf)


@_specialised
def _act_two(bot, S, P, seat, rng, buf, V):
    two_public_view_into(S, P, seat, V)
    return _bot_action_two(bot, V, P, seat, rng, buf)


@_specialised
def _play_four(S, P, a):
    if not is_legal(S, P, a):
        return False
    apply_legal_action(S, P, a)
    return True


@_specialised
def _play_two(S, P, a):
    if a < 0 or not two_is_legal(S, P, a):
        return False
    two_apply(S, P, a)
    return True


@_specialised
def _play_deals_with(act, play, P, states, bots, seeds, rngs, buf, V):
    """The body of :func:`play_deals`, with the family's bots ``act(bot, S, P, seat, rng,
    buf, V)`` and ``play(S, P, a)`` (apply ``a`` if legal: whether it was); ``rngs``
    (uint64[players, 1]), ``buf`` (uint8[N_ACTIONS]), ``V`` (a state: the public view of
    the bots that read one) are scratch."""
    for i in range(states.shape[0]):
        S = states[i]
        for s in range(bots.shape[0]):
            rng_seed(rngs[s], seeds[i, s], np.int64(0))
        while game_phase(S, P) != DONE:
            cur = game_to_act(S, P)
            if not play(S, P, act(bots[cur], S, P, cur, rngs[cur], buf, V)):
                return i + 1
    return 0


@kernel
def play_deals_four(P, states, bots, seeds, rngs, buf, V):
    """:func:`play_deals` of the four-player game, callable from numba (with the
    scratch of :func:`_play_deals_with`)."""
    return _play_deals_with(_act_four, _play_four, P, states, bots, seeds, rngs, buf, V)


@kernel
def play_deals_two(P, states, bots, seeds, rngs, buf, V):
    """:func:`play_deals` of belote for two players, callable from numba (with the
    scratch of :func:`_play_deals_with`)."""
    return _play_deals_with(_act_two, _play_two, P, states, bots, seeds, rngs, buf, V)


def play_deals(P, states, bots, seeds) -> int:
    """Play ``states`` (int64[N, state size], engine states of the rules ``P``'s family,
    not over) to their end **in place**, numba bot ``bots[seat]`` at each seat (or
    player). At the start of deal ``i`` each seat's stream is seeded ``rng_seed(rng,
    seeds[i, seat], 0)`` (``seeds``: int64[N, players]), as :meth:`NumbaBotAgent.reset`
    does; with two players each decision reads the player's public view. Returns 0, or
    ``i + 1`` when a bot chose an illegal action in deal ``i`` (which is then left
    unfinished and the rest unplayed; never expected). The family's kernel
    (:func:`play_deals_four`, :func:`play_deals_two`) does it."""
    kernel_ = play_deals_two if P[P_FAMILY] == FAMILY_TWO else play_deals_four
    return int(kernel_(P, states, bots, seeds, *_scratch(states.shape[1])))


def _scratch(state_size: int):
    """``(rngs, buf, V)``: the scratch of the play loop and the batched actions."""
    return (np.zeros((N_SEATS, 1), dtype=np.uint64), np.zeros(N_ACTIONS, dtype=np.uint8),
            np.zeros(state_size, dtype=np.int64))


#: each family's bot kernel ``f(bot, S, P, seat, rng, buf)`` (``S``: the seat's public
#: state; the four-player game's also takes the raw state), by ``P[P_FAMILY] == FAMILY_TWO``
BOT_ACTIONS = (bot_action, _bot_action_two)


def game_bot_action(bot, S, P, seat, rng, buf) -> int:
    """The action of numba bot ``bot`` for ``seat`` (to act) in every family: the
    four-player game's :func:`bot_action` (``S`` the raw state or the seat's public
    state), belote for two players' (``S`` the player's public view; its heuristic is
    :func:`.heuristic_two.heuristic_action`). ``rng``: uint64[1], the seat's stream;
    ``buf``: uint8[N_ACTIONS] scratch."""
    return int(BOT_ACTIONS[int(P[P_FAMILY] == FAMILY_TWO)](bot, S, P, seat, rng, buf))


# ====================================================================== deals
@njit(cache=True)
def _deal_states(P, n, seed, dealer, out):
    """Fill ``out`` (int64[n, state size]) with fresh deals: deal ``i`` from sub-stream
    ``i`` of ``seed``, dealt by ``dealer`` (random when < 0)."""
    hands = np.empty(N_SEATS, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        game_new_deal(out[i], P, rng, dealer, hands, deck)


def deal_states(rules: Union[str, RuleSet] = "ffb", n: int = 1, seed: int = 0,
                dealer: int = -1) -> np.ndarray:
    """``n`` fresh engine states (int64[n, state size], the rules' family) for
    :func:`play_deals`: uniformly random deals (sub-stream ``i`` of ``seed`` for deal
    ``i``), dealt by ``dealer`` or a random seat (player) when ``dealer`` is -1.

    >>> deal_states("classic", 2, seed=1).shape, deal_states("belote_a_deux").shape
    ((2, 215), (1, 206))
    """
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative number of deals, not {n!r}")
    rules = get_rules(rules)
    fam = family_of(rules)
    if dealer not in (-1, *range(fam.n_players)):
        raise ValueError(f"dealer must be a seat 0..{fam.n_players - 1} or -1 (random), "
                         f"not {dealer!r}")
    P = params_vector(rules)
    out = np.empty((int(n), fam.state_size), dtype=np.int64)
    _deal_states(P, int(n), int(seed), int(dealer), out)
    return out


# ================================================================== calibration
@njit(cache=True)
def _calibration_deals(P, n, seed, kind, X, y):
    """Deals for :func:`fit_hand_values`: contract at a strain of ``kind`` for a random
    taker, played by the heuristic at every seat; ``X[i]`` the taker's known-card
    features, ``y[i]`` its team's card points."""
    hands = np.empty(N_SEATS, dtype=np.int64)
    deck = np.empty(N_CARDS, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    S = np.empty(STATE_SIZE, dtype=np.int64)
    classic = P[P_FAMILY] != 0
    for i in range(n):
        rng_seed(rng, seed, i)
        deal_into(S, P, rng, np.int64(-1), hands, deck)      # the dealer drawn after the cards
        taker = rng_below(rng, np.int64(N_SEATS))
        known = hand_of(S, taker)
        if classic:
            known |= 1 << retourne_of(S)
        base = kind % 3
        if base == K_NT:
            st = NT
        elif base == K_AT:
            st = AT
        elif classic and rng_below(rng, 2) == 0:
            st = retourne_of(S) >> 3
        elif rng_below(rng, 2) == 0:
            st = rng_below(rng, np.int64(4))
        else:                               # the suit the hand is strongest in
            st = 0
            best = -1
            for s in range(N_SUITS):
                m = (known >> (8 * s)) & 0xFF
                sc = 6 * ((m >> 4) & 1) + 4 * ((m >> 2) & 1) + 2 * popcount(m)
                if sc > best:
                    best = sc
                    st = s
        set_contract(S, P, 0 if classic else 80, st, np.int64(0), taker)
        f = _hand_features(known, st)
        for k in range(N_FEATURES):
            X[i, k] = f[k]
        while phase_of(S) != DONE:
            cur = current_seat(S)
            apply_legal_action(S, P, _heuristic_action(S, P, cur, np.int64(BOT_HEURISTIC)))
        y[i] = team_card_points(S, team_of(taker))


def fit_hand_values(kind: int, n: int = 60000, seed: int = 0):
    """Refit one row of :data:`HAND_COEF` / :data:`HAND_SIGMA` (how they were made):
    least squares of the taker team's card points on the taker's known-card features,
    over ``n`` deals played by the heuristic (``kind``: 0 suit, 1 NT, 2 AT with 8 cards
    under ``ffb`` / ``ffb_sa_ta``; 3-5 the same with the five cards and the retourne
    under ``vip_classic``). Returns ``(coef, sigma)``: intercept and 12 weights, and
    the residual standard deviation."""
    if kind not in range(6):
        raise ValueError(f"kind must be 0..5 (suit, NT, AT; +3 for six known cards), not {kind!r}")
    rules = "vip_classic" if kind >= 3 else ("ffb" if kind == K_SUIT else "ffb_sa_ta")
    P = params_vector(four_player_rules(rules))
    X = np.zeros((n, N_FEATURES), dtype=np.float64)
    y = np.zeros(n, dtype=np.float64)
    _calibration_deals(P, n, seed, kind, X, y)
    used = np.flatnonzero(X.std(axis=0) > 0)
    A = np.column_stack([np.ones(n), X[:, used]])
    sol, *_ = np.linalg.lstsq(A, y, rcond=None)
    coef = np.zeros(N_FEATURES + 1)
    coef[0] = sol[0]
    coef[1 + used] = sol[1:]
    sigma = float(np.std(y - A @ sol))
    return coef, sigma


# ================================================================ Python agents
class NumbaBotAgent(Agent):
    """An agent that plays numba bot :attr:`numba_bot` through :func:`game_bot_action`
    on the seat's public state (``view.public_state``; with two players his public view).
    :meth:`reset` seeds ``self.rng`` (uint64[1], a splitmix64 stream, not a numpy
    Generator) with ``rng_seed(rng, seed, 0)``, as :func:`play_deals` seeds each seat."""

    numba_bot = BOT_RANDOM

    def __init__(self, bot: int = None):
        super().__init__()
        if bot is not None:
            bot_name(bot)                   # validates the kind
            self.numba_bot = int(bot)
        self._buf = np.zeros(N_ACTIONS, dtype=np.uint8)
        self.rng = np.zeros(1, dtype=np.uint64)
        rng_seed(self.rng, 0, 0)

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        self.check_rules(rules)                 # the families it plays, its own conditions
        self.seat = int(seat)
        self.rules = rules
        self.seed = int(seed)
        self.rng = np.zeros(1, dtype=np.uint64)
        rng_seed(self.rng, _int64(seed), 0)

    def act(self, view: PlayerView) -> int:
        return game_bot_action(self.numba_bot, view.public_state, view.params, view.seat,
                               self.rng, self._buf)


class HeuristicAgent(NumbaBotAgent):
    """The rule-based heuristic (module docstring); ``aggression`` and ``coinche`` as in
    :func:`heuristic_bot`."""

    #: what ``coinche-rl agents`` says of it
    DESCRIPTION = ("rule-based player in numba: hand-valuation bidding with partner conventions, "
                   "trump drawing, masters, charging, no waste")
    PARAMS = {
        "aggression": Param(int, doc="points added to its side's estimated total in the auction "
                            "(positive: bids and coinches more readily; negative: more "
                            "cautious)", min=-100, max=100),
        "coinche": Param(bool, doc="whether it may coinche and surcoinche"),
    }

    def __init__(self, aggression: int = 0, coinche: bool = True):
        super().__init__(heuristic_bot(aggression, coinche))
        self.aggression = int(aggression)
        self.coinche = bool(coinche)


class TwoHeuristicAgent(NumbaBotAgent):
    """Belote for two players' heuristic (:mod:`.heuristic_two`): the ``heuristic`` of
    the ``two`` family; ``prise`` and ``prise_decouverte`` as in :func:`heuristic_two_bot`."""

    FAMILIES = ("two",)
    DESCRIPTION = ("rule-based player in numba: prise on trump strength against the visible "
                   "cards, exchange of the 7, masters, trump drawing, cheap wins, low "
                   "discards, uncovering face-down cards")
    PARAMS = {
        "prise": Param(float, doc="belote à deux: the strength margin to take or name "
                       "(lower: takes more readily; to the hundredth)", min=-20.0, max=30.0),
        "prise_decouverte": Param(float, doc="belote découverte: the same",
                                  min=-20.0, max=30.0),
    }

    def __init__(self, prise: float = _PRISE_DEFAULTS[0],
                 prise_decouverte: float = _PRISE_DEFAULTS[1]):
        super().__init__(heuristic_two_bot(prise, prise_decouverte))
        self.prise = float(prise)
        self.prise_decouverte = float(prise_decouverte)

    def check_rules(self, rules: RuleSet) -> None:
        """A prise margin changed from its default for the other preset (``prise`` is
        read with a hand, ``prise_decouverte`` without) would change nothing: refused."""
        super().check_rules(rules)
        unread, read, game = (("prise_decouverte", "prise", "découverte") if rules.hand_cards
                              else ("prise", "prise_decouverte", "à deux"))
        if getattr(self, unread) != _PRISE_DEFAULTS[_PRISE_NAMES.index(unread)]:
            raise ValueError(f"heuristic: {unread} is not read under the rules {rules.name!r} "
                             f"(it is the belote {game} prise margin); set {read} instead")


# ================================================ batched heuristic (env opponents)
@_specialised
def _batch_with(act, bot, states, P, seats, out, rngs, buf, V):
    for j in range(states.shape[0]):
        out[j] = act(bot, states[j], P, seats[j], rngs[0], buf, V)


@kernel
def _batch_four(bot, states, P, seats, out, rngs, buf, V):
    _batch_with(_act_four, bot, states, P, seats, out, rngs, buf, V)


@kernel
def _batch_two(bot, states, P, seats, out, rngs, buf, V):
    _batch_with(_bot_action_two_view, bot, states, P, seats, out, rngs, buf, V)


def batch_bot_actions(bot, states, P, seats, out) -> None:
    """``out[j]`` = the action of numba bot ``bot`` for seat ``seats[j]`` (to act) in
    ``states[j]`` (public states, of the rules ``P``'s family); the bot must draw no
    random numbers (the heuristic): the vector envs' opponents."""
    kernel_ = _batch_two if P[P_FAMILY] == FAMILY_TWO else _batch_four
    kernel_(bot, states, P, seats, out, *_scratch(states.shape[1]))


def _warmup_states(rules, n: int, seed: int = 0) -> np.ndarray:
    """``n`` fresh states of ``rules`` dealt by the family's deal class (the game API's
    :func:`~coinche_rl.records.game_classes`), not :func:`deal_states`: its entry point
    :func:`~coinche_rl.engine.game_new_deal` would compile every family's dealing for a
    warm-up of one family's bots (a first run of belote for two players paid about 0.7 s
    of compile for the four-player dealing)."""
    deal_class = game_classes(rules)[0]
    return np.stack([np.array(deal_class(rules, seed=seed + i).state) for i in range(n)])


def warmup(rules_names=("ffb", "classic")) -> None:
    """Compile (or load from the cache) :func:`bot_action`, :func:`play_deals` and
    :func:`batch_bot_actions` (the vector env's ``heuristic`` opponents) for the families
    of ``rules_names`` (the four-player game's by default; :func:`warmup_two`: belote for
    two players'), on deals of the family's deal class (:func:`deal_states` compiles on
    first use, or in the networks' warm-up)."""
    for rules in rules_names:
        P = params_vector(get_rules(rules))
        states = _warmup_states(rules, 2)
        n = family_of(rules).n_players
        seats = np.array([game_to_act(S, P) for S in states], dtype=np.int64)
        if n == N_SEATS:     # two players: on first use by a vector env's opponents
            batch_bot_actions(int(BOT_HEURISTIC), states, P, seats,
                              np.empty(len(states), dtype=np.int64))
        bots = np.array([BOT_HEURISTIC, BOT_RANDOM, BOT_HEURISTIC, BOT_RANDOM][:n], dtype=np.int64)
        play_deals(P, states, bots, np.zeros((2, n), dtype=np.int64))
        if n == N_SEATS:
            S = _warmup_states(rules, 1, seed=2)[0]
            rng = np.zeros(1, dtype=np.uint64)
            buf = np.zeros(N_ACTIONS, dtype=np.uint8)
            bot_action(BOT_HEURISTIC, S, P, int(current_seat(S)), rng, buf)


def warmup_two() -> None:
    """:func:`warmup` for belote for two players (its bots only)."""
    warmup(("belote_a_deux",))
