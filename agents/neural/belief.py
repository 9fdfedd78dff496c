"""Card inference: a network that says who holds each hidden card (``coinche_rl.agents.neural.belief``).

The **belief net** reads what the seat to play a card knows (the same canonical input as
the card-play net, :mod:`.canonical`: its hand, the auction, every card played and by
whom, the contract, declarations, belote, the voids and trump ceilings the play showed)
and gives, for each of the 32 canonical cards, a distribution over the three other seats
(left, partner, right). Its 96 outputs are logits ``[card, seat - observer - 1]``; a
card the observer sees (its own, or played) has no label and its outputs mean nothing.
Labels are free: the true holders of the training deals.

The net only gives *marginals*. PIMC does not draw each card on its own from them:
:func:`coinche_rl.agents.sampler.sample_belief_into` draws whole worlds with probability
proportional to the product of the per-card probabilities **conditioned exactly on the
hand sizes and on every hard constraint** of the information set (voids, ceilings, known
cards), so a card the engine rules out for a seat gets exactly zero there whatever the
net says (:meth:`BeliefNet.probabilities` applies the same rule to the marginals it
returns). This is the design the anchors measured: Solinas, Rebstock & Buro, *Improving
search with supervised learning in trick-based card games* (AAAI-19, arXiv 1903.09604);
colver's belief worlds (``docs/belief/playgen.md``).

**Training positions** (:func:`generate_positions`) come from the population the agents
meet: each deal's four seats are each the shipped ``nn`` card player, the heuristic or
(rarely) a uniformly random player, every card decision is random with a small
probability, and the auction is the bidding net's, the heuristic's, or skipped for the
arena's frozen contract. Every card decision with two or more legal cards is a position
(the decisions PIMC searches). ``coinche-rl train belief`` (:mod:`coinche_rl.train.belief`) trains
the net and writes a torch-free weights file with its manifest (``kind: "belief"``).

>>> from coinche_rl.rules import get_rules
>>> pos = generate_positions(get_rules("ffb"), seed=1, first_game=0, n_games=4)
>>> pos.feats.shape[1] == C.FEATURE_SIZE, pos.labels.shape[1], int(pos.labels.max()) <= 3
(True, 32, True)
>>> bool(((pos.labels > 0).sum(1) <= 24).all())     # at most 24 cards hidden
True
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import (AUCTION, STATE_SIZE, current_seat, current_seats, hand_of,
                       lowest_card, phases_of, deal_into, rng_below, rng_seed,
                       set_contract, frozen_strain)
from ...cards import N_CARDS, N_SUITS
from ...rules import N_SEATS, N_TRICKS, P_MIN_BID, RuleSet, get_rules, params_vector, seat_after
from ...envs.infoset import information_set
from ...envs.kernels import apply_at
from ..numba_bots import BOT_HEURISTIC, bot_action
from ..registry import make_agent
from ..sampler import WorldSampler
from . import canonical as C
from .agent import load_bid_net, load_checked, load_play_net
from .batch_play import BID_NET, CARD_NET, NetInputs, advance, seed_streams
from .family import check_inputs, net_family
from .labels import PLAYER_HEURISTIC, PLAYER_NN, PLAYER_RANDOM, Positions, card_actions
from .net import BELIEF_OUTPUTS, MLP, N_BELIEF_OUT, NeuralError

__all__ = ["BeliefNet", "Positions", "generate_positions", "position_labels", "card_actions",
           "load_belief_net", "belief_report", "four_belief_scores", "four_positions", "uniform_loss_four", "N_BELIEF", "warmup", "PLAYER_NN", "PLAYER_HEURISTIC",
           "PLAYER_RANDOM", "DEFAULT_MIX"]

#: outputs: 32 canonical cards x 3 relative seats (left, partner, right)
N_BELIEF = N_BELIEF_OUT
#: the default population: P(nn), P(heuristic), P(random) card player per seat; the
#: auction: P(bidding net), P(heuristic), P(frozen contract); epsilon: random cards
DEFAULT_MIX = {"players": (0.55, 0.4, 0.05), "auction": (0.4, 0.3, 0.3), "epsilon": 0.05}


# ------------------------------------------------------------------ kernels
@njit(cache=True)
def position_labels(states, idx, perms, out):
    """``out[j, c]`` (int8[n, 32]) for the seat to act in ``states[idx[j]]`` and its
    canonical renaming ``perms[j]``: for canonical card ``c``, the holder's seat relative
    to the observer (1 left, 2 partner, 3 right), 0 when the card is not hidden from it
    (in its hand, or played)."""
    for j in range(idx.shape[0]):
        S = states[idx[j]]
        seat = current_seat(S)
        p = perms[j]
        for c in range(N_CARDS):
            out[j, c] = 0
        for r in range(1, N_SEATS):
            m = hand_of(S, seat_after(seat, r))
            while m:
                c = lowest_card(m)
                m &= m - 1
                out[j, C.PERMS[p, c >> 3] * 8 + (c & 7)] = r


@njit(cache=True)
def bot_actions_at(states, P, idx, rngs, bot, out):
    """``out[j]``: numba bot ``bot``'s action for the seat to act in ``states[idx[j]]``
    (its stream ``rngs[idx[j], seat]``)."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    for j in range(idx.shape[0]):
        S = states[idx[j]]
        cur = current_seat(S)
        out[j] = bot_action(bot, S, P, cur, rngs[idx[j], cur:cur + 1], buf)


@njit(cache=True)
def deal_games(states, P, seed, first_game, frozen):
    """Deal game ``g`` of ``states`` from sub-stream ``first_game + g`` of ``seed``: a
    random deal and dealer; where ``frozen[g]`` the auction is skipped for the arena's
    frozen contract (a random seat takes the minimum bid in its longest suit)."""
    rng = np.zeros(1, dtype=np.uint64)
    hands = np.zeros(N_SEATS, dtype=np.int64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    for g in range(states.shape[0]):
        rng_seed(rng, seed, first_game + g)
        deal_into(states[g], P, rng, np.int64(-1), hands, deck)
        if frozen[g]:
            taker = rng_below(rng, N_SEATS)
            set_contract(states[g], P, P[P_MIN_BID], frozen_strain(hands[taker]), np.int64(0), taker)


# ------------------------------------------------------------------ positions
def generate_positions(rules: RuleSet, seed: int, first_game: int, n_games: int,
                       mix: Optional[dict] = None, play_net: Optional[MLP] = None,
                       bid_net=None) -> Positions:
    """Play games ``first_game .. first_game + n_games - 1`` of ``seed`` in lockstep (see
    the module docstring; ``mix`` as :data:`DEFAULT_MIX`) and return every card decision
    with two or more legal cards as a position (the family's generator,
    :attr:`~.family.NetFamily.belief_positions`: four players' here, belote for two
    players' in :mod:`.labels_two`). A pure function of its arguments.

    ``play_net`` / ``bid_net``: the networks of the ``nn`` seats (default: the weights
    shipped for ``rules``; without them the heuristic takes their share)."""
    mix = dict(DEFAULT_MIX, **(mix or {}))
    if play_net is None:
        play_net = _shipped(lambda: load_play_net("", rules))
    if bid_net is None:
        bid_net = _shipped(lambda: load_bid_net("", rules, "nn", required=False))
    rng = np.random.default_rng([seed, first_game, 0xBE11EF])
    return net_family(rules).belief_positions_of(rules, seed, first_game, n_games, mix,
                                                 play_net, bid_net, rng)


def four_positions(rules: RuleSet, seed: int, first_game: int, n_games: int, mix: dict,
                   play_net: Optional[MLP], bid_net, rng) -> Positions:
    """:func:`generate_positions` for four players (``rng``: the population's stream)."""
    P = params_vector(rules)
    inputs = NetInputs(rules, n_games)
    players = rng.choice(3, size=(n_games, N_SEATS), p=np.asarray(mix["players"], dtype=float))
    if play_net is None:
        players[players == PLAYER_NN] = PLAYER_HEURISTIC
    auction = rng.choice(3, size=n_games, p=np.asarray(mix["auction"], dtype=float))
    if bid_net is None:
        auction[auction == 0] = 1
    states = np.zeros((n_games, STATE_SIZE), dtype=np.int64)
    deal_games(states, P, np.uint64(seed), first_game,
               (auction == 2).astype(np.bool_))
    rngs = np.zeros((n_games, N_SEATS), dtype=np.uint64)
    seeds = (np.int64(seed) * 1_000_003 + first_game + np.arange(n_games, dtype=np.int64)
             )[:, None] * N_SEATS + np.arange(N_SEATS)
    seed_streams(np.ascontiguousarray(seeds), rngs)
    bots = np.full(N_SEATS, BOT_HEURISTIC, dtype=np.int64)
    flags = np.full(N_SEATS, CARD_NET | BID_NET, dtype=np.int64)
    waiting = np.zeros(n_games, dtype=np.int64)
    out_f, out_l, out_t = [], [], []
    eps = float(mix["epsilon"])
    while True:
        k = advance(states, P, bots, flags, rngs, waiting)
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in game {-k - 1}")
        if k == 0:
            break
        idx = waiting[:k].copy()
        bidding = phases_of(states, idx) == AUCTION
        acts = np.empty(k, dtype=np.int64)
        if bidding.any():
            b = idx[bidding]
            net_bid = auction[b] == 0
            a = np.empty(len(b), dtype=np.int64)
            if net_bid.any():
                a[net_bid] = bid_net.actions(inputs, states, b[net_bid])
            if (~net_bid).any():
                h = np.empty(int((~net_bid).sum()), dtype=np.int64)
                bot_actions_at(states, P, b[~net_bid], rngs, BOT_HEURISTIC, h)
                a[~net_bid] = h
            acts[bidding] = a
        if (~bidding).any():
            c = idx[~bidding]
            feats, legal, perms = inputs.compute(states, c)
            labels = np.empty((len(c), N_CARDS), dtype=np.int8)
            position_labels(states, c, perms, labels)
            out_f.append(feats.astype(np.float16))
            out_l.append(labels)
            out_t.append(_tricks(feats))

            def heuristic(rows):
                h = np.empty(int(np.count_nonzero(rows)), dtype=np.int64)
                bot_actions_at(states, P, c[rows], rngs, BOT_HEURISTIC, h)
                return h
            acts[~bidding] = card_actions(rng, players[c, current_seats(states, c)], eps,
                                          feats, legal, perms, play_net, heuristic)
        apply_at(states, P, idx, k, acts)
    return Positions.joined(out_f, out_l, out_t, n_games, C.FEATURE_SIZE)


def _shipped(load):
    """A shipped net, or None when the preset has none."""
    try:
        return load()
    except NeuralError:
        return None


_TRICK0 = C.FEATURE_LAYOUT["observation"][0] + C.L["trick_no"][0]


def _tricks(feats: np.ndarray) -> np.ndarray:
    """The trick number (0..7) of each input row (its one-hot ``trick_no``)."""
    return np.argmax(feats[:, _TRICK0:_TRICK0 + N_TRICKS], axis=1).astype(np.int8)


# ------------------------------------------------------------------ the net
class BeliefNet:
    """A belief net: :meth:`logits` of network inputs, :meth:`probabilities` of a seat's
    position as physical ``[4, 32]`` marginals."""

    def __init__(self, net: MLP):
        key = ((net.manifest or {}).get("observation") or {}).get("family", "four")
        self.places = BELIEF_OUTPUTS[key][1]
        if net.outputs != N_CARDS * self.places:
            raise ValueError(f"a belief net of the {key} players' family has "
                             f"{N_CARDS * self.places} outputs, not {net.outputs}")
        self.net = net
        self.manifest = net.manifest
        self._inputs = {}

    def logits(self, feats: np.ndarray) -> np.ndarray:
        """float32 ``[n, 32, places]``: canonical card x place (the three other seats;
        for two players the other hand, face down)."""
        return self.net.forward(feats).reshape(len(feats), N_CARDS, self.places)

    def other_hand(self, view) -> np.ndarray:
        """Belote for two players: float64 ``[32]``, the net's probability that each
        physical card lies in the other hand, for the player to play a card in ``view``
        (his :class:`~coinche_rl.two_player.TwoPlayerView`: the net reads his public view
        only; the cards he sees and those the rules rule out are his sampler's business,
        :func:`~coinche_rl.agents.sampler.hand_odds`)."""
        feats, perm = self.view_inputs(view)
        return self.canonical_probs(feats)[0, C.CARD_DST[perm], 0]

    def view_inputs(self, view):
        """``(feats, perm)``: the network input (one row) of the player to play a card in
        ``view`` (a view of belote for two players), and its suit renaming."""
        inp = self._inputs.get(view.rules)
        if inp is None:
            inp = self._inputs[view.rules] = net_family(view.rules).inputs_class(view.rules, 1)
        feats, _legal, perms = inp.compute(np.ascontiguousarray(view.state[None, :]),
                                           np.zeros(1, dtype=np.int64))
        return feats.copy(), int(perms[0])

    def canonical_probs(self, feats: np.ndarray) -> np.ndarray:
        """Softmax of :meth:`logits` over the places (float64 ``[n, 32, places]``)."""
        z = self.logits(feats).astype(np.float64)
        z -= z.max(axis=2, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=2, keepdims=True)
        return z

    def physical(self, feats: np.ndarray, perms: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """float64 ``[n, 4, 32]``: for each row, the net's probability that physical
        card ``c`` is held by seat ``s`` (0 for the observer's own seat; the rows of
        cards the observer sees are meaningless here: see :meth:`probabilities`)."""
        pc = self.canonical_probs(feats)
        n = len(feats)
        out = np.zeros((n, N_SEATS, N_CARDS), dtype=np.float64)
        for j in range(n):
            canon = C.CARD_DST[int(perms[j])]
            for r in range(1, N_SEATS):
                out[j, seat_after(int(seats[j]), r)] = pc[j, canon, r - 1]
        return out

    def inputs_for(self, rules: RuleSet, state: np.ndarray):
        """``(feats, perm, seat)`` of the seat to play a card in ``state`` (an engine
        state or that seat's public state)."""
        key = rules
        inp = self._inputs.get(key)
        if inp is None:
            inp = self._inputs[key] = NetInputs(rules, 1)
        S = np.ascontiguousarray(np.asarray(state, dtype=np.int64)[None, :])
        feats, _legal, perms = inp.compute(S, np.zeros(1, dtype=np.int64))
        return feats, int(perms[0]), int(current_seat(S[0]))

    def probabilities(self, info, state: np.ndarray) -> np.ndarray:
        """float64 ``[4, 32]``: the probability that each seat holds each card, for the
        seat to play in ``state`` with information set ``info``
        (:class:`~coinche_rl.envs.infoset.InformationSet`). Exactly 0 where ``info``
        rules the seat out (``possible``) and 1 for known cards; each hidden card's
        column sums to 1; played cards are 0 everywhere."""
        if info.phase != "play":
            raise ValueError("the belief net reads card-play positions (phase 'play'), "
                             f"not {info.phase!r}")
        feats, perm, seat = self.inputs_for(info.rules, state)
        if seat != info.seat:
            raise ValueError(f"the state's seat to act is {seat}, the information set's "
                             f"seat is {info.seat}")
        raw = self.physical(feats, np.array([perm]), np.array([seat]))[0]
        out = np.zeros((N_SEATS, N_CARDS), dtype=np.float64)
        for c in range(N_CARDS):
            bit = 1 << c
            holders = [s for s in range(N_SEATS) if info.possible[s] & bit]
            if not holders:
                continue
            known = [s for s in holders if info.known[s] & bit]
            if known:
                out[known[0], c] = 1.0
                continue
            w = np.array([raw[s, c] for s in holders])
            w = np.maximum(w, 1e-12)
            out[holders, c] = w / w.sum()
        return out


def load_belief_net(path: str = "", rules: Optional[RuleSet] = None,
                    check_rules: bool = True) -> BeliefNet:
    """The belief net at ``path`` (default: the weights shipped for ``rules``), checked
    against its manifest (:func:`~.net.load_weights`, ``kind="belief"``; a net of another
    family's input is refused even without ``check_rules``)."""
    rules = rules or get_rules("ffb")
    missing = net_family(rules).belief_missing(rules)
    if missing:
        raise NeuralError(missing)
    net = load_checked(path, rules, "belief", "belief", "use",
                       "Pass belief_weights=PATH or worlds_from=uniform", check_rules)
    check_inputs(net, rules, path)
    return BeliefNet(net)


def uniform_loss_four(labels) -> float:
    """The trainer's baseline for four players: guessing among the three other seats
    (log 3 nats per hidden card)."""
    return math.log(N_SEATS - 1)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the kernels of the position generator of every family with a belief net
    (at the family's default preset)."""
    from .family import NET_FAMILIES
    for fam in NET_FAMILIES.values():
        if fam.belief_positions:
            rules = get_rules(fam.default_preset)
            generate_positions(rules, 1, 0, 2,     # seed 1: deals played (not void)
                               play_net=MLP.random((4,), seed=0, inputs=fam.feature_size))


# ------------------------------------------------------------------ the report
def belief_report(belief: BeliefNet, rules=None, n_deals: int = 100, seed: int = 0,
                  players=None, frozen: bool = False) -> dict:
    """How good the belief is, on the card decisions (two or more legal cards) of
    ``n_deals`` deals of ``seed`` played by the agent specs ``players`` (one per seat;
    default ``nn`` and the heuristic in turn) under ``rules`` (default ``ffb``; whole
    deals, or with ``frozen`` the arena's frozen contract, where the family has one). For
    every hidden card of every position, three predictions of where it lies are scored
    by their mean log-loss (nats per hidden card, averaged over the positions; lower is
    better):

    * ``uniform``: the exact marginals of the uniform world sampler (every world the
      information set allows equally likely: what plain PIMC assumes);
    * ``net``: the net's marginals with the information set's hard zeros
      (:meth:`BeliefNet.probabilities`);
    * ``worlds``: the exact marginals of the worlds PIMC draws from the belief (the
      product of the net's probabilities conditioned on the hand sizes and every
      constraint, :meth:`~coinche_rl.agents.sampler.WorldSampler.marginals`), no
      uniform share.

    What a position and its scores are is the family's
    (:attr:`~.family.NetFamily.belief_scores`): for four players each hidden card's
    holder among the three other seats (:func:`four_belief_scores`); for belote for two
    players whether each card the player cannot see lies in the other hand or face down,
    on the positions the belief net trains on
    (:func:`~coinche_rl.agents.neural.labels_two.belief_scores`). Rules without a belief
    net (belote découverte) are refused, saying why.

    Also by trick (``by_trick``, 1-based), by phase (``first_trick``: right after the
    auction; ``mid_play``; ``late``: the last three eighths of the tricks, 6-8 of 8),
    and the net's calibration by decile of predicted probability (mean predicted vs
    observed frequency over every (hidden card, candidate place))."""
    from ...envs.family import env_family
    from ...engine import family_of
    from ..base import agent_view
    rules = get_rules(rules or "ffb") if not isinstance(rules, RuleSet) else rules
    fam = net_family(rules)
    missing = fam.belief_missing(rules)
    if missing:
        raise NeuralError(missing)
    if frozen and not fam.frozen:
        raise ValueError(f"belief_report: rules {rules.name!r} have no auction to freeze "
                         f"(frozen=True is for the four players' families)")
    game = family_of(rules)
    n_players = game.n_players
    if players is None:
        players = ("nn", "heuristic") * (n_players // 2)
    players = tuple(players)
    if len(players) != n_players:
        raise ValueError(f"belief_report: {len(players)} players given, rules "
                         f"{rules.name!r} have {n_players}")
    scores = fam.belief_scores_of
    deal_class = env_family(rules).deal
    rows = {"uniform": [], "net": [], "worlds": []}
    tricks = []
    cal_p, cal_y = [], []
    rng = np.random.default_rng([seed, 0xCA1])
    for i in range(n_deals):
        deal = deal_class(rules, seed=int(rng.integers(2 ** 62)),
                          dealer=int(rng.integers(n_players)))
        agents = [make_agent(p, rules) for p in players]
        for s, a in enumerate(agents):
            a.reset(s, rules, int(rng.integers(2 ** 31)))
        if frozen:
            hand = deal.hands[0]
            lengths = [bin((hand >> (8 * s)) & 0xFF).count("1") for s in range(N_SUITS)]
            deal = deal.with_contract(rules.min_bid, int(np.argmax(lengths)), taker=0)
        while not deal.is_terminal:
            seat = deal.current_player
            view = agent_view(deal, seat)
            scored = scores(belief, deal, seat, view)
            if scored is not None:
                losses, trick, p, y = scored
                for name in rows:
                    rows[name].append(losses[name])
                tricks.append(trick)
                cal_p.extend(p)
                cal_y.extend(y)
            deal.apply(agents[seat].act(view))
    tricks = np.asarray(tricks)
    out = {"rules": rules.name, "positions": int(len(tricks)), "deals": n_deals,
           "players": list(players), "frozen": bool(frozen)}
    for name, v in rows.items():
        out[f"log_loss_{name}"] = round(float(np.mean(v)), 4) if v else None
    n_tricks = game.n_tricks
    out["by_trick"] = {str(t + 1): {name: round(float(np.mean(np.asarray(v)[tricks == t])), 4)
                                    for name, v in rows.items()}
                       for t in range(n_tricks) if (tricks == t).any()}
    late = n_tricks - 3 * n_tricks // 8
    phases = {"first_trick": (0, 0), "mid_play": (1, late - 1), "late": (late, n_tricks - 1)}
    out["by_phase"] = {ph: {name: round(float(np.mean(np.asarray(v)[(tricks >= lo) & (tricks <= hi)])), 4)
                            for name, v in rows.items()}
                       for ph, (lo, hi) in phases.items() if ((tricks >= lo) & (tricks <= hi)).any()}
    p, y = np.asarray(cal_p), np.asarray(cal_y)
    deciles = []
    for k in range(10):
        sel = (p >= k / 10) & (p < (k + 1) / 10 if k < 9 else p <= 1.0)
        if sel.any():
            deciles.append({"bin": f"{k / 10:.1f}-{(k + 1) / 10:.1f}", "n": int(sel.sum()),
                            "predicted": round(float(p[sel].mean()), 4),
                            "observed": round(float(y[sel].mean()), 4)})
    out["calibration"] = deciles
    return out


def four_belief_scores(belief: BeliefNet, deal, seat: int, view):
    """:func:`belief_report`'s scores of the decision of ``seat`` (his ``view``) in the
    four-player ``deal``: None unless it is a card decision with two or more legal cards
    and a card hidden from him; else ``(losses, trick, p, y)``: the mean log-loss per
    hidden card of the uniform sampler's, the net's and the believed worlds' marginals
    (``losses["uniform"]``, ``["net"]``, ``["worlds"]``), the trick (0-based), and the
    net's calibration pairs (its probability that a candidate seat holds a hidden card,
    whether it does)."""
    if deal.phase != "play" or bin(int(deal.legal_cards())).count("1") < 2 \
            or deal.legal_actions()[0] < A.CARD_BASE:
        return None
    info = information_set(deal, seat)
    hidden = [(c, s) for s in range(N_SEATS) if s != seat
              for c in range(N_CARDS) if (deal.hands[s] >> c) & 1
              and not (info.known[s] >> c) & 1]
    if not hidden:
        return None
    sampler = WorldSampler(info)
    net = belief.probabilities(info, view.public_state)
    margs = {"uniform": sampler.marginals(), "net": net, "worlds": sampler.marginals(net)}
    losses = {name: float(np.mean([-np.log(max(m[s, c], 1e-12)) for c, s in hidden]))
              for name, m in margs.items()}
    p, y = [], []
    for c, s in hidden:
        for t in range(N_SEATS):
            if t != seat and 0.0 < net[t, c] < 1.0:
                p.append(net[t, c])
                y.append(1.0 if t == s else 0.0)
    return losses, bin(int(info.played)).count("1") // N_SEATS, p, y
