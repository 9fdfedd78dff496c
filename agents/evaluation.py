"""Monte Carlo hand evaluation (``coinche_rl.agents.evaluation``): how much is this hand
worth as a contract, in each strain, at each bid level?

:func:`evaluate_hand` draws ``samples`` worlds (deals of the other 24 cards that agree
with the seat's hand and the auction's constraints, :mod:`~coinche_rl.agents.sampler`),
gives the seat's team each contract and plays it out: double dummy (``"dd"``, the
solver at all four seats), with the heuristic bot at every seat (``"heuristic"``), both
(``"both"``, the default), or not at all (``"nn"``: the bidding network's estimate under
real play). The result (:class:`HandEvaluation`) holds per strain and level the share of
worlds where the contract is made (``p_make``), the mean deal score difference
(``expected_score``), and the suggested bid (the best positive expectation among the
contracts the seat may still bid). ``docs/hand_evaluation.md`` describes each method,
the classic family's prise, the auction's constraints and the speed in full.

One evaluation, every family: with the rules of belote for two players,
:func:`evaluate_hand` (and :func:`evaluate_view`, from a player's own view) values the
options of the prise (take or name each suit, at the one level ``take``, and pass) by
heuristic play at both players; its worlds and options are the family's
(:mod:`.evaluation_two`), the result is the same :class:`HandEvaluation` with the pass's
values (``pass_scores``).

>>> ev = evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, samples=4,
...                    strains="H", method="heuristic")
>>> ev.levels.tolist()
[80, 90, 100, 110, 120, 130, 140, 150, 160, 250]
>>> ev.p_make.shape, ev.heur_points.shape
((1, 10), (1, 4))
>>> bool(np.all(np.diff(ev.p_make, axis=1) <= 0))      # harder as the level rises
True
"""

from __future__ import annotations

import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numba import njit

from .. import actions as A
from .. import rules as R
from .. import _numba_cache as nc
from .._numba_cache import compile_notice
from ..cards import N_CARDS, InvalidNotationError, cards_mask, format_hand, parse_card
from ..engine import (OUTCOME_CAPOT, OUTCOME_CAPOT_AGAINST, OUTCOME_GENERALE, OUTCOME_NORMAL,
                      outcome_score)
from ..engine import (STATE_SIZE, apply_legal_action, is_legal, kernel, lowest_card,
                      reset_classic, reset_state, rng_seed, scale_at_points,
                      set_contract, shuffle)
from ..engine import (belote_decided_seats, belote_holder_seats, contract_strain, current_seat,
                      deal_made, declare_decided_seats, has_declaration, mark_declared,
                      prise_round, py, retourne_of, set_current_seat,
                      team_card_points, team_score)
from ..rules import (ALL_CARD_POINTS, AT, AT_TABLE_NAMES, CAPOT_POINTS, CAPOT_VALUE,
                     CLASSIC_FIRST_HAND, CLASSIC_PACKETS, CLASSIC_RETOURNE_AT, CLASSIC_STOCK,
                     CARDS_PER_HAND, DIX_DE_DER, N_SEATS, seat_after, P_AT_TABLE, P_DECLARATIONS,
                     P_GENERALE_BONUS, P_OPTIONAL_BELOTE, P_OPTIONAL_DECLARE, STRAIN_NAMES,
                     RuleSet, check_int, four_player_rules, get_rules, params_vector)
from ..progress import TaskProgress
from ..solver import POINTS, SCORE, Solver, solve_keeping
from .neural.agent import load_bid_net, load_play_net
from .neural.bid_actions import bid_inputs
from .neural.net import NeuralError
from . import evaluation_two
from .evaluation_two import play_prise, prise_view
from .numba_bots import BOT_HEURISTIC, play_deals_four
from .sampler import NoConsistentWorld, SamplerError, WorldSampler

__all__ = ["EvaluationError", "HandEvaluation", "evaluate_hand", "evaluate_view",
           "evaluation_methods", "prepare_evaluation",
           "contract_levels", "suggest_bid",
           "score_outcome",
           "warmup", "METHODS", "CAPOT", "TAKE_LEVEL"]

#: the evaluation methods
METHODS = ("dd", "heuristic", "both", "nn")
#: level of a capot contract
CAPOT = CAPOT_VALUE
#: the single level of the classic family ("take")
TAKE_LEVEL = 0
_AT_SCALED = AT_TABLE_NAMES.index("scaled")
# outcome kinds of a double-dummy deal, from the takers' side
_K_CAPOT_AGAINST, _K_NORMAL, _K_CAPOT, _K_GENERALE = (OUTCOME_CAPOT_AGAINST, OUTCOME_NORMAL,
                                                       OUTCOME_CAPOT, OUTCOME_GENERALE)


class EvaluationError(ValueError):
    """A hand, seat, strain, method, constraint or auction that the evaluation cannot use."""


# ====================================================================== kernels
@kernel
def _start(S, P, hands, deck, classic, dealer, value, strain, coinche, taker):
    """``S`` = a fresh deal of ``hands`` (coinche family) or ``deck`` (classic family)
    dealt by ``dealer``, with the contract (``value``, ``strain``, ``coinche``) taken by
    ``taker``: the engine's ``Deal(...).with_contract``."""
    if classic:
        reset_classic(S, deck, dealer)
        set_contract(S, P, np.int64(0), strain, np.int64(0), taker)
    else:
        reset_state(S, hands, dealer)
        set_contract(S, P, value, strain, coinche, taker)


@kernel
def _raw_total(P, strain):
    """Raw card points of a deal in ``strain`` with the dix de der (162; 258 for the
    ``scaled`` AT table)."""
    t = DIX_DE_DER
    for c in range(N_CARDS):
        t += ALL_CARD_POINTS[P[P_AT_TABLE], strain, c]
    return t


@kernel
def _outcome(P, strain, p, capot_against):
    """The takers' outcome ``(kind, raw points)`` from their double-dummy card points
    ``p`` (the ``points`` objective, ``S_CARD_POINTS``)."""
    raw = _raw_total(P, strain)
    if capot_against:
        return _K_CAPOT_AGAINST, 0
    if P[P_GENERALE_BONUS] > 0 and p == P[P_GENERALE_BONUS]:
        return _K_GENERALE, raw
    if p == CAPOT_POINTS:
        return _K_CAPOT, raw
    if strain == AT and P[P_AT_TABLE] == _AT_SCALED:
        # the engine scales the takers' raw points r to (324 r + 258) // 516: any r
        # with that image scores the same; take the smallest
        for r in range(raw + 1):
            if scale_at_points(r) == p:
                return _K_NORMAL, r
    return _K_NORMAL, p


@kernel
def score_outcome(S, Z, P, taker, kind, e):
    """Score the deal ``S`` (a fresh contract, first trick not started) as if it ended
    with the takers' outcome ``(kind, e)``: a synthetic finished deal ``Z`` scored by
    :func:`engine.outcome_score`, every declaration declared and every belote announced.
    Returns ``(made, score difference for the takers)``."""
    for k in range(STATE_SIZE):
        Z[k] = S[k]
    for seat in range(N_SEATS):
        bit = 1 << seat
        if P[P_DECLARATIONS] != 0 and has_declaration(Z, P, seat):
            if P[P_OPTIONAL_DECLARE] != 0:
                if (declare_decided_seats(Z) & bit) == 0:
                    set_current_seat(Z, seat)
                    apply_legal_action(Z, P, np.int64(A.DECLARE))
            else:
                mark_declared(Z, bit)
        if (P[P_OPTIONAL_BELOTE] != 0 and (belote_holder_seats(Z) & bit) != 0
                and (belote_decided_seats(Z) & bit) == 0):
            set_current_seat(Z, seat)
            apply_legal_action(Z, P, np.int64(A.BELOTE))
    raw = _raw_total(P, contract_strain(Z))
    diff = outcome_score(Z, P, R.team(taker), kind, e, raw, taker)[1]
    return deal_made(Z), diff


@njit(cache=True, nogil=True)
def _dd_chunk(W, P, hands, decks, classic, seat, dealer, strains, levels, coinche, first,
              last, out_pts, out_score, out_made, out_synth):
    """Double-dummy evaluation of worlds ``first..last-1``: ``out_pts[j, i]`` the
    takers' card points in strain ``strains[j]``, ``out_score[j, l, i]`` the score
    objective at ``levels[l]``, ``out_made[j, l, i]`` (``S_MADE`` of that outcome) and
    ``out_synth[j, l, i]`` (its score difference, equal to ``out_score`` whenever the
    rules leave no declare / belote choice). ``W``: a solver workspace kept between
    calls (``Solver(keep_table=True).W``)."""
    S = np.empty(STATE_SIZE, dtype=np.int64)
    Z = np.empty(STATE_SIZE, dtype=np.int64)
    T = R.team(seat)
    for i in range(first, last):
        for j in range(strains.shape[0]):
            st = strains[j]
            _start(S, P, hands[i], decks[i], classic, dealer, levels[0], st, coinche, seat)
            p = solve_keeping(W, S, P, np.int64(POINTS), T)
            out_pts[j, i] = p
            against = False
            if p == 0:
                # no card point: capot (every trick to the defenders) or pointless tricks
                against = solve_keeping(W, S, P, np.int64(POINTS), 1 - T) == CAPOT_POINTS
            kind, e = _outcome(P, st, p, against)
            for lv in range(levels.shape[0]):
                _start(S, P, hands[i], decks[i], classic, dealer, levels[lv], st, coinche, seat)
                out_score[j, lv, i] = solve_keeping(W, S, P, np.int64(SCORE), T)
                made, diff = score_outcome(S, Z, P, seat, kind, e)
                out_made[j, lv, i] = made
                out_synth[j, lv, i] = diff


@njit(cache=True, nogil=True)
def _heur_chunk(P, hands, decks, classic, seat, dealer, strains, levels, coinche, first,
                last, out_pts, out_score, out_made):
    """Heuristic play (the numba bot at all four seats) of worlds ``first..last-1``,
    every strain and level: ``out_pts[j, i]`` the takers' card points at the first
    level, ``out_score[j, l, i]`` the score difference, ``out_made[j, l, i]``
    ``S_MADE``. Returns 0, or 1 + the world where a bot went wrong (never expected)."""
    n = last - first
    states = np.empty((n, STATE_SIZE), dtype=np.int64)
    bots = np.full(N_SEATS, BOT_HEURISTIC, dtype=np.int64)
    seeds = np.zeros((n, N_SEATS), dtype=np.int64)
    rngs = np.zeros((N_SEATS, 1), dtype=np.uint64)         # the play loop's scratch
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    V = np.zeros(STATE_SIZE, dtype=np.int64)
    T = R.team(seat)
    for j in range(strains.shape[0]):
        for lv in range(levels.shape[0]):
            for k in range(n):
                _start(states[k], P, hands[first + k], decks[first + k], classic, dealer,
                       levels[lv], strains[j], coinche, seat)
            r = play_deals_four(P, states, bots, seeds, rngs, buf, V)
            if r != 0:
                return first + r
            for k in range(n):
                out_score[j, lv, first + k] = (team_score(states[k], T)
                                               - team_score(states[k], 1 - T))
                out_made[j, lv, first + k] = deal_made(states[k])
                if lv == 0:
                    out_pts[j, first + k] = team_card_points(states[k], T)
    return 0


@njit(cache=True)
def _classic_decks(worlds, prise, retourne, taker, dealer, seed, out):
    """Decks (``out``: int64[n, 32], dealing order) that deal the worlds of a classic
    prise: ``prise`` - ``worlds`` int64[n, 5] (5-card hands, the 11 undealt cards last),
    the stock shuffled from stream ``2**40 + i`` of ``seed``; else ``worlds`` int64[n, 4]
    (8-card hands after the prise, ``taker`` holding ``retourne``): each seat's lowest
    cards dealt first."""
    rng = np.empty(1, dtype=np.uint64)
    first5 = np.empty(N_SEATS, dtype=np.int64)
    rest = np.empty(N_SEATS, dtype=np.int64)
    stock = np.empty(CLASSIC_STOCK, dtype=np.int64)
    for i in range(worlds.shape[0]):
        for s in range(N_SEATS):
            h = worlds[i, s]
            if not prise:
                if s == taker:
                    h &= ~(1 << retourne)
                f = 0
                m = h
                for _ in range(CLASSIC_FIRST_HAND):
                    low = m & -m
                    f |= low
                    m &= m - 1
                first5[s] = f
                rest[s] = h & ~f
            else:
                first5[s] = h
        k = 0
        for packet in CLASSIC_PACKETS:
            for j in range(N_SEATS):
                s = seat_after(dealer, 1 + j)
                for _ in range(packet):
                    c = lowest_card(first5[s])
                    first5[s] &= ~(1 << c)
                    out[i, k] = c
                    k += 1
        out[i, CLASSIC_RETOURNE_AT] = retourne
        k = CLASSIC_RETOURNE_AT + 1
        if prise:
            m = worlds[i, N_SEATS]
            n = 0
            while m:
                stock[n] = lowest_card(m)
                n += 1
                m &= m - 1
            rng_seed(rng, seed, np.int64(1 << 40) + i)
            shuffle(rng, stock, CLASSIC_STOCK)
            for a in range(CLASSIC_STOCK):
                out[i, k + a] = stock[a]
        else:
            for j in range(N_SEATS):
                s = seat_after(dealer, 1 + j)
                m = rest[s]
                while m:
                    out[i, k] = lowest_card(m)
                    k += 1
                    m &= m - 1


# ====================================================================== results
def contract_levels(rules: Union[str, RuleSet]) -> np.ndarray:
    """The levels an evaluation reports: the preset's bid values and 250 (capot) in the
    coinche family; ``[0]`` ("take") in the classic family.

    >>> contract_levels("ffb").tolist()
    [80, 90, 100, 110, 120, 130, 140, 150, 160, 250]
    >>> contract_levels("classic").tolist()
    [0]
    """
    r = four_player_rules(rules)
    if r.family == "classic":
        return np.array([TAKE_LEVEL], dtype=np.int64)
    return np.array(list(r.bid_values) + [CAPOT], dtype=np.int64)


def _level_name(v: int) -> str:
    return "take" if v == TAKE_LEVEL else "capot" if v == CAPOT else str(int(v))


def _bid_name(value: int, strain: int) -> str:
    if value == TAKE_LEVEL:
        return f"take {STRAIN_NAMES[strain]}"
    if value == CAPOT:
        return f"capot{STRAIN_NAMES[strain]}"
    return f"{value}{STRAIN_NAMES[strain]}"


def frozen(a):
    """``a`` as a read-only array (None stays None)."""
    if a is None:
        return None
    a = np.asarray(a)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class HandEvaluation:
    """The result of :func:`evaluate_hand` (plain numpy arrays, read-only).

    ``S`` strains, ``L`` levels, ``N`` worlds; "team" is the seat's team, the takers.

    :ivar strains: strain ids evaluated (tuple of ``S``)
    :ivar levels: int64[L], the contract levels (:func:`contract_levels`)
    :ivar legal: bool[S, L], the contracts the seat may bid after the auction so far
    :ivar hands: int64[N, 4], each world's four 8-card hands as played (classic: after
        the distribution to the taker)
    :ivar decks: int64[N, 32], classic family: each world's deck in dealing order
        (``Deal(rules, deck=decks[i], dealer=dealer)``); None in the coinche family
    :ivar dd_points: float64[S, N], the team's card points under double-dummy play
        (None without ``"dd"``)
    :ivar heur_points: float64[S, N], the same under heuristic play (at the first level)
        (None without ``"heuristic"``)
    :ivar dd_scores / heur_scores: int64[S, L, N], the deal score difference
        (team minus opponents) of each contract in each world
    :ivar dd_made / heur_made: int64[S, L, N], ``S_MADE`` (1 made, 0 failed, 2 litige)
    :ivar p_make_dd, expected_score_dd, p_make_heur, expected_score_heur: float64[S, L]
    :ivar p_make, expected_score: float64[S, L] by the primary method (:attr:`primary`)
    :ivar suggested_bid: ``(value, strain)``: the legal contract with the best expected
        score when that is positive (the ``pimc`` agent's rule), or None (pass); with
        ``pass_scores``, the best that beats passing's expected score
    :ivar p_make_nn, expected_score_nn: float64[S, L] from the bidding network
        (``method="nn"``), for its card player ``nn_player``; belote for two players: by
        the card-play network's play of the worlds (``nn_scores``, ``nn_made``)
    :ivar nn_points, nn_scores, nn_made: belote for two players, ``method="nn"``: as
        ``heur_points``, ``heur_scores``, ``heur_made`` with the shipped card-play network
        playing both players' cards (the heuristic the prise and the exchange)
    :ivar seconds: wall time of each method, e.g. ``{"dd": 12.3, "heuristic": 0.2}``
    :ivar threads: the threads the worlds were played on (1 for the bidding network's
        estimate, which plays none, and for the prise of belote for two players)
    :ivar pass_scores, pass_takers: int64[N], belote for two players: the score
        difference of passing in each world, and who took then (-1: nobody); None in the
        four-player families, whose evaluation values the contracts only
    """

    rules: RuleSet
    seat: int
    dealer: int
    hand: int
    samples: int
    seed: int
    method: str
    auction: Tuple[int, ...]
    coinche: int
    retourne: Optional[int]
    strains: Tuple[int, ...]
    levels: np.ndarray
    legal: np.ndarray
    hands: np.ndarray
    decks: Optional[np.ndarray]
    dd_points: Optional[np.ndarray]
    heur_points: Optional[np.ndarray]
    dd_scores: Optional[np.ndarray]
    heur_scores: Optional[np.ndarray]
    dd_made: Optional[np.ndarray]
    heur_made: Optional[np.ndarray]
    p_make_dd: Optional[np.ndarray]
    expected_score_dd: Optional[np.ndarray]
    p_make_heur: Optional[np.ndarray]
    expected_score_heur: Optional[np.ndarray]
    p_make: np.ndarray
    expected_score: np.ndarray
    suggested_bid: Optional[Tuple[int, int]]
    seconds: Dict[str, float] = field(default_factory=dict)
    p_make_nn: Optional[np.ndarray] = None
    expected_score_nn: Optional[np.ndarray] = None
    nn_player: Optional[str] = None
    pass_scores: Optional[np.ndarray] = None
    pass_takers: Optional[np.ndarray] = None
    nn_points: Optional[np.ndarray] = None
    nn_scores: Optional[np.ndarray] = None
    nn_made: Optional[np.ndarray] = None
    threads: int = 1

    @property
    def primary(self) -> str:
        """The method behind :attr:`p_make` and :attr:`expected_score`."""
        if self.dd_scores is not None:
            return "dd"
        return "heuristic" if self.heur_scores is not None else "nn"

    @property
    def highest_positive_bid(self) -> Optional[Tuple[int, int]]:
        """``(value, strain)``: the highest legal contract with a positive expected score
        (at that level, the best strain), or None (the literal "bid as high as still
        pays" rule; :attr:`suggested_bid` is the best contract instead)."""
        return suggest_bid(self.levels, self.strains, self.expected_score, self.legal,
                           rule="highest", baseline=self.pass_expected or 0.0)

    @property
    def team(self) -> int:
        """The seat's side: its team (belote for two players: the player himself)."""
        return R.team(self.seat)

    @property
    def ci95(self) -> Optional[np.ndarray]:
        """float64[S, L]: the half-width of the 95% interval of :attr:`expected_score`
        (None for the network's estimate)."""
        sc = next((a for a in (self.dd_scores, self.heur_scores, self.nn_scores)
                   if a is not None), None)
        if sc is None:
            return None
        n = sc.shape[2]
        return 1.96 * (sc.std(axis=2, ddof=1) if n > 1 else np.zeros(sc.shape[:2])) / np.sqrt(n)

    @property
    def pass_expected(self) -> Optional[float]:
        """The expected score difference of passing (belote for two players), else None."""
        return None if self.pass_scores is None else float(self.pass_scores.mean())

    @property
    def p_taken(self) -> Optional[Tuple[float, float, float]]:
        """After a pass (belote for two players): the shares of worlds where he takes
        later, the other player takes, nobody takes; else None."""
        if self.pass_takers is None:
            return None
        t = self.pass_takers
        return (float((t == self.seat).mean()), float(((t >= 0) & (t != self.seat)).mean()),
                float((t < 0).mean()))

    def action_values(self) -> Dict[int, Tuple[float, float]]:
        """``{action id: (expected score, P(make))}`` of each contract the seat may bid now
        (and of the pass when it was played out; its P(make) is NaN)."""
        two = self.pass_scores is not None
        out: Dict[int, Tuple[float, float]] = {}
        for j, s in enumerate(self.strains):
            for k, v in enumerate(self.levels):
                if not self.legal[j, k]:
                    continue
                if v != TAKE_LEVEL:
                    a = A.capot_action(s) if v == CAPOT else A.bid_action(int(v), s)
                else:   # the prise: take the retourne's suit (first round), name another
                    a = A.TAKE if self.retourne is not None and s == self.retourne >> 3 \
                        else A.NAME_BASE + s
                out[int(a)] = (float(self.expected_score[j, k]), float(self.p_make[j, k]))
        if two:
            out[A.PASS] = (self.pass_expected, float("nan"))
        return out

    @property
    def best_bid(self) -> Optional[Tuple[int, int]]:
        """``(value, strain)`` with the highest expected score among the legal contracts
        (whatever its sign), or None when no contract is legal."""
        ev = np.where(self.legal, self.expected_score, -np.inf)
        if not self.legal.any():
            return None
        j, lv = np.unravel_index(int(np.argmax(ev)), ev.shape)
        return int(self.levels[lv]), int(self.strains[j])

    def strain_index(self, strain: Union[int, str]) -> int:
        """Row of ``strain`` (an id or a name such as ``"H"``) in the arrays."""
        s = _strain_id(strain)
        if s not in self.strains:
            raise EvaluationError(f"strain {strain!r} was not evaluated: the strains are "
                                  f"{', '.join(STRAIN_NAMES[x] for x in self.strains)}")
        return self.strains.index(s)

    def __repr__(self) -> str:
        bid = "none" if self.suggested_bid is None else _bid_name(*self.suggested_bid)
        return (f"<HandEvaluation {self.rules.name} seat={self.seat} hand={format_hand(self.hand)!r} "
                f"samples={self.samples} method={self.method} suggested={bid}>")

    # ------------------------------------------------------------ rendering
    def table(self) -> str:
        """A text table: mean card points by method, then P(make) and the expected deal
        score by level and strain for each method, then the suggested bid."""
        names = [STRAIN_NAMES[s] for s in self.strains]
        lv = [_level_name(v) for v in self.levels]
        auction = " ".join(A.action_to_str(a) for a in self.auction) or "none"
        two = self.pass_scores is not None        # belote for two: a player, a prise
        who, side = ("player", "player") if two else ("seat", "team")
        out = [f"{who} {self.seat}" + ("" if two else f" (team {self.team})")
               + f" holding {format_hand(self.hand)}, dealer {self.dealer}, rules "
               f"{self.rules.name!r}, {'prise' if two else 'auction'}: {auction}",
               (f"{self.samples} worlds (seed {self.seed})" if self.method != "nn" or two else
                f"no worlds: the bidding network, card player {self.nn_player}")
               + ((", the player taking, the card-play network playing both players' cards "
                   "(the heuristic the prise and the exchange)" if self.method == "nn" else
                   ", the player taking, heuristic play at both players") if two
                  else ", the seat's team taking")
               + (f", coinche level {self.coinche}" if self.coinche else "")
               + (f", retourne {format_hand(1 << self.retourne)}" if self.retourne is not None
                  else "")]
        out.append("")
        cols = []
        if self.dd_points is not None:
            cols.append(("DD", self.dd_points))
        if self.heur_points is not None:
            cols.append(("heuristic", self.heur_points))
        if self.nn_points is not None:
            cols.append(("network", self.nn_points))
        if cols:
            out.append(f"card points of the {side} (mean over the worlds)")
            out.append("strain" + "".join(f"{c:>11s}" for c, _ in cols))
            for j, n in enumerate(names):
                out.append(f"{n:6s}" + "".join(f"{a[j].mean():11.1f}" for _, a in cols))
        blocks = []
        if self.p_make_dd is not None:
            blocks.append(("double-dummy", self.p_make_dd, self.expected_score_dd))
        if self.p_make_heur is not None:
            blocks.append(("heuristic play", self.p_make_heur, self.expected_score_heur))
        if self.p_make_nn is not None:
            blocks.append(("network play" if two else
                           f"bidding network, card player {self.nn_player}", self.p_make_nn,
                           self.expected_score_nn))
        width = max(6, max(len(x) for x in lv) + 1)
        for label, pm, es in blocks:
            out.append("")
            out.append(f"P(make), {label}" + (
                ("  (* : a suit named if the prise comes back to him)" if two
                 else "  (* : not biddable after the auction)") if not self.legal.all() else ""))
            out.append("strain" + "".join(f"{x:>{width}s}" for x in lv))
            for j, n in enumerate(names):
                out.append(f"{n:6s}" + "".join(
                    f"{pm[j, k]:>{width - 1}.2f}{' ' if self.legal[j, k] else '*'}"
                    for k in range(len(lv))))
            out.append(f"expected deal score ({side} - {'the other' if two else 'opponents'}), "
                       f"{label}")
            out.append("strain" + "".join(f"{x:>{width}s}" for x in lv))
            for j, n in enumerate(names):
                out.append(f"{n:6s}" + "".join(f"{es[j, k]:>{width}.0f}" for k in range(len(lv))))
        out.append("")
        how = {"dd": "double-dummy", "heuristic": "heuristic play",
               "nn": "network play" if two else "bidding network"}[self.primary]
        if two:
            me, other, nobody = self.p_taken
            ci = 1.96 * self.pass_scores.std(ddof=1) / np.sqrt(self.samples) \
                if self.samples > 1 else 0.0
            out.append(f"pass: expected deal score {self.pass_expected:+.1f} (+/- {ci:.1f}); "
                       f"then he takes later {me:.3f}, the other takes {other:.3f}, nobody "
                       f"{nobody:.3f}")
        if self.suggested_bid is None:
            out.append("suggested bid: pass (" + (
                f"no contract beats passing, {how}" if two
                else f"no contract has a positive expected score, {how}") + ")")
        else:
            v, s = self.suggested_bid
            j, k = self.strains.index(s), int(np.flatnonzero(self.levels == v)[0])
            out.append(f"suggested bid: {_bid_name(v, s)} (the best expected score, {how}: "
                       f"{self.expected_score[j, k]:+.1f}, P(make) {self.p_make[j, k]:.2f})")
            hi = self.highest_positive_bid
            if hi is not None and hi != self.suggested_bid:
                j, k = self.strains.index(hi[1]), int(np.flatnonzero(self.levels == hi[0])[0])
                out.append(f"highest contract with a positive expected score: {_bid_name(*hi)} "
                           f"({self.expected_score[j, k]:+.1f}, P(make) {self.p_make[j, k]:.2f})")
        return "\n".join(line.rstrip() for line in out)

    def to_dict(self) -> Dict[str, object]:
        """Everything as JSON-ready values (lists of numbers; None where not computed)."""
        def lst(a):
            return None if a is None else a.tolist()
        return {
            "rules": self.rules.name, "seat": self.seat, "team": self.team,
            "dealer": self.dealer, "hand": format_hand(self.hand), "samples": self.samples,
            "seed": self.seed, "method": self.method, "primary": self.primary,
            "auction": [A.action_to_str(a) for a in self.auction], "coinche": self.coinche,
            "retourne": None if self.retourne is None else format_hand(1 << self.retourne),
            "strains": [STRAIN_NAMES[s] for s in self.strains],
            "levels": self.levels.tolist(), "legal": self.legal.tolist(),
            "dd_points_mean": None if self.dd_points is None else self.dd_points.mean(1).tolist(),
            "heur_points_mean": None if self.heur_points is None
            else self.heur_points.mean(1).tolist(),
            "nn_points_mean": None if self.nn_points is None else self.nn_points.mean(1).tolist(),
            "p_make": lst(self.p_make), "expected_score": lst(self.expected_score),
            "p_make_dd": lst(self.p_make_dd), "expected_score_dd": lst(self.expected_score_dd),
            "p_make_heur": lst(self.p_make_heur),
            "expected_score_heur": lst(self.expected_score_heur),
            "p_make_nn": lst(self.p_make_nn), "expected_score_nn": lst(self.expected_score_nn),
            "nn_player": self.nn_player,
            "suggested_bid": _bid_dict(self.suggested_bid),
            "highest_positive_bid": _bid_dict(self.highest_positive_bid),
            "dd_points": lst(self.dd_points), "heur_points": lst(self.heur_points),
            "seconds": dict(self.seconds), "ci95": lst(self.ci95),
            "pass": None if self.pass_scores is None else {
                "expected_score": self.pass_expected, "p_taken": list(self.p_taken)},
        }


def _bid_dict(bid):
    if bid is None:
        return None
    return {"value": bid[0], "strain": STRAIN_NAMES[bid[1]], "text": _bid_name(*bid)}


def suggest_bid(levels: np.ndarray, strains: Sequence[int], expected: np.ndarray,
                legal: np.ndarray, rule: str = "best",
                baseline: float = 0.0) -> Optional[Tuple[int, int]]:
    """The contract to bid by an evaluation; None when no legal contract has an expected
    score above ``baseline`` (0; belote for two players: passing's). ``rule="best"``: the legal contract with the best expected score
    (the lower level on a tie, then the first strain); ``"highest"``: the highest legal
    level with a positive expected score, at that level the best strain."""
    ok = legal & (expected > baseline)
    if not ok.any():
        return None
    if rule == "best":
        ev = np.where(ok, expected, -np.inf)
        best = ev.max()
        for k in np.argsort(levels, kind="stable"):
            rows = np.flatnonzero(ev[:, k] == best)
            if len(rows):
                return int(levels[k]), int(strains[rows[0]])
    if rule != "highest":
        raise ValueError(f"rule {rule!r}: expected 'best' or 'highest'")
    k = max(np.flatnonzero(ok.any(axis=0)), key=lambda i: levels[i])
    rows = np.flatnonzero(ok[:, k])
    j = rows[int(np.argmax(expected[rows, k]))]
    return int(levels[k]), int(strains[j])


# ====================================================================== input checks
def _strain_id(s) -> int:
    if isinstance(s, str):
        t = s.strip().upper()
        t = {"SA": "NT", "TA": "AT"}.get(t, t)
        if t not in STRAIN_NAMES:
            raise EvaluationError(f"unknown strain {s!r}: expected one of {', '.join(STRAIN_NAMES)}")
        return STRAIN_NAMES.index(t)
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s < 6:
        raise EvaluationError(f"strain {s!r} must be 0..5 or a name ({', '.join(STRAIN_NAMES)})")
    return int(s)


def _strains(rules: RuleSet, strains) -> Tuple[int, ...]:
    allowed = rules.allowed_strains
    if strains is None:
        return tuple(allowed)
    if isinstance(strains, str):
        strains = [x for x in strains.replace(",", " ").split() if x]
    elif isinstance(strains, (int, np.integer)):
        strains = [strains]
    out = []
    for s in strains:
        sid = _strain_id(s)
        if sid not in allowed:
            raise EvaluationError(f"strain {STRAIN_NAMES[sid]} is not allowed by rules "
                                  f"{rules.name!r}: allowed: {', '.join(STRAIN_NAMES[x] for x in allowed)}")
        if sid not in out:
            out.append(sid)
    if not out:
        raise EvaluationError("strains is empty: name at least one strain, or None for all")
    return tuple(out)


def _seat(v, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < N_SEATS:
        raise EvaluationError(f"{name} must be a seat 0..3, not {v!r}")
    return int(v)


def _auction_ids(auction) -> Tuple[int, ...]:
    if auction is None:
        return ()
    if isinstance(auction, str):
        auction = [t for t in auction.replace(",", " ").split() if t]
    out = []
    for k, a in enumerate(auction):
        if isinstance(a, str):
            try:
                a = A.parse_action(a)
            except InvalidNotationError as e:
                raise EvaluationError(f"auction[{k}]: {e}") from None
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < A.N_ACTIONS:
            raise EvaluationError(f"auction[{k}]: {a!r} is not an action id 0..{A.N_ACTIONS - 1} "
                                  f"or text such as '80H' or 'pass'")
        out.append(int(a))
    return tuple(out)


def _replay_auction(rules: RuleSet, seat: int, dealer: int, auction: Tuple[int, ...],
                    hands: np.ndarray, deck: Optional[np.ndarray], strains, levels):
    """Replay ``auction`` on one world (bids do not depend on the hidden cards) and
    return ``(legal, state)``: ``legal`` (bool[S, L]) the contracts ``seat`` may bid now,
    ``state`` the engine state after the auction (its seat to act unchanged)."""
    from ..game import Deal, IllegalActionError
    d = (Deal(rules, deck=[int(c) for c in deck], dealer=dealer) if deck is not None
         else Deal(rules, hands=[int(h) for h in hands], dealer=dealer))
    for k, a in enumerate(auction):
        if d.phase != "auction":
            raise EvaluationError(f"auction[{k}] {A.action_to_str(a)!r}: the auction ended "
                                  f"before it ({str(d.contract) if d.contract else 'all passed'})")
        try:
            d.apply(a)
        except IllegalActionError as e:
            raise EvaluationError(f"auction[{k}]: {e}") from None
    if d.phase != "auction":
        raise EvaluationError(
            "the auction is over (" + (str(d.contract) if d.contract else "every seat passed")
            + "): evaluate a hand before the auction ends (give the actions so far)")
    S = d.state.copy()
    after = S.copy()
    set_current_seat(S, seat)
    P = d.params
    legal = np.zeros((len(strains), len(levels)), dtype=bool)
    classic = rules.family == "classic"
    for j, st in enumerate(strains):
        for k, v in enumerate(levels):
            if classic:
                if prise_round(S) == 1:   # round 1 takes the retourne's suit
                    a = A.TAKE if st == int(retourne_of(S)) >> 3 else -1
                else:
                    a = A.NAME_BASE + st
            elif v == CAPOT:
                a = A.capot_action(st)
            else:
                a = A.bid_action(int(v), st)
            legal[j, k] = a >= 0 and bool(is_legal(S, P, a))
    return legal, after


def _nn_evaluation(rules, seat, dealer, hand_m, auction_t, ret, strains_t, levels, legal, after,
                   bid_weights, nn_player) -> HandEvaluation:
    """``evaluate_hand(method="nn")``: the bidding network on the seat's decision."""
    if int(current_seat(after)) != seat:
        raise EvaluationError(f"method 'nn' reads seat {seat}'s auction decision, but after "
                              f"the auction given it is seat {int(current_seat(after))}'s turn: give "
                              f"the auction up to seat {seat}'s turn")
    t0 = time.perf_counter()
    try:
        net = load_bid_net(bid_weights, rules, nn_player)
    except (NeuralError, ValueError) as e:
        raise EvaluationError(f"method 'nn': {e}") from None
    ev, pm = net.contracts(rules, after, strains_t, levels)
    ev = ev.astype(np.float64)
    pm = pm.astype(np.float64)
    empty = np.zeros((0, N_SEATS), dtype=np.int64)
    return HandEvaluation(
        rules=rules, seat=seat, dealer=dealer, hand=hand_m, samples=0, seed=0, method="nn",
        auction=auction_t, coinche=0, retourne=ret, strains=strains_t, levels=frozen(levels),
        legal=frozen(legal), hands=frozen(empty), decks=None, dd_points=None,
        heur_points=None, dd_scores=None, heur_scores=None, dd_made=None, heur_made=None,
        p_make_dd=None, expected_score_dd=None, p_make_heur=None, expected_score_heur=None,
        p_make=frozen(pm), expected_score=frozen(ev),
        suggested_bid=suggest_bid(levels, strains_t, ev, legal),
        seconds={"nn": time.perf_counter() - t0}, p_make_nn=frozen(pm.copy()),
        expected_score_nn=frozen(ev.copy()), nn_player=nn_player)


# ====================================================================== workspaces
_POOL: List[np.ndarray] = []
_POOL_LOCK = threading.Lock()
#: solver table size of the kept workspaces (2**17 buckets: 8 MiB each)
TT_BITS = 17


def _take_workspaces(n: int) -> List[np.ndarray]:
    with _POOL_LOCK:
        out = [_POOL.pop() for _ in range(min(n, len(_POOL)))]
    while len(out) < n:
        out.append(Solver(TT_BITS, keep_table=True).W)
    return out


def _give_back(ws: List[np.ndarray]) -> None:
    with _POOL_LOCK:
        _POOL.extend(ws)
        del _POOL[8:]


# ====================================================================== the evaluation
#: ``_check_int(v, name, lo, hi=None)``: ``int(v)``, or :class:`EvaluationError`
_check_int = partial(check_int, error=EvaluationError,
                     message="{name} must be an int {range}, not {value!r}", span="{lo}..{hi}")


def _bid_constraints(rules: RuleSet, seat: int, dealer: int, auction: Tuple[int, ...],
                     k: int) -> Dict[Tuple[int, int], int]:
    """``{(bidder, suit): k}`` for every other seat that bid a suit."""
    out: Dict[Tuple[int, int], int] = {}
    if k <= 0 or rules.family == "classic":
        return out
    for i, a in enumerate(auction):
        bidder = seat_after(dealer, 1 + i)
        if bidder != seat and (A.is_bid(a) or A.is_capot(a)) and A.bid_strain(a) < 4:
            out[(bidder, A.bid_strain(a))] = k
    return out


_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _draw_worlds(sampler: WorldSampler, n: int, seed: int, stock: bool,
                 constraints: Dict[Tuple[int, int], int]) -> np.ndarray:
    """``n`` uniform worlds; with ``constraints`` the first ``n`` of the sampler's stream
    (seed ``seed``) that satisfy them (exact rejection: uniform over those worlds)."""
    if not constraints:
        return sampler.sample(n, seed, stock=stock)
    want = n
    tries = max(4 * n, 64)
    while True:
        w = sampler.sample(tries, seed, stock=stock)
        ok = np.ones(len(w), dtype=bool)
        for (bidder, suit), k in constraints.items():
            ok &= _POP8[(w[:, bidder] >> (8 * suit)) & 0xFF] >= k
        good = w[ok]
        if len(good) >= want:
            return good[:want].copy()
        if tries >= 2000 * max(n, 1):
            raise EvaluationError(
                f"min_suit_length: only {len(good)} of {tries} worlds give every bidder the "
                f"suit length asked ({', '.join(f'seat {b} {k}+ {STRAIN_NAMES[s]}' for (b, s), k in constraints.items())}): "
                f"lower min_suit_length")
        tries *= 4


def evaluate_hand(rules: Union[str, RuleSet], seat: int, hand, dealer: int, samples: int = 500,
                  seed: int = 0, strains=None, method: str = "both", holds=None, lacks=None,
                  auction: Sequence = (), progress: Union[bool, Callable] = False, *,
                  coinche: int = 0, retourne=None, min_suit_length: int = 0,
                  threads: int = 1, bid_weights: str = "", nn_player: str = "nn",
                  other_up=None) -> HandEvaluation:
    """Monte Carlo evaluation of ``hand`` held by ``seat`` as the contract of its team
    (see the module docstring). With the rules of belote for two players, the options of
    player ``seat`` at his turn in the prise (:func:`.evaluation_two.prise_view`: ``hand``
    his 6 cards in hand with ``retourne``, or in belote découverte his 8 face-up cards in
    stack order with ``other_up``; ``auction`` the prise so far), by heuristic play.

    :param rules: a preset name or a :class:`~coinche_rl.rules.RuleSet`.
    :param seat: the seat holding ``hand`` (0..3), the taker of every contract.
    :param hand: a card mask, text such as ``"JH 9H AH TH 7S 8D KC QC"`` or a list of
        cards: 8 cards (classic family: 5 during the prise with ``retourne``, or 8).
    :param dealer: the dealer (0..3); the seat after the dealer leads the first trick.
    :param samples: number of worlds (drawn uniformly, independently).
    :param seed: the worlds depend only on ``(seed, their index)`` and the constraints.
    :param strains: strain ids or names (``"H,S"``); default every strain of the rules.
    :param method: ``"dd"``, ``"heuristic"``, ``"both"`` or ``"nn"`` (the bidding network:
        no worlds, ``samples`` and ``seed`` unused; belote for two players: ``"heuristic"``
        (= ``"both"``) or ``"nn"``, the same worlds with the shipped card-play network
        playing the cards).
    :param holds: ``{seat: cards}`` each seat is known to hold (e.g. ``{2: "AS"}``).
    :param lacks: ``{seat: cards}`` each seat is known not to hold.
    :param auction: the auction so far (action ids or text, in order from the seat after
        the dealer; or one string ``"80H pass"``), replayed and checked by the engine.
    :param progress: True for a progress bar (rich when installed, else plain lines on
        stderr), or a callable ``fn(method, done, total)``.
    :param coinche: coinche level of every evaluated contract (0, 1 coinched, 2
        surcoinched; coinche family).
    :param retourne: classic family: the turned-up card (see the module docstring).
    :param min_suit_length: every other seat that bid a suit holds at least this many
        cards of it (0: the auction does not constrain the worlds).
    :param threads: worlds evaluated on this many threads at once (the numba kernels
        release the GIL); the results do not depend on it.
    :param bid_weights: ``method="nn"``: a bidding weights file (default: the weights
        shipped for the preset).
    :param nn_player: ``method="nn"``: the card player of the network's heads
        (``"nn"`` or ``"heuristic"``).
    :param other_up: belote découverte: the other player's 8 face-up cards.
    :raises EvaluationError: for a bad argument, impossible ``holds`` / ``lacks`` or an
        illegal or finished auction (the message says what is wrong and what would be
        right).
    :raises UnknownPresetError: for an unknown preset name (lists the valid ones).
    """
    try:
        rules = get_rules(rules)
    except TypeError as e:
        raise EvaluationError(str(e)) from None
    return _EVALUATIONS[rules.family].hand(
        rules, seat, hand, dealer, samples, seed, strains=strains, method=method, holds=holds,
        lacks=lacks, auction=auction, progress=progress, coinche=coinche, retourne=retourne,
        min_suit_length=min_suit_length, threads=threads, bid_weights=bid_weights,
        nn_player=nn_player, other_up=other_up)


def _prise_hand(rules: RuleSet, seat: int, hand, dealer: int, samples: int, seed: int, *,
                method: str, auction: Sequence, retourne, nn_player: str, other_up, progress,
                threads: int, **options) -> HandEvaluation:
    """:func:`evaluate_hand` of belote for two players: the options of the prise (the
    four-player ``options`` refused when given)."""
    unused = [name for name, v in options.items() if v]
    if method not in ("both", "heuristic", "nn"):
        unused.append(f"method {method!r}")
    if method == "nn" and nn_player != "nn":
        unused.append(f"nn_player {nn_player!r}")
    if unused:
        raise EvaluationError(f"{', '.join(unused)}: not for belote for two players (its "
                              f"evaluation plays the prise's options out, by the heuristic "
                              f"or with method 'nn' the card-play network)")
    samples = _check_int(samples, "samples", 1)
    try:
        view = prise_view(rules, seat, hand, dealer, retourne, other_up, _auction_ids(auction))
    except ValueError as e:
        raise EvaluationError(str(e)) from None
    return _prise_evaluation(view, samples, _check_int(seed, "seed", 0, 2 ** 63 - 1),
                             nn=method == "nn")


def _auction_hand(rules: RuleSet, seat: int, hand, dealer: int, samples: int, seed: int, *,
                  strains, method: str, holds, lacks, auction: Sequence, progress, coinche: int,
                  retourne, min_suit_length: int, threads: int, bid_weights: str,
                  nn_player: str, other_up) -> HandEvaluation:
    """:func:`evaluate_hand` with four players: the contracts of the auction (the classic
    prise's included)."""
    if other_up is not None:
        raise EvaluationError("other_up is for belote_decouverte (the other player's table cards)")
    seat = _seat(seat, "seat")
    dealer = _seat(dealer, "dealer")
    samples = _check_int(samples, "samples", 1)
    seed = _check_int(seed, "seed", 0, 2 ** 63 - 1)
    coinche = _check_int(coinche, "coinche", 0, 2)
    threads = _check_int(threads, "threads", 1, 256)
    min_suit_length = _check_int(min_suit_length, "min_suit_length", 0, 8)
    if method not in METHODS:
        raise EvaluationError(f"method {method!r} is not valid: expected one of "
                              f"{', '.join(map(repr, METHODS))}")
    classic = rules.family == "classic"
    if classic and coinche:
        raise EvaluationError("the classic family has no coinche: leave coinche=0")
    if method == "nn":
        if coinche:
            raise EvaluationError("method 'nn' values uncoinched contracts: leave coinche=0")
        if min_suit_length or holds or lacks:
            raise EvaluationError("method 'nn' draws no worlds: holds, lacks and "
                                  "min_suit_length are for 'dd' / 'heuristic'")
        if nn_player not in ("nn", "heuristic"):
            raise EvaluationError(f"nn_player {nn_player!r}: expected 'nn' or 'heuristic'")
        samples = 1
    hand_m = cards_mask(hand, "hand", EvaluationError)
    n_cards = bin(hand_m).count("1")
    strains_t = _strains(rules, strains)
    levels = contract_levels(rules)
    auction_t = _auction_ids(auction)
    ret = None
    if retourne is not None:
        if isinstance(retourne, str):
            try:
                retourne = parse_card(retourne)
            except InvalidNotationError as e:
                raise EvaluationError(f"retourne: {e}") from None
        ret = _check_int(retourne, "retourne", 0, N_CARDS - 1)
    if classic:
        if n_cards not in (CLASSIC_FIRST_HAND, CARDS_PER_HAND):
            raise EvaluationError(
                f"hand {format_hand(hand_m)!r} has {n_cards} cards: a classic-family hand has "
                f"5 cards (the prise, with retourne=) or 8 (the deal after the prise)")
        prise = n_cards == CLASSIC_FIRST_HAND
        if prise and ret is None:
            raise EvaluationError("a 5-card classic hand needs the retourne (retourne='JH'): "
                                  "the taker receives it")
        if prise and hand_m >> ret & 1:
            raise EvaluationError(f"the retourne {format_hand(1 << ret)!r} is in the 5-card hand")
        if not prise:
            if ret is None:
                ret = (hand_m & -hand_m).bit_length() - 1
            elif not hand_m >> ret & 1:
                raise EvaluationError(f"retourne {format_hand(1 << ret)!r}: after the prise the "
                                      f"taker holds the retourne, and it is not in the hand "
                                      f"{format_hand(hand_m)!r}")
            if auction_t:
                raise EvaluationError("an 8-card classic hand is the deal after the prise: give "
                                      "no auction (or the 5-card hand with retourne= and the "
                                      "prise so far)")
    else:
        if n_cards != CARDS_PER_HAND:
            raise EvaluationError(
                f"hand {format_hand(hand_m)!r} has {n_cards} cards: a {rules.name!r} hand has "
                f"8 cards, e.g. 'JH 9H AH TH 7S 8D KC QC'")
        if ret is not None:
            raise EvaluationError("retourne is for the classic family only")
        prise = False
    _say_if_compiling(method)
    try:
        sampler = WorldSampler.from_hand(rules, seat, hand_m, dealer,
                                         retourne=ret if prise else None, holds=holds,
                                         lacks=lacks)
        if sampler.count == 0:
            raise NoConsistentWorld("no deal satisfies the hand and the holds / lacks constraints")
        constraints = _bid_constraints(rules, seat, dealer, auction_t, min_suit_length)
        worlds = _draw_worlds(sampler, samples, seed, prise, constraints)
    except SamplerError as e:
        raise EvaluationError(str(e)) from None
    P = params_vector(rules)
    if classic:
        decks = np.empty((samples, N_CARDS), dtype=np.int64)
        _classic_decks(worlds, prise, ret, seat, dealer, np.uint64(seed), decks)
        hands = np.zeros((samples, N_SEATS), dtype=np.int64)
    else:
        decks = np.zeros((samples, N_CARDS), dtype=np.int64)
        hands = np.ascontiguousarray(worlds[:, :N_SEATS])
    if classic and not prise:   # after the prise: the seat took, in any strain
        if method == "nn":
            raise EvaluationError("method 'nn' evaluates an auction decision: give the 5-card "
                                  "hand of the prise with retourne=")
        legal = np.ones((len(strains_t), len(levels)), dtype=bool)
    else:
        legal, after = _replay_auction(rules, seat, dealer, auction_t, hands[0],
                                       decks[0] if classic else None, strains_t, levels)
    if method == "nn":
        return _nn_evaluation(rules, seat, dealer, hand_m, auction_t, ret, strains_t, levels,
                              legal, after, bid_weights, nn_player)
    if classic:   # the four hands as played (the taker receives the retourne)
        S = np.empty(STATE_SIZE, dtype=np.int64)
        for i in range(samples):
            _start(S, P, hands[i], decks[i], True, dealer, 0, strains_t[0], 0, seat)
            hands[i] = [py.hand_of(S, p) for p in range(N_SEATS)]
    st = np.array(strains_t, dtype=np.int64)
    ns, nl = len(st), len(levels)
    do_dd = method in ("dd", "both")
    do_h = method in ("heuristic", "both")
    totals = {}
    if do_dd:
        totals["dd"] = samples
    if do_h:
        totals["heuristic"] = samples
    bar = TaskProgress(progress, totals, "evaluate {task:9s}", unit="worlds")
    seconds: Dict[str, float] = {}
    res = {}
    try:
        if do_h:
            t0 = time.perf_counter()
            pts = np.zeros((ns, samples), dtype=np.int64)
            sc = np.zeros((ns, nl, samples), dtype=np.int64)
            mk = np.zeros((ns, nl, samples), dtype=np.int64)
            chunk = 128

            def run_h(a):
                b = min(a + chunk, samples)
                r = _heur_chunk(P, hands, decks, classic, seat, dealer, st, levels, coinche,
                                a, b, pts, sc, mk)
                if r:
                    raise RuntimeError(f"the heuristic bot chose an illegal action in world {r - 1}")
                return b - a
            _run_chunks(run_h, range(0, samples, chunk), threads, lambda n: bar.advance("heuristic", n))
            seconds["heuristic"] = time.perf_counter() - t0
            res["heur"] = (pts.astype(np.float64), sc, mk)
        if do_dd:
            t0 = time.perf_counter()
            pts = np.zeros((ns, samples), dtype=np.int64)
            sc = np.zeros((ns, nl, samples), dtype=np.int64)
            mk = np.zeros((ns, nl, samples), dtype=np.int64)
            syn = np.zeros((ns, nl, samples), dtype=np.int64)
            n_thr = min(threads, samples)
            chunk = max(1, min(8, math.ceil(samples / (4 * n_thr))))
            workspaces = _take_workspaces(n_thr)
            free = list(workspaces)
            lock = threading.Lock()

            def run_dd(a):
                with lock:
                    W = free.pop()
                try:
                    b = min(a + chunk, samples)
                    _dd_chunk(W, P, hands, decks, classic, seat, dealer, st, levels, coinche,
                              a, b, pts, sc, mk, syn)
                finally:
                    with lock:
                        free.append(W)
                return b - a
            try:
                _run_chunks(run_dd, range(0, samples, chunk), n_thr,
                            lambda n: bar.advance("dd", n))
            finally:
                _give_back(workspaces)
            seconds["dd"] = time.perf_counter() - t0
            res["dd"] = (pts.astype(np.float64), sc, mk)
    finally:
        bar.close()

    def summary(key):
        if key not in res:
            return None, None, None, None, None
        pts, sc, mk = res[key]
        return pts, sc, mk, (mk == 1).mean(axis=2), sc.mean(axis=2)

    dpts, dsc, dmk, dp, de = summary("dd")
    hpts, hsc, hmk, hp, he = summary("heur")
    p_make, exp = (dp, de) if do_dd else (hp, he)
    return HandEvaluation(
        rules=rules, seat=seat, dealer=dealer, hand=hand_m, samples=samples, seed=seed,
        method=method, auction=auction_t, coinche=coinche, retourne=ret, strains=strains_t,
        levels=frozen(levels), legal=frozen(legal), hands=frozen(hands),
        decks=frozen(decks) if classic else None,
        dd_points=frozen(dpts), heur_points=frozen(hpts), dd_scores=frozen(dsc),
        heur_scores=frozen(hsc), dd_made=frozen(dmk), heur_made=frozen(hmk),
        p_make_dd=frozen(dp), expected_score_dd=frozen(de), p_make_heur=frozen(hp),
        expected_score_heur=frozen(he), p_make=p_make, expected_score=exp,
        suggested_bid=suggest_bid(levels, strains_t, exp, legal), seconds=seconds,
        threads=threads)


def evaluate_view(view, samples: int = 500, seed: int = 0, method: Optional[str] = None,
                  **options) -> HandEvaluation:
    """The evaluation of the decision in front of the player whose view this is, from what
    he knows, in every family: a four-player :class:`~coinche_rl.agents.PlayerView` in the
    auction (his hand, the auction so far, the classic prise's retourne:
    :func:`evaluate_hand` with ``method`` and ``options``), or a two-player view at his
    turn in the prise (its options played out by the heuristic, or with ``method="nn"``
    the cards by the shipped card-play network; ``options``: ``bot``, a heuristic bot id).

    :raises EvaluationError: another object, or not his turn in the auction (prise).
    """
    from ..two_player import TwoPlayerView
    from .base import PlayerView
    if not isinstance(view, (PlayerView, TwoPlayerView)):
        raise EvaluationError(f"expected a player's view (PlayerView or TwoPlayerView), not "
                              f"{type(view).__name__}")
    return _EVALUATIONS[view.rules.family].view(view, samples, seed, method, **options)


def _prise_view(view, samples: int, seed: int, method: Optional[str],
                **options) -> HandEvaluation:
    """:func:`evaluate_view` of belote for two players: his options in the prise."""
    if method not in (None, "both", "heuristic", "nn") or set(options) - {"bot"}:
        raise EvaluationError("belote for two players: the prise's evaluation is heuristic "
                              "or network play (methods heuristic, nn; options: samples, "
                              "seed, bot)")
    return _prise_evaluation(view, _check_int(samples, "samples", 1),
                             _check_int(seed, "seed", 0, 2 ** 63 - 1), options.get("bot"),
                             nn=method == "nn")


def _auction_view(view, samples: int, seed: int, method: Optional[str],
                  **options) -> HandEvaluation:
    """:func:`evaluate_view` with four players: the seat's hand in the auction."""
    info = view.information_set
    if info.phase != "auction" or info.current_player != view.seat:
        raise EvaluationError(f"the evaluation is for a seat at its turn in the auction; this "
                              f"view is seat {view.seat}'s in the {info.phase}")
    return evaluate_hand(view.rules, view.seat, info.hand, info.dealer, samples, seed,
                         method=method or "both", auction=[a for _, a in info.auction],
                         retourne=info.retourne if info.retourne is not None and
                         bin(info.hand).count("1") == CLASSIC_FIRST_HAND else None, **options)


def _prise_evaluation(view, samples: int, seed: int, bot=None,
                      nn: bool = False) -> HandEvaluation:
    """Belote for two players: the options of ``view.player`` at his turn in the prise
    (:func:`.evaluation_two.play_prise`) as a :class:`HandEvaluation`: one strain row per
    suit he may take or name, the one level ``take``, and the pass (``pass_scores``);
    ``nn``: the cards played by the card-play network shipped for the rules, the rest of
    the prise and the exchange by its prise network where one ships (as ``nn`` plays)."""
    net = bid_net = None
    if nn:
        try:
            net = load_play_net("", view.rules)
            bid_net = load_bid_net("", view.rules, required=False)
        except NeuralError as e:
            raise EvaluationError(f"method 'nn': {e}") from None
    try:
        strains, legal, diff, made, taker, pts, decks, hands, seconds = play_prise(
            view, samples, seed, bot, net, bid_net)
    except ValueError as e:
        raise EvaluationError(str(e)) from None
    scores = diff[:, :-1].T[:, None, :].copy()          # [S, 1, N], as every evaluation
    mk = made[:, :-1].T[:, None, :].copy()
    p_make, expected = (mk == 1).mean(axis=2), scores.mean(axis=2)
    legal = np.array(legal, dtype=bool)[:, None]
    levels = np.array([TAKE_LEVEL], dtype=np.int64)
    passing = diff[:, -1].copy()
    points = frozen(pts[:, :-1].T.astype(np.float64))
    h = {} if nn else dict(heur_points=points, heur_scores=frozen(scores), heur_made=frozen(mk),
                           p_make_heur=frozen(p_make), expected_score_heur=frozen(expected))
    n = {} if not nn else dict(nn_points=points, nn_scores=frozen(scores), nn_made=frozen(mk),
                               p_make_nn=frozen(p_make), expected_score_nn=frozen(expected),
                               nn_player="nn")
    return HandEvaluation(
        rules=view.rules, seat=int(view.player), dealer=int(view.dealer),
        hand=int(view.hand | view.table_up[view.player]), samples=samples, seed=seed,
        method="nn" if nn else "heuristic", auction=tuple(view.prise), coinche=0,
        retourne=int(view.retourne), strains=tuple(strains), levels=frozen(levels),
        legal=frozen(legal), hands=frozen(hands), decks=frozen(decks), dd_points=None,
        heur_points=h.pop("heur_points", None), dd_scores=None,
        heur_scores=h.pop("heur_scores", None), dd_made=None, heur_made=h.pop("heur_made", None),
        p_make_dd=None, expected_score_dd=None, p_make_heur=h.pop("p_make_heur", None),
        expected_score_heur=h.pop("expected_score_heur", None), p_make=p_make,
        expected_score=expected,
        suggested_bid=suggest_bid(levels, strains, expected, legal, baseline=float(passing.mean())),
        seconds={"nn" if nn else "heuristic": seconds}, pass_scores=frozen(passing),
        pass_takers=frozen(taker[:, -1].copy()), **n)


def _say_if_compiling(method: str) -> None:
    """Say (once per process) when the kernels of ``method`` are not compiled or cached:
    on a fresh numba cache they compile before the first world is played, and a progress
    bar standing still at 0 for a minute would look like a hang."""
    if method == "nn":
        compile_notice("the bidding network's inputs", (bid_inputs,), "about 5-15 s")
    else:
        main = {"dd": (_dd_chunk,), "heuristic": (_heur_chunk,)}.get(method,
                                                                   (_dd_chunk, _heur_chunk))
        compile_notice("the hand evaluation", main,
                       "about 15-30 s" if method == "heuristic" else "about 40-80 s")


def _prepare_auction(method: str) -> None:
    """:func:`prepare_evaluation` with four players: ``method="both"`` (double-dummy and
    heuristic play) compiles its two sets of kernels in two processes at once (the
    notice of one method is :func:`_say_if_compiling`'s, in the evaluation)."""
    if method != "both" or nc.usable_cores() < 2 or not nc.needs_compiling(__name__):
        return
    compile_notice("the hand evaluation", (_dd_chunk, _heur_chunk),
                   "about 30-60 s in two processes")
    nc.warm_in_processes([[f"{__name__}:warmup_dd"], [f"{__name__}:warmup_heuristic"]])


def _prepare_prise(method: str) -> None:
    """:func:`prepare_evaluation` of belote for two players: the notice."""
    compile_notice("the hand evaluation", (evaluation_two._world_states,
                                           evaluation_two._outcomes), "about 10-30 s")


@dataclass(frozen=True)
class _FamilyEvaluation:
    """How the decisions of a family's bidding are evaluated: ``hand`` and ``view`` do
    :func:`evaluate_hand`'s and :func:`evaluate_view`'s work (the rules or the view of
    the family), ``methods`` are the methods it takes, ``prepare`` is
    :func:`prepare_evaluation`'s."""

    hand: Callable[..., HandEvaluation]
    view: Callable[..., HandEvaluation]
    methods: Tuple[str, ...]
    prepare: Callable[[str], None]


_AUCTION = _FamilyEvaluation(_auction_hand, _auction_view, METHODS, _prepare_auction)
#: the evaluation of each rule family
_EVALUATIONS: Dict[str, _FamilyEvaluation] = {
    "coinche": _AUCTION, "classic": _AUCTION,
    "two": _FamilyEvaluation(_prise_hand, _prise_view, ("both", "heuristic", "nn"),
                             _prepare_prise)}
assert set(_EVALUATIONS) == set(R.FAMILY_PRESETS)


def evaluation_methods(rules: Union[str, RuleSet]) -> Tuple[str, ...]:
    """The ``method`` values :func:`evaluate_hand` takes under ``rules`` (belote for two
    players: no double-dummy play).

    >>> evaluation_methods("ffb"), evaluation_methods("belote_a_deux")
    (('dd', 'heuristic', 'both', 'nn'), ('both', 'heuristic', 'nn'))
    """
    return _EVALUATIONS[get_rules(rules).family].methods


def prepare_evaluation(rules: Union[str, RuleSet], method: str) -> None:
    """On a fresh numba cache, before an evaluation under ``rules`` by ``method``
    (``coinche-rl evaluate``): say that its kernels compile and, with four players and
    ``method="both"`` on two cores or more, compile the two methods' kernels in two
    processes at once."""
    _EVALUATIONS[get_rules(rules).family].prepare(method)


def _run_chunks(fn, starts, threads: int, done: Callable[[int], None]) -> None:
    """``fn(start)`` for every chunk start, on ``threads`` threads; ``done(n)`` after
    each chunk (in this thread)."""
    starts = list(starts)
    if threads <= 1 or len(starts) <= 1:
        for a in starts:
            done(fn(a))
        return
    with ThreadPoolExecutor(max_workers=threads) as ex:
        futures = [ex.submit(fn, a) for a in starts]
        try:
            for f in futures:
                done(f.result())
        except BaseException:
            for f in futures:
                f.cancel()
            raise


# ====================================================================== warmup
def _warm(method: str) -> None:
    evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", 3, samples=1, strains="H", method=method)
    evaluate_hand("classic", 0, "JH 9H AH TH 7S", 3, samples=1, strains="H", retourne="8H",
                  method=method)
    evaluate_hand("classic", 0, "JH 9H AH TH 7S 8D KC QC", 3, samples=1, strains="H",
                  method=method)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the solver's
#: search and the sampler, whose kernels its kernels call (in the solver's chain)
WARMUP_AFTER = ("coinche_rl.solver:warmup_search", "coinche_rl.agents.sampler")


def warmup() -> None:
    """Compile (or load from the numba cache) every kernel of this module."""
    _warm("both")


def warmup_dd() -> None:
    """The kernels of ``method="dd"`` (the solver's; ``coinche-rl evaluate`` compiles
    them in one process while :func:`warmup_heuristic` runs in another)."""
    _warm("dd")


def warmup_heuristic() -> None:
    """The kernels of ``method="heuristic"`` (the heuristic bot's)."""
    _warm("heuristic")
