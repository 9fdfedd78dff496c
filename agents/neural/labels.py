"""Training labels for card play, generated in numba (``coinche_rl.agents.neural.labels``).

:func:`generate_chunk` plays whole deals and labels **every legal card** of every card
decision with the value it has *on the true deal*, for the acting team (its deal score
minus the other team's):

* ``rollout`` targets: the card is played, then the numba heuristic plays the rest of
  the deal at all four seats (one step of policy improvement over the heuristic,
  averaged over the real distribution of the hidden cards, since the training deals are
  real deals);
* ``solver`` targets, once at most ``solver_cards`` cards are left in the hands: the
  exact double-dummy value of each card (:func:`coinche_rl.solver.move_values_into`,
  the score objective), what PIMC would average over sampled worlds.

The deals: a random deal and dealer; with probability ``frozen`` the auction is skipped
for the arena's frozen contract (a random seat takes the minimum bid in its longest
suit, ties to the suit with more trump points), otherwise the numba heuristic bids at
all four seats (an all-pass deal is dealt again). The cards are played by the heuristic,
except that each card decision is a uniformly random legal card with probability
``epsilon`` (exploration, so that positions off the heuristic's path are labelled too).
Decisions with a single legal card and the declare / belote choices are not labelled.

Every output row is in the canonical suit order (:mod:`.canonical`): the network input,
the legal canonical cards, and the targets of the legal canonical cards (0 elsewhere).
A chunk depends only on ``(seed, first_game, n_games, deals_per_game, options)``: game
``g`` draws from sub-stream ``first_game + g`` of ``seed``, so any worker can generate
any chunk and the same seeds give the same data.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ... import actions as A
from ... import engine as E
from ...engine import (DONE, PLAY, STATE_SIZE, pending_choice, apply_legal_action,
                       auction_length, current_seat, hand_of, legal_play_mask, lowest_card,
                       phase_of, popcount, deal_into, rng_below, rng_next,
                       rng_seed, set_contract, team_score, trick_number, kernel, frozen_strain)
from ...cards import N_CARDS
from ...rules import CARDS_PER_HAND, N_SEATS, P_MIN_BID, RuleSet, card_points_table, params_vector
from ...rules import team as team_of
from ...solver import SCORE, move_values_into, new_workspace
from ...envs.kernels import rules_vector
from ..numba_bots import BOT_HEURISTIC, bot_action
from . import canonical as C
from .bid_actions import input_scratch

__all__ = ["generate_chunk", "LabelChunk", "label_chunk", "warmup", "KIND_ROLLOUT",
           "KIND_SOLVER", "u01", "random_card", "explore_card", "rollout_targets", "deal_scratch",
           "Positions", "card_actions", "PLAYER_NN", "PLAYER_HEURISTIC", "PLAYER_RANDOM"]

KIND_ROLLOUT, KIND_SOLVER = 0, 1
MAX_DECISIONS = N_SEATS * CARDS_PER_HAND       # a card decision per card dealt


@kernel
def u01(rng):
    return (rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def random_card(rng, legal, n_legal):
    """The action of a uniformly random card of the mask ``legal`` (``n_legal`` cards,
    at least one), drawn from ``rng``: the exploring card of the label kernels."""
    m = legal
    for _ in range(rng_below(rng, n_legal)):
        m &= m - 1
    return A.CARD_BASE + lowest_card(m)


@kernel
def explore_card(rng, legal, n_legal, epsilon):
    """The label kernels' exploration: with probability ``epsilon``, when there is a
    choice (``n_legal`` >= 2 cards in ``legal``), a uniformly random one
    (:func:`random_card`); else -1 (the heuristic plays)."""
    if n_legal >= 2 and u01(rng) < epsilon:
        return random_card(rng, legal, n_legal)
    return np.int64(-1)


@kernel
def _start_deal(S, P, rng, frozen, hands, deck, rngb, buf):
    """A new deal in ``S``, its auction played or skipped; returns False when the
    auction ended with every seat passing."""
    deal_into(S, P, rng, np.int64(-1), hands, deck)
    if u01(rng) < frozen:
        taker = rng_below(rng, N_SEATS)
        set_contract(S, P, P[P_MIN_BID], frozen_strain(hands[taker]), np.int64(0), taker)
        return True
    while phase_of(S) == E.AUCTION:
        cur = current_seat(S)
        apply_legal_action(S, P, bot_action(np.int64(BOT_HEURISTIC), S, P, cur, rngb, buf))
    return phase_of(S) == PLAY


@kernel
def start_played_deal(S, P, rng, frozen, hands, deck, rngb, buf):
    """:func:`_start_deal` until the deal reaches the card play (an all-pass auction is
    dealt again, from the same stream)."""
    while True:
        if _start_deal(S, P, rng, frozen, hands, deck, rngb, buf):
            return


@kernel
def _playout_value(T, P, team, rngb, buf, counters):
    """Play ``T`` to its end with the heuristic at every seat; ``team``'s score
    difference. ``counters[1]`` counts the decisions taken."""
    while phase_of(T) != DONE:
        cur = current_seat(T)
        apply_legal_action(T, P, bot_action(np.int64(BOT_HEURISTIC), T, P, cur, rngb, buf))
        counters[1] += 1
    return team_score(T, team) - team_score(T, 1 - team)


# The rollout targets are written once, over the family's rollout passed as an argument
# (as numba_bots' play loop is): inlined into each family's cached label kernel, whose
# signature holds arrays only, so that a family compiles its own bots only.
_specialised = njit(_nrt=False, inline="always")


@_specialised
def rollout_targets(rollout, S, T, P, legal, p, side, out, V, rngb, buf, counters):
    """The rollout target of each card of the mask ``legal`` at ``S`` (play phase, ``p``
    the canonical order's code) into ``out`` (a row of targets, canonical cards):
    ``rollout(T, P, card action, side, V, rngb, buf, counters)`` plays the card in ``T``
    (a copy of ``S``) and the family's heuristic to the end, and returns ``side``'s
    score difference."""
    m = legal
    while m:
        c = lowest_card(m)
        m &= m - 1
        for i in range(S.shape[0]):
            T[i] = S[i]
        out[C.ACT_DST[p, A.CARD_BASE + c] - A.CARD_BASE] = rollout(
            T, P, A.CARD_BASE + c, side, V, rngb, buf, counters)


@_specialised
def _rollout_four(T, P, a, team, _V, rngb, buf, counters):
    """The four-player rollout of :func:`rollout_targets` (the heuristic reads the
    state: no view)."""
    apply_legal_action(T, P, a)
    return _playout_value(T, P, team, rngb, buf, counters)


@njit(cache=True)
def deal_scratch():
    """The scratch arrays of a kernel that plays deals, new: two states ``S`` and ``T``,
    ``hands``, ``deck``, the deals' and the bots' random streams ``rng`` and ``rngb``, a
    bot's action buffer ``buf``."""
    return (np.zeros(STATE_SIZE, dtype=np.int64), np.zeros(STATE_SIZE, dtype=np.int64),
            np.zeros(N_SEATS, dtype=np.int64), np.zeros(N_CARDS, dtype=np.int64),
            np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.uint64),
            np.zeros(A.N_ACTIONS, dtype=np.uint8))


@njit(cache=True)
def generate_chunk(P, cpt, rules_vec, seed, first_game, n_games, deals_per_game, frozen,
                   epsilon, solver_cards, W, feats, cards, targets, kinds, tricks, counters):
    """Label the card decisions of ``n_games * deals_per_game`` deals (see the module
    docstring) into the output arrays (``feats`` float32[n, FEATURE_SIZE], ``cards``
    uint8[n, 32], ``targets`` float32[n, 32], ``kinds`` and ``tricks`` int8[n], with
    ``n >= 32 * n_games * deals_per_game``). ``W``: a solver workspace. ``counters``
    (int64[2]) gets the agent decisions of the deals themselves (auction, choices,
    cards) and those of the heuristic playouts. Returns the number of rows written."""
    S, T, hands, deck, rng, rngb, buf = deal_scratch()
    obs, cobs, mask, cmask, _cards, voids, ceil, keys, order = input_scratch()
    match = np.zeros(5, dtype=np.float64)
    out_a = np.zeros(16, dtype=np.int64)
    out_v = np.zeros(16, dtype=np.int64)
    k = 0
    for g in range(n_games):
        rng_seed(rng, seed, first_game + g)
        for _d in range(deals_per_game):
            start_played_deal(S, P, rng, frozen, hands, deck, rngb, buf)
            counters[0] += auction_length(S)
            while phase_of(S) != DONE:
                cur = current_seat(S)
                counters[0] += 1
                if pending_choice(S, P) != 0:
                    apply_legal_action(S, P, bot_action(np.int64(BOT_HEURISTIC), S, P, cur, rngb, buf))
                    continue
                legal = legal_play_mask(S, P)
                n_legal = popcount(legal)
                if n_legal >= 2:
                    team = team_of(cur)
                    p = C.play_inputs_one(S, P, cpt, rules_vec, match, obs, mask, cobs,
                                           cmask, voids, ceil, keys, order, feats[k], cards[k])
                    for c in range(N_CARDS):
                        targets[k, c] = 0.0
                    left = popcount(hand_of(S, 0) | hand_of(S, 1) | hand_of(S, 2) | hand_of(S, 3))
                    if left <= solver_cards:
                        n = move_values_into(W, S, P, np.int64(SCORE), team, out_a, out_v)
                        for i in range(n):
                            ca = C.ACT_DST[p, out_a[i]] - A.CARD_BASE
                            targets[k, ca] = out_v[i]
                        kinds[k] = KIND_SOLVER
                    else:
                        rollout_targets(_rollout_four, S, T, P, legal, p, team, targets[k], S,
                                        rngb, buf, counters)
                        kinds[k] = KIND_ROLLOUT
                    tricks[k] = trick_number(S)
                    k += 1
                a = explore_card(rng, legal, n_legal, epsilon)
                if a < 0:
                    a = bot_action(np.int64(BOT_HEURISTIC), S, P, cur, rngb, buf)
                apply_legal_action(S, P, a)
    return k


class LabelChunk:
    """Labelled decisions: ``feats`` (float16 [n, FEATURE_SIZE]), ``cards`` (bool
    [n, 32] legal canonical cards), ``targets`` (float32 [n, 32], deal-score points for
    the acting team, 0 on illegal cards), ``kinds`` (0 rollout, 1 solver) and
    ``tricks`` (trick index 0..7)."""

    __slots__ = ("feats", "cards", "targets", "kinds", "tricks", "deals", "seconds",
                 "agent_steps", "playout_steps")

    def __init__(self, feats, cards, targets, kinds, tricks, deals, seconds, agent_steps=0,
                 playout_steps=0):
        self.feats, self.cards, self.targets = feats, cards, targets
        self.kinds, self.tricks, self.deals, self.seconds = kinds, tricks, deals, seconds
        #: decisions of the labelled deals themselves / of the heuristic playouts
        self.agent_steps, self.playout_steps = agent_steps, playout_steps

    def __len__(self):
        return len(self.targets)


_WS = {}


def label_chunk(rules: RuleSet, seed: int, first_game: int, n_games: int,
                deals_per_game: int = 1, frozen: float = 0.5, epsilon: float = 0.1,
                solver_cards: int = 16) -> LabelChunk:
    """Generate one chunk of labels (see :func:`generate_chunk`); a pure function of its
    arguments."""
    import time
    P = params_vector(rules)
    cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
    rv = rules_vector(rules)
    n = MAX_DECISIONS * n_games * deals_per_game
    feats = np.empty((n, C.FEATURE_SIZE), dtype=np.float32)
    cards = np.zeros((n, N_CARDS), dtype=np.uint8)
    targets = np.zeros((n, N_CARDS), dtype=np.float32)
    kinds = np.zeros(n, dtype=np.int8)
    tricks = np.zeros(n, dtype=np.int8)
    W = _WS.get("W")
    if W is None:
        W = _WS["W"] = new_workspace(16)
    counters = np.zeros(2, dtype=np.int64)
    t0 = time.perf_counter()
    k = generate_chunk(P, cpt, rv, np.int64(seed), np.int64(first_game), np.int64(n_games),
                       np.int64(deals_per_game), float(frozen), float(epsilon),
                       np.int64(solver_cards), W, feats, cards, targets, kinds, tricks,
                       counters)
    dt = time.perf_counter() - t0
    return LabelChunk(feats[:k].astype(np.float16), cards[:k].astype(bool), targets[:k].copy(),
                      kinds[:k].copy(), tricks[:k].copy(), n_games * deals_per_game, dt,
                      int(counters[0]), int(counters[1]))


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the label kernels (cached on disk)."""
    from ...rules import get_rules
    label_chunk(get_rules("ffb"), 0, 0, 1)


# ------------------------------------------------------------------ belief positions
# (the belief nets' training positions, :mod:`.belief`, of both families: here, below
# the agent and the family table, so that each family's position generator reads them)
#: card players of the training population
PLAYER_NN, PLAYER_HEURISTIC, PLAYER_RANDOM = 0, 1, 2


@dataclass
class Positions:
    """Training positions: ``feats`` float16[n, FEATURE_SIZE] (the net input),
    ``labels`` int8[n, 32] (:func:`.belief.position_labels`), ``tricks`` int8[n] (the trick
    number, 0..7), ``deals`` (deals played)."""
    feats: np.ndarray
    labels: np.ndarray
    tricks: np.ndarray
    deals: int

    @classmethod
    def joined(cls, feats, labels, tricks, deals: int, n_features: int) -> "Positions":
        """The positions of the lists of blocks ``feats``, ``labels``, ``tricks``."""
        if not feats:
            return cls(np.zeros((0, n_features), np.float16), np.zeros((0, N_CARDS), np.int8),
                       np.zeros(0, np.int8), deals)
        return cls(np.concatenate(feats), np.concatenate(labels), np.concatenate(tricks), deals)


def card_actions(rng, who, eps: float, feats, legal, perms, play_net, heuristic) -> np.ndarray:
    """The physical card actions of the training population at card decisions with a
    choice: ``who`` each decision's card player (:data:`PLAYER_NN`, ...), a uniformly
    random legal card with probability ``eps`` (``rng``), the net's best legal card from
    the inputs ``feats`` / ``legal`` / ``perms``, or ``heuristic(rows)`` (the heuristic's
    actions at the boolean ``rows``)."""
    rand = (who == PLAYER_RANDOM) | (rng.random(len(who)) < eps)
    a = np.empty(len(who), dtype=np.int64)
    net = (who == PLAYER_NN) & ~rand
    if net.any():
        q = play_net.forward(feats[net])
        q[~legal[net]] = -np.inf
        a[net] = C.ACT_SRC[perms[net], A.CARD_BASE + q.argmax(axis=1)]
    heur = (who == PLAYER_HEURISTIC) & ~rand
    if heur.any():
        a[heur] = heuristic(heur)
    if rand.any():
        lg = legal[rand]
        u = rng.random(lg.shape) * lg
        a[rand] = C.ACT_SRC[perms[rand], A.CARD_BASE + u.argmax(axis=1)]
    return a
