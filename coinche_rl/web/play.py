"""A person against the bots, for the page (``coinche_rl.web.play``): no web framework
here, the socket handler of :mod:`coinche_rl.web.app` drives a :class:`PlaySession`.

The session is :class:`coinche_rl.terminal.TerminalGame` without the terminal, for every
rule family: one person's seat, agents (any specs of :mod:`coinche_rl.agents` of the
family) at the other seats (three with four players, one in belote for two players),
deals scored as a match (the family's match, :class:`coinche_rl.game.Match` or
:class:`coinche_rl.two_player.TwoPlayerMatch`: one deal, ``deals`` deals, or a whole
match to the target). The bots follow the tournament protocol (``reset`` before each
deal with the seeds ``coinche-rl play`` gives them, ``observe`` for every public event,
``act`` on their family's view, :func:`coinche_rl.agents.base.agent_view`), so the same
seed deals the same cards and seeds the bots alike in both.

The person is shown :func:`coinche_rl.web.views.seat_view` only: their own information
set and the public figures. A finished deal stays on show (its result and the hands as
dealt) until :meth:`PlaySession.next_deal`; the match has already dealt the next one,
which nobody sees until then.

Every refusal is a :class:`ProtocolError` raised **before** anything changes: a bad
setting, an action that is not the person's to take, an illegal or unreadable action.

>>> s = PlaySession(parse_settings({"seat": 0, "partner": "random",
...                                 "opponents": ["random"], "seed": 3}))
>>> while s.waiting == "bots":
...     _ = s.bot_step()
>>> s.waiting, s.view()["to_act"]
('you', 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from .. import actions as A
from ..agents import AgentSpecError, make_agent
from ..agents.base import PRIVATE_ACTIONS
from ..cards import InvalidNotationError
from ..engine.family import family_of
from ..envs.family import env_family
from ..game import BaseDeal, IllegalActionError
from ..records import deal_to_record, match_to_record
from ..rules import (N_SEATS, InvalidRulesError, RuleSet, UnknownPresetError, parse_rules,
                     rules_label)
from .views import agent_view, relative_name, seat_view

__all__ = ["ProtocolError", "GameSettings", "parse_settings", "PlaySession", "parse_person_action"]


class ProtocolError(ValueError):
    """A message the server refuses; the reply carries this message and nothing changed."""


@dataclass(frozen=True)
class GameSettings:
    """A game to play: the person's seat, the agent specs at every seat (None at the
    person's), the rule set, the seed, and how many deals."""

    seat: int
    specs: Tuple[Optional[str], ...]
    rules: RuleSet
    seed: int
    deals: int
    match: bool
    dealer: Optional[int]


def _int_field(msg: Dict[str, Any], key: str, default, lo: int, hi: Optional[int] = None):
    v = msg.get(key, default)
    if v is None and default is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f"an integer >= {lo}"
        raise ProtocolError(f"{key}: expected {rng}, got {v!r}")
    return v


def _spec_field(msg: Dict[str, Any], key: str, default) -> List[str]:
    v = msg.get(key, default)
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        raise ProtocolError(f"{key}: expected an agent spec such as 'heuristic' or "
                            f"'pimc:worlds=16' (or a list of them), got {v!r}")
    return [x.strip() for x in v]


def parse_settings(msg: Dict[str, Any], default_rules: Optional[RuleSet] = None) -> GameSettings:
    """The settings of a ``new`` message: ``rules`` (a preset of any family, ``ffb`` or
    ``belote_a_deux``, with ``ffb:target=500``-style overrides; default the server's),
    ``seat`` (0..3, or 0..1 with two players; default 0), ``partner`` (a spec, default
    ``heuristic``; none with two players), ``opponents`` (four players: one spec for both,
    or two: right then left; two players: the one opponent's spec), ``seed`` (>= 0),
    ``deals`` (>= 1) or ``match`` (true: to the target), ``dealer``.

    :raises ProtocolError: naming the bad field and what it should be.
    """
    if not isinstance(msg, dict):
        raise ProtocolError(f"settings: expected an object, got {msg!r}")
    known = {"type", "seat", "partner", "opponents", "rules", "seed", "deals", "match", "dealer"}
    extra = sorted(set(msg) - known)
    if extra:
        raise ProtocolError(f"unknown field(s) {', '.join(map(repr, extra))} in a new game; "
                            f"expected {', '.join(sorted(known - {'type'}))}")
    rules_text = msg.get("rules")
    if rules_text is None:
        rules = default_rules if default_rules is not None else parse_rules("ffb")
    elif not isinstance(rules_text, str):
        raise ProtocolError(f"rules: expected a preset such as 'ffb' or 'belote_a_deux' (with "
                            f"overrides 'ffb:target=500'), got {rules_text!r}")
    else:
        try:
            rules = parse_rules(rules_text)
        except (UnknownPresetError, InvalidRulesError) as e:
            raise ProtocolError(f"rules: {e}") from None
    n = family_of(rules).n_players
    seat = _int_field(msg, "seat", 0, 0, n - 1)
    opponents = _spec_field(msg, "opponents", ["heuristic"])
    if n == 2:
        if msg.get("partner") is not None:
            raise ProtocolError(f"partner: belote for two players (rules "
                                f"{rules_label(rules)!r}) has no partner; opponents names "
                                f"the bot")
        if len(opponents) != 1:
            raise ProtocolError(f"opponents: belote for two players has one opponent: give "
                                f"one agent spec, not {len(opponents)}")
        partner = []
    else:
        partner = _spec_field(msg, "partner", "heuristic")
        if len(partner) != 1:
            raise ProtocolError(f"partner: expected one agent spec, got {partner!r}")
        if len(opponents) > 2:
            raise ProtocolError(f"opponents: give one agent spec for both or two (right, then "
                                f"left), not {len(opponents)}")
    seed = _int_field(msg, "seed", 0, 0)
    deals = _int_field(msg, "deals", 1, 1, 1000)
    match = msg.get("match", False)
    if not isinstance(match, bool):
        raise ProtocolError(f"match: expected true or false, got {match!r}")
    dealer = _int_field(msg, "dealer", None, 0, n - 1)
    specs: List[Optional[str]] = [None] * n
    # the seats after the person, in turn: right, partner, left (or the one opponent)
    around = [opponents[0], partner[0], opponents[-1]] if n == 4 else [opponents[0]]
    for k, spec in enumerate(around, 1):
        specs[(seat + k) % n] = spec
    return GameSettings(seat, tuple(specs), rules, seed, deals, match, dealer)


def parse_person_action(action: Any, rules: RuleSet) -> int:
    """An action id from a message's ``action``: its id (0..117) or its text (``"80H"``,
    ``"pass"``, ``"JH"``; :func:`coinche_rl.actions.parse_action`).

    :raises ProtocolError: neither an id nor a readable action.
    """
    if isinstance(action, bool):
        raise ProtocolError(f"action: expected an action id or its text, got {action!r}")
    if isinstance(action, int):
        if not 0 <= action < A.N_ACTIONS:
            raise ProtocolError(f"action: id {action!r} out of range: expected 0..{A.N_ACTIONS - 1}")
        return action
    if isinstance(action, str):
        try:
            return A.parse_action(action, rules)
        except InvalidNotationError as e:
            raise ProtocolError(f"action: {e}") from None
    raise ProtocolError(f"action: expected an action id or its text (80H, pass, JH), "
                        f"got {action!r}")


class PlaySession:
    """One person's game (see the module docstring).

    :attr:`waiting` says what happens next: ``"you"`` (the person is to act),
    ``"bots"`` (call :meth:`bot_step`), ``"next"`` (a deal is over and more follow:
    :meth:`next_deal`), ``"over"``.

    :raises ProtocolError: an agent spec that does not build, or an agent that cannot
        play the rules.
    """

    def __init__(self, settings: GameSettings):
        self.settings = settings
        self.seat = settings.seat
        self.rules = settings.rules
        self.n = family_of(self.rules).n_players
        self.agents: List[Any] = [None] * self.n
        specs = list(settings.specs)
        for s in range(self.n):
            if s == self.seat:
                continue
            try:
                agent = make_agent(specs[s], self.rules)
                agent.reset(s, self.rules, 0)      # e.g. nn outside the rules it knows
            except AgentSpecError as e:
                raise ProtocolError(f"{self.name(s)} (seat {s}): {e}") from None
            except Exception as e:
                raise ProtocolError(f"agent {specs[s]!r} (seat {s}) cannot play rules "
                                    f"{rules_label(self.rules)!r}: {e}") from None
            self.agents[s] = agent
            specs[s] = agent.spec
        self.specs = specs
        self.match = env_family(self.rules).match(self.rules, seed=settings.seed,
                                                  dealer=settings.dealer)
        self.single = settings.deals == 1 and not settings.match
        #: the deal on show (the finished one until next_deal)
        self.deal: BaseDeal = self.match.deal
        self.deals_played = 0
        #: (seat, action) of the last action applied, for the page's log
        self.last_event: Optional[Tuple[int, int]] = None
        self._start_deal()

    # ------------------------------------------------------------------ state
    def name(self, seat: int) -> str:
        """``seat`` seen from the person: ``"right"``, ``"opponent"``..."""
        return relative_name(seat, self.seat, self.n)

    @property
    def finished(self) -> bool:
        """No more deals: the match is decided or every deal asked for was played."""
        if self.match.is_terminal:
            return True
        return not self.settings.match and self.deals_played >= self.settings.deals

    @property
    def waiting(self) -> str:
        if self.deal.is_terminal:
            return "over" if self.finished else "next"
        return "you" if self.deal.current_player == self.seat else "bots"

    def match_info(self) -> Dict[str, Any]:
        mode = ("match" if self.settings.match else
                "deals" if self.settings.deals > 1 else "deal")
        return {"scores": list(self.match.scores), "target": self.match.target,
                "pot": self.match.pot, "deals_played": self.deals_played,
                "deals": None if self.settings.match else self.settings.deals,
                "mode": mode, "winner": self.match.winner}

    def view(self) -> Dict[str, Any]:
        """The person's view (:func:`coinche_rl.web.views.seat_view`) with the seats'
        agents, the deal number and what the session waits for."""
        v = seat_view(self.deal, self.seat, self.match_info())
        v["agents"] = list(self.specs)
        v["deal_number"] = self.deals_played + (0 if self.deal.is_terminal else 1)
        v["waiting"] = self.waiting
        ev = self.last_event
        v["last_event"] = None if ev is None or (ev[1] in PRIVATE_ACTIONS and ev[0] != self.seat) \
            else {"seat": ev[0], "action": A.action_to_str(ev[1])}
        return v

    # ------------------------------------------------------------------ moves
    def _start_deal(self) -> None:
        k = len(self.match.deals)
        seeds = [int(x) for x in np.random.SeedSequence([self.settings.seed, k]).generate_state(N_SEATS)]
        for s in range(self.n):
            if s != self.seat:
                self.agents[s].reset(s, self.rules, seeds[s])

    def _apply(self, seat: int, a: int) -> None:
        deal = self.deal
        self.match.apply(a)
        for s in range(self.n):
            if s != self.seat and (a not in PRIVATE_ACTIONS or s == seat):
                self.agents[s].observe(seat, a)
        self.last_event = (seat, a)
        if deal.is_terminal:
            self.deals_played += 1

    def person_act(self, action: Any) -> int:
        """Apply the person's action (an id or its text); returns its id.

        :raises ProtocolError: not the person's turn, unreadable, or not legal (the
            message says why, as the engine does); nothing is applied then.
        """
        if self.waiting != "you":
            if self.waiting == "bots":
                p = self.deal.current_player
                whose = f"it is seat {p}'s turn ({self.name(p)})"
            else:
                whose = {"next": "the deal is over (send next for the next deal)",
                         "over": "the game is over"}[self.waiting]
            raise ProtocolError(f"not your turn: {whose}")
        a = parse_person_action(action, self.rules)
        if not self.deal.is_legal(a):
            probe = self.deal.clone()
            try:
                probe.apply(a)
                reason = f"{A.action_to_str(a)!r} is not legal now"
            except IllegalActionError as e:
                reason = str(e)
            raise ProtocolError(reason)
        self._apply(self.seat, a)
        return a

    def bot_step(self) -> Tuple[int, int]:
        """The bot to act chooses and its action is applied: ``(seat, action)``.

        :raises IllegalActionError: the agent chose an illegal action.
        :raises ProtocolError: nobody but the person is to act.
        """
        if self.waiting != "bots":
            raise ProtocolError(f"no bot is to act (waiting for: {self.waiting})")
        deal = self.deal
        seat = deal.current_player
        info = {"scores": list(self.match.scores), "target": self.match.target,
                "pot": self.match.pot}
        view = agent_view(deal, seat, info)
        a = int(self.agents[seat].act(view))
        if not (0 <= a < A.N_ACTIONS and view.legal[a]):
            legal = ", ".join(A.action_to_str(int(x)) for x in view.legal_actions)
            raise IllegalActionError(f"agent {self.agents[seat]!r} at seat {seat} chose the "
                                     f"illegal action {a!r}; legal: {legal}")
        self._apply(seat, a)
        return seat, a

    def next_deal(self) -> None:
        """Show the next deal (after a finished one).

        :raises ProtocolError: the deal on show is not over, or no deal follows.
        """
        if self.waiting != "next":
            raise ProtocolError("no next deal: " + ("the deal is not over" if not
                                                    self.deal.is_terminal else "the game is over"))
        self.deal = self.match.deal
        self.last_event = None
        self._start_deal()

    # ----------------------------------------------------------------- record
    def record(self) -> Optional[Dict[str, Any]]:
        """The record of the finished deals (:mod:`coinche_rl.records`): a deal record for
        a one-deal game, else a match record; None before the first deal ends. A deal in
        progress is never in it (its record would show the other hands)."""
        if self.deals_played == 0:
            return None
        if self.single:
            return deal_to_record(self.match.deals[0])
        rec = match_to_record(self.match)
        rec["deals"] = rec["deals"][:len(self.match.deals)]
        return rec
