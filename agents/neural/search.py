"""Search over the networks: the ``nnsearch`` agent (``coinche_rl.agents.neural.search``).

At a card decision with a choice, the player draws ``worlds`` worlds of the hidden cards
(four players: the other hands; belote for two players: the other hand and every
face-down card; from the belief net where one ships, exactly as
:mod:`coinche_rl.agents.pimc` draws them, or uniformly among those the plays allow), and plays **every legal card out in every world**: the card, then the
rest of the deal with the card-play network at every seat, each deciding on his own
information (the network reads the player's public view of the world, never its other
hand nor its face-down cards) and the heuristic for the declare / belote choices. The
card with the best mean deal score for the player's side (his team, or himself) is
played. Every card is scored on the same worlds, so the luck of the draw cancels
between the cards.

This is one step of policy improvement over the network, with the belief standing in for
the hidden cards: the idea of SPARTA (Lerer, Hu, Foerster, Brown, *Improving policies via
search in cooperative partially observable games*, AAAI-20, arXiv 1912.02318) and of
Belot's "PIMC over the net" (``../shared/NEURAL.md``: +121 Elo at 100 worlds, but worse
than no search at 10). Unlike PIMC's double-dummy solver, the play-outs never let a
player see the hidden cards, which removes PIMC's strategy fusion.

The play-outs of all worlds and cards run in lockstep (:func:`.batch_play.play_states`,
the family's batched play): one forward pass of the network per card left, for every
play-out at once. ``time_ms`` bounds a decision: worlds are played in batches of
``batch`` until the budget is spent (at least one batch). With ``solve_from`` cards or
fewer left to play, where a double-dummy solve costs little, the worlds are solved
exactly instead (``pimc``, which plays every family: the same worlds and the same
choice rule). The auction (the prise and the exchange) and every other decision are the
``nn`` agent's. What differs between the families (the worlds, the cards left, the
defaults of ``worlds`` and ``solve_from``) is one :class:`SearchFamily`
each (:data:`SEARCH_FAMILIES`); the rest is written once, over the engine's entry points.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> deal = Deal("ffb", seed=4, dealer=1).with_contract(80, 1, taker=0)
>>> table = [make_agent("nnsearch:worlds=4"), make_agent("heuristic")] * 2
>>> play_deal(deal, table, seeds=[1, 2, 3, 4]).scores == deal.scores
True
>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_a_deux", seed=2, dealer=0)
>>> table = [make_agent("nnsearch:worlds=4", "two"), make_agent("heuristic", "two")]
>>> play_deal(deal, table, seeds=[1, 2]).scores == deal.scores
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Dict, Optional, Tuple

import numpy as np
from numba import njit

from ...engine import STATE_SIZE, family_of, game_apply, game_reward, hand_of, popcount, rng_seed
from ...engine.bits import seed_int64
from ...engine.two import py as two_py
from ...engine.two_layout import N_TRICKS_TWO, TWO_STATE_SIZE
from ...game import Deal
from ...rules import CARDS_PER_HAND, FAMILY_PRESETS, N_SEATS, RuleSet, get_rules
from ..base import Agent, Param, PlayerView
from ..numba_bots import BOT_HEURISTIC
from ..pimc import (PIMCAgent, PIMCError, WORLD_SOURCES, draw_two_player_worlds,
                    world_state_into)
from ..sampler import WorldSampler, draw_view_worlds
from .agent import NeuralAgent
from .batch_play import CARD_NET, NET_CARD, play_states
from .family import net_family
from .net import MLP

__all__ = ["SearchAgent", "SearchFamily", "SEARCH_FAMILIES", "branch_states",
           "side_differences", "four_world_states", "warmup"]


# ------------------------------------------------------------------ kernels
@njit(cache=True)
def four_world_states(pub, P, seat, worlds, out):
    """``out[k]``: the state of world ``worlds[k]`` (int64[4] hands, built by
    :func:`~coinche_rl.agents.pimc.world_state_into` from ``seat``'s public state
    ``pub``)."""
    hands = np.empty(N_SEATS, dtype=np.int64)
    for k in range(worlds.shape[0]):
        for s in range(N_SEATS):
            hands[s] = worlds[k, s]
        world_state_into(pub, P, seat, hands, out[k])


@njit(cache=True)
def branch_states(worlds, P, actions, out):
    """``out[k * L + i]``: the full state ``worlds[k]`` after ``actions[i]`` (``L``
    actions, each legal there), in any family."""
    L = actions.shape[0]
    for k in range(worlds.shape[0]):
        for i in range(L):
            o = out[k * L + i]
            for j in range(worlds.shape[1]):
                o[j] = worlds[k, j]
            game_apply(o, P, actions[i])


@njit(cache=True)
def side_differences(states, P, seat, out):
    """``out[i]``: the deal score of ``seat``'s side (team, or the player) minus the
    other side's in the finished ``states[i]``."""
    raw = False          # the deal score, not the raw card points (as the envs' kernels pass it)
    for i in range(states.shape[0]):
        out[i] = np.int64(game_reward(states[i], P, seat, raw))


# ------------------------------------------------------------ the families
@dataclass(frozen=True)
class SearchFamily:
    """What the search reads of a family (one per key of
    :data:`~.family.NET_FAMILIES`): how to draw the worlds, how many cards the player has
    left, the defaults of ``worlds`` and ``solve_from`` and the time a deal takes."""

    #: the :class:`~.family.NetFamily` key: ``four`` or ``two``
    key: str
    #: ``draw(agent, view, n, seed)``: int64[n, state size], the full states of ``n``
    #: worlds consistent with the view (the same for every card)
    draw: Callable
    #: ``cards_left(view)``: the cards the player to act still has to play (his hand;
    #: with two players his stacks' cards too)
    cards_left: Callable
    #: the default of ``worlds`` (``worlds=0``)
    worlds: int
    #: the default of ``solve_from`` (``solve_from=-1``)
    solve_from: int
    #: about how many card decisions with a choice a player makes in a deal, and the
    #: milliseconds per world of one played out (one core of the 2-core test machine):
    #: the tournaments' time estimate (:attr:`SearchAgent.seconds_per_deal`)
    decisions: float
    ms_per_world: float
    #: the cards a player plays in a deal
    cards: int
    #: the modules whose warm-ups compile its kernels besides this module's (and those
    #: its warm-up follows): the family's solver
    kernel_modules: Tuple[str, ...] = ()


def _four_draw(agent: "SearchAgent", view: PlayerView, n: int, seed: int) -> np.ndarray:
    info = view.information_set
    sampler = WorldSampler(info)
    belief = agent.solver.belief_net(view.rules)
    if belief is not None:
        probs = belief.probabilities(info, view.public_state)
        hands = sampler.sample_belief(n, seed, probs, uniform_share=agent.uniform_share)
    else:
        hands = sampler.sample(n, seed)
    out = np.empty((len(hands), STATE_SIZE), dtype=np.int64)
    four_world_states(view.public_state, view.params, view.seat, hands, out)
    return out


def _four_cards_left(view: PlayerView) -> int:
    return int(popcount(hand_of(view.public_state, view.seat)))


def _two_draw(agent: "SearchAgent", view, n: int, seed: int) -> np.ndarray:
    rng = np.zeros(1, dtype=np.uint64)
    rng_seed(rng, np.int64(seed_int64(seed)), np.int64(1))
    return draw_two_player_worlds(agent.solver, view, rng,
                                  np.empty((n, TWO_STATE_SIZE), dtype=np.int64))


def _two_cards_left(view) -> int:
    return N_TRICKS_TWO - int(two_py.trick_number(view.state))


#: the search's families, by :class:`~.family.NetFamily` key. Belote for two players plays
#: twice the tricks, so a world costs about twice as much to play out; its late
#: decisions are cheap to solve (the other hand and the stacks are mostly known by then):
#: fewer worlds, and the solver from the tenth card left (benchmarks/RESULTS.md, belote
#: for two players: the figures behind these defaults)
SEARCH_FAMILIES: Dict[str, SearchFamily] = {
    "four": SearchFamily("four", _four_draw, _four_cards_left,
                         worlds=128, solve_from=6, decisions=2.5 * CARDS_PER_HAND,
                         ms_per_world=1.5, cards=CARDS_PER_HAND),
    "two": SearchFamily("two", _two_draw, _two_cards_left,
                        worlds=64, solve_from=10, decisions=12.0, ms_per_world=1.0,
                        cards=N_TRICKS_TWO, kernel_modules=("coinche_rl.solver_two",)),
}


def search_family(rules: RuleSet) -> SearchFamily:
    """The :class:`SearchFamily` of ``rules``."""
    return SEARCH_FAMILIES[net_family(rules).key]


class SearchAgent(Agent):
    """The ``nn`` agent with a search over its card-play network (module docstring). It
    holds an ``nn`` agent (:attr:`nn`) for the auction (the prise and the exchange) and
    the declare / belote choices, and on purpose is no
    :class:`~coinche_rl.agents.base.BatchedAgent`: tournaments must not replace its search
    by the batched network play of the ``nn`` agent. What differs between the families
    (the worlds, the cards left, the defaults) is read from :data:`SEARCH_FAMILIES`."""

    #: what ``coinche-rl agents`` says of it
    DESCRIPTION = ("search over the networks: every legal card played out by the card-play net at "
                   "every seat on believed (or uniform) worlds, the late decisions solved "
                   "exactly; bids (the prise) as nn")
    FAMILIES = ("coinche", "classic", "two")
    PARAMS = {
        "worlds": Param(int, doc="worlds played out (or solved) per card decision; 0: the "
                        "family's default (128 for four players, 64 for two)", min=0, max=4096),
        "time_ms": Param(float, doc="stop drawing worlds once a decision has taken this many "
                                     "milliseconds (0: all the worlds)", min=0.0),
        "batch": Param(int, doc="worlds played out together (one batch at least)", min=1,
                       max=4096),
        "worlds_from": Param(str, doc="as pimc: 'belief', 'uniform', or 'auto' (the "
                             "belief where weights ship for the preset: ffb, "
                             "belote_a_deux)", choices=WORLD_SOURCES),
        "uniform_share": Param(float, doc="with belief worlds, the share drawn uniformly",
                               min=0.0, max=1.0),
        "belief_weights": Param(str, doc="a belief weights file (default: shipped)"),
        "weights": Param(str, doc="card-play weights file (default: shipped for the preset)"),
        "any_rules": Param(bool, doc="play under a preset the nets were not trained for"),
        "bid_weights": Param(str, doc="bidding weights file (default: shipped)"),
        "bidding": Param(str, doc="net | heuristic | auto, as nn",
                         choices=("auto", "net", "heuristic")),
        "bid_margin": Param(float, doc="as nn (default: the bidding net's margin)", min=0.0),
        "solve_from": Param(int, doc="with this many cards left to play or fewer (the hand; "
                            "belote for two players: the stacks' cards too), solve the worlds "
                            "exactly (pimc's double-dummy evaluation) instead of playing them "
                            "out with the network; 0: never; -1: the family's default (6 for "
                            "four players, 10 for two)", min=-1, max=N_TRICKS_TWO),
    }
    ROSTER = False

    def __init__(self, worlds: int = 0, time_ms: float = 0.0, batch: int = 16,
                 worlds_from: str = "auto", uniform_share: float = 0.1,
                 belief_weights: str = "", weights: str = "", any_rules: bool = False,
                 bid_weights: str = "", bidding: str = "auto", bid_margin: Optional[float] = None,
                 solve_from: int = -1):
        super().__init__()
        #: the ``nn`` agent behind every decision that is not a card with a choice
        self.nn = NeuralAgent(weights=weights, any_rules=any_rules, bid_weights=bid_weights,
                              bidding=bidding, play="net", bid_margin=bid_margin)
        self.net = None
        for name, v, lo in (("worlds", worlds, 0), ("batch", batch, 1)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
                raise ValueError(f"nnsearch: {name}={v!r}: expected an int >= {lo}")
        if not time_ms >= 0:
            raise ValueError(f"nnsearch: time_ms={time_ms!r}: expected milliseconds >= 0 "
                             f"(0: no limit)")
        self.worlds = int(worlds)
        self.time_ms = float(time_ms)
        self.batch = int(batch)
        if isinstance(solve_from, bool) or not isinstance(solve_from, (int, np.integer)) \
                or not -1 <= solve_from <= N_TRICKS_TWO:
            raise ValueError(f"nnsearch: solve_from={solve_from!r}: expected cards left to "
                             f"play, an int in -1..{N_TRICKS_TWO} (0: never solve, -1: the "
                             f"family's default)")
        self.solve_from = int(solve_from)
        if worlds_from not in WORLD_SOURCES:
            raise PIMCError(f"worlds_from={worlds_from!r} must be one of "
                            f"{', '.join(map(repr, WORLD_SOURCES))}")
        if not 0.0 <= uniform_share <= 1.0:
            raise PIMCError(f"uniform_share={uniform_share!r} must be in [0, 1]")
        if belief_weights and worlds_from == "uniform":
            raise PIMCError("nnsearch: belief_weights is for worlds_from=belief (or auto)")
        self.worlds_from = worlds_from
        self.uniform_share = float(uniform_share)
        self.belief_weights = belief_weights
        #: the family's search (:data:`SEARCH_FAMILIES`), set by :meth:`reset`, and the
        #: worlds and ``solve_from`` it plays with (the parameters, or the family's defaults)
        self.search_family = None
        self._resolve(SEARCH_FAMILIES["four"])
        #: the ``pimc`` agent of the family: the world source (four players) and the exact
        #: solve of the late decisions (``solve_from``); one per family (its worlds), kept
        #: between deals
        self.solver = None
        self._solvers = {}
        self._decisions = 0
        self._seed = 0
        #: worlds played out at the last card decision (0: a single legal card)
        self.last_worlds = 0

    def _search_family(self) -> SearchFamily:
        """The :class:`SearchFamily` of the last reset, else of the family the agent was
        built for (:attr:`family`), else the four players'."""
        if self.search_family is not None:
            return self.search_family
        if self.family:
            return search_family(get_rules(FAMILY_PRESETS[self.family][0]))
        return SEARCH_FAMILIES["four"]

    def kernel_modules(self) -> Tuple[str, ...]:
        """This module (the play-outs of both families, the four-player search after it)
        and the family's solver (:attr:`SearchFamily.kernel_modules`)."""
        return (type(self).__module__,) + self._search_family().kernel_modules

    def _resolve(self, fam: SearchFamily) -> None:
        """:attr:`n_worlds` and :attr:`n_solve`: the parameters, or ``fam``'s defaults."""
        self.n_worlds = self.worlds or fam.worlds
        self.n_solve = self.solve_from if self.solve_from >= 0 else fam.solve_from

    @property
    def seconds_per_deal(self) -> float:
        """About ``ms_per_world`` per world and played-out card decision (the family's:
        :meth:`_search_family`; ``time_ms`` bounds it), a solved decision about 5 ms."""
        fam = self._search_family()
        solve = self.solve_from if self.solve_from >= 0 else fam.solve_from
        played_out = max(0, fam.cards - solve) / fam.cards
        per_card = 0.001 * fam.ms_per_world * (self.worlds or fam.worlds)
        if self.time_ms > 0:
            per_card = min(per_card, 0.001 * self.time_ms)
        return fam.decisions * (per_card * played_out + 0.005 * (1 - played_out))

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        if rules.family == "classic":
            raise PIMCError("nnsearch plays the coinche family and belote for two players "
                            "(its networks and worlds), not the classic prise")
        super().reset(seat, rules, seed)
        self.search_family = search_family(rules)
        self._resolve(self.search_family)
        fam = self.search_family
        missing = net_family(rules).belief_missing(rules)
        if missing and (self.worlds_from == "belief" or self.belief_weights):
            raise PIMCError(f"nnsearch: {missing}")
        self.nn.reset(seat, rules, seed)
        solver = self._solvers.get(self.search_family.key)
        if solver is None:
            # pimc with this search's worlds, searching every card it is handed
            # (solve_from=0: belote for two's first trick searched)
            solver = self._solvers[self.search_family.key] = PIMCAgent(
                worlds=self.n_worlds, solve_from=0, worlds_from=self.worlds_from,
                uniform_share=self.uniform_share, belief_weights=self.belief_weights,
                tt_bits=10 if not self.n_solve else 14)
        self.solver = solver
        solver.reset(seat, rules, seed)
        self.net = self.nn.net
        # NET_CARD at a card with a choice (the family's network inputs say it)
        self._choice = net_family(rules).inputs_class.choice
        self._decisions = 0
        self._seed = int(seed)

    def act(self, view) -> int:
        if self.net is not None and \
                self._choice(view.public_state, view.params, CARD_NET) == NET_CARD:
            if self._solves(view):
                a = self.solver.act(view)
                self.last_worlds = self.solver.last_worlds
                return a
            return self.card_values(view)[0]
        self.last_worlds = 0
        return self.nn.act(view)

    def _solves(self, view) -> bool:
        """Whether this decision is solved exactly (``solve_from``)."""
        return self.n_solve > 0 and self.search_family.cards_left(view) <= self.n_solve

    def card_values(self, view):
        """``(best action, actions, mean values)``: each legal card's mean deal score
        difference for the player's side over the worlds played out (or, ``solve_from``,
        solved: pimc's values and choice: the deal score difference with four players,
        the card points won with two)."""
        if self._solves(view):
            best, actions, totals, n = self.solver.card_choice(view)
            self.last_worlds = n
            return best, np.asarray(actions, dtype=np.int64), \
                np.asarray(totals, dtype=np.float64) / n
        self._decisions += 1
        actions = np.ascontiguousarray(view.legal_actions, dtype=np.int64)
        seed = (self._seed * 1_000_003 + self._decisions) % (2 ** 63)
        worlds = self.search_family.draw(self, view, self.n_worlds, seed)
        P = view.params
        n_players = family_of(view.rules).n_players
        L = len(actions)
        total = np.zeros(L, dtype=np.float64)
        done = 0
        t0 = time.perf_counter()
        nets = [self.net] * n_players
        bots = [BOT_HEURISTIC] * n_players
        while done < len(worlds):
            k = min(self.batch, len(worlds) - done)
            states = np.empty((k * L, worlds.shape[1]), dtype=np.int64)
            branch_states(worlds[done:done + k], P, actions, states)
            seeds = (seed + np.arange(k * L * n_players, dtype=np.int64)).reshape(k * L,
                                                                                    n_players)
            play_states(view.rules, states, seeds, bots, nets)
            diff = np.empty(k * L, dtype=np.int64)
            side_differences(states, P, view.seat, diff)
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
    """Compile the kernels of this module (the play-outs' kernels serve both families)."""
    d = Deal("ffb", seed=0, dealer=3).with_contract(80, 1, taker=0)
    for _ in range(3):
        d.apply(int(d.legal_actions()[0]))
    view = PlayerView.from_deal(d)
    agent = SearchAgent(worlds=2, worlds_from="uniform", bidding="heuristic")
    agent.reset(view.seat, d.rules, 0)
    agent.net = agent.nn.net = MLP.random((4,), seed=0)
    agent.card_values(view)
    # belote for two's worlds (sample_world is the sampler's: warm before this module)
    from ...two_player import TwoPlayerDeal
    t = TwoPlayerDeal("belote_a_deux", seed=1, dealer=0)
    t.apply("take")
    v = t.view(t.current_player)
    draw_view_worlds(v, np.zeros(1, dtype=np.uint64), np.empty((1, len(v.state)), dtype=np.int64))
