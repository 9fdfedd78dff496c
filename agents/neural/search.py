"""Search over the networks: the ``nnsearch`` agent (``coinche_rl.agents.neural.search``).

At a card decision with a choice, the seat draws ``worlds`` worlds of the hidden cards
(from the belief net where one ships, exactly as :mod:`coinche_rl.agents.pimc` does, or
uniformly), and plays **every legal card out in every world**: the card, then the rest
of the deal with the card-play network at all four seats, each seat deciding on its own
information (the network reads the seat's observation, never the world's other hands)
and the heuristic for the declare / belote choices. The card with the best mean deal
score for the seat's team is played. Every card is scored on the same worlds, so the
luck of the draw cancels between the cards.

This is one step of policy improvement over the network, with the belief standing in for
the hidden cards: the idea of SPARTA (Lerer, Hu, Foerster, Brown, *Improving policies via
search in cooperative partially observable games*, AAAI-20, arXiv 1912.02318) and of
Belot's "PIMC over the net" (``../shared/NEURAL.md``: +121 Elo at 100 worlds, but worse
than no search at 10). Unlike PIMC's double-dummy solver, the play-outs never let a
seat see the other hands, which removes PIMC's strategy fusion.

The play-outs of all worlds and cards run in lockstep (:func:`.agent.play_states`): one
forward pass of the network per card left, for every play-out at once. ``time_ms``
bounds a decision: worlds are played in batches of ``batch`` until the budget is spent
(at least one batch). With ``solve_from`` cards or fewer in hand, where a double-dummy
solve costs little, the worlds are solved exactly instead (PIMC's evaluation, the same
worlds and the same choice rule as ``pimc``). The auction and every other decision are
the ``nn`` agent's.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> deal = Deal("ffb", seed=4, dealer=1).with_contract(80, 1, taker=0)
>>> table = [make_agent("nnsearch:worlds=4"), make_agent("heuristic")] * 2
>>> play_deal(deal, table, seeds=[1, 2, 3, 4]).scores == deal.scores
True
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ...engine import STATE_SIZE, apply_legal_action, hand_of, popcount, team_score
from ...game import Deal
from ...rules import CARDS_PER_HAND, N_SEATS, RuleSet
from ...rules import team as team_of
from ..base import Agent, Param, PlayerView
from ..numba_bots import BOT_HEURISTIC
from ..pimc import PIMCAgent, PIMCError, WORLD_SOURCES, world_state_into
from ..sampler import WorldSampler
from .agent import NeuralAgent
from .batch_play import CARD_NET, DEFAULT_MARGIN, NET_CARD, net_choice, play_states
from .net import MLP

__all__ = ["SearchAgent", "branch_states", "team_differences", "warmup"]


@njit(cache=True)
def branch_states(pub, P, seat, worlds, actions, out):
    """``out[k * L + i]``: the state of world ``worlds[k]`` (int64[4] hands, built by
    :func:`~coinche_rl.agents.pimc.world_state_into` from ``seat``'s public state
    ``pub``) after ``actions[i]`` (``L`` actions)."""
    hands = np.empty(N_SEATS, dtype=np.int64)
    Sw = np.empty(STATE_SIZE, dtype=np.int64)
    L = actions.shape[0]
    for k in range(worlds.shape[0]):
        for s in range(N_SEATS):
            hands[s] = worlds[k, s]
        world_state_into(pub, P, seat, hands, Sw)
        for i in range(L):
            o = out[k * L + i]
            for j in range(STATE_SIZE):
                o[j] = Sw[j]
            apply_legal_action(o, P, actions[i])


@njit(cache=True)
def team_differences(states, team, out):
    """``out[i]``: ``team``'s deal score minus the other team's in finished
    ``states[i]``."""
    for i in range(states.shape[0]):
        out[i] = team_score(states[i], team) - team_score(states[i], 1 - team)


class SearchAgent(Agent):
    """The ``nn`` agent with a search over its card-play network (module docstring). It
    holds an ``nn`` agent (:attr:`nn`) for the auction and the declare / belote choices,
    and on purpose is no :class:`~coinche_rl.agents.base.BatchedAgent`: tournaments must
    not replace its search by the batched network play of the ``nn`` agent."""

    #: what ``coinche-rl agents`` says of it
    DESCRIPTION = ("search over the networks: every legal card played out by the card-play net at "
                   "all seats on believed worlds, the late decisions solved exactly; bids as nn")
    PARAMS = {
        "worlds": Param(int, doc="worlds played out (or solved) per card decision", min=1, max=4096),
        "time_ms": Param(float, doc="stop drawing worlds once a decision has taken this many "
                                     "milliseconds (0: all the worlds)", min=0.0),
        "batch": Param(int, doc="worlds played out together (one batch at least)", min=1,
                       max=4096),
        "worlds_from": Param(str, doc="as pimc: 'belief', 'uniform', or 'auto' (the "
                             "belief where weights ship for the preset)", choices=WORLD_SOURCES),
        "uniform_share": Param(float, doc="with belief worlds, the share drawn uniformly",
                               min=0.0, max=1.0),
        "belief_weights": Param(str, doc="a belief weights file (default: shipped)"),
        "weights": Param(str, doc="card-play weights file (default: shipped for the preset)"),
        "any_rules": Param(bool, doc="play under a preset the nets were not trained for"),
        "bid_weights": Param(str, doc="bidding weights file (default: shipped)"),
        "bidding": Param(str, doc="net | heuristic | auto, as nn",
                         choices=("auto", "net", "heuristic")),
        "bid_margin": Param(float, doc="as nn", min=0.0),
        "solve_from": Param(int, doc="with this many cards in hand or fewer, solve the worlds "
                            "exactly (pimc's double-dummy evaluation on the same worlds) "
                            "instead of playing them out with the network; 0: never",
                            min=0, max=CARDS_PER_HAND),
    }
    ROSTER = False

    def __init__(self, worlds: int = 128, time_ms: float = 0.0, batch: int = 16,
                 worlds_from: str = "auto", uniform_share: float = 0.1,
                 belief_weights: str = "", weights: str = "", any_rules: bool = False,
                 bid_weights: str = "", bidding: str = "auto", bid_margin: float = DEFAULT_MARGIN,
                 solve_from: int = 6):
        super().__init__()
        #: the ``nn`` agent behind every decision that is not a card with a choice
        self.nn = NeuralAgent(weights=weights, any_rules=any_rules, bid_weights=bid_weights,
                              bidding=bidding, play="net", bid_margin=bid_margin)
        self.net = None
        for name, v, lo in (("worlds", worlds, 1), ("batch", batch, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"nnsearch: {name}={v!r}: expected an int >= {lo}")
        if not time_ms >= 0:
            raise ValueError(f"nnsearch: time_ms={time_ms!r}: expected milliseconds >= 0 "
                             f"(0: no limit)")
        self.worlds = int(worlds)
        self.time_ms = float(time_ms)
        self.batch = int(batch)
        if isinstance(solve_from, bool) or not isinstance(solve_from, (int, np.integer)) \
                or not 0 <= solve_from <= CARDS_PER_HAND:
            raise ValueError(f"nnsearch: solve_from={solve_from!r}: expected cards in hand, "
                             f"an int in 0..{CARDS_PER_HAND} (0: never solve)")
        self.solve_from = int(solve_from)
        # the world source is PIMC's (same parameters, same checks); with solve_from, the
        # same agent solves the late decisions
        self._source = PIMCAgent(worlds=self.worlds, worlds_from=worlds_from,
                                 uniform_share=uniform_share, belief_weights=belief_weights,
                                 tt_bits=10 if not solve_from else 14)
        self.worlds_from = worlds_from
        self.uniform_share = float(uniform_share)
        self.belief_weights = belief_weights
        self._decisions = 0
        #: worlds played out at the last card decision (0: a single legal card)
        self.last_worlds = 0

    @property
    def seconds_per_deal(self) -> float:
        """About 1.5 ms per world and played-out card decision, 20 decisions a deal
        (2.5 per card in hand); a solved decision about 5 ms."""
        played_out = CARDS_PER_HAND - self.solve_from
        return 2.5 * (0.0015 * self.worlds * played_out + 0.005 * self.solve_from)

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        if rules.family == "classic":
            raise PIMCError("nnsearch plays the coinche family (its networks and worlds)")
        super().reset(seat, rules, seed)
        self.nn.reset(seat, rules, seed)
        self._source.reset(seat, rules, seed)
        self.net = self.nn.net
        self._decisions = 0
        self._seed = int(seed)

    def act(self, view: PlayerView) -> int:
        S = view.public_state
        if self.net is not None and net_choice(S, view.params, CARD_NET) == NET_CARD:
            if self._solves(view):
                a = self._source.act(view)
                self.last_worlds = self._source.last_worlds
                return a
            return self.card_values(view)[0]
        self.last_worlds = 0
        return self.nn.act(view)

    def _solves(self, view: PlayerView) -> bool:
        """Whether this decision is solved exactly (``solve_from``)."""
        return self.solve_from > 0 and popcount(hand_of(view.public_state, view.seat)) <= self.solve_from

    def card_values(self, view: PlayerView):
        """``(best action, actions, mean values)``: each legal card's mean deal score
        difference for the seat's team over the worlds played out (or, ``solve_from``,
        solved: pimc's values and choice)."""
        if self._solves(view):
            best, actions, totals, n = self._source.card_choice(view)
            self.last_worlds = n
            return best, actions, totals / n
        self._decisions += 1
        info = view.information_set
        actions = np.ascontiguousarray(view.legal_actions, dtype=np.int64)
        sampler = WorldSampler(info)
        belief = self._source.belief_net(view.rules)
        seed = (self._seed * 1_000_003 + self._decisions) % (2 ** 63)
        pub = view.public_state
        if belief is not None:
            probs = belief.probabilities(info, pub)
            worlds = sampler.sample_belief(self.worlds, seed, probs,
                                           uniform_share=self.uniform_share)
        else:
            worlds = sampler.sample(self.worlds, seed)
        team = team_of(view.seat)
        L = len(actions)
        total = np.zeros(L, dtype=np.float64)
        done = 0
        t0 = time.perf_counter()
        nets = [self.net] * N_SEATS
        bots = [BOT_HEURISTIC] * N_SEATS
        while done < self.worlds:
            k = min(self.batch, self.worlds - done)
            states = np.empty((k * L, STATE_SIZE), dtype=np.int64)
            branch_states(pub, view.params, view.seat, worlds[done:done + k], actions, states)
            seeds = (seed + np.arange(k * L * N_SEATS, dtype=np.int64)).reshape(k * L, N_SEATS)
            play_states(view.rules, states, seeds, bots, nets)
            diff = np.empty(k * L, dtype=np.int64)
            team_differences(states, team, diff)
            total += diff.reshape(k, L).sum(axis=0)
            done += k
            if self.time_ms > 0 and (time.perf_counter() - t0) * 1000.0 >= self.time_ms:
                break
        self.last_worlds = done
        values = total / done
        best = int(actions[int(np.argmax(values))])
        return best, actions, values


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the sampler
#: (in its chain) and the solver's search, whose kernels its kernels call
WARMUP_AFTER = ("coinche_rl.agents.sampler", "coinche_rl.solver:warmup_search")


def warmup() -> None:
    """Compile the kernels of this module."""
    d = Deal("ffb", seed=0, dealer=3).with_contract(80, 1, taker=0)
    for _ in range(3):
        d.apply(int(d.legal_actions()[0]))
    view = PlayerView.from_deal(d)
    agent = SearchAgent(worlds=2, worlds_from="uniform", bidding="heuristic")
    agent.reset(view.seat, d.rules, 0)
    agent.net = agent.nn.net = MLP.random((4,), seed=0)
    agent.card_values(view)
