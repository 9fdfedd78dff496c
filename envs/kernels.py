"""Numba kernels of the environments (``coinche_rl.envs.kernels``).

Two things a seat may know, computed straight from the engine state ``S`` without
building Python objects:

* the engine's :func:`~coinche_rl.engine.public_view_into` /
  :func:`~coinche_rl.engine.public_view`: the state vector with everything the seat
  cannot know set to zero (other hands, undealt cards, unannounced belotes, unresolved
  declarations, the private declare / belote choices). Numba bots read it;
  ``tests/test_env_kernels.py`` proves it equal for deals that differ only in what the
  seat cannot see.
* :func:`encode_into`: the observation vector of :mod:`coinche_rl.envs.observation`,
  **identical** to ``observation.encode(information_set(deal, seat), match)`` (tested at
  every step of random games, every preset), far faster (``benchmarks/RESULTS.md``). The AEC env
  and the vector env use it; the Python encoder stays as the readable reference.

The voids and ceilings inferred from the play (RULES.md §6) are the engine layer's
:func:`~coinche_rl.inference.voids_ceilings_into`.

The vector envs' kernels (:mod:`coinche_rl.envs.vector`: ``vector_step``,
``learner_settle``, ...) are here too, written once for every family over the engine's
entry points (``game_apply``, ``game_legal_mask``, ...); the two-player observation
comes from :mod:`.encoder_two`.

Kernels of one call graph live in this module (numba caches per module).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import engine as E
from ..engine import announced_belotes, legal_actions_into, public_view
from ..engine import DECL_UNRESOLVED, kernel
from ..engine import (auction_action, auction_length, coinche_level, contract_is_capot,
                      contract_of, current_seat, deal_void, dealer_of, declaration_cards,
                      declaration_winner, hand_of, phase_of, retourne_of, shown_declarers,
                      trick_card, trick_leader, trick_winner)
from ..actions import BID_BASE, CAPOT_BASE, COINCHE, N_ACTIONS, SURCOINCHE
from ..cards import N_CARDS, N_SUITS
from ..rules import (DEAL_POINTS, DIX_DE_DER, FAMILY_CLASSIC, FAMILY_TWO, MIN_BID_VALUE,
                     N_SEATS, N_STRAINS, N_TRICKS, P_FAMILY, P_SHUFFLE, P_TARGET, RuleSet,
                     card_points_table, partner, seat_after)
from ..rules import team as team_of
from . import observation as O
from .observation import (O_BELOTE, O_BIDS, O_CEILINGS, O_COINCHE, O_CONTRACT, O_CURRENT_TRICK,
                          O_DEALER, O_DECLARATIONS_RESOLVED, O_DECLARATIONS_SHOWN,
                          O_DECLARATION_WINNER, O_HAND, O_LEADER, O_MATCH, O_PHASE, O_PLAYED_BY,
                          O_PLAYED_WHEN, O_POINTS, O_PRISE, O_RETOURNE, O_RULES, O_SURCOINCHE,
                          O_TO_ACT, O_TRICKS, O_TRICK_NO, O_VOIDS)
from ..inference import NO_CEILING, voids_ceilings_into
from ..engine import (game_apply, game_is_legal, game_legal_mask, game_new_deal, game_next_dealer,
                      game_phase, game_public_view_into, game_random_action, game_reward,
                      game_score, game_side, game_to_act)
from ..engine import (MADE_LITIGE, MADE_MADE, deck_card, deal_made, hands_from_deck_into,
                      initial_hand, litige_points, match_winner, reset_classic, reset_state,
                      rng_below, rng_next, rng_seed, team_tricks_won)
from ..engine import two as E2
from .encoder_two import encode_into as two_encode_into

__all__ = ["encode_into",
           "ObservationEncoder", "warmup"]


N_OBS = O.OBSERVATION_SIZE
N_LEVELS = O.N_LEVELS
CAPOT_ROW = O.CAPOT_ROW
DONE = E.DONE
PLAY = E.PLAY
AUCTION = E.AUCTION
HIGH = O.HIGH



@njit(cache=True)
def encode_into(S, P, seat, cpt, rules_vec, match, out):
    """Write the observation of ``seat`` (:mod:`coinche_rl.envs.observation`, version 1)
    into ``out`` (float32 of ``OBSERVATION_SIZE``).

    ``cpt``: ``card_points_table(rules)`` (int64[6, 32]); ``rules_vec``: the ``rules``
    slice (float32[10], :func:`rules_vector`); ``match``: float64[5] = (flag, team-0
    score, team-1 score, target, pot), flag 0 in deal mode.
    """
    voids = np.empty(N_SEATS, dtype=np.int64)
    ceil = np.empty((N_SEATS, 4), dtype=np.int64)
    _encode(S, P, seat, cpt, rules_vec, match, out, voids, ceil)


@kernel
def _encode(S, P, seat, cpt, rules_vec, match, out, voids, ceil):
    """:func:`encode_into` with scratch arrays ``voids`` int64[4], ``ceil`` int64[4, 4]."""
    for k in range(N_OBS):
        out[k] = 0.0
    me = seat
    team = team_of(me)
    dealer = dealer_of(S)
    phase = phase_of(S)
    hand = hand_of(S, me)
    for c in range(N_CARDS):
        if (hand >> c) & 1:
            out[O_HAND + c] = 1.0
    out[O_DEALER + seat_after(dealer, -me)] = 1.0
    out[O_PHASE + phase] = 1.0
    if phase != DONE:
        out[O_TO_ACT + seat_after(current_seat(S), -me)] = 1.0
    # auction
    n_auction = auction_length(S)
    for i in range(n_auction):
        a = auction_action(S, i)
        p = seat_after(dealer, 1 + i)
        r = seat_after(p, -me)
        if BID_BASE <= a < COINCHE:
            if a >= CAPOT_BASE:
                row = CAPOT_ROW
                strain = a - CAPOT_BASE
            else:
                row = (a - BID_BASE) // N_STRAINS
                strain = (a - BID_BASE) % N_STRAINS
            base = O_BIDS + row * (N_SEATS + N_STRAINS)
            for k in range(N_SEATS + N_STRAINS):
                out[base + k] = 0.0
            out[base + r] = 1.0
            out[base + N_SEATS + strain] = 1.0
        elif a == COINCHE:
            out[O_COINCHE + r] = 1.0
        elif a == SURCOINCHE:
            out[O_SURCOINCHE + r] = 1.0
    classic = P[P_FAMILY] != 0
    if classic and phase == AUCTION:
        out[O_PRISE + (0 if n_auction < N_SEATS else 1)] = 1.0
    if classic and retourne_of(S) >= 0:
        out[O_RETOURNE + retourne_of(S)] = 1.0
    has_contract = phase != AUCTION and deal_void(S) == 0
    value, strain, taker = contract_of(S)
    if has_contract:
        if contract_is_capot(S) != 0:
            out[O_CONTRACT + CAPOT_ROW] = 1.0
        elif value != 0:
            out[O_CONTRACT + (value - MIN_BID_VALUE) // 10] = 1.0
        out[O_CONTRACT + N_LEVELS + strain] = 1.0
        out[O_CONTRACT + N_LEVELS + N_STRAINS + coinche_level(S)] = 1.0
        out[O_CONTRACT + N_LEVELS + N_STRAINS + 3 + seat_after(taker, -me)] = 1.0
    # declarations and belote
    w = declaration_winner(S)
    if w != DECL_UNRESOLVED:
        out[O_DECLARATIONS_RESOLVED] = 1.0
    if w >= 0:
        out[O_DECLARATION_WINNER + (0 if w == team else 1)] = 1.0
        shown = shown_declarers(S)
        for p in (w, partner(w)):
            if (shown >> p) & 1:
                m = declaration_cards(S, p)
                base = O_DECLARATIONS_SHOWN + N_CARDS * seat_after(p, -me)
                for c in range(N_CARDS):
                    if (m >> c) & 1:
                        out[base + c] = 1.0
    if has_contract:
        ann_seats, _ann = announced_belotes(S, strain)
        for p in range(N_SEATS):
            if (ann_seats >> p) & 1:
                out[O_BELOTE + seat_after(p, -me)] = 1.0
    # card play
    n_done = 0
    for t in range(N_TRICKS):
        if trick_winner(S, t) >= 0:
            n_done += 1
    cur_leader = -1
    cur_n = 0
    pts_us = 0
    pts_them = 0
    tr_us = 0
    tr_them = 0
    for t in range(N_TRICKS):
        leader = trick_leader(S, t)
        if leader < 0:
            break
        tp = 0
        n = 0
        for i in range(N_SEATS):
            c = trick_card(S, t, i)
            if c < 0:
                break
            n += 1
            p = seat_after(leader, i)
            out[O_PLAYED_BY + N_SEATS * c + seat_after(p, -me)] = 1.0
            out[O_PLAYED_WHEN + c] = (t + 1) / N_TRICKS
            if has_contract:
                tp += cpt[strain, c]
        if n == 0:
            continue
        if t >= n_done:
            cur_leader = leader
            cur_n = n
            if phase == PLAY:
                for i in range(n):
                    out[O_CURRENT_TRICK + trick_card(S, t, i)] = 1.0
        else:
            if t == N_TRICKS - 1:
                tp += DIX_DE_DER
            if team_of(trick_winner(S, t)) == team:
                pts_us += tp
                tr_us += 1
            else:
                pts_them += tp
                tr_them += 1
    if phase == PLAY:
        leader = cur_leader if cur_n > 0 else current_seat(S)
        out[O_LEADER + seat_after(leader, -me)] = 1.0
        out[O_TRICK_NO + min(n_done, N_TRICKS - 1)] = 1.0
    if has_contract:
        out[O_POINTS] = pts_us / DEAL_POINTS
        out[O_POINTS + 1] = pts_them / DEAL_POINTS
        out[O_TRICKS] = tr_us / N_TRICKS
        out[O_TRICKS + 1] = tr_them / N_TRICKS
    if match[0] != 0.0:
        target = match[3]
        out[O_MATCH] = 1.0
        out[O_MATCH + 1] = match[1 + team] / target
        out[O_MATCH + 2] = match[2 - team] / target
        out[O_MATCH + 3] = target / 1000.0
        out[O_MATCH + 4] = match[4] / DEAL_POINTS
        for k in range(O_MATCH, O_MATCH + 5):
            if out[k] < 0.0:
                out[k] = 0.0
    for k in range(10):
        out[O_RULES + k] = rules_vec[k]
    if has_contract:
        voids_ceilings_into(S, P, strain, voids, ceil)
    else:
        for p in range(N_SEATS):
            voids[p] = 0
            for s in range(N_SUITS):
                ceil[p, s] = NO_CEILING
    for p in range(N_SEATS):
        r = seat_after(p, -me)
        for s in range(N_SUITS):
            out[O_VOIDS + N_SUITS * r + s] = float((voids[p] >> s) & 1)
            out[O_CEILINGS + N_SUITS * r + s] = ceil[p, s] / float(NO_CEILING)
    # every slice is in range by construction except the match ratios (clipped as
    # observation.encode clips them)
    for k in range(O_MATCH, O_MATCH + 5):
        if out[k] > HIGH[k]:
            out[k] = HIGH[k]


# ------------------------------------------------------------------ vector env
# The vector envs' kernels, written once for every family over the engine's entry points
# (``game_*``). Only the observation differs: each public kernel branches once on the
# family and runs its body (``_..._with``) specialised at compile time for the family's
# encoder (passed as a kernel argument: numba compiles one copy per encoder, which
# measured about 10% faster for the four-player steps than a branch inside every
# observation).

@kernel
def encode_four(S, P, seat, cpt, rules_vec, match, out, voids, ceil, V):
    """:func:`_encode` in the vector kernels' encoder signature (``V`` unused)."""
    _encode(S, P, seat, cpt, rules_vec, match, out, voids, ceil)


@kernel
def encode_two(S, P, seat, cpt, rules_vec, match, out, voids, ceil, V):
    """:func:`~coinche_rl.envs.encoder_two.encode_into` (belote for two players,
    scratch ``V`` int64[TWO_STATE_SIZE]) in the vector kernels' encoder signature
    (``cpt``, ``rules_vec``, ``voids``, ``ceil`` unused)."""
    two_encode_into(S, P, seat, match, V, out)


@kernel
def first_illegal(states, P, actions):
    """Index of the first game whose action is illegal, or -1."""
    for i in range(states.shape[0]):
        if not game_is_legal(states[i], P, actions[i]):
            return i
    return -1


# ------------------------------------------------------------------ match mode
# A game's match, one int64 row ``M`` of ``[N, M_SIZE]`` per game: the sides' totals, the
# litige pot, the void deals in a row (for ``reshuffle_after_voids``), the match's seed
# and first dealer (``Match(rules, dealer=..., seed=...)`` replays it), the last deal's
# gains (the rewards), the winner (-1 while it goes on) and the deals played. Its deals
# come from the match's own stream (``mrng``: ``game.deal_stream(seed)``), drawn as
# ``coinche_rl.game.Match`` draws them; ``conf`` int64[M_CONF_SIZE] is (match mode on,
# belote_cannot_win, reshuffle_after_voids, min_cut). The match vector of the
# observation (``observation.match_vector``) is kept beside it, float64[N, 5].
M_SCORE, M_POT, M_VOIDS, M_SEED, M_FIRST_DEALER, M_DELTA, M_WINNER, M_DEALS = 0, 2, 3, 4, 5, 6, 8, 9
M_SIZE = 10
C_ON, C_BELOTE_CANNOT_WIN, C_RESHUFFLE, C_MIN_CUT = 0, 1, 2, 3
M_CONF_SIZE = 4


@kernel
def _match_vector_into(M, P, v):
    """``v`` := ``(1, score 0, score 1, target, pot)`` of the match ``M``."""
    v[0] = 1.0
    v[1] = M[M_SCORE]
    v[2] = M[M_SCORE + 1]
    v[3] = P[P_TARGET]
    v[4] = M[M_POT]


@kernel
def match_start(S, P, M, v, rng, mrng, dealer, hands, deck):
    """A new match into ``S``/``M``/``v``: its seed drawn from the game's stream ``rng``
    (63 bits), its first dealer ``dealer`` (or, when < 0, drawn from ``rng`` after the
    seed), the match's stream ``mrng`` seeded as ``game.deal_stream(seed)`` and its first
    deal dealt from it, as ``Match(rules, dealer=d, seed=seed)`` deals it."""
    seed = np.int64(rng_next(rng) >> np.uint64(1))
    n = 2 if P[P_FAMILY] == FAMILY_TWO else N_SEATS
    d = dealer if dealer >= 0 else rng_below(rng, np.int64(n))
    rng_seed(mrng, seed, np.int64(0))
    for k in range(M.shape[0]):
        M[k] = 0
    M[M_SEED] = seed
    M[M_FIRST_DEALER] = d
    M[M_WINNER] = -1
    game_new_deal(S, P, mrng, d, hands, deck)
    _match_vector_into(M, P, v)


@kernel
def matches_start(states, P, M, V, rngs, mrngs, dealers, hands, deck):
    """:func:`match_start` in every game ``i`` (first dealer ``dealers[i]``, -1 drawn)."""
    for i in range(states.shape[0]):
        match_start(states[i], P, M[i], V[i], rngs[i:i + 1], mrngs[i:i + 1], dealers[i],
                    hands, deck)


@kernel
def match_score_deal(S, P, M, v, conf):
    """Add the finished deal ``S`` to its match ``M`` (and its vector ``v``), as
    ``game.score_into_match`` does for every family: the deal's scores, a litige's points
    into the pot, the pot to the winner of the next deal neither void nor a litige (the
    takers if made, else the other side), then
    the winner by RULES.md §9 (``engine.match_winner``; with two players the same test
    without the FFB clause, ``match_winner_two``). The gains go to ``M[M_DELTA:+2]``.
    Returns the winner, -1 to play on."""
    two = P[P_FAMILY] == FAMILY_TWO
    g0 = game_score(S, P, 0)
    g1 = game_score(S, P, 1)
    if two:
        void = E2.deal_void(S) != 0
        made = E2.deal_made(S)
        side = E2.taker_of(S)
        lit = E2.litige_points(S)
    else:
        void = deal_void(S) != 0
        made = deal_made(S)
        side = team_of(contract_of(S)[2]) if not void else 0
        lit = litige_points(S)
    if not void:
        if made == MADE_LITIGE:
            M[M_POT] += lit
        elif M[M_POT] != 0:
            if (side if made == MADE_MADE else 1 - side) == 0:
                g0 += M[M_POT]
            else:
                g1 += M[M_POT]
            M[M_POT] = 0
    M[M_DELTA] = g0
    M[M_DELTA + 1] = g1
    M[M_SCORE] += g0
    M[M_SCORE + 1] += g1
    M[M_VOIDS] = M[M_VOIDS] + 1 if void else 0
    M[M_DEALS] += 1
    w = -1
    if not void:
        code = 2 if made == MADE_LITIGE else (1 if made == MADE_MADE else 0)
        if two:
            w = match_winner(M[M_SCORE:M_SCORE + 2], P[P_TARGET], side, code, np.int64(1),
                             np.int64(1), np.int64(0))
        else:
            w = match_winner(M[M_SCORE:M_SCORE + 2], P[P_TARGET], side, code,
                             team_tricks_won(S, 0), team_tricks_won(S, 1),
                             conf[C_BELOTE_CANNOT_WIN])
    M[M_WINNER] = w
    _match_vector_into(M, P, v)
    return w


@kernel
def match_reward(M, P, seat, raw):
    """``seat``'s reward for the deal just scored into ``M``: its side's gain minus the
    other side's (``raw``: its side's gain), as the AEC env's match mode gives it."""
    s = game_side(P, seat)
    if raw:
        return float(M[M_DELTA + s])
    return float(M[M_DELTA + s] - M[M_DELTA + 1 - s])


@kernel
def _reverse(a, lo, hi):
    hi -= 1
    while lo < hi:
        a[lo], a[hi] = a[hi], a[lo]
        lo += 1
        hi -= 1


@kernel
def match_next_deal(S, P, M, mrng, conf, hands, deck):
    """The match's next deal into ``S`` (after the finished deal ``S``, scored), dealt by
    the next seat in turn, as ``Match._next_deck`` deals it: a fresh shuffle from the
    match's stream ``mrng``, or (``shuffle_between_deals=False``, four players, unless
    ``reshuffle_after_voids`` void deals in a row ask for a shuffle) the cards gathered
    (``game.gather_and_cut``: the tricks in the order played; a void deal's dealing
    order, or its hands seat by seat) and cut (each part at least ``min_cut`` cards)."""
    dealer = game_next_dealer(S, P, np.int64(-2))
    nv = M[M_VOIDS]
    every = conf[C_RESHUFFLE]
    if (P[P_FAMILY] == FAMILY_TWO or P[P_SHUFFLE] != 0
            or (every > 0 and nv > 0 and nv % every == 0)):
        game_new_deal(S, P, mrng, dealer, hands, deck)
        return
    if deal_void(S) != 0 or trick_card(S, 0, 0) < 0:
        if deck_card(S, 0) >= 0:
            for k in range(N_CARDS):
                deck[k] = deck_card(S, k)
        else:
            k = 0
            for s in range(N_SEATS):
                h = initial_hand(S, s)
                for c in range(N_CARDS):
                    if (h >> c) & 1:
                        deck[k] = c
                        k += 1
    else:
        k = 0
        for t in range(N_TRICKS):
            for j in range(N_SEATS):
                deck[k] = trick_card(S, t, j)
                k += 1
    low = conf[C_MIN_CUT]
    cut = low + rng_below(mrng, np.int64(N_CARDS + 1 - 2 * low))
    # pack[cut:] + pack[:cut], in place
    _reverse(deck, 0, cut)
    _reverse(deck, cut, N_CARDS)
    _reverse(deck, 0, N_CARDS)
    if P[P_FAMILY] == FAMILY_CLASSIC:
        reset_classic(S, deck, dealer)
    else:
        hands_from_deck_into(deck, dealer, hands)
        reset_state(S, hands, dealer)


# The bodies take the family's encoder, a numba dispatcher, as an argument. A cached
# kernel whose signature holds a dispatcher breaks numba's cache index when two processes
# compile into one cache ("underlying object has vanished"), and a cached kernel calling
# an uncached one is not cached at all ("dynamic globals"). So the bodies are inlined
# into the cached kernels that call them with a fixed encoder, whose signatures hold
# arrays only: one copy per family, loaded from the cache in the next process.
_specialised = njit(_nrt=False, inline="always")


@_specialised
def _vector_observe_with(encode, states, P, cpt, rules_vec, matches, obs, masks, cur, voids,
                         ceil, V):
    for i in range(states.shape[0]):
        S = states[i]
        seat = game_to_act(S, P) if game_phase(S, P) != DONE else 0
        cur[i] = seat
        encode(S, P, seat, cpt, rules_vec, matches[i], obs[i], voids, ceil, V)
        game_legal_mask(S, P, masks[i])


@kernel
def vector_observe(states, P, cpt, rules_vec, matches, obs, masks, cur, voids, ceil, V):
    """Observation (of the seat to act), mask and seat to act of every game (``matches``
    float64[N, 5]: each game's match vector, zeros in deal mode)."""
    if P[P_FAMILY] == FAMILY_TWO:
        _vector_observe_with(encode_two, states, P, cpt, rules_vec, matches, obs, masks, cur,
                             voids, ceil, V)
    else:
        _vector_observe_with(encode_four, states, P, cpt, rules_vec, matches, obs, masks, cur,
                             voids, ceil, V)


@_specialised
def _vector_step_with(encode, states, P, actions, rngs, dealer, raw, cpt, rules_vec, matches,
                      M, mrngs, conf, obs, masks, cur, rewards, terminated, final_scores,
                      winners, hands, deck, voids, ceil, V):
    n_players = rewards.shape[1]
    in_match = conf[C_ON] != 0
    for i in range(states.shape[0]):
        S = states[i]
        game_apply(S, P, actions[i])
        for s in range(n_players):
            rewards[i, s] = 0.0
        terminated[i] = 0
        winners[i] = -1
        if game_phase(S, P) == DONE:
            if in_match:
                w = match_score_deal(S, P, M[i], matches[i], conf)
                for s in range(n_players):
                    rewards[i, s] = match_reward(M[i], P, s, raw)
                if w >= 0:
                    terminated[i] = 1
                    winners[i] = w
                    final_scores[i, 0] = M[i, M_SCORE]
                    final_scores[i, 1] = M[i, M_SCORE + 1]
                    match_start(S, P, M[i], matches[i], rngs[i:i + 1], mrngs[i:i + 1],
                                dealer, hands, deck)
                else:
                    match_next_deal(S, P, M[i], mrngs[i:i + 1], conf, hands, deck)
            else:
                terminated[i] = 1
                final_scores[i, 0] = game_score(S, P, 0)
                final_scores[i, 1] = game_score(S, P, 1)
                for s in range(n_players):
                    rewards[i, s] = game_reward(S, P, s, raw)
                game_new_deal(S, P, rngs[i:i + 1], game_next_dealer(S, P, dealer), hands,
                              deck)
        seat = game_to_act(S, P)
        cur[i] = seat
        encode(S, P, seat, cpt, rules_vec, matches[i], obs[i], voids, ceil, V)
        game_legal_mask(S, P, masks[i])


@kernel
def vector_step(states, P, actions, rngs, dealer, raw, cpt, rules_vec, matches, M, mrngs,
                conf, obs, masks, cur, rewards, terminated, final_scores, winners, hands,
                deck, voids, ceil, V):
    """One action in every game (legal: checked by :func:`first_illegal`), then the
    observation of the seat to act.

    Deal mode (``conf[C_ON] == 0``): a finished deal gives ``rewards[i, seat]`` to every
    seat, ``terminated[i] = 1``, its ``final_scores[i]`` (per side), and is replaced at
    once by a new deal from the game's stream ``rngs[i:i + 1]`` (same-step autoreset).

    Match mode: a finished deal is scored into the game's match ``M[i]`` (its vector
    ``matches[i]``) and gives each seat its side's gain (:func:`match_reward`); the
    match's next deal follows, or, when the match is won, ``terminated[i] = 1``, the
    match's totals in ``final_scores[i]``, the winner in ``winners[i]`` (else -1), and a
    new match begins (:func:`match_start`, first dealer ``dealer``, -1 drawn)."""
    if P[P_FAMILY] == FAMILY_TWO:
        _vector_step_with(encode_two, states, P, actions, rngs, dealer, raw, cpt, rules_vec,
                          matches, M, mrngs, conf, obs, masks, cur, rewards, terminated,
                          final_scores, winners, hands, deck, voids, ceil, V)
    else:
        _vector_step_with(encode_four, states, P, actions, rngs, dealer, raw, cpt, rules_vec,
                          matches, M, mrngs, conf, obs, masks, cur, rewards, terminated,
                          final_scores, winners, hands, deck, voids, ceil, V)


@kernel
def _opponents_random(S, P, seat, rng, buf, pass_prob):
    """Random actions for the other seats until ``seat`` acts or the deal ends."""
    while game_phase(S, P) != DONE and game_to_act(S, P) != seat:
        game_apply(S, P, game_random_action(S, P, rng, buf, pass_prob))


@_specialised
def _learner_settle_with(encode, states, P, seat, rngs, dealer, raw, use_random, pass_prob,
                         cpt, rules_vec, matches, M, mrngs, conf, obs, final_obs, masks,
                         rewards, terminated, final_scores, winners, hands, deck, voids, ceil,
                         V, buf):
    waiting = 0
    in_match = conf[C_ON] != 0
    for i in range(states.shape[0]):
        S = states[i]
        rng = rngs[i:i + 1]
        if use_random:
            _opponents_random(S, P, seat, rng, buf, pass_prob)
        while game_phase(S, P) == DONE:
            if in_match:
                w = match_score_deal(S, P, M[i], matches[i], conf)
                rewards[i] += match_reward(M[i], P, seat, raw)
                if w >= 0:
                    terminated[i] = 1
                    winners[i] = w
                    final_scores[i, 0] = M[i, M_SCORE]
                    final_scores[i, 1] = M[i, M_SCORE + 1]
                    encode(S, P, seat, cpt, rules_vec, matches[i], final_obs[i], voids, ceil,
                           V)
                    match_start(S, P, M[i], matches[i], rng, mrngs[i:i + 1], dealer, hands,
                                deck)
                else:
                    match_next_deal(S, P, M[i], mrngs[i:i + 1], conf, hands, deck)
            else:
                rewards[i] += game_reward(S, P, seat, raw)
                terminated[i] = 1
                encode(S, P, seat, cpt, rules_vec, matches[i], final_obs[i], voids, ceil, V)
                game_new_deal(S, P, rng, game_next_dealer(S, P, dealer), hands, deck)
            if use_random:
                _opponents_random(S, P, seat, rng, buf, pass_prob)
        if game_to_act(S, P) != seat:
            waiting += 1
        else:
            encode(S, P, seat, cpt, rules_vec, matches[i], obs[i], voids, ceil, V)
            game_legal_mask(S, P, masks[i])
    return waiting


@kernel
def learner_settle(states, P, seat, rngs, dealer, raw, use_random, pass_prob, cpt,
                   rules_vec, matches, M, mrngs, conf, obs, final_obs, masks, rewards,
                   terminated, final_scores, winners, hands, deck, voids, ceil, V, buf):
    """After the learner's actions (and, without ``use_random``, the other seats'
    actions played by the caller until none is pending): with ``use_random`` the other
    seats play random actions; a finished deal adds the learner's reward (deal mode: and
    sets ``terminated``, writes the learner's ``final_obs``, and is replaced by a new
    deal; match mode, as :func:`vector_step`: the match's next deal, or, once the match
    is won, ``terminated``, ``final_obs``, ``final_scores``, ``winners`` and a new
    match). Returns the number of games whose new deal waits for another seat (the
    caller plays them, then settles again); with ``use_random`` always 0 and every game
    ends with the learner to act, whose observation and mask are written."""
    if P[P_FAMILY] == FAMILY_TWO:
        return _learner_settle_with(encode_two, states, P, seat, rngs, dealer, raw,
                                    use_random, pass_prob, cpt, rules_vec, matches, M, mrngs,
                                    conf, obs, final_obs, masks, rewards, terminated,
                                    final_scores, winners, hands, deck, voids, ceil, V, buf)
    return _learner_settle_with(encode_four, states, P, seat, rngs, dealer, raw, use_random,
                                pass_prob, cpt, rules_vec, matches, M, mrngs, conf, obs,
                                final_obs, masks, rewards, terminated, final_scores, winners,
                                hands, deck, voids, ceil, V, buf)


@kernel
def others_to_act(states, P, seat, idx):
    """Indices of the games (not over) where a seat other than ``seat`` is to act, into
    ``idx``; returns how many."""
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        if game_phase(S, P) != DONE and game_to_act(S, P) != seat:
            idx[k] = i
            k += 1
    return k


@kernel
def public_states_of(states, P, idx, k, out, seats):
    """Public states (the engine's public view) of the seat to act in games ``idx[:k]``,
    into ``out[:k]``, and those seats into ``seats[:k]``."""
    for j in range(k):
        S = states[idx[j]]
        seats[j] = game_to_act(S, P)
        game_public_view_into(S, P, seats[j], out[j])


@kernel
def apply_at(states, P, idx, k, actions):
    """Apply ``actions[j]`` to game ``idx[j]`` for ``j < k`` (legality checked before)."""
    for j in range(k):
        game_apply(states[idx[j]], P, actions[j])


@kernel
def first_illegal_at(states, P, idx, k, actions):
    """The first ``j < k`` whose action is illegal in game ``idx[j]``, or -1."""
    for j in range(k):
        if not game_is_legal(states[idx[j]], P, actions[j]):
            return j
    return -1


def rules_vector(rules: RuleSet) -> np.ndarray:
    """The ``rules`` slice of the observation for ``rules`` (float32[10])."""
    strains = rules.allowed_strains
    return np.array((
        float(4 in strains or 5 in strains), float(rules.must_undertrump),
        float(rules.overtrump_partner), float(rules.declarations),
        float(rules.optional_declare), float(rules.optional_belote),
        float(rules.family == "classic"), float(rules.made_conditions == "bid_only"),
        rules.multipliers[1] / 4.0, float(rules.generale_bonus > 0)), dtype=np.float32)


class ObservationEncoder(O.EncoderBase):
    """The tables :func:`encode_into` needs for one rule set, and a convenience call.

    >>> from coinche_rl.game import Deal
    >>> from coinche_rl.envs.infoset import information_set
    >>> deal = Deal("ffb", seed=3, dealer=0)
    >>> enc = ObservationEncoder(deal.rules)
    >>> bool((enc.encode(deal.state, 1) == O.encode(information_set(deal, 1))).all())
    True
    """

    def __init__(self, rules: RuleSet):
        super().__init__(rules, E.R.params_vector(rules))
        self.cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
        self.rules_vec = rules_vector(rules)

    def encode(self, S: np.ndarray, seat: int, match=None, out=None) -> np.ndarray:
        """The observation of ``seat`` in state ``S`` (a new array unless ``out``)."""
        if out is None:
            out = np.empty(N_OBS, dtype=np.float32)
        encode_into(S, self.params, int(seat), self.cpt, self.rules_vec,
                    self.match_vector(match), out)
        return out

    def encode_view(self, V: np.ndarray, seat: int, match=None, out=None) -> np.ndarray:
        """The observation of ``seat`` from his public view ``V`` (``PlayerView.public_state``:
        :meth:`encode` reads only what the seat may know, so it is the same call)."""
        return self.encode(V, seat, match, out)

    def observe(self, deal, seat: int, match=None) -> np.ndarray:
        """The observation of ``seat`` in ``deal`` (a :class:`~coinche_rl.game.Deal`)."""
        return self.encode(deal.state, seat, match)

    def legal_mask(self, deal) -> np.ndarray:
        """The legal actions of ``deal`` as a new int8 mask."""
        live = np.zeros(N_ACTIONS, dtype=np.int8)
        legal_actions_into(deal.state, deal.params, live)
        return live


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the kernels of this module (cached on disk)."""
    from ..game import Deal
    deal = Deal("ffb", seed=0, dealer=0)
    enc = ObservationEncoder(deal.rules)
    enc.encode(deal.state, 0)
    public_view(deal.state, deal.params, 0)
