"""Training labels for the prise of belote for two players
(``coinche_rl.agents.neural.prise_labels``): what :mod:`.bid_labels` is for the
four-player auction, read by the same trainer (``coinche-rl train bid --rules
belote_a_deux``) through the family's description (:mod:`.family`).

A chunk plays the prise and the exchange of real deals and labels **every legal action**
of every such decision with two or more choices (take / pass in the first round, name a
suit / pass in the second, exchange the 7 of trump or not) for the player to decide,
with a counterfactual target on the true deal:

``q``  the action is taken, the rest of the prise and the exchange are played out by
       the numba heuristic (the player's own later decisions too; from each player's
       public view), then the cards by the card player at both players (the shipped ``nn`` play net, batched:
       :func:`~.batch_play.play_states_two`, or the heuristic): the player's deal score
       minus the other's, the engine's scores (a void deal, both players passing twice,
       scores 0 for both);
``ev`` / ``made``
       for the actions that make the player the taker (take, name a suit): the same
       value and whether the contract was made (the four-player heads' meaning: the
       deal's value if the player took that trump now).

The deals: a random deal and dealer from sub-stream ``first_game + g`` of ``seed``, the
heuristic's prise and exchange, except that each decision with a choice is a uniformly
random legal action with probability ``epsilon`` (positions off the heuristic's path).
The network reads the other player's prise as the heuristic's, so once a player has
taken a random action only that player's later decisions are labelled. The rows are in
the canonical order of the prise (:func:`.canonical_two.prise_inputs`: the retourne's
suit in slot 0). A chunk depends only on ``(seed, first_game, n_games, epsilon,
players)`` and the card-play net.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import kernel, rng_below, rng_seed
from ...engine.two import (EXCHANGE_PHASE, MADE_MADE, PRISE, TWO_STATE_SIZE, py, current_player, phase_of, two_apply, two_legal_mask,
                           two_public_view_into, two_random_deal)
from ...rules import RuleSet, params_vector
from ..numba_bots import BOT_HEURISTIC, _bot_action_two
from . import canonical_two as C2
from .batch_play import play_states_two
from .bid_actions import BID_SPACES, label_players
from .bid_labels import BidChunk
from .labels import u01

__all__ = ["prise_positions", "label_prise_chunk", "warmup", "MAX_POSITIONS"]

_SPACE = BID_SPACES["two"]
_SRC = _SPACE.src
N_PRISE = _SPACE.n
#: the prise decisions of a deal (four in the two rounds) and the exchange
MAX_POSITIONS = 5
#: the outputs that make the player the taker: take, the namings
_TAKES = np.array([a == A.TAKE or A.NAME_BASE <= a < A.NAME_BASE + 4
                   for a in _SPACE.actions], dtype=bool)


@kernel
def _in_prise(S):
    ph = phase_of(S)
    return ph == PRISE or ph == EXCHANGE_PHASE


@kernel
def _heuristic(S, P, V, rngb, buf):
    me = current_player(S)
    two_public_view_into(S, P, me, V)
    return _bot_action_two(np.int64(BOT_HEURISTIC), V, P, me, rngb, buf)


@njit(cache=True)
def prise_positions(P, seed, first_game, n_games, epsilon, starts, feats, legal, pos_game,
                    pos_player, pos_perm, pos_state, cont, cont_pos, cont_out, counters):
    """Play the prise (and exchange) of ``n_games`` deals (game ``g`` from sub-stream
    ``first_game + g`` of ``seed``; its fresh state into ``starts[g]``) and record every
    decision with two or more choices that is labelled (module docstring): the input
    ``feats[k]``, the legal outputs ``legal[k]`` (uint8[N_PRISE]), the player, the
    renaming and the state ``pos_state[k]``; and for each legal output ``j`` the state
    after it, ``cont[r]``, with ``cont_pos[r] = k`` and ``cont_out[r] = j`` (played out
    by :func:`label_prise_chunk`). Returns ``(positions, rows)``. ``counters[0]``: the
    prise decisions of the deals."""
    S = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    V = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    rngb = np.zeros(1, dtype=np.uint64)
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    m = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    _V, obs, mask, cobs, keys, order = C2.input_scratch()
    match = np.zeros(5, dtype=np.float64)
    k = 0
    r = 0
    for g in range(n_games):
        rng_seed(rng, seed, first_game + g)
        two_random_deal(S, P, rng, np.int64(-1), deck)
        rng_seed(rngb, seed ^ 0x5EED, first_game + g)
        starts[g, :] = S
        random_by = 0
        while _in_prise(S):
            me = current_player(S)
            counters[0] += 1
            n_legal = two_legal_mask(S, P, m)
            if n_legal >= 2 and (random_by & ~(1 << me)) == 0:
                two_public_view_into(S, P, me, V)
                p = C2.prise_inputs(V, P, me, match, obs, mask, cobs, keys, order, feats[k],
                                    legal[k])
                pos_game[k] = g
                pos_player[k] = me
                pos_perm[k] = p
                pos_state[k, :] = S
                for j in range(N_PRISE):
                    if legal[k, j]:
                        cont[r, :] = S
                        two_apply(cont[r], P, _SRC[p, j])
                        cont_pos[r] = k
                        cont_out[r] = j
                        r += 1
                k += 1
            if n_legal >= 2 and u01(rng) < epsilon:
                random_by |= 1 << me
                i = rng_below(rng, n_legal)
                a = 0
                while True:
                    if m[a]:
                        if i == 0:
                            break
                        i -= 1
                    a += 1
            else:
                a = _heuristic(S, P, V, rngb, buf)
            two_apply(S, P, a)
    return k, r


def label_prise_chunk(rules: RuleSet, seed: int, first_game: int, n_games: int,
                      epsilon: float = 0.1, players: Sequence[str] = ("heuristic",),
                      play_net=None) -> BidChunk:
    """One chunk of prise labels (see the module docstring), a :class:`~.bid_labels.
    BidChunk` over :data:`.bid_actions.PRISE_ACTIONS` (``finals``: unused, empty); a
    pure function of its arguments (``play_net``: the card-play net of the ``"nn"``
    player). The heuristic and the net are deterministic, so each label is the score of
    playing its action out from the position's state with :func:`~.batch_play.
    play_states_two` (the tests check it)."""
    players = label_players(players, play_net)
    t0 = time.perf_counter()
    P = params_vector(rules)
    cap = MAX_POSITIONS * n_games
    starts = np.zeros((n_games, TWO_STATE_SIZE), dtype=np.int64)
    feats = np.zeros((cap, C2.FEATURE_SIZE), dtype=np.float32)
    legal = np.zeros((cap, N_PRISE), dtype=np.uint8)
    pos_game = np.zeros(cap, dtype=np.int64)
    pos_player = np.zeros(cap, dtype=np.int64)
    pos_perm = np.zeros(cap, dtype=np.int64)
    pos_state = np.zeros((cap, TWO_STATE_SIZE), dtype=np.int64)
    cont = np.zeros((cap * 4, TWO_STATE_SIZE), dtype=np.int64)
    cont_pos = np.zeros(cap * 4, dtype=np.int64)
    cont_out = np.zeros(cap * 4, dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    k, r = prise_positions(P, np.int64(seed), np.int64(first_game), np.int64(n_games),
                           float(epsilon), starts, feats, legal, pos_game, pos_player,
                           pos_perm, pos_state, cont, cont_pos, cont_out, counters)
    cont, cont_pos, cont_out = cont[:r], cont_pos[:r], cont_out[:r]
    me = pos_player[cont_pos]
    seeds = (np.int64(seed) * 1_000_003 + np.int64(first_game) * 4 * cap
             + 2 * np.arange(r, dtype=np.int64)[:, None] + np.arange(2)).astype(np.int64)
    q = np.zeros((k, len(players), N_PRISE), dtype=np.float32)
    ev = np.zeros_like(q)
    made = np.zeros((k, len(players), N_PRISE), dtype=bool)
    takes = _TAKES[cont_out]
    for i, pl in enumerate(players):
        states = cont.copy()
        net = play_net if pl == "nn" else None
        play_states_two(rules, states, seeds, [BOT_HEURISTIC] * 2, [net, net])
        s0, s1 = py.deal_scores(states, 0), py.deal_scores(states, 1)
        d = np.where(me == 0, s0 - s1, s1 - s0).astype(np.float32)
        q[cont_pos, i, cont_out] = d
        ev[cont_pos[takes], i, cont_out[takes]] = d[takes]
        made[cont_pos[takes], i, cont_out[takes]] = (py.deals_made(states)[takes] == MADE_MADE) \
            & (py.takers(states)[takes] == me[takes])
    ev_valid = np.zeros((k, N_PRISE), dtype=bool)
    ev_valid[cont_pos[takes], cont_out[takes]] = True
    return BidChunk(feats=feats[:k].astype(np.float16), legal=legal[:k].astype(bool), q=q,
                    ev=ev, made=made, ev_valid=ev_valid, seats=pos_player[:k].copy(),
                    games=pos_game[:k] + first_game, states=pos_state[:k].copy(),
                    finals=np.zeros((k, N_PRISE, 0), dtype=np.int64), starts=starts,
                    deals=n_games, seconds=time.perf_counter() - t0,
                    agent_steps=int(counters[0]), rollout_steps=int(counters[1]),
                    playouts=r * len(players))


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the prise label kernels (cached on disk)."""
    from ...rules import get_rules
    label_prise_chunk(get_rules("belote_a_deux"), 0, 0, 1)
