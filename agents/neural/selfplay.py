"""Self-play labels for card play: Monte Carlo policy iteration
(``coinche_rl.agents.neural.selfplay``).

A chunk plays real deals with a **table of players** at the seats (four, or the two
players of belote for two) and labels every card decision with a choice of the *learner* (the current generation's card network) with
the value of **every legal card on the true deal**: the card is played, then the rest of
the deal is played out by the same players (each seat deciding on its own information: a
network reads the seat's observation, never the other hands; with two players his public
view, never a face-down card), and the target is the acting side's deal score minus the
other side's. Every card of a decision
is played out on the same deal, so the luck of the deal cancels between them; averaged
over the real distribution of the hidden cards (the training deals are real deals), the
targets are one step of policy improvement over the table: the network trained on them
is the next generation (Belot's Monte Carlo policy iteration, ``../shared/NEURAL.md``:
every legal card rolled out on the true deal by the current nets at all seats).

The players of a chunk (:class:`SelfPlayTable`): player 0 is the learner (the
generation's card network, and the shipped bidding network where one ships for the preset,
else the heuristic's auction; with two players the prise network decides the prise and
the exchange); then the numba heuristic, the numba random bot, and the
past generations' card networks (with the same bidding network). In each deal one side
(drawn: a team, or one of the two players) is the learner's; the other side is one
player of the **opponent pool** (``shares``: the learner itself, i.e. pure self-play, the
heuristic, random play, a past generation), both seats of a team the same. The learner's
seats are labelled, so in a self-play deal every seat is. The continuations keep the deal's table, so the targets are
the value of a card *against the opponents actually met*: a net trained on them learns
to punish weak play instead of assuming the heuristic.

The auction is played by the same players (the learner and past generations bid with
the bidding network, the bots with their own auction), or skipped with probability
``frozen`` for the arena's frozen contract (a random seat takes the minimum bid in its
longest suit; four players only). A deal that every seat passes gives no label. With probability
``epsilon`` a learner's card decision in the labelled trajectory (not in the
continuations) is a uniformly random legal card, after it is labelled (exploration).

Everything runs in lockstep batches (:func:`play_table`, the family's
:func:`~.batch_play.play_players`, which the arena's batched play of belote for two
players uses too): numba steps every game to its next network decision, then one forward
pass per network labels the waiting decisions of all games at once. The kernels here are
written once over the engine's entry points (:mod:`coinche_rl.engine.entry`), the
family's network input from :mod:`.family`. A chunk depends only on ``(seed, first_game, n_games, frozen, epsilon,
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
from ...engine import (family_of, game_apply, game_new_deal, game_score, game_side,
                       game_to_act, kernel, legal_play_mask, lowest_card, rng_below, rng_next,
                       rng_seed, set_contract, trick_number, frozen_strain)
from ...engine import two
from ...cards import N_CARDS
from ...rules import (CARDS_PER_HAND, FAMILY_TWO, N_SEATS, N_TEAMS, P_FAMILY, P_MIN_BID,
                      RuleSet, params_vector)
from ..numba_bots import BOT_HEURISTIC, BOT_RANDOM
from . import canonical as C
from .batch_play import EXPLORE, BidNet, NetInputs, play_players
from .family import net_family
from .labels import KIND_ROLLOUT, LabelChunk, u01
from .net import MLP

__all__ = ["SelfPlayTable", "OPPONENTS", "parse_opponents", "selfplay_chunk", "play_table",
           "play_trajectories", "value_positions", "warmup"]

#: the opponent pool's kinds, in the order of :func:`parse_opponents`'s shares
OPPONENTS = ("self", "heuristic", "random", "past")
#: the players of a table: the learner, the two numba bots, then the past generations
P_LEARNER, P_HEURISTIC, P_RANDOM, P_PAST = 0, 1, 2, 3
#: sub-streams of a chunk's seed: the games, and the bots of the continuations
_CONTINUATIONS = 1 << 40


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

    def bid_nets(self) -> list:
        """Each player's bidding network (None: his numba bot's auction)."""
        return [self.bid_net, None, None] + [self.bid_net] * len(self.past)

    def bots(self) -> np.ndarray:
        """Each player's numba bot (the bots' decisions, and the networks' declare /
        belote choices and auction without a bidding network)."""
        return np.array([BOT_HEURISTIC, BOT_HEURISTIC, BOT_RANDOM]
                        + [BOT_HEURISTIC] * len(self.past), dtype=np.int64)


@njit(cache=True)
def setup_games(P, seed, first_game, frozen, cum_shares, n_past, n_players, states, seats,
                rngs):
    """Deal game ``g`` of ``states`` from sub-stream ``first_game + g`` of ``seed``: a
    random deal and dealer, the frozen contract with probability ``frozen`` (four
    players); the learner's side and the opponents' player (``cum_shares``: cumulative
    shares of :data:`OPPONENTS`; ``past`` draws one of the ``n_past`` generations
    uniformly, or the learner when there is none) into ``seats[g, :n_players]``; the
    bots' streams ``rngs[g, :4]`` and the exploration stream ``rngs[g, EXPLORE]``."""
    hands = np.zeros(N_SEATS, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for g in range(states.shape[0]):
        rng_seed(rng, seed, first_game + g)
        S = states[g]
        game_new_deal(S, P, rng, np.int64(-1), hands, deck)
        if u01(rng) < frozen:
            taker = rng_below(rng, N_SEATS)
            set_contract(S, P, P[P_MIN_BID], frozen_strain(hands[taker]), np.int64(0), taker)
        learner_side = rng_below(rng, N_TEAMS)
        u = u01(rng)
        kind = 0                             # the index in OPPONENTS = the player
        while kind < 3 and u >= cum_shares[kind]:
            kind += 1
        other = kind
        if kind == P_PAST:                   # one past generation, or the learner
            other = P_PAST + rng_below(rng, n_past) if n_past > 0 else P_LEARNER
        for s in range(n_players):
            seats[g, s] = 0 if game_side(P, s) == learner_side else other
        for j in range(EXPLORE + 1):
            rngs[g, j] = rng_next(rng)


@kernel
def legal_cards(S, P):
    """The legal cards (a mask) of the seat to play a card in ``S``, in every family."""
    if P[P_FAMILY] == FAMILY_TWO:
        return two.two_legal_cards(S)
    return legal_play_mask(S, P)


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
        m = legal_cards(rec[r], P)
        while m:
            c = lowest_card(m)
            m &= m - 1
            o = out_states[j]
            for t in range(rec.shape[1]):
                o[t] = rec[r, t]
            game_apply(o, P, A.CARD_BASE + c)
            for s in range(seats.shape[1]):
                out_seats[j, s] = seats[rec_game[r], s]
            rng_seed(rng, seed, first_branch + j)
            for s in range(EXPLORE + 1):
                out_rngs[j, s] = rng_next(rng)
            out_row[j] = r
            out_card[j] = c
            j += 1
    return j


@njit(cache=True)
def branch_values(states, rec, out_row, n, P, values):
    """``values[j]``: the deal score of the side that played branch ``j``'s card (the
    seat to act in its decision ``rec[out_row[j]]``) minus the other side's."""
    for j in range(n):
        side = game_side(P, game_to_act(rec[out_row[j]], P))
        values[j] = game_score(states[j], P, side) - game_score(states[j], P, 1 - side)


@njit(cache=True)
def tricks_of(states, P, out):
    """``out[i]``: the trick number of ``states[i]`` (from 0)."""
    for i in range(states.shape[0]):
        out[i] = two.trick_number(states[i]) if P[P_FAMILY] == FAMILY_TWO \
            else trick_number(states[i])


def play_table(rules: RuleSet, states: np.ndarray, seats: np.ndarray, rngs: np.ndarray,
               table: SelfPlayTable, inputs, epsilon: float = 0.0,
               record: Optional[np.ndarray] = None):
    """Play ``states`` to their end **in place** with the players ``seats[i, s]`` of
    ``table``, in lockstep (:func:`~.batch_play.play_players`: one forward pass per
    network for every game waiting for it; ``inputs``: the family's input buffers).
    With ``record`` (an int64 ``[capacity, state size]`` array) the learner's card
    decisions with a choice are recorded first (and ``epsilon`` explores); returns
    ``(n_recorded, games of the records)``."""
    return play_players(rules, states, seats, rngs, table.bots(), table.card_nets(),
                        table.bid_nets(), inputs, epsilon, record)


def _inputs(rules: RuleSet, n: int):
    return net_family(rules).inputs_class(rules, n)


def play_trajectories(rules: RuleSet, seed: int, first_game: int, n_games: int,
                      table: SelfPlayTable, shares: Sequence[float], frozen: float = 0.5,
                      epsilon: float = 0.05, inputs=None):
    """Play the ``n_games`` deals of a chunk with their tables (see the module
    docstring); returns ``(positions, tables)``: the learner's card decisions with a
    choice (int64 ``[n, state size]`` full states, before the card) and the players at
    the seats of each one's deal (int64 ``[n, 4]``; two players: the first two). A
    family without the frozen contract (belote for two players) ignores ``frozen``."""
    P = params_vector(rules)
    fam = family_of(rules)
    if not net_family(rules).frozen:
        frozen = 0.0
    cum = np.cumsum(np.asarray(shares, dtype=np.float64))
    states = np.zeros((n_games, fam.state_size), dtype=np.int64)
    seats = np.zeros((n_games, N_SEATS), dtype=np.int64)
    rngs = np.zeros((n_games, EXPLORE + 1), dtype=np.uint64)
    setup_games(P, np.int64(seed), np.int64(first_game), float(frozen), cum,
                np.int64(len(table.past)), np.int64(fam.n_players), states, seats, rngs)
    inputs = inputs or _inputs(rules, n_games)
    record = np.zeros((n_games * N_CARDS, fam.state_size), dtype=np.int64)
    n_rec, rec_game = play_table(rules, states, seats, rngs, table, inputs, epsilon, record)
    return record[:n_rec], seats[rec_game]


def value_positions(rules: RuleSet, positions: np.ndarray, tables: np.ndarray,
                    table: SelfPlayTable, seed: int, first_branch: int, inputs=None):
    """Every legal card of every position played out by its table (the players
    ``tables[i]`` of :class:`SelfPlayTable` ``table``; the bots' streams of branch ``j``
    from sub-stream ``first_branch + j`` of ``seed``); returns ``(feats, legal,
    targets, branches)``: the canonical network inputs (of the player's information
    only: :meth:`~.batch_play.NetInputs.readable`), legal canonical cards and targets
    (the acting side's deal score minus the other's after each card) of the positions,
    and the number of play-outs."""
    P = params_vector(rules)
    n = len(positions)
    inputs = inputs or _inputs(rules, n)
    cap = family_of(rules).cards_per_player * n   # at most a player's cards a decision
    b_states = np.zeros((cap, positions.shape[1]), dtype=np.int64)
    b_seats = np.zeros((cap, N_SEATS), dtype=np.int64)
    b_rngs = np.zeros((cap, EXPLORE + 1), dtype=np.uint64)
    b_row = np.zeros(cap, dtype=np.int64)
    b_card = np.zeros(cap, dtype=np.int64)
    nb = branch_out(positions, np.arange(n, dtype=np.int64), n, P, np.int64(seed),
                    np.int64(first_branch), np.ascontiguousarray(tables, dtype=np.int64),
                    b_states, b_seats, b_rngs, b_row, b_card)
    b_states, b_seats, b_rngs = b_states[:nb], b_seats[:nb], b_rngs[:nb]
    b_row, b_card = b_row[:nb], b_card[:nb]
    play_table(rules, b_states, b_seats, b_rngs, table, inputs)
    values = np.zeros(nb, dtype=np.float32)
    branch_values(b_states, positions, b_row, nb, P, values)
    X, rows = inputs.readable(positions, np.arange(n, dtype=np.int64))
    feats, legal, perms = inputs.compute(X, rows)
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
    arguments and the networks' weights. The rows are in the family's canonical suit
    order, as :func:`.labels.label_chunk`'s (kind :data:`~.labels.KIND_ROLLOUT`)."""
    t0 = time.perf_counter()
    inputs = _inputs(rules, n_games)
    positions, tables = play_trajectories(rules, seed, first_game, n_games, table, shares,
                                          frozen, epsilon, inputs)
    feats, legal, targets, nb = value_positions(
        rules, positions, tables, table, seed,
        _CONTINUATIONS + first_game * N_CARDS * CARDS_PER_HAND, inputs)
    n = len(positions)
    tricks = np.zeros(n, dtype=np.int8)
    tricks_of(positions, params_vector(rules), tricks)
    return LabelChunk(feats.astype(np.float16), legal, targets,
                      np.full(n, KIND_ROLLOUT, dtype=np.int8), tricks, n_games,
                      time.perf_counter() - t0, n, nb)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup(preset: str = "ffb") -> None:
    """Compile the self-play kernels (cached on disk) of the family of ``preset``."""
    from ...rules import get_rules
    rules = get_rules(preset)
    net = MLP.random(hidden=(8,), seed=0, inputs=net_family(rules).feature_size)
    selfplay_chunk(rules, 0, 0, 2, SelfPlayTable(net, past=[net]),
                   parse_opponents("self=1,heuristic=1,random=1,past=1"))
