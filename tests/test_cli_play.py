"""``coinche-rl play``: a person at one seat against agents, in the terminal
(``coinche_rl.terminal``), driven here through its input stream."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents import Agent, PlayerView, register_agent
from coinche_rl.agents.base import PRIVATE_ACTIONS
from coinche_rl.cards import format_card, parse_hand
from coinche_rl.cli import main
from coinche_rl.records import load_record, replay_deal, replay_match
from coinche_rl.rules import get_rules
from coinche_rl.terminal import PlaySetupError, TerminalGame, seat_name

REPO = Path(__file__).resolve().parents[1]


def ones(n: int = 400) -> io.StringIO:
    """Always the first choice shown."""
    return io.StringIO("1\n" * n)


class TypedInput(io.TextIOBase):
    """A stream that types action texts for the game it is given: the lowest bid while
    nobody has bid, else pass; in play a random legal card; in mixed case."""

    def __init__(self, seed: int = 0):
        self.game = None
        self.typed = []
        self.rng = np.random.default_rng(seed)

    def readline(self, size=-1):
        deal = self.game.match.deal
        legal = deal.legal_actions()
        if deal.phase == "auction":
            bids = [a for a in legal if A.is_bid(a)]
            a = bids[0] if bids and deal.highest_bid is None else legal[0]
        else:
            a = legal[int(self.rng.integers(len(legal)))]
        text = A.action_to_str(a)
        text = text.lower() if len(self.typed) % 2 else text.upper()
        self.typed.append(text)
        return text + "\n"


class Interrupting(io.TextIOBase):
    """Answers '1' a few times, then Ctrl-C."""

    def __init__(self, n: int):
        self.n = n

    def readline(self, size=-1):
        if self.n == 0:
            raise KeyboardInterrupt
        self.n -= 1
        return "1\n"


class SpyAgent(Agent):
    """Records the protocol calls it gets; plays the first legal action."""

    log = []

    def reset(self, seat, rules, seed):
        super().reset(seat, rules, seed)
        self.calls = [("reset", seat, rules.name, seed)]
        SpyAgent.log.append(self.calls)

    def observe(self, seat, action):
        self.calls.append(("observe", seat, int(action)))

    def act(self, view):
        assert isinstance(view, PlayerView) and view.seat == self.seat
        assert not hasattr(view, "deal")
        self.calls.append(("act", view.seat))
        return int(view.legal_actions[0])


register_agent("test_spy", SpyAgent, {}, "test agent: records its calls")


def game(**kw):
    kw.setdefault("partner", "random")
    kw.setdefault("opponents", ["random"])
    kw.setdefault("stdin", ones())
    kw.setdefault("stdout", io.StringIO())
    return TerminalGame(**kw)


# ------------------------------------------------------------------ whole deals
def test_first_choice_plays_a_whole_deal(tmp_path):
    path = tmp_path / "deal.json"
    g = game(seed=3, save=str(path))
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished and res.stopped is None and res.status == 0 and res.deals_played == 1
    assert g.match.deals[0].is_terminal
    for text in ("You are seat 0, team 0", "Auction (dealer:", "Your hand (seat 0):",
                 "Your turn to bid. Choices:", "  1) pass", "Trick 1 of 8",
                 "=== Deal 1 is over ===", "deal score", "Hands as dealt:", "Score after 1 of 1"):
        assert text in out, text
    rec = load_record(str(path))
    assert rec["format"] == "coinche-rl/deal"
    assert replay_deal(rec) == g.match.deals[0]


def test_played_deal_shows_trick_and_trump(capsys):
    # seed 3: the bots bid, seat 0 plays cards; the trump suit is marked in the hand
    g = game(seed=3, partner="heuristic", opponents=["heuristic"])
    res = g.run()
    out = g.stdout.getvalue()
    deal = res.match.deals[0]
    assert deal.contract is not None
    assert "(trump)" in out or deal.contract.strain >= 4
    assert "winning:" in out and ", led by " in out
    assert "-> trick 8 to " in out
    assert f"Contract {g._contract_text(deal.contract)}:" in out
    assert ("made" in out) or ("failed" in out)


def test_typed_texts_play_a_whole_deal(tmp_path, capsys):
    path = tmp_path / "typed.json"
    inp = TypedInput(seed=1)
    g = game(seed=5, stdin=inp, save=str(path))
    inp.game = g
    res = g.run()
    assert res.finished and res.status == 0
    deal = res.match.deals[0]
    # what was typed is what was played (case-insensitive texts); a single legal choice
    # is played without asking
    mine = [A.action_to_str(a) for (s, a), n in zip(zip(_seats_all(deal), deal.history),
                                                      _legal_counts(deal)) if s == 0 and n > 1]
    assert [t.upper() for t in inp.typed] == [m.upper() for m in mine]
    assert inp.typed[0] == inp.typed[0].upper() and inp.typed[1] == inp.typed[1].lower()
    assert main(["replay", str(path)]) == 0
    assert "deal record OK" in capsys.readouterr().out


def _seats(deal):
    """The seat of each action of a finished deal (auction then plays)."""
    n = len(deal.auction)
    seats = [(deal.dealer + 1 + i) % 4 for i in range(n)]
    return seats + [s for s, _ in deal.plays]


def _legal_counts(deal):
    """The number of legal choices at each action of a finished deal."""
    from coinche_rl.game import Deal
    d = Deal(deal.rules, hands=deal.initial_hands, dealer=deal.dealer)
    counts = []
    for a in deal.history:
        counts.append(len(d.legal_actions()))
        d.apply(a)
    return counts


def test_bad_input_is_answered_in_one_line():
    # seed 3, dealer 3: seat 0 speaks first, nothing to coinche yet: 41 choices
    inp = io.StringIO("foo\n99\n0\ncoinche\nJZ\n\n?\n" + "1\n" * 300)
    g = game(seed=3, dealer=3, stdin=inp)
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished
    assert "'foo' is not an action: expected pass, a bid such as 80H" in out
    assert "There is no choice 99: type 1..41" in out
    assert "There is no choice 0" in out
    assert "Not legal: illegal auction action 'coinche' for seat 0: there is no bid to coinche" in out
    assert "'JZ' is not an action" in out
    assert "Type the number of a choice or its text" in out
    # a bad answer gets its reason and a pointer to '?', not the 41 choices again:
    # they are shown once, then on '?'
    first_turn = out.split("Your turn to bid. Choices:")[1].split("  you (seat 0):")[0]
    assert first_turn.count("  1) pass") == 2
    assert first_turn.count("(? lists the 41 choices)") == 6        # the empty answer too
    assert res.match.deals[0].history[0] == A.PASS  # then '1' was taken


def test_a_bad_card_is_answered_with_the_few_choices():
    # a play's choices are few: a wrong answer shows them again
    g = game(seed=4, dealer=3, partner="heuristic", opponents=["heuristic"])
    g.stdin = _Scripted(g, None, "nosuchcard")
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished
    reply = out.split("Your choice (number or text, ? lists the choices, quit leaves): nosuchcard")[1]
    first = reply.splitlines()[1]
    assert first.startswith("'nosuchcard' is not an action: expected a card of your hand"), first
    assert "Legal now: 1) " in first                  # on the same line
    for word in ("take", "declare", "belote", "bid", "pass"):
        assert word not in first, first


def test_errors_name_only_what_applies_to_the_phase_and_rules():
    # an ffb auction: no take, name, declare or belote; the bids of the rules (80..160)
    g = game(seed=3, dealer=3, stdin=io.StringIO("hello\n85H\n175S\n" + "1\n" * 300))
    g.run()
    out = g.stdout.getvalue()
    line = next(x for x in out.splitlines() if x.startswith("'hello' is not an action"))
    for word in ("take", "name", "declare", "belote", "180"):
        assert word not in line, line
    assert "pass" in line and "80..160 by 10" in line and "coinche" in line
    assert "Invalid bid '85H': bid values are 80..160 by 10 under rules 'ffb'." in out
    assert "175S" in out and "80..180" not in out
    # the rules' own bids: ffb with bids to 180 says so
    g = game(seed=3, dealer=3, rules=get_rules("ffb", max_bid=180),
             stdin=io.StringIO("85H\n" + "1\n" * 300))
    g.run()
    assert "bid values are 80..180 by 10" in g.stdout.getvalue()
    # the classic prise: take and pass, no bids
    g = game(seed=3, dealer=0, rules="classic", partner="heuristic", opponents=["heuristic"],
             stdin=io.StringIO("hello\n" + "1\n" * 300))
    g.run()
    out = g.stdout.getvalue()
    line = next(x for x in out.splitlines() if x.startswith("'hello' is not an action"))
    assert "take" in line and "bid" not in line and "belote" not in line, line


def test_a_single_legal_choice_is_played_for_the_person():
    g = game(seed=4, dealer=3, partner="heuristic", opponents=["heuristic"])
    res = g.run()
    out = g.stdout.getvalue()
    deal = res.match.deals[0]
    mine = [n for s, n in zip(_seats_all(deal), _legal_counts(deal)) if s == 0]
    forced = sum(1 for n in mine if n == 1)
    assert forced >= 1                          # the last trick's card at least
    assert out.count("(a single legal choice: ") == forced
    assert out.count("Your choice (number or text") == len(mine) - forced


def test_the_contract_is_announced_once():
    for seed in (3, 4, 5, 6):
        g = game(seed=seed, dealer=3, partner="heuristic", opponents=["heuristic"])
        res = g.run()
        if res.match.deals[0].is_void:
            continue
        out = g.stdout.getvalue()
        first_trick = out.split("-> trick 1 to")[0]
        assert first_trick.count("Contract: ") == 1, first_trick


def test_classic_retourne_is_shown_when_the_prise_ends_before_the_person_speaks():
    # seed 1, dealer 0 (seat 0 speaks last): the partner takes before seat 0 speaks
    g = game(seed=1, dealer=0, rules="classic", partner="heuristic", opponents=["heuristic"])
    res = g.run()
    out = g.stdout.getvalue()
    deal = res.match.deals[0]
    assert "Your turn to bid" not in out           # the person never spoke in the prise
    card = format_card(deal.retourne)
    assert f"Retourne: {card}" in out.split("Your hand")[0]
    assert f"the retourne {card} goes to " in out


def test_card_not_in_hand_is_refused_with_the_reason():
    g = game(seed=4, dealer=3, partner="heuristic", opponents=["heuristic"])
    hand = g.match.deal.hands[0]
    other = next(c for c in range(32) if not hand >> c & 1)
    from coinche_rl.cards import format_card
    # pass through the auction, then try a card of another hand, then the first choice
    g.stdin = _Scripted(g, other)
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished
    assert f"Not legal: illegal card '{format_card(other)}' for seat 0: the card is not in the hand" in out


class _Scripted(io.TextIOBase):
    """Passes in the auction; at the first card, a card not held (or ``text``); then
    the first choice."""

    def __init__(self, game, bad_card, text=None):
        self.game, self.bad, self.text, self.tried = game, bad_card, text, False

    def readline(self, size=-1):
        deal = self.game.match.deal
        if deal.phase == "play" and not self.tried:
            self.tried = True
            if self.text is not None:
                return self.text + "\n"
            return A.action_to_str(A.card_action(self.bad)).lower() + "\n"
        return "1\n"


# ---------------------------------------------------------------- leaving early
def test_end_of_input_saves_what_was_played(tmp_path, capsys):
    path = tmp_path / "partial.json"
    g = game(seed=3, dealer=3, stdin=io.StringIO("1\n1\n1\n"), save=str(path))
    res = g.run()
    out = g.stdout.getvalue()
    assert not res.finished and res.stopped == "end of input" and res.status == 0
    assert "Game left (end of input) after 0 finished deals" in out
    assert f"Saved to {path}" in out
    rec = load_record(str(path))
    assert rec["format"] == "coinche-rl/deal" and "result" not in rec
    n = len(rec["auction"]) + len(rec["plays"])
    assert n == len(res.match.deal.history) and n >= 3
    assert main(["replay", str(path)]) == 0
    assert "deal record OK" in capsys.readouterr().out


def test_quit_and_ctrl_c(tmp_path):
    g = game(seed=4, stdin=io.StringIO("1\nquit\n"))
    res = g.run()
    assert res.stopped == "quit" and res.status == 0
    path = tmp_path / "ctrlc.json"
    g = game(seed=4, deals=3, target=5000, stdin=Interrupting(12), save=str(path))
    res = g.run()
    assert res.stopped == "interrupted" and res.status == 130
    assert "Game left (interrupted)" in g.stdout.getvalue()
    rec = load_record(str(path))
    assert rec["format"] == "coinche-rl/match"
    assert replay_match(rec)["scores"] == list(res.match.scores)


def test_empty_input_at_once(tmp_path):
    path = tmp_path / "empty.json"
    res = game(seed=1, stdin=io.StringIO(""), save=str(path)).run()
    assert res.stopped == "end of input"
    replay_deal(load_record(str(path)))          # an empty or short auction, still valid


# ----------------------------------------------------------- deals and matches
def test_several_deals_make_a_match_record(tmp_path, capsys):
    path = tmp_path / "three.json"
    g = game(seed=7, deals=3, target=5000, save=str(path))
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished
    n = len(res.match.deals)
    assert n == 3
    assert "=== Deal 2 (deal 2 of 3)" in out and "Running score after 2 of 3 deals" in out
    rec = load_record(str(path))
    assert rec["format"] == "coinche-rl/match" and len(rec["deals"]) == n
    assert replay_match(rec)["scores"] == list(res.match.scores)
    assert main(["replay", str(path)]) == 0
    assert f"match record OK ({n} deals" in capsys.readouterr().out


def test_a_whole_match(tmp_path):
    path = tmp_path / "match.json"
    g = game(seed=4, match=True, target=500, partner="heuristic", opponents=["heuristic"],
             save=str(path), stdin=ones(5000))
    res = g.run()
    out = g.stdout.getvalue()
    assert res.finished and res.match.is_terminal and len(res.match.deals) > 1
    assert f"=== Match over after {len(res.match.deals)} deals" in out
    assert "Match score (to 500)" in out
    rep = replay_match(load_record(str(path)))
    assert rep["winner"] == res.match.winner and rep["scores"] == list(res.match.scores)


def test_same_seed_same_game():
    a = game(seed=11, partner="heuristic", opponents=["random", "heuristic"]).run()
    b = game(seed=11, partner="heuristic", opponents=["random", "heuristic"]).run()
    assert a.record == b.record


# ------------------------------------------------------------ seats and agents
def test_seat_names_are_relative():
    assert [seat_name(s, 2) for s in range(4)] == [
        "partner (seat 0)", "left (seat 1)", "you (seat 2)", "right (seat 3)"]
    g = game(seat=2, partner="test_spy", opponents=["random", "heuristic"], seed=6)
    assert g.specs == ["test_spy", "heuristic", None, "random"]
    res = g.run()
    out = g.stdout.getvalue()
    assert "You are seat 2, team 0, with your partner at seat 0" in out
    assert "  right (seat 3):    random" in out and "  left (seat 1):     heuristic" in out
    assert "Your hand (seat 2):" in out
    assert "  partner (seat 0):  " in out
    deal = res.match.deals[0]
    from coinche_rl.cards import format_hand
    assert f"  you (seat 2):      {format_hand(deal.initial_hands[2])}" in out


def test_bots_get_the_tournament_protocol():
    g = game(seat=1, partner="test_spy", opponents=["test_spy"], seed=9)
    SpyAgent.log.clear()                 # the settings check reset them once
    res = g.run()
    deal = res.match.deals[0]
    public = [(s, a) for s, a in zip(_seats_all(deal), deal.history) if a not in PRIVATE_ACTIONS]
    assert len(SpyAgent.log) == 3
    for calls in SpyAgent.log:
        kind, seat, rules, seed = calls[0]
        assert kind == "reset" and seat in (0, 2, 3) and rules == "ffb"
        observed = [(c[1], c[2]) for c in calls if c[0] == "observe"]
        own_private = [(seat, a) for s, a in zip(_seats_all(deal), deal.history)
                       if s == seat and a in PRIVATE_ACTIONS]
        assert [o for o in observed if o[1] not in PRIVATE_ACTIONS] == public
        assert [o for o in observed if o[1] in PRIVATE_ACTIONS] == own_private
        acts = sum(1 for c in calls if c[0] == "act")
        assert acts == sum(1 for s in _seats_all(deal) if s == seat)


def _seats_all(deal):
    """The seat of every action of a finished deal (private choices included)."""
    from coinche_rl.game import Deal
    d = Deal(deal.rules, hands=deal.initial_hands, dealer=deal.dealer)
    seats = []
    for a in deal.history:
        seats.append(d.current_player)
        d.apply(a)
    return seats


def test_hand_display_marks_and_orders_trumps():
    g = game()
    hand = parse_hand("AH TH JH 9H 7S KD QC 8C")
    plain = g.hand_lines(hand, None)
    assert plain[1].split() == ["hearts", "AH", "TH", "JH", "9H"]
    trump = g.hand_lines(hand, 1)
    assert trump[1].split() == ["hearts", "(trump)", "JH", "9H", "AH", "TH"]
    assert "(trump)" not in trump[0] and trump[2].split() == ["diamonds", "KD"]
    assert all("(trump)" in line for line in g.hand_lines(hand, 5))      # all trump
    assert not any("(trump)" in line for line in g.hand_lines(hand, 4))  # no trump


# ------------------------------------------------------------------ settings
@pytest.mark.parametrize("kw, message", [
    (dict(seat=4), "the seat must be 0..3"),
    (dict(deals=0), "deals must be at least 1"),
    (dict(seed=-1), "non-negative"),
    (dict(dealer=7), "the dealer must be a seat 0..3"),
    (dict(opponents=["random"] * 3), "one agent spec for both opponents or two"),
])
def test_bad_settings(kw, message):
    with pytest.raises(PlaySetupError, match=message):
        game(**kw)


# ------------------------------------------------------------------ the command
def test_cli_plays_from_stdin(tmp_path, monkeypatch, capsys):
    path = tmp_path / "cli.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--seed", "3", "--partner", "random", "--opponents", "random",
                 "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "coinche-rl play: rules 'ffb', seed 3, one deal" in out
    assert "=== Deal 1 is over ===" in out
    assert main(["replay", str(path)]) == 0


def test_cli_end_of_input(tmp_path, monkeypatch, capsys):
    path = tmp_path / "eof.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass\n"))
    assert main(["play", "--seed", "3", "--dealer", "3", "--deals", "2", "--partner", "random",
                 "--opponents", "random", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Game left (end of input)" in out and f"Saved to {path}" in out
    assert main(["replay", str(path)]) == 0


@pytest.mark.parametrize("argv, message", [
    (["--partner", "nosuchbot"], "unknown agent 'nosuchbot'"),
    (["--opponents", "random:foo=1"], "has no parameter 'foo'"),
    (["--opponents", "random", "random", "random"], "one agent spec for both opponents or two"),
    (["--save", "/nonexistent-folder/x.json"], "does not exist"),
    (["--rules", "ffb_sa_ta", "--opponents", "nn"], "cannot play rules 'ffb_sa_ta'"),
])
def test_cli_errors_before_playing(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", *argv]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.err.startswith("coinche-rl: error:")
    assert "Deal 1" not in captured.out


def test_cli_unwritable_save_file(tmp_path, monkeypatch, capsys):
    if os.geteuid() == 0:
        pytest.skip("root can write read-only files")
    path = tmp_path / "ro.json"
    path.write_text("{}")
    path.chmod(0o444)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--save", str(path)]) == 2
    assert "not writable" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--seat", "4"], "argument --seat: must be 0..3, got 4"),
    (["--seat", "x"], "argument --seat: expected an integer"),
    (["--deals", "0"], "argument --deals: must be at least 1, got 0"),
    (["--seed", "-2"], "argument --seed: must be at least 0"),
    (["--dealer", "-1"], "argument --dealer: must be 0..3"),
    (["--target", "0"], "argument --target: must be at least 1"),
    (["--deals", "2", "--match"], "not allowed with argument"),
    (["--rules", "nosuch"], "nosuch"),
])
def test_cli_option_ranges(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["play", *argv])
    assert e.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_cli_subprocess_with_stdin(tmp_path):
    path = tmp_path / "sub.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    p = subprocess.run([sys.executable, "-m", "coinche_rl.cli", "play", "--seat", "1",
                        "--seed", "8", "--partner", "heuristic", "--opponents", "random",
                        "--save", str(path)],
                       input="1\n" * 400, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "=== Deal 1 is over ===" in p.stdout and "Your hand (seat 1):" in p.stdout
    assert json.loads(path.read_text())["format"] == "coinche-rl/deal"
    r = subprocess.run([sys.executable, "-m", "coinche_rl.cli", "replay", str(path)],
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0 and "deal record OK" in r.stdout


class CheatAgent(Agent):
    """Always 'coinche', legal or not."""

    def act(self, view):
        return A.COINCHE


register_agent("test_cheat", CheatAgent, {}, "test agent: an illegal action")


def test_cli_bot_error_keeps_what_was_played(tmp_path, monkeypatch, capsys):
    path = tmp_path / "cheat.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 400))
    assert main(["play", "--seed", "3", "--dealer", "3", "--partner", "random",
                 "--opponents", "test_cheat", "--save", str(path)]) == 1
    captured = capsys.readouterr()
    assert "chose the illegal action" in captured.err
    assert f"(what was played is saved to {path})" in captured.out
    assert load_record(str(path))["auction"] == ["pass"]      # seat 0 passed, then seat 1


def test_module_doctest():
    import doctest
    from coinche_rl import terminal
    assert doctest.testmod(terminal).failed == 0
