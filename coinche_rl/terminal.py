"""Play Coinche in the terminal against the bots (``coinche-rl play``).

A person takes one seat; any registered agents (:mod:`coinche_rl.agents`) take the
partner's and the opponents' seats. The bots follow the tournament protocol exactly
(``reset`` before each deal, ``observe`` for every public event, ``act`` on a
:class:`~coinche_rl.agents.PlayerView`), and what the person is shown is built from the
person's own information set (:func:`coinche_rl.envs.infoset.information_set`) and the
public facts of the deal: the person's hand sorted by suit (trumps marked, in trump
order, once the contract is known), the auction with who said what, the current trick
with who led and who is winning, the tricks and card points won, and at the end of
each deal the scoring breakdown and the running score.

Seats are named from the person's chair: ``you``, ``right``, ``partner``, ``left``, with
their numbers. Play goes counter-clockwise as in France (RULES.md §1: the next player
is ``(seat + 1) % 4``), so the seat after you sits on your right.

Every input/output goes through two streams (``stdin`` / ``stdout`` arguments, the
process's by default), so tests and scripts drive a game by its input. A choice is its
number in the list shown or the action's text in the project's notation
(:mod:`coinche_rl.actions`: ``80H``, ``pass``, ``coinche``, ``JH``, ``10h``, ...,
case-insensitive); anything else is answered with a one-line reason (a bid's values
and the forms an answer may take are those of the rules and the phase) and asked again,
with the choices again when they are few (a play's cards, not an auction's dozens).
``?`` shows the choices again; ``quit``, the end of the input (Ctrl-D) or Ctrl-C end the
game with a message, and what was played is still saved. A decision with a single legal
choice (the last card, a forced follow) is played at once, and said. In the classic
family the retourne is shown when the deal starts, before anyone speaks.

Records: one deal is saved as a deal record, several deals or a match as a match record
(:mod:`coinche_rl.records`), which ``coinche-rl replay`` checks action by action; an
unfinished deal is saved as far as it went.

**One game, every family.** :class:`TerminalGame` is the game of every rule family:
with the rules of belote for two players it is the family's game of
:mod:`coinche_rl.terminal_two` (a subclass that overrides the family hooks declared
below, with their signatures, as a chess variant overrides a few hooks of one board),
and the settings, the input, the questions, the refusals, the loop of a deal, the match
and the saving are this class's for both.

>>> import io
>>> out = io.StringIO()
>>> game = TerminalGame(seat=0, partner="random", opponents=["random"], seed=3,
...                     stdin=io.StringIO("1\\n" * 40), stdout=out)
>>> result = game.run()
>>> result.finished, result.deals_played
(True, 1)
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, TextIO, Union

import numpy as np

from . import actions as A
from . import engine as E
from .cards import (N_SUITS, SUIT_MASKS, SUIT_NAMES, InvalidNotationError, cards_of, format_card,
                    format_hand)
from .game import Deal, IllegalActionError, Match
from .agents import agent_view, make_agent
from .agents.base import PRIVATE_ACTIONS
from .records import deal_to_record, match_to_record, save_record
from .rules import (AT, CARD_ORDER, N_SEATS, N_TRICKS, NT, PRESETS, STRAIN_LONG_NAMES, RuleSet,
                    four_player_rules, partner, rules_label, seat_after, team)

__all__ = ["TerminalGame", "PlayResult", "PlaySetupError", "RELATIVE_NAMES", "seat_name",
           "play_in_terminal"]

#: the seats' names seen from the person's chair, by ``seat_after(seat, -person)``
RELATIVE_NAMES = ("you", "right", "partner", "left")

#: inputs that end the game (as the end of the input does)
QUIT_WORDS = frozenset(("quit", "exit", "q"))
#: inputs that show the choices again
HELP_WORDS = frozenset(("?", "help", "h", "list"))
#: a wrong answer is followed by the choices again when there are at most this many
#: (two rows: every play); a longer list (an auction's) is shown on request only
SHORT_LIST = 12
#: the words of the actions that are one word, for the forms of an answer (``_forms``)
_WORDS = {A.PASS: "pass", A.TAKE: "take", A.COINCHE: "coinche", A.SURCOINCHE: "surcoinche",
          A.DECLARE: "declare", A.NO_DECLARE: "no-declare", A.BELOTE: "belote",
          A.NO_BELOTE: "no-belote", A.EXCHANGE: "exchange", A.NO_EXCHANGE: "no-exchange"}


#: the game of each family that has its own hooks, by name (``module:class``, a subclass
#: of :class:`TerminalGame`): found when asked for, as the agents of the registry are, so
#: that this module never imports the games built on it
FAMILY_GAMES = {"two": "coinche_rl.terminal_two:TwoPlayerTerminalGame"}


class PlaySetupError(ValueError):
    """A bad setting of a terminal game (seat, agent spec, deals, ...), found before
    anything is played."""


class _Quit(Exception):
    """The person left: the end of the input or ``quit``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def seat_name(seat: int, person: int) -> str:
    """``'partner (seat 2)'``: a seat named from the person's chair, with its number."""
    return f"{RELATIVE_NAMES[seat_after(seat, -person)]} (seat {seat})"


@dataclass
class PlayResult:
    """How a terminal game ended."""
    #: the match the deals were played in (its scores are the running score)
    match: Match
    #: deals played to their end
    deals_played: int
    #: True when every deal asked for was played (or the match was decided)
    finished: bool
    #: why the game stopped early (``'end of input'``, ``'quit'``, ``'interrupted'``), or None
    stopped: Optional[str]
    #: the record written (or that would have been): a deal or a match record
    record: Dict[str, Any]
    #: the path written, or None
    saved: Optional[str]
    #: exit status for the command line: 0 (also after quit / end of input), 130 after
    #: Ctrl-C, 2 when the record could not be written
    status: int


class TerminalGame:
    """One person against agents, in a terminal (see the module docstring), in every
    rule family: ``TerminalGame(rules="belote_a_deux", ...)`` is the game of belote for
    two players (:class:`~coinche_rl.terminal_two.TwoPlayerTerminalGame`).

    **Family hooks**, the methods a family's game overrides (with these signatures;
    everything else is shared): :meth:`_place` (the agents' specs at the seats),
    :meth:`name` and :meth:`_sides` (how seats and pairs of scores are named),
    :meth:`_view` (what a player decides from), :meth:`_choices` (the legal actions in
    the order shown), :meth:`_status` (the state shown before a question),
    :meth:`_forms` and :meth:`_refusal` (the words of a refused answer),
    :meth:`_snapshot` and :meth:`_report` (what an action made public),
    :meth:`_deal_start`, :meth:`_say_result`, :meth:`_intro`, :meth:`_match_over`, and
    :meth:`_kernels` and :meth:`_play_aside` (the kernels compiled before the first
    question); and the class attributes ``PLAYERS``, ``UNIT``, ``DEFAULT_RULES``,
    ``RULES_OF``, ``MATCH``, ``SHORT_LIST``, ``SEAT_RULE``, ``DEALER_RULE``, ``CARD_FORM``.
    Shared by every family: the loop of a deal and of the match, the questions, the
    saving, the deal played aside on a fresh cache (:meth:`_play_aside`, from the
    family's deal class, views and snapshots), the trick counts (:meth:`_tricks_text`).

    :param seat: the person's seat, 0..3 (belote for two players: the person's player,
        0 or 1).
    :param partner: the partner's agent spec (``coinche-rl agents`` lists them; default
        ``heuristic``; belote for two players has none).
    :param opponents: one spec for both opponents, or two: the seat after the person
        (right) first, then the seat before (left) (belote for two players: the one
        opponent's spec).
    :param rules: a preset name or a :class:`~coinche_rl.rules.RuleSet` of any family
        (default ``ffb``); ``target`` overrides its match target.
    :param seed: seeds the deals, the first dealer and the bots' random streams.
    :param deals: deals to play (dealer rotating, scored as a match: the game stops
        earlier if a team reaches the target); ignored with ``match=True``.
    :param match: play a whole match to the target.
    :param dealer: the first dealer (default: drawn from ``seed``).
    :param save: write the record to this path (after every deal and at the end).
    :param stdin, stdout: the streams (default: the process's).
    :raises PlaySetupError: for a bad setting (before anything is played).
    :raises coinche_rl.agents.AgentSpecError: for an unknown agent or parameter.
    """

    #: players at the table, and what a place is called
    PLAYERS = N_SEATS
    UNIT = "seat"
    #: the family's default rules, its rules check (a rule set of another family
    #: raises) and its match class
    DEFAULT_RULES = "ffb"
    RULES_OF = staticmethod(four_player_rules)
    MATCH = Match
    #: a wrong answer is followed by the choices when there are at most this many
    SHORT_LIST = SHORT_LIST
    #: the words of the errors on a seat or a dealer out of ``0..PLAYERS - 1``
    SEAT_RULE = "the seat must be 0..3"
    DEALER_RULE = "the dealer must be a seat 0..3"
    #: what a card to play is, in the forms of an answer
    CARD_FORM = "a card of your hand"

    def __new__(cls, *args, **kwargs):
        """``TerminalGame(...)`` with the rules of another family is that family's game
        (the same arguments), found by name in :data:`FAMILY_GAMES`."""
        if cls is TerminalGame:
            rules = kwargs.get("rules", args[3] if len(args) > 3 else None)
            family = getattr(rules, "family", None)
            if isinstance(rules, str):
                family = getattr(PRESETS.get(rules), "family", None)
            if family in FAMILY_GAMES:
                module, _, name = FAMILY_GAMES[family].partition(":")
                cls = getattr(importlib.import_module(module), name)
        return super().__new__(cls)

    def __init__(self, seat: int = 0, partner: Optional[str] = None,
                 opponents: Union[str, Sequence[str]] = ("heuristic",),
                 rules: Union[str, RuleSet, None] = None, *, seed: int = 0, deals: int = 1,
                 match: bool = False, dealer: Optional[int] = None,
                 target: Optional[int] = None, save: Optional[str] = None,
                 stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None):
        if not _is_int(seat) or not 0 <= seat < self.PLAYERS:
            raise PlaySetupError(f"{self.SEAT_RULE}, not {seat!r}")
        self._check_settings(deals, seed, dealer)
        self.seat = int(seat)
        self._keep_settings(self.DEFAULT_RULES if rules is None else rules, target, seed,
                            deals, match, save, stdin, stdout)
        me = self.seat
        self.specs: List[Optional[str]] = self._place(partner, opponents)
        self.agents: List[Any] = [None] * self.PLAYERS
        for s in range(self.PLAYERS):
            if s == me:
                continue
            agent = make_agent(self.specs[s], self.rules.family)   # AgentSpecError says why
            try:
                agent.reset(s, self.rules, 0)           # e.g. nn outside the rules it knows
            except Exception as e:
                raise PlaySetupError(f"agent {self.specs[s]!r} ({self.name(s)}) cannot "
                                     f"play rules {rules_label(self.rules)!r}: {e}") from None
            self.agents[s] = agent
            self.specs[s] = getattr(agent, "spec", self.specs[s])
        self.match = self.MATCH(self.rules, seed=self.seed, dealer=dealer)
        self.single = self.n_deals == 1 and not self.match_mode
        self._deal: Optional[Deal] = None

    @property
    def me(self) -> int:
        """The person's seat (player)."""
        return self.seat

    # ------------------------------------------------------------- settings
    def _place(self, partner: Optional[str], opponents) -> List[Optional[str]]:
        """Family hook: the agent spec at each seat (None at the person's), from the
        ``partner`` and ``opponents`` arguments.

        :raises PlaySetupError: a setting the family does not take.
        """
        if isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if not 1 <= len(opponents) <= 2:
            raise PlaySetupError(f"give one agent spec for both opponents or two (right, "
                                 f"then left), not {len(opponents)}")
        me = self.seat
        specs: List[Optional[str]] = [None] * N_SEATS
        specs[seat_after(me, 1)] = opponents[0]
        specs[seat_after(me, 2)] = "heuristic" if partner is None else partner
        specs[seat_after(me, 3)] = opponents[-1]
        return specs

    def _check_settings(self, deals, seed, dealer) -> None:
        """Check the settings every family takes (a dealer in ``0..PLAYERS - 1``)."""
        if not _is_int(deals) or deals < 1:
            raise PlaySetupError(f"deals must be at least 1, not {deals!r}")
        if not _is_int(seed) or seed < 0:
            raise PlaySetupError(f"the seed must be a non-negative integer, not {seed!r}")
        if dealer is not None and (not _is_int(dealer) or not 0 <= dealer < self.PLAYERS):
            raise PlaySetupError(f"{self.DEALER_RULE}, not {dealer!r}")

    def _keep_settings(self, rules, target, seed, deals, match, save, stdin, stdout) -> None:
        """Keep the checked settings: the rules of the family (``RULES_OF``; ``target``
        overrides the match target), the seed, the deals, the save path, the streams."""
        self.rules = self.RULES_OF(rules) if target is None else self.RULES_OF(rules, target=target)
        self.seed = int(seed)
        self.n_deals = int(deals)
        self.match_mode = bool(match)
        self.save_path = save
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        isatty = getattr(self.stdin, "isatty", None)
        self._echo = not (isatty() if callable(isatty) else False)

    # ------------------------------------------------------------------ io
    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def _read(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.stdout.write("\n")
            raise _Quit("end of input")
        if self._echo:                  # input from a pipe or a file: keep the transcript readable
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.strip()

    def _say_lines(self, lines: Sequence[str]) -> None:
        for line in lines:
            self.say(line)

    def _answer(self, legal: Sequence[int]) -> str:
        """The person's next answer: ``?`` shows the choices and asks again, ``quit``
        raises ``_Quit``."""
        while True:
            text = self._read("Your choice (number or text, ? lists the choices, quit leaves): ")
            low = text.lower()
            if low in QUIT_WORDS:
                raise _Quit("quit")
            if low not in HELP_WORDS:
                return text
            self._say_lines(self._choice_lines(legal))

    def _inline(self, legal: Sequence[int]) -> str:
        """The choices on one line: ``1) pass  2) take``."""
        return "  ".join(f"{i + 1}) {A.action_to_str(a)}" for i, a in enumerate(legal))

    # --------------------------------------------------------------- names
    def name(self, seat: int) -> str:
        """Family hook: a seat named from the person's chair (``'partner (seat 2)'``)."""
        return seat_name(seat, self.seat)

    def _team_word(self, side: int) -> str:
        return "us" if side == team(self.seat) else "them"

    def _sides(self, pair) -> str:
        """Family hook: a pair of scores by side, the person's named first in words."""
        mine = team(self.seat)
        return f"us {pair[mine]}, them {pair[1 - mine]}"

    def _contract_text(self, contract) -> str:
        text = f"{contract.bid_text} by {self.name(contract.taker)}"
        if contract.coinche == 1:
            text += ", coinched"
        elif contract.coinche == 2:
            text += ", surcoinched"
        return text

    def _strain_text(self, strain: int) -> str:
        if strain == NT:
            return "no trump"
        if strain == AT:
            return "all trump"
        return f"trump {STRAIN_LONG_NAMES[strain]}"

    # ------------------------------------------------------------- display
    def hand_lines(self, hand: int, strain: Optional[int]) -> List[str]:
        """The hand by suit (S H D C), strongest first: trump order in a trump suit once
        the contract is known (``coinche_rl.rules.CARD_ORDER``), else the plain order."""
        lines = []
        for s in range(N_SUITS):
            suit = hand & int(SUIT_MASKS[s])
            trump = strain is not None and (strain == s or strain == AT)
            if strain is None:
                text = format_hand(suit)
            else:
                cards = sorted(cards_of(suit), key=lambda c: -int(CARD_ORDER[strain, c]))
                text = " ".join(format_card(c) for c in cards)
            label = SUIT_NAMES[s] + (" (trump)" if trump else "")
            lines.append(f"  {label:17s} {text or '-'}")
        return lines

    def _choice_lines(self, legal: Sequence[int]) -> List[str]:
        items = [f"{i + 1:>3d}) {A.action_to_str(a):<11s}" for i, a in enumerate(legal)]
        per_row = 6
        return ["  " + "".join(items[i:i + per_row]).rstrip() for i in range(0, len(items), per_row)]

    def _auction_lines(self, info) -> List[str]:
        lines = [f"Auction (dealer: {self.name(info.dealer)}):"]
        if not info.auction:
            lines.append("  (nothing said yet)")
        for s, a in info.auction:
            lines.append(f"  {self.name(s) + ':':18s} {A.action_to_str(a)}")
        return lines

    def _trick_lines(self, deal: Deal, info) -> List[str]:
        # the contract: announced when the auction ended, during the first trick (a few
        # lines above); a reminder from the second trick on
        lines = [] if deal.trick_number == 0 else [
            f"Contract: {self._contract_text(info.contract)}; "
            f"{self._strain_text(info.contract.strain)}"]
        lines.append(f"Tricks won: {self._tricks_text(deal.tricks_won, deal.card_points_won)}")
        trick = deal.current_trick
        number = deal.trick_number + 1
        if not trick:
            lines.append(f"Trick {number} of {N_TRICKS}: you lead"
                         if deal.current_player == self.seat
                         else f"Trick {number} of {N_TRICKS}: "
                              f"{self.name(deal.current_player)} leads")
        else:
            played = ", ".join(f"{RELATIVE_NAMES[seat_after(s, -self.seat)]} {format_card(c)}"
                               for s, c in trick)
            win_seat = int(E.py.winning_seat(deal.state))
            win_card = int(E.py.winning_card(deal.state))
            lines.append(f"Trick {number} of {N_TRICKS}, led by {self.name(trick[0][0])}: "
                         f"{played}; winning: {self.name(win_seat)} with {format_card(win_card)}")
        return lines

    def _status(self, deal: Deal, view, legal: Sequence[int]) -> None:
        """Family hook: what the person is shown before a question (``view``: the
        person's, :meth:`_view`)."""
        info = view.information_set
        self.say("")
        if info.phase == "auction":
            for line in self._auction_lines(info):
                self.say(line)
            hb = deal.highest_bid
            if info.retourne is not None:
                self.say(f"Retourne: {format_card(info.retourne)} (round {deal.prise_round} "
                         f"of the prise)")
            elif hb is None:
                self.say("No bid yet.")
            else:
                coinche = int(E.py.coinche_level(deal.state))
                bid = A.action_to_str(A.capot_action(hb[1]) if int(E.py.contract_is_capot(deal.state))
                                      else A.bid_action(hb[0], hb[1]))
                self.say(f"Current bid: {bid} by {self.name(hb[2])}"
                         + (", coinched" if coinche == 1 else ", surcoinched" if coinche == 2 else ""))
        else:
            for line in self._trick_lines(deal, info):
                self.say(line)
            pts, cards = deal.seat_declarations(self.seat)
            if pts and deal.trick_number == 0:
                self.say(f"Your declarations: {pts} points ({format_hand(cards)})")
        self.say(f"Your hand (seat {self.seat}):")
        for line in self.hand_lines(info.hand, info.strain):
            self.say(line)
        self._say_turn("bid" if info.phase == "auction" else "play", legal)

    def _say_turn(self, what: str, legal: Sequence[int]) -> None:
        self.say(f"Your turn to {what}. Choices:")
        self._say_lines(self._choice_lines(legal))

    # -------------------------------------------------------------- choices
    def ordered_choices(self, legal: Sequence[int], strain: Optional[int]) -> List[int]:
        """The legal actions in the order shown: auction actions by id; cards as in the
        hand display (by suit, strongest first)."""
        if strain is None or not all(A.is_card(a) for a in legal):
            return [int(a) for a in legal]
        return sorted((int(a) for a in legal),
                      key=lambda a: (A.action_card(a) >> 3, -int(CARD_ORDER[strain, A.action_card(a)])))

    def _choices(self, view) -> List[int]:
        """Family hook: the legal actions in the order shown."""
        return self.ordered_choices(view.legal_actions, view.information_set.strain)

    def _forms(self, deal: Deal, legal: Sequence[int]) -> str:
        """Family hook: what an answer may be now, in words: the forms of this phase
        under these rules only (no take or belote in a coinche auction, no bids in the
        play; the exchange's words in belote for two players)."""
        rules = self.rules
        kinds = []
        if deal.phase == "auction" and rules.family == "coinche":
            strains = " ".join(A.STRAIN_NAMES[s] for s in rules.allowed_strains)
            kinds = ["pass", f"a bid such as {rules.min_bid}H ({A.bid_values_text(rules)}; "
                             f"strains {strains})", "capotH", "coinche", "surcoinche"]
        else:
            for a in legal:
                if a in _WORDS:
                    kinds.append(_WORDS[a])
                elif A.NAME_BASE <= a < A.NAME_BASE + N_SUITS \
                        and "a trump to name such as nameH" not in kinds:
                    kinds.append("a trump to name such as nameH")
                elif A.is_card(a) and not any(k.startswith("a card") for k in kinds):
                    kinds.append(f"{self.CARD_FORM} such as {A.action_to_str(a)} (10 or T for "
                                 f"a ten)")
        return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]

    def _refusal(self, deal: Deal, view, a: int, legal: Sequence[int]) -> str:
        """Family hook: why the well-formed action ``a``, not legal now, is refused, in a
        few words (the engine's reason)."""
        probe = deal.clone()
        try:
            probe.apply(a)
            return f"{A.action_to_str(a)!r} is not legal now"
        except IllegalActionError as e:
            return str(e).split("; legal:")[0]

    def _ask(self, deal: Deal, view) -> int:
        """The person's decision: a single legal choice is played at once, and said;
        otherwise the state (:meth:`_status`) and the question, until an answer is a
        legal action. A wrong answer gets one line: the reason, then the choices when
        they are few (a play's, a prise's), else how to list them (an auction's dozens)."""
        legal = self._choices(view)
        if len(legal) == 1:
            self.say(f"  (a single legal choice: {A.action_to_str(legal[0])}, played for you)")
            return legal[0]
        self._status(deal, view, legal)
        while True:
            text = self._answer(legal)
            if not text:
                message = (f"Type the number of a choice or its text (e.g. "
                           f"{A.action_to_str(legal[0])}).")
            elif text.isdigit():
                k = int(text)
                if 1 <= k <= len(legal):
                    return legal[k - 1]
                message = f"There is no choice {k}: type 1..{len(legal)} or the action's text."
            else:
                try:
                    a = A.parse_action(text, self.rules)
                except InvalidNotationError as e:
                    reason = str(e)
                    if reason.startswith("invalid action"):
                        reason = f"{text!r} is not an action: expected {self._forms(deal, legal)}"
                    message = f"{reason[0].upper()}{reason[1:]}."
                else:
                    if a in legal:
                        return a
                    message = f"Not legal: {self._refusal(deal, view, a, legal)}."
            if len(legal) <= self.SHORT_LIST:
                self.say(f"{message} Legal now: {self._inline(legal)}")
            else:
                self.say(f"{message} (? lists the {len(legal)} choices)")

    # --------------------------------------------------------------- events
    def _snapshot(self, deal: Deal, a: int):
        """Family hook: what :meth:`_report` compares the deal with after action ``a``
        (taken before it is applied)."""
        return {"phase": deal.phase, "tricks": len(deal.trick_winners),
                "points": deal.card_points_won, "resolved": deal.declarations_resolved,
                "belotes": (len(_information_set(deal, self.seat).belotes)
                            if A.is_card(a) else 0)}

    def _report(self, deal: Deal, seat: int, a: int, before) -> None:
        """Family hook: print what action ``a`` of ``seat`` made public (and the person's
        own private choices); ``before``: :meth:`_snapshot`'s."""
        if a in PRIVATE_ACTIONS and seat != self.seat:
            return
        who = self.name(seat)
        if not A.is_card(a):
            self.say(f"  {who + ':':18s} {A.action_to_str(a)}")
            if before["phase"] == "auction" and deal.phase != "auction":
                if deal.is_void:
                    self.say("All four passed: the deal is void (no points).")
                else:
                    c = deal.contract
                    retourne = "" if deal.retourne is None else \
                        f"; the retourne {format_card(deal.retourne)} goes to {self.name(c.taker)}"
                    self.say(f"Contract: {self._contract_text(c)}; {self._strain_text(c.strain)}"
                             + retourne)
            return
        self.say(f"  {who + ' plays':18s} {format_card(A.action_card(a))}")
        info = _information_set(deal, self.seat)
        for s, suit in info.belotes[before["belotes"]:]:
            self.say(f"  {self.name(s)} announces belote ({SUIT_NAMES[suit]})")
        if info.declarations_resolved and not before["resolved"] and not deal.is_terminal:
            self._report_declarations(deal, info)
        if len(deal.trick_winners) > before["tricks"]:
            w = deal.trick_winners[-1]
            side = team(w)
            gained = deal.card_points_won[side] - before["points"][side]
            self._say_trick(len(deal.trick_winners), w, gained, deal.tricks_won,
                            deal.card_points_won)

    def _tricks_text(self, won, points) -> str:
        """``us 3 (40 points), them 2 (25 points)``: tricks and card points by side."""
        return self._sides([f"{w} ({p} points)" for w, p in zip(won, points)])

    def _say_trick(self, n: int, winner: int, gained: int, won, points) -> None:
        """The line of trick ``n`` collected: who won it, its points, the counts."""
        self.say(f"  -> trick {n} to {self.name(winner)} ({gained} points); tricks: "
                 f"{self._tricks_text(won, points)}")

    def _report_declarations(self, deal: Deal, info) -> None:
        w = info.declaration_winner
        if w is None:
            if any(info.shown):
                self.say("  Declarations: a tie, nobody scores them")
            return
        shown = [f"{self.name(s)} {format_hand(info.shown[s])}" for s in range(N_SEATS) if info.shown[s]]
        self.say(f"  Declarations: {self._team_word(w)} (team {w}) score "
                 f"{deal.team_declarations[w]}: " + "; ".join(shown))

    def _deal_end(self, deal, k: int) -> None:
        """The end of deal ``k``: its header, the family's scoring and what the deal
        revealed (:meth:`_say_result`), the deal's score."""
        self.say("")
        self.say(f"=== Deal {k + 1} is over ===")
        self._say_result(deal)
        self.say(f"Deal score: {self._sides(deal.scores)}")

    def _say_result(self, deal: Deal) -> None:
        """Family hook: the scoring of a finished deal, what it revealed."""
        res = deal.result
        mine = team(self.seat)
        if res.void:
            self.say("Void deal: all four passed, no points.")
        else:
            c = res.contract
            outcome = "litige" if res.litige else ("made" if res.made else "failed")
            self.say(f"Contract {self._contract_text(c)}: {outcome} "
                     f"({'your' if c.taker_team == mine else 'their'} team took it)")
            self.say(f"You are team {mine} (seats {mine} and {mine + 2}).")
            self.say(res.table())
            decl = []
            for s in range(N_SEATS):
                pts, cards = deal.seat_declarations(s)
                if pts and deal.declared[s]:
                    decl.append(f"{self.name(s)} {pts} ({format_hand(cards)})")
            if decl:
                winner = deal.declaration_winner
                self.say("Declarations: " + "; ".join(decl) + (
                    f"; scored by {self._team_word(winner)} (team {winner})" if winner is not None
                    else "; nobody scores them"))
            belote = deal.team_belote
            if any(belote):
                self.say("Belote: " + self._sides(belote))
        self.say("Hands as dealt:")
        for s in range(N_SEATS):
            self.say(f"  {self.name(s) + ':':18s} {format_hand(deal.initial_hands[s])}")

    def _score_line(self) -> str:
        m = self.match
        line = f"{self._sides(m.scores)}"
        if m.pot:
            line += f" (litige pot {m.pot})"
        return line

    # ----------------------------------------------------------------- play
    def _seeds(self, k: int) -> List[int]:
        return [int(x) for x in np.random.SeedSequence([self.seed, k]).generate_state(N_SEATS)]

    def _view(self, deal: Deal, seat: int):
        """What ``seat`` decides from (the person's is shown from it too): the family's
        agent view (:func:`~coinche_rl.agents.base.agent_view`), with the match."""
        info = {"scores": list(self.match.scores), "target": self.match.target,
                "pot": self.match.pot}
        return agent_view(deal, seat, info)

    def _play_deal(self, k: int) -> None:
        deal = self.match.deal
        self._deal = deal
        me = self.seat
        seeds = self._seeds(k)
        bots = [(s, agent) for s, agent in enumerate(self.agents) if s != me]
        for s, agent in bots:
            agent.reset(s, self.rules, seeds[s])
        self._deal_start(deal, k)
        while not deal.is_terminal:
            seat = deal.current_player
            view = self._view(deal, seat)
            if seat == me:
                a = self._ask(deal, view)
            else:
                a = int(self.agents[seat].act(view))
                if not (0 <= a < A.N_ACTIONS and view.legal[a]):
                    legal = ", ".join(A.action_to_str(int(x)) for x in view.legal_actions)
                    raise IllegalActionError(
                        f"agent {self.agents[seat]!r} at {self.UNIT} {seat} chose the illegal "
                        f"action {a!r}; legal: {legal}")
            before = self._snapshot(deal, a)
            self.match.apply(a)
            _tell(bots, seat, a)
            self._report(deal, seat, a, before)
        self._deal_end(deal, k)

    def _deal_start(self, deal: Deal, k: int) -> None:
        """Family hook: the start of deal ``k``: its header, and what is public from the
        start (the classic prise's retourne)."""
        self._say_deal_start(deal, k)
        if deal.retourne is not None:
            # the classic prise: the turned-up card is public from the start, shown even
            # when the prise ends before the person speaks
            self.say(f"Retourne: {format_card(deal.retourne)} (turned up by the dealer; "
                     f"whoever takes gets it)")

    def _say_deal_start(self, deal, k: int) -> None:
        if self.match_mode:
            total = f"match to {self.match.target}"
        elif self.n_deals > 1:
            total = f"deal {k + 1} of {self.n_deals}"
        else:
            total = "one deal"
        self.say("")
        self.say(f"=== Deal {k + 1} ({total}); dealer: {self.name(deal.dealer)}; "
                 f"score: {self._score_line()} ===")

    def record(self) -> Dict[str, Any]:
        """The record of what was played: a deal record for a one-deal game, else a match
        record (an unfinished deal included as far as it went)."""
        if self.single:
            return deal_to_record(self._deal if self._deal is not None else self.match.deal)
        return match_to_record(self.match)

    def _save(self) -> Optional[str]:
        """Write the record (atomically: :func:`coinche_rl.records.save_record`); returns
        an error message or None."""
        if not self.save_path:
            return None
        try:
            save_record(self.record(), self.save_path)
        except OSError as e:
            return f"cannot write {self.save_path!r}: {e.strerror or e}"
        return None

    def _prepare_kernels(self) -> None:
        """On a fresh numba cache, compile what the game uses before the first question,
        saying so (the kernels would otherwise compile, silently, after the person's
        first answer): a deal played aside (``_play_aside``), nothing of which is shown
        or kept."""
        from ._numba_cache import _must_compile, compile_notice
        what, main, estimate = self._kernels()
        if not any(_must_compile(d) for d in main):
            return
        if compile_notice(what, main, estimate):
            self._play_aside()

    def _kernels(self):
        """Family hook: (what compiles, its main kernels, how long it takes), for the
        notice."""
        from .agents.numba_bots import bot_action
        # the entry points every deal calls (BaseDeal): the family's own kernels are
        # compiled inside them, never as dispatchers of their own, so naming those here
        # would announce a compilation on every run
        return ("the game and its agents", (E.game_step, E.game_legal_mask, bot_action),
                "about 20-60 s")

    def _play_aside(self) -> None:
        """Family hook: a deal played aside, nothing of it shown or kept, that compiles
        the kernels the game uses: fresh agents of the game's specs, the person's seat
        taking the first legal action, the person's snapshot at every step (every
        family's: its deal class, :meth:`_view`, :meth:`_snapshot`)."""
        me = self.seat
        deal = self.MATCH.DEAL(self.rules, seed=self.seed, dealer=0)
        bots = [(s, make_agent(self.specs[s], self.rules.family))
                for s in range(self.PLAYERS) if s != me]
        for s, agent in bots:
            agent.reset(s, self.rules, 0)
        agents = dict(bots)
        while not deal.is_terminal:
            seat = deal.current_player
            view = self._view(deal, seat)
            a = self._choices(view)[0] if seat == me else int(agents[seat].act(view))
            self._snapshot(deal, a)
            deal.apply(a)
            _tell(bots, seat, a)

    def _length_text(self, who: str) -> str:
        """How much is played (``who`` may reach the target)."""
        if self.match_mode:
            return f"a match to {self.match.target}"
        if self.n_deals > 1:
            return (f"{self.n_deals} deals (scored as a match to {self.match.target}: it ends "
                    f"earlier if {who} reaches it)")
        return "one deal"

    def _say_how_to_answer(self, examples: str) -> None:
        self.say(f"Answer with the number of a choice or its text ({examples}; any case); "
                 f"? lists the choices again, quit (or Ctrl-D) leaves. A forced choice (a "
                 f"single legal one) is played for you.")
        if self.save_path:
            self.say(f"The game is saved to {self.save_path} after every deal and at the end.")

    def _intro(self) -> None:
        """Family hook: who plays where, and how to answer."""
        me = self.seat
        what = self._length_text("a team")
        self.say(f"coinche-rl play: rules {rules_label(self.rules)!r}, seed {self.seed}, {what}")
        self.say(f"You are seat {me}, team {team(me)}, with your partner at seat {partner(me)}. "
                 f"Play goes counter-clockwise: right plays after you.")
        for off in range(1, N_SEATS):
            s = seat_after(me, off)
            self.say(f"  {self.name(s) + ':':18s} {self.specs[s]}")
        examples = ("take, pass, nameH, JH" if self.rules.family == "classic"
                    else f"{self.rules.min_bid}H, pass, coinche, JH")
        self._say_how_to_answer(f"{examples}, ...")

    def _match_over(self, k: int) -> None:
        """Family hook: the verdict of a match decided after ``k`` deals."""
        w = self.match.winner
        verdict = "your team wins" if w == team(self.seat) else "the other team wins"
        self._say_match_over(k, f"{verdict} (team {w})")

    def _say_match_over(self, k: int, verdict: str) -> None:
        self.say("")
        self.say(f"=== Match over after {k} deal{'s' if k > 1 else ''}: {verdict}; "
                 f"{self._score_line()} ===")

    def run(self) -> PlayResult:
        """Play to the end (or until the person leaves); save; return how it went."""
        stopped = None
        status = 0
        k = 0
        try:
            self._intro()
            self._prepare_kernels()
            while True:
                self._play_deal(k)
                k += 1
                if self.save_path and not self.match.is_terminal:
                    err = self._save()
                    if err:
                        self.say(f"Warning: {err}")
                if self.match.is_terminal:
                    self._match_over(k)
                    break
                if not self.match_mode:
                    label = "Running score" if self.n_deals > 1 else "Score"
                    self.say(f"{label} after {k} of {self.n_deals} deal{'s' if self.n_deals > 1 else ''}: "
                             f"{self._score_line()}")
                    if k >= self.n_deals:
                        break
                else:
                    self.say(f"Match score (to {self.match.target}): {self._score_line()}")
        except _Quit as q:
            stopped = q.reason
        except KeyboardInterrupt:
            stopped = "interrupted"
            status = 130
            self.say("")
        except Exception:
            # an agent's error (an illegal action, a missing dependency): keep what was
            # played, then let the caller report it
            err = self._save()
            if self.save_path and not err:
                self.say(f"(what was played is saved to {self.save_path})")
            raise
        if stopped is not None:
            self.say(f"Game left ({stopped}) after {k} finished deal{'s' if k != 1 else ''}; "
                     f"score: {self._score_line()}.")
        err = self._save()
        if err:
            self.say(f"Error: {err}")
            status = 2
        elif self.save_path:
            self.say(f"Saved to {self.save_path} (coinche-rl replay {self.save_path} checks it).")
        return PlayResult(match=self.match, deals_played=k, finished=stopped is None,
                          stopped=stopped, record=self.record(),
                          saved=self.save_path if self.save_path and not err else None,
                          status=status)


def _tell(bots, seat: int, a: int) -> None:
    """Tell each bot ``(seat, agent)`` that has ``observe`` the action ``a`` of ``seat``
    (another seat's private declare / belote choice is not told)."""
    for s, agent in bots:
        observe = getattr(agent, "observe", None)
        if observe is not None and (a not in PRIVATE_ACTIONS or s == seat):
            observe(seat, a)


def play_in_terminal(**kwargs) -> PlayResult:
    """``TerminalGame(**kwargs).run()``."""
    return TerminalGame(**kwargs).run()


def _information_set(deal: Deal, seat: int):
    # imported here: importing coinche_rl.envs registers the Gymnasium env, which imports
    # gymnasium (a tenth of a second), and the command line imports this module at its top
    from .envs.infoset import information_set
    return information_set(deal, seat)

