"""Replay and analysis of records for the page (``coinche_rl.web.analysis``).

A record (:mod:`coinche_rl.records`, a deal or a match) is checked once by the
library's replay (every action, every stored figure), then any position of it is the
deal after its first ``step`` actions (:func:`deal_at`). Every action counts as a step,
the auction's and the card play's, a seat's own declare / belote choice included.

:func:`analyse` gives, at a position, one row per legal action with the library's own
figures, for the team of the seat to act:

* ``dd``: the double-dummy value, every hand known (:func:`coinche_rl.solver.move_values`,
  objective ``"score"``: the deal score difference after the best play of all four
  seats), and ``dd_points``, the card points the team ends with (objective
  ``"points"``); card play only;
* ``pimc``: the mean over the worlds of the PIMC agent's values
  (:meth:`coinche_rl.agents.pimc.PIMCAgent.card_values`: worlds drawn from the seat's
  information set, each solved double dummy, objective ``"score"``), with the number
  of worlds; card play only;
* ``nn``: the ``nn`` agent's value (:func:`coinche_rl.agents.neural.agent.nn_values`):
  the card network's, or in the auction the bidding network's ``q`` with its heads
  ``ev`` (expected deal score) and ``p_made`` (probability that the contract is made);
* in the auction, ``mc_ev`` and ``mc_p_made`` of each bid: the Monte Carlo hand
  evaluation of the seat's hand (:func:`coinche_rl.agents.evaluation.evaluate_view`: his
  hand and the auction so far; method :data:`EVAL_METHOD`, as many worlds as the PIMC
  column, the analysis seed): the expected deal score of the seat's team and the share of worlds
  where the contract is made, were that bid the contract;
* the action each agent of a list would choose there (``heuristic``, ``nn``, the PIMC
  agent...): a fresh agent, reset at the seat with the analysis seed, told every public
  event of the deal so far, then asked (:meth:`~coinche_rl.agents.base.Agent.act`); for
  the PIMC agent, the choice over the very worlds whose values are shown
  (:func:`coinche_rl.agents.pimc.choose_action`, its tie rule included).

With two players (belote à deux, découverte) the same rows: ``dd_points`` is the
two-player solver's card points of the player to act
(:meth:`coinche_rl.solver_two.TwoPlayerSolver.move_values`, every card known, the
face-down ones included; it has no ``"score"`` objective, so no ``dd``), ``pimc`` the
mean card points over worlds drawn from his view
(:meth:`coinche_rl.agents.pimc.PIMCAgent.card_choice`, as with four players), both from the
trick where at most :data:`SEARCH_TRICKS` tricks are left (a note says so before); in
the prise ``mc_ev`` / ``mc_p_made`` of each option
(:func:`coinche_rl.agents.evaluation.evaluate_view`, heuristic play); ``nn`` where a
network ships for the preset (else a note says why not).

:func:`branch` plays a different action at a position and lets agents play the deal to
its end: a new deal record.

The rows come sorted by value, best first, after the column ``sorted_by`` names
(the ``nn`` value in the auction, else the hand evaluation's expected score; the PIMC
value in the play, else the double-dummy one); rows without it last, in action order.

The searches (solver, PIMC) run in a pool of :class:`Analyser` objects, one per allowed
concurrent search (each owns its solver table and its agents: nothing is shared between
threads).

>>> from coinche_rl.records import deal_to_record
>>> from coinche_rl.game import Deal
>>> d = Deal("ffb", seed=2, dealer=3).with_contract(90, "H", taker=0)
>>> while not d.is_terminal:
...     d.apply(d.legal_actions()[0])
>>> rec = deal_to_record(d)
>>> deal_at(rec, 0, 3).current_player, len(timeline(rec)[0]["moves"])
(3, 32)
"""

from __future__ import annotations

import contextlib
import queue
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .. import actions as A
from ..agents import AgentSpecError, available_agents, make_agent
from ..agents.base import PRIVATE_ACTIONS
from ..agents.evaluation import EvaluationError, evaluate_view, evaluation_methods
from ..agents.pimc import PIMC_GAMES
from ..engine.family import family_of
from ..game import BaseDeal, IllegalActionError
from ..records import (DEAL_FORMAT, MATCH_FORMAT, RecordError, deal_to_record, replay_deal,
                       replay_match)
from ..agents.evaluation import CAPOT, TAKE_LEVEL
from ..rules import STRAIN_NAMES, RuleSet
from .views import action_item, agent_view, contract_label

__all__ = ["RecordError", "AnalysisError", "checked_deals", "deal_at", "timeline", "analyse",
           "branch", "Analyser", "AnalyserPool", "DEFAULT_WORLDS", "MAX_WORLDS",
           "DEFAULT_CHOOSERS", "EVAL_METHOD", "SEARCH_TRICKS", "bid_contract", "sort_rows",
           "searched", "play_start"]

#: worlds of the PIMC column unless asked otherwise, and the most allowed
DEFAULT_WORLDS = 16
MAX_WORLDS = 256
#: the agents whose choice is shown (the PIMC agent is added with the analysis' worlds)
DEFAULT_CHOOSERS = ("heuristic", "nn")
#: the hand evaluation's method in the four-player auction's rows (double-dummy play of
#: each world; belote for two players has the heuristic's only)
EVAL_METHOD = "dd"
#: the searches (double dummy, PIMC) run when at most this many tricks are left: every
#: trick with four players, from trick 5 of belote for two players (a whole analysis
#: with 16 worlds on a 2-core machine, positions of heuristic play, the new two-player
#: solver: at trick 3 a median 0.98 s (à deux) / 0.55 s (découverte); at trick 4,
#: 0.37 / 0.19 s; at trick 5, 0.17 / 0.07 s, at most 0.64 s; the old solver needed
#: trick 7 for 0.1-0.3 s)
SEARCH_TRICKS = 12


class AnalysisError(ValueError):
    """A bad analysis or branch request (a deal index, a step, an action, an agent)."""


# ------------------------------------------------------------------- records
def checked_deals(rec: Any) -> Tuple[RuleSet, List[BaseDeal]]:
    """``(rules, deals)`` of a deal or match record, replayed and checked by
    :mod:`coinche_rl.records`.

    :raises RecordError: naming the first malformed, illegal or inconsistent field.
    """
    if not isinstance(rec, dict):
        raise RecordError(f"record: expected an object, got {type(rec).__name__}")
    fmt = rec.get("format")
    if fmt == DEAL_FORMAT:
        deal = replay_deal(rec)
        return deal.rules, [deal]
    if fmt == MATCH_FORMAT:
        m = replay_match(rec)
        return m["rules"], list(m["deals"])
    raise RecordError(f"format: expected {DEAL_FORMAT!r} or {MATCH_FORMAT!r}, got {fmt!r}")


def _deal_record(rec: Dict[str, Any], index: int) -> Tuple[Dict[str, Any], Optional[RuleSet]]:
    if rec.get("format") == MATCH_FORMAT:
        deals = rec.get("deals") or []
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(deals):
            raise AnalysisError(f"deal: expected 0..{len(deals) - 1} (the match has "
                                f"{len(deals)} deals), got {index!r}")
        return deals[index], None
    if isinstance(index, bool) or not isinstance(index, int) or index != 0:
        raise AnalysisError(f"deal: a deal record holds deal 0 only, got {index!r}")
    return rec, None


def deal_at(rec: Dict[str, Any], index: int, step: int) -> BaseDeal:
    """Deal ``index`` of a record after its first ``step`` actions (auction actions, then
    the play's cards and choices), the record checked first.

    :raises RecordError: a bad record. :raises AnalysisError: a bad index or step.
    """
    _, deals = checked_deals(rec)
    _deal_record(rec, index)
    full = deals[index]
    n = len(full.history)
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= n:
        raise AnalysisError(f"step: expected 0..{n} (the deal has {n} actions), got {step!r}")
    deal = _start_of(full)
    for a in full.history[:step]:
        deal.apply(int(a))
    return deal


def _moves(deal: BaseDeal) -> List[Tuple[int, int]]:
    """``(seat, action)`` of every action of a deal, replayed from its start."""
    start = _start_of(deal)
    out = []
    for a in deal.history:
        out.append((start.current_player, int(a)))
        start.apply(int(a))
    return out


def _start_of(deal: BaseDeal) -> BaseDeal:
    """A deal as ``deal`` started: the same hands (deck), dealer and skipped auction (of
    any family: its record's action lists emptied)."""
    rec = deal_to_record(deal)
    empty = {k: [] for k in ("auction", "prise", "plays") if k in rec}
    return replay_deal(dict(rec, **empty), deal.rules, check=False)


def play_start(deal: BaseDeal) -> int:
    """The step where the card play starts: the actions before the first card."""
    return next((i for i, a in enumerate(deal.history) if A.is_card(int(a))),
                len(deal.history))


def timeline(rec: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Per deal of a record: the dealer, its actions as ``{"seat", "action", "step"}``
    (``step``: the position after it), where the play starts, and the scores.

    :raises RecordError: a bad record.
    """
    _, deals = checked_deals(rec)
    out = []
    for deal in deals:
        moves = _moves(deal)
        out.append({"dealer": deal.dealer, "play_starts": play_start(deal),
                    "moves": [{"seat": s, "action": A.action_to_str(a), "step": i + 1}
                              for i, (s, a) in enumerate(moves)],
                    "scores": list(deal.scores) if deal.is_terminal else None,
                    "contract": contract_label(deal)})
    return out


# ------------------------------------------------------------------ analysis
def bid_contract(a: int, deal: BaseDeal) -> Optional[Tuple[int, int]]:
    """``(level, strain)`` of the contract a bidding action ``a`` would make in ``deal``
    (the levels of :func:`coinche_rl.agents.evaluation.contract_levels`: a bid's value,
    the capot's, 0 for the classic prise's take and name), or None (pass, coinche...)."""
    if A.BID_BASE <= a < A.CAPOT_BASE:
        return A.bid_value(a), A.bid_strain(a)
    if A.CAPOT_BASE <= a < A.COINCHE:
        return CAPOT, a - A.CAPOT_BASE
    if a == A.TAKE and deal.retourne is not None:
        return TAKE_LEVEL, deal.retourne >> 3
    if A.NAME_BASE <= a < A.NAME_BASE + len(STRAIN_NAMES):
        return TAKE_LEVEL, a - A.NAME_BASE
    return None


def sort_rows(rows: List[Dict[str, Any]], keys: Sequence[str]) -> Optional[str]:
    """Sort ``rows`` in place, best first, by the first column of ``keys`` that some row
    has (rows without it last, in their order); returns that column, or None."""
    for key in keys:
        if any(r[key] is not None for r in rows):
            rows.sort(key=lambda r: (r[key] is None, -(r[key] or 0)))
            return key
    return None


def _told(agent, deal: BaseDeal, moves: Sequence[Tuple[int, int]], seat: int) -> None:
    """Tell ``agent`` (reset at ``seat``) every event of ``moves`` it may see."""
    for s, a in moves:
        if a not in PRIVATE_ACTIONS or s == seat:
            agent.observe(s, a)


def searched(deal: BaseDeal) -> bool:
    """Whether the searches (double dummy, PIMC) run at this position of the play: when
    at most :data:`SEARCH_TRICKS` tricks are left (every trick with four players; from
    trick 5 of belote for two players, whose earlier searches take a second or more)."""
    return family_of(deal.rules).n_tricks - len(deal.trick_winners) <= SEARCH_TRICKS


def _agent_names(rules: RuleSet) -> set:
    return set(available_agents(rules))


class Analyser:
    """The searchers of one analysis at a time: a double-dummy solver per family, PIMC
    agents by their rules and worlds, an ``nn`` agent, and fresh agents for the
    choices."""

    def __init__(self, tt_bits: int = 18):
        self.tt_bits = tt_bits
        self._solvers: Dict[Any, Any] = {}
        self._pimc: Dict[Tuple[Any, int], Any] = {}
        self._nn = None

    def _solver(self, family: str):
        """The double-dummy solver of the rules family ``family`` (its PIMC game's,
        :meth:`~coinche_rl.agents.pimc.PimcGame.solver`; one for the families of as many
        players, which share it)."""
        game = PIMC_GAMES[family]
        if game not in self._solvers:
            self._solvers[game] = game.solver(self.tt_bits)
        return self._solvers[game]

    def pimc(self, worlds: int, rules: Optional[RuleSet] = None):
        """The PIMC agent of ``worlds`` worlds for the family of ``rules`` (default four
        players); its values at a card are PIMC's whatever the trick
        (:meth:`~coinche_rl.agents.pimc.PIMCAgent.card_choice`)."""
        key = (None if rules is None else rules.family, worlds)
        if key not in self._pimc:
            self._pimc[key] = make_agent(f"pimc:worlds={worlds}", rules)
        return self._pimc[key]

    def nn(self):
        if self._nn is None:
            self._nn = make_agent("nn")
        return self._nn

    def analyse(self, deal: BaseDeal, moves: Sequence[Tuple[int, int]], *,
                worlds: int = DEFAULT_WORLDS, seed: int = 0,
                choosers: Sequence[str] = DEFAULT_CHOOSERS) -> Dict[str, Any]:
        """The rows of :func:`analyse` for ``deal`` (``moves``: its ``(seat, action)``
        so far)."""
        if deal.is_terminal:
            raise AnalysisError("the deal is over at this step: nothing to analyse (step back)")
        fam = family_of(deal.rules)
        seat = deal.current_player
        legal = [int(a) for a in deal.legal_actions()]
        rows = {a: {"action": action_item(a), "dd": None, "dd_points": None, "pimc": None,
                    "nn": None, "ev": None, "p_made": None, "mc_ev": None, "mc_p_made": None,
                    "chosen_by": []} for a in legal}
        out: Dict[str, Any] = {"seat": seat, "team": fam.side(seat), "phase": deal.phase,
                               "worlds": None, "nn_by": None, "notes": [], "seconds": {},
                               "choices": {}, "evaluation": None,
                               "pimc_unit": PIMC_GAMES[fam.name].value_unit}
        view = agent_view(deal, seat)
        names = _agent_names(deal.rules)
        if deal.phase == "play" and not searched(deal):
            out["notes"].append(
                f"double dummy and PIMC from trick {fam.n_tricks - SEARCH_TRICKS + 1} in "
                f"these rules (a search of more tricks takes seconds to minutes)")
        elif deal.phase == "play":
            self._search(deal, view, rows, out, worlds, seed)
        bids = {a: bid_contract(a, deal) for a in legal} if deal.phase == fam.phases[0] else {}
        if any(c is not None for c in bids.values()):
            t0 = time.perf_counter()
            self._evaluate(deal, view, rows, out, worlds, seed)
            out["seconds"]["evaluation"] = time.perf_counter() - t0
        if "nn" in names:                    # the networks' values, where they play
            t0 = time.perf_counter()
            try:
                nn = self.nn()
                nn.reset(seat, deal.rules, seed)
                values = nn.action_values(view)
            except (ValueError, OSError) as e:           # rules the networks do not know
                out["notes"].append(f"nn: {e}")
            else:
                out["nn_by"] = values.by
                for a, v in values.values.items():
                    rows[a]["nn"] = v
                for a, v in values.ev.items():
                    rows[a]["ev"] = v
                for a, v in values.p_made.items():
                    rows[a]["p_made"] = v
            out["seconds"]["nn"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        for spec in choosers:
            if spec in DEFAULT_CHOOSERS and spec not in names:
                continue                     # not an agent of these rules' family
            try:
                agent = make_agent(spec, deal.rules)
                agent.reset(seat, deal.rules, seed)
                _told(agent, deal, moves, seat)
                a = int(agent.act(agent_view(deal, seat)))
            except (AgentSpecError, ValueError, OSError) as e:
                out["choices"][spec] = None
                out["notes"].append(f"{spec}: {e}")
                continue
            out["choices"][agent.spec] = A.action_to_str(a)
        out["seconds"]["choices"] = time.perf_counter() - t0
        for spec, text in out["choices"].items():
            if text is not None:
                rows[A.parse_action(text, deal.rules)]["chosen_by"].append(spec)
        out["rows"] = [rows[a] for a in legal]
        out["sorted_by"] = sort_rows(out["rows"], ("nn", "mc_ev") if deal.phase == fam.phases[0]
                                     else ("pimc", "dd", "dd_points"))
        return out

    def _search(self, deal: BaseDeal, view, rows, out, worlds: int, seed: int) -> None:
        """The double-dummy and PIMC columns of the play."""
        seat = deal.current_player
        t0 = time.perf_counter()
        solver = self._solver(deal.rules.family)
        for key, objective in (("dd", "score"), ("dd_points", "points")):
            if objective in solver.OBJECTIVES:
                acts, vals = solver.move_values(deal, objective)
                for a, v in zip(acts, vals):
                    rows[int(a)][key] = int(v)
        out["seconds"]["dd"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pimc = self.pimc(worlds, deal.rules)
        pimc.reset(seat, deal.rules, seed)
        pick, acts, totals, n = pimc.card_choice(view)
        for a, v in zip(acts, totals):
            rows[int(a)]["pimc"] = float(v) / n
        out["worlds"] = int(n)
        out["choices"][pimc.spec] = A.action_to_str(int(pick))
        out["seconds"]["pimc"] = time.perf_counter() - t0

    @staticmethod
    def _evaluate(deal: BaseDeal, view, rows, out, worlds: int, seed: int) -> None:
        """The hand evaluation's columns of the bids (``mc_ev``, ``mc_p_made``) from what
        the seat knows (:func:`~coinche_rl.agents.evaluation.evaluate_view`): each contract
        of the auction, or each option of the prise (take, name, pass), by
        :data:`EVAL_METHOD` where the rules' evaluation has it (four players), else by the
        evaluation's own default (belote for two players: heuristic play, as
        ``coinche-rl evaluate``)."""
        method = EVAL_METHOD if EVAL_METHOD in evaluation_methods(deal.rules) else None
        try:
            ev = evaluate_view(view, samples=worlds, seed=seed, method=method)
        except EvaluationError as e:
            out["notes"].append(f"hand evaluation: {e}")
            return
        out["evaluation"] = {"samples": ev.samples, "method": ev.primary, "seed": ev.seed}
        for a, (e, pm) in ev.action_values().items():
            if a in rows:
                rows[a]["mc_ev"] = e
                rows[a]["mc_p_made"] = None if pm != pm else pm


class AnalyserPool:
    """``size`` :class:`Analyser` objects, built on first use; :meth:`take` lends one
    (and waits for one while all are lent)."""

    def __init__(self, size: int = 1):
        if size < 1:
            raise ValueError(f"an analyser pool needs at least 1 analyser, got {size!r}")
        self.size = size
        self._free: "queue.Queue[Analyser]" = queue.Queue()
        self._made = 0

    @contextlib.contextmanager
    def take(self) -> Iterator[Analyser]:
        try:
            an = self._free.get_nowait()
        except queue.Empty:
            if self._made < self.size:
                self._made += 1
                an = Analyser()
            else:
                an = self._free.get()
        try:
            yield an
        finally:
            self._free.put(an)


def _check_worlds(worlds: Any) -> int:
    if isinstance(worlds, bool) or not isinstance(worlds, int) or not 1 <= worlds <= MAX_WORLDS:
        raise AnalysisError(f"worlds: expected 1..{MAX_WORLDS}, got {worlds!r}")
    return worlds


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise AnalysisError(f"seed: expected an integer >= 0, got {seed!r}")
    return seed


def _check_specs(specs: Any, what: str, n: Optional[int] = None) -> List[str]:
    if not isinstance(specs, list) or not all(isinstance(s, str) and s.strip() for s in specs) \
            or (n is not None and len(specs) != n):
        count = f"{n} " if n is not None else ""
        raise AnalysisError(f"{what}: expected a list of {count}agent specs such as "
                            f"['heuristic', 'nn'], got {specs!r}")
    return [s.strip() for s in specs]


def analyse(an: Analyser, rec: Dict[str, Any], index: int, step: int, *,
            worlds: int = DEFAULT_WORLDS, seed: int = 0,
            choosers: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """The analysis (see the module docstring) of deal ``index`` of record ``rec`` after
    ``step`` actions, with analyser ``an``: ``{"seat", "team", "phase", "rows",
    "choices", "worlds", "nn_by", "notes", "seconds"}``; each row ``{"action", "dd",
    "dd_points", "pimc", "nn", "ev", "p_made", "chosen_by"}`` (None where a figure does
    not apply).

    :raises RecordError: a bad record. :raises AnalysisError: a bad request.
    """
    worlds = _check_worlds(worlds)
    seed = _check_seed(seed)
    choosers = list(DEFAULT_CHOOSERS) if choosers is None else _check_specs(choosers, "agents")
    deal = deal_at(rec, index, step)
    moves = _moves(deal)
    return an.analyse(deal, moves, worlds=worlds, seed=seed, choosers=choosers)


def branch(rec: Dict[str, Any], index: int, step: int, action: Any,
           specs: Sequence[str], seed: int = 0) -> Dict[str, Any]:
    """Deal ``index`` of ``rec`` after ``step`` actions, then ``action`` instead of what
    was played, then ``specs[seat]`` (four agent specs) to the end of the deal: the new
    deal record. The agents are reset with the seeds of ``seed`` (the same seed, the same
    continuation) and told every public event before their first decision.

    :raises RecordError: a bad record. :raises AnalysisError: a bad step, action or spec.
    """
    seed = _check_seed(seed)
    deal = deal_at(rec, index, step)
    n_players = family_of(deal.rules).n_players
    specs = _check_specs(list(specs) if isinstance(specs, tuple) else specs, "agents",
                         n_players)
    if deal.is_terminal:
        raise AnalysisError("the deal is over at this step: step back to branch off")
    try:
        a = A.parse_action(action, deal.rules) if isinstance(action, str) else action
    except ValueError as e:
        raise AnalysisError(f"action: {e}") from None
    if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < A.N_ACTIONS:
        raise AnalysisError(f"action: expected an action id 0..{A.N_ACTIONS - 1} or its text, "
                            f"got {action!r}")
    moves = _moves(deal)
    seat = deal.current_player
    try:
        deal.apply(a)
    except IllegalActionError as e:
        raise AnalysisError(str(e)) from None
    moves.append((seat, a))
    agents = []
    seeds = [int(x) for x in np.random.SeedSequence([seed, index, step]).generate_state(4)]
    for s in range(n_players):
        try:
            agent = make_agent(specs[s], deal.rules)
            agent.reset(s, deal.rules, seeds[s])
        except (AgentSpecError, ValueError, OSError) as e:
            raise AnalysisError(f"agents[{s}]: {e}") from None
        _told(agent, deal, moves, s)
        agents.append(agent)
    while not deal.is_terminal:
        s = deal.current_player
        view = agent_view(deal, s)
        b = int(agents[s].act(view))
        if not (0 <= b < A.N_ACTIONS and view.legal[b]):
            raise AnalysisError(f"agent {specs[s]!r} at seat {s} chose the illegal action {b!r}")
        deal.apply(b)
        for t in range(n_players):
            if b not in PRIVATE_ACTIONS or t == s:
                agents[t].observe(s, b)
    return deal_to_record(deal)
