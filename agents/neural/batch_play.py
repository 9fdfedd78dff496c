"""The batched play of the networks (``coinche_rl.agents.neural.batch_play``): many deals
in lockstep, the numba bots (and the network seats' other decisions) inside one numba
loop, and every card (auction) decision waiting for a network at that moment scored by
one forward pass of it (:func:`play_states`, the tournaments' and the bidding labels'
path); the same as a batched policy for the vector env (:class:`BatchPolicy`); the
network inputs (:class:`NetInputs`) and the bidding network read with the heads of one
card player (:class:`BidNet`). Belote for two players has its own (the end of the
module): the inputs from the players' public views (:class:`TwoNetInputs`), the batched
policy (:class:`TwoBatchPolicy`) and play (:func:`play_states_two`, which
:func:`play_states` hands the family's deals to); :class:`BidNet` reads the prise network
of belote for two players too (its family's outputs, :data:`~.bid_actions.BID_SPACES`)."""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import (AUCTION, DONE, PLAY, STATE_SIZE, pending_choice, apply_legal_action,
                       auction_action, auction_length, contract_of, current_seat,
                       current_seats, hand_of, initial_hand, is_legal, legal_play_mask,
                       lowest_card, phase_of, phases_of, popcount, retourne_of, rng_seed,
                       set_auction_action, set_contract_strain, set_hand, set_initial_hand,
                       set_retourne, kernel)
from ...cards import N_SUITS
from ...rules import (CAPOT_VALUE, FAMILY_TWO, N_SEATS, P_FAMILY, RuleSet, card_points_table,
                     params_vector)
from ...engine import (public_view_into, game_apply, game_is_legal, game_phase, game_to_act,
                       PHASE_BIDDING, PHASE_DONE, PHASE_EXCHANGE)
from ...engine.two import EXCHANGE_PHASE, PRISE, two_legal_cards, two_legal_mask
from ...engine.two import phase_of as two_phase_of
from ...engine.two import PLAY as TWO_PLAY
from ...engine.two import py as two_py
from ...envs.kernels import apply_at, public_states_of, rules_vector
from ..numba_bots import BOT_HEURISTIC, _act_four, _act_two, batch_bot_actions, bot_action
from . import canonical as C
from . import canonical_two as C2
from .labels import random_card, u01
from .bid_actions import BID_INDEX, BID_SPACES, N_BID, bid_inputs
from .net import MLP, NeuralError, input_key

__all__ = ["NET_CARD", "NOT_A_CARD", "NET_BID", "CARD_NET", "BID_NET", "DEFAULT_MARGIN",
           "card_choice", "net_choice", "advance", "advance_until", "canonical_auction_state",
           "anchor_actions",
           "seed_streams", "NetInputs", "BidNet", "play_states", "policy_actions",
           "BatchPolicy", "TwoNetInputs", "TwoBatchPolicy", "play_states_two", "EXPLORE",
           "advance_players", "play_players"]

#: :func:`net_choice`: the card network chooses / the decision is not for a network /
#: the bidding network chooses
NET_CARD, NOT_A_CARD, NET_BID = -1, -2, -3
#: seat flags of the batched paths: plays its cards / bids with a network
CARD_NET, BID_NET = 1, 2
#: a game's streams in :func:`advance_players`: its seats' bots (``rngs[i, :N_SEATS]``),
#: then the exploration stream
EXPLORE = N_SEATS
#: the ``bid_margin`` of a bidding net whose manifest names none (``bid.margin``), points:
#: the shipped ffb bidding net's trust region (the margin
#: chosen for it on validation deal sets, benchmarks/RESULTS.md)
DEFAULT_MARGIN = 75.0


@kernel
def card_choice(S, P):
    """What an nn seat does at state ``S``: :data:`NET_CARD` when it plays a card with a
    choice of two or more (the network decides), the card action when the card is
    forced, :data:`NOT_A_CARD` for every other decision (auction, declare / belote
    choices: the numba bot's)."""
    if phase_of(S) != PLAY or pending_choice(S, P) != 0:
        return NOT_A_CARD
    legal = legal_play_mask(S, P)
    if popcount(legal) >= 2:
        return NET_CARD
    return A.CARD_BASE + lowest_card(legal)


@kernel
def net_choice(S, P, flag):
    """What a seat with flags ``flag`` (:data:`CARD_NET` | :data:`BID_NET`) does at
    ``S``: :data:`NET_BID` for an auction decision of a bidding-net seat, else
    :func:`card_choice` for a card-net seat, else :data:`NOT_A_CARD`."""
    if (flag & BID_NET) != 0 and phase_of(S) == AUCTION:
        return NET_BID
    if (flag & CARD_NET) != 0:
        return card_choice(S, P)
    return NOT_A_CARD


@njit(cache=True)
def advance(states, P, bots, nets, rngs, waiting):
    """Play every game of ``states`` until its seat to act faces a network decision
    (:func:`net_choice` with the seat flags ``nets[seat]``: :data:`NET_CARD` or
    :data:`NET_BID`), or the deal is over. Other decisions are the numba bot
    ``bots[seat]``'s (the declare / belote choices, and the auction of seats without a
    bidding net); a forced card is played as is. The games waiting for a network go
    into ``waiting``; returns how many, or ``-(i + 1)`` when a bot chose an illegal
    action in game ``i`` (never expected)."""
    return advance_until(states, P, bots, nets, rngs, waiting, np.int64(DONE))


@njit(cache=True)
def advance_until(states, P, bots, nets, rngs, waiting, until):
    """:func:`advance`, stopping each game at phase ``until`` (``PLAY``: when its
    auction ends; ``DONE``: when the deal ends)."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        while phase_of(S) < until:
            cur = current_seat(S)
            a = net_choice(S, P, nets[cur])
            if a == NET_CARD or a == NET_BID:
                waiting[k] = i
                k += 1
                break
            if a == NOT_A_CARD:
                a = bot_action(bots[cur], S, P, cur, rngs[i, cur:cur + 1], buf)
                if not is_legal(S, P, a):
                    return -(i + 1)
            apply_legal_action(S, P, a)
    return k


@kernel
def _rename_card(c, p):
    return C.PERMS[p, c >> 3] * 8 + (c & 7)


@kernel
def _rename_mask(m, p):
    out = 0
    while m:
        c = lowest_card(m)
        m &= m - 1
        out |= 1 << _rename_card(c, p)
    return out


@kernel
def canonical_auction_state(S, P, p, pub, out):
    """``out``: the public state of the seat to act in auction state ``S`` (``pub``:
    scratch), its suits renamed by the canonical renaming ``p`` (suit ``s`` to slot
    ``PERMS[p, s]``). During the auction the suit-dependent slots are the hands, the
    auction record, the bid strain and the classic retourne (declarations and belotes are
    set when the play starts)."""
    public_view_into(S, P, current_seat(S), pub)
    for k in range(STATE_SIZE):
        out[k] = pub[k]
    for s in range(N_SEATS):
        set_hand(out, s, _rename_mask(hand_of(pub, s), p))
        set_initial_hand(out, s, _rename_mask(initial_hand(pub, s), p))
    for i in range(auction_length(pub)):
        a = auction_action(pub, i)
        if a >= 0:
            set_auction_action(out, i, C.ACT_DST[p, a])
    _value, st, bidder = contract_of(pub)
    if bidder >= 0 and 0 <= st < N_SUITS:
        set_contract_strain(out, C.PERMS[p, st])
    if retourne_of(pub) >= 0:
        set_retourne(out, _rename_card(retourne_of(pub), p))


@njit(cache=True)
def anchor_actions(states, P, idx, perms, bot, out):
    """``out[j]``: numba bot ``bot``'s action for the seat to bid in ``states[idx[j]]``,
    taken on the seat's public state in the canonical suit order ``perms[j]`` (so a
    canonical action, and the same for every renaming of the position: the bot breaks
    its ties by suit order, which the canonical order makes equivariant)."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    pub = np.empty(STATE_SIZE, dtype=np.int64)
    T = np.empty(STATE_SIZE, dtype=np.int64)
    for j in range(idx.shape[0]):
        canonical_auction_state(states[idx[j]], P, perms[j], pub, T)
        out[j] = bot_action(bot, T, P, current_seat(T), rng, buf)


@njit(cache=True)
def seed_streams(seeds, rngs):
    """``rngs[i, s]`` seeded as :func:`coinche_rl.agents.numba_bots.play_deals` does."""
    for i in range(seeds.shape[0]):
        for s in range(N_SEATS):
            rng_seed(rngs[i, s:s + 1], seeds[i, s], np.int64(0))


class NetInputs:
    """Reusable buffers and tables for the network inputs of one rule set."""

    def __init__(self, rules: RuleSet, capacity: int = 0):
        self.rules = rules
        self.params = params_vector(rules)
        self.cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
        self.rules_vec = rules_vector(rules)
        self.match = np.zeros(5, dtype=np.float64)
        self._grow(capacity)

    def _grow(self, n: int) -> None:
        self.feats = np.zeros((n, C.FEATURE_SIZE), dtype=np.float32)
        self.cards = np.zeros((n, 32), dtype=np.uint8)
        self.perms = np.zeros(n, dtype=np.int64)
        self.bid_legal = np.zeros((n, N_BID), dtype=np.uint8)

    def compute(self, states: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the seats to act in ``states[idx]`` (views of
        the buffers)."""
        n = len(idx)
        if n and (idx.min() < 0 or idx.max() >= len(states)):
            raise IndexError(f"game indices must be in 0..{len(states) - 1}, got "
                             f"{int(idx.min())}..{int(idx.max())}")
        if n > len(self.perms):
            self._grow(max(n, 2 * len(self.perms)))
        m = self.match if match is None else match
        C.play_inputs(states, self.params, idx, self.cpt, self.rules_vec, m,
                      self.feats[:n], self.cards[:n], self.perms[:n])
        return self.feats[:n], self.cards[:n].astype(bool), self.perms[:n]

    @staticmethod
    def readable(states: np.ndarray, idx: np.ndarray):
        """``(X, rows)``: what the networks read of the seats to act in the full states
        ``states[idx]`` (:func:`play_players`), for :meth:`net_actions` and
        :meth:`BidNet.actions`: the states themselves (:meth:`compute` reads each seat's
        information only)."""
        return states, idx

    def bid_compute(self, states: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the seats to bid in ``states[idx]``: ``legal``
        bool ``[n, N_BID]`` over the canonical :data:`~.bid_actions.BID_ACTIONS`."""
        n = len(idx)
        if n > len(self.perms):
            self._grow(max(n, 2 * len(self.perms)))
        if len(self.bid_legal) < len(self.perms):
            self.bid_legal = np.zeros((len(self.perms), N_BID), dtype=np.uint8)
        m = self.match if match is None else match
        bid_inputs(states, self.params, np.ascontiguousarray(idx, dtype=np.int64), self.cpt,
                   self.rules_vec, m, self.feats[:n], self.bid_legal[:n], self.perms[:n])
        return self.feats[:n], self.bid_legal[:n].astype(bool), self.perms[:n]

    def anchor_outputs(self, states: np.ndarray, idx: np.ndarray, perms: np.ndarray,
                       bot: int) -> np.ndarray:
        """The bidding output of numba bot ``bot``'s action at the auction decisions
        ``states[idx]`` (renamings ``perms``): :class:`BidNet`'s trust region."""
        anchor = np.empty(len(idx), dtype=np.int64)
        anchor_actions(states, self.params, np.ascontiguousarray(idx, dtype=np.int64),
                       np.ascontiguousarray(perms, dtype=np.int64), bot, anchor)
        return BID_INDEX[anchor]

    @staticmethod
    def choice(S, P, flag) -> int:
        """:func:`net_choice` (what the ``nn`` agent's decision at ``S`` is: a network's,
        a forced card, the numba bot's)."""
        return int(net_choice(S, P, flag))

    @staticmethod
    def phase(S) -> str:
        """``"auction"`` or ``"play"`` (:class:`~.agent.ActionValues`' phase) at ``S``."""
        return "auction" if phase_of(S) == AUCTION else "play"

    def net_actions(self, net: MLP, states: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The physical card actions ``net`` plays at the :data:`NET_CARD` decisions
        ``states[idx]``: one forward pass, the best legal canonical card mapped back."""
        feats, legal, perms = self.compute(states, idx)
        return C.ACT_SRC[perms, A.CARD_BASE + net.best(feats, legal)]

    def card_values(self, net: MLP, state: np.ndarray):
        """``(actions, values, best)`` of the seat to play a card in ``state`` (a public
        state): its legal physical card actions, ``net``'s value of each (points), and the
        card :meth:`net_actions` plays (the best value; a tie goes to the first card in
        the canonical order)."""
        feats, legal, perms = self.compute(np.ascontiguousarray(state[None, :]),
                                           np.zeros(1, dtype=np.int64))
        q = net.forward(feats)[0]
        js = np.flatnonzero(legal[0])
        acts = C.ACT_SRC[int(perms[0]), A.CARD_BASE + js]
        best = int(acts[int(np.argmax(q[js]))])
        return acts, q[js] * _target_scale(net), best


class BidNet:
    """A bidding network (``coinche-rl train bid``) read with the heads of one card
    player (``player``: ``"nn"`` or ``"heuristic"``, one of the manifest's
    ``bid.players``). Over the canonical auction actions (:data:`~.bid_actions.BID_ACTIONS`;
    for belote for two players the prise's, :data:`~.bid_actions.PRISE_ACTIONS`: its
    family's :class:`~.bid_actions.BidSpace`, from the manifest) it gives ``q``, the
    value of each action (the agent bids the best legal one), and for each contract
    ``ev`` and ``p_made``: the expected deal score (the seat's team minus the other) and
    the probability that the contract is made if the seat took it now, under that card
    player. ``inputs``: the family's input buffers (:class:`NetInputs`,
    :class:`TwoNetInputs`: ``bid_compute`` and ``anchor_outputs``)."""

    def __init__(self, net: MLP, player: str = "nn", margin: Optional[float] = None,
                 anchor: int = BOT_HEURISTIC):
        #: its family's outputs (:data:`~.bid_actions.BID_SPACES`: the auction, the prise)
        self.space = BID_SPACES[(net.manifest.get("observation") or {}).get("family", "four")]
        players = list((net.manifest.get("bid") or {}).get("players") or [])
        if player not in players:
            raise NeuralError(f"the bidding net has heads for the card players {players}, "
                              f"not for {player!r}")
        if margin is None:
            # the margin chosen for the net (its manifest's bid.margin), else the default
            margin = (net.manifest.get("bid") or {}).get("margin", DEFAULT_MARGIN)
        if not margin >= 0:
            raise ValueError(f"the bidding margin must be at least 0 points, not {margin!r}")
        self.net = net
        self.player = player
        self.head = players.index(player)
        self.n_players = len(players)
        #: leave the anchor bot's action only for one the network values ``margin``
        #: points higher (0: always the network's best action)
        self.margin = float(margin)
        self.anchor = int(anchor)

    def heads(self, feats: np.ndarray):
        """``(q, ev, p_made)`` (each float32 ``[n, N_BID]``, points for ``q`` / ``ev``)
        of network inputs ``feats``."""
        out = self.net.forward(feats).reshape(len(feats), self.n_players, 3,
                                              self.space.n)[:, self.head]
        scale = self._scale()
        return (out[:, 0] * scale, out[:, 1] * scale,
                (1.0 / (1.0 + np.exp(-out[:, 2]))).astype(np.float32))

    def contracts(self, rules: RuleSet, state: np.ndarray, strains, levels):
        """``(ev, p_made)`` (float32 ``[len(strains), len(levels)]``) for the seat to act
        in ``state`` (an auction decision): each contract's expected deal score and
        P(made) if the seat took it now (``levels``: bid values, 250 for a capot, 0 for
        the classic prise)."""
        inputs = NetInputs(rules, 1)
        feats, _legal, perms = inputs.bid_compute(np.ascontiguousarray(state[None, :]),
                                                  np.zeros(1, dtype=np.int64))
        _q, ev, pm = self.heads(feats)
        p = int(perms[0])
        out_ev = np.zeros((len(strains), len(levels)), dtype=np.float32)
        out_pm = np.zeros_like(out_ev)
        ret_suit = int(retourne_of(state)) >> 3
        for j, st in enumerate(strains):
            for k, v in enumerate(levels):
                if rules.family == "classic":
                    a = A.TAKE if st == ret_suit else A.NAME_BASE + st
                elif v == CAPOT_VALUE:
                    a = A.capot_action(st)
                else:
                    a = A.bid_action(int(v), st)
                i = BID_INDEX[C.ACT_DST[p, a]]
                out_ev[j, k] = ev[0, i]
                out_pm[j, k] = pm[0, i]
        return out_ev, out_pm

    def actions(self, inputs: "NetInputs", states: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The physical auction actions of the seats to bid in ``states[idx]``: one
        forward pass, the best legal canonical action mapped back."""
        feats, legal, perms = inputs.bid_compute(states, idx)
        q = self.net.forward(feats).reshape(len(feats), self.n_players, 3,
                                            self.space.n)[:, self.head, 0]
        q[~legal] = -np.inf
        best = q.argmax(axis=1)
        if self.margin > 0:
            # a trust region around the anchor (the heuristic): its action unless the
            # network values another one more than ``margin`` points higher
            ja = inputs.anchor_outputs(states, idx, perms, self.anchor)
            rows = np.arange(len(idx))
            scale = self._scale()
            keep = (q[rows, best] - q[rows, ja]) * scale <= self.margin
            best = np.where(keep, ja, best)
        return self.space.src[perms, best]

    def _scale(self) -> float:
        return _target_scale(self.net)

    def action_values(self, inputs: "NetInputs", state: np.ndarray):
        """``(actions, q, ev, p_made, choice)`` of the seat to bid in ``state`` (a
        public state): its legal physical auction actions, their ``q`` values, the
        ``ev`` / ``p_made`` heads at each (meaningful for the contracts: bids, capots,
        the classic take / name), and the action :meth:`actions` bids."""
        S = np.ascontiguousarray(state[None, :])
        idx = np.zeros(1, dtype=np.int64)
        feats, legal, perms = inputs.bid_compute(S, idx)
        q, ev, pm = self.heads(feats)
        js = np.flatnonzero(legal[0])
        acts = self.space.src[int(perms[0]), js]
        choice = int(self.actions(inputs, S, idx)[0])
        return acts, q[0, js], ev[0, js], pm[0, js], choice


def _target_scale(net: MLP) -> float:
    """Points per network output unit (the training run's ``target_scale``)."""
    return float((net.manifest.get("training") or {}).get("args", {}).get("target_scale", 100.0))


def play_states(rules: RuleSet, states: np.ndarray, seeds: np.ndarray,
                bots: Sequence[int], nets: Sequence[Optional[MLP]],
                bid_nets: Optional[Sequence[Optional[BidNet]]] = None,
                until: int = DONE) -> None:
    """Play ``states`` (int64[N, STATE_SIZE]) to their end **in place**: seat ``s``
    plays its cards with ``nets[s]`` when given, bids with ``bid_nets[s]`` when given,
    and does everything else with numba bot ``bots[s]`` (seeded per deal and seat from
    ``seeds[i, s]``, as :func:`~coinche_rl.agents.numba_bots.play_deals`), in lockstep
    batches: one forward pass per network for every game waiting for it. ``until``
    ``PLAY``: only to the end of each auction. The rules' family's batched play does it
    (belote for two players': :func:`play_states_two`)."""
    other = _PLAY_STATES.get(input_key(rules))
    if other is not None:
        return other(rules, states, seeds, bots, nets, bid_nets, until)
    if until not in (PLAY, DONE):
        raise ValueError(f"until must be PLAY ({PLAY}) or DONE ({DONE}), not {until!r}")
    P = params_vector(rules)
    n = len(states)
    if n == 0:
        return
    bid_nets = list(bid_nets) if bid_nets is not None else [None] * N_SEATS
    bots = np.asarray(bots, dtype=np.int64)
    flags = np.array([(CARD_NET if nets[s] is not None else 0)
                      | (BID_NET if bid_nets[s] is not None else 0) for s in range(N_SEATS)],
                     dtype=np.int64)
    rngs = np.zeros((n, N_SEATS), dtype=np.uint64)
    seed_streams(np.ascontiguousarray(seeds, dtype=np.int64), rngs)
    inputs = NetInputs(rules, n)
    waiting = np.zeros(n, dtype=np.int64)
    groups, bid_groups = {}, {}                # each distinct net and the seats it plays
    for s in range(N_SEATS):
        if nets[s] is not None:
            groups.setdefault(id(nets[s]), (nets[s], []))[1].append(s)
        if bid_nets[s] is not None:
            bid_groups.setdefault(id(bid_nets[s]), (bid_nets[s], []))[1].append(s)
    while True:
        k = advance_until(states, P, bots, flags, rngs, waiting, until)
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in game {-k - 1}")
        if k == 0:
            return
        idx = waiting[:k]
        seat = current_seats(states, idx)
        bidding = phases_of(states, idx) == AUCTION
        for net, seats in bid_groups.values():
            mine = idx[bidding & np.isin(seat, seats)]
            if len(mine):
                apply_at(states, P, mine, len(mine), net.actions(inputs, states, mine))
        for net, seats in groups.values():
            mine = idx[~bidding & np.isin(seat, seats)]
            if len(mine):
                acts = inputs.net_actions(net, states, mine)
                apply_at(states, P, mine, len(mine), acts)


@njit(cache=True)
def policy_actions(states, P, seats, bot, flag, out, need):
    """Actions of the seats ``seats[j]`` to act in ``states[j]`` (public states) by
    :func:`net_choice` with seat flags ``flag``, the others from numba bot ``bot``; the
    rows whose decision is for a network go into ``need`` (``out`` -1 there), whose
    count is returned."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    k = 0
    for j in range(states.shape[0]):
        a = net_choice(states[j], P, flag)
        if a == NET_CARD or a == NET_BID:
            need[k] = j
            k += 1
            a = -1
        elif a == NOT_A_CARD:
            a = bot_action(bot, states[j], P, seats[j], rng, buf)
        out[j] = a
    return k


class BatchPolicy:
    """The ``nn`` agent as a batched policy ``f(public_states, params, seats) ->
    actions`` (the opponents of :class:`coinche_rl.envs.vector.CoincheVectorEnv`): one
    forward pass per network for every decision of the batch that is its, the
    heuristic for the rest (``net`` None: the heuristic plays the cards; ``bid_net``
    None: the heuristic bids)."""

    def __init__(self, net: Optional[MLP], rules: RuleSet, other_bot: int = BOT_HEURISTIC,
                 bid_net: Optional[BidNet] = None):
        self.net = net
        self.bid_net = bid_net
        self.rules = rules
        self.other_bot = int(other_bot)
        self.flag = (CARD_NET if net is not None else 0) | (BID_NET if bid_net is not None else 0)
        self.inputs = NetInputs(rules, 0)

    def __call__(self, states: np.ndarray, params: np.ndarray, seats: np.ndarray) -> np.ndarray:
        states = np.ascontiguousarray(states, dtype=np.int64)
        n = len(states)
        out = np.empty(n, dtype=np.int64)
        need = np.empty(n, dtype=np.int64)
        k = policy_actions(states, np.ascontiguousarray(params, dtype=np.int64),
                           np.ascontiguousarray(seats, dtype=np.int64), self.other_bot,
                           self.flag, out, need)
        if k:
            rows = need[:k]
            bidding = phases_of(states, rows) == AUCTION
            if bidding.any():
                out[rows[bidding]] = self.bid_net.actions(self.inputs, states, rows[bidding])
            if (~bidding).any():
                out[rows[~bidding]] = self.inputs.net_actions(self.net, states, rows[~bidding])
        return out


# ======================================================= belote for two players
class TwoNetInputs:
    """Reusable buffers for the card-play network's inputs of belote for two players
    (:mod:`.canonical_two`), with the interface of :class:`NetInputs` the
    ``nn`` agent reads: the states are **public views** (``view.public_state``)."""

    def __init__(self, rules: RuleSet, capacity: int = 0):
        self.rules = rules
        self.params = params_vector(rules)
        self.match = np.zeros(5, dtype=np.float64)
        self._grow(max(1, capacity))

    def _grow(self, n: int) -> None:
        self.feats = np.zeros((n, C2.FEATURE_SIZE), dtype=np.float32)
        self.cards = np.zeros((n, 32), dtype=np.uint8)
        self.perms = np.zeros(n, dtype=np.int64)
        self.bid_legal = np.zeros((n, BID_SPACES["two"].n), dtype=np.uint8)

    def _waiting(self, views: np.ndarray, idx: np.ndarray):
        """``(n, V, players)``: the public views ``views[idx]`` (contiguous) and their
        players to act, the buffers grown to hold them."""
        n = len(idx)
        if n > len(self.perms):
            self._grow(max(n, 2 * len(self.perms)))
        V = np.ascontiguousarray(views[idx])
        return n, V, np.array([two_py.current_player(v) for v in V], dtype=np.int64)

    def readable(self, states: np.ndarray, idx: np.ndarray):
        """``(views, rows)``: the public views of the players to act in the full states
        ``states[idx]`` (row ``j`` for ``idx[j]``), what the networks read
        (:func:`play_players`)."""
        k = len(idx)
        views = np.zeros((k, states.shape[1]), dtype=np.int64)
        public_states_of(states, self.params, np.ascontiguousarray(idx, dtype=np.int64), k,
                         views, np.zeros(k, dtype=np.int64))
        return views, np.arange(k, dtype=np.int64)

    def compute(self, views: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the players to act in the public views
        ``views[idx]`` (each the view of the player to act)."""
        n, V, players = self._waiting(views, idx)
        C2.views_inputs(V, self.params, players, self.match if match is None else match,
                        self.feats[:n], self.cards[:n], self.perms[:n])
        return self.feats[:n], self.cards[:n].astype(bool), self.perms[:n]

    def bid_compute(self, views: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the players to decide the prise or the exchange in
        the public views ``views[idx]`` (:func:`.canonical_two.prise_inputs`): ``legal``
        bool ``[n, 8]`` over :data:`~.bid_actions.PRISE_ACTIONS`."""
        n, V, players = self._waiting(views, idx)
        C2.views_prise_inputs(V, self.params, players, self.match if match is None else match,
                              self.feats[:n], self.bid_legal[:n], self.perms[:n])
        return self.feats[:n], self.bid_legal[:n].astype(bool), self.perms[:n]

    def anchor_outputs(self, views: np.ndarray, idx: np.ndarray, perms: np.ndarray,
                       bot: int) -> np.ndarray:
        """The prise output of numba bot ``bot``'s action in ``views[idx]`` (renamings
        ``perms``): :class:`BidNet`'s trust region."""
        V = np.ascontiguousarray(views[idx])
        players = np.array([two_py.current_player(v) for v in V], dtype=np.int64)
        out = np.empty(len(idx), dtype=np.int64)
        batch_bot_actions(np.int64(bot), V, self.params, players, out)
        return BID_SPACES["two"].dst[np.asarray(perms, dtype=np.int64), out]

    def net_actions(self, net: MLP, views: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The physical card actions ``net`` plays in ``views[idx]``."""
        feats, legal, perms = self.compute(views, idx)
        return C.ACT_SRC[perms, A.CARD_BASE + net.best(feats, legal)]

    #: ``(actions, values, best)`` of the player to act in a view, as for four players
    #: (the same reading of :meth:`compute`'s one row)
    card_values = NetInputs.card_values

    @staticmethod
    def phase(V) -> str:
        """``"auction"`` in the prise and the exchange, else ``"play"``."""
        return "auction" if int(two_py.phase_of(V)) in (PRISE, EXCHANGE_PHASE) else "play"

    @staticmethod
    def choice(V, P, flag) -> int:
        """:data:`NET_BID` for a prise or exchange decision with a choice (a prise-net
        player), :data:`NET_CARD` for a card with a choice (a card-net player), the
        card when it is forced, else :data:`NOT_A_CARD` (the numba bot's)."""
        phase = int(two_py.phase_of(V))
        if flag & BID_NET and phase in (PRISE, EXCHANGE_PHASE) and \
                int(C2.prise_choices(V, P)) >= 2:
            return NET_BID
        if not flag & CARD_NET or phase != TWO_PLAY:
            return NOT_A_CARD
        m = int(two_legal_cards(V))
        if m & (m - 1):
            return NET_CARD
        return A.CARD_BASE + (m & -m).bit_length() - 1


class TwoBatchPolicy:
    """The ``nn`` agent of belote for two players as a batched policy
    ``f(public_views, params, players) -> actions`` (the opponents of the vector env of
    belote for two players): the numba bot for every decision, then one forward pass for
    the card decisions with a choice (``net`` None: the bot plays them too), one for the
    prise and exchange decisions with a choice (``bid_net``, a prise :class:`BidNet`)."""

    def __init__(self, net, rules: RuleSet, other_bot: int, bid_net=None):
        self.bid_net = bid_net
        self.net = net
        self.rules = rules
        self.other_bot = np.int64(other_bot)
        self.inputs = TwoNetInputs(rules)

    def __call__(self, views: np.ndarray, params: np.ndarray, players: np.ndarray) -> np.ndarray:
        views = np.ascontiguousarray(views, dtype=np.int64)
        params = np.ascontiguousarray(params, dtype=np.int64)
        out = np.empty(len(views), dtype=np.int64)
        batch_bot_actions(self.other_bot, views, params,
                          np.ascontiguousarray(players, dtype=np.int64), out)
        flag = (CARD_NET if self.net is not None else 0) | \
            (BID_NET if self.bid_net is not None else 0)
        if flag:
            choice = np.array([self.inputs.choice(V, params, flag) for V in views],
                              dtype=np.int64)
            need = np.flatnonzero(choice == NET_CARD)
            if len(need):
                out[need] = self.inputs.net_actions(self.net, views, need)
            need = np.flatnonzero(choice == NET_BID)
            if len(need):
                out[need] = self.bid_net.actions(self.inputs, views, need)
        return out


def play_states_two(rules: RuleSet, states: np.ndarray, seeds: np.ndarray, bots, nets,
                    bid_nets=None, until=None) -> None:
    """:func:`play_states` of belote for two players: play ``states``
    (full states) to their end **in place**, player ``p`` playing his cards with
    ``nets[p]`` when given, deciding the prise and the exchange with ``bid_nets[p]``
    when given (a prise :class:`BidNet`; in lockstep: one forward pass per network for
    every deal waiting for it, :func:`play_players`) and everything else with numba bot
    ``bots[p]`` (seeded from ``seeds[i, p]``)."""
    bid_nets = list(bid_nets)[:2] if bid_nets is not None else [None, None]
    if until is not None and until != DONE:            # the four-player DONE: the end
        raise ValueError("belote for two players' batched play goes to the end of the deal")
    n = len(states)
    if n == 0:
        return
    seeds4 = np.zeros((n, N_SEATS), dtype=np.int64)
    seeds4[:, :2] = np.asarray(seeds, dtype=np.int64)[:, :2]
    rngs = np.zeros((n, N_SEATS), dtype=np.uint64)
    seed_streams(seeds4, rngs)
    players = np.broadcast_to(np.arange(N_SEATS, dtype=np.int64), (n, N_SEATS))
    play_players(rules, states, np.ascontiguousarray(players), rngs,
                 np.asarray(bots, dtype=np.int64)[:2], list(nets)[:2], bid_nets,
                 TwoNetInputs(rules, n))


# ============================================== the lockstep play, for every family
@njit(_nrt=False, inline="always")
def _choice_four(S, P, flag, buf):
    return net_choice(S, P, flag)


@njit(_nrt=False, inline="always")
def _choice_two(S, P, flag, buf):
    phase = two_phase_of(S)
    if flag & CARD_NET != 0 and phase == TWO_PLAY and popcount(two_legal_cards(S)) >= 2:
        return NET_CARD
    if flag & BID_NET != 0 and phase != TWO_PLAY and two_legal_mask(S, P, buf) >= 2:
        return NET_BID
    return NOT_A_CARD


@njit(_nrt=False, inline="always")
def _cards_four(S, P):
    return legal_play_mask(S, P)


@njit(_nrt=False, inline="always")
def _cards_two(S, P):
    return two_legal_cards(S)


@njit(_nrt=False, inline="always")
def _advance_with(act, choice, cards, states, P, seats, flags, bots, rngs, waiting, epsilon,
                  record, rec, rec_game, n_rec, buf, V):
    """The body of :func:`advance_players` with the family's bots ``act`` (numba_bots'
    ``_act_*``), network decisions ``choice(S, P, flag, buf)`` (:data:`NET_CARD`,
    :data:`NET_BID`, a forced card, :data:`NOT_A_CARD`) and legal cards ``cards(S, P)``
    (a mask); ``buf`` (uint8[N_ACTIONS]) and ``V`` (a state) are scratch."""
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        while game_phase(S, P) != PHASE_DONE:
            cur = game_to_act(S, P)
            p = seats[i, cur]
            a = choice(S, P, flags[p], buf)
            if a == NET_CARD or a == NET_BID:
                if record and p == 0 and a == NET_CARD:
                    r = n_rec[0]
                    for j in range(S.shape[0]):
                        rec[r, j] = S[j]
                    rec_game[r] = i
                    n_rec[0] = r + 1
                    if epsilon > 0.0 and u01(rngs[i, EXPLORE:EXPLORE + 1]) < epsilon:
                        legal = cards(S, P)
                        game_apply(S, P, random_card(rngs[i, EXPLORE:EXPLORE + 1], legal,
                                                     popcount(legal)))
                        continue
                waiting[k] = i
                k += 1
                break
            if a == NOT_A_CARD:
                a = act(bots[p], S, P, cur, rngs[i, cur:cur + 1], buf, V)
                if a < 0 or not game_is_legal(S, P, a):
                    return -(i + 1)
            game_apply(S, P, a)
    return k


@njit(cache=True)
def advance_players_four(states, P, seats, flags, bots, rngs, waiting, epsilon, record, rec,
                         rec_game, n_rec, buf, V):
    """:func:`advance_players` of the four-player game."""
    return _advance_with(_act_four, _choice_four, _cards_four, states, P, seats, flags, bots,
                         rngs, waiting, epsilon, record, rec, rec_game, n_rec, buf, V)


@njit(cache=True)
def advance_players_two(states, P, seats, flags, bots, rngs, waiting, epsilon, record, rec,
                        rec_game, n_rec, buf, V):
    """:func:`advance_players` of belote for two players (the bots read their public
    views)."""
    return _advance_with(_act_two, _choice_two, _cards_two, states, P, seats, flags, bots,
                         rngs, waiting, epsilon, record, rec, rec_game, n_rec, buf, V)


def advance_players(states, P, seats, flags, bots, rngs, waiting, epsilon=0.0, record=None,
                    rec_game=None, n_rec=None) -> int:
    """Play every game of ``states`` (full states of the family of ``P``) until the seat
    to act faces a decision of a network (the flags ``flags[p]`` of its player ``p =
    seats[i, seat]``: :data:`CARD_NET` a card with a choice, :data:`BID_NET` an auction,
    prise or exchange decision with a choice) or the deal is over; a forced card is
    played as is, every other decision is the player's numba bot ``bots[p]``'s
    (stream ``rngs[i, seat]``; belote for two players' bots read the public view). With
    ``record`` (int64 ``[capacity, state size]``) each card decision with a choice of
    player 0 is first copied into ``record[n_rec[0]]`` (its game into ``rec_game``),
    then with probability ``epsilon`` (stream ``rngs[i, EXPLORE]``) a uniformly random
    legal card is played instead of the network's. The games waiting go into
    ``waiting``; returns how many, or ``-(i + 1)`` when a bot chose an illegal action in
    game ``i`` (never expected)."""
    two = bool(P[P_FAMILY] == FAMILY_TWO)
    kernel_ = advance_players_two if two else advance_players_four
    on = record is not None
    if not on:
        record = np.zeros((1, states.shape[1]), dtype=np.int64)
        rec_game = np.zeros(1, dtype=np.int64)
        n_rec = np.zeros(1, dtype=np.int64)
    return int(kernel_(states, P, seats, flags, bots, rngs, waiting, float(epsilon), on,
                       record, rec_game, n_rec, np.zeros(A.N_ACTIONS, dtype=np.uint8),
                       np.zeros(states.shape[1], dtype=np.int64)))


@njit(cache=True)
def deciders(states, P, idx, seats, bidding):
    """``seats[j]``: the seat (player) to act in ``states[idx[j]]``; ``bidding[j]``:
    whether the decision is the auction's (the prise's, the exchange's)."""
    for j in range(idx.shape[0]):
        S = states[idx[j]]
        seats[j] = game_to_act(S, P)
        ph = game_phase(S, P)
        bidding[j] = ph == PHASE_BIDDING or ph == PHASE_EXCHANGE


def play_players(rules: RuleSet, states: np.ndarray, seats: np.ndarray, rngs: np.ndarray,
                 bots, card_nets, bid_nets, inputs, epsilon: float = 0.0,
                 record: Optional[np.ndarray] = None):
    """Play ``states`` (full states of the family of ``rules``) to their end **in
    place**, the player ``p = seats[i, seat]`` deciding at each seat: his cards with the
    card network ``card_nets[p]`` when given, his auction (prise, exchange) with the
    bidding network ``bid_nets[p]`` when given, the rest with numba bot ``bots[p]``
    (streams ``rngs[i, seat]``; :func:`advance_players`). In lockstep: numba steps
    every game to its next network decision, then one forward pass per network for
    every game waiting for it, each reading its player's information only (``inputs``:
    the family's :class:`NetInputs` or :class:`TwoNetInputs`, whose
    :meth:`~NetInputs.readable` gives the states the networks read). With ``record``,
    player 0's card decisions with a choice are recorded first (and ``epsilon``
    explores, :func:`advance_players`); returns ``(n_recorded, games of the
    records)``."""
    P = params_vector(rules)
    n = len(states)
    card_nets, bid_nets = list(card_nets), list(bid_nets)
    flags = np.array([(CARD_NET if c is not None else 0) | (BID_NET if b is not None else 0)
                      for c, b in zip(card_nets, bid_nets)], dtype=np.int64)
    bots = np.asarray(bots, dtype=np.int64)
    seats = np.ascontiguousarray(seats, dtype=np.int64)
    waiting = np.zeros(n, dtype=np.int64)
    cap = 1 if record is None else len(record)
    rec_game = np.zeros(cap, dtype=np.int64)
    n_rec = np.zeros(1, dtype=np.int64)
    to_act = np.zeros(n, dtype=np.int64)
    bidding = np.zeros(n, dtype=np.bool_)
    while True:
        k = advance_players(states, P, seats, flags, bots, rngs, waiting, epsilon, record,
                            rec_game, n_rec)
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in game {-k - 1}")
        if k == 0:
            m = int(n_rec[0])
            return m, rec_game[:m]
        idx = waiting[:k].copy()
        deciders(states, P, idx, to_act[:k], bidding[:k])
        player = seats[idx, to_act[:k]]
        X, rows = inputs.readable(states, idx)
        acts = np.empty(k, dtype=np.int64)
        for which, nets, cards in ((bidding[:k], bid_nets, False),
                                   (~bidding[:k], card_nets, True)):
            done = []                           # one forward pass per distinct network
            for p in np.unique(player[which]):
                net = nets[p]
                if any(net is d for d in done):
                    continue
                done.append(net)
                sel = which & np.isin(player, [q for q, m in enumerate(nets) if m is net])
                acts[sel] = (inputs.net_actions(net, X, rows[sel]) if cards
                             else net.actions(inputs, X, rows[sel]))
        apply_at(states, P, idx, k, acts)


#: each family's batched play (:func:`play_states`), by :func:`.net.input_key`
_PLAY_STATES = {"two": play_states_two}
