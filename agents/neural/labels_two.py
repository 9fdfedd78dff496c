"""Training labels for card play in belote for two players, generated in numba
(``coinche_rl.agents.neural.labels_two``): the family's label kernel, what
:mod:`.labels` is for four players (the trainer, :mod:`coinche_rl.train.play`, reads
both through :mod:`.family`).

:func:`generate_chunk` plays whole deals and labels **every legal card** of every card
decision with the value it has *on the true deal* for the player to act (his deal score
minus the other's):

* ``rollout`` targets: the card is played, then the numba heuristic of the family plays
  the rest of the deal for both players (each from his public view);
* ``solver`` targets, once at most ``solver_cards`` cards are left in play (hands, table,
  face-down): the exact double-dummy value of each card
  (:func:`coinche_rl.solver_two.card_values_two`: the card points the player wins in the
  whole deal), scored as the deal would be with those card points
  (:func:`score_difference`: the contract made or not, the litige, the belote, the winning
  declaration, the capot). The deal score is a monotone function of the card points of
  either player, so the best card points of a world are its best score too.

The deals: a random deal and dealer, the prise and the exchange by the heuristic (a void
deal, every player passing twice, is dealt again from the same stream); the cards by the
heuristic, except that each card decision is a uniformly random legal card with
probability ``epsilon``. Decisions with a single legal card are not labelled. The rows are
in the family's canonical suit order (:mod:`.canonical_two`). A chunk depends only on its
arguments: deal ``g`` draws from sub-stream ``first_game + g`` of ``seed``.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ... import actions as A
from ...cards import N_CARDS
from ...engine import kernel, lowest_card, popcount, rng_seed
from ...engine.two import (DONE, PLAY, TWO_STATE_SIZE, current_player, deal_score,
                           score_with_points, face_down_cards, face_up_cards, hand_of, other, phase_of, trick_number,
                           two_apply, two_legal_mask, two_public_view_into, two_random_deal)
from ...rules import RuleSet, params_vector
from ...solver_two import card_values_two, new_generation, new_tables
from ..numba_bots import BOT_HEURISTIC, _bot_action_two
from . import canonical as C
from . import canonical_two as C2
from .labels import KIND_ROLLOUT, KIND_SOLVER, LabelChunk, explore_card, rollout_targets

__all__ = ["generate_chunk", "label_chunk", "score_difference", "warmup", "MAX_DECISIONS"]

#: a card decision per card dealt
MAX_DECISIONS = N_CARDS


@kernel
def score_difference(S, P, me, points, T):
    """The deal score of player ``me`` minus the other's if, from the state ``S`` (play
    phase), ``me`` ends the deal with ``points`` card points (dix de der included) and
    the other with the rest (the engine's :func:`~coinche_rl.engine.two.score_with_points`
    on ``T``, a scratch copy)."""
    for i in range(S.shape[0]):
        T[i] = S[i]
    return score_with_points(T, P, me, points)


@kernel
def _heuristic(S, P, V, rngb, buf):
    me = current_player(S)
    two_public_view_into(S, P, me, V)
    return _bot_action_two(np.int64(BOT_HEURISTIC), V, P, me, rngb, buf)


@njit(_nrt=False, inline="always")
def _rollout_two(U, P, a, me, V, rngb, buf, counters):
    """The rollout of :func:`.labels.rollout_targets`: ``a`` played in ``U``, then the
    heuristic for both players (each from his public view, ``V`` its scratch) to the end
    of the deal; ``me``'s deal score minus the other's. ``counters[1]`` counts the
    heuristic's decisions."""
    two_apply(U, P, a)
    while phase_of(U) != DONE:
        two_apply(U, P, _heuristic(U, P, V, rngb, buf))
        counters[1] += 1
    return deal_score(U, me) - deal_score(U, other(me))


@kernel
def _cards_left(S):
    m = np.int64(0)
    for p in range(2):
        m |= hand_of(S, p) | face_up_cards(S, p) | face_down_cards(S, p)
    return popcount(m)


@njit(cache=True)
def generate_chunk(P, seed, first_game, n_games, epsilon, solver_cards, tt, work,
                   feats, cards, targets, kinds, tricks, counters):
    """Label the card decisions of ``n_games`` deals (module docstring) into the output
    arrays (``feats`` float32[n, FEATURE_SIZE], ``cards`` uint8[n, 32], ``targets``
    float32[n, 32], ``kinds`` and ``tricks`` int8[n], ``n >= 32 * n_games``); ``tt``,
    ``work``: the solver's tables. ``counters`` (int64[2]) gets the decisions of the deals
    and of the heuristic play-outs. Returns the number of rows written."""
    S = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    T = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    U = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    rngb = np.zeros(1, dtype=np.uint64)
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    V, obs, mask, cobs, keys, order = C2.input_scratch()
    match = np.zeros(5, dtype=np.float64)
    vals = np.zeros(N_CARDS, dtype=np.int64)
    k = 0
    for g in range(n_games):
        rng_seed(rng, seed, first_game + g)
        while True:
            two_random_deal(S, P, rng, np.int64(-1), deck)
            while phase_of(S) != PLAY and phase_of(S) != DONE:
                two_apply(S, P, _heuristic(S, P, V, rngb, buf))
                counters[0] += 1
            if phase_of(S) == PLAY:
                break
        while phase_of(S) == PLAY:
            me = current_player(S)
            counters[0] += 1
            two_legal_mask(S, P, buf)
            legal = np.int64(0)
            for c in range(N_CARDS):
                if buf[A.CARD_BASE + c]:
                    legal |= np.int64(1) << c
            n_legal = popcount(legal)
            if n_legal >= 2:
                p = C2.state_inputs(S, P, me, match, V, obs, mask, cobs, keys, order,
                                    feats[k], cards[k])
                for c in range(N_CARDS):
                    targets[k, c] = 0.0
                if _cards_left(S) <= solver_cards:
                    new_generation(tt, work)
                    card_values_two(S, tt, work, vals)
                    m = legal
                    while m:
                        c = lowest_card(m)
                        m &= m - 1
                        v = score_difference(S, P, me, vals[c], T)
                        targets[k, C.ACT_DST[p, A.CARD_BASE + c] - A.CARD_BASE] = v
                    kinds[k] = KIND_SOLVER
                else:
                    rollout_targets(_rollout_two, S, U, P, legal, p, me, targets[k], V, rngb,
                                    buf, counters)
                    kinds[k] = KIND_ROLLOUT
                tricks[k] = trick_number(S)
                k += 1
            a = explore_card(rng, legal, n_legal, epsilon)
            if a < 0:
                a = _heuristic(S, P, V, rngb, buf)
            two_apply(S, P, a)
    return k


_TABLES = {}


def label_chunk(rules: RuleSet, seed: int, first_game: int, n_games: int,
                epsilon: float = 0.1, solver_cards: int = 12) -> LabelChunk:
    """One chunk of labels of ``n_games`` deals (:func:`generate_chunk`); a pure function
    of its arguments."""
    P = params_vector(rules)
    n = MAX_DECISIONS * n_games
    feats = np.empty((n, C2.FEATURE_SIZE), dtype=np.float32)
    cards = np.zeros((n, N_CARDS), dtype=np.uint8)
    targets = np.zeros((n, N_CARDS), dtype=np.float32)
    kinds = np.zeros(n, dtype=np.int8)
    tricks = np.zeros(n, dtype=np.int8)
    if "tt" not in _TABLES:
        _TABLES["tt"], _TABLES["work"] = new_tables()
    counters = np.zeros(2, dtype=np.int64)
    t0 = time.perf_counter()
    k = generate_chunk(P, np.int64(seed), np.int64(first_game), np.int64(n_games),
                       float(epsilon), np.int64(solver_cards), _TABLES["tt"], _TABLES["work"],
                       feats, cards, targets, kinds, tricks, counters)
    dt = time.perf_counter() - t0
    return LabelChunk(feats[:k].astype(np.float16), cards[:k].astype(bool), targets[:k].copy(),
                      kinds[:k].copy(), tricks[:k].copy(), n_games, dt, int(counters[0]),
                      int(counters[1]))


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the label kernels and the agent's input kernel (cached on disk)."""
    from ...rules import get_rules
    from ...two_player import TwoPlayerDeal
    label_chunk(get_rules("belote_decouverte"), 0, 0, 1, solver_cards=4)
    deal = TwoPlayerDeal("belote_decouverte", seed=0, dealer=0)
    C2.views_inputs(deal.public_state(deal.current_player)[None, :], params_vector(deal.rules),
                    np.array([deal.current_player], dtype=np.int64), np.zeros(5),
                    np.zeros((1, C2.FEATURE_SIZE), dtype=np.float32),
                    np.zeros((1, N_CARDS), dtype=np.uint8), np.zeros(1, dtype=np.int64))
