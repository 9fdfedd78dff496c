"""PIMC for belote for two players: perfect-information Monte Carlo over the worlds
consistent with what the player knows, each solved double dummy
(:mod:`coinche_rl.solver_two`).

The worlds are those of :func:`coinche_rl.agents.sampler.sample_world`: every card the
player cannot see placed consistently with the public history (the other hand's voids
and trump ceilings, his announced declaration). In each world
the solver gives, for each legal card, the card points the player wins in the whole
deal; PIMC plays the card with the best sum over the worlds (ties: the lowest card).
:meth:`TwoPimcAgent.card_sums` computes every sum exactly (the web page's analysis
shows them); :meth:`~TwoPimcAgent.act` finds the same card with less search
(:func:`coinche_rl.solver_two.best_card_two`: exact values only where the sums could
change the choice).

The search is exact but its cost grows quickly with the tricks left (measured in
``benchmarks/RESULTS.md``: a PIMC-32 decision takes a median 0.1 s at trick 4, 6 s
to 35 s at the first trick), so the agent plays the heuristic's card until trick
``solve_from`` (0-based, default 4: the last twelve tricks are searched) and always
for the prise and the exchange. Each world is a new generation of one transposition
table (:func:`coinche_rl.solver_two.new_generation`): nothing is cleared between them.
"""

from __future__ import annotations

from typing import Dict

import numpy as np
from numba import njit

from ..actions import CARD_BASE
from ..engine.bits import popcount, rng_seed, seed_int64
from ..engine.two import TWO_STATE_SIZE, py
from ..solver_two import (OPT_DEFAULT, OPT_SHARE, best_card_two, card_values_two,
                          new_generation, new_tables)
from ..two_player import TwoPlayerView
from .base import Param
from .numba_bots import BOT_HEURISTIC, NumbaBotAgent, game_bot_action
from .sampler import hand_constraints, sample_world

__all__ = ["TwoPimcAgent", "pimc_card_sums", "pimc_best_card"]


@njit(cache=True)
def pimc_card_sums(V, P, me, unseen, hand_size, n_worlds, seed, stream, tt, work, sums):
    """``sums[card]`` := the card points ``me`` wins, summed over ``n_worlds`` worlds
    drawn from the stream ``(seed, stream)``, for each legal card (-1 elsewhere)."""
    rng = np.zeros(1, dtype=np.uint64)
    rng_seed(rng, seed, stream)
    T = np.empty(TWO_STATE_SIZE, dtype=np.int64)
    scratch = np.empty(32, dtype=np.int64)
    vals = np.empty(32, dtype=np.int64)
    allowed = hand_constraints(V, me)
    for c in range(32):
        sums[c] = -1
    for w in range(n_worlds):
        sample_world(V, P, me, unseen, hand_size, allowed, rng, T, scratch)
        # a new generation of the table per world keeps the worlds' entries apart
        new_generation(tt, work)
        card_values_two(T, tt, work, vals)
        for c in range(32):
            if vals[c] >= 0:
                sums[c] = vals[c] if sums[c] < 0 else sums[c] + vals[c]


@njit(cache=True)
def pimc_best_card(V, P, me, unseen, hand_size, n_worlds, seed, stream, tt, work, lo, hi):
    """The card (engine id) with the best sum of :func:`pimc_card_sums` (the same
    worlds; ties: the lowest card), by :func:`coinche_rl.solver_two.best_card_two`:
    only the searches the choice needs. ``lo``, ``hi``: int64[n_worlds, 32], each
    world's bounds on each legal card's points."""
    rng = np.zeros(1, dtype=np.uint64)
    rng_seed(rng, seed, stream)
    Ts = np.empty((n_worlds, TWO_STATE_SIZE), dtype=np.int64)
    scratch = np.empty(32, dtype=np.int64)
    allowed = hand_constraints(V, me)
    for w in range(n_worlds):
        sample_world(V, P, me, unseen, hand_size, allowed, rng, Ts[w], scratch)
    return best_card_two(Ts, n_worlds, tt, work, lo, hi)


class TwoPimcAgent(NumbaBotAgent):
    """PIMC over the worlds consistent with the player's view, each solved double dummy
    (module docstring); the heuristic before trick ``solve_from`` and in the prise."""

    FAMILIES = ("two",)
    DESCRIPTION = ("PIMC: worlds consistent with the view (voids, trump ceilings, the "
                   "announced declaration), each solved double dummy; the heuristic earlier")
    PARAMS: Dict[str, Param] = {
        "worlds": Param(int, doc="worlds sampled per decision", min=1, max=4096),
        "solve_from": Param(int, doc="the first trick (0-based) played by the search; the "
                            "heuristic plays the ones before", min=0, max=15),
    }

    def __init__(self, worlds: int = 32, solve_from: int = 4):
        super().__init__(BOT_HEURISTIC)
        self.numba_bot = None                # not a numba bot: tournaments call act()
        self.worlds = int(worlds)
        self.solve_from = int(solve_from)
        self._tt = None
        self._work = None
        self._sums = np.zeros(32, dtype=np.int64)
        self._decision = 0

    @property
    def seconds_per_deal(self) -> float:
        """About 0.3 s per deal with 32 worlds from trick 4 (the default), in proportion
        to the worlds: 0.24 s in belote à deux and 0.35 s in belote découverte against the
        heuristic, on one core of the 2-core test machine (what the arena's estimates and
        chunks read); a search from an earlier trick takes longer than this says."""
        return 0.3 * self.worlds / 32

    def reset(self, player, rules, seed) -> None:
        super().reset(player, rules, seed)
        self._decision = 0

    def act(self, view: TwoPlayerView) -> int:
        V = view.state
        if view.phase != "play" or int(py.trick_number(V)) < self.solve_from:
            return game_bot_action(BOT_HEURISTIC, V, view.params, view.player, self.rng,
                                   self._buf)
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        return CARD_BASE + int(self.best_card(view))

    def _search_args(self, view: TwoPlayerView):
        if view.phase != "play":
            raise ValueError(f"PIMC values the cards of the play, not the {view.phase}")
        if self._tt is None:
            # the worlds and decisions of a deal share the positions with few
            # face-down cards left (OPT_SHARE)
            self._tt, self._work = new_tables(options=OPT_DEFAULT | OPT_SHARE)
        hand_size = view.other_hand_size - popcount(view.known_other)
        self._decision += 1
        return (view.state, view.params, view.player, np.int64(view.unseen),
                np.int64(hand_size), np.int64(self.worlds), np.int64(seed_int64(self.seed)),
                np.int64(self._decision), self._tt, self._work)

    def best_card(self, view: TwoPlayerView) -> int:
        """The card (engine id) :meth:`act` plays at a card of the play: the best sum of
        :meth:`card_sums` over the same worlds (ties: the lowest card), with only the
        searches that choice needs (:func:`pimc_best_card`)."""
        args = self._search_args(view)
        bounds = np.empty((2, self.worlds, 32), dtype=np.int64)
        return int(pimc_best_card(*args, bounds[0], bounds[1]))

    def card_sums(self, view: TwoPlayerView):
        """The search of :meth:`act` at a card of the play (any trick, whatever
        ``solve_from``): ``(cards, sums)``, the legal card actions and, for each, the card
        points the player wins in the whole deal summed over :attr:`worlds` worlds (the
        next decision's stream: the same seed and decisions, the same worlds)."""
        pimc_card_sums(*self._search_args(view), self._sums)
        cards = view.legal_actions
        return cards, [int(self._sums[a - CARD_BASE]) for a in cards]

    def card_choice(self, view: TwoPlayerView):
        """``(action, actions, totals, n_worlds)`` as the four-player PIMC's
        :meth:`~coinche_rl.agents.pimc.PimcAgent.card_choice`: :meth:`card_sums` and the
        card PIMC chooses from them (the best sum, ties to the lowest card: the card
        :meth:`best_card` finds with less search)."""
        cards, sums = self.card_sums(view)
        pick = cards[max(range(len(cards)), key=lambda k: (sums[k], -cards[k]))]
        return int(pick), cards, sums, self.worlds


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the solver and
#: the bots (warmed with the hand evaluation's play-outs), whose kernels its kernels call
WARMUP_AFTER = ("coinche_rl.solver_two", "coinche_rl.agents.evaluation_two")


def warmup() -> None:
    """Compile the PIMC kernels (a decision late in a deal, and its exact sums)."""
    from ..two_player import TwoPlayerDeal
    from .registry import make_agent
    d = TwoPlayerDeal("belote_decouverte", seed=0, dealer=0)
    d.apply("take")
    while len(d.plays) < 26:
        d.apply(d.legal_actions()[0])
    agent = make_agent("pimc:worlds=2,solve_from=0", "two")
    agent.reset(d.current_player, d.rules, 0)
    agent.act(d.view(d.current_player))          # best_card
    agent.card_sums(d.view(d.current_player))
