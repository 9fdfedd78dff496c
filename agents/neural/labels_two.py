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
                           score_with_points, face_down_cards, face_up_cards, hand_of,
                           known_cards, other, phase_of, py, trick_number,
                           two_apply, two_legal_mask, two_public_view_into, two_random_deal)
from ...envs.kernels import apply_at
from ...rules import RuleSet, params_vector
from ...solver_two import card_values_two, new_generation, new_tables
from ..numba_bots import BOT_HEURISTIC, _bot_action_two, batch_bot_actions
from ..sampler import hand_constraints, hand_odds, view_hand_marginals
from . import canonical as C
from . import canonical_two as C2
from .labels import (KIND_ROLLOUT, KIND_SOLVER, PLAYER_HEURISTIC, PLAYER_NN, LabelChunk, Positions,
                     card_actions, explore_card, rollout_targets)

__all__ = ["generate_chunk", "label_chunk", "score_difference", "warmup", "MAX_DECISIONS",
           "belief_labels", "belief_positions", "belief_scores", "uniform_loss_two", "IN_HAND", "FACE_DOWN",
           "FACE_DOWN_FORCED"]

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


# ---------------------------------------------------------------- the belief net's labels
# Where a card hidden from the player to act lies: in the other hand (unknown to him), or
# face down (under one of the stacks, his own or the other's: a face-down card is unknown
# to both players, RULES.md §12). Which face-down place holds it is not a class: no
# decision ever reads a face-down card, so given the other hand every placement of the
# rest over the face-down places is equally likely, and the sampler draws it uniformly
# (:func:`coinche_rl.agents.sampler.sample_world_from`). The belief net of the family
# therefore gives each hidden card's probability of lying in the other hand.
#: a hidden card's labels: in the other hand, face down (it might have been in the other
#: hand), face down and ruled out of that hand by the rules (no loss: its place is known)
IN_HAND, FACE_DOWN, FACE_DOWN_FORCED = 1, 2, 3


@njit(cache=True)
def belief_labels(states, views, idx, perms, out):
    """``out[j, c]`` (int8[n, 32]) for the player to act in ``states[idx[j]]`` (his public
    view ``views[j]``, renaming ``perms[j]``): for canonical card ``c``, :data:`IN_HAND`,
    :data:`FACE_DOWN` or :data:`FACE_DOWN_FORCED` when it is hidden from him (the
    constraints his view puts on the other hand: :func:`~coinche_rl.agents.sampler.
    hand_constraints`), 0 when he sees it."""
    for j in range(idx.shape[0]):
        S = states[idx[j]]
        me = current_player(S)
        o = other(me)
        allowed = hand_constraints(views[j], me)
        known = known_cards(S, me)
        p = perms[j]
        for c in range(N_CARDS):
            out[j, c] = 0
        hidden_hand = hand_of(S, o) & ~known
        down = face_down_cards(S, 0) | face_down_cards(S, 1)
        for c in range(N_CARDS):
            bit = np.int64(1) << c
            k = C.PERMS[p, c >> 3] * 8 + (c & 7)
            if hidden_hand & bit:
                out[j, k] = IN_HAND
            elif down & bit:
                out[j, k] = FACE_DOWN if allowed & bit else FACE_DOWN_FORCED


@njit(cache=True)
def deal_games(states, P, seed, first_game):
    """Deal game ``g`` of ``states`` from sub-stream ``first_game + g`` of ``seed``: a
    random deal and dealer."""
    rng = np.zeros(1, dtype=np.uint64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    for g in range(states.shape[0]):
        rng_seed(rng, seed, first_game + g)
        two_random_deal(states[g], P, rng, np.int64(-1), deck)


def belief_positions(rules: RuleSet, seed: int, first_game: int, n_games: int, mix: dict,
                     play_net, bid_net, rng) -> "Positions":
    """The belief net's positions of belote for two players
    (:func:`~.belief.generate_positions`): each player of each deal is the shipped ``nn``
    card player, the heuristic or a random player (``mix["players"]``), each card
    decision random with probability ``mix["epsilon"]``; the prise and the exchange are
    the prise net's in the deals ``mix["auction"]`` gives to the bidding net, else the
    heuristic's (a void deal gives no position). A position is every card decision with a
    choice where the other hand holds a card the player cannot see and at least one
    face-down card might be there instead (else nothing is uncertain in the labels)."""
    from .batch_play import BID_NET, CARD_NET, TwoNetInputs, seed_streams
    P = params_vector(rules)
    inputs = TwoNetInputs(rules, n_games)
    players = rng.choice(3, size=(n_games, 2), p=np.asarray(mix["players"], dtype=float))
    if play_net is None:
        players[players == PLAYER_NN] = PLAYER_HEURISTIC
    share = np.asarray(mix["auction"], dtype=float)[:2]
    net_prise = rng.random(n_games) < (share[0] / share.sum() if bid_net is not None else 0.0)
    states = np.zeros((n_games, TWO_STATE_SIZE), dtype=np.int64)
    deal_games(states, P, np.uint64(seed), first_game)
    seeds = np.zeros((n_games, 4), dtype=np.int64)
    seeds[:, :2] = (np.int64(seed) * 1_000_003 + first_game + np.arange(n_games, dtype=np.int64)
                    )[:, None] * 2 + np.arange(2)
    rngs = np.zeros((n_games, 4), dtype=np.uint64)
    seed_streams(seeds, rngs)
    out_f, out_l, out_t = [], [], []
    for idx in _decisions(states, P, rngs, CARD_NET | BID_NET):
        k = len(idx)
        V, _rows = inputs.readable(states, idx)
        me = np.array([py.current_player(S) for S in states[idx]], dtype=np.int64)
        prise = np.array([py.phase_of(S) != PLAY for S in states[idx]], dtype=bool)
        acts = np.empty(k, dtype=np.int64)
        if prise.any():
            rows = np.flatnonzero(prise)
            acts[rows] = _heuristic_actions(V, P, rows, me)
            net = rows[net_prise[idx[rows]]]
            if len(net):
                acts[net] = bid_net.actions(inputs, V, net)
        if (~prise).any():
            rows = np.flatnonzero(~prise)
            feats, legal, perms = inputs.compute(V, rows)
            feats, legal, perms = feats.copy(), legal.copy(), perms.copy()
            labels = np.empty((len(rows), N_CARDS), dtype=np.int8)
            belief_labels(states, np.ascontiguousarray(V[rows]), idx[rows], perms, labels)
            keep = (labels == IN_HAND).any(1) & (labels == FACE_DOWN).any(1)
            out_f.append(feats[keep].astype(np.float16))
            out_l.append(labels[keep])
            out_t.append(np.array([py.trick_number(S) for S in states[idx[rows[keep]]]],
                                  dtype=np.int8))
            acts[rows] = card_actions(rng, players[idx[rows], me[rows]], float(mix["epsilon"]),
                                      feats, legal, perms, play_net,
                                      lambda sel: _heuristic_actions(V, P, rows[sel], me))
        apply_at(states, P, idx, k, acts)
    return Positions.joined(out_f, out_l, out_t, n_games, C2.FEATURE_SIZE)


def _decisions(states, P, rngs, flag):
    """The deals of ``states`` waiting for a decision with a choice, batch after batch
    (:func:`.batch_play.advance_players` with ``flag`` for both players, the heuristic
    for the decisions without a choice), until every deal is over; the caller applies
    their actions between batches."""
    from .batch_play import advance_players
    n = len(states)
    waiting = np.zeros(n, dtype=np.int64)
    flags = np.full(2, flag, dtype=np.int64)
    bots = np.full(2, BOT_HEURISTIC, dtype=np.int64)
    seats = np.ascontiguousarray(np.broadcast_to(np.arange(4, dtype=np.int64), (n, 4)))
    while (k := advance_players(states, P, seats, flags, bots, rngs, waiting)) != 0:
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in deal {-k - 1}")
        yield waiting[:k].copy()


def _heuristic_actions(V, P, rows, me):
    """The heuristic's actions in the public views ``V[rows]`` of players ``me[rows]``."""
    out = np.empty(len(rows), dtype=np.int64)
    batch_bot_actions(np.int64(BOT_HEURISTIC), np.ascontiguousarray(V[rows]), P,
                      np.ascontiguousarray(me[rows]), out)
    return out


def uniform_loss_two(labels) -> float:
    """The mean log-loss per labelled hidden card (:data:`IN_HAND`, :data:`FACE_DOWN`) of
    the uniform worlds' marginals: each of the ``n`` cards that may lie in the other hand
    does with probability ``h / n`` (``h`` the hand's hidden cards), the announced
    declaration aside."""
    labels = np.asarray(labels)
    h = (labels == IN_HAND).sum(1).astype(float)
    n = h + (labels == FACE_DOWN).sum(1)
    ok = (h > 0) & (h < n)
    h, n = h[ok], n[ok]
    total = -(h * np.log(h / n) + (n - h) * np.log1p(-h / n)).sum()
    return float(total / max(1.0, n.sum()))


def belief_scores(belief, deal, player: int, view):
    """The belief's report's scores (:func:`~.belief.belief_report`) of the decision of
    ``player`` (his ``view``) in ``deal`` (a :class:`~coinche_rl.two_player.TwoPlayerDeal`):
    None unless it is a position of the belief net (a card decision with a choice where a
    card he cannot see lies in the other hand and one that might be there lies face
    down: :func:`belief_positions`'s); else ``(losses, trick, p, y)`` as
    :func:`~.belief.four_belief_scores`: the mean log-loss per labelled card
    (:data:`IN_HAND` or :data:`FACE_DOWN`: in the other hand or not) of the uniform
    worlds' marginals, of the net's and of the believed worlds' (``losses["uniform"]``,
    ``["net"]``, ``["worlds"]``: the exact probability that each card lies in the other
    hand in the worlds :func:`~coinche_rl.agents.sampler.draw_view_worlds` draws, without
    and with the belief's odds, :func:`~coinche_rl.agents.sampler.view_hand_marginals`;
    the announced declaration's redraws aside, as in the trainer's baseline
    :func:`uniform_loss_two`), the trick (0-based), and the net's calibration pairs (its
    probability that each labelled card lies in the other hand, whether it does)."""
    if deal.phase != "play" or bin(int(deal.legal_cards())).count("1") < 2:
        return None
    feats, perm = belief.view_inputs(view)
    labels = np.empty((1, N_CARDS), dtype=np.int8)
    belief_labels(np.array(deal.state[None, :]), np.array(view.state[None, :]),  # writable,
                  np.zeros(1, dtype=np.int64), np.array([perm], dtype=np.int64), labels)  # as trained
    lab = labels[0]
    if not ((lab == IN_HAND).any() and (lab == FACE_DOWN).any()):
        return None
    scored = (lab == IN_HAND) | (lab == FACE_DOWN)
    there = lab[scored] == IN_HAND
    canon = C.CARD_DST[perm]                                  # physical -> canonical
    p_net = belief.canonical_probs(feats)[0, :, 0]
    odds = np.empty(N_CARDS, dtype=np.float64)
    hand_odds(view.state, np.int64(player), p_net[canon], odds)   # belief.other_hand(view)
    probs = {"uniform": view_hand_marginals(view), "worlds": view_hand_marginals(view, odds)}
    losses = {"net": _loss(p_net[scored], there)}
    for name, phys in probs.items():
        q = np.zeros(N_CARDS)
        q[canon] = phys
        losses[name] = _loss(q[scored], there)
    return ({k: losses[k] for k in ("uniform", "net", "worlds")},
            int(py.trick_number(deal.state)), p_net[scored].tolist(), there.astype(float).tolist())


def _loss(p, there) -> float:
    """Mean log-loss of the probabilities ``p`` that cards lie in the other hand, where
    ``there`` says which do."""
    q = np.where(there, p, 1.0 - p)
    return float(np.mean(-np.log(np.maximum(q, 1e-12))))
