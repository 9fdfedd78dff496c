"""``coinche-rl play --rules belote_a_deux | belote_decouverte``: a person against a bot in
belote for two players (``coinche_rl.terminal_two``), driven through its input stream."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.cards import cards_of, format_card
from coinche_rl.cli import main
from coinche_rl.records import load_record, replay_deal, replay_match
from coinche_rl.terminal import TerminalGame
from coinche_rl.terminal_two import TwoPlayerTerminalGame
from coinche_rl.two_player import TwoPlayerDeal

PROMPT = "Your choice (number or text, ? lists the choices, quit leaves): "
FULL = 0xFFFFFFFF


class Typed(io.TextIOBase):
    """Types an answer for the game it is given: ``script`` first (one line per question),
    then a random legal action's text (mixed case) or its number; records the legal
    actions of every question it was asked."""

    def __init__(self, seed: int = 0, script=()):
        self.game = None
        self.script = list(script)
        self.asked = []
        self.rng = np.random.default_rng(seed)

    def readline(self, size=-1):
        deal = self.game._deal
        legal = deal.legal_actions()
        self.asked.append(legal)
        if self.script:
            text = self.script.pop(0)
            if callable(text):
                text = text(self.game, deal)
            return text + "\n"
        k = int(self.rng.integers(len(legal)))
        if self.rng.random() < 0.3:
            return f"{self.game.ordered_choices(legal, deal.trump).index(legal[k]) + 1}\n"
        text = A.action_to_str(legal[k])
        return (text.lower() if self.rng.random() < 0.5 else text) + "\n"


@pytest.fixture
def typed(monkeypatch):
    """Plays ``coinche-rl play`` with a :class:`Typed` stdin; returns a runner."""
    from coinche_rl import terminal_two
    games = []
    real = terminal_two.TwoPlayerTerminalGame._intro

    def intro(self):
        games.append(self)
        self.stdin.game = self
        real(self)

    monkeypatch.setattr(terminal_two.TwoPlayerTerminalGame, "_intro", intro)

    def run(argv, stdin: Typed):
        monkeypatch.setattr(sys, "stdin", stdin)
        status = main(["play", *argv])
        return status, games[-1]
    return run


# ------------------------------------------------------------------ whole deals
@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_a_whole_deal_through_the_cli(preset, typed, capsys, tmp_path):
    path = tmp_path / "deal.json"
    status, game = typed(["--rules", preset, "--seed", "4", "--save", str(path)], Typed(seed=1))
    out = capsys.readouterr().out
    assert status == 0
    deal = game._deal
    assert deal.is_terminal and game.match.deals == [deal]
    assert f"belote for two players, rules '{preset}'" in out
    assert "=== Deal 1 is over ===" in out and "Deal score: you" in out
    assert "You are player 0; the opponent (player 1) is heuristic." in out
    # the table from the person's side: stacks with face-down cards, the prise, tricks
    assert "Prise (dealer: " in out and "Retourne: " in out
    res = deal.result
    assert not res.void
    assert "/??]" in out and "  -> trick 16 to " in out
    if True:
        assert ("made" if res.made else "failed") in out
        me = game.me
        lines = out.splitlines()        # the result's table: a column per player, named
        head = next(i for i, x in enumerate(lines) if sorted(x.split()) == ["opponent", "you"])
        col = lines[head].split().index("you")
        points, score = (int(next(x for x in lines[head:] if x.startswith(label)).split()[-2:][col])
                         for label in ("card points", "deal score"))
        assert score == res.scores[me] and points == res.card_points[me]
    # the record replays
    rec = load_record(str(path))
    assert replay_deal(rec).scores == deal.scores
    assert main(["replay", str(path)]) == 0


def test_the_hand_is_sorted_by_suit_with_trumps_in_trump_order(typed, capsys):
    status, game = typed(["--rules", "belote_a_deux", "--seed", "4"], Typed(seed=1))
    out = capsys.readouterr().out
    trump_rows = [x for x in out.splitlines() if "(trump)" in x]
    assert trump_rows
    order = ["J", "9", "A", "T", "K", "Q", "8", "7"]
    for row in trump_rows:
        ranks = [c[0] for c in row.split(")", 1)[1].split()] if not row.rstrip().endswith("-") else []
        assert ranks == sorted(ranks, key=order.index), row
    assert [x.split()[0] for x in out.splitlines() if x.startswith("  ") and
            x.split() and x.split()[0] in ("spades", "hearts", "diamonds", "clubs")][:4] == \
        ["spades", "hearts", "diamonds", "clubs"]


def test_a_match_with_a_target_and_the_other_player(typed, capsys, tmp_path):
    path = tmp_path / "match.json"
    status, game = typed(["--rules", "belote_decouverte", "--match", "--target", "300",
                          "--seat", "1", "--dealer", "1", "--opponent", "random", "--seed", "2",
                          "--save", str(path)], Typed(seed=3))
    out = capsys.readouterr().out
    assert status == 0 and game.me == 1 and game.match.is_terminal
    assert game.match.deals[0].dealer == 1
    assert "a match to 300" in out and "=== Match over after" in out
    w = game.match.winner
    assert ("you win" if w == 1 else "the opponent wins") in out
    assert replay_match(load_record(str(path)))["scores"] == game.match.scores
    assert main(["replay", str(path)]) == 0


def test_several_deals(typed, capsys):
    status, game = typed(["--rules", "belote_a_deux", "--deals", "2", "--target", "5000",
                          "--seed", "6"], Typed(seed=2))
    out = capsys.readouterr().out
    assert status == 0 and len(game.match.deals) == 2
    assert "Running score after 2 of 2 deals: you " in out


# ------------------------------------------------------------------ input
def test_a_wrong_input_is_answered_in_one_line_with_the_legal_choices(typed, capsys):
    # dealer 1: player 0 (the person) speaks first: pass or take
    status, game = typed(["--rules", "belote_a_deux", "--seed", "4", "--dealer", "1"],
                         Typed(seed=1, script=["hello", "80H", "nameS", "7", "", "?", "take"]))
    out = capsys.readouterr().out
    assert status == 0
    replies = out.split(PROMPT)[1:8]
    lines = [r.splitlines() for r in replies]
    # each wrong answer: the echo, then one line
    assert lines[0][1] == "'hello' is not an action: expected pass or take. Legal now: 1) pass  2) take"
    assert lines[1][1] == ("Not legal: 80H is not a choice now: expected pass or take. "
                           "Legal now: 1) pass  2) take")
    assert lines[2][1].startswith("Not legal: nameS: naming a trump is only possible in the "
                                  "second round") and lines[2][1].endswith("Legal now: 1) pass  2) take")
    assert lines[3][1] == ("There is no choice 7: type 1..2 or the action's text. "
                           "Legal now: 1) pass  2) take")
    assert lines[4][1].startswith("Type the number of a choice or its text (e.g. pass).")
    assert all(len(x) == 2 for x in lines[:5])
    assert lines[5][1].strip().startswith("1) pass")           # '?' lists them
    assert game._deal.history[0] == A.TAKE


def _own_illegal_card(game, deal):
    """A card the person owns and could play but for the rules (must follow / trump)."""
    me = game.me
    mine = deal.hands[me] | deal.table_up[me]
    bad = mine & ~deal.legal_cards()
    return format_card(cards_of(bad)[0]) if bad else A.action_to_str(deal.legal_actions()[0])


def test_a_card_against_the_rules_or_not_his_own_is_refused_with_the_reason(typed, capsys):
    # the bot's face-up card (public) is not the person's
    def bots_card(game, deal):
        return format_card(cards_of(deal.table_up[1 - game.me])[0])

    # find a question where the person follows and holds a card he may not play
    class Following(Typed):
        def readline(self, size=-1):
            deal = self.game._deal
            me = self.game.me
            if deal.phase == "play" and not self.script and not getattr(self, "done", False):
                mine = deal.hands[me] | deal.table_up[me]
                if mine & ~deal.legal_cards() and deal.current_trick:
                    self.done = True
                    self.script = [_own_illegal_card]
                elif not getattr(self, "other", False) and deal.table_up[1 - me]:
                    self.other = True
                    self.script = [bots_card]
            return super().readline(size)

    for seed in range(20):
        capsys.readouterr()
        inp = Following(seed=seed)
        status, game = typed(["--rules", "belote_a_deux", "--seed", str(seed)], inp)
        if getattr(inp, "done", False) and getattr(inp, "other", False):
            break
    out = capsys.readouterr().out
    assert inp.done and inp.other
    refused = [x for x in out.splitlines() if x.startswith("Not legal: ")]
    assert len(refused) == 2, refused
    assert "is not one of your playable cards (your hand or your face-up table cards). " \
           "Legal now: 1) " in refused[0]
    assert re.search(r"Not legal: \w\w: (must follow \w+|trump led: must play a higher trump|"
                     r"void in \w+: must trump \(\w+\))\. Legal now: 1\) ", refused[1]), refused[1]


def test_a_forced_choice_is_played_for_the_person_and_said(typed, capsys):
    # seed 4, dealer 1: the person takes; the bot ... ; the last trick is always forced
    inp = Typed(seed=1)
    status, game = typed(["--rules", "belote_a_deux", "--seed", "4"], inp)
    out = capsys.readouterr().out
    deal = game._deal
    # replay the deal: the person's decisions with a single legal action
    d = TwoPlayerDeal(deal.rules, deck=deal.deck, dealer=deal.dealer)
    forced = []
    for a in deal.history:
        if d.current_player == game.me and len(d.legal_actions()) == 1:
            forced.append(a)
        d.apply(a)
    assert forced                                   # the last card at least
    for a in forced:
        assert f"  (a single legal choice: {A.action_to_str(a)}, played for you)" in out
    assert out.count("(a single legal choice:") == len(forced)
    assert all(len(legal) > 1 for legal in inp.asked)        # never asked about them
    assert out.count(PROMPT) == len(inp.asked)


def test_the_forced_no_exchange(capsys):
    """The person, non-taker without the 7 of trump: no-exchange is played for him."""
    for seed in range(40):
        deal = TwoPlayerDeal("belote_a_deux", seed=seed, dealer=1)
        deal.apply("take")                           # player 0 (the bot) speaks first
        if deal.legal_actions() == [A.NO_EXCHANGE]:
            break
    out = io.StringIO()
    game = TerminalGame(seat=1, opponents="heuristic:prise=-20", rules="belote_a_deux", seed=0,
                        dealer=1, stdin=io.StringIO("1\n" * 200), stdout=out)
    assert isinstance(game, TwoPlayerTerminalGame)
    game.match.deal = TwoPlayerDeal("belote_a_deux", deck=deal.deck, dealer=1)
    game.run()
    text = out.getvalue()
    assert game._deal.taker == 0 and game._deal.exchanged is False
    assert "  (a single legal choice: no-exchange, played for you)\n  you:           no-exchange" in text


def test_quit_and_end_of_input(tmp_path, monkeypatch, capsys):
    path = tmp_path / "left.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n"))
    assert main(["play", "--rules", "belote_a_deux", "--seed", "3", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Game left (end of input) after 0 finished deals" in out
    rec = load_record(str(path))
    assert rec["rules"]["preset"] == "belote_a_deux" and rec["prise"][:1] in (["pass"], ["take"])
    assert main(["replay", str(path)]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--rules", "belote_decouverte", "--seed", "3"]) == 0
    assert "Game left (quit)" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--partner", "random"], "has no partner; --opponent SPEC names the bot"),
    (["--opponents", "random", "heuristic"], "has one opponent: give one agent spec, not 2"),
    (["--seat", "2"], "your player (--seat) must be 0 or 1, not 2"),
    (["--dealer", "3"], "the dealer must be 0 or 1, not 3"),
    (["--opponent", "colver:maxi"],
     "agent 'colver:maxi' plays the family coinche, not the family 'two'"),
    (["--opponent", "nosuchagent"], "nosuchagent"),
])
def test_cli_errors_before_playing(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 100))
    assert main(["play", "--rules", "belote_a_deux", *argv]) == 2
    cap = capsys.readouterr()
    assert message in cap.err and cap.out == ""


# ------------------------------------------------------------------ no leak
class Watched(io.StringIO):
    """Checks every text written against the deal being played: no face-down card while it
    lies face down, no card of the bot's hand that the person may not know, no card not
    yet dealt."""

    def __init__(self):
        super().__init__()
        self.game = None
        self.checked = 0

    def write(self, text):
        game = self.game
        deal = game._deal if game is not None else None
        if deal is not None:
            me, bot = game.me, 1 - game.me
            public = deal.hands[me] | deal.table_up[0] | deal.table_up[1] | (1 << deal.retourne)
            for _, c in deal.plays:
                public |= 1 << c
            if deal.exchanged:
                public |= 1 << 8 * deal.trump                 # the 7 of trump: public
            w = deal.declaration_winner
            if w is not None and deal.trick_winners:
                public |= deal.declarations[w][1]             # shown after the first trick
            hidden = FULL & ~public
            # what the rules hide: the face-down cards and the bot's hand are in it
            assert not (deal.table_down[0] | deal.table_down[1]) & public
            for c in cards_of(hidden):
                assert not re.search(rf"(?<![0-9A-Za-z]){format_card(c)}(?![0-9A-Za-z])", text), \
                    (format_card(c), text)
            self.checked += bool(deal.table_down[0] | deal.table_down[1] | deal.hands[bot] & hidden)
        return super().write(text)


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_no_face_down_card_nor_the_bots_hand_is_ever_shown(preset):
    for seed in range(4):
        out = Watched()
        inp = Typed(seed=seed)
        game = TerminalGame(seat=seed % 2, opponents="heuristic", rules=preset,
                            seed=seed, deals=2, target=5000, stdin=inp, stdout=out)
        inp.game = out.game = game
        res = game.run()
        assert res.finished and len(game.match.deals) == 2
        assert out.checked > 20                      # the check ran while cards were hidden
        assert "??" in out.getvalue()


#: the family hooks TerminalGame declares (its docstring names them)
HOOKS = {"_place", "name", "_sides", "_view", "_choices", "_status", "_forms", "_refusal",
         "_snapshot", "_report", "_deal_start", "_say_result", "_intro", "_match_over",
         "_kernels", "_play_aside"}


def test_one_terminal_game_whose_family_overrides_declared_hooks_only():
    """Belote for two players is TerminalGame with its rules: the family's class overrides
    the declared hooks and nothing else, each with the base's signature (issue 43)."""
    import inspect
    for h in HOOKS:
        assert f":meth:`{h}`" in TerminalGame.__doc__, h
    overridden = {k for k, v in vars(TwoPlayerTerminalGame).items()
                  if inspect.isfunction(v) and hasattr(TerminalGame, k)}
    assert overridden <= HOOKS, overridden - HOOKS
    for k in overridden:
        mine = list(inspect.signature(getattr(TwoPlayerTerminalGame, k)).parameters)
        base = list(inspect.signature(getattr(TerminalGame, k)).parameters)
        assert len(mine) == len(base), k
    g = TerminalGame(rules="belote_decouverte", seat=1, opponents=["random"])
    assert type(g) is TwoPlayerTerminalGame and g.me == 1 and g.specs == ["random", None]
    assert type(TerminalGame(rules="ffb")) is TerminalGame


def test_module_doctest():
    import doctest
    from coinche_rl import terminal_two
    assert doctest.testmod(terminal_two).failed == 0
