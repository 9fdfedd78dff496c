"""PIMC for belote for two players: perfect-information Monte Carlo over the worlds
consistent with what the player knows, each solved double dummy
(:mod:`coinche_rl.solver_two`).

A **world** gives a place to every card the player cannot see (the unknown part of the
other hand, every face-down card, his own included), consistent with the public history:

* the other player's hand holds none of a suit he failed to follow, no trump once he
  failed to trump a plain suit he lacked, and no trump above the one he failed to beat
  when trump was led (RULES.md §12's obligations read backwards; a face-down card was
  unknown to him, so it carries no constraint);
* his announced declaration (its points) is the best single declaration of his hand and
  face-up cards at the start of the play (worlds that disagree are redrawn, up to
  :data:`MAX_REDRAWS` times; then the last draw is kept).

Worlds are drawn uniformly among those: the other hand's unknown cards uniformly among
the cards allowed there, the rest uniformly over the face-down places. In each world
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
from ..engine.bits import lowest_card, popcount, rng_below, rng_seed, seed_int64
from ..engine.declarations import best_single_declaration
from ..engine.two import (HIDDEN_CARD, N_PLAYERS, N_STACKS, PLAY, TWO_STATE_SIZE,
                          add_face_down_cards, cards_in_trick, current_leader,
                          declaration_points, face_up_cards, hand_of, other, phase_of, py,
                          set_card_under, set_face_down_cards, set_hand, set_stack_face_down,
                          stack_face_down, stack_face_up, trick_card, trick_leader, trick_number,
                          trump_of)
from ..rules import P_DECLARATIONS
from ..solver_two import (OPT_DEFAULT, OPT_SHARE, best_card_two, card_values_two,
                          new_generation, new_tables)
from ..two_player import TwoPlayerView
from .base import Param
from .heuristic_two import excluded_cards
from .numba_bots import BOT_HEURISTIC, NumbaBotAgent, game_bot_action

__all__ = ["TwoPimcAgent", "hand_constraints", "sample_world", "pimc_card_sums", "pimc_best_card",
           "MAX_REDRAWS"]

#: redraws of a world whose other hand contradicts his announced declaration
MAX_REDRAWS = 1000


@njit(cache=True)
def hand_constraints(V, me):
    """The cards the other player's hand may still hold (a mask), from the plays in the
    public view ``V`` of player ``me`` (module docstring; the heuristic's
    :func:`~coinche_rl.agents.heuristic_two.excluded_cards`)."""
    return np.int64(0xFFFFFFFF) & ~excluded_cards(V, other(me), trump_of(V))


@njit(cache=True)
def _other_start_holding(V, me, hand):
    """The other player's hand and face-up cards at the start of the play, with
    ``hand`` as his (sampled) hand now: hand, his played cards and his face-up cards,
    less the face-down cards revealed since."""
    o = other(me)
    held = hand | face_up_cards(V, o)
    n_tricks = trick_number(V) + (1 if cards_in_trick(V) == 1 else 0)
    for t in range(n_tricks):
        leader = trick_leader(V, t)
        for i in range(N_PLAYERS):
            c = trick_card(V, t, i)
            if c >= 0 and (leader if i == 0 else other(leader)) == o:
                held |= np.int64(1) << c
    for k in range(N_STACKS):
        d = stack_face_down(V, o, k)
        if d >= 0:
            held &= ~(np.int64(1) << d)         # revealed later: not part of the start
    return held


@njit(cache=True)
def sample_world(V, P, me, unseen, hand_size, allowed, rng, T, scratch):
    """``T`` := a world drawn from the public view ``V`` of player ``me`` (module
    docstring): ``unseen`` the cards he cannot place, ``hand_size`` how many of them lie
    in the other hand, ``allowed`` the cards that hand may hold. ``scratch``:
    int64[32]. Returns the number of redraws used."""
    o = other(me)
    announced = declaration_points(V, o)
    declared = P[P_DECLARATIONS] != 0 and phase_of(V) == PLAY and \
        (trick_number(V) > 0 or (cards_in_trick(V) == 1 and current_leader(V) == o))
    strain = trump_of(V)
    redraws = 0
    while True:
        # the other hand: hand_size cards uniformly among the allowed unseen ones
        pool = unseen & allowed
        if popcount(pool) < hand_size:
            pool = unseen                  # inconsistent constraints: drop them
        hand = np.int64(0)
        for _ in range(hand_size):
            k = rng_below(rng, popcount(pool))
            m = pool
            for _ in range(k):
                m &= m - 1
            c = lowest_card(m)
            hand |= np.int64(1) << c
            pool &= ~(np.int64(1) << c)
        if declared and redraws < MAX_REDRAWS:
            start = _other_start_holding(V, me, hand | hand_of(V, o))
            if best_single_declaration(start, strain)[0] != announced:
                redraws += 1
                continue
        break
    # the rest over the face-down places, in a uniform order
    rest = unseen & ~hand
    n = 0
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        scratch[n] = c
        n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = scratch[i]
        scratch[i] = scratch[j]
        scratch[j] = tmp
    for k in range(TWO_STATE_SIZE):
        T[k] = V[k]
    set_hand(T, o, hand_of(V, o) | hand)
    i = 0
    for p in range(N_PLAYERS):
        set_face_down_cards(T, p, 0)
        for k in range(N_STACKS):
            if stack_face_down(V, p, k) == HIDDEN_CARD:
                c = scratch[i]
                i += 1
                set_stack_face_down(T, p, k, c)
                set_card_under(T, stack_face_up(V, p, k), c)
                add_face_down_cards(T, p, np.int64(1) << c)
    return redraws


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
