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
comes from :mod:`.two_player_kernels`.

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
from ..rules import (DEAL_POINTS, DIX_DE_DER, FAMILY_TWO, MIN_BID_VALUE, N_SEATS, N_STRAINS,
                     N_TRICKS, P_FAMILY, RuleSet, card_points_table, partner, seat_after)
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
                      game_score, game_to_act)
from .two_player_kernels import encode_into as two_encode_into

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
    """:func:`~coinche_rl.envs.two_player_kernels.encode_into` (belote for two players,
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


# The bodies take the family's encoder, a numba dispatcher, as an argument. A cached
# kernel whose signature holds a dispatcher breaks numba's cache index when two processes
# compile into one cache ("underlying object has vanished"), and a cached kernel calling
# an uncached one is not cached at all ("dynamic globals"). So the bodies are inlined
# into the cached kernels that call them with a fixed encoder, whose signatures hold
# arrays only: one copy per family, loaded from the cache in the next process.
_specialised = njit(_nrt=False, inline="always")


@_specialised
def _vector_observe_with(encode, states, P, cpt, rules_vec, match, obs, masks, cur, voids,
                         ceil, V):
    for i in range(states.shape[0]):
        S = states[i]
        seat = game_to_act(S, P) if game_phase(S, P) != DONE else 0
        cur[i] = seat
        encode(S, P, seat, cpt, rules_vec, match, obs[i], voids, ceil, V)
        game_legal_mask(S, P, masks[i])


@kernel
def vector_observe(states, P, cpt, rules_vec, match, obs, masks, cur, voids, ceil, V):
    """Observation (of the seat to act), mask and seat to act of every game."""
    if P[P_FAMILY] == FAMILY_TWO:
        _vector_observe_with(encode_two, states, P, cpt, rules_vec, match, obs, masks, cur,
                             voids, ceil, V)
    else:
        _vector_observe_with(encode_four, states, P, cpt, rules_vec, match, obs, masks, cur,
                             voids, ceil, V)


@_specialised
def _vector_step_with(encode, states, P, actions, rngs, dealer, raw, cpt, rules_vec, match,
                      obs, masks, cur, rewards, terminated, final_scores, hands, deck, voids,
                      ceil, V):
    n_players = rewards.shape[1]
    for i in range(states.shape[0]):
        S = states[i]
        game_apply(S, P, actions[i])
        for s in range(n_players):
            rewards[i, s] = 0.0
        terminated[i] = 0
        if game_phase(S, P) == DONE:
            terminated[i] = 1
            final_scores[i, 0] = game_score(S, P, 0)
            final_scores[i, 1] = game_score(S, P, 1)
            for s in range(n_players):
                rewards[i, s] = game_reward(S, P, s, raw)
            game_new_deal(S, P, rngs[i:i + 1], game_next_dealer(S, P, dealer), hands, deck)
        seat = game_to_act(S, P)
        cur[i] = seat
        encode(S, P, seat, cpt, rules_vec, match, obs[i], voids, ceil, V)
        game_legal_mask(S, P, masks[i])


@kernel
def vector_step(states, P, actions, rngs, dealer, raw, cpt, rules_vec, match, obs, masks,
                cur, rewards, terminated, final_scores, hands, deck, voids, ceil, V):
    """One action in every game (legal: checked by :func:`first_illegal`), then the
    observation of the seat to act. A finished deal gives ``rewards[i, seat]`` to every
    seat, ``terminated[i] = 1``, its ``final_scores[i]`` (per side), and is replaced at
    once by a new deal from the game's stream ``rngs[i:i + 1]`` (same-step autoreset)."""
    if P[P_FAMILY] == FAMILY_TWO:
        _vector_step_with(encode_two, states, P, actions, rngs, dealer, raw, cpt, rules_vec,
                          match, obs, masks, cur, rewards, terminated, final_scores, hands,
                          deck, voids, ceil, V)
    else:
        _vector_step_with(encode_four, states, P, actions, rngs, dealer, raw, cpt, rules_vec,
                          match, obs, masks, cur, rewards, terminated, final_scores, hands,
                          deck, voids, ceil, V)


@kernel
def _opponents_random(S, P, seat, rng, buf, pass_prob):
    """Random actions for the other seats until ``seat`` acts or the deal ends."""
    while game_phase(S, P) != DONE and game_to_act(S, P) != seat:
        game_apply(S, P, game_random_action(S, P, rng, buf, pass_prob))


@_specialised
def _learner_settle_with(encode, states, P, seat, rngs, dealer, raw, use_random, pass_prob,
                         cpt, rules_vec, match, obs, final_obs, masks, rewards, terminated,
                         hands, deck, voids, ceil, V, buf):
    waiting = 0
    for i in range(states.shape[0]):
        S = states[i]
        rng = rngs[i:i + 1]
        if use_random:
            _opponents_random(S, P, seat, rng, buf, pass_prob)
        while game_phase(S, P) == DONE:
            rewards[i] += game_reward(S, P, seat, raw)
            terminated[i] = 1
            encode(S, P, seat, cpt, rules_vec, match, final_obs[i], voids, ceil, V)
            game_new_deal(S, P, rng, game_next_dealer(S, P, dealer), hands, deck)
            if use_random:
                _opponents_random(S, P, seat, rng, buf, pass_prob)
        if game_to_act(S, P) != seat:
            waiting += 1
        else:
            encode(S, P, seat, cpt, rules_vec, match, obs[i], voids, ceil, V)
            game_legal_mask(S, P, masks[i])
    return waiting


@kernel
def learner_settle(states, P, seat, rngs, dealer, raw, use_random, pass_prob, cpt,
                   rules_vec, match, obs, final_obs, masks, rewards, terminated, hands,
                   deck, voids, ceil, V, buf):
    """After the learner's actions (and, without ``use_random``, the other seats'
    actions played by the caller until none is pending): with ``use_random`` the other
    seats play random actions; a finished deal adds the learner's reward, sets
    ``terminated``, writes the learner's ``final_obs`` and is replaced by a new deal.
    Returns the number of games whose new deal waits for another seat (the caller
    plays them, then settles again); with ``use_random`` always 0 and every game ends
    with the learner to act, whose observation and mask are written."""
    if P[P_FAMILY] == FAMILY_TWO:
        return _learner_settle_with(encode_two, states, P, seat, rngs, dealer, raw,
                                    use_random, pass_prob, cpt, rules_vec, match, obs,
                                    final_obs, masks, rewards, terminated, hands, deck,
                                    voids, ceil, V, buf)
    return _learner_settle_with(encode_four, states, P, seat, rngs, dealer, raw, use_random,
                                pass_prob, cpt, rules_vec, match, obs, final_obs, masks,
                                rewards, terminated, hands, deck, voids, ceil, V, buf)


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
