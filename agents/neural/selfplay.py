"""Self-play labels for card play: Monte Carlo policy iteration
(``coinche_rl.agents.neural.selfplay``).

A chunk plays real deals with a **table of players** at the four seats and labels every
card decision with a choice of the *learner* (the current generation's card network) with
the value of **every legal card on the true deal**: the card is played, then the rest of
the deal is played out by the same four players (each seat deciding on its own
information: a network reads the seat's observation, never the other hands), and the
target is the acting team's deal score minus the other team's. Every card of a decision
is played out on the same deal, so the luck of the deal cancels between them; averaged
over the real distribution of the hidden cards (the training deals are real deals), the
targets are one step of policy improvement over the table: the network trained on them
is the next generation (Belot's Monte Carlo policy iteration, ``../shared/NEURAL.md``:
every legal card rolled out on the true deal by the current nets at all seats).

The players of a chunk (:class:`SelfPlayTable`): player 0 is the learner (the
generation's card network, and the shipped bidding network where one ships for the preset,
else the heuristic's auction); then the numba heuristic, the numba random bot, and the
past generations' card networks (with the same bidding network). In each deal one team
(drawn) is the learner's; the other team is one player of the **opponent pool**
(``shares``: the learner itself, i.e. pure self-play, the heuristic, random play, a past
generation), both seats the same. The learner's seats are labelled, so in a self-play
deal all four seats are. The continuations keep the deal's table, so the targets are
the value of a card *against the opponents actually met*: a net trained on them learns
to punish weak play instead of assuming the heuristic.

The auction is played by the same players (the learner and past generations bid with
the bidding network, the bots with their own auction), or skipped with probability
``frozen`` for the arena's frozen contract (a random seat takes the minimum bid in its
longest suit). A deal whose four seats pass gives no label. With probability
``epsilon`` a learner's card decision in the labelled trajectory (not in the
continuations) is a uniformly random legal card, after it is labelled (exploration).

Everything runs in lockstep batches (:func:`play_table`): numba steps every game to its
next network decision, then one forward pass per network labels the waiting decisions of
all games at once. A chunk depends only on ``(seed, first_game, n_games, frozen, epsilon,
shares)`` and the networks' weights: game ``g`` draws from sub-stream ``first_game + g``
of ``seed``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional, Sequence

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import (AUCTION, DONE, STATE_SIZE, apply_legal_action, current_seat,
                       current_seats, legal_play_mask, lowest_card, phase_of, phases_of,
                       popcount, deal_into, rng_below, rng_next, rng_seed,
                       set_contract, team_score, trick_number, frozen_strain)
from ...cards import N_CARDS
from ...rules import CARDS_PER_HAND, N_SEATS, N_TEAMS, P_MIN_BID, RuleSet, params_vector
from ...rules import team as team_of
from ...envs.kernels import apply_at
from ..numba_bots import BOT_HEURISTIC, BOT_RANDOM, bot_action
from . import canonical as C
from .batch_play import BID_NET, CARD_NET, NET_CARD, BidNet, NetInputs, net_choice
from .labels import KIND_ROLLOUT, LabelChunk, random_card, u01
from .net import MLP

__all__ = ["SelfPlayTable", "OPPONENTS", "parse_opponents", "selfplay_chunk", "play_table",
           "play_trajectories", "value_positions", "warmup"]

#: the opponent pool's kinds, in the order of :func:`parse_opponents`'s shares
OPPONENTS = ("self", "heuristic", "random", "past")
#: the players of a table: the learner, the two numba bots, then the past generations
P_LEARNER, P_HEURISTIC, P_RANDOM, P_PAST = 0, 1, 2, 3
#: sub-streams of a chunk's seed: the games, and the bots of the continuations
_CONTINUATIONS = 1 << 40
#: a game's streams: its seats' bots (``rngs[g, :N_SEATS]``), then the exploration stream
EXPLORE = N_SEATS


def parse_opponents(text: str) -> np.ndarray:
    """The opponent pool ``"self=0.5,heuristic=0.3,past=0.15,random=0.05"`` as shares
    float64[4] in the order of :data:`OPPONENTS` (normalised to sum 1; a kind left out
    has share 0). Raises ValueError naming what is wrong."""
    shares = np.zeros(len(OPPONENTS))
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        name, eq, value = part.partition("=")
        name = name.strip()
        if not eq or name not in OPPONENTS:
            raise ValueError(f"opponents: {part!r} is not KIND=SHARE with KIND one of "
                             f"{', '.join(OPPONENTS)} (e.g. 'self=0.5,heuristic=0.3,"
                             f"past=0.15,random=0.05')")
        try:
            v = float(value)
        except ValueError:
            raise ValueError(f"opponents: the share of {name!r} is {value!r}, not a "
                             f"number") from None
        if not v >= 0.0:
            raise ValueError(f"opponents: the share of {name!r} must be at least 0, not {v}")
        shares[OPPONENTS.index(name)] += v
    if shares.sum() <= 0.0:
        raise ValueError(f"opponents: {text!r} gives no kind a positive share")
    return shares / shares.sum()


@dataclass
class SelfPlayTable:
    """The players of a chunk: the learner's card network ``net`` (player 0), the bots,
    and the past generations ``past`` (players 3, 4, ...); ``bid_net`` bids for the
    networks' seats (None: the heuristic's auction)."""
    net: MLP
    bid_net: Optional[BidNet] = None
    past: List[MLP] = field(default_factory=list)

    @property
    def n_players(self) -> int:
        return P_PAST + len(self.past)

    def card_nets(self) -> list:
        return [self.net, None, None, *self.past]

    def flags(self) -> np.ndarray:
        """Each player's network flags (:data:`~.agent.CARD_NET` | :data:`~.agent.BID_NET`)."""
        bid = BID_NET if self.bid_net is not None else 0
        return np.array([CARD_NET | bid, 0, 0] + [CARD_NET | bid] * len(self.past),
                        dtype=np.int64)

    def bots(self) -> np.ndarray:
        """Each player's numba bot (the bots' decisions, and the networks' declare /
        belote choices and auction without a bidding network)."""
        return np.array([BOT_HEURISTIC, BOT_HEURISTIC, BOT_RANDOM]
                        + [BOT_HEURISTIC] * len(self.past), dtype=np.int64)


@njit(cache=True)
def setup_games(P, seed, first_game, frozen, cum_shares, n_past, states, seats, rngs):
    """Deal game ``g`` of ``states`` from sub-stream ``first_game + g`` of ``seed``: a
    random deal and dealer, the frozen contract with probability ``frozen``; the
    learner's team and the opponents' player (``cum_shares``: cumulative shares of
    :data:`OPPONENTS`; ``past`` draws one of the ``n_past`` generations uniformly, or
    the learner when there is none) into ``seats[g]``; the bots' streams ``rngs[g, :4]``
    and the exploration stream ``rngs[g, 4]``."""
    hands = np.zeros(N_SEATS, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for g in range(states.shape[0]):
        rng_seed(rng, seed, first_game + g)
        S = states[g]
        deal_into(S, P, rng, np.int64(-1), hands, deck)
        if u01(rng) < frozen:
            taker = rng_below(rng, N_SEATS)
            set_contract(S, P, P[P_MIN_BID], frozen_strain(hands[taker]), np.int64(0), taker)
        learner_team = rng_below(rng, N_TEAMS)
        u = u01(rng)
        kind = 0                             # the index in OPPONENTS = the player
        while kind < 3 and u >= cum_shares[kind]:
            kind += 1
        other = kind
        if kind == P_PAST:                   # one past generation, or the learner
            other = P_PAST + rng_below(rng, n_past) if n_past > 0 else P_LEARNER
        for s in range(N_SEATS):
            seats[g, s] = 0 if team_of(s) == learner_team else other
        for j in range(N_SEATS + 1):
            rngs[g, j] = rng_next(rng)


@njit(cache=True)
def advance_table(states, P, seats, flags, bots, rngs, waiting, epsilon, record, rec,
                  rec_game, n_rec):
    """Play every game of ``states`` until the seat to act faces a decision of a
    network (:func:`~.agent.net_choice` with the flags of its player ``seats[i, seat]``)
    or the deal is over; the other decisions are the player's numba bot's (stream
    ``rngs[i, seat]``). With ``record``, each card decision with a choice of the learner
    (player 0) is first copied into ``rec[n_rec[0]]`` (its game into ``rec_game``),
    then with probability ``epsilon`` (stream ``rngs[i, 4]``) a uniformly random legal
    card is played instead of the network's. The games waiting for a network go into
    ``waiting``; returns how many."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        while phase_of(S) != DONE:
            cur = current_seat(S)
            p = seats[i, cur]
            a = net_choice(S, P, flags[p])
            if a == NET_CARD:
                if record and p == 0:
                    r = n_rec[0]
                    for j in range(STATE_SIZE):
                        rec[r, j] = S[j]
                    rec_game[r] = i
                    n_rec[0] = r + 1
                    if epsilon > 0.0 and u01(rngs[i, EXPLORE:EXPLORE + 1]) < epsilon:
                        legal = legal_play_mask(S, P)
                        apply_legal_action(S, P, random_card(rngs[i, EXPLORE:EXPLORE + 1], legal,
                                                             popcount(legal)))
                        continue
                waiting[k] = i
                k += 1
                break
            if a < 0:
                a = bot_action(bots[p], S, P, cur, rngs[i, cur:cur + 1], buf)
            apply_legal_action(S, P, a)
    return k


@njit(cache=True)
def branch_out(rec, rec_game, n, P, seed, first_branch, seats, out_states, out_seats,
               out_rngs, out_row, out_card):
    """Every legal card of every recorded decision ``rec[:n]``: the state after the card
    into ``out_states`` (its table into ``out_seats``, fresh bot streams from sub-stream
    ``first_branch + j`` of ``seed`` into ``out_rngs``, the decision into ``out_row``
    and the card into ``out_card``); returns the number of branches."""
    rng = np.zeros(1, dtype=np.uint64)
    j = 0
    for r in range(n):
        legal = legal_play_mask(rec[r], P)
        m = legal
        while m:
            c = lowest_card(m)
            m &= m - 1
            o = out_states[j]
            for t in range(STATE_SIZE):
                o[t] = rec[r, t]
            apply_legal_action(o, P, A.CARD_BASE + c)
            for s in range(N_SEATS):
                out_seats[j, s] = seats[rec_game[r], s]
            rng_seed(rng, seed, first_branch + j)
            for s in range(N_SEATS + 1):
                out_rngs[j, s] = rng_next(rng)
            out_row[j] = r
            out_card[j] = c
            j += 1
    return j


@njit(cache=True)
def branch_values(states, rec, out_row, n, values):
    """``values[j]``: the deal score of the team that played branch ``j``'s card (the
    seat to act in its decision ``rec[out_row[j]]``) minus the other team's."""
    for j in range(n):
        team = team_of(current_seat(rec[out_row[j]]))
        values[j] = team_score(states[j], team) - team_score(states[j], 1 - team)


@njit(cache=True)
def tricks_of(states, out):
    """``out[i]``: the trick number (0..7) of ``states[i]``."""
    for i in range(states.shape[0]):
        out[i] = trick_number(states[i])


def play_table(rules: RuleSet, states: np.ndarray, seats: np.ndarray, rngs: np.ndarray,
               table: SelfPlayTable, inputs: NetInputs, epsilon: float = 0.0,
               record: Optional[np.ndarray] = None):
    """Play ``states`` to their end **in place** with the players ``seats[i, s]`` of
    ``table``, in lockstep (one forward pass per network for every game waiting for
    it). With ``record`` (an int64 ``[capacity, STATE_SIZE]`` array) the learner's card
    decisions with a choice are recorded first (and ``epsilon`` explores); returns
    ``(n_recorded, games of the records)``."""
    P = params_vector(rules)
    n = len(states)
    flags, bots = table.flags(), table.bots()
    card_nets = table.card_nets()
    waiting = np.zeros(n, dtype=np.int64)
    rec = record if record is not None else np.zeros((1, STATE_SIZE), dtype=np.int64)
    rec_game = np.zeros(len(rec), dtype=np.int64)
    n_rec = np.zeros(1, dtype=np.int64)
    while True:
        k = advance_table(states, P, seats, flags, bots, rngs, waiting, float(epsilon),
                          record is not None, rec, rec_game, n_rec)
        if k == 0:
            return int(n_rec[0]), rec_game[:int(n_rec[0])]
        idx = waiting[:k]
        player = seats[idx, current_seats(states, idx)]
        bidding = phases_of(states, idx) == AUCTION
        acts = np.empty(k, dtype=np.int64)
        if bidding.any():
            acts[bidding] = table.bid_net.actions(inputs, states, idx[bidding])
        for p in np.unique(player[~bidding]):
            sel = (~bidding) & (player == p)
            acts[sel] = inputs.net_actions(card_nets[p], states, idx[sel])
        apply_at(states, P, idx, k, acts)


def play_trajectories(rules: RuleSet, seed: int, first_game: int, n_games: int,
                      table: SelfPlayTable, shares: Sequence[float], frozen: float = 0.5,
                      epsilon: float = 0.05, inputs: Optional[NetInputs] = None):
    """Play the ``n_games`` deals of a chunk with their tables (see the module
    docstring); returns ``(positions, tables)``: the learner's card decisions with a
    choice (int64 ``[n, STATE_SIZE]`` full states, before the card) and the players at
    the four seats of each one's deal (int64 ``[n, 4]``)."""
    P = params_vector(rules)
    cum = np.cumsum(np.asarray(shares, dtype=np.float64))
    states = np.zeros((n_games, STATE_SIZE), dtype=np.int64)
    seats = np.zeros((n_games, N_SEATS), dtype=np.int64)
    rngs = np.zeros((n_games, N_SEATS + 1), dtype=np.uint64)
    setup_games(P, np.int64(seed), np.int64(first_game), float(frozen), cum,
                np.int64(len(table.past)), states, seats, rngs)
    inputs = inputs or NetInputs(rules, n_games)
    record = np.zeros((n_games * N_CARDS, STATE_SIZE), dtype=np.int64)
    n_rec, rec_game = play_table(rules, states, seats, rngs, table, inputs, epsilon, record)
    return record[:n_rec], seats[rec_game]


def value_positions(rules: RuleSet, positions: np.ndarray, tables: np.ndarray,
                    table: SelfPlayTable, seed: int, first_branch: int,
                    inputs: Optional[NetInputs] = None):
    """Every legal card of every position played out by its table (the players
    ``tables[i]`` of :class:`SelfPlayTable` ``table``; the bots' streams of branch ``j``
    from sub-stream ``first_branch + j`` of ``seed``); returns ``(feats, legal,
    targets, branches)``: the canonical network inputs, legal canonical cards and
    targets (the acting team's deal score minus the other's after each card) of the
    positions, and the number of play-outs."""
    P = params_vector(rules)
    n = len(positions)
    inputs = inputs or NetInputs(rules, n)
    cap = CARDS_PER_HAND * n                     # at most a hand of legal cards a decision
    b_states = np.zeros((cap, STATE_SIZE), dtype=np.int64)
    b_seats = np.zeros((cap, N_SEATS), dtype=np.int64)
    b_rngs = np.zeros((cap, N_SEATS + 1), dtype=np.uint64)
    b_row = np.zeros(cap, dtype=np.int64)
    b_card = np.zeros(cap, dtype=np.int64)
    nb = branch_out(positions, np.arange(n, dtype=np.int64), n, P, np.int64(seed),
                    np.int64(first_branch), np.ascontiguousarray(tables, dtype=np.int64),
                    b_states, b_seats, b_rngs, b_row, b_card)
    b_states, b_seats, b_rngs = b_states[:nb], b_seats[:nb], b_rngs[:nb]
    b_row, b_card = b_row[:nb], b_card[:nb]
    play_table(rules, b_states, b_seats, b_rngs, table, inputs)
    values = np.zeros(nb, dtype=np.float32)
    branch_values(b_states, positions, b_row, nb, values)
    feats, legal, perms = inputs.compute(positions, np.arange(n, dtype=np.int64))
    feats, legal, perms = feats.copy(), legal.copy(), perms.copy()
    targets = np.zeros((n, N_CARDS), dtype=np.float32)
    targets[b_row, C.ACT_DST[perms[b_row], A.CARD_BASE + b_card] - A.CARD_BASE] = values
    return feats, legal, targets, int(nb)


def selfplay_chunk(rules: RuleSet, seed: int, first_game: int, n_games: int,
                   table: SelfPlayTable, shares: Sequence[float], frozen: float = 0.5,
                   epsilon: float = 0.05) -> LabelChunk:
    """Label one chunk of ``n_games`` deals (the module docstring): the learner's card
    decisions with a choice (:func:`play_trajectories`), every legal card valued by its
    play-out with the deal's table (:func:`value_positions`); a pure function of its
    arguments and the networks' weights. The rows are in the canonical suit order, as
    :func:`.labels.label_chunk`'s (kind :data:`~.labels.KIND_ROLLOUT`)."""
    t0 = time.perf_counter()
    inputs = NetInputs(rules, n_games)
    positions, tables = play_trajectories(rules, seed, first_game, n_games, table, shares,
                                          frozen, epsilon, inputs)
    feats, legal, targets, nb = value_positions(
        rules, positions, tables, table, seed, _CONTINUATIONS + first_game * N_CARDS * CARDS_PER_HAND, inputs)
    n = len(positions)
    tricks = np.zeros(n, dtype=np.int8)
    tricks_of(positions, tricks)
    return LabelChunk(feats.astype(np.float16), legal, targets,
                      np.full(n, KIND_ROLLOUT, dtype=np.int8), tricks, n_games,
                      time.perf_counter() - t0, n, nb)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the self-play kernels (cached on disk)."""
    from ...rules import get_rules
    rules = get_rules("ffb")
    net = MLP.random(hidden=(8,), seed=0)
    selfplay_chunk(rules, 0, 0, 2, SelfPlayTable(net, past=[net]),
                   parse_opponents("self=1,heuristic=1,random=1,past=1"))
