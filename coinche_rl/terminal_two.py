"""Play belote for two players in the terminal against a bot (``coinche-rl play --rules
belote_a_deux`` or ``belote_decouverte``; RULES.md §12, docs/two_player.md).

A person plays one player, an agent of the family (:mod:`coinche_rl.agents`:
``heuristic``, ``random``, an import path) the other; the bot decides from its own
:class:`~coinche_rl.two_player.TwoPlayerView` only (``reset`` before each deal, ``act``
when it is to act). Everything the person is shown comes from the person's own view
(``deal.view(you)``) and the public facts of the deal: his hand sorted by suit (trumps
in trump order once trump is known), both players' table stacks (``AS/??``: the ace of
spades covering a face-down card, ``??``: a face-down card whose cover was just played,
turned face up when the trick is collected), the retourne and where it went, the
exchange, the prise so far, the current trick, the tricks and card points won, each
player's declaration and, at the end of the deal, the scoring. A face-down card is
unknown to both players, so it is never shown while it lies face down, nor the bot's
hand beyond what the rules make public (the retourne he took, the 7 of trump after an
exchange, a winning declaration).

The game is :class:`~coinche_rl.terminal.TerminalGame` (``TerminalGame(rules=
"belote_a_deux", ...)`` is this module's class, with the same arguments): the settings,
the input, the questions and refusals, the loop of a deal, the match and the saving are
its; this module overrides its declared family hooks only, with their signatures (the
seats, the names, the views, the display, the reports, the kernels). The input is the
four-player play's: the number of a choice or its text in the project's notation
(``take``, ``pass``, ``nameD``, ``exchange``, ``no-exchange``, ``JH``; any case). A wrong
answer gets one line: the reason and the legal choices. ``?`` lists the choices,
``quit`` or the end of the input leaves; a single legal choice is played at once, and
said.

>>> import io
>>> from coinche_rl.terminal import TerminalGame
>>> out = io.StringIO()
>>> game = TerminalGame(rules="belote_a_deux", opponents="random", seed=3,
...                     stdin=io.StringIO("1\\n" * 40), stdout=out)
>>> type(game).__name__
'TwoPlayerTerminalGame'
>>> result = game.run()
>>> result.finished, result.deals_played
(True, 1)
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from . import actions as A
from .cards import SUIT_NAMES, format_card, format_hand, popcount
from .engine.two_layout import N_PLAYERS, other
from .game import IllegalActionError
from .rules import rules_label
from .terminal import PlaySetupError, TerminalGame
from .two_player import TwoPlayerDeal, TwoPlayerMatch, TwoPlayerView, two_player_rules

__all__ = ["TwoPlayerTerminalGame"]

class TwoPlayerTerminalGame(TerminalGame):
    """One person against a bot in belote for two players (see the module docstring):
    :class:`~coinche_rl.terminal.TerminalGame` with this family's hooks.
    ``TerminalGame(seat, partner, opponents, rules, ...)`` takes the same arguments:
    ``seat`` is the person's player (0 or 1), ``opponents`` the bot's two-player agent
    spec (one), ``partner`` is not given (there is none), ``rules`` ``belote_a_deux`` (the
    default), ``belote_decouverte`` or a two-family rule set.
    """

    PLAYERS = N_PLAYERS
    UNIT = "player"
    DEFAULT_RULES = "belote_a_deux"
    RULES_OF = staticmethod(two_player_rules)
    MATCH = TwoPlayerMatch
    SHORT_LIST = 32                 # a prise's or a play's choices: always few
    SEAT_RULE = "belote for two players has players 0 and 1: your player (--seat) must be 0 or 1"
    DEALER_RULE = "belote for two players has players 0 and 1: the dealer must be 0 or 1"
    CARD_FORM = "a card"            # from his hand or his face-up table cards

    def _place(self, partner: Optional[str], opponents) -> List[Optional[str]]:
        what = f"belote for two players (rules {rules_label(self.rules)!r})"
        if partner is not None:
            raise PlaySetupError(f"--partner: {what} has no partner; --opponent SPEC names "
                                 f"the bot")
        opponents = [opponents] if isinstance(opponents, str) else list(opponents)
        if len(opponents) != 1:
            raise PlaySetupError(f"--opponent: {what} has one opponent: give one agent spec, "
                                 f"not {len(opponents)}")
        specs: List[Optional[str]] = [None] * N_PLAYERS
        specs[other(self.seat)] = opponents[0]
        return specs

    # --------------------------------------------------------------- names
    def name(self, p: int) -> str:
        """``'you'`` or ``'opponent'``."""
        return "you" if p == self.me else "opponent"

    def _sides(self, pair) -> str:
        return f"you {pair[self.me]}, opponent {pair[other(self.me)]}"

    # ------------------------------------------------------------- display
    def _stack_text(self, up: int, down: bool) -> str:
        if up >= 0:
            return format_card(up) + ("/??" if down else "")
        return "??" if down else ""

    def _table_lines(self, view: TwoPlayerView) -> List[str]:
        if not any(view.stacks):
            return []
        legend = "XX/??: XX lies on a face-down card, unknown to both players"
        if any(u < 0 and d for row in view.stacks for u, d in row):
            legend += "; ?? alone: its cover was just played, it turns face up with the trick"
        lines = [f"Table ({legend}):"]
        for p in (other(self.me), self.me):
            stacks = " ".join(f"[{t}]" for t in (self._stack_text(u, d) for u, d in view.stacks[p]) if t)
            extra = ""
            if p != self.me and self.rules.hand_cards:
                extra = f"; hand: {view.other_hand_size} card{'s' if view.other_hand_size != 1 else ''}"
                if view.known_other:
                    extra += f" (you know {format_hand(view.known_other)})"
            lines.append(f"  {self.name(p) + ':':10s} {stacks or '-'}{extra}")
        return lines

    def _prise_lines(self, view: TwoPlayerView, deal: TwoPlayerDeal) -> List[str]:
        said = ", ".join(f"{self.name(p)} {A.action_to_str(a)}" for p, a in self._prise_by(view, deal))
        lines = [f"Prise (dealer: {self.name(view.dealer)}): {said or 'nothing said yet'}"]
        suit = SUIT_NAMES[view.retourne >> 3]
        if deal.prise_round == 1:
            lines.append(f"Retourne {format_card(view.retourne)}: round 1, take ({suit} trump) or pass")
        else:
            lines.append(f"Retourne {format_card(view.retourne)}: round 2, name another suit "
                         f"than {suit} as trump, or pass")
        return lines

    def _prise_by(self, view: TwoPlayerView, deal: TwoPlayerDeal):
        n = other(view.dealer)
        return [((n, view.dealer)[k % 2], a) for k, a in enumerate(view.prise)]

    def _trump_text(self, view: TwoPlayerView) -> str:
        suit = SUIT_NAMES[view.trump]
        rnd = "round 1" if view.prise and view.prise[-1] == A.TAKE else "round 2"
        text = f"Trump: {suit}, taken by {self.name(view.taker)} in {rnd}"
        if self.rules.hand_cards:
            text += f" (retourne {format_card(view.retourne)}"
            if view.exchanged:
                text += f", exchanged by {self.name(other(view.taker))} for the 7 of trump"
            text += ")"
        return text

    def _play_lines(self, view: TwoPlayerView) -> List[str]:
        won = [view.trick_winners.count(p) for p in range(N_PLAYERS)]
        lines = [self._trump_text(view),
                 f"Tricks won: {self._tricks_text(won, view.card_points_won)}"]
        n = len(view.trick_winners) + 1
        if len(view.plays) % 2 == 0:
            lines.append(f"Trick {n} of 16: you lead")
        else:
            p, c = view.plays[-1]
            lines.append(f"Trick {n} of 16: {self.name(p)} led {format_card(c)}")
        return lines

    def _status(self, deal: TwoPlayerDeal, view: TwoPlayerView, legal: Sequence[int]) -> None:
        self.say("")
        if view.phase == "prise":
            for line in self._prise_lines(view, deal):
                self.say(line)
        elif view.phase == "exchange":
            self.say(self._trump_text(view))
            self.say(f"You hold the 7 of trump: exchange it for the retourne "
                     f"{format_card(view.retourne)}, or keep it (no-exchange)?")
        else:
            for line in self._play_lines(view):
                self.say(line)
            if self.rules.declarations and not any(q == self.me for q, _ in view.plays):
                pts, cards = deal.declarations[self.me]       # his own cards
                if pts:
                    self.say(f"Your declaration: {pts} ({format_hand(cards)}), declared with "
                             f"your first card")
        for line in self._table_lines(view):
            self.say(line)
        if self.rules.hand_cards:
            self.say(f"Your hand ({popcount(view.hand)} cards):")
            for line in self.hand_lines(view.hand, view.trump):
                self.say(line)
        self._say_turn({"prise": "speak", "exchange": "choose"}.get(view.phase, "play"), legal)

    # -------------------------------------------------------------- choices
    def _choices(self, view: TwoPlayerView) -> List[int]:
        """Prise actions by id, cards by suit, strongest first (trump as the strain)."""
        return self.ordered_choices(view.legal_actions, view.trump)

    def _refusal(self, deal: TwoPlayerDeal, view: TwoPlayerView, a: int,
                 legal: Sequence[int]) -> str:
        text = A.action_to_str(a)
        kind = self._kind(a)
        if kind not in {self._kind(x) for x in legal}:
            return f"{text} is not a choice now: expected {self._forms(deal, legal)}"
        if kind == "card":
            c = A.action_card(a)
            if not (view.hand | view.table_up[self.me]) >> c & 1:
                where = "your hand or " if self.rules.hand_cards else ""
                # the same words for every card he cannot play: a face-down card of his
                # own is unknown to him too
                return f"{text} is not one of your playable cards ({where}your face-up table cards)"
        probe = deal.clone()
        try:
            probe.apply(a)
        except IllegalActionError as e:
            reason = str(e).split("; legal:")[0]
            head, sep, tail = reason.partition(": ")
            return f"{text}: {tail}" if sep else reason
        return f"{text} is not legal now"

    @staticmethod
    def _kind(a: int) -> str:
        if A.is_card(a):
            return "card"
        if a in (A.PASS, A.TAKE) or A.NAME_BASE <= a < A.NAME_BASE + 4:
            return "prise"
        if a in (A.EXCHANGE, A.NO_EXCHANGE):
            return "exchange"
        return "other"

    # --------------------------------------------------------------- events
    def _snapshot(self, deal: TwoPlayerDeal, a: int) -> TwoPlayerView:
        return deal.view(self.me)

    def _report(self, deal: TwoPlayerDeal, p: int, a: int, before: TwoPlayerView) -> None:
        """What the action made public (from the person's view after it)."""
        me = self.me
        after = deal.view(me)
        who = self.name(p)
        if not A.is_card(a):
            text = A.action_to_str(a)
            if a == A.EXCHANGE:
                seven = format_card(8 * after.trump)
                text += (f" (the 7 of trump {seven} for the retourne {format_card(after.retourne)};"
                         f" {seven} goes to {self.name(after.taker)})")
            self.say(f"  {who + ':':14s} {text}")
            if before.phase == "prise" and after.phase != "prise":
                if deal.is_void:
                    self.say("Both passed twice: the deal is void (no points).")
                    return
                where = (f"; the retourne {format_card(after.retourne)} goes to "
                         f"{self.name(after.taker)}" if self.rules.hand_cards else "")
                self.say(f"{who[0].upper() + who[1:]} took: trump {SUIT_NAMES[after.trump]}{where}.")
            if before.phase != "play" and after.phase == "play":
                self._report_dealt(after)
            return
        c = A.action_card(a)
        source = "hand" if before.hand >> c & 1 or (p != me and not before.table_up[p] >> c & 1) \
            else "table"
        verb = "you play" if p == me else "opponent plays"
        self.say(f"  {verb:14s} {format_card(c)} (from {'the ' if source == 'table' else ''}{source})")
        first = not any(q == p for q, _ in before.plays)
        if self.rules.declarations and first and after.declarations[p]:
            if p == me:
                pts, cards = deal.declarations[me]          # his own cards
                self.say(f"  you declare {pts} ({format_hand(cards)})")
            else:
                self.say(f"  opponent declares {after.declarations[p]}")
        belote = deal.belote_points
        if belote[p] and not self._belote_said[p]:
            self._belote_said[p] = True
            self.say(f"  {who}: belote ({belote[p]})")
        if len(after.trick_winners) > len(before.trick_winners):
            w = after.trick_winners[-1]
            gained = after.card_points_won[w] - before.card_points_won[w]
            won = [after.trick_winners.count(q) for q in range(N_PLAYERS)]
            self._say_trick(len(after.trick_winners), w, gained, won, after.card_points_won)
            for q in (me, other(me)):
                turned = after.table_up[q] & ~before.table_up[q]
                if turned:
                    side = "your side" if q == me else "the opponent's side"
                    self.say(f"  turned face up on {side}: {format_hand(turned)}")
            if len(after.trick_winners) == 1 and self.rules.declarations:
                self._say_declarations(deal, after)

    def _report_dealt(self, view: TwoPlayerView) -> None:
        if self.rules.hand_cards:
            non_taker = other(view.taker)
            bergere = view.stacks[non_taker][-1][0] if view.stacks[non_taker] else -1
            self.say(f"The rest is dealt: you hold {popcount(view.hand)} cards, the opponent "
                     f"{view.other_hand_size}; 3 stacks each (a face-up card on a face-down "
                     f"one), and the bergère {format_card(bergere) if bergere >= 0 else '-'} "
                     f"face up in front of {self.name(non_taker)}.")

    def _say_declarations(self, deal: TwoPlayerDeal, view: TwoPlayerView) -> None:
        d = view.declarations
        if not any(d):
            return
        w = view.declaration_winner
        said = f"you {d[self.me]}, opponent {d[other(self.me)]}"
        if w is None:
            self.say(f"  Declarations ({said}): equal, neither scores")
        else:
            cards = deal.declarations[w][1]       # public once the first trick is complete
            self.say(f"  Declarations ({said}): {self.name(w)} score{'' if w == self.me else 's'} "
                     f"{d[w]} ({format_hand(cards)})")

    def _say_result(self, deal: TwoPlayerDeal) -> None:
        self.say(deal.result.table([self.name(p) for p in range(N_PLAYERS)]))

    # ----------------------------------------------------------------- play
    def _deal_start(self, deal: TwoPlayerDeal, k: int) -> None:
        self._belote_said = [False, False]
        self._say_deal_start(deal, k)
        ret = format_card(deal.retourne)
        if self.rules.hand_cards:
            self.say(f"Retourne: {ret} (proposes {SUIT_NAMES[deal.retourne >> 3]} as trump; "
                     f"whoever takes gets it)")
        else:
            self.say(f"Retourne: {ret}, the dealer's last face-up card (proposes "
                     f"{SUIT_NAMES[deal.retourne >> 3]} as trump; it stays on the table)")

    def _kernels(self):
        from .agents.numba_bots import BOT_ACTIONS
        from . import engine as E
        return ("the game and its agent",
                (E.game_step, E.game_legal_mask, E.game_public_view_into, BOT_ACTIONS[1]),
                "about 10-30 s")

    def _intro(self) -> None:
        what = self._length_text("a player")
        self.say(f"coinche-rl play: belote for two players, rules {rules_label(self.rules)!r}, "
                 f"seed {self.seed}, {what}")
        self.say(f"You are player {self.me}; the opponent (player {other(self.me)}) is "
                 f"{self.specs[other(self.me)]}.")
        self._say_how_to_answer("take, pass, nameH, exchange, no-exchange, JH"
                                if self.rules.hand_cards else "take, pass, nameH, JH")

    def _match_over(self, k: int) -> None:
        self._say_match_over(k, "you win" if self.match.winner == self.me else "the opponent wins")
