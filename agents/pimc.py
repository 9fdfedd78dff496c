"""Perfect-information Monte Carlo (PIMC): the ``pimc`` agent (``coinche_rl.agents.pimc``),
one agent for every rule family.

**Card play**, written once (:class:`PIMCAgent`) over the family's game
(:class:`PimcGame`, chosen at reset from the rules' family): at each card the player
draws ``N`` worlds (deals of the hidden cards consistent with what he knows), solves
every legal card exactly in every world with the family's double-dummy solver, and
plays the card with the best total over the worlds. This is Ginsberg's GIB
determinization (JAIR 14, 2001), with its known limits (strategy fusion, no play to
gather or hide information).

*Four players* (:class:`FourPlayerPimc`): the worlds of the seat's information set
(:mod:`coinche_rl.agents.sampler`), drawn uniformly (``worlds_from=uniform``) or in
proportion to the belief net's card probabilities (``worlds_from=belief``, the default
where belief weights ship), exactly, with a share ``uniform_share`` of uniform worlds;
when at most ``N`` worlds exist, each is solved once; with ``taper="linear"`` fewer
worlds are solved as the cards run out. :func:`world_state_into` builds each world's
full engine state as the engine would hold it had those been the real hands
(:func:`coinche_rl.engine.determinize_into`, with the private declare / belote choices a
world assumes: :func:`assumed_choices`); the solver is :mod:`coinche_rl.solver`
(objective ``"score"``); the seat's own declare / belote choices are decided like a
card; ties go to the cheapest card. **Bidding** is the bidding network's where its
weights ship (``bid_method="auto"``), else the Monte Carlo hand evaluation of
:mod:`coinche_rl.agents.evaluation` (the best expected contract above ``bid_margin``;
coinche and surcoinche from the expected card points against the bid,
``coinche_margin``).

*Belote for two players* (:class:`TwoPlayerPimc`): the worlds of
:func:`coinche_rl.agents.sampler.sample_world` (the other hand's unknown cards and every
face-down card, under the other player's voids, trump ceilings and announced
declaration; the other hand from the belief net where its weights ship, ``belote_a_deux``,
with ``worlds_from`` and ``uniform_share`` as above: :func:`draw_two_player_worlds`), solved by :mod:`coinche_rl.solver_two` for the card points the player wins
in the whole deal; ties go to the lowest card. :meth:`PIMCAgent.card_values` computes
every sum exactly (the web page's analysis shows them); :meth:`~PIMCAgent.act` finds the
same card with less search (:func:`coinche_rl.solver_two.best_card_two`). The search is
exact but its cost grows quickly with the tricks left (``benchmarks/RESULTS.md``), so the
heuristic plays the cards before trick ``solve_from`` (0-based, default 3: searching from
trick 3 beats searching from trick 4 in both presets, a decision there taking about half a
second; from trick 2, three seconds; ``solve_from=0``, every trick searched, is stronger
still in both presets at ten to thirty times the time per deal, ``docs/pimc.md``), the
prise and the exchange.

The parameters of one game only (``bid_*``, ``objective``, ... for four players,
``solve_from`` for two) are refused in the other family by
:func:`~coinche_rl.agents.registry.make_agent`.

**Determinism.** Decision ``k`` of a deal (four players: every decision; two players:
every searched card) draws its worlds from splitmix64 stream ``k`` of the seed given to
:meth:`~coinche_rl.agents.base.Agent.reset`.

Every rule in full, and why the defaults are what they are (with the measurements in
``benchmarks/RESULTS.md``): ``docs/pimc.md``.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> deal = Deal("ffb", seed=4, dealer=3).with_contract(90, 1, taker=0)
>>> agents = [make_agent("pimc:worlds=4"), make_agent("heuristic")] * 2
>>> result = play_deal(deal, agents, seeds=[1, 2, 3, 4])
>>> deal.is_terminal
True
>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_decouverte", seed=13)
>>> result = play_deal(deal, [make_agent("pimc:worlds=4,solve_from=12", "two"),
...                           make_agent("heuristic", "two")], seeds=[1, 2])
>>> deal.is_terminal
True
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import os
from functools import partial
from typing import Dict, Optional, Tuple

import numpy as np

from ..actions import (BID_BASE, CAPOT_BASE, CARD_BASE, COINCHE, NAME_BASE, N_ACTIONS, PASS,
                       SURCOINCHE, TAKE, bid_strain, bid_value)
from ..engine import belote_pairs as _belote_pairs
from ..engine import seed_int64 as _int64
from ..engine.two import TWO_STATE_SIZE
from ..engine.two import py as py2
from ..engine import (NO_DECK, PLAY, STATE_SIZE, determinize_into, hand_declarations, kernel,
                      played_by, played_first_trick, rng_seed, shown_declarers)
from ..engine import (auction_action, auction_length, belote_announced_seats, contract_of,
                      contract_strain, dealer_of, hand_of, phase_of, retourne_of)
from ..rules import (ALL_CARD_POINTS, CAPOT_POINTS, CAPOT_VALUE, CARD_ORDER, DEAL_POINTS,
                     P_AT_TABLE, P_CARRE_LOW_CANCELS, P_DECLARATIONS, P_DECL_SHARE,
                     P_OPTIONAL_BELOTE, P_OPTIONAL_DECLARE, RuleSet, check_int)
from ..rules import CARDS_PER_HAND, N_SEATS, seat_after
from ..rules import team as team_of
from ..cards import N_CARDS
from ..solver import OBJECTIVES, Solver, keep_table, move_values_into, new_workspace, nodes_of
from ..solver_two import (OPT_DEFAULT, OPT_SHARE, TwoPlayerSolver, best_card_two, card_values_two,
                          new_generation, new_tables)
from .base import Agent, Param, PlayerView
from .evaluation import EvaluationError, evaluate_hand
from .neural.agent import load_bid_net
from .neural.batch_play import NetInputs
from .neural.belief import load_belief_net
from .neural.net import NeuralError, default_weights_path
from .numba_bots import BOT_HEURISTIC, game_bot_action
from .sampler import (MAX_HOLDERS, build_table, draw_view_worlds, hand_odds, new_table,
                      new_weights,
                      sample_into, sample_mixed_into, unrank_into, weigh_table)

__all__ = ["PIMCAgent", "PIMCError", "PimcGame", "FourPlayerPimc", "TwoPlayerPimc",
           "draw_two_player_worlds",
           "PIMC_GAMES", "world_state_into", "world_state", "draw_worlds_into",
           "world_sums_into", "choose_action", "warmup"]


class PIMCError(ValueError):
    """A PIMC parameter or a position the agent cannot work on."""


# ================================================================== world states
#: the engine's helpers, under the names this module had for them
_played_by = played_by
_played_first_trick = played_first_trick


@kernel
def assumed_declare(pts, low, P):
    """The private declare choice a world assumes for another seat (``optional_declare``):
    declare when the hand holds declarations, unless it also holds a carré of 7s or 8s
    that would cancel every declaration (``carre_low_cancels``)."""
    return pts > 0 and not (P[P_CARRE_LOW_CANCELS] != 0 and low != 0)


@kernel
def assumed_choices(pub, P, seat, hands):
    """The other seats' private choices a world assumes (see the module docstring), as
    :func:`coinche_rl.engine.determinize_into` takes them: ``(decl_decided, declared,
    belote_decided, belote_on)``, bit per seat, for ``seat``'s public state ``pub`` in the
    card play and the world's ``hands`` (int64[4])."""
    decl_decided = 0
    declared = 0
    belote_decided = 0
    belote_on = 0
    strain = contract_strain(pub)
    if P[P_DECLARATIONS] != 0 and P[P_OPTIONAL_DECLARE] != 0:
        shown = shown_declarers(pub)
        for p in range(N_SEATS):
            if p == seat or not played_first_trick(pub, p):
                continue
            bit = np.int64(1) << p
            if shown & bit:
                decl_decided |= bit     # shown: it declared (the view says so)
                continue
            pts, key, used, low = hand_declarations(hands[p] | played_by(pub, p), strain,
                                                    P[P_DECL_SHARE])
            if pts > 0 or (P[P_CARRE_LOW_CANCELS] != 0 and low != 0):
                decl_decided |= bit
                if assumed_declare(pts, low, P):
                    declared |= bit
    if P[P_OPTIONAL_BELOTE] != 0:
        announced = belote_announced_seats(pub)
        for p in range(N_SEATS):
            if p == seat:
                continue
            mine = played_by(pub, p)
            pairs, npairs = _belote_pairs(hands[p] | mine, strain)
            if npairs == 0:
                continue
            bit = np.int64(1) << p
            if announced & bit:
                belote_decided |= bit   # announced as its first card was played
                belote_on |= bit
            elif played_first_trick(pub, p):
                belote_decided |= bit
                # played a card of its pair without announcing: it declined; else assumed
                if (mine & pairs) == 0:
                    belote_on |= bit
            # else: still to choose (a move for the solver)
    return decl_decided, declared, belote_decided, belote_on


@kernel
def world_state_into(pub, P, seat, hands, out):
    """The engine state of one world (see the module docstring): ``pub`` is ``seat``'s
    public state in the card play, ``hands`` (int64[4]) the world's hands now (the
    seat's own included); the state is written into ``out`` (int64[STATE_SIZE]): the
    engine's :func:`~coinche_rl.engine.determinize_into` with the choices of
    :func:`assumed_choices` (the dealing order of the classic family is not rebuilt)."""
    decl_decided, declared, belote_decided, belote_on = assumed_choices(pub, P, seat, hands)
    determinize_into(pub, P, seat, hands, NO_DECK, decl_decided, declared, belote_decided,
                     belote_on, out)


def world_state(public_state: np.ndarray, params: np.ndarray, seat: int, hands) -> np.ndarray:
    """A new array: :func:`world_state_into` of ``public_state`` for ``seat`` and the
    four ``hands`` (masks).

    :raises PIMCError: outside the card play, or with hands that do not keep the seat's
        own hand.
    """
    pub = np.asarray(public_state, dtype=np.int64)
    if pub.shape != (STATE_SIZE,) or phase_of(pub) != PLAY:
        raise PIMCError("world_state needs the public state of a seat in the card play "
                        f"(an int64 vector of {STATE_SIZE} slots with S_PHASE = PLAY)")
    h = np.asarray([int(x) for x in hands], dtype=np.int64)
    if h.shape != (N_SEATS,) or h[seat] != hand_of(pub, seat):
        raise PIMCError("hands must be 4 card masks, the seat's own hand at its place")
    out = np.empty(STATE_SIZE, dtype=np.int64)
    world_state_into(pub, np.asarray(params, dtype=np.int64), int(seat), h, out)
    return out


# ================================================================== card play
# PIMC's card play, written once in :class:`PIMCAgent`: draw the worlds, solve each,
# sum, choose. What differs by family (the worlds, the solver, the tie rule, the
# decisions left to another method) is a :class:`PimcGame`; these are the four-player
# game's kernels.
@kernel
def draw_worlds_into(table, pub, P, seat, n_worlds, exhaustive, rng, hands, Wf, q, weighted,
                     uniform_share, states):
    """``states[j]`` (int64[n, STATE_SIZE]) := the state of world ``j`` for
    ``j < n_worlds``: the sampler ``table``'s world ``j`` when ``exhaustive``, else a draw
    from ``rng`` (uniform, or with ``weighted`` from the belief weights ``Wf`` / ``q`` of
    :func:`~coinche_rl.agents.sampler.weigh_table`, each world uniform with probability
    ``uniform_share``), turned into a state by :func:`world_state_into`. ``hands``
    (int64[4]) is scratch. Returns ``n_worlds``, or -1 when the table has no world."""
    for j in range(n_worlds):
        if exhaustive:
            unrank_into(table, j, hands)
        elif weighted:
            if not sample_mixed_into(table, Wf, q, uniform_share, rng, hands):
                return -1
        elif not sample_into(table, rng, hands):
            return -1
        world_state_into(pub, P, seat, hands, states[j])
    return n_worlds


@kernel
def world_sums_into(W, states, n_worlds, P, objective, team, out_a, out_v, sums):
    """Solve the worlds ``states[:n_worlds]`` one after the other
    (:func:`coinche_rl.solver.move_values_into`, ``objective`` for ``team``, one
    workspace ``W``): ``sums[a]`` (int64[N_ACTIONS], zeroed here) receives the total
    value of action ``a``; on return ``out_a[:k]`` holds the ``k`` legal actions (the
    return value). ``out_a`` and ``out_v``: int64[32]."""
    for a in range(sums.shape[0]):
        sums[a] = 0
    k = 0
    for j in range(n_worlds):
        k = move_values_into(W, states[j], P, objective, team, out_a, out_v)
        for i in range(k):
            sums[out_a[i]] += out_v[i]
    return k


@kernel
def choose_action(sums, actions, k, strain, at_table):
    """The action of ``actions[:k]`` with the largest ``sums[a]``; among equal totals a
    declare / belote announcement before its refusal, and the cheapest card: fewest card
    points under ``strain``, then lowest strength, then lowest id."""
    best = -1
    for i in range(k):
        a = actions[i]
        if best < 0 or sums[a] > sums[best]:
            best = a
        elif sums[a] == sums[best]:
            if a >= CARD_BASE and a < CARD_BASE + N_CARDS and best >= CARD_BASE and best < CARD_BASE + N_CARDS:
                c = a - CARD_BASE
                b = best - CARD_BASE
                pc = ALL_CARD_POINTS[at_table, strain, c]
                pb = ALL_CARD_POINTS[at_table, strain, b]
                if pc < pb or (pc == pb and (CARD_ORDER[strain, c] < CARD_ORDER[strain, b] or (
                        CARD_ORDER[strain, c] == CARD_ORDER[strain, b] and c < b))):
                    best = a
            elif a < best:
                best = a            # DECLARE before NO_DECLARE, BELOTE before NO_BELOTE
    return best


# ================================================================== the families' games
class PimcGame(ABC):
    """What PIMC reads of a family: how its worlds are drawn, how each is solved, the
    tie rule, which decisions are searched and who makes the others. One instance per
    family (:data:`PIMC_GAMES`), chosen by :meth:`PIMCAgent.reset` from the rules'
    :class:`~coinche_rl.engine.family.Family`; :class:`PIMCAgent` writes the card play
    once over it (draw, solve each world, sum, choose). The per-agent buffers live on the
    agent (:meth:`prepare` makes them). Each family implements the abstract methods."""

    #: the families it serves
    families: Tuple[str, ...] = ()
    #: the modules whose warm-ups compile its kernels (:meth:`PIMCAgent.kernel_modules`)
    kernel_modules: Tuple[str, ...] = ()
    #: True: decision ``k`` of a deal (every :meth:`PIMCAgent.act`, a forced one
    #: included) draws from stream ``k`` of the agent's seed, and an analysis without a
    #: stream (:meth:`PIMCAgent.card_values` with ``rng=None``) from stream 0; False: only
    #: the searched decisions count, an analysis as one of them. Each family keeps the
    #: streams it always had, so that the same seeds give the same choices.
    stream_per_decision: bool = True
    #: what :meth:`PIMCAgent.card_values` sums where it is not the ``objective``'s value
    #: for the seat's team (the web page's PIMC column says it)
    value_unit: Optional[str] = None

    def prepare(self, agent: "PIMCAgent") -> None:
        """Make ``agent``'s buffers for this family (once)."""

    @abstractmethod
    def solver(self, tt_bits: int):
        """A double-dummy solver of the family's whole deals (every hand known), its Python
        face: ``OBJECTIVES`` and ``move_values(deal, objective)`` (the web page's
        columns); ``tt_bits``: the four-player solver's table size."""

    @abstractmethod
    def searched(self, agent: "PIMCAgent", view) -> bool:
        """Is the decision of ``view`` (with more than one legal action) PIMC's?"""

    @abstractmethod
    def draw(self, agent: "PIMCAgent", view, rng: np.ndarray) -> int:
        """Draw the worlds of the decision of ``view`` from ``rng`` into ``agent``'s
        buffers; return how many."""

    @abstractmethod
    def values(self, agent: "PIMCAgent", view, n: int):
        """``(actions, totals)``: the legal actions of ``view`` and each one's value
        summed over the ``n`` worlds drawn (each solved double dummy)."""

    @abstractmethod
    def choose(self, agent: "PIMCAgent", view, actions, totals) -> int:
        """The action PIMC plays from the sums (the best one; the family's tie rule)."""

    def best(self, agent: "PIMCAgent", view, n: int) -> int:
        """The action :meth:`choose` picks from :meth:`values`, for :meth:`PIMCAgent.act`
        (a family may find it with less search)."""
        actions, totals = self.values(agent, view, n)
        return self.choose(agent, view, actions, totals)

    @abstractmethod
    def other(self, agent: "PIMCAgent", view) -> int:
        """The decisions PIMC does not search."""

    @abstractmethod
    def seconds_per_deal(self, agent: "PIMCAgent") -> float:
        """The agent's thinking time per deal and seat, roughly (the arena's estimates)."""


class FourPlayerPimc(PimcGame):
    """The four-player game (coinche and classic): the worlds of the seat's information
    set (:mod:`coinche_rl.agents.sampler`: exact, uniform or from the belief net),
    solved by :mod:`coinche_rl.solver` (``objective``) with one transposition table kept
    between worlds and decisions; the declare / belote choices of the play are searched
    like a card; ties go to the cheapest card (:func:`choose_action`); the auction (or
    classic prise) is the bidding network's or the hand evaluation's."""

    families = ("coinche", "classic")
    kernel_modules = (__name__,)
    stream_per_decision = True

    def solver(self, tt_bits: int):
        return Solver(tt_bits=tt_bits)

    def prepare(self, agent: "PIMCAgent") -> None:
        if agent._W is not None:
            return
        agent._W = new_workspace(agent.tt_bits)
        # keep the transposition table between solves (every world and decision)
        keep_table(agent._W, 1)
        agent._table = new_table()
        agent._Wf = new_weights()
        agent._q = np.zeros(N_CARDS * MAX_HOLDERS, dtype=np.float64)
        agent._hands = np.zeros(N_SEATS, dtype=np.int64)
        agent._states = np.zeros((agent.worlds, STATE_SIZE), dtype=np.int64)
        agent._a = np.zeros(32, dtype=np.int64)
        agent._v = np.zeros(32, dtype=np.int64)
        agent._sums = np.zeros(N_ACTIONS, dtype=np.int64)

    def searched(self, agent, view) -> bool:
        return phase_of(view.public_state) == PLAY

    def draw(self, agent, view, rng) -> int:
        pub = view.public_state
        info = view.information_set
        seat = view.seat
        count = build_table(agent._table, seat, np.array(info.hand_sizes, dtype=np.int64),
                            np.array(info.known, dtype=np.int64),
                            np.array(info.possible, dtype=np.int64), np.int64(info.played))
        if count <= 0:
            raise PIMCError(f"no world is consistent with the information set of seat {seat}")
        agent._table_count = int(count)
        target = agent.worlds_for(int(hand_of(pub, seat)))
        n = min(target, int(count))
        weighted = False
        if count > target:
            belief = agent.belief_net(view.rules)
            if belief is not None:
                probs = belief.probabilities(info, pub)
                weighted = weigh_table(agent._table, probs, agent._Wf, agent._q) > 0.0
        if draw_worlds_into(agent._table, pub, view.params, seat, n, count <= target, rng,
                            agent._hands, agent._Wf, agent._q, weighted, agent.uniform_share,
                            agent._states) < 0:
            raise PIMCError(f"the sampler drew no world for seat {seat}")
        return n

    def values(self, agent, view, n):
        k = world_sums_into(agent._W, agent._states, n, view.params, agent._obj,
                            team_of(view.seat), agent._a, agent._v, agent._sums)
        actions = agent._a[:k].copy()
        return actions, agent._sums[actions].copy()

    def choose(self, agent, view, actions, totals) -> int:
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        agent._sums[actions] = totals
        return int(choose_action(agent._sums, actions, len(actions),
                                 contract_strain(view.public_state), view.params[P_AT_TABLE]))

    def other(self, agent, view) -> int:
        return agent._auction(view, view.public_state, view.legal_actions)

    def seconds_per_deal(self, agent) -> float:
        # about 0.12 s per seat and deal with 32 worlds on one idle core of the 2-core
        # test machine (4.4 deals/s for two pimc seats against the heuristic in `make
        # demo`), in proportion to the worlds solved
        return 0.12 * agent.worlds / 32 * (0.56 if agent.taper == "linear" else 1.0)


class TwoPlayerPimc(PimcGame):
    """Belote for two players: the worlds of :func:`coinche_rl.agents.sampler.sample_world`
    (the other hand's unknown cards and every face-down card, under the other player's
    voids, trump ceilings and announced declaration), each solved by
    :mod:`coinche_rl.solver_two` for the card points the player wins in the whole deal
    (its only objective), each world a new generation of one transposition table
    (:func:`~coinche_rl.solver_two.new_generation`: nothing is cleared between them);
    ties go to the lowest card. :meth:`best` finds the same card with less search
    (:func:`~coinche_rl.solver_two.best_card_two`: exact values only where the sums could
    change the choice). The search is exact but its cost grows quickly with the tricks
    left, so the heuristic plays the cards before trick ``solve_from`` (0-based), the
    prise and the exchange."""

    families = ("two",)
    # the worlds' kernels and the solver's (this module's kernels are four-player)
    kernel_modules = ("coinche_rl.solver_two", "coinche_rl.agents.sampler")
    stream_per_decision = False
    value_unit = "card points"

    def solver(self, tt_bits: int):
        return TwoPlayerSolver()             # its own table size

    def prepare(self, agent: "PIMCAgent") -> None:
        if agent._tt is not None:
            return
        # the worlds and decisions of a deal share the positions with few face-down
        # cards left (OPT_SHARE)
        agent._tt, agent._work = new_tables(options=OPT_DEFAULT | OPT_SHARE)
        agent._worlds_two = np.empty((agent.worlds, TWO_STATE_SIZE), dtype=np.int64)
        agent._scratch = np.empty(32, dtype=np.int64)
        agent._odds = np.empty(32, dtype=np.float64)
        agent._vals = np.empty(32, dtype=np.int64)
        agent._bounds = np.empty((2, agent.worlds, 32), dtype=np.int64)
        agent._bot_rng = np.zeros(1, dtype=np.uint64)
        agent._buf = np.zeros(N_ACTIONS, dtype=np.uint8)

    def searched(self, agent, view) -> bool:
        return view.phase == "play" and int(py2.trick_number(view.state)) >= agent.solve_from

    def draw(self, agent, view, rng) -> int:
        if view.phase != "play":
            raise PIMCError(f"PIMC values the cards of the play, not the {view.phase}")
        n = agent.worlds
        draw_two_player_worlds(agent, view, rng, agent._worlds_two[:n], agent._scratch,
                               agent._odds)
        return n

    def values(self, agent, view, n):
        cards = np.asarray(view.legal_actions, dtype=np.int64) - CARD_BASE
        totals = np.zeros(len(cards), dtype=np.int64)
        for w in range(n):
            # a new generation of the table per world keeps the worlds' entries apart
            new_generation(agent._tt, agent._work)
            card_values_two(agent._worlds_two[w], agent._tt, agent._work, agent._vals)
            totals += agent._vals[cards]
        return cards + CARD_BASE, totals

    def choose(self, agent, view, actions, totals) -> int:
        return int(actions[max(range(len(actions)), key=lambda k: (totals[k], -actions[k]))])

    def best(self, agent, view, n) -> int:
        return CARD_BASE + int(best_card_two(agent._worlds_two, n, agent._tt, agent._work,
                                             agent._bounds[0], agent._bounds[1]))

    def other(self, agent, view) -> int:
        return game_bot_action(BOT_HEURISTIC, view.state, view.params, view.player,
                               agent._bot_rng, agent._buf)

    def seconds_per_deal(self, agent) -> float:
        # CPU seconds per deal of one pimc seat with 32 worlds against the heuristic, by
        # solve_from (2-core test VM, 2026-12-07; mean of 3-20 deals of each preset, belote
        # à deux / découverte): from trick 0 11.3 / 4.5, 1: 4.7 / 3.2, 2: 2.7 / 1.3, 3 (the
        # default) 0.34 / 0.48; each later trick halves it. In proportion to the worlds.
        s = agent.solve_from
        base = _SECONDS_FROM[s] if s < len(_SECONDS_FROM) else \
            _SECONDS_FROM[-1] * 0.5 ** (s - len(_SECONDS_FROM) + 1)
        return base * agent.worlds / 32


#: :meth:`TwoPlayerPimc.seconds_per_deal` by ``solve_from`` 0, 1, 2, 3
_SECONDS_FROM = (8.0, 4.0, 2.0, 0.4)


def draw_two_player_worlds(agent: "PIMCAgent", view, rng: np.ndarray, out: np.ndarray,
                           scratch: Optional[np.ndarray] = None,
                           odds: Optional[np.ndarray] = None) -> np.ndarray:
    """``out`` := worlds of the two-player ``view`` (the player's, in the play) drawn from
    the splitmix64 stream ``rng`` as ``agent`` draws them (``worlds_from``): uniformly
    (:func:`~coinche_rl.agents.sampler.draw_view_worlds`), or from its belief net (the first
    ``round(uniform_share * n)`` worlds uniformly, the rest with the other hand drawn in
    proportion to the product of its cards' odds, exactly under the rules' constraints:
    :func:`~coinche_rl.agents.sampler.hand_odds`). ``nnsearch`` draws its worlds here too."""
    belief = agent.belief_net(view.rules)
    if belief is None:
        return draw_view_worlds(view, rng, out, scratch)
    n = len(out)
    u = int(round(agent.uniform_share * n))
    odds = np.empty(N_CARDS, dtype=np.float64) if odds is None else odds
    hand_odds(view.state, np.int64(view.player), belief.other_hand(view), odds)
    draw_view_worlds(view, rng, out[:u], scratch)
    draw_view_worlds(view, rng, out[u:], scratch, odds)
    return out


#: the game of each rule family
PIMC_GAMES: Dict[str, PimcGame] = {"coinche": FourPlayerPimc(), "classic": FourPlayerPimc(),
                                   "two": TwoPlayerPimc()}
assert all(f in g.families for f, g in PIMC_GAMES.items())


# ================================================================== the agent
#: ``bid_method`` values: the hand evaluation's card play, or the bidding network
BID_METHODS = ("auto", "dd", "heuristic", "nn")
#: ``bid_rule`` values: the legal contract with the best expected score, or the highest
#: one whose expected score is positive
BID_RULES = ("best", "highest")
#: ``taper`` values: ``worlds`` at every card, or fewer as the seat's cards run out
TAPERS = ("none", "linear")
#: ``worlds_from`` values: worlds drawn in proportion to the belief net's card
#: probabilities (``auto``: where belief weights ship for the preset), or uniformly
WORLD_SOURCES = ("auto", "belief", "uniform")
#: the families of the parameters that mean something in one game only
_FOUR = FourPlayerPimc.families
_TWO = TwoPlayerPimc.families


#: ``_check_int(v, name, lo, hi=None)``: ``int(v)``, or :class:`PIMCError`
_check_int = partial(check_int, error=PIMCError)


def _check_choice(v, name: str, choices) -> str:
    if v not in choices:
        raise PIMCError(f"pimc: {name}={v!r} must be one of {', '.join(map(repr, choices))}")
    return v


class PIMCAgent(Agent):
    """The PIMC player of every family (see the module docstring and the registry's
    parameters)."""

    FAMILIES = ("coinche", "classic", "two")
    #: what ``coinche-rl agents`` says of it
    DESCRIPTION = ("perfect-information Monte Carlo: every legal card solved exactly (double "
                   "dummy) in sampled worlds consistent with the player's view; four players: "
                   "bids with the bidding network where one ships (ffb), else from Monte Carlo "
                   "hand evaluation; belote for two players: the heuristic's prise, exchange "
                   "and first tricks (solve_from)")
    #: the parameters of one family only (``families``) are refused in the other by
    #: :func:`~coinche_rl.agents.registry.make_agent` and listed for their family only
    PARAMS = {
        "worlds": Param(int, doc="worlds (deals of the hidden cards) solved per card; four "
                        "players: every world once when the information set allows at most "
                        "this many", min=1, max=4096),
        "solve_from": Param(int, doc="the first trick (0-based) played by the search; the "
                            "heuristic plays the ones before (0: every trick searched, "
                            "stronger, ten to thirty times slower)", min=0, max=15,
                            families=_TWO),
        "objective": Param(str, doc="what the solver maximises in each world: 'score' (the deal "
                           "score difference for the team) or 'points' (its card points; belote "
                           "for two players: always the player's card points)",
                           choices=("score", "points"), families=_FOUR),
        "bid_samples": Param(int, doc="deals of the hand evaluation behind the auction decisions",
                             min=1, max=4096, families=_FOUR),
        "bid_method": Param(str, doc="how the auction is decided: 'auto' (default: 'nn' where "
                            "bidding weights ship for the preset, else 'heuristic'); the hand evaluation "
                            "playing its deals with 'heuristic' (the heuristic bot at every seat, "
                            "~0.3 ms a deal) or 'dd' (the solver, ~40 ms a deal and strain; use "
                            "bid_samples=16 or so); or 'nn': the bidding network shipped for the "
                            "preset (microseconds; the coinche and capot decisions too)",
                            choices=BID_METHODS, families=_FOUR),
        "bid_weights": Param(str, doc="bid_method=nn or auto: a bidding weights file (default: "
                             "the weights shipped for the preset)", families=_FOUR),
        "bid_rule": Param(str, doc="'best': bid the legal contract with the best expected deal "
                          "score; 'highest': the highest one whose expected score is positive (both "
                          "only above bid_margin, and above the partner's contract's)",
                          choices=BID_RULES, families=_FOUR),
        "bid_margin": Param(float, doc="a contract is bid only when its expected deal score "
                            "exceeds this (points)", families=_FOUR),
        "coinche_margin": Param(float, doc="coinche when the opponents' expected card points fall "
                                "short of their bid by more than this; surcoinche when the team's "
                                "exceed its bid by more than this", families=_FOUR),
        "coinche_length": Param(int, doc="for the coinche decision, worlds give the opponents' "
                                "bidders at least this many cards of each suit they bid (0: no "
                                "condition)", min=0, max=8, families=_FOUR),
        "seed": Param(int, doc="mixed with the per-deal seed: the stream of sampled worlds", min=0),
        "taper": Param(str, doc="'linear': solve ceil(worlds * cards in hand / 8) worlds at a "
                       "card (fewer as the cards run out); 'none': worlds at every card",
                       choices=TAPERS, families=_FOUR),
        "tt_bits": Param(int, doc="the solver's transposition table holds 2**tt_bits buckets (32 "
                         "bytes each), kept between decisions", min=10, max=26, families=_FOUR),
        "worlds_from": Param(str, doc="'belief': worlds drawn in proportion to the belief "
                             "net's card probabilities (exactly, under every constraint of the "
                             "information set); 'uniform': uniformly; 'auto' (default): 'belief' "
                             "where belief weights ship for the preset (ffb, belote_a_deux)",
                             choices=WORLD_SOURCES),
        "uniform_share": Param(float, doc="with belief worlds, the share of worlds drawn "
                               "uniformly instead", min=0.0, max=1.0),
        "belief_weights": Param(str, doc="a belief weights file (coinche-rl train belief); "
                                "default: the weights shipped for the preset"),
    }

    def __init__(self, worlds: int = 32, solve_from: int = 3, objective: str = "score",
                 bid_samples: int = 128, bid_method: str = "auto", bid_rule: str = "best",
                 bid_margin: float = 0.0, coinche_margin: float = 50.0, coinche_length: int = 4,
                 seed: int = 0, tt_bits: int = 17, taper: str = "none", bid_weights: str = "",
                 worlds_from: str = "auto", uniform_share: float = 0.1,
                 belief_weights: str = ""):
        super().__init__()
        _check_int(worlds, "worlds", 1)
        _check_int(solve_from, "solve_from", 0, 15)
        _check_int(bid_samples, "bid_samples", 1)
        _check_int(coinche_length, "coinche_length", 0, 8)
        _check_int(seed, "seed", 0)
        _check_int(tt_bits, "tt_bits", 10, 26)
        _check_choice(objective, "objective", tuple(OBJECTIVES))
        _check_choice(bid_method, "bid_method", BID_METHODS)
        _check_choice(bid_rule, "bid_rule", BID_RULES)
        _check_choice(taper, "taper", TAPERS)
        _check_choice(worlds_from, "worlds_from", WORLD_SOURCES)
        if not 0.0 <= uniform_share <= 1.0:
            raise PIMCError(f"uniform_share={uniform_share!r} must be in [0, 1]")
        if belief_weights and worlds_from == "uniform":
            raise PIMCError("pimc: belief_weights is for worlds_from=belief (or auto)")
        if bid_weights and bid_method not in ("nn", "auto"):
            raise ValueError("pimc: bid_weights is for bid_method=nn (or auto)")
        self.worlds = int(worlds)
        self.solve_from = int(solve_from)
        self.objective = objective
        self.bid_samples = int(bid_samples)
        self.bid_method = bid_method
        self.bid_weights = bid_weights
        self.bid_rule = bid_rule
        self.bid_margin = float(bid_margin)
        self.coinche_margin = float(coinche_margin)
        self.coinche_length = int(coinche_length)
        self.extra_seed = int(seed)
        self.tt_bits = int(tt_bits)
        self.taper = taper
        self.worlds_from = worlds_from
        self.uniform_share = float(uniform_share)
        self.belief_weights = belief_weights
        self._obj = OBJECTIVES[objective]
        self._belief = None
        self._belief_rules = None
        self._bid_net = None
        self._bid_inputs = None
        #: the game of the rules of the last reset (:data:`PIMC_GAMES`)
        self._game: Optional[PimcGame] = None
        # each game's buffers, made at the first reset in its family (PimcGame.prepare)
        self._W = None
        self._tt = None
        self._rng = np.zeros(1, dtype=np.uint64)
        self._decisions = 0
        self._stream_seed = 0
        self._eval = None
        self._coinche_cache = {}
        self._table_count = 0
        #: worlds solved at the last card decision (0 when it had one legal action)
        self.last_worlds = 0

    def _game_of(self, family: Optional[str]) -> PimcGame:
        return PIMC_GAMES[family or "coinche"]

    @property
    def seconds_per_deal(self) -> float:
        """The thinking time per seat and deal that the game of its family says
        (:meth:`PimcGame.seconds_per_deal`; the family it was built for or last reset
        for, else the four-player game's)."""
        return self._game_of(self.family).seconds_per_deal(self)

    def kernel_modules(self) -> Tuple[str, ...]:
        """Its family's game's (:attr:`PimcGame.kernel_modules`): a tournament of belote
        for two players compiles none of the four-player search."""
        return self._game_of(self.family).kernel_modules

    @property
    def search_nodes(self) -> int:
        """The four-player solver's search nodes so far, over every decision of this
        agent (a difference of two readings is the work of the decisions between them)."""
        return nodes_of(self._W) if self._W is not None else 0

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        super().reset(seat, rules, seed)
        self._game = self._game_of(rules.family)
        self._game.prepare(self)
        # the reset seed, mixed with the ``seed`` parameter (0 leaves it as it is)
        self._stream_seed = _int64(int(seed) + self.extra_seed * 0x9E3779B97F4A7C15)
        self._decisions = 0
        self._eval = None
        self._coinche_cache = {}
        self.last_worlds = 0

    def _stream(self) -> np.ndarray:
        """The splitmix64 stream of the next decision (stream ``k`` of the reset seed
        for the ``k``-th: :attr:`PimcGame.stream_per_decision`)."""
        self._decisions += 1
        rng_seed(self._rng, self._stream_seed, self._decisions)
        return self._rng

    def _game_for(self, view) -> PimcGame:
        """The game of the last reset (an agent asked before any reset: that of ``view``'s
        rules, with the stream seed 0)."""
        if self._game is None:
            self._game = self._game_of(view.rules.family)
            self._game.prepare(self)
        return self._game

    def act(self, view) -> int:
        game = self._game_for(view)
        rng = self._stream() if game.stream_per_decision else None
        legal = view.legal_actions
        if len(legal) == 1:
            self.last_worlds = 0
            return int(legal[0])
        if not game.searched(self, view):
            return game.other(self, view)
        n = game.draw(self, view, self._stream() if rng is None else rng)
        self.last_worlds = n
        return int(game.best(self, view, n))

    # ------------------------------------------------------------ card play
    def card_values(self, view, rng: Optional[np.ndarray] = None):
        """``(actions, totals, n_worlds)``: the legal actions, their values summed over
        the worlds solved, and how many worlds (the PIMC evaluation behind :meth:`act`,
        at a card of the play, whatever ``solve_from``): the worlds from ``rng``, else
        the game's analysis stream (:attr:`PimcGame.stream_per_decision`). Four players:
        the objective's value for the seat's team; belote for two players: the card
        points the player wins in the whole deal."""
        game = self._game_for(view)
        if rng is None:
            if game.stream_per_decision:
                rng = np.zeros(1, dtype=np.uint64)
                rng_seed(rng, self._stream_seed, 0)
            else:
                rng = self._stream()
        n = game.draw(self, view, rng)
        actions, totals = game.values(self, view, n)
        return actions, totals, n

    def card_choice(self, view, rng: Optional[np.ndarray] = None):
        """``(action, actions, totals, n_worlds)``: :meth:`card_values` and the action
        PIMC chooses from them (the largest total; ties: four players the cheapest card,
        belote for two players the lowest card), from one evaluation. :meth:`act` plays
        the same action (in belote for two players found with less search)."""
        actions, totals, n = self.card_values(view, rng)
        self.last_worlds = n
        return self._game.choose(self, view, actions, totals), actions, totals, n

    def belief_net(self, rules: RuleSet):
        """The belief net the worlds are drawn from under ``rules``
        (:class:`~coinche_rl.agents.neural.belief.BeliefNet`), or None for uniform
        worlds (``worlds_from=uniform``, or ``auto`` where no belief weights for the
        rules ship)."""
        if self.worlds_from == "uniform" or rules.family == "classic":
            if self.worlds_from == "belief":
                raise PIMCError("pimc: worlds_from=belief is for the coinche family and "
                                "belote for two players; the belief net does not read the "
                                "classic prise")
            return None
        if self._belief_rules is rules:
            return self._belief
        auto = self.worlds_from == "auto" and not self.belief_weights
        belief = None
        if not auto or os.path.isfile(default_weights_path(rules.name, "belief")):
            try:
                belief = load_belief_net(self.belief_weights, rules)
            except NeuralError as e:
                if not auto:        # auto: rules the shipped belief was not trained for
                    raise PIMCError(f"pimc: {e}") from None
        self._belief, self._belief_rules = belief, rules
        return belief

    def worlds_for(self, hand: int) -> int:
        """Worlds to solve for a card decision holding ``hand`` (a card mask): ``worlds``,
        or with ``taper="linear"`` ``ceil(worlds * cards / 8)`` (at least 1)."""
        if self.taper == "none":
            return self.worlds
        cards = bin(int(hand)).count("1")
        return max(1, -(-self.worlds * cards // CARDS_PER_HAND))

    # ------------------------------------------------------------ auction
    def _evaluate(self, view: PlayerView, pub: np.ndarray, strains=None, auction=(),
                  min_suit_length: int = 0):
        """:func:`coinche_rl.agents.evaluation.evaluate_hand` of the seat's hand (the
        worlds from this deal's evaluation seed)."""
        classic = view.rules.family == "classic"
        return evaluate_hand(view.rules, view.seat, int(hand_of(pub, view.seat)),
                             int(dealer_of(pub)), samples=self.bid_samples,
                             seed=(self._stream_seed ^ _EVAL_SALT) & (2 ** 63 - 1),
                             strains=strains, method=self._eval_method, auction=auction,
                             retourne=int(retourne_of(pub)) if classic else None,
                             min_suit_length=min_suit_length)

    def hand_evaluation(self, view: PlayerView):
        """The evaluation of the seat's hand behind its bids: every strain, the worlds
        not constrained by the auction; computed at the seat's first auction decision
        of the deal and kept (the hand does not change during the auction)."""
        if self._eval is None:
            self._eval = self._evaluate(view, view.public_state)
        return self._eval

    def _auction(self, view: PlayerView, pub: np.ndarray, legal: np.ndarray) -> int:
        if self._method(view.rules) == "nn":
            return self._net_bid(view, pub)
        legal_set = set(int(a) for a in legal)
        ev = self.hand_evaluation(view)
        if view.rules.family == "classic":
            return self._prise(ev, legal_set, int(retourne_of(pub)) >> 3)
        seat = view.seat
        value, strain, bidder = (int(x) for x in contract_of(pub))
        if COINCHE in legal_set and self.failure_margin(view, value, strain) > self.coinche_margin:
            return COINCHE
        if SURCOINCHE in legal_set and self.success_margin(view, value, strain) > self.coinche_margin:
            return SURCOINCHE
        baseline = self.bid_margin
        if bidder >= 0 and team_of(bidder) == team_of(seat) and strain in ev.strains:
            # the partner holds the contract: outbid it only when that is worth more
            k = int(np.flatnonzero(ev.levels == value)[0])
            baseline = max(baseline, float(ev.expected_score[ev.strains.index(strain), k]))
        best, best_key = PASS, None
        for a in legal_set:
            if BID_BASE <= a < CAPOT_BASE:
                v, st = bid_value(a), bid_strain(a)
            elif CAPOT_BASE <= a < COINCHE:
                v, st = CAPOT_VALUE, a - CAPOT_BASE
            else:
                continue
            if st not in ev.strains:
                continue
            es = float(ev.expected_score[ev.strains.index(st), int(np.flatnonzero(ev.levels == v)[0])])
            if es <= baseline:
                continue
            key = (es, v, -st) if self.bid_rule == "best" else (v, es, -st)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    @property
    def _eval_method(self) -> str:
        """The hand evaluation's method (``auto`` / ``nn`` evaluate with the heuristic)."""
        return self.bid_method if self.bid_method in ("dd", "heuristic") else "heuristic"

    def _method(self, rules) -> str:
        """``bid_method`` with ``auto`` resolved: ``nn`` where bidding weights ship for
        the preset (or ``bid_weights`` is given), else ``heuristic``."""
        if self.bid_method != "auto":
            return self.bid_method
        if self.bid_weights:
            return "nn"
        return "nn" if os.path.isfile(default_weights_path(rules.name, "bid")) else "heuristic"

    def _net_bid(self, view: PlayerView, pub: np.ndarray) -> int:
        """``bid_method="nn"``: the bidding network's action (``bid_weights``, default the
        weights shipped for the preset, read with the heads of the ``nn`` card player,
        the closest to PIMC's own play)."""
        if self._bid_net is None or self._bid_inputs.rules != view.rules:
            self._bid_net = load_bid_net(self.bid_weights, view.rules, "nn")
            self._bid_inputs = NetInputs(view.rules, 1)
        return int(self._bid_net.actions(self._bid_inputs, pub[None, :],
                                         np.zeros(1, dtype=np.int64))[0])

    def failure_margin(self, view: PlayerView, value: int, strain: int) -> float:
        """By how many points the opponents' contract (``value`` in ``strain``) is
        expected to fail: the bid less the opponents' expected card points in the
        evaluation's worlds (double-dummy or heuristic play), where each opponent who bid
        a suit holds at least ``coinche_length`` cards of it."""
        pub = view.public_state
        auction = tuple(int(auction_action(pub, i)) for i in range(int(auction_length(pub))))
        # the worlds depend on the auction only through the suits the other seats bid
        dealer = int(dealer_of(pub))
        shown = set()
        for i, a in enumerate(auction):
            bidder = seat_after(dealer, 1 + i)
            st = (a - BID_BASE) % 6 if BID_BASE <= a < CAPOT_BASE else a - CAPOT_BASE
            if BID_BASE <= a < COINCHE and bidder != view.seat and st < 4:
                shown.add((bidder, st))
        key = (strain, frozenset(shown) if self.coinche_length > 0 else None)
        ev = self._coinche_cache.get(key)
        if ev is None:
            try:
                ev = self._evaluate(view, pub, strains=[strain], auction=auction,
                                    min_suit_length=self.coinche_length)
            except EvaluationError:
                # the length asked is too rare among the worlds: drop the condition
                ev = self._evaluate(view, pub, strains=[strain], auction=auction)
            self._coinche_cache[key] = ev
        ours = _team_points(ev, strain)
        theirs = np.where(ours <= 0, float(CAPOT_POINTS),
                          np.where(ours >= CAPOT_POINTS, 0.0, float(DEAL_POINTS) - ours))
        return float(value - theirs.mean())

    def success_margin(self, view: PlayerView, value: int, strain: int) -> float:
        """By how many points the team's own contract is expected to be made: its
        expected card points in the seat's hand evaluation less the bid."""
        return float(_team_points(self.hand_evaluation(view), strain).mean() - value)

    def _prise(self, ev, legal_set, retourne_suit: int) -> int:
        """Classic prise: take (round 1) or name (round 2) the legal strain with the best
        expected score, when it beats ``bid_margin``."""
        best, best_es = PASS, self.bid_margin
        for a in sorted(legal_set):
            if a == TAKE:
                st = retourne_suit
            elif NAME_BASE <= a < NAME_BASE + 6:
                st = a - NAME_BASE
            else:
                continue
            if st not in ev.strains:
                continue
            es = float(ev.expected_score[ev.strains.index(st), 0])
            if es > best_es:
                best, best_es = a, es
        return best


_EVAL_SALT = 0x3C6EF372FE94F82B


def _team_points(ev, strain: int) -> np.ndarray:
    """The team's card points in ``strain`` in each world of the evaluation ``ev``
    (double-dummy when computed, else heuristic play)."""
    pts = ev.dd_points if ev.dd_points is not None else ev.heur_points
    return pts[ev.strains.index(strain)]


# ================================================================== warmup
#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the solver's
#: search, whose kernels its kernels call (in its chain)
WARMUP_AFTER = ("coinche_rl.solver:warmup_search",)


def warmup() -> None:
    """Compile (or load from the numba cache) the kernels of this module (the card-play
    loop with the sampler's and the solver's kernels)."""
    from ..game import Deal
    for preset in ("ffb", "coinche_x3"):
        d = Deal(preset, seed=0, dealer=3).with_contract(80, 1, taker=0)
        for _ in range(28):
            d.apply(int(d.legal_actions()[0]))
        agent = PIMCAgent(worlds=2, tt_bits=10)
        agent.reset(d.current_player, d.rules, 0)
        agent.act(PlayerView.from_deal(d))
        agent.card_values(PlayerView.from_deal(d))
    from ..engine import public_view
    seat = d.current_player
    world_state(public_view(d.state, d.params, seat), d.params, seat, d.hands)
